"""Percentile bootstrap: closed-form (binomial) check, coverage, determinism, the multinomial fast
path against row resampling, failures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.classical.bootstrap import _VerdictTable, bootstrap, percentile_interval
from bayes_pairwise.classical.bradley_terry import BradleyTerry
from bayes_pairwise.classical.elo import Elo, win_rate
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import BayesPairwiseError, DesignError
from bayes_pairwise.matrices import win_matrix


def two_item_log(n, p, seed):
    """n verdicts between a and b (both orders), a wins each with probability p."""
    rng = np.random.default_rng(seed)
    a_first = rng.random(n) < 0.5
    a_wins = rng.random(n) < p
    df = pd.DataFrame(
        {
            "first": np.where(a_first, "a", "b"),
            "second": np.where(a_first, "b", "a"),
            "outcome": np.where(a_wins == a_first, "first", "second"),
        }
    )
    return load_comparisons(df)


def bt_log(n_items=6, n=400, seed=0, tie_rate=0.1):
    rng = np.random.default_rng(seed)
    s = np.linspace(-1, 1, n_items)
    f = rng.integers(0, n_items, n)
    g = (f + rng.integers(1, n_items, n)) % n_items
    won = rng.random(n) < 1 / (1 + np.exp(-(s[f] - s[g])))
    out = np.where(won, "first", "second")
    out[rng.random(n) < tie_rate] = "tie"
    lab = np.array([f"t{k}" for k in range(n_items)])
    return load_comparisons(
        pd.DataFrame({"first": lab[f], "second": lab[g], "outcome": out}), ties="half"
    )


def test_win_rate_matches_binomial_closed_form():
    data = two_item_log(400, 0.3, seed=1)
    res = bootstrap(data, win_rate, n_boot=4000, random_seed=2)
    p_hat = res.loc["a", "estimate"]
    se = np.sqrt(p_hat * (1 - p_hat) / 400)
    assert res.attrs["method"] == "multinomial"
    assert res.loc["a", "std_error"] == pytest.approx(se, rel=0.05)
    assert res.loc["a", "lower"] == pytest.approx(p_hat - 1.96 * se, abs=0.006)
    assert res.loc["a", "upper"] == pytest.approx(p_hat + 1.96 * se, abs=0.006)
    # the two items' win rates are complementary in every replicate
    assert res.loc["b", "lower"] == pytest.approx(1 - res.loc["a", "upper"], abs=1e-12)


def test_coverage_of_true_win_probability():
    hits = 0
    n_sets = 200
    for k in range(n_sets):
        data = two_item_log(150, 0.3, seed=100 + k)
        res = bootstrap(data, win_rate, n_boot=300, random_seed=k)
        hits += res.loc["a", "lower"] <= 0.3 <= res.loc["a", "upper"]
    # nominal 0.95; binomial sd of the hit rate ≈ 0.015
    assert 0.89 <= hits / n_sets <= 0.99


def test_deterministic_under_seed():
    data = bt_log()
    a = bootstrap(data, BradleyTerry(), n_boot=50, random_seed=7)
    b = bootstrap(data, BradleyTerry(), n_boot=50, random_seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = bootstrap(data, BradleyTerry(), n_boot=50, random_seed=8)
    assert not np.allclose(a["lower"], c["lower"])
    rows_a = bootstrap(data, Elo(), n_boot=20, random_seed=3)
    rows_b = bootstrap(data, Elo(), n_boot=20, random_seed=3)
    pd.testing.assert_frame_equal(rows_a, rows_b)
    assert rows_a.attrs["method"] == "rows"


def test_verdict_table_reproduces_win_matrix():
    data = bt_log(tie_rate=0.3)
    table = _VerdictTable(data)
    np.testing.assert_allclose(table.matrix(table.counts), win_matrix(data).to_numpy())
    assert table.n == data.n_comparisons


def test_multinomial_and_row_resampling_agree():
    data = bt_log(n=600, seed=4)
    est = BradleyTerry(method="newman")
    fast = bootstrap(data, est, n_boot=600, random_seed=0)
    slow = bootstrap(data, est, n_boot=600, random_seed=1, method="rows")
    assert fast.attrs["method"] == "multinomial" and slow.attrs["method"] == "rows"
    pd.testing.assert_series_equal(fast["estimate"], slow["estimate"])
    np.testing.assert_allclose(fast["std_error"], slow["std_error"], rtol=0.15)
    np.testing.assert_allclose(fast["lower"], slow["lower"], atol=0.1)
    np.testing.assert_allclose(fast["upper"], slow["upper"], atol=0.1)
    # the estimate is the full-data fit
    np.testing.assert_allclose(fast["estimate"], est(data).to_numpy())


def test_scalar_mapping_and_dataframe_estimators():
    data = bt_log()
    res = bootstrap(data, lambda d: float(np.mean(d.outcome)), n_boot=100, random_seed=0)
    assert list(res.index) == ["value"] and res.attrs["method"] == "rows"
    assert res.loc["value", "lower"] < res.loc["value", "estimate"] < res.loc["value", "upper"]
    res = bootstrap(
        data, lambda d: {"first_wins": float(np.mean(d.outcome == 1.0))}, n_boot=50, random_seed=0
    )
    assert list(res.index) == ["first_wins"]
    df = data.to_frame()
    res, reps = bootstrap(df, lambda d: len(d), n_boot=10, random_seed=0, return_replicates=True)
    assert reps.shape == (10, 1) and (reps.to_numpy() == len(df)).all()


def test_replicate_failures():
    # a sparse chain design: resamples often lose the only win of an item
    df = pd.DataFrame(
        {
            "first": ["a", "b", "b", "c", "a", "c"],
            "second": ["b", "a", "c", "b", "c", "a"],
            "outcome": ["first"] * 6,
        }
    )
    data = load_comparisons(df)
    with pytest.raises(DesignError, match="bootstrap replicate"):
        bootstrap(data, BradleyTerry(), n_boot=50, random_seed=0)
    with pytest.warns(UserWarning, match="failed and were skipped"):
        res = bootstrap(data, BradleyTerry(), n_boot=50, random_seed=0, on_error="skip")
    assert 0 < res.attrs["n_failed"] <= 25
    # a 5-cycle (each item beat the next once): almost every resample breaks the cycle
    cyc = load_comparisons(
        pd.DataFrame({"first": list("abcde"), "second": list("bcdea"), "outcome": ["first"] * 5})
    )
    with pytest.raises(BayesPairwiseError, match="replicates failed"):
        bootstrap(cyc, BradleyTerry(), n_boot=50, random_seed=0, on_error="skip")
    # with a ridge every replicate can be fitted
    res = bootstrap(data, BradleyTerry(ridge=1.0), n_boot=50, random_seed=0)
    assert res.attrs["n_failed"] == 0 and np.all(np.isfinite(res[["lower", "upper"]]))


def test_settings_are_validated():
    data = bt_log()
    with pytest.raises(ValueError, match="multinomial"):
        bootstrap(data, Elo(), method="multinomial")
    with pytest.raises(ValueError, match="ci"):
        percentile_interval(np.arange(3.0), ci=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap(data, win_rate, n_boot=0)
