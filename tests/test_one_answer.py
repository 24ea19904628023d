"""One question, one answer (issue 26): one tie rule for every door, the same estimand on both
sides of the cross-check, no degenerate comparators."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pytest
from crosscheck_kwargs import LEAN, LEAN_MAP

import bayes_pairwise as bp
from bayes_pairwise.classical.deltas import (
    DeltaSFit,
    quantize_tie_rate,
    synthetic_delta_s_draws,
    synthetic_table,
)
from bayes_pairwise.classical.descriptive import descriptive_by_judge, positional_moments
from bayes_pairwise.cli import main
from bayes_pairwise.conventions import decided_error_rate
from bayes_pairwise.crosscheck import crosscheck
from bayes_pairwise.simulate import simulate_round_robin

QLORA = "qlora_oa_gpt4"  # bundled (bayes_pairwise.datasets)
CHEAP = {"biased_bt_spread": False, "strengths": False, "leaderboard": False, "random_seed": 0}


def _json(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def gpt35():
    return bp.datasets.load("prd_vicuna80", judge="gpt35")


# ============================================================================ 1. one tie rule
def test_every_door_reads_the_same_8000_verdicts(capsys):
    """``datasets.load``, ``load_comparisons`` on the exported file, the report's resolver and
    the CLI all keep PRD's 781 ties: 8,000 verdicts, policy "model"."""
    data = bp.datasets.load("prd_vicuna80")
    assert (data.n_comparisons, data.n_ties, data.n_ties_dropped) == (8000, 781, 0)
    assert data.tie_policy == "model"
    out = _json(capsys, ["estimate", "prd_vicuna80", "--method", "scom", "--json"])
    assert out["settings"]["data"]["n_comparisons"] == 8000
    assert out["settings"]["data"]["tie_policy"] == "model"
    resolved, name = bp.datasets.resolve_data("prd_vicuna80")
    assert name == "prd_vicuna80" and resolved.n_comparisons == 8000
    frame = bp.datasets.load_frame("prd_vicuna80")
    from_frame = bp.load_comparisons(frame, judge="judge", context="context", repeat="repeat")
    assert from_frame.n_comparisons == 8000 and from_frame.tie_policy == "model"
    # the paper's rule stays available by name
    assert bp.datasets.load("prd_vicuna80", ties="drop").n_comparisons == 7219


def test_tie_rate_in_the_default_fit(gpt35):
    """After the default load, a fit models the ties: ``az.summary`` finds ``tie_rate``."""
    import arviz as az

    from bayes_pairwise.pymc_models import UniformError

    m = UniformError(draws=200).fit(gpt35, method="laplace", random_seed=0)
    summ = az.summary(m.idata_, var_names=["tie_rate"], kind="stats")
    assert len(summ) == 1 and str(summ.index[0]).startswith("tie_rate")
    assert summ["mean"].iloc[0] == pytest.approx(306 / 1600, abs=0.01)


# ============================================================================ 2. one estimand
def test_estimate_and_compare_print_the_same_scom_eps(capsys, gpt35):
    """PRD gpt35: ``estimate --method scom`` ε is the ε ``compare`` rests its verdict on. Its
    ties come in pairs, so the rescaling for the tie share does not hold and both read S_com on
    the pairs decided in both orders; ``estimate`` keeps the rescaled ε (0.050, the error among
    decided verdicts if ties fell verdict by verdict; 0.136 with ties counted half) beside it.
    Until 2026-11-29 ``estimate`` answered with the rescaled row, which compare marks as not
    its basis."""
    from bayes_pairwise.crosscheck import METHOD_SCOM, METHOD_SCOM_DECIDED

    est = _json(
        capsys, ["estimate", "prd_vicuna80", "--judge", "gpt35", "--method", "scom", "--json"]
    )
    cc = crosscheck(gpt35, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    assert cc.classical.tie_position["gpt35"].rescaling_fails
    row = cc.table[cc.table.method == METHOD_SCOM_DECIDED].iloc[0]
    assert est["estimates"]["eps"] == pytest.approx(row.estimate, rel=1e-12)
    z = bp.conventions.z_value()
    assert row.upper - row.lower == pytest.approx(2 * z * est["estimates"]["eps_se"])
    assert "pairs decided in both orders" in est["basis"]["gpt35"]
    # the rescaled ε, kept beside it: compare's "S_com closed form" row, and the ties-counted-
    # half reading rescaled for the tie share
    rescaled = cc.table[cc.table.method == METHOD_SCOM].iloc[0]
    assert est["rescaled"]["gpt35"]["eps"] == pytest.approx(rescaled.estimate, rel=1e-12)
    assert est["rescaled"]["gpt35"]["eps"] == pytest.approx(0.0504, abs=5e-4)
    tau = 306 / 1600
    half = descriptive_by_judge(dataclasses.replace(gpt35, tie_policy="half")).loc["gpt35"]
    assert half.eps_scom == pytest.approx(0.1364, abs=5e-4)
    assert est["rescaled"]["gpt35"]["eps"] == pytest.approx(
        decided_error_rate(half.eps_scom, tau)[0]
    )


@pytest.mark.parametrize("judge", ["claude", "gpt35"])
def test_estimate_and_compare_print_the_same_moments_sum(capsys, judge):
    """ε₊ + ε₋ of ``estimate --method moments`` is the moments' row compare compares the sum
    with: the rescaled moments for claude (its ties hold the rescaling), the pairs decided in
    both orders for gpt35 (its ties come in pairs)."""
    from bayes_pairwise.crosscheck import METHOD_MOMENTS, METHOD_MOMENTS_DECIDED

    data = bp.datasets.load("prd_vicuna80", judge=judge)
    argv = ["estimate", "prd_vicuna80", "--judge", judge, "--method", "moments", "--json"]
    est = _json(capsys, argv)["estimates"]
    cc = crosscheck(data, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    moved = cc.classical.tie_position[judge].rescaling_fails
    assert moved is (judge == "gpt35")
    method = METHOD_MOMENTS_DECIDED if moved else METHOD_MOMENTS
    row = cc.table[(cc.table.method == method) & (cc.table.quantity == "eps_sum")].iloc[0]
    assert est["eps_sum"] == pytest.approx(row.estimate, rel=1e-12)
    assert est["eps_sum"] == pytest.approx(est["eps_plus"] + est["eps_minus"], abs=1e-9)
    z = bp.conventions.z_value()
    assert row.upper - row.lower == pytest.approx(2 * z * est["eps_sum_se"])


def test_estimate_ties_half_says_what_compare_answers(capsys, gpt35):
    """``--ties half`` asks ``estimate`` for the paper's rule (a tie half an error: PRD gpt35's
    ε 0.136), while ``compare --ties half`` still answers the error among decided verdicts (the
    models fit a tie rate): ``estimate`` now says so, with that number (the JSON's
    ``among_decided``), instead of printing 0.136 alone."""
    from bayes_pairwise.crosscheck import METHOD_SCOM_DECIDED

    argv = ["estimate", "prd_vicuna80", "--judge", "gpt35", "--method", "scom", "--ties", "half"]
    est = _json(capsys, [*argv, "--json"])
    assert est["estimates"]["eps"] == pytest.approx(0.1364, abs=5e-4)
    cc = crosscheck(
        dataclasses.replace(gpt35, tie_policy="half"),
        models=(),
        delta_s=False,
        delta_s_2d=False,
        **CHEAP,
    )
    row = cc.table[cc.table.method == METHOD_SCOM_DECIDED].iloc[0]
    assert est["among_decided"]["eps"] == pytest.approx(row.estimate, rel=1e-12)
    assert est["among_decided_basis"] == {"gpt35": "pairs decided in both orders"}
    from bayes_pairwise.cli import main

    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "these rates count a tie as half an error (the paper's rule)" in text
    assert f"ε {row.estimate:.4f} here" in text
    # nothing to say where the log has no ties, or the policy is the default
    assert main([*argv[:-2], "--json"]) == 0
    assert "among_decided" not in json.loads(capsys.readouterr().out)


def test_estimate_and_compare_print_the_same_delta_s_grid_eps(capsys):
    """PRD claude: ``estimate --method deltas --seed 0`` read ε 0.190 with no interval while
    ``compare --seed 0`` read the Δ_S grid's 0.200 [0.155, 0.235]: the grid's synthetic tables
    were drawn from the seed itself there and from its Δ_S stream here. Both now draw from the
    same stream with the same bootstrap, and print one estimate and one interval."""
    claude = bp.datasets.load("prd_vicuna80", judge="claude")
    argv = ["estimate", "prd_vicuna80", "--judge", "claude", "--method", "deltas", "--json"]
    est = _json(capsys, argv)["estimates"]
    cc = crosscheck(claude, models=(), delta_s=True, delta_s_2d=False, **CHEAP)
    row = cc.table[cc.table.method.str.startswith("Δ_S grid") & (cc.table.quantity == "eps")].iloc[
        0
    ]
    assert est["eps"] == pytest.approx(row.estimate, abs=1e-12)
    assert (est["eps_lower"], est["eps_upper"]) == pytest.approx((row.lower, row.upper))
    assert row.upper - row.lower > 0.02
    # the 2-D grid: the sum and its split by r₁, with compare's intervals
    gpt35 = bp.datasets.load("prd_vicuna80", judge="gpt35")
    argv = ["estimate", "prd_vicuna80", "--judge", "gpt35", "--method", "deltas2d", "--json"]
    out = _json(capsys, argv)
    est = out["estimates"]
    # the grids place ties at random; gpt35's come in pairs, and compare marks its grid rows
    # as not comparable: estimate says why too (it said nothing for the grid methods)
    assert any(w.startswith("Ties cluster by pair") for w in out["warnings"])
    assert not any(
        w.startswith("Ties cluster by pair")
        for w in _json(
            capsys,
            ["estimate", "prd_vicuna80", "--judge", "claude", "--method", "deltas", "--json"],
        ).get("warnings", [])
    )
    cc = crosscheck(gpt35, models=(), delta_s=False, delta_s_2d=True, **CHEAP)
    two = cc.table[cc.table.method.str.startswith("Δ_S grid (2-D)")].set_index("quantity")
    # eps_plus is the split by r₁ (compare's row), not the grid's unidentified split
    assert {"eps_plus_grid", "eps_minus_grid"} <= set(est)
    assert "eps_plus_split_by_r1" not in est
    assert "eps_plus and eps_minus are the sum split by r1" in out["caveat"]
    for q, key in (("eps_sum", "eps_sum"), ("eps_plus", "eps_plus"), ("eps_minus", "eps_minus")):
        ref = two.loc[q]
        got = (est[key], est[f"{key}_lower"], est[f"{key}_upper"])
        assert got == pytest.approx((ref.estimate, ref.lower, ref.upper), abs=1e-12), q


def test_leaderboard_and_compare_print_the_same_board(capsys):
    """PRD gpt4 ranked by name: the report's board (200 replicates from the leaderboard seed
    stream) read gpt4 [1.384, 1.874] and ``leaderboard --seed 0`` (1,000 replicates from the
    seed itself) [1.362, 1.854]. Both now use LEADERBOARD_N_BOOT replicates from the same
    stream: one table, rank probabilities included."""
    gpt4 = bp.datasets.load("prd_vicuna80", judge="gpt4")
    argv = ["leaderboard", "prd_vicuna80", "--judge", "gpt4", "--group-by", "name", "--json"]
    board = _json(capsys, argv)
    kw = {**CHEAP, "leaderboard": True}
    cc = crosscheck(gpt4, models=(), delta_s=False, delta_s_2d=False, **kw)
    mine = cc.leaderboard.table.set_index("item")
    rows = board["items"]
    for row in rows:
        ref = mine.loc[row["item"]]
        for col in ("strength", "lower", "upper", "p_rank_1"):
            assert row[col] == pytest.approx(ref[col], abs=1e-12), (row["item"], col)


def test_pooled_leaderboard_is_compares_board_and_estimates_strengths(capsys):
    """PRD's five judges: compare and report print a board of all judges' verdicts pooled;
    ``leaderboard`` refused the log ("pass --judge NAME"). ``leaderboard --pool-judges --seed
    S`` prints that board (the same replicates), and its strengths are ``estimate --method
    bt-mm``'s, which pools the same way."""
    prd = bp.datasets.load("prd_vicuna80")
    argv = ["leaderboard", "prd_vicuna80", "--pool-judges", "--seed", "0", "--json"]
    board = _json(capsys, argv)
    kw = {**CHEAP, "leaderboard": True}
    cc = crosscheck(prd, models=(), delta_s=False, delta_s_2d=False, **kw)
    mine = cc.leaderboard.table.set_index("item")
    assert len(board["items"]) == 5
    for row in board["items"]:
        ref = mine.loc[row["item"]]
        for col in ("strength", "lower", "upper", "p_rank_1"):
            assert row[col] == pytest.approx(ref[col], abs=1e-12), (row["item"], col)
    est = _json(capsys, ["estimate", "prd_vicuna80", "--method", "bt-mm", "--json"])
    for row in board["items"]:
        assert est["estimates"][f"strength[{row['item']}]"] == pytest.approx(
            row["strength"], abs=1e-6
        )
    # the refusal names the way out; --pool-judges with --judge is refused
    assert main(["leaderboard", "prd_vicuna80"]) == 2
    said = capsys.readouterr().err
    assert (
        "pass --judge NAME to rank by one of them, or --pool-judges to rank all their verdicts "
        "together (the board compare and report print)" in said
    )
    assert "judge=" not in said and said.count("to rank") == 2
    assert main(["leaderboard", "prd_vicuna80", "--pool-judges", "--judge", "gpt4"]) == 2
    assert "does not combine with --judge" in capsys.readouterr().err


def test_prd_gpt35_delta_s_2d_sum_matches_the_moments_and_votes(gpt35):
    """PRD gpt35: the 2-D Δ_S ε₊ + ε₋ (synthetic tables with the judge's 19% ties) lies within
    0.05 of the rescaled moments' ε₊ + ε₋ (0.275 with tie-free tables); its ties come in pairs,
    so the verdict rests on the pairs decided in both orders, not on the Δ_S rows."""
    from bayes_pairwise.pymc_models import PositionalBias, UniformError

    pos = PositionalBias().fit(gpt35, method="map", random_seed=0)
    uni = UniformError().fit(gpt35, method="map", random_seed=0)
    cc = crosscheck(gpt35, uni, pos, grid_kwargs={"n_subsets": 100}, **CHEAP)
    t = cc.table.set_index(["quantity", "method"])
    grid_sum = t.loc[("eps_sum", "Δ_S grid (2-D), sum"), "estimate"]
    moments = (
        t.loc[("eps_plus", "moments (S_com, r₁)"), "estimate"]
        + t.loc[("eps_minus", "moments (S_com, r₁)"), "estimate"]
    )
    assert moments == pytest.approx(0.1007, abs=1e-3)
    assert abs(grid_sum - moments) < 0.05
    assert abs(t.loc[("eps", "Δ_S grid (1-D)"), "estimate"] - 0.050) < 0.02
    a = cc.agreement
    grid_rows = a[a.classical.isin(["Δ_S grid (2-D), sum", "Δ_S grid (1-D)"])]
    assert len(grid_rows) == 2 and grid_rows.overlap.all()
    # gpt35's ties come in pairs (7.9 % of the pairs tied in both orders against 3.7 %): the
    # grids place ties at random, so the pairs decided in both orders are the basis
    assert not grid_rows.primary.any()
    basis = a[a.primary & (a.quantity == "eps_sum")]
    assert set(basis.classical) == {"moments, pairs decided in both orders"}
    text = cc.verdicts.set_index("judge").loc["gpt35", "text"]
    assert "ties come in pairs" in text and "Δ_S grids (ties at random)" in text


def tied_round_robins(eps: float = 0.1, tau: float = 0.2, seed: int = 4):
    """Round-robins of a strict order (what Δ_S assumes) with a share ``tau`` of the verdicts
    turned into ties at random; returns the log and the realised error among decided ones."""
    sim = bp.simulate_round_robin(6, eps=eps, n_contexts=80, random_seed=seed)
    frame = sim.data.to_frame()
    tie = np.random.default_rng(seed).random(len(frame)) < tau
    frame.loc[tie, "outcome"] = "tie"
    correct = np.asarray(sim.correct)[np.asarray(sim.data.row)]
    return bp.load_comparisons(frame), float(1 - correct[~tie].mean())


def test_grid_with_ties_recovers_the_decided_error_rate():
    """Round-robins with 20% ties at random: the tie-aware table gives ε ≈ the error among
    decided verdicts; a tie-free table (the paper's) reads the half-counted ties as errors."""
    data, eps = tied_round_robins()
    fit = DeltaSFit(random_seed=0, n_subsets=60).fit(data)
    assert fit.tie_rate_ == quantize_tie_rate(np.mean(data.outcome == 0.5)) > 0.15
    assert abs(fit.eps_ - eps) < 0.02
    paper = DeltaSFit(random_seed=0, n_subsets=60, tie_rate=0.0).fit(data)
    assert paper.tie_rate_ == 0.0 and paper.eps_ > eps + 0.05


def test_tie_draws_count_a_tie_as_half_a_win():
    """All ties: every Copeland score is 0 whatever ε, so Δ_S is the all-zero matrix's
    (Σ_k |n − 1 − 2k| = 12 for n = 5): a tie is half a win each way, never an error."""
    d = synthetic_delta_s_draws(5, np.array([0.0, 0.3]), n_synthetic=3, tie_rate=0.999999)
    assert np.allclose(d, 12.0)
    # ties at random lower the curve's slope in ε: at ε = 0 the ties alone move the scores
    g = np.array([0.0, 0.1])
    free = synthetic_delta_s_draws(8, g, n_synthetic=200).mean(0)
    tied = synthetic_delta_s_draws(8, g, n_synthetic=200, tie_rate=0.2).mean(0)
    assert free[0] == 0.0 and tied[0] > 0.0 and tied[1] > free[1]


def test_table_cache_key_holds_the_quantized_tie_rate(tmp_path):
    a = synthetic_table(6, cache_dir=tmp_path, tie_rate=0.1912)
    b = synthetic_table(6, cache_dir=tmp_path, tie_rate=0.1899)  # same 0.19 table: cached
    c = synthetic_table(6, cache_dir=tmp_path, tie_rate=0.0)
    assert a.tie_rate == b.tie_rate == 0.19 and b.from_cache and not a.from_cache
    assert c.tie_rate == 0.0 and not c.from_cache and c.cache_file != a.cache_file
    assert not np.array_equal(a.values, c.values)


# ============================================================================ paper numbers
def test_qlora_published_numbers_with_ties_drop(capsys):
    """``--ties drop`` reproduces QLoRA's figures (PROVENANCE.md) S_com 0.1573 and ε 0.0861
    on the pairs decided in both orders. PROVENANCE's r₁ 0.5734 (and the moments ε₊ 0.0062,
    ε₋ 0.1530 from it) is the first-position share of all 32,918 decided verdicts, which
    include the 2,857 pairs that lost one order to a tie, whose verdict left picks the first
    answer 72.8 % of the time: on the pairs S_com is read on (PROVENANCE's own convention)
    r₁ is 0.5542, and the moments are those of the default's basis, ε₊ 0.0283, ε₋ 0.1367."""
    q = str(QLORA)
    s = _json(capsys, ["estimate", q, "--method", "scom", "--ties", "drop", "--json"])
    assert round(s["estimates"]["s_com"], 4) == 0.1573
    assert round(s["estimates"]["eps"], 4) == 0.0861
    m = _json(capsys, ["estimate", q, "--method", "moments", "--ties", "drop", "--json"])
    dropped = bp.datasets.load(QLORA, ties="drop")
    assert round(float(np.mean(dropped.outcome)), 4) == 0.5734  # every decided verdict
    assert round(m["estimates"]["r1"], 4) == 0.5542
    assert round(m["estimates"]["eps_plus"], 4) == 0.0283
    assert round(m["estimates"]["eps_minus"], 4) == 0.1367
    # the default keeps the ties: GPT-4's depend on where the better answer is shown, so ε is
    # read, as compare reads it, on the pairs decided in both orders — the published 0.0861,
    # whose ties-dropped S_com counts the same pairs — not rescaled (0.0728, kept beside it)
    d = _json(capsys, ["estimate", q, "--method", "scom", "--json"])
    assert d["estimates"]["eps"] == pytest.approx(0.0861, abs=5e-5)
    assert d["estimates"]["s_com_decided"] == pytest.approx(0.1573, abs=5e-5)
    assert d["rescaled"]["gpt4"]["eps"] == pytest.approx(0.0728, abs=5e-4)


# ============================================================================ 3. no [0, 0]
def test_a_rate_below_zero_keeps_its_value_and_a_real_interval():
    """PRD gpt4's ε₊ among decided verdicts is below 0 (−0.049): kept, with a delta-method
    interval of positive width, never 0.000 [0.000, 0.000]."""
    gpt4 = bp.datasets.load("prd_vicuna80", judge="gpt4")
    m = positional_moments(gpt4)
    assert m.eps_plus < 0 and m.eps_plus_se > 0
    cc = crosscheck(gpt4, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    row = cc.table[(cc.table.quantity == "eps_plus") & (cc.table.method == "moments (S_com, r₁)")]
    row = row.iloc[0]
    assert row.estimate == pytest.approx(m.eps_plus) and row.estimate < 0
    assert row.lower < row.estimate < row.upper and row.upper - row.lower > 0.02
    assert "below 0" in row.note


def test_no_real_solution_gets_a_bootstrap_interval():
    """S_com far above its largest expectation: no real solution, the SEs come from a
    bootstrap over pairs (finite and positive), not NaN."""
    rows = []
    for k in range(40):  # every pair's two verdicts pick the same position, r₁ = ½
        a, b = f"a{k}", f"b{k}"
        pos = "first" if k % 2 else "second"
        rows += [(a, b, pos), (b, a, pos)]
    import pandas as pd

    df = pd.DataFrame(rows, columns=["first", "second", "outcome"])
    data = bp.load_comparisons(df)
    with pytest.warns(bp.errors.DesignWarning):
        m = positional_moments(data)
    assert m.at_boundary and math.isfinite(m.eps_plus)
    assert 0 < m.eps_plus_se < 0.5 and 0 < m.eps_minus_se < 0.5
    # which way it left the domain, with the numbers: S_com 1 against its ceiling ½ at r₁ = ½
    assert m.no_real_solution and m.eps_plus + m.eps_minus == pytest.approx(1.0)
    assert m.boundary_text().startswith("no real solution: S_com 1.000 is above 0.500")
    assert "below 0" not in m.boundary_text()
    cc = crosscheck(data, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    notes = cc.table[cc.table.method == "moments (S_com, r₁)"].note
    assert len(notes) == 3 and all("no real solution" in n for n in notes)  # ε₊, ε₋, the sum


def _ceiling_log(n_same: int, n_pairs: int = 40):
    """``n_same`` of ``n_pairs`` pairs whose two verdicts pick the same position (alternating
    first/second, so r₁ = ½), the rest judged alike in both orders."""
    import pandas as pd

    rows = []
    for k in range(n_pairs):
        a, b = f"a{k}", f"b{k}"
        if k < n_same:
            pos = "first" if k % 2 else "second"
            rows += [(a, b, pos), (b, a, pos)]
        else:
            rows += [(a, b, "first"), (b, a, "second")]
    return pd.DataFrame(rows, columns=["first", "second", "outcome"])


def test_no_real_solution_sum_se_is_the_replicates_own():
    """Where the moments have no real solution, ε₊ + ε₋ is set to 1 and ε₊ = 1 − r₁, ε₋ = r₁
    move against each other: the sum's SE is the spread of the replicates' sums (a hand
    bootstrap over pairs), not hypot of the two SEs (0.109 here, against 0.09). Where no
    replicate has a real solution the sum is set, not estimated: no SE, and the cross-check's
    row has no interval; the rows that have one say it is a bootstrap, not the delta method."""
    import pandas as pd

    df = _ceiling_log(24)  # S_com 0.6 against its ceiling ½: 12 % of replicates inside
    with pytest.warns(bp.errors.DesignWarning):
        m = positional_moments(bp.load_comparisons(df))
    assert m.no_real_solution
    rng = np.random.default_rng(1)
    sums = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(200):
            pick = rng.integers(0, 40, 40)
            parts = [
                df.iloc[[2 * i, 2 * i + 1]].assign(
                    first=df["first"].iloc[[2 * i, 2 * i + 1]] + f"_{r}",
                    second=df["second"].iloc[[2 * i, 2 * i + 1]] + f"_{r}",
                )
                for r, i in enumerate(pick)
            ]
            rep = positional_moments(bp.load_comparisons(pd.concat(parts)))
            sums.append(rep.eps_sum)
    assert np.mean(np.array(sums) >= 1 - 1e-12) < 0.97  # some replicates have a solution
    assert m.eps_sum_se == pytest.approx(np.std(sums, ddof=1), rel=0.2)
    assert m.eps_sum_se < 0.9 * math.hypot(m.eps_plus_se, m.eps_minus_se)

    data = bp.load_comparisons(_ceiling_log(40))  # every pair: the same position twice
    with pytest.warns(bp.errors.DesignWarning):
        m = positional_moments(data)
    assert m.no_real_solution and m.eps_plus_se > 0 and math.isnan(m.eps_sum_se)
    cc = crosscheck(data, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    rows = cc.table[cc.table.method == "moments (S_com, r₁)"].set_index("quantity")
    assert math.isnan(rows.loc["eps_sum", "lower"]) and rows.loc["eps_sum", "estimate"] == 1
    assert rows.loc["eps_plus", "lower"] < rows.loc["eps_plus", "estimate"]
    assert rows.loc["eps_plus", "interval"].endswith("bootstrap over pairs")


def test_no_real_solution_by_a_hair_says_so_with_digits_that_differ():
    """Chatbot Arena's gpt-3.5-turbo: S_com 0.76216 against its ceiling 0.76197 (z = 0.04).
    The edge is named with the digits that tell the two apart (it read "S_com 0.762 is above
    0.762") and called sampling noise; PRD's vicuna-13b, z = 5.9, is not."""
    with pytest.warns(bp.errors.DesignWarning):
        m = positional_moments(bp.datasets.load("chatbot_arena"), judge="gpt-3.5-turbo")
    assert m.no_real_solution and 0 < m.s_com_excess_z < 1
    assert m.s_com - m.s_com_ceiling < 5e-4
    text = m.boundary_text()
    assert f"S_com {m.s_com:.4f} is above {m.s_com_ceiling:.4f}" in text
    assert f"{m.s_com:.4f}" != f"{m.s_com_ceiling:.4f}"
    assert "z = 0.0: within sampling noise of it; ε₊ + ε₋ set to 1" in text
    from bayes_pairwise.classical.descriptive import tie_position_check

    far = tie_position_check(bp.datasets.load("prd_vicuna80"), judge="vicuna-13b")
    assert "S_com 0.621 is above 0.518" in far.boundary_text()
    assert "noise" not in far.boundary_text()


def test_a_rate_below_zero_is_not_called_no_solution():
    """The other way out of the domain: S_com below |2r₁ − 1| (40 pairs judged alike in both
    orders, S_com 0, and 30 more shown once, mostly won by the first text: r₁ 0.582). The
    unclipped ε₊ is below 0 and the warning and the cross-check say so, not 'no real
    solution'; a judge that never errs in one position is at 0, not beyond it."""
    import pandas as pd

    rows = []
    for k in range(40):
        rows += [(f"a{k}", f"b{k}", "first"), (f"b{k}", f"a{k}", "second")]
    rows += [(f"c{k}", f"d{k}", "first" if k % 5 else "second") for k in range(30)]
    data = bp.load_comparisons(pd.DataFrame(rows, columns=["first", "second", "outcome"]))
    with pytest.warns(
        bp.errors.DesignWarning, match=r"a rate below 0 \(S_com 0.000 < \|2r₁ − 1\| = 0.164\)"
    ):
        m = positional_moments(data)
    assert m.at_boundary and not m.no_real_solution
    d = 2 * 64 / 110 - 1  # r₁ = (40 + 24) / 110
    assert m.eps_plus == pytest.approx((1 - math.sqrt(1 + d * d) - d) / 2) and m.eps_plus < 0
    assert m.eps_minus == pytest.approx((1 - math.sqrt(1 + d * d) + d) / 2)
    cc = crosscheck(data, models=(), delta_s=False, delta_s_2d=False, **CHEAP)
    rows_m = cc.table[cc.table.method == "moments (S_com, r₁)"].set_index("quantity")
    assert "below 0: sampling noise around 0" in rows_m.note["eps_plus"]
    assert not any("no real solution" in n for n in rows_m.note)
    # ε₊ = 0 exactly (no error when the better text is first): S_com = |2r₁ − 1|, no boundary
    sim = simulate_round_robin(30, eps_plus=0.0, eps_minus=0.2, random_seed=5)
    m0 = positional_moments(sim.data)
    assert m0.eps_plus == 0.0 and not m0.at_boundary


def test_what_the_log_shows_is_one_answer_through_every_door():
    """PRD: the report's headline (identification d′, sharp bounds), its caveat text, a model's
    ``caveats_`` and ``fit --judge``'s JSON block (``what_the_log_shows`` on the judge alone)
    state the same numbers; a judge's check does not depend on the other judges in the log."""
    from bayes_pairwise.identification import what_the_log_shows
    from bayes_pairwise.pymc_models import PositionalBias

    data = bp.datasets.load("prd_vicuna80", judge=["bard", "gpt4"])
    cc = crosscheck(data, models=(), random_seed=0, **LEAN)
    verdicts = cc.verdicts.set_index("judge")
    for judge in ("bard", "gpt4"):
        alone = bp.datasets.load("prd_vicuna80", judge=judge)
        shows = what_the_log_shows(alone, random_seed=0)
        r, a = cc.identification[judge], shows["identification"][judge]
        assert (r.status, r.measure, r.text) == (a.status, a.measure, a.text)
        assert r.measure > 0 and r.basis == "transitivity"
        assert cc.bounds[judge].to_dict() == shows["bounds"][judge].to_dict()
        # the headline's caveat repeats the headline's number, not a second simulation
        said = [t for t in verdicts.loc[judge, "caveats"] if t.startswith("Pair difficulty")]
        assert len(said) == 1 and said[0].startswith(r.text)
        # a model fitted with the same seed records the same statement
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = PositionalBias().fit(alone, method="map", random_seed=0)
        assert any(c.text.startswith(r.text) for c in m.caveats_)


def test_a_model_fitted_by_the_cross_check_states_the_cross_checks_numbers():
    """The models' caveats come from the log-level checks the cross-check made with its seed:
    the same d′ in ``cc.fits[...].caveats_`` as in the headline (they were simulated again
    with the sampler's stream, 30 s on QLoRA, with other numbers). The models themselves draw
    with the seed itself (they had a spawned stream of their own: ``fit --seed 3`` and
    ``compare --seed 3`` gave two posteriors)."""
    data = bp.datasets.load("prd_vicuna80", judge="bard")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc = crosscheck(data, models=("uniform",), random_seed=3, **LEAN_MAP)
    r = cc.identification["bard"]
    stated = [c.text for c in cc.fits["uniform"].caveats_ if c.text.startswith("Pair difficulty")]
    assert len(stated) == 1 and stated[0].startswith(r.text)
    assert cc.fits["uniform"].random_seed_ == 3  # a model fitted alone with seed 3 draws so


def test_fit_and_compare_with_one_seed_give_one_posterior(capsys):
    """`fit --seed 3 --fast` read ε₋ 0.462 [0.171, 0.809] and `compare --seed 3 --fast`
    0.465 [0.130, 0.776] on the same log (the audit's hand-made log): compare seeded its models
    with a spawned stream. Now the models draw with the seed itself in every door."""
    data = bp.datasets.load("prd_vicuna80", judge="claude")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc = crosscheck(data, models=("positional",), random_seed=3, method="laplace", **LEAN)
        alone = bp.PositionalBias().fit(data, method="laplace", random_seed=3)
    for q in ("eps_plus", "eps_minus"):
        a = cc.fits["positional"].idata_.posterior[q].values
        b = alone.idata_.posterior[q].values
        assert np.array_equal(a, b), q
    out = _json(
        capsys,
        ["fit", "prd_vicuna80", "--judge", "claude", "--fast", "--seed", "3", "--json"],
    )
    row = cc.table[(cc.table.role == "model") & (cc.table.quantity == "eps_minus")].iloc[0]
    assert out["parameters"]["eps_minus"]["mean"] == pytest.approx(row.estimate, abs=1e-12)


def test_estimate_with_gold_labels_gives_the_labelled_rates_compare_gives(tmp_path, capsys):
    """`estimate --method moments --truth-column truth` read no label and said so; the labels
    were used by the bounds alone. It now gives the plain labelled rates too, the numbers of
    compare's 'labelled verdicts (gold)' rows to the last digit, and the JSON carries them
    under `labelled`; without labels there is no such key."""
    from bayes_pairwise.crosscheck import METHOD_LABELS
    from bayes_pairwise.simulate import simulate_hard_pairs

    log = tmp_path / "hard.csv"
    simulate_hard_pairs(30, random_seed=7).data.to_frame().to_csv(log, index=False)
    args = ["estimate", str(log), "--method", "moments", "--truth-column", "truth"]
    assert main([*args, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    got = res["labelled"]["judge"]
    data = bp.load_comparisons(log, truth="truth")
    cc = crosscheck(data, models=(), **LEAN_MAP)
    rows = cc.table[cc.table.method == METHOD_LABELS].set_index("quantity")
    assert set(rows.index) == {"eps", "eps_plus", "eps_minus"}
    for q in rows.index:
        assert got[q] == pytest.approx(rows.loc[q, "estimate"], abs=1e-12)
        assert got[f"{q}_lower"] == pytest.approx(rows.loc[q, "lower"], abs=1e-12)
        assert got[f"{q}_upper"] == pytest.approx(rows.loc[q, "upper"], abs=1e-12)
    # the plain count, by hand: an error prefers the truly worse text
    df = data.to_frame()
    lab = df[df.truth.notna() & (df.outcome != "tie")]
    wrong = np.where(lab.outcome == "first", lab["first"], lab["second"]) != lab.truth
    assert got["n_decided"] == len(lab) and got["eps"] == pytest.approx(wrong.mean())
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"note: gold labels: the labelled verdicts alone give ε {got['eps']:.3f} [" in out
    assert main(["estimate", str(log), "--method", "moments", "--json"]) == 0
    assert "labelled" not in json.loads(capsys.readouterr().out)
