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

from bayes_pairwise.pymc_models.jit_cache import folder_of, keep_in_step, sources_digest

keep_in_step(__file__)  # before the first cached function: see jit_cache

__all__ = [
    "DIFFICULTY_ENTRIES",
    "PAIR_LOGP_ENTRIES",
    "DifficultyLogp",
    "PairLogp",
    "count_rows",
    "difficulty_kernel",
    "difficulty_logp_fused",
    "kernel_version",
    "pair_logp_fused",
    "pair_logp_kernel",
    "pair_logp_numpy",
    "read_only",
    "run_difficulty_kernel",
    "run_kernel",
]


#: LLVM fast-math flags of the kernel: no 'nnan'/'ninf' (the kernel's inputs may hold inf), no
#: 'reassoc' (it would merge the two halves of ln 2 in the range reduction of e^x; the loops
#: have no reductions, so they vectorise without it), no 'contract': with it LLVM may fuse a
#: multiply and an add, and the kernel compiled in a process and the kernel loaded from
#: numba's cache rounded the ε₋ partial of about a quarter of the rows an ulp apart, so the
#: first NUTS fit on a machine drew other draws than every later fit with the same seed
#: (``tests/test_fused_likelihood.py``). The multiply-adds that matter for speed (the
#: polynomials of e^x and log1p) are fused explicitly instead (:func:`_fma`).
_FASTMATH = {"nsz", "arcp", "afn"}

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


@intrinsic
def _fma(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
    """``a · b + c`` rounded once (LLVM's ``llvm.fma``): one instruction, vectorised, on a
    processor with fused multiply-add (x86-64 since 2013, every 64-bit ARM). The polynomials of
    :func:`_exp_nonpos` and :func:`_log1p_unit` are written with it: the speed that the
    'contract' flag gave (49 µs against 62 without it, 4,950 rows), with one rounding that the
    code numba compiles and the code it loads from its cache share (see :data:`_FASTMATH`)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        d = llvm_ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], llvm_ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)

    return sig, codegen


@numba.njit(inline="always", **_JIT)
def _exp_nonpos(x: float) -> float:
    """``e^x`` for ``x ≤ 0``, to 1 ulp, without a call (so loops using it vectorise).

    Below −300 the result is ``e^−300`` (≈ 5e−131), not the true value: the kernel only adds it
    to 1 (or multiplies it by a number of order 1), so the absolute error is below 1e−130. The
    clamp keeps every intermediate of :func:`_log1p_unit` normal: from −700 (the former clamp),
    the square of its argument underflowed to subnormals, which the processor handles in
    microcode (a row with |d| > ≈ 350 took twice as long). Range reduction
    ``x = k ln 2 + t``, ``|t| ≤ ln 2 / 2``; ``e^t`` by its Taylor series to degree 13
    (truncation below 1e−17); ``2^k`` from its bits.
    """
    x = max(x, -300.0)
    k = math.floor(x * _INV_LN2 + 0.5)
    t = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 6227020800.0
    p = _fma(p, t, 1.0 / 479001600.0)
    p = _fma(p, t, 1.0 / 39916800.0)
    p = _fma(p, t, 1.0 / 3628800.0)
    p = _fma(p, t, 1.0 / 362880.0)
    p = _fma(p, t, 1.0 / 40320.0)
    p = _fma(p, t, 1.0 / 5040.0)
    p = _fma(p, t, 1.0 / 720.0)
    p = _fma(p, t, 1.0 / 120.0)
    p = _fma(p, t, 1.0 / 24.0)
    p = _fma(p, t, 1.0 / 6.0)
    p = _fma(p, t, 0.5)
    p = _fma(p, t, 1.0)
    p = _fma(p, t, 1.0)
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
    p = _fma(p, f2, 1.0 / 21.0)
    p = _fma(p, f2, 1.0 / 19.0)
    p = _fma(p, f2, 1.0 / 17.0)
    p = _fma(p, f2, 1.0 / 15.0)
    p = _fma(p, f2, 1.0 / 13.0)
    p = _fma(p, f2, 1.0 / 11.0)
    p = _fma(p, f2, 1.0 / 9.0)
    p = _fma(p, f2, 1.0 / 7.0)
    p = _fma(p, f2, 1.0 / 5.0)
    p = _fma(p, f2, 1.0 / 3.0)
    p = _fma(p, f2, 1.0)
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

#: numba settings of the pair-difficulty kernel: libm's exp and log, no fast-math (its loop has
#: a branch per row and does not vectorise anyway).
_JIT_EXACT = {"cache": True, "error_model": "numpy"}


@numba.njit(inline="always", **_JIT_EXACT)
def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@numba.njit(inline="always", **_JIT_EXACT)
def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(inline="always", **_JIT_EXACT)
def _logaddexp(a: float, b: float) -> tuple:
    """log(e^a + e^b) and the weight of b, e^b / (e^a + e^b)."""
    if a >= b:
        e = math.exp(b - a)
        return a + math.log1p(e), e / (1.0 + e)
    e = math.exp(a - b)
    return b + math.log1p(e), 1.0 / (1.0 + e)


@numba.njit(**_JIT_EXACT)
def difficulty_kernel(
    d: np.ndarray,
    ep: np.ndarray,
    em: np.ndarray,
    eh: np.ndarray,
    pi: np.ndarray,
    eta_p: np.ndarray,
    eta_m: np.ndarray,
    judge: np.ndarray,
    truth: np.ndarray,
    counts: np.ndarray,
    coef: np.ndarray,
    ties: int,
) -> tuple:
    """Log-probability of every pair row of the pair-difficulty mixture and its partials (numba).

    Given T the counts are easy (ε₊, ε₋ as in :func:`pair_logp_kernel`) with probability
    1 − π and hard (η in both orders) with probability π; the ties do not depend on the
    difficulty; T is summed out (or known). Same count rows and coefficients as
    :func:`pair_logp_kernel` (:func:`count_rows`); ``eh`` (η) and ``pi`` (π) per judge.

    Returns
    -------
    logp, d_d, d_ep, d_em, d_eh, d_pi, d_eta_p, d_eta_m : float arrays (P,)
        The tie partials are empty without ties (``d_eta_m`` unless ``ties == 2``).

    Examples
    --------
    With no hard pairs (π → 0) it is the positional model's row:

    >>> from scipy.stats import binom
    >>> from scipy.special import expit
    >>> counts, coef = count_rows(np.array([[2, 1]]), np.array([[3, 2]]))
    >>> one = lambda v: np.array([v])
    >>> out = difficulty_kernel(one(0.4), one(0.1), one(0.3), one(0.6), one(1e-12), np.zeros(0),
    ...                         np.zeros(0), one(0), one(-1), counts, coef, 0)
    >>> by_hand = np.log(expit(0.4) * binom.pmf(2, 3, 0.9) * binom.pmf(1, 2, 0.7)
    ...                  + expit(-0.4) * binom.pmf(2, 3, 0.3) * binom.pmf(1, 2, 0.1))
    >>> bool(np.isclose(out[0][0], by_hand))
    True
    """
    n_rows = d.shape[0]
    logp = np.empty(n_rows)
    g_d = np.empty(n_rows)
    g_ep = np.empty(n_rows)
    g_em = np.empty(n_rows)
    g_eh = np.empty(n_rows)
    g_pi = np.empty(n_rows)
    g_tp = np.empty(n_rows if ties else 0)
    g_tm = np.empty(n_rows if ties == 2 else 0)
    for r in range(n_rows):
        q = judge[r]
        n1 = counts[0, r]
        f1 = counts[1, r]
        n2 = counts[2, r]
        f2 = counts[3, r]
        p_ = ep[q]
        m_ = em[q]
        h_ = eh[q]
        l1p, lp_ = math.log1p(-p_), math.log(p_)
        l1m, lm = math.log1p(-m_), math.log(m_)
        l1h, lh = math.log1p(-h_), math.log(h_)
        l1pi, lpi = math.log1p(-pi[q]), math.log(pi[q])
        right = n1 + n2
        wrong = f1 + f2
        a_e = n1 * l1p + f1 * lp_ + n2 * l1m + f2 * lm
        b_e = n1 * lm + f1 * l1m + n2 * lp_ + f2 * l1p
        a_mix, ra = _logaddexp(l1pi + a_e, lpi + right * l1h + wrong * lh)
        b_mix, rb = _logaddexp(l1pi + b_e, lpi + right * lh + wrong * l1h)
        a_t = 0.0
        b_t = 0.0
        tp = 0.0
        tm = 0.0
        t1 = counts[4, r] if ties else 0.0
        t2 = counts[5, r] if ties else 0.0
        kp = n1 + f1 + t1
        km = n2 + f2 + t2
        if ties:
            xp = eta_p[r]
            spp = _softplus(xp)
            tp = _sigmoid(xp)
            if ties == 2:
                xm = eta_m[r]
                spm = _softplus(xm)
                tm = _sigmoid(xm)
                a_t = t1 * xp + t2 * xm - kp * spp - km * spm
                b_t = t1 * xm + t2 * xp - kp * spm - km * spp
            else:
                a_t = (t1 + t2) * xp - (kp + km) * spp
                b_t = a_t
        big_a = a_mix + a_t
        big_b = b_mix + b_t
        dr = d[r]
        code = truth[r]
        ls = -_softplus(-dr)  # log sigma(d)
        lsn = -_softplus(dr)
        if code == 1:
            logp[r] = coef[r] + ls + big_a
            w = 1.0
        elif code == 0:
            logp[r] = coef[r] + lsn + big_b
            w = 0.0
        else:
            tot, wb = _logaddexp(ls + big_a, lsn + big_b)
            logp[r] = coef[r] + tot
            w = 1.0 - wb
        v = 1.0 - w
        g_d[r] = w - _sigmoid(dr)
        wa = w * (1.0 - ra)
        vb = v * (1.0 - rb)
        g_ep[r] = wa * (f1 / p_ - n1 / (1.0 - p_)) + vb * (n2 / p_ - f2 / (1.0 - p_))
        g_em[r] = wa * (f2 / m_ - n2 / (1.0 - m_)) + vb * (n1 / m_ - f1 / (1.0 - m_))
        g_eh[r] = w * ra * (wrong / h_ - right / (1.0 - h_)) + v * rb * (
            right / h_ - wrong / (1.0 - h_)
        )
        g_pi[r] = w * (ra / pi[q] - (1.0 - ra) / (1.0 - pi[q])) + v * (
            rb / pi[q] - (1.0 - rb) / (1.0 - pi[q])
        )
        if ties:
            if ties == 2:
                g_tp[r] = w * (t1 - kp * tp) + v * (t2 - km * tp)
                g_tm[r] = w * (t2 - km * tm) + v * (t1 - kp * tm)
            else:
                g_tp[r] = (t1 + t2) - (kp + km) * tp
    return logp, g_d, g_ep, g_em, g_eh, g_pi, g_tp, g_tm


# The mixture's entries by tie form, as for the pair kernel: (d, ep, em, eh, pi[, eta_p[,
# eta_m]], judge, truth, counts, coef) -> (logp, d_d, d_ep, d_em, d_eh, d_pi[, d_eta_p[, …]]).
@numba.njit(**_JIT_EXACT)
def _difficulty_ties0(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, judge: _Arr, truth: _Arr, counts: _Arr,
    coef: _Arr,
) -> tuple[_Arr, ...]:  # fmt: skip
    out = difficulty_kernel(d, ep, em, eh, pi, d[:0], d[:0], judge, truth, counts, coef, 0)
    return out[0], out[1], out[2], out[3], out[4], out[5]


@numba.njit(**_JIT_EXACT)
def _difficulty_ties1(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, tp: _Arr, judge: _Arr, truth: _Arr,
    counts: _Arr, coef: _Arr,
) -> tuple[_Arr, ...]:  # fmt: skip
    out = difficulty_kernel(d, ep, em, eh, pi, tp, d[:0], judge, truth, counts, coef, 1)
    return out[0], out[1], out[2], out[3], out[4], out[5], out[6]


@numba.njit(**_JIT_EXACT)
def _difficulty_ties2(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, tp: _Arr, tm: _Arr, judge: _Arr,
    truth: _Arr, counts: _Arr, coef: _Arr,
) -> tuple[_Arr, ...]:  # fmt: skip
    return difficulty_kernel(d, ep, em, eh, pi, tp, tm, judge, truth, counts, coef, 2)


#: The pair-difficulty kernel's compiled entries by tie form, called like
#: :data:`PAIR_LOGP_ENTRIES` (the data read-only) by the graph's Op and the written-out density.
DIFFICULTY_ENTRIES = (_difficulty_ties0, _difficulty_ties1, _difficulty_ties2)


@intrinsic
def _as_readonly(typingctx: Any, arr: Any) -> Any:
    """The same array, typed read-only (the kernels' compiled signatures take data so)."""
    sig = arr.copy(readonly=True)(arr)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        context.nrt.incref(builder, signature.args[0], args[0])
        return args[0]

    return sig, codegen


@numba.njit(inline="always", **_JIT_EXACT)
def read_only(judge: _Arr, truth: _Arr, counts: _Arr, coef: _Arr) -> tuple:
    """The kernels' data arguments typed read-only, inside numba code (as PyTensor passes its
    constants, and as :func:`run_kernel` passes them from Python).

    Whatever a backend holds (a folded constant, a shared variable, the all-unknown ``truth``
    computed at run time), the entries receive the same argument types and compile once.
    """
    return _as_readonly(judge), _as_readonly(truth), _as_readonly(counts), _as_readonly(coef)


def _readonly_data(judge: Any, truth: Any, counts: Any, coef: Any) -> list[np.ndarray]:
    """The kernels' data arguments as C-contiguous, read-only views (the type PyTensor's numba
    backend gives constants)."""
    out = []
    types_ = (np.int64, np.int64, np.float64, np.float64)
    for x, dtype in zip((judge, truth, counts, coef), types_, strict=True):
        view = np.ascontiguousarray(x, dtype=dtype).view()
        view.flags.writeable = False
        out.append(view)
    return out


def run_kernel(ties: int, *args: Any) -> tuple[np.ndarray, ...]:
    """Call the pair kernel from Python as the numba graph does: the same entry, the same types.

    ``args``: ``d, ep, em, eta_p, eta_m, judge, truth, counts, coef`` (the unused tie logits
    may be empty). Returns the kernel's six outputs (the tie partials empty without ties).
    """
    d, ep, em, tp, tm, *data = args
    floats = [np.ascontiguousarray(x, dtype=np.float64) for x in (d, ep, em, tp, tm)]
    outs = PAIR_LOGP_ENTRIES[ties](*floats[: 3 + ties], *_readonly_data(*data))
    return (*outs, *[np.zeros(0)] * (6 - len(outs)))


def run_difficulty_kernel(ties: int, *args: Any) -> tuple[np.ndarray, ...]:
    """Call the pair-difficulty kernel from Python as the numba graph does.

    ``args``: ``d, ep, em, eh, pi, eta_p, eta_m, judge, truth, counts, coef`` (the unused tie
    logits may be empty). Returns ``logp, d_d, d_ep, d_em, d_eh, d_pi`` and the tie partials.
    """
    d, ep, em, eh, pi, tp, tm, *data = args
    floats = [np.ascontiguousarray(x, dtype=np.float64) for x in (d, ep, em, eh, pi, tp, tm)]
    return DIFFICULTY_ENTRIES[ties](*floats[: 5 + ties], *_readonly_data(*data))


class PairLogp(Op):
    """Per-row log-probability of the marginal pair-count model, with analytic partials.

    Inputs: ``d`` (P,), ``eps_plus`` (J,), ``eps_minus`` (J,), then the tie logits (``ties=1``:
    ``eta`` (P,); ``ties=2``: ``eta_plus``, ``eta_minus`` (P,)), then ``judge`` (P,) int,
    ``truth`` (P,) int, ``counts`` (4 or 6, P) and ``coef`` (P,) (see :func:`count_rows`). Outputs:
    the log-probability (P,) and its partials per row with respect to the float inputs. Use
    :func:`pair_logp_fused` rather than the Op itself.
    """

    __props__ = ("ties",)
    #: Per-judge rate inputs after ``d`` (ε₊, ε₋).
    n_rates: int = 2
    entries: tuple[Any, ...] = PAIR_LOGP_ENTRIES

    def __init__(self, ties: int = 0) -> None:
        if ties not in (0, 1, 2):
            raise ValueError(f"ties must be 0, 1 or 2, got {ties!r}")
        self.ties = int(ties)
        super().__init__()

    @property
    def n_float(self) -> int:
        """Number of differentiable (float) inputs: d, the rates, the tie logits."""
        return 1 + self.n_rates + self.ties

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [pt.as_tensor(x) for x in inputs]
        nf = self.n_float
        floats = [x.astype("float64") for x in inputs[:nf]]
        ints = [x.astype("int64") for x in inputs[nf : nf + 2]]
        data = [x.astype("float64") for x in inputs[nf + 2 : nf + 4]]
        row = pt.vector(dtype="float64", shape=(floats[0].type.shape[0],))
        return Apply(self, [*floats, *ints, *data], [row.type() for _ in range(1 + nf)])

    def perform(self, node: Apply, inputs: list[np.ndarray], output_storage: list[Any]) -> None:
        nf = self.n_float
        floats = [np.ascontiguousarray(x, dtype=np.float64) for x in inputs[:nf]]
        outs = self.entries[self.ties](*floats, *_readonly_data(*inputs[nf:]))
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
        judge = inputs[nf]
        grads = [g * outputs[1]]
        for c in range(1, 1 + self.n_rates):  # per judge: summed over the judge's rows
            rate, contrib = inputs[c], g * outputs[1 + c]
            if rate.type.shape[0] == 1:
                grads.append(contrib.sum(keepdims=True))
            else:
                grads.append(pt.zeros_like(rate)[judge].inc(contrib))
        grads += [g * outputs[1 + c] for c in range(1 + self.n_rates, nf)]  # tie logits
        grads += [DisconnectedType()() for _ in inputs[nf:]]
        return grads


class DifficultyLogp(PairLogp):
    """Per-row log-probability of the pair-difficulty mixture (:func:`difficulty_kernel`).

    As :class:`PairLogp` with two more per-judge rates after ε₊, ε₋: ``eps_hard`` (η) and
    ``hard_share`` (π), each (J,). Use :func:`difficulty_logp_fused` rather than the Op itself.
    """

    n_rates: int = 4
    entries: tuple[Any, ...] = DIFFICULTY_ENTRIES


def kernel_version() -> int:
    """A number that changes with the kernels' source.

    PyTensor caches the compiled graph that calls a kernel on disk, keyed by the op and this
    number (not by the kernel's code): a kernel edited without a new number would be served
    from the old cache. It is the digest numba's cache stamps and the cached nutpie callbacks
    carry (:func:`.jit_cache.sources_digest`: every numba source file of this folder, its
    fast-math flags included), so one edit renews all three caches alike.
    """
    return int(sources_digest(folder_of(__file__)), 16)


# What PyTensor's numba backend calls: the entries, with the four data arguments typed read-only
# first. The backend passes a folded constant read-only but anything computed at run time (the
# all-unknown ``truth`` of a label-free model) or held in a shared variable writeable, while
# ``perform`` passes all four read-only: without this cast the entries would compile once per
# backend.
@numba.njit(**_JIT)
def _graph_pair0(d: _Arr, ep: _Arr, em: _Arr, q: _Arr, t: _Arr, n: _Arr, c: _Arr) -> tuple:
    return _pair_logp_ties0(d, ep, em, *read_only(q, t, n, c))


@numba.njit(**_JIT)
def _graph_pair1(
    d: _Arr, ep: _Arr, em: _Arr, tp: _Arr, q: _Arr, t: _Arr, n: _Arr, c: _Arr
) -> tuple:
    return _pair_logp_ties1(d, ep, em, tp, *read_only(q, t, n, c))


@numba.njit(**_JIT)
def _graph_pair2(
    d: _Arr, ep: _Arr, em: _Arr, tp: _Arr, tm: _Arr, q: _Arr, t: _Arr, n: _Arr, c: _Arr
) -> tuple:
    return _pair_logp_ties2(d, ep, em, tp, tm, *read_only(q, t, n, c))


@numba.njit(**_JIT_EXACT)
def _graph_difficulty0(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, q: _Arr, t: _Arr, n: _Arr, c: _Arr
) -> tuple:
    return _difficulty_ties0(d, ep, em, eh, pi, *read_only(q, t, n, c))


@numba.njit(**_JIT_EXACT)
def _graph_difficulty1(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, tp: _Arr, q: _Arr, t: _Arr, n: _Arr, c: _Arr
) -> tuple:
    return _difficulty_ties1(d, ep, em, eh, pi, tp, *read_only(q, t, n, c))


@numba.njit(**_JIT_EXACT)
def _graph_difficulty2(
    d: _Arr, ep: _Arr, em: _Arr, eh: _Arr, pi: _Arr, tp: _Arr, tm: _Arr, q: _Arr, t: _Arr,
    n: _Arr, c: _Arr,
) -> tuple:  # fmt: skip
    return _difficulty_ties2(d, ep, em, eh, pi, tp, tm, *read_only(q, t, n, c))


_GRAPH_ENTRIES = {
    PairLogp: (_graph_pair0, _graph_pair1, _graph_pair2),
    DifficultyLogp: (_graph_difficulty0, _graph_difficulty1, _graph_difficulty2),
}


def _register_numba() -> None:
    """Numba implementations of the Ops for PyTensor's numba backend (nutpie)."""
    from pytensor.link.numba.dispatch.basic import register_funcify_default_op_cache_key

    for op_class, graph_entries in _GRAPH_ENTRIES.items():

        @register_funcify_default_op_cache_key(op_class)
        def _funcify(
            op: PairLogp, node: Any = None, _entries: tuple = graph_entries, **kwargs: Any
        ) -> Any:
            return _entries[op.ties], kernel_version()


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
    >>> from scipy.stats import binom
    >>> from scipy.special import expit
    >>> lp = pair_logp_fused(np.array([[2, 1]]), np.array([0.4]), np.array([0.1]),
    ...                      np.array([0.3]), np.array([0]), np.array([[3, 2]])).eval()
    >>> by_hand = np.log(expit(0.4) * binom.pmf(2, 3, 0.9) * binom.pmf(1, 2, 0.7)
    ...                  + expit(-0.4) * binom.pmf(2, 3, 0.3) * binom.pmf(1, 2, 0.1))
    >>> bool(np.isclose(lp[0], by_hand))
    True
    """
    rates = (eps_plus, eps_minus)
    return _rows_logp(PairLogp, value, d, rates, judge, k, truth, eta_plus, eta_minus)


def difficulty_logp_fused(
    value: Any,
    d: Any,
    eps_plus: Any,
    eps_minus: Any,
    eps_hard: Any,
    hard_share: Any,
    judge: Any,
    k: Any,
    truth: Any = None,
    eta_plus: Any = None,
    eta_minus: Any = None,
) -> Any:
    """Symbolic per-row log-probability of the pair-difficulty mixture (:class:`DifficultyLogp`).

    As :func:`pair_logp_fused`, with the easy rates ``eps_plus``, ``eps_minus``, the hard rate
    ``eps_hard`` and the hard share ``hard_share``, each (J,).

    Examples
    --------
    With no hard pairs (π → 0) it is the positional model's row:

    >>> import numpy as np
    >>> val, k, one = np.array([[2, 1]]), np.array([[3, 2]]), lambda v: np.array([v])
    >>> mix = difficulty_logp_fused(val, one(0.4), one(0.1), one(0.3), one(0.6), one(1e-12),
    ...                             one(0), k).eval()
    >>> plain = pair_logp_fused(val, one(0.4), one(0.1), one(0.3), one(0), k).eval()
    >>> bool(np.isclose(mix[0], plain[0]))
    True
    """
    rates = (eps_plus, eps_minus, eps_hard, hard_share)
    return _rows_logp(DifficultyLogp, value, d, rates, judge, k, truth, eta_plus, eta_minus)


def _rows_logp(
    op: type[PairLogp],
    value: Any,
    d: Any,
    rates: tuple[Any, ...],
    judge: Any,
    k: Any,
    truth: Any,
    eta_plus: Any,
    eta_minus: Any,
) -> Any:
    """The first output of ``op`` on the count rows of ``value`` and ``k``."""
    d = pt.as_tensor(d)
    if truth is None:
        truth = pt.full_like(d, -1, dtype="int64")
    counts, coef = _count_rows_symbolic(value, k, eta_plus is not None)
    rates = tuple(_per_judge(r) for r in rates)
    data = (judge, truth, counts, coef)
    if eta_plus is None:
        return op(0)(d, *rates, *data)[0]
    eta_plus = pt.broadcast_to(pt.as_tensor(eta_plus), d.shape)
    if eta_minus is None:
        return op(1)(d, *rates, eta_plus, *data)[0]
    eta_minus = pt.broadcast_to(pt.as_tensor(eta_minus), d.shape)
    return op(2)(d, *rates, eta_plus, eta_minus, *data)[0]


def _per_judge(x: Any) -> Any:
    """A per-judge vector (J,), without the leading broadcast dims PyMC may add."""
    x = pt.as_tensor(x)
    if x.type.ndim == 1:
        return x
    return x.reshape((x.shape[-1],)) if x.type.ndim else x.reshape((1,))


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
