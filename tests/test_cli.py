"""Command line: JSON contracts, per-judge estimates on real data, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise import datasets
from bayes_pairwise.cli import ESTIMATE_METHODS, main
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DesignError

PRD_CONSISTENCY = {
    "bard": 0.369,
    "claude": 0.549,
    "gpt35": 0.691,
    "gpt4": 0.689,
    "vicuna-13b": 0.374,
}


def run_json(capsys, argv):
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0, out
    return json.loads(out)


def test_simulate_then_estimate_recovers_eps(tmp_path, capsys):
    out = tmp_path / "sim.csv"
    info = run_json(
        capsys,
        [
            "simulate",
            "--n-items",
            "60",
            "--eps",
            "0.15",
            "--seed",
            "3",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert out.exists() and (tmp_path / "sim.truth.json").exists()
    frame = pd.read_csv(out)
    assert len(frame) == 60 * 59 == info["n_verdicts"]
    res = run_json(capsys, ["estimate", str(out), "--method", "scom", "--json"])
    assert res["method"] == "scom"
    assert set(res["estimates"]) >= {"eps", "s_com", "position_consistency"}
    # closed form from S_com is within 3 standard errors of the realised rate
    assert abs(res["estimates"]["eps"] - info["realised_eps"]) < 3 * res["estimates"]["eps_se"]
    # curves never under "estimates"
    res = run_json(capsys, ["estimate", str(out), "--method", "deltas", "--json"])
    assert set(res["estimates"]) == {"eps"}
    assert abs(res["estimates"]["eps"] - info["realised_eps"]) < 0.03
    assert len(res["curves"]["judge"]["observed"]) == 59


def test_positional_simulation_moments(tmp_path, capsys):
    out = tmp_path / "pos.csv"
    run_json(
        capsys,
        [
            "simulate",
            "--n-items",
            "50",
            "--eps-plus",
            "0.25",
            "--eps-minus",
            "0.1",
            "--seed",
            "1",
            "--out",
            str(out),
            "--json",
        ],
    )
    truth = json.loads((tmp_path / "pos.truth.json").read_text())
    res = run_json(capsys, ["estimate", str(out), "--method", "moments", "--json"])
    assert abs(res["estimates"]["eps_plus"] - truth["realised_eps_plus"]) < 0.04
    assert abs(res["estimates"]["eps_minus"] - truth["realised_eps_minus"]) < 0.04


@pytest.mark.parametrize("method", ESTIMATE_METHODS)
def test_every_method_runs_per_judge_on_prd(method, capsys):
    res = run_json(
        capsys, ["estimate", "prd_vicuna80", "--method", method, "--ties", "half", "--json"]
    )
    est = res["estimates"]
    assert res["settings"]["data"]["tie_policy"] == "half"
    assert est, "no estimates"
    vals = np.array([v for v in est.values() if v is not None], dtype=float)
    assert np.all(np.isfinite(vals))
    if method in ("scom", "moments", "deltas", "deltas2d", "copeland"):
        # one entry (or more) per judge, named az.summary-style
        for judge in PRD_CONSISTENCY:
            assert any(k.endswith(f"{judge}]") for k in est), (judge, list(est)[:5])
    if method in ("bt-mm", "elo"):
        assert res["settings"]["contexts_pooled"] is True
        assert len(est) == 5


def test_ranking_methods_say_what_they_pool(tmp_path, capsys):
    """estimate's bt-mm and elo pool every judge and merge contexts by name: the output says
    so, with the counts of this log (it said so only in settings), and says nothing on a log
    with one judge and no contexts."""
    res = run_json(capsys, ["estimate", "prd_vicuna80", "--method", "bt-mm", "--json"])
    note = res["pooling_note"]
    assert "all 5 judges (bard, claude, gpt35, gpt4, vicuna-13b)" in note
    assert "the 400 items of 80 contexts merged by name into 5" in note
    assert main(["estimate", "prd_vicuna80", "--method", "elo", "--judge", "gpt4"]) == 0
    out = capsys.readouterr().out
    assert "note: pooled: the 400 items of 80 contexts merged by name into 5\n" in out
    assert "judges" not in out.split("note: pooled:")[1]
    log = tmp_path / "plain.csv"
    pd.DataFrame(
        {"first": ["a", "b", "c"], "second": ["b", "c", "a"], "outcome": ["first"] * 3}
    ).to_csv(log, index=False)
    res = run_json(capsys, ["estimate", str(log), "--method", "bt-mm", "--ridge", "0.1", "--json"])
    assert "pooling_note" not in res
    assert main(["estimate", str(log), "--method", "bt-mm", "--ridge", "0.1"]) == 0
    assert "pooled" not in capsys.readouterr().out


def test_copeland_with_contexts_gives_the_report_s_table_by_name(capsys):
    """`estimate --method copeland` on PRD (80 contexts of 5, 5 judges): 2,000 per-context
    scores in the JSON, and by name the report's table (mean rank within the contexts, the
    contexts ranked first), which the text output prints instead of 2,000 lines. The mean
    rank is recomputed here from the JSON's own per-context scores."""
    from bayes_pairwise.crosscheck import copeland_summary

    res = run_json(capsys, ["estimate", "prd_vicuna80", "--method", "copeland", "--json"])
    assert len(res["estimates"]) == 2000
    by_name = pd.DataFrame(res["by_name"]).set_index("item name")
    want = copeland_summary(datasets.load("prd_vicuna80"))
    pd.testing.assert_frame_equal(by_name, want, check_dtype=False, check_names=False)
    # gpt4's answer as gpt4 judged it: the rank within each question from the scores
    scores = pd.Series(
        {
            k[len("copeland[") : -len(", gpt4]")]: v
            for k, v in res["estimates"].items()
            if k.endswith(", gpt4]")
        }
    )
    ctx = scores.index.str.split("::").str[0]
    rank = scores.groupby(ctx).rank(method="min", ascending=False)
    mine = rank[scores.index.str.endswith("::gpt4")]
    assert len(mine) == 80
    assert by_name.loc["gpt4", "gpt4: mean rank"] == pytest.approx(mine.mean())
    assert by_name.loc["gpt4", "gpt4: ranked 1st"] == int((mine == 1).sum())
    assert main(["estimate", "prd_vicuna80", "--method", "copeland"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) < 40 and "copeland[" not in out
    assert "mean rank by judge" in out and "the 2,000 per-context scores: --json" in out
    # without contexts the scores themselves are the answer
    res = run_json(capsys, ["estimate", "paper_synthetic", "--method", "copeland", "--json"])
    assert "by_name" not in res and len(res["estimates"]) == 100


def test_prd_position_consistency_matches_provenance(capsys):
    res = run_json(
        capsys, ["estimate", "prd_vicuna80", "--method", "scom", "--ties", "half", "--json"]
    )
    for judge, expected in PRD_CONSISTENCY.items():
        assert res["estimates"][f"position_consistency[{judge}]"] == pytest.approx(
            expected, abs=5e-4
        )


def test_prd_first_second_counts_match_provenance():
    data = datasets.load("prd_vicuna80", ties="half")
    counts = {
        "bard": (1253, 290, 57),
        "claude": (532, 937, 131),
        "gpt35": (634, 660, 306),
        "gpt4": (848, 512, 240),
        "vicuna-13b": (631, 922, 47),
    }
    for judge, (n_first, n_second, n_tie) in counts.items():
        o = data.for_judge(judge).outcome
        assert (int((o == 1).sum()), int((o == 0).sum()), int((o == 0.5).sum())) == (
            n_first,
            n_second,
            n_tie,
        )


def test_bad_data_is_one_clear_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    pd.DataFrame(
        {"first": ["a", "b"], "second": ["b", "b"], "outcome": ["first", "second"]}
    ).to_csv(bad, index=False)
    rc = main(["estimate", str(bad), "--method", "scom"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "self-comparison" in err and "row 1" in err and "'first'" in err
    rc = main(["estimate", "prd_vicuna80", "--method", "scom", "--judge", "nobody"])
    assert rc == 2 and "unknown judge" in capsys.readouterr().err


def test_datasets_commands(tmp_path, capsys):
    res = run_json(capsys, ["datasets", "list", "--json"])
    names = {d["name"] for d in res["datasets"]}
    assert {
        "prd_vicuna80",
        "judging_the_judges",
        "chatbot_arena",
        "llmfao",
        "paper_synthetic",
    } <= names
    assert main(["datasets", "show", "prd_vicuna80"]) == 0
    assert "MIT" in capsys.readouterr().out
    out = tmp_path / "prd.csv"
    assert main(["datasets", "export", "prd_vicuna80", "--out", str(out)]) == 0
    capsys.readouterr()
    back = load_comparisons(out, judge="judge", context="context", ties="drop")
    assert back.n_comparisons + back.n_ties_dropped == 8000


def test_fit_map_json_contract_and_ties_modelled_by_default(tmp_path, capsys):
    out = tmp_path / "fit.nc"
    res = run_json(
        capsys,
        [
            "fit",
            "prd_vicuna80",
            "--judge",
            "gpt4",
            "--model",
            "positional",
            "--map",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert res["model"] == "positional"
    for name in ("eps_plus", "eps_minus"):
        p = res["parameters"][name]
        assert set(p) >= {"mean", "sd", "hdi_3%", "hdi_97%", "r_hat", "ess_bulk", "ess_tail"}
        assert 0.0 <= p["mean"] <= 1.0
    # bundled default ties='model': the 240 ties are an outcome of the model, none dropped
    assert res["settings"]["data"]["tie_policy"] == "model"
    assert res["settings"]["data"]["n_ties_dropped"] == 0
    assert res["ties"]["handling"] == "model" and res["ties"]["n_ties_modelled"] == 240
    assert abs(res["parameters"]["tie_rate"]["mean"] - 240 / 1600) < 0.01
    assert out.exists()
    from bayes_pairwise.pymc_models import load_model

    back = load_model(out)
    assert float(back.idata_.posterior["eps_minus"].mean()) == pytest.approx(
        res["parameters"]["eps_minus"]["mean"]
    )


@pytest.mark.slow  # 14 s warm: a NUTS fit through the command line
def test_fit_output_is_short_without_all_and_complete_with_it(tmp_path, capsys):
    """fit prints the reported parameters only; per-item arrays need --all (issue 9 item 4)."""
    from bayes_pairwise.simulate import simulate_round_robin

    path = tmp_path / "d.csv"
    simulate_round_robin(40, eps=0.1, random_seed=3).frame.to_csv(path, index=False)
    argv = ["fit", str(path), "--model", "uniform", "--map", "--seed", "1"]
    short = run_json(capsys, [*argv, "--json"])
    assert list(short["parameters"]) == ["eps"]
    assert "layout" not in short["settings"] and short["data"]["n_items"] == 40
    full = run_json(capsys, [*argv, "--json", "--all"])
    assert len(full["parameters"]) == 41 and len(full["settings"]["layout"]["item_names"]) == 40
    assert full["parameters"]["eps"] == short["parameters"]["eps"]
    assert len(json.dumps(short)) < len(json.dumps(full)) / 2

    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "strength[" not in text and "NaN" not in text and "{" not in text
    eps_line = next(line for line in text.splitlines() if line.startswith("eps "))
    assert float(eps_line.split()[1]) == pytest.approx(short["parameters"]["eps"]["mean"], abs=5e-4)
    assert "draws: 1 chain(s) × 1 draw(s)" in text
    assert main([*argv, "--all"]) == 0
    assert capsys.readouterr().out.count("strength[") == 40


def test_fit_fast_text_reports_no_sampler_counts(tmp_path, capsys):
    """The Laplace fast path has no sampler: no divergences, tree depth or R-hat verdict in the
    text output; the ESS of its independent draws is a whole number."""
    from bayes_pairwise.simulate import simulate_round_robin

    path = tmp_path / "d.csv"
    simulate_round_robin(12, eps=0.1, random_seed=3).frame.to_csv(path, index=False)
    argv = ["fit", str(path), "--model", "uniform", "--fast", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "divergences" not in text and "tree-depth" not in text and "converged" not in text
    ess = next(line for line in text.splitlines() if "min ESS (bulk):" in line)
    assert ess.split(":")[1].strip().isdigit()
    assert "Laplace approximation" in text
    res = run_json(capsys, [*argv, "--json"])
    eps_line = next(line for line in text.splitlines() if line.startswith("eps "))
    assert float(eps_line.split()[1]) == pytest.approx(res["parameters"]["eps"]["mean"], abs=5e-4)


def test_help_lists_the_model_choices_and_sampler_defaults(capsys):
    from bayes_pairwise.model_specs import available_models

    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in available_models():
        assert name in text
    assert "default: positional" in text and "default: the model spec's, 1000" in text


def test_leaderboard_agreement_with_human_on_chatbot_arena(capsys):
    res = run_json(
        capsys,
        ["leaderboard", "chatbot_arena", "--agreement-with", "human", "--n-boot", "30", "--json"],
    )
    rows = res["judges"]
    assert len(rows) == 3 and {r["reference"] for r in rows} == {"human"}
    taus = [r["kendall_tau"] for r in rows]
    assert taus == sorted(taus, reverse=True) and min(taus) > 0.7
    assert all(r["n_items"] == 20 for r in rows)
    assert main(["leaderboard", "chatbot_arena", "--agreement-with", "nobody"]) == 2
    assert "not a judge" in capsys.readouterr().err


def test_blas_notice_is_filtered_by_message_only():
    import warnings

    from bayes_pairwise.pymc_models import quiet_blas_notice

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet_blas_notice()
        text = "PyTensor could not link to a BLAS installation. Operations that …"
        warnings.warn(text, UserWarning, stacklevel=1)
        warnings.warn("PyTensor could not compile the model", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["PyTensor could not compile the model"]


def test_the_item_and_outcome_columns_take_either_spelling(tmp_path, capsys):
    """--first-column / --second-column / --outcome-column (spelt like --judge-column) are the
    same flags as --first / --second / --outcome: one log, renamed, gives the same S_com, and
    that S_com is the share of pairs whose two verdicts pick the same position (METHODS §2)."""
    # pairs seen in both orders: a-b consistent, a-c consistent, b-c inconsistent (first wins)
    frame = pd.DataFrame(
        {
            "x": ["a", "b", "a", "c", "b", "c"],
            "y": ["b", "a", "c", "a", "c", "b"],
            "pref": ["first", "second", "second", "first", "first", "first"],
        }
    )
    path = tmp_path / "renamed.csv"
    frame.to_csv(path, index=False)
    base = ["estimate", str(path), "--method", "scom", "--json"]
    short = run_json(capsys, [*base, "--first", "x", "--second", "y", "--outcome", "pref"])
    long = run_json(
        capsys,
        [*base, "--first-column", "x", "--second-column", "y", "--outcome-column", "pref"],
    )
    assert long == short
    assert long["estimates"]["s_com"] == pytest.approx(1 / 3)  # b-c: the first shown won twice


def test_compare_with_an_order_model_fits_the_order_models_in_place_of_the_strength_models(
    tmp_path, capsys
):
    """`compare --model positional_order` fitted uniform and positional as well: on the QLoRA
    log 14 minutes, for the user who asked for the order model because those take minutes
    (its note says so). The order model now takes the place of the strength models, as in
    `report --model positional_order`; any other --model is still fitted beside them."""
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(5, eps=0.1, n_contexts=30, random_seed=0)
    path = tmp_path / "rr.csv"
    sim.data.to_frame().to_csv(path, index=False)
    argv = ["compare", str(path), "--context-column", "context", "--map", "--json"]
    assert main([*argv, "--model", "positional_order"]) == 0
    out = capsys.readouterr()
    res = json.loads(out.out)
    assert res["settings"]["models"] == ["uniform_order", "positional_order"]
    assert "fitting uniform_order and positional_order, the hard-truth limits" in out.err
    assert main(argv) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["settings"]["models"] == ["uniform", "positional"]


def test_a_crowd_of_judges_is_named_in_one_short_line(tmp_path, capsys):
    """Every message that names a log's judges lists five and counts the rest (one rule,
    ``conventions.name_list``): the pooling note printed all 9 names, the refusal to rank a
    crowd by one judge's rule cut at five with '…', the design warnings said 'and 4 more'."""
    from bayes_pairwise.simulate import simulate_biased_bt

    sim = simulate_biased_bt(6, 900, n_judges=9, random_seed=3)
    log = tmp_path / "crowd.csv"
    sim.frame.to_csv(log, index=False)
    judges = sorted(sim.frame["judge"].unique())
    assert len(judges) == 9
    res = run_json(capsys, ["estimate", str(log), "--method", "bt-mm", "--json"])
    listed = ", ".join(judges[:5]) + " and 4 more"
    assert f"all 9 judges ({listed}) in one table" in res["pooling_note"]
    with pytest.raises(DesignError, match=rf"hold 9 judges \({listed}\); pass judge"):
        sim.data.one_judge()


@pytest.mark.parametrize("method", ["scom", "moments"])
def test_estimate_says_where_no_pair_was_shown_in_both_orders(method, tmp_path, capsys):
    from bayes_pairwise.simulate import simulate_round_robin

    both = simulate_round_robin(8, eps=0.1, random_seed=1).frame.assign(judge="A")
    one = simulate_round_robin(8, eps=0.1, k_plus=1, k_minus=0, random_seed=2).frame
    one = one.assign(judge="B")
    # every judge in one order only (llmfao's design): one error naming the way out, where
    # `--method moments` raised "no pair of 0 was" on the first judge and `scom` printed NaNs
    path = tmp_path / "one.csv"
    one.to_csv(path, index=False)
    assert main(["estimate", str(path), "--judge-column", "judge", "--method", method]) == 2
    err = capsys.readouterr().err
    assert (
        f"--method {method} needs pairs shown in both orders; this log shows none (28 "
        "judge-pair(s), each in one order only)"
    ) in err
    assert "--method bt-mm, elo or copeland do not need them" in err
    # one judge of two: its numbers are NaN and the command says why, once
    path = tmp_path / "mixed.csv"
    pd.concat([both, one]).to_csv(path, index=False)
    argv = ["estimate", str(path), "--judge-column", "judge", "--method", method, "--json"]
    res = run_json(capsys, argv)
    key = "eps" if method == "scom" else "eps_plus"
    assert res["by_judge"]["B"][key] is None  # NaN in JSON
    assert np.isfinite(res["estimates"][f"{key}[A]"])
    about_b = [w for w in res["warnings"] if "'B'" in w]
    assert len(about_b) == 1 and "0 pairs seen in both orders" in about_b[0]
