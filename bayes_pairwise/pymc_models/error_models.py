"""The paper's judge-error models in PyMC: uniform error ε and positional bias (ε₊, ε₋).

Both share item strengths ``strength = sigma_s · z`` (z ~ ZeroSumNormal(1) per context,
sigma_s ~ HalfNormal(10)) and error rates per judge, shared across contexts (METHODS §7.1–7.2).
The observation unit is one (judge, unordered pair) row of
:func:`~bayes_pairwise.matrices.pair_counts`: the observed variable ``wins`` holds ``(n1, n2)``
(dims ``pair``, ``count``), so ``log_likelihood`` and LOO are per pair.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pymc as pm

from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.matrices import PairCounts, pair_counts
from bayes_pairwise.pymc_models.base import BayesianPairwiseModel, make_prior
from bayes_pairwise.pymc_models.design import check_error_design
from bayes_pairwise.pymc_models.likelihoods import LIKELIHOODS, pair_counts_dist

__all__ = ["PositionalBias", "UniformError", "pair_labels"]


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


class _ErrorModel(BayesianPairwiseModel):
    likelihoods: ClassVar[tuple[str, ...]] = LIKELIHOODS
    observed_name: ClassVar[str] = "wins"
    positional: ClassVar[bool] = False

    def _check_data(self, data: Comparisons) -> None:
        super()._check_data(data)
        if not data.integer_outcomes:
            raise DesignError(
                f"{type(self).__name__} is a binomial model of wins and losses, but the data "
                f"count {data.n_ties} tie(s) as half a win (ties='half'). Reload with "
                "ties='drop' (the number dropped is recorded in the results)."
            )
        if data.n_comparisons == 0:
            raise DesignError("the data hold no verdicts")

    def _design_warnings(self, data: Comparisons) -> list[str]:
        return check_error_design(pair_counts(data), positional=self.positional, stacklevel=4)

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        raise NotImplementedError

    def _build(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> pm.Model:
        pc = pair_counts(data)
        coords = {
            "item": list(data.items),
            "judge": list(data.judges),
            "pair": pair_labels(pc),
            "count": ["n1", "n2"],
        }
        observed = np.stack([pc.n1, pc.n2], axis=1).astype(np.int64)
        with pm.Model(coords=coords) as model:
            i = pm.Data("pair_i", pc.i.astype(np.int64), dims="pair")
            j = pm.Data("pair_j", pc.j.astype(np.int64), dims="pair")
            judge = pm.Data("pair_judge", pc.judge.astype(np.int64), dims="pair")
            k = pm.Data(
                "k",
                np.stack([pc.k_plus, pc.k_minus], axis=1).astype(np.int64),
                dims=("pair", "count"),
            )
            strength = self._strength_block(data, priors["sigma_s"])
            eps_plus, eps_minus = self._rates(priors)
            pair_counts_dist(
                "wins",
                strength[i] - strength[j],
                judge,
                eps_plus,
                eps_minus,
                k,
                likelihood=likelihood,
                observed=observed,
                n_judges=data.n_judges,
            )
        return model


class UniformError(_ErrorModel):
    """Uniform judge error ε per judge, latent true outcome per pair summed out.

    Every verdict contradicts its pair's latent true outcome with probability ε, in either
    presentation order (METHODS §3.1, §7.1). ε ~ Uniform(0, 0.5) per judge.

    Parameters
    ----------
    spec : str or path, optional
        ``"uniform"`` (default) or ``"uniform_independent"``, or a TOML file.
    priors : dict, optional
        Overrides for ``sigma_s`` (HalfNormal, …) and ``eps`` (Uniform on [lower, upper] ⊂
        [0, 0.5], or Beta(alpha, beta) placed on eps / 0.5). Precedence: user > spec >
        ``models/_base.toml``; unknown names raise :class:`~bayes_pairwise.errors.PriorError`.
    likelihood : {"marginal", "independent"}, optional
        ``"independent"`` treats every verdict as an independent Bernoulli (biased when verdicts
        repeat, METHODS §7.1; for comparison only).
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
    reported: ClassVar[tuple[str, ...]] = ("eps",)
    positional: ClassVar[bool] = False

    @property
    def prior_kinds(self) -> dict[str, str]:
        return {"sigma_s": "positive", "eps": "half_rate"}

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
        ``"positional"`` (default) or ``"positional_independent"``, or a TOML file.
    priors : dict, optional
        Overrides for ``sigma_s`` and ``eps`` (``{"dist": "Dirichlet", "a": [a₊, a₋, a_ok]}``).
        Precedence: user > spec > ``models/_base.toml``.
    likelihood : {"marginal", "independent"}, optional
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
    reported: ClassVar[tuple[str, ...]] = ("eps_plus", "eps_minus")
    positional: ClassVar[bool] = True

    @property
    def prior_kinds(self) -> dict[str, str]:
        return {"sigma_s": "positive", "eps": "simplex3"}

    def _rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        model = pm.modelcontext(None)
        model.add_coord("rate", ["eps_plus", "eps_minus", "correct"])
        simplex = make_prior("eps_simplex", priors["eps"], "simplex3", dims=("judge", "rate"))
        eps_plus = pm.Deterministic("eps_plus", simplex[:, 0], dims="judge")
        eps_minus = pm.Deterministic("eps_minus", simplex[:, 1], dims="judge")
        return eps_plus, eps_minus
