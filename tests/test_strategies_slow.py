"""Issue 11 must-show checks at 1,000 texts (slow: about a minute)."""

from __future__ import annotations

import json

import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.strategies import run_strategies

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def linear_1000():
    """1,000 texts, linear, the paper's strongest annotator bias (t_bias = 200), 3 reps."""
    return run_strategies(
        1000,
        "linear",
        bias_items=200,
        bias_shift=200.0,
        reps=3,
        seed=0,
        strategies=[
            "pairwise:rounds=24",
            "listwise:k=10,rounds=3",
            "active:budget=1200",
            "active:budget=1000,k=20",
        ],
        ratings=["bt", "bayes"],
    ).set_index(["strategy", "rating"])


def test_pairwise_24_rounds(linear_1000) -> None:
    row = linear_1000.loc[("pairwise:rounds=24", "bt")]
    assert row["cost"] == 12_000
    assert 0.88 <= row["spearman"] <= 0.96


def test_listwise_3_rounds(linear_1000) -> None:
    row = linear_1000.loc[("listwise:k=10,rounds=3", "bt")]
    assert row["cost"] == 1_500
    assert 0.88 <= row["spearman"] <= 0.97


def test_active_frontier(linear_1000) -> None:
    lw = linear_1000.loc[("listwise:k=10,rounds=3", "bt"), "spearman"]
    act = linear_1000.loc[("active:budget=1200", "bayes")]
    assert act["cost"] <= 1200
    # k = 10 lists: within 0.009 of listwise at 80 % of its cost (measured: 0.938 vs 0.943;
    # 0.935 with the older BALD list score)
    assert act["spearman"] >= lw - 0.009
    # k = 20 lists, 2/3 of listwise's cost: at least listwise's rho (measured 0.948 vs 0.943)
    act20 = linear_1000.loc[("active:budget=1000,k=20", "bt")]
    assert act20["cost"] <= 1000 and act20["spearman"] >= lw - 0.002


def test_no_bias_is_easier() -> None:
    df = run_strategies(
        1000, "linear", reps=1, seed=0, strategies=["pairwise:rounds=24"], ratings=["bt"]
    )
    assert df.loc[0, "spearman"] > 0.98  # measured 0.991


def test_cli_strategies_json(capsys, tmp_path) -> None:
    out = tmp_path / "rho.png"
    rc = main(
        [
            "strategies",
            "--n-items",
            "200",
            "--reps",
            "2",
            "--seed",
            "3",
            "--strategy",
            "pairwise:rounds=4",
            "--strategy",
            "listwise:k=10,rounds=1",
            "--json",
            "--ratings",
            "bt,elo",
            "--out",
            str(out),
        ]
    )
    assert rc == 0 and out.stat().st_size > 1000
    recs = json.loads(capsys.readouterr().out)["records"]
    assert [(r["strategy"], r["rating"], r["cost"]) for r in recs] == [
        ("pairwise:rounds=4", "bt", 400.0),
        ("pairwise:rounds=4", "elo", 400.0),
        ("listwise:k=10,rounds=1", "bt", 100.0),
        ("listwise:k=10,rounds=1", "elo", 100.0),
    ]
