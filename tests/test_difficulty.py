"""Issue 7 item 3: the pair-difficulty model (PositionalDifficulty) and simulate_hard_pairs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from likelihood_oracles import pair_rows_logp
from scipy.special import expit, logit
from scipy.stats import binom

from bayes_pairwise.errors import DesignError, DesignWarning
from bayes_pairwise.pymc_models import PositionalBias, PositionalDifficulty, get_model
from bayes_pairwise.pymc_models.difficulty import difficulty_random
from bayes_pairwise.pymc_models.fused import difficulty_logp_fused
from bayes_pairwise.simulate import simulate_hard_pairs

EP, EM, EH, PI = 0.1, 0.25, 0.6, 0.3
TP, TM = 0.2, 0.1  # tie rates better first / second


def _row_by_hand(n1, n2, t1, t2, kp, km, d, truth):
    """The mixture written out with scipy: Σ_T P(T) ties(T) [(1−π) easy + π hard]."""
    m1, m2 = kp - t1, km - t2

    def branch(i_better: bool) -> float:
        if i_better:
            ties = binom.pmf(t1, kp, TP) * binom.pmf(t2, km, TM)
            easy = binom.pmf(n1, m1, 1 - EP) * binom.pmf(n2, m2, 1 - EM)
            hard = binom.pmf(n1, m1, 1 - EH) * binom.pmf(n2, m2, 1 - EH)
            return expit(d) * ties * ((1 - PI) * easy + PI * hard)
        ties = binom.pmf(t1, kp, TM) * binom.pmf(t2, km, TP)
        easy = binom.pmf(n1, m1, EM) * binom.pmf(n2, m2, EP)
        hard = binom.pmf(n1, m1, EH) * binom.pmf(n2, m2, EH)
        return expit(-d) * ties * ((1 - PI) * easy + PI * hard)

    if truth == 1:
        return np.log(branch(True))
    if truth == 0:
        return np.log(branch(False))
    return np.log(branch(True) + branch(False))


@pytest.mark.parametrize("truth", [-1, 1, 0])
def test_logp_equals_the_mixture_written_out(truth: int) -> None:
    val = np.array([[2.0, 1.0, 1.0, 1.0]])
    k = np.array([[4.0, 3.0, 4.0, 3.0]])
    d = np.array([0.7])
    lp = difficulty_logp_fused(
        val.astype(int),
        d,
        np.array([EP]),
        np.array([EM]),
        np.array([EH]),
        np.array([PI]),
        np.array([0]),
        k.astype(int),
        truth=np.array([truth]),
        eta_plus=np.array([logit(TP)]),
        eta_minus=np.array([logit(TM)]),
    ).eval()
    assert lp[0] == pytest.approx(_row_by_hand(2, 1, 1, 1, 4, 3, 0.7, truth), rel=1e-10)


def test_without_hard_pairs_it_is_the_positional_tie_model() -> None:
    val = np.array([[2, 1, 1, 0], [0, 2, 0, 1]])
    k = np.array([[3, 2], [2, 3]])
    d = np.array([0.4, -1.2])
    eta = np.array([logit(0.15)] * 2)
    args = (d, np.array([0, 0]), np.array([EP]), np.array([EM]))
    want = pair_rows_logp(val, *args, k, eta_plus=eta)
    d_, judge, ep, em = args
    got = difficulty_logp_fused(
        val, d_, ep, em, np.array([EH]), np.array([1e-15]), judge, k, eta_plus=eta
    ).eval()
    np.testing.assert_allclose(got, want, rtol=1e-9)


@pytest.mark.slow  # compiles the mixture's pointwise graph of its own: 27 s cold
def test_model_pointwise_loglik_is_one_term_per_row() -> None:
    """The observed node gives one log-likelihood per pair row, equal to the textbook mixture at
    the model's own parameter values (a broadcast bug once made it P copies of the vector)."""
    sim = simulate_hard_pairs(6, random_seed=1)
    m = PositionalDifficulty().build_model(sim.data)
    point = m.initial_point()
    (ll,) = m.compile_fn(
        m.logp(vars=m.observed_RVs, sum=False), inputs=m.value_vars, on_unused_input="ignore"
    )(point)
    n_rows = 15
    assert ll.shape == (n_rows,)
    names = ["eps_plus_easy", "eps_minus_easy", "eps_hard", "hard_share", "strength", "tie_rate"]
    vals = dict(
        zip(
            names,
            m.compile_fn(
                m.replace_rvs_by_values([m[v] for v in names]),
                inputs=m.value_vars,
                on_unused_input="ignore",
            )(point),
            strict=True,
        )
    )
    d = vals["strength"][m["pair_i"].get_value()] - vals["strength"][m["pair_j"].get_value()]
    eta = np.full(n_rows, logit(vals["tie_rate"][0]))
    k = m["k"].get_value()
    want = pair_rows_logp(
        sim_obs(m),
        d,
        np.zeros(n_rows, int),
        vals["eps_plus_easy"],
        vals["eps_minus_easy"],
        k,
        truth=m["pair_truth"].get_value(),
        eta_plus=eta,
        eps_hard=vals["eps_hard"],
        hard_share=vals["hard_share"],
    )
    np.testing.assert_allclose(ll, want, rtol=1e-8)


def sim_obs(model):
    from pymc.backends.arviz import find_observations

    return np.asarray(find_observations(model)["wins"], dtype=float)


def test_random_draws_follow_the_hard_state() -> None:
    rng = np.random.default_rng(3)
    n = 4000
    draws = difficulty_random(
        np.zeros(n),
        np.zeros(n, dtype=int),
        np.array([0.05]),
        np.array([0.05]),
        np.array([0.7]),
        np.array([0.5]),
        np.full(n, -50.0),
        np.full(n, -50.0),
        np.tile([[10, 10]], (n, 1)),
        np.ones(n, dtype=int),
        rng=rng,
        ties=False,
    )
    share_i = draws.sum(axis=1) / 20.0  # truth i≻j known: easy 0.95, hard 0.3
    assert share_i.mean() == pytest.approx(0.5 * 0.95 + 0.5 * 0.3, abs=0.01)
    assert np.mean(share_i < 0.6) == pytest.approx(0.5, abs=0.03)


def test_simulate_hard_pairs_realised_rates() -> None:
    sim = simulate_hard_pairs(30, random_seed=1)
    f = sim.frame
    assert sim.data.n_comparisons == 870 and sim.data.n_ties == int(sim.tie.sum())
    dec = ~sim.tie
    wrong = dec & ~sim.correct
    assert sim.realised_eps_plus == wrong[dec & sim.better_first].mean()
    assert sim.realised_eps_minus == wrong[dec & ~sim.better_first].mean()
    assert (sim.realised_eps_plus, sim.realised_eps_minus) == pytest.approx(
        (0.2329, 0.3149), abs=1e-4
    )
    assert sim.realised_tie_rate == pytest.approx(0.1644, abs=1e-4)
    assert sim.realised_eps_hard == pytest.approx(0.6, abs=0.08)
    # labels: whole pairs, both orders; the unlabelled view carries none
    lab = f["truth"].notna()
    assert 0.2 < lab.mean() < 0.4 and not sim.data_unlabelled.has_truth
    assert sim.data.n_labelled == int(lab.sum())
    # hard pairs: the hard flag is constant within a pair
    assert (sim.hard.reshape(-1, 2).std(axis=1) == 0).all()


@pytest.fixture(scope="module")
def sim():
    return simulate_hard_pairs(30, random_seed=1)


def _map(cls, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignWarning)
        m = cls(**kw).fit(data, method="map", random_seed=1)
    post = m.idata_.posterior
    return m, np.array([float(post[v].values.ravel()[0]) for v in ("eps_plus", "eps_minus")])


@pytest.mark.slow
def test_map_with_labels_recovers_the_whole_log_rates(sim) -> None:
    real = np.array([sim.realised_eps_plus, sim.realised_eps_minus])
    _, diff = _map(PositionalDifficulty, sim.data, allow_mode=True)
    _, pos = _map(PositionalBias, sim.data)
    _, free = _map(PositionalBias, sim.data_unlabelled)
    assert np.all(np.abs(diff - real) < 0.05)
    # the difficulty model closes more of the gap than the positional model with the same labels
    assert np.all(np.abs(diff - real) < np.abs(pos - real))
    assert np.all(free < real - 0.04)  # ground-truth-free: biased low


def test_unidentified_without_labels_or_repeats_warns_and_records(sim) -> None:
    model = PositionalDifficulty(allow_mode=True)
    assert model.identification(sim.data_unlabelled) == ["difficulty_not_identified"]
    with pytest.warns(DesignWarning, match="NOT IDENTIFIED"):
        m = model.fit(sim.data_unlabelled, method="map", random_seed=0)
    assert [c.code for c in m.caveats_] == ["difficulty_not_identified"]
    assert "prior-driven" in m.idata_.posterior.attrs["caveats"]
    assert any("NOT IDENTIFIED" in w for w in m.design_warnings_)
    with pytest.raises(DesignError, match="NOT IDENTIFIED"):
        PositionalDifficulty(on_unidentified="raise", allow_mode=True).fit(
            sim.data_unlabelled, method="map"
        )
    # labels: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        assert PositionalDifficulty().identification(sim.data) == []


def test_repeats_without_labels_are_a_weaker_caveat_not_a_refusal() -> None:
    rep = simulate_hard_pairs(8, repeats=2, labelled=0.0, random_seed=2)
    model = PositionalDifficulty(on_unidentified="raise")
    assert model.identification(rep.data) == ["difficulty_repeats_only"]
    model.build_model(rep.data)  # no DesignError


def test_spec_registry_and_tie_free_data(sim) -> None:
    m = get_model("positional_difficulty")
    assert isinstance(m, PositionalDifficulty) and m.name == "positional_difficulty"
    assert {"hard_share", "hard_logit"} <= set(m.resolved_priors())
    with pytest.raises(Exception, match="likelihood"):
        PositionalDifficulty(likelihood="independent").resolved_likelihood()
    dropped = sim.data.drop_ties()
    built = PositionalDifficulty().build_model(dropped)
    assert tuple(built.coords["count"]) == ("n1", "n2")


@pytest.mark.slow
def test_posterior_predictive_draws_ties(sim) -> None:
    m, _ = _map(PositionalDifficulty, sim.data, allow_mode=True)
    idata = m.sample_posterior_predictive(random_seed=0, point_draws=50)
    rep = idata.posterior_predictive["wins"]
    assert rep.sizes["count"] == 4
    tie_share = float(rep.sel(count=["t1", "t2"]).sum("count").mean()) / 2.0
    assert tie_share == pytest.approx(sim.realised_tie_rate, abs=0.03)


@pytest.mark.slow
def test_nuts_must_show_labels_cover_realised_rates(sim) -> None:
    """Issue 7 must-show: 15% ties, 20% hard pairs (0.6), easy 0.10/0.20, labels on 30%."""
    real = {"eps_plus": sim.realised_eps_plus, "eps_minus": sim.realised_eps_minus}
    m = PositionalDifficulty(draws=500, tune=500, chains=2).fit(sim.data, random_seed=1)
    s = m.summary(strengths=False)
    for name, value in real.items():
        lo, hi = s.loc[name].iloc[2], s.loc[name].iloc[3]
        assert abs(s.loc[name, "mean"] - value) < 0.05 and lo <= value <= hi
    assert "tie_rate" in s.index and m.n_comparisons_ == sim.data.n_comparisons


def test_map_and_laplace_are_refused_with_a_reason_naming_nuts(sim) -> None:
    """Issue 25 item 5: the mode of the mixture is not a reliable summary."""
    from bayes_pairwise.pymc_models import UniformDifficulty
    from bayes_pairwise.pymc_models.difficulty import MODE_REFUSED

    for cls in (PositionalDifficulty, UniformDifficulty):
        for method in ("map", "laplace"):
            with pytest.raises(DesignError, match="NUTS"):
                cls().fit(sim.data, method=method)
    assert "\n" not in MODE_REFUSED


@pytest.mark.slow  # two NUTS fits at the specs' settings: about 25 s
def test_spec_settings_converge_where_the_base_file_s_did_not() -> None:
    """The pair-difficulty specs run longer at a higher target acceptance: on a 40-text
    labelled hard-pair log the base settings (1000 + 1000 at 0.8) left min ESS 237 / 38 and
    divergences; the specs' converge (R-hat ≤ 1.01, ESS ≥ 400, no divergence) and recover the
    realised rates."""
    from bayes_pairwise.pymc_models.diagnostics import diagnose

    for name, seed in (("positional_difficulty", 13), ("uniform_difficulty", 13)):
        sim = simulate_hard_pairs(40, random_seed=seed)
        m = get_model(name).fit(sim.data, random_seed=1, progress=False)
        d = diagnose(m, ppc=False)
        assert d.ok and d.divergences == 0, (name, d)
        if name == "uniform_difficulty":
            assert abs(m.summary().loc["eps", "mean"] - sim.realised_eps) < 0.05
