"""Diagnostics: convergence flags, sampler statistics, posterior predictive checks, JSON."""

from __future__ import annotations

import json

import arviz as az
import numpy as np
import pytest

import bayes_pairwise as bp
from bayes_pairwise.classical.descriptive import commutativity_score, first_position_rate
from bayes_pairwise.errors import NotFittedError
from bayes_pairwise.pymc_models import BiasedBradleyTerry, UniformError, diagnose, fit_summary_dict
from bayes_pairwise.pymc_models.diagnostics import parameter_summary, ppc_pair_counts


def _idata(posterior, sample_stats=None, coords=None, dims=None):
    return az.from_dict(posterior=posterior, sample_stats=sample_stats, coords=coords, dims=dims)


def test_good_chains_pass():
    rng = np.random.default_rng(0)
    idata = _idata(
        {"eps": rng.normal(0.15, 0.01, (4, 1000))},
        {"diverging": np.zeros((4, 1000), bool), "energy": rng.normal(size=(4, 1000))},
    )
    d = diagnose(idata, ppc=False)
    assert d.ok is True and d.divergences == 0
    row = d.table.loc["eps"]
    assert row["r_hat"] <= 1.01 and row["ess_bulk"] >= 400 and row["ok"]
    assert d.checks == {
        "rhat": True,
        "ess": True,
        "divergences": True,
        "tree_depth": True,
        "ebfmi": True,
        "nuisance": True,
    }
    assert d.ebfmi.shape == (4,)


def test_rhat_and_ess_flags():
    rng = np.random.default_rng(1)
    stuck = rng.normal(0, 1, (4, 500)) + np.array([0, 0, 0, 3.0])[:, None]  # one chain elsewhere
    walk = np.cumsum(rng.normal(0, 0.05, (4, 500)), axis=1)  # autocorrelated: low ESS
    d = diagnose(_idata({"a": stuck, "b": walk}), ppc=False)
    assert d.ok is False
    assert not d.table.loc["a", "rhat_ok"] and not d.table.loc["b", "ess_ok"]
    assert any("R-hat" in m for m in d.messages) and any("ESS" in m for m in d.messages)


@pytest.mark.parametrize(
    ("div_name", "depth_name"),
    [("diverging", "reached_max_treedepth"), ("diverging", "maxdepth_reached")],
    ids=["pymc", "nutpie"],
)
def test_divergences_and_tree_depth(div_name, depth_name):
    rng = np.random.default_rng(2)
    div = np.zeros((2, 500), bool)
    div[0, :3] = True
    hits = np.zeros((2, 500), bool)
    hits[1, :7] = True
    d = diagnose(
        _idata(
            {"x": rng.normal(size=(2, 500))},
            {div_name: div, depth_name: hits, "energy": rng.normal(size=(2, 500))},
        ),
        ppc=False,
    )
    assert d.divergences == 3 and d.tree_depth_hits == 7
    assert d.ok is False and d.checks["divergences"] is False and d.checks["tree_depth"] is False
    out = d.to_dict()
    assert out["divergences"] == 3 and out["tree_depth_hits"] == 7
    json.dumps(out, allow_nan=False)


def test_nuisance_coordinates_do_not_decide_ok():
    rng = np.random.default_rng(5)
    stuck = rng.normal(0, 1, (4, 500)) + np.array([0, 0, 0, 3.0])[:, None]
    idata = _idata({"eps": rng.normal(0.15, 0.01, (4, 500)), "sigma_s": np.exp(stuck)})
    d = diagnose(idata, ppc=False)
    assert not d.table.loc["sigma_s", "rhat_ok"]
    assert not d.table.loc["sigma_s", "reported"] and d.table.loc["eps", "reported"]
    assert d.ok is True and d.checks["nuisance"] is False
    # the message names the coordinates that mix badly, not a fixed "sigma_s / z"
    assert any("sampler coordinates sigma_s (not findings)" in m for m in d.messages)
    assert d.to_dict()["nuisance_max_r_hat"] > 1.01
    # the order models' nuisance is the simplex behind ε₊, ε₋ (no σ_s, no z)
    simplex = np.stack([np.exp(stuck), np.exp(-stuck)], axis=-1)
    d = diagnose(
        _idata({"eps": rng.normal(0.15, 0.01, (4, 500)), "eps_simplex": simplex}), ppc=False
    )
    assert any("sampler coordinates eps_simplex (not findings)" in m for m in d.messages)
    assert not any("sigma_s" in m for m in d.messages)


def test_low_ebfmi_flagged():
    rng = np.random.default_rng(3)
    energy = np.cumsum(rng.normal(size=(2, 1000)), axis=1)  # energy barely changes per step
    d = diagnose(_idata({"x": rng.normal(size=(2, 1000))}, {"energy": energy}), ppc=False)
    assert d.checks["ebfmi"] is False and (d.ebfmi < 0.3).all()


def test_labels_drop_single_judge_dim():
    rng = np.random.default_rng(4)
    idata = _idata(
        {"eps": rng.normal(size=(2, 100, 1)), "g": rng.normal(size=(2, 100, 2))},
        coords={"judge": ["only"], "j2": ["A", "B"]},
        dims={"eps": ["judge"], "g": ["j2"]},
    )
    assert parameter_summary(idata, ["eps", "g"]).index.tolist() == ["eps", "g[A]", "g[B]"]


def test_one_chain_summary_matches_arviz_without_rhat():
    """One chain (Laplace): mean, sd, HDI, MCSE and ESS as ArviZ computes them from that chain,
    R-hat and mcse_sd NaN (undefined), and the labels of the multi-chain summary."""
    rng = np.random.default_rng(3)
    draws = rng.normal([0.1, 0.3], 0.02, (1, 800, 2))
    idata = _idata({"eps": draws}, coords={"judge": ["a", "b"]}, dims={"eps": ["judge"]})
    out = parameter_summary(idata, ["eps"])
    assert out.index.tolist() == ["eps[a]", "eps[b]"]
    np.testing.assert_allclose(out["mean"], draws[0].mean(0))
    np.testing.assert_allclose(out["sd"], draws[0].std(0, ddof=1))
    np.testing.assert_allclose(out["ess_bulk"], az.ess(idata, method="bulk")["eps"].values)
    np.testing.assert_allclose(out["ess_tail"], az.ess(idata, method="tail")["eps"].values)
    np.testing.assert_allclose(out["mcse_mean"], az.mcse(idata)["eps"].values)
    assert out["r_hat"].isna().all() and out["mcse_sd"].isna().all()
    two = _idata(
        {"eps": np.concatenate([draws, draws])},
        coords={"judge": ["a", "b"]},
        dims={"eps": ["judge"]},
    )
    assert parameter_summary(two, ["eps"]).columns.tolist() == out.columns.tolist()


def test_not_fitted():
    with pytest.raises(NotFittedError):
        diagnose(UniformError())


# --------------------------------------------------------------------------- PPC with a real model
@pytest.fixture(scope="module")
def sim():
    return bp.simulate_round_robin(10, eps=0.2, repeats=2, random_seed=5)


@pytest.fixture(scope="module")
def map_fit(sim):
    m = UniformError().fit(sim.data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=1, point_draws=200)
    return m


def test_observed_statistics_match_classical(map_fit, sim):
    d = diagnose(map_fit, random_seed=2, n_draws_curve=5, n_subsets=20)
    ppc = d.ppc.set_index("statistic")
    assert ppc.loc["s_com", "observed"] == pytest.approx(commutativity_score(sim.data))
    assert ppc.loc["first_position_rate", "observed"] == pytest.approx(
        first_position_rate(sim.data)
    )
    assert ppc.loc["s_com", "n_draws"] == 200
    assert 0 <= ppc.loc["s_com", "p_value"] <= 1
    # replicated statistics have the model's expectations: E[S_com] = 2ε(1−ε), E[r1] = 1/2
    eps = float(map_fit.idata_.posterior["eps"].mean())
    assert ppc.loc["s_com", "replicated_mean"] == pytest.approx(2 * eps * (1 - eps), abs=0.03)
    assert ppc.loc["first_position_rate", "replicated_mean"] == pytest.approx(0.5, abs=0.02)
    curve = d.ppc_curve
    assert curve["n"].tolist() == list(range(2, 11))
    assert (curve["observed"] >= 0).all()
    assert d.ok is None  # MAP


def test_two_item_contexts_enter_the_delta_s_check_as_in_ppc_data():
    """METHODS §1 pools Δ_S curves over n = 2..N_c: a log of two-item contexts has a Δ_S check
    at n = 2 in diagnose(), the same observed curve that ppc_data draws."""
    sim = bp.simulate_round_robin(2, eps=0.2, repeats=2, n_contexts=40, random_seed=3)
    m = UniformError().fit(sim.data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=1, point_draws=100)
    d = diagnose(m, random_seed=2, n_draws_curve=5, n_subsets=20)
    ppc = d.ppc.set_index("statistic")
    assert "delta_s_area" in ppc.index
    from bayes_pairwise.pymc_models.ppc import ppc_data

    curve = ppc_data(m, sim.data, statistics=["delta_s"], n_draws_curve=5, random_seed=0)
    observed = curve.query("statistic == 'delta_s' and n == 2")["observed"].iloc[0]
    assert 0 < observed < 2  # a two-item context's Δ_S is 2 (1 − |W|)
    assert ppc.loc["delta_s_area", "observed"] == pytest.approx(observed)


@pytest.mark.slow  # a MAP fit and its replicates compiled cold: 24 s
def test_ppc_counts_for_biased_bt():
    sim = bp.simulate_biased_bt(6, 400, gamma=0.8, random_seed=0)
    m = BiasedBradleyTerry().fit(sim.data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=1, point_draws=100)
    counts = ppc_pair_counts(m.idata_)
    assert counts["n1_rep"].shape == (100, counts["i"].size)
    total = (counts["k_plus"] + counts["k_minus"]).sum()
    assert total == sim.data.n_comparisons
    r1 = float((counts["n1"] + counts["k_minus"] - counts["n2"]).sum() / total)
    assert r1 == pytest.approx(first_position_rate(sim.data))
    d = diagnose(m, random_seed=0)
    rate = d.ppc.set_index("statistic").loc["first_position_rate"]
    assert rate["replicated_mean"] == pytest.approx(rate["observed"], abs=0.03)


def test_diagnose_without_ppc_group_on_idata(map_fit):
    bare = az.InferenceData(posterior=map_fit.idata_.posterior)
    d = diagnose(bare)
    assert d.ppc is None and any("skipped" in m for m in d.messages)


def test_fit_summary_dict_multi_judge(tmp_path):
    frames = []
    for seed, judge in ((1, "A"), (2, "B")):
        f = bp.simulate_round_robin(5, eps=0.2, random_seed=seed).frame.copy()
        f["judge"] = judge
        frames.append(f)
    import pandas as pd

    data = bp.load_comparisons(pd.concat(frames), judge="judge")
    m = UniformError().fit(data, method="map", random_seed=0)
    out = fit_summary_dict(m)
    assert {"eps[A]", "eps[B]"} <= set(out["parameters"])
    assert out["settings"]["data"]["judges"] == ["A", "B"]
    assert out["diagnostics"]["ok"] is None
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text)["model"] == "uniform"
