"""What a fit cannot see, in words a user reads: the single home of caveat texts and rules.

:func:`caveats_for` returns the caveats that apply to an analysis of a log (issue 7 item 4):

* ``correlated_errors`` — every ground-truth-free estimate (uniform / positional models without
  labels, S_com, moments, Δ_S): errors correlated within a pair bias it low and cannot be
  detected from one verdict per order (``docs/src/gold_labels.md``).
* ``partial_labels`` — an error model without pair difficulty conditioned on gold labels on
  only part of the pairs: the unlabelled pairs are still read as independent errors.
* ``labelled_rates`` — classical statistics on a labelled log ignore the labels; read the plain
  labelled rates next to them.
* ``difficulty_not_identified`` / ``difficulty_repeats_only`` — the pair-difficulty model
  without labels (``docs/src/pair_difficulty.md``).
* ``ties_cluster_by_context`` — ties modelled and some contexts tied far more than one tie rate
  allows (:func:`tie_dispersion`): the tie rate is an average over contexts.
* ``ties_cluster_by_pair`` — ties modelled and more pairs tied in both orders than ties that
  fall verdict by verdict give
  (:attr:`~bayes_pairwise.classical.descriptive.TiePositionCheck.pairs_cluster`).
* ``text_blind`` — the log cannot tell a judge's verdicts from ones that ignore the texts:
  S_com is not below its ceiling by more than such verdicts would put it by chance, and
  1 − ε₊ − ε₋ (read from that distance) may be 0 (:func:`text_blind_judges`, the one rule).
* ``within_pair_correlation`` — when repeats exist (k ≥ 2 per order): the result of
  :func:`~bayes_pairwise.classical.correlation.within_pair_correlation`.
* ``repeats_reading`` — when repeats exist and the log calls into question that they re-judge
  one pair of texts in a known order (order not recorded; no contexts and many repeats per
  pair): :func:`~bayes_pairwise.identification.repeats_reading`.

:func:`joint_mode` and :func:`long_trajectories` are a fit's, not a log's (:data:`FIT_CAVEATS`):
a strength model's MAP, or its Laplace approximation, sits at a joint mode over every strength
and the rates, which shifts the rates (measured on a log simulated on the same design,
:func:`mode_shift`); a strength model's NUTS fit whose strengths read as a nearly hard truth
takes long trajectories that more draws do not shorten.

:func:`record_caveats` stores them with a fitted error model (``caveats_`` and the JSON attr
``caveats`` of ``idata_.posterior``).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayes_pairwise.classical.correlation import within_pair_correlation
from bayes_pairwise.classical.descriptive import (
    MIN_PAIRS_TEST,
    PositionalMoments,
    TiePositionCheck,
    positional_moments,
    tie_counts_by_context,
    tie_position_check,
)
from bayes_pairwise.classical.text_dependence import ItemDependence, item_dependence
from bayes_pairwise.conventions import (
    MIN_PAIRS_TO_SAY,
    integer_seed,
    interval_label,
    tie_dispersion_group,
    z_value,
)
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import BayesPairwiseError
from bayes_pairwise.identification import has_repeats, repeats_reading
from bayes_pairwise.matrices import pair_counts

__all__ = [
    "CAVEATS_STEP",
    "CORRELATED_ERRORS",
    "CORRELATED_ERRORS_TRANSITIVITY",
    "FIT_CAVEATS",
    "HARD_TRUTH_SIGMA",
    "LONG_TRAJECTORY_STEPS",
    "MODEL_KINDS",
    "TIE_CLUSTER_P",
    "TIE_CLUSTER_RATIO",
    "Caveat",
    "ModeShift",
    "TextBlind",
    "TieDispersion",
    "caveats_for",
    "caveats_from_idata",
    "ceiling_stats",
    "context_sizes_text",
    "dispersion_kwargs",
    "has_repeats",
    "identification_text",
    "joint_mode",
    "long_trajectories",
    "merge_per_judge",
    "mode_shift",
    "one_position_judges",
    "one_position_only",
    "order_model_for",
    "position_preference_check",
    "position_preference_varies",
    "record_caveats",
    "short_of_pairs",
    "text_blind",
    "text_blind_judges",
    "tie_dispersion",
    "ties_cluster_by_context",
    "ties_cluster_by_pair",
    "ties_depend_on_position",
    "too_few_verdicts",
]

#: Analyses :func:`caveats_for` knows: error models, the difficulty model, classical
#: statistics (S_com, moments, Δ_S) and the biased Bradley–Terry model.
MODEL_KINDS = ("uniform", "positional", "difficulty", "classical", "biased_bt")

#: The correlated-errors caveat (the core sentence is fixed; tests look for it).
CORRELATED_ERRORS = (
    "Errors correlated within a pair bias ground-truth-free estimates low and cannot be "
    "detected from one verdict per order: a pair that fools the judge in both orders looks "
    "like a reversed truth, not like two errors. Gold labels on some pairs (--truth-column) "
    "and the positional_difficulty model, or repeats in both orders, are the way out."
)

#: The correlated-errors caveat where the transitivity check identifies pair difficulty on
#: the log's design (the statement before it says so, with its numbers).
CORRELATED_ERRORS_TRANSITIVITY = (
    "Errors correlated within a pair bias ground-truth-free estimates low. One verdict per "
    "order cannot show them pair by pair, but on this design transitivity can (the check "
    "above); gold labels on some pairs (--truth-column) remain the direct check."
)

#: Attribute of ``idata.posterior`` holding the caveats as JSON.
ATTR_CAVEATS = "caveats"


@dataclass(frozen=True)
class Caveat:
    """One caveat: a stable ``code`` for programs and a ``text`` for people.

    Examples
    --------
    >>> Caveat("correlated_errors", CORRELATED_ERRORS).code
    'correlated_errors'
    """

    code: str
    text: str
    #: The judges a fit's caveat concerns where that is not every judge (``()``: all of them).
    judges: tuple[str, ...] = ()
    #: Where ``text`` is ``lead`` + what the log shows + ``shared`` (the explanation, the same
    #: for every judge it is said of): a cross-check of several judges says it once for all of
    #: them (:func:`merge_per_judge`). Empty: the text is one piece.
    lead: str = ""
    shared: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"code": …, "text": …}`` (and ``"judges"`` where it names some; for JSON)."""
        out = {"code": self.code, "text": self.text}
        if self.judges:
            out["judges"] = list(self.judges)
        return out


def merge_per_judge(said: Sequence[tuple[str, Caveat]]) -> dict[tuple[str, str], str]:
    """One text for the judges who got the same caveat with its own numbers: ``said`` holds
    (judge, caveat) pairs from one-judge logs; for each caveat whose ``lead`` and ``shared``
    parts two judges or more share, each of their texts maps to ``lead`` + "judge j: …" for
    each + ``shared``, as the caveat reads on a log of those judges together. Keys:
    (judge, text).

    Examples
    --------
    >>> a = Caveat("c", "Ties cluster — 5 ×. Why.", lead="Ties cluster — ", shared=" Why.")
    >>> b = Caveat("c", "Ties cluster — 3 ×. Why.", lead="Ties cluster — ", shared=" Why.")
    >>> merge_per_judge([("x", a), ("y", b)])[("y", b.text)]
    'Ties cluster — judge x: 5 ×. judge y: 3 ×. Why.'
    """
    groups: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for j, c in said:
        if not c.shared or not c.text.startswith(c.lead) or not c.text.endswith(c.shared):
            continue
        items = groups.setdefault((c.code, c.lead, c.shared), [])
        if (j, c.text) not in items:
            items.append((j, c.text))
    out: dict[tuple[str, str], str] = {}
    for (_, lead, shared), items in groups.items():
        if len({j for j, _ in items}) < 2:
            continue
        body = " ".join(  # one sentence per judge, as the caveats write several judges
            _named(j, t[len(lead) : len(t) - len(shared)].strip().rstrip(".")) + "."
            for j, t in items
        )
        for j, t in items:
            out[(j, t)] = lead + body + shared
    return out


def _named(judge: str, said: str) -> str:
    """``said`` of one judge, led by its name unless it names the judge already.

    Examples
    --------
    >>> _named("x", "5 ties"), _named("x", "judge 'x' has 5 ties")
    ('judge x: 5 ties', "judge 'x' has 5 ties")
    """
    if said.startswith((f"judge {judge!r} ", f"judge {judge} ")):
        return said
    return f"judge {judge}: {said}"


def _split_caveat(code: str, text: str) -> Caveat:
    """``text`` as a caveat, split into its ``lead`` and ``shared`` parts where it is the
    identification check's 'not applicable' statement (a judge with no pair decided in both
    orders), so that :func:`merge_per_judge` says it once for several judges.

    Examples
    --------
    >>> from bayes_pairwise.identification import NOT_APPLICABLE_LEAD, NOT_APPLICABLE_SHARED
    >>> _split_caveat("c", NOT_APPLICABLE_LEAD + "3 pairs." + NOT_APPLICABLE_SHARED).lead
    'Pair difficulty: not applicable — '
    >>> _split_caveat("c", "Something else.").shared
    ''
    """
    from bayes_pairwise.identification import NOT_APPLICABLE_LEAD, NOT_APPLICABLE_SHARED

    if text.startswith(NOT_APPLICABLE_LEAD) and text.endswith(NOT_APPLICABLE_SHARED):
        return Caveat(code, text, lead=NOT_APPLICABLE_LEAD, shared=NOT_APPLICABLE_SHARED)
    return Caveat(code, text)


def _labelled_pair_share(data: Comparisons) -> tuple[int, int]:
    pc = pair_counts(data)
    return int(np.sum(np.asarray(pc.truth) >= 0)), int(np.asarray(pc.truth).size)


def weighted_log(data: Comparisons) -> Caveat:
    """The caveat of a log with per-row weights: what the weights change, computed from them.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "first"]})
    >>> c = weighted_log(load_comparisons(df).with_weights([3.0, 0.5]))
    >>> c.code, c.text[:57]
    ('weighted_log', 'The log carries per-row weights: 2 verdicts weigh 3.5 in ')
    """
    w = np.asarray(data.weight, dtype=float)
    zero = int(np.sum(w == 0))
    return Caveat(
        "weighted_log",
        f"The log carries per-row weights: {w.size} verdicts weigh {w.sum():.4g} in all "
        f"(min {w.min():.4g}, max {w.max():.4g}"
        + (f"; {zero} of weight 0, read as absent" if zero else "")
        + "). The models count a verdict of weight w as w verdicts, so their intervals are as "
        f"narrow as {w.sum():.4g} independent verdicts would make them: right for frequency "
        "weights, too narrow for importance weights that do not sum to the number of "
        "independent verdicts. The checks of what the log can show (identification, sharp "
        "bounds, within-pair correlation) count each verdict once.",
    )


def short_of_pairs(
    data: Comparisons, *, unlabelled_only: bool = False
) -> dict[str, tuple[int, int]]:
    """The judges with fewer than :data:`~bayes_pairwise.conventions.MIN_PAIRS_TO_SAY` pairs
    seen in both orders: judge → (verdicts, pairs seen in both orders). The one rule behind
    :func:`too_few_verdicts`, the cross-check's NO VERDICT for such judges and the "not a
    finding" of :func:`~bayes_pairwise.identification.reads_as`.

    Parameters
    ----------
    data : Comparisons
    unlabelled_only : bool, default False
        Leave out the judges with gold labels: their labelled rates need no pair in both
        orders, so the verdict and the reading of their rates stand (the caveat still counts
        them: S_com and the moments lack the pairs all the same).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> tiny = load_comparisons(pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                                       "outcome": ["first", "first"]}))
    >>> short_of_pairs(tiny)
    {'judge': (2, 1)}
    """
    out = {}
    for j, block in data.without_weights().by_judge():  # pairs are counted, not weighed
        if unlabelled_only and block.has_truth:
            continue
        pc = pair_counts(block)
        both = int(np.sum((np.asarray(pc.k_plus) > 0) & (np.asarray(pc.k_minus) > 0)))
        if both < MIN_PAIRS_TO_SAY:
            out[str(j)] = (int(block.n_comparisons), both)
    return out


def too_few_verdicts(data: Comparisons) -> Caveat | None:
    """The "too few verdicts to say" caveat, for the judges with fewer than
    :data:`~bayes_pairwise.conventions.MIN_PAIRS_TO_SAY` pairs seen in both orders, or None.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> tiny = load_comparisons(pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                                       "outcome": ["first", "first"]}))
    >>> print(too_few_verdicts(tiny).text)  # doctest: +ELLIPSIS
    Too few verdicts to say: judge 'judge' has 2 verdicts, 1 pair seen in both orders. The ...
    """
    short = []
    unlabelled = short_of_pairs(data, unlabelled_only=True)
    for j, (n, both) in short_of_pairs(data).items():
        pairs = "pair" if both == 1 else "pairs"
        gold = "" if j in unlabelled else " (gold labels inform its rates: they stand)"
        short.append(f"judge {j!r} has {n} verdicts, {both} {pairs} seen in both orders{gold}")
    if not short:
        return None
    lead = "Too few verdicts to say: "
    shared = (
        f" The error rates from pairs in both orders (S_com, the moments) need at least "
        f"{MIN_PAIRS_TO_SAY} such pairs per judge; until then numbers such as 0.000 or 1.000 "
        "are where the estimators start, not findings, and the cross-check gives no verdict on "
        "them unless gold labels inform their rates (the Δ_S grid, whose interval resamples "
        "whole round robins, needs none either)."
    )
    return Caveat(
        "too_few_verdicts",
        lead
        + "; ".join(short[:5])
        + (f" (and {len(short) - 5} more judges)" if len(short) > 5 else "")
        + "."
        + shared,
        lead=lead,
        shared=shared,
    )


def order_not_recorded(data: Comparisons, *, model_kind: str = "positional") -> Caveat | None:
    """The caveat of a log that does not record which text was shown first, or None.

    Where :attr:`~bayes_pairwise.data.Comparisons.order_recorded` is False (Chatbot Arena's
    battles: 'first' is model_a), every rate split by position (ε₊, ε₋, their sum, the
    biased Bradley–Terry model's γ, the moments' r1, S_com's reading as positional
    inconsistency) is a rate by a nominal label. ``model_kind`` as in :func:`caveats_for`;
    the uniform and difficulty models' rates need no order, so they get None.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"],
    ...                    "winner": ["model_a", "tie"]})
    >>> c = order_not_recorded(load_comparisons(df))
    >>> c.code, c.text[:60]
    ('order_not_recorded', "The log does not record which text was shown first: 'first' ")
    >>> order_not_recorded(load_comparisons(df), model_kind="uniform") is None
    True
    """
    if data.order_recorded or model_kind not in ("positional", "classical", "biased_bt"):
        return None
    return Caveat(
        "order_not_recorded",
        "The log does not record which text was shown first: 'first' is a nominal label "
        f"({data.n_comparisons:,} verdicts, none with its presentation order). ε₊, ε₋ and "
        "their sum (the position shift γ, the moments' r1, S_com read as positional "
        "inconsistency) are computed by that label, not by the position a text was shown in, "
        "so they say nothing about positional bias; the uniform model's ε and the tie rate "
        "need no order.",
    )


def _tie_checks(
    data: Comparisons, checks: Mapping[str, TiePositionCheck] | None
) -> list[tuple[str, TiePositionCheck]]:
    """``(judge, tie_position_check)`` of every judge with ties kept under the tie policy
    ``"model"`` (``checks`` where already computed; the others are checked here)."""
    if data.tie_policy != "model" or not np.any(np.asarray(data.outcome) == 0.5):
        return []
    out = []
    for j, block in data.by_judge():
        if np.any(np.asarray(block.outcome) == 0.5):
            chk = checks[j] if checks is not None and j in checks else tie_position_check(block)
            out.append((j, chk))
    return out


def ties_depend_on_position(
    data: Comparisons,
    *,
    tie_positional: bool = False,
    checks: Mapping[str, TiePositionCheck] | None = None,
) -> Caveat | None:
    """The caveat of judges whose ties depend on where the better text is shown, computed from
    the log (:func:`~bayes_pairwise.classical.descriptive.tie_position_check`); None when no
    judge's do, or the log keeps no ties under the tie policy ``"model"``. ``tie_positional``:
    the caveat is for a fit that has one tie rate per position already (it says so).
    ``checks``: the checks by judge when already computed (a judge not in it is checked here).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> ties_depend_on_position(simulate_round_robin(8, random_seed=0).data) is None
    True
    """
    z = z_value()
    lab = interval_label()
    said = []
    for j, chk in _tie_checks(data, checks):
        if not chk.depends:
            continue
        who = f"judge {j}: " if data.n_judges > 1 else ""
        said.append(
            f"{who}{chk.summary()}. On the pairs decided in both orders (one decided verdict per "
            f"position, no rescaling) the moments give ε₊ {chk.eps_plus:.3f} "
            f"[{chk.eps_plus - z * chk.eps_plus_se:.3f}, {chk.eps_plus + z * chk.eps_plus_se:.3f}]"
            f", ε₋ {chk.eps_minus:.3f} [{chk.eps_minus - z * chk.eps_minus_se:.3f}, "
            f"{chk.eps_minus + z * chk.eps_minus_se:.3f}] ({lab})."
        )
    if not said:
        return None
    return Caveat(
        "ties_depend_on_position",
        "Ties depend on where the better text is shown — "
        + " ".join(said)
        + " S_com and the moments rescaled for the tie share, the Δ_S grids (ties placed at "
        "random) and a single tie rate per judge all assume that a tie does not depend on which "
        "text is better (METHODS §7.5); "
        + (
            "this fit has one tie rate per position (tie_rate_plus, tie_rate_minus)."
            if tie_positional
            else "the error models (the order models too) fit one tie rate per position with "
            "tie_positional=True (fit --tie-positional)."
        ),
    )


def position_preference_check(
    data: Comparisons,
    checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
) -> PositionalMoments | TiePositionCheck | None:
    """One judge's statistics whose S_com is above what any (ε₊, ε₋) give, or None.

    The pairs decided in both orders (:func:`~bayes_pairwise.classical.descriptive.
    tie_position_check`: decided verdicts only, exact with ties kept) where the log keeps ties
    under the tie policy ``"model"``, else the moments of the whole log
    (:func:`~bayes_pairwise.classical.descriptive.positional_moments`); ``checks`` and
    ``moments``: the tie checks and the moments by judge when already computed.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> position_preference_check(simulate_round_robin(20, random_seed=0).data) is None
    True
    """
    if data.n_judges != 1:
        raise ValueError("position_preference_check takes one judge's log (data.for_judge)")
    if not data.order_recorded:  # 'first' is a nominal label: no position to prefer
        return None
    found = ceiling_stats(data, checks, moments)
    return found if found is not None and found.beyond_rates else None


def ceiling_stats(
    data: Comparisons,
    checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
) -> PositionalMoments | TiePositionCheck | None:
    """One judge's S_com against its ceiling r₁² + (1 − r₁)²: the statistics every check
    against the ceiling reads (:func:`position_preference_check`, :func:`text_blind_judges`,
    the report's figure). The tie check of the pairs decided in both orders where the log keeps
    ties under the tie policy ``"model"``, else the moments of the whole log; None without a
    pair shown in both orders. ``checks``, ``moments``: already computed, by judge.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> found = ceiling_stats(simulate_round_robin(20, eps=0.1, random_seed=0).data)
    >>> round(found.s_com_ceiling, 3), round(found.informedness()[0], 2)
    (0.5, 0.8)
    """
    tied = _tie_checks(data, checks)
    if tied:
        found: PositionalMoments | TiePositionCheck = tied[0][1]
    elif moments is not None and data.judges[0] in moments:
        found = moments[data.judges[0]]
    else:
        return _quiet_moments(data)
    return found


def _quiet_moments(block: Comparisons) -> PositionalMoments | None:
    """One judge's :func:`~bayes_pairwise.classical.descriptive.positional_moments`, None
    without a pair shown in both orders; the boundary warning silenced (the checks against the
    ceiling are what look for the boundary)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return positional_moments(block)
        except (BayesPairwiseError, ValueError):  # no pair shown in both orders
            return None


def _moments_by_judge(data: Comparisons) -> dict[str, PositionalMoments]:
    """:func:`_quiet_moments` of every judge with a pair shown in both orders, each verdict
    counted once."""
    found = {j: _quiet_moments(block) for j, block in data.without_weights().by_judge()}
    return {j: m for j, m in found.items() if m is not None}


@dataclass(frozen=True)
class TextBlind:
    """What :func:`text_blind_judges` found for one judge: neither test of "the verdicts ignore
    the texts" rejects it (:mod:`~bayes_pairwise.classical.text_dependence`).

    Attributes
    ----------
    ceiling : PositionalMoments or TiePositionCheck
        S_com against its ceiling within pairs
        (:attr:`~bayes_pairwise.classical.descriptive.PositionalMoments.text_blind`).
    items : ItemDependence
        The texts' wins across pairs (:func:`~bayes_pairwise.classical.text_dependence.
        item_dependence`).
    """

    ceiling: PositionalMoments | TiePositionCheck
    items: ItemDependence

    @property
    def point(self) -> float:
        """1 − ε₊ − ε₋ read from S_com's distance below its ceiling."""
        return self.ceiling.informedness()[0]

    @property
    def upper(self) -> float:
        """Its upper end at the package's level."""
        return self.ceiling.text_blind_upper()

    @property
    def z(self) -> float:
        """S_com − ceiling in the standard errors of verdicts that ignore the texts."""
        return self.ceiling.text_blind_z

    def text(self, *, order_recorded: bool = True) -> str:
        """Both tests' numbers, one sentence."""
        return (
            self.ceiling.text_blind_text(order_recorded=order_recorded)
            + "; and "
            + self.items.text()
        )


def text_blind_judges(
    data: Comparisons,
    *,
    checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
) -> dict[str, TextBlind]:
    """The judges whose verdicts the log cannot tell from ones that ignore the texts — judge →
    what the two tests found (:class:`TextBlind`). Within pairs: on at least
    :data:`~bayes_pairwise.classical.descriptive.MIN_PAIRS_TEST` pairs decided in both orders,
    S_com is not below its ceiling by more than such verdicts would put it by chance
    (:attr:`~bayes_pairwise.classical.descriptive.PositionalMoments.text_blind`); across pairs:
    the texts' wins given the position do not vary beyond chance either
    (:func:`~bayes_pairwise.classical.text_dependence.item_dependence`, p above half the
    complement of the package's interval level, the within-pair test's level). The one rule the
    caveat, the verdict sentence and "reads as" read. A judge whose decided verdicts all pick
    one position is left to :func:`one_position_only`, which says more, and a judge with gold
    labels to its labelled rates, which measure what this bounds. ``checks``, ``moments``: the
    tie checks and the moments by judge when already computed.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(12, eps_plus=0.4, eps_minus=0.6, random_seed=0)
    >>> found = text_blind_judges(sim.data)
    >>> list(found), round(found["judge"].upper, 2)
    (['judge'], 0.34)
    >>> text_blind_judges(simulate_round_robin(12, random_seed=0).data)
    {}
    """
    from bayes_pairwise.conventions import resolve_hdi_prob

    alpha = (1.0 - resolve_hdi_prob(None)) / 2.0
    data = data.without_weights()  # pairs are counted, not weighed (as short_of_pairs)
    skip = set(one_position_judges(data))
    out: dict[str, TextBlind] = {}
    for j, block in data.by_judge():
        if str(j) in skip or block.has_truth:
            continue
        found = ceiling_stats(block, checks, moments)
        if found is None or not found.text_blind:
            continue
        items = item_dependence(block)
        if items is not None and items.p_value > alpha:
            out[str(j)] = TextBlind(found, items)
    return out


def text_blind(
    data: Comparisons,
    *,
    checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
) -> Caveat | None:
    """The caveat of judges whose verdicts the log cannot tell from ones that ignore the texts
    (:func:`text_blind_judges`), with each judge's numbers; None for the others.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> c = text_blind(simulate_round_robin(12, eps_plus=0.4, eps_minus=0.6, random_seed=0).data)
    >>> c.text[:60]
    'Verdicts the log cannot tell from text-blind ones — over its'
    """
    found = text_blind_judges(data, checks=checks, moments=moments)
    if not found:
        return None
    said = [
        ("judge " + j + ": " if data.n_judges > 1 else "")
        + f.text(order_recorded=data.order_recorded)
        + "."
        for j, f in found.items()
    ]
    by = "position" if data.order_recorded else "nominal label"
    lead = "Verdicts the log cannot tell from text-blind ones — "
    shared = (
        " 1 − ε₊ − ε₋ is 1 for a judge that is always right and 0 for one whose verdicts ignore "
        f"the texts (each by {by} alone, ε₊ + ε₋ = 1, S_com at that ceiling). With S_com "
        "within chance of the ceiling and no text winning more often than chance allows, the "
        "log cannot show that these verdicts depend on the texts at all, whether or not the "
        "model and the classical estimates agree on the rates — and a pair that fools the "
        "judge in both orders counts here as one judged right, so the truth can only be "
        "further. Neither rates below their largest values nor a ranking from these verdicts "
        "is then something the log shows. More pairs decided in both orders sharpen the "
        "tests; gold labels on some pairs (--truth-column) measure the rates; where the point "
        "is near 0 too, check the prompt and how the answers were parsed."
    )
    return Caveat(
        "text_blind",
        lead + " ".join(said) + shared,
        judges=tuple(found),
        lead=lead,
        shared=shared,
    )


def position_preference_varies(
    data: Comparisons,
    *,
    checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
) -> Caveat | None:
    """The caveat of judges whose verdicts no error rates describe: S_com above the most any
    (ε₊, ε₋) give at the judge's first-position rate (its position preference varies from pair
    to pair), computed from the log (:func:`position_preference_check`); None for the others.
    ``checks``, ``moments``: the tie checks and the moments by judge when already computed.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> position_preference_varies(simulate_round_robin(20, random_seed=0).data) is None
    True
    """
    said = []
    judges = []
    for j, block in data.by_judge():
        found = position_preference_check(block, checks, moments)
        if found is None:
            continue
        who = f"judge {j}: " if data.n_judges > 1 else ""
        said.append(f"{who}{found.beyond_text()}.")
        judges.append(j)
    if not said:
        return None
    return Caveat(
        "position_preference_varies",
        "No error rates describe "
        + ("these judges' verdicts" if len(judges) > 1 else "this judge's verdicts")
        + " — "
        + " ".join(said)
        + " The positional models fit one ε₊ and one ε₋ per judge and the classical moments "
        "solve for them, so neither describes such a judge, and whether the two agree says "
        "little about its errors: read its position preference from S_com and the "
        "first-position rate themselves.",
        judges=tuple(judges),
    )


def one_position_judges(data: Comparisons) -> dict[str, tuple[str, int]]:
    """The judges whose decided verdicts all pick one position (at least
    :data:`~bayes_pairwise.classical.descriptive.MIN_PAIRS_TEST` of them): judge → (the
    position, ``"first"`` or ``"second"``, and the decided verdicts). The one rule
    :func:`one_position_only`, :func:`text_blind_judges`, the verdict sentence and "reads as"
    read. Empty where the log does not record the presentation order ('first' is then a nominal
    label).

    Examples
    --------
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(6, random_seed=0)
    >>> one_position_judges(sim.data)
    {}
    >>> one_position_judges(load_comparisons(sim.frame.assign(outcome="second")))
    {'judge': ('second', 30)}
    """
    if not data.order_recorded:  # 'first' is a nominal label (Arena's model_a): no position
        return {}
    found = {}
    for j, block in data.by_judge():
        out = np.asarray(block.outcome, dtype=float)
        decided = out[(out == 0.0) | (out == 1.0)]
        if decided.size < MIN_PAIRS_TEST or 0.0 < decided.mean() < 1.0:
            continue
        found[str(j)] = ("first" if decided[0] == 1.0 else "second", int(decided.size))
    return found


def one_position_only(data: Comparisons) -> Caveat | None:
    """The caveat of judges whose decided verdicts all pick the same position
    (:func:`one_position_judges`), or None: such verdicts depend on the position alone and say
    nothing about the texts (ε₊ + ε₋ = 1), the signature of a broken prompt or of a parser that
    falls back to one answer. None too where the log does not record the presentation order
    ('first' is then a nominal label).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(6, random_seed=0)
    >>> one_position_only(sim.data) is None
    True
    >>> from bayes_pairwise.data import load_comparisons
    >>> c = one_position_only(load_comparisons(sim.frame.assign(outcome="first")))
    >>> c.text[:75]
    'Verdicts by position alone — this judge picked the text shown first in all '
    """
    found = one_position_judges(data)
    if not found:
        return None
    said = [
        f"{f'judge {j}' if data.n_judges > 1 else 'this judge'} picked the text shown {where} "
        f"in all {n:,} of its decided verdicts"
        for j, (where, n) in found.items()
    ]
    return Caveat(
        "one_position_only",
        "Verdicts by position alone — "
        + "; ".join(said)
        + ": whichever text was better, so "
        + ("these verdicts say" if len(said) > 1 else "its verdicts say")
        + " nothing about the texts (ε₊ + ε₋ = 1 describes it exactly: no error rate below "
        "that, no ranking and no agreement can be read from them). Check how the judge's "
        "answers were parsed: a parser that falls back to one answer does this.",
        judges=tuple(found),
    )


def ties_cluster_by_pair(
    data: Comparisons,
    *,
    dispersed: Sequence[str] = (),
    one_rate_too: bool = False,
    checks: Mapping[str, TiePositionCheck] | None = None,
) -> Caveat | None:
    """The caveat of judges whose ties come in pairs (a pair tied in one order is tied in the
    other far more often than ties that fall verdict by verdict give), computed from the log
    (:attr:`~bayes_pairwise.classical.descriptive.TiePositionCheck.pairs_cluster`); None when no
    judge's do. ``dispersed``: the analysis' models that let the tie rate vary by pair (the
    order models' ``tie_dispersion="pair"``); ``one_rate_too``: other models of the analysis
    fit one tie rate; ``checks``: the tie checks by judge when already computed.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> ties_cluster_by_pair(simulate_round_robin(8, random_seed=0).data) is None
    True
    """
    said = []
    for j, chk in _tie_checks(data, checks):
        if chk.pairs_cluster:
            who = f"judge {j}: " if data.n_judges > 1 else ""
            said.append(f"{who}{chk.pairs_text()}.")
    if not said:
        return None
    if dispersed:
        fitted = (
            f" {' and '.join(dispersed)} {'lets' if len(dispersed) == 1 else 'let'} the tie "
            "rate vary by pair (tie_dispersion='pair': each pair's tie count beta-binomial, "
            "tie_rho the correlation of its two verdicts' ties), so its tie_rate interval and "
            "its replicated logs allow for it."
        )
        if one_rate_too:
            fitted += (
                " The other models draw every verdict's tie independently: their tie_rate "
                "interval is too narrow and their replicated logs tie a pair in both orders "
                "too rarely."
            )
    else:
        fitted = (
            " The models draw every verdict's tie independently, so their tie_rate interval is "
            "too narrow and their replicated logs tie a pair in both orders too rarely (the "
            "predictive check ties_both_orders says by how much). The order models let the "
            "tie rate vary by pair with tie_dispersion='pair' (fit --tie-dispersion pair)."
        )
    lead = "Ties cluster by pair — "
    shared = (
        fitted + " The models' error rates come from the decided verdicts and stand as long as "
        "a tie does not depend on which text is better; S_com rescaled for the tie share does "
        "not (the cross-check rests ε on the pairs decided in both orders)."
    )
    return Caveat("ties_cluster_by_pair", lead + " ".join(said) + shared, lead=lead, shared=shared)


#: :func:`ties_cluster_by_context` speaks when the tie counts per context are this many times
#: as dispersed as one tie rate allows, at χ² p below :data:`TIE_CLUSTER_P`.
TIE_CLUSTER_RATIO = 2.0
TIE_CLUSTER_P = 1e-3


@dataclass(frozen=True)
class TieDispersion:
    """How the ties of one judge spread over the contexts, against one tie rate.

    Attributes
    ----------
    judge : str
    contexts : int
        Contexts with at least one verdict of the judge.
    tie_rate : float
        The judge's tie share over all its verdicts.
    chi2, p_value : float
        Pearson's χ² of the tie counts per context against binomials with that one rate
        (contexts − 1 degrees of freedom) and its p-value.
    ratio : float
        χ² / degrees of freedom: 1 when one rate explains the spread.
    mostly_tied, expected_mostly_tied : float
        Contexts whose verdicts are at least half ties, observed and expected under one rate.
    """

    judge: str
    contexts: int
    tie_rate: float
    chi2: float
    p_value: float
    ratio: float
    mostly_tied: int
    expected_mostly_tied: float

    @property
    def clusters(self) -> bool:
        """The ties cluster by context (:data:`TIE_CLUSTER_RATIO`, :data:`TIE_CLUSTER_P`)."""
        return self.ratio >= TIE_CLUSTER_RATIO and self.p_value < TIE_CLUSTER_P


def tie_dispersion(data: Comparisons) -> list[TieDispersion]:
    """Per judge with ties and verdicts in two contexts or more: the spread of its tie counts
    over the contexts against one tie rate (:class:`TieDispersion`).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> rows = [("a", "b", "tie", "q1")] * 4 + [("a", "b", "first", "q2")] * 4
    >>> df = pd.DataFrame(rows, columns=["first", "second", "outcome", "q"])
    >>> (d,) = tie_dispersion(load_comparisons(df, context="q", ties="model"))
    >>> d.tie_rate, d.chi2, d.mostly_tied   # (4 − 2)² / 1 + (0 − 2)² / 1
    (0.5, 8.0, 1)
    """
    from scipy.stats import binom, chi2

    if data.tie_policy != "model" or data.n_contexts < 2:
        return []
    out = []
    for name, (ties, verdicts) in tie_counts_by_context(data).items():
        k, n = ties.astype(float), verdicts.astype(float)
        seen = n > 0
        n, k = n[seen], k[seen]
        tau = float(k.sum() / n.sum()) if n.sum() else 0.0
        if n.size < 2 or not 0.0 < tau < 1.0:
            continue
        x2 = float(np.sum((k - n * tau) ** 2 / (n * tau * (1.0 - tau))))
        df = n.size - 1
        out.append(
            TieDispersion(
                judge=name,
                contexts=int(n.size),
                tie_rate=tau,
                chi2=x2,
                p_value=float(chi2.sf(x2, df)),
                ratio=x2 / df,
                mostly_tied=int(np.sum(2 * k >= n)),
                expected_mostly_tied=float(np.sum(binom.sf(np.ceil(n / 2) - 1, n, tau))),
            )
        )
    return out


def ties_cluster_by_context(
    data: Comparisons, *, dispersed: Sequence[str] = (), one_rate_too: bool = False
) -> Caveat | None:
    """The caveat of judges whose ties cluster by context (some questions tied almost
    throughout), computed from the log (:func:`tie_dispersion`); None when no judge's do.
    ``dispersed``: the names of the analysis' models that let the tie rate vary by context (the
    order models' ``tie_dispersion=True``), and the caveat says what that changes;
    ``one_rate_too``: other models of the analysis fit one tie rate (the cross-check's).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> ties_cluster_by_context(simulate_round_robin(5, n_contexts=20, random_seed=0).data)
    """
    said = []
    for d in tie_dispersion(data):
        if not d.clusters:
            continue
        who = f"judge {d.judge}: " if data.n_judges > 1 else ""
        # the contexts at least half ties, where there are any (none: nothing to set against
        # one rate's expectation)
        mostly = (
            f"; {d.mostly_tied} of {d.contexts:,} contexts "
            f"{'is' if d.mostly_tied == 1 else 'are'} at least half ties, where one rate "
            f"expects {d.expected_mostly_tied:.2g}"
            if d.mostly_tied
            else ""
        )
        said.append(
            f"{who}its tie counts per context vary {d.ratio:.1f} × as much as one tie rate "
            f"({d.tie_rate:.3f}) allows (χ² {d.chi2:,.0f} on {d.contexts - 1:,} df, "
            f"p {'< 1e-16' if d.p_value < 1e-16 else f'{d.p_value:.1g}'}){mostly}."
        )
    if not said:
        return None
    if dispersed:
        fitted = (
            f" {' and '.join(dispersed)} {'lets' if len(dispersed) == 1 else 'let'} the tie "
            "rate vary by context (tie_dispersion: each context's tie count beta-binomial, "
            "tie_rho the correlation of two verdicts' ties within a context), so its tie_rate "
            "interval allows for it."
        )
        if one_rate_too:
            fitted += (
                " The other models fit one tie rate for every context: read their tie_rate as "
                "an average over the contexts, with an interval too narrow for such a log."
            )
    else:
        fitted = (
            " The models fit one tie rate per judge (or per position) for every context, so "
            "read tie_rate as an average over the contexts with an interval too narrow for "
            "such a log; the contexts tied throughout are predicted worst and make PSIS-LOO's "
            "p_loo larger than the number of parameters. The order models fit a tie rate that "
            "varies by context with tie_dispersion=True (fit --tie-dispersion)."
        )
    lead = "Ties cluster by context — "
    shared = (
        fitted + " The error rates are estimated from the decided verdicts; which questions are "
        "tied does not bias them as long as a tie does not depend on which text is better."
    )
    return Caveat(
        "ties_cluster_by_context", lead + " ".join(said) + shared, lead=lead, shared=shared
    )


def identification_text(data: Comparisons, *, random_seed: int = 0) -> tuple[str, str]:
    """The computed identification statement of a log (one sentence per judge, prefixed with
    the judge's name when there are several) and the worst status among its judges
    (:func:`bayes_pairwise.identification.identification`).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(2, n_contexts=50, labelled=0.0, random_seed=0)
    >>> identification_text(sim.data)[1]
    'not identified'
    """
    from bayes_pairwise.identification import identification

    found = identification(data, random_seed=random_seed)
    if not found:
        return "", "not identified"
    rank = ["not identified", "not assessed", "weakly identified", "identified", "not applicable"]
    worst = min((r.status for r in found), key=rank.index)
    if len(found) == 1:
        return found[0].text, worst
    # judges without a pair decided in both orders: their counts, the explanation once
    # (merge_per_judge); the same statement for several judges: once, with their names
    # (LLMFAO's 124 judges wrote the one paragraph 124 times, 44,000 characters)
    said = [(str(r.judge), _split_caveat("identification", r.text)) for r in found]
    merged = merge_per_judge(said)
    alike: dict[str, list[str]] = {}
    for j, c in said:
        alike.setdefault(merged.get((j, c.text), c.text), []).append(j)
    joined = set(merged.values())  # these name their judges already
    parts = [t if t in joined else f"[{', '.join(js)}] {t}" for t, js in alike.items()]
    return " ".join(parts), worst


def dispersion_kwargs(fits: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`caveats_for` needs to know of an analysis' tie rates: ``dispersed`` (the
    models whose tie rate varies by context), ``pair_dispersed`` (by pair) and
    ``one_rate_too`` (some model fits one tie rate).

    Examples
    --------
    >>> class Fit:
    ...     tie_dispersion = "pair"
    >>> dispersion_kwargs({"positional_order": Fit()})
    {'dispersed': (), 'pair_dispersed': ('positional_order',), 'one_rate_too': False}
    """
    by = {n: tie_dispersion_group(getattr(f, "tie_dispersion", False)) for n, f in fits.items()}
    return {
        "dispersed": tuple(n for n, g in by.items() if g == "context"),
        "pair_dispersed": tuple(n for n, g in by.items() if g == "pair"),
        "one_rate_too": any(g is None for g in by.values()),
    }


def caveats_for(
    data: Comparisons,
    *,
    model_kind: str,
    has_truth: bool | None = None,
    test_correlation: bool = True,
    n_bootstrap: int = 99,
    random_seed: int = 0,
    identified: tuple[str, str] | None = None,
    tie_positional: bool = False,
    tie_checks: Mapping[str, TiePositionCheck] | None = None,
    moments: Mapping[str, PositionalMoments] | None = None,
    dispersed: Sequence[str] = (),
    one_rate_too: bool = False,
    pair_dispersed: Sequence[str] = (),
) -> list[Caveat]:
    """The caveats that apply to an analysis of ``data``.

    Parameters
    ----------
    data : Comparisons
        The log analysed (as passed to the model or the classical statistics).
    model_kind : {"uniform", "positional", "difficulty", "classical", "biased_bt"}
        What was estimated.
    has_truth : bool, optional
        Whether the analysis used gold labels (default: ``data.has_truth``; pass False for a
        ground-truth-free analysis of a labelled log).
    test_correlation : bool
        Run the within-pair correlation test when the log has repeats in both orders.
    n_bootstrap, random_seed : int
        Passed to :func:`~bayes_pairwise.classical.correlation.within_pair_correlation`.
    identified : (str, str), optional
        :func:`identification_text` of ``data`` when already computed (it is computed here
        otherwise, where a caveat needs it).
    tie_positional : bool
        The analysis fits one tie rate per position (:func:`ties_depend_on_position`).
    tie_checks : dict, optional
        :func:`~bayes_pairwise.classical.descriptive.tie_position_check` by judge when already
        computed (a judge not in it is checked here).
    moments : dict, optional
        :func:`~bayes_pairwise.classical.descriptive.positional_moments` by judge when already
        computed (the position-preference check reads them where the log keeps no ties).
    dispersed : sequence of str
        The analysis' models that let the tie rate vary by context
        (:func:`ties_cluster_by_context`).
    one_rate_too : bool
        Other models of the analysis fit one tie rate for every context (or pair).
    pair_dispersed : sequence of str
        The analysis' models that let the tie rate vary by pair (:func:`ties_cluster_by_pair`).

    Returns
    -------
    list of Caveat
        In a fixed order; empty when nothing applies.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> sim = simulate_hard_pairs(8, random_seed=0)
    >>> [c.code for c in caveats_for(sim.data_unlabelled, model_kind="positional")]
    ['correlated_errors', 'text_blind']
    >>> [c.code for c in caveats_for(sim.data, model_kind="positional")]
    ['partial_labels']
    >>> [c.code for c in caveats_for(sim.data_unlabelled, model_kind="difficulty")]
    ['difficulty_not_identified']
    >>> [c.code for c in caveats_for(sim.data, model_kind="classical")]
    ['correlated_errors', 'labelled_rates']
    """
    if model_kind not in MODEL_KINDS:
        raise ValueError(f"model_kind must be one of {MODEL_KINDS}, got {model_kind!r}")
    out: list[Caveat] = []
    if data.has_weights:
        out.append(weighted_log(data))
        data = data.without_weights()  # what the log can show: its verdicts, each once
    labelled = data.has_truth if has_truth is None else bool(has_truth)
    repeats = has_repeats(data)
    few = too_few_verdicts(data)
    if few is not None:
        out.append(few)
    nominal = order_not_recorded(data, model_kind=model_kind)
    if nominal is not None:
        out.append(nominal)
    needs_id = (model_kind in ("uniform", "positional", "classical") and not labelled) or (
        model_kind == "difficulty" and not labelled and not repeats
    )
    if needs_id and identified is None:
        identified = identification_text(data, random_seed=random_seed)
    if model_kind in ("uniform", "positional", "classical") and not (
        labelled and model_kind != "classical"
    ):
        # the computed statement first (issue 25), then the fixed explanation
        said = identified[0] + " " if identified and not labelled else ""
        status = identified[1] if identified and not labelled else ""
        # the fixed explanation where it holds: transitivity shows hard pairs on some designs,
        # and with no pair in both orders no error repeats across orders
        tail = {
            "identified": CORRELATED_ERRORS_TRANSITIVITY,
            "not applicable": "",
        }.get(status, CORRELATED_ERRORS)
        text = (said + tail).strip()
        # judges without a pair in both orders: their counts, the explanation once
        out.append(_split_caveat("correlated_errors", text))
    if model_kind in ("uniform", "positional") and labelled:
        n_lab, n_rows = _labelled_pair_share(data)
        if n_lab < n_rows:
            out.append(
                Caveat(
                    "partial_labels",
                    f"Gold labels fix the truth of {n_lab} of {n_rows} (judge, pair) rows. The "
                    "model counts the errors on those, but still reads the unlabelled pairs "
                    "as independent errors, so if errors are correlated within a pair its rates "
                    "stay biased low (partly corrected). Read the plain labelled rates "
                    "(labelled_error_rates) next to it, or fit positional_difficulty, which "
                    "carries the labelled pairs' hard share over to the unlabelled ones.",
                )
            )
    if model_kind == "classical" and labelled:
        out.append(
            Caveat(
                "labelled_rates",
                "S_com, the moments and Δ_S ignore the gold labels and are "
                "ground-truth-free; the plain labelled error rates (labelled_error_rates, "
                "Wilson intervals) are not biased by errors correlated within a pair: a "
                "labelled rate well above the ground-truth-free one is the signature of such "
                "errors.",
            )
        )
    if model_kind == "difficulty" and not labelled:
        if repeats:
            out.append(
                Caveat(
                    "difficulty_repeats_only",
                    "No gold labels: the pair-difficulty model learns the hard share only from "
                    "disagreement among repeated verdicts of a pair. Pairs the judge gets wrong "
                    "consistently (every repeat, both orders) still look like reversed truths, "
                    "so the rates can remain biased low; gold labels on some pairs identify "
                    "them.",
                )
            )
        elif identified is not None and identified[1] in ("identified", "weakly identified"):
            out.append(
                Caveat(
                    "difficulty_identification",
                    identified[0] + " Without gold labels the pair-difficulty model's rates "
                    "rest on that and on its priors; read hard_share with its HDI.",
                )
            )
        else:
            out.append(
                Caveat(
                    "difficulty_not_identified",
                    "NOT IDENTIFIED: without gold labels and without repeated verdicts the "
                    "hard-pair share, the hard error rate and hence the error rates of the "
                    "pair-difficulty model are set by the priors, not by the data (a hard pair "
                    "judged wrong in both orders is indistinguishable from a reversed truth). "
                    "Treat its numbers as prior-driven; give gold labels on some pairs "
                    "(--truth-column) or repeat verdicts.",
                )
            )
    if model_kind in ("uniform", "positional", "classical") and moments is None:
        moments = _moments_by_judge(data)  # once, for both checks against the ceiling
    if model_kind in ("positional", "classical") and not labelled:
        varies = position_preference_varies(data, checks=tie_checks, moments=moments)
        if varies is not None:
            out.append(varies)
    if model_kind in ("uniform", "positional", "classical"):
        alone = one_position_only(data)
        if alone is not None:
            out.append(alone)
        blind = text_blind(data, checks=tie_checks, moments=moments)
        if blind is not None:
            out.append(blind)
        tied = ties_depend_on_position(data, tie_positional=tie_positional, checks=tie_checks)
        if tied is not None:
            out.append(tied)
        clustered = ties_cluster_by_context(data, dispersed=dispersed, one_rate_too=one_rate_too)
        if clustered is not None:
            out.append(clustered)
        paired = ties_cluster_by_pair(
            data, dispersed=pair_dispersed, one_rate_too=one_rate_too, checks=tie_checks
        )
        if paired is not None:
            out.append(paired)
    if test_correlation and repeats and model_kind != "biased_bt":
        res = within_pair_correlation(data, n_bootstrap=n_bootstrap, random_seed=random_seed)
        text = res.summary()
        shared = f" {res.conclusion()}" if res.testable else ""
        out.append(
            Caveat(
                "within_pair_correlation",
                text,
                lead="Within-pair error correlation test on " if shared else "",
                shared=shared,
            )
        )
    reading = repeats_reading(data) if repeats else None
    if reading is not None:  # what the correlation test and difficulty-by-repeats stand on
        out.append(Caveat("repeats_reading", reading))
    return out


#: The progress line a fit prints before :func:`record_caveats` (its checks, the within-pair
#: correlation test's bootstrap above all, take seconds on large logs).
CAVEATS_STEP = "what the log cannot show (caveats)"


def _realised_rates(pc: Any, rank: np.ndarray, wins: np.ndarray, n_j: int) -> dict[str, Any]:
    """Per judge, the share of a simulated log's decided verdicts that are wrong given its
    order (``rank``, 0 = the best): ε₊ among those showing the better item first, ε₋ second,
    ε among all."""
    better = rank[np.asarray(pc.i)] < rank[np.asarray(pc.j)]
    n1, n2 = wins[:, 0].astype(float), wins[:, 1].astype(float)
    t1, t2 = (wins[:, 2], wins[:, 3]) if wins.shape[1] == 4 else (0, 0)
    d1 = np.asarray(pc.k_plus) - t1  # decided verdicts with i first, with i second
    d2 = np.asarray(pc.k_minus) - t2
    wrong_plus = np.where(better, d1 - n1, n2)  # the better item first and it lost
    shown_plus = np.where(better, d1, d2)
    wrong_minus = np.where(better, d2 - n2, n1)
    shown_minus = np.where(better, d2, d1)
    judge = np.asarray(pc.judge)

    def share(wrong: np.ndarray, shown: np.ndarray) -> np.ndarray:
        return np.bincount(judge, wrong, n_j) / np.maximum(np.bincount(judge, shown, n_j), 1)

    return {
        "eps_plus": share(wrong_plus, shown_plus),
        "eps_minus": share(wrong_minus, shown_minus),
        "eps": share(wrong_plus + wrong_minus, shown_plus + shown_minus),
    }


#: Set while :func:`joint_mode` refits its simulated log: that fit records no caveats (and
#: simulates no log of its own).
_REFITTING: ContextVar[bool] = ContextVar("joint_mode_refit", default=False)


@dataclass(frozen=True)
class ModeShift:
    """What :func:`mode_shift` measured: per judge (rows) and rate (``names``), the fit's rates
    on the log (``fitted``: the MAP point, or the Laplace approximation's mean), the same fit on
    the simulated log (``refitted``) and the share of the simulated verdicts that are wrong
    (``realised``); ``matters`` per judge; ``method`` the fit's (``"map"`` or ``"laplace"``).

    Examples
    --------
    >>> m = ModeShift(("eps",), ("j",), {"eps": np.array([0.1])}, {"eps": np.array([0.09])},
    ...               {"eps": np.array([0.1])}, (True,), 30.0, "5", 500, "uniform")
    >>> round(float(m.shift["eps"][0]), 3), round(float(m.corrected["eps"][0]), 3)
    (-0.01, 0.11)
    """

    names: tuple[str, ...]
    judges: tuple[str, ...]
    fitted: Mapping[str, np.ndarray]
    refitted: Mapping[str, np.ndarray]
    realised: Mapping[str, np.ndarray]
    matters: tuple[bool, ...]
    sigma_s: float
    sizes: str
    n_items: int
    model_name: str
    method: str = "map"

    @property
    def shift(self) -> dict[str, np.ndarray]:
        """Refitted minus realised, per rate (judges along the array)."""
        return {n: self.refitted[n] - self.realised[n] for n in self.names}

    @property
    def corrected(self) -> dict[str, np.ndarray]:
        """The log's MAP rates less the shift (what they read if the truth is as hard)."""
        return {n: self.fitted[n] - self.shift[n] for n in self.names}


def mode_shift(model: Any, data: Comparisons, *, random_seed: int = 0) -> ModeShift | None:
    """How far a strength model's MAP or Laplace fit (a joint mode) shifts the error rates,
    measured on the log's own design; None when it does not apply (:func:`joint_mode` says it
    in words).

    A MAP fit of ``uniform`` or ``positional`` maximises jointly over every item's strength and
    the rates; its Laplace approximation (``method="laplace"``, ``--fast``) is a Gaussian centred
    at such a mode, so it carries the same shift and is measured the same way, with the
    approximation's mean as its rate and a Laplace refit. With few items per context each
    context's strengths bend to explain its own verdicts, and the rates read low (the
    incidental-parameter bias of a joint mode; on the QLoRA GPT-4 log ε₋ 0.125 where NUTS
    gives 0.138). Where every context has at most
    :data:`~bayes_pairwise.pymc_models.order_kernel.MAX_CONTEXT_ITEMS` items, one log is
    simulated on the same design at the fitted rates (tie rates, the judges' own) with a total
    order per context drawn at random (METHODS §3; :func:`~bayes_pairwise.simulate.order_counts`),
    the same model is fitted to it the same way, and the shift is measured against the share of the
    simulated verdicts that are wrong (known there: the order is drawn), so that the log's own
    sampling noise does not enter it. The caveat is said when a judge's shift exceeds
    :data:`~bayes_pairwise.conventions.AGREEMENT_TOLERANCE` and half the rate's binomial
    standard error on the judge's decided verdicts (a smaller shift is noise of the one
    simulated log, or too small next to the rate's own uncertainty to move a verdict), with the
    shift and the rates less the shift.

    Parameters
    ----------
    model : fitted model
        Anything else than a MAP or Laplace fit of
        :class:`~bayes_pairwise.pymc_models.UniformError` or
        :class:`~bayes_pairwise.pymc_models.PositionalBias` gives None.
    data : Comparisons
        The log it was fitted to (a log with weights or gold labels gives None: the simulated
        log would carry neither).
    random_seed : int
        Seed of the simulated log.

    Returns
    -------
    ModeShift or None

    Examples
    --------
    >>> from bayes_pairwise.pymc_models import PositionalBias
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(4, eps_plus=0.05, eps_minus=0.2, repeats=1,
    ...                            n_contexts=400, random_seed=3)
    >>> m = PositionalBias().fit(sim.data, method="map", random_seed=0)
    >>> shift = mode_shift(m, sim.data)
    >>> shift.matters, bool(shift.shift["eps_minus"][0] < 0)
    ((True,), True)
    """
    from bayes_pairwise.conventions import AGREEMENT_TOLERANCE
    from bayes_pairwise.pymc_models.order_kernel import MAX_CONTEXT_ITEMS
    from bayes_pairwise.simulate import log_from_counts, order_counts

    method = getattr(model, "method_", None)
    if _REFITTING.get() or method not in ("map", "laplace"):
        return None
    # the two strength models themselves (not their variants), named: this module sits below
    # the model classes
    strength_models = ("UniformError", "PositionalBias")
    if type(model).__name__ not in strength_models or data.has_weights or data.has_truth:
        return None  # weights and gold labels: the simulated log would not carry them
    ctx = np.asarray(data.item_context)
    size = np.bincount(ctx, minlength=data.n_contexts)
    if size.max(initial=0) > MAX_CONTEXT_ITEMS:
        return None
    post = model.idata_.posterior
    names = ["eps_plus", "eps_minus"] if "eps_plus" in post else ["eps"]
    n_j = data.n_judges

    def point(idata_post: Any, n: str) -> np.ndarray:  # the MAP's one draw, Laplace's mean
        return np.asarray(idata_post[n]).reshape(-1, n_j).mean(axis=0)

    fitted = {n: point(post, n) for n in names}
    pc = pair_counts(data)
    judge = np.asarray(pc.judge)
    ties = float(np.sum(pc.t1) + np.sum(pc.t2))
    tie_cols = {}  # the fit's tie rates (a tie rate too where it drops them: the log has ties)
    for n in ("tie_rate_plus", "tie_rate_minus") if "tie_rate_plus" in post else ("tie_rate",):
        if n in post:
            tie_cols[n] = point(post, n)
    if ties and not tie_cols:
        shown = np.bincount(judge, pc.k_plus + pc.k_minus, n_j)
        tie_cols["tie_rate"] = np.bincount(judge, pc.t1 + pc.t2, n_j) / np.maximum(shown, 1)
    rng = np.random.default_rng([int(random_seed), 7])
    rank = np.empty(data.n_items, dtype=np.int64)
    for c in range(data.n_contexts):  # a random total order per context: rank 0 the best
        members = np.flatnonzero(ctx == c)
        rank[members] = rng.permutation(members.size)
    wins = order_counts(pc, ctx, rank, {**fitted, **tie_cols}, bool(ties), rng)
    token = _REFITTING.set(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refit = type(model)(**model.get_params()).fit(
                log_from_counts(data, wins), method=method, random_seed=random_seed
            )
    except (BayesPairwiseError, ValueError, RuntimeError):
        return None
    finally:
        _REFITTING.reset(token)
    again = {n: point(refit.idata_.posterior, n) for n in names}
    made = _realised_rates(pc, rank, wins, n_j)  # the simulated log's own error shares
    made = {n: made[n] for n in names}
    decided = np.bincount(judge, pc.k_plus + pc.k_minus - pc.t1 - pc.t2, n_j)
    share = 1.0 if names == ["eps"] else 0.5  # ε₊ and ε₋ each rest on about half of them

    def matters(n: str, k: int) -> bool:  # beyond the tolerance and half a standard error
        r = float(fitted[n][k])
        se = math.sqrt(max(r * (1.0 - r), 1e-12) / max(share * decided[k], 1.0))
        return abs(again[n][k] - made[n][k]) > max(AGREEMENT_TOLERANCE, 0.5 * se)

    return ModeShift(
        names=tuple(names),
        judges=tuple(str(j) for j in post.coords["judge"].values),
        fitted=fitted,
        refitted=again,
        realised=made,
        matters=tuple(any(matters(n, k) for n in names) for k in range(n_j)),
        sigma_s=float(np.mean(post["sigma_s"])) if "sigma_s" in post else math.nan,
        sizes=f"{size.min()}" if size.min() == size.max() else f"{size.min()}–{size.max()}",
        n_items=int(data.n_items),
        model_name=str(model.name),
        method=str(method),
    )


def joint_mode(model: Any, data: Comparisons, *, random_seed: int = 0) -> Caveat | None:
    """The caveat of a strength model's MAP or Laplace fit whose joint mode shifts the error
    rates (measured by :func:`mode_shift`), naming the judges it concerns; None when it does not
    apply or no judge's shift matters.

    Examples
    --------
    >>> from bayes_pairwise.pymc_models import PositionalBias
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(4, eps_plus=0.05, eps_minus=0.2, repeats=1,
    ...                            n_contexts=400, random_seed=3)
    >>> m = PositionalBias().fit(sim.data, method="map", random_seed=0)
    >>> caveat = joint_mode(m, sim.data)
    >>> caveat.code, caveat.judges
    ('map_joint_mode', ('judge',))
    """
    ms = mode_shift(model, data, random_seed=random_seed)
    if ms is None or not any(ms.matters):
        return None
    sym = {"eps": "ε", "eps_plus": "ε₊", "eps_minus": "ε₋"}
    shift, corrected = ms.shift, ms.corrected

    def rates(values: Mapping[str, np.ndarray], k: int) -> str:
        return ", ".join(f"{sym[n]} {values[n][k]:.3f}" for n in ms.names)

    who = len(ms.judges) > 1  # one judge: no name before its numbers ("read judge: ε …")
    per_judge = "; ".join(
        (f"{j}: " if who else "") + f"{rates(ms.refitted, k)} where its verdicts were wrong at "
        f"{rates(ms.realised, k)}, a shift of "
        + ", ".join(f"{shift[n][k]:+.3f}" for n in ms.names)
        + f" (on a log whose truth is that hard, this one's rates less the shift: "
        f"{rates(corrected, k)})"
        for k, j in enumerate(ms.judges)
        if ms.matters[k]
    )
    order = "positional_order" if ms.names[0] == "eps_plus" else "uniform_order"
    laplace = ms.method == "laplace"
    what = "Laplace approximation (--fast) is a Gaussian centred at" if laplace else "MAP is"
    same = "the same Laplace approximation" if laplace else "the same MAP"
    flag = "--fast" if laplace else "--map"
    text = (
        f"{ms.model_name}'s {what} a joint mode over the {ms.n_items:,} strengths ({ms.sizes} "
        f"per context, σ_s = {ms.sigma_s:.3g} at the mode) and the rates: each context's "
        "strengths bend to explain its own verdicts (a pair the judge got wrong in both orders "
        "reads as a reversed truth), and such a mode shifts the rates. On this "
        "log's design simulated at the fitted rates with a total order per context (a hard "
        f"truth), {same} read {per_judge}; a softer truth shifts them less. A {flag} "
        f"verdict on these rates carries that shift; NUTS (without {flag}) averages over the "
        f"strengths, and --model {order} sums each context's order out."
    )
    return Caveat(
        "map_joint_mode", text, tuple(j for j, m in zip(ms.judges, ms.matters, strict=True) if m)
    )


#: A NUTS fit whose kept draws take at least this many leapfrog steps on average (a mean tree
#: depth of about 7) has long trajectories: the soft-truth benchmarks take 15-31, the real
#: QLoRA GPT-4 log 327 (``docs/src/speed.md``).
LONG_TRAJECTORY_STEPS = 100

#: σ_s's posterior mean from which a strength model's strengths read as a nearly hard truth:
#: two items one prior sd of z apart are then ≥ 5 logits apart, P(truth) ≥ 0.993.
HARD_TRUTH_SIGMA = 5.0

#: The codes of the caveats a fit carries of its own (not the log's): the cross-check passes
#: them on to the judges they name.
FIT_CAVEATS = ("map_joint_mode", "long_trajectories")


def order_model_for(model: Any, data: Comparisons, *, method: str = "nuts") -> str | None:
    """The order model (with its options) that is the hard-truth limit of ``model`` on ``data``.

    The name a strength model's class declares as its own ``hard_truth_limit``
    (:class:`~bayes_pairwise.pymc_models.UniformError`: ``"uniform_order"``,
    :class:`~bayes_pairwise.pymc_models.PositionalBias`: ``"positional_order"``; a subclass
    that does not declare it, such as the hierarchical and difficulty variants, has none), with
    ``" --tie-positional"`` where the model fits one tie rate per position, when the fit is
    NUTS, not with closeness tie rates, and every context of ``data`` has at most
    :data:`~bayes_pairwise.pymc_models.order_kernel.MAX_CONTEXT_ITEMS` items (some three or
    more, two contexts or more); ``None`` otherwise. The one rule behind
    :func:`~bayes_pairwise.pymc_models.order.order_model_note` (before a fit) and
    :func:`long_trajectories` (after it).

    Examples
    --------
    >>> from bayes_pairwise.pymc_models import PositionalBias, PositionalDifficulty
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(7, eps=0.1, n_contexts=30, random_seed=0)
    >>> order_model_for(PositionalBias(), sim.data)
    'positional_order'
    >>> order_model_for(PositionalBias(), sim.data, method="map") is None
    True
    >>> order_model_for(PositionalDifficulty(), sim.data) is None
    True
    """
    from bayes_pairwise.pymc_models.order_kernel import MAX_CONTEXT_ITEMS

    order = type(model).__dict__.get("hard_truth_limit")
    if method != "nuts" or not order or getattr(model, "tie_closeness", False):
        return None
    size = np.bincount(np.asarray(data.item_context), minlength=data.n_contexts)
    if size.size < 2 or size.max() > MAX_CONTEXT_ITEMS or size.max() < 3:
        return None
    if getattr(model, "tie_positional", False):
        order += " --tie-positional"
    return str(order)


def context_sizes_text(data: Comparisons) -> str:
    """``"953 contexts of 3–7 items"``: the count of ``data``'s contexts and their sizes.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> context_sizes_text(simulate_round_robin(7, n_contexts=30, random_seed=0).data)
    '30 contexts of 7 items'
    """
    size = np.bincount(np.asarray(data.item_context), minlength=data.n_contexts)
    sizes = f"{size.min()}" if size.min() == size.max() else f"{size.min()}–{size.max()}"
    return f"{size.size} contexts of {sizes} items"


def _sure_pair_share(idata: Any) -> float | None:
    """Share of a strength fit's distinct pairs whose posterior-mean strengths differ by more
    than logit(0.99); None when the fit stored no strengths or pairs."""
    const = getattr(idata, "constant_data", None)
    post = idata.posterior
    if const is None or "strength" not in post or not {"pair_i", "pair_j"} <= set(const):
        return None
    s = np.asarray(post["strength"].mean(("chain", "draw")), dtype=float).ravel()
    pairs = np.unique(
        np.stack([np.asarray(const["pair_i"]), np.asarray(const["pair_j"])], axis=1), axis=0
    )
    if not pairs.size or pairs.max() >= s.size:
        return None
    return float(np.mean(np.abs(s[pairs[:, 0]] - s[pairs[:, 1]]) > math.log(99.0)))


def _sigma_prior_text(model: Any) -> str | None:
    """The fit's prior on σ_s as written in its settings, e.g. ``"σ_s ~ HalfNormal(sigma=10)"``;
    None where the model has none to say."""
    try:
        table = dict(model.resolved_priors()["sigma_s"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    dist = table.pop("dist", None)
    if dist is None:
        return None
    args = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in table.items())
    return f"σ_s ~ {dist}({args})"


def long_trajectories(model: Any, data: Comparisons) -> Caveat | None:
    """The caveat of a strength model's NUTS fit whose trajectories are long because its
    strengths read as a nearly hard truth; None when it does not apply.

    It applies when the fit was NUTS, its kept draws took at least
    :data:`LONG_TRAJECTORY_STEPS` leapfrog steps on average or hit the maximum tree depth
    (:func:`~bayes_pairwise.pymc_models.diagnostics.trajectory_stats`), and σ_s's posterior
    mean is at least :data:`HARD_TRUTH_SIGMA`. Every number in the text is this fit's; where
    the log's contexts allow it
    (:func:`order_model_for`), it names the order model
    that sums the hard truth out.

    Examples
    --------
    >>> import arviz as az
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> data = simulate_round_robin(7, n_contexts=30, random_seed=0).data
    >>> idata = az.from_dict(posterior={"sigma_s": np.full((2, 4), 20.0)},
    ...                      sample_stats={"n_steps": np.full((2, 4), 255),
    ...                                    "step_size": np.full((2, 4), 0.05)})
    >>> fit = SimpleNamespace(idata_=idata, method_="nuts", name="positional")
    >>> long_trajectories(fit, data).code
    'long_trajectories'
    >>> fit = SimpleNamespace(idata_=idata, method_="map", name="positional")
    >>> long_trajectories(fit, data) is None
    True
    """
    from bayes_pairwise.pymc_models.diagnostics import trajectory_stats

    idata = getattr(model, "idata_", None)
    if idata is None or getattr(model, "method_", None) != "nuts":
        return None
    post = getattr(idata, "posterior", None)
    if post is None or "sigma_s" not in post:
        return None
    stats = trajectory_stats(idata)
    if stats is None or (stats.steps_per_draw < LONG_TRAJECTORY_STEPS and stats.depth_hits == 0):
        return None
    sigma = float(post["sigma_s"].mean())
    if not sigma >= HARD_TRUTH_SIGMA:
        return None
    name = getattr(model, "name", type(model).__name__)
    hits = (
        f"{stats.depth_hits:,} of {stats.n_draws:,} draws hit the maximum tree depth"
        if stats.depth_hits
        else "no draw hit the maximum tree depth"
    )
    sure = _sure_pair_share(idata)
    where = (
        f"; at the posterior mean strengths {sure:.0%} of the log's pairs have a truth "
        "probability σ(s_i − s_j) above 0.99 or below 0.01"
        if sure is not None
        else ""
    )
    text = (
        f"{name}'s NUTS fit took {stats.steps_per_draw:.0f} leapfrog steps per draw "
        f"(step size {stats.step_size:.3g}; {hits}), with σ_s's posterior mean at "
        f"{sigma:.3g}{where}: the judge's verdicts read as a nearly hard truth. In the "
        "sampler's coordinates each pair is then a logistic "
        f"wall about 1/σ_s = {1 / sigma:.2g} wide, which sets the step size, so the "
        "trajectories are long by the posterior's geometry; more draws do not shorten them "
        "(R-hat and ESS still say whether this fit converged)."
    )
    prior = _sigma_prior_text(model)
    if prior is not None:
        text += (
            " Their length grows in proportion to σ_s (docs/src/speed.md), and under a nearly "
            "hard truth the verdicts do not bound σ_s: its prior does (here "
            f"{prior}). A smaller fixed scale would shorten them but reads the error rates "
            "low where they rest on the strengths (pairs seen in one order)."
        )
    order = order_model_for(model, data)
    if order is not None:
        text += (
            f" On this log ({context_sizes_text(data)}) --model {order} fits the same error "
            "rates with each context's order summed out (the σ_s → ∞ limit, METHODS §3), at a "
            "few steps per draw."
        )
    return Caveat("long_trajectories", text)


def record_caveats(model: Any, data: Comparisons, *, random_seed: int | None = 0) -> Any:
    """Store the caveats of a fitted error model: ``model.caveats_`` and the JSON attribute
    ``caveats`` of ``model.idata_.posterior``; returns ``model``.

    The kind is ``model.caveat_kind`` when the class sets one, else ``"positional"`` or
    ``"uniform"`` from ``model.positional``.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_hard_pairs
    >>> from bayes_pairwise.pymc_models import PositionalBias
    >>> sim = simulate_hard_pairs(8, random_seed=0)
    >>> m = PositionalBias().fit(sim.data_unlabelled, method="map", random_seed=0)
    >>> [c.code for c in m.caveats_]   # one context of 8: the MAP's joint mode shifts too
    ['correlated_errors', 'text_blind', 'map_joint_mode']
    >>> caveats_from_idata(m.idata_)[0].code
    'correlated_errors'
    """
    if _REFITTING.get():  # joint_mode's refit of a simulated log: nothing to say about it
        model.caveats_ = []
        return model
    kind = getattr(model, "caveat_kind", None)
    if kind is None:
        kind = "positional" if getattr(model, "positional", False) else "uniform"
    # the fit's seed (0 when unseeded): the same numbers as fit --json's identification
    seed = integer_seed(random_seed)
    seed = 0 if seed is None else seed
    caveats = caveats_for(
        data,
        model_kind=kind,
        random_seed=seed,
        tie_positional=bool(getattr(model, "tie_positional", False)),
        **dispersion_kwargs({getattr(model, "name", type(model).__name__): model}),
    )
    for found in (joint_mode(model, data, random_seed=seed), long_trajectories(model, data)):
        if found is not None:
            caveats = [*caveats, found]
    model.caveats_ = caveats
    model.idata_.posterior.attrs[ATTR_CAVEATS] = json.dumps([c.to_dict() for c in caveats])
    return model


def caveats_from_idata(idata: Any) -> list[Caveat]:
    """The caveats stored with a fit (also after ``save`` / ``load_model``); [] when none.

    Examples
    --------
    >>> import arviz as az
    >>> caveats_from_idata(az.InferenceData())
    []
    """
    post = getattr(idata, "posterior", None)
    raw = post.attrs.get(ATTR_CAVEATS) if post is not None else None
    if not raw:
        return []
    return [Caveat(c["code"], c["text"], tuple(c.get("judges", ()))) for c in json.loads(raw)]
