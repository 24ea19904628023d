"""Issue 12 (loader): nothing lost, nothing merged, one-line typed errors, never a traceback.

Regression tests are named after the defect; a hypothesis suite writes ≥ 2,000 generated logs
through CSV, TSV, JSON lines, Parquet and DataFrames; ≥ 50 malformed files must each end in a
:class:`DataError`.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bayes_pairwise.data as data_mod
from bayes_pairwise.data import load_comparisons, read_columns
from bayes_pairwise.errors import DataError

_KW = {"first": 1.0, "second": 0.0, "tie": 0.5}


# --------------------------------------------------------------------------- writers
def _write(df: pd.DataFrame, path: Path) -> Path:
    """Write every cell as text (the file format decides how ids look on disk)."""
    fmt = path.name.split(".", 1)[1]
    if fmt in ("csv", "tsv"):
        df.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",", lineterminator="\n")
    elif fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for rec in df.to_dict(orient="records"):
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    elif fmt == "parquet":
        df.astype(object).to_parquet(path)
    else:  # pragma: no cover
        raise AssertionError(fmt)
    return path


def _log(first, second, outcome) -> pd.DataFrame:
    return pd.DataFrame(
        {"first": list(first), "second": list(second), "outcome": list(outcome)}, dtype=object
    )


# --------------------------------------------------------------------------- defect 1
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet", "csv.gz"])
def test_numeric_looking_ids_do_not_merge_from_csv(tmp_path, fmt):
    df = _log(
        ["1.10", "007", "1e3", "0x1", "-0"],
        ["1.1", "7", "1000", "1", "0"],
        ["1.10", "7", "first", "second", "tie"],
    )
    path = tmp_path / f"log.{fmt}"
    if fmt == "csv.gz":
        with gzip.open(path, "wt", encoding="utf-8", newline="") as fh:
            df.to_csv(fh, index=False, lineterminator="\n")
    else:
        _write(df, path)
    data = load_comparisons(path, ties="half")
    assert data.n_items == 10
    assert set(data.items) == {"1.10", "1.1", "007", "7", "1e3", "1000", "0x1", "1", "-0", "0"}
    assert data.outcome.tolist() == [1.0, 0.0, 1.0, 0.0, 0.5]
    # the order stays numeric where every id is a number ("0x1" is not, so string order here)
    assert data.items == tuple(sorted(data.items))


def test_numeric_ids_keep_natural_numeric_order_from_text():
    df = _log(["10", "9", "007"], ["2", "10", "7"], ["first", "second", "first"])
    assert load_comparisons(df).items == ("2", "007", "7", "9", "10")


def test_mixed_type_ids_in_a_dataframe_raise_naming_rows():
    df = _log(["a", 1, "b", "1", 1.0], ["x", "y", "y", "z", "x"], ["first"] * 5)
    with pytest.raises(DataError) as exc:
        load_comparisons(df)
    assert exc.value.column == "first" and exc.value.rows == [1, 3, 4]
    assert "'1'" in str(exc.value) and "\n" not in str(exc.value)
    # across first and second: 1 (int) in one, "1" (str) in the other
    df2 = pd.DataFrame({"first": [1, 2, 3], "second": ["9", "1", "8"], "outcome": ["first"] * 3})
    with pytest.raises(DataError, match="across columns") as exc2:
        load_comparisons(df2)
    assert exc2.value.rows == [0, 1]
    # judge and context columns too
    df3 = _log(["a", "b"], ["b", "a"], ["first", "first"]).assign(j=[1, "1"])
    with pytest.raises(DataError) as exc3:
        load_comparisons(df3, judge="j")
    assert exc3.value.column == "j" and exc3.value.rows == [0, 1]


def test_pure_int_or_pure_float_columns_still_load():
    df = pd.DataFrame({"first": [1, 2, 3], "second": [2, 3, 1], "outcome": [1, 3, "tie"]})
    data = load_comparisons(df, ties="half")
    assert data.items == ("1", "2", "3") and data.outcome.tolist() == [1.0, 0.0, 0.5]
    dff = pd.DataFrame({"first": [3.0, 1.5], "second": [1.5, 2.0], "outcome": ["first"] * 2})
    assert load_comparisons(dff).items == ("1.5", "2", "3")
    # an int and a float that differ as text are not a collision
    dfm = _log([1, 2.5], [2.5, 3], ["first", "first"])
    assert load_comparisons(dfm).items == ("1", "2.5", "3")


# --------------------------------------------------------------------------- defect 2
@pytest.mark.parametrize("fmt", ["frame", "csv", "tsv", "jsonl", "parquet"])
def test_na_like_item_names_load(tmp_path, fmt):
    names = ["NA", "None", "null", "N/A", "nan", "NaN", "#N/A", "NULL", "n/a", "<NA>"]
    df = _log(names, names[1:] + names[:1], names)
    source = df if fmt == "frame" else _write(df, tmp_path / f"log.{fmt}")
    data = load_comparisons(source)
    assert sorted(data.items) == sorted(names)
    assert data.outcome.tolist() == [1.0] * len(names)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_only_truly_empty_cells_are_missing(tmp_path, fmt):
    df = _log(["a", "", "c", "  "], ["b", "c", "a", "b"], ["first"] * 4)
    with pytest.raises(DataError, match="missing value") as exc:
        load_comparisons(_write(df, tmp_path / f"log.{fmt}"))
    assert exc.value.column == "first" and exc.value.rows == [1, 3]
    frame = _log(["a", None, "c", np.nan], ["b", "c", "a", "b"], ["first"] * 4)
    with pytest.raises(DataError, match="missing value") as exc:
        load_comparisons(frame)
    assert exc.value.rows == [1, 3]


# --------------------------------------------------------------------------- defect 6
def test_empty_binary_directory_and_undecodable_files_are_data_errors(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "bin.csv").write_bytes(bytes(range(256)))
    (tmp_path / "dir.csv").mkdir()
    (tmp_path / "latin1.csv").write_bytes("first,second,outcome\ncafé,b,first\n".encode("latin-1"))
    for name, needle in [
        ("empty.csv", "is empty"),
        ("bin.csv", "binary"),
        ("dir.csv", "is a directory"),
        ("latin1.csv", r"not valid UTF-8 text \(byte 24, line 2\)"),
    ]:
        for reader in (load_comparisons, read_columns):
            with pytest.raises(DataError, match=needle) as exc:
                reader(tmp_path / name)
            assert name in str(exc.value) and "\n" not in str(exc.value)


def test_unreadable_file_is_a_data_error(tmp_path, monkeypatch):
    path = tmp_path / "locked.csv"
    path.write_text("first,second,outcome\na,b,first\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(data_mod, "open", refuse, raising=False)
    for reader in (load_comparisons, read_columns):
        with pytest.raises(DataError, match=r"cannot read 'locked\.csv': permission denied"):
            reader(path)


def test_chmod_000_file_is_a_data_error(tmp_path):
    path = tmp_path / "locked.csv"
    path.write_text("first,second,outcome\na,b,first\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: chmod 000 does not stop reading")
        with pytest.raises(DataError, match="permission denied"):
            load_comparisons(path)
    finally:
        path.chmod(0o644)


def test_duplicated_column_in_dataframe_is_a_data_error():
    df = pd.DataFrame([["a", "b", "first", "c"]], columns=["first", "second", "outcome", "first"])
    with pytest.raises(DataError, match="appears 2 times") as exc:
        load_comparisons(df)
    assert exc.value.column == "first"
    # a duplicated column nobody asked for is harmless
    df2 = pd.DataFrame(
        [["a", "b", "first", 1, 2]], columns=["first", "second", "outcome", "x", "x"]
    )
    assert load_comparisons(df2).n_comparisons == 1


@pytest.mark.parametrize("bad", [{"w": 1}, [1, 2], {1, 2}, (1, 2)])
def test_dict_and_list_outcomes_with_outcome_map_are_data_errors(bad):
    df = _log(["a", "b", "a"], ["b", "a", "b"], [1, bad, 2])
    with pytest.raises(DataError, match="must be text or a number") as exc:
        load_comparisons(df, outcome_map={1: "first", 2: "second"})
    assert exc.value.column == "outcome" and exc.value.rows == [1]
    with pytest.raises(DataError, match="must be text or a number"):
        load_comparisons(_log(["a", bad], ["b", "a"], ["first", "first"]))


def test_dict_outcomes_from_json_lines_are_data_errors(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"first":"a","second":"b","outcome":{"winner":"a"}}\n')
    with pytest.raises(DataError, match="not dict") as exc:
        load_comparisons(path, outcome_map={"a": "first"})
    assert exc.value.rows == [0]


def test_read_columns_reads_the_header_only(tmp_path):
    path = tmp_path / "log.tsv"
    path.write_text('first\tsecond\t"out\tcome"\t\na\tb\tfirst\t\n')
    assert read_columns(path) == ["first", "second", "out\tcome", "Unnamed: 3"]
    big = tmp_path / "big.csv"
    big.write_bytes(b"first,second,outcome\n" + b"a,b,first\n" * 20_000 + b"\xff\n")
    assert read_columns(big) == ["first", "second", "outcome"]  # the bad tail is not read
    gz = tmp_path / "log.csv.gz"
    gz.write_bytes(gzip.compress("\ufefffirst,second,outcome\n".encode()))
    assert read_columns(gz) == ["first", "second", "outcome"]
    js = _write(_log(["a"], ["b"], ["first"]).assign(j="x"), tmp_path / "log.jsonl")
    assert read_columns(js) == ["first", "second", "outcome", "j"]
    assert read_columns(pd.DataFrame(columns=["a", 1])) == ["a", "1"]
    for bad in ["missing.csv", "x.xlsx"]:
        with pytest.raises(DataError):
            read_columns(tmp_path / bad)
    assert "read_columns" in data_mod.__all__


def test_a_json_lines_log_whose_columns_were_read_is_not_parsed_again(tmp_path, monkeypatch):
    """JSON lines have no header: read_columns parses the file whole, and the load that
    follows it (fit, leaderboard) takes that parse instead of a second one, once; a file
    changed in between is read again, and so is the same file the next time."""
    calls = []
    real = data_mod._parse_json
    monkeypatch.setattr(data_mod, "_parse_json", lambda *a, **k: calls.append(1) or real(*a, **k))
    js = _write(_log(["a", "b"], ["b", "c"], ["first", "second"]), tmp_path / "log.jsonl")
    fresh = load_comparisons(js)
    assert len(calls) == 1
    assert read_columns(js) == ["first", "second", "outcome"] and len(calls) == 2
    got = load_comparisons(js)
    assert len(calls) == 2  # handed over
    assert got.items == fresh.items and got.outcome.tolist() == fresh.outcome.tolist()
    load_comparisons(js)
    assert len(calls) == 3  # once only
    read_columns(js)
    _write(_log(["a", "b", "a"], ["b", "c", "c"], ["first"] * 3), js)
    os.utime(js, ns=(1, 1))  # a different mtime whatever the clock's resolution
    assert load_comparisons(js).n_comparisons == 3 and len(calls) == 5


def test_read_columns_of_a_folder_reads_each_csv_header_only(tmp_path):
    """A folder is one log: its columns are its files' in order of first appearance (those of
    the log it loads as), each CSV read to its header only, as a single CSV is (the CLI reads
    the columns before the load: a folder of large CSV files used to be read whole twice)."""
    folder = tmp_path / "logs"
    (folder / "b").mkdir(parents=True)
    (folder / "a.csv").write_bytes(
        b"first,second,outcome,judge\n" + b"a,b,first,g\n" * 20_000 + b"\xff\n"
    )
    _write(_log(["a"], ["b"], ["first"]).assign(task="x"), folder / "b" / "c.jsonl")
    (folder / ".hidden.csv").write_text("zzz\n")
    assert read_columns(folder) == ["first", "second", "outcome", "judge", "task"]
    (folder / "a.csv").write_bytes(b"first,second,outcome,judge\na,b,first,g\n")
    frame_columns = list(data_mod.read_table(folder)[0].columns)
    assert read_columns(folder) == frame_columns
    (folder / "b" / "d.csv").write_bytes(b"first,first\n")
    with pytest.raises(DataError, match=r"duplicated column name 'first'.*\(in logs/b/d\.csv\)"):
        read_columns(folder)


def test_read_columns_of_a_parquet_file_reads_its_schema_only(tmp_path, monkeypatch):
    """The columns ``pd.read_parquet`` would give (the index left out, names as text), from the
    schema: the CLI reads a log's columns before loading it, and a Parquet log used to be read
    whole twice."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = _log(["a", "c"], ["b", "d"], ["first", "tie"])
    frames = {
        "plain.parquet": base,
        "index.parquet": base.set_index(pd.Index([7, 9], name="row")),
        "unnamed_index.parquet": base.set_index(pd.Index(["x", "y"])),
        "int_names.parquet": base.set_axis(["first", "second", 3], axis=1),
    }
    for name, frame in frames.items():
        frame.to_parquet(tmp_path / name)
    pq.write_table(pa.table({"first": ["a"], "second": ["b"]}), tmp_path / "arrow.parquet")
    expected = {p.name: [str(c) for c in pd.read_parquet(p).columns] for p in tmp_path.iterdir()}
    assert expected["index.parquet"] == ["first", "second", "outcome"]
    assert expected["int_names.parquet"] == ["first", "second", "3"]

    def no_data(*args, **kwargs):
        raise AssertionError("the data were read")

    monkeypatch.setattr(pd, "read_parquet", no_data)
    for path in tmp_path.iterdir():
        assert read_columns(path) == expected[path.name], path.name
    (tmp_path / "empty.parquet").write_bytes(b"")
    with pytest.raises(DataError, match=r"'empty\.parquet' is empty"):
        read_columns(tmp_path / "empty.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"not a parquet file at all")
    with pytest.raises(DataError, match=r"could not read 'bad\.parquet' as Parquet"):
        read_columns(tmp_path / "bad.parquet")


# --------------------------------------------------------------------------- defect 7
def test_ambiguous_outcomes_raise_naming_rows_and_outcome_map_settles_them():
    df = _log(
        ["first", "b", "x", "Second", "tie"],
        ["b", "second", "y", "x", "x"],
        ["first", "b", "first", "second", "TIE"],
    )
    with pytest.raises(DataError, match="ambiguous outcome") as exc:
        load_comparisons(df, ties="half")
    assert exc.value.column == "outcome" and exc.value.rows == [0, 3, 4]
    assert "outcome_map" in str(exc.value) and "rename" in str(exc.value)
    data = load_comparisons(
        df, ties="half", outcome_map={"first": "first", "second": "second", "TIE": "tie"}
    )
    assert data.outcome.tolist() == [1.0, 1.0, 1.0, 0.0, 0.5]
    # an item named like a keyword is fine while the outcome does not spell it
    ok = _log(["first", "b"], ["b", "first"], ["b", "b"])
    assert load_comparisons(ok).outcome.tolist() == [0.0, 1.0]


def test_duplicated_csv_header_is_rejected(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("first,second,outcome,second\na,b,first,c\n")
    for reader in (load_comparisons, read_columns):
        with pytest.raises(DataError, match="duplicated column name 'second'") as exc:
            reader(path)
        assert "fields 2 and 4" in str(exc.value)


@pytest.mark.parametrize(
    ("body", "row", "n", "line"),
    [
        ("a,b,first,extra\nb,a,first\n", 0, 4, 2),
        ("a,b,first\nb,a,first,extra\n", 1, 4, 3),
        ('a,b,first\n"multi\nline",a,first\n\nb,a,first,x\n', 2, 4, 6),
        ("a,b,first\nb,first\n", 1, 2, 3),
    ],
)
def test_extra_field_row_is_blamed_on_the_row(tmp_path, body, row, n, line):
    path = tmp_path / "log.csv"
    path.write_text("first,second,outcome\n" + body)
    with pytest.raises(DataError) as exc:
        load_comparisons(path)
    assert exc.value.rows == [row] and exc.value.column is None
    assert f"has {n} fields where the header has 3" in str(exc.value)
    assert f"line {line}" in str(exc.value)


# --------------------------------------------------------------------------- ties="model"
def test_tie_policy_model_keeps_ties_like_half():
    df = _log(["a", "b", "a", "c"], ["b", "a", "c", "a"], ["tie", "first", "c", "tie"])
    half = load_comparisons(df, ties="half")
    model = load_comparisons(df, ties="model")
    assert model.tie_policy == "model" and model.settings()["tie_policy"] == "model"
    np.testing.assert_array_equal(model.outcome, half.outcome)
    assert model.outcome.tolist() == [0.5, 1.0, 0.0, 0.5]
    assert (model.n_ties, model.n_ties_dropped) == (2, 0)
    dropped = model.drop_ties()
    assert (dropped.n_comparisons, dropped.n_ties_dropped, dropped.tie_policy) == (2, 2, "drop")
    no_ties = load_comparisons(df.iloc[1:3], ties="model")
    assert no_ties.drop_ties().tie_policy == "drop"
    from bayes_pairwise.matrices import win_matrix

    assert win_matrix(model).to_numpy().sum() == win_matrix(half).to_numpy().sum() == 4.0


# --------------------------------------------------------------------------- 50+ malformed files
def _gz(b: bytes) -> bytes:
    return gzip.compress(b)


_HDR = b"first,second,outcome\n"
_MALFORMED: list[tuple[str, bytes | None]] = [
    ("empty.csv", b""),
    ("blank.csv", b"\n\n  \n"),
    ("bom_only.csv", b"\xef\xbb\xbf"),
    ("header_only.csv", _HDR),
    ("binary.csv", bytes(range(256)) * 4),
    ("nul.csv", _HDR + b"a,b\x00,first\n"),
    ("utf16.csv", "first,second,outcome\na,b,first\n".encode("utf-16")),
    ("latin1.csv", _HDR + "é,b,first\n".encode("latin-1")),
    ("cp1252.tsv", b"first\tsecond\toutcome\n\x93a\x94\tb\tfirst\n"),
    ("truncated_utf8.csv", _HDR + b"a,b,first\n\xe2\x82"),
    ("png.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
    ("zip.csv", b"PK\x03\x04\x14\x00\x00\x00\x08\x00"),
    ("extra_first_row.csv", _HDR + b"a,b,first,x\n"),
    ("extra_later_row.csv", _HDR + b"a,b,first\nb,a,second,x\n"),
    ("two_extra.csv", _HDR + b"a,b,first\nb,a,second,x,y\n"),
    ("short_row.csv", _HDR + b"a,b\n"),
    ("one_field_row.csv", _HDR + b"a,b,first\nzz\n"),
    ("dup_header.csv", b"first,second,outcome,first\na,b,first,c\n"),
    ("dup_header_case.csv", b"first,second,outcome,outcome\na,b,first,second\n"),
    ("dup_header_tsv.tsv", b"first\tfirst\tsecond\toutcome\na\tb\tc\tfirst\n"),
    ("missing_column.csv", b"first,outcome\na,first\n"),
    ("wrong_names.csv", b"a,b,c\nx,y,first\n"),
    ("semicolon.csv", b"first;second;outcome\na;b;first\n"),
    ("unterminated_quote.csv", _HDR + b'"a,b,first\n'),
    ("missing_value.csv", _HDR + b"a,,first\n"),
    ("self_comparison.csv", _HDR + b"a,a,first\n"),
    ("unknown_outcome.csv", _HDR + b"a,b,winner\n"),
    ("tie_under_error.csv", _HDR + b"a,b,tie\n"),
    ("ambiguous.csv", _HDR + b"first,b,first\n"),
    ("blank_outcome.csv", _HDR + b"a,b,   \n"),
    ("bad_gzip.csv.gz", b"\x1f\x8b\x08\x00garbage"),
    ("truncated_gzip.csv.gz", _gz(_HDR + b"a,b,first\n" * 50)[:-12]),
    ("not_gzip.csv.gz", _HDR + b"a,b,first\n"),
    ("gz_empty.csv.gz", _gz(b"")),
    ("gz_binary.tsv.gz", _gz(bytes(range(256)))),
    ("gz_latin1.csv.gz", _gz(_HDR + "é,b,first\n".encode("latin-1"))),
    ("empty.jsonl", b""),
    ("bad_json.jsonl", b'{"first": "a", "second": "b", "outcome": "first"\n'),
    ("array_line.jsonl", b'["a", "b", "first"]\n'),
    ("scalar_line.jsonl", b"42\n"),
    ("dup_key.jsonl", b'{"first":"a","second":"b","first":"c","outcome":"first"}\n'),
    ("dict_outcome.jsonl", b'{"first":"a","second":"b","outcome":{"w":"a"}}\n'),
    ("list_id.jsonl", b'{"first":["a"],"second":"b","outcome":"first"}\n'),
    (
        "mixed_types.jsonl",
        b'{"first":1,"second":"b","outcome":"first"}\n'
        b'{"first":"1","second":"b","outcome":"first"}\n',
    ),
    ("null_id.jsonl", b'{"first":null,"second":"b","outcome":"first"}\n'),
    ("binary.jsonl", b"\x00\x01\x02"),
    ("latin1.jsonl", '{"first":"é","second":"b","outcome":"first"}\n'.encode("latin-1")),
    ("json_string.json", b'"hello"'),
    ("json_ragged_columns.json", b'{"first":["a","b"],"second":["b"],"outcome":["first"]}'),
    ("empty.parquet", b""),
    ("garbage.parquet", b"PAR1 this is not parquet PAR1"),
    ("csv_as.parquet", _HDR + b"a,b,first\n"),
    ("unsupported.xlsx", b"PK\x03\x04"),
    ("no_suffix", _HDR + b"a,b,first\n"),
    ("directory.csv", None),
    ("directory.parquet", None),
    ("missing_file.csv", b"<missing>"),
]


@pytest.mark.parametrize(("name", "content"), _MALFORMED, ids=[m[0] for m in _MALFORMED])
def test_malformed_files_raise_one_line_data_error(tmp_path, name, content):
    path = tmp_path / name
    if content is None:
        path.mkdir()
    elif content != b"<missing>":
        path.write_bytes(content)
    with pytest.raises(DataError) as exc:
        load_comparisons(path, ties="error")  # a tie is malformed only under ties="error"
    msg = str(exc.value)
    assert "\n" not in msg and msg
    assert len(_MALFORMED) >= 50


def test_malformed_headers_through_read_columns(tmp_path):
    for name, content in _MALFORMED:
        path = tmp_path / name
        if content is None:
            path.mkdir()
        elif content != b"<missing>":
            path.write_bytes(content)
        try:
            cols = read_columns(path)
        except DataError as exc:
            assert "\n" not in str(exc)
        else:
            assert all(isinstance(c, str) for c in cols)


# --------------------------------------------------------------------------- property suite
_numeric_like = st.sampled_from(
    [
        "1",
        "01",
        "001",
        "1.0",
        "1.10",
        "1.1",
        "1e3",
        "1000",
        "-0",
        "0",
        "+1",
        "7",
        "007",
        "1_0",
        "inf",
        "0x1",
        "3.0",
        "3",
    ]
)
_na_like = st.sampled_from(["NA", "N/A", "None", "null", "NULL", "nan", "NaN", "#N/A", "<NA>"])
_hostile = st.sampled_from(
    [
        "a,b",
        'q"uote',
        "line\nbreak",
        "tab\there",
        " lead",
        "trail ",
        "\u202eevil",
        "x\u2028y",
        "ünïcødé",
        "日本語",
        "🙂",
        "First",
        "tie-break",
        "second place",
    ]
)
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=6)
_ids = st.one_of(_numeric_like, _na_like, _hostile, _text)
_keywords = st.sampled_from(["first", "second", "tie", "FIRST", " Second ", "Tie", "TIE "])


@st.composite
def _text_logs(draw):
    pool = draw(st.lists(_ids, min_size=2, max_size=7, unique=True))
    n = draw(st.integers(1, 12))
    rows = []
    for _ in range(n):
        i = draw(st.integers(0, len(pool) - 1))
        # a different item, except now and then (a self-comparison must be rejected)
        j = i if draw(st.integers(0, 49)) == 0 else (i + draw(st.integers(1, len(pool) - 1)))
        a, b = pool[i], pool[j % len(pool)]
        kind = draw(st.integers(0, 3))
        if kind == 0:
            o = a
        elif kind == 1:
            o = b
        else:
            o = draw(_keywords)
        rows.append((a, b, o))
    return _log(*zip(*rows, strict=True)) if rows else None


#: outcome codes that read as positions (first, second, tie), as the loader's hint knows them
_CODES = (("a", "b", "c"), ("1", "2", "3"), ("left", "right", "tie"), ("1", "0", "0.5"))


def _codes_disagree(df: pd.DataFrame) -> bool:
    """No outcome is a keyword, every one is an item of its row and the outcomes are position
    codes as well (items "1", "2" and outcomes 1, 2): the two readings differ on some row."""
    if not set(df["outcome"]) <= {"1", "2", "3", "0", "0.5", "A", "B", "C"}:
        return False  # codes as logs write them; lower-case letters are read as item ids
    labels = {o.strip().lower() for o in df["outcome"]}
    for codes in _CODES:
        if labels <= set(codes) and codes[0] in labels:
            role = {c: _KW[k] for c, k in zip(codes, ("first", "second", "tie"), strict=True)}
            break
    else:
        return False
    rows = list(df.itertuples(index=False))
    if not all(o in (a, b) for a, b, o in rows):
        return False
    return any((1.0 if o == a else 0.0) != role[o.strip().lower()] for a, b, o in rows)


def _oracle(df: pd.DataFrame) -> list[float] | None:
    """Expected outcomes of a text log, or None when the log must be rejected."""
    ids = set(df["first"]) | set(df["second"])
    if len({i.strip() for i in ids}) < len(ids):
        return None  # ids equal but for spaces around them: refused, not split
    if _codes_disagree(df):
        return None  # the winner's id, or a position code? refused
    out = []
    for a, b, o in df.itertuples(index=False):
        if not a.strip() or not b.strip() or not o.strip() or a == b:
            return None
        kw = o.strip().lower()
        if kw in _KW and kw in (a.strip().lower(), b.strip().lower()):
            return None  # ambiguous
        if o == a:
            out.append(1.0)
        elif o == b:
            out.append(0.0)
        elif kw in _KW:
            out.append(_KW[kw])
        else:  # pragma: no cover - the generator always produces a known outcome
            return None
    return out


def _check(source, df: pd.DataFrame, ties: str) -> None:
    expected = _oracle(df)
    if expected is None:
        with pytest.raises(DataError):
            load_comparisons(source, ties=ties)
        return
    n_ties = sum(v == 0.5 for v in expected)
    if ties == "error" and n_ties:
        with pytest.raises(DataError, match="ties='error'"):
            load_comparisons(source, ties=ties)
        return
    if ties == "drop" and n_ties == len(expected):
        with pytest.raises(DataError, match="no comparisons left"):
            load_comparisons(source, ties=ties)
        return
    data = load_comparisons(source, ties=ties)
    ids = set(df["first"]) | set(df["second"])
    assert data.n_items == len(ids) and set(data.items) == ids  # nothing merged
    assert data.n_comparisons + data.n_ties_dropped == len(df)  # nothing lost
    kept = [v for v in expected if not (ties == "drop" and v == 0.5)]
    assert data.outcome.tolist() == kept
    frame = data.to_frame()
    rows = data.row.tolist()
    assert frame["first"].tolist() == df["first"].iloc[rows].tolist()
    assert frame["second"].tolist() == df["second"].iloc[rows].tolist()


_SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}


@settings(max_examples=200, **_SETTINGS)
@given(_text_logs(), st.sampled_from(["csv", "tsv"]), st.sampled_from(["half", "drop", "model"]))
def test_property_csv_and_tsv_logs_load_without_merge_or_loss(tmp_path_factory, df, fmt, ties):
    path = _write(df, tmp_path_factory.mktemp("p") / f"log.{fmt}")
    _check(path, df, ties)


@settings(max_examples=200, **_SETTINGS)
@given(_text_logs(), st.sampled_from(["jsonl", "parquet"]), st.sampled_from(["half", "error"]))
def test_property_jsonl_and_parquet_logs_load_without_merge_or_loss(
    tmp_path_factory, df, fmt, ties
):
    path = _write(df, tmp_path_factory.mktemp("p") / f"log.{fmt}")
    _check(path, df, ties)


@settings(max_examples=200, **_SETTINGS)
@given(_text_logs(), st.sampled_from(["half", "drop", "model", "error"]))
def test_property_text_dataframes_load_without_merge_or_loss(df, ties):
    _check(df, df, ties)
    _check(df.astype("string"), df, ties)


def _label(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _kind(v) -> str:
    return "str" if isinstance(v, str) else type(v).__name__


_typed = st.one_of(
    st.integers(-3, 12),
    st.floats(-3, 12).map(lambda x: round(x, 1)),
    st.sampled_from(["1", "2", "3.0", "2.5", "a", "b", "NA"]),
)


@settings(max_examples=250, **_SETTINGS)
@given(
    st.lists(
        st.tuples(_typed, _typed, st.sampled_from(["first", "second"])), min_size=1, max_size=10
    )
)
def test_property_typed_dataframes_error_instead_of_merging(rows):
    df = _log(*zip(*rows, strict=True))
    ids = list(df["first"]) + list(df["second"])
    kinds: dict[str, set[str]] = {}
    for v in ids:
        kinds.setdefault(_label(v), set()).add(_kind(v))
    collide = any(len(k) > 1 for k in kinds.values())
    self_cmp = any(_label(a) == _label(b) for a, b, _ in rows)
    if collide or self_cmp:
        with pytest.raises(DataError):
            load_comparisons(df)
        return
    data = load_comparisons(df)
    assert set(data.items) == set(kinds)  # one item per distinct text label, nothing merged
    assert data.n_comparisons == len(rows)
    assert data.outcome.tolist() == [1.0 if o == "first" else 0.0 for *_, o in rows]


# --------------------------------------------------------------------------- misc regressions
def test_csv_reads_values_verbatim_and_covariates_as_numbers(tmp_path):
    path = tmp_path / "log.csv"
    rows = [
        ["first", "second", "outcome", "q", "cov", "rep"],
        [" a", "b", "first", "01", " 0.5", "1"],
        ["b", " a", "second", "1", "2e-1", "2.0"],
    ]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    data = load_comparisons(path, context="q", covariates=["cov"], repeat="rep")
    assert data.contexts == ("01", "1")
    assert data.items == ("01:: a", "01::b", "1:: a", "1::b")
    assert data.covariates["cov"].tolist() == [0.5, 0.2]
    assert data.repeat.tolist() == [1, 2]


def test_outcome_codes_from_text_files_match_numeric_outcome_map(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("f,s,v\nx,y,1\ny,x,2.0\nx,y,3\n")
    data = load_comparisons(
        path,
        first="f",
        second="s",
        outcome="v",
        ties="half",
        outcome_map={1: "first", 2: "second", 3: "tie"},
    )
    assert data.outcome.tolist() == [1.0, 0.0, 0.5]


def test_json_documents_in_records_and_columns_layouts(tmp_path):
    df = _log(["a", "b"], ["b", "007"], ["first", "007"])
    rec = tmp_path / "rec.json"
    rec.write_text(df.to_json(orient="records"))
    col = tmp_path / "col.json"
    col.write_text(df.to_json())
    for path in (rec, col):
        d = load_comparisons(path)
        assert d.items == ("007", "a", "b") and d.outcome.tolist() == [1.0, 0.0]


def test_large_dataframe_loads_fast(monkeypatch):
    rng = np.random.default_rng(12)
    n = 1_000_000
    names = np.array([f"model_{k}" for k in range(50)], dtype=object)
    a = rng.integers(0, 50, n)
    b = (a + rng.integers(1, 50, n)) % 50
    df = pd.DataFrame(
        {
            "first": names[a],
            "second": names[b],
            "outcome": rng.choice(np.array(["first", "second", "tie"], dtype=object), n),
        }
    )
    # vectorised: no Python call per row (the per-value helpers see each distinct label at most)
    calls = {"n": 0}
    for name in ("_as_label", "_kind", "_map_outcome"):
        real = getattr(data_mod, name)

        def counting(*a, _real=real, **k):
            calls["n"] += 1
            return _real(*a, **k)

        monkeypatch.setattr(data_mod, name, counting)
    data = load_comparisons(df, ties="half")
    assert data.n_comparisons == n and data.n_items == 50
    assert int(np.sum(data.outcome == 0.5)) == int(np.sum(df["outcome"] == "tie"))
    assert calls["n"] <= 3 * (50 + 3)


def test_read_text_round_trip_through_io_module():
    # the CSV parser keeps quoted separators, quotes and newlines inside ids
    text = 'first,second,outcome\n"a,b","q""x","q""x"\n"l\nm",z,first\n'
    frame = data_mod._parse_csv(text, ",", "mem.csv")
    assert frame["first"].tolist() == ["a,b", "l\nm"]
    assert frame["second"].tolist() == ['q"x', "z"]


def test_bad_rows_of_a_text_file_are_named_by_their_line_too(tmp_path):
    """A bad row of a CSV was named by its 0-based data row only ("row 2"), which a user
    opening the file finds on line 4. The error now gives both, counting lines as an editor
    does: the header, blank lines and line breaks inside quoted fields, in plain and gzipped
    files; a DataFrame has no lines to name."""
    text = (
        "first,second,outcome\n"
        "a,b,first\n"
        "\n"  # a blank line: skipped as a record, counted as a line
        'b,"a\nb",second\n'  # a record over two lines
        "a,c,frist\n"
        "c,a,first\n"
    )
    path = tmp_path / "log.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_comparisons(path)
    assert err.value.rows == [2] and err.value.lines == [6]
    assert str(err.value).endswith("(column 'outcome', row 2: line 6 of log.csv)")
    gz = tmp_path / "log.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(DataError, match=r"row 2: line 6 of log\.csv\.gz\)"):
        load_comparisons(gz)
    tsv = tmp_path / "log.tsv"
    tsv.write_text("first\tsecond\toutcome\na\tb\tfirst\nb\t\tsecond\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"\(column 'second', row 1: line 3 of log\.tsv\)"):
        load_comparisons(tsv)
    # several rows: the first ten are placed
    many = tmp_path / "many.csv"
    many.write_text("first,second,outcome\n" + "a,b,x\n" * 12, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_comparisons(many)
    assert err.value.lines == list(range(2, 12))
    assert "rows 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (2 more): lines 2, 3, 4" in str(err.value)
    # a ragged row says its line once
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("first,second,outcome\na,b,first\nb,a\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_comparisons(ragged)
    assert str(err.value).count("line 3") == 1 and err.value.rows == [1]
    # a DataFrame: rows only
    with pytest.raises(DataError) as err:
        load_comparisons(pd.DataFrame({"first": ["a"], "second": ["b"], "outcome": ["frist"]}))
    assert err.value.lines == [] and str(err.value).endswith("row 0)")


def test_an_unknown_outcome_that_reads_as_a_tie_gets_the_map_that_reads_it(tmp_path):
    """'draw', Arena's 'tie (bothbad)' and 'equal' were refused with the generic list of
    labels; the error now gives the outcome map (and the flag, quoted for a shell) that reads
    them as ties, stated as a condition. The suggested flag loads the file."""
    from bayes_pairwise.cli import _parse_map

    for label, flag in (("draw", "draw=tie"), ("tie (bothbad)", "'tie (bothbad)=tie'")):
        path = tmp_path / "log.csv"
        path.write_text(f"first,second,outcome\na,b,first\nb,a,{label}\n", encoding="utf-8")
        with pytest.raises(DataError) as err:
            load_comparisons(path)
        text = str(err.value)
        assert f"if {label!r} means a tie, pass outcome_map={{{label!r}: 'tie'}}" in text
        assert f"(CLI --outcome-map {flag})" in text
        data = load_comparisons(path, outcome_map=_parse_map(flag.strip("'")))
        assert data.n_ties == 1
    path.write_text("first,second,outcome\na,b,draw\nb,a,x\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_comparisons(path)
    assert "means a tie" not in str(err.value)  # not every unknown label reads as a tie
