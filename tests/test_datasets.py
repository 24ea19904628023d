"""Tests of the bundled data sets: shapes and counts against the upstream provenance, the
tidy-frame contract, licences and attribution, checksums, and the public API's errors."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise import datasets
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.datasets import _readers
from bayes_pairwise.errors import DataError, DesignWarning

SHARED = Path(__file__).parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"
REAL = ["prd_vicuna80", "judging_the_judges", "chatbot_arena", "llmfao", "qlora_oa_gpt4"]
ALL = [*REAL, "paper_synthetic"]
PRD_JUDGES = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")

# prd_vicuna80/PROVENANCE.md: first-shown wins / second-shown wins / ties, and the number of the
# 800 unordered (question, pair) cases with the same winner (or a tie) in both orders.
PRD_COUNTS = {
    "bard": (1253, 290, 57),
    "claude": (532, 937, 131),
    "gpt35": (634, 660, 306),
    "gpt4": (848, 512, 240),
    "vicuna-13b": (631, 922, 47),
}
PRD_CONSISTENT = {"bard": 295, "claude": 439, "gpt35": 553, "gpt4": 551, "vicuna-13b": 299}
PRD_CONSISTENCY = {
    "bard": 0.369,
    "claude": 0.549,
    "gpt35": 0.691,
    "gpt4": 0.689,
    "vicuna-13b": 0.374,
}

# prediction_powered_ranking/PROVENANCE.md: model_a / model_b / tie (human: tie + tie (bothbad))
ARENA_COUNTS = {
    "human": (9516, 9391, 2880 + 5132),
    "gpt-4-0125-preview": (10732, 8734, 7453),
    "claude-3-opus-20240229": (7507, 11488, 7924),
    "gpt-3.5-turbo": (23176, 3691, 52),
}


def frame(name: str, **options) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignWarning)
        return datasets.load_frame(name, **options)


def load(name: str, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignWarning)
        return datasets.load(name, **kwargs)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def position_consistency(data) -> dict[str, tuple[int, int]]:
    """Per judge: (consistent cases, cases) over unordered (context, pair) seen in both orders.

    Consistent = same winner in both orders, or a tie in both: with outcomes 1 / 0 / 0.5 for
    first / second / tie (``ties="half"``), that is exactly ``o(i first) + o(j first) == 1``.
    """
    out = {}
    for name, sub in data.by_judge():
        lo = np.minimum(sub.first, sub.second)
        hi = np.maximum(sub.first, sub.second)
        df = pd.DataFrame({"lo": lo, "hi": hi, "lo_first": sub.first == lo, "outcome": sub.outcome})
        wide = df.pivot_table(index=["lo", "hi"], columns="lo_first", values="outcome")
        wide = wide.dropna()
        consistent = int(np.isclose(wide[True] + wide[False], 1.0).sum())
        out[name] = (consistent, len(wide))
    return out


# --------------------------------------------------------------------------- listing / info
def test_list_datasets_columns_and_flags():
    table = datasets.list_datasets()
    assert table["name"].tolist() == ALL
    for col in [
        "description",
        "n_verdicts",
        "n_items",
        "judges",
        "both_orders",
        "repeats",
        "ties",
        "licence",
        "synthetic",
    ]:
        assert col in table.columns
    t = table.set_index("name")
    assert t.loc["paper_synthetic", "synthetic"]
    assert not t.loc[REAL, "synthetic"].any()
    assert t.loc[t["default"]].index.tolist() == ["prd_vicuna80"] == [datasets.DEFAULT_DATASET]
    assert set(t["licence"]) <= {"MIT", "Apache-2.0"}
    assert not t.loc["chatbot_arena", "order_recorded"]


@pytest.mark.parametrize("name", ALL)
def test_catalogue_numbers_match_the_loaded_data(name):
    meta = datasets.info(name)
    df = frame(name)
    assert len(df) == meta.n_verdicts
    assert int((df["outcome"] == "tie").sum()) == meta.n_ties
    assert set(df["outcome"]) <= {"first", "second", "tie"}
    assert len(set(df["first"]) | set(df["second"])) == meta.n_items
    assert df["judge"].nunique() == meta.n_judges
    if meta.n_judges < 20:
        assert tuple(pd.unique(df["judge"].astype(str))) == meta.judges
    assert (df["context"].nunique() if "context" in df else 1) == meta.n_contexts
    assert {"first", "second", "outcome", "judge", "repeat"} <= set(df.columns)
    assert set(meta.columns) == set(df.columns)  # every column documented, none missing
    # repeats: verdicts of one judge on the same ordered pair of the same texts
    unit = [c for c in ("context", "battle") if c in df]
    keys = ["judge", "first", "second", *unit]
    assert df.groupby(keys).size().max() == meta.repeats
    assert not df[["first", "second", "outcome", "judge"]].isna().any().any()
    assert (df["first"] != df["second"]).all()


@pytest.mark.parametrize("name", ALL)
def test_a_bundled_data_set_loads_with_only_its_documented_warnings(name):
    # chatbot_arena's 26,919 battles repeat each ordered pair of models up to 388 times (one
    # prompt each): with every repeat number 0 the loader read 106,156 of its rows as rows
    # written twice
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = datasets.load(name)
    said = [str(w.message) for w in caught]
    expected = [datasets.CHATBOT_ARENA_ORDER_WARNING] if name == "chatbot_arena" else []
    assert said == expected
    assert data.n_comparisons == datasets.info(name).n_verdicts


def test_chatbot_arena_numbers_each_battle_of_a_pair():
    df = frame("chatbot_arena")
    for _, block in df.groupby(["judge", "first", "second"], sort=False):
        assert block["repeat"].tolist() == list(range(len(block)))
    assert df.groupby(["judge", "first", "second"]).size().max() == 388


@pytest.mark.parametrize(
    "name", ["prd_vicuna80", "judging_the_judges", "qlora_oa_gpt4", "paper_synthetic"]
)
def test_both_orders_flag(name):
    df = frame(name)
    ctx = df.get("context", 0)
    lo = np.minimum(df["first"], df["second"])
    hi = np.maximum(df["first"], df["second"])
    g = pd.DataFrame({"j": df["judge"], "c": ctx, "lo": lo, "hi": hi, "lf": df["first"] == lo})
    per_pair = g.groupby(["j", "c", "lo", "hi"])["lf"].nunique()
    share = float((per_pair == 2).mean())
    if name == "judging_the_judges":  # a few rows are missing upstream
        assert 0.97 < share < 1.0
    elif name == "qlora_oa_gpt4":  # 1,482 unparsable reviews left out
        assert share == pytest.approx(0.9325, abs=1e-4)
    else:
        assert share == 1.0


def test_llmfao_has_one_orientation_per_pair():
    df = frame("llmfao")
    assert not datasets.info("llmfao").both_orders
    fwd = set(zip(df["context"], df["first"], df["second"], strict=True))
    assert not any((c, s, f) in fwd for c, f, s in fwd)


def test_info_fields_and_text():
    for name in ALL:
        meta = datasets.info(name)
        assert meta.name == name
        assert meta.title and meta.description and meta.citation and meta.caveats
        assert meta.licence in {"MIT", "Apache-2.0"}
        text = meta.to_text()
        assert name in text and "caveats:" in text
        with pytest.raises(AttributeError):
            meta.name = "x"  # frozen
        if not meta.synthetic:
            assert meta.source_url.startswith("https://github.com/")
            assert len(meta.commit) == 40
            assert meta.commit in meta.attribution and meta.licence in meta.attribution


def test_unknown_name_lists_the_available_ones():
    for call in (
        datasets.load,
        datasets.load_frame,
        datasets.info,
        datasets.item_families,
        datasets.load_texts,
    ):
        with pytest.raises(datasets.DatasetError) as err:
            call("nope")
        for name in ALL:
            assert name in str(err.value)
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        datasets.export("nope", "x.csv")


def test_bad_options_and_judges():
    with pytest.raises(datasets.DatasetError, match=r"has no option 'benchmark'.*run"):
        datasets.load("prd_vicuna80", benchmark="MTBench")
    with pytest.raises(datasets.DatasetError, match="no option"):
        load("chatbot_arena", run="main")
    with pytest.raises(datasets.DatasetError, match="run='x'"):
        datasets.load_frame("prd_vicuna80", run="x")
    with pytest.raises(datasets.DatasetError, match="MTBench"):
        datasets.load("judging_the_judges", benchmark="AlpacaEval")
    with pytest.raises(datasets.DatasetError, match=r"unknown judge.*gpt4"):
        datasets.load("prd_vicuna80", judge="gpt-5")


# --------------------------------------------------------------------------- prd_vicuna80
def test_prd_shape_round_robin_per_context_and_judge():
    df = frame("prd_vicuna80")
    assert len(df) == 8000
    assert df["context"].nunique() == 80
    assert df.groupby("context")["first"].nunique().eq(5).all()
    assert tuple(sorted(df["judge"].unique())) == PRD_JUDGES
    assert set(df["run"]) == {"main"} and set(df["repeat"]) == {0}
    # every judge saw each of the 20 ordered pairs of every question exactly once
    counts = df.groupby(["judge", "context", "first", "second"]).size()
    assert len(counts) == 5 * 80 * 20 and counts.eq(1).all()
    data = load("prd_vicuna80")
    assert data.n_contexts == 80 and data.n_items == 400 and data.n_judges == 5
    assert sorted(set(data.item_names)) == sorted(PRD_JUDGES)
    assert data.pool_contexts().n_items == 5


def test_prd_per_judge_verdict_counts_match_provenance():
    df = frame("prd_vicuna80")
    for judge, expected in PRD_COUNTS.items():
        got = df.loc[df["judge"] == judge, "outcome"].value_counts()
        assert (got["first"], got["second"], got["tie"]) == expected, judge
    # and through load(): by default ties are data (the CLI's 8,000 verdicts)
    data = load("prd_vicuna80")
    assert data.tie_policy == "model" and data.n_comparisons == 8000
    assert data.n_ties == sum(c[2] for c in PRD_COUNTS.values()) and data.n_ties_dropped == 0
    for judge, (_, _, n_tie) in PRD_COUNTS.items():
        assert int((data.for_judge(judge).outcome == 0.5).sum()) == n_tie
    # ties="drop": dropped and counted, the policy recorded
    data = load("prd_vicuna80", ties="drop")
    assert data.tie_policy == "drop"
    assert data.n_ties == data.n_ties_dropped == sum(c[2] for c in PRD_COUNTS.values())
    for judge, (n_first, n_second, _) in PRD_COUNTS.items():
        sub = data.for_judge(judge)
        assert int((sub.outcome == 1.0).sum()) == n_first
        assert int((sub.outcome == 0.0).sum()) == n_second


def test_prd_position_consistency_matches_provenance():
    data = load("prd_vicuna80", ties="half")
    assert data.tie_policy == "half" and data.n_ties_dropped == 0
    got = position_consistency(data)
    for judge in PRD_JUDGES:
        consistent, cases = got[judge]
        assert cases == 800
        assert consistent == PRD_CONSISTENT[judge], judge
        assert round(consistent / cases, 3) == PRD_CONSISTENCY[judge]


def test_prd_ties_error_policy_passes_through():
    with pytest.raises(DataError, match="ties='error'"):
        datasets.load("prd_vicuna80", ties="error")


def test_prd_run_options():
    main = frame("prd_vicuna80")
    alt = frame("prd_vicuna80", run="alt")
    both = frame("prd_vicuna80", run="both")
    assert len(alt) == 8000 and len(both) == 8160
    assert both.groupby("repeat").size().to_dict() == {0: 8000, 1: 160}
    assert (both.loc[both["repeat"] == 1, "judge"] == "gpt35").all()
    changed = main["verdict"] != alt["verdict"]
    assert (main.loc[changed, "judge"] == "gpt35").all()
    assert set(map(frozenset, main.loc[changed, ["first", "second"]].to_numpy())) == {
        frozenset({"gpt35", "gpt4"})
    }
    assert int(changed.sum()) == (80 - 64) + (80 - 69)
    assert (
        (
            main.drop(columns=["verdict", "outcome", "run"])
            == alt.drop(columns=["verdict", "outcome", "run"])
        )
        .all()
        .all()
    )
    assert load("prd_vicuna80", run="both", judge="gpt35").repeat.max() == 1


def test_prd_texts():
    texts = datasets.load_texts("prd_vicuna80")
    assert len(texts) == 400
    per_context = texts.groupby("context")["item"].apply(lambda s: tuple(sorted(s)))
    assert len(per_context) == 80
    assert all(items == PRD_JUDGES for items in per_context)
    assert texts["text"].str.len().min() > 0
    assert texts.groupby("context")["question"].nunique().eq(1).all()
    q1 = texts.loc[texts["context"] == 1, "question"].iloc[0]
    assert q1 == "How can I improve my time management skills?"
    df = frame("prd_vicuna80")
    pairs = set(zip(texts["context"], texts["item"], strict=True))
    assert set(zip(df["context"], df["first"], strict=True)) <= pairs
    with pytest.raises(datasets.DatasetError, match="prd_vicuna80"):
        datasets.load_texts("chatbot_arena")


def test_prd_human_verdicts():
    human = datasets.load_human_verdicts("prd_vicuna80")
    assert len(human) == 1760
    cases = human.groupby(["context", "model_a", "model_b"]).size()
    assert len(cases) == 800  # 80 questions x 10 unordered pairs, one orientation each
    unordered = {(c, frozenset((a, b))) for c, a, b in cases.index}
    assert len(unordered) == 800
    assert cases.max() == 3
    assert set(human["model_a"]) | set(human["model_b"]) == set(PRD_JUDGES)
    w = human["winner"]
    assert ((w == human["model_a"]) == (human["verdict"] == 1)).all()
    assert ((w == human["model_b"]) == (human["verdict"] == 2)).all()
    assert ((w == "tie") == (human["verdict"] == 3)).all()
    assert len(datasets.load_human_verdicts("prd_vicuna80", all_models=True)) == 7040
    with pytest.raises(datasets.DatasetError):
        datasets.load_human_verdicts("llmfao")


# --------------------------------------------------------------------------- families
@pytest.mark.parametrize(
    "name", ["prd_vicuna80", "judging_the_judges", "chatbot_arena", "qlora_oa_gpt4"]
)
def test_families_cover_items_and_judges(name):
    df = frame(name)
    items, judges = datasets.item_families(name), datasets.judge_families(name)
    assert set(df["first"]) | set(df["second"]) <= set(items)
    assert set(df["judge"]) <= set(judges)
    jf = df["judge"].map(judges)
    expected = (df["first"].map(items) == jf).astype(float) - (
        df["second"].map(items) == jf
    ).astype(float)
    assert (df["self_preference"] == expected).all()
    assert (df["self_preference"] != 0).any()


def test_prd_families_as_specified():
    assert datasets.item_families("prd_vicuna80") == {
        "bard": "google",
        "claude": "anthropic",
        "gpt35": "openai",
        "gpt4": "openai",
        "vicuna-13b": "vicuna",
    }
    assert datasets.judge_families("prd_vicuna80") == datasets.item_families("prd_vicuna80")
    data = load("prd_vicuna80", covariates=["self_preference"])
    assert set(np.unique(data.covariates["self_preference"])) == {-1.0, 0.0, 1.0}
    with pytest.raises(datasets.DatasetError, match="no model-family map"):
        datasets.item_families("llmfao")


# --------------------------------------------------------------------------- judging_the_judges
def test_judging_the_judges_shape():
    df = frame("judging_the_judges")
    assert len(df) == 9042
    assert df["judge"].nunique() == 9
    assert df.groupby("benchmark").size().to_dict() == {"DevBench": 3886, "MTBench": 5156}
    assert df["outcome"].value_counts().to_dict() == {"second": 5001, "first": 3654, "tie": 387}
    assert set(df["repeat"]) == {1, 2, 3}
    assert (df.loc[df["benchmark"] == "DevBench", "outcome"] != "tie").all()
    assert df.groupby("benchmark")["question_id"].nunique().to_dict() == {
        "DevBench": 18,
        "MTBench": 24,
    }
    # star design: every comparison involves the benchmark's reference answer
    ref = df["benchmark"].map({"MTBench": "vicuna-13b-v1.3", "DevBench": "human"})
    assert ((df["first"] == ref) ^ (df["second"] == ref)).all()
    assert frame("judging_the_judges", benchmark="devbench")["benchmark"].eq("DevBench").all()
    mt = load("judging_the_judges", benchmark="MTBench")
    assert mt.n_contexts == 24 and mt.n_judges == 9
    assert mt.n_comparisons + mt.n_ties_dropped == 5156
    assert set(np.unique(mt.repeat)) == {1, 2, 3}


def test_judging_the_judges_orientation_agrees_with_upstream_consistency_flag():
    """Upstream's consistent_cmp.tsv flag must equal the both-order consistency computed from
    the loaded first/second/outcome (which fails if A/B were mapped the wrong way round)."""
    df = frame("judging_the_judges")
    lo = np.minimum(df["first"], df["second"])
    df = df.assign(lo=lo, lo_first=df["first"] == lo)
    df["o"] = df["outcome"].map({"first": 1.0, "second": 0.0, "tie": 0.5})
    keys = ["judge", "repeat", "context", "lo"]
    wide = df.pivot_table(index=keys, columns="lo_first", values="o").dropna()
    mine = pd.Series(np.isclose(wide[True] + wide[False], 1.0), index=wide.index, name="mine")
    both = df.join(mine, on=keys).dropna(subset=["mine"])
    assert len(both) == 9042 - 30  # 30 rows lack their swapped partner upstream
    assert (both["consistent_file"] == both["mine"].astype(bool)).all()
    rate = both.groupby(["benchmark", "judge"])["mine"].mean().round(2)
    # PROVENANCE.md: from 0.19 (DevBench claude-3-haiku) to 0.87 (MTBench gpt-4-0613)
    assert rate.min() == rate[("DevBench", "claude-3-haiku-20240307")] == 0.19
    assert rate.max() == rate[("MTBench", "gpt-4-0613")] == 0.87


# --------------------------------------------------------------------------- chatbot_arena
def test_chatbot_arena_shape_and_counts():
    df = frame("chatbot_arena")
    assert len(df) == 26919 * 4
    assert df.groupby("judge").size().eq(26919).all()
    assert df["battle"].nunique() == 26919
    assert tuple(pd.unique(df["judge"])) == tuple(ARENA_COUNTS)
    for judge, expected in ARENA_COUNTS.items():
        got = df.loc[df["judge"] == judge, "outcome"].value_counts()
        assert (got.get("first", 0), got.get("second", 0), got.get("tie", 0)) == expected
    assert (df.loc[df["winner"] == "tie (bothbad)", "outcome"] == "tie").all()
    assert len(set(df["first"]) | set(df["second"])) == 20


def test_chatbot_arena_warns_that_order_is_not_recorded():
    with pytest.warns(DesignWarning, match="NOT recorded"):
        data = datasets.load("chatbot_arena", judge="human")
    assert "NOT recorded" in data.source
    with pytest.warns(DesignWarning, match="meaningless"):
        datasets.load_frame("chatbot_arena")
    meta = datasets.info("chatbot_arena")
    assert not meta.order_recorded and not meta.both_orders
    assert any("NOT recorded" in c for c in meta.caveats)
    assert "NOMINAL" in meta.columns["first"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        datasets.load("prd_vicuna80", judge="gpt4")  # no such warning elsewhere


# --------------------------------------------------------------------------- llmfao
def test_llmfao_shape_and_golden():
    df = frame("llmfao")
    assert len(df) == 8931
    items = set(df["first"]) | set(df["second"])
    assert len(items) == 59
    assert df["context"].nunique() == 13 and df["judge"].nunique() == 124
    assert df["pair_id"].nunique() == 2139
    assert df["outcome"].value_counts().to_dict() == {"tie": 3471, "first": 2911, "second": 2549}
    pooled = load("llmfao", pool_workers=True)
    assert pooled.judges == ("crowd",)
    assert pooled.pool_contexts().n_items == 59
    golden = datasets.load_golden("llmfao")
    assert len(golden) == 413 and golden["algorithm"].nunique() == 7
    assert set(golden["item"]) == items
    with pytest.raises(datasets.DatasetError):
        datasets.load_golden("prd_vicuna80")


# --------------------------------------------------------------------------- paper_synthetic
def test_paper_synthetic_is_deterministic_and_labelled():
    pytest.importorskip("bayes_pairwise.simulate")
    a, b = datasets.load("paper_synthetic"), datasets.load("paper_synthetic")
    for attr in ("first", "second", "outcome", "judge", "repeat"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert a.items == b.items
    pd.testing.assert_frame_equal(
        datasets.load_frame("paper_synthetic"), datasets.load_frame("paper_synthetic")
    )
    _readers._simulate_cached.cache_clear()  # a fresh simulation gives the same data too
    np.testing.assert_array_equal(datasets.load("paper_synthetic").outcome, a.outcome)
    assert a.n_items == 100 and a.n_comparisons == 9900
    meta = datasets.info("paper_synthetic")
    assert meta.synthetic and "synthetic" in meta.name
    assert "SYNTHETIC" in meta.title and "SYNTHETIC" in meta.description
    assert "SYNTHETIC" in a.source and "SYNTHETIC" in meta.attribution
    other = datasets.load("paper_synthetic", random_seed=1)
    assert not np.array_equal(other.outcome, a.outcome)
    assert "random_seed=1" in other.source


def test_paper_synthetic_truth():
    pytest.importorskip("bayes_pairwise.simulate")
    sim = datasets.load_synthetic()
    df = datasets.load_frame("paper_synthetic")
    assert sim.eps == 0.15 and len(sim.true_order) == 100
    assert 1.0 - df["correct"].mean() == pytest.approx(sim.realised_eps)
    better_first = df["first_true_rank"] < df["second_true_rank"]
    assert ((df["outcome"] == "first") == better_first).eq(df["correct"]).all()
    assert abs(sim.realised_eps - 0.15) < 0.02
    with pytest.raises(datasets.DatasetError):
        datasets.load_synthetic("prd_vicuna80")


# --------------------------------------------------------------------------- export
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet", ".jsonl", ".json", ".tsv"])
def test_export_round_trip(tmp_path, suffix):
    path = datasets.export("prd_vicuna80", tmp_path / "sub" / f"prd{suffix}")
    assert path.exists()
    if suffix == ".tsv":
        back = pd.read_csv(path, sep="\t")
    elif suffix == ".json":
        back = pd.read_json(path)
    else:
        back = load_comparisons(path, judge="judge", context="context").to_frame()
        want = load("prd_vicuna80").to_frame()
        pd.testing.assert_frame_equal(
            back.drop(columns="row").astype(str), want.drop(columns="row").astype(str)
        )
        return
    assert len(back) == 8000


def test_export_bad_suffix(tmp_path):
    with pytest.raises(datasets.DatasetError, match="suffix"):
        datasets.export("llmfao", tmp_path / "x.xlsx")


# --------------------------------------------------------------------------- files
def test_manifest_matches_bundled_files():
    manifest = _readers.manifest()
    root = Path(str(_readers.resource("MANIFEST.json"))).parent
    on_disk = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name not in {"MANIFEST.json", "ATTRIBUTION.md"}
    }
    assert on_disk == set(manifest)
    for rel, entry in manifest.items():
        content = _readers.read_bytes(rel)
        assert sha256(content) == entry["sha256"], rel
        assert len(content) == entry["bytes"], rel
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert total < 5_000_000  # the bundle stays small
    for meta in map(datasets.info, ALL):
        for rel in meta.files:
            assert rel in manifest


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data not present")
def test_bundled_files_match_shared_originals():
    manifest = _readers.manifest()
    checked = 0
    for rel, entry in manifest.items():
        for original, digest in entry["sources"].items():
            source = SHARED_DATA / original
            assert sha256(source.read_bytes()) == digest, original
            if entry["verbatim"]:
                # an upstream file that is gzip-compressed already is copied as it is
                want = source.read_bytes()
                if original.endswith(".gz"):
                    want = gzip.decompress(want)
                assert _readers.read_bytes(rel) == want, rel
                checked += 1
    assert checked >= 12  # 7 data files + 5 licences


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data not present")
def test_texts_match_shared_generations():
    texts = datasets.load_texts("prd_vicuna80")
    gen = SHARED_DATA / "prd_vicuna80/raw/data/vicuna80/generations"
    for model in PRD_JUDGES:
        rows = [
            json.loads(line) for line in (gen / f"answer_{model}.jsonl").read_text().splitlines()
        ]
        want = {int(r["question_id"]): r["text"] for r in rows}
        got = texts[texts["item"] == model].set_index("context")["text"].to_dict()
        assert got == want, model


@pytest.mark.parametrize("name", REAL)
def test_licence_present_for_every_bundled_dataset(name):
    meta = datasets.info(name)
    assert meta.licence_file
    text = datasets.licence_text(name)
    marker = {"MIT": "MIT License", "Apache-2.0": "Apache License"}[meta.licence]
    assert marker in text
    attribution = _readers.resource("ATTRIBUTION.md").read_text(encoding="utf-8")
    assert f"## {name}" in attribution and meta.commit in attribution
    assert meta.licence.replace("-2.0", "") in attribution


def test_synthetic_has_no_upstream_licence():
    with pytest.raises(datasets.DatasetError):
        datasets.licence_text("paper_synthetic")


def test_works_without_the_source_tree(tmp_path):
    """The loaders read package resources only: a copy of the package, run from elsewhere,
    loads every bundled data set (nothing from ../shared or the repository)."""
    import bayes_pairwise

    src = Path(bayes_pairwise.__file__).parent
    shutil.copytree(
        src, tmp_path / "site" / "bayes_pairwise", ignore=shutil.ignore_patterns("__pycache__")
    )
    site = str(tmp_path / "site")
    code = (
        "import warnings, bayes_pairwise, bayes_pairwise.datasets as d\n"
        "warnings.simplefilter('ignore')\n"
        f"assert bayes_pairwise.__file__.startswith({site!r}), bayes_pairwise.__file__\n"
        f"print([len(d.load_frame(n)) for n in {REAL!r}], len(d.load_texts()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[8000, 9042, 107676, 8931, 38544] 400"
