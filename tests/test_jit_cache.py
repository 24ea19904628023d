"""Numba's disk cache of a kernel that calls another file's kernel (pymc_models.jit_cache).

Two files in a fresh folder: ``kernel.py`` defines a cached jitted function, ``caller.py`` a
cached jitted function that calls it. A first process compiles both and caches them; then
``kernel.py`` alone is edited and a second process calls ``caller.py`` again. Numba alone
checks the caller's cache against ``caller.py`` only and serves the old kernel; with the folder
registered by :func:`keep_in_step` the caller is compiled again.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from bayes_pairwise.pymc_models import jit_cache

_KERNEL = """
import numba
{register}
@numba.njit(cache=True)
def value():
    return {value}
"""

_CALLER = """
import numba
from kernel import value
{register}
@numba.njit(cache=True)
def call():
    return value() * 10
"""

# the module is loaded from its file, so that the child does not import the whole package
_REGISTER = """
import importlib.util, sys
if "jit_cache" not in sys.modules:
    spec = importlib.util.spec_from_file_location("jit_cache", {path!r})
    sys.modules["jit_cache"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["jit_cache"])
jit_cache = sys.modules["jit_cache"]
assert jit_cache.keep_in_step(__file__)
"""


def _write(folder: Path, value: int, register: bool) -> None:
    reg = _REGISTER.format(path=jit_cache.__file__) if register else ""
    (folder / "kernel.py").write_text(_KERNEL.format(register=reg, value=value))
    caller = folder / "caller.py"
    if not caller.exists():  # written once: the trap is an edit of the other file alone
        caller.write_text(_CALLER.format(register=reg))


def _run(folder: Path, cache: Path) -> int:
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(folder)!r})
        from caller import call
        print(call())
        """
    )
    env = {"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    # -B: no .pyc. Python checks a .pyc by the source's size and whole-second time stamp, and
    # the edited kernel.py has the old one's size, so a second run within the same second
    # imported the old bytecode (a CI run failed so: (10, 10)), which no cache of numba's is
    out = subprocess.run(
        [sys.executable, "-B", "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def _edit_kernel_alone(tmp_path: Path, register: bool) -> tuple[int, int]:
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    _write(folder, 1, register)
    first = _run(folder, cache)
    _write(folder, 2, register)  # kernel.py only; caller.py keeps its time stamp
    return first, _run(folder, cache)


def test_an_edit_of_the_called_kernel_alone_recompiles_its_caller(tmp_path: Path) -> None:
    assert _edit_kernel_alone(tmp_path, register=True) == (10, 20)


def test_numba_alone_serves_the_callers_stale_code(tmp_path: Path) -> None:
    """The trap the module works around (if numba ever checks dependencies, this fails and
    ``jit_cache`` can go)."""
    assert _edit_kernel_alone(tmp_path, register=False) == (10, 10)


def test_the_package_kernels_are_checked_against_the_folders_digest() -> None:
    from bayes_pairwise.pymc_models import direct, fused

    folder = str(Path(fused.__file__).resolve().parent)
    assert folder in jit_cache._FOLDERS
    locator = direct._total._cache._impl.locator  # numba's cache of one of direct's functions
    stamp = locator.get_source_stamp()
    assert stamp[1] == jit_cache.sources_digest(folder)
    # the digest covers the files that use numba, and only those
    names = {p.name for p in Path(folder).glob("*.py") if b"numba" in p.read_bytes()}
    assert {"fused.py", "direct.py", "order_kernel.py", "order_density.py"} <= names


def test_a_file_outside_a_registered_folder_keeps_numbas_own_check(tmp_path: Path) -> None:
    from bayes_pairwise.pymc_models import direct

    locator_cls = type(direct._total._cache._impl.locator)
    py = tmp_path / "elsewhere.py"
    py.write_text("def f():\n    return 1\n")
    assert locator_cls.from_function(lambda: 1, str(py)) is None


def test_the_cached_callbacks_keys_follow_the_same_digest() -> None:
    """The nutpie callbacks (cached in PyTensor's folder, linked with the entries) are keyed by
    the digest numba's stamp carries: a kernel edit gives them a new key and fresh entries."""
    from bayes_pairwise.pymc_models import direct, fused, order_density

    digest = jit_cache.sources_digest(jit_cache.folder_of(fused.__file__))
    assert direct.source_version() == digest
    assert order_density.source_version() == digest
