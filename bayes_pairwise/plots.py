"""Plots of the classical and Bayesian estimates; every plot has a ``*_data`` twin.

Each figure comes in two halves (DESIGN: "every number a plot shows can also be had as data"):

* ``<name>_data(...)`` returns the numbers as a tidy :class:`pandas.DataFrame` (no Matplotlib
  import, no drawing). These live in :mod:`bayes_pairwise.plot_data`, the compute side of the
  plots, and are re-exported here under the same names;
* ``plot_<name>(..., ax=None, **options)`` draws them and returns what it drew on (one
  :class:`~matplotlib.axes.Axes`, or an array of them for multi-panel figures). Pass ``ax`` (or
  ``axes``) to draw into an existing figure; all options are keyword-only. Given ``data=`` (a
  ``*_data`` table, e.g. one the cross-check stored in
  :attr:`~bayes_pairwise.crosscheck.CrossCheck.figures`) a plot draws that table and computes
  nothing: this is how the report draws. This module imports nothing from ``classical``,
  ``pymc_models``, ``matrices`` or ``simulate`` (``tests/test_architecture.py``).

===============================  ===============================================================
plot                             shows
===============================  ===============================================================
:func:`plot_delta_s_curve`       observed Δ_S–n curve and the fitted synthetic curve (Δ_S fit)
:func:`plot_misfit_curve`        misfit over the ε grid of a 1-D Δ_S fit
:func:`plot_misfit_heatmap`      2-D misfit surface over (ε₊, ε₋), with its identifiability caveat
:func:`plot_correct_score`       P(R_m, TO) vs N: the paper's Figure 1 "non-scalability" curves
:func:`plot_posterior_vs_grid`   posterior densities of ε, ε₊, ε₋, γ, w with classical estimates
:func:`plot_strength_forest`     item strengths: posterior mean + HDI, MM estimate overlaid
:func:`plot_judge_forest`        several judges' ε₊ / ε₋ (one row per judge)
:func:`plot_ppc`                 posterior predictive checks: S_com, first-position rate, Δ_S
:func:`plot_trace`               trace / rank plots of the error parameters (ArviZ)
:func:`plot_bt_vs_posterior`     Bradley–Terry MM strengths vs posterior means
:func:`plot_rank_probabilities`  leaderboard: P(rank = k) per item (numbers:
                                 :func:`rank_probability_data`, from
                                 :mod:`bayes_pairwise.leaderboard`)
:func:`plot_order_ranks`         the order models' posterior share of its context each item
                                 name beats, beside each judge's Copeland score share
===============================  ===============================================================

Inputs are duck-typed: a *model or InferenceData* is an :class:`arviz.InferenceData`, a fitted
model with an ``idata_`` attribute, or anything with ``to_inference_data()`` (MAP, grid and MM
fits are one-chain, one-draw posteriors with the same variable names). Classical estimates are
the package's result objects (:class:`~bayes_pairwise.classical.descriptive.ScomEstimate`,
:class:`~bayes_pairwise.classical.descriptive.PositionalMoments`,
:class:`~bayes_pairwise.classical.deltas.DeltaSFit`,
:class:`~bayes_pairwise.classical.deltas.DeltaS2DFit`, a MAP fit, a
:class:`~bayes_pairwise.simulate.SyntheticComparisons` for the *realised* error rates), a mapping
``{variable: value}``, or a ``(label, estimate)`` pair to name the source.

User-supplied labels (item ids, judge names, contexts, source names) are drawn as plain text:
``$`` is escaped so that Matplotlib never interprets them as mathtext, bidi controls and other
invisible characters are shown as ``<U+XXXX>``, and labels longer than :data:`LABEL_MAX_CHARS`
are shortened with a "…" (the ``*_data`` tables keep the full ids), so a long id never changes
a figure's size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import resolve_hdi_prob
from bayes_pairwise.plot_data import (
    ERROR_VARIABLES,
    PPC_STATISTIC_NAMES,
    PPC_STATISTICS,
    as_inference_data,
    bt_vs_posterior_data,
    correct_score_data,
    delta2d_split,
    delta_s_curve_data,
    judge_forest_data,
    misfit_curve_data,
    misfit_heatmap_data,
    order_rank_data,
    panel_name,
    posterior_entries,
    posterior_vs_grid_data,
    ppc_data,
    rank_probability_data,
    sbc_rank_data,
    select_strengths,
    strength_forest_data,
    trace_data,
    trace_variables,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from bayes_pairwise.data import Comparisons
    from bayes_pairwise.leaderboard import Leaderboard
    from bayes_pairwise.model_checking import SBCResult

__all__ = [
    "ERROR_VARIABLES",
    "PPC_STATISTICS",
    "as_inference_data",
    "bt_vs_posterior_data",
    "correct_score_data",
    "delta2d_split",
    "delta_s_curve_data",
    "judge_forest_data",
    "misfit_curve_data",
    "misfit_heatmap_data",
    "order_rank_data",
    "plot_bt_vs_posterior",
    "plot_ceiling",
    "plot_correct_score",
    "plot_delta_s_curve",
    "plot_judge_forest",
    "plot_misfit_curve",
    "plot_misfit_heatmap",
    "plot_order_ranks",
    "plot_posterior_vs_grid",
    "plot_ppc",
    "plot_rank",
    "plot_rank_probabilities",
    "plot_sbc_ranks",
    "plot_strength_forest",
    "plot_trace",
    "posterior_vs_grid_data",
    "ppc_data",
    "rank_probability_data",
    "short_label",
    "strength_forest_data",
    "trace_data",
]

#: Longest label (characters) drawn from a user id: tick labels, legend entries, title parts.
#: Longer ids are shortened with a middle "…" so that a figure keeps its size; the full ids are
#: in the ``*_data`` tables.
LABEL_MAX_CHARS = 40

_VAR_TEX = {
    "eps": "ε",
    "eps_plus": "ε₊ (better shown first)",
    "eps_minus": "ε₋ (better shown second)",
    "gamma": "γ (first-position shift)",
    "w": "w (covariate effect)",
    "strength": "strength",
}

# one colour / line style per kind of source, shared by every panel
_SOURCE_STYLES = [
    ("#d62728", "--"),
    ("#2ca02c", "-."),
    ("#9467bd", ":"),
    ("#ff7f0e", (0, (5, 1))),
    ("#8c564b", (0, (3, 1, 1, 1))),
    ("#e377c2", (0, (1, 1))),
    ("#17becf", "--"),
]


# ============================================================================ helpers
def _short(value: Any, max_len: int = LABEL_MAX_CHARS) -> str:
    """A user string shortened to ``max_len`` characters with invisible characters made visible.

    Bidi controls and other invisible characters become ``<U+XXXX>`` (as in the HTML report);
    tab and newline become spaces. A longer string keeps its start and its end around one "…"
    (ids that differ only at the end stay distinguishable).
    """
    from bayes_pairwise._html import visible

    s = visible(str(value).replace("\t", " ").replace("\n", " "))
    if len(s) <= max_len:
        return s
    tail = max(1, (max_len - 1) // 3)
    return s[: max_len - 1 - tail] + "…" + s[-tail:]


def short_label(value: Any, max_len: int = LABEL_MAX_CHARS) -> str:
    r"""A user-supplied string made safe for Matplotlib: at most ``max_len`` characters (middle
    "…"), bidi and other invisible characters shown as ``<U+XXXX>``, no mathtext, no hidden
    legend label. Every label drawn from user ids (items, judges, contexts, sources) goes
    through here.

    Examples
    --------
    >>> short_label("$x$"), short_label("_hidden"), short_label("a\u202eb")
    ('\\$x\\$', ' _hidden', 'a<U+202E>b')
    >>> t = short_label("item-" + "x" * 3000 + "-end")
    >>> len(t), t[:7], t[-6:]
    (40, 'item-xx', 'xx-end')
    """
    s = _short(value, max_len).replace("$", r"\$")
    return " " + s if s.startswith("_") else s


def _shorten_drawn_text(axes: Iterable[Any], max_len: int = LABEL_MAX_CHARS) -> None:
    """Shorten, line by line, the titles and legend entries a third party (ArviZ) drew from
    user coordinates, and make their invisible characters visible."""
    for ax in axes:
        texts = [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)]
        leg = ax.get_legend()
        if leg is not None:
            texts.extend(leg.get_texts())
        for t in texts:
            if t is None:
                continue
            old = t.get_text()
            new = "\n".join(_short(line, max_len) for line in old.split("\n"))
            if new != old:
                t.set_text(new)


def plot_rank_probabilities(
    lb: Leaderboard,
    *,
    ax: Axes | None = None,
    max_rank: int | None = None,
    top: int | None = None,
    annotate: bool | None = None,
    cmap: str = "Blues",
) -> Axes:
    """Heat map of P(rank = k): one row per item (strongest on top), one column per rank.

    The numbers are :func:`bayes_pairwise.leaderboard.rank_probability_data`. Item ticks go
    through :func:`short_label` and the title is shortened (a 3,000-character id would otherwise
    make the figure tens of thousands of pixels wide); invisible characters are made visible.

    Parameters
    ----------
    lb : Leaderboard
    ax : matplotlib Axes, optional
        Drawn into a new figure when omitted.
    max_rank, top : int, optional
        As in :func:`~bayes_pairwise.leaderboard.rank_probability_data`.
    annotate : bool, optional
        Write the probabilities in the cells (default: when the map has ≤ 400 cells).
    cmap : str
        Matplotlib colour map.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import pandas as pd
    >>> import bayes_pairwise as bp
    >>> long = "m-" + "x" * 300
    >>> df = pd.DataFrame({"first": ["a", "b", long] * 4, "second": ["b", long, "a"] * 4,
    ...                    "outcome": ["first", "second", "first"] * 4})
    >>> from bayes_pairwise.leaderboard import leaderboard
    >>> lb = leaderboard(bp.load_comparisons(df), n_boot=20, random_seed=0)
    >>> ax = plot_rank_probabilities(lb)
    >>> ax.get_xlabel(), max(len(t.get_text()) for t in ax.get_yticklabels()) <= LABEL_MAX_CHARS
    ('rank', True)
    """
    import matplotlib.pyplot as plt

    table = rank_probability_data(lb, max_rank=max_rank, top=top)
    if ax is None:
        n_rows, n_cols = table.shape
        _, ax = plt.subplots(
            figsize=(min(2.0 + 0.45 * n_cols, 14.0), min(1.2 + 0.32 * n_rows, 14.0))
        )
    values = table.to_numpy(dtype=float)
    image = ax.imshow(values, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(table.shape[1]), list(table.columns))
    ax.set_yticks(range(table.shape[0]), [short_label(item) for item in table.index])
    ax.set_xlabel("rank")
    ax.set_ylabel("")
    title = f"P(rank = k), {lb.model} ({lb.method})"
    if lb.judge is not None:
        title += f", judge {lb.judge}"
    ax.set_title(title)
    _shorten_drawn_text([ax])
    if annotate is None:
        annotate = values.size <= 400
    if annotate:
        for (r, c), v in np.ndenumerate(values):
            if np.isfinite(v) and v >= 0.005:
                ax.text(
                    c,
                    r,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if v > 0.6 else "black",
                )
    ax.figure.colorbar(image, ax=ax, label="probability", fraction=0.04, pad=0.02)
    return ax


def _axes_array(ax: Any, n: int, *, ncols: int | None = None, panel_size=(4.2, 3.0)) -> np.ndarray:
    """``n`` Axes: the user's (one Axes or a sequence) or a new figure's."""
    import matplotlib.pyplot as plt

    if ax is None:
        nc = ncols or min(n, 3)
        nr = max(1, math.ceil(n / nc))
        fig, axs = plt.subplots(
            nr, nc, figsize=(panel_size[0] * nc, panel_size[1] * nr), squeeze=False
        )
        flat = axs.ravel()
        for extra in flat[n:]:
            extra.set_visible(False)
        fig.set_layout_engine("constrained")
        return flat[:n]
    flat = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
    if flat.size < n:
        raise ValueError(f"this plot needs {n} axes, got {flat.size}")
    return flat[:n]


def _legend_below(ax: Axes, *, ncol: int = 2, below: float = 0.17) -> Any:
    """The legend under the axes (``below`` axes heights under their bottom, clear of the tick
    labels and the x label), outside the data area: it never covers a curve or a marker."""
    kw: dict[str, Any] = {
        "fontsize": 7,
        "loc": "upper center",
        "bbox_to_anchor": (0.5, -below),
        "ncol": ncol,
        "frameon": False,
    }
    return ax.legend(**kw)


def _at_edge(x: float, y: float, xlim: Sequence[float], ylim: Sequence[float]):
    """``(x, y)`` moved onto the nearest edge of the axes when it lies outside them.

    Returns the point to draw and a label suffix (empty when the point was inside).

    Examples
    --------
    >>> _at_edge(0.6, 0.2, (0.0, 0.5), (0.0, 0.5))
    (0.5, 0.2, ' (at (0.600, 0.200), off the axes: drawn at the edge)')
    >>> _at_edge(0.1, 0.2, (0.0, 0.5), (0.0, 0.5))
    (0.1, 0.2, '')
    """
    cx = min(max(float(x), min(xlim)), max(xlim))
    cy = min(max(float(y), min(ylim)), max(ylim))
    if (cx, cy) == (float(x), float(y)):
        return float(x), float(y), ""
    return cx, cy, f" (at ({float(x):.3f}, {float(y):.3f}), off the axes: drawn at the edge)"


def _one_ax(ax: Any, figsize=(6.0, 4.0)) -> Axes:
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


# ============================================================================ Δ_S curve
def _judge_suffix(judge: object) -> str:
    """``": judge gpt4"`` for a named judge; nothing for the default single judge."""
    return "" if judge in (None, "judge") else f": judge {short_label(judge)}"


def _eps_text(attrs: Mapping[str, Any]) -> str:
    if attrs["kind"] == "2d":
        return (
            f"(ε₊, ε₋) = ({attrs['eps_plus']:.3f}, {attrs['eps_minus']:.3f}), "
            f"sum {attrs['eps_sum']:.3f}"
        )
    return f"ε̂ = {attrs['eps']:.3f}"


def plot_delta_s_curve(
    fit: Any,
    *,
    ax: Axes | None = None,
    extra_eps: Mapping[str, float] | None = None,
    title: str | None = None,
) -> Axes:
    """Observed Δ_S–n curve with the fitted synthetic curve (the paper's Δ_S fit).

    Parameters
    ----------
    fit : DeltaSFit or DeltaS2DFit
        A fitted Δ_S estimator.
    ax : Axes, optional
        Where to draw (a new figure by default).
    extra_eps : mapping of str to float, optional
        More synthetic curves to draw from the fit's table (1-D fits), e.g.
        ``{"posterior mean": 0.14}``, one dotted line each.
    title : str, optional
        Overrides the default title.

    Returns
    -------
    Axes
        With one line for the observed curve, one for the fitted synthetic curve and one per
        ``extra_eps`` entry.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bayes_pairwise import DeltaSFit, simulate_round_robin
    >>> sim = simulate_round_robin(12, eps=0.2, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaSFit(n_subsets=50, random_seed=0, cache_dir=d).fit(sim.data)
    >>> ax = plot_delta_s_curve(fit)
    >>> len(ax.lines)
    2
    """
    df = delta_s_curve_data(fit)
    ax = _one_ax(ax)
    ax.plot(df["n"], df["observed"], "o-", color="#1f77b4", ms=3.5, label="observed")
    ax.plot(
        df["n"], df["synthetic"], "--", color="#d62728", label=f"synthetic at {_eps_text(df.attrs)}"
    )
    for k, (lab, e) in enumerate((extra_eps or {}).items()):
        if df.attrs["kind"] != "1d":
            raise ValueError("extra_eps needs a 1-D DeltaSFit")
        curve = np.asarray(fit.table_.curve(float(e)))[: len(df)]
        ax.plot(
            df["n"],
            curve,
            ":",
            color=_SOURCE_STYLES[(k + 1) % len(_SOURCE_STYLES)][0],
            label=f"synthetic at {short_label(lab)} ε = {float(e):.3f}",
        )
    ax.set_xlabel("subset size n")
    ax.set_ylabel("mean Δ_S")
    ctx = df.attrs["n_contexts"]
    where = f", {ctx} contexts pooled" if ctx > 1 else ""
    ax.set_title(title or f"Δ_S–n curve{_judge_suffix(df.attrs['judge'])}{where}")
    ax.legend(fontsize=8)
    return ax


# ============================================================================ misfit curve
def plot_misfit_curve(
    fit: Any,
    *,
    ax: Axes | None = None,
    mark: Mapping[str, float] | None = None,
    title: str | None = None,
) -> Axes:
    """The misfit curve of a 1-D Δ_S fit, with the fitted ε marked.

    Parameters
    ----------
    fit : DeltaSFit
    ax : Axes, optional
    mark : mapping of str to float, optional
        More vertical reference lines, e.g. ``{"S_com": 0.15, "posterior mean": 0.14}``.
    title : str, optional

    Returns
    -------
    Axes
        One line for the misfit, one vertical line at ``fit.eps_`` and one per ``mark`` entry.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bayes_pairwise import DeltaSFit, simulate_round_robin
    >>> sim = simulate_round_robin(12, eps=0.2, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaSFit(n_subsets=50, random_seed=0, cache_dir=d).fit(sim.data)
    >>> len(plot_misfit_curve(fit, mark={"S_com": 0.2}).lines)
    3
    """
    df = misfit_curve_data(fit)
    ax = _one_ax(ax)
    ax.plot(df["eps"], df["misfit"], "-", color="#1f77b4", label="misfit")
    ax.axvline(df.attrs["eps"], color="#d62728", ls="--", label=f"Δ_S grid ε̂ = {fit.eps_:.3f}")
    for k, (lab, v) in enumerate((mark or {}).items()):
        color, ls = _SOURCE_STYLES[(k + 1) % len(_SOURCE_STYLES)]
        ax.axvline(float(v), color=color, ls=ls, label=f"{short_label(lab)} = {float(v):.3f}")
    ax.set_xlabel("ε (grid)")
    ax.set_ylabel("Σₙ |observed − synthetic|")
    ax.set_title(title or f"Δ_S misfit over the grid{_judge_suffix(df.attrs['judge'])}")
    ax.legend(fontsize=8)
    return ax


# ============================================================================ 2-D heatmap
def plot_misfit_heatmap(
    fit: Any, *, ax: Axes | None = None, log: bool = True, title: str | None = None
) -> Axes:
    """The 2-D Δ_S misfit surface over (ε₊, ε₋), with the paper's estimate and its mirror.

    The surface is symmetric under ε₊ ↔ ε₋ (METHODS §3.2) and has a long valley along
    ε₊ + ε₋ = constant: only the sum is well determined. The title says so; the paper's estimate
    and its mirror image are marked, the valley is dotted, and the sum split by the
    first-position win rate is circled when available.

    Parameters
    ----------
    fit : DeltaS2DFit
    ax : Axes, optional
    log : bool
        Colour by log(1 + misfit) (the minimum is a narrow valley).
    title : str, optional

    Returns
    -------
    Axes
        With one image (``ax.images``) and the markers as collections.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bayes_pairwise import DeltaS2DFit, simulate_round_robin
    >>> sim = simulate_round_robin(10, eps_plus=0.05, eps_minus=0.25, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaS2DFit(grid_step=0.05, n_subsets=30, cache_dir=d).fit(sim.data)
    >>> ax = plot_misfit_heatmap(fit)
    >>> len(ax.images)
    1
    """
    df = misfit_heatmap_data(fit)
    ax = _one_ax(ax, figsize=(6.0, 5.0))
    g = np.asarray(fit.grid_, dtype=float)
    mis = np.asarray(fit.misfit_, dtype=float)
    val = np.log1p(mis) if log else mis
    step = g[1] - g[0] if g.size > 1 else 1.0
    ext = (g[0] - step / 2, g[-1] + step / 2, g[0] - step / 2, g[-1] + step / 2)
    # rows of misfit_ are eps_plus: put eps_plus on x, eps_minus on y
    im = ax.imshow(val.T, origin="lower", extent=ext, aspect="equal", cmap="viridis_r")
    ax.figure.colorbar(im, ax=ax, label="log(1 + misfit)" if log else "misfit")
    a = df.attrs
    lims = ((ext[0], ext[1]), (ext[2], ext[3]))
    x, y, off = _at_edge(a["eps_plus"], a["eps_minus"], *lims)
    ax.scatter(
        [x], [y], marker="x", color="red", s=60, label="paper's estimate" + off, clip_on=False
    )
    x, y, off = _at_edge(a["eps_minus"], a["eps_plus"], *lims)
    ax.scatter([x], [y], marker="x", color="orange", s=60, label="its mirror (equally good)" + off)
    if a["eps_plus_split"] is not None:
        x, y, off = _at_edge(a["eps_plus_split"], a["eps_minus_split"], *lims)
        ax.scatter(
            [x],
            [y],
            marker="o",
            facecolors="none",
            edgecolors="white",
            s=140,
            linewidths=1.5,
            label="sum split by first-position rate" + off,
            clip_on=False,
        )
    # the well-determined direction: ε₊ + ε₋ = const (the valley of the surface)
    ax.plot(g, a["eps_sum"] - g, color="white", lw=0.8, ls=":", label="ε₊ + ε₋ = fitted sum")
    ax.set_xlim(ext[0], ext[1])
    ax.set_ylim(ext[2], ext[3])
    ax.set_xlabel("ε₊ (better shown first)")
    ax.set_ylabel("ε₋ (better shown second)")
    ax.set_title(
        title
        or (
            f"2-D Δ_S misfit{_judge_suffix(a['judge'])}\n"
            "only a symmetric function of (ε₊, ε₋) is identified"
        ),
        fontsize=10,
    )
    _legend_below(ax, ncol=1)
    return ax


# ============================================================================ P(R_m, TO) vs N
def plot_correct_score(
    eps: float | None = 0.15,
    *,
    eps_plus: float | None = None,
    eps_minus: float | None = None,
    ranks: Iterable[int] = range(1, 9),
    n_max: int = 100,
    methods: Sequence[str] = ("exact",),
    ax: Axes | None = None,
    title: str | None = None,
    random_seed: int | None = 0,
    data: pd.DataFrame | None = None,
) -> Axes:
    """P(R_m, TO) vs N for several ranks m: ranking many texts with a noisy judge does not scale.

    Solid lines are the exact probability; a second method (e.g. ``"paper"``, the paper's
    reversal-only formula) is drawn dashed in the same colour.

    Parameters
    ----------
    eps : float, optional
        Uniform error rate (e.g. a judge's estimate).
    eps_plus, eps_minus : float, optional
        Positional error rates instead.
    ranks, n_max, methods, random_seed
        As :func:`correct_score_data`.
    ax : Axes, optional
    title : str, optional
    data : DataFrame, optional
        A :func:`correct_score_data` table to draw (e.g. a judge's curves from
        :attr:`bayes_pairwise.crosscheck.CrossCheck.correct_score`); the rates are read from its
        ``attrs`` and the other arguments are not used.

    Returns
    -------
    Axes
        One line per (method, rank).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_correct_score(0.15, ranks=[1, 2, 3], n_max=30)
    >>> len(ax.lines)
    3
    """
    if data is not None:
        df = data
        eps = df.attrs.get("eps")
        eps_plus, eps_minus = df.attrs.get("eps_plus"), df.attrs.get("eps_minus")
    else:
        df = correct_score_data(
            eps,
            eps_plus=eps_plus,
            eps_minus=eps_minus,
            ranks=ranks,
            n_max=n_max,
            methods=methods,
            random_seed=random_seed,
        )
    ax = _one_ax(ax)
    import matplotlib as mpl

    ms = sorted(df["m"].unique())
    cmap = mpl.colormaps["viridis"]
    styles = ["-", "--", ":", "-."]
    from matplotlib.lines import Line2D

    present = list(dict.fromkeys(df["method"]))
    for k, method in enumerate(present):
        for i, m in enumerate(ms):
            sub = df[(df["method"] == method) & (df["m"] == m)]
            ax.plot(
                sub["N"],
                sub["p"],
                ls=styles[k % len(styles)],
                color=cmap(i / max(len(ms) - 1, 1)),
                label=f"m = {m}" if k == 0 else "_nolegend_",
            )
    handles, labels = ax.get_legend_handles_labels()
    if len(present) > 1:  # one legend entry per method (line style), not per curve
        for k, method in enumerate(present):
            handles.append(Line2D([], [], color="0.3", ls=styles[k % len(styles)]))
            labels.append(method.replace("_", " "))
    ax.set_xlabel("number of texts N")
    ax.set_ylabel("P(R_m, TO)")
    ax.set_ylim(0, 1.02)
    rate = (
        f"ε₊ = {float(eps_plus):.3f}, ε₋ = {float(eps_minus):.3f}"
        if eps_plus is not None or eps_minus is not None
        else f"ε = {float(eps):.3f}"
    )
    ax.set_title(title or f"P(text of rank m gets its correct score), {rate}", fontsize=10)
    ax.legend(handles, labels, fontsize=7, ncol=2)
    return ax


def plot_ceiling(
    data: pd.DataFrame,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    label_judges: int = 12,
) -> Axes:
    """Judges against the text-blind ceiling: S_com against the first-position rate r₁.

    The solid curve is r₁² + (1 − r₁)², where verdicts that ignore the texts sit
    (1 − ε₊ − ε₋ = 0); the dashed curves are 1 − ε₊ − ε₋ = 0.25, 0.5 and 0.75 (S_com lower by
    half its square); above the solid curve no ε₊, ε₋ describe the verdicts. Each judge is a
    point with the interval of its distance to the ceiling: red where the log cannot tell it
    from a judge that ignores the texts, orange beyond the ceiling.

    Parameters
    ----------
    data : DataFrame
        :func:`~bayes_pairwise.plot_data.ceiling_data` (e.g. of a cross-check's
        ``ceiling`` and ``text_blind``).
    ax : Axes, optional
    title : str, optional
    label_judges : int
        Name the judges on the plot when there are at most this many.

    Returns
    -------
    Axes
        One error bar per judge.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bayes_pairwise.caveats import ceiling_stats
    >>> from bayes_pairwise.plot_data import ceiling_data
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> st = ceiling_stats(simulate_round_robin(20, eps=0.1, random_seed=0).data)
    >>> ax = plot_ceiling(ceiling_data({"judge": st}))
    >>> len(ax.containers)  # one error bar per judge
    1
    """
    ax = _one_ax(ax, figsize=(6.0, 4.6))
    r = np.linspace(0.0, 1.0, 201)
    top = (1.0 + (2.0 * r - 1.0) ** 2) / 2.0
    ax.fill_between(r, top, 1.0, color="0.93", zorder=0, label="no ε₊, ε₋ give this")
    ax.plot(r, top, color="0.15", lw=1.4, label="verdicts ignore the texts (1 − ε₊ − ε₋ = 0)")
    for k, jv in enumerate((0.25, 0.5, 0.75)):
        rr = np.linspace(jv / 2.0, 1.0 - jv / 2.0, 101)
        yy = (1.0 + (2.0 * rr - 1.0) ** 2) / 2.0 - jv * jv / 2.0
        ax.plot(
            rr,
            yy,
            color="0.55",
            ls="--",
            lw=0.9,
            label="1 − ε₊ − ε₋ = 0.25, 0.5, 0.75" if k == 0 else "_nolegend_",
        )
        ax.annotate(f"{jv:g}", (rr[50], yy[50]), fontsize=7, color="0.45", va="top", ha="center")
    for kind, colour, label in (
        ("reads", "tab:blue", "judge"),
        ("text_blind", "tab:red", "judge the log cannot tell from text-blind"),
        ("beyond", "tab:orange", "judge beyond the ceiling"),
    ):
        if kind == "reads":
            sub = data[~data["text_blind"] & ~data["beyond"]]
        else:
            sub = data[data[kind].astype(bool)]
        if not len(sub):
            continue
        ax.errorbar(
            sub["r1"],
            sub["s_com"],
            yerr=[sub["s_com"] - sub["lower"], sub["upper"] - sub["s_com"]],
            fmt="o",
            ms=4,
            color=colour,
            capsize=2,
            label=label,
        )
    if len(data) <= label_judges:
        for row in data.itertuples(index=False):
            ax.annotate(
                short_label(row.judge),
                (row.r1, row.s_com),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=7,
            )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("first-position rate r₁")
    ax.set_ylabel("S_com (same position won in both orders)")
    ax.set_title(title or "Judges against the text-blind ceiling", fontsize=10)
    _legend_below(ax, below=0.14)
    return ax


# ============================================================================ posterior vs grid
def _source_style(sources: list[str], source: str) -> tuple[str, Any]:
    if source not in sources:
        sources.append(source)
    return _SOURCE_STYLES[sources.index(source) % len(_SOURCE_STYLES)]


def plot_posterior_vs_grid(
    model_or_idata: Any,
    *classical: Any,
    var_names: Sequence[str] | None = None,
    judge: str | None = None,
    hdi_prob: float | None = None,
    ax: Any = None,
    ncols: int | None = None,
    data: pd.DataFrame | None = None,
) -> np.ndarray:
    """Posterior density of each error parameter with the classical estimates as vertical lines.

    One panel per scalar component (``eps``, ``eps_plus[judge]``, ``w[covariate]`` …). Each
    panel has the posterior density (a kernel density estimate; a one-draw MAP posterior is a
    solid vertical line instead) with its HDI shaded, and one dashed vertical line per matching
    classical estimate (S_com, moments, Δ_S grid, MAP, realised-on-synthetic …), one colour per
    source across panels.

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
    *classical
        As :func:`posterior_vs_grid_data`.
    var_names : sequence of str, optional
    judge : str, optional
        Only this judge's panels.
    hdi_prob : float
    ax : Axes or array of Axes, optional
        At least one Axes per panel.
    ncols : int, optional
        Panels per row of a new figure.
    data : DataFrame, optional
        A :func:`posterior_vs_grid_data` table of this posterior (e.g. from
        :attr:`bayes_pairwise.crosscheck.CrossCheck.figures`): its estimates and intervals are
        drawn and ``classical``, ``var_names``, ``judge`` and ``hdi_prob`` are not used; the
        draws are only read for the density curves.

    Returns
    -------
    ndarray of Axes
        Panel k has 1 + (number of classical estimates on it) lines.

    Examples
    --------
    >>> import arviz as az, numpy as np, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps_plus": rng.beta(5, 40, (2, 300)),
    ...                                 "eps_minus": rng.beta(12, 40, (2, 300))})
    >>> axes = plot_posterior_vs_grid(idata, ("moments", {"eps_plus": 0.1, "eps_minus": 0.2}))
    >>> [len(a.lines) for a in axes]
    [2, 2]
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    import arviz as az

    df = (
        data
        if data is not None
        else posterior_vs_grid_data(
            model_or_idata, *classical, var_names=var_names, judge=judge, hdi_prob=hdi_prob
        )
    )
    idata = as_inference_data(model_or_idata)
    panels = list(dict.fromkeys(df["panel"]))
    axes = _axes_array(ax, len(panels), ncols=ncols or min(len(panels), 2))
    draws_by_panel = {
        panel_name(v, c): d
        for v, c, d in posterior_entries(idata, list(dict.fromkeys(df["variable"])))
    }
    sources: list[str] = []
    for a, panel in zip(axes, panels, strict=False):
        sub = df[df["panel"] == panel]
        post = sub.iloc[0]
        draws = draws_by_panel[panel]
        if post["kind"] == "posterior":
            x = np.asarray(draws, dtype=float)
            x = x[np.isfinite(x)]
            if np.ptp(x) > 0:
                grid, pdf = az.kde(x)
            else:  # a degenerate posterior: draw a spike
                grid, pdf = np.array([x[0], x[0]]), np.array([0.0, 1.0])
            a.plot(
                grid, pdf, color="#1f77b4", lw=1.8, label=f"posterior (mean {post.estimate:.3f})"
            )
            inside = (grid >= post.lower) & (grid <= post.upper)
            a.fill_between(grid, 0, pdf, where=inside, color="#1f77b4", alpha=0.18, lw=0)
            a.set_ylabel("density")
        else:
            a.axvline(
                post.estimate,
                color="#1f77b4",
                lw=1.8,
                label=f"{short_label(post.source)} {post.estimate:.3f}",
            )
            a.set_yticks([])
        if post["kind"] != "posterior":  # only vertical lines: frame them
            vals = sub["estimate"].to_numpy(dtype=float)
            vals = vals[np.isfinite(vals)]
            pad = max(0.05, 0.25 * float(np.ptp(vals))) if vals.size else 0.05
            a.set_xlim(float(vals.min()) - pad, float(vals.max()) + pad)
        for _, r in sub.iloc[1:].iterrows():
            color, ls = _source_style(sources, str(r["source"]))
            a.axvline(
                r["estimate"],
                color=color,
                ls=ls,
                lw=1.5,
                label=f"{short_label(r['source'])} {r['estimate']:.3f}",
            )
        var = str(post["variable"])
        a.set_xlabel(_VAR_TEX.get(var, short_label(var)))
        j = post["judge"]
        bits = [short_label(j)] if isinstance(j, str) and j != "" else []
        if post["coord"]:
            bits.append(short_label(post["coord"]))
        a.set_title(f"{var}" + (f" — {', '.join(bits)}" if bits else ""), fontsize=10)
        _legend_below(a, below=0.27)
    return axes


# ============================================================================ strengths
def plot_strength_forest(
    model_or_idata: Any = None,
    mm: Any = None,
    *,
    hdi_prob: float | None = None,
    groups: Any = "auto",
    items: Sequence[str] | None = None,
    max_items: int | None = 40,
    scale_mm: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    data: pd.DataFrame | None = None,
) -> Axes:
    """Forest plot of item strengths: posterior mean with its HDI, MM estimate overlaid.

    Parameters
    ----------
    model_or_idata, mm, hdi_prob, groups, items, max_items
        As :func:`strength_forest_data` (at most 40 rows by default).
    scale_mm : bool
        Draw the MM strengths rescaled onto the posterior scale (the factor is in the legend)
        rather than raw.
    ax : Axes, optional
    title : str, optional
    data : DataFrame, optional
        A full :func:`strength_forest_data` table (e.g. from
        :attr:`bayes_pairwise.crosscheck.CrossCheck.figures`): ``items`` and ``max_items``
        select its rows and ``model_or_idata``, ``mm``, ``hdi_prob`` and ``groups`` are not used.

    Returns
    -------
    Axes
        One error-bar container (``ax.containers``) for the posterior, one scatter collection
        for MM when given; one y tick per item.

    Examples
    --------
    >>> import arviz as az, numpy as np, pandas as pd, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal([1.0, 0.0, -1.0], 0.1, size=(2, 100, 3))
    >>> idata = az.from_dict(posterior={"strength": draws}, coords={"item": ["a", "b", "c"]},
    ...                      dims={"strength": ["item"]})
    >>> ax = plot_strength_forest(idata, pd.Series([0.5, 0.0, -0.5], index=["a", "b", "c"]))
    >>> len(ax.get_yticks()), len(ax.containers)
    (3, 1)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    if data is not None:
        df = select_strengths(data, items=items, max_items=max_items)
        hdi_prob = float(data.attrs.get("hdi_prob", hdi_prob))
    else:
        df = strength_forest_data(
            model_or_idata, mm, hdi_prob=hdi_prob, groups=groups, items=items, max_items=max_items
        )
    ax = _one_ax(ax, figsize=(6.5, max(2.5, 0.24 * len(df) + 1.2)))
    y = np.arange(len(df))[::-1]
    ax.errorbar(
        df["mean"],
        y,
        xerr=np.vstack([df["mean"] - df["lower"], df["upper"] - df["mean"]]),
        fmt="o",
        ms=4,
        color="#1f77b4",
        ecolor="#1f77b4",
        elinewidth=1.2,
        label=f"posterior mean, {round(100 * hdi_prob)}% HDI",
    )
    if df["mm"].notna().any():
        col = "mm_scaled" if scale_mm else "mm"
        lab = (
            f"MM (Bradley–Terry) × {df.attrs['mm_scale']:.2f}" if scale_mm else "MM (Bradley–Terry)"
        )
        ax.scatter(df[col], y, marker="D", s=22, color="#d62728", zorder=3, label=lab)
    ax.set_yticks(y)
    ax.set_yticklabels([short_label(i) for i in df.index], fontsize=7)
    groups_present = [k for k in dict.fromkeys(df["group"]) if k != ""]
    if len(groups_present) > 1:  # separators between contexts
        grp = df["group"].to_numpy()
        for k in range(1, len(df)):
            if grp[k] != grp[k - 1]:
                ax.axhline(y[k] + 0.5, color="#bbbbbb", lw=0.6)
    ax.axvline(0, color="#888888", lw=0.6)
    ax.set_xlabel("strength (centred within context)" if groups_present else "strength (centred)")
    ax.set_title(title or "Item strengths", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    return ax


# ============================================================================ judges' ε₊ / ε₋
def plot_judge_forest(
    fits: Any = None,
    *,
    var_names: Sequence[str] = ("eps_plus", "eps_minus"),
    classical: pd.DataFrame | None = None,
    hdi_prob: float | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    data: pd.DataFrame | None = None,
) -> Axes:
    """Forest plot comparing judges: one row per judge, one marker + HDI per variable.

    Parameters
    ----------
    fits, var_names, classical, hdi_prob
        As :func:`judge_forest_data`; classical estimates are hollow markers.
    ax : Axes, optional
    title : str, optional
    data : DataFrame, optional
        A :func:`judge_forest_data` table to draw (e.g. from
        :attr:`bayes_pairwise.crosscheck.CrossCheck.figures`); ``fits``, ``classical`` and
        ``hdi_prob`` are then not used.

    Returns
    -------
    Axes
        One y tick per judge; one error-bar container per variable.

    Examples
    --------
    >>> import arviz as az, numpy as np, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps_plus": rng.beta(5, 40, (2, 100, 3)),
    ...                                 "eps_minus": rng.beta(9, 40, (2, 100, 3))},
    ...                      coords={"judge": ["a", "b", "c"]},
    ...                      dims={"eps_plus": ["judge"], "eps_minus": ["judge"]})
    >>> ax = plot_judge_forest(idata)
    >>> len(ax.get_yticks()), len(ax.containers)
    (3, 2)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    df = (
        data[data["variable"].isin(list(var_names))]
        if data is not None
        else judge_forest_data(fits, var_names=var_names, classical=classical, hdi_prob=hdi_prob)
    )
    if data is not None:
        hdi_prob = float(data.attrs.get("hdi_prob", hdi_prob))
    judges = list(dict.fromkeys(df["judge"]))
    vars_present = [v for v in var_names if v in set(df["variable"])]
    ax = _one_ax(ax, figsize=(6.5, max(2.2, 0.55 * len(judges) + 1.2)))
    ypos = {j: len(judges) - 1 - k for k, j in enumerate(judges)}
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    nv = len(vars_present)
    for k, var in enumerate(vars_present):
        off = ((nv - 1) / 2 - k) * (0.5 / max(nv, 1))  # first variable on top
        color = colors[k % len(colors)]
        sub = df[(df["variable"] == var) & (df["source"] != "classical")]
        y = np.array([ypos[j] for j in sub["judge"]]) + off
        err = np.vstack([sub["mean"] - sub["lower"], sub["upper"] - sub["mean"]])
        ax.errorbar(
            sub["mean"],
            y,
            xerr=np.nan_to_num(err),
            fmt="o",
            ms=5,
            color=color,
            capsize=2,
            label=_VAR_TEX.get(var, short_label(var)),
        )
        cl = df[(df["variable"] == var) & (df["source"] == "classical")]
        if not cl.empty:
            ax.scatter(
                cl["mean"],
                np.array([ypos[j] for j in cl["judge"]]) + off,
                marker="s",
                s=36,
                facecolors="none",
                edgecolors=color,
                zorder=3,
                label=f"{_VAR_TEX.get(var, short_label(var)).split(' ')[0]} classical",
            )
    ax.set_yticks([ypos[j] for j in judges])
    ax.set_yticklabels([short_label(j) for j in judges])
    what = "error rate" if all(v.startswith("eps") for v in vars_present) else "value"
    ax.set_xlabel(f"{what} (posterior mean, {round(100 * hdi_prob)}% HDI)")
    ax.set_title(title or "Judges compared", fontsize=10)
    ax.legend(fontsize=7)
    return ax


# ============================================================================ trace / rank
def plot_trace(
    model_or_idata: Any,
    *,
    var_names: Sequence[str] | None = None,
    coords: Mapping[str, Sequence[Any]] | None = None,
    kind: str = "rank_bars",
    axes: Any = None,
) -> np.ndarray:
    """Trace plot (density + rank bars by default) of the error parameters, via ArviZ.

    Thin wrapper around :func:`arviz.plot_trace` with ``compact=True`` and ``strength``
    excluded (pass ``var_names`` to choose).

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
    var_names : sequence of str, optional
    coords : mapping, optional
        Coordinates to keep, e.g. ``{"judge": ["gpt4"]}``.
    kind : {"rank_bars", "rank_vlines", "trace"}
    axes : array of Axes, optional
        Shape (n_variables, 2).

    Returns
    -------
    ndarray of Axes, shape (n_variables, 2)

    Examples
    --------
    >>> import arviz as az, numpy as np, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps": rng.beta(5, 30, (2, 200))})
    >>> plot_trace(idata).shape
    (1, 2)
    """
    import arviz as az

    idata = as_inference_data(model_or_idata)
    names = trace_variables(idata, var_names)
    out = az.plot_trace(
        idata,
        var_names=names,
        coords=dict(coords) if coords else None,
        kind=kind,
        compact=True,
        axes=axes,
        show=False,
    )
    out = np.atleast_2d(np.asarray(out, dtype=object))
    _shorten_drawn_text(out.ravel())  # ArviZ titles and legends name the user's coordinates
    if axes is None:
        out[0, 0].figure.set_layout_engine("constrained")
    return out


def plot_rank(
    model_or_idata: Any,
    *,
    var_names: Sequence[str] | None = None,
    coords: Mapping[str, Sequence[Any]] | None = None,
    kind: str = "bars",
    ax: Any = None,
) -> np.ndarray:
    """Rank plots (one panel per scalar component) of the error parameters, via ArviZ.

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
    var_names : sequence of str, optional
        Default: the error parameters present (``strength`` excluded).
    coords : mapping, optional
        Coordinates to keep, e.g. ``{"judge": ["gpt4"]}``.
    kind : {"bars", "vlines"}
    ax : Axes or array of Axes, optional

    Returns
    -------
    ndarray of Axes

    Examples
    --------
    >>> import arviz as az, numpy as np, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps": rng.beta(5, 30, (2, 200)),
    ...                                 "gamma": rng.normal(0, 1, (2, 200))})
    >>> plot_rank(idata).size
    2
    """
    import arviz as az

    idata = as_inference_data(model_or_idata)
    names = trace_variables(idata, var_names)
    out = az.plot_rank(
        idata,
        var_names=names,
        coords=dict(coords) if coords else None,
        kind=kind,
        ax=ax,
        show=False,
    )
    out = np.atleast_1d(np.asarray(out, dtype=object)).ravel()
    _shorten_drawn_text(out)  # ArviZ titles name the user's coordinates (judges, items)
    return out


# ============================================================================ MM vs posterior
def plot_bt_vs_posterior(
    model_or_idata: Any = None,
    mm: Any = None,
    *,
    groups: Any = "auto",
    hdi_prob: float | None = None,
    error_bars: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    data: pd.DataFrame | None = None,
) -> Axes:
    """Scatter of MM strengths (x) against posterior mean strengths (y), with the fitted scale.

    Parameters
    ----------
    model_or_idata, mm, groups, hdi_prob
        As :func:`bt_vs_posterior_data`.
    error_bars : bool
        Draw each item's HDI as a vertical bar.
    ax : Axes, optional
    title : str, optional
    data : DataFrame, optional
        A :func:`bt_vs_posterior_data` table to draw (e.g. from
        :attr:`bayes_pairwise.crosscheck.CrossCheck.figures`); the other data arguments are
        then not used.

    Returns
    -------
    Axes
        One scatter collection (one point per item) and one line (posterior = scale × MM).

    Examples
    --------
    >>> import arviz as az, numpy as np, pandas as pd, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal([2.0, 0.0, -2.0], 0.1, size=(2, 100, 3))
    >>> idata = az.from_dict(posterior={"strength": draws}, coords={"item": ["a", "b", "c"]},
    ...                      dims={"strength": ["item"]})
    >>> ax = plot_bt_vs_posterior(idata, pd.Series([1.0, 0.0, -1.0], index=["a", "b", "c"]))
    >>> len(ax.lines), ax.collections[-1].get_offsets().shape[0]
    (1, 3)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    df = (
        data
        if data is not None
        else bt_vs_posterior_data(model_or_idata, mm, groups=groups, hdi_prob=hdi_prob)
    )
    ax = _one_ax(ax, figsize=(5.0, 4.5))
    ok = df["mm"].notna()
    d = df[ok]
    if error_bars:
        ax.vlines(d["mm"], d["lower"], d["upper"], color="#9ecae1", lw=0.8, zorder=1)
    ax.scatter(d["mm"], d["mean"], s=14, color="#1f77b4", zorder=2)
    xs = np.linspace(float(d["mm"].min()), float(d["mm"].max()), 2) if len(d) else np.zeros(2)
    ax.plot(
        xs,
        df.attrs["mm_scale"] * xs,
        "--",
        color="#d62728",
        label=f"posterior = {df.attrs['mm_scale']:.2f} × MM",
    )
    ax.set_xlabel("MM strength (Bradley–Terry, centred)")
    ax.set_ylabel("posterior mean strength (centred)")
    ax.set_title(
        title
        or (
            f"MM vs posterior: Spearman ρ = {df.attrs['spearman']:.3f} "
            f"({df.attrs['n_items']} items)"
        ),
        fontsize=10,
    )
    ax.legend(fontsize=7)
    return ax


# ============================================================================ order-model ranks
def plot_order_ranks(
    model: Any = None,
    data: Comparisons | None = None,
    *,
    max_names: int = 30,
    ax: Axes | None = None,
    title: str | None = None,
    ranks: pd.DataFrame | None = None,
) -> Axes:
    """The share of its context's other items each item name beats: the order models'
    posterior (the judges' errors summed out) beside each judge's Copeland score share (the raw
    verdicts). Where they differ, the judges' errors moved the ranking.

    Parameters
    ----------
    model, data
        As :func:`order_rank_data`.
    max_names : int
        Draw the first (best) ``max_names`` names.
    ax : Axes, optional
    title : str, optional
    ranks : DataFrame, optional
        An :func:`order_rank_data` table to draw (``model`` and ``data`` are then not used).

    Returns
    -------
    Axes
        One row per name, best at the top: a filled circle at its posterior ``beats_share``
        and, per judge, an open marker at its Copeland share.

    Examples
    --------
    >>> import matplotlib, pandas as pd
    >>> matplotlib.use("Agg")
    >>> df = pd.DataFrame({"contexts": [3, 3], "beats_share": [0.9, 0.1], "p_best": [0.9, 0.1],
    ...                    "expected_rank": [1.1, 1.9], "Copeland A": [0.7, 0.3]},
    ...                   index=pd.Index(["a", "b"], name="name"))
    >>> ax = plot_order_ranks(ranks=df)
    >>> [len(c.get_offsets()) for c in ax.collections]
    [2, 2]
    """
    df = ranks if ranks is not None else order_rank_data(model, data)
    df = df.iloc[: int(max_names)]
    ax = _one_ax(ax, figsize=(6.0, 1.4 + 0.28 * max(len(df), 2)))
    y = np.arange(len(df))[::-1]
    markers = "sD^v<>ph"
    for k, col in enumerate(c for c in df.columns if str(c).startswith("Copeland ")):
        ax.scatter(
            df[col],
            y,
            marker=markers[k % len(markers)],
            facecolors="none",
            edgecolors=f"C{(k + 1) % 10}",
            s=30,
            label=short_label(col),
            zorder=2,
        )
    ax.scatter(
        df["beats_share"], y, color="C0", s=30, zorder=3, label="posterior (order summed out)"
    )
    ax.set_yticks(y)
    ax.set_yticklabels([short_label(v) for v in df.index])
    ax.set_xlim(-0.03, 1.03)
    ax.set_xlabel("share of its context's other items it beats")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False)
    ax.set_title(title or "Ranks: posterior (judge errors summed out) vs Copeland", fontsize=10)
    return ax


# ============================================================================ posterior predictive
def plot_ppc(
    model_or_idata: Any,
    data: Comparisons | None = None,
    *,
    judge: str | int | None = None,
    statistics: Sequence[str] = PPC_STATISTICS,
    n_draws: int = 200,
    n_draws_curve: int = 60,
    n_subsets: int = 50,
    random_seed: int | None = 0,
    ppc: pd.DataFrame | None = None,
    ax: Any = None,
) -> np.ndarray:
    """Posterior predictive checks: histograms of replicated S_com and first-position rate with
    the observed value, and the replicated Δ_S–n curves (90% band) with the observed curve.

    Parameters
    ----------
    model_or_idata, data, judge, statistics, n_draws, n_draws_curve, n_subsets, random_seed
        As :func:`ppc_data` (``data`` is not needed with ``ppc``).
    ppc : DataFrame, optional
        A precomputed :func:`ppc_data` result (then the model is not re-simulated).
    ax : array of Axes, optional
        One per statistic present.

    Returns
    -------
    ndarray of Axes
        Scalar panels: one histogram and one vertical line (observed). Δ_S panel: a band, the
        replicated median line and the observed line.

    Examples
    --------
    >>> import arviz as az, numpy as np, matplotlib
    >>> matplotlib.use("Agg")
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(6, eps=0.2, random_seed=0)
    >>> rng = np.random.default_rng(1)
    >>> s = sim.true_strengths.reindex(list(sim.data.items)).to_numpy()
    >>> idata = az.from_dict(
    ...     posterior={"eps": rng.beta(20, 80, (1, 50)),
    ...                "strength": np.broadcast_to(3 * s, (1, 50, 6))},
    ...     coords={"item": list(sim.data.items)}, dims={"strength": ["item"]})
    >>> axes = plot_ppc(idata, sim.data, n_draws=50, n_draws_curve=5)
    >>> [len(a.lines) for a in axes]
    [1, 1, 2]
    """
    if ppc is None and data is None:
        raise ValueError("plot_ppc needs the data (to replicate) or a precomputed ppc table")
    df = (
        ppc
        if ppc is not None
        else ppc_data(
            model_or_idata,
            data,
            judge=judge,
            statistics=statistics,
            n_draws=n_draws,
            n_draws_curve=n_draws_curve,
            n_subsets=n_subsets,
            random_seed=random_seed,
        )
    )
    present = [s for s in PPC_STATISTICS if s in set(df["statistic"])]
    if not present:
        raise ValueError("no posterior predictive statistic could be computed")
    axes = _axes_array(ax, len(present), ncols=min(len(present), 3))  # tie logs: 2 rows
    names = PPC_STATISTIC_NAMES
    for a, stat in zip(axes, present, strict=False):
        sub = df[df["statistic"] == stat]
        if stat == "delta_s":
            piv = sub.pivot(index="n", columns="draw", values="replicated")
            n = piv.index.to_numpy()
            lo, mid, hi = (np.quantile(piv.to_numpy(), q, axis=1) for q in (0.05, 0.5, 0.95))
            a.fill_between(n, lo, hi, color="#1f77b4", alpha=0.25, lw=0, label="replicated 90%")
            a.plot(n, mid, color="#1f77b4", lw=1.2, label="replicated median")
            obs = sub.groupby("n")["observed"].first()
            a.plot(obs.index, obs.to_numpy(), "o-", color="black", ms=3, label="observed")
            a.set_xlabel("subset size n")
            a.set_ylabel("mean Δ_S")
            a.set_title("PPC: Δ_S–n curve", fontsize=10)
        else:
            obs = float(sub["observed"].iloc[0])
            n_unique = int(sub["replicated"].nunique())
            a.hist(
                sub["replicated"],
                bins=max(5, min(30, n_unique)),
                color="#9ecae1",
                edgecolor="white",
                label="replicated",
            )
            p = df.attrs.get("p_value", {}).get(stat, float("nan"))
            a.axvline(obs, color="black", lw=1.8, label=f"observed {obs:.3f}")
            a.set_xlabel(names[stat])
            a.set_ylabel("replicates")
            a.set_title(f"PPC: {names[stat].split(' (')[0]} (p = {p:.2f})", fontsize=10)
        a.legend(fontsize=7)
    return axes


def plot_sbc_ranks(
    result: SBCResult,
    *,
    bins: int | None = None,
    parameters: Sequence[str] | None = None,
    ax: Any = None,
) -> np.ndarray:
    """Rank histograms of an SBC run, one panel per parameter, with the uniform 99% band.

    Calibrated: the bars stay inside the grey band. A ∪ shape means a posterior too narrow, a ∩
    shape one too wide, a slope a biased posterior. The numbers are
    :func:`bayes_pairwise.model_checking.sbc_rank_data`.

    Parameters
    ----------
    result : SBCResult
        From :func:`bayes_pairwise.model_checking.sbc`.
    bins : int, optional
        Histogram bins (default: as the uniformity test).
    parameters : sequence of str, optional
        Panels to draw (default: every parameter).
    ax : Axes or sequence of Axes, optional
        One per panel; a new figure (four panels a row) when omitted.

    Returns
    -------
    ndarray of Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.model_checking import SBCResult, sbc_summary
    >>> ranks = pd.DataFrame({"sim": range(4), "parameter": "eps", "true": 0.1,
    ...                       "posterior_mean": 0.1, "rank": [0, 30, 60, 99],
    ...                       "n_ranks": 100, "covered": True})
    >>> axes = plot_sbc_ranks(SBCResult("uniform", ranks, sbc_summary(ranks, bins=2), {}), bins=2)
    >>> len(axes), axes[0].get_title().splitlines()[0]
    (1, 'eps')
    """
    data = sbc_rank_data(result, bins=bins)
    names = list(dict.fromkeys(data["parameter"]))
    if parameters is not None:
        names = [n for n in names if n in set(parameters)]
    axes = _axes_array(
        ax, max(1, len(names)), ncols=min(4, max(1, len(names))), panel_size=(3.2, 2.6)
    )
    summary = result.summary.set_index("parameter")
    for a, name in zip(axes, names, strict=False):
        grp = data[data["parameter"] == name]
        a.fill_between(grp["bin"], grp["band_lo"], grp["band_hi"], step="mid", color="0.85", lw=0)
        a.bar(grp["bin"], grp["count"], width=0.9, color="C0", alpha=0.8)
        # The band's edges are drawn over the bars: a bar inside the band would hide its lower
        # edge, the one that shows a missing rank region.
        for edge in ("band_lo", "band_hi"):
            a.step(
                grp["bin"],
                grp[edge],
                where="mid",
                color="0.25",
                lw=0.8,
                ls="--",
                zorder=3,  # bars are patches (zorder 1): the edges lie on top
                label="99% band" if edge == "band_lo" else None,
            )
        a.axhline(float(grp["expected"].mean()), color="0.4", lw=0.8)
        title = short_label(name)
        if name in summary.index:
            s = summary.loc[name]
            title += f"\ncov {s['coverage']:.2f}, p {s['uniformity_p']:.2f}"
        a.set_title(title, fontsize=9)
        a.set_xticks([])
    if ax is None:
        axes[0].figure.suptitle(f"SBC rank histograms: {result.label}", fontsize=10)
    return axes
