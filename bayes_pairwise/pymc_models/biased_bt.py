"""Biased Bradley–Terry with a first-position shift and contest-level covariates (METHODS §7.3).

One Bernoulli per verdict::

    P(first wins) = σ(s_first − s_second + γ_judge + Σ_c w_c x_c / scale_c)

with γ ~ Normal(0, 1.5) per judge and w ~ Normal(0, 1) per covariate. This is the proper
version of the paper's "biased BT" (its iteration applies the shift to every win regardless of
position, which is improper; METHODS §6).

**Standardisation.** Covariates are divided by their standard deviation but *not centred*: they
are first-minus-second differences, so x = 0 means "the two texts are alike" and γ keeps its
meaning (the first-position shift between equal texts). Centring would move the mean covariate
difference into γ whenever the design is unbalanced. The means and scales are stored in
``constant_data`` (``covariate_mean``, ``covariate_scale``) and in ``covariate_scales_``;
``w_per_unit`` is the effect per unit of the raw covariate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pymc as pm

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models.base import BayesianPairwiseModel, make_prior
from bayes_pairwise.pymc_models.design import check_regression_design
from bayes_pairwise.pymc_models.likelihoods import (
    bernoulli_logit_logp,
    bernoulli_logit_random,
    per_judge,
    weighted_bernoulli_logit_logp,
    weighted_bernoulli_logit_random,
)

__all__ = ["BiasedBradleyTerry"]


class BiasedBradleyTerry(BayesianPairwiseModel):
    """Bradley–Terry with a per-judge first-position shift γ and covariate effects w.

    Parameters
    ----------
    covariates : sequence of str, optional
        Names of the data's covariate columns to use (default: all of
        ``data.covariate_names``; ``[]`` for none). Add style and self-preference covariates
        with :mod:`bayes_pairwise.features` and :meth:`Comparisons.with_covariates`.
    spec : str or path, optional
        ``"biased_bt"`` (default) or a TOML file.
    priors : dict, optional
        Overrides for ``sigma_s``, ``gamma`` and ``w`` (real-line families: Normal, StudentT,
        Laplace, Cauchy, Logistic). Precedence: user > spec > ``models/_base.toml``; unknown
        names raise :class:`~bayes_pairwise.errors.PriorError`.
    draws, tune, chains, target_accept, nuts_sampler, sampler_kwargs, map_kwargs
        See :class:`~bayes_pairwise.pymc_models.base.BayesianPairwiseModel`.

    Attributes
    ----------
    idata_ : arviz.InferenceData
        ``posterior``: ``gamma`` [judge], ``w`` and ``w_per_unit`` [covariate], ``sigma_s``,
        ``z`` and ``strength`` [item]; ``log_likelihood`` / ``observed_data`` /
        ``posterior_predictive``: ``first_wins`` [verdict]; ``constant_data``: ``first``,
        ``second``, ``verdict_judge``, ``x`` [verdict, covariate], ``covariate_mean``,
        ``covariate_scale``.
    covariates_ : tuple of str
    covariate_means_, covariate_scales_ : pandas.Series

    Notes
    -----
    The observed ``first_wins`` is a Bernoulli on the logit scale written as ``y η − softplus(η)``
    (:func:`~bayes_pairwise.pymc_models.likelihoods.bernoulli_logit_logp`), which also takes
    ties counted half (``ties="half"``): y = 0.5 gives ``½ log σ(η) + ½ log σ(−η)``.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_biased_bt(10, 1500, gamma=0.6, covariate_effects={"length": 0.5},
    ...                             random_seed=0)
    >>> m = BiasedBradleyTerry().fit(sim.data, method="map", random_seed=0)
    >>> round(float(m.idata_.posterior["gamma"].mean()), 1)
    0.6
    >>> m.idata_.posterior["w"].dims
    ('chain', 'draw', 'covariate')
    """

    default_spec: ClassVar[str] = "biased_bt"
    likelihoods: ClassVar[tuple[str, ...]] = ("bernoulli",)
    observed_name: ClassVar[str] = "first_wins"
    reported: ClassVar[tuple[str, ...]] = ("gamma", "w")

    def __init__(
        self,
        *,
        covariates: Sequence[str] | None = None,
        spec: str | None = None,
        priors: dict[str, dict[str, Any]] | None = None,
        likelihood: str | None = None,
        draws: int | None = None,
        tune: int | None = None,
        chains: int | str | None = None,
        target_accept: float | None = None,
        nuts_sampler: str | None = None,
        sampler_kwargs: dict[str, Any] | None = None,
        map_kwargs: dict[str, Any] | None = None,
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
        self.covariates = covariates

    @property
    def prior_kinds(self) -> dict[str, str]:
        return {"sigma_s": "positive", "gamma": "real", "w": "real"}

    def _covariate_names(self, data: Comparisons) -> list[str]:
        if self.covariates is None:
            return list(data.covariate_names)
        names = [str(c) for c in self.covariates]
        missing = [c for c in names if c not in data.covariates]
        if missing:
            raise DesignError(
                f"covariate(s) {missing} not in the data (it has {list(data.covariate_names)})"
            )
        return names

    def _covariate_matrix(
        self, data: Comparisons
    ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        names = self._covariate_names(data)
        if not names:
            empty = np.zeros(0)
            return names, np.zeros((data.n_comparisons, 0)), empty, empty
        raw = np.column_stack([np.asarray(data.covariates[c], dtype=float) for c in names])
        mean = raw.mean(axis=0)
        scale = raw.std(axis=0)
        const = [c for c, s in zip(names, scale, strict=True) if not s > 0]
        if const:
            raise DesignError(
                f"covariate(s) {const} take a single value in the data: their effect cannot be "
                "told apart from the first-position shift gamma. Drop them (covariates=[…])."
            )
        return names, raw / scale, mean, scale

    def _check_data(self, data: Comparisons) -> None:
        super()._check_data(data)
        if data.n_comparisons == 0:
            raise DesignError("the data hold no verdicts")
        self._covariate_matrix(data)  # unknown or constant covariates are errors

    def _design_warnings(self, data: Comparisons) -> list[str]:
        names = self._covariate_names(data)
        return check_regression_design(data, {c: np.asarray(data.covariates[c]) for c in names})

    def _build(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> pm.Model:
        names, x, mean, scale = self._covariate_matrix(data)
        coords = {
            "item": list(data.items),
            "judge": list(data.judges),
            "covariate": names,
            "verdict": np.asarray(data.row, dtype=np.int64),
        }
        with pm.Model(coords=coords) as model:
            first = pm.Data("first", np.asarray(data.first, dtype=np.int64), dims="verdict")
            second = pm.Data("second", np.asarray(data.second, dtype=np.int64), dims="verdict")
            judge = pm.Data("verdict_judge", np.asarray(data.judge, dtype=np.int64), dims="verdict")
            strength = self._strength_block(data, priors["sigma_s"])
            gamma = make_prior("gamma", priors["gamma"], "real", dims="judge")
            eta = strength[first] - strength[second] + per_judge(gamma, judge)
            if names:
                xd = pm.Data("x", x, dims=("verdict", "covariate"))
                pm.Data("covariate_mean", mean, dims="covariate")
                pm.Data("covariate_scale", scale, dims="covariate")
                w = make_prior("w", priors["w"], "real", dims="covariate")
                pm.Deterministic("w_per_unit", w / scale, dims="covariate")
                eta = eta + pm.math.dot(xd, w)
            y = np.asarray(data.outcome, dtype=float)
            integer = data.integer_outcomes
            observed = {
                "observed": y.astype(np.int64) if integer else y,
                "dtype": "int64" if integer else "float64",
                "dims": "verdict",
            }
            if data.has_weights:  # a verdict of weight w counts w times in the likelihood
                weight = pm.Data("weight", np.asarray(data.weight, dtype=float), dims="verdict")
                pm.CustomDist(
                    "first_wins",
                    eta,
                    weight,
                    logp=weighted_bernoulli_logit_logp,
                    random=weighted_bernoulli_logit_random,
                    **observed,
                )
            else:
                pm.CustomDist(
                    "first_wins",
                    eta,
                    logp=bernoulli_logit_logp,
                    random=bernoulli_logit_random,
                    **observed,
                )
        return model

    def fit(self, data: Comparisons, **kwargs: Any) -> BiasedBradleyTerry:
        """Fit to a comparison log; see :meth:`BayesianPairwiseModel.fit`."""
        super().fit(data, **kwargs)
        names, _, mean, scale = self._covariate_matrix(data)
        self.covariates_ = tuple(names)
        self.covariate_means_ = pd.Series(mean, index=pd.Index(names, name="covariate"))
        self.covariate_scales_ = pd.Series(scale, index=pd.Index(names, name="covariate"))
        return self

    def _extra_settings(self) -> dict[str, Any]:
        return {"standardisation": "divide by the standard deviation, no centring"}
