"""Bradley–Terry strengths: MM (with ridge), Newman's iteration, logistic MLE, and the paper's
biased-BT ε-spread search (METHODS §6).

Model: P(i ≻ j) = σ(θ_i − θ_j) = π_i / (π_i + π_j), θ = log π, reported centred (Σθ = 0).

Three independent solvers of the same likelihood, all working on the aggregated win-count
matrix X (x_ij = times i beat j in any order; ties count half a win each way):

* ``"mm"`` — Hunter's (2004) minorise–maximise iteration with the ridge of METHODS §6 (seed 003,
  eq. 5): π_i ← (W_i + λ) / (Σ_j m_ij/(π_i + π_j) + λ), W_i = Σ_j x_ij, m_ij = x_ij + x_ji, then
  the geometric mean of π is renormalised to 1 after every step.
* ``"newman"`` — Newman's (2023) iteration π_i ← Σ_j x_ij π_j/(π_i+π_j) / Σ_j x_ji/(π_i+π_j).
* ``"mle"`` — a logistic regression: the binomial log-likelihood maximised over θ with
  :func:`scipy.optimize.minimize` (trust-region Newton with the exact Hessian).

With λ = 0 the maximum-likelihood estimate exists iff the directed "beat" graph (an edge
i → j when x_ij > 0) is strongly connected (Ford 1957; Hunter 2004, assumption 1). Otherwise
some strengths run off to ±∞, and the solvers raise :class:`~bayes_pairwise.errors.DesignError`
naming the components. A ridge λ > 0 (MM only) makes every update finite; then the offsets between
disconnected components are set by λ alone.

**Ridge and renormalisation.** Eq. 5 without renormalisation is the MM ascent of
ℓ(π) + λ Σ_i (log π_i − π_i). Renormalising the geometric mean after every step, as METHODS §6
prescribes, changes the fixed point slightly when λ > 0 (the penalty is not scale-free), so with
λ > 0 the result is the fixed point of the renormalised map, not a penalised MLE. For λ = 0 the
renormalisation is harmless and all three solvers agree (to ~1e-10). Because the ridge is defined
by that iteration, ``ridge > 0`` is accepted by ``method="mm"`` only. On a disconnected graph the
MM contraction rate is about 1 − O(λ): use λ ≳ 0.01 there, or raise ``max_iter``.

**Biased BT (paper, Suppl. D, eqs. S4–S6).** P(i ≻ j) = π_i/(π_i + e^ε π_j), iterated as printed,
π_i ← [Σ_j x_ij e^ε π_j/(π_i + e^ε π_j)] / [Σ_j x_ji/(π_i + e^ε π_j)], applied to every win
regardless of position. For ε > 0 this model is *improper* (P(i≻j) + P(j≻i) < 1), so the
iteration has no fixed point: the scores drift upward "synchronously" and the paper stops when
the ranking is unchanged for one iteration. :class:`BiasedBTSpreadSearch` reproduces the paper's
ε search (grid 0.005 on [0, 0.5], minimise or maximise max(ŝ) − min(ŝ), 200 random initial
score vectors ŝ⁰ ~ U[0, 1], histogram of ε_opt in bins of 0.02) as the paper's *weak baseline*,
edge-bin failure modes included. The proper positional-bias model is the Bayesian
``BiasedBradleyTerry`` (METHODS §7.3).
"""

from __future__ import annotations

import copy
import sys
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from bayes_pairwise.errors import (
    ConvergenceWarning,
    DataError,
    DesignError,
    NotFittedError,
    user_stacklevel,
)

if TYPE_CHECKING:
    import arviz as az

    from bayes_pairwise.data import Comparisons

__all__ = [
    "FALLBACK_RIDGE",
    "BTResult",
    "BiasedBTRun",
    "BiasedBTSpreadSearch",
    "BradleyTerry",
    "EstimatorBase",
    "biased_bt_iterate",
    "biased_bt_spread_search",
    "bt_mle",
    "bt_mm",
    "bt_newman",
    "check_bt_connected",
    "fit_bradley_terry",
    "mm_ridge",
    "resolve_win_matrix",
    "ridge_gap",
    "win_matrix_from_arrays",
]

BTMethod = Literal["mm", "newman", "mle"]
_METHODS = ("mm", "newman", "mle")


# --------------------------------------------------------------------------- input handling
def win_matrix_from_arrays(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_items: int | None = None,
) -> np.ndarray:
    """Aggregate verdict arrays into the win-count matrix X (fast, via ``np.bincount``).

    Parameters
    ----------
    first, second : array of int
        Item index shown first / second, one entry per verdict.
    outcome : array of float
        1 when the first-shown item won, 0 when the second-shown one won, 0.5 for a tie
        (half a win each way). Any value in [0, 1] is accepted (a fractional win).
    n_items : int, optional
        Number of items (default ``max(first, second) + 1``).

    Returns
    -------
    ndarray, shape (n_items, n_items)
        x_ij = (weighted) number of times i beat j, in either presentation order.

    Examples
    --------
    >>> win_matrix_from_arrays([0, 1, 0], [1, 0, 1], [1.0, 1.0, 0.5]).tolist()
    [[0.0, 1.5], [1.5, 0.0]]
    """
    f = np.asarray(first, dtype=np.int64)
    s = np.asarray(second, dtype=np.int64)
    o = np.asarray(outcome, dtype=float)
    if not (f.shape == s.shape == o.shape) or f.ndim != 1:
        raise DataError("first, second and outcome must be 1-D arrays of the same length")
    if f.size and (min(f.min(), s.min()) < 0):
        raise DataError("item indexes must be non-negative")
    if np.any((o < 0) | (o > 1)) or not np.all(np.isfinite(o)):
        raise DataError("outcomes must lie in [0, 1]")
    n = int(n_items) if n_items is not None else int(max(f.max(initial=-1), s.max(initial=-1)) + 1)
    code = f * n + s
    won_first = np.bincount(code, weights=o, minlength=n * n)
    games = np.bincount(code, minlength=n * n).astype(float)
    x = won_first.reshape(n, n) + (games - won_first).reshape(n, n).T
    return x


def resolve_win_matrix(data: Any) -> tuple[np.ndarray, tuple[str, ...], dict[str, Any]]:
    """(X, labels, info) from a Comparisons, a labelled DataFrame or a plain square array.

    The one input rule of the win-count estimators (Bradley–Terry, Elo, the biased-BT search).

    Examples
    --------
    >>> x, labels, info = resolve_win_matrix([[0, 2], [1, 0]])
    >>> x.tolist(), labels, info["source"]
    ([[0.0, 2.0], [1.0, 0.0]], ('0', '1'), 'win matrix')
    """
    from bayes_pairwise.data import Comparisons

    if isinstance(data, Comparisons):
        from bayes_pairwise.matrices import win_matrix

        x = win_matrix(data).to_numpy(dtype=float)
        info = {
            "tie_policy": data.tie_policy,
            "n_comparisons": data.n_comparisons,
            "has_contexts": data.has_contexts,
            "source": data.source,
        }
        return x, tuple(data.items), info
    if isinstance(data, pd.DataFrame):
        if list(data.index) != list(data.columns):
            raise DataError("a win-matrix DataFrame needs identical row and column labels")
        x = _check_matrix(data.to_numpy(dtype=float))
        return x, tuple(str(v) for v in data.index), {"source": "win matrix"}
    x = _check_matrix(np.asarray(data, dtype=float))
    return x, tuple(str(i) for i in range(x.shape[0])), {"source": "win matrix"}


def _check_matrix(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise DataError(f"the win matrix must be square, got shape {x.shape}")
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise DataError("win counts must be finite and non-negative")
    if np.any(np.diag(x) != 0):
        raise DataError("the win matrix has a non-zero diagonal (self-comparisons)")
    if x.shape[0] < 2:
        raise DesignError("a win matrix needs at least two items")
    return x


@dataclass(frozen=True)
class _Pairs:
    """Unordered pairs {i, j} (i < j) that met at least once (possibly fractional counts)."""

    n: int
    i: np.ndarray
    j: np.ndarray
    x_ij: np.ndarray
    x_ji: np.ndarray

    @property
    def m(self) -> np.ndarray:
        return self.x_ij + self.x_ji

    @classmethod
    def from_matrix(cls, x: np.ndarray) -> _Pairs:
        n = x.shape[0]
        iu, ju = np.triu_indices(n, 1)
        a, b = x[iu, ju], x[ju, iu]
        keep = (a + b) > 0
        return cls(n, iu[keep], ju[keep], a[keep], b[keep])


def _component_text(labels: tuple[str, ...], comp: np.ndarray, limit: int = 6) -> str:
    groups = []
    for c in np.unique(comp):
        members = [labels[k] for k in np.flatnonzero(comp == c)]
        shown = ", ".join(members[:limit]) + (
            f", … ({len(members) - limit} more)" if len(members) > limit else ""
        )
        groups.append("{" + shown + "}")
    if len(groups) > 8:
        groups = [*groups[:8], f"… ({len(groups) - 8} more components)"]
    return " | ".join(groups)


#: The one ridge λ used when the Bradley–Terry MLE does not exist (win graph not strongly
#: connected): by the cross-check, the report and the leaderboard alike.
FALLBACK_RIDGE = 0.1


def mm_ridge(x: np.ndarray, labels: tuple[str, ...] | None = None) -> tuple[float, str]:
    """The ridge for MM on a win matrix: 0 when the MLE exists, else :data:`FALLBACK_RIDGE`.

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix.
    labels : tuple of str, optional

    Returns
    -------
    ridge : float
    note : str
        What was used and why, in words.

    Examples
    --------
    >>> import numpy as np
    >>> mm_ridge(np.array([[0, 2], [1, 0]]))
    (0.0, 'MM (Hunter 2004), λ = 0')
    >>> mm_ridge(np.array([[0, 2], [0, 0]]))[0]
    0.1
    """
    gap = ridge_gap(x, labels)
    if not gap:
        return 0.0, "MM (Hunter 2004), λ = 0"
    return FALLBACK_RIDGE, f"MM with ridge λ = {FALLBACK_RIDGE}: {gap}"


def ridge_gap(x: np.ndarray, labels: tuple[str, ...] | None = None) -> str:
    """What a ridge decides instead of the verdicts on the win matrix X: ``""`` when the MLE
    exists, else why it does not (naming the items) and what of the strengths to read.

    Examples
    --------
    >>> import numpy as np
    >>> ridge_gap(np.array([[0, 2], [1, 0]]))
    ''
    >>> ridge_gap(np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))[-34:]
    'read ranks within a component only'
    """
    problem = _connectivity_problem(x, labels)
    if not problem:
        return ""
    if problem.startswith("the comparison graph is disconnected"):
        what = (
            "the offsets between components come from the ridge's pull towards 0, not from "
            "any verdict: read ranks within a component only"
        )
    else:
        what = (
            "those items' strengths are bounded by the verdicts on one side only; their "
            "values, intervals and ranks against the rest come from the ridge"
        )
    return f"{problem}; {what}"


def check_bt_connected(
    x: np.ndarray, labels: tuple[str, ...] | None = None, *, hint: str = ""
) -> None:
    """Raise :class:`DesignError` unless the Bradley–Terry MLE exists for the win matrix X.

    The MLE (λ = 0) exists iff the directed graph with an edge i → j whenever x_ij > 0 is strongly
    connected: for every split of the items into two groups, somebody in each group beat somebody
    in the other (Ford 1957). A weakly disconnected graph has no information at all on the offsets
    between its parts; a connected but not strongly connected one has a group that never lost to
    (or never beat) the rest, whose strengths diverge.

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix.
    labels : tuple of str, optional
        Item labels for the message.
    hint : str
        Extra advice appended to the message.

    Examples
    --------
    >>> import numpy as np
    >>> check_bt_connected(np.array([[0, 2], [1, 0]]))      # fine: each beat the other
    >>> check_bt_connected(np.array([[0, 2], [0, 0]]), ("a", "b"))
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.DesignError: the win graph is connected but not strongly connected ...
    """
    problem = _connectivity_problem(x, labels)
    if problem:
        tail = (
            " Use ridge > 0 to regularise (BradleyTerry(method='mm', ridge=0.1); --ridge 0.1 "
            "on the command line), or collect the missing comparisons."
        )
        raise DesignError(f"{problem}.{tail}{hint}")


def _connectivity_problem(x: np.ndarray, labels: tuple[str, ...] | None = None) -> str:
    """Why the Bradley–Terry MLE does not exist for the win matrix X, naming the items ('' when
    it exists): :func:`check_bt_connected`'s message and :func:`mm_ridge`'s note."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    labels = labels or tuple(str(k) for k in range(n))
    adj = csr_matrix(x > 0)
    n_weak, weak = connected_components(adj, directed=True, connection="weak")
    if n_weak > 1:
        return (
            f"the comparison graph is disconnected ({n_weak} components: "
            f"{_component_text(labels, weak)}); Bradley–Terry strengths cannot be compared "
            "across components and the MLE does not exist"
        )
    n_strong, strong = connected_components(adj, directed=True, connection="strong")
    if n_strong > 1:
        # name the components that never lost to / never beat the rest
        cond = np.zeros((n_strong, n_strong), dtype=bool)
        ii, jj = np.nonzero(x > 0)
        cond[strong[ii], strong[jj]] = True
        np.fill_diagonal(cond, False)
        never_lost = [c for c in range(n_strong) if not cond[:, c].any()]
        never_won = [c for c in range(n_strong) if not cond[c, :].any()]

        def named(comps: list[int]) -> str:
            groups = []
            for c in comps[:8]:
                members = [labels[k] for k in np.flatnonzero(strong == c)]
                more = f", … ({len(members) - 6} more)" if len(members) > 6 else ""
                groups.append("{" + ", ".join(members[:6]) + more + "}")
            return "; ".join(groups)

        parts = []
        if never_lost:
            parts.append(f"never beaten by the rest: {named(never_lost)}")
        if never_won:
            parts.append(f"never beat the rest: {named(never_won)}")
        return (
            f"the win graph is connected but not strongly connected ({n_strong} strong "
            f"components; {', '.join(parts)}): their strengths diverge and the MLE does not "
            "exist"
        )
    return ""


# --------------------------------------------------------------------------- solvers
@dataclass(frozen=True)
class BTResult:
    """Result of an array-level Bradley–Terry fit.

    Attributes
    ----------
    theta : ndarray
        Centred log-strengths θ (Σθ = 0).
    n_iter : int
        Iterations used (optimizer iterations for ``"mle"``).
    converged : bool
        Whether max |Δθ| fell below ``tol`` (for ``"mle"``: the final Newton step).
    max_delta : float
        The last max |Δθ| (for ``"mle"``: max |Newton step| at the solution).
    method : str
    ridge : float
    log_likelihood : float
        Σ_ij x_ij log σ(θ_i − θ_j) at ``theta`` (the unpenalised BT log-likelihood).
    """

    theta: np.ndarray
    n_iter: int
    converged: bool
    max_delta: float
    method: str
    ridge: float = 0.0
    log_likelihood: float = field(default=float("nan"))


def _loglik(p: _Pairs, theta: np.ndarray) -> float:
    d = theta[p.i] - theta[p.j]
    return float(-np.sum(p.x_ij * np.logaddexp(0.0, -d) + p.x_ji * np.logaddexp(0.0, d)))


def _warn_not_converged(method: str, n_iter: int, delta: float, tol: float) -> None:
    warnings.warn(
        f"Bradley–Terry ({method}) did not converge in {n_iter} iterations "
        f"(max |Δθ| = {delta:.3g} > tol = {tol:.3g}); raise max_iter",
        ConvergenceWarning,
        stacklevel=user_stacklevel(),
    )


def _prepare(
    x: np.ndarray, labels: tuple[str, ...] | None, ridge: float, hint: str = ""
) -> tuple[np.ndarray, _Pairs]:
    x = _check_matrix(x)
    if ridge < 0 or not np.isfinite(ridge):
        raise ValueError(f"ridge must be finite and >= 0, got {ridge}")
    if ridge == 0:
        check_bt_connected(x, labels, hint=hint)
    return x, _Pairs.from_matrix(x)


def bt_mm(
    x: np.ndarray,
    *,
    ridge: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 100_000,
    init: np.ndarray | None = None,
    labels: tuple[str, ...] | None = None,
) -> BTResult:
    """Bradley–Terry by Hunter's MM iteration with the ridge of METHODS §6 (seed 003, eq. 5).

    Each step: π_i ← (W_i + λ) / (Σ_j m_ij/(π_i + π_j) + λ) for all i at once, then divide π by its
    geometric mean. Stops when max |Δθ| < ``tol`` (θ = log π, centred). With λ > 0, where MM can
    need thousands of steps, it finishes after :data:`MM_NEWTON_AFTER` steps with Newton's
    method on the same fixed point (same stopping rule; ``n_iter`` counts both kinds of step).

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix (x_ij = times i beat j; fractional counts allowed).
    ridge : float
        λ ≥ 0. With λ = 0 the win graph must be strongly connected (else :class:`DesignError`).
    tol : float
        Convergence threshold on max |Δθ| between successive iterations.
    max_iter : int
        Iteration cap (a :class:`ConvergenceWarning` is issued when reached).
    init : ndarray, optional
        Starting log-strengths (default zeros).
    labels : tuple of str, optional
        Item labels, used in error messages.

    Returns
    -------
    BTResult

    Examples
    --------
    >>> import numpy as np
    >>> res = bt_mm(np.array([[0.0, 3.0], [1.0, 0.0]]))
    >>> round(float(res.theta[0] - res.theta[1]), 8), res.converged  # log 3
    (1.09861229, True)
    """
    x, p = _prepare(x, labels, ridge)
    n = p.n
    w = x.sum(axis=1) + ridge
    m = p.m
    theta = np.zeros(n) if init is None else np.asarray(init, dtype=float) - np.mean(init)
    delta = np.inf
    it = 0
    newton = ridge > 0 and n <= MM_NEWTON_MAX_ITEMS
    for it in range(1, max_iter + 1):
        new = _mm_step(p, m, w, ridge, theta)[0]
        delta = float(np.max(np.abs(new - theta)))
        theta = new
        if delta < tol:
            break
        if newton and it == MM_NEWTON_AFTER:
            done = _mm_fixed_point_newton(p, m, w, ridge, theta, tol)
            if done is not None:
                theta, delta, steps = done
                it += steps
                break
    converged = delta < tol
    if not converged:
        _warn_not_converged("mm", it, delta, tol)
    return BTResult(theta, it, converged, delta, "mm", float(ridge), _loglik(p, theta))


#: With a ridge λ > 0, MM converges linearly at a rate set by λ against the counts, which can
#: be thousands of iterations where the ridge is what holds weakly connected parts together
#: (a leaderboard by name over many 2-item contexts: 20,000 iterations without reaching 1e-9).
#: After this many MM iterations :func:`bt_mm` finishes with Newton's method on the same fixed
#: point (the MM step with its renormalisation), for tables of at most
#: :data:`MM_NEWTON_MAX_ITEMS` items (a dense n × n solve per step).
MM_NEWTON_AFTER = 50
MM_NEWTON_MAX_ITEMS = 1000


def _mm_step(
    p: _Pairs, m: np.ndarray, w: np.ndarray, ridge: float, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One MM step with its renormalisation (geometric mean of π back to 1): (G(θ), π, d);
    ``m`` the pairs' counts ``p.m``, ``w`` the wins plus λ."""
    pi = np.exp(theta)
    r = m / (pi[p.i] + pi[p.j])
    d = np.bincount(p.i, r, p.n) + np.bincount(p.j, r, p.n) + ridge
    g = np.log(w / d)
    return g - g.mean(), pi, d


def _mm_fixed_point_newton(
    p: _Pairs,
    m: np.ndarray,
    w: np.ndarray,
    ridge: float,
    theta: np.ndarray,
    tol: float,
    max_steps: int = 40,
) -> tuple[np.ndarray, float, int] | None:
    """MM's fixed point θ = G(θ) by damped Newton steps on F(θ) = θ − G(θ), from ``theta``.

    G is the MM step with the geometric-mean renormalisation, so the zero of F is exactly the
    point MM converges to; MM's stopping rule max |G(θ) − θ| < ``tol`` is the test here too, and
    like MM the result is G(θ) at the last θ. Jacobian: G = L − mean(L) with L_i = log w_i −
    log d_i(θ), ∂d_i/∂θ_i = −Σ_j m_ij π_i/(π_i + π_j)², ∂d_i/∂θ_j = −m_ij π_j/(π_i + π_j)².
    Each step halves until max |F| decreases. Returns (θ, max |F|, steps), or None where it
    does not converge (the caller goes on with MM).
    """
    n, i, j = p.n, p.i, p.j
    eye = np.eye(n)
    g, pi, d = _mm_step(p, m, w, ridge, theta)
    res = theta - g
    size = float(np.max(np.abs(res)))
    for step in range(1, max_steps + 1):
        if size < tol:
            return g, size, step - 1
        a = m / (pi[i] + pi[j]) ** 2
        dd = np.zeros((n, n))
        np.add.at(dd, (i, i), -a * pi[i])
        np.add.at(dd, (j, j), -a * pi[j])
        np.add.at(dd, (i, j), -a * pi[j])
        np.add.at(dd, (j, i), -a * pi[i])
        dl = -dd / d[:, None]
        jac = eye - (dl - dl.mean(axis=0, keepdims=True))
        try:
            move = np.linalg.solve(jac, res)
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while True:
            cand = theta - t * move
            if np.all(np.isfinite(cand)):
                g_c, pi_c, d_c = _mm_step(p, m, w, ridge, cand)
                res_c = cand - g_c
                size_c = float(np.max(np.abs(res_c)))
                if np.isfinite(size_c) and size_c < size:
                    break
            t /= 2.0
            if t < 1e-4:
                return None
        theta, g, pi, d, res, size = cand, g_c, pi_c, d_c, res_c, size_c
    return (g, size, max_steps) if size < tol else None


def bt_newman(
    x: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 100_000,
    init: np.ndarray | None = None,
    labels: tuple[str, ...] | None = None,
) -> BTResult:
    """Bradley–Terry by Newman's (2023) iteration, updating in place (Gauss–Seidel).

    One sweep: for i = 1..N in turn, π_i ← Σ_j x_ij π_j/(π_i + π_j) / Σ_j x_ji/(π_i + π_j), each
    update using the latest values of the others (as evalica does); then π is divided by its
    geometric mean. Stops when max |Δθ| over a sweep < ``tol``. Same fixed point as MM with λ = 0,
    in far fewer sweeps. (Updating all i at once — the Jacobi form — is *not* safe: it oscillates
    with period 2 on bipartite designs, e.g. two items, or models compared only with baselines.)

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix; the win graph must be strongly connected.
    tol, max_iter, init, labels
        As in :func:`bt_mm` (``n_iter`` counts sweeps).

    Returns
    -------
    BTResult

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 3, 2], [1, 0, 2], [1, 1, 0]], dtype=float)
    >>> np.allclose(bt_newman(x).theta, bt_mm(x).theta, atol=1e-9)
    True
    """
    x, p = _prepare(x, labels, 0.0)
    n = p.n
    xt = np.ascontiguousarray(x.T)
    theta = np.zeros(n) if init is None else np.asarray(init, dtype=float) - np.mean(init)
    pi = np.exp(theta)
    delta = np.inf
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        for i in range(n):
            inv = 1.0 / (pi[i] + pi)  # the j = i term is multiplied by x_ii = 0
            pi[i] = (x[i] @ (pi * inv)) / (xt[i] @ inv)
        new = np.log(pi)
        new -= new.mean()
        delta = float(np.max(np.abs(new - theta)))
        theta = new
        pi = np.exp(theta)
        if delta < tol:
            break
    converged = delta < tol
    if not converged:
        _warn_not_converged("newman", it, delta, tol)
    return BTResult(theta, it, converged, delta, "newman", 0.0, _loglik(p, theta))


def bt_mle(
    x: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 1_000,
    labels: tuple[str, ...] | None = None,
) -> BTResult:
    """Bradley–Terry as a logistic regression, maximised with :func:`scipy.optimize.minimize`.

    An independent code path for checking the iterations: the negative log-likelihood
    −Σ_{i<j} [x_ij log σ(θ_i − θ_j) + x_ji log σ(θ_j − θ_i)] is minimised over θ_2..θ_N (θ_1 = 0
    fixed) by ``trust-exact`` with the analytic gradient and Hessian (a weighted graph
    Laplacian), polished by plain Newton steps until max |H⁻¹g| < ``tol``, then centred.

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix; the win graph must be strongly connected.
    tol : float
        Bound on the final Newton step (the distance to the optimum, to second order).
    max_iter : int
        Optimizer iteration cap.
    labels : tuple of str, optional
        Item labels, used in error messages.

    Returns
    -------
    BTResult

    Examples
    --------
    >>> import numpy as np
    >>> res = bt_mle(np.array([[0.0, 3.0], [1.0, 0.0]]))
    >>> round(float(res.theta[0] - res.theta[1]), 8)
    1.09861229
    """
    x, p = _prepare(x, labels, 0.0)
    n = p.n
    wins = x.sum(axis=1)

    def full(phi: np.ndarray) -> np.ndarray:
        return np.concatenate(([0.0], phi))

    def grad_full(theta: np.ndarray) -> np.ndarray:
        prob = 1.0 / (1.0 + np.exp(-(theta[p.i] - theta[p.j])))  # σ(θ_i − θ_j)
        mp = p.m * prob
        return -wins + np.bincount(p.i, mp, n) + np.bincount(p.j, p.m - mp, n)

    def hess_full(theta: np.ndarray) -> np.ndarray:
        prob = 1.0 / (1.0 + np.exp(-(theta[p.i] - theta[p.j])))
        wgt = p.m * prob * (1.0 - prob)
        h = np.zeros((n, n))
        h[p.i, p.j] = -wgt
        h[p.j, p.i] = -wgt
        h[np.diag_indices(n)] = np.bincount(p.i, wgt, n) + np.bincount(p.j, wgt, n)
        return h

    def fun(phi: np.ndarray) -> float:
        return -_loglik(p, full(phi))

    def jac(phi: np.ndarray) -> np.ndarray:
        return grad_full(full(phi))[1:]

    def hess(phi: np.ndarray) -> np.ndarray:
        return hess_full(full(phi))[1:, 1:]

    scale = max(1.0, float(p.m.sum()))
    res = optimize.minimize(
        fun,
        np.zeros(n - 1),
        jac=jac,
        hess=hess,
        method="trust-exact",
        options={"gtol": 1e-13 * scale, "maxiter": max_iter},
    )
    # Polish with plain Newton steps (quadratic convergence near the optimum) until the step,
    # i.e. the remaining distance to the optimum, is below tol.
    phi = res.x
    delta = np.inf
    n_polish = 0
    for n_polish in range(1, 51):  # noqa: B007
        step = np.linalg.solve(hess(phi), jac(phi))
        phi = phi - step
        delta = float(np.max(np.abs(step))) if step.size else 0.0
        if delta < tol:
            break
    theta = full(phi)
    theta = theta - theta.mean()
    converged = delta < tol
    if not converged:
        _warn_not_converged("mle", int(res.nit) + n_polish, delta, tol)
    return BTResult(theta, int(res.nit) + n_polish, converged, delta, "mle", 0.0, _loglik(p, theta))


def fit_bradley_terry(
    x: np.ndarray,
    *,
    method: BTMethod = "mm",
    ridge: float = 0.0,
    tol: float = 1e-10,
    max_iter: int | None = None,
    labels: tuple[str, ...] | None = None,
) -> BTResult:
    """Fit Bradley–Terry to a win-count matrix with the chosen solver.

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix.
    method : {"mm", "newman", "mle"}
        Solver (see the module docstring).
    ridge : float
        λ of METHODS §6 eq. 5; only ``method="mm"`` accepts λ > 0.
    tol : float
        Convergence tolerance on max |Δθ|.
    max_iter : int, optional
        Iteration cap (default 100,000 for the iterations, 1,000 for the optimizer).
    labels : tuple of str, optional
        Item labels for error messages.

    Returns
    -------
    BTResult

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 4, 1], [2, 0, 3], [1, 1, 0]], dtype=float)
    >>> a = fit_bradley_terry(x, method="mm").theta
    >>> b = fit_bradley_terry(x, method="mle").theta
    >>> bool(np.max(np.abs(a - b)) < 1e-8)
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if ridge and method != "mm":
        raise ValueError(
            "ridge > 0 is defined by the MM iteration of METHODS §6 (eq. 5); use method='mm'"
        )
    if method == "mm":
        return bt_mm(x, ridge=ridge, tol=tol, max_iter=max_iter or 100_000, labels=labels)
    if method == "newman":
        return bt_newman(x, tol=tol, max_iter=max_iter or 100_000, labels=labels)
    return bt_mle(x, tol=tol, max_iter=max_iter or 1_000, labels=labels)


# --------------------------------------------------------------------------- estimator class
class EstimatorBase:
    """Base of the classical estimators: a learned attribute (``*_``) before ``fit`` is an error.

    Examples
    --------
    >>> BradleyTerry().strengths_
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.NotFittedError: BradleyTerry has no attribute 'strengths_' yet: ...
    """

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_") and not name.startswith("__"):
            raise NotFittedError(
                f"{type(self).__name__} has no attribute {name!r} yet: call fit(data) first"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _settings(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._settings().items())
        return f"{type(self).__name__}({args})"


class BradleyTerry(EstimatorBase):
    """Bradley–Terry strengths (sklearn style): MM with ridge, Newman's iteration, or the MLE.

    Parameters
    ----------
    method : {"mm", "newman", "mle"}
        Solver; all three agree to ~1e-10 on strongly connected data.
    ridge : float
        λ ≥ 0 of METHODS §6 (MM only). λ > 0 fits disconnected data.
    tol : float
        Convergence tolerance on max |Δθ|.
    max_iter : int, optional
        Iteration cap (default 100,000 for MM/Newman, 1,000 for the optimizer).

    Attributes
    ----------
    strengths_ : pandas.Series
        Centred log-strengths θ by item label (Σθ = 0), named ``"strength"``.
    n_iter_ : int
    converged_ : bool
    result_ : BTResult
        The array-level result.
    win_matrix_ : pandas.DataFrame
        The aggregated win counts used (ties counted half under ``ties="half"``).
    tie_policy_ : str or None
        The data's tie policy (recorded with the result).

    Notes
    -----
    ``fit`` accepts a :class:`~bayes_pairwise.data.Comparisons` (ties follow the data's policy:
    under ``"half"`` a tie is half a win each way, via :func:`~bayes_pairwise.matrices.win_matrix`),
    a labelled square DataFrame of win counts, or a plain square array. Judges are pooled; with
    contexts each (context, item) gets its own strength, so a log made of separate round-robins is
    disconnected — call ``data.pool_contexts()`` first to rank items across contexts.

    An instance is also a *statistic* for :func:`~bayes_pairwise.classical.bootstrap.bootstrap`:
    calling it on data returns the strengths of a fresh fit (the instance is not modified), and
    :meth:`from_win_matrix` lets the bootstrap resample the aggregated win table directly.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a", "c", "b", "c"],
    ...                    "second": ["b", "a", "c", "a", "c", "b"],
    ...                    "outcome": ["first", "first", "first", "first", "first", "second"]})
    >>> bt = BradleyTerry().fit(load_comparisons(df))
    >>> bt.strengths_.round(4).to_dict()
    {'a': 0.0, 'b': 0.7563, 'c': -0.7563}
    >>> bt.converged_
    True
    """

    def __init__(
        self,
        method: BTMethod = "mm",
        ridge: float = 0.0,
        tol: float = 1e-10,
        max_iter: int | None = None,
    ) -> None:
        self.method = method
        self.ridge = ridge
        self.tol = tol
        self.max_iter = max_iter

    def _solve(self, x: np.ndarray, labels: tuple[str, ...] | None, hint: str = "") -> BTResult:
        try:
            return fit_bradley_terry(
                x,
                method=self.method,
                ridge=self.ridge,
                tol=self.tol,
                max_iter=self.max_iter,
                labels=labels,
            )
        except DesignError as err:
            if hint:
                raise DesignError(f"{err}{hint}") from None
            raise

    def fit(self, data: Comparisons | pd.DataFrame | np.ndarray) -> BradleyTerry:
        """Fit the strengths.

        Parameters
        ----------
        data : Comparisons, DataFrame or ndarray
            A comparison log, or a square win-count matrix (labelled or not).

        Returns
        -------
        self

        Raises
        ------
        DesignError
            With ``ridge=0`` when the win graph is not strongly connected.
        """
        x, labels, info = resolve_win_matrix(data)
        hint = (
            " The items live in separate contexts: use data.pool_contexts() to rank item names "
            "across contexts."
            if info.get("has_contexts")
            else ""
        )
        res = self._solve(x, labels, hint)
        self.result_ = res
        self.strengths_ = pd.Series(res.theta, index=pd.Index(labels, name="item"), name="strength")
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.win_matrix_ = pd.DataFrame(x, index=list(labels), columns=list(labels))
        self.tie_policy_ = info.get("tie_policy")
        self.source_ = info.get("source")
        return self

    def from_win_matrix(self, x: np.ndarray) -> np.ndarray:
        """Centred log-strengths for a win-count matrix, without touching the fitted state.

        Examples
        --------
        >>> import numpy as np
        >>> BradleyTerry().from_win_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
        [0.0, 0.0]
        """
        return self._solve(np.asarray(x, dtype=float), None).theta

    def __call__(self, data: Comparisons | pd.DataFrame | np.ndarray) -> pd.Series:
        """Strengths of a fresh fit on ``data`` (this instance is left unchanged)."""
        return copy.copy(self).fit(data).strengths_

    def ranking(self) -> pd.Series:
        """Rank of each item (1 = strongest), ties by average rank.

        Examples
        --------
        >>> import numpy as np
        >>> BradleyTerry().fit(np.array([[0, 3.0], [1.0, 0]])).ranking().tolist()
        [1.0, 2.0]
        """
        return self.strengths_.rank(ascending=False, method="average").rename("rank")

    def to_inference_data(self) -> az.InferenceData:
        """The point estimate as a one-chain, one-draw posterior (variable ``strength``, dim
        ``item``), matching the Bayesian models' naming.

        Examples
        --------
        >>> import numpy as np
        >>> idata = BradleyTerry().fit(np.array([[0, 3.0], [1.0, 0]])).to_inference_data()
        >>> idata.posterior["strength"].shape
        (1, 1, 2)
        """
        import arviz as az

        s = self.strengths_
        attrs = {
            "estimator": "BradleyTerry",
            "method": str(self.method),
            "ridge": float(self.ridge),
            "tol": float(self.tol),
            "n_iter": int(self.n_iter_),
            "converged": int(self.converged_),
            "tie_policy": str(self.tie_policy_),
            "source": str(self.source_),
        }
        idata = az.from_dict(
            posterior={"strength": s.to_numpy()[None, None, :]},
            coords={"item": list(s.index)},
            dims={"strength": ["item"]},
            attrs=attrs,
        )
        idata.posterior.attrs.update(attrs)
        return idata


# --------------------------------------------------------------------------- biased BT
@dataclass(frozen=True)
class BiasedBTRun:
    """Result of :func:`biased_bt_iterate` for a batch of chains.

    Attributes
    ----------
    log_scores : ndarray, shape (B, N)
        ŝ = log π at the stop, centred per chain (the raw scores drift; see the module notes).
    n_iter : ndarray of int, shape (B,)
        Iterations performed.
    stopped : ndarray of bool, shape (B,)
        True when the ranking rule stopped the chain, False when ``max_iter`` was reached.
    """

    log_scores: np.ndarray
    n_iter: np.ndarray
    stopped: np.ndarray

    @property
    def spread(self) -> np.ndarray:
        """max(ŝ) − min(ŝ) per chain."""
        return self.log_scores.max(axis=1) - self.log_scores.min(axis=1)


def _directed_pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ordered pairs (i, j) with m_ij > 0 in both directions, with x_ij and x_ji."""
    m = x + x.T
    i, j = np.nonzero(m > 0)
    return i, j, x[i, j], x[j, i]


def biased_bt_iterate(
    x: np.ndarray,
    eps: float | np.ndarray,
    init: np.ndarray,
    *,
    max_iter: int = 1_000,
    patience: int = 1,
    sweep: Literal["gauss-seidel", "jacobi"] = "gauss-seidel",
    labels: tuple[str, ...] | None = None,
) -> BiasedBTRun:
    """The paper's biased-BT iteration (Suppl. D, eq. S6) with its ranking-stability stop.

    π_i ← [Σ_j x_ij e^ε π_j/(π_i + e^ε π_j)] / [Σ_j x_ji/(π_i + e^ε π_j)], applied to every win
    regardless of position, as printed. The paper does not say whether the π_i are updated in
    place or all at once; the default updates in place (Gauss–Seidel, as in Newman's and evalica's
    iteration, which ε = 0 reduces to); ``sweep="jacobi"`` updates all at once, which oscillates
    with period 2 on bipartite designs. A chain stops after the first ``patience`` consecutive
    iterations (sweeps) that leave the ranking (order of π, the initial one included) unchanged —
    the paper uses one — or after ``max_iter`` iterations.

    The map is homogeneous of degree 1 in π, so dividing π by its geometric mean after each step
    (done here to avoid overflow: for ε > 0 the raw scores grow without bound, the paper's
    "synchronous increase") changes neither the rankings nor max(ŝ) − min(ŝ).

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix (the paper's "strength matrix" X^{k₊,k₋}).
    eps : float or ndarray, shape (B,)
        Bias ε per chain.
    init : ndarray, shape (N,) or (B, N)
        Initial scores ŝ⁰ (log-strengths); the paper draws them from U[0, 1].
    max_iter : int
        Iteration cap per chain.
    patience : int
        Consecutive unchanged-ranking iterations required to stop (paper: 1).
    sweep : {"gauss-seidel", "jacobi"}
        In-place or simultaneous updates (see above).
    labels : tuple of str, optional
        Item labels for error messages.

    Returns
    -------
    BiasedBTRun

    Raises
    ------
    DesignError
        When some item never won or never lost (its score runs to 0 or ∞): the win graph must be
        strongly connected.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 3, 3], [1, 0, 3], [1, 1, 0]], dtype=float)
    >>> run = biased_bt_iterate(x, [0.0, 0.2], np.array([0.3, 0.1, 0.9]))
    >>> np.argsort(-run.log_scores, axis=1).tolist()
    [[0, 1, 2], [0, 1, 2]]
    """
    x = _check_matrix(x)
    check_bt_connected(x, labels)
    n = x.shape[0]
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    init = np.asarray(init, dtype=float)
    if init.ndim == 1:
        init = np.broadcast_to(init, (eps.size, n))
    if eps.size == 1 and init.shape[0] > 1:
        eps = np.broadcast_to(eps, (init.shape[0],))
    if init.shape != (eps.size, n):
        raise ValueError(f"init must have shape ({n},) or ({eps.size}, {n}), got {init.shape}")
    if patience < 1:
        raise ValueError("patience must be >= 1")
    if sweep not in ("gauss-seidel", "jacobi"):
        raise ValueError(f"sweep must be 'gauss-seidel' or 'jacobi', got {sweep!r}")
    b = eps.size
    i, j, xij, xji = _directed_pairs(x)
    xt = np.ascontiguousarray(x.T)
    e = np.exp(eps)
    logs = init - init.mean(axis=1, keepdims=True)
    order = np.argsort(-logs, axis=1, kind="stable")
    n_iter = np.zeros(b, dtype=np.int64)
    calm = np.zeros(b, dtype=np.int64)
    stopped = np.zeros(b, dtype=bool)
    active = np.arange(b)
    for _ in range(max_iter):
        if active.size == 0:
            break
        pi = np.exp(logs[active])  # (A, N)
        ea = e[active][:, None]
        if sweep == "gauss-seidel":
            for k in range(n):
                a_k = pi[:, k : k + 1] + ea * pi  # π_k + e^ε π_j, (A, N); x_kk = 0
                pi[:, k] = ((ea * pi / a_k) @ x[k]) / ((1.0 / a_k) @ xt[k])
            new = np.log(pi)
        else:
            a_ij = pi[:, i] + ea * pi[:, j]  # (A, P)
            off = (np.arange(active.size) * n)[:, None]
            idx = (off + i[None, :]).ravel()
            size = active.size * n
            num = np.bincount(idx, (xij * ea * pi[:, j] / a_ij).ravel(), size).reshape(-1, n)
            den = np.bincount(idx, (xji / a_ij).ravel(), size).reshape(-1, n)
            new = np.log(num) - np.log(den)
        new -= new.mean(axis=1, keepdims=True)
        logs[active] = new
        n_iter[active] += 1
        new_order = np.argsort(-new, axis=1, kind="stable")
        same = np.all(new_order == order[active], axis=1)
        order[active] = new_order
        calm[active] = np.where(same, calm[active] + 1, 0)
        done = calm[active] >= patience
        stopped[active[done]] = True
        active = active[~done]
    return BiasedBTRun(logs, n_iter, stopped)


def _histogram(eps_opt: np.ndarray, eps_max: float, bin_width: float) -> pd.DataFrame:
    n_bins = round(eps_max / bin_width)
    k = np.floor(np.round(eps_opt / bin_width, 9)).astype(int)
    k = np.clip(k, 0, n_bins - 1)  # ε = eps_max falls in the last (closed) bin
    counts = np.bincount(k, minlength=n_bins)
    left = np.round(np.arange(n_bins) * bin_width, 10)
    return pd.DataFrame(
        {"bin_left": left, "bin_right": np.round(left + bin_width, 10), "count": counts}
    )


def biased_bt_spread_search(
    x: np.ndarray,
    *,
    objective: Literal["min", "max"] = "min",
    n_restarts: int = 200,
    eps_max: float = 0.5,
    eps_step: float = 0.005,
    bin_width: float = 0.02,
    max_iter: int = 1_000,
    patience: int = 1,
    sweep: Literal["gauss-seidel", "jacobi"] = "gauss-seidel",
    random_seed: int | np.random.Generator | None = None,
    labels: tuple[str, ...] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """The paper's ε search with the biased BT model (Suppl. D/E, Fig. 5): array-level core.

    For each of ``n_restarts`` initial score vectors ŝ⁰ ~ U[0, 1]^N (from ``random_seed``) and each
    ε on the grid 0, ``eps_step``, …, ``eps_max``, run :func:`biased_bt_iterate` from ŝ⁰, take the
    spread max(ŝ) − min(ŝ) and pick ε_opt = the grid value minimising (``objective="min"``) or
    maximising (``"max"``) it (the smallest such ε on exact ties). The ε_opt values are binned in
    ``bin_width`` bins on [0, ``eps_max``] (the last bin closed).

    Parameters
    ----------
    x : ndarray, shape (N, N)
        Win-count matrix.
    objective : {"min", "max"}
        Minimise or maximise the spread.
    n_restarts : int
        Random initial score vectors (paper: 200).
    eps_max, eps_step, bin_width : float
        Grid [0, eps_max] in steps of eps_step (paper: 0.5, 0.005); histogram bin width (0.02).
    max_iter, patience : int
        Passed to :func:`biased_bt_iterate`.
    sweep : {"gauss-seidel", "jacobi"}
        Passed to :func:`biased_bt_iterate`.
    random_seed : int or Generator, optional
        Seed for the initial scores.
    labels : tuple of str, optional
        Item labels for error messages.
    progress : bool
        Report progress on stderr.

    Returns
    -------
    dict
        ``eps_grid`` (G,), ``spread`` (R, G), ``n_iter`` (R, G), ``stopped`` (R, G),
        ``eps_opt`` (R,), ``histogram`` (DataFrame: bin_left, bin_right, count).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 3, 2], [1, 0, 3], [2, 1, 0]], dtype=float)
    >>> out = biased_bt_spread_search(x, n_restarts=5, random_seed=0)
    >>> int(out["histogram"]["count"].sum()), out["spread"].shape
    (5, (5, 101))
    """
    if objective not in ("min", "max"):
        raise ValueError(f"objective must be 'min' or 'max', got {objective!r}")
    x = _check_matrix(x)
    check_bt_connected(x, labels)
    n = x.shape[0]
    n_grid = round(eps_max / eps_step) + 1
    grid = np.round(np.arange(n_grid) * eps_step, 12)
    rng = np.random.default_rng(random_seed)
    inits = rng.uniform(0.0, 1.0, size=(n_restarts, n))
    spread = np.empty((n_restarts, n_grid))
    n_iter = np.empty((n_restarts, n_grid), dtype=np.int64)
    stopped = np.empty((n_restarts, n_grid), dtype=bool)
    # restarts per batch: bound the (chains × pairs) or (chains × items) work arrays
    width = int(np.count_nonzero(x + x.T)) if sweep == "jacobi" else n
    per_chunk = max(1, int(4_000_000 // (max(1, width) * n_grid)))
    for start in range(0, n_restarts, per_chunk):
        stop = min(n_restarts, start + per_chunk)
        k = stop - start
        run = biased_bt_iterate(
            x,
            np.tile(grid, k),
            np.repeat(inits[start:stop], n_grid, axis=0),
            max_iter=max_iter,
            patience=patience,
            sweep=sweep,
            labels=labels,
        )
        spread[start:stop] = run.spread.reshape(k, n_grid)
        n_iter[start:stop] = run.n_iter.reshape(k, n_grid)
        stopped[start:stop] = run.stopped.reshape(k, n_grid)
        if progress:
            print(f"biased-BT spread search: {stop}/{n_restarts} restarts", file=sys.stderr)
    pick = np.argmin(spread, axis=1) if objective == "min" else np.argmax(spread, axis=1)
    eps_opt = grid[pick]
    n_capped = int((~stopped).sum())
    if n_capped:
        warnings.warn(
            f"biased-BT iteration hit max_iter={max_iter} in {n_capped} of {stopped.size} runs "
            "(ranking still changing); their spreads are taken at the cap",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
    return {
        "eps_grid": grid,
        "spread": spread,
        "n_iter": n_iter,
        "stopped": stopped,
        "eps_opt": eps_opt,
        "histogram": _histogram(eps_opt, eps_max, bin_width),
        "inits": inits,
    }


class BiasedBTSpreadSearch(EstimatorBase):
    """The paper's biased-BT ε-spread search (weak baseline, reproduced faithfully).

    See :func:`biased_bt_spread_search` for the procedure and the module docstring for why the
    model is improper (P(i≻j) + P(j≻i) < 1 for ε > 0: the scores never converge, only the ranking
    settles). ε_opt often lands in the edge bins [0, 0.02) or [0.48, 0.50] — the failure modes
    the paper reports (Table S3); ``at_edge_`` flags them. Compare with the proper positional-bias
    model (METHODS §7.3) rather than reading ``mode_`` as an error rate.

    The outcome also hinges on a detail the paper leaves open, the update order. On a synthetic
    round robin (N = 100, one verdict per ordered pair, uniform error ε = 0.15, seed 0) the
    in-place sweep put ε_opt in [0, 0.02) for 198/200 restarts when minimising and in
    [0.48, 0.50] for 200/200 when maximising, while simultaneous updates gave mostly
    [0.38, 0.40] (30/40) and [0, 0.02) (40/40): none near 0.15.

    Parameters
    ----------
    objective : {"min", "max"}
        Minimise or maximise the spread max(ŝ) − min(ŝ).
    n_restarts : int
        Random initial score vectors ŝ⁰ ~ U[0, 1] (paper: 200).
    eps_max, eps_step, bin_width : float
        ε grid [0, eps_max] in steps of eps_step (paper: 0.5, 0.005); histogram bins (0.02).
    max_iter, patience : int
        Iteration cap per run; consecutive unchanged-ranking iterations to stop (paper: 1).
    sweep : {"gauss-seidel", "jacobi"}
        In-place (default) or simultaneous updates (see :func:`biased_bt_iterate`).
    random_seed : int, optional
        Seed for the initial scores.
    progress : bool
        Report progress on stderr.

    Attributes
    ----------
    eps_grid_ : ndarray (G,)
    spread_ : ndarray (R, G)
        Spread per restart and ε.
    n_iter_ : ndarray (R, G)
        Iterations per run.
    eps_opt_ : ndarray (R,)
        ε_opt per restart.
    histogram_ : DataFrame
        ``bin_left``, ``bin_right``, ``count`` (counts sum to ``n_restarts``).
    mode_ : float
        Lower edge of the most frequent bin (the paper's reporting convention, Table S3).
    mode_bin_ : tuple of float
        (lower, upper) edges of that bin.
    at_edge_ : bool
        True when the modal bin is the first or the last one.
    n_capped_ : int
        Runs stopped by ``max_iter`` instead of the ranking rule.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 3, 2, 3], [1, 0, 3, 2], [2, 1, 0, 3], [1, 2, 1, 0]], dtype=float)
    >>> search = BiasedBTSpreadSearch(n_restarts=20, random_seed=1).fit(x)
    >>> int(search.histogram_["count"].sum()), len(search.histogram_)
    (20, 25)
    """

    def __init__(
        self,
        objective: Literal["min", "max"] = "min",
        n_restarts: int = 200,
        eps_max: float = 0.5,
        eps_step: float = 0.005,
        bin_width: float = 0.02,
        max_iter: int = 1_000,
        patience: int = 1,
        sweep: Literal["gauss-seidel", "jacobi"] = "gauss-seidel",
        random_seed: int | None = None,
        progress: bool = False,
    ) -> None:
        self.objective = objective
        self.n_restarts = n_restarts
        self.eps_max = eps_max
        self.eps_step = eps_step
        self.bin_width = bin_width
        self.max_iter = max_iter
        self.patience = patience
        self.sweep = sweep
        self.random_seed = random_seed
        self.progress = progress

    def fit(self, data: Comparisons | pd.DataFrame | np.ndarray) -> BiasedBTSpreadSearch:
        """Run the search on a comparison log or a win-count matrix.

        Parameters
        ----------
        data : Comparisons, DataFrame or ndarray
            Ties follow the data's policy (half wins under ``"half"``).

        Returns
        -------
        self
        """
        x, labels, info = resolve_win_matrix(data)
        out = biased_bt_spread_search(
            x,
            objective=self.objective,
            n_restarts=self.n_restarts,
            eps_max=self.eps_max,
            eps_step=self.eps_step,
            bin_width=self.bin_width,
            max_iter=self.max_iter,
            patience=self.patience,
            sweep=self.sweep,
            random_seed=self.random_seed,
            labels=labels,
            progress=self.progress,
        )
        self.items_ = labels
        self.eps_grid_ = out["eps_grid"]
        self.spread_ = out["spread"]
        self.n_iter_ = out["n_iter"]
        self.eps_opt_ = out["eps_opt"]
        self.histogram_ = out["histogram"]
        counts = self.histogram_["count"].to_numpy()
        top = int(np.argmax(counts))
        self.mode_ = float(self.histogram_["bin_left"].iloc[top])
        self.mode_bin_ = (self.mode_, float(self.histogram_["bin_right"].iloc[top]))
        self.at_edge_ = top in (0, len(counts) - 1)
        self.n_capped_ = int((~out["stopped"]).sum())
        self.tie_policy_ = info.get("tie_policy")
        return self
