"""Fused pair-count log-likelihood: one pass over the pair rows, analytic gradient.

The marginal likelihood of the error models (:mod:`bayes_pairwise.pymc_models.likelihoods`)
has, per (judge, unordered pair) row, two branches for the latent truth T (i≻j: ``A``,
j≻i: ``B``) summed out by log-sum-exp. Written as a PyTensor graph it costs a dozen elementwise
nodes per row and as many again for the gradient. :class:`PairLogp` evaluates the log-probability
of every row *and* its partial derivatives in a few compiled loops (numba) that LLVM vectorises,
so NUTS pays a few nanoseconds per row and evaluation:

.. code-block:: text

    A = n1 log(1−ε₊) + (m1−n1) log ε₊ + n2 log(1−ε₋) + (m2−n2) log ε₋   [+ tie terms]
    B = n1 log ε₋ + (m1−n1) log(1−ε₋) + n2 log ε₊ + (m2−n2) log(1−ε₊)   [+ tie terms]
    log p = coef + B + softplus(d + A − B) − softplus(d)      (T summed out)
          = coef + A + log σ(d)   (T = i≻j known)  |  coef + B + log σ(−d)   (T = j≻i known)
    ∂/∂d = w − σ(d),   ∂/∂θ = w ∂A/∂θ + (1 − w) ∂B/∂θ,   w = P(T = i≻j | row) = σ(d + A − B)

with ``m1 = k₊ − t1``, ``m2 = k₋ − t2`` the non-tie verdicts per order and ``coef`` the log
multinomial coefficients (data: computed once by :func:`count_rows`, a constant of a frozen
model). With ties (METHODS §7.5) the tie terms
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
from llvmlite import ir as llvm_ir
from numba.core import types
from numba.extending import intrinsic
from pytensor.gradient import DisconnectedType
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

__all__ = [
    "PAIR_LOGP_ENTRIES",
    "PairLogp",
    "count_rows",
    "kernel_version",
    "pair_logp_fused",
    "pair_logp_kernel",
    "pair_logp_numpy",
    "run_kernel",
]


#: LLVM fast-math flags of the kernel: no 'nnan'/'ninf' (the kernel's inputs may hold inf), no
#: 'reassoc' (it would merge the two halves of ln 2 in the range reduction of e^x; the loops
#: have no reductions, so they vectorise without it).
_FASTMATH = {"nsz", "arcp", "contract", "afn"}

#: numba settings of the kernel and its helpers. ``error_model="numpy"``: a float division
#: does not test its divisor for zero (and raise), a branch that keeps LLVM from vectorising.
_JIT = {"cache": True, "fastmath": _FASTMATH, "error_model": "numpy"}

_LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts (Cody and Waite)
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.4426950408889634
_SQRT2_M1 = 0.41421356237309503


@intrinsic
def _as_float(typingctx: Any, bits: Any) -> Any:
    """The float64 whose bits are the int64 ``bits`` (an LLVM bitcast: free, and vectorised)."""
    sig = types.float64(types.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], llvm_ir.DoubleType())

    return sig, codegen


@numba.njit(inline="always", **_JIT)
def _exp_nonpos(x: float) -> float:
    """``e^x`` for ``x ≤ 0``, to 1 ulp, without a call (so loops using it vectorise).

    Below −700 the result is ``e^−700`` (≈ 1e−304), not the true value: the kernel only adds it
    to 1. Range reduction ``x = k ln 2 + t``, ``|t| ≤ ln 2 / 2``; ``e^t`` by its Taylor series to
    degree 13 (truncation below 1e−17); ``2^k`` from its bits.
    """
    x = max(x, -700.0)
    k = math.floor(x * _INV_LN2 + 0.5)
    t = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * t + 1.0 / 479001600.0
    p = p * t + 1.0 / 39916800.0
    p = p * t + 1.0 / 3628800.0
    p = p * t + 1.0 / 362880.0
    p = p * t + 1.0 / 40320.0
    p = p * t + 1.0 / 5040.0
    p = p * t + 1.0 / 720.0
    p = p * t + 1.0 / 120.0
    p = p * t + 1.0 / 24.0
    p = p * t + 1.0 / 6.0
    p = p * t + 0.5
    p = p * t + 1.0
    p = p * t + 1.0
    return p * _as_float((np.int64(k) + 1023) << 52)


@numba.njit(inline="always", **_JIT)
def _log1p_unit(y: float) -> float:
    """``log(1 + y)`` for ``0 ≤ y ≤ 1``, to 2 ulp, without a call.

    ``log(1 + y) = 2 atanh(f)`` with ``f = y / (2 + y)``, or ``ln 2 + 2 atanh(f)`` with
    ``f = (y − 1) / (y + 3)`` above √2 − 1, so ``|f| ≤ 0.172``; atanh by its odd series to
    degree 23 (truncation below 1e−18). No ``1 + y`` is formed, so tiny ``y`` keep every digit.
    """
    big = y > _SQRT2_M1
    num = y - 1.0 if big else y
    den = y + 3.0 if big else y + 2.0
    f = num / den
    f2 = f * f
    p = 1.0 / 23.0
    p = p * f2 + 1.0 / 21.0
    p = p * f2 + 1.0 / 19.0
    p = p * f2 + 1.0 / 17.0
    p = p * f2 + 1.0 / 15.0
    p = p * f2 + 1.0 / 13.0
    p = p * f2 + 1.0 / 11.0
    p = p * f2 + 1.0 / 9.0
    p = p * f2 + 1.0 / 7.0
    p = p * f2 + 1.0 / 5.0
    p = p * f2 + 1.0 / 3.0
    p = p * f2 + 1.0
    return 2.0 * f * p + (_LN2_HI + _LN2_LO if big else 0.0)


@numba.njit(inline="always", **_JIT)
def _softplus_sigmoid(x: float) -> tuple[float, float]:
    """``(log(1 + e^x), σ(x))``: one exponential, one logarithm, no branch."""
    e = _exp_nonpos(-abs(x))
    inv = 1.0 / (1.0 + e)
    return max(x, 0.0) + _log1p_unit(e), (inv if x >= 0.0 else e * inv)


@numba.njit(inline="always", **_JIT)
def _branches(
    n1: float, f1: float, n2: float, f2: float, l1p: float, lp: float, l1m: float, lm: float
) -> tuple[float, float]:
    """Log-probabilities of the counts given T = i≻j (A) and T = j≻i (B), without ties."""
    a = n1 * l1p + f1 * lp + n2 * l1m + f2 * lm
    b = n1 * lm + f1 * l1m + n2 * lp + f2 * l1p
    return a, b


@numba.njit(inline="always", **_JIT)
def _rate_partials(
    w: float, n1: float, f1: float, n2: float, f2: float, ip: float, i1p: float, im: float,
    i1m: float,
) -> tuple[float, float]:  # fmt: skip
    """``w ∂A/∂θ + (1 − w) ∂B/∂θ`` for θ = ε₊, ε₋ (``ip = 1/ε₊``, ``i1p = 1/(1 − ε₊)``, …)."""
    v = 1.0 - w
    g_ep = w * (f1 * ip - n1 * i1p) + v * (n2 * ip - f2 * i1p)
    g_em = w * (f2 * im - n2 * i1m) + v * (n1 * im - f1 * i1m)
    return g_ep, g_em


@numba.njit(**_JIT)
def pair_logp_kernel(
    d: np.ndarray,
    ep: np.ndarray,
    em: np.ndarray,
    eta_p: np.ndarray,
    eta_m: np.ndarray,
    judge: np.ndarray,
    truth: np.ndarray,
    counts: np.ndarray,
    coef: np.ndarray,
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
    truth : int array (P,)
        1: i≻j known, 0: j≻i known, −1 unknown.
    counts : float array (4, P) or (6, P), C-contiguous
        Rows ``n1, f1, n2, f2[, t1, t2]``: per order, the verdicts for the first-shown item,
        for the second-shown item and (with ties) the ties; see :func:`count_rows`.
    coef : float array (P,)
        The log multinomial coefficients of the counts (constant data).
    ties : int
        0: no ties; 1: one tie rate (η₊ in both orders); 2: one per position (η₊ when the
        truly better item is shown first, η₋ when second).

    Returns
    -------
    logp, d_d, d_ep, d_em, d_eta_p, d_eta_m : float arrays (P,)
        Log-probability per row and its partials with respect to d, ε₊ (of the row's judge),
        ε₋, η₊ and η₋ (the last two empty without ties).

    Notes
    -----
    With Δ = B − A, log p = coef + A − softplus(−d) + softplus(Δ − d) and w = σ(d − Δ) (truth
    unknown); coef + A − softplus(−d), w = 1 (code 1); coef + A + Δ − d − softplus(−d), w = 0
    (code 0). The passes over the rows have no call and no branch, so LLVM vectorises them (4
    or 8 rows per instruction): the branches A and B from the counts, the two softplus terms
    (the exponential and logarithm written out), then the partials of the rates. With one
    judge, the rates are hoisted out of the loops.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import binom
    >>> from scipy.special import expit
    >>> counts, coef = count_rows(np.array([[2, 1]]), np.array([[3, 2]]))
    >>> out = pair_logp_kernel(np.array([0.4]), np.array([0.1]), np.array([0.3]),
    ...                        np.zeros(0), np.zeros(0), np.array([0]), np.array([-1]),
    ...                        counts, coef, 0)
    >>> by_hand = np.log(expit(0.4) * binom.pmf(2, 3, 0.9) * binom.pmf(1, 2, 0.7)
    ...                  + expit(-0.4) * binom.pmf(2, 3, 0.3) * binom.pmf(1, 2, 0.1))
    >>> bool(np.isclose(out[0][0], by_hand))
    True
    """
    n_rows = d.shape[0]
    l1p = np.log1p(-ep)
    lp_ = np.log(ep)
    l1m = np.log1p(-em)
    lm = np.log(em)
    ip = 1.0 / ep
    i1p = 1.0 / (1.0 - ep)
    im = 1.0 / em
    i1m = 1.0 / (1.0 - em)
    one_judge = ep.shape[0] == 1
    n1s = counts[0]
    f1s = counts[1]
    n2s = counts[2]
    f2s = counts[3]
    logp = np.empty(n_rows)
    g_d = np.empty(n_rows)
    g_ep = np.empty(n_rows)
    g_em = np.empty(n_rows)
    g_tp = np.empty(n_rows if ties else 0)  # holds τ₊ = σ(η₊) until the last pass
    g_tm = np.empty(n_rows if ties == 2 else 0)
    delta = np.empty(n_rows)  # Δ = B − A, then w
    # the branches A and B (one judge: its rates hoisted, so the loop vectorises)
    if one_judge:
        for r in range(n_rows):
            a, b = _branches(n1s[r], f1s[r], n2s[r], f2s[r], l1p[0], lp_[0], l1m[0], lm[0])
            logp[r] = coef[r] + a
            delta[r] = b - a
    else:
        for r in range(n_rows):
            jj = judge[r]
            a, b = _branches(n1s[r], f1s[r], n2s[r], f2s[r], l1p[jj], lp_[jj], l1m[jj], lm[jj])
            logp[r] = coef[r] + a
            delta[r] = b - a
    if ties:
        t1s = counts[4]
        t2s = counts[5]
        for r in range(n_rows):
            xp = eta_p[r]
            spp, g_tp[r] = _softplus_sigmoid(xp)
            kp = n1s[r] + f1s[r] + t1s[r]
            km = n2s[r] + f2s[r] + t2s[r]
            if ties == 2:
                xm = eta_m[r]
                spm, g_tm[r] = _softplus_sigmoid(xm)
                a = t1s[r] * xp + t2s[r] * xm - kp * spp - km * spm
                b = t1s[r] * xm + t2s[r] * xp - kp * spm - km * spp
                logp[r] += a
                delta[r] += b - a
            else:
                logp[r] += (t1s[r] + t2s[r]) * xp - (kp + km) * spp
    # the latent truth summed out
    for r in range(n_rows):
        dr = d[r]
        x = delta[r] - dr
        sp_md, s_md = _softplus_sigmoid(-dr)
        sp_x, s_x = _softplus_sigmoid(x)
        code = truth[r]
        unknown = code < 0
        known_i = code == 1
        logp[r] += (sp_x if unknown else (0.0 if known_i else x)) - sp_md
        w = (1.0 - s_x) if unknown else (1.0 if known_i else 0.0)
        g_d[r] = w - (1.0 - s_md)
        delta[r] = w
    # the partials of the rates
    if one_judge:
        for r in range(n_rows):
            g_ep[r], g_em[r] = _rate_partials(
                delta[r], n1s[r], f1s[r], n2s[r], f2s[r], ip[0], i1p[0], im[0], i1m[0]
            )
    else:
        for r in range(n_rows):
            jj = judge[r]
            g_ep[r], g_em[r] = _rate_partials(
                delta[r], n1s[r], f1s[r], n2s[r], f2s[r], ip[jj], i1p[jj], im[jj], i1m[jj]
            )
    if ties:
        for r in range(n_rows):
            w = delta[r]
            v = 1.0 - w
            t1 = t1s[r]
            t2 = t2s[r]
            kp = n1s[r] + f1s[r] + t1
            km = n2s[r] + f2s[r] + t2
            tp = g_tp[r]
            if ties == 2:
                tm = g_tm[r]
                g_tp[r] = w * (t1 - kp * tp) + v * (t2 - km * tp)
                g_tm[r] = w * (t2 - km * tm) + v * (t1 - kp * tm)
            else:
                g_tp[r] = (t1 + t2) - (kp + km) * tp
    return logp, g_d, g_ep, g_em, g_tp, g_tm


def count_rows(value: np.ndarray, k: np.ndarray, ties: bool = False) -> tuple[np.ndarray, ...]:
    """The kernel's count rows and log multinomial coefficients, from ``value`` and ``k``.

    Parameters
    ----------
    value : int array (P, 2) or (P, 4)
        ``(n1, n2[, t1, t2])``.
    k : int array (P, ≥2)
        ``(k₊, k₋, …)``, ties included.
    ties : bool
        ``value`` has the tie columns.

    Returns
    -------
    counts : float array (4, P) or (6, P)
        ``n1, f1 = k₊ − t1 − n1, n2, f2 = k₋ − t2 − n2[, t1, t2]``.
    coef : float array (P,)
        ``log k₊! − log n1! − log f1! − log t1! + log k₋! − log n2! − log f2! − log t2!``.

    Examples
    --------
    >>> counts, coef = count_rows(np.array([[2, 1]]), np.array([[3, 2]]))
    >>> counts[:, 0].tolist(), round(float(np.exp(coef[0])), 6)   # C(3, 2) · C(2, 1)
    ([2.0, 1.0, 1.0, 1.0], 6.0)
    """
    from scipy.special import gammaln

    value = np.asarray(value, dtype=float)
    k = np.asarray(k, dtype=float)
    counts, coef = _count_rows(value, k, ties, np.zeros_like, gammaln, np.stack)
    return np.ascontiguousarray(counts), coef


def _count_rows_symbolic(value: Any, k: Any, ties: bool) -> tuple[Any, Any]:
    """:func:`count_rows` as a graph (constant-folded when the data are frozen).

    The folded constants are a stack and an elementwise result, so contiguous: a strided
    constant would be embedded by its address, and nothing compiled could be cached.
    """
    value = pt.as_tensor(value).astype("float64")
    k = pt.as_tensor(k).astype("float64")
    return _count_rows(value, k, ties, pt.zeros_like, pt.gammaln, pt.stack)


def _count_rows(
    value: Any, k: Any, ties: bool, zeros_like: Any, gammaln: Any, stack: Any
) -> tuple[Any, Any]:
    """The arithmetic of :func:`count_rows`, for NumPy arrays or PyTensor tensors alike."""
    n1, n2 = value[:, 0], value[:, 1]
    t1, t2 = (value[:, 2], value[:, 3]) if ties else (zeros_like(n1), zeros_like(n2))
    f1 = k[:, 0] - t1 - n1
    f2 = k[:, 1] - t2 - n2
    rows = [n1, f1, n2, f2, t1, t2] if ties else [n1, f1, n2, f2]
    lf = [gammaln(x + 1.0) for x in (k[:, 0], n1, f1, t1, k[:, 1], n2, f2, t2)]
    coef = lf[0] - lf[1] - lf[2] - lf[3] + lf[4] - lf[5] - lf[6] - lf[7]
    return stack(rows, axis=0), coef


_Arr = np.ndarray


# One entry per tie form, with ``ties`` a compile-time literal (so its branches are compiled out).
# PyTensor's numba backend (nutpie) and ``PairLogp.perform`` (C backend: MAP, the pointwise
# log-likelihood) call the same entries with the same argument types (the data read-only, as
# PyTensor passes constants), so a process compiles the kernel once, not once per backend.
@numba.njit(**_JIT)
def _pair_logp_ties0(
    d: _Arr, ep: _Arr, em: _Arr, judge: _Arr, truth: _Arr, counts: _Arr, coef: _Arr
) -> tuple[_Arr, ...]:
    out = pair_logp_kernel(d, ep, em, d[:0], d[:0], judge, truth, counts, coef, 0)
    return out[0], out[1], out[2], out[3]


@numba.njit(**_JIT)
def _pair_logp_ties1(
    d: _Arr, ep: _Arr, em: _Arr, tp: _Arr, judge: _Arr, truth: _Arr, counts: _Arr, coef: _Arr
) -> tuple[_Arr, ...]:
    out = pair_logp_kernel(d, ep, em, tp, d[:0], judge, truth, counts, coef, 1)
    return out[0], out[1], out[2], out[3], out[4]


@numba.njit(**_JIT)
def _pair_logp_ties2(
    d: _Arr,
    ep: _Arr,
    em: _Arr,
    tp: _Arr,
    tm: _Arr,
    judge: _Arr,
    truth: _Arr,
    counts: _Arr,
    coef: _Arr,
) -> tuple[_Arr, ...]:
    return pair_logp_kernel(d, ep, em, tp, tm, judge, truth, counts, coef, 2)


#: The kernel's compiled entries by tie form (0, 1, 2): what PyTensor's numba backend, ``perform``
#: and the hand-written log-density of :mod:`bayes_pairwise.pymc_models.direct` call, with the
#: data (``judge, truth, counts, coef``) read-only and the parameters writeable, so that one
#: compiled signature serves them all.
PAIR_LOGP_ENTRIES = (_pair_logp_ties0, _pair_logp_ties1, _pair_logp_ties2)


def _readonly(x: Any, dtype: Any) -> np.ndarray:
    """A C-contiguous, read-only view (the type PyTensor's numba backend gives constants)."""
    out = np.ascontiguousarray(x, dtype=dtype).view()
    out.flags.writeable = False
    return out


def run_kernel(ties: int, *args: Any) -> tuple[np.ndarray, ...]:
    """Call the kernel from Python as the numba graph does: the same entry, the same types.

    ``args``: ``d, ep, em, eta_p, eta_m, judge, truth, counts, coef`` (the unused tie logits
    may be empty). Returns the kernel's six outputs (the tie partials empty without ties).
    """
    d, ep, em, tp, tm, judge, truth, counts, coef = args
    floats = [np.ascontiguousarray(x, dtype=np.float64) for x in (d, ep, em, tp, tm)]
    data = [_readonly(judge, np.int64), _readonly(truth, np.int64)]
    data += [_readonly(counts, np.float64), _readonly(coef, np.float64)]
    outs = PAIR_LOGP_ENTRIES[ties](*floats[: 3 + ties], *data)
    return (*outs, *[np.zeros(0)] * (6 - len(outs)))


class PairLogp(Op):
    """Per-row log-probability of the marginal pair-count model, with analytic partials.

    Inputs: ``d`` (P,), ``eps_plus`` (J,), ``eps_minus`` (J,), then the tie logits (``ties=1``:
    ``eta`` (P,); ``ties=2``: ``eta_plus``, ``eta_minus`` (P,)), then ``judge`` (P,) int,
    ``truth`` (P,) int, ``counts`` (4 or 6, P) and ``coef`` (P,) (see :func:`count_rows`). Outputs:
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
        ints = [x.astype("int64") for x in inputs[nf : nf + 2]]
        data = [x.astype("float64") for x in inputs[nf + 2 : nf + 4]]
        row = pt.vector(dtype="float64", shape=(floats[0].type.shape[0],))
        return Apply(self, [*floats, *ints, *data], [row.type() for _ in range(1 + nf)])

    def _split(self, inputs: list[Any]) -> tuple[Any, ...]:
        empty = np.zeros(0)
        if self.ties == 2:
            d, ep, em, tp, tm, judge, truth, counts, coef = inputs
        elif self.ties == 1:
            d, ep, em, tp, judge, truth, counts, coef = inputs
            tm = empty
        else:
            d, ep, em, judge, truth, counts, coef = inputs
            tp = tm = empty
        return d, ep, em, tp, tm, judge, truth, counts, coef

    def perform(self, node: Apply, inputs: list[np.ndarray], output_storage: list[Any]) -> None:
        outs = run_kernel(self.ties, *self._split(inputs))
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
def kernel_version() -> int:
    """A number that changes with the kernel's source.

    PyTensor caches the compiled graph that calls the kernel on disk, keyed by the op and this
    number (not by the kernel's code): a kernel edited without a new number would be served
    from the old cache.
    """
    import hashlib
    import inspect

    parts = (_exp_nonpos, _log1p_unit, _softplus_sigmoid, _branches, _rate_partials)
    parts += (pair_logp_kernel, _pair_logp_ties0, _pair_logp_ties1, _pair_logp_ties2)
    src = "".join(inspect.getsource(getattr(f, "py_func", f)) for f in parts)
    return int(hashlib.sha256(src.encode()).hexdigest()[:12], 16)


def _register_numba() -> None:
    """Numba implementation of :class:`PairLogp` for PyTensor's numba backend (nutpie)."""
    from pytensor.link.numba.dispatch.basic import register_funcify_default_op_cache_key

    @register_funcify_default_op_cache_key(PairLogp)
    def _funcify_pair_logp(op: PairLogp, node: Any = None, **kwargs: Any) -> Any:
        return PAIR_LOGP_ENTRIES[op.ties], kernel_version()


_register_numba()


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
    d = pt.as_tensor(d)
    if truth is None:
        truth = pt.full_like(d, -1, dtype="int64")
    counts, coef = _count_rows_symbolic(value, k, eta_plus is not None)
    data = (judge, truth, counts, coef)
    if eta_plus is None:
        return PairLogp(0)(d, eps_plus, eps_minus, *data)[0]
    eta_plus = pt.broadcast_to(pt.as_tensor(eta_plus), d.shape)
    if eta_minus is None:
        return PairLogp(1)(d, eps_plus, eps_minus, eta_plus, *data)[0]
    eta_minus = pt.broadcast_to(pt.as_tensor(eta_minus), d.shape)
    return PairLogp(2)(d, eps_plus, eps_minus, eta_plus, eta_minus, *data)[0]


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
    d = np.ascontiguousarray(d, dtype=np.float64)
    truth = np.full(d.shape, -1, np.int64) if truth is None else np.asarray(truth, np.int64)
    ties = 0 if eta_plus is None else (1 if eta_minus is None else 2)
    eta_p = np.zeros(0) if not ties else np.broadcast_to(eta_plus, d.shape).astype(float)
    eta_m = np.zeros(0) if ties < 2 else np.broadcast_to(eta_minus, d.shape).astype(float)
    counts, coef = count_rows(value, k, ties=bool(ties))
    ep = np.atleast_1d(np.asarray(eps_plus, float))
    em = np.atleast_1d(np.asarray(eps_minus, float))
    return run_kernel(ties, d, ep, em, eta_p, eta_m, judge, truth, counts, coef)
