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

__all__ = ["MAX_CONTEXT_ITEMS", "OrderTables", "order_logp", "order_tables"]

#: Largest context the sum over orders accepts: k·2^(k−1) terms per context (24,576 at k = 12).
MAX_CONTEXT_ITEMS = 12

#: infinities are data here (orders gold labels forbid): no "ninf"/"nnan" fast-math flags
_JIT = {"cache": True, "error_model": "numpy", "fastmath": {"nsz", "arcp", "contract", "afn"}}


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
    context : int array (C,)
        The data's context index of each block.
    """

    size: np.ndarray
    offset: np.ndarray
    counts: np.ndarray
    forbid: np.ndarray
    log_k_factorial: np.ndarray
    context: np.ndarray

    @property
    def n_contexts(self) -> int:
        """Number of contexts (blocks)."""
        return int(self.size.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays :func:`order_logp` takes after ``L``."""
        return self.size, self.offset, self.counts, self.forbid, self.log_k_factorial


def order_tables(pc: Any, item_context: np.ndarray, n_contexts: int) -> OrderTables:
    """The count tables of :func:`order_logp` from a log's pair rows.

    Parameters
    ----------
    pc : PairCounts
        :func:`bayes_pairwise.matrices.pair_counts` of the log (ties modelled or not; the tie
        verdicts of a row do not enter ``counts``).
    item_context : int array
        Context of every item.
    n_contexts : int

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
    n_j = len(pc.judges)
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
        context=np.arange(n_contexts, dtype=np.int64),
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
def _linear(k, la, amat, forbid_c, lowbit, ptab, f, w) -> float:
    """The programme in probability space (products, no exp per term); log f(full), or −inf
    when it underflows (the caller then runs :func:`_in_logs`). ``la`` is shifted so that each
    pair's likelier orientation is 0: every product is ≤ 1, and a term lost to underflow is
    below 1e−108 of a total above 1e−200. ``w[S, a]`` is set for the members a of S only."""
    full = (1 << k) - 1
    for a in range(k):
        for b in range(k):
            amat[a, b] = math.exp(la[a, b]) if a != b else 1.0
    for a in range(k):
        ptab[0, a] = 1.0
    for t in range(1, full + 1):
        b = lowbit[t]
        prev = t ^ (1 << b)
        for a in range(k):
            ptab[t, a] = ptab[prev, a] * amat[a, b]
    f[0] = 1.0
    for s_set in range(1, full + 1):
        tot = 0.0
        rest = s_set
        while rest:
            a = lowbit[rest]
            rest &= rest - 1
            t = s_set ^ (1 << a)
            v = 0.0 if t & forbid_c[a] else ptab[t, a] * f[t]  # a label above a: no order
            w[s_set, a] = v
            tot += v
        f[s_set] = tot
        if tot > 0.0:
            inv = 1.0 / tot
            rest = s_set
            while rest:
                a = lowbit[rest]
                rest &= rest - 1
                w[s_set, a] *= inv
    if not f[full] > 1e-200:
        return -np.inf
    return math.log(f[full])


@numba.njit(**_JIT)
def _in_logs(k, la, forbid_c, lowbit, rtab, f, w) -> float:
    """The programme in log space (a log-sum-exp per subset): slower, never underflows."""
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
    la = np.empty((kmax, kmax))
    amat = np.empty((kmax, kmax))
    tab = np.empty((full_max, kmax))  # products (or sums of logs) of "a above every b in T"
    radj = np.empty((full_max, kmax))  # adjoint of tab
    f = np.empty(full_max)
    w = np.empty((full_max, kmax))  # P(a is the best of S | S are the |S| best)
    adj = np.empty(full_max)
    marg = np.empty((kmax, kmax))
    base = 0
    for c in range(n_c):
        k = size[c]
        off = offset[c]
        full = (1 << k) - 1
        shift = 0.0  # Σ over pairs of the likelier orientation's log-probability
        for a in range(k):
            for b in range(k):
                acc = 0.0
                row = off + (a * k + b) * n_l
                for q in range(n_l):
                    acc += counts[row + q] * flat[q]
                la[a, b] = acc
        for a in range(k):
            for b in range(a + 1, k):
                m = max(la[a, b], la[b, a])
                la[a, b] -= m
                la[b, a] -= m
                shift += m
        forbid_c = forbid[base : base + k]
        top = _linear(k, la, amat, forbid_c, lowbit, tab, f, w)
        if top == -np.inf:
            top = _in_logs(k, la, forbid_c, lowbit, tab, f, w)
        logp[c] = top + shift - log_k_factorial[c]
        if top > -np.inf:
            # backward: adj[S] = P(S is the set of the |S| best items), then through
            # tab(t, a) = tab(t without its lowest item b, a) · A[a, b]: marg[a, b] = P(a ≻ b)
            for t in range(full + 1):
                adj[t] = 0.0
                for a in range(k):
                    radj[t, a] = 0.0
            adj[full] = 1.0
            for s_set in range(full, 0, -1):
                g = adj[s_set]
                if g != 0.0:
                    rest = s_set
                    while rest:
                        a = lowbit[rest]
                        rest &= rest - 1
                        p = g * w[s_set, a]
                        t = s_set ^ (1 << a)
                        adj[t] += p
                        radj[t, a] += p
            for a in range(k):
                for b in range(k):
                    marg[a, b] = 0.0
            for t in range(full, 0, -1):
                b = lowbit[t]
                prev = t ^ (1 << b)
                for a in range(k):
                    r = radj[t, a]
                    if r != 0.0:
                        marg[a, b] += r
                        radj[prev, a] += r
            # the shift's gradient is the likelier orientation's counts, and marg[a, b] +
            # marg[b, a] = 1 per pair: together Σ marg[a, b] · c_ab, as without the shift
            for a in range(k):
                for b in range(k):
                    if marg[a, b] != 0.0:
                        row = off + (a * k + b) * n_l
                        for q in range(n_l):
                            grad[c, q] += marg[a, b] * counts[row + q]
        base += k
    return logp, grad
