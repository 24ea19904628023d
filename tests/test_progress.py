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


def test_a_loop_over_many_judges_is_one_step_with_a_line_per_tenth(capsys) -> None:
    """Up to STEP_PER_JUDGE_MAX judges a step each (their times recorded by name); above it
    one step for the loop, and the judges counted by Ticker's rule: LLMFAO's 124 judges
    printed 124 lines per loop (515 progress lines in `compare --map`), now about a dozen."""
    from bayes_pairwise.progress import STEP_PER_JUDGE_MAX

    few = [f"j{k}" for k in range(STEP_PER_JUDGE_MAX)]
    steps = Steps(True, prefix="x")
    start = steps.per_judge("Δ_S", few)
    for j in few:
        start(j)
    steps.close()
    assert [n for n, _ in steps.steps] == [f"Δ_S ({j})" for j in few]
    assert len(capsys.readouterr().err.splitlines()) == STEP_PER_JUDGE_MAX

    many = [str(k) for k in range(124)]
    now = [0.0]
    steps = Steps(True, prefix="x")
    start = steps.per_judge("Δ_S", many, clock=lambda: now[0])
    for k, j in enumerate(many):
        now[0] = 0.5 * k  # 6 s per tenth: every tenth gets its line
        start(j)
    steps.close()
    assert [n for n, _ in steps.steps] == ["Δ_S (124 judges)"]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("] Δ_S (124 judges) …")
    assert [ln.split("judge ")[1] for ln in lines[1:]] == [
        f"{n}/124 ({n - 1})" for n in (*range(12, 121, 12), 124)
    ]
    # done in a blink: the step and its last judge only
    steps = Steps(True, prefix="x")
    start = steps.per_judge("Δ_S", many, clock=lambda: 0.0)
    for j in many:
        start(j)
    assert [ln.split("] ")[1] for ln in capsys.readouterr().err.splitlines()] == [
        "Δ_S (124 judges) …",
        "  judge 124/124 (123)",
    ]
