"""Bring your own logs (issue 28): MT-Bench, AlpacaEval, Arena voters, pair lists, JSON arrays."""

from __future__ import annotations

import itertools
import json
import re

import pandas as pd
import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DataError
from bayes_pairwise.layouts import ALPACAEVAL, ARENA, MTBENCH

MT_ROWS = [
    # question_id, model_1, model_2, g1_winner, g2_winner, turn
    (81, "alpaca-13b", "gpt-3.5-turbo", "model_2", "model_2", 1),
    (81, "alpaca-13b", "vicuna-13b", "model_2", "model_1", 1),
    (82, "gpt-3.5-turbo", "vicuna-13b", "tie", "model_2", 2),
]


def _mt_records(rows=MT_ROWS):
    return [
        {
            "question_id": q,
            "model_1": m1,
            "model_2": m2,
            "g1_winner": g1,
            "g2_winner": g2,
            "judge": ["gpt-4", "pair-v2"],
            "g1_judgment": "[[B]]",
            "turn": t,
            "tstamp": 1687221000.5,
        }
        for q, m1, m2, g1, g2, t in rows
    ]


def _verdicts(data):
    names = data.item_names
    return [
        (names[f], names[s], float(o))
        for f, s, o in zip(data.first, data.second, data.outcome, strict=True)
    ]


def _write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_mtbench_jsonl_of_three_rows_is_six_verdicts(tmp_path):
    data = load_comparisons(
        _write_jsonl(tmp_path / "gpt-4_pair.jsonl", _mt_records()), ties="model"
    )
    assert data.n_comparisons == 6 and data.layout == MTBENCH
    assert data.judges == ("gpt-4",)
    assert data.contexts == ("81 turn 1", "82 turn 2")
    assert data.row.tolist() == [0, 0, 1, 1, 2, 2]
    got = _verdicts(data)
    # g1 shows model_1 first, g2 shows model_2 first; the winner names a model, not a position
    assert got == [
        ("alpaca-13b", "gpt-3.5-turbo", 0.0),
        ("gpt-3.5-turbo", "alpaca-13b", 1.0),
        ("alpaca-13b", "vicuna-13b", 0.0),
        ("vicuna-13b", "alpaca-13b", 0.0),
        ("gpt-3.5-turbo", "vicuna-13b", 0.5),
        ("vicuna-13b", "gpt-3.5-turbo", 1.0),
    ]


def test_mtbench_saved_as_csv_reads_the_judge_list_written_as_text(tmp_path):
    """pandas writes MT-Bench's judge list ["gpt-4", "pair-v2"] to a CSV cell as the text
    "['gpt-4', 'pair-v2']": it was taken whole as the judge's name (two templates, two judges)
    while the status line said "the first element". The same records read from JSONL and from
    CSV now give the same log."""
    import pandas as pd

    records = _mt_records()
    records[1]["judge"] = ["gpt-4", "pair-math-v1"]
    path = tmp_path / "mt.csv"
    pd.DataFrame(records).to_csv(path, index=False)
    assert "\"['gpt-4', 'pair-v2']\"" in path.read_text()
    from_csv = load_comparisons(path, ties="model")
    from_jsonl = load_comparisons(_write_jsonl(tmp_path / "mt.jsonl", records), ties="model")
    assert from_csv.judges == from_jsonl.judges == ("gpt-4",)
    assert _verdicts(from_csv) == _verdicts(from_jsonl)
    assert "judge: the first element of column 'judge' ('gpt-4')" in from_csv.recognised


def test_mtbench_error_verdicts_are_reported_and_left_out(tmp_path):
    rows = [*MT_ROWS[:2], (82, "gpt-3.5-turbo", "vicuna-13b", "error", "model_2", 2)]
    data = load_comparisons(_write_jsonl(tmp_path / "p.jsonl", _mt_records(rows)))
    assert data.n_comparisons == 5
    assert "1 verdict 'error' (unparsed) left out" in data.recognised[0]
    assert data.row.tolist() == [0, 0, 1, 1, 2]


def test_mtbench_cli_no_flags_announces_the_layout(tmp_path, capsys):
    path = _write_jsonl(tmp_path / "gpt-4_pair.jsonl", _mt_records())
    assert main(["estimate", str(path), "--method", "moments", "--json"]) == 0
    out = capsys.readouterr()
    assert "read as MT-Bench pairwise judgments: 2 verdicts per row" in out.err
    res = json.loads(out.out)
    assert res["settings"]["data"]["n_comparisons"] == 6


def test_mtbench_null_winner_is_no_verdict_and_is_counted(tmp_path):
    """A null g2_winner read as "unknown winner(s) ['None']": it is no verdict, left out and
    counted like MT-Bench's own 'error'."""
    recs = _mt_records()
    recs[1]["g2_winner"] = None
    data = load_comparisons(_write_jsonl(tmp_path / "p.jsonl", recs), ties="model")
    assert data.n_comparisons == 5 and data.row.tolist() == [0, 0, 1, 2, 2]
    assert "1 empty winner cell (null) left out" in data.recognised[0]


def test_mtbench_unknown_winner_names_the_input_row(tmp_path):
    rows = [*MT_ROWS[:2], (82, "gpt-3.5-turbo", "vicuna-13b", "A", "model_2", 2)]
    with pytest.raises(DataError, match=r"unknown winner.*rows? 2"):
        load_comparisons(_write_jsonl(tmp_path / "p.jsonl", _mt_records(rows)))


def _alpaca_records():
    gens = ["gpt4", "claude", "llama"]
    strength = {"gpt4": 2, "claude": 1, "llama": 0}
    out = []
    for rep in range(4):
        for a, b in itertools.permutations(gens, 2):
            if rep == 3 and {a, b} == {"claude", "llama"}:
                pref = 1.5
            else:
                pref = 1.0 if strength[a] > strength[b] else 2.0
            out.append(
                {
                    "instruction": f"q{rep}",
                    "output_1": "…",
                    "generator_1": a,
                    "output_2": "…",
                    "generator_2": b,
                    "annotator": "alpaca_eval_gpt4",
                    "preference": pref,
                }
            )
    return out


def test_alpacaeval_json_array_reads_preferences(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(_alpaca_records(), indent=1))
    data = load_comparisons(path, ties="model")
    assert data.layout == ALPACAEVAL and data.n_comparisons == 24 and data.n_ties == 2
    assert data.judges == ("alpaca_eval_gpt4",)
    assert "NOT recorded" in data.source
    assert any("does not record which output" in line for line in data.recognised)


def test_errors_in_a_known_layout_name_the_files_columns(tmp_path):
    """A missing preference said "missing value (column 'outcome', …)" and a missing model
    "(column 'first', …)": the package's own column names after the reshape, not the file's."""
    recs = _alpaca_records()
    recs[3]["preference"] = None
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(recs))
    with pytest.raises(DataError) as exc:
        load_comparisons(path)
    assert exc.value.column == "preference" and exc.value.rows == [3]
    recs = _mt_records()
    recs[1]["model_1"] = None
    with pytest.raises(DataError) as exc:
        load_comparisons(_write_jsonl(tmp_path / "p.jsonl", recs))
    assert exc.value.column == "model_1/model_2" and exc.value.rows == [1]


def test_alpacaeval_weighted_preferences_are_not_guessed_into_verdicts(tmp_path):
    """AlpacaEval 2's weighted annotator writes 1 + P(output 2 is better), e.g. 1.7315: refused
    with the row and a way to make verdicts of them, not 'unknown outcome label'."""
    recs = _alpaca_records()
    recs[5]["preference"] = 1.7315
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(recs))
    with pytest.raises(DataError, match=r"preference 1.7315 is not a verdict") as exc:
        load_comparisons(path)
    assert exc.value.rows == [5] and "round to the nearest of 1, 1.5 and 2" in str(exc.value)


def test_alpacaeval_leaderboard_with_no_flags(tmp_path, capsys):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(_alpaca_records()))
    assert main(["leaderboard", str(path), "--n-boot", "50", "--json"]) == 0
    out = capsys.readouterr()
    board = json.loads(out.out)
    items = [row["item"] for row in board["items"]]
    assert items == ["gpt4", "claude", "llama"]
    assert "read as AlpacaEval annotations" in out.err
    assert "2 tie verdict(s)" in out.err


def test_arena_voter_column_is_not_a_judge_unless_named(tmp_path, capsys):
    df = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "z"],
            "model_b": ["y", "x", "z", "y"],
            "winner": ["model_a", "model_b", "model_b", "model_a"],
            "judge": ["voter1", "voter2", "voter3", "voter1"],
        }
    )
    data = load_comparisons(df)
    assert data.layout == ARENA and data.n_judges == 1
    assert any("3 voters) not read as the judge" in line for line in data.recognised)
    assert load_comparisons(df, judge="judge").n_judges == 3
    path = tmp_path / "battles.csv"
    df.to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--n-boot", "20"]) == 0
    assert "not read as the judge" in capsys.readouterr().err


def test_pair_level_records_with_one_verdict_per_order(tmp_path):
    recs = [
        {"first": "a", "second": "b", "outcome": ["a", "first"]},  # a first: a; b first: b
        {"first": "b", "second": "c", "outcome": ["tie", "c"]},
    ]
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(recs))
    data = load_comparisons(path, ties="model")
    got = _verdicts(data)
    assert got == [("a", "b", 1.0), ("b", "a", 1.0), ("b", "c", 0.5), ("c", "b", 1.0)]
    assert data.row.tolist() == [0, 0, 1, 1]
    arena = pd.DataFrame(
        {"model_a": ["a"], "model_b": ["b"], "winner": [["model_a", "model_a"]]}
    )  # 'model_a' names the column: a won both orders
    assert load_comparisons(arena).outcome.tolist() == [1.0, 0.0]
    # the same records saved as CSV (pandas writes each list as text): the same verdicts
    csv_path = tmp_path / "pairs.csv"
    pd.DataFrame(recs).to_csv(csv_path, index=False)
    assert "['a', 'first']" in csv_path.read_text()
    assert _verdicts(load_comparisons(csv_path, ties="model")) == got


def test_a_list_written_as_text_is_parsed_once_per_cell(tmp_path, monkeypatch):
    """Deciding that a column holds pair lists and reading them used to parse each CSV cell
    twice (``ast.literal_eval`` per cell, once to recognise the layout, once to read it)."""
    import bayes_pairwise.layouts as layouts

    recs = [{"first": "a", "second": "b", "outcome": ["a", "first"]}] * 3 + [
        {"first": "b", "second": "c", "outcome": ["tie", "c"]}
    ]
    csv_path = tmp_path / "pairs.csv"
    pd.DataFrame(recs).to_csv(csv_path, index=False)
    seen = []
    parse = layouts._listed_text
    monkeypatch.setattr(layouts, "_listed_text", lambda v: seen.append(v) or parse(v))
    data = load_comparisons(csv_path, ties="model")
    assert len(data.outcome) == 8
    assert sorted(seen) == sorted(str(r["outcome"]) for r in recs)


def test_json_array_in_a_jsonl_file(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps([{"first": "a", "second": "b", "outcome": "first"}] * 2))
    assert load_comparisons(path).n_comparisons == 2


@pytest.mark.parametrize("keys", ["1.0=first,2.0=second", "1=first,2=second"])
@pytest.mark.parametrize("values", [[1.0, 2.0], [1, 2], ["1", "2"], ["1.0", "2.0"]])
def test_outcome_map_keys_match_values_as_read(tmp_path, capsys, keys, values):
    path = tmp_path / "log.json"
    path.write_text(
        json.dumps(
            [
                {"first": "a", "second": "b", "outcome": values[0]},
                {"first": "b", "second": "a", "outcome": values[1]},
            ]
        )
    )
    assert main(["estimate", str(path), "--method", "scom", "--outcome-map", keys]) == 0
    assert "eps" in capsys.readouterr().out


def test_outcome_map_error_says_how_values_were_read(tmp_path, capsys):
    path = tmp_path / "log.json"
    path.write_text(json.dumps([{"first": "a", "second": "b", "outcome": 3.0}]))
    assert main(["estimate", str(path), "--method", "scom", "--outcome-map", "1=first"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    # how the values were read (JSON numbers are read as their literal text: 3.0 stays "3.0")
    assert re.search(r"values read as (numbers|text): 3", err) and "'1.0' = 1" in err


def test_rows_written_twice_with_one_repeat_number_are_said(tmp_path):
    """Two rows with the same ordered pair, judge and repeat number were read as two verdicts
    without a word: a repeat number names one verdict. Both are kept, and a DesignWarning names
    the second row; different repeat numbers (or a pair in the other order) are not warned."""
    import pandas as pd

    from bayes_pairwise.errors import DesignWarning

    df = pd.DataFrame(
        {
            "first": ["a", "a", "b", "a"],
            "second": ["b", "b", "a", "b"],
            "outcome": ["first", "second", "second", "first"],
            "repeat": [1, 1, 1, 2],
        }
    )
    with pytest.warns(DesignWarning, match=r"1 row\(s\) repeat .* 'repeat' number .*rows 1\)"):
        data = load_comparisons(df, repeat="repeat")
    assert data.n_comparisons == 4
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        load_comparisons(df.drop(index=1), repeat="repeat")


def test_jsonl_errors_give_the_line_as_an_editor_shows_it(tmp_path):
    """A JSON-lines file's errors named the record's row only; with a blank line above, row 2
    is line 4 of the file."""
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"first": "a", "second": "b", "outcome": "first"}\n\n'
        '{"first": "a", "second": "c", "outcome": "tie"}\n'
        '{"first": "b", "outcome": "first"}\n'
    )
    with pytest.raises(DataError) as exc:
        load_comparisons(path)
    assert exc.value.rows == [2] and exc.value.lines == [4] and exc.value.column == "second"
    path.write_text('{"first": "a", "second": "b", "outcome": "first"}\n\n{bad\n')
    with pytest.raises(DataError, match="invalid JSON") as exc:
        load_comparisons(path)
    assert exc.value.rows == [1] and exc.value.lines == [3]


def test_errors_on_a_filtered_dataframe_give_its_index_labels():
    """A DataFrame filtered or re-indexed: "row 1" is a position, not ``df.loc[1]``. The error
    adds the index labels; a frame indexed 0 … n − 1 reads as before."""
    import pandas as pd

    df = pd.DataFrame(
        {"first": ["a", "b", "c"], "second": ["b", None, "a"], "outcome": ["first"] * 3},
        index=[100, 101, 102],
    )
    with pytest.raises(DataError, match=r"missing value \(index label 101\)") as exc:
        load_comparisons(df)
    assert exc.value.rows == [1] and exc.value.column == "second"
    with pytest.raises(DataError) as exc:
        load_comparisons(df.reset_index(drop=True))
    assert "index label" not in str(exc.value)
