"""Textbook forms of the error models' pair-row likelihoods: the oracles the kernels are tested
against (``tests/test_fused_likelihood.py``, ``test_difficulty.py``, ``test_tie_model.py``, …).

Written as the model reads in ``docs/src/tie_model.md`` and ``docs/src/pair_difficulty.md``:
SciPy binomial log-probabilities per order and state, a log-sum-exp over the hard / easy state,
and a log-sum-exp over the latent truth T (or the labelled branch). Slow and plain on purpose; the
package evaluates the same rows with one numba kernel per family
(:mod:`bayes_pairwise.pymc_models.fused`).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import log_expit
from scipy.stats import binom

import bayes_pairwise as bp


def _per_row(rate, judge) -> np.ndarray:
    return np.atleast_1d(np.asarray(rate, dtype=float)).reshape(-1)[np.asarray(judge, dtype=int)]


def pair_rows_logp(
    value,
    d,
    judge,
    eps_plus,
    eps_minus,
    k,
    *,
    truth=None,
    eta_plus=None,
    eta_minus=None,
    eps_hard=None,
    hard_share=None,
) -> np.ndarray:
    """Log-probability of every pair row, from its definition.

    ``value``: ``(n1, n2)`` or, with ``eta_plus``, ``(n1, n2, t1, t2)`` (``n`` counting non-tie
    wins of ``i``); ``k``: ``(k₊, k₋, …)`` with ties. ``eta_plus`` alone: one tie rate σ(η₊);
    with ``eta_minus``: σ(η₊) for the verdicts whose order shows the truly better item first,
    σ(η₋) for the others. ``eps_hard`` and ``hard_share`` (per judge): the pair-difficulty
    mixture, hard rows erring with ``eps_hard`` in both orders. ``truth`` codes 1 / 0 / −1.
    """
    value = np.asarray(value, dtype=float)
    k = np.asarray(k, dtype=float)
    d = np.asarray(d, dtype=float)
    n1, n2 = value[:, 0], value[:, 1]
    kp, km = k[:, 0], k[:, 1]
    ties = eta_plus is not None
    t1, t2 = (value[:, 2], value[:, 3]) if ties else (np.zeros_like(n1), np.zeros_like(n2))
    m1, m2 = kp - t1, km - t2
    ep, em = _per_row(eps_plus, judge), _per_row(eps_minus, judge)
    # T = i≻j: i wins a decided verdict w.p. 1 − ε₊ when shown first, 1 − ε₋ when second
    a = binom.logpmf(n1, m1, 1.0 - ep) + binom.logpmf(n2, m2, 1.0 - em)
    b = binom.logpmf(n1, m1, em) + binom.logpmf(n2, m2, ep)
    if eps_hard is not None:
        eh, pi = _per_row(eps_hard, judge), _per_row(hard_share, judge)
        a_hard = binom.logpmf(n1, m1, 1.0 - eh) + binom.logpmf(n2, m2, 1.0 - eh)
        b_hard = binom.logpmf(n1, m1, eh) + binom.logpmf(n2, m2, eh)
        a = np.logaddexp(np.log1p(-pi) + a, np.log(pi) + a_hard)
        b = np.logaddexp(np.log1p(-pi) + b, np.log(pi) + b_hard)
    if ties:
        tau_p = np.broadcast_to(np.exp(log_expit(np.asarray(eta_plus, dtype=float))), d.shape)
        tau_m = tau_p if eta_minus is None else np.exp(log_expit(np.asarray(eta_minus, float)))
        a = a + binom.logpmf(t1, kp, tau_p) + binom.logpmf(t2, km, tau_m)
        b = b + binom.logpmf(t1, kp, tau_m) + binom.logpmf(t2, km, tau_p)
    branch_a, branch_b = log_expit(d) + a, log_expit(-d) + b
    out = np.logaddexp(branch_a, branch_b)
    if truth is not None:
        truth = np.asarray(truth)
        out = np.where(truth == 1, branch_a, np.where(truth == 0, branch_b, out))
    return out


# ------------------------------------------------- the order models: every order written out
def order_log_likelihoods(data, log_rates, c, *, tie_rates=None):
    """Every order of context ``c`` (items by index, best first) and log Π_rows p(row | order),
    written out (−inf where a gold label forbids the order); with ``tie_rates`` (J, 4: log τ₊,
    log(1−τ₊), log τ₋, log(1−τ₋)) the ties by the better item's position enter it."""
    pc = bp.pair_counts(data)
    ic = np.asarray(data.item_context)
    n1 = np.asarray(pc.n1_decided, float)
    n2 = np.asarray(pc.n2_decided, float)
    f1 = pc.k_plus - pc.t1 - n1
    f2 = pc.k_minus - pc.t2 - n2
    rows = np.flatnonzero(ic[pc.i] == c)
    perms = list(itertools.permutations(np.flatnonzero(ic == c)))
    vals = []
    for perm in perms:
        rank = {item: r for r, item in enumerate(perm)}
        total = 0.0
        for r in rows:
            i_above = rank[pc.i[r]] < rank[pc.j[r]]
            if pc.truth[r] >= 0 and (pc.truth[r] == 1) != i_above:
                total = -np.inf
                break
            lr = log_rates[pc.judge[r]]
            if i_above:
                total += f1[r] * lr[0] + n1[r] * lr[1] + f2[r] * lr[2] + n2[r] * lr[3]
            else:
                total += n2[r] * lr[0] + f2[r] * lr[1] + n1[r] * lr[2] + f1[r] * lr[3]
            if tie_rates is not None:
                lt = tie_rates[pc.judge[r]]
                t1, t2 = pc.t1[r], pc.t2[r]
                d1, d2 = pc.k_plus[r] - t1, pc.k_minus[r] - t2
                if i_above:  # i first: the better first (τ₊); j first: second (τ₋)
                    total += t1 * lt[0] + d1 * lt[1] + t2 * lt[2] + d2 * lt[3]
                else:
                    total += t2 * lt[0] + d2 * lt[1] + t1 * lt[2] + d1 * lt[3]
        vals.append(total)
    return perms, np.array(vals)


def order_contexts_logp(data, log_rates, *, ranks=False, tie_rates=None, pairs=False):
    """Per-context log (1/k!) Σ_orders Π_rows p(row | order), every order written out
    (:func:`order_log_likelihoods`); with ``ranks``, P(rank r) of every item (rows by item
    index, NaN for an impossible context); with ``pairs``, P(item ≻ the context's local item
    b)."""
    ic = np.asarray(data.item_context)
    out = []
    prob = np.zeros((data.n_items, np.bincount(ic).max()))
    above = np.zeros_like(prob)
    for c in range(data.n_contexts):
        perms, vals = order_log_likelihoods(data, log_rates, c, tie_rates=tie_rates)
        top = vals.max()
        out.append(top + np.log(np.mean(np.exp(vals - top))))
        members = np.flatnonzero(ic == c)
        if ranks:
            for perm, v in zip(perms, vals, strict=True):
                for r, item in enumerate(perm):
                    prob[item, r] += np.exp(v - top) if top > -np.inf else np.nan
            prob[members] /= prob[members].sum(axis=1, keepdims=True)
        if pairs:
            local = {item: b for b, item in enumerate(members)}
            weight = np.exp(vals - top)
            for perm, w in zip(perms, weight, strict=True):
                for r, item in enumerate(perm):
                    for lower in perm[r + 1 :]:
                        above[item, local[lower]] += w
            above[members] /= weight.sum()
    if pairs:
        return above
    return prob if ranks else np.array(out)
