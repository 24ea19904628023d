"""The error models' log-density written by hand for nutpie: nothing to compile but one loop.

``nutpie.compile_pymc_model`` turns a PyMC model into numba code op by op. For the uniform
model on 100 items that costs 12–14 s on two cores when no cache exists (a new install, a new
machine), against under 5 s of sampling (``docs/src/speed.md``). The log-density of
:class:`~bayes_pairwise.pymc_models.UniformError` and
:class:`~bayes_pairwise.pymc_models.PositionalBias` (marginal likelihood) is small enough to
write out: the priors and their transforms, ``strength = sigma_s · z``, the rates, the tie
logits, and the pair rows through the same fused kernel as the PyMC model
(:data:`~bayes_pairwise.pymc_models.fused.PAIR_LOGP_ENTRIES`), then the chain rule back.

The unconstrained parameter vector is laid out exactly as PyMC lays out the model's value
variables (same order, same transforms: log for ``sigma_s`` and ``tie_closeness``, zero-sum for
``z`` with one context, interval for ``eps``, simplex for ``eps_simplex``), so the log-density
equals the PyMC model's to rounding, constants included; ``tests/test_direct.py`` checks value
and gradient against ``model.compile_logp`` / ``compile_dlogp`` for every supported variant.

Supported: the marginal likelihood with and without ties (one tie rate, per position, with the
closeness term), gold labels, several judges and several contexts, and the default prior
families (``sigma_s`` HalfNormal, ``eps`` Uniform or Dirichlet, ``tie_logit`` Logistic,
``tie_closeness`` HalfNormal); and the hierarchical judges of
:class:`~bayes_pairwise.pymc_models.HierarchicalUniformError` and
:class:`~bayes_pairwise.pymc_models.HierarchicalPositionalBias` (``eps_mu`` Normal and
``eps_sigma`` HalfNormal with scalar parameters; per-judge logits ``eps_mu + eps_sigma · eps_z``,
through ``0.5 σ(·)`` or the softmax against 0); and the pair-difficulty mixture of
:class:`~bayes_pairwise.pymc_models.PositionalDifficulty` and
:class:`~bayes_pairwise.pymc_models.UniformDifficulty` (``hard_share`` Uniform, ``hard_logit``
Logistic; its rows through the same mixture kernel as the PyMC model,
:data:`~bayes_pairwise.pymc_models.fused.DIFFICULTY_ENTRIES`). Any other prior
falls back to nutpie's compile of the PyMC model; :func:`direct_spec` returns the reason.

The same code gives the constrained-space density without the transforms' Jacobians
(:func:`without_jacobian`), whose mode is the MAP point (:func:`find_mode`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from bayes_pairwise.pymc_models.fused import (
    DIFFICULTY_ENTRIES,
    PAIR_LOGP_ENTRIES,
    count_rows,
    read_only,
    run_difficulty_kernel,
    run_kernel,
)
from bayes_pairwise.pymc_models.jit_cache import folder_of, keep_in_step, sources_digest
from bayes_pairwise.pymc_models.laplace import LaplaceResult, gaussian_at_mode, maximise


class Density(Protocol):
    """What :func:`find_mode` and :func:`laplace` need of a written-out density: a strength
    model's :class:`DirectSpec` or a hard-truth model's
    :class:`~bayes_pairwise.pymc_models.order_density.OrderDensity`."""

    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]

    @property
    def sizes(self) -> tuple[int, ...]: ...

    def logp_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]: ...

    def without_jacobian(self) -> Density: ...

    def initial_point(self, seed: int, *, jitter: bool = True) -> np.ndarray: ...

    def constrained(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...


keep_in_step(__file__)  # before the first cached function: see jit_cache

__all__ = [
    "USER_DATA_SIZE",
    "DirectSpec",
    "constrained_draws",
    "direct_logp_grad",
    "direct_spec",
    "entry",
    "find_mode",
    "initial_point",
    "laplace",
    "pointwise_log_likelihood",
    "source_version",
    "void_pointer",
    "without_jacobian",
]

_K0, _K1, _K2 = PAIR_LOGP_ENTRIES
_D0, _D1, _D2 = DIFFICULTY_ENTRIES
_JIT = {"cache": True, "error_model": "numpy"}
#: Reductions only: 'reassoc' lets LLVM keep several partial sums (a serial float sum over the
#: pair rows is bound by the add latency, a few µs on a 100-item round robin).
_SUM_JIT = {**_JIT, "fastmath": {"reassoc", "nsz", "arcp", "contract"}}
_LOG_2PI = math.log(2.0 * math.pi)
_HALF_NORMAL_C = 0.5 * math.log(2.0 / math.pi)

# prior vector: sigma_s scale, eps lower, eps upper, Dirichlet a (3), tie mu, tie s, closeness
# scale, eps_mu mean, eps_mu sd, eps_sigma scale, hard_share lower, upper, hard_logit mu, s;
# shape vector: items, judges, contexts, positional, closeness, hierarchical, difficulty,
# no-Jacobian (1: the constrained density without the transforms' Jacobians, MAP's objective)
_PRIOR_SIZE = 16
_SHAPE_SIZE = 8


@dataclass(frozen=True, eq=False)
class DirectSpec:
    """What the hand-written log-density needs: sizes, prior constants and the pair rows.

    Built by :func:`direct_spec`; the arrays are C-contiguous (the data read-only).
    """

    ties: int  # 0: none, 1: one tie rate, 2: one per position
    shape: np.ndarray  # int64 (_SHAPE_SIZE,)
    prior: np.ndarray  # float64 (_PRIOR_SIZE,)
    i: np.ndarray
    j: np.ndarray
    judge: np.ndarray
    truth: np.ndarray
    counts: np.ndarray
    coef: np.ndarray
    context: np.ndarray
    context_size: np.ndarray
    names: tuple[str, ...]  # value variables, in PyMC's order
    shapes: tuple[tuple[int, ...], ...]  # the value variables' shapes, as in the PyMC model

    @property
    def form(self) -> int:
        """Which compiled entry evaluates it: the tie form, plus 3 for the pair-difficulty
        mixture, plus 6 for hierarchical judges (:func:`entry`)."""
        return self.ties + 3 * int(self.shape[6]) + 6 * int(self.shape[5])

    @property
    def sizes(self) -> tuple[int, ...]:
        """Length of each value variable in ``x``."""
        return tuple(int(np.prod(s)) for s in self.shapes)

    @functools.cached_property
    def user_data(self) -> np.ndarray:
        """The block of (address, length) pairs the numba entries read the arrays from.

        It points into this spec: keep the spec alive while the block is in use (the compiled
        nutpie model holds both).
        """
        return _user_data(self)

    @property
    def n_dim(self) -> int:
        """Length of the unconstrained parameter vector."""
        return int(sum(self.sizes))

    @property
    def callback_key(self) -> str:
        """What nutpie's cached callbacks depend on: the form and this module's source."""
        return f"direct-{source_version()}-form{self.form}"

    @property
    def user_data_size(self) -> int:
        """Length of :attr:`user_data`."""
        return USER_DATA_SIZE

    def entry(self) -> Any:
        """The numba entry ``(x, grad, user_data) -> logp`` of the form (:func:`entry`)."""
        return entry(self.form)

    def logp_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """:func:`direct_logp_grad` of this spec."""
        return direct_logp_grad(self, x)

    def without_jacobian(self) -> DirectSpec:
        """:func:`without_jacobian` of this spec."""
        return without_jacobian(self)

    def initial_point(self, seed: int, *, jitter: bool = True) -> np.ndarray:
        """:func:`initial_point` of this spec."""
        return initial_point(self, seed, jitter=jitter)

    def constrained(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """:func:`constrained_draws` of this spec."""
        return constrained_draws(self, values)

    def pointwise(self, values: dict[str, np.ndarray]) -> np.ndarray:
        """:func:`pointwise_log_likelihood` of this spec (one value per pair row)."""
        return pointwise_log_likelihood(self, values)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays :func:`direct_logp_grad` takes after ``x`` and ``grad``."""
        return (
            self.shape,
            self.prior,
            self.i,
            self.j,
            self.judge,
            self.truth,
            self.counts,
            self.coef,
            self.context,
            self.context_size,
        )


def _prior_value(table: dict[str, Any], dist: str, key: str) -> float | None:
    if table.get("dist") != dist:
        return None
    return float(table[key])


def direct_spec(
    pc: Any,
    *,
    n_items: int,
    n_judges: int,
    n_contexts: int,
    item_context: np.ndarray,
    positional: bool,
    ties: int,
    closeness: bool,
    priors: dict[str, dict[str, Any]],
    observed: np.ndarray,
    hierarchical: bool = False,
    difficulty: bool = False,
) -> tuple[DirectSpec | None, str]:
    """The :class:`DirectSpec` of an error model, or ``None`` and why it is not supported.

    Parameters
    ----------
    pc : PairCounts
        The model's pair rows (:func:`bayes_pairwise.matrices.pair_counts`).
    n_items, n_judges, n_contexts : int
        As in the data (one context: ``z`` is zero-sum; several: centred per context).
    item_context : int array (n_items,)
    positional : bool
        ``eps_simplex`` (Dirichlet) rather than one ``eps`` per judge.
    ties : {0, 1, 2}
        No tie model, one tie rate, or one per position.
    closeness : bool
        The tie-closeness term.
    priors : dict
        The model's resolved priors.
    observed : int array (P, 2) or (P, 4)
        The model's observed ``wins``.
    hierarchical : bool
        Per-judge rates from a population (``eps_mu``, ``eps_sigma``, ``eps_z``) instead of
        ``eps`` / ``eps_simplex``.
    difficulty : bool
        The pair-difficulty mixture (:class:`~bayes_pairwise.pymc_models.PositionalDifficulty`,
        :class:`~bayes_pairwise.pymc_models.UniformDifficulty`): easy rates as above (the
        uniform one named ``eps_easy``), ``hard_share`` (Uniform) and ``hard_logit``
        (Logistic) per judge.

    Returns
    -------
    spec : DirectSpec or None
    reason : str
        Empty when supported.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.matrices import pair_counts
    >>> sim = bp.simulate_round_robin(6, eps=0.1, random_seed=0)
    >>> pc = pair_counts(sim.data)
    >>> priors = {"sigma_s": {"dist": "HalfNormal", "sigma": 10.0},
    ...           "eps": {"dist": "Uniform", "lower": 0.0, "upper": 0.5}}
    >>> spec, why = direct_spec(pc, n_items=6, n_judges=1, n_contexts=1,
    ...                         item_context=np.zeros(6, int), positional=False, ties=0,
    ...                         closeness=False, priors=priors,
    ...                         observed=np.stack([pc.n1, pc.n2], axis=1))
    >>> spec.names, spec.n_dim
    (('sigma_s_log__', 'z_zerosum__', 'eps_interval__'), 7)
    """
    sigma = _prior_value(priors["sigma_s"], "HalfNormal", "sigma")
    if sigma is None:
        return None, f"sigma_s prior {priors['sigma_s'].get('dist')} (written out: HalfNormal)"
    prior = np.zeros(_PRIOR_SIZE)
    prior[0] = sigma
    if hierarchical:
        mu, tau = priors["eps_mu"], priors["eps_sigma"]
        m_mu, m_sd, t_sd = mu.get("mu", 0.0), mu.get("sigma", 1.0), tau.get("sigma", 1.0)
        if mu.get("dist") != "Normal" or np.ndim(m_mu) or np.ndim(m_sd):
            return None, "eps_mu prior (written out: Normal with scalar mu and sigma)"
        if tau.get("dist") != "HalfNormal" or np.ndim(t_sd):
            return None, "eps_sigma prior (written out: HalfNormal with a scalar sigma)"
        prior[9], prior[10], prior[11] = float(m_mu), float(m_sd), float(t_sd)
    elif positional:
        eps = priors["eps"]
        if eps.get("dist") != "Dirichlet":
            return None, f"eps prior {eps.get('dist')} (written out: Dirichlet)"
        prior[3:6] = np.asarray(eps["a"], dtype=float)
    else:
        eps = priors["eps"]
        if eps.get("dist") != "Uniform":
            return None, f"eps prior {eps.get('dist')} (written out: Uniform)"
        prior[1], prior[2] = float(eps["lower"]), float(eps["upper"])
    if difficulty:
        share, logit_h = priors["hard_share"], priors["hard_logit"]
        if share.get("dist") != "Uniform":
            return None, f"hard_share prior {share.get('dist')} (written out: Uniform)"
        if logit_h.get("dist") != "Logistic":
            return None, f"hard_logit prior {logit_h.get('dist')} (written out: Logistic)"
        prior[12], prior[13] = float(share["lower"]), float(share["upper"])
        prior[14], prior[15] = float(logit_h.get("mu", 0.0)), float(logit_h.get("s", 1.0))
    if ties:
        tie = priors["tie_logit"]
        if tie.get("dist") != "Logistic":
            return None, f"tie_logit prior {tie.get('dist')} (written out: Logistic)"
        prior[6], prior[7] = float(tie.get("mu", 0.0)), float(tie.get("s", 1.0))
        if closeness:
            scale = _prior_value(priors["tie_closeness"], "HalfNormal", "sigma")
            if scale is None:
                return None, "tie_closeness prior (written out: HalfNormal)"
            prior[8] = scale
    context = np.ascontiguousarray(item_context, dtype=np.int64)
    counts, coef = count_rows(
        np.asarray(observed), np.stack([pc.k_plus, pc.k_minus], axis=1), ties=bool(ties)
    )
    truth = pc.truth if pc.has_truth else np.full(len(pc.i), -1)
    names = ["sigma_s_log__", "z_zerosum__" if n_contexts == 1 else "z"]
    shapes = [(), (n_items - 1 if n_contexts == 1 else n_items,)]
    if hierarchical:
        names += ["eps_mu", "eps_sigma_log__", "eps_z"]
        shapes += [(2,), (2,), (n_judges, 2)] if positional else [(), (), (n_judges,)]
    else:
        flat = "eps_easy_interval__" if difficulty else "eps_interval__"
        names.append("eps_simplex_simplex__" if positional else flat)
        shapes.append((n_judges, 2) if positional else (n_judges,))
    if difficulty:
        names += ["hard_share_interval__", "hard_logit"]
        shapes += [(n_judges,), (n_judges,)]
    if ties:
        names.append("tie_logit")  # untransformed: its shape must match its dims in the model
        shapes.append((n_judges, 2) if ties == 2 else (n_judges,))
        if closeness:
            names.append("tie_closeness_log__")
            shapes.append((n_judges,))
    spec = DirectSpec(
        ties=int(ties),
        shape=np.array(
            [
                n_items,
                n_judges,
                n_contexts,
                int(positional),
                int(closeness),
                int(hierarchical),
                int(difficulty),
                0,
            ],
            dtype=np.int64,
        ),
        prior=prior,
        i=_data(pc.i, np.int64),
        j=_data(pc.j, np.int64),
        judge=_data(pc.judge, np.int64),
        truth=_data(truth, np.int64),
        counts=_data(counts, np.float64),
        coef=_data(coef, np.float64),
        context=_data(context, np.int64),
        context_size=_data(np.bincount(context, minlength=n_contexts), np.float64),
        names=tuple(names),
        shapes=tuple(shapes),
    )
    return spec, ""


def _data(x: Any, dtype: Any) -> np.ndarray:
    return np.array(x, dtype=dtype, order="C", copy=True)


@intrinsic
def void_pointer(typingctx: Any, address: Any) -> Any:
    """The integer ``address`` as a ``void*``."""
    sig = types.voidptr(address)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@numba.njit(inline="always", **_JIT)
def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@numba.njit(inline="always", **_JIT)
def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(inline="always", **_JIT)
def _softmax3(y1: float, y2: float, y3: float) -> tuple:
    """softmax(y1, y2, y3) and its log-normaliser, without overflow."""
    top = max(y1, max(y2, y3))
    e1 = math.exp(y1 - top)
    e2 = math.exp(y2 - top)
    e3 = math.exp(y3 - top)
    tot = e1 + e2 + e3
    return e1 / tot, e2 / tot, e3 / tot, top + math.log(tot)


@numba.njit(**_SUM_JIT)  # not inlined by numba: its fast-math flags would be the caller's
def _total(v: np.ndarray) -> float:
    """Sum of a vector, reassociated so that it vectorises (rounding differs from a serial sum
    by about one ulp per term's magnitude, far below the log-density's own error)."""
    t = 0.0
    for k in range(v.shape[0]):
        t += v[k]
    return t


@numba.njit(inline="always", **_JIT)
def _layout(shape: np.ndarray, ties: int) -> tuple:
    """Sizes and flags, and where the rates, the tie logits and the closeness start in ``x``."""
    n = shape[0]
    nj = shape[1]
    nc = shape[2]
    positional = shape[3] != 0
    closeness = shape[4] != 0
    hier = shape[5] != 0
    diff = shape[6] != 0
    nr = 2 if positional else 1  # error logits per judge
    oe = 1 + (n - 1 if nc == 1 else n)  # after sigma_s and z
    oh = oe + (nr * (nj + 2) if hier else nr * nj)  # hierarchical: mu (nr), log tau (nr), z
    ot = oh + (2 * nj if diff else 0)  # difficulty: hard_share, hard_logit per judge
    oc = ot + ((2 * nj if ties == 2 else nj) if ties else 0)
    return n, nj, nc, positional, closeness, hier, diff, nr, oe, oh, ot, oc


@numba.njit(**_JIT)
def _before(
    x: np.ndarray,
    grad: np.ndarray,
    shape: np.ndarray,
    prior: np.ndarray,
    ii: np.ndarray,
    jj: np.ndarray,
    judge: np.ndarray,
    context: np.ndarray,
    context_size: np.ndarray,
    ties: int,
    hier_on: Any,
    diff_on: Any,
) -> tuple:
    """The priors (log-density and gradient into ``grad``) and the kernel's inputs.

    ``hier_on`` and ``diff_on`` are None or 1: typed None, numba prunes the hierarchical or
    pair-difficulty code out of an entry that never runs it (so it is not compiled there).
    """
    n, nj, nc, positional, closeness, _, diff, nr, oe, oh, ot, oc = _layout(shape, ties)
    oz = 1
    for k in range(grad.shape[0]):
        grad[k] = 0.0
    # sigma_s ~ HalfNormal(scale), log transform
    scale = prior[0]
    u = x[0]
    sig = math.exp(u)
    r2 = (sig / scale) ** 2
    jac = 1.0 if shape[7] == 0 else 0.0  # the transforms' log-Jacobians, or not (MAP)
    lp = _HALF_NORMAL_C - math.log(scale) - 0.5 * r2 + jac * u
    grad[0] = jac - r2
    # z: ZeroSumNormal(1) (one context, zero-sum transform) or Normal(0, 1) centred per context
    z = np.empty(n)
    if nc == 1:
        total = 0.0
        ss = 0.0
        for k in range(n - 1):
            y = x[oz + k]
            total += y
            ss += y * y
        rn = math.sqrt(n)
        norm = total / (rn + n)
        for k in range(n - 1):
            z[k] = x[oz + k] - norm
        z[n - 1] = -total / rn
        lp += -0.5 * ss - 0.5 * (n - 1) * _LOG_2PI
    else:
        means = np.zeros(nc)
        ss = 0.0
        for k in range(n):
            y = x[oz + k]
            means[context[k]] += y
            ss += y * y
        for c in range(nc):
            means[c] /= max(context_size[c], 1.0)
        for k in range(n):
            z[k] = x[oz + k] - means[context[k]]
        lp += -0.5 * ss - 0.5 * n * _LOG_2PI
    p_rows = ii.shape[0]
    d = np.empty(p_rows)
    for r in range(p_rows):
        d[r] = sig * (z[ii[r]] - z[jj[r]])
    # error rates per judge
    ep = np.empty(nj)
    em = np.empty(nj)
    probs = np.empty((nj, 3))
    if hier_on is not None:
        # eps_mu ~ Normal, eps_sigma ~ HalfNormal (log), eps_z ~ Normal(0, 1); logits mu + tau z
        m0 = prior[9]
        s0 = prior[10]
        t_scale = prior[11]
        oz_e = oe + 2 * nr
        for r in range(nr):
            zm = (x[oe + r] - m0) / s0
            lp += -0.5 * zm * zm - math.log(s0) - 0.5 * _LOG_2PI
            grad[oe + r] = -zm / s0
            u_t = x[oe + nr + r]
            rt = (math.exp(u_t) / t_scale) ** 2
            lp += _HALF_NORMAL_C - math.log(t_scale) - 0.5 * rt + jac * u_t
            grad[oe + nr + r] = jac - rt
        for k in range(nr * nj):
            zz = x[oz_e + k]
            lp += -0.5 * zz * zz - 0.5 * _LOG_2PI
            grad[oz_e + k] = -zz
        for q in range(nj):
            a_0 = x[oe] + math.exp(x[oe + nr]) * x[oz_e + nr * q]
            if positional:
                a_1 = x[oe + 1] + math.exp(x[oe + 3]) * x[oz_e + 2 * q + 1]
                probs[q, 0], probs[q, 1], probs[q, 2], _ = _softmax3(a_0, a_1, 0.0)
                ep[q] = probs[q, 0]
                em[q] = probs[q, 1]
            else:
                s_a = _sigmoid(a_0)
                probs[q, 0] = s_a
                ep[q] = 0.5 * s_a
                em[q] = ep[q]
    elif positional:
        a0, a1, a2 = prior[3], prior[4], prior[5]
        lp += nj * (
            math.lgamma(a0 + a1 + a2)
            - math.lgamma(a0)
            - math.lgamma(a1)
            - math.lgamma(a2)
            + jac * math.log(3.0)
        )
        a0, a1, a2 = a0 - 1.0 + jac, a1 - 1.0 + jac, a2 - 1.0 + jac  # log p coefficients
        for q in range(nj):
            y1 = x[oe + 2 * q]
            y2 = x[oe + 2 * q + 1]
            y3 = -y1 - y2
            probs[q, 0], probs[q, 1], probs[q, 2], lse = _softmax3(y1, y2, y3)
            # Dirichlet density (and the simplex Jacobian): sum_k c_k log p_k (+ constants)
            lp += a0 * (y1 - lse) + a1 * (y2 - lse) + a2 * (y3 - lse)
            ep[q] = probs[q, 0]
            em[q] = probs[q, 1]
    else:
        lo = prior[1]
        width = prior[2] - prior[1]
        for q in range(nj):
            t = x[oe + q]
            s_t = _sigmoid(t)
            probs[q, 0] = s_t
            ep[q] = lo + width * s_t
            em[q] = ep[q]
            # Uniform density and the interval Jacobian: log s + log(1 - s); without: -log width
            lp += jac * (-2.0 * _softplus(-t) - t) - (1.0 - jac) * math.log(width)
            grad[oe + q] = jac * (1.0 - 2.0 * s_t)
    # pair difficulty: hard_share ~ Uniform (interval), hard_logit ~ Logistic;
    # eps_hard = floor + (1 - floor) sigmoid(hard_logit), floor = max(eps_plus, eps_minus)
    eh = np.empty(nj if diff else 0)
    pi = np.empty(nj if diff else 0)
    sh = np.empty(nj if diff else 0)
    if diff_on is not None:
        lo_h = prior[12]
        w_h = prior[13] - prior[12]
        mu_h = prior[14]
        s_h = prior[15]
        for q in range(nj):
            t = x[oh + q]
            s_t = _sigmoid(t)
            pi[q] = lo_h + w_h * s_t
            lp += jac * (-2.0 * _softplus(-t) - t) - (1.0 - jac) * math.log(w_h)
            grad[oh + q] = jac * (1.0 - 2.0 * s_t)
            u = x[oh + nj + q]
            zt = (u - mu_h) / s_h
            lp += -zt - math.log(s_h) - 2.0 * _softplus(-zt)
            grad[oh + nj + q] = (1.0 - 2.0 * _sigmoid(zt)) / s_h
            sh[q] = _sigmoid(u)
            floor = max(ep[q], em[q])
            eh[q] = floor + (1.0 - floor) * sh[q]
    # tie logits per row
    eta_p = np.empty(p_rows if ties else 0)
    eta_m = np.empty(p_rows if ties == 2 else 0)
    beta = np.zeros(nj)
    if ties:
        mu = prior[6]
        s_log = prior[7]
        for k in range(oc - ot):
            zt = (x[ot + k] - mu) / s_log
            lp += -zt - math.log(s_log) - 2.0 * _softplus(-zt)
            grad[ot + k] = (1.0 - 2.0 * _sigmoid(zt)) / s_log
        if closeness:
            c_scale = prior[8]
            for q in range(nj):
                v = x[oc + q]
                beta[q] = math.exp(v)
                rb = (beta[q] / c_scale) ** 2
                lp += _HALF_NORMAL_C - math.log(c_scale) - 0.5 * rb + jac * v
                grad[oc + q] = jac - rb
        step = 2 if ties == 2 else 1
        for r in range(p_rows):
            q = judge[r]
            shrink = beta[q] * abs(d[r])
            eta_p[r] = x[ot + step * q] - shrink
            if ties == 2:
                eta_m[r] = x[ot + step * q + 1] - shrink
    return lp, (d, ep, em, eta_p, eta_m, eh, pi), (d, z, sig, probs, beta, ep, em, sh)


@numba.njit(**_JIT)
def _after(
    x: np.ndarray,
    grad: np.ndarray,
    shape: np.ndarray,
    prior: np.ndarray,
    ii: np.ndarray,
    jj: np.ndarray,
    judge: np.ndarray,
    context: np.ndarray,
    context_size: np.ndarray,
    ties: int,
    hier_on: Any,
    diff_on: Any,
    lp: float,
    kernel_out: tuple,
    forward: tuple,
    rows: np.ndarray,
) -> float:
    """Add the pair rows' log-likelihood and take the gradient back to ``x``."""
    lr, g_d, g_ep, g_em, g_tp, g_tm, g_eh, g_pi = kernel_out
    d, z, sig, probs, beta, ep, em, sh = forward
    n, nj, nc, positional, closeness, _, _, nr, oe, oh, ot, oc = _layout(shape, ties)
    oz = 1
    p_rows = ii.shape[0]
    if rows.shape[0] == p_rows:  # a loop: a slice assignment compiles numba's shape-error
        for r in range(p_rows):  # message formatting, 2-3 s of every cold start
            rows[r] = lr[r]
    lp += _total(lr)
    gp = np.zeros(nj)
    gm = np.zeros(nj)
    if nj == 1:  # sums that vectorise
        gp[0] = _total(g_ep)
        gm[0] = _total(g_em)
    else:
        for r in range(p_rows):
            gp[judge[r]] += g_ep[r]
            gm[judge[r]] += g_em[r]
    if ties:
        step = 2 if ties == 2 else 1
        for r in range(p_rows):
            q = judge[r]
            grad[ot + step * q] += g_tp[r]
            if ties == 2:
                grad[ot + step * q + 1] += g_tm[r]
            if closeness:  # η = α − β|d|: the tie partials reach β and d
                gt = g_tp[r] + (g_tm[r] if ties == 2 else 0.0)
                grad[oc + q] -= beta[q] * abs(d[r]) * gt
                sgn = 1.0 if d[r] > 0.0 else (-1.0 if d[r] < 0.0 else 0.0)
                g_d[r] -= beta[q] * sgn * gt
    g_s = np.zeros(n)
    for r in range(p_rows):
        g_s[ii[r]] += g_d[r]
        g_s[jj[r]] -= g_d[r]
    if diff_on is not None:  # back through eps_hard and hard_share, per judge
        gh = np.zeros(nj)
        gpi = np.zeros(nj)
        for r in range(p_rows):
            gh[judge[r]] += g_eh[r]
            gpi[judge[r]] += g_pi[r]
        w_h = prior[13] - prior[12]
        for q in range(nj):
            s_t = _sigmoid(x[oh + q])
            grad[oh + q] += gpi[q] * w_h * s_t * (1.0 - s_t)
            floor = max(ep[q], em[q])
            grad[oh + nj + q] += gh[q] * (1.0 - floor) * sh[q] * (1.0 - sh[q])
            if ep[q] >= em[q]:  # the floor's partial goes to the larger rate (PyTensor's rule)
                gp[q] += gh[q] * (1.0 - sh[q])
            else:
                gm[q] += gh[q] * (1.0 - sh[q])
    # back through the rates
    if hier_on is not None:
        oz_e = oe + 2 * nr
        for q in range(nj):
            for r in range(nr):
                if positional:
                    both = gp[q] * probs[q, 0] + gm[q] * probs[q, 1]
                    g_a = probs[q, r] * ((gp[q] if r == 0 else gm[q]) - both)  # softmax
                else:
                    s_a = probs[q, 0]
                    g_a = (gp[q] + gm[q]) * 0.5 * s_a * (1.0 - s_a)
                tau = math.exp(x[oe + nr + r])
                zz = x[oz_e + nr * q + r]
                grad[oe + r] += g_a
                grad[oe + nr + r] += g_a * zz * tau
                grad[oz_e + nr * q + r] += g_a * tau
    elif positional:
        jac = 1.0 if shape[7] == 0 else 0.0
        a0, a1, a2 = prior[3] - 1.0 + jac, prior[4] - 1.0 + jac, prior[5] - 1.0 + jac
        a_sum = a0 + a1 + a2
        for q in range(nj):
            p0 = probs[q, 0]
            p1 = probs[q, 1]
            p2 = probs[q, 2]
            both = gp[q] * p0 + gm[q] * p1
            grad[oe + 2 * q] = a0 - a2 - a_sum * (p0 - p2) + gp[q] * p0 - (p0 - p2) * both
            grad[oe + 2 * q + 1] = a1 - a2 - a_sum * (p1 - p2) + gm[q] * p1 - (p1 - p2) * both
    else:
        width = prior[2] - prior[1]
        for q in range(nj):
            s_t = probs[q, 0]
            grad[oe + q] += (gp[q] + gm[q]) * width * s_t * (1.0 - s_t)
    # back through strength = sigma_s * z
    g_sig = 0.0
    for k in range(n):
        g_sig += g_s[k] * z[k]
        g_s[k] *= sig  # now the gradient with respect to z
    grad[0] += g_sig * sig
    if nc == 1:
        rn = math.sqrt(n)
        head = 0.0
        for k in range(n - 1):
            head += g_s[k]
        shift = head / (rn + n) + g_s[n - 1] / rn
        for k in range(n - 1):
            grad[oz + k] = g_s[k] - shift - x[oz + k]
    else:
        g_means = np.zeros(nc)
        for k in range(n):
            g_means[context[k]] += g_s[k]
        for c in range(nc):
            g_means[c] /= max(context_size[c], 1.0)
        for k in range(n):
            grad[oz + k] = g_s[k] - g_means[context[k]] - x[oz + k]
    return lp


# One entry per form: tie form (each calling its own kernel entry: a tie form given as an
# argument would compile all three kernels, numba types a constant argument as a plain integer)
# and rates (flat, hierarchical, pair difficulty: a None argument prunes the others' code).
@numba.njit(**_JIT)
def _logp_ties0(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 0, None, None)
    out = _K0(*inputs[:3], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(
        x, grad, sh, pr, i, j, q, cx, cs, 0, None, None, lp, (*out, e, e, e, e), fwd, rows
    )


@numba.njit(**_JIT)
def _logp_ties1(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 1, None, None)
    out = _K1(*inputs[:4], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 1, None, None, lp, (*out, e, e, e), fwd, rows)


@numba.njit(**_JIT)
def _logp_ties2(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 2, None, None)
    out = _K2(*inputs[:5], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 2, None, None, lp, (*out, e, e), fwd, rows)


@numba.njit(**_JIT)
def _logp_hier_ties0(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 0, 1, None)
    out = _K0(*inputs[:3], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 0, 1, None, lp, (*out, e, e, e, e), fwd, rows)


@numba.njit(**_JIT)
def _logp_hier_ties1(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 1, 1, None)
    out = _K1(*inputs[:4], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 1, 1, None, lp, (*out, e, e, e), fwd, rows)


@numba.njit(**_JIT)
def _logp_hier_ties2(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 2, 1, None)
    out = _K2(*inputs[:5], *read_only(q, t, n, c))
    e = out[0][:0]
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 2, 1, None, lp, (*out, e, e), fwd, rows)


@numba.njit(**_JIT)
def _logp_diff_ties0(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 0, None, 1)
    d, ep, em, _, _, eh, pi = inputs
    o = _D0(d, ep, em, eh, pi, *read_only(q, t, n, c))
    e = o[0][:0]
    out = (o[0], o[1], o[2], o[3], e, e, o[4], o[5])
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 0, None, 1, lp, out, fwd, rows)


@numba.njit(**_JIT)
def _logp_diff_ties1(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 1, None, 1)
    d, ep, em, eta_p, _, eh, pi = inputs
    o = _D1(d, ep, em, eh, pi, eta_p, *read_only(q, t, n, c))
    out = (o[0], o[1], o[2], o[3], o[6], o[0][:0], o[4], o[5])
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 1, None, 1, lp, out, fwd, rows)


@numba.njit(**_JIT)
def _logp_diff_ties2(x: np.ndarray, grad: np.ndarray, ud: np.ndarray) -> float:
    sh, pr, i, j, q, t, n, c, cx, cs, rows = _unpack(ud)
    lp, inputs, fwd = _before(x, grad, sh, pr, i, j, q, cx, cs, 2, None, 1)
    d, ep, em, eta_p, eta_m, eh, pi = inputs
    o = _D2(d, ep, em, eh, pi, eta_p, eta_m, *read_only(q, t, n, c))
    out = (o[0], o[1], o[2], o[3], o[6], o[7], o[4], o[5])
    return _after(x, grad, sh, pr, i, j, q, cx, cs, 2, None, 1, lp, out, fwd, rows)


@numba.njit(inline="always", **_JIT)
def _unpack(ud: np.ndarray) -> tuple:
    """The spec's arrays from the user-data block: (address, length) pairs, counts' 4 or 6 rows."""
    shape = numba.carray(void_pointer(ud[0]), (ud[1],), np.int64)
    prior = numba.carray(void_pointer(ud[2]), (ud[3],), np.float64)
    ii = numba.carray(void_pointer(ud[4]), (ud[5],), np.int64)
    jj = numba.carray(void_pointer(ud[6]), (ud[7],), np.int64)
    judge = numba.carray(void_pointer(ud[8]), (ud[9],), np.int64)
    truth = numba.carray(void_pointer(ud[10]), (ud[11],), np.int64)
    counts = numba.carray(void_pointer(ud[12]), (ud[13], ud[5]), np.float64)
    coef = numba.carray(void_pointer(ud[14]), (ud[15],), np.float64)
    context = numba.carray(void_pointer(ud[16]), (ud[17],), np.int64)
    context_size = numba.carray(void_pointer(ud[18]), (ud[19],), np.float64)
    rows = numba.carray(void_pointer(ud[20]), (ud[21],), np.float64)
    return shape, prior, ii, jj, judge, truth, counts, coef, context, context_size, rows


def _user_data(spec: DirectSpec, rows: np.ndarray | None = None) -> np.ndarray:
    out = []
    for a in (*spec.arrays(), _NO_ROWS if rows is None else rows):
        out += [a.ctypes.data, a.shape[0]]
    return np.array(out, dtype=np.int64)


_NO_ROWS = np.zeros(1)[:0]

#: Length of the user-data block (address and length of 11 arrays).
USER_DATA_SIZE = 22


def source_version() -> str:
    """A digest of every numba source of this folder (this module's, the kernel's: see
    :func:`.jit_cache.sources_digest`): part of the cached callbacks' key, so that an edited
    log-density is never served from an old cache."""
    return sources_digest(folder_of(__file__))


_ENTRIES = (
    _logp_ties0,
    _logp_ties1,
    _logp_ties2,
    _logp_diff_ties0,
    _logp_diff_ties1,
    _logp_diff_ties2,
    _logp_hier_ties0,
    _logp_hier_ties1,
    _logp_hier_ties2,
)


def entry(form: int) -> Any:
    """The numba entry ``(x, grad, user_data) -> logp`` of a form (:attr:`DirectSpec.form`:
    the tie form, plus 3 for the pair-difficulty mixture, plus 6 for hierarchical judges); the
    callbacks call it."""
    return _ENTRIES[form]


def direct_logp_grad(
    spec: DirectSpec, x: np.ndarray, *, rows: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Log-density of the model at the unconstrained point ``x`` and its gradient.

    Parameters
    ----------
    spec : DirectSpec
    x : float array (spec.n_dim,)
        Laid out as PyMC lays out the model's value variables (``spec.names``).
    rows : float array (P,), optional
        Receives the log-likelihood of every pair row.

    Returns
    -------
    logp : float
    grad : float array (spec.n_dim,)

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformError
    >>> sim = bp.simulate_round_robin(6, eps=0.1, random_seed=0)
    >>> spec, _ = UniformError().written_out_density(sim.data)
    >>> lp, grad = direct_logp_grad(spec, np.zeros(spec.n_dim))
    >>> bool(np.isfinite(lp)), grad.shape
    (True, (7,))
    """
    x = np.array(x, dtype=np.float64, order="C", copy=True)
    if x.shape != (spec.n_dim,):
        raise ValueError(f"x must have shape ({spec.n_dim},), got {x.shape}")
    if rows is not None and (rows.shape != spec.i.shape or rows.dtype != np.float64):
        raise ValueError(f"rows must be a float64 array of shape {spec.i.shape}")
    grad = np.zeros(spec.n_dim)
    lp = _ENTRIES[spec.form](x, grad, _user_data(spec, rows))
    return float(lp), grad


def initial_point(spec: DirectSpec, seed: int, *, jitter: bool = True) -> np.ndarray:
    """PyMC's default start for nutpie: the support point, jittered by U(−1, 1) in every
    unconstrained coordinate (``sigma_s`` and ``tie_closeness`` at their prior scale, ``z`` at
    zero, ``eps`` mid-interval or at the Dirichlet mean, the tie logits at ``mu``)."""
    rng = np.random.default_rng(seed)
    base = np.zeros(spec.n_dim)
    base[0] = math.log(spec.prior[0])
    offsets = np.cumsum((0, *spec.sizes))
    by_name = dict(zip(spec.names, offsets[:-1], strict=True))
    if "eps_simplex_simplex__" in by_name:
        a = spec.prior[3:6]
        log_p = np.log(a / a.sum())
        start = by_name["eps_simplex_simplex__"]
        for q in range(int(spec.shape[1])):
            base[start + 2 * q : start + 2 * q + 2] = log_p[:2] - log_p.mean()
    if "eps_mu" in by_name:  # Normal at its mean, HalfNormal at its scale, z at zero
        k = spec.sizes[spec.names.index("eps_mu")]
        base[by_name["eps_mu"] : by_name["eps_mu"] + k] = spec.prior[9]
        start = by_name["eps_sigma_log__"]
        base[start : start + k] = math.log(spec.prior[11])
    if "hard_logit" in by_name:
        k = spec.sizes[spec.names.index("hard_logit")]
        base[by_name["hard_logit"] : by_name["hard_logit"] + k] = spec.prior[14]
    if "tie_logit" in by_name:
        k = spec.sizes[spec.names.index("tie_logit")]
        base[by_name["tie_logit"] : by_name["tie_logit"] + k] = spec.prior[6]
    if "tie_closeness_log__" in by_name:
        k = spec.sizes[spec.names.index("tie_closeness_log__")]
        start = by_name["tie_closeness_log__"]
        base[start : start + k] = math.log(spec.prior[8])
    return base + rng.uniform(-1.0, 1.0, spec.n_dim) if jitter else base


def without_jacobian(spec: DirectSpec) -> DirectSpec:
    """The same model's constrained-space density: the transforms' log-Jacobians left out.

    Its mode is the MAP point :func:`pymc.find_MAP` (and
    :func:`~bayes_pairwise.pymc_models.base.find_map`) finds; ``model.logp(jacobian=False)``.
    """
    import dataclasses

    shape = spec.shape.copy()
    shape[7] = 1
    return dataclasses.replace(spec, shape=shape)


def find_mode(
    spec: Density,
    names: Sequence[str],
    *,
    random_seed: int,
    method: str = "L-BFGS-B",
    maxeval: int = 50000,
    **options: Any,
) -> tuple[dict[str, np.ndarray], Any]:
    """The MAP point on the written-out density, as
    :func:`~bayes_pairwise.pymc_models.base.find_map` finds it on the compiled graph.

    The constrained-space density (:func:`without_jacobian`), maximised from the support
    point with SciPy (same method and limits), then the model's variables there. ``spec``: a
    strength model's density or a hard-truth model's
    (:class:`~bayes_pairwise.pymc_models.order_density.OrderDensity`); each gives its
    ``logp_grad``, ``without_jacobian``, ``initial_point`` and ``constrained``.

    Returns
    -------
    values : dict
        ``names`` at the mode, without leading dims.
    result : scipy.optimize.OptimizeResult
        ``fun`` is the negative log density at the mode.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformError
    >>> sim = bp.simulate_round_robin(20, eps=0.1, random_seed=0)
    >>> spec, _ = UniformError().written_out_density(sim.data)
    >>> values, res = find_mode(spec, ["eps"], random_seed=1)
    >>> bool(res.success), 0.03 < float(values["eps"][0]) < 0.2
    (True, True)
    """
    flat = spec.without_jacobian()
    result = maximise(
        flat.logp_grad,
        spec.initial_point(random_seed, jitter=False),
        method=method,
        maxeval=maxeval,
        **options,
    )
    values = spec.constrained(_unravel(spec, result.x[None, :]))
    return {n: np.asarray(values[n])[0] for n in names}, result


def _unravel(spec: Density, xs: np.ndarray) -> dict[str, np.ndarray]:
    """Rows of unconstrained vectors (m, n_dim) as the value variables, shaped (m, *shape)."""
    offsets = np.cumsum((0, *spec.sizes))
    return {
        n: xs[:, a:b].reshape(xs.shape[0], *shape)
        for n, a, b, shape in zip(spec.names, offsets[:-1], offsets[1:], spec.shapes, strict=True)
    }


def laplace(
    spec: Density, names: Sequence[str], *, random_seed: int, draws: int = 1000
) -> LaplaceResult:
    """:func:`~bayes_pairwise.pymc_models.laplace.laplace_approximation` on the written-out
    log-density: the same mode, Hessian and draws, with nothing compiled.

    Parameters
    ----------
    spec : DirectSpec or OrderDensity
    names : sequence of str
        The model's free variables and deterministics to return draws of.
    random_seed, draws
        As in :func:`~bayes_pairwise.pymc_models.laplace.laplace_approximation` (the optimiser
        starts at the support point, as PyMC's ``model.initial_point`` does).

    Returns
    -------
    LaplaceResult

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformError
    >>> sim = bp.simulate_round_robin(20, eps=0.1, random_seed=0)
    >>> spec, _ = UniformError().written_out_density(sim.data)
    >>> res = laplace(spec, ["eps"], random_seed=1, draws=500)
    >>> res.values["eps"].shape, 0.03 < float(res.values["eps"].mean()) < 0.2
    ((500, 1), True)
    """
    core = gaussian_at_mode(
        spec.logp_grad,
        spec.initial_point(random_seed, jitter=False),
        random_seed=random_seed,
        draws=draws,
    )
    xs = core.draws.T
    values = spec.constrained(_unravel(spec, xs))
    lps = np.array([spec.logp_grad(x)[0] for x in xs])
    return core.result({n: values[n] for n in names}, lps)


def _sig(x: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return expit(x)


def constrained_draws(
    spec: DirectSpec, values: dict[str, np.ndarray], *, chunk: int = 256
) -> dict[str, np.ndarray]:
    """The model's free variables and deterministics from unconstrained draws.

    Parameters
    ----------
    spec : DirectSpec
    values : dict
        The value variables (``spec.names``), each shaped ``(*lead, *spec.shapes[k])`` with the
        same leading dims (chain, draw).
    chunk : int
        Draws per block when computing per-row quantities (the expected tie share).

    Returns
    -------
    dict
        ``sigma_s``, ``z``, ``strength``, ``eps`` or ``eps_simplex``/``eps_plus``/``eps_minus``,
        and the tie variables of the variant, named and shaped as in the PyMC model.
    """
    n_items, n_judges, n_contexts, positional, closeness, hier, diff = (
        int(v) for v in spec.shape[:7]
    )
    lead = np.shape(values["sigma_s_log__"])  # a scalar variable: its shape is the leading dims
    values = {n: np.reshape(values[n], (*lead, -1)) for n in spec.names}
    out: dict[str, np.ndarray] = {"sigma_s": np.exp(values["sigma_s_log__"][..., 0])}
    if n_contexts == 1:
        y = values["z_zerosum__"]
        total = y.sum(-1, keepdims=True)
        rn = math.sqrt(n_items)
        norm = total / (rn + n_items)
        z = np.concatenate([y - norm, -total / rn], axis=-1)
        centred = z
    else:
        z = values["z"]
        ctx = spec.context
        onehot = np.eye(n_contexts)[ctx] / np.maximum(spec.context_size, 1.0)[ctx][:, None]
        centred = z - (z @ onehot)[..., ctx]
    out["z"] = z
    out["strength"] = out["sigma_s"][..., None] * centred
    lead = z.shape[:-1]
    if hier:
        nr = 2 if positional else 1
        mu = values["eps_mu"]  # (*lead, nr)
        tau = np.exp(values["eps_sigma_log__"])
        zr = values["eps_z"].reshape(*lead, n_judges, nr)
        logits = mu[..., None, :] + tau[..., None, :] * zr
        if positional:
            out["eps_mu"], out["eps_sigma"], out["eps_z"] = mu, tau, zr
            for key, lg in (("", logits), ("_pop", mu)):
                full = np.concatenate([lg, np.zeros((*lg.shape[:-1], 1))], axis=-1)
                e = np.exp(full - full.max(-1, keepdims=True))
                p = e / e.sum(-1, keepdims=True)
                out[f"eps{key}_plus"], out[f"eps{key}_minus"] = p[..., 0], p[..., 1]
        else:
            out["eps_mu"], out["eps_sigma"], out["eps_z"] = mu[..., 0], tau[..., 0], zr[..., 0]
            out["eps"] = 0.5 * _sig(logits[..., 0])
            out["eps_pop"] = 0.5 * _sig(mu[..., 0])
    elif positional:
        y = values["eps_simplex_simplex__"].reshape(*lead, n_judges, 2)
        v = np.concatenate([y, -y.sum(-1, keepdims=True)], axis=-1)
        e = np.exp(v - v.max(-1, keepdims=True))
        p = e / e.sum(-1, keepdims=True)
        out["eps_simplex"] = p
        out["eps_plus"] = p[..., 0]
        out["eps_minus"] = p[..., 1]
    else:
        lo, hi = spec.prior[1], spec.prior[2]
        name = "eps_easy" if diff else "eps"
        out[name] = lo + (hi - lo) * _sig(values[f"{name}_interval__"])
    if diff:  # the easy rates, the hard rate and share, and the whole log's rates
        ep, em = (out.pop("eps_plus"), out.pop("eps_minus")) if positional else (None, None)
        if positional:
            out["eps_plus_easy"], out["eps_minus_easy"] = ep, em
            floor = np.maximum(ep, em)
        else:
            ep = em = floor = out["eps_easy"]
        lo_h, hi_h = spec.prior[12], spec.prior[13]
        pi = lo_h + (hi_h - lo_h) * _sig(values["hard_share_interval__"])
        out["hard_share"] = pi
        out["hard_logit"] = values["hard_logit"]
        eh = floor + (1.0 - floor) * _sig(values["hard_logit"])
        out["eps_hard"] = eh
        if positional:
            out["eps_plus"] = (1.0 - pi) * ep + pi * eh
            out["eps_minus"] = (1.0 - pi) * em + pi * eh
        else:
            out["eps"] = (1.0 - pi) * ep + pi * eh
    if not spec.ties:
        return out
    logit = values["tie_logit"]
    if spec.ties == 2:
        logit = logit.reshape(*lead, n_judges, 2)
        a_plus, a_minus = logit[..., 0], logit[..., 1]
    else:
        a_plus = a_minus = logit
    out["tie_logit"] = logit
    tie_positional = spec.ties == 2
    if tie_positional:
        out["tie_rate_plus"] = _sig(a_plus)
        out["tie_rate_minus"] = _sig(a_minus)
    if closeness:
        out["tie_closeness"] = np.exp(values["tie_closeness_log__"])
        if not tie_positional:
            out["tie_rate_equal"] = _sig(a_plus)
    if not (tie_positional or closeness):
        out["tie_rate"] = _sig(a_plus)
    else:
        out["tie_rate"] = _expected_tie_share(spec, out, chunk)
    return out


def _tie_logits(
    spec: DirectSpec, values: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Tie logits (η₊ and η₋ at |d| = 0) and the closeness β per judge, flattened draws."""
    n_judges = int(spec.shape[1])
    logit = values["tie_logit"].reshape(-1, n_judges, 2 if spec.ties == 2 else 1)
    beta = values.get("tie_closeness")
    beta = None if beta is None else beta.reshape(-1, n_judges)
    return logit[..., 0], logit[..., -1], beta


def _row_inputs(
    spec: DirectSpec,
    strength: np.ndarray,
    a_plus: np.ndarray | None,
    a_minus: np.ndarray | None,
    beta: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Per draw (rows of the arguments) and pair row: d = s_i − s_j and the tie logits η±."""
    d = strength[:, spec.i] - strength[:, spec.j]
    if a_plus is None:
        return d, None, None
    shrink = beta[:, spec.judge] * np.abs(d) if beta is not None else 0.0
    return d, a_plus[:, spec.judge] - shrink, a_minus[:, spec.judge] - shrink


def _expected_tie_share(spec: DirectSpec, out: dict[str, np.ndarray], chunk: int) -> np.ndarray:
    """The fitted share of ties per judge (T averaged out, or known), per draw."""
    n_judges = int(spec.shape[1])
    strength = out["strength"]
    lead = strength.shape[:-1]
    flat_s = strength.reshape(-1, strength.shape[-1])
    a_plus, a_minus, beta = _tie_logits(spec, out)
    kp = spec.counts[0] + spec.counts[1] + spec.counts[4]
    km = spec.counts[2] + spec.counts[3] + spec.counts[5]
    total = np.bincount(spec.judge, weights=kp + km, minlength=n_judges)
    known = spec.truth >= 0
    onehot = np.eye(n_judges)[spec.judge]
    res = np.empty((flat_s.shape[0], n_judges))
    for lo in range(0, flat_s.shape[0], chunk):
        part = slice(lo, lo + chunk)
        d, eta_p, eta_m = _row_inputs(
            spec, flat_s[part], a_plus[part], a_minus[part], None if beta is None else beta[part]
        )
        sd = np.where(known, (spec.truth == 1).astype(float), _sig(d))
        tp, tm = _sig(eta_p), _sig(eta_m)
        ties = kp * (sd * tp + (1 - sd) * tm) + km * (sd * tm + (1 - sd) * tp)
        res[part] = ties @ onehot
    return (res / np.maximum(total, 1.0)).reshape(*lead, n_judges)


def pointwise_log_likelihood(
    spec: DirectSpec, values: dict[str, np.ndarray], *, chunk: int = 256
) -> np.ndarray:
    """Log-likelihood of every pair row at every draw, from the model's (constrained) variables.

    What ``pymc.compute_log_likelihood`` gives for the observed ``wins`` (the same kernel),
    without compiling the model's graph; for a posterior from any method (NUTS, MAP, Laplace).

    Parameters
    ----------
    spec : DirectSpec
    values : dict
        ``strength``, ``eps`` (or ``eps_plus`` and ``eps_minus``; for the pair-difficulty
        mixture the easy rates, ``eps_hard`` and ``hard_share``) and, with ties, ``tie_logit``
        (and ``tie_closeness``), with the same leading (chain, draw) dims.
    chunk : int
        Draws per block of row inputs.

    Returns
    -------
    float array (chain, draw, P)
    """
    n_judges = int(spec.shape[1])
    strength = np.asarray(values["strength"])
    lead = strength.shape[:-1]
    flat_s = strength.reshape(-1, strength.shape[-1])
    diff = bool(spec.shape[6])
    if diff:  # the kernel takes the easy rates, the hard rate and the hard share
        plus = values["eps_plus_easy"] if "eps_plus_easy" in values else values["eps_easy"]
        minus = values["eps_minus_easy"] if "eps_minus_easy" in values else values["eps_easy"]
        eh = np.asarray(values["eps_hard"], dtype=float).reshape(-1, n_judges)
        pi = np.asarray(values["hard_share"], dtype=float).reshape(-1, n_judges)
    else:
        plus = values["eps_plus"] if "eps_plus" in values else values["eps"]
        minus = values["eps_minus"] if "eps_minus" in values else values["eps"]
    ep = np.asarray(plus, dtype=float).reshape(-1, n_judges)
    em = np.asarray(minus, dtype=float).reshape(-1, n_judges)
    a_plus = a_minus = beta = None
    if spec.ties:
        a_plus, a_minus, beta = _tie_logits(spec, {k: np.asarray(v) for k, v in values.items()})
    empty = np.zeros(0)
    out = np.empty((flat_s.shape[0], spec.i.shape[0]))
    for lo in range(0, flat_s.shape[0], chunk):
        part = slice(lo, lo + chunk)
        d, eta_p, eta_m = _row_inputs(
            spec,
            flat_s[part],
            None if a_plus is None else a_plus[part],
            None if a_minus is None else a_minus[part],
            None if beta is None else beta[part],
        )
        for k in range(d.shape[0]):
            tp = empty if eta_p is None else eta_p[k]
            tm = empty if eta_m is None or spec.ties < 2 else eta_m[k]
            if diff:
                out[lo + k] = run_difficulty_kernel(
                    spec.ties, d[k], ep[lo + k], em[lo + k], eh[lo + k], pi[lo + k], tp, tm,
                    spec.judge, spec.truth, spec.counts, spec.coef,
                )[0]  # fmt: skip
                continue
            out[lo + k] = run_kernel(
                spec.ties, d[k], ep[lo + k], em[lo + k], tp, tm,
                spec.judge, spec.truth, spec.counts, spec.coef,
            )[0]  # fmt: skip
    return out.reshape(*lead, spec.i.shape[0])
