"""Execute the notebooks in this folder with nbclient.

    python notebooks/run_notebooks.py --check   # run each notebook, fail on any error (CI)
    python notebooks/run_notebooks.py --write   # run and save the outputs into the .ipynb files

``BAYES_PAIRWISE_QUICK=1`` (set by ``--check`` unless ``--full`` is given) asks the notebooks for
short sampling runs: the code path is the real one, only ``draws``/``tune`` are smaller.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def run(path: Path, *, write: bool, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    )
    client.execute()
    elapsed = time.perf_counter() - start
    if write:
        nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="execute, do not save")
    mode.add_argument("--write", action="store_true", help="execute and save outputs")
    ap.add_argument("--full", action="store_true", help="full-length sampling (no quick mode)")
    ap.add_argument("--timeout", type=int, default=1800, help="per-cell timeout in seconds")
    ap.add_argument("names", nargs="*", help="notebook file names (default: all)")
    args = ap.parse_args(argv)
    if not args.full:
        os.environ["BAYES_PAIRWISE_QUICK"] = "1"
    paths = [HERE / n for n in args.names] if args.names else sorted(HERE.glob("[0-9]*.ipynb"))
    if not paths:
        print("no notebooks found", file=sys.stderr)
        return 1
    for p in paths:
        print(f"running {p.name} …", flush=True)
        secs = run(p, write=args.write, timeout=args.timeout)
        print(f"  ok in {secs:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
