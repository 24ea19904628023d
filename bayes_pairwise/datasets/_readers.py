"""Read the bundled files and tidy them into one long table per data set.

The tidy frame has one row per verdict with the columns ``first``, ``second``, ``outcome``
(``"first"``/``"second"``/``"tie"``), ``judge`` and ``repeat`` (plus ``context`` where the data
set has contexts), followed by data-set-specific columns. It is exactly what
:func:`bayes_pairwise.data.load_comparisons` reads with its default column names.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
from collections.abc import Callable, Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.datasets._info import (
    CATALOGUE,
    FAMILIES,
    PAPER_SYNTHETIC_SEED,
    DatasetError,
)
from bayes_pairwise.layouts import POSITION_CODE_MAP

PACKAGE = "bayes_pairwise.datasets"


# --------------------------------------------------------------------------- raw files
def resource(rel: str) -> Traversable:
    """The bundled file ``data/<rel>`` (works from an installed wheel or a zip)."""
    node = resources.files(PACKAGE) / "data"
    for part in rel.split("/"):
        node = node / part
    return node


def read_bytes(rel: str) -> bytes:
    """Uncompressed content of a bundled file."""
    raw = resource(rel).read_bytes()
    return gzip.decompress(raw) if rel.endswith(".gz") else raw


def manifest() -> dict[str, dict[str, Any]]:
    """The bundled ``MANIFEST.json``: SHA-256 and origin of every bundled file."""
    return json.loads(resource("MANIFEST.json").read_text(encoding="utf-8"))


@functools.cache
def _csv(rel: str, dtypes: tuple[tuple[str, str], ...] = ()) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(read_bytes(rel)), dtype=dict(dtypes) or None)


def read_csv(rel: str, **dtypes: str) -> pd.DataFrame:
    """A bundled CSV as a fresh DataFrame (parsed once, then copied; copies are cheap)."""
    return _csv(rel, tuple(sorted(dtypes.items()))).copy()


@functools.cache
def _jsonl(rel: str) -> pd.DataFrame:
    text = read_bytes(rel).decode("utf-8")
    return pd.DataFrame([json.loads(line) for line in text.splitlines() if line.strip()])


# --------------------------------------------------------------------------- helpers
def _check_choice(dataset: str, option: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise DatasetError(
            f"{dataset}: {option}={value!r} is not valid; choose one of "
            f"{', '.join(repr(a) for a in allowed)}"
        )


def _self_preference(
    frame: pd.DataFrame, items: Mapping[str, str], judges: Mapping[str, str]
) -> np.ndarray:
    """+1 if only the first item shares the judge's family, -1 if only the second, else 0."""
    jf = frame["judge"].map(judges).to_numpy(dtype=object)
    ff = frame["first"].map(items).to_numpy(dtype=object)
    sf = frame["second"].map(items).to_numpy(dtype=object)
    return (ff == jf).astype(float) - (sf == jf).astype(float)


def _outcome(values: pd.Series, mapping: Mapping[Any, str], dataset: str) -> pd.Series:
    out = values.map(mapping)
    if out.isna().any():  # pragma: no cover - the bundled files are checked by the tests
        bad = sorted({str(v) for v in values[out.isna()]})
        raise DatasetError(f"{dataset}: unexpected verdict values {bad}")
    return out.astype("str")


# --------------------------------------------------------------------------- prd_vicuna80
PRD_VERDICT = {1: "first", 2: "second", 3: "tie"}


def prd_vicuna80(run: str = "main") -> pd.DataFrame:
    """Tidy PRD Vicuna80 LLM-judge verdicts (see ``info('prd_vicuna80')``)."""
    _check_choice("prd_vicuna80", "run", run, ("main", "alt", "both"))
    raw = read_csv("prd_vicuna80/llm_pairwise_long.csv.gz")
    key = ["judge", "question_id", "first", "second"]
    main = raw[raw["run"] == "main"]
    alt = raw[raw["run"] == "alt"]
    if run == "main":
        df = main
    elif run == "alt":
        # the alternate run replaces its main counterparts in place (same row positions)
        alt_by_key = alt.set_index(key)
        hit = main.set_index(key).index.isin(alt_by_key.index)
        replaced = alt_by_key.loc[main.set_index(key).index[hit]].reset_index()
        replaced.index = main.index[hit]
        df = pd.concat([main[~hit], replaced[main.columns]]).sort_index()
    else:
        df = raw
    out = pd.DataFrame(
        {
            "context": df["question_id"].astype("int64"),
            "category": df["category"].astype("str"),
            "first": df["first"].astype("str"),
            "second": df["second"].astype("str"),
            "outcome": _outcome(df["verdict"], PRD_VERDICT, "prd_vicuna80"),
            "judge": df["judge"].astype("str"),
            "repeat": (df["run"] == "alt").astype("int64") if run == "both" else 0,
            "run": df["run"].astype("str"),
            "verdict": df["verdict"].astype("int64"),
        }
    ).reset_index(drop=True)
    items, judges = FAMILIES["prd_vicuna80"]
    out["self_preference"] = _self_preference(out, items, judges)
    return out


def prd_human_verdicts(all_models: bool = False) -> pd.DataFrame:
    """Tidy human pairwise verdicts of PRD Vicuna80 (one orientation per case)."""
    raw = read_csv("prd_vicuna80/human_pairwise_long.csv.gz")
    if not all_models:
        models = set(CATALOGUE["prd_vicuna80"].judges)  # the five answer models
        raw = raw[raw["model_a"].isin(models) & raw["model_b"].isin(models)]
    raw = raw.reset_index(drop=True)
    annotator = raw.groupby(["question_id", "model_a", "model_b"], sort=False).cumcount()
    return pd.DataFrame(
        {
            "context": raw["question_id"].astype("int64"),
            "model_a": raw["model_a"].astype("str"),
            "model_b": raw["model_b"].astype("str"),
            "winner": raw["winner"].astype("str"),
            "verdict": raw["verdict"].astype("int64"),
            "annotator": annotator.astype("int64"),
            "origin": raw["origin"].astype("str"),
        }
    )


def prd_texts() -> pd.DataFrame:
    """The 5 x 80 PRD Vicuna80 answers with their question."""
    raw = _jsonl("prd_vicuna80/texts.jsonl.gz")
    return pd.DataFrame(
        {
            "context": raw["question_id"].astype("int64"),
            "item": raw["item"].astype("str"),
            "text": raw["text"].astype("str"),
            "question": raw["question"].astype("str"),
            "category": raw["category"].astype("str"),
            "model_id": raw["model_id"].astype("str"),
            "answer_id": raw["answer_id"].astype("str"),
        }
    )


# --------------------------------------------------------------------------- judging_the_judges
JTJ_BENCHMARKS = ("MTBench", "DevBench")


def judging_the_judges(benchmark: str | None = None) -> pd.DataFrame:
    """Tidy judging-the-judges repetition verdicts (see ``info('judging_the_judges')``)."""
    if benchmark is not None:
        lookup = {b.lower(): b for b in JTJ_BENCHMARKS}
        if str(benchmark).lower() not in lookup:
            _check_choice("judging_the_judges", "benchmark", benchmark, (None, *JTJ_BENCHMARKS))
        benchmark = lookup[str(benchmark).lower()]
    raw = read_csv("judging_the_judges/repetition_judgments.csv.gz", question_id="str")
    if benchmark is not None:
        raw = raw[raw["benchmark"] == benchmark].reset_index(drop=True)
    out = pd.DataFrame(
        {
            "context": (raw["benchmark"] + "/" + raw["question_id"]).astype("str"),
            "benchmark": raw["benchmark"].astype("str"),
            "question_id": raw["question_id"].astype("str"),
            "task": raw["task"].astype("str"),
            "first": raw["model_first"].astype("str"),
            "second": raw["model_second"].astype("str"),
            "outcome": _outcome(raw["verdict"], POSITION_CODE_MAP, "judging_the_judges"),
            "judge": raw["judge"].astype("str"),
            "repeat": raw["repetition"].astype("int64"),
            "n_options": raw["n_options"].astype("int64"),
            "verdict": raw["verdict"].astype("str"),
            "consistent_file": raw["consistent_file"].astype(bool),
        }
    )
    items, judges = FAMILIES["judging_the_judges"]
    out["self_preference"] = _self_preference(out, items, judges)
    return out


# --------------------------------------------------------------------------- chatbot_arena
ARENA_JUDGES = ("human", "gpt-4-0125-preview", "claude-3-opus-20240229", "gpt-3.5-turbo")
ARENA_VERDICT = {"model_a": "first", "model_b": "second", "tie": "tie", "tie (bothbad)": "tie"}


def chatbot_arena() -> pd.DataFrame:
    """Tidy Chatbot Arena verdicts, one row per (battle, judge); model_a is a NOMINAL first."""
    raw = read_csv("chatbot_arena/chatbot_arena_human_and_llm_judges.csv.gz", question_id="str")
    # each battle is a new showing of its ordered pair of models (a new prompt): numbered in
    # file order, so the loader does not read the 388 battles of a pair as one row written twice
    showing = raw.groupby(["model_a", "model_b"], sort=False).cumcount().astype("int64")
    parts = []
    for judge in ARENA_JUDGES:
        winner = raw[f"winner_{judge}"].astype("str")
        parts.append(
            pd.DataFrame(
                {
                    "battle": raw["num"].astype("int64"),
                    "question_id": raw["question_id"].astype("str"),
                    "first": raw["model_a"].astype("str"),
                    "second": raw["model_b"].astype("str"),
                    "outcome": _outcome(winner, ARENA_VERDICT, "chatbot_arena"),
                    "judge": judge,
                    "repeat": showing,
                    "winner": winner,
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    out["judge"] = out["judge"].astype("str")
    items, judges = FAMILIES["chatbot_arena"]
    out["self_preference"] = _self_preference(out, items, judges)
    return out


# --------------------------------------------------------------------------- llmfao
LLMFAO_VERDICT = {"left": "first", "right": "second", "tie": "tie"}


def llmfao(pool_workers: bool = False) -> pd.DataFrame:
    """Tidy LLMFAO crowd verdicts (see ``info('llmfao')``)."""
    _check_choice("llmfao", "pool_workers", pool_workers, (False, True))
    raw = read_csv("llmfao/llmfao.csv.gz")
    return pd.DataFrame(
        {
            "context": raw["prompt"].astype("int64"),
            "pair_id": raw["id"].astype("int64"),
            "first": raw["left"].astype("str"),
            "second": raw["right"].astype("str"),
            "outcome": _outcome(raw["winner"], LLMFAO_VERDICT, "llmfao"),
            "judge": "crowd" if pool_workers else raw["worker"].astype("int64"),
            "repeat": 0,
            "model_x": raw["model_x"].astype("int64"),
            "model_y": raw["model_y"].astype("int64"),
        }
    )


def llmfao_golden() -> pd.DataFrame:
    """evalica's reference scores for LLMFAO (algorithm, item, score)."""
    return read_csv("llmfao/llmfao-golden.csv.gz")


# --------------------------------------------------------------------------- qlora_oa_gpt4
QLORA_VERDICT = {"first": "first", "second": "second", "tie": "tie"}


def qlora_oa_gpt4() -> pd.DataFrame:
    """Tidy QLoRA GPT-4 verdicts on OpenAssistant answers (see ``info('qlora_oa_gpt4')``)."""
    raw = read_csv("qlora_oa_gpt4/qlora_oa_gpt4_long.csv.gz")
    out = pd.DataFrame(
        {
            "context": raw["context"].astype("str"),
            "first": raw["first"].astype("str"),
            "second": raw["second"].astype("str"),
            "outcome": _outcome(raw["outcome"], QLORA_VERDICT, "qlora_oa_gpt4"),
            "judge": raw["judge"].astype("str"),
            "repeat": np.zeros(len(raw), dtype=np.int64),
        }
    )
    items, judges = FAMILIES["qlora_oa_gpt4"]
    out["self_preference"] = _self_preference(out, items, judges)
    return out


# --------------------------------------------------------------------------- paper_synthetic
def paper_synthetic_simulation(
    eps: float = 0.15,
    n_items: int = 100,
    repeats: int = 1,
    random_seed: int = PAPER_SYNTHETIC_SEED,
) -> Any:
    """The SyntheticComparisons behind ``paper_synthetic`` (deterministic for fixed options)."""
    return _simulate_cached(float(eps), int(n_items), int(repeats), int(random_seed))


@functools.lru_cache(maxsize=8)
def _simulate_cached(eps: float, n_items: int, repeats: int, random_seed: int) -> Any:
    from bayes_pairwise.simulate import simulate_round_robin

    return simulate_round_robin(n_items, eps=eps, repeats=repeats, random_seed=random_seed)


def paper_synthetic(
    eps: float = 0.15,
    n_items: int = 100,
    repeats: int = 1,
    random_seed: int = PAPER_SYNTHETIC_SEED,
) -> pd.DataFrame:
    """Tidy frame of the SYNTHETIC paper-style round-robin, with its truth columns."""
    sim = paper_synthetic_simulation(eps, n_items, repeats, random_seed)
    frame = sim.frame
    rank = {item: r for r, item in enumerate(sim.true_order, start=1)}
    out = pd.DataFrame(
        {
            "first": frame["first"].astype("str"),
            "second": frame["second"].astype("str"),
            "outcome": frame["outcome"].astype("str"),
            "judge": "synthetic",
            "repeat": frame["repeat"].astype("int64"),
        }
    )
    out["judge"] = out["judge"].astype("str")
    out["first_true_rank"] = out["first"].map(rank).astype("int64")
    out["second_true_rank"] = out["second"].map(rank).astype("int64")
    out["correct"] = np.asarray(sim.correct, dtype=bool)
    return out


def paper_synthetic_source(
    eps: float = 0.15,
    n_items: int = 100,
    repeats: int = 1,
    random_seed: int = PAPER_SYNTHETIC_SEED,
) -> str:
    """The ``Comparisons.source`` label of the synthetic set (says SYNTHETIC)."""
    return (
        f"SYNTHETIC dataset paper_synthetic (simulate_round_robin: n_items={int(n_items)}, "
        f"eps={float(eps):g}, repeats={int(repeats)}, random_seed={int(random_seed)})"
    )


# --------------------------------------------------------------------------- registry
#: name -> (tidy-frame function, has a context column)
READERS: Mapping[str, tuple[Callable[..., pd.DataFrame], bool]] = {
    "prd_vicuna80": (prd_vicuna80, True),
    "judging_the_judges": (judging_the_judges, True),
    "chatbot_arena": (chatbot_arena, False),
    "llmfao": (llmfao, True),
    "qlora_oa_gpt4": (qlora_oa_gpt4, True),
    "paper_synthetic": (paper_synthetic, False),
}
