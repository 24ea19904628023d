"""PyMC models: hand-computed likelihoods, gradients, mocked-sampler fits, MAP, I/O, priors,
design warnings. Real NUTS runs live in ``test_recovery_slow.py`` (marked slow) except one small
seed-reproducibility check."""

from __future__ import annotations

import json
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytest
from scipy.special import expit
from scipy.stats import binom, spearmanr

import bayes_pairwise as bp
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DesignError, DesignWarning, NotFittedError, PriorError
from bayes_pairwise.features import self_preference
from bayes_pairwise.matrices import pair_counts
from bayes_pairwise.pymc_models import (
    BiasedBradleyTerry,
    ModelFileError,
    PositionalBias,
    UniformError,
    available_models,
    diagnose,
    fit_summary_dict,
    get_model,
    load_model,
)
from bayes_pairwise.pymc_models.base import _frozen

S_TINY = np.array([0.8, -0.3, -0.5])


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def tiny(tiny_frame):
    return load_comparisons(tiny_frame)


@pytest.fixture(scope="module")
def rr():
    """Round-robin, 8 items, both orders once."""
    return bp.simulate_round_robin(8, eps=0.15, random_seed=3)


@pytest.fixture(scope="module")
def two_judges_contexts():
    """Two judges × two contexts of four items, both orders."""
    frames = []
    for seed, judge in ((1, "A"), (2, "B")):
        f = bp.simulate_round_robin(4, eps=0.2, n_contexts=2, random_seed=seed).frame.copy()
        f["judge"] = judge
        frames.append(f)
    return load_comparisons(pd.concat(frames, ignore_index=True), judge="judge", context="context")


@pytest.fixture(scope="module")
def bt_sim():
    return bp.simulate_biased_bt(
        12, 3000, gamma=0.6, covariate_effects={"length": 0.5}, random_seed=4
    )


def _hand_marginal(pc, s, ep, em):
    d = s[pc.i] - s[pc.j]
    kp, km, n1, n2 = pc.k_plus, pc.k_minus, pc.n1, pc.n2
    a = binom.pmf(n1, kp, 1 - ep) * binom.pmf(n2, km, 1 - em)
    b = binom.pmf(n1, kp, em) * binom.pmf(n2, km, ep)
    return np.log(expit(d) * a + expit(-d) * b)


def _obs_logp(model, name, values):
    rv = model[name]
    return pm.logp(rv, model.rvs_to_values[rv]).eval({model[k]: v for k, v in values.items()})


# --------------------------------------------------------------------------- likelihoods
class TestHandComputedLogp:
    def test_uniform_marginal(self, tiny):
        pc = pair_counts(tiny)
        model = UniformError().build_model(tiny)
        got = _obs_logp(model, "wins", {"strength": S_TINY, "eps": np.array([0.2])})
        np.testing.assert_allclose(got, _hand_marginal(pc, S_TINY, 0.2, 0.2), rtol=1e-10)
        # first pair by hand, term by term: a–b, k+=2 (a won both), k-=1 (b won)
        d = 0.8 - (-0.3)
        by_hand = np.log(
            expit(d) * binom.pmf(2, 2, 0.8) * binom.pmf(0, 1, 0.8)
            + expit(-d) * binom.pmf(2, 2, 0.2) * binom.pmf(0, 1, 0.2)
        )
        assert got[0] == pytest.approx(by_hand, rel=1e-12)

    def test_positional_marginal(self, tiny):
        pc = pair_counts(tiny)
        model = PositionalBias().build_model(tiny)
        simplex = np.array([[0.25, 0.10, 0.65]])
        got = _obs_logp(model, "wins", {"strength": S_TINY, "eps_simplex": simplex})
        np.testing.assert_allclose(got, _hand_marginal(pc, S_TINY, 0.25, 0.10), rtol=1e-10)

    def test_per_judge_rates(self, two_judges_contexts):
        data = two_judges_contexts
        pc = pair_counts(data)
        model = PositionalBias().build_model(data)
        s = np.linspace(-1, 1, data.n_items)
        simplex = np.array([[0.3, 0.1, 0.6], [0.05, 0.2, 0.75]])
        got = _obs_logp(model, "wins", {"strength": s, "eps_simplex": simplex})
        ep, em = simplex[pc.judge, 0], simplex[pc.judge, 1]
        np.testing.assert_allclose(got, _hand_marginal(pc, s, ep, em), rtol=1e-10)

    def test_marginal_extreme_values_are_finite(self):
        from bayes_pairwise.pymc_models.fused import pair_logp_fused

        val = np.array([[40, 0], [0, 40], [20, 20]])
        k = np.array([[40, 40]] * 3)
        d = np.array([30.0, -30.0, 0.0])
        got = pair_logp_fused(val, d, np.array([0.01]), np.array([0.4]), np.zeros(3, int), k).eval()
        assert np.isfinite(got).all()

    def test_biased_bt(self, bt_sim):
        data = bt_sim.data
        model = BiasedBradleyTerry().build_model(data)
        s = np.linspace(-1, 1, data.n_items)
        x = np.asarray(data.covariates["length"])
        scale = x.std()
        got = _obs_logp(
            model, "first_wins", {"strength": s, "gamma": np.array([0.6]), "w": np.array([0.5])}
        )
        eta = s[data.first] - s[data.second] + 0.6 + 0.5 * x / scale
        y = data.outcome
        np.testing.assert_allclose(got, y * np.log(expit(eta)) + (1 - y) * np.log(expit(-eta)))

    def test_biased_bt_half_ties(self):
        df = pd.DataFrame(
            {
                "first": ["a", "b", "a"],
                "second": ["b", "a", "b"],
                "outcome": ["first", "tie", "second"],
            }
        )
        data = load_comparisons(df, ties="half")
        model = BiasedBradleyTerry().build_model(data)
        got = _obs_logp(model, "first_wins", {"strength": np.array([0.4, -0.4]), "gamma": [0.2]})
        eta = np.array([0.8 + 0.2, -0.8 + 0.2, 0.8 + 0.2])
        y = np.array([1.0, 0.5, 0.0])
        np.testing.assert_allclose(got, y * np.log(expit(eta)) + (1 - y) * np.log(expit(-eta)))

    def test_observed_logp_at_initial_point(self, tiny):
        model = UniformError().build_model(tiny)
        obs = model.compile_logp(vars=model.observed_RVs, jacobian=False)(model.initial_point())
        # all strengths are 0 and eps = 0.25 there: every pair is a coin flip over T
        pc = pair_counts(tiny)
        assert obs == pytest.approx(_hand_marginal(pc, np.zeros(3), 0.25, 0.25).sum())


@pytest.mark.parametrize("cls", [PositionalBias, UniformError])
def test_gradients_finite_at_initial_point(cls, two_judges_contexts):
    model = _frozen(cls().build_model(two_judges_contexts))
    grad = model.compile_dlogp()(model.initial_point())
    assert np.isfinite(grad).all() and np.abs(grad).sum() > 0


def test_bt_gradient_finite(bt_sim):
    model = _frozen(BiasedBradleyTerry().build_model(bt_sim.data))
    assert np.isfinite(model.compile_dlogp()(model.initial_point())).all()


# --------------------------------------------------------------------------- mocked NUTS
class TestMockedFit:
    def test_dims_coords_error_model(self, mock_sampler, two_judges_contexts):
        data = two_judges_contexts
        m = PositionalBias(draws=30, chains=2).fit(data, random_seed=5)
        post = m.idata_.posterior
        assert post["strength"].dims == ("chain", "draw", "item")
        assert list(post.coords["item"].values) == list(data.items)
        assert list(post.coords["judge"].values) == ["A", "B"]
        assert post["eps_plus"].dims == ("chain", "draw", "judge")
        assert post.sizes == {"chain": 2, "draw": 30, "item": 8, "judge": 2, "rate": 3}
        ll = m.idata_.log_likelihood["wins"]
        assert ll.dims == ("chain", "draw", "pair")
        assert ll.sizes["pair"] == pair_counts(data).n_pairs
        assert str(post.coords["item"].values[0]).startswith("c00::")
        assert set(m.idata_.groups()) >= {
            "posterior",
            "log_likelihood",
            "sample_stats",
            "observed_data",
            "constant_data",
        }
        # strengths sum to zero within each context
        s = post["strength"].values
        ctx = np.asarray(data.item_context)
        for c in range(data.n_contexts):
            np.testing.assert_allclose(s[..., ctx == c].sum(-1), 0, atol=1e-9)
        # the sampler got the spec's settings with the user's overrides
        call = mock_sampler[-1]
        assert (call["draws"], call["chains"], call["tune"]) == (30, 2, 1000)
        assert call["random_seed"] == 5 and call["nuts_sampler"] == "auto"

    def test_results_and_summaries(self, mock_sampler, rr):
        m = UniformError(draws=25, chains=2).fit(rr.data, random_seed=1)
        assert m.method_ == "nuts" and m.random_seed_ == 1
        assert list(m.strengths_.index) == list(rr.data.items)
        assert set(m.ranking_) == set(rr.data.items)
        assert m.strengths_[m.ranking_[0]] == m.strengths_.max()
        summ = m.summary()
        assert summ.index[0] == "eps" and "strength[t000]" in summ.index
        assert "sigma_s" not in summ.index
        out = fit_summary_dict(m)
        json.dumps(out, allow_nan=False)
        assert out["model"] == "uniform" and out["method"] == "nuts"
        assert set(out["parameters"]["eps"]) == {
            "mean",
            "sd",
            "hdi_3%",
            "hdi_97%",
            "r_hat",
            "ess_bulk",
            "ess_tail",
        }
        assert out["diagnostics"]["divergences"] == 0
        assert out["settings"]["priors"]["eps"]["dist"] == "Uniform"
        assert az.loo(m.idata_, pointwise=True).loo_i.shape == (pair_counts(rr.data).n_pairs,)

    def test_posterior_predictive(self, mock_sampler, rr):
        m = UniformError(draws=20, chains=2).fit(rr.data, random_seed=2)
        m.sample_posterior_predictive(random_seed=3)
        pp = m.idata_.posterior_predictive["wins"]
        assert pp.dims == ("chain", "draw", "pair", "count")
        assert list(pp.coords["count"].values) == ["n1", "n2"]
        k = np.asarray(m.idata_.constant_data["k"])
        assert (pp.values >= 0).all() and (pp.values <= k).all()
        again = m.idata_.posterior_predictive["wins"].values.copy()
        m.sample_posterior_predictive(random_seed=3)
        np.testing.assert_array_equal(again, m.idata_.posterior_predictive["wins"].values)

    def test_biased_bt_dims(self, mock_sampler):
        sim = bp.simulate_biased_bt(
            6, 300, n_judges=2, covariate_effects={"length": 0.3, "bold": 0.1}, random_seed=0
        )
        m = BiasedBradleyTerry(draws=10, chains=2).fit(sim.data, random_seed=0)
        post = m.idata_.posterior
        assert post["gamma"].dims == ("chain", "draw", "judge")
        assert list(post.coords["covariate"].values) == ["length", "bold"]
        assert post["w"].dims == ("chain", "draw", "covariate")
        assert m.idata_.log_likelihood["first_wins"].dims == ("chain", "draw", "verdict")
        assert m.covariates_ == ("length", "bold")
        np.testing.assert_allclose(
            m.covariate_scales_.to_numpy(),
            [np.std(sim.data.covariates["length"]), np.std(sim.data.covariates["bold"])],
        )
        summ = m.summary(strengths=False)
        assert list(summ.index) == ["gamma[j0]", "gamma[j1]", "w[length]", "w[bold]"]

    def test_map_has_same_structure_as_nuts(self, mock_sampler, two_judges_contexts):
        data = two_judges_contexts
        nuts = PositionalBias(draws=5, chains=2).fit(data, random_seed=0).idata_
        point = PositionalBias().fit(data, method="map", random_seed=0).idata_
        assert set(point.posterior.data_vars) == set(nuts.posterior.data_vars)
        for v in nuts.posterior.data_vars:
            assert point.posterior[v].dims == nuts.posterior[v].dims
        for dim, coord in nuts.posterior.coords.items():
            if dim not in ("chain", "draw"):
                assert list(point.posterior.coords[dim].values) == list(coord.values)
        assert point.posterior.sizes["chain"] == point.posterior.sizes["draw"] == 1
        assert point.log_likelihood["wins"].dims == nuts.log_likelihood["wins"].dims


# --------------------------------------------------------------------------- MAP near truth
def test_map_uniform_near_truth():
    sim = bp.simulate_round_robin(20, eps=0.15, repeats=2, random_seed=11)
    m = UniformError().fit(sim.data, method="map", random_seed=0)
    assert float(m.idata_.posterior["eps"].mean()) == pytest.approx(sim.realised_eps, abs=0.04)
    rho = spearmanr(m.strengths_, sim.true_strengths.reindex(m.strengths_.index)).statistic
    assert rho > 0.9


def test_map_positional_near_truth():
    sim = bp.simulate_round_robin(20, eps_plus=0.25, eps_minus=0.1, repeats=2, random_seed=12)
    m = PositionalBias().fit(sim.data, method="map", random_seed=0)
    post = m.idata_.posterior
    assert float(post["eps_plus"].mean()) == pytest.approx(sim.realised_eps_plus, abs=0.05)
    assert float(post["eps_minus"].mean()) == pytest.approx(sim.realised_eps_minus, abs=0.05)


def test_map_biased_bt_near_truth(bt_sim):
    m = BiasedBradleyTerry().fit(bt_sim.data, method="map", random_seed=0)
    post = m.idata_.posterior
    assert float(post["gamma"].mean()) == pytest.approx(0.6, abs=0.15)
    assert float(post["w_per_unit"].mean()) == pytest.approx(0.5, abs=0.12)
    truth = bt_sim.true_strengths.reindex(m.strengths_.index)
    assert spearmanr(m.strengths_, truth).statistic > 0.95


# --------------------------------------------------------------------------- I/O
@pytest.fixture(scope="module")
def saved_fits(tmp_path_factory, rr, bt_sim):
    out = {}
    folder = tmp_path_factory.mktemp("fits")
    for cls, data in (
        (UniformError, rr.data),
        (PositionalBias, rr.data),
        (BiasedBradleyTerry, bt_sim.data),
    ):
        m = cls().fit(data, method="map", random_seed=1)
        m.sample_posterior_predictive(random_seed=2, point_draws=50)
        path = folder / f"{cls.__name__}.nc"
        m.save(path)
        out[cls] = (m, path)
    return out


@pytest.mark.parametrize("cls", [UniformError, PositionalBias, BiasedBradleyTerry])
def test_netcdf_round_trip_lossless(saved_fits, cls):
    m, path = saved_fits[cls]
    loaded = load_model(path, expected=cls)
    assert type(loaded) is cls
    assert set(loaded.idata_.groups()) == set(m.idata_.groups())
    for group in m.idata_.groups():
        assert getattr(loaded.idata_, group).identical(getattr(m.idata_, group)), group
    assert loaded.settings_ == m.settings_
    assert loaded.get_params() == m.get_params()
    assert loaded.method_ == "map" and loaded.random_seed_ == 1
    pd.testing.assert_series_equal(loaded.strengths_, m.strengths_)
    assert loaded.ranking_ == m.ranking_
    assert loaded.settings_["data"]["n_comparisons"] == m.n_comparisons_
    # the rebuilt PyMC model gives the same log-likelihood at the stored point
    again = pm.compute_log_likelihood(
        az.InferenceData(posterior=m.idata_.posterior),
        model=loaded.model_,
        extend_inferencedata=False,
        progressbar=False,
    )
    name = cls.observed_name
    np.testing.assert_allclose(again[name].values, m.idata_.log_likelihood[name].values)


def test_load_other_class_is_a_clear_error(saved_fits):
    _, path = saved_fits[PositionalBias]
    with pytest.raises(ModelFileError, match="holds a PositionalBias fit"):
        load_model(path, expected=UniformError)
    assert type(load_model(path)) is PositionalBias


def test_load_foreign_file(tmp_path):
    path = tmp_path / "plain.nc"
    az.from_dict(posterior={"x": np.zeros((1, 5))}).to_netcdf(str(path))
    with pytest.raises(ModelFileError, match="not a saved bayes_pairwise model"):
        load_model(path)


# --------------------------------------------------------------------------- settings & priors
class TestSettings:
    def test_init_stores_settings_unchanged(self):
        priors = {"eps": {"dist": "Beta", "alpha": 2, "beta": 8}}
        m = UniformError(priors=priors, draws=123, nuts_sampler="pymc")
        assert m.priors is priors
        assert m.get_params()["draws"] == 123 and m.get_params()["tune"] is None
        # no validation in __init__: bad values only fail at fit
        bad = UniformError(priors={"nope": {}}, draws=-1)
        assert bad.get_params()["draws"] == -1

    def test_not_fitted(self):
        m = UniformError()
        for attr in ("idata_", "strengths_", "ranking_", "model_"):
            with pytest.raises(NotFittedError):
                getattr(m, attr)
        with pytest.raises(NotFittedError):
            m.summary()
        with pytest.raises(NotFittedError):
            m.save("x.nc")
        assert not hasattr(m, "idata_")

    def test_prior_override_changes_model(self, tiny):
        model = UniformError(priors={"sigma_s": {"sigma": 2.0}}).build_model(tiny)
        lp = pm.logp(model["sigma_s"], 1.3).eval()
        assert lp == pytest.approx(pm.logp(pm.HalfNormal.dist(sigma=2.0), 1.3).eval())
        beta = UniformError(priors={"eps": {"dist": "Beta", "alpha": 2, "beta": 8}})
        model = beta.build_model(tiny)
        assert "eps_unit" in [v.name for v in model.free_RVs]
        assert beta.resolved_priors()["eps"] == {"dist": "Beta", "alpha": 2, "beta": 8}
        dirichlet = PositionalBias(priors={"eps": {"a": [2.0, 2.0, 6.0]}}).resolved_priors()
        assert dirichlet["eps"] == {"dist": "Dirichlet", "a": [2.0, 2.0, 6.0]}

    @pytest.mark.parametrize(
        ("cls", "priors", "match"),
        [
            (UniformError, {"epsilon": {"dist": "Uniform"}}, "unknown prior name"),
            (UniformError, {"eps": {"dist": "Normal", "mu": 0, "sigma": 1}}, "cannot take"),
            (UniformError, {"eps": {"upper": 0.7}}, "0 <= lower < upper <= 0.5"),
            (UniformError, {"sigma_s": {"sigma": -1.0}}, "must be positive"),
            (UniformError, {"sigma_s": {"scale": 1.0}}, "unknown parameter"),
            (PositionalBias, {"eps": {"a": [1.0, 1.0]}}, "three numbers"),
            (BiasedBradleyTerry, {"gamma": {"dist": "HalfNormal", "sigma": 1.0}}, "cannot take"),
            (BiasedBradleyTerry, {"eps": {"dist": "Normal"}}, "unknown prior name"),
        ],
    )
    def test_bad_priors_rejected_before_sampling(self, mock_sampler, rr, cls, priors, match):
        with pytest.raises(PriorError, match=match):
            cls(priors=priors).fit(rr.data)
        assert mock_sampler == []

    def test_bad_sampler_settings(self, mock_sampler, rr):
        with pytest.raises(PriorError, match="draws must be at least 1"):
            UniformError(draws=0).fit(rr.data)
        with pytest.raises(PriorError, match="nuts_sampler"):
            UniformError(nuts_sampler="stan").fit(rr.data)
        with pytest.raises(ValueError, match="method"):
            UniformError().fit(rr.data, method="vi")

    def test_get_model_registry(self):
        assert set(available_models()) == {
            "uniform",
            "positional",
            "biased_bt",
            "uniform_hierarchical",
            "positional_hierarchical",
            "positional_difficulty",
            "uniform_difficulty",
            "noisy_plackett_luce",
            "uniform_order",
            "positional_order",
        }
        m = get_model("positional", chains=2)
        assert isinstance(m, PositionalBias) and m.resolved_likelihood() == "marginal"
        assert m.name == "positional" and m.resolved_sampler()["chains"] == 2
        assert get_model("biased_bt").resolved_priors()["gamma"]["sigma"] == 1.5
        with pytest.raises(PriorError, match="unknown model"):  # the biased per-verdict variant
            get_model("uniform_independent")
        with pytest.raises(PriorError, match="no likelihood"):
            UniformError(likelihood="independent").resolved_likelihood()
        with pytest.raises(PriorError, match="unknown model"):
            get_model("nonsense")
        with pytest.raises(PriorError, match="is for PositionalBias"):
            UniformError(spec="positional").get_spec()

    def test_set_params(self):
        m = UniformError().set_params(draws=10)
        assert m.draws == 10
        with pytest.raises(ValueError, match="unknown setting"):
            m.set_params(foo=1)


# --------------------------------------------------------------------------- design
class TestDesign:
    @pytest.mark.slow
    def test_ties_half_are_modelled_and_drop_fits_without_ties(self):
        """New contract (METHODS §7.5): ties counted half are an outcome of the error models;
        data loaded with ties='drop' get the tie-free model."""
        df = pd.DataFrame(
            {
                "first": ["a", "b", "a", "b"],
                "second": ["b", "a", "b", "a"],
                "outcome": ["first", "tie", "second", "first"],
            }
        )
        half = load_comparisons(df, ties="half")
        dropped = load_comparisons(df, ties="drop")
        for cls in (UniformError, PositionalBias):
            m = cls().fit(half, method="map", random_seed=0)
            assert list(m.model_.coords["count"]) == ["n1", "n2", "t1", "t2"]
            assert np.asarray(m.idata_.observed_data["wins"]).tolist() == [[1, 0, 0, 1]]
            assert "tie_rate" in m.idata_.posterior
            m = cls().fit(dropped, method="map", random_seed=0)
            assert list(m.model_.coords["count"]) == ["n1", "n2"]
            assert np.asarray(m.idata_.observed_data["wins"]).tolist() == [[1, 0]]
            assert "tie_rate" not in m.idata_.posterior
            assert m.settings_["data"]["n_ties_dropped"] == 1
            with pytest.raises(DesignError, match="dropped when loading"):
                cls(ties="model").fit(dropped, method="map")

    def test_no_pair_in_both_orders(self, mock_sampler):
        sim = bp.simulate_round_robin(6, eps=0.2, k_plus=2, k_minus=0, random_seed=0)
        with pytest.warns(DesignWarning, match="eps_plus / eps_minus are not separable"):
            PositionalBias(draws=5, chains=1).fit(sim.data, random_seed=0)
        # repeats in one order still identify the uniform eps: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", DesignWarning)
            UniformError(draws=5, chains=1).fit(sim.data, random_seed=0)
        once = bp.simulate_round_robin(6, eps=0.2, k_plus=1, k_minus=0, random_seed=0)
        with pytest.warns(DesignWarning, match="eps is not separable"):
            m = UniformError(draws=5, chains=1).fit(once.data, random_seed=0)
        assert m.design_warnings_ and m.settings_["design_warnings"] == m.design_warnings_

    def test_position_confounded_with_items(self, mock_sampler):
        # a and b are always shown first, c and d always second
        rows = [(f, s) for f in "ab" for s in "cd"] * 5
        df = pd.DataFrame({"first": [r[0] for r in rows], "second": [r[1] for r in rows]})
        df["outcome"] = np.where(np.arange(len(df)) % 3 == 0, "second", "first")
        data = load_comparisons(df)
        with pytest.warns(DesignWarning, match="presentation order is confounded"):
            BiasedBradleyTerry(draws=5, chains=1).fit(data, random_seed=0)

    def test_fixed_item_property_covariate(self, mock_sampler, bt_sim):
        data = bt_sim.data
        quality = bt_sim.true_strengths.reindex(list(data.items)).to_numpy()
        length = 100 + 50 * quality  # length correlates with quality: a fixed item property
        x = length[data.first] - length[data.second]
        with pytest.warns(DesignWarning, match="'length_item' is a fixed item property"):
            BiasedBradleyTerry(draws=5, chains=1).fit(
                data.with_covariates({"length_item": x}), random_seed=0
            )
        # the simulator's per-verdict covariate is not: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", DesignWarning)
            BiasedBradleyTerry(draws=5, chains=1).fit(data, random_seed=0)

    @pytest.mark.slow  # the first biased BT graph of its worker, compiled cold: 20 s
    def test_self_preference_single_vs_several_judges(self, mock_sampler):
        sim = bp.simulate_biased_bt(6, 600, n_judges=2, random_seed=1)
        fam = {it: ("openai" if k % 2 else "anthropic") for k, it in enumerate(sim.data.items)}
        one = sim.data.for_judge("j0")
        x1 = self_preference(one, fam, "openai")
        with pytest.warns(DesignWarning, match="fixed item property with a single judge"):
            BiasedBradleyTerry(draws=5, chains=1).fit(
                one.with_covariates({"self_pref": x1}), random_seed=0
            )
        x2 = self_preference(sim.data, fam, {"j0": "openai", "j1": "anthropic"})
        with warnings.catch_warnings():
            warnings.simplefilter("error", DesignWarning)
            BiasedBradleyTerry(draws=5, chains=1).fit(
                sim.data.with_covariates({"self_pref": x2}), random_seed=0
            )

    def test_constant_covariate_is_an_error(self, bt_sim):
        data = bt_sim.data.with_covariates({"const": np.ones(bt_sim.data.n_comparisons)})
        with pytest.raises(DesignError, match="single value"):
            BiasedBradleyTerry(covariates=["const"]).fit(data, method="map")
        with pytest.raises(DesignError, match="not in the data"):
            BiasedBradleyTerry(covariates=["nope"]).fit(data, method="map")


def test_diagnose_runs_on_mocked_fit(mock_sampler, rr):
    m = UniformError(draws=30, chains=2).fit(rr.data, random_seed=0)
    d = diagnose(m, random_seed=1, n_draws_curve=3, n_subsets=10)
    assert {"eps", "sigma_s"} <= set(d.table.index)
    assert set(d.ppc["statistic"]) == {"first_position_rate", "s_com", "delta_s_area"}
    assert "posterior_predictive" in m.idata_.groups()


# --------------------------------------------------------------------------- real sampling
@pytest.mark.slow  # 22 s warm, more on a cold compile cache
@pytest.mark.parametrize("sampler", ["nutpie", "pymc"])
def test_same_seed_same_posterior(sampler):
    if sampler == "nutpie":
        pytest.importorskip("nutpie")
    data = bp.simulate_round_robin(5, eps=0.2, random_seed=0).data
    kw = {"draws": 30, "tune": 30, "chains": 2, "nuts_sampler": sampler}
    a = UniformError(**kw).fit(data, random_seed=7).idata_.posterior
    b = UniformError(**kw).fit(data, random_seed=7).idata_.posterior
    np.testing.assert_array_equal(a["eps"].values, b["eps"].values)
    np.testing.assert_array_equal(a["strength"].values, b["strength"].values)
    if sampler == "pymc":  # the cheap one: also check that another seed gives other draws
        c = UniformError(**kw).fit(data, random_seed=8).idata_.posterior
        assert not np.array_equal(a["eps"].values, c["eps"].values)


class TestMassMatrix:
    """``mass_matrix = "auto"``: low-rank up to LOW_RANK_MAX_DIM unconstrained parameters."""

    def test_auto_is_low_rank_for_a_small_model_and_stored_as_run(self, mock_sampler):
        from bayes_pairwise.simulate import simulate_round_robin

        sim = simulate_round_robin(12, eps=0.1, random_seed=3)
        m = UniformError(draws=10, chains=1, tune=10).fit(sim.data, random_seed=1)
        assert mock_sampler[-1]["mass_matrix"] == "low_rank"  # 12 strengths + sigma_s + eps
        assert m.settings_["sampler"]["mass_matrix"] == "low_rank"

    def test_samplers_other_than_nutpie_are_stored_with_the_diagonal_they_adapt(self, mock_sampler):
        from bayes_pairwise.simulate import simulate_round_robin

        sim = simulate_round_robin(12, eps=0.1, random_seed=3)
        m = UniformError(draws=10, chains=1, tune=10, nuts_sampler="pymc").fit(sim.data)
        assert m.settings_["sampler"]["mass_matrix"] == "diag"

    def test_auto_is_diagonal_above_the_threshold(self, mock_sampler):
        from bayes_pairwise.model_specs import LOW_RANK_MAX_DIM
        from bayes_pairwise.simulate import simulate_round_robin

        # 3 items x 340 contexts: 1,020 strengths, above the threshold of 1,000
        n_ctx = LOW_RANK_MAX_DIM // 3 + 7
        sim = simulate_round_robin(3, eps=0.1, n_contexts=n_ctx, random_seed=3)
        UniformError(draws=2, chains=1, tune=2).fit(sim.data, random_seed=1)
        assert mock_sampler[-1]["mass_matrix"] == "diag"

    def test_bad_value_is_an_error(self):
        from bayes_pairwise.model_specs import check_sampler_settings

        check_sampler_settings("t", {"mass_matrix": "diag"})
        with pytest.raises(PriorError, match="mass_matrix must be one of"):
            check_sampler_settings("t", {"mass_matrix": "dense"})


class TestAutoChains:
    """``chains = "auto"`` (the package default): one chain per core, 2 to 4."""

    def test_resolution_and_what_the_fit_stores(self, mock_sampler, monkeypatch):
        import bayes_pairwise.model_specs as ms
        from bayes_pairwise.simulate import simulate_round_robin

        assert [ms.resolve_chains("auto", cpu_count=c) for c in (1, 2, 3, 8)] == [2, 2, 3, 4]
        assert ms.resolve_chains(7) == 7
        monkeypatch.setattr(ms.os, "cpu_count", lambda: 3)
        sim = simulate_round_robin(6, eps=0.1, random_seed=3)
        m = UniformError(draws=5, tune=5).fit(sim.data, random_seed=1)
        assert mock_sampler[-1]["chains"] == 3
        assert m.settings_["sampler"]["chains"] == 3
        assert m.idata_.posterior.sizes["chain"] == 3

    def test_bad_chains_value(self):
        from bayes_pairwise.model_specs import check_sampler_settings

        with pytest.raises(PriorError, match="chains must be a positive integer or 'auto'"):
            check_sampler_settings("t", {"chains": "many"})
        with pytest.raises(PriorError, match="chains must be at least 1"):
            check_sampler_settings("t", {"chains": 0})


def test_design_warning_for_a_crowd_is_one_message_naming_the_judges():
    """100 judges with one verdict per pair each: one DesignWarning naming five of them and the
    count, not 100 repeated lines (notebook 05's crowd)."""
    from bayes_pairwise.pymc_models.design import check_error_design

    rows = [
        {"first": f"t{a}", "second": f"t{b}", "outcome": "first", "judge": f"j{k:03d}"}
        for k in range(100)
        for a, b in ((0, 1), (1, 2))
    ]
    # judge j000 also saw one pair in both orders: it is not affected
    rows.append({"first": "t1", "second": "t0", "outcome": "second", "judge": "j000"})
    pc = pair_counts(load_comparisons(pd.DataFrame(rows), judge="judge"))
    with pytest.warns(DesignWarning) as caught:
        msgs = check_error_design(pc, positional=False)
    assert len(caught) == 1 and len(msgs) == 1
    assert msgs[0].startswith(
        "judges 'j001', 'j002', 'j003', 'j004', 'j005' and 94 more (99 of 100)"
    )
    assert "eps is not separable" in msgs[0]
    with pytest.warns(DesignWarning) as caught:
        (msg,) = check_error_design(pc, positional=True)
    assert msg.startswith("judges 'j001',") and "(99 of 100)" in msg
