"""One Δ_S-curve implementation for diagnose() and ppc_data(): complete_round_robins and
pooled_delta_curves against known answers."""

from __future__ import annotations

import itertools

import numpy as np

from bayes_pairwise.classical.deltas import observed_curve
from bayes_pairwise.pymc_models.diagnostics import complete_round_robins, pooled_delta_curves


def _round_robin(sizes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair rows (i < j) of complete round-robins of the given sizes, one context each."""
    ctx = np.repeat(np.arange(len(sizes)), sizes)
    start = np.r_[0, np.cumsum(sizes)[:-1]]
    pairs = [
        (s + a, s + b)
        for s, n in zip(start, sizes, strict=True)
        for a, b in itertools.combinations(range(n), 2)
    ]
    i, j = np.array(pairs).T
    return i, j, ctx


def test_contexts_found_and_incomplete_or_small_left_out() -> None:
    i, j, ctx = _round_robin([4, 2, 3])
    found = complete_round_robins(i, j, ctx)
    assert [n for n, _, _ in found] == [4, 2, 3]
    assert found[2][1].tolist() == [7, 8, 9] and found[2][2].tolist() == [[0, 1], [0, 2], [1, 2]]
    assert [n for n, _, _ in complete_round_robins(i, j, ctx, min_items=3)] == [4, 3]
    drop = np.r_[0:3, 4:10]  # row 3, the pair (1, 2), missing: the 4-item context is incomplete
    assert [n for n, _, _ in complete_round_robins(i[drop], j[drop], ctx)] == [2, 3]


def test_known_curves_and_pooling_over_sizes() -> None:
    i, j, ctx = _round_robin([4, 3])
    contexts = complete_round_robins(i, j, ctx)
    # all-zero W: Δ_S of n items is ⌊n²/2⌋ = 2, 4, 8; the 3-item context adds 2, 4 at n = 2, 3
    zero = pooled_delta_curves(contexts, np.zeros(i.size), 50, random_seed=0)
    np.testing.assert_array_equal(zero, [[2.0, 4.0, 8.0]])
    # a perfect order in both: 0 everywhere; rows of w are independent replicates
    both = pooled_delta_curves(contexts, np.stack([np.ones(i.size), np.zeros(i.size)]), 50, 0)
    np.testing.assert_array_equal(both, [[0.0, 0.0, 0.0], [2.0, 4.0, 8.0]])


def test_random_subsets_match_observed_curve_and_the_seed_rules() -> None:
    rng = np.random.default_rng(11)
    i, j, ctx = _round_robin([7, 6])
    contexts = complete_round_robins(i, j, ctx)
    w = rng.uniform(-1, 1, (3, i.size))

    def matrix(row: np.ndarray, c: int) -> np.ndarray:
        n, rows, ij = contexts[c]
        W = np.zeros((n, n))
        W[ij[:, 0], ij[:, 1]] = row[rows]
        W[ij[:, 1], ij[:, 0]] = -row[rows]
        return W

    # int seed: context c uses default_rng(seed + c) for every row
    got = pooled_delta_curves(contexts, w, 5, random_seed=40)
    for d in range(3):
        a = observed_curve(matrix(w[d], 0), 5, random_seed=40)
        b = observed_curve(matrix(w[d], 1), 5, random_seed=41)
        want = a.copy()
        want[:5] += b
        want[:5] /= 2
        np.testing.assert_allclose(got[d], want, rtol=0, atol=1e-12)
    # Generator: one stream, context by context, row by row
    g = pooled_delta_curves(contexts, w, 5, random_seed=np.random.default_rng(3))
    ref = np.random.default_rng(3)
    a = [observed_curve(matrix(w[d], 0), 5, random_seed=ref) for d in range(3)]
    b = [observed_curve(matrix(w[d], 1), 5, random_seed=ref) for d in range(3)]
    for d in range(3):
        np.testing.assert_allclose(g[d, 5], a[d][5], atol=1e-12)
        np.testing.assert_allclose(g[d, :5], (a[d][:5] + b[d]) / 2, atol=1e-12)
    # with every subset enumerated no randomness is left: the seed does not matter
    big = pooled_delta_curves(contexts, w, 10_000, random_seed=1)
    np.testing.assert_allclose(big, pooled_delta_curves(contexts, w, 10_000, 2), atol=1e-12)
    want = observed_curve(matrix(w[0], 0), 10_000)[:5] + observed_curve(matrix(w[0], 1), 10_000)
    np.testing.assert_allclose(big[0, :5], want / 2, atol=1e-12)
