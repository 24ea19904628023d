"""Δ_S: closed forms, fast vs paper-faithful tables, cache, 1-D and 2-D fits (METHODS §5)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.classical import deltas
from bayes_pairwise.classical.deltas import (
    DeltaS2DFit,
    DeltaSFit,
    delta_s,
    delta_s_all_zero,
    delta_s_curve_reference,
    delta_s_scores,
    make_grid,
    observed_curve,
    synthetic_curve_reference,
    synthetic_delta_s_draws,
    synthetic_table,
)
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import CacheWarning, DesignError, DesignWarning, NotFittedError
from bayes_pairwise.matrices import z_matrix
from bayes_pairwise.simulate import simulate_round_robin


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("deltas_cache")


def _perfect(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n)), 1) - np.tril(np.ones((n, n)), -1)


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("n", range(2, 9))
def test_all_zero_z_gives_floor_n2_over_2(n):
    assert delta_s(np.zeros((n, n))) == n * n // 2 == delta_s_all_zero(n)
    # the paper's printed N(N+1)/2 is not what its own definition gives
    assert delta_s_all_zero(n) != n * (n + 1) // 2


@pytest.mark.parametrize("n", [2, 5, 30])
def test_perfect_z_gives_zero_under_any_labelling(n):
    perm = np.random.default_rng(n).permutation(n)
    Z = _perfect(n)[np.ix_(perm, perm)]
    assert delta_s(Z) == 0.0
    assert delta_s(-Z) == 0.0  # a full reversal is invisible to sorted scores


def test_delta_s_scores_is_vectorised_and_matches_the_definition():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(4, 3, 7))
    out = delta_s_scores(s)
    for idx in np.ndindex(4, 3):
        srt = np.sort(s[idx])[::-1]
        assert out[idx] == pytest.approx(np.abs(srt - (6 - 2 * np.arange(7))).sum())


def test_delta_s_rejects_non_round_robin_matrices():
    with pytest.raises(DesignError, match="antisymmetric"):
        delta_s(np.ones((3, 3)))
    with pytest.raises(DesignError, match="square"):
        delta_s(np.zeros((2, 3)))
    Z = _perfect(3)
    Z[0, 1] = Z[1, 0] = np.nan
    with pytest.raises(DesignError, match="missing"):
        delta_s(Z)


# ------------------------------------------------------------------ observed curve
def test_observed_curve_matches_the_paper_faithful_loop():
    Z = z_matrix(simulate_round_robin(20, eps=0.2, random_seed=3).data).to_numpy()
    fast = observed_curve(Z, 3000, random_seed=1)
    ref = delta_s_curve_reference(Z, 300, random_seed=2)
    # n = N (and n = N − 1 enumerated): exact in both
    assert fast[-1] == pytest.approx(delta_s(Z)) and ref[-1] == pytest.approx(delta_s(Z))
    # within Monte Carlo error elsewhere: per-subset spread estimated from a third draw
    rng = np.random.default_rng(4)
    for n in (3, 8, 14):
        vals = []
        for _ in range(300):
            s = rng.choice(20, n, replace=False)
            vals.append(delta_s(Z[np.ix_(s, s)]))
        se = np.std(vals) * np.sqrt(1 / 3000 + 1 / 300)
        assert abs(fast[n - 2] - ref[n - 2]) < 4 * se + 1e-9


def test_observed_curve_is_exact_for_enumerable_sizes():
    Z = z_matrix(simulate_round_robin(5, eps=0.3, random_seed=0).data).to_numpy()
    a = observed_curve(Z, 200, random_seed=0)
    b = observed_curve(Z, 200, random_seed=99)
    np.testing.assert_array_equal(a, b)  # every subset used: no randomness left


# ------------------------------------------------------------------ fast vs paper-faithful tables
@pytest.mark.parametrize(
    ("eps_plus", "eps_minus", "k_plus", "k_minus"),
    [(0.05, None, 1, 1), (0.2, None, 1, 1), (0.4, None, 1, 1), (0.05, 0.3, 2, 1)],
)
def test_fast_table_agrees_with_paper_faithful_synthetic(eps_plus, eps_minus, k_plus, k_minus):
    N = 14
    two_d = eps_minus is not None
    grid = np.array([0.0, 0.05, 0.2, 0.3, 0.4])
    ref = synthetic_curve_reference(
        N,
        eps_plus,
        eps_minus,
        k_plus=k_plus,
        k_minus=k_minus,
        n_synthetic=60,
        n_subsets=15,
        random_seed=11,
        return_all=True,
    )
    ref_mean, ref_se = ref.mean(0), ref.std(0, ddof=1) / np.sqrt(ref.shape[0])
    gp = int(np.flatnonzero(grid == eps_plus)[0])
    gm = int(np.flatnonzero(grid == (eps_minus if two_d else eps_plus))[0])
    z_scores = []
    for n in range(2, N + 1):
        d = synthetic_delta_s_draws(
            n, grid, k_plus=k_plus, k_minus=k_minus, n_synthetic=400, random_seed=5, two_d=two_d
        )
        d = d[:, gp, gm] if two_d else d[:, gp]
        se = np.sqrt(ref_se[n - 2] ** 2 + d.var(ddof=1) / d.size)
        z_scores.append((d.mean() - ref_mean[n - 2]) / se if se > 0 else 0.0)
    assert np.max(np.abs(z_scores)) < 4.0
    # the comparison has power: a table at the wrong grid value is rejected
    wrong = (gp + 1) % grid.size
    d = synthetic_delta_s_draws(
        N, grid, k_plus=k_plus, k_minus=k_minus, n_synthetic=400, random_seed=5, two_d=two_d
    )
    d = d[:, wrong, gm] if two_d else d[:, wrong]
    se = np.sqrt(ref_se[-1] ** 2 + d.var(ddof=1) / d.size)
    assert abs(d.mean() - ref_mean[-1]) > 4 * se


def test_two_d_table_is_symmetric_and_its_diagonal_matches_one_d():
    grid = make_grid(0.05)
    d1 = synthetic_delta_s_draws(12, grid, k_plus=1, k_minus=2, n_synthetic=300).mean(0)
    d2 = synthetic_delta_s_draws(12, grid, k_plus=1, k_minus=2, n_synthetic=300, two_d=True)
    d2 = d2.mean(0)
    np.testing.assert_array_equal(d2, d2.T)
    np.testing.assert_allclose(np.diag(d2), d1, atol=1.0)


# ------------------------------------------------------------------ cache
def test_cache_hit_returns_identical_table_from_the_file(tmp_path, monkeypatch):
    t1 = synthetic_table(12, cache_dir=tmp_path, random_seed=3)
    assert not t1.from_cache and t1.cache_file is not None and t1.cache_file.exists()
    assert t1.cache_file.parent == tmp_path

    def boom(*args, **kwargs):
        raise AssertionError("the table was recomputed instead of read from the cache")

    monkeypatch.setattr(deltas, "synthetic_delta_s_draws", boom)
    t2 = synthetic_table(12, cache_dir=tmp_path, random_seed=3)
    assert t2.from_cache and t2.cache_file == t1.cache_file
    np.testing.assert_array_equal(t1.values, t2.values)
    t3 = synthetic_table(7, cache_dir=tmp_path, random_seed=3)  # a larger cached table serves
    np.testing.assert_array_equal(t3.values, t1.values[:, :6])
    with pytest.raises(AssertionError, match="recomputed"):  # other parameters: not a hit
        synthetic_table(12, cache_dir=tmp_path, random_seed=4)
    with pytest.raises(AssertionError, match="recomputed"):
        synthetic_table(12, cache_dir=tmp_path, random_seed=3, k_plus=2)
    with pytest.raises(AssertionError, match="recomputed"):
        synthetic_table(12, cache_dir=tmp_path, random_seed=3, two_d=True)
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave nothing behind


def test_cache_dir_from_environment_and_corrupt_files(tmp_path, monkeypatch):
    monkeypatch.setenv("BAYES_PAIRWISE_CACHE", str(tmp_path / "env"))
    t = synthetic_table(6, random_seed=1)
    assert t.cache_file.parent == tmp_path / "env"
    t.cache_file.write_bytes(b"not a table")
    with pytest.warns(CacheWarning, match="corrupt"):
        t2 = synthetic_table(6, random_seed=1)  # recomputed, not crashed
    assert not t2.from_cache
    np.testing.assert_array_equal(t.values, t2.values)
    t3 = synthetic_table(6, random_seed=1, use_cache=False)
    assert t3.cache_file is None and not t3.from_cache


def test_tables_do_not_depend_on_n_max():
    a = synthetic_table(9, use_cache=False, random_seed=2)
    b = synthetic_table(5, use_cache=False, random_seed=2)
    np.testing.assert_array_equal(a.values[:, :4], b.values)


# ------------------------------------------------------------------ 1-D fit
@pytest.mark.parametrize("eps", [0.05, 0.15, 0.3])
def test_one_d_fit_recovers_realised_eps_at_n100(eps, cache):
    sim = simulate_round_robin(100, eps=eps, random_seed=int(eps * 1000))
    fit = DeltaSFit(random_seed=0, cache_dir=cache).fit(sim.data)
    assert abs(fit.eps_ - sim.realised_eps) <= 0.01
    assert fit.misfit_.shape == fit.grid_.shape == (101,)
    assert fit.misfit_[np.argmin(np.abs(fit.grid_ - fit.eps_))] == fit.misfit_.min()
    assert fit.observed_curve_.shape == fit.synthetic_curve_.shape == (99,)
    assert fit.n_ == 100 and fit.design_ == (1, 1)
    idata = fit.to_inference_data()
    assert float(idata.posterior["eps"].values[0, 0]) == fit.eps_
    assert idata.posterior.sizes["chain"] == 1 and idata.posterior.sizes["draw"] == 1


def test_one_d_fit_on_a_bare_z_matrix_and_on_w_with_repeats(cache):
    sim = simulate_round_robin(40, eps=0.2, random_seed=8)
    Z = z_matrix(sim.data)
    a = DeltaSFit(random_seed=1, cache_dir=cache).fit(Z)
    b = DeltaSFit(random_seed=1, cache_dir=cache).fit(sim.data)
    assert a.eps_ == b.eps_
    rep = simulate_round_robin(40, eps=0.2, repeats=2, random_seed=9)
    fit = DeltaSFit(random_seed=1, cache_dir=cache).fit(rep.data)
    assert fit.design_ == (2, 2)
    assert abs(fit.eps_ - rep.realised_eps) <= 0.02
    W = np.array([[0, 0.5], [-0.5, 0]])
    with pytest.raises(DesignError, match="k_plus"):
        DeltaSFit(cache_dir=cache).fit(W)


def test_one_d_fit_pools_contexts(cache):
    sim = simulate_round_robin(5, eps=0.3, n_contexts=80, random_seed=1)
    fit = DeltaSFit(random_seed=0, cache_dir=cache).fit(sim.data)
    assert fit.n_contexts_ == 80 and fit.n_ == 5
    assert fit.table_.n_synthetic == 10 * 80
    assert abs(fit.eps_ - sim.realised_eps) <= 0.03


def test_fit_needs_a_judge_and_a_complete_round_robin(cache):
    a = simulate_round_robin(6, eps=0.1, random_seed=1).frame.assign(judge="A")
    b = simulate_round_robin(6, eps=0.1, random_seed=2).frame.assign(judge="B")
    data = load_comparisons(pd.concat([a, b]), judge="judge")
    with pytest.raises(DesignError, match="judge"):
        DeltaSFit(cache_dir=cache).fit(data)
    assert DeltaSFit(cache_dir=cache).fit(data, judge="B").judge_ == "B"
    gap = load_comparisons(a.iloc[1:])  # one pair now lacks an order
    with pytest.raises(DesignError, match="fall short"):
        DeltaSFit(cache_dir=cache).fit(gap)
    ctx = simulate_round_robin(4, eps=0.1, n_contexts=3, random_seed=3).frame.iloc[1:]
    # how many contexts fall short, and how to fit the rest, from the command line too
    with pytest.raises(DesignError, match=r"1 of 3 contexts .*--skip-incomplete.* 2 complete"):
        DeltaSFit(cache_dir=cache).fit(load_comparisons(ctx, context="context"))
    with pytest.warns(DesignWarning, match="1 of 3 contexts skipped") as caught:
        fit = DeltaSFit(cache_dir=cache, skip_incomplete=True).fit(
            load_comparisons(ctx, context="context")
        )
    assert fit.n_contexts_ == 2
    # raised three calls deep in the package, reported at this line (errors.user_stacklevel)
    assert {w.filename for w in caught if issubclass(w.category, DesignWarning)} == {__file__}


def test_unfitted_estimators_raise():
    with pytest.raises(NotFittedError):
        DeltaSFit().to_inference_data()
    with pytest.raises(NotFittedError):
        DeltaS2DFit().to_inference_data()


def test_progress_callback(tmp_path):
    seen = []
    synthetic_table(30, cache_dir=tmp_path, progress=lambda *a: seen.append(a))
    assert seen and seen[-1][1:] == (100, 100)
    assert all(0 <= done <= total for _, done, total in seen)


# ------------------------------------------------------------------ 2-D fit
def test_two_d_fit_flags_non_identifiability_and_recovers_the_sum(cache):
    sim = simulate_round_robin(40, eps_plus=0.05, eps_minus=0.3, repeats=2, random_seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = DeltaS2DFit(random_seed=0, cache_dir=cache).fit(sim.data)
    assert fit.identifiable_ is False
    assert "symmetric" in fit.caveat_
    assert fit.misfit_.shape == (101, 101)
    np.testing.assert_allclose(fit.misfit_, fit.misfit_.T)
    assert len(fit.cv_results_) == 4  # k+* ∈ {1, 2} × k-* ∈ {1, 2}
    assert set(map(tuple, fit.cv_results_[["k_plus", "k_minus"]].to_numpy())) == {
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
    }
    true_sum = sim.realised_eps_plus + sim.realised_eps_minus
    assert abs(fit.eps_sum_ - true_sum) < 0.03
    assert abs(fit.eps_plus_hybrid_ - sim.realised_eps_plus) < 0.03
    assert abs(fit.eps_minus_hybrid_ - sim.realised_eps_minus) < 0.03
    assert fit.eps_plus_ == pytest.approx(fit.cv_results_["eps_plus"].mean())
    idata = fit.to_inference_data()
    assert set(idata.posterior.data_vars) == {"eps_plus", "eps_minus"}
    assert idata.posterior.attrs["identifiable"] == 0


def test_two_d_fit_on_a_matrix_has_no_cross_validation(cache):
    sim = simulate_round_robin(25, eps_plus=0.1, eps_minus=0.2, random_seed=5)
    fit = DeltaS2DFit(random_seed=0, cache_dir=cache, grid_step=0.01).fit(z_matrix(sim.data))
    assert len(fit.cv_results_) == 1
    assert fit.eps_plus_hybrid_ is None
    assert fit.misfit_.shape == (51, 51)


def test_table_progress_is_a_line_per_update_when_stderr_is_not_a_terminal(
    tmp_path, capsys, monkeypatch
):
    """In a log file or pipe a carriage return would run the updates together on one line."""
    import bayes_pairwise.classical.deltas as deltas_mod

    monkeypatch.setattr(deltas_mod, "PROGRESS_AFTER_S", 0.0)
    synthetic_table(8, cache_dir=tmp_path, random_seed=5, n_synthetic=20, progress=True)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "\r" not in err and err.endswith("\n")
    assert len(lines) >= 2 and all(line.startswith("Δ_S synthetic table (1-D") for line in lines)
    assert re.search(r": 100/100 in \d+\.\d s$", lines[-1])


def test_a_quick_table_prints_no_progress(tmp_path, capsys):
    """A table built in less than PROGRESS_AFTER_S says nothing: llmfao's first cross-check
    built dozens of them (one per tie rate) and printed up to 11 lines each."""
    synthetic_table(8, cache_dir=tmp_path, random_seed=5, n_synthetic=20, progress=True)
    assert capsys.readouterr().err == ""


def test_a_design_on_which_delta_s_does_not_move_with_eps_is_refused(cache):
    """Two texts with one verdict always form the perfect Copeland sequence, so the synthetic
    Δ_S is 0 at every grid value and the fit's minimum (ε = 0) is no estimate: `compare` on
    llmfao (crowd workers, each pair once) printed "0.000 (Δ_S grid)" for 82 of 124 workers."""
    sim = simulate_round_robin(2, eps=0.3, k_plus=1, k_minus=0, n_contexts=40, random_seed=0)
    assert 0.2 < sim.realised_eps < 0.4
    for cls in (DeltaSFit, DeltaS2DFit):
        with pytest.raises(DesignError) as err:
            cls(random_seed=0, cache_dir=cache).fit(sim.data)
        said = str(err.value)
        assert "its synthetic Δ_S is the same at every grid value" in said
        assert "40 round robin(s) of 2 items, k+=1, k-=0 verdict(s) per pair" in said
        assert "two texts with one verdict always form the perfect Copeland sequence" in said
    # the same texts shown in both orders: Copeland's 0–0 for a split pair moves with ε
    both = simulate_round_robin(2, eps=0.3, n_contexts=200, random_seed=0)
    fit = DeltaSFit(random_seed=0, cache_dir=cache).fit(both.data)
    assert np.ptp(fit.misfit_) > 0 and abs(fit.eps_ - both.realised_eps) < 0.08
    # the cross-check leaves the grid out and says why, instead of a 0.000 row
    from bayes_pairwise.crosscheck import crosscheck

    cc = crosscheck(sim.data, models=(), leaderboard=False, biased_bt_spread=False)
    assert not cc.table.method.astype(str).str.startswith("Δ_S").any()
    for what in ("Δ_S", "Δ_S 2-D"):
        assert "same at every grid value" in cc.classical.skipped["judge"][what]
        assert any(n.startswith(f"{what} skipped for judge: Δ_S cannot read") for n in cc.notes)


def test_no_complete_context_names_the_design_every_pair_meets(cache, tmp_path, capsys):
    """Chatbot Arena's battles (one context, 2–388 verdicts per pair and order) were refused
    with "k+=86, k-=85" — the design most pairs have — and told to skip incomplete contexts, to
    fit 0 of them. The error now names the largest design every pair meets, which
    ``k_plus``/``k_minus`` (``--k-plus``/``--k-minus``) fit; the command line and Python give the
    same ε; a log where some pair was never compared is told that Δ_S cannot read it."""
    from bayes_pairwise.cli import main
    from bayes_pairwise.crosscheck import seed_streams

    sim = simulate_round_robin(5, eps=0.2, repeats=3, random_seed=4)
    frame = sim.frame
    # three pairs keep one verdict with the lower-indexed text first: (3, 3) stays the mode
    lo_first = frame["first"] < frame["second"]
    pairs = frame[["first", "second"]].min(axis=1) + "|" + frame[["first", "second"]].max(axis=1)
    cut = pairs.isin(sorted(set(pairs))[:3]) & lo_first & (frame["repeat"] > 0)
    data = load_comparisons(frame[~cut])
    with pytest.raises(DesignError) as err:
        DeltaSFit(cache_dir=cache).fit(data)
    text = str(err.value)
    assert "1 of 1 contexts of judge 'judge'" in text and "3 pair(s) fall short" in text
    assert "skip_incomplete" not in text
    assert "every pair holds at least k+=1, k-=3 verdicts: pass k_plus=1, k_minus=3" in text
    seed = seed_streams(0)["delta_s"]  # estimate's stream for Δ_S, as the cross-check's
    with pytest.warns(DesignWarning, match=r"judge 'judge': unequal design .* 14 verdicts"):
        fit = DeltaSFit(random_seed=seed, cache_dir=cache, n_bootstrap=0).fit(
            data, k_plus=1, k_minus=3
        )
    path = tmp_path / "log.csv"
    frame[~cut].to_csv(path, index=False)
    argv = ["estimate", str(path), "--method", "deltas", "--k-plus", "1", "--k-minus", "3"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["estimates"]["eps"] == pytest.approx(fit.eps_, abs=1e-12)
    # one round robin: no bootstrap interval, and the output says why (compare's row does)
    assert "eps_lower" not in out["estimates"]
    assert out["interval_note"].startswith("no interval (1 round robin): the bootstrap")
    assert main(["estimate", str(path), "--method", "scom", "--k-plus", "1"]) != 0
    err = capsys.readouterr().err
    assert "--k-plus sets the Δ_S design: it applies to --method deltas or deltas2d" in err
    never = load_comparisons(frame[~pairs.isin(sorted(set(pairs))[:1])])
    with pytest.raises(DesignError, match="no context has every pair compared, so Δ_S cannot"):
        DeltaSFit(cache_dir=cache).fit(never)


def test_a_cached_table_of_another_split_does_not_serve_a_design(tmp_path):
    """The 1-D table's cache key held k₊ + k₋ alone (the values' distribution depends on the
    total only), so a (2, 2) table of 20 sizes, cached by an earlier run, served a (1, 3) fit:
    a 5-text log read ε 0.05 after it and 0.07 in an empty cache. Each split has its own
    table now: the answer does not depend on what the cache held."""
    sim = simulate_round_robin(5, eps=0.2, repeats=2, random_seed=4)
    frame = sim.frame
    lo_first = frame["first"] < frame["second"]
    data = load_comparisons(frame[~(lo_first & (frame["repeat"] > 0))])  # k+ = 1, k- = 2
    fresh = DeltaSFit(random_seed=7, n_bootstrap=0, cache_dir=tmp_path / "a").fit(data)
    synthetic_table(20, k_plus=2, k_minus=1, random_seed=7, cache_dir=tmp_path / "b")
    after = DeltaSFit(random_seed=7, n_bootstrap=0, cache_dir=tmp_path / "b").fit(data)
    assert not after.table_.from_cache
    np.testing.assert_array_equal(after.table_.values, fresh.table_.values)
    assert after.eps_ == fresh.eps_
