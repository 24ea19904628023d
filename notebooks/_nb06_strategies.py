"""Notebook 06: cost-aware annotation strategies (issue 11, METHODS §9)."""

NAME = "06_annotation_strategies.ipynb"


def cells(md, code, setup):
    return [
        md("""
# Cost-aware annotation: pairwise, pruning, listwise and a Bayesian active strategy

A simulated judge ranks texts whose latent bias scores lie on 1..1000. It picks the truly higher
text with probability ``P(correct | Δ) = ½ + (p_max − ½)(1 − e^{−Δ/τ})`` (p_max = 0.99,
τ ≈ 95 so that P = 0.8 at Δ = 90); `t_bias` texts are misperceived by ±200. Strategies differ
in who is compared with whom, and what it costs: one call per pairwise verdict, k/2 per list of
k texts (METHODS §9, Haak & Schaer).
"""),
        code(setup()),
        code("""
from bayes_pairwise import strategies as st

N = 300 if QUICK else 1000
REPS = 2 if QUICK else 3
world = st.simulate_annotation(N, "linear", bias_items=N // 5, random_seed=SEED)
print(f"tau = {st.TAU:.2f}; P(correct | 90) = {float(st.p_correct(90)):.3f}")
"""),
        md("## The judge's noise curve"),
        code("""
import numpy as np

d = np.linspace(0, 600, 200)
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(d, st.p_correct(d))
ax.axvline(90, ls=":", c="grey"); ax.axhline(0.8, ls=":", c="grey")
ax.set_xlabel("score difference Δ"); ax.set_ylabel("P(correct)");
"""),
        md("""
## ρ against cost (Figure 2a)

Every strategy runs on the same `REPS` worlds (20 % of texts misperceived). Ratings: BT (MM),
online Elo, TrueSkill and the Gaussian posterior (`bayes`).
"""),
        code("""
specs = [
    "pairwise:rounds=24",
    "pairwise:rounds=24,match=random",
    "tail-prune:rounds=24,start=8,perc=0.2",
    "streak-prune:rounds=24",
    "swap-confirm:rounds=12",
    "listwise:k=10,rounds=3",
    "active:budget=%d" % (1.2 * N),
    "active:budget=%d,k=20" % N,
]
res = st.run_strategies(N, "linear", bias_items=N // 5, reps=REPS, seed=SEED, strategies=specs)
res[["strategy", "rating", "cost", "spearman", "spearman_sd", "alpha_score"]]
"""),
        code("""
fig, ax = plt.subplots(figsize=(8, 5))
st.plot_rho_vs_cost(res, ax=ax);
"""),
        code("""
st.rho_vs_cost_data(res, "bt")
"""),
        md("""
Reading the plot: BT beats Elo everywhere; similarity matchmaking beats random; three rounds
of lists of 10 reach nearly the ρ of 24 pairwise rounds at an eighth of the cost. The active
strategy (posterior-guided lists) matches listwise at about 80 % of its cost with lists of 10
and exceeds it at two thirds of the cost with lists of 20 — a gain that rests on the cost model
charging k/2 per list and on the list noise model not degrading with k (see the docs page).

## Swap-and-confirm under position bias

With a position-biased judge (ε₊ = 0.05, ε₋ = 0.25), asking both orders and keeping only
agreeing verdicts costs twice as much; modelling the bias instead (the `bayes` rating knows ε)
keeps every verdict.
"""),
        code("""
pos = st.run_strategies(N, "linear", reps=REPS, seed=SEED, eps_plus=0.05, eps_minus=0.25,
                        strategies=["pairwise:rounds=12", "swap-confirm:rounds=6"],
                        ratings=["bt", "bayes"])
pos[["strategy", "rating", "cost", "spearman"]]
"""),
        md("""
## Lists as data: Plackett–Luce and a listwise judge's errors

A list is one call, not k(k − 1)/2 independent verdicts. `bp.load_rankings` reads a ranking log
(one row per item per list: list id, item, rank, optionally the position it was shown at);
`bp.PlackettLuce` fits the classical Plackett–Luce strengths (MM or ILSR, equal to
`choix.ilsr_rankings`), and `bp.NoisyPlackettLuce` adds the judge's own errors: a log-odds bonus
for the item it was shown first and a lapse rate (a random order). Here 400 lists of 5 from 30
texts, ranked by a judge that favours what it sees first by 1.0 on the log-odds scale.
"""),
        code("""
from bayes_pairwise.pymc_models.plackett_luce import simulate_noisy_rankings

rng = np.random.default_rng(SEED)
truth = rng.normal(0.0, 1.0, 30)
lists = simulate_noisy_rankings(truth, 400, 5, first=1.0, random_seed=SEED)
print(lists)
print(lists.to_frame().head(6))
plain = bp.PlackettLuce().fit(lists)
noisy = bp.NoisyPlackettLuce().fit(lists, method="map", random_seed=SEED)
noisy.summary(strengths=False)
"""),
        code("""
truth_c = pd.Series(truth - truth.mean(), index=list(lists.items))
pd.DataFrame({
    "mean |error|, plain PL": [float((plain.strengths_ - truth_c).abs().mean())],
    "mean |error|, noisy PL": [float((noisy.strengths_ - truth_c).abs().mean())],
})
"""),
        md("""
The list statistic of a position bias: how often the item shown first is ranked first, in the
data and in lists replicated from the fitted model (with no bias it would be about 1 in 5).
"""),
        code("""
noisy.list_ppc()
"""),
        md("""
The strategies read lists the same way: the `bayes` rating of list calls and the active
strategy's posterior use the Plackett–Luce likelihood; `bayes-pairs` and
`active:…,posterior=pairs` are the earlier reading (implied pairs as independent verdicts).
Under the Thurstonian list model (coherent orders), old against new, at 85 % of listwise's cost:
"""),
        code("""
specs = ["listwise:k=10,rounds=3", "active:budget=%d" % (1.275 * N),
         "active:budget=%d,posterior=pairs" % (1.275 * N)]
thr = st.run_strategies(N, "linear", bias_items=N // 5, reps=REPS, seed=SEED, strategies=specs,
                        ratings=["bt", "bayes", "bayes-pairs"], list_model="thurstone")
thr.pivot_table(index="strategy", columns="rating", values="spearman", sort=False)
"""),
    ]
