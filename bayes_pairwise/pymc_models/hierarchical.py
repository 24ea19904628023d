"""Hierarchical judges: per-judge error logits drawn from a population (partial pooling).

The unpooled error models give every judge its own error rate with a flat prior. With many
judges and few verdicts each (crowd data: llmfao has 124 judges) that leaves each rate barely
informed. The hierarchical variants put the judges' error logits on a common population
distribution whose centre and spread are learned, in the non-centred form (METHODS §7.1–7.2):

* :class:`HierarchicalUniformError`:
  ε_j = 0.5 · σ(μ + τ · z_j), z_j ~ Normal(0, 1), μ ~ ``eps_mu``, τ ~ ``eps_sigma``.
* :class:`HierarchicalPositionalBias`:
  (ε₊, ε₋, 1 − ε₊ − ε₋)_j = softmax(μ₊ + τ₊ z₊ⱼ, μ₋ + τ₋ z₋ⱼ, 0), one (μ, τ) per rate.

Everything else (strengths, latent truth summed out, ties, gold labels, the ``wins``
observation per pair row) is that of the parent class. With few well-measured judges the data
dominate and the fit matches the unpooled one; with many thin judges the rates shrink towards
the population centre ``eps_pop`` (ε at z = 0).
"""

from __future__ import annotations

from typing import Any, ClassVar

import pymc as pm
import pytensor.tensor as pt

from bayes_pairwise.pymc_models.base import make_prior
from bayes_pairwise.pymc_models.error_models import TIE_REPORTED, PositionalBias, UniformError

__all__ = ["HierarchicalPositionalBias", "HierarchicalUniformError"]

_POP_REPORTED = ("eps_mu", "eps_sigma")


class HierarchicalUniformError(UniformError):
    """Uniform judge error with partially pooled per-judge rates (non-centred).

    ε_j = 0.5 · σ(μ + τ z_j), z_j ~ Normal(0, 1) per judge; μ ~ Normal(0, 1.5) (``eps_mu``)
    and τ ~ HalfNormal(1) (``eps_sigma``) by default (spec ``uniform_hierarchical``). Takes
    the settings of :class:`~bayes_pairwise.pymc_models.UniformError`; the ``eps`` prior is
    replaced by ``eps_mu`` (real) and ``eps_sigma`` (positive).

    Attributes
    ----------
    idata_ : arviz.InferenceData
        As :class:`UniformError`, plus ``eps_mu``, ``eps_sigma``, ``eps_z`` [judge] and
        ``eps_pop`` (the population's typical rate 0.5 σ(μ)).

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(8, eps=0.15, random_seed=0)
    >>> m = HierarchicalUniformError().fit(sim.data, method="map", random_seed=1)
    >>> sorted(m.idata_.posterior.data_vars)[:4]
    ['eps', 'eps_mu', 'eps_pop', 'eps_sigma']
    """

    default_spec: ClassVar[str] = "uniform_hierarchical"
    reported: ClassVar[tuple[str, ...]] = ("eps", "eps_pop", "eps_sigma", *TIE_REPORTED)
    direct_rates: ClassVar[str | None] = "hierarchical"

    @property
    def prior_kinds(self) -> dict[str, str]:
        kinds = {k: v for k, v in super().prior_kinds.items() if k != "eps"}
        return {**kinds, "eps_mu": "real", "eps_sigma": "positive"}

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        mu = make_prior("eps_mu", priors["eps_mu"], "real")
        tau = make_prior("eps_sigma", priors["eps_sigma"], "positive")
        z = pm.Normal("eps_z", 0.0, 1.0, dims="judge")
        eps = pm.Deterministic("eps", 0.5 * pm.math.sigmoid(mu + tau * z), dims="judge")
        pm.Deterministic("eps_pop", 0.5 * pm.math.sigmoid(mu))
        return eps, eps


class HierarchicalPositionalBias(PositionalBias):
    """Positional judge error with partially pooled per-judge rates (non-centred).

    (ε₊, ε₋, 1 − ε₊ − ε₋)_j = softmax(μ₊ + τ₊ z₊ⱼ, μ₋ + τ₋ z₋ⱼ, 0), z ~ Normal(0, 1);
    μ ~ Normal(−1.5, 1.5) per rate (``eps_mu``), τ ~ HalfNormal(1) per rate (``eps_sigma``)
    by default (spec ``positional_hierarchical``). Settings as
    :class:`~bayes_pairwise.pymc_models.PositionalBias`.

    Attributes
    ----------
    idata_ : arviz.InferenceData
        As :class:`PositionalBias` (``eps_plus``, ``eps_minus`` [judge]), plus ``eps_mu``,
        ``eps_sigma`` [error], ``eps_z`` [judge, error] and ``eps_pop_plus``,
        ``eps_pop_minus`` (the population's typical rates, z = 0).

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_round_robin(8, eps_plus=0.05, eps_minus=0.3, random_seed=0)
    >>> m = HierarchicalPositionalBias().fit(sim.data, method="map", random_seed=1)
    >>> m.idata_.posterior["eps_sigma"].dims
    ('chain', 'draw', 'error')
    """

    default_spec: ClassVar[str] = "positional_hierarchical"
    direct_rates: ClassVar[str | None] = "hierarchical"
    reported: ClassVar[tuple[str, ...]] = (
        "eps_plus",
        "eps_minus",
        "eps_pop_plus",
        "eps_pop_minus",
        "eps_sigma",
        *TIE_REPORTED,
    )

    @property
    def prior_kinds(self) -> dict[str, str]:
        kinds = {k: v for k, v in super().prior_kinds.items() if k != "eps"}
        return {**kinds, "eps_mu": "real", "eps_sigma": "positive"}

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        model = pm.modelcontext(None)
        model.add_coord("error", ["eps_plus", "eps_minus"])
        mu = make_prior("eps_mu", priors["eps_mu"], "real", dims="error")
        tau = make_prior("eps_sigma", priors["eps_sigma"], "positive", dims="error")
        z = pm.Normal("eps_z", 0.0, 1.0, dims=("judge", "error"))
        logits = mu[None, :] + tau[None, :] * z
        full = pt.concatenate([logits, pt.zeros((logits.shape[0], 1))], axis=1)
        simplex = pt.special.softmax(full, axis=1)
        eps_plus = pm.Deterministic("eps_plus", simplex[:, 0], dims="judge")
        eps_minus = pm.Deterministic("eps_minus", simplex[:, 1], dims="judge")
        pop = pt.special.softmax(pt.concatenate([mu, pt.zeros(1)]), axis=0)
        pm.Deterministic("eps_pop_plus", pop[0])
        pm.Deterministic("eps_pop_minus", pop[1])
        return eps_plus, eps_minus
