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

import bayes_pairwise as bp
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models import diagnose
from bayes_pairwise.pymc_models.order_kernel import order_logp, order_tables
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


def _brute_force(data, log_rates):
    """Per-context log (1/k!) Σ_orders Π_rows p(row | order), every order written out."""
    pc = bp.pair_counts(data)
    ic = np.asarray(data.item_context)
    n1 = np.asarray(pc.n1_decided, float)
    n2 = np.asarray(pc.n2_decided, float)
    f1 = pc.k_plus - pc.t1 - n1
    f2 = pc.k_minus - pc.t2 - n2
    out = []
    for c in range(data.n_contexts):
        rows = np.flatnonzero(ic[pc.i] == c)
        vals = []
        for perm in itertools.permutations(np.flatnonzero(ic == c)):
            rank = {item: r for r, item in enumerate(perm)}
            total = 0.0
            for r in rows:
                i_above = rank[pc.i[r]] < rank[pc.j[r]]
                if pc.truth[r] >= 0 and (pc.truth[r] == 1) != i_above:
                    total = -np.inf
                    break
                lr = log_rates[pc.judge[r]]
                if i_above:
                    total += f1[r] * lr[0] + n1[r] * lr[1] + f2[r] * lr[2] + n2[r] * lr[3]
                else:
                    total += n2[r] * lr[0] + f2[r] * lr[1] + n1[r] * lr[2] + f1[r] * lr[3]
            vals.append(total)
        vals = np.array(vals)
        top = vals.max()
        out.append(top + np.log(np.mean(np.exp(vals - top))))
    return np.array(out)


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
    with pytest.raises(DesignError, match="tie_positional and tie_closeness"):
        bp.PositionalOrder(tie_positional=True).fit(sim, method="map")
    with pytest.raises(DesignError, match="no JAX form"):
        bp.UniformOrder(nuts_sampler="numpyro").fit(sim)


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
    with pytest.raises(DesignError, match="posterior predictive"):
        m.sample_posterior_predictive(random_seed=0)


def _by_name(model, grad):
    """A gradient laid out as ``model.value_vars``, split by name."""
    out, k = {}, 0
    for v in model.value_vars:
        n = int(np.prod(model.initial_point()[v.name].shape))
        out[v.name], k = grad[k : k + n], k + n
    return out


@pytest.mark.parametrize("cls", [bp.PositionalOrder, bp.UniformOrder])
@pytest.mark.parametrize("ties", ["model", "drop"])
def test_the_written_out_density_is_the_graphs(cls, ties):
    """What nutpie samples (no per-log compile) equals the PyMC model: log-density, gradient,
    the constrained variables and the per-context log-likelihood, with ties, two judges and
    gold labels."""
    from bayes_pairwise.pymc_models.base import _frozen
    from bayes_pairwise.pymc_models.order_density import order_density_logp_grad

    data = bp.load_comparisons(_log(0), context="q", judge="judge", ties=ties, truth="gold")
    m = cls()
    spec, why = m.written_out_density(data)
    assert why == "" and spec.names[0] in ("eps_simplex_simplex__", "eps_interval__")
    assert ("tie_logit" in spec.names) == (ties == "model")
    model = _frozen(m.build_model(data))
    logp, dlogp = model.compile_logp(), model.compile_dlogp()
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
        assert lp == pytest.approx(float(logp(point)), rel=1e-12, abs=1e-9)
        want = _by_name(model, dlogp(point))
        got = np.split(grad, np.cumsum(spec.sizes)[:-1])
        for name, g in zip(spec.names, got, strict=True):
            np.testing.assert_allclose(g, want[name], rtol=1e-10, atol=1e-10)
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
    assert any("draws no replicated data" in msg for msg in d.messages)
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
    # LOO across models needs one unit: a context is not a pair row
    from bayes_pairwise.model_checking import compare_fitted

    with pytest.raises(DesignError, match="one observation per context"):
        compare_fitted({"order": m, "again": m})
    path = m.save(tmp_path / "order.nc")
    back = bp.load_model(path)
    assert type(back) is bp.PositionalOrder
    np.testing.assert_array_equal(
        back.idata_.posterior["eps_minus"], m.idata_.posterior["eps_minus"]
    )


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
    for model, data, method in (
        (bp.PositionalBias(), small, "map"),  # not NUTS
        (bp.PositionalBias(tie_positional=True), small, "nuts"),  # no order form
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
