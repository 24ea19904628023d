"""NoisyPlackettLuce (issue 30): a listwise judge's first-shown bonus and lapse rate, recovered."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models import get_model, load_model
from bayes_pairwise.pymc_models.plackett_luce import (
    NoisyPlackettLuce,
    list_ppc_data,
    simulate_noisy_rankings,
)

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def bonus_fit():
    data = bp.load_rankings(DATA / "pl_400x5_first_bonus.csv", shown="shown")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NoisyPlackettLuce().fit(data, method="map", random_seed=0)
    return data, model


def test_map_recovers_the_first_shown_bonus(bonus_fit):
    """Must-show: the golden 400 lists of 5 with a log-odds bonus of 1.0 for the item shown
    first; MAP recovers it within 0.3 and the summary names the parameter "first"."""
    _, model = bonus_fit
    summ = model.summary(strengths=False)
    assert summ.index.tolist() == ["first", "lapse"]
    assert abs(float(summ.loc["first", "mean"]) - 1.0) < 0.3
    assert float(summ.loc["lapse", "mean"]) < 0.05  # no lapses were simulated
    true = pd.read_csv(DATA / "pl_400x5_choix.csv").set_index("item")["true"]
    est = model.strengths_
    assert est.index.tolist() == true.index.tolist()
    assert np.corrcoef(est, true)[0, 1] > 0.95
    # the plain PL MLE, which ignores the shown order, is biased towards often-first items;
    # the noisy model is closer to the truth
    pl = bp.PlackettLuce().fit(bonus_fit[0]).strengths_
    assert np.abs(est - true).mean() <= np.abs(pl - true).mean() + 0.02


def test_idata_has_named_dims_and_settings(bonus_fit):
    data, model = bonus_fit
    post = model.idata_.posterior
    assert post["strength"].dims == ("chain", "draw", "item")
    assert post["first"].dims == ("chain", "draw", "judge")
    assert model.idata_.observed_data["ranking"].dims == ("list", "rank")
    assert model.idata_.log_likelihood["ranking"].shape == (1, 1, data.n_lists)
    assert model.settings_["position"] == "first" and model.settings_["data"]["kind"] == "rankings"
    assert model.n_comparisons_ == 400 * 10


def test_netcdf_round_trip(bonus_fit, tmp_path):
    _, model = bonus_fit
    path = model.save(tmp_path / "npl.nc")
    loaded = load_model(path)
    assert isinstance(loaded, NoisyPlackettLuce) and loaded.position == "first" and loaded.lapse
    pd.testing.assert_series_equal(loaded.strengths_, model.strengths_)
    assert loaded.settings_ == model.settings_
    pd.testing.assert_frame_equal(loaded.summary(strengths=False), model.summary(strengths=False))
    assert loaded.model_ is not None and "ranking" in loaded.model_.named_vars


def test_ppc_first_shown_ranked_first(bonus_fit):
    data, model = bonus_fit
    model.sample_posterior_predictive(random_seed=1, point_draws=300)
    table = list_ppc_data(model.idata_)
    row = table.set_index("statistic").loc["first_shown_ranked_first"]
    observed = float(np.mean(data.first_shown_ranked_first()))
    assert row["observed"] == pytest.approx(observed)
    assert row["lower"] <= observed <= row["upper"]  # the model reproduces the statistic
    # a model without the bonus would not: its replicates sit near the base rate
    assert row["replicated"] > 0.3


def test_no_shown_order_is_a_design_error_naming_the_fix():
    df = pd.read_csv(DATA / "pl_400x5.csv")
    data = bp.load_rankings(df)  # shown column not read
    with pytest.raises(DesignError, match="shown"):
        NoisyPlackettLuce().fit(data, method="map")
    with pytest.raises(TypeError, match="Rankings"):
        NoisyPlackettLuce().fit(bp.simulate_round_robin(4, random_seed=0).data)


def test_spec_and_registry():
    model = get_model("noisy_plackett_luce")
    assert isinstance(model, NoisyPlackettLuce)
    assert set(model.resolved_priors()) == {"sigma_s", "first", "lapse"}
    assert set(NoisyPlackettLuce(position="slot", lapse=False).prior_kinds) == {
        "sigma_s",
        "position",
    }


def test_simulator_first_shown_rate_matches_closed_form():
    # two equal items, bonus b for the first shown: P(first shown ranked first) = σ(b)
    data = simulate_noisy_rankings(np.zeros(2), 20000, 2, first=1.0, random_seed=3)
    rate = float(np.mean(data.first_shown_ranked_first()))
    assert rate == pytest.approx(1 / (1 + np.exp(-1.0)), abs=0.01)
    # lapse 0.4 with a huge bonus: first shown first = 0.6 + 0.4 / 2
    data = simulate_noisy_rankings(np.zeros(2), 20000, 2, first=30.0, lapse=0.4, random_seed=4)
    assert float(np.mean(data.first_shown_ranked_first())) == pytest.approx(0.8, abs=0.01)


@pytest.mark.slow
def test_slot_effects_and_lapse_by_laplace():
    rng = np.random.default_rng(5)
    data = simulate_noisy_rankings(
        rng.normal(0, 1, 20), 600, 4, first=0.8, lapse=0.2, random_seed=6
    )
    m = NoisyPlackettLuce(position="slot", draws=300).fit(data, method="laplace", random_seed=0)
    summ = m.summary(strengths=False)
    assert abs(float(summ.loc["position[1]", "mean"]) - 0.8) < 0.35
    assert abs(float(summ.loc["position[2]", "mean"])) < 0.35
    assert abs(float(summ.loc["lapse", "mean"]) - 0.2) < 0.12


@pytest.mark.slow
def test_nuts_recovers_bonus_per_judge():
    rng = np.random.default_rng(7)
    data = simulate_noisy_rankings(
        rng.normal(0, 1, 15), 400, 5, first=np.array([1.0, 0.0]), n_judges=2, random_seed=8
    )
    m = NoisyPlackettLuce(lapse=False, draws=300, tune=300, chains=2).fit(data, random_seed=1)
    first = m.idata_.posterior["first"].mean(("chain", "draw")).to_numpy()
    np.testing.assert_allclose(first, [1.0, 0.0], atol=0.3)
    assert float(m.idata_.posterior["first"].std()) > 0.02


def test_cli_fit_noisy_plackett_luce_map(capsys, tmp_path, bonus_fit):
    import json

    from bayes_pairwise.cli import main

    out = tmp_path / "fit.nc"
    path = str(DATA / "pl_400x5_first_bonus.csv")
    argv = ["fit", path, "--model", "noisy_plackett_luce", "--map", "--json", "--out", str(out)]
    assert main(argv) == 0
    res = json.loads(capsys.readouterr().out)
    # same number through both doors
    assert res["parameters"]["first"]["mean"] == pytest.approx(
        float(bonus_fit[1].summary(strengths=False).loc["first", "mean"]), abs=1e-6
    )
    stats = {r["statistic"]: r for r in res["list_ppc"]}
    assert stats["first_shown_ranked_first"]["observed"] == pytest.approx(0.42)
    assert isinstance(load_model(out), NoisyPlackettLuce)
