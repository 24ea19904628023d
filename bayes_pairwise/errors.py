"""Exception and warning types raised by bayes_pairwise.

Every error the package raises on purpose derives from :class:`BayesPairwiseError`, so callers can
catch the package's own failures with one ``except`` clause.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "BayesPairwiseError",
    "CacheWarning",
    "ConvergenceWarning",
    "DataError",
    "DesignError",
    "DesignWarning",
    "NotFittedError",
    "PriorError",
]


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

    Examples
    --------
    >>> err = DataError("unknown outcome label 'x'", rows=[3, 7], column="winner")
    >>> err.rows, err.column
    ([3, 7], 'winner')
    >>> print(err)
    unknown outcome label 'x' (column 'winner', rows 3, 7)
    """

    def __init__(
        self, message: str, *, rows: Sequence[int] | None = None, column: str | None = None
    ) -> None:
        self.rows = [int(r) for r in rows] if rows is not None else []
        self.column = column
        self.message = message
        where = []
        if column is not None:
            where.append(f"column {column!r}")
        if self.rows:
            where.append(f"row{'s' if len(self.rows) > 1 else ''} {_format_rows(self.rows)}")
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


class ConvergenceWarning(UserWarning):
    """An iterative estimator or sampler did not converge / failed its diagnostics."""


class CacheWarning(UserWarning):
    """A cache file could not be read or failed its checksum; it is recomputed and rewritten."""
