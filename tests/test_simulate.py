"""Synthetic generators: design, truth, realised error rates, seeding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.simulate import simulate_biased_bt, simulate_round_robin


def _truth_rank(sim):
    return {lab: r for r, lab in enumerate(sim.true_order)}


def test_round_robin_design_every_pair_both_orders():
    sim = simulate_round_robin(7, eps=0.2, k_plus=2, k_minus=3, random_seed=0)
    f = sim.frame
    assert len(f) == 21 * 5
    assert sim.data.n_comparisons == len(f)
    lo = f[["first", "second"]].min(axis=1)
    hi = f[["first", "second"]].max(axis=1)
    lower_first = f["first"] == lo
    g = lower_first.groupby([lo, hi])
    # every unordered pair: 2 showings with the lower-index item first, 3 with it second
    assert len(g) == 21
    assert (g.sum() == 2).all() and (g.count() == 5).all()
    assert set(f["repeat"]) == {0, 1, 2}


def test_round_robin_is_seeded_and_truth_random_relative_to_labels():
    a = simulate_round_robin(30, eps=0.1, random_seed=5)
    b = simulate_round_robin(30, eps=0.1, random_seed=5)
    c = simulate_round_robin(30, eps=0.1, random_seed=6)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert a.true_order == b.true_order
    assert a.true_order != c.true_order
    assert a.true_order != tuple(sorted(a.true_order))  # labels are shuffled w.r.t. quality
    # hard truth strengths are N - rank (rank 1 = best)
    assert a.true_strengths[a.true_order[0]] == 29.0
    assert a.true_strengths[a.true_order[-1]] == 0.0


def test_realised_rates_match_the_frame():
    sim = simulate_round_robin(25, eps_plus=0.05, eps_minus=0.35, repeats=2, random_seed=1)
    rank = _truth_rank(sim)
    f = sim.frame
    r_first = f["first"].map(rank).to_numpy()
    r_second = f["second"].map(rank).to_numpy()
    better_first = r_first < r_second
    first_won = (f["outcome"] == "first").to_numpy()
    wrong = first_won != better_first
    np.testing.assert_array_equal(~wrong, sim.correct)
    assert sim.realised_eps == pytest.approx(wrong.mean())
    assert sim.realised_eps_plus == pytest.approx(wrong[better_first].mean())
    assert sim.realised_eps_minus == pytest.approx(wrong[~better_first].mean())
    # and they are close to the nominal rates (600 verdicts each side)
    assert abs(sim.realised_eps_plus - 0.05) < 0.03
    assert abs(sim.realised_eps_minus - 0.35) < 0.06
    assert sim.eps is None and sim.eps_plus == 0.05


def test_zero_error_reproduces_the_truth():
    sim = simulate_round_robin(12, eps=0.0, random_seed=2)
    assert sim.realised_eps == 0.0
    rank = _truth_rank(sim)
    f = sim.frame
    winner = np.where(f["outcome"] == "first", f["first"], f["second"])
    loser = np.where(f["outcome"] == "first", f["second"], f["first"])
    assert all(rank[w] < rank[lo] for w, lo in zip(winner, loser, strict=True))


def test_soft_truth_outcome_is_shared_by_all_showings_of_a_pair():
    # with no lapse every showing of a pair reports the same latent T, in both orders
    sim = simulate_round_robin(15, eps=0.0, soft_sigma=1.0, repeats=3, random_seed=3)
    f = sim.frame
    winner = np.where(f["outcome"] == "first", f["first"], f["second"])
    key = f[["first", "second"]].min(axis=1) + "|" + f[["first", "second"]].max(axis=1)
    assert pd.Series(winner).groupby(key.to_numpy()).nunique().max() == 1
    assert sim.realised_eps == 0.0
    # ... but T disagrees with the strength order for close calls
    assert sim.realised_eps_vs_order > 0.05
    assert sim.true_strengths.is_monotonic_decreasing is False
    assert list(sim.true_strengths[list(sim.true_order)]) == sorted(
        sim.true_strengths, reverse=True
    )


def test_soft_truth_lapse_is_relative_to_t():
    sim = simulate_round_robin(40, eps=0.2, soft_sigma=1.0, random_seed=4)
    assert abs(sim.realised_eps - 0.2) < 0.03
    assert sim.realised_eps_vs_order > sim.realised_eps  # close calls add to the lapses
    assert "soft truth" in sim.describe()


def test_contexts_are_independent_round_robins():
    sim = simulate_round_robin(5, eps=0.1, n_contexts=80, random_seed=7)
    d = sim.data
    assert d.n_contexts == 80 and d.n_items == 400
    assert d.n_comparisons == 80 * 20
    assert (d.item_context[d.first] == d.item_context[d.second]).all()
    assert set(sim.true_order) == set(d.items)
    # truth listed best → worst inside each context
    assert [lab.split("::")[0] for lab in sim.true_order[:5]] == ["c00"] * 5
    assert sim.true_strengths[list(sim.true_order[:5])].tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]


def test_describe_says_synthetic():
    sim = simulate_round_robin(4, eps=0.1, random_seed=0)
    assert sim.describe().startswith("SYNTHETIC")
    assert "synthetic" in sim.data.source


@pytest.mark.parametrize(
    "kwargs",
    [
        {"eps": 0.1, "eps_plus": 0.1, "eps_minus": 0.2},
        {"eps_plus": 0.1},
        {"eps": 1.5},
        {"n_items": 1},
        {"k_plus": 0, "k_minus": 0},
        {"repeats": 0},
    ],
)
def test_round_robin_rejects_bad_arguments(kwargs):
    kw = {"n_items": 5, **kwargs}
    with pytest.raises(ValueError):
        simulate_round_robin(**kw)


def test_biased_bt_first_position_shift_and_covariates():
    sim = simulate_biased_bt(
        20, 6000, gamma=1.0, covariate_effects={"length": 0.8, "bold": 0.0}, random_seed=0
    )
    d = sim.data
    assert d.n_comparisons == 6000
    assert set(d.covariate_names) == {"length", "bold"}
    x = sim.frame["length"].to_numpy()
    assert abs(x.mean()) < 0.1 and abs(x.std() - 1) < 0.1
    # covariates are contest-level: they vary within an item
    assert sim.frame.groupby("first")["length"].std().min() > 0.5
    first_rate = (sim.frame["outcome"] == "first").mean()
    assert first_rate > 0.62  # σ(1.0) ≈ 0.73 shifted towards 0.5 by the strength differences
    won = (sim.frame["outcome"] == "first").to_numpy()
    assert won[x > 1].mean() > won[x < -1].mean() + 0.2  # covariate effect visible
    assert sim.realised_eps_minus > sim.realised_eps_plus
    assert abs(sim.true_strengths.mean()) < 1e-12


def test_biased_bt_judges_and_seed():
    a = simulate_biased_bt(8, 400, gamma=[0.0, 2.0], n_judges=2, random_seed=9)
    b = simulate_biased_bt(8, 400, gamma=[0.0, 2.0], n_judges=2, random_seed=9)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert a.data.judges == ("j0", "j1")
    rates = (a.frame["outcome"] == "first").groupby(a.frame["judge"]).mean()
    assert rates["j1"] > rates["j0"] + 0.2
    assert a.gamma == (0.0, 2.0)
    with pytest.raises(ValueError):
        simulate_biased_bt(8, 10, gamma=[0.1, 0.2, 0.3], n_judges=2)
