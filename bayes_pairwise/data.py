"""Comparison logs: load once, validate once, into an immutable :class:`Comparisons`.

A *comparison* is one verdict of one judge: item ``first`` shown first, item ``second`` shown
second, and the outcome (``first`` / ``second`` / ``tie``, or the id of the winning item).
Optional columns: ``judge``, ``context`` (question/prompt id: an item is then the pair
``(context, name)``), ``repeat`` and numeric covariates.

Everything downstream trusts a :class:`Comparisons`; all checks happen in
:func:`load_comparisons`, and every failure is a :class:`~bayes_pairwise.errors.DataError` that
names the offending column and row positions.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import CONTEXT_SEP, TIE_POLICIES, name_list, resolve_ties
from bayes_pairwise.errors import DataError, DesignWarning, user_stacklevel
from bayes_pairwise.layouts import (
    ARENA,
    ARENA_ORDER_NOTE,
    ORDER_NOT_RECORDED,
    refuse_ambiguous_winners,
    reshape,
    winner_side_map,
)

__all__ = [
    "Comparisons",
    "DataSummary",
    "load_comparisons",
    "locate_rows",
    "read_columns",
    "read_table",
]

TiePolicy = Literal["error", "drop", "half", "model"]
_LABELS = {"first": 1.0, "second": 0.0, "tie": 0.5}


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def _natural_unique(values: pd.Series) -> list[Any]:
    """Unique values, sorted numerically when all are numbers, else as strings."""
    uniq = pd.unique(values.to_numpy(dtype=object))
    try:
        nums = [float(v) for v in uniq]
        if all(np.isfinite(nums)):
            return [u for _, u in sorted(zip(nums, uniq, strict=True), key=lambda t: t[0])]
    except (TypeError, ValueError):
        pass
    return sorted(uniq, key=str)


def _as_label(v: Any) -> str:
    """Turn an id into a string label (``3.0`` → ``"3"``)."""
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)


@dataclass(frozen=True, eq=False)
class Comparisons:
    """An immutable, validated comparison log.

    Build it with :func:`load_comparisons`; do not construct it by hand. All arrays are
    read-only and have one entry per verdict unless stated otherwise.

    Attributes
    ----------
    items : tuple of str
        Item labels; the position is the item index. With contexts a label is
        ``"{context}::{name}"``.
    item_names : tuple of str
        The item's name inside its context (equal to ``items`` without contexts).
    item_context : ndarray of int, shape (n_items,)
        Context index of each item.
    contexts : tuple of str
        Context labels (``("all",)`` when the log has no context column).
    judges : tuple of str
        Judge labels (``("judge",)`` when the log has no judge column).
    first, second : ndarray of int
        Index of the item shown first / second.
    outcome : ndarray of float
        1.0 when the first-shown item is preferred, 0.0 when the second-shown one is, 0.5 for a
        tie (only under ``tie_policy="half"`` or ``"model"``).
    judge : ndarray of int
        Judge index of each verdict.
    repeat : ndarray of int
        Repeat number of each verdict (0 when the log has none).
    covariates : Mapping[str, ndarray]
        Contest-level numeric covariates, read-only.
    row : ndarray of int
        Position (0-based) of each verdict in the user's input, for error messages.
    tie_policy : {"error", "drop", "half", "model"}
        How ties were handled (``"model"``: kept as under ``"half"``, for tie-aware models).
    n_ties, n_ties_dropped : int
        Ties found in the input (of the judges / contexts kept), and how many were dropped.
    dropped_tie_judge, dropped_tie_item : ndarray of int
        Judge and first-shown item of each dropped tie (so subsets report their own counts).
    truth : ndarray of int
        Gold label of each verdict: the index of the truly better item of its pair, −1 where
        unknown (all −1 unless loaded with ``truth=``; ``docs/src/gold_labels.md``).
    source : str
        Where the data came from.
    recognised : tuple of str
        One line per choice :func:`load_comparisons` made by itself (``detect=True``): a
        recognised layout or an optional column read by its name, e.g. ``"column 'judge' read
        as the judge"``. Empty when every column was named.
    layout : str or None
        The known layout the log was read as (``"MT-Bench pairwise judgments"``,
        ``"AlpacaEval annotations"``, ``"Chatbot Arena battles"``, …; see
        :mod:`bayes_pairwise.layouts`), None for a plain one-verdict-per-row log.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "a", "c"],
    ...                    "outcome": ["first", "second", "c"]})
    >>> data = load_comparisons(df)
    >>> data.items, data.n_comparisons
    (('a', 'b', 'c'), 3)
    >>> data.outcome.tolist()
    [1.0, 0.0, 0.0]
    """

    items: tuple[str, ...]
    item_names: tuple[str, ...]
    item_context: np.ndarray
    contexts: tuple[str, ...]
    judges: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    judge: np.ndarray
    repeat: np.ndarray
    covariates: Mapping[str, np.ndarray] = field(default_factory=dict)
    row: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tie_policy: str = "error"
    n_ties: int = 0
    n_ties_dropped: int = 0
    source: str = "DataFrame"
    has_context_column: bool = False
    has_judge_column: bool = False
    dropped_tie_judge: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    dropped_tie_item: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    truth: np.ndarray | None = None
    recognised: tuple[str, ...] = ()
    layout: str | None = None
    weight: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.truth is None:
            unknown = np.full(self.first.shape[0], -1, dtype=np.int64)
            object.__setattr__(self, "truth", _readonly(unknown))

    # ------------------------------------------------------------------ sizes
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_judges(self) -> int:
        """Number of judges."""
        return len(self.judges)

    @property
    def n_contexts(self) -> int:
        """Number of contexts."""
        return len(self.contexts)

    @property
    def n_comparisons(self) -> int:
        """Number of verdicts kept."""
        return int(self.first.shape[0])

    @property
    def has_contexts(self) -> bool:
        """True when items live inside several contexts (questions / prompts)."""
        return self.n_contexts > 1

    @property
    def integer_outcomes(self) -> bool:
        """True when every outcome is a win or a loss (no half-counted tie)."""
        return bool(np.all(self.outcome != 0.5))

    @property
    def order_recorded(self) -> bool:
        """False where the log does not record which text was shown first (e.g. Chatbot
        Arena's battles: 'first' is model_a, a nominal label), so that no position parameter
        (ε₊, ε₋, γ, the first-position win rate) means anything; the loader marks such data in
        ``source``."""
        return ORDER_NOT_RECORDED not in self.source

    @property
    def has_truth(self) -> bool:
        """True when at least one verdict carries a gold label (``truth`` ≥ 0)."""
        return bool(np.any(np.asarray(self.truth) >= 0))

    @property
    def n_labelled(self) -> int:
        """Number of verdicts with a gold label."""
        return int(np.sum(np.asarray(self.truth) >= 0))

    @property
    def covariate_names(self) -> tuple[str, ...]:
        """Names of the covariate columns."""
        return tuple(self.covariates)

    def __repr__(self) -> str:
        return (
            f"Comparisons({self.n_comparisons} verdicts, {self.n_items} items, "
            f"{self.n_judges} judge{'s' if self.n_judges != 1 else ''}, "
            f"{self.n_contexts} context{'s' if self.n_contexts != 1 else ''}, "
            f"ties={self.tie_policy!r}, source={self.source!r})"
        )

    # ------------------------------------------------------------- subsetting
    def _take(self, idx: np.ndarray, **changes: Any) -> Comparisons:
        idx = np.asarray(idx)
        cov = MappingProxyType({k: _readonly(v[idx]) for k, v in self.covariates.items()})
        return replace(
            self,
            first=_readonly(self.first[idx]),
            second=_readonly(self.second[idx]),
            outcome=_readonly(self.outcome[idx]),
            judge=_readonly(self.judge[idx]),
            repeat=_readonly(self.repeat[idx]),
            row=_readonly(self.row[idx]),
            truth=_readonly(np.asarray(self.truth)[idx]),
            covariates=cov,
            **({} if self.weight is None else {"weight": _readonly(self.weight[idx])}),
            **changes,
        )

    def _keep_items(self, keep_items: np.ndarray, **changes: Any) -> Comparisons:
        """A copy restricted to the items ``keep_items`` (sorted indexes) and their contexts.

        Every verdict and dropped tie must involve kept items only; item, context and truth
        indexes are re-numbered, the order of items and contexts kept.
        """
        keep_items = np.asarray(keep_items, dtype=np.int64)
        remap = np.full(self.n_items, -1, dtype=np.int64)
        remap[keep_items] = np.arange(keep_items.size)
        ctx_old = np.asarray(self.item_context)[keep_items]
        keep_ctx = np.unique(ctx_old)
        ctx_map = np.full(self.n_contexts, -1, dtype=np.int64)
        ctx_map[keep_ctx] = np.arange(keep_ctx.size)
        truth = np.asarray(self.truth)
        return replace(
            self,
            items=tuple(self.items[i] for i in keep_items),
            item_names=tuple(self.item_names[i] for i in keep_items),
            item_context=_readonly(ctx_map[ctx_old]),
            contexts=tuple(self.contexts[c] for c in keep_ctx),
            first=_readonly(remap[self.first]),
            second=_readonly(remap[self.second]),
            truth=_readonly(np.where(truth >= 0, remap[np.maximum(truth, 0)], -1)),
            dropped_tie_item=_readonly(remap[self.dropped_tie_item]),
            **changes,
        )

    def judge_index(self, judge: str | int) -> int:
        """Index of a judge given its label or index.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "first"], "judge": ["x", "y"]})
        >>> load_comparisons(df, judge="judge").judge_index("y")
        1
        """
        if isinstance(judge, int | np.integer) and not isinstance(judge, bool):
            if 0 <= int(judge) < self.n_judges:
                return int(judge)
            raise KeyError(f"judge index {judge} out of range (0..{self.n_judges - 1})")
        if str(judge) in self.judges:
            return self.judges.index(str(judge))
        raise KeyError(f"unknown judge {judge!r}; judges are {list(self.judges)}")

    def for_judge(self, judge: str | int) -> Comparisons:
        """The verdicts of one judge, restricted to the items and contexts that judge saw.

        Items and contexts keep their order and are re-indexed; the first-shown item of each of
        the judge's dropped ties is kept too (the tie bookkeeping refers to it). Item labels are
        unchanged, so per-judge results keyed by item label line up with the whole log's.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b", "c"], "second": ["b", "a", "a"],
        ...                    "outcome": ["first", "first", "c"], "judge": ["x", "y", "y"]})
        >>> data = load_comparisons(df, judge="judge")
        >>> data.items, data.for_judge("x").items, data.for_judge("x").n_comparisons
        (('a', 'b', 'c'), ('a', 'b'), 1)
        """
        j = self.judge_index(judge)
        idx = np.flatnonzero(self.judge == j)
        keep = self.dropped_tie_judge == j
        n_dropped = int(keep.sum())
        out = self._take(
            idx,
            judges=(self.judges[j],),
            n_ties_dropped=n_dropped,
            n_ties=n_dropped + int(np.sum(self.outcome[idx] == 0.5)),
            dropped_tie_judge=_readonly(np.zeros(n_dropped, dtype=np.int64)),
            dropped_tie_item=_readonly(self.dropped_tie_item[keep]),
        )
        out = replace(out, judge=_readonly(np.zeros(len(idx), dtype=np.int64)))
        seen = np.unique(np.concatenate([out.first, out.second, out.dropped_tie_item]))
        if seen.size == self.n_items:
            return out
        return out._keep_items(seen)

    def one_judge(
        self, judge: str | int | None = None, *, hint: str = "pass judge=…"
    ) -> Comparisons:
        """The verdicts of ``judge``, or the whole log when it holds a single judge.

        Raises
        ------
        DesignError
            When ``judge`` is None and the log holds several judges (``hint`` says what to do).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "first"], "judge": ["x", "y"]})
        >>> load_comparisons(df, judge="judge").one_judge("y").judges
        ('y',)
        """
        if judge is not None:
            return self.for_judge(judge)
        if self.n_judges > 1:
            from bayes_pairwise.errors import DesignError

            raise DesignError(
                f"the data hold {self.n_judges} judges ({name_list(self.judges)}); {hint}"
            )
        return self

    def by_judge(self) -> Iterator[tuple[str, Comparisons]]:
        """Iterate over ``(judge label, that judge's Comparisons)``."""
        for name in self.judges:
            yield name, self.for_judge(name)

    def for_context(self, context: str | int) -> Comparisons:
        """The verdicts and items of one context, re-indexed to that context's items."""
        if isinstance(context, int | np.integer) and not isinstance(context, bool):
            c = int(context)
        else:
            if str(context) not in self.contexts:
                raise KeyError(f"unknown context {context!r}")
            c = self.contexts.index(str(context))
        keep_items = np.flatnonzero(self.item_context == c)
        remap = np.full(self.n_items, -1, dtype=np.int64)
        remap[keep_items] = np.arange(len(keep_items))
        idx = np.flatnonzero(remap[self.first] >= 0)
        keep = remap[self.dropped_tie_item] >= 0
        n_dropped = int(keep.sum())
        out = self._take(
            idx,
            n_ties_dropped=n_dropped,
            n_ties=n_dropped + int(np.sum(self.outcome[idx] == 0.5)),
            dropped_tie_judge=_readonly(self.dropped_tie_judge[keep]),
            dropped_tie_item=_readonly(remap[self.dropped_tie_item[keep]]),
        )
        return replace(
            out,
            items=tuple(self.items[i] for i in keep_items),
            item_names=tuple(self.item_names[i] for i in keep_items),
            item_context=_readonly(np.zeros(len(keep_items), dtype=np.int64)),
            contexts=(self.contexts[c],),
            first=_readonly(remap[out.first]),
            second=_readonly(remap[out.second]),
            truth=_readonly(np.where(out.truth >= 0, remap[np.maximum(out.truth, 0)], -1)),
        )

    def pool_contexts(self) -> Comparisons:
        """Merge contexts: items become their names (e.g. rank answer models across questions).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "a"], "second": ["b", "b"],
        ...                    "outcome": ["first", "second"], "q": [1, 2]})
        >>> data = load_comparisons(df, context="q")
        >>> data.items
        ('1::a', '1::b', '2::a', '2::b')
        >>> data.pool_contexts().items
        ('a', 'b')
        """
        names = sorted(set(self.item_names), key=self.item_names.index)
        pos = {n: k for k, n in enumerate(names)}
        remap = np.array([pos[n] for n in self.item_names], dtype=np.int64)
        return replace(
            self,
            items=tuple(names),
            item_names=tuple(names),
            item_context=_readonly(np.zeros(len(names), dtype=np.int64)),
            contexts=("all",),
            first=_readonly(remap[self.first]),
            second=_readonly(remap[self.second]),
            has_context_column=False,
            dropped_tie_item=_readonly(remap[self.dropped_tie_item]),
            truth=_readonly(
                np.where(self.truth >= 0, remap[np.maximum(self.truth, 0)], -1).astype(np.int64)
            ),
        )

    def pool_judges(self, label: str = "all judges pooled") -> Comparisons:
        """Every verdict as one judge's, named ``label`` (e.g. one leaderboard of all judges).

        Nothing else changes: items, contexts, verdicts and ties stay as they are.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "first"], "judge": ["x", "y"]})
        >>> data = load_comparisons(df, judge="judge")
        >>> data.judges, data.pool_judges().judges
        (('x', 'y'), ('all judges pooled',))
        >>> data.pool_judges().n_comparisons == data.n_comparisons
        True
        """
        if self.n_judges == 1 and self.judges == (label,):
            return self
        return replace(
            self,
            judges=(str(label),),
            judge=_readonly(np.zeros_like(np.asarray(self.judge))),
            dropped_tie_judge=_readonly(np.zeros_like(np.asarray(self.dropped_tie_judge))),
            has_judge_column=False,
        )

    def drop_ties(self) -> Comparisons:
        """A copy without the ties kept under ``ties="half"`` or ``"model"`` (policy ``"drop"``).

        The dropped ties are counted in ``n_ties_dropped``, so the choice stays recorded. Use it
        to fit the binomial error models to data loaded with ``ties="half"`` for the win-count
        estimators and the Δ_S fit.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "a", "b"],
        ...                    "outcome": ["first", "tie", "second"]})
        >>> d = load_comparisons(df, ties="half").drop_ties()
        >>> d.n_comparisons, d.n_ties, d.n_ties_dropped, d.tie_policy
        (2, 1, 1, 'drop')
        """
        tie = self.outcome == 0.5
        if self.tie_policy not in ("half", "model") and not tie.any():
            return self
        keep = np.flatnonzero(~tie)
        if keep.size == 0:
            raise DataError("no comparisons left after dropping ties")
        return self._take(
            keep,
            tie_policy="drop",
            n_ties_dropped=self.n_ties_dropped + int(tie.sum()),
            dropped_tie_judge=_readonly(np.concatenate([self.dropped_tie_judge, self.judge[tie]])),
            dropped_tie_item=_readonly(np.concatenate([self.dropped_tie_item, self.first[tie]])),
        )

    def with_covariates(
        self, covariates: Mapping[str, Sequence[float] | np.ndarray]
    ) -> Comparisons:
        """A copy with extra contest-level covariates (one value per kept verdict).

        Raises
        ------
        DataError
            When a column has the wrong length or non-finite values.
        """
        cov = dict(self.covariates)
        for name, values in covariates.items():
            arr = np.asarray(values, dtype=float)
            if arr.shape != (self.n_comparisons,):
                raise DataError(
                    f"covariate needs {self.n_comparisons} values, got shape {arr.shape}",
                    column=str(name),
                )
            bad = np.flatnonzero(~np.isfinite(arr))
            if bad.size:
                raise DataError("covariate is not finite", rows=self.row[bad], column=str(name))
            cov[str(name)] = _readonly(arr)
        return replace(self, covariates=MappingProxyType(cov))

    @property
    def has_weights(self) -> bool:
        """True when the log carries per-verdict weights (``load_comparisons(weights=…)``)."""
        return self.weight is not None

    def with_weights(self, values: Sequence[float] | np.ndarray) -> Comparisons:
        """A copy with a weight per kept verdict (evalica / arena style), used by the win-count
        estimators: a verdict of weight w counts w times in the win matrix.

        Raises
        ------
        DataError
            Wrong length, or a weight that is not a finite number ≥ 0 (rows named).

        Examples
        --------
        >>> df = pd.DataFrame({"first": ["a", "a"], "second": ["b", "b"],
        ...                    "outcome": ["first", "second"]})
        >>> load_comparisons(df).with_weights([3.0, 1.0]).weight.tolist()
        [3.0, 1.0]
        """
        arr = np.asarray(values, dtype=float)
        if arr.shape != (self.n_comparisons,):
            raise DataError(f"weights need {self.n_comparisons} values, got shape {arr.shape}")
        bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
        if bad.size:
            raise DataError("a weight must be a finite number >= 0", rows=self.row[bad])
        return replace(self, weight=_readonly(arr))

    def without_weights(self) -> Comparisons:
        """A copy without per-verdict weights (each verdict counted once).

        Examples
        --------
        >>> df = pd.DataFrame({"first": ["a"], "second": ["b"], "outcome": ["first"]})
        >>> load_comparisons(df).with_weights([2.0]).without_weights().has_weights
        False
        """
        return self if self.weight is None else replace(self, weight=None)

    # ------------------------------------------------------------ conversion
    def to_frame(self) -> pd.DataFrame:
        """The log as a tidy DataFrame (one row per kept verdict).

        A ``context`` column is written only when the log was read with one, so that
        ``load_comparisons(data.to_frame())`` gives the same items back (a ``context`` column
        is read when present).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a"], "second": ["b"], "outcome": ["b"]})
        >>> load_comparisons(df).to_frame()[["first", "second", "outcome"]]
          first second outcome
        0     a      b  second
        """
        lab = np.array(["second", "tie", "first"], dtype=object)
        out = pd.DataFrame(
            {
                "first": np.asarray(self.item_names, dtype=object)[self.first],
                "second": np.asarray(self.item_names, dtype=object)[self.second],
                "outcome": lab[(self.outcome * 2).astype(int)],
                "judge": np.asarray(self.judges, dtype=object)[self.judge],
                "context": np.asarray(self.contexts, dtype=object)[self.item_context[self.first]],
                "repeat": self.repeat,
            }
        )
        if not self.has_context_column:
            out = out.drop(columns="context")
        for k, v in self.covariates.items():
            out[k] = v
        if self.has_truth:
            names = np.asarray([*self.item_names, None], dtype=object)
            out["truth"] = names[np.where(self.truth >= 0, self.truth, len(self.item_names))]
        if self.weight is not None:
            out["weight"] = self.weight
        out["row"] = self.row
        return out

    def summary(self) -> DataSummary:
        """Coverage of the log: both orders? repeats? ties? per judge.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "first"]})
        >>> s = load_comparisons(df).summary()
        >>> float(s.table.loc["judge", "share_pairs_both_orders"])
        1.0
        """
        rows = []
        lo = np.minimum(self.first, self.second)
        hi = np.maximum(self.first, self.second)
        for j, name in enumerate(self.judges):
            m = self.judge == j
            n = int(m.sum())
            key = lo[m].astype(np.int64) * self.n_items + hi[m]
            pair_keys, inv = np.unique(key, return_inverse=True)
            lo_first = (self.first[m] == lo[m]).astype(np.int64)
            k_plus = np.bincount(inv, weights=lo_first, minlength=len(pair_keys))
            k_tot = np.bincount(inv, minlength=len(pair_keys))
            both = np.mean((k_plus > 0) & (k_tot - k_plus > 0)) if len(pair_keys) else np.nan
            okey = self.first[m].astype(np.int64) * self.n_items + self.second[m]
            _, ocount = np.unique(okey, return_counts=True)
            out = self.outcome[m]
            rows.append(
                {
                    "judge": name,
                    "verdicts": n,
                    "items_seen": len(np.unique(np.concatenate([lo[m], hi[m]]))),
                    "unordered_pairs": len(pair_keys),
                    "share_pairs_both_orders": float(both),
                    "max_repeats_per_order": int(ocount.max()) if n else 0,
                    "first_position_win_rate_excl_ties": float(np.mean(out[out != 0.5] == 1.0))
                    if np.any(out != 0.5)
                    else float("nan"),
                    "ties_kept": int(np.sum(out == 0.5)),
                }
            )
        table = pd.DataFrame(rows).set_index("judge")
        return DataSummary(
            n_comparisons=self.n_comparisons,
            n_items=self.n_items,
            n_judges=self.n_judges,
            n_contexts=self.n_contexts,
            tie_policy=self.tie_policy,
            n_ties=self.n_ties,
            n_ties_dropped=self.n_ties_dropped,
            covariates=self.covariate_names,
            source=self.source,
            table=table,
        )

    def settings(self) -> dict[str, Any]:
        """JSON-ready description of how the data were loaded (stored with every result)."""
        return {
            "source": self.source,
            "n_comparisons": self.n_comparisons,
            "n_items": self.n_items,
            "n_judges": self.n_judges,
            "n_contexts": self.n_contexts,
            "tie_policy": self.tie_policy,
            "n_ties": self.n_ties,
            "n_ties_dropped": self.n_ties_dropped,
            "judges": list(self.judges),
            "covariates": list(self.covariate_names),
            **({"n_labelled": self.n_labelled} if self.has_truth else {}),
            **({"recognised": list(self.recognised)} if self.recognised else {}),
            **({"weighted": True} if self.weight is not None else {}),
        }


@dataclass(frozen=True)
class DataSummary:
    """What a comparison log covers; ``table`` has one row per judge."""

    n_comparisons: int
    n_items: int
    n_judges: int
    n_contexts: int
    tie_policy: str
    n_ties: int
    n_ties_dropped: int
    covariates: tuple[str, ...]
    source: str
    table: pd.DataFrame

    def __str__(self) -> str:
        head = (
            f"{self.n_comparisons} verdicts on {self.n_items} items "
            f"({self.n_contexts} context{'s' if self.n_contexts != 1 else ''}) "
            f"by {self.n_judges} judge{'s' if self.n_judges != 1 else ''}; "
            f"ties: {self.n_ties} found, policy {self.tie_policy!r}"
        )
        if self.n_ties_dropped:
            head += f", {self.n_ties_dropped} dropped"
        if self.covariates:
            head += f"; covariates: {', '.join(self.covariates)}"
        return f"{head}\nsource: {self.source}\n{self.table.to_string()}"

    def _repr_html_(self) -> str:
        """Notebook display: every user string escaped, invisible/bidi characters made visible."""
        from bayes_pairwise._html import esc, visible

        head, source = str(self).splitlines()[:2]
        table = self.table.to_html(escape=True, float_format=lambda x: f"{x:.3f}")
        return f"<p>{esc(head)}<br>{esc(source)}</p>" + visible(table, escaped=True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "n_comparisons": self.n_comparisons,
            "n_items": self.n_items,
            "n_judges": self.n_judges,
            "n_contexts": self.n_contexts,
            "tie_policy": self.tie_policy,
            "n_ties": self.n_ties,
            "n_ties_dropped": self.n_ties_dropped,
            "covariates": list(self.covariates),
            "source": self.source,
            "per_judge": json.loads(self.table.reset_index().to_json(orient="records")),
        }


# --------------------------------------------------------------------------- reading
_MIXED_KINDS = ("mixed", "mixed-integer", "mixed-integer-float", "unknown-array")
_KIND_OF_INFERRED = {"string": "str", "integer": "int", "floating": "float", "boolean": "bool"}


def _one_line(text: object) -> str:
    """An exception text on one line (pandas and the standard library add newlines)."""
    return " ".join(str(text).split())


def _file_kind(path: Path) -> str:
    suffixes = "".join(path.suffixes[-2:]).lower()
    if suffixes.endswith((".csv", ".csv.gz")):
        return "csv"
    if suffixes.endswith((".tsv", ".tsv.gz")):
        return "tsv"
    if suffixes.endswith(".parquet"):
        return "parquet"
    if suffixes.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return "jsonl"
    if suffixes.endswith(".json"):
        return "json"
    raise DataError(
        f"unsupported file type {path.suffix!r} for {path.name!r}: "
        "use .csv, .tsv, .parquet, .jsonl or .json"
    )


#: The largest comparison log read by default: 4 GiB of text (after decompression for ``.gz``)
#: or of Parquet. A larger file is refused with a :class:`DataError` before it fills the memory;
#: raise the limit with ``load_comparisons(max_bytes=…)`` or the CLI's ``--max-input-size``.
MAX_INPUT_BYTES = 4 * 2**30

_READ_BLOCK = 1 << 24  # bytes per read: SIGTERM and Ctrl-C are honoured between blocks


def _size_text(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n} bytes"


def _too_big(name: str, limit: int, size: int | None = None) -> DataError:
    cap = _size_text(limit) + (f" ({limit} bytes)" if limit >= 1024 else "")
    what = (
        f"is {_size_text(size)}, above the input size limit of {cap}"
        if size is not None
        else f"holds more than the input size limit of {cap} of text"
    )
    return DataError(
        f"{name!r} {what}: raise the limit with --max-input-size "
        "(Python: load_comparisons(max_bytes=...))"
    )


def _not_regular(mode: int) -> str | None:
    """What a file of this ``st_mode`` is, when it is not a regular file."""
    import stat

    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    for test, what in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "not a regular file"


def _check_path(source: str | PathLike[str], max_bytes: int | None = None) -> Path:
    """The path of a comparison log: an existing regular file within the size limit.

    A FIFO, a device (also through a symbolic link, e.g. to ``/dev/zero``) or a socket is
    refused without being opened: reading one may never end.
    """
    import os

    try:
        path = Path(source)
    except TypeError as exc:
        raise DataError(f"not a DataFrame or a file path: {type(source).__name__}") from exc
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise DataError(f"no such file: {str(path)!r}") from None
    except (OSError, ValueError) as exc:
        raise _read_error(str(path), exc) from None
    what = _not_regular(st.st_mode)
    if what == "a directory":
        raise DataError(f"{str(path)!r} is a directory, not a comparison log file")
    if what is not None:
        raise DataError(
            f"{str(path)!r} is {what}, not a regular file: save the comparison log to a file "
            "and pass that"
        )
    limit = _limit(max_bytes)
    if st.st_size > limit and not path.name.lower().endswith(".gz"):
        raise _too_big(path.name, limit, st.st_size)
    return path


def _limit(max_bytes: int | None) -> int:
    if max_bytes is None:
        return MAX_INPUT_BYTES
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | np.integer) or max_bytes < 1:
        raise DataError(f"max_bytes must be a positive integer, got {max_bytes!r}")
    return int(max_bytes)


def _open_binary(path: Path):
    import gzip

    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


class _Limited(io.RawIOBase):
    """A binary reader that raises :class:`DataError` once more than ``limit`` bytes were read."""

    def __init__(self, raw: Any, limit: int, name: str) -> None:
        self._raw, self._limit, self._name, self._n = raw, limit, name, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        view = memoryview(b)
        if len(view) > _READ_BLOCK:
            view = view[:_READ_BLOCK]
        n = self._raw.readinto(view)
        self._n += n or 0
        if self._n > self._limit:
            raise _too_big(self._name, self._limit)
        return n

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._raw.close()
        super().close()


def _read_bytes(fh: Any, limit: int, name: str, size: int = -1) -> bytes:
    """Up to ``size`` bytes (all when -1) in blocks, refusing more than ``limit``."""
    parts: list[bytes] = []
    total = 0
    while size < 0 or total < size:
        want = _READ_BLOCK if size < 0 else min(_READ_BLOCK, size - total)
        block = fh.read(want)
        if not block:
            break
        total += len(block)
        if total > limit:
            raise _too_big(name, limit)
        parts.append(block)
    return b"".join(parts)


def _read_error(name: str, exc: BaseException) -> DataError:
    if isinstance(exc, PermissionError):
        return DataError(f"cannot read {name!r}: permission denied")
    if isinstance(exc, IsADirectoryError):
        return DataError(f"{name!r} is a directory, not a comparison log file")
    reason = getattr(exc, "strerror", None) or _one_line(exc) or type(exc).__name__
    return DataError(f"cannot read {name!r}: {reason}")


def _check_bytes(data: bytes, name: str) -> None:
    if not data.strip() or data.strip() == b"\xef\xbb\xbf":
        raise DataError(f"{name!r} is empty")
    if b"\x00" in data[: 1 << 16]:
        raise DataError(
            f"{name!r} looks like a binary file, not UTF-8 text (it contains NUL bytes; "
            "UTF-16 files must be saved as UTF-8)"
        )


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{name!r} is not valid UTF-8 text (byte {exc.start}, line {line}): save it as UTF-8"
        ) from None


def _read_text(path: Path, limit: int = MAX_INPUT_BYTES) -> str:
    import zlib

    try:
        with _open_binary(path) as fh:
            data = _read_bytes(fh, limit, path.name)
    except (OSError, EOFError, zlib.error) as exc:
        raise _read_error(path.name, exc) from None
    _check_bytes(data, path.name)
    return _decode(data, path.name)


def _header_names(cells: Sequence[object], name: str) -> list[str]:
    """Column names of a text header: empty ones as pandas names them, duplicates rejected."""
    names = [str(c) if str(c) != "" else f"Unnamed: {k}" for k, c in enumerate(cells)]
    seen: dict[str, int] = {}
    for k, c in enumerate(names):
        if c in seen:
            raise DataError(
                f"duplicated column name {c!r} in the header of {name!r} (fields {seen[c] + 1} "
                f"and {k + 1}): every column needs its own name",
                column=c,
            )
        seen[c] = k
    return names


def _csv_records(text: str, sep: str) -> Iterator[tuple[int, int, list[str]]]:
    """(data row, line number, fields) of each record, skipping blank lines as pandas does.

    The header has data row -1.
    """
    import csv

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    r = -1
    while True:
        try:
            rec = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataError(
                f"could not parse line {reader.line_num} as CSV: {_one_line(exc)}"
            ) from None
        if not rec or (len(rec) == 1 and not rec[0].strip()):
            continue
        yield r, reader.line_num, rec
        r += 1


def _csv_lines(text: str, sep: str, rows: Sequence[int]) -> list[int]:
    """The line numbers (1-based, as an editor shows them) of data ``rows`` of a CSV text,
    counting records as the readers do (blank lines skipped, quoted line breaks inside a
    record); read only as far as the last of them. Empty where the text cannot be parsed."""
    want = set(rows)
    found: dict[int, int] = {}
    try:
        for r, line, _rec in _csv_records(text, sep):
            if r in want:
                found[r] = line
                if len(found) == len(want):
                    break
    except DataError:
        return []
    return [found[r] for r in rows if r in found] if len(found) == len(want) else []


def _ragged_row(text: str, sep: str, name: str) -> DataError | None:
    """The first record whose field count differs from the header's, as a DataError."""
    try:
        width = None
        for r, line, rec in _csv_records(text, sep):
            if width is None:
                width = len(rec)
            elif len(rec) != width:
                return DataError(
                    f"malformed {name!r}: the row has {len(rec)} field"
                    f"{'s' if len(rec) != 1 else ''} where the header has {width} "
                    "(data rows are counted from 0 after the header)",
                    rows=[r],
                    lines=[line],
                    file=name,
                )
    except DataError as exc:
        return DataError(f"malformed {name!r}: {exc.message}")
    return None


def _parse_csv(text: str, sep: str, name: str) -> pd.DataFrame:
    import csv

    try:
        raw = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skip_blank_lines=True,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        raise DataError(f"{name!r} is empty") from None
    except (pd.errors.ParserError, ValueError, csv.Error) as exc:
        ragged = _ragged_row(text, sep, name)
        if ragged is not None:
            raise ragged from None
        raise DataError(f"could not parse {name!r}: {_one_line(exc)}") from None
    if len(raw) == 0:  # pragma: no cover - pandas raises EmptyDataError first
        raise DataError(f"{name!r} is empty")
    cols = _header_names(raw.iloc[0].tolist(), name)
    body = raw.iloc[1:].reset_index(drop=True)
    body.columns = pd.Index(cols, dtype=object)
    return body


def _read_csv_arrow(path: Path, sep: str, limit: int = MAX_INPUT_BYTES) -> pd.DataFrame | None:
    """A plain CSV/TSV file as a frame of categorical text columns, or None.

    The fast, compact reader: pyarrow parses the file straight into dictionary-encoded strings
    (one small integer per cell, each distinct text once), so no Python string per cell is ever
    built. It only takes files whose reading cannot differ from :func:`_parse_csv`'s: a header
    on the first line without quotes, at least two columns, valid UTF-8, every record as wide
    as the header. Anything else (and any error) returns None, and the caller reads the file
    the general way, which also words the errors.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    try:
        with _open_binary(path) as fh:
            head = fh.read(1 << 16)
    except Exception:
        return None
    end = head.find(b"\n")
    line = head[:end] if end >= 0 else b""
    line = line.removeprefix(b"\xef\xbb\xbf").removesuffix(b"\r")
    if not line.strip() or any(c in line for c in (b'"', b"\r", b"\x00")):
        return None
    try:
        cells = line.decode("utf-8").split(sep)
        names = _header_names(cells, path.name)
    except (UnicodeDecodeError, DataError):
        return None
    if len(names) < 2 or b"\x00" in head:
        return None
    placeholder = [f"c{k}" for k in range(len(names))]
    text = pa.dictionary(pa.int32(), pa.string())
    gz = path.name.lower().endswith(".gz")
    try:
        # a .gz file is decompressed through a counting reader: the limit holds for its text
        src: Any = _Limited(_open_binary(path), limit, path.name) if gz else str(path)
        with pa.input_stream(src) as stream:
            table = pacsv.read_csv(
                stream,
                read_options=pacsv.ReadOptions(column_names=placeholder, skip_rows=1),
                parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
                convert_options=pacsv.ConvertOptions(
                    column_types=dict.fromkeys(placeholder, text),
                    null_values=[],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    check_utf8=True,
                ),
            )
        frame = table.to_pandas(self_destruct=True, split_blocks=True)
    except DataError:  # over the size limit
        raise
    except Exception as exc:  # a file pyarrow cannot read: the general reader decides, words it
        if isinstance(exc.__context__, DataError):  # over the limit, raised inside pyarrow
            raise exc.__context__ from None
        return None
    del table
    frame.columns = pd.Index(names, dtype=object)
    frame.index = pd.RangeIndex(len(frame))
    return frame


class _DupKeyError(ValueError):
    pass


class _JsonNumber:
    """A number of a JSON file, kept as the text written: ``1.10`` and ``1.1`` stay apart.

    Ids are read as the text written in every format, so ``1e400`` is not ``inf`` and ``-0.0``
    is not ``0``; where a number is meant (covariates, repeats, outcome codes) ``float()``
    reads it. It is not a ``str``: a number and the string of its text (``1`` and ``"1"``) are
    values of different types, refused as in a DataFrame.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def __hash__(self) -> int:
        return hash((_JsonNumber, self.text))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _JsonNumber) and other.text == self.text

    def __float__(self) -> float:
        return float(self.text)


def _json_loads(text: str) -> Any:
    """``json.loads`` keeping numbers as their text and refusing keys that appear twice."""
    return json.loads(
        text,
        object_pairs_hook=_no_duplicate_keys,
        parse_int=_JsonNumber,
        parse_float=_JsonNumber,
        parse_constant=_JsonNumber,
    )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DupKeyError(k)
            seen.add(k)
    return out


def _records_frame(records: Sequence[Any], name: str) -> pd.DataFrame:
    """Object columns from JSON records (Python types kept: no numeric inference)."""
    keys: dict[str, None] = {}
    for r, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise DataError(
                f"malformed {name!r}: a record must be a JSON object, got {type(rec).__name__}",
                rows=[r],
            )
        for k in rec:
            keys.setdefault(k, None)
    return pd.DataFrame(
        {k: pd.Series([rec.get(k) for rec in records], dtype=object) for k in keys},
        index=pd.RangeIndex(len(records)),
    )


def _json_lines(text: str, name: str) -> list[Any]:
    lines = [ln for ln in text.split("\n") if ln.strip()]
    try:
        return _json_loads("[" + ",".join(lines) + "]")
    except (json.JSONDecodeError, _DupKeyError, RecursionError):
        pass
    for r, ln in enumerate(lines):  # find the culprit line (slow path, errors only)
        at = {"rows": [r], "lines": _jsonl_lines(text, [r]), "file": name}
        try:
            _json_loads(ln)
        except _DupKeyError as exc:
            raise DataError(
                f"malformed {name!r}: key {exc.args[0]!r} appears twice in one record", **at
            ) from None
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DataError(f"malformed {name!r}: invalid JSON ({_one_line(exc)})", **at) from None
    raise DataError(f"malformed {name!r}: invalid JSON lines")  # pragma: no cover


def _parse_json(text: str, name: str, lines: bool) -> pd.DataFrame:
    if lines and text.lstrip().startswith("["):  # a JSON array, whatever the file is called
        lines = False
    if lines:
        return _records_frame(_json_lines(text, name), name)
    try:
        obj = _json_loads(text)
    except _DupKeyError as exc:
        raise DataError(f"malformed {name!r}: key {exc.args[0]!r} appears twice") from None
    except (json.JSONDecodeError, RecursionError):
        return _records_frame(_json_lines(text, name), name)
    if isinstance(obj, list):
        return _records_frame(obj, name)
    if isinstance(obj, dict) and obj and all(isinstance(v, dict) for v in obj.values()):
        index: dict[str, None] = {}
        for col in obj.values():
            for k in col:
                index.setdefault(k, None)
        return pd.DataFrame(
            {c: pd.Series([v.get(k) for k in index], dtype=object) for c, v in obj.items()}
        )
    if isinstance(obj, dict) and obj and all(isinstance(v, list) for v in obj.values()):
        lengths = {len(v) for v in obj.values()}
        if len(lengths) != 1:
            raise DataError(f"malformed {name!r}: columns have different lengths {sorted(lengths)}")
        return pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in obj.items()})
    if isinstance(obj, dict):
        return _records_frame([obj], name)
    raise DataError(
        f"malformed {name!r}: expected records (a list of objects or one object per line), "
        f"got a JSON {type(obj).__name__}"
    )


def _read_parquet_head(path: Path) -> None:
    """An unreadable or empty Parquet file's error, before pyarrow's own."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise _read_error(path.name, exc) from None
    if not head:
        raise DataError(f"{path.name!r} is empty")


def _read_parquet(path: Path, limit: int = MAX_INPUT_BYTES) -> pd.DataFrame:
    _read_parquet_head(path)
    try:
        return pd.read_parquet(path)
    except Exception as exc:
        raise DataError(f"could not read {path.name!r} as Parquet: {_one_line(exc)}") from None


@dataclass(frozen=True)
class _Source:
    frame: pd.DataFrame
    name: str
    ragged: Any = None  # callable returning a DataError for a ragged CSV, or None
    #: a text file's: callable mapping data rows to their line numbers (:func:`_csv_lines`)
    lines: Any = None
    #: a folder's files: (name relative to the folder, first row in ``frame``), in row order
    parts: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = ()
    #: a folder's files: the columns of each, in the order of ``parts``
    part_columns: tuple[tuple[str, ...], ...] = ()


def _folder(source: str | PathLike[str]) -> Path | None:
    """``source`` as a folder's path when it names one, else None (files, and every error,
    are :func:`_check_path`'s)."""
    try:
        path = Path(source)
        return path if path.is_dir() else None
    except (TypeError, OSError, ValueError):
        return None


def _folder_files(folder: Path, limit: int) -> tuple[list[Path], list[str]]:
    """The log files below ``folder`` in path order (hidden files and folders skipped) and the
    other files' names; an error when there is no log file or the files together pass the size
    limit."""
    files, other = [], []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or not p.is_file():
            continue
        try:
            _file_kind(p)
        except DataError:
            other.append(rel.as_posix())
            continue
        files.append(p)
    if not files:
        raise DataError(
            f"{str(folder)!r} is a directory with no comparison log file in it (.csv, .tsv, "
            ".parquet, .jsonl or .json, each optionally .gz)"
        )
    total = sum(p.stat().st_size for p in files)
    if total > limit and not all(p.name.lower().endswith(".gz") for p in files):
        raise _too_big(folder.name + "/", limit, total)
    return files, other


@contextlib.contextmanager
def _naming_the_file(folder: Path, rel: str) -> Iterator[None]:
    """A file's error inside a folder, with the file named."""
    try:
        yield
    except DataError as exc:
        raise DataError(f"{exc.message} (in {folder.name}/{rel})") from None


def _read_folder(folder: Path, limit: int) -> _Source:
    """Every log file below ``folder`` (sorted by path; hidden files and folders skipped),
    read as one log with its rows numbered across the files in that order: one judge's
    Arena-Hard-Auto judgments, one file per model. Files of another type are left out and
    named; the size limit holds for the files together."""
    files, other = _folder_files(folder, limit)
    frames, parts, start = [], [], 0
    for p in files:
        rel = p.relative_to(folder).as_posix()
        with _naming_the_file(folder, rel):
            frame = _read(p, limit).frame
        frames.append(frame)
        parts.append((rel, start))
        start += len(frame)
    frame = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]
    notes = [
        f"read {len(files)} file(s) of folder {folder.name!r} as one log, in path order "
        f"({files[0].relative_to(folder).as_posix()} first); rows are numbered across them "
        "and errors name the file"
    ]
    if other:
        shown = ", ".join(other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
        notes.append(f"{len(other)} file(s) of another type left out: {shown}")
    columns = tuple(tuple(str(c) for c in f.columns) for f in frames)
    return _Source(
        frame, f"{folder.name}/", parts=tuple(parts), notes=tuple(notes), part_columns=columns
    )


def _in_file(exc: DataError, parts: tuple[tuple[str, int], ...]) -> DataError:
    """A folder's error with its rows as the rows of the file that holds the first of them."""
    starts = np.asarray([start for _, start in parts])
    rows = np.asarray(exc.rows)
    k = np.searchsorted(starts, rows, side="right") - 1
    first = int(k[0])
    name, start = parts[first]
    more = int(np.unique(k).size) - 1
    where = f" in {name}" + (f" (and rows in {more} other file(s))" if more else "")
    return DataError(
        exc.message + where, rows=(rows[k == first] - start).tolist(), column=exc.column
    )


#: A file that :func:`read_columns` had to read whole (JSON lines, a Parquet file with unusual
#: metadata), kept for the load that follows it (``fit``, ``leaderboard`` read the columns
#: first): ((path, size, mtime, limit), its :class:`_Source`). One slot, handed over once.
_READ_WHOLE: dict[tuple[Any, ...], _Source] = {}


def _file_key(path: Path, limit: int) -> tuple[Any, ...]:
    """What identifies one read of ``path``: a file changed in between is read again."""
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns, limit)


def _read(source: pd.DataFrame | str | PathLike[str], max_bytes: int | None = None) -> _Source:
    if isinstance(source, pd.DataFrame):
        return _Source(source, "DataFrame")
    limit = _limit(max_bytes)
    folder = _folder(source)
    if folder is not None:
        return _read_folder(folder, limit)
    path = _check_path(source, limit)
    if _READ_WHOLE:
        kept = _READ_WHOLE.pop(_file_key(path, limit), None)
        _READ_WHOLE.clear()
        if kept is not None:
            return kept
    return _read_file(path, limit)


def _read_file(path: Path, limit: int) -> _Source:
    """One checked file read into its :class:`_Source`."""
    kind = _file_kind(path)
    name = path.name
    if kind == "parquet":
        return _Source(_read_parquet(path, limit), name)
    if kind in ("csv", "tsv"):
        sep = "\t" if kind == "tsv" else ","
        frame = _read_csv_arrow(path, sep, limit)
        if frame is not None:
            return _Source(
                frame,
                name,
                lambda: _ragged_row(_read_text(path, limit), sep, name),
                lines=lambda rows: _csv_lines(_read_text(path, limit), sep, rows),
            )
        text = _read_text(path, limit)
        return _Source(
            _parse_csv(text, sep, name),
            name,
            lambda: _ragged_row(text, sep, name),
            lines=lambda rows: _csv_lines(text, sep, rows),
        )
    text = _read_text(path, limit)
    frame = _parse_json(text, name, lines=kind == "jsonl")
    if kind == "jsonl" and not text.lstrip().startswith("["):
        return _Source(frame, name, lines=lambda rows: _jsonl_lines(text, rows))
    return _Source(frame, name)


def _jsonl_lines(text: str, rows: Sequence[int]) -> list[int]:
    """The line numbers (1-based) of records ``rows`` of a JSON-lines text (blank lines are
    not records).

    Examples
    --------
    >>> _jsonl_lines(chr(10).join(['{"a": 1}', "", '{"a": 2}']), [1])
    [3]
    """
    at = [k + 1 for k, ln in enumerate(text.split("\n")) if ln.strip()]
    return [at[r] for r in rows if 0 <= r < len(at)]


def _with_lines(exc: DataError, src: _Source) -> DataError:
    """``exc`` with the line numbers of its rows in ``src``'s text file, or ``exc`` itself
    (a DataFrame, a Parquet file, a folder, no rows named, or lines already given)."""
    if not exc.rows or exc.lines or src.lines is None:
        return exc
    lines = src.lines(exc.rows[:10])
    if not lines:
        return exc
    return DataError(exc.message, rows=exc.rows, column=exc.column, lines=lines, file=src.name)


def locate_rows(
    exc: DataError, source: pd.DataFrame | str | PathLike[str], *, max_bytes: int | None = None
) -> DataError:
    """A loader's error about rows of ``source`` with the rows' line numbers in its text file.

    For loaders that start from :func:`read_table` (whose rows are the file's data rows in
    order): a CSV, TSV or JSON-lines file's lines as an editor shows them, the header line 1
    (quoted cells over several lines and blank lines counted as :func:`load_comparisons`
    counts them). The file is read again, on the error path only. Anything else — a
    DataFrame, a Parquet or JSON file, a folder of files, an error naming no rows — comes back
    unchanged.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("a,b\\n1,2\\n3,\\n")
    >>> print(locate_rows(DataError("missing value", rows=[1], column="b"), path))
    missing value (column 'b', row 1: line 3 of log.csv)
    """
    if not exc.rows or exc.lines or isinstance(source, pd.DataFrame):
        return exc
    try:
        src = _read(source, max_bytes)
    except DataError:
        return exc
    if src.parts:  # a folder: its rows are the files' together, each file with its lines
        return exc
    return _with_lines(exc, src)


def read_table(
    source: pd.DataFrame | str | PathLike[str], *, max_bytes: int | None = None
) -> tuple[pd.DataFrame, str]:
    """A log file read as :func:`load_comparisons` reads it, and the name to record.

    The same readers and checks (UTF-8 text, no duplicated column, ``.csv``/``.tsv``/
    ``.parquet``/``.jsonl``, ``.gz`` text); a DataFrame is returned as is (never modified), with
    the name ``"DataFrame"``. Other loaders (:func:`bayes_pairwise.rankings.load_rankings`)
    start from it. The numbers of a JSON file are the text written (``"1.10"``), and the size
    limit ``max_bytes`` is :func:`load_comparisons`'.

    Examples
    --------
    >>> import pandas as pd
    >>> frame, name = read_table(pd.DataFrame({"a": [1]}))
    >>> name, list(frame.columns)
    ('DataFrame', ['a'])
    """
    src = _read(source, max_bytes)
    frame = src.frame
    if src.name != "DataFrame":  # JSON numbers as the text written (ids keep "1.10")
        for k in range(frame.shape[1]):
            vals = frame.iloc[:, k].to_numpy(dtype=object)
            if any(isinstance(v, _JsonNumber) for v in vals):
                text = [str(v) if isinstance(v, _JsonNumber) else v for v in vals]
                frame.isetitem(k, pd.Series(text, index=frame.index, dtype=object))
    return frame, src.name


def read_columns(
    source: pd.DataFrame | str | PathLike[str], *, max_bytes: int | None = None
) -> list[str]:
    """Column names of a comparison log, reading only the header of a CSV/TSV file.

    The same rules as :func:`load_comparisons` apply (UTF-8 text, no duplicated column name,
    empty header cells named ``"Unnamed: k"``); a Parquet file's from its schema, JSON lines are
    read whole. A
    folder's columns are those of its log files in order of first appearance, as
    :func:`load_comparisons` reads the folder as one log (a CSV's from its header only; an error
    names the file).

    Parameters
    ----------
    source : DataFrame or path
        A DataFrame, a ``.csv``/``.tsv``/``.parquet``/``.jsonl`` file or a folder of them.
    max_bytes : int, optional
        The input size limit, as in :func:`load_comparisons` (default :data:`MAX_INPUT_BYTES`).

    Returns
    -------
    list of str

    Raises
    ------
    DataError
        Missing, empty, binary, undecodable or unreadable file, a directory or another file
        that is not a regular file, a file above ``max_bytes``, an unsupported file type or a
        duplicated column name; the message is one line naming the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("first,second,outcome\\na,b,first\\n")
    >>> read_columns(path)
    ['first', 'second', 'outcome']
    """
    if isinstance(source, pd.DataFrame):
        return [str(c) for c in source.columns]
    limit = _limit(max_bytes)
    folder = _folder(source)
    if folder is None:
        return _file_columns(_check_path(source, limit), limit, keep=True)
    # a folder's files, read as one log: their columns in order of first appearance (as the
    # log's), a CSV's from its header only
    files, _ = _folder_files(folder, limit)
    names: dict[str, None] = {}
    for p in files:
        with _naming_the_file(folder, p.relative_to(folder).as_posix()):
            names.update(dict.fromkeys(_file_columns(p, limit)))
    return list(names)


def _parquet_columns(path: Path) -> list[str] | None:
    """A Parquet file's column names as ``pd.read_parquet`` gives them, from its schema alone
    (no data read); None where the schema's pandas metadata is unusual (then read it whole)."""
    import pyarrow.parquet as pq

    _read_parquet_head(path)
    try:
        schema = pq.read_schema(path)
    except Exception as exc:
        raise DataError(f"could not read {path.name!r} as Parquet: {_one_line(exc)}") from None
    meta = schema.pandas_metadata
    if meta is None:  # written by another tool: the schema's fields are the columns
        return [str(c) for c in schema.names]
    index = {c for c in meta.get("index_columns", []) if isinstance(c, str)}
    if len(meta.get("column_indexes", [])) > 1:
        return None  # MultiIndex columns
    names = [c.get("name") for c in meta.get("columns", []) if c.get("field_name") not in index]
    if any(n is None for n in names) or len(names) != len(schema.names) - len(index):
        return None
    if len({str(n) for n in names}) != len(names):  # the full read names the duplicate
        return None
    return [str(n) for n in names]


def _file_columns(path: Path, limit: int, *, keep: bool = False) -> list[str]:
    """:func:`read_columns` of one file (``path`` checked); ``keep``: a file read whole is kept
    for the next :func:`_read` of it (:data:`_READ_WHOLE`)."""
    import zlib

    kind = _file_kind(path)
    if kind == "parquet":
        names = _parquet_columns(path)
        if names is not None:
            return names
    if kind not in ("csv", "tsv"):
        src = _read_file(path, limit)
        _READ_WHOLE.clear()
        if keep:
            _READ_WHOLE[_file_key(path, limit)] = src
        return [str(c) for c in src.frame.columns]
    name = path.name
    try:
        with _open_binary(path) as fh:
            head = fh.read(1 << 16)
            _check_bytes(head, name)
            rest = b""
            if b"\n" not in head:  # one header line longer than the first block
                rest = _read_bytes(fh, limit, name)
    except (OSError, EOFError, zlib.error) as exc:
        raise _read_error(name, exc) from None
    data = head + rest
    if b"\n" in data and len(data) >= (1 << 16):
        data = data[: data.rfind(b"\n") + 1]  # whole lines only (no split UTF-8 character)
    text = _decode(data, name)
    sep = "\t" if kind == "tsv" else ","
    try:
        header = next(iter(_csv_records(text, sep)), None)
    except DataError as exc:
        raise DataError(f"malformed {name!r}: {exc.message}") from None
    if header is None:
        raise DataError(f"{name!r} is empty")
    return _header_names(header[2], name)


# --------------------------------------------------------------------------- ids as text
def _kind(v: object) -> str:
    if isinstance(v, _JsonNumber):
        return "number"
    if isinstance(v, str):
        return "str"
    if isinstance(v, bool | np.bool_):
        return "bool"
    if isinstance(v, int | np.integer):
        return "int"
    if isinstance(v, float | np.floating):
        return "float"
    return type(v).__name__


def _collision_rows(labels: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Positions whose label is shared by values of different kinds, and those labels."""
    lab_codes, lab_uniq = pd.factorize(pd.Index(labels, dtype=object))
    kind_codes, _ = pd.factorize(pd.Index(kinds, dtype=object))
    pairs = np.unique(lab_codes.astype(np.int64) * (kind_codes.max() + 1) + kind_codes)
    n_kinds = np.bincount(pairs // (kind_codes.max() + 1), minlength=len(lab_uniq))
    bad = np.flatnonzero(n_kinds > 1)
    if bad.size == 0:
        return np.zeros(0, dtype=np.int64), []
    return np.flatnonzero(np.isin(lab_codes, bad)), [str(lab_uniq[b]) for b in bad[:5]]


@dataclass(frozen=True)
class _Encoded:
    """A column as codes into its distinct text labels (one kind of value per label)."""

    codes: np.ndarray  # int64, one per row
    labels: np.ndarray  # object array of str, unique
    kinds: np.ndarray  # object array: the Python kind of the values behind each label
    raw: np.ndarray  # object array: one raw value behind each label (for outcome_map)


def _space_twins(labels: Sequence[str]) -> list[list[str]]:
    """Groups of labels that are equal but for spaces around them (``"m0"`` and ``"m0 "``).

    Examples
    --------
    >>> _space_twins(["m0", "m1", "m0 ", " m1", "m2 "])
    [['m0', 'm0 '], ['m1', ' m1']]
    """
    spaced = [lab for lab in labels if lab != lab.strip()]
    if not spaced:
        return []
    by: dict[str, list[str]] = {lab.strip(): [] for lab in spaced}
    for lab in labels:
        if lab.strip() in by:
            by[lab.strip()].append(lab)
    return [g for g in by.values() if len(g) > 1]


def _space_twin_error(
    twins: list[list[str]], what: tuple[str, str], cols: Sequence[tuple[str, _Encoded]]
) -> DataError:
    """Refuse ids that differ only by spaces around them: they would be different items (or
    judges, or contexts) though they name one. Names the rows that carry the spaced forms."""
    spaced = {lab for g in twins for lab in g if lab != lab.strip()}
    col, rows = cols[0][0], np.zeros(0, dtype=np.int64)
    for name, enc in cols:
        hit = np.flatnonzero(np.isin(enc.codes, np.flatnonzero(np.isin(enc.labels, list(spaced)))))
        if hit.size:
            col, rows = name, hit
            break
    shown = "; ".join(" and ".join(repr(lab) for lab in g) for g in twins[:5])
    where = " and ".join(repr(c) for c, _ in cols)
    return DataError(
        f"{what[0]} that differ only by spaces around them would count as different "
        f"{what[1]}: "
        f"{shown} (in {where}). If each group is one, strip the spaces first "
        "(e.g. df[col] = df[col].str.strip()); if they are different, rename them",
        rows=rows,
        column=col,
    )


def _collide_error(col: str, rows: np.ndarray, labels: list[str], what: str) -> DataError:
    return DataError(
        f"values of different types would merge into one id ({', '.join(map(repr, labels))}) "
        f"{what}: use one type per column (all text or all numbers), e.g. "
        "df[col].astype(str) if they are different ids",
        rows=rows,
        column=col,
    )


def _encode(s: pd.Series, col: str) -> _Encoded:
    """Text labels of an id column; missing, non-scalar and type-colliding values rejected."""
    dtype = s.dtype
    vals: Any
    if isinstance(dtype, pd.CategoricalDtype):
        enc = _encode_text_categorical(s, col)
        if enc is not None:
            return enc
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        vals, kind = s, "str"
    elif pd.api.types.is_bool_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        vals, kind = s, "bool"
    elif pd.api.types.is_integer_dtype(dtype):
        vals, kind = s, "int"
    elif pd.api.types.is_float_dtype(dtype):
        vals, kind = s, "float"
    else:
        vals = s.to_numpy(dtype=object)
        inferred = pd.api.types.infer_dtype(vals, skipna=True)
        if inferred == "bytes" or inferred in _MIXED_KINDS:
            vals = _decode_bytes(vals, col)
            inferred = pd.api.types.infer_dtype(vals, skipna=True)
        kind = _KIND_OF_INFERRED.get(inferred, inferred)
        if inferred in _MIXED_KINDS:
            return _encode_mixed(vals, col)
    codes, uniq = pd.factorize(vals, use_na_sentinel=True)
    uniq_obj = np.asarray(uniq, dtype=object)
    labels = uniq_obj if kind == "str" else np.array([_as_label(u) for u in uniq_obj], dtype=object)
    blank = np.array([not lab.strip() for lab in labels], dtype=bool)
    codes = np.asarray(codes, dtype=np.int64)
    miss = codes < 0
    if blank.any():
        miss |= blank[np.maximum(codes, 0)] & ~miss
    if miss.any():
        raise DataError("missing value", rows=np.flatnonzero(miss), column=col)
    if len(set(labels)) != len(labels):  # e.g. two float32 values printing alike
        lab_codes, lab_uniq = pd.factorize(pd.Index(labels, dtype=object))
        first = np.zeros(len(lab_uniq), dtype=np.int64)
        first[lab_codes[::-1]] = np.arange(len(lab_codes))[::-1]
        codes = lab_codes[codes]
        labels = np.asarray(lab_uniq, dtype=object)
        uniq_obj = uniq_obj[first]
    kinds = np.full(len(labels), kind, dtype=object)
    return _Encoded(codes, labels, kinds, uniq_obj)


def _decode_bytes(vals: np.ndarray, col: str) -> np.ndarray:
    """Bytes ids decoded as UTF-8 text (``b"a"`` is the item ``"a"``); undecodable ones refused."""
    is_bytes = np.fromiter((isinstance(v, bytes) for v in vals), dtype=bool, count=len(vals))
    if not is_bytes.any():
        return vals
    out = vals.copy()
    bad = []
    for k in np.flatnonzero(is_bytes):
        try:
            out[k] = vals[k].decode("utf-8")
        except UnicodeDecodeError:
            bad.append(k)
    if bad:
        raise DataError(
            "an id given as bytes is not UTF-8 text: decode the column to text first "
            "(e.g. df[col].str.decode('latin-1'))",
            rows=bad,
            column=col,
        )
    return out


def _first_seen(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Row of the first occurrence of each code (``len(codes)`` for codes never seen).

    Works through the rows in blocks, last block first, so no row-sized temporary is built.
    """
    n = len(codes)
    first = np.full(n_codes, n, dtype=np.int64)
    block = 1 << 20
    for start in range(((n - 1) // block) * block, -1, -block):
        part = codes[start : start + block]
        ok = part >= 0
        rows = np.arange(start, start + len(part), dtype=np.int64)
        # the last write wins: reversed, the earliest row of each code is written last
        first[part[ok][::-1]] = rows[ok][::-1]
    return first


def _encode_text_categorical(s: pd.Series, col: str) -> _Encoded | None:
    """:func:`_encode` for a categorical column of text, without a Python string per row.

    The result is the one the general path gives for the same values (labels in order of first
    appearance, unused categories left out); categories that are not all text return None.
    """
    cats = s.cat.categories
    if len(cats) == 0 or pd.api.types.infer_dtype(cats, skipna=False) != "string":
        return None
    labels = np.asarray(cats, dtype=object)
    codes = np.asarray(s.cat.codes.to_numpy())
    blank = np.array([not lab.strip() for lab in labels] + [True], dtype=bool)
    miss = blank[codes]  # code -1 (a missing value) reads the final True
    if miss.any():
        raise DataError("missing value", rows=np.flatnonzero(miss), column=col)
    del miss
    first = _first_seen(codes, len(labels))
    used = np.flatnonzero(first < len(codes))
    perm = used[np.argsort(first[used], kind="stable")]
    if len(perm) != len(labels) or np.any(perm != np.arange(len(perm))):
        remap = np.full(len(labels), -1, dtype=np.int32 if len(labels) < 2**31 else np.int64)
        remap[perm] = np.arange(len(perm))
        codes = remap[codes]
        labels = labels[perm]
    kinds = np.full(len(labels), "str", dtype=object)
    return _Encoded(codes, labels, kinds, labels)


def _encode_mixed(vals: np.ndarray, col: str) -> _Encoded:
    miss = np.asarray(pd.isna(vals), dtype=bool)
    # pd.isna on lists/arrays inside an object array is elementwise-False, so lists reach here
    nonscalar = np.array(
        [
            not m and not (pd.api.types.is_scalar(v) or isinstance(v, _JsonNumber))
            for v, m in zip(vals, miss, strict=True)
        ],
        dtype=bool,
    )
    if nonscalar.any():
        bad = np.flatnonzero(nonscalar)
        raise DataError(
            f"an id or outcome must be text or a number, not {type(vals[bad[0]]).__name__}",
            rows=bad,
            column=col,
        )
    labels_all = np.array(
        ["" if m else _as_label(v) for v, m in zip(vals, miss, strict=True)], dtype=object
    )
    miss |= np.array([not lab.strip() for lab in labels_all], dtype=bool)
    if miss.any():
        raise DataError("missing value", rows=np.flatnonzero(miss), column=col)
    kinds_all = np.array([_kind(v) for v in vals], dtype=object)
    rows, labs = _collision_rows(labels_all, kinds_all)
    if rows.size:
        raise _collide_error(col, rows, labs, f"in column {col!r}")
    codes, uniq = pd.factorize(pd.Index(labels_all, dtype=object))
    codes = np.asarray(codes, dtype=np.int64)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes))[::-1]
    return _Encoded(codes, np.asarray(uniq, dtype=object), kinds_all[first], vals[first])


def _natural_order(labels: Sequence[str]) -> np.ndarray:
    """Rank of each label: numeric order when all parse as finite numbers, else string order.

    Ties (``"7"`` and ``"007"``) keep the input order, as :func:`_natural_unique` does.
    """
    labels = list(labels)
    try:
        nums = np.array([float(v) for v in labels])
        if np.all(np.isfinite(nums)):
            return np.argsort(nums, kind="stable")
    except (TypeError, ValueError):
        pass
    return np.array(sorted(range(len(labels)), key=lambda k: labels[k]), dtype=np.int64)


def _to_float(s: pd.Series) -> np.ndarray:
    """Numbers of a column (NaN where a value is not a number); never raises."""
    if isinstance(s.dtype, pd.CategoricalDtype):  # each category read once
        num = np.append(_to_float(pd.Series(s.cat.categories)), np.nan)
        return num[s.cat.codes.to_numpy()]  # code -1 (missing) reads the final NaN
    if s.dtype == object:  # numbers of a JSON file are kept as text: read them as numbers
        vals = s.to_numpy(dtype=object)
        if any(isinstance(v, _JsonNumber) for v in vals):
            s = pd.Series([str(v) if isinstance(v, _JsonNumber) else v for v in vals])
    try:
        return np.asarray(pd.to_numeric(s, errors="coerce"), dtype=float)
    except (TypeError, ValueError):
        out = np.full(len(s), np.nan)
        for k, v in enumerate(s.to_numpy(dtype=object)):
            with contextlib.suppress(TypeError, ValueError, OverflowError):
                out[k] = float(v)
        return out


def _missing_rows(s: pd.Series) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):  # blank categories are missing too
        cats = s.cat.categories.to_numpy(dtype=object)
        blank = [isinstance(v, str) and not v.strip() for v in cats]
        return np.flatnonzero(np.array([*blank, True], dtype=bool)[s.cat.codes.to_numpy()])
    miss = np.array(s.isna().to_numpy(), dtype=bool)
    if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
        txt = s.to_numpy(dtype=object)
        miss |= np.array([isinstance(v, str) and not v.strip() for v in txt], dtype=bool)
    return np.flatnonzero(miss)


# --------------------------------------------------------------------------- loading
def load_comparisons(
    source: pd.DataFrame | str | PathLike[str],
    *,
    first: str = "first",
    second: str = "second",
    outcome: str = "outcome",
    judge: str | None = None,
    context: str | None = None,
    repeat: str | None = None,
    covariates: Iterable[str] = (),
    ties: TiePolicy | None = None,
    outcome_map: Mapping[Any, str] | None = None,
    source_name: str | None = None,
    truth: str | None = None,
    detect: bool = True,
    max_bytes: int | None = None,
    weights: str | None = None,
) -> Comparisons:
    """Load and validate a comparison log (one row per verdict).

    Ids (items, judges, contexts, outcome labels) are read as text from every file format:
    ``"007"`` and ``"7"``, or ``"1.10"`` and ``"1.1"``, are different items, and ``"NA"``,
    ``"None"``, ``"null"`` or ``"nan"`` are ordinary names; only empty (or blank) cells are
    missing. In a DataFrame, ``None``/``NaN`` are missing, a purely integer or purely float
    column is fine (``3.0`` reads as ``"3"``), but values of different types that would print
    alike (``1``, ``"1"`` and ``1.0``; also across the ``first`` and ``second`` columns) are
    an error rather than silently one item.

    Parameters
    ----------
    source : DataFrame or path
        A pandas DataFrame (never modified) or a ``.csv``/``.tsv``/``.parquet``/``.jsonl``/
        ``.json`` file (UTF-8; ``.gz`` compressed text files too; a JSON array or one record
        per line), or a folder of such files, read as one log in path order (rows numbered
        across the files; an error names the file and its own row).
    first, second, outcome : str
        Column names: item shown first, item shown second, outcome. Outcome values are
        ``"first"`` / ``"second"`` / ``"tie"`` (any case), or the id of the winning item, or
        any label mapped through ``outcome_map``.
    judge, context, repeat : str, optional
        Optional column names. With ``context`` an item is the pair (context, name).
    covariates : iterable of str
        Numeric contest-level covariate columns.
    ties : {"model", "drop", "half", "error"}, optional
        Tie policy. Default (None): :data:`bayes_pairwise.conventions.TIES`, ``"model"`` —
        ties are data: kept (outcome 0.5, half a win for the win-count estimators), fitted by
        the error models as an outcome with a tie rate, and the classical error rates are
        reported among decided verdicts; a log with no tie then records ``"half"`` (nothing to
        model, so no tie rate is fitted). ``"drop"``: removed (counted in
        ``n_ties_dropped``; the paper's published numbers), ``"half"``: kept as half a win
        (the paper's rule for the classical estimators), ``"error"``: raise.
    outcome_map : mapping, optional
        Raw outcome value → ``"first"``/``"second"``/``"tie"``, e.g.
        ``{1: "first", 2: "second", 3: "tie"}``. It takes precedence over every other
        reading, so it also settles rows where an item is itself named ``"first"``,
        ``"second"`` or ``"tie"``.
    source_name : str, optional
        Name recorded in ``Comparisons.source`` (default: the file name or ``"DataFrame"``).
    truth : str, optional
        Gold-label column: the id of the truly better item of the row's pair, empty where
        unknown. A label holds for its (context, unordered pair): every verdict on that pair,
        by any judge and in either order, gets it (``Comparisons.truth``). The error models
        then condition on it and :func:`~bayes_pairwise.classical.descriptive.labelled_error_rates`
        gives the plain labelled error rates (``docs/src/gold_labels.md``).
    detect : bool, default True
        Recognise common layouts, the same rule as the command line's. With ``first``,
        ``second`` and ``outcome`` left at their defaults and those columns absent, columns
        ``model_a``/``model_b``/``winner`` are Chatbot Arena's layout (winner ``model_a`` /
        ``model_b``, any value starting with ``tie`` a tie; an ``outcome_map`` given replaces
        this reading); under the same conditions ``left``/``right``/``winner`` are evalica's
        layout (``left`` shown first; winner ``left`` / ``right``, ``draw`` or ``tie*`` a tie;
        read only when every winner is one of these); with ``outcome`` left at its default and
        no ``outcome`` column, a
        ``winner`` column is the outcome. A ``judge``, ``context`` or ``repeat`` argument left
        at None reads the column of exactly that name when there is one (not one already used
        for another role; in Arena's layout a ``judge`` column names the voter and is read
        only when named). MT-Bench pairwise judgments, AlpacaEval annotations and pair-level
        records with a list of two verdicts (one per order) are reshaped to one row per
        verdict (:mod:`bayes_pairwise.layouts`); error messages then name the input's rows.
        Each choice is a line of ``Comparisons.recognised``. ``False`` reads
        only the columns named.
    max_bytes : int, optional
        The input size limit in bytes (of text, after decompression of a ``.gz`` file):
        default :data:`MAX_INPUT_BYTES` (4 GiB). A larger file is refused before it is read
        whole. A path that is not a regular file (a FIFO, a device such as ``/dev/zero``, also
        through a symbolic link, or a socket) is refused without being opened.
    weights : str, optional
        Column of per-row weights (finite, ≥ 0; evalica / arena style): the win-count
        estimators (Bradley–Terry, Elo, via the win matrix) count a verdict ``w`` times
        (``Comparisons.weight``). The Bayesian models refuse a weighted log.

    Returns
    -------
    Comparisons

    Raises
    ------
    DataError
        Unreadable, empty, binary or malformed file, not a regular file, above ``max_bytes``
        (duplicated column, a row with the wrong
        number of fields), missing or duplicated column, empty log, missing values, ids of
        different types that would merge, self-comparison, unknown or ambiguous outcome label,
        non-numeric covariate, ties under ``ties="error"``, a gold label naming an item not in
        the row's pair, different gold labels for one (context, pair). The message is one line
        and names the file, the column and the row positions (0-based, in the input).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "z"],
    ...                    "winner": ["x", "tie", "z"]})
    >>> data = load_comparisons(df, first="model_a", second="model_b", outcome="winner",
    ...                         ties="drop")
    >>> data.n_comparisons, data.n_ties_dropped
    (2, 1)
    >>> d = load_comparisons(df, first="model_a", second="model_b", outcome="winner")
    >>> d.n_comparisons, d.n_ties, d.tie_policy  # the default: ties are data
    (3, 1, 'model')
    >>> load_comparisons(df, first="model_a", second="model_b", outcome="winner", ties="error")
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DataError: 1 tie found and ties='error': ...
    >>> load_comparisons(df, first="model_a", second="model_b", outcome="winner",
    ...                  ties="model").outcome.tolist()
    [1.0, 0.5, 0.0]

    Gold labels (the truly better item, empty where unknown):

    >>> df["gold"] = ["y", None, None]
    >>> d = load_comparisons(df, first="model_a", second="model_b", outcome="winner",
    ...                      ties="model", truth="gold")
    >>> d.truth.tolist()  # rows 0 and 1 are the same pair: both get the label; z unknown
    [1, 1, -1]

    Recognised layouts (``detect=True``): Chatbot Arena's columns, and a ``judge`` column:

    >>> arena = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "z"],
    ...                       "winner": ["model_a", "tie (bothbad)", "model_b"],
    ...                       "judge": ["h1", "h2", "h1"]})
    >>> d = load_comparisons(arena, ties="model")
    >>> d.outcome.tolist(), d.judges, d.layout
    ([1.0, 0.5, 0.0], ('judge',), 'Chatbot Arena battles')
    >>> for line in d.recognised:
    ...     print(line)
    columns 'model_a'/'model_b'/'winner' read as Chatbot Arena's layout (first='model_a', ...)
    Chatbot Arena does not record which answer the voter saw first: ...
    column 'judge' (2 voters) not read as the judge: in Arena's layout it names the voter, ...
    >>> load_comparisons(arena, ties="model", judge="judge").judges
    ('h1', 'h2')

    MT-Bench pairwise judgments (two verdicts per row, one per order) and AlpacaEval
    annotations are reshaped (:mod:`bayes_pairwise.layouts`):

    >>> mt = pd.DataFrame({"question_id": [81, 81], "model_1": ["a", "a"],
    ...                    "model_2": ["b", "c"], "g1_winner": ["model_1", "model_2"],
    ...                    "g2_winner": ["model_1", "error"],
    ...                    "judge": [["gpt-4", "pair-v2"]] * 2, "turn": [1, 1]})
    >>> d = load_comparisons(mt)
    >>> d.n_comparisons, d.judges, d.contexts, d.row.tolist()
    (3, ('gpt-4',), ('81 turn 1',), [0, 0, 1])
    >>> load_comparisons(arena, detect=False)
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DataError: column not found; ... (CLI --first model_a) (column 'first')
    """
    default_ties = ties is None
    ties = resolve_ties(ties)
    if ties not in TIE_POLICIES:
        raise DataError(f"ties must be one of {TIE_POLICIES}, got {ties!r}")
    src = _read(source, max_bytes)
    try:
        return _from_source(
            src,
            first=first,
            second=second,
            outcome=outcome,
            judge=judge,
            context=context,
            repeat=repeat,
            covariates=covariates,
            ties=ties,
            outcome_map=outcome_map,
            source_name=source_name,
            truth=truth,
            detect=detect,
            weights=weights,
            default_ties=default_ties,
        )
    except DataError as exc:
        if src.parts and isinstance(exc.column, str):
            lacking = _files_lacking(src, exc.column)
            if lacking is not None:
                raise lacking from None
        located = _with_lines(exc, src)
        if located is not exc:  # the rows as an editor shows them: line 3 of log.csv
            raise located from None
        labels = _index_labels(source, exc.rows)
        if labels:  # a DataFrame indexed otherwise than 0 … n − 1: its labels too
            raise DataError(
                f"{exc.message} (index label{'s' if len(exc.rows) > 1 else ''} {labels})",
                rows=exc.rows,
                column=exc.column,
            ) from None
        if not src.parts or not exc.rows:
            raise
        raise _in_file(exc, src.parts) from None


def _index_labels(source: Any, rows: Sequence[int]) -> str:
    """The index labels of ``rows`` (positions) of a DataFrame whose index is not its
    positions (a filtered or re-indexed frame: row 3 is not ``df.loc[3]``), else ''.

    Examples
    --------
    >>> _index_labels(pd.DataFrame({"a": [1, 2, 3]}, index=[10, 20, 30]), [0, 2])
    '10, 30'
    """
    if not isinstance(source, pd.DataFrame) or not rows:
        return ""
    idx = source.index
    if isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1:
        return ""
    shown = [repr(idx[r]) if isinstance(idx[r], str) else str(idx[r]) for r in rows[:10]]
    return ", ".join(shown) + (" …" if len(rows) > 10 else "")


def _files_lacking(src: _Source, column: str) -> DataError | None:
    """The error to raise when some files of a folder lack a column the load reads that others
    have (files of different logs side by side), else None."""
    have = [column in cols for cols in src.part_columns]
    if all(have) or not any(have):
        return None
    names = [name for (name, _), ok in zip(src.parts, have, strict=True) if not ok]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    first = src.part_columns[have.index(False)]
    cols = ", ".join(repr(c) for c in first[:8]) + (", …" if len(first) > 8 else "")
    return DataError(
        f"column {column!r} is in {sum(have)} of the folder's {len(have)} files but not in "
        f"{shown} ({names[0]} has {cols}): a folder is read as one log, so its files need the "
        "same columns; load them one at a time, or keep one log's files in the folder",
        column=column,
    )


def _from_source(
    src: _Source,
    *,
    first: str,
    second: str,
    outcome: str,
    judge: str | None,
    context: str | None,
    repeat: str | None,
    covariates: Iterable[str],
    ties: str,
    outcome_map: Mapping[Any, str] | None,
    source_name: str | None,
    truth: str | None,
    detect: bool,
    weights: str | None,
    default_ties: bool,
) -> Comparisons:
    """:func:`load_comparisons` on a source read: its layout, its columns, its checks."""
    folder_notes = src.notes
    cov_list = [str(c) for c in covariates]
    layout = _Layout(first, second, outcome, judge, context, repeat, outcome_map)
    reshaped = None
    if detect:
        reshaped = reshape(src.frame, first=first, second=second, outcome=outcome)
        if reshaped is not None:
            src = _Source(reshaped.frame, src.name)
            layout = _Layout(
                reshaped.first,
                reshaped.second,
                reshaped.outcome,
                judge if judge is not None else reshaped.judge,
                context if context is not None else reshaped.context,
                repeat if repeat is not None else reshaped.repeat,
                outcome_map if outcome_map is not None else reshaped.outcome_map,
            )
        layout = _recognise(src.frame, layout, covariates=cov_list, truth=truth)
        if reshaped is not None:
            layout = replace(layout, notes=reshaped.notes + layout.notes)
    try:
        data = _build(
            src,
            first=layout.first,
            second=layout.second,
            outcome=layout.outcome,
            judge=layout.judge,
            context=layout.context,
            repeat=layout.repeat,
            covariates=cov_list,
            ties=ties,
            outcome_map=layout.outcome_map,
            source_name=source_name,
            truth=truth,
            recognised=folder_notes + layout.notes,
            default_ties=default_ties,
        )
    except DataError as exc:
        # a short CSV row reads as empty cells: blame the row, not the column
        ragged = src.ragged() if src.ragged is not None and exc.rows else None
        if ragged is not None:
            raise ragged from None
        if reshaped is not None:  # name the input's rows and columns, not the verdicts'
            rows = (
                sorted({int(r) for r in reshaped.source_rows[np.asarray(exc.rows)]})
                if exc.rows
                else None
            )
            column = reshaped.source_columns.get(str(exc.column), exc.column)
            raise DataError(exc.message, rows=rows, column=column) from None
        raise
    if weights is not None:  # rows of src.frame: read before they are mapped to the input's
        if weights not in src.frame.columns:
            raise DataError("column not found (weights=…)", column=weights)
        w = _to_float(src.frame[weights].reset_index(drop=True))[np.asarray(data.row)]
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise DataError(
                "a weight must be a finite number >= 0", rows=data.row[bad], column=weights
            )
        data = data.with_weights(w)
    if context is None and data.n_contexts == 1:
        taken = {layout.first, layout.second, layout.outcome, layout.judge, layout.repeat}
        pooled = _pooled_questions(src.frame, data, taken | {truth, weights, *cov_list})
        if pooled is not None:
            warnings.warn(pooled, DesignWarning, stacklevel=user_stacklevel())
    name = reshaped.name if reshaped is not None else layout.name
    order_recorded = reshaped.order_recorded if reshaped is not None else layout.name is None
    changes: dict[str, Any] = {}
    if name is not None:
        changes["layout"] = name
    if reshaped is not None:
        changes["row"] = _readonly(reshaped.source_rows[data.row])
    if name is not None and not order_recorded and ORDER_NOT_RECORDED not in data.source:
        changes["source"] = data.source + ORDER_NOT_RECORDED
    return replace(data, **changes) if changes else data


#: columns that usually name the question both texts answer: read as the context only when named
QUESTION_COLUMNS = ("question_id", "question", "prompt_id", "prompt", "qid", "instruction")


def _pooled_questions(frame: pd.DataFrame, data: Comparisons, taken: set[Any]) -> str | None:
    """The warning for a log read without a context whose question column holds a comparison
    of several items per question (a round robin per question, as in PRD or llmfao): each item
    is then one text pooled over the questions. None when there is no such column, or its
    questions hold two items or fewer at the median (Chatbot Arena's battles: one pair each)."""
    for col in QUESTION_COLUMNS:
        if col in taken or int(np.sum(frame.columns == col)) != 1:
            continue
        q = pd.factorize(frame[col].to_numpy(dtype=object)[np.asarray(data.row)])[0]
        n_q = int(q.max()) + 1 if q.size else 0
        if n_q < 2:
            continue
        has = q >= 0  # an empty cell names no question
        seen = np.unique(
            np.concatenate(
                [(q * data.n_items + data.first)[has], (q * data.n_items + data.second)[has]]
            )
        )
        per_q = np.bincount(seen // data.n_items, minlength=n_q)
        median = float(np.median(per_q))
        if median < 3:
            continue
        return (
            f"column {col!r} not read as the context: its {n_q:,} values each compare "
            f"{median:g} items (median), so without a context each of the {data.n_items:,} "
            "items is one text pooled over them, and every rate treats answers to different "
            "questions as one text (an error on one question and a true preference on another "
            f"look alike); pass context={col!r} (CLI --context-column {col}) to give each "
            "question its own items (a leaderboard then ranks the names with group_by='name', "
            "CLI --group-by name, resampling whole questions)"
        )
    return None


# --------------------------------------------------------------------------- recognised layouts
#: Chatbot Arena's battle log: two model columns and a winner naming the column that won
_ARENA = ("model_a", "model_b", "winner")
#: evalica's layout (its llmfao crowd data): the items shown left and right, the winner the
#: side that won; left is the position shown first
_LEFT_RIGHT = ("left", "right", "winner")
#: optional roles read from a column of exactly that name when not named (``detect=True``)
_OPTIONAL_ROLES = ("judge", "context", "repeat")
#: the command-line flag of each role, for error messages
_FLAGS = {
    "first": "--first",
    "second": "--second",
    "outcome": "--outcome",
    "judge": "--judge-column",
    "context": "--context-column",
    "repeat": "--repeat-column",
    "truth": "--truth-column",
    "covariates": "--covariates",
}
#: other common names of the required columns, suggested when the named column is missing
_ALIASES = {
    "first": ("model_a", "item_a", "left", "a"),
    "second": ("model_b", "item_b", "right", "b"),
    "outcome": ("winner", "verdict", "result", "preference", "label"),
    "judge": ("annotator", "rater", "worker", "judge_id"),
    "context": ("question_id", "prompt_id", "question", "prompt"),
}


@dataclass(frozen=True)
class _Layout:
    """The columns to read (and the outcome map), with a line per choice made by detection."""

    first: str
    second: str
    outcome: str
    judge: str | None
    context: str | None
    repeat: str | None
    outcome_map: Mapping[Any, str] | None
    notes: tuple[str, ...] = ()
    name: str | None = None  # a known layout that leaves the presentation order unrecorded


def _left_right_layout(df: pd.DataFrame) -> bool:
    """Whether ``left``/``right``/``winner`` hold evalica's layout: every winner that is not
    empty is one :func:`~bayes_pairwise.layouts.winner_side_map` reads (``left``, ``right``,
    ``draw`` or ``tie*``, any case); empty winners are left for the loader to name. Another
    value (a model's name, a score) is not this layout."""
    winner = df.loc[:, df.columns == "winner"]
    if winner.shape[1] != 1:
        return False
    values = pd.unique(winner.iloc[:, 0].dropna().to_numpy(dtype=object))
    known = winner_side_map(pd.Series(values, dtype=object), _LEFT_RIGHT[:2])
    return all(isinstance(v, str) and v in known for v in values)


def _recognise(
    df: pd.DataFrame, layout: _Layout, *, covariates: Sequence[str], truth: str | None
) -> _Layout:
    """The one rule (Python and CLI) for known layouts and optional columns found by name."""
    cols = set(df.columns)
    unique = {c for c in cols if int(np.sum(df.columns == c)) == 1}
    first, second, outcome = layout.first, layout.second, layout.outcome
    outcome_map = layout.outcome_map
    notes: list[str] = []
    name = None
    defaults = (first, second, outcome) == ("first", "second", "outcome")
    side = None  # a layout whose winner names the winning side: Arena's or evalica's
    if defaults and not cols & {"first", "second", "outcome"}:
        if set(_ARENA) <= cols:
            side = _ARENA
        elif set(_LEFT_RIGHT) <= cols and (outcome_map is not None or _left_right_layout(df)):
            side = _LEFT_RIGHT
    if side is not None:
        first, second, outcome = side
        arena = side == _ARENA
        name = ARENA if arena else None
        how = "outcomes through the outcome_map given"
        if outcome_map is None:
            winner = df.loc[:, df.columns == outcome].iloc[:, 0]
            outcome_map = winner_side_map(winner, (first, second))
            refuse_ambiguous_winners(df, outcome_map, side)
            how = f"winner {first!r}/{second!r}, 'draw' and values starting with 'tie' are ties"
        title, shown = ("Chatbot Arena's", "") if arena else ("evalica's", "left is shown first; ")
        notes.append(
            f"columns {first!r}/{second!r}/{outcome!r} read as {title} layout (first={first!r}, "
            f"second={second!r}, outcome={outcome!r}; {shown}{how})"
        )
        if arena:
            notes.append(ARENA_ORDER_NOTE)
    elif (
        outcome == "outcome"
        and "outcome" not in cols
        and "winner" in cols
        and {first, second} <= cols
        and "winner" not in (first, second)
    ):
        outcome = "winner"
        notes.append("column 'winner' read as the outcome (outcome='winner'; no 'outcome')")
    used = {first, second, outcome, truth, *covariates}
    chosen: dict[str, str | None] = {
        "judge": layout.judge,
        "context": layout.context,
        "repeat": layout.repeat,
    }
    if name == ARENA and chosen["judge"] is None and "judge" in unique:
        n_voters = int(df.loc[:, df.columns == "judge"].iloc[:, 0].nunique())
        used.add("judge")  # Arena's 'judge' is the voter: one crowd, not n_voters judges
        notes.append(
            f"column 'judge' ({n_voters} voter{'s' if n_voters != 1 else ''}) not read as "
            "the judge: in Arena's layout it names the voter, and the crowd is one judge "
            "(--judge-column judge, or judge='judge', to read it)"
        )
    for role in _OPTIONAL_ROLES:
        if chosen[role] is None and role in unique and role not in used:
            chosen[role] = role
            used.add(role)
            notes.append(f"column {role!r} read as the {role} ({role}={role!r})")
    # gold labels under the name Comparisons.to_frame writes them: never read unasked (they
    # change what the cross-check rests on), never passed over without a word either
    if truth is None and "truth" in unique and "truth" not in used:
        notes.append(
            "column 'truth' not read as gold labels: they change what the error rates rest on, "
            "so they are read only when named (--truth-column truth, or truth='truth')"
        )
    return _Layout(
        first,
        second,
        outcome,
        chosen["judge"],
        chosen["context"],
        chosen["repeat"],
        outcome_map,
        tuple(notes),
        name,
    )


#: position codes that logs use for the outcome, in the order first, second, tie
#: outcome values the loader refuses to read as an item's id without an outcome map, where the
#: items of the row carry them as ids too (:func:`_position_code_roles` gives their roles)
_WRITTEN_CODES = frozenset({"1", "2", "3", "0", "0.5", "A", "B", "C"})
_POSITION_CODES = (
    ("a", "b", "c"),
    ("1", "2", "3"),
    ("left", "right", "tie"),
    ("1", "0", "0.5"),  # the package's own scale: 1 a win for the first text, ½ a tie
)


def _position_code_hint(unknown: set[str]) -> str:
    """When every unknown outcome label is a known position code (MT-Bench's A / B / C, PRD's
    1 / 2 / 3, left / right), the outcome map that reads them so — stated as a condition, not
    assumed: the log's own documentation says which code means what.

    Examples
    --------
    >>> hint = _position_code_hint({"A", "B", "C"})
    >>> hint.split(", pass")[0]
    "; if 'A' means the text shown first, 'B' the second and 'C' a tie"
    >>> hint.split("(CLI ")[1]
    '--outcome-map A=first,B=second,C=tie)'
    >>> _position_code_hint({"x"})
    ''
    """
    means = {"first": "means the text shown first", "second": "the second", "tie": "a tie"}
    named = _position_code_roles(unknown)
    if not named:
        return ""
    parts = [f"{lab!r} {means[r]}" for lab, r in named.items()]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    as_map = "{" + ", ".join(f"{lab!r}: {r!r}" for lab, r in named.items()) + "}"
    flag = ",".join(f"{lab}={r}" for lab, r in named.items())
    return f"; if {said}, pass outcome_map={as_map} (CLI --outcome-map {flag})"


def _code_form(label: str) -> str:
    """A label as :data:`_POSITION_CODES` spell it: stripped, lower case, a number in its
    shortest form (a float column's ``'1.0'`` is the code ``'1'``).

    Examples
    --------
    >>> [_code_form(x) for x in (" A", "1.0", "0.50", "left")]
    ['a', '1', '0.5', 'left']
    """
    form = label.strip().lower()
    try:
        x = float(form)
    except ValueError:
        return form
    return f"{x:g}" if np.isfinite(x) else form


def _position_code_roles(labels: set[str]) -> dict[str, str]:
    """Each label's role ('first', 'second', 'tie') where every label is a code of one of
    :data:`_POSITION_CODES` (its first code among them); empty otherwise.

    Examples
    --------
    >>> _position_code_roles({"2", "1"})
    {'1': 'first', '2': 'second'}
    >>> _position_code_roles({"2"})
    {}
    """
    roles = ("first", "second", "tie")
    found = {_code_form(u): u for u in labels}
    for codes in _POSITION_CODES:
        if not found or not set(found) <= set(codes) or codes[0] not in found:
            continue
        return {found[c]: r for c, r in zip(codes, roles, strict=True) if c in found}
    return {}


def _spaced_id_hint(unknown: set[str], names: pd.Index) -> str:
    """When an unknown outcome label is an item id but for spaces around one of them (winner
    ``"a"``, item ``"a "``), say so: it is not a position code to map.

    Examples
    --------
    >>> _spaced_id_hint({"a"}, pd.Index(["a ", "b"])).split(":")[0]
    "; 'a' is the item id 'a ' but for the spaces around it"
    >>> _spaced_id_hint({"x"}, pd.Index(["a ", "b"]))
    ''
    """
    by_stripped: dict[str, str] = {}
    for n in map(str, names):
        by_stripped.setdefault(n.strip(), n)
    for u in sorted(unknown):
        item = by_stripped.get(u.strip())
        if item is not None and item != u:
            return (
                f"; {u!r} is the item id {item!r} but for the spaces around it: strip the "
                "id columns and the outcome (e.g. df[col] = df[col].str.strip())"
            )
    return ""


#: outcome labels that logs use for a tie besides "tie" (Arena's "tie (bothbad)", chess's draw)
_TIE_WORDS = ("draw", "equal", "same", "both", "neither", "bothbad", "both_bad", "both bad")


def _tie_label_hint(unknown: set[str]) -> str:
    """When every unknown outcome label reads as a tie ("draw", "tie (bothbad)", "equal" …),
    the outcome map that reads them so, stated as a condition.

    Examples
    --------
    >>> _tie_label_hint({"draw"})
    "; if 'draw' means a tie, pass outcome_map={'draw': 'tie'} (CLI --outcome-map draw=tie)"
    >>> _tie_label_hint({"draw", "x"})
    ''
    """
    low = {u: u.strip().lower() for u in unknown}
    if not unknown or not all(v in _TIE_WORDS or "tie" in v for v in low.values()):
        return ""
    labs = sorted(unknown)
    said = " and ".join(repr(u) for u in labs)
    as_map = "{" + ", ".join(f"{u!r}: 'tie'" for u in labs) + "}"
    flag = ",".join(f"{u}=tie" for u in labs)
    head = f"; if {said} {'means' if len(labs) == 1 else 'mean'} a tie, pass outcome_map={as_map}"
    if any("," in u or "=" in u for u in labs):  # a flag cannot carry these: Python only
        return head
    import shlex

    return f"{head} (CLI --outcome-map {shlex.quote(flag)})"


def _missing_column(role: str, col: str, columns: pd.Index, used: set[str]) -> str:
    """``column not found`` and the keyword / flag that names an existing column instead."""
    import shlex

    names = [str(c) for c in columns]
    msg = f"column not found; the data have columns {names}"
    flag = _FLAGS[role]
    if role == "covariates":
        return msg + f"; list existing columns in covariates (CLI {flag} a,b)"
    if len(names) == 1:
        seps = [sep for sep in (";", "\t", "|") if sep in names[0]]
        if seps:  # one column whose name holds the header: another separator than ','
            sep = seps[0]
            shown = {"\t": "a tab"}.get(sep, repr(sep))
            return msg + (
                f"; the header reads as one column: the file seems to separate values with "
                f"{shown}, not ','. Save it with commas (or as .tsv for tabs), or read it with "
                f"pandas (pd.read_csv(path, sep={sep!r})) and pass the DataFrame"
            )
    pool = [c for c in names if c not in used]
    near = [c for c in pool if c.strip().lower() == col.lower()]
    near += [a for a in _ALIASES.get(role, ()) if a in pool]
    low = col.lower()  # e.g. model_first, first_model, text_first for "first"
    near += [c for c in pool if c.lower().endswith(f"_{low}") or c.lower().startswith(f"{low}_")]
    near = list(dict.fromkeys(near))
    if role == "outcome" and len(near) > 1:
        # outcome_ab and outcome_ba: a row with a pair's verdicts in both orders; naming one
        # of them would read half the verdicts and leave the other column unread
        shown = " and ".join(repr(c) for c in near[:4])
        return msg + (
            f"; columns {shown} look like verdicts. If a row holds one pair's verdicts in "
            "both orders, make one row per verdict first (e.g. pd.concat of the frame with "
            "outcome from the first column, and of the frame with first and second swapped and "
            "outcome from the second), or use MT-Bench's layout (model_1, model_2, g1_winner, "
            "g2_winner); pass outcome='NAME' for one of them only if the others are not verdicts"
        )
    if near:
        c = near[0]
        return msg + (
            f"; a column named {c!r} exists: pass {role}={c!r} (CLI {flag} {shlex.quote(c)})"
        )
    return msg + f"; name the {role} column: {role}='NAME' (CLI {flag} NAME)"


def _outcome_lookup(outcome_map: Mapping[Any, str], col: str) -> dict[Any, str]:
    lookup: dict[Any, str] = {}
    for k, v in outcome_map.items():
        if str(v).lower() not in _LABELS:
            raise DataError(
                f"outcome_map value {v!r} must be 'first', 'second' or 'tie'", column=col
            )
        lookup[k] = str(v).lower()
        lookup.setdefault(_as_label(k), str(v).lower())
        num = _number(k)  # "1.0", "1" and 1 are one key, as the values are read
        if num is not None:
            lookup.setdefault(num, str(v).lower())
    return lookup


def _number(k: Any) -> float | None:
    """A map key or outcome value as a number (``"1.0"``, ``1`` → ``1.0``), else None."""
    if isinstance(k, bool | np.bool_):
        return None
    if isinstance(k, int | float | np.integer | np.floating):
        x = float(k)
    elif isinstance(k, str):
        try:
            x = float(k)
        except (ValueError, OverflowError):
            return None
    else:
        return None
    return x if np.isfinite(x) else None


def _read_as(raw: Sequence[Any]) -> str:
    """How outcome values were read, for an error message (``numbers: 1, 2, 1.5``)."""
    nums = [v for v in raw if _number(v) is not None and not isinstance(v, str)]
    shown = ", ".join(repr(v) if isinstance(v, str) else _as_label(v) for v in list(raw)[:6])
    what = "numbers" if nums and len(nums) == len(raw) else "text" if not nums else "values"
    return f"values read as {what}: {shown}; a key that is a number matches by value: '1.0' = 1"


def _map_outcome(v: Any, label: str, lookup: dict[Any, str]) -> str | None:
    try:
        hit = lookup.get(v)
    except TypeError:  # unhashable: rejected earlier, kept for safety
        hit = None
    if hit is None:
        hit = lookup.get(label)
    if hit is None and isinstance(v, str | _JsonNumber):  # "1" or "1.0" from a file, map keyed 1
        try:
            num = float(v)
            hit = lookup.get(num)
            if hit is None and num.is_integer():
                hit = lookup.get(int(num))
        except (ValueError, OverflowError):
            hit = None
    return hit


def _build(
    src: _Source,
    *,
    first: str,
    second: str,
    outcome: str,
    judge: str | None,
    context: str | None,
    repeat: str | None,
    covariates: list[str],
    ties: str,
    outcome_map: Mapping[Any, str] | None,
    source_name: str | None,
    truth: str | None = None,
    recognised: tuple[str, ...] = (),
    default_ties: bool = False,
) -> Comparisons:
    df = src.frame
    optional = {"judge": judge, "context": context, "repeat": repeat, "truth": truth}
    roles = [("first", first), ("second", second), ("outcome", outcome)]
    roles += [(r, c) for r, c in optional.items() if c]
    roles += [("covariates", c) for c in covariates]
    needed = [c for _, c in roles]
    dup = df.columns[df.columns.duplicated()]
    for role, col in roles:
        if col not in df.columns:
            raise DataError(_missing_column(role, col, df.columns, set(needed)), column=col)
        if col in dup:
            raise DataError(
                f"the column name appears {int(np.sum(df.columns == col))} times; rename the "
                "duplicates",
                column=col,
            )
    n = len(df)
    if n == 0:
        raise DataError("the comparison log is empty")

    def column(name: str) -> pd.Series:
        return df[name].reset_index(drop=True)

    f_enc = _encode(column(first), first)
    s_enc = _encode(column(second), second)
    o_enc = _encode(column(outcome), outcome)
    j_enc = _encode(column(judge), judge) if judge else None
    c_enc = _encode(column(context), context) if context else None
    if repeat:
        bad = _missing_rows(column(repeat))
        if bad.size:
            raise DataError("missing value", rows=bad, column=repeat)

    # first and second share one namespace of ids: 1 in one and "1" in the other would merge
    if set(f_enc.kinds) | set(s_enc.kinds) != set(f_enc.kinds) or len(set(f_enc.kinds)) > 1:
        lab = np.concatenate([f_enc.labels, s_enc.labels])
        knd = np.concatenate([f_enc.kinds, s_enc.kinds])
        pos, labs = _collision_rows(lab, knd)
        if pos.size:
            nf = len(f_enc.labels)
            bad_f = np.flatnonzero(np.isin(f_enc.codes, pos[pos < nf]))
            bad_s = np.flatnonzero(np.isin(s_enc.codes, pos[pos >= nf] - nf))
            raise _collide_error(
                first,
                np.union1d(bad_f, bad_s),
                labs,
                f"across columns {first!r} and {second!r}",
            )

    # Row-sized arrays are the memory of a large log: each is built once, label-level tables
    # answer what they can, and temporaries are deleted as soon as they are used.
    names = pd.Index(np.concatenate([f_enc.labels, s_enc.labels]), dtype=object).unique()
    # "m0" and "m0 " would be two items (a log written by hand, a join that kept a space)
    if twins := _space_twins(list(names)):
        raise _space_twin_error(twins, ("item ids", "items"), [(first, f_enc), (second, s_enc)])
    for what, col, enc in (
        (("judge names", "judges"), judge, j_enc),
        (("context ids", "contexts"), context, c_enc),
    ):
        if enc is not None and (twins := _space_twins(list(enc.labels))):
            raise _space_twin_error(twins, what, [(str(col), enc)])
    f_g = np.asarray(names.get_indexer(f_enc.labels), dtype=np.int64)[f_enc.codes]
    del f_enc
    s_g = np.asarray(names.get_indexer(s_enc.labels), dtype=np.int64)[s_enc.codes]
    del s_enc
    same = np.flatnonzero(f_g == s_g)
    if same.size:
        raise DataError(f"self-comparison ({first!r} equals {second!r})", rows=same, column=first)

    # --- outcomes: outcome_map, else the id of an item of the row, else first/second/tie
    o_lab = o_enc.labels
    oc = o_enc.codes
    out_u = np.full(len(o_lab), np.nan)
    if outcome_map is not None:
        lookup = _outcome_lookup(outcome_map, outcome)
        for k, (v, lab) in enumerate(zip(o_enc.raw, o_lab, strict=True)):
            hit = _map_outcome(v, lab, lookup)
            if hit is not None:
                out_u[k] = _LABELS[hit]
    kw_u = np.array([_LABELS.get(lab.strip().lower(), np.nan) for lab in o_lab])
    todo_u = np.isnan(out_u)  # labels not settled by outcome_map
    # an unmapped label is a position word, unless the row's first or second item has its id
    out = np.where(todo_u, kw_u, out_u)[oc]
    name_kw = np.array([_LABELS.get(lab.strip().lower(), np.nan) for lab in names])
    if np.any(todo_u & ~np.isnan(kw_u)) and not np.all(np.isnan(name_kw)):
        kw = np.where(todo_u, kw_u, np.nan)[oc]
        ambiguous = ~np.isnan(kw) & ((name_kw[f_g] == kw) | (name_kw[s_g] == kw))
        del kw
    else:
        ambiguous = np.zeros(1, dtype=bool)
    if ambiguous.any():
        bad = np.flatnonzero(ambiguous)
        word = str(o_lab[oc[bad[0]]])
        raise DataError(
            f"ambiguous outcome {word!r}: an item of the row is itself named "
            "'first', 'second' or 'tie', so the outcome could be that item or the position; "
            "pass outcome_map (e.g. {'first': 'first', 'second': 'second', 'tie': 'tie'}) to "
            "read it as a position, or rename the items",
            rows=bad,
            column=outcome,
        )
    del ambiguous
    o_name = np.asarray(names.get_indexer(o_lab), dtype=np.int64)
    if outcome_map is None and np.any(o_name >= 0) and np.all(np.isnan(kw_u)):
        # items named 1 and 2 and an outcome column of 1s and 2s: the winner's id, or the
        # position (PRD's codes)? Opposite readings of every verdict; the user must say
        # codes as logs write them (PRD's 1 / 2 / 3, MT-Bench's A / B / C): lower-case letters
        # are more often items of a hand-written log than codes
        written = {str(lab) for lab in o_lab}
        as_codes = (
            _position_code_roles(written) if all(lab in _WRITTEN_CODES for lab in written) else {}
        )
        if as_codes:
            # where both readings give a verdict and they differ (items "1" and "01" with
            # outcome 1 in the first slot read alike either way)
            code_u = np.array([_LABELS[as_codes[str(lab)]] for lab in o_lab])
            o_g = o_name[oc]
            as_item = np.where(o_g == f_g, 1.0, np.where(o_g == s_g, 0.0, np.nan))
            del o_g
            amb = np.flatnonzero(np.isfinite(as_item) & (as_item != code_u[oc]))
            if amb.size and np.all(np.isfinite(as_item)):
                codes_hint = _position_code_hint(written)
                raise DataError(
                    f"ambiguous outcome {str(o_lab[oc[amb[0]]])!r}: the outcome column's "
                    f"values {sorted(written)} are item ids of their rows, and also "
                    "read as position codes, which give the opposite verdict wherever the "
                    f"winner was shown second{codes_hint}; if they are the winner's id, give "
                    "the items ids that are not position codes (e.g. prefix them: 'm' + id)",
                    rows=amb,
                    column=outcome,
                )
    if np.any(todo_u & (o_name >= 0)):  # some unmapped outcome is an item id
        o_g = np.where(todo_u, o_name, -1)[oc]
        out[o_g == f_g] = 1.0
        out[o_g == s_g] = 0.0
        del o_g
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        labels = sorted({str(o_lab[c]) for c in np.unique(oc[bad])})[:5]
        how = ""
        if outcome_map is not None:
            how = f" ({_read_as([o_enc.raw[c] for c in np.unique(oc)])})"
        if outcome_map is None:
            unknown = {str(o_lab[c]) for c in np.unique(oc[bad])}
            how = (
                _spaced_id_hint(unknown, names)
                or _position_code_hint(unknown)
                or _tie_label_hint(unknown)
            )
        raise DataError(
            f"unknown outcome label(s) {labels}: expected 'first', 'second', 'tie', the id of "
            f"the first or second item, or a label given in outcome_map{how}",
            rows=bad,
            column=outcome,
        )

    # --- covariates
    cov_arrays: dict[str, np.ndarray] = {}
    for col in covariates:
        vals = _to_float(column(col))
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            raise DataError("covariate must be a finite number", rows=bad, column=col)
        cov_arrays[col] = vals

    # --- repeat
    if repeat:
        rep = _to_float(column(repeat))
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~np.isfinite(rep) | (rep != np.round(rep)))
        if bad.size:
            raise DataError("repeat must be an integer", rows=bad, column=repeat)
        rep_arr = rep.astype(np.int64)
    else:
        rep_arr = np.zeros(n, dtype=np.int64)

    # --- ties
    n_ties = int(np.count_nonzero(out == 0.5))
    if default_ties and ties == "model" and not n_ties:
        ties = "half"  # the default asked for the tie model in case of ties: none here
    tie_rows = np.flatnonzero(out == 0.5) if n_ties and ties in ("error", "drop") else None
    keep = np.ones(n, dtype=bool)
    if n_ties and ties == "error":
        raise DataError(
            f"{n_ties} tie{'s' if n_ties > 1 else ''} found and ties='error': choose "
            "ties='drop' (dropped and counted), ties='half' (half a win in win-count "
            "estimators) or ties='model' (kept for tie-aware models)",
            rows=tie_rows,
            column=outcome,
        )
    if ties == "drop" and tie_rows is not None:
        keep[tie_rows] = False
    n_dropped = int((~keep).sum())
    if not keep.any():
        raise DataError("no comparisons left after dropping ties", column=outcome)

    # --- contexts, items and judges in natural order over everything seen, kept or not
    if c_enc is not None:
        ctx_rank_of_code = np.empty(len(c_enc.labels), dtype=np.int64)
        ctx_perm = _natural_order(c_enc.labels)
        ctx_rank_of_code[ctx_perm] = np.arange(len(ctx_perm))
        ctx_order = [str(c_enc.labels[k]) for k in ctx_perm]
        ctx_row = ctx_rank_of_code[c_enc.codes]
    else:
        ctx_order = ["all"]
        ctx_row = np.zeros(n, dtype=np.int64)
    n_names = len(names)
    # every (context, name) pair seen, ordered by context then by the names' natural order
    # within that context (numeric when all of that context's names are numbers)
    if c_enc is not None:
        key_f, key_s = ctx_row * n_names + f_g, ctx_row * n_names + s_g
    else:  # one context: the key is the name (no row-sized arithmetic)
        key_f, key_s = f_g, s_g
    n_keys = len(ctx_order) * n_names
    dense = n_keys <= max(4 * n, 1 << 20)  # a lookup table instead of sorting 2n keys
    if dense:
        seen = np.zeros(n_keys, dtype=bool)
        seen[key_f] = True
        seen[key_s] = True
        keys = np.flatnonzero(seen)
    else:
        keys = np.unique(np.concatenate([key_f, key_s]))
    kc, kn = keys // n_names, keys % n_names
    name_list = [str(x) for x in names]
    str_rank = np.empty(n_names, dtype=np.int64)
    str_rank[np.array(sorted(range(n_names), key=lambda k: name_list[k]), dtype=np.int64)] = (
        np.arange(n_names)
    )
    num = np.full(n_names, np.nan)
    for k, lab in enumerate(name_list):
        with contextlib.suppress(ValueError, OverflowError):
            num[k] = float(lab)
    is_num = np.isfinite(num)
    num_rank = np.empty(n_names, dtype=np.int64)
    num_rank[np.lexsort((str_rank, np.where(is_num, num, np.inf)))] = np.arange(n_names)
    ctx_all_num = np.bincount(kc, weights=~is_num[kn], minlength=len(ctx_order)) == 0
    within = np.where(ctx_all_num[kc], num_rank[kn], str_rank[kn])
    order = np.lexsort((within, kc))
    item_of_key = np.empty(len(keys), dtype=np.int64)
    item_of_key[order] = np.arange(len(keys))
    if dense:
        table = np.full(n_keys, -1, dtype=np.int64)
        table[keys] = item_of_key
        f_idx, s_idx = table[key_f], table[key_s]
    else:
        f_idx = item_of_key[np.searchsorted(keys, key_f)]
        s_idx = item_of_key[np.searchsorted(keys, key_s)]
    del key_f, key_s
    item_ctx = kc[order]
    item_names = tuple(name_list[k] for k in kn[order])
    with_ctx = bool(context)
    items = item_names
    if with_ctx:
        items = tuple(
            f"{ctx_order[c]}{CONTEXT_SEP}{nm}" for c, nm in zip(item_ctx, item_names, strict=True)
        )
    if len(set(items)) != len(items):
        raise DataError(
            f"item labels are not unique after combining context and name with {CONTEXT_SEP!r}",
            column=context,
        )

    if j_enc is not None:
        j_perm = _natural_order(j_enc.labels)
        j_rank = np.empty(len(j_perm), dtype=np.int64)
        j_rank[j_perm] = np.arange(len(j_perm))
        judges = tuple(str(j_enc.labels[k]) for k in j_perm)
        j_idx = j_rank[j_enc.codes]
    else:
        judges = ("judge",)
        j_idx = np.zeros(n, dtype=np.int64)

    truth_idx = (
        _gold_labels(column(truth), truth, names, f_g, s_g, f_idx, s_idx)
        if truth
        else np.full(n, -1, dtype=np.int64)
    )
    del f_g, s_g, ctx_row

    if repeat:
        _warn_repeated_repeats(f_idx, s_idx, j_idx, rep_arr, repeat)
    every = bool(keep.all())  # nothing dropped: the arrays are kept as they are, not copied
    k = slice(None) if every else np.flatnonzero(keep)
    rows = np.arange(n, dtype=np.int64)
    return Comparisons(
        items=items,
        item_names=item_names,
        item_context=_readonly(item_ctx.astype(np.int64)),
        contexts=tuple(ctx_order),
        judges=judges,
        first=_readonly(f_idx[k]),
        second=_readonly(s_idx[k]),
        outcome=_readonly(out[k]),
        judge=_readonly(j_idx[k]),
        repeat=_readonly(rep_arr[k]),
        # a copy: a float column's numbers may be the caller's own array
        covariates=MappingProxyType({c: _readonly(np.array(v[k])) for c, v in cov_arrays.items()}),
        row=_readonly(rows[k]),
        tie_policy=ties,
        n_ties=n_ties,
        n_ties_dropped=n_dropped,
        source=source_name or src.name,
        has_context_column=with_ctx,
        has_judge_column=bool(judge),
        dropped_tie_judge=_readonly(j_idx[~keep].astype(np.int64)),
        dropped_tie_item=_readonly(f_idx[~keep].astype(np.int64)),
        truth=_readonly(truth_idx[k]),
        recognised=tuple(recognised),
    )


def _warn_repeated_repeats(
    f_idx: np.ndarray, s_idx: np.ndarray, j_idx: np.ndarray, rep: np.ndarray, col: str
) -> None:
    """Warn where two rows give the same ordered pair, judge and repeat number: a repeat number
    names one verdict, so a second row with it is more likely an export written twice than a
    new verdict (both are kept: the log says which they are, not the package)."""
    cols = [np.asarray(a, dtype=np.int64) for a in (f_idx, s_idx, j_idx, rep)]
    cols[3] = cols[3] - cols[3].min(initial=0)
    dims = [int(c.max(initial=0)) + 1 for c in cols]
    if float(np.prod(np.asarray(dims, dtype=float))) < 2.0**62:  # one integer per row: fast
        key = np.ravel_multi_index(cols, dims)
        _, first_row, count = np.unique(key, return_index=True, return_counts=True)
    else:
        key = np.stack(cols, axis=1)
        _, first_row, count = np.unique(key, axis=0, return_index=True, return_counts=True)
    del key
    if count.max(initial=1) < 2:
        return
    seen = np.zeros(len(f_idx), dtype=bool)
    seen[first_row] = True
    again = np.flatnonzero(~seen)
    shown = ", ".join(str(r) for r in again[:10]) + (" …" if again.size > 10 else "")
    warnings.warn(
        f"{again.size} row(s) repeat the ordered pair, judge and {col!r} number of an earlier "
        f"row (rows {shown}): a repeat number names one verdict, so these look like rows "
        "written twice. They are kept as verdicts; drop them (df.drop_duplicates on those "
        "columns) if they are copies",
        DesignWarning,
        stacklevel=user_stacklevel(),
    )


def _gold_labels(
    col: pd.Series,
    name: str,
    names: pd.Index,
    f_g: np.ndarray,
    s_g: np.ndarray,
    f_idx: np.ndarray,
    s_idx: np.ndarray,
) -> np.ndarray:
    """Item index of the truly better item per row (−1 unknown), spread over each pair.

    ``names`` are the item ids as text, ``f_g``/``s_g`` the rows' ids as positions in ``names``
    and ``f_idx``/``s_idx`` their item indexes (context included).
    """
    n = len(col)
    miss = np.zeros(n, dtype=bool)
    miss[_missing_rows(col)] = True
    vals = col.to_numpy(dtype=object)
    labels = np.array(
        [
            None if m else (v if isinstance(v, str) else _as_label(v))
            for v, m in zip(vals, miss, strict=True)
        ],
        dtype=object,
    )
    known = np.flatnonzero(~miss)
    t_g = np.full(n, -1, dtype=np.int64)
    if known.size:
        t_g[known] = np.asarray(names.get_indexer(pd.Index(labels[known], dtype=object)))
    bad = known[(t_g[known] != f_g[known]) & (t_g[known] != s_g[known])]
    if bad.size:
        shown = sorted({str(labels[r]) for r in bad[:5]})
        raise DataError(
            f"gold label(s) {shown} name an item that is not in the row's pair: the truth "
            "column holds the id of the truly better of the row's two items, or is empty",
            rows=bad,
            column=name,
        )
    out = np.full(n, -1, dtype=np.int64)
    out[known] = np.where(t_g[known] == f_g[known], f_idx[known], s_idx[known])
    if not known.size:
        return out
    lo = np.minimum(f_idx, s_idx).astype(np.int64)
    hi = np.maximum(f_idx, s_idx).astype(np.int64)
    _, pair = np.unique(lo * (int(hi.max()) + 1) + hi, return_inverse=True)
    pair = pair.reshape(-1)
    n_pairs = int(pair.max()) + 1
    # pair_truth: the label of each pair (max over its labelled rows); mismatch where min ≠ max
    top = np.full(n_pairs, -1, dtype=np.int64)
    np.maximum.at(top, pair[known], out[known])
    low = np.full(n_pairs, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(low, pair[known], out[known])
    clash = (top >= 0) & (low != top)
    if clash.any():
        bad = known[clash[pair[known]]]
        raise DataError(
            f"{int(clash.sum())} pair(s) have different gold labels on different rows: a pair "
            "(within its context) has one truly better item",
            rows=bad,
            column=name,
        )
    return top[pair]
