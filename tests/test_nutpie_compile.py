"""compile_nutpie_model: nutpie's compiled model, its C callbacks cached on disk (issue 10)."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from pymc.model.transform.optimization import freeze_dims_and_data
from pytensor.graph.basic import Constant

from bayes_pairwise.data import load_comparisons
from bayes_pairwise.pymc_models import get_model
from bayes_pairwise.simulate import simulate_hard_pairs, simulate_round_robin

nutpie = pytest.importorskip("nutpie")

from bayes_pairwise.pymc_models.nutpie_compile import compile_nutpie_model  # noqa: E402

SAMPLE = {"draws": 30, "tune": 30, "chains": 2, "seed": 5, "progress_bar": False}


def _tie_log() -> object:
    """Two judges, 12 contexts of 4 texts in both orders, hard pairs, 15% ties."""
    sim = simulate_hard_pairs(4, repeats=2, n_contexts=12, labelled=0.0, random_seed=2)
    frame = sim.frame.assign(judge=np.where(sim.frame["repeat"] == 0, "j1", "j2"))
    return load_comparisons(frame.drop(columns=["repeat", "truth"]), ties="model")


def _nutpies_own(model: pm.Model) -> object:
    """``nutpie.compile_pymc_model(model)`` with PyTensor's numba code compiled as the package
    compiles it: without fast-math (whose fused multiply-adds a fresh compile and the disk
    cache placed differently, so that the first fit on a machine drew other draws)."""
    import pytensor

    with pytensor.config.change_flags(numba__fastmath=False):
        return nutpie.compile_pymc_model(model)


@pytest.mark.slow  # two numba compiles and two samplings: ~40 s
def test_cached_callbacks_load_from_disk_and_sample_exactly_as_nutpie():
    sim = simulate_round_robin(6, eps=0.2, random_seed=3)
    model = freeze_dims_and_data(get_model("uniform").build_model(sim.data))
    compile_nutpie_model(model, require_cache=True)  # writes the cache (or finds it)
    again = compile_nutpie_model(model, require_cache=True)
    # the second compile of the same graph loads both callbacks from numba's disk cache
    assert again.compiled_logp_func.cache_hits == 1
    assert again.compiled_expand_func.cache_hits == 1
    ours = nutpie.sample(again, **SAMPLE)
    ref = nutpie.sample(_nutpies_own(model), **SAMPLE)
    assert set(ours.posterior.data_vars) == set(ref.posterior.data_vars)
    for name in ref.posterior.data_vars:
        np.testing.assert_array_equal(ours.posterior[name].values, ref.posterior[name].values)
    np.testing.assert_array_equal(
        ours.sample_stats["n_steps"].values, ref.sample_stats["n_steps"].values
    )


@pytest.mark.slow  # two numba compiles: ~20 s
def test_shared_data_falls_back_to_nutpies_own_callbacks():
    with pm.Model() as model:
        x = pm.Data("x", np.array([0.3, -0.2, 1.1]))
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, 1.0, observed=x)
    with pytest.raises(RuntimeError, match="shared variables"):
        compile_nutpie_model(model, require_cache=True)
    ours = nutpie.sample(compile_nutpie_model(model), **SAMPLE)
    ref = nutpie.sample(_nutpies_own(model), **SAMPLE)
    np.testing.assert_array_equal(ours.posterior["mu"].values, ref.posterior["mu"].values)


@pytest.mark.parametrize(
    ("name", "log"),
    [
        ("uniform", "round_robin"),  # one judge, no ties: the per-pattern likelihood
        ("uniform", "ties"),
        ("positional", "ties"),
        ("uniform_difficulty", "ties"),
        ("positional_difficulty", "ties"),
    ],
)
def test_frozen_graphs_hold_no_strided_constants(name, log):
    """A strided constant is embedded by its address, and then nothing compiled is cached.

    The per-pattern likelihood and the difficulty mixture once sliced columns out of folded
    data tables; numba then refused to cache the log-density (a 10-30 s compile in every new
    process).
    """
    if log == "ties":
        model = get_model(name, ties="model").build_model(_tie_log())
    else:
        model = get_model(name).build_model(simulate_round_robin(8, random_seed=1).data)
    model = freeze_dims_and_data(model)
    fn = model.compile_fn(
        [model.logp(), model.dlogp()],
        inputs=model.value_vars,
        mode="NUMBA",
        point_fn=False,
    )
    strided = [
        (str(node.op), inp.data.strides)
        for node in fn.maker.fgraph.apply_nodes
        for inp in node.inputs
        if isinstance(inp, Constant)
        and isinstance(inp.data, np.ndarray)
        and inp.data.ndim > 0
        and not (inp.data.flags.c_contiguous or inp.data.flags.f_contiguous)
    ]
    assert strided == []


_FIRST_AND_LATER_CHILD = """
import warnings
warnings.simplefilter("ignore")
from bayes_pairwise.pymc_models import BiasedBradleyTerry
from bayes_pairwise.simulate import simulate_round_robin
sim = simulate_round_robin(12, eps_plus=0.05, eps_minus=0.15, repeats=2, random_seed=0)
m = BiasedBradleyTerry(draws=100, tune=100, chains=2).fit(sim.data, random_seed=1)
print(m.idata_.posterior["gamma"].values.tobytes().hex())
"""


@pytest.mark.slow  # two processes, the first compiling everything (about 30 s)
def test_the_first_fit_on_a_machine_draws_what_every_later_fit_draws(tmp_path):
    """A model sampled through PyTensor's numba graph (biased Bradley–Terry): the first process
    compiles the graph, the second loads it from the disk caches. With PyTensor's fast-math
    flags the two codes rounded differently and the same seed gave other draws (γ 0.45306 vs
    0.45307 in the first draw, 5,176 vs 4,756 leapfrog steps); the package compiles without
    them, and the draws are the same bits."""
    import os
    import subprocess
    import sys

    base = tmp_path / "pytensor"
    env = {
        **os.environ,
        "BAYES_PAIRWISE_CACHE": str(tmp_path / "bp"),
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "PYTENSOR_FLAGS": f"base_compiledir={base},compiledir={base / 'c'}",
    }
    run = [sys.executable, "-c", _FIRST_AND_LATER_CHILD]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    later = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert first.stdout.strip() and first.stdout.strip() == later.stdout.strip()
