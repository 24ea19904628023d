"""Likelihoods of the judge-error models, as PyMC distributions with pointwise log-probability.

The observation unit of the error models is one (judge, unordered pair {i, j}) row of
:class:`~bayes_pairwise.matrices.PairCounts`: the vector ``(n1, n2)`` of wins of ``i`` among the
``k_plus`` verdicts with ``i`` shown first and among the ``k_minus`` verdicts with ``j`` shown
first, so the pointwise log-likelihoods are comparable with :func:`arviz.loo` /
:func:`arviz.compare`.

The marginal likelihood (METHODS §7.1–7.2)
    One latent true outcome T per row, P(T = i≻j) = σ(d), d = s_i − s_j, shared by all the row's
    verdicts; given T they are independent flips::

        T = i≻j: n1 ~ Bin(k₊, 1−ε₊), n2 ~ Bin(k₋, 1−ε₋)
        T = j≻i: n1 ~ Bin(k₊, ε₋),   n2 ~ Bin(k₋, ε₊)

    T is summed out: log p = logaddexp(log σ(d) + A, log σ(−d) + B) with A, B the two
    conditional binomial log-probabilities.

Ties as an outcome (METHODS §7.5, ``docs/src/tie_model.md``)
    With ties kept, a row is ``(n1, n2, t1, t2)``: ``t1`` ties among the ``k₊`` verdicts with
    ``i`` first and ``t2`` among the ``k₋`` with ``j`` first; ``n1``, ``n2`` count wins of ``i``
    among the *non-tie* verdicts. Each verdict is first a tie or not, with tie probability τ;
    given a non-tie, the model above applies. τ is given per pair row on the logit scale, for the
    order with the truly better item first (η₊) and second (η₋); with η₊ = η₋ (one tie rate per
    judge, optionally falling with |s_i − s_j|) τ does not depend on T and factors out.

Gold labels (``docs/src/gold_labels.md``)
    Where the truth of a pair row is known (``truth`` code 1: i≻j, 0: j≻i, −1 unknown) T is
    observed, not summed out: log p = log σ(±d) + the matching branch (A for i≻j, B for j≻i).
    The log-probability stays one term per pair row.

The log-probability is evaluated by one numba kernel with its analytic gradient
(:class:`~bayes_pairwise.pymc_models.fused.PairLogp`), the same one the written-out density
(:mod:`~bayes_pairwise.pymc_models.direct`) and the pointwise log-likelihood call;
``tests/test_fused_likelihood.py`` checks it against the textbook form (SciPy binomials and a
log-sum-exp over T). :func:`pair_counts_dist` and :func:`tie_counts_dist` register the observed
node as a :class:`pymc.CustomDist` (a real distribution: PyMC computes its elementwise
log-likelihood, and :func:`pymc.sample_posterior_predictive` draws replicated rows with
:func:`marginal_random` / :func:`tie_marginal_random`, the models' generative code, which
:func:`~bayes_pairwise.pymc_models.ppc.ppc_data` also draws from).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayes_pairwise.pymc_models.fused import difficulty_logp_fused, pair_logp_fused

#: True inside :func:`elementwise_likelihood`: the observed nodes then use the elementwise graph.
_ELEMENTWISE: contextvars.ContextVar[bool] = contextvars.ContextVar("elementwise", default=False)


@contextlib.contextmanager
def elementwise_likelihood() -> Iterator[None]:
    """Models built inside evaluate their pair rows with an elementwise PyTensor graph
    (:func:`elementwise_rows_logp`), not the kernels' Ops.

    The Ops evaluate numba kernels, which PyTensor's JAX backend cannot compile; the JAX
    samplers (``nuts_sampler="numpyro"`` or ``"blackjax"``) build the model inside this
    context. Same density to rounding (``tests/test_jax_sampler.py``).
    """
    token = _ELEMENTWISE.set(True)
    try:
        yield
    finally:
        _ELEMENTWISE.reset(token)


#: Inside :func:`elementwise_likelihood`, a per-judge parameter is read at each row as a sum of
#: masked values (:func:`per_judge`) for up to this many judges; beyond it, as a gather.
JUDGE_MASK_MAX = 16


def _constant_values(x: Any) -> np.ndarray | None:
    """The values of a NumPy array, a PyTensor constant or a shared variable (``pm.Data``);
    ``None`` for anything computed."""
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.basic import Constant

    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, SharedVariable):
        return np.asarray(x.get_value(borrow=True))
    if isinstance(x, Constant):
        return np.asarray(x.data)
    return None


def per_judge(values: Any, judge: Any, *, elementwise: bool | None = None) -> Any:
    """``values[judge]``: a per-judge parameter at each row.

    Outside :func:`elementwise_likelihood` it is that gather. Inside it (the JAX samplers'
    graph), when ``judge`` is data (an array, a constant or ``pm.Data``) whose indices are all
    below :data:`JUDGE_MASK_MAX`, it is ``values[0]`` for one judge and
    ``Σ_j [judge = j] · values[j]`` for more: the same numbers, but the gradient is a reduction
    per judge instead of a scatter-add of every row into its judge's slot. XLA compiled that
    scatter, on an H100 and the QLoRA log (19,945 pair rows, one judge), into two kernels of
    34 ms each: 68 ms per gradient against 0.11 ms for the log-density
    (``benchmarks/bench_jax_gpu.py --profile``, ``docs/src/speed.md``). The masked form is
    built for the judges of the data it is given: a graph built this way must be rebuilt, not
    given other judges through ``pm.set_data``.

    Parameters
    ----------
    values : tensor
        One value per judge, shape ``(n_judges,)``.
    judge : array, constant or shared variable of int
        The judge index of each row.
    elementwise : bool, optional
        Build the elementwise form. Default: whether :func:`elementwise_likelihood` is active —
        the observed nodes' ``logp``, built after the context has closed, says so instead.

    Returns
    -------
    tensor
        The value of each row's judge (a scalar where there is one judge).

    Examples
    --------
    >>> import numpy as np
    >>> with elementwise_likelihood():
    ...     x = per_judge(pt.as_tensor(np.array([0.1, 0.3])), np.array([1, 0, 1]))
    >>> x.eval().round(2).tolist()
    [0.3, 0.1, 0.3]
    """
    elementwise = _ELEMENTWISE.get() if elementwise is None else elementwise
    index = _constant_values(judge) if elementwise else None
    if index is None or index.size == 0 or int(index.max()) >= JUDGE_MASK_MAX:
        return values[judge]
    n_judges = int(index.max()) + 1
    if n_judges == 1:
        return values[0]
    judge = pt.as_tensor(judge)
    return pt.add(*(pt.eq(judge, j) * values[j] for j in range(n_judges)))


def rows_logp_function(*, ties: int = 0, mixture: bool = False) -> Any:
    """The ``logp`` of an observed pair-row node, chosen when the node is built: the kernel's Op
    (:func:`~bayes_pairwise.pymc_models.fused.pair_logp_fused` or, with ``mixture``,
    :func:`~bayes_pairwise.pymc_models.fused.difficulty_logp_fused`), or inside
    :func:`elementwise_likelihood` the elementwise graph. Its arguments: ``value, d, judge``,
    the per-judge rates (ε₊, ε₋[, η_hard, π]), the tie logits η₊, η₋, ``k`` and ``truth``.
    """
    return functools.partial(_rows_logp, ties=ties, mixture=mixture, elementwise=_ELEMENTWISE.get())


def _rows_logp(
    value: Any, d: Any, judge: Any, *args: Any, ties: int, mixture: bool, elementwise: bool
) -> Any:
    n_rates = 4 if mixture else 2
    rates, (eta_plus, eta_minus, k, truth) = args[:n_rates], args[n_rates:]
    eta_plus = eta_plus if ties else None
    eta_minus = eta_minus if ties == 2 else None
    if elementwise:
        return elementwise_rows_logp(value, d, judge, rates, k, truth, eta_plus, eta_minus)
    op = difficulty_logp_fused if mixture else pair_logp_fused
    return op(value, d, *rates, judge, k, truth=truth, eta_plus=eta_plus, eta_minus=eta_minus)


def elementwise_rows_logp(
    value: Any,
    d: Any,
    judge: Any,
    rates: tuple[Any, ...],
    k: Any,
    truth: Any,
    eta_plus: Any = None,
    eta_minus: Any = None,
) -> Any:
    """The pair rows' log-probability as a plain elementwise PyTensor graph (for JAX only).

    The kernels' model written with binomials and log-sum-exps: ``rates`` is (ε₊, ε₋) or, for
    the pair-difficulty mixture, (ε₊, ε₋, η_hard, π) per judge; ``eta_plus`` alone gives one tie
    rate, with ``eta_minus`` one per position; ``truth`` codes 1 / 0 / −1. Slower to
    differentiate than the kernels; :func:`elementwise_likelihood` selects it for the JAX
    samplers, whose backend cannot compile a numba kernel.
    """
    value, k, d = pt.as_tensor(value), pt.as_tensor(k), pt.as_tensor(d)
    index, judge = judge, pt.as_tensor(judge).astype("int64")

    def col(x: Any, c: int) -> Any:
        return x[..., c].astype("float64")

    def lbinom(n: Any, m: Any, log_p: Any, log_q: Any) -> Any:
        coef = pt.gammaln(m + 1.0) - pt.gammaln(n + 1.0) - pt.gammaln(m - n + 1.0)
        return coef + n * log_p + (m - n) * log_q

    n1, n2, kp, km = col(value, 0), col(value, 1), col(k, 0), col(k, 1)
    ties = eta_plus is not None
    t1, t2 = (col(value, 2), col(value, 3)) if ties else (pt.zeros_like(n1), pt.zeros_like(n2))
    m1, m2 = kp - t1, km - t2
    per = []
    for r in rates:
        r = pt.as_tensor(r)
        per.append(
            per_judge(
                r.reshape((r.shape[-1],)) if r.type.ndim else r.reshape((1,)),
                index,
                elementwise=True,
            )
        )
    lp_, l1p, lm, l1m = pt.log(per[0]), pt.log1p(-per[0]), pt.log(per[1]), pt.log1p(-per[1])
    a = lbinom(n1, m1, l1p, lp_) + lbinom(n2, m2, l1m, lm)
    b = lbinom(n1, m1, lm, l1m) + lbinom(n2, m2, lp_, l1p)
    if len(per) == 4:  # the pair-difficulty mixture: hard rows err with η in both orders
        lh, l1h, pi = pt.log(per[2]), pt.log1p(-per[2]), per[3]
        a_hard = lbinom(n1, m1, l1h, lh) + lbinom(n2, m2, l1h, lh)
        b_hard = lbinom(n1, m1, lh, l1h) + lbinom(n2, m2, lh, l1h)
        a = pt.logaddexp(pt.log1p(-pi) + a, pt.log(pi) + a_hard)
        b = pt.logaddexp(pt.log1p(-pi) + b, pt.log(pi) + b_hard)
    if ties:
        eta_m = eta_plus if eta_minus is None else eta_minus
        ltp, l1tp = -pt.softplus(-eta_plus), -pt.softplus(eta_plus)
        ltm, l1tm = -pt.softplus(-eta_m), -pt.softplus(eta_m)
        a = a + lbinom(t1, kp, ltp, l1tp) + lbinom(t2, km, ltm, l1tm)
        b = b + lbinom(t1, kp, ltm, l1tm) + lbinom(t2, km, ltp, l1tp)
    branch_a, branch_b = -pt.softplus(-d) + a, -pt.softplus(d) + b
    summed = pt.logaddexp(branch_a, branch_b)
    truth = pt.as_tensor(truth)
    return pt.switch(pt.eq(truth, 1), branch_a, pt.switch(pt.eq(truth, 0), branch_b, summed))


__all__ = [
    "LIKELIHOODS",
    "bernoulli_logit_logp",
    "bernoulli_logit_random",
    "elementwise_likelihood",
    "elementwise_rows_logp",
    "marginal_random",
    "pair_counts_dist",
    "per_judge",
    "rows_logp_function",
    "tie_counts_dist",
    "tie_marginal_random",
    "weighted_bernoulli_logit_logp",
    "weighted_bernoulli_logit_random",
]

#: Likelihood names the error models accept.
LIKELIHOODS = ("marginal",)


def _np_rates(judge: Any, eps_plus: Any, eps_minus: Any) -> tuple[np.ndarray, np.ndarray]:
    judge = np.asarray(judge, dtype=np.int64)
    ep = np.asarray(eps_plus, dtype=float)
    em = np.asarray(eps_minus, dtype=float)
    # per-judge vectors, possibly with leading broadcast dims of length 1
    ep = ep.reshape(ep.shape[-1]) if ep.ndim else ep.reshape(1)
    em = em.reshape(em.shape[-1]) if em.ndim else em.reshape(1)
    return ep[judge], em[judge]


def _out_size(size: Any, *arrays: np.ndarray) -> tuple[int, ...]:
    if size is None:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(int(s) for s in np.atleast_1d(size))


def marginal_random(
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    k: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
    truth: Any = None,
) -> np.ndarray:
    """Draw ``(n1, n2)`` per pair row from the marginal model (draw T, then the flips).

    ``truth`` (codes 1 / 0 / −1 per row, optional) fixes T where known.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> draws = marginal_random(np.array([50.0, -50.0]), np.array([0, 0]), np.array([0.0]),
    ...                         np.array([0.0]), np.array([[3, 2], [1, 1]]), rng=rng)
    >>> draws.tolist()  # no errors: i always wins when it is truly better, never otherwise
    [[3, 2], [0, 0]]
    """
    rng = rng if rng is not None else np.random.default_rng()
    d = np.asarray(d, dtype=float)
    k = np.asarray(k, dtype=np.int64)
    ep, em = _np_rates(judge, eps_plus, eps_minus)
    kp, km = k[..., 0], k[..., 1]
    shape = _out_size(size, d, ep, em, kp)
    d, ep, em, kp, km = (np.broadcast_to(a, shape) for a in (d, ep, em, kp, km))
    t = _draw_truth(rng, shape, d, truth)
    n1 = rng.binomial(kp, np.where(t, 1.0 - ep, em))
    n2 = rng.binomial(km, np.where(t, 1.0 - em, ep))
    return np.stack([n1, n2], axis=-1)


def _draw_truth(
    rng: np.random.Generator, shape: tuple[int, ...], d: np.ndarray, truth: Any
) -> np.ndarray:
    """T per row (True: i≻j): drawn with P = σ(d), or fixed where the truth code is known."""
    t = rng.random(shape) < 1.0 / (1.0 + np.exp(-d))
    if truth is None:
        return t
    code = np.broadcast_to(np.asarray(truth, dtype=np.int64), shape)
    return np.where(code >= 0, code == 1, t)


def pair_counts_dist(
    name: str,
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    k: Any,
    *,
    observed: Any = None,
    dims: tuple[str, str] = ("pair", "count"),
    truth: Any = None,
) -> Any:
    """Register the observed ``(n1, n2)`` node of an error model inside a ``pm.Model`` context.

    Parameters
    ----------
    name : str
        Variable name (the models use ``"wins"``).
    d : tensor, shape (P,)
        ``s_i − s_j`` per pair row.
    judge : tensor of int, shape (P,)
        Judge index per pair row.
    eps_plus, eps_minus : tensor, shape (J,)
        Error rates per judge (the same tensor twice for the uniform model).
    k : tensor, shape (P, 2)
        ``(k_plus, k_minus)`` per pair row.
    observed : array, shape (P, 2), optional
    dims : tuple of str
    truth : tensor of int, shape (P,), optional
        Gold-label code per pair row (1: i≻j, 0: j≻i, −1 unknown); the latent truth is observed
        where known.

    Returns
    -------
    TensorVariable
        A :class:`pymc.CustomDist` with pointwise ``logp`` (the kernel of
        :class:`~bayes_pairwise.pymc_models.fused.PairLogp`) and a ``random`` function
        (:func:`marginal_random`).
    """
    truth = _truth_or_unknown(truth, judge)
    return pm.CustomDist(
        name,
        d,
        judge,
        eps_plus,
        eps_minus,
        k,
        truth,
        logp=functools.partial(_pair_logp, rows=rows_logp_function()),
        random=_pair_random,
        signature="(),(),(j),(j),(o),()->(o)",
        dtype=_value_dtype(observed),
        observed=observed,
        dims=dims,
    )


def _value_dtype(observed: Any) -> str:
    """The observed node's dtype: int64 counts, or float64 sums of weights (a weighted log)."""
    if observed is not None and np.asarray(observed).dtype.kind == "f":
        return "float64"
    return "int64"


def _truth_or_unknown(truth: Any, judge: Any) -> Any:
    """The gold-label codes, or −1 (unknown) for every row, as a constant where possible."""
    if truth is not None:
        return truth
    n_rows = pt.as_tensor(judge).type.shape[0]
    if n_rows is not None:
        return pt.as_tensor(np.full(n_rows, -1, dtype=np.int64))
    return pt.full_like(pt.as_tensor(judge), -1, dtype="int64")


def _pair_logp(
    value: Any, d: Any, judge: Any, eps_plus: Any, eps_minus: Any, k: Any, truth: Any, rows: Any
) -> Any:
    return rows(value, d, judge, eps_plus, eps_minus, None, None, k, truth)


def _pair_random(
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    k: Any,
    truth: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
) -> np.ndarray:
    return marginal_random(d, judge, eps_plus, eps_minus, k, rng=rng, size=size, truth=truth)


def tie_marginal_random(
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    eta_plus: Any,
    eta_minus: Any,
    k: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
    truth: Any = None,
) -> np.ndarray:
    """Draw ``(n1, n2, t1, t2)`` per pair row: T, then tie or not, then the flips.

    Draws the position-dependent form; pass ``eta_minus = eta_plus`` for one tie rate.
    ``truth`` (codes 1 / 0 / −1 per row) fixes T where known.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> tie_marginal_random(np.array([50.0]), np.array([0]), np.array([0.0]), np.array([0.0]),
    ...                     np.array([-50.0]), np.array([-50.0]), np.array([[3, 2]]),
    ...                     rng=rng).tolist()  # no ties, no errors
    [[3, 2, 0, 0]]
    """
    rng = rng if rng is not None else np.random.default_rng()
    d = np.asarray(d, dtype=float)
    k = np.asarray(k, dtype=np.int64)
    ep, em = _np_rates(judge, eps_plus, eps_minus)
    eta_p = np.asarray(eta_plus, dtype=float)
    eta_m = np.asarray(eta_minus, dtype=float)
    kp, km = k[..., 0], k[..., 1]
    shape = _out_size(size, d, ep, em, eta_p, eta_m, kp)
    d, ep, em, eta_p, eta_m, kp, km = (
        np.broadcast_to(a, shape) for a in (d, ep, em, eta_p, eta_m, kp, km)
    )
    tp, tm = 1.0 / (1.0 + np.exp(-eta_p)), 1.0 / (1.0 + np.exp(-eta_m))
    t = _draw_truth(rng, shape, d, truth)
    t1 = rng.binomial(kp, np.where(t, tp, tm))
    t2 = rng.binomial(km, np.where(t, tm, tp))
    n1 = rng.binomial(kp - t1, np.where(t, 1.0 - ep, em))
    n2 = rng.binomial(km - t2, np.where(t, 1.0 - em, ep))
    return np.stack([n1, n2, t1, t2], axis=-1)


def tie_counts_dist(
    name: str,
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    eta_plus: Any,
    eta_minus: Any,
    k: Any,
    *,
    positional_ties: bool = False,
    observed: Any = None,
    dims: tuple[str, str] = ("pair", "count"),
    truth: Any = None,
) -> Any:
    """Register the observed ``(n1, n2, t1, t2)`` node of an error model with ties modelled.

    Same as :func:`pair_counts_dist`, plus the per-row tie logits ``eta_plus``/``eta_minus``
    (shape (P,)); ``observed`` has shape (P, 4) and the ``count`` dim four labels.
    ``positional_ties``: τ₊ = σ(η₊) for the verdicts whose order shows the truly better item
    first, τ₋ = σ(η₋) for the others (inside each branch of the sum over T); otherwise one rate
    τ = σ(η₊), which factors out.

    Returns
    -------
    TensorVariable
        A :class:`pymc.CustomDist` with pointwise ``logp`` (one term per pair row, so
        :func:`arviz.loo` works) and a ``random`` function that draws ties too
        (:func:`tie_marginal_random`).
    """
    # (k+, k-, k+, k-): gives the signature the core length 4 of the value; the functions only
    # read the first two columns
    k = pt.as_tensor(k)
    k = pt.concatenate([k, k], axis=-1)
    if not positional_ties:  # the draws too: one tie rate in both orders
        eta_minus = eta_plus
    return pm.CustomDist(
        name,
        d,
        judge,
        eps_plus,
        eps_minus,
        eta_plus,
        eta_minus,
        k,
        _truth_or_unknown(truth, judge),
        logp=rows_logp_function(ties=2 if positional_ties else 1),
        random=_tie_random,
        signature="(),(),(j),(j),(),(),(v),()->(v)",
        dtype=_value_dtype(observed),
        observed=observed,
        dims=dims,
    )


def _tie_random(
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    eta_plus: Any,
    eta_minus: Any,
    k: Any,
    truth: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
) -> np.ndarray:
    return tie_marginal_random(
        d, judge, eps_plus, eps_minus, eta_plus, eta_minus, k, rng=rng, size=size, truth=truth
    )


def bernoulli_logit_logp(value: Any, eta: Any) -> Any:
    """Bernoulli log-probability on the logit scale, ``y η − softplus(η)``.

    ``value`` 1 = first-shown wins, 0 = second wins; 0.5 = a tie counted half a win each, for
    which the same formula gives ``½ log σ(η) + ½ log σ(−η)``. One softplus per verdict: about
    2.5× cheaper to differentiate than :class:`pymc.Bernoulli`'s ``switch`` form.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import expit
    >>> lp = bernoulli_logit_logp(np.array([1.0, 0.0, 0.5]), np.array([0.3, 0.3, 0.3])).eval()
    >>> bool(np.allclose(lp, [np.log(expit(0.3)), np.log(expit(-0.3)),
    ...                       0.5 * np.log(expit(0.3) * expit(-0.3))]))
    True
    """
    value = pt.as_tensor(value)
    return value * eta - pt.softplus(eta)


def weighted_bernoulli_logit_logp(value: Any, eta: Any, weight: Any) -> Any:
    """:func:`bernoulli_logit_logp` of a verdict counted ``weight`` times (a weighted log).

    Examples
    --------
    >>> import numpy as np
    >>> one = bernoulli_logit_logp(np.array([1.0]), np.array([0.3])).eval()
    >>> w = weighted_bernoulli_logit_logp(np.array([1.0]), np.array([0.3]), np.array([2.5]))
    >>> bool(np.allclose(w.eval(), 2.5 * one))
    True
    """
    return pt.as_tensor(weight) * bernoulli_logit_logp(value, eta)


def weighted_bernoulli_logit_random(
    eta: Any, weight: Any, rng: np.random.Generator | None = None, size: Any = None
) -> np.ndarray:
    """Replicated verdicts of a weighted log: one verdict per row, as
    :func:`bernoulli_logit_random` (a weight scales the likelihood, not the draws).

    Examples
    --------
    >>> import numpy as np
    >>> weighted_bernoulli_logit_random(np.array([50.0, -50.0]), np.array([2.0, 0.5]),
    ...                                 rng=np.random.default_rng(0)).tolist()
    [1, 0]
    """
    return bernoulli_logit_random(eta, rng=rng, size=size)


def bernoulli_logit_random(
    eta: Any, rng: np.random.Generator | None = None, size: Any = None
) -> np.ndarray:
    """Replicated verdicts (1 = first wins) for :func:`bernoulli_logit_logp`.

    Examples
    --------
    >>> import numpy as np
    >>> bernoulli_logit_random(np.array([50.0, -50.0]), rng=np.random.default_rng(0)).tolist()
    [1, 0]
    """
    rng = rng if rng is not None else np.random.default_rng()
    eta = np.asarray(eta, dtype=float)
    shape = _out_size(size, eta)
    p = 1.0 / (1.0 + np.exp(-np.broadcast_to(eta, shape)))
    return (rng.random(shape) < p).astype(np.int64)
