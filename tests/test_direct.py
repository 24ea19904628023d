"""The error models' log-density written out for nutpie (pymc_models.direct).

It must be the PyMC model's log-density: value and gradient at random unconstrained points, the
constrained variables and deterministics it reports, for every variant it claims to support;
anything else must fall back to the graph, and say so.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.data import load_comparisons
from bayes_pairwise.pymc_models import (
    HierarchicalPositionalBias,
    HierarchicalUniformError,
    PositionalBias,
    PositionalDifficulty,
    UniformDifficulty,
    UniformError,
)
from bayes_pairwise.pymc_models.direct import (
    constrained_draws,
    direct_logp_grad,
    initial_point,
    pointwise_log_likelihood,
    without_jacobian,
)


def _log(seed: int, *, judges: int = 1, contexts: int = 1, labels: bool = False) -> pd.DataFrame:
    """A small realistic log: both orders, repeats, ties, several judges and contexts, labels."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(contexts):
        n = 5 if contexts > 1 else 7
        s = rng.normal(0.0, 1.5, n)
        for i in range(n):
            for j in range(i + 1, n):
                for judge in range(judges):
                    for f, sc in ((i, j), (j, i)) * int(rng.integers(1, 3)):
                        u = rng.random()
                        p = 1.0 / (1.0 + np.exp(-(s[f] - s[sc])))
                        out = "tie" if u < 0.15 else ("first" if rng.random() < p else "second")
                        gold = (f"c{c}i{i}" if s[i] > s[j] else f"c{c}i{j}") if labels else None
                        if labels and rng.random() < 0.5:
                            gold = None
                        rows.append((f"c{c}i{f}", f"c{c}i{sc}", out, f"J{judge}", f"q{c}", gold))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "judge", "q", "gold"])


def _data(seed: int, *, ties: str, judges: int = 1, contexts: int = 1, labels: bool = False):
    df = _log(seed, judges=judges, contexts=contexts, labels=labels)
    return load_comparisons(
        df,
        judge="judge" if judges > 1 else None,
        context="q" if contexts > 1 else None,
        truth="gold" if labels else None,
        ties=ties,
    )


VARIANTS = [
    # (class, model kwargs, data kwargs)
    (UniformError, {}, {"ties": "drop"}),
    (PositionalBias, {}, {"ties": "drop"}),
    (UniformError, {}, {"ties": "model"}),
    (PositionalBias, {"tie_positional": True}, {"ties": "model"}),
    (PositionalBias, {"tie_closeness": True}, {"ties": "model", "judges": 2}),
    (UniformError, {"tie_positional": True, "tie_closeness": True}, {"ties": "model"}),
    (PositionalBias, {}, {"ties": "model", "contexts": 3, "judges": 2}),
    (UniformError, {}, {"ties": "drop", "contexts": 3}),
    (PositionalBias, {"tie_closeness": True}, {"ties": "model", "labels": True}),
    (UniformError, {}, {"ties": "drop", "labels": True, "judges": 2}),
    (HierarchicalUniformError, {}, {"ties": "drop", "judges": 3}),
    (HierarchicalPositionalBias, {}, {"ties": "drop", "judges": 3}),
    (HierarchicalPositionalBias, {"tie_positional": True}, {"ties": "model", "judges": 2}),
    (HierarchicalUniformError, {"tie_closeness": True}, {"ties": "model", "contexts": 3}),
    (HierarchicalPositionalBias, {}, {"ties": "model", "labels": True, "judges": 2}),
    (PositionalDifficulty, {}, {"ties": "drop", "labels": True}),
    (PositionalDifficulty, {"tie_positional": True}, {"ties": "model", "judges": 2}),
    (UniformDifficulty, {"tie_closeness": True}, {"ties": "model", "labels": True}),
    (UniformDifficulty, {}, {"ties": "drop", "contexts": 3, "judges": 2}),
]


def _point(model, x: np.ndarray) -> dict[str, np.ndarray]:
    start = model.initial_point()
    out, o = {}, 0
    for v in model.value_vars:
        shape = start[v.name].shape
        size = int(np.prod(shape))
        out[v.name] = x[o : o + size].reshape(shape)
        o += size
    assert o == x.size
    return out


#: Half the variants compare with the PyMC graph in the default suite (every class, ties dropped
#: and modelled, positional ties, closeness, contexts, judges, labels); the others, each a cold C
#: compilation of its graph, run with ``pytest -m slow``.
_SLOW_VARIANTS = {2, 4, 7, 9, 11, 12, 13, 16, 18}


@pytest.mark.parametrize(
    ("cls", "kw", "dkw"),
    [
        pytest.param(*v, marks=pytest.mark.slow) if k in _SLOW_VARIANTS else v
        for k, v in enumerate(VARIANTS)
    ],
)
def test_logp_gradient_and_variables_equal_the_pymc_model(cls, kw, dkw) -> None:
    m = cls(**kw)
    data = _data(3, **dkw)
    model = m.build_model(data)
    spec, why = m.written_out_density(data)
    assert spec is not None, why
    assert list(spec.names) == [v.name for v in model.value_vars]
    start = model.initial_point()
    assert [tuple(start[n].shape) for n in spec.names] == list(spec.shapes)
    names = [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]
    # one compiled function for every quantity compared (C compilation is most of the test's time)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reported = model.replace_rvs_by_values([model[n] for n in names])
        outs = [
            model.logp(),
            model.dlogp(),
            model.logp(jacobian=False),
            model.dlogp(jacobian=False),
            # per-row log-likelihood: the observed variable's pointwise logp
            model.logp(vars=[model["wins"]], sum=False)[0],
            *reported,
        ]
        fn = model.compile_fn(outs, inputs=model.value_vars, point_fn=False, mode="FAST_COMPILE")
    rng = np.random.default_rng(7)
    xs = rng.normal(0.0, 0.8, (3, spec.n_dim))
    rows = np.empty(spec.i.shape)
    all_rows, wants = [], []
    for x in xs:
        lp, grad = direct_logp_grad(spec, x, rows=rows)
        all_rows.append(rows.copy())
        logp, dlogp, logp_nojac, dlogp_nojac, wins, *want = fn(**_point(model, x))
        wants.append(want)
        # PyMC's HalfNormal constant is rounded to float32 (3e-8 per HalfNormal variable)
        np.testing.assert_allclose(lp, logp, rtol=1e-10, atol=1e-6)
        np.testing.assert_allclose(grad, dlogp, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(rows, wins, rtol=1e-10, atol=1e-12)
        # without the transforms' Jacobians: MAP's objective, model.logp(jacobian=False)
        lp0, grad0 = direct_logp_grad(without_jacobian(spec), x)
        np.testing.assert_allclose(lp0, logp_nojac, rtol=1e-10, atol=1e-6)
        np.testing.assert_allclose(grad0, dlogp_nojac, rtol=1e-9, atol=1e-10)
    # the reported variables from unconstrained draws, shaped (chain=1, draw=3, ...)
    offsets = np.cumsum((0, *spec.sizes))
    values = {
        n: xs[:, a:b].reshape(1, len(xs), *shape)
        for n, a, b, shape in zip(spec.names, offsets[:-1], offsets[1:], spec.shapes, strict=True)
    }
    got = constrained_draws(spec, values, chunk=2)
    assert sorted(got) == sorted(names)
    for k, want in enumerate(wants):
        for name, w in zip(names, want, strict=True):
            np.testing.assert_allclose(got[name][0, k], w, rtol=1e-10, atol=1e-12, err_msg=name)
    # the pointwise log-likelihood from the reported variables (any fit method) = the rows
    np.testing.assert_allclose(
        pointwise_log_likelihood(spec, got, chunk=2)[0], np.array(all_rows), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("cls", [PositionalBias, HierarchicalPositionalBias, PositionalDifficulty])
def test_gradient_against_finite_differences_at_a_wide_point(cls) -> None:
    m = cls(tie_positional=True, tie_closeness=True)
    data = _data(5, ties="model", judges=2)
    spec, _ = m.written_out_density(data)
    x = np.random.default_rng(1).normal(0.0, 2.0, spec.n_dim)
    _, grad = direct_logp_grad(spec, x)
    h = 1e-6
    fd = np.array(
        [
            (direct_logp_grad(spec, x + h * e)[0] - direct_logp_grad(spec, x - h * e)[0]) / (2 * h)
            for e in np.eye(spec.n_dim)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-5)


def test_initial_point_is_pymc_style_and_seeded() -> None:
    m = UniformError()
    data = _data(2, ties="model", judges=2)
    spec, _ = m.written_out_density(data)
    a, b, c = initial_point(spec, 1), initial_point(spec, 1), initial_point(spec, 2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # support point: log sigma_s = log 10, z = 0, eps mid-interval, tie logits at mu = 0
    base = np.zeros(spec.n_dim)
    base[0] = np.log(10.0)
    assert np.all(np.abs(a - base) <= 1.0)
    assert np.isfinite(direct_logp_grad(spec, a)[0])


@pytest.mark.parametrize(
    ("cls", "kw", "dkw"), [VARIANTS[2], VARIANTS[3], VARIANTS[12], VARIANTS[13], *VARIANTS[-3:]]
)
def test_unjittered_start_is_the_pymc_models_initial_point(cls, kw, dkw) -> None:
    m = cls(**kw)
    data = _data(2, **dkw)
    spec, _ = m.written_out_density(data)
    start = m.build_model(data).initial_point()
    want = np.concatenate([np.ravel(start[n]) for n in spec.names])
    np.testing.assert_allclose(initial_point(spec, 0, jitter=False), want, atol=1e-12)


@pytest.mark.parametrize(
    ("cls", "kw", "reason"),
    [
        (
            HierarchicalPositionalBias,
            {"priors": {"eps_mu": {"dist": "Logistic", "mu": -1.0, "s": 1.0}}},
            "eps_mu",
        ),
        (
            HierarchicalUniformError,
            {"priors": {"eps_sigma": {"dist": "Exponential", "lam": 1.0}}},
            "eps_sigma",
        ),
        (
            PositionalDifficulty,
            {"priors": {"hard_share": {"dist": "Beta", "alpha": 1.0, "beta": 4.0}}},
            "hard_share",
        ),
        (UniformError, {"priors": {"eps": {"dist": "Beta", "alpha": 2.0, "beta": 5.0}}}, "eps"),
        (UniformError, {"priors": {"sigma_s": {"dist": "Exponential", "lam": 0.1}}}, "sigma_s"),
    ],
)
def test_unsupported_variants_fall_back_and_say_why(cls, kw, reason) -> None:
    m = cls(**kw)
    data = _data(1, ties="drop")
    spec, why = m.written_out_density(data)
    assert spec is None and reason in why


def test_fit_records_how_the_log_density_was_evaluated(mock_sampler) -> None:
    data = _data(1, ties="drop")
    m = UniformError(draws=20, tune=10, chains=2, nuts_sampler="nutpie").fit(data, random_seed=0)
    assert m.settings_["log_density"] == "written out"
    assert mock_sampler[-1]["direct"] is not None
    m = UniformError(
        draws=20,
        tune=10,
        chains=2,
        nuts_sampler="nutpie",
        priors={"sigma_s": {"dist": "Exponential", "lam": 0.1}},
    ).fit(data, random_seed=0)
    assert m.settings_["log_density"].startswith("graph (sigma_s prior Exponential")
    assert mock_sampler[-1]["direct"] is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cls", "kw", "dkw", "names"),
    [
        (
            PositionalBias,
            {"tie_positional": True, "tie_closeness": True},
            {"ties": "model", "judges": 2},
            ("eps_plus", "eps_minus", "tie_rate_plus", "tie_rate_minus", "tie_rate"),
        ),
        (
            HierarchicalPositionalBias,
            {},
            {"ties": "model", "judges": 3},
            ("eps_plus", "eps_minus", "eps_pop_plus", "eps_pop_minus", "eps_sigma", "tie_rate"),
        ),
        (
            PositionalDifficulty,
            {},
            {"ties": "model", "labels": True},
            ("eps_plus", "eps_minus", "eps_hard", "hard_share", "tie_rate"),
        ),
    ],
)
def test_nuts_on_the_written_out_density_matches_nuts_on_the_graph(
    monkeypatch, cls, kw, dkw, names
) -> None:
    """End to end through nutpie: the same posterior of the reported rates from both forms
    (within Monte Carlo error), for the most involved variants (ties per position, closeness,
    two judges; hierarchical judges)."""
    import arviz as az

    data = _data(4, **dkw)
    kw = dict(kw, draws=600, tune=600, chains=2)
    written = cls(**kw).fit(data, random_seed=3)
    assert written.settings_["log_density"] == "written out"
    monkeypatch.setattr(cls, "_direct", lambda self, *a: (None, "test: graph"))
    graph = cls(**kw).fit(data, random_seed=3)
    assert graph.settings_["log_density"] == "graph (test: graph)"
    for name in names:
        a = written.idata_.posterior[name]
        b = graph.idata_.posterior[name]
        se = np.hypot(az.mcse(a).to_array().values, az.mcse(b).to_array().values).ravel()
        diff = np.abs(a.mean(("chain", "draw")).values - b.mean(("chain", "draw")).values)
        assert np.all(diff < 5 * se + 1e-3), (name, diff, se)
    # the stored pointwise log-likelihood: same rows, same dims
    la, lb = written.idata_.log_likelihood["wins"], graph.idata_.log_likelihood["wins"]
    assert la.dims == lb.dims and la.shape == lb.shape


@pytest.mark.parametrize(
    ("cls", "kw", "dkw"),
    [
        # 36 s with every cache empty (the default run's slowest test after a1c2364): the
        # default run still takes the Laplace path on the written-out density (test_cli's
        # --fast fits); its equality with the graph's runs with the slow tests
        pytest.param(UniformError, {}, {"ties": "drop", "judges": 2}, marks=pytest.mark.slow),
        # 64 s with every cache empty (the default run's slowest test): with the slow ones
        pytest.param(
            PositionalBias,
            {"tie_positional": True},
            {"ties": "model", "contexts": 3},
            marks=pytest.mark.slow,
        ),
        pytest.param(
            HierarchicalPositionalBias, {}, {"ties": "drop", "judges": 3}, marks=pytest.mark.slow
        ),
        pytest.param(
            UniformDifficulty, {}, {"ties": "model", "labels": True}, marks=pytest.mark.slow
        ),
    ],
)
def test_laplace_on_the_written_out_density_is_the_graphs(cls, kw, dkw) -> None:
    from bayes_pairwise.pymc_models.direct import laplace
    from bayes_pairwise.pymc_models.laplace import laplace_approximation

    m = cls(**kw)
    data = _data(6, **dkw)
    model = m.build_model(data)
    spec, _ = m.written_out_density(data)
    names = [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = laplace_approximation(model, names, random_seed=2, draws=400)
    written = laplace(spec, names, random_seed=2, draws=400)
    # PyMC rounds a HalfNormal constant to float32: 3e-8 per HalfNormal variable
    assert written.mode_logp == pytest.approx(graph.mode_logp, abs=1e-5)
    assert written.n_parameters == graph.n_parameters
    for name in names:
        a, b = written.values[name], graph.values[name]
        assert a.shape == b.shape, name
        np.testing.assert_allclose(a.mean(0), b.mean(0), atol=0.02 * b.std(0).max() + 1e-6)
        np.testing.assert_allclose(a.std(0), b.std(0), rtol=0.05, atol=1e-6)


@pytest.mark.parametrize(
    ("cls", "kw", "dkw"),
    [
        # 40 s with every cache empty (its own graph compile): with the slow ones; the default
        # run keeps the uniform case, and the positional density's value and gradient are
        # checked against the graph by test_logp_gradient_and_variables_equal_the_pymc_model
        pytest.param(
            PositionalBias,
            {"tie_positional": True},
            {"ties": "model", "judges": 2},
            marks=pytest.mark.slow,
        ),
        (UniformError, {}, {"ties": "drop", "contexts": 3}),
        pytest.param(
            HierarchicalUniformError, {}, {"ties": "drop", "judges": 3}, marks=pytest.mark.slow
        ),
        pytest.param(
            PositionalDifficulty,
            {"allow_mode": True},
            {"ties": "model", "labels": True},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_map_on_the_written_out_density_is_the_graphs(monkeypatch, cls, kw, dkw) -> None:
    """MAP maximises the constrained density (no Jacobians) from the support point: the same
    objective and optimiser on both forms, so the same mode; nothing compiled when written out."""
    data = _data(8, **dkw)
    written = cls(**kw).fit(data, method="map", random_seed=4)
    assert written.settings_["log_density"] == "written out"
    monkeypatch.setattr(cls, "_direct", lambda self, *a: (None, "test: graph"))
    graph = cls(**kw).fit(data, method="map", random_seed=4)
    assert graph.settings_["log_density"] == "graph (test: graph)"
    a, b = written.idata_, graph.idata_
    lp_a, lp_b = a.sample_stats["lp"].values.item(), b.sample_stats["lp"].values.item()
    assert lp_a == pytest.approx(lp_b, abs=1e-5)
    for name in b.posterior.data_vars:
        np.testing.assert_allclose(
            a.posterior[name].values, b.posterior[name].values, rtol=2e-3, atol=2e-4,
            err_msg=name,
        )  # fmt: skip
    np.testing.assert_allclose(
        a.log_likelihood["wins"].values, b.log_likelihood["wins"].values, rtol=1e-3, atol=1e-4
    )
