"""Descriptive statistics of a pairwise judge (METHODS §2).

* Commutativity score S_com: the share of unordered pairs whose two verdicts pick the same
  *position* (z_ij = 0). Under the uniform error model E[S_com] = 2ε(1−ε), so
  ε̂ = (1 − √(1 − 2 S_com))/2 for S_com ≤ 1/2.
* First-position win rate r₁: the share of verdicts won by the first-shown item.
* Moment estimator of (ε₊, ε₋) from (S_com, r₁): with every pair shown in both orders and the
  presentation order independent of quality,

  E[r₁]    = ½ (1 − ε₊ + ε₋)          (half the verdicts show the better item first)
  E[S_com] = ε₊ + ε₋ − 2 ε₊ ε₋        (= 1 − (1−ε₊)(1−ε₋) − ε₊ε₋, METHODS §3.2)

  With d = 2r₁ − 1 = ε₋ − ε₊ and s = ε₊ + ε₋ these give s² − 2s + 2 S_com − d² = 0, so
  s = 1 − √(1 − 2 S_com + d²) (the root with ε₊ + ε₋ < 1), ε₊ = (s − d)/2, ε₋ = (s + d)/2.
* Labelled error rates (gold labels, ``docs/src/gold_labels.md``): ε₊ = share of wrong
  verdicts among the labelled ones that show the truly better item first, ε₋ among those that
  show it second, with Wilson 95% intervals; ties are counted apart (not errors).
* Copeland scores S_i = Σ_j w_ij (= Σ_j z_ij when every pair is seen once in each order) and the
  ranking (per context when the log holds contexts).

With repeats (k₊, k₋ > 1) S_com generalises to the share of all (i-first verdict, j-first verdict)
combinations of a pair that pick the same position; every such combination is one verdict in each
order, so the expectations above are unchanged. With ``ties="half"`` a tie counts as half a
verdict each way.

Each statistic has a pure-array core and a wrapper taking a
:class:`~bayes_pairwise.data.Comparisons`; :func:`descriptive_by_judge` gives all of them for
every judge as one table.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import decided_error_rate, name_list
from bayes_pairwise.errors import (
    DesignError,
    DesignWarning,
    TieRescalingWarning,
    user_stacklevel,
)

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az

    from bayes_pairwise.data import Comparisons

__all__ = [
    "BASIS_DECIDED",
    "BASIS_RESCALED",
    "BEYOND_RATES_Z",
    "MIN_PAIRS_TEST",
    "ONE_ORDER_LEAD",
    "TIE_POSITION_Z",
    "PositionalMoments",
    "ScomEstimate",
    "TieCorrelation",
    "TiePositionCheck",
    "beyond_rates_text",
    "commutativity_score",
    "commutativity_score_counts",
    "commutativity_score_z",
    "copeland_ranking",
    "copeland_scores",
    "copeland_scores_matrix",
    "descriptive_by_judge",
    "eps_from_scom",
    "estimate_eps_scom",
    "first_position_rate",
    "labelled_error_rates",
    "moments_from_rates",
    "one_order_text",
    "position_consistency",
    "positional_moments",
    "tie_correlation",
    "tie_counts_by_context",
    "tie_counts_by_pair",
    "tie_position_check",
    "wilson_interval",
]

OnInvalid = Literal["raise", "nan"]


# ============================================================================ array cores
def commutativity_score_z(Z: np.ndarray) -> float:
    """S_com of a Z matrix: the share of unordered pairs with z_ij = 0.

    Parameters
    ----------
    Z : array_like, shape (N, N)
        Antisymmetric matrix with entries in {−1, 0, 1} (±½ with half-counted ties count as
        neither agreement nor disagreement: they are excluded from the numerator).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0, 1, 0], [-1, 0, 1], [0, -1, 0]])
    >>> commutativity_score_z(Z)  # the pair (0, 2) has z = 0: its two verdicts disagree
    0.3333333333333333
    """
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or Z.shape[0] != Z.shape[1] or Z.shape[0] < 2:
        raise ValueError(f"Z must be a square matrix with N >= 2, got shape {Z.shape}")
    iu = np.triu_indices(Z.shape[0], 1)
    return float(np.mean(Z[iu] == 0))


def commutativity_score_counts(
    k_plus: np.ndarray, k_minus: np.ndarray, n1: np.ndarray, n2: np.ndarray
) -> float:
    """S_com from per-pair counts (k₊, k₋, n₁, n₂), generalised to repeats.

    For each pair seen in both orders, every combination of one i-first and one j-first verdict
    is scored 1 when both pick the same position; S_com = Σ agreements / Σ k₊k₋. With
    k₊ = k₋ = 1 this is the paper's share of pairs with z_ij = 0. Pairs seen in one order only
    are ignored.

    Parameters
    ----------
    k_plus, k_minus : array_like of int
        Verdicts with the lower-index item i shown first / second.
    n1, n2 : array_like of float
        Wins of i among them.

    Returns
    -------
    float
        NaN when no pair was seen in both orders.

    Examples
    --------
    >>> commutativity_score_counts([1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 1])
    0.6666666666666666
    >>> commutativity_score_counts([2], [2], [2], [0])  # i wins first twice, j wins first twice
    1.0
    """
    num, den = _scom_terms(k_plus, k_minus, n1, n2)
    tot = den.sum()
    return float(num.sum() / tot) if tot > 0 else float("nan")


def _scom_terms(k_plus, k_minus, n1, n2) -> tuple[np.ndarray, np.ndarray]:
    kp = np.asarray(k_plus, dtype=float)
    km = np.asarray(k_minus, dtype=float)
    a = np.asarray(n1, dtype=float)
    b = np.asarray(n2, dtype=float)
    # same position: (first, first) = i wins i-first & j wins j-first; (second, second) = j wins
    # i-first & i wins j-first
    num = a * (km - b) + (kp - a) * b
    den = kp * km
    return num, den


def eps_from_scom(s_com: float | np.ndarray, *, on_invalid: OnInvalid = "raise") -> Any:
    """Closed-form uniform error rate from S_com: ε̂ = (1 − √(1 − 2 S_com))/2.

    Inverts E[S_com] = 2ε(1−ε) on ε ∈ [0, ½].

    Parameters
    ----------
    s_com : float or array_like
        Commutativity score(s).
    on_invalid : {"raise", "nan"}
        What to do with S_com > ½, which no uniform error rate can produce (the largest possible
        expectation is ½, at ε = ½): raise a :class:`DesignError`, or return NaN with a
        :class:`DesignWarning`.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(eps_from_scom(2 * 0.15 * 0.85), 10)
    0.15
    >>> eps_from_scom(0.6, on_invalid="nan")  # doctest: +SKIP
    nan
    """
    s = np.asarray(s_com, dtype=float)
    bad = s > 0.5
    if np.any(bad):
        msg = (
            f"S_com = {np.max(s[bad]):.4f} > 1/2: no uniform error rate produces this much "
            "position-following (E[S_com] = 2ε(1−ε) ≤ 1/2). The judge has a positional bias; use "
            "positional_moments() or the PositionalBias model instead."
        )
        if on_invalid == "raise":
            raise DesignError(msg)
        warnings.warn(msg, DesignWarning, stacklevel=user_stacklevel())
    if np.any(s < 0):
        raise ValueError("S_com must be non-negative")
    with np.errstate(invalid="ignore"):
        out = np.where(bad, np.nan, (1.0 - np.sqrt(np.clip(1.0 - 2.0 * s, 0.0, None))) / 2.0)
    return float(out) if out.ndim == 0 else out


def moments_from_rates(s_com: float, r1: float, *, clip: bool = True) -> tuple[float, float, bool]:
    """Solve the two expectation equations for (ε₊, ε₋) (module docstring).

    Parameters
    ----------
    s_com : float
        Commutativity score.
    r1 : float
        First-position win rate.
    clip : bool, default True
        Project a solution with a negative rate onto the boundary (the smaller rate set to 0).
        False keeps the unclipped solution (a negative rate: sampling noise around 0), which
        is what :func:`positional_moments` reports, so that its interval stays a real one.

    Returns
    -------
    eps_plus, eps_minus : float
        Error rate when the better item is shown first / second.
    at_boundary : bool
        True when the equations have no solution in the domain (sampling noise: S_com < |2r₁−1|,
        or S_com > (1 + (2r₁−1)²)/2). With no real solution (the second case) ε₊ + ε₋ is set
        to 1; a negative rate (the first case) is set to 0 only with ``clip``.

    Examples
    --------
    >>> ep, em = 0.1, 0.3
    >>> s, r = ep + em - 2 * ep * em, 0.5 * (1 - ep + em)
    >>> [round(x, 10) for x in moments_from_rates(s, r)[:2]]
    [0.1, 0.3]
    >>> [round(x, 4) for x in moments_from_rates(0.05, 0.47, clip=False)[:2]]  # ε₋ < 0
    [0.0547, -0.0053]
    """
    ep_a, em_a, no_real = _unclipped_moments(np.float64(s_com), np.float64(r1))
    ep, em = float(ep_a), float(em_a)
    at_boundary = bool(no_real) or ep < 0 or em < 0
    if clip:
        ep, em = max(ep, 0.0), max(em, 0.0)
    return ep, em, at_boundary


def _unclipped_moments(s_com: Any, r1: Any) -> tuple[Any, Any, Any]:
    """:func:`moments_from_rates` unclipped, on arrays: ε₊, ε₋ and whether the equations have
    no real solution (then ε₊ + ε₋ = 1)."""
    d = 2.0 * r1 - 1.0
    disc = 1.0 - 2.0 * s_com + d * d
    no_real = disc < 0
    s = 1.0 - np.sqrt(np.where(no_real, 0.0, disc))
    ep, em = (s - d) / 2.0, (s + d) / 2.0
    # S_com = |2r₁ − 1| exactly (e.g. a judge that never errs in one position) is a rate of 0,
    # not a boundary: the rounding of the square root must not make it −1e-17
    ep = np.where(np.abs(ep) < 1e-12, 0.0, ep)
    em = np.where(np.abs(em) < 1e-12, 0.0, em)
    return ep, em, no_real


def copeland_scores_matrix(M: np.ndarray) -> np.ndarray:
    """Copeland scores S_i = Σ_j m_ij of an antisymmetric Z or W matrix.

    Parameters
    ----------
    M : array_like, shape (N, N)

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0, 1, 1], [-1, 0, 0], [-1, 0, 0]])
    >>> copeland_scores_matrix(Z)
    array([ 2., -1., -1.])
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"need a square matrix, got shape {M.shape}")
    return M.sum(axis=1)


# ============================================================================ wrappers
def _block(data: Comparisons, judge: str | int | None) -> Comparisons:
    return data.one_judge(judge, hint="pass judge=… or use descriptive_by_judge()")


def _counts(data: Comparisons):
    from bayes_pairwise.matrices import pair_counts

    return pair_counts(data)


def _need_both_orders(pc, data: Comparisons) -> np.ndarray:
    both = pc.both_orders
    if not both.any():
        who = f"judge {data.judges[int(pc.judge[0])]!r}" if pc.n_pairs else "this judge"
        raise DesignError(
            f"S_com needs pairs shown in both orders; {who} saw none of its "
            f"{int(pc.n_pairs)} pair(s) in both orders"
        )
    return both


def commutativity_score(data: Comparisons, *, judge: str | int | None = None) -> float:
    """Commutativity score S_com of one judge (METHODS §2).

    Pools all pairs of all contexts. Pairs seen in only one order are ignored; with repeats the
    generalised form of :func:`commutativity_score_counts` is used.

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional
        Required when the data hold several judges.

    Returns
    -------
    float

    Raises
    ------
    DesignError
        Several judges and no ``judge``, or no pair seen in both orders.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(60, eps=0.15, random_seed=0)
    >>> round(commutativity_score(sim.data), 3), round(2 * 0.15 * 0.85, 3)
    (0.258, 0.255)
    """
    block = _block(data, judge)
    pc = _counts(block)
    both = _need_both_orders(pc, block)
    return commutativity_score_counts(pc.k_plus[both], pc.k_minus[both], pc.n1[both], pc.n2[both])


def position_consistency(data: Comparisons, *, judge: str | int | None = None) -> float:
    """Share of (i-first, j-first) verdict combinations that name the same winner or both tie.

    For a pair seen once in each order this is 1 when the two verdicts agree on the winner (or
    are both ties) — the "consistency" reported by e.g. the PRD data set. Without ties it equals
    1 − S_com. Ties must be kept (``ties="half"``) to count tie/tie as consistent.

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional

    Returns
    -------
    float

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> d = simulate_round_robin(30, eps=0.2, random_seed=0).data
    >>> round(position_consistency(d) + commutativity_score(d), 12)
    1.0
    """
    block = _block(data, judge)
    lo = np.minimum(block.first, block.second)
    hi = np.maximum(block.first, block.second)
    n = block.n_items
    key = lo.astype(np.int64) * n + hi
    lo_first = block.first == lo
    i_wins = np.where(lo_first, block.outcome, 1.0 - block.outcome)
    code = np.rint(i_wins * 2).astype(np.int64)  # 0 = j won, 1 = tie, 2 = i won
    uniq, inv = np.unique(key, return_inverse=True)
    m = uniq.size
    c_plus = np.zeros((m, 3))
    c_minus = np.zeros((m, 3))
    np.add.at(c_plus, (inv[lo_first], code[lo_first]), 1.0)
    np.add.at(c_minus, (inv[~lo_first], code[~lo_first]), 1.0)
    den = c_plus.sum(1) * c_minus.sum(1)
    if not (den > 0).any():
        raise DesignError("position consistency needs pairs shown in both orders; none was")
    return float((c_plus * c_minus).sum() / den.sum())


def first_position_rate(data: Comparisons | np.ndarray, *, judge: str | int | None = None) -> float:
    """First-position win rate r₁: share of verdicts won by the first-shown item.

    Parameters
    ----------
    data : Comparisons or array_like
        A comparison log, or an array of outcomes (1 = first wins, 0 = second, 0.5 = tie).
    judge : str or int, optional

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> first_position_rate(np.array([1, 1, 0, 0.5]))
    0.625
    """
    if isinstance(data, np.ndarray | list | tuple):
        out = np.asarray(data, dtype=float)
        if out.size == 0:
            raise ValueError("no outcomes")
        return float(out.mean())
    return float(_block(data, judge).outcome.mean())


@dataclass(frozen=True)
class ScomEstimate:
    """Uniform error rate from the commutativity score.

    Attributes
    ----------
    eps, eps_se : float
        ε̂ = (1 − √(1 − 2 S_com))/2 and its delta-method standard error (NaN when S_com > ½).
    s_com, s_com_se : float
        The commutativity score and its standard error (pairs as independent units).
    n_pairs : int
        Pairs seen in both orders.
    judge : str
    tie_share : float
        The judge's share of kept ties τ.
    decided : bool
        True when ``eps`` is the error rate among decided verdicts (ties modelled, policy
        ``"model"``): ε = (ε_half − τ/2)/(1 − τ) from the ties-counted-half closed form
        (:func:`bayes_pairwise.conventions.decided_error_rate`); False: the paper's rate with
        ties counted half (policy ``"half"``) or no tie kept.
    """

    eps: float
    eps_se: float
    s_com: float
    s_com_se: float
    n_pairs: int
    judge: str
    tie_share: float = 0.0
    decided: bool = False

    def to_inference_data(self) -> az.InferenceData:
        """One-chain, one-draw posterior with variable ``eps`` (as the Bayesian models)."""
        return _point_idata({"eps": self.eps}, self.judge, "commutativity score (closed form)")


class _AgainstTheCeiling:
    """S_com against the most any (ε₊, ε₋) give (:func:`beyond_rates_text`), for a result with
    ``s_com_ceiling``, ``s_com_excess_z``, the two standard errors of S_com − ceiling
    (``s_com_excess_se``, the sample's; ``s_com_blind_se``, that of verdicts ignoring the
    texts) and the statistics :meth:`ceiling_numbers` returns."""

    s_com_ceiling: float
    s_com_excess_z: float
    s_com_excess_se: float
    s_com_blind_se: float

    @property
    def pairs_phrase(self) -> str:
        """What the pairs of :meth:`ceiling_numbers` are, as the texts say it."""
        return "pairs decided in both orders"

    def ceiling_numbers(self) -> tuple[float, float, int]:  # pragma: no cover - abstract
        """S_com, r₁ and the number of pairs the ceiling was computed on."""
        raise NotImplementedError

    @property
    def beyond_rates(self) -> bool:
        """S_com is above what any (ε₊, ε₋) give (z ≥ :data:`BEYOND_RATES_Z`, on at least
        :data:`MIN_PAIRS_TEST` pairs)."""
        if self.ceiling_numbers()[2] < MIN_PAIRS_TEST:
            return False
        return bool(np.isfinite(self.s_com_excess_z) and self.s_com_excess_z >= BEYOND_RATES_Z)

    def beyond_text(self) -> str:
        """:func:`beyond_rates_text` with this result's numbers."""
        s_com, r1, n_pairs = self.ceiling_numbers()
        return beyond_rates_text(s_com, r1, self.s_com_ceiling, self.s_com_excess_z, n_pairs)

    def informedness(self, prob: float | None = None) -> tuple[float, float, float]:
        """1 − ε₊ − ε₋ with its interval at the package's level (read at call time): how much
        the verdicts depend on the texts, 1 for a judge that is always right and 0 for one whose
        verdicts ignore them (each by position alone).

        It needs no labels: with errors verdict by verdict, S_com = ceiling − (1 − ε₊ − ε₋)²/2
        at any first-position rate r₁ (ceiling r₁² + (1 − r₁)²), so the square is read from
        S_com's distance below its ceiling and its interval from that distance's standard
        error, which stays smooth at 0 where the square root does not (the interval is the
        square root of the square's, clipped at 0). A pair that fools the judge in both orders
        reads as one it judged right, so this is what the log can show: an upper bound on how
        far the verdicts follow the truth. NaN without a standard error.

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_round_robin
        >>> sim = simulate_round_robin(40, eps_plus=0.1, eps_minus=0.2, random_seed=0)
        >>> [round(x, 2) for x in positional_moments(sim.data).informedness()]
        [0.7, 0.66, 0.74]
        """
        from bayes_pairwise.conventions import z_value

        s_com = self.ceiling_numbers()[0]
        se = self.s_com_excess_se
        if not (np.isfinite(se) and se > 0 and np.isfinite(self.s_com_ceiling)):
            return float("nan"), float("nan"), float("nan")
        sq = 2.0 * (self.s_com_ceiling - s_com)
        half = 2.0 * z_value(prob) * se
        return (
            float(np.sqrt(min(max(sq, 0.0), 1.0))),
            float(np.sqrt(min(max(sq - half, 0.0), 1.0))),
            float(np.sqrt(min(max(sq + half, 0.0), 1.0))),
        )

    @property
    def text_blind_z(self) -> float:
        """S_com − ceiling in standard errors of verdicts that ignore the texts
        (``s_com_blind_se``): near 0 for such a judge, far below 0 for one that reads them."""
        s_com = self.ceiling_numbers()[0]
        se = self.s_com_blind_se
        if not (np.isfinite(se) and se > 0 and np.isfinite(self.s_com_ceiling)):
            return float("nan")
        return float((s_com - self.s_com_ceiling) / se)

    @property
    def text_blind(self) -> bool:
        """The log cannot tell these verdicts from ones that ignore the texts: on at least
        :data:`MIN_PAIRS_TEST` pairs, S_com is not below its ceiling by more than such verdicts
        put it there by chance (:attr:`text_blind_z` above −z at the package's interval level,
        read at call time: a one-sided test at half the level's complement, 3 % at 94 %), and
        not beyond it (:attr:`beyond_rates`, a different finding)."""
        from bayes_pairwise.conventions import z_value

        if self.ceiling_numbers()[2] < MIN_PAIRS_TEST or self.beyond_rates:
            return False
        z = self.text_blind_z
        return bool(np.isfinite(z) and z > -z_value())

    def text_blind_upper(self) -> float:
        """The upper end of 1 − ε₊ − ε₋ at the package's level, from the larger of the two
        standard errors (the sample's, and that of verdicts that ignore the texts, which the
        sample's understates where the position preference is strong)."""
        from bayes_pairwise.conventions import z_value

        s_com = self.ceiling_numbers()[0]
        se = np.nanmax([self.s_com_excess_se, self.s_com_blind_se])
        sq = 2.0 * (self.s_com_ceiling - s_com) + 2.0 * z_value() * se
        return float(np.sqrt(min(max(sq, 0.0), 1.0)))

    def pairs_to_tell(self) -> int | None:
        """About how many pairs decided in both orders would tell 1 − ε₊ − ε₋ from 0 were its
        point the truth (the test's standard error shrinking as one over the root of the
        pairs); None at a point of 0.05 or less, where the answer is not worth stating."""
        from bayes_pairwise.conventions import z_value

        n_pairs = self.ceiling_numbers()[2]
        j = self.informedness()[0]
        se = self.s_com_blind_se
        if not (np.isfinite(j) and j > 0.05 and np.isfinite(se) and se > 0):
            return None
        return math.ceil(n_pairs * (2.0 * z_value() * se / (j * j)) ** 2)

    def text_blind_text(self, *, order_recorded: bool = True) -> str:
        """What :attr:`text_blind` found, with the numbers."""
        from bayes_pairwise.conventions import interval_label

        s_com, r1, n_pairs = self.ceiling_numbers()
        j = self.informedness()[0]
        side = "the text shown first" if order_recorded else "the text labelled 'first'"
        need = self.pairs_to_tell()
        more = (
            f"; were it {j:.2f}, about {need:,} such pairs would tell it from 0"
            if need is not None
            else ""
        )
        return (
            f"over its {n_pairs:,} {self.pairs_phrase} S_com is {s_com:.3f}, against "
            f"the {self.s_com_ceiling:.3f} of a judge that picks {side} in {100 * r1:.1f} % of "
            f"its verdicts whatever the texts (z = {self.text_blind_z:.1f} in that judge's "
            f"standard errors): 1 − ε₊ − ε₋ = {j:.2f}, at most {self.text_blind_upper():.2f} "
            f"({interval_label()}){more}"
        )

    @property
    def no_real_solution(self) -> bool:
        """S_com is above its ceiling, by any margin: the moments set ε₊ + ε₋ to 1."""
        s_com = self.ceiling_numbers()[0]
        return bool(np.isfinite(self.s_com_ceiling) and s_com > self.s_com_ceiling)

    def boundary_text(self) -> str:
        """Which way the moment equations left their domain, with the numbers ('' inside it).

        Two different things: a rate below 0 (S_com < |2r₁ − 1|, sampling noise around a rate
        of 0, kept unclipped with its interval), or no real solution (S_com above its ceiling
        r₁² + (1 − r₁)², ε₊ + ε₋ set to 1; :attr:`beyond_rates` says whether that is more than
        noise).
        """
        if not getattr(self, "at_boundary", False):
            return ""
        s_com, r1, _ = self.ceiling_numbers()
        if self.no_real_solution:
            z = self.s_com_excess_z
            zs = f", z = {z:.1f}" if np.isfinite(z) else ""
            if np.isfinite(z) and z < BEYOND_RATES_Z:
                zs += ": within sampling noise of it"
            above, ceiling = _distinct_digits(s_com, self.s_com_ceiling)
            return (
                f"no real solution: S_com {above} is above {ceiling}, the "
                f"most any ε₊, ε₋ give at r₁ = {r1:.3f}{zs}; ε₊ + ε₋ set to 1"
            )
        return (
            f"a rate below 0 (S_com {s_com:.3f} < |2r₁ − 1| = {abs(2 * r1 - 1):.3f}): "
            "sampling noise around 0, kept unclipped with its interval"
        )


@dataclass(frozen=True)
class PositionalMoments(_AgainstTheCeiling):
    """Moment estimate of (ε₊, ε₋) from (S_com, r₁).

    Attributes
    ----------
    eps_plus, eps_minus : float
        Error rate when the truly better item is shown first / second.
    eps_plus_se, eps_minus_se : float
        Delta-method standard errors (pairs as independent units; NaN at the boundary).
    eps_sum, eps_sum_se : float
        ε₊ + ε₋, = 1 − √(1 − 2 S_com + (2r₁ − 1)²) before the tie rescaling, with its own
        delta-method standard error (ε₊ and ε₋ are correlated, so it is not the two SEs'
        root sum of squares).
    s_com, r1 : float
        The two statistics used.
    n_pairs, n_verdicts : int
    at_boundary : bool
        The moment equations had no solution in the domain: a rate below 0 is kept unclipped
        (sampling noise around 0) with its delta-method SE; with no real solution
        (ε₊ + ε₋ set to 1) the SEs come from a bootstrap over pairs.
    judge : str
    tie_share : float
        The judge's share of kept ties τ.
    decided : bool
        True when the rates are among decided verdicts (ties modelled; see
        :class:`ScomEstimate`).
    s_com_ceiling, s_com_excess_z : float
        The most S_com any (ε₊, ε₋) give at this r₁, and S_com's distance above it in standard
        errors (:func:`beyond_rates_text`; ties counted half where kept).
    s_com_excess_se : float
        The delta-method standard error of S_com − ceiling (pairs as units), which
        :meth:`informedness` reads.
    s_com_blind_se : float
        The standard error of S_com − ceiling were the verdicts to ignore the texts
        (:func:`_blind_se`), which :attr:`text_blind` tests with.
    """

    eps_plus: float
    eps_minus: float
    eps_plus_se: float
    eps_minus_se: float
    s_com: float
    r1: float
    n_pairs: int
    n_verdicts: int
    at_boundary: bool
    judge: str
    tie_share: float = 0.0
    decided: bool = False
    s_com_ceiling: float = float("nan")
    s_com_excess_z: float = float("nan")
    s_com_excess_se: float = float("nan")
    s_com_blind_se: float = float("nan")
    eps_sum: float = float("nan")
    eps_sum_se: float = float("nan")

    @property
    def pairs_phrase(self) -> str:
        """The pairs shown in both orders, a tie counted half where the log keeps ties."""
        return "pairs shown in both orders" + (" (a tie counted half)" if self.tie_share else "")

    def ceiling_numbers(self) -> tuple[float, float, int]:
        """S_com, r₁ and the pairs shown in both orders."""
        return self.s_com, self.r1, self.n_pairs

    def to_inference_data(self) -> az.InferenceData:
        """One-chain, one-draw posterior with ``eps_plus`` and ``eps_minus``."""
        return _point_idata(
            {"eps_plus": self.eps_plus, "eps_minus": self.eps_minus},
            self.judge,
            "moment estimator (S_com, first-position rate)",
        )


#: |z| at or above which :func:`tie_position_check` says a judge's ties depend on where the
#: better text is shown (a two-sided test at about the 0.3 % level).
TIE_POSITION_Z = 3.0

#: Expected pairs tied in both orders below which :func:`tie_position_check` tests their count
#: with the exact Poisson-binomial tail (above, the normal tail of ``z_pair``).
EXACT_PAIR_TAIL_BELOW = 100.0

#: Pairs (the units of the delta method) needed before a z decides a finding: in each group of
#: :func:`tie_position_check` (tied in one order only; decided in both), and for S_com above its
#: ceiling (:attr:`PositionalMoments.beyond_rates`). A normal z from fewer is not calibrated:
#: 5 pairs of a judge on its ceiling read z ≥ 3 in 2.5 % of logs (nominal 0.13 %).
MIN_PAIRS_TEST = 10


def _distinct_digits(a: float, b: float, *, least: int = 3, most: int = 6) -> tuple[str, str]:
    """``a`` and ``b`` with the fewest decimals (at least ``least``) that tell them apart, so
    that "0.7622 is above 0.7620" is not printed "0.762 is above 0.762".

    Examples
    --------
    >>> _distinct_digits(0.76216, 0.76197)
    ('0.7622', '0.7620')
    >>> _distinct_digits(0.621, 0.518)
    ('0.621', '0.518')
    """
    for k in range(least, most + 1):
        fa, fb = f"{a:.{k}f}", f"{b:.{k}f}"
        if fa != fb:
            break
    return fa, fb


#: z at or above which S_com is beyond every pair of error rates (:func:`beyond_rates_text`).
BEYOND_RATES_Z = 3.0


def beyond_rates_text(s_com: float, r1: float, ceiling: float, z: float, n_pairs: int) -> str:
    """Why no (ε₊, ε₋) describes a judge whose S_com is above its ceiling, with the numbers.

    With errors that fall verdict by verdict, a pair shown in both orders picks the same
    position twice with probability ab + (1 − a)(1 − b), a = 1 − ε₊ and b = ε₋ the chances of
    picking the first text; at a given first-position rate r₁ = (a + b)/2 that is largest when
    a = b = r₁ (ε₊ + ε₋ = 1, each verdict by position alone): S_com ≤ r₁² + (1 − r₁)².
    Above it, the judge's position preference itself varies from pair to pair.

    Examples
    --------
    >>> print(beyond_rates_text(0.621, 0.409, 0.517, 5.8, 800))  # doctest: +ELLIPSIS
    on the 800 pairs decided in both orders S_com is 0.621, above 0.517, the most any ...
    """
    return (
        f"on the {n_pairs:,} pairs decided in both orders S_com is {s_com:.3f}, above "
        f"{ceiling:.3f}, the most any ε₊ and ε₋ give when errors fall verdict by verdict at "
        f"its first-position rate {r1:.3f} (r₁² + (1 − r₁)², reached at ε₊ + ε₋ = 1, each "
        f"verdict by position alone; z = {z:.1f}): its two verdicts on a pair pick the same "
        "position more often than one position preference allows, so the preference varies "
        "from pair to pair (or question to question), and the moments have no solution "
        "(ε₊ + ε₋ set to 1)"
    )


@dataclass(frozen=True)
class TiePositionCheck(_AgainstTheCeiling):
    """Do a judge's ties depend on where the better text is shown? (:func:`tie_position_check`)

    Attributes
    ----------
    judge : str
    n_one_tie : int
        Pairs shown in both orders and decided in one only (the other order's verdicts ties).
    r1_one_tie : float
        Share of those pairs' decided verdicts that pick the first-shown text.
    n_both : int
        Pairs decided in both orders.
    r1_both : float
        Share of their decided verdicts that pick the first-shown text.
    z : float
        (r1_one_tie − r1_both) / its standard error (pairs as units; NaN when a group is empty).
    eps_plus, eps_minus, eps_plus_se, eps_minus_se : float
        The moment estimator (S_com, r₁) on the decided verdicts of the pairs decided in both
        orders: among decided verdicts, with no tie rescaling, so valid whether or not ties
        depend on the better text's position (NaN without such pairs).
    at_boundary : bool
        Those moments had no solution inside the domain.
    eps_sum, eps_sum_se : float
        ε₊ + ε₋ of those moments, with its delta-method standard error.
    eps, eps_se : float
        The uniform rate from S_com of the same pairs (closed form; NaN when S_com > 1/2).
    n_shown : int
        Pairs shown in both orders.
    tied_both, tied_both_expected : float
        Share of them with a tie in each order, and that share if every verdict tied on its own
        at the judge's tie rate τ (per pair 1 − (1 − τ)^k in each order).
    z_pair : float
        (observed − expected number of pairs tied in both orders) / its standard error.
    p_pair : float
        The one-sided p-value of that count: P(at least as many pairs tied in both orders)
        when every pair is tied in both with its own probability, exactly (a Poisson-binomial
        tail, as 1 − P(fewer): below about 1e-12 it is rounding) while fewer than
        :data:`EXACT_PAIR_TAIL_BELOW` pairs are expected, else the normal tail of ``z_pair``.
        The decision reads it, not ``z_pair``: with few expected pairs the count's
        distribution is far from normal.
    s_com_both, r1_decided, s_com_ceiling, s_com_excess_z : float
        S_com and r₁ of the decided verdicts of the pairs decided in both orders (the moments'
        statistics), the most S_com any (ε₊, ε₋) give at that r₁ and S_com's distance above it
        in standard errors (:func:`beyond_rates_text`).
    s_com_excess_se, s_com_blind_se : float
        The standard error of S_com − ceiling (:meth:`informedness` reads it) and that error
        were the verdicts to ignore the texts (:attr:`text_blind` tests with it).
    """

    judge: str
    n_one_tie: int
    r1_one_tie: float
    n_both: int
    r1_both: float
    z: float
    eps_plus: float
    eps_minus: float
    eps_plus_se: float
    eps_minus_se: float
    at_boundary: bool
    eps_sum: float = float("nan")
    eps_sum_se: float = float("nan")
    eps: float = float("nan")
    eps_se: float = float("nan")
    n_shown: int = 0
    tied_both: float = float("nan")
    tied_both_expected: float = float("nan")
    z_pair: float = float("nan")
    p_pair: float = float("nan")
    s_com_both: float = float("nan")
    r1_decided: float = float("nan")
    s_com_ceiling: float = float("nan")
    s_com_excess_z: float = float("nan")
    s_com_excess_se: float = float("nan")
    s_com_blind_se: float = float("nan")

    def ceiling_numbers(self) -> tuple[float, float, int]:
        """S_com, r₁ and the number of the pairs decided in both orders."""
        return self.s_com_both, self.r1_decided, self.n_both

    @property
    def depends(self) -> bool:
        """|z| ≥ :data:`TIE_POSITION_Z`: the ties depend on where the better text is shown."""
        return bool(np.isfinite(self.z) and abs(self.z) >= TIE_POSITION_Z)

    @property
    def pairs_cluster(self) -> bool:
        """More pairs are tied in both orders than ties that fall verdict by verdict give (ties
        that belong to the pair, or to its context): ``p_pair`` at most the one-sided normal
        tail of :data:`TIE_POSITION_Z` (0.00135 at z = 3). The exact tail, not ``z_pair``: with
        0.1 pairs expected, a normal z reads 2 pairs as z ≈ 5.7, and 3 % of small null logs
        fired (nominal 0.13 %)."""
        return bool(np.isfinite(self.p_pair) and self.p_pair <= _normal_sf(TIE_POSITION_Z))

    @property
    def rescaling_fails(self) -> bool:
        """The rescaling for the tie share does not hold on this judge's log: its ties depend
        on the better text's position, or come in pairs. S_com counts a tie half a win, and the
        rescaling ε = (ε_half − τ/2)/(1 − τ) takes the two verdicts of a pair as independent: a
        pair tied in both orders adds ½ to S_com where the rescaling expects fewer such pairs,
        so S_com and the rates from it read low."""
        return self.depends or self.pairs_cluster

    def pairs_text(self) -> str:
        """The pair count with its numbers (what :attr:`pairs_cluster` read)."""
        return (
            f"its ties come in pairs: {100 * self.tied_both:.1f} % of the {self.n_shown:,} "
            f"pairs shown in both orders are tied in both, against "
            f"{100 * self.tied_both_expected:.1f} % if ties fell verdict by verdict "
            f"(z = {self.z_pair:.1f}, "
            + ("exact " if _exact_pair_tail(self.tied_both_expected * self.n_shown) else "")
            + "one-sided p "
            + (f"= {self.p_pair:.1g})" if self.p_pair >= 1e-12 else "< 1e-12)")
        )

    def reason(self) -> str:
        """Why the rescaling fails, with the numbers (empty when it holds)."""
        out = []
        if self.depends:
            out.append(
                f"this judge's ties depend on where the better text is shown (z = {self.z:.1f})"
            )
        if self.pairs_cluster:
            out.append(self.pairs_text())
        return "; ".join(out)

    def summary(self) -> str:
        """One sentence with the numbers (what the check compares and what it found)."""
        if not np.isfinite(self.z):
            return (
                f"judge {self.judge}: {self.n_one_tie} pair(s) tied in one order only and "
                f"{self.n_both} decided in both: too few to test whether ties depend on where "
                "the better text is shown"
            )
        side = "second" if self.z > 0 else "first"
        found = (
            f"ties are more frequent when the better text is shown {side}"
            if self.depends
            else f"no sign that ties depend on where the better text is shown (|z| < "
            f"{TIE_POSITION_Z:g})"
        )
        return (
            f"of the {self.n_one_tie:,} pairs tied in one order only, the decided verdict picks "
            f"the first-shown text {100 * self.r1_one_tie:.1f} %, against "
            f"{100 * self.r1_both:.1f} % in the {self.n_both:,} pairs decided in both orders "
            f"(z = {self.z:.1f}; equal in expectation when a tie does not depend on which text "
            f"is better): {found}"
        )


def tie_position_check(data: Comparisons, *, judge: str | int | None = None) -> TiePositionCheck:
    """Test whether a judge's ties depend on where the truly better text is shown.

    Take the pairs shown in both orders. Where one order's verdicts are all ties and the other
    is decided, the decided verdict had the better text first or second; if a tie does not
    depend on which text is better (one tie rate per judge, METHODS §7.5), it is each with
    probability ½, and the decided verdict picks the first-shown text with the same probability
    ((1 − ε₊ + ε₋)/2) as a verdict of a pair decided in both orders. More ties when the better
    text is shown second (τ₋ > τ₊) leave more decided verdicts with the better text first:
    ``r1_one_tie`` above ``r1_both``. The test needs no gold labels and no model; the tie
    closeness (ties of close pairs) does not move it.

    It also counts the pairs shown in both orders that are tied in both, against the count if
    every verdict tied on its own at the judge's tie rate (``z_pair``): ties that belong to the
    pair (two texts the judge holds equal) or to its context put more pairs there, and a pair
    tied in both orders adds ½ to S_com where the rescaling for the tie share expects fewer
    (:attr:`TiePositionCheck.rescaling_fails`).

    Why it matters: S_com and the moments rescaled for the tie share, the Δ_S grids (ties placed
    at random) and a single tie rate per judge all assume it. S_com and the moments on the pairs
    decided in both orders (returned here: ε, ε₊, ε₋ and ε₊ + ε₋) do not: each such pair holds
    one decided verdict per position.

    Parameters
    ----------
    data : Comparisons
        A log with its ties kept (``ties="model"`` or ``"half"``).
    judge : str or int, optional

    Returns
    -------
    TiePositionCheck

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a", "c", "b", "c"],
    ...                    "second": ["b", "a", "c", "a", "c", "b"],
    ...                    "outcome": ["first", "second", "first", "tie", "tie", "first"]})
    >>> chk = tie_position_check(load_comparisons(df, ties="model"))
    >>> chk.n_one_tie, chk.r1_one_tie, chk.n_both, chk.r1_both  # too few pairs for a z
    (2, 1.0, 1, 0.5)
    """

    block = _block(data, judge)
    lab = block.judges[0] if block.n_judges == 1 else str(judge)
    pc = _counts(block)
    k1, k2 = pc.k_plus.astype(float), pc.k_minus.astype(float)
    d1, d2 = k1 - pc.t1, k2 - pc.t2  # decided verdicts per order
    n1, n2 = np.asarray(pc.n1_decided, dtype=float), np.asarray(pc.n2_decided, dtype=float)
    shown = (k1 > 0) & (k2 > 0)
    both = shown & (d1 > 0) & (d2 > 0)
    one = shown & ((d1 > 0) != (d2 > 0))
    first = n1 + (d2 - n2)  # decided verdicts won by the first-shown text
    decided = d1 + d2

    # the test's variance is taken under its null (one first-position share r₀ for both groups,
    # the score test): around each group's own share a group whose verdicts all pick one side
    # has variance 0, and 2 such pairs read z = −3.5 on a 5-item log (false positives 15 % at a
    # nominal 0.3 % on 5-item round robins before; tests/test_tie_position.py)
    pooled = one | both
    v_all = decided[pooled].sum()
    r0 = float(first[pooled].sum() / v_all) if v_all > 0 else float("nan")

    def ratio(mask: np.ndarray) -> tuple[float, float]:
        b, v = first[mask], decided[mask]
        n = int(mask.sum())
        if v.sum() <= 0:
            return float("nan"), float("nan")
        r = float(b.sum() / v.sum())
        if n < 2:
            return r, float("nan")
        return r, float(np.sqrt(n / (n - 1) * np.sum(((b - r0 * v) / v.sum()) ** 2)))

    r_one, se_one = ratio(one)
    r_both, se_both = ratio(both)
    se = float(np.hypot(se_one, se_both))
    enough = min(int(one.sum()), int(both.sum())) >= MIN_PAIRS_TEST
    z = (r_one - r_both) / se if enough and np.isfinite(se) and se > 0 else float("nan")
    ep = em = ep_se = em_se = float("nan")
    names = ("eps_sum", "eps_sum_se", "eps", "eps_se", "s_com_both", "r1_decided")
    rest = dict.fromkeys(
        (*names, "s_com_ceiling", "s_com_excess_z", "s_com_excess_se", "s_com_blind_se"),
        float("nan"),
    )
    boundary = False
    if int(both.sum()) >= 2:
        rows = np.flatnonzero(both)
        dec = replace(  # the decided verdicts of the pairs decided in both orders, ties left out
            pc,
            i=pc.i[rows],
            j=pc.j[rows],
            judge=pc.judge[rows],
            context=pc.context[rows],
            k_plus=d1[rows],
            k_minus=d2[rows],
            n1=n1[rows],
            n2=n2[rows],
            t1=np.zeros(rows.size),
            t2=np.zeros(rows.size),
            truth=pc.truth[rows],
        )
        m = _moments(dec, np.ones(rows.size, dtype=bool))
        ep, em = m["eps_plus"], m["eps_minus"]
        ep_se, em_se = m["eps_plus_se"], m["eps_minus_se"]
        boundary = bool(m["moments_at_boundary"])
        rest = {
            "eps_sum": m["eps_sum"],
            "eps_sum_se": m["eps_sum_se"],
            "eps": m["eps_scom"],
            "eps_se": m["eps_scom_se"],
            "s_com_both": m["s_com"],
            "r1_decided": m["r1"],
            "s_com_ceiling": m["s_com_ceiling"],
            "s_com_excess_z": m["s_com_excess_z"],
            "s_com_excess_se": m["s_com_excess_se"],
            "s_com_blind_se": m["s_com_blind_se"],
        }
    # ties in both orders of a pair, against verdicts that tie independently at the judge's rate
    tau = float((pc.t1 + pc.t2).sum() / max((k1 + k2).sum(), 1.0))
    q = (1.0 - (1.0 - tau) ** k1[shown]) * (1.0 - (1.0 - tau) ** k2[shown])
    obs = ((pc.t1[shown] > 0) & (pc.t2[shown] > 0)).astype(float)
    n_shown = int(shown.sum())
    var = float(np.sum(q * (1.0 - q)))
    z_pair = float((obs.sum() - q.sum()) / np.sqrt(var)) if var > 0 else float("nan")
    # the exact tail where the count is small enough for the normal z to mislead; with 100 or
    # more pairs expected (QLoRA: 396) the normal tail is accurate, and the exact pass (pairs
    # × count) would grow with the square of a large log
    if not n_shown:
        p_pair = float("nan")
    elif _exact_pair_tail(q.sum()):
        p_pair = _poisson_binomial_sf(q, int(obs.sum()))
    else:
        p_pair = _normal_sf(z_pair) if np.isfinite(z_pair) else float("nan")
    return TiePositionCheck(
        n_shown=n_shown,
        tied_both=float(obs.mean()) if n_shown else float("nan"),
        tied_both_expected=float(q.mean()) if n_shown else float("nan"),
        z_pair=z_pair,
        p_pair=p_pair,
        judge=lab,
        n_one_tie=int(one.sum()),
        r1_one_tie=r_one,
        n_both=int(both.sum()),
        r1_both=r_both,
        z=float(z),
        eps_plus=float(ep),
        eps_minus=float(em),
        eps_plus_se=float(ep_se),
        eps_minus_se=float(em_se),
        at_boundary=boundary,
        **{k: float(v) for k, v in rest.items()},
    )


def _exact_pair_tail(expected: float) -> bool:
    """Whether the count of pairs tied in both orders is tested with the exact tail: fewer than
    :data:`EXACT_PAIR_TAIL_BELOW` expected."""
    return bool(expected < EXACT_PAIR_TAIL_BELOW)


def _normal_sf(z: float) -> float:
    """P(Z ≥ z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _poisson_binomial_sf(q: np.ndarray, k: int) -> float:
    """P(X ≥ k) for X a sum of independent Bernoulli(q_i), exactly (the distribution of X up to
    k − 1 by one pass over the q_i, truncated there).

    Examples
    --------
    >>> round(_poisson_binomial_sf(np.full(10, 0.5), 8), 6)  # (45 + 10 + 1) / 1024
    0.054688
    """
    if k <= 0:
        return 1.0
    q = np.asarray(q, dtype=float)
    if k > q.size:
        return 0.0
    pmf = np.zeros(k)  # P(X = 0 … k − 1) over the Bernoullis seen so far
    pmf[0] = 1.0
    for qi in q:
        pmf[1:] = pmf[1:] * (1.0 - qi) + pmf[:-1] * qi
        pmf[0] *= 1.0 - qi
    return float(min(max(1.0 - pmf.sum(), 0.0), 1.0))


def _point_idata(values: dict[str, float], judge: str, method: str) -> az.InferenceData:
    import arviz as az

    attrs = {"method": method, "judge": judge, "point_estimate": 1}
    idata = az.from_dict(posterior={k: np.array([[v]]) for k, v in values.items()}, attrs=attrs)
    idata.posterior.attrs.update(attrs)
    return idata


def _stats(block: Comparisons, judge_label: str) -> dict[str, Any]:
    """Every descriptive number of one judge, with delta-method standard errors."""
    pc = _counts(block)
    both = _need_both_orders(pc, block)
    n_pairs = int(pc.n_pairs)
    if block.tie_policy == "drop" and block.n_ties_dropped:
        # a dropped tie takes one order's verdict of its pair away, and where a judge's ties
        # depend on where the better text is shown, the verdicts left in such pairs lean to
        # one position (QLoRA: 72.8 % first-shown against 55.4 % in the pairs decided in both
        # orders; ε₊ 0.006 instead of 0.028): r₁ is read on the pairs S_com is read on
        pc, both = _pair_rows(pc, both), np.ones(int(both.sum()), dtype=bool)
    m = _moments(pc, both)
    tau, se_tau, decided = _tie_share(block)
    eps_u, eps_u_se = m["eps_scom"], m["eps_scom_se"]
    ep, ep_se, em, em_se = m["eps_plus"], m["eps_plus_se"], m["eps_minus"], m["eps_minus_se"]
    # ε₊ + ε₋ with its own SE (ε₊ and ε₋ are correlated): 1 − √(1 − 2 S_com + (2r₁ − 1)²)
    es, es_se = m["eps_sum"], m["eps_sum_se"]
    if decided:  # ties modelled: every error rate among decided verdicts (conventions)
        eps_u, eps_u_se = decided_error_rate(eps_u, tau, se_half=eps_u_se, se_tau=se_tau)
        ep, ep_se = decided_error_rate(ep, tau, se_half=ep_se, se_tau=se_tau)
        em, em_se = decided_error_rate(em, tau, se_half=em_se, se_tau=se_tau)
        # the sum of two rescaled rates: (Σ − τ)/(1 − τ) = 2 · rescaled(Σ/2)
        half, half_se = decided_error_rate(es / 2.0, tau, se_half=es_se / 2.0, se_tau=se_tau)
        es, es_se = 2.0 * half, 2.0 * half_se
    return {
        "judge": judge_label,
        "n_verdicts": int(block.n_comparisons),
        "n_pairs": n_pairs,
        "n_pairs_both_orders": int(both.sum()),
        "n_ties_kept": int(np.sum(block.outcome == 0.5)),
        "tie_policy": block.tie_policy,
        "s_com": m["s_com"],
        "s_com_se": m["s_com_se"],
        "r1": m["r1"],
        "r1_se": m["r1_se"],
        "eps_scom": eps_u,
        "eps_scom_se": eps_u_se,
        "eps_plus": ep,
        "eps_minus": em,
        "eps_plus_se": ep_se,
        "eps_minus_se": em_se,
        "eps_sum": es,
        "eps_sum_se": es_se,
        "moments_at_boundary": m["moments_at_boundary"],
        "s_com_ceiling": m["s_com_ceiling"],
        "s_com_excess_z": m["s_com_excess_z"],
        "s_com_excess_se": m["s_com_excess_se"],
        "s_com_blind_se": m["s_com_blind_se"],
        "tie_share": tau,
        "decided_scale": decided,
    }


def _zero_count_se(n_pairs: int, other: float) -> float:
    """The standard error that puts the upper end of the interval of a moment rate estimated
    at exactly 0 where the exact (Clopper–Pearson) one-sided bound on its zero count lies.

    ε₊ = 0 is read from no pair in ``n_pairs`` won by the second-shown text in both orders, an
    event of probability ε₊(1 − ε₋); the bound on that probability, 1 − (α/2)^(1/n), divided
    by 1 − ε₋ (``other``), bounds ε₊; the symmetric interval at the package's level
    (:data:`~bayes_pairwise.conventions.HDI_PROB`, read at call time) then reaches it.

    Examples
    --------
    >>> round(_zero_count_se(560, 0.886) * 1.881, 3)  # the 94% bound: ε₊ ≤ 0.055
    0.055
    """
    from bayes_pairwise.conventions import resolve_hdi_prob, z_value

    alpha = (1.0 - resolve_hdi_prob(None)) / 2.0
    bound = (1.0 - alpha ** (1.0 / n_pairs)) / max(1.0 - other, 1.0 / n_pairs)
    return float(min(bound, 1.0) / z_value())


def _pair_rows(pc: Any, keep: np.ndarray) -> Any:
    """``pc`` (a :class:`~bayes_pairwise.matrices.PairCounts`) with the pair rows ``keep``."""
    n = int(pc.n_pairs)
    return replace(
        pc,
        **{
            f.name: getattr(pc, f.name)[keep]
            for f in fields(pc)
            if isinstance(getattr(pc, f.name), np.ndarray) and len(getattr(pc, f.name)) == n
        },
    )


def _blind_se(pc: Any, r1: float, den: float) -> float:
    """The standard error of S_com − ceiling were every verdict picking the first text with
    probability r₁ whatever the texts (ε₊ + ε₋ = 1), on this log's design: the test of
    :attr:`PositionalMoments.text_blind`.

    With A and B verdicts of a pair in its two orders, x and y their first-position wins less
    their means (binomial, variance A·v and B·v, v = r₁(1 − r₁)), the pair adds
    2xy + (2r₁ − 1)(Bx + Ay) to S_com's numerator less its mean and x + y to the first-position
    wins, so its share of S_com − ceiling (S_com over the pairs in both orders, C = Σ A·B; r₁
    over all N verdicts) has variance 4ABv²/C² + (2r₁ − 1)² v [A (B/C − 2/N)² + B (A/C − 2/N)²].
    One verdict per order on n pairs: 4v²/n. The delta method's sample variance
    (``s_com_excess_se``) is the interval's, not the test's: with a strong position preference
    its error correlates with S_com's (at r₁ = 0.95 on 190 pairs a judge that ignores the texts
    read z < −1.88 in 57 % of logs; with this one near the nominal 3 %).

    Examples
    --------
    >>> from bayes_pairwise.matrices import pair_counts
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> pc = pair_counts(simulate_round_robin(20, random_seed=0).data)  # 190 pairs
    >>> round(float(_blind_se(pc, 0.5, 190.0) * np.sqrt(190)), 6)  # 2 v at v = 1/4
    0.5
    """
    a = np.asarray(pc.k_plus, dtype=float)
    b = np.asarray(pc.k_minus, dtype=float)
    n_all = float((a + b).sum())
    if den <= 0 or n_all <= 0:
        return float("nan")
    v = r1 * (1.0 - r1)
    var = np.sum(
        4.0 * a * b * v * v / den**2
        + (2.0 * r1 - 1.0) ** 2
        * v
        * (a * (b / den - 2.0 / n_all) ** 2 + b * (a / den - 2.0 / n_all) ** 2)
    )
    return float(np.sqrt(var)) if var > 0 else float("nan")


def _moments(pc: Any, both: np.ndarray) -> dict[str, Any]:
    """S_com over the pairs in ``both``, r₁ over every pair row of ``pc``, the closed-form ε and
    the unclipped moments (ε₊, ε₋), with delta-method standard errors (pairs as units), on the
    scale of ``pc``'s counts."""
    a, c = _scom_terms(pc.k_plus[both], pc.k_minus[both], pc.n1[both], pc.n2[both])
    n_p = int(both.sum())
    S = a.sum() / c.sum()
    b = pc.first_wins.astype(float)
    v = pc.n_verdicts.astype(float)
    r1 = b.sum() / v.sum()
    # ratio-estimator linearisation with pairs as the independent units
    P_all = pc.n_pairs
    u = np.zeros(P_all)
    u[both] = (a - S * c) / c.sum()
    w = (b - r1 * v) / v.sum()
    f_s = n_p / max(n_p - 1, 1)
    f_r = P_all / max(P_all - 1, 1)
    var_s = f_s * np.sum(u**2)
    var_r = f_r * np.sum(w**2)
    cov = np.sqrt(f_s * f_r) * np.sum(u * w)
    eps_u = eps_from_scom(S, on_invalid="nan") if S <= 0.5 else float("nan")
    eps_u_se = float(np.sqrt(var_s) / (2.0 * np.sqrt(1.0 - 2.0 * S))) if S < 0.5 else float("nan")
    # unclipped: a rate below 0 is kept with its delta-method interval (never [0, 0])
    ep, em, boundary = moments_from_rates(S, r1, clip=False)
    d = 2 * r1 - 1
    disc = 1 - 2 * S + d * d
    if disc > 1e-12:
        rd = np.sqrt(disc)
        J = np.array([[0.5 / rd, -d / rd - 1.0], [0.5 / rd, 1.0 - d / rd]])
        cov_m = J @ np.array([[var_s, cov], [cov, var_r]]) @ J.T
        ep_se, em_se = (float(x) for x in np.sqrt(np.clip(np.diag(cov_m), 0, None)))
        sum_se = float(np.sqrt(max(float(cov_m.sum()), 0.0)))  # ε₊ + ε₋ = 1 − √disc
    else:  # no real solution (ε₊ + ε₋ set to 1): the delta method fails, resample the pairs
        ep_se, em_se, sum_se = _moments_bootstrap_se(pc, both)
    # a rate of exactly 0 (S_com = |2r₁ − 1|: no pair won by the second-shown text in both
    # orders, for ε₊; none by the first-shown, for ε₋) has delta-method variance 0 — and so
    # would a bootstrap of the pairs: its interval comes from the exact bound on that zero
    # count instead (a zero-width interval at 0 agreed with any model near 0)
    if n_p > 0 and disc > 1e-12:
        extra = 0.0
        if ep == 0.0:
            new = _zero_count_se(n_p, em)
            extra, ep_se = max(extra, new), max(ep_se, new)
        if em == 0.0:
            new = _zero_count_se(n_p, ep)
            extra, em_se = max(extra, new), max(em_se, new)
        sum_se = float(np.hypot(sum_se, extra))
    # the most S_com any (ε₊, ε₋) with errors verdict by verdict give at this r₁ (ε₊ + ε₋ = 1:
    # each verdict by position alone), and how far above it S_com is, in standard errors
    ceiling = (1.0 + d * d) / 2.0
    var_x = var_s + 4.0 * d * d * var_r - 4.0 * d * cov
    excess_z = float((S - ceiling) / np.sqrt(var_x)) if var_x > 0 else float("nan")
    return {
        "s_com_ceiling": float(ceiling),
        "s_com_excess_z": excess_z,
        "s_com_excess_se": float(np.sqrt(var_x)) if var_x > 0 else float("nan"),
        "s_com_blind_se": _blind_se(pc, r1, c.sum()),
        "s_com": float(S),
        "s_com_se": float(np.sqrt(var_s)),
        "r1": float(r1),
        "r1_se": float(np.sqrt(var_r)),
        "eps_scom": eps_u,
        "eps_scom_se": eps_u_se,
        "eps_plus": float(ep),
        "eps_minus": float(em),
        "eps_plus_se": ep_se,
        "eps_minus_se": em_se,
        "eps_sum": float(ep + em),
        "eps_sum_se": sum_se,
        "moments_at_boundary": boundary,
    }


def _tie_share(block: Comparisons) -> tuple[float, float, bool]:
    """(τ, SE of τ, rescale?): the judge's share of kept ties, and whether the error rates are
    put among decided verdicts — under the tie policy ``"model"`` with ties kept."""
    n = int(block.n_comparisons)
    k = int(np.sum(np.asarray(block.outcome) == 0.5))
    tau = k / n if n else 0.0
    se = float(np.sqrt(tau * (1 - tau) / n)) if n else 0.0
    return tau, se, bool(k) and block.tie_policy == "model"


def _moments_bootstrap_se(
    pc: Any, both: np.ndarray, n_boot: int = 400
) -> tuple[float, float, float]:
    """Bootstrap SEs of the unclipped moments ε₊, ε₋ and of their sum, pairs resampled (fixed
    stream: reproducible). The sum's SE is the replicates' own: where the equations have no
    real solution, ε₊ + ε₋ is 1 and ε₊ = 1 − r₁, ε₋ = r₁ move against each other, so
    ``hypot`` of the two SEs would give the sum a spread it does not have; where no replicate
    has a real solution the sum's SE is NaN (it is set, not estimated).

    The replicates' sums are gathered a block of replicates at a time and their moment
    equations solved as arrays (:func:`_unclipped_moments`): the same replicates as one loop per
    replicate through :func:`moments_from_rates`, to rounding, 30 × faster on a 20-text round
    robin (the text-blind calibration simulates hundreds of such logs)."""
    rng = np.random.default_rng(0)
    a, c = _scom_terms(pc.k_plus, pc.k_minus, pc.n1, pc.n2)
    both = np.asarray(both, dtype=bool)
    a_both, c_both = np.where(both, a, 0.0), np.where(both, c, 0.0)
    b = pc.first_wins.astype(float)
    v = pc.n_verdicts.astype(float)
    idx = rng.integers(0, pc.n_pairs, size=(n_boot, pc.n_pairs))
    block = max(1, 2**20 // max(pc.n_pairs, 1))  # ≈ 8 MB of gathered values at a time
    reps = []
    for lo in range(0, n_boot, block):
        i = idx[lo : lo + block]
        kept = both[i].any(axis=1)  # a replicate with no pair in both orders has no S_com
        i = i[kept]
        s_b = a_both[i].sum(axis=1) / c_both[i].sum(axis=1)
        r_b = b[i].sum(axis=1) / v[i].sum(axis=1)
        ep_b, em_b, _ = _unclipped_moments(s_b, r_b)
        reps.append(np.column_stack((ep_b, em_b)))
    got = np.concatenate(reps) if reps else np.zeros((0, 2))
    if len(got) < 2:
        return float("nan"), float("nan"), float("nan")
    sd = np.std(got, axis=0, ddof=1)
    sum_sd = float(np.std(got.sum(axis=1), ddof=1))
    # every replicate without a real solution: the sum is the convention 1, not an estimate
    # with a spread of 0 (a zero-width interval would disagree with every model)
    return float(sd[0]), float(sd[1]), sum_sd if sum_sd > 1e-12 else float("nan")


def estimate_eps_scom(
    data: Comparisons, *, judge: str | int | None = None, on_invalid: OnInvalid = "raise"
) -> ScomEstimate:
    """Uniform error rate of one judge from its commutativity score, with standard errors.

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional
    on_invalid : {"raise", "nan"}
        S_com > ½ (see :func:`eps_from_scom`).

    Returns
    -------
    ScomEstimate

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(80, eps=0.1, random_seed=3)
    >>> est = estimate_eps_scom(sim.data)
    >>> abs(est.eps - sim.realised_eps) < 3 * est.eps_se
    True
    """
    block = _block(data, judge)
    lab = block.judges[0] if block.n_judges == 1 else str(judge)
    st = _stats(block, lab)
    if st["s_com"] > 0.5:
        eps_from_scom(st["s_com"], on_invalid=on_invalid)  # raises or warns
    _warn_if_rescaling_fails(block, st, lab)
    return ScomEstimate(
        eps=st["eps_scom"],
        eps_se=st["eps_scom_se"],
        s_com=st["s_com"],
        s_com_se=st["s_com_se"],
        n_pairs=st["n_pairs_both_orders"],
        judge=lab,
        tie_share=st["tie_share"],
        decided=st["decided_scale"],
    )


def positional_moments(data: Comparisons, *, judge: str | int | None = None) -> PositionalMoments:
    """Moment estimator of (ε₊, ε₋) from S_com and the first-position rate (METHODS §2, §3.2).

    Assumes every pair is shown in both orders with the presentation order independent of
    quality (true of a round-robin). Unlike any statistic of Z or W alone, r₁ separates ε₊ from
    ε₋.

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional

    Returns
    -------
    PositionalMoments

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(100, eps_plus=0.05, eps_minus=0.3, random_seed=0)
    >>> m = positional_moments(sim.data)
    >>> round(m.eps_plus, 3), round(m.eps_minus, 3)  # estimates
    (0.05, 0.306)
    >>> round(sim.realised_eps_plus, 3), round(sim.realised_eps_minus, 3)  # this draw's truth
    (0.05, 0.307)
    """
    block = _block(data, judge)
    lab = block.judges[0] if block.n_judges == 1 else str(judge)
    st = _stats(block, lab)
    result = _positional_moments_result(st, lab)
    if result.at_boundary:
        warnings.warn(
            f"judge {lab!r}, moments outside their domain: {result.boundary_text()}",
            DesignWarning,
            stacklevel=user_stacklevel(),
        )
    _warn_if_rescaling_fails(block, st, lab)
    return result


def _positional_moments_result(st: dict[str, Any], lab: str) -> PositionalMoments:
    return PositionalMoments(
        eps_plus=st["eps_plus"],
        eps_minus=st["eps_minus"],
        eps_plus_se=st["eps_plus_se"],
        eps_minus_se=st["eps_minus_se"],
        s_com=st["s_com"],
        r1=st["r1"],
        n_pairs=st["n_pairs_both_orders"],
        n_verdicts=st["n_verdicts"],
        at_boundary=st["moments_at_boundary"],
        judge=lab,
        tie_share=st["tie_share"],
        decided=st["decided_scale"],
        s_com_ceiling=st["s_com_ceiling"],
        s_com_excess_z=st["s_com_excess_z"],
        s_com_excess_se=st["s_com_excess_se"],
        s_com_blind_se=st["s_com_blind_se"],
        eps_sum=st["eps_sum"],
        eps_sum_se=st["eps_sum_se"],
    )


def descriptive_by_judge(data: Comparisons) -> pd.DataFrame:
    """All descriptive statistics for every judge, one row per judge.

    Columns: ``n_verdicts``, ``n_pairs``, ``n_pairs_both_orders``, ``n_ties_kept`` (ties counted
    half under ``ties="half"``), ``tie_policy``,
    ``s_com`` (+ ``_se``), ``consistency`` (see :func:`position_consistency`), ``r1`` (+ ``_se``),
    ``eps_scom`` (+ ``_se``; NaN when S_com > ½), ``eps_plus``, ``eps_minus`` (+ ``_se``;
    unclipped), ``eps_sum`` (ε₊ + ε₋, + ``_se``: its own delta-method SE),
    ``moments_at_boundary``, ``tie_share`` (τ) and ``decided_scale``. Under the
    tie policy ``"model"`` (the default) with ties kept, the error rates are among decided
    verdicts, ε = (ε_half − τ/2)/(1 − τ), the scale of the models' ε (``decided_scale``
    True); under ``"half"`` they are the paper's, ties counted half. Under ``"drop"`` with ties
    dropped, r₁ (and the moments) are read on the pairs left with a verdict in both orders, the
    pairs S_com is read on: a dropped tie takes one order's verdict of its pair away. A judge
    with no pair in both orders gets NaN statistics.

    That rescaling assumes a tie does not depend on which text is better. Where a judge's
    log says otherwise (:attr:`TiePositionCheck.rescaling_fails`: its ties depend on where
    the better text is shown, or come in pairs), ``basis`` is ``"pairs decided in both
    orders"`` instead of ``"rescaled"``, the columns ``eps_scom_decided``,
    ``eps_plus_decided``, ``eps_minus_decided``, ``eps_sum_decided`` (+ ``_se``),
    ``s_com_decided`` and ``r1_decided`` hold S_com and the moments of those pairs (one
    decided verdict per position, no rescaling) — the rates the cross-check's verdict and
    ``estimate`` rest on —,
    ``decided_boundary`` says which way those moments left their domain, if they did
    (:meth:`TiePositionCheck.boundary_text`; empty inside it and on the other bases),
    ``decided_reason`` why the basis moved, with the numbers (:meth:`TiePositionCheck.reason`;
    empty on the other bases), and a
    :class:`~bayes_pairwise.errors.TieRescalingWarning` names the judges. ``basis`` is empty
    under ``"half"`` and ``"drop"``, and where no tie is kept.

    Parameters
    ----------
    data : Comparisons

    Returns
    -------
    DataFrame indexed by judge.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> d = simulate_round_robin(20, eps=0.1, random_seed=0).data
    >>> descriptive_by_judge(d).loc["judge", ["n_verdicts", "n_pairs_both_orders"]].tolist()
    [380, 190]
    """
    rows = []
    invalid = []
    one_order = []  # judges with no pair in both orders: S_com and the moments undefined
    moved: list[tuple[Any, dict[str, Any]]] = []
    for lab, block in data.by_judge():
        try:
            st = _stats(block, lab)
            st["consistency"] = position_consistency(block)
        except DesignError:
            pc = _counts(block)
            st = {
                "judge": lab,
                "n_verdicts": int(block.n_comparisons),
                "n_pairs": int(pc.n_pairs),
                "n_pairs_both_orders": int(np.sum(pc.both_orders)),
                "n_ties_kept": int(np.sum(block.outcome == 0.5)),
                "tie_policy": block.tie_policy,
                "r1": float(block.outcome.mean()),
            }
            one_order.append(lab)
        if st.get("s_com", 0.0) > 0.5:
            invalid.append(lab)
        st.update(_tie_basis(block))
        if st["basis"] == BASIS_DECIDED:
            moved.append((lab, st))
        rows.append(st)
    if moved:
        warnings.warn(
            _rescaling_fails_text(moved)
            + " The columns *_decided are the rates the cross-check and `estimate` answer with "
            "(basis 'pairs decided in both orders').",
            TieRescalingWarning,
            stacklevel=user_stacklevel(),
        )
    if one_order:
        warnings.warn(
            one_order_text(one_order, data.n_judges), DesignWarning, stacklevel=user_stacklevel()
        )
    if invalid:
        why = (
            "positional bias; see eps_plus/eps_minus"
            if data.order_recorded
            else "the judge prefers one nominal label; this log does not record the presentation "
            "order, so it cannot be read as positional bias"
        )
        warnings.warn(
            f"S_com > 1/2 for judge(s) {invalid}: eps_scom is NaN ({why})",
            DesignWarning,
            stacklevel=user_stacklevel(),
        )
    cols = [
        "n_verdicts",
        "n_pairs",
        "n_pairs_both_orders",
        "n_ties_kept",
        "tie_policy",
        "s_com",
        "s_com_se",
        "consistency",
        "r1",
        "r1_se",
        "eps_scom",
        "eps_scom_se",
        "eps_plus",
        "eps_minus",
        "eps_plus_se",
        "eps_minus_se",
        "eps_sum",
        "eps_sum_se",
        "moments_at_boundary",
        "tie_share",
        "decided_scale",
        "basis",
        *_DECIDED_COLUMNS,
        "decided_boundary",
        "decided_reason",
    ]
    return pd.DataFrame(rows).set_index("judge").reindex(columns=cols)


#: The start of :func:`one_order_text`.
ONE_ORDER_LEAD = "no pair was shown in both orders"


def one_order_text(judges: Sequence[Any], n_judges: int) -> str:
    """What :func:`descriptive_by_judge` says of judges that saw no pair in both orders.

    Examples
    --------
    >>> print(one_order_text(["w1", "w2"], 5))
    no pair was shown in both orders to judge(s) 'w1', 'w2' (2 of 5): S_com, the position
    consistency, ε from S_com and the moments (ε₊, ε₋) need a pair's verdicts in both orders,
    so they are NaN there (bt-mm, elo and copeland do not need them)
    """
    return (
        f"{ONE_ORDER_LEAD} to judge(s) {name_list(judges, quote=True)} "
        f"({len(judges)} of {n_judges}): S_com, the position consistency, ε from S_com and "
        "the moments (ε₊, ε₋) need a pair's verdicts in both orders, so they are NaN there "
        "(bt-mm, elo and copeland do not need them)"
    )


#: The start of the :class:`~bayes_pairwise.errors.TieRescalingWarning` text.
_RESCALING_FAILS_LEAD = "the rescaling for the tie share does not hold for"
#: :func:`descriptive_by_judge`'s ``basis`` where the tie rescaling holds, and where it fails.
BASIS_RESCALED = "rescaled"
BASIS_DECIDED = "pairs decided in both orders"
_DECIDED_COLUMNS = (
    "eps_scom_decided",
    "eps_scom_decided_se",
    "eps_plus_decided",
    "eps_minus_decided",
    "eps_plus_decided_se",
    "eps_minus_decided_se",
    "eps_sum_decided",
    "eps_sum_decided_se",
    "s_com_decided",
    "r1_decided",
)


def _rescaling_fails_text(moved: Sequence[tuple[Any, Mapping[str, Any]]]) -> str:
    """The warning's text for judges whose tie rescaling fails: (judge, statistics with the
    :func:`_tie_basis` columns) each."""
    return (
        _RESCALING_FAILS_LEAD
        + " "
        + "; ".join(
            f"judge {lab} (eps_plus {st['eps_plus']:.4f} rescaled, "
            f"{st['eps_plus_decided']:.4f} on the pairs decided in both orders; "
            f"eps_minus {st['eps_minus']:.4f}, {st['eps_minus_decided']:.4f}; "
            f"eps from S_com {st['eps_scom']:.4f}, {st['eps_scom_decided']:.4f})"
            for lab, st in moved
        )
        + ": its ties depend on where the better text is shown, or come in pairs "
        "(tie_position_check says which, and gives the decided pairs' rates)."
    )


def _warn_if_rescaling_fails(block: Comparisons, st: Mapping[str, Any], lab: Any) -> None:
    """:func:`estimate_eps_scom` and :func:`positional_moments` return the rescaled rates; where
    the judge's ties break the rescaling, say so with the rates the cross-check answers with."""
    basis = _tie_basis(block)
    if basis["basis"] == BASIS_DECIDED:
        warnings.warn(
            _rescaling_fails_text([(lab, {**st, **basis})]),
            TieRescalingWarning,
            stacklevel=user_stacklevel(),
        )


def _tie_basis(block: Comparisons) -> dict[str, Any]:
    """``basis`` and the decided-pairs columns of one judge (:func:`descriptive_by_judge`)."""
    none = {
        **{c: float("nan") for c in _DECIDED_COLUMNS},
        "decided_boundary": "",
        "decided_reason": "",
    }
    if block.tie_policy != "model" or not np.any(np.asarray(block.outcome) == 0.5):
        return {"basis": "", **none}
    chk = tie_position_check(block)
    if not chk.rescaling_fails or not np.isfinite(chk.eps_plus):
        return {"basis": BASIS_RESCALED, **none}
    return {
        "basis": BASIS_DECIDED,
        "decided_boundary": chk.boundary_text(),
        "decided_reason": chk.reason(),
        "eps_scom_decided": chk.eps,
        "eps_scom_decided_se": chk.eps_se,
        "eps_plus_decided": chk.eps_plus,
        "eps_minus_decided": chk.eps_minus,
        "eps_plus_decided_se": chk.eps_plus_se,
        "eps_minus_decided_se": chk.eps_minus_se,
        "eps_sum_decided": chk.eps_sum,
        "eps_sum_decided_se": chk.eps_sum_se,
        "s_com_decided": chk.s_com_both,
        "r1_decided": chk.r1_decided,
    }


def tie_counts_by_context(data: Comparisons) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per judge: its tie verdicts and all its verdicts in each context, two ``(C,)`` arrays
    (what :func:`tie_correlation` and the caveat ``ties_cluster_by_context`` read).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> rows = [("a", "b", "tie", "q1")] * 3 + [("a", "b", "first", "q2")] * 2
    >>> df = pd.DataFrame(rows, columns=["first", "second", "outcome", "q"])
    >>> ((t, n),) = tie_counts_by_context(load_comparisons(df, context="q", ties="model")).values()
    >>> t.tolist(), n.tolist()
    ([3, 0], [3, 2])
    """
    ctx = np.asarray(data.item_context)[np.asarray(data.first)]
    tie = np.asarray(data.outcome) == 0.5
    judge = np.asarray(data.judge)
    out = {}
    for q, name in enumerate(data.judges):
        mine = judge == q
        out[str(name)] = (
            np.bincount(ctx[mine & tie], minlength=data.n_contexts),
            np.bincount(ctx[mine], minlength=data.n_contexts),
        )
    return out


def tie_counts_by_pair(
    data: Comparisons,
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per judge: its tie verdicts and all its verdicts on each pair it saw (either order),
    and the pair's context, three ``(P,)`` arrays (what :func:`tie_correlation` reads for the
    order models' ``tie_dispersion="pair"``, resampling the contexts).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> rows = [("a", "b", "tie"), ("b", "a", "tie"), ("a", "c", "first"), ("c", "a", "tie")]
    >>> df = pd.DataFrame(rows, columns=["first", "second", "outcome"])
    >>> ((t, n, c),) = tie_counts_by_pair(load_comparisons(df, ties="model")).values()
    >>> t.tolist(), n.tolist(), c.tolist()
    ([2, 1], [2, 2], [0, 0])
    """
    first = np.asarray(data.first, dtype=np.int64)
    second = np.asarray(data.second, dtype=np.int64)
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    tie = np.asarray(data.outcome) == 0.5
    judge = np.asarray(data.judge)
    ctx = np.asarray(data.item_context, dtype=np.int64)
    out = {}
    for q, name in enumerate(data.judges):
        mine = judge == q
        keys, pair = np.unique(lo[mine] * data.n_items + hi[mine], return_inverse=True)
        out[str(name)] = (
            np.bincount(pair, tie[mine], minlength=keys.size).astype(np.int64),
            np.bincount(pair, minlength=keys.size),
            ctx[keys // data.n_items],
        )
    return out


def _tie_rho_moments(t: np.ndarray, n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """ρ̂ of :func:`tie_correlation` for each row of multiplicities ``m`` (B, C) of the
    contexts (tie counts ``t``, verdicts ``n``, both (C,) and n > 0): the Pearson χ² against
    the pooled rate, minus its expectation at ρ = 0, over its slope in ρ."""
    big_n = m @ n
    tau = (m @ t) / big_n
    with np.errstate(invalid="ignore", divide="ignore"):
        x2 = (m * (t - n * tau[:, None]) ** 2 / n).sum(axis=1) / (tau * (1.0 - tau))
        slope = m @ (n - 1.0) - ((m @ (n * n)) / big_n - 1.0)
        return (x2 - (m.sum(axis=1) - 1.0)) / slope


@dataclass(frozen=True)
class TieCorrelation:
    """:func:`tie_correlation`'s result: ρ̂ and the tie share, each with a percentile interval
    from the same resamplings of the contexts (NaN where not computable)."""

    rho: float
    rho_lower: float
    rho_upper: float
    share: float
    share_lower: float
    share_upper: float
    contexts: int


def tie_correlation(
    ties: np.ndarray,
    verdicts: np.ndarray,
    *,
    level: float = 0.95,
    n_boot: int = 999,
    random_seed: int | np.random.Generator | None = None,
    clusters: np.ndarray | None = None,
) -> TieCorrelation:
    """Moment estimate of the within-context correlation of ties, ρ, with a bootstrap over
    the contexts (the classical counterpart of the order models' ``tie_rho``); and the tie
    share with an interval from the same resamplings, which stays honest where ties cluster
    (the binomial interval assumes independent verdicts).

    The groups need not be contexts: with the tie counts per pair
    (:func:`tie_counts_by_pair`) it is the within-pair correlation (``tie_dispersion="pair"``),
    and ``clusters`` (each pair's context) makes the bootstrap resample whole contexts, which
    stays honest where the ties cluster by context as well.

    If each context's tie probability varies around the mean τ so that its tie count has
    variance n τ (1 − τ) (1 + (n − 1) ρ) (a beta-binomial, for one), Pearson's χ² of the
    counts against the pooled rate has expectation (C − 1) + ρ [Σ(n_c − 1) − (Σn_c²/N − 1)].
    ρ̂ solves that for the observed χ²: (ratio − 1)/(n − 1) when every context has n verdicts,
    with ratio = χ² / (C − 1) (the caveat ``ties_cluster_by_context``'s). It may be negative
    (less spread than one rate allows). The intervals: percentiles over ``n_boot`` resamplings
    of the contexts.

    Parameters
    ----------
    ties, verdicts : array_like (C,)
        Tie verdicts and all verdicts per context (one judge).
    level : float
    n_boot : int
    random_seed : int or Generator, optional
    clusters : int array (C,), optional
        What the bootstrap resamples, per group (default: the groups themselves).

    Returns
    -------
    TieCorrelation
        ρ̂ is NaN when fewer than two groups have verdicts or the pooled rate is 0 or 1;
        ``contexts`` counts the groups.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.2 * 3, 0.8 * 3, size=2000)     # rho = 1 / (3 + 1) = 0.25
    >>> t = rng.binomial(40, p)
    >>> r = tie_correlation(t, np.full(2000, 40), random_seed=1)
    >>> bool(abs(r.rho - 0.25) < 0.03 and r.rho_lower < 0.25 < r.rho_upper)
    True
    >>> bool(r.share_lower < 0.2 < r.share_upper)
    True
    """
    t = np.asarray(ties, dtype=float)
    n = np.asarray(verdicts, dtype=float)
    keep = n > 0
    t, n = t[keep], n[keep]
    nan = math.nan
    share = float(t.sum() / n.sum()) if n.sum() else nan
    if n.size < 2 or t.sum() <= 0 or t.sum() >= n.sum():
        return TieCorrelation(nan, nan, nan, share, nan, nan, int(n.size))
    rho = float(_tie_rho_moments(t, n, np.ones((1, n.size)))[0])
    rng = np.random.default_rng(random_seed)
    if clusters is None:
        times = rng.multinomial(n.size, np.full(n.size, 1.0 / n.size), size=int(n_boot))
    else:  # resample the clusters; each group counts as often as its cluster is drawn
        _, of = np.unique(np.asarray(clusters)[keep], return_inverse=True)
        k = int(of.max()) + 1
        times = rng.multinomial(k, np.full(k, 1.0 / k), size=int(n_boot))[:, of]
    times = times.astype(float)
    q = [(1.0 - level) / 2.0, (1.0 + level) / 2.0]
    shares = (times @ t) / (times @ n)
    s_lo, s_hi = np.quantile(shares, q)
    boot = _tie_rho_moments(t, n, times)
    boot = boot[np.isfinite(boot)]
    r_lo, r_hi = np.quantile(boot, q) if boot.size >= 2 else (nan, nan)
    return TieCorrelation(
        rho, float(r_lo), float(r_hi), share, float(s_lo), float(s_hi), int(n.size)
    )


def wilson_interval(
    successes: float | np.ndarray, n: float | np.ndarray, *, level: float = 0.95
) -> tuple[Any, Any]:
    """Wilson score interval for a binomial proportion (NaN where ``n`` is 0).

    Parameters
    ----------
    successes, n : float or array_like
        Counts.
    level : float
        Coverage (two-sided).

    Returns
    -------
    (lower, upper) : floats or arrays

    Examples
    --------
    >>> lo, hi = wilson_interval(10, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0552, 0.1744)
    """
    from scipy.stats import norm

    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = float(norm.ppf(0.5 + level / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def labelled_error_rates(data: Comparisons, *, level: float = 0.95) -> pd.DataFrame:
    """Plain error rates on the gold-labelled verdicts, per judge, with Wilson intervals.

    A verdict is *plus* when it shows the truly better item first, *minus* when second. Among
    the non-tie labelled verdicts of each kind, ε₊ (resp. ε₋) is the share that prefer the
    truly worse item. Ties are not errors: they are counted apart (``ties_plus``,
    ``ties_minus``, ``tie_rate``). These rates need no model and are not biased by errors
    correlated within a pair, unlike the ground-truth-free estimators
    (``docs/src/gold_labels.md``); they describe the labelled pairs, so they represent the
    whole log only when the labelled pairs are a random sample of it.

    Parameters
    ----------
    data : Comparisons
        Loaded with ``truth=…`` (:func:`~bayes_pairwise.data.load_comparisons`).
    level : float
        Coverage of the Wilson intervals.

    Returns
    -------
    DataFrame indexed by judge
        ``n_labelled`` (labelled verdicts, ties included), ``n_plus``, ``errors_plus``,
        ``eps_plus``, ``eps_plus_lo``, ``eps_plus_hi``, ``ties_plus``, the same for minus,
        both kinds together (``n_decided``, ``errors``, ``eps``, ``eps_lo``, ``eps_hi``: the
        uniform ε), ``n_ties`` and ``tie_rate`` (ties among the labelled verdicts). NaN rates
        where a kind has no non-tie verdict.

    Raises
    ------
    DesignError
        When the data carry no gold label.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "a", "b", "a"],
    ...                    "second": ["b", "a", "b", "a", "b"],
    ...                    "outcome": ["first", "first", "second", "second", "tie"],
    ...                    "gold": ["a"] * 5})
    >>> t = labelled_error_rates(load_comparisons(df, ties="model", truth="gold"))
    >>> t.loc["judge", ["n_plus", "errors_plus", "n_minus", "errors_minus", "n_ties"]].tolist()
    [2, 1, 2, 1, 1]
    >>> float(t.loc["judge", "eps_plus"])
    0.5
    """
    if not data.has_truth:
        raise DesignError(
            "no gold labels: load the log with load_comparisons(..., truth='column') (CLI "
            "--truth-column) holding the id of the truly better item"
        )
    truth = np.asarray(data.truth)
    known = truth >= 0
    plus = known & (np.asarray(data.first) == truth)
    minus = known & ~plus
    out = np.asarray(data.outcome)
    tie = out == 0.5
    # an error prefers the truly worse item: first loses when plus, first wins when minus
    wrong = (plus & (out == 0.0)) | (minus & (out == 1.0))
    judge = np.asarray(data.judge)
    rows = []
    for j, lab in enumerate(data.judges):
        m = judge == j
        row: dict[str, Any] = {"judge": lab, "n_labelled": int(np.sum(m & known))}
        for name, kind in (("plus", plus), ("minus", minus)):
            sel = m & kind & ~tie
            n, k = int(sel.sum()), int(np.sum(sel & wrong))
            lo, hi = wilson_interval(k, n, level=level)
            row[f"n_{name}"] = n
            row[f"errors_{name}"] = k
            row[f"eps_{name}"] = k / n if n else float("nan")
            row[f"eps_{name}_lo"] = lo
            row[f"eps_{name}_hi"] = hi
            row[f"ties_{name}"] = int(np.sum(m & kind & tie))
        # both kinds together: the uniform ε among the labelled decided verdicts
        n, k = row["n_plus"] + row["n_minus"], row["errors_plus"] + row["errors_minus"]
        lo, hi = wilson_interval(k, n, level=level)
        row.update(n_decided=n, errors=k, eps=k / n if n else float("nan"), eps_lo=lo, eps_hi=hi)
        row["n_ties"] = row["ties_plus"] + row["ties_minus"]
        row["tie_rate"] = row["n_ties"] / row["n_labelled"] if row["n_labelled"] else float("nan")
        rows.append(row)
    return pd.DataFrame(rows).set_index("judge")


def copeland_scores(data: Comparisons, *, judge: str | int | None = None) -> pd.Series:
    """Copeland scores S_i = Σ_j w_ij of one judge, indexed by item label.

    Every compared pair contributes w_ij = (2n₁ + 2n₂ − k₊ − k₋)/(k₊ + k₋) to i and −w_ij to j
    (= z_ij with one verdict in each order). Items of different contexts are never compared, so
    with contexts the scores are per-context Copeland scores.

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional

    Returns
    -------
    Series
        Scores (sum to zero), indexed by item label.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> d = simulate_round_robin(5, eps=0.0, random_seed=0).data
    >>> sorted(copeland_scores(d).tolist(), reverse=True)
    [4.0, 2.0, 0.0, -2.0, -4.0]
    """
    block = _block(data, judge)
    pc = _counts(block)
    tot = pc.n_verdicts.astype(float)
    val = (2 * pc.n1 + 2 * pc.n2 - tot) / tot
    s = np.bincount(pc.i, weights=val, minlength=block.n_items) - np.bincount(
        pc.j, weights=val, minlength=block.n_items
    )
    return pd.Series(s, index=pd.Index(list(block.items), name="item"), name="copeland")


def copeland_ranking(data: Comparisons, *, judge: str | int | None = None) -> pd.DataFrame:
    """Copeland ranking of one judge (per context when the log holds contexts).

    Parameters
    ----------
    data : Comparisons
    judge : str or int, optional

    Returns
    -------
    DataFrame
        Columns ``context``, ``item`` (name within its context), ``score`` and ``rank``
        (1 = best within the context; tied scores share the best rank), indexed by item label,
        sorted by context then descending score.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(4, eps=0.0, random_seed=1)
    >>> r = copeland_ranking(sim.data)
    >>> tuple(r.index) == sim.true_order
    True
    """
    block = _block(data, judge)
    scores = copeland_scores(block)
    ctx = np.asarray(block.contexts, dtype=object)[np.asarray(block.item_context)]
    df = pd.DataFrame(
        {"context": ctx, "item": list(block.item_names), "score": scores.to_numpy()},
        index=scores.index,
    )
    df["rank"] = df.groupby("context", sort=False)["score"].rank(method="min", ascending=False)
    df["rank"] = df["rank"].astype(np.int64)
    ctx_pos = np.asarray(block.item_context)
    order = np.lexsort((np.arange(len(df)), -df["score"].to_numpy(), ctx_pos))
    return df.iloc[order]
