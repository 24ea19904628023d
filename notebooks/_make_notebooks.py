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


SETUP = '''
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bayes_pairwise as bp

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
print(f"bayes_pairwise {bp.__version__}; quick mode: {QUICK}; sampler: {SAMPLER}")
'''

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

In quick mode (CI) the sampler runs are short; set `BAYES_PAIRWISE_QUICK=` (empty) and re-run
for full-length chains.
"""
    ),
    code(SETUP),
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
summary = data.summary()
print(summary)
summary.table
"""
    ),
    md(
        """
All 800 unordered pairs of every judge were judged in both orders, once each. The
first-position win rate already tells a story: an unbiased judge picks the first-shown answer
about half the time; bard picks it 81% of the time, claude only 36%.

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
    # BAYES-01
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
    code(SETUP),
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
    # BAYES-02a
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
            "… eps-": f2.eps_minus_hybrid_,
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
    # BAYES-02b
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
    # BAYES-02c
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
fig, ax = plt.subplots(figsize=(8, 4.5))
bp.plots.plot_correct_score(0.15, ranks=range(1, 9), n_max=100, methods=("exact", "paper"), ax=ax)
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
mc = bp.p_correct_score(10, 2, 0.15, method="monte_carlo", n_sims=20000, random_seed=SEED)
print(f"paper (reversal-only) {bp.p_correct_score(10, 2, 0.15, method='paper_reversal_only'):.3f}")
print(f"exact                 {bp.p_correct_score(10, 2, 0.15):.3f}")
print(f"Monte Carlo           {mc.estimate:.3f} ± {mc.se:.3f}")
"""
    ),
    md(
        """
Every curve falls towards zero as N grows: with a judge that errs 15% of the time, the chance
that even the best text gets its correct score is (1 − ε)^{2(N−1)} — below 1% by N = 15.
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
    code(SETUP),
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
    source_name="PRD human verdicts",
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
    # BAYES-03a
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
    # BAYES-03b
]


NOTEBOOKS = {
    "01_quickstart.ipynb": NB01,
    "02_bayes_vs_grid.ipynb": NB02,
    "03_real_judges.ipynb": NB03,
}


def build(cells) -> nbformat.NotebookNode:
    nb = new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
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
