"""Benchmark the PyMC models against the targets of issue 3.

    python benchmarks/bench_models.py                 # both samplers when nutpie is installed
    python benchmarks/bench_models.py --sampler pymc  # one sampler

1. Uniform-error model, N = 100 round-robin (4,950 pairs, ε = 0.15), 4 chains × (1000 tune +
   1000 draws), wall time *including* model build and compilation (target ≤ 15 s), and the
   bulk-ESS per second of ε.
2. Biased Bradley–Terry MAP, 30 items × 20,000 verdicts with one covariate: wall time of
   ``fit(method="map")`` after a first (compiling) fit of the same shape (target ≤ 2 s).

Also times the pair likelihood's logp + gradient (the inner loop of NUTS) at N = 100. Prints
numbers and ratios to target; nothing here is a pass/fail test. The machine's load matters: the
number of CPU cores and the 1-minute load average are printed with the results.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

UNIFORM_TARGET_S = 15.0
MAP_TARGET_S = 2.0


def _machine() -> str:
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        load = float("nan")
    return f"{os.cpu_count()} CPU cores, 1-min load average {load:.2f}"


def bench_gradient(data) -> None:
    import pytensor

    from bayes_pairwise.pymc_models import UniformError
    from bayes_pairwise.pymc_models.base import _frozen

    model = _frozen(UniformError().build_model(data))
    logp = model.logp()
    grads = pytensor.grad(logp, model.value_vars)
    fn = pytensor.function(model.value_vars, [logp, *grads])
    fn.trust_input = True
    point = model.initial_point()
    args = [point[v.name] for v in model.value_vars]
    fn(*args)
    n = 2000
    start = time.perf_counter()
    for _ in range(n):
        fn(*args)
    per_call = (time.perf_counter() - start) / n
    print(f"  logp + gradient, N = 100 (4,950 pairs): {per_call * 1e6:.0f} µs per evaluation")


def bench_uniform(data, truth, sampler: str) -> None:
    import arviz as az

    from bayes_pairwise.pymc_models import UniformError

    start = time.perf_counter()
    m = UniformError(nuts_sampler=sampler).fit(data, random_seed=1)
    wall = time.perf_counter() - start
    post = m.idata_.posterior
    ess = float(az.ess(post["eps"]).to_array().values.ravel()[0])
    rhat = float(az.rhat(post["eps"]).to_array().values.ravel()[0])
    div = int(np.asarray(m.idata_.sample_stats["diverging"]).sum())
    eps = float(post["eps"].mean())
    print(
        f"  uniform N=100, {sampler:6s}: {wall:6.1f} s total (target {UNIFORM_TARGET_S:.0f} s, "
        f"ratio {wall / UNIFORM_TARGET_S:.2f}); ESS_bulk(eps) = {ess:.0f} -> {ess / wall:.0f} "
        f"ESS/s; R-hat {rhat:.3f}; divergences {div}; eps = {eps:.4f} "
        f"(realised {truth.realised_eps:.4f})"
    )


def bench_map() -> None:
    from bayes_pairwise.pymc_models import BiasedBradleyTerry
    from bayes_pairwise.simulate import simulate_biased_bt

    sim = simulate_biased_bt(
        30, 20_000, gamma=0.6, covariate_effects={"length": 0.4}, random_seed=0
    )
    start = time.perf_counter()
    BiasedBradleyTerry().fit(sim.data, method="map", random_seed=0)
    first = time.perf_counter() - start
    times = []
    for seed in (1, 2, 3):
        start = time.perf_counter()
        m = BiasedBradleyTerry().fit(sim.data, method="map", random_seed=seed)
        times.append(time.perf_counter() - start)
    best = min(times)
    gamma = float(m.idata_.posterior["gamma"].mean())
    w = float(m.idata_.posterior["w"].mean())
    print(
        f"  biased BT MAP, 30 items x 20,000 verdicts: first fit (compiling) {first:.2f} s; "
        f"after compile best of 3 {best:.2f} s (target {MAP_TARGET_S:.0f} s, ratio "
        f"{best / MAP_TARGET_S:.2f}); gamma = {gamma:.3f} (true 0.6), w = {w:.3f} (true 0.4)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sampler", choices=["nutpie", "pymc", "both"], default="both")
    args = parser.parse_args()
    from bayes_pairwise.pymc_models.base import nutpie_available
    from bayes_pairwise.simulate import simulate_round_robin

    print(f"machine: {_machine()}")
    sim = simulate_round_robin(100, eps=0.15, random_seed=0)
    bench_gradient(sim.data)
    samplers = ["nutpie", "pymc"] if args.sampler == "both" else [args.sampler]
    if not nutpie_available():
        samplers = [s for s in samplers if s != "nutpie"] or ["pymc"]
    for sampler in samplers:
        bench_uniform(sim.data, sim, sampler)
    bench_map()
    print(f"machine after: {_machine()}")


if __name__ == "__main__":
    main()
