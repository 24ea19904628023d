"""Scale-out on Dask (issue 27): the same tasks, the same seeds, the same results on a
``LocalCluster`` as in this process; without a client nothing changes."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from bayes_pairwise import datasets
from bayes_pairwise.distributed import (
    local_cluster_client,
    run_tasks,
    scheduler_client,
)
from bayes_pairwise.leaderboard import judge_leaderboards
from bayes_pairwise.model_checking import sbc
from bayes_pairwise.strategies import run_strategies


@pytest.fixture(scope="module")
def client():
    """One small cluster for the module: a single worker thread (light on a shared machine)."""
    with local_cluster_client(1, processes=False) as c:
        yield c


def _draw(seed: int, k: int) -> float:
    return float(np.random.default_rng(np.random.SeedSequence([seed, k])).normal())


def _fail_on_two(k: int) -> int:
    if k == 2:
        raise ValueError("two")
    return k


def test_run_tasks_same_results_in_task_order(client) -> None:
    tasks = [(7, k) for k in range(6)]
    seen: list[int] = []
    here = run_tasks(_draw, tasks)
    there = run_tasks(_draw, tasks, client=client, on_done=lambda i, _: seen.append(i))
    assert there == here and sorted(seen) == list(range(6))
    assert len(set(here)) == 6  # the seeds differ per task
    out = run_tasks(_fail_on_two, [(k,) for k in range(4)], client=client, return_exceptions=True)
    assert out[:2] == [0, 1] and isinstance(out[2], ValueError) and out[3] == 3
    with pytest.raises(ValueError, match="two"):
        run_tasks(_fail_on_two, [(k,) for k in range(4)], client=client)


def test_scheduler_none_is_no_client() -> None:
    with scheduler_client(None) as c:
        assert c is None


def test_sbc_on_a_cluster_equals_the_serial_run(client) -> None:
    kw = dict(n_items=5, sims=2, random_seed=3, draws=150, tune=150, chains=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = sbc("uniform", n_jobs=1, **kw)
        dask = sbc("uniform", client=client, **kw)
    assert serial.failed == dask.failed == 0
    pd.testing.assert_frame_equal(serial.ranks, dask.ranks)
    assert len(serial.ranks) == 2 * 2  # eps and sigma_s per simulation


def test_judge_leaderboards_on_a_cluster(client) -> None:
    data = datasets.load("chatbot_arena", ties="model")
    here, _ = judge_leaderboards(data, random_seed=4, n_boot=20)
    seen: list[str] = []
    there, _ = judge_leaderboards(
        data, random_seed=4, n_boot=20, client=client, on_judge=seen.append
    )
    assert list(there) == list(here) and sorted(seen) == sorted(data.judges)
    for j in here:
        pd.testing.assert_frame_equal(here[j].table, there[j].table)


def test_run_strategies_on_a_cluster(client) -> None:
    kw = dict(n_items=40, reps=2, seed=5, strategies=["pairwise:rounds=4"], ratings=["bt", "elo"])
    here = run_strategies(**kw).drop(columns="seconds")
    there = run_strategies(client=client, **kw).drop(columns="seconds")
    pd.testing.assert_frame_equal(here, there)


@pytest.mark.slow
def test_cli_sbc_scheduler_local(capsys) -> None:
    """The must-show of issue 27, smaller: ``sbc … --scheduler local --json`` runs on Dask."""
    from bayes_pairwise.cli import main

    argv = ["sbc", "--model", "uniform", "--n-items", "6", "--sims", "4", "--jobs", "1"]
    argv += ["--draws", "150", "--tune", "150", "--scheduler", "local", "--json"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["settings"]["sims"] == 4 and "Dask cluster" in cap.err


@pytest.mark.parametrize(
    ("models", "contexts"),
    [(("uniform", "positional"), 1), (("uniform_order", "positional_order"), 6)],
)
def test_kfold_on_a_cluster_equals_the_serial_run(client, mock_sampler, models, contexts) -> None:
    """compare_models_kfold's refits as Dask tasks (a thread worker: the mocked sampler
    applies there too): the same folds, seeds and scores as in this process, over pair rows
    and, for the order models, over contexts."""
    import bayes_pairwise as bp
    from bayes_pairwise.model_checking import compare_models_kfold

    sim = bp.simulate_round_robin(
        6 if contexts == 1 else 4,
        eps_plus=0.05,
        eps_minus=0.3,
        repeats=2,
        n_contexts=contexts,
        random_seed=0,
    )
    kw = dict(k=3, draws=20, chains=1, random_seed=5)
    here = compare_models_kfold(sim.data, list(models), **kw)
    there = compare_models_kfold(sim.data, list(models), client=client, **kw)
    assert here.attrs["unit"] == ("pair" if contexts == 1 else "context")
    pd.testing.assert_frame_equal(here, there)
    for m in here["model"]:
        np.testing.assert_array_equal(here.attrs["pointwise"][m], there.attrs["pointwise"][m])
