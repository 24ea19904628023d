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


def _tied_log(n_judges: int, seed: int = 3):
    """Round robins of 5 with 20% ties, judged by ``n_judges`` judges (each sees every pair)."""
    import pandas as pd

    from bayes_pairwise.data import load_comparisons

    frames = []
    for j in range(n_judges):
        sim = simulate_round_robin(5, eps=0.1, n_contexts=3, random_seed=seed + j)
        frame = sim.data.to_frame().assign(judge=f"j{j:02d}")
        tie = np.random.default_rng(seed + j).random(len(frame)) < 0.2
        frame.loc[tie, "outcome"] = "tie"
        frames.append(frame)
    return load_comparisons(pd.concat(frames, ignore_index=True), ties="model")


def _judge_gathers(model, index: str = "pair_judge") -> int:
    """Gathers indexed by the rows' judges in the model's log-density graph."""
    from pytensor.graph.traversal import ancestors

    return sum(
        1
        for v in ancestors([model.logp()])
        if v.owner is not None
        and "AdvancedSubtensor" in type(v.owner.op).__name__
        and any(getattr(x, "name", None) == index for x in v.owner.inputs)
    )


@pytest.mark.parametrize("n_judges", [1, 3])
def test_jax_graph_reads_per_judge_rates_without_a_gather(n_judges: int) -> None:
    """On an H100 the gradient of ``rate[judge]`` — a scatter-add of every row into its judge's
    slot — took 68 ms of a 68.8 ms QLoRA gradient. The JAX graph reads per-judge rates (ε₊, ε₋
    and the tie logit) as a masked sum: no gather by judge in the log-density, which is built
    after the context has closed, as the samplers build it; the kernels' graph keeps them."""
    data = _tied_log(n_judges)
    model = get_model("positional", ties="model")
    with elementwise_likelihood():
        plain = model.build_model(data)
    assert _judge_gathers(plain) == 0
    assert _judge_gathers(model.build_model(data)) > 0  # the numba path: unchanged


def test_biased_bt_reads_gamma_without_a_gather_in_the_jax_graph() -> None:
    from bayes_pairwise.simulate import simulate_biased_bt

    data = simulate_biased_bt(8, 200, gamma=[0.3, -0.2, 0.5], n_judges=3, random_seed=0).data
    model = get_model("biased_bt")
    with elementwise_likelihood():
        plain = model.build_model(data)
    assert _judge_gathers(plain, "verdict_judge") == 0
    assert _judge_gathers(model.build_model(data), "verdict_judge") > 0


def test_many_judges_keep_the_gather() -> None:
    """Above JUDGE_MASK_MAX judges a masked sum would cost a pass per judge: the gather stays."""
    from bayes_pairwise.pymc_models.likelihoods import JUDGE_MASK_MAX

    with elementwise_likelihood():
        plain = get_model("positional", ties="model").build_model(_tied_log(JUDGE_MASK_MAX + 1))
    assert _judge_gathers(plain) > 0


@pytest.mark.slow
def test_masked_per_judge_rates_give_the_kernels_density() -> None:
    """Three judges, ties modelled: the elementwise graph (masked per-judge rates) and the fused
    kernels give the same log-density at a point away from the initial one."""
    data = _tied_log(3)
    model = get_model("positional", ties="model")
    fused = model.build_model(data)
    with elementwise_likelihood():
        plain = model.build_model(data)
    rng = np.random.default_rng(0)
    point = {k: v + rng.normal(0, 0.3, np.shape(v)) for k, v in fused.initial_point().items()}
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


def test_cli_nuts_sampler_reaches_the_sampler(mock_sampler, capsys) -> None:
    """``fit --nuts-sampler`` picks the NUTS implementation, as ``nuts_sampler=`` does in
    Python (the JAX samplers were reachable from Python only)."""
    import json

    from bayes_pairwise.cli import main

    argv = ["fit", "prd_vicuna80", "--model", "uniform", "--draws", "5", "--tune", "5"]
    assert main([*argv, "--chains", "1", "--nuts-sampler", "pymc", "--json"]) == 0
    assert mock_sampler[-1]["nuts_sampler"] == "pymc"
    settings = json.loads(capsys.readouterr().out)["settings"]["sampler"]
    assert settings["nuts_sampler"] == "pymc" and settings["mass_matrix"] == "diag"


def test_jax_chains_run_vectorised_on_one_accelerator() -> None:
    from bayes_pairwise.pymc_models.base import jax_chain_method

    assert jax_chain_method(4, "gpu", 1) == "vectorized"
    assert jax_chain_method(4, "gpu", 4) == "parallel"  # one chain per device
    assert jax_chain_method(4, "cpu", 1) == "parallel"  # PyMC makes host devices on the CPU
