"""Leaderboards: items ranked by strength, with intervals and rank probabilities (issue 9).

:func:`leaderboard` ranks the items of one judge (FastChat style): every item gets its rank, its
strength with an interval (``lower``, ``upper``), the probability of being ranked first
(``p_rank_1``), an equal-tailed rank interval (``rank_lower``, ``rank_upper``) and the full
distribution P(rank = k) (:attr:`Leaderboard.rank_probabilities`). Two families of models:

* ``model="bt"`` — classical Bradley–Terry (MM, Hunter 2004) with a nonparametric bootstrap. The
  unit resampled is the **verdict**, or the **context** (question / prompt) when the data have
  contexts, so that verdicts on the same question move together. Ties follow the data's tie
  policy (under ``ties="half"`` a tie is half a win each way).
* ``model="uniform" | "positional" | "biased_bt"`` — the Bayesian judge-error models of
  :mod:`bayes_pairwise.pymc_models`: the strengths are those of the fitted model, i.e. with the
  judge's error rates (ε, or ε₊/ε₋, or the position shift γ) integrated out — the
  *judge-error-aware* ranking. Intervals are posterior HDIs; rank probabilities are the shares of
  posterior draws. A MAP fit is a point estimate: it has no interval and no rank probabilities
  (NaN, and a note says so); use ``method="nuts"`` for them.

Items grouped by context (PRD: ``"question::model"``) are ranked as systems with
``group_by="name"`` (the part after ``::``, via :meth:`Comparisons.pool_contexts`) or with an
explicit item → group mapping.

:func:`rank_probability_data` returns the numbers behind a rank-probability heat map;
:func:`bayes_pairwise.plots.plot_rank_probabilities` draws it (this module draws nothing).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.classical.agreement import tied_ranks
from bayes_pairwise.conventions import (
    LEADERBOARD_N_BOOT,
    STRENGTH_TIE_RTOL,
    name_list,
    resolve_hdi_prob,
)
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import BayesPairwiseError, ConvergenceWarning, DesignError
from bayes_pairwise.progress import Ticker

__all__ = [
    "MODELS",
    "Leaderboard",
    "judge_agreement",
    "judge_leaderboards",
    "leaderboard",
    "rank_grouping",
    "rank_probability_data",
    "rank_statistics",
    "ranking_leaderboard",
]

#: Models a leaderboard can be built from: classical Bradley–Terry and the Bayesian error models.
MODELS = ("bt", "uniform", "positional", "biased_bt")
_BAYES_MODELS = ("uniform", "positional", "biased_bt")
#: Columns of :attr:`Leaderboard.table`, in order.
COLUMNS = ("item", "rank", "strength", "lower", "upper", "p_rank_1", "rank_lower", "rank_upper")

GroupBy = Literal["name"] | Mapping[str, str] | Callable[[str], str] | None


def rank_grouping(data: Comparisons) -> tuple[str | None, str]:
    """How a log's items are ranked when nothing is said: ``(group_by, note)``.

    ``(None, "")`` for one context (rank the items); ``("name", note)`` where item names recur
    in several contexts (PRD's ``"question::model"`` items: rank the answer models, resampling
    whole contexts); ``("skip", why)`` where items live in separate contexts and fewer than two
    names recur, so nothing can be ranked across them. The one rule of the cross-check's
    leaderboards and of ``leaderboard`` without ``--group-by``.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> rank_grouping(bp.datasets.load("prd_vicuna80"))[0]
    'name'
    >>> rank_grouping(bp.simulate_round_robin(5, random_seed=0).data)
    (None, '')
    """
    if not data.has_contexts:
        return None, ""
    ctx = np.asarray(data.item_context)
    names = pd.Series(ctx).groupby(np.asarray(data.item_names, dtype=object)).nunique()
    if int((names > 1).sum()) < 2:
        return "skip", (
            f"no leaderboard: the items live in {data.n_contexts} separate contexts and fewer "
            "than two item names recur across contexts, so their strengths are not comparable "
            "and there is nothing to rank across contexts"
        )
    return "name", (
        f"items ranked by name across {data.n_contexts} contexts (e.g. the answer models of "
        f"'question::model' items: {int((names > 1).sum())} names recur in several contexts); "
        "the bootstrap resamples whole contexts"
    )


# --------------------------------------------------------------------------- result
class Leaderboard:
    """A ranking of items with strength intervals and rank probabilities (immutable).

    Build it with :func:`leaderboard`. ``table`` and ``rank_probabilities`` return copies, so the
    result cannot be changed after the fact.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per item, strongest first, columns ``item, rank, strength, lower, upper,
        p_rank_1, rank_lower, rank_upper``. ``rank`` is the position by ``strength`` (1 =
        strongest); ``rank_lower``/``rank_upper`` bound the equal-tailed ``hdi_prob`` interval of
        the rank distribution (1 is the best possible rank).
    rank_probabilities : pandas.DataFrame
        P(rank = k): one row per item (table order), one column per rank k = 1 … n_items; rows
        sum to 1 (all NaN for a MAP fit).
    model, method : str
        ``"bt"`` with ``"bootstrap"``, or a Bayesian model with ``"map"``/``"nuts"``.
    judge : str or None
        The judge ranked (None: data without a judge column, or all judges jointly for a
        Bayesian model).
    group_by : str or None
        ``"name"``, ``"mapping"`` or None.
    hdi_prob : float
        Coverage of the strength interval and of the rank interval.
    interval : str
        How ``lower``/``upper`` were computed, in words.
    n_draws : int
        Bootstrap replicates or posterior draws behind the interval (1 for MAP).
    notes : tuple of str
        Caveats (ridge used, ties dropped, replicates refitted, …).
    settings : dict
        What was asked for and used (ridge, n_boot, resampling unit, random_seed, …).
    data_summary : dict
        Verdicts, ties and source of the data ranked.
    strength_draws : pandas.DataFrame or None
        The bootstrap replicates or posterior draws of the strengths (one row per draw, one
        column per item, table order; a copy), or None for a MAP fit.
    """

    __slots__ = (
        "_rank_probabilities",
        "_strength_draws",
        "_table",
        "data_summary",
        "group_by",
        "hdi_prob",
        "interval",
        "judge",
        "method",
        "model",
        "n_draws",
        "notes",
        "settings",
    )

    def __init__(
        self,
        *,
        table: pd.DataFrame,
        rank_probabilities: pd.DataFrame,
        model: str,
        method: str,
        judge: str | None,
        group_by: str | None,
        hdi_prob: float,
        interval: str,
        n_draws: int,
        notes: tuple[str, ...],
        settings: Mapping[str, Any],
        data_summary: Mapping[str, Any],
        strength_draws: pd.DataFrame | None = None,
    ) -> None:
        values = {
            "_strength_draws": None if strength_draws is None else strength_draws.copy(),
            "_table": table.copy(),
            "_rank_probabilities": rank_probabilities.copy(),
            "model": model,
            "method": method,
            "judge": judge,
            "group_by": group_by,
            "hdi_prob": float(hdi_prob),
            "interval": interval,
            "n_draws": int(n_draws),
            "notes": tuple(notes),
            "settings": dict(settings),
            "data_summary": dict(data_summary),
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Leaderboard is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Leaderboard is immutable: cannot delete {name!r}")

    @property
    def table(self) -> pd.DataFrame:
        """The leaderboard, strongest first (a copy)."""
        return self._table.copy()

    @property
    def rank_probabilities(self) -> pd.DataFrame:
        """P(rank = k), items (table order) × ranks 1 … n (a copy)."""
        return self._rank_probabilities.copy()

    @property
    def strength_draws(self) -> pd.DataFrame | None:
        """Strength replicates / posterior draws, draws × items in table order (a copy)."""
        return None if self._strength_draws is None else self._strength_draws.copy()

    @property
    def items(self) -> tuple[str, ...]:
        """Item labels, strongest first."""
        return tuple(self._table["item"])

    @property
    def n_items(self) -> int:
        """Number of items ranked."""
        return len(self._table)

    def __repr__(self) -> str:
        who = f", judge={self.judge!r}" if self.judge is not None else ""
        return (
            f"Leaderboard({self.n_items} items, model={self.model!r}, method={self.method!r}"
            f"{who}, top={self.items[0]!r})"
        )

    def __str__(self) -> str:
        head = (
            f"Leaderboard: {self.n_items} items, model {self.model} ({self.method}), "
            f"interval: {self.interval}"
        )
        body = self._table.to_string(index=False, float_format=lambda v: f"{v:.3f}")
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return f"{head}\n{body}{notes}"

    def to_dict(self, *, rank_probabilities: bool = True) -> dict[str, Any]:
        """JSON-ready form: settings, notes and one record per item (strongest first).

        Parameters
        ----------
        rank_probabilities : bool
            Add each item's P(rank = k), k = 1 … n, as a list under ``"rank_probabilities"``.

        Returns
        -------
        dict
            ``model, method, judge, group_by, hdi_prob, interval, n_draws, notes, settings,
            data, items``; NaN becomes ``None``.

        Examples
        --------
        >>> import json, pandas as pd
        >>> from bayes_pairwise.data import load_comparisons
        >>> df = pd.DataFrame({"first": ["a", "b", "c"] * 10, "second": ["b", "c", "a"] * 10,
        ...                    "outcome": ["first", "first", "second"] * 10})
        >>> lb = leaderboard(load_comparisons(df), n_boot=50, random_seed=0)
        >>> d = lb.to_dict()
        >>> [row["item"] for row in d["items"]], len(d["items"][0]["rank_probabilities"])
        (['a', 'b', 'c'], 3)
        >>> _ = json.dumps(d)  # serialisable as is
        """
        records = []
        probs = self._rank_probabilities.to_numpy(dtype=float)
        for k, row in enumerate(self._table.itertuples(index=False)):
            rec = {col: _plain(getattr(row, col)) for col in COLUMNS}
            if rank_probabilities:
                rec["rank_probabilities"] = [_plain(v) for v in probs[k]]
            records.append(rec)
        out = {
            "model": self.model,
            "method": self.method,
            "judge": self.judge,
            "group_by": self.group_by,
            "hdi_prob": self.hdi_prob,
            "interval": self.interval,
            "n_draws": self.n_draws,
            "notes": list(self.notes),
            "settings": self.settings,
            "data": self.data_summary,
            "items": records,
        }
        return _plain(out)


def _plain(v: Any) -> Any:
    """JSON-friendly value: NumPy → Python, NaN → None, containers converted recursively."""
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, tuple | list | np.ndarray):
        return [_plain(x) for x in v]
    return v if isinstance(v, str | int | type(None)) else str(v)


# --------------------------------------------------------------------------- rank statistics
def rank_statistics(
    draws: np.ndarray, *, hdi_prob: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank distribution of items from draws of their strengths (bootstrap or posterior).

    In every draw the items are ranked by strength (1 = strongest; exact ties broken by item
    order), and P(rank = k) is the share of draws in which the item has rank k.

    Parameters
    ----------
    draws : ndarray, shape (n_draws, n_items)
        Strength draws.
    hdi_prob : float
        Coverage of the equal-tailed rank interval.

    Returns
    -------
    probabilities : ndarray, shape (n_items, n_items)
        ``probabilities[i, k - 1]`` = P(item i has rank k); rows sum to 1.
    rank_lower, rank_upper : ndarray of int, shape (n_items,)
        Smallest rank k with P(rank ≤ k) ≥ (1 − hdi_prob)/2, and smallest k with
        P(rank ≤ k) ≥ (1 + hdi_prob)/2: an equal-tailed interval holding at least ``hdi_prob``.

    Examples
    --------
    >>> import numpy as np
    >>> draws = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [2.0, 0.0, 1.0], [3.0, 2.0, 1.0]])
    >>> p, lo, hi = rank_statistics(draws, hdi_prob=0.5)
    >>> p.tolist()
    [[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]]
    >>> lo.tolist(), hi.tolist()
    ([1, 1, 2], [1, 2, 3])
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    s = np.asarray(draws, dtype=float)
    if s.ndim != 2 or s.shape[0] < 1:
        raise ValueError(f"draws must have shape (n_draws, n_items), got {s.shape}")
    if not 0 < hdi_prob < 1:
        raise ValueError(f"hdi_prob must lie in (0, 1), got {hdi_prob}")
    n_draws, n = s.shape
    order = np.argsort(-s, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(n)[None, :], axis=1)  # 0-based rank
    counts = np.zeros((n, n))
    np.add.at(counts, (np.tile(np.arange(n), n_draws), ranks.ravel()), 1.0)
    probs = counts / n_draws
    cdf = np.cumsum(probs, axis=1)
    alpha = (1.0 - hdi_prob) / 2.0
    tol = 1e-12
    lower = np.argmax(cdf >= alpha - tol, axis=1) + 1
    upper = np.argmax(cdf >= 1.0 - alpha - tol, axis=1) + 1
    return probs, lower.astype(int), upper.astype(int)


# --------------------------------------------------------------------------- data preparation
def _pooled_truth_note(data: Comparisons, grouped: Comparisons) -> str:
    """What an error model ranks when items are pooled into groups, with the log's numbers."""
    a = np.minimum(grouped.first, grouped.second)
    b = np.maximum(grouped.first, grouped.second)
    n_pairs = int(np.unique(a * grouped.n_items + b).size)
    per = grouped.n_comparisons / max(n_pairs, 1)
    where = f"{data.n_contexts} contexts' " if data.has_contexts else ""
    return (
        f"pooled into {grouped.n_items} groups, the {where}{grouped.n_comparisons:,} verdicts "
        f"fall on {n_pairs} pairs of groups ({per:,.0f} each), and the error model gives each "
        "pair one latent truth for all of them: the strengths rank the groups by those "
        "truths, while their scale and intervals come mostly from the prior (σ_s); for "
        "strengths that count every question's verdicts use model='bt' (the default)"
    )


def _group(data: Comparisons, group_by: GroupBy) -> tuple[Comparisons, str | None, list[str]]:
    """Data with items replaced by their groups; verdicts inside one group are dropped."""
    if group_by is None:
        return data, None, []
    if isinstance(group_by, str):
        if group_by != "name":
            raise ValueError(
                f"group_by must be 'name', a mapping item → group or a callable, got {group_by!r}"
            )
        return data.pool_contexts(), "name", []
    from bayes_pairwise.data import load_comparisons

    if callable(group_by):
        groups = [str(group_by(item)) for item in data.items]
    else:
        missing = [item for item in data.items if item not in group_by]
        if missing:
            raise ValueError(
                f"group_by has no group for {len(missing)} item(s), e.g. {missing[:5]}"
            )
        groups = [str(group_by[item]) for item in data.items]
    g = np.asarray(groups, dtype=object)
    f, s = g[data.first], g[data.second]
    keep = f != s
    if not keep.any():
        raise DesignError("group_by puts every verdict inside one group: nothing to rank")
    outcome = np.where(data.outcome == 1.0, "first", np.where(data.outcome == 0.0, "second", "tie"))
    frame = pd.DataFrame(
        {
            "first": f[keep],
            "second": s[keep],
            "outcome": outcome[keep],
            "judge": np.asarray(data.judges, dtype=object)[data.judge[keep]],
        }
    )
    ties = data.tie_policy if data.tie_policy in ("half", "model") else "error"
    grouped = load_comparisons(
        frame, judge="judge", ties=ties, source_name=data.source, detect=False
    )
    if data.weight is not None:
        grouped = grouped.with_weights(np.asarray(data.weight)[keep])
    notes = []
    n_inside = int((~keep).sum())
    if n_inside:
        notes.append(f"{n_inside} verdicts between two items of the same group were left out")
    return grouped, "mapping", notes


def _data_summary(data: Comparisons) -> dict[str, Any]:
    return {
        "n_comparisons": int(data.n_comparisons),
        "n_items": int(data.n_items),
        "n_contexts": int(data.n_contexts),
        "tie_policy": str(data.tie_policy),
        "n_ties": int(data.n_ties),
        "n_ties_dropped": int(data.n_ties_dropped),
        "source": str(data.source),
    }


# --------------------------------------------------------------------------- Bradley–Terry
def _unit_matrix(data: Comparisons, unit: np.ndarray, n_units: int) -> Any:
    """Sparse (n_units × n²) matrix: row u holds unit u's contribution to the win matrix."""
    from scipy.sparse import coo_matrix

    n = data.n_items
    f = np.asarray(data.first, dtype=np.int64)
    s = np.asarray(data.second, dtype=np.int64)
    o = np.asarray(data.outcome, dtype=float)
    w = np.ones(f.size) if data.weight is None else np.asarray(data.weight, dtype=float)
    rows = np.concatenate([unit, unit])
    cols = np.concatenate([f * n + s, s * n + f])
    vals = np.concatenate([w * o, w * (1.0 - o)])
    return coo_matrix((vals, (rows, cols)), shape=(n_units, n * n)).tocsr()


def _verdict_cells(
    data: Comparisons,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The aggregated table: one cell per (lower item, higher item, outcome[, weight]), with
    its count.

    Returns the cells' item indices ``lo < hi``, the outcome for ``lo`` (1 = ``lo`` won, ½ = a
    half-counted tie), the number of verdicts in each cell and the weight each of them carries
    (1 without ``weights=``; a weighted log's verdicts of different weights are different cells,
    so that resampling the cells' counts is resampling the rows). The order of presentation does
    not enter Bradley–Terry, so (a, b, 1) and (b, a, 0) are one cell.
    """
    n = data.n_items
    f = np.asarray(data.first, dtype=np.int64)
    s = np.asarray(data.second, dtype=np.int64)
    o = np.asarray(data.outcome, dtype=float)
    swap = f > s
    lo, hi = np.where(swap, s, f), np.where(swap, f, s)
    o_lo = np.where(swap, 1.0 - o, o)
    values, code = np.unique(o_lo, return_inverse=True)
    key = (lo * n + hi) * values.size + code.astype(np.int64).ravel()
    w = np.ones(f.size) if data.weight is None else np.asarray(data.weight, dtype=float)
    weights, wcode = np.unique(w, return_inverse=True)
    cells, counts = np.unique(
        key * weights.size + wcode.astype(np.int64).ravel(), return_counts=True
    )
    cells, cell_w = np.divmod(cells, weights.size)
    pair, k = np.divmod(cells, values.size)
    return pair // n, pair % n, values[k], counts.astype(np.int64), weights[cell_w]


def _bt_theta(
    x: np.ndarray,
    ridge: float,
    labels: tuple[str, ...] | None = None,
    init: np.ndarray | None = None,
) -> Any:
    from bayes_pairwise.classical.bradley_terry import bt_mm

    return bt_mm(x, ridge=ridge, tol=1e-9, max_iter=20_000, labels=labels, init=init)


class _ChordSolver:
    """Bradley–Terry MLE (λ = 0) of replicates near a fitted table, by chord-Newton steps.

    A bootstrap replicate's MLE lies within a few standard errors of the estimate, so Newton's
    method with the Hessian fixed at the estimate (the Fisher information, a weighted graph
    Laplacian, inverted once) converges linearly at a rate set by the replicate's relative
    sampling noise: a handful of O(pairs) gradient steps to the tolerance of MM, instead of the
    hundreds of MM iterations. Same fixed point as :func:`bt_mm` with λ = 0 (checked in the
    tests); a replicate that does not converge in ``max_iter`` steps falls back to MM.
    """

    def __init__(self, x: np.ndarray, theta: np.ndarray, tol: float, max_iter: int = 60) -> None:
        n = x.shape[0]
        i, j = np.nonzero(np.triu(x + x.T, 1))
        self.n, self.i, self.j, self.theta0 = n, i, j, theta
        self.tol, self.max_iter = tol, max_iter
        p = 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))
        wgt = (x[i, j] + x[j, i]) * p * (1.0 - p)
        lap = np.zeros((n, n))
        np.add.at(lap, (i, j), -wgt)
        np.add.at(lap, (j, i), -wgt)
        lap[np.diag_indices(n)] = -lap.sum(axis=1)
        # L is singular along 1 (θ is defined up to a constant): L + 11ᵀ/n is not, and its
        # inverse maps a gradient (which sums to 0) to the centred Newton step
        self.h_inv = np.linalg.inv(lap + 1.0 / n)

    def __call__(self, xb: np.ndarray) -> np.ndarray | None:
        i, j, n = self.i, self.j, self.n
        x_ij, x_ji = xb[i, j], xb[j, i]
        m = x_ij + x_ji
        wins = xb.sum(axis=1)
        theta = self.theta0.copy()
        for _ in range(self.max_iter):
            p = 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))
            mp = m * p
            grad = wins - np.bincount(i, mp, n) - np.bincount(j, m - mp, n)
            step = self.h_inv @ grad
            theta = theta + step
            if not np.all(np.isfinite(theta)):
                return None
            if float(np.max(np.abs(step))) < self.tol:
                return theta - theta.mean()
        return None


def _bt_leaderboard(
    data: Comparisons,
    *,
    cluster: np.ndarray | None,
    ridge: float | None,
    n_boot: int,
    hdi_prob: float,
    random_seed: int | np.random.Generator | None,
    progress: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, dict[str, Any], list[str]]:
    import sys

    from bayes_pairwise.classical.bradley_terry import (
        FALLBACK_RIDGE,
        check_bt_connected,
        mm_ridge,
    )

    if n_boot < 2:
        raise ValueError(f"n_boot must be >= 2, got {n_boot}")
    notes: list[str] = []
    n = data.n_items
    if cluster is None:
        # Resampling the N verdicts (a multinomial over the rows), summed by cell of the
        # aggregated table, is a multinomial over the cells with probabilities count / N: the
        # bootstrap draws cell counts (≤ 3 per pair), not a weight per row. Same distribution;
        # the cost no longer grows with the number of rows.
        lo, hi, o_lo, counts, cell_weight = _verdict_cells(data)
        n_resampled = int(counts.sum())
        share = counts / n_resampled
        m = None
        unit_name = "verdict"

        def table(w: np.ndarray) -> np.ndarray:
            w = w * cell_weight  # a verdict of weight v counts v times
            return (
                np.bincount(lo * n + hi, w * o_lo, n * n)
                + np.bincount(hi * n + lo, w * (1.0 - o_lo), n * n)
            ).reshape(n, n)

        x = table(counts.astype(float))
    else:
        _, unit = np.unique(np.asarray(cluster), return_inverse=True)
        unit = unit.astype(np.int64).ravel()
        n_resampled = int(unit.max()) + 1
        share = np.full(n_resampled, 1.0 / n_resampled)
        m = _unit_matrix(data, unit, n_resampled)
        unit_name = "context"

        def table(w: np.ndarray) -> np.ndarray:
            return np.asarray(m.T @ w, dtype=float).reshape(n, n)

        x = np.asarray(m.sum(axis=0), dtype=float).reshape(n, n)
    if ridge is None:
        ridge_used, why = mm_ridge(x, tuple(data.items))
        if ridge_used:
            notes.append(why)
    else:
        ridge_used = float(ridge)
    point = _bt_theta(x, ridge_used, tuple(data.items)).theta
    # λ = 0 on a table small enough for a dense n × n inverse: chord-Newton replicates
    chord = _ChordSolver(x, point, tol=1e-9) if ridge_used == 0 and n <= 2000 else None
    played = x > 0

    rng = np.random.default_rng(random_seed)
    reps = np.empty((n_boot, n))
    n_refit = 0
    n_unconverged = 0
    tick = Ticker(n_boot, label="[leaderboard] bootstrap", on=progress)
    if progress:
        print(
            f"[leaderboard] bootstrap of {n_resampled:,} {unit_name}s "
            f"({'aggregated to ' + format(share.size, ',') + ' cells, ' if m is None else ''}"
            f"{n_boot} replicates)",
            file=sys.stderr,
            flush=True,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for b in range(n_boot):
            w = rng.multinomial(n_resampled, share).astype(float)
            xb = table(w)
            theta = None
            if chord is not None:
                lost = bool(np.any(played & (xb == 0)))
                if lost:  # only a replicate that lost a directed edge can lose connectivity
                    try:
                        check_bt_connected(xb)
                    except DesignError:
                        lost = True
                    else:
                        lost = False
                if not lost:
                    theta = chord(xb)
            if theta is None:
                try:  # started at the estimate: a replicate lies near it
                    res = _bt_theta(xb, ridge_used, init=point)
                except DesignError:  # this resample lost strong connectivity
                    res = _bt_theta(xb, FALLBACK_RIDGE, init=point)
                    n_refit += 1
                n_unconverged += int(not res.converged)
                theta = res.theta
            reps[b] = theta
            tick(b + 1)
    if n_refit:
        notes.append(
            f"{n_refit} of {n_boot} bootstrap replicates lost strong connectivity and were "
            f"fitted with ridge λ = {FALLBACK_RIDGE}"
        )
    if n_unconverged:
        notes.append(f"{n_unconverged} of {n_boot} bootstrap fits hit the iteration cap")
    alpha = (1.0 - hdi_prob) / 2.0
    q_lo, q_hi = np.quantile(reps, [alpha, 1.0 - alpha], axis=0)
    lower, upper = np.minimum(q_lo, point), np.maximum(q_hi, point)
    n_widened = int(np.sum((q_lo > point) | (q_hi < point)))
    if n_widened:
        notes.append(
            f"{n_widened} percentile interval(s) did not contain the estimate and were widened "
            "to it"
        )
    interval = f"{hdi_prob:.0%} bootstrap percentile interval (resampling {unit_name}s)"
    settings = {
        "ridge": ridge_used,
        "n_boot": int(n_boot),
        "resample": unit_name,
        "n_units": n_resampled,
        "n_refit_with_ridge": n_refit,
        "n_widened": n_widened,
    }
    return point, np.column_stack([lower, upper]), reps, interval, settings, notes


# --------------------------------------------------------------------------- Bayesian models
def _bayes_leaderboard(
    data: Comparisons,
    *,
    model: str,
    method: str,
    hdi_prob: float,
    random_seed: int | np.random.Generator | None,
    progress: bool,
    model_kwargs: Mapping[str, Any] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str, dict[str, Any], list[str], Any]:
    import arviz as az

    from bayes_pairwise.pymc_models import get_model

    notes: list[str] = []
    if model in ("uniform", "positional") and not data.integer_outcomes:
        data = data.drop_ties()
        notes.append(
            f"the {model} model is binomial: {int(data.n_ties_dropped)} tie(s) dropped before "
            "fitting"
        )
    fitted = get_model(model, **dict(model_kwargs or {})).fit(
        data, method=method, random_seed=random_seed, progress=progress
    )
    post = fitted.idata_.posterior["strength"]
    items = [str(v) for v in post.coords["item"].values]
    if items != list(data.items):  # pragma: no cover - defensive
        raise BayesPairwiseError("the fitted model's items differ from the data's")
    draws = np.asarray(post, dtype=float).reshape(-1, len(items))
    settings: dict[str, Any] = {
        "model_name": fitted.name,
        "random_seed": int(fitted.random_seed_),
        "n_comparisons_fitted": int(data.n_comparisons),
    }
    if draws.shape[0] == 1:
        point = draws[0]
        bounds = np.full((len(items), 2), np.nan)
        notes.append(
            "MAP is a point estimate: no interval and no rank probabilities (use method='nuts')"
        )
        return point, bounds, None, "none (MAP point estimate)", settings, notes, fitted
    point = draws.mean(axis=0)
    hdi = az.hdi(post, hdi_prob=hdi_prob)["strength"]
    q_lo = np.asarray(hdi.sel(hdi="lower"), dtype=float)
    q_hi = np.asarray(hdi.sel(hdi="higher"), dtype=float)
    lower, upper = np.minimum(q_lo, point), np.maximum(q_hi, point)
    n_widened = int(np.sum((q_lo > point) | (q_hi < point)))
    settings["n_widened"] = n_widened
    if n_widened:
        notes.append(
            f"{n_widened} HDI(s) did not contain the posterior mean and were widened to it"
        )
    interval = f"{hdi_prob:.0%} posterior HDI (judge error integrated out)"
    return point, np.column_stack([lower, upper]), draws, interval, settings, notes, fitted


# --------------------------------------------------------------------------- public API
def leaderboard(
    data: Comparisons,
    *,
    judge: str | int | None = None,
    model: str = "bt",
    method: str | None = None,
    group_by: GroupBy = None,
    n_boot: int = LEADERBOARD_N_BOOT,
    hdi_prob: float | None = None,
    ridge: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progress: bool = False,
    model_kwargs: Mapping[str, Any] | None = None,
) -> Leaderboard:
    """Rank the items of a comparison log, with strength intervals and rank probabilities.

    Parameters
    ----------
    data : Comparisons
        The comparison log (e.g. :func:`bayes_pairwise.datasets.load`).
    judge : str or int, optional
        The judge to rank by. Required for ``model="bt"`` when the data hold several judges
        (pooling judges would hide their differences). A Bayesian model given several judges and
        no ``judge`` fits them jointly: one strength per item, each judge its own error rates.
    model : {"bt", "uniform", "positional", "biased_bt"}
        Classical Bradley–Terry with a bootstrap, or a Bayesian judge-error model (its strengths
        have the judge's error integrated out).
    method : str, optional
        ``"bootstrap"`` for ``"bt"`` (the only choice, also the default); ``"nuts"`` (default)
        or ``"map"`` for the Bayesian models.
    group_by : "name", mapping or callable, optional
        Rank groups of items instead of items: ``"name"`` pools contexts (PRD's
        ``"question::model"`` items become the models, via :meth:`Comparisons.pool_contexts`); a
        mapping or callable sends each item label to a group label (verdicts between two items of
        the same group are left out). Without ``group_by``, data whose items live in several
        contexts raise :class:`DesignError` (strengths are not comparable across contexts).
    n_boot : int
        Bootstrap replicates (``"bt"`` only).
    hdi_prob : float, optional
        Coverage of the strength interval and of the rank interval (default:
        :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time).
    ridge : float, optional
        MM ridge λ (``"bt"`` only). Default: 0 when the win graph is strongly connected, else
        λ = 0.1; a bootstrap replicate that loses strong connectivity is refitted with λ = 0.1
        (counted in ``settings["n_refit_with_ridge"]``).
    random_seed : int or Generator, optional
        Seed of the bootstrap or of the sampler: the same seed gives the same leaderboard.
    progress : bool
        Report progress on stderr (bootstrap) or show the sampler's progress bar.
    model_kwargs : mapping, optional
        Settings of the Bayesian model (``draws``, ``chains``, ``priors`` …), as in
        :func:`bayes_pairwise.pymc_models.get_model`.

    Returns
    -------
    Leaderboard

    Raises
    ------
    DesignError
        Several judges and no ``judge`` (for ``"bt"``); items in several contexts and no
        ``group_by``.
    ValueError
        Unknown model, method or group_by.

    Notes
    -----
    **Intervals.** For ``"bt"``, ``lower``/``upper`` are the percentile interval of the bootstrap
    strengths (centred log-strengths, Σθ = 0). The percentile interval need not contain the point
    estimate; when it does not, it is widened to the estimate (so ``lower ≤ strength ≤ upper``
    always; the number widened is ``settings["n_widened"]`` and a note says so). The same rule
    applies to a NUTS posterior HDI and the posterior mean. Resampling: verdicts with replacement,
    or whole contexts (questions) when the data have contexts, also under ``group_by``.

    **Rank probabilities.** P(rank = k) is the share of bootstrap replicates (or posterior
    draws) in which the item has rank k (:func:`rank_statistics`); ``p_rank_1`` is its first
    column. A MAP fit has none (NaN).

    **Ties** follow the data's tie policy: half a win each way for ``"bt"`` and ``"biased_bt"``
    under ``ties="half"``; the binomial ``"uniform"`` and ``"positional"`` models drop them
    (recorded in a note).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c", "b", "c", "a"] * 10,
    ...                    "second": ["b", "c", "a", "a", "b", "c"] * 10,
    ...                    "outcome": ["first", "first", "second", "second", "second",
    ...                                "first"] * 10})
    >>> lb = leaderboard(load_comparisons(df), n_boot=200, random_seed=1)
    >>> lb.table[["item", "rank"]].to_dict("list")
    {'item': ['a', 'b', 'c'], 'rank': [1, 2, 3]}
    >>> bool((lb.table["lower"] <= lb.table["strength"]).all())
    True
    >>> lb.rank_probabilities.sum(axis=1).round(12).tolist()
    [1.0, 1.0, 1.0]
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    if not isinstance(data, Comparisons):
        raise TypeError(
            f"leaderboard expects a Comparisons (bayes_pairwise.load_comparisons or "
            f"bayes_pairwise.datasets.load), got {type(data).__name__}"
        )
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if model == "bt":
        method = "bootstrap" if method is None else method
        if method != "bootstrap":
            raise ValueError(f"model='bt' is fitted by method='bootstrap', got {method!r}")
    else:
        method = "nuts" if method is None else method
        if method not in ("nuts", "map"):
            raise ValueError(f"model={model!r} takes method='nuts' or 'map', got {method!r}")
    if not 0 < hdi_prob < 1:
        raise ValueError(f"hdi_prob must lie in (0, 1), got {hdi_prob}")

    if judge is not None or model == "bt":
        data = data.one_judge(judge, hint="pass judge=… to rank by one of them")
    judge_label = data.judges[0] if data.n_judges == 1 and data.has_judge_column else None
    summary = _data_summary(data)
    cluster = np.asarray(data.item_context)[data.first] if data.has_contexts else None
    grouped, group_label, notes = _group(data, group_by)
    if grouped.has_contexts:
        raise DesignError(
            f"the items live in {grouped.n_contexts} separate contexts (e.g. "
            f"{grouped.items[0]!r}); their strengths are not comparable across contexts. Pass "
            "group_by='name' to rank the item names (e.g. the answer models) across contexts"
            + (
                "."
                if model == "bt"
                else f" (model={model!r} then gives a pair of names one latent true order "
                "for every context, which is why it is not the default as it is for model='bt')."
            )
        )

    if model == "bt":
        point, bounds, draws, interval, settings, more = _bt_leaderboard(
            grouped,
            cluster=cluster,
            ridge=ridge,
            n_boot=n_boot,
            hdi_prob=hdi_prob,
            random_seed=random_seed,
            progress=progress,
        )
        seed_given = random_seed if isinstance(random_seed, int | None) else "Generator"
        settings["random_seed"] = seed_given
    else:
        if ridge is not None:
            raise ValueError("ridge applies to model='bt' only")
        if group_label is not None:
            notes.append(_pooled_truth_note(data, grouped))
        point, bounds, draws, interval, settings, more, _ = _bayes_leaderboard(
            grouped,
            model=model,
            method=method,
            hdi_prob=hdi_prob,
            random_seed=random_seed,
            progress=progress,
            model_kwargs=model_kwargs,
        )
    notes.extend(more)

    n = grouped.n_items
    if draws is not None:
        probs, r_lo, r_hi = rank_statistics(draws, hdi_prob=hdi_prob)
        rank_lower: np.ndarray = r_lo.astype(float)
        rank_upper: np.ndarray = r_hi.astype(float)
    else:
        probs = np.full((n, n), np.nan)
        rank_lower = rank_upper = np.full(n, np.nan)
    order = np.argsort(-point, kind="stable")
    items = np.asarray(grouped.items, dtype=object)
    table = pd.DataFrame(
        {
            "item": items[order].astype(str),
            "rank": tied_ranks(point[order]),  # items with one record share a rank
            "strength": point[order],
            "lower": bounds[order, 0],
            "upper": bounds[order, 1],
            "p_rank_1": probs[order, 0],
            "rank_lower": rank_lower[order],
            "rank_upper": rank_upper[order],
        },
        columns=list(COLUMNS),
    )
    if draws is not None:
        table["rank_lower"] = table["rank_lower"].astype(int)
        table["rank_upper"] = table["rank_upper"].astype(int)
    rank_probs = pd.DataFrame(
        probs[order],
        index=pd.Index(table["item"], name="item"),
        columns=pd.Index(np.arange(1, n + 1), name="rank"),
    )
    return Leaderboard(
        table=table,
        rank_probabilities=rank_probs,
        model=model,
        method=method,
        judge=judge_label,
        group_by=group_label,
        hdi_prob=hdi_prob,
        interval=interval,
        n_draws=1 if draws is None else draws.shape[0],
        notes=tuple(notes),
        settings=settings,
        data_summary=summary,
        strength_draws=None
        if draws is None
        else pd.DataFrame(draws[:, order], columns=pd.Index(table["item"], name="item")),
    )


def judge_leaderboards(
    data: Comparisons,
    *,
    random_seed: int | None = None,
    skip_errors: bool = False,
    on_judge: Callable[[str], None] | None = None,
    client: Any = None,
    **kwargs: Any,
) -> tuple[dict[str, Leaderboard], dict[str, str]]:
    """One leaderboard per judge, each with a seed of its own (for :func:`judge_agreement`).

    The bootstraps (or posteriors) of different judges must be independent for the τ interval
    of :func:`judge_agreement`: the same seed would resample the same contexts for every judge.
    Judge ``k`` (0-based, in ``data.judges`` order) gets ``random_seed + 1 + k``.

    Parameters
    ----------
    data : Comparisons
        Several judges.
    random_seed : int, optional
        Base seed (``None``: fresh entropy for each judge).
    skip_errors : bool
        Record a judge whose board cannot be built (a ``BayesPairwiseError``) in the second
        return value and go on; otherwise the error propagates.
    on_judge : callable, optional
        Called with each judge's name before its board is built (progress lines; on a
        cluster, as each board is finished).
    client : distributed.Client, optional
        Build the boards on this Dask cluster (:mod:`bayes_pairwise.distributed`), one task
        per judge; each judge's seed is as above, so the boards are the same as without it.
    **kwargs
        Passed to :func:`leaderboard` (``model``, ``method``, ``group_by``, ``n_boot`` …).

    Returns
    -------
    boards : dict
        Judge → :class:`Leaderboard`, in ``data.judges`` order.
    errors : dict
        Judge → why its board is missing (only with ``skip_errors``).

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> data = bp.datasets.load("chatbot_arena")
    >>> boards, errors = judge_leaderboards(data, random_seed=0, n_boot=50)
    >>> list(boards) == list(data.judges), errors
    (True, {})
    """
    from bayes_pairwise.distributed import run_tasks
    from bayes_pairwise.errors import BayesPairwiseError

    judges = list(data.judges)
    seeds = [None if random_seed is None else int(random_seed) + 1 + k for k in range(len(judges))]
    tasks = [(data, j, own, kwargs) for j, own in zip(judges, seeds, strict=True)]
    if client is None:
        done: Callable[[int, Any], None] | None = None
        run = _judge_board_announced(on_judge)
    else:
        done = None if on_judge is None else (lambda i, _res: on_judge(judges[i]))
        run = _judge_board
    results = run_tasks(run, tasks, client=client, on_done=done, return_exceptions=skip_errors)
    boards: dict[str, Leaderboard] = {}
    errors: dict[str, str] = {}
    for j, res in zip(judges, results, strict=True):
        if isinstance(res, BayesPairwiseError) and skip_errors:
            errors[j] = str(res)
        elif isinstance(res, Exception):
            raise res
        else:
            boards[j] = res
    return boards, errors


def _judge_board(
    data: Comparisons, judge: str, seed: int | None, kwargs: Mapping[str, Any]
) -> Leaderboard:
    """One judge's board (a task of :func:`judge_leaderboards`)."""
    return leaderboard(data, judge=judge, random_seed=seed, **kwargs)


def _judge_board_announced(
    on_judge: Callable[[str], None] | None,
) -> Callable[..., Leaderboard]:
    def run(
        data: Comparisons, judge: str, seed: int | None, kwargs: Mapping[str, Any]
    ) -> Leaderboard:
        if on_judge is not None:
            on_judge(judge)
        return _judge_board(data, judge, seed, kwargs)

    return run


def judge_agreement(
    boards: Mapping[str, Leaderboard],
    reference: str,
    *,
    hdi_prob: float | None = None,
) -> pd.DataFrame:
    """Kendall τ between each judge's leaderboard and a reference judge's (e.g. the humans').

    Parameters
    ----------
    boards : mapping of str to Leaderboard
        One leaderboard per judge (:func:`leaderboard` with ``judge=…``), the reference among
        them.
    reference : str
        The key of the reference leaderboard.
    hdi_prob : float
        Coverage of the τ interval.

    Returns
    -------
    DataFrame
        One row per other judge, most concordant first: ``judge``, ``reference``,
        ``n_items`` (items both rank), ``kendall_tau`` (τ-b of the two strength vectors;
        strengths within :data:`~bayes_pairwise.conventions.STRENGTH_TIE_RTOL` of each other
        are ties: items with the same record are solved to a tolerance),
        ``tau_lower``/``tau_upper`` (the equal-tailed interval of τ between paired draws:
        draw b of the judge against draw b of the reference; NaN when either board has no
        draws), ``spearman``, ``same_top`` (both put the same item first) and ``top``
        (the judge's first item). ``attrs["interval"]`` says how the interval was made.

    Notes
    -----
    The draws of two boards are paired by position. Bootstraps made separately per judge are
    independent, so the interval ignores any positive correlation between judges who rated the
    same battles: it is wider than a joint bootstrap would give (conservative). τ between two
    noisy replicates is also pulled towards 0 compared with τ between the two point estimates,
    so the point estimate can sit near the interval's upper end: read the interval as the
    spread of the agreement, not as a centred confidence interval.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c", "a"] * 20, "second": ["b", "c", "a", "c"] * 20,
    ...                    "outcome": ["first", "first", "second", "first"] * 20})
    >>> frames = [df.assign(judge="human"), df.assign(judge="llm"),
    ...           df.assign(judge="contrarian", outcome=df.outcome.map(
    ...               {"first": "second", "second": "first"}))]
    >>> data = load_comparisons(pd.concat(frames, ignore_index=True), judge="judge")
    >>> boards = {j: leaderboard(data, judge=j, n_boot=100, random_seed=0) for j in data.judges}
    >>> t = judge_agreement(boards, "human")
    >>> t[["judge", "kendall_tau", "same_top"]].to_dict("list")
    {'judge': ['llm', 'contrarian'], 'kendall_tau': [1.0, -1.0], 'same_top': [True, False]}
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    from bayes_pairwise.classical.agreement import kendall_tau, spearman_rho

    def agreement(x: np.ndarray, y: np.ndarray, measure: Callable[..., float]) -> float:
        """``measure`` (τ-b or ρ) with the strengths' tie rule; NaN for non-finite draws."""
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            return float("nan")
        return measure(x, y, tie_rtol=STRENGTH_TIE_RTOL)

    if reference not in boards:
        raise ValueError(f"reference {reference!r} is not among the boards {sorted(boards)}")
    ref = boards[reference]
    ref_point = ref.table.set_index("item")["strength"]
    ref_draws = ref.strength_draws
    alpha = (1.0 - hdi_prob) / 2.0
    rows = []
    for name, board in boards.items():
        if name == reference:
            continue
        point = board.table.set_index("item")["strength"]
        common = [item for item in ref_point.index if item in point.index]
        if len(common) < 2:
            raise DesignError(
                f"judge {name!r} and reference {reference!r} rank {len(common)} common item(s); "
                "Kendall τ needs at least two"
            )
        x, y = point[common].to_numpy(float), ref_point[common].to_numpy(float)
        tau = agreement(x, y, kendall_tau)
        rho = agreement(x, y, spearman_rho)
        lo = hi = float("nan")
        draws = board.strength_draws
        if draws is not None and ref_draws is not None:
            n = min(len(draws), len(ref_draws))
            a = draws[common].to_numpy()[:n]
            b = ref_draws[common].to_numpy()[:n]
            taus = np.array([agreement(a[k], b[k], kendall_tau) for k in range(n)], dtype=float)
            taus = taus[np.isfinite(taus)]
            if taus.size:
                lo, hi = (float(q) for q in np.quantile(taus, [alpha, 1.0 - alpha]))
        top = board.items[0]
        rows.append(
            {
                "judge": name,
                "reference": reference,
                "n_items": len(common),
                "kendall_tau": tau,
                "tau_lower": lo,
                "tau_upper": hi,
                "spearman": rho,
                "same_top": bool(top == ref.items[0]),
                "top": top,
            }
        )
    table = pd.DataFrame(rows).sort_values("kendall_tau", ascending=False, kind="stable")
    table = table.reset_index(drop=True)
    table.attrs["interval"] = (
        f"{hdi_prob:.0%} equal-tailed interval of τ over paired draws (independent per judge)"
    )
    return table


# --------------------------------------------------------------------------- plot numbers
def rank_probability_data(
    lb: Leaderboard, *, max_rank: int | None = None, top: int | None = None
) -> pd.DataFrame:
    """The numbers behind a rank-probability heat map: items (strongest first) × ranks.

    Parameters
    ----------
    lb : Leaderboard
    max_rank : int, optional
        Keep ranks 1 … ``max_rank`` and add a column ``f">{max_rank}"`` with the rest of each
        row's probability (rows still sum to 1).
    top : int, optional
        Keep the ``top`` strongest items only.

    Returns
    -------
    pandas.DataFrame
        Index ``item``, columns the ranks (as strings: ``"1"``, ``"2"`` …, then ``">K"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c"] * 20, "second": ["b", "c", "a"] * 20,
    ...                    "outcome": ["first", "first", "second"] * 20})
    >>> lb = leaderboard(load_comparisons(df), n_boot=100, random_seed=0)
    >>> list(rank_probability_data(lb, max_rank=1).columns)
    ['1', '>1']
    """
    probs = lb.rank_probabilities
    if len(probs) and probs.isna().all().all():
        raise ValueError(
            f"this leaderboard has no rank probabilities: {lb.model} "
            f"({lb.settings.get('method', 'point estimate')}) gives one point, no draws to rank "
            "(use the bootstrap 'bt' model or a NUTS fit)"
        )
    if top is not None:
        probs = probs.iloc[: int(top)]
    out = probs.copy()
    out.columns = [str(c) for c in probs.columns]
    if max_rank is not None and int(max_rank) < probs.shape[1]:
        k = int(max_rank)
        out = out.iloc[:, :k].copy()
        out[f">{k}"] = probs.iloc[:, k:].sum(axis=1, min_count=1).to_numpy()
    out.columns.name = "rank"
    return out


# --------------------------------------------------------------------------- ranking logs
def ranking_leaderboard(
    data: Any,
    *,
    judge: str | int | None = None,
    n_boot: int = LEADERBOARD_N_BOOT,
    hdi_prob: float | None = None,
    ridge: float | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> Leaderboard:
    """Rank the items of a ranking log by Plackett–Luce, with a bootstrap over the lists.

    The strengths are :class:`~bayes_pairwise.classical.plackett_luce.PlackettLuce` (MM; each
    list one observation, not k(k − 1)/2 independent pairs); the interval and the rank
    probabilities come from ``n_boot`` replicates that resample whole lists, as ``"bt"``
    resamples verdicts.

    Parameters
    ----------
    data : Rankings
        From :func:`bayes_pairwise.load_rankings`, one context.
    judge : str or int, optional
        Required when the log holds several judges.
    n_boot, hdi_prob, random_seed
        As for :func:`leaderboard`.
    ridge : float, optional
        MM ridge λ. Default: 0 when the "ranked above" graph is strongly connected, else 0.1;
        a replicate that loses strong connectivity is refitted with λ = 0.1 (counted in
        ``settings["n_refit_with_ridge"]``).

    Returns
    -------
    Leaderboard
        ``model="plackett_luce"``, ``method="bootstrap"``.

    Examples
    --------
    >>> from bayes_pairwise.rankings import load_rankings
    >>> df = pd.DataFrame({"list": [1, 1, 1, 2, 2, 2, 3, 3, 3] * 4,
    ...                    "item": ["a", "b", "c"] * 12,
    ...                    "rank": [1, 2, 3, 2, 1, 3, 1, 3, 2] * 4})
    >>> df["list"] = df["list"].astype(str) + "-" + (df.index // 9).astype(str)
    >>> lb = ranking_leaderboard(load_rankings(df), n_boot=50, random_seed=0)
    >>> lb.table["item"].tolist(), lb.model
    (['a', 'b', 'c'], 'plackett_luce')
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    from bayes_pairwise.classical.plackett_luce import PlackettLuce
    from bayes_pairwise.rankings import Rankings

    if not isinstance(data, Rankings):
        raise TypeError(f"ranking_leaderboard expects a Rankings object, got {type(data).__name__}")
    if judge is not None:
        data = data.for_judge(judge)
    elif data.n_judges > 1:
        raise DesignError(
            f"the log holds {data.n_judges} judges ({name_list(data.judges)}); rank one "
            "(judge=…, CLI --judge)"
        )
    if data.has_contexts:
        raise DesignError(
            f"the items live in {data.n_contexts} contexts; rank one context at a time"
        )
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    notes: list[str] = []
    lam = 0.0 if ridge is None else float(ridge)
    try:
        point = PlackettLuce(ridge=lam).fit(data).strengths_.to_numpy()
    except DesignError as exc:
        if ridge is not None:
            raise
        lam = 0.1
        point = PlackettLuce(ridge=lam).fit(data).strengths_.to_numpy()
        why = str(exc).split(" Use ridge > 0")[0].rstrip(".")
        notes.append(
            f"ridge λ = 0.1 used: {why}; the strengths and ranks this touches come from the "
            "ridge's pull towards 0, not from the lists"
        )
    rng = np.random.default_rng(random_seed)
    ranked = np.asarray(data.ranked)
    draws = np.empty((int(n_boot), data.n_items))
    refit = 0
    from bayes_pairwise.classical.plackett_luce import pl_mm

    for b in range(int(n_boot)):
        rows = ranked[rng.integers(0, data.n_lists, data.n_lists)]
        try:
            draws[b] = pl_mm(rows, data.n_items, ridge=lam, tol=1e-8).theta
        except DesignError:
            refit += 1
            draws[b] = pl_mm(rows, data.n_items, ridge=0.1, tol=1e-8).theta
    if refit:
        notes.append(f"{refit} bootstrap replicate(s) refitted with ridge λ = 0.1")
    alpha = (1.0 - hdi_prob) / 2.0
    lower = np.minimum(np.quantile(draws, alpha, axis=0), point)
    upper = np.maximum(np.quantile(draws, 1.0 - alpha, axis=0), point)
    probs, r_lo, r_hi = rank_statistics(draws, hdi_prob=hdi_prob)
    order = np.argsort(-point, kind="stable")
    items = np.asarray(data.items, dtype=object)
    table = pd.DataFrame(
        {
            "item": items[order],
            "rank": tied_ranks(point[order]),
            "strength": point[order],
            "lower": lower[order],
            "upper": upper[order],
            "p_rank_1": probs[order, 0],
            "rank_lower": r_lo[order],
            "rank_upper": r_hi[order],
        }
    )
    rank_p = pd.DataFrame(
        probs[order],
        index=pd.Index(items[order], name="item"),
        columns=list(range(1, data.n_items + 1)),
    )
    return Leaderboard(
        table=table,
        rank_probabilities=rank_p,
        model="plackett_luce",
        method="bootstrap",
        judge=data.judges[0] if data.has_judge_column or judge is not None else None,
        group_by=None,
        hdi_prob=hdi_prob,
        interval=f"{hdi_prob:.0%} bootstrap percentile interval (resampling lists)",
        n_draws=int(n_boot),
        notes=tuple(notes),
        settings={
            "ridge": lam,
            "n_boot": int(n_boot),
            "resample": "list",
            "n_units": int(data.n_lists),
            "n_refit_with_ridge": refit,
            "random_seed": None if isinstance(random_seed, np.random.Generator) else random_seed,
        },
        data_summary=data.settings(),
        strength_draws=pd.DataFrame(draws[:, order], columns=list(items[order])),
    )
