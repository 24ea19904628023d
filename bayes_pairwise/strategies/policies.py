"""Annotation strategies: who is compared with whom, and at what cost (METHODS §9).

Every strategy takes an :class:`~bayes_pairwise.strategies.simulate.AnnotationWorld` and a
``numpy.random.Generator`` and returns a :class:`StrategyRun`: the verdict log in arrival order
(implied pairs of a list: best-first, outcome 1), its cost, and the online Elo ratings used for
matchmaking (K = 32, start 1500, updated sequentially in arrival order).

Matchmaking ``"similar"`` (vectorised form of the paper's window rule): sort the active items by
Elo (random tie-break), add to each sorted position a uniform jitter on [0, ``window``·n), re-sort
and pair neighbours — partners are at most about ``window``·n places apart. ``"random"``: a random
perfect matching. An odd item out sits the round out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from bayes_pairwise.data import Comparisons
from bayes_pairwise.rankings import Rankings
from bayes_pairwise.strategies.cost import listwise_cost
from bayes_pairwise.strategies.rating import (
    ELO_START,
    GaussianPosterior,
    elo_update,
    gaussian_posterior,
    pl_gaussian_posterior,
)
from bayes_pairwise.strategies.simulate import AnnotationWorld

__all__ = [
    "ListProposal",
    "StrategyRun",
    "active",
    "implied_pairs",
    "listwise",
    "make_pairs",
    "pair_fisher_information",
    "pair_information",
    "pairwise",
    "propose_lists",
    "rank_variance_gain",
    "streak_prune",
    "streak_update",
    "swap_confirm",
    "tail_prune",
    "tail_prune_select",
]


@dataclass(frozen=True, eq=False)
class StrategyRun:
    """What one strategy produced on one world.

    Attributes
    ----------
    first, second : ndarray of int
        Items of each verdict (for an implied pair: the one ranked higher first).
    outcome : ndarray of float
        1 first wins, 0 second wins, 0.5 tie.
    cost : float
        Cost-equivalent API calls.
    calls : int
        Number of judge calls (pairwise or listwise).
    elo : ndarray
        Online Elo ratings at the end.
    posterior_mean : ndarray or None
        The active strategy's final posterior mean (None for the others).
    positional : bool
        True when every verdict is (shown first, shown second) of a pairwise call, so the
        judge's positional error rates apply to it; False for the implied pairs of ranked lists
        (better text first; a list shows no pair in an order).
    lists : tuple of ndarray
        The ranked lists themselves, one array (calls × k, best first) per batch of calls of
        one size; empty for pairwise strategies. The Plackett–Luce posterior reads these.
    """

    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    cost: float
    calls: int
    elo: np.ndarray
    posterior_mean: np.ndarray | None = None
    positional: bool = True
    lists: tuple[np.ndarray, ...] = ()

    @property
    def n_pairs(self) -> int:
        """Number of (direct or implied) pairwise verdicts."""
        return int(self.first.size)

    def ranked(self) -> np.ndarray:
        """Every ranked list as one row, best first, padded with −1 (shape lists × longest)."""
        return _pad_lists(self.lists)


def _pad_lists(lists: tuple[np.ndarray, ...] | list[np.ndarray]) -> np.ndarray:
    if not lists:
        return np.zeros((0, 2), dtype=np.int64)
    width = max(a.shape[1] for a in lists)
    rows = [np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-1) for a in lists]
    return np.concatenate(rows).astype(np.int64)


class _Log:
    def __init__(self, n: int) -> None:
        self.f: list[np.ndarray] = []
        self.s: list[np.ndarray] = []
        self.o: list[np.ndarray] = []
        self.cost = 0.0
        self.calls = 0
        self.elo = np.full(n, ELO_START)
        self.positional = True
        self.lists: list[np.ndarray] = []

    def add(
        self,
        f: np.ndarray,
        s: np.ndarray,
        o: np.ndarray,
        cost: float,
        calls: int,
        positional: bool = True,
    ) -> None:
        self.positional = self.positional and positional
        self.f.append(f)
        self.s.append(s)
        self.o.append(o)
        self.cost += cost
        self.calls += calls
        self.elo = elo_update(self.elo, f, s, o)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.f:
            e = np.zeros(0, dtype=np.int64)
            return e, e.copy(), np.zeros(0)
        return np.concatenate(self.f), np.concatenate(self.s), np.concatenate(self.o)

    def run(self, posterior_mean: np.ndarray | None = None) -> StrategyRun:
        f, s, o = self.arrays()
        return StrategyRun(
            f,
            s,
            o,
            float(self.cost),
            int(self.calls),
            self.elo,
            posterior_mean,
            self.positional,
            tuple(self.lists),
        )


def _check(name: str, value: float, lo: float, hi: float | None = None) -> None:
    if value < lo or (hi is not None and value > hi):
        rng_txt = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {rng_txt}, got {value}")


def make_pairs(
    active_items: np.ndarray,
    elo: np.ndarray,
    rng: np.random.Generator,
    matchmaking: str = "similar",
    window: float = 0.1,
) -> tuple[np.ndarray, np.ndarray]:
    """One round of matchmaking over ``active_items``: returns (first, second) index arrays.

    Examples
    --------
    >>> f, s = make_pairs(np.arange(6), np.arange(6) * 100.0, np.random.default_rng(0), window=0.0)
    >>> sorted(map(sorted, zip(f.tolist(), s.tolist())))  # no jitter: neighbours by Elo
    [[0, 1], [2, 3], [4, 5]]
    """
    items = np.asarray(active_items, dtype=np.int64)
    n = items.size
    if matchmaking == "random":
        order = rng.permutation(items)
    elif matchmaking == "similar":
        tie = rng.random(n)
        srt = items[np.lexsort((tie, elo[items]))]
        key = np.arange(n) + rng.random(n) * window * n
        order = srt[np.argsort(key, kind="stable")]
    else:
        raise ValueError(f"matchmaking must be 'similar' or 'random', got {matchmaking!r}")
    m = n // 2
    a, b = order[0 : 2 * m : 2], order[1 : 2 * m : 2]
    swap = rng.random(m) < 0.5  # random presentation order
    return np.where(swap, b, a), np.where(swap, a, b)


def pairwise(
    world: AnnotationWorld,
    rng: np.random.Generator,
    rounds: int = 24,
    matchmaking: str = "similar",
    window: float = 0.1,
) -> StrategyRun:
    """``rounds`` rounds in which every text meets one opponent (n/2 calls per round).

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> run = pairwise(simulate_annotation(10, random_seed=0), np.random.default_rng(0), rounds=3)
    >>> run.cost, run.n_pairs
    (15.0, 15)
    """
    _check("rounds", rounds, 1)
    log = _Log(world.n_items)
    items = np.arange(world.n_items)
    for _ in range(rounds):
        f, s = make_pairs(items, log.elo, rng, matchmaking, window)
        log.add(f, s, world.compare(f, s, rng), cost=float(f.size), calls=int(f.size))
    return log.run()


def tail_prune_select(active_items: np.ndarray, elo: np.ndarray, perc: float) -> np.ndarray:
    """The active items left after dropping ``perc`` of them from *each* Elo tail.

    ``m = max(1, int(2·perc·n))`` items go in all, ``m // 2`` from the low tail and the rest from
    the high tail (the paper's text: "prune_perc of participants from both tails"; with
    perc = 0.2 from round 8 of 24 this gives the paper's cost of ≈ 4,759 calls).

    Examples
    --------
    >>> tail_prune_select(np.arange(10), np.arange(10.0), 0.15).tolist()  # 1 low, 2 high dropped
    [1, 2, 3, 4, 5, 6, 7]
    """
    items = np.asarray(active_items, dtype=np.int64)
    n = items.size
    m = min(n, max(1, int(2 * perc * n))) if perc > 0 and n > 2 else 0
    if m == 0:
        return items
    m_low = m // 2
    m_high = m - m_low
    srt = items[np.argsort(elo[items], kind="stable")]
    return np.sort(srt[m_low : n - m_high])


def tail_prune(
    world: AnnotationWorld,
    rng: np.random.Generator,
    rounds: int = 24,
    start: int = 8,
    perc: float = 0.2,
    matchmaking: str = "similar",
    window: float = 0.1,
) -> StrategyRun:
    """Pairwise rounds; after each round ``>= start``, drop ``perc`` of the active texts from each
    Elo tail (the paper's tail pruning; :func:`tail_prune_select`).

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> w = simulate_annotation(20, random_seed=0)
    >>> tail_prune(w, np.random.default_rng(0), rounds=3, start=1, perc=0.25).cost  # 10 + 5 + 2
    17.0
    """
    _check("rounds", rounds, 1)
    _check("start", start, 0)
    _check("perc", perc, 0.0, 1.0)
    log = _Log(world.n_items)
    items = np.arange(world.n_items)
    for rd in range(1, rounds + 1):
        if items.size < 2:
            break
        f, s = make_pairs(items, log.elo, rng, matchmaking, window)
        log.add(f, s, world.compare(f, s, rng), cost=float(f.size), calls=int(f.size))
        if rd >= start:
            items = tail_prune_select(items, log.elo, perc)
    return log.run()


def streak_prune(
    world: AnnotationWorld,
    rng: np.random.Generator,
    rounds: int = 24,
    streak: int = 3,
    distinct: int = 3,
    matchmaking: str = "similar",
    window: float = 0.1,
) -> StrategyRun:
    """Pairwise rounds; a text leaves once it has ``streak`` consecutive wins (or losses) and has
    met at least ``distinct`` different opponents (ties reset both streaks).

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> w = simulate_annotation(40, random_seed=0)
    >>> run = streak_prune(w, np.random.default_rng(0), rounds=10, streak=2, distinct=2)
    >>> run.cost < 200.0
    True
    """
    _check("rounds", rounds, 1)
    _check("streak", streak, 1)
    _check("distinct", distinct, 1)
    n = world.n_items
    log = _Log(n)
    wins = np.zeros(n, dtype=np.int64)
    losses = np.zeros(n, dtype=np.int64)
    met = np.zeros((n, n), dtype=bool)
    decided = np.zeros(n, dtype=bool)
    for _ in range(rounds):
        items = np.flatnonzero(~decided)
        if items.size < 2:
            break
        f, s = make_pairs(items, log.elo, rng, matchmaking, window)
        o = world.compare(f, s, rng)
        log.add(f, s, o, cost=float(f.size), calls=int(f.size))
        streak_update(wins, losses, met, f, s, o)
        done = ((wins >= streak) | (losses >= streak)) & (met.sum(axis=1) >= distinct)
        decided[items] |= done[items]
    return log.run()


def streak_update(
    wins: np.ndarray,
    losses: np.ndarray,
    met: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
) -> None:
    """Update streak counters in place for one round (each item at most once).

    A win extends the win streak and resets the loss streak (and vice versa); a tie resets both
    and does not count the opponent as met.

    Examples
    --------
    >>> w, l, m = np.zeros(2, int), np.zeros(2, int), np.zeros((2, 2), bool)
    >>> streak_update(w, l, m, np.array([0]), np.array([1]), np.array([1.0]))
    >>> w.tolist(), l.tolist(), int(m.sum())
    ([1, 0], [0, 1], 2)
    """
    for a, b, o in ((first, second, outcome), (second, first, 1.0 - outcome)):
        won, lost = o == 1.0, o == 0.0
        wins[a] = np.where(won, wins[a] + 1, 0)
        losses[a] = np.where(lost, losses[a] + 1, 0)
        decisive = o != 0.5
        met[a[decisive], b[decisive]] = True


def implied_pairs(ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All k(k−1)/2 (winner, loser) pairs implied by best-first rankings (rows of ``ranked``).

    Examples
    --------
    >>> w, l = implied_pairs(np.array([[7, 3, 5]]))
    >>> list(zip(w.tolist(), l.tolist()))
    [(7, 3), (7, 5), (3, 5)]
    """
    r = np.asarray(ranked, dtype=np.int64)
    k = r.shape[1]
    i, j = np.triu_indices(k, 1)
    return r[:, i].ravel(), r[:, j].ravel()


def _similar_order(
    items: np.ndarray, elo: np.ndarray, rng: np.random.Generator, window: float
) -> np.ndarray:
    """The paper's grouping order: sort by Elo, then int(n·window) random swaps within a window."""
    n = items.size
    qs = items[np.lexsort((rng.random(n), elo[items]))].copy()
    if window > 0:
        wdw = max(1, int(n * window))
        for _ in range(max(1, int(n * window))):
            i = int(rng.integers(n))
            j = int(rng.integers(max(0, i - wdw), min(n - 1, i + wdw) + 1))
            qs[i], qs[j] = qs[j], qs[i]
    return qs


def _rank_groups(
    world: AnnotationWorld, log: _Log, groups: list[np.ndarray], rng: np.random.Generator
) -> None:
    """Rank each group with one listwise call; log its implied pairs and cost."""
    by_size: dict[int, list[int]] = {}
    for gi, g in enumerate(groups):
        by_size.setdefault(g.size, []).append(gi)
    ranked_all: list[np.ndarray | None] = [None] * len(groups)
    for k, idx in by_size.items():
        if k < 2:
            continue
        ranked = world.rank_lists(np.stack([groups[i] for i in idx]), rng)
        for row, gi in zip(ranked, idx, strict=True):
            ranked_all[gi] = row
    sizes = [g.size for g in groups if g.size >= 2]
    for k in sorted(by_size):
        rows = [ranked_all[gi] for gi in by_size[k] if ranked_all[gi] is not None]
        if rows:
            log.lists.append(np.stack(rows).astype(np.int64))
    fs, ss = [], []
    for row in ranked_all:  # arrival order = group order, pairs (i, j) with i < j
        if row is None:
            continue
        w, lo = implied_pairs(row[None, :])
        fs.append(w)
        ss.append(lo)
    if not fs:
        return
    f, s = np.concatenate(fs), np.concatenate(ss)
    log.add(f, s, np.ones(f.size), cost=listwise_cost(sizes), calls=len(sizes), positional=False)


def listwise(
    world: AnnotationWorld,
    rng: np.random.Generator,
    k: int = 10,
    rounds: int = 3,
    overlap: int = 0,
    grouping: str = "similar",
    window: float = 0.1,
) -> StrategyRun:
    """Rounds of listwise calls on groups of ``k`` (the paper's listwise variant).

    Each round splits all texts into consecutive groups of ``k`` in the grouping order (Elo-sorted
    with random local swaps, or random), ranks each group with one call (cost k/2) and logs its
    k(k−1)/2 implied pairs. With ``overlap`` ol > 0 each boundary between neighbouring groups is
    then re-ranked once more on a window of the last ol of one group and the first ol of the
    next (one call of 2·ol texts, cost ol).

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> run = listwise(simulate_annotation(100, random_seed=0), np.random.default_rng(0))
    >>> run.cost, run.calls, run.n_pairs  # 3 rounds x 10 lists, 45 implied pairs each
    (150.0, 30, 1350)
    """
    _check("k", k, 2)
    _check("rounds", rounds, 1)
    _check("overlap", overlap, 0, k // 2)
    if grouping not in ("similar", "random"):
        raise ValueError(f"grouping must be 'similar' or 'random', got {grouping!r}")
    n = world.n_items
    log = _Log(n)
    items = np.arange(n)
    for _ in range(rounds):
        if grouping == "random":
            order = rng.permutation(items)
        else:
            order = _similar_order(items, log.elo, rng, window)
        groups = [order[i : i + k] for i in range(0, n, k)]
        _rank_groups(world, log, groups, rng)
        if overlap > 0 and len(groups) > 1:
            windows = [
                np.concatenate([groups[g][-overlap:], groups[g + 1][:overlap]])
                for g in range(len(groups) - 1)
            ]
            _rank_groups(world, log, windows, rng)
    return log.run()


def swap_confirm(
    world: AnnotationWorld,
    rng: np.random.Generator,
    rounds: int = 12,
    matchmaking: str = "similar",
    window: float = 0.1,
) -> StrategyRun:
    """Pairwise rounds asking each pair in both orders (2 calls); a verdict is kept when the two
    agree, a tie is logged otherwise (the evaluation guide's position-bias mitigation).

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> w = simulate_annotation(10, random_seed=0)
    >>> run = swap_confirm(w, np.random.default_rng(0), rounds=2)
    >>> run.cost, run.n_pairs
    (20.0, 10)
    """
    _check("rounds", rounds, 1)
    log = _Log(world.n_items)
    items = np.arange(world.n_items)
    for _ in range(rounds):
        f, s = make_pairs(items, log.elo, rng, matchmaking, window)
        o1 = world.compare(f, s, rng)
        o2 = 1.0 - world.compare(s, f, rng)  # in (f, s) terms
        o = np.where(o1 == o2, o1, 0.5)
        # a confirmed verdict was asked in both orders: no positional error rate applies
        log.add(f, s, o, cost=2.0 * f.size, calls=2 * int(f.size), positional=False)
    return log.run()


# ------------------------------------------------------------------------------ active


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(7)
_GH_W = _GH_W / _GH_W.sum()


def _verdict_p(
    mean_diff: np.ndarray, var_diff: np.ndarray, eps_plus: float, eps_minus: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """At the Gauss–Hermite nodes of d ~ N(mean_diff, var_diff): the judge's scale
    1 − ε₊ − ε₋, σ(d) and P(first wins) = ε₋ + scale σ(d) (nodes on the last axis)."""
    scale = 1.0 - eps_plus - eps_minus
    d = np.asarray(mean_diff, float)[..., None] + np.sqrt(var_diff)[..., None] * _GH_X
    sg = expit(d)
    return scale, sg, eps_minus + scale * sg


def _entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(p * np.log(p) + (1 - p) * np.log1p(-p))


def pair_information(
    mean_diff: np.ndarray,
    var_diff: np.ndarray,
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
) -> np.ndarray:
    """Expected information gain (nats) of one verdict on a pair about the strengths (BALD).

    ``H(E[p]) − E[H(p)]`` with ``p = ε₋ + (1 − ε₊ − ε₋) σ(d)`` and d ~ N(mean_diff, var_diff),
    by 7-point Gauss–Hermite quadrature. A noisier judge (larger ε) gives less information.

    Examples
    --------
    >>> round(float(pair_information(np.array([0.0]), np.array([4.0]))[0]), 3)
    0.227
    >>> bool(pair_information(np.array([0.0]), np.array([4.0]), 0.2, 0.2)[0] < 0.227)
    True
    """
    _, _, p = _verdict_p(mean_diff, var_diff, eps_plus, eps_minus)
    return _entropy((p * _GH_W).sum(-1)) - (_entropy(p) * _GH_W).sum(-1)


def pair_fisher_information(
    mean_diff: np.ndarray,
    var_diff: np.ndarray,
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
) -> np.ndarray:
    """Expected Fisher information of one verdict about the strength difference d.

    ``E[p'(d)² / (p(1 − p))]`` with ``p = ε₋ + (1 − ε₊ − ε₋) σ(d)`` and d ~ N(mean_diff,
    var_diff), by 7-point Gauss–Hermite quadrature: how much one verdict on the pair would
    sharpen the posterior of θ_first − θ_second. Largest for close pairs and a clean judge.

    Examples
    --------
    >>> float(pair_fisher_information(np.array([0.0]), np.array([0.0]))[0])  # σ'(0)² / ¼
    0.25
    >>> bool(pair_fisher_information(np.array([3.0]), np.array([0.0]))[0] < 0.25)
    True
    """
    scale, sg, p = _verdict_p(mean_diff, var_diff, eps_plus, eps_minus)
    p = np.clip(p, 1e-12, 1 - 1e-12)
    dp = scale * sg * (1.0 - sg)
    return (dp * dp / (p * (1.0 - p)) * _GH_W).sum(-1)


def rank_variance_gain(
    mean: np.ndarray,
    sd: np.ndarray,
    groups: np.ndarray,
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
) -> np.ndarray:
    """Expected reduction of the summed rank variance from ranking each list (rows of groups).

    Spearman's ρ loses ``6 Σ d_i² / (n(n² − 1))``, so the target of a design is the summed
    variance of the texts' *ranks*, not of their strengths. A text's rank variance is about
    ``dens_i² · V_i``, with V_i its posterior variance and dens_i the number of texts per unit
    strength around it (posterior means within ± the median sd); texts at the ends of the scale
    or in sparse regions move few ranks for the same strength error. A list's verdict on (i, j)
    carries Fisher information I_ij (:func:`pair_fisher_information`) about θ_i − θ_j, hence
    ``I_ij / (1 + V_j I_ij)`` about θ_i when θ_j is itself uncertain; each text's precision
    grows by the sum over its list-mates, and the gain is ``Σ_i dens_i² (V_i − V_i')``.

    Examples
    --------
    >>> mean = np.array([-2.0, -1.9, -1.8, 0.0, 0.1, 3.0])
    >>> gain = rank_variance_gain(mean, np.full(6, 0.5), np.array([[0, 1, 2], [3, 4, 5]]))
    >>> bool(gain[0] > gain[1])  # three close texts gain more than a spread-out list
    True
    """
    mean = np.asarray(mean, float)
    var = np.asarray(sd, float) ** 2
    g = np.asarray(groups, dtype=np.int64)
    h = float(np.median(sd))
    srt = np.sort(mean)
    dens = (np.searchsorted(srt, mean + h) - np.searchsorted(srt, mean - h)) / (2.0 * h)
    m, v = mean[g], var[g]  # (lists, k)
    info = pair_fisher_information(
        m[:, :, None] - m[:, None, :], v[:, :, None] + v[:, None, :], eps_plus, eps_minus
    )
    k = g.shape[1]
    info[:, np.arange(k), np.arange(k)] = 0.0
    gain = (info / (1.0 + v[:, None, :] * info)).sum(axis=2)  # precision added to each text
    return (dens[g] ** 2 * (v - 1.0 / (1.0 / v + gain))).sum(axis=1)


def _strided_groups(order: np.ndarray, k: int, stride: int, offset: int) -> list[np.ndarray]:
    """Lists of k items spaced ``stride`` apart along ``order`` (blocks of k·stride, rotated)."""
    n = order.size
    rolled = np.roll(order, -offset)
    block = k * stride
    groups = []
    for b0 in range(0, n - block + 1, block):
        blk = rolled[b0 : b0 + block].reshape(k, stride)
        groups.extend(blk.T)  # column c: items c, c+stride, ...
    rest = rolled[(n // block) * block :]
    groups.extend(rest[i : i + k] for i in range(0, rest.size, k) if rest[i : i + k].size >= 2)
    return groups


def _choose_lists(
    post: GaussianPosterior,
    k: int,
    take: int,
    score: str,
    strides: tuple[int, ...],
    eps_plus: float,
    eps_minus: float,
    rng: np.random.Generator,
    exclude: np.ndarray | None = None,
) -> tuple[list[np.ndarray], list[float]]:
    """The ``take`` best disjoint candidate lists of k (strided along the posterior order)."""
    mean = post.mean
    n = mean.size
    order = np.argsort(mean + rng.random(n) * 1e-9)
    cands: list[np.ndarray] = []
    for st in strides:
        if st * k > n:
            continue
        cands.extend(_strided_groups(order, k, st, int(rng.integers(st * k))))
    cands = [g for g in cands if g.size == k]
    if not cands or take < 1:
        return [], []
    g = np.stack(cands)
    if score == "rank":
        value = rank_variance_gain(mean, post.sd, g, eps_plus, eps_minus)
    else:
        i, j = np.triu_indices(k, 1)
        md = mean[g[:, i]] - mean[g[:, j]]
        vd = post.sd[g[:, i]] ** 2 + post.sd[g[:, j]] ** 2
        value = pair_information(md, vd, eps_plus, eps_minus).sum(axis=1)
    used = np.zeros(n, dtype=bool) if exclude is None else exclude.copy()
    chosen: list[np.ndarray] = []
    values: list[float] = []
    for ci in np.argsort(-value):
        if len(chosen) >= take:
            break
        if used[g[ci]].any():
            continue
        used[g[ci]] = True
        chosen.append(g[ci])
        values.append(float(value[ci]))
    return chosen, values


@dataclass(frozen=True, eq=False)
class ListProposal:
    """The next lists to send to a judge (:func:`propose_lists`).

    Attributes
    ----------
    lists : tuple of tuple of str
        Item labels of each proposed list, in the current posterior order (best first).
    value : ndarray
        Each list's score: the expected reduction of the summed rank variance (``score="rank"``)
        or the expected information gain in nats (``"bald"``); NaN for a list of texts not seen
        yet (chosen at random, before any scored list).
    posterior : GaussianPosterior
        The posterior the lists were chosen from (strengths by the data's item order).
    """

    lists: tuple[tuple[str, ...], ...]
    value: np.ndarray
    posterior: GaussianPosterior


def propose_lists(
    data: Comparisons | Rankings,
    n_lists: int,
    *,
    k: int = 10,
    score: str = "rank",
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
    strides: tuple[int, ...] = (1, 2, 4, 8),
    prior_sd: float = 3.0,
    random_seed: int | np.random.Generator = 0,
) -> ListProposal:
    """The next ``n_lists`` lists of ``k`` texts to rank, chosen from a real comparison log.

    One step of the :func:`active` strategy on your own data: the Gaussian posterior over
    Bradley–Terry strengths of the verdicts so far (with the judge's error rates), then the best
    disjoint candidate lists by ``score``. Texts without any verdict come first, in random lists
    (nothing is known about them; the simulated strategy's first round). Send the lists to the
    judge, append the verdicts (a ranking of k texts: its k(k − 1)/2 implied pairs, better text
    first, outcome ``"first"``), load again and repeat.

    Parameters
    ----------
    data : Comparisons or Rankings
        The log so far, one context: pairwise verdicts (:func:`bayes_pairwise.load_comparisons`;
        ties count half each way) or ranked lists (:func:`bayes_pairwise.load_rankings`: each
        list is one Plackett–Luce observation, :func:`~bayes_pairwise.strategies.rating.
        pl_gaussian_posterior`, and ``eps_plus``/``eps_minus`` do not apply). The verdicts of
        several judges are pooled.
    n_lists : int
        How many lists to propose (at most ``n_items // k``: the lists are disjoint).
    k : int
        Texts per list (2: pairs; cost k/2 per list in the paper's accounting).
    score : {"rank", "bald"}
        As in :func:`active`.
    eps_plus, eps_minus : float
        The judge's error rates on a verdict (e.g. a fitted model's posterior means): positional
        rates for a log of pairwise calls (first, second as shown); for the implied pairs of
        ranked lists (better text first, no shown order) a symmetric rate, ``eps_plus =
        eps_minus``, or none.
    strides, prior_sd
        Candidate spacings along the posterior order, and the strengths' prior sd.
    random_seed : int or Generator

    Returns
    -------
    ListProposal

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c", "d", "a", "c"],
    ...                    "second": ["b", "c", "d", "e", "c", "e"],
    ...                    "outcome": ["first"] * 6})
    >>> prop = propose_lists(load_comparisons(df), 1, k=3, random_seed=1)
    >>> len(prop.lists), len(prop.lists[0])
    (1, 3)
    """
    if not isinstance(data, Comparisons | Rankings):
        raise TypeError(
            "propose_lists expects a Comparisons or Rankings object "
            "(bayes_pairwise.load_comparisons / load_rankings), "
            f"got {type(data).__name__}"
        )
    _check("k", k, 2)
    _check("n_lists", n_lists, 1)
    if score not in ("rank", "bald"):
        raise ValueError(f"score must be 'rank' or 'bald', got {score!r}")
    if data.n_contexts > 1:
        raise ValueError(
            f"the data hold {data.n_contexts} contexts, and a list must not mix texts of "
            "different contexts; propose for one at a time (data.for_context(name); "
            "propose --context NAME on the command line)"
        )
    n = data.n_items
    if n_lists * k > n:
        raise ValueError(
            f"{n_lists} disjoint lists of {k} need {n_lists * k} texts; the data have {n}"
        )
    rng = np.random.default_rng(random_seed)
    seen = np.zeros(n, dtype=bool)
    if isinstance(data, Rankings):
        ranked = np.asarray(data.ranked, dtype=np.int64)
        post = pl_gaussian_posterior(ranked, n, prior_sd=prior_sd)
        seen[ranked[ranked >= 0]] = True
        eps_plus = eps_minus = 0.0  # a list shows no pair in an order
    else:
        f = np.asarray(data.first, dtype=np.int64)
        s = np.asarray(data.second, dtype=np.int64)
        o = np.asarray(data.outcome, dtype=float)
        post = gaussian_posterior(
            f, s, o, n, eps_plus=eps_plus, eps_minus=eps_minus, prior_sd=prior_sd
        )
        seen[f] = True
        seen[s] = True
    unseen = rng.permutation(np.flatnonzero(~seen))
    fresh = [unseen[a : a + k] for a in range(0, unseen.size - k + 1, k)][:n_lists]
    used = np.zeros(n, dtype=bool)
    for g in fresh:
        used[g] = True
    scored, values = _choose_lists(
        post, k, n_lists - len(fresh), score, strides, eps_plus, eps_minus, rng, exclude=used
    )
    lists = []
    for g in [*fresh, *scored]:
        g = g[np.argsort(-post.mean[g], kind="stable")]
        lists.append(tuple(data.items[int(x)] for x in g))
    value = np.array([np.nan] * len(fresh) + values)
    return ListProposal(lists=tuple(lists), value=value, posterior=post)


def active(
    world: AnnotationWorld,
    rng: np.random.Generator,
    budget: float = 1200.0,
    k: int = 10,
    batch: float = 0.5,
    score: str = "rank",
    strides: tuple[int, ...] = (1, 2, 4, 8),
    prior_sd: float = 3.0,
    posterior: str = "pl",
) -> StrategyRun:
    """Bayesian active annotation under a cost budget.

    1. One round of random lists of ``k`` (every text seen once; cost n/2).
    2. Then, until the budget is spent: fit the Gaussian posterior over BT strengths with the
       judge's error rates (:func:`~bayes_pairwise.strategies.rating.gaussian_posterior`), sort
       texts by posterior mean, build candidate lists for each spacing in ``strides`` (lists of k
       texts ``stride`` places apart, at a random offset), score every candidate list and run
       the best non-overlapping lists, up to ``batch`` × (n/k) lists per refit.

    ``score="rank"`` (default) scores a list by the expected reduction of the summed rank
    variance (:func:`rank_variance_gain`: Spearman's loss, judge errors included);
    ``score="bald"`` by the expected information gain about the strengths of its k(k−1)/2
    implied verdicts (:func:`pair_information`), which spends more on the ends of the scale,
    where a strength error moves a text few ranks.

    ``posterior="pl"`` (default) reads each ranked list as one Plackett–Luce observation
    (:func:`~bayes_pairwise.strategies.rating.pl_gaussian_posterior`); ``"pairs"`` is the
    earlier reading, the k(k − 1)/2 implied pairs as independent verdicts, which overstates
    what a coherent list tells (docs/src/rankings.md has both frontiers).

    With ``k = 2`` the calls are pairwise (cost 1 each, positional errors apply) and the
    posterior is the pairwise one whatever ``posterior`` says.

    Examples
    --------
    >>> from bayes_pairwise.strategies.simulate import simulate_annotation
    >>> run = active(simulate_annotation(60, random_seed=0), np.random.default_rng(0), budget=60)
    >>> run.cost <= 60.0, run.posterior_mean.shape
    (True, (60,))
    """
    _check("budget", budget, 1.0)
    _check("k", k, 2)
    _check("batch", batch, 0.0)
    if score not in ("rank", "bald"):
        raise ValueError(f"score must be 'rank' or 'bald', got {score!r}")
    if posterior not in ("pl", "pairs"):
        raise ValueError(f"posterior must be 'pl' or 'pairs', got {posterior!r}")
    n = world.n_items
    if k > n:
        raise ValueError(f"k must be <= n_items ({n}), got {k}")
    unit = k / 2.0
    log = _Log(n)
    # the judge's positional flips hit pairwise calls; a list's implied pairs have no order
    eps_p, eps_m = (world.eps_plus, world.eps_minus) if k == 2 else (0.0, 0.0)

    def run_groups(groups: list[np.ndarray]) -> None:
        if k == 2:
            g = np.stack(groups)
            f, s = g[:, 0], g[:, 1]
            log.add(f, s, world.compare(f, s, rng), cost=float(f.size), calls=int(f.size))
        else:
            _rank_groups(world, log, groups, rng)

    first = rng.permutation(n)
    n_first = min(n // k, int(budget // unit))
    run_groups([first[i * k : (i + 1) * k] for i in range(n_first)])
    mean = None
    per_batch = max(1, int(batch * n / k))
    use_pl = posterior == "pl" and k > 2

    def fit_posterior(init: np.ndarray | None) -> GaussianPosterior:
        if use_pl:
            return pl_gaussian_posterior(_pad_lists(log.lists), n, prior_sd=prior_sd, init=init)
        f, s, o = log.arrays()
        return gaussian_posterior(
            f, s, o, n, eps_plus=eps_p, eps_minus=eps_m, prior_sd=prior_sd, init=init
        )

    while log.cost + unit <= budget + 1e-9:
        post = fit_posterior(mean)
        mean = post.mean
        left = int((budget - log.cost + 1e-9) // unit)
        chosen, _ = _choose_lists(post, k, min(per_batch, left), score, strides, eps_p, eps_m, rng)
        if not chosen:
            break
        run_groups(chosen)
    return log.run(posterior_mean=fit_posterior(None).mean)
