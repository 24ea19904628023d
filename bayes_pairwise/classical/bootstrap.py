"""Percentile bootstrap confidence intervals for any estimator (METHODS §6).

The unit resampled is the **verdict** (one row of the comparison log), drawn with replacement,
and the estimator is refitted on every replicate. Two equivalent ways to draw:

* ``"rows"`` — resample verdict rows and call the estimator on the resampled log (works for any
  estimator, including order-dependent ones such as Elo: a replicate is a random order too).
* ``"multinomial"`` — for estimators that depend on the data only through the win-count matrix
  (they say so by having a ``from_win_matrix(X)`` method or attribute, like
  :class:`~bayes_pairwise.classical.bradley_terry.BradleyTerry`,
  :func:`~bayes_pairwise.classical.elo.win_rate`), the log is aggregated once into a table of
  verdict types — (unordered pair, "i won" / "j won" / "tie") — and a replicate is one multinomial
  draw of the n verdicts over that table. This has exactly the distribution of row resampling
  followed by aggregation, at a fraction of the cost.

``method="auto"`` picks ``"multinomial"`` when the estimator allows it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.errors import BayesPairwiseError, user_stacklevel
from bayes_pairwise.progress import Ticker

if TYPE_CHECKING:
    from bayes_pairwise.data import Comparisons

__all__ = ["bootstrap", "percentile_interval"]

Method = Literal["auto", "rows", "multinomial"]


def percentile_interval(replicates: np.ndarray, ci: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile bounds of bootstrap replicates (NaN replicates ignored).

    Parameters
    ----------
    replicates : ndarray, shape (n_boot,) or (n_boot, p)
    ci : float
        Coverage in (0, 1).

    Returns
    -------
    (lower, upper) : tuple of ndarray

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = percentile_interval(np.arange(101.0), ci=0.9)
    >>> round(float(lo), 9), round(float(hi), 9)
    (5.0, 95.0)
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must lie in (0, 1), got {ci}")
    alpha = (1.0 - ci) / 2.0
    lo, hi = np.nanquantile(np.asarray(replicates, dtype=float), [alpha, 1.0 - alpha], axis=0)
    return lo, hi


def _as_series(value: Any) -> pd.Series:
    if isinstance(value, pd.Series):
        return value.astype(float)
    if isinstance(value, Mapping):
        return pd.Series({str(k): float(v) for k, v in value.items()}, dtype=float)
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return pd.Series([float(arr)], index=["value"], dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"the estimator must return a scalar or a 1-D result, got {arr.shape}")
    return pd.Series(arr, dtype=float)


def _take_rows(data: Any, idx: np.ndarray) -> Any:
    from bayes_pairwise.data import Comparisons

    if isinstance(data, Comparisons):
        return data._take(idx)
    if isinstance(data, pd.DataFrame):
        return data.iloc[idx].reset_index(drop=True)
    raise TypeError("bootstrap needs a Comparisons or a DataFrame (one row per verdict)")


def _n_rows(data: Any) -> int:
    from bayes_pairwise.data import Comparisons

    if isinstance(data, Comparisons):
        return data.n_comparisons
    if isinstance(data, pd.DataFrame):
        return len(data)
    raise TypeError("bootstrap needs a Comparisons or a DataFrame (one row per verdict)")


class _VerdictTable:
    """Verdict types (unordered pair, i won / j won / tie) with counts, for multinomial draws."""

    def __init__(self, data: Comparisons) -> None:
        n_items = data.n_items
        f = np.asarray(data.first, dtype=np.int64)
        s = np.asarray(data.second, dtype=np.int64)
        o = np.asarray(data.outcome, dtype=float)
        lo, hi = np.minimum(f, s), np.maximum(f, s)
        lo_score = np.where(f == lo, o, 1.0 - o)  # 1 = lo won, 0 = hi won, 0.5 = tie
        kind = np.select([lo_score == 1.0, lo_score == 0.0], [0, 1], 2)
        code = (lo * n_items + hi) * 3 + kind
        uniq, counts = np.unique(code, return_counts=True)
        pair, kind = np.divmod(uniq, 3)
        a, b = np.divmod(pair, n_items)  # a < b
        cell_ab, cell_ba = a * n_items + b, b * n_items + a
        # each verdict type adds w_ab to x_ab and w_ba to x_ba
        self.w_ab = np.select([kind == 0, kind == 1], [1.0, 0.0], 0.5)
        self.w_ba = 1.0 - self.w_ab
        self.cell_ab, self.cell_ba = cell_ab, cell_ba
        self.counts = counts
        self.n = int(counts.sum())
        self.n_items = n_items

    def matrix(self, draw: np.ndarray) -> np.ndarray:
        size = self.n_items * self.n_items
        x = np.bincount(self.cell_ab, draw * self.w_ab, size) + np.bincount(
            self.cell_ba, draw * self.w_ba, size
        )
        return x.reshape(self.n_items, self.n_items)


def bootstrap(
    data: Comparisons | pd.DataFrame,
    estimator: Callable[[Any], Any],
    n_boot: int = 1000,
    ci: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    progress: bool = False,
    *,
    method: Method = "auto",
    on_error: Literal["raise", "skip"] = "raise",
    return_replicates: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Percentile bootstrap CIs: resample verdicts with replacement and refit.

    Parameters
    ----------
    data : Comparisons or DataFrame
        The comparison log (a DataFrame is resampled by rows and passed to the estimator as is).
    estimator : callable
        ``estimator(data)`` returns a scalar, a 1-D array, a pandas Series or a mapping (one CI per
        entry). Estimator objects of this package are callable (e.g. ``BradleyTerry(ridge=0.1)``,
        ``Elo()``); if it also has ``from_win_matrix(X)`` — returning the same quantities, in the
        same order, from the N × N win-count matrix over ``data.items`` — the fast multinomial path
        is available.
    n_boot : int
        Number of bootstrap replicates.
    ci : float
        Coverage of the percentile interval.
    random_seed : int or Generator, optional
        Seed; the same seed gives the same intervals.
    progress : bool
        Report progress on stderr.
    method : {"auto", "rows", "multinomial"}
        How replicates are drawn (see the module docstring).
    on_error : {"raise", "skip"}
        A replicate whose fit fails with a package error (e.g. a resample that disconnects the
        comparison graph for Bradley–Terry with ``ridge=0``): re-raise, or skip it (counted in
        ``attrs["n_failed"]`` and warned about; more than half failing is an error).
    return_replicates : bool
        Also return the replicates (DataFrame, one row per replicate).

    Returns
    -------
    pandas.DataFrame
        One row per estimated quantity (item label, or ``"value"`` for a scalar); columns
        ``estimate`` (on the full data), ``lower``, ``upper``, ``std_error``. ``attrs`` records
        ``n_boot``, ``ci``, ``method``, ``n_failed``, ``random_seed``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.classical.elo import win_rate
    >>> df = pd.DataFrame({"first": ["a", "b"] * 50, "second": ["b", "a"] * 50,
    ...                    "outcome": ["first"] * 70 + ["second"] * 30})
    >>> res = bootstrap(load_comparisons(df), win_rate, n_boot=500, random_seed=1)
    >>> list(res.columns), res.attrs["method"]
    (['estimate', 'lower', 'upper', 'std_error'], 'multinomial')
    >>> bool(res.loc["a", "lower"] < res.loc["a", "estimate"] < res.loc["a", "upper"])
    True
    """
    from bayes_pairwise.data import Comparisons

    if method not in ("auto", "rows", "multinomial"):
        raise ValueError(f"method must be 'auto', 'rows' or 'multinomial', got {method!r}")
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1")
    fast = getattr(estimator, "from_win_matrix", None)
    can_fast = fast is not None and isinstance(data, Comparisons)
    if method == "multinomial" and not can_fast:
        raise ValueError(
            "method='multinomial' needs a Comparisons and an estimator with from_win_matrix"
        )
    use_fast = can_fast and method in ("auto", "multinomial")
    rng = np.random.default_rng(random_seed)

    estimate = _as_series(estimator(data))
    p = len(estimate)
    reps = np.full((n_boot, p), np.nan)
    failed = 0
    tick = Ticker(n_boot, label="bootstrap:", on=progress)

    def record(b: int, fn: Callable[[], Any]) -> None:
        nonlocal failed
        try:
            value = fn()
        except BayesPairwiseError as err:
            if on_error == "raise":
                raise type(err)(
                    f"bootstrap replicate {b} failed: {err} (pass on_error='skip' to skip such "
                    "replicates, or regularise the estimator)"
                ) from err
            failed += 1
            return
        if use_fast:
            arr = np.atleast_1d(np.asarray(value, dtype=float))
        else:
            s = _as_series(value)
            if not s.index.equals(estimate.index):
                if len(s) != p or set(s.index) != set(estimate.index):
                    raise ValueError(
                        f"replicate {b}: the estimator returned labels {list(s.index)[:10]}, "
                        f"expected {list(estimate.index)[:10]}"
                    )
                s = s.reindex(estimate.index)
            arr = s.to_numpy(dtype=float)
        if arr.shape != (p,):
            raise ValueError(
                f"replicate {b}: the estimator returned {arr.shape[0]} values, expected {p}"
            )
        reps[b] = arr

    if use_fast:
        table = _VerdictTable(data)
        probs = table.counts / table.n
        chunk = max(1, 5_000_000 // max(1, probs.size))
        b = 0
        while b < n_boot:
            draws = rng.multinomial(table.n, probs, size=min(chunk, n_boot - b))
            for draw in draws:
                record(b, lambda d=draw: fast(table.matrix(d)))
                b += 1
                tick(b)
    else:
        n = _n_rows(data)
        for b in range(n_boot):
            idx = rng.integers(0, n, size=n)
            record(b, lambda i=idx: estimator(_take_rows(data, i)))
            tick(b + 1)

    if failed:
        if failed > n_boot / 2:
            raise BayesPairwiseError(
                f"{failed} of {n_boot} bootstrap replicates failed; the intervals would be "
                "meaningless (regularise the estimator)"
            )
        warnings.warn(
            f"{failed} of {n_boot} bootstrap replicates failed and were skipped; the intervals "
            "condition on the replicates that could be fitted",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    lower, upper = percentile_interval(reps, ci)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(reps, axis=0, ddof=1) if n_boot > 1 else np.full(p, np.nan)
    out = pd.DataFrame(
        {"estimate": estimate.to_numpy(), "lower": lower, "upper": upper, "std_error": se},
        index=estimate.index,
    )
    out.attrs = {
        "n_boot": int(n_boot),
        "ci": float(ci),
        "method": "multinomial" if use_fast else "rows",
        "n_failed": int(failed),
        "random_seed": random_seed if isinstance(random_seed, int | None) else "Generator",
    }
    if return_replicates:
        return out, pd.DataFrame(reps, columns=estimate.index)
    return out
