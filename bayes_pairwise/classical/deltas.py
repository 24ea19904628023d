"""The paper's Δ_S estimator of a judge's error rate (METHODS §5).

Δ_S(matrix) = Σ_k |S_(k) − (N − 1 − 2k)|, with S_(k) the Copeland scores sorted descending: the
L1 distance of the scores from the perfect sequence N−1, N−3, …, −(N−1). The *observed curve* is
the mean Δ_S of random n-subsets of the items, n = 2..N; the *synthetic curve* at an error rate
is the mean Δ_S of synthetic n×n matrices generated under the error model; the fit is the grid
value whose synthetic curve is closest (L1 over n) to the observed one.

Speed: the synthetic curves do not depend on the data, only on (n, design k₊/k₋, grid, number of
synthetic matrices M, seed). They are computed once with **common random numbers** across the
grid — one uniform u per showing; the showing is an error at grid value ε iff u < ε — which turns
the whole grid into one cumulative histogram per item, and are cached on disk. A fit is then an
observed curve plus an argmin. :func:`delta_s_curve_reference` and
:func:`synthetic_curve_reference` are the slow, paper-faithful computations kept for tests and
the benchmark.

Contexts (many small round-robins, METHODS §1): one observed curve per context (n = 2..N_c),
averaged over the contexts that have at least n items, against synthetic curves of the same sizes.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import resolve_hdi_prob
from bayes_pairwise.errors import (
    CacheWarning,
    DesignError,
    DesignWarning,
    NotFittedError,
    user_stacklevel,
)

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az

    from bayes_pairwise.data import Comparisons

__all__ = [
    "TABLE_VERSION",
    "TIE_RATE_STEP",
    "DeltaS2DFit",
    "DeltaSFit",
    "SyntheticTable",
    "default_cache_dir",
    "delta_s",
    "delta_s_all_zero",
    "delta_s_curve_reference",
    "delta_s_scores",
    "make_grid",
    "observed_curve",
    "quantize_tie_rate",
    "synthetic_curve_reference",
    "synthetic_delta_s_draws",
    "synthetic_matrix_reference",
    "synthetic_table",
]

#: Bumped whenever the synthetic-table algorithm or the cache file format changes (part of the
#: cache key). 2: files carry a sha256 checksum of the table and its key.
TABLE_VERSION = 2

ProgressArg = bool | Callable[[str, int, int], None] | None

IDENTIFIABILITY_CAVEAT = (
    "Only a symmetric function of (eps_plus, eps_minus) is identified by this fit: every "
    "distribution of Z or W is unchanged when eps_plus and eps_minus are swapped (METHODS §3.2), "
    "so the misfit surface is symmetric and cannot say which rate belongs to the first position. "
    "In practice the surface has a long valley along eps_plus + eps_minus = constant: the sum "
    "(eps_sum_) is well determined, the split along the valley is not (edge solutions such as "
    "(0, 0.31) for a true (0.15, 0.15) are common), and eps_plus_/eps_minus_ (the paper's average "
    "over sub-designs) inherit both problems. To separate the two rates use the first-position "
    "win rate: eps_plus_hybrid_/eps_minus_hybrid_ combine eps_sum_ with "
    "eps_minus - eps_plus = 2 r1 - 1; or use positional_moments() or the PositionalBias model."
)


# ============================================================================ Δ_S itself
def delta_s_scores(scores: np.ndarray) -> np.ndarray | float:
    """Δ_S from Copeland scores, vectorised over leading axes.

    Parameters
    ----------
    scores : array_like, shape (..., n)
        Copeland scores of n items (any order).

    Returns
    -------
    float or ndarray, shape (...)
        Σ_k |S_(k) − (n − 1 − 2k)| with S_(k) sorted descending.

    Examples
    --------
    >>> delta_s_scores([2.0, 0.0, -2.0])
    0.0
    >>> delta_s_scores([[0, 0, 0], [2, -2, 0]]).tolist()
    [4.0, 0.0]
    """
    s = np.asarray(scores, dtype=float)
    n = s.shape[-1]
    asc = np.sort(s, axis=-1)  # ascending: asc[j] = S_(n-1-j); perfect value there is 2j-(n-1)
    perfect = 2.0 * np.arange(n) - (n - 1)
    out = np.abs(asc - perfect).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def delta_s(matrix: np.ndarray | pd.DataFrame) -> float:
    """Δ_S of an antisymmetric Z or W matrix (METHODS §5).

    Parameters
    ----------
    matrix : array_like or DataFrame, shape (N, N)

    Returns
    -------
    float
        0 for an error-free matrix; ⌊N²/2⌋ for an all-zero Z.

    Examples
    --------
    >>> import numpy as np
    >>> perfect = np.triu(np.ones((4, 4)), 1) - np.tril(np.ones((4, 4)), -1)
    >>> delta_s(perfect), delta_s(np.zeros((4, 4)))
    (0.0, 8.0)
    """
    M = _as_matrix(matrix)
    return float(delta_s_scores(M.sum(axis=1)))


def delta_s_all_zero(n: int) -> int:
    """Δ_S of an all-zero N×N Z: ⌊N²/2⌋ (the paper prints N(N+1)/2, which is wrong).

    Examples
    --------
    >>> [delta_s_all_zero(n) for n in range(2, 7)]
    [2, 4, 8, 12, 18]
    """
    return int(n) * int(n) // 2


def _as_matrix(matrix: Any) -> np.ndarray:
    M = np.asarray(matrix.to_numpy() if isinstance(matrix, pd.DataFrame) else matrix, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2:
        raise DesignError(f"need a square N×N matrix with N >= 2, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise DesignError("the matrix has missing (non-finite) entries: Δ_S needs a round-robin")
    if not np.allclose(M, -M.T, atol=1e-9):
        raise DesignError("the matrix is not antisymmetric (Z and W are): pass Z or W")
    return M


# ============================================================================ observed curve
def observed_curve(
    matrix: np.ndarray | pd.DataFrame,
    n_subsets: int = 200,
    *,
    random_seed: int | np.random.Generator | None = None,
    exhaustive: bool = True,
) -> np.ndarray:
    """Observed Δ_S–n curve: mean Δ_S over ``n_subsets`` random n-subsets, n = 2..N.

    Vectorised over subsets. With ``exhaustive=True`` every subset is used where there are no more
    than ``n_subsets`` of them (C(N, n) ≤ R: small n, small contexts, n = N), which gives the exact
    mean instead of a noisy one; the paper always samples.

    Parameters
    ----------
    matrix : array_like, shape (N, N)
        Z or W.
    n_subsets : int
        R, random subsets per n (paper: 200).
    random_seed : int or Generator, optional
    exhaustive : bool

    Returns
    -------
    ndarray, shape (N − 1,)
        Entry n − 2 is the mean Δ_S of n-subsets.

    Examples
    --------
    >>> import numpy as np
    >>> observed_curve(np.zeros((4, 4)), random_seed=0).tolist()  # all-zero: ⌊n²/2⌋
    [2.0, 4.0, 8.0]
    """
    M = _as_matrix(matrix)
    rng = np.random.default_rng(random_seed)
    N = M.shape[0]
    R = int(n_subsets)
    if R < 1:
        raise ValueError("n_subsets must be at least 1")
    out = np.empty(N - 1)
    with _single_thread_blas():
        _observed_loop(M, R, rng, exhaustive, out)
    return out


def _observed_loop(
    M: np.ndarray, R: int, rng: np.random.Generator, exhaustive: bool, out: np.ndarray
) -> None:
    N = M.shape[0]
    for n in range(2, N + 1):
        if exhaustive and math.comb(N, n) <= R:
            idx = np.array(list(itertools.combinations(range(N), n)), dtype=np.intp)
        elif n == N:
            idx = np.arange(N)[None, :]
        else:
            idx = np.argpartition(rng.random((R, N)), n, axis=1)[:, :n]
        # Copeland scores of every item within each subset: M @ indicator (one BLAS call)
        ind = np.zeros((idx.shape[0], N))
        np.put_along_axis(ind, idx, 1.0, axis=1)
        full = ind @ M.T  # (R, N): row r = M @ χ_r
        scores = np.take_along_axis(full, idx, axis=1)
        out[n - 2] = np.mean(delta_s_scores(scores))


def _single_thread_blas() -> Any:
    """Small matrix products are fastest on one thread (and threads thrash on a busy machine)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with pymc
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def delta_s_curve_reference(
    matrix: np.ndarray | pd.DataFrame,
    n_subsets: int = 200,
    *,
    random_seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Paper-faithful observed curve: a Python loop over n and over R random subsets.

    Slow on purpose (a reference for tests and the benchmark); use :func:`observed_curve`.

    Examples
    --------
    >>> import numpy as np
    >>> delta_s_curve_reference(np.zeros((3, 3)), n_subsets=5, random_seed=0).tolist()
    [2.0, 4.0]
    """
    M = _as_matrix(matrix)
    rng = np.random.default_rng(random_seed)
    N = M.shape[0]
    out = np.empty(N - 1)
    for n in range(2, N + 1):
        vals = []
        for _ in range(int(n_subsets)):
            s = rng.choice(N, size=n, replace=False)
            sub = M[np.ix_(s, s)]
            scores = np.sort(sub.sum(axis=1))[::-1]
            vals.append(np.abs(scores - (n - 1 - 2 * np.arange(n))).sum())
        out[n - 2] = np.mean(vals)
    return out


def synthetic_matrix_reference(
    n: int,
    eps_plus: float,
    eps_minus: float | None = None,
    *,
    k_plus: int = 1,
    k_minus: int = 1,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """One synthetic W (Z when k₊ = k₋ = 1) under §3, generated naively pair by pair.

    Item index = true rank (0 = best); the presentation design is mirrored on a random index
    order: for each pair, the item with the lower random index gets ``k_plus`` first showings.

    Examples
    --------
    >>> W = synthetic_matrix_reference(5, 0.0, rng=0)
    >>> W[0].tolist()
    [0.0, 1.0, 1.0, 1.0, 1.0]
    """
    rng = np.random.default_rng(rng)
    e_minus = eps_plus if eps_minus is None else eps_minus
    K = k_plus + k_minus
    pos = rng.permutation(n)
    W = np.zeros((n, n))
    for a in range(n):
        for b in range(a + 1, n):  # a is truly better
            f = k_plus if pos[a] < pos[b] else k_minus  # showings with the better item first
            wins = np.sum(rng.random(f) >= eps_plus) + np.sum(rng.random(K - f) >= e_minus)
            W[a, b] = (2 * wins - K) / K
            W[b, a] = -W[a, b]
    return W


def synthetic_curve_reference(
    n_items: int,
    eps_plus: float,
    eps_minus: float | None = None,
    *,
    k_plus: int = 1,
    k_minus: int = 1,
    n_synthetic: int = 10,
    n_subsets: int = 200,
    random_seed: int | np.random.Generator | None = None,
    return_all: bool = False,
) -> np.ndarray:
    """Paper-faithful synthetic curve at one grid value: M naive N-matrices, R subsets each.

    Parameters
    ----------
    n_items : int
        N.
    eps_plus, eps_minus : float
        Error rates (``eps_minus`` defaults to ``eps_plus``: uniform error).
    k_plus, k_minus : int
        Design.
    n_synthetic, n_subsets : int
        M and R (paper: 10 and 200).
    random_seed : int or Generator, optional
    return_all : bool
        Return the (M, N − 1) per-matrix curves instead of their mean.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> synthetic_curve_reference(4, 0.0, n_synthetic=2, n_subsets=3, random_seed=0).tolist()
    [0.0, 0.0, 0.0]
    """
    rng = np.random.default_rng(random_seed)
    curves = np.array(
        [
            delta_s_curve_reference(
                synthetic_matrix_reference(
                    n_items, eps_plus, eps_minus, k_plus=k_plus, k_minus=k_minus, rng=rng
                ),
                n_subsets,
                random_seed=rng,
            )
            for _ in range(int(n_synthetic))
        ]
    )
    return curves if return_all else curves.mean(axis=0)


# ============================================================================ synthetic tables
def make_grid(step: float = 0.005, upper: float = 0.5) -> np.ndarray:
    """The grid [0, upper] in steps of ``step`` (paper: 0.005 on [0, 0.5], 101 values).

    Examples
    --------
    >>> g = make_grid()
    >>> g.size, float(g[0]), float(g[-1]), float(g[1])
    (101, 0.0, 0.5, 0.005)
    """
    if not (0 < step <= upper <= 1):
        raise ValueError(f"need 0 < step <= upper <= 1, got step={step}, upper={upper}")
    n = round(upper / step)
    return np.round(np.linspace(0.0, n * step, n + 1), 12)


def _dtype_for(K: int, n: int) -> type:
    return np.int16 if 2 * K * n < 30000 else np.int32


def synthetic_delta_s_draws(
    n: int,
    grid: np.ndarray,
    *,
    k_plus: int = 1,
    k_minus: int = 1,
    n_synthetic: int = 10,
    random_seed: int = 0,
    two_d: bool = False,
    tie_rate: float = 0.0,
) -> np.ndarray:
    """Δ_S of M synthetic n×n matrices at every grid value, with common random numbers.

    Every showing of every pair gets one uniform u; it is an error at ε iff u < ε. The error count
    of each item at every grid value is then a cumulative histogram of the bins of its uniforms,
    and the Copeland scores at all grid values follow without regenerating any matrix. In 2-D the
    showings with the better item first use ε₊ and the others ε₋; the scores separate as
    A(ε₊) + B(ε₋). The expected table is symmetric under ε₊ ↔ ε₋ (METHODS §3.2); only the
    triangle ε₊ ≤ ε₋ is computed and mirrored.

    Parameters
    ----------
    n : int
        Matrix size (≥ 2).
    grid : ndarray
        Increasing grid of error rates in [0, 1].
    k_plus, k_minus : int
        Design (showings of each pair with the lower-index item first / second). In 1-D only
        k₊ + k₋ matters.
    n_synthetic : int
        M.
    random_seed : int
        The stream is ``default_rng([random_seed, n, k₊, k₋, M, 1 or 2])``, so the draws for size
        n do not depend on which other sizes are computed.
    two_d : bool
    tie_rate : float
        τ: each showing is a tie with probability τ, at random (a second uniform per showing,
        from its own stream ``default_rng([random_seed, n, k₊, k₋, M, 1 or 2, round(τ·10⁶)])``),
        counted as the paper counts a tie, half a win each way; the other showings are errors
        with probability ε. The grid's ε is then the error rate among decided verdicts, the
        models' ε (METHODS §7.5). 0 (default): the paper's tie-free matrices, unchanged.

    Returns
    -------
    ndarray
        Shape (M, G) or (M, G, G) (axis 1 = ε₊, axis 2 = ε₋).

    Examples
    --------
    >>> import numpy as np
    >>> d = synthetic_delta_s_draws(6, np.array([0.0, 0.5, 1.0]), n_synthetic=2)
    >>> d[:, 0].tolist(), d[:, 1].tolist()  # no error: the perfect sequence; ε = ½: far from it
    ([0.0, 0.0], [10.0, 10.0])
    >>> d[:, 2].tolist()  # every verdict wrong: the order is reversed, invisible to sorted scores
    [0.0, 0.0]
    """
    n = int(n)
    kp, km = int(k_plus), int(k_minus)
    K = kp + km
    M = int(n_synthetic)
    grid = np.asarray(grid, dtype=float)
    G = grid.size
    if n < 2 or K < 1 or M < 1 or G < 1:
        raise ValueError("need n >= 2, k_plus + k_minus >= 1, n_synthetic >= 1, a non-empty grid")
    tau = float(tie_rate)
    if not 0.0 <= tau < 1.0:
        raise ValueError(f"tie_rate must be in [0, 1), got {tie_rate!r}")
    seed_key = [int(random_seed), n, kp, km, M, 2 if two_d else 1]
    rng = np.random.default_rng(seed_key)
    a, b = np.triu_indices(n, 1)  # a is truly better than b (index = true rank)
    P = a.size
    U = rng.random((M, P, K))
    bins = np.searchsorted(grid, U, side="right")  # error at grid g iff g >= bins
    dt = _dtype_for(K, n)
    base = (K * (n - 1 - 2 * np.arange(n))).astype(dt)  # K × perfect scores
    perfect_asc = (K * (2 * np.arange(n) - (n - 1))).astype(dt)
    tie_shift = np.zeros((M, n, 1), dtype=dt)  # K × score change from the ties (half a win)
    if tau > 0:
        tie = np.random.default_rng([*seed_key, round(tau * 1e6)]).random((M, P, K)) < tau
        bins[tie] = G  # a tie is never an error
        m_t, p_t, _ = np.nonzero(tie)
        gain = np.bincount(m_t * n + b[p_t], minlength=M * n)  # the worse item: half a win more
        loss = np.bincount(m_t * n + a[p_t], minlength=M * n)  # the better: half a win less
        tie_shift = (gain - loss).reshape(M, n, 1).astype(dt)

    def hist(mask: np.ndarray | None) -> np.ndarray:
        """Cumulative error counts per (matrix, item, grid): −1 for the better, +1 for the worse."""
        m_idx = np.broadcast_to(np.arange(M)[:, None, None], U.shape)
        sel = (slice(None),) if mask is None else (mask,)
        bb = bins[sel] if mask is not None else bins.ravel()
        mm = m_idx[sel] if mask is not None else m_idx.ravel()
        pp = np.broadcast_to(np.arange(P)[None, :, None], U.shape)
        pp = pp[sel] if mask is not None else pp.ravel()
        size = M * n * (G + 1)
        worse = np.bincount((mm * n + b[pp]) * (G + 1) + bb, minlength=size)
        better = np.bincount((mm * n + a[pp]) * (G + 1) + bb, minlength=size)
        h = (worse - better).reshape(M, n, G + 1)
        return np.cumsum(h, axis=2)[:, :, :G].astype(dt)  # (M, n, G): Σ_better E − Σ_worse E

    if not two_d:
        D = hist(None)  # (M, n, G)
        scores = base[None, :, None] + 2 * D + tie_shift  # K × Copeland scores
        scores = np.sort(np.moveaxis(scores, 1, 2), axis=-1)  # (M, G, n) ascending
        return np.abs(scores - perfect_asc).sum(axis=-1, dtype=np.int64) / K

    pos = rng.permuted(np.tile(np.arange(n), (M, 1)), axis=1)  # random index of each true rank
    f = np.where(pos[:, a] < pos[:, b], kp, km)  # (M, P): showings with the better item first
    first = np.arange(K)[None, None, :] < f[:, :, None]
    A = hist(first)  # errors at ε₊ (better item shown first)
    B = hist(~first)  # errors at ε₋ (better item shown second)
    gp, gm = np.triu_indices(G)  # ε₊ index <= ε₋ index
    out = np.empty((M, G, G))
    # chunk over the triangle to bound memory
    chunk = max(1, 4_000_000 // max(M * n, 1))
    for s in range(0, gp.size, chunk):
        ip, im = gp[s : s + chunk], gm[s : s + chunk]
        sc = base[None, :, None] + 2 * (A[:, :, ip] + B[:, :, im]) + tie_shift  # (M, n, T)
        sc = np.sort(np.moveaxis(sc, 1, 2), axis=-1)
        v = np.abs(sc - perfect_asc).sum(axis=-1, dtype=np.int64) / K  # (M, T)
        out[:, ip, im] = v
        out[:, im, ip] = v
    return out


@dataclass(frozen=True, eq=False)
class SyntheticTable:
    """Mean synthetic Δ_S per grid value and matrix size.

    Attributes
    ----------
    values : ndarray
        Shape (G, n_max − 1) in 1-D or (G, G, n_max − 1) in 2-D (ε₊, ε₋, n); the last axis is
        n = 2..n_max.
    grid : ndarray
    sizes : ndarray
        2..n_max.
    k_plus, k_minus, n_synthetic, random_seed, version : int
    two_d : bool
    tie_rate : float
        The (quantized) share of synthetic showings that are ties.
    cache_file : Path or None
        The file the table was read from or written to.
    from_cache : bool
        True when the table was read from ``cache_file`` rather than computed.
    """

    values: np.ndarray
    grid: np.ndarray
    sizes: np.ndarray
    k_plus: int
    k_minus: int
    n_synthetic: int
    random_seed: int
    two_d: bool
    tie_rate: float = 0.0
    version: int = TABLE_VERSION
    cache_file: Path | None = None
    from_cache: bool = False

    @property
    def n_max(self) -> int:
        """Largest matrix size in the table."""
        return int(self.sizes[-1])

    def curve(self, eps: float, eps_minus: float | None = None) -> np.ndarray:
        """Synthetic curve (n = 2..n_max) at the grid value(s) nearest ``eps`` (and ε₋)."""
        g = int(np.argmin(np.abs(self.grid - eps)))
        if not self.two_d:
            return self.values[g]
        h = int(np.argmin(np.abs(self.grid - (eps if eps_minus is None else eps_minus))))
        return self.values[g, h]


def default_cache_dir() -> Path:
    """``$BAYES_PAIRWISE_CACHE`` if set, else ``~/.cache/bayes_pairwise``.

    Examples
    --------
    >>> default_cache_dir().name in ("bayes_pairwise",) or True
    True
    """
    env = os.environ.get("BAYES_PAIRWISE_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "bayes_pairwise"


#: Resolution of the tie rate of the synthetic tables (and of their cache key): a judge's tie
#: share is rounded to it. A tie moves the scores half as much as an error, so a rounding error
#: of at most half a step (0.0025) shifts the fitted ε by about 0.001, below the grid step
#: (0.005); judges with close tie shares share a cached table.
TIE_RATE_STEP = 0.005


def quantize_tie_rate(tie_rate: float) -> float:
    """The tie rate a synthetic table is computed at: ``tie_rate`` rounded to
    :data:`TIE_RATE_STEP`.

    Examples
    --------
    >>> quantize_tie_rate(0.19125), quantize_tie_rate(0.0)
    (0.19, 0.0)
    """
    return round(round(float(tie_rate) / TIE_RATE_STEP) * TIE_RATE_STEP, 6)


def _cache_key(
    two_d: bool, kp: int, km: int, grid: np.ndarray, M: int, seed: int, tie_rate: float = 0.0
) -> tuple[str, dict[str, Any]]:
    meta = {
        "kind": "2d" if two_d else "1d",
        # the split too, in 1-D: only the total of showings per pair matters to the values'
        # distribution, but the draws follow the split, and a table keyed by the total alone
        # served (1, 3) from a cached (2, 2): the same log read ε 0.05 or 0.07 by the cache's
        # history
        "design": [kp, km],
        "grid": [float(x) for x in np.round(grid, 12)],
        "n_synthetic": M,
        "seed": seed,
        "version": TABLE_VERSION,
    }
    if tie_rate > 0:  # tie-free tables keep their key (and their cached files)
        meta["tie_rate"] = float(tie_rate)
    digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:20]
    return f"deltas-{meta['kind']}-{digest}", meta


#: A synthetic table's progress (``progress=True``) is printed once it has taken this long, in
#: seconds: a table built in a second or two says nothing (a log with many tie rates builds
#: dozens of them, each was up to 11 lines), a long one reports from then on with its time.
PROGRESS_AFTER_S = 2.0


def _progress_fn(progress: ProgressArg) -> Callable[[str, int, int], None] | None:
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    t0 = time.perf_counter()

    def show(stage: str, done: int, total: int) -> None:
        took = time.perf_counter() - t0
        if took < PROGRESS_AFTER_S:
            return
        line = f"{stage}: {done}/{total}" + (f" in {took:.1f} s" if done >= total else "")
        # a terminal: one line updated in place; a log file or pipe: a line per update (a
        # carriage return there runs the updates together on one line)
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{line}" + ("\n" if done >= total else ""))
        else:
            sys.stderr.write(f"{line}\n")
        sys.stderr.flush()

    return show


def _table_checksum(values: np.ndarray, meta_json: str) -> str:
    """sha256 over the cache key, the table's shape and dtype, and its bytes."""
    arr = np.ascontiguousarray(values)
    h = hashlib.sha256()
    h.update(meta_json.encode("utf-8"))
    h.update(repr((tuple(int(d) for d in arr.shape), arr.dtype.str)).encode("ascii"))
    h.update(arr.tobytes())
    return h.hexdigest()


def _atomic_save(path: Path, **arrays: Any) -> None:
    """Write an ``.npz`` atomically (:func:`bayes_pairwise.output.atomic_write`).

    The temporary is named after this process, so one left by a killed run is removed by the
    next write into the cache folder.
    """
    from bayes_pairwise.output import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)

    atomic_write(path, write)


def _open_regular(path: Path) -> Any:
    """``path`` opened for reading if it is a regular file; OSError naming it otherwise.

    Opened without blocking (a FIFO in the cache folder would block a plain ``open``), then
    checked with ``fstat``, so what is read is what was checked.
    """
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _save_table(path: Path, values: np.ndarray, meta: dict) -> None:
    meta_json = json.dumps(meta, sort_keys=True)
    _atomic_save(
        path,
        values=values,
        meta=np.array(meta_json),
        checksum=np.array(_table_checksum(values, meta_json)),
    )


def _read_table(path: Path, meta: dict, n_file: int) -> np.ndarray:
    """The full table stored in ``path``; ValueError naming the problem when it is not valid."""
    meta_json = json.dumps(meta, sort_keys=True)
    with _open_regular(path) as fh, np.load(fh, allow_pickle=False) as z:
        if set(z.files) != {"values", "meta", "checksum"}:
            raise ValueError(f"unexpected arrays {sorted(z.files)}")
        stored_meta = str(z["meta"][()])
        checksum = str(z["checksum"][()])
        values = z["values"]
    if stored_meta != meta_json:
        raise ValueError("its key does not match the file name")
    G = len(meta["grid"])
    expected = ((G, G) if meta["kind"] == "2d" else (G,)) + (n_file - 1,)
    if values.shape != expected or values.dtype != np.float64:
        raise ValueError(f"table of shape {values.shape} ({values.dtype}), expected {expected}")
    if checksum != _table_checksum(values, stored_meta):
        raise ValueError("checksum mismatch (the table was modified)")
    if not np.all(np.isfinite(values)):  # pragma: no cover - a valid checksum rules this out
        raise ValueError("non-finite values")
    return values


def _remove(paths: Sequence[Path]) -> None:
    for p in paths:
        with contextlib.suppress(OSError):
            p.unlink()


def _load_cached(
    cache_dir: Path, stem: str, meta: dict, n_max: int
) -> tuple[tuple[np.ndarray, Path] | None, list[Path]]:
    """The smallest valid cached table with n ≥ ``n_max``, and the invalid files met on the way.

    Any read error, a key or checksum mismatch, or a table of the wrong shape makes a file
    invalid: it is reported with a :class:`~bayes_pairwise.errors.CacheWarning` (naming the
    file) and the caller recomputes and overwrites it; it is never trusted nor fatal.
    """
    candidates: list[tuple[int, Path]] = []
    for p in cache_dir.glob(f"{stem}-n*.npz"):
        try:
            n = int(p.stem.rsplit("-n", 1)[1])
        except (IndexError, ValueError):
            continue
        if n >= n_max:
            candidates.append((n, p))
    bad: list[Path] = []
    for n, p in sorted(candidates):
        try:
            values = _read_table(p, meta, n)
        except Exception as exc:  # any unreadable cache file is recomputed
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            warnings.warn(
                f"ignoring the corrupt Δ_S cache file {p} ({reason}); recomputing the table",
                CacheWarning,
                stacklevel=user_stacklevel(),
            )
            bad.append(p)
            continue
        return (values[..., : n_max - 1].copy(), p), bad
    return None, bad


def synthetic_table(
    n_max: int,
    *,
    grid: np.ndarray | None = None,
    grid_step: float = 0.005,
    k_plus: int = 1,
    k_minus: int = 1,
    n_synthetic: int = 10,
    random_seed: int = 0,
    two_d: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    progress: ProgressArg = False,
    tie_rate: float = 0.0,
) -> SyntheticTable:
    """Synthetic Δ_S table for n = 2..n_max over the grid, cached on disk.

    The cache key is a hash of (1-D/2-D, design, grid, M, seed, tie rate,
    :data:`TABLE_VERSION`); a cached
    table for a larger n_max is reused (the draws for each n are independent of n_max). Writes
    are atomic (temporary file, fsync, rename), so concurrent processes never read half a file.
    Each file stores its key and a sha256 checksum of the table (bytes, shape, dtype); a file that
    cannot be read, or whose key or checksum does not match, is never trusted: it is reported
    with a :class:`~bayes_pairwise.errors.CacheWarning` naming it, and the table is recomputed
    and the file overwritten.

    Parameters
    ----------
    n_max : int
        Largest matrix size.
    grid : ndarray, optional
        Grid of error rates; default :func:`make_grid` (``grid_step`` on [0, 0.5]).
    grid_step : float
    k_plus, k_minus : int
        Design.
    n_synthetic : int
        M synthetic matrices per (n, grid value) (paper: 10).
    random_seed : int
    two_d : bool
        Table over (ε₊, ε₋) instead of ε.
    cache_dir : path, optional
        Default :func:`default_cache_dir`.
    use_cache : bool
        Read and write the cache.
    progress : bool or callable
        True prints progress to stderr; a callable gets ``(stage, done, total)``.
    tie_rate : float
        Share of synthetic showings that are ties (:func:`synthetic_delta_s_draws`), rounded
        to :data:`TIE_RATE_STEP` (:func:`quantize_tie_rate`).

    Returns
    -------
    SyntheticTable

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     t1 = synthetic_table(10, cache_dir=d, random_seed=0)
    ...     t2 = synthetic_table(8, cache_dir=d, random_seed=0)
    >>> t1.values.shape, t1.from_cache, t2.from_cache
    ((101, 9), False, True)
    >>> bool((t2.values == t1.values[:, :7]).all())
    True
    """
    n_max = int(n_max)
    if n_max < 2:
        raise ValueError("n_max must be at least 2")
    grid = make_grid(grid_step) if grid is None else np.asarray(grid, dtype=float)
    if np.any(np.diff(grid) <= 0) or grid[0] < 0 or grid[-1] > 1:
        raise ValueError("grid must be increasing inside [0, 1]")
    seed = int(random_seed)
    tau = quantize_tie_rate(tie_rate)
    stem, meta = _cache_key(two_d, int(k_plus), int(k_minus), grid, int(n_synthetic), seed, tau)
    cdir = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    common = dict(
        grid=grid,
        sizes=np.arange(2, n_max + 1),
        k_plus=int(k_plus),
        k_minus=int(k_minus),
        n_synthetic=int(n_synthetic),
        random_seed=seed,
        two_d=two_d,
        tie_rate=tau,
    )
    bad: list[Path] = []
    if use_cache:
        hit, bad = _load_cached(cdir, stem, meta, n_max)
        if hit is not None:
            _remove(bad)  # a corrupt smaller table: the valid larger one serves its sizes
            return SyntheticTable(values=hit[0], cache_file=hit[1], from_cache=True, **common)
    show = _progress_fn(progress)
    shape = (grid.size, grid.size) if two_d else (grid.size,)
    values = np.empty((*shape, n_max - 1))
    stage = f"Δ_S synthetic table ({'2-D' if two_d else '1-D'}, k+={k_plus}, k-={k_minus}" + (
        f", ties {tau:g})" if tau else ")"
    )
    total_work = sum(n * n for n in range(2, n_max + 1))
    done = 0
    shown = -1
    for n in range(2, n_max + 1):
        draws = synthetic_delta_s_draws(
            n,
            grid,
            k_plus=k_plus,
            k_minus=k_minus,
            n_synthetic=n_synthetic,
            random_seed=seed,
            two_d=two_d,
            tie_rate=tau,
        )
        values[..., n - 2] = draws.mean(axis=0)
        done += n * n
        pct = 100 * done // total_work
        if show is not None and (pct // 10 > shown // 10 or n == n_max):
            shown = pct
            show(stage, pct, 100)
    path = None
    if use_cache:
        path = cdir / f"{stem}-n{n_max:04d}.npz"
        try:
            _save_table(path, values, meta)  # atomically replaces a corrupt file of this size
        except OSError as exc:  # an unwritable cache is not fatal
            msg = f"could not write the Δ_S cache {path}: {exc}"
            warnings.warn(msg, CacheWarning, stacklevel=user_stacklevel())
            path = None
        _remove([p for p in bad if p != path])  # corrupt larger tables: never read again
    return SyntheticTable(values=values, cache_file=path, from_cache=False, **common)


# ============================================================================ data → matrices
@dataclass(frozen=True)
class _Observed:
    contexts: tuple[str, ...]
    matrices: tuple[np.ndarray, ...]
    k_plus: int
    k_minus: int
    judge: str
    r1: float | None = None
    #: the judge's share of kept ties, when ties are modelled (policy "model"), else 0
    tie_share: float = 0.0


def _block(data: Comparisons, judge: str | int | None) -> Comparisons:
    return data.one_judge(judge, hint="pass fit(data, judge=…)")


def _require_informative(values: np.ndarray, weights: np.ndarray, obs: _Observed) -> None:
    """Refuse a design on which Δ_S says nothing of the error rate: its synthetic Δ_S is the
    same at every grid value for every size the fit weighs, so every ε fits the log equally
    and the grid's first value (ε = 0) would be reported as the estimate. Two texts with one
    verdict are such a design: their Copeland scores are the perfect sequence, whatever the
    verdict (llmfao's crowd workers, each pair once: `compare` read ε 0.000 for 82 of its 124)."""
    cols = np.flatnonzero(np.asarray(weights) > 0)
    vals = np.asarray(values)
    vals = vals.reshape(-1, vals.shape[-1])[:, cols]
    if cols.size and float(np.ptp(vals, axis=0).max()) > 1e-12:
        return
    sizes = sorted({int(m.shape[0]) for m in obs.matrices})
    size_text = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}–{sizes[-1]}"
    why = (
        ": two texts with one verdict always form the perfect Copeland sequence, whatever it is"
        if sizes == [2] and obs.k_plus + obs.k_minus == 1
        else ""
    )
    raise DesignError(
        f"Δ_S cannot read the error rate on this design: its synthetic Δ_S is the same at "
        f"every grid value ({len(obs.matrices)} round robin(s) of {size_text} items, "
        f"k+={obs.k_plus}, k-={obs.k_minus} verdict(s) per pair{why}), so every ε fits "
        f"the log of judge {obs.judge!r} equally and the grid's minimum is no estimate"
    )


def _design_of(block: Comparisons) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The modal (k₊, k₋) over pairs (ties: the larger design), and the per-pair counts."""
    from bayes_pairwise.matrices import pair_counts

    pc = pair_counts(block)
    designs, counts = np.unique(np.c_[pc.k_plus, pc.k_minus], axis=0, return_counts=True)
    best = max(range(len(counts)), key=lambda r: (counts[r], designs[r].sum()))
    return int(designs[best][0]), int(designs[best][1]), pc.k_plus, pc.k_minus


def _design_matrices(
    block: Comparisons, k_plus: int, k_minus: int, skip_incomplete: bool
) -> tuple[tuple[str, ...], tuple[np.ndarray, ...]]:
    """Per-context W from the first k₊ i-first and k₋ j-first verdicts of every pair."""
    N = block.n_items
    first = np.asarray(block.first, dtype=np.int64)
    second = np.asarray(block.second, dtype=np.int64)
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    lo_first = first == lo
    i_wins = np.where(lo_first, block.outcome, 1.0 - block.outcome)
    key = lo * N + hi
    order = np.lexsort((block.row, block.repeat, lo_first, key))
    k_s, lf_s = key[order], lo_first[order]
    grp = np.r_[True, (k_s[1:] != k_s[:-1]) | (lf_s[1:] != lf_s[:-1])]
    start = np.maximum.accumulate(np.where(grp, np.arange(order.size), 0))
    rank = np.arange(order.size) - start
    keep_s = rank < np.where(lf_s, k_plus, k_minus)
    kept = order[keep_s]
    uniq, inv = np.unique(key[kept], return_inverse=True)
    kp_c = np.bincount(inv, weights=lo_first[kept].astype(float), minlength=uniq.size)
    tot = np.bincount(inv, minlength=uniq.size)
    wins = np.bincount(inv, weights=i_wins[kept], minlength=uniq.size)
    K = k_plus + k_minus
    short = (kp_c != k_plus) | (tot - kp_c != k_minus)
    W = np.full((N, N), np.nan)
    np.fill_diagonal(W, 0.0)
    ii, jj = uniq // N, uniq % N
    val = (2.0 * wins - K) / K
    val[short] = np.nan
    W[ii, jj] = val
    W[jj, ii] = -val

    ctx_of = np.asarray(block.item_context)
    labels, mats, skipped = [], [], []
    first_bad: tuple[Any, np.ndarray, np.ndarray] | None = None
    for c, ctx in enumerate(block.contexts):
        items = np.flatnonzero(ctx_of == c)
        if items.size == 0:
            continue
        sub = W[np.ix_(items, items)]
        bad = np.argwhere(np.isnan(np.triu(sub, 1)) & np.triu(np.ones_like(sub, bool), 1))
        if items.size < 2 or bad.size:
            skipped.append(ctx)
            if first_bad is None:
                first_bad = (ctx, items, bad)
            continue
        labels.append(ctx)
        mats.append(sub)
    if skipped and not skip_incomplete:
        ctx, items, bad = first_bad  # type: ignore[misc]
        shown = ", ".join(
            f"({block.items[items[x]]!r}, {block.items[items[y]]!r})" for x, y in bad[:6]
        )
        more = f", … ({len(bad) - 6} more)" if len(bad) > 6 else ""
        short = f"{len(bad)} pair(s) fall short: {shown}{more}" if bad.size else "under 2 items"
        dropped = "Use ties='half' if ties were dropped, or " if block.n_ties_dropped else "Use "
        remedy = (
            f"{dropped}skip_incomplete=True (--skip-incomplete on the command line) to fit the "
            f"{len(labels)} complete one(s)"
            if mats
            else _largest_design(block, ties_dropped=bool(block.n_ties_dropped))
        )
        raise DesignError(
            f"{len(skipped)} of {len(block.contexts)} contexts of judge {block.judges[0]!r} are "
            f"not complete round-robins with k+={k_plus}, k-={k_minus} verdicts for every "
            f"pair, which Δ_S needs; the first, context {ctx!r}: {short}. {remedy}"
        )
    if not mats:
        raise DesignError("no context holds a complete round-robin for the Δ_S fit")
    if skipped:
        warnings.warn(
            f"{len(skipped)} of {len(block.contexts)} contexts skipped (incomplete round-robin "
            f"for k+={k_plus}, k-={k_minus}): {', '.join(skipped[:10])}"
            f"{', …' if len(skipped) > 10 else ''}",
            DesignWarning,
            stacklevel=user_stacklevel(),
        )
    return tuple(labels), tuple(mats)


def _largest_design(block: Comparisons, *, ties_dropped: bool) -> str:
    """What to do where no context is complete for the design asked: the largest design the
    contexts with every pair compared meet (the first k₊ and k₋ verdicts of every pair), or why
    Δ_S cannot read the log."""
    from bayes_pairwise.matrices import pair_counts

    pc = pair_counts(block)
    n_ctx = len(block.contexts)
    sizes = np.bincount(np.asarray(block.item_context), minlength=n_ctx)
    pairs = np.bincount(pc.context, minlength=n_ctx)
    full = (sizes >= 2) & (pairs == sizes * (sizes - 1) // 2)
    in_full = full[pc.context]
    if in_full.any():
        a, b = int(pc.k_plus[in_full].min()), int(pc.k_minus[in_full].min())
        if a + b >= 1:
            where = (
                "every pair holds"
                if full.sum() == np.count_nonzero(sizes >= 2)
                else f"every pair of the {int(full.sum())} context(s) with every pair compared "
                "holds"
            )
            return (
                f"No context is complete for that design, but {where} at least k+={a}, "
                f"k-={b} verdicts: pass k_plus={a}, k_minus={b} (--k-plus {a} --k-minus {b} "
                f"on the command line) to fit the first {a} and {b} verdicts of every pair"
                + (" (or ties='half', if ties were dropped)" if ties_dropped else "")
            )
    why = (
        "no one design (k+, k-) is met by every pair of its contexts with every pair compared"
        if in_full.any()
        else "no context has every pair compared"
    )
    return (
        f"No context is complete for that design, and {why}, so Δ_S cannot read this log "
        "(S_com, the moments and the error models read incomplete designs)"
    )


def _observed(
    data_or_matrix: Any,
    judge: str | int | None,
    k_plus: int | None,
    k_minus: int | None,
    skip_incomplete: bool,
) -> _Observed:
    from bayes_pairwise.data import Comparisons

    if isinstance(data_or_matrix, Comparisons):
        block = _block(data_or_matrix, judge)
        kp_mode, km_mode, kps, kms = _design_of(block)
        kp = kp_mode if k_plus is None else int(k_plus)
        km = km_mode if k_minus is None else int(k_minus)
        if kp < 0 or km < 0 or kp + km < 1:
            raise DesignError(f"invalid design k_plus={kp}, k_minus={km}")
        extra = int(np.sum(np.clip(kps - kp, 0, None) + np.clip(kms - km, 0, None)))
        if extra:
            warnings.warn(
                f"judge {block.judges[0]!r}: unequal design across pairs (k+ from {kps.min()} "
                f"to {kps.max()}, k- from {kms.min()} to {kms.max()}): the fit uses the first "
                f"k+={kp}, k-={km} verdicts of every pair; {extra} verdicts are unused",
                DesignWarning,
                stacklevel=user_stacklevel(),
            )
        labels, mats = _design_matrices(block, kp, km, skip_incomplete)
        return _Observed(
            contexts=labels,
            matrices=mats,
            k_plus=kp,
            k_minus=km,
            judge=block.judges[0],
            r1=float(np.mean(block.outcome)),
            tie_share=(
                float(np.mean(np.asarray(block.outcome) == 0.5))
                if block.tie_policy == "model"
                else 0.0
            ),
        )
    M = _as_matrix(data_or_matrix)
    vals = np.unique(np.round(M, 9))
    if k_plus is None and k_minus is None:
        if not np.all(np.isin(vals, (-1.0, 0.0, 1.0))):
            raise DesignError(
                "a matrix with entries other than -1, 0, 1 is a W: pass fit(W, k_plus=…, "
                "k_minus=…) to say how many verdicts of each order every pair has"
            )
        kp = km = 1
    else:
        kp = 1 if k_plus is None else int(k_plus)
        km = 1 if k_minus is None else int(k_minus)
    return _Observed(contexts=("all",), matrices=(M,), k_plus=kp, k_minus=km, judge="judge")


def _pooled_curve(
    mats: Sequence[np.ndarray], n_subsets: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Mean observed curve over contexts (n = 2..max N_c) and the weight of each n."""
    curve, weights, _ = _context_curves(mats, n_subsets, rng)
    return curve, weights


def _context_curves(
    mats: Sequence[np.ndarray], n_subsets: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`_pooled_curve`, plus every context's own curve (rows; NaN beyond its size)."""
    n_max = max(m.shape[0] for m in mats)
    per = np.full((len(mats), n_max - 1), np.nan)
    for k, m in enumerate(mats):
        c = observed_curve(m, n_subsets, random_seed=rng)
        per[k, : c.size] = c
    have = np.isfinite(per)
    tot = np.where(have, per, 0.0).sum(axis=0)
    cnt = have.sum(axis=0).astype(float)
    return tot / cnt, cnt / len(mats), per


#: Fewest complete round-robins for a bootstrap over contexts (below it there is no interval).
MIN_BOOTSTRAP_CONTEXTS = 5


def context_bootstrap_curves(
    per_context: np.ndarray, n_bootstrap: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Pooled curves and size weights of ``n_bootstrap`` resamples of the contexts.

    Contexts are drawn with replacement (multinomial counts); each resample's curve is the mean
    over its contexts at every n, exactly as the observed curve is pooled.

    Parameters
    ----------
    per_context : ndarray, shape (C, n_max − 1)
        One observed curve per context, NaN beyond the context's size.
    n_bootstrap : int
    rng : Generator

    Returns
    -------
    curves, weights : ndarray, shape (B, n_max − 1)

    Examples
    --------
    >>> import numpy as np
    >>> per = np.array([[1.0, 2.0], [3.0, np.nan]])
    >>> c, w = context_bootstrap_curves(per, 3, np.random.default_rng(0))
    >>> c.shape, bool(np.all((c[:, 0] >= 1) & (c[:, 0] <= 3)))
    ((3, 2), True)
    """
    C = per_context.shape[0]
    counts = rng.multinomial(C, np.full(C, 1.0 / C), size=int(n_bootstrap)).astype(float)
    have = np.isfinite(per_context)
    vals = np.where(have, per_context, 0.0)
    tot = counts @ vals
    cnt = counts @ have.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        curves = tot / cnt
    return curves, cnt / C


def _percentile(x: np.ndarray, prob: float) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(x, [(1 - prob) / 2, (1 + prob) / 2])
    return float(lo), float(hi)


def _check_fitted(obj: Any, attr: str) -> None:
    if not hasattr(obj, attr):
        raise NotFittedError(f"{type(obj).__name__} is not fitted yet: call fit(data) first")


# ============================================================================ estimators
@dataclass
class DeltaSFit:
    """1-D Δ_S grid fit of a uniform error rate ε (METHODS §5).

    Parameters
    ----------
    grid_step : float
        Grid step on [0, ``grid_max``] (paper: 0.005 on [0, 0.5]).
    n_subsets : int
        R, random n-subsets per n for the observed curve (paper: 200).
    n_synthetic : int
        M, synthetic matrices per grid value and size for each round-robin (paper: 10). With C
        pooled contexts the table averages M × C synthetic matrices, as precise as the average of
        the C observed curves it is compared with (with M alone, tables for 5-item contexts are so
        coarse that ε = 0.3 was fitted as 0.26).
    random_seed : int, optional
        Seeds the observed-curve subsets and the synthetic tables (tables use 0 when None so that
        they can be cached and reused).
    cache_dir : path, optional
        Where synthetic tables are cached (default :func:`default_cache_dir`).
    grid_max : float
        Upper end of the grid.
    use_cache : bool
        Read/write the table cache.
    skip_incomplete : bool
        Skip contexts without a complete round-robin (with a warning) instead of raising.
    progress : bool or callable
        Progress of table computation on stderr (or a callback ``(stage, done, total)``).
    n_bootstrap : int
        Resamples of the contexts (complete round-robins, with replacement) for an interval of
        ε: the grid fit is repeated on every resample's pooled curve against the same synthetic
        table. Needs at least :data:`MIN_BOOTSTRAP_CONTEXTS` contexts; 0 (default): no interval.
    tie_rate : float, optional
        Share of ties in the synthetic matrices (ties at random, half a win each way, as the
        observed ties are counted). Default (None): the judge's share of kept ties when ties
        are modelled (tie policy ``"model"``, the default), so that ε is the error rate among
        decided verdicts, the models' ε; 0 otherwise (the paper's tie-free matrices: ``"drop"``
        and ``"half"``).

    Attributes
    ----------
    eps_ : float
        Grid value minimising the misfit.
    tie_rate_ : float
        The tie rate of the synthetic table (rounded to :data:`TIE_RATE_STEP`).
    grid_ : ndarray
    misfit_ : ndarray
        Σ_n w_n |observed(n) − synthetic_ε(n)| for every grid value (w_n = share of contexts with at
        least n items; all 1 for one round-robin).
    observed_curve_, synthetic_curve_ : ndarray
        Curves over ``sizes_`` (n = 2..``n_``); the synthetic one at ``eps_``.
    sizes_ : ndarray
    n_ : int
        Items of the (largest) round-robin.
    n_contexts_ : int
    design_ : tuple of int
        (k₊, k₋) used.
    judge_ : str
    table_ : SyntheticTable
    eps_boot_ : ndarray or None
        The bootstrap replicates of ε (``n_bootstrap`` > 0 and enough contexts), else None.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(40, eps=0.2, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaSFit(random_seed=0, cache_dir=d).fit(sim.data)
    >>> abs(fit.eps_ - sim.realised_eps) < 0.02
    True
    >>> fit.misfit_.shape
    (101,)
    """

    grid_step: float = 0.005
    n_subsets: int = 200
    n_synthetic: int = 10
    random_seed: int | None = None
    cache_dir: str | os.PathLike[str] | None = None
    grid_max: float = 0.5
    use_cache: bool = True
    skip_incomplete: bool = False
    progress: ProgressArg = False
    n_bootstrap: int = 0
    tie_rate: float | None = None

    def fit(
        self,
        data: Any,
        *,
        judge: str | int | None = None,
        k_plus: int | None = None,
        k_minus: int | None = None,
    ) -> DeltaSFit:
        """Fit ε to a :class:`~bayes_pairwise.data.Comparisons` (one judge) or a Z / W matrix.

        Parameters
        ----------
        data : Comparisons or array_like
            A log (per-context round-robins are pooled) or one N×N Z / W.
        judge : str or int, optional
            Required when the log holds several judges.
        k_plus, k_minus : int, optional
            Design: verdicts per pair with the lower-index item first / second. Default: the
            most common design over pairs for a log (extra verdicts unused, with a warning;
            pairs with fewer make their context incomplete), (1, 1) for a Z matrix; required
            for a W matrix.

        Returns
        -------
        self
        """
        obs = _observed(data, judge, k_plus, k_minus, self.skip_incomplete)
        rng = np.random.default_rng(self.random_seed)
        curve, weights, per_context = _context_curves(obs.matrices, self.n_subsets, rng)
        n_max = curve.size + 1
        table = synthetic_table(
            n_max,
            grid=make_grid(self.grid_step, self.grid_max),
            k_plus=obs.k_plus,
            k_minus=obs.k_minus,
            n_synthetic=self.n_synthetic * len(obs.matrices),
            random_seed=0 if self.random_seed is None else int(self.random_seed),
            cache_dir=self.cache_dir,
            use_cache=self.use_cache,
            progress=self.progress,
            tie_rate=obs.tie_share if self.tie_rate is None else self.tie_rate,
        )
        self.tie_rate_ = table.tie_rate
        _require_informative(table.values, weights, obs)
        misfit = (np.abs(table.values - curve[None, :]) * weights[None, :]).sum(axis=1)
        g = int(np.argmin(misfit))
        self.grid_ = table.grid
        self.misfit_ = misfit
        self.eps_ = float(table.grid[g])
        self.observed_curve_ = curve
        self.synthetic_curve_ = table.values[g].copy()
        self.sizes_ = table.sizes
        self.weights_ = weights
        self.n_ = n_max
        self.n_contexts_ = len(obs.matrices)
        self.contexts_ = obs.contexts
        self.design_ = (obs.k_plus, obs.k_minus)
        self.judge_ = obs.judge
        self.table_ = table
        self.eps_boot_ = None
        if self.n_bootstrap > 0 and len(obs.matrices) >= MIN_BOOTSTRAP_CONTEXTS:
            curves, wts = context_bootstrap_curves(per_context, self.n_bootstrap, rng)
            mis = (np.abs(table.values[None, :, :] - curves[:, None, :]) * wts[:, None, :]).sum(-1)
            self.eps_boot_ = table.grid[np.argmin(mis, axis=1)]
        return self

    def interval(self, prob: float | None = None) -> tuple[float, float]:
        """Percentile bootstrap interval of ε (NaNs without bootstrap replicates).

        Parameters
        ----------
        prob : float, optional
            Default :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time.

        Returns
        -------
        tuple of float
        """
        _check_fitted(self, "eps_")
        if self.eps_boot_ is None:
            return math.nan, math.nan
        return _percentile(self.eps_boot_, resolve_hdi_prob(prob))

    def to_inference_data(self) -> az.InferenceData:
        """One-chain, one-draw posterior with variable ``eps`` (as the Bayesian models).

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> Z = np.triu(np.ones((6, 6)), 1) - np.tril(np.ones((6, 6)), -1)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     idata = DeltaSFit(cache_dir=d).fit(Z).to_inference_data()
        >>> float(idata.posterior["eps"].values[0, 0])
        0.0
        """
        _check_fitted(self, "eps_")
        return _point_idata(
            {"eps": self.eps_},
            {
                "method": "delta_s_grid_fit",
                "judge": self.judge_,
                "grid_step": self.grid_step,
                "n_subsets": self.n_subsets,
                "n_synthetic": self.n_synthetic,
                "design": list(self.design_),
                "min_misfit": float(self.misfit_.min()),
            },
        )


@dataclass
class DeltaS2DFit:
    """2-D Δ_S grid fit of (ε₊, ε₋) on W, with the paper's sub-design cross-validation.

    For every sub-design k₊* ≤ k₊, k₋* ≤ k₋ (the first k₊* / k₋* verdicts of each order of every
    pair) W is rebuilt and fitted against the synthetic 2-D table of that design; the paper's
    estimate is the average over sub-designs. **Only a symmetric function of (ε₊, ε₋) is
    identified** (METHODS §3.2): see ``caveat_``; ``identifiable_`` is always False.

    Parameters
    ----------
    grid_step, n_subsets, n_synthetic, random_seed, cache_dir, grid_max, use_cache,
    skip_incomplete, progress
        As :class:`DeltaSFit`.
    cross_validate : bool
        Average over all sub-designs (paper) or fit only the full design.
    n_bootstrap : int
        Context resamples for intervals of ε₊ + ε₋ and of its split by r₁ (full design only;
        as :class:`DeltaSFit`).
    tie_rate : float, optional
        As :class:`DeltaSFit`: by default the judge's tie share when ties are modelled, so
        that ε₊ + ε₋ is on the models' scale.

    Attributes
    ----------
    eps_plus_, eps_minus_ : float
        The paper's estimate: average over sub-designs of the 2-D argmin. Not to be read as
        separate rates (``caveat_``).
    eps_sum_ : float
        Average over sub-designs of ε₊ + ε₋ at the argmin: the well-determined quantity.
    eps_low_, eps_high_ : float
        Average over sub-designs of the smaller / larger of the two rates at the argmin (the
        unordered pair; weakly determined along the valley of the misfit surface).
    eps_plus_hybrid_, eps_minus_hybrid_ : float or None
        (``eps_sum_`` ∓ (2r₁ − 1)/(1 − τ))/2, unclipped: the Δ_S sum split by the first-position
        win rate r₁ (τ = ``tie_rate_``; needs a log; None for a bare matrix).
    misfit_ : ndarray, shape (G, G)
        Misfit surface (axis 0 = ε₊, axis 1 = ε₋) averaged over sub-designs; symmetric.
    cv_results_ : DataFrame
        One row per sub-design: k_plus, k_minus, eps_plus, eps_minus, min_misfit.
    grid_, observed_curve_, synthetic_curve_, sizes_, n_, n_contexts_, design_, judge_, r1_
        As :class:`DeltaSFit` (curves for the full design); ``r1_`` is the first-position rate.
    eps_sum_boot_ : ndarray or None
        Bootstrap replicates of ε₊ + ε₋ (full design), else None.
    identifiable_ : bool
        Always False.
    caveat_ : str
        What is and is not identified, in words.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(20, eps_plus=0.05, eps_minus=0.25, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaS2DFit(grid_step=0.025, n_subsets=50, cache_dir=d).fit(sim.data)
    >>> fit.identifiable_, fit.misfit_.shape
    (False, (21, 21))
    """

    grid_step: float = 0.005
    n_subsets: int = 200
    n_synthetic: int = 10
    random_seed: int | None = None
    cache_dir: str | os.PathLike[str] | None = None
    grid_max: float = 0.5
    use_cache: bool = True
    skip_incomplete: bool = False
    progress: ProgressArg = False
    cross_validate: bool = True
    n_bootstrap: int = 0
    tie_rate: float | None = None
    identifiable_: bool = field(default=False, init=False)
    caveat_: str = field(default=IDENTIFIABILITY_CAVEAT, init=False)

    def fit(
        self,
        data: Any,
        *,
        judge: str | int | None = None,
        k_plus: int | None = None,
        k_minus: int | None = None,
    ) -> DeltaS2DFit:
        """Fit (ε₊, ε₋) to a log (one judge) or to a W matrix with its design.

        Parameters
        ----------
        data : Comparisons or array_like
        judge : str or int, optional
        k_plus, k_minus : int, optional
            Full design (as :meth:`DeltaSFit.fit`). Cross-validation needs a log.

        Returns
        -------
        self
        """
        from bayes_pairwise.data import Comparisons

        obs = _observed(data, judge, k_plus, k_minus, self.skip_incomplete)
        is_log = isinstance(data, Comparisons)
        block = _block(data, judge) if is_log else None
        if self.cross_validate and is_log:
            designs = [
                (a, b)
                for a in (range(1, obs.k_plus + 1) if obs.k_plus else [0])
                for b in (range(1, obs.k_minus + 1) if obs.k_minus else [0])
            ]
        else:
            designs = [(obs.k_plus, obs.k_minus)]
        grid = make_grid(self.grid_step, self.grid_max)
        seed = 0 if self.random_seed is None else int(self.random_seed)
        rng = np.random.default_rng(self.random_seed)
        rows, surfaces = [], []
        full_curve = None
        full_weights = None
        for kp, km in designs:
            if (kp, km) == (obs.k_plus, obs.k_minus):
                mats = obs.matrices
            else:
                assert block is not None
                _, mats = _design_matrices(block, kp, km, self.skip_incomplete)
            curve, weights, per_context = _context_curves(mats, self.n_subsets, rng)
            table = synthetic_table(
                curve.size + 1,
                grid=grid,
                k_plus=kp,
                k_minus=km,
                n_synthetic=self.n_synthetic * len(obs.matrices),
                random_seed=seed,
                two_d=True,
                cache_dir=self.cache_dir,
                use_cache=self.use_cache,
                progress=self.progress,
                tie_rate=obs.tie_share if self.tie_rate is None else self.tie_rate,
            )
            if (kp, km) == (obs.k_plus, obs.k_minus):
                _require_informative(table.values, weights, obs)
            mis = (np.abs(table.values - curve) * weights).sum(axis=-1)
            gp, gm = np.unravel_index(int(np.argmin(mis)), mis.shape)
            rows.append(
                {
                    "k_plus": kp,
                    "k_minus": km,
                    "eps_plus": float(grid[gp]),
                    "eps_minus": float(grid[gm]),
                    "min_misfit": float(mis[gp, gm]),
                }
            )
            surfaces.append(mis)
            if (kp, km) == (obs.k_plus, obs.k_minus):
                full_curve, full_weights, full_table = curve, weights, table
                full_per_context = per_context
        cv = pd.DataFrame(rows)
        self.cv_results_ = cv
        self.grid_ = grid
        self.misfit_ = np.mean(surfaces, axis=0)
        self.eps_plus_ = float(cv["eps_plus"].mean())
        self.eps_minus_ = float(cv["eps_minus"].mean())
        lo = np.minimum(cv["eps_plus"], cv["eps_minus"])
        hi = np.maximum(cv["eps_plus"], cv["eps_minus"])
        self.eps_low_, self.eps_high_ = float(lo.mean()), float(hi.mean())
        self.eps_sum_ = float((cv["eps_plus"] + cv["eps_minus"]).mean())
        self.r1_ = obs.r1
        self.tie_rate_ = full_table.tie_rate
        if obs.r1 is None:
            self.eps_plus_hybrid_ = self.eps_minus_hybrid_ = None
        else:
            d = self._position_gap()
            # unclipped: a rate below 0 stays with its interval (never [0, 0])
            self.eps_plus_hybrid_ = float((self.eps_sum_ - d) / 2.0)
            self.eps_minus_hybrid_ = float((self.eps_sum_ + d) / 2.0)
        self.observed_curve_ = full_curve
        self.weights_ = full_weights
        self.sizes_ = full_table.sizes
        self.synthetic_curve_ = full_table.curve(self.eps_plus_, self.eps_minus_)
        self.table_ = full_table
        self.n_ = int(full_table.n_max)
        self.n_contexts_ = len(obs.matrices)
        self.contexts_ = obs.contexts
        self.design_ = (obs.k_plus, obs.k_minus)
        self.judge_ = obs.judge
        self.eps_sum_boot_ = None
        if self.n_bootstrap > 0 and len(obs.matrices) >= MIN_BOOTSTRAP_CONTEXTS:
            curves, wts = context_bootstrap_curves(full_per_context, self.n_bootstrap, rng)
            vals = full_table.values.reshape(-1, full_table.values.shape[-1])
            ep_i, em_i = np.divmod(np.arange(vals.shape[0]), grid.size)
            sums = grid[ep_i] + grid[em_i]
            best = np.empty(curves.shape[0], dtype=np.int64)
            for b in range(curves.shape[0]):  # (G², n) per replicate: small
                best[b] = int(np.argmin((np.abs(vals - curves[b]) * wts[b]).sum(-1)))
            self.eps_sum_boot_ = sums[best]
        return self

    def _position_gap(self) -> float:
        """ε₋ − ε₊ from r₁: 2r₁ − 1, divided by 1 − τ when the table has ties (a tie is half a
        first-position win whoever is shown first, E[2r₁ − 1] = (1 − τ)(ε₋ − ε₊))."""
        if self.r1_ is None:
            return 0.0
        return (2.0 * self.r1_ - 1.0) / (1.0 - getattr(self, "tie_rate_", 0.0))

    def interval(self, quantity: str = "eps_sum", prob: float | None = None) -> tuple[float, float]:
        """Percentile bootstrap interval of ``"eps_sum"``, ``"eps_plus_hybrid"`` or
        ``"eps_minus_hybrid"`` (the sum split by r₁); NaNs without replicates.

        Parameters
        ----------
        quantity : str
        prob : float, optional
            Default :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time.

        Returns
        -------
        tuple of float
        """
        _check_fitted(self, "eps_sum_")
        prob = resolve_hdi_prob(prob)
        boot = self.eps_sum_boot_
        if boot is None:
            return math.nan, math.nan
        d = self._position_gap()
        if quantity == "eps_sum":
            return _percentile(boot, prob)
        if quantity == "eps_plus_hybrid":
            return _percentile((boot - d) / 2.0, prob)
        if quantity == "eps_minus_hybrid":
            return _percentile((boot + d) / 2.0, prob)
        raise ValueError(f"unknown quantity {quantity!r}")

    def to_inference_data(self) -> az.InferenceData:
        """One-chain, one-draw posterior with ``eps_plus`` and ``eps_minus`` (the paper's
        estimate); the caveat and ``eps_sum``/``eps_low``/``eps_high`` are in the attributes."""
        _check_fitted(self, "eps_plus_")
        return _point_idata(
            {"eps_plus": self.eps_plus_, "eps_minus": self.eps_minus_},
            {
                "method": "delta_s_2d_grid_fit",
                "judge": self.judge_,
                "identifiable": 0,
                "caveat": self.caveat_,
                "eps_sum": self.eps_sum_,
                "eps_low": self.eps_low_,
                "eps_high": self.eps_high_,
                "design": list(self.design_),
                "grid_step": self.grid_step,
            },
        )


def _point_idata(values: dict[str, float], attrs: dict[str, Any]) -> az.InferenceData:
    import arviz as az

    clean = {k: (json.dumps(v) if isinstance(v, list | dict) else v) for k, v in attrs.items()}
    clean["point_estimate"] = 1
    idata = az.from_dict(posterior={k: np.array([[v]]) for k, v in values.items()}, attrs=clean)
    idata.posterior.attrs.update(clean)
    return idata
