"""Notebook 07: a real round-robin log at scale — GPT-4 judging QLoRA's OpenAssistant answers."""

NAME = "07_real_log_at_scale.ipynb"


def cells(md, code, setup):
    return [
        md("""
# A real log at scale: GPT-4 judging QLoRA's OpenAssistant answers

The bundled `qlora_oa_gpt4` log (MIT, from the QLoRA repository) is what real evaluation logs
look like: GPT-4 compared the answers of 7 systems to each of 953 OpenAssistant prompts, every
ordered pair, so each prompt is a round robin of 7 answers judged in **both orders** — 38,544
verdicts, 14.6 % of them ties, some pairs missing where GPT-4's review could not be parsed.

This notebook reads it the way the package is meant to be used on such a log:

1. what the log alone shows (S_com, the sharp bounds on the error rates);
2. the hard-truth model `positional_order`: one true order per prompt, summed out exactly, with
   tie rates by position (about 25 s, against about 400 s for a strength model on 6,671 answers:
   `docs/src/speed.md`);
3. each system's posterior rank, and which verdicts are most likely wrong;
4. whether the tie rates by position are needed (PSIS-LOO on contexts).
"""),
        code(setup("import arviz as az")),
        code("""
data = bp.datasets.load("qlora_oa_gpt4")
print(bp.datasets.info("qlora_oa_gpt4").description)
data
"""),
        md("""
## What the log alone shows

S_com, on the pairs decided in both orders (ties dropped, the paper's convention), reproduces
QLoRA's published 0.1573. Without gold labels a judge's error rates are not point-identified:
an error the judge repeats in both orders looks like a correct pair. The sharp bounds say how
far the log alone pins them down (the lower ends are the errors the log *forces*).
"""),
        code("""
dropped = bp.datasets.load("qlora_oa_gpt4", ties="drop")
s_com = bp.commutativity_score(dropped)
print(f"S_com {s_com:.4f}  ->  eps from S_com {float(bp.eps_from_scom(s_com)):.4f}")
bounds = bp.error_bounds(data, random_seed=SEED)[0]
for name, (lo, hi) in bounds.sharp.items():
    print(f"{name:10s} the log alone shows {lo:.4f} <= {name} <= {hi:.4f}")
"""),
        md("""
## The hard-truth model: one order per prompt

`PositionalOrder` reads each prompt's answers as having one true order (every order equally
likely a priori), shared by all the prompt's verdicts, and sums it out exactly (448 terms for 7
answers instead of 7! = 5,040 orders). NUTS then samples the judge's two error rates (better
answer shown first / second) and its tie rates — nothing per answer.
"""),
        code("""
m = bp.PositionalOrder(tie_positional=True, **SAMPLER).fit(data, random_seed=SEED)
names = ["eps_plus", "eps_minus", "tie_rate_plus", "tie_rate_minus"]
az.summary(m.idata_, var_names=names, kind="all", round_to=4)
"""),
        md("""
The rates sit inside the sharp bounds and near their lower ends, as a judge that errs
independently by verdict would put them. Each system's posterior rank within each prompt is
exact given the rates; pooled by name over the 953 prompts:
"""),
        code("""
ranks = m.ranks_by_name_
fig, ax = plt.subplots(figsize=(5, 3))
ax.barh(ranks.index[::-1], ranks["beats_share"][::-1], color="C0")
ax.set_xlabel("expected share of a prompt's other answers it truly beats")
ax.set_xlim(0, 1)
ranks
"""),
        md("""
## Which verdicts are most likely wrong?

A verdict for one answer over another is an error with the posterior probability that the
prompt's order puts the other above it (all the prompt's verdicts weigh in). Summed, these
probabilities give the expected number of wrong decided verdicts.
"""),
        code("""
from bayes_pairwise.pymc_models.verdicts import most_likely_errors

v = m.verdict_errors(data)
decided = v["p_error"].notna()
print(f"expected wrong verdicts: {v.loc[decided, 'p_error'].sum():,.0f} of {decided.sum():,} "
      f"decided ({v.loc[decided, 'p_error'].mean():.3f})")
fig, ax = plt.subplots(figsize=(5, 2.5))
ax.hist(v.loc[decided, "p_error"], bins=40, color="C1")
ax.set_yscale("log")
ax.set_xlabel("p_error of a decided verdict")
most_likely_errors(v, per_judge=5)
"""),
        md("""
## Does the log need tie rates by position?

GPT-4 ties more often when the better answer is shown second. PSIS-LOO compares one tie rate
with one per position, on the order models' unit, the prompt (all its verdicts left out
together). Where Pareto k says LOO is unreliable, the message is hedged and points to
`compare-models --kfold`, which refits without each fold of prompts.
"""),
        code("""
table = bp.compare_models(data, ["positional_order", "positional_order+tie_positional"],
                          random_seed=SEED, **SAMPLER)
print(table.attrs["message"])
table.drop(columns="warning")
"""),
        md("""
## What this log cannot show

* Errors GPT-4 makes in **both** orders of a pair (a hard pair that fools it whichever answer
  comes first) are invisible without gold labels; the rates above are lower bounds in that
  sense, and the caveats of `fit` and the cross-check say how large such errors could be on
  this design (`docs/src/what_a_log_can_show.md`).
* The order model assumes one true order per prompt; a strength model (`positional`) gives
  each answer a strength instead and costs about 400 s here, with the same error rates
  (`docs/src/speed.md`).
"""),
    ]
