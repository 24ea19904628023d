"""Ranking logs: lists ranked by a judge, loaded once and validated once into :class:`Rankings`.

A *ranking* is one call of a listwise judge: the items of one list ordered best first. The log
is a long table with one row per item per list: the list's id, the item, its rank (1 = best)
and, optionally, the position the item was shown at (1 = shown first), the judge and the
context (question / prompt id: an item is then the pair ``(context, name)``, as in
:class:`~bayes_pairwise.data.Comparisons`).

Everything downstream (:class:`~bayes_pairwise.classical.plackett_luce.PlackettLuce`,
:class:`~bayes_pairwise.pymc_models.plackett_luce.NoisyPlackettLuce`, the strategies'
``propose_lists``) trusts a :class:`Rankings`; every check happens in :func:`load_rankings`, and
every failure is a :class:`~bayes_pairwise.errors.DataError` naming the column and the rows
(0-based positions in the input).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from os import PathLike
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.data import CONTEXT_SEP, Comparisons, locate_rows, read_table
from bayes_pairwise.errors import DataError

__all__ = ["RankTiePolicy", "Rankings", "load_rankings", "rankings_from_arrays"]

RankTiePolicy = Literal["error", "drop"]
_TIE_POLICIES = ("error", "drop")
_FLAGS = {
    "list": "--list-column",
    "item": "--item-column",
    "rank": "--rank-column",
    "shown": "--shown-column",
    "judge": "--judge-column",
    "context": "--context-column",
}


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Rankings:
    """An immutable, validated ranking log (one ranked list per judge call).

    Build it with :func:`load_rankings`. Arrays are read-only; the per-list arrays have one row
    per list and ``max_length`` columns, padded with −1 after a list's last rank.

    Attributes
    ----------
    items, item_names : tuple of str
        Item labels (``"{context}::{name}"`` with contexts) and names within their context.
    item_context : ndarray of int, shape (n_items,)
        Context index of each item.
    contexts, judges, lists : tuple of str
        Context labels (``("all",)`` without a context column), judge labels (``("judge",)``
        without a judge column) and list ids, in the order of the per-list arrays.
    ranked : ndarray of int, shape (n_lists, max_length)
        Item index at each rank, best first.
    shown : ndarray of int, shape (n_lists, max_length)
        Shown slot (0 = shown first) of the item at each rank; −1 when the log has no shown
        column, and in the padding.
    length : ndarray of int, shape (n_lists,)
        Items in each list (2 or more).
    judge : ndarray of int, shape (n_lists,)
        Judge index of each list.
    row : ndarray of int, shape (n_lists, max_length)
        Input row of each entry of ``ranked`` (−1 in the padding), for messages.
    n_ties_dropped : int
        Lists dropped for a tie in rank (``ties="drop"``).
    source : str
        Where the data came from.

    Examples
    --------
    >>> df = pd.DataFrame({"list": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "b", "c"],
    ...                    "rank": [2, 1, 3, 1, 2]})
    >>> r = load_rankings(df)
    >>> r.items, r.n_lists, r.ranked.tolist()
    (('a', 'b', 'c'), 2, [[1, 0, 2], [1, 2, -1]])
    >>> r.n_comparisons  # implied pairs: 3 + 1
    4
    """

    items: tuple[str, ...]
    item_names: tuple[str, ...]
    item_context: np.ndarray
    contexts: tuple[str, ...]
    judges: tuple[str, ...]
    lists: tuple[str, ...]
    ranked: np.ndarray
    shown: np.ndarray
    length: np.ndarray
    judge: np.ndarray
    row: np.ndarray
    has_shown: bool = False
    has_context_column: bool = False
    has_judge_column: bool = False
    n_ties_dropped: int = 0
    source: str = "DataFrame"

    # ------------------------------------------------------------------ sizes
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_lists(self) -> int:
        """Number of ranked lists."""
        return int(self.length.shape[0])

    @property
    def n_judges(self) -> int:
        """Number of judges."""
        return len(self.judges)

    @property
    def n_contexts(self) -> int:
        """Number of contexts."""
        return len(self.contexts)

    @property
    def has_contexts(self) -> bool:
        """True when items live inside several contexts."""
        return self.n_contexts > 1

    @property
    def max_length(self) -> int:
        """Items in the longest list."""
        return int(self.ranked.shape[1])

    @property
    def n_comparisons(self) -> int:
        """Number of implied pairwise verdicts, Σ k(k − 1)/2 over the lists."""
        k = self.length.astype(np.int64)
        return int(np.sum(k * (k - 1) // 2))

    def __repr__(self) -> str:
        return (
            f"Rankings({self.n_lists} lists of {int(self.length.min())}–{self.max_length} items, "
            f"{self.n_items} items, {self.n_judges} judge{'s' if self.n_judges != 1 else ''}, "
            f"shown order {'known' if self.has_shown else 'unknown'}, source={self.source!r})"
        )

    # ------------------------------------------------------------------ subsets
    def _take(self, idx: np.ndarray, **changes: Any) -> Rankings:
        idx = np.asarray(idx, dtype=np.int64)
        width = int(self.length[idx].max()) if idx.size else 0
        return replace(
            self,
            lists=tuple(self.lists[i] for i in idx),
            ranked=_readonly(self.ranked[idx, :width]),
            shown=_readonly(self.shown[idx, :width]),
            length=_readonly(self.length[idx]),
            row=_readonly(self.row[idx, :width]),
            **{"judge": _readonly(self.judge[idx]), **changes},
        )

    def judge_index(self, judge: str | int) -> int:
        """Index of a judge given its label or index."""
        if isinstance(judge, int | np.integer) and not isinstance(judge, bool):
            if 0 <= int(judge) < self.n_judges:
                return int(judge)
            raise KeyError(f"judge index {judge} out of range (0..{self.n_judges - 1})")
        if str(judge) in self.judges:
            return self.judges.index(str(judge))
        raise KeyError(f"unknown judge {judge!r}; judges are {list(self.judges)}")

    def for_judge(self, judge: str | int) -> Rankings:
        """The lists of one judge (items unchanged, so results line up with the whole log's).

        Examples
        --------
        >>> df = pd.DataFrame({"list": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
        ...                    "rank": [1, 2, 2, 1], "judge": ["x", "x", "y", "y"]})
        >>> load_rankings(df, judge="judge").for_judge("y").ranked.tolist()
        [[1, 0]]
        """
        j = self.judge_index(judge)
        idx = np.flatnonzero(self.judge == j)
        out = self._take(idx, judges=(self.judges[j],))
        return replace(out, judge=_readonly(np.zeros(idx.size, dtype=np.int64)))

    def for_context(self, context: str | int) -> Rankings:
        """The lists and items of one context, re-indexed to that context's items (as
        :meth:`Comparisons.for_context <bayes_pairwise.data.Comparisons.for_context>`).

        Examples
        --------
        >>> df = pd.DataFrame({"list": [1, 1, 2, 2, 2], "item": ["a", "b", "a", "b", "c"],
        ...                    "rank": [1, 2, 3, 1, 2], "q": ["x", "x", "y", "y", "y"]})
        >>> one = load_rankings(df, context="q").for_context("y")
        >>> one.items, one.ranked.tolist()
        (('y::a', 'y::b', 'y::c'), [[1, 2, 0]])
        """
        if isinstance(context, int | np.integer) and not isinstance(context, bool):
            c = int(context)
            if not 0 <= c < self.n_contexts:
                raise KeyError(f"context index {c} out of range (0..{self.n_contexts - 1})")
        elif str(context) in self.contexts:
            c = self.contexts.index(str(context))
        else:
            raise KeyError(f"unknown context {context!r}")
        keep_items = np.flatnonzero(self.item_context == c)
        remap = np.full(self.n_items, -1, dtype=np.int64)
        remap[keep_items] = np.arange(keep_items.size)
        out = self._take(np.flatnonzero(self.item_context[self.ranked[:, 0]] == c))
        ranked = np.where(out.ranked >= 0, remap[np.maximum(out.ranked, 0)], -1)
        return replace(
            out,
            items=tuple(self.items[i] for i in keep_items),
            item_names=tuple(self.item_names[i] for i in keep_items),
            item_context=_readonly(np.zeros(keep_items.size, dtype=np.int64)),
            contexts=(self.contexts[c],),
            ranked=_readonly(ranked),
        )

    def pool_judges(self, label: str = "all judges pooled") -> Rankings:
        """Every list as one judge's, named ``label``."""
        return replace(
            self,
            judges=(str(label),),
            judge=_readonly(np.zeros(self.n_lists, dtype=np.int64)),
            has_judge_column=False,
        )

    # ------------------------------------------------------------------ conversion
    def implied_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every implied pair of every list: ``(better, worse, list index)`` arrays.

        Examples
        --------
        >>> df = pd.DataFrame({"list": [1, 1, 1], "item": ["a", "b", "c"], "rank": [3, 1, 2]})
        >>> w, lo, li = load_rankings(df).implied_pairs()
        >>> list(zip(w.tolist(), lo.tolist()))  # b > c > a
        [(1, 2), (1, 0), (2, 0)]
        """
        ws, ls, lis = [], [], []
        for k in np.unique(self.length):
            idx = np.flatnonzero(self.length == k)
            i, j = np.triu_indices(int(k), 1)
            r = self.ranked[idx, :k]
            ws.append(r[:, i].ravel())
            ls.append(r[:, j].ravel())
            lis.append(np.repeat(idx, i.size))
        order = np.argsort(np.concatenate(lis), kind="stable")
        return (
            np.concatenate(ws)[order],
            np.concatenate(ls)[order],
            np.concatenate(lis)[order],
        )

    def to_comparisons(self) -> Comparisons:
        """The lists as their k(k − 1)/2 implied pairwise verdicts, as independent verdicts.

        When the shown order is known, ``first`` is the item of the pair shown earlier (so a
        positional model reads a list's pairs in their shown order); otherwise the better item
        is ``first``. ``row`` is the input row of the better item. This is the reading the
        pairwise tools need (Bradley–Terry, the error models); it treats the implied pairs as
        independent, which overstates what a list tells — the Plackett–Luce models read the
        lists themselves.

        Examples
        --------
        >>> df = pd.DataFrame({"list": [1, 1], "item": ["a", "b"], "rank": [2, 1]})
        >>> c = load_rankings(df).to_comparisons()
        >>> c.first.tolist(), c.second.tolist(), c.outcome.tolist()
        ([1], [0], [1.0])
        """
        w, lo, li = self.implied_pairs()
        pos = np.full((self.n_lists, self.n_items), -1, dtype=np.int64)
        rows = np.full((self.n_lists, self.n_items), -1, dtype=np.int64)
        for r in range(self.max_length):
            ok = self.ranked[:, r] >= 0
            pos[np.flatnonzero(ok), self.ranked[ok, r]] = self.shown[ok, r]
            rows[np.flatnonzero(ok), self.ranked[ok, r]] = self.row[ok, r]
        better_first = pos[li, w] < pos[li, lo] if self.has_shown else np.ones(w.size, dtype=bool)
        first = np.where(better_first, w, lo)
        second = np.where(better_first, lo, w)
        n = w.size
        return Comparisons(
            items=self.items,
            item_names=self.item_names,
            item_context=self.item_context,
            contexts=self.contexts,
            judges=self.judges,
            first=_readonly(first),
            second=_readonly(second),
            outcome=_readonly(better_first.astype(float)),
            judge=_readonly(self.judge[li]),
            repeat=_readonly(np.zeros(n, dtype=np.int64)),
            covariates=MappingProxyType({}),
            row=_readonly(rows[li, w]),
            tie_policy="error",
            source=f"{self.source} (implied pairs of {self.n_lists} lists)",
            has_context_column=self.has_context_column,
            has_judge_column=self.has_judge_column,
        )

    def to_frame(self) -> pd.DataFrame:
        """The log as a long table (one row per item per list), readable by
        :func:`load_rankings` (with ``shown="shown"`` and ``judge="judge"``).

        Examples
        --------
        >>> df = pd.DataFrame({"list": ["L1", "L1"], "item": ["a", "b"], "rank": [2, 1]})
        >>> load_rankings(df).to_frame()[["list", "item", "rank"]].values.tolist()
        [['L1', 'b', 1], ['L1', 'a', 2]]
        """
        ok = self.ranked >= 0
        li, r = np.nonzero(ok)
        names = np.asarray(self.item_names, dtype=object)
        out = pd.DataFrame(
            {
                "list": np.asarray(self.lists, dtype=object)[li],
                "item": names[self.ranked[li, r]],
                "rank": r + 1,
                "shown": self.shown[li, r] + 1,
                "judge": np.asarray(self.judges, dtype=object)[self.judge[li]],
                "context": np.asarray(self.contexts, dtype=object)[
                    self.item_context[self.ranked[li, r]]
                ],
            }
        )
        if not self.has_shown:
            out = out.drop(columns="shown")
        if not self.has_context_column:
            out = out.drop(columns="context")
        return out

    def first_shown_ranked_first(self) -> np.ndarray:
        """Per list: 1.0 when the item shown first was ranked first, else 0.0 (NaN without a
        shown column) — the list statistic of a first-shown bias.

        Examples
        --------
        >>> df = pd.DataFrame({"list": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
        ...                    "rank": [1, 2, 1, 2], "shown": [1, 2, 2, 1]})
        >>> load_rankings(df, shown="shown").first_shown_ranked_first().tolist()
        [1.0, 0.0]
        """
        if not self.has_shown:
            return np.full(self.n_lists, np.nan)
        return (self.shown[:, 0] == 0).astype(float)

    def settings(self) -> dict[str, Any]:
        """JSON-ready description of how the data were loaded (stored with every result)."""
        return {
            "kind": "rankings",
            "source": self.source,
            "n_lists": self.n_lists,
            "n_comparisons": self.n_comparisons,
            "n_items": self.n_items,
            "n_judges": self.n_judges,
            "n_contexts": self.n_contexts,
            "list_lengths": [int(self.length.min()), int(self.length.max())],
            "shown_order": bool(self.has_shown),
            "n_ties_dropped": int(self.n_ties_dropped),
            "judges": list(self.judges),
        }


# --------------------------------------------------------------------------- loading
def _label(v: Any) -> str:
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _ids(s: pd.Series, col: str) -> tuple[np.ndarray, list[str]]:
    """Codes and text labels of an id column; a missing or blank value is an error."""
    vals = s.to_numpy(dtype=object)
    miss = np.array(pd.isna(s), dtype=bool)
    labels = np.array(["" if m else _label(v) for v, m in zip(vals, miss, strict=True)], object)
    miss |= np.array([not lab.strip() for lab in labels], dtype=bool)
    if miss.any():
        raise DataError("missing value", rows=np.flatnonzero(miss), column=col)
    kinds = np.array([type(v).__name__ for v in vals], dtype=object)
    codes, uniq = pd.factorize(pd.Index(labels, dtype=object))
    kind_of = {}
    bad: list[int] = []
    for k, (c, kd) in enumerate(zip(codes, kinds, strict=True)):
        num = kd in ("int", "int64", "int32", "float", "float64", "float32")
        tag = "num" if num else kd
        if kind_of.setdefault(c, tag) != tag:
            bad.append(k)
    if bad:
        raise DataError(
            "values of different types would merge into one id: use one type per column",
            rows=bad,
            column=col,
        )
    return np.asarray(codes, dtype=np.int64), [str(u) for u in uniq]


def _integers(s: pd.Series, col: str, what: str) -> np.ndarray:
    vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(vals) | (vals != np.round(vals)) | (vals < 1)
    if bad.any():
        raise DataError(f"{what} must be a whole number >= 1", rows=np.flatnonzero(bad), column=col)
    return vals.astype(np.int64)


def _natural(labels: list[str]) -> list[int]:
    """Indexes of ``labels`` in natural order (numeric when all are numbers, else text)."""
    nums = []
    for v in labels:
        try:
            nums.append(float(v))
        except ValueError:
            return sorted(range(len(labels)), key=lambda k: labels[k])
    if not all(np.isfinite(nums)):
        return sorted(range(len(labels)), key=lambda k: labels[k])
    return sorted(range(len(labels)), key=lambda k: (nums[k], labels[k]))


def _rows_at_file_lines(load: Callable[..., Rankings]) -> Callable[..., Rankings]:
    """``load``'s errors about rows of a text file give the rows' lines as an editor shows
    them (``rows 0, 1: lines 2, 3 of lists.csv``), as :func:`load_comparisons`' do."""

    @functools.wraps(load)
    def located(source: Any, *args: Any, **kwargs: Any) -> Rankings:
        try:
            return load(source, *args, **kwargs)
        except DataError as exc:
            raise locate_rows(exc, source) from None

    return located


@_rows_at_file_lines
def load_rankings(
    source: pd.DataFrame | str | PathLike[str],
    *,
    list: str = "list",
    item: str = "item",
    rank: str = "rank",
    shown: str | None = None,
    judge: str | None = None,
    context: str | None = None,
    ties: RankTiePolicy = "error",
    source_name: str | None = None,
) -> Rankings:
    """Load and validate a ranking log (one row per item per ranked list).

    Parameters
    ----------
    source : DataFrame or path
        A DataFrame (never modified) or a ``.csv``/``.tsv``/``.parquet``/``.jsonl`` file, read
        as :func:`~bayes_pairwise.data.load_comparisons` reads it.
    list, item, rank : str
        Column names: the list's id, the item, and its rank in the list (whole number, 1 = best;
        only the order of the ranks within a list matters).
    shown : str, optional
        The position the item was shown at (whole numbers; their order within a list is the
        shown order, 1 = first). Needed to measure a judge's position bias.
    judge, context : str, optional
        The judge of each list (one per list) and the context (question / prompt id; one per
        list, an item is then the pair (context, name)).
    ties : {"error", "drop"}
        Two items of one list with the same rank: raise naming the rows, or drop that list
        (counted in ``n_ties_dropped``).
    source_name : str, optional
        Name recorded in ``Rankings.source``.

    Returns
    -------
    Rankings

    Raises
    ------
    DataError
        Unreadable file, a missing column, an empty log, missing values, a rank or shown
        position that is not a whole number ≥ 1, an item twice in one list, two items shown at
        the same position, a list of one item, a judge or context that changes within a list,
        or a tie under ``ties="error"``. The message names the column and the rows.

    Examples
    --------
    >>> df = pd.DataFrame({"list": [1, 1, 1, 2, 2, 2], "item": ["a", "b", "c", "a", "b", "c"],
    ...                    "rank": [1, 2, 3, 3, 1, 2], "shown": [1, 2, 3, 1, 2, 3]})
    >>> r = load_rankings(df, shown="shown")
    >>> r.ranked.tolist(), r.shown.tolist()
    ([[0, 1, 2], [1, 2, 0]], [[0, 1, 2], [1, 2, 0]])
    >>> df.loc[5, "rank"] = 1
    >>> load_rankings(df)
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DataError: tie in rank within a list: ... (column 'rank', rows 4, 5)
    """
    if ties not in _TIE_POLICIES:
        raise DataError(f"ties must be one of {_TIE_POLICIES} for rankings, got {ties!r}")
    frame, name = read_table(source)
    roles = {"list": list, "item": item, "rank": rank, "shown": shown, "judge": judge}
    roles["context"] = context
    used = {r: c for r, c in roles.items() if c is not None}
    for role, col in used.items():
        if col not in frame.columns:
            cols = ", ".join(map(str, frame.columns[:12]))
            raise DataError(
                f"column not found; the table has columns {cols} (name it with {role}=… or "
                f"CLI {_FLAGS[role]})",
                column=col,
            )
        if int(np.sum(frame.columns == col)) > 1:
            raise DataError("the column name appears more than once; rename it", column=col)
    if len(set(used.values())) != len(used):
        raise DataError(f"one column named for two roles: {used}")
    n = len(frame)
    if n == 0:
        raise DataError("the ranking log is empty")

    def column(c: str) -> pd.Series:
        return frame[c].reset_index(drop=True)

    l_code, l_lab = _ids(column(list), list)
    i_code, i_lab = _ids(column(item), item)
    rk = _integers(column(rank), rank, "rank")
    sh = _integers(column(shown), shown, "shown position") if shown else None
    j_code, j_lab = _ids(column(judge), judge) if judge else (np.zeros(n, np.int64), ["judge"])
    c_code, c_lab = _ids(column(context), context) if context else (np.zeros(n, np.int64), ["all"])

    # rows of a list together, in rank order (ties in rank: input order)
    order = np.lexsort((np.arange(n), rk, l_code))
    lo = l_code[order]
    starts = np.flatnonzero(np.r_[True, lo[1:] != lo[:-1]])
    sizes = np.diff(np.r_[starts, n])
    list_of_row = np.repeat(np.arange(starts.size), sizes)  # in sorted order
    pos_in_list = np.arange(n) - np.repeat(starts, sizes)

    for c_arr, col, what in ((j_code, judge, "judge"), (c_code, context, "context")):
        if col is None:
            continue
        first_val = c_arr[order][starts]
        diff = c_arr[order] != np.repeat(first_val, sizes)
        if diff.any():
            bad_lists = np.unique(list_of_row[diff])
            rows = np.sort(order[np.isin(list_of_row, bad_lists)])
            raise DataError(f"one list holds rows of more than one {what}", rows=rows, column=col)
    one = sizes < 2
    if one.any():
        rows = np.sort(order[np.isin(list_of_row, np.flatnonzero(one))])
        raise DataError("a list needs at least 2 items", rows=rows, column=list)
    # an item twice in one list
    key = lo * (len(i_lab) + 1) + i_code[order]
    srt = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[srt][1:] == key[srt][:-1])
    if dup.size:
        rows = np.sort(np.unique(order[np.r_[srt[dup], srt[dup + 1]]]))
        raise DataError("an item appears twice in one list", rows=rows, column=item)
    if sh is not None:
        skey = lo * (int(sh.max()) + 1) + sh[order]
        srt = np.argsort(skey, kind="stable")
        dup = np.flatnonzero(skey[srt][1:] == skey[srt][:-1])
        if dup.size:
            rows = np.sort(np.unique(order[np.r_[srt[dup], srt[dup + 1]]]))
            raise DataError(
                "two items of one list shown at the same position", rows=rows, column=shown
            )
    # ties in rank within a list
    rs = rk[order]
    tie = np.flatnonzero((rs[1:] == rs[:-1]) & (lo[1:] == lo[:-1]))
    keep_list = np.ones(starts.size, dtype=bool)
    if tie.size:
        tie_rows = np.sort(np.unique(order[np.r_[tie, tie + 1]]))
        if ties == "error":
            raise DataError(
                "tie in rank within a list: a ranking must order every item of its list; drop "
                "those lists with ties='drop' (CLI --ties drop) or break the ties",
                rows=tie_rows,
                column=rank,
            )
        keep_list[list_of_row[tie]] = False
        if not keep_list.any():
            raise DataError("no lists left after dropping the lists with ties", column=rank)
    n_dropped = int((~keep_list).sum())

    # items (context, name) in natural order, over the lists kept
    keep_row = keep_list[list_of_row]
    rows_kept = order[keep_row]
    ctx_perm = _natural(c_lab)
    ctx_rank = np.empty(len(c_lab), dtype=np.int64)
    ctx_rank[ctx_perm] = np.arange(len(c_lab))
    pair_key = ctx_rank[c_code[rows_kept]] * len(i_lab) + i_code[rows_kept]
    keys = np.unique(pair_key)
    kc, kn = keys // len(i_lab), keys % len(i_lab)
    item_rows: list[tuple[int, int]] = []
    for c in np.unique(kc):
        names_c = kn[kc == c]
        labs = [i_lab[k] for k in names_c]
        item_rows.extend((int(c), int(names_c[p])) for p in _natural(labs))
    item_index = {key: k for k, key in enumerate(item_rows)}
    contexts_used = sorted({c for c, _ in item_rows})
    ctx_new = {c: k for k, c in enumerate(contexts_used)}
    contexts = tuple(c_lab[ctx_perm[c]] for c in contexts_used)
    item_names = tuple(i_lab[nm] for _, nm in item_rows)
    item_context = np.array([ctx_new[c] for c, _ in item_rows], dtype=np.int64)
    items = item_names
    if context:
        items = tuple(
            f"{contexts[c]}{CONTEXT_SEP}{nm}"
            for c, nm in zip(item_context, item_names, strict=True)
        )
        if len(set(items)) != len(items):
            raise DataError(
                f"item labels are not unique after combining context and name with {CONTEXT_SEP!r}",
                column=context,
            )
    lut = np.full(len(contexts_used) and (max(contexts_used) + 1) * len(i_lab), -1, np.int64)
    for (c, nm), k in item_index.items():
        lut[c * len(i_lab) + nm] = k
    item_of_row = np.full(n, -1, dtype=np.int64)
    item_of_row[rows_kept] = lut[pair_key]

    kept = np.flatnonzero(keep_list)
    width = int(sizes[kept].max())
    m = kept.size
    ranked = np.full((m, width), -1, dtype=np.int64)
    shown_arr = np.full((m, width), -1, dtype=np.int64)
    row_arr = np.full((m, width), -1, dtype=np.int64)
    new_list = np.full(starts.size, -1, dtype=np.int64)
    new_list[kept] = np.arange(m)
    li = new_list[list_of_row[keep_row]]
    pi = pos_in_list[keep_row]
    ranked[li, pi] = item_of_row[rows_kept]
    row_arr[li, pi] = rows_kept
    if sh is not None:
        # slot = order of the shown values within the list (0 = shown first)
        sv = sh[rows_kept]
        o2 = np.lexsort((sv, li))
        slot = np.empty(rows_kept.size, dtype=np.int64)
        st = np.flatnonzero(np.r_[True, li[o2][1:] != li[o2][:-1]])
        cnt = np.diff(np.r_[st, o2.size])
        slot[o2] = np.arange(o2.size) - np.repeat(st, cnt)
        shown_arr[li, pi] = slot
    j_perm = _natural(j_lab)
    j_rank = np.empty(len(j_lab), dtype=np.int64)
    j_rank[j_perm] = np.arange(len(j_lab))
    list_judge = j_rank[j_code[order[starts[kept]]]]
    used_j = np.unique(list_judge)
    j_new = np.full(len(j_lab), -1, dtype=np.int64)
    j_new[used_j] = np.arange(used_j.size)
    judges = tuple(j_lab[j_perm[j]] for j in used_j)
    list_ids = tuple(l_lab[lo[starts[k]]] for k in kept)
    return Rankings(
        items=items,
        item_names=item_names,
        item_context=_readonly(item_context),
        contexts=contexts,
        judges=judges,
        lists=list_ids,
        ranked=_readonly(ranked),
        shown=_readonly(shown_arr),
        length=_readonly(sizes[kept].astype(np.int64)),
        judge=_readonly(j_new[list_judge]),
        row=_readonly(row_arr),
        has_shown=sh is not None,
        has_context_column=bool(context),
        has_judge_column=bool(judge),
        n_ties_dropped=n_dropped,
        source=source_name or name,
    )


def rankings_from_arrays(
    ranked: np.ndarray,
    *,
    shown: np.ndarray | None = None,
    judge: np.ndarray | None = None,
    items: list[str] | None = None,
    judges: list[str] | None = None,
) -> Rankings:
    """A :class:`Rankings` from arrays of item indexes (rows best first, all of one length).

    ``shown[l, r]`` is the shown slot (0 = first) of the item at rank r of list l; ``judges``
    names the judge indexes (default: their numbers). Used by the simulations and benchmarks; a
    user's log goes through :func:`load_rankings`.

    Examples
    --------
    >>> r = rankings_from_arrays(np.array([[2, 0, 1]]))
    >>> r.items, r.ranked.tolist()
    (('0', '1', '2'), [[2, 0, 1]])
    """
    rk = np.asarray(ranked, dtype=np.int64)
    m, k = rk.shape
    n_items = int(rk.max()) + 1 if items is None else len(items)
    labels = [str(i) for i in range(n_items)] if items is None else [str(v) for v in items]
    jd = np.zeros(m, dtype=np.int64) if judge is None else np.asarray(judge, dtype=np.int64)
    n_j = int(jd.max()) + 1 if m else 1
    frame = {
        "list": np.repeat(np.arange(m), k),
        "item": np.asarray(labels, dtype=object)[rk.ravel()],
        "rank": np.tile(np.arange(1, k + 1), m),
        "judge": np.repeat(jd if judges is None else np.asarray(judges, dtype=object)[jd], k),
    }
    if shown is not None:
        frame["shown"] = np.asarray(shown, dtype=np.int64).ravel() + 1
    out = load_rankings(
        pd.DataFrame(frame),
        shown="shown" if shown is not None else None,
        judge="judge" if n_j > 1 else None,
        source_name="arrays",
    )
    if items is not None and out.items != tuple(labels):
        # keep the caller's item order (load_rankings sorts naturally, items may be missing)
        pos = {lab: i for i, lab in enumerate(labels)}
        remap = np.array([pos[x] for x in out.items], dtype=np.int64)
        ranked_new = np.where(out.ranked >= 0, remap[np.maximum(out.ranked, 0)], -1)
        out = replace(
            out,
            items=tuple(labels),
            item_names=tuple(labels),
            item_context=_readonly(np.zeros(len(labels), dtype=np.int64)),
            ranked=_readonly(ranked_new),
        )
    return out
