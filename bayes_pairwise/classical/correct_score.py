"""Probability that a text gets its correct Copeland score, P(R_m, TO) (METHODS §4).

A text of true rank m (1 = best) among N, each pair judged k₊ + k₋ times, has its correct
Copeland score iff its number of errors against worse texts, L, equals its number of errors
against better texts, G (every error against a worse text costs it 2/K of a point, every error
against a better text gains it 2/K). Under uniform error with one verdict per order,
L ~ Bin(2(N−m), ε) and G ~ Bin(2(m−1), ε), so

    P(R_m, TO) = Σ_k C(2(N−m), k) C(2(m−1), k) ε^{2k} (1−ε)^{2(N−1)−2k}.

With positional bias and repeats, L and G are sums of binomials over the first/second showings
and their pmfs are convolved. The paper's printed P(R_m, TO) for m ≥ 2 counts only full pair
reversals (both verdicts of a pair wrong) and omits every one-sided flip; it is offered as
``method="paper_reversal_only"`` so the difference can be shown (N = 10, ε = 0.15, m = 2: printed
0.054, exact 0.113).

Design conventions (they only matter when k₊ ≠ k₋):

* ``orientation="text_first"`` — the text is shown first k₊ times and second k₋ times against
  every opponent (the convention of the paper's eq. 21, where the text is item i of each pair);
* ``orientation="random"`` — the design is the round-robin's (the lower-index item of a pair gets
  the k₊ first showings) and the index order is a random permutation independent of quality, as
  in :func:`bayes_pairwise.simulate.simulate_round_robin`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import comb
from scipy.stats import binom, hypergeom

__all__ = [
    "CorrectScoreMC",
    "p_correct_score",
    "p_correct_score_curves",
]

Method = Literal["exact", "monte_carlo", "paper_reversal_only"]
Orientation = Literal["text_first", "random"]


@dataclass(frozen=True)
class CorrectScoreMC:
    """Monte Carlo estimate of P(R_m, TO).

    Attributes
    ----------
    estimate : float or ndarray
        Share of simulated round-robins in which the text's Copeland score is correct.
    se : float or ndarray
        Binomial standard error √(p(1−p)/n_sims).
    n_sims : int
    """

    estimate: float | np.ndarray
    se: float | np.ndarray
    n_sims: int


def _rates(
    eps: float | None, eps_plus: float | None, eps_minus: float | None
) -> tuple[float, float]:
    if eps is not None and (eps_plus is not None or eps_minus is not None):
        raise ValueError("give either eps or eps_plus and eps_minus, not both")
    if eps is not None:
        ep = em = float(eps)
    elif eps_plus is not None and eps_minus is not None:
        ep, em = float(eps_plus), float(eps_minus)
    else:
        raise ValueError("give eps (uniform error) or both eps_plus and eps_minus")
    for name, v in (("eps_plus", ep), ("eps_minus", em)):
        if not (0.0 <= v <= 1.0):
            raise ValueError(f"{name} must be in [0, 1], got {v}")
    return ep, em


def _sum_binom_pmf(a1: np.ndarray, p1: float, a2: np.ndarray, p2: float, kmax: int) -> np.ndarray:
    """pmf of Bin(a1, p1) + Bin(a2, p2) at k = 0..kmax, broadcast over a1, a2: (..., kmax+1)."""
    k = np.arange(kmax + 1)
    a1 = np.asarray(a1)[..., None, None]
    a2 = np.asarray(a2)[..., None, None]
    if p1 == p2:
        return binom.pmf(k, a1[..., 0] + a2[..., 0], p1)
    j = k[None, :]  # (1, J): showings of the first kind that err
    kk = k[:, None]  # (K, 1)
    pmf1 = binom.pmf(j, a1, p1)  # (..., 1, J)
    pmf2 = binom.pmf(kk - j, a2, p2)  # (..., K, J); zero where k − j < 0
    return (pmf1 * pmf2).sum(axis=-1)


def _exact_text_first(
    N: np.ndarray, m: np.ndarray, ep: float, em: float, kp: int, km: int
) -> np.ndarray:
    worse = N - m
    better = m - 1
    K = kp + km
    kmax = int(np.max(np.minimum(K * worse, K * better))) if N.size else 0
    # errors against worse texts (the text is the better one): first showings err at ε₊
    pL = _sum_binom_pmf(kp * worse, ep, km * worse, em, kmax)
    # errors against better texts: when the text is first, the better one is second (ε₋)
    pG = _sum_binom_pmf(kp * better, em, km * better, ep, kmax)
    return (pL * pG).sum(axis=-1)


def _exact_random(n: int, m: int, ep: float, em: float, kp: int, km: int) -> float:
    """Mixture over the text's index position u and the number of better texts below it."""
    worse, better = n - m, m - 1
    K = kp + km
    kmax = K * min(worse, better)
    total = 0.0
    for u in range(n):  # opponents with a lower index than the text
        b_low = np.arange(max(0, u - worse), min(u, better) + 1)
        w_low = u - b_low
        weight = hypergeom.pmf(b_low, n - 1, better, u) / n
        # lower-index opponent = item i of the pair: it is shown first k₊ times
        l_first = w_low * km + (worse - w_low) * kp  # text (better) shown first
        l_second = w_low * kp + (worse - w_low) * km
        g_better_first = b_low * kp + (better - b_low) * km  # better opponent shown first
        g_better_second = b_low * km + (better - b_low) * kp
        pL = _sum_binom_pmf(l_first, ep, l_second, em, kmax)
        pG = _sum_binom_pmf(g_better_first, ep, g_better_second, em, kmax)
        total += float(np.sum(weight * (pL * pG).sum(axis=-1)))
    return total


def _reversal_only(N: np.ndarray, m: np.ndarray, ep: float, em: float) -> np.ndarray:
    """The paper's printed form: each pair is either right (both verdicts) or fully reversed."""
    worse = N - m
    better = m - 1
    kmax = int(np.max(np.minimum(worse, better))) if N.size else 0
    k = np.arange(kmax + 1)
    right = (1 - ep) * (1 - em)
    rev = ep * em
    pw = comb(worse[..., None], k)
    pb = comb(better[..., None], k)
    # k beyond min(worse, better) is masked below; there the exponent of ``right`` is negative,
    # and at ε₊ or ε₋ = 1 (a judge that always picks one position) ``right`` is 0
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = pw * pb * rev ** (2 * k) * right ** ((N - 1)[..., None] - 2 * k)
    return np.where(k <= np.minimum(worse, better)[..., None], terms, 0.0).sum(axis=-1)


def _monte_carlo(
    N: int,
    m: np.ndarray,
    ep: float,
    em: float,
    kp: int,
    km: int,
    n_sims: int,
    rng: np.random.Generator,
    orientation: Orientation,
    chunk: int = 4000,
) -> np.ndarray:
    """Simulate the text's N − 1 pairs verdict by verdict and compare its Copeland score."""
    K = kp + km
    hits = np.zeros(m.size)
    for start in range(0, n_sims, chunk):
        B = min(chunk, n_sims - start)
        for t, mm in enumerate(m):
            text = mm - 1  # index = true rank (0 = best)
            opp = np.delete(np.arange(N), text)
            text_better = opp > text  # (N-1,)
            if orientation == "text_first":
                text_lower = np.ones((B, N - 1), dtype=bool)
            else:
                pos = rng.permuted(np.tile(np.arange(N), (B, 1)), axis=1)
                text_lower = pos[:, [text]] < pos[:, opp]  # text is item i of the pair
            n_text_first = np.where(text_lower, kp, km)  # (B, N-1)
            show = np.arange(K)[None, None, :]
            text_first = show < n_text_first[:, :, None]  # (B, N-1, K)
            better_first = text_first == text_better[None, :, None]
            err = rng.random((B, N - 1, K)) < np.where(better_first, ep, em)
            text_wins = (~err) == text_better[None, :, None]
            w = (2 * text_wins.sum(axis=2) - K) / K  # w_{text, opponent}
            score = w.sum(axis=1)
            hits[t] += np.sum(np.isclose(score, N - 1 - 2 * text))
    return hits / n_sims


def p_correct_score(
    n_items: int | np.ndarray,
    m: int | np.ndarray,
    eps: float | None = None,
    *,
    eps_plus: float | None = None,
    eps_minus: float | None = None,
    k_plus: int = 1,
    k_minus: int = 1,
    method: Method = "exact",
    orientation: Orientation = "text_first",
    n_sims: int = 20000,
    random_seed: int | np.random.Generator | None = None,
) -> float | np.ndarray | CorrectScoreMC:
    """P(R_m, TO): probability that the text of true rank m gets its correct Copeland score.

    Parameters
    ----------
    n_items : int or array_like of int
        N (≥ 2). Broadcast against ``m`` (exact and reversal-only methods).
    m : int or array_like of int
        True rank, 1 = best, 1 ≤ m ≤ N.
    eps : float, optional
        Uniform error rate.
    eps_plus, eps_minus : float, optional
        Positional error rates (better item shown first / second), instead of ``eps``.
    k_plus, k_minus : int
        Verdicts per pair with the text (``orientation="text_first"``) or the pair's lower-index
        item (``"random"``) shown first / second.
    method : {"exact", "monte_carlo", "paper_reversal_only"}
        ``"exact"``: METHODS §4 (binomial pmfs convolved); ``"monte_carlo"``: simulate the text's
        pairs verdict by verdict; ``"paper_reversal_only"``: the paper's printed form, which
        counts only full pair reversals (k₊ = k₋ = 1 only) — **not** the probability it claims.
    orientation : {"text_first", "random"}
        Design convention when k₊ ≠ k₋ (module docstring).
    n_sims : int
        Monte Carlo replications.
    random_seed : int or Generator, optional
        Monte Carlo seed.

    Returns
    -------
    float or ndarray
        For ``"exact"`` and ``"paper_reversal_only"`` (shape of the broadcast inputs).
    CorrectScoreMC
        For ``"monte_carlo"``: ``estimate`` and standard error ``se`` (one N, any m).

    Examples
    --------
    >>> round(p_correct_score(10, 2, 0.15), 4)
    0.1134
    >>> round(p_correct_score(10, 2, 0.15, method="paper_reversal_only"), 3)  # as printed
    0.054
    >>> mc = p_correct_score(10, 2, 0.15, method="monte_carlo", n_sims=20000, random_seed=0)
    >>> abs(mc.estimate - 0.1134) < 3 * mc.se
    True
    >>> p_correct_score(30, [1, 2, 5], 0.05).round(4)  # vectorised over m (and N)
    array([0.051 , 0.0675, 0.1223])
    """
    ep, em = _rates(eps, eps_plus, eps_minus)
    kp, km = int(k_plus), int(k_minus)
    if kp < 0 or km < 0 or kp + km < 1:
        raise ValueError(f"need k_plus, k_minus >= 0 and k_plus + k_minus >= 1, got {kp}, {km}")
    N, M = np.broadcast_arrays(np.asarray(n_items, dtype=np.int64), np.asarray(m, dtype=np.int64))
    if np.any(N < 2):
        raise ValueError("n_items must be at least 2")
    if np.any((M < 1) | (M > N)):
        raise ValueError("m must satisfy 1 <= m <= n_items")
    scalar = N.ndim == 0
    if orientation not in ("text_first", "random"):
        raise ValueError(f"orientation must be 'text_first' or 'random', got {orientation!r}")

    if method == "exact":
        if orientation == "random" and kp != km:
            out = np.vectorize(lambda n, mm: _exact_random(int(n), int(mm), ep, em, kp, km))(N, M)
        else:
            out = _exact_text_first(N, M, ep, em, kp, km)
        return float(out) if scalar else np.asarray(out, dtype=float)
    if method == "paper_reversal_only":
        if (kp, km) != (1, 1):
            raise ValueError("the paper's printed reversal-only form is for k_plus = k_minus = 1")
        out = _reversal_only(N, M, ep, em)
        return float(out) if scalar else np.asarray(out, dtype=float)
    if method == "monte_carlo":
        n_vals = np.unique(N)
        if n_vals.size != 1:
            raise ValueError("method='monte_carlo' takes one n_items at a time")
        rng = np.random.default_rng(random_seed)
        ms = np.atleast_1d(M).ravel()
        p = _monte_carlo(int(n_vals[0]), ms, ep, em, kp, km, int(n_sims), rng, orientation)
        se = np.sqrt(p * (1 - p) / int(n_sims))
        if scalar:
            return CorrectScoreMC(float(p[0]), float(se[0]), int(n_sims))
        return CorrectScoreMC(p.reshape(M.shape), se.reshape(M.shape), int(n_sims))
    raise ValueError(
        f"method must be 'exact', 'monte_carlo' or 'paper_reversal_only', got {method!r}"
    )


def p_correct_score_curves(
    eps: float | None = None,
    *,
    eps_plus: float | None = None,
    eps_minus: float | None = None,
    k_plus: int = 1,
    k_minus: int = 1,
    m_values: tuple[int, ...] | range = range(1, 9),
    n_max: int = 100,
    orientation: Orientation = "text_first",
) -> pd.DataFrame:
    """Data for the paper's Figure 1: P(R_m, TO) against N for m = 1..8, N up to 100.

    Parameters
    ----------
    eps, eps_plus, eps_minus, k_plus, k_minus, orientation
        As :func:`p_correct_score` (default: uniform ε = 0.15).
    m_values : sequence of int
        Ranks to show.
    n_max : int
        Largest N.

    Returns
    -------
    DataFrame
        Long format: ``n_items``, ``m``, ``p_exact`` and, for k₊ = k₋ = 1, ``p_paper`` (the
        paper's reversal-only form), for every N = max(2, m)..n_max.

    Examples
    --------
    >>> df = p_correct_score_curves(0.15, n_max=20)
    >>> df.columns.tolist()
    ['n_items', 'm', 'p_exact', 'p_paper']
    >>> row = df[(df.n_items == 10) & (df.m == 2)].iloc[0]
    >>> round(float(row.p_exact), 4), round(float(row.p_paper), 3)
    (0.1134, 0.054)
    """
    if eps is None and eps_plus is None and eps_minus is None:
        eps = 0.15
    frames = []
    for mm in m_values:
        ns = np.arange(max(2, int(mm)), int(n_max) + 1)
        p = p_correct_score(
            ns,
            np.full(ns.shape, int(mm)),
            eps,
            eps_plus=eps_plus,
            eps_minus=eps_minus,
            k_plus=k_plus,
            k_minus=k_minus,
            orientation=orientation,
        )
        df = pd.DataFrame({"n_items": ns, "m": int(mm), "p_exact": p})
        if (k_plus, k_minus) == (1, 1):
            df["p_paper"] = p_correct_score(
                ns,
                np.full(ns.shape, int(mm)),
                eps,
                eps_plus=eps_plus,
                eps_minus=eps_minus,
                method="paper_reversal_only",
            )
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
