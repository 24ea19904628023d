"""One progress/timing helper for the cross-check and the report."""

from __future__ import annotations

import time

from bayes_pairwise.progress import Steps


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
