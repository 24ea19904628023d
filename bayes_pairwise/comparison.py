"""Cross-checks: classical and Bayesian estimates side by side (METHODS §8).

:func:`compare` returns a :class:`CrossCheck` whose ``table`` is tidy — one row per
(quantity, judge, method) with the estimate and its interval — and whose ``verdict`` says in
plain words whether the Bayesian and the grid estimates agree.

| quantity | methods |
|---|---|
| ``eps`` | S_com closed form (± 1.96 SE), Δ_S 1-D grid, uniform posterior (mean, 94% HDI) |
| ``eps_plus``, ``eps_minus`` | moments (S_com, r₁), positional posterior, Δ_S 2-D grid (caveat) |
| ``gamma`` | biased-BT spread search ε_opt (the paper's baseline) vs the biased-BT posterior γ |
| ``strength_spearman``, ``strength_max_abs_diff`` | MM strengths vs posterior means |

On synthetic data (``truth=`` a :class:`~bayes_pairwise.simulate.SyntheticComparisons`) every
quantity also gets the *realised* value of that draw.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import BayesPairwiseError, DesignError

__all__ = ["CrossCheck", "compare", "posterior_stats"]

HDI_PROB = 0.94
TIES_DROPPED = " (ties dropped, as the models)"
COLUMNS = ["quantity", "judge", "method", "estimate", "lower", "upper", "interval", "note"]


def _idata_of(fit: Any) -> Any:
    return getattr(fit, "idata_", fit)


def posterior_stats(
    idata: Any, var: str, *, judge: str | None = None, hdi_prob: float = HDI_PROB
) -> tuple[float, float, float] | None:
    """Posterior mean and HDI of a scalar (or per-judge) variable; ``None`` if absent.

    A one-draw posterior (MAP, grid and MM fits) has no interval: its bounds are NaN.

    Parameters
    ----------
    idata : arviz.InferenceData or fitted model
    var : str
    judge : str, optional
        Picks the coordinate of a ``judge`` dimension when the variable has one.
    hdi_prob : float

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict(posterior={"eps": rng.normal(0.2, 0.01, (2, 500))})
    >>> mean, lo, hi = posterior_stats(idata, "eps")
    >>> round(mean, 2), lo < 0.2 < hi
    (0.2, True)
    """
    import arviz as az

    idata = _idata_of(idata)
    if idata is None or "posterior" not in idata.groups() or var not in idata.posterior:
        return None
    da = idata.posterior[var]
    if "judge" in da.dims:
        if judge is None:
            if da.sizes["judge"] != 1:
                return None
            da = da.isel(judge=0)
        else:
            labels = [str(v) for v in da.coords["judge"].values]
            if str(judge) not in labels:
                return None
            da = da.isel(judge=labels.index(str(judge)))
    extra = [d for d in da.dims if d not in ("chain", "draw")]
    if extra:
        return None
    mean = float(da.mean())
    if da.sizes["chain"] * da.sizes["draw"] < 4:
        return mean, float("nan"), float("nan")
    h = az.hdi(da, hdi_prob=hdi_prob)
    h = h[next(iter(h.data_vars))] if hasattr(h, "data_vars") else h
    vals = np.asarray(h).ravel()
    return mean, float(vals[0]), float(vals[1])


def _posterior_strengths(idata: Any, items: Sequence[str]) -> pd.Series | None:
    idata = _idata_of(idata)
    if idata is None or "posterior" not in idata.groups():
        return None
    for name in ("strength", "s"):
        if name in idata.posterior:
            da = idata.posterior[name].mean(("chain", "draw"))
            dim = next(iter(da.dims))
            labels = [str(v) for v in da.coords[dim].values]
            s = pd.Series(np.asarray(da), index=labels)
            return s.reindex(list(items))
    return None


def _fit_label(fit: Any) -> str:
    name = getattr(fit, "name", None) or getattr(fit, "model_name", None) or type(fit).__name__
    method = getattr(fit, "method_", None)
    if method is None:
        idata = _idata_of(fit)
        post = getattr(idata, "posterior", None)
        if post is not None and post.sizes.get("chain", 0) * post.sizes.get("draw", 0) == 1:
            method = "map"
    return f"{name} ({'MAP' if method == 'map' else 'posterior'})"


@dataclass(frozen=True)
class CrossCheck:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : DataFrame
        Tidy: ``quantity``, ``judge``, ``method``, ``estimate``, ``lower``, ``upper``,
        ``interval`` (what the bounds are), ``note``.
    verdict : str
        Plain-language agreement statement, one paragraph per judge.
    agreement : DataFrame
        Per judge: grid ε, posterior mean and HDI, whether the grid value lies in the HDI.
    fits : dict
        The fitted objects (classical and Bayesian) by name, for plots and reports.
    settings : dict
    """

    table: pd.DataFrame
    verdict: str
    agreement: pd.DataFrame
    fits: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN stays NaN; the CLI turns it into null)."""
        return {
            "table": self.table.to_dict(orient="records"),
            "agreement": self.agreement.to_dict(orient="records"),
            "verdict": self.verdict,
            "settings": dict(self.settings),
        }

    def pivot(self) -> pd.DataFrame:
        """Estimates with methods as columns (quantity × judge rows)."""
        return self.table.pivot_table(
            index=["quantity", "judge"], columns="method", values="estimate", aggfunc="first"
        )

    def _repr_html_(self) -> str:
        """Notebook display: every string escaped, invisible/bidi characters made visible."""
        from bayes_pairwise._html import esc, visible

        table = self.table.to_html(
            index=False, escape=True, float_format=lambda v: f"{v:.3f}", na_rep="–"
        )
        return visible(table, escaped=True) + "<pre>" + esc(self.verdict) + "</pre>"


def _row(quantity, judge, method, estimate, lower=np.nan, upper=np.nan, interval="", note=""):
    return {
        "quantity": quantity,
        "judge": judge,
        "method": method,
        "estimate": float(estimate) if estimate is not None else np.nan,
        "lower": float(lower),
        "upper": float(upper),
        "interval": interval,
        "note": note,
    }


def _progress(on: bool, msg: str) -> None:
    if on:
        print(f"[compare] {msg}", file=sys.stderr, flush=True)


def _mm_strengths(data: Comparisons) -> tuple[pd.Series, str]:
    from bayes_pairwise.classical.bradley_terry import BradleyTerry, check_bt_connected
    from bayes_pairwise.matrices import win_matrix

    x = win_matrix(data).to_numpy()
    try:
        check_bt_connected(x)
        ridge, note = 0.0, "MM (Hunter), λ = 0"
    except DesignError:
        ridge, note = 0.1, "MM with ridge λ = 0.1 (win graph not strongly connected)"
    bt = BradleyTerry(method="mm", ridge=ridge).fit(data)
    return bt.strengths_, note


def _within_context_centre(s: pd.Series, data: Comparisons) -> pd.Series:
    ctx = pd.Series(np.asarray(data.item_context), index=list(data.items))
    return s - s.groupby(ctx.reindex(s.index).to_numpy()).transform("mean")


def _user_warnings(caught: Sequence[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    """The warnings meant for the user: a bare RuntimeWarning ("divide by zero") is NumPy's
    arithmetic noise, not a message (issue 12)."""
    return [w for w in caught if w.category is not RuntimeWarning]


def _tie_handling(bayes: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """:func:`~bayes_pairwise.pymc_models.diagnostics.tie_handling` of every fitted model."""
    from bayes_pairwise.pymc_models.diagnostics import tie_handling

    out: dict[str, dict[str, Any]] = {}
    for k, f in enumerate(bayes):
        if getattr(f, "settings_", None) is None or getattr(f, "idata_", None) is None:
            continue  # a bare InferenceData: its tie handling is not recorded
        label = _fit_label(f)
        out[label if label not in out else f"{label} #{k}"] = tie_handling(f)
    return out


def _tie_notes(ties: Mapping[str, Mapping[str, Any]], data: Comparisons) -> list[str]:
    """One plain sentence per fit on what it did with the ties of ``data``."""
    notes = []
    for label, t in ties.items():
        if t["handling"] == "model":
            notes.append(
                f"{label}: {t['n_ties_modelled']} tie(s) modelled as an outcome (tie_rate "
                "reported, nothing dropped); the classical estimates use the same verdicts, "
                "ties counted half"
            )
        elif t["handling"] == "half":
            notes.append(f"{label}: {t['n_ties_counted_half']} tie(s) counted as half a win")
        elif t["handling"] == "dropped" and not data.integer_outcomes:
            notes.append(
                f"{label}: {t['n_ties_dropped']} tie(s) dropped by the model (ties='drop'); "
                f"the rows marked '{TIES_DROPPED.strip()}' give the classical estimates on "
                "the same tie-free data"
            )
    return notes


def _descriptive_rows(d: pd.Series, judge: str, suffix: str) -> list[dict[str, Any]]:
    """S_com closed-form and moment rows of one judge (``suffix`` labels the data used)."""
    rows: list[dict[str, Any]] = []
    if np.isfinite(d.get("eps_scom", np.nan)):
        se = d["eps_scom_se"]
        rows.append(
            _row(
                "eps",
                judge,
                "S_com closed form" + suffix,
                d["eps_scom"],
                d["eps_scom"] - 1.96 * se,
                d["eps_scom"] + 1.96 * se,
                "95% normal CI",
                f"S_com = {d['s_com']:.3f}",
            )
        )
    elif np.isfinite(d.get("s_com", np.nan)):
        rows.append(
            _row(
                "eps",
                judge,
                "S_com closed form" + suffix,
                np.nan,
                note=(
                    f"S_com = {d['s_com']:.3f} > 1/2: no uniform-error solution (positional bias)"
                ),
            )
        )
    for q in ("eps_plus", "eps_minus"):
        if np.isfinite(d.get(q, np.nan)):
            se = d[f"{q}_se"]
            rows.append(
                _row(
                    q,
                    judge,
                    "moments (S_com, r₁)" + suffix,
                    d[q],
                    d[q] - 1.96 * se,
                    d[q] + 1.96 * se,
                    "95% normal CI",
                    "projected onto the boundary" if d["moments_at_boundary"] else "",
                )
            )
    return rows


def compare(
    data: Comparisons,
    *fits: Any,
    models: Sequence[str] | None = ("uniform", "positional"),
    model: str | None = None,
    method: str = "nuts",
    truth: Any = None,
    random_seed: int | None = 0,
    delta_s: bool = True,
    delta_s_2d: bool = True,
    biased_bt_spread: bool = True,
    strengths: bool = True,
    progress: bool = False,
    grid_kwargs: Mapping[str, Any] | None = None,
    **sampler_kwargs: Any,
) -> CrossCheck:
    """Classical vs Bayesian estimates for every judge of a data set, side by side.

    Parameters
    ----------
    data : Comparisons
    *fits : fitted models or InferenceData, optional
        Already-fitted Bayesian models (e.g. ``UniformError().fit(data)``); when given, no
        model is fitted here.
    models : sequence of str, optional
        Model spec names to fit when no ``fits`` are given (default uniform and positional).
        ``None`` or ``()``: classical estimates only.
    model : str, optional
        Also fit this model (e.g. ``"biased_bt"``) in addition to ``models``.
    method : {"nuts", "map"}
        How the models are fitted.
    truth : SyntheticComparisons, optional
        Adds the realised error rates of a synthetic draw (and true strengths).
    random_seed : int, optional
        Seeds the grid fits, the spread search and the samplers.
    delta_s, delta_s_2d, biased_bt_spread, strengths : bool
        Which classical cross-checks to run (Δ_S fits need complete round-robins).
    progress : bool
        Report progress on stderr.
    grid_kwargs : mapping, optional
        Extra settings for :class:`~bayes_pairwise.classical.deltas.DeltaSFit` /
        :class:`~bayes_pairwise.classical.deltas.DeltaS2DFit` (e.g. ``n_subsets``).
    **sampler_kwargs
        ``draws``, ``tune``, ``chains`` … passed to the model classes.

    Returns
    -------
    CrossCheck

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(30, eps=0.15, random_seed=1)
    >>> cc = compare(sim.data, models=(), truth=sim, delta_s_2d=False,
    ...              biased_bt_spread=False, strengths=False, grid_kwargs={"n_subsets": 50})
    >>> sorted(cc.table.query("quantity == 'eps'")["method"])
    ['S_com closed form', 'realised (synthetic truth)', 'Δ_S grid (1-D)']
    """
    from bayes_pairwise.classical.descriptive import descriptive_by_judge

    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    fitted: dict[str, Any] = {}
    grid_kwargs = dict(grid_kwargs or {})

    # ------------------------------------------------------------ Bayesian fits
    bayes = list(fits)
    # The data go to every model unchanged: the model's own ``ties`` setting decides (METHODS
    # §7.5). Under "auto" the error models treat ties kept in the data ("half" / "model") as an
    # outcome, so the classical estimates (ties counted half) and the models read the same
    # verdicts; only a fit that drops ties gets the tie-free classical rows next to it.
    if not bayes:
        names = list(models or ())
        if model and model not in names:
            names.append(model)
        if names:
            from bayes_pairwise.pymc_models import get_model

            for name in names:
                _progress(progress, f"fitting {name} ({method}) …")
                m = get_model(name, **sampler_kwargs)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    m.fit(data, method=method, random_seed=random_seed)
                notes.extend(f"{name}: {w.message}" for w in _user_warnings(caught))
                bayes.append(m)
    for k, f in enumerate(bayes):
        fitted[getattr(f, "name", None) or f"fit{k}"] = f
    ties = _tie_handling(bayes)
    notes.extend(_tie_notes(ties, data))
    drops_ties = any(t["handling"] == "dropped" for t in ties.values())

    # ------------------------------------------------------------ classical per judge
    _progress(progress, "classical estimates …")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        desc = descriptive_by_judge(data)
        desc_dropped = None
        if drops_ties and not data.integer_outcomes:
            desc_dropped = descriptive_by_judge(data.drop_ties())
    notes.extend(str(w.message) for w in _user_warnings(caught))
    models_ties = any(t["handling"] == "model" for t in ties.values())

    for judge, block in data.by_judge():
        rows.extend(_descriptive_rows(desc.loc[judge], judge, ""))
        if desc_dropped is not None:
            rows.extend(_descriptive_rows(desc_dropped.loc[judge], judge, TIES_DROPPED))
        if models_ties:
            n_tie = int(np.sum(np.asarray(block.outcome) == 0.5))
            rows.append(
                _row(
                    "tie_rate",
                    judge,
                    "observed share of ties",
                    n_tie / max(block.n_comparisons, 1),
                    note=f"{n_tie} of {block.n_comparisons} verdicts",
                )
            )
        if delta_s:
            from bayes_pairwise.classical.deltas import DeltaSFit

            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    g = DeltaSFit(random_seed=random_seed, progress=progress, **grid_kwargs).fit(
                        block
                    )
                notes.extend(f"Δ_S ({judge}): {w.message}" for w in caught)
                fitted[f"deltas[{judge}]"] = g
                rows.append(
                    _row(
                        "eps",
                        judge,
                        "Δ_S grid (1-D)",
                        g.eps_,
                        note=(
                            f"{g.n_contexts_} round-robin(s) of up to {g.n_} items; grid step "
                            f"{g.grid_step}"
                        ),
                    )
                )
            except DesignError as exc:
                notes.append(f"Δ_S 1-D fit skipped for {judge}: {exc}")
        if delta_s_2d:
            from bayes_pairwise.classical.deltas import DeltaS2DFit

            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    g2 = DeltaS2DFit(random_seed=random_seed, progress=progress, **grid_kwargs).fit(
                        block
                    )
                notes.extend(f"Δ_S 2-D ({judge}): {w.message}" for w in caught)
                fitted[f"deltas2d[{judge}]"] = g2
                caveat = (
                    "paper's 2-D fit (average over sub-designs): symmetric in (ε₊, ε₋), in "
                    f"practice only ε₊ + ε₋ = {g2.eps_sum_:.3f} is identified"
                )
                rows.append(_row("eps_plus", judge, "Δ_S grid (2-D)", g2.eps_plus_, note=caveat))
                rows.append(_row("eps_minus", judge, "Δ_S grid (2-D)", g2.eps_minus_, note=caveat))
                if g2.eps_plus_hybrid_ is not None:
                    split = "Δ_S 2-D sum split by r₁"
                    note = "ε₊ + ε₋ from the 2-D grid, split with the first-position rate"
                    rows.append(_row("eps_plus", judge, split, g2.eps_plus_hybrid_, note=note))
                    rows.append(_row("eps_minus", judge, split, g2.eps_minus_hybrid_, note=note))
            except DesignError as exc:
                notes.append(f"Δ_S 2-D fit skipped for {judge}: {exc}")

        # ---------------------------------------------------------- Bayesian per judge
        for f in bayes:
            label = _fit_label(f)
            for q in ("eps", "eps_plus", "eps_minus", "gamma", "tie_rate"):
                st = posterior_stats(f, q, judge=judge)
                if st is None:
                    continue
                interval = "94% HDI" if np.isfinite(st[1]) else ""
                rows.append(_row(q, judge, label, st[0], st[1], st[2], interval))

    # ------------------------------------------------------------ biased BT baseline
    if biased_bt_spread:
        from bayes_pairwise.classical.bradley_terry import BiasedBTSpreadSearch

        pooled = data.pool_contexts() if data.has_contexts else data
        for judge, block in pooled.by_judge():
            _progress(progress, f"biased-BT spread search ({judge}) …")
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    s = BiasedBTSpreadSearch(random_seed=random_seed).fit(block)
                fitted[f"biased_bt_spread[{judge}]"] = s
                rows.append(
                    _row(
                        "gamma",
                        judge,
                        "biased-BT spread search (paper)",
                        s.mode_,
                        note=(
                            "mode of ε_opt over restarts; improper model"
                            + ("; at an edge bin (failure mode)" if s.at_edge_ else "")
                        ),
                    )
                )
                notes.extend(f"biased-BT ({judge}): {w.message}" for w in caught[:1])
            except (DesignError, BayesPairwiseError) as exc:
                notes.append(f"biased-BT spread search skipped for {judge}: {exc}")

    # ------------------------------------------------------------ strengths
    if strengths and bayes:
        try:
            mm, mm_note = _mm_strengths(data)
            fitted["bt_mm"] = mm
            from bayes_pairwise.classical.agreement import spearman_rho

            for f in bayes:
                post = _posterior_strengths(f, data.items)
                if post is None or post.isna().any():
                    continue
                a = _within_context_centre(mm, data)
                b = _within_context_centre(post, data)
                label = _fit_label(f)
                rows.append(
                    _row(
                        "strength_spearman",
                        "all",
                        f"MM vs {label}",
                        spearman_rho(a, b),
                        note=mm_note,
                    )
                )
                rows.append(
                    _row(
                        "strength_max_abs_diff",
                        "all",
                        f"MM vs {label}",
                        float(np.max(np.abs(a - b))),
                        note=(
                            "same scale only for Bradley–Terry likelihoods; error-model "
                            "strengths describe the latent truth"
                        ),
                    )
                )
        except DesignError as exc:
            notes.append(f"MM strengths skipped: {exc}")

    # ------------------------------------------------------------ synthetic truth
    if truth is not None:
        for judge in data.judges:
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
                            judge,
                            "realised (synthetic truth)",
                            v,
                            note=(f"nominal {nominal}" if nominal is not None else ""),
                        )
                    )

    table = pd.DataFrame(rows, columns=COLUMNS)
    agreement, verdict = _verdict(table, data)
    settings = {
        "data": data.settings(),
        "models": [type(f).__name__ for f in bayes],
        "method": method,
        "random_seed": random_seed,
        "hdi_prob": HDI_PROB,
        "ties": ties,
        "notes": notes,
        **{k: v for k, v in sampler_kwargs.items()},
    }
    return CrossCheck(
        table=table, verdict=verdict, agreement=agreement, fits=fitted, settings=settings
    )


def _verdict(table: pd.DataFrame, data: Comparisons) -> tuple[pd.DataFrame, str]:
    """Do the grid / classical estimates fall inside the posterior HDIs, judge by judge?

    ε: the Δ_S 1-D grid estimate against the uniform-error posterior. (ε₊, ε₋): the moment
    estimates and the Δ_S 2-D sum split by r₁ against the positional posterior.
    """
    out: list[dict[str, Any]] = []
    lines: list[str] = []
    for judge in data.judges:
        tj = table[table.judge == judge]
        hdi = tj[tj.interval == "94% HDI"]
        said = False
        # ------------------------------------------------------------- uniform ε
        t = tj[tj.quantity == "eps"]
        grid = t[t.method == "Δ_S grid (1-D)"]
        post = hdi[hdi.quantity == "eps"]
        if not grid.empty and not post.empty:
            g, p = float(grid.estimate.iloc[0]), post.iloc[0]
            inside = bool(p.lower <= g <= p.upper)
            gap = 0.0 if inside else float(min(abs(g - p.lower), abs(g - p.upper)))
            out.append(
                {
                    "judge": judge,
                    "quantity": "eps",
                    "classical": "Δ_S grid (1-D)",
                    "classical_estimate": g,
                    "posterior_mean": p.estimate,
                    "hdi_lower": p.lower,
                    "hdi_upper": p.upper,
                    "inside_hdi": inside,
                    "distance_to_hdi": gap,
                }
            )
            if inside:
                lines.append(
                    f"{judge}: AGREE — the Δ_S grid estimate ε = {g:.3f} lies inside the "
                    f"posterior 94% HDI [{p.lower:.3f}, {p.upper:.3f}] (posterior mean "
                    f"{p.estimate:.3f})."
                )
            else:
                why = []
                ep, em = hdi[hdi.quantity == "eps_plus"], hdi[hdi.quantity == "eps_minus"]
                if not ep.empty and not em.empty:
                    a, b = float(ep.estimate.iloc[0]), float(em.estimate.iloc[0])
                    if abs(a - b) > 0.1:
                        why.append(
                            f"the judge is strongly position-biased (ε₊ ≈ {a:.2f}, ε₋ ≈ {b:.2f}), "
                            "which a single ε does not describe"
                        )
                dropped = tj[
                    (tj.quantity == "eps") & (tj.method == "S_com closed form" + TIES_DROPPED)
                ]
                if not dropped.empty and g > p.upper:
                    v = float(dropped.estimate.iloc[0])
                    why.append(
                        "Δ_S is fitted with ties counted half (a tie reads as half a disagreement "
                        "between the two orders) while the binomial models drop ties: on the "
                        f"same tie-free data S_com gives ε = {v:.3f}"
                    )
                if g > p.upper:
                    why.append(
                        "Δ_S also counts close calls (a soft truth) as errors, so it reads above "
                        "the lapse rate the marginal model estimates"
                    )
                lines.append(
                    f"{judge}: DISAGREE — the Δ_S grid estimate ε = {g:.3f} lies {gap:.3f} "
                    f"outside the posterior 94% HDI [{p.lower:.3f}, {p.upper:.3f}]"
                    + (f"; likely because {'; and '.join(why)}." if why else ".")
                )
            said = True
        elif not grid.empty:
            point = t[t.method.str.endswith("(MAP)")]
            if not point.empty:
                g, m = float(grid.estimate.iloc[0]), float(point.estimate.iloc[0])
                lines.append(
                    f"{judge}: the MAP estimate ε = {m:.3f} and the Δ_S grid estimate ε = {g:.3f} "
                    f"differ by {abs(m - g):.3f}; a MAP fit has no interval, so whether they agree "
                    "needs a NUTS fit (method='nuts')."
                )
                said = True
        # ------------------------------------------------------------- positional ε₊, ε₋
        checks = []
        for q, sym in (("eps_plus", "ε₊"), ("eps_minus", "ε₋")):
            ph = hdi[hdi.quantity == q]
            if ph.empty:
                continue
            p = ph.iloc[0]
            moments = "moments (S_com, r₁)"
            if not tj[tj.method == moments + TIES_DROPPED].empty:
                moments += TIES_DROPPED
            for method in (moments, "Δ_S 2-D sum split by r₁"):
                c = tj[(tj.quantity == q) & (tj.method == method)]
                if c.empty or not np.isfinite(c.estimate.iloc[0]):
                    continue
                v = float(c.estimate.iloc[0])
                inside = bool(p.lower <= v <= p.upper)
                gap = 0.0 if inside else float(min(abs(v - p.lower), abs(v - p.upper)))
                out.append(
                    {
                        "judge": judge,
                        "quantity": q,
                        "classical": method,
                        "classical_estimate": v,
                        "posterior_mean": p.estimate,
                        "hdi_lower": p.lower,
                        "hdi_upper": p.upper,
                        "inside_hdi": inside,
                        "distance_to_hdi": gap,
                    }
                )
                checks.append((sym, method, v, p, inside))
        if checks:
            n_in = sum(c[4] for c in checks)
            head = "AGREE" if n_in == len(checks) else ("PARTLY AGREE" if n_in else "DISAGREE")
            tie_gap = any(c[1].endswith(TIES_DROPPED) for c in checks)
            grid_label = "Δ_S 2-D (ties half)" if tie_gap else "Δ_S 2-D"
            parts = [
                f"{sym} {method.split(' ')[0] if method.startswith('moments') else grid_label} "
                f"{v:.3f} {'in' if inside else 'outside'} [{p.lower:.3f}, {p.upper:.3f}]"
                for sym, method, v, p, inside in checks
            ]
            lines.append(
                f"{judge}: positional model {head} with the classical estimates "
                f"({n_in} of {len(checks)} inside the posterior 94% HDI: {'; '.join(parts)})."
            )
            said = True
        if not said:
            lines.append(
                f"{judge}: not enough estimates to compare Bayesian and classical fits (needs a "
                "NUTS fit of the uniform or positional model)."
            )
    agreement = pd.DataFrame(
        out,
        columns=[
            "judge",
            "quantity",
            "classical",
            "classical_estimate",
            "posterior_mean",
            "hdi_lower",
            "hdi_upper",
            "inside_hdi",
            "distance_to_hdi",
        ],
    )
    return agreement, "\n".join(lines)
