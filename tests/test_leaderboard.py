"""Leaderboard (issue 9 item 3): known answers, Chatbot Arena against an independent BT MLE,
bootstrap determinism, group_by on PRD, the Bayesian paths (MAP and a mocked NUTS), the plot."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import bayes_pairwise as bp
from bayes_pairwise import plots
from bayes_pairwise.classical.bradley_terry import BradleyTerry
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.leaderboard import (
    COLUMNS,
    Leaderboard,
    leaderboard,
    rank_probability_data,
    rank_statistics,
)

PRD_MODELS = {"bard", "claude", "gpt35", "gpt4", "vicuna-13b"}


def _log(counts: dict[tuple[str, str], tuple[int, int]], ties: str = "error") -> pd.DataFrame:
    """A comparison log from {(a, b): (wins of a, wins of b)}, alternating the shown order."""
    rows = []
    for (a, b), (wa, wb) in counts.items():
        for k in range(wa + wb):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            winner = a if k < wa else b
            rows.append((first, second, winner))
    return pd.DataFrame(rows, columns=["first", "second", "outcome"])


def _independent_mle(first: np.ndarray, second: np.ndarray, outcome: np.ndarray, n: int):
    """Bradley–Terry MLE by BFGS on the verdict-level log-likelihood (θ_0 fixed at 0)."""
    f, s, y = np.asarray(first), np.asarray(second), np.asarray(outcome, dtype=float)

    def full(phi):
        return np.concatenate([[0.0], phi])

    def nll(phi):
        d = full(phi)[f] - full(phi)[s]
        return float(np.sum(y * np.logaddexp(0.0, -d) + (1 - y) * np.logaddexp(0.0, d)))

    def grad(phi):
        d = full(phi)[f] - full(phi)[s]
        r = 1.0 / (1.0 + np.exp(-d)) - y  # d nll / d d
        g = np.bincount(f, r, n) - np.bincount(s, r, n)
        return g[1:]

    res = optimize.minimize(nll, np.zeros(n - 1), jac=grad, method="BFGS", options={"gtol": 1e-6})
    assert np.max(np.abs(grad(res.x))) < 1e-4, res.message  # at the optimum
    theta = full(res.x)
    return theta - theta.mean()


# --------------------------------------------------------------------------- Chatbot Arena
@pytest.fixture(scope="module")
def arena_human():
    from bayes_pairwise import datasets

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # order-not-recorded DesignWarning
        return datasets.load("chatbot_arena", judge="human")


@pytest.fixture(scope="module")
def arena_board(arena_human):
    return leaderboard(arena_human, judge="human", n_boot=200, random_seed=7)


def test_arena_human_has_all_20_systems(arena_human, arena_board):
    table = arena_board.table
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 20
    assert set(table["item"]) == set(arena_human.items)
    assert table["rank"].tolist() == list(range(1, 21))
    assert table["strength"].is_monotonic_decreasing
    assert table.loc[0, "item"] == "gpt-4"
    assert arena_board.judge == "human"
    assert arena_board.settings["resample"] == "verdict"
    assert arena_board.settings["n_units"] == arena_human.n_comparisons


def test_arena_order_matches_independent_mle(arena_human, arena_board):
    theta = _independent_mle(
        arena_human.first, arena_human.second, arena_human.outcome, arena_human.n_items
    )
    mle = pd.Series(theta, index=list(arena_human.items))
    ours = arena_board.table.set_index("item")["strength"]
    rho = stats.spearmanr(ours.to_numpy(), mle.reindex(ours.index).to_numpy()).statistic
    assert rho >= 0.98
    # MM with λ = 0 is the MLE itself: same numbers, not just the same order
    assert np.allclose(ours.to_numpy(), mle.reindex(ours.index).to_numpy(), atol=1e-4)


def test_arena_ties_half_as_the_cli_loads_it():
    """The CLI loads bundled data with ties='half': the order still matches the MLE."""
    from bayes_pairwise import datasets

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = datasets.load("chatbot_arena", judge="human", ties="half")
    lb = leaderboard(data, n_boot=100, random_seed=0)
    theta = _independent_mle(data.first, data.second, data.outcome, data.n_items)
    mle = pd.Series(theta, index=list(data.items)).reindex(lb.items)
    assert len(lb.table) == 20 and lb.data_summary["tie_policy"] == "half"
    assert stats.spearmanr(lb.table["strength"], mle).statistic >= 0.98
    t = lb.table
    assert (t["lower"] <= t["strength"]).all() and (t["strength"] <= t["upper"]).all()
    np.testing.assert_allclose(lb.rank_probabilities.sum(axis=1).to_numpy(), 1.0)


def test_arena_intervals_and_rank_probabilities(arena_board):
    t = arena_board.table
    assert (t["lower"] <= t["strength"]).all() and (t["strength"] <= t["upper"]).all()
    assert (t["upper"] - t["lower"] > 0).all()
    probs = arena_board.rank_probabilities
    assert probs.shape == (20, 20)
    assert list(probs.columns) == list(range(1, 21))
    np.testing.assert_allclose(probs.sum(axis=1).to_numpy(), 1.0, atol=1e-12)
    np.testing.assert_allclose(probs.sum(axis=0).to_numpy(), 1.0, atol=1e-12)  # one item per rank
    np.testing.assert_allclose(t["p_rank_1"].to_numpy(), probs[1].to_numpy())
    assert (t["rank_lower"] <= t["rank_upper"]).all()
    assert t.loc[0, "p_rank_1"] > 0.95  # gpt-4 leads clearly on 18,907 human verdicts


def test_arena_to_dict_is_json_ready(arena_board):
    d = arena_board.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert [r["item"] for r in back["items"]] == arena_board.table["item"].tolist()
    first = back["items"][0]
    assert set(first) == {*COLUMNS, "rank_probabilities"}
    assert len(first["rank_probabilities"]) == 20
    assert back["model"] == "bt" and back["method"] == "bootstrap" and back["hdi_prob"] == 0.94
    # ties are data by default (conventions.TIES): 18,907 decided verdicts and 8,012 ties
    assert back["data"]["n_comparisons"] == 26919
    assert back["data"]["n_comparisons"] - back["data"]["n_ties"] == 18907
    assert "rank_probabilities" not in arena_board.to_dict(rank_probabilities=False)["items"][0]


# --------------------------------------------------------------------------- known answers
def test_clear_order_gives_p_rank_1_near_one():
    df = _log({("a", "b"): (30, 2), ("a", "c"): (30, 1), ("b", "c"): (25, 5)})
    lb = leaderboard(load_comparisons(df), n_boot=300, random_seed=3)
    t = lb.table
    assert t["item"].tolist() == ["a", "b", "c"]
    assert t.loc[0, "p_rank_1"] >= 0.99
    assert t.loc[2, "p_rank_1"] == 0.0
    assert (t["rank_lower"].tolist(), t["rank_upper"].tolist()) == ([1, 2, 3], [1, 2, 3])


def test_rank_statistics_hand_computed():
    # draw 1: a > b > c; draw 2: b > a > c; draw 3: a > c > b; draw 4: a > b > c
    draws = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [2.0, 0.0, 1.0], [3.0, 2.0, 1.0]])
    probs, lo, hi = rank_statistics(draws, hdi_prob=0.5)
    expected = [[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]]
    np.testing.assert_allclose(probs, expected)
    assert lo.tolist() == [1, 1, 2] and hi.tolist() == [1, 2, 3]
    # 94%: the tails (3%) are smaller than any atom (25%), so the interval spans the support
    _, lo, hi = rank_statistics(draws, hdi_prob=0.94)
    assert lo.tolist() == [1, 1, 2] and hi.tolist() == [2, 3, 3]


def test_two_item_rank_probability_matches_binomial():
    """Two items, 11 verdicts, a won 7: a replicate ranks a first iff a wins ≥ 6 of the 11
    resampled verdicts, so P(rank_a = 1) = P(Binomial(11, 7/11) ≥ 6) exactly."""
    df = _log({("a", "b"): (7, 4)})
    lb = leaderboard(load_comparisons(df), n_boot=4000, random_seed=11)
    exact = float(stats.binom.sf(5, 11, 7 / 11))
    assert exact == pytest.approx(0.8276, abs=1e-3)
    p_a = float(lb.rank_probabilities.loc["a", 1])
    assert p_a == pytest.approx(exact, abs=0.03)  # ~5 SE of a 4000-replicate share
    assert float(lb.rank_probabilities.loc["b", 2]) == pytest.approx(p_a)
    # replicates where a won all 11 lose strong connectivity and are refitted with the ridge
    assert lb.settings["n_refit_with_ridge"] > 0
    assert lb.table.loc[0, "strength"] == pytest.approx(np.log(7 / 4) / 2)


def test_bootstrap_is_deterministic_with_a_seed():
    df = _log({("a", "b"): (12, 8), ("a", "c"): (10, 9), ("b", "c"): (11, 9)})
    data = load_comparisons(df)
    one = leaderboard(data, n_boot=300, random_seed=5)
    two = leaderboard(data, n_boot=300, random_seed=5)
    pd.testing.assert_frame_equal(one.table, two.table)
    pd.testing.assert_frame_equal(one.rank_probabilities, two.rank_probabilities)
    other = leaderboard(data, n_boot=300, random_seed=6)
    assert not np.allclose(one.table["lower"], other.table["lower"])
    np.testing.assert_allclose(one.table["strength"], other.table["strength"])  # same estimate


def test_ties_half_are_half_wins_as_in_bradley_terry():
    df = _log({("a", "b"): (6, 3), ("b", "c"): (5, 4), ("a", "c"): (7, 2)})
    df.loc[[0, 9, 20], "outcome"] = "tie"
    data = load_comparisons(df, ties="half")
    lb = leaderboard(data, n_boot=50, random_seed=0)
    bt = BradleyTerry().fit(data).strengths_
    ours = lb.table.set_index("item")["strength"]
    np.testing.assert_allclose(ours.reindex(bt.index).to_numpy(), bt.to_numpy(), atol=1e-7)
    assert lb.data_summary["tie_policy"] == "half" and lb.data_summary["n_ties"] == 3
    dropped = leaderboard(load_comparisons(df, ties="drop"), n_boot=50, random_seed=0)
    assert not np.allclose(dropped.table["strength"], lb.table["strength"])


def test_disconnected_data_use_the_ridge_and_say_so():
    df = _log({("a", "b"): (5, 0), ("b", "c"): (3, 2)})  # a never lost
    lb = leaderboard(load_comparisons(df), n_boot=50, random_seed=0)
    assert lb.settings["ridge"] == 0.1
    assert any("ridge" in note for note in lb.notes)
    assert lb.table["item"].tolist() == ["a", "b", "c"]
    # the note names the unbeaten item and says where its strength comes from (it said
    # "separate contexts or unbeaten items", naming none)
    (note,) = [n for n in lb.notes if "ridge" in n]
    assert "never beaten by the rest: {a}" in note and "come from the ridge" in note
    # two groups never compared with each other: named, and their ranks across groups
    # are said to come from the ridge, not from any verdict
    two = _log({("a", "b"): (3, 2), ("b", "a"): (2, 3), ("x", "y"): (4, 1), ("y", "x"): (2, 3)})
    lb = leaderboard(load_comparisons(two), n_boot=50, random_seed=0)
    (note,) = [n for n in lb.notes if "ridge" in n]
    assert "disconnected (2 components: {a, b} | {x, y})" in note
    assert "read ranks within a component only" in note


# --------------------------------------------------------------------------- result object
def test_leaderboard_is_immutable():
    df = _log({("a", "b"): (6, 3), ("b", "c"): (5, 4), ("a", "c"): (7, 2)})
    lb = leaderboard(load_comparisons(df), n_boot=50, random_seed=0)
    assert isinstance(lb, Leaderboard)
    with pytest.raises(AttributeError):
        lb.model = "other"
    t = lb.table
    t.loc[0, "strength"] = 99.0
    assert lb.table.loc[0, "strength"] != 99.0
    assert "a" in repr(lb) and "rank" in str(lb)


def test_errors():
    df = _log({("a", "b"): (6, 3), ("b", "c"): (5, 4), ("a", "c"): (7, 2)})
    two = pd.concat([df.assign(judge="x"), df.assign(judge="y")], ignore_index=True)
    data = load_comparisons(two, judge="judge")
    with pytest.raises(DesignError, match="pass judge="):
        leaderboard(data, n_boot=10)
    assert leaderboard(data, judge="y", n_boot=10, random_seed=0).judge == "y"
    with pytest.raises(ValueError, match="model must be one of"):
        leaderboard(data, judge="x", model="elo")
    with pytest.raises(ValueError, match="method='bootstrap'"):
        leaderboard(data, judge="x", method="nuts")
    with pytest.raises(ValueError, match="'nuts' or 'map'"):
        leaderboard(data, judge="x", model="uniform", method="bootstrap")
    with pytest.raises(TypeError, match="Comparisons"):
        leaderboard(df)


# --------------------------------------------------------------------------- group_by
@pytest.fixture(scope="module")
def prd_gpt4():
    from bayes_pairwise import datasets

    return datasets.load("prd_vicuna80", judge="gpt4")


def test_prd_without_group_by_is_a_design_error(prd_gpt4):
    with pytest.raises(DesignError, match="group_by='name'") as bt:
        leaderboard(prd_gpt4, n_boot=10)
    assert "latent true order" not in str(bt.value)
    # an error model: why pooling by name is asked for, not done by default as for bt
    with pytest.raises(DesignError, match="one latent true order for every context"):
        leaderboard(prd_gpt4, model="positional", method="map")


def test_group_by_name_ranks_the_five_answer_models(prd_gpt4):
    lb = leaderboard(prd_gpt4, group_by="name", n_boot=200, random_seed=2)
    t = lb.table
    assert set(t["item"]) == PRD_MODELS and len(t) == 5
    assert lb.group_by == "name"
    assert lb.settings["resample"] == "context" and lb.settings["n_units"] == 80
    assert t.loc[0, "item"] == "gpt4" and t.loc[0, "p_rank_1"] > 0.9
    assert (t["lower"] <= t["strength"]).all() and (t["strength"] <= t["upper"]).all()
    pooled = BradleyTerry().fit(prd_gpt4.pool_contexts()).strengths_
    np.testing.assert_allclose(
        t.set_index("item")["strength"].reindex(pooled.index).to_numpy(), pooled.to_numpy()
    )
    # a mapping to the same groups gives the same leaderboard (same resampled contexts)
    mapping = {item: item.split("::", 1)[1] for item in prd_gpt4.items}
    by_map = leaderboard(prd_gpt4, group_by=mapping, n_boot=200, random_seed=2)
    assert by_map.group_by == "mapping"
    pd.testing.assert_frame_equal(by_map.table, t)
    by_fn = leaderboard(
        prd_gpt4, group_by=lambda item: item.split("::", 1)[1], n_boot=200, random_seed=2
    )
    pd.testing.assert_frame_equal(by_fn.table, t)


def test_group_by_mapping_drops_verdicts_inside_a_group():
    df = _log({("a", "b"): (6, 3), ("b", "c"): (5, 4), ("a", "c"): (7, 2), ("c", "d"): (4, 4)})
    groups = {"a": "A", "b": "B", "c": "C", "d": "C"}
    lb = leaderboard(load_comparisons(df), group_by=groups, n_boot=20, random_seed=0)
    assert set(lb.table["item"]) == {"A", "B", "C"}
    assert any("8 verdicts" in note for note in lb.notes)
    half = _log({("a", "b"): (6, 3), ("b", "c"): (5, 4), ("a", "c"): (7, 2)})
    half.loc[[0, 9], "outcome"] = "tie"
    kept = leaderboard(
        load_comparisons(half, ties="half"), group_by={"a": "A", "b": "B", "c": "C"}, n_boot=20
    )
    plain = leaderboard(load_comparisons(half, ties="half"), n_boot=20)
    np.testing.assert_allclose(kept.table["strength"], plain.table["strength"])
    with pytest.raises(ValueError, match="no group"):
        leaderboard(load_comparisons(df), group_by={"a": "A"}, n_boot=20)
    with pytest.raises(ValueError, match="group_by must be"):
        leaderboard(load_comparisons(df), group_by="context", n_boot=20)


# --------------------------------------------------------------------------- Bayesian models
@pytest.fixture(scope="module")
def tiny_clear():
    return load_comparisons(_log({("a", "b"): (14, 4), ("a", "c"): (15, 3), ("b", "c"): (13, 5)}))


def test_bayesian_map_gives_strengths_without_intervals(tiny_clear):
    lb = leaderboard(tiny_clear, model="uniform", method="map", random_seed=0)
    t = lb.table
    assert t["item"].tolist() == ["a", "b", "c"]
    assert lb.method == "map" and lb.n_draws == 1 and lb.judge is None
    assert t[["lower", "upper", "p_rank_1"]].isna().all().all()
    assert lb.rank_probabilities.isna().all().all()
    assert any("MAP is a point estimate" in note for note in lb.notes)
    d = lb.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["items"][0]["lower"] is None


def test_bayesian_nuts_uses_posterior_draws(tiny_clear, mock_sampler):
    lb = leaderboard(
        tiny_clear,
        model="positional",
        random_seed=1,
        model_kwargs={"draws": 40, "chains": 2, "tune": 10},
    )
    assert mock_sampler and mock_sampler[0]["draws"] == 40
    assert lb.method == "nuts" and lb.n_draws == 80
    t = lb.table
    assert (t["lower"] <= t["strength"]).all() and (t["strength"] <= t["upper"]).all()
    np.testing.assert_allclose(lb.rank_probabilities.sum(axis=1).to_numpy(), 1.0)
    assert "HDI" in lb.interval
    # the rank probabilities are the shares of the posterior draws
    from bayes_pairwise.pymc_models import get_model

    fit = get_model("positional", draws=40, chains=2, tune=10).fit(
        tiny_clear, method="nuts", random_seed=1
    )
    draws = np.asarray(fit.idata_.posterior["strength"]).reshape(80, 3)
    probs, _, _ = rank_statistics(draws)
    order = [tiny_clear.items.index(i) for i in lb.items]
    np.testing.assert_allclose(lb.rank_probabilities.to_numpy(), probs[order])
    np.testing.assert_allclose(t["strength"].to_numpy(), draws.mean(axis=0)[order])


def test_ridge_is_for_bt_only(tiny_clear):
    with pytest.raises(ValueError, match="ridge applies"):
        leaderboard(tiny_clear, model="uniform", method="map", ridge=0.1)


# --------------------------------------------------------------------------- plot
def test_rank_probability_data_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = _log({("a", "b"): (12, 8), ("a", "c"): (10, 9), ("b", "c"): (11, 9)})
    lb = leaderboard(load_comparisons(df), n_boot=300, random_seed=5)
    full = rank_probability_data(lb)
    assert list(full.columns) == ["1", "2", "3"]
    np.testing.assert_allclose(full.to_numpy(), lb.rank_probabilities.to_numpy())
    cut = rank_probability_data(lb, max_rank=1, top=2)
    assert list(cut.columns) == ["1", ">1"] and list(cut.index) == list(lb.items[:2])
    np.testing.assert_allclose(cut.sum(axis=1).to_numpy(), 1.0)
    ax = plots.plot_rank_probabilities(lb)
    image = ax.get_images()[0]
    np.testing.assert_allclose(np.asarray(image.get_array()), full.to_numpy())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(lb.items)
    assert ax.get_xlabel() == "rank"
    _, given = plt.subplots()
    assert plots.plot_rank_probabilities(lb, ax=given) is given
    plt.close("all")


def test_cli_leaderboard_chatbot_arena_human_json(capsys) -> None:
    """Issue 9 must-show: ``bayes-pairwise leaderboard chatbot_arena --judge human --json``."""
    import json

    from bayes_pairwise.cli import main

    rc = main(["leaderboard", "chatbot_arena", "--judge", "human", "--json", "--n-boot", "200"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["items"]
    assert len(rows) == 20
    assert [r["rank"] for r in rows] == list(range(1, 21))
    assert all(r["lower"] <= r["strength"] <= r["upper"] for r in rows)
    strengths = [r["strength"] for r in rows]
    assert strengths == sorted(strengths, reverse=True)
    for r in rows:
        assert abs(sum(r["rank_probabilities"]) - 1.0) < 1e-9


def test_cli_leaderboard_ranks_names_across_contexts_as_compare_does(capsys, tmp_path) -> None:
    """PRD items live in contexts: ``leaderboard prd_vicuna80 --judge gpt4`` refused with
    "pass --group-by name" while compare and report rank the names by the same rule
    (``rank_grouping``). It now ranks them, says so on stderr and prints what ``--group-by
    name`` prints; where no name recurs across contexts it still refuses, in one line."""
    import pandas as pd

    from bayes_pairwise.cli import main

    argv = ["leaderboard", "prd_vicuna80", "--judge", "gpt4", "--n-boot", "20", "--json"]
    assert main(argv) == 0
    got = capsys.readouterr()
    assert "items ranked by name across 80 contexts" in got.err
    assert "--group-by name, as compare and report rank them" in got.err
    assert main([*argv, "--group-by", "name"]) == 0
    assert json.loads(got.out) == json.loads(capsys.readouterr().out)
    # contexts whose items share no name: nothing to rank across them
    frame = pd.DataFrame(
        {
            "first": ["a", "b", "c", "d"],
            "second": ["b", "a", "d", "c"],
            "outcome": ["first", "second", "first", "first"],
            "context": ["q1", "q1", "q2", "q2"],
        }
    )
    path = tmp_path / "separate.csv"
    frame.to_csv(path, index=False)
    rc = main(["leaderboard", str(path), "--context-column", "context", "--n-boot", "20"])
    err = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in err if line.startswith("error:")]
    assert rc == 2 and len(errors) == 1 and "separate contexts" in errors[0]
    assert not any("Traceback" in line for line in err)


def test_judge_agreement_kendall_tau_known_answers_and_chatbot_arena():
    """Kendall τ between judges' leaderboards and the human one (issue 9 item 3)."""
    from scipy.stats import kendalltau

    from bayes_pairwise.leaderboard import judge_agreement

    data = bp.datasets.load("chatbot_arena")
    boards = {j: leaderboard(data, judge=j, n_boot=60, random_seed=0) for j in data.judges}
    table = judge_agreement(boards, "human")
    assert list(table["judge"]) == sorted(
        (j for j in data.judges if j != "human"),
        key=lambda j: -table.set_index("judge").loc[j, "kendall_tau"],
    )
    human = boards["human"].table.set_index("item")["strength"]
    for row in table.itertuples():
        other = boards[row.judge].table.set_index("item")["strength"]
        assert row.n_items == 20
        assert row.kendall_tau == pytest.approx(kendalltau(other[human.index], human).statistic)
        assert -1 <= row.tau_lower <= row.tau_upper <= 1
        assert row.same_top == (boards[row.judge].items[0] == boards["human"].items[0])
    # the LLM judges order the 20 systems much as the humans do
    assert table["kendall_tau"].min() > 0.7
    with pytest.raises(ValueError, match="reference"):
        judge_agreement(boards, "nobody")


def test_strength_draws_follow_the_table_order():
    data = bp.datasets.load("chatbot_arena").one_judge("human")
    lb = leaderboard(data, n_boot=40, random_seed=2)
    draws = lb.strength_draws
    assert draws.shape == (40, 20) and list(draws.columns) == list(lb.items)
    q = draws.quantile([0.03, 0.97]).to_numpy()
    table = lb.table
    # the table's interval is the draws' percentile interval (widened to the point if needed)
    np.testing.assert_allclose(np.minimum(q[0], table["strength"]), table["lower"], atol=1e-9)


def test_an_error_model_pooled_by_name_says_what_its_strengths_rank() -> None:
    """PRD gpt4 by the uniform model, pooled by name: the 1,600 verdicts fall on 10 pairs of
    systems and each pair gets one latent truth, so the strengths' scale is the prior's (a
    NUTS run read gpt4 11.3 [−0.07, 27.0] with P(rank 1) 0.89, where Bradley–Terry reads
    [1.36, 1.87] and 1.00). The board says so with the log's numbers; Bradley–Terry does not."""
    import bayes_pairwise as bp

    gpt4 = bp.datasets.load("prd_vicuna80", judge="gpt4")
    lb = leaderboard(gpt4, model="uniform", method="map", group_by="name")
    (note,) = [n for n in lb.notes if n.startswith("pooled into")]
    assert "the 80 contexts' 1,600 verdicts fall on 10 pairs of groups (160 each)" in note
    assert "one latent truth" in note and "model='bt'" in note
    bt = leaderboard(gpt4, group_by="name", n_boot=20, random_seed=0)
    assert not any(n.startswith("pooled into") for n in bt.notes)


def test_items_with_one_record_share_a_rank():
    """A cycle a > b > c > a (every item 2 wins, 2 losses): all strengths 0, ranked 1, 2, 3 by
    the last bits of the fit. Items within STRENGTH_TIE_RTOL share the rank (competition
    ranking), as the agreement measures read them."""
    df = _log({("a", "b"): (2, 0), ("b", "c"): (2, 0), ("c", "a"): (2, 0)})
    lb = leaderboard(load_comparisons(df), n_boot=50, random_seed=0)
    assert lb.table["rank"].tolist() == [1, 1, 1]
    df = _log({("a", "b"): (3, 1), ("a", "c"): (3, 1), ("b", "d"): (3, 1), ("c", "d"): (3, 1)})
    lb = leaderboard(load_comparisons(df), n_boot=50, random_seed=0)
    assert lb.table.set_index("item")["rank"].to_dict() == {"a": 1, "b": 2, "c": 2, "d": 4}


def test_a_map_board_has_no_rank_probabilities_to_draw():
    """A MAP leaderboard has one point and no draws: its heat map was drawn all NaN without a
    word; the data function (and so the plot) now says why there is nothing to draw."""
    from bayes_pairwise.leaderboard import rank_probability_data
    from bayes_pairwise.simulate import simulate_round_robin

    lb = leaderboard(
        simulate_round_robin(5, eps=0.2, random_seed=1).data,
        model="uniform",
        method="map",
        random_seed=0,
    )
    with pytest.raises(ValueError, match="no rank probabilities: uniform"):
        rank_probability_data(lb)
