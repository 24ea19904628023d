"""Is pair difficulty (errors correlated within a pair) identified by this log? (issue 25)

:func:`identification` answers per judge, from the data, with a status (``identified`` /
``weakly identified`` / ``not identified``), a number and a sentence:

* **gold labels** on part of the pairs identify it: the labelled pairs show how often both
  orders err together. Number: the labelled pairs decided in both orders, and the within-pair
  association among them (both-wrong share observed vs expected under independent errors at the
  labelled rates; one-sided Fisher exact test) — see :func:`labelled_pair_correlation`;
* **repeats** in both orders (k ≥ 2) make it testable (``within_pair_correlation``), but pairs
  wrong in every repeat still look like reversed truths: weakly identified;
* **2-item contexts** without labels: every truth assignment of a pair is compatible with its
  verdicts, so the share of pairs wrong twice is free (METHODS §7.6): not identified, number 0;
* **round robins** (contexts of ≥ 3 items) without labels: only transitivity can reveal a pair
  judged wrong in both orders (a consistent pair against the order its neighbours imply is a
  cycle). Measured by a quick simulation on this log's own design (its pairs, orders and tie
  pattern): the statistic is the share of decided verdicts that *must* be wrong beyond the
  order-inconsistent ones (the sharp lower bound's excess,
  :func:`~bayes_pairwise.classical.bounds.error_bounds`); the number is its separation d′
  between independent errors at the log's order-inconsistent rates and a log where
  :data:`REFERENCE_HARD_SHARE` of the pairs are hard (error :data:`REFERENCE_EPS_HARD` in both
  orders), in standard deviations. d′ ≥ :data:`IDENTIFIED_AT`: identified; ≥
  :data:`WEAKLY_AT`: weakly identified; else not identified.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from bayes_pairwise.conventions import integer_seed, judge_rng
from bayes_pairwise.data import Comparisons

__all__ = [
    "IDENTIFIED_AT",
    "MANY_REPEATS",
    "NOT_APPLICABLE_LEAD",
    "NOT_APPLICABLE_SHARED",
    "REFERENCE_EPS_HARD",
    "REFERENCE_HARD_SHARE",
    "WEAKLY_AT",
    "Identification",
    "bounds_read",
    "fit_estimand",
    "has_repeats",
    "identification",
    "labelled_pair_correlation",
    "rate_convergence",
    "rates_read",
    "reads_as",
    "repeats_reading",
    "what_the_log_shows",
]

#: The correlated-error alternative the simulation check must detect: 25% hard pairs …
REFERENCE_HARD_SHARE = 0.25
#: … judged wrong with probability 0.6 in both orders (the issue's reference judge).
REFERENCE_EPS_HARD = 0.6
#: Separation (in standard deviations) from which the design identifies pair difficulty.
IDENTIFIED_AT = 3.0
#: … and from which it does so weakly.
WEAKLY_AT = 1.0
#: The statement for a judge with no pair decided in both orders: this lead, the judge's
#: count, then this explanation (several judges' are said as one caveat, their counts each).
NOT_APPLICABLE_LEAD = "Pair difficulty: not applicable — "
NOT_APPLICABLE_SHARED = (
    " No error can then repeat across the orders of a pair: there is no order-inconsistent "
    "rate to read low. The rates rest on the models' transitivity alone (S_com and the "
    "moments need pairs in both orders); gold labels on some pairs (--truth-column) are the "
    "direct check."
)
#: Simulated logs per hypothesis in the check.
N_SIMULATIONS = 20
#: One-sided p-value below which labelled pairs show within-pair correlation.
CORRELATION_ALPHA = 0.05
#: Median verdicts per (judge, pair) with repeats from which, in a log without contexts, the
#: repeats may be answers to different prompts (a battle log of systems, as Chatbot Arena's),
#: which the within-pair tests cannot tell from re-judgements of one pair of texts.
MANY_REPEATS = 20


@dataclass(frozen=True)
class Identification:
    """Whether this log identifies pair difficulty, for one judge.

    Attributes
    ----------
    judge : str
    status : {"identified", "weakly identified", "not identified", "not assessed"}
    measure : float
        The number behind the status (see ``measure_name``).
    measure_name : str
    basis : {"labels", "repeats", "two-item contexts", "transitivity", "no pairs"}
    text : str
        The sentence printed with the fit.
    correlation : dict or None
        With labels: :func:`labelled_pair_correlation`.
    """

    judge: str
    status: str
    measure: float
    measure_name: str
    basis: str
    text: str
    correlation: dict[str, Any] | None = None
    #: The check found the log's errors correlated within pairs (labelled pairs wrong in both
    #: orders beyond independence, or an excess beyond every-but-5 % of the simulated logs
    #: with independent errors); None where it could not say.
    correlated: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


def has_repeats(data: Comparisons) -> bool:
    """True when some (judge, pair) row has ≥ 2 non-tie verdicts in each order.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> has_repeats(simulate_round_robin(5, repeats=2, random_seed=0).data)
    True
    >>> has_repeats(simulate_round_robin(5, random_seed=0).data)
    False
    """
    from bayes_pairwise.matrices import pair_counts

    pc = pair_counts(data)
    m1 = np.asarray(pc.k_plus - pc.t1)
    m2 = np.asarray(pc.k_minus - pc.t2)
    return bool(np.any((m1 >= 2) & (m2 >= 2)))


def repeats_reading(data: Comparisons) -> str | None:
    """What a pair's repeats may be in this log, where that changes what the within-pair tests
    say; ``None`` where nothing in the log calls their reading into question.

    The within-pair correlation test (and pair difficulty read from repeats) assume that a
    pair's repeats re-judge the same two texts, shown in a known order. Computed from the log:
    whether the presentation order is recorded, and — without a context column — whether a
    pair's repeats are so many (median ≥ :data:`MANY_REPEATS` verdicts) that they may be
    answers to different prompts, as in a battle log of systems.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> repeats_reading(simulate_round_robin(5, repeats=2, random_seed=0).data) is None
    True
    >>> print(repeats_reading(simulate_round_robin(5, repeats=15, random_seed=0).data))
    ... # doctest: +ELLIPSIS
    What a pair's repeats are in this log: it has no context column and a pair's repeats are 30 ...
    """
    from bayes_pairwise.matrices import pair_counts

    parts = []
    if not data.order_recorded:
        parts.append(
            "the presentation order is not recorded, so a pair's 'two orders' are its nominal "
            "first/second labels"
        )
    pc = pair_counts(data)
    n = np.asarray(pc.k_plus + pc.k_minus)
    n = n[n >= 2]
    median = float(np.median(n)) if n.size else 0.0
    if not data.has_contexts and median >= MANY_REPEATS:
        parts.append(
            f"it has no context column and a pair's repeats are {median:g} verdicts "
            "(median over the pairs judged more than once): if they answer different prompts "
            "(a battle log of systems), agreement beyond independence says how consistently "
            "one system beats the other across prompts, not that the same two texts fool the "
            "judge in both orders; give each prompt as a context (--context-column) to test "
            "pairs of texts"
        )
    if not parts:
        return None
    return (
        "What a pair's repeats are in this log: "
        + "; ".join(parts)
        + ". The within-pair correlation test and pair difficulty read from repeats assume "
        "re-judgements of one pair of texts in a known order."
    )


def labelled_pair_correlation(data: Comparisons) -> dict[str, Any] | None:
    """Within-pair association of errors on labelled pairs decided once in each order.

    Each such pair has an error indicator with the better item first (e₊) and second (e₋).
    Under independent errors P(both wrong) = P(e₊) P(e₋); hard pairs make both-wrong pairs more
    common. Returns ``n_pairs``, ``both_wrong`` (observed), ``expected`` (n · ê₊ · ê₋),
    ``odds_ratio`` and the one-sided Fisher exact ``p_value``, and ``correlated`` (p below
    :data:`CORRELATION_ALPHA`); None when fewer than 10 such pairs.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=400, hard_share=0.25, tie_rate=0.0,
    ...                           labelled=0.5, random_seed=0)
    >>> labelled_pair_correlation(sim.data)["correlated"]
    True
    """
    from scipy.stats import fisher_exact

    from bayes_pairwise.classical.bounds import pair_error_counts

    pe = pair_error_counts(data)
    c = pe["counts"]
    t = pe["truth"]
    branch = np.where(t == 1, 0, 1)
    cc = c[np.arange(t.size), branch]  # counts at the label
    keep = (t >= 0) & (cc[:, 1] == 1) & (cc[:, 3] == 1)
    if keep.sum() < 10:
        return None
    ep = cc[keep, 0] > 0
    em = cc[keep, 2] > 0
    table = [
        [int(np.sum(ep & em)), int(np.sum(ep & ~em))],
        [int(np.sum(~ep & em)), int(np.sum(~ep & ~em))],
    ]
    odds, p = fisher_exact(table, alternative="greater")
    n = int(keep.sum())
    return {
        "n_pairs": n,
        "both_wrong": table[0][0],
        "expected": float(n * ep.mean() * em.mean()),
        "odds_ratio": float(odds),
        "p_value": float(p),
        "correlated": bool(p < CORRELATION_ALPHA),
    }


def _status(d: float) -> str:
    if d >= IDENTIFIED_AT:
        return "identified"
    return "weakly identified" if d >= WEAKLY_AT else "not identified"


def _simulate_excess(
    pe: dict[str, np.ndarray], rows: np.ndarray, rates, rng, design: Any = None
) -> float:
    """The sharp lower bound's excess over the free-pair one on one simulated log of the same
    design (decided verdicts per order as observed, truth a random order per context);
    ``design``: :func:`~bayes_pairwise.classical.bounds.excess_design` of these rows."""
    from bayes_pairwise.classical.bounds import sharp_lower_excess

    e_plus, e_minus, share, e_hard = rates
    c = pe["counts"][rows]
    m1, m2 = c[:, 0, 1], c[:, 0, 3]
    ctx = pe["context"][rows]
    # a random total order per context: a random score per item of these rows (drawn for them
    # only, so a judge's check does not depend on the other judges in the log)
    items, inv = np.unique(np.concatenate([pe["i"][rows], pe["j"][rows]]), return_inverse=True)
    score = rng.random(items.size)[inv]
    i_better = score[: rows.size] > score[rows.size :]
    hard = rng.random(rows.size) < share
    r_first = np.where(hard, e_hard, e_plus)  # better item shown first
    r_second = np.where(hard, e_hard, e_minus)
    # i first: better first iff i better
    rate_i_first = np.where(i_better, r_first, r_second)
    rate_j_first = np.where(i_better, r_second, r_first)
    err1 = rng.binomial(m1.astype(np.int64), rate_i_first)
    err2 = rng.binomial(m2.astype(np.int64), rate_j_first)
    x1 = np.where(i_better, m1 - err1, err1)  # wins of i with i first
    x2 = np.where(i_better, m2 - err2, err2)  # wins of i with j first
    counts = np.empty((rows.size, 2, 4))
    counts[:, 0] = np.stack([m1 - x1, m1, m2 - x2, m2], axis=1)
    counts[:, 1] = np.stack([x2, m2, x1, m1], axis=1)
    sim = {
        "i": pe["i"][rows],
        "j": pe["j"][rows],
        "judge": np.zeros(rows.size, dtype=np.int64),
        "context": ctx,
        "truth": np.full(rows.size, -1),
        "counts": counts,
    }
    return sharp_lower_excess(sim, design=design)


def identification(
    data: Comparisons,
    *,
    n_simulations: int = N_SIMULATIONS,
    random_seed: int | np.random.Generator | None = 0,
) -> list[Identification]:
    """Per judge: does this log identify pair difficulty, and how well?

    See the module docstring for the rules and the simulation check.

    Parameters
    ----------
    data : Comparisons
    n_simulations : int
        Simulated logs per hypothesis in the transitivity check.
    random_seed : int or Generator, optional

    Returns
    -------
    list of Identification
        One per judge with decided verdicts.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=200, labelled=0.0, random_seed=0)
    >>> identification(sim.data)[0].status
    'not identified'
    """
    seed = integer_seed(random_seed)
    seeded = seed is not None
    key = (int(n_simulations), seed)
    done = _DONE.get(data, {}).get(key) if seeded else None
    if done is not None:  # the same log, the same seed: the same answer, computed once
        return list(done)
    out = _identification(data, n_simulations=n_simulations, random_seed=random_seed)
    if seeded:
        _DONE.setdefault(data, {})[key] = tuple(out)
    return out


#: Results of :func:`identification` per log object and (simulations, seed): ``fit`` states
#: the caveats and ``fit --json`` what the log can show from one simulation, not two.
_DONE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _identification(
    data: Comparisons, *, n_simulations: int, random_seed: int | np.random.Generator | None
) -> list[Identification]:
    from bayes_pairwise.classical.bounds import MAX_ENUMERATED_ITEMS, pair_error_counts

    pe = pair_error_counts(data)
    c = pe["counts"]
    out: list[Identification] = []
    for jdx, judge in enumerate(data.judges):
        rows = np.flatnonzero((pe["judge"] == jdx) & (c[:, 0, [1, 3]].sum(axis=1) > 0))
        j = str(judge)
        rng = judge_rng(random_seed, j)  # the same alone or beside other judges
        if rows.size == 0:
            continue
        block = data.for_judge(j) if data.n_judges > 1 else data
        if data.has_truth and np.any(pe["truth"][rows] >= 0):
            corr = labelled_pair_correlation(block)
            n_lab = int(np.sum(pe["truth"][rows] >= 0))
            share = n_lab / rows.size
            if corr is None:
                text = (
                    f"Pair difficulty: weakly identified — gold labels on {n_lab} of "
                    f"{rows.size} pairs, too few decided once in each order (< 10) to measure "
                    "how often both orders err together."
                )
                out.append(
                    Identification(j, "weakly identified", share, "labelled share", "labels", text)
                )
                continue
            verdict = (
                "errors ARE correlated within a pair"
                if corr["correlated"]
                else "no evidence that errors correlate within a pair"
            )
            text = (
                f"Pair difficulty: identified by gold labels on {n_lab} of {rows.size} pairs "
                f"({share:.0%}): both orders wrong on {corr['both_wrong']} of "
                f"{corr['n_pairs']} labelled pairs vs {corr['expected']:.1f} expected under "
                f"independent errors (one-sided Fisher p = {corr['p_value']:.3g}): {verdict}."
            )
            out.append(
                Identification(
                    j,
                    "identified",
                    share,
                    "labelled share",
                    "labels",
                    text,
                    corr,
                    correlated=bool(corr["correlated"]),
                )
            )
            continue
        both = rows[(c[rows, 0, 1] > 0) & (c[rows, 0, 3] > 0)]
        if both.size == 0:
            text = (
                f"{NOT_APPLICABLE_LEAD}none of the {rows.size:,} pairs is decided in both "
                f"orders.{NOT_APPLICABLE_SHARED}"
            )
            out.append(
                Identification(j, "not applicable", 0.0, "pairs decided in both orders", "", text)
            )
            continue
        if has_repeats(block):
            text = (
                "Pair difficulty: weakly identified — repeats in both orders show whether a "
                "judge repeats its errors (within_pair_correlation), but pairs wrong in every "
                "repeat still look like reversed truths; gold labels on some pairs identify it."
            )
            out.append(Identification(j, "weakly identified", float("nan"), "", "repeats", text))
            continue
        ctx = pe["context"][rows]
        items = np.concatenate([pe["i"][rows], pe["j"][rows]])
        ctxs = np.concatenate([ctx, ctx])
        sizes = np.array([np.unique(items[ctxs == q]).size for q in np.unique(ctx)])
        big = sizes >= 3
        if not big.any():
            text = (
                f"Pair difficulty: NOT IDENTIFIED (0 of the {sizes.size} "
                f"context{'' if sizes.size == 1 else 's'} with a decided verdict "
                f"{'has' if sizes.size == 1 else 'have'} 3 or more items) — with 2-item "
                "contexts any pair judged the same way in both orders may "
                "be right twice or wrong twice, so errors repeated in both orders are invisible "
                "and every rate here is an order-inconsistent error rate, a lower bound. Gold "
                "labels on some pairs (--truth-column; plan-labels picks them) settle it."
            )
            out.append(
                Identification(
                    j,
                    "not identified",
                    0.0,
                    "share of contexts with ≥ 3 items",
                    "two-item contexts",
                    text,
                )
            )
            continue
        # the simulation check on this design
        from bayes_pairwise.classical.bounds import error_bounds, excess_design

        b = error_bounds(block, n_bootstrap=0, use_labels=False)[0]
        e_plus = float(np.clip(b.pairwise["eps_plus"][0], 0.02, 0.45))
        e_minus = float(np.clip(b.pairwise["eps_minus"][0], 0.02, 0.45))
        sub = rows[np.isin(ctx, np.unique(ctx)[big & (sizes <= MAX_ENUMERATED_ITEMS)])]
        if sub.size == 0:
            text = (
                f"Pair difficulty: not assessed — every context of 3 or more items has more "
                f"than {MAX_ENUMERATED_ITEMS} items (too large for the transitivity check)."
            )
            out.append(Identification(j, "not assessed", float("nan"), "", "transitivity", text))
            continue
        design = excess_design({k: v[sub] for k, v in pe.items()})  # built once: same rows
        h0 = [
            _simulate_excess(pe, sub, (e_plus, e_minus, 0.0, 0.0), rng, design)
            for _ in range(n_simulations)
        ]
        h1 = [
            _simulate_excess(
                pe, sub, (e_plus, e_minus, REFERENCE_HARD_SHARE, REFERENCE_EPS_HARD), rng, design
            )
            for _ in range(n_simulations)
        ]
        sd = float(np.sqrt((np.var(h0, ddof=1) + np.var(h1, ddof=1)) / 2))
        d = float((np.mean(h1) - np.mean(h0)) / sd) if sd > 0 else 0.0
        d = max(d, 0.0)
        status = _status(d)
        finding, beyond = _excess_finding(float(b.sharp["eps"][0] - b.pairwise["eps"][0]), h0)
        text = (
            f"Pair difficulty: {status.upper() if status == 'not identified' else status} "
            f"through transitivity (d′ = {d:.1f}) — on this design ({int(big.sum())} contexts of "
            f"3–{int(sizes.max())} items) a log with {REFERENCE_HARD_SHARE:.0%} hard pairs "
            f"(error {REFERENCE_EPS_HARD} in both orders) forces {np.mean(h1):.3f} of the "
            f"verdicts wrong beyond the order-inconsistent ones against {np.mean(h0):.3f} "
            "with independent errors (simulated, truth a total order per context); "
            + finding
            + " "
            + (
                "The error-rate level still rests on the model's assumptions; gold labels "
                "settle it."
                if status != "identified"
                else "Gold labels remain the direct check."
            )
        )
        out.append(
            Identification(
                j,
                status,
                d,
                "d′ (simulation check)",
                "transitivity",
                text,
                correlated=beyond if status != "not identified" else None,
            )
        )
    return out


def _excess_finding(obs: float, h0: Sequence[float]) -> tuple[str, bool]:
    """This log's excess of wrong verdicts beyond the order-inconsistent ones, read against
    the simulated logs with independent errors (``h0``): the finding in words, and whether the
    excess is beyond 95 % of them (``Identification.correlated``).

    Examples
    --------
    >>> text, beyond = _excess_finding(0.042, [0.009, 0.010, 0.011, 0.008])
    >>> print(text)  # doctest: +NORMALIZE_WHITESPACE
    this log: 0.042, more than all 4 simulated logs with independent errors give: its errors
    look correlated within pairs (hard pairs), so the order-inconsistent rates read low.
    >>> beyond
    True
    >>> _excess_finding(0.009, [0.009, 0.010, 0.011, 0.008])[1]
    False
    """
    h0 = np.asarray(h0, dtype=float)
    k = int(np.sum(h0 >= obs - 1e-12))
    n = int(h0.size)
    if n and k / n <= 0.05:
        more = f"all {n}" if k == 0 else f"{n - k} of the {n}"
        return (
            f"this log: {obs:.3f}, more than {more} simulated logs with independent errors "
            "give: its errors look correlated within pairs (hard pairs), so the "
            "order-inconsistent rates read low."
        ), True
    return (
        f"this log: {obs:.3f}, within what independent errors give ({k} of {n} simulated logs "
        "reach it)."
    ), False


# ------------------------------------------------------------------------ for every door
#: The error-rate variables whose estimand and convergence the outputs state.
RATE_NAMES = ("eps", "eps_plus", "eps_minus")
_SYMBOL = {"eps": "ε", "eps_plus": "ε₊", "eps_minus": "ε₋"}


def fit_estimand(model: Any) -> str:
    """:func:`~bayes_pairwise.conventions.estimand` of a fitted model: ``"error"`` when gold
    labels informed it (labelled data and a latent true outcome per pair), else
    ``"order_inconsistent_error"``.

    Examples
    --------
    >>> fit_estimand(object())
    'order_inconsistent_error'
    """
    from bayes_pairwise.conventions import estimand

    settings = getattr(model, "settings_", None) or {}
    n_lab = int((settings.get("data") or {}).get("n_labelled", 0) or 0)
    latent = getattr(model, "resolved_likelihood", lambda: "")() == "marginal"
    return estimand(n_lab > 0 and latent)


def rate_convergence(model: Any) -> dict[str, Any]:
    """Largest R-hat of the reported error rates of a NUTS fit, and whether it passes
    :data:`~bayes_pairwise.pymc_models.diagnostics.RHAT_MAX`.

    Returns ``{"max_r_hat", "converged", "text"}``; ``converged`` is None (and ``max_r_hat``
    NaN) for fits without several chains (MAP, Laplace). ``text`` is empty when converged,
    else the line the headline prints.

    Examples
    --------
    >>> rate_convergence(object())["converged"] is None
    True
    """
    post = getattr(getattr(model, "idata_", None), "posterior", None)
    if post is None or post.sizes.get("chain", 1) < 2:
        return {"max_r_hat": float("nan"), "converged": None, "text": ""}
    import arviz as az

    from bayes_pairwise.pymc_models.diagnostics import RHAT_MAX

    names = [v for v in RATE_NAMES if v in post]
    if not names:
        return {"max_r_hat": float("nan"), "converged": None, "text": ""}
    rhat = az.rhat(post[names])
    worst, where = 0.0, ""
    for v in names:
        vals = np.atleast_1d(np.asarray(rhat[v]))
        if vals.size and np.nanmax(vals) > worst:
            worst, where = float(np.nanmax(vals)), _SYMBOL[v]
    ok = worst <= RHAT_MAX
    text = (
        ""
        if ok
        else f"NOT CONVERGED: R-hat {worst:.3f} on {where} (> {RHAT_MAX}); do not read these "
        "rates — run longer chains (--draws, --tune) or reparametrise"
    )
    return {"max_r_hat": worst, "converged": bool(ok), "text": text}


def rates_read(order_recorded: bool, have: Iterable[str]) -> tuple[str, ...]:
    """The error rates among ``have`` that a sentence about the log reads (``reads_as``, the
    sharp bounds' line): all of them, or ε alone where the log does not record the
    presentation order and ε is among them: ε₊ and ε₋ are then rates of a nominal first/second
    label, which the verdict's basis leaves out too (``crosscheck``'s ``POSITION_RATES``).

    Examples
    --------
    >>> rates_read(True, ["eps", "eps_plus", "eps_minus"])
    ('eps', 'eps_plus', 'eps_minus')
    >>> rates_read(False, ["eps_plus", "eps_minus", "eps"])
    ('eps',)
    >>> rates_read(False, ["eps_plus", "eps_minus"])  # the user's positional fit: its caveat says
    ('eps_plus', 'eps_minus')
    """
    have = tuple(have)
    return ("eps",) if not order_recorded and "eps" in have else have


def bounds_read(order_recorded: bool, read: Iterable[str]) -> tuple[str, ...]:
    """The sharp bounds printed beside a sentence that reads the rates ``read``
    (:func:`rates_read`): all three, or ε alone where the order was not recorded and the
    sentence reads no position rate.

    Examples
    --------
    >>> bounds_read(False, ["eps"]), bounds_read(True, ["eps"])
    (('eps',), ('eps_plus', 'eps_minus', 'eps'))
    """
    read = set(read)
    return tuple(
        q for q in ("eps_plus", "eps_minus", "eps") if order_recorded or q in read or q == "eps"
    )


def reads_as(
    estimates: dict[str, float],
    estimand_: str,
    *,
    pairs_in_both: int | None = None,
    text_blind_upper: float | None = None,
    one_position: str | None = None,
    bounds: Mapping[str, Sequence[float]] | None = None,
) -> str:
    """How to read the rates, in words a reader cannot miss.

    Parameters
    ----------
    estimates : dict
        Rate name → point value (``eps``, ``eps_plus``, ``eps_minus``).
    estimand_ : str
        The fit's estimand (:func:`~bayes_pairwise.conventions.estimand`).
    pairs_in_both : int, optional
        The judge's pairs seen in both orders, given where they are fewer than
        :data:`~bayes_pairwise.conventions.MIN_PAIRS_TO_SAY` and no gold labels inform the
        rates (:func:`~bayes_pairwise.caveats.short_of_pairs`): the values are then where the
        estimators start, not a bound, and the sentence says so.
    text_blind_upper : float, optional
        The upper end of the interval of 1 − ε₊ − ε₋, given where the log cannot tell the
        judge's verdicts from ones that ignore the texts
        (:func:`~bayes_pairwise.caveats.text_blind_judges`): the sentence says so.
    one_position : {"first", "second"}, optional
        The position every decided verdict of the judge picks, given where it picks one
        (:func:`~bayes_pairwise.caveats.one_position_judges`): the rates then describe the
        position alone (ε₊ + ε₋ = 1), not a bound on errors about the texts, and the sentence
        says so; it takes precedence over the other readings.
    bounds : mapping, optional
        Rate name → its sharp bounds ``(lower, upper)`` (:func:`error_bounds`): what the log
        shows whatever the errors' dependence. Without labels the point is a model's reading
        under errors independent across orders, not a bound (a simulated log read ε₊ 0.102
        with a realised 0.098 and a sharp lower bound 0.087): the sentence gives the sharp
        lower bounds as what the log shows; with labels, the sharp interval.

    Examples
    --------
    >>> print(reads_as({"eps_plus": 0.102}, "order_inconsistent_error",
    ...                bounds={"eps_plus": (0.087, 0.6)}))  # doctest: +NORMALIZE_WHITESPACE
    ε₊ 0.102 — if errors are independent across orders; the log alone shows ε₊ ≥ 0.087 (sharp
    lower bound): errors repeated in both orders are invisible without labels, so the error
    rates can be higher
    >>> reads_as({"eps_plus": 0.2}, "error")
    'ε₊ = 0.200 — the error rate: gold labels inform it'
    >>> print(reads_as({"eps": 0.262}, "order_inconsistent_error", pairs_in_both=2))
    ... # doctest: +NORMALIZE_WHITESPACE
    ε 0.262 — not a finding: 2 pairs seen in both orders, fewer than the 10 S_com and the
    moments need
    >>> print(reads_as({"eps": 0.48}, "order_inconsistent_error", text_blind_upper=0.12))
    ... # doctest: +NORMALIZE_WHITESPACE
    ε 0.480 — if errors are independent across orders; errors repeated in both orders are
    invisible without labels, so the error rates can be higher; and the log cannot tell these
    verdicts from ones that ignore the texts (1 − ε₊ − ε₋ ≤ 0.12)
    >>> print(reads_as({"eps_plus": 0.0, "eps_minus": 1.0}, "order_inconsistent_error",
    ...                one_position="first"))  # doctest: +NORMALIZE_WHITESPACE
    ε₊ 0.000, ε₋ 1.000 — not a finding: every decided verdict picks the text shown first, so
    these rates describe the position alone (ε₊ + ε₋ = 1), not errors about the texts
    """
    from bayes_pairwise.conventions import (
        ESTIMAND_ORDER_INCONSISTENT,
        LOWER_BOUND_NOTE,
        MIN_PAIRS_TO_SAY,
    )

    short = pairs_in_both is not None and pairs_in_both < MIN_PAIRS_TO_SAY
    low = estimand_ == ESTIMAND_ORDER_INCONSISTENT
    sign = "" if short or one_position or low else "= "
    shown = [q for q, v in estimates.items() if np.isfinite(v)]
    parts = [f"{_SYMBOL.get(q, q)} {sign}{estimates[q]:.3f}" for q in shown]
    sharp = {q: tuple(bounds[q]) for q in shown if bounds and q in bounds}
    sharp = {q: b for q, b in sharp.items() if np.isfinite(b[0])}
    if one_position:
        tail = (
            f"not a finding: every decided verdict picks the text shown {one_position}, so "
            "these rates describe the position alone (ε₊ + ε₋ = 1), not errors about the texts"
        )
    elif short:
        tail = (
            f"not a finding: {pairs_in_both} pair{'' if pairs_in_both == 1 else 's'} seen in "
            f"both orders, fewer than the {MIN_PAIRS_TO_SAY} S_com and the moments need"
        )
    elif low:
        tail = "if errors are independent across orders; "
        if sharp:
            tail += (
                "the log alone shows "
                + ", ".join(f"{_SYMBOL.get(q, q)} ≥ {b[0]:.3f}" for q, b in sharp.items())
                + f" (sharp lower bound{'s' if len(sharp) > 1 else ''}): "
            )
        tail += LOWER_BOUND_NOTE
    else:
        tail = "the error rate: gold labels inform it"
        if sharp:
            tail += "; the log shows " + ", ".join(
                f"{_SYMBOL.get(q, q)} in [{b[0]:.3f}, {b[1]:.3f}]" for q, b in sharp.items()
            )
    if not (one_position or short) and text_blind_upper is not None:
        tail += (
            "; and the log cannot tell these verdicts from ones that ignore the texts "
            f"(1 − ε₊ − ε₋ ≤ {text_blind_upper:.2f})"
        )
    return ", ".join(parts) + " — " + tail if parts else tail


def what_the_log_shows(
    data: Comparisons, *, use_labels: bool = True, random_seed: int = 0
) -> dict[str, dict[str, Any]]:
    """The sharp bounds and the identification statement of every judge: the block that
    ``fit --json``, ``compare --json`` and the report's headline carry. They are about the
    log's verdicts, each counted once: a weighted log's weights do not enter (the
    ``weighted_log`` caveat says so).

    Returns
    -------
    dict
        ``{"bounds": {judge: ErrorBounds}, "identification": {judge: Identification}}``.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=100, labelled=0.0, random_seed=0)
    >>> out = what_the_log_shows(sim.data)
    >>> sorted(out["bounds"]["judge"].bounds)
    ['eps', 'eps_minus', 'eps_plus']
    """
    from bayes_pairwise.classical.bounds import error_bounds

    data = data.without_weights()
    bounds = {
        b.judge: b for b in error_bounds(data, use_labels=use_labels, random_seed=random_seed)
    }
    ident = {r.judge: r for r in identification(data, random_seed=random_seed)}
    return {"bounds": bounds, "identification": ident}
