"""How far is the active strategy from what any list design could do at its budget (issue 11)?

    python benchmarks/bench_active_oracle.py            # linear, t_bias 200 and 0, 3 reps

At 1,200 calls (lists of 10: 2.4 list appearances per text) the active strategy stays below
three listwise rounds at 1,500 calls (3 appearances). This script asks whether a better choice
of lists could close that gap, with *oracles* that know what no strategy knows:

* the same random first round as the active strategy (500 calls: every text once), then the
  remaining 700 calls on lists of 10 texts a fixed ``stride`` apart in the judge's *perceived*
  order (what a perfect posterior would converge to) or in the *latent* order, at random
  offsets (or lists of all those strides mixed); rated with Bradley–Terry (MM) on the implied
  pairs, as the strategies are.

Reference, measured in the same run on the same worlds: ``listwise:k=10,rounds=3`` (1,500
calls) and ``active:budget=1200``. Public API only.
"""

from __future__ import annotations

import argparse

import numpy as np

from bayes_pairwise import spearman_rho
from bayes_pairwise.strategies import (
    bt_scores,
    implied_pairs,
    listwise_cost,
    run_strategy,
    simulate_annotation,
)

K = 10
STRIDES = (1, 2, 4, 8, 16, 32)


def _strided_lists(order: np.ndarray, stride: int, offset: int) -> list[np.ndarray]:
    """Lists of K texts ``stride`` places apart along ``order`` (blocks of K·stride)."""
    rolled = np.roll(order, -offset)
    block = K * stride
    lists = []
    for b0 in range(0, rolled.size - block + 1, block):
        lists.extend(rolled[b0 : b0 + block].reshape(K, stride).T)
    return lists


def oracle(world, rng: np.random.Generator, order: np.ndarray, budget: float, stride: int):
    """Random first round, then lists from a known order; (ρ of BT, cost)."""
    n = world.n_items
    groups = list(rng.permutation(n)[: (n // K) * K].reshape(-1, K))
    cost = listwise_cost([K] * len(groups))
    while cost + K / 2 <= budget + 1e-9:
        # stride 0: lists of every stride of STRIDES, mixed
        more = [
            g
            for st in (STRIDES if stride == 0 else (stride,))
            for g in _strided_lists(order, st, int(rng.integers(st * K)))
        ]
        rng.shuffle(more)
        take = int((budget - cost + 1e-9) // (K / 2))
        groups.extend(more[:take])
        cost += listwise_cost([K] * len(more[:take]))
    ranked = world.rank_lists(np.stack(groups), rng)
    first, second = implied_pairs(ranked)
    scores = bt_scores(first, second, np.ones(first.size), n)
    return spearman_rho(scores, world.latent), cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1200.0)
    args = parser.parse_args()
    for bias in (200, 0):
        rows: dict[str, list[float]] = {}
        for rep in range(args.reps):
            world = simulate_annotation(1000, "linear", bias_items=bias, random_seed=100 + rep)
            rng = np.random.default_rng(rep)
            for spec in ("listwise:k=10,rounds=3", f"active:budget={args.budget:g}"):
                run, rho = run_strategy(spec, world, rng, ["bt"])
                rows.setdefault(f"{spec} (cost {run.cost:,.0f})", []).append(rho["bt"])
            for name, order in (
                ("perceived", np.argsort(world.perceived)),
                ("latent", np.argsort(world.latent)),
            ):
                for st in (*STRIDES, 0):
                    rho, cost = oracle(world, rng, order, args.budget, st)
                    what = f"stride {st}" if st else "strides 1-32 mixed"
                    label = f"oracle: random + {name} order, {what} (cost {cost:,.0f})"
                    rows.setdefault(label, []).append(rho)
        print(f"linear, t_bias = {bias}, {args.reps} reps, ρ (BT): mean ± sd")
        for label, vals in rows.items():
            print(f"  {label:66s} {np.mean(vals):.4f} ± {np.std(vals):.4f}")
        best = max((np.mean(v), k) for k, v in rows.items() if k.startswith("oracle"))
        act = next(np.mean(v) for k, v in rows.items() if k.startswith("active"))
        lw = next(np.mean(v) for k, v in rows.items() if k.startswith("listwise"))
        print(
            f"  best oracle {best[0]:.4f} vs active {act:.4f} (ratio {best[0] / act:.4f}); "
            f"listwise at 1,500: {lw:.4f}"
        )


if __name__ == "__main__":
    main()
