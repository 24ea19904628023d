"""Model checking: LOO model comparison and simulation-based calibration (SBC).

:func:`compare_models` (and :func:`compare_fitted` for models already fitted)
    Fits several error models to one log with NUTS and ranks them by their expected log
    predictive density estimated with Pareto-smoothed importance-sampling leave-one-out
    (PSIS-LOO, :func:`arviz.compare`).

    **Unit: one (judge, unordered pair) row.** The error models' observed variable ``wins`` is
    the vector of counts of one judge on one unordered pair {i, j} (both presentation orders,
    all repeats): those verdicts share one latent true outcome, so they are not exchangeable
    given the parameters and are left out together. Models compared must share that unit (the
    per-verdict biased Bradley–Terry model does not and is refused).

:func:`sbc`
    Simulation-based calibration (Talts et al. 2018): draw the parameters from the prior,
    simulate a log from the model's own generative process (``pymc.sample_prior_predictive`` of
    the model built on a round-robin design; for the biased Bradley–Terry model one verdict at a
    time, with one covariate), fit it with NUTS, and record the rank of the true
    value among thinned posterior draws and whether the 94% HDI covers it. For a calibrated
    model the ranks are uniform and the coverage is 94% (up to Monte-Carlo error).
    :func:`plot_sbc_ranks` draws the rank histograms, :func:`sbc_rank_data` returns their numbers.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.conventions import resolve_hdi_prob, tie_dispersion_group
from bayes_pairwise.data import Comparisons, load_comparisons
from bayes_pairwise.distributed import INSTALL_HINT, local_cluster_client, run_tasks
from bayes_pairwise.errors import DesignError, quiet_sampler_logs, quiet_third_party
from bayes_pairwise.progress import Ticker
from bayes_pairwise.simulate import log_from_counts

__all__ = [
    "LOO_UNIT",
    "SBCResult",
    "compare_fitted",
    "compare_models",
    "compare_models_dict",
    "compare_models_kfold",
    "sbc",
    "sbc_rank_data",
    "sbc_summary",
]

#: What one pointwise log-likelihood value of the error models covers.
LOO_UNIT = "pair"
_UNIT_TEXT = (
    "one (judge, unordered pair) row: all verdicts of one judge on one pair (both orders, all "
    "repeats) share one latent true outcome and are left out together"
)
#: The same for the hard-truth (order) models, whose observations are contexts.
_CONTEXT_UNIT = "context"
_CONTEXT_UNIT_TEXT = (
    "one context: all verdicts of every judge on its items share one order of the items "
    "(summed out) and are left out together"
)
#: The data a hard-truth model's fit keeps (``constant_data``): equal in every compared fit.
_CONTEXT_DATA = ("item_context", "pair_i", "pair_j", "pair_judge", "k", "pair_wins", "pair_truth")

#: Tie forms a model name in a comparison may add after ``+`` (the models' settings of the same
#: names, ``fit --tie-positional`` / ``--tie-closeness``): ``positional_order+tie_positional``.
TIE_FORMS = ("tie_positional", "tie_closeness", "tie_dispersion")


def _form_name(form: str, value: Any) -> str:
    """A model's tie form as :func:`compare_models` names it: ``+tie_positional`` for a flag
    that is on, ``+tie_dispersion=pair`` for a value (nothing when off)."""
    if not value:
        return ""
    return f"+{form}" if value is True or value == "context" else f"+{form}={value}"


#: Columns of :func:`compare_models`' table.
COMPARE_COLUMNS = (
    "model",
    "rank",
    "elpd_loo",
    "se",
    "elpd_diff",
    "dse",
    "weight",
    "p_loo",
    "n_parameters",
    "pareto_k_bad",
    "warning",
    "preferred",
)


# ----------------------------------------------------------------------------- LOO comparison
def _n_parameters(model: Any) -> int:
    """Number of unconstrained free parameters of a fitted model (its complexity)."""
    point = model.model_.initial_point()
    return int(sum(np.size(v) for v in point.values()))


def _fitted(
    spec: Any,
    data: Comparisons,
    *,
    sampler: dict[str, Any],
    random_seed: int,
    progress: bool,
) -> tuple[str, Any]:
    from bayes_pairwise.pymc_models import BayesianPairwiseModel

    if isinstance(spec, str):
        model = _new_model(spec, sampler)
        name = spec
    elif isinstance(spec, BayesianPairwiseModel):
        model = spec
        name = model.name + "".join(_form_name(f, getattr(model, f, False)) for f in TIE_FORMS)
    else:
        raise TypeError(f"models must be names or model objects, got {type(spec).__name__}")
    _check_loo_unit(name, model)
    if not hasattr(model, "idata_"):
        from bayes_pairwise.progress import Steps

        # the progress lines name the variant compared (positional_order+tie_positional)
        steps = Steps(True, prefix=name) if progress else None
        model.fit(data, method="nuts", random_seed=random_seed, progress=progress, on_step=steps)
    elif model.method_ != "nuts":
        raise DesignError(f"model {name!r} is a MAP fit; LOO needs posterior draws (NUTS)")
    return name, model


def _check_loo_unit(name: str, model: Any) -> None:
    """LOO compares models on one observation unit: the strength error models' pair rows, or
    the hard-truth models' contexts; a per-verdict model has neither."""
    if getattr(model, "observed_name", "") not in ("wins", "contexts"):
        raise DesignError(
            f"model {name!r} scores one observation per verdict; LOO comparison needs models "
            f"on one unit: pair rows ({_UNIT_TEXT}; the strength error models: uniform, "
            "positional and variants) or contexts (the order models: uniform_order, "
            "positional_order)"
        )


def _one_unit(units: Mapping[str, str], what: str) -> str:
    """The one observation unit of the compared models (``"wins"`` or ``"contexts"``);
    DesignError naming each model's where they differ."""
    if len(set(units.values())) > 1:
        said = ", ".join(
            f"{n} per {'context' if u == 'contexts' else 'pair row'}" for n, u in units.items()
        )
        raise DesignError(
            f"the models score different observation units ({said}): their {what} are not "
            "comparable; compare the order models with each other and the strength models "
            "with each other"
        )
    return next(iter(units.values()))


def _same_observations(fits: Mapping[str, Any]) -> str:
    """The fits' common observation unit (``"wins"`` or ``"contexts"``); DesignError where
    the units or the observations differ."""
    units = {name: m.observed_name for name, m in fits.items()}
    unit = _one_unit(units, "pointwise log-likelihoods")
    if unit == "wins":
        observed = [np.asarray(m.idata_.observed_data["wins"]) for m in fits.values()]
    else:
        observed = [
            np.concatenate(
                [
                    np.asarray(m.idata_.constant_data[k], dtype=float).ravel()
                    for k in _CONTEXT_DATA
                    if k in m.idata_.constant_data
                ]
            )
            for m in fits.values()
        ]
    if any(o.shape != observed[0].shape or not np.array_equal(o, observed[0]) for o in observed):
        raise DesignError(
            "the models were fitted to different observations (e.g. one models ties, another "
            "drops them): their pointwise log-likelihoods are not comparable"
        )
    return unit


def compare_models(
    data: Comparisons,
    models: Sequence[Any] = ("uniform", "positional"),
    *,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    nuts_sampler: str | None = None,
    random_seed: int = 0,
    progress: bool = False,
    sigma: float = 2.0,
) -> pd.DataFrame:
    """Fit error models with NUTS and compare them by PSIS-LOO (:func:`arviz.compare`).

    Parameters
    ----------
    data : Comparisons
    models : sequence of str or fitted/unfitted model objects
        Model spec names (:func:`~bayes_pairwise.pymc_models.available_models`), each with
        optional tie forms after ``+`` (``"positional_order+tie_positional"``), or models;
        unfitted ones are fitted to ``data`` with NUTS, fitted ones are used as they are (they
        must have been fitted to ``data``).
    draws, tune, chains : int, optional
        Sampler settings for the models fitted here (default: the specs').
    nuts_sampler : str, optional
        NUTS implementation for the models fitted here (default: the specs', ``"auto"``).
    random_seed : int
    progress : bool
    sigma : float
        Models within ``sigma`` standard errors (``dse``) of the best are "equivalent"; among
        those the one with the fewest parameters is ``preferred``.

    Returns
    -------
    DataFrame
        One row per model, best first: ``model``, ``rank``, ``elpd_loo``, ``se``,
        ``elpd_diff``, ``dse``, ``weight``, ``p_loo`` (ArviZ's columns), ``n_parameters``
        (unconstrained free parameters), ``pareto_k_bad`` (pair rows whose Pareto k exceeds
        ArviZ's threshold: the LOO estimate is unreliable for them), ``warning`` and
        ``preferred``. ``attrs``: ``unit`` (``"pair"``; ``"context"`` for the order models),
        ``unit_text``, ``message`` (the
        verdict, one sentence), ``preferred`` (name) and ``fits`` (name → fitted model).

    Raises
    ------
    DesignError
        Fewer than two models, a per-verdict model, a MAP fit, or models fitted to different
        observations.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(10, eps_plus=0.04, eps_minus=0.3, repeats=2,
    ...                               random_seed=0)
    >>> table = compare_models(sim.data, ["uniform", "positional"], draws=300, tune=300,
    ...                        chains=2, random_seed=1)  # doctest: +SKIP
    >>> table.model.tolist(), table.attrs["message"]  # doctest: +SKIP
    (['positional', 'uniform'], 'positional is better than uniform by ...')
    """
    if len(models) < 2:
        raise DesignError("compare_models needs at least two models")
    sampler = _sampler(draws, tune, chains, nuts_sampler)
    fits: dict[str, Any] = {}
    for spec in models:
        name, model = _fitted(
            spec, data, sampler=sampler, random_seed=random_seed, progress=progress
        )
        if name in fits:
            name = f"{name}#{len(fits)}"
        fits[name] = model
    table = compare_fitted(fits, sigma=sigma)
    table.attrs["fits"] = fits
    return table


#: Pareto k from which PSIS-LOO's bias dominates whatever the number of draws (ArviZ's and
#: loo's good-k threshold is min(1 − 1/log10(S), this); Vehtari et al. 2024.
PSIS_K_CAP = 0.7


def compare_fitted(fits: Mapping[str, Any], *, sigma: float = 2.0) -> pd.DataFrame:
    """Compare already-fitted error models by PSIS-LOO (:func:`arviz.compare`).

    The one implementation behind :func:`compare_models` (which fits, then calls this) and
    the cross-check's :attr:`~bayes_pairwise.crosscheck.CrossCheck.model_comparison`.

    Parameters
    ----------
    fits : mapping of str to fitted model
        Name → error model fitted with NUTS to the same data (at least two). Every fit stores
        its pointwise log-likelihood at fit time: one value per (judge, unordered pair) row
        (``wins``: the strength error models) or per context (``contexts``: the order models,
        e.g. one tie rate against tie rates by position). The two units do not mix.
    sigma : float
        Models within ``sigma`` standard errors (``dse``) of the best are "equivalent"; among
        those the one with the fewest parameters is ``preferred``.

    Returns
    -------
    DataFrame
        The table of :func:`compare_models` (same columns, best first); ``attrs``: ``unit``,
        ``unit_text``, ``message`` (the verdict, one sentence) and ``preferred``.

    Raises
    ------
    DesignError
        Fewer than two fits, a per-verdict model, a MAP fit, a fit without a pointwise
        log-likelihood, fits on different units, or fits to different observations.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import get_model
    >>> sim = bp.simulate_round_robin(10, eps_plus=0.04, eps_minus=0.3, repeats=2,
    ...                               random_seed=0)
    >>> fits = {n: get_model(n, draws=300, tune=300, chains=2).fit(sim.data, random_seed=1)
    ...         for n in ("uniform", "positional")}  # doctest: +SKIP
    >>> compare_fitted(fits).model.tolist()  # doctest: +SKIP
    ['positional', 'uniform']
    """
    import arviz as az

    if len(fits) < 2:
        raise DesignError("a LOO comparison needs at least two fitted models")
    for name, model in fits.items():
        _check_loo_unit(name, model)
        if not hasattr(model, "idata_"):
            raise DesignError(f"model {name!r} is not fitted")
        how = getattr(model, "method_", "nuts")
        if how != "nuts":
            raise DesignError(
                f"model {name!r} is a {'MAP' if how == 'map' else how} fit; LOO needs posterior "
                "draws (NUTS)"
            )
        if "log_likelihood" not in model.idata_.groups():
            why = getattr(model, "settings_", {}).get("log_likelihood", "")
            raise DesignError(
                f"model {name!r} has no pointwise log-likelihood" + (f" ({why})" if why else "")
            )
    by_context = _same_observations(fits) == "contexts"
    unit = _CONTEXT_UNIT if by_context else LOO_UNIT
    idatas = {name: m.idata_ for name, m in fits.items()}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        table = az.compare(idatas, ic="loo", method="stacking", scale="log")
        bad = {}
        n_units = {}
        ks = {}
        good_k = PSIS_K_CAP
        for name, idata in idatas.items():
            loo = az.loo(idata, pointwise=True)
            good_k = float(getattr(loo, "good_k", PSIS_K_CAP))
            ks[name] = np.asarray(loo.pareto_k, dtype=float).ravel()
            bad[name] = int(np.sum(ks[name] > good_k))
            n_units[name] = int(ks[name].size)
    table = table.reset_index().rename(columns={"index": "model"})
    table["n_parameters"] = [_n_parameters(fits[n]) for n in table["model"]]
    table["pareto_k_bad"] = [bad[n] for n in table["model"]]
    table["warning"] = table["warning"].astype(bool)
    best = str(table["model"].iloc[0])
    preferred = _preferred(table, best, sigma)
    table["preferred"] = table["model"] == preferred
    table = table[list(COMPARE_COLUMNS)].reset_index(drop=True)
    table.attrs.update(
        {
            "unit": unit,
            "unit_text": _CONTEXT_UNIT_TEXT if by_context else _UNIT_TEXT,
            "message": _verdict(table, best, preferred, sigma)
            + _hedge(ks, good_k, preferred, unit),
            "preferred": preferred,
            "reliable": not any(bad.values()),
        }
    )
    return table


def _preferred(table: pd.DataFrame, best: str, sigma: float) -> str:
    """The one rule for a preference: among the models within ``sigma`` SE (``dse``) of the
    best, the one with the fewest parameters (the better rank on a tie)."""
    within = table[(table["elpd_diff"] <= sigma * table["dse"]) | (table["model"] == best)]
    return str(within.sort_values(["n_parameters", "rank"], kind="stable").iloc[0]["model"])


def _hedge(
    ks: Mapping[str, np.ndarray],
    good_k: float,
    pref: str,
    unit: str = LOO_UNIT,
) -> str:
    """The warning added to the verdict when PSIS-LOO is unreliable (bad Pareto k), or ``""``.

    ``ks`` holds each model's Pareto k per row. What settles it depends on where they lie:
    between ``good_k`` (ArviZ's threshold, 1 − 1/log10(S), below :data:`PSIS_K_CAP` for
    S < 2,200 draws) and the cap, more draws raise the threshold; at or above the cap the
    estimate's bias dominates whatever the number of draws (Vehtari et al. 2024), and only a
    refit without those rows does.

    Examples
    --------
    >>> k = {"uniform": np.zeros(100), "positional": np.r_[np.zeros(62), np.full(38, 0.8)]}
    >>> _hedge(k, 0.7, "positional")[:60]
    ' HEDGED: PSIS-LOO is unreliable here (Pareto k > 0.7 for 38 '
    >>> "more draws do not" in _hedge(k, 0.7, "positional")
    True
    >>> "1 of these rows has k" in _hedge({"u": np.r_[np.zeros(9), 0.8]}, 0.7, "u")
    True
    >>> "of the contexts), so" in _hedge(k, 0.7, "p", "context")
    True
    >>> "--kfold" in _hedge(k, 0.7, "positional"), "--kfold" in _hedge(k, 0.7, "p", "context")
    (True, True)
    >>> "refit with more draws" in _hedge({"u": np.r_[np.zeros(9), 0.68]}, 0.67, "u")
    True
    >>> _hedge({"uniform": np.zeros(100)}, 0.7, "uniform")
    ''
    """
    rows = "pair rows" if unit == LOO_UNIT else "contexts"
    worst = []
    over = 0
    for m, k in ks.items():
        b = int(np.sum(k > good_k))
        over += int(np.sum(k >= PSIS_K_CAP))
        if b:
            worst.append(f"{b} of {k.size} ({100 * b / max(k.size, 1):.0f}%) in {m}")
    if not worst:
        return ""
    if over:
        refit = (
            "K-fold cross-validation (compare-models --kfold 10, compare_models_kfold), which "
            f"refits each model without each fold of the {rows}"
        )
        how = (
            f"{over:,} of these {rows.split()[-1]} {'has' if over == 1 else 'have'} k ≥ "
            f"{PSIS_K_CAP:.1f}, "
            "where more draws do not help "
            "(the PSIS estimate's bias dominates there at any number of draws): each is "
            "influential enough that leaving it out moves the posterior. To settle it, score "
            f"them by refits without them: {refit}."
        )
    else:
        how = (
            f"Every k is below {PSIS_K_CAP:.1f}, where the threshold itself depends on the "
            "number of draws: refit with more draws (from about 2,200 in all the threshold "
            f"is {PSIS_K_CAP:.1f})."
        )
    return (
        f" HEDGED: PSIS-LOO is unreliable here (Pareto k > {good_k:.3g} for {', '.join(worst)}"
        f" of the {rows}), so the elpd values and their SE may be off and "
        f"'{pref} is preferred' is tentative. {how}"
    )


def _verdict(table: pd.DataFrame, best: str, preferred: str, sigma: float) -> str:
    rows = table.set_index("model")
    if preferred != best:
        r = rows.loc[preferred]
        return (
            f"{best} and {preferred} are within {sigma:g} SE of each other (elpd_diff "
            f"{r['elpd_diff']:.1f} ± {r['dse']:.1f}): the simpler model {preferred} "
            f"({int(r['n_parameters'])} vs {int(rows.loc[best, 'n_parameters'])} parameters) "
            "is preferred."
        )
    if len(table) < 2:  # pragma: no cover - compare_models needs two
        return f"{best} is the only model."
    second = table.iloc[1]
    diff, dse = float(second["elpd_diff"]), float(second["dse"])
    if diff <= sigma * dse:
        return (
            f"{best} and {second['model']} are within {sigma:g} SE of each other (elpd_diff "
            f"{diff:.1f} ± {dse:.1f}); {best} is also the simpler model and is preferred."
        )
    return (
        f"{best} is better than {second['model']} by {diff:.1f} ± {dse:.1f} elpd "
        f"({diff / dse if dse > 0 else float('inf'):.1f} SE): {best} is preferred."
    )


# ----------------------------------------------------------------------- K-fold comparison
#: Columns of :func:`compare_models_kfold`'s table.
KFOLD_COLUMNS = (
    "model",
    "rank",
    "elpd_kfold",
    "se",
    "elpd_diff",
    "dse",
    "n_parameters",
    "divergences",
    "preferred",
)


def _sampler(
    draws: int | None, tune: int | None, chains: int | None, nuts_sampler: str | None
) -> dict[str, Any]:
    """The sampler settings given (the others stay the specs')."""
    given = {"draws": draws, "tune": tune, "chains": chains, "nuts_sampler": nuts_sampler}
    return {k: v for k, v in given.items() if v is not None}


def _new_model(spec: Any, sampler: Mapping[str, Any]) -> Any:
    """An unfitted model from a spec name with optional ``+`` tie forms: fit's --tie-… flags,
    a form taking a value after "=" (``positional_order+tie_dispersion=pair``); or from a
    ``(class, settings)`` pair, a model object's :meth:`get_params` (the sampler settings
    given override its own)."""
    from bayes_pairwise.pymc_models import get_model

    if not isinstance(spec, str):
        cls, params = spec
        return cls(**{**params, **sampler})
    base, *flags = spec.split("+")
    forms = dict((*f.split("=", 1), True)[:2] for f in flags)
    unknown = [f for f in forms if f not in TIE_FORMS]
    if unknown:
        raise DesignError(
            f"unknown tie form {unknown[0]!r} in model {spec!r} (after '+': "
            f"{', '.join(TIE_FORMS)}; tie_dispersion=pair for a tie rate by pair)"
        )
    return get_model(base, **dict(sampler), **forms)


def _unit_of_verdicts(data: Comparisons, unit: str) -> np.ndarray:
    """Each verdict's held-out unit: its (judge, pair) row (``"wins"``) or its context
    (``"contexts"``)."""
    from bayes_pairwise.matrices import pair_row_of

    if unit == "contexts":
        return np.asarray(data.item_context)[np.asarray(data.first)]
    return pair_row_of(data)


def _kfold_specs(models: Sequence[Any]) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """K-fold's models: each one's name in the table (a second one of a name gets ``#i``, as
    in :func:`compare_models`), what its refits are made from (a spec name, or a model
    object's class and settings; an object's fit, if any, is not used: every refit starts
    anew) and the name of its model spec."""
    from bayes_pairwise.pymc_models import BayesianPairwiseModel

    names: list[str] = []
    specs: dict[str, Any] = {}
    bases: dict[str, str] = {}
    for m in models:
        if isinstance(m, str):
            name, spec, base = m, m, m.split("+")[0]
        elif isinstance(m, BayesianPairwiseModel):
            name = m.name + "".join(_form_name(f, getattr(m, f, False)) for f in TIE_FORMS)
            spec, base = (type(m), m.get_params()), m.name
        else:
            raise TypeError(f"models must be names or model objects, got {type(m).__name__}")
        if name in specs:  # as compare_models names a second model of one name
            name = f"{name}#{len(names)}"
        names.append(name)
        specs[name] = spec
        bases[name] = base
    return names, specs, bases


def _kfold_task(
    spec: Any,
    data: Comparisons,
    held: np.ndarray,
    sampler: Mapping[str, Any],
    seed: int,
    unit: str = "wins",
) -> dict[str, Any]:
    """One fold of one model: fit with NUTS to ``data`` with the verdicts of the held-out
    units ``held`` (pair rows, or contexts for the order models: ``unit``) weighted 0, then
    the log predictive density of each held-out unit (its verdicts' likelihood averaged over
    the posterior draws, on the log scale)."""
    from scipy.special import logsumexp

    held = np.asarray(held, dtype=np.int64)
    of = _unit_of_verdicts(data, unit)
    out = np.zeros(int(of.max()) + 1, dtype=bool)
    out[held] = True
    train = data.with_weights((~out[of]).astype(float))
    model = _new_model(spec, sampler)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        model.fit(train, method="nuts", random_seed=int(seed), log_likelihood=False)
    direct, _ = model.written_out_density(data)
    post = model.idata_.posterior
    ll = np.asarray(direct.pointwise({n: post[n].values for n in post.data_vars}))
    ll = ll.reshape(-1, ll.shape[-1])[:, held]
    lpd = logsumexp(ll, axis=0) - np.log(ll.shape[0])
    stats = model.idata_.sample_stats
    div = int(np.asarray(stats["diverging"]).sum()) if "diverging" in stats else 0
    return {"rows": held, "lpd": lpd, "divergences": div, "n_parameters": _n_parameters(model)}


def compare_models_kfold(
    data: Comparisons,
    models: Sequence[str] = ("uniform", "positional"),
    *,
    k: int = 10,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    nuts_sampler: str | None = None,
    random_seed: int = 0,
    progress: bool = False,
    sigma: float = 2.0,
    client: Any = None,
    results_file: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Compare error models by K-fold cross-validation over (judge, pair) rows, or over
    contexts for the order models.

    What settles a PSIS-LOO comparison whose Pareto k are 0.7 or more (:func:`compare_models`
    says when): each model is refitted ``k`` times with NUTS, each time without one fold of
    the units (their verdicts weigh 0, so every item and judge keeps its parameters), and
    scored on the units it did not see. The unit is LOO's: a (judge, pair) row for the
    strength error models, a context (all its verdicts, one order of its items summed out)
    for the order models. A unit's score is its log predictive density, log of the mean over
    the draws of its verdicts' likelihood: the same quantity as LOO's pointwise elpd, without
    the importance sampling. The rule for a preference is :func:`compare_models`': within
    ``sigma`` SE (``dse``, from the paired unit differences) of the best, the model with the
    fewest parameters.

    Parameters
    ----------
    data : Comparisons
        A log without per-row weights.
    models : sequence of str or model objects
        Names of models scored on one unit, each with optional tie forms after ``+``, or
        model objects (their settings, priors included, are refitted; a fit they hold is not
        used): the strength error models (per pair row: ``uniform``, ``positional``, their
        ``_difficulty`` and ``_hierarchical`` variants) or the order models (per context:
        ``uniform_order``, ``positional_order``, not with ``tie_dispersion``).
    k : int
        Folds (2 up to the number of units); units are dealt to folds at random.
    draws, tune, chains : int, optional
        Sampler settings of each refit (default: the specs').
    nuts_sampler : str, optional
        NUTS implementation of each refit (default: the specs', ``"auto"``).
    random_seed : int
        The folds and every refit's seed (one stream per model and fold), so the table does
        not depend on where the refits run.
    progress : bool
        A line on stderr per refit.
    sigma : float
    client : distributed.Client, optional
        Run the ``k`` × models refits on this Dask cluster (:mod:`bayes_pairwise.distributed`).
    results_file : path, optional
        JSON-lines file: a header with the settings (models, ``k``, seed, sampler, a digest of
        the log) and the model specs, then one line per finished refit (its units' scores).
        An existing file with the same settings is resumed: its refits are not run again, and
        the table is the one an uninterrupted run gives.

    Returns
    -------
    DataFrame
        One row per model, best first (:data:`KFOLD_COLUMNS`); ``attrs``: ``unit``
        (``"pair"`` or ``"context"``), ``unit_text``, ``k``, ``message``, ``preferred``,
        ``pointwise`` (model → each unit's log predictive density) and ``fold`` (each unit's
        fold).

    Raises
    ------
    DesignError
        Fewer than two models, models on different units, a per-verdict model, a model
        without a written-out log-density or whose fit refuses weights (``tie_dispersion``),
        a weighted log, ``k`` out of range, or a results file written with other settings
        or another version of a model spec.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(8, eps_plus=0.04, eps_minus=0.3, repeats=2,
    ...                               random_seed=0)
    >>> t = compare_models_kfold(sim.data, k=4, draws=200, tune=200, chains=1)  # doctest: +SKIP
    >>> t.model.tolist()  # doctest: +SKIP
    ['positional', 'uniform']
    """
    from bayes_pairwise.distributed import run_tasks

    names, specs_of, base_of = _kfold_specs(models)
    if len(names) < 2:
        raise DesignError("a K-fold comparison needs at least two models")
    if data.has_weights:
        raise DesignError(
            "K-fold cross-validation leaves units out by giving their verdicts weight 0; the "
            "log carries weights of its own (load_comparisons(weights=…)): load it without them"
        )
    sampler = _sampler(draws, tune, chains, nuts_sampler)
    units: dict[str, str] = {}
    for name in names:
        model = _new_model(specs_of[name], sampler)
        unit = getattr(model, "observed_name", "")
        if unit not in ("wins", "contexts"):
            raise DesignError(
                f"model {name!r} is scored one verdict at a time: K-fold here leaves out LOO's "
                "units, (judge, pair) rows for the strength error models (uniform, positional "
                "and their variants) or contexts for the order models (uniform_order, "
                "positional_order); biased Bradley–Terry has neither"
            )
        by = tie_dispersion_group(getattr(model, "tie_dispersion", None))
        if unit == "contexts" and by:
            raise DesignError(
                f"model {name!r}: a tie rate that varies by {by} "
                "is a beta-binomial count of whole verdicts, and K-fold leaves contexts out by "
                "weight 0, which that fit refuses: compare without tie_dispersion"
            )
        direct, why = model.written_out_density(data)
        if direct is None:
            raise DesignError(
                f"model {name!r} has no written-out log-density ({why}): its held-out units "
                "cannot be scored"
            )
        units[name] = unit
    unit = _one_unit(units, "held-out scores")
    by_context = unit == "contexts"
    unit_name = "contexts" if by_context else "(judge, pair) rows"
    n_rows = int(_unit_of_verdicts(data, unit).max()) + 1
    if n_rows < 2:
        raise DesignError(
            f"K-fold cross-validation over {unit_name} needs at least 2; this log has {n_rows}"
        )
    if not 2 <= int(k) <= n_rows:
        raise DesignError(
            f"k must be between 2 and the {n_rows:,} {'contexts' if by_context else 'pair rows'}"
            f", got {k}"
        )
    k = int(k)
    seq = np.random.SeedSequence(int(random_seed))
    fold_seed, *model_seeds = seq.spawn(1 + len(names))
    fold = np.random.default_rng(fold_seed).permutation(n_rows) % k
    tasks, keys = [], []
    for name, ms in zip(names, model_seeds, strict=True):
        for f, fs in enumerate(ms.spawn(k)):
            seed = int(fs.generate_state(1)[0] & 0x7FFFFFFF)
            tasks.append((specs_of[name], data, np.flatnonzero(fold == f), sampler, seed, unit))
            keys.append((name, f))
    path = Path(results_file) if results_file is not None else None
    done: dict[tuple[str, int], dict[str, Any]] = {}
    if path is not None:
        settings = {
            "kind": "kfold",
            "models": names,
            "k": k,
            "random_seed": int(random_seed),
            "sampler": dict(sampler),
            "data": _data_digest(data),
        }
        specs = {name: _spec_record(base_of[name]) for name in names}
        objects = {n: v[1] for n, v in specs_of.items() if not isinstance(v, str)}
        if objects:  # a model object's own settings (priors, tie forms …) are settings too
            settings["params"] = json.loads(json.dumps(objects, sort_keys=True, default=str))
        done = _read_kfold_results(path, settings, specs)
        if not path.exists() or path.stat().st_size == 0:
            _append(path, {"settings": settings, "spec": specs})
    todo = [n for n, key in enumerate(keys) if key not in done]
    tick = Ticker(len(tasks), label="[kfold] refits done", on=progress)

    def on_done(index: int, result: dict[str, Any]) -> None:
        name, f = keys[todo[index]]
        rec = {
            "model": name,
            "fold": f,
            "rows": [int(r) for r in result["rows"]],
            "lpd": [float(v) for v in result["lpd"]],
            "divergences": int(result["divergences"]),
            "n_parameters": int(result["n_parameters"]),
        }
        done[(name, f)] = rec
        if path is not None:
            _append(path, rec)
        tick(len(done))

    if progress:
        resumed = f", {len(done)} of them read from {path}" if done else ""
        print(
            f"[kfold] {len(names)} models × {k} folds of {n_rows:,} {unit_name}: "
            f"{len(tasks)} NUTS refits{resumed}",
            file=sys.stderr,
            flush=True,
        )
    run_tasks(_kfold_task, [tasks[n] for n in todo], client=client, on_done=on_done)
    pointwise: dict[str, np.ndarray] = {}
    info: dict[str, dict[str, int]] = {}
    for key in keys:
        res = done[key]
        lpd = pointwise.setdefault(key[0], np.full(n_rows, np.nan))
        lpd[np.asarray(res["rows"], dtype=np.int64)] = res["lpd"]
        got = info.setdefault(key[0], {"divergences": 0, "n_parameters": res["n_parameters"]})
        got["divergences"] += res["divergences"]
    elpd = {n: float(v.sum()) for n, v in pointwise.items()}
    best = max(elpd, key=elpd.get)
    rows = []
    for name in sorted(names, key=lambda n: -elpd[n]):
        d = pointwise[best] - pointwise[name]
        rows.append(
            {
                "model": name,
                "elpd_kfold": elpd[name],
                "se": float(np.sqrt(n_rows * np.var(pointwise[name]))),
                "elpd_diff": float(d.sum()),
                "dse": float(np.sqrt(n_rows * np.var(d))),
                **info[name],
            }
        )
    table = pd.DataFrame(rows)
    table["rank"] = np.arange(len(table))
    preferred = _preferred(table, best, sigma)
    table["preferred"] = table["model"] == preferred
    table = table[list(KFOLD_COLUMNS)]
    table.attrs.update(
        {
            "unit": _CONTEXT_UNIT if by_context else LOO_UNIT,
            "unit_text": _CONTEXT_UNIT_TEXT if by_context else _UNIT_TEXT,
            "k": k,
            "message": f"{k}-fold cross-validation: " + _verdict(table, best, preferred, sigma),
            "preferred": preferred,
            "reliable": True,
            "pointwise": pointwise,
            "fold": fold,
        }
    )
    return table


def compare_models_dict(table: pd.DataFrame) -> dict[str, Any]:
    """JSON-ready form of a :func:`compare_models` table (records, unit, message).

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a"], "elpd_loo": [-1.0]})
    >>> t.attrs.update(unit="pair", unit_text="…", message="m", preferred="a")
    >>> compare_models_dict(t)["models"]
    [{'model': 'a', 'elpd_loo': -1.0}]
    """
    records = json.loads(table.to_json(orient="records"))
    return {
        "unit": table.attrs.get("unit"),
        "unit_text": table.attrs.get("unit_text"),
        "preferred": table.attrs.get("preferred"),
        "reliable": table.attrs.get("reliable"),
        "message": table.attrs.get("message"),
        "models": records,
    }


# ----------------------------------------------------------------------------- SBC
@dataclass(frozen=True)
class SBCResult:
    """The outcome of :func:`sbc`.

    Attributes
    ----------
    model : str
        The model spec name.
    ranks : DataFrame
        One row per (simulation, parameter): ``sim``, ``parameter``, ``true``,
        ``posterior_mean``, ``rank`` (0 … ``n_ranks`` − 1), ``n_ranks``, ``covered`` (94% HDI),
        ``ess_bulk`` (the fit's bulk ESS of the parameter).
    summary : DataFrame
        One row per parameter: ``parameter``, ``sims``, ``coverage`` (share of 94% HDIs holding
        the true value), ``uniformity_p`` (χ² test of the binned ranks against uniform),
        ``mean_rank`` (ranks scaled to [0, 1]; 0.5 when calibrated), ``median_ess_bulk``.
    settings : dict
        Every argument of the run (also the header of the results file, beside the spec's
        priors and sampler settings).
    failed : int
        Simulations whose fit raised (left out).
    """

    model: str
    ranks: pd.DataFrame
    summary: pd.DataFrame
    settings: dict[str, Any]
    failed: int = 0

    @property
    def label(self) -> str:
        """The model with the tie forms the run simulated and fitted, as
        :func:`compare_models` names them (``positional_order+tie_dispersion=pair``)."""
        forms = "".join(_form_name(f, self.settings.get(f, False)) for f in TIE_FORMS)
        return self.model + forms

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (per-parameter numbers, settings)."""
        return {
            "model": self.model,
            "sims": int(self.ranks["sim"].nunique()) if len(self.ranks) else 0,
            "failed": int(self.failed),
            "settings": self.settings,
            "parameters": json.loads(self.summary.to_json(orient="records")),
        }


def _design(n_items: int, n_judges: int, repeats: int, n_contexts: int = 1) -> Comparisons:
    """Round-robin design: every pair, ``repeats`` verdicts per order, per judge; with
    ``n_contexts`` > 1, that many round robins of ``n_items`` items each (a context column)."""
    rows = []
    for c in range(n_contexts):
        prefix = f"q{c:03d}/" if n_contexts > 1 else ""
        items = [f"{prefix}t{k:03d}" for k in range(n_items)]
        for jdx in range(n_judges):
            for a in range(n_items):
                for b in range(a + 1, n_items):
                    for _ in range(repeats):
                        rows.append((f"j{jdx:02d}", items[a], items[b], f"q{c:03d}"))
                        rows.append((f"j{jdx:02d}", items[b], items[a], f"q{c:03d}"))
    frame = pd.DataFrame(rows, columns=["judge", "first", "second", "context"])
    frame["outcome"] = "first"
    return load_comparisons(
        frame,
        judge="judge" if n_judges > 1 else None,
        context="context" if n_contexts > 1 else None,
        detect=False,
    )


def _bt_design(n_items: int, n_judges: int, repeats: int, random_seed: int) -> Comparisons:
    """:func:`_design` with one covariate ``x`` for the biased Bradley–Terry model.

    ``x`` is a first-minus-second difference: a standard normal value per unordered pair
    (drawn once from ``random_seed``, the same in every simulation), negated when the order is
    reversed, so γ (the shift between alike texts) and w are both identified.
    """
    data = _design(n_items, n_judges, repeats)
    lo = np.minimum(data.first, data.second)
    hi = np.maximum(data.first, data.second)
    u = np.random.default_rng([int(random_seed), 7]).standard_normal((n_items, n_items))
    x = np.where(data.first < data.second, 1.0, -1.0) * u[lo, hi]
    return data.with_covariates({"x": x})


def _log_from_verdicts(data: Comparisons, first_wins: np.ndarray) -> Comparisons:
    """``data`` with its outcomes replaced by ``first_wins`` (1: first, 0: second) per verdict."""
    frame = pd.DataFrame(
        {
            "judge": np.asarray(data.judges, dtype=object)[data.judge],
            "first": np.asarray(data.items, dtype=object)[data.first],
            "second": np.asarray(data.items, dtype=object)[data.second],
            "outcome": np.where(np.asarray(first_wins) > 0.5, "first", "second"),
        }
    )
    names = list(data.covariate_names)
    for c in names:
        frame[c] = np.asarray(data.covariates[c], dtype=float)
    return load_comparisons(
        frame, judge="judge" if data.n_judges > 1 else None, covariates=names, detect=False
    )


def _flat(ds: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Scalar parameters ``name`` / ``name[label]`` → draws (flattened over chain, draw)."""
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name not in ds:
            continue
        da = ds[name].stack(sample=("chain", "draw")).transpose("sample", ...)
        arr = np.asarray(da, dtype=float)
        extra = [d for d in da.dims if d != "sample"]
        if not extra:
            out[name] = arr
            continue
        labels = [list(map(str, da.coords[d].values)) for d in extra]
        flat = arr.reshape(arr.shape[0], -1)
        for k, combo in enumerate(np.ndindex(*[len(lab) for lab in labels])):
            lab = ",".join(labels[a][c] for a, c in enumerate(combo))
            out[f"{name}[{lab}]"] = flat[:, k]
    return out


def _sbc_parameters(model: Any, ties: bool = False) -> list[str]:
    from bayes_pairwise.pymc_models.error_models import TIE_REPORTED

    reported = [p for p in model.reported if ties or p not in TIE_REPORTED]
    if ties and getattr(model, "tie_dispersion", False):
        reported.append("tie_rho")
    return reported if _hard_truth(model) else [*reported, "sigma_s"]


def _hard_truth(model: Any) -> bool:
    """The order models: no σ_s (their truth is an order per context)."""
    return bool(getattr(model, "hard_truth", False))


def _order_counts(
    design: Comparisons,
    values: dict[str, np.ndarray],
    ties: bool,
    seed: int,
    tie_by: str = "context",
) -> np.ndarray:
    """The hard-truth models' generative process (METHODS §3) on ``design``: a uniformly random
    order of each context's items (the prior), then the verdicts given it
    (:func:`~bayes_pairwise.simulate.order_counts`: ties, then errors).

    Returns ``wins`` as :func:`log_from_counts` takes it: (n1, n2) or (n1, n2, t1, t2).
    """
    from bayes_pairwise.matrices import pair_counts
    from bayes_pairwise.simulate import order_counts

    rng = np.random.default_rng([int(seed), 3])
    ctx = np.asarray(design.item_context)
    rank = np.empty(design.n_items, dtype=np.int64)
    for c in range(design.n_contexts):  # a random order per context: rank 0 is the best
        members = np.flatnonzero(ctx == c)
        rank[members] = rng.permutation(members.size)
    return order_counts(pair_counts(design), ctx, rank, values, ties, rng, tie_by=tie_by)


#: The model class of ranked lists (noisy Plackett–Luce), not of pairwise verdicts.
_LISTWISE_CLASS = "NoisyPlackettLuce"


def _listwise(model: str) -> bool:
    """A model of ranked lists (:data:`_LISTWISE_CLASS`), not of pairwise verdicts."""
    from bayes_pairwise.pymc_models import load_spec

    return load_spec(model).model_class == _LISTWISE_CLASS


def _sim_seed(random_seed: int, sim: int) -> int:
    return int(np.random.SeedSequence([int(random_seed), int(sim)]).generate_state(1)[0] >> 1)


def _sbc_one(settings: dict[str, Any], sim: int) -> dict[str, Any]:
    """One SBC simulation: prior draw → simulated log → NUTS fit → ranks and coverage."""
    from bayes_pairwise.pymc_models import load_spec

    model_class = load_spec(settings["model"]).model_class
    if model_class == _LISTWISE_CLASS:
        return _sbc_one_lists(settings, sim)
    seed = _sim_seed(settings["random_seed"], sim)
    bt = model_class == "BiasedBradleyTerry"
    ties = bool(settings.get("ties", False))
    if bt:  # one Bernoulli per verdict, with a covariate so that w is calibrated too
        design = _bt_design(
            settings["n_items"], settings["n_judges"], settings["repeats"], settings["random_seed"]
        )
    else:
        design = _design(
            settings["n_items"],
            settings["n_judges"],
            settings["repeats"],
            settings.get("n_contexts", 1),
        )
    model = _sbc_model(
        settings,
        design,
        **({} if bt else {"ties": "model" if ties else "drop"}),
        **{f: settings[f] for f in ("tie_positional", "tie_dispersion") if settings.get(f)},
    )
    names = _sbc_parameters(model, ties)
    order = _hard_truth(model)
    # in a Dask worker too: not PyMC's "Sampling: [eps, …]" line for every simulation
    with warnings.catch_warnings(), quiet_third_party(), quiet_sampler_logs():
        warnings.simplefilter("ignore")
        # the order models' observed node has no random draw: their log is simulated below
        prior = _prior_draw(model.build_model(design), seed, observed=not order)
        truth = {k: float(v[0]) for k, v in _flat(prior.prior, names).items()}
        if order:
            values = {k: np.asarray(prior.prior[k]).reshape(-1) for k in prior.prior.data_vars}
            tie_by = tie_dispersion_group(settings.get("tie_dispersion")) or "context"
            data = log_from_counts(design, _order_counts(design, values, ties, seed, tie_by))
        elif bt:
            y = np.asarray(prior.prior_predictive[model.observed_name]).reshape(-1)
            data = _log_from_verdicts(design, y)
        else:
            wins = np.asarray(prior.prior_predictive["wins"]).reshape(-1, 4 if ties else 2)
            data = log_from_counts(design, wins)
        model.fit(data, method="nuts", random_seed=seed + 1, log_likelihood=False)
    return _sbc_record(model, names, truth, settings, sim, seed)


def _sbc_model(settings: dict[str, Any], design: Any, **extra: Any) -> Any:
    """The model every simulation fits: the spec with the run's NUTS settings (one core per
    fit: the simulations are the parallel unit) and ``extra`` settings; the sampler of
    ``"auto"`` (not recorded in ``settings``) chosen for ``design`` by :func:`_sbc_sampler`."""
    from bayes_pairwise.pymc_models import get_model

    model = get_model(
        settings["model"],
        draws=settings["draws"],
        tune=settings["tune"],
        chains=settings["chains"],
        nuts_sampler=settings.get("nuts_sampler", "pymc"),
        sampler_kwargs={"cores": 1},
        **extra,
    )
    if "nuts_sampler" not in settings:
        model.set_params(nuts_sampler=_sbc_sampler(model, design))
    return model


def _prior_draw(pm_model: Any, seed: int, *, observed: bool) -> Any:
    """One draw of every parameter from ``pm_model``'s prior, and of its observed log when
    ``observed`` (models whose observed node has no random draw simulate their log apart)."""
    import pymc as pm

    names = None if observed else [v.name for v in (*pm_model.free_RVs, *pm_model.deterministics)]
    return pm.sample_prior_predictive(draws=1, model=pm_model, random_seed=seed, var_names=names)


def _list_design(
    n_items: int, n_judges: int, lists_per_judge: int, list_size: int, random_seed: int
) -> Any:
    """The listwise SBC design: ``lists_per_judge`` lists of ``list_size`` distinct items per
    judge, items and shown order drawn once from ``random_seed`` (the same in every
    simulation); the returned :class:`~bayes_pairwise.rankings.Rankings` holds each list in its
    shown order (``ranked`` = the items shown, ``shown`` = 0, 1, …)."""
    from bayes_pairwise.rankings import rankings_from_arrays

    rng = np.random.default_rng([int(random_seed), 11])
    n_lists = int(n_judges) * int(lists_per_judge)
    items = np.stack(
        [rng.choice(int(n_items), int(list_size), replace=False) for _ in range(n_lists)]
    )
    return rankings_from_arrays(
        items,
        shown=np.tile(np.arange(int(list_size)), (n_lists, 1)),
        judge=np.arange(n_lists) % int(n_judges),
        items=[f"t{k:03d}" for k in range(int(n_items))],
        judges=[f"j{k:02d}" for k in range(int(n_judges))],
    )


def _simulate_lists(design: Any, values: dict[str, np.ndarray], seed: int) -> Any:
    """The lists of ``design`` (:func:`_list_design`) ranked by the noisy Plackett–Luce
    process with parameter ``values`` (``strength`` per item, ``first`` or ``position`` and
    ``lapse`` per judge, as the model names them)."""
    from bayes_pairwise.pymc_models.plackett_luce import rank_shown_lists
    from bayes_pairwise.rankings import rankings_from_arrays

    k = int(design.max_length)
    bonus = np.zeros((design.n_judges, k))
    if "first" in values:
        bonus[:, 0] = values["first"]
    elif "position" in values:
        bonus[:, :] = np.asarray(values["position"])[:, :k]
    ranked, order = rank_shown_lists(
        design.ranked,
        design.judge,
        values["strength"],
        bonus=bonus,
        lapse=values.get("lapse", 0.0),
        random_seed=np.random.default_rng([int(seed), 5]),
    )
    return rankings_from_arrays(
        ranked,
        shown=order,
        judge=design.judge,
        items=list(design.items),
        judges=list(design.judges),
    )


def _sbc_one_lists(settings: dict[str, Any], sim: int) -> dict[str, Any]:
    """:func:`_sbc_one` for the listwise model (noisy Plackett–Luce): prior draw → lists ranked
    by the model's own process (:func:`~bayes_pairwise.pymc_models.plackett_luce.rank_shown_lists`)
    on the fixed shown design → NUTS fit → ranks and coverage."""
    seed = _sim_seed(settings["random_seed"], sim)
    design = _list_design(
        settings["n_items"],
        settings["n_judges"],
        settings["lists_per_judge"],
        settings["list_size"],
        settings["random_seed"],
    )
    model = _sbc_model(settings, design)
    names = _sbc_parameters(model)
    with warnings.catch_warnings(), quiet_third_party(), quiet_sampler_logs():
        warnings.simplefilter("ignore")
        # the lists' CustomDist has no random draw: they are ranked by _simulate_lists
        prior = _prior_draw(model.build_model(design), seed, observed=False)
        truth = {k: float(v[0]) for k, v in _flat(prior.prior, names).items()}
        values = {k: np.asarray(prior.prior[k])[0, 0] for k in prior.prior.data_vars}
        data = _simulate_lists(design, values, seed)
        model.fit(data, method="nuts", random_seed=seed + 1, log_likelihood=False)
    return _sbc_record(model, names, truth, settings, sim, seed)


def _sbc_record(
    model: Any,
    names: list[str],
    truth: dict[str, float],
    settings: dict[str, Any],
    sim: int,
    seed: int,
) -> dict[str, Any]:
    """One simulation's ranks and HDI coverage of the true values among the posterior draws."""
    import arviz as az

    posterior = model.idata_.posterior
    draws = _flat(posterior, names)
    n_chains = int(posterior.sizes["chain"])
    n_ranks = int(settings["n_ranks"])
    records = []
    for name, true in truth.items():
        x = draws[name]
        idx = np.linspace(0, x.size - 1, n_ranks - 1).round().astype(int)
        rank = int(np.sum(x[idx] < true))
        lo, hi = az.hdi(x, hdi_prob=resolve_hdi_prob())
        records.append(
            {
                "sim": int(sim),
                "parameter": name,
                "true": true,
                "posterior_mean": float(x.mean()),
                "rank": rank,
                "n_ranks": n_ranks,
                "covered": bool(lo <= true <= hi),
                # a low ESS makes the ranked draws autocorrelated and the HDI too narrow
                "ess_bulk": float(az.ess(x.reshape(n_chains, -1), method="bulk")),
            }
        )
    divergences = 0
    if "diverging" in model.idata_.sample_stats:
        divergences = int(np.asarray(model.idata_.sample_stats["diverging"]).sum())
    return {"sim": int(sim), "seed": seed, "divergences": divergences, "records": records}


def _spec_record(model: str) -> dict[str, Any]:
    """What a results file records of the model spec besides the run's settings: its priors
    and the sampler settings the run does not set (``target_accept`` …), so that a run is not
    resumed across an edit of the spec."""
    from bayes_pairwise.pymc_models import load_spec

    spec = load_spec(model)
    run = ("draws", "tune", "chains", "nuts_sampler")
    sampler = {k: v for k, v in spec.sampler.items() if k not in run}
    return json.loads(json.dumps({"priors": spec.priors, "sampler": sampler}))


def _results_lines(
    path: Path, settings: dict[str, Any], what: str
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """A resumable results file's header and records (``None`` when it is missing or empty);
    DesignError where it is not a regular file or was written with other ``settings``. A
    line cut by an interrupted run is skipped."""
    if not path.exists():
        return None
    if not path.is_file():  # a FIFO or a device would block or never end
        raise DesignError(f"the {what} results file {path} is not a regular file")
    with open(path, encoding="utf-8") as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    if not lines:
        return None
    header = json.loads(lines[0])
    if header.get("settings") != json.loads(json.dumps(settings)):
        raise DesignError(
            f"the {what} results file {path} was written with other settings "
            f"({header.get('settings')}); use another file or the same settings"
        )
    records = []
    for ln in lines[1:]:
        try:
            records.append(json.loads(ln))
        except json.JSONDecodeError:  # a line cut by an interrupted run
            continue
    return header, records


def _spec_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The priors and sampler settings in which two :func:`_spec_record` records differ."""
    return sorted(
        f"{part}.{k}"
        for part in ("priors", "sampler")
        for k in set(old.get(part, {})) | set(new[part])
        if old.get(part, {}).get(k) != new[part].get(k)
    )


def _read_results(
    path: Path, settings: dict[str, Any], spec: dict[str, Any]
) -> dict[int, dict[str, Any]]:
    read = _results_lines(path, settings, "SBC")
    if read is None:
        return {}
    header, records = read
    if "spec" not in header:  # written before the spec was recorded
        warnings.warn(
            f"the SBC results file {path} does not record the model spec it was written with: "
            f"resuming it assumes that models/{settings['model']}.toml has not changed since",
            stacklevel=3,
        )
    elif header["spec"] != spec:
        changed = _spec_changes(header["spec"], spec)
        raise DesignError(
            f"the SBC results file {path} was written with another version of the model spec "
            f"{settings['model']!r} (changed: {', '.join(changed)}); use another file"
        )
    return {int(rec["sim"]): rec for rec in records}


def _read_kfold_results(
    path: Path, settings: dict[str, Any], specs: dict[str, dict[str, Any]]
) -> dict[tuple[str, int], dict[str, Any]]:
    """The finished refits of a K-fold results file, by (model, fold)."""
    read = _results_lines(path, settings, "K-fold")
    if read is None:
        return {}
    header, records = read
    for name, spec in specs.items():
        old = header.get("spec", {}).get(name)
        if old != spec:
            raise DesignError(
                f"the K-fold results file {path} was written with another version of the "
                f"model spec of {name!r} (changed: {', '.join(_spec_changes(old or {}, spec))})"
                "; use another file"
            )
    return {(str(r["model"]), int(r["fold"])): r for r in records}


def _data_digest(data: Comparisons) -> str:
    """SHA-256 of what a log's K-fold refits read: its verdicts, items, contexts and judges."""
    import hashlib

    h = hashlib.sha256()
    for arr in (data.first, data.second, data.outcome, data.judge, data.item_context):
        h.update(np.ascontiguousarray(arr).tobytes())
    if data.truth is not None:
        h.update(np.ascontiguousarray(data.truth).tobytes())
    h.update(json.dumps([list(data.items), list(data.judges), list(data.contexts)]).encode())
    return h.hexdigest()


def _append(path: Path, obj: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(obj) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _uniformity_p(ranks: np.ndarray, n_ranks: int, bins: int) -> float:
    from scipy.stats import chisquare

    edges = np.floor(np.arange(n_ranks) * bins / n_ranks).astype(int)
    expected = np.bincount(edges, minlength=bins) / n_ranks * ranks.size
    observed = np.bincount(edges[ranks], minlength=bins)
    return float(chisquare(observed, expected).pvalue)


def sbc_summary(ranks: pd.DataFrame, *, bins: int | None = None) -> pd.DataFrame:
    """Per parameter: simulations, HDI coverage, the χ² uniformity p-value and the mean rank.

    Parameters
    ----------
    ranks : DataFrame
        :attr:`SBCResult.ranks`: one row per (simulation, parameter) with ``rank``, ``n_ranks``
        and ``covered``.
    bins : int, optional
        Bins of the uniformity test (default: simulations / 5, between 2 and 10).

    Returns
    -------
    DataFrame
        ``parameter``, ``sims``, ``coverage``, ``uniformity_p``, ``mean_rank``
        (rank / (n_ranks − 1)) and ``median_ess_bulk`` (the median over the simulations of the
        parameter's bulk ESS; NaN for results files written before it was recorded). Ranks of
        autocorrelated draws pile up at both ends and an HDI from few effective draws is too
        narrow, so read a low coverage next to this column.

    Examples
    --------
    >>> ranks = pd.DataFrame({"sim": range(4), "parameter": "eps", "true": 0.1,
    ...                       "posterior_mean": 0.1, "rank": [0, 30, 60, 99],
    ...                       "n_ranks": 100, "covered": [True, True, True, False]})
    >>> sbc_summary(ranks, bins=2)[["parameter", "sims", "coverage"]].to_dict("records")
    [{'parameter': 'eps', 'sims': 4, 'coverage': 0.75}]
    """
    rows = []
    for name, grp in ranks.groupby("parameter", sort=False):
        n_ranks = int(grp["n_ranks"].iloc[0])
        b = bins or max(2, min(10, len(grp) // 5))
        r = grp["rank"].to_numpy(dtype=int)
        rows.append(
            {
                "parameter": name,
                "sims": len(grp),
                "coverage": float(grp["covered"].mean()),
                "uniformity_p": _uniformity_p(r, n_ranks, b),
                "mean_rank": float(np.mean(r / (n_ranks - 1))),
                "median_ess_bulk": float(grp["ess_bulk"].median())
                if "ess_bulk" in grp
                else float("nan"),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["parameter", "sims", "coverage", "uniformity_p", "mean_rank", "median_ess_bulk"],
    )


def _sbc_sampler(model: Any, design: Any) -> str:
    """sbc's ``"auto"``: nutpie where the model's log-density is written out (nothing to
    compile per simulated log), PyMC's NUTS otherwise (it reuses its compiled C code)."""
    from bayes_pairwise.pymc_models import nutpie_available

    if nutpie_available() and model.written_out_density(design)[0] is not None:
        return "nutpie"
    return "pymc"


def sbc(
    model: str = "uniform",
    *,
    n_items: int = 8,
    sims: int = 100,
    random_seed: int = 0,
    n_judges: int = 1,
    repeats: int = 1,
    draws: int = 500,
    tune: int = 500,
    chains: int = 2,
    n_ranks: int = 100,
    bins: int | None = None,
    n_jobs: int = 2,
    results_file: str | os.PathLike[str] | None = None,
    progress: bool | Callable[[int, int], None] = True,
    nuts_sampler: str = "auto",
    ties: bool = False,
    client: Any = None,
    tie_positional: bool = False,
    list_size: int = 4,
    lists_per_judge: int = 50,
    n_contexts: int = 1,
    tie_dispersion: bool | str = False,
) -> SBCResult:
    """Simulation-based calibration of a model (Talts et al. 2018).

    For each simulation: draw every parameter from the model's prior, draw a log from the
    model's own generative process (its ``wins`` counts on a round-robin design of ``n_items``
    items, ``repeats`` verdicts per order, ``n_judges`` judges; for the biased Bradley–Terry
    model its per-verdict outcomes, with one standard-normal covariate ``x`` per pair that
    changes sign with the order, so that γ and w are both checked), fit the model with NUTS and
    record, for each reported parameter, the rank of the true value among ``n_ranks − 1``
    evenly spaced (thinned) posterior draws and whether the 94% HDI covers it.

    Parameters
    ----------
    model : str
        A model spec name (``uniform``, ``positional``, ``*_hierarchical``, ``biased_bt`` …).
    n_items, n_judges, repeats : int
        The simulated design.
    sims : int
        Number of simulations.
    random_seed : int
        Simulation ``k`` uses a seed derived from ``(random_seed, k)``: runs are reproducible
        and extend (more ``sims``) without changing the first ones.
    draws, tune, chains : int
        NUTS settings of each fit (chains run one after the other inside a worker).
    n_ranks : int
        Possible rank values (0 … ``n_ranks − 1``): the posterior is thinned to
        ``n_ranks − 1`` draws, which reduces the autocorrelation of the draws ranked.
    bins : int, optional
        Histogram bins of the uniformity test (default: sims / 5, between 2 and 10).
    n_jobs : int
        Without ``client``: more than 1 runs the simulations on a Dask ``LocalCluster`` of
        ``n_jobs`` worker processes (default 2: the two cores; in this process, one after the
        other, where dask is not installed); 1 runs them here.
    results_file : path, optional
        JSON-lines file: a header with the settings, then one line per finished simulation.
        An existing file with the same settings is resumed (finished simulations are skipped).
    progress : bool or callable
        Print ``sbc MODEL: k/S`` lines on stderr, or call ``progress(done, total)``.
    nuts_sampler : {"auto", "nutpie", "pymc"}
        The NUTS implementation of each fit. ``"auto"``: nutpie when the model's log-density is
        written out (the uniform and positional models, their hierarchical and pair-difficulty
        variants, with their default prior families,
        :meth:`~bayes_pairwise.pymc_models.base.BayesianPairwiseModel.written_out_density`:
        nothing is compiled per simulated log), else PyMC's sampler, which reuses PyTensor's
        compiled C code from one log to the next where nutpie would compile each log anew.
        Measured on two cores (positional, 8 items × 3 judges, 2 × (500 + 500), one worker):
        1.1 s per simulation with nutpie and the written-out density, 2.8 s with PyMC's
        sampler; 20.0 s with nutpie compiling the graph.
    ties : bool
        Simulate ties too and fit with the tie model (``ties="model"``, METHODS §7.5): the
        simulated logs hold ties per order and the tie rates (``tie_rate`` per judge) are
        ranked as well. Only for models with a tie sub-model.
    client : distributed.Client, optional
        Run the simulations on this Dask cluster (:mod:`bayes_pairwise.distributed`; the CLI's
        ``--scheduler``). The seed of simulation k depends on ``random_seed`` and k only, so
        the result is the same on any scheduler, and the same as with ``n_jobs=1``.

    tie_positional : bool
        With ``ties``: one tie rate per position of the better item (``tie_rate_plus``,
        ``tie_rate_minus``), simulated and fitted (``sbc --ties --tie-positional``).
    list_size, lists_per_judge : int
        The listwise model (``noisy_plackett_luce``) only: each judge ranks
        ``lists_per_judge`` lists of ``list_size`` distinct items out of ``n_items``, the items
        and the order they are shown in drawn once from ``random_seed``; each simulation ranks
        them by the model's process (Plackett–Luce on strength + the bonus of the shown slot,
        a random order with the lapse rate) and ranks ``first`` and ``lapse`` per judge and
        σ_s. ``repeats`` does not apply.
    n_contexts : int
        Pairwise models: the design is ``n_contexts`` round robins of ``n_items`` items each
        (default one).
    tie_dispersion : bool or {"context", "pair"}
        The order models, with ``ties``: a tie rate that varies by context (``True`` or
        ``"context"``; needs ``n_contexts`` ≥ 2) or by pair (``"pair"``; needs ``repeats`` ≥ 1,
        each pair shown in both orders) (``tie_rho``), simulated per group and judge from its
        Beta and fitted (``sbc --ties --tie-dispersion [context|pair]``).

    Returns
    -------
    SBCResult

    Examples
    --------
    >>> res = sbc("uniform", n_items=6, sims=4, random_seed=1, draws=200, tune=200,
    ...           n_jobs=1, progress=False)  # doctest: +SKIP
    >>> res.summary[["parameter", "coverage"]]  # doctest: +SKIP
    """
    from bayes_pairwise.pymc_models import available_models

    if model not in available_models():
        raise DesignError(f"unknown model {model!r}; available: {available_models()}")
    if ties:
        from bayes_pairwise.pymc_models import get_model

        if "ties" not in get_model(model).get_params():
            raise DesignError(f"model {model!r} has no tie sub-model: sbc(ties=True) needs one")
    if tie_positional and not ties:
        raise DesignError("sbc(tie_positional=True) needs ties=True (the tie rates to calibrate)")
    if int(n_contexts) < 1:
        raise ValueError(f"n_contexts must be >= 1, got {n_contexts}")
    tie_by = tie_dispersion_group(tie_dispersion)
    if tie_by:
        from bayes_pairwise.pymc_models import get_model

        if not ties or (tie_by == "context" and int(n_contexts) < 2):
            raise DesignError(
                f"sbc(tie_dispersion={tie_dispersion!r}) needs ties=True"
                + (
                    " and n_contexts >= 2 (a tie rate that varies by context, calibrated "
                    "across contexts)"
                    if tie_by == "context"
                    else " (a tie rate that varies by pair)"
                )
            )
        if "tie_dispersion" not in get_model(model).get_params():
            raise DesignError(
                f"model {model!r} has no tie rate that varies by {tie_by} (the order models "
                "uniform_order and positional_order do)"
            )
    if int(sims) < 1 or int(n_items) < 2 or int(n_ranks) < 2:
        raise ValueError("need sims >= 1, n_items >= 2 and n_ranks >= 2")
    listwise = _listwise(model)
    if listwise and not 2 <= int(list_size) <= int(n_items):
        raise ValueError(f"list_size must be 2 … n_items ({n_items}), got {list_size}")
    if listwise and int(lists_per_judge) < 1:
        raise ValueError(f"lists_per_judge must be >= 1, got {lists_per_judge}")
    if listwise and int(repeats) != 1:
        raise DesignError(
            f"model {model!r} ranks lists: its design is set by list_size and lists_per_judge "
            f"(CLI --list-size, --lists), not repeats ({repeats})"
        )
    settings: dict[str, Any] = {
        "model": model,
        "n_items": int(n_items),
        "n_judges": int(n_judges),
        "repeats": int(repeats),
        "draws": int(draws),
        "tune": int(tune),
        "chains": int(chains),
        "n_ranks": int(n_ranks),
        "random_seed": int(random_seed),
    }
    if nuts_sampler != "auto":  # recorded only when chosen: older results files still resume
        settings["nuts_sampler"] = str(nuts_sampler)
    if ties:  # likewise
        settings["ties"] = True
    if tie_positional:
        settings["tie_positional"] = True
    if int(n_contexts) > 1:  # recorded only when set: older results files still resume
        settings["n_contexts"] = int(n_contexts)
    if tie_by:  # True for "context": older results files still resume
        settings["tie_dispersion"] = True if tie_by == "context" else tie_by
    if listwise:  # recorded only for the listwise model: pairwise results files still resume
        settings["list_size"] = int(list_size)
        settings["lists_per_judge"] = int(lists_per_judge)
    path = Path(results_file) if results_file is not None else None
    done: dict[int, dict[str, Any]] = {}
    if path is not None:
        spec = _spec_record(model)
        done = _read_results(path, settings, spec)
        if not path.exists() or path.stat().st_size == 0:
            _append(path, {"settings": settings, "spec": spec})
    todo = [k for k in range(int(sims)) if k not in done]
    total = int(sims)
    failed = 0

    # a line about every tenth of the simulations, at most one a second, the last always
    tick = Ticker(total, label=f"sbc {model}: simulations", on=bool(progress))

    def report(n: int) -> None:
        if callable(progress):
            progress(n, total)
        else:
            tick(n)

    def finish(rec: dict[str, Any]) -> None:
        done[rec["sim"]] = rec
        if path is not None:
            _append(path, rec)
        report(sum(1 for k in done if k < total))

    if todo:
        report(total - len(todo))

    errors: list[Exception] = []

    def collect(_: int, rec: Any) -> None:
        nonlocal failed
        if isinstance(rec, Exception):  # a failed fit is counted, not fatal
            failed += 1
            errors.append(rec)
        else:
            finish(rec)

    tasks = [(settings, k) for k in todo]
    if todo and client is None and int(n_jobs) > 1:
        try:
            import distributed  # noqa: F401
        except ImportError:
            warnings.warn(
                f"n_jobs={n_jobs} runs on a Dask LocalCluster, and dask.distributed is not "
                f"installed ({INSTALL_HINT}): the simulations run here, one after the other",
                stacklevel=2,
            )
            run_tasks(_sbc_one, tasks, on_done=collect, return_exceptions=True)
        else:
            with local_cluster_client(int(n_jobs)) as own:
                run_tasks(_sbc_one, tasks, client=own, on_done=collect, return_exceptions=True)
    elif todo:
        run_tasks(_sbc_one, tasks, client=client, on_done=collect, return_exceptions=True)
    if todo and failed == len(todo) and not any(k < total for k in done):
        # nothing to calibrate: say why instead of an empty table
        raise DesignError(
            f"sbc {model}: every simulation failed ({failed} of {total}); the first: "
            f"{type(errors[0]).__name__}: {errors[0]}"
        ) from errors[0]
    records = [r for k in sorted(done) if k < total for r in done[k]["records"]]
    ranks = pd.DataFrame(
        records,
        columns=[
            "sim",
            "parameter",
            "true",
            "posterior_mean",
            "rank",
            "n_ranks",
            "covered",
            "ess_bulk",
        ],
    )
    settings_out = {
        **settings,
        "sims": total,
        "divergences": int(sum(done[k].get("divergences", 0) for k in done if k < total)),
    }
    return SBCResult(
        model=model,
        ranks=ranks,
        summary=sbc_summary(ranks, bins=bins),
        settings=settings_out,
        failed=failed,
    )


def sbc_rank_data(result: SBCResult, *, bins: int | None = None) -> pd.DataFrame:
    """The numbers of :func:`plot_sbc_ranks`: rank histogram counts and the uniform band.

    Returns
    -------
    DataFrame
        One row per (parameter, bin): ``parameter``, ``bin``, ``count``, ``expected`` (under
        uniform ranks) and ``band_lo``, ``band_hi`` (the central 99% binomial interval of a bin
        count under uniform ranks).

    Examples
    --------
    >>> ranks = pd.DataFrame({"sim": range(4), "parameter": "eps", "true": 0.1,
    ...                       "posterior_mean": 0.1, "rank": [0, 30, 60, 99],
    ...                       "n_ranks": 100, "covered": True})
    >>> res = SBCResult("uniform", ranks, sbc_summary(ranks, bins=2), {})
    >>> sbc_rank_data(res, bins=2)[["bin", "count", "expected"]].values.tolist()
    [[0.0, 2.0, 2.0], [1.0, 2.0, 2.0]]
    """
    from scipy.stats import binom

    rows = []
    for name, grp in result.ranks.groupby("parameter", sort=False):
        n_ranks = int(grp["n_ranks"].iloc[0])
        b = bins or max(2, min(20, len(grp) // 5))
        which = np.floor(np.arange(n_ranks) * b / n_ranks).astype(int)
        share = np.bincount(which, minlength=b) / n_ranks
        counts = np.bincount(which[grp["rank"].to_numpy(dtype=int)], minlength=b)
        n = len(grp)
        for k in range(b):
            rows.append(
                {
                    "parameter": name,
                    "bin": k,
                    "count": int(counts[k]),
                    "expected": float(n * share[k]),
                    "band_lo": float(binom.ppf(0.005, n, share[k])),
                    "band_hi": float(binom.ppf(0.995, n, share[k])),
                }
            )
    return pd.DataFrame(rows)
