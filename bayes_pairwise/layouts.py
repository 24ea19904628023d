"""Known log layouts that need more than a column mapping: recognised, reshaped, announced.

:func:`~bayes_pairwise.data.load_comparisons` (and so every command) calls :func:`reshape`
before it reads the columns. Each layout here is one an evaluation engineer is likely to have
on disk as it was written by its tool:

* **MT-Bench pairwise judgments** (FastChat's ``*_pair.jsonl``): ``question_id``, ``model_1``,
  ``model_2``, ``g1_winner``, ``g2_winner``, ``judge`` (a list such as
  ``["gpt-4", "pair-v2"]``), ``turn``. Each row holds two verdicts: game 1 shows ``model_1``
  first, game 2 shows ``model_2`` first; both winners name ``model_1``/``model_2``/``tie``, or
  ``error`` when the judge's answer could not be parsed (left out, and counted). The context is
  the question and turn; the judge is the list's first element.
* **AlpacaEval annotations**: ``generator_1``, ``generator_2``, ``preference`` (1 = output 1,
  2 = output 2, 1.5 = a tie); an ``annotator`` column is the judge. AlpacaEval does not record
  which output its annotator was shown first, so "first" is only a label here (as for Chatbot
  Arena).
* **Pair-level records**: one record per pair whose outcome is a list of two verdicts, one per
  order: the first for the pair as given (``first`` shown first), the second for the swapped
  order. Each verdict is read in its own order: an item id, ``tie``, or ``first``/``second``
  meaning the position in that order (``model_a``/``model_b`` name the column, as in Arena).

* **Chatbot Arena battles judged by several judges**, one winner column per judge
  (``model_a``, ``model_b``, ``winner_<judge>``; the prediction-powered-ranking data): one
  verdict per battle and judge, the judge named by the column; an empty cell is no verdict.

* **Chatbot Arena human preference, one-hot** (``lmsys/arena-human-preference-55k``):
  ``model_a``, ``model_b`` and 0/1 columns ``winner_model_a``, ``winner_model_b``,
  ``winner_tie``; order not recorded.
* **Arena-Hard-Auto judgments** (``model_judgment/<judge>/<model>.jsonl``): ``question_id`` or
  ``uid``, ``model``, ``judge``, ``games`` (game 1 shows the baseline first, game 2 the model;
  score ``A>>B`` … ``B>>A``, ``A=B``), optional ``baseline``.
* **Per-order verdicts coded A/B/C** (Position-Bias-Analyzer's files, "judging the judges"):
  ``model_first``, ``model_second``, ``verdict`` (``A`` the answer shown first, ``B`` the
  second, ``C`` a tie; empty: no verdict, left out and counted), with ``benchmark/question_id``
  as the context and ``repetition`` as the repeat.

Chatbot Arena's battle layout (``model_a``/``model_b``/``winner``) needs no reshaping and is read
in :mod:`bayes_pairwise.data`; there a ``judge`` column names the voter and is not read as the
judge unless it is named.

Examples
--------
>>> import pandas as pd
>>> mt = pd.DataFrame({"question_id": [81], "model_1": ["a"], "model_2": ["b"],
...                    "g1_winner": ["model_1"], "g2_winner": ["tie"],
...                    "judge": [["gpt-4", "pair-v2"]], "turn": [1]})
>>> r = reshape(mt)
>>> r.name
'MT-Bench pairwise judgments'
>>> r.frame[["first", "second", "outcome", "judge", "context"]].values.tolist()
[['a', 'b', 'a', 'gpt-4', '81 turn 1'], ['b', 'a', 'tie', 'gpt-4', '81 turn 1']]
>>> r.source_rows.tolist()
[0, 0]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.errors import DataError

__all__ = [
    "ALPACAEVAL",
    "ARENA",
    "ARENA_HARD",
    "ARENA_HARD_SCORES",
    "ARENA_ONE_HOT",
    "ARENA_ORDER_NOTE",
    "ARENA_WIDE",
    "MTBENCH",
    "ORDER_NOT_RECORDED",
    "PAIR_LISTS",
    "POSITION_CODED",
    "POSITION_CODE_MAP",
    "Reshaped",
    "refuse_ambiguous_winners",
    "reshape",
    "winner_side_map",
]

MTBENCH = "MT-Bench pairwise judgments"
ALPACAEVAL = "AlpacaEval annotations"
ARENA = "Chatbot Arena battles"
ARENA_WIDE = "Chatbot Arena battles, one winner column per judge"
#: what every Arena layout's reading says about the presentation order
ARENA_ORDER_NOTE = (
    "Chatbot Arena does not record which answer the voter saw first: 'first' is "
    "model_a, a nominal label, and position-bias parameters mean nothing here"
)
PAIR_LISTS = "pair-level records (one verdict per order in a list)"
ARENA_HARD = "Arena-Hard-Auto judgments (two games per row, the baseline shown first in game 1)"
ARENA_ONE_HOT = (
    "Chatbot Arena human preference (one-hot winner_model_a / winner_model_b / winner_tie)"
)
#: Arena-Hard-Auto's verdict labels, read by position: A is the answer shown first
ARENA_HARD_SCORES: Mapping[str, str] = {
    "A>>B": "first", "A>B": "first", "B<A": "first", "B<<A": "first",
    "B>>A": "second", "B>A": "second", "A<B": "second", "A<<B": "second",
    "A=B": "tie", "B=A": "tie",
}  # fmt: skip
POSITION_CODED = "per-order verdicts coded A/B/C (Position-Bias-Analyzer, 'judging the judges')"
#: the codes of :data:`POSITION_CODED`'s verdict column: MT-Bench's ``[[A]]``/``[[B]]``/``[[C]]``
POSITION_CODE_MAP: Mapping[str, str] = {"A": "first", "B": "second", "C": "tie"}
#: POSITION_CODE_MAP as the keyword and the CLI flag that read it under other column names
_CODE_MAP_ARG = repr(dict(POSITION_CODE_MAP))
_CODE_MAP_FLAG = ",".join(f"{k}={v}" for k, v in POSITION_CODE_MAP.items())
#: the outcome map of a reshaped frame whose outcome is already a position word
_AS_POSITIONS: Mapping[str, str] = {v: v for v in ("first", "second", "tie")}
#: appended to ``Comparisons.source`` when the layout does not record the presentation order
ORDER_NOT_RECORDED = " [presentation order NOT recorded: 'first' is nominal]"
#: AlpacaEval's preference values
ALPACAEVAL_MAP: Mapping[Any, str] = {1: "first", 2: "second", 1.5: "tie"}


@dataclass(frozen=True)
class Reshaped:
    """A log reshaped to one row per verdict, with the columns to read.

    Attributes
    ----------
    name : str
        The layout, in words (announced on stderr by the command line).
    frame : DataFrame
        One row per verdict (a new frame; the input is never modified).
    first, second, outcome : str
        Columns of ``frame`` to read.
    judge, context, repeat : str or None
        Columns of ``frame`` to read as judge, context and repeat (None: the usual rule).
    outcome_map : mapping or None
        How the outcome values read (None: item ids, ``first``/``second``/``tie``).
    source_rows : ndarray of int
        The input row of each verdict (error messages name these).
    source_columns : mapping
        The input column(s) behind each column of ``frame`` (error messages name these).
    notes : tuple of str
        One line per choice made, ending with the verdict count.
    order_recorded : bool
        False when the layout does not say which item was shown first.
    """

    name: str
    frame: pd.DataFrame
    first: str
    second: str
    outcome: str
    judge: str | None = None
    context: str | None = None
    repeat: str | None = None
    outcome_map: Mapping[Any, str] | None = None
    source_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    notes: tuple[str, ...] = ()
    order_recorded: bool = True
    source_columns: Mapping[str, str] = field(default_factory=dict)


def _is_list(v: Any) -> bool:
    return isinstance(v, list | tuple | np.ndarray)


def _label(v: Any) -> Any:
    """A JSON number that is whole reads as an integer (``81.0`` → ``81``)."""
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return int(v)
    return v


def _listed_text(v: Any) -> Any:
    """A list written as text in a CSV cell (MT-Bench's judge ``"['gpt-4', 'pair-v2']"`` once
    saved with pandas) read back as the list; any other value as it is.

    Examples
    --------
    >>> _listed_text("['gpt-4', 'pair-v2']"), _listed_text("gpt-4"), _listed_text("[x")
    (['gpt-4', 'pair-v2'], 'gpt-4', '[x')
    """
    import ast

    if not (isinstance(v, str) and v.strip().startswith("[") and v.strip().endswith("]")):
        return v
    try:
        parsed = ast.literal_eval(v.strip())
    except (ValueError, SyntaxError):
        return v
    return parsed if isinstance(parsed, list) else v


def _first_element(values: pd.Series, col: str) -> pd.Series:
    out = []
    for r, v in enumerate(values):
        v = _listed_text(v)
        if _is_list(v):
            if len(v) == 0:
                raise DataError("empty list: no judge named", rows=[r], column=col)
            v = v[0]
        out.append(v)
    return pd.Series(out, dtype=object)


def _mtbench(df: pd.DataFrame) -> Reshaped:
    n = len(df)
    m1 = df["model_1"].to_numpy(dtype=object)
    m2 = df["model_2"].to_numpy(dtype=object)
    name_of = {"model_1": 0, "model_2": 1}
    firsts, seconds, outcomes, src = [], [], [], []
    errors = empty = 0
    unknown: dict[str, list[int]] = {}
    for game, (a, b) in (("g1_winner", (m1, m2)), ("g2_winner", (m2, m1))):
        for r, w in enumerate(df[game].to_numpy(dtype=object)):
            key = str(w).strip().lower() if isinstance(w, str) else w
            if key == "error":
                errors += 1
                continue
            if _empty_cell(w):  # null or blank: no verdict, as 'error' (left out, counted)
                empty += 1
                continue
            if key in name_of:
                out = (m1, m2)[name_of[key]][r]
            elif isinstance(key, str) and key.startswith("tie"):
                out = "tie"
            else:
                unknown.setdefault(str(w), []).append(r)
                continue
            firsts.append(a[r])
            seconds.append(b[r])
            outcomes.append(out)
            src.append(r)
    if unknown:
        rows = sorted({r for rs in unknown.values() for r in rs})
        raise DataError(
            f"unknown winner(s) {sorted(unknown)[:5]} in MT-Bench pairwise judgments: expected "
            "'model_1', 'model_2', 'tie' or 'error'",
            rows=rows,
            column="g1_winner/g2_winner",
        )
    order = np.argsort(np.asarray(src, dtype=np.int64), kind="stable")  # row 0's two verdicts …
    src_a = np.asarray(src, dtype=np.int64)[order]
    frame = pd.DataFrame(
        {
            "first": pd.Series(np.asarray(firsts, dtype=object)[order], dtype=object),
            "second": pd.Series(np.asarray(seconds, dtype=object)[order], dtype=object),
            "outcome": pd.Series(np.asarray(outcomes, dtype=object)[order], dtype=object),
        }
    )
    notes = []
    judge = None
    if "judge" in df.columns:
        judges = _first_element(df["judge"], "judge").to_numpy(dtype=object)
        frame["judge"] = judges[src_a]
        judge = "judge"
        shown = ", ".join(repr(str(j)) for j in pd.unique(judges)[:3])
        notes.append(f"judge: the first element of column 'judge' ({shown})")
    context = None
    if "question_id" in df.columns:
        qid = [_label(v) for v in df["question_id"].to_numpy(dtype=object)]
        if "turn" in df.columns:
            turn = [_label(v) for v in df["turn"].to_numpy(dtype=object)]
            ctx = [f"{q} turn {t}" for q, t in zip(qid, turn, strict=True)]
            notes.append("context: question_id and turn ('81 turn 1')")
        else:
            ctx = [str(q) for q in qid]
            notes.append("context: question_id")
        frame["context"] = np.asarray(ctx, dtype=object)[src_a]
        context = "context"
    kept = len(frame)
    head = (
        f"read as {MTBENCH}: 2 verdicts per row (g1 shows model_1 first, g2 shows model_2 "
        f"first), {kept} verdicts from {n} rows"
    )
    if errors:
        head += f"; {errors} verdict{'s' if errors > 1 else ''} 'error' (unparsed) left out"
    if empty:
        head += f"; {empty} empty winner cell{'s' if empty > 1 else ''} (null) left out"
    return Reshaped(
        MTBENCH,
        frame,
        "first",
        "second",
        "outcome",
        judge=judge,
        context=context,
        source_rows=src_a,
        notes=(head, *notes),
        source_columns={
            "first": "model_1/model_2",
            "second": "model_2/model_1",
            "outcome": "g1_winner/g2_winner",
            "judge": "judge",
            "context": "question_id/turn",
        },
    )


def _alpacaeval(df: pd.DataFrame) -> Reshaped:
    pref = pd.to_numeric(df["preference"].astype(str), errors="coerce").to_numpy(dtype=float)
    between = np.flatnonzero(np.isfinite(pref) & (pref > 1) & (pref < 2) & (pref != 1.5))
    if between.size:  # AlpacaEval 2's weighted annotator: a probability, not a verdict
        raise DataError(
            f"preference {pref[between[0]]:g} is not a verdict (1, 2 or 1.5 for a tie): "
            "AlpacaEval 2's weighted annotators write 1 + P(output 2 is better). Make each a "
            "verdict first and say how: e.g. round to the nearest of 1, 1.5 and 2 "
            "(df['preference'] = (df['preference'] * 2).round() / 2), or 1 below 1.5 and 2 "
            "above; the package does not choose a threshold for you",
            rows=between,
            column="preference",
        )
    frame = pd.DataFrame(
        {
            "first": df["generator_1"].to_numpy(dtype=object),
            "second": df["generator_2"].to_numpy(dtype=object),
            "outcome": df["preference"].to_numpy(dtype=object),
        }
    )
    judge = None
    notes = [
        f"read as {ALPACAEVAL}: generator_1 vs generator_2, preference 1 = output 1, "
        f"2 = output 2, 1.5 = tie; {len(frame)} verdicts",
        "AlpacaEval does not record which output its annotator saw first: 'first' is "
        "output 1, a nominal label, and position-bias parameters mean nothing here",
    ]
    if "annotator" in df.columns:
        frame["judge"] = _first_element(df["annotator"], "annotator").to_numpy(dtype=object)
        judge = "judge"
        notes.append("judge: column 'annotator'")
    return Reshaped(
        ALPACAEVAL,
        frame,
        "first",
        "second",
        "outcome",
        judge=judge,
        outcome_map=dict(ALPACAEVAL_MAP),
        source_rows=np.arange(len(frame), dtype=np.int64),
        notes=tuple(notes),
        order_recorded=False,
        source_columns={
            "first": "generator_1",
            "second": "generator_2",
            "outcome": "preference",
            "judge": "annotator",
        },
    )


def _pair_lists(
    df: pd.DataFrame, first: str, second: str, outcome: str, cells: Sequence[Any]
) -> Reshaped:
    """``cells``: column ``outcome``'s values with lists written as text read back
    (:func:`_parsed_lists`), so that each cell is parsed once."""
    a = df[first].to_numpy(dtype=object)
    b = df[second].to_numpy(dtype=object)
    firsts, seconds, outcomes, src = [], [], [], []
    for r, verdicts in enumerate(cells):
        if len(verdicts) != 2:
            raise DataError(
                "expected a list of two verdicts (one per order) in every row",
                rows=[r],
                column=outcome,
            )
        for k, v in enumerate(verdicts):
            f, s = (a[r], b[r]) if k == 0 else (b[r], a[r])
            key = v.strip().lower() if isinstance(v, str) else None
            if key in ("model_a", "model_b"):  # names the column: the same item in both orders
                v = a[r] if key == "model_a" else b[r]
            firsts.append(f)
            seconds.append(s)
            outcomes.append(v)
            src.append(r)
    frame = pd.DataFrame(
        {
            "first": pd.Series(firsts, dtype=object),
            "second": pd.Series(seconds, dtype=object),
            "outcome": pd.Series(outcomes, dtype=object),
        }
    )
    src_a = np.asarray(src, dtype=np.int64)
    kept = _keep_other_columns(frame, df, src_a, (first, second, outcome))
    note = (
        f"read as {PAIR_LISTS}: column {outcome!r} holds two verdicts per row, the first with "
        f"{first!r} shown first, the second with the order swapped; {len(frame)} verdicts "
        f"from {len(df)} rows"
    )
    return Reshaped(
        PAIR_LISTS,
        frame,
        "first",
        "second",
        "outcome",
        source_rows=src_a,
        notes=(note, *kept),
        source_columns={"first": first, "second": second, "outcome": outcome},
    )


def winner_side_map(values: pd.Series, sides: tuple[str, str]) -> dict[Any, str]:
    """How the winner values of a layout that names the winning side read: ``sides[0]`` →
    first, ``sides[1]`` → second (any case), ``draw`` and anything starting with ``tie`` →
    tie (Chatbot Arena's ``model_a`` / ``model_b``; evalica's ``left`` / ``right``).

    Examples
    --------
    >>> m = winner_side_map(pd.Series(["Model_B", "tie (bothbad)"]), ("model_a", "model_b"))
    >>> m["Model_B"], m["tie (bothbad)"], m["model_a"]
    ('second', 'tie', 'first')
    """
    a_word, b_word = sides
    out: dict[Any, str] = {a_word: "first", b_word: "second", "tie": "tie"}
    for v in pd.unique(values.to_numpy(dtype=object)):
        if not isinstance(v, str):
            continue
        key = v.strip().lower()
        if key in (a_word, b_word):
            out[v] = "first" if key == a_word else "second"
        elif key.startswith("tie") or key == "draw":
            out[v] = "tie"
    return out


def refuse_ambiguous_winners(
    df: pd.DataFrame, outcome_map: Mapping[Any, str], columns: tuple[str, str, str]
) -> None:
    """Refuse rows whose winner word is also the name of one of the row's models.

    ``columns`` are the first, second and winner columns of ``df``. A row with ``model_a``
    named ``"model_b"`` and winner ``"model_b"`` could mean the model or the position, as an
    item named ``"second"`` with outcome ``"second"`` in the first/second/tie layout, which
    refuses it too; an ``outcome_map`` settles the reading.

    Examples
    --------
    >>> df = pd.DataFrame({"left": ["left"], "right": ["b"], "winner": ["left"]})
    >>> refuse_ambiguous_winners(df, {"left": "first"}, ("left", "right", "winner"))
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DataError: ambiguous winner 'left': ... (column 'winner', row 0)
    """
    a_col, b_col, w_col = columns
    cols = {c: df.loc[:, df.columns == c] for c in columns}
    if any(v.shape[1] != 1 for v in cols.values()):
        return  # a duplicated column: load_comparisons names it
    winner = cols[w_col].iloc[:, 0].reset_index(drop=True)
    words = {k for k in outcome_map if isinstance(k, str)}
    is_word = winner.isin(list(words)).to_numpy(dtype=bool)
    if not is_word.any():
        return

    def key(v: Any) -> str:
        return v.strip().lower() if isinstance(v, str) else ""

    rows = np.flatnonzero(is_word)
    w = winner.to_numpy(dtype=object)
    a = cols[a_col].iloc[:, 0].to_numpy(dtype=object)
    b = cols[b_col].iloc[:, 0].to_numpy(dtype=object)
    bad = [r for r in rows if key(w[r]) in (key(a[r]), key(b[r]))]
    if bad:
        raise DataError(
            f"ambiguous winner {w[bad[0]]!r}: a model of the row is itself named "
            f"{w[bad[0]]!r}, so the winner could be that model or the position; pass "
            f"outcome_map (e.g. {{'{a_col}': 'first', '{b_col}': 'second', 'tie': 'tie'}}; CLI "
            f"--outcome-map {a_col}=first,{b_col}=second,tie=tie) to read it as a position, or "
            "rename the models",
            rows=bad,
            column=w_col,
        )


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def _empty_cell(v: Any) -> bool:
    return _missing(v) or (isinstance(v, str) and not v.strip())


def _keep_other_columns(
    frame: pd.DataFrame, df: pd.DataFrame, rows: np.ndarray | None, skip: tuple[Any, ...]
) -> list[str]:
    """Copy every column of ``df`` not in ``skip`` into the reshaped ``frame``, each verdict
    taking the value of its input row (``rows``; None: one verdict per row).

    An input column whose name the reshape already gave one of its own columns (``judge`` in a
    file whose ``winner_<judge>`` columns name the judges, ``context`` beside Arena-Hard's
    question id) is kept as ``input_<name>``, never dropped or written over; the returned notes
    say so (empty when nothing was renamed).
    """
    made = set(frame.columns)
    notes = []
    for c in df.columns:
        if c in skip:
            continue
        values = df[c].to_numpy(dtype=object)
        name = c
        if c in made:
            name = f"input_{c}"
            while name in frame.columns or name in df.columns:
                name = f"input_{name}"
            notes.append(
                f"the input's column {c!r} is kept as {name!r}: this layout makes its own "
                f"{c!r} column"
            )
        frame[name] = values if rows is None else values[rows]
    return notes


def _arena_wide(df: pd.DataFrame, judge_cols: list[str]) -> Reshaped:
    """Chatbot Arena battles with one winner column per judge (``winner_<judge>``): one verdict
    per battle and judge; an empty cell is no verdict (left out and counted)."""
    a = df["model_a"].to_numpy(dtype=object)
    b = df["model_b"].to_numpy(dtype=object)
    judges = [c[len("winner_") :] for c in judge_cols]
    cells = np.column_stack([df[c].to_numpy(dtype=object) for c in judge_cols])  # rows × judges

    have = ~np.vectorize(_empty_cell, otypes=[bool])(cells) if cells.size else cells.astype(bool)
    src, k = np.nonzero(have)  # row-major: a battle's verdicts together
    frame = pd.DataFrame(
        {
            "first": pd.Series(a[src], dtype=object),
            "second": pd.Series(b[src], dtype=object),
            "outcome": pd.Series(cells[src, k], dtype=object),
            "judge": pd.Series(np.asarray(judges, dtype=object)[k], dtype=object),
        }
    )
    # the battle's other columns (question_id, …) stay with each verdict
    kept = _keep_other_columns(frame, df, src, ("model_a", "model_b", *judge_cols))
    outcome_map = winner_side_map(frame["outcome"], ("model_a", "model_b"))
    try:
        refuse_ambiguous_winners(frame, outcome_map, ("first", "second", "outcome"))
    except DataError as exc:  # name the battle's row and its judge's column
        r = int(exc.rows[0])
        raise DataError(exc.message, rows=[int(src[r])], column=judge_cols[int(k[r])]) from None
    shown = ", ".join(repr(c) for c in judge_cols)
    notes = [
        f"read as {ARENA_WIDE}: each of {shown} holds one judge's verdicts (the judge named by "
        "what follows 'winner_'), one per battle (first='model_a', second='model_b'; winner "
        "'model_a'/'model_b', values starting with 'tie' are ties); "
        f"{len(frame)} verdicts from {len(df)} rows",
        ARENA_ORDER_NOTE,
        *kept,
    ]
    missing = int(have.size - have.sum())
    if missing:
        per = ", ".join(
            f"{j} {int(n)}" for j, n in zip(judges, (~have).sum(axis=0), strict=True) if n
        )
        notes.append(f"{missing} empty winner cell(s) left out (no verdict): {per}")
    return Reshaped(
        ARENA_WIDE,
        frame,
        "first",
        "second",
        "outcome",
        judge="judge",
        outcome_map=outcome_map,
        source_rows=src.astype(np.int64),
        notes=tuple(notes),
        order_recorded=False,
        source_columns={
            "first": "model_a",
            "second": "model_b",
            "outcome": "/".join(judge_cols),
            "judge": "/".join(judge_cols),
        },
    )


def _position_codes(values: pd.Series) -> bool:
    """True when every non-empty value is one of :data:`POSITION_CODE_MAP`'s codes (any case,
    blanks around) and at least one is ``A`` or ``B``: the recognition rule of
    :data:`POSITION_CODED`."""
    seen = {
        v.strip().upper() if isinstance(v, str) else v
        for v in pd.unique(values.to_numpy(dtype=object))
        if not _empty_cell(v)
    }
    return bool(seen) and seen <= set(POSITION_CODE_MAP) and bool(seen & {"A", "B"})


def _refuse_stray_codes(values: pd.Series) -> None:
    """The columns of :data:`POSITION_CODED` whose verdicts are codes but for a few: name the
    rows of the others (one stray 'D', or MT-Bench's raw '[[A]]', made the whole log read as
    'column not found')."""
    vals = values.to_numpy(dtype=object)
    key = [v.strip().upper() if isinstance(v, str) else v for v in vals]
    bad = [
        r
        for r, (v, k) in enumerate(zip(vals, key, strict=True))
        if not _empty_cell(v) and k not in POSITION_CODE_MAP
    ]
    bare = [k.strip("[]") for k in key if isinstance(k, str)]
    coded = sum(1 for k in bare if k in POSITION_CODE_MAP)
    if not bad or not {"A", "B"} & set(bare) or len(bad) > coded:
        return  # not this layout's verdicts: the general rules decide
    shown = sorted({str(vals[r]) for r in bad})[:5]
    raw = any(str(vals[r]).strip().strip("[]").upper() in POSITION_CODE_MAP for r in bad)
    raise DataError(
        f"verdict code(s) {shown} are not A, B or C (the answer shown first, second, a tie; "
        f"an empty verdict is none) in a log read as {POSITION_CODED}"
        + (": strip the brackets of MT-Bench's [[A]] first" if raw else "")
        + "; fix or empty those cells, or name the columns yourself (first=, second=, "
        "outcome=, outcome_map=)",
        rows=bad,
        column="verdict",
    )


def _position_coded(df: pd.DataFrame) -> Reshaped:
    """Position-Bias-Analyzer's per-order verdicts (``model_first``, ``model_second``,
    ``verdict`` A/B/C): A the answer shown first, B the second, C a tie, an empty verdict none
    (the judge's answer held no code: left out and counted)."""
    verdict = df["verdict"].to_numpy(dtype=object)
    have = ~np.vectorize(_empty_cell, otypes=[bool])(verdict) if len(df) else np.zeros(0, bool)
    src = np.flatnonzero(have).astype(np.int64)
    frame = pd.DataFrame(
        {
            "first": pd.Series(df["model_first"].to_numpy(dtype=object)[src], dtype=object),
            "second": pd.Series(df["model_second"].to_numpy(dtype=object)[src], dtype=object),
            "outcome": pd.Series(verdict[src], dtype=object),
        }
    )
    outcome_map = {
        v: POSITION_CODE_MAP[v.strip().upper()]
        for v in pd.unique(frame["outcome"].to_numpy(dtype=object))
    }
    code = frame["outcome"].str.strip().str.upper()
    named = [
        frame[c].map(lambda v: v.strip().upper() if isinstance(v, str) else v)
        for c in ("first", "second")
    ]
    bad = np.flatnonzero(((code == named[0]) | (code == named[1])).to_numpy(dtype=bool))
    if bad.size:
        r = int(bad[0])
        raise DataError(
            f"ambiguous verdict {frame['outcome'].iat[r]!r}: a model of the row is itself named "
            f"{frame['outcome'].iat[r]!r}, so the verdict could name that model or the position; "
            "name the columns and the codes to read it as a position (first='model_first', "
            f"second='model_second', outcome='verdict', outcome_map={_CODE_MAP_ARG}; CLI "
            "--first model_first --second model_second --outcome verdict --outcome-map "
            f"{_CODE_MAP_FLAG}), or rename the models",
            rows=[int(src[i]) for i in bad],
            column="verdict",
        )
    notes = [
        f"read as {POSITION_CODED}: model_first was shown first, model_second second; verdict "
        f"'A' = the answer shown first, 'B' = the second, 'C' = a tie; {len(frame)} verdicts "
        f"from {len(df)} rows (outcome_map={_CODE_MAP_ARG} reads the same log under other "
        "column names)"
    ]
    context = None
    if "question_id" in df.columns:
        qid = np.asarray([_label(v) for v in df["question_id"].to_numpy(dtype=object)], object)
        if "benchmark" in df.columns:
            bench = np.asarray([_label(v) for v in df["benchmark"].to_numpy(dtype=object)], object)
            ctx = np.asarray([f"{b}/{q}" for b, q in zip(bench, qid, strict=True)], dtype=object)
            notes.append("context: benchmark and question_id ('MTBench/81')")
        else:
            ctx = qid.astype(str).astype(object)
            notes.append("context: question_id")
        frame["context"] = ctx[src]
        context = "context"
    # judge, repetition, task, …: kept with each verdict
    notes += _keep_other_columns(frame, df, src, ("model_first", "model_second", "verdict"))
    repeat = None
    if "repetition" in df.columns and "repeat" not in df.columns:
        repeat = "repetition"
        notes.append("repeat: column 'repetition' (the run that gave the verdict)")
    missing = int(len(df) - src.size)
    if missing:
        line = f"{missing} empty verdict(s) left out (the judge's answer held no code)"
        if "judge" in df.columns:
            judges = df["judge"].to_numpy(dtype=object)[~have]
            line += ": " + ", ".join(f"{j} {int(n)}" for j, n in Counter(judges).items())
        notes.append(line)
    return Reshaped(
        POSITION_CODED,
        frame,
        "first",
        "second",
        "outcome",
        context=context,
        repeat=repeat,
        outcome_map=outcome_map,
        source_rows=src,
        notes=tuple(notes),
        source_columns={"first": "model_first", "second": "model_second", "outcome": "verdict"},
    )


def _arena_hard_layout(df: pd.DataFrame) -> bool:
    """Arena-Hard-Auto's judgment records: ``model``, ``games`` (a list per row, or none) and a
    question key (``question_id`` in v0.1, ``uid`` in v2)."""
    cols = set(df.columns)
    if not ({"model", "games"} <= cols and cols & {"question_id", "uid"}):
        return False
    vals = df["games"].to_numpy(dtype=object)
    listed = [_is_list(v) for v in vals]
    return any(listed) and all(k or _missing(v) for k, v in zip(listed, vals, strict=True))


def _arena_hard(df: pd.DataFrame) -> Reshaped:
    """One verdict per game: game 1 shows the baseline first (``A``), game 2 the model; the
    score (``A>>B`` … ``B>>A``, ``A=B``) is read by position, its strength dropped; a game
    without a score (the judge's answer held no label) is left out and counted."""
    model = df["model"].to_numpy(dtype=object)
    if "baseline" in df.columns:
        base = df["baseline"].to_numpy(dtype=object)
        base_note = "the baseline is named by column 'baseline'"
    else:
        base = np.full(len(df), "baseline", dtype=object)
        base_note = (
            "the baseline, which v0.1 files do not name, is item 'baseline' (a 'baseline' "
            "column names it)"
        )
    firsts, seconds, outcomes, src = [], [], [], []
    unscored = 0
    for r, games in enumerate(df["games"].to_numpy(dtype=object)):
        games = [] if _missing(games) else games
        if len(games) > 2:
            raise DataError(
                f"{len(games)} games in one record: Arena-Hard-Auto writes one or two (the "
                "second with the answers swapped)",
                rows=[r],
                column="games",
            )
        for k, game in enumerate(games):
            score = game.get("score") if isinstance(game, Mapping) else None
            if score is None or (isinstance(score, str) and not score.strip()):
                unscored += 1
                continue
            key = "".join(str(score).split()).upper()
            if key not in ARENA_HARD_SCORES:
                raise DataError(
                    f"unknown score {score!r} in game {k + 1}: expected one of "
                    f"{sorted(ARENA_HARD_SCORES)} (A is the answer shown first) or none",
                    rows=[r],
                    column="games",
                )
            a, b = (base[r], model[r]) if k == 0 else (model[r], base[r])
            firsts.append(a)
            seconds.append(b)
            outcomes.append(ARENA_HARD_SCORES[key])
            src.append(r)
    src_a = np.asarray(src, dtype=np.int64)
    frame = pd.DataFrame(
        {
            "first": pd.Series(firsts, dtype=object),
            "second": pd.Series(seconds, dtype=object),
            "outcome": pd.Series(outcomes, dtype=object),
        }
    )
    qcol = "question_id" if "question_id" in df.columns else "uid"
    frame["context"] = np.asarray(
        [str(_label(v)) for v in df[qcol].to_numpy(dtype=object)], dtype=object
    )[src_a]
    # judge, category, …: kept with each verdict
    kept = _keep_other_columns(frame, df, src_a, ("model", "baseline", "games", qcol))
    notes = [
        f"read as {ARENA_HARD}: game 1 shows the baseline first (A) and column 'model' second "
        f"(B), game 2 the other way round ({base_note}); scores A>>B / A>B read as the "
        "first-shown answer "
        "winning, B>A / B>>A the second, A=B a tie (the strength of a preference is not "
        f"kept); context: {qcol}; {len(frame)} verdicts from {len(df)} rows",
        *kept,
    ]
    if unscored:
        notes.append(f"{unscored} game(s) without a score (no verdict label) left out")
    return Reshaped(
        ARENA_HARD,
        frame,
        "first",
        "second",
        "outcome",
        context="context",
        outcome_map=_AS_POSITIONS,
        source_rows=src_a,
        notes=tuple(notes),
        source_columns={"first": "model/baseline", "second": "baseline/model", "outcome": "games"},
    )


_ONE_HOT = ("winner_model_a", "winner_model_b", "winner_tie")


def _arena_one_hot(df: pd.DataFrame) -> Reshaped:
    """The LMSYS arena-human-preference files: ``model_a``, ``model_b`` and one 0/1 column per
    outcome; exactly one of the three is 1 on every row."""
    hot = np.column_stack([pd.to_numeric(df[c], errors="coerce").to_numpy() for c in _ONE_HOT])
    ok = np.isin(hot, (0.0, 1.0)).all(axis=1) & (np.nansum(hot, axis=1) == 1)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        raise DataError(
            "expected exactly one of winner_model_a, winner_model_b, winner_tie to be 1 and "
            "the others 0",
            rows=bad.tolist(),
            column="winner_model_a/winner_model_b/winner_tie",
        )
    outcome = np.asarray(["first", "second", "tie"], dtype=object)[np.argmax(hot, axis=1)]
    frame = pd.DataFrame(
        {
            "first": df["model_a"].to_numpy(dtype=object),
            "second": df["model_b"].to_numpy(dtype=object),
            "outcome": pd.Series(outcome, dtype=object),
        }
    )
    # id, prompt, responses, …: kept with each verdict
    kept = _keep_other_columns(frame, df, None, ("model_a", "model_b", *_ONE_HOT))
    notes = [
        f"read as {ARENA_ONE_HOT}: first='model_a', second='model_b', the outcome the column "
        f"that holds 1; {len(frame)} verdicts",
        ARENA_ORDER_NOTE,
        *kept,
    ]
    return Reshaped(
        ARENA_ONE_HOT,
        frame,
        "first",
        "second",
        "outcome",
        outcome_map=_AS_POSITIONS,
        source_rows=np.arange(len(frame), dtype=np.int64),
        notes=tuple(notes),
        order_recorded=False,
        source_columns={"first": "model_a", "second": "model_b", "outcome": "/".join(_ONE_HOT)},
    )


def reshape(
    df: pd.DataFrame, *, first: str = "first", second: str = "second", outcome: str = "outcome"
) -> Reshaped | None:
    """The log reshaped to one row per verdict when its layout needs it, else None.

    Parameters
    ----------
    df : DataFrame
        The log as read (never modified).
    first, second, outcome : str
        The columns asked for; a layout is recognised only where they are the defaults and
        absent (a column named on purpose is read as named).

    Returns
    -------
    Reshaped or None
    """
    cols = set(df.columns)
    if df.columns.duplicated().any():
        return None
    defaults = (first, second, outcome) == ("first", "second", "outcome")
    if defaults and not cols & {"first", "second", "outcome"}:
        if {"model_1", "model_2", "g1_winner", "g2_winner"} <= cols:
            return _mtbench(df)
        if {"generator_1", "generator_2", "preference"} <= cols:
            return _alpacaeval(df)
        if {"model_a", "model_b", *_ONE_HOT} <= cols:
            return _arena_one_hot(df)
        if _arena_hard_layout(df):
            return _arena_hard(df)
        wide = [
            c
            for c in df.columns
            if isinstance(c, str) and c.startswith("winner_") and len(c) > len("winner_")
        ]
        if {"model_a", "model_b"} <= cols and "winner" not in cols and wide:
            return _arena_wide(df, wide)
        if {"model_a", "model_b", "winner"} <= cols:
            cells = _parsed_lists(df["winner"])
            if cells is not None:
                return _pair_lists(df, "model_a", "model_b", "winner", cells)
        if {"model_first", "model_second", "verdict"} <= cols:
            if _position_codes(df["verdict"]):
                return _position_coded(df)
            _refuse_stray_codes(df["verdict"])
    out = outcome
    if outcome == "outcome" and "outcome" not in cols and "winner" in cols:
        out = "winner"
    if {first, second, out} <= cols and len(df):
        cells = _parsed_lists(df[out])
        if cells is not None:
            return _pair_lists(df, first, second, out, cells)
    return None


def _parsed_lists(values: pd.Series) -> list[Any] | None:
    """The values when every one is a list, or a list written as text (a CSV cell:
    ``'["a", "b"]'``, read back as the list); None when any is not (or there are none).

    Examples
    --------
    >>> import pandas as pd
    >>> _parsed_lists(pd.Series(["['a', 'b']", ["b", "a"]])), _parsed_lists(pd.Series(["a"]))
    ([['a', 'b'], ['b', 'a']], None)
    """
    out = []
    for v in values.to_numpy(dtype=object):
        v = _listed_text(v)
        if not _is_list(v):
            return None
        out.append(v)
    return out or None
