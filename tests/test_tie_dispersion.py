"""A tie rate that varies by context (``tie_dispersion=True`` on the order models): a
beta-binomial tie count per context and judge, checked against SciPy, finite differences, the
one-rate model it contains, recovery on a log whose questions differ in how often they tie, and
PSIS-LOO on that log."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import comb
from scipy.stats import betabinom

import bayes_pairwise as bp
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models.order import tie_dispersion_logp
from bayes_pairwise.pymc_models.order_density import order_density_logp_grad


def _clustered_log(
    seed: int, *, n_contexts=60, size=4, tie_rate=0.15, tie_rho=0.3, eps=(0.05, 0.2), judges=("A",)
):
    """Round robins with a hard truth (lower index better), each pair once in each order per
    judge; each context's tie probability ~ Beta(mean tie_rate, correlation tie_rho) per judge;
    a decided verdict errs with ε₊ (better first) or ε₋ (better second)."""
    rng = np.random.default_rng(seed)
    kappa = 1.0 / tie_rho - 1.0
    rows = []
    for c in range(n_contexts):
        for judge in judges:
            tau_c = rng.beta(tie_rate * kappa, (1.0 - tie_rate) * kappa)
            for i, j in itertools.permutations(range(size), 2):
                if rng.random() < tau_c:
                    out = "tie"
                else:
                    better_first = i < j
                    err = rng.random() < (eps[0] if better_first else eps[1])
                    out = "first" if better_first != err else "second"
                rows.append((f"c{c}i{i}", f"c{c}i{j}", out, f"q{c}", judge))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "q", "judge"])


def test_the_tie_term_is_scipys_beta_binomial_without_the_coefficient():
    t = np.array([0.0, 3.0, 12.0, 5.0])
    d = np.array([12.0, 9.0, 0.0, 0.0])
    for tau, rho in [(0.2, 0.1), (0.6, 0.9), (0.05, 1e-6)]:
        kappa = 1.0 / rho - 1.0
        n = t + d
        want = betabinom.logpmf(t, n, tau * kappa, (1 - tau) * kappa) - np.log(comb(n, t))
        np.testing.assert_allclose(tie_dispersion_logp(t, d, tau, rho), want, rtol=1e-9)
    # rho -> 0: one tie rate, t log tau + d log(1 - tau)
    np.testing.assert_allclose(
        tie_dispersion_logp(t, d, 0.2, 1e-9),
        t * np.log(0.2) + d * np.log(0.8),
        rtol=1e-6,
    )


@pytest.mark.parametrize("cls", [bp.PositionalOrder, bp.UniformOrder])
def test_the_written_out_gradient_is_the_finite_difference_even_at_extreme_rho(cls):
    data = bp.load_comparisons(
        _clustered_log(0, n_contexts=8, judges=("A", "B")), context="q", judge="judge"
    )
    spec, why = cls(tie_dispersion=True).written_out_density(data)
    assert why == "" and spec.names[-1] == "tie_rho_logodds__"
    rng = np.random.default_rng(3)
    for u in (-9.0, 0.4, 7.0):  # rho 1e-4 (kappa 8,100), 0.6, 0.999
        x = rng.normal(0.0, 0.7, spec.n_dim)
        x[-2:] = u
        lp, grad = order_density_logp_grad(spec, x)
        h = 1e-6
        fd = np.array(
            [
                (order_density_logp_grad(spec, x + h * e)[0] - order_density_logp_grad(
                    spec, x - h * e
                )[0]) / (2 * h)
                for e in np.eye(spec.n_dim)
            ]
        )  # fmt: skip
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-5)
        assert np.isfinite(lp)


@pytest.mark.slow  # 19 s cold (the dispersed model's first compile): the default run's margin
def test_the_error_rates_do_not_depend_on_it_and_the_tie_spread_is_recovered():
    """The tie terms and the order terms are separate factors: MAP's error rates are those of
    the one-rate model; the tie rate is the same mean and tie_rho finds the simulated 0.3."""
    df = _clustered_log(1, n_contexts=200)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    one = bp.PositionalOrder().fit(data, method="map", random_seed=0)
    spread = bp.PositionalOrder(tie_dispersion=True).fit(data, method="map", random_seed=0)
    p1, p2 = one.idata_.posterior, spread.idata_.posterior
    for name in ("eps_plus", "eps_minus"):
        assert float(p2[name].values.ravel()[0]) == pytest.approx(
            float(p1[name].values.ravel()[0]), abs=1e-5
        )
    # the one rate's mode under its Logistic(0, 1) prior (τ ~ Uniform): (t + 1) / (n + 2)
    t, n = int((df["outcome"] == "tie").sum()), len(df)
    assert float(p1["tie_rate"].values.ravel()[0]) == pytest.approx((t + 1) / (n + 2), abs=1e-6)
    assert float(p2["tie_rate"].values.ravel()[0]) == pytest.approx(0.15, abs=0.03)
    assert float(p2["tie_rho"].values.ravel()[0]) == pytest.approx(0.3, abs=0.08)
    assert p2["tie_rho"].dims == ("chain", "draw", "judge")
    assert "tie_rho" in spread.reported_names()
    from bayes_pairwise.pymc_models.diagnostics import tie_handling

    # the order models observe contexts and keep the pair counts as constant data: their tie
    # handling is read there (it said "none", 0 ties modelled, before)
    assert tie_handling(spread)["tie_rates"] == "per judge, varying by context"
    assert tie_handling(one)["tie_rates"] == "per judge"
    assert tie_handling(one)["handling"] == "model" and tie_handling(one)["n_ties_modelled"] == t


def test_it_is_refused_where_it_cannot_apply():
    df = _clustered_log(2, n_contexts=6)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    with pytest.raises(DesignError, match="do not combine"):
        bp.PositionalOrder(tie_dispersion=True, tie_positional=True).fit(data, method="map")
    dropped = bp.load_comparisons(df, context="q", judge="judge", ties="drop")
    with pytest.raises(DesignError, match="models no ties"):
        bp.UniformOrder(tie_dispersion=True).fit(dropped, method="map")
    weighted = bp.load_comparisons(
        df.assign(w=0.5), context="q", judge="judge", ties="model", weights="w"
    )
    with pytest.raises(DesignError, match="weighted"):
        bp.UniformOrder(tie_dispersion=True).fit(weighted, method="map")
    with pytest.raises(ValueError, match="unknown setting"):
        bp.UniformError().set_params(tie_dispersion=True)


def test_nuts_loo_prefers_it_where_questions_differ_and_it_round_trips(tmp_path):
    """On a log whose questions tie at different rates the one-rate model mispredicts the
    questions tied throughout: PSIS-LOO prefers the dispersed tie rate by several standard
    errors, its p_loo is smaller, tie_rho meets the log's dispersion ratio, and its interval
    for the tie rate is wider (the one-rate model's is too narrow for such a log)."""
    from bayes_pairwise.caveats import tie_dispersion
    from bayes_pairwise.model_checking import compare_fitted

    df = _clustered_log(4, n_contexts=120)
    data = bp.load_comparisons(df, context="q", judge="judge", ties="model")
    kw = {"draws": 400, "tune": 400, "chains": 2}
    one = bp.PositionalOrder(**kw).fit(data, random_seed=1)
    spread = bp.PositionalOrder(tie_dispersion=True, **kw).fit(data, random_seed=1)
    assert spread.settings_["log_density"] == "written out"
    table = compare_fitted({"one rate": one, "by context": spread})
    table = table.set_index("model")
    assert table.index[0] == "by context"
    assert float(table.loc["one rate", "elpd_diff"]) > 3 * float(table.loc["one rate", "dse"])
    assert float(table.loc["by context", "p_loo"]) < float(table.loc["one rate", "p_loo"])
    # tie_rho meets the caveat's dispersion ratio of the same log: ratio = 1 + (n − 1) ρ for
    # n = 12 verdicts per context (this draw of the log: ρ ≈ 0.22 where 0.3 was simulated)
    (d,) = tie_dispersion(data)
    rho = spread.idata_.posterior["tie_rho"].values.ravel()
    assert float(np.median(rho)) == pytest.approx((d.ratio - 1.0) / 11.0, abs=0.03)
    sd_one = float(one.idata_.posterior["tie_rate"].std())
    sd_spread = float(spread.idata_.posterior["tie_rate"].std())
    assert sd_spread > 1.5 * sd_one
    back = bp.load_model(spread.save(tmp_path / "spread.nc"))
    assert back.get_params()["tie_dispersion"] is True
    np.testing.assert_array_equal(
        back.idata_.posterior["tie_rho"], spread.idata_.posterior["tie_rho"]
    )


@pytest.mark.slow  # four CLI runs, two MAP fits with the log-level checks
def test_cli_fit_takes_it_for_the_order_models_and_names_the_others(tmp_path, capsys):
    import json

    from bayes_pairwise.cli import main

    path = tmp_path / "clustered.csv"
    _clustered_log(5, n_contexts=80).to_csv(path, index=False)
    base = ["fit", str(path), "--context-column", "q", "--ties", "model", "--map"]
    assert main([*base, "--model", "positional_order", "--tie-dispersion", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parameters"]["tie_rho"]["mean"] == pytest.approx(0.3, abs=0.1)
    # the caveat says the fit allows for the clustering (and names the option where it does not)
    codes = {c["code"]: c["text"] for c in out["caveats"]}
    assert "positional_order lets the tie rate vary by context" in codes["ties_cluster_by_context"]
    assert main([*base, "--model", "positional_order", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "tie_rho" not in plain["parameters"]
    text = {c["code"]: c["text"] for c in plain["caveats"]}["ties_cluster_by_context"]
    assert "fit --tie-dispersion" in text and "too narrow" in text
    # the report renders the classical tie correlation beside the tie share
    out_html = tmp_path / "disp.html"
    args = ["report", str(path), "--context-column", "q", "--ties", "model", "--map"]
    assert (
        main([*args, "--model", "positional_order", "--tie-dispersion", "--out", str(out_html)])
        == 0
    )
    capsys.readouterr()
    page = out_html.read_text(encoding="utf-8")
    assert "tie correlation ρ (moments, per context)" in page and "tie_rho" in page
    for cmd in ("fit", "compare", "report"):
        args = [cmd, str(path), "--context-column", "q", "--model", "positional", "--map"]
        if cmd == "report":
            args += ["--out", str(tmp_path / "r.html")]
        assert main([*args, "--tie-dispersion"]) == 2
        assert "--tie-dispersion: positional has no" in capsys.readouterr().err


@pytest.mark.slow  # a 12,000-item design simulated, two SBC fits
def test_sbc_simulates_ties_that_vary_by_context_and_ranks_tie_rho(quick_sbc, mock_sampler):
    """The SBC generative process draws one tie probability per context and judge from the
    Beta: the tie counts' variance is n τ(1 − τ)(1 + (n − 1) ρ); the contexts survive into
    the simulated log; tie_rho is ranked beside the rates."""
    from bayes_pairwise.model_checking import _design, _order_counts, sbc
    from bayes_pairwise.simulate import log_from_counts

    design = _design(4, 1, 3, n_contexts=3000)  # 36 verdicts per context
    assert design.n_contexts == 3000 and design.n_items == 12_000
    values = {
        "eps_plus": np.array([0.05]),
        "eps_minus": np.array([0.2]),
        "tie_rate": np.array([0.2]),
        "tie_rho": np.array([0.25]),
    }
    wins = _order_counts(design, values, True, 7)
    log = log_from_counts(design, wins)
    assert log.n_contexts == 3000 and log.contexts == design.contexts
    pc = bp.pair_counts(log)
    ctx = np.asarray(log.item_context)[pc.i]
    t = np.bincount(ctx, pc.t1 + pc.t2, log.n_contexts)
    n = 36
    assert t.mean() / n == pytest.approx(0.2, abs=0.01)
    want = n * 0.2 * 0.8 * (1 + (n - 1) * 0.25)
    assert t.var() == pytest.approx(want, rel=0.1)
    res = quick_sbc(
        "positional_order",
        n_items=4,
        n_contexts=5,
        sims=2,
        ties=True,
        tie_dispersion=True,
    )
    assert res.failed == 0
    assert {p.split("[")[0] for p in res.ranks["parameter"]} == {
        "eps_plus", "eps_minus", "tie_rate", "tie_rho"
    }  # fmt: skip
    assert mock_sampler[0]["direct"] is not None  # the written-out density
    with pytest.raises(DesignError, match="n_contexts >= 2"):
        sbc("positional_order", n_items=4, sims=1, ties=True, tie_dispersion=True)
    with pytest.raises(DesignError, match="no tie rate that varies by context"):
        sbc("positional", n_items=4, n_contexts=3, sims=1, ties=True, tie_dispersion=True)


def _order_crosscheck(data, tie_dispersion):
    """positional_order's MAP in the cross-check with the tie form ``tie_dispersion`` (no Δ_S
    grids): the result and its table indexed by (quantity, role)."""
    cc = bp.crosscheck(
        data,
        models=("positional_order",),
        method="map",
        tie_dispersion=tie_dispersion,
        random_seed=0,
        delta_s=False,
        delta_s_2d=False,
    )
    return cc, cc.table.set_index(["quantity", "role"])


@pytest.mark.slow  # 400 simulated logs and two cross-checks
def test_the_classical_tie_correlation_is_unbiased_and_meets_tie_rho_in_the_cross_check():
    """The moment estimate of ρ (the cross-check's classical row for tie_rho): unbiased at
    ρ = 0.2 and at 0 with unequal context sizes, NaN where it cannot be computed, and beside
    the order model's tie_rho in the cross-check, with an agreement row."""
    from bayes_pairwise.classical.descriptive import tie_correlation

    rng = np.random.default_rng(3)
    for rho in (0.2, 0.0):
        est = []
        for _ in range(200):
            n = rng.integers(5, 60, size=200)
            kappa = 1 / rho - 1 if rho else None
            p = rng.beta(0.15 * kappa, 0.85 * kappa, size=200) if rho else np.full(200, 0.15)
            est.append(tie_correlation(rng.binomial(n, p), n, n_boot=2).rho)
        assert np.mean(est) == pytest.approx(rho, abs=0.006)
    assert np.isnan(tie_correlation([0, 0], [5, 6]).rho)  # no tie at all
    assert np.isnan(tie_correlation([3], [5]).rho)  # one context
    r = tie_correlation([0, 12, 1, 0, 11, 0], [12] * 6, random_seed=0)
    assert r.rho_lower <= r.rho <= r.rho_upper and r.share == pytest.approx(24 / 72)
    # the share's interval from resampled contexts: wider than Wilson's where ties cluster
    from bayes_pairwise.classical.descriptive import wilson_interval

    lo, hi = wilson_interval(24, 72)
    assert r.share_upper - r.share_lower > 2 * (hi - lo)

    data = bp.load_comparisons(_clustered_log(5, n_contexts=80), context="q", ties="model")
    cc, t = _order_crosscheck(data, True)
    classical = t.loc[("tie_rho", "classical")]
    assert classical["method"] == "moments of the tie counts per context"
    assert classical["lower"] < 0.3 < classical["upper"]
    model = t.loc[("tie_rho", "model")]
    assert model["estimate"] == pytest.approx(classical["estimate"], abs=0.05)
    share = t.loc[("tie_rate", "classical")]  # these ties cluster: contexts resampled
    assert share["interval"].endswith("bootstrap over contexts")
    # one tie rate for every context: Wilson's interval, as before
    flat = bp.load_comparisons(
        _clustered_log(5, n_contexts=80, tie_rho=1e-6), context="q", ties="model"
    )
    cc_flat = bp.crosscheck(flat, models=(), method="map", delta_s=False, delta_s_2d=False)
    row = cc_flat.table.set_index(["quantity", "role"]).loc[("tie_rate", "classical")]
    assert row["interval"].endswith("Wilson")
    a = cc.agreement[cc.agreement.quantity == "tie_rho"]
    assert len(a) == 1 and bool(a.overlap.iloc[0]) and not bool(a.primary.iloc[0])
    assert cc.settings["tie_dispersion"] is True


# ---------------------------------------------------------------- by pair (tie_dispersion="pair")
def _paired_log(seed: int, *, n_contexts=150, size=4, tie_rate=0.15, tie_rho=0.5, eps=(0.05, 0.2)):
    """Round robins with a hard truth (lower index better), each pair once in each order; each
    pair's tie probability ~ Beta(mean tie_rate, correlation tie_rho), shared by its two
    verdicts (a pair tied in one order is tied in the other more often than chance)."""
    rng = np.random.default_rng(seed)
    kappa = 1.0 / tie_rho - 1.0
    rows = []
    for c in range(n_contexts):
        for i, j in itertools.combinations(range(size), 2):
            tau_p = rng.beta(tie_rate * kappa, (1.0 - tie_rate) * kappa)
            for a, b in ((i, j), (j, i)):
                if rng.random() < tau_p:
                    out = "tie"
                else:
                    better_first = a < b
                    err = rng.random() < (eps[0] if better_first else eps[1])
                    out = "first" if better_first != err else "second"
                rows.append((f"c{c}i{a}", f"c{c}i{b}", out, f"q{c}"))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "q"])


def test_by_pair_the_tie_terms_are_each_pairs_beta_binomial_and_the_gradient_is_exact():
    """The per-context log-likelihood of tie_dispersion="pair" is the one-rate model's plus,
    for every pair of the context, SciPy's beta-binomial of its tie count less the binomial
    (the order terms are the same factor); the groups cover every verdict once; the
    written-out gradient is the finite difference."""
    from bayes_pairwise.pymc_models.order import _tie_counts, _tie_groups

    df = _paired_log(0, n_contexts=12)
    data = bp.load_comparisons(df, context="q", ties="model")
    pc = bp.pair_counts(data)
    t, d, judge = _tie_groups(pc, data, "pair")
    assert t.shape == (12, 6) and np.all(judge == 0)
    tc, dc = _tie_counts(pc, data)
    np.testing.assert_array_equal(t.sum(1), tc[:, 0])
    np.testing.assert_array_equal(d.sum(1), dc[:, 0])
    pair, _ = bp.PositionalOrder(tie_dispersion="pair").written_out_density(data)
    one, _ = bp.PositionalOrder().written_out_density(data)
    assert pair.names[-1] == "tie_rho_logodds__" and pair.tie_cells[:, 3].sum() == 72
    values = {
        "eps_plus": np.array([[0.07]]),
        "eps_minus": np.array([[0.18]]),
        "tie_logit": np.array([[np.log(0.15 / 0.85)]]),
        "tie_rho": np.array([[0.4]]),
    }
    kappa = 1 / 0.4 - 1
    n = t + d
    bb = betabinom.logpmf(t, n, 0.15 * kappa, 0.85 * kappa) - np.log(comb(n, t))
    binom = t * np.log(0.15) + d * np.log(0.85)
    np.testing.assert_allclose(
        pair.pointwise(values)[0], one.pointwise(values)[0] + (bb - binom).sum(1), rtol=1e-10
    )
    rng = np.random.default_rng(4)
    for u in (-6.0, 0.3, 5.0):
        x = rng.normal(0.0, 0.7, pair.n_dim)
        x[-1] = u
        _, grad = order_density_logp_grad(pair, x)
        h = 1e-6
        fd = [
            (order_density_logp_grad(pair, x + h * e)[0] - order_density_logp_grad(
                pair, x - h * e
            )[0]) / (2 * h)
            for e in np.eye(pair.n_dim)
        ]  # fmt: skip
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-5)


def test_by_pair_the_simulated_ties_share_one_probability_per_pair():
    """order_counts(tie_by="pair") draws one tie probability per pair row: a pair's two
    verdicts are both ties with probability τ² + ρ τ (1 − τ), not τ², while two different
    pairs of one context tie independently (τ²); by context both share the probability."""
    from bayes_pairwise.model_checking import _design, _order_counts

    design = _design(4, 1, 1, n_contexts=4000)  # 24,000 pairs, each once in each order
    values = {
        "eps_plus": np.array([0.05]),
        "eps_minus": np.array([0.2]),
        "tie_rate": np.array([0.2]),
        "tie_rho": np.array([0.4]),
    }
    pc = bp.pair_counts(design)
    ctx = np.asarray(design.item_context)[pc.i]
    first = np.unique(ctx, return_index=True)[1]  # the first two pairs of every context
    correlated, independent = 0.04 + 0.4 * 0.16, 0.04
    for by, same_pair, other_pair in (
        ("pair", correlated, independent),
        ("context", correlated, correlated),
    ):
        wins = _order_counts(design, values, True, 7, tie_by=by)
        t1, t2 = wins[:, 2], wins[:, 3]
        assert t1.mean() == pytest.approx(0.2, abs=0.01)
        assert np.mean((t1 == 1) & (t2 == 1)) == pytest.approx(same_pair, abs=0.006)
        both = np.mean((t1[first] == 1) & (t1[first + 1] == 1))
        assert both == pytest.approx(other_pair, abs=0.012)
    with pytest.raises(ValueError, match="tie_by"):
        _order_counts(design, values, True, 7, tie_by="judge")


def test_by_pair_it_is_refused_where_it_cannot_apply_and_the_setting_is_checked():
    once = _paired_log(1, n_contexts=6)
    once = once[once.groupby(once["first"].str[:3] + once["second"].str[:3]).cumcount() >= 0]
    once = once.iloc[::2]  # each pair in one order only: no pair seen twice
    data = bp.load_comparisons(once, context="q", ties="model")
    with pytest.raises(DesignError, match="not identified"):
        bp.PositionalOrder(tie_dispersion="pair").fit(data, method="map")
    full = bp.load_comparisons(_paired_log(1, n_contexts=6), context="q", ties="model")
    with pytest.raises(ValueError, match="tie_dispersion must be"):
        bp.PositionalOrder(tie_dispersion="judge").fit(full, method="map")
    with pytest.raises(ValueError, match="tie_dispersion must be"):
        bp.crosscheck(full, models=(), tie_dispersion="question")


@pytest.mark.slow  # three MAP fits with their caveats, replicates, a cross-check
def test_by_pair_map_recovers_rho_its_replicates_tie_pairs_and_the_cross_check_agrees():
    """On a log whose pairs tie together: the pair model finds the simulated ρ = 0.5, its
    error rates are the one-rate model's (the tie terms are a separate factor), its replicated
    logs tie a pair in both orders as often as the log (the one-rate and by-context models'
    do not), the caveat says which fit allows for it, and the cross-check's classical row by
    pair meets tie_rho."""
    from bayes_pairwise.pymc_models.diagnostics import tie_handling
    from bayes_pairwise.pymc_models.ppc import ppc_data

    data = bp.load_comparisons(_paired_log(1, n_contexts=300), context="q", ties="model")
    fits = {
        td: bp.PositionalOrder(tie_dispersion=td).fit(data, method="map", random_seed=0)
        for td in (False, True, "pair")
    }

    def at(td, name):
        return float(fits[td].idata_.posterior[name].values.ravel()[0])

    for name in ("eps_plus", "eps_minus"):
        assert at("pair", name) == pytest.approx(at(False, name), abs=1e-4)
    assert at("pair", "tie_rho") == pytest.approx(0.5, abs=0.08)
    assert at(True, "tie_rho") < 0.15  # the contexts do not share one
    p_both = {}
    for td, m in fits.items():
        m.sample_posterior_predictive(random_seed=1, point_draws=200)
        df = ppc_data(m, data, statistics=("s_com_decided", "ties_both_orders"))
        p_both[td] = df.attrs["p_value"]["ties_both_orders"]
        assert 0.02 < df.attrs["p_value"]["s_com_decided"] < 0.98  # the errors: every form
    assert 0.05 < p_both["pair"] < 0.95
    assert p_both[False] < 0.01 and p_both[True] < 0.01  # too few pairs tied in both orders
    assert tie_handling(fits["pair"])["tie_rates"] == "per judge, varying by pair"
    said = {c.code: c.text for c in fits["pair"].caveats_}
    assert "positional_order lets the tie rate vary by pair" in said["ties_cluster_by_pair"]
    said = {c.code: c.text for c in fits[False].caveats_}
    assert "fit --tie-dispersion pair" in said["ties_cluster_by_pair"]

    cc, t = _order_crosscheck(data, "pair")
    classical = t.loc[("tie_rho", "classical")]
    assert classical["method"] == "moments of the tie counts per pair"
    assert classical["lower"] < 0.5 < classical["upper"]
    assert classical["interval"].endswith("bootstrap over contexts")
    assert float(t.loc[("tie_rho", "model"), "estimate"]) == pytest.approx(
        classical["estimate"], abs=0.03
    )
    a = cc.agreement[cc.agreement.quantity == "tie_rho"]
    assert len(a) == 1 and bool(a.overlap.iloc[0])
    assert cc.settings["tie_dispersion"] == "pair"
    assert any("lets the tie rate vary by pair" in c for c in cc.caveats)


@pytest.mark.slow  # two CLI fits with the log-level checks
def test_cli_takes_tie_dispersion_pair_and_refuses_other_groups(tmp_path, capsys):
    import json

    from bayes_pairwise.cli import main

    path = tmp_path / "paired.csv"
    _paired_log(2, n_contexts=200).to_csv(path, index=False)
    base = ["fit", str(path), "--context-column", "q", "--ties", "model", "--map", "--json"]
    assert main([*base, "--model", "positional_order", "--tie-dispersion", "pair"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parameters"]["tie_rho"]["mean"] == pytest.approx(0.5, abs=0.1)
    assert out["settings"]["params"]["tie_dispersion"] == "pair"
    assert main([*base, "--model", "positional_order", "--tie-dispersion", "question"]) == 2
    assert "invalid choice: 'question'" in capsys.readouterr().err


@pytest.mark.slow  # the pair form's graph compile, two SBC fits (mocked sampler)
def test_sbc_by_pair_ranks_tie_rho(quick_sbc, mock_sampler):

    res = quick_sbc(
        "positional_order",
        n_items=4,
        n_contexts=3,
        sims=2,
        ties=True,
        tie_dispersion="pair",
    )
    assert res.failed == 0
    assert "tie_rho" in {p.split("[")[0] for p in res.ranks["parameter"]}
    assert mock_sampler[0]["direct"] is not None
    assert res.settings["tie_dispersion"] == "pair"
    assert res.label == "positional_order+tie_dispersion=pair"  # the plot's title


@pytest.mark.slow  # three mocked fits: the default run's margin (CI's cold caches)
def test_context_and_pair_fits_of_one_log_do_not_share_a_compiled_model(mock_sampler):
    """The two groupings differ only inside the order node's logp (the same variables and
    data): the in-memory key of the compiled model holds the settings, so a by-pair fit after
    a by-context one in the same process samples its own density (it sampled the other's,
    tie_rho 0.129 on QLoRA for both, before). Sampler settings do not change the key."""
    data = bp.load_comparisons(_paired_log(3, n_contexts=8), context="q", ties="model")
    for td, draws in ((True, 20), ("pair", 20), ("pair", 30)):
        bp.PositionalOrder(tie_dispersion=td, draws=draws, tune=20, chains=1).fit(
            data, random_seed=0, log_likelihood=False
        )
    keys = [c["cache_key"] for c in mock_sampler]
    assert keys[0] != keys[1] and keys[1] == keys[2]


@pytest.mark.slow  # four mocked fits: the default run's margin (CI's cold caches)
def test_compare_models_names_the_pair_form_and_parses_it(mock_sampler):
    """``positional_order+tie_dispersion=pair`` builds the by-pair model (a form with a
    value), and a fitted model is named the same way; an unknown form is refused by name."""
    from bayes_pairwise.model_checking import _fitted

    data = bp.load_comparisons(_paired_log(4, n_contexts=8), context="q", ties="model")
    kw = {"sampler": {"draws": 20, "tune": 20, "chains": 1}, "random_seed": 0, "progress": False}
    name, m = _fitted("positional_order+tie_dispersion=pair", data, **kw)
    assert name == "positional_order+tie_dispersion=pair" and m.tie_dispersion == "pair"
    name, _ = _fitted("positional_order+tie_dispersion", data, **kw)
    assert name == "positional_order+tie_dispersion"
    fitted = bp.PositionalOrder(tie_dispersion="pair", draws=20, tune=20, chains=1).fit(
        data, random_seed=0
    )
    assert _fitted(fitted, data, **kw)[0] == "positional_order+tie_dispersion=pair"
    with pytest.raises(DesignError, match="unknown tie form 'tie_pair'"):
        _fitted("positional_order+tie_pair", data, **kw)


@pytest.mark.slow  # three cross-checks with their log-level checks (≈ 20 s)
def test_the_observed_tie_share_interval_resamples_where_ties_come_in_pairs():
    """Where a judge's ties come in pairs (the tie check's z_pair ≥ 3) Wilson's interval of the
    tie share, which takes verdicts as independent, is too narrow: the cross-check resamples
    whole contexts (a context holds its pairs), or the pairs of a one-context log; where ties
    fall verdict by verdict it keeps Wilson's."""
    from bayes_pairwise.classical.descriptive import wilson_interval

    kw = {"models": (), "method": "map", "delta_s": False, "delta_s_2d": False, "random_seed": 0}
    paired = _paired_log(5, n_contexts=300)
    cases = {
        "contexts": bp.load_comparisons(paired, context="q", ties="model"),
        "pairs": bp.load_comparisons(paired.drop(columns="q"), ties="model"),  # one context
    }
    for unit, data in cases.items():
        row = bp.crosscheck(data, **kw).table.set_index(["quantity", "role"])
        row = row.loc[("tie_rate", "classical")]
        assert row["interval"].endswith(f"bootstrap over {unit}")
        assert "cluster by pair" in row["note"]
        k = int((paired["outcome"] == "tie").sum())
        lo, hi = wilson_interval(k, len(paired), level=0.94)
        # design effect 1 + ρ for two verdicts per pair (ρ 0.5): about √1.5 × wider (this
        # log: 1.25 × with its contexts resampled, 1.12 × with its pairs)
        assert (row["upper"] - row["lower"]) > 1.05 * (hi - lo)
    flat = bp.load_comparisons(
        _paired_log(5, n_contexts=300, tie_rho=1e-6), context="q", ties="model"
    )
    row = bp.crosscheck(flat, **kw).table.set_index(["quantity", "role"])
    assert row.loc[("tie_rate", "classical"), "interval"].endswith("Wilson")
