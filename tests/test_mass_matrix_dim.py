"""The count behind ``mass_matrix = "auto"``: one helper for frozen and unfrozen models."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from bayes_pairwise.model_specs import LOW_RANK_MAX_DIM
from bayes_pairwise.pymc_models.base import _frozen, _mass_matrix, _n_unconstrained


def _model(n: int) -> pm.Model:
    """``n`` strengths behind a data container (shape unknown until frozen), sigma and eps."""
    with pm.Model(coords={"item": np.arange(n)}) as model:
        x = pm.Data("x", np.zeros(n))
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("strength", 0.0, sigma, dims="item")
        pm.Beta("eps", 1.0, 1.0, shape=2)
        pm.Normal("y", x, 1.0, observed=np.zeros(n))
    return model


def test_frozen_and_unfrozen_counts_agree() -> None:
    model = _model(7)
    # dims from mutable coords: not every static shape is known before freezing
    assert any(s is None for v in model.value_vars for s in v.type.shape)
    assert _n_unconstrained(model) == 7 + 1 + 2
    frozen = _frozen(model)
    assert all(s is not None for v in frozen.value_vars for s in v.type.shape)
    assert _n_unconstrained(frozen) == 10


def test_threshold_is_inclusive_and_explicit_settings_pass_through() -> None:
    at = _model(LOW_RANK_MAX_DIM - 3)  # exactly LOW_RANK_MAX_DIM parameters
    above = _model(LOW_RANK_MAX_DIM - 2)
    for m in (at, _frozen(at)):
        assert _mass_matrix("auto", m) == "low_rank"
    for m in (above, _frozen(above)):
        assert _mass_matrix("auto", m) == "diag"
    assert _mass_matrix("diag", at) == "diag"
    assert _mass_matrix("low_rank", above) == "low_rank"


def test_zero_sum_and_simplex_counts_read_without_compiling_the_initial_point(
    monkeypatch,
) -> None:
    """The package's strength models on one context (a ZeroSumNormal, whose value variable has
    no static shape even frozen) and with a simplex: the count from the free variables' dims and
    transforms equals the initial point's, and the initial point is not compiled for it."""
    from bayes_pairwise.pymc_models import PositionalBias, UniformError
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(30, eps_plus=0.1, eps_minus=0.2, random_seed=0)
    for model, expected in ((UniformError(), 29 + 1 + 1), (PositionalBias(ties="model"), 33)):
        lik = model.resolved_likelihood()
        built = _frozen(model._build(sim.data, model.resolved_priors(), lik))
        assert any(s is None for v in built.value_vars for s in v.type.shape)
        reference = int(sum(np.size(x) for x in built.initial_point().values()))
        assert reference == expected  # z: 30 - 1, sigma_s, the rates (simplex: 2), a tie logit
        with monkeypatch.context() as m:
            m.setattr(pm.Model, "initial_point", lambda *a, **k: pytest.fail("compiled"))
            assert _n_unconstrained(built) == expected
