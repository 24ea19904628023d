"""P(R_m, TO): exact form vs Monte Carlo, the paper's reversal-only form, Figure 1 (METHODS §4)."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_pairwise.classical.correct_score import (
    CorrectScoreMC,
    p_correct_score,
    p_correct_score_curves,
)


def test_exact_value_from_methods():
    assert p_correct_score(10, 2, 0.15) == pytest.approx(0.1134, abs=0.001)
    # the paper's printed (reversal-only) value is about half of it
    assert p_correct_score(10, 2, 0.15, method="paper_reversal_only") == pytest.approx(
        0.054, abs=0.001
    )


@pytest.mark.parametrize("n", [10, 30])
@pytest.mark.parametrize("eps", [0.05, 0.15])
def test_exact_matches_monte_carlo_within_3_se(n, eps):
    m = np.array([1, 2, 5])
    exact = p_correct_score(n, m, eps)
    mc = p_correct_score(
        n, m, eps, method="monte_carlo", n_sims=20000, random_seed=n + int(100 * eps)
    )
    assert isinstance(mc, CorrectScoreMC) and mc.n_sims == 20000
    se = np.maximum(mc.se, 1 / mc.n_sims)  # p ≈ 0 gives se = 0
    assert np.all(np.abs(mc.estimate - exact) < 3 * se), (exact, mc.estimate, mc.se)


def test_monte_carlo_check_has_power_against_the_paper_form():
    mc = p_correct_score(10, 2, 0.15, method="monte_carlo", n_sims=20000, random_seed=0)
    paper = p_correct_score(10, 2, 0.15, method="paper_reversal_only")
    assert abs(mc.estimate - paper) > 10 * mc.se


@pytest.mark.parametrize(
    ("k_plus", "k_minus", "orientation"),
    [(1, 1, "text_first"), (2, 1, "text_first"), (2, 1, "random"), (1, 3, "random")],
)
def test_positional_and_repeats_match_monte_carlo(k_plus, k_minus, orientation):
    m = np.array([1, 3, 6])
    kw = dict(eps_plus=0.05, eps_minus=0.25, k_plus=k_plus, k_minus=k_minus)
    exact = p_correct_score(12, m, orientation=orientation, **kw)
    mc = p_correct_score(
        12,
        m,
        orientation=orientation,
        method="monte_carlo",
        n_sims=30000,
        random_seed=k_plus * 10 + k_minus,
        **kw,
    )
    se = np.maximum(mc.se, 1 / mc.n_sims)
    assert np.all(np.abs(mc.estimate - exact) < 3.5 * se), (exact, mc.estimate)


def test_closed_form_special_cases():
    for n in (2, 5, 40):
        for eps in (0.0, 0.1, 0.4):
            assert p_correct_score(n, 1, eps) == pytest.approx((1 - eps) ** (2 * (n - 1)))
            assert p_correct_score(n, 1, eps, method="paper_reversal_only") == pytest.approx(
                (1 - eps) ** (2 * (n - 1))
            )
    # rank m and rank N − m + 1 mirror each other
    n = 17
    p = p_correct_score(n, np.arange(1, n + 1), 0.2)
    np.testing.assert_allclose(p, p[::-1])
    # the reversal-only form omits terms: smaller except at m = 1 and m = N where it is exact
    paper = p_correct_score(n, np.arange(1, n + 1), 0.2, method="paper_reversal_only")
    assert np.all(paper[1:-1] < p[1:-1])
    assert paper[0] == pytest.approx(p[0]) and paper[-1] == pytest.approx(p[-1])


def test_orientation_and_swap_symmetry():
    m = np.array([1, 4, 7])
    for k in (1, 2):
        a = p_correct_score(9, m, eps_plus=0.1, eps_minus=0.3, k_plus=k, k_minus=k)
        b = p_correct_score(
            9, m, eps_plus=0.1, eps_minus=0.3, k_plus=k, k_minus=k, orientation="random"
        )
        c = p_correct_score(9, m, eps_plus=0.3, eps_minus=0.1, k_plus=k, k_minus=k)
        np.testing.assert_allclose(a, b)
        np.testing.assert_allclose(a, c)  # ε₊ ↔ ε₋ leaves P unchanged (paper Fig. 1 b3–b4)
    # uniform positional rates reduce to the uniform form
    np.testing.assert_allclose(
        p_correct_score(9, m, eps_plus=0.2, eps_minus=0.2), p_correct_score(9, m, 0.2)
    )


def test_vectorised_over_n_and_m():
    n = np.array([[10], [30], [60]])
    m = np.array([[1, 2, 5, 8]])
    grid = p_correct_score(n, m, 0.1)
    assert grid.shape == (3, 4)
    for a in range(3):
        for b in range(4):
            assert grid[a, b] == pytest.approx(p_correct_score(int(n[a, 0]), int(m[0, b]), 0.1))


def test_figure1_curves_and_the_non_scalability_claim():
    df = p_correct_score_curves(0.15)
    assert set(df["m"]) == set(range(1, 9)) and df["n_items"].max() == 100
    assert {"p_exact", "p_paper"} <= set(df.columns)
    for eps in (0.05, 0.15, 0.3, 0.45):
        piv = p_correct_score_curves(eps).pivot(index="n_items", columns="m", values="p_exact")
        for m in range(1, 9):
            s = piv[m].dropna()
            tail = s[s.index >= 2 * m - 1]
            # decreasing in N once the text is in the top half (N ≥ 2m − 1) ...
            assert np.all(np.diff(tail.to_numpy()) < 0)
    # ... but not for every N: a text near the bottom of a small set gains from a larger N
    piv = p_correct_score_curves(0.15).pivot(index="n_items", columns="m", values="p_exact")
    assert piv.loc[10, 8] > piv.loc[8, 8]


def test_bad_arguments():
    with pytest.raises(ValueError, match="m must"):
        p_correct_score(5, 6, 0.1)
    with pytest.raises(ValueError, match="either"):
        p_correct_score(5, 1, 0.1, eps_plus=0.1, eps_minus=0.2)
    with pytest.raises(ValueError, match="give eps"):
        p_correct_score(5, 1)
    with pytest.raises(ValueError, match="k_plus = k_minus = 1"):
        p_correct_score(5, 1, 0.1, k_plus=2, method="paper_reversal_only")
    with pytest.raises(ValueError, match="method"):
        p_correct_score(5, 1, 0.1, method="nope")


def test_a_judge_that_always_picks_one_position_gets_probability_zero_without_warnings() -> None:
    """ε₊ 0 and ε₋ 1 (every verdict picks the first text): no pair is judged right in both
    orders, so the paper's printed form gives 0 for a middle text; with contexts of several
    sizes its masked terms raise 0 to a negative power, which must not leak a RuntimeWarning
    into a cross-check or a report."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = p_correct_score(
            np.array([4, 10]),
            np.array([2, 5]),
            eps_plus=0.0,
            eps_minus=1.0,
            method="paper_reversal_only",
        )
    assert np.all(got == 0.0)
