"""The cross-check: one pipeline from a comparison log to a verdict per judge (METHODS §8).

:func:`crosscheck` is the only place where the classical estimators, the model fits, their
diagnostics and posterior predictive checks, and their agreement are computed. The report
(:func:`bayes_pairwise.report.build_report`), the CLI (``compare``, ``report``) and notebooks
render what it returns: a :class:`CrossCheck`.

Rules, each stated once
-----------------------
* **One interval level**: :data:`bayes_pairwise.conventions.HDI_PROB` for posterior HDIs and
  classical intervals alike.
* **One tie rule** (:data:`bayes_pairwise.conventions.CLASSICAL_TIE_RULE`): the models read the
  data unchanged and decide about ties in their own ``fit`` (recorded in ``tie_handling``); the
  classical error rates count ties half and are put on the models' scale, the error rate among
  decided verdicts, with the judge's observed tie share. Both sides use every verdict.
* **Agreement = the two intervals overlap** (a MAP fit has no interval: its point must lie in the
  classical interval). Each agreement row also carries the difference (posterior − classical) and
  its interval. No string matching: rows are typed (:class:`Agreement`).
* **The verdict** of a judge is AGREE when every *primary* comparison overlaps, else DISAGREE with
  the largest gap: ε (uniform) against S_com and the paper's Δ_S grid, ε₊ / ε₋ (positional)
  against the moment estimator, ε₊ + ε₋ against the moments' sum (its own delta-method
  interval: the paper's single round robin gives the grid no resampling unit, so the sum was
  left unassessed there) and the 2-D Δ_S grid (the only thing it identifies), the tie rate
  against the observed share of ties. With ties, the Δ_S grid's synthetic
  matrices hold the judge's share of ties (at random, counted half as the observed ones), so
  its ε is the error rate among decided verdicts too and its rows enter the verdict.

Classical intervals: delta method for S_com and the moments (pairs as units), a bootstrap over
contexts for the Δ_S grid fits (with at least five complete round-robins; a single round-robin
has no resampling unit and its grid value is shown without an interval), Wilson for shares.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import sys
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import (
    AGREEMENT_TOLERANCE,
    CLASSICAL_TIE_RULE,
    JUDGE_BOARDS_N_BOOT,
    LEADERBOARD_N_BOOT,
    MIN_PAIRS_TO_SAY,
    STRENGTH_TIE_RTOL,
    interval_label,
    resolve_hdi_prob,
    tie_dispersion_group,
    z_value,
)
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import (
    BayesPairwiseError,
    DesignError,
    TieRescalingWarning,
    WarningSink,
)
from bayes_pairwise.model_checking import compare_fitted, compare_models_dict
from bayes_pairwise.progress import Steps

__all__ = [
    "Agreement",
    "ClassicalFits",
    "CrossCheck",
    "FitFigures",
    "JudgeVerdict",
    "compare",
    "copeland_summary",
    "crosscheck",
    "models_to_fit",
    "pooled_judges",
    "posterior_draws",
    "posterior_stats",
    "ppc_extreme_rule",
    "ppc_misfit_lines",
    "sampler_settings",
]

#: Columns of :attr:`CrossCheck.table`.
COLUMNS = ["quantity", "judge", "method", "estimate", "lower", "upper", "interval", "role", "note"]
#: Bootstrap resamples for the Δ_S grid intervals.
N_BOOTSTRAP = 200
#: Verdicts listed per judge in :attr:`CrossCheck.likely_errors` (highest ``p_error`` first).
LIKELY_ERRORS_PER_JUDGE = 5
#: Why a MAP cross-check has no LOO comparison (the report prints it).
LOO_NEEDS_DRAWS = "LOO needs posterior draws: run without --map"
#: Judge label taken as the human reference of the judges' agreement (compared case-blind).
HUMAN_JUDGE = "human"
#: Key of the pooled leaderboard when it serves as the reference (no human judge).
POOLED = "all judges pooled"
#: Columns of :meth:`CrossCheck.headline` that say what the log can show (estimand, how the
#: estimate reads, sharp bounds, identification, convergence); the renderers show them in a
#: second table so the rates table fits a screen.
SHOWS_COLUMNS = ("estimand", "reads as", "sharp bounds", "pair difficulty", "convergence")
#: Reported error quantities, with their symbols.
SYMBOLS = {
    "eps": "ε",
    "eps_plus": "ε₊",
    "eps_minus": "ε₋",
    "eps_sum": "ε₊ + ε₋",
    "tie_rate": "tie rate",
    "tie_rate_plus": "τ₊",
    "tie_rate_minus": "τ₋",
    "tie_rho": "tie correlation ρ",
    "gamma": "γ",
}
#: The models' quantities in the side-by-side table (tie rates by position: ``tie_positional``).
MODEL_QUANTITIES = (
    "eps",
    "eps_plus",
    "eps_minus",
    "eps_sum",
    "tie_rate",
    "tie_rate_plus",
    "tie_rate_minus",
    "tie_rho",
    "gamma",
)
METHOD_SCOM = "S_com closed form"
METHOD_MOMENTS = "moments (S_com, r₁)"
#: The moments on the pairs decided in both orders (no tie rescaling): the verdict's basis for
#: ε₊, ε₋ and ε₊ + ε₋ where a judge's ties depend on where the better text is shown.
METHOD_MOMENTS_DECIDED = "moments, pairs decided in both orders"
#: The same pairs' S_com closed form (ε): the verdict's basis for ε there.
METHOD_SCOM_DECIDED = "S_com closed form, pairs decided in both orders"
METHOD_GRID = "Δ_S grid (1-D)"
METHOD_GRID_SUM = "Δ_S grid (2-D), sum"
METHOD_GRID_SPLIT = "Δ_S grid (2-D) sum split by r₁"
#: The Δ_S grids' rows: their intervals resample whole round robins (no pair in both orders).
GRID_METHODS = (METHOD_GRID, METHOD_GRID_SUM, METHOD_GRID_SPLIT)
METHOD_TIES = "observed share of ties"
#: The moment estimate of the within-context correlation of ties (the order models' tie_rho).
METHOD_TIE_CORRELATION = "moments of the tie counts per context"
#: The same by pair (``tie_dispersion="pair"``): the within-pair correlation of ties.
METHOD_TIE_CORRELATION_PAIR = "moments of the tie counts per pair"
METHOD_LABELS = "labelled verdicts (gold)"
#: What the headline's model columns hold, by fit method (:meth:`CrossCheck.estimate_column`).
ESTIMATE_COLUMN = {"nuts": "model", "map": "MAP", "laplace": "Laplace"}
METHOD_TRUTH = "realised (synthetic truth)"
#: (model quantity, classical method) pairs the verdict rests on.
PRIMARY = {
    ("eps", METHOD_GRID),
    ("eps", METHOD_SCOM),
    ("eps_plus", METHOD_MOMENTS),
    ("eps_minus", METHOD_MOMENTS),
    ("eps_sum", METHOD_MOMENTS),
    ("eps_sum", METHOD_GRID_SUM),
    ("tie_rate", METHOD_TIES),
}
#: With gold labels the labelled rates are the verdict's basis (issue 25): the ground-truth-free
#: estimators measure order-inconsistent errors only, so they become reference rows.
PRIMARY_LABELLED = {
    ("eps", METHOD_LABELS),
    ("eps_plus", METHOD_LABELS),
    ("eps_minus", METHOD_LABELS),
    ("tie_rate", METHOD_TIES),
}
#: The model the verdict rests on when labelled pairs show within-pair correlation.
DIFFICULTY_MODELS = ("positional_difficulty", "uniform_difficulty")


# =============================================================================== posterior access
def _idata_of(fit: Any) -> Any:
    return getattr(fit, "idata_", fit)


def posterior_draws(idata: Any, var: str, *, judge: str | None = None) -> np.ndarray | None:
    """Flat posterior draws of a scalar (or per-judge) variable; ``None`` if absent.

    ``"eps_sum"`` is derived as ε₊ + ε₋ draw by draw.

    Parameters
    ----------
    idata : arviz.InferenceData or fitted model
    var : str
    judge : str, optional
        Picks the coordinate of a ``judge`` dimension when the variable has one.

    Returns
    -------
    ndarray or None

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> idata = az.from_dict(posterior={"eps_plus": np.full((1, 3), 0.1),
    ...                                 "eps_minus": np.full((1, 3), 0.2)})
    >>> posterior_draws(idata, "eps_sum").round(2).tolist()
    [0.3, 0.3, 0.3]
    """
    if var == "eps_sum":
        a = posterior_draws(idata, "eps_plus", judge=judge)
        b = posterior_draws(idata, "eps_minus", judge=judge)
        return None if a is None or b is None else a + b
    idata = _idata_of(idata)
    if idata is None or not hasattr(idata, "groups") or "posterior" not in idata.groups():
        return None
    post = idata.posterior
    if var not in post:
        return None
    da = post[var]
    if "judge" in da.dims:
        labels = [str(v) for v in da.coords["judge"].values]
        if judge is None:
            if len(labels) != 1:
                return None
            da = da.isel(judge=0)
        elif str(judge) in labels:
            da = da.isel(judge=labels.index(str(judge)))
        else:
            return None
    if [d for d in da.dims if d not in ("chain", "draw")]:
        return None
    return np.asarray(da.values, dtype=float).ravel()


def posterior_stats(
    idata: Any, var: str, *, judge: str | None = None, hdi_prob: float | None = None
) -> tuple[float, float, float] | None:
    """Posterior mean and HDI of a scalar (or per-judge) variable; ``None`` if absent.

    A one-draw posterior (MAP, grid and MM fits) has no interval: its bounds are NaN.

    Parameters
    ----------
    idata : arviz.InferenceData or fitted model
    var : str
    judge : str, optional
    hdi_prob : float, optional
        Default :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time.

    Returns
    -------
    tuple of float or None

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps": rng.normal(0.2, 0.01, (2, 500))})
    >>> mean, lo, hi = posterior_stats(idata, "eps")
    >>> round(mean, 2), lo < 0.2 < hi
    (0.2, True)
    """
    from bayes_pairwise.pymc_models.diagnostics import hdi_interval

    x = posterior_draws(idata, var, judge=judge)
    if x is None:
        return None
    if x.size < 4:
        return float(np.mean(x)), math.nan, math.nan
    lo, hi = hdi_interval(x, hdi_prob)
    return float(np.mean(x)), float(lo), float(hi)


def _fit_label(fit: Any) -> str:
    name = getattr(fit, "name", None) or type(fit).__name__
    if _is_point(fit):
        how = "MAP"
    elif getattr(fit, "method_", None) == "laplace":
        how = "Laplace approx."
    else:
        how = "posterior"
    return f"{name} ({how})"


#: The caveat every cross-check made with the fast path carries (its headline says so too).
LAPLACE_CAVEAT = (
    "The Bayesian fits are Laplace approximations (--fast): a Gaussian at the posterior mode, "
    "not NUTS draws. Their intervals are approximate (PSIS k-hat in the diagnostics); run "
    "without --fast before publishing a verdict."
)


def _is_point(fit: Any) -> bool:
    if getattr(fit, "method_", None) == "map":
        return True
    post = getattr(_idata_of(fit), "posterior", None)
    return post is not None and post.sizes.get("chain", 0) * post.sizes.get("draw", 0) == 1


# =============================================================================== result types
@dataclass(frozen=True)
class ClassicalFits:
    """The classical fits of a cross-check, per judge (the report draws them).

    Attributes
    ----------
    desc : DataFrame
        :func:`~bayes_pairwise.classical.descriptive.descriptive_by_judge` (ties counted half).
    scom, moments, delta, delta2d, spread : dict
        Per judge: :class:`ScomEstimate`, :class:`PositionalMoments`, :class:`DeltaSFit`,
        :class:`DeltaS2DFit`, :class:`BiasedBTSpreadSearch` (where they apply).
    skipped : dict
        Per judge and estimator: why it was not fitted.
    tie_share : dict
        Per judge: (share, lower, upper, n_ties, n_verdicts).
    labelled : DataFrame or None
        :func:`~bayes_pairwise.classical.descriptive.labelled_error_rates` when labels exist.
    tie_position : dict
        Per judge with ties kept: :func:`~bayes_pairwise.classical.descriptive.tie_position_check`.
        Where it finds that the ties depend on where the better text is shown, the rescaling
        for the tie share (and the Δ_S grids' ties at random) does not hold, and S_com and the
        moments on the pairs decided in both orders (:data:`METHOD_SCOM_DECIDED`,
        :data:`METHOD_MOMENTS_DECIDED`) are the verdict's basis for ε, ε₊, ε₋ and ε₊ + ε₋.
    mm : BradleyTerry or None
        MM strengths, all judges pooled; ``mm_note`` says which ridge and why.
    tie_correlation : dict
        Per judge with ties kept and verdicts in two contexts or more:
        :func:`~bayes_pairwise.classical.descriptive.tie_correlation` (the order models'
        ``tie_rho`` with ``tie_dispersion``).
    tie_correlation_by : {"context", "pair"}
        What ``tie_correlation`` groups the ties by (the cross-check's ``tie_dispersion``):
        by pair, the tie counts per pair with the contexts resampled.
    tie_share_resampled : dict
        Per judge whose ``tie_share`` interval is a bootstrap: what it resamples
        (``"contexts"``, or ``"pairs"`` in a one-context log) and why (the ties cluster by
        ``"context"`` or by ``"pair"``).
    """

    desc: pd.DataFrame | None = None
    scom: Mapping[str, Any] = field(default_factory=dict)
    moments: Mapping[str, Any] = field(default_factory=dict)
    delta: Mapping[str, Any] = field(default_factory=dict)
    delta2d: Mapping[str, Any] = field(default_factory=dict)
    spread: Mapping[str, Any] = field(default_factory=dict)
    skipped: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    tie_share: Mapping[str, tuple[float, float, float, int, int]] = field(default_factory=dict)
    labelled: pd.DataFrame | None = None
    tie_position: Mapping[str, Any] = field(default_factory=dict)
    mm: Any = None
    mm_note: str = ""
    tie_correlation: Mapping[str, Any] = field(default_factory=dict)
    tie_correlation_by: str = "context"
    tie_share_resampled: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Agreement:
    """One model estimate set against one classical estimate of the same quantity.

    ``overlap`` is True when the posterior HDI and the classical interval overlap (MAP: the point
    lies in the classical interval; a classical value without an interval: it lies in the HDI);
    ``gap`` is the distance between the two intervals (0 when they overlap); gaps up to
    :data:`~bayes_pairwise.conventions.AGREEMENT_TOLERANCE` count as overlap. ``overlap`` is None
    when neither side has an interval (a MAP fit against a single round-robin's grid value):
    such a row is shown but takes no part in the verdict. ``difference`` is
    posterior mean − classical estimate with its interval (posterior draws minus a normal
    approximation of the classical estimate; NaN for MAP fits).
    """

    judge: str
    quantity: str
    model: str
    classical: str
    classical_estimate: float
    classical_lower: float
    classical_upper: float
    posterior_mean: float
    posterior_lower: float
    posterior_upper: float
    overlap: bool | None
    gap: float
    difference: float
    difference_lower: float
    difference_upper: float
    primary: bool
    basis: str


@dataclass(frozen=True)
class JudgeVerdict:
    """The answer for one judge: AGREE / DISAGREE / NO VERDICT, the gap, the sentence."""

    judge: str
    verdict: str
    gap: float
    text: str
    n_primary: int
    n_overlap: int
    caveats: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrossCheck:
    """Everything :func:`crosscheck` computed; renderers only read it.

    Attributes
    ----------
    data : Comparisons
        The data every estimate used (unchanged).
    truth : SyntheticComparisons or None
    classical : ClassicalFits
    fits : dict
        Fitted models by name (each decided about ties in its own ``fit``).
    table : DataFrame
        Tidy: one row per (quantity, judge, method) with the estimate, its interval and the
        row's ``role`` (``classical``, ``model``, ``truth``, ``strengths``).
    agreement : DataFrame
        One :class:`Agreement` per row.
    verdicts : DataFrame
        One :class:`JudgeVerdict` per judge.
    diagnostics : dict
        :func:`~bayes_pairwise.pymc_models.diagnostics.diagnose` result per fit name.
    ppc : dict
        Per fit name, per judge: the :func:`~bayes_pairwise.pymc_models.ppc.ppc_data` table.
    tie_handling : dict
        Per fit name: what the model did with ties.
    notes, warnings : list of str
        Plain-language notes; warnings raised along the way, grouped by kind (``design``,
        ``convergence``, ``other``).
    timings : dict
        Seconds per step.
    settings : dict
    leaderboard : Leaderboard or None
        The classical Bradley–Terry leaderboard (bootstrap) of all judges' verdicts pooled
        (:func:`bayes_pairwise.leaderboard.leaderboard`); None when ranking is not meaningful
        here (``ranking_notes`` says why).
    judge_leaderboards : dict
        With two judges or more: one such leaderboard per judge.
    judge_agreement : DataFrame or None
        With two judges or more: Kendall τ of each judge's leaderboard against the reference
        (:func:`bayes_pairwise.leaderboard.judge_agreement`): the judge named "human" when there
        is one, else the pooled leaderboard (``attrs["reference_note"]`` says which and why).
    ranking_notes : list of str
        How the leaderboards were made (grouping, reference) or why they were skipped.
    model_comparison : DataFrame or None
        With two NUTS-fitted error models or more: their PSIS-LOO comparison
        (:func:`bayes_pairwise.model_checking.compare_fitted`, ArviZ ``compare``), best first:
        ``model``, ``rank``, ``elpd_loo``, ``se``, ``elpd_diff``, ``dse``, ``weight``,
        ``p_loo``, ``n_parameters``, ``pareto_k_bad`` (pair rows with a high Pareto k),
        ``warning``, ``preferred``; ``attrs["message"]`` is the verdict sentence. The fits are
        joint (all judges, shared strengths), so the comparison is too: its unit is one
        (judge, unordered pair) row and every judge's rows count. None otherwise
        (``model_comparison_note`` says why, e.g. :data:`LOO_NEEDS_DRAWS` for MAP fits).
    model_comparison_note : str
        What the comparison covers, or why there is none.
    likely_errors : DataFrame or None
        The verdicts most likely wrong under the primary fit, :data:`LIKELY_ERRORS_PER_JUDGE`
        per judge, highest first (:func:`~bayes_pairwise.pymc_models.verdicts.most_likely_errors`
        of the fit's ``verdict_errors``): ``row`` (position in the input), ``judge``,
        ``first``, ``second``, ``outcome``, ``p_error`` (posterior probability that the verdict
        contradicts the latent true outcome; a MAP fit gives it at the point estimate) and
        ``p_first_better``. None when the primary fit has no latent truth per pair
        (``likely_errors_note`` says why).
    likely_errors_note : str
        Which fit the probabilities come from, or why there are none.
    bounds : dict
        Per judge: :class:`~bayes_pairwise.classical.bounds.ErrorBounds`, the sharp interval of
        ε₊, ε₋, ε compatible with the verdicts (and labels), 94% sampling interval at each end.
    identification : dict
        Per judge: :class:`~bayes_pairwise.identification.Identification` — is pair difficulty
        identified by this log, and its number.
    estimand : dict
        Per fit name: ``"order_inconsistent_error"`` (no labels inform it: a lower bound) or
        ``"error"`` (:func:`~bayes_pairwise.conventions.estimand`).
    convergence : dict
        Per fit name: :func:`~bayes_pairwise.identification.rate_convergence`.
    verdict_model : str or None
        The fit the verdict rests on when not all fits do (the pair-difficulty model when the
        labelled pairs show within-pair correlation); ``verdict_model_note`` says why.
    copeland : DataFrame or None
        Every judge's Copeland ranking (:func:`copeland_summary`).
    correct_score : dict
        Per judge (the first :data:`CORRECT_SCORE_JUDGES`): P(R_m, TO) vs N at the judge's
        classical error rates (:func:`~bayes_pairwise.plot_data.correct_score_data`, exact and
        the paper's form; ``attrs["source"]`` names the estimate used).
    figures : dict
        Per fit name: the numbers of its tables and figures (:class:`FitFigures`: parameter
        summary, judges' forest, strengths, posterior panels, predictive-check summary).
    short_of_pairs : dict
        The judges without gold labels that have fewer than
        :data:`~bayes_pairwise.conventions.MIN_PAIRS_TO_SAY` pairs seen in both orders: judge →
        (verdicts, pairs seen in both orders) (:func:`~bayes_pairwise.caveats.short_of_pairs`).
        Only those whose verdict fell to NO VERDICT for it (one resting on the Δ_S grid stands);
        their rates read as "not a finding" (:meth:`what_it_shows`).
    text_blind : dict
        The judges whose verdicts the log cannot tell from ones that ignore the texts: judge →
        (1 − ε₊ − ε₋, its upper end, the test's z) (:func:`~bayes_pairwise.caveats.
        text_blind_judges`); their verdict sentence and their rates' reading say so.
    one_position : dict
        The judges whose decided verdicts all pick one position: judge → that position,
        ``"first"`` or ``"second"`` (:func:`~bayes_pairwise.caveats.one_position_judges`);
        their verdict sentence and their rates' reading say so.
    ceiling : DataFrame or None
        Per judge with a pair shown in both orders: S_com against its ceiling, from the
        statistics the checks against it read (:func:`~bayes_pairwise.caveats.ceiling_stats`),
        as :func:`~bayes_pairwise.plot_data.ceiling_data` tables them; the report draws it with
        :func:`~bayes_pairwise.plots.plot_ceiling`.
    """

    data: Comparisons
    truth: Any
    classical: ClassicalFits
    fits: Mapping[str, Any]
    table: pd.DataFrame
    agreement: pd.DataFrame
    verdicts: pd.DataFrame
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    ppc: Mapping[str, Mapping[str, pd.DataFrame]] = field(default_factory=dict)
    tie_handling: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    fit_errors: Mapping[str, str] = field(default_factory=dict)
    notes: Sequence[str] = ()
    warnings: Mapping[str, Sequence[str]] = field(default_factory=dict)
    caveats: Sequence[str] = ()
    timings: Mapping[str, float] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    leaderboard: Any = None
    judge_leaderboards: Mapping[str, Any] = field(default_factory=dict)
    judge_agreement: pd.DataFrame | None = None
    ranking_notes: Sequence[str] = ()
    model_comparison: pd.DataFrame | None = None
    model_comparison_note: str = ""
    likely_errors: pd.DataFrame | None = None
    likely_errors_note: str = ""
    bounds: Mapping[str, Any] = field(default_factory=dict)
    identification: Mapping[str, Any] = field(default_factory=dict)
    estimand: Mapping[str, str] = field(default_factory=dict)
    convergence: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    verdict_model: str | None = None
    verdict_model_note: str = ""
    copeland: pd.DataFrame | None = None
    correct_score: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    figures: Mapping[str, Any] = field(default_factory=dict)
    short_of_pairs: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    text_blind: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    one_position: Mapping[str, str] = field(default_factory=dict)
    ceiling: pd.DataFrame | None = None

    @property
    def verdict(self) -> str:
        """One plain-language line per judge."""
        return "\n".join(str(t) for t in self.verdicts["text"]) if len(self.verdicts) else ""

    @property
    def primary_fit(self) -> Any:
        """The first fitted model (the report's main fit), or None."""
        return next(iter(self.fits.values()), None)

    @property
    def fit_seconds(self) -> float:
        """Seconds spent fitting the models (the ``Bayesian: fitting`` steps)."""
        return float(sum(v for k, v in self.timings.items() if k.startswith("Bayesian: fitting")))

    def inference_data(self, name: str | None = None) -> Any:
        """The :class:`arviz.InferenceData` of a fit (default: the primary fit), or None.

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_round_robin(6, eps=0.1, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=("uniform",), method="map", leaderboard=False,
        ...                    delta_s=False, delta_s_2d=False, grid_kwargs={"n_subsets": 10})
        >>> cc.inference_data().posterior.sizes["draw"]
        1
        """
        from bayes_pairwise.plot_data import as_inference_data

        fit = self.primary_fit if name is None else self.fits.get(name)
        return None if fit is None else as_inference_data(fit)

    def headline(self) -> pd.DataFrame:
        """One row per judge: the model's error rates with intervals, the classical estimates
        with intervals, the verdict and its gap, the tie rate and the caveats.

        Returns
        -------
        DataFrame
        """
        rows = []
        for v in self.verdicts.itertuples(index=False):
            row: dict[str, Any] = {"judge": v.judge}
            ag = self.agreement[(self.agreement.judge == v.judge) & self.agreement.primary]
            # one cell per rate: where two methods compare it (ε: S_com and the Δ_S grid) the
            # one that decides the verdict, the largest gap, is written last and shown
            first = {q: k for k, q in enumerate(dict.fromkeys(ag.quantity))}
            ag = ag.assign(
                _q=ag.quantity.map(first),
                _assessed=ag.overlap.notna(),
                _gap=ag.gap.astype(float).fillna(-1.0),
            ).sort_values(["_q", "_assessed", "_gap"], kind="stable")
            for a in ag.itertuples(index=False):
                sym = SYMBOLS.get(a.quantity, a.quantity)
                row[self.estimate_column(sym)] = _fmt_interval(
                    a.posterior_mean, a.posterior_lower, a.posterior_upper
                )
                row[f"{sym} classical"] = (
                    _fmt_interval(a.classical_estimate, a.classical_lower, a.classical_upper)
                    + f" ({_short_method(a.classical)})"
                    if np.isfinite(a.classical_estimate)
                    else f"none ({_short_method(a.classical)}; the verdict says why)"
                )
            row["verdict"] = v.verdict
            row["gap"] = v.gap
            shows = self.what_it_shows(v.judge)
            row["estimand"] = shows["estimand"]
            row["reads as"] = shows["reads_as"]
            if shows["bounds"]:
                row["sharp bounds"] = ", ".join(
                    f"{SYMBOLS[q]} [{lo:.3f}, {hi:.3f}]" for q, (lo, hi) in shows["bounds"].items()
                ) + (" (transitivity)" if shows["transitivity_tightened"] else "")
            if shows["identification"]:
                idf = shows["identification"]
                num = idf["measure"]
                row["pair difficulty"] = idf["status"] + (
                    f" ({idf['measure_name']} {num:.2f})"
                    if isinstance(num, float) and np.isfinite(num) and idf["measure_name"]
                    else ""
                )
            if shows["convergence"]:
                row["convergence"] = shows["convergence"]
            row["caveats"] = self.caveat_refs(v.caveats)
            rows.append(row)
        head = pd.DataFrame(rows)
        # the rates' columns before the verdict in every table, whichever judge has them first
        # (llmfao: its first judge has no ε, so ε's columns landed after the caveats)
        order = [SYMBOLS.get(q, q) for q in dict.fromkeys(self.agreement.quantity)]
        rates = [
            c
            for sym in order
            for c in (self.estimate_column(sym), f"{sym} classical")
            if c in head.columns
        ]
        rest = [c for c in head.columns if c not in rates and c != "judge"]
        return head[["judge", *rates, *rest]] if len(head.columns) else head

    def headline_tables(self) -> tuple[pd.DataFrame, pd.DataFrame | None]:
        """:meth:`headline` as the renderers show it: the rates table, and the judge with the
        :data:`SHOWS_COLUMNS` present (``None`` when none are) so the rates fit a screen.

        Returns
        -------
        (DataFrame, DataFrame or None)
        """
        head = self.headline()
        shows = [c for c in SHOWS_COLUMNS if c in head.columns]
        return head.drop(columns=shows), (head[["judge", *shows]] if shows else None)

    def verdict_fit_name(self) -> str | None:
        """The fit the verdict rests on: :attr:`verdict_model`, else the first fit."""
        if self.verdict_model is not None:
            return self.verdict_model
        return next(iter(self.fits), None)

    def what_it_shows(self, judge: str) -> dict[str, Any]:
        """Per judge, what the log can show (issue 25): the verdict fit's ``estimand``, the
        sentence the rates ``reads_as`` ("ε₊ 0.078 — if errors are independent …" without
        labels; each rate the headline shows, from the first fit that gives it, or the verdict
        model's alone where the verdict rests on it; "not a finding" for a judge in
        :attr:`short_of_pairs`), the sharp
        ``bounds`` ({"eps_plus": [lo, hi], …}), the ``identification`` of pair difficulty and
        the ``convergence`` line of the rates (empty when converged).

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_hard_pairs(2, n_contexts=100, labelled=0.0, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=["positional"], method="map",
        ...                    leaderboard=False, delta_s=False, delta_s_2d=False)
        >>> cc.what_it_shows("judge")["estimand"]
        'order_inconsistent_error'
        """
        from bayes_pairwise.conventions import estimand
        from bayes_pairwise.identification import bounds_read, rates_read, reads_as

        name = self.verdict_fit_name()
        est = self.estimand.get(name, estimand(False)) if name else estimand(False)
        # the rates the headline shows: each from the first fit that has it (uniform's ε,
        # positional's ε₊ and ε₋), or only the verdict model's where the verdict rests on it
        fits = (
            [self.fits[self.verdict_model]]
            if self.verdict_model is not None and self.verdict_model in self.fits
            else list(self.fits.values())
        )
        values = {}
        for q in ("eps", "eps_plus", "eps_minus"):
            for fit in fits:
                st = posterior_stats(fit, q, judge=judge)
                if st is not None:
                    values[q] = st[0]
                    break
        # a nominal first/second label (the order not recorded): ε alone, as the basis
        read = rates_read(self.data.order_recorded, values)
        values = {q: values[q] for q in read}
        rates = bounds_read(self.data.order_recorded, read)
        b = self.bounds.get(judge)
        idf = self.identification.get(judge)
        conv = self.convergence.get(name, {}) if name else {}
        return {
            "estimand": est,
            "reads_as": reads_as(
                values,
                est,
                pairs_in_both=self._pairs_in_both(judge),
                text_blind_upper=blind[1] if (blind := self.text_blind.get(str(judge))) else None,
                one_position=self.one_position.get(str(judge)),
                bounds=b.bounds if b is not None else None,
            )
            if values
            else "",
            "bounds": {q: tuple(b.bounds[q]) for q in rates} if b is not None else {},
            "transitivity_tightened": bool(b.tightened) if b is not None else False,
            "identification": idf.to_dict() if idf is not None else {},
            "convergence": conv.get("text", ""),
        }

    def _pairs_in_both(self, judge: str) -> int | None:
        """The judge's pairs in both orders where too few to say (:attr:`short_of_pairs`)."""
        short = self.short_of_pairs.get(str(judge))
        return None if short is None else short[1]

    def estimate_column(self, symbol: str) -> str:
        """The headline's column of the model's estimate of ``symbol``, named for what it holds:
        ``"ε₊ model"`` (NUTS posterior mean and HDI), ``"ε₊ MAP"`` (a point) or
        ``"ε₊ Laplace"`` (the fast path's approximate posterior).

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_round_robin(8, eps=0.1, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=(), method="map", leaderboard=False,
        ...                    delta_s_2d=False)
        >>> cc.estimate_column("ε₊")
        'ε₊ MAP'
        """
        return f"{symbol} {ESTIMATE_COLUMN.get(self.settings.get('method', 'nuts'), 'model')}"

    def caveat_refs(self, texts: Sequence[str]) -> str:
        """Caveat texts as their numbers in :attr:`caveats`, in increasing order (``"1, 3"``):
        the headline stays one line per judge and the texts are printed once, numbered, under
        it. A text that is not among them (none expected) is written out after the numbers.

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_round_robin(8, eps=0.1, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=(), leaderboard=False, delta_s_2d=False)
        >>> cc.caveat_refs(cc.caveats[:1])
        '1'
        """
        index = {t: k for k, t in enumerate(self.caveats, start=1)}
        numbers = sorted({index[t] for t in texts if t in index})
        return ", ".join([*map(str, numbers), *(t for t in texts if t not in index)])

    def caveat_judges(self) -> list[tuple[str, ...]]:
        """For each of :attr:`caveats`, the judges it concerns, where that is not every judge
        (``()``: all of them), so that a numbered caveat printed under the headline says whose
        it is.

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_round_robin(8, eps=0.1, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=(), leaderboard=False, delta_s_2d=False)
        >>> cc.caveat_judges()[:1]
        [()]
        """
        judges = [str(j) for j in self.verdicts["judge"]] if len(self.verdicts) else []
        texts = [tuple(c) for c in self.verdicts["caveats"]] if len(self.verdicts) else []
        out = []
        for text in self.caveats:
            whose = tuple(j for j, t in zip(judges, texts, strict=True) if text in t)
            out.append(() if not whose or len(whose) == len(judges) else whose)
        return out

    def caveat_lines(self) -> list[str]:
        """The caveats as a user reads them under the headline: ``"caveat 2 (judge-a): …"``
        (numbered as in the table's caveats column; no name where a caveat is every judge's).

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_round_robin(8, eps=0.1, random_seed=0)
        >>> cc = bp.crosscheck(sim.data, models=(), leaderboard=False, delta_s_2d=False)
        >>> cc.caveat_lines()[0].startswith("caveat 1: ")
        True
        """
        lines = []
        for k, (text, whose) in enumerate(
            zip(self.caveats, self.caveat_judges(), strict=True), start=1
        ):
            owner = f" ({', '.join(whose)})" if whose else ""
            lines.append(f"caveat {k}{owner}: {text}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: table, agreement, verdicts, notes, caveats and settings."""
        return {
            "verdict": self.verdict,
            "verdicts": self.verdicts.to_dict(orient="records"),
            "agreement": self.agreement.to_dict(orient="records"),
            "table": self.table.to_dict(orient="records"),
            "caveats": list(self.caveats),
            "caveat_judges": [list(j) for j in self.caveat_judges()],
            "notes": list(self.notes),
            "tie_handling": {k: dict(v) for k, v in self.tie_handling.items()},
            "settings": dict(self.settings),
            "leaderboard": None if self.leaderboard is None else self.leaderboard.to_dict(),
            "judge_leaderboards": {
                j: lb.to_dict(rank_probabilities=False) for j, lb in self.judge_leaderboards.items()
            },
            "judge_agreement": None
            if self.judge_agreement is None
            else {
                "reference": self.judge_agreement.attrs.get("reference"),
                "reference_note": self.judge_agreement.attrs.get("reference_note", ""),
                "interval": self.judge_agreement.attrs.get("interval", ""),
                "judges": self.judge_agreement.to_dict(orient="records"),
            },
            "ranking_notes": list(self.ranking_notes),
            "model_comparison": None
            if self.model_comparison is None
            else compare_models_dict(self.model_comparison),
            "model_comparison_note": self.model_comparison_note,
            "likely_errors": None
            if self.likely_errors is None
            else json.loads(self.likely_errors.to_json(orient="records")),
            "likely_errors_note": self.likely_errors_note,
            "headline": [
                {
                    "judge": str(v.judge),
                    "verdict": v.verdict,
                    **{
                        k: ({q: list(iv) for q, iv in val.items()} if k == "bounds" else val)
                        for k, val in self.what_it_shows(v.judge).items()
                    },
                }
                for v in self.verdicts.itertuples(index=False)
            ],
            "bounds": {j: b.to_dict() for j, b in self.bounds.items()},
            "identification": {j: r.to_dict() for j, r in self.identification.items()},
            "estimand": dict(self.estimand),
            "convergence": {k: dict(v) for k, v in self.convergence.items()},
            "verdict_model": self.verdict_model,
            "verdict_model_note": self.verdict_model_note,
            "short_of_pairs": {
                j: {"n_verdicts": n, "pairs_in_both_orders": both}
                for j, (n, both) in self.short_of_pairs.items()
            },
            "text_blind": {
                j: {"informedness": v, "upper": hi, "z": z}
                for j, (v, hi, z) in self.text_blind.items()
            },
            "one_position": dict(self.one_position),
            "ceiling": json.loads(self.ceiling.to_json(orient="records"))
            if self.ceiling is not None
            else [],
        }

    def pivot(self) -> pd.DataFrame:
        """Estimates with methods as columns (quantity × judge rows)."""
        return self.table.pivot_table(
            index=["quantity", "judge"], columns="method", values="estimate", aggfunc="first"
        )

    def __repr__(self) -> str:
        n = len(self.verdicts)
        return f"CrossCheck({n} judge{'s' if n != 1 else ''}, fits={list(self.fits)})\n" + (
            self.verdict
        )

    def _repr_html_(self) -> str:
        """Notebook display: the headline, then the verdict lines (every string escaped)."""
        from bayes_pairwise._html import esc, visible

        table = self.headline().to_html(index=False, escape=True, na_rep="–")
        return visible(table, escaped=True) + "<pre>" + esc(self.verdict) + "</pre>"


def _fmt_interval(est: float, lo: float, hi: float) -> str:
    """``est [lo, hi]``; the estimate alone where there is no interval or it has zero width
    (a bootstrap collapsed at the grid's edge: no interval for the verdict either)."""
    if not np.isfinite(est):
        return "–"
    if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"
    return f"{est:.3f}"


def _short_method(method: str) -> str:
    return {
        METHOD_MOMENTS: "moments",
        METHOD_GRID: "Δ_S grid",
        METHOD_GRID_SUM: "Δ_S 2-D grid",
        METHOD_TIES: "observed",
    }.get(method, method)


def _row(quantity, judge, method, estimate, lower=np.nan, upper=np.nan, interval="", **kw):
    return {
        "quantity": quantity,
        "judge": judge,
        "method": method,
        "estimate": float(estimate) if estimate is not None else np.nan,
        "lower": float(lower),
        "upper": float(upper),
        "interval": interval,
        "role": kw.get("role", "classical"),
        "note": kw.get("note", ""),
    }


# =============================================================================== progress
# =============================================================================== seeds
#: The cross-check's stochastic steps; each draws from its own stream.
STREAMS = (
    "models",
    "delta_s",
    "delta_s_2d",
    "biased_bt_spread",
    "leaderboard",
    "diagnostics",
    "ppc_replicates",
    "ppc_statistics",
    "agreement",
    "tie_correlation",  # appended: the streams before it keep their seeds
)
#: The log-level checks (sharp bounds' bootstrap, the identification simulation, the caveats'
#: correlation test) are seeded with ``random_seed`` itself, not a stream: ``fit``, ``compare``,
#: the report and a model's ``caveats_`` then state the same numbers for the same log and seed.


def seed_streams(random_seed: int | None) -> dict[str, int | None]:
    """One independent seed per stochastic step, spawned from ``random_seed`` (the models'
    fits: ``random_seed`` itself).

    ``np.random.SeedSequence(random_seed).spawn(k)`` gives statistically independent streams
    (NumPy's recommended way to seed parallel or successive random work), so the grid fits,
    the samplers, the bootstraps and the predictive checks do not share random numbers as they
    would with one integer reused for each. ``None`` leaves every step unseeded.

    Examples
    --------
    >>> s = seed_streams(7)
    >>> list(s)[:3], len(set(s.values())) == len(s), s == seed_streams(7), s["models"]
    (['models', 'delta_s', 'delta_s_2d'], True, True, 7)
    >>> set(seed_streams(None).values())
    {None}
    """
    if random_seed is None:
        return dict.fromkeys(STREAMS)
    children = np.random.SeedSequence(int(random_seed)).spawn(len(STREAMS))
    streams = {k: int(c.generate_state(1)[0]) for k, c in zip(STREAMS, children, strict=True)}
    # the models draw with the seed itself, as a model fitted alone does: `fit --seed S`,
    # ``Model().fit(data, random_seed=S)``, `compare --seed S` and the report give one posterior
    # (the spawned streams of the other steps are unchanged)
    streams["models"] = int(random_seed)
    return streams


# =============================================================================== classical
def _classical(
    data: Comparisons,
    sink: WarningSink,
    steps: Steps,
    *,
    seed: Mapping[str, int | None],
    delta_s: bool,
    delta_s_2d: bool,
    biased_bt_spread: bool,
    strengths: bool,
    grid_kwargs: Mapping[str, Any],
    progress: bool,
    tie_by: str = "context",
) -> ClassicalFits:
    from bayes_pairwise.caveats import tie_dispersion
    from bayes_pairwise.classical.deltas import DeltaS2DFit, DeltaSFit
    from bayes_pairwise.classical.descriptive import (
        descriptive_by_judge,
        estimate_eps_scom,
        labelled_error_rates,
        positional_moments,
        tie_correlation,
        tie_counts_by_context,
        tie_counts_by_pair,
        tie_position_check,
        wilson_interval,
    )

    # every classical error rate on the models' scale, among decided verdicts: the estimators
    # rescale under the tie policy "model", so data keeping ties counted half are read so too
    if data.tie_policy == "half" and np.any(np.asarray(data.outcome) == 0.5):
        data = dataclasses.replace(data, tie_policy="model")
    steps("classical: S_com, first-position rate, moments")
    with sink.capture(), warnings.catch_warnings():
        # a basis on the pairs decided in both orders: the table's rows and caveats say it
        warnings.simplefilter("ignore", TieRescalingWarning)
        desc = descriptive_by_judge(data)
    scom, moments, delta, delta2d, spread = {}, {}, {}, {}, {}
    skipped: dict[str, dict[str, str]] = {}
    tie_share = {}
    tie_position = {}
    tie_corr: dict[str, Any] = {}
    resampled: dict[str, tuple[str, str]] = {}
    blocks = dict(data.by_judge())
    for j, block in blocks.items():
        skipped[j] = {}
        n = int(block.n_comparisons)
        k = int(np.sum(np.asarray(block.outcome) == 0.5))
        lo, hi = wilson_interval(k, n, level=resolve_hdi_prob()) if n else (math.nan, math.nan)
        tie_share[j] = (k / n if n else math.nan, float(lo), float(hi), k, n)
        with sink.capture(f"{j}: "), warnings.catch_warnings():
            # the rescaled rates' basis moving to the decided pairs: the table's rows say it
            warnings.simplefilter("ignore", TieRescalingWarning)
            try:
                # kept where ε is NaN (S_com above 1/2): the table says why there is none
                scom[j] = estimate_eps_scom(block, on_invalid="nan")
            except DesignError as exc:
                skipped[j]["S_com"] = str(exc)
            try:
                moments[j] = positional_moments(block)
            except DesignError as exc:
                skipped[j]["moments"] = str(exc)
            if k and block.tie_policy == "model":
                tie_position[j] = tie_position_check(block)
            corr = functools.partial(
                tie_correlation,
                level=resolve_hdi_prob(),
                n_boot=N_BOOTSTRAP,
                random_seed=seed["tie_correlation"],
            )
            if k and block.tie_policy == "model" and tie_by == "pair":
                # the order models' tie_rho by pair: the pairs' tie counts, contexts resampled
                ((t_p, n_p, c_p),) = tie_counts_by_pair(block).values()
                tp = corr(t_p, n_p, clusters=c_p)
                if math.isfinite(tp.rho):
                    tie_corr[j] = tp
            paired = j in tie_position and tie_position[j].pairs_cluster
            if k and block.tie_policy == "model" and block.n_contexts > 1:
                ((t_c, n_c),) = tie_counts_by_context(block).values()
                tc = corr(t_c, n_c)
                if math.isfinite(tc.rho) and tie_by == "context":
                    tie_corr[j] = tc
                # where the ties cluster by context (the caveat's rule) or come in pairs (the
                # tie check's) the binomial interval of the share is too narrow: the bootstrap
                # over contexts replaces it (a context holds its pairs)
                by = "context" if any(d.clusters for d in tie_dispersion(block)) else None
                if by or paired:
                    tie_share[j] = (k / n, tc.share_lower, tc.share_upper, k, n)
                    resampled[j] = ("contexts", by or "pair")
            elif paired:  # one context: its pairs resampled
                ((t_p, n_p, _),) = tie_counts_by_pair(block).values()
                tp = corr(t_p, n_p)
                tie_share[j] = (k / n, tp.share_lower, tp.share_upper, k, n)
                resampled[j] = ("pairs", "pair")
    gkw = {"skip_incomplete": True, "n_bootstrap": N_BOOTSTRAP, **dict(grid_kwargs)}
    if delta_s:
        start = steps.per_judge("classical: Δ_S grid fit", list(blocks))
        for j, block in blocks.items():
            start(j)
            with sink.capture(f"Δ_S ({j}): "):
                try:
                    delta[j] = DeltaSFit(random_seed=seed["delta_s"], progress=progress, **gkw).fit(
                        block
                    )
                except DesignError as exc:
                    skipped[j]["Δ_S"] = str(exc)
    if delta_s_2d:
        start = steps.per_judge("classical: 2-D Δ_S grid fit", list(blocks))
        for j, block in blocks.items():
            start(j)
            with sink.capture(f"Δ_S 2-D ({j}): "):
                try:
                    delta2d[j] = DeltaS2DFit(
                        random_seed=seed["delta_s_2d"], progress=progress, **gkw
                    ).fit(block)
                except DesignError as exc:
                    skipped[j]["Δ_S 2-D"] = str(exc)
    if biased_bt_spread:
        from bayes_pairwise.classical.bradley_terry import BiasedBTSpreadSearch

        pooled = data.pool_contexts() if data.has_contexts else data
        start = steps.per_judge("classical: biased-BT spread search", list(pooled.judges))
        for j, block in pooled.by_judge():
            start(j)
            with sink.capture(f"biased-BT ({j}): "):
                try:
                    spread[j] = BiasedBTSpreadSearch(random_seed=seed["biased_bt_spread"]).fit(
                        block
                    )
                except BayesPairwiseError as exc:
                    skipped.setdefault(j, {})["biased-BT spread search"] = str(exc)
    labelled = None
    if data.has_truth:
        with sink.capture("labels: "):
            labelled = labelled_error_rates(data, level=resolve_hdi_prob())
    mm, mm_note = None, ""
    if strengths:
        steps("classical: Bradley–Terry MM strengths (judges pooled)")
        from bayes_pairwise.classical.bradley_terry import BradleyTerry, mm_ridge
        from bayes_pairwise.matrices import win_matrix

        with sink.capture("MM: "):
            try:
                ridge, mm_note = mm_ridge(win_matrix(data).to_numpy(), tuple(data.items))
                mm = BradleyTerry(method="mm", ridge=ridge).fit(data)
                mm_note += ", all judges' verdicts pooled"
            except BayesPairwiseError as exc:
                mm_note = f"MM not available: {exc}"
    return ClassicalFits(
        desc=desc,
        scom=scom,
        moments=moments,
        delta=delta,
        delta2d=delta2d,
        spread=spread,
        skipped=skipped,
        tie_share=tie_share,
        labelled=labelled,
        tie_position=tie_position,
        mm=mm,
        mm_note=mm_note,
        tie_correlation=tie_corr,
        tie_share_resampled=resampled,
        tie_correlation_by=tie_by,
    )


def _tie_rule(data: Comparisons, cf: ClassicalFits) -> str:
    """How this cross-check's classical rates treat ties, in words: the rule
    (:data:`~bayes_pairwise.conventions.CLASSICAL_TIE_RULE`) as it applied to this log — the
    judges whose ties break the rescaling, whose verdict rests on the pairs decided in both
    orders, or the ties dropped, where nothing is counted half."""
    if data.tie_policy == "drop" and data.n_ties_dropped:
        return (
            f"{data.n_ties_dropped:,} tie(s) dropped (ties='drop'): the classical error rates "
            "read the decided verdicts left, S_com and r₁ on the pairs left with a verdict in "
            "both orders; nothing is counted half or rescaled"
        )
    moved = [str(j) for j, c in cf.tie_position.items() if c.rescaling_fails]
    if not moved:
        return CLASSICAL_TIE_RULE
    return (
        f"{CLASSICAL_TIE_RULE}. For {', '.join(moved)}, whose ties break that rescaling (they "
        "depend on where the better text is shown, or come in pairs), the verdict rests on S_com "
        "and the moments of the pairs decided in both orders instead (one decided verdict per "
        "position, no rescaling)"
    )


def _classical_rows(
    cf: ClassicalFits, judges: Sequence[str], *, order_recorded: bool = True
) -> list[dict[str, Any]]:
    """Every classical estimate on the models' scale (error among decided verdicts);
    ``order_recorded`` False: 'first' is a nominal label (the notes say so, not "position")."""
    z = z_value()
    lab = interval_label()
    rows: list[dict[str, Any]] = []
    for j in judges:
        tau, t_lo, t_hi, k, n = cf.tie_share.get(j, (0.0, math.nan, math.nan, 0, 0))
        tau = 0.0 if not np.isfinite(tau) else tau
        tie_note = f"ties counted half, then rescaled with the tie share {tau:.3f}" if k else ""

        check = cf.tie_position.get(j)

        def normal(
            q,
            method,
            eps,
            se,
            extra_note="",
            judge=j,
            tie_note=tie_note,
            check=check,
            how=f"{lab} delta method",
        ):
            # the estimators report the rate among decided verdicts already (ties modelled);
            # a rate below 0 is kept unclipped with its interval, never [0, 0]
            lo, hi = eps - z * se, eps + z * se
            if np.isfinite(eps) and eps < 0:
                why = "below 0: sampling noise around 0"
                if check is not None and check.rescaling_fails:
                    why = "below 0: the tie rescaling does not hold on this log (see below)"
                extra_note = _join(extra_note, why)
            note = _join(extra_note, tie_note)
            if np.isfinite(se):
                return _row(q, judge, method, eps, lo, hi, how, note=note)
            return _row(q, judge, method, eps, note=note)

        if k:
            unit, why = cf.tie_share_resampled.get(j, ("", ""))
            rows.append(
                _row(
                    "tie_rate",
                    j,
                    METHOD_TIES,
                    tau,
                    t_lo,
                    t_hi,
                    f"{lab} bootstrap over {unit}" if unit else f"{lab} Wilson",
                    note=f"{k} of {n} verdicts"
                    + (
                        f"; the ties cluster by {why}, so the interval resamples {unit} "
                        "(Wilson's assumes independent verdicts)"
                        if unit
                        else ""
                    ),
                )
            )
        if j in cf.tie_correlation:
            tc = cf.tie_correlation[j]
            by = cf.tie_correlation_by
            rows.append(
                _row(
                    "tie_rho",
                    j,
                    METHOD_TIE_CORRELATION_PAIR if by == "pair" else METHOD_TIE_CORRELATION,
                    tc.rho,
                    tc.rho_lower,
                    tc.rho_upper,
                    f"{lab} bootstrap over contexts",
                    note=f"{tc.contexts} {by}s; 0 is one tie rate for every {by}",
                )
            )
        moved = check is not None and check.rescaling_fails

        def not_basis(what: str, check: Any = check) -> str:
            return f"not the verdict's basis: {check.reason()}, which {what} does not allow"

        if j in cf.scom:
            s = cf.scom[j]
            said = f"S_com = {s.s_com:.3f}"
            if not np.isfinite(s.eps):  # no value: the row says why, without the tie notes
                if np.isfinite(s.s_com) and s.s_com > 0.5:
                    said += " > 1/2, which no uniform ε gives: the judge favours one " + (
                        "position"
                        if order_recorded
                        else "side of the nominal first/second label (the side it was shown "
                        "first, if the label follows the presentation; the log does not say)"
                    )
                rows.append(_row("eps", j, METHOD_SCOM, math.nan, note=said))
            else:
                if moved:
                    said = _join(said, not_basis("the rescaling for the tie share"))
                rows.append(normal("eps", METHOD_SCOM, s.eps, s.eps_se, said))
        if j in cf.moments:
            m = cf.moments[j]
            # no real solution says so; a rate below 0 gets its own note on its row (normal)
            edge = m.boundary_text() if m.no_real_solution else ""
            if moved:
                edge = _join(edge, not_basis("the rescaling for the tie share"))
            # no real solution: the delta method fails and the SEs come from resampling pairs
            how = f"{lab} bootstrap over pairs" if m.no_real_solution else f"{lab} delta method"
            for q, est, se in (
                ("eps_plus", m.eps_plus, m.eps_plus_se),
                ("eps_minus", m.eps_minus, m.eps_minus_se),
                ("eps_sum", m.eps_sum, m.eps_sum_se),
            ):
                rows.append(normal(q, METHOD_MOMENTS, est, se, edge, how=how))
        if moved and np.isfinite(check.eps_plus):
            # among decided verdicts by construction: no tie rescaling, so no tie_note
            for q, method, est, se in (
                ("eps", METHOD_SCOM_DECIDED, check.eps, check.eps_se),
                ("eps_plus", METHOD_MOMENTS_DECIDED, check.eps_plus, check.eps_plus_se),
                ("eps_minus", METHOD_MOMENTS_DECIDED, check.eps_minus, check.eps_minus_se),
                ("eps_sum", METHOD_MOMENTS_DECIDED, check.eps_sum, check.eps_sum_se),
            ):
                if not np.isfinite(est):  # ε: S_com of those pairs above 1/2
                    continue
                said = f"{check.n_both} pairs; " + check.summary()
                if check.pairs_cluster:
                    said = _join(said, check.pairs_text())
                how = (
                    f"{lab} bootstrap over pairs"
                    if q != "eps" and check.no_real_solution
                    else f"{lab} delta method"
                )
                rows.append(normal(q, method, est, se, said, tie_note="", how=how))

        # Δ_S: the synthetic matrices hold the judge's tie share (ties at random, counted half
        # as the observed ones), so the grid's ε is the error among decided verdicts too
        def grid_note(fit: Any) -> str:
            tau_g = float(getattr(fit, "tie_rate_", 0.0))
            return f"synthetic matrices with the judge's tie share {tau_g:.3f}" if tau_g else ""

        if j in cf.delta:
            g = cf.delta[j]
            lo, hi = g.interval()
            how = f"{lab} bootstrap over {g.n_contexts_} round-robins" if np.isfinite(lo) else ""
            note = f"{g.n_contexts_} round-robin(s) of up to {g.n_} items" + (
                "" if np.isfinite(lo) else "; too few round-robins to resample: no interval"
            )
            note = _join(note, grid_note(g))
            if moved:
                note = _join(note, not_basis("the grid's synthetic matrices (ties at random)"))
            rows.append(_row("eps", j, METHOD_GRID, g.eps_, lo, hi, how, note=note))
        if j in cf.delta2d:
            g2 = cf.delta2d[j]
            lo, hi = g2.interval("eps_sum")
            how = f"{lab} bootstrap over {g2.n_contexts_} round-robins" if np.isfinite(lo) else ""
            rows.append(
                _row(
                    "eps_sum",
                    j,
                    METHOD_GRID_SUM,
                    g2.eps_sum_,
                    lo,
                    hi,
                    how,
                    note=_join(
                        "the one quantity the 2-D grid identifies",
                        grid_note(g2),
                        not_basis("the grid's synthetic matrices (ties at random)")
                        if moved
                        else "",
                    ),
                )
            )
            if g2.eps_plus_hybrid_ is not None:
                for q, attr in (("eps_plus", "eps_plus_hybrid"), ("eps_minus", "eps_minus_hybrid")):
                    lo, hi = g2.interval(attr)
                    rows.append(
                        _row(
                            q,
                            j,
                            METHOD_GRID_SPLIT,
                            getattr(g2, attr + "_"),
                            lo,
                            hi,
                            how,
                            note=_join(
                                "ε₊ + ε₋ from the 2-D grid, split with r₁",
                                grid_note(g2),
                                not_basis(
                                    "the grid's synthetic matrices (ties at random) and r₁ "
                                    "rescaled for the tie share"
                                )
                                if moved
                                else "",
                            ),
                        )
                    )
        if cf.labelled is not None and j in cf.labelled.index:
            r = cf.labelled.loc[j]
            for q, name in (("eps_plus", "plus"), ("eps_minus", "minus")):
                if np.isfinite(r[f"eps_{name}"]):
                    rows.append(
                        _row(
                            q,
                            j,
                            METHOD_LABELS,
                            r[f"eps_{name}"],
                            r[f"eps_{name}_lo"],
                            r[f"eps_{name}_hi"],
                            f"{lab} Wilson",
                            note=f"{int(r[f'errors_{name}'])} errors in {int(r[f'n_{name}'])} "
                            "labelled decided verdicts",
                        )
                    )
        if cf.labelled is not None and j in cf.labelled.index:
            r = cf.labelled.loc[j]
            k_err, n_dec = int(r["errors"]), int(r["n_decided"])
            if n_dec:
                rows.append(
                    _row(
                        "eps",
                        j,
                        METHOD_LABELS,
                        r["eps"],
                        float(r["eps_lo"]),
                        float(r["eps_hi"]),
                        f"{lab} Wilson",
                        note=f"{k_err} errors in {n_dec} labelled decided verdicts",
                    )
                )
        if j in cf.spread:
            s = cf.spread[j]
            rows.append(
                _row(
                    "gamma",
                    j,
                    "biased-BT spread search (paper)",
                    s.mode_,
                    note="mode of ε_opt over restarts; improper model"
                    + ("; at an edge bin (failure mode)" if s.at_edge_ else ""),
                )
            )
    return rows


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


# =============================================================================== models
def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _fit_models(
    data: Comparisons,
    names: Sequence[str],
    method: str,
    seed: Any,
    log_seed: int,
    sink: WarningSink,
    steps: Steps,
    sampler_kwargs: Mapping[str, Any],
    tie_positional: bool = False,
    tie_dispersion: bool | str = False,
) -> tuple[dict[str, Any], dict[str, str]]:
    fits: dict[str, Any] = {}
    errors: dict[str, str] = {}
    try:
        from bayes_pairwise.pymc_models import get_model
    except ImportError as exc:
        return fits, {n: f"the Bayesian models are not available: {exc}" for n in names}
    for name in names:
        if method == "nuts":
            kw = dict(sampler_kwargs)
        elif method == "laplace":  # draws only: nothing is tuned, one chain of iid draws
            kw = {k: v for k, v in sampler_kwargs.items() if k == "draws"}
        else:
            kw = {}
        n_j = data.n_judges
        steps(
            f"Bayesian: fitting {name} ({method.upper()}) to "
            + (f"{n_j} judges jointly" if n_j > 1 else f"judge {data.judges[0]}")
        )
        with sink.capture(f"{name}: "):
            try:
                m = get_model(name, **kw)
                if tie_positional and "tie_positional" in m.get_params():
                    m.set_params(tie_positional=True)
                if tie_dispersion and "tie_dispersion" in m.get_params():
                    m.set_params(tie_dispersion=tie_dispersion)
                # the sampler's own progress bar on a terminal; piped, the step lines only
                bar = {"progress": True} if steps.on and _tty() else {}
                if steps.on and not bar:  # piped: a NUTS progress line every few seconds
                    bar = {"on_progress": steps.note}
                # the fit's caveats from the log-level checks this cross-check made (its seed)
                if getattr(m, "records_caveats", False):
                    bar["caveats_seed"] = log_seed
                m.fit(
                    data,
                    method=method,
                    random_seed=seed,
                    # a progress line per phase (a first compile can take a minute), timed
                    on_step=lambda line, name=name: steps(f"Bayesian: fitting {name}: {line}"),
                    **bar,
                )
                fits[name] = m
            except (BayesPairwiseError, ValueError, RuntimeError, KeyError) as exc:
                errors[name] = f"{type(exc).__name__}: {exc}"
    return fits, errors


def _model_rows(fits: Mapping[str, Any], judges: Sequence[str]) -> list[dict[str, Any]]:
    lab = interval_label()
    rows = []
    for f in fits.values():
        label = _fit_label(f)
        for j in judges:
            for q in MODEL_QUANTITIES:
                st = posterior_stats(f, q, judge=j)
                if st is None:
                    continue
                interval = f"{lab} HDI" if np.isfinite(st[1]) else ""
                rows.append(_row(q, j, label, st[0], st[1], st[2], interval, role="model"))
    return rows


# =============================================================================== agreement
def _agreements(
    table: pd.DataFrame, fits: Mapping[str, Any], rng: np.random.Generator
) -> list[Agreement]:
    z = z_value()
    out: list[Agreement] = []
    classical = table[table.role == "classical"]
    for f in fits.values():
        label = _fit_label(f)
        point = _is_point(f)
        for c in classical.itertuples(index=False):
            draws = posterior_draws(f, c.quantity, judge=c.judge)
            if draws is None:
                continue
            p_mean = float(np.mean(draws))
            st = posterior_stats(f, c.quantity, judge=c.judge)
            p_lo, p_hi = (st[1], st[2]) if st else (math.nan, math.nan)
            # an interval of zero width is none: llmfao's crowd judges had Δ_S grid intervals
            # [0.000, 0.000] (every bootstrap resample at the grid's edge), which decided
            # DISAGREE against an HDI that starts at 0.006
            c_int = bool(np.isfinite(c.lower) and np.isfinite(c.upper) and c.upper > c.lower)
            if not np.isfinite(c.estimate):
                # the model has the rate, the classical method has no value here (e.g. S_com
                # above 1/2 for ε): kept as a row that is not assessed, with the reason, so the
                # headline and the verdict say so instead of leaving the rate out
                overlap, gap, d_lo, d_hi = None, math.nan, math.nan, math.nan
                basis = NO_CLASSICAL_ESTIMATE + (f": {c.note}" if c.note else "")
            elif point:
                if c_int:
                    gap = max(0.0, c.lower - p_mean, p_mean - c.upper)
                    overlap = gap <= AGREEMENT_TOLERANCE
                    basis = "MAP point inside the classical interval"
                else:
                    overlap, gap = None, abs(p_mean - c.estimate)
                    basis = "no verdict: neither the MAP nor the classical point has an interval"
                d_lo = d_hi = math.nan
            else:
                c_lo, c_hi = (c.lower, c.upper) if c_int else (c.estimate, c.estimate)
                gap = max(0.0, c_lo - p_hi, p_lo - c_hi)
                overlap = gap <= AGREEMENT_TOLERANCE
                basis = "posterior HDI and classical interval overlap"
                if not c_int:
                    # a classical point whose sampling error is not known (the Δ_S grid on
                    # fewer than five round robins: llmfao's crowd judges, one round robin of a
                    # few items, a grid value at 0.000) cannot show a disagreement: shown, with
                    # the distance to the HDI, but not assessed (as a MAP point against it)
                    overlap = None
                    basis = "no verdict: the classical point has no interval"
                se = (c.upper - c.lower) / (2 * z) if c_int else 0.0
                diff = draws - rng.normal(c.estimate, se, size=draws.size)
                prob = resolve_hdi_prob()
                d_lo, d_hi = np.quantile(diff, [(1 - prob) / 2, (1 + prob) / 2])
            out.append(
                Agreement(
                    judge=c.judge,
                    quantity=c.quantity,
                    model=label,
                    classical=c.method,
                    classical_estimate=float(c.estimate),
                    classical_lower=float(c.lower),
                    classical_upper=float(c.upper),
                    posterior_mean=p_mean,
                    posterior_lower=float(p_lo),
                    posterior_upper=float(p_hi),
                    overlap=overlap,
                    gap=float(gap),
                    difference=p_mean - float(c.estimate),
                    difference_lower=float(d_lo),
                    difference_upper=float(d_hi),
                    primary=(c.quantity, c.method) in PRIMARY,
                    basis=basis,
                )
            )
    return out


#: The basis of an agreement row whose classical method gives no value for this judge.
NO_CLASSICAL_ESTIMATE = "no classical estimate"

#: The rates that depend on which text was shown first: not a verdict's basis where the log
#: does not record the presentation order (:attr:`~bayes_pairwise.data.Comparisons.order_recorded`).
POSITION_RATES = ("eps_plus", "eps_minus", "eps_sum")
ORDER_NOT_RECORDED_BASIS = (
    "Basis: ε and the tie rate only — the presentation order was not recorded ('first' is a "
    "nominal label), so ε₊, ε₋ and ε₊ + ε₋ mean nothing here and are shown for reference; "
    "the uniform model's ε needs no order."
)

#: The classical estimators of error rates (keys of :attr:`ClassicalFits.skipped`).
RATE_ESTIMATORS = ("S_com", "moments", "Δ_S", "Δ_S 2-D")

#: The error-rate quantities a verdict must rest on (the tie rate alone is not enough).
ERROR_RATES = ("eps", "eps_plus", "eps_minus", "eps_sum")


#: Added to an AGREE or DISAGREE where the identification check finds the log's errors
#: correlated within pairs (``Identification.correlated``): the agreement is on rates both
#: sides read low.
CORRELATED_VERDICT = (
    "; and the identification check finds this log's errors correlated within pairs (more "
    "wrong verdicts than independent errors give, on its transitivity), so both sides read "
    "the error rates low: gold labels on some pairs (plan-labels picks them) measure by how much."
)

#: What an AGREE or DISAGREE is about where no gold label informs the rates: the two sides
#: agree (or not) on the order-inconsistent errors, not on the judge's error rate.
_ON_ORDER_INCONSISTENT = (
    " on the order-inconsistent error rates (no gold labels: errors repeated in both orders "
    "are invisible to both sides, so the error rates can be higher)"
)


def _verdicts(
    agreement: pd.DataFrame,
    judges: Sequence[str],
    caveats: Mapping[str, Sequence[str]],
    skipped: Mapping[str, Mapping[str, str]] | None = None,
    short: Mapping[str, tuple[int, int]] | None = None,
    unlabelled: Collection[str] = (),
) -> list[JudgeVerdict]:
    """One verdict per judge from its primary agreement rows; ``skipped``: per judge, the
    classical estimators that gave nothing and why (said where no error rate is left);
    ``short``: judges with too few pairs seen in both orders and no gold labels (verdicts,
    pairs; :func:`~bayes_pairwise.caveats.short_of_pairs`), whose intervals are compared and
    shown but decide no verdict: the too-few-verdicts caveat says their numbers are not
    findings, and an AGREE between intervals that wide would be one. A judge whose assessed
    rows include the Δ_S grid keeps its verdict: the grid's interval resamples whole round
    robins and needs no pair in both orders. ``unlabelled``: judges whose rates no gold label
    informs, whose AGREE or DISAGREE is about the order-inconsistent error rates and says so
    (an AGREE on a judge that errs on hard pairs in both orders read as a clean bill)."""
    lab = interval_label()
    out = []
    for j in judges:
        a = agreement[(agreement.judge == j) & agreement.primary] if len(agreement) else agreement
        # a rate is "not assessed" only where no classical method assessed it (bard on PRD:
        # ε against the Δ_S grid, while S_com above 1/2 gives none)
        unassessed_rows = (
            a[
                a.overlap.isna()
                & a.quantity.isin(ERROR_RATES)
                & ~a.quantity.isin(a.loc[a.overlap.notna(), "quantity"])
            ].drop_duplicates("quantity")
            if len(a)
            else a
        )
        unassessed = list(unassessed_rows.quantity) if len(unassessed_rows) else []
        a = a[a.overlap.notna()] if len(a) else a
        cav = tuple(caveats.get(j, ()))
        # error rates compared but not the basis (e.g. ε₊, ε₋ where the order was not recorded)
        mine = agreement[agreement.judge == j] if len(agreement) else agreement
        aside = (
            list(dict.fromkeys(mine[~mine.primary & mine.quantity.isin(ERROR_RATES)].quantity))
            if len(mine)
            else []
        )
        aside_text = (
            "the rates compared ("
            + ", ".join(SYMBOLS.get(q, q) for q in aside)
            + ") are not the verdict's basis here"
        )
        if not (len(a) and a.quantity.isin(ERROR_RATES).any()):
            # no error rate compared: no verdict on what the judge gets wrong (the tie rate
            # alone never decides); the sentence says why
            on_rates = bool(unassessed) or len(a) > 0
            by_reason: dict[str, list[str]] = {}  # the classical estimators that gave nothing
            for k, v in (skipped or {}).get(j, {}).items():
                if k in RATE_ESTIMATORS:
                    by_reason.setdefault(v, []).append(k)
            if unassessed:
                reason = (
                    "; ".join(_unassessed_text(unassessed_rows))
                    if unassessed_rows.basis.str.startswith(NO_CLASSICAL_ESTIMATE).any()
                    else "the classical estimate of "
                    + ", ".join(SYMBOLS.get(q, q) for q in unassessed)
                    + " has no interval here (at the boundary of its range, or too few "
                    "verdicts), so agreement cannot be judged"
                )
            elif aside:
                reason = aside_text
            elif len(a) or by_reason:  # the models' rates stand alone: say why
                why = "; ".join(f"{', '.join(ks)}: {v}" for v, ks in by_reason.items())
                reason = "no classical estimate of ε, ε₊ or ε₋ for this judge" + (
                    f" ({why})" if why else ""
                )
            else:
                reason = (
                    "no model estimate has a classical counterpart here (fit the uniform or "
                    "positional model; the Δ_S grid needs complete round-robins)"
                )
            ties = (
                "; the tie rates " + ("agree" if a.overlap.astype(bool).all() else "disagree")
                if len(a)
                else ""
            )
            out.append(
                JudgeVerdict(
                    judge=j,
                    verdict="NO VERDICT",
                    gap=math.nan,
                    text=f"{j}: NO VERDICT {'on the error rates ' if on_rates else ''}— "
                    + reason
                    + ties
                    + ".",
                    n_primary=len(a),
                    n_overlap=int(a.overlap.astype(bool).sum()) if len(a) else 0,
                    caveats=cav,
                )
            )
            continue
        point = a.basis.str.startswith("MAP").all()
        parts = []
        # a quantity two models estimate differently (the tie rate of the uniform and the
        # positional model): each named, so that the sentence does not give two values
        # unlabelled; "differently" as printed, the interval included (judging_the_judges'
        # gemini-pro: tie rate 0.030 [0.020, 0.040] and 0.030 [0.021, 0.041], unnamed)
        shown = a.assign(
            _cell=[
                _fmt_interval(m, lo, hi)
                for m, lo, hi in zip(
                    a.posterior_mean, a.posterior_lower, a.posterior_upper, strict=True
                )
            ]
        )
        values = shown.groupby("quantity")["_cell"].nunique()
        for r in a.itertuples(index=False):
            sym = SYMBOLS.get(r.quantity, r.quantity)
            if values.get(r.quantity, 1) > 1:  # "uniform (Laplace approx.)" → "uniform, …"
                name = str(r.model)
                name = name[:-1].replace(" (", ", ", 1) if name.endswith(")") else name
                sym = f"{sym} ({name})"
            model = _fmt_interval(r.posterior_mean, r.posterior_lower, r.posterior_upper)
            clas = _fmt_interval(r.classical_estimate, r.classical_lower, r.classical_upper)
            mark = "" if r.overlap else f" ✗ gap {r.gap:.3f}"
            if r.overlap and r.gap > 0:  # apart, but closer than the grids resolve
                mark = f" (apart by {r.gap:.3f}, within the {AGREEMENT_TOLERANCE:g} tolerance)"
            parts.append(f"{sym} {model} vs {_short_method(r.classical)} {clas}{mark}")
        ok = a.overlap.astype(bool)
        n_ok = int(ok.sum())
        agree = n_ok == len(a)
        gap = float(a.gap.max())
        how = (
            f"MAP point vs classical {lab} interval"
            if point
            else f"model {lab} HDI vs classical {lab} interval"
        )
        parts = list(dict.fromkeys(parts))  # two models share the tie-rate row: say it once
        few = (short or {}).get(j)
        if few is not None and a.classical.isin(GRID_METHODS).any():
            # the Δ_S grid's interval resamples whole round robins and needs no pair in both
            # orders: a one-order design of many round robins keeps its verdict
            few = None
        if few is not None:
            n_v, n_both = few
            verdict, gap = "NO VERDICT", math.nan
            head = (
                f"{j}: NO VERDICT on the error rates — {n_both} pair"
                f"{'' if n_both == 1 else 's'} seen in both orders in {n_v} verdicts, fewer "
                f"than the {MIN_PAIRS_TO_SAY} S_com and the moments need (too few verdicts to "
                "say); "
                f"compared ({how}): "
            )
        elif agree:
            verdict = "AGREE"
            head = f"{j}: AGREE{_ON_ORDER_INCONSISTENT * (j in unlabelled)} ({how}) — "
        else:
            verdict = "DISAGREE"
            bad = ", ".join(SYMBOLS.get(q, q) for q in a.loc[~ok, "quantity"].drop_duplicates())
            head = (
                f"{j}: DISAGREE on {bad}, largest gap {gap:.3f}"
                f"{_ON_ORDER_INCONSISTENT * (j in unlabelled)} ({how}) — "
            )
        if unassessed:
            parts.extend(_unassessed_text(unassessed_rows))
        out.append(
            JudgeVerdict(
                judge=j,
                verdict=verdict,
                gap=gap,
                text=head + "; ".join(parts) + ".",
                n_primary=len(a),
                n_overlap=n_ok,
                caveats=cav,
            )
        )
    return out


def _unassessed_text(rows: pd.DataFrame) -> list[str]:
    """Why each error rate in ``rows`` (agreement rows with no overlap judged) is not assessed:
    the classical method gave no value (with its reason), or a value without an interval."""
    out, plain = [], []
    for r in rows.itertuples(index=False):
        sym = SYMBOLS.get(r.quantity, r.quantity)
        if r.basis.startswith(NO_CLASSICAL_ESTIMATE):
            model = _fmt_interval(r.posterior_mean, r.posterior_lower, r.posterior_upper)
            why = r.basis[len(NO_CLASSICAL_ESTIMATE) :].lstrip(": ")
            out.append(
                f"{sym} {model} not assessed: {_short_method(r.classical)} gives no estimate"
                + (f" ({why})" if why else "")
            )
        else:
            plain.append(sym)
    if plain:
        out.append(", ".join(plain) + " not assessed (no classical interval)")
    return out


def _caveats(
    data: Comparisons,
    fits: Mapping[str, Any],
    seed: int,
    identified: Mapping[str, Any],
    tie_checks: Mapping[str, Any],
    tie_positional: bool = False,
    moments: Mapping[str, Any] | None = None,
) -> tuple[list[str], dict[str, list[str]]]:
    """What the data cannot show (:func:`bayes_pairwise.caveats.caveats_for`): for the whole
    cross-check (each text once) and per judge. ``identified`` holds the identification the
    headline states (:func:`~bayes_pairwise.identification.what_the_log_shows`), so the caveat
    repeats its number instead of simulating again; ``tie_checks`` the classical fits' tie
    position checks (:attr:`ClassicalFits.tie_position`) and ``moments`` its moments
    (:attr:`ClassicalFits.moments`), neither computed again per model kind;
    ``tie_positional``: the models fit one tie rate per position (the caveat says so); the
    models with ``tie_dispersion`` let the tie rate vary by context or by pair (so do the
    caveats)."""
    from bayes_pairwise.caveats import (
        FIT_CAVEATS,
        MODEL_KINDS,
        caveats_for,
        dispersion_kwargs,
        merge_per_judge,
    )

    def kind(f: Any) -> str:  # the model's own caveat kind (difficulty variants), else its family
        return str(getattr(f, "caveat_kind", None) or str(getattr(f, "name", "")).split("_")[0])

    kinds = ["classical"] + [kind(f) for f in fits.values() if kind(f) in MODEL_KINDS]
    dispersion = dispersion_kwargs(fits)
    general: list[str] = []
    per: dict[str, list[str]] = {}
    said_by: list[tuple[str, Any]] = []  # (judge, caveat): those with a shared explanation
    for j, block in data.by_judge():
        per[j] = []
        said: dict[str, Any] = {}  # the identification statement: once per judge, not per kind
        for kind in dict.fromkeys(kinds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if not said and not block.has_truth:
                    if j in identified:
                        said["text"] = (identified[j].text, identified[j].status)
                    else:
                        from bayes_pairwise.caveats import identification_text

                        said["text"] = identification_text(block, random_seed=seed)
                found = caveats_for(
                    block,
                    model_kind=kind,
                    random_seed=seed,
                    identified=said.get("text"),
                    tie_checks=tie_checks,
                    moments=moments,
                    tie_positional=tie_positional,
                    **dispersion,
                )
            for c in found:
                if c.text not in per[j]:
                    per[j].append(c.text)
                if c.text not in general:
                    general.append(c.text)
                if c.shared:
                    said_by.append((str(j), c))
    # a caveat several judges got, each with its own numbers, is said once for them all: the
    # numbers judge by judge, the explanation once (judging_the_judges: 7 judges' ties cluster)
    merged = merge_per_judge(said_by)
    if merged:
        for j in per:
            per[j] = list(dict.fromkeys(merged.get((j, t), t) for t in per[j]))
        owner = {t: m for (_, t), m in merged.items()}
        general = list(dict.fromkeys(owner.get(t, t) for t in general))
    # a fit's own caveats (caveats.FIT_CAVEATS: a MAP's or Laplace fit's joint mode, a NUTS
    # fit's long trajectories), for the judges they name
    for f in fits.values():
        for c in getattr(f, "caveats_", None) or ():
            if c.code not in FIT_CAVEATS:
                continue
            if c.text not in general:
                general.append(c.text)
            for j in c.judges or tuple(per):
                if j in per and c.text not in per[j]:
                    per[j].append(c.text)
    return general, per


def sampler_settings(
    model: str, defaults: Mapping[str, int], given: Mapping[str, int | None]
) -> dict[str, int]:
    """NUTS settings of a command with defaults of its own (the report's): each of ``given``
    where set, else the model spec's own (its file's ``[sampler]``, not the base file's: a
    spec that needs longer runs keeps them), else ``defaults``.

    Examples
    --------
    >>> sampler_settings("uniform", {"draws": 500}, {"draws": None})
    {'draws': 500}
    >>> sampler_settings("uniform_difficulty", {"draws": 500}, {"draws": None})
    {'draws': 3000}
    """
    from bayes_pairwise.model_specs import available_models, load_spec

    own = load_spec(model).own_sampler if model in available_models() else {}
    out = {}
    for key, value in given.items():
        if value is None:
            value = own.get(key, defaults[key])
            if not isinstance(value, int):  # a spec's "auto" chains: the command's own
                value = defaults[key]
        out[key] = int(value)
    return out


# =============================================================================== pipeline
def models_to_fit(models: Sequence[str] | None, model: str | None = None) -> list[str]:
    """The model names :func:`crosscheck` fits for ``models`` and ``model``.

    ``model`` is added to ``models``, except an order model (the hard-truth limit a strength
    model's class declares, ``hard_truth_limit``: ``uniform_order`` for ``uniform``,
    ``positional_order`` for ``positional``): asked for because the strength models are slow
    on a nearly hard truth, it turns every strength model of ``models`` into its limit instead
    of being fitted beside them (``compare --model positional_order`` fitted uniform and
    positional too: 14 minutes on the QLoRA log instead of one).

    Examples
    --------
    >>> models_to_fit(("uniform", "positional"), "biased_bt")
    ['uniform', 'positional', 'biased_bt']
    >>> models_to_fit(("uniform", "positional"), "positional_order")
    ['uniform_order', 'positional_order']
    >>> models_to_fit(("uniform",), "positional_order")
    ['uniform_order', 'positional_order']
    """
    names = list(models or ())
    if model:
        limits = {n: _hard_truth_limit(n) for n in names}
        if model in {_hard_truth_limit(n) for n in ("uniform", "positional")}:
            names = [limits[n] or n for n in names]
        names.append(model)
    return list(dict.fromkeys(names))


def _hard_truth_limit(name: str) -> str | None:
    """The order model a model spec's class declares as its hard-truth limit, or None."""
    from bayes_pairwise.pymc_models import get_model

    try:
        return type(get_model(name)).__dict__.get("hard_truth_limit")
    except (BayesPairwiseError, KeyError, ValueError):  # an unknown name: the fit says so
        return None


def crosscheck(
    data: Comparisons,
    *fits: Any,
    models: Sequence[str] | None = ("uniform", "positional"),
    model: str | None = None,
    method: str = "nuts",
    truth: Any = None,
    random_seed: int | None = 0,
    delta_s: bool = True,
    delta_s_2d: bool | None = None,
    biased_bt_spread: bool = True,
    strengths: bool = True,
    leaderboard: bool = True,
    ppc: bool = False,
    ppc_draws: int = 1000,
    diagnostics: bool = True,
    progress: bool = False,
    grid_kwargs: Mapping[str, Any] | None = None,
    tie_positional: bool = False,
    tie_dispersion: bool | str = False,
    **sampler_kwargs: Any,
) -> CrossCheck:
    """Classical vs Bayesian estimates for every judge, their agreement and a verdict.

    Parameters
    ----------
    data : Comparisons
        Used unchanged by every estimator (see the module's rules).
    *fits : fitted models, optional
        Already-fitted models; when given, ``models`` / ``model`` are not fitted.
    models : sequence of str, optional
        Model spec names to fit (default uniform and positional); ``()`` for classical only.
    model : str, optional
        One more model to fit (e.g. ``"biased_bt"``). An order model (``"uniform_order"``,
        ``"positional_order"``) instead takes the place of the strength models: ``models``
        are fitted as their hard-truth limits (:func:`models_to_fit`).
    method : {"nuts", "map", "laplace"}
        How the models are fitted: NUTS, the posterior mode, or the fast Laplace
        approximation (labelled as such in the table and the caveats).
    truth : SyntheticComparisons, optional
        Adds the realised error rates of a synthetic draw.
    random_seed : int, optional
        Seeds the grid fits and their bootstrap, the samplers and the predictive checks: each
        step draws from its own stream, spawned from it (:func:`seed_streams`, recorded in
        ``settings["seed_streams"]``).
    delta_s, delta_s_2d, biased_bt_spread, strengths : bool
        Which classical fits to run. ``delta_s_2d`` left at None runs the 2-D Δ_S grid (the
        slowest classical fit, seconds per judge) except with ``method="laplace"``: the fast
        path skips it, with a note.
    leaderboard : bool
        Rank the items: the classical Bradley–Terry leaderboard (bootstrap of
        :data:`~bayes_pairwise.conventions.LEADERBOARD_N_BOOT` replicates) of all judges
        pooled and, with two judges or more, one per judge (bootstrap of
        :data:`~bayes_pairwise.conventions.JUDGE_BOARDS_N_BOOT` replicates) and the Kendall τ
        of each against the reference (see :attr:`CrossCheck.judge_agreement`).
    ppc : bool
        Draw posterior predictive checks (S_com, first-position rate, Δ_S curve) per judge.
    ppc_draws : int
        Replicates for them.
    diagnostics : bool
        Run the models' convergence diagnostics.
    progress : bool
        A line per step on stderr.
    grid_kwargs : mapping, optional
        Settings of the Δ_S fits (e.g. ``n_subsets``).
    tie_positional : bool
        Fit the error models with one tie rate per position of the better text (every model
        that takes ``tie_positional``; ``compare --tie-positional``): where the log's ties
        depend on that position (the caveat ``ties_depend_on_position`` says so).
    tie_dispersion : bool or {"context", "pair"}
        Fit the models that take ``tie_dispersion`` (the order models; ``compare
        --tie-dispersion [context|pair]``) with a tie rate that varies by context (``True``):
        where the log's ties cluster by question (the caveat ``ties_cluster_by_context`` says
        so); or by pair (``"pair"``): where a pair tied in one order is tied in the other
        more often than chance (the caveat ``tie_position`` says so). The classical row
        beside ``tie_rho`` groups the ties the same way.
    **sampler_kwargs
        ``draws``, ``tune``, ``chains`` … for the models.

    Returns
    -------
    CrossCheck

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(12, eps=0.15, random_seed=1)
    >>> cc = crosscheck(sim.data, models=["uniform"], method="map", truth=sim,
    ...                 delta_s_2d=False, biased_bt_spread=False, strengths=False,
    ...                 grid_kwargs={"n_subsets": 20})
    >>> cc.verdicts["verdict"].tolist()
    ['AGREE']
    """
    if method not in ("nuts", "map", "laplace"):
        raise ValueError(f"method must be 'nuts', 'map' or 'laplace', got {method!r}")
    if not isinstance(data, Comparisons):
        raise TypeError(
            f"crosscheck expects a Comparisons (bp.load_comparisons or bp.datasets.load), got "
            f"{type(data).__name__}"
        )
    tie_by = tie_dispersion_group(tie_dispersion) or "context"  # checked before any fit
    steps = Steps(progress, prefix="crosscheck")
    sink = WarningSink()
    seeds = seed_streams(random_seed)  # an independent stream per stochastic step
    rng = np.random.default_rng(seeds["agreement"])
    judges = tuple(data.judges)

    # ---------------------------------------------------------------- what the log can show
    from bayes_pairwise.identification import what_the_log_shows

    steps("what the log can show: sharp bounds, identification")
    log_seed = 0 if random_seed is None else int(random_seed)
    shows = what_the_log_shows(data, random_seed=log_seed)
    correlated = {
        j: r.correlation
        for j, r in shows["identification"].items()
        if r.correlation is not None and r.correlation.get("correlated")
    }

    # ---------------------------------------------------------------- models
    if fits:
        fitted = {getattr(f, "name", None) or f"fit{k}": f for k, f in enumerate(fits)}
        fit_errors: dict[str, str] = {}
    else:
        names = models_to_fit(models, model)
        if correlated and names and not any(n in DIFFICULTY_MODELS for n in names):
            names.append(DIFFICULTY_MODELS[0])  # the verdict's model (see below)
        fitted, fit_errors = _fit_models(
            data,
            names,
            method,
            seeds["models"],
            log_seed,
            sink,
            steps,
            sampler_kwargs,
            tie_positional=tie_positional,
            tie_dispersion=tie_dispersion,
        )
    from bayes_pairwise.pymc_models.diagnostics import tie_handling

    ties = {
        name: tie_handling(f)
        for name, f in fitted.items()
        if getattr(f, "settings_", None) is not None
    }

    # ---------------------------------------------------------------- classical
    skip_2d = delta_s_2d is None and method == "laplace"
    delta_s_2d = (method != "laplace") if delta_s_2d is None else bool(delta_s_2d)
    cf = _classical(
        data,
        sink,
        steps,
        seed=seeds,
        delta_s=delta_s,
        delta_s_2d=delta_s_2d,
        biased_bt_spread=biased_bt_spread,
        strengths=strengths,
        grid_kwargs=dict(grid_kwargs or {}),
        progress=progress,
        tie_by=tie_by,
    )

    # ---------------------------------------------------------------- leaderboards
    pooled_board, boards, agreement_tau, ranking_notes = (
        _rankings(data, seeds["leaderboard"], sink, steps) if leaderboard else (None, {}, None, [])
    )

    # ---------------------------------------------------------------- diagnostics and PPC
    diag: dict[str, Any] = {}
    ppcs: dict[str, dict[str, pd.DataFrame]] = {}
    for name, f in fitted.items():
        if diagnostics and hasattr(f, "idata_"):
            steps(f"diagnostics: {name}")
            from bayes_pairwise.pymc_models.diagnostics import diagnose

            with sink.capture(f"diagnostics ({name}): "):
                try:
                    diag[name] = diagnose(f, random_seed=seeds["diagnostics"], ppc=False)
                except (BayesPairwiseError, ValueError, KeyError, TypeError) as exc:
                    sink.other.append(f"diagnostics of {name} not computed: {exc}")
        if ppc and hasattr(f, "idata_"):
            steps(f"posterior predictive checks: {name}")
            from bayes_pairwise.pymc_models.ppc import ppc_data

            ppcs[name] = {}
            if hasattr(f, "sample_posterior_predictive"):
                with sink.capture(f"posterior predictive ({name}): "):
                    try:
                        f.sample_posterior_predictive(random_seed=seeds["ppc_replicates"])
                    except (BayesPairwiseError, ValueError, RuntimeError) as exc:
                        sink.other.append(f"no replicates from {name}: {exc}")
            for j in judges:
                with sink.capture(f"predictive checks ({name}, {j}): "):
                    try:
                        ppcs[name][j] = ppc_data(
                            f,
                            data,
                            judge=j if data.n_judges > 1 else None,
                            n_draws=ppc_draws,
                            random_seed=seeds["ppc_statistics"],
                        )
                    except (ValueError, KeyError) as exc:
                        sink.other.append(f"predictive checks of {name} for {j} not drawn: {exc}")

    # ---------------------------------------------------------------- model checking
    comparison, comparison_note = _model_comparison(fitted, sink, steps)
    likely, likely_note = _likely_errors(data, fitted, sink, steps)
    copeland = None
    with sink.capture("Copeland: "):
        try:
            copeland = copeland_summary(data)
        except (BayesPairwiseError, ValueError) as exc:
            sink.other.append(f"Copeland ranking not computed: {exc}")

    # ---------------------------------------------------------------- table and agreement
    steps("cross-check: agreement and verdicts")
    rows = _classical_rows(cf, judges, order_recorded=data.order_recorded)
    rows += _model_rows(fitted, judges)
    tie_rule = _tie_rule(data, cf)
    notes: list[str] = [f"Tie rule: {tie_rule}."] if data.n_ties else []
    if skip_2d:
        notes.append(
            "The 2-D Δ_S grid fit was skipped on the fast path (--fast); run without --fast "
            "(or pass delta_s_2d=True) for it."
        )
    if strengths and cf.mm is not None:
        rows.extend(_strength_rows(cf, fitted, data))
    if truth is not None:
        rows.extend(_truth_rows(truth, judges))
    table = pd.DataFrame(rows, columns=COLUMNS)
    correct_score = _correct_score_curves(table, judges)
    figures = {}
    for name, f in fitted.items():
        if hasattr(f, "idata_") or hasattr(f, "to_inference_data"):
            steps(f"figures: {name}")
            with sink.capture(f"figures ({name}): "):
                try:
                    figures[name] = _fit_figures(
                        f,
                        data=data,
                        table=table,
                        diag=diag.get(name),
                        ppcs=ppcs.get(name, {}),
                        mm=cf.mm,
                        truth=truth,
                    )
                except (BayesPairwiseError, ValueError, KeyError, TypeError) as exc:
                    sink.other.append(f"figures of {name} not computed: {exc}")
    ags = _agreements(table, fitted, rng)
    agreement = pd.DataFrame([asdict(a) for a in ags], columns=list(Agreement.__dataclass_fields__))
    verdict_model, verdict_note = _verdict_model(fitted, fit_errors, correlated, method)
    agreement = _primary_rows(
        agreement, cf, fitted, verdict_model, order_recorded=data.order_recorded
    )
    by_position = any(getattr(f, "tie_positional", False) for f in fitted.values())
    general, per_judge = _caveats(
        data,
        fitted,
        log_seed,
        shows["identification"],
        cf.tie_position,
        by_position,
        moments=cf.moments,
    )
    if any(getattr(f, "method_", None) == "laplace" for f in fitted.values()):
        general.insert(0, LAPLACE_CAVEAT)
        for texts in per_judge.values():
            texts.insert(0, LAPLACE_CAVEAT)
    from bayes_pairwise.caveats import (
        ceiling_stats,
        one_position_judges,
        short_of_pairs,
        text_blind_judges,
    )

    short = short_of_pairs(data, unlabelled_only=True)
    one_position = {j: where for j, (where, _) in one_position_judges(data).items()}
    blind = {
        j: (found.point, found.upper, found.z)
        for j, found in text_blind_judges(data, checks=cf.tie_position, moments=cf.moments).items()
    }
    from bayes_pairwise.plot_data import ceiling_data

    ceiling = ceiling_data(
        {
            j: found
            for j, block in data.without_weights().by_judge()
            if (found := ceiling_stats(block, cf.tie_position, cf.moments)) is not None
        },
        text_blind=blind,
    )
    if pooled_board is not None and blind and data.n_judges > 1:
        counts = ", ".join(
            f"{j} ({data.for_judge(j).n_comparisons:,} of {data.n_comparisons:,})" for j in blind
        )
        ranking_notes = [
            *ranking_notes,
            f"the pooled board counts the verdicts of {counts}, which the log cannot tell from "
            "verdicts that ignore the texts (the caveat 'verdicts the log cannot tell from "
            "text-blind ones'): read the pooled board beside the other judges' own boards, "
            "which do not count them",
        ]
    # where the identification check finds the log's errors correlated within pairs, the
    # verdict says so: both sides read the order-inconsistent rates, which such errors keep low
    correlated = {
        str(j)
        for j, r in shows["identification"].items()
        if r.correlated and r.basis == "transitivity"
    }
    labelled_judges = {str(k) for k in cf.labelled.index} if cf.labelled is not None else set()
    verdicts = pd.DataFrame(
        [
            asdict(v)
            for v in _verdicts(
                agreement,
                judges,
                per_judge,
                cf.skipped,
                short,
                unlabelled=[str(j) for j in judges if str(j) not in labelled_judges],
            )
        ],
        columns=list(JudgeVerdict.__dataclass_fields__),
    )
    said_low = verdicts.judge.astype(str).isin(correlated) & verdicts.verdict.isin(
        ["AGREE", "DISAGREE"]
    )
    verdicts.loc[said_low, "text"] = [
        t.rstrip(".") + CORRELATED_VERDICT for t in verdicts.loc[said_low, "text"]
    ]
    from bayes_pairwise.identification import fit_estimand, rate_convergence

    estimands = {name: fit_estimand(f) for name, f in fitted.items()}
    convergence = {name: rate_convergence(f) for name, f in fitted.items()}
    verdicts = _say_basis(
        verdicts,
        cf,
        verdict_model,
        verdict_note,
        convergence,
        fitted,
        order_recorded=data.order_recorded,
        beyond=_beyond_rates(data, cf),
        alone=tuple(one_position),
        blind=blind,
    )
    if verdict_note:
        notes.append(verdict_note)
    for name, t in ties.items():
        if t.get("handling") == "model":
            notes.append(
                f"{name}: {t.get('n_ties_modelled', 0)} tie(s) modelled as an outcome "
                "(tie_rate reported, nothing dropped)"
            )
        elif t.get("handling") == "dropped" and data.n_ties:
            notes.append(
                f"{name}: ties dropped by the model (ties='drop'); its error rates are still "
                "rates among decided verdicts, the scale of the classical rows"
            )
    for j, why in cf.skipped.items():
        notes.extend(f"{what} skipped for {j}: {msg}" for what, msg in why.items())
    steps.close()
    settings = {
        "data": data.settings(),
        "models": list(fitted),
        "method": method,
        "random_seed": random_seed,
        "seed_streams": seeds,
        "hdi_prob": resolve_hdi_prob(),
        "tie_rule": tie_rule,
        "n_bootstrap": N_BOOTSTRAP,
        "ppc_draws": ppc_draws if ppc else 0,
        "n_bootstrap_leaderboard": LEADERBOARD_N_BOOT if leaderboard else 0,
        "n_bootstrap_judge_leaderboards": JUDGE_BOARDS_N_BOOT if leaderboard else 0,
        "grid_kwargs": dict(grid_kwargs or {}),
        "tie_positional": bool(tie_positional),
        "tie_dispersion": tie_dispersion if tie_dispersion == "pair" else bool(tie_dispersion),
        **{k: v for k, v in sampler_kwargs.items()},
    }
    no_verdict = set(verdicts.judge[verdicts.verdict == "NO VERDICT"])
    return CrossCheck(
        data=data,
        truth=truth,
        classical=cf,
        fits=fitted,
        table=table,
        agreement=agreement,
        verdicts=verdicts,
        diagnostics=diag,
        ppc=ppcs,
        tie_handling=ties,
        fit_errors=fit_errors,
        notes=notes,
        warnings=sink.as_dict(),
        caveats=general,
        timings=dict(steps.times),
        settings=settings,
        leaderboard=pooled_board,
        judge_leaderboards=boards,
        judge_agreement=agreement_tau,
        ranking_notes=ranking_notes,
        model_comparison=comparison,
        model_comparison_note=comparison_note,
        likely_errors=likely,
        likely_errors_note=likely_note,
        bounds=shows["bounds"],
        identification=shows["identification"],
        estimand=estimands,
        convergence=convergence,
        verdict_model=verdict_model,
        verdict_model_note=verdict_note,
        copeland=copeland,
        correct_score=correct_score,
        figures=figures,
        short_of_pairs={j: v for j, v in short.items() if j in no_verdict},
        text_blind=blind,
        one_position=one_position,
        ceiling=ceiling,
    )


# =============================================================================== labels decide
def _verdict_model(
    fitted: Mapping[str, Any],
    fit_errors: Mapping[str, str],
    correlated: Mapping[str, Any],
    method: str,
) -> tuple[str | None, str]:
    """The fit the verdict rests on when the labelled pairs show within-pair correlation: the
    pair-difficulty one (independent-error models read the labelled pairs' hard share into the
    unlabelled pairs wrongly). None when every fit counts."""
    if not correlated:
        return None, ""
    c = next(iter(correlated.values()))
    why = (
        f"the labelled pairs show within-pair correlation (both orders wrong on "
        f"{c['both_wrong']} of {c['n_pairs']} labelled pairs vs {c['expected']:.1f} expected "
        f"under independent errors, one-sided Fisher p = {c['p_value']:.3g})"
    )
    name = next((n for n in fitted if n in DIFFICULTY_MODELS), None)
    if name is not None:
        return name, f"Verdict rests on {name}: {why}; the other fits are shown for reference."
    reason = next((fit_errors[n] for n in DIFFICULTY_MODELS if n in fit_errors), "")
    return None, (
        f"The verdict should rest on a pair-difficulty model: {why}; none was fitted"
        + (f" ({reason})" if reason else f" (method {method!r})")
        + ", so the verdict compares every fit with the labelled rates."
    )


def _primary_rows(
    agreement: pd.DataFrame,
    cf: ClassicalFits,
    fitted: Mapping[str, Any],
    verdict_model: str | None,
    *,
    order_recorded: bool = True,
) -> pd.DataFrame:
    """With labels, the labelled rates are the verdict's basis (issue 25); with a verdict model
    only its rows count; where the presentation order was not recorded, no position rate
    (ε₊, ε₋, ε₊ + ε₋) does. Other rows stay, as reference."""
    if not len(agreement):
        return agreement
    out = agreement.copy()
    if not order_recorded:
        out.loc[out.quantity.isin(POSITION_RATES), "primary"] = False
    moved = [j for j, c in cf.tie_position.items() if c.rescaling_fails]
    if moved:  # the tie rescaling fails: the statistics of pairs decided in both orders decide
        mine = out.judge.isin([str(j) for j in moved])
        decided = out.classical.isin([METHOD_MOMENTS_DECIDED, METHOD_SCOM_DECIDED])
        for q in ("eps", "eps_plus", "eps_minus", "eps_sum"):
            rows = mine & (out.quantity == q)
            if (rows & decided).any():  # S_com of those pairs above 1/2 leaves ε without one
                out.loc[rows, "primary"] = (out.classical[rows]).isin(
                    [METHOD_MOMENTS_DECIDED, METHOD_SCOM_DECIDED]
                )
    if cf.labelled is not None:
        lab = out.judge.isin([str(j) for j in cf.labelled.index])
        keys = list(zip(out.quantity, out.classical, strict=True))
        in_lab = np.array([k in PRIMARY_LABELLED for k in keys])
        has_lab_rows = out.groupby("judge")["classical"].transform(
            lambda c: bool((c == METHOD_LABELS).any())
        )
        use = lab & has_lab_rows.astype(bool)
        out.loc[use, "primary"] = in_lab[use.to_numpy()]
    if verdict_model is not None and verdict_model in fitted:
        label = _fit_label(fitted[verdict_model])
        out.loc[out.model != label, "primary"] = False
    return out


def _beyond_rates(data: Comparisons, cf: ClassicalFits) -> dict[str, Any]:
    """The judges whose S_com is above what any (ε₊, ε₋) give, with the statistics that show
    it (:func:`~bayes_pairwise.caveats.position_preference_check`), unless labelled."""
    from bayes_pairwise.caveats import position_preference_check

    out = {}
    for j, block in data.by_judge():
        if block.has_truth:
            continue
        found = position_preference_check(block, cf.tie_position, cf.moments)
        if found is not None:
            out[str(j)] = found
    return out


def _say_basis(
    verdicts: pd.DataFrame,
    cf: ClassicalFits,
    verdict_model: str | None,
    note: str,
    convergence: Mapping[str, Mapping[str, Any]],
    fitted: Mapping[str, Any],
    *,
    order_recorded: bool = True,
    beyond: Mapping[str, Any] | None = None,
    alone: Sequence[str] = (),
    blind: Mapping[str, tuple[float, float, float]] | None = None,
) -> pd.DataFrame:
    """Verdict sentences say what they rest on: the labelled rates, the verdict's model, a
    failed convergence of the rates (issue 25), no position rate where the presentation
    order was not recorded, and no rates at all for a judge in ``beyond`` (judge → its
    :func:`~bayes_pairwise.caveats.position_preference_check`); a judge in ``alone`` (its
    decided verdicts all pick one position) or in ``blind`` (judge → 1 − ε₊ − ε₋, its upper
    end and the test's z, where the log cannot tell its verdicts from ones that ignore the
    texts) says so."""
    if not len(verdicts):
        return verdicts
    out = verdicts.copy()
    texts = []
    name = verdict_model if verdict_model is not None else next(iter(fitted), None)
    conv = (convergence.get(name) or {}).get("text", "") if name else ""
    for v in out.itertuples(index=False):
        t = str(v.text)
        if cf.labelled is not None and str(v.judge) in {str(j) for j in cf.labelled.index}:
            t += " Basis: the labelled error rates (gold labels settle it)."
        elif (chk := cf.tie_position.get(str(v.judge))) is not None and chk.rescaling_fails:
            t += (
                " Basis for ε, ε₊, ε₋ and ε₊ + ε₋: S_com and the moments on the pairs decided in "
                f"both orders — {chk.reason()}, so the statistics rescaled for the tie share and "
                "the Δ_S grids (ties at random) are not comparable."
            )
        if not order_recorded:
            t += " " + ORDER_NOT_RECORDED_BASIS
        if (found := (beyond or {}).get(str(v.judge))) is not None:
            s_com, r1, _ = found.ceiling_numbers()
            t += (
                f" No ε₊ and ε₋ describe this judge's verdicts: its S_com {s_com:.3f} is above "
                f"the {found.s_com_ceiling:.3f} that any rates give at its first-position rate "
                f"{r1:.3f} (z = {found.s_com_excess_z:.1f}; the caveat 'no error rates "
                "describe' says why), so both columns fit rates this judge does not have."
            )
        if str(v.judge) in alone:
            t += (
                " Its decided verdicts all pick one position (the caveat 'verdicts by position "
                "alone'): they say nothing about the texts, whatever the columns read."
            )
        if (found := (blind or {}).get(str(v.judge))) is not None:
            j_, hi, _ = found
            t += (
                " The log cannot tell its verdicts from ones that ignore the texts (the caveat "
                f"'verdicts the log cannot tell from text-blind ones'): 1 − ε₊ − ε₋ = {j_:.2f}, "
                f"at most {hi:.2f}, so neither an agreement nor the rates show that it reads "
                "the texts."
            )
        if note:
            t += " " + note
        if conv:
            t = f"{conv}. " + t
        texts.append(t)
    out["text"] = texts
    return out


def _model_comparison(
    fits: Mapping[str, Any], sink: WarningSink, steps: Steps
) -> tuple[pd.DataFrame | None, str]:
    """PSIS-LOO comparison of the NUTS-fitted error models (``None`` and why, otherwise)."""
    if len(fits) < 2:
        return None, (
            "one model fitted: a LOO comparison needs two or more (e.g. models=('uniform', "
            "'positional'))"
        )
    if all(_is_point(f) for f in fits.values()):
        return None, LOO_NEEDS_DRAWS + " (the fits are MAP point estimates)."
    if all(getattr(f, "method_", None) == "laplace" for f in fits.values()):
        return None, (
            "LOO needs NUTS draws: the fits are Laplace approximations (--fast); run without "
            "--fast for the model comparison."
        )
    usable = {
        n: f
        for n, f in fits.items()
        if getattr(f, "observed_name", "") == "wins"
        and not _is_point(f)
        and getattr(f, "method_", "nuts") != "laplace"
    }
    left = [n for n in fits if n not in usable]
    left_note = (
        f"left out: {', '.join(left)} (MAP point estimates, Laplace approximations or a "
        "per-verdict likelihood, not on the pair-row unit)"
        if left
        else ""
    )
    if len(usable) < 2:
        return None, _join("no LOO comparison: fewer than two NUTS-fitted error models", left_note)
    steps("model checking: PSIS-LOO comparison of " + ", ".join(usable))
    try:
        with sink.capture("LOO: "):
            table = compare_fitted(usable)
    except DesignError as exc:
        return None, f"no LOO comparison: {exc}"
    note = _join(
        "PSIS-LOO of the joint fit (all judges, shared strengths); unit: "
        + str(table.attrs.get("unit_text", "one (judge, unordered pair) row")),
        left_note,
    )
    return table, note


def _likely_errors(
    data: Comparisons, fits: Mapping[str, Any], sink: WarningSink, steps: Steps
) -> tuple[pd.DataFrame | None, str]:
    """The verdicts most likely wrong under the primary fit, per judge."""
    name, fit = next(iter(fits.items()), (None, None))
    if fit is None:
        return None, "no model fitted: no per-verdict error probabilities"
    if getattr(fit, "observed_name", "") not in ("wins", "contexts"):
        return None, (
            f"{name} has no latent true outcome per pair: per-verdict error probabilities need "
            "an error model (uniform, positional, their variants or the order models)"
        )
    steps(f"per-verdict error probabilities ({name})")
    from bayes_pairwise.pymc_models.verdicts import most_likely_errors

    try:
        with sink.capture(f"verdict errors ({name}): "):
            table = most_likely_errors(fit.verdict_errors(data), per_judge=LIKELY_ERRORS_PER_JUDGE)
    except (BayesPairwiseError, ValueError, KeyError) as exc:
        return None, f"no per-verdict error probabilities from {name}: {exc}"
    how = (
        "at the MAP point (a plug-in value, no posterior averaging)"
        if _is_point(fit)
        else "averaged over the posterior draws"
    )
    return table, (
        "p_error: probability that the verdict contradicts the latent true "
        + ("order of its context" if fit.observed_name == "contexts" else "outcome")
        + f" under {_fit_label(fit)}, {how}; the {LIKELY_ERRORS_PER_JUDGE} highest per judge "
        "(ties have none)"
    )


#: The earlier name of :func:`crosscheck` (kept so that existing notebooks and scripts run).
compare = crosscheck


def pooled_judges(data: Comparisons) -> Comparisons:
    """All verdicts as one judge's, named :data:`POOLED` (a single judge's data stay as they
    are): the data of the cross-check's pooled leaderboard, and of ``leaderboard
    --pool-judges``.

    Examples
    --------
    >>> from bayes_pairwise import datasets
    >>> pooled_judges(datasets.load("prd_vicuna80")).judges
    ('all judges pooled',)
    """
    return data if data.n_judges == 1 else data.pool_judges(POOLED)


def _rankings(
    data: Comparisons, seed: Any, sink: WarningSink, steps: Steps
) -> tuple[Any, dict[str, Any], pd.DataFrame | None, list[str]]:
    """The pooled leaderboard, one per judge and their Kendall τ against the reference."""
    from bayes_pairwise.leaderboard import judge_agreement, judge_leaderboards, rank_grouping
    from bayes_pairwise.leaderboard import leaderboard as rank_items

    group_by, how = rank_grouping(data)
    if group_by == "skip":
        return None, {}, None, [how]
    notes = [how] if how else []
    kw = {"model": "bt", "group_by": group_by, "n_boot": LEADERBOARD_N_BOOT}
    seed = None if seed is None else int(seed)
    steps("classical: Bradley–Terry leaderboard (judges pooled)")
    pooled = None
    with sink.capture("leaderboard: "):
        try:
            pooled = rank_items(pooled_judges(data), random_seed=seed, **kw)
        except BayesPairwiseError as exc:
            notes.append(f"no pooled leaderboard: {exc}")
    if data.n_judges < 2:
        return pooled, {}, None, notes
    # a seed of its own per judge (judge_leaderboards): the bootstraps are independent, as
    # judge_agreement's τ interval assumes
    with sink.capture("leaderboard (per judge): "):
        boards, missing = judge_leaderboards(
            data,
            random_seed=seed,
            skip_errors=True,
            on_judge=steps.per_judge(
                "classical: Bradley–Terry leaderboard", [str(j) for j in data.judges]
            ),
            **{**kw, "n_boot": JUDGE_BOARDS_N_BOOT},  # as leaderboard --agreement-with
        )
    notes.extend(f"no leaderboard for judge {j}: {why}" for j, why in missing.items())
    human = [j for j in boards if j.strip().lower() == HUMAN_JUDGE]
    if human:
        reference = human[0]
        ref_note = (
            f"Reference: the human judge {reference!r}; each other judge's leaderboard is "
            "compared with the humans' ranking."
        )
        compared = boards
    else:
        reference = POOLED
        ref_note = (
            f"No human reference: no judge is named {HUMAN_JUDGE!r}, so each judge's leaderboard "
            "is compared with the leaderboard of all judges pooled, which contains that judge's "
            "own verdicts (τ leans towards 1)."
        )
        compared = {**boards, POOLED: pooled} if pooled is not None else {}
    if len(compared) < 2 or reference not in compared:
        notes.append("no judge agreement table: fewer than two leaderboards to compare")
        return pooled, boards, None, notes
    steps("classical: judges' agreement (Kendall τ)")
    table = None
    try:
        table = judge_agreement(compared, reference)
        table.attrs["reference"] = reference
        table.attrs["reference_note"] = ref_note
    except BayesPairwiseError as exc:
        notes.append(f"no judge agreement table: {exc}")
    notes.append(ref_note)
    return pooled, boards, table, notes


def _strength_rows(
    cf: ClassicalFits, fits: Mapping[str, Any], data: Comparisons
) -> list[dict[str, Any]]:
    from bayes_pairwise.classical.agreement import spearman_rho

    rows = []
    mm = cf.mm.strengths_
    ctx = pd.Series(np.asarray(data.item_context), index=list(data.items))

    def centre(s: pd.Series) -> pd.Series:
        return s - s.groupby(ctx.reindex(s.index).to_numpy()).transform("mean")

    for f in fits.values():
        post = getattr(_idata_of(f), "posterior", None)
        if post is None or "strength" not in post:
            continue
        da = post["strength"].mean(("chain", "draw"))
        dim = next(iter(da.dims))
        s = pd.Series(np.asarray(da), index=[str(v) for v in da.coords[dim].values])
        s = s.reindex(list(data.items))
        if s.isna().any():
            continue
        a, b = centre(mm), centre(s)
        label = _fit_label(f)
        rows.append(
            _row(
                "strength_spearman",
                "all",
                f"MM vs {label}",
                spearman_rho(a, b, tie_rtol=STRENGTH_TIE_RTOL),
                role="strengths",
                note=cf.mm_note,
            )
        )
    return rows


def _truth_rows(truth: Any, judges: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for j in judges:
        for q, attr in (
            ("eps", "realised_eps"),
            ("eps_plus", "realised_eps_plus"),
            ("eps_minus", "realised_eps_minus"),
        ):
            v = getattr(truth, attr, None)
            if v is not None and np.isfinite(v):
                nominal = getattr(truth, q, None)
                rows.append(
                    _row(
                        q,
                        j,
                        METHOD_TRUTH,
                        v,
                        role="truth",
                        note=f"nominal {nominal}" if nominal is not None else "",
                    )
                )
    return rows


# =============================================================================== figure numbers
# The numbers of the report's tables and figures, computed here (through
# :mod:`bayes_pairwise.plot_data`) so that the report and the plots only draw them.
#: Judges whose P(R_m, TO) curves the cross-check computes (the report draws these).
CORRECT_SCORE_JUDGES = 6
#: True ranks m and the largest N of the P(R_m, TO) curves (the paper's Figure 1).
CORRECT_SCORE_RANKS = tuple(range(1, 9))
CORRECT_SCORE_N_MAX = 100
#: Which estimate of a judge's error rates the P(R_m, TO) curves use, first available wins.
CORRECT_SCORE_SOURCES = (
    # present only where a judge's ties depend on the better text's position: the basis there
    (("eps_plus", "eps_minus"), METHOD_MOMENTS_DECIDED, "moments, pairs decided in both orders"),
    (("eps_plus", "eps_minus"), METHOD_MOMENTS, "moments"),
    (("eps",), METHOD_GRID, "Δ_S grid"),
    (("eps",), METHOD_SCOM, "S_com"),
)
#: Model variables the headline's forest sets against a classical method.
FOREST_CLASSICAL = {"eps_plus": METHOD_MOMENTS, "eps_minus": METHOD_MOMENTS, "eps": METHOD_SCOM}
#: Where a judge's ties depend on the better text's position, the forest's method instead.
FOREST_DECIDED = {METHOD_MOMENTS: METHOD_MOMENTS_DECIDED, METHOD_SCOM: METHOD_SCOM_DECIDED}


@dataclass(frozen=True)
class FitFigures:
    """The numbers of one fit's tables and figures in the report (renderers only draw them).

    Attributes
    ----------
    parameters : DataFrame or None
        The :func:`~bayes_pairwise.pymc_models.diagnostics.diagnose` table with the per-item
        rows (``strength[…]``, ``z[…]``) collapsed to their worst R-hat / ESS.
    judge_forest : DataFrame or None
        :func:`~bayes_pairwise.plot_data.judge_forest_data` of every error variable per judge,
        with the classical estimates of :data:`FOREST_CLASSICAL` (two judges or more).
    strengths : DataFrame or None
        :func:`~bayes_pairwise.plot_data.strength_forest_data` of every item (unsorted), with
        the MM strengths.
    bt_vs_posterior : DataFrame or None
        :func:`~bayes_pairwise.plot_data.bt_vs_posterior_data` (MM strengths available).
    ranks : DataFrame or None
        :func:`~bayes_pairwise.plot_data.order_rank_data` of a hard-truth (order) model: its
        posterior ranks pooled by item name beside each judge's Copeland score share.
    posterior : dict
        :func:`~bayes_pairwise.plot_data.posterior_vs_grid_data` per judge, and under ``""``
        the parameters shared by all judges, with the cross-check's classical (and synthetic)
        values.
    ppc : DataFrame or None
        Per judge and statistic: observed value, mean and sd of the replicates, the p-value
        P(rep > obs) + ½P(rep = obs) and ``extreme`` (p < 0.025 or p > 0.975 with 20
        replicates or more).
    notes : dict
        Why a figure has no numbers (by its attribute name).
    """

    parameters: pd.DataFrame | None = None
    judge_forest: pd.DataFrame | None = None
    strengths: pd.DataFrame | None = None
    bt_vs_posterior: pd.DataFrame | None = None
    ranks: pd.DataFrame | None = None
    posterior: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    ppc: pd.DataFrame | None = None
    notes: Mapping[str, str] = field(default_factory=dict)


def copeland_summary(data: Comparisons) -> pd.DataFrame:
    """Every judge's Copeland ranking, summarised for the report.

    Without contexts: the Copeland scores S_i = Σ_j w_ij per judge and their ``mean``, sorted
    by the mean (best first). With contexts: per item name and judge, the ``"<judge>: mean
    rank"`` (1 = best) over the contexts and ``"<judge>: ranked 1st"`` (the number of contexts
    where it ranked first), sorted by the first column. ``attrs["by"]`` is ``"item"`` or
    ``"name"``.

    Parameters
    ----------
    data : Comparisons

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(4, eps=0.0, random_seed=1)
    >>> t = copeland_summary(sim.data)
    >>> t.index[0] == sim.true_order[0], t.attrs["by"]
    (True, 'item')
    """
    from bayes_pairwise.classical.descriptive import copeland_ranking

    per = {j: copeland_ranking(block) for j, block in data.by_judge()}
    if data.has_contexts:
        cols = {}
        for j, r in per.items():
            g = r.reset_index(drop=True).groupby("item", sort=False)
            cols[(j, "mean rank")] = g["rank"].mean()
            cols[(j, "ranked 1st")] = g["rank"].apply(lambda x: int((x == 1).sum()))
        df = pd.DataFrame(cols)
        df.columns = [f"{a}: {b}" for a, b in df.columns]
        df = df.sort_values(df.columns[0])
        df.index.name = "item name"
        df.attrs["by"] = "name"
        return df
    scores = pd.DataFrame({j: r["score"] for j, r in per.items()})
    scores["mean"] = scores.mean(axis=1)
    scores = scores.sort_values("mean", ascending=False)
    scores.index.name = "item"
    scores.attrs["by"] = "item"
    return scores


def _correct_score_curves(table: pd.DataFrame, judges: Sequence[str]) -> dict[str, pd.DataFrame]:
    """P(R_m, TO) vs N (exact and the paper's form) at each judge's classical error rates (the
    first of :data:`CORRECT_SCORE_SOURCES` available), for the first
    :data:`CORRECT_SCORE_JUDGES` judges that have one; ``attrs`` hold the rates (clipped to
    [0, 1]), ``source`` and ``estimates`` (the unclipped values)."""
    from bayes_pairwise.plot_data import correct_score_data

    out: dict[str, pd.DataFrame] = {}
    classical = table[table.role == "classical"]
    for j in judges:
        if len(out) >= CORRECT_SCORE_JUDGES:
            break
        for qs, method, src in CORRECT_SCORE_SOURCES:
            t = classical[(classical.judge == j) & (classical.method == method)]
            t = t.set_index("quantity")["estimate"]
            if all(q in t.index and np.isfinite(t[q]) for q in qs):
                est = {q: float(t[q]) for q in qs}
                rates = {q: min(max(v, 0.0), 1.0) for q, v in est.items()}
                df = correct_score_data(
                    **({"eps": None} if "eps" not in rates else {}),
                    **rates,
                    ranks=CORRECT_SCORE_RANKS,
                    n_max=CORRECT_SCORE_N_MAX,
                    methods=("exact", "paper"),
                )
                df.attrs["source"] = src
                df.attrs["estimates"] = est
                out[j] = df
                break
    return out


def _parameter_table(diag: Any) -> pd.DataFrame | None:
    """The diagnostics table with per-item rows (strength, z) collapsed to their worst."""
    t = getattr(diag, "table", None)
    if not isinstance(t, pd.DataFrame):
        return None
    idx = pd.Series(t.index.astype(str), index=t.index)
    # eps_simplex rows repeat eps_plus / eps_minus (and 1 minus both): shown once
    hidden = idx.str.match(r"^(strength|z)\[")
    if idx.str.match(r"^eps_plus(\[|$)").any():
        hidden |= idx.str.startswith("eps_simplex")
    shown = t[~hidden.to_numpy()].copy()
    for c in shown.columns:  # boolean flags may become NA in the collapsed rows
        if shown[c].dtype == bool:
            shown[c] = shown[c].astype(object)
    for name in ("strength", "z"):
        sel = t[idx.str.startswith(f"{name}[").to_numpy()]
        if not len(sel):
            continue
        row = {c: np.nan for c in t.columns}
        for c in ("ess_bulk", "ess_tail"):
            if c in sel:
                row[c] = sel[c].min()
        if "r_hat" in sel:
            row["r_hat"] = sel["r_hat"].max()
        for c in ("rhat_ok", "ess_ok", "ok"):
            if c in sel:
                vals = sel[c]
                row[c] = pd.NA if vals.isna().all() else bool(vals.fillna(False).all())
        shown.loc[f"{name} (worst of {len(sel)} items)"] = row
    return shown


def _ppc_summary(ppcs: Mapping[str, pd.DataFrame]) -> pd.DataFrame | None:
    """One row per judge and statistic of the :func:`~bayes_pairwise.plot_data.ppc_data`
    tables: observed, mean and sd of the replicates, the p-value and whether it is extreme."""
    from bayes_pairwise.pymc_models.diagnostics import ppc_summary_row
    from bayes_pairwise.pymc_models.ppc import TIE_STATISTICS

    rows = []
    for judge, df in ppcs.items():
        stats: dict[str, tuple[float, np.ndarray]] = {}
        for name in ("s_com", "first_position_rate", *TIE_STATISTICS):
            sub = df[df["statistic"] == name]
            if len(sub):
                stats[name] = (float(sub["observed"].iloc[0]), sub["replicated"].to_numpy(float))
        curve = df[df["statistic"] == "delta_s"]
        if len(curve):
            area = curve.groupby("draw")["replicated"].sum().to_numpy(float)
            obs = float(curve[curve["draw"] == curve["draw"].iloc[0]]["observed"].sum())
            stats["delta_s_area"] = (obs, area)
        given = df.attrs.get("p_value", {})  # ppc_data's own p-values where it has them
        for name, (obs, rep) in stats.items():
            rows.append(ppc_summary_row(judge, name, obs, rep, given.get(name)))
    return pd.DataFrame(rows) if rows else None


def ppc_extreme_rule() -> str:
    """When a predictive-check row is flagged, in words: the cross-check's door to
    :func:`~bayes_pairwise.pymc_models.diagnostics.ppc_extreme_rule` (the rule its summary
    rows were made with), for the report's caption.

    Examples
    --------
    >>> ppc_extreme_rule().startswith("p < 0.025")
    True
    """
    from bayes_pairwise.pymc_models.diagnostics import ppc_extreme_rule as rule

    return rule()


def ppc_misfit_lines(summary: pd.DataFrame | None) -> list[str]:
    """What the extreme rows of a predictive-check summary say, one sentence per judge: the
    cross-check's door to :func:`~bayes_pairwise.pymc_models.diagnostics.ppc_misfit_lines`
    (``diagnose`` says the same sentences), for the report to render.

    Examples
    --------
    >>> ppc_misfit_lines(None)
    []
    """
    from bayes_pairwise.pymc_models.diagnostics import ppc_misfit_lines as lines

    return lines(summary)


def _classical_lines(table: pd.DataFrame) -> list[tuple[str, dict[str, dict[str, float]]]]:
    """The classical and synthetic-truth estimates of the error variables, one
    ``(label, {judge: {variable: value}})`` per method, for the posterior density panels."""
    from bayes_pairwise.plot_data import ERROR_VARIABLES

    t = table[
        (table.role.isin(["classical", "truth"]))
        & table.quantity.isin([q for q in ERROR_VARIABLES if q != "gamma"])
        & (table.method != METHOD_TIES)
        & np.isfinite(table.estimate.astype(float))
    ]
    out = []
    for method, rows in t.groupby("method", sort=False):
        vals: dict[str, dict[str, float]] = {}
        for r in rows.itertuples(index=False):
            vals.setdefault(str(r.judge), {})[str(r.quantity)] = float(r.estimate)
        out.append((str(method), vals))
    return out


def _fit_figures(
    fit: Any,
    *,
    data: Comparisons,
    table: pd.DataFrame,
    diag: Any,
    ppcs: Mapping[str, pd.DataFrame],
    mm: Any,
    truth: Any,
) -> FitFigures:
    """The numbers of one fit's figures (see :class:`FitFigures`)."""
    from bayes_pairwise import plot_data as pd_

    notes: dict[str, str] = {}
    idata = pd_.as_inference_data(fit)
    post = idata.posterior
    judges = tuple(data.judges)
    in_fit = [str(v) for v in post.coords["judge"].values] if "judge" in post.coords else []
    err_vars = [v for v in pd_.ERROR_VARIABLES if v in post.data_vars]
    per_judge = [v for v in err_vars if "judge" in post[v].dims]
    shared = [v for v in err_vars if "judge" not in post[v].dims]
    forest = None
    if len(in_fit) > 1 and per_judge:
        cols = {}
        for v, method in FOREST_CLASSICAL.items():
            keep = (table.role == "classical") & (table.quantity == v) & (table.method == method)
            t = table[keep]
            if len(t):
                cols[v] = t.set_index("judge")["estimate"].astype(float)
            if method in FOREST_DECIDED:  # the verdict's basis where ties depend on position
                basis = table[
                    (table.role == "classical")
                    & (table.quantity == v)
                    & (table.method == FOREST_DECIDED[method])
                ].set_index("judge")["estimate"]
                if len(basis) and v in cols:
                    cols[v] = basis.astype(float).combine_first(cols[v])
        classical = pd.DataFrame(cols).reindex([str(j) for j in judges]) if cols else None
        try:
            forest = pd_.judge_forest_data(idata, var_names=per_judge, classical=classical)
        except ValueError as exc:
            notes["judge_forest"] = str(exc)
    strengths = bt = None
    if "strength" in post.data_vars:
        try:
            strengths = pd_.strength_forest_data(idata, mm, sort=False)
            if mm is not None:
                bt = pd_.bt_vs_posterior_data(idata, mm, strengths=strengths)
        except (ValueError, KeyError) as exc:
            notes["strengths"] = str(exc)
    ranks = None
    if hasattr(type(fit), "ranks_by_name_"):  # the hard-truth models rank, not estimate
        try:
            ranks = pd_.order_rank_data(fit, data)
        except (ValueError, KeyError) as exc:
            notes["ranks"] = str(exc)
    lines = _classical_lines(table)
    panels: dict[str, pd.DataFrame] = {}
    if shared:
        nominal = [truth] if truth is not None and {"w", "gamma"} & set(shared) else []
        try:
            panels[""] = pd_.posterior_vs_grid_data(idata, *lines, *nominal, var_names=shared)
        except ValueError as exc:
            notes["posterior"] = str(exc)
    for j in judges:
        by_judge = j in in_fit
        try:
            panels[j] = pd_.posterior_vs_grid_data(
                idata, *lines, var_names=per_judge or None, judge=j if by_judge else None
            )
        except ValueError as exc:
            notes[f"posterior {j}"] = str(exc)
    return FitFigures(
        parameters=_parameter_table(diag) if diag is not None else None,
        judge_forest=forest,
        strengths=strengths,
        bt_vs_posterior=bt,
        ranks=ranks,
        posterior=panels,
        ppc=_ppc_summary(ppcs),
        notes=notes,
    )
