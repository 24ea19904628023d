"""Per-verdict error probabilities: how likely is it that a verdict contradicts the truth?

The error models sum the latent true outcome T of every (judge, unordered pair) row out of the
likelihood (METHODS §7.1–7.2, :mod:`bayes_pairwise.pymc_models.likelihoods`). Given the
parameters θ (strengths, error rates, tie rates) of one posterior draw, Bayes' rule gives the
posterior probability of each truth from the two branches of that sum::

    P(T = i≻j | row, θ) = σ(d) e^A / (σ(d) e^A + σ(−d) e^B),        d = s_i − s_j

with A, B the log-probabilities of the row's verdicts given T = i≻j and T = j≻i. A verdict for
``i`` contradicts T with probability 1 − P(T = i≻j | row, θ), a verdict for ``j`` with
P(T = i≻j | row, θ). :func:`verdict_error_probabilities` averages this over the posterior
draws: ``p_error`` = E[P(verdict ≠ T | row, θ) | data], the posterior probability that the
verdict is an error.

* Gold labels fix T: ``p_error`` is then 0 or 1.
* A tie (outcome 0.5) neither agrees with nor contradicts T: its ``p_error`` is NaN (its tie
  terms still enter A and B when the tie rate depends on the position, ``tie_positional``).

The order models (``uniform_order``, ``positional_order``) have one truth per context, an order
of its items, summed out exactly: there a verdict errs with the posterior probability that the
order puts the other item above the one it chose
(:meth:`~bayes_pairwise.pymc_models.order.UniformOrder.verdict_errors`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import NotFittedError
from bayes_pairwise.matrices import pair_counts

__all__ = [
    "check_fitted_to",
    "most_likely_errors",
    "pair_truth_probability",
    "verdict_error_probabilities",
    "verdict_frame",
]

_CHUNK = 256  # posterior draws per vectorised block (memory: chunk × pair rows)


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def pair_truth_probability(
    d: np.ndarray,
    eps_plus: np.ndarray,
    eps_minus: np.ndarray,
    n1: np.ndarray,
    n2: np.ndarray,
    m1: np.ndarray,
    m2: np.ndarray,
    *,
    tie_plus: np.ndarray | None = None,
    tie_minus: np.ndarray | None = None,
    t1: np.ndarray | None = None,
    t2: np.ndarray | None = None,
) -> np.ndarray:
    """P(T = i≻j | row counts, θ) for pair rows, elementwise (broadcasting).

    Parameters
    ----------
    d : array
        ``s_i − s_j``.
    eps_plus, eps_minus : array
        Error rates when the truly better item is shown first / second (the row's judge).
    n1, n2 : array
        Wins of ``i`` among the (non-tie) verdicts with ``i`` first / with ``j`` first.
    m1, m2 : array
        Number of (non-tie) verdicts with ``i`` first / with ``j`` first.
    tie_plus, tie_minus, t1, t2 : array, optional
        Position-dependent tie rates τ₊ (better item first) and τ₋ (second) and the ties per
        order; only needed when τ₊ ≠ τ₋ (otherwise the tie terms cancel).

    Returns
    -------
    ndarray
        Broadcast shape of the inputs.

    Examples
    --------
    One pair, two verdicts for ``i`` with ``i`` first, one win each with ``j`` first, ε = 0.1,
    d = 0.5:

    >>> import numpy as np
    >>> from scipy.special import expit
    >>> p = pair_truth_probability(np.array(0.5), np.array(0.1), np.array(0.1),
    ...                            np.array(2), np.array(1), np.array(2), np.array(2))
    >>> a = expit(0.5) * 0.9**2 * 0.9 * 0.1      # T = i≻j: two right, one right, one wrong
    >>> b = expit(-0.5) * 0.1**2 * 0.1 * 0.9     # T = j≻i: two wrong, one wrong, one right
    >>> bool(np.isclose(p, a / (a + b)))
    True
    """
    ep = np.asarray(eps_plus, dtype=float)
    em = np.asarray(eps_minus, dtype=float)
    n1, n2, m1, m2 = (np.asarray(v, dtype=float) for v in (n1, n2, m1, m2))
    l1p, lp = np.log1p(-ep), np.log(ep)
    l1m, lm = np.log1p(-em), np.log(em)
    with np.errstate(invalid="ignore", divide="ignore"):
        # T = i≻j: with i first the better item is first (1 − ε₊ right), with j first second
        a = _xw(n1, l1p) + _xw(m1 - n1, lp) + _xw(n2, l1m) + _xw(m2 - n2, lm)
        # T = j≻i: with i first the better item is second (ε₋ to pick i), with j first first
        b = _xw(n1, lm) + _xw(m1 - n1, l1m) + _xw(n2, lp) + _xw(m2 - n2, l1p)
    if tie_plus is not None and tie_minus is not None and t1 is not None and t2 is not None:
        tp = np.asarray(tie_plus, dtype=float)
        tm = np.asarray(tie_minus, dtype=float)
        t1, t2 = np.asarray(t1, dtype=float), np.asarray(t2, dtype=float)
        ltp, l1tp, ltm, l1tm = np.log(tp), np.log1p(-tp), np.log(tm), np.log1p(-tm)
        a = a + _xw(t1, ltp) + _xw(m1, l1tp) + _xw(t2, ltm) + _xw(m2, l1tm)
        b = b + _xw(t1, ltm) + _xw(m1, l1tm) + _xw(t2, ltp) + _xw(m2, l1tp)
    d = np.asarray(d, dtype=float)
    log_odds = _log_sigmoid(d) + a - (_log_sigmoid(-d) + b)
    return 1.0 / (1.0 + np.exp(-log_odds))


def _xw(count: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """count · log p with 0 · log 0 = 0 (a rate of exactly 0 with no such verdicts)."""
    return np.where(count == 0, 0.0, count * logp)


def _draws(posterior: Any, name: str) -> np.ndarray:
    da = posterior[name]
    arr = np.asarray(da, dtype=float)
    return arr.reshape((arr.shape[0] * arr.shape[1], *arr.shape[2:]))


def _judge_rates(posterior: Any) -> tuple[np.ndarray, np.ndarray]:
    if "eps_plus" in posterior and "eps_minus" in posterior:
        return _draws(posterior, "eps_plus"), _draws(posterior, "eps_minus")
    eps = _draws(posterior, "eps")
    return eps, eps


def _per_judge(arr: np.ndarray, n_judges: int) -> np.ndarray:
    """(S, J) view of a per-judge draw array (a one-judge fit may store (S,))."""
    return arr.reshape(arr.shape[0], n_judges)


def verdict_error_probabilities(model: Any, data: Comparisons) -> pd.DataFrame:
    """Posterior probability that each verdict contradicts the latent true outcome.

    Parameters
    ----------
    model : UniformError or PositionalBias (or a subclass)
        Fitted (NUTS or MAP) to ``data``.
    data : Comparisons
        The data the model was fitted to (same items, judges and number of verdicts).

    Returns
    -------
    DataFrame
        One row per verdict of ``data``, in the data's order: ``row`` (position in the user's
        input), ``judge``, ``first``, ``second`` (labels), ``outcome`` (1 first wins, 0 second
        wins, 0.5 tie) and ``p_error`` (NaN for ties), plus ``p_first_better``: the posterior
        probability that the first-shown item is truly better.

    Raises
    ------
    NotFittedError
        Before ``fit``.
    ValueError
        ``data`` is not the data the model was fitted to, or the model has no latent truth.

    Examples
    --------
    >>> import pandas as pd
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformError
    >>> df = pd.DataFrame({"first": ["a", "a", "b", "b"], "second": ["b", "b", "a", "a"],
    ...                    "outcome": ["first", "first", "second", "first"]})
    >>> data = bp.load_comparisons(df)
    >>> m = UniformError().fit(data, method="map", random_seed=0)
    >>> v = verdict_error_probabilities(m, data)
    >>> v.columns.tolist()
    ['row', 'judge', 'first', 'second', 'outcome', 'p_error', 'p_first_better']
    >>> bool(v.p_error.iloc[3] > v.p_error.iloc[0])  # the one verdict for b is the suspect
    True
    """
    unit = getattr(model, "observed_name", "")
    if unit == "contexts":  # the order models: the truth is each context's order
        return model.verdict_errors(data)
    check_fitted_to(model, data)
    if unit != "wins":
        raise ValueError(
            f"{type(model).__name__} has no latent true outcome per pair; per-verdict error "
            "probabilities need an error model (uniform, positional, their variants, or the "
            "order models uniform_order and positional_order)"
        )
    idata = model.idata_
    post = idata.posterior
    n_items, n_judges = data.n_items, data.n_judges
    strength = _draws(post, "strength").reshape(-1, n_items)
    eps_plus, eps_minus = (_per_judge(r, n_judges) for r in _judge_rates(post))
    outcome = np.asarray(data.outcome, dtype=float)
    first = np.asarray(data.first, dtype=np.int64)
    second = np.asarray(data.second, dtype=np.int64)
    vjudge = np.asarray(data.judge, dtype=np.int64)
    tie = outcome == 0.5
    n_draws = strength.shape[0]

    n_counts = int(idata.observed_data["wins"].shape[-1])
    tie_model = n_counts == 4
    fit_data = data if tie_model or not tie.any() else data.drop_ties()
    pc = pair_counts(fit_data)
    m1 = (pc.k_plus - pc.t1).astype(float)
    m2 = (pc.k_minus - pc.t2).astype(float)
    n1 = np.asarray(pc.n1, dtype=float) - 0.5 * pc.t1
    n2 = np.asarray(pc.n2, dtype=float) - 0.5 * pc.t2
    positional_ties = tie_model and "tie_rate_plus" in post
    if positional_ties:
        logit = _draws(post, "tie_logit").reshape(n_draws, n_judges, 2)
        closeness = (
            _per_judge(_draws(post, "tie_closeness"), n_judges)
            if "tie_closeness" in post
            else np.zeros((n_draws, n_judges))
        )
    p_pair = np.zeros(len(pc.i))
    for lo in range(0, n_draws, _CHUNK):
        sl = slice(lo, lo + _CHUNK)
        d = strength[sl][:, pc.i] - strength[sl][:, pc.j]
        kw: dict[str, Any] = {}
        if positional_ties:
            shrink = closeness[sl][:, pc.judge] * np.abs(d)
            kw = {
                "tie_plus": _sigmoid(logit[sl][:, pc.judge, 0] - shrink),
                "tie_minus": _sigmoid(logit[sl][:, pc.judge, 1] - shrink),
                "t1": pc.t1,
                "t2": pc.t2,
            }
        p = pair_truth_probability(
            d,
            eps_plus[sl][:, pc.judge],
            eps_minus[sl][:, pc.judge],
            n1,
            n2,
            m1,
            m2,
            **kw,
        )
        p_pair += p.sum(axis=0)
    p_pair /= n_draws
    truth = np.asarray(pc.truth, dtype=np.int64)
    p_pair = np.where(truth >= 0, (truth == 1).astype(float), p_pair)
    # each verdict's pair row (pair rows are sorted by (judge, i, j))
    key_pc = (pc.judge.astype(np.int64) * n_items + pc.i) * n_items + pc.j
    lo_v, hi_v = np.minimum(first, second), np.maximum(first, second)
    key_v = (vjudge * n_items + lo_v) * n_items + hi_v
    pos = np.clip(np.searchsorted(key_pc, key_v), 0, len(key_pc) - 1)
    found = key_pc[pos] == key_v
    p_i = np.where(found, p_pair[pos], np.nan)
    p_first = np.where(first == lo_v, p_i, 1.0 - p_i)
    return verdict_frame(data, p_first)


def check_fitted_to(model: Any, data: Comparisons) -> None:
    """Raise unless ``model`` is fitted and ``data`` is the log it was fitted to (the same
    items, judges and number of verdicts): what a per-verdict table needs.

    Raises
    ------
    NotFittedError
        Before ``fit``.
    TypeError
        ``data`` is not a :class:`~bayes_pairwise.data.Comparisons`.
    ValueError
        Other data.

    Examples
    --------
    >>> import pandas as pd
    >>> import bayes_pairwise as bp
    >>> data = bp.load_comparisons(pd.DataFrame({"first": ["a"], "second": ["b"],
    ...                                          "outcome": ["first"]}))
    >>> check_fitted_to(bp.UniformError(), data)
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.NotFittedError: this UniformError is not fitted yet: call fit(data)
    """
    if not hasattr(model, "idata_"):
        raise NotFittedError(f"this {type(model).__name__} is not fitted yet: call fit(data)")
    if not isinstance(data, Comparisons):
        raise TypeError(f"data must be a Comparisons object, got {type(data).__name__}")
    if (
        tuple(data.items) != tuple(model.items_)
        or tuple(data.judges) != tuple(model.judges_)
        or int(data.n_comparisons) != int(model.n_comparisons_)
    ):
        raise ValueError(
            "data is not the data the model was fitted to (items, judges or number of "
            "verdicts differ)"
        )


def verdict_frame(data: Comparisons, p_first: np.ndarray) -> pd.DataFrame:
    """The per-verdict table from each verdict's P(the first-shown item is truly better).

    A verdict for the first item errs with probability 1 − ``p_first``, one for the second
    with ``p_first``; a tie has no ``p_error`` (NaN).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import bayes_pairwise as bp
    >>> data = bp.load_comparisons(pd.DataFrame({"first": ["a", "b", "a"],
    ...     "second": ["b", "a", "b"], "outcome": ["first", "first", "tie"]}))
    >>> verdict_frame(data, np.array([0.9, 0.1, 0.9]))["p_error"].round(2).tolist()
    [0.1, 0.9, nan]
    """
    outcome = np.asarray(data.outcome, dtype=float)
    p_first = np.clip(np.asarray(p_first, dtype=float), 0.0, 1.0)  # sums of weights round
    p_error = np.where(outcome == 1.0, 1.0 - p_first, p_first)
    p_error = np.where(outcome == 0.5, np.nan, p_error)
    items = np.asarray(data.items, dtype=object)
    judges = np.asarray(data.judges, dtype=object)
    return pd.DataFrame(
        {
            "row": np.asarray(data.row, dtype=np.int64),
            "judge": judges[np.asarray(data.judge, dtype=np.int64)],
            "first": items[np.asarray(data.first, dtype=np.int64)],
            "second": items[np.asarray(data.second, dtype=np.int64)],
            "outcome": outcome,
            "p_error": p_error,
            "p_first_better": p_first,
        }
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def most_likely_errors(verdicts: pd.DataFrame, *, per_judge: int = 5) -> pd.DataFrame:
    """The verdicts most likely wrong, ``per_judge`` per judge, highest ``p_error`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> v = pd.DataFrame({"judge": ["a", "a", "b"], "p_error": [0.1, 0.7, 0.2]})
    >>> most_likely_errors(v, per_judge=1).p_error.tolist()
    [0.7, 0.2]
    """
    ordered = verdicts.dropna(subset=["p_error"]).sort_values(
        ["judge", "p_error"], ascending=[True, False], kind="stable"
    )
    return ordered.groupby("judge", sort=True).head(int(per_judge)).reset_index(drop=True)
