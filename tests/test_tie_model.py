"""Ties as an outcome of the error models (METHODS §7.5, docs/src/tie_model.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit
from scipy.stats import binom

from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.matrices import pair_counts
from bayes_pairwise.pymc_models import PositionalBias, UniformError
from bayes_pairwise.pymc_models.fused import pair_logp_fused
from bayes_pairwise.pymc_models.likelihoods import tie_marginal_random


# --------------------------------------------------------------------------- simulation
def simulate_ties(
    n: int = 40,
    *,
    tau: float = 0.15,
    tau_minus: float | None = None,
    eps_plus: float = 0.10,
    eps_minus: float = 0.20,
    beta: float = 0.0,
    scale: float = 2.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Round robin in both orders, one verdict per order, from the tie model itself.

    ``tau`` is the tie rate (when the better item is shown first if ``tau_minus`` is given) at
    |d| = 0; it falls with ``beta``·|d|. Columns ``better_first`` and ``err`` hold the truth.
    """
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, scale, n)
    tau_minus = tau if tau_minus is None else tau_minus
    rows = []
    for i in range(n):
        for j in range(i + 1, n):
            d = s[i] - s[j]
            i_better = rng.random() < expit(d)
            for f, sc in ((i, j), (j, i)):
                better_first = (f == i) == i_better
                base = tau if better_first else tau_minus
                if rng.random() < expit(logit(base) - beta * abs(d)):
                    rows.append((f, sc, "tie", better_first, False))
                    continue
                err = rng.random() < (eps_plus if better_first else eps_minus)
                rows.append(
                    (f, sc, "first" if better_first != err else "second", better_first, err)
                )
    df = pd.DataFrame(rows, columns=["first", "second", "outcome", "better_first", "err"])
    df["first"] = "m" + df["first"].astype(str)
    df["second"] = "m" + df["second"].astype(str)
    return df


def realised(df: pd.DataFrame) -> dict[str, float]:
    tie = df["outcome"] == "tie"
    nt = df[~tie]
    return {
        "tie": float(tie.mean()),
        "tie_plus": float(tie[df["better_first"]].mean()),
        "tie_minus": float(tie[~df["better_first"]].mean()),
        "eps_plus": float(nt.loc[nt["better_first"], "err"].mean()),
        "eps_minus": float(nt.loc[~nt["better_first"], "err"].mean()),
    }


def as_data(df: pd.DataFrame, ties: str = "half"):
    return load_comparisons(df[["first", "second", "outcome"]], ties=ties)


def post(model, name: str) -> np.ndarray:
    return np.asarray(model.idata_.posterior[name]).ravel()


@pytest.fixture(scope="module")
def sim15():
    df = simulate_ties(40, tau=0.15, eps_plus=0.10, eps_minus=0.20, seed=11)
    return df, realised(df)


@pytest.fixture(scope="module")
def fit15(sim15):
    df, _ = sim15
    return PositionalBias().fit(as_data(df), method="map", random_seed=1)


# --------------------------------------------------------------------------- likelihood
class TestLikelihood:
    # one pair: i first 3 times (2 wins of i, 1 tie), j first 3 times (1 win of i, 2 ties)
    val = np.array([[2.0, 1.0, 1.0, 2.0]])
    k = np.array([[3.0, 3.0]])
    d, ep, em = 0.7, 0.1, 0.25

    def _lp(self, tp: float, tm: float, positional: bool) -> float:
        out = pair_logp_fused(
            self.val.astype(int),
            np.array([self.d]),
            np.array([self.ep]),
            np.array([self.em]),
            np.array([0]),
            self.k.astype(int),
            eta_plus=np.array([logit(tp)]),
            eta_minus=np.array([logit(tm)]) if positional else None,
        ).eval()
        return float(out[0])

    def test_one_tie_rate_closed_form(self):
        tau, ep, em, d = 0.2, self.ep, self.em, self.d
        # ties: 1 of 3 (i first), 2 of 3 (j first); decided: i first 2 of 2, j first 1 of 1
        tie_part = binom.pmf(1, 3, tau) * binom.pmf(2, 3, tau)
        t_i = binom.pmf(2, 2, 1 - ep) * binom.pmf(1, 1, 1 - em)
        t_j = binom.pmf(2, 2, em) * binom.pmf(1, 1, ep)
        by_hand = np.log(tie_part * (expit(d) * t_i + expit(-d) * t_j))
        assert self._lp(tau, 0.9, positional=False) == pytest.approx(by_hand, rel=1e-10)
        # by hand, the number itself (guards the formula above against a shared mistake)
        assert by_hand == pytest.approx(-4.19701, abs=1e-4)

    def test_positional_tie_rates_closed_form(self):
        tp, tm, ep, em, d = 0.3, 0.05, self.ep, self.em, self.d
        # T = i>j: i first shows the better item first (tau+), j first shows it second (tau-)
        a = (
            3
            * tp
            * (1 - tp) ** 2
            * (1 - ep) ** 2  # i first: 1 tie, 2 wins of i
            * 3
            * tm**2
            * (1 - tm)
            * (1 - em)  # j first: 2 ties, 1 win of i
        )
        # T = j>i: roles swap
        b = 3 * tm * (1 - tm) ** 2 * em**2 * 3 * tp**2 * (1 - tp) * ep
        by_hand = np.log(expit(d) * a + expit(-d) * b)
        assert self._lp(tp, tm, positional=True) == pytest.approx(by_hand, rel=1e-10)
        # the ties are informative about T: their share differs by order, so it differs from
        # the factorised (one-rate) form at either rate
        assert self._lp(tp, tm, positional=True) != pytest.approx(self._lp(tp, tp, False))

    def test_positional_with_equal_rates_is_the_one_rate_model(self):
        assert self._lp(0.2, 0.2, positional=True) == pytest.approx(
            self._lp(0.2, 0.2, positional=False), rel=1e-10
        )

    @pytest.mark.parametrize("positional", [False, True])
    def test_no_ties_reduces_to_existing_plus_no_tie_term(self, positional):
        rng = np.random.default_rng(5)
        n_rows = 30
        k = rng.integers(0, 4, size=(n_rows, 2)).astype(float)
        k[0] = [1, 1]
        n = np.stack(
            [rng.binomial(k[:, 0].astype(int), 0.6), rng.binomial(k[:, 1].astype(int), 0.4)], 1
        )
        judge = rng.integers(0, 2, n_rows)
        d = rng.normal(0, 1.5, n_rows)
        ep, em = np.array([0.1, 0.3]), np.array([0.2, 0.05])
        eta = rng.normal(-1.5, 0.5, n_rows)  # per-row tie logits (closeness model)
        val = np.concatenate([n, np.zeros_like(n)], axis=1)
        k = k.astype(int)
        lp_tie = pair_logp_fused(
            val, d, ep, em, judge, k, eta_plus=eta, eta_minus=eta if positional else None
        ).eval()
        lp_old = pair_logp_fused(n, d, ep, em, judge, k).eval()
        no_tie = (k[:, 0] + k[:, 1]) * np.log(1 - expit(eta))
        np.testing.assert_allclose(lp_tie, lp_old + no_tie, rtol=1e-10, atol=1e-10)

    def test_random_draws_ties_at_the_rate(self):
        rng = np.random.default_rng(3)
        n_rows = 20000
        k = np.tile([[2, 1]], (n_rows, 1))
        draws = tie_marginal_random(
            np.zeros(n_rows),
            np.zeros(n_rows, dtype=int),
            np.array([0.1]),
            np.array([0.3]),
            np.full(n_rows, logit(0.3)),
            np.full(n_rows, logit(0.1)),
            k,
            rng=rng,
        )
        assert draws.shape == (n_rows, 4)
        assert np.all(draws[:, 0] + draws[:, 2] <= 2) and np.all(draws[:, 1] + draws[:, 3] <= 1)
        # d = 0: the better item is first half the time -> mean tie rate (0.3 + 0.1) / 2
        assert draws[:, 2:].sum() / k.sum() == pytest.approx(0.2, abs=0.01)


# --------------------------------------------------------------------------- data handling
class TestData:
    df = pd.DataFrame(
        {
            "first": ["a", "b", "a", "b", "a", "c"],
            "second": ["b", "a", "b", "a", "c", "a"],
            "outcome": ["first", "tie", "tie", "second", "first", "tie"],
        }
    )

    def test_pair_counts_count_ties(self):
        pc = pair_counts(load_comparisons(self.df, ties="half"))
        # rows: (a, b), (a, c); a is i in both
        assert pc.t1.tolist() == [1, 0] and pc.t2.tolist() == [1, 1]
        assert pc.n1.tolist() == [1.5, 1.0] and pc.n2.tolist() == [1.5, 0.5]
        assert pc.n1_decided.tolist() == [1, 1] and pc.n2_decided.tolist() == [1, 0]
        no_ties = pair_counts(load_comparisons(self.df, ties="drop"))
        assert no_ties.t1.tolist() == [0, 0] and no_ties.t2.tolist() == [0, 0]

    def test_policy_selects_the_tie_model(self):
        half, drop = load_comparisons(self.df, ties="half"), load_comparisons(self.df, ties="drop")
        assert UniformError().models_ties(half)
        assert not UniformError().models_ties(drop)
        assert not UniformError(ties="drop").models_ties(half)
        m = PositionalBias().build_model(half)
        assert list(m.coords["count"]) == ["n1", "n2", "t1", "t2"]
        assert "tie_logit" in m.named_vars
        m = PositionalBias().build_model(drop)
        assert list(m.coords["count"]) == ["n1", "n2"] and "tie_logit" not in m.named_vars
        m = PositionalBias(ties="drop").build_model(half)
        assert list(m.coords["count"]) == ["n1", "n2"]

    def test_observed_counts_in_the_tie_model(self):
        m = UniformError().build_model(load_comparisons(self.df, ties="half"))
        from pymc.backends.arviz import find_observations

        obs = np.asarray(find_observations(m)["wins"])
        assert obs.tolist() == [[1, 1, 1, 1], [1, 0, 0, 1]]

    def test_model_on_dropped_ties_is_an_error(self):
        with pytest.raises(DesignError, match="dropped"):
            UniformError(ties="model").build_model(load_comparisons(self.df, ties="drop"))

    def test_bad_setting(self):
        with pytest.raises(ValueError, match="ties must be one of"):
            UniformError(ties="keep").models_ties(load_comparisons(self.df, ties="half"))

    def test_tie_priors_from_the_spec(self):
        priors = UniformError().resolved_priors()
        assert priors["tie_logit"] == {"dist": "Logistic", "mu": 0.0, "s": 1.0}
        assert priors["tie_closeness"] == {"dist": "HalfNormal", "sigma": 2.0}
        user = PositionalBias(priors={"tie_logit": {"dist": "Normal", "mu": -2, "sigma": 1}})
        assert user.resolved_priors()["tie_logit"] == {"dist": "Normal", "mu": -2, "sigma": 1}


# --------------------------------------------------------------------------- recovery (MAP)
class TestRecovery:
    def test_realised_rates_of_the_simulation(self, sim15):
        _, r = sim15
        assert r["tie"] == pytest.approx(0.15, abs=0.02)
        assert r["eps_plus"] == pytest.approx(0.10, abs=0.03)

    def test_positional_tie_model_recovers_tie_rate_and_eps(self, sim15, fit15):
        _, r = sim15
        assert post(fit15, "tie_rate")[0] == pytest.approx(r["tie"], abs=0.02)
        assert post(fit15, "eps_plus")[0] == pytest.approx(r["eps_plus"], abs=0.03)
        assert post(fit15, "eps_minus")[0] == pytest.approx(r["eps_minus"], abs=0.03)
        names = fit15.reported_names(strengths=False)
        assert names == ["eps_plus", "eps_minus", "tie_rate"]
        assert fit15.settings_["ties"] == "auto"
        assert fit15.idata_.log_likelihood["wins"].dims == ("chain", "draw", "pair")
        assert fit15.idata_.log_likelihood["wins"].sizes["pair"] == 40 * 39 // 2

    def test_posterior_predictive_draws_ties(self, sim15, fit15):
        _, r = sim15
        idata = fit15.sample_posterior_predictive(random_seed=2, point_draws=40)
        rep = np.asarray(idata.posterior_predictive["wins"])
        assert rep.shape[-1] == 4
        k = np.asarray(idata.constant_data["k"])
        share = rep[..., 2:].sum(axis=(-1, -2)) / k.sum()
        assert share.mean() == pytest.approx(r["tie"], abs=0.02)
        assert share.std() > 0

    @pytest.mark.slow
    def test_uniform_tie_model_and_drop_setting(self, sim15):
        df, r = sim15
        data = as_data(df)
        m = UniformError().fit(data, method="map", random_seed=1)
        assert post(m, "tie_rate")[0] == pytest.approx(r["tie"], abs=0.02)
        # same eps as the drop model up to the tie term: the tie rate factors out
        d = UniformError(ties="drop").fit(data, method="map", random_seed=1)
        assert "tie_rate" not in d.idata_.posterior
        assert post(m, "eps")[0] == pytest.approx(post(d, "eps")[0], abs=0.005)

    @pytest.mark.slow
    def test_position_dependent_tie_rates(self):
        df = simulate_ties(40, tau=0.25, tau_minus=0.08, eps_plus=0.1, eps_minus=0.1, seed=4)
        r = realised(df)
        m = UniformError(tie_positional=True).fit(as_data(df), method="map", random_seed=1)
        assert post(m, "tie_rate_plus")[0] == pytest.approx(r["tie_plus"], abs=0.04)
        assert post(m, "tie_rate_minus")[0] == pytest.approx(r["tie_minus"], abs=0.04)
        assert post(m, "tie_rate")[0] == pytest.approx(r["tie"], abs=0.02)

    def test_closeness_effect_recovered(self):
        df = simulate_ties(40, tau=0.3, eps_plus=0.15, eps_minus=0.15, beta=0.7, scale=1.5, seed=3)
        m = UniformError(tie_closeness=True).fit(as_data(df), method="map", random_seed=1)
        beta = post(m, "tie_closeness")[0]
        assert 0.35 < beta < 1.4  # true 0.7
        assert post(m, "tie_rate")[0] == pytest.approx(realised(df)["tie"], abs=0.02)
        assert post(m, "tie_rate_equal")[0] > post(m, "tie_rate")[0] + 0.1

    def test_no_closeness_effect_when_there_is_none(self, sim15):
        df, _ = sim15
        m = UniformError(tie_closeness=True).fit(as_data(df), method="map", random_seed=1)
        assert post(m, "tie_closeness")[0] < 0.1


# --------------------------------------------------------------------------- NUTS
@pytest.mark.slow
def test_nuts_hdis_cover_the_truth(sim15):
    import arviz as az

    df, r = sim15
    m = PositionalBias(draws=500, tune=500, chains=2).fit(as_data(df), random_seed=3)
    for name, truth in (
        ("tie_rate", r["tie"]),
        ("eps_plus", r["eps_plus"]),
        ("eps_minus", r["eps_minus"]),
    ):
        lo, hi = np.asarray(az.hdi(m.idata_.posterior[name], hdi_prob=0.94)[name]).ravel()
        assert lo <= truth <= hi, (name, lo, hi, truth)
    assert az.loo(m.idata_).n_data_points == 40 * 39 // 2
