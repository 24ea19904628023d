"""Per-verdict error probabilities (issue 8 item 4): closed forms and alignment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import bayes_pairwise as bp
from bayes_pairwise.errors import NotFittedError
from bayes_pairwise.pymc_models import PositionalBias, UniformError
from bayes_pairwise.pymc_models.verdicts import (
    most_likely_errors,
    pair_truth_probability,
)


def test_pair_truth_probability_closed_form_positional():
    # i first 3 times (i won 2), j first 2 times (i won 0); eps+ = 0.1, eps- = 0.3, d = -0.2
    ep, em, d = 0.1, 0.3, -0.2
    a = expit(d) * (1 - ep) ** 2 * ep * (1 - em) ** 0 * em**2
    b = expit(-d) * em**2 * (1 - em) * ep**0 * (1 - ep) ** 2
    p = pair_truth_probability(d, ep, em, 2, 0, 3, 2)
    assert p == pytest.approx(a / (a + b), rel=1e-12)


def test_pair_truth_probability_position_dependent_ties():
    # one tie with i first, one decided verdict each way; tau+ = 0.2, tau- = 0.5
    ep, em, tp, tm, d = 0.1, 0.2, 0.2, 0.5, 0.3
    # T = i>j: i first -> better first (tau+), j first -> better second (tau-)
    a = expit(d) * tp * (1 - tp) * (1 - ep) * (1 - tm) * (1 - em)
    b = expit(-d) * tm * (1 - tm) * em * (1 - tp) * ep
    p = pair_truth_probability(
        d, ep, em, 1, 1, 1, 1, tie_plus=tp, tie_minus=tm, t1=np.array(1), t2=np.array(0)
    )
    assert p == pytest.approx(a / (a + b), rel=1e-12)


@pytest.fixture(scope="module")
def two_items():
    """A two-item log: a first twice (a won both), b first twice (split)."""
    df = pd.DataFrame(
        {
            "first": ["a", "a", "b", "b"],
            "second": ["b", "b", "a", "a"],
            "outcome": ["first", "first", "second", "first"],
        }
    )
    return bp.load_comparisons(df)


def test_two_item_context_by_hand_map(two_items):
    m = UniformError().fit(two_items, method="map", random_seed=0)
    eps = float(m.idata_.posterior["eps"].values.ravel()[0])
    s = m.idata_.posterior["strength"].values.reshape(-1)
    d = s[0] - s[1]
    # T = a>b: a wins 3 of 4 (three right, one wrong); T = b>a: three wrong, one right
    pa = expit(d) * (1 - eps) ** 3 * eps
    pb = expit(-d) * eps**3 * (1 - eps)
    p_a = pa / (pa + pb)
    v = m.verdict_errors(two_items)
    assert v.columns.tolist() == [
        "row",
        "judge",
        "first",
        "second",
        "outcome",
        "p_error",
        "p_first_better",
    ]
    assert v["row"].tolist() == [0, 1, 2, 3]
    expected = [1 - p_a, 1 - p_a, 1 - p_a, p_a]  # verdicts for a, a, a, then b
    np.testing.assert_allclose(v["p_error"], expected, rtol=1e-10)
    np.testing.assert_allclose(v["p_first_better"], [p_a, p_a, 1 - p_a, 1 - p_a], rtol=1e-10)


def test_two_item_context_averaged_over_draws(two_items, mock_sampler):
    """p_error is the posterior mean of the per-draw closed form (not the plug-in)."""
    m = PositionalBias(draws=50, chains=2).fit(two_items, random_seed=3)
    post = m.idata_.posterior
    ep = post["eps_plus"].values.reshape(-1)
    em = post["eps_minus"].values.reshape(-1)
    s = post["strength"].values.reshape(-1, 2)
    d = s[:, 0] - s[:, 1]
    # i = a: with a first 2 of 2 for a (n1=2), with b first a won 1 of 2 (n2=1)
    pa = expit(d) * (1 - ep) ** 2 * (1 - em) * em
    pb = expit(-d) * em**2 * ep * (1 - ep)
    p_a = np.mean(pa / (pa + pb))
    v = m.verdict_errors(two_items)
    np.testing.assert_allclose(v["p_error"], [1 - p_a, 1 - p_a, 1 - p_a, p_a], rtol=1e-10)


def test_ties_get_nan_and_gold_labels_fix_the_truth(mock_sampler):
    df = pd.DataFrame(
        {
            "first": ["a", "b", "a", "c"],
            "second": ["b", "a", "c", "a"],
            "outcome": ["first", "tie", "second", "first"],
            "gold": ["a", "a", "", ""],
        }
    )
    data = bp.load_comparisons(df, ties="model", truth="gold")
    m = UniformError(draws=20, chains=1).fit(data, random_seed=1)
    v = m.verdict_errors(data)
    assert np.isnan(v["p_error"].iloc[1])
    assert v["p_error"].iloc[0] == 0.0  # a beat b, and a is known to be better
    assert 0.0 < v["p_error"].iloc[2] < 1.0
    # both a-c verdicts are for c: the same probability of contradicting the pair's truth
    assert v["p_error"].iloc[2] == pytest.approx(v["p_error"].iloc[3], rel=1e-12)


def test_errors(two_items):
    with pytest.raises(NotFittedError):
        UniformError().verdict_errors(two_items)
    m = UniformError().fit(two_items, method="map", random_seed=0)
    other = bp.load_comparisons(
        pd.DataFrame({"first": ["a"], "second": ["c"], "outcome": ["first"]})
    )
    with pytest.raises(ValueError, match="not the data"):
        m.verdict_errors(other)


def test_most_likely_errors_per_judge():
    v = pd.DataFrame(
        {"judge": ["x", "x", "x", "y"], "p_error": [0.2, 0.9, np.nan, 0.4], "first": list("abcd")}
    )
    top = most_likely_errors(v, per_judge=1)
    assert top["first"].tolist() == ["b", "d"]


def _auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney: P(score of a positive > score of a negative))."""
    from scipy.stats import rankdata

    r = rankdata(score)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    return float((r[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def test_auc_helper():
    assert _auc(np.array([0.1, 0.9, 0.4]), np.array([False, True, False])) == 1.0
    assert _auc(np.array([0.5, 0.5]), np.array([False, True])) == 0.5


@pytest.mark.slow
def test_cli_verdicts_separate_true_flips(tmp_path):
    """fit --verdicts on the positional log: AUC of p_error against the known flips >= 0.8."""
    from bayes_pairwise.cli import main

    sim = bp.simulate_round_robin(30, eps_plus=0.04, eps_minus=0.30, repeats=2, random_seed=8)
    path = tmp_path / "d.csv"
    sim.frame.to_csv(path, index=False)
    out = tmp_path / "v.csv"
    rc = main(
        [
            "fit",
            str(path),
            "--model",
            "positional",
            "--draws",
            "500",
            "--tune",
            "500",
            "--chains",
            "2",
            "--seed",
            "1",
            "--verdicts",
            str(out),
        ]
    )
    assert rc == 0
    v = pd.read_csv(out)
    assert v["row"].tolist() == list(range(len(sim.frame)))
    flipped = ~sim.correct
    auc = _auc(v["p_error"].to_numpy(), flipped)
    print(f"AUC = {auc:.3f}, flips = {flipped.sum()}")
    assert auc >= 0.8


# ------------------------------------------------------------- the order models (one order)
def _order_log(seed: int) -> pd.DataFrame:
    """Round robins of 4, 3 and 5 items, both orders, two judges, 10 % ties, gold labels on
    a few pairs (the lower index better)."""
    import itertools

    rng = np.random.default_rng(seed)
    rows = []
    for c, n in enumerate((4, 3, 5)):
        for i, j in itertools.permutations(range(n), 2):
            gold = f"c{c}i{min(i, j)}" if rng.random() < 0.15 else ""
            for judge in ("A", "B"):
                out = rng.choice(["first", "second", "tie"], p=[0.5, 0.4, 0.1])
                rows.append((f"c{c}i{i}", f"c{c}i{j}", out, f"q{c}", judge, gold))
    return pd.DataFrame(rows, columns=["first", "second", "outcome", "q", "judge", "gold"])


@pytest.mark.parametrize(
    ("spec", "kw"), [("uniform_order", {}), ("positional_order", {"tie_positional": True})]
)
def test_order_model_verdict_errors_are_the_posterior_over_every_order(spec, kw, mock_sampler):
    """An order model's p_first_better of a verdict is, per draw of the rates, the share of the
    posterior weight of its context's orders (every order written out,
    tests/likelihood_oracles.py) that put the first-shown item above the second, averaged
    over the draws; p_error follows the verdict (NaN for a tie); a gold label fixes it; and
    verdict_error_probabilities gives the same table."""
    from likelihood_oracles import order_log_likelihoods

    from bayes_pairwise.pymc_models import get_model
    from bayes_pairwise.pymc_models.verdicts import verdict_error_probabilities

    frame = _order_log(3)
    data = bp.load_comparisons(frame, context="q", judge="judge", truth="gold", ties="model")
    m = get_model(spec, draws=6, chains=2, **kw).fit(data, random_seed=2)
    got = m.verdict_errors(data)
    post = m.idata_.posterior.stack(s=("chain", "draw")).transpose("s", ...)
    ep = post["eps_plus" if "eps_plus" in post else "eps"].values
    em = post["eps_minus" if "eps_minus" in post else "eps"].values
    ic = np.asarray(data.item_context)
    first, second = np.asarray(data.first), np.asarray(data.second)
    want = np.zeros(data.n_comparisons)
    for d in range(ep.shape[0]):
        rates = np.log(np.stack([ep[d], 1 - ep[d], em[d], 1 - em[d]], axis=1))
        ties = None
        if "tie_rate_plus" in post:
            tp, tm = post["tie_rate_plus"].values[d], post["tie_rate_minus"].values[d]
            ties = np.log(np.stack([tp, 1 - tp, tm, 1 - tm], axis=1))
        for c in range(data.n_contexts):
            perms, vals = order_log_likelihoods(data, rates, c, tie_rates=ties)
            w = np.exp(vals - vals.max())
            w /= w.sum()
            for v in np.flatnonzero(ic[first] == c):
                above = [p.index(first[v]) < p.index(second[v]) for p in perms]
                want[v] += float(w[np.array(above)].sum())
    want /= ep.shape[0]
    np.testing.assert_allclose(got["p_first_better"], want, rtol=1e-9, atol=1e-12)
    outcome = np.asarray(data.outcome)
    decided = outcome != 0.5
    np.testing.assert_allclose(
        got["p_error"][decided],
        np.where(outcome == 1.0, 1 - want, want)[decided],
        rtol=1e-9,
        atol=1e-12,
    )
    assert got["p_error"][~decided].isna().all()
    gold = frame["gold"].to_numpy() != ""
    labelled_first = frame["gold"].to_numpy() == frame["first"].to_numpy()
    np.testing.assert_allclose(
        got["p_first_better"][gold], labelled_first[gold].astype(float), atol=1e-12
    )
    assert got["p_first_better"].between(0.0, 1.0).all()
    pd.testing.assert_frame_equal(verdict_error_probabilities(m, data), got)


def test_order_model_verdict_errors_find_the_flips_and_the_cli_writes_them(tmp_path):
    """On a hard-truth log of 40 round robins of 5 (ε₊ 0.05, ε₋ 0.30), positional_order's MAP
    p_error ranks the verdicts the simulation flipped above the rest (AUC ≥ 0.9); `fit
    --verdicts` writes that table; a model without a latent truth (biased_bt) is refused
    before any fit."""
    from bayes_pairwise.cli import main
    from bayes_pairwise.pymc_models import PositionalOrder

    sim = bp.simulate_round_robin(5, eps_plus=0.05, eps_minus=0.30, n_contexts=40, random_seed=4)
    m = PositionalOrder().fit(sim.data, method="map", random_seed=0)
    v = m.verdict_errors(sim.data)
    assert _auc(v["p_error"].to_numpy(), ~np.asarray(sim.correct)) >= 0.9
    path = tmp_path / "d.csv"
    sim.data.to_frame().to_csv(path, index=False)
    out = tmp_path / "v.csv"
    args = ["fit", str(path), "--context-column", "context", "--map", "--seed", "0"]
    assert main([*args, "--model", "positional_order", "--verdicts", str(out)]) == 0
    written = pd.read_csv(out)
    np.testing.assert_allclose(written["p_error"], v["p_error"], rtol=1e-12)
    out.unlink()
    assert main([*args, "--model", "biased_bt", "--verdicts", str(out)]) == 2
    assert not out.exists()
