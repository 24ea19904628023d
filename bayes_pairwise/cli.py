"""The ``bayes-pairwise`` command line.

Sub-commands::

    bayes-pairwise simulate --n-items 100 --eps 0.15 --seed 0 --out sim.csv
    bayes-pairwise estimate DATA --method {scom,moments,copeland,deltas,deltas2d,bt-mm,
                                           biased-bt-spread,elo} [--json]
    bayes-pairwise fit DATA --model NAME [--map] [--draws --tune --chains --seed] [--out fit.nc]
    bayes-pairwise compare DATA [--json]
    bayes-pairwise plan-labels DATA --budget N [--width W] [--json]
    bayes-pairwise datasets [list | show NAME | export NAME --out FILE]
    bayes-pairwise report DATA_OR_DATASET --out report.html [--judge J] [--model M]

``DATA`` is a bundled data set name (see ``bayes-pairwise datasets list``) or a comparison log
(.csv / .tsv / .parquet / .jsonl); column names are set with ``--first``, ``--second``,
``--outcome``, ``--judge-column``, ``--context-column``, ``--repeat-column``. Long work reports
its progress on stderr; ``--json`` output goes to stdout alone.

Errors: every problem (bad data, a bad argument value, an unwritable ``--out``) is printed as ONE
line ``error: …`` on stderr with exit status 2 (an unexpected internal failure: status 1, same
one-line form; set ``BAYES_PAIRWISE_TRACEBACK=1`` to see its traceback). Output paths are checked
before any work is done, and every output file is written atomically
(:mod:`bayes_pairwise.output`): an interrupted run (Ctrl-C, SIGTERM, SIGKILL, a full disk) leaves
the previous file or the complete new one.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import html
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bayes_pairwise._version import __version__
from bayes_pairwise.conventions import (
    JUDGE_BOARDS_N_BOOT,
    LEADERBOARD_N_BOOT,
    TIE_DISPERSION_GROUPS,
    TIE_POLICIES,
    name_list,
)
from bayes_pairwise.errors import (
    BayesPairwiseError,
    DataError,
    TieRescalingWarning,
    quiet_third_party,
)
from bayes_pairwise.model_specs import NUTS_SAMPLERS, available_models
from bayes_pairwise.output import (
    atomic_write,
    atomic_write_many,
    check_writable,
    markdown_table,
    write_text,
)

__all__ = ["main"]

#: suffixes each command writes (checked before any work)
SIMULATE_SUFFIXES = (".csv", ".tsv", ".parquet", ".jsonl", ".ndjson")
FIT_SUFFIXES = (".nc", ".nc4", ".netcdf")
REPORT_SUFFIXES = (".html", ".htm")
EXPORT_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".parquet", ".jsonl", ".ndjson", ".json")
MAX_SEED = 2**32 - 1
#: the most verdicts ``simulate`` writes (contexts × n(n−1) × repeats), checked before work
MAX_SIMULATED_VERDICTS = 10_000_000
#: the most worker processes ``sbc --jobs`` starts
MAX_JOBS = 256

ESTIMATE_METHODS = (
    "scom",
    "moments",
    "copeland",
    "deltas",
    "deltas2d",
    "bt-mm",
    "biased-bt-spread",
    "elo",
)


# --------------------------------------------------------------------------- argument types
def _int_type(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer in ``[lo, hi]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < lo or value > hi:
            raise argparse.ArgumentTypeError(f"must be between {lo} and {hi}, got {text}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def _float_type(lo: float, hi: float, *, open_hi: bool = False) -> Callable[[str], float]:
    """An argparse ``type=``: a finite number in ``[lo, hi]`` (``[lo, hi)`` with ``open_hi``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        too_high = value >= hi if open_hi else value > hi
        if not math.isfinite(value) or value < lo or too_high:
            bound = f"in [{lo:g}, {hi:g}{')' if open_hi else ']'}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return value

    parse.__name__ = "number"
    return parse


_SEED = _int_type(0, MAX_SEED)
_RATE = _float_type(0.0, 1.0)

_SIZE_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
MAX_INPUT_SIZE = 2**50  # the largest --max-input-size accepted (1 PiB)


def _size_type(text: str) -> int:
    """An argparse ``type=``: a byte count such as ``500M``, ``8G`` or ``1000000``."""
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = t[-1:] if t[-1:] in _SIZE_UNITS and t[-1:] else ""
    try:
        value = float(t[: len(t) - len(unit)]) * _SIZE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 500M or 8G, got {text!r}"
        ) from None
    if not math.isfinite(value) or value < 1 or value > MAX_INPUT_SIZE:
        raise argparse.ArgumentTypeError(f"must be between 1 byte and 1024T, got {text!r}")
    return int(value)


_size_type.__name__ = "size"


class _UsageError(Exception):
    """A bad command line (raised by the parser instead of printing usage and exiting)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (raised, printed by :func:`main`)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


# --------------------------------------------------------------------------- helpers
def _jsonable(obj: Any) -> Any:
    """Convert NumPy / pandas values to plain JSON values (NaN and ±inf become null)."""
    import numpy as np
    import pandas as pd

    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, pd.Series):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, pd.DataFrame):
        return [_jsonable(r) for r in obj.to_dict(orient="records")]
    if isinstance(obj, np.bool_ | bool):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, Path):
        return str(obj)
    return obj


def _print_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(_jsonable(obj), indent=2, allow_nan=False) + "\n")


def _info(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _parse_map(text: str | None) -> dict[str, str] | None:
    """Parse ``"1=first,2=second,3=tie"``."""
    if not text:
        return None
    out: dict[str, str] = {}
    for part in text.split(","):
        if "=" not in part:
            raise BayesPairwiseError(
                f"--outcome-map entries look like RAW=first|second|tie: {part!r}"
            )
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _parse_options(pairs: Sequence[str], name: str | None = None) -> dict[str, Any]:
    """Parse ``--option KEY=VALUE`` entries; with ``name``, check KEY against its options."""
    out: dict[str, Any] = {}
    for p in pairs or ():
        if "=" not in p:
            raise BayesPairwiseError(f"--option entries look like KEY=VALUE: {p!r}")
        k, v = p.split("=", 1)
        k = k.strip()
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    if name is not None:
        from bayes_pairwise import datasets

        datasets.check_options(name, out)
    return out


def _is_bundled(name: str) -> bool:
    from bayes_pairwise import datasets

    return name in set(datasets.list_datasets()["name"]) and not Path(name).exists()


def _check_data_args(args: argparse.Namespace) -> None:
    """Validate ``--option`` before any work (the data set's accepted options)."""
    if args.option:
        if not _is_bundled(args.data):
            raise BayesPairwiseError(
                "--option applies to bundled data sets only (see 'bayes-pairwise datasets list'),"
                f" not to the file {args.data!r}"
            )
        _parse_options(args.option, args.data)


def _user_warnings(caught: Sequence[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    """Drop NumPy's floating-point RuntimeWarnings ("divide by zero", "invalid value").

    The package's own warnings use their own classes (DesignWarning, ConvergenceWarning,
    UserWarning); a bare RuntimeWarning is arithmetic noise, not a message for the user.
    """
    return [w for w in caught if w.category is not RuntimeWarning]


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="bundled data set name or comparison log file")
    g = p.add_argument_group("reading a file")
    g.add_argument(
        "--first",
        "--first-column",  # spelt like --judge-column and the other column flags
        dest="first",
        default="first",
        help="column of the item shown first (default: first)",
    )
    g.add_argument(
        "--second",
        "--second-column",  # spelt like --judge-column and the other column flags
        dest="second",
        default="second",
        help="column of the item shown second (default: second)",
    )
    g.add_argument(
        "--outcome",
        "--outcome-column",  # spelt like --judge-column and the other column flags
        dest="outcome",
        default="outcome",
        help="column of the outcome / winner (default: outcome)",
    )
    g.add_argument("--judge-column", default=None, help="column naming the judge")
    g.add_argument("--context-column", default=None, help="column naming the context")
    g.add_argument("--repeat-column", default=None, help="column with the repeat number")
    g.add_argument(
        "--truth-column",
        default=None,
        help="column with the id of the truly better item (gold label; empty where unknown)",
    )
    g.add_argument(
        "--weights-column",
        default=None,
        help="column of per-row weights (finite, >= 0; evalica / arena style): read by fit, "
        "leaderboard (bt and the models) and estimate's bt-mm and elo; the estimators that "
        "count verdicts refuse them",
    )
    g.add_argument("--covariates", default="", help="comma-separated covariate columns")
    g.add_argument("--outcome-map", default=None, help='e.g. "1=first,2=second,3=tie"')
    g.add_argument(
        "--max-input-size",
        type=_size_type,
        default=None,
        metavar="SIZE",
        help="refuse a file holding more text than this (e.g. 500M, 16G; default 4G, after "
        "decompression of .gz)",
    )
    r = p.add_argument_group(
        "reading a ranking log (one row per item per list; read as one when the file has "
        "list/item/rank columns and no first/second columns, or when a flag below is given)"
    )
    r.add_argument("--list-column", default=None, help="column of the list id (default: list)")
    r.add_argument("--item-column", default=None, help="column of the item (default: item)")
    r.add_argument(
        "--rank-column", default=None, help="column of the rank, 1 = best (default: rank)"
    )
    r.add_argument(
        "--shown-column",
        default=None,
        help="column of the position the item was shown at, 1 = first (default: shown, if any)",
    )
    p.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default=None,
        help="tie policy. 'model' (default, for every command and every source): ties are "
        "data, kept as an outcome of the error models (a tie rate is fitted) and the classical "
        "error rates are reported among decided verdicts; 'half': half a win (the paper's "
        "rule: estimate's S_com and moments count a tie as half an error; the error models "
        "still fit a tie rate, so fit, compare and the report answer among decided verdicts "
        "as under 'model'); 'drop': removed and counted (the paper's published numbers); "
        "'error': refuse",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="data set option, e.g. --option benchmark=MTBench",
    )
    p.add_argument("--judge", default=None, help="restrict to one judge")


_RANKING_FLAGS = ("list_column", "item_column", "rank_column", "shown_column")


def _ranking_names(args: argparse.Namespace) -> dict[str, str]:
    """The list, item and rank columns of a ranking log: the flags' names, else the defaults."""
    return {
        "list": args.list_column or "list",
        "item": args.item_column or "item",
        "rank": args.rank_column or "rank",
    }


def _ranking_columns(args: argparse.Namespace) -> list[str] | None:
    """The file's columns when the command's file is a ranking log (the rule of
    :func:`_ranking_log`: a ranking flag given, or ``list``, ``item`` and ``rank`` columns and
    neither ``first`` nor ``second``), else None."""
    from bayes_pairwise.data import read_columns

    if _is_bundled(args.data):
        return None
    flagged = any(getattr(args, f, None) for f in _RANKING_FLAGS)
    with _sigterm_default():  # reading: SIGTERM ends the process at once
        cols = list(read_columns(args.data, max_bytes=args.max_input_size))
    names = set(_ranking_names(args).values())
    if flagged or (names <= set(cols) and args.first not in cols and args.second not in cols):
        return cols
    return None


def _ranking_log(args: argparse.Namespace) -> Any:
    """The command's file read as a ranking log (:func:`bayes_pairwise.load_rankings`), or None
    when it is a comparison log or a bundled data set.

    A file is a ranking log when a ranking flag is given, or when it has the columns ``list``,
    ``item`` and ``rank`` and neither ``first`` nor ``second``; optional columns ``shown``,
    ``judge`` and ``context`` are read by those names unless named by the flags.
    """
    from bayes_pairwise.rankings import load_rankings

    if _is_bundled(args.data):
        if any(getattr(args, f, None) for f in _RANKING_FLAGS):
            raise BayesPairwiseError("the ranking-log flags apply to files, not bundled data sets")
        return None
    cols = _ranking_columns(args)
    if cols is None:
        return None
    names = _ranking_names(args)
    optional = {
        "shown": args.shown_column or ("shown" if "shown" in cols else None),
        "judge": args.judge_column or ("judge" if "judge" in cols else None),
        "context": args.context_column or ("context" if "context" in cols else None),
    }
    ties = "drop" if args.ties == "drop" else "error"
    with _sigterm_default():
        data = load_rankings(args.data, **names, **optional, ties=ties)
    read = ", ".join(f"{k}={v!r}" for k, v in {**names, **optional}.items() if v)
    _info(f"read as a ranking log ({read}): {data!r}")
    if args.judge is not None:
        data = data.for_judge(args.judge)
    return data


def _load_data(args: argparse.Namespace):
    """The data of a command, with the tie policy of ``--ties`` or the package's default.

    One reader for every door (:func:`bayes_pairwise.datasets.resolve_data`, as
    :func:`~bayes_pairwise.build_report` reads its data): without ``--ties`` ties are data,
    modelled (:data:`bayes_pairwise.conventions.TIES`), whatever the command, the source or
    the layout; a log that holds no tie records ``"half"``, so the error models fit without a
    tie rate.
    """
    import re

    from bayes_pairwise.datasets import CHATBOT_ARENA_ORDER_WARNING as ORDER_WARNING
    from bayes_pairwise.datasets import resolve_data

    name = args.data
    if _is_bundled(name):
        if getattr(args, "truth_column", None):
            raise BayesPairwiseError(
                "--truth-column applies to files; the bundled data sets carry no gold labels"
            )
        if getattr(args, "weights_column", None):
            raise BayesPairwiseError(
                "--weights-column applies to files; the bundled data sets carry no weights"
            )
        with warnings.catch_warnings():
            if getattr(args, "command", None) == "leaderboard" and args.model in ("bt", "uniform"):
                # no position term in these models: the order warning does not apply to them
                warnings.filterwarnings("ignore", message=re.escape(ORDER_WARNING))
            data, _ = resolve_data(name, ties=args.ties, options=_parse_options(args.option, name))
    else:
        ranking = (
            f"{name!r} is a ranking log (one row per item per list: list, item and rank "
            f"columns), and {getattr(args, 'command', 'this command')} reads comparison logs "
            "(one row per verdict): rank it with leaderboard, fit it with fit --model "
            "plackett_luce or noisy_plackett_luce, or pick the next lists with propose"
        )
        # fit, leaderboard and propose read a ranking log before they come here
        flags = [f"--{f.replace('_', '-')}" for f in _RANKING_FLAGS if getattr(args, f, None)]
        if flags:
            raise BayesPairwiseError(
                f"{', '.join(flags)} name{'s' if len(flags) == 1 else ''} a ranking log's "
                f"columns, and {getattr(args, 'command', 'this command')} reads comparison logs "
                "(one row per verdict): a ranking log is read by leaderboard, fit --model "
                "plackett_luce or noisy_plackett_luce, and propose"
            )
        # a file: load_comparisons recognises known layouts and the judge/context/repeat
        # columns by name (the same rule as in Python); every choice it made is printed
        covs = [c for c in args.covariates.split(",") if c]
        # the load's warnings (e.g. a question column left unread) follow the lines that say how
        # the file was read, so that they read in order
        with _sigterm_default(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                data, _ = resolve_data(
                    name,
                    ties=args.ties,
                    first=args.first,
                    second=args.second,
                    outcome=args.outcome,
                    judge=args.judge_column,
                    context=args.context_column,
                    repeat=args.repeat_column,
                    covariates=covs,
                    outcome_map=_parse_map(args.outcome_map),
                    truth=getattr(args, "truth_column", None),
                    weights=getattr(args, "weights_column", None),
                    max_bytes=args.max_input_size,
                )
            except DataError:
                # not read as a comparison log: a ranking log's columns say why, in one line
                # (the header is read only now, so a comparison log is not read twice)
                if _ranking_columns(args) is not None:
                    raise BayesPairwiseError(ranking) from None
                raise
        for line in data.recognised:
            _info(line)
        if args.ties is None and data.n_ties:
            where = f"the {data.layout}" if data.layout else "the log"
            _info(
                f"ties: {data.n_ties} tie verdict(s) of {where} kept as data (ties='model', the "
                "default; --ties drop or --ties half to change)"
            )
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if args.judge is not None:
        data = data.for_judge(args.judge)
    return data


# --------------------------------------------------------------------------- simulate
def _cmd_simulate(args: argparse.Namespace) -> int:
    from bayes_pairwise.simulate import simulate_round_robin

    out = check_writable(args.out, suffixes=SIMULATE_SUFFIXES, what="--out")
    truth = check_writable(out.with_name(out.stem + ".truth.json"), what="truth file")
    if args.eps is None and (args.eps_plus is None or args.eps_minus is None):
        raise BayesPairwiseError("give --eps, or both --eps-plus and --eps-minus")
    if args.eps is not None and (args.eps_plus is not None or args.eps_minus is not None):
        raise BayesPairwiseError("give either --eps or --eps-plus/--eps-minus, not both")
    n_verdicts = args.n_contexts * args.n_items * (args.n_items - 1) * args.repeats
    if n_verdicts > MAX_SIMULATED_VERDICTS:
        raise BayesPairwiseError(
            f"--n-items {args.n_items}, --repeats {args.repeats} and --n-contexts "
            f"{args.n_contexts} ask for {n_verdicts:,} verdicts (n-contexts × n-items × "
            f"(n-items − 1) × repeats); at most {MAX_SIMULATED_VERDICTS:,}"
        )
    sim = simulate_round_robin(
        args.n_items,
        eps=args.eps,
        eps_plus=args.eps_plus,
        eps_minus=args.eps_minus,
        repeats=args.repeats,
        soft_sigma=args.soft_sigma,
        n_contexts=args.n_contexts,
        random_seed=args.seed,
    )
    frame = sim.frame
    suffix = out.suffix.lower()

    def write_log(tmp: Path) -> str:
        if suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        elif suffix in (".jsonl", ".ndjson"):
            frame.to_json(tmp, orient="records", lines=True)
        elif suffix == ".tsv":
            frame.to_csv(tmp, sep="\t", index=False)
        else:
            frame.to_csv(tmp, index=False)
        return hashlib.sha256(tmp.read_bytes()).hexdigest()

    def write_truth(tmp: Path) -> None:
        record = {
            "synthetic": True,
            "generator": sim.generator,
            "true_order": list(sim.true_order),
            "eps": sim.eps,
            "eps_plus": sim.eps_plus,
            "eps_minus": sim.eps_minus,
            "realised_eps": sim.realised_eps,
            "realised_eps_plus": sim.realised_eps_plus,
            "realised_eps_minus": sim.realised_eps_minus,
            "settings": dict(sim.settings),
            "log": out.name,
            "log_sha256": digest[0],
        }
        tmp.write_text(json.dumps(_jsonable(record), indent=2), encoding="utf-8")

    digest: list[str] = []
    # the log and its truth are one unit: both new files or both old ones, even after a kill
    atomic_write_many([(out, lambda tmp: digest.append(write_log(tmp))), (truth, write_truth)])
    _info(f"wrote {len(frame)} synthetic verdicts to {out} (truth in {truth.name})")
    if args.json:
        _print_json(
            {
                "out": str(out),
                "truth": str(truth),
                "n_verdicts": len(frame),
                "realised_eps": sim.realised_eps,
                "realised_eps_plus": sim.realised_eps_plus,
                "realised_eps_minus": sim.realised_eps_minus,
            }
        )
    return 0


# --------------------------------------------------------------------------- estimate
def _per_judge(data, fn: Callable[[Any, str], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for lab, block in data.by_judge():
        _info(f"  judge {lab!r} …")
        out[lab] = fn(block, lab)
    return out


def _flatten(by_judge: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    if len(by_judge) == 1:
        return dict(next(iter(by_judge.values()))[key])
    flat: dict[str, Any] = {}
    for judge, res in by_judge.items():
        for name, v in res[key].items():
            # az.summary style: eps[judge]; an indexed name gains the judge: copeland[item, judge]
            flat[f"{name[:-1]}, {judge}]" if name.endswith("]") else f"{name}[{judge}]"] = v
    return flat


def _decided_basis(
    tbl, by_judge: dict[str, dict[str, Any]], method: str
) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """Where :func:`~bayes_pairwise.classical.descriptive.descriptive_by_judge` puts a judge's
    basis on the pairs decided in both orders (its ties break the rescaling for the tie share),
    its ε (``scom``) or ε₊, ε₋ (``moments``) are those pairs' — the rates the cross-check's
    verdict rests on (``compare``, the report): ``by_judge``'s estimates are replaced in place,
    and ``s_com_decided`` and ``r1_decided`` (the statistics they come from) added. Returns
    judge → the basis, and judge → the rescaled values it replaced (:func:`_basis_note` says
    it in words)."""
    from bayes_pairwise.classical.descriptive import BASIS_DECIDED

    basis: dict[str, str] = {}
    rescaled: dict[str, dict[str, float]] = {}
    pairs = {
        "scom": {"eps": "eps_scom"},
        "moments": {"eps_plus": "eps_plus", "eps_minus": "eps_minus", "eps_sum": "eps_sum"},
    }[method]
    for j, row in tbl.iterrows():
        if row.get("basis") != BASIS_DECIDED:
            continue
        est = by_judge[str(j)]["estimates"]
        decided = [float(row[f"{col}_decided"]) for col in pairs.values()]
        if not any(math.isfinite(v) for v in [*decided, *(float(est[q]) for q in pairs)]):
            continue  # no ε either way (S_com above 1/2): the warning on S_com says why
        rescaled[str(j)] = {q: float(est[q]) for q in pairs}
        for q, col in pairs.items():
            est[q], est[f"{q}_se"] = float(row[f"{col}_decided"]), float(row[f"{col}_decided_se"])
        # the statistics those rates come from (s_com and r1 stay the whole log's)
        est["s_com_decided"], est["r1_decided"] = (
            float(row["s_com_decided"]),
            float(row["r1_decided"]),
        )
        basis[str(j)] = BASIS_DECIDED + (
            " (those pairs give no value: their S_com is above 1/2)"
            if not all(math.isfinite(v) for v in decided)
            else ""
        )
    return basis, rescaled


def _ties_half_note(args: argparse.Namespace, data, res: dict[str, Any]) -> str:
    """Under ``--ties half`` with ties in the log, ``scom``/``moments`` answer the paper's
    question (a tie is half an error); ``compare``, ``fit`` and the report answer the error among
    decided verdicts whatever ``--ties`` says (the models fit the ties). ``res`` gains those
    rates under ``among_decided`` (as ``estimate --ties model`` gives them), and the returned
    note says which is which."""
    import dataclasses

    import numpy as np

    from bayes_pairwise.crosscheck import SYMBOLS

    if args.method not in ("scom", "moments") or data.tie_policy != "half":
        return ""
    if not np.any(np.asarray(data.outcome) == 0.5):
        return ""
    decided = _estimate(args, dataclasses.replace(data, tie_policy="model"))
    keys = ("eps",) if args.method == "scom" else ("eps_plus", "eps_minus")
    per_judge = decided.get("by_judge") or {str(data.judges[0]): decided["estimates"]}
    res["among_decided"] = decided["estimates"]
    if "basis" in decided:
        res["among_decided_basis"] = decided["basis"]
    shown = "; ".join(
        (f"{j} " if len(per_judge) > 1 else "")
        + ", ".join(f"{SYMBOLS[k]} {_four(_num(est.get(k)))}" for k in keys)
        for j, est in per_judge.items()
    )
    return (
        "--ties half counts a tie as half a win, so these rates count a tie as half an error "
        "(the paper's rule); compare, fit and the report answer the error among decided "
        "verdicts whatever --ties says (the models fit a tie rate): "
        + shown
        + " here (estimate --ties model gives them with their standard errors)"
    )


def _num(v: Any) -> float:
    return float(v) if v is not None else math.nan


def _four(v: float) -> str:
    return f"{v:.4f}" if math.isfinite(v) else "no value"


def _estimand_note(args: argparse.Namespace, data, res: dict[str, Any]) -> str:
    """The error-rate methods of ``estimate`` read no gold label: their rates are the
    order-inconsistent errors, which a judge's errors repeated in both orders do not reach.
    ``res`` gains ``estimand`` and, under the tie policies that read rates among decided
    verdicts, the sharp ``bounds`` ``fit`` and ``compare`` give for the same seed (the
    estimators' own rates can sit above the judge's true rate or far below it); the returned
    note says it in words, with the lower ends."""
    from bayes_pairwise.conventions import ESTIMAND_ORDER_INCONSISTENT, LOWER_BOUND_NOTE
    from bayes_pairwise.crosscheck import SYMBOLS

    if not _reads_judge_errors(args.method):
        return ""
    res["estimand"] = ESTIMAND_ORDER_INCONSISTENT
    head = "order-inconsistent error rates (estimate reads no gold label)"
    # ties counted half an error move the estimators off the bounds' decided verdicts; a log
    # with no tie records "half" too (nothing to model), and its bounds are fit's
    import numpy as np

    if data.tie_policy == "half" and bool(np.any(np.asarray(data.outcome) == 0.5)):
        return f"{head}: {LOWER_BOUND_NOTE}"
    from bayes_pairwise.classical.bounds import error_bounds
    from bayes_pairwise.errors import DesignError

    try:
        found = error_bounds(data, random_seed=0 if args.seed is None else int(args.seed))
    except (DesignError, ValueError):
        return f"{head}: {LOWER_BOUND_NOTE}"
    from bayes_pairwise.identification import bounds_read, rates_read

    res["bounds"] = {
        str(b.judge): {q: list(b.bounds[q]) for q in ("eps_plus", "eps_minus", "eps")}
        for b in found
    }
    # the bounds beside the rates the method reads: ε alone where the order was not recorded
    # and the method reads ε (fit's rule); the position rates too where it splits by position
    have = ("eps",) if args.method in ("scom", "deltas") else ("eps_plus", "eps_minus")
    qs = bounds_read(data.order_recorded, rates_read(data.order_recorded, have))
    res["bounds_read"] = list(qs)
    shown = "; ".join(
        (f"{b.judge}: " if len(found) > 1 else "")
        + ", ".join(f"{SYMBOLS[q]} ≥ {b.bounds[q][0]:.3f}" for q in qs)
        for b in found
    )
    return (
        f"{head}, read as if errors were independent across orders; the log alone shows "
        f"{shown} (sharp lower bounds, as fit and compare give them): {LOWER_BOUND_NOTE}"
    )


def _labelled_note(args: argparse.Namespace, data, res: dict[str, Any]) -> str:
    """Gold labels given to an error-rate method: its rates read none, so ``res`` gains the
    plain error rates of the labelled decided verdicts (``labelled``, per judge: compare's
    "gold labels" rows, the same Wilson intervals) and the note gives them."""
    if not _reads_judge_errors(args.method):
        return ""
    if not data.has_truth:
        return ""
    import math

    from bayes_pairwise.classical.descriptive import labelled_error_rates
    from bayes_pairwise.conventions import interval_label, resolve_hdi_prob
    from bayes_pairwise.crosscheck import SYMBOLS

    tbl = labelled_error_rates(data, level=resolve_hdi_prob())
    have = ("eps",) if not data.order_recorded else ("eps", "eps_plus", "eps_minus")
    out: dict[str, dict[str, float]] = {}
    said = []
    for j, r in tbl.iterrows():
        if not int(r["n_decided"]):
            continue
        row = {"n_labelled": int(r["n_labelled"]), "n_decided": int(r["n_decided"])}
        parts = []
        for q in have:
            est, lo, hi = float(r[q]), float(r[f"{q}_lo"]), float(r[f"{q}_hi"])
            row.update({q: est, f"{q}_lower": lo, f"{q}_upper": hi})
            if math.isfinite(est):
                parts.append(f"{SYMBOLS[q]} {est:.3f} [{lo:.3f}, {hi:.3f}]")
        out[str(j)] = row
        said.append(
            (f"{j}: " if data.n_judges > 1 else "")
            + ", ".join(parts)
            + f" on {row['n_decided']:,} labelled decided verdicts"
        )
    if not out:
        return ""
    res["labelled"] = out
    return (
        "gold labels: the labelled verdicts alone give "
        + "; ".join(said)
        + f" ({interval_label()} Wilson, compare's 'labelled verdicts (gold)' rows): no "
        "model, and no blind spot for errors repeated in both orders, which the rates above "
        "cannot see; they describe the labelled pairs"
    )


def _basis_note(res: dict[str, Any], n_judges: int) -> str:
    """The text output's note on the judges whose rates ``estimate`` reads on the pairs decided
    in both orders (:func:`_decided_basis`), with the rescaled values they replace."""
    from bayes_pairwise.crosscheck import SYMBOLS

    rescaled = res.get("rescaled", {})
    if not rescaled:
        return ""
    which = (
        f"for {', '.join(rescaled)} the rates above are" if n_judges > 1 else "the rates above are"
    )
    given = "; ".join(
        (f"{j}: " if n_judges > 1 else "")
        + ", ".join(
            f"{SYMBOLS[q]} {_four(v)}" + (" (below 0)" if v < 0 else "") for q, v in vals.items()
        )
        for j, vals in rescaled.items()
    )
    return (
        f"{which} read on the pairs decided in both orders (one decided verdict per position, "
        "no rescaling), as compare and the report read them: the ties depend on where the "
        "better text is shown, or come in pairs (the warnings below give the numbers), so the "
        f"rescaling for the tie share does not hold (rescaled: {given})"
    )


#: ``estimate``'s methods that give a judge's error rates (the others rank the texts).
_ERROR_RATE_METHODS = ("scom", "moments", "deltas", "deltas2d", "biased-bt-spread")


def _reads_judge_errors(method: str) -> bool:
    """Whether ``estimate --method`` gives a judge's error rates from its verdicts alone, the
    rates the order-inconsistency bounds and gold labels speak to (the biased-BT spread pools
    the judges and gives the mode of an improper model's restarts, not a judge's rate)."""
    return method in _ERROR_RATE_METHODS and method != "biased-bt-spread"


#: The cross-check's seed stream each stochastic ``estimate`` method draws from.
_ESTIMATE_STREAMS = {
    "deltas": "delta_s",
    "deltas2d": "delta_s_2d",
    "biased-bt-spread": "biased_bt_spread",
}


def _estimate(args: argparse.Namespace, data) -> dict[str, Any]:
    from bayes_pairwise.conventions import interval_label
    from bayes_pairwise.crosscheck import N_BOOTSTRAP, seed_streams

    method = args.method
    settings: dict[str, Any] = {"data": data.settings(), "seed": args.seed}
    pooled = False
    # the grids and the spread search draw from the seed stream compare draws from, with its
    # bootstrap: `estimate --seed S` and `compare --seed S` give one number (PRD claude's Δ_S
    # grid read 0.190 here and 0.200 there, the synthetic tables drawn from other seeds)
    stream = _ESTIMATE_STREAMS.get(method)
    seed = seed_streams(args.seed)[stream] if stream else args.seed
    if stream:
        settings["seed_stream"] = stream

    def _grid_fit(cls: Any, block: Any) -> Any:  # a Δ_S grid as compare fits it
        return cls(
            random_seed=seed,
            progress=True,
            skip_incomplete=args.skip_incomplete,
            n_bootstrap=N_BOOTSTRAP,
        ).fit(block, k_plus=args.k_plus, k_minus=args.k_minus)

    if method in ("scom", "moments"):
        from bayes_pairwise.classical.descriptive import ONE_ORDER_LEAD, descriptive_by_judge
        from bayes_pairwise.errors import DesignError

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # a basis on the pairs decided in both orders: the note below says it
            warnings.simplefilter("ignore", TieRescalingWarning)
            # a judge without pairs in both orders: the caveat "Too few verdicts to say" below
            warnings.filterwarnings("ignore", message=ONE_ORDER_LEAD)
            tbl = descriptive_by_judge(data)
        if not (tbl["n_pairs_both_orders"] > 0).any():  # no judge has a number to report
            raise DesignError(
                f"--method {method} needs pairs shown in both orders; "
                + (
                    "this log shows none"
                    if data.n_judges == 1
                    else f"none of the {data.n_judges} judges saw one"
                )
                + f" ({int(tbl['n_pairs'].sum())} judge-pair(s), each in one order only): "
                "S_com and the moments read a pair's verdicts in both orders. "
                "--method bt-mm, elo or copeland do not need them"
            )
        keys = (
            ["eps_scom", "eps_scom_se", "s_com", "consistency"]
            if method == "scom"
            else [
                "eps_plus",
                "eps_minus",
                "eps_plus_se",
                "eps_minus_se",
                "eps_sum",
                "eps_sum_se",
                "s_com",
                "r1",
            ]
        )
        rename = {"eps_scom": "eps", "eps_scom_se": "eps_se", "consistency": "position_consistency"}
        by_judge = {
            str(j): {"estimates": {rename.get(k, k): row[k] for k in keys}}
            for j, row in tbl.iterrows()
        }
        said = [str(w.message) for w in _user_warnings(caught)]
        # the cross-check's basis where the tie rescaling fails: one question, one answer
        basis, rescaled = _decided_basis(tbl, by_judge, method)
        extra_basis = {"basis": basis, "rescaled": rescaled} if basis else {}
        if method == "moments" and "moments_at_boundary" in tbl:
            # which way each judge's moments left their domain (no real solution, or a rate
            # below 0), as positional_moments warns in Python: the numbers alone do not say.
            # Where the rates above are the pairs decided in both orders, those moments' edge
            # (the rescaled moments' own is about numbers not reported)
            from bayes_pairwise.classical.descriptive import positional_moments
            from bayes_pairwise.crosscheck import SYMBOLS

            for j, row in tbl.iterrows():
                if not row["n_pairs_both_orders"]:  # no moments (descriptive_by_judge says so)
                    continue
                if str(j) in rescaled:
                    if row["decided_boundary"]:
                        said.append(
                            f"judge {j!r}, moments of the pairs decided in both orders outside "
                            f"their domain: {row['decided_boundary']}"
                        )
                    continue
                if not bool(row["moments_at_boundary"]):
                    below = [
                        f"{SYMBOLS[q]} {float(row[q]):.4f}"
                        for q in ("eps_plus", "eps_minus")
                        if float(row[q]) < 0
                    ]
                    if below:  # inside the domain, below 0 once rescaled (ε_half < τ/2)
                        said.append(
                            f"judge {j!r}: {' and '.join(below)} below 0 once rescaled for the "
                            "tie share (the moments among all verdicts are inside their domain): "
                            "sampling noise around 0, kept unclipped with its interval"
                        )
                    continue
                with warnings.catch_warnings(record=True) as edge:
                    warnings.simplefilter("always")
                    warnings.simplefilter("ignore", TieRescalingWarning)
                    positional_moments(data, judge=j)
                said += [str(w.message) for w in _user_warnings(edge)]
        extra = {"table": tbl.reset_index(), "warnings": said, **extra_basis}
    elif method == "copeland":
        from bayes_pairwise.classical.descriptive import copeland_scores

        by_judge = _per_judge(
            data,
            lambda b, lab: {
                "estimates": {f"copeland[{k}]": v for k, v in copeland_scores(b).items()}
            },
        )
        extra = {}
        if data.has_contexts:  # per name over the contexts: the report's Copeland table
            from bayes_pairwise.crosscheck import copeland_summary

            extra["by_name"] = copeland_summary(data).reset_index()
    elif method == "deltas":
        from bayes_pairwise.classical.deltas import DeltaSFit

        fits = {}

        def one(b, lab):
            f = fits[lab] = _grid_fit(DeltaSFit, b)
            est = {"eps": f.eps_}
            if f.eps_boot_ is not None:
                est["eps_lower"], est["eps_upper"] = f.interval()
            return {"estimates": est}

        by_judge = _per_judge(data, one)
        extra = {
            "curves": {
                lab: {
                    "n": f.sizes_,
                    "observed": f.observed_curve_,
                    "synthetic_at_eps": f.synthetic_curve_,
                    "grid": f.grid_,
                    "misfit": f.misfit_,
                    "n_contexts": f.n_contexts_,
                }
                for lab, f in fits.items()
            }
        }
    elif method == "deltas2d":
        from bayes_pairwise.classical.deltas import DeltaS2DFit

        fits = {}

        def one(b, lab):
            f = fits[lab] = _grid_fit(DeltaS2DFit, b)
            # ε₊ and ε₋ are the sum split by r₁, compare's rows: the grid's own split is not
            # identified (a swap leaves every Z and W unchanged), kept as eps_*_grid
            est = {"eps_sum": f.eps_sum_}
            if f.eps_sum_boot_ is not None:
                est["eps_sum_lower"], est["eps_sum_upper"] = f.interval("eps_sum")
            if f.eps_plus_hybrid_ is not None:
                est["eps_plus"] = f.eps_plus_hybrid_
                est["eps_minus"] = f.eps_minus_hybrid_
                if f.eps_sum_boot_ is not None:  # compare's rows "sum split by r₁", same interval
                    for side in ("plus", "minus"):
                        lo, hi = f.interval(f"eps_{side}_hybrid")
                        est[f"eps_{side}_lower"], est[f"eps_{side}_upper"] = lo, hi
            est.update(
                {
                    "eps_plus_grid": f.eps_plus_,
                    "eps_minus_grid": f.eps_minus_,
                    "eps_low": f.eps_low_,
                    "eps_high": f.eps_high_,
                }
            )
            return {"estimates": est}

        by_judge = _per_judge(data, one)
        first = next(iter(fits.values()))
        extra = {
            "identifiable": False,
            "caveat": first.caveat_
            + " Here eps_plus and eps_minus are the sum split by r1 (eps_plus_hybrid_ and "
            "eps_minus_hybrid_ in Python, compare's rows 'sum split by r₁'); eps_plus_grid and "
            "eps_minus_grid are the grid's own split (eps_plus_, eps_minus_), not identified.",
            "cross_validation": {lab: f.cv_results_ for lab, f in fits.items()},
        }
    elif method in ("bt-mm", "elo", "biased-bt-spread"):
        extra_note = _pooling_note(data)
        if data.has_contexts:
            data = data.pool_contexts()
            pooled = True
        if method == "bt-mm":
            from bayes_pairwise.classical.bradley_terry import BradleyTerry, ridge_gap

            bt = BradleyTerry(method="mm", ridge=args.ridge).fit(data)
            est = {f"strength[{k}]": v for k, v in bt.strengths_.items()}
            extra = {"ranking": list(bt.strengths_.sort_values(ascending=False).index)}
            wm = bt.win_matrix_
            if gap := ridge_gap(wm.to_numpy(dtype=float), tuple(map(str, wm.index))):
                extra["caveat"] = f"MM with ridge λ = {args.ridge:g}: {gap}"
            settings.update(ridge=args.ridge, n_iter=bt.n_iter_, converged=bt.converged_)
        elif method == "elo":
            from bayes_pairwise.classical.elo import Elo

            elo = Elo(random_seed=args.seed).fit(data)
            est = {f"elo[{k}]": v for k, v in elo.ratings_.items()}
            extra = {"ranking": list(elo.ratings_.sort_values(ascending=False).index)}
        else:
            from bayes_pairwise.classical.bradley_terry import BiasedBTSpreadSearch

            s = BiasedBTSpreadSearch(random_seed=seed, progress=True).fit(data)
            est = {"eps_opt_mode": s.mode_}
            extra = {
                "histogram": s.histogram_,
                "at_edge": s.at_edge_,
                "note": "the paper's biased-BT baseline: an improper model whose scores drift; "
                "eps_opt is the mode of the restart histogram "
                "(METHODS §6, docs/src/methods.md)",
            }
        by_judge = {"all judges pooled": {"estimates": est}}
        settings["judges_pooled"] = list(data.judges)
        if extra_note is not None:
            extra["pooling_note"] = extra_note
    else:  # pragma: no cover - argparse restricts choices
        raise BayesPairwiseError(f"unknown method {method!r}")

    if method in ("deltas", "deltas2d"):
        grid_said = _grid_basis_warnings(data, method)
        if grid_said:
            extra.setdefault("warnings", []).extend(grid_said)
        from bayes_pairwise.classical.deltas import MIN_BOOTSTRAP_CONTEXTS

        # compare's row says it ("too few round-robins to resample: no interval"); so does this
        bare = {
            lab: f.n_contexts_ for lab, f in fits.items() if f.n_contexts_ < MIN_BOOTSTRAP_CONTEXTS
        }
        if bare:
            who = ", ".join(
                (f"{lab}: " if len(fits) > 1 else "") + f"{n} round robin{'s' if n != 1 else ''}"
                for lab, n in bare.items()
            )
            extra["interval_note"] = (
                f"no interval ({who}): the bootstrap resamples round robins and needs at least "
                f"{MIN_BOOTSTRAP_CONTEXTS}, so the grid's value stands alone, as in compare"
            )
    settings["contexts_pooled"] = pooled
    if method in ("deltas", "deltas2d"):
        settings["interval"] = f"{interval_label()} bootstrap percentile interval, " + (
            f"{N_BOOTSTRAP} resamples of the contexts (as compare)"
        )
    out: dict[str, Any] = {
        "method": method,
        "estimates": _flatten(by_judge, "estimates"),
        "settings": settings,
    }
    if len(by_judge) > 1:
        out["by_judge"] = {j: r["estimates"] for j, r in by_judge.items()}
    out.update(extra)
    return out


def _grid_basis_warnings(data: Any, method: str) -> list[str]:
    """Per judge whose ties break the rescaling for the tie share: the Δ_S grids place ties at
    random (and the 2-D grid's split rescales 2r₁ − 1 for the tie share), so they are not the
    cross-check's basis; the rates that are (the moments, or S_com, of the pairs decided in both
    orders) and why the basis moved, from
    :func:`~bayes_pairwise.classical.descriptive.descriptive_by_judge`, the one place that rule
    lives."""
    from bayes_pairwise.classical.descriptive import BASIS_DECIDED, descriptive_by_judge
    from bayes_pairwise.crosscheck import SYMBOLS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tie caveats are printed once, by the command
        tbl = descriptive_by_judge(data)
    cols = {"deltas": ("eps_scom",), "deltas2d": ("eps_plus", "eps_minus")}[method]
    what = (
        "the Δ_S grid (ties placed at random)"
        if method == "deltas"
        else "the 2-D Δ_S grid (ties placed at random) and its split by r₁ rescaled for the tie "
        "share (2r₁ − 1 divided by 1 − τ)"
    )
    out = []
    for j, row in tbl.iterrows():
        if row.get("basis") != BASIS_DECIDED:
            continue
        vals = [
            f"{SYMBOLS['eps' if c == 'eps_scom' else c]} {float(row[c + '_decided']):.4f}"
            for c in cols
            if math.isfinite(float(row[c + "_decided"]))
        ]
        out.append(
            f"judge {j!r}: {row['decided_reason']}, which {what} does not allow: not "
            "the basis of compare's verdict"
            + (
                f"; the pairs decided in both orders, that basis, give {', '.join(vals)}"
                if vals
                else "; the pairs decided in both orders, that basis, give no value (their "
                "S_com is above 1/2)"
            )
            + " (estimate --method "
            + ("scom" if method == "deltas" else "moments")
            + ")"
        )
    return out


def _pooling_note(data: Any) -> str | None:
    """What ``estimate``'s ranking methods pool, from the log: every judge's verdicts into one
    table, and the contexts' items merged by name; ``None`` when there is nothing to pool."""
    parts = []
    if data.n_judges > 1:
        parts.append(
            f"the verdicts of all {data.n_judges} judges ({name_list(data.judges)}) in one table"
        )
    if data.has_contexts:
        n_names = len(set(data.item_names))
        parts.append(
            f"the {data.n_items:,} items of {data.n_contexts:,} contexts merged by name into "
            f"{n_names:,}"
        )
    if not parts:
        return None
    return (
        "pooled: "
        + " and ".join(parts)
        + (
            "; one judge's ranking: --judge NAME (bayes-pairwise leaderboard --agreement-with "
            "JUDGE ranks by every judge and compares the boards)"
            if data.n_judges > 1
            else ""
        )
    )


def _cmd_estimate(args: argparse.Namespace) -> int:
    _check_data_args(args)
    given = [f"--k-{side}" for side in ("plus", "minus") if getattr(args, f"k_{side}") is not None]
    if given and args.method not in ("deltas", "deltas2d"):
        raise BayesPairwiseError(
            f"{' and '.join(given)} {'sets' if len(given) == 1 else 'set'} the Δ_S design: "
            f"it applies to --method deltas or deltas2d, not {args.method}"
        )
    data = _load_data(args)
    _info(f"{data!r}: method {args.method}")
    res = _estimate(args, data)
    from bayes_pairwise.caveats import (
        one_position_only,
        order_not_recorded,
        position_preference_varies,
        text_blind,
        ties_cluster_by_pair,
        ties_depend_on_position,
        too_few_verdicts,
    )

    # about the error rates (S_com, the moments, the grids): not a ranking's business
    few = too_few_verdicts(data) if args.method in _ERROR_RATE_METHODS else None
    if few is not None:
        res.setdefault("warnings", []).insert(0, few.text)
    alone = one_position_only(data)  # every method's numbers: verdicts that ignore the texts
    if alone is not None:
        res.setdefault("warnings", []).insert(0, alone.text)
    blind = text_blind(data)  # … or that the log cannot tell from such verdicts
    if blind is not None:
        res.setdefault("warnings", []).insert(0, blind.text)
    if args.method in ("scom", "moments", "deltas2d"):  # rates split by the first position
        nominal = order_not_recorded(data, model_kind="classical")
        if nominal is not None:
            res.setdefault("warnings", []).insert(0, nominal.text)
    # rescaled for the tie share, or ties placed at random in the grids' tables: valid here?
    if args.method in ("scom", "moments", "deltas", "deltas2d"):
        for tied in (ties_depend_on_position(data), ties_cluster_by_pair(data)):
            if tied is not None:
                res.setdefault("warnings", []).append(tied.text)
    if args.method == "moments":  # a judge above S_com's ceiling: no (ε₊, ε₋) describe it
        varies = position_preference_varies(data)
        if varies is not None:
            res.setdefault("warnings", []).append(varies.text)
    half_note = _ties_half_note(args, data, res)
    estimand_note = _estimand_note(args, data, res)
    labelled_note = _labelled_note(args, data, res)
    if args.method in ("scom", "moments") and data.tie_policy == "drop" and data.n_ties_dropped:
        res["ties_dropped_note"] = (
            f"{data.n_ties_dropped:,} ties dropped: S_com and r₁ are read on the pairs left with "
            "a verdict in both orders, since a dropped tie takes one order's verdict of its "
            "pair away (where ties depend on where the better text is shown, the verdicts "
            "left in such pairs lean to one position)"
        )
    if args.json:
        _print_json(res)
    else:
        import pandas as pd

        est = pd.Series(res["estimates"], dtype=float, name="estimate")
        print(f"method: {res['method']}  ({data.n_comparisons} verdicts, ties={data.tie_policy})")
        if "by_name" in res:  # a score per item of every context: the table by name instead
            tbl = res["by_name"].set_index("item name")
            for stat, fmt in (("mean rank", "{:.2f}"), ("ranked 1st", "{:.0f}")):
                # the summary's columns are "<judge>: <stat>" for each judge in order
                cols = {f"{j}: {stat}": str(j) for j in data.judges}
                part = tbl[list(cols)].rename(columns=cols)
                part.columns.name = f"{stat} by judge"
                print(part.to_string(float_format=fmt.format) + "\n")
            print(
                f"note: each judge's Copeland ranking within each of the {data.n_contexts:,} "
                "contexts, summarised by item name as the report gives it (mean rank, 1 = best; "
                "the number of contexts ranked first, where tied scores share the best rank, "
                f"so a context can count for several); the {len(est):,} per-context scores: "
                "--json (estimates)"
            )
        else:
            print(est.to_string(float_format=lambda v: f"{v:.4f}"))
        if "caveat" in res:
            print(f"\nnote: {res['caveat']}")
        if note := _basis_note(res, data.n_judges):
            print(f"\nnote: {note}")
        if half_note:
            print(f"\nnote: {half_note}")
        if "ties_dropped_note" in res:
            print(f"\nnote: {res['ties_dropped_note']}")
        if "pooling_note" in res:
            print(f"\nnote: {res['pooling_note']}")
        if "interval_note" in res:
            print(f"\nnote: {res['interval_note']}")
        if estimand_note:
            print(f"\nnote: {estimand_note}")
        if labelled_note:
            print(f"\nnote: {labelled_note}")
        for w in res.get("warnings", []):
            print(f"warning: {w}")
    return 0


# --------------------------------------------------------------------------- fit / compare
def _method(args: argparse.Namespace) -> str:
    """``--map`` → ``"map"``, ``--fast`` → ``"laplace"`` (the fast path), else ``"nuts"``."""
    if getattr(args, "map", False):
        return "map"
    return "laplace" if getattr(args, "fast", False) else "nuts"


def _sampler_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    for k in ("draws", "tune", "chains", "nuts_sampler"):
        v = getattr(args, k, None)
        if v is not None:
            kw[k] = v
    return kw


def _cmd_fit(args: argparse.Namespace) -> int:
    # before importing PyMC, loading data or sampling; an empty path is refused, not skipped
    if args.out is not None:
        check_writable(args.out, suffixes=FIT_SUFFIXES, what="--out")
    if getattr(args, "verdicts", None) is not None:
        check_writable(args.verdicts, suffixes=(".csv",), what="--verdicts")
    _check_data_args(args)
    rankings = _ranking_log(args)
    if rankings is not None or args.model in RANKING_MODELS:
        return _fit_rankings(args, rankings)
    import numpy as np

    from bayes_pairwise.pymc_models import PositionalBias, UniformError, fit_summary_dict, get_model

    model = get_model(args.model, **_sampler_kwargs(args))  # an unknown model fails here
    if args.verdicts is not None and getattr(model, "observed_name", "") not in (
        "wins",
        "contexts",
    ):  # before the fit, not after it
        raise BayesPairwiseError(
            f"--verdicts: {args.model} scores each verdict on its own, with no latent truth "
            "it could contradict; per-verdict error probabilities need an error model "
            "(uniform, positional, their variants, uniform_order or positional_order)"
        )
    if args.tie_positional:
        if "tie_positional" not in model.get_params():
            raise BayesPairwiseError(
                f"--tie-positional: {args.model} has no tie rate by position (the error models "
                "uniform, positional and their order variants do)"
            )
        model.set_params(tie_positional=True)
    model.set_params(**_tie_dispersion(args, model))
    data = _load_data(args)
    # the data go to the model unchanged: its ``ties`` setting decides (METHODS §7.5)
    if isinstance(model, UniformError | PositionalBias) and model.models_ties(data):
        _info(
            f"ties: {int(np.sum(data.outcome == 0.5))} tie(s) modelled as an outcome of the "
            f"{args.model} model ("
            + ("tie_rate_plus and tie_rate_minus" if args.tie_positional else "tie_rate")
            + (" and tie_rho" if args.tie_dispersion else "")
            + " reported; recorded in the fit's settings)"
        )
    method = _method(args)
    tied = {"tie_positional": True} if args.tie_positional else {}
    _order_model_notes(data, [args.model], method, **_sampler_kwargs(args), **tied)
    _info(f"fitting {args.model} ({method}) to {data!r} …")
    started = time.perf_counter()
    # a line per phase (compiling, sampling, …) and, on a terminal, the sampler's progress bar
    model.fit(
        data,
        method=method,
        random_seed=args.seed,
        progress=sys.stderr.isatty(),
        on_step=lambda line: _info(f"  {line} …"),
        on_progress=lambda line: _info(f"    {line}"),  # piped: a line every few seconds
    )
    _info(f"{method} fit done in {time.perf_counter() - started:.1f} s")
    if args.out is not None:
        model.save(args.out)
        _info(f"saved to {args.out}")
    if getattr(args, "verdicts", None) is not None:
        _write_verdicts(args.verdicts, model, data)
    summary = fit_summary_dict(model, per_item=args.all)
    summary["caveats"] = [
        {"code": c.code, "text": c.text} for c in (getattr(model, "caveats_", None) or [])
    ]
    summary.update(_what_it_shows(model, data, args.seed))
    if args.json:
        _print_json(summary)
    else:
        print(_fit_text(summary))
    return 0


#: ``fit --model`` values that read ranking logs (the first is classical, not a model spec).
RANKING_MODELS = ("plackett_luce", "noisy_plackett_luce")


def _fit_rankings(args: argparse.Namespace, data: Any) -> int:
    """``fit`` on a ranking log: classical Plackett–Luce or the NoisyPlackettLuce model."""
    if data is None:
        raise BayesPairwiseError(
            f"--model {args.model} fits ranking logs (one row per item per list: columns "
            "list, item, rank; or --list-column/--item-column/--rank-column); "
            f"{args.data!r} is read as a comparison log"
        )
    if args.model not in RANKING_MODELS:
        raise BayesPairwiseError(
            f"{args.data!r} is a ranking log: fit it with --model plackett_luce (classical) or "
            f"--model noisy_plackett_luce (the judge's position bias and lapses), not "
            f"{args.model!r}"
        )
    if args.model == "plackett_luce":
        from bayes_pairwise.classical.plackett_luce import PlackettLuce

        if args.out:
            raise BayesPairwiseError(
                "--out saves a Bayesian fit (NetCDF); plackett_luce is classical: use --json"
            )
        pl = PlackettLuce().fit(data)
        res = {
            "model": "plackett_luce",
            "method": "mm",
            "n_lists": data.n_lists,
            "n_items": data.n_items,
            "converged": bool(pl.converged_),
            "n_iter": int(pl.n_iter_),
            "loglik": float(pl.loglik_),
            "strengths": {k: float(v) for k, v in pl.strengths_.items()},
        }
        if args.json:
            _print_json(res)
        else:
            print(f"Plackett–Luce (MM): {data.n_lists} lists, {data.n_items} items")
            order = pl.strengths_.sort_values(ascending=False)
            print(order.to_string(float_format=lambda v: f"{v:.4f}"))
        return 0
    from bayes_pairwise.pymc_models import fit_summary_dict, get_model

    model = get_model(args.model, **_sampler_kwargs(args))
    if not data.has_shown:
        model.set_params(position="none")
        _info("no shown order in the log: fitting without a position effect (--shown-column)")
    method = _method(args)
    _order_model_notes(data, [args.model], method, **_sampler_kwargs(args))
    _info(f"fitting {args.model} ({method}) to {data!r} …")
    started = time.perf_counter()
    model.fit(
        data,
        method=method,
        random_seed=args.seed,
        progress=sys.stderr.isatty(),
        on_step=lambda line: _info(f"  {line} …"),
    )
    _info(f"{method} fit done in {time.perf_counter() - started:.1f} s")
    if args.out:
        model.save(args.out)
        _info(f"saved to {args.out}")
    summary = fit_summary_dict(model, per_item=args.all)
    summary["caveats"] = []
    if data.has_shown:
        ppc = model.list_ppc(random_seed=args.seed)
        summary["list_ppc"] = ppc.to_dict("records")
    if args.json:
        _print_json(summary)
    else:
        print(_fit_text(summary))
        for rec in summary.get("list_ppc", []):
            print(
                f"{'ppc':>16}: {rec['judge']} {rec['statistic']}: observed "
                f"{rec['observed']:.3f}, model {rec['replicated']:.3f} "
                f"[{rec['lower']:.3f}, {rec['upper']:.3f}]"
            )
    return 0


def _what_it_shows(model: Any, data: Any, seed: int | None) -> dict[str, Any]:
    """``estimand``, ``bounds``, ``identification``, ``convergence`` and ``reads_as`` of a fit
    (issue 25); ``bounds`` is the one judge's ``{"eps_plus": [lo, hi], …}`` or, with several
    judges, one such object per judge."""
    from bayes_pairwise.caveats import one_position_judges, short_of_pairs, text_blind_judges
    from bayes_pairwise.identification import (
        bounds_read,
        fit_estimand,
        rate_convergence,
        rates_read,
        reads_as,
        what_the_log_shows,
    )

    est = fit_estimand(model)
    shows = what_the_log_shows(data, random_seed=0 if seed is None else int(seed))
    short = short_of_pairs(data, unlabelled_only=True)
    blind = text_blind_judges(data)
    alone = one_position_judges(data)
    bounds = {j: b.to_dict() for j, b in shows["bounds"].items()}
    ident = {j: r.to_dict() for j, r in shows["identification"].items()}
    post = model.idata_.posterior
    reads = {}
    read = rates_read(
        data.order_recorded, [q for q in ("eps", "eps_plus", "eps_minus") if q in post]
    )
    for j in data.judges:
        vals = {}
        for q in read:
            da = post[q]
            if "judge" in da.dims:
                da = da.sel(judge=j)
            vals[q] = float(da.mean())
        few = short.get(str(j))
        found = blind.get(str(j))
        reads[j] = reads_as(
            vals,
            est,
            pairs_in_both=None if few is None else few[1],
            text_blind_upper=None if found is None else found.upper,
            one_position=alone[str(j)][0] if str(j) in alone else None,
            bounds=shows["bounds"][j].bounds if j in shows["bounds"] else None,
        )
    one = len(bounds) == 1
    return {
        "estimand": est,
        "reads_as": next(iter(reads.values())) if len(reads) == 1 else reads,
        "bounds": next(iter(bounds.values()))["bounds"]
        if one
        else {j: b["bounds"] for j, b in bounds.items()},
        "bounds_detail": bounds,
        # the rates whose sharp bounds the text prints (ε alone where the order was not
        # recorded and the sentence reads no position rate)
        "bounds_read": list(bounds_read(data.order_recorded, read)),
        "identification": ident,
        "convergence": rate_convergence(model),
    }


def _fit_text(summary: dict[str, Any]) -> str:
    """``fit``'s text output: the reported parameters, rounded, then a short diagnostics block.

    Columns that hold nothing (R-hat, ESS and intervals of a MAP point) are left out.
    """
    import pandas as pd

    params = pd.DataFrame(summary["parameters"]).T.apply(pd.to_numeric, errors="coerce")
    params = params.dropna(axis=1, how="all")
    for col in ("ess_bulk", "ess_tail"):
        if col in params:
            params[col] = params[col].round().astype("Int64")
    lines = [params.to_string(float_format=lambda v: f"{v:.3f}"), ""]
    lines.extend(_ranks_text(summary.get("ranks")))
    diag = summary.get("diagnostics", {})
    shown = {
        "draws": f"{diag.get('n_chains')} chain(s) × {diag.get('n_draws')} draw(s)",
        "divergences": diag.get("divergences"),
        "max R-hat": diag.get("max_r_hat"),
        "min ESS (bulk)": diag.get("min_ess_bulk"),
        "min E-BFMI": diag.get("ebfmi_min"),
        "tree-depth hits": diag.get("tree_depth_hits"),
        "converged": {True: "yes", False: "NO", None: "n/a"}[diag.get("ok")],
    }
    if summary.get("method") in ("map", "laplace"):  # no sampler: nothing to count
        for key in ("divergences", "tree-depth hits", "converged"):
            shown.pop(key)
    for key, value in shown.items():
        if value is None:
            continue
        if key == "min ESS (bulk)":
            text = f"{value:.0f}"
        else:
            text = f"{value:.3f}" if isinstance(value, float) else str(value)
        lines.append(f"{key:>16}: {text}")
    for msg in diag.get("messages", []):
        lines.append(f"{'note':>16}: {msg}")
    conv = (summary.get("convergence") or {}).get("text")
    head = []
    if conv:
        head.append(conv)
    reads = summary.get("reads_as")
    if isinstance(reads, dict):
        head.extend(f"{j}: {t}" for j, t in reads.items())
    elif reads:
        head.append(reads)
    for j, b in (summary.get("bounds_detail") or {}).items():
        who = f"{j}: " if len(summary["bounds_detail"]) > 1 else ""
        head.append(who + _bounds_line(b, summary.get("bounds_read")))
    for c in summary.get("caveats", []):
        lines.append(f"caveat: {c['text']}")
    return "\n".join([*head, "", *lines] if head else lines)


def _ranks_text(ranks: dict[str, Any] | None) -> list[str]:
    """The order models' ranks in ``fit``'s text: pooled by item name, or why not."""
    import pandas as pd

    if not ranks:
        return []
    if not ranks.get("by_name"):
        return [f"ranks: {ranks.get('by_name_note', '')}", ""]
    table = pd.DataFrame(ranks["by_name"]).T
    table.index.name = "name"
    n = int(ranks["rank_draws"])
    rates = "at the point estimate of the rates" if n == 1 else f"over {n} posterior draws"
    return [
        f"Posterior ranks within contexts, pooled by name (each context's order summed out, "
        f"{rates}):",
        "  beats_share = expected share of a context's other items it is truly better than;",
        "  p_best = expected share of its contexts it is best in",
        table.to_string(
            formatters={"contexts": lambda v: f"{int(v)}"},
            float_format=lambda v: f"{v:.3f}",
        ),
        "",
    ]


def _bounds_line(b: dict[str, Any], rates: Sequence[str] | None = None) -> str:
    """One line of sharp bounds from :meth:`ErrorBounds.to_dict` (of ``rates``, default all)."""
    sym = {"eps_plus": "ε₊", "eps_minus": "ε₋", "eps": "ε"}
    parts = ", ".join(
        f"{sym[q]} ∈ [{lo:.3f}, {hi:.3f}]"
        for q, (lo, hi) in b["bounds"].items()
        if rates is None or q in rates
    )
    what = "with labels" if b.get("n_labelled") else "without labels"
    tail = "; transitivity tightened them" if b.get("transitivity_tightened") else ""
    return f"sharp bounds {what} ({b['interval']}): {parts}{tail}"


def _tie_dispersion(args: argparse.Namespace, model: Any = None) -> dict[str, bool | str]:
    """``--tie-dispersion [context|pair]`` for ``fit``, ``compare`` and ``report`` (the setting
    to pass on: ``True`` for a context, as before, or ``"pair"``): refused unless their
    ``--model`` (``model`` when already built) takes it; the cross-check fits it on that model
    only."""
    if not args.tie_dispersion:
        return {}
    from bayes_pairwise.pymc_models import get_model

    if "tie_dispersion" not in (model or get_model(args.model)).get_params():
        raise BayesPairwiseError(
            f"--tie-dispersion: {args.model} has no tie rate that varies by "
            f"{args.tie_dispersion} (the order models uniform_order and positional_order do: "
            "--model positional_order)"
        )
    return {"tie_dispersion": True if args.tie_dispersion == "context" else args.tie_dispersion}


def _cmd_compare(args: argparse.Namespace) -> int:
    from bayes_pairwise.crosscheck import crosscheck, models_to_fit

    _check_data_args(args)
    data = _load_data(args)
    tied = {"tie_positional": True} if args.tie_positional else {}
    names = models_to_fit(("uniform", "positional"), args.model)
    _order_model_notes(data, names, _method(args), **tied)
    if names[:2] != ["uniform", "positional"]:  # an order model in their place
        _info(
            f"--model {args.model}: fitting {' and '.join(names)}, the hard-truth limits of "
            "uniform and positional, in their place"
        )
    _info(f"cross-checking {data!r} …")
    res = crosscheck(
        data,
        model=args.model,
        method=_method(args),
        random_seed=args.seed,
        progress=True,
        **tied,
        **_tie_dispersion(args),
        **_sampler_kwargs(args),
    )
    if args.json:
        _print_json(res.to_dict())
    else:
        _print_headline(res)
    return 0


# --------------------------------------------------------------------------- leaderboard
def _cmd_leaderboard(args: argparse.Namespace) -> int:
    _check_data_args(args)
    rankings = _ranking_log(args)
    if rankings is not None or args.model == "plackett_luce":
        from bayes_pairwise.leaderboard import ranking_leaderboard

        if rankings is None:
            raise BayesPairwiseError(
                f"--model plackett_luce ranks ranking logs; {args.data!r} is a comparison log"
            )
        if (
            args.model not in ("bt", "plackett_luce")
            or args.agreement_with is not None
            or args.pool_judges
        ):
            raise BayesPairwiseError(
                "a ranking log is ranked by Plackett–Luce with a bootstrap over the lists "
                "(--model plackett_luce); the pairwise models, --agreement-with and "
                "--pool-judges do not apply"
            )
        _info(f"ranking {rankings!r} by Plackett–Luce …")
        lb = ranking_leaderboard(  # --seed means one thing on every leaderboard: the stream
            rankings,
            n_boot=args.n_boot or LEADERBOARD_N_BOOT,
            random_seed=_leaderboard_seed(args.seed),
        )
        if args.json:
            _print_json(lb.to_dict())
        else:
            print(lb)
        return 0
    data = _load_data(args)
    judged = data  # the judges' own verdicts, for the text-blind check
    if args.pool_judges:
        data = _pool_judges(args, data)
    if args.group_by is None and args.model == "bt":
        # items in several contexts whose names recur: rank the names, as compare and report
        # do (the one rule, leaderboard.rank_grouping), and say so. Not for the error models:
        # pooled by name, a pair of names has one latent truth for every question, which the
        # user asks for explicitly
        from bayes_pairwise.leaderboard import rank_grouping

        group_by, how = rank_grouping(data)
        if group_by == "name":
            args = argparse.Namespace(**{**vars(args), "group_by": "name"})
            _info(f"{how} (--group-by name, as compare and report rank them)")
    if args.agreement_with is not None:
        return _judge_agreement(args, data)
    _info(f"ranking {data!r} …")
    # the bootstrap's lines (a header, then every tenth of the replicates) on stderr, always;
    # the sampler's progress bar only on a terminal
    lb = _rank(args, data, judge=None, progress=args.model == "bt" or sys.stderr.isatty())
    from bayes_pairwise.caveats import text_blind

    # a board from verdicts the log cannot tell from ones that ignore the texts says so, as the
    # cross-check's pooled board does (the one rule: caveats.text_blind_judges)
    blind = text_blind(judged)
    if args.json:
        out = lb.to_dict()
        if blind is not None:
            out["caveats"] = [blind.to_dict()]
        _print_json(out)
    else:
        print(lb)
    if blind is not None:
        _info(f"warning: {blind.text}")
    return 0


def _pool_judges(args: argparse.Namespace, data: Any) -> Any:
    """``leaderboard --pool-judges``: every judge's verdicts as one judge's, as the cross-check
    pools them for its leaderboard (the one rule: ``crosscheck.pooled_judges``)."""
    from bayes_pairwise.crosscheck import pooled_judges

    if args.judge is not None or args.agreement_with is not None:
        raise BayesPairwiseError(
            "--pool-judges ranks all judges' verdicts together; it does not combine with "
            + ("--judge" if args.judge is not None else "--agreement-with")
        )
    if data.n_judges > 1:
        _info(
            f"pooling the verdicts of {data.n_judges} judges ({name_list(data.judges)})"
            " into one board, as compare and report do"
        )
    return pooled_judges(data)


def _n_boot(args: argparse.Namespace) -> int:
    """``--n-boot``, else the cross-check's: one board, or one per judge for the agreement."""
    if args.n_boot is not None:
        return int(args.n_boot)
    if getattr(args, "agreement_with", None) is not None:
        return JUDGE_BOARDS_N_BOOT
    return LEADERBOARD_N_BOOT


def _rank_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The ``leaderboard`` keywords the command's flags stand for."""
    return {
        "model": args.model,
        "method": None if args.model == "bt" else ("map" if args.map else "nuts"),
        "group_by": args.group_by,
        "n_boot": _n_boot(args),
        "model_kwargs": _sampler_kwargs(args) or None,
    }


@contextlib.contextmanager
def _flag_names() -> Iterator[None]:
    """Errors name the flags, not the Python keywords."""
    from bayes_pairwise.errors import DesignError

    try:
        yield
    except DesignError as exc:
        msg = (
            str(exc)
            .replace(
                "pass judge=… to rank by one of them",
                "pass --judge NAME to rank by one of them, or --pool-judges to rank all their "
                "verdicts together (the board compare and report print)",
            )
            .replace("pass judge=…", "pass --judge NAME")
            .replace("group_by='name'", "--group-by name")
        )
        raise DesignError(msg) from exc


def _leaderboard_seed(seed: int) -> int | None:
    """The seed a leaderboard of ``--seed`` draws from: the cross-check's leaderboard stream,
    so that ``leaderboard --seed S`` prints the intervals ``compare``/``report --seed S`` do."""
    from bayes_pairwise.crosscheck import seed_streams

    return seed_streams(seed)["leaderboard"]


def _rank(args: argparse.Namespace, data: Any, *, judge: str | None, progress: bool) -> Any:
    """One leaderboard with the command's flags."""
    from bayes_pairwise.leaderboard import leaderboard

    seed = _leaderboard_seed(args.seed)
    with _flag_names():
        return leaderboard(
            data, judge=judge, random_seed=seed, progress=progress, **_rank_kwargs(args)
        )


def _judge_agreement(args: argparse.Namespace, data: Any) -> int:
    """``leaderboard --agreement-with REF``: Kendall τ of every judge's board against REF's."""
    from bayes_pairwise.distributed import scheduler_client
    from bayes_pairwise.errors import DesignError
    from bayes_pairwise.leaderboard import judge_agreement, judge_leaderboards
    from bayes_pairwise.progress import per_judge_lines

    if args.agreement_with not in data.judges:
        raise DesignError(
            f"--agreement-with {args.agreement_with!r} is not a judge of {data.source}; the "
            f"judges are {list(data.judges)}"
        )
    if data.n_judges < 2:
        raise DesignError("--agreement-with needs at least two judges (do not pass --judge)")
    # a seed of its own per judge: independent bootstraps for the τ interval
    with _flag_names(), scheduler_client(args.scheduler) as client:
        boards, _ = judge_leaderboards(
            data,
            random_seed=_leaderboard_seed(args.seed),
            on_judge=per_judge_lines(
                [str(j) for j in data.judges],
                each=lambda j: _info(f"ranking by {j} …"),
                many=lambda n: _info(f"ranking by each of the {n:,} judges …"),
                note=lambda line: _info(f"  {line}"),
            ),
            client=client,
            **_rank_kwargs(args),
        )
    table = judge_agreement(boards, args.agreement_with)
    if args.json:
        _print_json({"interval": table.attrs["interval"], "judges": table})
    else:
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(f"interval: {table.attrs['interval']}")
    return 0


# --------------------------------------------------------------------------- datasets
def _cmd_datasets(args: argparse.Namespace) -> int:
    from bayes_pairwise import datasets

    action = args.action or "list"
    if action == "list":
        tbl = datasets.list_datasets()
        if args.json:
            _print_json({"datasets": tbl})
        else:
            cols = [
                "name",
                "n_verdicts",
                "n_items",
                "n_judges",
                "both_orders",
                "repeats",
                "licence",
                "synthetic",
                "title",
            ]
            print(tbl[[c for c in cols if c in tbl.columns]].to_string(index=False))
        return 0
    if not args.name:
        raise BayesPairwiseError(f"'datasets {action}' needs a data set name")
    if action == "show":
        print(datasets.info(args.name).to_text())
        return 0
    if action == "export":
        if not args.out:
            raise BayesPairwiseError("'datasets export' needs --out FILE")
        out = check_writable(args.out, suffixes=EXPORT_SUFFIXES, what="--out")
        datasets.info(args.name)  # an unknown name fails before anything is written
        # the temporary keeps the target's suffixes, from which export picks the format
        atomic_write(out, lambda tmp: datasets.export(args.name, tmp))
        _info(f"wrote {args.name} to {args.out}")
        return 0
    raise BayesPairwiseError(f"unknown datasets action {action!r}: list, show or export")


# --------------------------------------------------------------------------- report
def _print_headline(cc: Any) -> None:
    """The cross-check's headline on stdout: one line per judge, its verdict, the caveats.

    The same table as ``compare`` prints and the report's headline shows
    (:meth:`~bayes_pairwise.crosscheck.CrossCheck.headline`).
    """
    rates, shows = cc.headline_tables()
    fmt = {"index": False, "float_format": lambda v: f"{v:.3f}"}
    print(rates.to_string(**fmt))
    if shows is not None:  # what the log can show: a second table, so the rates fit a terminal
        print()
        print(shows.to_string(**fmt))
    print()
    print(cc.verdict)
    for line in cc.caveat_lines():
        print(line)


def _order_model_notes(
    data: Any, names: Sequence[str], method: str, *, tie_positional: bool = False, **kw: Any
) -> None:
    """A note on stderr for each strength model whose hard-truth limit fits this log
    (:func:`~bayes_pairwise.pymc_models.order.order_model_note`), before its NUTS fit."""
    from bayes_pairwise.data import Comparisons
    from bayes_pairwise.pymc_models import get_model
    from bayes_pairwise.pymc_models.order import order_model_note

    if not isinstance(data, Comparisons):  # a ranking log, a synthetic draw's wrapper
        data = getattr(data, "data", None)
        if not isinstance(data, Comparisons):
            return
    for name in dict.fromkeys(names):
        try:
            model = get_model(name, **kw)
            if tie_positional and "tie_positional" in model.get_params():
                model.set_params(tie_positional=True)
            note = order_model_note(model, data, method=method)
        except (BayesPairwiseError, ValueError, KeyError):  # the fit refuses it, by name
            continue
        if note:
            _info(f"note: {note}")


def _cmd_report(args: argparse.Namespace) -> int:
    from bayes_pairwise.report import build_report

    path = check_writable(args.out, suffixes=REPORT_SUFFIXES, what="--out")
    _check_data_args(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = _load_data(args)
    kw = _sampler_kwargs(args)
    tied = {"tie_positional": True} if args.tie_positional else {}
    _order_model_notes(data, [args.model], _method(args), **tied)
    page = build_report(
        data,
        load_warnings=_user_warnings(caught),
        model=args.model,
        **tied,
        **_tie_dispersion(args),
        method=_method(args),
        random_seed=args.seed,
        progress=True,
        dataset_name=args.data,
        **kw,
    )
    write_text(path, page.render())
    _info(f"report written to {path}")
    if args.json:
        _print_json({"report": str(path), **page.source.to_dict()})
    else:
        _print_headline(page.source)
    return 0


# --------------------------------------------------------------------------- strategies
STRATEGY_OUT_SUFFIXES = (".png", ".svg", ".pdf", ".html", ".md")


def _cmd_strategies(args: argparse.Namespace) -> int:
    from bayes_pairwise.distributed import scheduler_client
    from bayes_pairwise.strategies.run import parse_spec

    out = None
    if args.out is not None:
        out = check_writable(args.out, suffixes=STRATEGY_OUT_SUFFIXES, what="--out")
    specs = args.strategy or ["pairwise:rounds=24", "listwise:k=10,rounds=3"]
    for spec in specs:  # all SPEC errors before any work
        parse_spec(spec)
    if args.bias_items > args.n_items:
        raise BayesPairwiseError("--bias-items must not exceed --n-items")
    with scheduler_client(args.scheduler) as client:
        df = _run_strategies(args, specs, client)
    return _strategies_output(args, df, out)


def _run_strategies(args: argparse.Namespace, specs: list[str], client: Any) -> Any:
    from bayes_pairwise.strategies.run import run_strategies

    return run_strategies(
        n_items=args.n_items,
        distribution=args.distribution,
        bias_items=args.bias_items,
        bias_shift=args.bias_shift,
        reps=args.reps,
        seed=args.seed,
        strategies=specs,
        ratings=[r.strip() for r in args.ratings.split(",") if r.strip()],
        list_model=args.list_model,
        client=client,
    )


def _strategies_output(args: argparse.Namespace, df: Any, out: Any) -> int:
    from bayes_pairwise.strategies.run import plot_rho_vs_cost

    settings = {
        "n_items": args.n_items,
        "distribution": args.distribution,
        "bias_items": args.bias_items,
        "bias_shift": args.bias_shift,
        "list_model": args.list_model,
        "reps": args.reps,
        "seed": args.seed,
    }
    title = f"{args.n_items} texts, {args.distribution}, t_bias={args.bias_items}"
    if args.bias_items:
        title += f" (shift {args.bias_shift:g})"
    title += f", {args.list_model} lists, {args.reps} reps, seed {args.seed}"
    if out is not None:
        import base64
        import io

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = plot_rho_vs_cost(df)
        ax.set_title(title, fontsize=9)
        fig = ax.figure
        suffix = out.suffix.lower()
        if suffix in (".png", ".svg", ".pdf"):
            atomic_write(out, lambda tmp: fig.savefig(tmp, format=suffix[1:], dpi=120))
        else:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=110)
            img = base64.b64encode(buf.getvalue()).decode("ascii")
            table = df.drop(columns=["seconds"]).round(4)
            if suffix == ".md":
                png = out.with_suffix(".png")
                atomic_write(png, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
                text = f"# Annotation strategies\n\n{title}\n\n![rho vs cost]({png.name})\n\n"
                text += markdown_table(table) + "\n"
            else:
                text = (
                    "<!doctype html><meta charset='utf-8'><title>Annotation strategies</title>"
                    "<h1>Annotation strategies: Spearman &rho; against cost</h1>"
                    f"<p>{html.escape(title)}</p>"
                    f"<img alt='rho vs cost' src='data:image/png;base64,{img}'>"
                    + table.to_html(index=False)
                )
            write_text(out, text)
        plt.close(fig)
        _info(f"written {out}")
    if args.json:
        _print_json({"settings": settings, "records": df.to_dict("records")})
    else:
        print(title)
        cols = ["strategy", "rating", "cost", "spearman", "spearman_sd", "alpha_score"]
        print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0


def _cmd_propose(args: argparse.Namespace) -> int:
    from bayes_pairwise.strategies.policies import propose_lists

    _check_data_args(args)
    data = _ranking_log(args)
    if data is None:
        data = _load_data(args)
    if args.context is not None:
        if not data.has_contexts:
            raise BayesPairwiseError(
                "--context: this log has no contexts (read a context column with "
                "--context-column COL), so its texts are proposed as one set: drop --context"
            )
        if args.context not in data.contexts:
            raise BayesPairwiseError(
                f"--context: unknown context {args.context!r}; the log's contexts are "
                f"{name_list(data.contexts, quote=True)}"
            )
        data = data.for_context(args.context)
    elif data.n_contexts > 1:
        raise BayesPairwiseError(
            f"the log holds {data.n_contexts:,} contexts ({name_list(data.contexts, quote=True)}"
            "), and a list must not mix texts of different contexts: propose for one of "
            "them with --context NAME"
        )
    if args.eps_plus + args.eps_minus >= 1.0:
        raise BayesPairwiseError("--eps-plus + --eps-minus must be below 1")
    _info(f"proposing {args.lists} list(s) of {args.k} from {data!r} …")
    try:
        prop = propose_lists(
            data,
            args.lists,
            k=args.k,
            score=args.score,
            eps_plus=args.eps_plus,
            eps_minus=args.eps_minus,
            random_seed=args.seed,
        )
    except ValueError as exc:
        raise BayesPairwiseError(str(exc)) from None
    what = "expected reduction of the summed rank variance" if args.score == "rank" else "nats"
    values = [None if math.isnan(v) else float(v) for v in prop.value]
    lists = [list(lst) for lst in prop.lists]
    if args.context is not None:  # the texts by name, as the log's rows name them
        name = dict(zip(data.items, data.item_names, strict=True))
        lists = [[name[i] for i in lst] for lst in lists]
    if args.json:
        _print_json(
            {
                "lists": lists,
                **({"context": args.context} if args.context is not None else {}),
                "value": values,
                "value_unit": what,
                "settings": {"k": args.k, "score": args.score, "seed": args.seed},
            }
        )
    else:
        if args.context is not None:
            print(f"context {args.context!r}:")
        for n, (lst, v) in enumerate(zip(lists, values, strict=True), start=1):
            tag = "new texts, not scored" if v is None else f"{what} {v:.4g}"
            print(f"list {n} ({tag}): {', '.join(lst)}")
        how = "append its rows" if hasattr(data, "lists") else "append its implied pairs"
        print(f"each list best first by the current posterior; rank it, {how}")
    return 0


def _cmd_plan_labels(args: argparse.Namespace) -> int:
    from bayes_pairwise.labels import plan_labels

    _check_data_args(args)
    data = _load_data(args)
    if data.n_judges > 1:
        raise BayesPairwiseError(
            f"--judge: the log has {data.n_judges} judges ({name_list(data.judges)}); plan "
            "labels for one (--judge NAME)"
        )
    _info(f"planning {args.budget} gold label(s) for {data!r} …")
    plan = plan_labels(data, args.budget, random_seed=args.seed)
    width = getattr(args, "width", None)
    out = plan.to_dict()
    if width is not None:
        out["labels_for_width"] = {"width": width, "labels": plan.labels_for_width(width)}
    if args.json:
        _print_json(out)
        return 0
    ew = plan.expected_width
    print(
        plan.pairs.to_string(index=False, float_format=lambda v: f"{v:.3g}")
        if len(plan.pairs)
        else "no pair to label: every pair's errors are already known or labelled"
    )
    if len(plan.pairs):
        print(
            "score: how much the pair's label reduces the predicted variance of ε₊ + ε₋, in the "
            "order chosen (each label counts the ones above it)"
        )
    print(
        f"{plan.n_ambiguous} pair row(s) can hide errors (consistent, or decided in one order), "
        f"{plan.n_known} cannot (their errors are known without a label)"
    )
    for q, sym in (("eps_plus", "ε₊"), ("eps_minus", "ε₋"), ("eps", "ε")):
        w = ew[q]
        print(
            f"{sym}: expected {ew['interval']} width now {w['now']:.3f}, after these labels "
            f"{w['planned']:.3f} (random pairs: {w['random']:.3f})"
        )
    print(f"assumed share of hidden errors per ambiguous pair: {ew['assumed_share']:.2f}")
    if width is not None:
        n = out["labels_for_width"]["labels"]
        print(f"labels for ε₊ and ε₋ widths ≤ {width:g}: {n}")
    return 0


# --------------------------------------------------------------------------- parser
# --------------------------------------------------------------------------- model checking
def _write_verdicts(path: str, model: Any, data: Any) -> None:
    """``fit --verdicts FILE.csv``: per-verdict error probabilities, one row per verdict."""
    table = model.verdict_errors(data)
    atomic_write(Path(path), lambda tmp: table.to_csv(tmp, index=False))
    _info(f"per-verdict error probabilities of {len(table)} verdict(s) written to {path}")


def _cmd_compare_models(args: argparse.Namespace) -> int:
    if args.results is not None and args.kfold is not None:  # before any refit
        check_writable(args.results, what="--results")
    _check_data_args(args)
    from bayes_pairwise.model_checking import (
        compare_models,
        compare_models_dict,
        compare_models_kfold,
    )

    names = [m.strip() for m in args.models.split(",") if m.strip()]
    data = _load_data(args)
    if args.kfold is not None:
        from bayes_pairwise.distributed import scheduler_client

        _info(f"comparing {', '.join(names)} by {args.kfold}-fold cross-validation on {data!r} …")
        with scheduler_client(args.scheduler) as client:
            table = compare_models_kfold(
                data,
                names,
                k=args.kfold,
                random_seed=args.seed,
                progress=not args.json,
                client=client,
                results_file=args.results,
                **_sampler_kwargs(args),
            )
    else:
        if args.scheduler is not None:
            raise BayesPairwiseError(
                "--scheduler runs the refits of --kfold; PSIS-LOO fits each model once, here"
            )
        if args.results is not None:
            raise BayesPairwiseError(
                "--results keeps the refits of --kfold so that a run can resume; PSIS-LOO "
                "fits each model once"
            )
        _info(f"comparing {', '.join(names)} by PSIS-LOO on {data!r} …")
        table = compare_models(
            data, names, random_seed=args.seed, progress=not args.json, **_sampler_kwargs(args)
        )
    if args.json:
        out = compare_models_dict(table)
        if args.kfold is not None:
            out["kfold"] = int(table.attrs["k"])
        _print_json(out)
    else:
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        print()
        print(f"unit: {table.attrs['unit_text']}")
        print(table.attrs["message"])
    return 0


def _cmd_sbc(args: argparse.Namespace) -> int:
    from bayes_pairwise.distributed import scheduler_client
    from bayes_pairwise.plots import plot_sbc_ranks

    if args.plot is not None:
        check_writable(args.plot, suffixes=(".png", ".svg", ".pdf"), what="--plot")
    with scheduler_client(args.scheduler, n_workers=args.jobs) as client:
        res = _run_sbc(args, client)
    if args.plot is not None:
        fig = plot_sbc_ranks(res)[0].figure
        atomic_write(Path(args.plot), lambda tmp: fig.savefig(tmp, dpi=120))
        _info(f"rank histograms written to {args.plot}")
    if args.json:
        _print_json(res.to_dict())
    else:
        table = res.summary.copy()
        for col in [c for c in table.columns if c.startswith("median_ess")]:
            table[col] = table[col].round().astype("Int64")  # draws: whole numbers
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        if res.failed:
            print(f"{res.failed} simulation(s) failed and were left out")
    return 0


def _run_sbc(args: argparse.Namespace, client: Any) -> Any:
    from bayes_pairwise.model_checking import sbc

    if client is not None:
        _info(f"sbc on the Dask cluster at {client.scheduler.address}")
    return sbc(
        args.model,
        n_items=args.n_items,
        sims=args.sims,
        random_seed=args.seed,
        n_judges=args.n_judges,
        repeats=args.repeats,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        n_jobs=args.jobs,
        results_file=args.results,
        progress=True,
        nuts_sampler=args.sampler,
        ties=args.ties,
        client=client,
        tie_positional=args.tie_positional,
        tie_dispersion=args.tie_dispersion,
        n_contexts=args.n_contexts,
        list_size=args.list_size,
        lists_per_judge=args.lists_per_judge,
    )


#: an example per sub-command, shown at the end of its ``--help`` (each runs as written)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "simulate": ("bayes-pairwise simulate --n-items 30 --eps 0.15 --seed 0 --out sim.csv",),
    "estimate": (
        "bayes-pairwise estimate prd_vicuna80 --method scom --ties half",
        "bayes-pairwise estimate sim.csv --method moments --json",
        "bayes-pairwise estimate log.csv --first a --second b --outcome winner "
        '--outcome-map "1=first,2=second,3=tie" --ties half --method scom',
    ),
    "fit": (
        "bayes-pairwise fit prd_vicuna80 --judge gpt4 --model positional --map",
        "bayes-pairwise fit sim.csv --model uniform --out sim.nc --json",
    ),
    "compare": (
        "bayes-pairwise compare prd_vicuna80 --judge gpt4 --fast",
        "bayes-pairwise compare sim.csv --model uniform --map --json",
    ),
    "leaderboard": (
        "bayes-pairwise leaderboard chatbot_arena --judge human",
        "bayes-pairwise leaderboard prd_vicuna80 --group-by name --agreement-with gpt4",
        "bayes-pairwise leaderboard annotations.json   # AlpacaEval annotations, no flags",
    ),
    "datasets": (
        "bayes-pairwise datasets list",
        "bayes-pairwise datasets show prd_vicuna80",
        "bayes-pairwise datasets export prd_vicuna80 --out prd.csv",
    ),
    "report": (
        "bayes-pairwise report prd_vicuna80 --map --out report.html",
        "bayes-pairwise report gpt-4_pair.jsonl --fast --json   # MT-Bench judgments",
    ),
    "compare-models": ("bayes-pairwise compare-models prd_vicuna80 --judge gpt4 --draws 500",),
    "sbc": ("bayes-pairwise sbc --model uniform --n-items 6 --sims 20 --draws 300 --tune 300",),
    "plan-labels": ("bayes-pairwise plan-labels prd_vicuna80 --judge gpt4 --budget 50",),
    "propose": ("bayes-pairwise propose sim.csv --lists 5 --k 6 --eps-plus 0.1 --eps-minus 0.1",),
    "strategies": (
        "bayes-pairwise strategies --n-items 100 --reps 1 --strategy pairwise:rounds=8 "
        "--ratings bt --out rho.png",
    ),
}


def _add_examples(sub: Any) -> None:
    """An ``examples:`` block at the end of every sub-command's ``--help``."""
    for name, p in sub.choices.items():
        lines = EXAMPLES.get(name, ())
        if lines:
            p.epilog = "examples:\n" + "\n".join(f"  {line}" for line in lines)
            p.formatter_class = argparse.RawDescriptionHelpFormatter


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and tests)."""
    ap = _Parser(
        prog="bayes-pairwise",
        description="How often does a pairwise judge err, and what is the ranking once that "
        "is known? Classical estimators and Bayesian models side by side.",
    )
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("simulate", help="write a synthetic round-robin comparison log")
    p.add_argument("--n-items", type=_int_type(2, 10_000), default=100, help="2 … 10000")
    p.add_argument("--eps", type=_RATE, default=None, help="uniform error rate, in [0, 1]")
    p.add_argument("--eps-plus", type=_RATE, default=None, help="error when better shown first")
    p.add_argument("--eps-minus", type=_RATE, default=None, help="error when better shown second")
    p.add_argument(
        "--repeats",
        type=_int_type(1, 1000),
        default=1,
        help="verdicts per ordered pair, 1 … 1000",
    )
    p.add_argument(
        "--soft-sigma",
        type=_float_type(0.0, 100.0),
        default=None,
        help="soft truth: BT strength sd, in [0, 100]",
    )
    p.add_argument(
        "--n-contexts",
        type=_int_type(1, 100_000),
        default=1,
        help=f"independent round-robins, 1 … 100000 (at most {MAX_SIMULATED_VERDICTS:,} "
        "verdicts in all)",
    )
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument("--out", required=True, help=f"output file ({', '.join(SIMULATE_SUFFIXES)})")
    p.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("estimate", help="a classical estimate (instant)")
    _add_data_args(p)
    p.add_argument("--method", choices=ESTIMATE_METHODS, required=True)
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument(
        "--ridge", type=_float_type(0.0, 1e6), default=0.0, help="ridge λ for bt-mm, in [0, 1e6]"
    )
    p.add_argument(
        "--skip-incomplete",
        action="store_true",
        help="Δ_S: skip contexts that are not complete round-robins (with a warning)",
    )
    for side, where in (("plus", "the lower-indexed text first"), ("minus", "it second")):
        p.add_argument(
            f"--k-{side}",
            type=_int_type(0, 1_000_000),
            default=None,
            metavar="K",
            help=f"Δ_S: verdicts per pair with {where} that the fit reads (the first K; "
            "default: the design most pairs have)",
        )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_estimate)

    model_names = available_models()  # reads the spec folder only: no PyMC import

    def tie_form_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--tie-dispersion",
            nargs="?",
            const="context",
            default=False,
            choices=TIE_DISPERSION_GROUPS,
            help="order models (uniform_order, positional_order) with ties modelled: a tie rate "
            "that varies by context (the default: each context's tie count beta-binomial) or "
            "by pair (--tie-dispersion pair: each pair's ties per judge beta-binomial, so a "
            "pair tied in one order is more likely tied in the other); tie_rho, the "
            "correlation of ties within a group, is reported — where the ties cluster by "
            "question or by pair (the caveats ties_cluster_by_context and tie_position say "
            "so, computed from the log)",
        )
        p.add_argument(
            "--tie-positional",
            action="store_true",
            help="error models with ties modelled: one tie rate per position of the better "
            "text (tie_rate_plus when it is shown first, tie_rate_minus when second) instead "
            "of one per judge — where the ties depend on that position (the caveat "
            "ties_depend_on_position says so, computed from the log)",
        )

    def model_args(p: argparse.ArgumentParser, default_model: str, *, fast: bool = False) -> None:
        p.add_argument(
            "--model",
            default=default_model,
            metavar="MODEL",
            help=f"model spec: {{{', '.join(model_names)}}} (default: {default_model}); "
            "a ranking log (list, item, rank columns) is fitted by plackett_luce (classical) "
            "or noisy_plackett_luce",
        )
        how = p.add_mutually_exclusive_group()
        how.add_argument("--map", action="store_true", help="MAP instead of NUTS")
        if fast:
            how.add_argument(
                "--fast",
                action="store_true",
                help="Laplace approximation instead of NUTS: a Gaussian at the posterior mode "
                "with --draws draws (seconds instead of minutes; approximate, labelled as such, "
                "with its PSIS k-hat; validated against NUTS in the docs' Speed page)",
            )
        sampler_args(p)

    def scheduler_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="run the independent tasks on a Dask cluster: 'local' starts a LocalCluster, "
            "tcp://HOST:PORT joins a running scheduler (needs bayes-pairwise[dask]); results "
            "are the same on any scheduler (a seed per task)",
        )

    def sampler_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--draws",
            type=_int_type(1, 1_000_000),
            default=None,
            help="posterior draws per chain (default: the model spec's, 1000)",
        )
        p.add_argument(
            "--tune",
            type=_int_type(0, 1_000_000),
            default=None,
            help="tuning steps per chain (default: the model spec's, 1000)",
        )
        p.add_argument(
            "--chains",
            type=_int_type(1, 64),
            default=None,
            help="chains (default: the model spec's, 'auto': one per CPU core, 2 to 4)",
        )
        p.add_argument(
            "--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED} (default: 0)"
        )
        p.add_argument(
            "--nuts-sampler",
            choices=NUTS_SAMPLERS,
            default=None,
            help="NUTS implementation (default: the model spec's, 'auto': nutpie when "
            "installed); numpyro / blackjax: PyMC's JAX samplers (pip install "
            "'bayes-pairwise[jax]'), on a GPU where JAX has one, chains vectorised on it",
        )

    p = sub.add_parser("fit", help="fit a Bayesian model (NUTS, MAP or the fast Laplace path)")
    _add_data_args(p)
    model_args(p, "positional", fast=True)
    tie_form_args(p)
    p.add_argument("--out", default=None, help="save the fit as NetCDF (.nc)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--all",
        action="store_true",
        help="also print every item's strength (and, with --json, the item and context lists)",
    )
    p.add_argument(
        "--verdicts",
        default=None,
        metavar="FILE.csv",
        help="write the posterior probability that each verdict is an error (p_error) to CSV",
    )
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser("compare", help="Bayesian vs grid vs moments vs MM, side by side")
    _add_data_args(p)
    model_args(p, "positional", fast=True)
    tie_form_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("leaderboard", help="rank the items, with intervals and rank probabilities")
    _add_data_args(p)
    p.add_argument(
        "--model",
        choices=("bt", "uniform", "positional", "biased_bt", "plackett_luce"),
        default="bt",
        help="bt: Bradley–Terry with a bootstrap (default); the others rank by the posterior "
        "strengths of a judge-error model (the judge's error integrated out); plackett_luce: "
        "a ranking log, bootstrap over the lists (the default for a ranking log)",
    )
    p.add_argument("--map", action="store_true", help="MAP instead of NUTS (no intervals)")
    sampler_args(p)
    p.add_argument(
        "--n-boot",
        type=_int_type(2, 100_000),
        default=None,
        help=f"bootstrap replicates (bt; 2 … 100000; default {LEADERBOARD_N_BOOT} for one "
        f"board, {JUDGE_BOARDS_N_BOOT} per judge with --agreement-with: as compare and report)",
    )
    p.add_argument(
        "--group-by",
        choices=("name",),
        default=None,
        help="rank the item names across contexts (PRD: the answer model after '::'); the "
        "default for bt where names recur in several contexts, as compare and report rank them",
    )
    p.add_argument(
        "--agreement-with",
        default=None,
        metavar="JUDGE",
        help="rank by every judge and print the Kendall τ of each leaderboard against JUDGE's "
        "(e.g. human), with an interval from the bootstraps",
    )
    p.add_argument(
        "--pool-judges",
        action="store_true",
        help="rank every judge's verdicts together in one board (the pooled leaderboard compare "
        "and report print, the same intervals for the same --seed); default: one judge's",
    )
    scheduler_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_leaderboard)

    p = sub.add_parser("datasets", help="list, describe or export the bundled data sets")
    p.add_argument("action", nargs="?", choices=("list", "show", "export"), default="list")
    p.add_argument("name", nargs="?", default=None)
    p.add_argument("--out", default=None, help=f"export target ({', '.join(EXPORT_SUFFIXES)})")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_datasets)

    p = sub.add_parser("report", help="write a self-contained HTML diagnostics report")
    _add_data_args(p)
    model_args(p, "positional", fast=True)
    tie_form_args(p)
    p.add_argument("--out", default="report.html", help="output HTML file (.html)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the cross-check the report renders as one JSON object (with the report's "
        "path) instead of the headline",
    )
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser(
        "compare-models", help="compare error models by PSIS-LOO (ArviZ compare table)"
    )
    _add_data_args(p)
    p.add_argument(
        "--models",
        default="uniform,positional",
        help=f"comma-separated model spec names, from {{{', '.join(model_names)}}}, each "
        "with optional tie forms after '+' (positional_order+tie_positional; models scored per "
        "context and per pair row do not mix) (default: uniform,positional)",
    )
    p.add_argument(
        "--kfold",
        type=_int_type(2, 1_000_000),
        default=None,
        metavar="K",
        help="compare by K-fold cross-validation instead of PSIS-LOO, over LOO's units "
        "((judge, pair) rows for the strength models, contexts for the order models): each "
        "model refitted K times without one fold, scored on it (what settles a LOO comparison "
        "with Pareto k of 0.7 or more)",
    )
    p.add_argument(
        "--results",
        default=None,
        metavar="FILE.jsonl",
        help="with --kfold: keep each finished refit in this JSON-lines file and resume from "
        "it (a run stopped half way refits only what is missing)",
    )
    scheduler_arg(p)
    sampler_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_compare_models)

    p = sub.add_parser("sbc", help="simulation-based calibration of a model")
    p.add_argument(
        "--model", default="uniform", help="model spec name (uniform, positional, biased_bt …)"
    )
    p.add_argument("--n-items", type=_int_type(2, 1000), default=8, help="2 … 1000")
    p.add_argument("--n-judges", type=_int_type(1, 100), default=1, help="1 … 100")
    p.add_argument(
        "--repeats", type=_int_type(1, 100), default=1, help="verdicts per order, 1 … 100"
    )
    p.add_argument("--sims", type=_int_type(1, 100_000), default=100, help="1 … 100000")
    p.add_argument("--draws", type=_int_type(1, 100_000), default=500, help="1 … 100000")
    p.add_argument("--tune", type=_int_type(0, 100_000), default=500, help="0 … 100000")
    p.add_argument("--chains", type=_int_type(1, 64), default=2, help="1 … 64")
    p.add_argument(
        "--jobs",
        type=_int_type(1, MAX_JOBS),
        default=2,
        help=f"worker processes of a local Dask cluster (1: in this process), 1 … {MAX_JOBS}",
    )
    scheduler_arg(p)
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument("--results", default=None, help="JSON-lines results file (resumable)")
    p.add_argument(
        "--sampler",
        choices=("auto", "nutpie", "pymc"),
        default="auto",
        help="NUTS implementation per fit (auto: nutpie where the model's log-density is "
        "written out, nothing compiled per simulated log; else pymc, which reuses its compiled "
        "C code across simulations where nutpie would compile every log anew)",
    )
    p.add_argument(
        "--ties",
        action="store_true",
        help="simulate ties and fit the tie model, so the tie rates are calibrated too",
    )
    p.add_argument(
        "--tie-positional",
        action="store_true",
        help="with --ties: one tie rate per position of the better text, simulated and fitted",
    )
    p.add_argument(
        "--tie-dispersion",
        nargs="?",
        const="context",
        default=False,
        choices=TIE_DISPERSION_GROUPS,
        help="order models, with --ties: a tie rate that varies by context (needs "
        "--n-contexts >= 2) or by pair (--tie-dispersion pair) (tie_rho), simulated per group "
        "and fitted",
    )
    p.add_argument(
        "--n-contexts",
        type=_int_type(1, 100_000),
        default=1,
        help="pairwise models: the design is this many round robins of --n-items each (1)",
    )
    p.add_argument(
        "--list-size",
        type=_int_type(2, 1000),
        default=4,
        help="noisy_plackett_luce: items per ranked list, 2 … --n-items (default 4)",
    )
    p.add_argument(
        "--lists-per-judge",
        type=_int_type(1, 100_000),
        default=50,
        help="noisy_plackett_luce: lists each judge ranks (default 50)",
    )
    p.add_argument("--plot", default=None, help="rank histograms (.png, .svg, .pdf)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_sbc)

    p = sub.add_parser(
        "propose",
        help="the next lists of texts to rank, chosen from your log by the active strategy",
    )
    _add_data_args(p)
    p.add_argument(
        "--lists", type=_int_type(1, 10_000), default=10, help="how many lists, 1 … 10000 (10)"
    )
    p.add_argument(
        "--k", type=_int_type(2, 1000), default=10, help="texts per list, 2 … 1000 (default 10)"
    )
    p.add_argument(
        "--score",
        choices=("rank", "bald"),
        default="rank",
        help="rank: expected reduction of the summed rank variance (default); bald: "
        "expected information gain about the strengths",
    )
    p.add_argument(
        "--context",
        default=None,
        metavar="NAME",
        help="propose lists of this context's texts (a log with several contexts needs one)",
    )
    p.add_argument("--eps-plus", type=_RATE, default=0.0, help="the judge's error, better first")
    p.add_argument("--eps-minus", type=_RATE, default=0.0, help="the judge's error, better second")
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_propose)

    p = sub.add_parser(
        "plan-labels",
        help="the pairs whose gold labels narrow the judge's error intervals most",
    )
    _add_data_args(p)
    p.add_argument(
        "--budget", type=_int_type(0, 10_000_000), required=True, help="pairs to label, 0 … 1e7"
    )
    p.add_argument(
        "--width",
        type=_float_type(0.0, 1.0),
        default=None,
        help="also say how many labels bring the ε₊ and ε₋ interval widths to this",
    )
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_plan_labels)

    p = sub.add_parser(
        "strategies", help="simulate cost-aware annotation strategies (rho against cost)"
    )
    p.add_argument("--n-items", type=_int_type(2, 100_000), default=1000, help="2 … 100000")
    p.add_argument("--distribution", choices=("linear", "bimodal", "normal"), default="linear")
    p.add_argument(
        "--bias-items",
        type=_int_type(0, 100_000),
        default=0,
        help="t_bias: biased texts, 0 … --n-items",
    )
    p.add_argument(
        "--bias-shift",
        type=_float_type(0.0, 1000.0),
        default=200.0,
        help="Δ_bias on the 1..1000 scale, in [0, 1000]",
    )
    p.add_argument(
        "--list-model",
        choices=("copeland", "thurstone"),
        default="copeland",
        help="how a listwise call orders its texts: Copeland order of independent verdicts "
        "(default) or one noisy score per text and call (coherent orders); both keep the "
        "pairwise curve",
    )
    p.add_argument("--reps", type=_int_type(1, 1000), default=3, help="1 … 1000")
    p.add_argument("--seed", type=_SEED, default=0, help=f"random seed, 0 … {MAX_SEED}")
    p.add_argument(
        "--strategy",
        action="append",
        default=None,
        metavar="SPEC",
        help="e.g. pairwise:rounds=24, listwise:k=10,rounds=3, "
        "tail-prune:rounds=24,start=8,perc=0.2, streak-prune:streak=3,distinct=3, "
        "swap-confirm:rounds=12, active:budget=1200 (repeatable)",
    )
    p.add_argument("--ratings", default="bt,elo,trueskill,bayes", help="comma-separated")
    scheduler_arg(p)
    p.add_argument("--out", default=None, help="plot (.png/.svg/.pdf) or report (.html/.md)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_strategies)
    _add_examples(sub)
    return ap


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that temporaries are cleaned up."""


@contextlib.contextmanager
def _sigterm_raises():
    """While running a command, SIGTERM raises :class:`_Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Warnings that reach the terminal print as ``warning: …`` lines, not as source lines."""
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = " ".join(str(message).split())
        print(f"warning: {text}", file=sys.stderr, flush=True)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


@contextlib.contextmanager
def _sigterm_default():
    """SIGTERM's default action (the process ends at once) while a log is read.

    A read runs in library code that may not return to Python for long (pyarrow's CSV reader),
    so a handler that raises would wait for it; reading writes nothing, so nothing needs
    cleaning up.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _fail(message: str, status: int = 2) -> int:
    """Print ``error: message`` as one line on stderr; return ``status``."""
    text = " ".join(str(message).split()) or "unknown error"
    print(f"error: {text}", file=sys.stderr, flush=True)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 on success; 2 for every error in the input (data, argument values, output paths), printed
    as one line ``error: …`` on stderr; 1 (same one-line form) for an unexpected internal
    failure; 130 when interrupted, 143 on SIGTERM.

    Examples
    --------
    >>> main(["simulate", "--eps", "2", "--out", "sim.csv"])
    2
    >>> main(["datasets", "list", "--json"])  # doctest: +SKIP
    0
    """
    try:
        args = build_parser().parse_args(argv)
    except _UsageError as exc:
        return _fail(str(exc))
    # argparse drops a value of "--" ("--n-items=--") and leaves [] where one value belongs
    given = list(sys.argv[1:] if argv is None else argv)
    bad = [t.split("=", 1)[0] for t in given if t.startswith("--") and t.endswith("=--")]
    if bad:
        return _fail(f"argument {bad[0]}: expected one value, got '--'")
    debug = os.environ.get("BAYES_PAIRWISE_TRACEBACK", "") not in ("", "0")
    with _sigterm_raises(), quiet_third_party(), _one_line_warnings():
        try:
            return int(args.func(args) or 0)
        except KeyError as exc:  # unknown judge / context labels
            return _fail(str(exc.args[0]) if exc.args else "unknown key")
        except (BayesPairwiseError, OSError, ValueError) as exc:
            if isinstance(exc, OSError) and not isinstance(exc, BayesPairwiseError):
                where = f": {exc.filename!r}" if exc.filename else ""
                return _fail(f"{exc.strerror or exc}{where}")
            return _fail(str(exc) or type(exc).__name__)
        except KeyboardInterrupt:
            return _fail("interrupted", 130)
        except _Terminated:
            return _fail("terminated (SIGTERM)", 143)
        except Exception as exc:
            if debug:
                raise
            return _fail(
                f"internal error ({type(exc).__name__}: {exc}); set BAYES_PAIRWISE_TRACEBACK=1 "
                "for the traceback",
                1,
            )


def entry() -> None:
    """The ``bayes-pairwise`` program: :func:`main`, then exit with its status.

    Interrupted (130) or terminated (143), the program ends as soon as the command has cleaned
    up and the exit handlers have run: the interpreter's own teardown (1.4 s with PyMC imported,
    three times that on a loaded machine) is skipped, so that SIGTERM stops it within seconds.
    """
    status = main()
    if status in (130, 143):
        import atexit

        run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
        if run_exit_handlers is not None:
            run_exit_handlers()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    entry()
