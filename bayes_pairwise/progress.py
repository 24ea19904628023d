"""Progress lines on stderr for long work, with the time each step took.

One class serves the cross-check and the report: a line per step (``[crosscheck 00:12.3]
fitting positional …``) when switched on, and a record of the steps and their durations either
way (the cross-check keeps them in ``timings``, the report prints them in its settings section).
On a terminal or piped, the line is the same: one line per step, flushed at once, so a log file
shows where a long run is. A NUTS run shows nutpie's progress bar on a terminal; piped, it
reports a line every few seconds instead (:func:`wait_reporting`: draws, divergences so far,
time left).
"""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "STEP_PER_JUDGE_MAX",
    "Steps",
    "Ticker",
    "nuts_line",
    "per_judge_lines",
    "wait_reporting",
]

#: A per-judge loop of at most this many judges prints a step per judge (:meth:`Steps.per_judge`).
STEP_PER_JUDGE_MAX = 8


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

    def note(self, line: str) -> None:
        """A progress line inside the current step (printed when ``on``; not a step)."""
        if self.on:
            el = time.perf_counter() - self.t0
            print(
                f"[{self.prefix} {int(el // 60):02d}:{el % 60:04.1f}]   {line}",
                file=sys.stderr,
                flush=True,
            )

    def per_judge(
        self,
        label: str,
        judges: Sequence[str],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> Callable[[str], None]:
        """A callback for a loop over ``judges``, called as each judge's work starts.

        Up to :data:`STEP_PER_JUDGE_MAX` judges, each is a step of its own (``label (j)``);
        above it, the loop is one step (``label (124 judges)``) whose progress lines follow
        :class:`Ticker`'s rule (a line about every tenth, the last always), so a log of 124
        judges prints a dozen lines, not one per judge (:func:`per_judge_lines`). ``clock`` is
        the Ticker's.

        Examples
        --------
        >>> steps = Steps(False)
        >>> start = steps.per_judge("fit", [str(k) for k in range(20)])
        >>> for j in map(str, range(20)):
        ...     start(j)
        >>> steps.close()
        >>> [name for name, _ in steps.steps]
        ['fit (20 judges)']
        """
        return per_judge_lines(
            judges,
            each=lambda j: self(f"{label} ({j})"),
            many=lambda n: self(f"{label} ({n:,} judges)"),
            note=self.note,
            clock=clock,
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


class Ticker:
    """``label done/total`` lines on stderr for a counted loop: at a tenth of the total, at most
    one every ``min_interval`` seconds, and the last one always.

    A loop that finishes in a blink prints its end alone; a long one prints a line about every
    tenth, so a log file shows how far it is. Every counted loop of the package (the bootstrap
    replicates of ``leaderboard`` and :func:`~bayes_pairwise.classical.bootstrap`, ``sbc``'s
    simulations, the judges of :meth:`Steps.per_judge`) reports through this one rule.

    Parameters
    ----------
    total : int
        The count the loop ends at.
    label : str
        Printed before ``done/total``.
    on : bool
        Print at all.
    min_interval : float
        Seconds that must pass between two lines before the last one.
    clock : callable
        Returns seconds (``time.monotonic``; tests pass their own).

    Examples
    --------
    >>> t = iter([0.0, 0.1, 0.2, 5.0, 5.1])
    >>> tick = Ticker(4, label="demo", on=False, clock=lambda: next(t))
    >>> [tick.due(d) for d in (1, 2, 3, 4)]
    [False, False, True, True]
    """

    def __init__(
        self,
        total: int,
        *,
        label: str,
        on: bool,
        min_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = int(total)
        self.label = label
        self.on = bool(on)
        self.min_interval = float(min_interval)
        self.clock = clock
        self.step = max(1, self.total // 10)
        self.last = clock()

    def due(self, done: int) -> bool:
        """Whether ``done`` gets a line (the rule, without printing)."""
        if done >= self.total:
            return True
        if done % self.step:
            return False
        now = self.clock()
        if now - self.last < self.min_interval:
            return False
        self.last = now
        return True

    def __call__(self, done: int) -> None:
        """Count ``done`` of ``total``; print its line when :meth:`due`."""
        if self.on and self.due(done):
            print(f"{self.label} {done}/{self.total}", file=sys.stderr, flush=True)


def per_judge_lines(
    judges: Sequence[str],
    *,
    each: Callable[[str], None],
    many: Callable[[int], None],
    note: Callable[[str], None],
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[str], None]:
    """The one rule for a loop over judges: up to :data:`STEP_PER_JUDGE_MAX` judges, ``each``
    judge's line as its work starts; above it, ``many`` once (with the count) and ``note``
    lines ``judge k/n (name)`` by :class:`Ticker`'s rule. Returns the callback to call as each
    judge starts.

    Examples
    --------
    >>> said = []
    >>> start = per_judge_lines(["a", "b"], each=said.append, many=None, note=None)
    >>> start("a"); start("b"); said
    ['a', 'b']
    >>> said = []
    >>> start = per_judge_lines([str(k) for k in range(30)], each=None,
    ...                         many=lambda n: said.append(f"{n} judges"), note=said.append,
    ...                         clock=lambda: 0.0)
    >>> for k in range(30):
    ...     start(str(k))
    >>> said
    ['30 judges', 'judge 30/30 (29)']
    """
    names = list(judges)
    if len(names) <= STEP_PER_JUDGE_MAX:
        return each
    many(len(names))
    tick = Ticker(len(names), label="", on=False, clock=clock)
    seen = {"n": 0}

    def start(judge: str) -> None:
        seen["n"] += 1
        if tick.due(seen["n"]):
            note(f"judge {seen['n']}/{len(names)} ({judge})")

    return start


def nuts_line(
    *, draws_done: int, draws: int, tune: int, chains: int, divergences: int, elapsed: float
) -> str:
    """One progress line of a NUTS run (draws per chain, divergences so far, time left).

    During tuning no draw is kept yet, so the line says so; after it, the time left is
    extrapolated from the share of tuning and drawing steps done (tuning counted as drawing).

    Examples
    --------
    >>> nuts_line(draws_done=0, draws=1000, tune=1000, chains=2, divergences=0, elapsed=12.0)
    'NUTS: tuning (1000 steps per chain, 2 chains), 12 s so far'
    >>> nuts_line(draws_done=500, draws=1000, tune=1000, chains=2, divergences=3, elapsed=30.0)
    'NUTS: 500/1000 draws per chain, 3 divergences so far, about 10 s left'
    """
    if draws_done <= 0:
        return f"NUTS: tuning ({tune} steps per chain, {chains} chains), {elapsed:.0f} s so far"
    share = (tune + draws_done) / max(tune + draws, 1)
    left = elapsed * (1.0 - share) / share if share > 0 else float("nan")
    div = f"{divergences} divergence{'s' if divergences != 1 else ''} so far"
    return f"NUTS: {draws_done}/{draws} draws per chain, {div}, about {left:.0f} s left"


def wait_reporting(
    sampler: Any,
    report: Callable[[str], None],
    *,
    draws: int,
    tune: int,
    chains: int,
    every: float = 10.0,
) -> Any:
    """Wait for a nutpie background sampler (``nutpie.sample(..., blocking=False)``), calling
    ``report`` with a :func:`nuts_line` every ``every`` seconds; returns its trace.

    For runs whose stderr is not a terminal (piped, logged), where nutpie's own progress bar
    shows nothing: the draws so far, the divergences so far and the time left, on one line
    every few seconds. The sampler is cancelled if waiting is interrupted.
    """
    t0 = time.monotonic()
    last = t0
    try:
        while True:
            try:
                finished = bool(sampler.is_finished)
            except TimeoutError:  # nutpie answers so while the chains are busy
                finished = False
            if finished:
                break
            time.sleep(0.25)
            now = time.monotonic()
            if now - last < every:
                continue
            last = now
            done, div = 0, 0
            # a snapshot is best effort; during tuning it holds no draws, and ArviZ warns
            # ("More chains than draws") about an empty trace nobody asked for
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stats = sampler.inspect().sample_stats
                done = int(stats.sizes.get("draw", 0))
                if "diverging" in stats:
                    div = int(stats["diverging"].sum())
            report(
                nuts_line(
                    draws_done=done,
                    draws=draws,
                    tune=tune,
                    chains=chains,
                    divergences=div,
                    elapsed=now - t0,
                )
            )
        return sampler.wait()
    except BaseException:
        with contextlib.suppress(Exception):
            sampler.cancel()
        raise
