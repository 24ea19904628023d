"""Issue 8 benchmark: ``sbc --model uniform --n-items 8 --sims 20 --seed 1`` against its
10-minute target on two cores, with a reference measured in the same run (one uniform NUTS fit
of the same size, so the ratio says how many fits' worth of time the SBC costs).

Run: ``python benchmarks/bench_sbc.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 600.0


def reference_fit_seconds() -> float:
    """One uniform NUTS fit on an 8-item round robin (the SBC's unit of work)."""
    from bayes_pairwise.pymc_models import UniformError
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(8, eps=0.15, random_seed=1)
    t0 = time.perf_counter()
    UniformError().fit(sim.data, random_seed=1)
    return time.perf_counter() - t0


def main() -> int:
    ref = reference_fit_seconds()
    with tempfile.TemporaryDirectory() as d:
        cmd = [
            sys.executable,
            "-m",
            "bayes_pairwise.cli",
            "sbc",
            "--model",
            "uniform",
            "--n-items",
            "8",
            "--sims",
            "20",
            "--seed",
            "1",
            "--json",
            "--results",
            str(Path(d) / "sbc.jsonl"),
        ]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - t0
    cov = {p["parameter"]: p["coverage"] for p in json.loads(out.stdout)["parameters"]}
    ok = elapsed <= TARGET_S
    print(
        f"sbc uniform n=8 sims=20: {elapsed:.0f} s (target <= {TARGET_S:.0f} s: "
        f"{'MET' if ok else 'NOT MET'}); {elapsed / ref:.1f}x one reference fit ({ref:.1f} s)"
    )
    print(f"coverage: {cov}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
