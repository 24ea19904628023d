"""Ranking logs (issue 30): loading, validation, and classical Plackett–Luce against choix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise.classical.plackett_luce import PlackettLuce, pl_loglik, pl_mm
from bayes_pairwise.errors import DataError, DesignError
from bayes_pairwise.rankings import Rankings, load_rankings, rankings_from_arrays

DATA = Path(__file__).resolve().parent / "data"


def _small() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "list": ["x", "x", "x", "y", "y", "y"],
            "item": ["a", "b", "c", "c", "b", "a"],
            "rank": [2, 1, 3, 1, 3, 2],
            "shown": [1, 2, 3, 1, 2, 3],
            "judge": ["j1", "j1", "j1", "j2", "j2", "j2"],
        }
    )


def test_load_rankings_orders_lists_by_rank_and_reads_the_shown_slots():
    r = load_rankings(_small(), shown="shown", judge="judge")
    assert isinstance(r, Rankings) and r.items == ("a", "b", "c")
    assert r.ranked.tolist() == [[1, 0, 2], [2, 0, 1]]
    assert r.shown.tolist() == [[1, 0, 2], [0, 2, 1]]
    assert r.judges == ("j1", "j2") and r.judge.tolist() == [0, 1]
    assert r.n_comparisons == 6 and r.first_shown_ranked_first().tolist() == [0.0, 1.0]
    with pytest.raises(ValueError):
        r.ranked[0, 0] = 5  # read-only


def test_the_user_frame_is_not_modified_and_round_trips():
    df = _small()
    before = df.copy()
    r = load_rankings(df, shown="shown", judge="judge")
    pd.testing.assert_frame_equal(df, before)
    again = load_rankings(r.to_frame(), shown="shown", judge="judge")
    assert again.ranked.tolist() == r.ranked.tolist()
    assert again.shown.tolist() == r.shown.tolist()


@pytest.mark.parametrize("suffix", ["csv", "parquet", "jsonl"])
def test_files_read_like_a_frame(tmp_path, suffix):
    df = _small()
    path = tmp_path / f"log.{suffix}"
    if suffix == "csv":
        df.to_csv(path, index=False)
    elif suffix == "parquet":
        df.to_parquet(path)
    else:
        df.to_json(path, orient="records", lines=True)
    r = load_rankings(path, shown="shown", judge="judge")
    assert r.ranked.tolist() == [[1, 0, 2], [2, 0, 1]] and r.source == path.name


def test_a_tie_in_rank_is_refused_naming_the_rows_or_the_list_dropped():
    df = _small()
    df.loc[4, "rank"] = 1  # list y: c and b both first
    with pytest.raises(DataError, match="tie in rank") as err:
        load_rankings(df)
    assert err.value.rows == [3, 4] and err.value.column == "rank"
    r = load_rankings(df, ties="drop")
    assert r.n_lists == 1 and r.n_ties_dropped == 1


@pytest.mark.parametrize(
    ("change", "match", "rows", "column"),
    [
        (lambda d: d.assign(item=["a", "a", "c", "c", "b", "a"]), "twice", [0, 1], "item"),
        (lambda d: d.assign(rank=[2, 1.5, 3, 1, 3, 2]), "whole number", [1], "rank"),
        (lambda d: d.assign(rank=[2, 1, None, 1, 3, 2]), "whole number", [2], "rank"),
        (lambda d: d.assign(item=["a", None, "c", "c", "b", "a"]), "missing", [1], "item"),
        (lambda d: d.assign(shown=[1, 1, 3, 1, 2, 3]), "same position", [0, 1], "shown"),
        (
            lambda d: d.assign(judge=["j1", "j2", "j1", "j2", "j2", "j2"]),
            "judge",
            [0, 1, 2],
            "judge",
        ),
        (lambda d: d.assign(list=["x", "x", "x", "y", "y", "z"]), "at least 2", [5], "list"),
    ],
)
def test_bad_rows_are_named(change, match, rows, column):
    with pytest.raises(DataError, match=match) as err:
        load_rankings(change(_small()), shown="shown", judge="judge")
    assert err.value.rows == rows and err.value.column == column


def test_missing_column_and_empty_log():
    with pytest.raises(DataError, match="column not found") as err:
        load_rankings(_small(), rank="position")
    assert err.value.column == "position"
    with pytest.raises(DataError, match="empty"):
        load_rankings(_small().iloc[:0])


def test_contexts_make_items_per_context():
    df = _small().assign(q=["q1"] * 3 + ["q2"] * 3)
    r = load_rankings(df, context="q")
    assert r.items == ("q1::a", "q1::b", "q1::c", "q2::a", "q2::b", "q2::c")
    assert r.item_context.tolist() == [0, 0, 0, 1, 1, 1]


def test_implied_pairs_as_comparisons():
    r = load_rankings(_small(), shown="shown")
    c = r.to_comparisons()
    assert c.n_comparisons == 6
    # shown order known: first = the item shown earlier, outcome says whether it won
    w, lo, _ = r.implied_pairs()
    won = np.where(c.outcome == 1.0, c.first, c.second)
    lost = np.where(c.outcome == 1.0, c.second, c.first)
    assert sorted(zip(won, lost, strict=True)) == sorted(zip(w, lo, strict=True))
    bt = bp.BradleyTerry().fit(load_rankings(_small()).to_comparisons())
    assert bt.strengths_.index.tolist() == ["a", "b", "c"]


def test_rankings_from_arrays_keeps_item_order():
    r = rankings_from_arrays(np.array([[2, 0], [0, 2]]), items=["p", "q", "r"])
    assert r.items == ("p", "q", "r") and r.ranked.tolist() == [[2, 0], [0, 2]]


# ------------------------------------------------------------------ Plackett–Luce


def test_pl_of_pairs_is_bradley_terry():
    ranked = np.array([[0, 1], [0, 1], [1, 0], [1, 2], [2, 1], [0, 2], [2, 0], [0, 2]])
    pl = pl_mm(ranked, 3).theta
    df = pd.DataFrame({"first": ranked[:, 0], "second": ranked[:, 1], "outcome": "first"})
    bt = bp.BradleyTerry().fit(bp.load_comparisons(df.astype({"first": str, "second": str})))
    np.testing.assert_allclose(pl, bt.strengths_.to_numpy(), atol=1e-8)


def test_pl_loglik_closed_form():
    # strengths log(3), 0, 0: P(0 > 1 > 2) = 3/5 · 1/2
    th = np.array([np.log(3.0), 0.0, 0.0])
    assert pl_loglik(th, np.array([[0, 1, 2]])) == pytest.approx(np.log(0.3))


@pytest.mark.parametrize("method", ["mm", "ilsr"])
def test_golden_400_lists_of_5_equal_choix_ilsr(method):
    """Must-show: 400 lists of 5 from 30 items drawn from PL; centred log-strengths equal
    ``choix.ilsr_rankings`` (stored in tests/data) within 1e-4."""
    data = load_rankings(DATA / "pl_400x5.csv", shown="shown")
    gold = pd.read_csv(DATA / "pl_400x5_choix.csv").set_index("item")
    est = PlackettLuce(method=method).fit(data).strengths_
    assert est.index.tolist() == gold.index.tolist()
    assert np.max(np.abs(est.to_numpy() - gold["choix_pl_400x5"].to_numpy())) < 1e-4
    assert abs(est.sum()) < 1e-9


def test_golden_against_choix_live():
    choix = pytest.importorskip("choix")
    data = load_rankings(DATA / "pl_400x5_first_bonus.csv", shown="shown")
    est = PlackettLuce(method="ilsr").fit(data).strengths_.to_numpy()
    ref = choix.ilsr_rankings(data.n_items, [tuple(x) for x in data.ranked], tol=1e-12)
    np.testing.assert_allclose(est, ref - ref.mean(), atol=1e-6)


def test_ridge_fits_a_disconnected_log_and_zero_ridge_refuses_it():
    df = pd.DataFrame({"list": [1, 1, 2, 2], "item": ["a", "b", "c", "d"], "rank": [1, 2, 1, 2]})
    with pytest.raises(DesignError):
        PlackettLuce().fit(load_rankings(df))
    est = PlackettLuce(ridge=0.1).fit(load_rankings(df)).strengths_
    assert np.all(np.isfinite(est)) and est["a"] > est["b"] and est["c"] > est["d"]
    with pytest.raises(ValueError, match="mm"):
        PlackettLuce(method="ilsr", ridge=0.1).fit(load_rankings(df))


def test_pl_rejects_a_comparison_log():
    with pytest.raises(TypeError, match="Rankings"):
        PlackettLuce().fit(bp.simulate_round_robin(4, random_seed=0).data)


# ------------------------------------------------------------------ command line


def _cli(capsys, args):
    from bayes_pairwise.cli import main

    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_fit_plackett_luce_equals_python(capsys):
    import json

    path = str(DATA / "pl_400x5.csv")
    rc, out, err = _cli(capsys, ["fit", path, "--model", "plackett_luce", "--json"])
    assert rc == 0 and "read as a ranking log" in err
    res = json.loads(out)
    gold = pd.read_csv(DATA / "pl_400x5_choix.csv").set_index("item")["choix_pl_400x5"]
    est = pd.Series(res["strengths"])[gold.index]
    assert np.max(np.abs(est - gold)) < 1e-4 and res["n_lists"] == 400


def test_cli_leaderboard_and_propose_on_a_ranking_log(capsys):
    import json

    path = str(DATA / "pl_400x5.csv")
    rc, out, _ = _cli(capsys, ["leaderboard", path, "--n-boot", "40", "--json"])
    assert rc == 0
    res = json.loads(out)
    top = PlackettLuce().fit(load_rankings(path)).strengths_.idxmax()
    assert res["model"] == "plackett_luce" and res["items"][0]["item"] == top
    # the same keys as a pairwise board's settings: what was resampled, and how many of them
    assert res["settings"]["resample"] == "list" and "resampling_unit" not in res["settings"]
    assert res["settings"]["n_units"] == load_rankings(path).n_lists == 400
    # --seed S draws from the leaderboard stream, as on a pairwise log (it was S itself here)
    from bayes_pairwise.crosscheck import seed_streams
    from bayes_pairwise.leaderboard import ranking_leaderboard

    rc, out, _ = _cli(capsys, ["leaderboard", path, "--n-boot", "40", "--seed", "3", "--json"])
    mine = ranking_leaderboard(
        load_rankings(path), n_boot=40, random_seed=seed_streams(3)["leaderboard"]
    ).table.set_index("item")
    for row in json.loads(out)["items"]:
        assert row["lower"] == pytest.approx(mine.loc[row["item"], "lower"], abs=1e-12)
    rc, out, _ = _cli(capsys, ["propose", path, "--lists", "2", "--k", "5", "--json"])
    assert rc == 0 and [len(x) for x in json.loads(out)["lists"]] == [5, 5]


def test_for_context_and_cli_propose_on_a_ranking_log_with_contexts(capsys, tmp_path):
    """A ranking log of two contexts: for_context keeps one context's lists with its items
    re-indexed (each list the same names in the same order); `propose` refuses the whole log
    and, with --context, gives propose_lists' lists on that context, by name."""
    import json

    from bayes_pairwise.strategies.policies import propose_lists

    df = pd.read_csv(DATA / "pl_400x5.csv")
    df["q"] = np.where(df["list"].str[1:].astype(int) < 200, "q0", "q1")
    log = load_rankings(df, context="q")
    one = log.for_context("q1")
    assert one.n_lists == 200 and one.contexts == ("q1",) and set(one.items) <= set(log.items)
    assert np.all(one.item_context == 0)
    mine = df[df["q"] == "q1"].sort_values(["list", "rank"])
    names = [
        [one.item_names[i] for i in row[:n]] for row, n in zip(one.ranked, one.length, strict=True)
    ]
    assert names == mine.groupby("list", sort=True)["item"].apply(list).tolist()
    with pytest.raises(KeyError, match="unknown context 'q9'"):
        log.for_context("q9")
    path = tmp_path / "ctx.csv"
    df.to_csv(path, index=False)
    args = ["propose", str(path), "--context-column", "q", "--lists", "2", "--k", "4"]
    rc, _, err = _cli(capsys, args)
    assert rc == 2 and "the log holds 2 contexts" in err and "--context NAME" in err
    rc, out, _ = _cli(capsys, [*args, "--context", "q1", "--json"])
    assert rc == 0
    want = propose_lists(one, 2, k=4, random_seed=0)
    by_name = dict(zip(one.items, one.item_names, strict=True))
    assert json.loads(out)["lists"] == [[by_name[i] for i in lst] for lst in want.lists]


def test_cli_ranking_log_errors_are_one_line(capsys, tmp_path):
    path = str(DATA / "pl_400x5.csv")
    rc, _, err = _cli(capsys, ["fit", path])
    assert rc == 2 and "ranking log" in err and "plackett_luce" in err
    bad = pd.read_csv(path)
    bad.loc[1, "rank"] = 1
    bad_path = tmp_path / "bad.csv"
    bad.to_csv(bad_path, index=False)
    rc, _, err = _cli(capsys, ["fit", str(bad_path), "--model", "plackett_luce"])
    assert rc == 2 and "tie in rank" in err and "rows 0, 1" in err
    # the rows as an editor shows them, as the comparison loader gives them (header line 1)
    assert "rows 0, 1: lines 2, 3 of bad.csv" in err
    with pytest.raises(DataError, match=r"rows 0, 1: lines 2, 3 of bad\.csv"):
        load_rankings(bad_path)
    with pytest.raises(DataError, match=r"rows 0, 1\)$"):  # a DataFrame has no lines
        load_rankings(bad)
    sim = tmp_path / "pairs.csv"
    pd.DataFrame({"first": ["a"], "second": ["b"], "outcome": ["first"]}).to_csv(sim, index=False)
    rc, _, err = _cli(capsys, ["fit", str(sim), "--model", "plackett_luce"])
    assert rc == 2 and "comparison log" in err
    rc, _, err = _cli(capsys, ["leaderboard", path, "--pool-judges"])  # not ignored
    assert rc == 2 and "--pool-judges do not apply" in err


def test_a_disconnected_ranking_log_names_its_groups():
    """Lists over {a, b, c} and over {x, y, z}, never one over both: the ridge sets their
    offsets, and the note names the groups (it said only "not strongly connected")."""
    import pandas as pd

    from bayes_pairwise.leaderboard import ranking_leaderboard

    rows = []
    for k in range(6):
        group = ("a", "b", "c") if k % 2 else ("x", "y", "z")
        order = group if k % 3 else group[::-1]
        rows += [(f"L{k}", item, r + 1) for r, item in enumerate(order)]
    df = pd.DataFrame(rows, columns=["list", "item", "rank"])
    lb = ranking_leaderboard(load_rankings(df), n_boot=20, random_seed=0)
    (note,) = [n for n in lb.notes if "ridge" in n]
    assert "disconnected (2 components: {a, b, c} | {x, y, z})" in note
    assert "come from the ridge's pull towards 0, not from the lists" in note


@pytest.mark.parametrize("command", ["estimate", "compare", "report", "plan-labels"])
def test_commands_that_read_comparison_logs_say_a_ranking_log_is_one(capsys, command):
    """``estimate``, ``compare``, ``report`` and ``plan-labels`` on a ranking log answered
    "column not found; name the first column: first='NAME'" — advice that cannot work on a
    log with one row per item per list. They now say what the file is and which commands read
    it; a ranking flag given to them is refused in the same words, before any file is read."""
    path = str(DATA / "pl_400x5.csv")
    extra = {
        "estimate": ["--method", "bt-mm"],
        "compare": ["--map"],
        "report": ["--map", "--out", "never.html"],
        "plan-labels": ["--budget", "3"],
    }[command]
    rc, _, err = _cli(capsys, [command, path, *extra])
    assert rc == 2 and "column not found" not in err
    assert (
        f"is a ranking log (one row per item per list: list, item and rank columns), and "
        f"{command} reads comparison logs (one row per verdict): rank it with leaderboard" in err
    )
    rc, _, err = _cli(capsys, [command, "/no/such/file.csv", *extra, "--item-column", "x"])
    assert rc == 2 and f"--item-column names a ranking log's columns, and {command} reads" in err
