"""Benchmark: the Δ_S grid fit at N = 100, paper-faithful against the package (METHODS §5).

Run::

    .venv/bin/python benchmarks/bench_deltas.py            # about a minute
    .venv/bin/python benchmarks/bench_deltas.py --repeats 5

Everything is measured in this process on the same simulated round-robin (N = 100, ε = 0.15,
seed 0), with the paper's settings (grid step 0.005 on [0, 0.5] = 101 values, R = 200 subsets per
n, M = 10 synthetic matrices per grid value):

* paper-faithful: the observed curve with a Python loop over n and subsets
  (:func:`delta_s_curve_reference`), and the synthetic curve at **one** grid value from M naive
  N×N matrices, each subsetted R times per n (:func:`synthetic_curve_reference`). The full 1-D
  fit needs 101 synthetic curves, the 2-D fit 101² = 10,201: both are extrapolated from the one
  measured grid value;
* package, 1-D: ``DeltaSFit().fit(data)`` with an empty cache directory (cold: synthetic table
  computed with common random numbers, then written) and again with the table cached (warm);
  targets ≤ 2 s and ≤ 0.3 s;
* package, 2-D: the 101 × 101 synthetic table at N = 100 for the (1, 1) design, computed without
  the cache (target ≤ 15 s), and a cached ``DeltaS2DFit`` on the same data.

Times are the best of ``--repeats`` runs (the paper-faithful grid value is run once: it is slow).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bayes_pairwise.classical.deltas import (
    DeltaS2DFit,
    DeltaSFit,
    delta_s_curve_reference,
    make_grid,
    synthetic_curve_reference,
    synthetic_table,
)
from bayes_pairwise.matrices import z_matrix
from bayes_pairwise.simulate import simulate_round_robin


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def row(label: str, value: str, extra: str = "") -> None:
    print(f"  {label:<40}{value:>10}   {extra}".rstrip())


def fmt(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 120:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.3f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-items", type=int, default=100)
    ap.add_argument("--eps", type=float, default=0.15)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    N, R, M = args.n_items, 200, 10
    G = make_grid(0.005).size
    sim = simulate_round_robin(N, eps=args.eps, random_seed=args.seed)
    Z = z_matrix(sim.data).to_numpy()
    print(f"data: N={N}, eps={args.eps}, realised eps={sim.realised_eps:.4f} (synthetic)")
    print(f"settings: grid {G} values (step 0.005), R={R} subsets, M={M} synthetic matrices\n")

    # --- paper-faithful
    t_obs_ref, _ = best_of(lambda: delta_s_curve_reference(Z, R, random_seed=1), 1)
    t_syn_ref, _ = best_of(
        lambda: synthetic_curve_reference(N, args.eps, n_synthetic=M, n_subsets=R, random_seed=2),
        1,
    )
    full_1d = t_obs_ref + G * t_syn_ref
    full_2d = t_obs_ref + G * G * t_syn_ref
    print("paper-faithful (Python loops over subsets, naive synthetic N-matrices)")
    row("observed curve", fmt(t_obs_ref))
    row("synthetic curve, one grid value", fmt(t_syn_ref))
    row(f"1-D fit, {G} grid values (extrapolated)", fmt(full_1d))
    row(f"2-D fit, {G}x{G} values (extrapolated)", fmt(full_2d))
    print()

    # --- package 1-D
    def cold() -> DeltaSFit:
        with tempfile.TemporaryDirectory() as d:
            return DeltaSFit(random_seed=0, cache_dir=d).fit(sim.data)

    t_cold, fit = best_of(cold, args.repeats)
    with tempfile.TemporaryDirectory() as d:
        DeltaSFit(random_seed=0, cache_dir=d).fit(sim.data)  # fill the cache
        t_warm, fit_w = best_of(
            lambda: DeltaSFit(random_seed=0, cache_dir=d).fit(sim.data), args.repeats
        )
        assert fit_w.table_.from_cache
        # --- package 2-D
        t_2d, table = best_of(
            lambda: synthetic_table(N, two_d=True, use_cache=False, random_seed=0), args.repeats
        )
        DeltaS2DFit(random_seed=0, cache_dir=d).fit(sim.data)  # fill the 2-D cache
        t_2d_warm, fit2 = best_of(
            lambda: DeltaS2DFit(random_seed=0, cache_dir=d).fit(sim.data), args.repeats
        )

    print("package (common random numbers, vectorised, cached tables)")
    row("1-D fit, cold (table computed)", fmt(t_cold), f"target <= 2 s    eps_={fit.eps_}")
    row("1-D fit, cached table", fmt(t_warm), "target <= 0.3 s")
    row(f"2-D table {G}x{G}, N={N}", fmt(t_2d), f"target <= 15 s   {table.values.shape}")
    row("2-D fit, cached table", fmt(t_2d_warm), f"eps_sum_={fit2.eps_sum_:.3f}")
    print()
    print("ratios (paper-faithful / package)")
    row("1-D: full grid / cold fit", f"{full_1d / t_cold:,.0f}x")
    row("1-D: full grid / cached fit", f"{full_1d / t_warm:,.0f}x")
    row("2-D: full grid / 2-D table", f"{full_2d / t_2d:,.0f}x")
    row("one grid value / whole cold 1-D fit", f"{t_syn_ref / t_cold:,.1f}x")


if __name__ == "__main__":
    main()
