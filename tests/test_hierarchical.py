"""Hierarchical judges (issue 8 item 3): non-centred partial pooling of the error logits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, softmax

import bayes_pairwise as bp
from bayes_pairwise.errors import PriorError
from bayes_pairwise.pymc_models import (
    MODEL_CLASSES,
    HierarchicalPositionalBias,
    HierarchicalUniformError,
    get_model,
    load_spec,
)


def _judges_log(n_judges: int, n_items: int, eps: np.ndarray, seed: int) -> bp.Comparisons:
    frames = []
    for jdx in range(n_judges):
        sim = bp.simulate_round_robin(n_items, eps=float(eps[jdx]), random_seed=seed + jdx)
        frames.append(sim.frame.assign(judge=f"j{jdx:03d}"))
    return bp.load_comparisons(pd.concat(frames, ignore_index=True), judge="judge")


@pytest.fixture(scope="module")
def three_judges():
    return _judges_log(3, 5, np.array([0.05, 0.15, 0.3]), seed=10)


def test_specs_and_registry():
    for name, cls in (
        ("uniform_hierarchical", HierarchicalUniformError),
        ("positional_hierarchical", HierarchicalPositionalBias),
    ):
        spec = load_spec(name)
        assert MODEL_CLASSES[spec.model_class] is cls
        m = get_model(name)
        assert isinstance(m, cls) and m.name == name
        priors = m.resolved_priors()
        assert set(priors) == {"sigma_s", "eps_mu", "eps_sigma", "tie_logit", "tie_closeness"}
        assert priors["eps_sigma"] == {"dist": "HalfNormal", "sigma": 1.0}
    assert load_spec("positional_hierarchical").priors["eps_mu"]["mu"] == -1.5
    with pytest.raises(PriorError, match="unknown prior"):
        HierarchicalUniformError(priors={"eps": {"dist": "Uniform"}}).resolved_priors()


def test_uniform_non_centred_closed_form(three_judges, mock_sampler):
    m = HierarchicalUniformError(draws=30, chains=2).fit(three_judges, random_seed=2)
    post = m.idata_.posterior
    mu = post["eps_mu"].values[..., None]
    tau = post["eps_sigma"].values[..., None]
    z = post["eps_z"].values
    np.testing.assert_allclose(post["eps"].values, 0.5 * expit(mu + tau * z), rtol=1e-10)
    np.testing.assert_allclose(post["eps_pop"].values, 0.5 * expit(post["eps_mu"].values))
    assert post["eps"].dims == ("chain", "draw", "judge")
    assert "eps_pop" in m.summary(strengths=False).index


def test_positional_softmax_closed_form(three_judges, mock_sampler):
    m = HierarchicalPositionalBias(draws=30, chains=2).fit(three_judges, random_seed=2)
    post = m.idata_.posterior
    mu = post["eps_mu"].values[:, :, None, :]
    tau = post["eps_sigma"].values[:, :, None, :]
    logits = mu + tau * post["eps_z"].values
    full = np.concatenate([logits, np.zeros((*logits.shape[:-1], 1))], axis=-1)
    simplex = softmax(full, axis=-1)
    np.testing.assert_allclose(post["eps_plus"].values, simplex[..., 0], rtol=1e-10)
    np.testing.assert_allclose(post["eps_minus"].values, simplex[..., 1], rtol=1e-10)
    assert np.all(post["eps_plus"].values + post["eps_minus"].values < 1)


def test_loglik_on_the_pair_unit(three_judges, mock_sampler):
    m = HierarchicalUniformError(draws=10, chains=1).fit(three_judges, random_seed=0)
    assert m.idata_.log_likelihood["wins"].dims == ("chain", "draw", "pair")
    assert m.idata_.log_likelihood["wins"].shape[-1] == 3 * 10


@pytest.mark.slow
def test_many_thin_judges_hierarchical_beats_unpooled():
    """100 judges, 4 items each (12 verdicts): pooling wins on LOO and shrinks the rates."""
    from bayes_pairwise.model_checking import compare_models

    rng = np.random.default_rng(5)
    eps = 0.5 * expit(rng.normal(np.log(0.15 / 0.35), 0.4, size=100))
    data = _judges_log(100, 4, eps, seed=100)
    table = compare_models(
        data, ["uniform", "uniform_hierarchical"], draws=500, tune=500, chains=2, random_seed=1
    )
    print(table.to_string())
    assert table["model"].iloc[0] == "uniform_hierarchical"
    fits = table.attrs["fits"]
    e_h = fits["uniform_hierarchical"].idata_.posterior["eps"].mean(("chain", "draw")).values
    e_u = fits["uniform"].idata_.posterior["eps"].mean(("chain", "draw")).values
    # shrinkage: the pooled estimates are less spread and closer to the truth
    assert e_h.std() < 0.6 * e_u.std()
    assert np.mean((e_h - eps) ** 2) < np.mean((e_u - eps) ** 2)


@pytest.mark.slow
def test_few_well_measured_judges_match_unpooled():
    data = _judges_log(3, 14, np.array([0.05, 0.15, 0.3]), seed=40)
    kw = {"draws": 500, "tune": 500, "chains": 2}
    h = HierarchicalUniformError(**kw).fit(data, random_seed=1)
    u = get_model("uniform", **kw).fit(data, random_seed=1)
    e_h = h.idata_.posterior["eps"].mean(("chain", "draw")).values
    e_u = u.idata_.posterior["eps"].mean(("chain", "draw")).values
    print(e_h, e_u)
    np.testing.assert_allclose(e_h, e_u, atol=0.03)
