"""The tie model end to end (issue 7 item 1): saved and loaded, checked, compared, reported and
run from the command line on the same data as the classical estimators; issue 12 leftovers
(NumPy RuntimeWarnings kept out of the report, notebook HTML escaped)."""

from __future__ import annotations

import json
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import pytest
from scipy.special import expit

from bayes_pairwise.classical.descriptive import (
    commutativity_score,
    commutativity_score_counts,
    descriptive_by_judge,
    first_position_rate,
)
from bayes_pairwise.cli import main
from bayes_pairwise.crosscheck import crosscheck as compare
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.pymc_models import PositionalBias, UniformError, diagnose, load_model
from bayes_pairwise.pymc_models.diagnostics import ppc_pair_counts, tie_handling


# --------------------------------------------------------------------------- data
def tie_frame(
    n: int = 12,
    *,
    tau: float = 0.2,
    eps_plus: float = 0.1,
    eps_minus: float = 0.25,
    seed: int = 0,
) -> pd.DataFrame:
    """Round robin in both orders, one verdict per order; a verdict is a tie with rate ``tau``,
    otherwise the latent truth flipped with ε₊ / ε₋."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 2.0, n)
    rows = []
    for i in range(n):
        for j in range(i + 1, n):
            i_better = rng.random() < expit(s[i] - s[j])
            for f, sc in ((i, j), (j, i)):
                if rng.random() < tau:
                    rows.append((f"m{f:02d}", f"m{sc:02d}", "tie"))
                    continue
                better_first = (f == i) == i_better
                err = rng.random() < (eps_plus if better_first else eps_minus)
                rows.append(
                    (f"m{f:02d}", f"m{sc:02d}", "first" if better_first != err else "second")
                )
    return pd.DataFrame(rows, columns=["first", "second", "outcome"])


@pytest.fixture(scope="module")
def frame():
    return tie_frame(12, seed=3)


@pytest.fixture(scope="module")
def data(frame):
    return load_comparisons(frame, ties="model")


@pytest.fixture(scope="module")
def tie_fit(data):
    m = PositionalBias().fit(data, method="map", random_seed=1)
    m.sample_posterior_predictive(random_seed=2, point_draws=40)
    return m


def test_fixture_holds_ties(data):
    n_tie = int(np.sum(data.outcome == 0.5))
    assert data.tie_policy == "model" and n_tie == data.n_ties
    assert 15 <= n_tie <= 40  # 132 verdicts, tie rate 0.2


# --------------------------------------------------------------------------- item 1: io
def test_tie_fit_round_trip_same_logp_and_params(tie_fit, tmp_path):
    path = tmp_path / "ties.nc"
    tie_fit.save(path)
    loaded = load_model(path)
    assert list(loaded.model_.coords["count"]) == ["n1", "n2", "t1", "t2"]
    # the rebuilt model observes the same counts (ties rebuilt as ties, not losses)
    np.testing.assert_array_equal(
        np.asarray(loaded.idata_.observed_data["wins"]),
        np.asarray(tie_fit.idata_.observed_data["wins"]),
    )
    rebuilt = pm.compute_log_likelihood(
        az.InferenceData(posterior=tie_fit.idata_.posterior),
        model=loaded.model_,
        extend_inferencedata=False,
        progressbar=False,
    )
    np.testing.assert_allclose(
        rebuilt["wins"].values, tie_fit.idata_.log_likelihood["wins"].values, rtol=1e-10
    )
    # model logp (priors included) at the stored point is the same
    post = tie_fit.idata_.posterior
    vals = {}
    for vv in tie_fit.model_.value_vars:
        rv = tie_fit.model_.values_to_rvs[vv]
        x = np.asarray(post[rv.name]).reshape(post[rv.name].shape[2:])
        tr = tie_fit.model_.rvs_to_transforms[rv]
        vals[vv.name] = (
            x if tr is None else tr.forward(pt.as_tensor_variable(x), *rv.owner.inputs).eval()
        )
    assert {v.name for v in loaded.model_.value_vars} == set(vals)
    lp_orig = tie_fit.model_.compile_logp()(vals)
    lp_load = loaded.model_.compile_logp()(vals)
    assert np.isfinite(lp_orig) and lp_load == pytest.approx(lp_orig, rel=1e-12)
    for name in ("eps_plus", "eps_minus", "tie_rate"):
        np.testing.assert_array_equal(
            np.asarray(loaded.idata_.posterior[name]), np.asarray(tie_fit.idata_.posterior[name])
        )
    assert loaded.reported_names() == tie_fit.reported_names()
    assert tie_handling(loaded) == tie_handling(tie_fit)


# --------------------------------------------------------------------------- item 2: PPC
def test_ppc_counts_read_ties_as_half(tie_fit, data):
    c = ppc_pair_counts(tie_fit.idata_)
    wins = np.asarray(tie_fit.idata_.observed_data["wins"])
    assert int(c["t1"].sum() + c["t2"].sum()) == int(np.sum(data.outcome == 0.5))
    np.testing.assert_array_equal(c["n1"], wins[:, 0] + 0.5 * wins[:, 2])
    np.testing.assert_array_equal(c["n2"], wins[:, 1] + 0.5 * wins[:, 3])
    # replicated counts too: a replicated tie is half a win, never a loss
    rep = np.asarray(tie_fit.idata_.posterior_predictive["wins"]).reshape(-1, *wins.shape)
    np.testing.assert_array_equal(c["n1_rep"], rep[..., 0] + 0.5 * rep[..., 2])


def test_ppc_observed_statistics_equal_the_classical_estimators(tie_fit, data):
    d = diagnose(tie_fit, ppc=True, random_seed=0)
    ppc = d.ppc.set_index("statistic")
    s_com = commutativity_score(data)
    r1 = first_position_rate(data)
    assert ppc.loc["s_com", "observed"] == pytest.approx(s_com, abs=1e-12)
    assert ppc.loc["first_position_rate", "observed"] == pytest.approx(r1, abs=1e-12)
    desc = descriptive_by_judge(data).iloc[0]
    assert ppc.loc["s_com", "observed"] == pytest.approx(desc["s_com"], abs=1e-12)
    # reading the ties as losses of i (the old bug) would give another S_com
    wins = np.asarray(tie_fit.idata_.observed_data["wins"])
    k = np.asarray(tie_fit.idata_.constant_data["k"])
    wrong = commutativity_score_counts(k[:, 0], k[:, 1], wins[:, 0], wins[:, 1])
    assert abs(wrong - s_com) > 0.005  # 0.0076 on this seeded log


# --------------------------------------------------------------------------- item 4: compare
def test_compare_fits_the_tie_model_on_the_same_data(data):
    cc = compare(
        data,
        models=("positional",),
        method="map",
        random_seed=0,
        delta_s=False,
        delta_s_2d=False,
        biased_bt_spread=False,
        strengths=False,
    )
    ((label, ties),) = cc.tie_handling.items()
    assert "positional" in label and ties["handling"] == "model"
    assert (
        ties["n_ties_modelled"] == int(np.sum(data.outcome == 0.5)) and ties["n_ties_dropped"] == 0
    )
    tr = cc.table[cc.table.quantity == "tie_rate"].set_index("method")
    share = float(np.mean(data.outcome == 0.5))
    assert tr.loc["observed share of ties", "estimate"] == pytest.approx(share)
    fit_row = tr.loc[next(m for m in tr.index if "MAP" in m)]
    assert abs(fit_row["estimate"] - share) < 0.03
    # the classical rows are the estimators on the very data the model saw, ties counted half
    # and rescaled to rates among decided verdicts (the models' scale), unclipped
    import dataclasses

    from bayes_pairwise.conventions import decided_error_rate

    assert data.tie_policy == "model"
    desc = descriptive_by_judge(data).iloc[0]  # already among decided verdicts
    half = descriptive_by_judge(dataclasses.replace(data, tie_policy="half")).iloc[0]
    mom = cc.table[(cc.table.quantity == "eps_plus") & (cc.table.method == "moments (S_com, r₁)")]
    assert float(mom.estimate.iloc[0]) == pytest.approx(desc["eps_plus"])
    assert desc["eps_plus"] == pytest.approx(decided_error_rate(half["eps_plus"], share)[0])
    assert any("modelled as an outcome" in n for n in cc.notes)


def test_compare_a_fit_that_drops_ties_reads_rates_on_the_same_scale(data):
    m = UniformError(ties="drop").fit(data, method="map", random_seed=0)
    assert tie_handling(m)["handling"] == "dropped"
    cc = compare(data, m, delta_s=False, delta_s_2d=False, biased_bt_spread=False, strengths=False)
    assert "tie_rate" not in set(cc.table[cc.table.role == "model"].quantity)
    row = cc.agreement.set_index("classical").loc["S_com closed form"]
    # the tie-free fit and the rescaled classical S_com estimate the same decided-verdict rate
    assert abs(row.posterior_mean - row.classical_estimate) < 0.03
    assert any("ties dropped by the model" in n for n in cc.notes)


def test_fit_summary_says_how_ties_were_handled(tie_fit, data):
    from bayes_pairwise.pymc_models import fit_summary_dict

    out = fit_summary_dict(tie_fit)
    assert out["ties"]["handling"] == "model"
    assert "tie_rate" in out["parameters"]
    assert out["settings"]["data"]["tie_policy"] == "model"
    assert out["ties"]["n_ties_modelled"] == int(np.sum(data.outcome == 0.5))


# --------------------------------------------------------------------------- item 4: CLI
def _run_json(capsys, argv):
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out), out.err


def test_cli_fit_file_with_ties_models_them_by_default(frame, tmp_path, capsys):
    path = tmp_path / "ties.csv"
    frame.to_csv(path, index=False)
    res, err = _run_json(capsys, ["fit", str(path), "--model", "uniform", "--map", "--json"])
    n_tie = int((frame.outcome == "tie").sum())
    assert res["settings"]["data"]["tie_policy"] == "model"
    assert res["settings"]["data"]["n_ties_dropped"] == 0
    assert res["ties"] == {
        "handling": "model",
        "tie_policy": "model",
        "n_ties": n_tie,
        "n_ties_modelled": n_tie,
        "n_ties_counted_half": 0,
        "n_ties_dropped": 0,
        "tie_rates": "per judge",
    }
    assert abs(res["parameters"]["tie_rate"]["mean"] - n_tie / len(frame)) < 0.03
    assert f"{n_tie} tie(s) modelled" in err
    # --ties drop: the tie-free model, and the drop is recorded
    res, _ = _run_json(
        capsys, ["fit", str(path), "--model", "uniform", "--map", "--ties", "drop", "--json"]
    )
    assert "tie_rate" not in res["parameters"]
    assert res["ties"]["handling"] == "dropped" and res["ties"]["n_ties_dropped"] == n_tie
    # estimate reads the file with the same tie rule (one rule for every command) …
    est, _ = _run_json(capsys, ["estimate", str(path), "--method", "scom", "--json"])
    assert est["settings"]["data"]["tie_policy"] == "model"
    assert est["settings"]["data"]["n_comparisons"] == len(frame)
    # … and refuses ties only when told
    assert main(["estimate", str(path), "--method", "scom", "--ties", "error"]) == 2
    assert "ties='error'" in capsys.readouterr().err


def test_cli_fit_file_without_ties_fits_the_tie_free_model(frame, tmp_path, capsys):
    path = tmp_path / "noties.csv"
    frame[frame.outcome != "tie"].to_csv(path, index=False)
    res, err = _run_json(capsys, ["fit", str(path), "--model", "uniform", "--map", "--json"])
    assert "tie_rate" not in res["parameters"]
    assert res["settings"]["data"]["tie_policy"] == "half"  # no tie to model: no tie rate
    assert res["ties"]["handling"] == "none"
    assert "modelled" not in err


def test_cli_compare_classical_rows_on_the_model_data(frame, tmp_path, capsys):
    path = tmp_path / "ties.csv"
    frame.to_csv(path, index=False)
    res, _ = _run_json(capsys, ["compare", str(path), "--model", "uniform", "--map", "--json"])
    methods = {r["method"] for r in res["table"]}
    assert "observed share of ties" in methods
    assert all(t["handling"] == "model" for t in res["tie_handling"].values())
    assert res["settings"]["data"]["tie_policy"] == "model"


# --------------------------------------------------------------------------- item 5 (issue 12)
def test_report_capture_skips_numpy_runtime_warnings():
    from bayes_pairwise.errors import WarningSink

    sink = WarningSink()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        np.log(np.zeros(1))  # "divide by zero encountered in log"
        warnings.warn("a real message", UserWarning, stacklevel=1)
    assert any(r.category is RuntimeWarning for r in rec)
    sink.add(rec)
    assert sink.other == ["a real message"]
    assert not any("divide by zero" in m for m in sink.other + sink.design + sink.convergence)


BIDI_ID = "gpt\u202e4.exe"


def test_data_summary_html_escapes_and_shows_bidi():
    df = pd.DataFrame(
        {
            "first": ["<b>x</b>", "y", BIDI_ID],
            "second": ["y", BIDI_ID, "<b>x</b>"],
            "outcome": ["first", "second", "first"],
            "judge": ["j<script>", "j<script>", "j<script>"],
        }
    )
    html = load_comparisons(df, judge="judge").summary()._repr_html_()
    assert "<script>" not in html and "j&lt;script&gt;" in html
    assert "\u202e" not in html


def test_crosscheck_html_escapes_and_shows_bidi():
    df = tie_frame(6, seed=1)
    df["first"] = df["first"].replace("m00", BIDI_ID)
    df["second"] = df["second"].replace("m00", BIDI_ID)
    df["judge"] = "<img src=x>\u202e"
    data = load_comparisons(df, judge="judge", ties="model")
    cc = compare(
        data, models=(), delta_s=False, delta_s_2d=False, biased_bt_spread=False, strengths=False
    )
    html = cc._repr_html_()
    assert "<img" not in html and "&lt;img src=x&gt;" in html
    assert "\u202e" not in html and "&lt;U+202E&gt;" in html
