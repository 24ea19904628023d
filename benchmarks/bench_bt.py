"""Benchmark: Bradley–Terry on 200 items × 500,000 comparisons, ours against evalica and choix.

Run (evalica and choix are benchmark-only; install them in the benchmark's own environment)::

    python -m venv /tmp/benchenv
    /tmp/benchenv/bin/pip install evalica choix numpy scipy pandas
    /tmp/benchenv/bin/pip install -e . --no-deps
    /tmp/benchenv/bin/python benchmarks/bench_bt.py

What is timed (best of ``--repeats`` runs, all in this process, same data):

* ours, end to end from verdict arrays: aggregate to the win matrix (``np.bincount``) and solve,
  with MM (METHODS §6), Newman's iteration and the logistic MLE, at tol = 1e-10 on max |Δθ|;
* ours from a validated ``Comparisons`` (``BradleyTerry().fit(data)``, which aggregates with the
  data layer's ``win_matrix``); building the ``Comparisons`` itself is timed separately;
* ``evalica.bradley_terry`` (Rust; its own Newman-type iteration) on Python lists of item ids and
  ``Winner`` values prepared outside the timer, at its defaults (tolerance 1e-6 on the L2 change
  of the scores, at most 100 iterations) and at a tolerance comparable to ours;
* ``choix.ilsr_pairwise`` (iterative Luce spectral ranking, alpha = 0) on (winner, loser) tuples.

Every solution is compared with our MLE (max |Δθ| of centred log-strengths). The data have no
ties, so all libraries fit exactly the same likelihood.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.classical.bradley_terry import (
    BradleyTerry,
    bt_mle,
    bt_mm,
    bt_newman,
    win_matrix_from_arrays,
)
from bayes_pairwise.data import load_comparisons


def simulate(n_items: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 1.0, n_items)
    f = rng.integers(0, n_items, n)
    g = rng.integers(0, n_items - 1, n)
    g = g + (g >= f)
    out = (rng.random(n) < 1.0 / (1.0 + np.exp(-(s[f] - s[g])))).astype(float)
    return f, g, out


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def centred_log(values: np.ndarray, log: bool) -> np.ndarray:
    v = np.log(np.asarray(values, dtype=float)) if log else np.asarray(values, dtype=float)
    return v - v.mean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--comparisons", type=int, default=500_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    n_items, n = args.items, args.comparisons
    f, g, out = simulate(n_items, n, args.seed)
    print(f"Bradley–Terry benchmark: {n_items} items × {n:,} comparisons (seed {args.seed})")
    rows: list[dict[str, Any]] = []

    ref = bt_mle(win_matrix_from_arrays(f, g, out, n_items)).theta

    def add(name: str, seconds: float, theta: np.ndarray | None, note: str = "") -> None:
        diff = float(np.max(np.abs(theta - ref))) if theta is not None else np.nan
        rows.append({"solver": name, "seconds": seconds, "max|Δθ| vs MLE": diff, "note": note})

    for label, solve in (
        ("ours MM (arrays → X → solve)", bt_mm),
        ("ours Newman (arrays → X → solve)", bt_newman),
        ("ours logistic MLE (arrays → X → solve)", bt_mle),
    ):
        sec, res = best_of(
            lambda s=solve: s(win_matrix_from_arrays(f, g, out, n_items)), args.repeats
        )
        add(label, sec, res.theta, f"{res.n_iter} iterations")

    labels = np.array([f"item{k:03d}" for k in range(n_items)])
    frame = pd.DataFrame(
        {"first": labels[f], "second": labels[g], "outcome": np.where(out == 1, "first", "second")}
    )
    sec_load, data = best_of(lambda: load_comparisons(frame), 1)
    order = np.array([int(lab[4:]) for lab in data.items])
    for method in ("mm", "newman"):
        sec, bt = best_of(lambda m=method: BradleyTerry(method=m).fit(data), args.repeats)
        theta = np.empty(n_items)
        theta[order] = bt.strengths_.to_numpy()
        add(
            f"ours BradleyTerry('{method}').fit(Comparisons)",
            sec,
            theta,
            f"{bt.n_iter_} iterations",
        )

    try:
        import evalica
        from evalica import Winner

        xs, ys = f.tolist(), g.tolist()
        winners = [Winner.X if o == 1.0 else Winner.Y for o in out]
        index = pd.Index(range(n_items))
        for tol, limit, note in (
            (1e-6, 100, "defaults: tol 1e-6, limit 100"),
            (1e-10, 10_000, "tol 1e-10"),
        ):
            sec, res = best_of(
                lambda t=tol, lim=limit: evalica.bradley_terry(
                    xs, ys, winners, index=index, tolerance=t, limit=lim
                ),
                args.repeats,
            )
            scores = res.scores.reindex(index).to_numpy()
            add(
                f"evalica {evalica.__version__} bradley_terry",
                sec,
                centred_log(scores, True),
                f"{note}; {res.iterations} iterations",
            )
    except ImportError:
        print("evalica is not installed: skipped (pip install evalica in the benchmark venv)")

    try:
        import choix

        pairs = [
            (a, b) if o == 1.0 else (b, a)
            for a, b, o in zip(f.tolist(), g.tolist(), out.tolist(), strict=True)
        ]
        sec, params = best_of(lambda: choix.ilsr_pairwise(n_items, pairs, alpha=0.0), args.repeats)
        add("choix ilsr_pairwise", sec, centred_log(params, False), "alpha 0, tol 1e-8")
    except ImportError:
        print("choix is not installed: skipped (pip install choix in the benchmark venv)")

    table = pd.DataFrame(rows)
    ev = table.loc[
        table["solver"].str.startswith("evalica") & table["note"].str.startswith("defaults"),
        "seconds",
    ]
    if len(ev):
        table["÷ evalica (defaults)"] = table["seconds"] / float(ev.iloc[0])
    with pd.option_context(
        "display.width", 200, "display.max_colwidth", 60, "display.float_format", "{:.4g}".format
    ):
        print(table.to_string(index=False))
    print(f"(building the Comparisons with load_comparisons, done once: {sec_load:.3f} s)")


if __name__ == "__main__":
    main()
