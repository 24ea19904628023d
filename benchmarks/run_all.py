"""Run every benchmark in this folder, one process each, and print their reports.

    python benchmarks/run_all.py            # all
    python benchmarks/run_all.py deltas bt  # a selection (bench_<name>.py)

Each benchmark measures the package and its reference in the same run and prints the ratios
against the targets of the issues; nothing here is a pass/fail test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))
    status = 0
    for name in names:
        script = HERE / f"bench_{name}.py"
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)])
        print(f"=== {script.name}: exit {rc} after {time.perf_counter() - start:.1f} s", flush=True)
        status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
