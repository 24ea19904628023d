"""A self-contained HTML diagnostics report: data, classical estimates, Bayesian fits, cross-check.

:func:`build_report` runs every estimator that applies to a comparison log and lays the results
out as one HTML page (:class:`~bayes_pairwise._html.HtmlPage`: every user-supplied string is
escaped, figures are embedded as ``data:image/png;base64`` URIs, no external CSS / JS / images,
so the file opens offline). :func:`write_report` writes it to disk.

Sections
--------
0. **Answer** (first): the per-judge headline table and verdicts, then the **leaderboard**: the
   classical Bradley–Terry ranking of all judges' verdicts pooled (top
   :data:`LEADERBOARD_ROWS` rows) with its rank-probability map, and the Kendall τ of each
   judge's leaderboard against the human judge's (or, without one, the pooled leaderboard's).
   Both are computed by :func:`~bayes_pairwise.crosscheck.crosscheck`; the report renders them.
   Then two collapsible sections: the **LOO model comparison** of the fitted models (when more
   than one is fitted; with MAP fits, the reason there is none) with its verdict sentence, and
   the **verdicts most likely wrong** per judge (``CrossCheck.likely_errors``) with their items.
1. **Data**: items, contexts, judges, verdicts, both-order and repeat coverage, ties, and the
   design warnings raised while loading and fitting (:class:`~bayes_pairwise.errors.DesignWarning`)
   plus the report's own coverage checks.
2. **Classical estimates**: S_com, ε from S_com, the (ε₊, ε₋) moment estimator, the Copeland
   ranking, and — where complete round-robins exist (per context, pooled) — the Δ_S–n curve with
   the fitted synthetic curve, the misfit curve, the 2-D misfit heatmap with its identifiability
   caveat, and P(R_m, TO) vs N at each judge's estimated ε.
3. **Bayesian fits** (one joint fit of all judges: shared strengths, per-judge error
   parameters): the convergence table of :func:`~bayes_pairwise.pymc_models.diagnostics.diagnose`
   with pass/fail flags, a forest plot comparing the judges' error rates, a strengths forest plot
   with the MM estimate, MM vs posterior strengths, and per judge trace / rank plots, posterior
   densities with the classical estimates drawn on them and posterior predictive checks of
   S_com, the first-position rate and the Δ_S curve.
4. **Cross-check**: the table of :func:`bayes_pairwise.comparison.compare` and its
   plain-language verdict on whether the Bayesian and grid estimates agree.
5. **Settings and run time**.

Long steps print progress lines on stderr (``progress=True``).
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise._html import HtmlPage
from bayes_pairwise.conventions import (
    ESS_MIN,
    RHAT_MAX,
    interval_label,
    replicate_p_text,
)
from bayes_pairwise.errors import WarningSink, quiet_third_party
from bayes_pairwise.progress import Steps

if TYPE_CHECKING:  # pragma: no cover
    from bayes_pairwise.crosscheck import CrossCheck, FitFigures

__all__ = ["REPORT_DEFAULTS", "build_report", "report_sampler", "write_report"]

#: Sampler settings used by the report unless given: about two minutes for the bundled PRD data
#: set (5 judges, 400 items, one joint fit) on two CPU cores, and long enough for bulk and tail
#: ESS ≥ 400 on the error rates and nearly all strengths (500 draws left about a tenth of the
#: strengths below 400).
REPORT_DEFAULTS: dict[str, int] = {"draws": 1000, "tune": 500, "chains": 2}

#: Rows of the leaderboard table and of its rank-probability map (the rest are counted).
LEADERBOARD_ROWS = 20

_MODEL_VARS = {
    "uniform": ("eps",),
    "positional": ("eps_plus", "eps_minus"),
    "biased_bt": ("gamma",),
}


# ============================================================================ small helpers
def _fmt(v: Any, nd: int = 3) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "–" if not math.isfinite(f) else f"{f:.{nd}f}"


def _interval_text(est: Any, lo: Any = math.nan, hi: Any = math.nan) -> str:
    """``"0.123 [0.100, 0.150]"`` (or the point alone): the cross-check's headline format, so an
    estimate reads the same wherever the report shows it."""
    est, lo, hi = (float(v) for v in (est, lo, hi))
    if not math.isfinite(est):
        return "–"
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"
    return f"{est:.3f}"


def _rows(cc: Any, *, role: str, quantity: str | None = None, method: str | None = None) -> Any:
    """The cross-check table's rows of one role (and quantity / method): the one source of every
    estimate the report prints."""
    t = cc.table
    keep = t.role == role
    if quantity is not None:
        keep &= t.quantity == quantity
    if method is not None:
        keep &= t.method == method
    return t[keep]


def _resolve_data(data: Any, sink: WarningSink) -> tuple[Any, Any, str | None]:
    """(Comparisons, synthetic truth or None, dataset name) from what the user passed: the
    command line's reading (:func:`bayes_pairwise.datasets.resolve_data`, the default tie
    policy)."""
    from bayes_pairwise.data import Comparisons
    from bayes_pairwise.datasets import resolve_data

    if hasattr(data, "data") and hasattr(data, "realised_eps"):  # SyntheticComparisons
        return data.data, data, None
    if not isinstance(data, Comparisons | str | os.PathLike | pd.DataFrame):
        raise TypeError(
            "build_report needs a Comparisons, a SyntheticComparisons, a DataFrame, a file path "
            f"or a bundled dataset name; got {type(data).__name__}"
        )
    with sink.capture("loading: "):
        comp, name = resolve_data(data)
    return comp, None, name if isinstance(data, str | os.PathLike) else None


class _Flag(str):
    """A table cell that prints as text but is truthy only when the row passes.

    ``HtmlPage.table`` colours rows by ``bool(flag)`` and hands every non-float cell to pandas'
    HTML writer unformatted, which needs strings; this keeps both working.
    """

    ok: bool

    def __new__(cls, ok: bool) -> _Flag:
        obj = super().__new__(cls, "yes" if ok else "NO")
        obj.ok = bool(ok)
        return obj

    def __bool__(self) -> bool:
        return self.ok


def _table(
    page: HtmlPage,
    df: pd.DataFrame,
    *,
    caption: str | None = None,
    float_format: str = "{:.3f}",
    index: bool = True,
    flag_column: str | None = None,
) -> None:
    """``page.table`` with every cell pre-rendered as text (floats by ``float_format``)."""

    def cell(v: Any) -> Any:
        if isinstance(v, float | np.floating):
            return "–" if not math.isfinite(float(v)) else float_format.format(float(v))
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "–"
        return str(v)

    out = df.copy()
    out.columns = [str(c) for c in out.columns]
    for c in out.columns:
        if c == flag_column:  # object dtype keeps the _Flag cells (a string dtype would not)
            out[c] = pd.Series([_Flag(bool(v)) for v in df[c]], index=out.index, dtype=object)
        else:
            out[c] = pd.Series([cell(v) for v in out[c]], index=out.index, dtype=object)
    out.index = pd.Index([str(i) for i in out.index], name=df.index.name)
    page.table(out, caption=caption, index=index, flag_column=flag_column)


# ============================================================================ the report
def _judges(cc: CrossCheck) -> tuple[str, ...]:
    return tuple(cc.data.judges)


def _primary_name(cc: CrossCheck) -> str | None:
    return next(iter(cc.fits), None)


def _fit_error(cc: CrossCheck) -> str | None:
    return "; ".join(cc.fit_errors.values()) or None


def _ties(cc: CrossCheck) -> Mapping[str, Any]:
    name = _primary_name(cc)
    return cc.tie_handling.get(name, {}) if name else {}


def _diagnostics(cc: CrossCheck) -> Any:
    name = _primary_name(cc)
    return cc.diagnostics.get(name) if name else None


def _ppc(cc: CrossCheck) -> Mapping[str, pd.DataFrame]:
    name = _primary_name(cc)
    return cc.ppc.get(name, {}) if name else {}


def _figures(cc: CrossCheck) -> FitFigures:
    """The primary fit's figure numbers (empty when the cross-check has none)."""
    from bayes_pairwise.crosscheck import FitFigures

    name = _primary_name(cc)
    return cc.figures.get(name) or FitFigures() if name else FitFigures()


def _delta_errors(cc: CrossCheck) -> dict[str, str]:
    """Per judge, why the Δ_S fits were skipped."""
    return {
        j: "; ".join(f"{k}: {v}" for k, v in why.items() if k.startswith("Δ_S"))
        for j, why in cc.classical.skipped.items()
        if any(k.startswith("Δ_S") for k in why)
    }


#: How each fitting method is named on the page.
_HOW = {"nuts": "NUTS", "map": "MAP", "laplace": "Laplace approx."}


def report_sampler(
    model: str, *, draws: int | None = None, tune: int | None = None, chains: int | None = None
) -> dict[str, int]:
    """The report's NUTS settings for ``model``: the user's, else the model spec's own (its
    file's ``[sampler]``, not the base file's), else :data:`REPORT_DEFAULTS`
    (:func:`~bayes_pairwise.crosscheck.sampler_settings`).

    Examples
    --------
    >>> report_sampler("positional")
    {'draws': 1000, 'tune': 500, 'chains': 2}
    >>> report_sampler("positional_difficulty")
    {'draws': 4000, 'tune': 2000, 'chains': 2}
    >>> report_sampler("positional_difficulty", draws=300)["draws"]
    300
    """
    from bayes_pairwise.crosscheck import sampler_settings

    return sampler_settings(
        model, REPORT_DEFAULTS, {"draws": draws, "tune": tune, "chains": chains}
    )


@quiet_third_party()  # dependencies' notices the reader cannot act on (not at import)
def build_report(
    data: Any,
    *,
    judge: str | int | None = None,
    model: str = "positional",
    method: str = "nuts",
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    nuts_sampler: str | None = None,
    random_seed: int | None = 0,
    progress: bool = True,
    dataset_name: str | None = None,
    max_forest_items: int = 40,
    ppc_draws: int = 1000,
    grid_kwargs: Mapping[str, Any] | None = None,
    load_warnings: Sequence[warnings.WarningMessage] = (),
    tie_positional: bool = False,
    tie_dispersion: bool | str = False,
) -> HtmlPage:
    """Run the classical estimators and a Bayesian model and lay everything out as HTML.

    Parameters
    ----------
    data : Comparisons, SyntheticComparisons, DataFrame, path or str
        The comparison log; a bundled data set name (:func:`bayes_pairwise.datasets.load`)
        or a file readable by :func:`~bayes_pairwise.data.load_comparisons` with its default
        column names, read as the command line reads them
        (:func:`~bayes_pairwise.datasets.resolve_data`: ties kept as data by default,
        :data:`bayes_pairwise.conventions.TIES`). A
        :class:`~bayes_pairwise.simulate.SyntheticComparisons` adds the realised error rates to
        every comparison.
    judge : str or int, optional
        Report on this judge only. Default: every judge, in one joint Bayesian fit (the model
        classes estimate error parameters per judge with shared item strengths), and a forest
        plot comparing their error rates.
    model : {"positional", "uniform", "biased_bt"}
        Bayesian model (a spec name understood by
        :func:`bayes_pairwise.pymc_models.get_model`).
    method : {"nuts", "map", "laplace"}
        NUTS sampling (with the settings below), a MAP point estimate (fast; no convergence
        diagnostics), or the Laplace approximation (fast, with ``draws`` draws; labelled as an
        approximation in the headline, the caveats and the settings).
    draws, tune, chains : int, optional
        NUTS settings. Unset, the model spec's own where its file sets them (the pair-difficulty
        models: longer runs at a higher target acceptance, which their two-state posterior
        needs to converge), else :data:`REPORT_DEFAULTS` (1000 draws after 500 tuning steps, 2
        chains: about two minutes for the bundled PRD data set on two cores). Shown in the
        report.
    nuts_sampler : str, optional
        NUTS implementation (default: the model spec's, ``"auto"``: nutpie when installed).
    random_seed : int, optional
        Seeds the grid fits, the samplers and the posterior predictive replicates.
    progress : bool
        Print progress lines on stderr.
    dataset_name : str, optional
        Name shown in the title (default: the data's ``source``).
    max_forest_items : int
        Rows of the strengths forest plot (whole contexts are kept together).
    ppc_draws : int
        Replicated data sets for the scalar posterior predictive checks (at most the model's
        replicates: chains × draws, or 500 for MAP; all of them by default, so the p-values equal
        those of :func:`~bayes_pairwise.pymc_models.diagnostics.diagnose`). The Δ_S curve uses
        60 of them.
    load_warnings : sequence of warnings.WarningMessage
        Warnings recorded while the caller loaded ``data`` (e.g. by the CLI), shown with the
        report's own.
    grid_kwargs : mapping, optional
        Settings for the Δ_S fits (default ``skip_incomplete=True``: contexts without a
        complete round-robin are skipped, with a design warning).
    tie_positional : bool
        Fit the model with one tie rate per position of the better text
        (:func:`~bayes_pairwise.crosscheck.crosscheck`'s setting; ``report --tie-positional``).
    tie_dispersion : bool or {"context", "pair"}
        Fit an order model with a tie rate that varies by context (``True``; ``report
        --tie-dispersion``) or by pair (``"pair"``; ``report --tie-dispersion pair``).

    Returns
    -------
    HtmlPage
        Call ``.render()`` for the HTML text, or use :func:`write_report`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(6, eps=0.15, random_seed=0)
    >>> page = build_report(sim, model="uniform", method="map", progress=False,
    ...                     grid_kwargs={"n_subsets": 20}, ppc_draws=50)
    >>> html = page.render()
    >>> "<h2" in html.split("<figure")[0] and "<table" in html.split("<figure")[0]
    True
    >>> "<script" in html
    False

    The default (NUTS, 2 chains × 1000 draws) takes about two minutes for the bundled PRD data
    set on two CPU cores:

    >>> from bayes_pairwise import datasets
    >>> page = build_report(datasets.load("prd_vicuna80"))  # doctest: +SKIP
    """
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        matplotlib.use("Agg")
    from bayes_pairwise._version import __version__

    if method not in _HOW:
        raise ValueError(f"method must be 'nuts', 'map' or 'laplace', got {method!r}")
    from bayes_pairwise.crosscheck import CrossCheck, crosscheck

    prog = Steps(progress, prefix="report")
    sink = WarningSink()
    sink.add(list(load_warnings), "loading: ")
    gkw = dict(grid_kwargs or {})
    sampler = report_sampler(model, draws=draws, tune=tune, chains=chains)
    if isinstance(data, CrossCheck):
        cc, loaded_name = data, None
        model = next(iter(cc.fits), model)
        method = str(cc.settings.get("method", method))
    else:
        prog("loading data")
        comp, truth, loaded_name = _resolve_data(data, sink)
        if judge is not None:
            comp = comp.for_judge(judge)
        prog(f"cross-check: classical estimates and {model} ({method.upper()})")
        cc = crosscheck(
            comp,
            models=(model,),
            method=method,
            truth=truth,
            random_seed=random_seed,
            ppc=True,
            ppc_draws=ppc_draws,
            progress=prog.on,
            grid_kwargs=gkw,
            tie_positional=tie_positional,
            tie_dispersion=tie_dispersion,
            **(
                {**sampler, **({"nuts_sampler": nuts_sampler} if nuts_sampler else {})}
                if method == "nuts"
                else {"draws": sampler["draws"]}
                if method == "laplace"
                else {}
            ),
        )
    for kind in ("design", "convergence", "other"):
        seen = getattr(sink, kind)
        seen.extend(m for m in cc.warnings.get(kind, ()) if m not in seen)
    comp = cc.data
    judges = _judges(cc)

    name = dataset_name or loaded_name or comp.source
    page = HtmlPage(
        f"Judge error report: {name}",
        subtitle=(
            f"bayes_pairwise {__version__} · {comp.n_comparisons} verdicts · "
            f"{len(judges)} judge{'s' if len(judges) != 1 else ''} · model {model} "
            f"({_HOW.get(method, method)})"
        ),
    )
    page.source = cc  # the CLI prints the same headline on stdout
    prog("rendering: headline")
    _section_headline(page, cc, model)
    prog("rendering: leaderboard")
    _section_leaderboard(page, cc)
    prog("rendering: model comparison and likely errors")
    _section_model_comparison(page, cc)
    _section_likely_errors(page, cc)
    page.open_details("Data and design warnings")
    prog("rendering: data")
    _section_data(page, cc, sink)
    page.close_details()
    page.open_details("Classical estimates")
    prog("rendering: classical estimates")
    _section_classical(page, cc)
    page.close_details()
    page.open_details("Bayesian fit: diagnostics, strengths, predictive checks")
    prog("rendering: Bayesian fits")
    _section_bayesian(
        page, cc, sink, model, method, sampler, random_seed, max_forest_items, prog, ppc_draws
    )
    page.close_details()
    page.open_details("Cross-check: every estimate side by side")
    prog("rendering: cross-check")
    _section_crosscheck(page, cc)
    page.close_details()
    total = prog.finish()
    page.open_details("Settings and run time")
    _section_settings(page, cc, prog, total, model, method, sampler, random_seed, gkw, name)
    page.close_details()
    return page


def write_report(data: Any, *, out: str | os.PathLike[str] = "report.html", **kwargs: Any) -> Path:
    """Build the report (:func:`build_report`, same keyword arguments) and write it as UTF-8.

    Parameters
    ----------
    data
        As :func:`build_report`.
    out : path
        Output HTML file (parent folders are created). It is written atomically
        (:func:`bayes_pairwise.output.write_text`): an interrupted write leaves the previous file.
    **kwargs
        Passed to :func:`build_report`.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> from bayes_pairwise import datasets
    >>> write_report(datasets.load("prd_vicuna80"), out="report.html")  # doctest: +SKIP
    PosixPath('report.html')
    """
    from bayes_pairwise.output import check_writable, write_text

    path = Path(out)
    with contextlib.suppress(OSError):  # check_writable says what is wrong
        path.parent.mkdir(parents=True, exist_ok=True)
    check_writable(path, what="report")  # before the (long) build
    page = build_report(data, **kwargs)
    write_text(path, page.render())
    return path


def _idata(cc: CrossCheck) -> Any:
    return cc.inference_data()


# ============================================================================ sections
def _replicates_drawn(cc: CrossCheck) -> str:
    """The replicated data sets the predictive checks drew (the captions' count), and the
    number the cross-check asked for where fewer were there to draw (500 for a MAP fit, chains
    × draws)."""
    drawn = sorted({int(df["draw"].nunique()) for df in _ppc(cc).values() if df is not None})
    if not drawn:
        return "none drawn"
    asked = int(cc.settings.get("ppc_draws", drawn[-1]))
    said = str(drawn[0]) if len(drawn) == 1 else f"{drawn[0]} to {drawn[-1]}"
    return said if drawn == [asked] else f"{said} (of {asked} asked for: what the fit holds)"


def _section_data(page: HtmlPage, cc: CrossCheck, sink: WarningSink) -> None:
    d = cc.data
    s = d.summary()
    page.paragraph(f"Source: {d.source}")
    facts = [
        f"{d.n_comparisons} verdicts on {d.n_items} items"
        + (
            f" in {d.n_contexts} contexts (each item is a context::name pair)"
            if d.has_contexts
            else ""
        ),
        f"{d.n_judges} judge{'s' if d.n_judges != 1 else ''}: {', '.join(d.judges)}",
        f"ties: {d.n_ties} found, policy '{d.tie_policy}'"
        + (f", {d.n_ties_dropped} dropped" if d.n_ties_dropped else "")
        + (
            f", {int(np.sum(d.outcome == 0.5))} counted as half a win"
            if d.tie_policy == "half"
            else f", {int(np.sum(d.outcome == 0.5))} kept: the models fit them as an outcome, "
            "the classical win counts count each as half a win"
            if d.tie_policy == "model"
            else ""
        ),
        f"repeats: up to {int(s.table['max_repeats_per_order'].max())} verdict(s) per ordered pair",
    ]
    if d.covariate_names:
        facts.append(f"covariates: {', '.join(d.covariate_names)}")
    if cc.truth is not None:
        facts.append("SYNTHETIC data: " + cc.truth.describe())
    page.bullets(facts)
    tbl = s.table.rename(
        columns={
            "share_pairs_both_orders": "pairs in both orders",
            "max_repeats_per_order": "max repeats / order",
            "first_position_win_rate_excl_ties": "first-position win rate (ties excluded)",
            "unordered_pairs": "unordered pairs",
            "items_seen": "items seen",
            "ties_kept": "ties kept",
        }
    )
    _table(page, tbl, caption="Coverage per judge")

    page.heading("Design warnings", level=3)
    checks = []
    for j, row in s.table.iterrows():
        both = float(row["share_pairs_both_orders"])
        if both < 1.0:
            checks.append(
                f"{j}: only {100 * both:.1f}% of the compared pairs were seen in both orders; "
                "S_com, the moments and Δ_S use only those pairs (and Δ_S only complete "
                "round-robins)."
            )
    if d.n_ties_dropped:
        checks.append(
            f"{d.n_ties_dropped} tie verdicts were dropped (policy 'drop'): a judge that answers "
            "'tie' when unsure looks more consistent than it is."
        )
    if not d.order_recorded:
        checks.append(
            "The presentation order was not recorded: every position parameter is "
            "meaningless for these data."
        )
    if sink.design or checks:
        if sink.design:
            page.paragraph("Raised while loading and fitting (DesignWarning):")
            page.bullets(sink.design)
        if checks:
            page.paragraph("The report's own coverage checks:")
            page.bullets(checks)
    else:
        page.box("No design warnings were raised.", kind="ok")


def _copeland_table(cc: CrossCheck) -> tuple[pd.DataFrame | None, str]:
    """The cross-check's Copeland summary as shown (at most 30 rows) and its caption."""
    df = cc.copeland
    if df is None:
        return None, "No Copeland ranking: see the warnings."
    if df.attrs.get("by") == "name":
        cap = (
            f"Copeland ranking within each of the {cc.data.n_contexts} contexts, summarised per "
            "item name: mean rank (1 = best) and the number of contexts where it ranked first."
        )
        if len(df) > 30:
            df = df.iloc[:30]
            cap += " First 30 names shown."
        return df, cap
    cap = "Copeland scores S_i = Σ_j w_ij per judge, sorted by their mean over judges."
    if len(df) > 30:
        df = pd.concat([df.iloc[:20], df.iloc[-10:]])
        cap += " Top 20 and bottom 10 items shown."
    return df, cap


def _ceiling_figure(page: HtmlPage, cc: CrossCheck) -> None:
    """S_com against the first-position rate for every judge, with the text-blind ceiling:
    the cross-check's ``ceiling`` table, drawn."""
    import matplotlib.pyplot as plt

    from bayes_pairwise import plots
    from bayes_pairwise.conventions import interval_label

    df = cc.ceiling
    page.heading("Judges against the text-blind ceiling", level=3)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), layout="constrained")
    plots.plot_ceiling(df, ax=ax)
    flagged = [str(j) for j in df.loc[df["text_blind"], "judge"]]
    apart = [str(j) for j in df.loc[df["on_ceiling"] & ~df["text_blind"], "judge"]]
    page.figure(
        fig,
        "S_com (the share of pairs whose two verdicts picked the same position) against the "
        "first-position rate r₁, one point per judge with the "
        f"{interval_label()} interval of its distance to the ceiling. Verdicts that ignore the "
        "texts sit on the solid curve r₁² + (1 − r₁)²; a judge below it by d has "
        "1 − ε₊ − ε₋ = √(2d) (dashed: 0.25, 0.5, 0.75), read without labels — an upper bound, "
        "since a pair that fools the judge in both orders looks judged right. "
        + (
            "Red: the log cannot tell "
            + ", ".join(flagged)
            + " from a judge that ignores the texts (the caveat 'verdicts the log cannot tell "
            "from text-blind ones'). "
            if flagged
            else "The log tells every judge shown from one that ignores the texts. "
        )
        + (
            "On the ceiling within chance, yet told apart across pairs, where the texts' wins "
            "differ beyond chance (the caveat's second test; so it goes where a pair's repeats "
            "answer different prompts and the truth varies between them): "
            + ", ".join(apart)
            + ". "
            if apart
            else ""
        )
        + "The points use the pairs decided in both orders where ties are kept as an outcome, "
        "else every pair shown in both orders with a tie counted half.",
    )


def _section_classical(page: HtmlPage, cc: CrossCheck) -> None:
    import matplotlib.pyplot as plt

    from bayes_pairwise import plots
    from bayes_pairwise.conventions import interval_label
    from bayes_pairwise.crosscheck import (
        METHOD_MOMENTS,
        METHOD_MOMENTS_DECIDED,
        METHOD_SCOM,
        METHOD_SCOM_DECIDED,
        METHOD_TIE_CORRELATION,
        METHOD_TIE_CORRELATION_PAIR,
        METHOD_TIES,
        SYMBOLS,
    )

    lab = interval_label()
    page.paragraph(
        "S_com is the share of pairs whose two verdicts (one per presentation order) pick the same "
        "position. Under a uniform error rate ε, E[S_com] = 2ε(1−ε), giving the closed form "
        "ε = (1 − √(1 − 2 S_com))/2; with the first-position win rate r₁ the moment estimator "
        "separates ε₊ (error when the better text is shown first) from ε₋ (shown second). "
        f"Intervals are {lab} normal (delta method, pairs as units). S_com and r₁ count a tie as "
        "half a win; the error rates are then put on the models' scale, the error rate among "
        "decided verdicts (rescaled with the judge's tie share): the same numbers as in the "
        "answer above and the cross-check below."
    )
    if cc.classical.desc is not None:
        cols = ["n_verdicts", "n_pairs_both_orders", "s_com", "s_com_se", "r1"]
        table = cc.classical.desc[[c for c in cols if c in cc.classical.desc.columns]].copy()
        for name, q, method in (
            ("tie rate", "tie_rate", METHOD_TIES),
            ("tie correlation ρ (moments, per context)", "tie_rho", METHOD_TIE_CORRELATION),
            ("tie correlation ρ (moments, per pair)", "tie_rho", METHOD_TIE_CORRELATION_PAIR),
            ("ε (S_com)", "eps", METHOD_SCOM),
            ("ε₊ (moments)", "eps_plus", METHOD_MOMENTS),
            ("ε₋ (moments)", "eps_minus", METHOD_MOMENTS),
            ("ε₊ + ε₋ (moments)", "eps_sum", METHOD_MOMENTS),
            ("ε₊ (moments, pairs decided in both orders)", "eps_plus", METHOD_MOMENTS_DECIDED),
            ("ε₋ (moments, pairs decided in both orders)", "eps_minus", METHOD_MOMENTS_DECIDED),
            (
                "ε₊ + ε₋ (moments, pairs decided in both orders)",
                "eps_sum",
                METHOD_MOMENTS_DECIDED,
            ),
            ("ε (S_com, pairs decided in both orders)", "eps", METHOD_SCOM_DECIDED),
        ):
            rows = _rows(cc, role="classical", quantity=q, method=method).set_index("judge")
            if len(rows):
                table[f"{name} [{lab}]"] = pd.Series(
                    [
                        _interval_text(*rows.loc[j, ["estimate", "lower", "upper"]])
                        if j in rows.index
                        else "–"
                        for j in table.index.astype(str)
                    ],
                    index=table.index,
                    dtype=object,
                )
        if "moments_at_boundary" in cc.classical.desc.columns:
            table["moments_at_boundary"] = cc.classical.desc["moments_at_boundary"]
        decided_edge = {
            j: c.at_boundary for j, c in cc.classical.tie_position.items() if c.rescaling_fails
        }
        if decided_edge:  # the decided rows' own edge (vicuna-13b: no real solution on both)
            table["moments_at_boundary (pairs decided in both orders)"] = pd.Series(
                [decided_edge.get(j, "–") for j in table.index.astype(str)],
                index=table.index,
                dtype=object,
            )
        _table(
            page,
            table,
            caption="Descriptive statistics (ties counted half) and the closed-form / moment "
            f"estimates per judge with their {lab} intervals, among decided verdicts (ε (S_com) "
            "is empty when S_com > 1/2: a position-biased judge)."
            + (
                " S_com and the moments on the pairs decided in both orders (no tie rescaling) "
                "appear for judges whose ties break the rescaling for the tie share, and are "
                "what their verdict rests on (and what `estimate` answers with): "
                + "; ".join(
                    f"{j}: {c.reason()}"
                    for j, c in cc.classical.tie_position.items()
                    if c.rescaling_fails
                )
                + "."
                if any(c.rescaling_fails for c in cc.classical.tie_position.values())
                else ""
            ),
        )
    if cc.ceiling is not None and len(cc.ceiling):
        _ceiling_figure(page, cc)
    df, cap = _copeland_table(cc)
    page.heading("Copeland ranking", level=3)
    if df is None:
        page.box(cap, kind="warn")
    else:
        _table(page, df, caption=cap, float_format="{:.2f}")

    page.heading("Δ_S grid fit (the paper's estimator)", level=3)
    page.paragraph(
        "Δ_S is the L1 distance of the sorted Copeland scores from the error-free sequence. The "
        "observed curve (mean Δ_S over random n-subsets) is compared with synthetic curves "
        "simulated on a grid of ε; the best-matching ε is the estimate. With many small "
        "round-robins (contexts) the curves are averaged over contexts."
    )
    for j in _judges(cc):
        if j in _delta_errors(cc) or j not in cc.classical.delta:
            page.box(
                f"{j}: no Δ_S fit — {_delta_errors(cc).get(j, 'no complete round-robin')}",
                kind="warn",
            )
            continue
        fit = cc.classical.delta[j]
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
        plots.plot_delta_s_curve(fit, ax=axes[0])
        marks = {}
        if j in cc.classical.scom and np.isfinite(cc.classical.scom[j].eps):
            marks["S_com closed form"] = cc.classical.scom[j].eps
        plots.plot_misfit_curve(fit, ax=axes[1], mark=marks)
        page.figure(
            fig,
            f"Judge {j}: Δ_S–n curve with the synthetic curve at ε̂ = {fit.eps_:.3f} "
            f"({fit.n_contexts_} complete round-robin(s) of up to {fit.n_} items), and the "
            "misfit over the grid.",
        )
    if cc.classical.delta2d:
        page.box(
            str(next(iter(cc.classical.delta2d.values())).caveat_),
            kind="warn",
            title="What the 2-D Δ_S fit can and cannot identify",
        )
    for j in _judges(cc):
        if j not in cc.classical.delta2d:
            continue
        f2 = cc.classical.delta2d[j]
        fig, ax = plt.subplots(figsize=(6.2, 5.0), layout="constrained")
        plots.plot_misfit_heatmap(f2, ax=ax)
        ep, em, split = plots.delta2d_split(f2)
        ep_sum = getattr(f2, "eps_sum_", f2.eps_plus_ + f2.eps_minus_)
        page.figure(
            fig,
            f"Judge {j}: 2-D Δ_S misfit over (ε₊, ε₋). The paper's estimate is "
            f"({f2.eps_plus_:.3f}, {f2.eps_minus_:.3f}); only a symmetric function of the pair "
            f"is identified (sum ε₊ + ε₋ ≈ {ep_sum:.3f})"
            + (f"; split by the first-position rate: ({ep:.3f}, {em:.3f})" if split else "")
            + " (see the caveat above).",
        )
    # P(R_m, TO) vs N at each judge's estimated error rates: the cross-check's own curves
    curves = dict(cc.correct_score)
    page.heading("Probability that a text gets its correct Copeland score", level=3)
    if not curves:
        page.paragraph("No error-rate estimate is available for P(R_m, TO).")
        return
    rates = {j: (dict(df.attrs["estimates"]), str(df.attrs["source"])) for j, df in curves.items()}
    shown = list(rates.items())[:6]
    nc = min(len(shown), 3)
    nr = math.ceil(len(shown) / 3)
    fig, axes = plt.subplots(
        nr, nc, figsize=(4.6 * nc, 3.6 * nr), squeeze=False, layout="constrained"
    )
    for a in axes.ravel()[len(shown) :]:
        a.set_visible(False)
    for a, (j, (_r, src)) in zip(axes.ravel(), shown, strict=False):
        df = curves[j]
        what = ", ".join(
            f"{SYMBOLS.get(k, k)} = {df.attrs[k]:.3f}"
            for k in ("eps", "eps_plus", "eps_minus")
            if df.attrs.get(k) is not None
        )
        plots.plot_correct_score(data=df, ax=a, title=f"{plots.short_label(j)}: {what} ({src})")
    page.figure(
        fig,
        "P(R_m, TO) against the number of texts N for true ranks m = 1..8, at each judge's "
        "estimated error rates (the moment estimates of ε₊ and ε₋ where available). Solid: exact "
        "(METHODS §4, docs/src/methods.md); dashed: the paper's printed reversal-only formula, "
        "which undercounts for m ≥ 2. The probability falls with N for every m: ranking many "
        "texts with a noisy judge does not scale. Rates used: "
        + "; ".join(
            f"{j}: "
            + ", ".join(f"{SYMBOLS.get(k, k)} {_interval_text(v)}" for k, v in r.items())
            + f" ({src})"
            for j, (r, src) in shown
        )
        + "."
        + (f" First {len(shown)} judges shown." if len(cc.data.judges) > len(shown) else ""),
    )


def _forest_items(cc: CrossCheck, strengths: pd.DataFrame, max_items: int) -> list[str] | None:
    """Items for the strengths forest: whole contexts up to ``max_items`` rows, or (no contexts)
    the strongest and weakest halves (by the cross-check's posterior means)."""
    labels = [str(x) for x in strengths.index]
    if len(labels) <= max_items:
        return None
    d = cc.data
    present = set(labels)
    if d.has_contexts:
        ctx = np.asarray(d.item_context)
        keep: list[str] = []
        for c in range(d.n_contexts):
            its = [d.items[i] for i in np.flatnonzero(ctx == c) if d.items[i] in present]
            if keep and len(keep) + len(its) > max_items:
                break
            keep.extend(its)
        return keep
    order = list(strengths["mean"].sort_values(ascending=False, kind="stable").index.astype(str))
    half = max(1, max_items // 2)
    return order[:half] + order[-(max_items - half) :]


def _section_bayesian(
    page: HtmlPage,
    cc: CrossCheck,
    sink: WarningSink,
    model: str,
    method: str,
    sampler: dict[str, int],
    seed: Any,
    max_items: int,
    prog: Steps,
    ppc_draws: int,
) -> None:
    import matplotlib.pyplot as plt

    from bayes_pairwise import plots

    if method == "nuts":
        how = (
            f"NUTS, {sampler['chains']} chains × {sampler['draws']} draws after "
            f"{sampler['tune']} tuning steps"
        )
    elif method == "laplace":
        how = (
            f"Laplace approximation (--fast): {sampler['draws']} independent draws from a "
            "Gaussian at the posterior mode, not NUTS; R-hat and the sampler's checks do not "
            "apply, the PSIS k-hat in the diagnostics says how close the Gaussian is"
        )
    else:
        how = "MAP point estimate (a one-draw posterior: no intervals, no convergence diagnostics)"
    n = len(_judges(cc))
    # the order models' truth is one order per context, summed out: no strengths, no σ_s
    hard = bool(getattr(cc.primary_fit, "hard_truth", False))
    shared = (
        "the order of each context (the latent truth) is"
        if hard
        else "the item strengths (the latent truth) are"
    )
    page.paragraph(
        f"Model '{model}': {how}; random_seed={seed}. "
        + (
            f"One joint fit of the {n} judges: {shared} shared, each judge has its own error "
            "parameters. "
            if n > 1
            else ""
        )
        + (
            "Error parameters are shared across contexts; the truth is one total order of each "
            "context's texts, every order equally likely a priori, summed out exactly (no "
            "strengths are estimated: the posterior ranks are). "
            if hard
            else "Error parameters are shared across contexts; strengths are per (context, text). "
        )
        + f"Flags: R-hat ≤ {RHAT_MAX}, bulk and tail ESS ≥ {ESS_MIN}, no divergences "
        "(METHODS §7.4, docs/src/methods.md)."
        + ("" if hard else " σ_s is not identified under a hard truth and is not a finding.")
    )
    if cc.primary_fit is None:
        page.box(f"No Bayesian fit is available: {_fit_error(cc)}", kind="bad")
        return
    page.paragraph(f"Fit time: {cc.fit_seconds:.1f} s.")
    if _ties(cc).get("handling") == "dropped" and cc.data.n_ties:
        page.box(
            f"This fit drops ties (ties='drop'): {_ties(cc).get('n_ties_dropped', 0)} tie(s) were "
            "left out of its likelihood; its error rates are rates among decided verdicts, the "
            "scale of the classical estimates.",
            kind="note",
        )
    elif _ties(cc).get("handling") == "model":
        page.box(
            f"Ties are an outcome of this model: {_ties(cc)['n_ties_modelled']} tie(s) modelled, "
            "nothing dropped; the fitted tie rate (tie_rate) is reported with the error rates. "
            f"The classical estimates read the same verdicts: {cc.settings.get('tie_rule', '')}.",
            kind="note",
        )
    if sink.convergence:
        page.box("; ".join(sink.convergence), kind="bad", title="Convergence warnings")
    idata = _idata(cc)
    post = idata.posterior
    n_samples = post.sizes.get("chain", 1) * post.sizes.get("draw", 1)
    judges_in_fit = (
        [str(v) for v in post.coords["judge"].values]
        if "judge" in post.coords
        else list(_judges(cc))
    )

    # ---------------------------------------------------------------- convergence
    page.heading("Convergence diagnostics", level=3)
    diag = _diagnostics(cc)
    if diag is not None and isinstance(getattr(diag, "table", None), pd.DataFrame):
        ok = getattr(diag, "ok", None)
        laplace = cc.settings.get("method") == "laplace"
        if ok is None:
            page.box(
                "Laplace approximation: a Gaussian at the mode, sampled directly, so the "
                "sampler's convergence diagnostics (R-hat, ESS, divergences) do not apply."
                if laplace
                else "Point estimate (MAP): convergence diagnostics do not apply.",
                kind="note",
            )
        else:
            page.box(
                "All checks pass: R-hat, ESS and no divergent transitions."
                if ok
                else "Some checks FAIL: sample longer (draws / tune / chains) before trusting the "
                "intervals.",
                kind="ok" if ok else "bad",
            )
        msgs = [str(m) for m in getattr(diag, "messages", []) if "point estimate" not in str(m)]
        if msgs:
            page.bullets(msgs)
        if ok is not None:
            ebfmi = np.asarray(getattr(diag, "ebfmi", []), dtype=float)
            page.paragraph(
                f"Sampler: {diag.divergences} divergent transition(s), {diag.tree_depth_hits} "
                "tree-depth hit(s), E-BFMI per chain "
                + (", ".join(_fmt(v, 2) for v in ebfmi) if ebfmi.size else "–")
                + "."
            )
        table = _figures(cc).parameters
        table = table.copy() if table is not None else pd.DataFrame()
        for c in ("ess_bulk", "ess_tail"):  # whole numbers
            if c in table:
                table[c] = pd.Series(
                    [str(round(float(v))) if pd.notna(v) else "–" for v in table[c]],
                    index=table.index,
                    dtype=object,
                )
        flag = "ok" if ok is not None and "ok" in table.columns else None
        if flag is None:
            table = table[[c for c in table.columns if table[c].notna().any()]]
        _table(
            page,
            table,
            caption=(
                "ArviZ summary of every sampled parameter (per-item strength and z rows collapsed "
                "to their worst R-hat / ESS); red rows fail a threshold."
                if flag
                else "Laplace approximation: mean, sd and HDI of its draws."
                if laplace
                else "MAP estimates."
            ),
            flag_column=flag,
        )
    else:
        why = [m for m in sink.other if m.startswith(f"diagnostics of {_primary_name(cc)}")]
        page.box(
            "; ".join(why) or "The cross-check computed no convergence diagnostics.", kind="warn"
        )

    # ---------------------------------------------------------------- strengths
    figs = _figures(cc)
    if "strength" in post.data_vars:
        page.heading("Item strengths", level=3)
        try:
            if figs.strengths is None:
                raise ValueError(figs.notes.get("strengths", "the cross-check has no strengths"))
            items = _forest_items(cc, figs.strengths, max_items)
            ax = plots.plot_strength_forest(
                data=figs.strengths, items=items, max_items=max_items, title="Item strengths"
            )
            n_all = len(figs.strengths)
            n_shown = len(ax.get_yticks())
            page.figure(
                ax.figure,
                f"Item strengths: posterior mean and {interval_label()} HDI, centred within "
                "each context; "
                "diamonds: Bradley–Terry MM strengths rescaled onto the posterior scale "
                f"({cc.classical.mm_note or 'no MM'})."
                + (
                    (
                        f" The first {n_shown} of {n_all} items (whole contexts) are shown."
                        if cc.data.has_contexts
                        else f" The {n_shown // 2} strongest and {n_shown - n_shown // 2} "
                        f"weakest of {n_all} items are shown."
                    )
                    if n_all > n_shown
                    else ""
                ),
            )
            if figs.bt_vs_posterior is not None:
                ax = plots.plot_bt_vs_posterior(data=figs.bt_vs_posterior)
                page.figure(
                    ax.figure,
                    "MM strengths against posterior mean strengths (both centred within "
                    "context). The error models' strengths describe the latent truth and have a "
                    "larger scale than Bradley–Terry's, which absorbs the judges' lapses: compare "
                    "orderings (Spearman ρ).",
                )
        except (ValueError, KeyError) as exc:
            page.box(f"Strength plots not drawn: {exc}", kind="warn")

    if figs.ranks is not None or "ranks" in figs.notes:
        page.heading("Posterior ranks (each context's order summed out)", level=3)
        if figs.ranks is None:
            page.box(f"Ranks not computed: {figs.notes['ranks']}", kind="warn")
        else:
            ranks = figs.ranks
            n_draws = int(ranks.attrs.get("rank_draws", 0))
            over = (
                "at the point estimate of the rates"
                if n_draws == 1
                else f"averaged over {n_draws} posterior draws of the rates"
            )
            shown = ranks.iloc[:max_items]
            ax = plots.plot_order_ranks(ranks=ranks, max_names=max_items)
            page.figure(
                ax.figure,
                "Share of its context's other items each item name beats, averaged over its "
                "contexts: the model's posterior (every order of each context weighed by the "
                f"verdicts at the judges' estimated error rates, {over}) against each judge's "
                "Copeland score share (1 + S_i / (k − 1)) / 2 from the raw verdicts (a tied "
                "pair counts half)."
                + (
                    f" The first {len(shown)} of {len(ranks)} names."
                    if len(ranks) > len(shown)
                    else ""
                ),
            )
            _table(
                page,
                shown,
                caption=(
                    "Per item name: contexts it appears in; beats_share, the expected share of "
                    "a context's other items it is truly better than; p_best, the expected "
                    "share of its contexts it is best in; the posterior mean rank (1 = best); "
                    "and each judge's Copeland score share."
                ),
            )

    # ---------------------------------------------------------------- shared parameters
    if "" in figs.posterior or "posterior" in figs.notes:
        try:
            if "" not in figs.posterior:
                raise ValueError(figs.notes["posterior"])
            axes = plots.plot_posterior_vs_grid(idata, data=figs.posterior[""])
            page.figure(
                axes[0].figure,
                "Parameters shared by all judges (e.g. covariate effects w): "
                + (
                    f"posterior (shaded: {interval_label()} HDI)"
                    if n_samples > 1
                    else "MAP estimate"
                )
                + (" with the nominal values of the synthetic draw." if cc.truth else "."),
            )
        except ValueError as exc:
            page.box(f"Shared parameters not drawn: {exc}", kind="warn")

    # ---------------------------------------------------------------- per judge
    ppc_rows: list[dict[str, Any]] = []
    # a step per judge up to a few judges; one step, counted, for a log of many
    start = prog.per_judge("rendering: Bayesian fit and predictive checks", _judges(cc))
    for j in _judges(cc):
        page.heading(f"Judge {j}", level=3)
        start(j)
        coords = {"judge": [j]} if j in judges_in_fit and "judge" in post.coords else None
        if n_samples > 1:
            try:
                axes = plots.plot_trace(idata, coords=coords)
                page.figure(
                    axes.ravel()[0].figure,
                    f"Judge {j}: posterior densities per chain and rank plots (flat bars: the "
                    "chains agree).",
                )
            except (ValueError, TypeError, KeyError) as exc:
                page.box(f"Trace plot not drawn: {exc}", kind="warn")
        try:
            if j not in figs.posterior:
                raise ValueError(figs.notes.get(f"posterior {j}", "no posterior panel"))
            axes = plots.plot_posterior_vs_grid(idata, data=figs.posterior[j])
            page.figure(
                axes[0].figure,
                f"Judge {j}: "
                + (
                    f"posterior of each error parameter (shaded: {interval_label()} HDI)"
                    if n_samples > 1
                    else "MAP estimate of each error parameter"
                )
                + " with the classical estimates as vertical lines"
                + (" and the realised error rates of the synthetic draw" if cc.truth else "")
                + ". The 2-D Δ_S values are its fitted sum ε₊ + ε₋ split by the first-position "
                "rate: the grid alone cannot tell ε₊ from ε₋.",
            )
        except ValueError as exc:
            page.box(f"Posterior densities not drawn: {exc}", kind="warn")
        try:
            df = _ppc(cc).get(j)
            if df is None:
                raise ValueError("the cross-check drew no predictive replicates for this judge")
            axes = plots.plot_ppc(idata, ppc=df)
            summary = figs.ppc if figs.ppc is not None else pd.DataFrame(columns=["judge"])
            rows = summary[summary["judge"] == j].to_dict(orient="records")
            ppc_rows.extend(rows)
            page.figure(
                axes[0].figure,
                f"Judge {j}: posterior predictive checks with the paper's statistics, "
                f"{df['draw'].nunique()} replicated data sets ({df.attrs.get('replicates', '')}"
                + (", plug-in at the MAP estimate" if n_samples == 1 else "")
                + "), same design as observed. p-values P(rep > obs) + ½P(rep = obs): "
                + ", ".join(
                    f"{r['statistic']} {replicate_p_text(r['p_value'], r['replicates'])}"
                    for r in rows
                )
                + " (near 0 or 1: the model misses that feature of the data).",
            )
        except (ValueError, KeyError) as exc:
            page.box(f"Posterior predictive checks not drawn: {exc}", kind="warn")
        plt.close("all")
    if ppc_rows:
        page.heading("Posterior predictive checks: all judges", level=3)
        table = pd.DataFrame(ppc_rows)
        from bayes_pairwise.crosscheck import ppc_extreme_rule, ppc_misfit_lines

        lines = ppc_misfit_lines(table)
        if lines:
            page.box(" ".join(lines), kind="warn")
        table["ok"] = ~table.pop("extreme")
        _table(
            page,
            table,
            caption="Observed statistic, mean and sd over the replicates, and the p-value "
            f"P(rep > obs) + ½P(rep = obs); red rows: {ppc_extreme_rule()}. delta_s_area is "
            "the area under the pooled Δ_S–n curve; with ties modelled, s_com_decided is S_com "
            "of the decided verdicts alone (the pairs decided in both orders: the errors) and "
            "ties_both_orders the share of the pairs shown in both orders tied in both.",
            index=False,
            flag_column="ok",
        )


def _section_crosscheck(page: HtmlPage, cc: CrossCheck) -> None:
    page.paragraph(
        "Agreement rows: every model estimate against every classical estimate of the same "
        "quantity. 'overlap' is True when the two intervals overlap; the difference is posterior "
        "minus classical with its interval. Primary rows decide the verdict in the headline."
    )
    if len(cc.agreement):
        _table(
            page,
            (
                cc.agreement.drop(columns=["model"])
                if cc.agreement.model.nunique() == 1
                else cc.agreement
            ),
            index=False,
            flag_column="overlap",
        )
    _table(
        page,
        cc.table,
        caption="Every estimate side by side (one row per quantity, judge and method).",
        index=False,
    )
    if cc.notes:
        page.paragraph("Notes from the cross-check:")
        page.bullets([str(n) for n in cc.notes[:40]])


def _section_headline(page: HtmlPage, cc: CrossCheck, model: str) -> None:
    """The answer first: one row per judge, the verdicts, the caveats, the judges compared."""
    import matplotlib.pyplot as plt

    from bayes_pairwise import plots

    page.heading("Answer: each judge's error rates, and do the two methods agree?")
    if cc.primary_fit is None:
        page.box(f"No Bayesian fit is available: {_fit_error(cc)}", kind="bad")
    rates, shows = cc.headline_tables()
    if len(rates):
        _table(
            page,
            rates,
            caption=(
                f"Per judge: the {model} model's posterior mean [{interval_label()} HDI] (MAP: "
                f"the point) and the classical estimate [{interval_label()} interval] of each "
                "error rate (rates among decided verdicts), the verdict and the largest gap "
                "between intervals."
            ),
            index=False,
        )
    if shows is not None and len(shows):
        _table(
            page,
            shows,
            caption=(
                "What this log can show, per judge: the estimand (without gold labels the "
                "order-inconsistent error, a lower bound on the error), how the estimate reads, "
                "the sharp bounds on the error rates compatible with the verdicts "
                f"({interval_label()} bootstrap ends) and whether pair difficulty is identified."
            ),
            index=False,
        )
    for v in cc.verdicts.itertuples(index=False):
        kind = {"AGREE": "ok", "DISAGREE": "bad"}.get(v.verdict, "warn")
        page.box(v.text, kind=kind)
    if cc.caveats:
        page.box(
            " ".join(
                f"({k}{''.join(', ' + j for j in whose)}) {t}"
                for k, (t, whose) in enumerate(
                    zip(cc.caveats, cc.caveat_judges(), strict=True), start=1
                )
            ),
            kind="warn",
            title="What these data cannot show (numbered as in the table's caveats column)",
        )
    if cc.primary_fit is None:
        return
    figs = _figures(cc)
    forest = figs.judge_forest
    if forest is not None:
        present = list(dict.fromkeys(forest["variable"]))
        var_names = tuple(
            v for v in _MODEL_VARS.get(model, ("eps_plus", "eps_minus")) if v in present
        ) or tuple(present)
        classical = forest["variable"].isin(var_names) & (forest["source"] == "classical")
        try:
            ax = plots.plot_judge_forest(data=forest, var_names=var_names, title="Judges compared")
            page.figure(
                ax.figure,
                f"One row per judge: posterior mean and {interval_label()} HDI of "
                + " and ".join(var_names)
                + (
                    " (hollow squares: the classical estimates of the table above)"
                    if classical.any()
                    else ""
                )
                + ".",
            )
        except ValueError as exc:
            page.box(f"Judge comparison not drawn: {exc}", kind="warn")
    elif "judge_forest" in figs.notes:
        page.box(f"Judge comparison not drawn: {figs.notes['judge_forest']}", kind="warn")

    plt.close("all")


def _leaderboard_table(lb: Any, top: int) -> pd.DataFrame:
    """The first ``top`` rows of a leaderboard as printed: rank, item, strength, its interval,
    P(rank 1) and the rank interval."""
    t = lb.table.head(top)
    lab = interval_label(lb.hdi_prob)
    return pd.DataFrame(
        {
            "rank": [str(int(r)) for r in t["rank"]],
            "item": t["item"].astype(str).to_numpy(),
            "strength": t["strength"].astype(float).to_numpy(),
            f"{lab} interval": [
                f"[{_fmt(lo)}, {_fmt(hi)}]" for lo, hi in zip(t["lower"], t["upper"], strict=True)
            ],
            "P(rank 1)": t["p_rank_1"].astype(float).to_numpy(),
            f"rank {lab} interval": [
                "–" if not (np.isfinite(lo) and np.isfinite(hi)) else f"{int(lo)}–{int(hi)}"
                for lo, hi in zip(
                    t["rank_lower"].astype(float), t["rank_upper"].astype(float), strict=True
                )
            ],
        }
    )


def _section_leaderboard(page: HtmlPage, cc: CrossCheck) -> None:
    """The pooled leaderboard with its rank-probability map, then the judges' Kendall τ."""
    import matplotlib.pyplot as plt

    from bayes_pairwise import plots

    lb, tau = cc.leaderboard, cc.judge_agreement
    notes = [str(n) for n in cc.ranking_notes]
    if lb is None and tau is None and not notes:
        return
    # part of the answer (an <h3> under it, always shown): no collapsible section of its own
    page.heading("Leaderboard, and the judges' rankings compared", level=3)
    if lb is None:
        page.box("No leaderboard: " + " ".join(notes), kind="warn")
        return
    top = min(LEADERBOARD_ROWS, lb.n_items)
    hidden = lb.n_items - top
    who = "all judges' verdicts pooled" if cc.data.n_judges > 1 else f"judge {_judges(cc)[0]}"
    _table(
        page,
        _leaderboard_table(lb, top),
        caption=(
            f"Leaderboard ({who}): classical Bradley–Terry strengths (centred log-strengths) "
            f"with the {lb.interval}, from {lb.n_draws} bootstrap replicates; P(rank 1) and the "
            f"rank interval are shares of the replicates. "
            + (
                f"Showing the {top} strongest of {lb.n_items} items ({hidden} more not shown)."
                if hidden
                else f"All {lb.n_items} items."
            )
        ),
        index=False,
    )
    try:
        ax = plots.plot_rank_probabilities(lb, top=top, max_rank=top)
        page.figure(
            ax.figure,
            f"P(rank = k) of the {top} strongest items (rows, strongest on top) over ranks 1–{top}"
            + (f" and the rest ('>{top}')" if top < lb.n_items else "")
            + f": the shares of the {lb.n_draws} bootstrap replicates in which each item has "
            "that rank; each row sums to 1.",
        )
    except ValueError as exc:
        page.box(f"Rank probabilities not drawn: {exc}", kind="warn")
    plt.close("all")
    if lb.notes:
        page.bullets([f"leaderboard: {n}" for n in lb.notes])
    if tau is not None and len(tau):
        shown = tau[["judge", "reference", "n_items", "kendall_tau"]].copy()
        shown[f"τ {interval_label()} interval"] = [
            f"[{_fmt(lo)}, {_fmt(hi)}]"
            for lo, hi in zip(tau["tau_lower"], tau["tau_upper"], strict=True)
        ]
        shown["spearman"] = tau["spearman"].astype(float)
        shown["same top item"] = ["yes" if v else "no" for v in tau["same_top"]]
        shown["judge's top item"] = tau["top"].astype(str)
        shown = shown.rename(columns={"kendall_tau": "Kendall τ", "n_items": "items"})
        _table(
            page,
            shown,
            caption=(
                "Kendall τ (τ-b of the strengths) between each judge's leaderboard and the "
                f"reference. {tau.attrs.get('reference_note', '')} Interval: "
                f"{tau.attrs.get('interval', '')}."
            ),
            index=False,
        )
    elif cc.data.n_judges < 2:
        page.paragraph("One judge: no judges' rankings to compare (Kendall τ needs two).")
    rest = [n for n in notes if tau is None or n != tau.attrs.get("reference_note")]
    if rest:
        page.bullets(rest)


def _section_model_comparison(page: HtmlPage, cc: CrossCheck) -> None:
    """The cross-check's PSIS-LOO table and its verdict sentence (more than one model fitted)."""
    table = getattr(cc, "model_comparison", None)
    note = str(getattr(cc, "model_comparison_note", ""))
    if table is None and len(cc.settings.get("models", cc.fits)) < 2:
        return
    page.open_details("Model comparison (PSIS-LOO)")
    if table is None:
        page.box(note or "No LOO comparison.", kind="warn")
        page.close_details()
        return
    page.box(str(table.attrs.get("message", "")), kind="ok", title="Which model the data support")
    shown = pd.DataFrame(
        {
            "model": table["model"].astype(str).to_numpy(),
            "elpd_loo": table["elpd_loo"].astype(float).to_numpy(),
            "se": table["se"].astype(float).to_numpy(),
            "elpd_diff": table["elpd_diff"].astype(float).to_numpy(),
            "dse": table["dse"].astype(float).to_numpy(),
            "weight": table["weight"].astype(float).to_numpy(),
            "p_loo": table["p_loo"].astype(float).to_numpy(),
            "parameters": [str(int(v)) for v in table["n_parameters"]],
            "Pareto k warnings": [str(int(v)) for v in table["pareto_k_bad"]],
            "preferred": ["yes" if v else "" for v in table["preferred"]],
        }
    )
    _table(
        page,
        shown,
        caption=(
            "PSIS-LOO comparison (ArviZ compare, stacking weights), best first: expected log "
            "predictive density (elpd_loo) with its standard error, the difference to the best "
            "model and its standard error (dse), the effective number of parameters (p_loo), "
            "the unconstrained free parameters and the pair rows whose Pareto k is too high "
            "for the estimate to be reliable. " + note
        ),
        float_format="{:.2f}",
        index=False,
    )
    page.close_details()


def _display_id(value: Any) -> str:
    """A user id shortened for a table cell as for the plots (:func:`plots.short_label`: at
    most ``LABEL_MAX_CHARS`` characters, middle "…"), without its Matplotlib escapes (the HTML
    table escapes the text itself)."""
    from bayes_pairwise import plots

    s = plots.short_label(value).replace("\\$", "$")
    return s[1:] if str(value).startswith("_") and s.startswith(" ") else s


def _section_likely_errors(page: HtmlPage, cc: CrossCheck) -> None:
    """Per judge, the verdicts the primary fit finds most likely wrong, with their items."""
    from bayes_pairwise import plots

    table = getattr(cc, "likely_errors", None)
    note = str(getattr(cc, "likely_errors_note", ""))
    if table is None and cc.primary_fit is None:
        return
    page.open_details("Verdicts most likely wrong, per judge")
    if table is None or not len(table):
        page.box(note or "No per-verdict error probabilities.", kind="warn")
        page.close_details()
        return
    outcome = {1.0: "first", 0.0: "second", 0.5: "tie"}
    long_ids = any(
        len(str(v)) > plots.LABEL_MAX_CHARS for v in pd.concat([table["first"], table["second"]])
    )
    for judge, rows in table.groupby("judge", sort=False):
        shown = pd.DataFrame(
            {
                "row": [str(int(r)) for r in rows["row"]],
                "first shown": [_display_id(v) for v in rows["first"]],
                "second shown": [_display_id(v) for v in rows["second"]],
                "verdict": [outcome.get(float(v), str(v)) for v in rows["outcome"]],
                "p_error": rows["p_error"].astype(float).to_numpy(),
            }
        )
        _table(
            page,
            shown,
            caption=(
                f"Judge {_display_id(judge)}: the {len(rows)} verdicts most likely wrong "
                "(row: position in the input). "
                + note
                + (
                    f". Ids longer than {plots.LABEL_MAX_CHARS} characters are shortened in "
                    "the middle; the full ids are in the cross-check's likely_errors table."
                    if long_ids
                    else "."
                )
            ),
            index=False,
        )
    page.close_details()


def _section_settings(
    page: HtmlPage,
    cc: CrossCheck,
    prog: Steps,
    total: float,
    model: str,
    method: str,
    sampler: dict[str, int],
    seed: Any,
    gkw: dict,
    name: str,
) -> None:
    import arviz as az
    import matplotlib
    import pymc

    from bayes_pairwise._version import __version__

    settings = {
        "data": name,
        "judges": ", ".join(_judges(cc)),
        "model": model,
        "method": method,
        "draws / tune / chains": (
            f"{sampler['draws']} / {sampler['tune']} / {sampler['chains']}"
            if method == "nuts"
            else f"{sampler['draws']} / – / 1 (Laplace approximation)"
            if method == "laplace"
            else "– (MAP)"
        ),
        "random_seed": seed,
        "Δ_S grid settings": ", ".join(f"{k}={v}" for k, v in gkw.items()) or "defaults",
        "posterior predictive replicates": _replicates_drawn(cc),
        "tie policy": cc.data.tie_policy,
        "versions": (
            f"bayes_pairwise {__version__}, pymc {pymc.__version__}, arviz {az.__version__}, "
            f"numpy {np.__version__}, pandas {pd.__version__}, matplotlib {matplotlib.__version__}"
        ),
        "total run time": f"{total:.1f} s",
    }
    _table(
        page,
        pd.DataFrame({"setting": list(settings), "value": [str(v) for v in settings.values()]}),
        index=False,
    )
    steps = pd.DataFrame(prog.steps, columns=["step", "seconds"])
    _table(page, steps, caption="Time per step", index=False, float_format="{:.1f}")
