"""The HTML report: escaped, self-contained, with every section and the cross-check table.

Most tests replace the Bayesian model by a fake whose ``fit`` returns a synthetic posterior
instantly (no PyMC compile, no sampling); one test runs the real models with MAP.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import ClassVar

import arviz as az
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from bayes_pairwise import pymc_models
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.report import build_report, write_report
from bayes_pairwise.simulate import simulate_round_robin

NASTY_ITEMS = ["<script>alert(1)</script>", "A & B", "c&d", "plain", 'q"uote', "f$x$"]
NASTY_JUDGES = ["<b>bold</b>", "j & 2"]


def _nasty_data(n_contexts: int = 1):
    frames = []
    for k, judge in enumerate(NASTY_JUDGES):
        sim = simulate_round_robin(
            6, eps_plus=0.1, eps_minus=0.25, n_contexts=n_contexts, random_seed=k
        )
        f = sim.frame.copy()
        names = {f"t{i:03d}": NASTY_ITEMS[i] for i in range(6)}
        f["first"] = f["first"].map(names)
        f["second"] = f["second"].map(names)
        f["judge"] = judge
        frames.append(f)
    frame = pd.concat(frames, ignore_index=True)
    ctx = "context" if n_contexts > 1 else None
    return frame, load_comparisons(frame, judge="judge", repeat="repeat", context=ctx)


class FakeModel:
    """Stands in for a pymc_models class (one joint fit, error parameters per judge): ``fit``
    makes a posterior without compiling or sampling anything."""

    name = "FakePositional"
    calls: ClassVar[list[tuple[str, dict]]] = []

    def __init__(self, spec: str = "positional", **settings):
        self.spec = spec
        self.settings = settings
        FakeModel.calls.append((spec, settings))

    def fit(self, data, method="nuts", random_seed=None, **kwargs):
        FakeModel.last_data = data
        rng = np.random.default_rng(random_seed)
        chains, draws = (1, 1) if method == "map" else (2, 200)
        n, n_j = data.n_items, data.n_judges
        self.method_ = method
        self.idata_ = az.from_dict(
            posterior={
                # judge k: eps_plus around (10 + 10k) / (70 + 10k), distinct per judge
                "eps_plus": rng.beta(10 + 10 * np.arange(n_j), 60, (chains, draws, n_j)),
                "eps_minus": rng.beta(20, 60, (chains, draws, n_j)),
                "strength": np.linspace(1.5, -1.5, n) + rng.normal(0, 0.3, (chains, draws, n)),
            },
            coords={"item": list(data.items), "judge": list(data.judges)},
            dims={"strength": ["item"], "eps_plus": ["judge"], "eps_minus": ["judge"]},
            sample_stats={"diverging": np.zeros((chains, draws), dtype=bool)},
        )
        return self


@pytest.fixture
def fake_models(monkeypatch):
    FakeModel.calls = []
    monkeypatch.setattr(
        pymc_models, "get_model", lambda name, **kw: FakeModel(name, **kw), raising=False
    )
    return FakeModel


@pytest.fixture(scope="module")
def nasty_html():
    """One report (fake model, NUTS path) shared by the tests that only read it."""
    _, data = _nasty_data()
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(err):
        FakeModel.calls = []
        mp.setattr(
            pymc_models, "get_model", lambda name, **kw: FakeModel(name, **kw), raising=False
        )
        page = build_report(data, random_seed=0, grid_kwargs={"n_subsets": 30}, ppc_draws=40)
    return page.render(), err.getvalue()


def test_user_strings_are_escaped(nasty_html):
    html, _ = nasty_html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "A &amp; B" in html and "c&amp;d" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "j &amp; 2" in html
    assert "<script" not in html.lower()
    assert "alert(1)</script>" not in html
    assert "<b>bold</b>" not in html
    # every '&' in the document starts an entity: no raw ampersand from a user string
    assert not re.search(r"&(?![a-zA-Z]+;|#x?[0-9a-fA-F]+;)", html)


def test_report_is_self_contained(nasty_html):
    html, _ = nasty_html
    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", html, flags=re.I)
    assert refs, "the report has images and table-of-contents links"
    assert not [r for r in refs if re.match(r"\s*(https?:)?//", r, flags=re.I)]
    srcs = re.findall(r"""src\s*=\s*["']([^"']*)["']""", html, flags=re.I)
    assert len(srcs) >= 10
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "<link" not in html.lower() and "@import" not in html
    # the contents' links: the seven sections and their level-3 headings, each to its anchor
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == [f"#s{k}" for k in range(1, len(hrefs) + 1)] and len(hrefs) > 7
    assert all(f'id="{h[1:]}"' in html for h in hrefs)


def test_report_sections_and_progress(nasty_html):
    html, err = nasty_html
    h2 = re.findall(r"<h2[^>]*>([^<]*)</h2>", html)
    assert h2 == ["Answer: each judge&#x27;s error rates, and do the two methods agree?"]
    assert re.findall(r"<summary>([^<]*)</summary>", html)[1:] == [
        "Verdicts most likely wrong, per judge",
        "Data and design warnings",
        "Classical estimates",
        "Bayesian fit: diagnostics, strengths, predictive checks",
        "Cross-check: every estimate side by side",
        "Settings and run time",
    ]
    h3 = re.findall(r"<h3[^>]*>([^<]*)</h3>", html)
    for needed in (
        "Design warnings",
        "Copeland ranking",
        "Δ_S grid fit (the paper&#x27;s estimator)",
        "Probability that a text gets its correct Copeland score",
        "Judges against the text-blind ceiling",
        "Judge &lt;b&gt;bold&lt;/b&gt;",
        "Judge j &amp; 2",
    ):
        assert needed in h3
    assert "[report" in err and "fitting positional (NUTS)" in err
    assert "1000 / 500 / 2" in html  # the default sampler settings are shown
    assert "One row per judge" in html  # the judges' forest plot (two judges)
    # the predictive checks' flag rule, read from the rule that flagged the rows
    from bayes_pairwise.pymc_models.diagnostics import PPC_EXTREME_P, PPC_MIN_REPLICATES

    rule = f"red rows: p &lt; {PPC_EXTREME_P:g} or p &gt; {1 - PPC_EXTREME_P:g}, from "
    assert rule + f"{PPC_MIN_REPLICATES} replicates or more" in html


def _table_rows(html: str, header: str) -> list[list[str]]:
    """Rows of the first table whose header row contains ``header``."""
    for table in re.findall(r"<table.*?</table>", html, flags=re.S):
        if header in table:
            body = table.split("<tbody>")[1]
            return [
                [
                    re.sub(r"\s+", " ", c).strip()
                    for c in re.findall(r"<t[dh]>(.*?)</t[dh]>", r, re.S)
                ]
                for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S)
            ]
    raise AssertionError(f"no table with {header!r}")


def test_crosscheck_table_rows(nasty_html):
    html, _ = nasty_html
    rows = _table_rows(html, "<th>interval</th>")
    got = {(r[0], r[1], r[2]): r for r in rows}
    for judge in ("&lt;b&gt;bold&lt;/b&gt;", "j &amp; 2"):
        for quantity, method in [
            ("eps", "S_com closed form"),
            ("eps_plus", "moments (S_com, r₁)"),
            ("eps_minus", "moments (S_com, r₁)"),
            ("eps", "Δ_S grid (1-D)"),
            ("eps_sum", "moments (S_com, r₁)"),
            ("eps_sum", "Δ_S grid (2-D), sum"),
            ("eps_plus", "Δ_S grid (2-D) sum split by r₁"),
            ("eps_plus", "FakePositional (posterior)"),
            ("eps_minus", "FakePositional (posterior)"),
        ]:
            assert (quantity, judge, method) in got
    # each judge gets its own posterior (the fake's eps_plus means differ: ~0.14 and ~0.25)
    bold = float(got[("eps_plus", "&lt;b&gt;bold&lt;/b&gt;", "FakePositional (posterior)")][3])
    j2 = float(got[("eps_plus", "j &amp; 2", "FakePositional (posterior)")][3])
    assert bold == pytest.approx(10 / 70, abs=0.02) and j2 == pytest.approx(20 / 80, abs=0.02)
    # the cross-check's agreement rows: two ε₊ + ε₋ rows per judge (the moments' sum and the
    # 2-D grid's), coloured by overlap
    pos = _table_rows(html, "<th>overlap</th>")
    assert sum(r[1] == "eps_sum" for r in pos) == 4
    assert {r[2] for r in pos if r[1] == "eps_sum"} == {
        "moments (S_com, r₁)",
        "Δ_S grid (2-D), sum",
    }
    assert re.search(r'<tr class="(pass|fail)">\s*<td>&lt;b&gt;bold&lt;/b&gt;</td>', html)


def test_summary_flags_colour_rows(nasty_html):
    html, _ = nasty_html
    cells = _table_rows(html, "<th>rhat_ok</th>")
    labels = [r[0] for r in cells]
    assert "eps_plus[&lt;b&gt;bold&lt;/b&gt;]" in labels and "eps_minus[j &amp; 2]" in labels
    assert "strength (worst of 6 items)" in labels
    assert not [lab for lab in labels if lab.startswith("strength[")]
    for r in cells:  # label, mean, sd, hdi, hdi, r_hat, ess_bulk, ess_tail, rhat_ok, ess_ok, ok
        ok = float(r[5]) <= 1.01 and min(int(r[6]), int(r[7])) >= 400
        assert r[-1] == ("yes" if ok else "NO")
    classes = re.findall(
        r'<tr class="(pass|fail)">\s*<th>(eps_plus|eps_minus|strength)[^<]*</th>', html
    )
    assert len(classes) == 5  # 2 judges × 2 rates + strengths
    assert {c for c, _ in classes} <= {"pass", "fail"}


def test_design_warnings_are_shown(fake_models):
    frame, _ = _nasty_data(n_contexts=3)
    # remove one verdict: that context is no longer a complete round-robin
    data = load_comparisons(
        frame.drop(index=[0]), judge="judge", repeat="repeat", context="context"
    )
    html = build_report(
        data, method="map", progress=False, grid_kwargs={"n_subsets": 20}, ppc_draws=20
    ).render()
    section = re.split(r"<h3[^>]*>Design warnings</h3>", html)[1].split("<h2")[0]
    assert "contexts skipped" in section
    # the report's own coverage check: 44 of the 45 pairs of this judge in both orders
    assert "only 97.8% of the compared pairs were seen in both orders" in section
    assert "MAP point estimate" in html
    assert all(s == {} for _, s in fake_models.calls)  # MAP: no sampler settings passed


@pytest.mark.slow
def test_ties_counted_half_reach_the_model_unchanged(fake_models):
    """The model's own ``ties`` setting decides (the tie model under "auto"): nothing dropped."""
    frame, _ = _nasty_data()
    frame.loc[[0, 5], "outcome"] = "tie"
    for policy in ("half", "model"):
        data = load_comparisons(frame, judge="judge", repeat="repeat", ties=policy)
        html = build_report(
            data, method="map", progress=False, grid_kwargs={"n_subsets": 20}, ppc_draws=20
        ).render()
        said = {
            "half": "2 counted as half a win",
            "model": "2 kept: the models fit them as an outcome, the classical win counts count "
            "each as half a win",
        }[policy]
        assert f"policy &#x27;{policy}&#x27;, {said}" in html
        assert "were dropped for this fit" not in html
        fitted = fake_models.last_data
        assert fitted is data and int(np.sum(fitted.outcome == 0.5)) == 2


def test_write_report_and_settings(fake_models, tmp_path):
    sim = simulate_round_robin(7, eps=0.15, random_seed=1)
    out = write_report(
        sim,
        out=tmp_path / "sub" / "r.html",
        model="positional",
        draws=120,
        tune=80,
        chains=3,
        progress=False,
        dataset_name="tiny <synthetic>",
        grid_kwargs={"n_subsets": 20},
        ppc_draws=20,
    )
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "tiny &lt;synthetic&gt;" in text and "tiny <synthetic>" not in text
    assert "120 / 80 / 3" in text
    assert fake_models.calls[0][1] == {"draws": 120, "tune": 80, "chains": 3}
    assert "realised (synthetic truth)" in text  # truth passed to the cross-check
    assert "SYNTHETIC data" in text


def test_missing_models_are_reported(monkeypatch):
    monkeypatch.delattr(pymc_models, "get_model", raising=False)
    sim = simulate_round_robin(6, eps=0.15, random_seed=2)
    html = build_report(sim, method="map", progress=False, grid_kwargs={"n_subsets": 20}).render()
    assert "No Bayesian fit is available" in html
    assert "Cross-check: every estimate side by side" in html  # classical rows still shown


@pytest.mark.skipif(
    not hasattr(pymc_models, "get_model"), reason="the PyMC model classes have not landed"
)
@pytest.mark.slow  # 10 s warm: real MAP fits of every model
def test_report_with_real_models_map():
    sim = simulate_round_robin(8, eps=0.15, random_seed=0)
    html = build_report(
        sim,
        model="uniform",
        method="map",
        progress=False,
        grid_kwargs={"n_subsets": 20},
        ppc_draws=30,
    ).render()
    assert "No Bayesian fit is available" not in html
    assert "Point estimate (MAP)" in html
    assert "model posterior_predictive, plug-in at the MAP estimate" in html
    rows = _table_rows(html, "<th>interval</th>")
    methods = {r[2] for r in rows if r[0] == "eps"}
    assert "S_com closed form" in methods and "Δ_S grid (1-D)" in methods
    assert any("MAP" in m for m in methods)


def test_report_of_an_order_model_checks_its_replicates_and_names_its_truth():
    """The hard-truth model draws replicated logs (orders from their posterior), so the report
    runs its predictive checks; the fit's description names the truth it sums out (an order
    per context) instead of strengths and σ_s, which it does not have."""
    sim = simulate_round_robin(5, eps_plus=0.1, eps_minus=0.25, n_contexts=25, random_seed=2)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        html = build_report(
            sim,
            model="positional_order",
            method="map",
            progress=False,
            grid_kwargs={"n_subsets": 20},
            ppc_draws=40,
        ).render()
    assert "No Bayesian fit is available" not in html
    assert "no replicates from" not in html and "not drawn" not in html
    assert "replicated data sets (model posterior_predictive, plug-in at the MAP estimate)" in html
    assert "the truth is one total order of each context" in html
    assert "strengths are per (context, text)" not in html
    assert "σ_s is not identified" not in html


def _prior_as_posterior(model, *, draws, tune, chains, random_seed, **_):
    """Replaces ``sample_nuts``: prior draws of the real model shaped like a NUTS trace."""
    import pymc as pm
    from pymc.backends.arviz import find_constants, find_observations

    names = [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]
    with model:
        prior = pm.sample_prior_predictive(
            draws=chains * draws, var_names=names, random_seed=random_seed
        ).prior
    post = {n: prior[n].values.reshape(chains, draws, *prior[n].shape[2:]) for n in names}
    coords = {k: list(v) for k, v in model.coords.items() if v is not None}
    dims = {k: list(v) for k, v in model.named_vars_to_dims.items()}
    return az.from_dict(
        posterior=post,
        sample_stats={"diverging": np.zeros((chains, draws), dtype=bool)},
        observed_data={k: np.asarray(v) for k, v in find_observations(model).items()},
        constant_data={k: np.asarray(v) for k, v in find_constants(model).items()},
        coords=coords,
        dims=dims,
    )


@pytest.mark.skipif(
    not hasattr(pymc_models, "get_model"), reason="the PyMC model classes have not landed"
)
@pytest.mark.slow  # 11 s warm
def test_report_nuts_path_with_mocked_sampler(monkeypatch):
    from bayes_pairwise.pymc_models import base

    monkeypatch.setattr(base, "sample_nuts", _prior_as_posterior)
    _, data = _nasty_data()
    html = build_report(
        data,
        draws=60,
        tune=10,
        chains=2,
        progress=False,
        grid_kwargs={"n_subsets": 20},
        ppc_draws=30,
    ).render()
    assert "No Bayesian fit is available" not in html
    labels = [r[0] for r in _table_rows(html, "<th>rhat_ok</th>")]
    assert "eps_plus[&lt;b&gt;bold&lt;/b&gt;]" in labels and "sigma_s" in labels
    assert not [lab for lab in labels if lab.startswith(("strength[", "z[", "eps_simplex"))]
    assert "model posterior_predictive" in html  # PPC from the model's own replicates
    rows = _table_rows(html, "<th>interval</th>")
    assert ("eps_minus", "j &amp; 2", "positional (posterior)") in {tuple(r[:3]) for r in rows}
    assert "<script" not in html.lower()


class _OneChainModel(FakeModel):
    """A one-chain, 300-draw posterior: what the Laplace fast path hands the report."""

    def fit(self, data, method="nuts", random_seed=None, **kwargs):
        super().fit(data, method="nuts", random_seed=random_seed)
        post = self.idata_.posterior.isel(chain=[0])
        self.idata_ = az.InferenceData(posterior=post)
        self.method_ = method
        return self


def test_one_chain_report_is_quiet_and_says_rhat_is_missing(monkeypatch):
    """The Laplace report (one chain): no ArviZ shape warning on the user's terminal (ArviZ logs
    it on its own logger, out of reach of ``logging.getLogger``), tidy labels, R-hat absent."""
    monkeypatch.setattr(
        pymc_models, "get_model", lambda name, **kw: _OneChainModel(name, **kw), raising=False
    )
    import logging

    _, data = _nasty_data()
    seen: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    # ArviZ's logger is built as arviz.Logger("arviz"), outside logging's registry
    arviz_logger = az._log
    handler = Catch()
    arviz_logger.addHandler(handler)
    try:
        html = build_report(
            data,
            method="laplace",
            draws=300,
            random_seed=0,
            grid_kwargs={"n_subsets": 20},
            ppc_draws=20,
            progress=False,
        ).render()
    finally:
        arviz_logger.removeHandler(handler)
    assert not [m for m in seen if "Shape validation" in m]
    rows = _table_rows(html, "<th>rhat_ok</th>")
    by_label = {r[0]: r for r in rows}
    assert "eps_plus[&lt;b&gt;bold&lt;/b&gt;]" in by_label
    assert all(r[5] in ("nan", "–", "") for r in rows)  # the r_hat column
    assert all(int(float(r[6])) > 50 for r in rows)  # ESS computed from the one chain
