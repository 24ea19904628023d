"""Elo (data order, shuffle-and-average) and win rates: hand cases, invariants, evalica golden."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.classical.elo import (
    Elo,
    average_win_rate,
    average_win_rate_from_matrix,
    elo_ratings,
    elo_ratings_shuffled,
    elo_scores,
    shuffle_and_average,
    win_rate,
    win_rate_from_matrix,
)
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DataError, NotFittedError

EVALICA = Path(__file__).parents[1].parent / "shared" / "data" / "evalica"
needs_evalica = pytest.mark.skipif(
    not EVALICA.is_dir(), reason=f"reference data not found at {EVALICA} (../shared beside repo)"
)


def load_evalica(name):
    df = pd.read_csv(EVALICA / f"{name}.csv", dtype=str)
    data = load_comparisons(
        df,
        first="left",
        second="right",
        outcome="winner",
        outcome_map={"left": "first", "right": "second", "tie": "tie"},
        ties="half",
    )
    golden = pd.read_csv(EVALICA / f"{name}-golden.csv", dtype={"item": str})
    return data, golden


def random_log(n_items=8, n=300, seed=0):
    rng = np.random.default_rng(seed)
    f = rng.integers(0, n_items, n)
    g = (f + rng.integers(1, n_items, n)) % n_items
    o = rng.choice([0.0, 0.5, 1.0], size=n, p=[0.4, 0.2, 0.4])
    return f, g, o


# ------------------------------------------------------------------ hand cases
def test_single_win_between_equals():
    np.testing.assert_allclose(elo_ratings([0], [1], [1.0]), [1516.0, 1484.0])
    np.testing.assert_allclose(elo_ratings([0], [1], [0.0]), [1484.0, 1516.0])
    np.testing.assert_allclose(elo_ratings([0], [1], [0.5]), [1500.0, 1500.0])


def test_two_step_hand_computation():
    # after a win 1516/1484; then item 1 (shown first) beats item 0:
    e = 1.0 / (1.0 + 10 ** ((1516.0 - 1484.0) / 400.0))  # expected score of item 1
    want1 = 1484.0 + 32.0 * (1.0 - e)
    r = elo_ratings([0, 1], [1, 0], [1.0, 1.0])
    assert r[1] == pytest.approx(want1, rel=1e-14)
    assert r[0] == pytest.approx(3000.0 - want1, rel=1e-14)


def test_configurable_k_scale_base_initial():
    r = elo_ratings([0], [1], [1.0], k=10.0, initial=0.0)
    np.testing.assert_allclose(r, [5.0, -5.0])
    # base e and scale 1: E = σ(R_i − R_j)
    r = elo_ratings([0, 0], [1, 1], [1.0, 1.0], k=1.0, initial=0.0, scale=1.0, base=np.e)
    first = 0.5
    e2 = 1.0 / (1.0 + np.exp(-(2 * first)))
    np.testing.assert_allclose(r[0], first + (1 - e2))


def test_rating_sum_is_conserved_and_order_matters():
    f, g, o = random_log()
    r = elo_ratings(f, g, o, 8)
    assert r.sum() == pytest.approx(8 * 1500.0)
    rev = elo_ratings(f[::-1], g[::-1], o[::-1], 8)
    assert not np.allclose(r, rev)  # order-dependent, which is why shuffle-and-average exists


def test_shuffled_equals_sequential_on_the_same_permutation():
    f, g, o = random_log(n=120, seed=3)
    got = elo_ratings_shuffled(f, g, o, 8, n_shuffles=3, random_seed=42)
    rng = np.random.default_rng(42)
    perm = rng.permuted(np.tile(np.arange(f.size), (3, 1)), axis=1)
    for s in range(3):
        p = perm[s]
        np.testing.assert_allclose(got[s], elo_ratings(f[p], g[p], o[p], 8), rtol=1e-13)


def test_bad_arrays():
    with pytest.raises(DataError):
        elo_ratings([0, 1], [1], [1.0, 0.0])
    with pytest.raises(DataError):
        elo_ratings([0], [1], [2.0])
    with pytest.raises(DataError):
        elo_ratings([0], [3], [1.0], n_items=2)


# ------------------------------------------------------------------ Comparisons level
def comparisons(seed=0, n=200):
    f, g, o = random_log(n=n, seed=seed)
    lab = np.array([f"m{k}" for k in range(8)])
    out = np.where(o == 1, "first", np.where(o == 0, "second", "tie"))
    df = pd.DataFrame({"first": lab[f], "second": lab[g], "outcome": out})
    return load_comparisons(df, ties="half")


def test_elo_scores_shuffle_and_class():
    data = comparisons()
    s = elo_scores(data)
    assert s.name == "elo" and list(s.index) == list(data.items)
    np.testing.assert_allclose(
        s.to_numpy(), elo_ratings(data.first, data.second, data.outcome, data.n_items)
    )
    a = shuffle_and_average(data, n_shuffles=20, random_seed=7)
    b = shuffle_and_average(data, n_shuffles=20, random_seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(shuffle_and_average(data, n_shuffles=20, random_seed=8))
    assert list(a.columns) == ["mean", "std"] and (a["std"] > 0).all()
    assert a["mean"].sum() == pytest.approx(8 * 1500.0)

    est = Elo()
    with pytest.raises(NotFittedError):
        _ = est.ratings_
    pd.testing.assert_series_equal(est.fit(data).ratings_, s)
    assert est.ratings_std_ is None
    sh = Elo(n_shuffles=20, random_seed=7).fit(data)
    np.testing.assert_allclose(sh.ratings_.to_numpy(), a["mean"].to_numpy())
    # calling the estimator returns a fresh fit and leaves it unfitted
    fresh = Elo(k=16)
    pd.testing.assert_series_equal(fresh(data), elo_scores(data, k=16))
    with pytest.raises(NotFittedError):
        _ = fresh.ratings_
    with pytest.raises(TypeError, match="Comparisons"):
        elo_scores(np.zeros((2, 2)))


def test_shuffle_average_tracks_bt_order():
    # with many verdicts, the averaged Elo ranks items like their true strengths
    rng = np.random.default_rng(1)
    s = np.linspace(-1.5, 1.5, 6)
    f = rng.integers(0, 6, 3000)
    g = (f + rng.integers(1, 6, 3000)) % 6
    o = (rng.random(3000) < 1 / (1 + np.exp(-(s[f] - s[g])))).astype(float)
    r = elo_ratings_shuffled(f, g, o, 6, n_shuffles=10, random_seed=0, k=8).mean(axis=0)
    assert np.array_equal(np.argsort(r), np.arange(6))


# ------------------------------------------------------------------ win rates
def test_win_rates_hand_case():
    x = np.array([[0, 3, 0], [1, 0, 1], [2, 1, 0.0]])
    np.testing.assert_allclose(win_rate_from_matrix(x), [3 / 6, 2 / 6, 3 / 4])  # wins / games
    np.testing.assert_allclose(
        average_win_rate_from_matrix(x), [(0.75 + 0) / 2, (0.25 + 0.5) / 2, (1 + 0.5) / 2]
    )
    # an item that never played: NaN (evalica reports 0)
    x4 = np.zeros((4, 4))
    x4[:3, :3] = x
    assert np.isnan(win_rate_from_matrix(x4)[3]) and np.isnan(average_win_rate_from_matrix(x4)[3])


def test_win_rate_on_comparisons_counts_ties_half():
    df = pd.DataFrame(
        {
            "first": ["a", "a", "b", "c"],
            "second": ["b", "b", "a", "a"],
            "outcome": ["first", "tie", "first", "first"],
        }
    )
    data = load_comparisons(df, ties="half")
    wr = win_rate(data)
    assert wr.to_dict() == pytest.approx({"a": 1.5 / 4, "b": 1.5 / 3, "c": 1.0})
    assert average_win_rate(data)["a"] == pytest.approx((1.5 / 3 + 0.0) / 2)


# ------------------------------------------------------------------ evalica golden
@needs_evalica
@pytest.mark.parametrize("name", ["llmfao", "simple", "food"])
def test_elo_matches_evalica_golden(name):
    # evalica.elo: initial 1000, base 10, scale 400, k 4, tie = 0.5 each, data order, raw scores
    data, golden = load_evalica(name)
    gold = golden[golden["algorithm"] == "elo"].set_index("item")["score"]
    ours = elo_scores(data, k=4.0, initial=1000.0, scale=400.0, base=10.0).reindex(gold.index)
    np.testing.assert_allclose(ours.to_numpy(), gold.to_numpy(), rtol=1e-12)


@needs_evalica
@pytest.mark.parametrize("name", ["llmfao", "simple", "food"])
def test_average_win_rate_matches_evalica_golden(name):
    data, golden = load_evalica(name)
    gold = golden[golden["algorithm"] == "average_win_rate"].set_index("item")["score"]
    ours = average_win_rate(data).reindex(gold.index)
    np.testing.assert_allclose(ours.to_numpy(), gold.to_numpy(), rtol=1e-12)
