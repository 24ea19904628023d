"""The labelling planner and the label-informed rates (issue 25)."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_pairwise.classical.bounds import error_bounds
from bayes_pairwise.labels import label_informed_rates, plan_labels
from bayes_pairwise.simulate import simulate_hard_pairs

DESIGN = dict(
    n_items=2,
    n_contexts=400,
    eps_plus=0.10,
    eps_minus=0.20,
    hard_share=0.25,
    eps_hard=0.6,
    tie_rate=0.1,
)


def test_full_labels_give_the_realised_rates_exactly():
    sim = simulate_hard_pairs(**DESIGN, labelled=1.0, random_seed=3)
    r = label_informed_rates(sim.data).set_index("quantity")
    for q, real in (
        ("eps_plus", sim.realised_eps_plus),
        ("eps_minus", sim.realised_eps_minus),
        ("eps", sim.realised_eps),
    ):
        assert r.loc[q, "estimate"] == pytest.approx(real, abs=1e-12)
        assert r.loc[q, "upper"] - r.loc[q, "lower"] == pytest.approx(0.0, abs=1e-12)


def test_without_labels_the_interval_stays_inside_the_sharp_bounds():
    sim = simulate_hard_pairs(**DESIGN, labelled=0.0, random_seed=3)
    r = label_informed_rates(sim.data).set_index("quantity")
    b = error_bounds(sim.data, n_bootstrap=0)[0]
    for q in ("eps_plus", "eps_minus", "eps"):
        assert b.sharp[q][0] - 1e-12 <= r.loc[q, "lower"] <= r.loc[q, "upper"] <= b.sharp[q][1]


def test_plan_picks_only_ambiguous_pairs_of_the_log():
    sim = simulate_hard_pairs(**DESIGN, labelled=0.0, random_seed=5)
    plan = plan_labels(sim.data, 50, random_seed=0)
    assert len(plan.pairs) == 50 and plan.pairs["context"].is_unique
    f = sim.frame
    for row in plan.pairs.itertuples(index=False):
        block = f[f["context"] == row.context]
        assert {row.first, row.second} == set(block["first"]) | set(block["second"])
        # an inconsistent pair (one verdict each order, both decided, same position won) is
        # never planned: its one error and its kind are known
        out = block["outcome"].tolist()
        assert not ("tie" not in out and out[0] == out[1])
    assert plan.pairs["score"].is_monotonic_decreasing
    d = plan.to_dict()
    assert set(d) >= {"pairs", "expected_width"}
    assert set(d["pairs"][0]) == {"first", "second", "context", "score"}


def test_planned_labels_beat_random_ones_at_equal_budget():
    """Mean width over 3 seeds at budget 100: planned ≤ 0.8 × random (plain labelled rates)."""
    from bayes_pairwise import load_comparisons
    from bayes_pairwise.classical.descriptive import labelled_error_rates
    from bayes_pairwise.conventions import HDI_PROB

    ratios = []
    for seed in range(3):
        sim = simulate_hard_pairs(**DESIGN, labelled=1.0, random_seed=seed)
        frame = sim.frame.drop(columns="truth")

        def labelled(keep, sim=sim, frame=frame):
            f = frame.copy()
            f["truth"] = np.where(f["context"].isin(keep), sim.frame["truth"], None)
            return load_comparisons(f, context="context", ties="model", truth="truth")

        plan = plan_labels(sim.data_unlabelled, 100, random_seed=seed)
        p = label_informed_rates(labelled(set(plan.pairs["context"]))).set_index("quantity")
        keep = np.random.default_rng(seed).choice(frame["context"].unique(), 100, replace=False)
        r = labelled_error_rates(labelled(set(keep)), level=HDI_PROB).iloc[0]
        ratios.append(
            (p.loc["eps_plus", "upper"] - p.loc["eps_plus", "lower"])
            / (r["eps_plus_hi"] - r["eps_plus_lo"])
        )
    assert np.mean(ratios) <= 0.8


def test_labels_for_width_is_monotone_and_plans_need_judge_with_several():
    sim = simulate_hard_pairs(**DESIGN, labelled=0.0, random_seed=0)
    plan = plan_labels(sim.data, 0)
    assert len(plan.pairs) == 0
    n1, n2 = plan.labels_for_width(0.2), plan.labels_for_width(0.05)
    assert 0 < n1 < n2 <= plan.n_ambiguous
    assert plan.labels_for_width(1.0) == 0
    with pytest.raises(ValueError, match="budget"):
        plan_labels(sim.data, -1)


def test_plan_labels_on_several_judges_names_them(capsys):
    """A log of several judges is refused with the judges named, so that --judge can be
    given without another look at the data (it gave the count alone)."""
    from bayes_pairwise import datasets
    from bayes_pairwise.cli import main

    with pytest.raises(ValueError, match=r"5 judges \(bard, claude, gpt35, gpt4, vicuna-13b\)"):
        plan_labels(datasets.load("prd_vicuna80"), 10)
    assert main(["plan-labels", "prd_vicuna80", "--budget", "10"]) == 2
    assert "(bard, claude, gpt35, gpt4, vicuna-13b); plan labels for one" in capsys.readouterr().err
