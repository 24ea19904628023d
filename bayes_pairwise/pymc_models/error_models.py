"""The paper's judge-error models in PyMC: uniform error ε and positional bias (ε₊, ε₋).

Both share item strengths ``strength = sigma_s · z`` (z ~ ZeroSumNormal(1) per context,
sigma_s ~ HalfNormal(10)) and error rates per judge, shared across contexts (METHODS §7.1–7.2).
The observation unit is one (judge, unordered pair) row of
:func:`~bayes_pairwise.matrices.pair_counts`: the observed variable ``wins`` holds ``(n1, n2)``
(dims ``pair``, ``count``), so ``log_likelihood`` and LOO are per pair.

Ties (METHODS §7.5, ``docs/src/tie_model.md``): when the data keep ties (outcome 0.5 under
``tie_policy`` ``"model"`` or ``"half"``) the models treat a tie as a third outcome. ``wins``
then holds ``(n1, n2, t1, t2)`` (non-tie wins of ``i`` per order, ties per order), a tie rate
``tie_rate`` per judge is estimated (optionally per position, optionally falling with
``|s_i − s_j|``) and nothing is dropped.

Gold labels (``docs/src/gold_labels.md``): when the data carry them
(``load_comparisons(..., truth=…)``) the latent truth of a labelled pair is observed: its row's
log-likelihood is log σ(±d) plus the matching branch instead of the sum over T (both the
binomial and the tie forms). The truth code per pair row is
stored as ``pair_truth`` (1: i≻j, 0: j≻i, −1 unknown) in ``constant_data``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayes_pairwise.caveats import CAVEATS_STEP, record_caveats
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.matrices import PairCounts, pair_counts
from bayes_pairwise.pymc_models.base import BayesianPairwiseModel, make_prior
from bayes_pairwise.pymc_models.design import check_error_design
from bayes_pairwise.pymc_models.direct import DirectSpec, direct_spec
from bayes_pairwise.pymc_models.likelihoods import (
    LIKELIHOODS,
    pair_counts_dist,
    per_judge,
    tie_counts_dist,
)

__all__ = [
    "TIE_SETTINGS",
    "PositionalBias",
    "UniformError",
    "observed_counts",
    "pair_labels",
    "tie_logits_by_position",
]

#: Values of the ``ties`` setting of the error models.
TIE_SETTINGS = ("auto", "model", "drop")

#: Tie parameters reported as findings (those present in the fit).
TIE_REPORTED = ("tie_rate", "tie_rate_plus", "tie_rate_minus", "tie_rate_equal", "tie_closeness")


def pair_labels(pc: PairCounts) -> list[str]:
    """Coordinate labels of the pair rows: ``"i vs j"``, prefixed by ``"judge: "`` when the
    data hold several judges.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.matrices import pair_counts
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "c"], "outcome": ["first"] * 2})
    >>> pair_labels(pair_counts(load_comparisons(df)))
    ['a vs b', 'b vs c']
    """
    items = np.asarray(pc.items, dtype=object)
    labels = [f"{a} vs {b}" for a, b in zip(items[pc.i], items[pc.j], strict=True)]
    if len(pc.judges) > 1:
        judges = np.asarray(pc.judges, dtype=object)[pc.judge]
        labels = [f"{j}: {lab}" for j, lab in zip(judges, labels, strict=True)]
    return labels


def tie_logits_by_position(priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
    """In the current PyMC model: ``tie_logit`` (dims judge × tie_position) and the
    deterministics ``tie_rate_plus`` / ``tie_rate_minus``; returns the logits (α₊, α₋) of a
    tie when the better item is shown first / second (``tie_positional=True``).

    Examples
    --------
    >>> import pymc as pm
    >>> with pm.Model(coords={"judge": ["a", "b"]}) as m:
    ...     a_plus, a_minus = tie_logits_by_position(
    ...         {"tie_logit": {"dist": "Logistic", "mu": 0.0, "s": 1.0}})
    >>> sorted(m.named_vars)
    ['tie_logit', 'tie_rate_minus', 'tie_rate_plus']
    """
    model = pm.modelcontext(None)
    model.add_coord("tie_position", ["plus", "minus"])
    alpha = make_prior("tie_logit", priors["tie_logit"], "real", dims=("judge", "tie_position"))
    a_plus, a_minus = alpha[:, 0], alpha[:, 1]
    pm.Deterministic("tie_rate_plus", pm.math.sigmoid(a_plus), dims="judge")
    pm.Deterministic("tie_rate_minus", pm.math.sigmoid(a_minus), dims="judge")
    return a_plus, a_minus


def observed_counts(pc: PairCounts, tie_model: bool) -> np.ndarray:
    """The observed ``wins`` rows of the error models: ``(n1, n2)``, or ``(n1, n2, t1, t2)``
    with ties modelled; int64 counts, or float64 sums of weights when ``pc.weighted``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.matrices import pair_counts
    >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
    ...                    "outcome": ["first", "tie"]})
    >>> observed_counts(pair_counts(load_comparisons(df, ties="model")), True).tolist()
    [[1, 0, 0, 1]]
    >>> weighted = load_comparisons(df, ties="model").with_weights([2.5, 1.0])
    >>> observed_counts(pair_counts(weighted, weighted=True), True).tolist()
    [[2.5, 0.0, 0.0, 1.0]]
    """
    if tie_model:
        observed = np.stack([pc.n1_decided, pc.n2_decided, pc.t1, pc.t2], axis=1)
    else:
        observed = np.stack([pc.n1, pc.n2], axis=1)
    return observed.astype(np.float64) if pc.weighted else np.rint(observed).astype(np.int64)


class _ErrorModel(BayesianPairwiseModel):
    likelihoods: ClassVar[tuple[str, ...]] = LIKELIHOODS
    observed_name: ClassVar[str] = "wins"
    positional: ClassVar[bool] = False

    def __init__(
        self,
        *,
        spec: str | os.PathLike[str] | None = None,
        priors: Mapping[str, Mapping[str, Any]] | None = None,
        likelihood: str | None = None,
        ties: str = "auto",
        tie_positional: bool = False,
        tie_closeness: bool = False,
        draws: int | None = None,
        tune: int | None = None,
        chains: int | str | None = None,
        target_accept: float | None = None,
        nuts_sampler: str | None = None,
        sampler_kwargs: Mapping[str, Any] | None = None,
        map_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            spec=spec,
            priors=priors,
            likelihood=likelihood,
            draws=draws,
            tune=tune,
            chains=chains,
            target_accept=target_accept,
            nuts_sampler=nuts_sampler,
            sampler_kwargs=sampler_kwargs,
            map_kwargs=map_kwargs,
        )
        self.ties = ties
        self.tie_positional = tie_positional
        self.tie_closeness = tie_closeness

    @property
    def prior_kinds(self) -> dict[str, str]:
        return {
            "sigma_s": "positive",
            "eps": self._eps_kind,
            "tie_logit": "real",
            "tie_closeness": "positive",
        }

    _eps_kind: ClassVar[str] = "half_rate"

    # ------------------------------------------------------------------ ties
    def models_ties(self, data: Comparisons) -> bool:
        """True when a fit to ``data`` treats ties as an outcome (the tie model).

        ``ties="auto"``: when the data's ``tie_policy`` is ``"model"``, or when the data hold
        ties counted half (``"half"``). ``ties="model"``: always. ``ties="drop"``: never (the
        ties are dropped before fitting and counted in the data's ``n_ties_dropped``).

        Examples
        --------
        >>> import pandas as pd
        >>> from bayes_pairwise.data import load_comparisons
        >>> df = pd.DataFrame({"first": ["a", "b"], "second": ["b", "a"],
        ...                    "outcome": ["first", "tie"]})
        >>> UniformError().models_ties(load_comparisons(df, ties="half"))
        True
        >>> UniformError().models_ties(load_comparisons(df, ties="drop"))
        False
        """
        if self.ties not in TIE_SETTINGS:
            raise ValueError(f"ties must be one of {TIE_SETTINGS}, got {self.ties!r}")
        if self.ties == "drop":
            return False
        if self.ties == "model":
            return True
        return data.tie_policy == "model" or not data.integer_outcomes

    def _prepared(self, data: Comparisons) -> Comparisons:
        if self.ties == "drop" and not data.integer_outcomes:
            return data.drop_ties()
        return data

    def _check_data(self, data: Comparisons) -> None:
        super()._check_data(data)
        tie_model = self.models_ties(data)
        data = self._prepared(data)
        if not tie_model and not data.integer_outcomes:  # pragma: no cover - drop handles it
            raise DesignError(
                f"{type(self).__name__} without the tie model is a binomial model of wins and "
                f"losses, but the data count {data.n_ties} tie(s) as half a win. Use ties='auto' "
                "or 'model' (ties as an outcome) or reload with ties='drop'."
            )
        if tie_model and data.tie_policy == "drop" and data.n_ties_dropped > 0:
            raise DesignError(
                f"ties='model' but the data's {data.n_ties_dropped} tie(s) were dropped when "
                "loading (ties='drop'): a tie rate fitted to them would be zero. Reload with "
                "ties='model' (or 'half')."
            )
        bad = ~np.isin(np.asarray(data.outcome), (0.0, 0.5, 1.0))
        if bad.any():
            raise DesignError(
                f"{type(self).__name__} needs outcomes 1 (first wins), 0 (second wins) or 0.5 "
                f"(tie); {int(bad.sum())} verdict(s) hold other values"
            )
        if data.n_comparisons == 0:
            raise DesignError("the data hold no verdicts")

    def _design_warnings(self, data: Comparisons) -> list[str]:
        pc = pair_counts(self._prepared(data), weighted=data.has_weights)
        return check_error_design(pc, positional=self.positional)

    def _extra_settings(self) -> dict[str, Any]:
        return {"ties": self.ties}

    #: ``fit`` records ``caveats_`` and takes ``caveats_seed``.
    records_caveats: ClassVar[bool] = True

    def fit(
        self, data: Comparisons, *, caveats_seed: int | None = None, **kwargs: Any
    ) -> _ErrorModel:
        """Fit (see :meth:`BayesianPairwiseModel.fit`); also records ``caveats_`` and the
        ``caveats`` attribute of ``idata_.posterior`` (:func:`bayes_pairwise.caveats.caveats_for`).

        ``caveats_seed`` seeds the log-level checks behind the caveats (the bounds' bootstrap,
        the identification simulation); default ``random_seed``. :func:`~bayes_pairwise.crosscheck`
        passes its own seed, so that a fit's caveats state the cross-check's numbers (and the
        simulation runs once, not again with the sampler's stream).
        """
        seed = kwargs.get("random_seed") if caveats_seed is None else caveats_seed
        # one printer for the fit's phases and the caveats'
        kwargs["on_step"] = self._step_lines(kwargs.get("on_step"), kwargs.get("progress", False))
        fitted = super().fit(data, **kwargs)
        if (on_step := kwargs.get("on_step")) is not None:
            on_step(CAVEATS_STEP)  # the correlation test's bootstrap can take seconds
        return record_caveats(fitted, data, random_seed=seed)

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        raise NotImplementedError

    #: The rate parameterisation :mod:`~bayes_pairwise.pymc_models.direct` writes out for this
    #: very class ("flat", "hierarchical" or "difficulty"); read from the class's own
    #: namespace, so that a subclass that builds another model falls back to the graph unless
    #: it says otherwise.
    direct_rates: ClassVar[str | None] = None

    def _direct(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> tuple[DirectSpec | None, str]:
        rates = type(self).__dict__.get("direct_rates")
        if rates is None:  # a subclass builds another model
            return super()._direct(data, priors, likelihood)
        tie_model = self.models_ties(data)
        data = self._prepared(data)
        pc = pair_counts(data, weighted=data.has_weights)
        return direct_spec(
            pc,
            n_items=data.n_items,
            n_judges=data.n_judges,
            n_contexts=data.n_contexts,
            item_context=np.asarray(data.item_context),
            positional=self.positional,
            ties=(2 if self.tie_positional else 1) if tie_model else 0,
            closeness=tie_model and self.tie_closeness,
            priors=priors,
            observed=observed_counts(pc, tie_model),
            hierarchical=rates == "hierarchical",
            difficulty=rates == "difficulty",
        )

    def _tie_block(
        self,
        priors: dict[str, dict[str, Any]],
        pc: PairCounts,
        d: Any,
        judge: Any,
        n_judges: int,
        truth: Any = None,
    ) -> tuple[Any, Any]:
        """Tie parameters and the per-row tie logits (η₊, η₋) (METHODS §7.5).

        logit τ = α_judge[, position] − β_judge·|d|, β ≥ 0 (only with ``tie_closeness``).
        """
        if self.tie_positional:
            a_plus, a_minus = tie_logits_by_position(priors)
        else:
            a_plus = a_minus = make_prior("tie_logit", priors["tie_logit"], "real", dims="judge")
        eta_plus, eta_minus = per_judge(a_plus, judge), per_judge(a_minus, judge)
        if self.tie_closeness:
            beta = make_prior("tie_closeness", priors["tie_closeness"], "positive", dims="judge")
            shrink = per_judge(beta, judge) * pt.abs(d)
            eta_plus, eta_minus = eta_plus - shrink, eta_minus - shrink
            if not self.tie_positional:
                pm.Deterministic("tie_rate_equal", pm.math.sigmoid(a_plus), dims="judge")
        if not (self.tie_positional or self.tie_closeness):
            pm.Deterministic("tie_rate", pm.math.sigmoid(a_plus), dims="judge")
        else:
            # expected share of ties among the judge's verdicts (T averaged out, or known)
            sd = pm.math.sigmoid(d)
            if truth is not None:
                sd = pt.switch(pt.ge(truth, 0), pt.eq(truth, 1).astype("float64"), sd)
            tp, tm = pm.math.sigmoid(eta_plus), pm.math.sigmoid(eta_minus)
            kp = np.asarray(pc.k_plus, dtype=float)
            km = np.asarray(pc.k_minus, dtype=float)
            ties = kp * (sd * tp + (1 - sd) * tm) + km * (sd * tm + (1 - sd) * tp)
            total = np.bincount(pc.judge, weights=kp + km, minlength=n_judges)
            zeros = pt.zeros(n_judges)
            shares = pt.inc_subtensor(zeros[np.asarray(pc.judge, dtype=np.int64)], ties)
            pm.Deterministic("tie_rate", shares / np.maximum(total, 1.0), dims="judge")
        return eta_plus, eta_minus

    def _build(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> pm.Model:
        tie_model = self.models_ties(data)
        data = self._prepared(data)
        pc = pair_counts(data, weighted=data.has_weights)
        coords = {
            "item": list(data.items),
            "judge": list(data.judges),
            "pair": pair_labels(pc),
            "count": ["n1", "n2", "t1", "t2"] if tie_model else ["n1", "n2"],
        }
        observed = observed_counts(pc, tie_model)
        with pm.Model(coords=coords) as model:
            i = pm.Data("pair_i", pc.i.astype(np.int64), dims="pair")
            j = pm.Data("pair_j", pc.j.astype(np.int64), dims="pair")
            judge = pm.Data("pair_judge", pc.judge.astype(np.int64), dims="pair")
            if tie_model:
                model.add_coord("order", ["k_plus", "k_minus"])
            k = pm.Data(
                "k",
                np.stack([pc.k_plus, pc.k_minus], axis=1).astype(observed.dtype),
                dims=("pair", "order" if tie_model else "count"),
            )
            truth = None
            if pc.has_truth:
                truth = pm.Data("pair_truth", pc.truth.astype(np.int64), dims="pair")
            strength = self._strength_block(data, priors["sigma_s"])
            eps_plus, eps_minus = self._rates(priors)
            d = strength[i] - strength[j]
            if tie_model:
                eta_plus, eta_minus = self._tie_block(
                    priors, pc, d, judge, data.n_judges, truth=truth
                )
                tie_counts_dist(
                    "wins",
                    d,
                    judge,
                    eps_plus,
                    eps_minus,
                    eta_plus,
                    eta_minus,
                    k,
                    positional_ties=self.tie_positional,
                    observed=observed,
                    truth=truth,
                )
            else:
                pair_counts_dist(
                    "wins",
                    d,
                    judge,
                    eps_plus,
                    eps_minus,
                    k,
                    observed=observed,
                    truth=truth,
                )
        return model


class UniformError(_ErrorModel):
    """Uniform judge error ε per judge, latent true outcome per pair summed out.

    Every verdict contradicts its pair's latent true outcome with probability ε, in either
    presentation order (METHODS §3.1, §7.1). ε ~ Uniform(0, 0.5) per judge.

    Parameters
    ----------
    spec : str or path, optional
        ``"uniform"`` (default), or a TOML file.
    priors : dict, optional
        Overrides for ``sigma_s`` (HalfNormal, …) and ``eps`` (Uniform on [lower, upper] ⊂
        [0, 0.5], or Beta(alpha, beta) placed on eps / 0.5), ``tie_logit`` (a real-valued prior
        on logit τ; default Logistic(0, 1), i.e. τ ~ Uniform(0, 1)) and ``tie_closeness``
        (positive; default HalfNormal(2)). Precedence: user > spec > ``models/_base.toml``;
        unknown names raise :class:`~bayes_pairwise.errors.PriorError`.
    likelihood : {"marginal"}, optional
        The only likelihood: one latent truth per pair row, summed out (METHODS §7.1).
    ties : {"auto", "model", "drop"}
        Ties (outcome 0.5) as a third outcome (METHODS §7.5). ``"auto"`` (default): modelled
        when the data's ``tie_policy`` is ``"model"`` or the data keep ties counted half;
        ``"model"``: always; ``"drop"``: ties removed before fitting. With ties modelled a verdict
        is a tie with probability τ = σ(``tie_logit``) per judge, otherwise the error model
        applies; ``wins`` holds ``(n1, n2, t1, t2)`` and ``tie_rate`` [judge] is reported.
    tie_positional : bool
        One tie rate per position: ``tie_rate_plus`` when the truly better item is shown first,
        ``tie_rate_minus`` when second.
    tie_closeness : bool
        logit τ = ``tie_logit`` − ``tie_closeness`` · |s_i − s_j| with ``tie_closeness`` ≥ 0:
        ties more likely on close pairs. Reports ``tie_closeness``, ``tie_rate_equal`` (τ at
        |s_i − s_j| = 0) and ``tie_rate`` (the fitted share of ties).
    draws, tune, chains, target_accept, nuts_sampler, sampler_kwargs, map_kwargs
        See :class:`~bayes_pairwise.pymc_models.base.BayesianPairwiseModel`.

    Attributes
    ----------
    idata_ : arviz.InferenceData
        ``posterior`` (``eps`` [judge], ``sigma_s``, ``z`` [item], ``strength`` [item]),
        ``log_likelihood`` (``wins`` [pair]), ``sample_stats``, ``observed_data``,
        ``constant_data``; ``posterior_predictive`` after :meth:`sample_posterior_predictive`.
    model_ : pymc.Model
    strengths_ : pandas.Series
    ranking_ : tuple of str
    method_ : str
    random_seed_ : int
    settings_ : dict
    design_warnings_ : list of str

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(12, eps=0.15, random_seed=0)
    >>> m = UniformError().fit(sim.data, method="map", random_seed=1)
    >>> m.idata_.posterior["eps"].dims
    ('chain', 'draw', 'judge')
    >>> m = UniformError(draws=500).fit(sim.data, random_seed=1)  # doctest: +SKIP
    >>> m.summary()  # doctest: +SKIP
    """

    default_spec: ClassVar[str] = "uniform"
    #: The order model that is this model's σ_s → ∞ limit
    #: (:mod:`~bayes_pairwise.pymc_models.order`); read from the class itself
    #: (:func:`bayes_pairwise.caveats.order_model_for`), so a subclass (the hierarchical and
    #: difficulty variants) has none unless it declares one.
    hard_truth_limit: ClassVar[str] = "uniform_order"
    reported: ClassVar[tuple[str, ...]] = ("eps", *TIE_REPORTED)
    positional: ClassVar[bool] = False
    direct_rates: ClassVar[str | None] = "flat"
    _eps_kind: ClassVar[str] = "half_rate"

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        eps = make_prior("eps", priors["eps"], "half_rate", dims="judge")
        return eps, eps


class PositionalBias(_ErrorModel):
    """Positional judge error: ε₊ when the better item is shown first, ε₋ when second.

    (ε₊, ε₋, 1 − ε₊ − ε₋) ~ Dirichlet(1, 1, 1) per judge (METHODS §3.2, §7.2); one latent
    true outcome per pair, shared by its repeats and both orders, summed out. Telling ε₊ from
    ε₋ needs pairs seen in both orders (a :class:`~bayes_pairwise.errors.DesignWarning` says
    when a judge has none).

    Parameters
    ----------
    spec : str or path, optional
        ``"positional"`` (default), or a TOML file.
    priors : dict, optional
        Overrides for ``sigma_s`` and ``eps`` (``{"dist": "Dirichlet", "a": [a₊, a₋, a_ok]}``).
        Precedence: user > spec > ``models/_base.toml``. Tie priors: ``tie_logit`` (on logit τ;
        default Logistic(0, 1), i.e. τ ~ Uniform(0, 1)) and ``tie_closeness`` (HalfNormal(2)).
    likelihood : {"marginal"}, optional
    ties : {"auto", "model", "drop"}
        Ties (outcome 0.5) as a third outcome (METHODS §7.5). ``"auto"`` (default): modelled
        when the data's ``tie_policy`` is ``"model"`` or the data keep ties counted half;
        ``"model"``: always; ``"drop"``: ties removed before fitting. With ties modelled a verdict
        is a tie with probability τ = σ(``tie_logit``) per judge, otherwise the error model
        applies; ``wins`` holds ``(n1, n2, t1, t2)`` and ``tie_rate`` [judge] is reported.
    tie_positional : bool
        One tie rate per position: ``tie_rate_plus`` when the truly better item is shown first,
        ``tie_rate_minus`` when second.
    tie_closeness : bool
        logit τ = ``tie_logit`` − ``tie_closeness`` · |s_i − s_j| with ``tie_closeness`` ≥ 0:
        ties more likely on close pairs. Reports ``tie_closeness``, ``tie_rate_equal`` (τ at
        |s_i − s_j| = 0) and ``tie_rate`` (the fitted share of ties).
    draws, tune, chains, target_accept, nuts_sampler, sampler_kwargs, map_kwargs
        See :class:`~bayes_pairwise.pymc_models.base.BayesianPairwiseModel`.

    Attributes
    ----------
    idata_ : arviz.InferenceData
        ``posterior``: ``eps_simplex`` [judge, rate], ``eps_plus`` [judge], ``eps_minus``
        [judge], ``sigma_s``, ``z`` and ``strength`` [item]; other groups as in
        :class:`UniformError`.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(12, eps_plus=0.25, eps_minus=0.1, random_seed=0)
    >>> m = PositionalBias().fit(sim.data, method="map", random_seed=1)
    >>> sorted(v for v in m.idata_.posterior.data_vars)
    ['eps_minus', 'eps_plus', 'eps_simplex', 'sigma_s', 'strength', 'z']
    """

    default_spec: ClassVar[str] = "positional"
    #: The order model that is this model's σ_s → ∞ limit (see :class:`UniformError`).
    hard_truth_limit: ClassVar[str] = "positional_order"
    reported: ClassVar[tuple[str, ...]] = ("eps_plus", "eps_minus", *TIE_REPORTED)
    positional: ClassVar[bool] = True
    direct_rates: ClassVar[str | None] = "flat"
    _eps_kind: ClassVar[str] = "simplex3"

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        model = pm.modelcontext(None)
        model.add_coord("rate", ["eps_plus", "eps_minus", "correct"])
        simplex = make_prior("eps_simplex", priors["eps"], "simplex3", dims=("judge", "rate"))
        eps_plus = pm.Deterministic("eps_plus", simplex[:, 0], dims="judge")
        eps_minus = pm.Deterministic("eps_minus", simplex[:, 1], dims="judge")
        return eps_plus, eps_minus
