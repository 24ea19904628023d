"""The cross-check's LOO model comparison and most-likely-wrong verdicts, and their report
sections (issue 8, items 1 and 4).

The cross-check computes both (``CrossCheck.model_comparison``, ``CrossCheck.likely_errors``);
the report prints them. Every number is checked against an independent computation:
:func:`arviz.compare` on the same InferenceData objects, and the fit's own ``verdict_errors``.
The default tests use NUTS replaced by draws from the prior (``conftest.fake_nuts``) and MAP
fits; the slow test fits real NUTS on a strongly positional log.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import arviz as az
import matplotlib
import numpy as np
import pandas as pd
import pytest
from html_tables import HtmlTables

matplotlib.use("Agg")

from conftest import fake_nuts

from bayes_pairwise.crosscheck import LIKELY_ERRORS_PER_JUDGE, LOO_NEEDS_DRAWS, crosscheck
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.model_checking import COMPARE_COLUMNS, compare_fitted
from bayes_pairwise.pymc_models.verdicts import most_likely_errors
from bayes_pairwise.report import build_report
from bayes_pairwise.simulate import simulate_round_robin

pytest.importorskip("pymc")

#: Only what these tests read: no grids, no leaderboards, no diagnostics.
CHEAP = {
    "delta_s": False,
    "delta_s_2d": False,
    "biased_bt_spread": False,
    "strengths": False,
    "leaderboard": False,
    "diagnostics": False,
    "random_seed": 0,
}
#: Every id 90 characters long (so whichever verdicts rank as likely errors, their ids are long).
LONGS = {f"t{k:03d}": f"item{k}-" + "x" * 79 + "-end" for k in range(5)}


def _two_judges(n_items: int = 5) -> Any:
    """Two judges on one round-robin (two verdicts per order), every id 90 characters long."""
    frames = []
    for k, (name, eps) in enumerate({"gpt": 0.05, "llama": 0.3}.items()):
        sim = simulate_round_robin(n_items, eps=eps, repeats=2, random_seed=10 + k)
        f = sim.data.to_frame()[["first", "second", "outcome"]].copy()
        f["judge"] = name
        frames.append(f)
    frame = pd.concat(frames, ignore_index=True).replace(LONGS)
    return load_comparisons(frame, judge="judge")


@pytest.fixture(scope="module")
def nuts_cc():
    """Two judges, uniform + positional with NUTS replaced by prior draws (2 chains × 50)."""
    import bayes_pairwise.pymc_models.base as base

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mp.setattr(base, "sample_nuts", fake_nuts())
        return crosscheck(_two_judges(), draws=50, tune=50, chains=2, **CHEAP)


@pytest.fixture(scope="module")
def point_cc(nuts_cc):
    """The same fits marked as MAP fits (no new compilation): the cross-check's MAP branch."""
    import copy

    fits = []
    for f in nuts_cc.fits.values():
        g = copy.copy(f)
        g.method_ = "map"
        fits.append(g)
    return crosscheck(nuts_cc.data, *fits, **CHEAP)


@pytest.fixture(scope="module")
def map_cc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return crosscheck(_two_judges(), method="map", **CHEAP)


def _render(cc: Any) -> tuple[str, list[dict[str, Any]]]:
    """The report of ``cc``'s answer sections: the fits are dropped (the Bayesian section's
    plots are not what is tested), what the cross-check computed is kept."""
    from dataclasses import replace

    html = build_report(replace(cc, fits={}), progress=False).render()
    parser = HtmlTables()
    parser.feed(html)
    return html, parser.tables


# ============================================================================ LOO in the crosscheck
def test_crosscheck_comparison_equals_arviz_compare(nuts_cc):
    cc = nuts_cc
    table = cc.model_comparison
    assert table is not None and table.columns.tolist() == list(COMPARE_COLUMNS)
    idatas = {name: f.idata_ for name, f in cc.fits.items()}
    # the fits store the pointwise log-likelihood per (judge, pair) row: 2 judges × 10 pairs
    for idata in idatas.values():
        assert idata.log_likelihood["wins"].shape[-1] == 2 * 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = az.compare(idatas, ic="loo", method="stacking", scale="log")
    assert table["model"].tolist() == list(ref.index)
    for col in ("elpd_loo", "se", "elpd_diff", "dse", "weight", "p_loo"):
        np.testing.assert_allclose(table[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12)
    assert table["weight"].sum() == pytest.approx(1.0)
    # one implementation: compare_fitted on the same fits gives the same table
    pd.testing.assert_frame_equal(compare_fitted(dict(cc.fits)), table)
    msg = table.attrs["message"]
    assert table.attrs["preferred"] in msg
    # the verdict ends "... preferred."; a hedge follows it exactly when some Pareto k is bad
    verdict, _, hedge = msg.partition(" HEDGED: ")
    assert verdict.endswith("preferred.")
    assert bool(hedge) == (table["pareto_k_bad"].sum() > 0) == (not table.attrs["reliable"])
    if hedge:
        for m, b in zip(table["model"], table["pareto_k_bad"], strict=True):
            assert (f"{b} of 20" in hedge and f"in {m}" in hedge) == (b > 0)
        # the remedy follows the k values: above 0.7 more draws do not help (Vehtari et al.)
        over = sum(int((az.loo(i, pointwise=True).pareto_k >= 0.7).sum()) for i in idatas.values())
        assert ("more draws do not help" in hedge) == (over > 0)
        assert ("refit with more draws" in hedge) == (over == 0)
        if over:
            verb = "has" if over == 1 else "have"
            assert f"{over:,} of these rows {verb} k ≥ 0.7" in hedge
            assert "compare-models --kfold 10" in hedge  # pair rows: the package refits them
    assert "joint fit" in cc.model_comparison_note
    d = json.loads(json.dumps(cc.to_dict(), default=str))
    mc = d["model_comparison"]
    assert mc["message"] == msg and mc["unit"] == "pair"
    assert [r["model"] for r in mc["models"]] == list(ref.index)
    assert [r["elpd_loo"] for r in mc["models"]] == pytest.approx(list(ref["elpd_loo"]))


MAP_FIXTURES = ["point_cc", pytest.param("map_cc", marks=pytest.mark.slow)]  # real MAP: 35 s


@pytest.mark.parametrize("which", MAP_FIXTURES)
def test_map_crosscheck_has_no_comparison_but_a_reason(which, request):
    cc = request.getfixturevalue(which)
    assert list(cc.fits) == ["uniform", "positional"]
    assert cc.model_comparison is None
    assert cc.model_comparison_note.startswith(LOO_NEEDS_DRAWS)
    d = cc.to_dict()
    assert d["model_comparison"] is None and d["model_comparison_note"].startswith(LOO_NEEDS_DRAWS)


# ============================================================================ likely errors
@pytest.mark.parametrize("which", ["nuts_cc", *MAP_FIXTURES])
def test_likely_errors_are_the_top_five_per_judge(which, request):
    cc = request.getfixturevalue(which)
    got = cc.likely_errors
    fit = cc.primary_fit
    assert fit.name == "uniform"
    every = fit.verdict_errors(cc.data)
    want = most_likely_errors(every, per_judge=LIKELY_ERRORS_PER_JUDGE)
    pd.testing.assert_frame_equal(got, want)
    assert got.groupby("judge").size().to_dict() == {"gpt": 5, "llama": 5}
    for _, rows in got.groupby("judge"):
        p = rows["p_error"].to_numpy()
        assert np.all(np.diff(p) <= 0)
        # nothing left out of the top five is more likely wrong
        rest = every[(every.judge == rows.judge.iloc[0]) & ~every.row.isin(rows.row)]
        assert p.min() >= rest["p_error"].max()
    # the rows point back into the input: first / second / outcome as given
    frame = cc.data.to_frame().reset_index(drop=True)
    for r in got.itertuples(index=False):
        src = frame.iloc[int(r.row)]
        assert (src["first"], src["second"], src["judge"]) == (r.first, r.second, r.judge)
    d = json.loads(json.dumps(cc.to_dict(), default=str))
    assert [x["p_error"] for x in d["likely_errors"]] == pytest.approx(got["p_error"].tolist())
    assert ("MAP point" in cc.likely_errors_note) == (which != "nuts_cc")


# ============================================================================ the report
def test_report_prints_the_comparison_and_likely_errors(nuts_cc):
    cc = nuts_cc
    html, tables = _render(cc)
    loo = next(t for t in tables if t["caption"].startswith("PSIS-LOO comparison"))
    head, body = loo["rows"][0], loo["rows"][1:]
    assert head[:7] == ["model", "elpd_loo", "se", "elpd_diff", "dse", "weight", "p_loo"]
    table = cc.model_comparison
    assert [r[0] for r in body] == table["model"].tolist()
    for col in ("elpd_loo", "se", "elpd_diff", "dse", "weight", "p_loo"):
        k = head.index(col)
        assert [r[k] for r in body] == [f"{v:.2f}" for v in table[col]]
    assert [r[head.index("Pareto k warnings")] for r in body] == [
        str(v) for v in table["pareto_k_bad"]
    ]
    # the verdict sentence, escaped as the page escapes text
    from bayes_pairwise._html import esc

    assert esc(table.attrs["message"]) in html
    # the likely-wrong verdicts: one table per judge, p_error as computed (3 decimals)
    le = cc.likely_errors
    assert set(le["first"]) | set(le["second"]) <= set(LONGS.values())
    shown: set[str] = set()
    for judge in ("gpt", "llama"):
        t = next(t for t in tables if t["caption"].startswith(f"Judge {judge}: the 5 verdicts"))
        h, rows = t["rows"][0], t["rows"][1:]
        want = le[le.judge == judge]
        assert [r[h.index("row")] for r in rows] == [str(v) for v in want["row"]]
        assert [r[h.index("p_error")] for r in rows] == [f"{v:.3f}" for v in want["p_error"]]
        shown |= {r[h.index(c)] for r in rows for c in ("first shown", "second shown")}
    # the 90-character id is shortened to 40 characters, keeping its start and end
    assert not shown & set(LONGS.values()) and all(len(v) <= 40 for v in shown)
    short = {f"item{k}-" + "x" * 20 + "…" + "x" * 9 + "-end" for k in range(5)}
    assert shown and shown <= short
    assert {v[:5] for v in shown} == {v[:5] for v in set(le["first"]) | set(le["second"])}
    # both sections come after the headline, in collapsible <details>
    sections = html.split("</nav>", 1)[1]
    assert (
        sections.index("Per judge:")
        < sections.index("<summary>Model comparison (PSIS-LOO)")
        < sections.index("<summary>Verdicts most likely wrong, per judge")
        < sections.index("<summary>Data and design")
    )


@pytest.mark.parametrize("which", MAP_FIXTURES)
def test_map_report_prints_the_reason(which, request):
    map_cc = request.getfixturevalue(which)
    html, tables = _render(map_cc)
    assert "<summary>Model comparison (PSIS-LOO)" in html
    assert LOO_NEEDS_DRAWS in html
    assert not any(t["caption"].startswith("PSIS-LOO comparison") for t in tables)
    le = map_cc.likely_errors
    t = next(t for t in tables if t["caption"].startswith("Judge gpt: the 5 verdicts"))
    h = t["rows"][0]
    want = le[le.judge == "gpt"]["p_error"]
    assert [r[h.index("p_error")] for r in t["rows"][1:]] == [f"{v:.3f}" for v in want]


# ============================================================================ real NUTS (slow)
@pytest.mark.slow  # two real NUTS fits (100 + 100 draws, 2 chains): minutes on a cold cache
def test_positional_log_ranks_positional_first():
    sim = simulate_round_robin(12, eps_plus=0.04, eps_minus=0.30, repeats=2, random_seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc = crosscheck(sim.data, draws=100, tune=100, chains=2, **CHEAP)
    table = cc.model_comparison
    assert table["model"].tolist() == ["positional", "uniform"]
    assert table.attrs["preferred"] == "positional"
    row = table.set_index("model").loc["uniform"]
    assert row["elpd_diff"] > 2 * row["dse"]
    idatas = {name: f.idata_ for name, f in cc.fits.items()}
    ref = az.compare(idatas, ic="loo", method="stacking", scale="log")
    np.testing.assert_allclose(table["elpd_loo"], ref["elpd_loo"], rtol=1e-12)
    _, tables = _render(cc)
    loo = next(t for t in tables if t["caption"].startswith("PSIS-LOO comparison"))
    assert loo["rows"][1][0] == "positional"
    assert loo["rows"][1][1] == f"{table['elpd_loo'].iloc[0]:.2f}"


def test_report_contents_list_each_judge_s_section(map_cc):
    """The contents at the top list the level-3 sections too, each judge's among them, nested
    under their section: on a log of many judges a reader jumps to one judge instead of
    scrolling past every other judge's figures."""
    import re

    html = build_report(map_cc, progress=False).render()
    nav = html[html.index("<nav>") : html.index("</nav>")]
    for j in map_cc.data.judges:
        (anchor,) = re.findall(rf'<h3 id="(s\d+)">Judge {j}</h3>', html)
        assert f'<li><a href="#{anchor}">Judge {j}</a></li>' in nav
    # nested: the judges' entries sit in a list inside the Bayesian section's entry
    top = re.findall(
        r"<nav><details><summary>Contents</summary><ul>(.*)</ul></details>", nav + "</nav>"
    )
    assert top and "<ul><li>" in top[0]
