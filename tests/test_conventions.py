"""One place per rule (issue 26, item 5): every convention is stated in ``conventions.py`` and
read from there at call time; the package's source holds no second copy."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import bayes_pairwise as bp
from bayes_pairwise import conventions

PACKAGE = Path(bp.__file__).parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "datasets/data" not in p.as_posix())


def _without(name: str) -> list[Path]:
    return [p for p in SOURCES if p.name != name or p.parent != PACKAGE]


def test_no_literal_interval_level_outside_conventions():
    """``0.94`` (the interval level) is written once, in conventions.py: no default argument,
    docstring or column filter (``hdi_3%``) repeats it."""
    found = []
    for p in _without("conventions.py"):
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(?<![\d.])0\.94(?!\d)|hdi_3%|hdi_97%", line):
                found.append(f"{p.relative_to(PACKAGE)}:{k}: {line.strip()}")
    # fit_summary_dict's docstring shows ArviZ's column names at the default level: an
    # example's output, not a rule (the code reads conventions.hdi_columns())
    allowed = (
        """``{"model", "method", "parameters": {name: {"mean", "sd", "hdi_3%", "hdi_97%", """,
        "['ess_bulk', 'ess_tail', 'hdi_3%', 'hdi_97%', 'mean', 'r_hat', 'sd']",
    )
    found = [f for f in found if not f.split(": ", 1)[1].startswith(allowed)]
    assert not found, "\n".join(found)


def test_the_literal_detector_can_fail():
    assert re.search(r"(?<![\d.])0\.94(?!\d)", "hdi_prob: float = 0.94")
    assert not re.search(r"(?<![\d.])0\.94(?!\d)", "x = 10.945")


@pytest.mark.parametrize(
    "name", ["CONTEXT_SEP", "RHAT_MAX", "ESS_MIN", "EBFMI_MIN", "HDI_PROB", "TIES"]
)
def test_each_constant_is_assigned_once(name):
    """A rule's constant is assigned in conventions.py only (others import it)."""
    owners = []
    for p in SOURCES:
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for t in targets:
                if isinstance(t, ast.Name) and t.id.lstrip("_") == name:
                    owners.append(p.name)
    assert owners == ["conventions.py"], owners


def test_one_atomic_writer():
    """``output.atomic_write`` is the only place that renames a temporary onto a target."""
    users = [p.name for p in SOURCES if "os.replace(" in p.read_text(encoding="utf-8")]
    assert users == ["output.py"], users


def test_hdi_prob_is_read_at_call_time(monkeypatch):
    """``hdi_prob=None`` resolves to conventions.HDI_PROB when called (as ArviZ's rcParams)."""
    from bayes_pairwise.pymc_models.diagnostics import hdi_interval, parameter_summary

    x = np.random.default_rng(0).normal(size=4000)
    wide = hdi_interval(x)
    monkeypatch.setattr(conventions, "HDI_PROB", 0.5)
    narrow = hdi_interval(x)
    assert narrow[1] - narrow[0] < 0.5 * (wide[1] - wide[0])
    assert conventions.interval_label() == "50%"
    assert conventions.z_value() == pytest.approx(0.6744897501960817)
    import arviz as az

    idata = az.from_dict(posterior={"eps": x.reshape(2, 2000)})
    assert {"hdi_25%", "hdi_75%"} <= set(parameter_summary(idata, ["eps"]).columns)


def test_tie_policy_is_read_at_call_time(monkeypatch):
    import pandas as pd

    df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"], "outcome": ["first", "tie"]})
    assert bp.load_comparisons(df).tie_policy == "model"
    monkeypatch.setattr(conventions, "TIES", "drop")
    d = bp.load_comparisons(df)
    assert d.tie_policy == "drop" and d.n_ties_dropped == 1
