"""Pair difficulty: a positional error model in which a pair can be *hard* (issue 7 item 3).

Two-state mixture (``docs/src/pair_difficulty.md``). Every (judge, unordered pair) row has two
latent states, summed out together:

* the true outcome T (i≻j with probability σ(s_i − s_j), observed where a gold label is given);
* the difficulty H: with probability π (``hard_share``, per judge) the pair is hard and every
  non-tie verdict on it errs with η (``eps_hard``) in *both* orders; otherwise it is easy and
  errs with ε₊ (better item first) / ε₋ (second) as in :class:`PositionalBias`.

Given (T, H) the verdicts are independent, so the row's likelihood is

    p(row) = Σ_T P(T) · tie terms(T) · [(1 − π) · P_easy(n₁, n₂ | T) + π · P_hard(n₁, n₂ | T)]

with the tie model of ``docs/src/tie_model.md`` (one tie rate per judge, optionally per
position and falling with |d|; ties do not depend on H). The reported error rates
``eps_plus`` / ``eps_minus`` are those of the whole log: (1 − π) ε₊ + π η and (1 − π) ε₋ + π η;
the components are ``eps_plus_easy``, ``eps_minus_easy``, ``eps_hard`` and ``hard_share``.

η is tied to be the worse component: η = max(ε₊, ε₋) + (1 − max(ε₊, ε₋)) σ(``hard_logit``), which
removes the label switching between the two states; π ∈ (0, 0.5).

:class:`UniformDifficulty` is the same mixture with one easy rate ε in both orders (ε₊ = ε₋ = ε,
``eps_easy``, prior as the uniform model's ``eps``); it reports ``eps`` = (1 − π) ε + π η.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayes_pairwise.caveats import caveats_for
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError, DesignWarning, user_stacklevel
from bayes_pairwise.matrices import pair_counts
from bayes_pairwise.pymc_models.base import make_prior
from bayes_pairwise.pymc_models.error_models import (
    TIE_REPORTED,
    PositionalBias,
    observed_counts,
    pair_labels,
)
from bayes_pairwise.pymc_models.likelihoods import rows_logp_function

__all__ = [
    "MODE_REFUSED",
    "UNIDENTIFIED_SETTINGS",
    "PositionalDifficulty",
    "UniformDifficulty",
    "difficulty_random",
]

#: Values of the ``on_unidentified`` setting.
UNIDENTIFIED_SETTINGS = ("warn", "raise")
#: Why the pair-difficulty models refuse MAP and Laplace (one line, the CLI prints it).
MODE_REFUSED = (
    "MAP and --fast (Laplace) are refused for the pair-difficulty models: the mode of a "
    "two-state mixture is not a reliable summary (MAP 0.125 against NUTS 0.42 was measured); "
    "fit them with NUTS (drop --map / --fast)"
)


def difficulty_random(
    d: Any,
    judge: Any,
    eps_plus: Any,
    eps_minus: Any,
    eps_hard: Any,
    hard_share: Any,
    eta_plus: Any,
    eta_minus: Any,
    k: Any,
    truth: Any,
    rng: np.random.Generator | None = None,
    size: Any = None,
    *,
    ties: bool,
) -> np.ndarray:
    """Draw ``(n1, n2[, t1, t2])`` per row: T (or the label), H, ties, then the flips.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([0.0]); big = np.array([-50.0])
    >>> difficulty_random(np.array([50.0]), np.array([0]), z, z, np.array([0.5]), z, big, big,
    ...                   np.array([[3, 2, 3, 2]]), np.array([-1]),
    ...                   rng=np.random.default_rng(0), ties=True).tolist()
    [[3, 2, 0, 0]]
    """
    rng = rng if rng is not None else np.random.default_rng()
    judge = np.asarray(judge, dtype=np.int64)

    def per_row(x: Any) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return x.reshape(-1)[judge] if x.ndim else np.broadcast_to(x, judge.shape)

    ep, em, eh, pi = (per_row(x) for x in (eps_plus, eps_minus, eps_hard, hard_share))
    d = np.asarray(d, dtype=float)
    k = np.asarray(k, dtype=np.int64)
    kp, km = k[..., 0], k[..., 1]
    shape = tuple(np.atleast_1d(size)) if size is not None else np.broadcast_shapes(d.shape)
    code = np.broadcast_to(np.asarray(truth, dtype=np.int64), shape)
    t = np.where(code >= 0, code == 1, rng.random(shape) < 1.0 / (1.0 + np.exp(-d)))
    hard = rng.random(shape) < pi
    if ties:
        tp = 1.0 / (1.0 + np.exp(-np.asarray(eta_plus, dtype=float)))
        tm = 1.0 / (1.0 + np.exp(-np.asarray(eta_minus, dtype=float)))
        t1 = rng.binomial(kp, np.where(t, tp, tm))
        t2 = rng.binomial(km, np.where(t, tm, tp))
    else:
        t1 = t2 = np.zeros(shape, dtype=np.int64)
    # probability that i wins a non-tie verdict, per order
    p1 = np.where(hard, np.where(t, 1 - eh, eh), np.where(t, 1 - ep, em))
    p2 = np.where(hard, np.where(t, 1 - eh, eh), np.where(t, 1 - em, ep))
    n1 = rng.binomial(kp - t1, p1)
    n2 = rng.binomial(km - t2, p2)
    cols = [n1, n2, t1, t2] if ties else [n1, n2]
    return np.stack(cols, axis=-1)


class PositionalDifficulty(PositionalBias):
    """Positional error with hard pairs: a pair-level two-state mixture (issue 7 item 3).

    A (judge, pair) row is hard with probability π (``hard_share``); a hard pair's verdicts err
    with η (``eps_hard``) in both orders, an easy pair's with ε₊ / ε₋. The latent truth T and
    the difficulty H are summed out together; gold labels fix T where given. Reported
    ``eps_plus`` / ``eps_minus`` are the rates of the whole log, (1 − π) ε₊ + π η and
    (1 − π) ε₋ + π η (see ``docs/src/pair_difficulty.md``).

    **Identification.** With gold labels on part of the pairs, the whole-log rates are
    identified (labelled pairs show how often both orders err together); with repeats the
    hard share is partly identified from disagreement among repeats. Without labels and without
    repeats the model is not identified: fitting warns (:class:`~bayes_pairwise.errors.
    DesignWarning`), records the caveat ``difficulty_not_identified`` in ``caveats_`` and in
    ``idata_.posterior.attrs["caveats"]``, and the result is prior-driven. With
    ``on_unidentified="raise"`` it refuses instead (:class:`~bayes_pairwise.errors.DesignError`).

    **No MAP, no Laplace.** The posterior of a two-state mixture is not summarised by its mode
    (a MAP of 0.125 against a NUTS mean of 0.42 was measured on a reward model, issue 25):
    ``fit(method="map" | "laplace")`` refuses with :data:`MODE_REFUSED` unless
    ``allow_mode=True`` (for tests and research, at the user's risk).

    Parameters
    ----------
    on_unidentified : {"warn", "raise"}
        What to do when the data hold neither labels nor repeats.
    allow_mode : bool
        Allow the posterior-mode methods (MAP, Laplace) despite the above.
    spec, priors, likelihood, ties, tie_positional, tie_closeness, draws, tune, chains,
    target_accept, nuts_sampler, sampler_kwargs, map_kwargs
        As in :class:`PositionalBias`. Extra priors: ``hard_share`` (on (0, 0.5); default
        Uniform(0, 0.5)) and ``hard_logit`` (real; default Logistic(0, 1), i.e. η uniform
        between max(ε₊, ε₋) and 1). Only the marginal likelihood exists.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_hard_pairs(12, random_seed=0)
    >>> m = PositionalDifficulty(allow_mode=True).fit(sim.data, method="map", random_seed=1)
    >>> [v for v in m.reported_names(strengths=False)][:6]
    ['eps_plus', 'eps_minus', 'eps_plus_easy', 'eps_minus_easy', 'eps_hard', 'hard_share']
    """

    default_spec: ClassVar[str] = "positional_difficulty"
    direct_rates: ClassVar[str | None] = "difficulty"
    likelihoods: ClassVar[tuple[str, ...]] = ("marginal",)
    reported: ClassVar[tuple[str, ...]] = (
        "eps_plus",
        "eps_minus",
        "eps_plus_easy",
        "eps_minus_easy",
        "eps_hard",
        "hard_share",
        *TIE_REPORTED,
    )
    caveat_kind: ClassVar[str] = "difficulty"

    def __init__(
        self,
        *,
        on_unidentified: str = "warn",
        allow_mode: bool = False,
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
            ties=ties,
            tie_positional=tie_positional,
            tie_closeness=tie_closeness,
            draws=draws,
            tune=tune,
            chains=chains,
            target_accept=target_accept,
            nuts_sampler=nuts_sampler,
            sampler_kwargs=sampler_kwargs,
            map_kwargs=map_kwargs,
        )
        self.on_unidentified = on_unidentified
        self.allow_mode = allow_mode

    def fit(self, data: Comparisons, *, method: str = "nuts", **kwargs: Any) -> Any:
        """As :meth:`PositionalBias.fit`, NUTS only unless ``allow_mode`` (see the class).

        Raises
        ------
        DesignError
            ``method`` is ``"map"`` or ``"laplace"`` and ``allow_mode`` is False.
        """
        if method in ("map", "laplace") and not self.allow_mode:
            raise DesignError(MODE_REFUSED)
        return super().fit(data, method=method, **kwargs)

    @property
    def prior_kinds(self) -> dict[str, str]:
        return {**super().prior_kinds, "hard_share": "half_rate", "hard_logit": "real"}

    # ------------------------------------------------------------------ identification
    def identification(self, data: Comparisons) -> list[str]:
        """Caveat codes about identification for ``data`` (empty when labels exist).

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> sim = bp.simulate_hard_pairs(2, n_contexts=100, random_seed=0)  # 2-item contexts
        >>> PositionalDifficulty().identification(sim.data_unlabelled)
        ['difficulty_not_identified']
        >>> PositionalDifficulty().identification(sim.data)
        []
        """
        data = self._prepared(data)
        return [
            c.code
            for c in caveats_for(data, model_kind="difficulty", test_correlation=False)
            if c.code.startswith("difficulty_")
        ]

    def _check_data(self, data: Comparisons) -> None:
        super()._check_data(data)
        if self.on_unidentified not in UNIDENTIFIED_SETTINGS:
            raise ValueError(
                f"on_unidentified must be one of {UNIDENTIFIED_SETTINGS}, "
                f"got {self.on_unidentified!r}"
            )
        if self.on_unidentified == "raise" and "difficulty_not_identified" in (
            self.identification(data)
        ):
            raise DesignError(self._unidentified_text(data))

    def _unidentified_text(self, data: Comparisons) -> str:
        caveats = caveats_for(self._prepared(data), model_kind="difficulty", test_correlation=False)
        return next(c.text for c in caveats if c.code == "difficulty_not_identified")

    def _design_warnings(self, data: Comparisons) -> list[str]:
        msgs = super()._design_warnings(data)
        if "difficulty_not_identified" in self.identification(data):
            msg = self._unidentified_text(data)
            warnings.warn(msg, DesignWarning, stacklevel=user_stacklevel())
            msgs = [*msgs, msg]
        return msgs

    def _extra_settings(self) -> dict[str, Any]:
        return {
            **super()._extra_settings(),
            "on_unidentified": self.on_unidentified,
            "allow_mode": self.allow_mode,
        }

    # ------------------------------------------------------------------ model
    def _easy_rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        """Easy-pair rates (ε₊, ε₋) per judge: the positional model's Dirichlet."""
        model = pm.modelcontext(None)
        model.add_coord("rate", ["eps_plus", "eps_minus", "correct"])
        simplex = make_prior("eps_simplex", priors["eps"], "simplex3", dims=("judge", "rate"))
        ep = pm.Deterministic("eps_plus_easy", simplex[:, 0], dims="judge")
        em = pm.Deterministic("eps_minus_easy", simplex[:, 1], dims="judge")
        return ep, em

    def _whole_log_rates(self, ep: Any, em: Any, eh: Any, pi: Any) -> None:
        """The reported rates of the whole log, (1 − π) ε₊ + π η and (1 − π) ε₋ + π η."""
        pm.Deterministic("eps_plus", (1.0 - pi) * ep + pi * eh, dims="judge")
        pm.Deterministic("eps_minus", (1.0 - pi) * em + pi * eh, dims="judge")

    def _difficulty_rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, ...]:
        ep, em = self._easy_rates(priors)
        pi = make_prior("hard_share", priors["hard_share"], "half_rate", dims="judge")
        logit_h = make_prior("hard_logit", priors["hard_logit"], "real", dims="judge")
        floor = pt.maximum(ep, em)
        eh = pm.Deterministic(
            "eps_hard", floor + (1.0 - floor) * pm.math.sigmoid(logit_h), dims="judge"
        )
        self._whole_log_rates(ep, em, eh, pi)
        return ep, em, eh, pi

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
            ep, em, eh, pi = self._difficulty_rates(priors)
            d = strength[i] - strength[j]
            if tie_model:
                eta_plus, eta_minus = self._tie_block(
                    priors, pc, d, judge, data.n_judges, truth=truth
                )
                k_full = pt.concatenate([k, k], axis=-1)
            else:
                eta_plus = eta_minus = pt.zeros(len(pc.i))
                k_full = k
            truth_t = truth if truth is not None else pt.as_tensor(np.full(len(pc.i), -1))
            tie_form = (2 if self.tie_positional else 1) if tie_model else 0
            pm.CustomDist(
                "wins",
                d,
                judge,
                ep,
                em,
                eh,
                pi,
                eta_plus,
                eta_minus,
                k_full,
                truth_t,
                logp=rows_logp_function(ties=tie_form, mixture=True),
                random=functools.partial(difficulty_random, ties=tie_model),
                signature="(),(),(j),(j),(j),(j),(),(),(o),()->(o)",
                dtype=observed.dtype.name,
                observed=observed,
                dims=("pair", "count"),
            )
        return model


class UniformDifficulty(PositionalDifficulty):
    """Uniform error with hard pairs: the pair-level mixture of :class:`PositionalDifficulty`
    with one easy rate ε in both orders (issue 7 item 3).

    A (judge, pair) row is hard with probability π (``hard_share``) and then errs with η
    (``eps_hard``) in both orders; an easy row errs with ε (``eps_easy``) in either order. The
    likelihood is :func:`~bayes_pairwise.pymc_models.fused.difficulty_kernel` with ε₊ = ε₋ = ε;
    η = ε + (1 − ε) σ(``hard_logit``).
    The reported ``eps`` is the rate of the whole log, (1 − π) ε + π η, so compare and report
    read it like :class:`~bayes_pairwise.pymc_models.UniformError`'s ``eps``.

    **Identification** is as for :class:`PositionalDifficulty`: identified with gold labels on
    part of the pairs, partly with repeats, and without either it warns
    (``difficulty_not_identified``, :class:`~bayes_pairwise.errors.DesignWarning`) or, with
    ``on_unidentified="raise"``, refuses (:class:`~bayes_pairwise.errors.DesignError`).

    Parameters
    ----------
    on_unidentified : {"warn", "raise"}
        What to do when the data hold neither labels nor repeats.
    spec, priors, likelihood, ties, tie_positional, tie_closeness, draws, tune, chains,
    target_accept, nuts_sampler, sampler_kwargs, map_kwargs
        As in :class:`PositionalDifficulty`. The easy rate's prior is ``eps`` (as in the uniform
        model: default Uniform(0, 0.5)); ``hard_share`` and ``hard_logit`` as there.

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> sim = bp.simulate_hard_pairs(12, eps_plus=0.15, eps_minus=0.15, random_seed=0)
    >>> m = UniformDifficulty(allow_mode=True).fit(sim.data, method="map", random_seed=1)
    >>> [v for v in m.reported_names(strengths=False)][:4]
    ['eps', 'eps_easy', 'eps_hard', 'hard_share']
    """

    default_spec: ClassVar[str] = "uniform_difficulty"
    direct_rates: ClassVar[str | None] = "difficulty"
    reported: ClassVar[tuple[str, ...]] = (
        "eps",
        "eps_easy",
        "eps_hard",
        "hard_share",
        *TIE_REPORTED,
    )
    positional: ClassVar[bool] = False
    _eps_kind: ClassVar[str] = "half_rate"

    def _easy_rates(self, priors: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
        eps = make_prior("eps_easy", priors["eps"], "half_rate", dims="judge")
        return eps, eps

    def _whole_log_rates(self, ep: Any, em: Any, eh: Any, pi: Any) -> None:
        pm.Deterministic("eps", (1.0 - pi) * ep + pi * eh, dims="judge")
