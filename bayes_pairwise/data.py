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

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.errors import DataError

__all__ = ["Comparisons", "DataSummary", "load_comparisons"]

TiePolicy = Literal["error", "drop", "half"]
_TIE_POLICIES = ("error", "drop", "half")
_LABELS = {"first": 1.0, "second": 0.0, "tie": 0.5}
CONTEXT_SEP = "::"


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
        tie (only under ``tie_policy="half"``).
    judge : ndarray of int
        Judge index of each verdict.
    repeat : ndarray of int
        Repeat number of each verdict (0 when the log has none).
    covariates : Mapping[str, ndarray]
        Contest-level numeric covariates, read-only.
    row : ndarray of int
        Position (0-based) of each verdict in the user's input, for error messages.
    tie_policy : {"error", "drop", "half"}
        How ties were handled.
    n_ties, n_ties_dropped : int
        Ties found in the input (of the judges / contexts kept), and how many were dropped.
    dropped_tie_judge, dropped_tie_item : ndarray of int
        Judge and first-shown item of each dropped tie (so subsets report their own counts).
    source : str
        Where the data came from.

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
            covariates=cov,
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
        """The verdicts of one judge (the item set is kept unchanged).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "first"], "judge": ["x", "y"]})
        >>> load_comparisons(df, judge="judge").for_judge("x").n_comparisons
        1
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
        return replace(out, judge=_readonly(np.zeros(len(idx), dtype=np.int64)))

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
                f"the data hold {self.n_judges} judges ({', '.join(self.judges[:5])}"
                f"{', …' if self.n_judges > 5 else ''}); {hint}"
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
        )

    def drop_ties(self) -> Comparisons:
        """A copy without the ties kept under ``ties="half"`` (policy becomes ``"drop"``).

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
        if self.tie_policy != "half" and not tie.any():
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

    # ------------------------------------------------------------ conversion
    def to_frame(self) -> pd.DataFrame:
        """The log as a tidy DataFrame (one row per kept verdict).

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
        for k, v in self.covariates.items():
            out[k] = v
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

    def _repr_html_(self) -> str:  # pragma: no cover - notebook display
        import html

        return f"<p>{html.escape(str(self).splitlines()[0])}</p>" + self.table.to_html(
            float_format=lambda x: f"{x:.3f}"
        )

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


# --------------------------------------------------------------------------- loading
def _read(source: pd.DataFrame | str | PathLike[str]) -> tuple[pd.DataFrame, str]:
    if isinstance(source, pd.DataFrame):
        return source.copy(deep=True), "DataFrame"
    path = Path(source)
    if not path.exists():
        raise DataError(f"no such file: {str(path)!r}")
    suffixes = "".join(path.suffixes[-2:]).lower()
    name = path.name
    try:
        if suffixes.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
            sep = "\t" if ".tsv" in suffixes else ","
            return pd.read_csv(path, sep=sep), name
        if suffixes.endswith(".parquet"):
            return pd.read_parquet(path), name
        if suffixes.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
            return pd.read_json(path, lines=True), name
        if suffixes.endswith(".json"):
            try:
                return pd.read_json(path, lines=True), name
            except ValueError:
                return pd.read_json(path), name
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise DataError(f"could not read {name!r}: {exc}") from exc
    raise DataError(
        f"unsupported file type {path.suffix!r} for {name!r}: use .csv, .tsv, .parquet or .jsonl"
    )


def _missing_rows(df: pd.DataFrame, col: str) -> np.ndarray:
    s = df[col]
    miss = np.array(s.isna().to_numpy(), dtype=bool)
    if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
        miss |= np.asarray(s.astype("string").str.strip().fillna("").eq(""), dtype=bool)
    return np.flatnonzero(miss)


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
    ties: TiePolicy = "error",
    outcome_map: Mapping[Any, str] | None = None,
    source_name: str | None = None,
) -> Comparisons:
    """Load and validate a comparison log (one row per verdict).

    Parameters
    ----------
    source : DataFrame or path
        A pandas DataFrame (never modified) or a ``.csv``/``.tsv``/``.parquet``/``.jsonl`` file.
    first, second, outcome : str
        Column names: item shown first, item shown second, outcome. Outcome values are
        ``"first"`` / ``"second"`` / ``"tie"`` (any case), or the id of the winning item, or
        any label mapped through ``outcome_map``.
    judge, context, repeat : str, optional
        Optional column names. With ``context`` an item is the pair (context, name).
    covariates : iterable of str
        Numeric contest-level covariate columns.
    ties : {"error", "drop", "half"}
        Tie policy: raise, drop (counted in ``n_ties_dropped``), or keep as half a win.
    outcome_map : mapping, optional
        Raw outcome value → ``"first"``/``"second"``/``"tie"``, e.g.
        ``{1: "first", 2: "second", 3: "tie"}``.
    source_name : str, optional
        Name recorded in ``Comparisons.source`` (default: the file name or ``"DataFrame"``).

    Returns
    -------
    Comparisons

    Raises
    ------
    DataError
        Missing column, empty log, missing values, self-comparison, unknown outcome label,
        non-numeric covariate, ties under ``ties="error"``. The message names the column and
        the row positions (0-based, in the input).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "z"],
    ...                    "winner": ["x", "tie", "z"]})
    >>> data = load_comparisons(df, first="model_a", second="model_b", outcome="winner",
    ...                         ties="drop")
    >>> data.n_comparisons, data.n_ties_dropped
    (2, 1)
    >>> load_comparisons(df, first="model_a", second="model_b", outcome="winner")
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DataError: 1 tie found and ties='error': ...
    """
    if ties not in _TIE_POLICIES:
        raise DataError(f"ties must be one of {_TIE_POLICIES}, got {ties!r}")
    df, default_name = _read(source)
    covariates = [str(c) for c in covariates]
    optional = {"judge": judge, "context": context, "repeat": repeat}
    needed = [first, second, outcome, *[c for c in optional.values() if c], *covariates]
    for col in needed:
        if col not in df.columns:
            raise DataError(
                f"column not found; the data have columns {[str(c) for c in df.columns]}",
                column=col,
            )
    if len(df) == 0:
        raise DataError("the comparison log is empty")
    df = df.reset_index(drop=True)
    rows = np.arange(len(df), dtype=np.int64)

    for col in [first, second, outcome, *[c for c in optional.values() if c]]:
        bad = _missing_rows(df, col)
        if bad.size:
            raise DataError("missing value", rows=bad, column=col)

    f_lab = np.array([_as_label(v) for v in df[first].to_numpy(dtype=object)], dtype=object)
    s_lab = np.array([_as_label(v) for v in df[second].to_numpy(dtype=object)], dtype=object)
    ctx_lab = (
        np.array([_as_label(v) for v in df[context].to_numpy(dtype=object)], dtype=object)
        if context
        else np.full(len(df), "all", dtype=object)
    )
    same = np.flatnonzero(f_lab == s_lab)
    if same.size:
        raise DataError(f"self-comparison ({first!r} equals {second!r})", rows=same, column=first)

    # --- outcomes
    raw = df[outcome].to_numpy(dtype=object)
    out = np.full(len(df), np.nan)
    if outcome_map is not None:
        lookup: dict[Any, str] = {}
        for k, v in outcome_map.items():
            if str(v).lower() not in _LABELS:
                raise DataError(
                    f"outcome_map value {v!r} must be 'first', 'second' or 'tie'", column=outcome
                )
            lookup[k] = str(v).lower()
            lookup[_as_label(k)] = str(v).lower()
        for r, v in enumerate(raw):
            lab = lookup.get(v, lookup.get(_as_label(v)))
            if lab is not None:
                out[r] = _LABELS[lab]
    todo = np.isnan(out)
    raw_lab = np.array([_as_label(v) for v in raw], dtype=object)
    is_f = todo & (raw_lab == f_lab)
    is_s = todo & (raw_lab == s_lab)
    out[is_f] = 1.0
    out[is_s] = 0.0
    todo = np.isnan(out)
    if todo.any():
        low = np.array([str(v).strip().lower() for v in raw_lab[todo]], dtype=object)
        vals = np.array([_LABELS.get(v, np.nan) for v in low])
        out[np.flatnonzero(todo)] = vals
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        labels = sorted({str(raw[r]) for r in bad})[:5]
        raise DataError(
            f"unknown outcome label(s) {labels}: expected 'first', 'second', 'tie', the id of "
            "the first or second item, or a label given in outcome_map",
            rows=bad,
            column=outcome,
        )

    # --- covariates
    cov_arrays: dict[str, np.ndarray] = {}
    for col in covariates:
        vals = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            raise DataError("covariate must be a finite number", rows=bad, column=col)
        cov_arrays[col] = vals

    # --- repeat
    if repeat:
        rep = pd.to_numeric(df[repeat], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(rep) | (rep != np.round(rep)))
        if bad.size:
            raise DataError("repeat must be an integer", rows=bad, column=repeat)
        rep_arr = rep.astype(np.int64)
    else:
        rep_arr = np.zeros(len(df), dtype=np.int64)

    # --- ties
    tie_rows = np.flatnonzero(out == 0.5)
    n_ties = int(tie_rows.size)
    keep = np.ones(len(df), dtype=bool)
    if n_ties and ties == "error":
        raise DataError(
            f"{n_ties} tie{'s' if n_ties > 1 else ''} found and ties='error': choose "
            "ties='drop' (dropped and counted) or ties='half' (half a win in win-count "
            "estimators)",
            rows=tie_rows,
            column=outcome,
        )
    if ties == "drop":
        keep[tie_rows] = False
    n_dropped = int((~keep).sum())
    if not keep.any():
        raise DataError("no comparisons left after dropping ties", column=outcome)

    # --- indexes (items and contexts in natural order over everything seen, kept or not)
    ctx_order = [_as_label(c) for c in _natural_unique(pd.Series(ctx_lab))]
    ctx_pos = {c: k for k, c in enumerate(ctx_order)}
    names_per_ctx: dict[str, set[str]] = {c: set() for c in ctx_order}
    for c, a, b in zip(ctx_lab, f_lab, s_lab, strict=True):
        names_per_ctx[c].add(a)
        names_per_ctx[c].add(b)
    item_keys: list[tuple[str, str]] = []
    for c in ctx_order:
        for nm in _natural_unique(pd.Series(sorted(names_per_ctx[c]))):
            item_keys.append((c, nm))
    item_pos = {k: i for i, k in enumerate(item_keys)}
    with_ctx = bool(context)
    items = tuple(f"{c}{CONTEXT_SEP}{n}" if with_ctx else n for c, n in item_keys)
    if len(set(items)) != len(items):  # pragma: no cover - defensive
        raise DataError("item labels are not unique after combining context and name")
    f_idx = np.array([item_pos[(c, a)] for c, a in zip(ctx_lab, f_lab, strict=True)])
    s_idx = np.array([item_pos[(c, b)] for c, b in zip(ctx_lab, s_lab, strict=True)])

    if judge:
        j_lab = np.array([_as_label(v) for v in df[judge].to_numpy(dtype=object)], dtype=object)
        judges = tuple(_as_label(j) for j in _natural_unique(pd.Series(j_lab)))
        jpos = {j: k for k, j in enumerate(judges)}
        j_idx = np.array([jpos[j] for j in j_lab], dtype=np.int64)
    else:
        judges = ("judge",)
        j_idx = np.zeros(len(df), dtype=np.int64)

    k = np.flatnonzero(keep)
    return Comparisons(
        items=items,
        item_names=tuple(n for _, n in item_keys),
        item_context=_readonly(np.array([ctx_pos[c] for c, _ in item_keys], dtype=np.int64)),
        contexts=tuple(ctx_order),
        judges=judges,
        first=_readonly(f_idx[k].astype(np.int64)),
        second=_readonly(s_idx[k].astype(np.int64)),
        outcome=_readonly(out[k]),
        judge=_readonly(j_idx[k]),
        repeat=_readonly(rep_arr[k]),
        covariates=MappingProxyType({c: _readonly(v[k]) for c, v in cov_arrays.items()}),
        row=_readonly(rows[k]),
        tie_policy=ties,
        n_ties=n_ties,
        n_ties_dropped=n_dropped,
        source=source_name or default_name,
        has_context_column=with_ctx,
        has_judge_column=bool(judge),
        dropped_tie_judge=_readonly(j_idx[~keep].astype(np.int64)),
        dropped_tie_item=_readonly(f_idx[~keep].astype(np.int64)),
    )
