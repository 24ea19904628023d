"""The count behind ``mass_matrix = "auto"``: one helper for frozen and unfrozen models."""

from __future__ import annotations

import numpy as np
import pymc as pm

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
