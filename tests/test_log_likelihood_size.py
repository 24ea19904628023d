"""The pointwise log-likelihood is skipped, with a reason, when it would not fit in memory."""

from __future__ import annotations

import warnings

import pytest

import bayes_pairwise.pymc_models.base as base
from bayes_pairwise.errors import DesignError
from bayes_pairwise.model_checking import compare_fitted
from bayes_pairwise.pymc_models import PositionalBias, UniformError
from bayes_pairwise.simulate import simulate_round_robin


@pytest.fixture(scope="module")
def data():
    return simulate_round_robin(6, eps=0.1, random_seed=3).data  # 15 pair rows


def test_a_log_likelihood_above_the_cap_is_skipped_and_said(data, monkeypatch, mock_sampler):
    monkeypatch.setattr(base, "LOG_LIKELIHOOD_MAX_VALUES", 15 * 20 - 1)  # 2 x 10 draws: one over
    lines: list[str] = []
    m = UniformError(draws=10, tune=10, chains=2)
    with pytest.warns(UserWarning, match=r"20 draws × 15 observation rows = 300 values"):
        m.fit(data, random_seed=1, on_step=lines.append)
    assert "log_likelihood" not in m.idata_.groups()
    assert m.settings_["log_likelihood"].startswith("skipped: 20 draws")
    assert any(line.startswith("pointwise log-likelihood skipped") for line in lines)
    # LOO names the reason
    other = PositionalBias(draws=10, tune=10, chains=2).fit(
        data, random_seed=1, log_likelihood=True
    )
    with pytest.raises(DesignError, match=r"uniform.*no pointwise log-likelihood \(skipped: 20"):
        compare_fitted({"uniform": m, "positional": other})


def test_at_the_cap_or_when_asked_it_is_stored(data, monkeypatch, mock_sampler):
    monkeypatch.setattr(base, "LOG_LIKELIHOOD_MAX_VALUES", 15 * 20)
    m = UniformError(draws=10, tune=10, chains=2).fit(data, random_seed=1)
    assert m.idata_.log_likelihood["wins"].shape == (2, 10, 15)
    assert m.settings_["log_likelihood"] == "stored"
    monkeypatch.setattr(base, "LOG_LIKELIHOOD_MAX_VALUES", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        m = UniformError(draws=10, tune=10, chains=2).fit(data, random_seed=1, log_likelihood=True)
    assert m.idata_.log_likelihood["wins"].shape == (2, 10, 15)


def test_never_when_asked_not_to_and_no_warning(data, mock_sampler):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        m = UniformError(draws=10, tune=10, chains=2).fit(data, random_seed=1, log_likelihood=False)
    assert "log_likelihood" not in m.idata_.groups()
    assert m.settings_["log_likelihood"] == "not computed (fit(log_likelihood=False))"
