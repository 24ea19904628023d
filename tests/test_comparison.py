"""Cross-check table and verdict (comparison.compare)."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from bayes_pairwise.comparison import compare, posterior_stats
from bayes_pairwise.simulate import simulate_round_robin

GRID = {"n_subsets": 60}


@pytest.fixture(scope="module")
def sim():
    return simulate_round_robin(40, eps=0.15, random_seed=11)


def _posterior(center: float, sd: float, judge: str = "judge", var: str = "eps", seed: int = 0):
    rng = np.random.default_rng(seed)
    draws = rng.normal(center, sd, size=(2, 400, 1))
    return az.from_dict(posterior={var: draws}, coords={"judge": [judge]}, dims={var: ["judge"]})


def test_classical_rows_and_realised_truth(sim):
    cc = compare(
        sim.data,
        models=(),
        truth=sim,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    eps = cc.table[cc.table.quantity == "eps"].set_index("method")["estimate"]
    assert eps["realised (synthetic truth)"] == pytest.approx(sim.realised_eps)
    assert abs(eps["S_com closed form"] - sim.realised_eps) < 0.03
    assert abs(eps["Δ_S grid (1-D)"] - sim.realised_eps) < 0.03
    # the 2-D fit carries its caveat in the note
    notes = cc.table[cc.table.method == "Δ_S grid (2-D)"]["note"]
    assert len(notes) == 2 and all("symmetric" in n for n in notes)
    assert set(COLS := ["quantity", "judge", "method", "estimate", "lower", "upper"]) <= set(
        cc.table.columns
    ), COLS


def test_verdict_agree_and_disagree(sim):
    grid = compare(
        sim.data,
        models=(),
        delta_s_2d=False,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    g = float(grid.table.query("method == 'Δ_S grid (1-D)'")["estimate"].iloc[0])
    near = compare(
        sim.data,
        _posterior(g, 0.01),
        delta_s_2d=False,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    assert "AGREE" in near.verdict and "DISAGREE" not in near.verdict
    assert bool(near.agreement["inside_hdi"].iloc[0]) is True
    far = compare(
        sim.data,
        _posterior(g - 0.1, 0.01),
        delta_s_2d=False,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    assert "DISAGREE" in far.verdict
    row = far.agreement.iloc[0]
    assert not row["inside_hdi"]
    assert row["distance_to_hdi"] == pytest.approx(g - row["hdi_upper"], abs=1e-9)
    assert row["distance_to_hdi"] > 0.05


def test_posterior_stats_picks_judge_and_handles_point_estimates():
    idata = az.from_dict(
        posterior={"eps": np.stack([np.full((1, 3), 0.1), np.full((1, 3), 0.3)], axis=-1)},
        coords={"judge": ["a", "b"]},
        dims={"eps": ["judge"]},
    )
    assert posterior_stats(idata, "eps", judge="b")[0] == pytest.approx(0.3)
    assert posterior_stats(idata, "eps") is None  # ambiguous without a judge
    assert posterior_stats(idata, "gamma") is None
    point = az.from_dict(posterior={"eps": np.full((1, 1), 0.2)})
    mean, lo, hi = posterior_stats(point, "eps")
    assert mean == pytest.approx(0.2) and np.isnan(lo) and np.isnan(hi)


def test_strength_agreement_rows(sim):
    truth = sim.true_strengths.reindex(list(sim.data.items)).to_numpy(dtype=float)
    idata = az.from_dict(
        posterior={"strength": np.broadcast_to(truth - truth.mean(), (1, 1, truth.size)).copy()},
        coords={"item": list(sim.data.items)},
        dims={"strength": ["item"]},
    )
    cc = compare(sim.data, idata, delta_s=False, delta_s_2d=False, biased_bt_spread=False)
    rho = cc.table.query("quantity == 'strength_spearman'")["estimate"].iloc[0]
    assert rho > 0.9  # MM on 15%-noisy verdicts vs the true order


def test_positional_verdict_uses_moments_and_split_grid():
    sim = simulate_round_robin(40, eps_plus=0.3, eps_minus=0.05, random_seed=5)
    base = compare(
        sim.data,
        models=(),
        delta_s=False,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    mom = base.table.query("method == 'moments (S_com, r₁)'").set_index("quantity")["estimate"]
    rng = np.random.default_rng(1)
    post = az.from_dict(
        posterior={
            "eps_plus": rng.normal(mom["eps_plus"], 0.02, (2, 300, 1)),
            "eps_minus": rng.normal(mom["eps_minus"] + 0.2, 0.01, (2, 300, 1)),
        },
        coords={"judge": ["judge"]},
        dims={"eps_plus": ["judge"], "eps_minus": ["judge"]},
    )
    cc = compare(
        sim.data,
        post,
        delta_s=False,
        biased_bt_spread=False,
        strengths=False,
        grid_kwargs=GRID,
        random_seed=0,
    )
    agr = cc.agreement.set_index(["quantity", "classical"])
    assert agr.loc[("eps_plus", "moments (S_com, r₁)"), "inside_hdi"]
    assert not agr.loc[("eps_minus", "moments (S_com, r₁)"), "inside_hdi"]
    assert "positional model PARTLY AGREE" in cc.verdict
