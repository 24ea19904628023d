"""The hard-truth models' log-density written out for nutpie: nothing to compile per log.

:class:`~bayes_pairwise.pymc_models.PositionalOrder` and
:class:`~bayes_pairwise.pymc_models.UniformOrder` evaluate their likelihood with one kernel
(:func:`~bayes_pairwise.pymc_models.order_kernel.order_logp`) and have two or three parameters
per judge. Through PyMC's graph, nutpie's compile holds the log's count tables as constants of
the callbacks, which numba cannot cache ("dynamic globals"): every new process compiled the
model again, about 30 s on the QLoRA GPT-4 log, twice the sampling; and the pointwise
log-likelihood for LOO compiled the graph once more in PyTensor's C backend (another 30 s).

Here the density is written out, as :mod:`~bayes_pairwise.pymc_models.direct` does for the
strength models: the priors and their transforms (``eps`` Uniform through the interval
transform, ``eps_simplex`` Dirichlet through the simplex transform, ``tie_logit`` Logistic,
untransformed), the kernel, the tie terms, and the chain rule back. With tie rates by position
(``tie_positional``) the tie logits ``(judge, tie_position)`` enter the kernel as the tables'
second block of rates, ``(log τ₊, log(1−τ₊), log τ₋, log(1−τ₋))`` per judge, as in the graph.
The tables are read from the user-data block nutpie passes to its callbacks, so the callbacks
depend on nothing but this source and are cached on disk once per machine. Each value variable
is transformed and shaped as in the PyMC model (the rates first, then the tie logits), so the
density equals the PyMC model's, constants included (``tests/test_order_model.py`` checks
value and gradient against the compiled graph).

NUTS samples it; MAP and the Laplace approximation optimise it too
(:func:`~bayes_pairwise.pymc_models.direct.find_mode`,
:func:`~bayes_pairwise.pymc_models.direct.laplace`; MAP on :meth:`OrderDensity.without_jacobian`),
so no fit of these models compiles PyMC's graph in PyTensor's C backend (on a new machine
10–20 s per model, for two or three parameters per judge).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from bayes_pairwise.pymc_models.direct import void_pointer
from bayes_pairwise.pymc_models.jit_cache import folder_of, keep_in_step, sources_digest
from bayes_pairwise.pymc_models.order_kernel import OrderTables, order_logp

keep_in_step(__file__)  # before the first cached function: see jit_cache

__all__ = ["USER_DATA_SIZE", "OrderDensity", "order_density", "order_density_logp_grad"]

_JIT = {"cache": True, "error_model": "numpy"}

#: Length of the user-data block: address and length of 10 arrays.
USER_DATA_SIZE = 20


@dataclass(frozen=True, eq=False)
class OrderDensity:
    """What the written-out density of a hard-truth model needs (built by
    :func:`order_density`); the arrays are C-contiguous copies."""

    # int64: judges, contexts, positional, ties, by position, dispersion, no Jacobian
    shape: np.ndarray
    prior: np.ndarray  # float64: eps lower, upper, Dirichlet a (3), tie mu, s, tie_rho Beta a, b
    size: np.ndarray
    offset: np.ndarray
    counts: np.ndarray
    forbid: np.ndarray
    log_k: np.ndarray
    ties: np.ndarray  # (C, J) tie verdicts per context and judge (zeros without a tie model)
    decided: np.ndarray  # (C, J) decided verdicts
    # with tie_dispersion: the distinct (judge, ties, decided) cells and how many groups
    # (contexts or pairs) have each, (K, 4) — the beta-binomial is evaluated once per distinct
    # cell, not per group
    tie_cells: np.ndarray
    names: tuple[str, ...]  # value variables: the rates, the tie logits, then tie_rho
    shapes: tuple[tuple[int, ...], ...]
    # with tie_dispersion, the groups laid out by context (ties, decided, judge; (C, M) each):
    # the per-context log-likelihood sums them (not in the callbacks' user data)
    tie_groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def sizes(self) -> tuple[int, ...]:
        """Length of each value variable in ``x``."""
        return tuple(int(np.prod(s)) for s in self.shapes)

    @property
    def n_dim(self) -> int:
        """Length of the unconstrained parameter vector."""
        return int(sum(self.sizes))

    @property
    def callback_key(self) -> str:
        """What the cached nutpie callbacks depend on: this module's and the kernel's source."""
        return f"order-{source_version()}"

    @property
    def user_data_size(self) -> int:
        """Length of :attr:`user_data`."""
        return USER_DATA_SIZE

    def entry(self) -> Any:
        """The numba entry ``(x, grad, user_data) -> logp`` nutpie's callbacks call."""
        return _logp_entry

    @functools.cached_property
    def user_data(self) -> np.ndarray:
        """(address, length) of every array; points into this object (keep it alive)."""
        return _user_data(self)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays of the user-data block, in order."""
        return (
            self.shape,
            self.prior,
            self.size,
            self.offset,
            self.counts,
            self.forbid,
            self.log_k,
            self.ties,
            self.decided,
            self.tie_cells,
        )

    def logp_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """:func:`order_density_logp_grad` of this density."""
        return order_density_logp_grad(self, x)

    def without_jacobian(self) -> OrderDensity:
        """The same model's constrained-space density, the transforms' log-Jacobians left out:
        its mode is the MAP point (``model.logp(jacobian=False)``)."""
        import dataclasses

        shape = self.shape.copy()
        shape[6] = 1
        return dataclasses.replace(self, shape=shape)

    def initial_point(self, seed: int, *, jitter: bool = True) -> np.ndarray:
        """PyMC's start for nutpie: the Dirichlet mean or mid-interval and the tie logits at
        ``mu``, jittered by U(−1, 1) in every unconstrained coordinate."""
        rng = np.random.default_rng(seed)
        base = np.zeros(self.n_dim)
        n_j = int(self.shape[0])
        if self.shape[2]:
            log_p = np.log(self.prior[2:5] / self.prior[2:5].sum())
            base[: 2 * n_j] = np.tile(log_p[:2] - log_p.mean(), n_j)
        if self.shape[3] or self.shape[4]:
            base[self.sizes[0] : self.sizes[0] + self.sizes[1]] = self.prior[5]
        if self.shape[5]:  # the Beta's mean, through the log-odds transform
            base[self.sizes[0] + self.sizes[1] :] = math.log(self.prior[7] / self.prior[8])
        return base + rng.uniform(-1.0, 1.0, self.n_dim) if jitter else base

    def constrained(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The model's free variables and deterministics from unconstrained draws
        (each value variable shaped ``(*lead, *shape)``), named as in the PyMC model."""
        n_j = int(self.shape[0])
        out: dict[str, np.ndarray] = {}
        if self.shape[2]:
            y = np.asarray(values["eps_simplex_simplex__"])
            lead = y.shape[:-2]
            y = y.reshape(*lead, n_j, 2)
            full = np.concatenate([y, -y.sum(-1, keepdims=True)], axis=-1)
            e = np.exp(full - full.max(-1, keepdims=True))
            p = e / e.sum(-1, keepdims=True)
            out["eps_simplex"] = p
            out["eps_plus"], out["eps_minus"] = p[..., 0], p[..., 1]
        else:
            t = np.asarray(values["eps_interval__"])
            lo, hi = self.prior[0], self.prior[1]
            out["eps"] = lo + (hi - lo) / (1.0 + np.exp(-t))
        if self.shape[4]:
            alpha = np.asarray(values["tie_logit"])
            out["tie_logit"] = alpha
            out["tie_rate_plus"] = 1.0 / (1.0 + np.exp(-alpha[..., 0]))
            out["tie_rate_minus"] = 1.0 / (1.0 + np.exp(-alpha[..., 1]))
        elif self.shape[3]:
            eta = np.asarray(values["tie_logit"])
            out["tie_logit"] = eta
            out["tie_rate"] = 1.0 / (1.0 + np.exp(-eta))
        if self.shape[5]:
            out["tie_rho"] = 1.0 / (1.0 + np.exp(-np.asarray(values["tie_rho_logodds__"])))
        return out

    def pointwise(self, values: dict[str, np.ndarray]) -> np.ndarray:
        """Per-context log-likelihood of every draw, ``(*lead, C)``, from the model's
        constrained variables (``eps`` or ``eps_plus``/``eps_minus``, ``tie_logit``,
        ``tie_rho``)."""
        if self.shape[2]:
            ep, em = np.asarray(values["eps_plus"]), np.asarray(values["eps_minus"])
        else:
            ep = em = np.asarray(values["eps"])
        lead = ep.shape[:-1]
        n_j = int(self.shape[0])
        ep = np.ascontiguousarray(ep.reshape(-1, n_j), dtype=np.float64)
        em = np.ascontiguousarray(em.reshape(-1, n_j), dtype=np.float64)
        alpha = np.zeros((ep.shape[0], 0))
        eta = np.zeros_like(ep)
        rho = np.zeros((ep.shape[0], n_j if self.shape[5] else 0))
        if self.shape[5]:
            rho = np.ascontiguousarray(
                np.asarray(values["tie_rho"]).reshape(-1, n_j), dtype=np.float64
            )
        if self.shape[4]:
            alpha = np.asarray(values["tie_logit"]).reshape(-1, 2 * n_j)
            alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        elif self.shape[3]:
            eta = np.ascontiguousarray(
                np.asarray(values["tie_logit"]).reshape(-1, n_j), dtype=np.float64
            )
        t, d, judge = (
            self.tie_groups
            if self.tie_groups is not None
            else (self.ties, self.decided, np.zeros(self.ties.shape, dtype=np.int64))
        )
        out = _pointwise(ep, em, eta, alpha, rho, *self.arrays()[2:9], t, d, judge)
        return out.reshape(*lead, -1)


def order_density(
    tables: OrderTables,
    *,
    n_judges: int,
    positional: bool,
    tie_counts: tuple[np.ndarray, np.ndarray] | None,
    priors: dict[str, dict[str, Any]],
    tie_positional: bool = False,
    tie_dispersion: bool = False,
    tie_groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[OrderDensity | None, str]:
    """The :class:`OrderDensity` of a hard-truth model, or ``None`` and why not.

    Parameters
    ----------
    tables : OrderTables
        The model's count tables.
    n_judges : int
    positional : bool
        ``eps_simplex`` (Dirichlet) rather than ``eps`` (Uniform).
    tie_counts : (ties, decided), optional
        Per context and judge, ``(C, J)`` each, when one tie rate per judge is modelled.
    priors : dict
        The model's resolved priors.
    tie_positional : bool
        Tie rates by the better item's position: ``tables`` hold their second block of rows
        (:func:`~bayes_pairwise.pymc_models.order_kernel.order_tables` with
        ``tie_positional=True``) and ``tie_counts`` is ``None``.
    tie_dispersion : bool
        The tie rate varies by group: ``tie_rho`` (Beta prior, log-odds transform) and a
        beta-binomial per group instead of the binomial (needs ``tie_counts``).
    tie_groups : (ties, decided, judge), optional
        With ``tie_dispersion``, the groups laid out by context, ``(C, M)`` each (the order
        model's ``_tie_groups``: a context and judge, or a pair row); default: one group per
        context and judge, from ``tie_counts``.

    Returns
    -------
    density : OrderDensity or None
    reason : str
        Empty when written out.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import PositionalOrder
    >>> sim = bp.simulate_round_robin(5, eps_plus=0.05, eps_minus=0.2, n_contexts=4,
    ...                               random_seed=0)
    >>> spec, why = PositionalOrder().written_out_density(sim.data)
    >>> spec.names, spec.n_dim, why
    (('eps_simplex_simplex__',), 2, '')
    """
    prior = np.zeros(9)
    eps = priors["eps"]
    if positional:
        if eps.get("dist") != "Dirichlet":
            return None, f"eps prior {eps.get('dist')} (written out: Dirichlet)"
        prior[2:5] = np.asarray(eps["a"], dtype=float)
    else:
        if eps.get("dist") != "Uniform":
            return None, f"eps prior {eps.get('dist')} (written out: Uniform)"
        prior[0], prior[1] = float(eps["lower"]), float(eps["upper"])
    names = ["eps_simplex_simplex__" if positional else "eps_interval__"]
    shapes: list[tuple[int, ...]] = [(n_judges, 2) if positional else (n_judges,)]
    n_c = tables.n_contexts
    ties = decided = np.zeros((n_c, n_judges))
    if tie_counts is not None or tie_positional:
        tie = priors["tie_logit"]
        if tie.get("dist") != "Logistic":
            return None, f"tie_logit prior {tie.get('dist')} (written out: Logistic)"
        prior[5], prior[6] = float(tie.get("mu", 0.0)), float(tie.get("s", 1.0))
        names.append("tie_logit")
        shapes.append((n_judges, 2) if tie_positional else (n_judges,))
    if tie_counts is not None and not tie_positional:
        ties, decided = tie_counts
    with_ties = tie_counts is not None and not tie_positional
    dispersion = bool(tie_dispersion) and with_ties
    if dispersion:
        rho = priors["tie_rho"]
        if rho.get("dist") != "Beta":
            return None, f"tie_rho prior {rho.get('dist')} (written out: Beta)"
        prior[7], prior[8] = float(rho["alpha"]), float(rho["beta"])
        names.append("tie_rho_logodds__")
        shapes.append((n_judges,))
    shape = [
        n_judges,
        n_c,
        int(positional),
        int(with_ties),
        int(tie_positional),
        int(dispersion),
        0,  # 1: the transforms' log-Jacobians left out (:meth:`OrderDensity.without_jacobian`)
    ]
    groups = None
    if dispersion:
        if tie_groups is None:
            judge = np.broadcast_to(np.arange(n_judges, dtype=np.int64), ties.shape)
            tie_groups = (ties, decided, judge)
        groups = (
            _copy(tie_groups[0], np.float64),
            _copy(tie_groups[1], np.float64),
            _copy(tie_groups[2], np.int64),
        )
    return (
        OrderDensity(
            shape=np.array(shape, dtype=np.int64),
            prior=prior,
            size=_copy(tables.size, np.int64),
            offset=_copy(tables.offset, np.int64),
            counts=_copy(tables.counts, np.float64),
            forbid=_copy(tables.forbid, np.int64),
            log_k=_copy(tables.log_k_factorial, np.float64),
            ties=_copy(ties, np.float64),
            decided=_copy(decided, np.float64),
            tie_cells=_copy(
                _distinct_cells(*groups) if groups is not None else np.zeros((0, 4)), np.float64
            ),
            names=tuple(names),
            shapes=tuple(shapes),
            tie_groups=groups,
        ),
        "",
    )


def order_density_logp_grad(spec: OrderDensity, x: np.ndarray) -> tuple[float, np.ndarray]:
    """Log-density at the unconstrained point ``x`` (laid out as ``spec.names``) and its
    gradient: what nutpie's callbacks compute.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformOrder
    >>> sim = bp.simulate_round_robin(5, eps=0.1, n_contexts=4, random_seed=0)
    >>> spec, _ = UniformOrder().written_out_density(sim.data)
    >>> lp, grad = order_density_logp_grad(spec, np.zeros(spec.n_dim))
    >>> bool(np.isfinite(lp)), grad.shape
    (True, (1,))
    """
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    if x.shape != (spec.n_dim,):
        raise ValueError(f"x must have shape ({spec.n_dim},), got {x.shape}")
    grad = np.zeros(spec.n_dim)
    lp = _logp_entry(x, grad, spec.user_data)
    return float(lp), grad


def _distinct_cells(ties: np.ndarray, decided: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """``(judge, ties, decided, groups)`` of every distinct cell of the groups' counts
    (cells without verdicts left out)."""
    cells = np.stack([judge.ravel(), ties.ravel(), decided.ravel()], axis=1).astype(np.float64)
    cells = cells[cells[:, 1] + cells[:, 2] > 0]
    distinct, times = np.unique(cells, axis=0, return_counts=True)
    return np.column_stack([distinct, times.astype(np.float64)]).reshape(-1, 4)


def _copy(x: Any, dtype: Any) -> np.ndarray:
    return np.array(x, dtype=dtype, order="C", copy=True)


def _user_data(spec: OrderDensity) -> np.ndarray:
    out: list[int] = []
    for a in spec.arrays():
        out += [a.ctypes.data, a.size]
    return np.array(out, dtype=np.int64)


def source_version() -> str:
    """The cached callbacks' key: the digest of every numba source of this folder
    (:func:`.jit_cache.sources_digest`, the stamp numba's own cache of the kernels carries)."""
    return sources_digest(folder_of(__file__))


@numba.njit(**_JIT)
def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@numba.njit(**_JIT)
def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(**_JIT)
def _log_rates(ep: np.ndarray, em: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The kernel's rates: per judge ``(log ε₊, log(1−ε₊), log ε₋, log(1−ε₋))``, then, when
    ``alpha`` holds the tie logits ``(α₊, α₋)`` of every judge (length 2J, else 0), the tie
    block ``(log τ₊, log(1−τ₊), log τ₋, log(1−τ₋))``, τ± = σ(α±)."""
    n_j = ep.shape[0]
    tie_pos = alpha.shape[0] > 0
    rates = np.empty((2 * n_j if tie_pos else n_j, 4))
    for q in range(n_j):
        rates[q, 0] = math.log(ep[q])
        rates[q, 1] = math.log1p(-ep[q])
        rates[q, 2] = math.log(em[q])
        rates[q, 3] = math.log1p(-em[q])
        if tie_pos:
            a_p = alpha[2 * q]
            a_m = alpha[2 * q + 1]
            rates[n_j + q, 0] = -_softplus(-a_p)
            rates[n_j + q, 1] = -_softplus(a_p)
            rates[n_j + q, 2] = -_softplus(-a_m)
            rates[n_j + q, 3] = -_softplus(a_m)
    return rates


@numba.njit(**_JIT)
def _tie_terms(eta: np.ndarray, ties: np.ndarray, decided: np.ndarray, c: int) -> float:
    lp = 0.0
    for q in range(eta.shape[0]):
        lp -= ties[c, q] * _softplus(-eta[q]) + decided[c, q] * _softplus(eta[q])
    return lp


@numba.njit(**_JIT)
def _beta_binomial(t: float, d: float, tau: float, kappa: float) -> tuple:
    """``log B(t + a, d + b) − log B(a, b)`` (a = τκ, b = (1 − τ)κ; whole counts t, d) and its
    partials ``A = ∂/∂a``, ``B = ∂/∂b``, ``K``: as sums of logs and reciprocals, exact for any
    κ (the differences of log-gamma functions lose digits when κ is large)."""
    a = tau * kappa
    b = (1.0 - tau) * kappa
    lp = 0.0
    g_a = 0.0
    g_b = 0.0
    g_k = 0.0
    for i in range(int(t + 0.5)):
        lp += math.log(a + i)
        g_a += 1.0 / (a + i)
    for i in range(int(d + 0.5)):
        lp += math.log(b + i)
        g_b += 1.0 / (b + i)
    for i in range(int(t + d + 0.5)):
        lp -= math.log(kappa + i)
        g_k += 1.0 / (kappa + i)
    return lp, g_a, g_b, g_k


@numba.njit(**_JIT)
def _pointwise(
    ep, em, eta, alpha, rho, size, offset, counts, forbid, log_k, ties, decided, g_t, g_d, g_j
):
    n_d = ep.shape[0]
    n_c = size.shape[0]
    out = np.empty((n_d, n_c))
    for d in range(n_d):  # without one tie rate per judge the tie counts are zeros
        rates = _log_rates(ep[d], em[d], alpha[d])
        lp, _ = order_logp(rates, size, offset, counts, forbid, log_k)
        if rho.shape[1]:  # the beta-binomial of every group (g_*: (C, M)), summed per context
            for c in range(n_c):
                out[d, c] = lp[c]
                for m in range(g_t.shape[1]):
                    if g_t[c, m] + g_d[c, m] == 0.0:
                        continue
                    q = g_j[c, m]
                    kappa = 1.0 / rho[d, q] - 1.0
                    out[d, c] += _beta_binomial(g_t[c, m], g_d[c, m], _sigmoid(eta[d, q]), kappa)[0]
        else:
            for c in range(n_c):
                out[d, c] = lp[c] + _tie_terms(eta[d], ties, decided, c)
    return out


@numba.njit(**_JIT)
def _unpack(ud: np.ndarray) -> tuple:
    shape = numba.carray(void_pointer(ud[0]), (ud[1],), np.int64)
    prior = numba.carray(void_pointer(ud[2]), (ud[3],), np.float64)
    size = numba.carray(void_pointer(ud[4]), (ud[5],), np.int64)
    offset = numba.carray(void_pointer(ud[6]), (ud[7],), np.int64)
    counts = numba.carray(void_pointer(ud[8]), (ud[9],), np.float64)
    forbid = numba.carray(void_pointer(ud[10]), (ud[11],), np.int64)
    log_k = numba.carray(void_pointer(ud[12]), (ud[13],), np.float64)
    n_j = shape[0]
    n_c = shape[1]
    ties = numba.carray(void_pointer(ud[14]), (n_c, n_j), np.float64)
    decided = numba.carray(void_pointer(ud[16]), (n_c, n_j), np.float64)
    cells = numba.carray(void_pointer(ud[18]), (ud[19] // 4, 4), np.float64)
    return shape, prior, size, offset, counts, forbid, log_k, ties, decided, cells


@numba.njit(**_JIT)
def _logp_entry(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    shape, prior, size, offset, counts, forbid, log_k, ties, decided, cells = _unpack(ud)
    n_j = shape[0]
    n_c = shape[1]
    positional = shape[2] != 0
    with_ties = shape[3] != 0
    tie_pos = shape[4] != 0
    dispersion = shape[5] != 0
    # the constrained-space density (MAP): each transform's log-Jacobian left out, which for
    # the Dirichlet and the Beta is one less on each concentration, for the Uniform its density
    jac = 0.0 if shape[6] != 0 else 1.0
    for k in range(grad.shape[0]):
        grad[k] = 0.0
    ep = np.empty(n_j)
    em = np.empty(n_j)
    probs = np.empty((n_j, 3))
    lp = 0.0
    if positional:
        # (eps_plus, eps_minus, rest) ~ Dirichlet(a), simplex transform: softmax(y1, y2, -y1-y2)
        a0, a1, a2 = prior[2], prior[3], prior[4]
        lp += n_j * (
            math.lgamma(a0 + a1 + a2)
            - math.lgamma(a0)
            - math.lgamma(a1)
            - math.lgamma(a2)
            + jac * math.log(3.0)
        )
        a0, a1, a2 = a0 - 1.0 + jac, a1 - 1.0 + jac, a2 - 1.0 + jac
        for q in range(n_j):
            y1 = x[2 * q]
            y2 = x[2 * q + 1]
            y3 = -y1 - y2
            top = max(y1, max(y2, y3))
            e1 = math.exp(y1 - top)
            e2 = math.exp(y2 - top)
            e3 = math.exp(y3 - top)
            tot = e1 + e2 + e3
            lse = top + math.log(tot)
            probs[q, 0] = e1 / tot
            probs[q, 1] = e2 / tot
            probs[q, 2] = e3 / tot
            # the density and the simplex transform's Jacobian: sum_k a_k log p_k (+ constants);
            # without the Jacobian sum_k (a_k - 1) log p_k
            lp += a0 * (y1 - lse) + a1 * (y2 - lse) + a2 * (y3 - lse)
            ep[q] = probs[q, 0]
            em[q] = probs[q, 1]
    else:
        lo = prior[0]
        width = prior[1] - prior[0]
        for q in range(n_j):
            t = x[q]
            s_t = _sigmoid(t)
            probs[q, 0] = s_t
            ep[q] = lo + width * s_t
            em[q] = ep[q]
            # Uniform density and the interval transform's Jacobian: log s + log(1 - s);
            # without the Jacobian the density, -log(width)
            if jac:
                lp += -2.0 * _softplus(-t) - t
                grad[q] = 1.0 - 2.0 * s_t
            else:
                lp -= math.log(width)
    o_t = 2 * n_j if positional else n_j
    n_tie = 2 * n_j if tie_pos else (n_j if with_ties else 0)
    eta = np.zeros(n_tie)  # one logit per judge, or (α₊, α₋) per judge
    mu = prior[5]
    s_log = prior[6]
    for k in range(n_tie):  # Logistic(mu, s) priors, untransformed
        eta[k] = x[o_t + k]
        zt = (eta[k] - mu) / s_log
        lp += -zt - math.log(s_log) - 2.0 * _softplus(-zt)
        grad[o_t + k] = (1.0 - 2.0 * _sigmoid(zt)) / s_log
    alpha = eta if tie_pos else np.zeros(0)
    ctx_lp, ctx_grad = order_logp(_log_rates(ep, em, alpha), size, offset, counts, forbid, log_k)
    gp = np.zeros(n_j)
    gm = np.zeros(n_j)
    g_tie = np.zeros(4 * n_j if tie_pos else 0)  # ∂/∂ the tie block's log rates
    for c in range(n_c):
        lp += ctx_lp[c]
        for q in range(n_j):
            gp[q] += ctx_grad[c, 4 * q] / ep[q] - ctx_grad[c, 4 * q + 1] / (1.0 - ep[q])
            gm[q] += ctx_grad[c, 4 * q + 2] / em[q] - ctx_grad[c, 4 * q + 3] / (1.0 - em[q])
        for k in range(g_tie.shape[0]):
            g_tie[k] += ctx_grad[c, 4 * n_j + k]
    if tie_pos:  # d log σ(α)/dα = 1 − σ(α), d log(1 − σ(α))/dα = −σ(α)
        for q in range(n_j):
            for side in range(2):
                s_a = _sigmoid(eta[2 * q + side])
                g_log, g_log1m = g_tie[4 * q + 2 * side], g_tie[4 * q + 2 * side + 1]
                grad[o_t + 2 * q + side] += g_log * (1.0 - s_a) - g_log1m * s_a
    if dispersion:  # tie_rho ~ Beta(α, β) through the log-odds transform; beta-binomial cells
        o_r = o_t + n_tie
        b_a, b_b = prior[7], prior[8]
        lp -= n_j * (math.lgamma(b_a) + math.lgamma(b_b) - math.lgamma(b_a + b_b))
        b_a, b_b = b_a - 1.0 + jac, b_b - 1.0 + jac
        for q in range(n_j):
            u = x[o_r + q]
            rho = _sigmoid(u)
            # density and Jacobian: α log ρ + β log(1 − ρ) (without it α − 1 and β − 1)
            lp -= b_a * _softplus(-u) + b_b * _softplus(u)
            grad[o_r + q] += b_a * (1.0 - rho) - b_b * rho
            kappa = 1.0 / rho - 1.0
            tau = _sigmoid(eta[q])
            g_eta = 0.0
            g_kappa = 0.0
            for k in range(cells.shape[0]):  # each distinct (ties, decided) once
                if int(cells[k, 0]) != q:
                    continue
                m = cells[k, 3]
                cell, g_a, g_b, g_k = _beta_binomial(cells[k, 1], cells[k, 2], tau, kappa)
                lp += m * cell
                g_eta += m * (g_a - g_b)
                g_kappa += m * (tau * g_a + (1.0 - tau) * g_b - g_k)
            grad[o_t + q] += g_eta * kappa * tau * (1.0 - tau)  # a = τκ, b = (1 − τ)κ
            grad[o_r + q] -= g_kappa * kappa  # dκ/du = −(1 − ρ)/ρ = −κ
    elif with_ties:
        for q in range(n_j):
            s_eta = _sigmoid(eta[q])
            tq = 0.0
            dq = 0.0
            for c in range(n_c):
                tq += ties[c, q]
                dq += decided[c, q]
            lp -= tq * _softplus(-eta[q]) + dq * _softplus(eta[q])
            grad[o_t + q] += tq * (1.0 - s_eta) - dq * s_eta
    if positional:
        a0, a1, a2 = prior[2] - 1.0 + jac, prior[3] - 1.0 + jac, prior[4] - 1.0 + jac
        a_sum = a0 + a1 + a2
        for q in range(n_j):
            p0 = probs[q, 0]
            p1 = probs[q, 1]
            p2 = probs[q, 2]
            both = gp[q] * p0 + gm[q] * p1
            grad[2 * q] = a0 - a2 - a_sum * (p0 - p2) + gp[q] * p0 - (p0 - p2) * both
            grad[2 * q + 1] = a1 - a2 - a_sum * (p1 - p2) + gm[q] * p1 - (p1 - p2) * both
    else:
        width = prior[1] - prior[0]
        for q in range(n_j):
            s_t = probs[q, 0]
            grad[q] += (gp[q] + gm[q]) * width * s_t * (1.0 - s_t)
    return lp
