"""PyMC's JAX NUTS (numpyro) on a GPU: the QLoRA log and a 1 M-verdict round robin (issue 27,
item 4). Nothing in the package needs this or a GPU; it records what the optional path gives.

    python benchmarks/bench_jax_gpu.py --only grad      # one gradient: GPU against JAX on the CPU
    python benchmarks/bench_jax_gpu.py --only qlora     # positional, ties modelled, the real log
    python benchmarks/bench_jax_gpu.py --only rr1000    # uniform, 1,000-item round robin, 999,000
    python benchmarks/bench_jax_gpu.py --only qlora --log PATH --draws 300   # shorter, other path

What is measured, in this process:

* ``grad``: the model's log-density and gradient (PyMC's JAX graph of the model, the same that
  the JAX samplers run) timed on the default JAX device and on the CPU in the same run — the
  median of repeated calls after a warm-up, for the QLoRA model and the 1,000-item round robin.
  The ratio CPU / default device is the portable number.
* ``qlora``: ``fit --model positional --ties model`` on the QLoRA GPT-4 log with
  ``nuts_sampler="numpyro"``, chains vectorised on the one device, the spec's draws and tuning
  (4 × (1000 + 1000)). Wall time (JAX compile included), leapfrog steps per draw, tree-depth
  hits, divergences, the largest R-hat and ε₊, ε₋ — against issue 27's reference ε₊ 0.0246,
  ε₋ 0.1384 and the nutpie fit of the same model on two CPU cores (413 s, ``docs/src/speed.md``).
* ``rr1000``: ``--model uniform`` on one round robin of 1,000 items shown in both orders
  (999,000 verdicts, ε = 0.15, seed 0), the same sampler settings.

Each part writes a JSON line to ``--out`` as soon as it ends, so a part cut off by a time limit
leaves the others' numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

EPS_REF = {"eps_plus": 0.0246, "eps_minus": 0.1384}


def qlora(path: str | None):
    from bayes_pairwise import datasets
    from bayes_pairwise.data import load_comparisons

    if path is None:  # the bundled copy of ../shared/data/qlora_oa_gpt4
        return datasets.load("qlora_oa_gpt4", ties="model")
    return load_comparisons(path, context="context", judge="judge", ties="model")


def round_robin(n_items: int):
    from bayes_pairwise.simulate import simulate_round_robin

    return simulate_round_robin(n_items, eps=0.15, random_seed=0).data


def _median_call(f, args, repeats: int) -> float:
    import jax

    jax.block_until_ready(f(*args))  # compile and warm up
    jax.block_until_ready(f(*args))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def top_events(f, args, calls: int = 5, top: int = 12) -> list[tuple[str, float, int]]:
    """The events (kernels on a GPU) that take the most time in ``calls`` calls of ``f``, read
    from JAX's profiler trace: (name, ms per call, count per call)."""
    import collections
    import tempfile

    import jax

    jax.block_until_ready(f(*args))
    with tempfile.TemporaryDirectory() as tmp:
        with jax.profiler.trace(tmp):
            for _ in range(calls):
                jax.block_until_ready(f(*args))
        path = next(Path(tmp).rglob("*.xplane.pb"))
        data = jax.profiler.ProfileData.from_file(str(path))
    planes = [p for p in data.planes if "GPU" in p.name] or [
        p for p in data.planes if "CPU" in p.name
    ]
    total: collections.Counter = collections.Counter()
    count: collections.Counter = collections.Counter()
    for plane in planes:
        for line in plane.lines:
            for ev in line.events:
                total[ev.name] += ev.duration_ns
                count[ev.name] += 1
    return [
        (name[:90], ns / 1e6 / calls, count[name] // calls) for name, ns in total.most_common(top)
    ]


def grad_times(
    data,
    name: str,
    ties: str,
    repeats: int,
    hlo: Path | None = None,
    tag: str = "",
    profile: bool = False,
) -> dict:
    """Median seconds per log-density-and-gradient call, default device and CPU; the log-density
    alone on the default device; what XLA compiled the gradient into there (its optimised HLO
    written to ``hlo``, and the count of a few telling instructions). The reference in the same
    run: the gradient with per-judge rates read by a gather (``gather_default_s``), the form
    before ``likelihoods.per_judge``, whose scatter cost 68 ms on an H100."""
    import jax
    from pymc.sampling.jax import get_jaxified_logp

    from bayes_pairwise.pymc_models import get_model, likelihoods
    from bayes_pairwise.pymc_models.likelihoods import elementwise_likelihood

    def value_and_grad(mask_max: int):
        saved, likelihoods.JUDGE_MASK_MAX = likelihoods.JUDGE_MASK_MAX, mask_max
        try:
            with elementwise_likelihood():
                model = get_model(name, ties=ties).build_model(data)
            logp = get_jaxified_logp(model, negative_logp=False)
        finally:
            likelihoods.JUDGE_MASK_MAX = saved
        point = model.initial_point()
        x = [np.asarray(point[v.name]) for v in model.value_vars]
        f = jax.jit(jax.value_and_grad(lambda *a: logp(a), argnums=tuple(range(len(x)))))
        return f, logp, x

    f, logp, x = value_and_grad(likelihoods.JUDGE_MASK_MAX)
    out = {"n_rows": int(data.n_comparisons), "n_params": int(sum(np.size(v) for v in x))}
    default = jax.devices()[0]
    for label, dev in (("default", default), ("cpu", jax.devices("cpu")[0])):
        args = [jax.device_put(v, dev) for v in x]
        out[f"{label}_s"] = _median_call(f, args, repeats)
        out[f"{label}_device"] = str(dev)
    out["cpu_over_default"] = out["cpu_s"] / out["default_s"]
    args = [jax.device_put(v, default) for v in x]
    gather, _, _ = value_and_grad(-1)  # every per-judge rate read by a gather
    out["gather_default_s"] = _median_call(gather, args, repeats)
    out["gather_over_masked"] = out["gather_default_s"] / out["default_s"]
    out["logp_only_default_s"] = _median_call(jax.jit(lambda *a: logp(a)), args, repeats)
    text = f.lower(*args).compile().as_text()
    out["hlo_counts"] = {k: text.count(k) for k in (" sort(", " scatter(", " while(", "fusion(")}
    if profile:
        out["top_events"] = top_events(f, args)
    if hlo is not None:
        hlo.mkdir(parents=True, exist_ok=True)
        (hlo / f"hlo_{tag or name}.txt").write_text(text, encoding="utf-8")
    return out


def nuts(data, name: str, ties: str, draws: int | None) -> dict:
    """``bench_real_logs.fit`` with PyMC's numpyro NUTS (chains vectorised on one accelerator:
    ``base.jax_chain_method``)."""
    from bench_real_logs import fit

    return fit(data, ties, draws, name, nuts_sampler="numpyro")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("grad", "qlora", "rr1000"), action="append")
    ap.add_argument("--log", default=None, help="the QLoRA log (default: ../shared/data/…)")
    ap.add_argument("--draws", type=int, default=None, help="draws = tune (default: the spec's)")
    ap.add_argument("--n-items", type=int, default=1000, help="items of the round robin")
    ap.add_argument("--repeats", type=int, default=20, help="timed gradient calls")
    ap.add_argument("--out", default=None, help="append one JSON line per part here")
    ap.add_argument("--profile", action="store_true", help="the gradients' costliest events")
    ap.add_argument("--hlo", default=None, help="write the gradients' optimised HLO here")
    args = ap.parse_args()
    xla_flags = os.environ.get("XLA_FLAGS", "")  # as given (PyMC's JAX module adds its own)
    import jax

    print(f"jax {jax.__version__}, devices {jax.devices()}, cores {os.cpu_count()}", flush=True)

    def record(part: str, res: dict) -> None:
        line = json.dumps(
            {"part": part, "device": str(jax.devices()[0]), "xla_flags": xla_flags, **res}
        )
        print(line, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")

    for part in args.only or ["grad", "qlora", "rr1000"]:
        if part == "grad":
            hlo = Path(args.hlo) if args.hlo else None
            record(
                "grad qlora",
                grad_times(
                    qlora(args.log), "positional", "model", args.repeats, hlo, "qlora", args.profile
                ),
            )
            rr = round_robin(args.n_items)
            record(
                f"grad rr{args.n_items}",
                grad_times(
                    rr, "uniform", "drop", args.repeats, hlo, f"rr{args.n_items}", args.profile
                ),
            )
        elif part == "qlora":
            r = nuts(qlora(args.log), "positional", "model", args.draws)
            r["eps_within_0.01"] = all(abs(r[k][0] - v) <= 0.01 for k, v in EPS_REF.items())
            record("nuts qlora positional", r)
        else:
            record(
                f"nuts rr{args.n_items} uniform",
                nuts(round_robin(args.n_items), "uniform", "drop", args.draws),
            )


if __name__ == "__main__":
    main()
