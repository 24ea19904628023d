"""NUTS on the real QLoRA GPT-4 log against the QLoRA-sized synthetic log (issue 27, item 1-2).

    python benchmarks/bench_real_logs.py                # synthetic reference, real log, order model
    python benchmarks/bench_real_logs.py --only real    # the real log alone (the strength model)
    python benchmarks/bench_real_logs.py --only order   # the real log, hard-truth order model
    python benchmarks/bench_real_logs.py --only order --only report   # + the report on it
    python benchmarks/bench_real_logs.py --only order --only order_tp  # + tie rates by position
    python benchmarks/bench_real_logs.py --only order --only order_pair  # + a tie rate by pair
    python benchmarks/bench_real_logs.py --draws 300    # shorter (not the target's settings)

What is timed, in this process, one after the other (the same machine, the same load):

* ``synthetic`` (the reference, as in ``bench_speed.py --only qlora``): the positional model,
  default settings, on 950 round robins of 7 with a soft truth (strengths N(0, 1.5)), 12% ties;
* ``real``: the positional model with ties modelled, default settings, on the QLoRA GPT-4 log in
  ``../shared/data/qlora_oa_gpt4/``, bundled as ``qlora_oa_gpt4`` (38,544 verdicts, 953 round
  robins of 7 answers, 14.6% ties)
  — the model and data of ``fit … --context-column context --judge-column judge --ties model
  --model positional``;
* ``order``: the same log and settings with ``--model positional_order``, the hard-truth limit
  of the positional model (one total order per context, summed out; no strengths to sample).
* ``order_tp`` (only when asked for): the order model with tie rates by the better answer's
  position (``--tie-positional``; the real log's ties depend on it, z = 20.6); the reference is
  the ``order`` fit of the same run.
* ``order_pair`` (only when asked for): the order model with a tie rate that varies by pair
  (``--tie-dispersion pair``: each pair's two verdicts share a tie probability; on the real log
  a pair tied in one order is tied in the other 3.4 × as often as independent ties allow); the
  reference is the ``order`` fit of the same run. It also prints τ and ρ (tie_rho).

* ``report`` (only when asked for): ``report`` on the real log with ``--model positional_order``
  (the report's defaults: 2 × (500 + 1000)), written to a temporary file; the reference is the
  ``order`` fit of the same run. Target: ≤ 120 s on two quiet cores.

For each fit: wall time, leapfrog steps per draw, step size, tree-depth hits, divergences,
the largest R-hat over every parameter, and ε₊, ε₋ with their 94% HDIs. The targets of issue 27:
real log ≤ 60 s on two quiet cores, R-hat ≤ 1.01, no divergences, no tree-depth hits, ε₊ and ε₋
within 0.01 of 0.0246 and 0.1384 (a long default run). The ratio real / synthetic is the
portable number; the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: the bundled copy of ``../shared/data/qlora_oa_gpt4/`` (bayes_pairwise.datasets)
QLORA = "qlora_oa_gpt4"
TARGET_S = 60.0
REPORT_TARGET_S = 120.0
EPS_REF = {"eps_plus": 0.0246, "eps_minus": 0.1384}


def real_log():
    from bayes_pairwise import datasets

    return datasets.load(QLORA, ties="model")


def synthetic_log():
    sys.path.insert(0, str(HERE))
    from bench_speed import _qlora_like

    return _qlora_like()[0]


def fit(data, ties: str, draws: int | None, name: str = "positional", **settings) -> dict:
    import arviz as az

    from bayes_pairwise.pymc_models import get_model

    kw = {} if draws is None else {"draws": draws, "tune": draws}
    model = get_model(name, ties=ties, **kw, **settings)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data, random_seed=1, log_likelihood=False)
    wall = time.perf_counter() - t0
    idata = model.idata_
    ss = idata.sample_stats
    steps = ss["n_steps"].values if "n_steps" in ss else 2 ** ss["tree_depth"].values - 1
    if "reached_max_treedepth" in ss:  # PyMC's NUTS
        depth_hits = int(ss["reached_max_treedepth"].values.sum())
    elif "maxdepth_reached" in ss:  # nutpie
        depth_hits = int(ss["maxdepth_reached"].values.sum())
    elif "tree_depth" in ss:  # PyMC's JAX samplers: numpyro's default largest depth, 10
        depth_hits = int((ss["tree_depth"].values >= 10).sum())
    else:
        depth_hits = -1
    rhat = az.rhat(idata.posterior)
    out = {
        "wall_s": wall,
        "chains": int(idata.posterior.sizes["chain"]),
        "draws": int(idata.posterior.sizes["draw"]),
        "steps_per_draw": float(np.mean(steps)),
        "step_size": float(np.mean(ss["step_size"].values)),
        "depth_hits": depth_hits,
        "divergences": int(ss["diverging"].values.sum()),
        "max_rhat": float(max(float(rhat[v].max()) for v in rhat.data_vars)),
        # PyMC's JAX path only: the sampler's own run (JAX compile + tuning + draws)
        "sampling_s": idata.posterior.attrs.get("sampling_time"),
    }
    for name in ("eps", "eps_plus", "eps_minus", "tie_rate", "tie_rho"):
        if name in idata.posterior:
            x = idata.posterior[name].values.ravel()
            lo, hi = az.hdi(x, hdi_prob=0.94)
            out[name] = (float(x.mean()), float(lo), float(hi))
    return out


def report(data, name: str) -> dict:
    """``report`` as the command runs it (build, render, write), timed."""
    import tempfile

    from bayes_pairwise.report import build_report

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = build_report(data, model=name, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "report.html").write_text(page.render(), encoding="utf-8")
    wall = time.perf_counter() - t0
    rates = {k: float(page.source.fits[name].idata_.posterior[k].values.mean()) for k in EPS_REF}
    return {"wall_s": wall, **rates}


def targets_met(r: dict) -> bool:
    """Issue 27's real-log targets: wall time, R-hat, divergences, depth hits, ε within 0.01."""
    return (
        r["wall_s"] <= TARGET_S
        and r["max_rhat"] <= 1.01
        and r["divergences"] == 0
        and r["depth_hits"] == 0
        and all(abs(r[k][0] - v) <= 0.01 for k, v in EPS_REF.items())
    )


def show(label: str, r: dict) -> None:
    print(
        f"{label:10s} fit {r['wall_s']:7.1f} s | {r['steps_per_draw']:6.1f} leapfrog steps/draw, "
        f"step size {r['step_size']:.3f}, {r['depth_hits']} tree-depth hits, "
        f"{r['divergences']} divergences, max R-hat {r['max_rhat']:.4f}"
    )
    for name in ("eps_plus", "eps_minus", "tie_rate", "tie_rho"):
        if name not in r:
            continue
        m, lo, hi = r[name]
        print(f"{'':10s} {name} {m:.4f} [{lo:.4f}, {hi:.4f}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--only",
        choices=("real", "synthetic", "order", "order_tp", "order_pair", "report"),
        action="append",
    )
    ap.add_argument("--draws", type=int, default=None, help="draws = tune (default: the spec's)")
    args = ap.parse_args()
    parts = args.only or ["synthetic", "real", "order"]
    print(f"cores {os.cpu_count()}, load average before {os.getloadavg()}", flush=True)
    res = {}
    if "synthetic" in parts:
        res["synthetic"] = fit(synthetic_log(), "model", args.draws)
        show("synthetic", res["synthetic"])
    if "real" in parts:
        res["real"] = fit(real_log(), "model", args.draws)
        show("real", res["real"])
        r = res["real"]
        ok = targets_met(r)
        print(
            f"real-log targets (≤ {TARGET_S:.0f} s, R-hat ≤ 1.01, 0 divergences, 0 depth hits, "
            f"ε within 0.01): {'met' if ok else 'NOT met'} on this machine"
        )
    if "order" in parts:
        res["order"] = fit(real_log(), "model", args.draws, name="positional_order")
        show("order", res["order"])
        r = res["order"]
        ok = targets_met(r)
        print(
            f"real log, order model: targets {'met' if ok else 'NOT met'} on this machine "
            "(the wall time includes compiling the model)"
        )
    if "order_tp" in parts:
        res["order_tp"] = fit(
            real_log(), "model", args.draws, name="positional_order", tie_positional=True
        )
        show("order_tp", res["order_tp"])
        print(f"order_tp  target {'met' if targets_met(res['order_tp']) else 'NOT met'}")
    if "order_pair" in parts:
        res["order_pair"] = fit(
            real_log(), "model", args.draws, name="positional_order", tie_dispersion="pair"
        )
        show("order_pair", res["order_pair"])
        print(f"order_pair target {'met' if targets_met(res['order_pair']) else 'NOT met'}")
    if "report" in parts:
        r = report(real_log(), "positional_order")
        res["report"] = r
        ok = r["wall_s"] <= REPORT_TARGET_S and all(
            abs(r[k] - v) <= 0.01 for k, v in EPS_REF.items()
        )
        print(
            f"report    {r['wall_s']:7.1f} s (--model positional_order; eps_plus "
            f"{r['eps_plus']:.4f}, eps_minus {r['eps_minus']:.4f}): target ≤ "
            f"{REPORT_TARGET_S:.0f} s {'met' if ok else 'NOT met'} on this machine"
        )
        if "order" in res:
            print(f"report / order fit: {r['wall_s'] / res['order']['wall_s']:.2f}x")
    pairs = (
        ("real", "synthetic"),
        ("order", "synthetic"),
        ("order", "real"),
        ("order_tp", "order"),
        ("order_pair", "order"),
    )
    for a, b in pairs:
        if a in res and b in res:
            wall = res[a]["wall_s"] / res[b]["wall_s"]
            steps = res[a]["steps_per_draw"] / res[b]["steps_per_draw"]
            print(f"{a} / {b}: wall time {wall:.2f}x, leapfrog steps per draw {steps:.2f}x")
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
