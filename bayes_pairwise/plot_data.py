"""The numbers of every plot: the compute side of :mod:`bayes_pairwise.plots`.

:mod:`bayes_pairwise.plots` only draws. Every number a figure shows comes from a function of
this module (the ``*_data`` twins, re-exported by :mod:`~bayes_pairwise.plots` under the same
names), and :func:`bayes_pairwise.crosscheck.crosscheck` calls the same functions to store the
numbers of the report's figures and tables in its :class:`~bayes_pairwise.crosscheck.CrossCheck`
(:func:`figure_numbers`, :func:`copeland_summary`, :func:`correct_score_curves`,
:func:`parameter_table`, :func:`ppc_summary`). The report and the plots import nothing from
``classical``, ``pymc_models``, ``matrices`` or ``simulate`` (``tests/test_architecture.py``):
what they need of those modules is reached through here or through the cross-check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import CONTEXT_SEP, STRENGTH_TIE_RTOL, resolve_hdi_prob, z_value
from bayes_pairwise.leaderboard import rank_probability_data
from bayes_pairwise.model_checking import sbc_rank_data
from bayes_pairwise.pymc_models.diagnostics import as_inference_data, hdi_interval
from bayes_pairwise.pymc_models.ppc import (
    PPC_STATISTIC_NAMES,
    PPC_STATISTICS,
    ppc_data,
    strength_draws,
)

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az

    from bayes_pairwise.data import Comparisons

__all__ = [
    "ERROR_VARIABLES",
    "PPC_STATISTICS",
    "PPC_STATISTIC_NAMES",
    "as_inference_data",
    "bt_vs_posterior_data",
    "ceiling_data",
    "correct_score_data",
    "delta2d_split",
    "delta_s_curve_data",
    "judge_forest_data",
    "misfit_curve_data",
    "misfit_heatmap_data",
    "order_rank_data",
    "panel_name",
    "posterior_entries",
    "posterior_vs_grid_data",
    "ppc_data",
    "rank_probability_data",
    "sbc_rank_data",
    "select_strengths",
    "strength_draws",
    "strength_forest_data",
    "trace_data",
    "trace_variables",
]

#: The error parameters of the models, in display order.
ERROR_VARIABLES = ("eps", "eps_plus", "eps_minus", "gamma", "w")


# ============================================================================ helpers
def _n_samples(idata: az.InferenceData) -> int:
    post = idata.posterior
    return int(post.sizes.get("chain", 1) * post.sizes.get("draw", 1))


def posterior_entries(
    idata: az.InferenceData, var_names: Sequence[str]
) -> list[tuple[str, dict[str, str], np.ndarray]]:
    """(variable, coords of its non-sample dims, flattened draws) for every scalar component."""
    post = idata.posterior
    out = []
    for v in var_names:
        if v not in post.data_vars:
            continue
        da = post[v]
        extra = [d for d in da.dims if d not in ("chain", "draw")]
        if not extra:
            out.append((v, {}, da.values.reshape(-1)))
            continue
        stacked = da.stack(_cell=extra).transpose("chain", "draw", "_cell")
        vals = stacked.values.reshape(-1, stacked.sizes["_cell"])
        idx = stacked.indexes["_cell"]
        for k in range(vals.shape[1]):
            key = idx[k] if isinstance(idx[k], tuple) else (idx[k],)
            coords = {d: str(c) for d, c in zip(extra, key, strict=True)}
            out.append((v, coords, vals[:, k]))
    return out


def _judge_of(idata: Any) -> str | None:
    j = getattr(idata, "attrs", {}).get("judge") if hasattr(idata, "attrs") else None
    return None if j is None else str(j)


def panel_name(variable: str, coords: Mapping[str, str]) -> str:
    if not coords:
        return variable
    return f"{variable}[{', '.join(coords.values())}]"


def _source_label(obj: Any, idata: Any = None) -> str:
    name = type(obj).__name__
    labels = {
        "ScomEstimate": "S_com closed form",
        "PositionalMoments": "moments (S_com, r₁)",
        "DeltaSFit": "Δ_S grid",
        "DeltaS2DFit": "Δ_S 2-D grid (labels arbitrary)",
        "SyntheticComparisons": "realised (synthetic)",
    }
    if name in labels:
        return labels[name]
    method = getattr(obj, "method_", None)
    attrs: dict[str, Any] = {}
    if idata is not None:
        attrs = dict(getattr(idata, "attrs", {}) or {})
        post = getattr(idata, "posterior", None)
        attrs.update(getattr(post, "attrs", {}) or {})
    method = method or attrs.get("method") or attrs.get("estimator")
    if method is None and "bayes_pairwise_settings" in attrs:  # the model classes' stamp
        import json

        try:
            method = json.loads(attrs["bayes_pairwise_settings"]).get("method")
        except (TypeError, ValueError, AttributeError):
            method = None
    if method is not None:
        method = str(method)
        return "MAP" if method.lower() in ("map", "find_map") else method
    return "point estimate" if name == "InferenceData" else name


def _point(source, variable, judge, estimate, lower=np.nan, upper=np.nan, kind="classical", **kw):
    row = {
        "source": source,
        "variable": variable,
        "judge": judge,
        "coord": kw.get("coord", ""),
        "estimate": float(estimate) if estimate is not None else np.nan,
        "lower": float(lower),
        "upper": float(upper),
        "kind": kind,
    }
    return row


def _classical_rows(obj: Any, label: str | None = None) -> list[dict[str, Any]]:
    """Rows (source, variable, judge, estimate, lower, upper, kind) of one classical estimate."""
    name = type(obj).__name__
    z = z_value()  # the package's one interval probability (conventions.HDI_PROB)
    rows: list[dict[str, Any]] = []
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str):
        return _classical_rows(obj[1], label=obj[0])
    if isinstance(obj, Mapping):
        src = label or "given"
        for k, v in obj.items():
            if isinstance(v, Mapping):  # {judge: {var: value}}
                for var, val in v.items():
                    rows.append(_point(src, str(var), str(k), val))
            else:
                rows.append(_point(src, str(k), None, v))
        return rows
    src = label or _source_label(obj)
    if name == "SyntheticComparisons":
        judge = str(obj.data.judges[0]) if obj.data.n_judges == 1 else None
        if obj.generator == "round_robin":
            vals = {
                "eps": obj.realised_eps,
                "eps_plus": obj.realised_eps_plus,
                "eps_minus": obj.realised_eps_minus,
            }
        else:
            vals = {"eps_plus": obj.realised_eps_plus, "eps_minus": obj.realised_eps_minus}
            if obj.gamma is not None and np.ndim(obj.gamma) == 0:
                rows.append(_point("nominal (synthetic)", "gamma", judge, obj.gamma, kind="truth"))
            elif obj.gamma is not None:  # one γ per judge
                for lab, g in zip(obj.data.judges, obj.gamma, strict=False):
                    rows.append(_point("nominal (synthetic)", "gamma", str(lab), g, kind="truth"))
            for cov, w in dict(obj.covariate_effects).items():
                rows.append(_point("nominal (synthetic)", "w", judge, w, kind="truth", coord=cov))
        for var, val in vals.items():
            if val is not None and np.isfinite(val):
                rows.append(_point(src, var, judge, val, kind="truth"))
        return rows
    if name == "ScomEstimate":
        se = obj.eps_se if np.isfinite(obj.eps_se) else np.nan
        return [_point(src, "eps", obj.judge, obj.eps, obj.eps - z * se, obj.eps + z * se)]
    if name == "PositionalMoments":
        out = []
        for var in ("eps_plus", "eps_minus"):
            v, se = getattr(obj, var), getattr(obj, var + "_se")
            out.append(_point(src, var, obj.judge, v, v - z * se, v + z * se))
        return out
    if name == "DeltaS2DFit":
        ep, em, split = delta2d_split(obj)
        if split and label is None:
            src = "Δ_S 2-D sum split by r₁"
        return [_point(src, "eps_plus", obj.judge_, ep), _point(src, "eps_minus", obj.judge_, em)]
    if name == "DeltaSFit":
        return [_point(src, "eps", obj.judge_, obj.eps_)]
    if name in ("BradleyTerry", "BiasedBTSpreadSearch"):
        return []
    idata = as_inference_data(obj)
    src = label or _source_label(obj, idata)
    judge = _judge_of(idata)
    kind = "classical"
    for var, coords, draws in posterior_entries(idata, ERROR_VARIABLES):
        j = coords.get("judge", judge)
        coord = ", ".join(v for d, v in coords.items() if d != "judge")
        if draws.size == 1:
            rows.append(_point(src, var, j, draws[0], kind=kind, coord=coord))
        else:
            lo, hi = hdi_interval(draws)
            rows.append(_point(src, var, j, float(np.mean(draws)), lo, hi, kind=kind, coord=coord))
    return rows


def delta2d_split(fit: Any) -> tuple[float, float, bool]:
    """(ε₊, ε₋) to show for a 2-D Δ_S fit: the sum split by r₁ when available, else the
    paper's (arbitrarily labelled) average; the flag says which."""
    for suffix in ("hybrid_", "oriented_"):
        ep = getattr(fit, "eps_plus_" + suffix, None)
        em = getattr(fit, "eps_minus_" + suffix, None)
        if ep is not None and em is not None:
            return float(ep), float(em), True
    return float(fit.eps_plus_), float(fit.eps_minus_), False


def _check_fit(fit: Any, attr: str, what: str) -> None:
    if not hasattr(fit, attr):
        from bayes_pairwise.errors import NotFittedError

        raise NotFittedError(f"{what} needs a fitted estimate with {attr!r}; call fit() first")


def delta_s_curve_data(fit: Any) -> pd.DataFrame:
    """The observed Δ_S–n curve and the fitted synthetic curve of a Δ_S fit.

    Parameters
    ----------
    fit : DeltaSFit or DeltaS2DFit
        A fitted Δ_S estimator.

    Returns
    -------
    DataFrame
        Columns ``n`` (subset size, 2..N), ``observed`` (``fit.observed_curve_``), ``synthetic``
        (``fit.synthetic_curve_``, at the fitted grid value) and ``weight`` (share of contexts
        with at least n items; 1 for one round-robin). ``attrs`` hold the estimate and judge.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_pairwise.classical.deltas import DeltaSFit
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(12, eps=0.2, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaSFit(n_subsets=50, random_seed=0, cache_dir=d).fit(sim.data)
    >>> df = delta_s_curve_data(fit)
    >>> df["n"].tolist()[:3], len(df)
    ([2, 3, 4], 11)
    """
    _check_fit(fit, "observed_curve_", "delta_s_curve_data")
    obs = np.asarray(fit.observed_curve_, dtype=float)
    syn = np.asarray(fit.synthetic_curve_, dtype=float)
    sizes = np.asarray(getattr(fit, "sizes_", np.arange(2, obs.size + 2)))[: obs.size]
    weights = getattr(fit, "weights_", None)
    weights = np.ones(obs.size) if weights is None else np.asarray(weights, dtype=float)
    df = pd.DataFrame(
        {"n": sizes.astype(int), "observed": obs, "synthetic": syn[: obs.size], "weight": weights}
    )
    df.attrs.update(_delta_attrs(fit))
    return df


def _delta_attrs(fit: Any) -> dict[str, Any]:
    if hasattr(fit, "eps_plus_"):
        return {
            "kind": "2d",
            "eps_plus": float(fit.eps_plus_),
            "eps_minus": float(fit.eps_minus_),
            "eps_low": float(fit.eps_low_),
            "eps_high": float(fit.eps_high_),
            "eps_sum": float(getattr(fit, "eps_sum_", fit.eps_plus_ + fit.eps_minus_)),
            "judge": str(fit.judge_),
            "n_contexts": int(fit.n_contexts_),
        }
    return {
        "kind": "1d",
        "eps": float(fit.eps_),
        "judge": str(fit.judge_),
        "n_contexts": int(fit.n_contexts_),
    }


def misfit_curve_data(fit: Any) -> pd.DataFrame:
    """Misfit Σ_n w_n |observed(n) − synthetic_ε(n)| of a 1-D Δ_S fit over its ε grid.

    Parameters
    ----------
    fit : DeltaSFit

    Returns
    -------
    DataFrame
        Columns ``eps`` (``fit.grid_``) and ``misfit`` (``fit.misfit_``); ``attrs["eps"]`` is the
        argmin.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_pairwise.classical.deltas import DeltaSFit
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(12, eps=0.2, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaSFit(n_subsets=50, random_seed=0, cache_dir=d).fit(sim.data)
    >>> df = misfit_curve_data(fit)
    >>> float(df.loc[df["misfit"].idxmin(), "eps"]) == fit.eps_
    True
    """
    _check_fit(fit, "misfit_", "misfit_curve_data")
    mis = np.asarray(fit.misfit_, dtype=float)
    if mis.ndim != 1:
        raise ValueError("misfit_curve_data needs a 1-D DeltaSFit; use misfit_heatmap_data")
    df = pd.DataFrame({"eps": np.asarray(fit.grid_, dtype=float), "misfit": mis})
    df.attrs.update(_delta_attrs(fit))
    return df


def misfit_heatmap_data(fit: Any) -> pd.DataFrame:
    """The 2-D misfit surface of a :class:`~bayes_pairwise.classical.deltas.DeltaS2DFit`.

    Parameters
    ----------
    fit : DeltaS2DFit

    Returns
    -------
    DataFrame
        Long form: columns ``eps_plus``, ``eps_minus``, ``misfit`` (``fit.misfit_[i, j]`` at
        ``grid_[i]``, ``grid_[j]``). ``attrs`` hold the paper's estimate, the identified pair
        ``eps_low``/``eps_high``/``eps_sum``, the sum split by r₁ (``eps_plus_split``,
        ``eps_minus_split``) and ``caveat``.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_pairwise.classical.deltas import DeltaS2DFit
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(10, eps_plus=0.05, eps_minus=0.25, random_seed=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fit = DeltaS2DFit(grid_step=0.05, n_subsets=30, cache_dir=d).fit(sim.data)
    >>> df = misfit_heatmap_data(fit)
    >>> len(df), df.attrs["identifiable"]
    (121, False)
    """
    _check_fit(fit, "misfit_", "misfit_heatmap_data")
    mis = np.asarray(fit.misfit_, dtype=float)
    if mis.ndim != 2:
        raise ValueError("misfit_heatmap_data needs a DeltaS2DFit; use misfit_curve_data")
    g = np.asarray(fit.grid_, dtype=float)
    ep, em = np.meshgrid(g, g, indexing="ij")
    df = pd.DataFrame({"eps_plus": ep.ravel(), "eps_minus": em.ravel(), "misfit": mis.ravel()})
    df.attrs.update(_delta_attrs(fit))
    ep, em, split = delta2d_split(fit)
    df.attrs.update(
        {
            "eps_plus_split": ep if split else None,
            "eps_minus_split": em if split else None,
            "identifiable": bool(fit.identifiable_),
            "caveat": str(fit.caveat_),
        }
    )
    return df


_PR_METHODS = {"paper": "paper_reversal_only", "mc": "monte_carlo"}


def correct_score_data(
    eps: float | None = 0.15,
    *,
    eps_plus: float | None = None,
    eps_minus: float | None = None,
    ranks: Iterable[int] = range(1, 9),
    n_max: int = 100,
    n_min: int = 2,
    methods: Sequence[str] = ("exact",),
    n_sims: int = 20000,
    random_seed: int | None = 0,
) -> pd.DataFrame:
    """P(R_m, TO) — the probability that the text of true rank m gets its correct Copeland
    score — as a function of the number of texts N (the paper's Figure 1).

    The numbers come from :func:`bayes_pairwise.classical.correct_score.p_correct_score`.

    Parameters
    ----------
    eps : float, optional
        Uniform error rate (ignored when ``eps_plus``/``eps_minus`` are given).
    eps_plus, eps_minus : float, optional
        Positional error rates instead.
    ranks : iterable of int
        True ranks m (paper: 1..8).
    n_max, n_min : int
        N runs over max(n_min, m, 2)..n_max (paper: up to 100).
    methods : sequence of str
        ``"exact"`` (METHODS §4), ``"paper_reversal_only"`` (alias ``"paper"``: the paper's
        printed form, which counts only full pair reversals and undercounts for m ≥ 2) and
        ``"monte_carlo"`` (alias ``"mc"``; slow for many N).
    n_sims : int
        Monte Carlo replications.
    random_seed : int, optional
        Monte Carlo seed.

    Returns
    -------
    DataFrame
        Columns ``N``, ``m``, ``method``, ``p``; ``attrs`` hold the rates.

    Examples
    --------
    >>> df = correct_score_data(0.15, ranks=[2], n_max=10, methods=("exact", "paper"))
    >>> df[df["N"] == 10].set_index("method")["p"].round(3).to_dict()
    {'exact': 0.113, 'paper_reversal_only': 0.054}
    """
    from bayes_pairwise.classical.correct_score import p_correct_score

    rates: dict[str, Any]
    if eps_plus is not None or eps_minus is not None:
        rates = {"eps_plus": eps_plus, "eps_minus": eps_minus}
    else:
        rates = {"eps": eps}
    frames = []
    for method in methods:
        meth = _PR_METHODS.get(method, method)
        for m in ranks:
            m = int(m)
            if m < 1:
                raise ValueError(f"ranks must be >= 1, got {m}")
            ns = np.arange(max(int(n_min), m, 2), int(n_max) + 1)
            if ns.size == 0:
                continue
            if meth == "monte_carlo":
                p = np.array(
                    [
                        p_correct_score(
                            int(n), m, method=meth, n_sims=n_sims, random_seed=random_seed, **rates
                        ).estimate
                        for n in ns
                    ]
                )
            else:
                p = np.asarray(p_correct_score(ns, m, method=meth, **rates), dtype=float)
            frames.append(pd.DataFrame({"N": ns, "m": m, "method": meth, "p": p}))
    df = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["N", "m", "method", "p"])
    )
    df.attrs.update({k: (None if v is None else float(v)) for k, v in rates.items()})
    return df


def ceiling_data(ceiling: Mapping[str, Any], *, text_blind: Iterable[str] = ()) -> pd.DataFrame:
    """Each judge's S_com against its ceiling r₁² + (1 − r₁)²: the numbers of
    :func:`~bayes_pairwise.plots.plot_ceiling`.

    Parameters
    ----------
    ceiling : dict
        Judge → statistics against the ceiling (:func:`~bayes_pairwise.caveats.ceiling_stats`;
        :attr:`~bayes_pairwise.crosscheck.CrossCheck.ceiling`).
    text_blind : iterable of str
        The judges the log cannot tell from ones that ignore the texts
        (:attr:`~bayes_pairwise.crosscheck.CrossCheck.text_blind`).

    Returns
    -------
    DataFrame
        One row per judge: ``judge``, ``r1``, ``s_com``, ``lower`` and ``upper`` (S_com ± the
        package's z times the standard error of S_com − ceiling), ``ceiling``, ``informedness``
        (1 − ε₊ − ε₋ = √(2 (ceiling − S_com))), ``n_pairs``, ``text_blind``, ``beyond``
        (S_com beyond every pair of rates) and ``on_ceiling`` (S_com within chance of the
        ceiling: the within-pair test alone would call the judge text-blind — where
        ``text_blind`` is False, the texts' wins across pairs told it apart).

    Examples
    --------
    >>> from bayes_pairwise.caveats import ceiling_stats
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> st = ceiling_stats(simulate_round_robin(20, eps=0.1, random_seed=0).data)
    >>> ceiling_data({"j": st}).loc[0, ["s_com", "ceiling"]].round(3).to_dict()
    {'s_com': 0.179, 'ceiling': 0.5}
    """
    blind = {str(j) for j in text_blind}
    z = z_value()
    rows = []
    for j, st in ceiling.items():
        s_com, r1, n_pairs = st.ceiling_numbers()
        se = float(st.s_com_excess_se)
        rows.append(
            {
                "judge": str(j),
                "r1": float(r1),
                "s_com": float(s_com),
                "lower": float(s_com - z * se),
                "upper": float(s_com + z * se),
                "ceiling": float(st.s_com_ceiling),
                "informedness": float(st.informedness()[0]),
                "n_pairs": int(n_pairs),
                "text_blind": str(j) in blind,
                "beyond": bool(st.beyond_rates),
                "on_ceiling": bool(st.text_blind),
            }
        )
    cols = [
        "judge", "r1", "s_com", "lower", "upper", "ceiling", "informedness", "n_pairs",
        "text_blind", "beyond", "on_ceiling",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def posterior_vs_grid_data(
    model_or_idata: Any,
    *classical: Any,
    var_names: Sequence[str] | None = None,
    judge: str | None = None,
    hdi_prob: float | None = None,
) -> pd.DataFrame:
    """Posterior summaries of the error parameters next to classical estimates (one row each).

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
        The Bayesian fit (NUTS posterior, or a one-draw MAP posterior).
    *classical
        Classical estimates to compare with (see the module docstring): S_com estimate, moments,
        Δ_S fits, MAP fits, a :class:`~bayes_pairwise.simulate.SyntheticComparisons` (realised
        rates), a mapping ``{variable: value}`` or ``(label, estimate)``.
    var_names : sequence of str, optional
        Variables (default: those of :data:`ERROR_VARIABLES` in the posterior).
    judge : str, optional
        Keep only the panels of this judge (of a posterior with a ``judge`` dimension).
    hdi_prob : float
        HDI mass for the posterior row.

    Returns
    -------
    DataFrame
        Columns ``panel`` (variable and its coordinates, e.g. ``eps_plus[gpt4]``),
        ``variable``, ``judge``, ``coord``, ``source``, ``kind`` (``"posterior"``, ``"point"`` for
        a one-draw fit, ``"classical"``, ``"truth"``), ``estimate``, ``lower``, ``upper``. The
        posterior row has the mean and the HDI; classical rows their estimate and, where they
        have one, a normal interval of the package's one interval probability
        (:data:`~bayes_pairwise.conventions.HDI_PROB`: estimate ± ``z_value()`` × SE). A
        classical estimate appears on a panel when its variable matches and its judge matches
        the panel's (or either has no judge).

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps": rng.normal(0.15, 0.01, (2, 200))})
    >>> df = posterior_vs_grid_data(idata, ("Δ_S grid", {"eps": 0.16}))
    >>> df[["variable", "source", "kind"]].values.tolist()
    [['eps', 'posterior', 'posterior'], ['eps', 'Δ_S grid', 'classical']]
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    idata = as_inference_data(model_or_idata)
    names = [v for v in (var_names or ERROR_VARIABLES) if v in idata.posterior.data_vars]
    if not names:
        raise ValueError(
            f"the posterior has none of the variables {list(var_names or ERROR_VARIABLES)}; "
            f"it has {list(idata.posterior.data_vars)}"
        )
    base_judge = _judge_of(idata)
    point = _n_samples(idata) == 1
    post_label = _source_label(model_or_idata, idata) if point else "posterior"
    crows: list[dict[str, Any]] = []
    for c in classical:
        crows.extend(_classical_rows(c))
    rows = []
    only = judge
    for var, coords, draws in posterior_entries(idata, names):
        judge = coords.get("judge", base_judge)
        if only is not None and judge is not None and str(judge) != str(only):
            continue
        coord = ", ".join(v for d, v in coords.items() if d != "judge")
        panel = panel_name(var, coords)
        if point:
            est, lo, hi = float(draws[0]), np.nan, np.nan
        else:
            est = float(np.mean(draws))
            lo, hi = hdi_interval(draws, hdi_prob)
        rows.append(
            {
                "panel": panel,
                "variable": var,
                "judge": judge,
                "coord": coord,
                "source": post_label,
                "kind": "point" if point else "posterior",
                "estimate": est,
                "lower": lo,
                "upper": hi,
            }
        )
        for r in crows:
            if r["variable"] != var:
                continue
            if r["judge"] is not None and judge is not None and str(r["judge"]) != str(judge):
                continue
            if r["coord"] and coord and r["coord"] != coord:
                continue
            rows.append({"panel": panel, **{k: v for k, v in r.items()}, "judge": judge})
    cols = ["panel", "variable", "judge", "coord", "source", "kind", "estimate", "lower", "upper"]
    if not rows:
        raise ValueError(f"the posterior has no panel for judge {only!r}")
    return pd.DataFrame(rows, columns=cols)


def _mm_series(mm: Any) -> pd.Series | None:
    if mm is None:
        return None
    if isinstance(mm, pd.Series):
        return mm.rename(index=str).astype(float)
    if hasattr(mm, "strengths_"):
        return mm.strengths_.rename(index=str).astype(float)
    idata = as_inference_data(mm)
    vals, labels = strength_draws(idata)
    return pd.Series(vals.mean(axis=0), index=labels, dtype=float)


def _groups(labels: Sequence[str], groups: Any) -> np.ndarray | None:
    if groups is None:
        return None
    if isinstance(groups, str) and groups == "auto":
        if labels and all(CONTEXT_SEP in s for s in labels):
            return np.array([s.split(CONTEXT_SEP, 1)[0] for s in labels], dtype=object)
        return None
    if isinstance(groups, pd.Series):
        return groups.rename(index=str).reindex(list(labels)).to_numpy(dtype=object)
    if isinstance(groups, Mapping):
        return np.array([groups.get(s) for s in labels], dtype=object)
    arr = np.asarray(groups, dtype=object)
    if arr.shape != (len(labels),):
        raise ValueError(f"groups needs one value per item ({len(labels)}), got {arr.shape}")
    return arr


def _centre(values: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """Subtract the mean over items (last axis), within groups when given (NaN-aware)."""
    v = np.array(values, dtype=float)
    if groups is None:
        return v - np.nanmean(v, axis=-1, keepdims=True)
    g = pd.Series(groups).astype(str).to_numpy()
    for key in np.unique(g):
        sel = g == key
        v[..., sel] -= np.nanmean(v[..., sel], axis=-1, keepdims=True)
    return v


def strength_forest_data(
    model_or_idata: Any,
    mm: Any = None,
    *,
    hdi_prob: float | None = None,
    groups: Any = "auto",
    items: Sequence[str] | None = None,
    max_items: int | None = None,
    sort: bool = True,
) -> pd.DataFrame:
    """Posterior mean and HDI of every item strength, with a Bradley–Terry MM estimate.

    Strengths are only identified up to a constant per connected set of items (per context for
    a log made of separate round-robins), so both the posterior draws and the MM estimate are
    centred within ``groups`` before summarising. The MM strengths (Bradley–Terry scale, no
    lapses) are also given rescaled by the least-squares factor onto the posterior means
    (``mm_scaled``; the factor is ``attrs["mm_scale"]``): the error models' strengths describe
    the latent truth, whose scale is larger.

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
        With a ``strength`` variable over an item dimension.
    mm : BradleyTerry, Series or InferenceData, optional
        Classical strengths by item label.
    hdi_prob : float
    groups : "auto", Series, mapping, array or None
        Centring groups. ``"auto"``: the context part of ``"context::name"`` labels when every
        label has one, else all items together. ``None``: all items together.
    items : sequence of str, optional
        Keep only these item labels (in this order unless ``sort``).
    max_items : int, optional
        Keep at most this many rows (after sorting).
    sort : bool
        Sort by group, then by descending posterior mean.

    Returns
    -------
    DataFrame
        Indexed by item label: ``group``, ``mean``, ``lower``, ``upper``, ``mm``, ``mm_scaled``.

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal([1.0, 0.0, -1.0], 0.1, size=(2, 100, 3))
    >>> idata = az.from_dict(posterior={"strength": draws}, coords={"item": ["a", "b", "c"]},
    ...                      dims={"strength": ["item"]})
    >>> df = strength_forest_data(idata)
    >>> df.index.tolist(), bool(df["lower"].lt(df["mean"]).all())
    (['a', 'b', 'c'], True)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    idata = as_inference_data(model_or_idata)
    vals, labels = strength_draws(idata)
    g = _groups(labels, groups)
    cen = _centre(vals, g)
    mean = cen.mean(axis=0)
    hdi = np.array([hdi_interval(cen[:, k], hdi_prob) for k in range(cen.shape[1])]).reshape(-1, 2)
    df = pd.DataFrame(
        {
            "group": g if g is not None else np.full(len(labels), "", dtype=object),
            "mean": mean,
            "lower": hdi[:, 0],
            "upper": hdi[:, 1],
        },
        index=pd.Index(labels, name="item"),
    )
    mms = _mm_series(mm)
    scale = float("nan")
    if mms is not None:
        raw = mms.reindex(df.index).to_numpy(dtype=float)
        mmc = _centre(raw, g)
        df["mm"] = mmc
        ok = np.isfinite(mmc) & np.isfinite(mean)
        den = float(np.sum(mmc[ok] ** 2))
        scale = float(np.sum(mmc[ok] * mean[ok]) / den) if den > 0 else float("nan")
        df["mm_scaled"] = mmc * scale
    else:
        df["mm"] = np.nan
        df["mm_scaled"] = np.nan
    df.attrs["mm_scale"] = scale
    df.attrs["hdi_prob"] = float(hdi_prob)
    return select_strengths(df, items=items, max_items=max_items, sort=sort)


def select_strengths(
    table: pd.DataFrame,
    *,
    items: Sequence[str] | None = None,
    max_items: int | None = None,
    sort: bool = True,
) -> pd.DataFrame:
    """Rows of a :func:`strength_forest_data` table: these ``items`` (in this order unless
    ``sort``), sorted by group then by descending mean, at most ``max_items`` of them.

    Examples
    --------
    >>> t = pd.DataFrame({"group": ["", "", ""], "mean": [0.0, 1.0, -1.0]},
    ...                  index=pd.Index(["a", "b", "c"], name="item"))
    >>> select_strengths(t, max_items=2).index.tolist()
    ['b', 'a']
    """
    df = table
    if items is not None:
        missing = [i for i in items if str(i) not in df.index]
        if missing:
            raise KeyError(f"unknown item labels {missing[:5]}")
        df = df.loc[[str(i) for i in items]]
    if sort:
        first_seen = {k: n for n, k in enumerate(dict.fromkeys(df["group"]))}
        order = np.lexsort((-df["mean"].to_numpy(), df["group"].map(first_seen).to_numpy()))
        df = df.iloc[order]
    if max_items is not None:
        df = df.iloc[: int(max_items)]
    out = df.copy()
    out.attrs = dict(table.attrs)
    return out


def judge_forest_data(
    fits: Any,
    *,
    var_names: Sequence[str] = ("eps_plus", "eps_minus"),
    classical: pd.DataFrame | None = None,
    hdi_prob: float | None = None,
) -> pd.DataFrame:
    """Posterior mean and HDI of each judge's error rates, one row per (judge, variable).

    Parameters
    ----------
    fits : mapping, sequence, fitted model or InferenceData
        ``{judge: fit}``; a sequence of single-judge fits (the judge is read from the
        posterior's ``judge`` coordinate or ``attrs["judge"]``); or one multi-judge fit whose
        variables have a ``judge`` dimension.
    var_names : sequence of str
        Variables to show (those missing from a fit are skipped); e.g. ``("eps",)`` for
        uniform-error fits or ``("gamma",)``.
    classical : DataFrame, optional
        Classical estimates indexed by judge with columns named like ``var_names`` (e.g.
        :func:`~bayes_pairwise.classical.descriptive.descriptive_by_judge`'s ``eps_plus`` /
        ``eps_minus`` moments), added as rows with ``source="classical"``.
    hdi_prob : float

    Returns
    -------
    DataFrame
        Columns ``judge``, ``variable``, ``source`` (``"posterior"``, ``"point"`` or
        ``"classical"``), ``mean``, ``lower``, ``upper``; judges in input order.

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps_plus": rng.beta(5, 40, (2, 100, 3)),
    ...                                 "eps_minus": rng.beta(9, 40, (2, 100, 3))},
    ...                      coords={"judge": ["a", "b", "c"]},
    ...                      dims={"eps_plus": ["judge"], "eps_minus": ["judge"]})
    >>> df = judge_forest_data(idata)
    >>> df["judge"].unique().tolist(), len(df)
    (['a', 'b', 'c'], 6)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    import arviz as az

    if isinstance(fits, az.InferenceData):
        pairs = [(None, fits)]
    elif isinstance(fits, Mapping):
        pairs = [(str(k), v) for k, v in fits.items()]
    elif isinstance(fits, list | tuple):
        pairs = [(None, f) for f in fits]
    else:
        pairs = [(None, fits)]
    rows = []
    for label, fit in pairs:
        idata = as_inference_data(fit)
        point = _n_samples(idata) == 1
        base = label if label is not None else _judge_of(idata)
        for var, coords, draws in posterior_entries(idata, list(var_names)):
            judge = coords.get("judge", base)
            if label is not None and "judge" in coords and len(pairs) > 1:
                judge = label  # mapping keys win for single-judge fits with a judge dim
            if point:
                m, lo, hi = float(draws[0]), np.nan, np.nan
            else:
                m = float(np.mean(draws))
                lo, hi = hdi_interval(draws, hdi_prob)
            rows.append(
                {
                    "judge": "judge" if judge is None else str(judge),
                    "variable": var,
                    "source": "point" if point else "posterior",
                    "mean": m,
                    "lower": lo,
                    "upper": hi,
                }
            )
    if classical is not None:
        for judge, r in classical.iterrows():
            for var in var_names:
                if var in r.index and np.isfinite(float(r[var])):
                    rows.append(
                        {
                            "judge": str(judge),
                            "variable": var,
                            "source": "classical",
                            "mean": float(r[var]),
                            "lower": np.nan,
                            "upper": np.nan,
                        }
                    )
    df = pd.DataFrame(rows, columns=["judge", "variable", "source", "mean", "lower", "upper"])
    if df.empty:
        raise ValueError(f"none of the fits has any of {list(var_names)}")
    df.attrs["hdi_prob"] = float(hdi_prob)
    return df


def trace_variables(idata: az.InferenceData, var_names: Sequence[str] | None) -> list[str]:
    if var_names is not None:
        return list(var_names)
    names = [v for v in ERROR_VARIABLES if v in idata.posterior.data_vars]
    if not names:
        names = [v for v in idata.posterior.data_vars if v != "strength"][:4]
    return names


def trace_data(model_or_idata: Any, *, var_names: Sequence[str] | None = None) -> pd.DataFrame:
    """The draws a trace / rank plot shows, long form.

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
    var_names : sequence of str, optional
        Default: the error parameters present (``strength`` excluded).

    Returns
    -------
    DataFrame
        Columns ``variable``, ``coord``, ``chain``, ``draw``, ``value``.

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> idata = az.from_dict(posterior={"eps": np.zeros((2, 5)), "strength": np.zeros((2, 5, 3))})
    >>> trace_data(idata)["variable"].unique().tolist(), len(trace_data(idata))
    (['eps'], 10)
    """
    idata = as_inference_data(model_or_idata)
    names = trace_variables(idata, var_names)
    post = idata.posterior
    frames = []
    for v in names:
        da = post[v]
        extra = [d for d in da.dims if d not in ("chain", "draw")]
        df = da.to_dataframe(name="value").reset_index()
        df["coord"] = df[extra].astype(str).agg(", ".join, axis=1) if extra else ""
        df["variable"] = v
        frames.append(df[["variable", "coord", "chain", "draw", "value"]])
    return pd.concat(frames, ignore_index=True)


def bt_vs_posterior_data(
    model_or_idata: Any,
    mm: Any,
    *,
    groups: Any = "auto",
    hdi_prob: float | None = None,
    strengths: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Bradley–Terry MM strengths against posterior mean strengths, one row per item.

    Both are centred within ``groups`` (see :func:`strength_forest_data`).

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
    mm : BradleyTerry, Series or InferenceData
    groups : "auto", Series, mapping, array or None
    hdi_prob : float
    strengths : DataFrame, optional
        The :func:`strength_forest_data` table of the same posterior and ``mm`` (unsorted), to
        reuse instead of summarising the draws again.

    Returns
    -------
    DataFrame
        Indexed by item: ``group``, ``mm``, ``mean``, ``lower``, ``upper``. ``attrs`` hold
        ``spearman`` (Spearman ρ of the two), ``mm_scale`` (least-squares factor) and
        ``max_abs_diff`` (max |posterior mean − scaled MM|).

    Examples
    --------
    >>> import arviz as az, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal([2.0, 0.0, -2.0], 0.1, size=(2, 100, 3))
    >>> idata = az.from_dict(posterior={"strength": draws}, coords={"item": ["a", "b", "c"]},
    ...                      dims={"strength": ["item"]})
    >>> df = bt_vs_posterior_data(idata, pd.Series([1.0, 0.0, -1.0], index=["a", "b", "c"]))
    >>> df.attrs["spearman"], round(df.attrs["mm_scale"], 1)
    (1.0, 2.0)
    """
    hdi_prob = resolve_hdi_prob(hdi_prob)
    if mm is None:
        raise ValueError("bt_vs_posterior_data needs MM strengths")
    df = (
        strengths
        if strengths is not None
        else strength_forest_data(model_or_idata, mm, groups=groups, hdi_prob=hdi_prob, sort=False)
    )
    ok = df["mm"].notna() & df["mean"].notna()
    from bayes_pairwise.classical.agreement import spearman_rho

    rho = (
        spearman_rho(
            df.loc[ok, "mm"].to_numpy(), df.loc[ok, "mean"].to_numpy(), tie_rtol=STRENGTH_TIE_RTOL
        )
        if ok.sum() >= 2
        else float("nan")
    )
    out = df[["group", "mm", "mean", "lower", "upper"]].copy()
    out.attrs["spearman"] = float(rho)
    out.attrs["mm_scale"] = df.attrs["mm_scale"]
    out.attrs["max_abs_diff"] = (
        float(np.max(np.abs(df.loc[ok, "mean"] - df.loc[ok, "mm_scaled"])))
        if ok.any()
        else float("nan")
    )
    out.attrs["n_items"] = int(ok.sum())
    return out


# ============================================================================ order-model ranks
def order_rank_data(model: Any, data: Comparisons | None = None) -> pd.DataFrame:
    """The hard-truth (order) models' posterior ranks pooled by item name, beside Copeland's.

    Parameters
    ----------
    model : fitted UniformOrder or PositionalOrder
        Its :attr:`~bayes_pairwise.pymc_models.PositionalOrder.ranks_by_name_`: the order of
        each context summed out, the judges' errors taken into account.
    data : Comparisons, optional
        The log it was fitted to: each judge's Copeland score share is added as
        ``"Copeland <judge>"`` — per context, (1 + S_i / (k − 1)) / 2 with the Copeland score
        S_i = Σ_j w_ij, w_ij ∈ [−1, 1] the net share of the pair's verdicts i won (a tied or
        uncompared pair counts half), averaged by name. It is the classical counterpart
        of ``beats_share`` (the share of the context's other items it is truly better than):
        both are 1 for an item above all others and 0 for one below all.

    Returns
    -------
    DataFrame
        Indexed by name, best first: ``contexts``, ``beats_share``, ``p_best``,
        ``expected_rank`` (posterior, 1 = best) and a ``Copeland <judge>`` share per judge.
        ``attrs["rank_draws"]``: the posterior draws averaged over.

    Raises
    ------
    ValueError
        ``model`` estimates strengths, not ranks (no ``ranks_by_name_``).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> from bayes_pairwise.pymc_models import UniformOrder
    >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
    >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
    >>> df = order_rank_data(m, sim.data)
    >>> list(df.columns)
    ['contexts', 'beats_share', 'p_best', 'expected_rank', 'Copeland judge']
    """
    if not hasattr(type(model), "ranks_by_name_"):
        raise ValueError(
            f"{type(model).__name__} estimates strengths, not ranks: order_rank_data takes the "
            "hard-truth models (uniform_order, positional_order)"
        )
    from bayes_pairwise.classical.descriptive import copeland_ranking

    out = model.ranks_by_name_
    if data is not None:
        for judge, block in data.by_judge():
            r = copeland_ranking(block)
            size = r.groupby("context", sort=False)["item"].transform("size").to_numpy()
            share = 0.5 * (1.0 + r["score"].to_numpy(dtype=float) / np.maximum(size - 1, 1))
            share = pd.Series(np.where(size > 1, share, np.nan), index=r.index)
            by_name = share.groupby(r["item"].to_numpy()).mean()
            out[f"Copeland {judge}"] = by_name.reindex(out.index).astype(float)
    return out
