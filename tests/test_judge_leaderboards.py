"""One per-judge ranking loop (leaderboard.judge_leaderboards) for the cross-check and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise import datasets
from bayes_pairwise.cli import main
from bayes_pairwise.leaderboard import judge_agreement, judge_leaderboards, leaderboard


@pytest.fixture(scope="module")
def arena():
    return datasets.load("chatbot_arena", ties="model")  # as the CLI loads bundled data


def test_each_judge_gets_a_seed_of_its_own(arena) -> None:
    boards, errors = judge_leaderboards(arena, random_seed=7, n_boot=40)
    assert errors == {} and list(boards) == list(arena.judges)
    for k, j in enumerate(arena.judges):
        alone = leaderboard(arena, judge=j, random_seed=7 + 1 + k, n_boot=40)
        np.testing.assert_array_equal(boards[j].strength_draws, alone.strength_draws)
    # independent bootstraps: two judges' replicate draws are not resampled alike
    a, b = (boards[j].strength_draws for j in arena.judges[:2])
    assert not np.array_equal(a, b)


def test_cli_agreement_is_judge_agreement_of_judge_leaderboards(arena, capsys) -> None:
    argv = ["leaderboard", "chatbot_arena", "--agreement-with", "human", "--n-boot", "30"]
    assert main([*argv, "--seed", "3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["judges"]
    # the CLI draws from the cross-check's leaderboard stream of --seed (compare and report
    # print the same boards)
    from bayes_pairwise.crosscheck import seed_streams

    boards, _ = judge_leaderboards(arena, random_seed=seed_streams(3)["leaderboard"], n_boot=30)
    table = judge_agreement(boards, "human")
    got = {r["judge"]: (r["kendall_tau"], r["tau_lower"], r["tau_upper"]) for r in printed}
    assert list(got) == list(table["judge"])
    for row in table.itertuples(index=False):
        want = (row.kendall_tau, row.tau_lower, row.tau_upper)
        assert got[row.judge] == pytest.approx(want, abs=1e-12)
    # by default the boards the cross-check draws for its agreement table (compare, report)
    from bayes_pairwise.conventions import JUDGE_BOARDS_N_BOOT

    assert main(["leaderboard", "chatbot_arena", "--agreement-with", "human", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["judges"]
    boards, _ = judge_leaderboards(
        arena, random_seed=seed_streams(0)["leaderboard"], n_boot=JUDGE_BOARDS_N_BOOT
    )
    table = judge_agreement(boards, "human")
    got = {r["judge"]: (r["kendall_tau"], r["tau_lower"], r["tau_upper"]) for r in printed}
    for row in table.itertuples(index=False):
        want = (row.kendall_tau, row.tau_lower, row.tau_upper)
        assert got[row.judge] == pytest.approx(want, abs=1e-12)


def test_pool_judges_keeps_every_verdict(arena) -> None:
    pooled = arena.pool_judges("everyone")
    assert pooled.judges == ("everyone",) and pooled.n_judges == 1
    assert pooled.n_comparisons == arena.n_comparisons
    np.testing.assert_array_equal(pooled.first, arena.first)
    np.testing.assert_array_equal(pooled.outcome, arena.outcome)
    assert set(np.unique(pooled.judge)) == {0}


def test_cli_agreement_over_many_judges_prints_a_line_per_tenth(tmp_path, capsys) -> None:
    """`leaderboard --agreement-with` printed "ranking by j …" for each judge (LLMFAO: 124
    lines); above 8 judges it prints one line and the judges counted by Ticker's rule, as
    compare and report do, and the table still holds every judge."""
    rng = np.random.default_rng(0)
    rows = []
    for j in range(12):
        for _ in range(60):
            a, b = rng.choice(["p", "q", "r", "s"], size=2, replace=False)
            rows.append((f"w{j}", a, b, "first" if a < b or rng.random() < 0.3 else "second"))
    log = tmp_path / "crowd.csv"
    pd.DataFrame(rows, columns=["judge", "first", "second", "outcome"]).to_csv(log, index=False)
    assert main(["leaderboard", str(log), "--agreement-with", "w0", "--n-boot", "20"]) == 0
    cap = capsys.readouterr()
    said = [ln for ln in cap.err.splitlines() if ln.startswith(("ranking by", "  judge "))]
    assert said[0] == "ranking by each of the 12 judges …"
    assert said[-1].strip().startswith("judge 12/12 (w") and len(said) <= 12
    assert not any(ln.startswith("ranking by w") for ln in said)
    assert all(f"w{j}" in cap.out for j in range(1, 12))
