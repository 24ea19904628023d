"""Why the strength model's NUTS trajectories are long on a nearly hard truth (issue 27, item 1).

    python benchmarks/bench_geometry.py                 # the controlled log, then the real one
    python benchmarks/bench_geometry.py --only toy      # the controlled log alone (≈ 30 s)
    python benchmarks/bench_geometry.py --only real     # the first 150 QLoRA contexts (≈ 3 min)

Every fit here holds the error rates fixed (ε₊ 0.0246, ε₋ 0.138: the QLoRA judge's) and σ_s
fixed at the value named, so that the only thing sampled is the strengths' geometry: the
posterior of ``strength = σ_s · z`` given the pair verdicts, with the latent truth of each pair
summed out exactly as in :class:`~bayes_pairwise.PositionalBias` (METHODS §7.2; ties carry no
orientation here, as in the default tie model). PyMC's graph through nutpie, 2 × (300 + 300),
diagonal mass matrix; the numbers printed are leapfrog steps per draw, the step size and the
ratio to the reference of the same run.

* ``toy``: 30 contexts of 7 items in a perfect order, every pair consistent in both orders
  (the cleanest hard truth a log can hold). The reference is σ_s = 3. Written as the package
  writes it (z non-centred), and through the gaps between neighbours in the order (a linear map
  that puts every neighbour's wall on one coordinate).
* ``real``: the first 150 contexts of the real QLoRA GPT-4 log with 7 answers, items sorted by
  their Copeland score, σ_s = 22 (the default fit's posterior mean). The reference is the
  package's parameterisation; beside it the gaps along the Copeland order and a triangular map
  onto the cone of the context's strong pairs (each answer = a smooth maximum of the answers it
  beats in both orders + its gap: every wall of a strong pair on one coordinate); that cone
  with each gap stretched tenfold within a few logits of 0 (``cone-stretched``: the wall wide
  in the coordinates, the spread inside the cone not); and ``soft``, z itself away from every
  strong wall but stretched fivefold close to it (the prior stays nearly isotropic; this form
  runs on the toy log too). All three maps are triangular, their log-Jacobians added.

What it shows (``docs/src/speed.md``, "The cost is proportional to σ_s"): the trajectory
length grows in proportion to σ_s even on a perfect order with the rates fixed, because the
walls (one pair's switch from one truth to the other, a few logits wide whatever σ_s is) must be
resolved while the prior's spread inside the cone grows with σ_s. Under a hard truth σ_s is set
by its prior's tail, not by the verdicts, so the prior sets the cost.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EPS_PLUS, EPS_MINUS = 0.0246, 0.138
K = 7


def branch_logs(pc: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """log P(verdicts | i truly better), log P(verdicts | j truly better) per pair row."""
    n1, n2 = pc["n1"], pc["n2"]
    l1, l2 = pc["kp"] - pc["t1"] - n1, pc["km"] - pc["t2"] - n2
    lp, lm = np.log(EPS_PLUS), np.log(EPS_MINUS)
    lp1, lm1 = np.log1p(-EPS_PLUS), np.log1p(-EPS_MINUS)
    la = n1 * lp1 + l1 * lp + n2 * lm1 + l2 * lm
    lb = n1 * lm + l1 * lm1 + n2 * lp + l2 * lp1
    return la, lb


def perfect_log(n_contexts: int) -> dict[str, np.ndarray]:
    """Pair rows of ``n_contexts`` contexts of K items, item a better than b for a < b, every
    pair won by the better item in both orders; items numbered context by context."""
    a, b = np.triu_indices(K, 1)
    i = np.concatenate([c * K + a for c in range(n_contexts)])
    j = np.concatenate([c * K + b for c in range(n_contexts)])
    one, zero = np.ones(i.size), np.zeros(i.size)
    return {"i": i, "j": j, "kp": one, "km": one, "t1": zero, "t2": zero, "n1": one, "n2": one}


def real_log(n_contexts: int) -> tuple[dict[str, np.ndarray], int]:
    """The first ``n_contexts`` QLoRA contexts, those with K answers kept, each context's items
    renumbered by Copeland score (best first)."""

    from bayes_pairwise import datasets
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.matrices import pair_counts

    df = datasets.load_frame("qlora_oa_gpt4")[["first", "second", "outcome", "context", "judge"]]
    df = df[df["context"].isin(df["context"].unique()[:n_contexts])].reset_index(drop=True)
    data = load_comparisons(df, context="context", judge="judge", ties="model")
    pc = pair_counts(data)
    ctx = np.asarray(data.item_context)
    wins_i = pc.n1 + pc.n2
    wins_j = pc.k_plus + pc.k_minus - pc.t1 - pc.t2 - wins_i
    score = np.zeros(data.n_items)
    np.add.at(score, pc.i, wins_i - wins_j)
    np.add.at(score, pc.j, wins_j - wins_i)
    pos = np.full(data.n_items, -1)
    kept = np.flatnonzero(np.bincount(ctx) == K)
    for n, c in enumerate(kept):
        items = np.flatnonzero(ctx == c)
        pos[items[np.argsort(-score[items], kind="stable")]] = n * K + np.arange(K)
    m = pos[pc.i] >= 0
    out = {
        "i": pos[pc.i[m]],
        "j": pos[pc.j[m]],
        "kp": pc.k_plus[m].astype(float),
        "km": pc.k_minus[m].astype(float),
        "t1": pc.t1[m].astype(float),
        "t2": pc.t2[m].astype(float),
        "n1": np.asarray(pc.n1[m], dtype=float),
        "n2": np.asarray(pc.n2[m], dtype=float),
    }
    return out, kept.size


def build(pc: dict[str, np.ndarray], n_contexts: int, sigma: float, form: str):
    """The strengths' posterior at fixed rates and σ_s, in one of three coordinate systems."""
    import pymc as pm
    import pytensor.tensor as pt

    la, lb = branch_logs(pc)
    i, j = pc["i"], pc["j"]
    with pm.Model() as model:
        if form == "z":  # as the package writes it
            z = pm.Normal("z", 0.0, 1.0, shape=n_contexts * K)
            prior = 0.0
        else:
            u = pm.Flat("u", shape=(n_contexts, K))
            if form == "gaps":  # z of an item = z of the item below it + its gap
                gap = 0.4 * u[:, :-1]
                below = pt.cumsum(gap[:, ::-1], axis=1)[:, ::-1]
                zc = pt.concatenate([u[:, -1:] + below, u[:, -1:]], axis=1)
            else:  # "cone" / "cone-stretched" / "soft": built on the strong pairs' cone
                evidence = np.where(i < j, la - lb, lb - la)
                strong = np.zeros((n_contexts, K, K), dtype=bool)
                hi, lo = np.minimum(i, j) % K, np.maximum(i, j) % K
                keep = evidence > 1.0
                strong[i[keep] // K, hi[keep], lo[keep]] = True
                cols: list = [None] * K
                log_jac = 0.0
                for p in range(K - 1, -1, -1):
                    if p == K - 1 or not strong[:, p].any():
                        cols[p] = u[:, p]
                        continue
                    below = pt.stack(cols[p + 1 :], axis=1)
                    masked = pt.where(strong[:, p, p + 1 :], below / 0.1, -1e4)
                    top = 0.1 * pt.logsumexp(masked, axis=1)  # the strongest answer it beats
                    has = strong[:, p].any(axis=1)
                    if form == "cone":  # its gap above that answer, on one axis
                        value, slope = top + 0.4 * u[:, p], None
                    elif form == "cone-stretched":  # the same gap, 10 × stretched near 0
                        v = u[:, p]
                        value = top + 0.1 * v + 0.9 * (pt.softplus(v - 2.0) - pt.softplus(-v - 2.0))
                        slope = 0.1 + 0.9 * (pt.sigmoid(v - 2.0) + pt.sigmoid(-v - 2.0))
                    else:  # "soft": z itself away from the wall, stretched 5 × within 1 of it
                        x = u[:, p] - top
                        th = pt.tanh(x)
                        value, slope = top + x - 0.8 * th, 0.2 + 0.8 * th**2
                    cols[p] = pt.where(has, value, u[:, p])
                    if slope is not None:  # a triangular map: the diagonal's log-derivatives
                        log_jac = log_jac + pt.sum(pt.where(has, pt.log(slope), 0.0))
                zc = pt.stack(cols, axis=1)
                if not isinstance(log_jac, float):  # the plain cone's is constant
                    pm.Potential("jacobian", log_jac)
            z = zc.reshape((-1,))
            prior = -0.5 * pt.sum(z**2)  # (the cone's and the gaps' Jacobians are constant)
            pm.Potential("prior", prior)
        d = sigma * (z[i] - z[j])
        pm.Potential("pairs", pt.sum(pt.logaddexp(-pt.softplus(-d) + la, -pt.softplus(d) + lb)))
    return model


def sample(model, draws: int = 300) -> dict[str, float]:
    import nutpie

    compiled = nutpie.compile_pymc_model(model)
    t0 = time.perf_counter()
    trace = nutpie.sample(compiled, draws=draws, tune=draws, chains=2, seed=1, progress_bar=False)
    ss = trace.sample_stats
    return {
        "wall_s": time.perf_counter() - t0,
        "steps": float(ss["n_steps"].mean()),
        "step_size": float(ss["step_size"].mean()),
        "depth_hits": int(ss["maxdepth_reached"].sum()),
    }


def show(label: str, r: dict[str, float], ref: dict[str, float] | None) -> None:
    ratio = "" if ref is None else f" ({r['steps'] / ref['steps']:.2f} × the reference)"
    print(
        f"  {label:44s} {r['steps']:6.1f} leapfrog steps/draw{ratio}, step size "
        f"{r['step_size']:.3f}, {r['depth_hits']} depth hits, {r['wall_s']:.1f} s",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("toy", "real"), action="append")
    args = ap.parse_args()
    parts = args.only or ["toy", "real"]
    print(f"cores {os.cpu_count()}, load average before {os.getloadavg()}", flush=True)
    warnings.simplefilter("ignore")
    if "toy" in parts:
        print("perfect orders (30 contexts of 7, every pair consistent), rates fixed:")
        pc = perfect_log(30)
        ref = sample(build(pc, 30, 3.0, "z"))
        show("z, σ_s 3 (reference)", ref, None)
        for sigma in (10.0, 22.0, 50.0):
            show(f"z, σ_s {sigma:g}", sample(build(pc, 30, sigma, "z")), ref)
        for sigma in (3.0, 22.0, 50.0):
            show(f"gaps along the order, σ_s {sigma:g}", sample(build(pc, 30, sigma, "gaps")), ref)
        show("z with each strong wall stretched, σ_s 22", sample(build(pc, 30, 22.0, "soft")), ref)
    if "real" in parts:
        pc, n = real_log(150)
        print(f"real QLoRA contexts ({n} of 7 answers, {pc['i'].size} pairs), rates fixed:")
        ref = sample(build(pc, n, 22.0, "z"))
        show("z, σ_s 22 (reference)", ref, None)
        show("gaps along the Copeland order, σ_s 22", sample(build(pc, n, 22.0, "gaps")), ref)
        show("cone of the strong pairs, σ_s 22", sample(build(pc, n, 22.0, "cone")), ref)
        stretched = sample(build(pc, n, 22.0, "cone-stretched"))
        show("the cone, its gaps stretched near 0, σ_s 22", stretched, ref)
        show("z with each strong wall stretched, σ_s 22", sample(build(pc, n, 22.0, "soft")), ref)
        show("z, σ_s 3", sample(build(pc, n, 3.0, "z")), ref)
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
