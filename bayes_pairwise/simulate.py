"""Synthetic comparison logs with a known truth (METHODS §3, §7.3 and §8).

Two generators:

* :func:`simulate_round_robin` — the paper's error models (§3): a ground-truth order (or a soft,
  Bradley–Terry truth drawn once per pair), every unordered pair shown in both orders, each
  verdict independently flipped with probability ε (uniform) or ε₊ / ε₋ (positional bias).
* :func:`simulate_biased_bt` — the biased Bradley–Terry model with covariates (§7.3): one
  Bernoulli per verdict with ``P(first wins) = σ(s_f − s_s + γ + Σ w_c x_c)``.

Both return a :class:`SyntheticComparisons`: the validated
:class:`~bayes_pairwise.data.Comparisons`, the raw frame it was built from, the truth, the nominal
parameters and the **realised** error rates of this draw (§8: estimates are compared with what
the data actually contain, not only with the nominal rate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.special import expit

from bayes_pairwise.conventions import CONTEXT_SEP

if TYPE_CHECKING:  # pragma: no cover
    from bayes_pairwise.data import Comparisons

__all__ = [
    "SyntheticComparisons",
    "SyntheticHardPairs",
    "log_from_counts",
    "order_counts",
    "simulate_biased_bt",
    "simulate_hard_pairs",
    "simulate_round_robin",
]


@dataclass(frozen=True, eq=False)
class SyntheticComparisons:
    """A synthetic comparison log together with the truth that generated it.

    Attributes
    ----------
    data : Comparisons
        The validated log (built with :func:`bayes_pairwise.data.load_comparisons` from
        ``frame``).
    frame : DataFrame
        The raw log: columns ``first``, ``second``, ``outcome`` (``"first"``/``"second"``),
        ``repeat`` and, where relevant, ``context``, ``judge`` and covariate columns.
    true_order : tuple of str
        Item labels (as in ``data.items``) from best to worst; with several contexts, best to
        worst within each context, contexts in order.
    true_strengths : Series
        True strength of each item, indexed by item label. For a hard truth this is
        ``N − rank`` (rank 1 = best), for a soft truth or biased BT the latent strength.
    correct : ndarray of bool
        Per row of ``frame``: whether the verdict agrees with the truth (with a soft truth: with
        the pair's latent outcome T).
    generator : str
        ``"round_robin"`` or ``"biased_bt"``.
    eps, eps_plus, eps_minus : float or None
        Nominal error rates (``eps`` is None under positional bias).
    gamma : float or tuple of float or None
        Nominal first-position shift (biased BT; one per judge when several).
    covariate_effects : Mapping[str, float]
        Nominal covariate effects (biased BT).
    soft_sigma : float or None
        Scale of the latent strengths of a soft truth (None for a hard truth).
    realised_eps : float
        Share of verdicts that disagree with the truth (soft truth: with the per-pair latent
        outcome, i.e. the realised lapse rate).
    realised_eps_plus, realised_eps_minus : float
        Realised error shares among verdicts with the truly better item shown first / second
        (NaN where there are no such verdicts).
    realised_eps_vs_order : float or None
        Soft truth and biased BT: share of verdicts disagreeing with the order of the latent
        strengths (None for a hard truth, where it equals ``realised_eps``).
    settings : Mapping[str, Any]
        Every argument of the generator call, for the record.
    """

    data: Comparisons
    frame: pd.DataFrame
    true_order: tuple[str, ...]
    true_strengths: pd.Series
    correct: np.ndarray
    generator: str
    eps: float | None
    eps_plus: float | None
    eps_minus: float | None
    realised_eps: float
    realised_eps_plus: float
    realised_eps_minus: float
    realised_eps_vs_order: float | None = None
    gamma: float | tuple[float, ...] | None = None
    covariate_effects: Mapping[str, float] = field(default_factory=dict)
    soft_sigma: float | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One paragraph saying what this synthetic data set is.

        Returns
        -------
        str

        Examples
        --------
        >>> sim = simulate_round_robin(5, eps=0.1, random_seed=0)
        >>> print(sim.describe())  # doctest: +ELLIPSIS
        SYNTHETIC data (simulate_round_robin, seed 0): 5 items, 20 verdicts, ...
        """
        s = self.settings
        d = self.data
        head = (
            f"SYNTHETIC data (simulate_{self.generator}, seed {s.get('random_seed')}): "
            f"{d.n_items} items, {d.n_comparisons} verdicts"
        )
        parts = [head]
        if d.n_contexts > 1:
            parts.append(f"{d.n_contexts} independent contexts")
        if d.n_judges > 1:
            parts.append(f"{d.n_judges} judges")
        if self.generator == "round_robin":
            truth = (
                f"soft truth (latent strengths ~ Normal(0, {self.soft_sigma}), one outcome per "
                "pair)"
                if self.soft_sigma is not None
                else "hard truth (a total order)"
            )
            parts.append(truth)
            parts.append(f"design k+={s.get('k_plus')}, k-={s.get('k_minus')} per pair")
            if self.eps is not None:
                parts.append(f"uniform error eps={self.eps:g}")
            else:
                parts.append(f"positional error eps+={self.eps_plus:g}, eps-={self.eps_minus:g}")
        else:
            parts.append(f"biased Bradley-Terry, gamma={self.gamma}")
            if self.covariate_effects:
                parts.append(f"covariate effects {dict(self.covariate_effects)}")
        rates = (
            f"realised error {self.realised_eps:.4f} (better first {self.realised_eps_plus:.4f}, "
            f"better second {self.realised_eps_minus:.4f})"
        )
        if self.realised_eps_vs_order is not None:
            rates += f"; vs the strength order {self.realised_eps_vs_order:.4f}"
        parts.append(rates)
        return ", ".join(parts) + "."

    def __repr__(self) -> str:
        return f"<SyntheticComparisons: {self.describe()}>"


# ----------------------------------------------------------------------------- helpers
def _check_rate(name: str, value: float) -> float:
    v = float(value)
    if not (0.0 <= v <= 1.0) or not np.isfinite(v):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def _labels(prefix: str, n: int, min_width: int) -> list[str]:
    w = max(min_width, len(str(max(n - 1, 0))))
    return [f"{prefix}{k:0{w}d}" for k in range(n)]


def _share(mask: np.ndarray, sel: np.ndarray) -> float:
    n = int(sel.sum())
    return float(mask[sel].sum() / n) if n else float("nan")


def _load(frame: pd.DataFrame, **kw: Any) -> Comparisons:
    from bayes_pairwise.data import load_comparisons

    return load_comparisons(frame, detect=False, **kw)


# ----------------------------------------------------------------------------- round robin
def simulate_round_robin(
    n_items: int = 100,
    *,
    eps: float | None = None,
    eps_plus: float | None = None,
    eps_minus: float | None = None,
    repeats: int = 1,
    k_plus: int | None = None,
    k_minus: int | None = None,
    soft_sigma: float | None = None,
    n_contexts: int = 1,
    random_seed: int | np.random.Generator | None = None,
) -> SyntheticComparisons:
    """Simulate a round-robin under the paper's error models (METHODS §3).

    Every unordered pair {i, j} (i < j by item index) is shown ``k_plus`` times with i first and
    ``k_minus`` times with j first (both default to ``repeats``). The item labels ``t000``, …
    are in index order; the true quality order is a random permutation of them.

    Parameters
    ----------
    n_items : int
        Items per round-robin (per context), at least 2.
    eps : float, optional
        Uniform error rate: every verdict is flipped with probability ``eps``. The default, when
        neither ``eps`` nor ``eps_plus``/``eps_minus`` is given, is 0.15.
    eps_plus, eps_minus : float, optional
        Positional error rates: ε₊ when the truly better item is shown first, ε₋ when it is shown
        second. Give both (and not ``eps``).
    repeats : int
        Showings per order of every pair (``k_plus = k_minus = repeats``).
    k_plus, k_minus : int, optional
        Showings with the lower-index item first / second (override ``repeats``; ≥ 0, with
        ``k_plus + k_minus ≥ 1``).
    soft_sigma : float, optional
        Soft truth: latent strengths s ~ Normal(0, soft_sigma); for each unordered pair the true
        outcome T is drawn once from σ(s_i − s_j) and shared by all its showings, then each verdict
        is a lapse flip of T with the ε rates.
    n_contexts : int
        Number of independent round-robins of ``n_items`` each (a ``context`` column, e.g. 80
        questions × 5 answers).
    random_seed : int or Generator, optional
        Seed for ``np.random.default_rng``.

    Returns
    -------
    SyntheticComparisons

    Examples
    --------
    >>> sim = simulate_round_robin(20, eps=0.15, random_seed=1)
    >>> sim.data.n_items, sim.data.n_comparisons
    (20, 380)
    >>> round(sim.realised_eps, 3)  # the share of flipped verdicts in this draw
    0.155
    >>> pos = simulate_round_robin(10, eps_plus=0.1, eps_minus=0.3, repeats=2, random_seed=2)
    >>> pos.frame.columns.tolist()
    ['first', 'second', 'outcome', 'repeat']
    >>> ctx = simulate_round_robin(5, eps=0.2, n_contexts=80, random_seed=3)
    >>> ctx.data.n_contexts, ctx.true_order[0][:5]
    (80, 'c00::')
    """
    settings = {
        "n_items": n_items,
        "eps": eps,
        "eps_plus": eps_plus,
        "eps_minus": eps_minus,
        "repeats": repeats,
        "k_plus": k_plus,
        "k_minus": k_minus,
        "soft_sigma": soft_sigma,
        "n_contexts": n_contexts,
        "random_seed": random_seed if not isinstance(random_seed, np.random.Generator) else None,
    }
    n = int(n_items)
    if n < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items!r}")
    n_ctx = int(n_contexts)
    if n_ctx < 1:
        raise ValueError(f"n_contexts must be at least 1, got {n_contexts!r}")
    if eps is not None and (eps_plus is not None or eps_minus is not None):
        raise ValueError("give either eps (uniform error) or eps_plus and eps_minus, not both")
    if (eps_plus is None) != (eps_minus is None):
        raise ValueError("positional error needs both eps_plus and eps_minus")
    if eps is None and eps_plus is None:
        eps = 0.15
    if eps is not None:
        e_plus = e_minus = _check_rate("eps", eps)
        eps = e_plus
    else:
        e_plus = _check_rate("eps_plus", eps_plus)  # type: ignore[arg-type]
        e_minus = _check_rate("eps_minus", eps_minus)  # type: ignore[arg-type]
    if int(repeats) < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats!r}")
    kp = int(repeats if k_plus is None else k_plus)
    km = int(repeats if k_minus is None else k_minus)
    if kp < 0 or km < 0 or kp + km < 1:
        raise ValueError(f"need k_plus, k_minus >= 0 and k_plus + k_minus >= 1, got {kp}, {km}")
    if soft_sigma is not None and not (float(soft_sigma) >= 0 and np.isfinite(soft_sigma)):
        raise ValueError(f"soft_sigma must be a non-negative number, got {soft_sigma!r}")
    settings.update(k_plus=kp, k_minus=km)
    rng = np.random.default_rng(random_seed)

    # truth, per context: quality rank (0 = best) or latent strengths, in item-index order
    iu, ju = np.triu_indices(n, 1)  # pairs (i < j), shape (P,)
    if soft_sigma is None:
        rank = np.argsort(rng.random((n_ctx, n)), axis=1).argsort(axis=1)  # random permutation
        strength = (n - (rank + 1)).astype(float)
        i_better = rank[:, iu] < rank[:, ju]  # (C, P): the truth T of every pair
        order_i_better = i_better
    else:
        strength = rng.normal(0.0, float(soft_sigma), size=(n_ctx, n))
        p_i = expit(strength[:, iu] - strength[:, ju])
        i_better = rng.random(p_i.shape) < p_i  # T drawn once per unordered pair
        order_i_better = strength[:, iu] > strength[:, ju]

    # design: for every pair, kp showings with i first then km with j first
    k_tot = kp + km
    col = np.arange(k_tot)
    i_first = col < kp  # (K,)
    rep = np.where(i_first, col, col - kp)
    n_pairs = iu.size
    shape = (n_ctx, n_pairs, k_tot)
    first = np.where(i_first[None, None, :], iu[None, :, None], ju[None, :, None])
    second = np.where(i_first[None, None, :], ju[None, :, None], iu[None, :, None])
    first = np.broadcast_to(first, shape)
    second = np.broadcast_to(second, shape)
    better_first = i_first[None, None, :] == i_better[:, :, None]  # (C, P, K)
    rate = np.where(better_first, e_plus, e_minus)
    error = rng.random(shape) < rate
    first_wins = better_first != error
    order_better_first = i_first[None, None, :] == order_i_better[:, :, None]
    correct_vs_order = first_wins == order_better_first

    item_lab = _labels("t", n, 3)
    ctx_lab = _labels("c", n_ctx, 2)
    frame_cols: dict[str, Any] = {}
    if n_ctx > 1:
        frame_cols["context"] = np.repeat(np.array(ctx_lab, dtype=object), n_pairs * k_tot)
    names = np.array(item_lab, dtype=object)
    frame_cols["first"] = names[first.ravel()]
    frame_cols["second"] = names[second.ravel()]
    frame_cols["outcome"] = np.where(first_wins.ravel(), "first", "second").astype(object)
    frame_cols["repeat"] = np.broadcast_to(rep, shape).ravel().astype(np.int64)
    order = ["first", "second", "outcome", "repeat"] + (["context"] if n_ctx > 1 else [])
    frame = pd.DataFrame({c: frame_cols[c] for c in order})

    full_lab = [f"{c}{CONTEXT_SEP}{t}" if n_ctx > 1 else t for c in ctx_lab for t in item_lab]
    strengths = pd.Series(strength.ravel(), index=pd.Index(full_lab, name="item"), name="strength")
    # best → worst within each context, contexts in order
    ctx_of = np.repeat(np.arange(n_ctx), n)
    by = np.lexsort((-strength.ravel(), ctx_of))
    true_order = tuple(full_lab[k] for k in by)

    truth = "soft" if soft_sigma is not None else "hard"
    err_desc = f"eps={eps:g}" if eps is not None else f"eps+={e_plus:g}, eps-={e_minus:g}"
    data = _load(
        frame,
        repeat="repeat",
        context="context" if n_ctx > 1 else None,
        source_name=f"synthetic round robin ({truth} truth, {err_desc}, seed={random_seed})",
    )
    err = error.ravel()
    bf = better_first.ravel()
    return SyntheticComparisons(
        data=data,
        frame=frame,
        true_order=true_order,
        true_strengths=strengths,
        correct=~err,
        generator="round_robin",
        eps=eps,
        eps_plus=e_plus,
        eps_minus=e_minus,
        realised_eps=float(err.mean()),
        realised_eps_plus=_share(err, bf),
        realised_eps_minus=_share(err, ~bf),
        realised_eps_vs_order=(
            float(1.0 - correct_vs_order.mean()) if soft_sigma is not None else None
        ),
        soft_sigma=None if soft_sigma is None else float(soft_sigma),
        settings=MappingProxyType(settings),
    )


# ----------------------------------------------------------------------------- biased BT
def simulate_biased_bt(
    n_items: int = 30,
    n_verdicts: int = 2000,
    *,
    gamma: float | Sequence[float] = 0.6,
    strength_sigma: float = 1.0,
    covariate_effects: Mapping[str, float] | None = None,
    n_judges: int = 1,
    random_seed: int | np.random.Generator | None = None,
) -> SyntheticComparisons:
    """Simulate verdicts from a biased Bradley–Terry model with covariates (METHODS §7.3).

    Each verdict picks a random unordered pair and a random presentation order, and the first
    item wins with probability ``σ(s_f − s_s + γ_judge + Σ_c w_c x_c)``. Covariates are
    contest-level (drawn Normal(0, 1) per verdict, not fixed item properties) and stored as
    columns of the frame.

    Parameters
    ----------
    n_items : int
        Number of items (≥ 2).
    n_verdicts : int
        Number of verdicts in total (over all judges).
    gamma : float or sequence of float
        First-position shift γ (one value, or one per judge).
    strength_sigma : float
        Strengths s ~ Normal(0, strength_sigma), centred to mean zero.
    covariate_effects : mapping of str to float, optional
        Covariate name → effect w_c.
    n_judges : int
        Number of judges (``judge`` column ``j0``, ``j1``, … when more than one); each verdict
        goes to a random judge.
    random_seed : int or Generator, optional
        Seed for ``np.random.default_rng``.

    Returns
    -------
    SyntheticComparisons
        ``realised_eps`` is the share of verdicts won by the item with the lower true strength;
        ``realised_eps_plus``/``realised_eps_minus`` split it by whether the stronger item was
        shown first or second.

    Examples
    --------
    >>> sim = simulate_biased_bt(10, 500, gamma=0.8, covariate_effects={"length": 0.5},
    ...                          random_seed=0)
    >>> sim.frame.columns.tolist()
    ['first', 'second', 'outcome', 'length']
    >>> sim.data.covariate_names
    ('length',)
    >>> bool(sim.realised_eps_minus > sim.realised_eps_plus)  # γ > 0 favours the first slot
    True
    """
    effects = dict(covariate_effects or {})
    n = int(n_items)
    nv = int(n_verdicts)
    nj = int(n_judges)
    if n < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items!r}")
    if nv < 1:
        raise ValueError(f"n_verdicts must be at least 1, got {n_verdicts!r}")
    if nj < 1:
        raise ValueError(f"n_judges must be at least 1, got {n_judges!r}")
    g = np.atleast_1d(np.asarray(gamma, dtype=float))
    if g.size == 1:
        g = np.repeat(g, nj)
    if g.size != nj:
        raise ValueError(f"gamma needs 1 or n_judges={nj} values, got {g.size}")
    settings = {
        "n_items": n,
        "n_verdicts": nv,
        "gamma": g.tolist() if nj > 1 else float(g[0]),
        "strength_sigma": strength_sigma,
        "covariate_effects": effects,
        "n_judges": nj,
        "random_seed": random_seed if not isinstance(random_seed, np.random.Generator) else None,
    }
    rng = np.random.default_rng(random_seed)
    s = rng.normal(0.0, float(strength_sigma), size=n)
    s -= s.mean()
    a = rng.integers(0, n, size=nv)
    b = (a + rng.integers(1, n, size=nv)) % n  # uniform over the other items: random pair+order
    judge = rng.integers(0, nj, size=nv)
    eta = s[a] - s[b] + g[judge]
    cov = {}
    for name, w in effects.items():
        x = rng.normal(0.0, 1.0, size=nv)
        cov[name] = x
        eta = eta + float(w) * x
    first_wins = rng.random(nv) < expit(eta)

    item_lab = np.array(_labels("t", n, 3), dtype=object)
    cols: dict[str, Any] = {
        "first": item_lab[a],
        "second": item_lab[b],
        "outcome": np.where(first_wins, "first", "second").astype(object),
    }
    cols.update(cov)
    judge_lab = _labels("j", nj, 1)
    if nj > 1:
        cols["judge"] = np.array(judge_lab, dtype=object)[judge]
    frame = pd.DataFrame(cols)
    data = _load(
        frame,
        judge="judge" if nj > 1 else None,
        covariates=tuple(cov),
        source_name=f"synthetic biased Bradley-Terry (gamma={settings['gamma']}, "
        f"seed={random_seed})",
    )
    better_first = s[a] > s[b]
    correct = first_wins == better_first
    strengths = pd.Series(s, index=pd.Index(list(item_lab), name="item"), name="strength")
    true_order = tuple(strengths.sort_values(ascending=False, kind="stable").index)
    err = ~correct
    return SyntheticComparisons(
        data=data,
        frame=frame,
        true_order=true_order,
        true_strengths=strengths,
        correct=correct,
        generator="biased_bt",
        eps=None,
        eps_plus=None,
        eps_minus=None,
        realised_eps=float(err.mean()),
        realised_eps_plus=_share(err, better_first),
        realised_eps_minus=_share(err, ~better_first),
        realised_eps_vs_order=float(err.mean()),
        gamma=float(g[0]) if nj == 1 else tuple(float(x) for x in g),
        covariate_effects=MappingProxyType({k: float(v) for k, v in effects.items()}),
        settings=MappingProxyType(settings),
    )


# ----------------------------------------------------------------------------- hard pairs
@dataclass(frozen=True, eq=False)
class SyntheticHardPairs(SyntheticComparisons):
    """A synthetic log with ties, hard pairs and gold labels (:func:`simulate_hard_pairs`).

    Besides the fields of :class:`SyntheticComparisons` (whose ``realised_eps*`` are the error
    shares among all **non-tie** verdicts, hard pairs included, and whose ``correct`` is False
    on ties):

    Attributes
    ----------
    data_unlabelled : Comparisons
        The same log loaded without the truth column (ground-truth-free view).
    tie, hard, better_first : ndarray of bool
        Per row of ``frame``: the verdict is a tie; its pair is hard; the truly better item is
        shown first.
    tie_rate, hard_share, eps_hard, labelled_share : float
        Nominal settings.
    realised_tie_rate : float
        Share of ties among all verdicts.
    realised_hard_share : float
        Share of (context, pair) units that are hard.
    realised_eps_plus_easy, realised_eps_minus_easy, realised_eps_hard : float
        Realised error shares among the non-tie verdicts of easy pairs (by order) and of hard
        pairs (both orders).
    """

    data_unlabelled: Comparisons | None = None
    tie: np.ndarray | None = None
    hard: np.ndarray | None = None
    better_first: np.ndarray | None = None
    tie_rate: float = 0.0
    hard_share: float = 0.0
    eps_hard: float = 0.0
    labelled_share: float = 0.0
    realised_tie_rate: float = float("nan")
    realised_hard_share: float = float("nan")
    realised_eps_plus_easy: float = float("nan")
    realised_eps_minus_easy: float = float("nan")
    realised_eps_hard: float = float("nan")

    def describe(self) -> str:
        """One paragraph saying what this synthetic data set is.

        Examples
        --------
        >>> sim = simulate_hard_pairs(6, random_seed=0)
        >>> print(sim.describe())  # doctest: +ELLIPSIS
        SYNTHETIC data (simulate_hard_pairs, seed 0): 6 items, 30 verdicts, ...
        """
        s = self.settings
        d = self.data
        parts = [
            f"SYNTHETIC data (simulate_hard_pairs, seed {s.get('random_seed')}): "
            f"{d.n_items} items, {d.n_comparisons} verdicts",
            f"{s.get('repeats')} verdict(s) per order of every pair",
            f"easy eps+={self.eps_plus:g}, eps-={self.eps_minus:g}",
            f"{self.hard_share:.0%} hard pairs (error {self.eps_hard:g} in both orders)",
            f"ties {self.tie_rate:.0%}",
            f"gold labels on {self.labelled_share:.0%} of pairs",
            f"realised non-tie error {self.realised_eps:.4f} (better first "
            f"{self.realised_eps_plus:.4f}, better second {self.realised_eps_minus:.4f}), "
            f"realised ties {self.realised_tie_rate:.4f}",
        ]
        return ", ".join(parts) + "."


def simulate_hard_pairs(
    n_items: int = 30,
    *,
    eps_plus: float = 0.10,
    eps_minus: float = 0.20,
    hard_share: float = 0.2,
    eps_hard: float = 0.6,
    tie_rate: float = 0.15,
    labelled: float = 0.3,
    repeats: int = 1,
    strength_sigma: float = 1.5,
    n_contexts: int = 1,
    random_seed: int | np.random.Generator | None = None,
) -> SyntheticHardPairs:
    """Simulate a round robin whose errors correlate within a pair (issue 7, pair difficulty).

    Every unordered pair is shown ``repeats`` times in each order. Its true outcome T is drawn
    once from σ(s_i − s_j), s ~ Normal(0, ``strength_sigma``). With probability ``hard_share``
    the pair is *hard*: every non-tie verdict on it is wrong with probability ``eps_hard`` in
    both orders; on an easy pair a verdict is wrong with ``eps_plus`` (better item first) or
    ``eps_minus`` (second). Each verdict is first a tie with probability ``tie_rate``. A random
    ``labelled`` share of the pairs carries the id of the truly better item in the ``truth``
    column (empty elsewhere).

    Parameters
    ----------
    n_items : int
        Items per context (≥ 2).
    eps_plus, eps_minus : float
        Error rates on easy pairs.
    hard_share : float
        Probability that a pair is hard.
    eps_hard : float
        Error rate on hard pairs, in both orders (0.6: the judge is fooled more often than not).
    tie_rate : float
        Probability that a verdict is a tie.
    labelled : float
        Share of pairs with a gold label.
    repeats : int
        Verdicts per order of every pair (k ≥ 2 makes within-pair correlation testable).
    strength_sigma : float
        Scale of the latent strengths.
    n_contexts : int
        Independent round robins (a ``context`` column when > 1).
    random_seed : int or Generator, optional

    Returns
    -------
    SyntheticHardPairs
        ``data`` is loaded with ``ties="model"`` and the truth column (when any pair is
        labelled); ``data_unlabelled`` without it. ``realised_eps_plus``/``_minus`` are the
        error shares among all non-tie verdicts (the rates a labelled analysis of the whole log
        should recover).

    Examples
    --------
    >>> sim = simulate_hard_pairs(30, random_seed=1)
    >>> sim.data.n_comparisons, sim.data.tie_policy, sim.data.has_truth
    (870, 'model', True)
    >>> sim.frame.columns.tolist()
    ['first', 'second', 'outcome', 'repeat', 'truth']
    >>> bool(sim.realised_eps_plus > sim.realised_eps_plus_easy)  # hard pairs add errors
    True
    """
    settings = {
        "n_items": n_items,
        "eps_plus": eps_plus,
        "eps_minus": eps_minus,
        "hard_share": hard_share,
        "eps_hard": eps_hard,
        "tie_rate": tie_rate,
        "labelled": labelled,
        "repeats": repeats,
        "strength_sigma": strength_sigma,
        "n_contexts": n_contexts,
        "random_seed": random_seed if not isinstance(random_seed, np.random.Generator) else None,
    }
    n = int(n_items)
    n_ctx = int(n_contexts)
    k = int(repeats)
    if n < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items!r}")
    if n_ctx < 1:
        raise ValueError(f"n_contexts must be at least 1, got {n_contexts!r}")
    if k < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats!r}")
    e_plus, e_minus = _check_rate("eps_plus", eps_plus), _check_rate("eps_minus", eps_minus)
    share, e_hard = _check_rate("hard_share", hard_share), _check_rate("eps_hard", eps_hard)
    tau, lab = _check_rate("tie_rate", tie_rate), _check_rate("labelled", labelled)
    if not (float(strength_sigma) >= 0 and np.isfinite(strength_sigma)):
        raise ValueError(f"strength_sigma must be a non-negative number, got {strength_sigma!r}")
    rng = np.random.default_rng(random_seed)

    iu, ju = np.triu_indices(n, 1)
    n_pairs = iu.size
    strength = rng.normal(0.0, float(strength_sigma), size=(n_ctx, n))
    i_better = rng.random((n_ctx, n_pairs)) < expit(strength[:, iu] - strength[:, ju])
    hard_pair = rng.random((n_ctx, n_pairs)) < share
    labelled_pair = rng.random((n_ctx, n_pairs)) < lab

    k_tot = 2 * k
    col = np.arange(k_tot)
    i_first = col < k
    rep = np.where(i_first, col, col - k)
    shape = (n_ctx, n_pairs, k_tot)
    first = np.broadcast_to(np.where(i_first, iu[:, None], ju[:, None]), shape)
    second = np.broadcast_to(np.where(i_first, ju[:, None], iu[:, None]), shape)
    better_first = i_first[None, None, :] == i_better[:, :, None]
    hard = np.broadcast_to(hard_pair[:, :, None], shape)
    rate = np.where(hard, e_hard, np.where(better_first, e_plus, e_minus))
    tie = rng.random(shape) < tau
    error = (rng.random(shape) < rate) & ~tie
    first_wins = better_first != error

    item_lab = _labels("t", n, 3)
    ctx_lab = _labels("c", n_ctx, 2)
    names = np.array(item_lab, dtype=object)
    better_idx = np.where(i_better, iu[None, :], ju[None, :])
    truth = np.where(labelled_pair, names[better_idx], None)
    cols: dict[str, Any] = {}
    cols["first"] = names[first.ravel()]
    cols["second"] = names[second.ravel()]
    cols["outcome"] = np.where(
        tie.ravel(), "tie", np.where(first_wins.ravel(), "first", "second")
    ).astype(object)
    cols["repeat"] = np.broadcast_to(rep, shape).ravel().astype(np.int64)
    cols["truth"] = np.broadcast_to(truth[:, :, None], shape).ravel()
    if n_ctx > 1:
        cols["context"] = np.repeat(np.array(ctx_lab, dtype=object), n_pairs * k_tot)
    frame = pd.DataFrame(cols)

    full_lab = [f"{c}{CONTEXT_SEP}{t}" if n_ctx > 1 else t for c in ctx_lab for t in item_lab]
    strengths = pd.Series(strength.ravel(), index=pd.Index(full_lab, name="item"), name="strength")
    ctx_of = np.repeat(np.arange(n_ctx), n)
    true_order = tuple(full_lab[q] for q in np.lexsort((-strength.ravel(), ctx_of)))

    common = {
        "repeat": "repeat",
        "context": "context" if n_ctx > 1 else None,
        "ties": "model",
        "source_name": f"synthetic hard-pair round robin (seed={random_seed})",
    }
    unlabelled = _load(frame, **common)
    data = _load(frame, truth="truth", **common) if labelled_pair.any() else unlabelled

    err, bf, hd, ti = error.ravel(), better_first.ravel(), hard.ravel(), tie.ravel()
    dec = ~ti
    return SyntheticHardPairs(
        data=data,
        frame=frame,
        true_order=true_order,
        true_strengths=strengths,
        correct=dec & ~err,
        generator="hard_pairs",
        eps=None,
        eps_plus=e_plus,
        eps_minus=e_minus,
        realised_eps=_share(err, dec),
        realised_eps_plus=_share(err, dec & bf),
        realised_eps_minus=_share(err, dec & ~bf),
        soft_sigma=float(strength_sigma),
        settings=MappingProxyType(settings),
        data_unlabelled=unlabelled,
        tie=ti,
        hard=hd,
        better_first=bf,
        tie_rate=tau,
        hard_share=share,
        eps_hard=e_hard,
        labelled_share=lab,
        realised_tie_rate=float(ti.mean()),
        realised_hard_share=float(hard_pair.mean()),
        realised_eps_plus_easy=_share(err, dec & bf & ~hd),
        realised_eps_minus_easy=_share(err, dec & ~bf & ~hd),
        realised_eps_hard=_share(err, dec & hd),
    )


def order_counts(
    pc: Any,
    item_context: np.ndarray,
    rank: np.ndarray,
    values: dict[str, Any],
    ties: bool,
    rng: np.random.Generator,
    *,
    tie_by: str = "context",
) -> np.ndarray:
    """The hard-truth models' verdicts (METHODS §3) given an order of every context.

    Per pair row and order: the ties (rate τ of the judge, or τ₊ / τ₋ by the better item's
    position when ``values`` hold ``tie_rate_plus`` and ``tie_rate_minus``, or with
    ``tie_rho`` a rate per context and judge — per pair row with ``tie_by="pair"`` — drawn
    from the Beta of mean τ and correlation ρ),
    then, among the decided verdicts, the errors (ε₊ with the better item first, ε₋ second).
    SBC draws the order uniformly (the prior); the posterior predictive draws it from its
    posterior (:func:`~bayes_pairwise.pymc_models.order_kernel.order_sample`).

    Parameters
    ----------
    pc : PairCounts (bayes_pairwise.matrices.pair_counts)
        The design: the pair rows, each shown ``k_plus`` / ``k_minus`` times.
    item_context : int array
        Context of every item.
    rank : int array
        Rank of every item in its context's order (0 = the best).
    values : dict
        Per-judge arrays: ``eps`` or ``eps_plus`` and ``eps_minus``; with ``ties``,
        ``tie_rate`` (and ``tie_rho``) or ``tie_rate_plus`` and ``tie_rate_minus``.
    ties : bool
        Draw ties (the ``(n1, n2, t1, t2)`` columns) or not (``(n1, n2)``).
    rng : numpy.random.Generator
    tie_by : {"context", "pair"}
        With ``tie_rho``: what shares one tie probability (the order models'
        ``tie_dispersion``).

    Returns
    -------
    int array (pairs, 2 or 4)
        ``n1, n2`` (the decided wins of ``i`` with ``i`` first / second) and ``t1, t2``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> from bayes_pairwise.matrices import pair_counts
    >>> data = simulate_round_robin(4, eps=0.1, random_seed=0).data
    >>> rank = np.arange(4)          # item 0 best, then 1, 2, 3
    >>> wins = order_counts(pair_counts(data), np.asarray(data.item_context), rank,
    ...                     {"eps": np.array([0.0])}, False, np.random.default_rng(0))
    >>> wins.tolist()   # no errors: the lower index wins in both orders
    [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1]]
    """
    q = np.asarray(pc.judge)
    ep = np.asarray(values["eps_plus"] if "eps_plus" in values else values["eps"]).reshape(-1)
    em = np.asarray(values["eps_minus"] if "eps_minus" in values else values["eps"]).reshape(-1)
    i_better = rank[np.asarray(pc.i)] < rank[np.asarray(pc.j)]
    kp = np.asarray(pc.k_plus, dtype=np.int64)
    km = np.asarray(pc.k_minus, dtype=np.int64)
    t1 = t2 = np.zeros_like(kp)
    if ties and "tie_rate_plus" in values:  # i first in the k_plus verdicts
        tp = np.asarray(values["tie_rate_plus"]).reshape(-1)[q]
        tm = np.asarray(values["tie_rate_minus"]).reshape(-1)[q]
        t1 = rng.binomial(kp, np.where(i_better, tp, tm))
        t2 = rng.binomial(km, np.where(i_better, tm, tp))
    elif ties and "tie_rho" in values:  # a tie probability per (context or pair, judge) ~ Beta
        tau = np.asarray(values["tie_rate"]).reshape(-1)
        kappa = 1.0 / np.asarray(values["tie_rho"]).reshape(-1) - 1.0
        if tie_by == "pair":
            tau_row = rng.beta(tau[q] * kappa[q], (1.0 - tau[q]) * kappa[q])
        elif tie_by == "context":
            n_contexts = int(np.max(item_context, initial=-1)) + 1
            cell = rng.beta(
                np.tile(tau * kappa, (n_contexts, 1)),
                np.tile((1.0 - tau) * kappa, (n_contexts, 1)),
            )  # (C, J)
            tau_row = cell[np.asarray(item_context)[np.asarray(pc.i)], q]
        else:
            raise ValueError(f"tie_by must be 'context' or 'pair', got {tie_by!r}")
        t1, t2 = rng.binomial(kp, tau_row), rng.binomial(km, tau_row)
    elif ties:
        tau = np.asarray(values["tie_rate"]).reshape(-1)[q]
        t1, t2 = rng.binomial(kp, tau), rng.binomial(km, tau)
    # wins of i: with i first (right unless the better-first error, or i worse and an ε₋ error)
    n1 = rng.binomial(kp - t1, np.where(i_better, 1.0 - ep[q], em[q]))
    n2 = rng.binomial(km - t2, np.where(i_better, 1.0 - em[q], ep[q]))
    cols = [n1, n2, t1, t2] if ties else [n1, n2]
    return np.stack(cols, axis=1)


def log_from_counts(data: Comparisons, wins: np.ndarray) -> Comparisons:
    """A verdict log whose pair counts are ``wins`` per pair row of ``data``.

    ``wins`` is (n1, n2) per row (wins of i with i first, with i second), or (n1, n2, t1, t2)
    with the ties per order too (the tie model); the log is then loaded with ``ties="model"``.
    SBC's simulated logs and :func:`~bayes_pairwise.caveats.joint_mode`'s are made with it.

    Parameters
    ----------
    data : Comparisons
        The design: its pair rows, each shown ``k_plus`` / ``k_minus`` times.
    wins : int array (pairs, 2 or 4)

    Returns
    -------
    Comparisons

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> design = simulate_round_robin(3, random_seed=0).data
    >>> log = log_from_counts(design, np.array([[1, 1], [0, 0], [1, 0]]))
    >>> log.n_comparisons, log.n_items
    (6, 3)
    """
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.matrices import pair_counts

    pc = pair_counts(data)
    items = np.asarray(data.items, dtype=object)
    judges = np.asarray(data.judges, dtype=object)
    contexts = np.asarray(data.contexts, dtype=object)[np.asarray(data.item_context)]
    with_ties = wins.shape[1] == 4
    rows = []
    for r in range(len(pc.i)):
        i, j, jd = items[pc.i[r]], items[pc.j[r]], judges[pc.judge[r]]
        q = contexts[pc.i[r]]
        n1, n2 = int(wins[r, 0]), int(wins[r, 1])
        t1, t2 = (int(wins[r, 2]), int(wins[r, 3])) if with_ties else (0, 0)
        kp, km = int(pc.k_plus[r]), int(pc.k_minus[r])
        rows += [
            (jd, i, j, "first" if k < n1 else "tie" if k < n1 + t1 else "second", q)
            for k in range(kp)
        ]
        rows += [
            (jd, j, i, "second" if k < n2 else "tie" if k < n2 + t2 else "first", q)
            for k in range(km)
        ]
    frame = pd.DataFrame(rows, columns=["judge", "first", "second", "outcome", "context"])
    return load_comparisons(
        frame,
        judge="judge" if data.n_judges > 1 else None,
        context="context" if data.n_contexts > 1 else None,
        ties="model" if with_ties else "error",
        detect=False,
    )
