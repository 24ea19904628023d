"""Gold labels that settle what a judge log cannot show (issue 25, METHODS §7.6).

Without labels a pair's error count is fixed only up to its true order T: an inconsistent pair
(decided both ways) holds exactly one error of a known kind whatever T is, but a consistent
pair holds none or two, and a pair decided in one order only holds none or one. Only the
second kind of pair — *ambiguous* rows — carries information a label can add.

* :func:`label_informed_rates` estimates the log's ε₊, ε₋ and ε from every verdict and every
  label: known rows count exactly, labelled rows count at their label, and the unlabelled
  ambiguous rows are filled in stratum by stratum (a stratum = one pattern of verdicts) from
  the share of labelled rows of the same pattern whose truth is the more-errors one. The
  interval is the central :data:`~bayes_pairwise.conventions.HDI_PROB` interval of the rate
  under a uniform prior on each stratum's share and a binomial draw of the unlabelled rows
  (the rate of *this* log, a finite population).
* :func:`plan_labels` picks the pairs whose labels shrink the ε₊ / ε₋ intervals most: it
  allocates the budget to strata greedily by the reduction of the predicted variance (a Neyman
  allocation; within a stratum pairs are drawn at random, which keeps the estimator unbiased)
  and never spends a label on a row whose errors are already known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.classical.bounds import pair_error_counts
from bayes_pairwise.conventions import HDI_PROB, interval_label, name_list, z_value
from bayes_pairwise.data import Comparisons

__all__ = [
    "PLANNING_SHARE",
    "LabelPlan",
    "label_informed_rates",
    "plan_labels",
]

#: Planning value of a stratum's share of more-errors truths when the log holds too few labels
#: to estimate it: 0.5 maximises q(1 − q), so the expected widths are upper bounds.
PLANNING_SHARE = 0.5
#: Labelled ambiguous rows needed before the planner uses their share instead.
MIN_LABELS_FOR_SHARE = 10
#: Monte Carlo draws of :func:`label_informed_rates`.
N_DRAWS = 4000
_Q = ("eps_plus", "eps_minus", "eps")


@dataclass(frozen=True)
class _Strata:
    judge: str
    rows: np.ndarray  # pair rows of this judge
    known: np.ndarray  # (4,) totals of rows whose counts do not depend on T
    labelled: np.ndarray  # (4,) totals of labelled ambiguous rows at their label
    stratum: np.ndarray  # per ambiguous row: stratum id (−1 for known rows)
    low: np.ndarray  # (S, 4) counts of a stratum's rows under the fewer-errors truth
    high: np.ndarray  # (S, 4) under the more-errors truth
    n_lab: np.ndarray  # (S,) labelled ambiguous rows
    n_high: np.ndarray  # (S,) of which at the more-errors truth
    n_unlab: np.ndarray  # (S,) unlabelled ambiguous rows
    unlab_rows: np.ndarray  # unlabelled ambiguous pair rows
    unlab_stratum: np.ndarray


def _strata(pe: dict[str, np.ndarray], jdx: int, judge: str, use_labels: bool) -> _Strata:
    c = pe["counts"]
    rows = np.flatnonzero((pe["judge"] == jdx) & (c[:, 0, [1, 3]].sum(axis=1) > 0))
    cr = c[rows]
    known = np.all(cr[:, 0] == cr[:, 1], axis=1)
    err = cr[:, :, 0] + cr[:, :, 2]  # errors under each truth
    hi_branch = (err[:, 1] > err[:, 0]) | ((err[:, 1] == err[:, 0]) & (cr[:, 1, 1] > cr[:, 0, 1]))
    low = np.where(hi_branch[:, None], cr[:, 0], cr[:, 1])
    high = np.where(hi_branch[:, None], cr[:, 1], cr[:, 0])
    truth = pe["truth"][rows] if use_labels else np.full(rows.size, -1)
    lab = truth >= 0
    # truth 1 → branch 0 (T = i≻j); branch 1 is the high one when hi_branch
    at_high = lab & ((truth == 0) == hi_branch)
    amb = ~known
    key = np.concatenate([low, high], axis=1)
    sid = np.full(rows.size, -1)
    if amb.any():
        _, inv = np.unique(key[amb], axis=0, return_inverse=True)
        sid[amb] = inv.ravel()
    n_s = int(sid.max()) + 1
    low_s = np.zeros((n_s, 4))
    high_s = np.zeros((n_s, 4))
    low_s[sid[amb]] = low[amb]
    high_s[sid[amb]] = high[amb]
    lab_amb = lab & amb
    labelled = np.where(at_high[lab_amb, None], high[lab_amb], low[lab_amb]).sum(axis=0)
    un = amb & ~lab
    return _Strata(
        judge=judge,
        rows=rows,
        known=cr[known, 0].sum(axis=0),
        labelled=labelled if lab_amb.any() else np.zeros(4),
        stratum=sid,
        low=low_s,
        high=high_s,
        n_lab=np.bincount(sid[lab_amb], minlength=n_s).astype(float),
        n_high=np.bincount(sid[at_high & amb], minlength=n_s).astype(float),
        n_unlab=np.bincount(sid[un], minlength=n_s).astype(float),
        unlab_rows=rows[un],
        unlab_stratum=sid[un],
    )


def _num_den(v: np.ndarray) -> dict[str, tuple[Any, Any]]:
    return {
        "eps_plus": (v[..., 0], v[..., 1]),
        "eps_minus": (v[..., 2], v[..., 3]),
        "eps": (v[..., 0] + v[..., 2], v[..., 1] + v[..., 3]),
    }


def label_informed_rates(
    data: Comparisons,
    *,
    prob: float = HDI_PROB,
    use_labels: bool = True,
    n_draws: int = N_DRAWS,
    random_seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """ε₊, ε₋ and ε of the log from the verdicts and the gold labels, per judge.

    Rows whose errors do not depend on the truth (an inconsistent pair: one error of known
    kind) count exactly; labelled rows count at their label; each stratum of unlabelled
    ambiguous rows (same verdict pattern) is filled in from its labelled rows (uniform prior on
    the share at the more-errors truth, a binomial draw for the unlabelled rows). Without any
    label a stratum's share is uniform, and the interval is nearly the sharp bounds.

    Parameters
    ----------
    data : Comparisons
    prob : float
        Level of the central intervals (:data:`HDI_PROB`).
    use_labels : bool
        False: ignore the labels (the interval then spans nearly the whole sharp range).
    n_draws : int
    random_seed : int or Generator, optional

    Returns
    -------
    DataFrame
        One row per (judge, quantity): ``judge``, ``quantity``, ``estimate`` (posterior mean),
        ``lower``, ``upper``, ``n_labelled``, ``n_ambiguous``.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=300, labelled=1.0, random_seed=0)
    >>> r = label_informed_rates(sim.data).set_index("quantity")
    >>> bool(abs(r.loc["eps_plus", "estimate"] - sim.realised_eps_plus) < 1e-9)  # all labelled
    True
    """
    rng = np.random.default_rng(random_seed)
    pe = pair_error_counts(data)
    a = (1 - prob) / 2
    out = []
    for jdx, judge in enumerate(data.judges):
        st = _strata(pe, jdx, str(judge), use_labels)
        if st.rows.size == 0:
            continue
        q = rng.beta(st.n_high + 1, st.n_lab - st.n_high + 1, size=(n_draws, st.n_lab.size))
        r = rng.binomial(st.n_unlab.astype(np.int64), q)  # (D, S) unlabelled at the high truth
        tot = st.known + st.labelled + r @ st.high + (st.n_unlab[None] - r) @ st.low  # (D, 4)
        for name, (num, den) in _num_den(tot).items():
            with np.errstate(invalid="ignore", divide="ignore"):
                rate = num / den
            out.append(
                {
                    "judge": str(judge),
                    "quantity": name,
                    "estimate": float(np.nanmean(rate)),
                    "lower": float(np.nanquantile(rate, a)),
                    "upper": float(np.nanquantile(rate, 1 - a)),
                    "n_labelled": int(st.n_lab.sum()),
                    "n_ambiguous": int(st.n_lab.sum() + st.n_unlab.sum()),
                }
            )
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------ planning
@dataclass(frozen=True)
class LabelPlan:
    """The pairs to send for gold labels, and what they should buy.

    Attributes
    ----------
    pairs : DataFrame
        ``first``, ``second`` (the pair's items, by name), ``context`` and ``score`` (the
        reduction of the predicted variance of ε₊ + ε₋ its label brings, in the order chosen),
        best first.
    expected_width : dict
        Per quantity (``eps_plus``, ``eps_minus``, ``eps``): the predicted width of the
        interval ``now`` (with the labels the log already holds), ``planned`` (after labelling
        ``pairs``) and ``random`` (after the same number of labels on random pairs), and
        ``assumed_share``: the share of ambiguous rows assumed wrong-more-often in the
        prediction (:data:`PLANNING_SHARE` — the worst case — unless the log's labels estimate
        it).
    judge : str
    n_ambiguous, n_known : int
        Pair rows a label can inform / whose errors are already known.
    """

    pairs: pd.DataFrame
    expected_width: dict[str, Any]
    judge: str
    n_ambiguous: int
    n_known: int
    _strata: Any = None
    _share: float = PLANNING_SHARE

    def to_dict(self) -> dict[str, Any]:
        """``{"pairs": [{"first", "second", "context", "score"}…], "expected_width": {…}}``."""
        return {
            "judge": self.judge,
            "pairs": self.pairs.to_dict(orient="records"),
            "expected_width": self.expected_width,
            "n_ambiguous": self.n_ambiguous,
            "n_known": self.n_known,
        }

    def labels_for_width(self, width: float, *, quantity: str = "both") -> int | None:
        """How many planned labels bring the predicted interval width to ``width`` or less.

        ``quantity``: ``"eps_plus"``, ``"eps_minus"``, ``"eps"`` or ``"both"`` (ε₊ and ε₋).
        None when even labelling every ambiguous row does not (impossible: full labelling gives
        width 0, so None only for ``width < 0``).

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_hard_pairs
        >>> sim = simulate_hard_pairs(2, n_contexts=400, labelled=0.0, random_seed=0)
        >>> plan = plan_labels(sim.data, 10)
        >>> plan.labels_for_width(0.2) < plan.labels_for_width(0.1)
        True
        """
        if width < 0:
            return None
        st = self._strata
        alloc = np.zeros(st.n_lab.size)
        weight = _weight(st, self._share)
        qs = ("eps_plus", "eps_minus") if quantity == "both" else (quantity,)
        total = int(st.n_unlab.sum())
        for m in range(total + 1):
            w = _widths(st, alloc, self._share)
            if all(w[q] <= width for q in qs):
                return m
            if m == total:
                break
            alloc[_best_stratum(st, alloc, self._share, weight)] += 1
        return None


def _gradients(st: _Strata, share: float) -> dict[str, np.ndarray]:
    """d(rate)/d(count of a stratum's unlabelled rows at the high truth), per stratum, at the
    planning share (the same whatever is labelled: the expected counts do not move)."""
    mid = (
        st.known + st.labelled + (st.n_lab + st.n_unlab) @ (st.low * (1 - share) + st.high * share)
    )
    diff = _num_den(st.high - st.low)
    out = {}
    for name, (num, den) in _num_den(mid).items():
        dn, dd = diff[name]
        out[name] = (dn - (num / den) * dd) / den if den > 0 else np.zeros_like(dn)
    return out


def _var_r(st: _Strata, alloc: np.ndarray, share: float) -> np.ndarray:
    """Beta-binomial predictive variance of each stratum's unlabelled high count."""
    lab = st.n_lab + alloc
    un = st.n_unlab - alloc
    return un * share * (1 - share) * (lab + 2 + un) / (lab + 3)


def _widths(st: _Strata, alloc: np.ndarray, share: float) -> dict[str, float]:
    z = z_value()
    v = _var_r(st, alloc, share)
    return {k: float(2 * z * np.sqrt(np.sum(g**2 * v))) for k, g in _gradients(st, share).items()}


def _best_stratum(st: _Strata, alloc: np.ndarray, share: float, weight: np.ndarray) -> int:
    """The stratum whose next label reduces Σ weight · var most (weight = g₊² + g₋²)."""
    room = alloc < st.n_unlab
    gain = weight * (
        _var_r(st, alloc, share) - _var_r(st, np.minimum(alloc + 1, st.n_unlab), share)
    )
    return int(np.argmax(np.where(room, gain, -np.inf)))


def _weight(st: _Strata, share: float) -> np.ndarray:
    g = _gradients(st, share)
    return g["eps_plus"] ** 2 + g["eps_minus"] ** 2


def plan_labels(
    data: Comparisons,
    budget: int,
    *,
    judge: str | None = None,
    share: float | None = None,
    random_seed: int | np.random.Generator | None = 0,
) -> LabelPlan:
    """The ``budget`` pairs whose gold labels shrink the ε₊ / ε₋ intervals most.

    Order-inconsistent pairs hide no error (their one error and its kind are known whatever
    the truth), so labels go to the pairs that can hide errors: consistent pairs (right twice or
    wrong twice) and pairs decided in one order only, stratum by stratum (one stratum per
    verdict pattern) where a label reduces the predicted variance of ε₊ + ε₋ most, at random
    within a stratum. The estimate after labelling is :func:`label_informed_rates`.

    Parameters
    ----------
    data : Comparisons
        One judge's log (or pass ``judge``); labels already present count as labelled.
    budget : int
        Number of pairs to label (at most the unlabelled ambiguous pairs).
    judge : str, optional
        Which judge to plan for when the log has several.
    share : float, optional
        Assumed share of ambiguous rows at their more-errors truth, for the predicted widths
        (default: estimated from the log's labels when it holds at least
        :data:`MIN_LABELS_FOR_SHARE` labelled ambiguous rows, else :data:`PLANNING_SHARE`).
        It does not change which pairs are chosen.
    random_seed : int or Generator, optional
        Which pairs within a stratum.

    Returns
    -------
    LabelPlan

    Raises
    ------
    ValueError
        A negative budget, or several judges and no ``judge``.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=400, labelled=0.0, random_seed=0)
    >>> plan = plan_labels(sim.data, 50)
    >>> len(plan.pairs), list(plan.pairs.columns)
    (50, ['first', 'second', 'context', 'score'])
    >>> w = plan.expected_width["eps_plus"]
    >>> bool(w["planned"] < w["random"] < w["now"])
    True
    """
    budget = int(budget)
    if budget < 0:
        raise ValueError(f"budget must be a non-negative number of pairs, got {budget}")
    if data.n_judges > 1 and judge is None:
        raise ValueError(
            f"the log has {data.n_judges} judges ({name_list(data.judges)}); plan labels for "
            "one of them (judge=…, CLI --judge)"
        )
    jdx = data.judge_index(judge) if judge is not None else 0
    rng = np.random.default_rng(random_seed)
    pe = pair_error_counts(data)
    st = _strata(pe, jdx, str(data.judges[jdx]), True)
    if share is None:
        share = (
            float((st.n_high.sum() + 0.5) / (st.n_lab.sum() + 1))
            if st.n_lab.sum() >= MIN_LABELS_FOR_SHARE
            else PLANNING_SHARE
        )
    alloc = np.zeros(st.n_lab.size)
    order: list[int] = []
    scores: list[float] = []
    budget = min(budget, int(st.n_unlab.sum()))
    weight = _weight(st, share)
    for _ in range(budget):
        s = _best_stratum(st, alloc, share, weight)
        before = _var_r(st, alloc, share)[s]
        alloc[s] += 1
        order.append(s)
        scores.append(float(weight[s] * (before - _var_r(st, alloc, share)[s])))
    # within a stratum: pairs at random
    pools = {
        s: list(rng.permutation(st.unlab_rows[st.unlab_stratum == s])) for s in np.unique(order)
    }
    chosen = [pools[s].pop() for s in order]
    items = np.asarray(data.item_names, dtype=object)
    ctx_of = np.asarray(data.item_context)
    contexts = np.asarray(data.contexts, dtype=object)
    ci = np.asarray(chosen, dtype=np.int64)
    pairs = pd.DataFrame(
        {
            "first": items[pe["i"][ci]] if ci.size else [],
            "second": items[pe["j"][ci]] if ci.size else [],
            "context": contexts[ctx_of[pe["i"][ci]]] if ci.size else [],
            "score": np.asarray(scores, dtype=float),
        }
    )
    # random labels of the same number land on every unlabelled row alike
    n_rows_unlab = int(st.n_unlab.sum()) + int(np.sum(st.stratum < 0))
    frac = budget / max(n_rows_unlab, 1)
    now = _widths(st, np.zeros_like(alloc), share)
    planned = _widths(st, alloc, share)
    rand = _widths(st, st.n_unlab * frac, share)
    expected = {
        q: {"now": float(now[q]), "planned": float(planned[q]), "random": float(rand[q])}
        for q in _Q
    }
    expected["assumed_share"] = float(share)
    expected["interval"] = f"{interval_label()} (normal approximation)"
    return LabelPlan(
        pairs=pairs,
        expected_width=expected,
        judge=str(data.judges[jdx]),
        n_ambiguous=int(st.n_lab.sum() + st.n_unlab.sum()),
        n_known=int(np.sum(st.stratum < 0)),
        _strata=st,
        _share=float(share),
    )
