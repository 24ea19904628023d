"""Issue 11 benchmark: the 9-configuration table (3 latent distributions x 3 annotator-bias levels)
of cost-aware annotation strategies, 1,000 texts, 3 reps, next to the paper's figures.

The paper (Haak & Schaer, Section 3) reports only pooled figures, read here as means over its
nine configurations: 24 pairwise rounds 12,000 calls rho 0.92; 3 listwise rounds of k = 10
1,500 calls rho 0.93; tail pruning (24 rounds, from round 8, 20 %) 4,759 calls rho 0.89 — all
with BT rating. Per-configuration numbers are not given (Figure 2c only plots them).

Issue 30: ``bayes`` reads ranked lists with Plackett–Luce (each list one observation) and the
active strategy's posterior does too; ``bayes-pairs`` and ``posterior=pairs`` are the earlier
reading (implied pairs as independent verdicts), so the table shows old against new; 1,275 is
85 % of listwise's 1,500.

Run: ``python benchmarks/bench_strategies.py [--reps 3] [--n-items 1000] [--list-model thurstone]
[--out table.csv]``.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from bayes_pairwise.strategies import RATINGS, run_strategies

STRATEGIES = [
    "pairwise:rounds=24",
    "listwise:k=10,rounds=3",
    "tail-prune:rounds=24,start=8,perc=0.2",
    "streak-prune:rounds=24,streak=3,distinct=3",
    "active:budget=1200",
    "active:budget=1200,posterior=pairs",
    "active:budget=1275",
    "active:budget=1275,posterior=pairs",
    "active:budget=1200,score=bald",
    "active:budget=1000,k=20",
    "listwise:k=20,rounds=3",
]
PAPER = {  # pooled over the paper's nine configurations, BT rating
    "pairwise:rounds=24": (12000, 0.92),
    "listwise:k=10,rounds=3": (1500, 0.93),
    "tail-prune:rounds=24,start=8,perc=0.2": (4759, 0.89),
}


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n-items", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--list-model", choices=("copeland", "thurstone"), default="copeland")
    ap.add_argument("--out", default=None, help="CSV of all records")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    frames = []
    for dist in ("linear", "bimodal", "normal"):
        for tb in (0, 50, 200):
            t = time.perf_counter()
            df = run_strategies(
                args.n_items,
                dist,
                bias_items=tb,
                bias_shift=200.0,
                reps=args.reps,
                seed=args.seed,
                strategies=STRATEGIES,
                ratings=RATINGS,
                list_model=args.list_model,
            )
            df.insert(0, "t_bias", tb)
            df.insert(0, "distribution", dist)
            frames.append(df)
            print(f"{dist:8s} t_bias={tb:3d}: {time.perf_counter() - t:6.1f} s", flush=True)
    allres = pd.concat(frames, ignore_index=True)
    total = time.perf_counter() - t0
    bt = allres[allres["rating"] == "bt"]
    table = bt.pivot_table(index=["distribution", "t_bias"], columns="strategy", values="spearman")
    table = table[STRATEGIES]
    pd.set_option("display.width", 250)
    print(f"\nSpearman rho (BT rating), mean of {args.reps} reps, {args.list_model} lists")
    print(table.round(3).to_string())
    pooled = allres.groupby(["strategy", "rating"], sort=False)[["cost", "spearman"]].mean()
    pooled = pooled.unstack("rating")
    print("\nPooled over the 9 configurations (cost, rho by rating) and the paper's figures")
    rows = []
    for s in STRATEGIES:
        row = {"strategy": s, "cost": pooled.loc[s, ("cost", "bt")]}
        for r in RATINGS:
            row[f"rho_{r}"] = pooled.loc[s, ("spearman", r)]
        row["paper_cost"], row["paper_rho_bt"] = PAPER.get(s, (None, None))
        rows.append(row)
    print(pd.DataFrame(rows).round(4).to_string(index=False))
    print(
        f"\ntotal {total:.0f} s for 9 configurations x {len(STRATEGIES)} strategies x "
        f"{args.reps} reps x {len(RATINGS)} ratings"
    )
    if args.out:
        allres.to_csv(args.out, index=False)
    return allres


if __name__ == "__main__":
    main()
