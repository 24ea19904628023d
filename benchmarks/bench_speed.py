"""Speed of the Bayesian path at real scale (issue 10): each must-show target against its value.

    python benchmarks/bench_speed.py                   # gradient + uniform N = 100 (cold, warm)
    python benchmarks/bench_speed.py --all             # + QLoRA-sized positional, N = 1000
    python benchmarks/bench_speed.py --only gradient   # one part: gradient, uniform, qlora, n1000,
                                                       # fast (Laplace vs NUTS), loader

Reference (measured in the same run): a hand-written numba loop computing the marginal pair
log-likelihood and its gradient with respect to d and ε per pair (two softplus, a logaddexp),
timed interleaved with the package's compiled logp + gradient of three models (the PyMC graph
compiled with numba, and the written-out log-density nutpie samples). It uses public APIs
only, so the same script times an older checkout (``PYTHONPATH=<checkout>``) for a before /
after ratio. The machine's cores and load average are printed before and after: with other
processes on the same cores all timings stretch.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

GRAD_RATIO_TARGET = 5.0
UNIFORM_COLD_S = 15.0
UNIFORM_WARM_S = 8.0
UNIFORM_ESS = 1000.0
QLORA_FIT_S = 180.0
QLORA_RHAT = 1.01
QLORA_EPS_TOL = 0.02
N1000_FIT_S = 600.0
LOAD_1M_S = 0.5
REPORT_PRD_S = 60.0
REPORT_QLORA_S = 300.0
CSV_MEMORY_RATIO = 4.0


def _machine() -> str:
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = (float("nan"),) * 3
    return f"{os.cpu_count()} CPU cores, load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}"


def _row(name: str, value: float, target: float, unit: str, *, higher: bool = False) -> None:
    ok = value >= target if higher else value <= target
    ratio = value / target if target else float("nan")
    sign = ">=" if higher else "<="
    print(
        f"  {name:58s} {value:10.3f} {unit:4s} target {sign} {target:g} {unit:4s} "
        f"ratio {ratio:5.2f}  {'MET' if ok else 'NOT MET'}",
        flush=True,
    )


def _reference_loop():
    import numba

    @numba.njit(cache=True)
    def ref(d, n1, n2, kp, km, ep, em):  # pragma: no cover - numba
        n = d.shape[0]
        logp = np.empty(n)
        g_d = np.empty(n)
        g_e = np.empty(n)
        l1p, lp, l1m, lm = math.log1p(-ep), math.log(ep), math.log1p(-em), math.log(em)
        for r in range(n):
            a = n1[r] * l1p + (kp[r] - n1[r]) * lp + n2[r] * l1m + (km[r] - n2[r]) * lm
            b = n1[r] * lm + (kp[r] - n1[r]) * l1m + n2[r] * lp + (km[r] - n2[r]) * l1p
            la = a - (max(-d[r], 0.0) + math.log1p(math.exp(-abs(d[r]))))
            lb = b - (max(d[r], 0.0) + math.log1p(math.exp(-abs(d[r]))))
            top = max(la, lb)
            tot = top + math.log(math.exp(la - top) + math.exp(lb - top))
            logp[r] = tot
            w = math.exp(la - tot)
            sd = 1.0 / (1.0 + math.exp(-d[r]))
            g_d[r] = w - sd
            da = -n1[r] / (1 - ep) + (kp[r] - n1[r]) / ep - n2[r] / (1 - em) + (km[r] - n2[r]) / em
            db = n1[r] / em - (kp[r] - n1[r]) / (1 - em) + n2[r] / ep - (km[r] - n2[r]) / (1 - ep)
            g_e[r] = w * da + (1 - w) * db
        return logp, g_d, g_e

    return ref


def _compiled_logp_grad(model_obj, data):
    """The PyMC model's logp + gradient compiled with PyTensor's numba backend (what nutpie's
    graph compile runs), at a point away from the start (there every d = 0, which flatters
    branchy code)."""
    import pytensor
    from pymc.model.transform.optimization import freeze_dims_and_data

    model = freeze_dims_and_data(model_obj.build_model(data))
    logp = model.logp()
    grads = pytensor.grad(logp, model.value_vars)
    fn = pytensor.function(model.value_vars, [logp, *grads], mode="NUMBA")
    fn.trust_input = True
    rng = np.random.default_rng(0)
    point = model.initial_point()
    args = [
        np.asarray(point[v.name] + rng.normal(0.0, 1.0, np.shape(point[v.name])))
        for v in model.value_vars
    ]
    return (lambda: fn(*args)), args


def _written_out_logp_grad(model_obj, data, point):
    """What nutpie calls for the default fit: the written-out log-density's numba entry."""
    from bayes_pairwise.pymc_models.direct import direct_logp_grad, entry

    spec, _ = model_obj.written_out_density(data)
    x = np.concatenate([np.ravel(a) for a in point])
    _, grad = direct_logp_grad(spec, x)
    fn = entry(spec.form)
    # the spec stays referenced by the closure: the user-data block points into it
    return lambda: fn(x, grad, spec.user_data)


def bench_gradient() -> None:
    """logp + gradient per pair row of three models on a 100-item round robin (4,950 pairs):
    the uniform model, and on a log with ties and gold labels the positional model with
    position-dependent tie rates and the pair-difficulty mixture, each as the compiled PyMC
    graph and as the written-out density, against a hand-written numba loop of the uniform
    marginal rows (the reference)."""
    import warnings

    from bayes_pairwise.matrices import pair_counts
    from bayes_pairwise.pymc_models import PositionalBias, PositionalDifficulty, UniformError
    from bayes_pairwise.simulate import simulate_hard_pairs, simulate_round_robin

    warnings.simplefilter("ignore")  # the difficulty model's identification warning
    sim = simulate_round_robin(100, eps=0.15, random_seed=0)
    ties = simulate_hard_pairs(100, random_seed=0).data  # 15% ties, 30% of the pairs labelled
    pc = pair_counts(sim.data)
    n_pairs = len(pc.i)
    rng = np.random.default_rng(0)
    d = rng.normal(0.0, 1.0, n_pairs)
    cols = [np.asarray(c, dtype=float) for c in (pc.n1, pc.n2, pc.k_plus, pc.k_minus)]
    ref = _reference_loop()
    cases = {
        "uniform": (UniformError(), sim.data),
        "positional, ties per position": (PositionalBias(tie_positional=True), ties),
        "pair difficulty, ties": (PositionalDifficulty(), ties),
    }
    calls = {"reference": lambda: ref(d, *cols, 0.15, 0.15)}
    for name, (obj, data) in cases.items():
        calls[f"{name}: graph"], point = _compiled_logp_grad(obj, data)
        calls[f"{name}: written out"] = _written_out_logp_grad(obj, data, point)
    for f in calls.values():
        f()
    best = dict.fromkeys(calls, math.inf)
    for _ in range(15):  # interleaved rounds: the load hits all alike
        for name, f in calls.items():
            start = time.perf_counter()
            for _ in range(100):
                f()
            best[name] = min(best[name], (time.perf_counter() - start) / 100)
    per = {k: v / n_pairs * 1e9 for k, v in best.items()}
    print(f"  logp + gradient, N = 100 ({n_pairs:,} pairs), best of 15 x 100 calls:")
    for name in calls:
        print(f"    {name:48s} {best[name] * 1e6:8.0f} µs  {per[name]:6.1f} ns/pair", flush=True)
    for name in calls:
        if name != "reference":
            _row(
                f"logp+grad per pair: {name} / loop",
                per[name] / per["reference"],
                GRAD_RATIO_TARGET,
                "x",
            )


_UNIFORM_CHILD = """
import time, json, sys, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import arviz as az, numpy as np
from bayes_pairwise.pymc_models import UniformError
from bayes_pairwise.simulate import simulate_round_robin
sim = simulate_round_robin(100, eps=0.15, random_seed=0)
t1 = time.perf_counter()
# argv[1]: "4" (issue 10's 4 x (1000 + 1000)) or "default" (the class's settings: chains "auto")
kw = dict(draws=1000, tune=1000, chains=4) if sys.argv[1] == "4" else {}
m = UniformError(**kw).fit(sim.data, random_seed=1)
t2 = time.perf_counter()
st = m.idata_.sample_stats
print(json.dumps({"import": t1 - t0, "fit": t2 - t1, "chains": int(st.sizes["chain"]),
    "draws": int(st.sizes["draw"]),
    "ess": float(az.ess(m.idata_.posterior["eps"]).to_array().values.ravel()[0]),
    "steps": float(st["n_steps"].mean()) if "n_steps" in st else float("nan"),
    "eps": float(m.idata_.posterior["eps"].mean()), "realised": float(sim.realised_eps)}))
"""


def _child(code: str, env: dict[str, str], args: list[str] | None = None) -> dict:
    import json

    out = subprocess.run(
        [sys.executable, "-c", code, *(args or [])],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_uniform() -> None:
    # Cold: new processes with every disk cache empty (PyTensor's C modules, its numba cache,
    # the callbacks of pymc_models.nutpie_compile, the package's own); warm: a second process
    # with the caches the first one wrote. Twice: issue 10's 4 x (1000 + 1000), the target's
    # definition, and the class's defaults (chains "auto": one per core, 2 to 4), what a user's
    # UniformError().fit(data) runs.
    runs = {}
    for setting in ("4", "default"):
        with tempfile.TemporaryDirectory() as cache:
            env = _empty_cache_env(cache)
            runs[setting] = (_child(_UNIFORM_CHILD, env, [setting]),)
            runs[setting] += (_child(_UNIFORM_CHILD, env, [setting]),)
    for setting, (cold, warm) in runs.items():
        shape = f"{cold['chains']} x (1000 + {cold['draws']})"
        what = shape if setting == "4" else f"default settings, {shape}"
        for label, res in (("cold", cold), ("warm", warm)):
            print(
                f"  uniform N=100, {what}, {label}: fit {res['fit']:.1f} s (+ import "
                f"{res['import']:.1f} s); ESS(eps) {res['ess']:.0f}; leapfrog steps/draw "
                f"{res['steps']:.1f}; eps {res['eps']:.4f} (realised {res['realised']:.4f})"
            )
    cold, warm = runs["4"]
    _row("uniform N=100 cold fit incl. compile [s]", cold["fit"], UNIFORM_COLD_S, "s")
    _row("uniform N=100 warm fit [s]", warm["fit"], UNIFORM_WARM_S, "s")
    _row("uniform N=100 ESS(eps)", warm["ess"], UNIFORM_ESS, "", higher=True)
    cold, warm = runs["default"]
    _row("uniform N=100 default settings, cold [s]", cold["fit"], UNIFORM_COLD_S, "s")
    _row("uniform N=100 default settings, warm [s]", warm["fit"], UNIFORM_WARM_S, "s")
    _row("uniform N=100 default settings, ESS(eps)", warm["ess"], UNIFORM_ESS, "", higher=True)


def _qlora_like(seed: int = 0):
    """950 contexts x 7 items, every ordered pair, 12% ties, positional errors.

    As in the model (METHODS §3, soft truth): per context strengths s ~ Normal(0, 1.5); for each
    unordered pair the truth T is drawn once from σ(s_i − s_j) and shared by both orders; each
    verdict is a tie with probability 0.12, otherwise T flipped with ε₊ = 0.12 (better shown
    first) or ε₋ = 0.05 (better shown second). The realised rates are the flipped shares.
    """
    import pandas as pd

    from bayes_pairwise.data import load_comparisons

    rng = np.random.default_rng(seed)
    n_ctx, n_items, ep, em, tau = 950, 7, 0.12, 0.05, 0.12
    rows = []
    realised = {"plus": [0, 0], "minus": [0, 0]}
    for c in range(n_ctx):
        s = rng.normal(0.0, 1.5, n_items)
        for i in range(n_items):
            for j in range(i + 1, n_items):
                i_better = rng.random() < 1.0 / (1.0 + np.exp(-(s[i] - s[j])))
                for first, second in ((i, j), (j, i)):
                    if rng.random() < tau:
                        out = "tie"
                    else:
                        better_first = i_better == (first == i)
                        key = "plus" if better_first else "minus"
                        err = rng.random() < (ep if better_first else em)
                        realised[key][0] += int(err)
                        realised[key][1] += 1
                        out = "first" if better_first != err else "second"
                    rows.append((f"c{c}", f"c{c}:a{first}", f"c{c}:a{second}", out))
    df = pd.DataFrame(rows, columns=["context", "first", "second", "outcome"])
    data = load_comparisons(df, context="context", ties="model")
    rates = {k: v[0] / v[1] for k, v in realised.items()}
    return data, rates


def bench_qlora() -> None:
    import arviz as az

    from bayes_pairwise.pymc_models import PositionalBias

    data, rates = _qlora_like()
    start = time.perf_counter()
    m = PositionalBias().fit(data, random_seed=1)
    wall = time.perf_counter() - start
    post = m.idata_.posterior
    names = ["eps_plus", "eps_minus"]
    rhat = max(float(az.rhat(post[n]).to_array().values.max()) for n in names)
    errs = {
        "eps_plus": abs(float(post["eps_plus"].mean()) - rates["plus"]),
        "eps_minus": abs(float(post["eps_minus"].mean()) - rates["minus"]),
    }
    print(
        f"  positional, QLoRA-sized ({data.n_comparisons:,} verdicts, {data.n_items:,} items): "
        f"fit {wall:.1f} s; R-hat {rhat:.4f}; eps+ {float(post['eps_plus'].mean()):.4f} "
        f"(realised {rates['plus']:.4f}), eps- {float(post['eps_minus'].mean()):.4f} "
        f"(realised {rates['minus']:.4f})"
    )
    _row("positional QLoRA-sized default fit [s]", wall, QLORA_FIT_S, "s")
    _row("positional QLoRA-sized max R-hat(eps+, eps-)", rhat, QLORA_RHAT, "")
    _row("positional QLoRA-sized max |eps - realised|", max(errs.values()), QLORA_EPS_TOL, "")


def _nuts_row(label: str, m, wall: float, realised: float) -> None:
    ss = m.idata_.sample_stats
    post = m.idata_.posterior
    import arviz as az

    rhat = float(az.rhat(post["eps"]).to_array().max())
    name = next((n for n in ("maxdepth_reached", "reached_max_treedepth") if n in ss), None)
    depth = int(ss[name].sum()) if name else -1
    div = int(ss["diverging"].sum()) if "diverging" in ss else -1
    print(
        f"  {label}, NUTS default ({post.sizes['chain']} x {post.sizes['draw']}): {wall:.1f} s; "
        f"{float(ss['n_steps'].mean()):.1f} leapfrog steps per draw, step size "
        f"{float(ss['step_size'].mean()):.3f}, {div} divergences, {depth} tree-depth hits, "
        f"R-hat(eps) {rhat:.4f}; eps {float(post['eps'].mean()):.4f} (realised {realised:.4f}); "
        f"sigma_s {float(post['sigma_s'].mean()):.2f}",
        flush=True,
    )


def bench_n1000() -> None:
    """N = 1,000 round robins (499,500 pairs, both orders): hard truth and soft truth.

    The hard-truth log (a true total order, every pair's truth certain) is the paper's design;
    the soft-truth log draws strengths N(0, 1.5) like every other synthetic benchmark here
    (many pairs close calls). The Laplace fit of the same log is the reference in the same run.
    """
    from bayes_pairwise.pymc_models import UniformError
    from bayes_pairwise.simulate import simulate_round_robin

    for label, soft in (("hard truth", None), ("soft truth N(0, 1.5)", 1.5)):
        sim = simulate_round_robin(1000, eps=0.15, soft_sigma=soft, random_seed=0)
        start = time.perf_counter()
        fast = UniformError().fit(sim.data, method="laplace", random_seed=1)
        fast_wall = time.perf_counter() - start
        post = fast.idata_.posterior["eps"]
        k = fast.idata_.sample_stats.attrs["laplace_pareto_k"]
        print(
            f"  uniform N=1000 ({label}, 499,500 pairs), fast path (Laplace, validated by the "
            f"'fast' part): {fast_wall:.1f} s; eps {float(post.mean()):.4f} ± "
            f"{float(post.std()):.4f} (realised {sim.realised_eps:.4f}); PSIS k-hat {k:.2f}",
            flush=True,
        )
        _row(f"uniform N=1000 {label} fit (fast path) [s]", fast_wall, N1000_FIT_S, "s")
        if soft is None and os.environ.get("BENCH_N1000_NUTS", "") in ("", "0"):
            print(
                "  (NUTS on the hard-truth log skipped: set BENCH_N1000_NUTS=1 to time it too; "
                "it did not finish in 19 min)",
                flush=True,
            )
            continue
        start = time.perf_counter()
        m = UniformError().fit(sim.data, random_seed=1)
        wall = time.perf_counter() - start
        _nuts_row(f"uniform N=1000 {label}", m, wall, sim.realised_eps)
        _row(f"uniform N=1000 {label} fit (NUTS) [s]", wall, N1000_FIT_S, "s")
        print(f"    ratio NUTS / fast path in the same run: {wall / fast_wall:.1f} x", flush=True)


FAST_SD_TOL = 0.35  # |mean_laplace - mean_nuts| in NUTS posterior sds, on every reported rate
FAST_SD_RATIO = (0.8, 1.25)  # sd_laplace / sd_nuts


def _fast_cases():
    from bayes_pairwise.datasets import load
    from bayes_pairwise.simulate import simulate_round_robin

    yield (
        "uniform",
        "uniform N=100 round robin",
        simulate_round_robin(100, eps=0.15, random_seed=0).data,
    )
    yield (
        "positional",
        "positional 30 items, 2 per order",
        simulate_round_robin(30, eps_plus=0.04, eps_minus=0.30, repeats=2, random_seed=1).data,
    )
    yield "positional", "PRD (bundled), 5 judges, ties modelled", load("prd_vicuna80")
    yield "positional", "QLoRA-sized synthetic (950 x 7, 12% ties)", _qlora_like()[0]


def bench_fast() -> None:
    """The Laplace path (``fit --fast``) against NUTS on the same data, same run."""
    import warnings

    from bayes_pairwise.pymc_models import fit_summary_dict, get_model

    worst_shift, worst_ratio = 0.0, 1.0
    for name, label, data in _fast_cases():
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fast = get_model(name).fit(data, method="laplace", random_seed=1)
        t_fast = time.perf_counter() - t
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = get_model(name).fit(data, random_seed=1)
        t_full = time.perf_counter() - t
        a = fit_summary_dict(fast)["parameters"]
        b = fit_summary_dict(full)["parameters"]
        k = fast.idata_.sample_stats.attrs["laplace_pareto_k"]
        print(
            f"  {label}: laplace {t_fast:.1f} s, NUTS {t_full:.1f} s "
            f"(x{t_full / t_fast:.1f}); PSIS k-hat {k:.2f}"
        )
        for p in b:
            shift = abs(a[p]["mean"] - b[p]["mean"]) / b[p]["sd"]
            ratio = a[p]["sd"] / b[p]["sd"]
            worst_shift = max(worst_shift, shift)
            worst_ratio = max(worst_ratio, ratio, 1 / ratio)
            print(
                f"    {p:28s} laplace {a[p]['mean']:.4f} ± {a[p]['sd']:.4f}   NUTS "
                f"{b[p]['mean']:.4f} ± {b[p]['sd']:.4f}   shift {shift:.2f} sd, sd ratio "
                f"{ratio:.2f}"
            )
    _row("laplace vs NUTS: max |mean shift| [NUTS sd]", worst_shift, FAST_SD_TOL, "sd")
    _row("laplace vs NUTS: max sd ratio (either way)", worst_ratio, FAST_SD_RATIO[1], "")


# Peak resident memory from /proc/self/status (VmHWM): it starts afresh at exec, whereas
# getrusage's ru_maxrss keeps the parent's peak (the parent holds the 5.6 M-row frame,
# so the child's own use read as 0 MB).
_LOADER_CHILD = """
import json, sys, time
import numpy as np, pandas as pd
from bayes_pairwise.data import load_comparisons
def mem(key):
    with open("/proc/self/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith(key + ":")) / 1024
path = sys.argv[1]
base = mem("VmHWM")
t = time.perf_counter()
data = load_comparisons(path, ties="model")
sec = time.perf_counter() - t
print(json.dumps({"seconds": sec, "peak_mb": mem("VmHWM"), "base_mb": base,
                  "rows": int(data.n_comparisons)}))
"""


def _log_frame(n_rows: int, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    items = np.array([f"model-{k:03d}" for k in range(200)], dtype=object)
    a = rng.integers(0, 200, n_rows)
    b = (a + rng.integers(1, 200, n_rows)) % 200
    return pd.DataFrame(
        {
            "first": items[a],
            "second": items[b],
            "outcome": rng.choice(np.array(["first", "second", "tie"], dtype=object), n_rows),
            "judge": rng.choice(np.array(["gpt-4", "claude", "human"], dtype=object), n_rows),
        }
    )


def _timed_cli(args: list[str], env: dict[str, str] | None = None) -> float:
    """Wall time of one ``bayes-pairwise`` command in a fresh process (imports included)."""
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bayes_pairwise.cli", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return time.perf_counter() - t


def _empty_cache_env(cache: str) -> dict[str, str]:
    """The environment of a process whose disk caches are empty.

    PyTensor's C and numba caches, the package's own (nutpie callbacks) and numba's cache of
    the package's kernels (``NUMBA_CACHE_DIR``; else it sits in the installed package).
    """
    base = os.path.join(cache, "pytensor")
    ours = f"base_compiledir={base},compiledir={os.path.join(base, 'c')}"
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    return {
        **os.environ,
        "BAYES_PAIRWISE_CACHE": os.path.join(cache, "bp"),
        "NUMBA_CACHE_DIR": os.path.join(cache, "numba"),
        "PYTENSOR_FLAGS": f"{flags},{ours}" if flags else ours,  # the later flag wins
    }


def bench_report() -> None:
    """``report`` end to end (fresh process, as a user runs it): PRD and a QLoRA-sized log.

    First run: every disk cache empty (a new install); next run: the caches the first one left
    (any later report on the same log). The MAP and ``--fast`` reports run after both.
    """
    with tempfile.TemporaryDirectory() as d:
        env = _empty_cache_env(os.path.join(d, "cache"))
        first = _timed_cli(["report", "prd_vicuna80", "--out", f"{d}/prd1.html"], env)
        prd = _timed_cli(["report", "prd_vicuna80", "--out", f"{d}/prd.html"], env)
        ref = _timed_cli(["report", "prd_vicuna80", "--map", "--out", f"{d}/map.html"], env)
        fast = _timed_cli(["report", "prd_vicuna80", "--fast", "--out", f"{d}/fast.html"], env)
        data, _ = _qlora_like()
        csv = f"{d}/qlora.csv"
        data.to_frame().drop(columns=["row", "repeat"]).to_csv(csv, index=False)
        qlora = _timed_cli(
            ["report", csv, "--context-column", "context", "--out", f"{d}/qlora.html"], env
        )
    print(
        f"  report prd_vicuna80: MAP {ref:.1f} s (reference), NUTS default {prd:.1f} s "
        f"({prd / ref:.1f}x MAP; first run on empty caches {first:.1f} s), --fast {fast:.1f} s "
        f"({fast / ref:.1f}x MAP); QLoRA-sized log, default: {qlora:.1f} s"
    )
    _row("report prd_vicuna80, default (NUTS) [s]", prd, REPORT_PRD_S, "s")
    _row("report prd_vicuna80, default, empty caches [s]", first, REPORT_PRD_S, "s")
    _row("report prd_vicuna80 --fast (Laplace) [s]", fast, REPORT_PRD_S, "s")
    _row("report QLoRA-sized log, default (NUTS) [s]", qlora, REPORT_QLORA_S, "s")


def bench_loader() -> None:
    """1 M rows from a DataFrame (time) and a ~200 MB CSV (peak memory of a fresh process)."""
    import pandas as pd

    from bayes_pairwise.data import load_comparisons

    frame = _log_frame(1_000_000)
    best = math.inf
    ref = math.inf
    for _ in range(3):
        start = time.perf_counter()
        load_comparisons(frame, judge="judge", ties="model")
        best = min(best, time.perf_counter() - start)
        start = time.perf_counter()  # reference: factorising the four columns with pandas
        for col in frame.columns:
            pd.factorize(frame[col])
        ref = min(ref, time.perf_counter() - start)
    print(
        f"  load_comparisons, 1,000,000-row DataFrame (judge column, ties): {best:.3f} s; "
        f"pandas.factorize of its four columns {ref:.3f} s (ratio {best / ref:.1f})"
    )
    _row("load_comparisons 1 M rows [s]", best, LOAD_1M_S, "s")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.csv")
        _log_frame(5_600_000, seed=1).drop(columns="judge").to_csv(path, index=False)
        size_mb = os.path.getsize(path) / 2**20
        res = _child(_LOADER_CHILD, {**os.environ}, args=[path])
    used = res["peak_mb"] - res["base_mb"]
    print(
        f"  load_comparisons, {size_mb:.0f} MB CSV ({res['rows']:,} rows): {res['seconds']:.1f} s;"
        f" peak memory {res['peak_mb']:.0f} MB, {used:.0f} MB above the imports"
    )
    _row("CSV load: memory above imports / file size", used / size_mb, CSV_MEMORY_RATIO, "x")


PARTS = {
    "gradient": bench_gradient,
    "uniform": bench_uniform,
    "qlora": bench_qlora,
    "n1000": bench_n1000,
    "fast": bench_fast,
    "report": bench_report,
    "loader": bench_loader,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also the long QLoRA / N=1000 runs")
    parser.add_argument("--only", choices=sorted(PARTS), action="append")
    args = parser.parse_args()
    parts = args.only or (list(PARTS) if args.all else ["gradient", "uniform"])
    print(f"machine: {_machine()}", flush=True)
    for name in parts:
        PARTS[name]()
    print(f"machine after: {_machine()}")


if __name__ == "__main__":
    main()
