"""Observation matrices and per-pair counts (METHODS §1).

* :func:`pair_counts` — one row per (judge, unordered pair {i, j}, i < j): k₊ (i shown first),
  k₋ (j shown first), n₁ (wins of i among the k₊), n₂ (wins of i among the k₋).
* :func:`y_matrix` — ŷ_ij = +1 if the first-shown i is preferred over j, −1 otherwise (needs every
  ordered pair exactly once).
* :func:`z_matrix` — Z = (Y − Yᵀ)/2; z_ij = 0 means the two orders disagree.
* :func:`w_matrix` — w_ij = (2n₁ + 2n₂ − k₊ − k₋)/(k₊ + k₋), antisymmetric; W = Z when k₊ = k₋ = 1.
* :func:`win_matrix` — x_ij = number of times i beat j in any order (ties count half).
* :func:`round_robins` — Z or W per context, for logs made of many small round-robins.

With ``ties="half"`` a tie counts as ŷ = 0 (half a win), so Z and W can take the values ±½.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError, DesignWarning, user_stacklevel

__all__ = [
    "PairCounts",
    "RoundRobin",
    "pair_counts",
    "pair_row_of",
    "round_robins",
    "w_matrix",
    "win_matrix",
    "y_matrix",
    "z_matrix",
]


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Per-(judge, unordered pair) counts; all arrays have one entry per pair row.

    Attributes
    ----------
    i, j : ndarray of int
        Item indexes with ``i < j``.
    judge, context : ndarray of int
        Judge and context index of the pair row.
    k_plus, k_minus : ndarray of int
        Verdicts with ``i`` shown first / with ``j`` shown first.
    n1, n2 : ndarray of float
        Wins of ``i`` among the ``k_plus`` / among the ``k_minus`` verdicts (integers unless ties
        are counted half).
    items, judges : tuple of str
        Labels, as in the :class:`~bayes_pairwise.data.Comparisons`.
    t1, t2 : ndarray of int
        Ties (outcome 0.5, kept under ``ties="half"`` or ``"model"``) among the ``k_plus`` / the
        ``k_minus`` verdicts; zeros when the data hold none (also when omitted by a caller).
    truth : ndarray of int
        Gold label of the pair row: 1 when ``i`` is truly better, 0 when ``j`` is, −1 unknown
        (all −1 when the data hold no labels or a caller omits it).
    weighted : bool
        The counts are sums of per-verdict weights (``pair_counts(data, weighted=True)`` on a
        log loaded with ``weights=``): every count is then a float.
    """

    i: np.ndarray
    j: np.ndarray
    judge: np.ndarray
    context: np.ndarray
    k_plus: np.ndarray
    k_minus: np.ndarray
    n1: np.ndarray
    n2: np.ndarray
    items: tuple[str, ...]
    judges: tuple[str, ...]
    t1: np.ndarray | None = None
    t2: np.ndarray | None = None
    truth: np.ndarray | None = None
    weighted: bool = False

    def __post_init__(self) -> None:
        for name in ("t1", "t2"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, _ro(np.zeros(self.i.shape[0], dtype=np.int64)))
        if self.truth is None:
            object.__setattr__(self, "truth", _ro(np.full(self.i.shape[0], -1, dtype=np.int64)))

    @property
    def has_truth(self) -> bool:
        """True when at least one pair row carries a gold label."""
        return bool(np.any(self.truth >= 0))

    @property
    def n1_decided(self) -> np.ndarray:
        """Wins of ``i`` among the non-tie ``k_plus`` verdicts (``n1`` without its half ties)."""
        return self._decided(self.n1, self.t1)

    @property
    def n2_decided(self) -> np.ndarray:
        """Wins of ``i`` among the non-tie ``k_minus`` verdicts (``n2`` without its half ties)."""
        return self._decided(self.n2, self.t2)

    def _decided(self, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        wins = n - 0.5 * t
        return np.maximum(wins, 0.0) if self.weighted else np.rint(wins).astype(np.int64)

    @property
    def n_ties(self) -> np.ndarray:
        """t₁ + t₂ per pair row."""
        return self.t1 + self.t2

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_pairs(self) -> int:
        """Number of (judge, unordered pair) rows."""
        return int(self.i.shape[0])

    @property
    def n_verdicts(self) -> np.ndarray:
        """k₊ + k₋ per pair row."""
        return self.k_plus + self.k_minus

    @property
    def first_wins(self) -> np.ndarray:
        """Verdicts won by the first-shown item, per pair row."""
        return self.n1 + (self.k_minus - self.n2)

    @property
    def both_orders(self) -> np.ndarray:
        """True where the pair was seen in both presentation orders."""
        return (self.k_plus > 0) & (self.k_minus > 0)

    @property
    def integer(self) -> bool:
        """True when n₁ and n₂ are whole numbers (no half-counted ties)."""
        return bool(np.all(self.n1 == np.round(self.n1)) and np.all(self.n2 == np.round(self.n2)))

    def to_frame(self) -> pd.DataFrame:
        """The counts as a DataFrame with item and judge labels.

        Examples
        --------
        >>> import pandas as pd
        >>> from bayes_pairwise.data import load_comparisons
        >>> df = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "a", "b"],
        ...                    "outcome": ["first", "first", "second"]})
        >>> pair_counts(load_comparisons(df)).to_frame()
           judge item_i item_j  k_plus  k_minus   n1   n2
        0  judge      a      b       2        1  1.0  0.0
        """
        items = np.asarray(self.items, dtype=object)
        return pd.DataFrame(
            {
                "judge": np.asarray(self.judges, dtype=object)[self.judge],
                "item_i": items[self.i],
                "item_j": items[self.j],
                "k_plus": self.k_plus,
                "k_minus": self.k_minus,
                "n1": self.n1,
                "n2": self.n2,
            }
        )


def _pair_keys(data: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    """The sorted (judge, unordered pair) keys of a log and each verdict's index into them."""
    n = data.n_items
    lo = np.minimum(data.first, data.second).astype(np.int64)
    hi = np.maximum(data.first, data.second).astype(np.int64)
    key = (data.judge.astype(np.int64) * n + lo) * n + hi
    uniq, inv = np.unique(key, return_inverse=True)
    return uniq, inv.reshape(-1)


def pair_row_of(data: Comparisons) -> np.ndarray:
    """The :func:`pair_counts` row of each verdict: the index of its (judge, unordered pair).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "c", "b"], "second": ["b", "a", "a"],
    ...                    "outcome": ["first", "first", "second"]})
    >>> pair_row_of(load_comparisons(df)).tolist()
    [0, 1, 0]
    """
    return _pair_keys(data)[1]


def pair_counts(data: Comparisons, *, weighted: bool = False) -> PairCounts:
    """Aggregate verdicts to one row per (judge, unordered pair).

    Parameters
    ----------
    data : Comparisons
    weighted : bool
        Sum the log's per-verdict weights (``load_comparisons(weights=…)``) instead of counting
        verdicts: a verdict of weight w counts w times, and every count is a float. The readers
        of a weighted log (the Bayesian models) ask for it; for the others a weighted log is an
        error, never a silently unweighted count.

    Returns
    -------
    PairCounts

    Raises
    ------
    DesignError
        The log carries weights and ``weighted`` is False.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "b"], "second": ["b", "a", "a"],
    ...                    "outcome": ["first", "first", "second"]})
    >>> pc = pair_counts(load_comparisons(df))
    >>> pc.k_plus.tolist(), pc.k_minus.tolist(), pc.n1.tolist(), pc.n2.tolist()
    ([1], [2], [1.0], [1.0])

    Ties kept under ``ties="half"`` are counted half in ``n1``/``n2`` and counted in ``t1``/``t2``:

    >>> df = pd.DataFrame({"first": ["a", "b", "b"], "second": ["b", "a", "a"],
    ...                    "outcome": ["first", "tie", "second"]})
    >>> pc = pair_counts(load_comparisons(df, ties="half"))
    >>> pc.n2.tolist(), pc.t2.tolist(), pc.n2_decided.tolist()
    ([1.5], [1], [1])

    Gold labels become a truth code per pair row (1: ``i`` truly better, 0: ``j``, −1 unknown):

    >>> df["gold"] = ["b", "b", "b"]
    >>> pair_counts(load_comparisons(df, ties="half", truth="gold")).truth.tolist()
    [0]

    Weights are summed, not counted, when asked for:

    >>> w = load_comparisons(df, ties="half").with_weights([2.0, 0.5, 1.0])
    >>> pc = pair_counts(w, weighted=True)
    >>> pc.k_plus.tolist(), pc.k_minus.tolist(), pc.n2.tolist(), pc.t2.tolist()
    ([2.0], [1.5], [1.25], [0.5])
    """
    w = getattr(data, "weight", None)
    if w is not None and not weighted:
        raise DesignError(
            "this computation counts verdicts, and the log carries per-row weights "
            "(load_comparisons(weights=…)): it would drop them. Weights are read by "
            "BradleyTerry, Elo, the leaderboard and the Bayesian models' fit(); load the log "
            "without weights= for the classical error estimators and the cross-check"
        )
    n = data.n_items
    uniq, inv = _pair_keys(data)
    m = len(uniq)
    lo = np.minimum(data.first, data.second).astype(np.int64)
    lo_first = data.first == lo
    # wins of the lower-index item i
    i_wins = np.where(lo_first, data.outcome, 1.0 - data.outcome)
    wt = np.ones(len(inv)) if w is None else np.asarray(w, dtype=float)

    def total(x: np.ndarray) -> np.ndarray:
        return np.bincount(inv, weights=wt * x, minlength=m)

    tie = np.asarray(data.outcome) == 0.5
    k_plus, k_tot = total(lo_first.astype(float)), total(np.ones(len(inv)))
    n1 = total(np.where(lo_first, i_wins, 0.0))
    n2 = total(np.where(lo_first, 0.0, i_wins))
    t1, t2 = total((tie & lo_first).astype(float)), total((tie & ~lo_first).astype(float))
    if not weighted:
        k_plus, k_tot = np.rint(k_plus).astype(np.int64), np.rint(k_tot).astype(np.int64)
        t1, t2 = np.rint(t1).astype(np.int64), np.rint(t2).astype(np.int64)
    i = (uniq // n) % n
    j = uniq % n
    judge = uniq // (n * n)
    gold = np.asarray(data.truth, dtype=np.int64)
    code = np.where(gold < 0, -1, (gold == lo).astype(np.int64))
    truth = np.full(m, -1, dtype=np.int64)
    np.maximum.at(truth, inv.reshape(-1), code)  # the loader gives a pair one label
    return PairCounts(
        i=_ro(i),
        j=_ro(j),
        judge=_ro(judge),
        context=_ro(np.asarray(data.item_context)[i]),
        k_plus=_ro(k_plus),
        k_minus=_ro(k_tot - k_plus),
        n1=_ro(n1),
        n2=_ro(n2),
        items=data.items,
        judges=data.judges,
        t1=_ro(t1),
        t2=_ro(t2),
        truth=_ro(truth),
        weighted=bool(weighted),
    )


# ------------------------------------------------------------------ selection helpers
def _one_block(
    data: Comparisons, judge: str | int | None, context: str | int | None
) -> Comparisons:
    """Restrict to one judge and one context (re-indexed), with clear errors when ambiguous."""
    data = data.one_judge(judge, hint="pass judge=… to pick one")
    if context is not None:
        data = data.for_context(context)
    elif data.n_contexts > 1:
        raise DesignError(
            f"the data hold {data.n_contexts} contexts; pass context=… or use round_robins() "
            "for per-context matrices"
        )
    return data


def _pairs_text(items: tuple[str, ...], a: np.ndarray, b: np.ndarray, limit: int = 8) -> str:
    shown = ", ".join(
        f"({items[x]!r}, {items[y]!r})" for x, y in zip(a[:limit], b[:limit], strict=True)
    )
    if len(a) > limit:
        shown += f", … ({len(a) - limit} more)"
    return shown


def _y_values(block: Comparisons) -> np.ndarray:
    n = block.n_items
    counts = np.zeros((n, n), dtype=np.int64)
    np.add.at(counts, (block.first, block.second), 1)
    off = ~np.eye(n, dtype=bool)
    missing = np.argwhere((counts == 0) & off)
    dup = np.argwhere(counts > 1)
    if missing.size or dup.size:
        parts = []
        if missing.size:
            parts.append(
                f"{len(missing)} ordered pair(s) never shown (first, second): "
                + _pairs_text(block.items, missing[:, 0], missing[:, 1])
            )
        if dup.size:
            parts.append(
                f"{len(dup)} ordered pair(s) shown more than once: "
                + _pairs_text(block.items, dup[:, 0], dup[:, 1])
                + " (use w_matrix for repeats)"
            )
        raise DesignError("Y and Z need every ordered pair exactly once; " + "; ".join(parts))
    y = np.zeros((n, n))
    y[block.first, block.second] = 2.0 * block.outcome - 1.0
    return y


def y_matrix(
    data: Comparisons, *, judge: str | int | None = None, context: str | int | None = None
) -> pd.DataFrame:
    """Y: one verdict per ordered pair, ŷ_ij = +1 if the first-shown i is preferred, else −1.

    Parameters
    ----------
    data : Comparisons
    judge, context : str or int, optional
        Required when the data hold several judges / contexts.

    Returns
    -------
    DataFrame
        N×N, rows = item shown first, columns = item shown second, zero diagonal.

    Raises
    ------
    DesignError
        When an ordered pair is missing or repeated (the message lists them).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "first"]})
    >>> y_matrix(load_comparisons(df)).to_numpy().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    block = _one_block(data, judge, context)
    return pd.DataFrame(_y_values(block), index=list(block.items), columns=list(block.items))


def z_matrix(
    data: Comparisons, *, judge: str | int | None = None, context: str | int | None = None
) -> pd.DataFrame:
    """Z = (Y − Yᵀ)/2: +1 / −1 when both orders agree, 0 when they disagree.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "second"]})
    >>> z_matrix(load_comparisons(df)).to_numpy().tolist()
    [[0.0, 1.0], [-1.0, 0.0]]
    """
    block = _one_block(data, judge, context)
    y = _y_values(block)
    return pd.DataFrame((y - y.T) / 2.0, index=list(block.items), columns=list(block.items))


def _w_values(block: Comparisons, require_complete: bool) -> np.ndarray:
    pc = pair_counts(block)
    n = block.n_items
    w = np.zeros((n, n))
    tot = pc.n_verdicts
    val = (2 * pc.n1 + 2 * pc.n2 - tot) / tot
    w[pc.i, pc.j] = val
    w[pc.j, pc.i] = -val
    if require_complete:
        seen = np.zeros((n, n), dtype=bool)
        seen[pc.i, pc.j] = True
        iu = np.triu_indices(n, 1)
        miss = ~seen[iu]
        if miss.any():
            raise DesignError(
                f"W with require_complete=True needs every unordered pair; {int(miss.sum())} "
                "never compared: " + _pairs_text(block.items, iu[0][miss], iu[1][miss])
            )
    return w


def w_matrix(
    data: Comparisons,
    *,
    judge: str | int | None = None,
    context: str | int | None = None,
    require_complete: bool = True,
) -> pd.DataFrame:
    """W: w_ij = (2n₁ + 2n₂ − k₊ − k₋)/(k₊ + k₋), antisymmetric (repeats allowed).

    Parameters
    ----------
    require_complete : bool
        Raise when an unordered pair was never compared (default); with False it is 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "a", "b"], "second": ["b", "b", "a"],
    ...                    "outcome": ["first", "first", "first"]})
    >>> round(float(w_matrix(load_comparisons(df)).loc["a", "b"]), 3)
    0.333
    """
    block = _one_block(data, judge, context)
    return pd.DataFrame(
        _w_values(block, require_complete), index=list(block.items), columns=list(block.items)
    )


def win_matrix(data: Comparisons, *, judge: str | int | None = None) -> pd.DataFrame:
    """X: x_ij = number of times i beat j in any order (ties count half; judges pooled unless one
    is named). Covers all items of all contexts.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "a", "b"],
    ...                    "outcome": ["first", "first", "tie"]})
    >>> win_matrix(load_comparisons(df, ties="half")).to_numpy().tolist()
    [[0.0, 1.5], [1.5, 0.0]]
    """
    if judge is not None:
        data = data.for_judge(judge)
    n = data.n_items
    x = np.zeros((n, n))
    w = 1.0 if getattr(data, "weight", None) is None else np.asarray(data.weight)  # per verdict
    np.add.at(x, (data.first, data.second), w * data.outcome)
    np.add.at(x, (data.second, data.first), w * (1.0 - data.outcome))
    return pd.DataFrame(x, index=list(data.items), columns=list(data.items))


@dataclass(frozen=True, eq=False)
class RoundRobin:
    """Z or W of one context: ``matrix`` is n×n over ``items`` (labels)."""

    context: str
    items: tuple[str, ...]
    item_names: tuple[str, ...]
    matrix: np.ndarray
    kind: str

    @property
    def n(self) -> int:
        """Number of items in this context."""
        return len(self.items)


def round_robins(
    data: Comparisons,
    *,
    judge: str | int | None = None,
    kind: str = "W",
    skip_incomplete: bool = False,
) -> list[RoundRobin]:
    """Per-context Z or W matrices of one judge (for the Δ_S fit on many small round-robins).

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional
        Required when the data hold several judges.
    kind : {"W", "Z"}
    skip_incomplete : bool
        Skip contexts that cannot build the matrix, with a :class:`DesignWarning` naming how
        many and which; by default such a context is a :class:`DesignError`.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a", "b"], "second": ["b", "a", "b", "a"],
    ...                    "outcome": ["first", "second", "first", "first"], "q": [1, 1, 2, 2]})
    >>> [float(rr.matrix[0, 1]) for rr in round_robins(load_comparisons(df, context="q"), kind="Z")]
    [1.0, 0.0]
    """
    if kind not in ("W", "Z"):
        raise ValueError(f"kind must be 'W' or 'Z', got {kind!r}")
    data = data.one_judge(judge, hint="pass judge=… to pick one")
    out: list[RoundRobin] = []
    skipped: list[str] = []
    for c, ctx in enumerate(data.contexts):
        block = data.for_context(c)
        try:
            if kind == "Z":
                y = _y_values(block)
                mat = (y - y.T) / 2.0
            else:
                mat = _w_values(block, require_complete=True)
        except DesignError as exc:
            if not skip_incomplete:
                raise DesignError(f"context {ctx!r}: {exc}") from None
            skipped.append(ctx)
            continue
        out.append(
            RoundRobin(
                context=ctx,
                items=block.items,
                item_names=block.item_names,
                matrix=_ro(mat),
                kind=kind,
            )
        )
    if skipped:
        warnings.warn(
            f"{len(skipped)} of {data.n_contexts} contexts skipped: they cannot build {kind} "
            f"({', '.join(skipped[:10])}{', …' if len(skipped) > 10 else ''})",
            DesignWarning,
            stacklevel=user_stacklevel(),
        )
    if not out:
        raise DesignError(f"no context can build {kind}")
    return out
