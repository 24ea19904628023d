"""Laplace approximation of a model's posterior: the fast, approximate path.

A Gaussian in the *unconstrained* space (the space NUTS samples in), centred at the mode of the
log density with the Jacobian terms included, with the negative Hessian at the mode as its
precision. The Hessian is a central finite difference of the model's analytic gradient (one
column per parameter, ``2 D`` gradient evaluations), so it works with the fused likelihood Ops,
which have a gradient but no second derivative. Draws are pushed through the model's
transforms, so every constrained parameter and deterministic (ε, strengths, tie rates …) gets
draws with the same dims and coords as a NUTS fit.

How good the Gaussian is, is measured on every fit, not assumed: the log importance ratio
``log p(x) − log q(x)`` of each draw goes through Pareto-smoothed importance sampling
(:func:`arviz.psislw`) and its shape ``k̂`` is stored (``laplace_pareto_k``). ``k̂ < 0.5``: the
approximation is close to the posterior; ``0.5 ≤ k̂ < 0.7``: usable with care; ``k̂ ≥ 0.7``: the
Gaussian misses the posterior's shape (a boundary, a funnel, skew); use NUTS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "PARETO_K_BAD",
    "PARETO_K_GOOD",
    "GaussianAtMode",
    "LaplaceResult",
    "finite_difference_hessian",
    "gaussian_at_mode",
    "laplace_approximation",
    "maximise",
]

#: Below this PSIS shape the Gaussian is a close approximation of the posterior.
PARETO_K_GOOD = 0.5
#: At or above this PSIS shape the approximation is unreliable (the fit warns).
PARETO_K_BAD = 0.7


@dataclass(frozen=True, repr=False, eq=False)
class LaplaceResult:
    """Draws and diagnostics of :func:`laplace_approximation`.

    Attributes
    ----------
    values : dict of str to ndarray
        Constrained draws of every requested variable, leading axis the draw.
    logp : ndarray
        Log density (with Jacobian) of each draw, in the unconstrained space.
    log_weights : ndarray
        ``log p − log q`` of each draw (unnormalised).
    pareto_k : float
        PSIS shape of the importance ratios.
    mode_logp : float
        Log density at the mode.
    n_parameters : int
        Unconstrained dimension.
    n_gradient_evaluations : int
        Gradient evaluations spent (optimiser and Hessian).
    optimizer_message : str
    converged : bool
        The optimiser reported success.
    repaired : bool
        The negative Hessian at the optimum was not positive definite (not a mode: its
        eigenvalues were raised to a floor).
    """

    values: dict[str, np.ndarray]
    logp: np.ndarray
    log_weights: np.ndarray
    pareto_k: float
    mode_logp: float
    n_parameters: int
    n_gradient_evaluations: int
    optimizer_message: str
    converged: bool = True
    repaired: bool = False

    def __repr__(self) -> str:
        return (
            f"LaplaceResult(draws={len(self.logp)}, n_parameters={self.n_parameters}, "
            f"pareto_k={self.pareto_k:.2f})"
        )


def _pareto_k(log_weights: np.ndarray) -> float:
    import arviz as az

    lw = np.asarray(log_weights, dtype=float)
    if not np.all(np.isfinite(lw)):
        return float("inf")
    _, k = az.psislw(lw - lw.max())
    return float(np.asarray(k))


def finite_difference_hessian(grad: Any, x: np.ndarray, *, step: float = 1e-4) -> np.ndarray:
    """Hessian of a function from its gradient, by central differences, symmetrised.

    Parameters
    ----------
    grad : callable
        ``grad(x) -> ndarray`` of shape ``(D,)``.
    x : ndarray
        Point, shape ``(D,)``.
    step : float
        Relative step: ``h_k = step · max(1, |x_k|)``.

    Returns
    -------
    ndarray
        Shape ``(D, D)``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> H = finite_difference_hessian(lambda x: A @ x, np.array([0.3, -1.0]))
    >>> bool(np.allclose(H, A))
    True
    """
    x = np.asarray(x, dtype=float)
    d = x.size
    hess = np.empty((d, d))
    for k in range(d):
        h = step * max(1.0, abs(x[k]))
        xp = x.copy()
        xm = x.copy()
        xp[k] += h
        xm[k] -= h
        hess[:, k] = (np.asarray(grad(xp)) - np.asarray(grad(xm))) / (2.0 * h)
    return 0.5 * (hess + hess.T)


def _gaussian_factor(precision: np.ndarray) -> tuple[np.ndarray, float, bool]:
    """Upper factor ``U`` with ``U.T @ U = P`` and ``log det P``; repaired when not PD.

    Returns the factor used to draw ``x = mode + solve(U, z)``, the log determinant and
    whether the precision had to be repaired (eigenvalues raised to a floor).
    """
    from scipy.linalg import cholesky, eigh

    try:
        upper = cholesky(precision, lower=False)
        return upper, 2.0 * float(np.sum(np.log(np.diag(upper)))), False
    except np.linalg.LinAlgError:
        vals, vecs = eigh(precision)
        floor = max(1e-8, 1e-8 * float(np.max(np.abs(vals))))
        vals = np.maximum(vals, floor)
        # U = diag(sqrt λ) Vᵀ: Uᵀ U = V diag(λ) Vᵀ; solve(U, z) = V diag(1/sqrt λ) z
        upper = np.sqrt(vals)[:, None] * vecs.T
        return upper, float(np.sum(np.log(vals))), True


@dataclass(frozen=True, repr=False, eq=False)
class GaussianAtMode:
    """The Gaussian of :func:`gaussian_at_mode`: its draws (one column each) and what
    :class:`LaplaceResult` reports besides the draws' values."""

    draws: np.ndarray
    log_q: np.ndarray
    mode_logp: float
    n_gradient_evaluations: int
    optimizer_message: str
    converged: bool
    repaired: bool

    def result(self, values: dict[str, np.ndarray], logp: np.ndarray) -> LaplaceResult:
        """The :class:`LaplaceResult` given the draws' variables and log densities."""
        log_w = logp - self.log_q
        return LaplaceResult(
            values=values,
            logp=logp,
            log_weights=log_w,
            pareto_k=_pareto_k(log_w),
            mode_logp=self.mode_logp,
            n_parameters=int(self.draws.shape[0]),
            n_gradient_evaluations=self.n_gradient_evaluations,
            optimizer_message=self.optimizer_message,
            converged=self.converged,
            repaired=self.repaired,
        )


def maximise(
    logp_grad: Any,
    x0: np.ndarray,
    *,
    method: str = "L-BFGS-B",
    maxeval: int = 50000,
    **options: Any,
) -> Any:
    """Maximise a log density with :func:`scipy.optimize.minimize` (the MAP and Laplace
    optimiser): ``maxeval`` bounds the iterations (and, for L-BFGS-B, the evaluations).

    Returns
    -------
    scipy.optimize.OptimizeResult
        ``fun`` is the negative log density at the optimum.

    Examples
    --------
    >>> res = maximise(lambda x: (-float((x - 1) @ (x - 1)), -2 * (x - 1)), np.zeros(2))
    >>> np.round(res.x, 4).tolist(), bool(res.success)
    ([1.0, 1.0], True)
    """
    from scipy.optimize import minimize

    def cost(x: np.ndarray) -> tuple[float, np.ndarray]:
        lp, g = logp_grad(x)
        return -float(lp), -np.asarray(g, dtype=float)

    opts = {"maxiter": int(maxeval), **options}
    if method == "L-BFGS-B":
        opts.setdefault("maxfun", int(maxeval))
    return minimize(cost, x0, jac=True, method=method, options=opts)


def gaussian_at_mode(
    logp_grad: Any,
    x0: np.ndarray,
    *,
    random_seed: int,
    draws: int = 1000,
    maxeval: int = 50000,
    step: float = 1e-4,
) -> GaussianAtMode:
    """Mode of a log density (L-BFGS-B from ``x0``), the Gaussian with the negative Hessian
    there as precision (central differences of the gradient), and ``draws`` draws from it.

    Parameters
    ----------
    logp_grad : callable
        ``x -> (log density, gradient)`` in the unconstrained space.
    x0 : float array
        Start of the optimiser.
    random_seed, draws, maxeval, step
        As in :func:`laplace_approximation`.

    Returns
    -------
    GaussianAtMode

    Examples
    --------
    >>> g = gaussian_at_mode(lambda x: (-0.5 * float(x @ x), -x), np.ones(2), random_seed=0,
    ...                      draws=4000)
    >>> np.round(g.draws.std(axis=1), 1).tolist(), g.converged
    ([1.0, 1.0], True)
    """
    from scipy.linalg import solve_triangular

    n_eval = 0

    def counted(x: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal n_eval
        n_eval += 1
        return logp_grad(x)

    def grad(x: np.ndarray) -> np.ndarray:
        nonlocal n_eval
        n_eval += 1
        return np.asarray(logp_grad(x)[1], dtype=float)

    res = maximise(counted, x0, maxeval=maxeval, ftol=1e-13, gtol=1e-7)
    mode = np.asarray(res.x, dtype=float)
    precision = -finite_difference_hessian(grad, mode, step=step)
    upper, logdet, repaired = _gaussian_factor(precision)
    rng = np.random.default_rng(random_seed)
    d = mode.size
    z = rng.standard_normal((d, draws))
    dx = np.linalg.solve(upper, z) if repaired else solve_triangular(upper, z, lower=False)
    log_q = 0.5 * logdet - 0.5 * d * np.log(2.0 * np.pi) - 0.5 * np.sum(z * z, axis=0)
    return GaussianAtMode(
        draws=mode[:, None] + dx,
        log_q=log_q,
        mode_logp=-float(res.fun),
        n_gradient_evaluations=n_eval,
        optimizer_message=str(res.message),
        converged=bool(res.success),
        repaired=repaired,
    )


def laplace_approximation(
    model: Any,
    names: Sequence[str],
    *,
    random_seed: int,
    draws: int = 1000,
    maxeval: int = 50000,
    step: float = 1e-4,
) -> LaplaceResult:
    """Gaussian approximation of ``model``'s posterior at its mode, with draws.

    Parameters
    ----------
    model : pymc.Model
        Preferably with its data frozen (faster compiled functions).
    names : sequence of str
        Free variables and deterministics to return draws of.
    random_seed : int
        Seeds the starting point and the draws.
    draws : int
        Number of draws.
    maxeval : int
        Optimiser's evaluation budget.
    step : float
        Relative finite-difference step of the Hessian.

    Returns
    -------
    LaplaceResult

    Examples
    --------
    >>> import pymc as pm
    >>> with pm.Model() as m:
    ...     p = pm.Beta("p", 20, 80)
    ...     _ = pm.Binomial("y", n=200, p=p, observed=50)
    >>> res = laplace_approximation(m, ["p"], random_seed=1, draws=2000)
    >>> round(float(res.values["p"].mean()), 2)  # exact posterior mean: 70 / 300
    0.23
    >>> res.pareto_k < PARETO_K_GOOD
    True
    """
    import pytensor
    import pytensor.tensor as pt

    value_vars = model.value_vars
    logp = model.logp(jacobian=True)
    grad_list = pytensor.grad(logp, value_vars, disconnected_inputs="ignore")
    fn_grad = model.compile_fn(
        [logp, pt.concatenate([g.ravel() for g in grad_list])],
        inputs=value_vars,
        point_fn=False,
        on_unused_input="ignore",
    )
    outs = model.replace_rvs_by_values([model[n] for n in names])
    fn_out = model.compile_fn(
        [logp, *outs], inputs=value_vars, point_fn=False, on_unused_input="ignore"
    )
    start = model.initial_point(random_seed=random_seed)
    shapes = [np.shape(start[v.name]) for v in value_vars]
    sizes = [int(np.prod(sh)) for sh in shapes]
    splits = np.cumsum(sizes)[:-1]
    x0 = np.concatenate([np.ravel(start[v.name]) for v in value_vars]).astype(float)

    def unravel(x: np.ndarray) -> list[np.ndarray]:
        return [p.reshape(sh) for p, sh in zip(np.split(x, splits), shapes, strict=True)]

    def logp_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        lp, g = fn_grad(*unravel(x))
        return float(lp), np.asarray(g, dtype=float)

    core = gaussian_at_mode(
        logp_grad, x0, random_seed=random_seed, draws=draws, maxeval=maxeval, step=step
    )
    collected: list[list[np.ndarray]] = [[] for _ in names]
    lps = np.empty(draws)
    for i in range(draws):
        out = fn_out(*unravel(core.draws[:, i]))
        lps[i] = float(out[0])
        for j, v in enumerate(out[1:]):
            collected[j].append(np.asarray(v))
    values = {n: np.stack(c) for n, c in zip(names, collected, strict=True)}
    return core.result(values, lps)
