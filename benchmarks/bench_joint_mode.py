"""Benchmark: how well the MAP joint-mode check (``caveats.mode_shift``) measures the shift.

Run::

    .venv/bin/python benchmarks/bench_joint_mode.py            # about two minutes
    .venv/bin/python benchmarks/bench_joint_mode.py --seeds 5

Simulated logs of many small round robins (the QLoRA shape: contexts of 5 and 7 items, 200
contexts, both orders once, ε₊ 0.05, ε₋ 0.2), with a hard truth (a total order per context)
and with a soft one (strengths N(0, 1.5) per item, so that close pairs are near coin flips).
For each log the positional model's MAP is fitted and the check runs on it: one log simulated
on the same design at the MAP rates with a hard truth, refitted, the shift measured against
that log's realised error shares. Printed per log: the realised rates of the log itself (the
verdicts the simulation made wrong), the MAP's, the MAP less the measured shift, and whether
the caveat would be said. The reference measured in the same run is the MAP itself: the
summary line gives the mean absolute error of the MAP and of the MAP less the shift against
the realised rates, and their ratio (below 1: the check moves the reading towards the truth).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from bayes_pairwise.caveats import mode_shift
from bayes_pairwise.pymc_models import PositionalBias
from bayes_pairwise.simulate import simulate_round_robin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rows = []
    print(
        f"{'truth':6s} {'k':>2s} {'seed':>4s}  {'realised ε₊, ε₋':>16s}  {'MAP':>13s}  "
        f"{'MAP − shift':>13s}  {'shift':>15s}  said  seconds"
    )
    for soft in (None, 1.5):
        for k in (5, 7):
            for seed in range(args.seeds):
                sim = simulate_round_robin(
                    k,
                    eps_plus=0.05,
                    eps_minus=0.2,
                    n_contexts=200,
                    soft_sigma=soft,
                    random_seed=100 + seed,
                )
                start = time.perf_counter()
                fit = PositionalBias().fit(sim.data, method="map", random_seed=0)
                ms = mode_shift(fit, sim.data, random_seed=0)
                wall = time.perf_counter() - start
                real = np.array([sim.realised_eps_plus, sim.realised_eps_minus])
                names = ("eps_plus", "eps_minus")
                got = np.array([ms.fitted[n][0] for n in names])
                corr = np.array([ms.corrected[n][0] for n in names])
                shift = np.array([ms.shift[n][0] for n in names])
                rows.append((np.abs(got - real), np.abs(corr - real)))
                print(
                    f"{'soft' if soft else 'hard':6s} {k:2d} {seed:4d}  "
                    f"{real[0]:.3f}, {real[1]:.3f}      {got[0]:.3f}, {got[1]:.3f}  "
                    f"{corr[0]:.3f}, {corr[1]:.3f}  {shift[0]:+.3f}, {shift[1]:+.3f}  "
                    f"{'yes' if ms.matters[0] else 'no ':4s}  {wall:5.1f}",
                    flush=True,
                )
    before = np.mean([r[0] for r in rows], axis=0)
    after = np.mean([r[1] for r in rows], axis=0)
    print(
        f"mean |error| against the realised rates over {len(rows)} logs: MAP ε₊ {before[0]:.4f}, "
        f"ε₋ {before[1]:.4f}; MAP less the shift ε₊ {after[0]:.4f}, ε₋ {after[1]:.4f}; "
        f"ratio {after[0] / before[0]:.2f}, {after[1] / before[1]:.2f} (reference: the MAP)"
    )


if __name__ == "__main__":
    main()
