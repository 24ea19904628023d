"""The error models' likelihood with a hard truth: a total order per context, summed out.

METHODS §3 (the paper's generative model) has a ground-truth total order; every verdict equals
the truth or is flipped. With the order unknown and every order of a context's k items equally
likely a priori, a context's log-likelihood is

.. code-block:: text

    log p(context) = log (1/k!) Σ_π Π_{rows (i, j)} p(row | i above j in π, or j above i)

(one order π per context, shared by all its pair rows and every judge). It is the limit of the
strength models (:mod:`~bayes_pairwise.pymc_models.error_models`) as σ_s → ∞, where σ(s_i − s_j)
is 0 or 1 — the limit real judge logs drive them to (σ_s ≈ 22 on the QLoRA GPT-4 log), and
whose logistic walls make NUTS take hundreds of leapfrog steps per draw there
(``docs/src/speed.md``). Summing the k! orders out leaves only the judges' rates to sample.

The sum over orders is a dynamic programme over the subsets S of a context's items (pick the
best item a of S; it is above every other item of S)::

    f(∅) = 0,   f(S) = logsumexp_{a ∈ S} [ R_a(S \\ a) + f(S \\ a) ],   R_a(T) = Σ_{b ∈ T} ℓ(a ≻ b)

with ℓ(a ≻ b) the log-probability of the pair's verdicts given a truly better: k·2^(k−1) terms
per context (448 for k = 7), instead of k! · k(k−1)/2. ℓ is linear in the per-judge log rates
``L = (log ε₊, log(1−ε₊), log ε₋, log(1−ε₋))``: ``ℓ(a ≻ b) = Σ_j c_ab,j · L_j`` with the verdict
counts ``c`` (see :func:`order_tables`), so the gradient with respect to L is
``Σ_{a,b} P(a ≻ b | data) c_ab``, the posterior pair marginals from a backward pass over the
same table. Gold labels forbid the orders they contradict. The tie terms of one tie rate per
judge are the same for every order and stay outside (in the model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models.jit_cache import keep_in_step

keep_in_step(__file__)  # before the first cached function: see jit_cache

__all__ = [
    "MAX_CONTEXT_ITEMS",
    "OrderTables",
    "order_logp",
    "order_pair_probabilities",
    "order_rank_probabilities",
    "order_sample",
    "order_tables",
]

#: At most this many contexts of one size are evaluated side by side (the vectorised axis of
#: :func:`order_logp`), fewer for large contexts: a block's tables stay within about 4 MB.
_LANES = 64
_BLOCK_VALUES = 1 << 16

#: Largest context the sum over orders accepts: k·2^(k−1) terms per context (24,576 at k = 12).
MAX_CONTEXT_ITEMS = 12

#: infinities are data here (orders gold labels forbid): no "ninf"/"nnan" fast-math flags; no
#: "contract" (a fused multiply-add that the compiled and the cached code may place
#: differently: see ``fused._FASTMATH``; here it changed neither the bits nor the speed)
_JIT = {"cache": True, "error_model": "numpy", "fastmath": {"nsz", "arcp", "afn"}}


@dataclass(frozen=True, eq=False)
class OrderTables:
    """The data of :func:`order_logp`, built once per log by :func:`order_tables`.

    Attributes
    ----------
    size : int array (C,)
        Items per context.
    offset : int array (C + 1,)
        Start of each context's block in ``counts`` (k·k·J·4 values per context).
    counts : float array
        ``counts[offset[c] + ((a·k + b)·J + j)·4 + q]``: the weight of ``L[j, q]`` in
        ``ℓ(a ≻ b)`` for the local items a, b of context c.
    forbid : int array (sum of sizes,)
        Per item (context by context, local order): bit b set when a gold label says the
        context's item b is truly better.
    log_k_factorial : float array (C,)
        log k! per context (the uniform prior over orders).
    """

    size: np.ndarray
    offset: np.ndarray
    counts: np.ndarray
    forbid: np.ndarray
    log_k_factorial: np.ndarray

    @property
    def n_contexts(self) -> int:
        """Number of contexts (blocks)."""
        return int(self.size.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays :func:`order_logp` takes after ``L``."""
        return self.size, self.offset, self.counts, self.forbid, self.log_k_factorial


def order_tables(
    pc: Any, item_context: np.ndarray, n_contexts: int, *, tie_positional: bool = False
) -> OrderTables:
    """The count tables of :func:`order_logp` from a log's pair rows.

    With ``tie_positional`` the ties enter the tables too, as a second block of J "judges"
    whose four log rates are ``(log τ₊, log(1−τ₊), log τ₋, log(1−τ₋))``: τ₊ when the better
    item is shown first, τ₋ when second (the tie rate then depends on the order, so it is part
    of every order's likelihood). :func:`order_logp` then takes log rates of shape (2J, 4).

    Parameters
    ----------
    pc : PairCounts
        :func:`bayes_pairwise.matrices.pair_counts` of the log (ties modelled or not; without
        ``tie_positional`` the tie verdicts of a row do not enter ``counts``).
    item_context : int array
        Context of every item.
    n_contexts : int
    tie_positional : bool
        Put the ties in the tables, by the better item's position (see above).

    Returns
    -------
    OrderTables

    Raises
    ------
    DesignError
        A context with more than :data:`MAX_CONTEXT_ITEMS` items.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.matrices import pair_counts
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "second"]})
    >>> data = load_comparisons(df)
    >>> t = order_tables(pair_counts(data), data.item_context, data.n_contexts)
    >>> t.size.tolist(), t.counts.reshape(2, 2, 4)[0, 1].tolist()   # a ≻ b: two right verdicts
    ([2], [0.0, 1.0, 0.0, 1.0])
    """
    ctx_of_item = np.asarray(item_context, dtype=np.int64)
    size = np.bincount(ctx_of_item, minlength=n_contexts).astype(np.int64)
    if size.max(initial=0) > MAX_CONTEXT_ITEMS:
        c = int(np.argmax(size))
        raise DesignError(
            f"the hard-truth (order) models sum over the k! orders of each context, for contexts "
            f"of up to {MAX_CONTEXT_ITEMS} items; context {c} has {int(size[c])}. Use the "
            "strength models (uniform, positional) for large round robins."
        )
    order = np.argsort(ctx_of_item, kind="stable")
    start = np.concatenate([[0], np.cumsum(size)])
    local = np.empty(ctx_of_item.size, dtype=np.int64)
    for c in range(n_contexts):
        local[order[start[c] : start[c + 1]]] = np.arange(size[c])
    n_jr = len(pc.judges)  # judges of the error rates
    n_j = 2 * n_jr if tie_positional else n_jr  # rows of log_rates (ties: a second block)
    offset = np.concatenate([[0], np.cumsum(size * size * n_j * 4)]).astype(np.int64)
    counts = np.zeros(int(offset[-1]))
    n1 = np.asarray(pc.n1_decided, dtype=float)
    n2 = np.asarray(pc.n2_decided, dtype=float)
    f1 = np.asarray(pc.k_plus, dtype=float) - pc.t1 - n1
    f2 = np.asarray(pc.k_minus, dtype=float) - pc.t2 - n2
    ctx = ctx_of_item[pc.i]
    a, b, k = local[pc.i], local[pc.j], size[ctx]
    judge = np.asarray(pc.judge, dtype=np.int64)
    # i ≻ j: i first and right (n1) or wrong (f1) at ε₊; j first, i right (n2) or wrong (f2) at ε₋
    at = offset[ctx] + ((a * k + b) * n_j + judge) * 4
    for q, v in enumerate((f1, n1, f2, n2)):
        np.add.at(counts, at + q, v)
    # j ≻ i: i first is the better one second (i wins n1 at ε₋); j first, i wins n2 at ε₊
    at = offset[ctx] + ((b * k + a) * n_j + judge) * 4
    for q, v in enumerate((n2, f2, n1, f1)):
        np.add.at(counts, at + q, v)
    if tie_positional:
        t1 = np.asarray(pc.t1, dtype=float)
        t2 = np.asarray(pc.t2, dtype=float)
        d1 = np.asarray(pc.k_plus, dtype=float) - t1
        d2 = np.asarray(pc.k_minus, dtype=float) - t2
        # i ≻ j: i first is the better first (ties t1 at τ₊), j first the better second
        at = offset[ctx] + ((a * k + b) * n_j + n_jr + judge) * 4
        for q, v in enumerate((t1, d1, t2, d2)):
            np.add.at(counts, at + q, v)
        # j ≻ i: j first (t2) is the better first, i first (t1) the better second
        at = offset[ctx] + ((b * k + a) * n_j + n_jr + judge) * 4
        for q, v in enumerate((t2, d2, t1, d1)):
            np.add.at(counts, at + q, v)
    forbid = np.zeros(ctx_of_item.size, dtype=np.int64)
    known = np.asarray(pc.truth) >= 0
    if known.any():
        better_i = np.asarray(pc.truth)[known] == 1
        lo, hi = np.asarray(pc.i)[known], np.asarray(pc.j)[known]
        worse = np.where(better_i, hi, lo)
        better = np.where(better_i, lo, hi)
        pos = start[ctx_of_item[worse]] + local[worse]
        np.bitwise_or.at(forbid, pos, np.left_shift(1, local[better]).astype(np.int64))
    log_k = np.array([math.lgamma(float(x) + 1.0) for x in size])
    return OrderTables(
        size=size,
        offset=offset,
        counts=counts,
        forbid=forbid,
        log_k_factorial=log_k,
    )


@numba.njit(**_JIT)
def _lowbits(full_max: int) -> np.ndarray:
    """Index of the lowest set bit of every t < ``full_max`` (0 for t = 0)."""
    lowbit = np.zeros(full_max, dtype=np.int64)
    for t in range(1, full_max):
        b = 0
        while not (t >> b) & 1:
            b += 1
        lowbit[t] = b
    return lowbit


@numba.njit(**_JIT)
def _in_logs(k, la, forbid_c, lowbit, rtab, f, w) -> float:
    """One context's programme in log space (a log-sum-exp per subset): slower than the
    products of :func:`order_logp`, and never underflows; ``w`` gets the normalised weights."""
    full = (1 << k) - 1
    for a in range(k):
        rtab[0, a] = 0.0
    for t in range(1, full + 1):
        b = lowbit[t]
        prev = t ^ (1 << b)
        for a in range(k):
            rtab[t, a] = rtab[prev, a] + la[a, b]
    f[0] = 0.0
    for s_set in range(1, full + 1):
        m = -np.inf
        for a in range(k):
            w[s_set, a] = -np.inf
            if (s_set >> a) & 1:
                t = s_set ^ (1 << a)
                if not t & forbid_c[a]:
                    v = rtab[t, a] + f[t]
                    w[s_set, a] = v
                    m = max(m, v)
        if m == -np.inf:
            f[s_set] = -np.inf
            for a in range(k):
                w[s_set, a] = 0.0
            continue
        tot = 0.0
        for a in range(k):
            e = math.exp(w[s_set, a] - m) if w[s_set, a] > -np.inf else 0.0
            w[s_set, a] = e
            tot += e
        f[s_set] = m + math.log(tot)
        inv = 1.0 / tot
        for a in range(k):
            w[s_set, a] *= inv
    return f[full]


@numba.njit(**_JIT)
def order_logp(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
    log_k_factorial: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-context log-likelihood with every order summed out, and its gradient.

    Parameters
    ----------
    log_rates : float array (J, 4)
        Per judge ``(log ε₊, log(1−ε₊), log ε₋, log(1−ε₋))``.
    size, offset, counts, forbid, log_k_factorial
        :meth:`OrderTables.arrays`.

    Returns
    -------
    logp : float array (C,)
        Per context; −inf where gold labels leave no order.
    grad : float array (C, J·4)
        ∂ logp_c / ∂ log_rates, flattened per context.

    Examples
    --------
    Two items, one verdict per order, both right if a ≻ b: the mean over the two orders.

    >>> import numpy as np
    >>> L = np.log([[0.1, 0.9, 0.2, 0.8]])
    >>> lp, _ = order_logp(L, np.array([2]), np.array([0, 16]),
    ...                    np.array([0, 0, 0, 0,  0, 1, 0, 1,  1, 0, 1, 0,  0, 0, 0, 0.]),
    ...                    np.array([0, 0]), np.array([np.log(2.0)]))
    >>> bool(np.isclose(lp[0], np.log((0.9 * 0.8 + 0.1 * 0.2) / 2)))
    True
    """
    n_c = size.shape[0]
    n_l = log_rates.shape[0] * 4
    flat = log_rates.reshape(n_l)
    kmax = 1
    for c in range(n_c):
        kmax = max(kmax, size[c])
    full_max = 1 << kmax
    lowbit = _lowbits(full_max)
    logp = np.empty(n_c)
    grad = np.zeros((n_c, n_l))
    n_lanes = max(1, min(_LANES, _BLOCK_VALUES // (full_max * kmax)))
    # contexts of one size in blocks of n_lanes, the block's contexts along the last axis: the
    # loops over a block are short, branch-free and contiguous, so they vectorise
    by_size = np.argsort(size, kind="mergesort")
    starts = np.zeros(n_c, dtype=np.int64)
    for c in range(1, n_c):
        starts[c] = starts[c - 1] + size[c - 1]
    la = np.empty((kmax, kmax, n_lanes))
    amat = np.empty((kmax, kmax, n_lanes))
    ptab = np.empty((full_max, kmax, n_lanes))
    f = np.empty((full_max, n_lanes))
    w = np.empty((full_max, kmax, n_lanes))
    adj = np.empty((full_max, n_lanes))
    radj = np.empty((full_max, kmax, n_lanes))
    marg = np.empty((kmax, kmax, n_lanes))
    fb = np.empty((kmax, n_lanes), dtype=np.int64)
    shift = np.empty(n_lanes)
    top = np.empty(n_lanes)
    tot = np.empty(n_lanes)
    # the scalar log-space programme, for a context whose products underflow
    la1 = np.empty((kmax, kmax))
    tab1 = np.empty((full_max, kmax))
    f1 = np.empty(full_max)
    w1 = np.empty((full_max, kmax))
    first = 0
    while first < n_c:
        k = size[by_size[first]]
        nb = 1
        while nb < n_lanes and first + nb < n_c and size[by_size[first + nb]] == k:
            nb += 1
        lanes = by_size[first : first + nb]
        full = (1 << k) - 1
        for a in range(k):
            for b in range(k):
                for lane in range(nb):
                    row = offset[lanes[lane]] + (a * k + b) * n_l
                    acc = 0.0
                    for q in range(n_l):
                        acc += counts[row + q] * flat[q]
                    la[a, b, lane] = acc
            for lane in range(nb):
                fb[a, lane] = forbid[starts[lanes[lane]] + a]
        for lane in range(nb):
            shift[lane] = 0.0
        # each pair's likelier orientation to 0: products ≤ 1 (see _linear)
        for a in range(k):
            for b in range(a + 1, k):
                for lane in range(nb):
                    m = max(la[a, b, lane], la[b, a, lane])
                    la[a, b, lane] -= m
                    la[b, a, lane] -= m
                    shift[lane] += m
        for a in range(k):
            for b in range(k):
                for lane in range(nb):
                    amat[a, b, lane] = math.exp(la[a, b, lane]) if a != b else 1.0
        for a in range(k):
            for lane in range(nb):
                ptab[0, a, lane] = 1.0
        for t in range(1, full + 1):
            b = lowbit[t]
            prev = t ^ (1 << b)
            for a in range(k):
                for lane in range(nb):
                    ptab[t, a, lane] = ptab[prev, a, lane] * amat[a, b, lane]
        for lane in range(nb):
            f[0, lane] = 1.0
        for s_set in range(1, full + 1):
            for lane in range(nb):
                tot[lane] = 0.0
            rest = s_set
            while rest:
                a = lowbit[rest]
                rest &= rest - 1
                t = s_set ^ (1 << a)
                for lane in range(nb):
                    v = ptab[t, a, lane] * f[t, lane]
                    v = 0.0 if t & fb[a, lane] else v  # a gold label puts an item of t above a
                    w[s_set, a, lane] = v
                    tot[lane] += v
            for lane in range(nb):
                f[s_set, lane] = tot[lane]
                tot[lane] = 1.0 / tot[lane] if tot[lane] > 0.0 else 0.0
            rest = s_set
            while rest:
                a = lowbit[rest]
                rest &= rest - 1
                for lane in range(nb):
                    w[s_set, a, lane] *= tot[lane]
        for lane in range(nb):
            if f[full, lane] > 1e-200:
                top[lane] = math.log(f[full, lane])
                continue
            # underflow: this context in log space, its weights copied into the block
            for a in range(k):
                for b in range(k):
                    la1[a, b] = la[a, b, lane]
            top[lane] = _in_logs(k, la1, fb[:k, lane].copy(), lowbit, tab1, f1, w1)
            for s_set in range(1, full + 1):
                for a in range(k):
                    w[s_set, a, lane] = w1[s_set, a]
        for lane in range(nb):
            c = lanes[lane]
            logp[c] = top[lane] + shift[lane] - log_k_factorial[c]
        # backward: adj[S] = P(S is the set of the |S| best items), then through
        # ptab(t, a) = ptab(t without its lowest item b, a) · A[a, b]: marg[a, b] = P(a ≻ b)
        for t in range(full + 1):
            for lane in range(nb):
                adj[t, lane] = 0.0
            for a in range(k):
                for lane in range(nb):
                    radj[t, a, lane] = 0.0
        for lane in range(nb):
            adj[full, lane] = 1.0 if top[lane] > -np.inf else 0.0
        for s_set in range(full, 0, -1):
            rest = s_set
            while rest:
                a = lowbit[rest]
                rest &= rest - 1
                t = s_set ^ (1 << a)
                for lane in range(nb):
                    p = adj[s_set, lane] * w[s_set, a, lane]
                    adj[t, lane] += p
                    radj[t, a, lane] += p
        for a in range(k):
            for b in range(k):
                for lane in range(nb):
                    marg[a, b, lane] = 0.0
        for t in range(full, 0, -1):
            b = lowbit[t]
            prev = t ^ (1 << b)
            for a in range(k):
                for lane in range(nb):
                    r = radj[t, a, lane]
                    marg[a, b, lane] += r
                    radj[prev, a, lane] += r
        # the shift's gradient is the likelier orientation's counts, and marg[a, b] +
        # marg[b, a] = 1 per pair: together Σ marg[a, b] · c_ab, as without the shift
        for lane in range(nb):
            c = lanes[lane]
            for a in range(k):
                for b in range(k):
                    mab = marg[a, b, lane]
                    if mab != 0.0:
                        row = offset[c] + (a * k + b) * n_l
                        for q in range(n_l):
                            grad[c, q] += mab * counts[row + q]
        first += nb
    return logp, grad


@numba.njit(**_JIT)
def _largest_and_total(size: np.ndarray) -> tuple[int, int]:
    """(largest context, number of items) of the tables."""
    kmax = 1
    n_items = 0
    for c in range(size.shape[0]):
        kmax = max(kmax, size[c])
        n_items += size[c]
    return kmax, n_items


@numba.njit(**_JIT)
def _fill_pair_logs(
    c: int, k: int, flat: np.ndarray, offset: np.ndarray, counts: np.ndarray, la: np.ndarray
) -> None:
    """``la[a, b]`` = ℓ(a ≻ b) of context ``c`` (k items) at the flat log rates."""
    n_l = flat.shape[0]
    for a in range(k):
        for b in range(k):
            acc = 0.0
            if a != b:
                row = offset[c] + (a * k + b) * n_l
                for q in range(n_l):
                    acc += counts[row + q] * flat[q]
            la[a, b] = acc


@numba.njit(**_JIT)
def _order_marginals(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
    pairs: bool,
) -> np.ndarray:
    """The posterior marginals of :func:`order_rank_probabilities` (``pairs`` False: column
    r − 1 is P(rank r)) or :func:`order_pair_probabilities` (``pairs`` True: column b is
    P(item ≻ the context's item b)): one programme, two ways of summing its terms."""
    n_c = size.shape[0]
    flat = log_rates.reshape(log_rates.shape[0] * 4)
    kmax, n_items = _largest_and_total(size)
    full_max = 1 << kmax
    lowbit = _lowbits(full_max)
    popcount = np.zeros(full_max, dtype=np.int64)
    for t in range(1, full_max):
        popcount[t] = popcount[t & (t - 1)] + 1
    out = np.zeros((n_items, kmax))
    la = np.zeros((kmax, kmax))
    rtab = np.empty((full_max, kmax))
    f = np.empty(full_max)
    w = np.empty((full_max, kmax))
    g = np.empty(full_max)
    start = 0
    for c in range(n_c):
        k = size[c]
        full = (1 << k) - 1
        _fill_pair_logs(c, k, flat, offset, counts, la)
        fb = forbid[start : start + k].copy()
        top = _in_logs(k, la, fb, lowbit, rtab, f, w)  # fills rtab and f
        if top == -np.inf:
            for a in range(k):
                for r in range(kmax):
                    out[start + a, r] = np.nan
            start += k
            continue
        g[full] = 0.0
        for t in range(full - 1, -1, -1):
            m = -np.inf
            for a in range(k):
                if not (t >> a) & 1 and not t & fb[a]:
                    m = max(m, g[t | (1 << a)] + rtab[t, a])
            if m == -np.inf:
                g[t] = -np.inf
                continue
            tot = 0.0
            for a in range(k):
                if not (t >> a) & 1 and not t & fb[a]:
                    v = g[t | (1 << a)] + rtab[t, a]
                    if v > -np.inf:
                        tot += math.exp(v - m)
            g[t] = m + math.log(tot)
        for t in range(full):
            if f[t] == -np.inf:
                continue
            r = k - popcount[t] - 1  # column of rank k − |T|
            for a in range(k):
                if not (t >> a) & 1 and not t & fb[a]:
                    v = g[t | (1 << a)] + rtab[t, a] + f[t] - top
                    if v > -np.inf:
                        p = math.exp(v)
                        if pairs:  # a directly above T: above every item b of T
                            for b in range(k):
                                if (t >> b) & 1:
                                    out[start + a, b] += p
                        else:
                            out[start + a, r] += p
        start += k
    return out


def order_rank_probabilities(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
) -> np.ndarray:
    """Posterior probability of every rank of every item, given the judges' rates.

    With the rates fixed, the posterior over a context's orders is the prior (uniform) times
    the likelihood of :func:`order_logp`. The subset programme runs forwards over the worst
    items (``f(T)``: every order of the set ``T``) and backwards over the best
    (``g(T)``: every order of the other items above ``T``)::

        g(F) = 0,   g(T) = logsumexp_{a ∉ T} [ g(T ∪ a) + R_a(T) ]

    and ``a`` has rank ``k − |T|`` (1 = best) with probability
    ``Σ_{T ∌ a} exp(g(T ∪ a) + R_a(T) + f(T) − f(F))``: item ``a`` directly above the set
    ``T`` of the items below it. In log space (it runs once per posterior draw, not per
    leapfrog step). Gold labels forbid the orders they contradict.

    Parameters
    ----------
    log_rates : float array (J, 4)
        Per judge ``(log ε₊, log(1−ε₊), log ε₋, log(1−ε₋))``.
    size, offset, counts, forbid
        The first four of :meth:`OrderTables.arrays`.

    Returns
    -------
    float array (sum of sizes, max size)
        Row per item, context by context in the local order of :func:`order_tables` (the
        items of a context by index); column r − 1 is P(rank r), zero beyond the context's
        size. NaN rows for a context whose gold labels leave no order.

    Examples
    --------
    Two items, one verdict per order, both right if a ≻ b: a is better with probability
    (0.9 · 0.8) / (0.9 · 0.8 + 0.1 · 0.2).

    >>> import numpy as np
    >>> L = np.log([[0.1, 0.9, 0.2, 0.8]])
    >>> p = order_rank_probabilities(
    ...     L, np.array([2]), np.array([0, 16]),
    ...     np.array([0, 0, 0, 0,  0, 1, 0, 1,  1, 0, 1, 0,  0, 0, 0, 0.]), np.array([0, 0]))
    >>> bool(np.isclose(p[0, 0], 0.72 / 0.74)), bool(np.allclose(p.sum(axis=1), 1.0))
    (True, True)
    """
    return _order_marginals(log_rates, size, offset, counts, forbid, False)


def order_pair_probabilities(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
) -> np.ndarray:
    """Posterior probability that each item is truly better than each other item of its
    context, given the judges' rates (the same programme as :func:`order_rank_probabilities`:
    item ``a`` directly above the set ``T`` is above every item of ``T``).

    Parameters
    ----------
    log_rates, size, offset, counts, forbid
        As :func:`order_rank_probabilities`.

    Returns
    -------
    float array (sum of sizes, max size)
        Row per item (context by context, local order), column b: P(item ≻ the context's
        local item b); 0 on the diagonal and beyond the context's size, and
        P(a ≻ b) + P(b ≻ a) = 1. NaN rows for a context whose gold labels leave no order.

    Examples
    --------
    The two-item case of :func:`order_rank_probabilities`: P(a ≻ b) = P(a has rank 1).

    >>> import numpy as np
    >>> L = np.log([[0.1, 0.9, 0.2, 0.8]])
    >>> p = order_pair_probabilities(
    ...     L, np.array([2]), np.array([0, 16]),
    ...     np.array([0, 0, 0, 0,  0, 1, 0, 1,  1, 0, 1, 0,  0, 0, 0, 0.]), np.array([0, 0]))
    >>> bool(np.isclose(p[0, 1], 0.72 / 0.74)), bool(np.isclose(p[0, 1] + p[1, 0], 1.0))
    (True, True)
    """
    return _order_marginals(log_rates, size, offset, counts, forbid, True)


@numba.njit(**_JIT)
def _sample_orders(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
    uniforms: np.ndarray,
) -> np.ndarray:
    """:func:`order_sample` with the uniforms given (one per item: one pick each)."""
    n_c = size.shape[0]
    flat = log_rates.reshape(log_rates.shape[0] * 4)
    kmax, n_items = _largest_and_total(size)
    full_max = 1 << kmax
    lowbit = _lowbits(full_max)
    rank = np.full(n_items, -1, dtype=np.int64)
    la = np.zeros((kmax, kmax))
    rtab = np.empty((full_max, kmax))
    f = np.empty(full_max)
    w = np.empty((full_max, kmax))
    start = 0
    for c in range(n_c):
        k = size[c]
        _fill_pair_logs(c, k, flat, offset, counts, la)
        fb = forbid[start : start + k].copy()
        if _in_logs(k, la, fb, lowbit, rtab, f, w) == -np.inf:
            start += k  # the labels leave no order: ranks stay −1
            continue
        s_set = (1 << k) - 1
        for r in range(k):  # the best of the items left, by its posterior weight w[S, a]
            u = uniforms[start + r]
            pick = -1
            acc = 0.0
            for a in range(k):
                if (s_set >> a) & 1 and w[s_set, a] > 0.0:
                    pick = a
                    acc += w[s_set, a]
                    if u < acc:
                        break
            rank[start + pick] = r
            s_set ^= 1 << pick
        start += k
    return rank


def order_sample(
    log_rates: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    counts: np.ndarray,
    forbid: np.ndarray,
    *,
    rng: np.random.Generator,
) -> np.ndarray:
    """One order of every context drawn exactly from its posterior, given the judges' rates.

    The programme of :func:`order_logp` run forwards (``f(S)``: every order of the set ``S``)
    leaves, for each set ``S`` and item ``a`` of it, the posterior probability that ``a`` is
    the best of ``S`` given that ``S`` holds the ``|S|`` worst items:
    ``exp(R_a(S \\ a) + f(S \\ a) − f(S))``. Picking the best of the whole context by it,
    then the best of the rest, and so on, draws an order with its exact posterior probability
    (the prior over orders is uniform; gold labels forbid the orders they contradict).

    Parameters
    ----------
    log_rates : float array (J, 4)
        Per judge ``(log ε₊, log(1−ε₊), log ε₋, log(1−ε₋))`` (and a second block of tie rates
        by position, as :func:`order_logp` takes them).
    size, offset, counts, forbid
        The first four of :meth:`OrderTables.arrays`.
    rng : numpy.random.Generator
        One uniform per item is drawn from it.

    Returns
    -------
    int array (sum of sizes,)
        Per item (context by context, local order, as :func:`order_rank_probabilities`' rows):
        its rank in the drawn order, 0 for the best; −1 for the items of a context whose gold
        labels leave no order.

    Examples
    --------
    Two items, one verdict per order, both right if a ≻ b: a is drawn best with probability
    (0.9 · 0.8) / (0.9 · 0.8 + 0.1 · 0.2) = 0.973.

    >>> import numpy as np
    >>> L = np.log([[0.1, 0.9, 0.2, 0.8]])
    >>> tables = (np.array([2]), np.array([0, 16]),
    ...           np.array([0, 0, 0, 0,  0, 1, 0, 1,  1, 0, 1, 0,  0, 0, 0, 0.]), np.array([0, 0]))
    >>> rng = np.random.default_rng(0)
    >>> a_best = [order_sample(L, *tables, rng=rng)[0] == 0 for _ in range(4000)]
    >>> round(float(np.mean(a_best)), 2)
    0.97
    """
    uniforms = rng.random(int(np.sum(size)))
    return _sample_orders(
        np.ascontiguousarray(log_rates, dtype=float), size, offset, counts, forbid, uniforms
    )
