"""``leaderboard`` (Bradley–Terry with its bootstrap) on a 2-million-row log of 200 systems
(issue 27): the whole command from the CSV file, against the row bootstrap it replaced.

    python benchmarks/bench_leaderboard.py                 # 2 M rows, 200 systems, 1000 replicates
    python benchmarks/bench_leaderboard.py --rows 200000   # smaller

What is timed, all in this process on the same file:

* ``load``: ``load_comparisons`` of the CSV (ties counted half);
* ``leaderboard``: ``leaderboard(data, n_boot=1000)`` — aggregate to the table's cells once
  (pair × outcome), draw the cell counts of each replicate from a multinomial (the same
  distribution as resampling the rows), fit each replicate by chord-Newton steps from the
  estimate; the target is load + leaderboard ≤ 30 s;
* reference, measured in the same run: the previous bootstrap — a multinomial weight for each of
  the 2 M rows, a sparse row-to-table product, MM from zero — for ``--ref-boot`` replicates, and
  its per-replicate time scaled to ``n_boot`` (the figure the old command would have needed).

The machine's load average is printed before and after: other processes on the same cores
stretch every timing; the ratio is the portable number.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

TARGET_S = 30.0


def write_log(path: str, n_rows: int, n_items: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 1.0, n_items)
    f = rng.integers(0, n_items, n_rows)
    g = rng.integers(0, n_items - 1, n_rows)
    g = g + (g >= f)
    p = 1.0 / (1.0 + np.exp(-(s[f] - s[g])))
    u = rng.random(n_rows)
    names = np.array([f"model_{i:03d}" for i in range(n_items)])
    win = np.where(u < 0.9 * p, "model_a", np.where(u < 0.9 * p + 0.1, "tie", "model_b"))
    pd.DataFrame({"model_a": names[f], "model_b": names[g], "winner": win}).to_csv(
        path, index=False
    )


def row_bootstrap(data, n_boot: int, seed: int) -> float:
    """The bootstrap before issue 27, per replicate: one weight per row, MM from zero."""
    from scipy.sparse import coo_matrix

    from bayes_pairwise.classical.bradley_terry import bt_mm

    n, size = data.n_items, data.n_comparisons
    f = np.asarray(data.first, dtype=np.int64)
    s = np.asarray(data.second, dtype=np.int64)
    o = np.asarray(data.outcome, dtype=float)
    unit = np.arange(size)
    m = coo_matrix(
        (
            np.concatenate([o, 1 - o]),
            (np.concatenate([unit, unit]), np.concatenate([f * n + s, s * n + f])),
        ),
        shape=(size, n * n),
    ).tocsr()
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for _ in range(n_boot):
        w = rng.multinomial(size, np.full(size, 1.0 / size)).astype(float)
        xb = np.asarray(m.T @ w).reshape(n, n)
        bt_mm(xb, tol=1e-9, max_iter=20_000)
    return (time.perf_counter() - t0) / n_boot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--ref-boot", type=int, default=10)
    args = ap.parse_args()

    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.leaderboard import leaderboard

    print(f"cores {os.cpu_count()}, load average before {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.csv")
        write_log(path, args.rows, args.items, seed=0)
        t0 = time.perf_counter()
        data = load_comparisons(path, ties="half")
        t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    lb = leaderboard(data, n_boot=args.n_boot, random_seed=0)
    t_lb = time.perf_counter() - t0
    per_rep_new = t_lb / args.n_boot
    per_rep_old = row_bootstrap(data, args.ref_boot, seed=0)
    print(f"log: {args.rows:,} rows, {args.items} systems, {args.n_boot} replicates")
    print(f"load                {t_load:8.1f} s")
    print(
        f"leaderboard         {t_lb:8.1f} s   ({lb.table.shape[0]} rows, intervals "
        f"{'all' if np.all(lb.table['lower'] < lb.table['upper']) else 'NOT all'} of width > 0)"
    )
    total = t_load + t_lb
    print(
        f"load + leaderboard  {total:8.1f} s   target ≤ {TARGET_S:.0f} s: "
        f"{'met' if total <= TARGET_S else 'NOT met'} on this machine"
    )
    print(
        f"reference: row bootstrap {per_rep_old * 1000:.0f} ms per replicate "
        f"(→ {per_rep_old * args.n_boot:.0f} s for {args.n_boot}); "
        f"ours {per_rep_new * 1000:.1f} ms per replicate (point fit included): "
        f"{per_rep_old / per_rep_new:.1f}× faster"
    )
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
