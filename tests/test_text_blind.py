"""Verdicts the log cannot tell from ones that ignore the texts (caveats.text_blind).

With errors that fall verdict by verdict, a pair shown in both orders picks the same position
twice with probability ab + (1 − a)(1 − b) (a = 1 − ε₊, b = ε₋), and at the first-position rate
r₁ = (a + b)/2 the ceiling r₁² + (1 − r₁)² exceeds it by exactly (a − b)²/2: so
1 − ε₊ − ε₋ = √(2 (ceiling − S_com)) needs no labels, and a judge whose verdicts ignore the
texts (ε₊ + ε₋ = 1) sits on the ceiling. The caveat says so where the interval of 1 − ε₊ − ε₋
reaches 0; the cross-check's verdict sentence and every door's "reads as" repeat it.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from crosscheck_kwargs import LEAN_MAP

from bayes_pairwise.caveats import caveats_for, text_blind, text_blind_judges
from bayes_pairwise.classical.descriptive import PositionalMoments, positional_moments
from bayes_pairwise.cli import main
from bayes_pairwise.conventions import z_value
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.simulate import simulate_hard_pairs, simulate_round_robin


def _moments(data):
    with warnings.catch_warnings():  # at ε₊ + ε₋ = 1 half the draws fall beyond the boundary
        warnings.simplefilter("ignore")
        return positional_moments(data)


def test_informedness_is_the_square_root_of_twice_the_distance_below_the_ceiling() -> None:
    m = PositionalMoments(
        eps_plus=0.1, eps_minus=0.2, eps_plus_se=0.01, eps_minus_se=0.01, s_com=0.26, r1=0.55,
        n_pairs=400, n_verdicts=800, at_boundary=False, judge="j", s_com_ceiling=0.505,
        s_com_excess_z=-0.245 / 0.02, s_com_excess_se=0.02, s_com_blind_se=0.025,
    )  # fmt: skip
    j, lo, hi = m.informedness()
    assert j == pytest.approx(np.sqrt(2 * 0.245)) == pytest.approx(0.7, abs=1e-12)
    half = 2 * z_value() * 0.02
    assert lo == pytest.approx(np.sqrt(0.49 - half)) and hi == pytest.approx(np.sqrt(0.49 + half))
    assert m.text_blind_z == pytest.approx(-0.245 / 0.025)
    assert not m.text_blind
    # S_com above its ceiling: the point is 0; the upper end from the larger standard error
    up = PositionalMoments(
        eps_plus=0.5, eps_minus=0.5, eps_plus_se=0.05, eps_minus_se=0.05, s_com=0.51, r1=0.5,
        n_pairs=400, n_verdicts=800, at_boundary=True, judge="j", s_com_ceiling=0.5,
        s_com_excess_z=0.5, s_com_excess_se=0.02, s_com_blind_se=0.025,
    )  # fmt: skip
    assert up.informedness()[:2] == (0.0, 0.0)
    assert up.text_blind_upper() == pytest.approx(np.sqrt(-0.02 + 2 * z_value() * 0.025))
    assert up.text_blind and up.pairs_to_tell() is None
    # just inside the test's reach: S_com z_value() null standard errors below the ceiling
    edge = {**up.__dict__, "s_com": 0.5 - 0.025 * z_value()}
    assert not PositionalMoments(**{**edge, "s_com": edge["s_com"] - 1e-9}).text_blind
    assert PositionalMoments(**{**edge, "s_com": edge["s_com"] + 1e-9}).text_blind
    # the same on too few pairs is not said (MIN_PAIRS_TEST)
    assert not PositionalMoments(**{**up.__dict__, "n_pairs": 9}).text_blind


def test_the_null_standard_error_is_the_closed_form_and_the_simulated_spread() -> None:
    """One verdict per order on n pairs: 2 r₁(1 − r₁)/√n; and on logs whose verdicts ignore the
    texts (ε₊ + ε₋ = 1), the spread of S_com − ceiling over 400 logs matches it, at a strong
    position preference too (where the sample's delta method did not)."""
    for ep, em in ((0.5, 0.5), (0.05, 0.95)):
        diffs, ses = [], []
        for s in range(400):
            m = _moments(simulate_round_robin(20, eps_plus=ep, eps_minus=em, random_seed=s).data)
            diffs.append(m.s_com - m.s_com_ceiling)
            ses.append(m.s_com_blind_se)
            assert m.s_com_blind_se == pytest.approx(2 * m.r1 * (1 - m.r1) / np.sqrt(190))
        assert np.std(diffs) == pytest.approx(np.mean(ses), rel=0.1)


@pytest.mark.parametrize(("eps_plus", "eps_minus"), [(0.05, 0.3), (0.2, 0.2), (0.3, 0.5)])
def test_informedness_recovers_one_minus_the_realised_rates(eps_plus, eps_minus) -> None:
    sim = simulate_round_robin(60, eps_plus=eps_plus, eps_minus=eps_minus, random_seed=4)
    j, lo, hi = _moments(sim.data).informedness()
    truth = 1 - sim.realised_eps_plus - sim.realised_eps_minus
    assert lo <= truth <= hi
    assert j == pytest.approx(truth, abs=0.03)


def test_a_judge_that_ignores_the_texts_is_flagged_and_a_good_one_is_not() -> None:
    """Calibration of the rule (both tests at 3 %): ε₊ + ε₋ = 1 (any position preference) on
    40 or 190 pairs is flagged in about 95 % of logs; a judge at ε 0.15 on 190 pairs never is,
    one at ε₊ 0.05, ε₋ 0.7 (1 − ε₊ − ε₋ = 0.25) seldom — the texts' wins across pairs show
    what S_com alone missed in 60 % of such logs — and one at ε 0.25 on 20 pairs often is (20
    pairs cannot show it)."""

    def share(n_items, n_contexts, ep, em, seeds=range(100)):
        hits = 0
        for s in seeds:
            sim = simulate_round_robin(
                n_items, eps_plus=ep, eps_minus=em, n_contexts=n_contexts, random_seed=s
            )
            hits += bool(text_blind_judges(sim.data))
        return hits / len(seeds)

    assert share(5, 4, 0.3, 0.7) >= 0.9
    assert share(20, 1, 0.1, 0.9) >= 0.9
    assert share(20, 1, 0.05, 0.95) >= 0.9  # a strong position preference
    assert share(20, 1, 0.5, 0.5) >= 0.9
    assert share(20, 1, 0.15, 0.15) == 0.0
    assert share(20, 1, 0.05, 0.7) <= 0.15
    assert share(5, 2, 0.25, 0.25) >= 0.4


def test_the_caveat_states_the_log_s_numbers_and_the_pairs_that_would_tell() -> None:
    data = simulate_round_robin(12, eps_plus=0.4, eps_minus=0.6, random_seed=0).data
    m = _moments(data)
    c = text_blind(data)
    assert c is not None and c.code == "text_blind"
    j = m.informedness()[0]
    assert f"over its {m.n_pairs:,} pairs shown in both orders S_com is {m.s_com:.3f}" in c.text
    hi = m.text_blind_upper()
    assert f"z = {m.text_blind_z:.1f} in that judge's standard errors" in c.text
    assert f"1 − ε₊ − ε₋ = {j:.2f}, at most {hi:.2f} (94%)" in c.text
    assert f"picks the text shown first in {100 * m.r1:.1f} %" in c.text
    codes = [x.code for x in caveats_for(data, model_kind="positional", test_correlation=False)]
    assert "text_blind" in codes
    # were the point the truth: the lower end reaches above 0 at about that many pairs
    need = m.pairs_to_tell()
    if need is not None:
        assert f"about {need:,} such pairs would tell it from 0" in c.text
        se = m.s_com_blind_se * np.sqrt(m.n_pairs / need)
        assert j * j - 2 * z_value() * se == pytest.approx(0.0, abs=1e-3)


def test_labels_position_only_and_beyond_the_ceiling_are_left_to_their_own_findings() -> None:
    # gold labels measure the rates directly
    sim = simulate_hard_pairs(10, random_seed=1)
    assert text_blind_judges(sim.data_unlabelled) and not text_blind_judges(sim.data)
    # every decided verdict 'first': the caveat 'verdicts by position alone' says more
    frame = simulate_round_robin(8, random_seed=0).frame.assign(outcome="first")
    assert not text_blind_judges(load_comparisons(frame))
    # a position preference that varies by pair: S_com beyond the ceiling (PRD's vicuna-13b)
    from bayes_pairwise.datasets import load

    prd = load("prd_vicuna80")
    assert set(text_blind_judges(prd)) == set()
    assert _moments(prd.for_judge("vicuna-13b")).beyond_rates


def test_ties_kept_read_the_pairs_decided_in_both_orders() -> None:
    """Under the tie policy 'model' the ceiling is the tie check's (decided verdicts of the
    pairs decided in both orders)."""
    frame = simulate_round_robin(20, eps_plus=0.35, eps_minus=0.65, random_seed=3).frame
    frame.loc[::9, "outcome"] = "tie"
    data = load_comparisons(frame, ties="model")
    found = text_blind_judges(data)
    assert type(found["judge"].ceiling).__name__ == "TiePositionCheck"
    assert found["judge"].ceiling.ceiling_numbers()[2] < 190  # pairs with a tie left out
    assert "pairs decided in both orders S_com" in text_blind(data).text
    # ties counted half: the moments of every pair shown in both orders, and the text says so
    half = load_comparisons(frame, ties="half")
    assert text_blind_judges(half)["judge"].ceiling.ceiling_numbers()[2] == 190
    assert "190 pairs shown in both orders (a tie counted half) S_com" in text_blind(half).text


def test_chatbot_arena_s_gpt35_judge_sits_on_the_ceiling_but_its_systems_differ() -> None:
    """The bundled Arena log (nominal 'first'; a pair's repeats answer different prompts):
    GPT-3.5-turbo picks the 'first'-labelled system in 86 % of its verdicts and S_com sits on
    that ceiling, so the within-pair test alone would call it text-blind; but the truth of a
    pair of systems varies from prompt to prompt, and across pairs its systems' wins differ far
    beyond chance (χ² ≈ 827 on 19 df): no judge is flagged."""
    from bayes_pairwise.classical.text_dependence import item_dependence
    from bayes_pairwise.datasets import load

    with warnings.catch_warnings():  # the order is not recorded: the loader says so
        warnings.simplefilter("ignore")
        data = load("chatbot_arena")
    gpt35 = data.for_judge("gpt-3.5-turbo")
    m = _moments(gpt35)
    assert m.text_blind and m.r1 == pytest.approx(0.862, abs=1e-3)
    items = item_dependence(gpt35)
    assert items.df == 19 and items.chi2 > 500 and items.p_value < 1e-100
    assert text_blind_judges(data) == {}
    # the ceiling figure's table marks it: on the ceiling, told apart across pairs
    from bayes_pairwise.caveats import ceiling_stats
    from bayes_pairwise.plot_data import ceiling_data

    row = ceiling_data({"gpt-3.5-turbo": ceiling_stats(gpt35)}).iloc[0]
    assert row["on_ceiling"] and not row["text_blind"]


@pytest.fixture(scope="module")
def blind_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("blind") / "blind.csv"
    sim = simulate_round_robin(8, eps_plus=0.45, eps_minus=0.5, n_contexts=10, random_seed=4)
    sim.frame.to_csv(path, index=False)
    return path


def test_every_door_says_it(blind_log, capsys) -> None:
    from bayes_pairwise.crosscheck import crosscheck

    data = load_comparisons(pd.read_csv(blind_log), context="context")
    found = text_blind_judges(data)["judge"]
    j, hi = found.point, found.upper
    cc = crosscheck(data, **LEAN_MAP)
    (sentence,) = cc.verdicts.text
    assert f"1 − ε₊ − ε₋ = {j:.2f}, at most {hi:.2f}" in sentence
    assert "cannot tell its verdicts from ones that ignore the texts" in sentence
    reads = cc.what_it_shows("judge")["reads_as"]
    assert reads.endswith(f"ignore the texts (1 − ε₊ − ε₋ ≤ {hi:.2f})")
    assert cc.to_dict()["text_blind"]["judge"]["upper"] == pytest.approx(hi)
    assert sum(c.startswith("Verdicts the log cannot tell") for c in cc.caveats) == 1
    argv = [str(blind_log), "--context-column", "context"]
    assert main(["fit", *argv, "--model", "positional", "--map", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["reads_as"].endswith(f"ignore the texts (1 − ε₊ − ε₋ ≤ {hi:.2f})")
    assert "text_blind" in [c["code"] for c in res["caveats"]]
    assert main(["estimate", *argv, "--method", "moments", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert any(w.startswith("Verdicts the log cannot tell") for w in res["warnings"])
    assert main(["leaderboard", *argv, "--n-boot", "20", "--json"]) == 0
    out = capsys.readouterr()
    assert [c["code"] for c in json.loads(out.out)["caveats"]] == ["text_blind"]
    assert "warning: Verdicts the log cannot tell from text-blind ones" in out.err
    # a board from a judge that reads the texts carries no such caveat
    reader = blind_log.parent / "reader.csv"
    simulate_round_robin(8, eps=0.1, n_contexts=10, random_seed=4).frame.to_csv(reader)
    assert main(["leaderboard", str(reader), "--context-column", "context", "--json"]) == 0
    out = capsys.readouterr()
    assert "caveats" not in json.loads(out.out) and "text-blind" not in out.err


def test_a_pooled_board_says_which_verdicts_it_counts_from_such_a_judge() -> None:
    """Two judges of one log, one that reads the texts and one that does not: the pooled
    board's note names the second with its share of the verdicts; the first is not flagged."""
    from crosscheck_kwargs import LEAN

    from bayes_pairwise.crosscheck import crosscheck

    good = simulate_round_robin(8, eps=0.1, n_contexts=10, random_seed=5).frame
    blind = simulate_round_robin(8, eps_plus=0.4, eps_minus=0.6, n_contexts=10, random_seed=6)
    frame = pd.concat([good.assign(judge="reader"), blind.frame.assign(judge="blind")])
    data = load_comparisons(frame, context="context", judge="judge")
    cc = crosscheck(data, method="map", **{**LEAN, "leaderboard": True})
    assert list(cc.text_blind) == ["blind"]
    (note,) = [n for n in cc.ranking_notes if "cannot tell" in n]
    assert f"blind ({len(blind.frame):,} of {len(frame):,})" in note
    assert "reader" not in note
    # the report's figure draws the cross-check's own numbers
    import matplotlib

    matplotlib.use("Agg")
    from bayes_pairwise.plots import plot_ceiling

    df = cc.ceiling.set_index("judge")
    as_json = json.loads(json.dumps(cc.to_dict()["ceiling"]))
    by_judge = {r["judge"]: r for r in as_json}
    assert set(by_judge) == {"reader", "blind"}
    assert by_judge["blind"]["text_blind"] is True and by_judge["reader"]["text_blind"] is False
    assert by_judge["blind"]["r1"] == pytest.approx(df.loc["blind", "r1"])
    assert df["text_blind"].to_dict() == {"reader": False, "blind": True}
    assert df["on_ceiling"].to_dict() == {"reader": False, "blind": True}
    assert df.loc["blind", "informedness"] == pytest.approx(cc.text_blind["blind"][0])
    for j in ("reader", "blind"):
        m = cc.classical.moments[j]  # no ties: the moments of every pair in both orders
        assert df.loc[j, ["s_com", "r1", "ceiling"]].tolist() == pytest.approx(
            [m.s_com, m.r1, m.s_com_ceiling]
        )
        half = z_value() * m.s_com_excess_se
        assert df.loc[j, "upper"] - df.loc[j, "lower"] == pytest.approx(2 * half)
    ax = plot_ceiling(df.reset_index())
    drawn = {c.get_label(): c.lines[0].get_xydata() for c in ax.containers}
    assert drawn["judge"].tolist() == [[df.loc["reader", "r1"], df.loc["reader", "s_com"]]]
    blind_xy = drawn["judge the log cannot tell from text-blind"].tolist()
    assert blind_xy == [[df.loc["blind", "r1"], df.loc["blind", "s_com"]]]


def test_the_texts_wins_test_is_chi_squared_when_verdicts_ignore_the_texts() -> None:
    """item_dependence: on logs whose verdicts ignore the texts (every pair in both orders, so
    the statistic is exactly the score test) χ² averages its df and p is uniform; a judge at
    ε 0.3 on 8 round robins of 8 is told from them in nearly every log."""
    from bayes_pairwise.classical.text_dependence import item_dependence

    null = [
        item_dependence(
            simulate_round_robin(8, eps_plus=0.4, eps_minus=0.6, n_contexts=8, random_seed=s).data
        )
        for s in range(300)
    ]
    assert {r.df for r in null} == {8 * 7}
    assert np.mean([r.chi2 for r in null]) == pytest.approx(56, rel=0.05)
    ps = np.array([r.p_value for r in null])
    assert np.mean(ps < 0.1) == pytest.approx(0.1, abs=0.05)
    assert np.mean(ps < 0.5) == pytest.approx(0.5, abs=0.08)
    weak = [
        item_dependence(simulate_round_robin(8, eps=0.3, n_contexts=8, random_seed=s).data)
        for s in range(50)
    ]
    assert np.mean([r.p_value < 0.03 for r in weak]) >= 0.9


def test_a_large_group_of_texts_solves_by_conjugate_gradients_to_the_same_chi2(
    monkeypatch,
) -> None:
    from bayes_pairwise.classical import text_dependence

    data = simulate_round_robin(
        120, eps_plus=0.4, eps_minus=0.6, k_plus=2, k_minus=1, random_seed=0
    ).data  # shown first and second unequally often: the rank-one term is solved too
    dense = text_dependence.item_dependence(data)
    monkeypatch.setattr(text_dependence, "DENSE_GROUP_MAX", 10)
    sparse = text_dependence.item_dependence(data)
    assert sparse.df == dense.df == 119
    assert sparse.chi2 == pytest.approx(dense.chi2, rel=1e-8)


def _rao_score_test(data) -> tuple[float, int]:
    """The textbook score test, written out: a logistic regression of "the first-shown text
    won" on an intercept and +1/−1 text indicators, its score and information at the null fit
    (intercept logit r₁, strengths 0), the statistic g′I⁺g on the information's rank less one."""
    out = np.asarray(data.outcome, dtype=float)
    dec = (out == 0.0) | (out == 1.0)
    y = out[dec]
    first, second = np.asarray(data.first)[dec], np.asarray(data.second)[dec]
    texts, codes = np.unique(np.concatenate([first, second]), return_inverse=True)
    n = y.size
    x = np.zeros((n, 1 + texts.size))
    x[:, 0] = 1.0
    x[np.arange(n), 1 + codes[:n]] += 1.0
    x[np.arange(n), 1 + codes[n:]] -= 1.0
    p = y.mean()
    g = x.T @ (y - p)
    info = p * (1 - p) * x.T @ x
    return float(g @ np.linalg.pinv(info) @ g), int(np.linalg.matrix_rank(info)) - 1


@pytest.mark.parametrize(
    ("k_plus", "k_minus", "n_items", "n_contexts"),
    [(1, 1, 6, 3), (2, 1, 6, 3), (3, 0, 5, 4), (1, 0, 2, 30)],
    ids=["both-orders", "unequal-orders", "one-order-round-robins", "one-order-pairs"],
)
def test_the_texts_wins_test_is_the_textbook_score_test(k_plus, k_minus, n_items, n_contexts):
    """item_dependence equals the Rao score test of the logistic regression with an intercept
    (the position) and the texts' strengths, p estimated — where texts are shown first and
    second unequally often too (the statistic without the intercept's share, U′L⁺U / (p(1 − p)),
    is not), and where each pair is shown in one order only (2-item contexts: the intercept and
    the strengths are confounded and one df is lost)."""
    from bayes_pairwise.classical.text_dependence import item_dependence

    data = simulate_round_robin(
        n_items,
        eps_plus=0.3,
        eps_minus=0.5,
        k_plus=k_plus,
        k_minus=k_minus,
        n_contexts=n_contexts,
        random_seed=3,
    ).data
    got = item_dependence(data)
    stat, df = _rao_score_test(data)
    assert got.df == df
    assert got.chi2 == pytest.approx(stat, rel=1e-9)


@pytest.mark.filterwarnings("ignore:judge 'judge', moments outside their domain")
@pytest.mark.parametrize(("n_items", "n_contexts"), [(20, 1), (5, 6), (2, 40)])
def test_the_bootstrap_without_a_real_solution_is_the_pairs_resampled_one_by_one(
    n_items, n_contexts
) -> None:
    """Where the moment equations have no real solution the SEs resample the pairs: the
    replicates gathered as arrays give the SEs of one replicate at a time through
    moments_from_rates (the loop they replaced), on the same stream, to rounding."""
    from bayes_pairwise.classical.descriptive import moments_from_rates
    from bayes_pairwise.matrices import pair_counts

    hits = 0
    for seed in range(12):
        data = simulate_round_robin(
            n_items, eps_plus=0.45, eps_minus=0.55, n_contexts=n_contexts, random_seed=seed
        ).data
        m = positional_moments(data)
        if not m.no_real_solution:
            continue
        hits += 1
        pc = pair_counts(data)
        both = (pc.k_plus > 0) & (pc.k_minus > 0)
        first = pc.n1 * (pc.k_minus - pc.n2) + pc.n2 * (pc.k_plus - pc.n1)
        n_both = pc.k_plus * pc.k_minus
        rng = np.random.default_rng(0)
        reps = []
        for i in rng.integers(0, pc.n_pairs, size=(400, pc.n_pairs)):
            keep = both[i]
            if keep.any():
                s_b = first[i][keep].sum() / n_both[i][keep].sum()
                r_b = pc.first_wins[i].sum() / pc.n_verdicts[i].sum()
                reps.append(moments_from_rates(s_b, r_b, clip=False)[:2])
        sd = np.std(np.asarray(reps), axis=0, ddof=1)
        assert (m.eps_plus_se, m.eps_minus_se) == pytest.approx(tuple(sd), rel=1e-12)
    assert hits >= 3
