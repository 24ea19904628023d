"""Descriptive statistics: S_com, r₁, closed forms, moments, Copeland (METHODS §2, §3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.classical.descriptive import (
    commutativity_score,
    commutativity_score_counts,
    commutativity_score_z,
    copeland_ranking,
    copeland_scores,
    copeland_scores_matrix,
    descriptive_by_judge,
    eps_from_scom,
    estimate_eps_scom,
    first_position_rate,
    moments_from_rates,
    one_order_text,
    position_consistency,
    positional_moments,
)
from bayes_pairwise.data import Comparisons, load_comparisons
from bayes_pairwise.errors import DesignError, DesignWarning
from bayes_pairwise.matrices import z_matrix
from bayes_pairwise.simulate import simulate_round_robin


# ------------------------------------------------------------------ E[S_com] = 2ε(1−ε)
@pytest.mark.parametrize("eps", [0.05, 0.15, 0.3])
def test_expected_scom_is_2eps_1_minus_eps_by_simulation(eps):
    reps = [
        commutativity_score(simulate_round_robin(30, eps=eps, random_seed=100 + r).data)
        for r in range(60)
    ]
    mean, se = np.mean(reps), np.std(reps, ddof=1) / np.sqrt(len(reps))
    assert abs(mean - 2 * eps * (1 - eps)) < 3.5 * se
    # and the closed form inverts it
    assert eps_from_scom(2 * eps * (1 - eps)) == pytest.approx(eps, abs=1e-12)


def test_scom_array_cores_agree_with_wrapper_and_z():
    sim = simulate_round_robin(25, eps=0.2, random_seed=1)
    Z = z_matrix(sim.data).to_numpy()
    assert commutativity_score_z(Z) == pytest.approx(commutativity_score(sim.data))
    # repeats: the generalised score averages all cross-order verdict combinations
    assert commutativity_score_counts([2], [1], [1], [0]) == pytest.approx(0.5)
    assert commutativity_score_counts([2], [2], [2], [0]) == 1.0  # always the first position
    assert commutativity_score_counts([2], [2], [2], [2]) == 0.0  # always item i
    assert np.isnan(commutativity_score_counts([1], [0], [1], [0]))


def test_scom_with_repeats_keeps_its_expectation():
    eps = 0.2
    reps = [
        commutativity_score(simulate_round_robin(20, eps=eps, repeats=3, random_seed=r).data)
        for r in range(40)
    ]
    mean, se = np.mean(reps), np.std(reps, ddof=1) / np.sqrt(len(reps))
    assert abs(mean - 2 * eps * (1 - eps)) < 3.5 * se


def test_eps_from_scom_rejects_more_than_half():
    with pytest.raises(DesignError, match="positional bias"):
        eps_from_scom(0.6)
    with pytest.warns(DesignWarning):
        assert np.isnan(eps_from_scom(0.6, on_invalid="nan"))
    out = eps_from_scom(np.array([0.0, 0.5]))
    np.testing.assert_allclose(out, [0.0, 0.5])


def test_scom_estimate_covers_realised_eps():
    sim = simulate_round_robin(100, eps=0.15, random_seed=11)
    est = estimate_eps_scom(sim.data)
    assert abs(est.eps - sim.realised_eps) < 3 * est.eps_se
    assert 0.002 < est.eps_se < 0.01
    idata = est.to_inference_data()
    assert idata.posterior["eps"].shape == (1, 1)


# ------------------------------------------------------------------ moments for (ε₊, ε₋)
def test_moment_equations_are_exact_inverses():
    for ep, em in [(0.0, 0.0), (0.1, 0.3), (0.3, 0.1), (0.05, 0.6), (0.25, 0.25)]:
        s, r1 = ep + em - 2 * ep * em, 0.5 * (1 - ep + em)
        a, b, boundary = moments_from_rates(s, r1)
        assert (a, b) == pytest.approx((ep, em), abs=1e-12)
        assert not boundary or ep == 0.0 or em == 0.0


@pytest.mark.parametrize(
    ("ep", "em", "repeats"), [(0.05, 0.3, 1), (0.3, 0.05, 1), (0.15, 0.15, 1), (0.1, 0.4, 2)]
)
def test_moment_estimator_recovers_positional_rates(ep, em, repeats):
    sim = simulate_round_robin(80, eps_plus=ep, eps_minus=em, repeats=repeats, random_seed=7)
    m = positional_moments(sim.data)
    assert not m.at_boundary
    assert abs(m.eps_plus - sim.realised_eps_plus) < 3.5 * m.eps_plus_se + 1e-3
    assert abs(m.eps_minus - sim.realised_eps_minus) < 3.5 * m.eps_minus_se + 1e-3
    assert abs(m.eps_plus - ep) < 0.03 and abs(m.eps_minus - em) < 0.03
    idata = m.to_inference_data()
    assert set(idata.posterior.data_vars) == {"eps_plus", "eps_minus"}


def test_moment_standard_errors_are_calibrated():
    # the spread of the estimate over replicates matches the reported standard error
    ests, ses = [], []
    for r in range(40):
        sim = simulate_round_robin(40, eps_plus=0.1, eps_minus=0.3, random_seed=500 + r)
        m = positional_moments(sim.data)
        ests.append(m.eps_minus)
        ses.append(m.eps_minus_se)
    ratio = np.std(ests, ddof=1) / np.mean(ses)
    assert 0.6 < ratio < 1.5


def test_the_moments_sum_has_its_own_calibrated_standard_error():
    """ε₊ + ε₋ = 1 − √(1 − 2 S_com + (2r₁ − 1)²), with its delta-method SE (the cross-check's
    'moments' row for ε₊ + ε₋): equal to the two rates' sum, with ties rescaled too, and its SE
    the spread over replicates (the two rates share S_com and r₁: their errors correlate, so
    the sum's SE is its own, not their root sum of squares)."""
    from bayes_pairwise.simulate import simulate_hard_pairs

    ests, ses = [], []
    for r in range(60):
        sim = simulate_round_robin(30, eps_plus=0.05, eps_minus=0.25, random_seed=900 + r)
        m = positional_moments(sim.data)
        assert m.eps_sum == pytest.approx(m.eps_plus + m.eps_minus, abs=1e-12)
        ests.append(m.eps_sum)
        ses.append(m.eps_sum_se)
    assert abs(np.mean(ests) - 0.30) < 0.01
    assert 0.8 < np.std(ests, ddof=1) / np.mean(ses) < 1.25
    # ties modelled: the sum of the two rescaled rates, (Σ_half − τ)/(1 − τ)
    hard = simulate_hard_pairs(
        2, n_contexts=200, tie_rate=0.15, hard_share=0.0, labelled=0.0, random_seed=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = positional_moments(hard.data)
        row = descriptive_by_judge(hard.data).iloc[0]
    assert m.decided and m.tie_share > 0.1
    assert m.eps_sum == pytest.approx(m.eps_plus + m.eps_minus, abs=1e-12)
    assert row["eps_sum"] == pytest.approx(m.eps_sum) and row["eps_sum_se"] == m.eps_sum_se


def test_first_position_rate_expectation():
    sim = simulate_round_robin(60, eps_plus=0.1, eps_minus=0.3, random_seed=3)
    r1 = first_position_rate(sim.data)
    assert abs(r1 - 0.5 * (1 - 0.1 + 0.3)) < 0.015
    assert first_position_rate(np.array([1.0, 0.0, 0.5, 1.0])) == 0.625


# ------------------------------------------------------------------ consistency, ties
def test_position_consistency_counts_tie_pairs_as_consistent():
    df = pd.DataFrame(
        {
            "first": ["a", "b", "a", "c", "b", "c"],
            "second": ["b", "a", "c", "a", "c", "b"],
            "outcome": ["first", "second", "tie", "tie", "first", "first"],
        }
    )
    d = load_comparisons(df, ties="half")
    # (a,b): a wins both → consistent; (a,c): tie/tie → consistent; (b,c): first/first → not
    assert position_consistency(d) == pytest.approx(2 / 3)
    # S_com counts a tie as half a verdict each way: tie/tie scores ½ "same position"
    assert commutativity_score(d) == pytest.approx((0 + 0.5 + 1) / 3)
    sim = simulate_round_robin(20, eps=0.25, random_seed=2)
    assert position_consistency(sim.data) + commutativity_score(sim.data) == pytest.approx(1.0)


def test_descriptive_by_judge_one_row_per_judge():
    a = simulate_round_robin(15, eps=0.1, random_seed=1).frame.assign(judge="A")
    b = simulate_round_robin(15, eps_plus=0.02, eps_minus=0.9, random_seed=2).frame
    d = load_comparisons(pd.concat([a, b.assign(judge="B")]), judge="judge")
    with pytest.warns(DesignWarning, match="S_com > 1/2"):
        tab = descriptive_by_judge(d)
    assert list(tab.index) == ["A", "B"]
    assert tab.loc["A", "n_verdicts"] == 210
    assert np.isnan(tab.loc["B", "eps_scom"]) and tab.loc["B", "s_com"] > 0.5
    assert tab.loc["B", "eps_minus"] > 0.7
    with pytest.raises(DesignError, match="judge"):
        commutativity_score(d)
    assert commutativity_score(d, judge="A") == pytest.approx(tab.loc["A", "s_com"])


def test_one_order_only_is_a_design_error():
    df = pd.DataFrame({"first": ["a", "a"], "second": ["b", "c"], "outcome": ["first"] * 2})
    with pytest.raises(DesignError, match="none of its 2 pair"):
        commutativity_score(load_comparisons(df))


def _both_and_one_order() -> Comparisons:
    """Judge A sees 28 pairs in both orders; judge B the 28 pairs of another log in one."""
    a = simulate_round_robin(8, eps=0.1, random_seed=1).frame.assign(judge="A")
    b = simulate_round_robin(8, eps=0.1, k_plus=1, k_minus=0, random_seed=2).frame
    return load_comparisons(pd.concat([a, b.assign(judge="B")]), judge="judge")


def test_a_judge_without_pairs_in_both_orders_is_named_not_left_as_bare_nans():
    d = _both_and_one_order()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tab = descriptive_by_judge(d)
    said = [str(w.message) for w in caught]
    assert said == [one_order_text(["B"], 2)]
    assert said[0].startswith("no pair was shown in both orders to judge(s) 'B' (1 of 2)")
    assert tab.loc["B", ["n_verdicts", "n_pairs", "n_pairs_both_orders"]].tolist() == [28, 28, 0]
    assert tab.loc["B", ["s_com", "eps_scom", "eps_plus", "eps_minus"]].isna().all()
    assert tab.loc["A", "n_pairs_both_orders"] == 28 and np.isfinite(tab.loc["A", "eps_plus"])
    with pytest.raises(DesignError, match="judge 'B' saw none of its 28 pair"):
        commutativity_score(d, judge="B")


# ------------------------------------------------------------------ Copeland
def test_copeland_sums_to_zero_and_matches_z_rows():
    sim = simulate_round_robin(30, eps=0.2, random_seed=4)
    s = copeland_scores(sim.data)
    assert s.sum() == pytest.approx(0.0, abs=1e-9)
    Z = z_matrix(sim.data)
    np.testing.assert_allclose(s.to_numpy(), copeland_scores_matrix(Z.to_numpy()))
    assert list(s.index) == list(Z.index)


def test_copeland_sums_to_zero_with_repeats_ties_and_contexts():
    sim = simulate_round_robin(
        5, eps_plus=0.1, eps_minus=0.3, repeats=2, n_contexts=6, random_seed=5
    )
    f = sim.frame.copy()
    f.loc[::7, "outcome"] = "tie"
    d = load_comparisons(f, context="context", repeat="repeat", ties="half")
    s = copeland_scores(d)
    assert s.sum() == pytest.approx(0.0, abs=1e-9)
    # per context too (items are only compared within their context)
    ctx = pd.Series(np.asarray(d.contexts)[d.item_context], index=s.index)
    np.testing.assert_allclose(s.groupby(ctx).sum().to_numpy(), 0.0, atol=1e-9)
    r = copeland_ranking(d)
    assert r.groupby("context")["rank"].min().eq(1).all()
    assert len(r) == 30


def test_copeland_perfect_judge_gives_perfect_sequence_and_true_ranking():
    sim = simulate_round_robin(9, eps=0.0, random_seed=8)
    r = copeland_ranking(sim.data)
    assert tuple(r.index) == sim.true_order
    assert r["score"].tolist() == [8.0 - 2 * k for k in range(9)]
    assert r["rank"].tolist() == list(range(1, 10))


def test_copeland_ranking_per_context_matches_truth_without_error():
    sim = simulate_round_robin(5, eps=0.0, n_contexts=4, random_seed=9)
    r = copeland_ranking(sim.data)
    assert tuple(r.index) == sim.true_order


def test_no_warnings_on_clean_data():
    sim = simulate_round_robin(20, eps=0.1, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        descriptive_by_judge(sim.data)
        positional_moments(sim.data)


def test_a_moment_rate_of_exactly_zero_has_the_exact_bound_as_its_interval() -> None:
    """With no pair won by the second-shown text in both orders, S_com = 2r₁ − 1 and the
    moments give ε₊ = 0 exactly with a delta-method standard error of 0 (1e-17): a zero-width
    interval that agreed with any model near 0 (ε₊ 0.000 [-0.000, 0.000] against a realised
    0.039). The interval now reaches the exact one-sided bound on that zero count. On 200
    logs (ε₊ 0.01, ε₋ 0.3, 8 round robins of 6) half read ε₊ = 0; their 94% intervals held
    the realised ε₊ in 72 of 100 before, every one now."""
    from scipy.stats import norm

    from bayes_pairwise.classical.descriptive import positional_moments
    from bayes_pairwise.conventions import resolve_hdi_prob
    from bayes_pairwise.simulate import simulate_round_robin

    z = norm.ppf(0.5 + resolve_hdi_prob(None) / 2)
    zero = covered = 0
    for seed in range(200):
        sim = simulate_round_robin(6, eps_plus=0.01, eps_minus=0.3, n_contexts=8, random_seed=seed)
        m = positional_moments(sim.data)
        if m.eps_plus != 0.0:
            continue
        zero += 1
        n = m.n_pairs
        # the upper end is the Clopper–Pearson bound on the zero count, over 1 − ε₋
        alpha = (1 - resolve_hdi_prob(None)) / 2
        assert z * m.eps_plus_se == pytest.approx((1 - alpha ** (1 / n)) / (1 - m.eps_minus))
        covered += abs(sim.realised_eps_plus) <= z * m.eps_plus_se
    assert zero >= 80 and covered >= 0.94 * zero
    # the log whose zero-width interval read AGREE: its interval now holds the realised rate
    sim = simulate_round_robin(8, eps_plus=0.05, eps_minus=0.93, n_contexts=20, random_seed=1)
    m = positional_moments(sim.data)
    assert m.eps_plus == 0.0 and 0.03 < z * m.eps_plus_se < 0.08
    assert sim.realised_eps_plus <= z * m.eps_plus_se
