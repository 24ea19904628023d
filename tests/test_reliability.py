"""Issue 29: every input ends, every pair of outputs agrees, every flag has a range.

Each reproducer of the issue is a test here: inputs that never end (a device, a FIFO, a file
above the size limit), ids read by their literal text, the Arena ambiguity, outputs written as
one unit, empty and unwritable output paths, and the range of every numeric flag.
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.data import load_comparisons, read_columns
from bayes_pairwise.errors import DataError

ROOT = Path(__file__).resolve().parents[1]


def one_error_line(capsys, argv: list[str]) -> str:
    """Run the CLI; assert exit 2 and exactly one ``error:`` line on stderr; return it."""
    rc = main(argv)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert rc == 2, err
    assert len(lines) == 1, err
    return lines[0]


def run_cli(argv: list[str], cwd: Path, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """The CLI in a new process (``timeout``: a guard against a hang, not a speed claim)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bayes_pairwise.cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# --------------------------------------------------------------------------- inputs
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_symlink_to_dev_zero_is_refused_without_reading(tmp_path, capsys):
    z = tmp_path / "z.csv"
    z.symlink_to("/dev/zero")
    line = one_error_line(capsys, ["estimate", str(z), "--method", "scom"])
    assert "z.csv" in line and "character device" in line and "not a regular file" in line
    with pytest.raises(DataError, match="not a regular file"):
        read_columns(z)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_symlink_to_dev_zero_in_a_process_ends_at_once(tmp_path):
    (tmp_path / "z.csv").symlink_to("/dev/zero")
    res = run_cli(["estimate", "z.csv", "--method", "scom"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert [ln for ln in res.stderr.splitlines() if ln.startswith("error:")] == [
        res.stderr.strip().splitlines()[-1]
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_input_is_refused_without_opening_it(tmp_path, capsys):
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)  # opening it for reading would block: nobody writes
    line = one_error_line(capsys, ["estimate", str(fifo), "--method", "scom"])
    assert "f.csv" in line and "FIFO" in line


def test_socket_input_is_refused(tmp_path, capsys):
    import socket

    path = tmp_path / "s.csv"
    if len(str(path)) > 100:
        pytest.skip("socket path too long here")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        line = one_error_line(capsys, ["estimate", str(path), "--method", "scom"])
    assert "socket" in line


def test_size_limit_refuses_a_larger_file_and_the_flag_raises_it(tmp_path, capsys):
    log = tmp_path / "big.csv"
    log.write_text("first,second,outcome\n" + "a,b,first\nb,a,second\n" * 500)
    size = log.stat().st_size
    with pytest.raises(DataError, match="input size limit"):
        load_comparisons(log, max_bytes=size - 1)
    assert load_comparisons(log, max_bytes=size).n_comparisons == 1000
    line = one_error_line(
        capsys, ["estimate", str(log), "--method", "scom", "--max-input-size", "1K"]
    )
    assert "big.csv" in line and "--max-input-size" in line
    assert main(["estimate", str(log), "--method", "scom", "--max-input-size", "1M"]) == 0


@pytest.mark.parametrize("name", ["bomb.csv.gz", "bomb.jsonl.gz"])
def test_size_limit_counts_the_decompressed_text_of_a_gz_file(tmp_path, name):
    path = tmp_path / name
    if name.startswith("bomb.csv"):
        body = b"first,second,outcome\n" + b"a,b,first\n" * 200_000
    else:
        body = b'{"first": "a", "second": "b", "outcome": "first"}\n' * 50_000
    with gzip.open(path, "wb") as fh:
        fh.write(body)
    assert path.stat().st_size < 100_000  # small on disk, large as text
    with pytest.raises(DataError, match="holds more than the input size limit"):
        load_comparisons(path, max_bytes=len(body) - 1)
    assert load_comparisons(path, max_bytes=len(body)).n_comparisons > 0


@pytest.mark.parametrize("bad", ["0", "-5", "12Q", "", "inf", "2000T"])
def test_max_input_size_flag_has_a_range(tmp_path, capsys, bad):
    line = one_error_line(
        capsys, ["estimate", "x.csv", "--method", "scom", f"--max-input-size={bad}"]
    )
    assert "--max-input-size" in line


def test_sigterm_while_reading_ends_the_process(tmp_path):
    # a read that never returns to Python (as pyarrow's reader may not): SIGTERM must end it
    script = textwrap.dedent(
        """
        import sys, time
        import bayes_pairwise.data as data
        from bayes_pairwise.cli import main

        def stuck(*a, **k):
            print("reading", flush=True)
            time.sleep(60)

        data.load_comparisons = stuck
        sys.exit(main(["estimate", "log.csv", "--method", "scom"]))
        """
    )
    (tmp_path / "log.csv").write_text("first,second,outcome\na,b,first\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "reading"
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)  # a guard: without the default action it sleeps 60 s
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == -signal.SIGTERM


def test_sigterm_handler_is_restored_after_reading(tmp_path, monkeypatch):
    import bayes_pairwise.cli as cli

    seen = []
    real = load_comparisons

    def spy(*a, **k):
        seen.append(signal.getsignal(signal.SIGTERM))
        return real(*a, **k)

    monkeypatch.setattr("bayes_pairwise.data.load_comparisons", spy)
    log = tmp_path / "log.csv"
    log.write_text("first,second,outcome\na,b,first\nb,a,second\n")
    before = signal.getsignal(signal.SIGTERM)
    assert cli.main(["estimate", str(log), "--method", "scom"]) == 0
    assert seen == [signal.SIG_DFL]
    assert signal.getsignal(signal.SIGTERM) == before


# --------------------------------------------------------------------------- ids
def write_jsonl(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(r + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("a", "b"),
    [("1.10", "1.1"), ("1e400", "1e500"), ("-0.0", "0.0"), ("0.30000000000000001", "0.3")],
)
def test_jsonl_number_ids_are_their_literal_text(tmp_path, a, b):
    log = write_jsonl(
        tmp_path / "log.jsonl",
        [
            f'{{"first": {a}, "second": {b}, "outcome": "first"}}',
            f'{{"first": {b}, "second": {a}, "outcome": "first"}}',
        ],
    )
    d = load_comparisons(log)
    assert sorted(d.items) == sorted([a, b])
    assert d.n_items == 2 and d.outcome.tolist() == [1.0, 1.0]


def test_jsonl_with_first_ids_1_10_and_1_1_loads_as_two_items_through_the_cli(tmp_path, capsys):
    log = write_jsonl(
        tmp_path / "log.jsonl",
        ['{"first": 1.10, "second": 1.1, "outcome": "second"}'],
    )
    assert main(["estimate", str(log), "--method", "copeland", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["estimates"] == {"copeland[1.1]": 1.0, "copeland[1.10]": -1.0}
    assert out["settings"]["data"]["n_items"] == 2


def test_json_numbers_still_read_as_numbers_where_numbers_are_meant(tmp_path):
    log = write_jsonl(
        tmp_path / "log.jsonl",
        [
            '{"first": 1, "second": 2, "outcome": 1, "x": 0.5, "repeat": 1}',
            '{"first": 2, "second": 1, "outcome": 2.0, "x": 1e1, "repeat": 2}',
        ],
    )
    d = load_comparisons(log, outcome_map={1: "first", 2: "second"}, covariates=["x"])
    assert d.items == ("1", "2")
    assert d.outcome.tolist() == [1.0, 0.0]
    assert d.covariates["x"].tolist() == [0.5, 10.0]
    assert d.repeat.tolist() == [1, 2]


def test_json_number_and_string_of_the_same_text_are_refused(tmp_path):
    log = write_jsonl(tmp_path / "log.jsonl", ['{"first": 1, "second": "1", "outcome": "first"}'])
    with pytest.raises(DataError, match="different types would merge"):
        load_comparisons(log)


def test_bytes_ids_are_decoded_or_refused_naming_the_row():
    d = load_comparisons(pd.DataFrame({"first": [b"a"], "second": ["b"], "outcome": ["first"]}))
    assert d.items == ("a", "b")
    bad = pd.DataFrame({"first": ["a", b"\xff"], "second": ["b", "a"], "outcome": ["first"] * 2})
    with pytest.raises(DataError, match=r"bytes.*row 1"):
        load_comparisons(bad)


# --------------------------------------------------------------------------- Arena ambiguity
def test_arena_model_named_like_the_other_position_is_ambiguous(tmp_path, capsys):
    df = pd.DataFrame(
        {"model_a": ["model_b", "x"], "model_b": ["x", "y"], "winner": ["model_b"] * 2}
    )
    with pytest.raises(DataError, match=r"ambiguous winner 'model_b'.*row 0"):
        load_comparisons(df)
    # as the first/second/tie layout does
    pos = pd.DataFrame({"first": ["second", "x"], "second": ["x", "y"], "outcome": ["second"] * 2})
    with pytest.raises(DataError, match=r"ambiguous outcome 'second'.*row 0"):
        load_comparisons(pos)
    # an outcome_map settles the reading
    d = load_comparisons(df, outcome_map={"model_a": "first", "model_b": "second"})
    assert d.outcome.tolist() == [0.0, 0.0]
    log = tmp_path / "arena.csv"
    df.to_csv(log, index=False)
    line = one_error_line(capsys, ["estimate", str(log), "--method", "scom"])
    assert "ambiguous" in line and "--outcome-map" in line


# --------------------------------------------------------------------------- outputs
KILL_AFTER_FIRST_RENAME = """
import os, signal, sys
import bayes_pairwise.output as output
from bayes_pairwise.cli import main

real = os.replace
def replace_then_die(src, dst):
    real(src, dst)
    os.kill(os.getpid(), signal.SIGKILL)  # between the log's rename and the truth's

output.os.replace = replace_then_die
sys.exit(main(sys.argv[1:]))
"""

KILL_WHILE_WRITING = """
import os, signal, sys
import numpy as np
import pandas as pd
from bayes_pairwise.cli import main

def die(self, path, *a, **k):
    open(path, "w").write("half a log")
    os.kill(os.getpid(), signal.SIGKILL)

pd.DataFrame.to_csv = die
sys.exit(main(sys.argv[1:]))
"""


def run_script(script: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def truth_matches_log(folder: Path) -> bool:
    import hashlib
    import json

    truth = json.loads((folder / "s.truth.json").read_text())
    return truth["log_sha256"] == hashlib.sha256((folder / "s.csv").read_bytes()).hexdigest()


def test_simulate_log_and_truth_are_one_unit_across_a_kill(tmp_path):
    from bayes_pairwise.output import remove_stale_temporaries

    argv = ["simulate", "--n-items", "4", "--eps", "0.1", "--out", "s.csv"]
    assert main([*argv[:-1], str(tmp_path / "s.csv"), "--seed", "1"]) == 0
    old_log = (tmp_path / "s.csv").read_bytes()
    assert truth_matches_log(tmp_path)
    res = run_script(KILL_AFTER_FIRST_RENAME, [*argv, "--seed", "2"], tmp_path)
    assert res.returncode == -signal.SIGKILL
    assert (tmp_path / "s.csv").read_bytes() != old_log  # the log was renamed, then the kill
    assert any(p.name.endswith(".commit") for p in tmp_path.iterdir())  # the journal stayed
    # the next run in that folder completes the unit from the journal
    removed = remove_stale_temporaries(tmp_path)
    assert removed and truth_matches_log(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv", "s.truth.json"]


def test_simulate_killed_while_writing_keeps_the_old_unit_and_the_next_run_cleans_up(tmp_path):
    argv = ["simulate", "--n-items", "4", "--eps", "0.1", "--out", "s.csv"]
    assert main([*argv[:-1], str(tmp_path / "s.csv"), "--seed", "1"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    res = run_script(KILL_WHILE_WRITING, [*argv, "--seed", "2"], tmp_path)
    assert res.returncode == -signal.SIGKILL
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 3 and ".tmp-" in names[0]  # a temporary left behind by the kill
    assert {n: (tmp_path / n).read_bytes() for n in before} == before  # old unit untouched
    # the next run removes it (its writer is gone) and writes a whole new unit
    assert main([*argv[:-1], str(tmp_path / "s.csv"), "--seed", "3"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv", "s.truth.json"]
    assert truth_matches_log(tmp_path)


def test_temporaries_of_a_running_process_are_left_alone(tmp_path):
    from bayes_pairwise.output import remove_stale_temporaries

    mine = tmp_path / f".x.csv.tmp-{os.getpid()}-abcdefgh.csv"
    dead = tmp_path / ".x.csv.tmp-999999999-abcdefgh.csv"
    probe = tmp_path / ".x.csv.probe-999999999-abcdefgh"  # check_writable's, killed at once
    other = tmp_path / ".x.csv.tmp-notapid.csv"
    for p in (mine, dead, probe, other):
        p.write_text("x")
    assert set(remove_stale_temporaries(tmp_path)) == {dead, probe}
    assert mine.exists() and other.exists() and not dead.exists() and not probe.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["fit", "{log}", "--model", "uniform", "--map", "--out", ""],
        ["fit", "{log}", "--model", "uniform", "--map", "--verdicts", ""],
        ["report", "{log}", "--out", ""],
        ["simulate", "--eps", "0.1", "--out", ""],
        ["sbc", "--sims", "1", "--plot", ""],
    ],
)
def test_empty_output_paths_are_refused(tmp_path, capsys, monkeypatch, argv):
    import bayes_pairwise.cli as cli

    def boom(*a, **k):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(cli, "_load_data", boom)
    log = tmp_path / "log.csv"
    log.write_text("first,second,outcome\na,b,first\n")
    line = one_error_line(capsys, [a.format(log=log) for a in argv])
    assert "empty path" in line


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="no /proc")
def test_report_out_in_proc_fails_before_any_work(tmp_path, capsys, monkeypatch):
    import bayes_pairwise.cli as cli

    def boom(*a, **k):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(cli, "_load_data", boom)
    log = tmp_path / "log.csv"
    log.write_text("first,second,outcome\na,b,first\n")
    line = one_error_line(capsys, ["report", str(log), "--out", "/proc/x.html"])
    assert "/proc/x.html" in line
    line = one_error_line(capsys, ["fit", str(log), "--out", "/proc/x.nc"])
    assert "/proc/x.nc" in line


def test_the_writability_probe_leaves_nothing_behind(tmp_path):
    from bayes_pairwise.output import check_writable

    check_writable(tmp_path / "r.html", suffixes=(".html",))
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- arguments
def numeric_options() -> list[tuple[str, str, list[str]]]:
    """(command, flag, the command's other required arguments) for every numeric flag."""
    import argparse

    from bayes_pairwise.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for cmd, p in sub.choices.items():
        required: list[str] = []
        for a in p._actions:
            if not a.option_strings and a.dest not in ("help",) and a.nargs is None:
                required.append("log.csv")
            elif a.required:
                value = a.choices[0] if a.choices else ("1" if a.type else "x.csv")
                required += [a.option_strings[0], str(value)]
        for a in p._actions:
            if a.option_strings and getattr(a.type, "__name__", "") in (
                "integer",
                "number",
                "size",
            ):
                out.append((cmd, a.option_strings[0], required))
    return out


NUMERIC = numeric_options()


def test_the_numeric_flags_are_found():
    flags = {(c, f) for c, f, _ in NUMERIC}
    for want in [
        ("simulate", "--n-items"),
        ("simulate", "--repeats"),
        ("sbc", "--sims"),
        ("sbc", "--draws"),
        ("sbc", "--jobs"),
        ("strategies", "--reps"),
        ("fit", "--draws"),
    ]:
        assert want in flags
    assert len(NUMERIC) >= 30


@pytest.mark.parametrize(
    ("cmd", "flag", "required"), NUMERIC, ids=[f"{c} {f}" for c, f, _ in NUMERIC]
)
def test_every_numeric_flag_has_a_range_checked_before_work(capsys, cmd, flag, required):
    from bayes_pairwise.cli import _UsageError, build_parser

    for absurd in ["99999999999999999999", "-99999999999999999999", "1e400", "nan"]:
        argv = [cmd, *[r for r in required if r != flag], f"{flag}={absurd}"]
        with pytest.raises(_UsageError) as err:
            build_parser().parse_args(argv)
        msg = str(err.value)
        assert flag in msg, msg
        assert "between" in msg or "in [" in msg or "expected" in msg, msg
    # through main: one error line naming the flag, exit 2
    line = one_error_line(capsys, [cmd, *required, f"{flag}=99999999999999999999"])
    assert flag in line


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--n-items", "100000000", "--eps", "0.1", "--out", "s.csv"],
        ["simulate", "--repeats", "99999999999", "--eps", "0.1", "--out", "s.csv"],
        ["simulate", "--n-items", "99999999999999999999", "--eps", "0.1", "--out", "s.csv"],
        ["sbc", "--sims", "1000000000"],
        ["sbc", "--reps", "5"],  # no such flag: a usage error, one line
        ["sbc", "--draws", "1000000000"],
        ["sbc", "--jobs", "100000"],
        ["strategies", "--reps", "1000000000"],
    ],
)
def test_issue_reproducers_for_oversized_values_exit_2_naming_the_flag(tmp_path, argv):
    res = run_cli(argv, tmp_path)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    assert argv[1] in lines[0]
    assert not list(tmp_path.iterdir())


def test_simulate_refuses_too_many_verdicts_in_all_before_work(tmp_path, capsys, monkeypatch):
    import bayes_pairwise.simulate as simulate

    def boom(*a, **k):
        raise AssertionError("simulated before the size was checked")

    monkeypatch.setattr(simulate, "simulate_round_robin", boom)
    argv = ["simulate", "--n-items", "5000", "--repeats", "1000", "--eps", "0.1"]
    line = one_error_line(capsys, [*argv, "--out", str(tmp_path / "s.csv")])
    assert "--n-items" in line and "--repeats" in line and "10,000,000" in line


def _sigterm_after(
    argv: list[str], cwd: Path, wait_for: str, settle: float
) -> tuple[int, float, list[str]]:
    """Start the CLI, wait for a stderr line containing ``wait_for`` and ``settle`` seconds,
    send SIGTERM; return (exit status, seconds to stop, child PIDs seen before)."""
    import time

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bayes_pairwise.cli", *argv],
        cwd=cwd,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stderr is not None
        while wait_for not in proc.stderr.readline():
            assert proc.poll() is None, "ended before the signal"
        time.sleep(settle)
        kids = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        return rc, time.monotonic() - t0, kids
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow  # a clock: out of the default suite (the behaviour is tested below)
@pytest.mark.skipif(sys.platform != "linux", reason="pgrep and fork workers: Linux")
def test_sbc_workers_stop_within_5_s_of_sigterm(tmp_path):
    argv = ["sbc", "--sims", "50", "--jobs", "2", "--draws", "300", "--tune", "300"]
    rc, seconds, kids = _sigterm_after(argv, tmp_path, "simulations", settle=3.0)
    assert rc == 143
    assert seconds < 5.0  # the workers are terminated, not waited for (it took 2 minutes)
    import time

    deadline = time.monotonic() + 5.0  # the resource tracker notices the parent's end by itself
    while [k for k in kids if os.path.exists(f"/proc/{k}")] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert kids and not [k for k in kids if os.path.exists(f"/proc/{k}")]


@pytest.mark.slow  # a clock: out of the default suite
def test_strategies_stops_within_5_s_of_sigterm(tmp_path):
    argv = ["strategies", "--n-items", "3000", "--reps", "50", "--strategy", "pairwise:rounds=24"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "bayes_pairwise.cli", *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(4.0)
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        assert rc == 143 and time.monotonic() - t0 < 5.0
    finally:
        if proc.poll() is None:
            proc.kill()


# --------------------------------------------------------------------------- caches
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_delta_s_cache_file_is_skipped_not_opened(tmp_path):
    import warnings

    from bayes_pairwise.classical.deltas import synthetic_table
    from bayes_pairwise.errors import CacheWarning

    first = synthetic_table(6, grid_step=0.05, n_synthetic=3, cache_dir=tmp_path, random_seed=0)
    cached = first.cache_file
    assert cached is not None and cached.exists()
    cached.unlink()
    os.mkfifo(cached)  # a plain open() of it would block forever: nobody writes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = synthetic_table(6, grid_step=0.05, n_synthetic=3, cache_dir=tmp_path, random_seed=0)
    assert any(
        issubclass(w.category, CacheWarning) and "not a regular file" in str(w.message)
        for w in caught
    )
    assert not again.from_cache and np.array_equal(again.values, first.values)
    assert cached.is_file()  # rewritten as a regular file
    assert synthetic_table(
        6, grid_step=0.05, n_synthetic=3, cache_dir=tmp_path, random_seed=0
    ).from_cache


def test_a_temporary_left_in_the_cache_by_a_killed_run_is_removed_by_the_next_write(tmp_path):
    from bayes_pairwise.classical.deltas import synthetic_table

    stale = tmp_path / ".x-n6.npz.tmp-999999999-abcdefgh.npz"
    stale.write_bytes(b"half a table")
    synthetic_table(6, grid_step=0.05, n_synthetic=3, cache_dir=tmp_path, random_seed=0)
    assert not stale.exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_local_cluster_workers_are_killed_not_waited_for_on_an_interrupt():
    # the behaviour behind "sbc stops within seconds of SIGTERM": the workers are killed while
    # their task runs (a graceful close would wait for it)
    pytest.importorskip("distributed")
    import multiprocessing
    import time

    from bayes_pairwise.distributed import local_cluster_client

    before = set(multiprocessing.active_children())
    workers: list = []
    with pytest.raises(KeyboardInterrupt), local_cluster_client(1) as client:
        fut = client.submit(time.sleep, 600, pure=False)
        deadline = time.monotonic() + 120
        while not client.processing().get(next(iter(client.scheduler_info()["workers"]))):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        workers = list(set(multiprocessing.active_children()) - before)
        assert workers and fut.status == "pending"
        raise KeyboardInterrupt
    for proc in workers:
        proc.join(10)
        assert proc.exitcode == -signal.SIGKILL
    # and no nanny started a new worker in its place (closing the cluster, here or at exit,
    # waited for that worker to start: 12 s after SIGTERM on a loaded CI machine)
    assert not set(multiprocessing.active_children()) - before
