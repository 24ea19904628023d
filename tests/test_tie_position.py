"""Ties that depend on where the better text is shown (the real QLoRA GPT-4 log's ties do).

The check compares the first-position rate of the decided verdict in pairs tied in one order
only with that of pairs decided in both orders; the moments on the latter need no tie
rescaling. On simulated logs with known tie rates by position: the check stays quiet when the
tie rate does not depend on position, fires when it does, and the decided-pairs moments recover
the rates where the rescaled moments do not. The cross-check then rests its ε₊/ε₋ verdict on
the decided-pairs moments and says why; the models' caveats say it too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise.caveats import ties_depend_on_position
from bayes_pairwise.classical.descriptive import (
    BASIS_DECIDED,
    descriptive_by_judge,
    positional_moments,
    tie_position_check,
)
from bayes_pairwise.errors import DesignError, TieRescalingWarning
from bayes_pairwise.simulate import simulate_hard_pairs

EPS_PLUS, EPS_MINUS = 0.05, 0.20


def _log(
    tau_plus: float, tau_minus: float, seed: int, *, n_contexts: int = 150, sigma: float = 1.5
):
    """Round robins of 8 (both orders once), ε₊ 0.05, ε₋ 0.2, no hard pairs, no labels; a
    verdict is a tie with τ₊ when the better text is shown first, τ₋ when second. ``sigma``:
    the strengths' spread (50: a hard truth, one total order per context)."""
    sim = simulate_hard_pairs(
        8,
        eps_plus=EPS_PLUS,
        eps_minus=EPS_MINUS,
        hard_share=0.0,
        tie_rate=0.0,
        labelled=0.0,
        n_contexts=n_contexts,
        strength_sigma=sigma,
        random_seed=seed,
    )
    rng = np.random.default_rng(seed + 1000)
    frame = sim.frame.drop(columns=["truth"]).copy()
    tau = np.where(sim.better_first, tau_plus, tau_minus)
    frame.loc[rng.random(len(frame)) < tau, "outcome"] = "tie"
    return bp.load_comparisons(frame, context="context", ties="model")


def _cross_check(data, model: str, **kw):
    """A MAP cross-check of one model with the classical rows only (no grids, no strengths
    unless ``kw`` turns them on)."""
    from bayes_pairwise.crosscheck import crosscheck

    settings = {
        "method": "map",
        "random_seed": 0,
        "delta_s": False,
        "delta_s_2d": False,
        "biased_bt_spread": False,
        "strengths": False,
        "leaderboard": False,
        "diagnostics": False,
    }
    return crosscheck(data, models=(model,), **{**settings, **kw})


def _by_hand(data):
    """(n_one_tie, r1_one_tie, n_both, r1_both) from the verdict rows, pandas only."""
    df = data.to_frame()
    a = np.where(df["first"] < df["second"], df["first"], df["second"])
    b = np.where(df["first"] < df["second"], df["second"], df["first"])
    df = df.assign(a=a, b=b, a_first=df["first"].to_numpy() == a)
    one, both = [], []
    for _, grp in df.groupby(["context", "a", "b"]):
        o1, o2 = grp[grp.a_first], grp[~grp.a_first]
        if not len(o1) or not len(o2):
            continue
        t1, t2 = (o1.outcome == "tie").all(), (o2.outcome == "tie").all()
        dec = grp[grp.outcome != "tie"]
        if t1 != t2:
            one.append((dec.outcome == "first").to_numpy())
        elif not t1:
            both.append((dec.outcome == "first").to_numpy())
    r1 = [float(np.concatenate(x).mean()) if x else np.nan for x in (one, both)]
    return len(one), r1[0], len(both), r1[1]


def test_the_check_counts_what_the_verdicts_say():
    data = _log(0.1, 0.3, seed=1, n_contexts=20)
    chk = tie_position_check(data)
    n_one, r_one, n_both, r_both = _by_hand(data)
    assert (chk.n_one_tie, chk.n_both) == (n_one, n_both)
    assert chk.r1_one_tie == pytest.approx(r_one, rel=1e-12)
    assert chk.r1_both == pytest.approx(r_both, rel=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_quiet_when_ties_do_not_depend_on_position(seed):
    data = _log(0.15, 0.15, seed=seed)
    chk = tie_position_check(data)
    assert abs(chk.z) < 3 and not chk.depends
    assert ties_depend_on_position(data) is None
    # both moment estimators are right here
    m = positional_moments(data)
    for est, se in ((m.eps_plus, m.eps_plus_se), (chk.eps_plus, chk.eps_plus_se)):
        assert abs(est - EPS_PLUS) < 3.5 * se
    for est, se in ((m.eps_minus, m.eps_minus_se), (chk.eps_minus, chk.eps_minus_se)):
        assert abs(est - EPS_MINUS) < 3.5 * se


def _null_round_robins(rng, n_items: int, n_contexts: int, tau: float) -> pd.DataFrame:
    """Round robins (every ordered pair once, a0 best), ε₊ 0.05, ε₋ 0.2, every verdict a tie
    with probability τ whichever text is better: the null of the tie check."""
    rows = []
    for c in range(n_contexts):
        for i in range(n_items):
            for j in range(n_items):
                if i == j:
                    continue
                if rng.random() < tau:
                    out = "tie"
                else:
                    right = rng.random() >= (EPS_PLUS if i < j else EPS_MINUS)
                    out = "first" if (i < j) == right else "second"
                rows.append((f"c{c}", f"a{i}", f"a{j}", out))
    return pd.DataFrame(rows, columns=["context", "first", "second", "outcome"])


def test_the_check_is_calibrated_under_its_null_on_small_logs():
    """Ties that do not depend on position, 400 logs of 6 round robins of 5 (τ 0.15): z has sd
    about 1 and |z| ≥ 3 in about 0.3 % of the logs. The variance is taken under the null (one
    pooled share): around each group's own share, a group whose verdicts all pick one side
    has variance 0; before, these logs read sd 1.48 and 6 of 400 fired (15 % of single 5-item
    round robins did, where the check now has too few pairs to test)."""
    zs = []
    for seed in range(400):
        frame = _null_round_robins(np.random.default_rng(seed), 5, 6, 0.15)
        zs.append(tie_position_check(bp.load_comparisons(frame, context="context")).z)
    zs = np.asarray(zs)
    tested = zs[np.isfinite(zs)]
    assert tested.size > 360  # the rest: fewer than MIN_PAIRS_TEST pairs in a group
    assert np.sum(np.abs(tested) >= 3) <= 3  # nominal 0.27 %: 1.0 of 385
    assert 0.85 < np.std(tested) < 1.15 and abs(np.mean(tested)) < 0.15


def test_too_few_pairs_are_not_tested():
    """evalica's food log: 2 pairs tied in one order only, both decided for the second text.
    Below MIN_PAIRS_TEST pairs in a group there is no z and no caveat, and the summary
    says why."""
    from bayes_pairwise.classical.descriptive import MIN_PAIRS_TEST

    rows = [("a", "b", "tie"), ("b", "a", "second"), ("c", "d", "second"), ("d", "c", "tie")]
    rows += [(f"x{k}", f"y{k}", "first") for k in range(5)]  # decided in both orders: 3
    rows += [(f"y{k}", f"x{k}", "second" if k < 3 else "first") for k in range(5)]  # agree
    frame = pd.DataFrame(rows, columns=["first", "second", "outcome"])
    data = bp.load_comparisons(frame)
    chk = tie_position_check(data)
    assert chk.n_one_tie == 2 < MIN_PAIRS_TEST and chk.r1_one_tie in (0.0, 1.0)
    assert np.isnan(chk.z) and not chk.depends
    assert "too few to test" in chk.summary()
    assert ties_depend_on_position(data) is None


@pytest.mark.parametrize("seed", [3, 4])
def test_fires_when_ties_follow_the_better_texts_position_and_the_decided_moments_hold(seed):
    data = _log(0.08, 0.30, seed=seed)
    chk = tie_position_check(data)
    assert chk.depends and chk.z > 3  # more ties when the better text is shown second
    assert "more frequent when the better text is shown second" in chk.summary()
    # the decided-pairs moments recover the rates; the rescaled ones read ε₊ far too low
    assert abs(chk.eps_plus - EPS_PLUS) < 3.5 * chk.eps_plus_se
    assert abs(chk.eps_minus - EPS_MINUS) < 3.5 * chk.eps_minus_se
    m = positional_moments(data)
    assert EPS_PLUS - m.eps_plus > 5 * m.eps_plus_se
    cav = ties_depend_on_position(data)
    assert cav is not None and cav.code == "ties_depend_on_position"
    assert f"ε₊ {chk.eps_plus:.3f}" in cav.text and f"z = {chk.z:.1f}" in cav.text


def test_caveats_take_the_checks_already_computed(monkeypatch):
    """The cross-check hands its per-judge checks to the caveats instead of a pass per kind."""
    import bayes_pairwise.caveats as caveats

    data = _log(0.08, 0.30, seed=3, n_contexts=60)
    want = caveats.ties_depend_on_position(data)
    checks = {"judge": tie_position_check(data)}

    def _no_second_pass(*args, **kwargs):
        raise AssertionError("tie_position_check run again")

    monkeypatch.setattr(caveats, "tie_position_check", _no_second_pass)
    assert caveats.ties_depend_on_position(data, checks=checks) == want
    found = caveats.caveats_for(
        data, model_kind="classical", test_correlation=False, identified=("", ""),
        tie_checks=checks,
    )  # fmt: skip
    assert want in found


@pytest.mark.slow  # NUTS fits / a CLI cross-check of three models: the slow run
def test_loo_prefers_tie_rates_by_position_where_the_log_has_them():
    """The order models compare by PSIS-LOO on their unit, the context: with ties at τ₊ 0.05
    / τ₋ 0.35 the tie rates by position win clearly; units and observations must match."""
    import copy
    from types import SimpleNamespace

    from bayes_pairwise.model_checking import _same_observations, compare_fitted, compare_models

    data = _log(0.05, 0.35, seed=7, n_contexts=60, sigma=50.0)
    kw = {"draws": 300, "tune": 300, "chains": 2}
    one = bp.PositionalOrder(**kw).fit(data, random_seed=1)
    both = bp.PositionalOrder(tie_positional=True, **kw).fit(data, random_seed=1)
    table = compare_models(data, [one, both])
    assert table.attrs["unit"] == "context" and "one context" in table.attrs["unit_text"]
    best = table.iloc[0]
    assert best["model"] == "positional_order+tie_positional" and bool(best["preferred"])
    assert table.iloc[1]["elpd_diff"] > 4 * table.iloc[1]["dse"]
    other = copy.deepcopy(one)
    other.idata_.constant_data["pair_wins"].values[0, 0] += 1
    with pytest.raises(DesignError, match="different observations"):
        compare_fitted({"a": one, "b": other})
    pair_rows = SimpleNamespace(observed_name="wins")
    with pytest.raises(DesignError, match="different observation units"):
        _same_observations({"order": one, "strength": pair_rows})


def test_the_cross_check_rests_on_the_decided_moments_and_says_why():
    from bayes_pairwise.crosscheck import METHOD_MOMENTS, METHOD_MOMENTS_DECIDED

    data = _log(0.08, 0.30, seed=5, n_contexts=100)
    cc = _cross_check(data, "positional")
    chk = cc.classical.tie_position["judge"]
    assert chk.depends
    ag = cc.agreement.set_index(["quantity", "classical"])
    for q in ("eps_plus", "eps_minus"):
        assert bool(ag.loc[(q, METHOD_MOMENTS_DECIDED), "primary"])
        assert not bool(ag.loc[(q, METHOD_MOMENTS), "primary"])
    rows = cc.table[(cc.table.method == METHOD_MOMENTS_DECIDED)].set_index("quantity")
    assert rows.loc["eps_plus", "estimate"] == pytest.approx(chk.eps_plus)
    text = " ".join(cc.verdicts["text"])
    assert "Basis for ε, ε₊, ε₋ and ε₊ + ε₋: S_com and the moments on the pairs decided" in text
    # ε₊ + ε₋ of those moments, with its delta-method interval, is the basis for the sum too
    assert bool(ag.loc[("eps_sum", METHOD_MOMENTS_DECIDED), "primary"])
    assert rows.loc["eps_sum", "estimate"] == pytest.approx(chk.eps_plus + chk.eps_minus)
    assert 0 < chk.eps_sum_se < chk.eps_plus_se + chk.eps_minus_se
    assert any("Ties depend on where the better text is shown" in c for c in cc.caveats)
    # the estimators' own warning about it is not repeated: the table's rows say it
    said = [w for ws in cc.warnings.values() for w in ws]
    assert not any("the rescaling for the tie share does not hold" in w for w in said)
    # the model's own caveats say the same (fit's output)
    fit = cc.fits["positional"]
    assert "ties_depend_on_position" in [c.code for c in fit.caveats_]


def test_no_decided_rows_where_ties_do_not_depend_on_position():
    from bayes_pairwise.crosscheck import METHOD_MOMENTS_DECIDED

    data = _log(0.15, 0.15, seed=6, n_contexts=60)
    cc = _cross_check(data, "uniform")
    assert not cc.classical.tie_position["judge"].depends
    assert not (cc.table.method == METHOD_MOMENTS_DECIDED).any()
    assert not any("Ties depend on where" in c for c in cc.caveats)


def test_the_real_qlora_log_ties_depend_on_position():
    """The bundled real log (38,544 GPT-4 verdicts): 2,857 pairs tied in one order only, whose
    decided verdict picks the first-shown answer 72.8 % of the time against 55.4 % in the
    14,450 pairs decided in both orders; the decided-pairs moments give ε₊ 0.028, ε₋ 0.137 —
    beside the long NUTS run's 0.0246 and 0.1384 — where the rescaled moments read ε₊ < 0."""
    data = bp.datasets.load("qlora_oa_gpt4", ties="model")
    chk = tie_position_check(data)
    assert (chk.n_one_tie, chk.n_both) == (2857, 14450)
    assert chk.r1_one_tie == pytest.approx(0.7284, abs=5e-4)
    assert chk.r1_both == pytest.approx(0.5542, abs=5e-4)
    assert chk.z > 15
    assert chk.eps_plus == pytest.approx(0.0283, abs=5e-4)
    assert chk.eps_minus == pytest.approx(0.1367, abs=5e-4)
    # the single-judge estimators keep their rescaled value and say which rates answer
    said = "-0.0069 rescaled, 0.0283 on the pairs decided"
    with pytest.warns(bp.TieRescalingWarning, match=said):
        assert positional_moments(data).eps_plus < 0
    from bayes_pairwise.classical.descriptive import estimate_eps_scom

    with pytest.warns(bp.TieRescalingWarning, match="eps from S_com 0.0728, 0.0861"):
        assert estimate_eps_scom(data).eps == pytest.approx(0.0728, abs=5e-4)
    assert pd.notna(chk.eps_plus_se) and chk.eps_plus_se < 0.002
    # the Python table carries both and says which answers (the cross-check's and estimate's)
    from bayes_pairwise.classical.descriptive import BASIS_DECIDED, descriptive_by_judge

    with pytest.warns(bp.TieRescalingWarning, match="0.0283 on the pairs decided in both orders"):
        row = descriptive_by_judge(data).loc["gpt4"]
    assert row["basis"] == BASIS_DECIDED and row["eps_plus"] < 0
    assert row["eps_plus_decided"] == pytest.approx(chk.eps_plus)
    assert row["eps_scom_decided"] == pytest.approx(chk.eps)
    # its ties also come in pairs: 396 pairs expected tied in both orders, above
    # EXACT_PAIR_TAIL_BELOW, so the normal tail of z decides (and the text does not say exact)
    from bayes_pairwise.classical.descriptive import EXACT_PAIR_TAIL_BELOW

    assert chk.tied_both_expected * chk.n_shown > EXACT_PAIR_TAIL_BELOW
    assert chk.pairs_cluster and chk.z_pair > 40 and chk.p_pair < 1e-12
    assert "(z = 45.5, one-sided p < 1e-12)" in chk.pairs_text()


def test_the_rescaling_warning_has_a_category_of_its_own():
    """Code that shows both rates (the cross-check, ``estimate``) silences the estimators'
    warning by its category, not by its text; every other design warning still reaches the
    user, and a WarningSink files it with the design warnings."""
    import warnings

    from bayes_pairwise.errors import WarningSink

    data = _log(0.08, 0.30, seed=7, n_contexts=80)
    assert tie_position_check(data).rescaling_fails
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", bp.TieRescalingWarning)
        m = positional_moments(data)  # would raise on any other warning
    with pytest.warns(bp.TieRescalingWarning, match="on the pairs decided in both orders"):
        assert positional_moments(data).eps_plus == m.eps_plus
    sink = WarningSink()
    with sink.capture("j: "):
        positional_moments(data)
    assert len(sink.design) == 1 and sink.design[0].startswith("j: the rescaling for the tie")


def test_estimate_warns_where_its_rescaled_moments_do_not_hold(tmp_path, capsys):
    """Where the ties depend on where the better text is shown, `estimate --method moments`
    (and `scom`) answers with the rates the cross-check's verdict rests on — the pairs decided
    in both orders — and keeps the rescaled ones beside them; where they do not, the rescaled
    rates stand and nothing is added."""
    import json

    from bayes_pairwise.classical.descriptive import (
        BASIS_DECIDED,
        BASIS_RESCALED,
        descriptive_by_judge,
    )
    from bayes_pairwise.cli import main
    from bayes_pairwise.crosscheck import METHOD_MOMENTS_DECIDED, METHOD_SCOM_DECIDED

    for taus, fires in (((0.08, 0.30), True), ((0.15, 0.15), False)):
        path = tmp_path / f"log{taus[0]}.csv"
        data = _log(*taus, seed=7, n_contexts=80)
        data.to_frame().to_csv(path, index=False)
        args = ["estimate", str(path), "--context-column", "context", "--method", "moments"]
        assert main([*args, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        warned = [
            w
            for w in out.get("warnings", [])
            if w.startswith("Ties depend on where the better text is shown")
        ]
        assert bool(warned) is fires
        assert ("basis" in out) is fires
        assert main([*args[:-1], "scom", "--json"]) == 0
        scom = json.loads(capsys.readouterr().out)
        m, chk = positional_moments(data), tie_position_check(data)
        # the Python table: both, and which answers
        tbl = descriptive_by_judge(data).loc["judge"]
        assert tbl["basis"] == (BASIS_DECIDED if fires else BASIS_RESCALED)
        assert tbl["eps_plus"] == pytest.approx(m.eps_plus)
        if not fires:
            assert np.isnan(tbl["eps_plus_decided"])
            assert out["estimates"]["eps_plus"] == pytest.approx(m.eps_plus)
            assert "s_com_decided" not in out["estimates"] and "basis" not in scom
            continue
        # the same numbers as compare's primary classical rows
        rows = _cross_check(data, "positional").table.set_index(["quantity", "method"])
        for q in ("eps_plus", "eps_minus"):
            assert out["estimates"][q] == pytest.approx(
                rows.loc[(q, METHOD_MOMENTS_DECIDED)].estimate
            )
            assert out["estimates"][f"{q}_se"] == pytest.approx(getattr(chk, f"{q}_se"))
            assert out["rescaled"]["judge"][q] == pytest.approx(getattr(m, q))
        assert scom["estimates"]["eps"] == pytest.approx(
            rows.loc[("eps", METHOD_SCOM_DECIDED)].estimate
        )
        assert out["estimates"]["s_com_decided"] == pytest.approx(chk.s_com_both)
        assert out["estimates"]["s_com"] == pytest.approx(m.s_com)  # the whole log's, as before
        assert out["basis"] == {"judge": BASIS_DECIDED}
        assert tbl["eps_plus_decided"] == pytest.approx(out["estimates"]["eps_plus"])
        assert not any(w.startswith("the rescaling for the tie share") for w in out["warnings"])
        # the text output says it under the numbers
        assert main(args) == 0
        text = capsys.readouterr().out
        assert "note: the rates above are read on the pairs decided in both orders" in text
        below = {q: " (below 0)" if getattr(m, q) < 0 else "" for q in ("eps_plus", "eps_minus")}
        assert (
            f"(rescaled: ε₊ {m.eps_plus:.4f}{below['eps_plus']}, ε₋ {m.eps_minus:.4f}"
            f"{below['eps_minus']}, ε₊ + ε₋ {m.eps_sum:.4f})" in text
        )


def test_estimate_marks_a_rescaled_rate_below_zero(capsys):
    """PRD's gpt4: its ties depend on the position, so `estimate --method moments` reads the
    pairs decided in both orders and lists the rescaled rates it replaced. The rescaled ε₊ is
    below 0 (ε_half < τ/2 once the rescaling fails): the note marks it, so a negative error
    rate is not printed bare."""
    from bayes_pairwise.cli import main

    assert main(["estimate", "prd_vicuna80", "--method", "moments", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    ep = out["rescaled"]["gpt4"]["eps_plus"]
    assert ep < 0 and out["by_judge"]["gpt4"]["eps_plus"] >= 0
    assert main(["estimate", "prd_vicuna80", "--method", "moments"]) == 0
    text = capsys.readouterr().out
    assert f"gpt4: ε₊ {ep:.4f} (below 0), ε₋ " in text
    assert text.count("(below 0)") == sum(
        v < 0 for vals in out["rescaled"].values() for v in vals.values()
    )


def test_fit_tie_positional_from_the_command_line(tmp_path, capsys):
    """`fit --tie-positional` (the caveat's advice) on the order model: both tie rates recovered,
    and the caveat says the fit already has them; a model without tie rates refuses the flag."""
    import json

    from bayes_pairwise.cli import main

    path = tmp_path / "log.csv"
    _log(0.08, 0.30, seed=8, n_contexts=120, sigma=50.0).to_frame().to_csv(path, index=False)
    base = ["fit", str(path), "--context-column", "context", "--map", "--json"]
    assert main([*base, "--model", "positional_order", "--tie-positional"]) == 0
    out = json.loads(capsys.readouterr().out)
    p = out["parameters"]
    assert p["tie_rate_plus"]["mean"] == pytest.approx(0.08, abs=0.02)
    assert p["tie_rate_minus"]["mean"] == pytest.approx(0.30, abs=0.03)
    said = [c["text"] for c in out["caveats"] if c["code"] == "ties_depend_on_position"]
    assert len(said) == 1 and "this fit has one tie rate per position" in said[0]
    assert main([*base, "--model", "biased_bt", "--tie-positional"]) != 0
    assert "--tie-positional: biased_bt has no tie rate" in capsys.readouterr().err


@pytest.mark.slow  # NUTS fits / a CLI cross-check of three models: the slow run
def test_compare_and_report_fit_tie_rates_by_position_when_asked(tmp_path, capsys):
    """The caveat's advice through the cross-check's doors: compare --tie-positional (and
    crosscheck(tie_positional=True), report's engine) fits both tie rates, records the setting
    and says the fit has them; a model without tie rates is fitted as it is."""
    import json

    from bayes_pairwise.cli import main

    data = _log(0.08, 0.30, seed=8, n_contexts=120, sigma=50.0)
    cc = _cross_check(data, "positional_order", tie_positional=True)
    fit = cc.fits["positional_order"]
    assert fit.tie_positional and cc.settings["tie_positional"] is True
    post = fit.idata_.posterior
    assert float(post["tie_rate_plus"].mean()) == pytest.approx(0.08, abs=0.02)
    assert float(post["tie_rate_minus"].mean()) == pytest.approx(0.30, abs=0.03)
    said = [c for c in cc.caveats if c.startswith("Ties depend on where")]
    assert len(said) == 1 and "this fit has one tie rate per position" in said[0]
    # without the setting the same log is told how to get it
    plain = _cross_check(data, "positional_order")
    assert plain.settings["tie_positional"] is False
    assert any("fit --tie-positional" in c for c in plain.caveats)
    path = tmp_path / "log.csv"
    data.to_frame().to_csv(path, index=False)
    args = ["compare", str(path), "--context-column", "context", "--map", "--tie-positional"]
    assert main([*args, "--model", "biased_bt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["tie_positional"] is True
    ties = out["tie_handling"]
    assert ties["positional"]["tie_rates"] == ties["uniform"]["tie_rates"] == "by position"
    assert ties["biased_bt"]["tie_rates"] is None  # ties half a win: no tie rate
    # the side-by-side table holds both tie rates of each error model
    rows = {(r["method"], r["quantity"]): r["estimate"] for r in out["table"]}
    assert rows[("positional (MAP)", "tie_rate_plus")] == pytest.approx(0.08, abs=0.03)
    assert rows[("positional (MAP)", "tie_rate_minus")] == pytest.approx(0.30, abs=0.04)


def test_the_decided_pairs_sum_has_the_spread_of_a_pair_bootstrap():
    """ε₊ + ε₋ of the decided-pairs moments: its delta-method SE (the covariance of ε₊ and ε₋
    included) against resampling those pairs."""
    from bayes_pairwise.classical.descriptive import _scom_terms, moments_from_rates

    data = _log(0.08, 0.30, seed=3)
    chk = tie_position_check(data)
    pc = bp.pair_counts(data)
    d1, d2 = pc.k_plus - pc.t1, pc.k_minus - pc.t2
    both = (d1 > 0) & (d2 > 0)
    n1, n2 = np.asarray(pc.n1_decided)[both], np.asarray(pc.n2_decided)[both]
    a, c = _scom_terms(d1[both], d2[both], n1, n2)
    b, v = n1 + (d2[both] - n2), (d1 + d2)[both]
    s_hat, r_hat = a.sum() / c.sum(), b.sum() / v.sum()
    assert chk.eps_sum == pytest.approx(sum(moments_from_rates(s_hat, r_hat, clip=False)[:2]))
    rng = np.random.default_rng(11)
    sums = []
    for _ in range(1000):
        i = rng.integers(0, a.size, a.size)
        ep, em = moments_from_rates(a[i].sum() / c[i].sum(), b[i].sum() / v[i].sum(), clip=False)[
            :2
        ]
        sums.append(ep + em)
    assert chk.eps_sum_se == pytest.approx(np.std(sums, ddof=1), rel=0.12)


def _pair_tied_log(seed: int, *, pair_level: bool, tau: float = 0.15):
    """The same design with ties that do not depend on position: each pair tied in both
    orders with probability τ (``pair_level``), or each verdict tied on its own with τ."""
    sim = simulate_hard_pairs(
        8,
        eps_plus=EPS_PLUS,
        eps_minus=EPS_MINUS,
        hard_share=0.0,
        tie_rate=0.0,
        labelled=0.0,
        n_contexts=150,
        random_seed=seed,
    )
    rng = np.random.default_rng(seed + 2000)
    frame = sim.frame.drop(columns=["truth"]).copy()
    if pair_level:
        key = frame["context"].astype(str) + ":" + frame[["first", "second"]].min(axis=1)
        key = key + ":" + frame[["first", "second"]].max(axis=1)
        pairs = key.unique()
        frame.loc[key.isin(set(pairs[rng.random(pairs.size) < tau])).to_numpy(), "outcome"] = "tie"
    else:
        frame.loc[rng.random(len(frame)) < tau, "outcome"] = "tie"
    return bp.load_comparisons(frame, context="context", ties="model")


def test_ties_that_come_in_pairs_move_the_verdict_to_the_pairs_decided_in_both_orders():
    """A pair tied in both orders adds ½ to S_com where the rescaling for the tie share expects
    fewer such pairs (it takes a pair's two verdicts as independent): on a log whose ties come
    in pairs (15 %, not by position) the rescaled S_com reads ε about 0.03 low, S_com of the
    pairs decided in both orders does not. The check finds the pairs (z_pair), the cross-check
    rests ε on the decided pairs and says why; ties verdict by verdict move nothing."""
    data = _pair_tied_log(3, pair_level=True)
    chk = tie_position_check(data)
    assert not chk.depends and chk.pairs_cluster and chk.rescaling_fails
    assert chk.tied_both > 4 * chk.tied_both_expected
    assert "ties come in pairs" in chk.reason()
    cc = _cross_check(data, "uniform")
    t = cc.table[cc.table.quantity == "eps"].set_index("method")
    rescaled = float(t.loc["S_com closed form", "estimate"])
    decided = float(t.loc["S_com closed form, pairs decided in both orders", "estimate"])
    truth = (EPS_PLUS + EPS_MINUS) / 2
    assert decided - rescaled > 0.02 and abs(decided - truth) < 0.015
    primary = cc.agreement[(cc.agreement.quantity == "eps") & cc.agreement.primary]
    assert set(primary.classical) == {"S_com closed form, pairs decided in both orders"}
    assert "ties come in pairs" in cc.verdicts["text"].iloc[0]
    calm = tie_position_check(_pair_tied_log(3, pair_level=False))
    assert not calm.pairs_cluster and not calm.rescaling_fails


def test_pairs_tied_in_both_orders_are_tested_exactly_on_small_logs():
    """With 0.1 pairs expected tied in both orders, a normal z reads 2 such pairs as z ≈ 5.7:
    3 % of null round robins of 10 (τ 0.05) said "its ties come in pairs" (nominal 0.13 %).
    The decision now reads the exact Poisson-binomial tail (p_pair)."""
    # the tail against brute force over every outcome of 5 Bernoullis
    import itertools

    from bayes_pairwise.classical.descriptive import _poisson_binomial_sf

    q = np.array([0.1, 0.3, 0.05, 0.5, 0.2])
    for k in range(7):
        brute = sum(
            np.prod([qi if b else 1 - qi for qi, b in zip(q, bits, strict=True)])
            for bits in itertools.product((0, 1), repeat=5)
            if sum(bits) >= k
        )
        assert _poisson_binomial_sf(q, k) == pytest.approx(brute, abs=1e-12)
    fired_z = fired = 0
    for seed in range(300):
        frame = _null_round_robins(np.random.default_rng(seed), 10, 1, 0.05)
        chk = tie_position_check(bp.load_comparisons(frame))
        fired += chk.pairs_cluster
        fired_z += bool(np.isfinite(chk.z_pair) and chk.z_pair >= 3)
    assert fired == 0 and fired_z >= 5  # what the z alone flagged
    # and a pair-level tie still fires on a log of that size: 4 pairs tied in both orders
    frame = _null_round_robins(np.random.default_rng(0), 10, 1, 0.0)
    pairs = [("a0", "a1"), ("a2", "a3"), ("a4", "a5"), ("a6", "a7")]
    for i, j in pairs:
        sel = ((frame["first"] == i) & (frame["second"] == j)) | (
            (frame["first"] == j) & (frame["second"] == i)
        )
        frame.loc[sel, "outcome"] = "tie"
    chk = tie_position_check(bp.load_comparisons(frame))
    assert chk.pairs_cluster and chk.p_pair < 1e-3  # 0.36 pairs expected at τ = 8/90


def test_estimate_names_the_edge_of_the_moments_it_reports(capsys):
    """PRD's vicuna-13b: its ties come in pairs, so `estimate --method moments` reports the
    moments of the pairs decided in both orders (S_com 0.621), which have no real solution. The
    edge it names is theirs, not the rescaled moments' (S_com 0.616, numbers it no longer
    reports)."""
    import json

    from bayes_pairwise.cli import main

    assert main(["estimate", "prd_vicuna80", "--method", "moments", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    edges = [w for w in out["warnings"] if "outside their domain" in w]
    chk = tie_position_check(bp.datasets.load("prd_vicuna80"), judge="vicuna-13b")
    assert chk.at_boundary and chk.no_real_solution
    assert edges == [
        "judge 'vicuna-13b', moments of the pairs decided in both orders outside their domain: "
        + chk.boundary_text()
    ]
    assert "S_com 0.621 is above 0.518" in edges[0]
    # the table carries the text, so `estimate` reads it instead of running the check again
    with pytest.warns(TieRescalingWarning):
        tbl = descriptive_by_judge(bp.datasets.load("prd_vicuna80"))
    assert tbl.loc["vicuna-13b", "decided_boundary"] == chk.boundary_text()
    assert (tbl.loc[tbl["basis"] != BASIS_DECIDED, "decided_boundary"] == "").all()
    assert (tbl.loc[tbl["basis"] != BASIS_DECIDED, "decided_reason"] == "").all()
    est = out["by_judge"]["vicuna-13b"]
    assert est["eps_plus"] + est["eps_minus"] == pytest.approx(1.0)
    assert est["s_com_decided"] == pytest.approx(chk.s_com_both)


def test_dropping_ties_does_not_tilt_the_first_position_rate(tmp_path, capsys):
    """Ties that follow the better text's position, dropped: the verdicts left in the pairs that
    lost one order to a tie lean to one position, so r₁ over every verdict would move the
    moments (QLoRA: ε₊ 0.006 against 0.028). Under ``ties="drop"`` r₁ is read on the pairs left
    in both orders, and the moments equal the ``"model"`` policy's decided-pairs moments — one
    answer whichever way the ties were set aside."""
    import json

    from bayes_pairwise.cli import main

    data = _log(0.08, 0.30, seed=7, n_contexts=80)
    path = tmp_path / "log.csv"
    data.to_frame().to_csv(path, index=False)
    chk = tie_position_check(data)
    assert chk.rescaling_fails
    dropped = bp.load_comparisons(path, context="context", ties="drop")
    assert dropped.n_ties_dropped > 0
    m = positional_moments(dropped)
    assert m.r1 == pytest.approx(chk.r1_decided)
    assert m.s_com == pytest.approx(chk.s_com_both)
    assert m.eps_plus == pytest.approx(chk.eps_plus) and m.eps_minus == pytest.approx(chk.eps_minus)
    # r₁ over every decided verdict is another number: the pairs with one order tied lean
    assert abs(float(np.mean(dropped.outcome)) - m.r1) > 0.01
    tbl = bp.descriptive_by_judge(dropped).loc["judge"]
    assert tbl["n_pairs"] > tbl["n_pairs_both_orders"]  # the whole log's pairs, as before
    args = ["estimate", str(path), "--context-column", "context", "--method", "moments"]
    assert main([*args, "--ties", "drop", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["estimates"]["eps_plus"] == pytest.approx(chk.eps_plus)
    assert "S_com and r₁ are read on the pairs left" in out["ties_dropped_note"]
    assert main([*args, "--json"]) == 0  # ties modelled: the decided basis, the same numbers
    model = json.loads(capsys.readouterr().out)
    assert model["estimates"]["eps_plus"] == pytest.approx(out["estimates"]["eps_plus"])


def test_the_tie_rule_says_what_was_done_on_this_log(tmp_path):
    """The cross-check's 'Tie rule' note (and ``settings['tie_rule']``, which the report
    quotes) said "counted half, then rescaled" on every log with ties: also where the verdict
    rests on the pairs decided in both orders, and under ties='drop', where nothing is
    counted half."""
    from bayes_pairwise.conventions import CLASSICAL_TIE_RULE

    moved = _cross_check(_log(0.08, 0.30, seed=7, n_contexts=80), "uniform")
    rule = moved.settings["tie_rule"]
    assert rule.startswith(CLASSICAL_TIE_RULE) and "For judge, whose ties break" in rule
    assert f"Tie rule: {rule}." in moved.notes
    held = _cross_check(_log(0.15, 0.15, seed=6, n_contexts=60), "uniform")
    assert held.settings["tie_rule"] == CLASSICAL_TIE_RULE
    path = tmp_path / "log.csv"
    _log(0.08, 0.30, seed=7, n_contexts=80).to_frame().to_csv(path, index=False)
    dropped = bp.load_comparisons(path, context="context", ties="drop")
    rule = _cross_check(dropped, "uniform").settings["tie_rule"]
    assert f"{dropped.n_ties_dropped:,} tie(s) dropped" in rule
    assert "nothing is counted half" in rule and "ε = (ε_half" not in rule


def test_estimate_says_why_a_rescaled_rate_is_below_zero(tmp_path, capsys):
    """ε₊ = 0, ties at random (the rescaling holds): the moments among all verdicts are inside
    their domain, and the rate read among decided verdicts, (ε_half − τ/2)/(1 − τ), falls
    below 0 by chance. compare's row says "below 0: sampling noise around 0"; estimate said
    nothing (the moments' boundary flag is about the moments before the rescaling)."""
    import json

    from bayes_pairwise.cli import main
    from bayes_pairwise.simulate import simulate_hard_pairs

    sim = simulate_hard_pairs(
        6,
        eps_plus=0.0,
        eps_minus=0.2,
        hard_share=0.0,
        tie_rate=0.2,
        labelled=0.0,
        n_contexts=40,
        random_seed=1,
    )
    path = tmp_path / "log.csv"
    sim.frame.drop(columns=["truth"]).to_csv(path, index=False)
    data = bp.load_comparisons(path, context="context", ties="model")
    row = bp.descriptive_by_judge(data).iloc[0]
    assert row["eps_plus"] < 0 and not row["moments_at_boundary"]
    assert not tie_position_check(data).rescaling_fails
    argv = ["estimate", str(path), "--context-column", "context", "--method", "moments"]
    assert main([*argv, "--json"]) == 0
    said = [w for w in json.loads(capsys.readouterr().out)["warnings"] if "below 0" in w]
    assert said == [
        f"judge 'judge': ε₊ {row['eps_plus']:.4f} below 0 once rescaled for the tie share (the "
        "moments among all verdicts are inside their domain): sampling noise around 0, kept "
        "unclipped with its interval"
    ]


def test_the_grids_say_they_are_not_the_basis_where_the_tie_rescaling_fails(tmp_path, capsys):
    """The Δ_S grids place ties at random, and the 2-D grid's split by r₁ divides 2r₁ − 1 by
    1 − τ: both assume a tie does not depend on where the better text is shown. Where it does,
    `estimate --method deltas2d` says its ε₊, ε₋ are not compare's basis and gives that basis
    (the moments of the pairs decided in both orders, the numbers `estimate --method moments`
    prints); compare's rows 'sum split by r₁' say so as the sum's row does. Where the ties
    hold, nothing is said."""
    import json

    from bayes_pairwise.cli import main
    from bayes_pairwise.crosscheck import METHOD_GRID_SPLIT, METHOD_GRID_SUM

    outs = {}
    for name, taus in (("moved", (0.04, 0.30)), ("held", (0.12, 0.12))):
        data = _log(*taus, seed=11, n_contexts=40)
        path = tmp_path / f"{name}.csv"
        data.to_frame().to_csv(path, index=False)
        chk = tie_position_check(data)
        assert chk.rescaling_fails is (name == "moved")
        args = ["estimate", str(path), "--context-column", "context", "--seed", "0", "--json"]
        assert main([*args, "--method", "deltas2d"]) == 0
        outs[name] = json.loads(capsys.readouterr().out)
        said = [w for w in outs[name].get("warnings", []) if "not the basis" in w]
        if name == "held":
            assert said == []
            continue
        assert len(said) == 1
        assert f"ε₊ {chk.eps_plus:.4f}, ε₋ {chk.eps_minus:.4f}" in said[0]
        assert said[0].startswith(f"judge 'judge': {chk.reason()}, which")  # its own numbers
        assert bp.descriptive_by_judge(data).loc["judge", "decided_reason"] == chk.reason()
        assert main([*args, "--method", "moments"]) == 0
        moments = json.loads(capsys.readouterr().out)["estimates"]
        assert moments["eps_plus"] == pytest.approx(chk.eps_plus)
        assert moments["eps_minus"] == pytest.approx(chk.eps_minus)
        # the split rescales the first-position gap: here it is another number
        est = outs[name]["estimates"]
        assert abs((est["eps_minus"] - est["eps_plus"]) - (chk.eps_minus - chk.eps_plus)) > 0.02
        cc = _cross_check(data, "positional", delta_s_2d=True)
        rows = cc.table[cc.table.method.isin([METHOD_GRID_SPLIT, METHOD_GRID_SUM])]
        assert len(rows) == 3
        assert rows.note.str.contains("not the verdict's basis").all()
        split = rows[rows.method == METHOD_GRID_SPLIT].set_index("quantity")
        assert split.loc["eps_plus", "estimate"] == pytest.approx(est["eps_plus"])
        ag = cc.agreement[cc.agreement.classical.isin([METHOD_GRID_SPLIT, METHOD_GRID_SUM])]
        assert len(ag) and not ag.primary.any()
