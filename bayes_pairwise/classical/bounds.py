"""Sharp bounds on a judge's error rates without labels (METHODS §7.6, issue 25).

Without gold labels the verdicts of a pair fix its error count only up to the pair's unknown
true order T. For every (judge, unordered pair) row and each of the two possible truths, the
row's errors are counted exactly (ties are not errors and not in the denominators: the rates
are among decided verdicts, the models' scale), with m₁, m₂ the decided verdicts with i / j
shown first and x₁, x₂ the wins of i among them:

* T = i≻j: the verdicts with i first show the better item first (``n₊ = m₁``, errors
  ``m₁ − x₁``, the wins of j there); those with j first show it second (``n₋ = m₂``, errors
  ``m₂ − x₂``);
* T = j≻i: the roles swap (``n₊ = m₂``, errors ``x₂``; ``n₋ = m₁``, errors ``x₁``).

The **sharp interval** of ε₊ (ε₋, ε) is the minimum and maximum of the log's error rate over
every truth assignment the design allows:

* in a 2-item context each pair's T is free (a consistent pair may be right twice or wrong
  twice; an inconsistent pair holds exactly one error whatever T is);
* in a context of three or more items the truth is a total order of its items, so the
  assignments are the orders of the items. They are enumerated exactly for contexts of up to
  :data:`MAX_ENUMERATED_ITEMS` items (larger contexts fall back to free pairs, which gives valid
  but possibly wider bounds); the result says whether transitivity tightened the interval.

Ratios with a denominator that depends on T (ties, pairs seen in one order) are optimised
exactly with Dinkelbach's parametric method. Sampling uncertainty: the resampling unit is the
context when there are at least :data:`MIN_CONTEXTS_TO_RESAMPLE` contexts, else the pair row; the
reported interval runs from the lower bound's lower quantile to the upper bound's upper quantile
(:data:`~bayes_pairwise.conventions.HDI_PROB`, one level for the package).

Gold labels, when given, fix T on their pairs (``use_labels=True``, the default): the interval
then holds every assignment compatible with the verdicts *and* the labels.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bayes_pairwise.conventions import HDI_PROB, interval_label, judge_rng
from bayes_pairwise.data import Comparisons
from bayes_pairwise.matrices import pair_counts

__all__ = [
    "MAX_ENUMERATED_ITEMS",
    "MIN_CONTEXTS_TO_RESAMPLE",
    "QUANTITIES",
    "ErrorBounds",
    "error_bounds",
    "excess_design",
    "pair_error_counts",
    "sharp_lower_excess",
]

#: Contexts of up to this many items have their orders enumerated (7! = 5,040 orders).
MAX_ENUMERATED_ITEMS = 7
#: Fewer contexts than this: the bootstrap resamples pair rows instead of contexts.
MIN_CONTEXTS_TO_RESAMPLE = 5
#: Bootstrap replicates of the sampling interval.
N_BOOTSTRAP = 200
#: The bounded quantities: ε₊, ε₋ and the overall ε (errors among all decided verdicts).
QUANTITIES = ("eps_plus", "eps_minus", "eps")


@dataclass(frozen=True)
class ErrorBounds:
    """Bounds on one judge's error rates compatible with its verdicts.

    Attributes
    ----------
    judge : str
    bounds : dict
        ``{"eps_plus": (lo, hi), "eps_minus": …, "eps": …}`` with sampling uncertainty: the
        lower bound's lower and the upper bound's upper quantile at ``prob``.
    sharp : dict
        The same without sampling uncertainty: the exact min / max over truth assignments on
        this log.
    pairwise : dict
        The sharp bounds with every pair's truth free (no transitivity).
    tightened : bool
        Whether transitivity narrowed the sharp interval of some quantity.
    n_pairs, n_consistent, n_inconsistent, n_one_order : int
        Pair rows with a decided verdict; consistent / inconsistent rows decided in both orders
        (one verdict per order); rows decided in one order only.
    n_labelled : int
        Pair rows whose truth a gold label fixed.
    n_contexts_enumerated, n_contexts_free : int
        Contexts of ≥ 3 items whose orders were enumerated / left free (too large).
    prob : float
    resampled : str
        ``"contexts"`` or ``"pair rows"``.
    """

    judge: str
    bounds: dict[str, tuple[float, float]]
    sharp: dict[str, tuple[float, float]]
    pairwise: dict[str, tuple[float, float]]
    tightened: bool
    n_pairs: int
    n_consistent: int
    n_inconsistent: int
    n_one_order: int
    n_labelled: int
    n_contexts_enumerated: int
    n_contexts_free: int
    prob: float = HDI_PROB
    resampled: str = "contexts"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``bounds`` (the issue's shape), ``sharp``, ``pairwise`` and the counts."""
        return {
            "judge": self.judge,
            "bounds": {q: [float(v) for v in self.bounds[q]] for q in QUANTITIES},
            "sharp": {q: [float(v) for v in self.sharp[q]] for q in QUANTITIES},
            "pairwise": {q: [float(v) for v in self.pairwise[q]] for q in QUANTITIES},
            "transitivity_tightened": bool(self.tightened),
            "n_pairs": self.n_pairs,
            "n_consistent": self.n_consistent,
            "n_inconsistent": self.n_inconsistent,
            "n_one_order": self.n_one_order,
            "n_labelled": self.n_labelled,
            "n_contexts_enumerated": self.n_contexts_enumerated,
            "n_contexts_free": self.n_contexts_free,
            "interval": f"{interval_label(self.prob)} bootstrap over {self.resampled}",
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """One line: the three intervals and what tightened them.

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_hard_pairs
        >>> sim = simulate_hard_pairs(2, n_contexts=60, labelled=0.0, random_seed=0)
        >>> error_bounds(sim.data)[0].summary().startswith("sharp bounds without labels")
        True
        """
        sym = {"eps_plus": "ε₊", "eps_minus": "ε₋", "eps": "ε"}
        parts = [
            f"{sym[q]} ∈ [{self.bounds[q][0]:.3f}, {self.bounds[q][1]:.3f}]" for q in QUANTITIES
        ]
        head = "sharp bounds" + (" with labels" if self.n_labelled else " without labels")
        how = f" ({interval_label(self.prob)}, bootstrap over {self.resampled})"
        tail = []
        if self.tightened:
            tail.append("transitivity tightened them (truth a total order per context)")
        elif self.n_contexts_enumerated:
            tail.append("transitivity did not tighten them")
        if self.n_contexts_free:
            tail.append(
                f"{self.n_contexts_free} context(s) of more than {MAX_ENUMERATED_ITEMS} items "
                "left with free pairs (bounds valid, maybe not sharp)"
            )
        return head + how + ": " + ", ".join(parts) + ("; " + "; ".join(tail) if tail else "")


# ------------------------------------------------------------------------------ counting
def pair_error_counts(data: Comparisons) -> dict[str, np.ndarray]:
    """Per (judge, unordered pair) row, the decided verdicts and errors under each truth.

    Returns a dict of arrays, one entry per pair row of
    :func:`~bayes_pairwise.matrices.pair_counts`:
    ``i``, ``j``, ``judge``, ``context``, ``truth`` (1: i better, 0: j better, −1 unknown) and
    ``counts`` of shape (rows, 2, 4): for T = i≻j (index 0) and T = j≻i (index 1) the errors and
    decided verdicts ``(e₊, n₊, e₋, n₋)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "first"]})
    >>> pair_error_counts(load_comparisons(df))["counts"][0].tolist()  # inconsistent: one ε₋ error
    [[0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0]]
    """
    pc = pair_counts(data)
    t1, t2 = np.asarray(pc.t1, dtype=float), np.asarray(pc.t2, dtype=float)
    m1 = np.asarray(pc.k_plus, dtype=float) - t1
    m2 = np.asarray(pc.k_minus, dtype=float) - t2
    x1 = np.asarray(pc.n1, dtype=float) - 0.5 * t1  # decided wins of i with i first
    x2 = np.asarray(pc.n2, dtype=float) - 0.5 * t2  # decided wins of i with j first
    counts = np.empty((m1.size, 2, 4))
    # T = i≻j: better first = i first (errors: j wins there), better second = j first
    counts[:, 0] = np.stack([m1 - x1, m1, m2 - x2, m2], axis=1)
    # T = j≻i: better first = j first (errors: i wins there), better second = i first
    counts[:, 1] = np.stack([x2, m2, x1, m1], axis=1)
    return {
        "i": np.asarray(pc.i),
        "j": np.asarray(pc.j),
        "judge": np.asarray(pc.judge),
        "context": np.asarray(pc.context),
        "truth": np.asarray(pc.truth),
        "counts": counts,
    }


# ------------------------------------------------------------------------------ structure
_FEATURES = {"eps_plus": ((0,), (1,)), "eps_minus": ((2,), (3,)), "eps": ((0, 2), (1, 3))}


def _orders(k: int) -> np.ndarray:
    """(k!, k(k−1)/2) orientation of each local pair (a < b) under every order: 0 when a ranks
    above b (T = i≻j for the pair row), 1 otherwise."""
    pairs = list(itertools.combinations(range(k), 2))
    perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
    rank = np.argsort(perms, axis=1)  # rank[o, item] = position of item in order o
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    return (rank[:, a] > rank[:, b]).astype(np.int8)


@dataclass
class _Group:
    """Units (contexts, or single pairs) with the same choice set."""

    rows: np.ndarray  # (U, P) pair row index, −1 for padding
    orient: np.ndarray  # (K, P)
    allowed: np.ndarray  # (U, K)


def _groups(pe: dict[str, np.ndarray], sel: np.ndarray, *, transitive: bool, use_labels: bool):
    """Split one judge's pair rows into units and their choice sets."""
    rows = np.flatnonzero(sel)
    truth = pe["truth"] if use_labels else np.full(pe["truth"].size, -1)
    free_rows: list[int] = []
    by_size: dict[int, list[np.ndarray]] = {}
    n_enum = n_free_ctx = 0
    if transitive:
        ctx = pe["context"][rows]
        for c in np.unique(ctx):
            r = rows[ctx == c]
            items = np.unique(np.concatenate([pe["i"][r], pe["j"][r]]))
            k = items.size
            if k <= 2:
                free_rows.extend(r.tolist())
                continue
            if k > MAX_ENUMERATED_ITEMS:
                free_rows.extend(r.tolist())
                n_free_ctx += 1
                continue
            n_enum += 1
            local = {int(it): q for q, it in enumerate(items)}
            pos = {pr: q for q, pr in enumerate(itertools.combinations(range(k), 2))}
            slot = np.full(k * (k - 1) // 2, -1, dtype=np.int64)
            for row in r:
                slot[pos[(local[int(pe["i"][row])], local[int(pe["j"][row])])]] = row
            by_size.setdefault(k, []).append(slot)
    else:
        free_rows = rows.tolist()
    groups: list[_Group] = []
    notes: list[str] = []
    if free_rows:
        fr = np.asarray(free_rows, dtype=np.int64)[:, None]
        orient = np.array([[0], [1]], dtype=np.int8)
        groups.append(_Group(fr, orient, _allowed(fr, orient, truth)))
    for k, slots in sorted(by_size.items()):
        r = np.stack(slots)
        orient = _orders(k)
        allowed = _allowed(r, orient, truth)
        bad = ~allowed.any(axis=1)
        if bad.any():  # cyclic labels: no order agrees with them; leave that context's labels out
            allowed[bad] = True
            notes.append(
                f"{int(bad.sum())} context(s) with cyclic gold labels: labels ignored there"
            )
        groups.append(_Group(r, orient, allowed))
    return groups, n_enum, n_free_ctx, notes


def _allowed(rows: np.ndarray, orient: np.ndarray, truth: np.ndarray) -> np.ndarray:
    t = np.where(rows >= 0, truth[np.maximum(rows, 0)], -1)  # (U, P)
    if not (t >= 0).any():  # no labels: every choice is allowed (most logs; and fast)
        return np.ones((rows.shape[0], orient.shape[0]), dtype=bool)
    # truth 1 (i better) needs orientation 0; truth 0 needs 1
    need = np.where(t >= 0, 1 - t, -1)
    ok = (need[:, None, :] < 0) | (orient[None, :, :] == need[:, None, :])
    return ok.all(axis=2)


def _totals(g: _Group, counts: np.ndarray, w: np.ndarray, feats: tuple[int, ...]) -> np.ndarray:
    """(R, U, K) totals of the features under every choice, pair rows weighted by ``w``."""
    c = counts[:, :, list(feats)].sum(axis=2)  # (rows, 2)
    valid = g.rows >= 0
    r = np.maximum(g.rows, 0)
    c0 = np.where(valid, c[r, 0], 0.0)  # (U, P)
    c1 = np.where(valid, c[r, 1], 0.0)
    wr = np.where(valid[None], w[:, r], 0.0)  # (R, U, P)
    base = (wr * c0[None]).sum(axis=2)  # (R, U)
    delta = wr * (c1 - c0)[None]  # (R, U, P)
    return base[:, :, None] + delta @ g.orient.T.astype(float)  # (R, U, K)


def _distinct(a: np.ndarray, b: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per unit, the distinct allowed (numerator, denominator) choices, padded with NaN.

    Orders of a context that give the same counts are one choice for the optimiser: 5,040
    orders of seven items collapse to a few dozen (numerator, denominator) pairs.
    """
    key = np.where(allowed, a * 2.0**24 + b, np.inf)  # counts are small integers: exact
    key = np.sort(key, axis=1)
    keep = np.isfinite(key)
    keep[:, 1:] &= key[:, 1:] != key[:, :-1]
    key = _packed(key, keep, np.inf)  # the distinct values of each row, in order (no 2nd sort)
    fin = np.isfinite(key)
    num = np.where(fin, np.floor(np.where(fin, key, 0) / 2.0**24), np.nan)
    den = np.where(fin, np.where(fin, key, 0) - num * 2.0**24, np.nan)
    return num, den


def _envelope(sa: np.ndarray, bz: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """(U, K) mask of the choices that minimise ``sa − λ·bz`` in their unit for some λ in
    [lo, hi] (the lower envelope of the lines; +inf in ``sa`` marks an invalid choice).

    Dinkelbach's step picks, per unit, the argmin of that objective at the current ratio λ; a
    choice off the envelope over every ratio the iteration can visit is never picked, and
    dropping it leaves every pick, and so the answer, as it was. First the choices another
    beats at every λ there (no smaller ``sa`` at a ``bz`` no better for that sign of λ) go,
    sorted once per unit; then, for choice k against each m left, the objective is no larger
    where ``s_k − s_m ≤ λ (b_k − b_m)``: a lower end on λ where b_k > b_m, an upper end where
    b_k < b_m, and s_k ≤ s_m where b_k = b_m.

    Examples
    --------
    >>> sa = np.array([[0.0, 1.0, 3.0, 2.0, np.inf]]); bz = np.array([[1.0, 3.0, 4.0, 3.0, 0.0]])
    >>> _envelope(sa, bz, 0.0, 1.0).astype(int).tolist()  # 3: the same b as 1 at a larger s
    [[1, 1, 0, 0, 0]]
    """
    valid = np.isfinite(sa)
    s_valid = np.where(valid, sa, 0.0)
    keep = valid.copy()
    if lo >= -1e-6 or hi <= 1e-6:
        # Pareto front: sorted from the best b for this sign of λ, a choice is beaten by an
        # earlier one with a smaller s (by more than the other sign's sliver of λ can undo)
        d = 1.0 if lo >= -1e-6 else -1.0
        slack = (max(-lo, 0.0) if d > 0 else max(hi, 0.0)) * np.ptp(np.where(valid, bz, 0.0))
        big = np.abs(s_valid).max() + 1.0
        key = np.where(valid, -d * bz * (2.0 * big) + s_valid, np.inf)
        order = np.argsort(key, axis=1, kind="stable")
        s_sorted = np.take_along_axis(np.where(valid, sa, np.inf), order, axis=1)
        before = np.minimum.accumulate(s_sorted, axis=1)
        prior_min = np.concatenate([np.full((sa.shape[0], 1), np.inf), before[:, :-1]], axis=1)
        front = np.isfinite(s_sorted) & (s_sorted <= prior_min + slack)
        np.put_along_axis(keep, order, front, axis=1)
    idx = _packed(np.broadcast_to(np.arange(sa.shape[1]), sa.shape), keep, -1)
    ok = idx >= 0
    s = np.where(ok, np.take_along_axis(s_valid, np.maximum(idx, 0), axis=1), 0.0)
    bp = np.take_along_axis(bz, np.maximum(idx, 0), axis=1)
    d_s = s[:, :, None] - s[:, None, :]  # (U, k, m)
    d_b = bp[:, :, None] - bp[:, None, :]
    other = ok[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = d_s / d_b
    low = np.where(other & (d_b > 0), ratio, -np.inf).max(axis=2)
    high = np.where(other & (d_b < 0), ratio, np.inf).min(axis=2)
    beaten = (other & (d_b == 0) & (d_s > 0)).any(axis=2)
    tol = 1e-9
    on = ok & ~beaten & (np.maximum(low, lo) <= np.minimum(high, hi) + tol)
    out = np.zeros_like(valid)
    unit = np.broadcast_to(np.arange(sa.shape[0])[:, None], idx.shape)
    out[unit[on], idx[on]] = True
    return out


def _ratio_range(a: np.ndarray, b: np.ndarray, bad: np.ndarray) -> tuple[float, float]:
    """The least and the most any Σ a / Σ b over choices can be: the extremes of the single
    choices' a / b (a sum's ratio lies between its terms'), with 0 (a ratio without verdicts)."""
    ok = ~bad & (b > 0)
    r = np.where(ok, a / np.where(ok, b, 1.0), np.nan)
    if not ok.any():
        return 0.0, 0.0
    return min(0.0, float(np.nanmin(r))), max(0.0, float(np.nanmax(r)))


def _dinkelbach(choices, n_rep: int, sign: float, weight_of) -> np.ndarray:
    """min (sign=1) or max (sign=−1) over one choice per unit of Σ w·num / Σ w·den, per
    replicate; ``choices`` holds (num, den) arrays of shape (R or 1, U, K) and ``weight_of(g)``
    the (R, U) unit weights (Dinkelbach's parametric method: exact, a few iterations). Choices
    shared by every replicate are cut first to those some ratio the iteration can reach picks
    (:func:`_envelope`, :func:`_ratio_range`): on QLoRA's round robins of 7, a unit's 63
    distinct choices (median; 149 at most) to 4 (13)."""

    # once, not per iteration: invalid choices (NaN) cost +inf in every objective and count
    # nothing; the choice arrays shared by every replicate (leading axis 1) stay unbroadcast
    prepared = []
    # the ratios λ the iteration visits (its objective shifts them by 1e-12): those of the
    # whole sum, so the extremes over every group's choices — one group's own range missed
    # λ values the others' units reach, and cut choices the optimum needed (a 9-item log's
    # sharp upper ε₊ read 0.556 where enumeration gives 0.571)
    ranges = [_ratio_range(a, b, np.isnan(a) | np.isnan(b)) for a, b in choices]
    r_lo = min((r[0] for r in ranges), default=0.0)
    r_hi = max((r[1] for r in ranges), default=0.0)
    lam_lo, lam_hi = sorted((sign * r_lo, sign * r_hi))
    for a, b in choices:
        bad = np.isnan(a) | np.isnan(b)
        if a.shape[0] == 1 and a.shape[2] > 1:
            sa0 = np.where(bad[0], np.inf, sign * a[0])
            keep = _envelope(sa0, np.where(bad[0], 0.0, b[0]), lam_lo - 1e-9, lam_hi + 1e-9)
            start = np.argmin(np.where(bad[0], np.inf, -b[0]), axis=1)  # the start's pick
            keep[np.arange(keep.shape[0]), start] = True
            a, b, bad = (_packed(v[0], keep, fill)[None] for v, fill in ((a, 0), (b, 0), (bad, 1)))
        sa = np.where(bad, np.inf, sign * a)
        bz = np.where(bad, 0.0, b)
        prepared.append((sa, bz, np.where(bad, np.inf, -b), np.where(bad, 0.0, a)))

    def at(lam: np.ndarray, start: bool = False) -> tuple[np.ndarray, np.ndarray]:
        num = np.zeros(n_rep)
        den = np.zeros(n_rep)
        for g, (sa, bz, neg_b, az) in enumerate(prepared):
            # ties broken towards more verdicts, so that a rate without verdicts is never chosen
            if start:
                obj = neg_b
            else:
                obj = (lam + 1e-12)[:, None, None] * bz
                np.subtract(sa, obj, out=obj)
            k = np.argmin(obj, axis=2)  # (R or 1, U)
            k = np.broadcast_to(k, (n_rep, k.shape[1]))
            wu = weight_of(g)
            if az.shape[0] == 1:  # one set of choices for every replicate: gather per unit
                unit = np.arange(az.shape[1])[None, :]
                num += (wu * az[0][unit, k]).sum(axis=1)
                den += (wu * bz[0][unit, k]).sum(axis=1)
            else:
                num += (wu * np.take_along_axis(az, k[:, :, None], axis=2)[:, :, 0]).sum(axis=1)
                den += (wu * np.take_along_axis(bz, k[:, :, None], axis=2)[:, :, 0]).sum(axis=1)
        return num, den

    num, den = at(np.zeros(n_rep), start=True)  # a feasible start: the most verdicts
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(den > 0, sign * num / den, 0.0)
    for _ in range(100):
        num, den = at(lam)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.where(den > 0, sign * num / den, 0.0)
        done = np.all(np.abs(new - lam) <= 1e-12)
        lam = new
        if done:
            break
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _packed(v: np.ndarray, keep: np.ndarray, fill: Any) -> np.ndarray:
    """The kept entries of each row of ``v`` (U, K), in order, moved to the front of a
    (U, K') array padded with ``fill`` (K' the most any row keeps)."""
    slot = np.cumsum(keep, axis=1) - 1
    out = np.full((v.shape[0], max(1, int(keep.sum(axis=1).max()))), fill, dtype=v.dtype)
    unit = np.broadcast_to(np.arange(v.shape[0])[:, None], v.shape)
    out[unit[keep], slot[keep]] = v[keep]
    return out


def _bounds_units(
    groups, counts, w_units, features: tuple[str, ...] = tuple(_FEATURES), upper: bool = True
) -> dict[str, np.ndarray]:
    """Bounds with one weight per unit (contexts resampled, or the sharp bounds: weight 1);
    only the lower ends (the upper NaN) when not ``upper``."""
    one = np.ones((1, counts.shape[0]))
    out = {}
    for q in features:
        fn, fd = _FEATURES[q]
        totals = [(_totals(g, counts, one, fn)[0], _totals(g, counts, one, fd)[0]) for g in groups]
        n_rep = w_units[0].shape[0]
        if all(np.all(b == b[:, :1]) for _, b in totals):
            # the denominator does not depend on the choice (ε: every decided verdict): the
            # ratio's ends are the numerator's, unit by unit (what Dinkelbach would find)
            out[q] = _fixed_denominator(groups, totals, w_units, upper)
            continue
        choices = []
        for g, (a, b) in zip(groups, totals, strict=True):
            na, nb = _distinct(a, b, g.allowed)
            choices.append((na[None], nb[None]))
        lo = _dinkelbach(choices, n_rep, 1.0, w_units.__getitem__)
        hi = _dinkelbach(choices, n_rep, -1.0, w_units.__getitem__) if upper else lo * np.nan
        out[q] = np.stack([lo, hi], axis=1)
    return out


def _fixed_denominator(groups, totals, w_units, upper: bool) -> np.ndarray:
    """:func:`_bounds_units`' ends when each unit's denominator is the same for every choice:
    Σ w·min(num) / Σ w·den and Σ w·max(num) / Σ w·den, per replicate."""
    n_rep = w_units[0].shape[0]
    num = np.zeros((n_rep, 2))
    den = np.zeros(n_rep)
    for g, (a, b) in enumerate(totals):
        allowed = groups[g].allowed
        w = w_units[g]  # (R, U)
        num[:, 0] += w @ np.where(allowed, a, np.inf).min(axis=1)
        if upper:
            num[:, 1] += w @ np.where(allowed, a, -np.inf).max(axis=1)
        den += w @ b[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den[:, None] > 0, num / den[:, None], np.nan)
    if not upper:
        out[:, 1] = np.nan
    return out


def _bounds_rows(groups, counts, w) -> dict[str, np.ndarray]:
    """Bounds with pair rows weighted (rows resampled within few contexts)."""
    out = {}
    for q, (fn, fd) in _FEATURES.items():
        choices = []
        for g in groups:
            a = _totals(g, counts, w, fn)
            b = _totals(g, counts, w, fd)
            bad = ~g.allowed[None]
            choices.append((np.where(bad, np.nan, a), np.where(bad, np.nan, b)))
        n_rep = w.shape[0]
        ones = [np.ones((n_rep, g.rows.shape[0])) for g in groups]
        lo = _dinkelbach(choices, n_rep, 1.0, ones.__getitem__)
        hi = _dinkelbach(choices, n_rep, -1.0, ones.__getitem__)
        out[q] = np.stack([lo, hi], axis=1)
    return out


def _chunks(n_rep: int, cells: int) -> list[slice]:
    step = max(1, int(4_000_000 // max(cells, 1)))
    return [slice(a, min(a + step, n_rep)) for a in range(0, n_rep, step)]


def _sharp(groups, counts, **only: Any) -> dict[str, tuple[float, float]]:
    """The sharp bounds (every unit weight 1); ``only``: :func:`_bounds_units`' ``features``
    and ``upper``."""
    ones = [np.ones((1, g.rows.shape[0])) for g in groups]
    return {
        q: (float(a[0, 0]), float(a[0, 1]))
        for q, a in _bounds_units(groups, counts, ones, **only).items()
    }


def error_bounds(
    data: Comparisons,
    *,
    prob: float = HDI_PROB,
    use_labels: bool = True,
    transitive: bool = True,
    n_bootstrap: int = N_BOOTSTRAP,
    random_seed: int | np.random.Generator | None = 0,
) -> list[ErrorBounds]:
    """Per judge, the interval of true ε₊, ε₋ and ε compatible with the verdicts.

    Nothing is assumed about how errors correlate within a pair: a pair decided the same way in
    both orders may be right twice or wrong twice. See the module docstring and
    ``docs/src/what_a_log_can_show.md`` for the derivation.

    Parameters
    ----------
    data : Comparisons
    prob : float
        Level of the sampling interval (the package's :data:`HDI_PROB`).
    use_labels : bool
        Fix T on gold-labelled pairs.
    transitive : bool
        Take the truth as a total order within each context (contexts of ≥ 3 items).
    n_bootstrap : int
        Replicates for the sampling interval (0: the sharp bounds alone).
    random_seed : int or Generator, optional

    Returns
    -------
    list of ErrorBounds
        One per judge, in ``data.judges`` order (judges without decided verdicts left out).

    Examples
    --------
    Two-item contexts shown in both orders: the sharp lower bound of ε₊ is the share of
    second-shown-wins-both pairs, the upper adds every consistent pair.

    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c", "d"], "second": ["b", "a", "d", "c"],
    ...                    "outcome": ["first", "second", "second", "second"],
    ...                    "context": ["q1", "q1", "q2", "q2"]})
    >>> b = error_bounds(load_comparisons(df, context="context"), n_bootstrap=0)[0]
    >>> b.sharp["eps_plus"], b.sharp["eps_minus"], b.sharp["eps"]
    ((0.5, 1.0), (0.0, 0.5), (0.25, 0.75))
    """
    pe = pair_error_counts(data)
    counts = pe["counts"]
    out: list[ErrorBounds] = []
    for jdx, judge in enumerate(data.judges):
        sel = (pe["judge"] == jdx) & (counts[:, 0, [1, 3]].sum(axis=1) > 0)
        if not sel.any():
            continue
        rng = judge_rng(random_seed, str(judge))  # the same alone or beside other judges
        groups, n_enum, n_free, notes = _groups(
            pe, sel, transitive=transitive, use_labels=use_labels
        )
        free_groups, _, _, _ = _groups(pe, sel, transitive=False, use_labels=use_labels)
        sharp = _sharp(groups, counts)
        pairwise = _sharp(free_groups, counts)
        tightened = any(
            sharp[q][0] > pairwise[q][0] + 1e-12 or sharp[q][1] < pairwise[q][1] - 1e-12
            for q in QUANTITIES
        )
        rows = np.flatnonzero(sel)
        ctx = pe["context"][rows]
        uctx = np.unique(ctx)
        by_context = uctx.size >= MIN_CONTEXTS_TO_RESAMPLE
        bounds = dict(sharp)
        if n_bootstrap > 0:
            if by_context:
                draws = rng.multinomial(uctx.size, np.full(uctx.size, 1 / uctx.size), n_bootstrap)
                w_units = []
                for g in groups:  # a unit's weight is its context's count in the replicate
                    unit_ctx = pe["context"][np.max(g.rows, axis=1)]
                    w_units.append(draws[:, np.searchsorted(uctx, unit_ctx)].astype(float))
                res = _bounds_units(groups, counts, w_units)
            else:
                wr = rng.multinomial(rows.size, np.full(rows.size, 1 / rows.size), n_bootstrap)
                w = np.zeros((n_bootstrap, counts.shape[0]))
                w[:, rows] = wr
                cells = sum(g.rows.shape[0] * g.orient.shape[0] for g in groups)
                parts = [_bounds_rows(groups, counts, w[s]) for s in _chunks(n_bootstrap, cells)]
                res = {q: np.concatenate([p[q] for p in parts]) for q in QUANTITIES}
            a = (1 - prob) / 2
            for q in QUANTITIES:
                lo = float(np.nanquantile(res[q][:, 0], a))
                hi = float(np.nanquantile(res[q][:, 1], 1 - a))
                bounds[q] = (min(lo, sharp[q][0]), max(hi, sharp[q][1]))
        c = counts[rows]
        both = (c[:, 0, 1] > 0) & (c[:, 0, 3] > 0)
        single = both & (c[:, 0, 1] == 1) & (c[:, 0, 3] == 1)
        known = single & np.all(c[:, 0] == c[:, 1], axis=1)  # same errors under either truth
        out.append(
            ErrorBounds(
                judge=str(judge),
                bounds=bounds,
                sharp=sharp,
                pairwise=pairwise,
                tightened=bool(tightened),
                n_pairs=int(rows.size),
                n_consistent=int((single & ~known).sum()),
                n_inconsistent=int(known.sum()),
                n_one_order=int((~both).sum()),
                n_labelled=int((pe["truth"][rows] >= 0).sum()) if use_labels else 0,
                n_contexts_enumerated=int(n_enum),
                n_contexts_free=int(n_free),
                prob=prob,
                resampled="contexts" if by_context else "pair rows",
                notes=tuple(notes),
            )
        )
    return out


def sharp_lower_excess(
    pair_errors: dict[str, np.ndarray], *, design: tuple[Any, Any] | None = None
) -> float:
    """Share of decided verdicts that must be wrong beyond the order-inconsistent ones.

    The sharp lower bound of ε with transitivity minus the one with free pairs, for the pair
    rows of :func:`pair_error_counts` (all rows, labels ignored): 0 in 2-item contexts, > 0 when
    consistent verdicts form cycles that some pair reversal must break. The statistic of the
    identification check (:mod:`bayes_pairwise.identification`).

    ``design``: :func:`excess_design` of these pair rows, when already built (the
    identification check evaluates it on many simulated logs of one design).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(5, eps=0.2, n_contexts=20, random_seed=0)
    >>> sharp_lower_excess(pair_error_counts(sim.data)) > 0
    True
    """
    pe = pair_errors
    groups, free = excess_design(pe) if design is None else design
    lower = {"features": ("eps",), "upper": False}  # the statistic needs nothing else
    return (
        _sharp(groups, pe["counts"], **lower)["eps"][0]
        - _sharp(free, pe["counts"], **lower)["eps"][0]
    )


def excess_design(pair_errors: dict[str, np.ndarray]) -> tuple[Any, Any]:
    """The units and choice sets :func:`sharp_lower_excess` evaluates (with transitivity, and
    free pairs), labels ignored: they depend on the design (pairs, contexts, which rows hold
    a decided verdict), not on the verdicts, so simulated logs of one design share them.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> pe = pair_error_counts(simulate_round_robin(5, eps=0.2, n_contexts=20,
    ...                                             random_seed=0).data)
    >>> sharp_lower_excess(pe, design=excess_design(pe)) == sharp_lower_excess(pe)
    True
    """
    pe = dict(pair_errors)
    pe["truth"] = np.full(pe["truth"].size, -1)
    sel = pe["counts"][:, 0, [1, 3]].sum(axis=1) > 0
    groups, _, _, _ = _groups(pe, sel, transitive=True, use_labels=False)
    free, _, _, _ = _groups(pe, sel, transitive=False, use_labels=False)
    return groups, free
