"""Progress lines on stderr for long work, with the time each step took.

One class serves the cross-check and the report: a line per step (``[crosscheck 00:12.3]
fitting positional …``) when switched on, and a record of the steps and their durations either
way (the cross-check keeps them in ``timings``, the report prints them in its settings section).
On a terminal or piped, the line is the same: one line per step, flushed at once, so a log file
shows where a long run is.
"""

from __future__ import annotations

import sys
import time

__all__ = ["Steps"]


class Steps:
    """Named steps with their wall time; a progress line per step when ``on``.

    Parameters
    ----------
    on : bool
        Print a line per step on stderr.
    prefix : str
        Shown in brackets before the elapsed time.

    Examples
    --------
    >>> steps = Steps(False, prefix="demo")
    >>> steps("load"); steps("fit")
    >>> total = steps.finish()
    >>> [name for name, _ in steps.steps], list(steps.times) == ["load", "fit"]
    (['load', 'fit'], True)
    """

    def __init__(self, on: bool, *, prefix: str = "bayes_pairwise") -> None:
        self.on = bool(on)
        self.prefix = prefix
        self.t0 = time.perf_counter()
        self.steps: list[tuple[str, float]] = []
        self._current: tuple[str, float] | None = None

    def __call__(self, name: str) -> None:
        self.close()
        now = time.perf_counter()
        self._current = (name, now)
        if self.on:
            el = now - self.t0
            print(
                f"[{self.prefix} {int(el // 60):02d}:{el % 60:04.1f}] {name} …",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        """End the current step (its time is recorded)."""
        if self._current is not None:
            self.steps.append((self._current[0], time.perf_counter() - self._current[1]))
            self._current = None

    def finish(self) -> float:
        """End the current step; the total wall time since the start, in seconds."""
        self.close()
        if self.on:
            el = time.perf_counter() - self.t0
            print(
                f"[{self.prefix} {int(el // 60):02d}:{el % 60:04.1f}] done",
                file=sys.stderr,
                flush=True,
            )
        return time.perf_counter() - self.t0

    @property
    def times(self) -> dict[str, float]:
        """Seconds per step name (a repeated name adds up)."""
        out: dict[str, float] = {}
        for name, sec in self.steps:
            out[name] = out.get(name, 0.0) + sec
        return out
