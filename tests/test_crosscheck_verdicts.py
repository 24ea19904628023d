"""The verdict rule: a verdict rests on the error rates, never on the tie rate alone."""

from __future__ import annotations

import math
import re
from dataclasses import asdict

import pandas as pd
from crosscheck_kwargs import LEAN_MAP

from bayes_pairwise.crosscheck import Agreement, _verdicts


def _ag(quantity: str, overlap: bool | None, gap: float = 0.0) -> dict:
    return asdict(
        Agreement(
            judge="j",
            quantity=quantity,
            model="positional (MAP)",
            classical="moments (S_com, r₁)",
            classical_estimate=0.59,
            classical_lower=math.nan if overlap is None else 0.5,
            classical_upper=math.nan if overlap is None else 0.7,
            posterior_mean=0.45,
            posterior_lower=math.nan,
            posterior_upper=math.nan,
            overlap=overlap,
            gap=gap,
            difference=math.nan,
            difference_lower=math.nan,
            difference_upper=math.nan,
            primary=True,
            basis="MAP point",
        )
    )


def test_tie_rate_alone_gives_no_verdict() -> None:
    # seen on PRD (MAP): eps+ 0.453 vs 0.594 without a classical interval, the tie rates agree;
    # the old rule printed "AGREE, gap 0.000"
    ag = pd.DataFrame([_ag("eps_plus", None), _ag("eps_minus", None), _ag("tie_rate", True)])
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "NO VERDICT"
    assert math.isnan(v.gap)
    assert "ε₊, ε₋ has no interval" in v.text and "the tie rates agree" in v.text


def test_a_quantity_two_models_estimate_differently_is_named_by_model() -> None:
    """Seen on judging_the_judges (compare --fast): "tie rate 0.028 [...] vs observed ...; tie
    rate 0.029 [...] vs observed ..." — the uniform and the positional model's tie rates, two
    values without saying whose. Where they round alike the sentence says it once."""
    rows = [_ag("eps_plus", True), _ag("tie_rate", True), _ag("tie_rate", True)]
    rows[1] |= {"model": "uniform (Laplace approx.)", "posterior_mean": 0.028}
    rows[2] |= {"model": "positional (Laplace approx.)", "posterior_mean": 0.029}
    (v,) = _verdicts(pd.DataFrame(rows), ["j"], {})
    assert "tie rate (uniform, Laplace approx.) 0.028" in v.text
    assert "tie rate (positional, Laplace approx.) 0.029" in v.text
    assert "ε₊ (positional" not in v.text  # one model's ε₊: no name
    rows[2]["posterior_mean"] = 0.0281  # the same to three decimals: said once, unnamed
    (v,) = _verdicts(pd.DataFrame(rows), ["j"], {})
    assert v.text.count("tie rate 0.028 vs") == 1 and "(uniform" not in v.text
    # the same mean, different intervals (judging_the_judges' gemini-pro: 0.030 [0.020, 0.040]
    # and 0.030 [0.021, 0.041], printed twice without a name): named
    rows[1] |= {"posterior_lower": 0.020, "posterior_upper": 0.040}
    rows[2] |= {"posterior_lower": 0.021, "posterior_upper": 0.041}
    (v,) = _verdicts(pd.DataFrame(rows), ["j"], {})
    assert "tie rate (uniform, Laplace approx.) 0.028 [0.020, 0.040]" in v.text
    assert "tie rate (positional, Laplace approx.) 0.028 [0.021, 0.041]" in v.text
    rows[2] |= {"posterior_lower": 0.0201, "posterior_upper": 0.0401}  # printed alike: once
    (v,) = _verdicts(pd.DataFrame(rows), ["j"], {})
    assert v.text.count("tie rate 0.028 [0.020, 0.040] vs") == 1 and "(uniform" not in v.text


def test_a_tie_rate_without_any_error_rate_row_gives_no_verdict_and_says_why() -> None:
    """Seen on llmfao (124 crowd judges, one order per pair): no classical error rate at all,
    only the tie rate — the verdict said AGREE from the tie rate alone."""
    ag = pd.DataFrame([_ag("tie_rate", True)])
    skipped = {
        "j": {
            "S_com": "no pair shown in both orders",
            "moments": "no pair shown in both orders",
            "Δ_S": "no complete round-robin",
            "biased-BT spread search": "not strongly connected",
        }
    }
    (v,) = _verdicts(ag, ["j"], {}, skipped)
    assert v.verdict == "NO VERDICT" and math.isnan(v.gap)
    assert (
        "no classical estimate of ε, ε₊ or ε₋ for this judge (S_com, moments: no pair shown "
        "in both orders; Δ_S: no complete round-robin); the tie rates agree." in v.text
    )
    assert "spread" not in v.text  # not an error-rate estimator


def test_unassessed_rate_is_named_next_to_a_verdict() -> None:
    ag = pd.DataFrame(
        [_ag("eps_plus", None), _ag("eps_minus", False, gap=0.1), _ag("tie_rate", True)]
    )
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "DISAGREE" and v.gap == 0.1
    assert v.text.rstrip(".").endswith("ε₊ not assessed (no classical interval)")


def test_a_row_shared_by_two_models_is_said_once() -> None:
    # compare fits uniform and positional: both carry the same tie-rate comparison
    ag = pd.DataFrame([_ag("tie_rate", True), _ag("tie_rate", True), _ag("eps_plus", True)])
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "AGREE"
    assert v.text.count("tie rate") == 1
    assert "(MAP point vs classical 94% interval)" in v.text


def test_a_position_biased_judge_keeps_its_uniform_rate_and_says_why_s_com_gives_none() -> None:
    """ε₊ 0.55, ε₋ 0.05: S_com is above 1/2, so the closed form has no uniform ε. The uniform
    model's ε used to vanish from the headline and the verdict (seen on judging_the_judges'
    claude-3-haiku); now it is shown, not assessed, with the reason computed from the log —
    beside ε₊ and ε₋, and alone (a NO VERDICT that names the reason)."""
    import numpy as np

    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(30, eps_plus=0.55, eps_minus=0.05, random_seed=4)
    kw = dict(method="map", delta_s=False, biased_bt_spread=False, leaderboard=False)
    cc = crosscheck(sim.data, **kw)
    (judge,) = cc.classical.scom
    s_com = float(cc.classical.scom[judge].s_com)
    assert s_com > 0.5 and np.isnan(cc.classical.scom[judge].eps)
    row = cc.agreement[cc.agreement.quantity == "eps"].iloc[0]
    assert row.overlap is None and row.basis.startswith("no classical estimate")
    assert 0.2 < row.posterior_mean < 0.5  # the uniform model's ε is kept
    v = cc.verdicts.iloc[0]
    assert v.verdict in ("AGREE", "DISAGREE")  # rests on ε₊ and ε₋
    assert (
        f"ε {row.posterior_mean:.3f} not assessed: S_com closed form gives no estimate "
        f"(S_com = {s_com:.3f} > 1/2, which no uniform ε gives" in v.text
    )
    head = cc.headline().iloc[0]
    assert head["ε classical"] == "none (S_com closed form; the verdict says why)"
    # the uniform model alone: no verdict on the error rates, with the same reason
    alone = crosscheck(sim.data, models=("uniform",), **kw).verdicts.iloc[0]
    assert alone.verdict == "NO VERDICT"
    assert f"S_com = {s_com:.3f} > 1/2" in alone.text and "no interval" not in alone.text
    assert "the judge favours one position" in alone.text
    # the same verdicts where the order was not recorded (an arena layout: 'first' is
    # model_a): the reason names the nominal label, not a position (chatbot_arena's
    # gpt-3.5-turbo read "the judge favours one position" beside the caveat that no position
    # is recorded)
    from bayes_pairwise.data import load_comparisons

    frame = sim.frame.rename(columns={"first": "model_a", "second": "model_b"})
    frame["winner"] = np.where(frame["outcome"] == "first", "model_a", "model_b")
    arena = load_comparisons(frame.drop(columns=["outcome"]))
    nominal = crosscheck(arena, models=("uniform",), **kw).verdicts.iloc[0]
    assert f"S_com = {s_com:.3f} > 1/2" in nominal.text
    assert "favours one side of the nominal first/second label" in nominal.text
    assert "favours one position" not in nominal.text


def test_where_the_order_was_not_recorded_no_position_rate_is_the_verdicts_basis() -> None:
    """A Chatbot Arena layout (model_a / model_b / winner): 'first' is a nominal label, so ε₊
    and ε₋ mean nothing. They used to decide the verdict (compare chatbot_arena: DISAGREE on
    ε₋ for every judge); now ε and the tie rate do, and the sentence says why."""
    import numpy as np

    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(12, eps=0.15, repeats=2, random_seed=1)
    frame = sim.frame.rename(columns={"first": "model_a", "second": "model_b"})
    frame["winner"] = np.where(frame["outcome"] == "first", "model_a", "model_b")
    arena = load_comparisons(frame.drop(columns=["outcome"]))
    assert not arena.order_recorded and sim.data.order_recorded
    kw = dict(method="map", delta_s=False, biased_bt_spread=False, leaderboard=False)
    cc = crosscheck(arena, **kw)
    ag = cc.agreement
    assert not ag[ag.quantity.isin(["eps_plus", "eps_minus"])].primary.any()
    assert ag[ag.quantity == "eps"].primary.all()
    v = cc.verdicts.iloc[0]
    assert "ε₊" not in v.text.split(" — ")[1].split(". Basis")[0]  # not among the compared
    assert "the presentation order was not recorded" in v.text
    # what the log shows reads ε alone, as the basis does: "ε₊ 0.400 … ε₊ ≥ 0.375" was read
    # from the nominal label (compare chatbot_arena)
    shows = cc.what_it_shows(v.judge)
    assert shows["reads_as"].startswith(f"ε {cc.fits['uniform'].summary().loc['eps', 'mean']:.3f}")
    assert "ε₊" not in shows["reads_as"] and "ε₋" not in shows["reads_as"]
    assert list(shows["bounds"]) == ["eps"]
    assert "ε₊" not in cc.headline().iloc[0]["sharp bounds"]
    # the positional model alone (the report's default): no verdict, and the reason is the
    # order, not a missing classical estimate
    alone = crosscheck(arena, models=("positional",), **kw).verdicts.iloc[0]
    assert alone.verdict == "NO VERDICT"
    assert "the rates compared (ε₊, ε₋, ε₊ + ε₋) are not the verdict's basis here" in alone.text
    assert "no classical estimate" not in alone.text
    assert "the uniform model's ε needs no order" in alone.text
    # the same log with its order recorded: ε₊ and ε₋ are compared as before
    rec = crosscheck(sim.data, **kw).agreement
    assert set(rec[rec.primary].quantity) >= {"eps_plus", "eps_minus"}


def test_the_headline_shows_the_comparison_that_decides_and_no_rate_is_called_unassessed_twice():
    """PRD (MAP): ε is compared with S_com and with the Δ_S grid. For claude the S_com row
    disagrees (the verdict's DISAGREE on ε) while the grid agrees; the headline's one ε cell
    showed the grid's, so the table said agree beside a DISAGREE. For bard S_com gives no
    value (S_com > 1/2) and its ties come in pairs, so the grid is shown but is not the basis."""
    import bayes_pairwise as bp
    from bayes_pairwise.crosscheck import crosscheck

    data = bp.datasets.load("prd_vicuna80")
    cc = crosscheck(data, method="map", biased_bt_spread=False, leaderboard=False)
    ag = cc.agreement[cc.agreement.primary & (cc.agreement.quantity == "eps")]
    head = cc.headline().set_index("judge")
    for judge, rows in ag.groupby("judge"):
        assessed = rows[rows.overlap.notna()]
        if not len(assessed):
            continue
        worst = assessed.loc[assessed.gap.astype(float).idxmax()]
        if worst.gap > 0:  # both agree (gap 0): either may be shown
            assert head.loc[judge, "ε classical"].startswith(f"{worst.classical_estimate:.3f}")
        text = cc.verdicts.set_index("judge").loc[judge, "text"]
        assert not re.search(r"ε [0-9.]+ not assessed", text)  # assessed by another method
    claude = ag[ag.judge == "claude"]
    assert (claude.overlap == False).any() and (claude.overlap == True).any()  # noqa: E712
    assert "S_com closed form" in head.loc["claude", "ε classical"]
    # bard's ties come in pairs (z_pair 11.9): the grid (ties at random) stays, not the basis;
    # S_com gives no ε (above 1/2, rescaled or on the decided pairs), and no rate is called
    # "not assessed" twice
    everything = cc.agreement[(cc.agreement.judge == "bard") & (cc.agreement.quantity == "eps")]
    grid = everything[everything.classical == "Δ_S grid (1-D)"]
    assert len(grid) == 1 and not grid.primary.iloc[0]
    bard_text = cc.verdicts.set_index("judge").loc["bard", "text"]
    assert "ties come in pairs" in bard_text
    assert not re.search(r"ε [0-9.]+ not assessed", bard_text)
    # vicuna-13b picks the same position in both orders of a pair more often than any rates
    # allow (S_com 0.621 above r₁² + (1 − r₁)² = 0.518): its DISAGREE says that no ε₊ and ε₋
    # describe it, and the caveat says why; no other judge's verdict says so
    texts = cc.verdicts.set_index("judge")["text"]
    said = {j for j, t in texts.items() if "No ε₊ and ε₋ describe this judge" in t}
    assert said == {"vicuna-13b"}
    assert "its S_com 0.621 is above the 0.518" in texts["vicuna-13b"]
    assert any(c.startswith("No error rates describe") for c in cc.caveats)


def test_too_few_pairs_in_both_orders_decide_no_verdict_but_labels_do() -> None:
    """evalica's 30-verdict food log read AGREE beside the caveat "too few verdicts to say"
    (7 pairs in both orders): ε 0.219 [0.094, 0.356] against S_com's [-0.053, 0.666] agrees
    with almost anything. Below MIN_PAIRS_TO_SAY pairs the intervals are still compared and
    shown, but the verdict is NO VERDICT with the counts; 10 pairs restore it, and so do gold
    labels (the labelled rates need no pair in both orders)."""
    from bayes_pairwise.conventions import MIN_PAIRS_TO_SAY
    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.simulate import simulate_round_robin

    kw = {"models": ("uniform",), **LEAN_MAP}
    sim = simulate_round_robin(4, eps=0.2, random_seed=1)  # 6 pairs, both orders
    assert MIN_PAIRS_TO_SAY > 6
    cc4 = crosscheck(sim.data, **kw)
    v = cc4.verdicts.iloc[0]
    assert v.verdict == "NO VERDICT" and math.isnan(v.gap)
    # the "reads as" column does not call the point a lower bound either
    reads = cc4.what_it_shows("judge")["reads_as"]
    assert "≥" not in reads and "lower bound" not in reads
    assert reads.endswith(
        "not a finding: 6 pairs seen in both orders, fewer than the 10 S_com and the moments need"
    )
    assert cc4.headline().iloc[0]["reads as"] == reads
    assert cc4.to_dict()["short_of_pairs"] == {
        "judge": {"n_verdicts": 12, "pairs_in_both_orders": 6}
    }
    assert "6 pairs seen in both orders in 12 verdicts, fewer than the 10 S_com" in v.text
    assert re.search(r"ε \d\.\d{3} vs S_com closed form [\d.]+ \[[-\d.]+, [-\d.]+\]", v.text)
    assert "AGREE" not in v.text and "DISAGREE" not in v.text
    five = simulate_round_robin(5, eps=0.2, random_seed=1)  # 10 pairs: a verdict again
    cc5 = crosscheck(five.data, **kw)
    assert cc5.verdicts.iloc[0].verdict in ("AGREE", "DISAGREE")
    assert "≥" in cc5.what_it_shows("judge")["reads_as"] and not cc5.short_of_pairs
    # gold labels on the 4-item log: the labelled rates decide, the pair count does not
    rank = {item: k for k, item in enumerate(sim.true_order)}
    frame = sim.frame.assign(
        truth=[
            a if rank[a] < rank[b] else b
            for a, b in zip(sim.frame["first"], sim.frame["second"], strict=True)
        ]
    )
    labelled = load_comparisons(frame, truth="truth")
    assert labelled.has_truth
    lab = crosscheck(labelled, **kw)
    assert lab.verdicts.iloc[0].verdict in ("AGREE", "DISAGREE")
    assert "= " in lab.what_it_shows("judge")["reads_as"]  # the labelled rate stands
    assert "gold labels inform its rates: they stand" in next(
        c for c in lab.caveats if c.startswith("Too few verdicts")
    )
    # one order per pair, 30 round robins of 6: no pair in both orders, but the Δ_S grid's
    # interval resamples round robins: its verdict stands (here the MAP's joint mode, ε 0.05,
    # against the grid's 0.12 [0.085, 0.195] at a true 0.15: DISAGREE, a finding)
    many = simulate_round_robin(6, eps=0.15, n_contexts=30, random_seed=2).frame
    one = many[[a < b for a, b in zip(many["first"], many["second"], strict=True)]]
    one_order = load_comparisons(one, context="context")
    cc1 = crosscheck(one_order, **{**kw, "delta_s": True})
    v = cc1.verdicts.iloc[0]
    assert v.verdict == "DISAGREE" and "Δ_S grid" in v.text
    assert not cc1.short_of_pairs and "not a finding" not in cc1.what_it_shows("judge")["reads_as"]


def test_intervals_apart_by_less_than_the_tolerance_say_so() -> None:
    """PRD claude (compare --fast): ε 0.186 [0.167, 0.205] vs S_com 0.240 [0.206, 0.274] read
    as plain agreement; the intervals are 0.001 apart, which AGREEMENT_TOLERANCE (0.005, the
    grids' resolution) counts as overlapping. The sentence now says so."""
    from bayes_pairwise.conventions import AGREEMENT_TOLERANCE

    row = _ag("eps_plus", True, gap=0.001)
    (v,) = _verdicts(pd.DataFrame([row]), ["j"], {})
    assert v.verdict == "AGREE"
    assert f"(apart by 0.001, within the {AGREEMENT_TOLERANCE:g} tolerance)" in v.text
    (v,) = _verdicts(pd.DataFrame([_ag("eps_plus", True, gap=0.0)]), ["j"], {})
    assert "apart by" not in v.text


def test_reads_as_states_every_rate_the_headline_shows() -> None:
    """judging_the_judges' claude-3-haiku (S_com above 1/2: it favours one position) read
    "ε ≥ 0.287 — lower bound" — uniform's ε alone, which the verdict does not assess — while
    the headline beside it showed positional's ε₊ 0.517 and ε₋ 0.052. The reading now states
    each rate the headline shows, from the fit that gives it, with the headline's numbers."""
    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(12, eps_plus=0.3, eps_minus=0.05, random_seed=4)
    cc = crosscheck(sim.data, models=("uniform", "positional"), **LEAN_MAP)
    head = cc.headline().iloc[0]
    reads = head["reads as"]
    for sym in ("ε", "ε₊", "ε₋"):
        value = head[cc.estimate_column(sym)]
        assert f"{sym} {value}" in reads, (sym, value, reads)
        # the point is read under independent errors; what the log shows is the sharp bound
        lo = cc.bounds["judge"].bounds[{"ε": "eps", "ε₊": "eps_plus", "ε₋": "eps_minus"}[sym]][0]
        assert f"{sym} ≥ {lo:.3f}" in reads, (sym, lo, reads)
    assert "if errors are independent across orders; the log alone shows" in reads
    assert reads.endswith("invisible without labels, so the error rates can be higher")


def test_the_sum_of_the_position_rates_is_assessed_on_one_round_robin() -> None:
    """The paper's design, one round robin in both orders: the 2-D grid has no resampling unit
    and no interval, so ε₊ + ε₋ read 'not assessed (no classical interval)'. The moments' sum,
    with its own delta-method interval, assesses it; the grid's row stays beside it."""
    import numpy as np
    import pytest

    from bayes_pairwise.classical.descriptive import positional_moments
    from bayes_pairwise.crosscheck import METHOD_GRID_SUM, METHOD_MOMENTS, crosscheck
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(40, eps_plus=0.05, eps_minus=0.25, random_seed=3)
    cc = crosscheck(
        sim.data,
        models=("positional",),
        method="map",
        leaderboard=False,
        biased_bt_spread=False,
        delta_s=False,
    )
    ag = cc.agreement[(cc.agreement.quantity == "eps_sum") & cc.agreement.primary]
    rows = ag.set_index("classical")
    m = positional_moments(sim.data)
    assert rows.loc[METHOD_MOMENTS, "classical_estimate"] == pytest.approx(m.eps_sum)
    half = rows.loc[METHOD_MOMENTS, "classical_upper"] - m.eps_sum
    assert half == pytest.approx(1.881 * m.eps_sum_se, rel=1e-3)  # 94 % normal
    assert bool(rows.loc[METHOD_MOMENTS, "overlap"])
    assert np.isnan(rows.loc[METHOD_GRID_SUM, "classical_lower"])  # one round robin
    v = cc.verdicts.iloc[0]
    assert f"ε₊ + ε₋ {rows.loc[METHOD_MOMENTS, 'posterior_mean']:.3f} vs moments" in v.text
    assert "ε₊ + ε₋ not assessed" not in v.text
    assert cc.headline().iloc[0]["ε₊ + ε₋ classical"].endswith("(moments)")


def test_the_headline_puts_every_rate_before_the_verdict_whichever_judge_has_it() -> None:
    """The headline's columns followed the first judge's rates: where that judge had no ε
    (llmfao's first crowd worker), ε's columns landed after the caveats for every judge."""
    import numpy as np
    import pandas as pd

    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.simulate import simulate_round_robin

    # judge "a": each pair in one order only (no S_com, no moments); judge "b": both orders
    one = simulate_round_robin(6, eps=0.1, k_plus=1, k_minus=0, n_contexts=4, random_seed=1)
    both = simulate_round_robin(6, eps=0.1, n_contexts=4, random_seed=2)
    frame = pd.concat([one.frame.assign(judge="a"), both.frame.assign(judge="b")])
    data = load_comparisons(frame, judge="judge", context="context")
    cc = crosscheck(
        data,
        models=("uniform",),
        method="map",
        leaderboard=False,
        biased_bt_spread=False,
        delta_s=False,
        delta_s_2d=False,
    )
    head = cc.headline()
    cols = list(head.columns)
    assert head.judge.tolist() == ["a", "b"]
    assert np.isnan(pd.to_numeric(head.set_index("judge").loc["a", "ε MAP"], errors="coerce"))
    assert cols.index("ε MAP") < cols.index("ε classical") < cols.index("verdict")
    assert cols.index("verdict") < cols.index("caveats")


def test_no_verdict_names_the_classical_reason_when_the_models_were_fitted():
    """LLMFAO's judge '2': no tie and no pair in both orders, so no row to compare at all.
    Its NO VERDICT advised "fit the uniform or positional model", which the cross-check had
    just fitted; it now says which classical estimators gave nothing and why."""
    import pandas as pd

    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons

    rows = [("a", f"x{k}", f"y{k}", "first" if k % 3 else "second") for k in range(12)]
    rows += [("b", f"x{k}", f"y{k}", "first") for k in range(12)]
    rows += [("b", f"y{k}", f"x{k}", "second") for k in range(12)]
    data = load_comparisons(pd.DataFrame(rows, columns=["judge", "first", "second", "outcome"]))
    cc = crosscheck(data, models=("uniform",), **LEAN_MAP)
    text = cc.verdicts.set_index("judge").loc["a", "text"]
    assert text.startswith("a: NO VERDICT — no classical estimate of ε, ε₊ or ε₋ for this judge (")
    assert "saw none of its 12 pair(s) in both orders" in text
    assert "fit the uniform or positional model" not in text
    none = crosscheck(data, models=(), **LEAN_MAP).verdicts.set_index("judge").loc["b", "text"]
    assert "no model estimate has a classical counterpart here" in none
