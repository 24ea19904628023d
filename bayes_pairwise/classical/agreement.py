"""Agreement between two score vectors (METHODS §6): Kendall τ-b, Kendall distance, Spearman ρ,
Pearson r.

Inputs are two pandas Series aligned **by label** (the label sets must be equal: a mismatch is a
:class:`~bayes_pairwise.errors.DataError` naming the labels), or two plain arrays of the same
length aligned by position. Mixing a Series with an array is refused, so a misaligned comparison
cannot happen silently.

* Kendall τ is **τ-b** (ties in either vector handled as in Kendall 1945, the default of
  ``scipy.stats.kendalltau``): τ_b = (C − D) / √((n₀ − n₁)(n₀ − n₂)), n₀ = n(n−1)/2, and
  n₁ / n₂ = the pairs tied in a / in b.
* Kendall distance K_D = (1 − τ_b)/2: the share of discordant pairs when there are no ties.
* Spearman ρ = Pearson r of the average ranks.
* Pearson r of the raw values.

A correlation that is undefined (n < 2, or a constant vector) is NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from bayes_pairwise.conventions import STRENGTH_TIE_RTOL
from bayes_pairwise.errors import DataError

__all__ = [
    "kendall_distance",
    "kendall_tau",
    "pearson_r",
    "rank_agreement",
    "spearman_rho",
    "tied_ranks",
]

ArrayOrSeries = pd.Series | np.ndarray | Sequence[float]


def _align(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a_ser, b_ser = isinstance(a, pd.Series), isinstance(b, pd.Series)
    if a_ser != b_ser:
        raise DataError(
            "pass two pandas Series (aligned by label) or two arrays (aligned by position), "
            "not one of each"
        )
    if a_ser:
        for name, s in (("first", a), ("second", b)):
            if s.index.has_duplicates:
                dup = s.index[s.index.duplicated()].unique().tolist()
                raise DataError(f"the {name} Series has duplicate labels: {dup[:10]}")
        only_a = a.index.difference(b.index)
        only_b = b.index.difference(a.index)
        if len(only_a) or len(only_b):
            raise DataError(
                "the two Series have different labels: only in the first "
                f"{only_a.tolist()[:10]}, only in the second {only_b.tolist()[:10]}"
            )
        x = a.to_numpy(dtype=float)
        y = b.reindex(a.index).to_numpy(dtype=float)
    else:
        x = np.asarray(a, dtype=float)
        y = np.asarray(b, dtype=float)
        if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
            raise DataError(f"the two arrays must be 1-D of equal length, got {x.shape}, {y.shape}")
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if bad.any():
        raise DataError(f"non-finite values at positions {np.flatnonzero(bad)[:10].tolist()}")
    return x, y


def _kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2:
        return float("nan")
    from scipy.stats import kendalltau

    # τ-b (Kendall 1945), O(n log n); NaN when either vector is constant
    return float(kendalltau(x, y, variant="b").statistic)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    denom = np.sqrt(np.sum(dx * dx) * np.sum(dy * dy))
    if denom == 0:
        return float("nan")
    return float(np.clip(np.sum(dx * dy) / denom, -1.0, 1.0))


def kendall_tau(
    a: ArrayOrSeries, b: ArrayOrSeries, *, tie_rtol: float = STRENGTH_TIE_RTOL
) -> float:
    """Kendall's τ-b between two score vectors.

    Parameters
    ----------
    a, b : Series (aligned by label) or arrays (aligned by position)
    tie_rtol : float
        Values of one vector closer than ``tie_rtol`` times its largest absolute value are
        ties (default :data:`~bayes_pairwise.conventions.STRENGTH_TIE_RTOL`, 1e-9: strengths
        equal but for rounding, as the leaderboards' agreement reads them; 0: only equal
        values), as in :func:`spearman_rho`.

    Returns
    -------
    float
        τ-b in [−1, 1]; NaN when undefined.

    Examples
    --------
    >>> round(kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]), 12)  # 5 concordant, 1 discordant pair
    0.666666666667
    >>> round(kendall_tau([1, 2, 3, 3 + 1e-15], [1, 2, 4, 3], tie_rtol=1e-9), 12)  # one tie
    0.912870929175
    """
    x, y = _align(a, b)
    return _kendall_tau_b(_snap_ties(x, tie_rtol), _snap_ties(y, tie_rtol))


def kendall_distance(
    a: ArrayOrSeries, b: ArrayOrSeries, *, tie_rtol: float = STRENGTH_TIE_RTOL
) -> float:
    """Kendall distance K_D = (1 − τ_b)/2 (the share of discordant pairs without ties);
    ``tie_rtol`` as in :func:`kendall_tau`.

    Examples
    --------
    >>> round(kendall_distance([1, 2, 3, 4], [1, 3, 2, 4]), 12)
    0.166666666667
    """
    return (1.0 - kendall_tau(a, b, tie_rtol=tie_rtol)) / 2.0


def _snap_ties(v: np.ndarray, rtol: float) -> np.ndarray:
    """``v`` with runs of sorted values less than ``rtol · max|v|`` apart set to one value."""
    if rtol <= 0 or v.size < 2:
        return v
    scale = float(np.max(np.abs(v))) or 1.0
    order = np.argsort(v, kind="stable")
    sv = v[order]
    group = np.concatenate([[0], np.cumsum(np.diff(sv) > rtol * scale)])
    out = np.empty_like(v)
    out[order] = sv[np.searchsorted(group, group)]  # each run takes its first value
    return out


def tied_ranks(values: ArrayOrSeries, *, tie_rtol: float = STRENGTH_TIE_RTOL) -> np.ndarray:
    """Competition ranks ("1, 2, 2, 4"; 1 the largest value) with values closer than
    ``tie_rtol`` times the largest absolute value tied, as :func:`kendall_tau` ties them.
    Items with the same record (a cycle a > b > c > a, or two systems with the same wins
    against the same opponents) have equal strengths but for the last bits of the fit, and a
    leaderboard ranked them 1, 2, 3 by those bits.

    Examples
    --------
    >>> tied_ranks(np.array([0.5, 1e-17, 0.0, -1e-17, -0.5])).tolist()
    [1, 2, 2, 2, 5]
    """
    v = np.asarray(values, dtype=float)
    return rankdata(-_snap_ties(v, tie_rtol), method="min").astype(np.int64)


def spearman_rho(
    a: ArrayOrSeries, b: ArrayOrSeries, *, tie_rtol: float = STRENGTH_TIE_RTOL
) -> float:
    """Spearman's ρ: Pearson's r of the average ranks.

    Parameters
    ----------
    a, b : Series (aligned by label) or arrays (aligned by position)
    tie_rtol : float
        Values of one vector closer than ``tie_rtol`` times its largest absolute value are
        ties (default :data:`~bayes_pairwise.conventions.STRENGTH_TIE_RTOL`; 0: only equal
        values). Estimates solved to a tolerance — two items with
        the same record in an iterative fit — are then ranked alike on every machine, not by
        the last bits of the arithmetic.

    Examples
    --------
    >>> spearman_rho([1, 2, 3, 4], [10, 20, 40, 30])
    0.8
    >>> spearman_rho([1, 2, 3, 3 + 1e-15], [1, 2, 4, 3], tie_rtol=0), spearman_rho(
    ...     [1, 2, 3, 3 + 1e-15], [1, 2, 4, 3])
    (0.8, 0.9486832980505138)
    """
    x, y = _align(a, b)
    return _pearson(rankdata(_snap_ties(x, tie_rtol)), rankdata(_snap_ties(y, tie_rtol)))


def pearson_r(a: ArrayOrSeries, b: ArrayOrSeries) -> float:
    """Pearson's product-moment correlation r.

    Examples
    --------
    >>> round(pearson_r([1, 2, 3], [2, 4, 7]), 6)
    0.993399
    """
    return _pearson(*_align(a, b))


def rank_agreement(
    a: ArrayOrSeries, b: ArrayOrSeries, *, tie_rtol: float = STRENGTH_TIE_RTOL
) -> pd.Series:
    """All four agreement measures at once.

    Parameters
    ----------
    a, b : Series (aligned by label) or arrays (aligned by position)
    tie_rtol : float
        Near-ties for the rank measures (τ-b, its distance, Spearman ρ), as in
        :func:`spearman_rho`; Pearson's r uses the values as given.

    Returns
    -------
    pandas.Series
        ``kendall_tau`` (τ-b), ``kendall_distance``, ``spearman_rho``, ``pearson_r``, ``n``.

    Raises
    ------
    DataError
        Different label sets, duplicate labels, unequal lengths, non-finite values.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.Series({"x": 3.0, "y": 2.0, "z": 1.0})
    >>> b = pd.Series({"z": 0.1, "x": 0.9, "y": 0.5})    # same order, different label order
    >>> rank_agreement(a, b)[["kendall_tau", "kendall_distance", "spearman_rho"]].tolist()
    [1.0, 0.0, 1.0]
    """
    x, y = _align(a, b)
    xs, ys = _snap_ties(x, tie_rtol), _snap_ties(y, tie_rtol)
    tau = _kendall_tau_b(xs, ys)
    return pd.Series(
        {
            "kendall_tau": tau,
            "kendall_distance": (1.0 - tau) / 2.0,
            "spearman_rho": _pearson(rankdata(xs), rankdata(ys)),
            "pearson_r": _pearson(x, y),
            "n": float(x.size),
        },
        name="agreement",
    )
