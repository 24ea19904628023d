"""Notebook 05: model checking — LOO, hierarchical judges, per-verdict errors (issue 8)."""

NAME = "05_model_checking.ipynb"


def cells(md, code, setup):
    return [
        md("""
# Model checking: which error model do the data support, and which verdicts are wrong?

* **LOO model comparison** (`bp.compare_models`): PSIS-LOO on the *pair* unit (all verdicts of
  one judge on one unordered pair share a latent true outcome and are left out together).
* **Hierarchical judges** (`uniform_hierarchical`): per-judge error logits drawn from a learned
  population (partial pooling, non-centred). With many judges and few verdicts each it should
  predict held-out pairs better and shrink the judges' rates towards the population.
* **Per-verdict error probabilities** (`model.verdict_errors(data)`).

Quick mode uses a subset of llmfao's prompts and short chains.
"""),
        code(setup("import numpy as np")),
        md("## A synthetic crowd: 100 judges, 4 items each (12 verdicts per judge)"),
        code("""
from scipy.special import expit

rng = np.random.default_rng(SEED)
n_judges = 40 if QUICK else 100
true_eps = 0.5 * expit(rng.normal(np.log(0.15 / 0.35), 0.4, size=n_judges))
frames = []
for k in range(n_judges):
    sim = bp.simulate_round_robin(4, eps=float(true_eps[k]), random_seed=100 + k)
    frames.append(sim.frame.assign(judge=f"j{k:03d}"))
crowd = bp.load_comparisons(pd.concat(frames, ignore_index=True), judge="judge")
crowd
"""),
        code("""
table = bp.compare_models(crowd, ["uniform", "uniform_hierarchical"], random_seed=SEED,
                          **SAMPLER)
print(table.attrs["message"])
table.drop(columns="warning")
"""),
        md("### Shrinkage: unpooled vs pooled judge error rates"),
        code("""
def shrinkage_plot(fits, truth=None, ax=None):
    e_u = fits["uniform"].idata_.posterior["eps"].mean(("chain", "draw")).values
    e_h = fits["uniform_hierarchical"].idata_.posterior["eps"].mean(("chain", "draw")).values
    pop = float(fits["uniform_hierarchical"].idata_.posterior["eps_pop"].mean())
    ax = ax or plt.subplots(figsize=(5, 3.5))[1]
    for a, b in zip(e_u, e_h):
        ax.plot([0, 1], [a, b], color="0.6", lw=0.6)
    ax.scatter(np.zeros_like(e_u), e_u, s=10, label="unpooled")
    ax.scatter(np.ones_like(e_h), e_h, s=10, label="hierarchical")
    if truth is not None:
        ax.scatter(np.full_like(truth, 1.15), truth, s=10, marker="x", color="k", label="true")
    ax.axhline(pop, ls=":", color="C3", label="population ε")
    ax.set_xticks([0, 1]); ax.set_xticklabels(["unpooled", "hierarchical"])
    ax.set_ylabel("posterior mean ε per judge"); ax.legend(fontsize=7)
    return e_u, e_h

e_u, e_h = shrinkage_plot(table.attrs["fits"], truth=true_eps)
print(f"RMSE to the true rates: unpooled {np.sqrt(np.mean((e_u - true_eps)**2)):.3f}, "
      f"hierarchical {np.sqrt(np.mean((e_h - true_eps)**2)):.3f}")
"""),
        md("## llmfao: 124 crowd judges"),
        code("""
llmfao = bp.datasets.load("llmfao", ties="drop")
if QUICK:  # a few prompts only
    keep = list(llmfao.contexts[:3])
    frame = llmfao.to_frame()
    llmfao = bp.load_comparisons(
        frame[frame["context"].isin(keep)], judge="judge", context="context"
    )
llmfao
"""),
        code("""
table_l = bp.compare_models(llmfao, ["uniform", "uniform_hierarchical"], random_seed=SEED,
                            **SAMPLER)
print(table_l.attrs["message"])
table_l.drop(columns="warning")
"""),
        code("""
e_u, e_h = shrinkage_plot(table_l.attrs["fits"])
plt.title("llmfao judges");
"""),
        md("## Which verdicts are probably wrong?"),
        code("""
from bayes_pairwise.pymc_models.verdicts import most_likely_errors

fit = table_l.attrs["fits"]["uniform_hierarchical"]
verdicts = fit.verdict_errors(llmfao)
most_likely_errors(verdicts, per_judge=1).sort_values("p_error", ascending=False).head(10)
"""),
    ]
