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


def test_large_vector_blockwise_tau():
    rng = np.random.default_rng(0)
    a = rng.normal(size=2500)
    b = a + rng.normal(size=2500)
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)


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
