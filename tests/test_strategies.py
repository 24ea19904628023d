"""Issue 11: cost-aware annotation — simulator, strategies, ratings, cost, SPEC runner."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise import spearman_rho
from bayes_pairwise.strategies import (
    TAU,
    active,
    alpha_scores,
    bt_scores,
    disjoint_layers,
    elo_update,
    gaussian_posterior,
    implied_pairs,
    listwise,
    listwise_cost,
    make_pairs,
    p_correct,
    pair_fisher_information,
    pair_information,
    pairwise,
    parse_spec,
    pl_gaussian_posterior,
    propose_lists,
    rank_variance_gain,
    rho_vs_cost_data,
    run_strategies,
    simulate_annotation,
    solve_tau,
    streak_prune,
    streak_update,
    swap_confirm,
    tail_prune,
    tail_prune_select,
    trueskill_1v1,
    trueskill_ratings,
)

# ------------------------------------------------------------------ noise curve, world


def test_noise_curve_is_calibrated_at_delta_90() -> None:
    tau = float(TAU)
    assert tau == pytest.approx(-90.0 / math.log(1 - 0.3 / 0.49), rel=1e-12)
    assert tau == pytest.approx(94.9987, abs=1e-4)
    assert float(p_correct(90.0)) == pytest.approx(0.8, abs=1e-12)
    assert float(p_correct(0.0)) == 0.5
    assert float(p_correct(1e6)) == pytest.approx(0.99)
    # the paper's tau = 0.9 with delta in hundreds gives 0.81 at delta = 0.9
    assert float(p_correct(0.9, tau=0.9)) == pytest.approx(0.5 + 0.49 * (1 - math.exp(-1)))
    assert solve_tau(0.9, 50.0) == pytest.approx(-50 / math.log(1 - 0.4 / 0.49))


def test_empirical_pairwise_accuracy_matches_curve() -> None:
    w = simulate_annotation(1000, random_seed=0)
    rng = np.random.default_rng(1)
    f = np.full(40_000, 590)  # latent 590.4 vs 500.5: delta = 90 (linear spacing 0.999...)
    s = np.full(40_000, 500)
    delta = w.latent[590] - w.latent[500]
    acc = w.compare(f, s, rng).mean()
    assert acc == pytest.approx(float(p_correct(delta)), abs=0.006)


def test_annotator_bias_and_distributions() -> None:
    w = simulate_annotation(200, "normal", bias_items=50, bias_shift=200.0, random_seed=4)
    assert int(w.biased.sum()) == 50
    shift = w.perceived - w.latent
    assert np.allclose(np.abs(shift[w.biased]), 200.0)
    assert np.all(shift[~w.biased] == 0)
    for dist in ("linear", "bimodal", "normal"):
        x = simulate_annotation(500, dist, random_seed=1).latent
        assert x.min() >= 1 and x.max() <= 1000
    bim = simulate_annotation(2000, "bimodal", random_seed=1).latent
    assert np.mean(np.abs(bim - 500) < 100) < 0.2  # few in the middle
    with pytest.raises(ValueError, match="distribution"):
        simulate_annotation(10, "uniform")


def test_positional_errors_and_ties() -> None:
    # perfect distance judge (items far apart) + flips: first-better flips at eps_plus
    w = simulate_annotation(2, bias_items=0, eps_plus=0.2, eps_minus=0.0, random_seed=0)
    w = bp.strategies.AnnotationWorld(
        w.latent * 0 + np.array([0.0, 1e6]),
        w.latent * 0 + np.array([0.0, 1e6]),
        w.biased,
        p_max=1.0,
        eps_plus=0.2,
        eps_minus=0.05,
        tie_rate=0.1,
    )
    rng = np.random.default_rng(0)
    out = w.compare(np.ones(50_000, int), np.zeros(50_000, int), rng)  # better shown first
    assert np.mean(out == 0.5) == pytest.approx(0.1, abs=0.01)
    assert np.mean(out[out != 0.5] == 0.0) == pytest.approx(0.2, abs=0.01)
    out = w.compare(np.zeros(50_000, int), np.ones(50_000, int), rng)  # better shown second
    assert np.mean(out[out != 0.5] == 1.0) == pytest.approx(0.05, abs=0.01)


# --------------------------------------------------------------------------- listwise model


def test_listwise_of_two_is_the_pairwise_judge() -> None:
    w = simulate_annotation(1000, random_seed=0)
    g = np.tile([[550, 500]], (40_000, 1))
    top = w.rank_lists(g, np.random.default_rng(3))[:, 0]
    assert np.mean(top == 550) == pytest.approx(
        float(p_correct(w.latent[550] - w.latent[500])), abs=0.006
    )


def test_listwise_of_three_matches_copeland_enumeration() -> None:
    """P(a ranked above b) in a list {a, b, c} equals the exact sum over the 8 tournaments."""
    w = simulate_annotation(1000, random_seed=0)
    a, b, c = 600, 500, 400
    p = {  # P(x beats y) for x higher
        ("a", "b"): float(p_correct(w.latent[a] - w.latent[b])),
        ("a", "c"): float(p_correct(w.latent[a] - w.latent[c])),
        ("b", "c"): float(p_correct(w.latent[b] - w.latent[c])),
    }
    exact = 0.0
    for ab in (1, 0):
        for ac in (1, 0):
            for bc in (1, 0):
                pr = (
                    (p["a", "b"] if ab else 1 - p["a", "b"])
                    * (p["a", "c"] if ac else 1 - p["a", "c"])
                    * (p["b", "c"] if bc else 1 - p["b", "c"])
                )
                wa, wb = ab + ac, (1 - ab) + bc
                exact += pr * (1.0 if wa > wb else 0.0 if wa < wb else 0.5)
    ranked = w.rank_lists(np.tile([[c, b, a]], (60_000, 1)), np.random.default_rng(5))
    pos_a = np.argmax(ranked == a, axis=1)
    pos_b = np.argmax(ranked == b, axis=1)
    assert np.mean(pos_a < pos_b) == pytest.approx(exact, abs=0.006)
    # a Copeland tie (1-1-1 cycle) is broken at random, so this pair is a little *less* reliable
    # in a list than alone (0.811 vs 0.819): the list's advantage is its 3 pairs for 1.5 calls
    assert exact == pytest.approx(0.8109, abs=1e-3) and exact < p["a", "b"]


def test_thurstone_lists_keep_the_pairwise_curve_for_every_implied_pair() -> None:
    """Exponential noise once per call + a 2(1 − p_max) lapse: every implied pair of every list
    has exactly P(correct | Δ), whatever else is in the list; k = 2 is the pairwise judge."""
    w = dataclasses.replace(simulate_annotation(1000, random_seed=0), list_model="thurstone")
    s = w.perceived
    items = np.array([600, 500, 400, 380, 900])
    for k in (2, 3, 5):
        g = items[:k]
        ranked = w.rank_lists(np.tile(g, (80_000, 1)), np.random.default_rng(k))
        where = {int(it): np.argmax(ranked == it, axis=1) for it in g}
        for a in range(k):
            for b in range(a + 1, k):
                hi, lo = (g[a], g[b]) if s[g[a]] > s[g[b]] else (g[b], g[a])
                got = np.mean(where[int(hi)] < where[int(lo)])
                want = float(p_correct(s[hi] - s[lo]))
                # binomial SE <= 0.0018 at 80,000 calls
                assert got == pytest.approx(want, abs=0.006), (k, hi, lo)
    # equal perceived scores: every order equally likely (6 orders of 3, each 1/6)
    tied = dataclasses.replace(w, perceived=np.zeros(1000))
    ranked = tied.rank_lists(np.tile([0, 1, 2], (60_000, 1)), np.random.default_rng(9))
    _, counts = np.unique(ranked, axis=0, return_counts=True)
    assert counts.size == 6 and np.allclose(counts / 60_000, 1 / 6, atol=0.006)
    with pytest.raises(ValueError, match="list_model"):
        simulate_annotation(10, list_model="plackett")


def test_listwise_implied_pair_counts_and_cost() -> None:
    w, l_ = implied_pairs(np.array([[4, 2, 9, 1]]))
    assert w.size == 6 == 4 * 3 // 2
    assert list(zip(w.tolist(), l_.tolist(), strict=True))[:3] == [(4, 2), (4, 9), (4, 1)]
    world = simulate_annotation(100, random_seed=0)
    run = listwise(world, np.random.default_rng(0), k=10, rounds=3)
    assert run.calls == 30 and run.cost == 30 * 10 / 2 and run.n_pairs == 30 * 45
    assert np.all(run.outcome == 1.0)
    # overlap: 9 boundary windows of 2*2 = 4 texts per round, cost 2 each, 6 implied pairs each
    run = listwise(world, np.random.default_rng(0), k=10, rounds=1, overlap=2)
    assert run.calls == 10 + 9 and run.cost == 50 + 9 * 2 and run.n_pairs == 450 + 9 * 6
    # 25 texts in lists of 10: 10 + 10 + 5 -> cost 12.5 per round
    run = listwise(simulate_annotation(25, random_seed=0), np.random.default_rng(0), rounds=2)
    assert run.cost == 25.0 and run.n_pairs == 2 * (45 + 45 + 10)


# ---------------------------------------------------------------------------- cost by hand


def test_cost_accounting_by_hand() -> None:
    world = simulate_annotation(10, random_seed=0)
    assert pairwise(world, np.random.default_rng(0), rounds=4).cost == 4 * 5
    assert (
        pairwise(simulate_annotation(11, random_seed=0), np.random.default_rng(0), rounds=2).cost
        == 2 * 5
    )  # odd one sits out
    assert swap_confirm(world, np.random.default_rng(0), rounds=3).cost == 3 * 5 * 2
    assert listwise_cost([10, 10, 4]) == 12.0
    with pytest.raises(ValueError):
        listwise_cost([1])
    # tail pruning, 20 texts, perc = 0.25 per tail from round 1: 20 -> 10 -> 5 -> ...
    assert (
        tail_prune(
            simulate_annotation(20, random_seed=0),
            np.random.default_rng(0),
            rounds=3,
            start=1,
            perc=0.25,
        ).cost
        == 10 + 5 + 2
    )
    # start beyond the last round: no pruning, same cost as plain pairwise
    assert tail_prune(world, np.random.default_rng(0), rounds=5, start=6).cost == 25
    # active never exceeds its budget
    run = active(simulate_annotation(60, random_seed=0), np.random.default_rng(0), budget=77)
    assert 72 <= run.cost <= 77


def test_paper_costs_at_1000_texts() -> None:
    world = simulate_annotation(1000, random_seed=0)
    assert pairwise(world, np.random.default_rng(0), rounds=24).cost == 12_000
    assert listwise(world, np.random.default_rng(0), k=10, rounds=3).cost == 1_500
    # the paper's tail pruning (24 rounds, from round 8, 20 %): 4,759 calls; ours 4,753
    assert tail_prune(world, np.random.default_rng(0), 24, 8, 0.2).cost == pytest.approx(
        4759, abs=10
    )


def test_alpha_score_by_hand() -> None:
    s = alpha_scores([0.92, 0.93, 0.89], [12000, 1500, 4759])
    assert s.tolist() == pytest.approx([0.4 * 0.75, 1.0, 0.6 * (1 - 3259 / 10500)])


# ------------------------------------------------------------------------- pruning rules


def test_tail_prune_select_hand_case() -> None:
    elo = np.array([5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0, 0.0])
    # perc 0.1 per tail -> 2 dropped: the lowest (item 9) and the highest (item 2)
    assert tail_prune_select(np.arange(10), elo, 0.1).tolist() == [0, 1, 3, 4, 5, 6, 7, 8]
    assert tail_prune_select(np.arange(10), elo, 0.0).tolist() == list(range(10))
    assert tail_prune_select(np.array([3, 4]), elo, 0.4).tolist() == [3, 4]  # <= 2 left alone


def test_streak_update_hand_case() -> None:
    w, lo, met = np.zeros(3, int), np.zeros(3, int), np.zeros((3, 3), bool)
    streak_update(w, lo, met, np.array([0]), np.array([1]), np.array([1.0]))
    streak_update(w, lo, met, np.array([0]), np.array([2]), np.array([1.0]))
    assert w.tolist() == [2, 0, 0] and lo.tolist() == [0, 1, 1]
    streak_update(w, lo, met, np.array([1]), np.array([0]), np.array([1.0]))  # 0 loses
    assert w.tolist() == [0, 1, 0] and lo.tolist() == [1, 0, 1]
    streak_update(w, lo, met, np.array([2]), np.array([0]), np.array([0.5]))  # tie resets
    assert w[0] == lo[0] == 0 and w[2] == lo[2] == 0
    assert met.sum(axis=1).tolist() == [2, 1, 1]  # the tie does not count as met


def test_streak_prune_removes_decided_texts() -> None:
    world = simulate_annotation(200, random_seed=0)
    run = streak_prune(world, np.random.default_rng(0), rounds=24, streak=2, distinct=2)
    assert run.cost < 24 * 100
    # an item leaves once decided: per round count of items playing never increases
    full = pairwise(world, np.random.default_rng(0), rounds=24)
    assert full.cost == 2400


# --------------------------------------------------------------------------------- ratings


def test_trueskill_published_examples() -> None:
    # trueskill package docs (rate_1vs1 with default environment)
    (m1, s1), (m2, s2) = trueskill_1v1((25.0, 25 / 3), (25.0, 25 / 3))
    assert (round(m1, 3), round(s1, 3), round(m2, 3), round(s2, 3)) == (
        29.396,
        7.171,
        20.604,
        7.171,
    )
    (d1, e1), (d2, e2) = trueskill_1v1((25.0, 25 / 3), (25.0, 25 / 3), drawn=True)
    assert (round(d1, 3), round(e1, 3), round(d2, 3), round(e2, 3)) == (25.0, 6.458, 25.0, 6.458)
    # an upset moves ratings more than an expected win
    (u1, _), _ = trueskill_1v1((20.0, 3.0), (30.0, 3.0))
    (x1, _), _ = trueskill_1v1((30.0, 3.0), (20.0, 3.0))
    assert u1 - 20 > x1 - 30 > 0
    # a big upset is finite (log-space v, w)
    (b1, bs), _ = trueskill_1v1((0.0, 1.0), (80.0, 1.0))
    assert np.isfinite(b1) and np.isfinite(bs)


def test_layers_make_vectorised_updates_sequential() -> None:
    rng = np.random.default_rng(0)
    f = rng.integers(0, 8, 200)
    s = (f + rng.integers(1, 8, 200)) % 8
    o = rng.choice([0.0, 0.5, 1.0], 200)
    lay = disjoint_layers(f, s, 8)
    for layer in np.unique(lay):
        items = np.concatenate([f[lay == layer], s[lay == layer]])
        assert items.size == np.unique(items).size
    # Elo: the same numbers as a plain loop
    r = np.full(8, 1500.0)
    for a, b, oo in zip(f, s, o, strict=True):
        e = 1 / (1 + 10 ** ((r[b] - r[a]) / 400))
        r[a], r[b] = r[a] + 32 * (oo - e), r[b] - 32 * (oo - e)
    assert np.allclose(elo_update(np.full(8, 1500.0), f, s, o), r)
    # TrueSkill: same as applying trueskill_1v1 in a loop
    mu, sd = np.full(8, 25.0), np.full(8, 25 / 3)
    for a, b, oo in zip(f, s, o, strict=True):
        win, los = (a, b) if oo >= 0.5 else (b, a)
        (mw, sw), (ml, sl) = trueskill_1v1((mu[win], sd[win]), (mu[los], sd[los]), oo == 0.5)
        mu[win], sd[win], mu[los], sd[los] = mw, sw, ml, sl
    tm, ts = trueskill_ratings(f, s, o, 8)
    assert np.allclose(tm, mu) and np.allclose(ts, sd)


def test_bt_scores_closed_form_and_posterior() -> None:
    f, s = np.array([0, 0, 0, 1]), np.array([1, 1, 1, 0])
    th = bt_scores(f, s, np.ones(4), 2)
    assert th[0] - th[1] == pytest.approx(math.log(3), abs=1e-4)
    assert th.sum() == pytest.approx(0.0, abs=1e-12)  # geometric mean of pi is 1
    # Gaussian posterior with a flat-ish prior reproduces the MLE; judge error widens it
    post = gaussian_posterior(f, s, np.ones(4), 2, prior_sd=1e3)
    assert post.mean[0] - post.mean[1] == pytest.approx(math.log(3), abs=1e-3)
    # with eps: P(first wins) = eps + (1 - 2 eps) sigma(d) = 3/4 -> d = logit((0.75-e)/(1-2e))
    e = 0.1
    post = gaussian_posterior(f, s, np.ones(4), 2, eps_plus=e, eps_minus=e, prior_sd=1e3)
    q = (0.75 - e) / (1 - 2 * e)
    assert post.mean[0] - post.mean[1] == pytest.approx(math.log(q / (1 - q)), abs=1e-3)


def test_pair_information_prefers_uncertain_and_clean() -> None:
    md, vd = np.array([0.0, 0.0, 5.0]), np.array([4.0, 0.01, 4.0])
    info = pair_information(md, vd)
    assert info[0] > info[2] > 0 and info[1] < 0.01
    assert pair_information(md, vd, 0.2, 0.2)[0] < info[0]


def test_pair_fisher_information_closed_form_and_quadrature() -> None:
    from scipy.integrate import quad
    from scipy.special import expit

    def fisher(d: float, ep: float, em: float) -> float:
        sg = expit(d)
        p = em + (1 - ep - em) * sg
        return ((1 - ep - em) * sg * (1 - sg)) ** 2 / (p * (1 - p))

    d = np.array([0.0, 1.0, -2.0, 4.0])
    got = pair_fisher_information(d, np.zeros(4), 0.05, 0.15)
    assert got == pytest.approx([fisher(x, 0.05, 0.15) for x in d], rel=1e-12)
    assert pair_fisher_information(np.zeros(1), np.zeros(1))[0] == pytest.approx(0.25)
    # uncertain difference: the Gaussian average, against adaptive quadrature
    m, v = 0.7, 0.5
    sd = np.sqrt(v)
    dens = lambda x: np.exp(-((x - m) ** 2) / (2 * v)) / np.sqrt(2 * np.pi * v)  # noqa: E731
    want = quad(lambda x: fisher(x, 0.0, 0.1) * dens(x), m - 12 * sd, m + 12 * sd)[0]
    assert pair_fisher_information(np.array([m]), np.array([v]), 0.0, 0.1)[0] == pytest.approx(
        want, rel=2e-3
    )


def test_rank_variance_gain_by_hand() -> None:
    """dens (h = median sd = 1): texts 0 and 1 have 2 means in ±1 -> 1 per unit; text 2 is
    alone -> 1/2. Ranking (0, 1) adds I/(1 + V I) to each precision (V = 1)."""
    mean, sd = np.array([0.0, 0.5, 5.0]), np.ones(3)
    gain = rank_variance_gain(mean, sd, np.array([[0, 1], [1, 2]]))
    i01 = pair_fisher_information(np.array([-0.5]), np.array([2.0]))[0]
    v01 = 1.0 / (1.0 + i01 / (1.0 + i01))
    assert gain[0] == pytest.approx(2 * (1.0 - v01), rel=1e-12)
    i12 = pair_fisher_information(np.array([-4.5]), np.array([2.0]))[0]
    v12 = 1.0 / (1.0 + i12 / (1.0 + i12))
    assert gain[1] == pytest.approx((1.0 + 0.25) * (1.0 - v12), rel=1e-12)
    # judge errors lower the gain
    assert rank_variance_gain(mean, sd, np.array([[0, 1]]), 0.2, 0.2)[0] < gain[0]
    # against a text known exactly (sd -> 0) the other gets the verdict's full information I,
    # and the known text gains nothing
    got = rank_variance_gain(mean, np.array([1e-6, 1.0, 1.0]), np.array([[0, 2]]))[0]
    i02 = pair_fisher_information(np.array([-5.0]), np.array([1.0]))[0]
    assert got == pytest.approx(0.25 * (1.0 - 1.0 / (1.0 + i02)), rel=1e-6)


def test_active_rank_score_spends_less_on_the_ends() -> None:
    """A strength error at either end of the scale moves a text few ranks: the rank-variance
    score gives the top and bottom deciles fewer list appearances than the middle, BALD more."""
    world = simulate_annotation(400, "linear", random_seed=2)
    rank = np.argsort(np.argsort(world.perceived))
    ends = (rank < 40) | (rank >= 360)
    middle = (rank >= 160) & (rank < 240)
    share = {}
    for score in ("rank", "bald"):
        run = active(world, np.random.default_rng(0), budget=480, score=score)
        assert run.cost == 480.0
        deg = np.bincount(run.first, minlength=400) + np.bincount(run.second, minlength=400)
        share[score] = deg[ends].mean() / deg[middle].mean()
    assert share["rank"] < 0.85 and share["bald"] > 1.0
    with pytest.raises(ValueError, match="score must be"):
        active(world, np.random.default_rng(0), score="ucb")


def test_similar_matchmaking_pairs_neighbours() -> None:
    rng = np.random.default_rng(0)
    elo = np.arange(1000.0)
    f, s = make_pairs(np.arange(1000), elo, rng, "similar", window=0.1)
    assert f.size == 500 and np.unique(np.concatenate([f, s])).size == 1000
    assert np.abs(f - s).max() <= 100
    f, s = make_pairs(np.arange(1000), elo, rng, "random")
    assert np.abs(f - s).mean() > 250


# ------------------------------------------------------------------------------ SPEC, run


@pytest.mark.parametrize(
    "spec, match",
    [
        ("", "empty"),
        ("roundrobin:rounds=3", "unknown strategy"),
        ("pairwise:k=10", "unknown key 'k'"),
        ("pairwise:rounds=2.5", "must be an integer"),
        ("pairwise:rounds=abc", "must be an integer"),
        ("tail-prune:perc=x", "must be a number"),
        ("pairwise:rounds", "expected key=value"),
        ("pairwise:rounds=2,rounds=3", "given twice"),
        ("listwise:match=best", "match must be"),
        ("active:budget=nan", "must be a number"),
        ("active:score=ucb", "score must be 'rank' or 'bald'"),
    ],
)
def test_spec_errors(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_spec(spec)


def test_spec_values_reach_the_policy() -> None:
    sp = parse_spec("listwise:k=5,rounds=2,overlap=1,match=random")
    assert sp.params == {"k": 5, "rounds": 2, "overlap": 1, "match": "random"}
    with pytest.raises(ValueError, match="overlap"):
        parse_spec("listwise:k=4,overlap=3").run(simulate_annotation(20), np.random.default_rng())


def test_run_strategies_records_and_reproducibility() -> None:
    kw = dict(
        n_items=80,
        distribution="linear",
        reps=2,
        seed=7,
        strategies=["pairwise:rounds=6", "listwise:k=8,rounds=2", "active:budget=60,k=8"],
    )
    a = run_strategies(**kw)
    b = run_strategies(**kw)
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))
    assert len(a) == 3 * 4
    assert set(a["rating"]) == {"bt", "elo", "trueskill", "bayes"}
    assert a.groupby("strategy", sort=False)["cost"].first().tolist() == [240.0, 80.0, 60.0]
    assert (a["spearman"] > 0.6).all() and (a["spearman_sd"] >= 0).all()
    c = run_strategies(**{**kw, "seed": 8})
    assert not np.allclose(a["spearman"], c["spearman"])
    front = rho_vs_cost_data(a, "bt")
    assert front["frontier"].iloc[0] and front["cost"].is_monotonic_increasing
    with pytest.raises(ValueError, match="rating"):
        run_strategies(20, reps=1, strategies=["pairwise:rounds=1"], ratings=["glicko"])


def test_bt_beats_elo_and_listwise_is_cheap() -> None:
    """The paper's qualitative findings on a small world (200 texts, 2 reps)."""
    df = run_strategies(
        200,
        reps=2,
        seed=1,
        ratings=["bt", "elo"],
        strategies=["pairwise:rounds=12", "listwise:k=10,rounds=3"],
    )
    piv = df.pivot(index="strategy", columns="rating", values="spearman")
    assert (piv["bt"] > piv["elo"]).all()
    assert piv.loc["listwise:k=10,rounds=3", "bt"] > 0.9


def test_top_level_exports() -> None:
    assert bp.simulate_annotation is simulate_annotation
    assert bp.run_strategies is run_strategies


def test_cli_strategies_table_and_spec_error(capsys) -> None:
    from bayes_pairwise.cli import main

    rc = main(
        [
            "strategies",
            "--n-items",
            "40",
            "--reps",
            "1",
            "--strategy",
            "pairwise:rounds=2",
            "--ratings",
            "bt",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "pairwise:rounds=2" in out and "40.0000" in out
    rc = main(["strategies", "--n-items", "40", "--strategy", "pairwise:k=3"])
    assert rc != 0
    assert "unknown key 'k'" in capsys.readouterr().err


def test_cli_list_model_reaches_the_world(capsys) -> None:
    from bayes_pairwise.cli import main

    args = ["strategies", "--n-items", "60", "--reps", "2", "--seed", "4", "--ratings", "bt"]
    args += ["--strategy", "listwise:k=6,rounds=2", "--json"]
    got = {}
    for model in ("copeland", "thurstone"):
        assert main([*args, "--list-model", model]) == 0
        got[model] = json.loads(capsys.readouterr().out)["records"][0]["spearman"]
        want = run_strategies(
            60,
            reps=2,
            seed=4,
            strategies=["listwise:k=6,rounds=2"],
            ratings=["bt"],
            list_model=model,
        )
        assert got[model] == pytest.approx(float(want["spearman"].iloc[0]), abs=1e-12)
    assert got["copeland"] != got["thurstone"]


def test_cli_strategies_report_states_the_world(tmp_path, capsys) -> None:
    from bayes_pairwise.cli import main

    out = tmp_path / "rho.md"
    args = ["strategies", "--n-items", "40", "--reps", "1", "--bias-items", "8", "--ratings"]
    args += ["bt", "--strategy", "listwise:k=5,rounds=1", "--list-model", "thurstone"]
    assert main([*args, "--out", str(out), "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings == {
        "n_items": 40,
        "distribution": "linear",
        "bias_items": 8,
        "bias_shift": 200.0,
        "list_model": "thurstone",
        "reps": 1,
        "seed": 0,
    }
    text = out.read_text()
    want = "40 texts, linear, t_bias=8 (shift 200), thurstone lists, 1 reps, seed 0"
    assert want in text and out.with_suffix(".png").stat().st_size > 1000
    html_out = tmp_path / "rho.html"
    assert main([*args, "--out", str(html_out)]) == 0
    assert want in html_out.read_text() and want in capsys.readouterr().out


def _list_log(world, rng, groups) -> pd.DataFrame:
    """A real-looking log: each ranked list as its implied pairs, better text first."""
    first, second = implied_pairs(world.rank_lists(np.stack(groups), rng))
    names = [f"t{i:03d}" for i in range(world.n_items)]
    return pd.DataFrame(
        {
            "first": [names[i] for i in first],
            "second": [names[i] for i in second],
            "outcome": "first",
        }
    )


def test_propose_lists_on_a_real_log() -> None:
    """One step of the active strategy on a loaded log: disjoint lists of k in posterior order,
    scored as rank_variance_gain scores them; texts never seen come first, in random lists."""
    world = simulate_annotation(100, random_seed=4)
    rng = np.random.default_rng(0)
    perm = rng.permutation(100)
    # every text once (a random first round), then a second round on 60 texts only
    log = _list_log(world, rng, list(perm.reshape(10, 10)))
    data = bp.load_comparisons(log)
    prop = propose_lists(data, 5, k=10, random_seed=1)
    flat = [t for lst in prop.lists for t in lst]
    assert len(prop.lists) == 5 and all(len(lst) == 10 for lst in prop.lists)
    assert len(set(flat)) == 50 and set(flat) <= set(data.items)
    idx = {name: i for i, name in enumerate(data.items)}
    for lst in prop.lists:  # best first by the posterior
        m = prop.posterior.mean[[idx[t] for t in lst]]
        assert np.all(np.diff(m) <= 0)
    g = np.array([[idx[t] for t in lst] for lst in prop.lists])
    want = rank_variance_gain(prop.posterior.mean, prop.posterior.sd, g)
    np.testing.assert_allclose(prop.value, want, rtol=1e-12)
    assert np.all(np.diff(prop.value) <= 1e-12)  # greedy: best first
    assert propose_lists(data, 5, k=10, random_seed=1).lists == prop.lists  # seeded
    with pytest.raises(ValueError, match="need 110 texts"):
        propose_lists(data, 11, k=10)
    with pytest.raises(TypeError, match="Comparisons"):
        propose_lists(log, 2)
    with pytest.raises(ValueError, match="score"):
        propose_lists(data, 2, score="ucb")
    prd = bp.datasets.load("prd_vicuna80", ties="half")
    with pytest.raises(ValueError, match="80 contexts"):
        propose_lists(prd, 1, k=3)
    one = prd.for_context(prd.contexts[0])
    assert len(propose_lists(one, 1, k=3).lists[0]) == 3


def test_propose_lists_puts_unseen_texts_first() -> None:
    """Texts whose only verdicts were dropped ties are known but unmeasured: they come first,
    in random lists with no score; the rest of the proposal is scored."""
    world = simulate_annotation(60, random_seed=2)
    rng = np.random.default_rng(3)
    log = _list_log(world, rng, [np.arange(k, k + 10) for k in range(0, 40, 10)])
    new = [f"t{i:03d}" for i in range(40, 60)]
    extra = pd.DataFrame({"first": new, "second": "t000", "outcome": "tie"})
    data = bp.load_comparisons(pd.concat([log, extra], ignore_index=True), ties="drop")
    assert data.n_items == 60
    prop = propose_lists(data, 3, k=10, random_seed=0)
    assert set(prop.lists[0]) | set(prop.lists[1]) == set(new)
    assert np.isnan(prop.value[:2]).all() and np.isfinite(prop.value[2])
    assert not set(prop.lists[2]) & set(new)


def test_positional_rates_only_where_a_verdict_has_a_shown_order() -> None:
    """ε₊/ε₋ flip pairwise calls; lists and confirmed-in-both-orders verdicts have no order, so
    their ``bayes`` rating (and the active posterior) must not apply positional rates."""
    from bayes_pairwise.strategies.run import run_strategy

    world = simulate_annotation(120, eps_plus=0.05, eps_minus=0.25, random_seed=1)
    for spec, positional in (
        ("pairwise:rounds=4", True),
        ("listwise:k=6,rounds=2", False),
        ("swap-confirm:rounds=2", False),
    ):
        run, _ = run_strategy(spec, world, np.random.default_rng(0), ["bt"])
        assert run.positional is positional, spec
        _, rho = run_strategy(spec, world, np.random.default_rng(0), ["bayes", "bayes-pairs"])
        eps = (0.05, 0.25) if positional else (0.0, 0.0)
        post = gaussian_posterior(
            run.first, run.second, run.outcome, 120, eps_plus=eps[0], eps_minus=eps[1]
        )
        key = "bayes-pairs" if run.lists else "bayes"  # lists: bayes reads them with PL
        assert rho[key] == pytest.approx(spearman_rho(post.mean, world.latent), abs=1e-12)
        if run.lists:
            pl = pl_gaussian_posterior(run.ranked(), 120).mean
            assert rho["bayes"] == pytest.approx(spearman_rho(pl, world.latent), abs=1e-12)


def test_cli_propose_lists(tmp_path, capsys) -> None:
    from bayes_pairwise.cli import main

    world = simulate_annotation(40, random_seed=6)
    log = _list_log(world, np.random.default_rng(1), list(np.arange(40).reshape(4, 10)))
    path = tmp_path / "lists.csv"
    log.to_csv(path, index=False)
    assert main(["propose", str(path), "--lists", "3", "--k", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = propose_lists(bp.load_comparisons(log), 3, k=8, random_seed=0)
    assert out["lists"] == [list(lst) for lst in want.lists]
    np.testing.assert_allclose(out["value"], want.value, rtol=1e-12)
    assert main(["propose", str(path), "--lists", "3", "--k", "8"]) == 0
    text = capsys.readouterr().out
    assert text.count("\nlist ") == 2 and ", ".join(want.lists[0]) in text
    assert main(["propose", str(path), "--lists", "6", "--k", "8"]) == 2
    assert "need 48 texts; the data have 40" in capsys.readouterr().err


def test_cli_propose_picks_one_context_of_a_log_with_several(tmp_path, capsys) -> None:
    """A log of several contexts: `propose` without --context refuses by naming them and the
    flag; with --context NAME the lists are propose_lists' on that context's verdicts, printed
    by the texts' names (the log's own `first`/`second` values); an unknown name is refused."""
    from bayes_pairwise.cli import main

    sim = bp.simulate_round_robin(6, eps=0.1, n_contexts=3, random_seed=2)
    frame = sim.data.to_frame()
    path = tmp_path / "ctx.csv"
    frame.to_csv(path, index=False)
    args = ["propose", str(path), "--context-column", "context", "--lists", "2", "--k", "3"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "the log holds 3 contexts" in err and "with --context NAME" in err
    name = sim.data.contexts[1]
    assert main([*args, "--context", name, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    one = bp.load_comparisons(frame, context="context").for_context(name)
    want = propose_lists(one, 2, k=3, random_seed=0)
    by_name = dict(zip(one.items, one.item_names, strict=True))
    assert out["context"] == name
    assert out["lists"] == [[by_name[i] for i in lst] for lst in want.lists]
    assert all(i in set(frame["first"]) for lst in out["lists"] for i in lst)
    np.testing.assert_allclose(out["value"], want.value, rtol=1e-12)
    assert main([*args, "--context", "nope"]) == 2
    assert "unknown context 'nope'; the log's contexts are" in capsys.readouterr().err
    plain = tmp_path / "plain.csv"
    frame.drop(columns="context").iloc[:30].to_csv(plain, index=False)
    assert main(["propose", str(plain), "--lists", "1", "--k", "3", "--context", "c0"]) == 2
    assert "this log has no contexts" in capsys.readouterr().err


# ------------------------------------------------------- Plackett–Luce posterior (issue 30)


def test_pl_posterior_mode_is_the_plackett_luce_mle() -> None:
    from pathlib import Path

    from bayes_pairwise.classical.plackett_luce import pl_mm

    gold = Path(__file__).resolve().parent / "data" / "pl_400x5.csv"
    data = bp.load_rankings(gold)
    post = pl_gaussian_posterior(data.ranked, data.n_items, prior_sd=1e4)
    np.testing.assert_allclose(post.mean, pl_mm(np.asarray(data.ranked), 30).theta, atol=1e-6)


def test_pl_posterior_counts_a_list_once() -> None:
    """A list of k is one observation: its information is below that of its k(k−1)/2 implied
    pairs read as independent verdicts (all orders of 4 texts, mode 0)."""
    import itertools

    perms = np.array(list(itertools.permutations(range(4))))
    pl = pl_gaussian_posterior(perms, 4, prior_sd=1e6)
    w, lo = implied_pairs(perms)
    pairs = gaussian_posterior(w, lo, np.ones(w.size), 4, prior_sd=1e6)
    np.testing.assert_allclose(pl.mean, 0.0, atol=1e-9)
    # PL: 24 · 3/16 (stage 1) + 18 · 2/9 (stage 2) + 12 · 1/4 (stage 3) = 11.5 per text;
    # implied pairs: 24 · 3 verdicts · 1/4 = 18
    np.testing.assert_allclose(pl.precision.diagonal(), 11.5, rtol=1e-6)
    np.testing.assert_allclose(pairs.precision.diagonal(), 18.0, rtol=1e-6)


def test_active_posterior_pl_and_pairs_and_lists_recorded() -> None:
    world = simulate_annotation(80, list_model="thurstone", random_seed=3)
    new = active(world, np.random.default_rng(0), budget=100, k=8)
    old = active(world, np.random.default_rng(0), budget=100, k=8, posterior="pairs")
    assert sum(a.shape[0] for a in new.lists) == new.calls
    np.testing.assert_allclose(
        new.posterior_mean, pl_gaussian_posterior(new.ranked(), 80).mean, atol=1e-9
    )
    np.testing.assert_allclose(
        old.posterior_mean,
        gaussian_posterior(old.first, old.second, old.outcome, 80).mean,
        atol=1e-9,
    )
    with pytest.raises(ValueError, match="posterior"):
        parse_spec("active:posterior=exact")
    assert parse_spec("active:posterior=pairs").params == {"posterior": "pairs"}


def test_propose_lists_reads_a_ranking_log() -> None:
    world = simulate_annotation(40, list_model="thurstone", random_seed=4)
    run = listwise(world, np.random.default_rng(1), k=5, rounds=2)
    ranked = run.ranked()
    frame = pd.DataFrame(
        {
            "list": np.repeat(np.arange(ranked.shape[0]), 5),
            "item": [f"t{i:03d}" for i in ranked.ravel()],
            "rank": np.tile(np.arange(1, 6), ranked.shape[0]),
        }
    )
    data = bp.load_rankings(frame)
    prop = propose_lists(data, 3, k=5, random_seed=0)
    assert len(prop.lists) == 3 and all(len(x) == 5 for x in prop.lists)
    expected = pl_gaussian_posterior(np.asarray(data.ranked), 40).mean
    np.testing.assert_allclose(prop.posterior.mean, expected, atol=1e-9)
    assert np.all(np.isfinite(prop.value))
