"""Plackett–Luce strengths of ranked lists: Hunter's MM (with ridge) and Maystre & Grossglauser's
ILSR.

Model: a list ranked best first, σ(1) ≻ σ(2) ≻ … ≻ σ(k), has probability
``Π_{r<k} π_σ(r) / Σ_{s≥r} π_σ(s)`` (Luce's choice axiom applied stage by stage), θ = log π,
reported centred (Σθ = 0). For lists of two it is Bradley–Terry.

* ``"mm"`` — Hunter (2004, §5): π_i ← (w_i + λ) / (Σ_{stages where i remains} 1/S + λ), w_i the
  stages at which i is chosen (every rank but a list's last), S the summed π of the items left
  at that stage; the geometric mean of π is renormalised to 1 after each step. λ = ``ridge`` is
  the same ridge as Bradley–Terry's (METHODS §6): λ > 0 keeps every strength finite.
* ``"ilsr"`` — iterative Luce spectral ranking (Maystre & Grossglauser 2015): the stationary
  distribution of a Markov chain whose rate from each item left at a stage to the item chosen
  there is 1/S; it converges to the same MLE in few iterations (``choix.ilsr_rankings``).

With λ = 0 the MLE exists iff the directed "ranked above" graph is strongly connected (as for
Bradley–Terry); otherwise :class:`~bayes_pairwise.errors.DesignError` names the components.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.classical.bradley_terry import EstimatorBase, check_bt_connected
from bayes_pairwise.errors import ConvergenceWarning, DesignError, user_stacklevel
from bayes_pairwise.rankings import Rankings

__all__ = ["PLResult", "PlackettLuce", "pl_ilsr", "pl_loglik", "pl_mm"]

PLMethod = Literal["mm", "ilsr"]


@dataclass(frozen=True)
class PLResult:
    """Array-level result: centred log-strengths, iterations, convergence and log-likelihood."""

    theta: np.ndarray
    n_iter: int
    converged: bool
    loglik: float
    method: str
    ridge: float


def _arrays(ranked: np.ndarray, n_items: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    r = np.asarray(ranked, dtype=np.int64)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError("ranked must be a 2-D array of item indexes (lists × ranks), k >= 2")
    valid = r >= 0
    n = int(r.max()) + 1 if n_items is None else int(n_items)
    return r, valid, n


def _stage_sums(gamma: np.ndarray, r: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """S[l, t] = Σ_{s ≥ t} γ of list l's items at ranks ≥ t (0 in the padding)."""
    g = np.where(valid, gamma[np.maximum(r, 0)], 0.0)
    return np.cumsum(g[:, ::-1], axis=1)[:, ::-1]


def _stages(valid: np.ndarray) -> np.ndarray:
    """True at (list, rank) where a choice is made: every valid rank but the list's last."""
    nxt = np.zeros_like(valid)
    nxt[:, :-1] = valid[:, 1:]
    return valid & nxt


def pl_loglik(theta: np.ndarray, ranked: np.ndarray) -> float:
    """Plackett–Luce log-likelihood of best-first lists (rows of ``ranked``, −1 padding).

    Examples
    --------
    >>> round(pl_loglik(np.zeros(3), np.array([[0, 1, 2]])), 6)  # 1/3! of equal strengths
    -1.791759
    """
    r, valid, _ = _arrays(ranked, len(theta))
    th = np.asarray(theta, dtype=float)
    th = th - th.max()
    s = _stage_sums(np.exp(th), r, valid)
    stage = _stages(valid)
    return float(np.sum(np.where(stage, th[np.maximum(r, 0)] - np.log(np.where(stage, s, 1)), 0)))


def _check_connected(r: np.ndarray, valid: np.ndarray, n: int, labels: Any) -> None:
    x = np.zeros((n, n))
    k = r.shape[1]
    for a in range(k - 1):
        for b in range(a + 1, k):
            ok = valid[:, a] & valid[:, b]
            np.add.at(x, (r[ok, a], r[ok, b]), 1.0)
    seen = np.zeros(n, dtype=bool)
    seen[r[valid]] = True
    if not seen.all():
        names = [labels[i] if labels else str(i) for i in np.flatnonzero(~seen)[:6]]
        raise DesignError(f"items in no list: {', '.join(names)}; use ridge > 0 (method='mm')")
    check_bt_connected(
        x,
        tuple(labels) if labels else None,
        hint=" On the command line (no ridge flag for fit), `leaderboard` ranks such a log with "
        "ridge λ = 0.1 and says what the ridge sets.",
    )


def pl_mm(
    ranked: np.ndarray,
    n_items: int | None = None,
    *,
    ridge: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 100_000,
    labels: tuple[str, ...] | None = None,
) -> PLResult:
    """Plackett–Luce strengths by Hunter's MM, with the Bradley–Terry ridge λ.

    Parameters
    ----------
    ranked : ndarray of int, shape (n_lists, max_length)
        Item index at each rank, best first, −1 after a list's end.
    n_items : int, optional
    ridge : float
        λ ≥ 0; λ > 0 fits data whose "ranked above" graph is not strongly connected.
    tol : float
        Convergence tolerance on max |Δθ|.
    max_iter : int
    labels : tuple of str, optional
        Item labels for messages.

    Examples
    --------
    >>> res = pl_mm(np.array([[0, 1], [0, 1], [1, 0]]))  # two lists of two: Bradley–Terry
    >>> round(float(res.theta[0] - res.theta[1]), 4)  # log 2
    0.6931
    """
    r, valid, n = _arrays(ranked, n_items)
    if ridge < 0:
        raise ValueError(f"ridge must be >= 0, got {ridge}")
    if ridge == 0:
        _check_connected(r, valid, n, labels)
    stage = _stages(valid)
    w = np.bincount(r[stage], minlength=n).astype(float)
    gamma = np.ones(n)
    theta = np.zeros(n)
    converged = False
    it = 0
    flat = r[valid]
    for it in range(1, max_iter + 1):  # noqa: B007 - n_iter reported
        s = _stage_sums(gamma, r, valid)
        inv = np.where(stage, 1.0 / np.where(stage, s, 1.0), 0.0)
        cum = np.cumsum(inv, axis=1)  # item at rank p remains at stages 0..p
        denom = np.bincount(flat, weights=cum[valid], minlength=n)
        gamma = (w + ridge) / (denom + ridge)
        gamma = gamma / np.exp(np.mean(np.log(gamma)))
        new = np.log(gamma)
        delta = float(np.max(np.abs(new - theta)))
        theta = new
        if delta < tol:
            converged = True
            break
    theta = theta - theta.mean()
    if not converged:
        warnings.warn(
            f"Plackett–Luce MM did not converge in {max_iter} iterations (last step {delta:.2e})",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
    return PLResult(theta, it, converged, pl_loglik(theta, r), "mm", float(ridge))


def _stationary(a: np.ndarray) -> np.ndarray:
    """Stationary distribution of the continuous-time chain with rate matrix ``a`` (a_ij: i→j)."""
    n = a.shape[0]
    q = a - np.diag(a.sum(axis=1))
    m = np.vstack([q.T, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(m, b, rcond=None)
    return np.maximum(pi, 1e-300)


def pl_ilsr(
    ranked: np.ndarray,
    n_items: int | None = None,
    *,
    tol: float = 1e-10,
    max_iter: int = 1000,
    labels: tuple[str, ...] | None = None,
) -> PLResult:
    """Plackett–Luce MLE by iterative Luce spectral ranking (no ridge).

    Examples
    --------
    >>> res = pl_ilsr(np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1]]))
    >>> bool(res.converged), round(float(res.theta[0]), 4) == round(float(pl_mm(
    ...     np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1]])).theta[0]), 4)
    (True, True)
    """
    r, valid, n = _arrays(ranked, n_items)
    _check_connected(r, valid, n, labels)
    stage = _stages(valid)
    k = r.shape[1]
    gamma = np.ones(n) / n
    theta = np.zeros(n)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - n_iter reported
        s = _stage_sums(gamma, r, valid)
        a = np.zeros((n, n))
        for t in range(k - 1):
            on = stage[:, t]
            if not on.any():
                continue
            winner = r[on, t]
            rate = 1.0 / s[on, t]
            for u in range(t + 1, k):
                ok = valid[on, u]
                np.add.at(a, (r[on, u][ok], winner[ok]), rate[ok])
        gamma = _stationary(a)
        new = np.log(gamma)
        new = new - new.mean()
        delta = float(np.max(np.abs(new - theta)))
        theta = new
        if delta < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"Plackett–Luce ILSR did not converge in {max_iter} iterations (last step {delta:.2e})",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
    return PLResult(theta, it, converged, pl_loglik(theta, r), "ilsr", 0.0)


class PlackettLuce(EstimatorBase):
    """Plackett–Luce strengths of ranked lists (scikit-learn style).

    Parameters
    ----------
    method : {"mm", "ilsr"}
        Hunter's MM (with ``ridge``) or iterative Luce spectral ranking; both converge to the
        MLE (agreeing with ``choix.ilsr_rankings`` to 1e-6 in the tests).
    ridge : float
        λ ≥ 0 (MM only): the Bradley–Terry ridge of METHODS §6; λ > 0 fits logs whose "ranked
        above" graph is not strongly connected.
    tol : float
        Convergence tolerance on max |Δθ|.
    max_iter : int, optional

    Attributes
    ----------
    strengths_ : pandas.Series
        Centred log-strengths θ by item label (Σθ = 0), named ``"strength"``.
    n_iter_ : int
    converged_ : bool
    loglik_ : float
        The Plackett–Luce log-likelihood at the estimate.
    result_ : PLResult

    Notes
    -----
    Judges are pooled; with contexts each (context, item) has its own strength. The shown
    order is ignored (:class:`~bayes_pairwise.pymc_models.plackett_luce.NoisyPlackettLuce`
    measures a position effect).

    Examples
    --------
    >>> from bayes_pairwise.rankings import load_rankings
    >>> df = pd.DataFrame({"list": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...                    "item": ["a", "b", "c"] * 3, "rank": [1, 2, 3, 2, 1, 3, 1, 3, 2]})
    >>> pl = PlackettLuce().fit(load_rankings(df))
    >>> pl.strengths_.round(4).to_dict()
    {'a': 1.0956, 'b': -0.1407, 'c': -0.9549}
    """

    def __init__(
        self,
        method: PLMethod = "mm",
        ridge: float = 0.0,
        tol: float = 1e-10,
        max_iter: int | None = None,
    ) -> None:
        self.method = method
        self.ridge = ridge
        self.tol = tol
        self.max_iter = max_iter

    def _solve(self, ranked: np.ndarray, n: int, labels: tuple[str, ...] | None) -> PLResult:
        if self.method == "mm":
            return pl_mm(
                ranked,
                n,
                ridge=float(self.ridge),
                tol=self.tol,
                max_iter=self.max_iter or 100_000,
                labels=labels,
            )
        if self.method == "ilsr":
            if self.ridge:
                raise ValueError("ridge > 0 is implemented by method='mm' only")
            return pl_ilsr(ranked, n, tol=self.tol, max_iter=self.max_iter or 1000, labels=labels)
        raise ValueError(f"method must be 'mm' or 'ilsr', got {self.method!r}")

    def fit(self, data: Rankings) -> PlackettLuce:
        """Fit the strengths to a ranking log.

        Parameters
        ----------
        data : Rankings
            From :func:`bayes_pairwise.load_rankings`.

        Returns
        -------
        self

        Raises
        ------
        DesignError
            With ``ridge=0`` when the "ranked above" graph is not strongly connected.
        """
        if not isinstance(data, Rankings):
            raise TypeError(
                "PlackettLuce.fit expects a Rankings object (bayes_pairwise.load_rankings), "
                f"got {type(data).__name__}"
            )
        res = self._solve(np.asarray(data.ranked), data.n_items, tuple(data.items))
        self.result_ = res
        self.strengths_ = pd.Series(
            res.theta, index=pd.Index(list(data.items), name="item"), name="strength"
        )
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.loglik_ = res.loglik
        self.source_ = data.source
        return self

    def __call__(self, data: Rankings) -> pd.Series:
        """Strengths of a fresh fit on ``data`` (this instance is left unchanged)."""
        return copy.copy(self).fit(data).strengths_

    def ranking(self) -> pd.Series:
        """Rank of each item (1 = strongest), ties by average rank."""
        return self.strengths_.rank(ascending=False, method="average").rename("rank")
