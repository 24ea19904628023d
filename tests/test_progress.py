"""One progress/timing helper for the cross-check and the report."""

from __future__ import annotations

import time

from bayes_pairwise.progress import Steps, Ticker


def test_steps_record_times_and_print_only_when_on(capsys) -> None:
    quiet = Steps(False, prefix="x")
    quiet("a")
    time.sleep(0.02)
    quiet("b")
    quiet("a")  # a repeated step name adds up in ``times``
    total = quiet.finish()
    assert [n for n, _ in quiet.steps] == ["a", "b", "a"]
    assert quiet.times["a"] >= 0.02 and set(quiet.times) == {"a", "b"}
    assert total >= sum(sec for _, sec in quiet.steps)
    assert capsys.readouterr().err == ""

    loud = Steps(True, prefix="report")
    loud("fitting positional (NUTS)")
    loud.finish()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[report 00:0") and lines[0].endswith("fitting positional (NUTS) …")
    assert lines[1].endswith("] done")


def test_ticker_prints_a_tenth_at_most_once_a_second_and_always_the_end(capsys) -> None:
    # a fake clock: 0.4 s per replicate up to 50 (the tenths come 4 s apart), then 0.01 s
    # per replicate (the tenths 60 … 90 come 0.1 s apart: no line until the end)
    now = [0.0]
    tick = Ticker(100, label="[x] bootstrap", on=True, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] = 0.4 * done if done <= 50 else 20.0 + 0.01 * (done - 50)
        tick(done)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "[x] bootstrap 10/100"
    assert [int(line.split()[-1].split("/")[0]) for line in lines] == [10, 20, 30, 40, 50, 100]


def test_ticker_on_a_loop_done_in_a_blink_prints_only_its_end(capsys) -> None:
    tick = Ticker(1000, label="bootstrap:", on=True, clock=lambda: 0.0)
    for done in range(1, 1001):
        tick(done)
    assert capsys.readouterr().err.splitlines() == ["bootstrap: 1000/1000"]
    off = Ticker(10, label="bootstrap:", on=False, clock=lambda: 0.0)
    off(10)
    assert capsys.readouterr().err == ""
