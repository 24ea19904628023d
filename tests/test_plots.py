"""Plots: the *_data functions return the estimators' numbers; plots draw what they say."""

from __future__ import annotations

import subprocess
import sys

import arviz as az
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bayes_pairwise import plots
from bayes_pairwise.classical.deltas import DeltaS2DFit, DeltaSFit, observed_curve
from bayes_pairwise.classical.descriptive import (
    commutativity_score,
    estimate_eps_scom,
    first_position_rate,
    positional_moments,
)
from bayes_pairwise.matrices import w_matrix
from bayes_pairwise.simulate import simulate_round_robin


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sim():
    return simulate_round_robin(10, eps_plus=0.1, eps_minus=0.25, random_seed=3)


@pytest.fixture(scope="module")
def fit1d(sim, tmp_path_factory):
    d = tmp_path_factory.mktemp("cache")
    return DeltaSFit(n_subsets=40, random_seed=0, cache_dir=d).fit(sim.data)


@pytest.fixture(scope="module")
def fit2d(sim, tmp_path_factory):
    d = tmp_path_factory.mktemp("cache2")
    return DeltaS2DFit(grid_step=0.05, n_subsets=30, random_seed=0, cache_dir=d).fit(sim.data)


def _positional_idata(items, judges=None, *, chains=2, draws=150, seed=0):
    rng = np.random.default_rng(seed)
    n = len(items)
    shape = (chains, draws) if judges is None else (chains, draws, len(judges))
    post = {
        "eps_plus": rng.beta(10, 60, shape),
        "eps_minus": rng.beta(20, 60, shape),
        "strength": np.linspace(2, -2, n) + rng.normal(0, 0.2, (chains, draws, n)),
    }
    dims = {"strength": ["item"]}
    coords = {"item": list(items)}
    if judges is not None:
        dims.update(eps_plus=["judge"], eps_minus=["judge"])
        coords["judge"] = list(judges)
    return az.from_dict(posterior=post, coords=coords, dims=dims)


# ----------------------------------------------------------------------------- Δ_S
def test_delta_s_curve_data_equals_fit(fit1d):
    df = plots.delta_s_curve_data(fit1d)
    np.testing.assert_array_equal(df["observed"], fit1d.observed_curve_)
    np.testing.assert_array_equal(df["synthetic"], fit1d.synthetic_curve_)
    assert df["n"].tolist() == list(range(2, 11))
    assert df.attrs["eps"] == fit1d.eps_


def test_plot_delta_s_curve_uses_given_ax(fit1d):
    _fig, ax = plt.subplots()
    out = plots.plot_delta_s_curve(fit1d, ax=ax)
    assert out is ax
    assert len(ax.lines) == 2
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), fit1d.observed_curve_)
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), fit1d.synthetic_curve_)
    ax2 = plots.plot_delta_s_curve(fit1d, extra_eps={"posterior": 0.3})
    assert len(ax2.lines) == 3
    np.testing.assert_allclose(ax2.lines[2].get_ydata(), fit1d.table_.curve(0.3))


def test_delta_s_curve_of_2d_fit(fit2d):
    df = plots.delta_s_curve_data(fit2d)
    np.testing.assert_array_equal(df["observed"], fit2d.observed_curve_)
    assert df.attrs["kind"] == "2d"
    assert len(plots.plot_delta_s_curve(fit2d).lines) == 2


def test_misfit_curve(fit1d, fit2d):
    df = plots.misfit_curve_data(fit1d)
    np.testing.assert_array_equal(df["eps"], fit1d.grid_)
    np.testing.assert_array_equal(df["misfit"], fit1d.misfit_)
    ax = plots.plot_misfit_curve(fit1d, mark={"S_com": 0.2, "MAP": 0.18})
    assert len(ax.lines) == 4  # misfit + Δ_S estimate + two marks
    assert ax.lines[1].get_xdata()[0] == fit1d.eps_
    with pytest.raises(ValueError, match="heatmap"):
        plots.misfit_curve_data(fit2d)


def test_misfit_heatmap(fit2d):
    df = plots.misfit_heatmap_data(fit2d)
    g = fit2d.grid_.size
    assert len(df) == g * g
    np.testing.assert_array_equal(df["misfit"].to_numpy().reshape(g, g), fit2d.misfit_)
    row = df[(df.eps_plus == fit2d.grid_[1]) & (df.eps_minus == fit2d.grid_[4])]
    assert row["misfit"].item() == fit2d.misfit_[1, 4]
    assert df.attrs["identifiable"] is False
    assert df.attrs["eps_plus_split"] == fit2d.eps_plus_hybrid_
    _fig, ax = plt.subplots()
    out = plots.plot_misfit_heatmap(fit2d, ax=ax)
    assert out is ax and len(ax.images) == 1
    assert "symmetric" in ax.get_title()
    offsets = np.vstack([c.get_offsets() for c in ax.collections])
    assert [fit2d.eps_plus_, fit2d.eps_minus_] in offsets.tolist()
    assert [fit2d.eps_minus_, fit2d.eps_plus_] in offsets.tolist()  # the mirror


# ----------------------------------------------------------------------------- P(R_m)
def test_correct_score_data_matches_exact_value():
    df = plots.correct_score_data(0.15, ranks=[1, 2], n_max=10, methods=("exact", "paper"))
    at = df[(df["N"] == 10) & (df["m"] == 2)].set_index("method")["p"]
    assert at["exact"] == pytest.approx(0.1134, abs=0.001)
    assert at["paper_reversal_only"] == pytest.approx(0.054, abs=0.001)
    p1 = df[(df["N"] == 10) & (df["m"] == 1) & (df["method"] == "exact")]["p"].item()
    assert p1 == pytest.approx(0.85**18)
    assert df[df.m == 2]["N"].min() == 2


def test_plot_correct_score_lines():
    _fig, ax = plt.subplots()
    out = plots.plot_correct_score(0.1, ranks=range(1, 9), n_max=40, ax=ax)
    assert out is ax and len(ax.lines) == 8
    ax2 = plots.plot_correct_score(0.1, ranks=[1, 2, 3], n_max=20, methods=("exact", "paper"))
    assert len(ax2.lines) == 6
    # non-scalability: every curve ends lower than its maximum
    for line in ax.lines:
        y = line.get_ydata()
        assert y[-1] < y.max()


# ----------------------------------------------------------------------------- posterior vs grid
def test_posterior_vs_grid_data_numbers(sim):
    data = sim.data
    idata = _positional_idata(data.items)
    mom = positional_moments(data)
    scom = estimate_eps_scom(data)
    df = plots.posterior_vs_grid_data(idata, mom, scom, sim)
    post = df[df.kind == "posterior"].set_index("variable")
    assert post.loc["eps_plus", "estimate"] == pytest.approx(
        float(idata.posterior["eps_plus"].mean())
    )
    assert post.loc["eps_plus", "lower"] < post.loc["eps_plus", "estimate"]
    cl = df[df.kind != "posterior"].set_index(["variable", "source"])["estimate"]
    assert cl[("eps_plus", "moments (S_com, r₁)")] == mom.eps_plus
    assert cl[("eps_minus", "moments (S_com, r₁)")] == mom.eps_minus
    assert cl[("eps_plus", "realised (synthetic)")] == sim.realised_eps_plus
    # S_com estimates eps, which is not a variable of this posterior: not shown
    assert "S_com closed form" not in set(df["source"])


def test_posterior_vs_grid_nominal_gamma_per_judge():
    from bayes_pairwise.simulate import simulate_biased_bt

    sim = simulate_biased_bt(6, 300, gamma=[0.5, -0.2], n_judges=2, random_seed=0)
    rng = np.random.default_rng(0)
    idata = az.from_dict(
        posterior={"gamma": rng.normal([0.5, -0.2], 0.1, (2, 100, 2))},
        coords={"judge": ["j0", "j1"]},
        dims={"gamma": ["judge"]},
    )
    df = plots.posterior_vs_grid_data(idata, sim, judge="j1")
    truth = df[df.kind == "truth"]
    assert truth["estimate"].tolist() == [-0.2] and set(df["judge"]) == {"j1"}
    (ax,) = plots.plot_posterior_vs_grid(idata, sim, judge="j1")
    assert ax.get_title() == "gamma — j1" and len(ax.lines) == 2


def test_posterior_vs_grid_2d_fit_shows_split(fit2d, sim):
    df = plots.posterior_vs_grid_data(_positional_idata(sim.data.items), fit2d)
    cl = df[df.kind == "classical"].set_index("variable")["estimate"]
    assert cl["eps_plus"] == fit2d.eps_plus_hybrid_
    assert cl["eps_minus"] == fit2d.eps_minus_hybrid_


def test_posterior_vs_grid_matches_judges():
    idata = _positional_idata(["a", "b", "c"], judges=["j1", "j2"])
    classical = {"j1": {"eps_plus": 0.11}, "j2": {"eps_plus": 0.22, "eps_minus": 0.3}}
    df = plots.posterior_vs_grid_data(idata, ("given", classical))
    assert set(df["panel"]) == {"eps_plus[j1]", "eps_plus[j2]", "eps_minus[j1]", "eps_minus[j2]"}
    sel = df[df.kind == "classical"].set_index("panel")["estimate"]
    assert sel.to_dict() == {"eps_plus[j1]": 0.11, "eps_plus[j2]": 0.22, "eps_minus[j2]": 0.3}


def test_plot_posterior_vs_grid_lines_and_axes():
    idata = _positional_idata(["a", "b", "c"])
    _fig, axs = plt.subplots(1, 2)
    out = plots.plot_posterior_vs_grid(
        idata,
        ("moments", {"eps_plus": 0.1, "eps_minus": 0.2}),
        ("grid", {"eps_minus": 0.25}),
        ax=axs,
    )
    assert list(out) == list(axs)
    assert [len(a.lines) for a in out] == [2, 3]  # density + one line per classical estimate
    assert out[1].lines[2].get_xdata()[0] == 0.25


def test_plot_posterior_vs_grid_map_point():
    idata = az.from_dict(posterior={"eps": np.array([[0.12]])}, attrs={"method": "map"})
    (ax,) = plots.plot_posterior_vs_grid(idata, ("S_com", {"eps": 0.13}))
    assert len(ax.lines) == 2
    assert ax.lines[0].get_xdata()[0] == 0.12
    df = plots.posterior_vs_grid_data(idata)
    assert df["kind"].tolist() == ["point"] and df["source"].item() == "MAP"


def test_point_posterior_label_from_model_stamp():
    idata = az.from_dict(posterior={"eps": np.array([[0.12]])})
    idata.posterior.attrs["bayes_pairwise_settings"] = '{"method": "map"}'
    assert plots.posterior_vs_grid_data(idata)["source"].item() == "MAP"
    plain = az.from_dict(posterior={"eps": np.array([[0.12]])})
    assert plots.posterior_vs_grid_data(plain)["source"].item() == "point estimate"
    (ax,) = plots.plot_posterior_vs_grid(plain, ("grid", {"eps": 0.2}))
    lo, hi = ax.get_xlim()
    assert lo < 0.12 < 0.2 < hi and hi - lo < 0.5  # framed around the lines


def test_posterior_vs_grid_needs_error_variables():
    idata = az.from_dict(posterior={"theta": np.zeros((1, 5))})
    with pytest.raises(ValueError, match="none of the variables"):
        plots.posterior_vs_grid_data(idata)


# ----------------------------------------------------------------------------- forests
def test_strength_forest_data_centres_within_contexts():
    items = ["q1::a", "q1::b", "q2::a", "q2::b"]
    rng = np.random.default_rng(0)
    draws = np.array([1.0, 0.0, 5.0, 3.0]) + rng.normal(0, 0.1, (2, 100, 4))
    idata = az.from_dict(
        posterior={"strength": draws}, coords={"item": items}, dims={"strength": ["item"]}
    )
    mm = pd.Series([0.5, 0.0, 2.0, 1.0], index=items)
    df = plots.strength_forest_data(idata, mm)
    assert df["group"].tolist() == ["q1", "q1", "q2", "q2"]
    centred = draws - np.stack([draws[..., :2].mean(-1)] * 2 + [draws[..., 2:].mean(-1)] * 2, -1)
    np.testing.assert_allclose(df["mean"].to_numpy(), centred.mean((0, 1)))
    np.testing.assert_allclose(df["mm"].to_numpy(), [0.25, -0.25, 0.5, -0.5])
    np.testing.assert_allclose(df["mm_scaled"], df.attrs["mm_scale"] * df["mm"])
    assert df.attrs["mm_scale"] == pytest.approx(2.0, rel=0.05)
    assert (df["lower"] < df["mean"]).all() and (df["mean"] < df["upper"]).all()
    assert plots.strength_forest_data(idata, groups=None)["group"].eq("").all()


def test_plot_strength_forest():
    idata = _positional_idata([f"t{k}" for k in range(12)])
    mm = pd.Series(np.linspace(1, -1, 12), index=[f"t{k}" for k in range(12)])
    _fig, ax = plt.subplots()
    out = plots.plot_strength_forest(idata, mm, ax=ax, max_items=10)
    assert out is ax
    assert len(ax.get_yticks()) == 10
    assert len(ax.containers) == 1
    assert ax.collections[-1].get_offsets().shape[0] == 10  # MM markers
    sub = plots.strength_forest_data(idata, items=["t3", "t1"], sort=False)
    assert sub.index.tolist() == ["t3", "t1"]
    with pytest.raises(KeyError):
        plots.strength_forest_data(idata, items=["nope"])


def test_judge_forest_data_and_plot():
    fits = {
        "j1": _positional_idata(["a", "b"], seed=1),
        "j2": _positional_idata(["a", "b"], seed=2),
        "j3": _positional_idata(["a", "b"], seed=3),
    }
    classical = pd.DataFrame(
        {"eps_plus": [0.1, 0.2, 0.3], "eps_minus": [0.3, 0.2, 0.1]}, index=["j1", "j2", "j3"]
    )
    df = plots.judge_forest_data(fits, classical=classical)
    post = df[df.source == "posterior"].set_index(["judge", "variable"])["mean"]
    assert post[("j2", "eps_minus")] == pytest.approx(
        float(fits["j2"].posterior["eps_minus"].mean())
    )
    assert len(df[df.source == "classical"]) == 6
    _fig, ax = plt.subplots()
    out = plots.plot_judge_forest(fits, classical=classical, ax=ax)
    assert out is ax
    assert [t.get_text() for t in ax.get_yticklabels()] == ["j1", "j2", "j3"]
    assert len(ax.containers) == 2  # one error-bar container per variable
    # a multi-judge posterior gives the same rows
    multi = _positional_idata(["a"], judges=["x", "y"])
    assert plots.judge_forest_data(multi)["judge"].unique().tolist() == ["x", "y"]


# ----------------------------------------------------------------------------- trace / rank
def test_trace_and_rank_exclude_strength():
    idata = _positional_idata(["a", "b", "c"])
    td = plots.trace_data(idata)
    assert set(td["variable"]) == {"eps_plus", "eps_minus"} and len(td) == 2 * 2 * 150
    axes = plots.plot_trace(idata)
    assert axes.shape == (2, 2)
    assert plots.plot_rank(idata).size == 2


# ----------------------------------------------------------------------------- MM vs posterior
def test_bt_vs_posterior():
    idata = _positional_idata([f"t{k}" for k in range(8)])
    mm = pd.Series(np.linspace(1, -1, 8), index=[f"t{k}" for k in range(8)])
    df = plots.bt_vs_posterior_data(idata, mm)
    assert df.attrs["spearman"] == pytest.approx(1.0)
    np.testing.assert_allclose(df["mm"].to_numpy(), mm.to_numpy())
    _fig, ax = plt.subplots()
    out = plots.plot_bt_vs_posterior(idata, mm, ax=ax)
    assert out is ax and len(ax.lines) == 1
    assert ax.collections[-1].get_offsets().shape[0] == 8


# ----------------------------------------------------------------------------- PPC
def _hard_idata(sim, **eps):
    s = sim.true_strengths.reindex(list(sim.data.items)).to_numpy()
    post = {k: np.full((1, 40), v) for k, v in eps.items()}
    post["strength"] = np.broadcast_to(50.0 * s, (1, 40, s.size)).copy()
    return az.from_dict(
        posterior=post, coords={"item": list(sim.data.items)}, dims={"strength": ["item"]}
    )


def test_ppc_observed_statistics_equal_classical(sim):
    idata = _hard_idata(sim, eps_plus=0.1, eps_minus=0.25)
    df = plots.ppc_data(idata, sim.data, n_draws=40, n_draws_curve=3, n_subsets=500)
    obs = df.groupby("statistic")["observed"].first()
    assert obs["s_com"] == pytest.approx(commutativity_score(sim.data))
    assert obs["first_position_rate"] == pytest.approx(first_position_rate(sim.data))
    curve = df[(df.statistic == "delta_s") & (df.draw == 0)]["observed"].to_numpy()
    # 10 items: C(10, n) <= 500 subsets for every n, so both curves enumerate all of them
    expected = observed_curve(w_matrix(sim.data).to_numpy(), 500, random_seed=0)
    np.testing.assert_allclose(curve, expected)
    assert set(df.attrs["p_value"]) == {"s_com", "first_position_rate"}


def test_ppc_replicates_follow_the_error_rates(sim):
    # no error and a decisive truth: every replicate is a perfect round-robin
    df = plots.ppc_data(_hard_idata(sim, eps=0.0), sim.data, n_draws=20, n_draws_curve=2)
    rep = df.groupby("statistic")["replicated"]
    assert rep.max()["s_com"] == 0.0
    assert rep.max()["first_position_rate"] == pytest.approx(0.5)
    assert rep.max()["delta_s"] == 0.0
    # eps_plus = 0, eps_minus = 1: the first-shown text always wins
    df = plots.ppc_data(
        _hard_idata(sim, eps_plus=0.0, eps_minus=1.0),
        sim.data,
        statistics=("s_com", "first_position_rate"),
        n_draws=10,
    )
    rep = df.groupby("statistic")["replicated"]
    assert rep.min()["first_position_rate"] == 1.0 and rep.min()["s_com"] == 1.0


def test_ppc_is_seeded(sim):
    idata = _hard_idata(sim, eps=0.2)
    a = plots.ppc_data(idata, sim.data, n_draws=30, n_draws_curve=2, random_seed=5)
    b = plots.ppc_data(idata, sim.data, n_draws=30, n_draws_curve=2, random_seed=5)
    pd.testing.assert_frame_equal(a, b)


def test_plot_ppc(sim):
    idata = _hard_idata(sim, eps=0.2)
    _fig, axs = plt.subplots(1, 3)
    out = plots.plot_ppc(idata, sim.data, n_draws=30, n_draws_curve=3, ax=axs)
    assert list(out) == list(axs)
    assert [len(a.lines) for a in out] == [1, 1, 2]
    assert len(out[0].patches) > 0  # the histogram


# ----------------------------------------------------------------------------- misc
def test_user_text_is_not_mathtext():
    assert plots.short_label("f$x$") == r"f\$x\$"
    assert plots.short_label("_hidden").strip() == "_hidden" and not plots.short_label(
        "_h"
    ).startswith("_")


def test_estimators_do_not_import_plotting():
    code = (
        "import sys, bayes_pairwise.classical.deltas, bayes_pairwise.classical.descriptive, "
        "bayes_pairwise.classical.correct_score, bayes_pairwise.classical.bradley_terry;"
        "assert 'bayes_pairwise.plots' not in sys.modules;"
        "assert 'matplotlib.pyplot' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_ppc_uses_model_replicates_when_judge_saw_fewer_items() -> None:
    """After ``for_judge`` keeps only the judge's items, the PPC still finds the joint model's
    own replicates (matched by item label, not by the block's renumbered indexes)."""
    import pandas as pd

    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.pymc_models import PositionalBias

    rng = np.random.default_rng(3)
    rows = []
    for judge, items in (("a", list("pqrstu")), ("b", list("rstu"))):
        for x in items:
            for y in items:
                if x != y:
                    rows.append(
                        {
                            "first": x,
                            "second": y,
                            "judge": judge,
                            "outcome": "first" if rng.random() < 0.55 else "second",
                        }
                    )
    data = load_comparisons(pd.DataFrame(rows), judge="judge")
    assert data.for_judge("b").n_items == 4
    m = PositionalBias().fit(data, method="map", random_seed=0)
    m.sample_posterior_predictive(random_seed=0, point_draws=30)
    df = plots.ppc_data(m, data, judge="b", n_draws=20, n_draws_curve=2, statistics=("s_com",))
    assert df.attrs["replicates"] == "model posterior_predictive"


# ------------------------------------------------------------------- data= (the report's path)
def _drawn(ax):
    """What an Axes shows: line data, collection offsets, tick labels, title."""
    lines = [np.asarray(line.get_xydata()) for line in ax.lines]
    offsets = [np.asarray(c.get_offsets()) for c in ax.collections]
    return lines, offsets, [t.get_text() for t in ax.get_yticklabels()], ax.get_title()


def _same(a, b):
    la, oa, ta, ha = _drawn(a)
    lb, ob, tb, hb = _drawn(b)
    assert ta == tb and ha == hb and len(la) == len(lb) and len(oa) == len(ob)
    for x, y in zip(la + oa, lb + ob, strict=True):
        np.testing.assert_allclose(x, y)


def test_plots_draw_a_given_table_as_they_draw_their_own():
    """Given the *_data table (as the cross-check stores it), a plot draws exactly what it draws
    from the raw posterior: the report's figures are the standalone figures."""
    items = [f"t{k}" for k in range(12)]
    idata = _positional_idata(items, judges=["x", "y"])
    mm = pd.Series(np.linspace(1, -1, 12), index=items)
    classical = pd.DataFrame({"eps_plus": [0.1, 0.2], "eps_minus": [0.3, 0.2]}, index=["x", "y"])

    table = plots.strength_forest_data(idata, mm, sort=False)
    _same(
        plots.plot_strength_forest(idata, mm, max_items=8),
        plots.plot_strength_forest(data=table, max_items=8),
    )
    _same(
        plots.plot_bt_vs_posterior(idata, mm),
        plots.plot_bt_vs_posterior(data=plots.bt_vs_posterior_data(idata, mm, strengths=table)),
    )
    forest = plots.judge_forest_data(idata, classical=classical)
    _same(
        plots.plot_judge_forest(idata, classical=classical),
        plots.plot_judge_forest(data=forest),
    )
    panels = plots.posterior_vs_grid_data(idata, ("moments", {"x": {"eps_plus": 0.1}}), judge="x")
    a = plots.plot_posterior_vs_grid(idata, ("moments", {"x": {"eps_plus": 0.1}}), judge="x")
    b = plots.plot_posterior_vs_grid(idata, data=panels)
    for pa, pb in zip(a, b, strict=True):
        _same(pa, pb)
    curves = plots.correct_score_data(eps_plus=0.1, eps_minus=0.2, ranks=[1, 2], n_max=20)
    _same(
        plots.plot_correct_score(eps_plus=0.1, eps_minus=0.2, ranks=[1, 2], n_max=20),
        plots.plot_correct_score(data=curves),
    )
    with pytest.raises(ValueError, match="precomputed"):
        plots.plot_ppc(idata)


def test_plot_ppc_on_a_tie_log_draws_the_tie_statistics_in_two_rows():
    """With ties modelled the check has five statistics (S_com split into its decided part and
    the pairs tied in both orders): five panels, three per row, each scalar panel's vertical
    line at the observed value of ppc_data."""
    from bayes_pairwise.pymc_models import UniformError
    from bayes_pairwise.pymc_models.ppc import ppc_data
    from bayes_pairwise.simulate import simulate_hard_pairs

    data = simulate_hard_pairs(8, tie_rate=0.15, n_contexts=30, labelled=0.0, random_seed=2).data
    fit = UniformError().fit(data, method="map", random_seed=0)
    fit.sample_posterior_predictive(random_seed=0, point_draws=40)
    df = ppc_data(fit, data, n_draws=40, n_draws_curve=3)
    axes = plots.plot_ppc(fit, ppc=df)
    assert len(axes) == 5
    assert axes[0].get_subplotspec().get_geometry()[:2] == (2, 3)
    for ax, stat in zip(axes, ["s_com", "first_position_rate", "delta_s", "s_com_decided",
                                "ties_both_orders"], strict=True):  # fmt: skip
        if stat == "delta_s":
            continue
        observed = float(df[df.statistic == stat]["observed"].iloc[0])
        assert ax.lines[-1].get_xdata()[0] == pytest.approx(observed)
    plt.close("all")
