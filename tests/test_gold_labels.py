"""Issue 7 items 2 and 5: gold labels (``truth=``) and per-judge data restricted to its items."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit
from scipy.stats import binom

from bayes_pairwise.classical.descriptive import (
    descriptive_by_judge,
    labelled_error_rates,
    wilson_interval,
)
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DataError, DesignError
from bayes_pairwise.matrices import pair_counts, win_matrix
from bayes_pairwise.pymc_models.error_models import PositionalBias
from bayes_pairwise.pymc_models.fused import pair_logp_fused


# ----------------------------------------------------------------------------- item 5
def _three_judges() -> pd.DataFrame:
    """x sees a, b, c in context q1; y sees everything; z sees only q2 (with a dropped tie)."""
    rows = [
        ("q1", "a", "b", "first", "x"),
        ("q1", "b", "a", "a", "x"),
        ("q1", "b", "c", "second", "x"),
        ("q1", "a", "d", "first", "y"),
        ("q1", "d", "c", "d", "y"),
        ("q2", "a", "b", "second", "y"),
        ("q2", "e", "f", "first", "z"),
        ("q2", "f", "e", "tie", "z"),
        ("q2", "g", "a", "tie", "z"),  # g is seen by z only in this (dropped) tie
    ]
    return pd.DataFrame(rows, columns=["q", "first", "second", "outcome", "judge"])


def test_for_judge_no_longer_keeps_items_the_judge_never_saw() -> None:
    """The defect: for_judge kept every item of the log (o1-mini: 690 of 1,240 seen)."""
    data = load_comparisons(_three_judges(), judge="judge", context="q", ties="drop")
    assert data.n_items == 9
    x = data.for_judge("x")
    assert x.items == ("q1::a", "q1::b", "q1::c")
    assert x.item_names == ("a", "b", "c")
    assert x.contexts == ("q1",)
    assert x.item_context.tolist() == [0, 0, 0]
    assert x.n_comparisons == 3
    z = data.for_judge("z")
    # g appears for z only as the first item of a dropped tie: kept (the tie refers to it)
    assert z.items == ("q2::e", "q2::f", "q2::g")
    assert z.contexts == ("q2",)
    assert (z.n_ties, z.n_ties_dropped) == (2, 2)
    assert [z.items[i] for i in z.dropped_tie_item] == ["q2::f", "q2::g"]
    assert z.dropped_tie_judge.tolist() == [0, 0]
    y = data.for_judge("y")
    assert y.items == ("q1::a", "q1::c", "q1::d", "q2::a", "q2::b")
    assert y.contexts == ("q1", "q2") and y.item_context.tolist() == [0, 0, 0, 1, 1]
    assert (y.n_ties, y.n_ties_dropped) == (0, 0)
    # verdicts map back to the same labels as in the whole log
    for j, block in data.by_judge():
        full = data.to_frame()
        full = full[full["judge"] == j].drop(columns="judge").reset_index(drop=True)
        part = block.to_frame().drop(columns="judge")
        pd.testing.assert_frame_equal(part, full)


def test_for_judge_counts_equal_unrestricted_ones_on_kept_items() -> None:
    rng = np.random.default_rng(7)
    items = [f"m{k}" for k in range(12)]
    rows = []
    for judge, pool in (("big", items), ("small", items[3:8])):
        for _ in range(60):
            a, b = rng.choice(pool, 2, replace=False)
            rows.append((a, b, str(rng.choice(["first", "second", "tie"])), judge))
    df = pd.DataFrame(rows, columns=["first", "second", "outcome", "judge"])
    data = load_comparisons(df, judge="judge", ties="half")
    small = data.for_judge("small")
    assert set(small.items) <= set(items[3:8]) and small.n_items == len(set(small.items))
    assert small.n_items < data.n_items == 12
    # win counts of the judge over the whole item set, computed without for_judge
    m = data.judge == data.judge_index("small")
    x = np.zeros((data.n_items, data.n_items))
    np.add.at(x, (data.first[m], data.second[m]), data.outcome[m])
    np.add.at(x, (data.second[m], data.first[m]), 1.0 - data.outcome[m])
    full = pd.DataFrame(x, index=list(data.items), columns=list(data.items))
    got = win_matrix(data, judge="small")
    assert list(got.index) == list(small.items)
    pd.testing.assert_frame_equal(got, full.loc[got.index, got.columns])
    # items outside the judge's set have no verdicts of that judge
    rest = [it for it in data.items if it not in small.items]
    assert full.loc[rest].to_numpy().sum() == 0 and full[rest].to_numpy().sum() == 0
    # pair counts: same rows, keyed by item labels
    pc_small = pair_counts(small).to_frame().drop(columns="judge")
    pc_full = pair_counts(data).to_frame()
    pc_full = pc_full[pc_full["judge"] == "small"].drop(columns="judge").reset_index(drop=True)
    pd.testing.assert_frame_equal(pc_small, pc_full)
    # descriptive statistics per judge unchanged by the restriction
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # S_com > 1/2 on random verdicts
        desc = descriptive_by_judge(data)
    assert desc.loc["small", "n_verdicts"] == 60
    assert desc.loc["small", "n_pairs"] == len(pc_full)


# ----------------------------------------------------------------------------- loading
def _labelled() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "first": ["a", "b", "a", "c", "b", "c"],
            "second": ["b", "a", "c", "a", "c", "b"],
            "outcome": ["first", "first", "c", "tie", "first", "second"],
            "judge": ["j1", "j2", "j1", "j1", "j2", "j2"],
            "truth": ["a", None, "", "c", None, None],
        }
    )


def test_truth_is_spread_over_the_pair_and_carried_through_subsets() -> None:
    data = load_comparisons(_labelled(), judge="judge", ties="model", truth="truth")
    a, c = data.items.index("a"), data.items.index("c")
    assert data.truth.tolist() == [a, a, c, c, -1, -1]
    assert data.has_truth and data.n_labelled == 4
    assert data.to_frame()["truth"].fillna("?").tolist() == ["a", "a", "c", "c", "?", "?"]
    assert data.settings()["n_labelled"] == 4
    j2 = data.for_judge("j2")  # items a, b, c: b–c unknown, a–b labelled
    assert [j2.items[t] if t >= 0 else None for t in j2.truth] == ["a", None, None]
    dropped = data.drop_ties()
    assert [dropped.items[t] for t in dropped.truth[:3]] == ["a", "a", "c"]
    assert dropped.truth.tolist() == [a, a, c, -1, -1]
    # without the column everything is unknown
    plain = load_comparisons(_labelled(), judge="judge", ties="model")
    assert plain.truth.tolist() == [-1] * 6 and not plain.has_truth


def test_truth_with_contexts_and_numeric_ids() -> None:
    df = pd.DataFrame(
        {
            "first": [1, 2, 1, 2],
            "second": [2, 1, 2, 1],
            "outcome": ["first", "first", "second", "second"],
            "q": [1, 1, 2, 2],
            "gold": [2.0, np.nan, 1.0, np.nan],
        }
    )
    data = load_comparisons(df, context="q", truth="gold")
    assert data.items == ("1::1", "1::2", "2::1", "2::2")
    assert data.truth.tolist() == [1, 1, 2, 2]
    assert data.for_context("2").truth.tolist() == [0, 0]
    pooled = data.pool_contexts()
    assert pooled.items == ("1", "2") and pooled.truth.tolist() == [1, 1, 0, 0]


def test_label_outside_the_pair_is_a_data_error_naming_rows() -> None:
    df = _labelled()
    df.loc[4, "truth"] = "a"  # pair b–c
    df.loc[5, "truth"] = "z"  # not an item at all
    with pytest.raises(DataError, match="not in the row's pair") as exc:
        load_comparisons(df, judge="judge", ties="model", truth="truth")
    assert exc.value.rows == [4, 5] and exc.value.column == "truth"


def test_inconsistent_labels_within_a_pair_are_a_data_error_naming_rows() -> None:
    df = _labelled()
    df.loc[1, "truth"] = "b"  # row 0 says a, row 1 (same pair, other order) says b
    with pytest.raises(DataError, match="different gold labels") as exc:
        load_comparisons(df, judge="judge", ties="model", truth="truth")
    assert exc.value.rows == [0, 1] and exc.value.column == "truth"
    # the same pair in different contexts may have different truths
    ok = pd.DataFrame(
        {"first": ["a", "a"], "second": ["b", "b"], "outcome": ["first"] * 2, "q": [1, 2]}
    )
    ok["t"] = ["a", "b"]
    assert load_comparisons(ok, context="q", truth="t").truth.tolist() == [0, 3]
    with pytest.raises(DataError, match="different gold labels"):
        load_comparisons(ok, truth="t")


def test_pair_counts_truth_code() -> None:
    data = load_comparisons(_labelled(), judge="judge", ties="model", truth="truth")
    pc = pair_counts(data).to_frame().assign(truth=pair_counts(data).truth)
    got = {(r.judge, r.item_i, r.item_j): r.truth for r in pc.itertuples()}
    assert got == {
        ("j1", "a", "b"): 1,
        ("j1", "a", "c"): 0,
        ("j2", "a", "b"): 1,
        ("j2", "b", "c"): -1,
    }


# ----------------------------------------------------------------------------- classical
def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(81, 263)  # Newcombe (1998), example (i)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = wilson_interval(np.array([1, 0]), np.array([4, 0]))
    assert np.isnan(lo[1]) and np.isnan(hi[1]) and round(float(lo[0]), 4) == 0.0456


def test_labelled_error_rates_match_hand_counts() -> None:
    # truth: a > b; j1 shows a first 4 times (1 wrong, 1 tie), b first 3 times (2 wrong)
    rows = [("a", "b", o, "j1") for o in ("first", "first", "second", "tie")]
    rows += [("b", "a", o, "j1") for o in ("first", "first", "second")]
    rows += [("a", "b", "second", "j2"), ("b", "a", "tie", "j2"), ("c", "a", "c", "j2")]
    df = pd.DataFrame(rows, columns=["first", "second", "outcome", "judge"])
    df["truth"] = np.where(df["first"].eq("c") | df["second"].eq("c"), None, "a")
    t = labelled_error_rates(load_comparisons(df, judge="judge", ties="model", truth="truth"))
    j1 = t.loc["j1"]
    assert (j1.n_labelled, j1.n_plus, j1.errors_plus, j1.ties_plus) == (7, 3, 1, 1)
    assert (j1.n_minus, j1.errors_minus, j1.ties_minus, j1.n_ties) == (3, 2, 0, 1)
    assert j1.eps_plus == pytest.approx(1 / 3) and j1.eps_minus == pytest.approx(2 / 3)
    assert (j1.eps_plus_lo, j1.eps_plus_hi) == pytest.approx(wilson_interval(1, 3))
    assert j1.tie_rate == pytest.approx(1 / 7)
    j2 = t.loc["j2"]  # the c–a verdict is unlabelled
    assert (j2.n_labelled, j2.n_plus, j2.errors_plus, j2.n_minus, j2.ties_minus) == (2, 1, 1, 0, 1)
    assert np.isnan(j2.eps_minus) and np.isnan(j2.eps_minus_lo)
    with pytest.raises(DesignError, match="no gold labels"):
        labelled_error_rates(load_comparisons(df, judge="judge", ties="model"))


# ----------------------------------------------------------------------------- likelihoods
VAL = np.array([[2, 1]] * 3)
K = np.array([[3, 2]] * 3)
D = np.array([0.4, -0.7, 0.4])


def _branches(d: float, ep: float, em: float) -> tuple[float, float]:
    a = np.log(expit(d) * binom.pmf(2, 3, 1 - ep) * binom.pmf(1, 2, 1 - em))
    b = np.log(expit(-d) * binom.pmf(2, 3, em) * binom.pmf(1, 2, ep))
    return float(a), float(b)


def test_marginal_logp_observes_the_labelled_truth() -> None:
    args = (VAL, D, np.array([0.1]), np.array([0.3]), np.zeros(3, int), K)
    lp = pair_logp_fused(*args, truth=np.array([1, 0, -1])).eval()
    a0, _ = _branches(0.4, 0.1, 0.3)
    _, b1 = _branches(-0.7, 0.1, 0.3)
    a2, b2 = _branches(0.4, 0.1, 0.3)
    assert lp == pytest.approx([a0, b1, np.logaddexp(a2, b2)], rel=1e-10)
    unlabelled = pair_logp_fused(*args).eval()
    assert unlabelled[2] == pytest.approx(lp[2], rel=1e-12)


@pytest.mark.parametrize("positional", [False, True])
def test_tie_logp_observes_the_labelled_truth(positional: bool) -> None:
    val = np.array([[2, 1, 1, 1]] * 3)
    k = np.array([[4, 3]] * 3)
    tp, tm = 0.2, (0.35 if positional else 0.2)
    eta_p, eta_m = np.full(3, logit(tp)), np.full(3, logit(tm))
    lp = pair_logp_fused(
        val,
        D,
        np.array([0.1]),
        np.array([0.3]),
        np.zeros(3, int),
        k,
        truth=np.array([1, 0, -1]),
        eta_plus=eta_p,
        eta_minus=eta_m if positional else None,
    ).eval()

    def branch(d: float, better_first: bool) -> float:
        # i first 4 (1 tie, 2 wins of i among 3), j first 3 (1 tie, 1 win of i among 2)
        if better_first:  # T = i > j
            t = binom.pmf(1, 4, tp) * binom.pmf(1, 3, tm)
            w = binom.pmf(2, 3, 0.9) * binom.pmf(1, 2, 0.7)
            return float(np.log(expit(d) * t * w))
        t = binom.pmf(1, 4, tm) * binom.pmf(1, 3, tp)
        w = binom.pmf(2, 3, 0.3) * binom.pmf(1, 2, 0.1)
        return float(np.log(expit(-d) * t * w))

    want = [branch(0.4, True), branch(-0.7, False)]
    want.append(float(np.logaddexp(branch(0.4, True), branch(0.4, False))))
    assert lp == pytest.approx(want, rel=1e-10)


def test_error_models_store_truth() -> None:
    data = load_comparisons(_labelled(), judge="judge", ties="model", truth="truth")
    model = PositionalBias().build_model(data)
    assert model["pair_truth"].get_value().tolist() == [1, 0, 1, -1]
    plain = load_comparisons(_labelled(), judge="judge", ties="model")
    assert "pair_truth" not in PositionalBias().build_model(plain).named_vars


# ----------------------------------------------------------------------------- recovery
def hard_pair_log(
    n_items: int = 30,
    hard: float = 0.2,
    eps_plus: float = 0.10,
    eps_minus: float = 0.20,
    eps_hard: float = 0.6,
    labelled: float = 0.3,
    seed: int = 1,
) -> pd.DataFrame:
    """Round robin in both orders; a hard pair fools the judge with probability 0.6 in both
    orders; ``truth`` is given on a random ``labelled`` share of the pairs."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 1.5, n_items)
    rows = []
    for i in range(n_items):
        for j in range(i + 1, n_items):
            better, worse = (i, j) if rng.random() < expit(s[i] - s[j]) else (j, i)
            is_hard = rng.random() < hard
            lab = rng.random() < labelled
            for first, second in ((i, j), (j, i)):
                plus = first == better
                e = eps_hard if is_hard else (eps_plus if plus else eps_minus)
                winner = worse if rng.random() < e else better
                rows.append(
                    {
                        "first": f"m{first:02d}",
                        "second": f"m{second:02d}",
                        "winner": f"m{winner:02d}",
                        "truth": f"m{better:02d}" if lab else None,
                        "plus": plus,
                        "wrong": winner == worse,
                    }
                )
    return pd.DataFrame(rows)


def _map_rates(data) -> np.ndarray:
    m = PositionalBias().fit(data, method="map", random_seed=1)
    post = m.idata_.posterior
    return np.array(
        [float(post["eps_plus"].values.ravel()[0]), float(post["eps_minus"].values.ravel()[0])]
    )


@pytest.mark.slow
def test_labels_pull_map_rates_towards_the_realised_ones() -> None:
    df = hard_pair_log(seed=1)
    real = np.array([df.loc[df.plus, "wrong"].mean(), df.loc[~df.plus, "wrong"].mean()])
    assert real == pytest.approx([0.193, 0.301], abs=5e-4)
    free = _map_rates(load_comparisons(df, outcome="winner"))
    labelled = _map_rates(load_comparisons(df, outcome="winner", truth="truth"))
    # ground-truth-free: about 0.07 low in both; 30% labels halve the gap
    assert free == pytest.approx([0.122, 0.230], abs=0.01)
    assert labelled == pytest.approx([0.156, 0.264], abs=0.01)
    assert np.all(real - labelled < 0.55 * (real - free))
    # the plain labelled rates (30% of the pairs) cover the realised ones
    t = labelled_error_rates(load_comparisons(df, outcome="winner", truth="truth")).iloc[0]
    assert t.eps_plus_lo < real[0] < t.eps_plus_hi and t.eps_minus_lo < real[1] < t.eps_minus_hi
    # every pair labelled: the latent truth is fully observed and MAP hits the realised rates
    df_all = hard_pair_log(seed=1, labelled=1.0)
    real_all = [df_all.loc[df_all.plus, "wrong"].mean(), df_all.loc[~df_all.plus, "wrong"].mean()]
    full = _map_rates(load_comparisons(df_all, outcome="winner", truth="truth"))
    assert full == pytest.approx(real_all, abs=0.005)


def test_cli_truth_column_and_netcdf_round_trip_keep_the_labels(tmp_path, capsys) -> None:
    """``fit --truth-column`` conditions on the labels, and a saved fit reloads with them."""
    import json

    from bayes_pairwise.cli import main
    from bayes_pairwise.pymc_models import load_model

    df = hard_pair_log(n_items=12, seed=2)
    path = tmp_path / "d.csv"
    df.drop(columns=["plus", "wrong"]).to_csv(path, index=False)
    out = tmp_path / "fit.nc"
    args = ["fit", str(path), "--outcome", "winner", "--model", "positional", "--map", "--json"]
    assert main([*args, "--truth-column", "truth", "--out", str(out)]) == 0
    labelled = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    free = json.loads(capsys.readouterr().out)
    assert labelled["parameters"] != free["parameters"]  # the labels changed the fit
    m = load_model(out)
    assert "pair_truth" in m.model_.named_vars
    stored = m.idata_.constant_data["pair_truth"].values
    rebuilt = m.model_["pair_truth"].get_value()
    assert stored.tolist() == rebuilt.tolist() and (stored >= 0).any()
    # a bundled data set carries no labels: one line, status 2
    assert main(["fit", "prd_vicuna80", "--truth-column", "truth", "--map"]) == 2
    assert "--truth-column applies to files" in capsys.readouterr().err
