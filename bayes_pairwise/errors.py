"""Exception and warning types raised by bayes_pairwise.

Every error the package raises on purpose derives from :class:`BayesPairwiseError`, so callers can
catch the package's own failures with one ``except`` clause.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = [
    "BLAS_NOTICE",
    "THIRD_PARTY_NOTICES",
    "BayesPairwiseError",
    "CacheWarning",
    "ConvergenceWarning",
    "DataError",
    "DesignError",
    "DesignWarning",
    "NotFittedError",
    "PriorError",
    "TieRescalingWarning",
    "WarningSink",
    "quiet_sampler_logs",
    "quiet_third_party",
    "user_stacklevel",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside the package.

    Call it in the function that calls :func:`warnings.warn`. However deep inside the package
    the warning is raised (a model fit inside ``compare_models`` inside ``crosscheck``), it is
    then reported at the user's line (a notebook cell, a script), not at an internal one.

    Examples
    --------
    >>> import warnings
    >>> def inner():
    ...     warnings.warn("x", stacklevel=user_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     inner()
    >>> caught[0].filename.endswith("errors.py")
    False
    """
    frame = sys._getframe(1)  # the function that will call warnings.warn: level 1
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def _format_rows(rows: Sequence[int], limit: int = 10) -> str:
    rows = list(rows)
    shown = ", ".join(str(r) for r in rows[:limit])
    if len(rows) > limit:
        shown += f", … ({len(rows) - limit} more)"
    return shown


class BayesPairwiseError(Exception):
    """Base class of every error raised on purpose by bayes_pairwise."""


class DataError(BayesPairwiseError, ValueError):
    """Bad input data: names the offending ``column`` and the offending ``rows``.

    Parameters
    ----------
    message : str
        What is wrong, in words.
    rows : sequence of int, optional
        Positions (0-based, in the user's input) of the offending rows.
    column : str, optional
        Name of the offending column in the user's input.
    lines : sequence of int, optional
        Where ``rows`` stand in a text file: the line numbers (1-based, the header line 1) of
        the first ten of them, as an editor shows them; said with ``file``.
    file : str, optional
        The file ``lines`` count in.

    Examples
    --------
    >>> err = DataError("unknown outcome label 'x'", rows=[3, 7], column="winner")
    >>> err.rows, err.column
    ([3, 7], 'winner')
    >>> print(err)
    unknown outcome label 'x' (column 'winner', rows 3, 7)
    >>> print(DataError("missing value", rows=[1], column="second", lines=[3], file="log.csv"))
    missing value (column 'second', row 1: line 3 of log.csv)
    """

    def __init__(
        self,
        message: str,
        *,
        rows: Sequence[int] | None = None,
        column: str | None = None,
        lines: Sequence[int] | None = None,
        file: str | None = None,
    ) -> None:
        self.rows = [int(r) for r in rows] if rows is not None else []
        self.column = column
        self.message = message
        self.lines = [int(n) for n in lines] if lines else []
        self.file = file
        where = []
        if column is not None:
            where.append(f"column {column!r}")
        if self.rows:
            at = f"row{'s' if len(self.rows) > 1 else ''} {_format_rows(self.rows)}"
            if self.lines and file:
                n = len(self.lines)
                at += f": line{'s' if n > 1 else ''} {_format_rows(self.lines)} of {file}"
            where.append(at)
        super().__init__(f"{message} ({', '.join(where)})" if where else message)


class DesignError(BayesPairwiseError, ValueError):
    """The data are valid but cannot support the requested computation.

    Examples: a pair seen in only one order when Z is asked for, a disconnected comparison graph
    for unregularised Bradley–Terry, ties under the ``"half"`` policy for a binomial model.
    """


class PriorError(BayesPairwiseError, ValueError):
    """An unknown prior name or a malformed prior specification."""


class NotFittedError(BayesPairwiseError, AttributeError):
    """A fitted attribute was requested before ``fit`` was called."""


class DesignWarning(UserWarning):
    """The data cannot inform a parameter (confounding, missing orders, …)."""


class TieRescalingWarning(DesignWarning):
    """A judge's ties break the rescaling for the tie share (METHODS §7.5).

    The classical rates under the tie policy ``"model"`` are rescaled from S_com with the tie
    share τ, ε = (ε_half − τ/2)/(1 − τ), which assumes a tie does not depend on which text is
    better and that a pair's two verdicts tie independently. Where a judge's log says otherwise
    (:attr:`~bayes_pairwise.classical.descriptive.TiePositionCheck.rescaling_fails`), the
    estimators warn with this category and give the rates of the pairs decided in both orders
    beside the rescaled ones. It is a :class:`DesignWarning`, so the report and the cross-check
    collect it as one; code that shows both numbers itself filters it by category.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", TieRescalingWarning)
    ...     warnings.warn("the rescaling … does not hold", TieRescalingWarning, stacklevel=1)
    >>> issubclass(TieRescalingWarning, DesignWarning)
    True
    """


class ConvergenceWarning(UserWarning):
    """An iterative estimator or sampler did not converge / failed its diagnostics."""


class CacheWarning(UserWarning):
    """A cache file could not be read or failed its checksum; it is recomputed and rewritten."""


class WarningSink:
    """Warnings caught while loading, estimating and fitting, de-duplicated, by kind.

    ``design`` (:class:`DesignWarning`), ``convergence`` (:class:`ConvergenceWarning`) and
    ``other`` (any other ``UserWarning``). NumPy's bare ``RuntimeWarning`` ("divide by zero …")
    and dependencies' deprecation notices are not messages for the reader and are skipped. The
    cross-check and the report collect into one of these.

    Examples
    --------
    >>> import warnings
    >>> sink = WarningSink()
    >>> with sink.capture("fit: "):
    ...     warnings.warn("only one order", DesignWarning, stacklevel=1)
    ...     warnings.warn("divide by zero", RuntimeWarning, stacklevel=1)
    >>> sink.design, sink.other
    (['fit: only one order'], [])
    """

    def __init__(self) -> None:
        self.design: list[str] = []
        self.convergence: list[str] = []
        self.other: list[str] = []

    def add(self, records: Sequence[Any], where: str = "") -> None:
        """Sort recorded ``warnings.WarningMessage`` objects into the three lists."""
        for r in records:
            msg = f"{where}{r.message}" if where else str(r.message)
            if issubclass(r.category, DesignWarning):
                bucket = self.design
            elif issubclass(r.category, ConvergenceWarning):
                bucket = self.convergence
            elif r.category is RuntimeWarning:
                continue  # NumPy's arithmetic noise (issue 12)
            elif issubclass(r.category, UserWarning | RuntimeWarning):
                bucket = self.other
            else:  # deprecation noise from dependencies is not the user's business
                continue
            if msg not in bucket:
                bucket.append(msg)

    @contextlib.contextmanager
    def capture(self, where: str = "") -> Iterator[None]:
        """Record every warning raised inside the block (prefixed with ``where``)."""
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                self.add(rec, where)

    def as_dict(self) -> dict[str, list[str]]:
        """``{"design": [...], "convergence": [...], "other": [...]}`` (copies)."""
        return {
            "design": list(self.design),
            "convergence": list(self.convergence),
            "other": list(self.other),
        }


#: PyTensor's five-line notice at the first compile of a pip install. It is about speed, not
#: correctness (docs/src/installation.md, "A faster BLAS", says how to link one).
BLAS_NOTICE = r"PyTensor could not link to a BLAS installation"
#: numba's notice, after any terminal colour codes, that a function holding large constants
#: (the order models' tables) is compiled again in each process: filtered where nutpie's graph
#: is compiled, whose progress line already says that a compile runs
NUMBA_NO_CACHE_NOTICE = r"(\x1b\[[0-9;]*m)*Cannot cache compiled function"
#: third-party notices a user cannot act on, by category and message (matched at the start)
THIRD_PARTY_NOTICES: tuple[tuple[type[Warning], str], ...] = (
    (FutureWarning, r"\s*ArviZ is undergoing a major refactor"),  # once a day, at import
    (UserWarning, BLAS_NOTICE),
)
#: PyMC's INFO lines that name what it samples ("Sampling: [wins]"): the package says it itself
_PYMC_LOGGERS = ("pymc", "pymc.sampling.forward", "pymc.sampling.mcmc")


class _DropSamplingLines:
    """A logging filter that drops PyMC's bare ``Sampling: [...]`` lines."""

    def filter(self, record: Any) -> bool:
        return not str(record.getMessage()).startswith("Sampling: [")


@contextlib.contextmanager
def quiet_third_party() -> Iterator[None]:
    """Inside the block, drop dependencies' notices a user cannot act on.

    For the package's entry points only (the command line's ``main``, the report builder),
    never at import: ArviZ's daily refactor notice, PyTensor's BLAS notice and PyMC's bare
    ``Sampling: [wins]`` lines. Everything else (the package's own warnings, other
    dependencies' warnings) passes as before; filters are restored on exit.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with quiet_third_party():
    ...         warnings.warn("\\nArviZ is undergoing a major refactor …", FutureWarning,
    ...                       stacklevel=1)
    ...         warnings.warn("only one order", DesignWarning, stacklevel=1)
    >>> [str(w.message) for w in seen]
    ['only one order']
    """
    import logging

    drop = _DropSamplingLines()
    loggers = [logging.getLogger(name) for name in _PYMC_LOGGERS]
    with warnings.catch_warnings():
        for category, message in THIRD_PARTY_NOTICES:
            warnings.filterwarnings("ignore", message=message, category=category)
        for lg in loggers:
            lg.addFilter(drop)
        try:
            yield
        finally:
            for lg in loggers:
                lg.removeFilter(drop)


@contextlib.contextmanager
def quiet_sampler_logs() -> Iterator[None]:
    """Inside the block, PyMC's loggers pass warnings and errors only.

    For batches of internal fits (simulation-based calibration): PyMC's sampler logs four INFO
    lines per fit ("Initializing NUTS …", "Sampling 2 chains … took 38 seconds"), which would
    bury the batch's own progress lines. The level is restored on exit.

    Examples
    --------
    >>> import logging
    >>> with quiet_sampler_logs():
    ...     logging.getLogger("pymc.sampling.mcmc").isEnabledFor(logging.INFO)
    False
    """
    import logging

    lg = logging.getLogger("pymc")
    level = lg.level
    lg.setLevel(logging.WARNING)
    try:
        yield
    finally:
        lg.setLevel(level)
