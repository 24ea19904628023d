"""Per-row weights of a pairwise log (issue 30, evalica / arena style)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise.errors import DataError, DesignError
from bayes_pairwise.leaderboard import leaderboard
from bayes_pairwise.pymc_models import HierarchicalPositionalBias, PositionalDifficulty


def _log() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "first": ["a", "b", "a", "c", "b", "c"],
            "second": ["b", "a", "c", "a", "c", "b"],
            "outcome": ["first", "first", "first", "second", "first", "first"],
            "w": [3.0, 1.0, 2.0, 1.0, 1.0, 2.0],
        }
    )


def test_weighted_bt_equals_bt_on_repeated_rows():
    df = _log()
    weighted = bp.BradleyTerry().fit(bp.load_comparisons(df, weights="w")).strengths_
    repeated = df.loc[df.index.repeat(df["w"].astype(int))].reset_index(drop=True)
    plain = bp.BradleyTerry().fit(bp.load_comparisons(repeated)).strengths_
    pd.testing.assert_series_equal(weighted, plain, atol=1e-9)
    unweighted = bp.BradleyTerry().fit(bp.load_comparisons(df)).strengths_
    assert not np.allclose(weighted, unweighted)


def test_weights_follow_subsets_and_the_frame():
    df = _log().assign(judge=["x", "y", "x", "y", "x", "y"])
    data = bp.load_comparisons(df, judge="judge", weights="w")
    assert data.has_weights and data.for_judge("y").weight.tolist() == [1.0, 1.0, 2.0]
    assert data.to_frame()["weight"].tolist() == df["w"].tolist()
    assert data.settings()["weighted"] is True
    assert not bp.load_comparisons(df).has_weights


def test_bad_weights_name_the_rows():
    df = _log()
    df.loc[2, "w"] = -1.0
    df.loc[4, "w"] = None
    with pytest.raises(DataError, match="weight") as err:
        bp.load_comparisons(df, weights="w")
    assert err.value.rows == [2, 4] and err.value.column == "w"
    with pytest.raises(DataError, match="not found"):
        bp.load_comparisons(_log(), weights="weight")


def _realistic(seed: int, *, labels: bool = False) -> pd.DataFrame:
    """Two judges, three round robins, both orders, repeats, 15% ties, optional labels."""
    from test_direct import _log as direct_log  # the written-out density tests' log

    return direct_log(seed, judges=2, contexts=3, labels=labels)


def _weighted_and_repeated(df: pd.DataFrame, seed: int, **kw):
    """The log with integer weights, and the same log with each row repeated w times."""
    w = np.random.default_rng(seed).integers(1, 4, len(df))
    weighted = bp.load_comparisons(df.assign(w=w.astype(float)), weights="w", **kw)
    repeated = bp.load_comparisons(df.loc[df.index.repeat(w)].reset_index(drop=True), **kw)
    return weighted, repeated


MODEL_VARIANTS = [
    (bp.UniformError, {}, {"ties": "drop", "truth": "gold"}),
    (bp.PositionalBias, {"tie_positional": True, "tie_closeness": True}, {"ties": "model"}),
    (HierarchicalPositionalBias, {}, {"ties": "model"}),
    (PositionalDifficulty, {}, {"ties": "model", "truth": "gold"}),
]


@pytest.mark.parametrize(("cls", "kw", "dkw"), MODEL_VARIANTS)
def test_a_weight_w_is_w_repeated_verdicts_in_every_error_model(cls, kw, dkw):
    """Integer weights: the log-density and its gradient are those of the log with each row
    repeated w times, exactly (counts are summed weights); weight 0 is an absent row."""
    from bayes_pairwise.pymc_models.direct import direct_logp_grad

    df = _realistic(3, labels="truth" in dkw)
    cols = {"judge": "judge", "context": "q", **dkw}
    weighted, repeated = _weighted_and_repeated(df, 0, **cols)
    m = cls(**kw)
    spec_w, why = m.written_out_density(weighted)
    spec_r, _ = m.written_out_density(repeated)
    assert spec_w is not None, why
    rng = np.random.default_rng(1)
    for x in rng.normal(0.0, 0.8, (3, spec_w.n_dim)):
        lp_w, g_w = direct_logp_grad(spec_w, x)
        lp_r, g_r = direct_logp_grad(spec_r, x)
        assert lp_w == pytest.approx(lp_r, rel=1e-12)
        np.testing.assert_allclose(g_w, g_r, rtol=1e-11, atol=1e-11)
    # a weight of 0 on second copies of verdicts = those copies absent
    dup = df.loc[df.index.repeat(2)].reset_index(drop=True)
    zero = bp.load_comparisons(dup.assign(w=np.tile([1.0, 0.0], len(df))), weights="w", **cols)
    once = bp.load_comparisons(df, **cols)
    spec_0, _ = m.written_out_density(zero)
    spec_1, _ = m.written_out_density(once)
    x = rng.normal(0.0, 0.8, spec_0.n_dim)
    assert direct_logp_grad(spec_0, x)[0] == pytest.approx(direct_logp_grad(spec_1, x)[0])


def test_fractional_weights_graph_and_written_out_density_agree():
    """Arena-style fractional weights: PyMC's graph (MAP, Laplace, JAX) and the written-out
    density (nutpie) are the same weighted log-density."""
    from test_direct import _point

    from bayes_pairwise.pymc_models.direct import direct_logp_grad

    df = _realistic(4)
    w = np.random.default_rng(2).uniform(0.0, 2.0, len(df))
    data = bp.load_comparisons(
        df.assign(w=w), judge="judge", context="q", ties="model", weights="w"
    )
    m = bp.PositionalBias(tie_positional=True)
    model = m.build_model(data)
    assert model["wins"].dtype == "float64"
    spec, _ = m.written_out_density(data)
    fn = model.compile_logp()
    for x in np.random.default_rng(3).normal(0.0, 0.8, (2, spec.n_dim)):
        # PyMC rounds its HalfNormal constant to float32 (3e-8)
        assert direct_logp_grad(spec, x)[0] == pytest.approx(fn(_point(model, x)), abs=1e-6)


def test_weighted_fits_equal_repeated_fits_and_say_they_are_weighted():
    df = _realistic(5)
    cols = {"judge": "judge", "context": "q", "ties": "model"}
    weighted, repeated = _weighted_and_repeated(df, 1, **cols)
    # MAP (PyMC's graph)
    a = bp.UniformError().fit(weighted, method="map", random_seed=1)
    b = bp.UniformError().fit(repeated, method="map", random_seed=1)
    np.testing.assert_allclose(a.idata_.posterior["eps"], b.idata_.posterior["eps"], rtol=1e-6)
    # NUTS on the written-out density: the same density, the same seed, the same draws
    kw = {"draws": 100, "tune": 100, "chains": 2}
    a = bp.PositionalBias(**kw).fit(weighted, random_seed=2)
    b = bp.PositionalBias(**kw).fit(repeated, random_seed=2)
    np.testing.assert_allclose(
        a.idata_.posterior["eps_plus"], b.idata_.posterior["eps_plus"], rtol=1e-9
    )
    assert a.settings_["data"]["weighted"] is True
    # the fit says what the weights do, computed from them
    first = a.caveats_[0]
    total = float(np.sum(weighted.weight))
    assert first.code == "weighted_log"
    assert f"{weighted.n_comparisons} verdicts weigh {total:.4g}" in first.text
    # ... and what the log can show counts each verdict once: the same as the unweighted log
    plain = bp.load_comparisons(df, **cols)
    once = bp.PositionalBias(**kw).fit(plain, method="map", random_seed=2)
    assert [c.to_dict() for c in a.caveats_[1:]] == [c.to_dict() for c in once.caveats_]
    with pytest.raises(DesignError, match="per-row weights"):
        a.sample_posterior_predictive(random_seed=0)


def test_weighted_biased_bradley_terry_equals_repeated_rows():
    df = _realistic(6)
    weighted, repeated = _weighted_and_repeated(df, 2, judge="judge", ties="half")
    a = bp.BiasedBradleyTerry().fit(weighted, method="map", random_seed=1)
    b = bp.BiasedBradleyTerry().fit(repeated, method="map", random_seed=1)
    for name in ("gamma", "strength"):
        np.testing.assert_allclose(
            a.idata_.posterior[name], b.idata_.posterior[name], rtol=1e-5, atol=1e-6
        )


def test_estimators_that_count_verdicts_refuse_weights_by_name():
    """Nothing drops the weights silently: S_com, the moments, the cross-check count verdicts."""
    data = bp.load_comparisons(_log(), weights="w")
    with pytest.raises(DesignError, match="per-row weights"):
        bp.pair_counts(data)
    with pytest.raises(DesignError, match="per-row weights"):
        bp.commutativity_score(data)
    assert bp.pair_counts(data, weighted=True).k_plus.sum() == pytest.approx(6.0)


def test_weighted_elo_moves_w_times_as_far():
    df = _log()
    w = df["w"].to_numpy()
    data = bp.load_comparisons(df, weights="w")
    got = bp.Elo().fit(data).ratings_
    # by hand: each update scaled by its weight
    r = {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    for (f, s, o), wt in zip(df[["first", "second", "outcome"]].to_numpy(), w, strict=True):
        e = 1.0 / (1.0 + 10 ** ((r[s] - r[f]) / 400.0))
        d = wt * 32.0 * ((o == "first") - e)
        r[f] += d
        r[s] -= d
    np.testing.assert_allclose(got[list(r)], list(r.values()), rtol=1e-12)
    ones = bp.Elo().fit(bp.load_comparisons(df.assign(w=1.0), weights="w")).ratings_
    pd.testing.assert_series_equal(ones, bp.Elo().fit(bp.load_comparisons(df)).ratings_)


def test_weighted_leaderboard_point_equals_repeated_rows_and_bootstraps_rows():
    df = pd.concat([_log()] * 5, ignore_index=True)
    w = np.random.default_rng(0).integers(1, 4, len(df)).astype(float)
    weighted = bp.load_comparisons(df.assign(w=w), weights="w")
    repeated = bp.load_comparisons(df.loc[df.index.repeat(w.astype(int))].reset_index(drop=True))
    a = leaderboard(weighted, n_boot=200, random_seed=1)
    b = leaderboard(repeated, n_boot=200, random_seed=1)
    np.testing.assert_allclose(a.table["strength"], b.table["strength"], atol=1e-8)
    # the bootstrap resamples the 30 weighted rows, not 60 repeated ones: wider intervals
    width = lambda t: (t["upper"] - t["lower"]).to_numpy()  # noqa: E731
    assert np.all(width(a.table) > width(b.table))
    # group_by keeps the weights
    groups = {"a": "x", "b": "y", "c": "y"}
    g = leaderboard(weighted, n_boot=50, random_seed=1, group_by=groups)
    h = leaderboard(repeated, n_boot=50, random_seed=1, group_by=groups)
    np.testing.assert_allclose(g.table["strength"], h.table["strength"], atol=1e-8)


def test_cli_weights_column(tmp_path, capsys):
    """``--weights-column``: fit reads it and says so; what counts verdicts refuses it."""
    import json

    from bayes_pairwise.cli import main

    df = _realistic(7)
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(df)).round(3)
    path = tmp_path / "weighted.csv"
    df.assign(w=w).to_csv(path, index=False)
    cols = ["--judge-column", "judge", "--context-column", "q", "--weights-column", "w"]
    assert main(["fit", str(path), *cols, "--model", "uniform", "--map", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    codes = [c["code"] for c in out["caveats"]]
    assert codes[0] == "weighted_log" and f"weigh {w.sum():.4g}" in out["caveats"][0]["text"]
    python = bp.UniformError().fit(
        bp.load_comparisons(df.assign(w=w), judge="judge", context="q", weights="w"),
        method="map",
        random_seed=0,
    )
    got = {j: out["parameters"][f"eps[{j}]"]["mean"] for j in ("J0", "J1")}
    want = python.idata_.posterior["eps"].sel(chain=0, draw=0).to_series()
    assert got == pytest.approx(want.to_dict(), rel=1e-4)
    assert main(["estimate", str(path), *cols, "--method", "scom"]) == 2
    assert "per-row weights" in capsys.readouterr().err
    assert main(["estimate", "prd_vicuna80", "--weights-column", "w", "--method", "scom"]) == 2
    assert "--weights-column applies to files" in capsys.readouterr().err


@pytest.mark.parametrize(
    "cls",
    [
        bp.PositionalBias,
        pytest.param(bp.BiasedBradleyTerry, marks=pytest.mark.slow),
        pytest.param(bp.PositionalOrder, marks=pytest.mark.slow),
    ],
)
def test_a_weighted_fit_round_trips_through_netcdf(cls, tmp_path):
    """The saved design rebuilds the weighted log: the reloaded model has the same density."""
    df = _realistic(8)
    w = np.random.default_rng(4).uniform(0.2, 2.5, len(df))
    ties = "half" if cls is bp.BiasedBradleyTerry else "model"
    data = bp.load_comparisons(df.assign(w=w), judge="judge", context="q", ties=ties, weights="w")
    m = cls().fit(data, method="map", random_seed=0)
    back = bp.load_model(m.save(tmp_path / "weighted.nc"))
    assert back.settings_["data"]["weighted"] is True
    point = m.model_.initial_point()
    assert back.model_.compile_logp()(point) == pytest.approx(m.model_.compile_logp()(point))
