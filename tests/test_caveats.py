"""Issue 7 item 4: caveats_for (what a fit cannot see) and their record with a fitted model."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from crosscheck_kwargs import LEAN, LEAN_MAP

import bayes_pairwise as bp
from bayes_pairwise.caveats import (
    CORRELATED_ERRORS,
    Caveat,
    caveats_for,
    caveats_from_idata,
    has_repeats,
)
from bayes_pairwise.pymc_models import PositionalBias, UniformError, load_model
from bayes_pairwise.simulate import simulate_hard_pairs, simulate_round_robin


@pytest.fixture(scope="module")
def sim():
    return simulate_hard_pairs(10, random_seed=4)


@pytest.fixture(scope="module")
def rep():
    return simulate_hard_pairs(12, repeats=3, hard_share=0.3, labelled=0.0, random_seed=5)


def _codes(data, kind, **kw):
    return [c.code for c in caveats_for(data, model_kind=kind, **kw)]


def test_correlated_errors_text_says_what_cannot_be_seen() -> None:
    assert "bias ground-truth-free estimates low" in CORRELATED_ERRORS
    assert "cannot be detected from one verdict per order" in CORRELATED_ERRORS
    assert Caveat("a", "b").to_dict() == {"code": "a", "text": "b"}


def test_rules_without_repeats(sim) -> None:
    free, lab = sim.data_unlabelled, sim.data
    assert not has_repeats(free)
    for kind in ("uniform", "positional", "classical"):
        assert _codes(free, kind) == ["correlated_errors"]
    assert _codes(lab, "positional") == ["partial_labels"]
    assert _codes(lab, "uniform") == ["partial_labels"]
    assert _codes(lab, "classical") == ["correlated_errors", "labelled_rates"]
    # a ground-truth-free analysis of a labelled log
    assert _codes(lab, "positional", has_truth=False) == ["correlated_errors"]
    assert _codes(free, "difficulty") == ["difficulty_not_identified"]
    assert _codes(lab, "difficulty") == []
    assert _codes(free, "biased_bt") == []
    with pytest.raises(ValueError, match="model_kind"):
        caveats_for(free, model_kind="bt")


def test_partial_labels_counts_rows(sim) -> None:
    (c,) = caveats_for(sim.data, model_kind="positional")
    n_rows = sim.data.n_items * (sim.data.n_items - 1) // 2
    assert f"of {n_rows} (judge, pair) rows" in c.text


def test_repeats_add_the_correlation_test(rep) -> None:
    assert has_repeats(rep.data)
    codes = _codes(rep.data, "positional", n_bootstrap=49)
    assert codes == ["correlated_errors", "within_pair_correlation"]
    assert _codes(rep.data, "difficulty", test_correlation=False) == ["difficulty_repeats_only"]
    text = caveats_for(rep.data, model_kind="classical", n_bootstrap=49)[-1].text
    # 66 pairs; ties leave 58 with two or more non-tie verdicts in each order
    assert text.startswith("Within-pair error correlation test on 58 pair(s)")
    assert re.search(r"LR = [0-9.]+, p (=|≤) [0-9.]+ \(", text), text


def _battle_log(repeats: int, *, arena: bool, n_contexts: int = 1):
    """A round robin of 5 systems with ``repeats`` verdicts per pair and order; ``arena``: read
    through Chatbot Arena's layout (model_a / model_b / winner: order not recorded)."""
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(5, repeats=repeats, n_contexts=n_contexts, random_seed=1)
    if not arena:
        return sim.data
    frame = sim.data.to_frame()
    return load_comparisons(
        frame.assign(
            model_a=frame["first"],
            model_b=frame["second"],
            winner=np.where(frame["outcome"] == 1, "model_a", "model_b"),
        ).drop(columns=["first", "second", "outcome"])
    )


def test_correlation_caveat_says_when_repeats_may_be_other_prompts() -> None:
    """Chatbot Arena's battles: one model pair judged on ~130 prompts, no context, order not
    recorded. The test reads agreement across prompts as 'hard pairs'; a caveat beside it says
    what the repeats may be, with the log's own numbers (here 2 × 15 = 30 verdicts per pair)."""
    from bayes_pairwise.identification import repeats_reading

    arena = _battle_log(15, arena=True)
    assert not arena.order_recorded
    found = caveats_for(arena, model_kind="uniform", n_bootstrap=19)
    assert [c.code for c in found][-2:] == ["within_pair_correlation", "repeats_reading"]
    text = found[-1].text
    assert "order is not recorded" in text
    assert "no context column and a pair's repeats are 30 verdicts" in text
    # re-judgements of one pair of texts: few repeats, order recorded — nothing to add
    assert repeats_reading(_battle_log(3, arena=False)) is None
    assert "repeats_reading" not in _codes(_battle_log(3, arena=False), "uniform", n_bootstrap=19)
    # many repeats inside contexts (one prompt each): the order is the only question
    assert repeats_reading(_battle_log(15, arena=False, n_contexts=2)) is None
    only_order = repeats_reading(_battle_log(3, arena=True))
    assert "order is not recorded" in only_order and "context column" not in only_order


def test_order_not_recorded_is_said_where_a_rate_splits_by_position(tmp_path, capsys) -> None:
    """A battle log without its presentation order: the position-split rates (positional,
    biased BT's γ, the moments) get a caveat that counts the log's verdicts; the order-free
    rates (uniform, difficulty) do not, and a log with its order recorded never does."""
    from bayes_pairwise.cli import main

    arena = _battle_log(3, arena=True)
    recorded = _battle_log(3, arena=False)
    for kind, said in [
        ("positional", True),
        ("classical", True),
        ("biased_bt", True),
        ("uniform", False),
        ("difficulty", False),
    ]:
        codes = _codes(arena, kind, test_correlation=False)
        assert ("order_not_recorded" in codes) is said, kind
        assert "order_not_recorded" not in _codes(recorded, kind, test_correlation=False)
    text = caveats_for(arena, model_kind="positional", test_correlation=False)
    (nominal,) = [c.text for c in text if c.code == "order_not_recorded"]
    assert f"{arena.n_comparisons:,} verdicts" in nominal and "ε₊, ε₋ and their sum" in nominal
    # one text whatever the model kind, so a report that gathers them says it once
    assert {
        c.text
        for kind in ("positional", "classical", "biased_bt")
        for c in caveats_for(arena, model_kind=kind, test_correlation=False)
        if c.code == "order_not_recorded"
    } == {nominal}
    # estimate: the moments (split by position) warn; Copeland (order-free) does not
    path = tmp_path / "battles.csv"
    frame = arena.to_frame()
    frame.rename(columns={"first": "model_a", "second": "model_b"}).assign(
        winner=np.where(frame["outcome"] == 1, "model_a", "model_b")
    ).drop(columns=["outcome"]).to_csv(path, index=False)
    for method, said in [("moments", True), ("copeland", False)]:
        assert main(["estimate", str(path), "--method", method, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        warned = [w for w in out.get("warnings", []) if "nominal label" in w]
        assert bool(warned) is said, method


def test_scom_above_half_is_not_called_positional_bias_without_the_order() -> None:
    """S_com > 1/2 (the first label wins in both orders): positional bias where the order is
    recorded; a preference for a nominal label where it is not (Arena's model_a)."""
    from bayes_pairwise.classical.descriptive import descriptive_by_judge
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.errors import DesignWarning

    recorded = _battle_log(3, arena=False)
    frame = recorded.to_frame().assign(outcome="first")  # the first-shown text always wins
    first_wins = load_comparisons(frame)
    arena = load_comparisons(
        frame.assign(model_a=frame["first"], model_b=frame["second"], winner="model_a").drop(
            columns=["first", "second", "outcome"]
        )
    )
    for data, said, unsaid in [
        (first_wins, "positional bias; see eps_plus", "nominal"),
        (arena, "cannot be read as positional bias", "see eps_plus"),
    ]:
        with pytest.warns(DesignWarning, match="S_com > 1/2") as rec:
            descriptive_by_judge(data)
        (text,) = [str(w.message) for w in rec if "S_com > 1/2" in str(w.message)]
        assert said in text and unsaid not in text


@pytest.mark.slow
def test_fit_records_caveats_and_they_survive_save(sim, tmp_path) -> None:
    m = PositionalBias().fit(sim.data_unlabelled, method="map", random_seed=0)
    # one round robin of 10 with a verdict per order: the MAP's joint mode shifts the rates
    assert [c.code for c in m.caveats_] == ["correlated_errors", "map_joint_mode"]
    stored = json.loads(m.idata_.posterior.attrs["caveats"])
    assert stored == [
        {"code": "correlated_errors", "text": m.caveats_[0].text},
        {"code": "map_joint_mode", "text": m.caveats_[1].text, "judges": ["judge"]},
    ]
    assert m.caveats_[0].text.endswith(CORRELATED_ERRORS)
    assert m.caveats_[0].text.startswith("Pair difficulty:")  # computed from the log (issue 25)
    path = m.save(tmp_path / "fit.nc")
    assert caveats_from_idata(load_model(path).idata_) == m.caveats_
    u = UniformError().fit(sim.data, method="map", random_seed=0)
    assert [c.code for c in u.caveats_] == ["partial_labels"]


def test_identification_is_computed_per_log() -> None:
    """Issue 25: the caveat says what this design identifies, with its number."""
    two = simulate_hard_pairs(2, n_contexts=200, labelled=0.0, random_seed=0).data
    text = caveats_for(two, model_kind="positional")[0].text
    assert text.startswith("Pair difficulty: NOT IDENTIFIED (0 of")
    rr = simulate_hard_pairs(5, n_contexts=60, labelled=0.0, tie_rate=0.0, random_seed=0).data
    text = caveats_for(rr, model_kind="positional")[0].text
    assert "through transitivity (d′ = " in text
    from bayes_pairwise.identification import identification

    res = identification(rr)[0]
    assert res.basis == "transitivity" and res.measure > 1.0
    lab = simulate_hard_pairs(2, n_contexts=400, labelled=0.5, tie_rate=0.0, random_seed=0).data
    res = identification(lab)[0]
    assert res.status == "identified" and res.correlation["correlated"]


@pytest.mark.parametrize("seed", [np.int64(7), np.uint8(7), 7])
def test_record_caveats_takes_a_numpy_integer_seed_as_that_seed(monkeypatch, seed):
    # a NumPy integer seed used to fall back to 0: the caveats' bootstrap then differed from
    # crosscheck's with the same seed
    import bayes_pairwise.caveats as caveats_module
    from bayes_pairwise.simulate import simulate_hard_pairs

    seen: list = []

    def spy(data, *, model_kind, random_seed, **kw):
        seen.append(random_seed)
        return []

    monkeypatch.setattr(caveats_module, "caveats_for", spy)
    sim = simulate_hard_pairs(4, random_seed=0)

    class Fitted:
        positional = True
        idata_ = type("I", (), {"posterior": type("P", (), {"attrs": {}})()})()

    caveats_module.record_caveats(Fitted(), sim.data_unlabelled, random_seed=seed)
    caveats_module.record_caveats(Fitted(), sim.data_unlabelled, random_seed=True)
    assert seen == [7, 0] and type(seen[0]) is int


def _tie_log(rates_by_context, judges, n=12, seed=0):
    """``n`` verdicts per judge in each context (one pair, both orders), ties with the given
    probability per context and judge (``rates_by_context[c][judge]``)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for c, rates in enumerate(rates_by_context):
        for judge in judges:
            for r in range(n):
                tie = rng.random() < rates[judge]
                a, b = (f"c{c}x", f"c{c}y") if r % 2 else (f"c{c}y", f"c{c}x")
                rows.append((a, b, "tie" if tie else "first", f"q{c}", judge))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "q", "judge"])


def test_tie_dispersion_closed_form_and_the_caveat_names_the_clustered_judge() -> None:
    """χ² of the tie counts against one rate, by hand; the caveat speaks of the judge whose
    ties cluster (half the questions tied throughout) and not of the one with one rate."""
    import pandas as pd

    from bayes_pairwise.caveats import tie_dispersion, ties_cluster_by_context
    from bayes_pairwise.data import load_comparisons

    # by hand: contexts with 3 and 1 ties of 4 verdicts: τ = 1/2, χ² = 2 · (1² / 1) = 2
    rows = [("a", "b", "tie", "q1")] * 3 + [("a", "b", "first", "q1")]
    rows += [("c", "d", "tie", "q2")] + [("c", "d", "first", "q2")] * 3
    df = pd.DataFrame(rows, columns=["first", "second", "outcome", "q"])
    (d,) = tie_dispersion(load_comparisons(df, context="q", ties="model"))
    assert (d.contexts, d.tie_rate, d.chi2, d.ratio, d.mostly_tied) == (2, 0.5, 2.0, 2.0, 1)
    assert d.p_value == pytest.approx(0.1572992, rel=1e-6) and not d.clusters

    rates = [{"odd": 0.95 if c % 2 else 0.02, "even": 0.3} for c in range(40)]
    data = load_comparisons(_tie_log(rates, ["odd", "even"]), context="q", judge="judge")
    by = {x.judge: x for x in tie_dispersion(data)}
    assert by["odd"].clusters and by["odd"].ratio > 5 and by["odd"].mostly_tied >= 18
    assert not by["even"].clusters and by["even"].ratio < 1.6
    c = ties_cluster_by_context(data)
    assert c is not None and c.code == "ties_cluster_by_context"
    assert "judge odd:" in c.text and "judge even" not in c.text
    assert f"{by['odd'].mostly_tied} of 40 contexts are at least half ties" in c.text
    assert "ties_cluster_by_context" in _codes(data, "positional")
    # a fit that lets the tie rate vary says so, and names who does in a mixed analysis
    mixed = ties_cluster_by_context(
        data, dispersed=("uniform_order", "positional_order"), one_rate_too=True
    )
    assert "uniform_order and positional_order let the tie rate vary by context" in mixed.text
    assert "The other models fit one tie rate" in mixed.text and "too narrow" in mixed.text
    alone = ties_cluster_by_context(data, dispersed=("positional_order",)).text
    assert "positional_order lets the tie rate" in alone and "other models" not in alone
    assert "fit --tie-dispersion" in c.text and "too narrow" in c.text
    # one question tied throughout: the count is singular in the text
    single = [{"x": 1.0 if c == 0 else 0.02} for c in range(40)]
    c = ties_cluster_by_context(load_comparisons(_tie_log(single, ["x"]), context="q"))
    assert c is not None and "1 of 40 contexts is at least half ties" in c.text
    # clustered ties with no context half tied: no "0 of 40 contexts …, where one rate expects
    # 1e-11" (judging_the_judges' nine judges said that)
    none_half = [{"x": 0.2 if c % 2 else 0.0} for c in range(40)]
    data = load_comparisons(_tie_log(none_half, ["x"]), context="q")
    (d,) = tie_dispersion(data)
    assert d.clusters and d.mostly_tied == 0
    c = ties_cluster_by_context(data)
    assert "at least half ties" not in c.text and f"allows (χ² {d.chi2:,.0f}" in c.text
    # ties not modelled, or one context: nothing to say
    assert ties_cluster_by_context(data.drop_ties()) is None
    one = load_comparisons(_tie_log(rates[:1], ["odd"]), context="q", judge="judge")
    assert tie_dispersion(one) == []


def test_a_numbered_caveat_names_the_judges_it_concerns() -> None:
    """compare prints the caveats once, numbered, under the headline: one that is not every
    judge's says whose it is (the within-pair correlation test needs repeats: judge-c has
    none). The test's caveat, one per judge with its own numbers, is said once for the judges
    whose conclusion is the same (judging_the_judges printed the same explanation 9 times):
    each judge's numbers, then the conclusion."""
    import pandas as pd

    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons
    from bayes_pairwise.simulate import simulate_round_robin

    frames = [
        simulate_round_robin(6, repeats=r, eps=e, random_seed=s).data.to_frame().assign(judge=j)
        for j, e, s, r in (("judge-a", 0.1, 1, 3), ("judge-b", 0.3, 2, 3), ("judge-c", 0.2, 3, 1))
    ]
    data = load_comparisons(pd.concat(frames, ignore_index=True))
    cc = crosscheck(data, models=(), leaderboard=False, delta_s_2d=False, random_seed=0)
    owners = dict(zip(cc.caveats, cc.caveat_judges(), strict=True))
    tests = {t: w for t, w in owners.items() if t.startswith("Within-pair error correlation")}
    ((text, whose),) = tests.items()
    assert whose == ("judge-a", "judge-b")
    assert re.match(
        r"Within-pair error correlation test on judge judge-a: \d+ pair\(s\) with repeats in "
        r"both orders: .*p = [\d.]+ \(\d+ bootstrap replicates\)\. judge judge-b: \d+ pair\(s\) "
        r".*\. No evidence of errors correlated within a pair",
        text,
    )
    assert text.count("No evidence") == 1
    # the headline refers each of the two judges to the one caveat
    refs = cc.headline().set_index("judge")["caveats"]
    number = str(cc.caveats.index(text) + 1)
    assert all(number in refs[j].split(", ") for j in ("judge-a", "judge-b"))
    assert number not in refs["judge-c"].split(", ")
    # the identification statements: the judges with repeats share one, judge-c has its own
    assert sorted(w for t, w in owners.items() if t.startswith("Pair difficulty")) == [
        ("judge-a", "judge-b"),
        ("judge-c",),
    ]
    lines = cc.caveat_lines()
    assert sum(
        line.startswith("caveat ") and " (judge-a, judge-b): Within-pair" in line for line in lines
    )
    assert any(re.match(r"caveat \d+ \(judge-c\): Pair difficulty", line) for line in lines)
    assert cc.to_dict()["caveat_judges"] == [list(w) for w in cc.caveat_judges()]


def test_a_strength_models_map_says_how_far_its_joint_mode_shifts_the_rates() -> None:
    """On many small round robins with a hard truth the positional model's MAP (a joint mode
    over every strength) reads ε₋ low; the caveat measures the shift on the log's own design
    and names the judge, and the rates less the shift are closer to the realised ones. One
    large round robin (each strength on 58 verdicts) shifts nothing worth saying, and a NUTS
    fit or the order model is never told it."""
    import re

    from bayes_pairwise.caveats import joint_mode
    from bayes_pairwise.pymc_models import PositionalBias, UniformError

    sim = simulate_round_robin(5, eps_plus=0.05, eps_minus=0.2, n_contexts=300, random_seed=8)
    m = PositionalBias().fit(sim.data, method="map", random_seed=0)
    (c,) = [c for c in m.caveats_ if c.code == "map_joint_mode"]
    assert c.judges == ("judge",)
    assert c == joint_mode(m, sim.data, random_seed=0)  # the fit's caveat is this function's
    shift = [float(x) for x in re.search(r"a shift of ([-+.\d]+), ([-+.\d]+)", c.text).groups()]
    assert shift[1] < -0.005  # ε₋ reads low
    post = m.idata_.posterior
    em = float(post["eps_minus"].values.ravel()[0])
    assert abs((em - shift[1]) - sim.realised_eps_minus) < abs(em - sim.realised_eps_minus)
    assert "5 per context" in c.text and "1,500 strengths" in c.text
    assert "read ε₊ " in c.text and "judge:" not in c.text  # one judge: not named before it
    big = simulate_round_robin(30, eps=0.15, random_seed=0)
    one = UniformError().fit(big.data, method="map", random_seed=0)
    assert joint_mode(one, big.data) is None
    order = bp.PositionalOrder().fit(sim.data, method="map", random_seed=0)
    assert joint_mode(order, sim.data) is None
    assert "map_joint_mode" not in [c.code for c in order.caveats_]


def test_a_laplace_fit_at_the_same_joint_mode_says_its_shift_too() -> None:
    """--fast is a Gaussian centred at the joint mode: on the log where the MAP reads ε₋ low,
    the Laplace mean reads it low by about as much, and its caveat measures that with a Laplace
    refit, names the judge and the --fast flag, and the rates less the shift move towards the
    realised ones."""
    import re

    from bayes_pairwise.caveats import joint_mode
    from bayes_pairwise.pymc_models import PositionalBias

    sim = simulate_round_robin(5, eps_plus=0.05, eps_minus=0.2, n_contexts=300, random_seed=8)
    fast = PositionalBias().fit(sim.data, method="laplace", random_seed=0)
    (c,) = [c for c in fast.caveats_ if c.code == "map_joint_mode"]
    assert c == joint_mode(fast, sim.data, random_seed=0) and c.judges == ("judge",)
    assert "Laplace approximation (--fast) is a Gaussian centred at a joint mode" in c.text
    assert "A --fast verdict" in c.text and "without --fast" in c.text
    shift = [float(x) for x in re.search(r"a shift of ([-+.\d]+), ([-+.\d]+)", c.text).groups()]
    assert shift[1] < -0.005
    em = float(fast.idata_.posterior["eps_minus"].mean())
    assert em < sim.realised_eps_minus - 0.005  # the mean sits at the mode: low
    assert abs((em - shift[1]) - sim.realised_eps_minus) < abs(em - sim.realised_eps_minus)


def test_the_cross_check_puts_the_joint_mode_caveat_on_the_judges_it_names() -> None:
    """compare --map: the caveat is numbered under the headline for the judge it names only."""
    frames = []
    for k, (judge, n_ctx) in enumerate([("many", 250), ("few", 1)]):
        sim = simulate_round_robin(
            5 if n_ctx > 1 else 12, eps_plus=0.05, eps_minus=0.2, n_contexts=n_ctx,
            random_seed=20 + k,
        )  # fmt: skip
        f = sim.frame.copy()
        f["judge"] = judge
        f["context"] = judge + f.get("context", "")
        f["first"] = judge + f["first"]
        f["second"] = judge + f["second"]
        frames.append(f)
    data = bp.load_comparisons(
        pd.concat(frames, ignore_index=True), judge="judge", context="context"
    )
    cc = bp.crosscheck(
        data, models=("positional",), method="map", leaderboard=False, delta_s_2d=False
    )
    lines = [ln for ln in cc.caveat_lines() if "joint mode" in ln]
    assert len(lines) == 1 and lines[0].split(":")[0].endswith("(many)")
    row = cc.verdicts.set_index("judge")
    assert any("joint mode" in t for t in row.loc["many", "caveats"])
    assert not any("joint mode" in t for t in row.loc["few", "caveats"])


def _nuts_like(sigma_s: float, steps: np.ndarray, *, strength=None, hits=None, tuning=None):
    """A strength fit's idata as NUTS stores it: σ_s, the step counts (chain, draw), the step
    size, optionally the strengths and the tree-depth / warm-up flags (nutpie's names)."""
    import arviz as az

    shape = steps.shape
    post = {"sigma_s": np.full(shape, sigma_s)}
    stats = {"n_steps": steps, "step_size": np.full(shape, 0.05)}
    if hits is not None:
        stats["maxdepth_reached"] = hits
    if tuning is not None:
        stats["tuning"] = tuning
    const = None
    if strength is not None:
        post["strength"] = np.broadcast_to(strength, (*shape, strength.size)).copy()
        const = {"pair_i": np.array([0, 0, 1, 0]), "pair_j": np.array([1, 2, 2, 1])}
    idata = az.from_dict(
        posterior=post,
        sample_stats=stats,
        constant_data=const,
        dims={"strength": ["item"]},
    )
    fit = PositionalBias()  # fitted by hand: the order-model rule reads the model's class
    fit.idata_, fit.method_ = idata, "nuts"
    return fit


def test_trajectory_stats_count_the_kept_draws_only() -> None:
    """Known answers: the mean steps, step size and depth hits of the kept draws; nutpie's
    warm-up draws (``tuning``) are left out, and a fit without step counts has none."""
    import arviz as az

    from bayes_pairwise.pymc_models.diagnostics import trajectory_stats

    steps = np.array([[1023, 255, 127], [1023, 63, 31]])
    tuning = np.array([[True, False, False], [True, False, False]])
    hits = np.array([[True, False, False], [True, True, False]])
    fit = _nuts_like(20.0, steps, hits=hits, tuning=tuning)
    st = trajectory_stats(fit.idata_)
    assert st.steps_per_draw == pytest.approx((255 + 127 + 63 + 31) / 4)
    assert (st.depth_hits, st.n_draws, st.step_size) == (1, 4, pytest.approx(0.05))
    assert trajectory_stats(az.from_dict(posterior={"eps": np.zeros((1, 1))})) is None


def test_a_nuts_fit_with_a_nearly_hard_truth_says_why_its_trajectories_are_long() -> None:
    """The long_trajectories caveat: this fit's steps per draw, step size, σ_s and share of
    sure pairs in its text; the order model named where the log's contexts allow it; and not
    said when the trajectories are short, σ_s is small (a soft truth) or the fit is a MAP."""
    from bayes_pairwise.caveats import (
        HARD_TRUTH_SIGMA,
        LONG_TRAJECTORY_STEPS,
        long_trajectories,
    )

    small = simulate_round_robin(7, n_contexts=30, random_seed=0).data
    big = simulate_round_robin(13, random_seed=0).data  # one context of 13: no order model
    strength = np.array([0.0, 1.0, 9.0])  # pairs (0, 1), (0, 2), (1, 2): two of three sure
    long = np.full((2, 5), 201)
    c = long_trajectories(_nuts_like(22.0, long, strength=strength), small)
    assert c.code == "long_trajectories" and c.judges == ()
    assert "took 201 leapfrog steps per draw (step size 0.05; no draw hit" in c.text
    assert "σ_s's posterior mean at 22" in c.text and "1/σ_s = 0.045 wide" in c.text
    assert "67% of the log's pairs" in c.text
    assert "(30 contexts of 7 items) --model positional_order fits" in c.text
    # the cause, with this model's prior: the prior sets σ_s, and σ_s the length
    assert "grows in proportion to σ_s" in c.text
    assert "its prior does (here σ_s ~ HalfNormal(sigma=10))" in c.text
    tight = _nuts_like(22.0, long)
    tight.set_params(priors={"sigma_s": {"sigma": 2.5}})
    assert "σ_s ~ HalfNormal(sigma=2.5)" in long_trajectories(tight, small).text
    assert "--model" not in long_trajectories(_nuts_like(22.0, long), big).text
    short = np.full((2, 5), LONG_TRAJECTORY_STEPS - 1)
    assert long_trajectories(_nuts_like(22.0, short), small) is None
    hit = np.zeros((2, 5), dtype=bool)
    hit[1, 2] = True
    c = long_trajectories(_nuts_like(22.0, short, hits=hit), small)
    assert "1 of 10 draws hit the maximum tree depth" in c.text
    assert long_trajectories(_nuts_like(HARD_TRUTH_SIGMA * 0.9, long), small) is None
    fit = _nuts_like(22.0, long)
    fit.method_ = "map"
    assert long_trajectories(fit, small) is None


@pytest.mark.slow
def test_a_hard_truth_fit_carries_the_long_trajectories_caveat_to_the_crosscheck() -> None:
    """Real NUTS: on 60 round robins of 7 with a hard truth the positional fit takes long
    trajectories with a large σ_s, records the caveat with its own step count, and the
    cross-check of that fit states it; a soft truth of the same design (σ 1.5) does not."""
    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.pymc_models.diagnostics import trajectory_stats

    hard = simulate_round_robin(7, eps_plus=0.03, eps_minus=0.15, n_contexts=60, random_seed=0)
    m = PositionalBias().fit(hard.data, random_seed=1)
    (c,) = [c for c in m.caveats_ if c.code == "long_trajectories"]
    st = trajectory_stats(m.idata_)
    assert st.steps_per_draw >= 100
    assert f"took {st.steps_per_draw:.0f} leapfrog steps per draw" in c.text
    assert "--model positional_order" in c.text
    assert caveats_from_idata(m.idata_)[-1] == c  # stored with the fit
    cc = crosscheck(hard.data, m, delta_s=False, random_seed=0)
    assert c.text in cc.caveats
    soft = simulate_round_robin(
        7, eps_plus=0.03, eps_minus=0.15, n_contexts=60, soft_sigma=1.5, random_seed=0
    )
    m2 = PositionalBias().fit(soft.data, random_seed=1)
    assert trajectory_stats(m2.idata_).steps_per_draw < 100
    assert "long_trajectories" not in [c.code for c in m2.caveats_]


def test_judges_with_the_same_finding_share_one_caveat_with_their_own_numbers() -> None:
    """judging_the_judges (9 judges) printed 19 caveats under its headline: the tie-cluster
    caveat 7 times and the within-pair correlation caveat 9 times, each with the same
    explanation after one judge's numbers. Each is now one caveat: every judge's numbers, the
    explanation once, and every judge it concerns refers to it."""
    import bayes_pairwise as bp
    from bayes_pairwise.crosscheck import crosscheck

    data = bp.datasets.load("judging_the_judges")
    cc = crosscheck(data, models=(), progress=False, **LEAN)
    owners = dict(zip(cc.caveats, cc.caveat_judges(), strict=True))
    (ties,) = [t for t in owners if t.startswith("Ties cluster by context")]
    (corr,) = [t for t in owners if t.startswith("Within-pair error correlation")]
    assert len(owners[ties]) == 7 and "gpt-3.5-turbo-0125" not in owners[ties]
    assert owners[corr] == ()  # all nine judges
    assert ties.count("its tie counts per context vary") == 7
    assert ties.count("The models fit one tie rate") == 1
    assert corr.count("repeats agree") == 9 and corr.count("Errors are correlated") == 1
    assert "judge gpt-4-0613: 157 pair(s) with repeats in both orders" in corr
    refs = cc.headline().set_index("judge")["caveats"]
    number = str(cc.caveats.index(corr) + 1)
    assert all(number in r.split(", ") for r in refs)
    # the numbers in increasing order (PRD's gpt35 read "5, 2, 3, 10")
    assert all(
        [int(k) for k in r.split(", ")] == sorted(int(k) for k in r.split(", ")) for r in refs
    )
    assert any(len(r.split(", ")) > 1 for r in refs)


def test_the_headline_refers_to_caveats_in_increasing_order() -> None:
    """PRD's headline read gpt35 "5, 2, 3" and gpt4 "6, 7, 2, 3": each judge's own caveats
    first, then the ones an earlier judge had numbered. The numbers now increase."""
    import bayes_pairwise as bp
    from bayes_pairwise.crosscheck import crosscheck

    cc = crosscheck(bp.datasets.load("prd_vicuna80"), models=(), progress=False, **LEAN)
    refs = cc.headline().set_index("judge")["caveats"]
    assert refs["gpt35"] == "2, 3, 5" and refs["gpt4"] == "2, 3, 6, 7"
    for j, r in refs.items():
        numbers = [int(k) for k in r.split(", ")]
        assert numbers == sorted(numbers), j
        # the same caveats as the verdict's own list, only ordered
        verdict = cc.verdicts.set_index("judge").loc[j, "caveats"]
        assert {cc.caveats[k - 1] for k in numbers} == set(verdict)


def test_a_judge_that_always_picks_one_position_is_said_to_say_nothing(tmp_path, capsys) -> None:
    """A judge whose decided verdicts all pick the first-shown text (a broken prompt, or a
    parser that falls back to 'A') got NO VERDICT with "not assessed (no classical
    interval)" and no word on why. The caveat and its verdict now say that its verdicts
    depend on the position alone; the sound judge beside it is not named."""
    import pandas as pd

    from bayes_pairwise.caveats import one_position_only
    from bayes_pairwise.crosscheck import crosscheck
    from bayes_pairwise.data import load_comparisons

    sound = simulate_round_robin(8, eps=0.1, n_contexts=5, random_seed=0).frame
    frame = pd.concat(
        [sound.assign(judge="sound"), sound.assign(judge="broken", outcome="first")],
        ignore_index=True,
    )
    data = load_comparisons(frame, context="context", judge="judge")
    c = one_position_only(data)
    assert c.judges == ("broken",)
    assert "judge broken picked the text shown first in all 280 of its decided verdicts" in c.text
    cc = crosscheck(data, models=("positional",), progress=False, **LEAN_MAP)
    texts = cc.verdicts.set_index("judge")["text"]
    assert "Its decided verdicts all pick one position" in texts["broken"]
    assert "one position" not in texts["sound"]
    owners = dict(zip(cc.caveats, cc.caveat_judges(), strict=True))
    (alone,) = [t for t in owners if t.startswith("Verdicts by position alone")]
    assert owners[alone] == ("broken",) and "all 280 of its decided verdicts" in alone
    # its rates read as what they are (not "ε₋ ≥ 1.000 — lower bound"), in the headline too
    assert cc.one_position == {"broken": "first"}
    reads = cc.what_it_shows("broken")["reads_as"]
    assert "≥" not in reads and "lower bound" not in reads
    assert "not a finding: every decided verdict picks the text shown first" in reads
    assert "ε₊ + ε₋ = 1" in reads
    assert "lower bound" in cc.what_it_shows("sound")["reads_as"]
    head = cc.headline().set_index("judge")["reads as"]
    assert head["broken"] == reads
    assert cc.to_dict()["one_position"] == {"broken": "first"}
    # estimate says it whatever the method
    from bayes_pairwise.cli import main

    path = tmp_path / "broken.csv"
    frame.to_csv(path, index=False)
    for method in ("scom", "bt-mm"):
        argv = ["estimate", str(path), "--context-column", "context", "--judge-column", "judge"]
        assert main([*argv, "--method", method, "--json"]) == 0
        said = json.loads(capsys.readouterr().out)["warnings"]
        assert any(w.startswith("Verdicts by position alone — judge broken") for w in said)
    # fit --json reads its rates the same way
    argv = ["fit", str(path), "--context-column", "context", "--judge-column", "judge"]
    assert main([*argv, "--model", "positional", "--map", "--json"]) == 0
    fit_reads = json.loads(capsys.readouterr().out)["reads_as"]
    assert fit_reads["broken"].startswith("ε₊ 0.000, ε₋ 1.000 — not a finding: every decided")
    assert "lower bound" in fit_reads["sound"]
    # fewer than MIN_PAIRS_TEST decided verdicts: nothing to say yet
    few = load_comparisons(sound.head(6).assign(outcome="first"))
    assert one_position_only(few) is None
    # a log that does not record the presentation order (Arena: 'first' is model_a) has no
    # position to speak of
    arena = load_comparisons(
        pd.DataFrame(
            {
                "model_a": sound["first"],
                "model_b": sound["second"],
                "winner": "model_a",
            }
        )
    )
    assert not arena.order_recorded and one_position_only(arena) is None


def _battle_files(tmp_path):
    """The same battle log twice on disk: in Arena's layout (order not recorded) and with its
    presentation order."""
    path = tmp_path / "battles.csv"
    frame = _battle_log(3, arena=True).to_frame()
    frame.rename(columns={"first": "model_a", "second": "model_b"}).assign(
        winner=np.where(frame["outcome"] == 1, "model_a", "model_b")
    ).drop(columns=["outcome"]).to_csv(path, index=False)
    recorded = tmp_path / "recorded.csv"
    _battle_log(3, arena=False).to_frame().to_csv(recorded, index=False)
    return path, recorded


def test_fit_reads_no_position_rate_where_the_order_was_not_recorded(tmp_path, capsys) -> None:
    """A battle log without its presentation order, fitted with the uniform model: its text
    printed the sharp bounds of ε₊ and ε₋ (rates of the nominal label) with no caveat. It now
    reads ε alone, as the cross-check's basis does; a positional fit, which reads ε₊ and ε₋
    (with its caveat), keeps their bounds beside them, and a log with its order keeps all."""
    from bayes_pairwise.cli import main

    path, recorded = _battle_files(tmp_path)

    def fit(log, model, json_out):
        argv = ["fit", str(log), "--model", model, "--map", *(["--json"] if json_out else [])]
        assert main(argv) == 0
        out = capsys.readouterr().out
        return json.loads(out) if json_out else out.splitlines()

    text = fit(path, "uniform", False)
    (line,) = [t for t in text if t.startswith("sharp bounds")]
    assert "ε ∈ [" in line and "ε₊" not in line and "ε₋" not in line
    assert text[0].startswith("ε ") and "ε₊" not in text[0]
    assert fit(path, "uniform", True)["bounds_read"] == ["eps"]
    assert fit(path, "positional", True)["bounds_read"] == ["eps_plus", "eps_minus", "eps"]
    (line,) = [t for t in fit(recorded, "uniform", False) if t.startswith("sharp bounds")]
    assert "ε₊ ∈ [" in line and "ε₋ ∈ [" in line


def test_estimate_reads_the_bounds_fit_reads_where_the_order_was_not_recorded(
    tmp_path, capsys
) -> None:
    """``estimate --method scom`` on a battle log without its presentation order printed the
    sharp bounds of ε₊ and ε₋ (the nominal label's rates) where ``fit`` prints ε's alone. The
    note now reads the bounds of the rates the method reads, by fit's rule: ε for S_com and
    Δ_S, all three for the moments (which split by position, with their caveat), all three
    where the order was recorded."""
    from bayes_pairwise.cli import main

    path, recorded = _battle_files(tmp_path)

    def estimate(log, method):
        assert main(["estimate", str(log), "--method", method, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert main(["estimate", str(log), "--method", method]) == 0
        (note,) = [t for t in capsys.readouterr().out.splitlines() if "sharp lower" in t]
        return out["bounds_read"], note

    read, note = estimate(path, "scom")
    assert read == ["eps"] and "ε ≥ " in note and "ε₊" not in note and "ε₋" not in note
    assert main(["fit", str(path), "--model", "uniform", "--map", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bounds_read"] == read
    assert estimate(path, "moments")[0] == ["eps_plus", "eps_minus", "eps"]
    read, note = estimate(recorded, "scom")
    assert read == ["eps_plus", "eps_minus", "eps"] and "ε₊ ≥ " in note and "ε₋ ≥ " in note


def test_many_judges_short_of_pairs_get_one_caveat_each_kind():
    """LLMFAO's shape: judges with a handful of verdicts, no pair in both orders. Each judge
    had its own 'too few verdicts' and 'pair difficulty: not applicable' caveat, the same
    paragraph with its counts (183 caveats under `compare llmfao`'s headline); now each is
    said once, every judge's counts in it and the explanation once, and every judge's row
    refers to it."""
    from bayes_pairwise.crosscheck import crosscheck

    rng = np.random.default_rng(0)
    rows = []
    for j in range(12):
        n = 3 + j  # judge j: its own number of pairs, each shown once
        for k in range(n):
            a, b = f"t{j}_{k}a", f"t{j}_{k}b"
            rows.append((f"judge{j}", a, b, "first" if rng.random() < 0.7 else "second"))
    df = pd.DataFrame(rows, columns=["judge", "first", "second", "outcome"])
    data = bp.load_comparisons(df)
    cc = crosscheck(data, models=(), **{**LEAN_MAP, "leaderboard": False})
    few = [t for t in cc.caveats if t.startswith("Too few verdicts to say: ")]
    na = [t for t in cc.caveats if t.startswith("Pair difficulty: not applicable — ")]
    assert len(few) == 1 and len(na) == 1
    for j in range(12):
        assert f"judge 'judge{j}' has {3 + j} verdicts, 0 pairs seen in both orders." in few[0]
        assert f"judge judge{j}: none of the {3 + j} pairs is decided in both orders." in na[0]
    assert few[0].count("need at least") == 1 and na[0].count("No error can then repeat") == 1
    assert "judge judge0: judge" not in few[0]  # a sentence that names its judge: once
    for refs in cc.verdicts["caveats"]:
        assert few[0] in refs and na[0] in refs
    # one judge alone reads as before: one sentence, the judge named once
    block = dict(data.by_judge())["judge0"]
    (alone,) = [c for c in caveats_for(block, model_kind="classical") if c.code.startswith("too")]
    assert alone.text.startswith("Too few verdicts to say: judge 'judge0' has 3 verdicts, ")


def test_identification_text_of_many_judges_says_each_statement_once():
    """`fit` on a log of several judges joins their identification statements: LLMFAO's 124
    wrote the one 'not applicable' paragraph 124 times (44,000 characters). Judges without a
    pair decided in both orders are now one statement with each judge's count; judges whose
    statements are the same (judging_the_judges' repeats: 'weakly identified') are named
    together before it once."""
    from bayes_pairwise.caveats import identification_text
    from bayes_pairwise.identification import NOT_APPLICABLE_SHARED

    rows = [
        (f"judge{j}", f"t{j}_{k}a", f"t{j}_{k}b", "first") for j in range(6) for k in range(3 + j)
    ]
    data = bp.load_comparisons(pd.DataFrame(rows, columns=["judge", "first", "second", "outcome"]))
    text, status = identification_text(data)
    assert status == "not applicable"
    assert text.startswith("Pair difficulty: not applicable — judge judge0: none of the 3 pairs")
    assert text.count(NOT_APPLICABLE_SHARED) == 1
    for j in range(6):
        assert f"judge judge{j}: none of the {3 + j} pairs is decided in both orders." in text
    jtj = bp.datasets.load("judging_the_judges")
    text, status = identification_text(jtj)
    assert status == "weakly identified"
    assert text.startswith("[" + ", ".join(jtj.judges) + "] Pair difficulty: weakly identified")
    assert text.count("Pair difficulty") == 1
