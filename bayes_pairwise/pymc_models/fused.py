"""Fused pair-count log-likelihood: one pass over the pair rows, analytic gradient.

The marginal likelihood of the error models (:mod:`bayes_pairwise.pymc_models.likelihoods`)
has, per (judge, unordered pair) row, two branches for the latent truth T (i≻j: ``A``,
j≻i: ``B``) summed out by log-sum-exp. Written as a PyTensor graph it costs a dozen elementwise
nodes per row and as many again for the gradient. :class:`PairLogp` evaluates the log-probability
of every row *and* its partial derivatives in one compiled loop (numba), so NUTS pays one pass
per log-density evaluation:

.. code-block:: text

    A = n1 log(1−ε₊) + (m1−n1) log ε₊ + n2 log(1−ε₋) + (m2−n2) log ε₋   [+ tie terms]
    B = n1 log ε₋ + (m1−n1) log(1−ε₋) + n2 log ε₊ + (m2−n2) log(1−ε₊)   [+ tie terms]
    log p = coef + B + softplus(d + A − B) − softplus(d)      (T summed out)
          = coef + A + log σ(d)   (T = i≻j known)  |  coef + B + log σ(−d)   (T = j≻i known)
    ∂/∂d = w − σ(d),   ∂/∂θ = w ∂A/∂θ + (1 − w) ∂B/∂θ,   w = P(T = i≻j | row) = σ(d + A − B)

with ``m1 = k₊ − t1``, ``m2 = k₋ − t2`` the non-tie verdicts per order and ``coef`` the binomial
coefficients (looked up in a table of log-factorials). With ties (METHODS §7.5) the tie terms
``t1 log τ₊ + m1 log(1−τ₊) + t2 log τ₋ + m2 log(1−τ₋)`` enter ``A`` (and mirrored ``B``),
τ± = σ(η±) per row; one tie rate (η₋ = η₊) is the special case where they factor out.

The Op's first output is the per-row log-probability (a vector: ``log_likelihood`` and LOO stay
per pair); the other outputs are the partials, used by its gradient. The numba implementation
is registered with PyTensor's numba backend (what nutpie compiles) with a cache key made of the
Op's class and settings only, so the compiled kernel is reused across processes; the Python
``perform`` (C backend, :func:`pymc.sample`) calls the same kernel.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numba
import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

__all__ = ["PairLogp", "pair_logp_fused", "pair_logp_kernel", "pair_logp_numpy"]


@numba.njit(cache=True, inline="always")
def _softplus(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


#: LLVM fast-math flags of the kernel: no 'nnan'/'ninf' (the kernel tests for NaN and inf).
_FASTMATH = {"nsz", "arcp", "contract", "afn", "reassoc"}

#: Largest count for which powers of the per-judge error odds are tabulated (per evaluation).
_POW_TABLE_MAX = 256


@numba.njit(cache=True, fastmath=_FASTMATH)
def pair_logp_kernel(
    d: np.ndarray,
    ep: np.ndarray,
    em: np.ndarray,
    eta_p: np.ndarray,
    eta_m: np.ndarray,
    judge: np.ndarray,
    value: np.ndarray,
    k: np.ndarray,
    truth: np.ndarray,
    log_fact: np.ndarray,
    ties: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log-probability of every pair row and its partial derivatives (numba).

    Parameters
    ----------
    d : float array (P,)
        ``s_i − s_j``.
    ep, em : float array (J,)
        ε₊, ε₋ per judge.
    eta_p, eta_m : float array (P,)
        Tie logits η₊, η₋ per row (read only when ``ties``; η₋ only when ``ties == 2``).
    judge : int array (P,)
    value : int array (P, 2) or (P, 4)
        ``(n1, n2[, t1, t2])``.
    k : int array (P, ≥2)
        ``(k₊, k₋, …)``: all verdicts per order, ties included.
    truth : int array (P,)
        1: i≻j known, 0: j≻i known, −1 unknown.
    log_fact : float array
        ``log n!`` for n = 0 … max k.
    ties : int
        0: no ties (``value`` has two columns); 1: one tie rate (η₊ in both orders); 2: one per
        position (η₊ when the truly better item is shown first, η₋ when second).

    Returns
    -------
    logp, d_d, d_ep, d_em, d_eta_p, d_eta_m : float arrays (P,)
        Log-probability per row and its partials with respect to d, ε₊ (of the row's judge),
        ε₋, η₊ and η₋ (the last two empty without ties).

    Notes
    -----
    With Δ = B − A and q = e^{−|Δ|}, log p = coef + max(A, B) + log(q + (1 − q) σ(±d)): per row
    one exponential and one logarithm. Δ is an integer combination of the per-judge log-odds
    log(ε₋ / (1 − ε₊)) and log((1 − ε₋) / ε₊), so q comes from a table of their powers (the
    positional tie terms add a per-row part, computed directly).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import binom
    >>> from scipy.special import expit, gammaln
    >>> out = pair_logp_kernel(np.array([0.4]), np.array([0.1]), np.array([0.3]),
    ...                        np.zeros(0), np.zeros(0), np.array([0]), np.array([[2, 1]]),
    ...                        np.array([[3, 2]]), np.array([-1]), gammaln(np.arange(4.0) + 1),
    ...                        0)
    >>> by_hand = np.log(expit(0.4) * binom.pmf(2, 3, 0.9) * binom.pmf(1, 2, 0.7)
    ...                  + expit(-0.4) * binom.pmf(2, 3, 0.3) * binom.pmf(1, 2, 0.1))
    >>> bool(np.isclose(out[0][0], by_hand))
    True
    """
    n_rows = d.shape[0]
    n_j = ep.shape[0]
    l1p = np.log1p(-ep)
    lp_ = np.log(ep)
    l1m = np.log1p(-em)
    lm = np.log(em)
    ip = 1.0 / ep
    i1p = 1.0 / (1.0 - ep)
    im = 1.0 / em
    i1m = 1.0 / (1.0 - em)
    # powers e^{u L1}, e^{u L2}, u = -K..K, of the two log-odds that make up B - A
    top = log_fact.shape[0] - 1
    use_table = top <= _POW_TABLE_MAX
    width = 2 * top + 1 if use_table else 1
    pw1 = np.empty((n_j, width))
    pw2 = np.empty((n_j, width))
    if use_table:
        for jj in range(n_j):
            el1 = lm[jj] - l1p[jj]
            el2 = l1m[jj] - lp_[jj]
            for u in range(-top, top + 1):
                pw1[jj, u + top] = math.exp(u * el1)
                pw2[jj, u + top] = math.exp(u * el2)
    logp = np.empty(n_rows)
    g_d = np.empty(n_rows)
    g_ep = np.empty(n_rows)
    g_em = np.empty(n_rows)
    g_tp = np.empty(n_rows if ties else 0)
    g_tm = np.empty(n_rows if ties == 2 else 0)
    last_p = np.nan
    last_m = np.nan
    l1tp = ltp = tp = l1tm = ltm = tm = 0.0
    for r in range(n_rows):
        jj = judge[r] if n_j > 1 else 0
        n1 = value[r, 0]
        n2 = value[r, 1]
        kp = k[r, 0]
        km = k[r, 1]
        t1 = value[r, 2] if ties else 0
        t2 = value[r, 3] if ties else 0
        m1 = kp - t1
        m2 = km - t2
        f1 = m1 - n1
        f2 = m2 - n2
        a = n1 * l1p[jj] + f1 * lp_[jj] + n2 * l1m[jj] + f2 * lm[jj]
        b = n1 * lm[jj] + f1 * l1m[jj] + n2 * lp_[jj] + f2 * l1p[jj]
        coef = (
            log_fact[m1] - log_fact[n1] - log_fact[f1] + log_fact[m2] - log_fact[n2] - log_fact[f2]
        )
        u1 = n1 - f2
        u2 = f1 - n2
        if ties:
            coef += log_fact[kp] - log_fact[t1] - log_fact[m1]
            coef += log_fact[km] - log_fact[t2] - log_fact[m2]
            xp = eta_p[r]
            if xp != last_p:
                last_p = xp
                l1tp = -_softplus(xp)
                ltp = xp + l1tp
                tp = math.exp(ltp)
            if ties == 2:
                xm = eta_m[r]
                if xm != last_m:
                    last_m = xm
                    l1tm = -_softplus(xm)
                    ltm = xm + l1tm
                    tm = math.exp(ltm)
                a += t1 * ltp + m1 * l1tp + t2 * ltm + m2 * l1tm
                b += t1 * ltm + m1 * l1tm + t2 * ltp + m2 * l1tp
            else:
                common = (t1 + t2) * ltp + (m1 + m2) * l1tp
                a += common
                b += common
        delta = b - a
        code = truth[r]
        dr = d[r]
        if code == 1:
            lsd = -_softplus(-dr)
            logp[r] = coef + a + lsd
            w = 1.0
            sd = math.exp(lsd)
        elif code == 0:
            lsmd = -_softplus(dr)
            logp[r] = coef + b + lsmd
            w = 0.0
            sd = -math.expm1(lsmd)
        else:
            # branch-free (the sign of delta varies from row to row): the branch with the
            # larger conditional probability carries sigma(+-d)
            pos = delta > 0.0
            sgn = 1 if pos else -1
            q = 2.0
            if use_table and ties != 2:
                q = pw1[jj, top - sgn * u1] * pw2[jj, top - sgn * u2]
            if not q <= 1.0:
                q = math.exp(-abs(delta))
            e = math.exp(sgn * dr)
            s = 1.0 / (1.0 + e)
            sd = 1.0 - s if pos else s
            den = q + (1.0 - q) * s
            logp[r] = coef + (b if pos else a) + math.log(den)
            w = (q * sd if pos else sd) / den
        v = 1.0 - w
        g_d[r] = w - sd
        g_ep[r] = w * (f1 * ip[jj] - n1 * i1p[jj]) + v * (n2 * ip[jj] - f2 * i1p[jj])
        g_em[r] = w * (f2 * im[jj] - n2 * i1m[jj]) + v * (n1 * im[jj] - f1 * i1m[jj])
        if ties == 2:
            g_tp[r] = w * (t1 - kp * tp) + v * (t2 - km * tp)
            g_tm[r] = w * (t2 - km * tm) + v * (t1 - kp * tm)
        elif ties:
            g_tp[r] = (t1 + t2) - (kp + km) * tp
    return logp, g_d, g_ep, g_em, g_tp, g_tm


class PairLogp(Op):
    """Per-row log-probability of the marginal pair-count model, with analytic partials.

    Inputs: ``d`` (P,), ``eps_plus`` (J,), ``eps_minus`` (J,), then the tie logits (``ties=1``:
    ``eta`` (P,); ``ties=2``: ``eta_plus``, ``eta_minus`` (P,)), then ``judge`` (P,) int,
    ``value`` (P, 2 or 4) int, ``k`` (P, ≥2) int, ``truth`` (P,) int and ``log_fact``. Outputs:
    the log-probability (P,) and its partials per row with respect to the float inputs. Use
    :func:`pair_logp_fused` rather than the Op itself.
    """

    __props__ = ("ties",)

    def __init__(self, ties: int = 0) -> None:
        if ties not in (0, 1, 2):
            raise ValueError(f"ties must be 0, 1 or 2, got {ties!r}")
        self.ties = int(ties)
        super().__init__()

    @property
    def n_float(self) -> int:
        """Number of differentiable (float) inputs."""
        return 3 + self.ties

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [pt.as_tensor(x) for x in inputs]
        nf = self.n_float
        floats = [x.astype("float64") for x in inputs[:nf]]
        ints = [x.astype("int64") for x in inputs[nf : nf + 4]]
        log_fact = inputs[nf + 4].astype("float64")
        row = pt.vector(dtype="float64", shape=(floats[0].type.shape[0],))
        return Apply(self, [*floats, *ints, log_fact], [row.type() for _ in range(1 + nf)])

    def _split(self, inputs: list[Any]) -> tuple[Any, ...]:
        empty = np.zeros(0)
        if self.ties == 2:
            d, ep, em, tp, tm, judge, value, k, truth, lf = inputs
        elif self.ties == 1:
            d, ep, em, tp, judge, value, k, truth, lf = inputs
            tm = empty
        else:
            d, ep, em, judge, value, k, truth, lf = inputs
            tp = tm = empty
        return d, ep, em, tp, tm, judge, value, k, truth, lf

    def perform(self, node: Apply, inputs: list[np.ndarray], output_storage: list[Any]) -> None:
        d, ep, em, tp, tm, judge, value, k, truth, lf = self._split(inputs)
        outs = pair_logp_kernel(
            np.ascontiguousarray(d, dtype=np.float64),
            np.ascontiguousarray(ep, dtype=np.float64),
            np.ascontiguousarray(em, dtype=np.float64),
            np.ascontiguousarray(tp, dtype=np.float64),
            np.ascontiguousarray(tm, dtype=np.float64),
            np.ascontiguousarray(judge, dtype=np.int64),
            np.ascontiguousarray(value, dtype=np.int64),
            np.ascontiguousarray(k, dtype=np.int64),
            np.ascontiguousarray(truth, dtype=np.int64),
            np.ascontiguousarray(lf, dtype=np.float64),
            self.ties,
        )
        for c in range(len(node.outputs)):
            output_storage[c][0] = outs[c]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        return [shapes[0]] * len(node.outputs)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        nf = self.n_float
        return [[c < nf] * len(node.outputs) for c in range(len(node.inputs))]

    def L_op(self, inputs: list[Any], outputs: list[Any], output_grads: list[Any]) -> list[Any]:
        g = output_grads[0]
        if isinstance(g.type, DisconnectedType):  # pragma: no cover - only partials used
            g = pt.zeros_like(outputs[0])
        nf = self.n_float
        ep, em, judge = inputs[1], inputs[2], inputs[nf]
        grads = [g * outputs[1]]
        for rate, part in ((ep, outputs[2]), (em, outputs[3])):
            contrib = g * part
            if rate.type.shape[0] == 1:
                grads.append(contrib.sum(keepdims=True))
            else:
                grads.append(pt.zeros_like(rate)[judge].inc(contrib))
        grads += [g * outputs[4 + c] for c in range(self.ties)]
        grads += [DisconnectedType()() for _ in inputs[nf:]]
        return grads


@functools.cache
def _kernel_version() -> int:
    """A number that changes with the kernel's source.

    PyTensor caches the compiled graph that calls the kernel on disk, keyed by the op and this
    number (not by the kernel's code): a kernel edited without a new number would be served
    from the old cache.
    """
    import hashlib
    import inspect

    src = "".join(
        inspect.getsource(getattr(f, "py_func", f)) for f in (_softplus, pair_logp_kernel)
    )
    return int(hashlib.sha256(src.encode()).hexdigest()[:12], 16)


def _register_numba() -> None:
    """Numba implementation of :class:`PairLogp` for PyTensor's numba backend (nutpie)."""
    from pytensor.link.numba.dispatch.basic import (
        numba_njit,
        register_funcify_default_op_cache_key,
    )

    @register_funcify_default_op_cache_key(PairLogp)
    def _funcify_pair_logp(op: PairLogp, node: Any = None, **kwargs: Any) -> Any:
        kernel = pair_logp_kernel
        version = _kernel_version()
        if op.ties == 2:

            @numba_njit
            def pair_logp_ties2(d, ep, em, tp, tm, judge, value, k, truth, lf):
                return kernel(d, ep, em, tp, tm, judge, value, k, truth, lf, 2)

            return pair_logp_ties2, version
        if op.ties == 1:

            @numba_njit
            def pair_logp_ties1(d, ep, em, tp, judge, value, k, truth, lf):
                out = kernel(d, ep, em, tp, d[:0], judge, value, k, truth, lf, 1)
                return out[0], out[1], out[2], out[3], out[4]

            return pair_logp_ties1, version

        @numba_njit
        def pair_logp(d, ep, em, judge, value, k, truth, lf):
            out = kernel(d, ep, em, d[:0], d[:0], judge, value, k, truth, lf, 0)
            return out[0], out[1], out[2], out[3]

        return pair_logp, version


_register_numba()


def _log_factorials(k: Any) -> Any:
    """``log n!`` for n = 0 … max(k) (a symbolic table)."""
    top = pt.max(pt.as_tensor(k)[..., :2])
    return pt.gammaln(pt.arange(top + 1, dtype="float64") + 1.0)


def pair_logp_fused(
    value: Any,
    d: Any,
    eps_plus: Any,
    eps_minus: Any,
    judge: Any,
    k: Any,
    truth: Any = None,
    eta_plus: Any = None,
    eta_minus: Any = None,
) -> Any:
    """Symbolic per-row log-probability of the marginal model through :class:`PairLogp`.

    Parameters
    ----------
    value : tensor of int, shape (P, 2) or (P, 4)
        ``(n1, n2)``, or ``(n1, n2, t1, t2)`` when ``eta_plus`` is given (ties modelled).
    d : tensor, shape (P,)
    eps_plus, eps_minus : tensor, shape (J,)
    judge : tensor of int, shape (P,)
    k : tensor of int, shape (P, ≥2)
        ``(k₊, k₋, …)``, ties included.
    truth : tensor of int, shape (P,), optional
        Gold-label codes (1, 0, −1); all unknown when omitted.
    eta_plus, eta_minus : tensor, shape (P,), optional
        Tie logits: ``eta_plus`` alone for one tie rate, both for one per position.

    Returns
    -------
    tensor, shape (P,)

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_pairwise.pymc_models.likelihoods import marginal_logp
    >>> val = np.array([[2, 1], [0, 3]]); k = np.array([[3, 2], [1, 4]])
    >>> args = (np.array([0.4, -1.0]), np.array([0.1]), np.array([0.3]))
    >>> fused = pair_logp_fused(val, *args, np.array([0, 0]), k).eval()
    >>> graph = marginal_logp(val, args[0], np.array([0, 0]), *args[1:], k).eval()
    >>> bool(np.allclose(fused, graph, rtol=0, atol=1e-12))
    True
    """
    value = pt.as_tensor(value)
    d = pt.as_tensor(d)
    k = pt.as_tensor(k)
    if truth is None:
        truth = pt.full_like(d, -1, dtype="int64")
    lf = _log_factorials(k)
    if eta_plus is None:
        return PairLogp(0)(d, eps_plus, eps_minus, judge, value, k, truth, lf)[0]
    eta_plus = pt.broadcast_to(pt.as_tensor(eta_plus), d.shape)
    if eta_minus is None:
        return PairLogp(1)(d, eps_plus, eps_minus, eta_plus, judge, value, k, truth, lf)[0]
    eta_minus = pt.broadcast_to(pt.as_tensor(eta_minus), d.shape)
    op = PairLogp(2)
    return op(d, eps_plus, eps_minus, eta_plus, eta_minus, judge, value, k, truth, lf)[0]


def pair_logp_numpy(
    value: np.ndarray,
    d: np.ndarray,
    eps_plus: np.ndarray,
    eps_minus: np.ndarray,
    judge: np.ndarray,
    k: np.ndarray,
    truth: np.ndarray | None = None,
    eta_plus: np.ndarray | None = None,
    eta_minus: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """NumPy entry to :func:`pair_logp_kernel`: logp per row and its partials.

    Examples
    --------
    >>> import numpy as np
    >>> # each item won when shown first: with eps+ = eps- no pull on d at d = 0
    >>> lp, g_d, *_ = pair_logp_numpy(np.array([[1, 0]]), np.array([0.0]), np.array([0.2]),
    ...                                np.array([0.2]), np.array([0]), np.array([[1, 1]]))
    >>> abs(round(float(g_d[0]), 12))
    0.0
    """
    from scipy.special import gammaln

    value = np.ascontiguousarray(value, dtype=np.int64)
    k = np.ascontiguousarray(k, dtype=np.int64)
    d = np.ascontiguousarray(d, dtype=np.float64)
    truth = np.full(d.shape, -1, np.int64) if truth is None else np.asarray(truth, np.int64)
    ties = 0 if eta_plus is None else (1 if eta_minus is None else 2)
    eta_p = np.zeros(0) if not ties else np.broadcast_to(eta_plus, d.shape).astype(float)
    eta_m = np.zeros(0) if ties < 2 else np.broadcast_to(eta_minus, d.shape).astype(float)
    lf = gammaln(np.arange(int(k[:, :2].max(initial=0)) + 1, dtype=float) + 1.0)
    return pair_logp_kernel(
        d,
        np.atleast_1d(np.asarray(eps_plus, float)),
        np.atleast_1d(np.asarray(eps_minus, float)),
        np.ascontiguousarray(eta_p),
        np.ascontiguousarray(eta_m),
        np.ascontiguousarray(judge, dtype=np.int64),
        value,
        k,
        np.ascontiguousarray(truth),
        lf,
        ties,
    )
