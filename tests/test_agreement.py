"""Rank agreement: hand-computed cases, scipy.stats reference values, label alignment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_pairwise.classical.agreement import (
    kendall_distance,
    kendall_tau,
    pearson_r,
    rank_agreement,
    spearman_rho,
)
from bayes_pairwise.errors import DataError


def test_hand_cases():
    # one swapped adjacent pair among 4 items: C = 5, D = 1 → τ = 4/6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(2 / 3)
    assert kendall_distance([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(1 / 6)
    # Spearman: d² = 0 + 1 + 1 + 0 → ρ = 1 − 6·2/(4·15) = 0.8
    assert spearman_rho([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # reversed order
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_distance([1, 2, 3], [3, 2, 1]) == pytest.approx(1.0)
    # Pearson by hand: x = (1,2,3), y = (2,4,7): Sxy = 5, Sxx = 2, Syy = 12.667
    assert pearson_r([1, 2, 3], [2, 4, 7]) == pytest.approx(5 / np.sqrt(2 * 38 / 3))
    # τ-b with a tie in a: pairs (1,2) tied in a; C = 2, D = 0, n0 = 3, n1 = 1, n2 = 0
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / np.sqrt(2 * 3))


@pytest.mark.parametrize("seed", range(5))
def test_against_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    a = rng.integers(0, 6, n).astype(float)  # many ties
    b = a + rng.normal(0, 2, n).round()
    res = rank_agreement(a, b)
    tau = stats.kendalltau(a, b)  # τ-b by default
    assert res["kendall_tau"] == pytest.approx(tau.statistic, abs=1e-12)
    assert res["kendall_distance"] == pytest.approx((1 - tau.statistic) / 2, abs=1e-12)
    assert res["spearman_rho"] == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert res["pearson_r"] == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    assert res["n"] == n


def test_large_vector_tau_closed_form():
    """a = 0 … n−1 against a with its first and last values swapped: the pairs holding one of
    the two (2(n − 2) + 1 of them) are discordant, so τ = 1 − 2D / n₀ (n = 100,000: 5·10⁹
    pairs, counted in O(n log n))."""
    n = 100_000
    a = np.arange(n, dtype=float)
    b = a.copy()
    b[[0, -1]] = b[[-1, 0]]
    d = 2 * (n - 2) + 1
    assert kendall_tau(a, b) == pytest.approx(1 - 2 * d / (n * (n - 1) / 2), abs=1e-12)


def test_near_ties_by_tolerance():
    """Estimates of items with the same record differ in the last bits only: with ``tie_rtol``
    τ-b, Spearman ρ and the agreement table rank them as the exact ties they are, so the
    numbers do not depend on those bits."""
    rng = np.random.default_rng(4)
    exact = np.repeat(rng.normal(size=6), 2)  # six pairs of equal estimates
    bits = exact * (1 + rng.choice([-1, 1], exact.size) * 4e-16)  # last-bit noise
    other = rng.normal(size=exact.size)
    tau = stats.kendalltau(exact, other).statistic
    rho = stats.spearmanr(exact, other).statistic
    assert kendall_tau(bits, other, tie_rtol=1e-9) == pytest.approx(tau, abs=1e-12)
    assert kendall_distance(bits, other, tie_rtol=1e-9) == pytest.approx((1 - tau) / 2)
    assert spearman_rho(bits, other, tie_rtol=1e-9) == pytest.approx(rho, abs=1e-12)
    res = rank_agreement(bits, other, tie_rtol=1e-9)
    assert res["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    assert res["spearman_rho"] == pytest.approx(rho, abs=1e-12)
    assert res["pearson_r"] == pytest.approx(stats.pearsonr(bits, other).statistic)
    # without the tolerance (tie_rtol=0) the bits decide, as scipy's ranks of the raw values do
    raw = kendall_tau(bits, other, tie_rtol=0)
    assert raw == pytest.approx(stats.kendalltau(bits, other).statistic)
    assert raw != pytest.approx(tau, abs=1e-6)
    # the default is the leaderboards' tolerance: bp.kendall_tau on two boards' strengths read
    # 0.800 where `leaderboard --agreement-with` read 0.949 (PRD: bard's gpt35 and vicuna-13b
    # have the same record, strengths 1e-16 apart)
    assert kendall_tau(bits, other) == pytest.approx(tau, abs=1e-12)
    assert spearman_rho(bits, other) == pytest.approx(rho, abs=1e-12)


def test_series_aligned_by_label():
    a = pd.Series({"x": 3.0, "y": 2.0, "z": 1.0, "w": 0.0})
    b = pd.Series({"w": 0.1, "z": 0.2, "y": 0.3, "x": 0.4})  # same order, shuffled labels
    res = rank_agreement(a, b)
    assert res["kendall_tau"] == 1.0 and res["spearman_rho"] == pytest.approx(1.0)
    # positionally these would disagree completely
    assert kendall_tau(a.to_numpy(), b.to_numpy()) == -1.0


def test_label_and_shape_errors():
    a = pd.Series({"x": 1.0, "y": 2.0})
    with pytest.raises(DataError, match=r"only in the first \['y'\], only in the second \['q'\]"):
        rank_agreement(a, pd.Series({"x": 1.0, "q": 2.0}))
    with pytest.raises(DataError, match="not one of each"):
        kendall_tau(a, [1.0, 2.0])
    with pytest.raises(DataError, match="duplicate"):
        kendall_tau(
            pd.Series([1.0, 2.0], index=["x", "x"]), pd.Series([1.0, 2.0], index=["x", "y"])
        )
    with pytest.raises(DataError, match="equal length"):
        pearson_r([1, 2, 3], [1, 2])
    with pytest.raises(DataError, match="non-finite"):
        spearman_rho([1, np.nan, 3], [1, 2, 3])


def test_undefined_is_nan():
    assert np.isnan(pearson_r([1, 1, 1], [1, 2, 3]))
    assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert np.isnan(spearman_rho([1.0], [2.0]))
