"""Notebook 04: what your judge's error rate is, with and without gold labels (issue 7)."""

NAME = "04_judge_error_with_labels.ipynb"


def cells(md, code, setup):
    return [
        md("""
# What your judge's error rate is, with and without gold labels

A judge that is fooled by *hard* pairs in both presentation orders makes errors that are
correlated within a pair. Every ground-truth-free estimate (S_com, moments, Δ_S, the uniform and
positional models) reads such a pair as a reversed truth, so it reports error rates that are too
low, and no check on the verdicts alone can tell (`docs/src/gold_labels.md`). This notebook
shows the bias on synthetic data with hard pairs and how gold labels on 30% of the pairs
correct it: with the positional model conditioned on the labels, and with the pair-difficulty
model (`positional_difficulty`), which carries the labelled pairs' hard share over to the rest
(`docs/src/pair_difficulty.md`).
"""),
        code(setup("import numpy as np")),
        md("""
## A log with hard pairs

30 items, every pair once in each order, 15% ties, 20% hard pairs (error 0.6 in both orders),
easy error rates ε₊ = 0.10 (better item first) and ε₋ = 0.20 (second), gold labels on 30% of
the pairs. The *realised* rates below are what a perfect analysis of the whole log would report.
"""),
        code("""
sim = bp.simulate_hard_pairs(30, eps_plus=0.10, eps_minus=0.20, hard_share=0.2, eps_hard=0.6,
                             tie_rate=0.15, labelled=0.3, random_seed=1)
print(sim.describe())
realised = pd.Series({"eps_plus": sim.realised_eps_plus, "eps_minus": sim.realised_eps_minus})
realised
"""),
        md("""
## Four estimates of the same judge

* positional model, **no labels** (the ground-truth-free answer);
* positional model **conditioned on the labels** (`load_comparisons(..., truth="truth")`);
* **pair-difficulty** model with the labels;
* the **plain labelled rates** (`labelled_error_rates`, Wilson 95% intervals): no model, only the
  labelled 30%.

The Bayesian fits use NUTS (short chains in quick mode); the caveats each fit records are
printed with it.
"""),
        code("""
from bayes_pairwise.classical.descriptive import labelled_error_rates

fits = {
    "positional, no labels": bp.PositionalBias(**SAMPLER).fit(sim.data_unlabelled,
                                                               random_seed=SEED),
    "positional + labels": bp.PositionalBias(**SAMPLER).fit(sim.data, random_seed=SEED),
    "difficulty + labels": bp.PositionalDifficulty(**SAMPLER).fit(sim.data, random_seed=SEED),
}
rows = []
for name, m in fits.items():
    s = m.summary(strengths=False)
    for rate in ("eps_plus", "eps_minus"):
        rows.append({"estimate": name, "rate": rate, "mean": s.loc[rate, "mean"],
                     "lo": s.loc[rate].iloc[2], "hi": s.loc[rate].iloc[3]})
    print(f"{name}: caveats {[c.code for c in m.caveats_]}")
lab = labelled_error_rates(sim.data).iloc[0]
for rate in ("eps_plus", "eps_minus"):
    rows.append({"estimate": "plain labelled rates", "rate": rate, "mean": lab[rate],
                 "lo": lab[f"{rate}_lo"], "hi": lab[f"{rate}_hi"]})
table = pd.DataFrame(rows)
table["realised"] = table["rate"].map(realised)
table["covers"] = (table["lo"] <= table["realised"]) & (table["realised"] <= table["hi"])
table
"""),
        md("## The bias and its correction"),
        code("""
fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), sharey=True)
names = list(dict.fromkeys(table["estimate"]))
for ax, rate in zip(axes, ["eps_plus", "eps_minus"]):
    t = table[table["rate"] == rate].set_index("estimate").loc[names]
    y = np.arange(len(names))
    ax.errorbar(t["mean"], y, xerr=[t["mean"] - t["lo"], t["hi"] - t["mean"]], fmt="o",
                capsize=3)
    ax.axvline(realised[rate], color="k", ls="--", label="realised in the log")
    ax.set_title(rate.replace("eps_plus", "ε₊ (better first)").replace(
        "eps_minus", "ε₋ (better second)"))
    ax.set_yticks(y, names)
    ax.set_xlabel("error rate (mean, 94% HDI / Wilson 95%)")
axes[0].invert_yaxis()
axes[1].legend(loc="lower right")
fig.tight_layout()
"""),
        md("""
Without labels the positional model is low on both rates (by about 0.06 here; its ε₊ interval
misses the realised rate), and nothing in the verdicts flags it — only the recorded caveat
(`correlated_errors`) says so. Conditioning the positional model on labels for 30% of the pairs
moves it part of the way; the pair-difficulty model, which carries the labelled pairs' hard
share over to the unlabelled ones, lands on the realised rates and also reports how common hard
pairs are and how often they fool the judge (with wide intervals: with one verdict per order
only the whole-log rates are identified, `docs/src/pair_difficulty.md`).
"""),
        code("""
fits["difficulty + labels"].summary(strengths=False).loc[
    ["eps_plus_easy", "eps_minus_easy", "eps_hard", "hard_share", "tie_rate"]]
"""),
        md("""
## Without labels the difficulty model says it cannot know

Without labels and without repeated verdicts the hard share is not identified: the model warns
(`DesignWarning`), records the caveat `difficulty_not_identified`, and its numbers are
prior-driven. `on_unidentified="raise"` refuses instead. Its posterior mode is refused outright
(`DesignError`): the mode of a two-state mixture is not a reliable summary, so the
pair-difficulty models are fitted with NUTS.
"""),
        code("""
import warnings as _w

try:
    bp.PositionalDifficulty().fit(sim.data_unlabelled, method="map")
except bp.DesignError as err:
    print("MAP refused:", str(err)[:110], "...")
with _w.catch_warnings(record=True) as caught:
    _w.simplefilter("always")
    free = bp.PositionalDifficulty(**SAMPLER).fit(sim.data_unlabelled, random_seed=SEED)
print([str(w.message)[:80] + "..." for w in caught if w.category is bp.DesignWarning])
for c in free.caveats_:
    print(c.code, "-", c.text)
"""),
    ]
