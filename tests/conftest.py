"""Shared fixtures of the PyMC-model tests: a fake NUTS sampler and small data sets."""

from __future__ import annotations

from functools import partial
from typing import Any

import arviz as az
import numpy as np
import pandas as pd
import pytest


def fake_nuts(calls: list[dict[str, Any]] | None = None):
    """A stand-in for ``bayes_pairwise.pymc_models.base.sample_nuts``.

    Draws the "posterior" from the prior (so every variable has the right shape, dims and
    support) and adds NUTS-like sample stats; records the keyword arguments it was called with.
    """

    def sampler(model, *, draws, tune, chains, target_accept, random_seed, **kwargs):
        import pymc as pm
        from pymc.backends.arviz import find_constants, find_observations

        if calls is not None:
            calls.append(
                {
                    "draws": draws,
                    "tune": tune,
                    "chains": chains,
                    "target_accept": target_accept,
                    "random_seed": random_seed,
                    **kwargs,
                }
            )
        names = [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]
        # the order models' and the lists' observed nodes draw nothing: their parameters only
        # (the others keep every variable, so that their seeded draws stay as they were)
        order = any(v.name in ("contexts", "ranking") for v in model.observed_RVs)
        prior = pm.sample_prior_predictive(
            draws=draws * chains,
            model=model,
            random_seed=random_seed,
            var_names=names if order else None,
        ).prior
        post = {}
        for name in names:
            arr = np.asarray(prior[name])[0]
            post[name] = arr.reshape(chains, draws, *arr.shape[1:])
        rng = np.random.default_rng(random_seed)
        stats = {
            "diverging": np.zeros((chains, draws), dtype=bool),
            "energy": rng.normal(size=(chains, draws)),
            "tree_depth": np.full((chains, draws), 3),
            "reached_max_treedepth": np.zeros((chains, draws), dtype=bool),
        }
        coords = {k: list(v) for k, v in model.coords.items()}
        dims = {k: list(v) for k, v in model.named_vars_to_dims.items()}
        return az.from_dict(
            posterior=post,
            sample_stats=stats,
            observed_data={k: np.asarray(v) for k, v in find_observations(model).items()},
            constant_data={k: np.asarray(v) for k, v in find_constants(model).items()},
            coords=coords,
            dims=dims,
        )

    return sampler


@pytest.fixture
def mock_sampler(monkeypatch):
    """Replace NUTS by :func:`fake_nuts`; yields the list of recorded calls."""
    import bayes_pairwise.pymc_models.base as base

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(base, "sample_nuts", fake_nuts(calls))
    return calls


@pytest.fixture
def quick_sbc(mock_sampler):
    """:func:`~bayes_pairwise.model_checking.sbc` with the mocked sampler and the small settings
    every SBC test shares (50 draws, 2 chains, one process, quiet, seed 1); a test passes the
    model, the design and whatever else it checks, and may override any of these."""
    from bayes_pairwise.model_checking import sbc

    return partial(sbc, random_seed=1, draws=50, chains=2, n_jobs=1, progress=False)


@pytest.fixture(scope="session")
def tiny_frame() -> pd.DataFrame:
    """Three items; a–b twice a-first and once b-first, a–c once each way, b–c b-first only."""
    return pd.DataFrame(
        {
            "first": ["a", "a", "b", "a", "c", "b", "b", "b"],
            "second": ["b", "b", "a", "c", "a", "c", "c", "c"],
            "outcome": ["first", "first", "first", "second", "second", "first", "second", "first"],
        }
    )
