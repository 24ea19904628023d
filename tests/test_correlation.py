"""Issue 7 item 4: the within-pair error correlation test (classical.correlation)."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_pairwise.classical.correlation import CorrelationTest, within_pair_correlation
from bayes_pairwise.simulate import simulate_hard_pairs, simulate_round_robin


def test_h0_fit_recovers_the_rates_and_agreement() -> None:
    sim = simulate_round_robin(40, eps_plus=0.1, eps_minus=0.25, repeats=3, random_seed=0)
    res = within_pair_correlation(sim.data, n_bootstrap=0)
    row = res.table.iloc[0]
    assert (row.eps_plus, row.eps_minus) == pytest.approx((0.1, 0.25), abs=0.02)
    # independent errors: within-order agreement p² + (1−p)² averaged over the two orders
    want = 0.5 * (0.1**2 + 0.9**2) + 0.5 * (0.25**2 + 0.75**2)
    assert res.agreement_observed == pytest.approx(want, abs=0.02)
    assert res.agreement_expected == pytest.approx(res.agreement_observed, abs=0.01)
    assert row.hard_share < 0.05 or row.lr < 2.0
    assert np.isnan(res.p_value)  # no bootstrap, no p-value


def test_not_testable_without_repeats() -> None:
    sim = simulate_hard_pairs(10, random_seed=0)
    res = within_pair_correlation(sim.data)
    assert res.n_pairs == 0 and not res.testable and np.isnan(res.p_value)
    assert "not testable" in res.summary()


def test_size_on_independent_errors() -> None:
    """Null (no hard pairs): rejections at 5% stay rare and p-values are not small."""
    ps = []
    for seed in range(12):
        sim = simulate_hard_pairs(12, repeats=3, hard_share=0.0, tie_rate=0.1, random_seed=seed)
        ps.append(within_pair_correlation(sim.data, n_bootstrap=49, random_seed=seed).p_value)
    ps = np.array(ps)
    assert np.sum(ps < 0.05) <= 2 and np.median(ps) > 0.3


def test_power_on_hard_pairs() -> None:
    """40 items, 3 verdicts per order, 20% hard pairs (error 0.6), 15% ties: power about 0.8
    (8 of 10 seeds reject at 5%, ``test_power_rate_on_hard_pairs``); this seed rejects."""
    sim = simulate_hard_pairs(40, repeats=3, hard_share=0.2, random_seed=202)
    res = within_pair_correlation(sim.data, n_bootstrap=49)
    assert res.p_value < 0.05
    row = res.table.iloc[0]
    assert 0.1 < row.hard_share < 0.4 and 0.45 < row.eps_hard < 0.75
    assert res.summary().endswith(
        ". Errors are correlated within a pair (some pairs are hard in both orders), so "
        "ground-truth-free error rates are biased low."
    )


def test_summary_wording() -> None:
    import pandas as pd

    t = CorrelationTest(50, 0.1, 0.6, 0.8, 0.8, 99, pd.DataFrame())
    assert "(99 bootstrap replicates). No evidence" in t.summary()
    assert "LR = 0.10, p = 0.6 (99 bootstrap replicates)" in t.summary()


def test_a_p_value_at_the_bootstraps_floor_is_said_to_be_a_bound() -> None:
    """Strongly hard pairs: no replicate reaches the observed LR, so p is (1 + 0) / (B + 1),
    the smallest value B replicates can give; the text says "≤" and why, not "p = 0.02"."""
    sim = simulate_hard_pairs(30, repeats=3, hard_share=0.4, tie_rate=0.0, random_seed=0)
    res = within_pair_correlation(sim.data, n_bootstrap=49)
    assert res.p_value == pytest.approx(1 / 50)
    text = res.summary()
    assert "p ≤ 0.02 (none of 49 bootstrap replicates reached it)" in text
    assert "p = 0.02" not in text


@pytest.mark.slow
def test_size_uniform_and_rate() -> None:
    """p-values under H0 are (super-)uniform: P(p ≤ α) ≈ α or below, at α = 0.05 and 0.2."""
    ps = []
    for seed in range(100):
        sim = simulate_hard_pairs(12, repeats=3, hard_share=0.0, random_seed=100 + seed)
        ps.append(within_pair_correlation(sim.data, n_bootstrap=49, random_seed=seed).p_value)
    ps = np.array(ps)
    assert np.mean(ps <= 0.05) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 100)
    assert np.mean(ps <= 0.2) <= 0.2 + 2 * np.sqrt(0.2 * 0.8 / 100)


@pytest.mark.slow
def test_power_rate_on_hard_pairs() -> None:
    rejections = 0
    for seed in range(10):
        sim = simulate_hard_pairs(40, repeats=3, hard_share=0.2, random_seed=200 + seed)
        rejections += within_pair_correlation(sim.data, n_bootstrap=49).p_value < 0.05
    assert rejections >= 6  # measured 8 of 10


@pytest.mark.slow
def test_judging_the_judges() -> None:
    """Bundled data, 3 repeats per order: numbers quoted in docs/src/pair_difficulty.md."""
    from bayes_pairwise import datasets

    data = datasets.load("judging_the_judges", ties="model")
    res = within_pair_correlation(data)
    assert res.n_pairs == 1429
    assert res.p_value < 0.05
    assert len(res.table) == 9


def test_each_replicates_own_patterns_give_the_shared_layouts_answer(monkeypatch) -> None:
    """Many verdicts per pair (20 per order): nearly every bootstrap pattern is new, so the
    replicates are fitted on their own patterns (B × R) instead of the union (B × G, ~B times
    larger; Chatbot Arena took 114 s there, 2.5 s now). Same LR, bootstrap and p-value."""
    import bayes_pairwise.classical.correlation as cm

    sim = simulate_hard_pairs(12, repeats=20, hard_share=0.2, tie_rate=0.0, random_seed=5)
    pc_rows = 12 * 11 // 2
    seen = {}
    real = cm._own_patterns

    def spy(grid, table):
        out = real(grid, table)
        seen["shapes"] = (grid.shape, out[0].shape)
        return out

    monkeypatch.setattr(cm, "_own_patterns", spy)
    new = within_pair_correlation(sim.data, n_bootstrap=49, random_seed=3)
    (g_shared, g_own) = seen["shapes"]
    assert g_own[0] == 49 and g_own[2] <= pc_rows and 2 * g_own[2] < g_shared[1]  # was used
    monkeypatch.setattr(cm, "_own_patterns", lambda grid, table: (grid, table))
    cm._CACHE.clear()
    old = within_pair_correlation(sim.data, n_bootstrap=49, random_seed=3)
    assert new.p_value == old.p_value and new.lr == pytest.approx(old.lr, rel=1e-12)
    import pandas as pd

    pd.testing.assert_frame_equal(new.table, old.table, rtol=1e-10)
