"""Contest-level covariates for the biased Bradley–Terry model (METHODS §7.3).

* :func:`style_features` — per text: length, markdown headers, bold spans, list items (the four
  style features of Li et al. 2024, "Does style matter?"), computed from raw answer texts.
* :func:`style_differences` — per verdict: feature of the first-shown text minus that of the
  second (or the normalised difference (a − b)/(a + b)).
* :func:`self_preference` — per verdict: [family(first) = family(judge)] − [family(second) =
  family(judge)], from an item → model-family map and the judge's family.

Attach them to a data set with :meth:`Comparisons.with_covariates
<bayes_pairwise.data.Comparisons.with_covariates>` (or the shortcuts
:func:`with_style_covariates` / :func:`with_self_preference`); the model standardises them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DataError

__all__ = [
    "STYLE_FEATURES",
    "self_preference",
    "style_differences",
    "style_features",
    "with_self_preference",
    "with_style_covariates",
]

#: Names of the style features, in column order.
STYLE_FEATURES = ("length", "headers", "bold", "list_items")

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADER = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_LIST = re.compile(r"^\s*([-*+]|\d{1,9}[.)])\s+\S")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")


def _count(text: str) -> dict[str, int]:
    headers = lists = bold = 0
    in_code = False
    prose: list[str] = []
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        prose.append(line)
        if _HEADER.match(line):
            headers += 1
        elif _LIST.match(line):
            lists += 1
    bold = len(_BOLD.findall("\n".join(prose)))
    return {"length": len(text), "headers": headers, "bold": bold, "list_items": lists}


def style_features(texts: Sequence[str] | Mapping[str, str] | pd.Series) -> pd.DataFrame:
    """Style features of answer texts: length, markdown headers, bold spans, list items.

    ``length`` counts characters; ``headers`` ATX headers (``# …`` to ``###### …``);
    ``bold`` ``**…**`` / ``__…__`` spans; ``list_items`` lines starting with ``-``, ``*``, ``+``
    or ``1.`` / ``1)``. Lines inside fenced code blocks are not counted as headers, list items
    or bold (a ``# comment`` in code is not a header).

    Parameters
    ----------
    texts : sequence of str, mapping of label to str, or Series
        The index of the result is the mapping's keys / the Series index / 0..n−1.

    Returns
    -------
    DataFrame
        Columns :data:`STYLE_FEATURES`, integer counts.

    Examples
    --------
    >>> style_features({"a": "# Title\\n\\n- one\\n- **two**\\n", "b": "Plain answer."})
       length  headers  bold  list_items
    a      25        1     1           2
    b      13        0     0           0
    >>> style_features(["```\\n# not a header\\n```"])["headers"].tolist()
    [0]
    """
    if isinstance(texts, pd.Series):
        index, values = list(texts.index), list(texts.values)
    elif isinstance(texts, Mapping):
        index, values = list(texts.keys()), list(texts.values())
    else:
        values = list(texts)
        index = list(range(len(values)))
    bad = [k for k, v in zip(index, values, strict=True) if not isinstance(v, str)]
    if bad:
        raise DataError(f"style_features needs strings; not a string for {bad[:5]}")
    rows = [_count(v) for v in values]
    return pd.DataFrame(rows, index=index, columns=list(STYLE_FEATURES)).astype(np.int64)


def _lookup(data: Comparisons, table: Mapping[str, object], what: str) -> list[object]:
    """Value per item, by item label or, failing that, by item name (inside its context)."""
    out, missing = [], []
    for label, name in zip(data.items, data.item_names, strict=True):
        if label in table:
            out.append(table[label])
        elif name in table:
            out.append(table[name])
        else:
            out.append(None)
            missing.append(label)
    if missing:
        raise DataError(f"no {what} for item(s) {missing[:8]}", column=what)
    return out


def style_differences(
    data: Comparisons,
    features: pd.DataFrame,
    *,
    columns: Iterable[str] | None = None,
    kind: str = "difference",
    prefix: str = "",
) -> dict[str, np.ndarray]:
    """Per-verdict style covariates: first-shown text minus second-shown text.

    Parameters
    ----------
    data : Comparisons
    features : DataFrame
        One row per item, indexed by item label (``"context::name"`` with contexts) or by item
        name, e.g. from :func:`style_features`.
    columns : iterable of str, optional
        Features to use (default: every column).
    kind : {"difference", "normalized"}
        ``a − b``, or ``(a − b)/(a + b)`` (0 where ``a + b = 0``), as in Chatbot Arena's style
        control.
    prefix : str
        Prepended to the covariate names.

    Returns
    -------
    dict of str to ndarray
        One array of length ``data.n_comparisons`` per feature, ready for
        :meth:`Comparisons.with_covariates`.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> data = load_comparisons(pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                                       "outcome": ["first", "second"]}))
    >>> feats = style_features({"a": "# Hi\\n- x", "b": "plain"})
    >>> style_differences(data, feats, columns=["length", "headers"])
    {'length': array([ 3., -3.]), 'headers': array([ 1., -1.])}
    """
    if kind not in ("difference", "normalized"):
        raise ValueError(f"kind must be 'difference' or 'normalized', got {kind!r}")
    cols = list(columns) if columns is not None else list(features.columns)
    unknown = [c for c in cols if c not in features.columns]
    if unknown:
        raise DataError(f"unknown feature column(s) {unknown}")
    table = {
        str(k): row for k, row in zip(features.index, features[cols].to_numpy(float), strict=True)
    }
    per_item = np.array(_lookup(data, table, "style features"), dtype=float).reshape(-1, len(cols))
    a, b = per_item[data.first], per_item[data.second]
    if kind == "difference":
        diff = a - b
    else:
        tot = a + b
        diff = np.divide(a - b, tot, out=np.zeros_like(tot), where=tot != 0)
    return {f"{prefix}{c}": diff[:, k].copy() for k, c in enumerate(cols)}


def self_preference(
    data: Comparisons,
    item_family: Mapping[str, str],
    judge_family: str | Mapping[str, str],
) -> np.ndarray:
    """Per-verdict self-preference covariate (first minus second).

    ``[family(first) == family(judge)] − [family(second) == family(judge)]`` ∈ {−1, 0, 1}.

    Parameters
    ----------
    data : Comparisons
    item_family : mapping
        Item label (or item name, with contexts) → model family of the model that wrote it.
    judge_family : str or mapping
        The judge's family, or judge label → family.

    Returns
    -------
    ndarray of float, length ``data.n_comparisons``

    Notes
    -----
    With a single judge (or judges of one family) this is a fixed item property and is
    confounded with the strengths; :class:`~bayes_pairwise.pymc_models.BiasedBradleyTerry`
    warns (:class:`~bayes_pairwise.errors.DesignWarning`). It becomes identifiable with judges
    of several families.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["gpt4", "claude", "gpt4"],
    ...                    "second": ["claude", "gpt4", "claude"],
    ...                    "outcome": ["first"] * 3, "judge": ["gpt4o", "gpt4o", "sonnet"]})
    >>> data = load_comparisons(df, judge="judge")
    >>> fam = {"gpt4": "openai", "claude": "anthropic"}
    >>> self_preference(data, fam, {"gpt4o": "openai", "sonnet": "anthropic"}).tolist()
    [1.0, -1.0, -1.0]
    """
    fam = np.array(_lookup(data, item_family, "item family"), dtype=object)
    if isinstance(judge_family, str):
        jfam = np.array([judge_family] * data.n_judges, dtype=object)
    else:
        missing = [j for j in data.judges if j not in judge_family]
        if missing:
            raise DataError(f"no family for judge(s) {missing}", column="judge family")
        jfam = np.array([judge_family[j] for j in data.judges], dtype=object)
    jf = jfam[data.judge]
    return (fam[data.first] == jf).astype(float) - (fam[data.second] == jf).astype(float)


def with_style_covariates(
    data: Comparisons,
    texts: Mapping[str, str] | pd.Series,
    *,
    columns: Iterable[str] | None = None,
    kind: str = "difference",
    prefix: str = "",
) -> Comparisons:
    """``data`` with the style differences of ``texts`` (item → answer text) as covariates.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> data = load_comparisons(pd.DataFrame({"first": ["a"], "second": ["b"],
    ...                                       "outcome": ["first"]}))
    >>> with_style_covariates(data, {"a": "**x**", "b": "y"}).covariate_names
    ('length', 'headers', 'bold', 'list_items')
    """
    feats = style_features(texts)
    return data.with_covariates(
        style_differences(data, feats, columns=columns, kind=kind, prefix=prefix)
    )


def with_self_preference(
    data: Comparisons,
    item_family: Mapping[str, str],
    judge_family: str | Mapping[str, str],
    *,
    name: str = "self_preference",
) -> Comparisons:
    """``data`` with the :func:`self_preference` covariate added under ``name``."""
    return data.with_covariates({name: self_preference(data, item_family, judge_family)})
