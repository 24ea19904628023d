"""Write the example notebooks from the cell lists below (outputs are added by the runner).

    python notebooks/_make_notebooks.py            # (re)write 01_…, 02_…, 03_… without outputs
    python notebooks/run_notebooks.py --write      # execute them (quick mode) and save outputs

Keeping the cells here makes them reviewable as plain Python/Markdown diffs; the committed
``.ipynb`` files are this script's output plus the outputs of one quick-mode run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str):
    return new_code_cell(text.strip("\n"))


def setup(*extra_imports: str) -> str:
    """The first code cell of every notebook; ``extra_imports`` are third-party import lines."""
    third_party = sorted(
        ["import matplotlib.pyplot as plt", "import pandas as pd", *extra_imports],
        key=lambda line: (line.startswith("from"), line.split()[1].lower()),  # isort order
    )
    return SETUP.replace("THIRD_PARTY", "\n".join(third_party))


SETUP = """
import logging
import os
import warnings

THIRD_PARTY

import bayes_pairwise as bp

warnings.filterwarnings("ignore", message=".*could not link to a BLAS.*")  # PyTensor, CPU-only
warnings.filterwarnings("ignore", message=".*Cannot cache compiled function.*")  # nutpie/numba
import pymc  # noqa: E402, F401  (imported here so that its INFO logging can be quieted)

logging.getLogger("pymc").setLevel(logging.WARNING)  # "Sampling: [wins]" for predictive draws

# Quick mode (set by `python notebooks/run_notebooks.py`, i.e. in CI and for the committed
# outputs): the same functions with shorter sampler runs and fewer Δ_S subsets.
QUICK = bool(os.environ.get("BAYES_PAIRWISE_QUICK"))
SAMPLER = dict(draws=300, tune=300, chains=2) if QUICK else dict(draws=1000, tune=1000, chains=4)
N_SUBSETS = 50 if QUICK else 200
SEED = 0
pd.set_option("display.precision", 3)
pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 20)
plt.rcParams["figure.dpi"] = 80
# warnings as one line (category and message), without the source file's path
warnings.formatwarning = lambda message, category, *args, **kwargs: (
    f"{category.__name__}: {message}\\n"
)
print(f"bayes_pairwise {bp.__version__}; quick mode: {QUICK}; sampler: {SAMPLER}")
if QUICK:
    print("quick mode: short chains, so that the notebook runs in minutes; the convergence "
          "diagnostics below may flag parameters — rerun with BAYES_PAIRWISE_QUICK unset "
          "(python notebooks/run_notebooks.py --write --full) before quoting numbers")
"""

# =============================================================================== 01 quick start
NB01 = [
    md(
        """
# Quick start on real data: five LLM judges on Vicuna80

This notebook walks through the package on the bundled **PRD Vicuna80** data (MIT): five LLM
judges (bard, claude, gpt35, gpt4, vicuna-13b) compared every ordered pair of the five answers to
each of 80 Vicuna questions — so every judge saw each pair **in both orders**, which is exactly the
design the paper's estimators need.

1. load the data and look at what it covers;
2. classical estimates per judge (commutativity score, moments, the Δ_S grid fit);
3. a Bayesian error model (MAP, then a short NUTS run);
4. the cross-check `bp.compare`: classical and Bayesian side by side, with a verdict;
5. plots.

The committed outputs come from quick mode (short chains, as in CI); for full-length chains run
`python notebooks/run_notebooks.py --write --full`, or open the notebook in an environment
without `BAYES_PAIRWISE_QUICK`.
"""
    ),
    code(setup("from IPython.display import display")),
    md(
        """
## 1. Load and summarise

Ties are kept as half a win (`ties="half"`); the policy is recorded in every result.
Each item is a (question, answer model) pair, labelled `"{question}::{model}"`.
"""
    ),
    code(
        """
data = bp.datasets.load("prd_vicuna80", ties="half")
print(data)
print(data.summary())
"""
    ),
    md(
        """
All 800 unordered pairs of every judge were judged in both orders, once each. The
first-position win rate already tells a story: an unbiased judge picks the first-shown answer
about half the time; bard picks it in 81% of its non-tie verdicts, claude in only 36%.

## 2. Classical estimates per judge

`descriptive_by_judge` gives the commutativity score S_com (share of pairs whose two verdicts
pick the same *position*, i.e. the judge changed its mind when the order was swapped), the
first-position rate r₁, the uniform error rate implied by S_com, and the moment estimate of the
positional rates (ε₊ = error when the better answer is shown first, ε₋ when it is shown second).
"""
    ),
    code(
        """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    table = bp.descriptive_by_judge(data)
for w in caught:
    print("warning:", w.message)
table[["s_com", "r1", "eps_scom", "eps_plus", "eps_minus", "moments_at_boundary"]]
"""
    ),
    md(
        """
S_com > ½ (bard, vicuna-13b) is impossible under a *uniform* error model — the closed form
ε̂ = (1 − √(1 − 2 S_com))/2 has no solution — and is the signature of a strong positional
bias: the moment estimates put bard's error at ε₋ ≈ 0.6 when the better answer is shown second.

Next, the paper's **Δ_S grid fit**, pooled over the 80 five-answer round-robins: the observed
Δ_S–n curve against synthetic curves on a grid of ε (tables are computed once and cached).
"""
    ),
    code(
        """
grid = {}
for judge, block in data.by_judge():
    grid[judge] = bp.DeltaSFit(n_subsets=N_SUBSETS, random_seed=SEED).fit(block)
pd.DataFrame(
    {
        "eps_delta_s": {j: f.eps_ for j, f in grid.items()},
        "eps_scom": table["eps_scom"],
        "contexts": {j: f.n_contexts_ for j, f in grid.items()},
    }
)
"""
    ),
    code(
        """
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
bp.plots.plot_delta_s_curve(grid["gpt4"], ax=axes[0])
bp.plots.plot_misfit_curve(grid["gpt4"], ax=axes[1])
fig.tight_layout()
"""
    ),
    md(
        """
The numbers behind every plot are available as a table (`*_data` twin of each plot function):
"""
    ),
    code(
        """
bp.plots.delta_s_curve_data(grid["gpt4"])
"""
    ),
    md(
        """
## 3. A Bayesian error model for one judge

The error models are binomial in wins and losses, so they need the ties **dropped**
(`drop_ties()`; the number dropped is recorded). The Δ_S fit above needed them counted half:
dropping a tie leaves its pair with one order only and breaks that question's round-robin.

First the posterior mode (MAP, seconds), then a short NUTS run of the positional model, whose
parameters are ε₊ (error when the better answer is shown first) and ε₋ (shown second).
"""
    ),
    code(
        """
gpt4 = data.for_judge("gpt4")
gpt4_nt = gpt4.drop_ties()
print(gpt4_nt)
map_fit = bp.PositionalBias().fit(gpt4_nt, method="map", random_seed=SEED)
map_fit.summary(strengths=False)[["mean"]]
"""
    ),
    code(
        """
pos_fit = bp.PositionalBias(**SAMPLER).fit(gpt4_nt, random_seed=SEED)
pos_fit.summary(strengths=False)
"""
    ),
    md(
        """
Convergence diagnostics and posterior predictive checks with the paper's own statistics
(S_com, first-position rate, the Δ_S curve). In quick mode (2 chains × 300 draws) the
ESS ≥ 400 check is expected to fail for many parameters, the error rates included; quote the
full-length run (4 chains × 1000 draws).
"""
    ),
    code(
        """
diag = bp.diagnose(pos_fit, random_seed=SEED)
print(diag)
print(diag.checks)
columns = ["mean", "sd", "r_hat", "ess_bulk", "ess_tail", "ok"]
display(diag.table.loc[["eps_plus", "eps_minus"], columns])
diag.ppc
"""
    ),
    md(
        """
## 4. The cross-check: classical and Bayesian side by side

`bp.compare` lines up S_com, the moments, the Δ_S 1-D and 2-D grid fits, the posteriors (here a
uniform-error fit is added so that the 1-D grid ε has a Bayesian counterpart) and the
Bradley–Terry strengths, and states whether the grid estimate falls inside the posterior HDI.
"""
    ),
    code(
        """
uni_fit = bp.UniformError(**SAMPLER).fit(gpt4_nt, random_seed=SEED)
cc = bp.compare(gpt4, uni_fit, pos_fit, biased_bt_spread=False, random_seed=SEED,
                grid_kwargs={"n_subsets": N_SUBSETS})
cc.table[["quantity", "method", "estimate", "lower", "upper", "interval"]]
"""
    ),
    code(
        """
print(cc.verdict)
for note in cc.notes:
    print("note:", note)
"""
    ),
    md(
        """
**Ties matter.** The Δ_S fits and the first classical rows use ties counted half, the
posteriors the tie-free data (`compare` therefore also lists S_com and the moments on the
tie-free data, "as the models"). On the *same* tie-free data the classical estimates move
towards the posterior, while the Δ_S grid fit cannot be run on it at all:
"""
    ),
    code(
        """
mom_half = bp.positional_moments(gpt4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mom_nt = bp.positional_moments(gpt4_nt)  # on the boundary: eps_plus is projected onto 0
print("warning:", caught[0].message if caught else "none")
same = pd.DataFrame(
    {
        "ties counted half": {
            "eps (S_com)": bp.estimate_eps_scom(gpt4).eps,
            "eps_plus (moments)": mom_half.eps_plus,
            "eps_minus (moments)": mom_half.eps_minus,
        },
        "ties dropped": {
            "eps (S_com)": bp.estimate_eps_scom(gpt4_nt).eps,
            "eps_plus (moments)": mom_nt.eps_plus,
            "eps_minus (moments)": mom_nt.eps_minus,
        },
        "posterior mean (ties dropped)": {
            "eps (S_com)": float(uni_fit.idata_.posterior["eps"].mean()),
            "eps_plus (moments)": float(pos_fit.idata_.posterior["eps_plus"].mean()),
            "eps_minus (moments)": float(pos_fit.idata_.posterior["eps_minus"].mean()),
        },
    }
)
same
"""
    ),
    md(
        """
A pair with a tie in one order has, by construction, a verdict that did not hold when the order
was swapped; dropping the tie also drops that pair from S_com, so the judge looks more
consistent. Which policy is right depends on what a tie means for your judge: the package makes
you choose (`ties=`) and records the choice in every result.

## 5. Plots

Posterior densities with the classical estimates drawn on them:
"""
    ),
    code(
        """
axes = bp.plots.plot_posterior_vs_grid(
    pos_fit,
    ("moments, ties dropped", mom_nt),
    ("moments, ties half", mom_half),
    ("MAP", map_fit),
)
"""
    ),
    md(
        """
Answer strengths for the first three questions (posterior mean and HDI, centred within each
question), with Bradley–Terry MM estimates rescaled onto the posterior:
"""
    ),
    code(
        """
first_three = [it for it in gpt4_nt.items if it.split("::")[0] in {"1", "2", "3"}]
mm = bp.BradleyTerry(ridge=0.1).fit(gpt4_nt)
fig, ax = plt.subplots(figsize=(7, 5))
bp.plots.plot_strength_forest(pos_fit, mm, items=first_three, ax=ax)
fig.tight_layout()
"""
    ),
    md(
        """
Posterior predictive checks: does data simulated from the fitted model reproduce the judge's
commutativity score, first-position rate and Δ_S curve?
"""
    ),
    code(
        """
axes = bp.plots.plot_ppc(pos_fit, gpt4_nt, random_seed=SEED)
"""
    ),
    code(
        """
axes = bp.plots.plot_trace(pos_fit)
"""
    ),
    md(
        """
## Where next

* `bayes-pairwise report prd_vicuna80 --out report.html` builds all of this (and more) as one
  self-contained HTML page;
* the notebook *Bayesian vs grid search* (`02_bayes_vs_grid.ipynb`) checks every estimator
  against a known truth;
* the notebook *Real judges compared* (`03_real_judges.ipynb`) does it for all judges of two real
  data sets.
"""
    ),
]

# =============================================================================== 02 Bayes vs grid
NB02 = [
    md(
        """
# Bayesian vs grid search on synthetic round-robins

On synthetic data the truth is known, so every estimate can be compared with the **realised**
error rate of the draw (the share of verdicts that disagree with the truth), not only with the
nominal one. Four experiments:

1. uniform error, hard truth: Δ_S 1-D grid fit vs the uniform-error posterior vs S_com;
2. positional error (ε₊ ≠ ε₋): moments, the Δ_S 2-D fit (and why it cannot tell ε₊ from ε₋),
   the positional posterior;
3. a *soft* truth (close calls, `soft_sigma=2`) with a lapse rate of 0.15: Δ_S reads high, the
   marginal model recovers the lapse;
4. the probability that a text gets its correct Copeland score, P(R_m, TO), against N — the
   paper's "ranking does not scale" figure, exact vs the paper's reversal-only formula.

Every data set here is **SYNTHETIC**.
"""
    ),
    code(setup()),
    md(
        """
## 1. Uniform error, hard truth

The bundled `paper_synthetic` set: 100 texts, every ordered pair judged once, ε = 0.15, fixed seed.
"""
    ),
    code(
        """
sim = bp.datasets.load_synthetic()
print(sim.describe())
data = sim.data
scom = bp.estimate_eps_scom(data)
fit1d = bp.DeltaSFit(n_subsets=N_SUBSETS, random_seed=SEED).fit(data)
print(f"realised eps      {sim.realised_eps:.4f}")
print(f"S_com closed form {scom.eps:.4f} ± {1.96 * scom.eps_se:.4f}")
print(f"Δ_S 1-D grid fit  {fit1d.eps_:.4f}")
"""
    ),
    code(
        """
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
bp.plots.plot_delta_s_curve(fit1d, ax=axes[0], extra_eps={"realised": sim.realised_eps})
bp.plots.plot_misfit_curve(fit1d, ax=axes[1], mark={"realised": sim.realised_eps})
fig.tight_layout()
"""
    ),
    md(
        """
The uniform-error model: one latent true outcome per pair, shared by both orders, summed out;
ε ~ Uniform(0, 0.5). `bp.compare` lines it up with the classical estimates and, on synthetic
data, with the realised rate.
"""
    ),
    code(
        """
uni = bp.UniformError(**SAMPLER).fit(data, random_seed=SEED)
cc = bp.compare(data, uni, truth=sim, delta_s_2d=False, biased_bt_spread=False,
                random_seed=SEED, grid_kwargs={"n_subsets": N_SUBSETS})
print(cc.verdict)
cc.table.query("quantity == 'eps'")[["method", "estimate", "lower", "upper", "interval"]]
"""
    ),
    code(
        """
axes = bp.plots.plot_posterior_vs_grid(uni, scom, fit1d, sim)
"""
    ),
    md(
        """
All three estimators recover the realised rate. The posterior also ranks the texts; against the
true order, compare it with the Copeland ranking and Bradley–Terry (MM):
"""
    ),
    code(
        """
truth = sim.true_strengths
rankings = {
    "Copeland (Z)": bp.copeland_scores(data),
    "Bradley–Terry MM": bp.BradleyTerry().fit(data).strengths_,
    "posterior mean strength": uni.strengths_,
}
pd.DataFrame({name: bp.rank_agreement(s, truth) for name, s in rankings.items()}).T
"""
    ),
    md(
        """
## 2. Positional error: what the 2-D Δ_S fit can and cannot see

A judge with ε₊ = 0.05 (better answer shown first) and ε₋ = 0.25 (shown second), 40 texts, both
orders once. We fit the same design twice: once as simulated and once with the two rates
**swapped**.
"""
    ),
    code(
        """
pos = bp.simulate_round_robin(40, eps_plus=0.05, eps_minus=0.25, random_seed=2)
mirror = bp.simulate_round_robin(40, eps_plus=0.25, eps_minus=0.05, random_seed=2)
GRID_2D = dict(grid_step=0.01, n_subsets=N_SUBSETS, random_seed=SEED)
rows = []
for name, s in [("eps+=0.05, eps-=0.25", pos), ("eps+=0.25, eps-=0.05 (swapped)", mirror)]:
    mom = bp.positional_moments(s.data)
    f2 = bp.DeltaS2DFit(**GRID_2D).fit(s.data)
    rows.append(
        {
            "simulated": name,
            "realised eps+": s.realised_eps_plus,
            "realised eps-": s.realised_eps_minus,
            "moments eps+": mom.eps_plus,
            "moments eps-": mom.eps_minus,
            "Δ_S 2-D eps+": f2.eps_plus_,
            "Δ_S 2-D eps-": f2.eps_minus_,
            "Δ_S 2-D sum": f2.eps_sum_,
            "Δ_S sum split by r1: eps+": f2.eps_plus_hybrid_,
            "Δ_S sum split by r1: eps-": f2.eps_minus_hybrid_,
        }
    )
    if s is pos:
        fit2d = f2
pd.DataFrame(rows).set_index("simulated").T
"""
    ),
    code(
        """
print(fit2d.caveat_)
fig, ax = plt.subplots(figsize=(5.5, 4.5))
bp.plots.plot_misfit_heatmap(fit2d, ax=ax)
fig.tight_layout()
"""
    ),
    md(
        """
The misfit surface is symmetric about the diagonal and the two data sets get the same 2-D Δ_S
answer: no statistic of Z (or W) can tell ε₊ from ε₋. Only the sum ε₊ + ε₋ is determined,
and it is — the first-position win rate r₁ supplies the missing split (the moments and the
"hybrid" rows do this).
"""
    ),
    md(
        """
The positional model uses every verdict, including *which position* won, so it separates the two
rates — and follows them when they are swapped:
"""
    ),
    code(
        """
pos_fit = bp.PositionalBias(**SAMPLER).fit(pos.data, random_seed=SEED)
mirror_fit = bp.PositionalBias(**SAMPLER).fit(mirror.data, random_seed=SEED)
pd.concat(
    {
        "eps+=0.05, eps-=0.25": pos_fit.summary(strengths=False),
        "swapped": mirror_fit.summary(strengths=False),
    }
)[["mean", "hdi_3%", "hdi_97%", "r_hat", "ess_bulk"]]
"""
    ),
    code(
        """
axes = bp.plots.plot_posterior_vs_grid(pos_fit, bp.positional_moments(pos.data), fit2d, pos)
"""
    ),
    md(
        """
## 3. A soft truth: close calls are not errors

Here the texts have latent strengths s ~ Normal(0, 2); for every pair the "true" outcome T is
drawn once from σ(s_i − s_j) (a close call can go either way) and then every verdict is a lapse
flip of T with probability 0.15. Against the order of the latent strengths, many more verdicts
look wrong than the lapse rate.
"""
    ),
    code(
        """
soft = bp.simulate_round_robin(100, eps=0.15, soft_sigma=2, random_seed=3)
print(soft.describe())
fit_soft = bp.DeltaSFit(n_subsets=N_SUBSETS, random_seed=SEED).fit(soft.data)
scom_soft = bp.estimate_eps_scom(soft.data)
print(f"realised lapse rate              {soft.realised_eps:.4f}")
print(f"disagreement with strength order {soft.realised_eps_vs_order:.4f}")
print(f"S_com closed form                {scom_soft.eps:.4f}")
print(f"Δ_S 1-D grid fit                 {fit_soft.eps_:.4f}   <- reads high")
"""
    ),
    md(
        """
The uniform-error model has one latent outcome per pair, which may go against the strength
order — so a close call is not an error, and ε is the lapse rate:
"""
    ),
    code(
        """
soft_fit = bp.UniformError(**SAMPLER).fit(soft.data, random_seed=SEED)
cc_soft = bp.compare(soft.data, soft_fit, truth=soft, delta_s_2d=False, biased_bt_spread=False,
                     random_seed=SEED, grid_kwargs={"n_subsets": N_SUBSETS})
print(cc_soft.verdict)
cc_soft.table.query("quantity == 'eps'")[["method", "estimate", "lower", "upper", "interval"]]
"""
    ),
    code(
        """
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
bp.plots.plot_posterior_vs_grid(soft_fit, scom_soft, fit_soft, soft, ax=axes[0])
bp.plots.plot_delta_s_curve(fit_soft, ax=axes[1], extra_eps={"realised lapse": soft.realised_eps})
fig.tight_layout()
"""
    ),
    md(
        """
S_com also reads the lapse rate here: it only asks whether a verdict survives swapping the
order, and a close call decided once per pair does. Δ_S compares Copeland scores with a
perfect staircase, so every close call that went against the strength order counts as an
error. (Only repeated verdicts in the *same* order could tell a lapse from a judge that re-draws
its opinion on every call; see METHODS §7.)
"""
    ),
    md(
        """
## 4. P(R_m, TO): ranking many texts with a noisy judge does not scale

The probability that the text of true rank m gets exactly its correct Copeland score, for
ε = 0.15, m = 1..8 and N up to 100. Solid: the exact probability (METHODS §4); dashed: the
paper's printed formula, which counts only full pair reversals and undercounts for m ≥ 2.
"""
    ),
    code(
        """
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
for ax in axes:
    bp.plots.plot_correct_score(0.15, ranks=range(1, 9), n_max=100, methods=("exact", "paper"),
                                ax=ax)
axes[1].set_yscale("log")
axes[1].set_ylim(1e-16, 1.5)
axes[1].set_title("the same on a log scale: every curve keeps falling with N", fontsize=10)
fig.tight_layout()
"""
    ),
    code(
        """
pr = bp.plots.correct_score_data(0.15, ranks=[1, 2, 5], n_max=100, methods=("exact", "paper"))
pr[pr["N"].isin([10, 25, 50, 100])].pivot_table(index=["m", "N"], columns="method", values="p")
"""
    ),
    code(
        """
# the worked example of METHODS §4: N = 10, eps = 0.15, m = 2
mc = bp.p_correct_score(10, 2, 0.15, method="monte_carlo", n_sims=200_000, random_seed=SEED)
print(f"paper (reversal-only) {bp.p_correct_score(10, 2, 0.15, method='paper_reversal_only'):.3f}")
print(f"exact                 {bp.p_correct_score(10, 2, 0.15):.3f}")
print(f"Monte Carlo           {mc.estimate:.3f} ± {mc.se:.3f}")
"""
    ),
    md(
        """
Every curve falls towards zero as N grows: with a judge that errs 15% of the time, the chance
that even the best text gets its correct score is (1 − ε)^{2(N−1)} — about 1% at N = 15.
Adding texts to a round-robin judged by a noisy LLM does not make the Copeland ranking
exact; modelling the error does not either, but it says how uncertain the ranking is.
"""
    ),
]

# =============================================================================== 03 real judges
NB03 = [
    md(
        """
# Real judges compared

Two bundled real data sets (both MIT):

* **PRD Vicuna80** — five LLM judges on every ordered pair of five answers to 80 questions.
  Per judge: the Δ_S grid fit pooled over the 80 round-robins against the Bayesian posterior,
  and each judge's ranking of the five answer *models* against the human pairwise verdicts.
* **Judging the judges** (Shi et al. 2024) — nine LLM judges, each pair in both orders with three
  repetitions: their positional error rates ε₊ / ε₋, by moments and by the positional model,
  with the diagnostics a reviewer would ask for (R-hat, ESS, divergences, posterior predictive
  checks).
"""
    ),
    code(setup("import numpy as np")),
    md(
        """
## Part A — PRD Vicuna80: five judges

### A1. Error rates: Δ_S per context pooled vs S_com vs moments
"""
    ),
    code(
        """
prd = bp.datasets.load("prd_vicuna80", ties="half")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", bp.DesignWarning)  # S_com > 1/2: eps_scom is NaN, see below
    desc = bp.descriptive_by_judge(prd)
grid = {j: bp.DeltaSFit(n_subsets=N_SUBSETS, random_seed=SEED).fit(b) for j, b in prd.by_judge()}
errors = desc[["s_com", "r1", "eps_scom", "eps_plus", "eps_minus"]].copy()
errors.insert(3, "eps_delta_s", pd.Series({j: f.eps_ for j, f in grid.items()}))
errors
"""
    ),
    md(
        """
### A2. Each judge's ranking of the five answer models vs the humans

Pooling the 80 questions turns the items into the five answer models. A Bradley–Terry fit (MM)
per judge ranks them; the human pairwise verdicts bundled with PRD (one orientation per pair, up
to three annotators, order shown to the annotators unknown) give the reference ranking.
"""
    ),
    code(
        """
human = bp.datasets.load_human_verdicts("prd_vicuna80")
human_data = bp.load_comparisons(
    human, first="model_a", second="model_b", outcome="winner", ties="half",
    source_name="PRD human verdicts", detect=False,  # context column unread: pool questions
)
human_bt = bp.BradleyTerry().fit(human_data)
print(human_data)
pooled = prd.pool_contexts()
bt = {j: bp.BradleyTerry().fit(block) for j, block in pooled.by_judge()}
strengths = pd.DataFrame({j: f.strengths_ for j, f in bt.items()})
strengths["human"] = human_bt.strengths_
strengths.sort_values("human", ascending=False)
"""
    ),
    code(
        """
agree_bt = pd.DataFrame(
    {j: bp.rank_agreement(bt[j].strengths_, human_bt.strengths_) for j in bt}
).T[["kendall_tau", "spearman_rho", "kendall_distance"]]
agree_bt
"""
    ),
    md(
        """
### A3. The Bayesian error models, all five judges in one fit

One strength per (question, answer) shared by the judges, one latent true outcome per (judge,
pair), and each judge's own error rates. The models are binomial, so ties are dropped for them
(the Δ_S fit above needs them counted half: a dropped tie breaks its question's round-robin).
"""
    ),
    code(
        """
prd_nt = prd.drop_ties()
print(prd_nt.summary())
uni_prd = bp.UniformError(**SAMPLER).fit(prd_nt, random_seed=SEED)
pos_prd = bp.PositionalBias(**SAMPLER).fit(prd_nt, random_seed=SEED)
"""
    ),
    code(
        """
cc = bp.compare(prd, uni_prd, pos_prd, delta_s_2d=False, biased_bt_spread=False, strengths=False,
                random_seed=SEED, grid_kwargs={"n_subsets": N_SUBSETS})
cc.pivot()
"""
    ),
    code(
        """
print(cc.verdict)
cc.agreement[["judge", "quantity", "classical", "classical_estimate", "posterior_mean", "overlap", "gap"]]
"""
    ),
    md(
        """
Where the grid and the uniform posterior disagree, three things are mixed (the verdict names
each where it applies): the judges are position-biased (all but gpt35 have ε₊ and ε₋ far apart,
which no uniform-error estimate describes); Δ_S counts close calls as errors; and the two sides
see different data — the grid fit ties counted half, the posterior the tie-free data. The tie
policy alone moves the S_com estimate this much (gpt35, with 306 ties, from 0.136 to 0.064):
"""
    ),
    code(
        """
with warnings.catch_warnings():
    warnings.simplefilter("ignore", bp.DesignWarning)
    desc_nt = bp.descriptive_by_judge(prd_nt)
pd.DataFrame(
    {
        "ties": prd.summary().table["ties_kept"],
        "eps_scom (ties half)": desc["eps_scom"],
        "eps_scom (ties dropped)": desc_nt["eps_scom"],
        "uniform posterior": uni_prd.summary(strengths=False)["mean"].rename(
            lambda k: k.split("[")[1].rstrip("]")
        ),
    }
)
"""
    ),
    code(
        """
fig, ax = plt.subplots(figsize=(7, 4))
bp.plots.plot_judge_forest(
    pos_prd,
    classical=desc_nt,
    ax=ax,
    title="PRD Vicuna80: positional error rates (classical = moments, ties dropped)",
)
fig.tight_layout()
"""
    ),
    md(
        """
Diagnostics of the positional fit: convergence of every parameter (in quick mode the short
chains leave some strength parameters below the ESS threshold) and the posterior predictive
checks per judge.
"""
    ),
    code(
        """
diag_prd = bp.diagnose(pos_prd, random_seed=SEED, n_draws_curve=10 if QUICK else 50)
print(diag_prd)
for msg in diag_prd.messages:
    print("-", msg[:160])
diag_prd.ppc.pivot(
    index="judge", columns="statistic", values=["observed", "replicated_mean", "p_value"]
)
"""
    ),
    md(
        """
The PPC shows where the positional model does not describe a judge: for vicuna-13b the observed
S_com lies outside the replicated distribution. Its moment estimate sits on the boundary
ε₊ + ε₋ = 1 as well — a judge whose verdicts depend on the order more than any pair of fixed
error rates allows (e.g. a bias that varies by question).

### A4. Each judge's ranking of the five answer models, with uncertainty

For a posterior over the ranking of the five answer models, pool the questions and fit the
biased Bradley–Terry model per judge (a first-position shift γ, ties counted half): the items are
then the five models, each compared about 640 times per judge. With so few items and so many
verdicts the sampler needs a higher `target_accept` (at the default 0.8 these fits show a few
divergences).
"""
    ),
    code(
        """
bbt = {
    j: bp.BiasedBradleyTerry(target_accept=0.95, **SAMPLER).fit(b, random_seed=SEED)
    for j, b in pooled.by_judge()
}
rows = {}
for j, f in bbt.items():
    d = bp.diagnose(f, ppc=False)
    reported = d.table.loc[[i for i in d.table.index if i.startswith(("gamma", "strength"))]]
    g = f.summary(strengths=False).loc["gamma"]
    rows[j] = {
        "gamma": g["mean"], "gamma 3%": g["hdi_3%"], "gamma 97%": g["hdi_97%"],
        "divergences": d.divergences,
        "max R-hat (gamma, strengths)": reported["r_hat"].max(),
        "min ESS bulk (gamma, strengths)": reported["ess_bulk"].min(),
        "max R-hat (all, incl. z, sigma_s)": d.table["r_hat"].max(),
        "min ESS bulk (all)": d.table["ess_bulk"].min(),
    }
pd.DataFrame(rows).T
"""
    ),
    md(
        """
γ > 0 means the judge favours the first slot (bard strongly, gpt4 moderately), γ < 0 the second
(claude, vicuna-13b). The reported quantities (γ and the strengths) converge; the
non-centred building blocks z and σ_s mix slowly here, because with five items the scale σ_s is
barely informed — it is not a finding and is not reported.
"""
    ),
    code(
        """
def tau_draws(fit, reference):
    draws = fit.idata_.posterior["strength"].stack(sample=("chain", "draw"))
    items = [str(i) for i in draws.coords["item"].values]
    ref = reference.reindex(items).to_numpy()
    return np.array([bp.kendall_tau(draws.values[:, k], ref) for k in range(draws.sizes["sample"])])


print("human ranking:", " > ".join(human_bt.ranking().sort_values().index))
rows = {}
for j, f in bbt.items():
    taus = tau_draws(f, human_bt.strengths_)
    rows[j] = {
        "tau MM": bp.kendall_tau(bt[j].strengths_, human_bt.strengths_),
        "tau posterior mean": bp.kendall_tau(f.strengths_, human_bt.strengths_),
        "P(tau = 1)": float(np.mean(taus > 0.999)),
        "tau 3%": np.quantile(taus, 0.03),
        "tau 97%": np.quantile(taus, 0.97),
        "spearman posterior mean": bp.spearman_rho(f.strengths_, human_bt.strengths_),
        "ranking (posterior mean)": " > ".join(f.ranking_),
    }
pd.DataFrame(rows).T
"""
    ),
    md(
        """
Ranking five answer models from hundreds of verdicts each is easy: gpt35 and gpt4 reproduce
the human order exactly, bard, claude and vicuna-13b swap one pair among the three weaker
models, where the humans' own margins are small. The posterior adds how sure each judge's
ranking is (P(τ = 1) and the interval of τ over posterior draws).

Per question the picture is different. The share of (question, pair) cases in which the
judge's two-order verdict agrees with the human majority (cases where either side is split
evenly are left out):
"""
    ),
    code(
        """
def pair_scores(frame, a_col, b_col, winner):
    lo = np.where(frame[a_col] < frame[b_col], frame[a_col], frame[b_col])
    hi = np.where(frame[a_col] < frame[b_col], frame[b_col], frame[a_col])
    score = np.where(winner == lo, 1.0, np.where(winner == hi, 0.0, 0.5))
    return pd.DataFrame(
        {"context": frame["context"].astype(str), "lo": lo, "hi": hi, "score": score}
    )


f = prd.to_frame()
winner = np.where(
    f["outcome"] == "first", f["first"], np.where(f["outcome"] == "second", f["second"], "tie")
)
judge_pairs = pair_scores(f, "first", "second", winner).assign(judge=f["judge"].to_numpy())
judge_pairs = judge_pairs.groupby(["judge", "context", "lo", "hi"])["score"].mean().reset_index()
human_pairs = pair_scores(human, "model_a", "model_b", human["winner"].to_numpy())
human_pairs = (
    human_pairs.groupby(["context", "lo", "hi"])["score"].mean().rename("human").reset_index()
)
merged = judge_pairs.merge(human_pairs, on=["context", "lo", "hi"])
decided = merged[(merged["score"] != 0.5) & (merged["human"] != 0.5)]
(
    decided.assign(agree=(decided["score"] > 0.5) == (decided["human"] > 0.5))
    .groupby("judge")
    .agg(pairs=("agree", "size"), agreement_with_humans=("agree", "mean"))
)
"""
    ),
    md(
        """
## Part B — Judging the judges: nine judges' positional error rates

Each model's answer was compared with a reference answer to the same question (a star design, not
a round-robin: no Copeland scores or Δ_S here), in both orders, three times each. Ties are dropped.
"""
    ),
    code(
        """
jtj = bp.datasets.load("judging_the_judges", ties="drop")
print(jtj)
jtj_desc = bp.descriptive_by_judge(jtj)
jtj_desc[["n_verdicts", "n_pairs_both_orders", "s_com", "r1", "eps_plus", "eps_minus",
          "eps_plus_se", "eps_minus_se"]]
"""
    ),
    md(
        """
The positional model for all nine judges at once (strengths per (question, answer) shared by
the judges):
"""
    ),
    code(
        """
pos_jtj = bp.PositionalBias(**SAMPLER).fit(jtj, random_seed=SEED)
fig, ax = plt.subplots(figsize=(7.5, 5))
bp.plots.plot_judge_forest(pos_jtj, classical=jtj_desc, ax=ax,
                           title="Judging the judges: positional error rates (classical = moments)")
fig.tight_layout()
"""
    ),
    code(
        """
bp.plots.judge_forest_data(pos_jtj, classical=jtj_desc).pivot(
    index="judge", columns=["variable", "source"], values="mean"
)
"""
    ),
    md(
        """
### Diagnostics a reviewer would ask for

R-hat, bulk/tail ESS and pass/fail flags for the error rates; divergences, tree-depth hits and
E-BFMI for the run (thresholds: R-hat ≤ 1.01, ESS ≥ 400, no divergences).
"""
    ),
    code(
        """
diag_jtj = bp.diagnose(pos_jtj, random_seed=SEED)
print(diag_jtj)
print({k: v for k, v in diag_jtj.to_dict().items() if k != "messages"})
err_rows = [i for i in diag_jtj.table.index if i.startswith(("eps_plus", "eps_minus"))]
diag_jtj.table.loc[err_rows, ["mean", "sd", "r_hat", "ess_bulk", "ess_tail", "rhat_ok", "ess_ok"]]
"""
    ),
    code(
        """
diag_jtj.ppc.pivot(index="judge", columns="statistic", values="p_value").rename(
    columns=lambda c: f"PPC p-value: {c}"
)
"""
    ),
    code(
        """
axes = bp.plots.plot_ppc(pos_jtj, jtj, judge="claude-3-haiku-20240307", random_seed=SEED,
                         statistics=("s_com", "first_position_rate"))
"""
    ),
    md(
        """
The nine judges differ by an order of magnitude: gpt-4-0613 and gpt-4-1106-preview err
rarely in either position, while claude-3-haiku is wrong about half the time when the better
answer is shown first — it prefers the second slot. Most judges here favour the *second*
position (ε₊ > ε₋), the opposite of bard on Vicuna80. The moments and the posterior agree
closely; the posterior adds intervals that account for the repeats (three verdicts per order
share one latent outcome) and a check that the model reproduces each judge's S_com and
first-position rate.

In quick mode these are short chains; run with `BAYES_PAIRWISE_QUICK=` unset (or
`python notebooks/run_notebooks.py --write --full`) for the full-length runs before quoting
numbers.
"""
    ),
]


NOTEBOOKS = {
    "01_quickstart.ipynb": NB01,
    "02_bayes_vs_grid.ipynb": NB02,
    "03_real_judges.ipynb": NB03,
}


def _discover() -> None:
    """Add the notebooks defined in ``notebooks/_nb*.py`` (one module per notebook).

    Each module defines ``NAME`` (the ``.ipynb`` file name) and ``cells(md, code, setup)``
    returning the cell list, so topics can be written and reviewed in files of their own.
    """
    import importlib.util

    for path in sorted(HERE.glob("_nb*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        NOTEBOOKS[module.NAME] = module.cells(md, code, setup)


_discover()


def build(cells) -> nbformat.NotebookNode:
    nb = new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(NOTEBOOKS)
    for name in names:
        nb = build(NOTEBOOKS[name])
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)
        print(f"wrote {name} ({len(nb.cells)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
