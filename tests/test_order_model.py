"""The hard-truth error models: one total order per context, summed out (issue 27).

The kernel must equal the sum over every order written out by brute force (value and
gradient; with ties, several judges, gold labels, contexts of different sizes, and in the
log-space fallback that takes over when products underflow); the models must recover the rates
of a hard-truth log and refuse what they cannot do, by name.
"""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytensor
import pytest
from likelihood_oracles import order_contexts_logp as _brute_force
from likelihood_oracles import order_log_likelihoods as _order_log_likelihoods

import bayes_pairwise as bp
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models import diagnose
from bayes_pairwise.pymc_models.order_kernel import (
    order_logp,
    order_pair_probabilities,
    order_rank_probabilities,
    order_sample,
    order_tables,
)
from bayes_pairwise.simulate import simulate_round_robin


def _log(seed: int, *, sizes=(4, 5, 3, 2), judges=("A", "B"), labels=0.3, repeats=2):
    """Round robins of the given sizes, both orders, 0..repeats verdicts per order and judge,
    10% ties; gold labels (consistent: the lower index is better) on a share of the pairs."""
    rng = np.random.default_rng(seed)
    rows = []
    for c, n in enumerate(sizes):
        for i, j in itertools.permutations(range(n), 2):
            gold = f"c{c}i{min(i, j)}" if rng.random() < labels else None
            for judge in judges:
                for _ in range(int(rng.integers(0 if repeats > 1 else 1, repeats + 1))):
                    out = rng.choice(["first", "second", "tie"], p=[0.5, 0.4, 0.1])
                    rows.append((f"c{c}i{i}", f"c{c}i{j}", out, f"q{c}", judge, gold))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "q", "judge", "gold"])


def _kernel(data, log_rates):
    pc = bp.pair_counts(data)
    tables = order_tables(pc, np.asarray(data.item_context), data.n_contexts)
    return order_logp(np.asarray(log_rates, dtype=float), *tables.arrays())


RATES = np.log([[0.13, 0.87, 0.31, 0.69], [0.05, 0.95, 0.2, 0.8]])


@pytest.mark.parametrize(
    ("seed", "kw"),
    [
        (0, {}),
        (1, {"labels": 0.0, "judges": ("A",), "sizes": (6, 2, 3)}),
        (2, {"labels": 0.6, "repeats": 1}),
    ],
)
def test_the_kernel_is_the_sum_over_every_order(seed, kw):
    df = _log(seed, **kw)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    rates = RATES[: data.n_judges]
    logp, grad = _kernel(data, rates)
    np.testing.assert_allclose(logp, _brute_force(data, rates), rtol=1e-12, atol=1e-12)
    h = 1e-6
    fd = np.array(
        [
            (_brute_force(data, rates + h * e) - _brute_force(data, rates - h * e)) / (2 * h)
            for e in np.eye(rates.size).reshape(-1, *rates.shape)
        ]
    ).T
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("seed", "kw"),
    [
        (0, {}),
        (1, {"labels": 0.0, "judges": ("A",), "sizes": (6, 2, 3)}),
        (2, {"labels": 0.6, "repeats": 1}),
    ],
)
def test_rank_probabilities_are_the_posterior_over_every_order(seed, kw):
    """Given the rates, P(rank r) of every item equals the posterior over the k! orders
    written out (gold labels, two judges, contexts of 2–6 items)."""
    df = _log(seed, **kw)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    rates = RATES[: data.n_judges]
    pc = bp.pair_counts(data)
    tables = order_tables(pc, np.asarray(data.item_context), data.n_contexts)
    got = order_rank_probabilities(np.asarray(rates, dtype=float), *tables.arrays()[:4])
    # the kernel's rows are context by context; _log's items are already in that order
    assert np.all(np.diff(np.asarray(data.item_context)) >= 0)
    want = _brute_force(data, rates, ranks=True)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)  # a rank each
    sizes = np.bincount(np.asarray(data.item_context))
    for c, k in enumerate(sizes):  # each rank of a context is held by one item
        members = np.asarray(data.item_context) == c
        np.testing.assert_allclose(got[members, :k].sum(axis=0), 1.0, rtol=1e-12)


@pytest.mark.parametrize(("seed", "kw"), [(0, {}), (2, {"labels": 0.6, "repeats": 1})])
def test_pair_probabilities_are_the_posterior_over_every_order(seed, kw):
    """Given the rates, P(a ≻ b) of every pair of a context equals the posterior over the k!
    orders written out (gold labels too), and the two orientations of a pair sum to 1."""
    df = _log(seed, **kw)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    rates = np.asarray(RATES[: data.n_judges], dtype=float)
    tables = order_tables(bp.pair_counts(data), np.asarray(data.item_context), data.n_contexts)
    got = order_pair_probabilities(rates, *tables.arrays()[:4])
    want = _brute_force(data, rates, pairs=True)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    ic = np.asarray(data.item_context)
    for c in range(data.n_contexts):
        members = np.flatnonzero(ic == c)
        block = got[members][:, : members.size]
        np.testing.assert_allclose(block + block.T, 1.0 - np.eye(members.size), atol=1e-12)
    # P(a ≻ b) summed over b is the expected number of items below a: size − E[rank]
    ranks = order_rank_probabilities(rates, *tables.arrays()[:4])
    size = np.bincount(ic)[ic]
    expected_rank = ranks @ np.arange(1, ranks.shape[1] + 1)
    np.testing.assert_allclose(got.sum(axis=1), size - expected_rank, rtol=1e-10, atol=1e-12)


def _order_weights(data, log_rates, c):
    """Every order of context ``c`` (items by index, best first) with its posterior
    probability given the rates, written out (gold labels forbid orders)."""
    perms, logw = _order_log_likelihoods(data, log_rates, c)
    w = np.exp(logw - logw.max())
    return perms, w / w.sum()


def test_sampled_orders_follow_the_posterior_over_every_order():
    """order_sample draws each context's whole order with its posterior probability given the
    rates (every order written out; two judges, gold labels, contexts of 2–4 items): the
    frequencies of all orders over 20,000 draws within 4.5 standard errors, and no order the
    labels forbid ever drawn."""
    df = _log(5, sizes=(4, 3, 2, 4), labels=0.3)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    rates = np.asarray(RATES[: data.n_judges], dtype=float)
    tables = order_tables(bp.pair_counts(data), np.asarray(data.item_context), data.n_contexts)
    rng = np.random.default_rng(11)
    n = 20_000
    ranks = np.array([order_sample(rates, *tables.arrays()[:4], rng=rng) for _ in range(n)])
    ic = np.asarray(data.item_context)
    assert np.all(np.diff(ic) >= 0)  # kernel rows = item indices
    forbidden = 0
    for c in range(data.n_contexts):
        members = np.flatnonzero(ic == c)
        perms, prob = _order_weights(data, rates, c)
        drawn = np.argsort(ranks[:, members], axis=1)  # items of each draw, best first
        key = {tuple(p): k for k, p in enumerate(perms)}
        freq = np.bincount([key[tuple(members[d])] for d in drawn], minlength=len(perms)) / n
        se = np.sqrt(prob * (1 - prob) / n)
        assert np.all(np.abs(freq - prob) <= 4.5 * se + 1e-9), (c, freq, prob)
        forbidden += int((prob == 0).sum())
        assert np.all(freq[prob == 0] == 0)
    assert forbidden > 0  # the labels did forbid some orders


def test_posterior_predictive_draws_the_order_from_its_posterior_not_the_prior():
    """On a hard-truth log with many verdicts per pair, the posterior puts each context's order
    at the true one; the order model's replicates then show each pair row's wins at the rates
    of the true orientation (k₊(1 − ε₊) or k₊ ε₋ for i first), which a uniformly drawn order
    (the prior) would average to the middle. The group has the strength models' layout and the
    checks (diagnose, ppc_data) read it."""
    sim = simulate_round_robin(
        4, eps_plus=0.05, eps_minus=0.25, repeats=6, n_contexts=40, random_seed=3
    )
    m = bp.PositionalOrder().fit(sim.data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=2, point_draws=300)
    pp = m.idata_.posterior_predictive
    assert pp["wins"].dims == ("chain", "draw", "pair", "count")
    assert pp["wins"].shape[:2] == (1, 300) and pp.attrs["plug_in"] == 1
    rep = np.asarray(pp["wins"])[0]  # (draws, pairs, 2)
    pc = bp.pair_counts(sim.data)
    rank = {t: k for k, t in enumerate(sim.true_order)}  # contexts' items in true order
    i_better = np.array(
        [rank[sim.data.items[i]] < rank[sim.data.items[j]] for i, j in zip(pc.i, pc.j, strict=True)]
    )
    post = m.idata_.posterior
    ep, em = float(post["eps_plus"].values.ravel()[0]), float(post["eps_minus"].values.ravel()[0])
    want_n1 = np.where(i_better, pc.k_plus * (1 - ep), pc.k_plus * em)
    want_n2 = np.where(i_better, pc.k_minus * (1 - em), pc.k_minus * ep)
    np.testing.assert_allclose(rep[..., 0].mean(axis=0).mean(), want_n1.mean(), rtol=0.02)
    # row by row: better orientations win more (a prior draw would give ≈ 0 correlation)
    assert np.corrcoef(rep[..., 0].mean(axis=0), want_n1)[0, 1] > 0.95
    assert np.corrcoef(rep[..., 1].mean(axis=0), want_n2)[0, 1] > 0.95
    assert np.all(rep[..., 0] <= pc.k_plus) and np.all(rep[..., 1] <= pc.k_minus)
    d = diagnose(m, random_seed=0)
    assert set(d.ppc["statistic"]) >= {"s_com", "first_position_rate"}
    assert not d.ppc["extreme"].any()  # the model that made the log passes its own checks
    from bayes_pairwise.pymc_models.ppc import ppc_data

    df = ppc_data(m, sim.data, n_draws=100)
    assert df.attrs["replicates"] == "model posterior_predictive"
    assert 0.02 < df.attrs["p_value"]["s_com"] < 0.98


def test_posterior_predictive_of_an_order_fit_with_ties_by_position_and_judges():
    """With tie rates by position and two judges, replicated ties follow τ₊ / τ₋ of the order
    drawn: the judge whose ties come when the better text is first ties more in the rows where
    the posterior puts the better item first."""
    df = _log(6, sizes=(4,) * 30, judges=("A", "B"), labels=0.0, repeats=2)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    m = bp.PositionalOrder(tie_positional=True).fit(data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=4, point_draws=200)
    rep = np.asarray(m.idata_.posterior_predictive["wins"])[0]  # (draws, pairs, 4)
    pc = bp.pair_counts(data)
    assert rep.shape[1:] == (pc.n_pairs, 4)
    post = m.idata_.posterior
    tp = post["tie_rate_plus"].values.reshape(-1, data.n_judges)[0]
    tm = post["tie_rate_minus"].values.reshape(-1, data.n_judges)[0]
    # E[t1 + t2] per row is between k τ_min and k τ_max; overall per judge the mean tie share
    # of the replicates is the model's expected tie share (its tie_rate), within 3 %
    share = (rep[..., 2] + rep[..., 3]).sum(axis=1)  # (draws,)
    k = pc.k_plus + pc.k_minus
    for j in range(data.n_judges):
        rows = np.asarray(pc.judge) == j
        got = (rep[:, rows, 2] + rep[:, rows, 3]).sum() / (rep.shape[0] * k[rows].sum())
        want = float(post["tie_rate"].values.reshape(-1, data.n_judges)[0, j])
        assert min(tp[j], tm[j]) - 1e-9 <= want <= max(tp[j], tm[j]) + 1e-9
        assert abs(got - want) < 0.03 * max(want, 0.05)
    assert share.std() > 0
    assert np.all(rep[..., 0] + rep[..., 2] <= pc.k_plus)


@pytest.mark.parametrize("seed", [0, 2])
def test_ties_by_position_enter_every_orders_likelihood(seed):
    """With tie_positional the tables hold the ties as a second block of rates: the kernel's
    value, gradient and rank probabilities equal the sum over every order written out."""
    df = _log(seed, sizes=(4, 5, 3, 2), labels=0.3 if seed else 0.0)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    pc = bp.pair_counts(data)
    assert (pc.t1 + pc.t2).sum() > 0
    rates = RATES[: data.n_judges]
    ties = np.log([[0.07, 0.93, 0.3, 0.7], [0.2, 0.8, 0.1, 0.9]])[: data.n_judges]
    both = np.concatenate([rates, ties], axis=0)
    tables = order_tables(pc, np.asarray(data.item_context), data.n_contexts, tie_positional=True)
    logp, grad = order_logp(both, *tables.arrays())
    np.testing.assert_allclose(
        logp, _brute_force(data, rates, tie_rates=ties), rtol=1e-12, atol=1e-12
    )
    h = 1e-6
    for k, e in enumerate(np.eye(both.size).reshape(-1, *both.shape)):
        up, dn = both + h * e, both - h * e
        fd = (
            _brute_force(data, up[: len(rates)], tie_rates=up[len(rates) :])
            - _brute_force(data, dn[: len(rates)], tie_rates=dn[len(rates) :])
        ) / (2 * h)
        np.testing.assert_allclose(grad[:, k], fd, rtol=1e-6, atol=1e-6)
    got = order_rank_probabilities(both, *tables.arrays()[:4])
    want = _brute_force(data, rates, ranks=True, tie_rates=ties)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.slow  # two fits of a 6-item log: 36 s cold, the default run's second slowest
def test_tie_rates_by_position_are_recovered_where_one_tie_rate_biases_the_errors():
    """Hard truth, ε₊ 0.05, ε₋ 0.2, ties at τ₊ 0.08 (better first) and τ₋ 0.30 (second):
    tie_positional recovers all four; one tie rate per judge moves ε₊ and ε₋ apart."""
    from bayes_pairwise.simulate import simulate_hard_pairs

    sim = simulate_hard_pairs(
        6, eps_plus=0.05, eps_minus=0.2, hard_share=0.0, tie_rate=0.0, labelled=0.0,
        strength_sigma=50.0, n_contexts=200, random_seed=3,
    )  # fmt: skip
    rng = np.random.default_rng(9)
    frame = sim.frame.drop(columns=["truth"]).copy()
    frame.loc[rng.random(len(frame)) < np.where(sim.better_first, 0.08, 0.3), "outcome"] = "tie"
    data = bp.load_comparisons(frame, context="context", ties="model")
    m = bp.PositionalOrder(tie_positional=True).fit(data, method="map", random_seed=0)
    got = m.summary()["mean"]
    assert got["tie_rate_plus"] == pytest.approx(0.08, abs=0.015)
    assert got["tie_rate_minus"] == pytest.approx(0.30, abs=0.02)
    assert got["eps_plus"] == pytest.approx(sim.realised_eps_plus, abs=0.01)
    assert got["eps_minus"] == pytest.approx(sim.realised_eps_minus, abs=0.015)
    assert m.settings_["log_density"] == "written out"  # MAP on the written-out density too
    one = bp.PositionalOrder().fit(data, method="map", random_seed=0).summary()["mean"]
    assert one["eps_minus"] - got["eps_minus"] > 0.01 and got["eps_plus"] - one["eps_plus"] > 0.004
    r = m.ranks_  # the tie columns enter the ranks too
    np.testing.assert_allclose(r.groupby("context")["p_best"].sum(), 1.0, rtol=1e-9)
    # the expected tie share meets the observed one (every pair in both orders: a = 1/2)
    observed = float((frame["outcome"] == "tie").mean())
    assert got["tie_rate"] == pytest.approx(observed, abs=0.005)
    assert got["tie_rate"] == pytest.approx((got["tie_rate_plus"] + got["tie_rate_minus"]) / 2)


def test_underflowing_products_fall_back_to_logs():
    """A strong 3-cycle (every order violates a pair seen 120 times in each order): the
    products underflow, the log-space programme takes over, and the sum is still exact."""
    rows = []
    for a, b in (("x", "y"), ("y", "z"), ("z", "x")):
        rows += [(a, b, "first")] * 120 + [(b, a, "second")] * 120
    rows += [("x", "y", "second")] * 3
    data = bp.load_comparisons(pd.DataFrame(rows, columns=["first", "second", "outcome"]))
    rates = np.log([[0.1, 0.9, 0.1, 0.9]])
    logp, grad = _kernel(data, rates)
    assert logp[0] < -460.0  # the regime of the fallback
    np.testing.assert_allclose(logp, _brute_force(data, rates), rtol=1e-12)
    fd = [
        (_brute_force(data, rates + 1e-6 * e) - _brute_force(data, rates - 1e-6 * e))[0] / 2e-6
        for e in np.eye(4).reshape(-1, 1, 4)
    ]
    np.testing.assert_allclose(grad[0], fd, rtol=1e-6)


def test_cyclic_labels_and_large_contexts_are_refused_by_name():
    rows = [("a", "b", "first", "a"), ("b", "c", "first", "b"), ("c", "a", "first", "c")]
    df = pd.DataFrame(rows, columns=["first", "second", "outcome", "gold"])
    with pytest.raises(DesignError, match="cyclic"):
        bp.PositionalOrder().fit(bp.load_comparisons(df, truth="gold"), method="map")
    big = simulate_round_robin(13, eps=0.1, random_seed=0).data
    with pytest.raises(DesignError, match="up to 12 items; context 0 has 13"):
        bp.UniformOrder().fit(big, method="map")
    sim = simulate_round_robin(5, eps=0.1, n_contexts=3, random_seed=0).data
    with pytest.raises(DesignError, match="tie_closeness needs the strength models"):
        bp.PositionalOrder(tie_closeness=True).fit(sim, method="map")
    with pytest.raises(DesignError, match="no JAX form"):
        bp.UniformOrder(nuts_sampler="numpyro").fit(sim)


@pytest.mark.slow  # 21 s cold (two MAP fits, one a strength model): the default run's margin
def test_map_recovers_a_hard_truth_log_and_equals_the_strength_models_limit():
    sim = simulate_round_robin(6, eps_plus=0.05, eps_minus=0.25, n_contexts=150, random_seed=3)
    m = bp.PositionalOrder().fit(sim.data, method="map", random_seed=0)
    post = m.idata_.posterior
    got = {k: float(post[k].values.ravel()[0]) for k in ("eps_plus", "eps_minus")}
    assert got["eps_plus"] == pytest.approx(0.05, abs=0.02)
    assert got["eps_minus"] == pytest.approx(0.25, abs=0.03)
    assert "strength" not in post and m.reported_names() == ["eps_plus", "eps_minus"]
    with pytest.raises(DesignError, match="no strengths"):
        _ = m.strengths_
    m.sample_posterior_predictive(random_seed=0, point_draws=20)  # orders drawn, not refused
    assert m.idata_.posterior_predictive["wins"].shape[:2] == (1, 20)


def _jacobian_priors(cls):
    """Priors of the written-out forms whose transforms' log-Jacobians do not vanish (under the
    flat defaults a Jacobian left in or out of the constrained-space density would not show)."""
    return {
        "eps": {"dist": "Dirichlet", "a": [2.0, 3.0, 30.0]}
        if cls is bp.PositionalOrder
        else {"dist": "Uniform", "lower": 0.01, "upper": 0.45},
        "tie_logit": {"dist": "Logistic", "mu": -1.0, "s": 0.7},
        "tie_rho": {"dist": "Beta", "alpha": 2.0, "beta": 6.0},
    }


@pytest.mark.parametrize(
    ("cls", "method", "kw"),
    [
        (bp.PositionalOrder, "map", {}),
        (bp.UniformOrder, "laplace", {}),
        # each a graph compile of its own (10-20 s cold): with the slow tests
        pytest.param(bp.PositionalOrder, "laplace", {}, marks=pytest.mark.slow),
        pytest.param(bp.PositionalOrder, "map", {"tie_dispersion": True}, marks=pytest.mark.slow),
        pytest.param(bp.UniformOrder, "map", {"tie_positional": True}, marks=pytest.mark.slow),
    ],
)
def test_map_and_laplace_on_the_written_out_density_are_the_graphs(monkeypatch, cls, method, kw):
    """MAP and the Laplace approximation of the hard-truth models run on the written-out
    density (they compiled PyMC's graph in PyTensor's C backend: 10-20 s per model on a new
    machine, for two or three parameters per judge): the same mode, log density and draws as
    on the graph, under priors whose Jacobians do not vanish."""
    data = bp.load_comparisons(_log(0), context="q", judge="judge", ties="model", truth="gold")
    priors = _jacobian_priors(cls)
    written = cls(priors=priors, draws=4000, **kw).fit(data, method=method, random_seed=4)
    assert written.settings_["log_density"] == "written out"
    monkeypatch.setattr(cls, "_direct", lambda self, *a: (None, "test: graph"))
    graph = cls(priors=priors, draws=4000, **kw).fit(data, method=method, random_seed=4)
    assert graph.settings_["log_density"] == "graph (test: graph)"
    a, b = written.idata_, graph.idata_
    if method == "map":
        lp_a, lp_b = a.sample_stats["lp"].values.item(), b.sample_stats["lp"].values.item()
        assert lp_a == pytest.approx(lp_b, abs=1e-6)
    for name in b.posterior.data_vars:
        x, y = a.posterior[name].values, b.posterior[name].values
        assert x.shape == y.shape, name
        if method == "map":
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5, err_msg=name)
        else:  # the same Gaussian, its draws taken in another order of the coordinates:
            # two samples of 4,000 (the mean's difference has sd 0.022 sd, the sd's 1.6 %)
            sd = y.std(axis=(0, 1))
            np.testing.assert_allclose(
                x.mean(axis=(0, 1)), y.mean(axis=(0, 1)), atol=0.1 * sd.max() + 1e-6
            )
            np.testing.assert_allclose(x.std(axis=(0, 1)), sd, rtol=0.07, atol=1e-6)
    if method == "map":
        np.testing.assert_allclose(
            a.log_likelihood["contexts"].values,
            b.log_likelihood["contexts"].values,
            rtol=1e-4,
            atol=1e-5,
        )
    else:
        attrs_a, attrs_b = a.sample_stats.attrs, b.sample_stats.attrs
        assert attrs_a["laplace_n_parameters"] == attrs_b["laplace_n_parameters"]
        # the log density of each draw, over the draws: the same distribution
        lp_a, lp_b = a.sample_stats["lp"].values, b.sample_stats["lp"].values
        assert lp_a.mean() == pytest.approx(lp_b.mean(), abs=0.1 * lp_b.std())


def _by_name(model, grad):
    """A gradient laid out as ``model.value_vars``, split by name."""
    out, k = {}, 0
    for v in model.value_vars:
        n = int(np.prod(model.initial_point()[v.name].shape))
        out[v.name], k = grad[k : k + n], k + n
    return out


@pytest.mark.parametrize(
    ("cls", "ties"),
    [
        # each tie form is its own graph compile (10-35 s cold): the default run keeps one
        # rate and no ties, the positional and dispersed forms run with the slow tests (in the
        # default run their kernel is checked against every order written out, above, and the
        # dispersed tie term against SciPy and finite differences in test_tie_dispersion.py)
        pytest.param(cls, ties, marks=pytest.mark.slow)
        if ties in ("positional", "dispersion", "pair")
        else (cls, ties)
        for cls in (bp.PositionalOrder, bp.UniformOrder)
        for ties in ("model", "drop", "positional", "dispersion", "pair")
        # the dispersed tie terms are the same code for both classes (one graph compile)
        if not (cls is bp.UniformOrder and ties in ("dispersion", "pair"))
    ],
)
def test_the_written_out_density_is_the_graphs(cls, ties):
    """What nutpie samples (no per-log compile) equals the PyMC model: log-density, gradient,
    the constrained variables and the per-context log-likelihood, with ties (one rate per
    judge, one per position of the better item, or one that varies by context or by pair), two
    judges and gold labels; and so does the constrained-space density MAP maximises (the
    transforms' log-Jacobians left out), under priors other than the flat defaults (where the
    Dirichlet's and Beta's concentrations of 1 would hide a Jacobian left in)."""
    from bayes_pairwise.pymc_models.base import _frozen
    from bayes_pairwise.pymc_models.order_density import order_density_logp_grad

    data = bp.load_comparisons(
        _log(0),
        context="q",
        judge="judge",
        ties="drop" if ties == "drop" else "model",
        truth="gold",
    )
    dispersion = {"dispersion": True, "pair": "pair"}.get(ties, False)
    priors = _jacobian_priors(cls)
    m = cls(tie_positional=ties == "positional", tie_dispersion=dispersion, priors=priors)
    spec, why = m.written_out_density(data)
    flat = spec.without_jacobian()
    assert ("tie_rho_logodds__" in spec.names) == bool(dispersion)
    assert why == "" and spec.names[0] in ("eps_simplex_simplex__", "eps_interval__")
    assert ("tie_logit" in spec.names) == (ties != "drop")
    if ties == "positional":
        assert spec.shapes[1] == (2, 2)  # (judge, tie_position)
    model = _frozen(m.build_model(data))
    logp, dlogp = model.compile_logp(), model.compile_dlogp()
    logp_flat = model.compile_logp(jacobian=False)
    dlogp_flat = model.compile_dlogp(jacobian=False)
    per_context = model.compile_logp(vars=[model["contexts"]], sum=False)
    free = [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]
    values_of = pytensor.function(
        model.value_vars,
        model.replace_rvs_by_values([model[n] for n in free]),
        on_unused_input="ignore",
    )
    rng = np.random.default_rng(1)
    start = model.initial_point()
    for _ in range(4):
        point = {k: rng.normal(0.0, 1.0, size=v.shape) for k, v in start.items()}
        x = np.concatenate([point[n].ravel() for n in spec.names])
        lp, grad = order_density_logp_grad(spec, x)
        # the graph's beta-binomial is a difference of log-gamma functions, good to ~1e-9 of
        # the total, and its gradient goes through PyTensor's digamma, to ~1e-10; the
        # written-out form sums logs and reciprocals (exact): checked by finite differences below
        tol = 1e-8 if dispersion else 1e-10
        lp_tol = 1e-8 if dispersion else 1e-12
        assert lp == pytest.approx(float(logp(point)), rel=lp_tol, abs=1e-9)
        want = _by_name(model, dlogp(point))
        got = np.split(grad, np.cumsum(spec.sizes)[:-1])
        for name, g in zip(spec.names, got, strict=True):
            np.testing.assert_allclose(g, want[name], rtol=tol, atol=tol)
        lp0, grad0 = flat.logp_grad(x)
        assert lp0 == pytest.approx(float(logp_flat(point)), rel=lp_tol, abs=1e-9)
        assert abs(lp0 - lp) > 1e-3  # the Jacobian is not nothing here
        want = _by_name(model, dlogp_flat(point))
        got = np.split(grad0, np.cumsum(spec.sizes)[:-1])
        for name, g in zip(spec.names, got, strict=True):
            np.testing.assert_allclose(g, want[name], rtol=tol, atol=tol)
        ref = dict(zip(free, values_of(**point), strict=True))
        values = spec.constrained({n: point[n][None] for n in spec.names})
        assert sorted(values) == sorted(free)
        for name in free:
            np.testing.assert_allclose(values[name][0], ref[name], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(
            spec.pointwise(values)[0], per_context(point)[0], rtol=1e-12, atol=1e-9
        )
    # the start nutpie gets is PyMC's (unjittered: the support point)
    np.testing.assert_allclose(
        spec.initial_point(0, jitter=False),
        np.concatenate([start[n].ravel() for n in spec.names]),
        atol=1e-12,
    )


def test_a_prior_it_does_not_write_out_falls_back_to_the_graph_by_name():
    data = bp.load_comparisons(_log(0), context="q", judge="judge", ties="model")
    m = bp.PositionalOrder(priors={"tie_logit": {"dist": "Normal", "mu": 0.0, "sigma": 2.0}})
    spec, why = m.written_out_density(data)
    assert spec is None and why == "tie_logit prior Normal (written out: Logistic)"


@pytest.mark.slow  # a nutpie compile of the order model's graph (a prior not written out)
def test_nuts_fit_does_not_show_numbas_cache_notice():
    # the tables make the compiled graph uncacheable; numba said so in colour-coded warnings
    # that reached the terminal as "warning: \x1b[1m…Cannot cache compiled function…"
    data = bp.load_comparisons(
        _log(3, sizes=(4,) * 20, judges=("A",), labels=0.0), context="q", ties="model"
    )
    graph = {"tie_logit": {"dist": "Normal", "mu": 0.0, "sigma": 2.0}}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        m = bp.PositionalOrder(draws=100, tune=100, chains=2, priors=graph).fit(data, random_seed=1)
    assert not [w for w in seen if "Cannot cache compiled function" in str(w.message)]
    assert m.idata_.posterior.sizes["draw"] == 100
    assert m.settings_["log_density"].startswith("graph (tie_logit prior Normal")


def test_nuts_fit_has_contexts_as_observations_and_round_trips(tmp_path):
    df = _log(4, sizes=(4,) * 30, judges=("A",), labels=0.0)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    m = bp.PositionalOrder(draws=500, tune=500, chains=2).fit(data, random_seed=1)
    assert m.settings_["log_density"] == "written out"  # nothing compiled for this log
    d = diagnose(m, random_seed=0)
    assert d.divergences == 0 and d.checks["rhat"]
    # replicated logs: at most PPC_DRAWS of the 1,000 draws, orders drawn from their posterior
    assert m.idata_.posterior_predictive.sizes["draw"] == 500
    assert set(d.ppc["statistic"]) >= {"s_com", "first_position_rate"}
    assert (d.ppc["n_draws"] >= 20).all()
    ll = m.idata_.log_likelihood["contexts"]
    assert ll.dims == ("chain", "draw", "context") and ll.sizes["context"] == 30
    # the pointwise log-likelihood at a draw = the kernel's per-context values + tie terms
    post = m.idata_.posterior.isel(chain=0, draw=5)
    ep, em = float(post["eps_plus"].values[0]), float(post["eps_minus"].values[0])
    tau = float(post["tie_rate"].values[0])
    rates = np.log([[ep, 1 - ep, em, 1 - em]])
    pc = bp.pair_counts(data)
    ctx = np.asarray(data.item_context)[pc.i]
    ties = np.bincount(ctx, pc.t1 + pc.t2, data.n_contexts)
    decided = np.bincount(ctx, pc.k_plus + pc.k_minus, data.n_contexts) - ties
    want = _kernel(data, rates)[0] + ties * np.log(tau) + decided * np.log1p(-tau)
    np.testing.assert_allclose(ll.isel(chain=0, draw=5).values, want, rtol=1e-9)
    # LOO: two order models compare on contexts (the same fit twice: no difference)
    from bayes_pairwise.model_checking import compare_fitted

    same = compare_fitted({"order": m, "again": m})
    assert same.attrs["unit"] == "context" and np.allclose(same["elpd_diff"], 0.0)
    path = m.save(tmp_path / "order.nc")
    back = bp.load_model(path)
    assert type(back) is bp.PositionalOrder
    np.testing.assert_array_equal(
        back.idata_.posterior["eps_minus"], m.idata_.posterior["eps_minus"]
    )


def test_nuts_fit_with_tie_rates_by_position_runs_the_written_out_density():
    """Tie rates by position are written out too (nothing compiled per log): the fit's
    pointwise log-likelihood at a draw is the kernel's with the tie block at that draw's rates."""
    df = _log(5, sizes=(4,) * 30, judges=("A",), labels=0.0)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    m = bp.PositionalOrder(draws=300, tune=300, chains=2, tie_positional=True)
    m.fit(data, random_seed=2)
    assert m.settings_["log_density"] == "written out"
    post = m.idata_.posterior
    assert post["tie_logit"].dims == ("chain", "draw", "judge", "tie_position")
    assert float(post["tie_rate_plus"].max()) < 1.0
    # the expected tie share of every draw lies between its two rates, near the observed share
    lo = np.minimum(post["tie_rate_plus"], post["tie_rate_minus"])
    hi = np.maximum(post["tie_rate_plus"], post["tie_rate_minus"])
    assert bool(((post["tie_rate"] >= lo - 1e-12) & (post["tie_rate"] <= hi + 1e-12)).all())
    observed = float((df["outcome"] == "tie").mean())
    assert float(post["tie_rate"].mean()) == pytest.approx(observed, abs=0.02)
    at = post.isel(chain=1, draw=7)
    ep, em = float(at["eps_plus"].values[0]), float(at["eps_minus"].values[0])
    tp, tm = float(at["tie_rate_plus"].values[0]), float(at["tie_rate_minus"].values[0])
    pc = bp.pair_counts(data)
    tables = order_tables(pc, np.asarray(data.item_context), data.n_contexts, tie_positional=True)
    rates = np.log([[ep, 1 - ep, em, 1 - em], [tp, 1 - tp, tm, 1 - tm]])
    want = order_logp(rates, *tables.arrays())[0]
    ll = m.idata_.log_likelihood["contexts"].isel(chain=1, draw=7).values
    np.testing.assert_allclose(ll, want, rtol=1e-9)
    # the simulated judge ties at 0.1 whichever text is better
    assert float(post["tie_rate_plus"].mean()) == pytest.approx(0.1, abs=0.05)
    assert float(post["tie_rate_minus"].mean()) == pytest.approx(0.1, abs=0.05)


def test_cli_fit_with_the_order_model(tmp_path, capsys):
    from bayes_pairwise.cli import main

    sim = simulate_round_robin(5, eps=0.15, n_contexts=40, random_seed=2)
    path = tmp_path / "rr.csv"
    sim.data.to_frame().to_csv(path, index=False)
    assert main(["fit", str(path), "--model", "uniform_order", "--map", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "uniform_order"
    assert out["parameters"]["eps"]["mean"] == pytest.approx(0.15, abs=0.04)


def test_a_strength_models_nuts_fit_names_its_hard_truth_limit_when_the_log_allows(
    tmp_path, capsys
):
    """Computed from the log: the order model is named before a NUTS fit of the strength
    model it is the limit of, only where it applies."""
    from bayes_pairwise.cli import main
    from bayes_pairwise.pymc_models import PositionalDifficulty
    from bayes_pairwise.pymc_models.order import order_model_note

    small = simulate_round_robin(6, eps=0.1, n_contexts=12, random_seed=0).data
    note = order_model_note(bp.UniformError(), small)
    assert note.startswith("12 contexts of 6 items: --model uniform_order fits")
    assert "positional_order" in order_model_note(bp.PositionalBias(), small)
    assert "--model positional_order --tie-positional fits" in order_model_note(
        bp.PositionalBias(tie_positional=True), small
    )
    for model, data, method in (
        (bp.PositionalBias(), small, "map"),  # not NUTS
        (bp.PositionalBias(tie_closeness=True), small, "nuts"),  # no order form
        (PositionalDifficulty(), small, "nuts"),  # no order model
        (bp.PositionalBias(), simulate_round_robin(13, random_seed=0).data, "nuts"),  # 13 items
        (bp.PositionalBias(), simulate_round_robin(6, random_seed=0).data, "nuts"),  # one context
    ):
        assert order_model_note(model, data, method=method) is None
    path = tmp_path / "rr.csv"
    small.to_frame().to_csv(path, index=False)
    args = ["fit", str(path), "--model", "positional", "--draws", "10", "--tune", "10", "--json"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "note: 12 contexts of 6 items: --model positional_order" in err
    assert main(["fit", str(path), "--model", "positional", "--map", "--json"]) == 0
    assert "note:" not in capsys.readouterr().err


# --------------------------------------------------------------------------- posterior ranks
def test_ranks_are_the_posterior_over_orders_at_the_fitted_rates_for_every_item(tmp_path):
    """A MAP fit's ranks_ are the posterior over every order at the MAP rates, on item labels
    (rows shuffled, two judges, gold labels, contexts of 3–5), and survive save/load."""
    df = _log(3, sizes=(4, 3, 5), judges=("A", "B"), labels=0.2)
    df = df.sample(frac=1.0, random_state=np.random.default_rng(0)).reset_index(drop=True)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    m = bp.PositionalOrder().fit(data, method="map", random_seed=0)
    post = m.idata_.posterior
    ep = np.asarray(post["eps_plus"]).reshape(-1)
    em = np.asarray(post["eps_minus"]).reshape(-1)
    rates = np.stack([np.log(ep), np.log1p(-ep), np.log(em), np.log1p(-em)], axis=1)
    want = _brute_force(data, rates, ranks=True)  # rows by item index
    r = m.ranks_
    assert list(r.index) == list(data.items) and r.attrs["rank_draws"] == 1
    cols = [f"p_rank_{k}" for k in range(1, 6)]
    np.testing.assert_allclose(r[cols].to_numpy(), want, rtol=1e-9, atol=1e-12)
    assert r["context"].tolist() == [data.contexts[c] for c in data.item_context]
    assert r["name"].tolist() == list(data.item_names)
    np.testing.assert_allclose(r["expected_rank"], want @ np.arange(1, 6), rtol=1e-9)
    np.testing.assert_allclose(
        r["beats_share"], (r["size"] - r["expected_rank"]) / (r["size"] - 1), rtol=1e-12
    )
    np.testing.assert_allclose(r.groupby("context")["p_best"].sum(), 1.0, rtol=1e-9)
    back = bp.load_model(m.save(tmp_path / "order_map.nc"))
    pd.testing.assert_frame_equal(back.ranks_, r)


def test_ranks_recover_a_hard_truth_and_pool_by_name():
    """On a hard-truth log (ε₊ 0.05, ε₋ 0.2, two verdicts per order) the posterior ranks put
    nearly every item at its true rank, and more often than the raw Copeland ranking does;
    pooled by name, the shares follow the names' true mean ranks."""
    sim = simulate_round_robin(
        5, eps_plus=0.05, eps_minus=0.2, repeats=2, n_contexts=60, random_seed=4
    )
    m = bp.PositionalOrder().fit(sim.data, method="map", random_seed=0)
    r = m.ranks_
    true_rank = {}
    for c in sim.data.contexts:
        members = [t for t in sim.true_order if t.startswith(f"{c}::")]
        true_rank.update({t: k + 1 for k, t in enumerate(members)})
    truth = r.index.map(true_rank).to_numpy()
    modal = np.argmax(r[[f"p_rank_{k}" for k in range(1, 6)]].to_numpy(), axis=1) + 1
    assert np.mean(modal == truth) >= 0.85
    # calibration in aggregate: the mean probability given to the true rank ≈ its hit rate
    p_true = r[[f"p_rank_{k}" for k in range(1, 6)]].to_numpy()[np.arange(len(r)), truth - 1]
    assert abs(p_true.mean() - np.mean(modal == truth)) < 0.08
    from bayes_pairwise.classical.descriptive import copeland_ranking

    cop = copeland_ranking(sim.data)["rank"].reindex(r.index).to_numpy()
    assert np.mean(modal == truth) > np.mean(cop == truth)
    by_name = m.ranks_by_name_
    assert by_name["contexts"].tolist() == [60] * 5
    name_truth = pd.Series(truth, index=r["name"].to_numpy()).groupby(level=0).mean()
    rho = np.corrcoef(by_name["expected_rank"], name_truth.reindex(by_name.index))[0, 1]
    assert rho > 0.95
    np.testing.assert_allclose(by_name["p_best"].sum(), 1.0, rtol=1e-9)  # one best per context


def test_fit_json_and_text_carry_the_ranks(tmp_path, capsys):
    from bayes_pairwise.cli import main

    sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
    path = tmp_path / "rr.csv"
    sim.data.to_frame().to_csv(path, index=False)
    args = ["fit", str(path), "--context-column", "context", "--model", "uniform_order", "--map"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = bp.UniformOrder().fit(sim.data, method="map", random_seed=0)
    by_name = m.ranks_by_name_
    got = out["ranks"]["by_name"]
    assert list(got) == list(by_name.index)  # best first
    for name, row in by_name.iterrows():
        assert got[name]["contexts"] == 30
        assert got[name]["beats_share"] == pytest.approx(row["beats_share"], rel=1e-6)
    assert "items" not in out["ranks"]
    assert main([*args, "--json", "--all"]) == 0
    items = json.loads(capsys.readouterr().out)["ranks"]["items"]
    assert len(items) == sim.data.n_items
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "Posterior ranks within contexts, pooled by name" in text
    assert f"{by_name.index[0]}       30" in text


def test_ranks_are_not_pooled_when_no_name_recurs(capsys):
    from bayes_pairwise.pymc_models.diagnostics import rank_summary

    df = _log(5, sizes=(4, 3), judges=("A",), labels=0.0)
    df["first"] = df["q"] + df["first"]  # every name unique to its context
    df["second"] = df["q"] + df["second"]
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    m = bp.UniformOrder().fit(data, method="map", random_seed=0)
    out = rank_summary(m)
    assert out["by_name"] is None
    assert out["by_name_note"].startswith("no item name recurs across the 2 contexts")


def test_the_cross_checks_figures_put_posterior_ranks_beside_copeland():
    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.plot_data import order_rank_data

    sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
    cc = crosscheck(sim.data, model="uniform_order", method="map", random_seed=0, delta_s_2d=False)
    ranks = cc.figures["uniform_order"].ranks
    assert ranks is not None and "Copeland judge" in ranks.columns
    # the Copeland share by hand: net wins per pair, (1 + S/(k−1))/2, averaged by name
    frame = sim.data.to_frame()
    share = {}
    for _, block in frame.groupby("context"):
        items = sorted(set(block["first"]) | set(block["second"]))
        s = dict.fromkeys(items, 0.0)
        pairs = {}
        for row in block.itertuples():
            key = tuple(sorted((row.first, row.second)))
            won = row.first if row.outcome == "first" else row.second
            pairs.setdefault(key, []).append(won)
        for (a, b), wins in pairs.items():
            w = (sum(x == a for x in wins) - sum(x == b for x in wins)) / len(wins)
            s[a] += w
            s[b] -= w
        for t, v in s.items():
            share.setdefault(t, []).append(0.5 * (1 + v / (len(items) - 1)))
    want = pd.Series({t: np.mean(v) for t, v in share.items()})
    np.testing.assert_allclose(ranks["Copeland judge"], want.reindex(ranks.index), rtol=1e-12)
    model = cc.fits["uniform_order"]
    pd.testing.assert_frame_equal(ranks, order_rank_data(model, sim.data))
    with pytest.raises(ValueError, match="estimates strengths, not ranks"):
        order_rank_data(bp.UniformError().fit(sim.data, method="map", random_seed=0))


def test_order_model_tie_rate_is_the_expected_tie_share():
    """With tie rates by position the order models report ``tie_rate``, the expected share of
    ties among a judge's verdicts: a τ₊ + (1 − a) τ₋ per draw, a the share of its verdicts
    that show the better item first. Gold labels on every pair and unequal verdicts per order
    make a known: the rows whose first item has the lower index."""
    import arviz as az

    df = _log(5, labels=1.0, repeats=3)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model", truth="gold")
    rng = np.random.default_rng(0)
    shape = (2, 5, data.n_judges)
    post = {
        "eps_plus": rng.uniform(0.01, 0.2, shape),
        "eps_minus": rng.uniform(0.05, 0.3, shape),
        "tie_rate_plus": rng.uniform(0.05, 0.15, shape),
        "tie_rate_minus": rng.uniform(0.2, 0.4, shape),
    }
    idata = az.from_dict(
        posterior=post, coords={"judge": list(data.judges)}, dims={k: ["judge"] for k in post}
    )
    bp.PositionalOrder(tie_positional=True)._derived_posterior(idata, data)
    index = lambda s: int(s.split("i")[1])  # noqa: E731 - the lower index is better
    better_first = df["first"].map(index) < df["second"].map(index)
    a = better_first.groupby(df["judge"]).mean().reindex(list(data.judges)).to_numpy()
    assert a.min() > 0.3 and a.max() < 0.7 and not np.allclose(a, 0.5)  # unequal per order
    want = a * post["tie_rate_plus"] + (1 - a) * post["tie_rate_minus"]
    got = idata.posterior["tie_rate"].transpose("chain", "draw", "judge").to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # one tie rate per judge: nothing derived (the model's own tie_rate is a parameter)
    plain = az.from_dict(posterior={"eps": post["eps_plus"]}, coords={"judge": list(data.judges)},
                         dims={"eps": ["judge"]})  # fmt: skip
    bp.PositionalOrder()._derived_posterior(plain, data)
    assert "tie_rate" not in plain.posterior


def _tied_log(pair_level: bool, seed: int = 5):
    """A hard-truth log (120 round robins of 5, ε₊ 0.05, ε₋ 0.2) with 15 % ties: pair-level
    (a chosen pair tied in both orders) or verdict-level (each verdict tied independently)."""
    sim = simulate_round_robin(5, eps_plus=0.05, eps_minus=0.2, n_contexts=120, random_seed=seed)
    df = sim.frame.copy()
    rng = np.random.default_rng(seed)
    if pair_level:
        key = df["context"] + ":" + df[["first", "second"]].min(axis=1)
        key = key + ":" + df[["first", "second"]].max(axis=1)
        pairs = key.unique()
        tied = set(pairs[rng.random(pairs.size) < 0.15])
        df.loc[key.isin(tied).to_numpy(), "outcome"] = "tie"
    else:
        df.loc[rng.random(len(df)) < 0.15, "outcome"] = "tie"
    return bp.load_comparisons(df, context="context", ties="model")


def test_predictive_checks_tell_a_tie_misfit_from_an_error_misfit():
    """S_com counts a tie half a win. Where ties belong to the pair (tied in both orders) one
    tie rate per verdict misses S_com, but S_com of the decided verdicts (the errors) is
    reproduced and the share of pairs tied in both orders is not: the cross-check's sentence
    says the error rates stand and the tie rate is the misfit. With ties per verdict nothing
    is missed."""
    from bayes_pairwise.pymc_models.diagnostics import ppc_misfit_lines

    pair = bp.PositionalOrder().fit(_tied_log(True), method="map", random_seed=0)
    d = diagnose(pair, random_seed=0)
    t = d.ppc.set_index("statistic")
    assert not t.loc["s_com_decided", "extreme"]
    assert t.loc["ties_both_orders", "extreme"]
    assert t.loc["ties_both_orders", "observed"] > 3 * t.loc["ties_both_orders", "replicated_mean"]
    assert t.loc["s_com", "extreme"]
    (line,) = ppc_misfit_lines(d.ppc)
    assert line in d.messages  # diagnose says it too
    assert "reproduces the errors among the decided verdicts" in line
    assert "tied in both" in line and "its error rates stand" in line
    verdict = bp.PositionalOrder().fit(_tied_log(False), method="map", random_seed=0)
    d2 = diagnose(verdict, random_seed=0)
    assert set(d2.ppc["statistic"]) >= {"s_com_decided", "ties_both_orders"}
    assert not d2.ppc["extreme"].any()
    assert ppc_misfit_lines(d2.ppc) == []
