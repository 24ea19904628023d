"""The house is one-way: no import cycle inside the package, no private name borrowed.

Issue 9 asks for a test that fails on an import cycle inside the package and on a private name
imported from another module. Both are read from the source with :mod:`ast`, so the test sees
imports inside functions too (a lazy import still makes a cycle in the design).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "bayes_pairwise"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _resolve(mod: str, node: ast.ImportFrom, is_pkg: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def _imports(mods: dict[str, Path]) -> list[tuple[str, str, str | None, int]]:
    """(importing module, imported module, imported name or None, line)."""
    out = []
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("bayes_pairwise"):
                        out.append((mod, a.name, None, node.lineno))
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(mod, node, is_pkg)
                if not target.startswith("bayes_pairwise"):
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if sub in mods:  # "from pkg import module"
                        out.append((mod, sub, None, node.lineno))
                    else:
                        out.append((mod, target, a.name, node.lineno))
    return out


def _is_package(name: str, mods: dict[str, Path]) -> bool:
    return name in mods and mods[name].name == "__init__.py"


def test_no_import_cycle_inside_the_package() -> None:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for src, dst, _name, _line in _imports(mods):
        # a package's __init__ re-exports its modules: edges into a package's own
        # children from its __init__ are the package's public face, not a cycle
        if dst not in mods or dst == src:
            continue
        if _is_package(src, mods) and dst.startswith(src + "."):
            continue
        if _is_package(dst, mods) and src.startswith(dst + "."):
            continue  # a child importing its parent package namespace is checked via names
        graph[src].add(dst)
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                cycles.append([*stack[stack.index(m) :], m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_attribute_uses(mods: dict[str, Path]) -> list[str]:
    """``plots._helper(...)`` after ``from bayes_pairwise import plots``: a private name too."""
    found = []
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("bayes_pairwise") and a.asname:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(mod, node, is_pkg)
                for a in node.names:
                    if f"{target}.{a.name}" in mods:
                        aliases[a.asname or a.name] = f"{target}.{a.name}"
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
                and aliases[node.value.id] != mod
            ):
                found.append(
                    f"{path.relative_to(PKG.parent)}:{node.lineno} uses "
                    f"{aliases[node.value.id]}.{node.attr}"
                )
    return found


def test_no_private_name_imported_from_another_module() -> None:
    mods = _modules()
    bad = []
    for src, dst, name, line in _imports(mods):
        if name is None or not _private(name):
            continue
        # a private *module* (``_html``) imported whole is the package's own helper; a private
        # *name* defined in another module is not to be borrowed
        bad.append(f"{mods[src].relative_to(PKG.parent)}:{line} imports {name} from {dst}")
    bad += _private_attribute_uses(mods)
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "snippet, expect",
    [
        ("from bayes_pairwise.plots import _helper", True),
        ("from bayes_pairwise.plots import helper", False),
    ],
)
def test_private_name_detector_can_fail(snippet: str, expect: bool) -> None:
    """The detector itself flags a private import (so the real test is able to fail)."""
    tree = ast.parse(snippet)
    node = tree.body[0]
    assert isinstance(node, ast.ImportFrom)
    flagged = any(a.name.startswith("_") and not a.name.startswith("__") for a in node.names)
    assert flagged is expect


# ------------------------------------------------------------------------- renderers only render
#: What the renderers may import from the package, executed imports (lazy ones inside functions
#: included): the cross-check (every number), the rules (``conventions``, ``output``), the HTML
#: page (``_html``) and the data types (``data``: Comparisons and its loader, ``datasets``: the
#: bundled logs, ``errors``: exceptions and the warning sink, ``progress``: the step lines,
#: ``_version``). The plots get their numbers from ``plot_data``, the compute side of the plots
#: (the cross-check calls it too); the report draws through ``plots``. Imports under
#: ``if TYPE_CHECKING:`` name types only and are never executed.
RENDERER_IMPORTS = {
    "bayes_pairwise.report": {
        "bayes_pairwise._html",
        "bayes_pairwise._version",
        "bayes_pairwise.conventions",
        "bayes_pairwise.crosscheck",
        "bayes_pairwise.data",
        "bayes_pairwise.datasets",
        "bayes_pairwise.errors",
        "bayes_pairwise.output",
        "bayes_pairwise.plots",
        "bayes_pairwise.progress",
    },
    "bayes_pairwise.plots": {
        "bayes_pairwise._html",
        "bayes_pairwise.conventions",
        "bayes_pairwise.errors",
        "bayes_pairwise.plot_data",
    },
}
#: Never imported by a renderer, not even for a type: the computing layers.
COMPUTING = ("classical", "pymc_models", "matrices", "simulate")


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Line numbers of the statements under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name | ast.Attribute)
            and "TYPE_CHECKING" in ast.unparse(node.test)
        ):
            for sub in node.body:
                for n in ast.walk(sub):
                    if hasattr(n, "lineno"):
                        lines.add(n.lineno)
    return lines


def _layer_violations(mods: dict[str, Path]) -> list[str]:
    bad = []
    type_only = {
        m: _type_checking_lines(ast.parse(mods[m].read_text(encoding="utf-8")))
        for m in RENDERER_IMPORTS
    }
    for src, dst, name, line in _imports(mods):
        if src not in RENDERER_IMPORTS:
            continue
        where = f"{mods[src].relative_to(PKG.parent)}:{line}"
        what = dst + (f".{name}" if name else "")
        parts = what.split(".")
        if len(parts) > 1 and parts[1] in COMPUTING:
            bad.append(f"{where} imports {what} (a computing layer)")
            continue
        if line in type_only[src]:
            continue
        if dst == "bayes_pairwise" and name is not None:
            bad.append(f"{where} imports {name} from the package namespace")
        elif dst not in RENDERER_IMPORTS[src]:
            bad.append(f"{where} imports {what}")
    return bad


def test_renderers_only_render() -> None:
    """Issue 26: ``report`` and ``plots`` compute nothing. They import only the cross-check,
    the rules, the HTML page and the data types, never ``classical``, ``pymc_models``,
    ``matrices`` or ``simulate`` (lazy imports inside functions included)."""
    bad = _layer_violations(_modules())
    assert not bad, "renderers import computing modules:\n" + "\n".join(bad)


def test_layer_contract_can_fail(tmp_path: Path) -> None:
    """The contract flags a lazy import of a computing module inside a function, an import of
    a module outside the allowed set, and a type-only import of a computing module; it lets a
    type-only import of a data type pass."""
    pkg = tmp_path / "bayes_pairwise"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for m in ("crosscheck", "leaderboard", "data"):
        (pkg / f"{m}.py").write_text("X = 1\n")
    (pkg / "classical").mkdir()
    (pkg / "classical" / "__init__.py").write_text("")
    (pkg / "classical" / "descriptive.py").write_text("def copeland_ranking(d): ...\n")
    (pkg / "report.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from bayes_pairwise.crosscheck import X\n"
        "if TYPE_CHECKING:\n"
        "    from bayes_pairwise.data import X\n"
        "    from bayes_pairwise.classical import descriptive\n"
        "def f():\n"
        "    from bayes_pairwise.classical.descriptive import copeland_ranking\n"
        "    from bayes_pairwise import leaderboard\n"
    )
    (pkg / "plots.py").write_text("")
    mods = {
        (
            ".".join(p.relative_to(tmp_path).with_suffix("").parts[:-1])
            if p.name == "__init__.py"
            else ".".join(p.relative_to(tmp_path).with_suffix("").parts)
        ): p
        for p in pkg.rglob("*.py")
    }
    global PKG
    saved, PKG = PKG, pkg
    try:
        bad = _layer_violations(mods)
    finally:
        PKG = saved
    text = "\n".join(bad)
    assert "report.py:5 imports bayes_pairwise.classical.descriptive" in text
    assert "report.py:7 imports bayes_pairwise.classical.descriptive.copeland_ranking" in text
    assert "report.py:8 imports bayes_pairwise.leaderboard" in text
    assert len(bad) == 3, text


# ------------------------------------------------------------- compiled kernels: no slice stores
def _slice_stores(source: str) -> list[str]:
    """Slice assignments (``a[:] = b``, ``a[i:j, :] = b``) inside numba-compiled functions of
    ``source``. numba compiles each one's shape-mismatch error with its message formatting
    (``raise_with_shape_context``: str, repr, join), 2-3 s of every cold start of the
    written-out density before it was a loop; a loop compiles none of it."""

    def jitted(fn: ast.FunctionDef) -> bool:
        return any("jit" in ast.unparse(d) or "cfunc" in ast.unparse(d) for d in fn.decorator_list)

    def sliced(idx: ast.expr) -> bool:
        parts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        return any(isinstance(p, ast.Slice) for p in parts)

    found = []
    for fn in ast.walk(ast.parse(source)):
        if not (isinstance(fn, ast.FunctionDef) and jitted(fn)):
            continue
        for node in ast.walk(fn):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AugAssign)
                else []
            )
            found += [
                f"{fn.name}: {ast.unparse(node)}"
                for t in targets
                if isinstance(t, ast.Subscript) and sliced(t.slice)
            ]
    return found


def test_compiled_kernels_store_by_loops_not_slices() -> None:
    """No numba-compiled function of the package assigns to a slice (cold-start compile time)."""
    found = [
        f"{path.relative_to(PKG.parent)}: {hit}"
        for path in sorted(PKG.rglob("*.py"))
        for hit in _slice_stores(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_slice_store_detector_can_fail() -> None:
    """The detector flags slice stores in a jitted function, and only there."""
    src = (
        "@numba.njit(cache=True)\ndef f(a, b):\n    a[:] = b\n    a[0] = 1.0\n"
        "    a[1:, :] += b\n\n@cfunc(sig)\ndef g(p):\n    carray(p, (2,))[:] = 0.0\n\n"
        "def h(a, b):\n    a[:] = b\n"
    )
    assert _slice_stores(src) == ["f: a[:] = b", "f: a[1:, :] += b", "g: carray(p, (2,))[:] = 0.0"]
