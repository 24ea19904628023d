"""Textbook forms of the error models' pair-row likelihoods: the oracles the kernels are tested
against (``tests/test_fused_likelihood.py``, ``test_difficulty.py``, ``test_tie_model.py``, …).

Written as the model reads in ``docs/src/tie_model.md`` and ``docs/src/pair_difficulty.md``:
SciPy binomial log-probabilities per order and state, a log-sum-exp over the hard / easy state,
and a log-sum-exp over the latent truth T (or the labelled branch). Slow and plain on purpose; the
package evaluates the same rows with one numba kernel per family
(:mod:`bayes_pairwise.pymc_models.fused`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit
from scipy.stats import binom


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
