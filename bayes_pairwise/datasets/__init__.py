"""Bundled real pairwise-judgment data sets (and one synthetic set), with attribution.

Every real data set is bundled from a public MIT or Apache-2.0 repository with its licence; see
:func:`info` for the source, commit, licence, citation and caveats of each, and
``bayes_pairwise/datasets/data/ATTRIBUTION.md``.

========================  =================================================================
name                      what
========================  =================================================================
``prd_vicuna80``          5 LLM judges, every ordered pair of 5 answers to 80 questions
                          (the default: a complete round-robin in both orders per question)
``judging_the_judges``    9 LLM judges, model vs reference answer, both orders, 3 repeats
``chatbot_arena``         26,919 arena battles, verdicts of a human and 3 LLM judges each
                          (presentation order NOT recorded)
``llmfao``                8,931 crowd verdicts on 59 LLMs over 13 prompts
``paper_synthetic``       SYNTHETIC round-robin: 100 texts, both orders, known ε = 0.15
========================  =================================================================

Examples
--------
>>> from bayes_pairwise import datasets
>>> data = datasets.load("prd_vicuna80", judge="gpt4")
>>> data.n_contexts, data.n_items, data.n_comparisons, data.n_ties  # ties kept as data
(80, 400, 1600, 240)
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from bayes_pairwise.datasets import _readers
from bayes_pairwise.datasets._info import (
    CATALOGUE,
    CHATBOT_ARENA_ORDER_WARNING,
    DEFAULT_DATASET,
    FAMILIES,
    DatasetError,
    DatasetInfo,
)
from bayes_pairwise.errors import DataError, DesignWarning, user_stacklevel

if TYPE_CHECKING:  # pragma: no cover
    from bayes_pairwise.data import Comparisons
    from bayes_pairwise.simulate import SyntheticComparisons

__all__ = [
    "CHATBOT_ARENA_ORDER_WARNING",
    "DEFAULT_DATASET",
    "DatasetError",
    "DatasetInfo",
    "check_options",
    "export",
    "info",
    "item_families",
    "judge_families",
    "licence_text",
    "list_datasets",
    "load",
    "load_frame",
    "load_golden",
    "load_human_verdicts",
    "load_synthetic",
    "load_texts",
    "resolve_data",
]


# --------------------------------------------------------------------------- helpers
def _check_name(name: str) -> DatasetInfo:
    if name not in CATALOGUE:
        raise DatasetError(f"unknown dataset {name!r}; available datasets: {', '.join(CATALOGUE)}")
    return CATALOGUE[name]


def check_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise :class:`DatasetError` when ``options`` holds a key the data set does not accept.

    The one check of data-set options, used by :func:`load` and by the CLI before any work.

    Examples
    --------
    >>> check_options("prd_vicuna80", {})
    >>> check_options("prd_vicuna80", {"foo": 1})
    Traceback (most recent call last):
    ...
    bayes_pairwise.datasets.DatasetError: dataset 'prd_vicuna80' has no option 'foo'; ...
    """
    _check_name(name)
    reader = _readers.READERS[name][0]
    allowed = list(inspect.signature(reader).parameters)
    unknown = [k for k in options if k not in allowed]
    if unknown:
        accepts = f"its options are {', '.join(allowed)}" if allowed else "it takes no options"
        raise DatasetError(
            f"dataset {name!r} has no option {', '.join(map(repr, unknown))}; {accepts}"
        )


def _warn_order(name: str) -> None:
    if not CATALOGUE[name].order_recorded:
        warnings.warn(CHATBOT_ARENA_ORDER_WARNING, DesignWarning, stacklevel=user_stacklevel())


def _frame(name: str, options: dict[str, Any]) -> pd.DataFrame:
    _check_name(name)
    check_options(name, options)
    return _readers.READERS[name][0](**options)


def _select_judges(
    name: str, frame: pd.DataFrame, judge: str | int | Sequence[str | int] | None
) -> pd.DataFrame:
    if judge is None:
        return frame
    wanted = [judge] if isinstance(judge, str | int) else list(judge)
    labels = frame["judge"].astype("str")
    present = list(pd.unique(labels))
    missing = [str(j) for j in wanted if str(j) not in set(present)]
    if missing:
        shown = ", ".join(present[:20]) + (
            f", … ({len(present) - 20} more)" if len(present) > 20 else ""
        )
        raise DatasetError(f"{name}: unknown judge(s) {missing}; judges are {shown}")
    return frame[labels.isin([str(j) for j in wanted])].reset_index(drop=True)


def _source_label(name: str, options: dict[str, Any]) -> str:
    meta = CATALOGUE[name]
    if meta.synthetic:
        return _readers.paper_synthetic_source(**options)
    opts = "".join(f", {k}={v!r}" for k, v in options.items())
    label = f"bundled dataset {name}{opts} ({meta.source_url}@{meta.commit[:7]}, {meta.licence})"
    if not meta.order_recorded:
        label += " [presentation order NOT recorded: 'first' is nominal]"
    return label


# --------------------------------------------------------------------------- public API
def list_datasets() -> pd.DataFrame:
    """One row per bundled data set: shape, design and licence.

    The numbers are those of the tidy frame with the default options (ties included).

    Returns
    -------
    DataFrame
        Columns ``name, title, description, n_verdicts, n_items, n_contexts, n_judges, judges,
        both_orders, order_recorded, repeats, ties, licence, synthetic, default``.
        ``n_items`` counts distinct item names (answer models, texts); ``ties`` counts tie
        verdicts; ``default`` marks the data set used when none is named.

    Examples
    --------
    >>> from bayes_pairwise.datasets import list_datasets
    >>> table = list_datasets()
    >>> table["name"].tolist()[:3]
    ['prd_vicuna80', 'judging_the_judges', 'chatbot_arena']
    >>> table["name"].tolist()[3:]
    ['llmfao', 'qlora_oa_gpt4', 'paper_synthetic']
    >>> int(table.set_index("name").loc["chatbot_arena", "n_verdicts"])
    107676
    >>> table.loc[table["default"], "name"].item()
    'prd_vicuna80'
    """
    rows = []
    for meta in CATALOGUE.values():
        rows.append(
            {
                "name": meta.name,
                "title": meta.title,
                "description": meta.description,
                "n_verdicts": meta.n_verdicts,
                "n_items": meta.n_items,
                "n_contexts": meta.n_contexts,
                "n_judges": meta.n_judges,
                "judges": ", ".join(meta.judges),
                "both_orders": meta.both_orders,
                "order_recorded": meta.order_recorded,
                "repeats": meta.repeats,
                "ties": meta.n_ties,
                "licence": meta.licence,
                "synthetic": meta.synthetic,
                "default": meta.name == DEFAULT_DATASET,
            }
        )
    return pd.DataFrame(rows)


def info(name: str) -> DatasetInfo:
    """Provenance, licence, citation, columns and caveats of a data set.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.

    Returns
    -------
    DatasetInfo

    Raises
    ------
    DatasetError
        Unknown name (the message lists the available ones).

    Examples
    --------
    >>> from bayes_pairwise.datasets import info
    >>> meta = info("judging_the_judges")
    >>> meta.licence, meta.commit[:7], meta.repeats
    ('MIT', '9f8b7e8', 3)
    >>> print(meta.caveats[0][:40])
    Star design: every model is compared onl
    """
    return _check_name(name)


def load_frame(name: str = DEFAULT_DATASET, **options: Any) -> pd.DataFrame:
    """The tidy long table of a data set: one row per verdict, ties included.

    Columns ``first``, ``second``, ``outcome`` (``"first"``/``"second"``/``"tie"``),
    ``judge``, ``repeat`` and, where the data set has them, ``context``, followed by
    data-set-specific columns (``info(name).columns`` explains each). The frame loads with
    :func:`bayes_pairwise.data.load_comparisons` and its default column names.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (default ``"prd_vicuna80"``).
    **options
        Data-set-specific options (``info(name).options``): ``run`` for ``prd_vicuna80``,
        ``benchmark`` for ``judging_the_judges``, ``pool_workers`` for ``llmfao``, ``eps``,
        ``n_items``, ``repeats``, ``random_seed`` for ``paper_synthetic``.

    Returns
    -------
    DataFrame
        A fresh frame (changing it does not affect later loads).

    Raises
    ------
    DatasetError
        Unknown name or invalid option value.
    TypeError
        An option the data set does not have.

    Warns
    -----
    DesignWarning
        For ``chatbot_arena``: the presentation order was not recorded.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load_frame
    >>> frame = load_frame("prd_vicuna80")
    >>> frame.shape[0], frame["outcome"].value_counts().to_dict()
    (8000, {'first': 3898, 'second': 3321, 'tie': 781})
    >>> load_frame("judging_the_judges", benchmark="DevBench")["context"].nunique()
    18
    """
    frame = _frame(name, options)
    _warn_order(name)
    return frame


def load(
    name: str = DEFAULT_DATASET,
    *,
    judge: str | int | Sequence[str | int] | None = None,
    ties: Literal["model", "drop", "half", "error"] | None = None,
    covariates: Iterable[str] = (),
    **options: Any,
) -> Comparisons:
    """Load a bundled data set as a validated :class:`~bayes_pairwise.data.Comparisons`.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (default ``"prd_vicuna80"``).
    judge : str, int or sequence, optional
        Keep only these judges (default: all).
    ties : {"model", "drop", "half", "error"}, optional
        Tie policy, passed to :func:`~bayes_pairwise.data.load_comparisons` and recorded in
        ``Comparisons.tie_policy``. Default (None): :data:`bayes_pairwise.conventions.TIES`,
        ``"model"``, as everywhere (the command line, :func:`~bayes_pairwise.load_comparisons`,
        :func:`~bayes_pairwise.build_report`): ties are kept as an outcome of the error models;
        ``"drop"`` removes them (counted in ``n_ties_dropped``) as the paper did.
    covariates : iterable of str
        Numeric columns of the tidy frame to carry as covariates (e.g. ``"self_preference"``).
    **options
        Data-set-specific options, as in :func:`load_frame`.

    Returns
    -------
    Comparisons
        Contexts (where the data set has them) make each item ``"{context}::{name}"``; use
        ``.pool_contexts()`` to rank the names across contexts. ``source`` names the data set,
        its upstream commit and licence (and says SYNTHETIC for the synthetic set).

    Raises
    ------
    DatasetError
        Unknown name (the message lists the available ones), unknown judge, invalid option.
    TypeError
        An option the data set does not have.

    Warns
    -----
    DesignWarning
        For ``chatbot_arena``: position parameters are meaningless there.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load
    >>> data = load()  # prd_vicuna80, all five judges, ties kept as data
    >>> data.n_judges, data.n_comparisons, data.n_ties, data.tie_policy
    (5, 8000, 781, 'model')
    >>> jtj = load("judging_the_judges", benchmark="MTBench", judge="gpt-4-0613")
    >>> jtj.n_comparisons, jtj.n_ties, int(jtj.repeat.max())
    (576, 59, 3)
    >>> load("nope")
    Traceback (most recent call last):
    ...
    bayes_pairwise.datasets.DatasetError: unknown dataset 'nope'; available datasets: ...
    """
    from bayes_pairwise.data import load_comparisons

    frame = _select_judges(name, _frame(name, options), judge)
    _warn_order(name)
    has_context = _readers.READERS[name][1]
    return load_comparisons(
        frame,
        judge="judge",
        context="context" if has_context else None,
        repeat="repeat",
        covariates=tuple(covariates),
        ties=ties,
        source_name=_source_label(name, options),
        detect=False,
    )


def resolve_data(
    source: Any,
    *,
    ties: Literal["model", "drop", "half", "error"] | None = None,
    options: Mapping[str, Any] | None = None,
    **columns: Any,
) -> tuple[Comparisons, str | None]:
    """The one reading of "the data" shared by the command line and
    :func:`~bayes_pairwise.build_report`.

    A bundled data set's name (not shadowed by a file of that name) goes to :func:`load`, a
    path or a DataFrame to :func:`~bayes_pairwise.data.load_comparisons`, a
    :class:`~bayes_pairwise.data.Comparisons` is returned as it is. Both loaders get the same
    ``ties`` (default :data:`bayes_pairwise.conventions.TIES`), so a name, a file and a frame
    holding the same verdicts give the same data.

    Parameters
    ----------
    source : Comparisons, DataFrame, path or str
    ties : {"model", "drop", "half", "error"}, optional
    options : mapping, optional
        Options of a bundled data set (:func:`bayes_pairwise.datasets.load`).
    **columns
        Passed to :func:`~bayes_pairwise.data.load_comparisons` for a file or a frame (column
        names, ``truth``, …).

    Returns
    -------
    data : Comparisons
    name : str or None
        The data set's name, the file's name, or None (a frame or a Comparisons).

    Raises
    ------
    BayesPairwiseError
        ``options`` for a file or a frame (:class:`~bayes_pairwise.errors.DataError`);
        anything the loaders raise.

    Examples
    --------
    >>> data, name = resolve_data("prd_vicuna80")
    >>> name, data.n_comparisons, data.tie_policy
    ('prd_vicuna80', 8000, 'model')
    """
    from bayes_pairwise.data import Comparisons, load_comparisons

    if isinstance(source, Comparisons):
        return source, None
    if isinstance(source, str | PathLike):
        name = str(source)
        if name in set(list_datasets()["name"]) and not Path(name).exists():
            return load(name, ties=ties, **dict(options or {})), name
        if options:
            raise DataError(f"data set options apply to bundled data sets only, not to {name!r}")
        return load_comparisons(source, ties=ties, **columns), Path(name).name
    if isinstance(source, pd.DataFrame):
        if options:
            raise DataError("data set options apply to bundled data sets only, not to a frame")
        return load_comparisons(source, ties=ties, **columns), None
    raise TypeError(
        "expected a Comparisons, a DataFrame, a file path or a bundled data set name; got "
        f"{type(source).__name__}"
    )


def load_texts(name: str = DEFAULT_DATASET) -> pd.DataFrame:
    """The answer texts of a data set, with their question.

    Only ``prd_vicuna80`` bundles texts (the 5 answers to each of the 80 Vicuna80 questions).

    Parameters
    ----------
    name : str
        Data set name.

    Returns
    -------
    DataFrame
        Columns ``context`` (question id), ``item`` (answer model), ``text``, ``question``,
        ``category``, ``model_id`` (upstream model tag), ``answer_id``.

    Raises
    ------
    DatasetError
        Unknown name, or no texts bundled for this data set.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load_texts
    >>> texts = load_texts("prd_vicuna80")
    >>> texts.shape
    (400, 7)
    >>> texts.loc[0, "question"]
    'How can I improve my time management skills?'
    """
    meta = _check_name(name)
    if not meta.has_texts:
        raise DatasetError(
            f"no answer texts are bundled for {name!r}; texts are available for: "
            + ", ".join(n for n, m in CATALOGUE.items() if m.has_texts)
        )
    return _readers.prd_texts()


def load_human_verdicts(name: str = DEFAULT_DATASET, *, all_models: bool = False) -> pd.DataFrame:
    """Human pairwise verdicts bundled with a data set (``prd_vicuna80`` only).

    Each (question, pair) was judged in ONE orientation only, and whether ``model_a`` was shown
    first to the annotators is unknown: treat ``model_a``/``model_b`` as labels, not positions.
    Non-Claude cases have up to 3 annotators (QLoRA's annotations), Claude cases one (PRD's
    MTurk batch, Claude always as ``model_a``).

    Parameters
    ----------
    name : str
        Data set name.
    all_models : bool
        Also return the verdicts involving the four guanaco models, which have no LLM-judge
        verdicts or texts here (default False: only the five answer models).

    Returns
    -------
    DataFrame
        Columns ``context`` (question id), ``model_a``, ``model_b``, ``winner`` (a model name
        or ``"tie"``), ``verdict`` (upstream 1 = model_a, 2 = model_b, 3 = tie), ``annotator``
        (0, 1, 2 within a case), ``origin``.

    Raises
    ------
    DatasetError
        Unknown name, or no human verdicts for this data set.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load_human_verdicts
    >>> human = load_human_verdicts("prd_vicuna80")
    >>> len(human), human.groupby(["context", "model_a", "model_b"]).ngroups
    (1760, 800)

    Rank the five answer models by the human verdicts (order-free, ties dropped):

    >>> from bayes_pairwise.data import load_comparisons
    >>> data = load_comparisons(human, first="model_a", second="model_b", outcome="winner",
    ...                         ties="drop", source_name="PRD human verdicts",
    ...                         detect=False)  # leave the context column unread: pool questions
    >>> data.n_items
    5
    """
    _check_name(name)
    if name != "prd_vicuna80":
        raise DatasetError(
            f"no separate human verdicts for {name!r}; they exist for prd_vicuna80 (and "
            "chatbot_arena has them as judge 'human' in load())"
        )
    return _readers.prd_human_verdicts(all_models=all_models)


def load_golden(name: str = "llmfao") -> pd.DataFrame:
    """Reference scores bundled with a data set (``llmfao``: evalica's test targets).

    These are evalica's outputs for 7 algorithms (average_win_rate, bradley_terry, counting,
    eigen, elo, newman, pagerank) under evalica's conventions (ties as evalica maps them;
    bradley_terry compared as ``scores / scores.sum()``), useful as a regression oracle, not a
    ground truth.

    Parameters
    ----------
    name : str
        Data set name.

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``item``, ``score``.

    Raises
    ------
    DatasetError
        Unknown name, or no reference scores for this data set.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load_golden
    >>> golden = load_golden("llmfao")
    >>> golden.pivot(index="item", columns="algorithm", values="score").shape
    (59, 7)
    """
    _check_name(name)
    if name != "llmfao":
        raise DatasetError(f"no reference scores for {name!r}; they exist for llmfao")
    return _readers.llmfao_golden()


def load_synthetic(name: str = "paper_synthetic", **options: Any) -> SyntheticComparisons:
    """The synthetic data set with its truth (true order, realised error rate).

    Parameters
    ----------
    name : str
        A synthetic data set (``"paper_synthetic"``).
    **options
        ``eps``, ``n_items``, ``repeats``, ``random_seed`` (defaults as in
        ``info("paper_synthetic").options``).

    Returns
    -------
    SyntheticComparisons
        From :func:`bayes_pairwise.simulate.simulate_round_robin`.

    Raises
    ------
    DatasetError
        Unknown or non-synthetic name.

    Examples
    --------
    >>> from bayes_pairwise.datasets import load_synthetic
    >>> sim = load_synthetic()
    >>> sim.eps, len(sim.true_order), 0.1 < sim.realised_eps < 0.2
    (0.15, 100, True)
    """
    meta = _check_name(name)
    if not meta.synthetic:
        raise DatasetError(f"{name!r} is real data; synthetic datasets: paper_synthetic")
    check_options(name, options)
    return _readers.paper_synthetic_simulation(**options)


def item_families(name: str = DEFAULT_DATASET) -> dict[str, str]:
    """Item (answer model) → model family, for a self-preference covariate.

    Families are this package's labels by developer line (e.g. gpt35/gpt4 → ``"openai"``,
    claude → ``"anthropic"``, bard → ``"google"``, vicuna-13b → ``"vicuna"``). Only the lines
    of the data set's judges are resolved; any other model is its own family. The tidy frames
    of these data sets carry the resulting ``self_preference`` column.

    Parameters
    ----------
    name : str
        ``"prd_vicuna80"``, ``"judging_the_judges"`` or ``"chatbot_arena"``.

    Returns
    -------
    dict of str to str

    Raises
    ------
    DatasetError
        Unknown name, or no family map for this data set.

    Examples
    --------
    >>> from bayes_pairwise.datasets import item_families
    >>> item_families("prd_vicuna80")["gpt35"]
    'openai'
    """
    return dict(_families(name)[0])


def judge_families(name: str = DEFAULT_DATASET) -> dict[str, str]:
    """Judge → model family (same labels as :func:`item_families`).

    Parameters
    ----------
    name : str
        ``"prd_vicuna80"``, ``"judging_the_judges"`` or ``"chatbot_arena"``.

    Returns
    -------
    dict of str to str

    Raises
    ------
    DatasetError
        Unknown name, or no family map for this data set.

    Examples
    --------
    >>> from bayes_pairwise.datasets import judge_families
    >>> judge_families("chatbot_arena")["claude-3-opus-20240229"]
    'anthropic'
    """
    return dict(_families(name)[1])


def _families(name: str) -> tuple[Any, Any]:
    _check_name(name)
    if name not in FAMILIES:
        raise DatasetError(
            f"no model-family map for {name!r} (its judges are not models); maps exist for: "
            + ", ".join(FAMILIES)
        )
    return FAMILIES[name]


def licence_text(name: str) -> str:
    """The upstream licence bundled with a data set, verbatim.

    Parameters
    ----------
    name : str
        A real (non-synthetic) data set name.

    Returns
    -------
    str

    Raises
    ------
    DatasetError
        Unknown name, or the synthetic set (which has no upstream licence).

    Examples
    --------
    >>> from bayes_pairwise.datasets import licence_text
    >>> licence_text("prd_vicuna80").splitlines()[0]
    'MIT License'
    """
    meta = _check_name(name)
    if not meta.licence_file:
        raise DatasetError(f"{name!r} is generated by bayes_pairwise and has no upstream licence")
    return _readers.read_bytes(meta.licence_file).decode("utf-8")


_WRITERS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}


def export(name: str, path: str | PathLike[str], **options: Any) -> Path:
    """Write the tidy frame of a data set to a file (format from the suffix).

    Only the tidy frame is written; provenance and licence are in :func:`info` and
    :func:`licence_text`. The file loads back with
    :func:`bayes_pairwise.data.load_comparisons`.

    Parameters
    ----------
    name : str
        Data set name.
    path : str or path-like
        Target file: ``.csv``, ``.csv.gz``, ``.tsv``, ``.parquet``, ``.jsonl``/``.ndjson``
        (JSON Lines) or ``.json`` (an array of records). Parent folders are created.
    **options
        Data-set-specific options, as in :func:`load_frame`.

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    DatasetError
        Unknown name, invalid option, or unsupported suffix.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from bayes_pairwise.datasets import export
    >>> from bayes_pairwise.data import load_comparisons
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = export("prd_vicuna80", pathlib.Path(tmp) / "prd.parquet")
    ...     data = load_comparisons(out, judge="judge", context="context", ties="drop")
    >>> data.n_comparisons
    7219
    """
    path = Path(path)
    suffix = "".join(path.suffixes[-2:]).lower()
    kind = _WRITERS.get(suffix) or _WRITERS.get(path.suffix.lower())
    if kind is None:
        raise DatasetError(
            f"cannot export to {path.name!r}: use a suffix among {', '.join(_WRITERS)}"
        )
    from bayes_pairwise.output import atomic_write

    frame = load_frame(name, **options)
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(tmp: Path) -> None:  # to a temporary beside ``path``, renamed when complete
        if kind == "csv":
            frame.to_csv(tmp, index=False)
        elif kind == "tsv":
            frame.to_csv(tmp, sep="\t", index=False)
        elif kind == "parquet":
            frame.to_parquet(tmp, index=False)
        elif kind == "jsonl":
            frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
        else:
            frame.to_json(tmp, orient="records", force_ascii=False)

    atomic_write(path, write)
    return path
