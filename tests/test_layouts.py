"""Recognised layouts: one rule in ``load_comparisons``, the same for Python and the CLI.

Issue 9 item 4: a ``winner`` column and Chatbot Arena's ``model_a``/``model_b``/``winner`` are
read without flags, the ``judge``/``context``/``repeat`` columns are used by name in Python as in
the CLI (Python used to merge the judges silently), every such choice is recorded and printed,
and a missing column's error names the keyword and flag to pass. Later: evalica's
``left``/``right``/``winner`` (its llmfao data) is read the same way.
"""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise.data as data_module
from bayes_pairwise.cli import main
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DataError, DesignWarning
from bayes_pairwise.layouts import reshape

ARENA_ROWS = [
    # model_a, model_b, winner
    ("gpt4", "claude", "model_a"),
    ("claude", "gpt4", "model_b"),
    ("gpt4", "llama", "tie"),
    ("llama", "claude", "tie (bothbad)"),
    ("llama", "gpt4", "model_a"),
]


def _verdicts(data) -> list[tuple]:
    """(judge, first, second, outcome) of every verdict, in row order."""
    return [
        (data.judges[j], data.items[f], data.items[s], o)
        for j, f, s, o in zip(data.judge, data.first, data.second, data.outcome, strict=True)
    ]


def _arena() -> pd.DataFrame:
    return pd.DataFrame(ARENA_ROWS, columns=["model_a", "model_b", "winner"])


def _check_arena(data) -> None:
    assert data.outcome.tolist() == [1.0, 0.0, 0.5, 0.5, 1.0]
    firsts = [data.items[i] for i in data.first]
    seconds = [data.items[i] for i in data.second]
    assert firsts == [r[0] for r in ARENA_ROWS]
    assert seconds == [r[1] for r in ARENA_ROWS]
    assert data.n_ties == 2 and data.n_judges == 1
    assert len(data.recognised) == 2 and "Chatbot Arena" in data.recognised[0]
    assert "does not record which answer" in data.recognised[1]


def test_arena_dataframe_loads_with_ties_and_positions():
    data = load_comparisons(_arena(), ties="model")
    _check_arena(data)
    # the winner of every non-tie row, read back, is the model named by model_a / model_b
    won = [
        data.items[f] if o == 1.0 else data.items[s]
        for f, s, o in zip(data.first, data.second, data.outcome, strict=True)
        if o != 0.5
    ]
    assert won == ["gpt4", "gpt4", "llama"]
    dropped = load_comparisons(_arena(), ties="drop")
    assert dropped.n_comparisons == 3 and dropped.n_ties_dropped == 2


def test_arena_csv_file_loads_the_same(tmp_path):
    path = tmp_path / "battles.csv"
    _arena().to_csv(path, index=False)
    data = load_comparisons(path, ties="model")
    _check_arena(data)
    assert data.settings()["recognised"] == list(data.recognised)
    with pytest.raises(DataError, match="2 ties found"):
        load_comparisons(path, ties="error")  # ties="error" still refuses the ties
    assert load_comparisons(path).tie_policy == "model"  # the default: ties are data


def test_arena_tie_variants_and_case():
    df = _arena()
    df.loc[2, "winner"] = "Tie"
    df.loc[3, "winner"] = "tie (both bad)"
    df.loc[0, "winner"] = "MODEL_A"
    data = load_comparisons(df, ties="half")
    assert data.outcome.tolist() == [1.0, 0.0, 0.5, 0.5, 1.0]


def test_user_outcome_map_beats_the_arena_map():
    df = _arena().iloc[[0, 1, 4]]  # no ties
    flipped = {"model_a": "second", "model_b": "first"}
    data = load_comparisons(df, outcome_map=flipped)
    assert data.outcome.tolist() == [0.0, 1.0, 0.0]
    assert "outcome_map given" in data.recognised[0]
    # the Arena map itself is not merged in: a tie the user's map does not name is unknown
    with pytest.raises(DataError, match="unknown outcome label"):
        load_comparisons(_arena(), outcome_map=flipped, ties="model")


def test_winner_column_is_the_outcome():
    df = pd.DataFrame(
        {"first": ["a", "b", "c"], "second": ["b", "c", "a"], "winner": ["a", "second", "c"]}
    )
    data = load_comparisons(df)
    assert data.outcome.tolist() == [1.0, 0.0, 1.0]
    note = "column 'winner' read as the outcome (outcome='winner'; no 'outcome')"
    assert data.recognised == (note,)


def _judged_log() -> pd.DataFrame:
    """Two judges, every ordered pair of four items, both orders; judge B always says first."""
    rng = np.random.default_rng(11)
    rows = []
    for judge in ("A", "B"):
        for f, s in itertools.permutations(["w", "x", "y", "z"], 2):
            for rep in range(2):
                out = "first" if judge == "B" else str(rng.choice(["first", "second"]))
                rows.append((f, s, out, judge, rep))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "judge", "repeat"])


def _capture_cli_data(monkeypatch, argv):
    """The Comparisons the CLI loaded (load_comparisons wrapped), and the CLI's stderr."""
    seen = []
    real = data_module.load_comparisons

    def spy(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(data_module, "load_comparisons", spy)
    rc = main(argv)
    assert rc == 0
    assert len(seen) == 1
    return seen[0]


def _same(a, b) -> None:
    assert a.items == b.items and a.judges == b.judges and a.contexts == b.contexts
    for name in ("first", "second", "outcome", "judge", "repeat", "row"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.recognised == b.recognised and a.source == b.source


def test_python_and_cli_load_the_same_csv_the_same_way(tmp_path, monkeypatch, capsys):
    df = _judged_log()
    path = tmp_path / "judged.csv"
    df.to_csv(path, index=False)
    py = load_comparisons(path)
    cli = _capture_cli_data(monkeypatch, ["estimate", str(path), "--method", "scom", "--json"])
    err = capsys.readouterr().err
    _same(py, cli)
    assert py.n_judges == cli.n_judges == 2 and py.judges == ("A", "B")
    assert py.has_judge_column and int(py.repeat.max()) == 1
    # judge B's verdicts are all first-position wins: nothing merged with judge A
    assert py.outcome[py.judge == 1].tolist() == [1.0] * 24
    assert py.recognised == (
        "column 'judge' read as the judge (judge='judge')",
        "column 'repeat' read as the repeat (repeat='repeat')",
    )
    for line in py.recognised:
        assert line in err


def test_cli_flags_still_override_the_recognised_columns(tmp_path, monkeypatch, capsys):
    df = _judged_log()
    df["rater"] = np.where(df["judge"] == "A", "r1", "r2")
    df["judge"] = "same"  # the column named judge is not the one asked for
    path = tmp_path / "raters.csv"
    df.to_csv(path, index=False)
    argv = ["estimate", str(path), "--method", "scom", "--judge-column", "rater", "--json"]
    cli = _capture_cli_data(monkeypatch, argv)
    assert cli.judges == ("r1", "r2")
    assert cli.recognised == ("column 'repeat' read as the repeat (repeat='repeat')",)
    py = load_comparisons(path, judge="rater")
    _same(py, cli)
    capsys.readouterr()


def test_detect_false_restores_the_old_python_reading(tmp_path):
    df = _judged_log()
    old = load_comparisons(df, detect=False)
    assert old.n_judges == 1 and old.judges == ("judge",) and not old.has_judge_column
    assert old.recognised == () and "recognised" not in old.settings()
    assert not old.repeat.any()
    new = load_comparisons(df)
    assert new.n_judges == 2 and new.n_comparisons == old.n_comparisons == 48
    np.testing.assert_array_equal(new.outcome, old.outcome)
    with pytest.raises(DataError, match="column not found"):
        load_comparisons(_arena(), detect=False)


def test_recognised_context_and_subsets_keep_the_record():
    df = pd.DataFrame(
        {
            "first": ["a", "b", "a"],
            "second": ["b", "a", "b"],
            "outcome": ["first", "first", "second"],
            "context": ["q1", "q1", "q2"],
            "judge": ["j1", "j2", "j1"],
        }
    )
    data = load_comparisons(df)
    assert data.items == ("q1::a", "q1::b", "q2::a", "q2::b")
    assert data.recognised[1] == "column 'context' read as the context (context='context')"
    assert data.for_judge("j1").recognised == data.recognised


def test_a_column_used_for_another_role_is_not_read_again():
    df = _judged_log()
    data = load_comparisons(df, covariates=["repeat"])
    assert not data.repeat.any() and data.covariates["repeat"].max() == 1.0
    assert all("repeat" not in line for line in data.recognised)


def test_missing_column_error_names_the_keyword_and_the_flag():
    df = pd.DataFrame({"first": ["a"], "second": ["b"], "result": ["a"]})
    with pytest.raises(DataError, match=r"^column not found") as exc:
        load_comparisons(df)
    msg = str(exc.value)
    assert "a column named 'result' exists: pass outcome='result' (CLI --outcome result)" in msg
    assert exc.value.column == "outcome"
    # detect=False: the winner column is not read, and the message says how to read it
    df = df.rename(columns={"result": "winner"})
    with pytest.raises(DataError, match="pass outcome='winner' \\(CLI --outcome winner\\)"):
        load_comparisons(df, detect=False)
    # a different case of the name asked for
    with pytest.raises(DataError, match="pass judge='Judge' \\(CLI --judge-column Judge\\)"):
        load_comparisons(df.assign(Judge="j"), judge="judge")
    # a column that names the role with a prefix or suffix (judging_the_judges' model_first)
    with pytest.raises(DataError, match="pass first='model_first' \\(CLI --first model_first\\)"):
        load_comparisons(pd.DataFrame({"model_first": ["a"], "second": ["b"], "outcome": ["a"]}))
    # nothing alike: the keyword and the flag, with a placeholder
    with pytest.raises(DataError, match="name the second column: second='NAME' \\(CLI --second"):
        load_comparisons(pd.DataFrame({"first": ["a"], "other": ["b"], "outcome": ["a"]}))
    # two verdict columns, one per order: naming one would read half the verdicts, so the
    # message does not say "pass outcome='outcome_ab'" (it did) but how to read both
    wide = {"first": ["a"], "second": ["b"], "outcome_ab": ["first"], "outcome_ba": ["second"]}
    with pytest.raises(DataError) as exc:
        load_comparisons(pd.DataFrame(wide))
    msg = str(exc.value)
    assert "columns 'outcome_ab' and 'outcome_ba' look like verdicts" in msg
    assert "one row per verdict" in msg and "pass outcome='outcome_ab'" not in msg
    # a header with spaces after the commas: the spaced name is the one to pass
    with pytest.raises(DataError, match="a column named ' second' exists: pass second=' second'"):
        load_comparisons(pd.DataFrame({"first": ["a"], " second": ["b"], " outcome": ["a"]}))


def test_a_file_with_another_separator_is_told_so(tmp_path):
    """A ';'- or tab-separated file named .csv reads as one column whose name holds the header:
    "column not found … name the first column" did not say why."""
    for sep, said in ((";", "';'"), ("\t", "a tab")):
        path = tmp_path / "log.csv"
        path.write_text(sep.join(["first", "second", "outcome"]) + "\n" + sep.join("abz") + "\n")
        with pytest.raises(DataError, match=f"the file seems to separate values with {said}"):
            load_comparisons(path)


def test_cli_missing_column_is_one_line_naming_the_flag(tmp_path, capsys):
    path = tmp_path / "log.csv"
    pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"], "verdict": ["a", "a"]}).to_csv(
        path, index=False
    )
    rc = main(["estimate", str(path), "--method", "scom"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert "column not found" in err and "--outcome verdict" in err
    assert len(err.splitlines()) == 1


# ------------------------------------------------------------ evalica's left / right / winner
LEFT_RIGHT_ROWS = [
    # left (shown first), right, winner
    ("gpt4", "claude", "left"),
    ("claude", "gpt4", "Right"),
    ("gpt4", "llama", "tie"),
    ("llama", "claude", "draw"),
    ("llama", "gpt4", "left"),
]


def _left_right(rows=LEFT_RIGHT_ROWS, **extra) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(**extra)


def test_evalica_left_right_winner_is_read_with_the_order_recorded():
    """evalica's layout (and its llmfao data) is read without flags: left is the position
    shown first, the winner a side, draw and tie* are ties; the same verdicts as the explicit
    columns and outcome map, and (unlike Arena's) the order counts as recorded."""
    data = load_comparisons(_left_right())
    assert data.recognised[0].startswith("columns 'left'/'right'/'winner' read as evalica's")
    explicit = load_comparisons(
        _left_right(),
        first="left",
        second="right",
        outcome="winner",
        outcome_map={"left": "first", "Right": "second", "tie": "tie", "draw": "tie"},
    )
    assert data.order_recorded and explicit.order_recorded
    for name in ("first", "second", "outcome"):
        assert np.array_equal(getattr(data, name), getattr(explicit, name))
    assert [data.items[k] for k in data.first] == [r[0] for r in LEFT_RIGHT_ROWS]
    assert data.outcome.tolist() == [1.0, 0.0, 0.5, 0.5, 1.0]  # first won, second won, ties


def test_evalica_layout_refuses_an_ambiguous_winner_and_stays_off_for_other_winners():
    rows = [*LEFT_RIGHT_ROWS, ("left", "gpt4", "left")]  # a model named "left" won?
    with pytest.raises(DataError, match="ambiguous winner 'left'") as exc:
        load_comparisons(_left_right(rows))
    assert exc.value.rows[0] == 5 and "--outcome-map left=first,right=second" in str(exc.value)
    # a winner that names a model, not a side: not this layout, and the error says what to pass
    named = [(a, b, a) for a, b, _ in LEFT_RIGHT_ROWS]
    with pytest.raises(DataError, match="pass first='left' \\(CLI --first left\\)"):
        load_comparisons(_left_right(named))


def test_the_llmfao_file_reads_as_the_bundled_data_set():
    """The raw llmfao file with no column flags but its judge and context gives the bundled
    data set's verdicts (the data set's reader maps left → first by hand)."""
    from importlib.resources import files

    from bayes_pairwise import datasets

    path = files("bayes_pairwise.datasets") / "data" / "llmfao" / "llmfao.csv.gz"
    raw = load_comparisons(str(path), judge="worker", context="prompt")
    bundled = datasets.load("llmfao")
    assert raw.n_comparisons == bundled.n_comparisons == 8931

    def rows(d):
        return sorted(
            zip(
                (d.items[k].split("::")[-1] for k in d.first),
                (d.items[k].split("::")[-1] for k in d.second),
                d.outcome.tolist(),
                strict=True,
            )
        )

    assert rows(raw) == rows(bundled)


# ------------------------------------------- Chatbot Arena battles, one winner column per judge
def test_arena_battles_with_a_winner_column_per_judge_are_one_verdict_per_judge():
    """model_a / model_b / winner_<judge> (prediction-powered ranking's layout): one verdict per
    battle and judge, the judge named by the column; an empty cell is no verdict, left out and
    counted; the order is not recorded; error rows are the battles' rows."""
    df = pd.DataFrame(
        {
            "model_a": ["gpt4", "claude", "llama"],
            "model_b": ["claude", "llama", "gpt4"],
            "winner_human": ["model_a", "tie (bothbad)", "model_b"],
            "winner_gpt-4": ["model_a", None, "Model_A"],
        }
    )
    data = load_comparisons(df)
    assert data.recognised[0].startswith(
        "read as Chatbot Arena battles, one winner column per judge"
    )
    assert "1 empty winner cell(s) left out (no verdict): gpt-4 1" in data.recognised
    assert not data.order_recorded and data.n_comparisons == 5
    assert sorted(data.judges) == ["gpt-4", "human"]
    got = _verdicts(data)
    assert got == [
        ("human", "gpt4", "claude", 1.0),
        ("gpt-4", "gpt4", "claude", 1.0),
        ("human", "claude", "llama", 0.5),
        ("human", "llama", "gpt4", 0.0),
        ("gpt-4", "llama", "gpt4", 1.0),
    ]
    assert data.row.tolist() == [0, 0, 1, 2, 2]
    bad = df.assign(**{"winner_gpt-4": ["model_a", "x", "model_b"]})
    with pytest.raises(DataError, match="unknown outcome label") as exc:
        load_comparisons(bad)
    assert exc.value.rows == [1]  # the battle's row, not the verdict's
    ambiguous = df.assign(model_a=["model_b", "claude", "llama"])
    ambiguous["winner_human"] = ["model_b", "tie", "model_b"]
    with pytest.raises(DataError, match="ambiguous winner 'model_b'") as exc:
        load_comparisons(ambiguous)
    assert exc.value.rows == [0] and exc.value.column == "winner_human"


def test_an_input_column_named_like_a_column_the_layout_makes_is_kept_renamed():
    """A reshaping layout makes its own first/second/outcome (and judge, context) columns; an
    input column of the same name that the layout does not read used to overwrite the made one
    (an input 'judge' column replaced the judges named by the winner_<judge> columns) or be
    dropped in silence. It is kept as input_<name>, and the reading notes say so."""
    df = pd.DataFrame(
        {
            "model_a": ["gpt4", "claude"],
            "model_b": ["claude", "llama"],
            "winner_human": ["model_a", "model_b"],
            "winner_gpt-4": ["model_b", "model_b"],
            "judge": ["batch-1", "batch-2"],
        }
    )
    data = load_comparisons(df)
    assert sorted(data.judges) == ["gpt-4", "human"]
    assert [v[0] for v in _verdicts(data)] == ["human", "gpt-4", "human", "gpt-4"]
    note = "the input's column 'judge' is kept as 'input_judge': this layout makes its own 'judge'"
    assert any(n.startswith(note) for n in data.recognised)
    reshaped = reshape(df)
    assert reshaped.frame["input_judge"].tolist() == ["batch-1", "batch-1", "batch-2", "batch-2"]
    records = pd.DataFrame(_arena_hard_records()).assign(context=["a", "b", "c"])
    hard = reshape(records)
    assert hard.frame["context"].tolist() == ["q1", "q1", "q1", "q2", "q2"]
    assert hard.frame["input_context"].tolist() == ["a", "a", "b", "c", "c"]
    assert any(n.startswith("the input's column 'context' is kept as 'input") for n in hard.notes)


def test_the_arena_judges_file_reads_as_the_bundled_data_set():
    from importlib.resources import files

    from bayes_pairwise import datasets

    path = files("bayes_pairwise.datasets") / "data" / "chatbot_arena"
    (name,) = [p.name for p in path.iterdir() if p.name.endswith(".csv.gz")]
    raw = load_comparisons(str(path / name))
    bundled = datasets.load("chatbot_arena")
    assert raw.n_comparisons == bundled.n_comparisons == 107_676

    assert sorted(_verdicts(raw)) == sorted(_verdicts(bundled))


def test_an_outcome_in_a_position_code_gets_the_outcome_map_that_reads_it():
    """A / B / C (MT-Bench's, judging_the_judges') or 1 / 2 / 3 (PRD's) are not guessed: the
    error names the map that would read them as positions, as a condition, and that map reads
    them (A first, B second, C a tie). Codes that are not all position codes get no map."""
    df = pd.DataFrame(
        {"first": ["x", "y", "x"], "second": ["y", "x", "z"], "verdict": ["A", "C", "B"]}
    )
    with pytest.raises(DataError) as exc:
        load_comparisons(df, outcome="verdict")
    msg = str(exc.value)
    assert "if 'A' means the text shown first, 'B' the second and 'C' a tie" in msg
    assert "(CLI --outcome-map A=first,B=second,C=tie)" in msg
    read = load_comparisons(
        df, outcome="verdict", outcome_map={"A": "first", "B": "second", "C": "tie"}
    )
    assert read.outcome.tolist() == [1.0, 0.5, 0.0]
    numbers = df.assign(verdict=[1, 2, 1])
    with pytest.raises(DataError, match="--outcome-map 1=first,2=second\\)"):
        load_comparisons(numbers, outcome="verdict")
    with pytest.raises(DataError) as exc:
        load_comparisons(df.assign(verdict=["A", "B", "D"]), outcome="verdict")
    assert "outcome-map" not in str(exc.value)


def test_a_float_column_on_the_package_s_own_scale_gets_its_map(tmp_path):
    """PRD's example_q1_gpt4_long.csv has p_first 1.0 / 0.0 / 0.5 (the package's own scale:
    1 a win for the first text, ½ a tie). Read as floats the labels are '1.0', '0.0', '0.5',
    which no position code matched: the error gave no map. It now names the map, whose
    verdicts are those of the log's 1 / 2 / 3 codes."""
    log = tmp_path / "q1.csv"
    pd.DataFrame(
        {
            "first": ["a", "b", "a", "c"],
            "second": ["b", "a", "c", "a"],
            "verdict": [1, 2, 3, 1],
            "p_first": [1.0, 0.0, 0.5, 1.0],
        }
    ).to_csv(log, index=False)
    with pytest.raises(DataError) as exc:
        load_comparisons(log, outcome="p_first")
    msg = str(exc.value)
    assert "if '1.0' means the text shown first, '0.0' the second and '0.5' a tie" in msg
    assert "(CLI --outcome-map 1.0=first,0.0=second,0.5=tie)" in msg
    by_p = load_comparisons(
        log, outcome="p_first", outcome_map={"1.0": "first", "0.0": "second", "0.5": "tie"}
    )
    by_code = load_comparisons(
        log, outcome="verdict", outcome_map={"1": "first", "2": "second", "3": "tie"}
    )
    assert by_p.outcome.tolist() == by_code.outcome.tolist() == [1.0, 0.0, 0.5, 1.0]


# ------------------------------- Position-Bias-Analyzer's per-order verdicts coded A / B / C
JTJ = Path(__file__).parents[1].parent / "shared" / "data" / "judging_the_judges"


def _coded(**extra) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "benchmark": ["MTBench", "MTBench", "MTBench", "DevBench"],
            "judge": ["gpt-4", "gpt-4", "gemini", "gemini"],
            "question_id": [81, 81, 81, "uml-1"],
            "model_first": ["claude", "vicuna", "claude", "human"],
            "model_second": ["vicuna", "claude", "vicuna", "codellama"],
            "verdict": ["A", " b", "C", None],
            "repetition": [1, 1, 2, 1],
        }
    ).assign(**extra)


def _read_coded_by_flags(source, b_code: str = "B"):
    """The A/B/C log read with the column flags and the outcome map, no layout."""
    return load_comparisons(
        source,
        first="model_first",
        second="model_second",
        outcome="verdict",
        outcome_map={"A": "first", b_code: "second", "C": "tie"},
        judge="judge",
    )


def test_position_coded_verdicts_are_read_without_flags():
    """model_first / model_second / verdict A-B-C (judging the judges' files): A is the answer
    shown first, B the second, C a tie; an empty verdict is left out and counted per judge; the
    context is the benchmark and the question; the other columns stay with each verdict."""
    df = _coded()
    before = df.copy()
    data = load_comparisons(df)
    pd.testing.assert_frame_equal(df, before)  # the user's frame is not modified
    assert data.recognised[0].startswith("read as per-order verdicts coded A/B/C")
    assert "3 verdicts from 4 rows" in data.recognised[0]
    assert "1 empty verdict(s) left out (the judge's answer held no code): gemini 1" in (
        data.recognised
    )
    assert data.order_recorded and data.n_ties == 1
    got = _verdicts(data)
    assert got == [
        ("gpt-4", "MTBench/81::claude", "MTBench/81::vicuna", 1.0),
        ("gpt-4", "MTBench/81::vicuna", "MTBench/81::claude", 0.0),
        ("gemini", "MTBench/81::claude", "MTBench/81::vicuna", 0.5),
    ]
    assert data.row.tolist() == [0, 1, 2]  # the input's rows
    # the explicit flags read the same verdicts (contexts aside)
    explicit = _read_coded_by_flags(df.dropna(subset=["verdict"]), b_code=" b")
    assert explicit.outcome.tolist() == data.outcome.tolist()


def test_position_coded_layout_stays_off_or_refuses_where_the_codes_are_not_positions():
    # a verdict that is not a position code among codes: its row, not "column not found" (one
    # stray cell made the whole log read as another layout); MT-Bench's raw [[A]] says so
    with pytest.raises(DataError, match=r"verdict code\(s\) \['claude'\] are not A, B or C") as e:
        load_comparisons(_coded(verdict=["A", "B", "claude", "A"]))
    assert e.value.rows == [2] and e.value.column == "verdict"
    with pytest.raises(DataError, match="strip the brackets of MT-Bench's"):
        load_comparisons(_coded(verdict=["[[A]]", "[[B]]", "[[C]]", "[[A]]"]))
    # mostly other values: not this layout (the usual missing-column error)
    with pytest.raises(DataError, match="column not found"):
        load_comparisons(_coded(verdict=["A", "claude", "vicuna", "claude"]))
    # a model named like a code on a row with that code: refused, naming the row and the flags
    ambiguous = _coded(model_first=["claude", "B", "claude", "human"])
    with pytest.raises(DataError, match="ambiguous verdict ' b'") as exc:
        load_comparisons(ambiguous)
    assert exc.value.rows == [1] and exc.value.column == "verdict"
    assert "--outcome-map A=first,B=second,C=tie" in str(exc.value)
    # ... and the flags it names read the file
    named = load_comparisons(
        ambiguous.dropna(subset=["verdict"]),
        first="model_first",
        second="model_second",
        outcome="verdict",
        outcome_map={"A": "first", " b": "second", "C": "tie"},
    )
    assert named.outcome.tolist() == [1.0, 0.0, 0.5]


@pytest.mark.skipif(not JTJ.is_dir(), reason="../shared/data/judging_the_judges not present")
def test_the_judging_the_judges_files_load_with_no_flags(capsys):
    """Both files of ../shared/data/judging_the_judges read with no flags: every row a verdict
    except the empty ones its PROVENANCE counts (13 + 19 on MT-Bench, 3 + 1 on DevBench), the
    verdicts equal to the explicit reading, and the CLI announces the layout."""
    rep = load_comparisons(str(JTJ / "repetition_judgments.csv"))
    assert rep.n_comparisons == 9042 and rep.n_judges == 9 and rep.n_contexts == 42
    full = load_comparisons(str(JTJ / "position_bias_full_judgments_subset.csv"))
    assert full.n_comparisons == 25_600 - 36 and full.n_contexts == 80 + 112
    line = next(r for r in full.recognised if "empty verdict" in r)
    assert "gemini-pro 14" in line and "gpt-3.5-turbo-1106 19" in line
    explicit = _read_coded_by_flags(str(JTJ / "repetition_judgments.csv"))
    assert explicit.outcome.tolist() == rep.outcome.tolist()
    # the raw file reads as the bundled data set (whose reader maps the columns by hand)
    from bayes_pairwise import datasets

    bundled = datasets.load("judging_the_judges")

    with_repeats = [(*v, r) for v, r in zip(_verdicts(rep), rep.repeat, strict=True)]
    bundled_repeats = [(*v, r) for v, r in zip(_verdicts(bundled), bundled.repeat, strict=True)]
    assert sorted(with_repeats) == sorted(bundled_repeats)
    assert main(["estimate", str(JTJ / "repetition_judgments.csv"), "--method", "scom"]) == 0
    err = capsys.readouterr().err
    assert "read as per-order verdicts coded A/B/C" in err


# ------------------------------------------- a question column left unread pools the questions
def _per_question_round_robin(n_questions: int = 4, models=("m-a", "m-b", "m-c")) -> pd.DataFrame:
    # not "a", "b", "c": the winner's id would then read as MT-Bench's position codes too
    rows = [
        (q, f, s, f if (q + models.index(f) + models.index(s)) % 3 else s)
        for q in range(n_questions)
        for f, s in itertools.permutations(models, 2)
    ]
    return pd.DataFrame(rows, columns=["question_id", "first", "second", "outcome"])


def test_an_unread_question_column_with_a_round_robin_per_question_is_warned_about():
    """A log with a question column that holds a comparison of several items per question (PRD,
    llmfao) read without a context pools each model over the questions: said, with the counts
    and the keyword; not said once the context is named, nor for battles of one pair per
    question (Chatbot Arena), nor for a column used for another role."""
    df = _per_question_round_robin()
    with pytest.warns(DesignWarning, match="column 'question_id' not read as the context") as w:
        pooled = load_comparisons(df)
    msg = str(w[0].message)
    assert "its 4 values each compare 3 items (median)" in msg
    assert "each of the 3 items is one text pooled" in msg
    assert "pass context='question_id' (CLI --context-column question_id)" in msg
    assert pooled.n_items == 3 and pooled.n_contexts == 1
    # an empty question cell names no question (and does not break the count)
    blank = df.assign(question_id=df["question_id"].where(df["question_id"] < 3, None))
    with pytest.warns(DesignWarning, match="its 3 values each compare 3 items"):
        load_comparisons(blank)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        named = load_comparisons(df, context="question_id")
        assert named.n_items == 12 and named.n_contexts == 4
        # one battle per question: nothing is pooled that a context would separate
        battles = pd.DataFrame(
            {
                "question_id": range(6),
                "first": ["a", "b", "c", "a", "b", "c"],
                "second": ["b", "c", "a", "c", "a", "b"],
                "outcome": ["a", "c", "a", "tie", "b", "b"],
            }
        )
        load_comparisons(battles)
        load_comparisons(df, judge="question_id")  # a column read for another role


# ---------------------------------------------- Arena-Hard-Auto judgments, two games per record
def _arena_hard_records(v2: bool = False) -> list[dict]:
    def game(score):
        return {"user_prompt": "…", "judgment": f"… [[{score}]]", "score": score}

    rows = [
        ("q1", "llama", [game("B>A"), game("A>>B")]),
        ("q1", "claude", [game("A=B"), {"user_prompt": "…", "judgment": "…", "score": None}]),
        ("q2", "llama", [game("A>B"), game("b >> a")]),
    ]
    key = "uid" if v2 else "question_id"
    out = [
        {key: q, "model": m, "judge": "gpt-4-1106-preview", "games": g}
        | ({"baseline": "o3-mini", "category": "hard_prompt"} if v2 else {})
        for q, m, g in rows
    ]
    if v2:
        out[2]["games"][1] = None  # v2 writes None for a game whose API call failed
    return out


def test_arena_hard_judgments_are_two_verdicts_per_record(tmp_path, capsys):
    """Arena-Hard-Auto's model_judgment files (v0.1: question_id, no baseline name; v2: uid,
    baseline): game 1 shows the baseline first, game 2 the model; scores read by position with
    the strength dropped; a game without a score is left out and counted; the order is
    recorded, the context is the question, errors name the record's row."""
    path = tmp_path / "gpt-4-1106-preview.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _arena_hard_records()) + "\n")
    data = load_comparisons(str(path))
    assert data.recognised[0].startswith("read as Arena-Hard-Auto judgments")
    assert "5 verdicts from 3 rows" in data.recognised[0]
    assert "1 game(s) without a score (no verdict label) left out" in data.recognised
    assert data.order_recorded and data.n_contexts == 2 and data.judges == ("gpt-4-1106-preview",)
    got = [
        (data.items[f], data.items[s], o)
        for f, s, o in zip(data.first, data.second, data.outcome, strict=True)
    ]
    assert got == [
        ("q1::baseline", "q1::llama", 0.0),  # B>A: the model, shown second, wins
        ("q1::llama", "q1::baseline", 1.0),  # A>>B in game 2: the model, shown first, wins
        ("q1::baseline", "q1::claude", 0.5),
        ("q2::baseline", "q2::llama", 1.0),
        ("q2::llama", "q2::baseline", 0.0),
    ]
    assert data.row.tolist() == [0, 0, 1, 2, 2]
    v2 = load_comparisons(pd.DataFrame(_arena_hard_records(v2=True)))
    assert v2.n_comparisons == 4 and "q1::o3-mini" in v2.items
    assert "column 'baseline'" in v2.recognised[0] and "context: uid" in v2.recognised[0]
    bad = _arena_hard_records()
    bad[2]["games"][0]["score"] = "A>B>C"
    with pytest.raises(DataError, match="unknown score 'A>B>C' in game 1") as exc:
        load_comparisons(pd.DataFrame(bad))
    assert exc.value.rows == [2] and exc.value.column == "games"
    assert main(["estimate", str(path), "--method", "scom"]) == 0
    assert "read as Arena-Hard-Auto judgments" in capsys.readouterr().err


def test_arena_human_preference_one_hot_winner_columns():
    """lmsys/arena-human-preference-55k's layout (model_a, model_b, winner_model_a,
    winner_model_b, winner_tie as 0/1) was read as three judges named 'model_a', 'model_b' and
    'tie' with unknown labels 0 and 1; it is one verdict per row, the order not recorded, and a
    row without exactly one 1 is named."""
    df = pd.DataFrame(
        {
            "id": [30192, 53567, 65089],
            "model_a": ["gpt-4-1106-preview", "koala-13b", "gpt-3.5-turbo-0613"],
            "model_b": ["gpt-4-0613", "gpt-4-0613", "mistral-medium"],
            "prompt": ['["Is it morally right …"]', '["What is the difference …"]', '["hi"]'],
            "winner_model_a": [1, 0, 0],
            "winner_model_b": [0, 1, 0],
            "winner_tie": [0, 0, 1],
        }
    )
    data = load_comparisons(df)
    assert data.recognised[0].startswith("read as Chatbot Arena human preference (one-hot")
    assert data.outcome.tolist() == [1.0, 0.0, 0.5] and data.n_judges == 1
    assert not data.order_recorded
    with pytest.raises(DataError, match="exactly one of winner_model_a") as exc:
        load_comparisons(df.assign(winner_tie=[0, 1, 1]))
    assert exc.value.rows == [1]


def test_the_cli_prints_the_unread_question_warning_after_how_the_file_was_read(tmp_path, capsys):
    path = tmp_path / "log.csv"
    _per_question_round_robin().rename(columns={"outcome": "winner"}).to_csv(path, index=False)
    assert main(["estimate", str(path), "--method", "scom"]) == 0
    err = capsys.readouterr().err
    read = err.index("column 'winner' read as the outcome")
    warned = err.index("warning: column 'question_id' not read as the context")
    assert read < warned and err.count("not read as the context") == 1


# ------------------------------------------------------- a folder of log files read as one log
def test_a_folder_of_log_files_reads_as_one_log(tmp_path, capsys):
    """One judge's Arena-Hard-Auto folder (one file per model) reads as one log: the files in
    path order, the same verdicts as the files concatenated; other file types and hidden files
    are left out (the others named); an error names the file and its own row; a folder with
    no log file is an error that says so."""
    folder = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)
    records = _arena_hard_records()
    by_model = {"llama": [r for r in records if r["model"] == "llama"]}
    by_model["claude"] = [r for r in records if r["model"] == "claude"]
    for model, rows in by_model.items():
        (folder / f"{model}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "notes.md").write_text("not a log")
    (folder / ".hidden.jsonl").write_text("{broken")
    data = load_comparisons(str(folder))
    assert data.recognised[0].startswith(
        "read 2 file(s) of folder 'gpt-4-1106-preview' as one log, in path order (claude.jsonl"
    )
    assert "1 file(s) of another type left out: notes.md" in data.recognised
    assert data.source == "gpt-4-1106-preview/"
    ordered = by_model["claude"] + by_model["llama"]
    concatenated = load_comparisons(pd.DataFrame(ordered))
    assert data.outcome.tolist() == concatenated.outcome.tolist()
    assert [data.items[f] for f in data.first] == [
        concatenated.items[f] for f in concatenated.first
    ]
    # the parent folder reads the judge's folder below it
    assert load_comparisons(str(folder.parent)).n_comparisons == data.n_comparisons
    assert main(["estimate", str(folder), "--method", "scom"]) == 0
    assert "read 2 file(s) of folder" in capsys.readouterr().err
    bad = by_model["llama"][1] | {"games": [{"score": "A>B>C"}]}
    (folder / "llama.jsonl").write_text(json.dumps(by_model["llama"][0]) + "\n" + json.dumps(bad))
    with pytest.raises(DataError, match=r"unknown score 'A>B>C'.* in llama\.jsonl") as exc:
        load_comparisons(str(folder))
    assert exc.value.rows == [1]  # the row in llama.jsonl, not in the folder's concatenation
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.txt").write_text("x")
    with pytest.raises(DataError, match="is a directory with no comparison log file in it"):
        load_comparisons(str(empty))


def test_a_folder_of_different_logs_is_refused_naming_the_files_that_lack_a_column(tmp_path):
    """Two logs side by side (PRD's derived folder: the human verdicts under model_a/model_b,
    the LLM judges' under first/second) used to fail on 'missing value' in the concatenation's
    rows; the error now says which files lack the column the others have."""
    folder = tmp_path / "derived"
    folder.mkdir()
    pd.DataFrame(
        {"first": ["a", "b"], "second": ["b", "a"], "outcome": ["first", "second"]}
    ).to_csv(folder / "llm.csv", index=False)
    pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "verdict": [1]}).to_csv(
        folder / "human.csv", index=False
    )
    with pytest.raises(DataError, match="column 'first' is in 1 of the folder's 2 files") as exc:
        load_comparisons(str(folder))
    message = str(exc.value)
    assert "but not in human.csv (human.csv has 'model_a', 'model_b', 'verdict')" in message
    assert exc.value.column == "first" and "\n" not in message
    (folder / "human.csv").unlink()
    pd.DataFrame({"first": ["c"], "second": ["a"], "outcome": ["tie"], "note": ["x"]}).to_csv(
        folder / "more.csv", index=False
    )
    assert load_comparisons(str(folder)).n_comparisons == 3  # an extra column is no reason


def test_a_labelled_log_written_by_the_package_says_its_labels_are_not_read(
    tmp_path, monkeypatch, capsys
):
    """``Comparisons.to_frame`` writes the gold labels as a column named ``truth``; read back
    from a file (Python or the command line) without ``truth=``, the labels were passed over
    without a word and the cross-check said "no gold labels". They are still read only when
    named (they change what the error rates rest on), and the load now says so, with the flag
    that reads them; named, they come back as written."""
    import bayes_pairwise as bp

    sim = bp.simulate_hard_pairs(n_items=2, n_contexts=60, labelled=0.3, random_seed=2)
    assert sim.data.has_truth
    path = tmp_path / "labelled.csv"
    sim.data.to_frame().to_csv(path, index=False)
    note = (
        "column 'truth' not read as gold labels: they change what the error rates rest on, so "
        "they are read only when named (--truth-column truth, or truth='truth')"
    )
    py = load_comparisons(path)
    assert note in py.recognised and not py.has_truth
    cli = _capture_cli_data(monkeypatch, ["estimate", str(path), "--method", "scom", "--json"])
    assert not cli.has_truth and note in capsys.readouterr().err
    named = load_comparisons(path, truth="truth")
    np.testing.assert_array_equal(named.truth, sim.data.truth)
    assert named.n_labelled == sim.data.n_labelled > 0
    assert not any("truth" in line for line in named.recognised)
    argv = ["estimate", str(path), "--method", "scom", "--truth-column", "truth", "--json"]
    np.testing.assert_array_equal(_capture_cli_data(monkeypatch, argv).truth, sim.data.truth)
    assert note not in capsys.readouterr().err
    assert load_comparisons(path, detect=False).recognised == ()
