"""Elo ratings (in data order, or shuffled and averaged) and win rates (METHODS §6).

Elo (seeds 003/004): for a verdict between i (shown first) and j, the expected score of i is
E = 1 / (1 + base^((R_j − R_i)/scale)); with S = 1 (i won), 0 (j won) or ½ (tie),
R_i ← R_i + K(S − E) and R_j ← R_j − K(S − E), both from the ratings *before* the verdict.
Defaults K = 32, start 1500, scale 400, base 10. Verdicts are processed in data order, so the
result depends on the order; :func:`shuffle_and_average` averages over random orders.

evalica's conventions (``evalica.elo``, checked against its golden scores in the tests): the same
simultaneous update with ``initial=1000``, ``base=10``, ``scale=400``, ``k=4``, a tie scoring ½ for
both, raw ratings (no normalisation). ``Elo(k=4, initial=1000)`` reproduces them.

Win rates: :func:`win_rate` = wins / games (ties count half); :func:`average_win_rate` = the mean
over opponents of the per-opponent win rate (evalica's ``average_win_rate``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise.classical.bradley_terry import EstimatorBase, resolve_win_matrix
from bayes_pairwise.errors import DataError

if TYPE_CHECKING:
    from bayes_pairwise.data import Comparisons

__all__ = [
    "Elo",
    "average_win_rate",
    "average_win_rate_from_matrix",
    "elo_ratings",
    "elo_ratings_shuffled",
    "elo_scores",
    "shuffle_and_average",
    "win_rate",
    "win_rate_from_matrix",
]


def _verdict_arrays(
    first: Any, second: Any, outcome: Any, n_items: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    f = np.asarray(first, dtype=np.int64)
    s = np.asarray(second, dtype=np.int64)
    o = np.asarray(outcome, dtype=float)
    if not (f.shape == s.shape == o.shape) or f.ndim != 1:
        raise DataError("first, second and outcome must be 1-D arrays of the same length")
    if np.any((o < 0) | (o > 1)) or not np.all(np.isfinite(o)):
        raise DataError("outcomes must lie in [0, 1]")
    n = int(n_items) if n_items is not None else int(max(f.max(initial=-1), s.max(initial=-1)) + 1)
    if f.size and (min(f.min(), s.min()) < 0 or max(f.max(), s.max()) >= n):
        raise DataError(f"item indexes must lie in [0, {n})")
    return f, s, o, n


def _verdict_weights(weights: Any, size: int) -> np.ndarray:
    if weights is None:
        return np.ones(size)
    w = np.asarray(weights, dtype=float)
    if w.shape != (size,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise DataError(f"weights must be {size} finite numbers >= 0")
    return w


def elo_ratings(
    first: Any,
    second: Any,
    outcome: Any,
    n_items: int | None = None,
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    base: float = 10.0,
    weights: Any = None,
) -> np.ndarray:
    """Elo ratings after processing the verdicts once, in the given order.

    Parameters
    ----------
    first, second : array of int
        Item index shown first / second.
    outcome : array of float
        1 = first won, 0 = second won, 0.5 = tie.
    n_items : int, optional
        Number of items (default ``max index + 1``).
    k, initial, scale, base : float
        K-factor, starting rating, scale and base of E = 1/(1 + base^((R_j − R_i)/scale)).
    weights : array of float, optional
        Per-verdict weights (evalica / arena style): a verdict of weight w moves the ratings
        w·K·(S − E); weight 0 leaves them unchanged.

    Returns
    -------
    ndarray, shape (n_items,)

    Examples
    --------
    >>> elo_ratings([0], [1], [1.0]).tolist()   # one win between equals moves K/2 each way
    [1516.0, 1484.0]
    >>> elo_ratings([0, 1], [1, 0], [1.0, 0.5], k=4, initial=1000).round(4).tolist()
    [1001.977, 998.023]
    >>> elo_ratings([0, 1], [1, 0], [1.0, 0.5], k=4, initial=1000, weights=[2.0, 0.0]).tolist()
    [1004.0, 996.0]
    """
    f, s, o, n = _verdict_arrays(first, second, outcome, n_items)
    w = _verdict_weights(weights, f.size)
    r = [float(initial)] * n
    k, scale, base = float(k), float(scale), float(base)
    for a, b, out, wt in zip(f.tolist(), s.tolist(), o.tolist(), w.tolist(), strict=True):
        d = wt * k * (out - 1.0 / (1.0 + base ** ((r[b] - r[a]) / scale)))
        r[a] += d
        r[b] -= d
    return np.array(r)


def elo_ratings_shuffled(
    first: Any,
    second: Any,
    outcome: Any,
    n_items: int | None = None,
    *,
    n_shuffles: int = 100,
    random_seed: int | np.random.Generator | None = None,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    base: float = 10.0,
    progress: bool = False,
    weights: Any = None,
) -> np.ndarray:
    """Elo ratings for ``n_shuffles`` random orders of the verdicts (vectorised across orders).

    Parameters
    ----------
    first, second, outcome, n_items, k, initial, scale, base, weights
        As in :func:`elo_ratings`.
    n_shuffles : int
        Number of random permutations.
    random_seed : int or Generator, optional
        Seed for the permutations.
    progress : bool
        Report progress on stderr.

    Returns
    -------
    ndarray, shape (n_shuffles, n_items)

    Examples
    --------
    >>> r = elo_ratings_shuffled([0, 1, 0], [1, 2, 2], [1.0, 1.0, 0.0], n_shuffles=4,
    ...                          random_seed=0)
    >>> r.shape, bool(np.allclose(r.sum(axis=1), 3 * 1500))
    ((4, 3), True)
    """
    f, s, o, n = _verdict_arrays(first, second, outcome, n_items)
    w = _verdict_weights(weights, f.size)
    rng = np.random.default_rng(random_seed)
    t_len = f.size
    out = np.full((n_shuffles, n), float(initial))
    chunk = max(1, min(n_shuffles, 20_000_000 // max(1, t_len)))
    for start in range(0, n_shuffles, chunk):
        stop = min(n_shuffles, start + chunk)
        perm = rng.permuted(np.tile(np.arange(t_len), (stop - start, 1)), axis=1)
        r = out[start:stop]
        rows = np.arange(stop - start)
        for t in range(t_len):
            idx = perm[:, t]
            a, b = f[idx], s[idx]
            d = w[idx] * k * (o[idx] - 1.0 / (1.0 + base ** ((r[rows, b] - r[rows, a]) / scale)))
            r[rows, a] += d
            r[rows, b] -= d
        if progress:
            print(f"Elo shuffle-and-average: {stop}/{n_shuffles} orders", file=sys.stderr)
    return out


def _require_comparisons(data: Any) -> Comparisons:
    from bayes_pairwise.data import Comparisons

    if not isinstance(data, Comparisons):
        raise TypeError(
            "Elo needs the verdicts in order: pass a Comparisons (see load_comparisons); "
            "for arrays use elo_ratings"
        )
    return data


def elo_scores(
    data: Comparisons,
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    base: float = 10.0,
) -> pd.Series:
    """Elo ratings of a comparison log, verdicts processed in data order.

    Parameters
    ----------
    data : Comparisons
        Ties (kept under ``ties="half"``) score ½ for both items; a verdict of weight w
        (``load_comparisons(weights=…)``) moves the ratings w times as far.
    k, initial, scale, base : float
        See :func:`elo_ratings`.

    Returns
    -------
    pandas.Series
        Rating by item label, named ``"elo"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "c"],
    ...                    "outcome": ["first", "first"]})
    >>> elo_scores(load_comparisons(df)).round(2).to_dict()
    {'a': 1516.0, 'b': 1500.74, 'c': 1483.26}
    """
    data = _require_comparisons(data)
    r = elo_ratings(
        data.first,
        data.second,
        data.outcome,
        data.n_items,
        k=k,
        initial=initial,
        scale=scale,
        base=base,
        weights=data.weight,
    )
    return pd.Series(r, index=pd.Index(data.items, name="item"), name="elo")


def shuffle_and_average(
    data: Comparisons,
    n_shuffles: int = 100,
    random_seed: int | np.random.Generator | None = None,
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    base: float = 10.0,
    progress: bool = False,
) -> pd.DataFrame:
    """Elo averaged over random orders of the verdicts (removes the order dependence).

    Parameters
    ----------
    data : Comparisons
        The comparison log.
    n_shuffles : int
        Number of random orders.
    random_seed : int or Generator, optional
        Seed for the orders.
    k, initial, scale, base : float
        See :func:`elo_ratings`.
    progress : bool
        Report progress on stderr.

    Returns
    -------
    pandas.DataFrame
        Index: item label; columns ``mean`` and ``std`` (over the orders).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "c", "c"],
    ...                    "outcome": ["first", "first", "first"]})
    >>> res = shuffle_and_average(load_comparisons(df), n_shuffles=50, random_seed=0)
    >>> list(res.columns), bool(res["mean"].is_monotonic_decreasing)
    (['mean', 'std'], True)
    """
    data = _require_comparisons(data)
    r = elo_ratings_shuffled(
        data.first,
        data.second,
        data.outcome,
        data.n_items,
        n_shuffles=n_shuffles,
        random_seed=random_seed,
        k=k,
        initial=initial,
        scale=scale,
        base=base,
        progress=progress,
        weights=data.weight,
    )
    return pd.DataFrame(
        {"mean": r.mean(axis=0), "std": r.std(axis=0, ddof=1) if n_shuffles > 1 else np.nan},
        index=pd.Index(data.items, name="item"),
    )


class Elo(EstimatorBase):
    """Elo ratings (sklearn style), in data order or shuffled and averaged.

    Parameters
    ----------
    k, initial, scale, base : float
        K-factor (32), starting rating (1500), scale (400) and base (10).
    n_shuffles : int
        0 = process the verdicts once in data order; > 0 = average over that many random orders.
    random_seed : int, optional
        Seed for the orders.

    Attributes
    ----------
    ratings_ : pandas.Series
        Rating by item (the mean over orders when ``n_shuffles > 0``).
    ratings_std_ : pandas.Series or None
        Standard deviation over orders (None when ``n_shuffles == 0``).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a"], "second": ["b"], "outcome": ["first"]})
    >>> Elo().fit(load_comparisons(df)).ratings_.to_dict()
    {'a': 1516.0, 'b': 1484.0}
    """

    def __init__(
        self,
        k: float = 32.0,
        initial: float = 1500.0,
        scale: float = 400.0,
        base: float = 10.0,
        n_shuffles: int = 0,
        random_seed: int | None = None,
    ) -> None:
        self.k = k
        self.initial = initial
        self.scale = scale
        self.base = base
        self.n_shuffles = n_shuffles
        self.random_seed = random_seed

    def fit(self, data: Comparisons) -> Elo:
        """Compute the ratings.

        Parameters
        ----------
        data : Comparisons

        Returns
        -------
        self
        """
        kw = {"k": self.k, "initial": self.initial, "scale": self.scale, "base": self.base}
        if self.n_shuffles:
            res = shuffle_and_average(data, self.n_shuffles, self.random_seed, **kw)
            self.ratings_ = res["mean"].rename("elo")
            self.ratings_std_ = res["std"].rename("elo_std")
        else:
            self.ratings_ = elo_scores(data, **kw)
            self.ratings_std_ = None
        self.tie_policy_ = data.tie_policy
        return self

    def __call__(self, data: Comparisons) -> pd.Series:
        """Ratings of a fresh fit on ``data`` (for :func:`bootstrap`; the instance is unchanged)."""
        return type(self)(**self._settings()).fit(data).ratings_


# --------------------------------------------------------------------------- win rates
def win_rate_from_matrix(x: np.ndarray) -> np.ndarray:
    """Wins / games per item from a win-count matrix (NaN for an item with no games).

    Examples
    --------
    >>> import numpy as np
    >>> win_rate_from_matrix(np.array([[0, 3.0], [1.0, 0]])).tolist()
    [0.75, 0.25]
    """
    x = np.asarray(x, dtype=float)
    games = x.sum(axis=1) + x.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, x.sum(axis=1) / games, np.nan)


def average_win_rate_from_matrix(x: np.ndarray) -> np.ndarray:
    """Mean over the opponents an item met of its win rate against each (evalica's
    ``average_win_rate``; NaN for an item with no games, where evalica reports 0).

    Examples
    --------
    >>> import numpy as np
    >>> average_win_rate_from_matrix(np.array([[0, 3, 0], [1, 0, 1], [2, 1, 0.0]])).tolist()
    [0.375, 0.375, 0.75]
    """
    x = np.asarray(x, dtype=float)
    games = x + x.T
    met = games > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(met, x / games, 0.0)
        return np.where(met.any(axis=1), rate.sum(axis=1) / met.sum(axis=1), np.nan)


def win_rate(data: Comparisons | pd.DataFrame | np.ndarray) -> pd.Series:
    """Share of its verdicts each item won (ties count half).

    Parameters
    ----------
    data : Comparisons, DataFrame or ndarray
        A comparison log or a win-count matrix.

    Returns
    -------
    pandas.Series
        By item label, named ``"win_rate"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "a", "b"], "second": ["b", "b", "a"],
    ...                    "outcome": ["first", "tie", "first"]})
    >>> win_rate(load_comparisons(df, ties="half")).to_dict()
    {'a': 0.5, 'b': 0.5}
    """
    x, labels, _ = resolve_win_matrix(data)
    return pd.Series(win_rate_from_matrix(x), index=pd.Index(labels, name="item"), name="win_rate")


def average_win_rate(data: Comparisons | pd.DataFrame | np.ndarray) -> pd.Series:
    """Mean over opponents of the per-opponent win rate (ties count half), as evalica.

    Parameters
    ----------
    data : Comparisons, DataFrame or ndarray
        A comparison log or a win-count matrix.

    Returns
    -------
    pandas.Series
        By item label, named ``"average_win_rate"``.

    Examples
    --------
    >>> import numpy as np
    >>> average_win_rate(np.array([[0, 3, 0], [1, 0, 1], [2, 1, 0.0]])).tolist()
    [0.375, 0.375, 0.75]
    """
    x, labels, _ = resolve_win_matrix(data)
    return pd.Series(
        average_win_rate_from_matrix(x),
        index=pd.Index(labels, name="item"),
        name="average_win_rate",
    )


# The bootstrap's fast path: these statistics depend on the data only through the win matrix.
win_rate.from_win_matrix = win_rate_from_matrix  # type: ignore[attr-defined]
average_win_rate.from_win_matrix = average_win_rate_from_matrix  # type: ignore[attr-defined]
