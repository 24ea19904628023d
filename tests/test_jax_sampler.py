"""The JAX samplers through PyMC (issue 27 item 4): optional, on CPU, nothing requires a GPU."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

from bayes_pairwise.pymc_models import get_model
from bayes_pairwise.pymc_models.fused import PairLogp
from bayes_pairwise.pymc_models.likelihoods import elementwise_likelihood
from bayes_pairwise.simulate import simulate_round_robin


def _ops(model) -> set[type]:
    from pytensor.graph.traversal import ancestors

    return {type(v.owner.op) for v in ancestors([model.logp()]) if v.owner is not None}


@pytest.mark.parametrize("ties", ["drop", pytest.param("model", marks=pytest.mark.slow)])
def test_elementwise_context_builds_without_the_fused_op(ties: str) -> None:
    """Inside the context the graph holds no numba Op (what JAX cannot compile); same logp."""
    sim = simulate_round_robin(6, random_seed=2)
    data = sim.data if hasattr(sim, "data") else sim
    model = get_model("positional", ties=ties)
    fused = model.build_model(data)
    with elementwise_likelihood():
        plain = model.build_model(data)
    assert PairLogp in _ops(fused) and PairLogp not in _ops(plain)
    if ties == "drop":  # one compile of each form is enough (a C compile: seconds)
        return
    point = fused.initial_point()
    assert np.isclose(fused.compile_logp()(point), plain.compile_logp()(point), rtol=1e-9)


def test_missing_jax_sampler_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from bayes_pairwise.pymc_models import base

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numpyro" else real(name)
    )
    with pytest.raises(ImportError, match=r"bayes-pairwise\[jax\]"):
        base._resolve_sampler("numpyro")


@pytest.mark.slow
def test_numpyro_fit_recovers_eps_on_cpu() -> None:
    pytest.importorskip("numpyro")
    sim = simulate_round_robin(20, random_seed=0)
    data = sim.data if hasattr(sim, "data") else sim
    m = get_model("uniform", nuts_sampler="numpyro", draws=300, tune=300, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(data, random_seed=1)
    eps = m.idata_.posterior["eps"].values.ravel()
    ref = get_model("uniform", draws=300, tune=300, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(data, random_seed=1)
    eps_ref = ref.idata_.posterior["eps"].values.ravel()
    # the same posterior: means within 3 Monte Carlo standard errors of the difference
    se = np.hypot(eps.std() / np.sqrt(100), eps_ref.std() / np.sqrt(100))
    assert abs(eps.mean() - eps_ref.mean()) < 3 * se
    assert m.settings_["sampler"]["nuts_sampler"] == "numpyro"
