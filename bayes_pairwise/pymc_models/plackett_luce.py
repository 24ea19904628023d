"""A listwise judge's errors: Plackett–Luce with a shown-position effect and a lapse rate.

A judge ranks a list of k items best first. Item i, shown at slot p (0 = shown first) to
judge j, has the utility ``u = strength_i + b_j(p)`` and the judge ranks by Plackett–Luce on u:
``P(σ) = Π_{r<k} exp(u_σ(r)) / Σ_{s≥r} exp(u_σ(s))``. The position effect b is

* ``position="first"``: one log-odds bonus ``first[judge]`` for the item shown first
  (b_j(0) = first_j, b_j(p > 0) = 0);
* ``position="slot"``: a bonus per shown slot, ``position[judge, slot]``, relative to the last
  slot of the longest list (fixed at 0: a constant added to every slot changes no ranking);
* ``position="none"``: plain Plackett–Luce.

With ``lapse=True`` a call is, with probability ``lapse[judge]`` (< 0.5), a uniformly random
order: ``P = (1 − λ) P_PL(σ) + λ / k!``. Strengths are ``sigma_s · z`` with z ~ ZeroSumNormal(1)
per context, as in the pairwise models (METHODS §7), so a strength is on the same log-odds scale
as a Bradley–Terry strength.

The observation unit is one list: the observed variable ``ranking`` (dims ``list``, ``rank``)
holds the item index at each rank (−1 after a list's end), so the pointwise log-likelihood and
LOO are per list. The log-density is PyMC's graph (no written-out form: lists of a log have
few distinct shapes and the graph compiles in seconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
from scipy.special import gammaln

from bayes_pairwise.conventions import resolve_hdi_prob
from bayes_pairwise.errors import DesignError
from bayes_pairwise.pymc_models.base import BayesianPairwiseModel, make_prior
from bayes_pairwise.rankings import Rankings

__all__ = [
    "POSITION_EFFECTS",
    "NoisyPlackettLuce",
    "list_ppc_data",
    "rank_shown_lists",
    "simulate_noisy_rankings",
]

#: Values of the ``position`` setting.
POSITION_EFFECTS = ("first", "slot", "none")

_PAD = -1.0e9  # utility of a padding entry (finite, so no NaN reaches a gradient)


def _pl_terms(value: Any, u: Any) -> Any:
    """Per-list Plackett–Luce log-probability of best-first rows ``value`` with utilities ``u``
    (both lists × ranks; padding where value < 0)."""
    valid = pt.ge(value, 0)
    um = pt.switch(valid, u, _PAD)
    k = int(value.type.shape[-1]) if value.type.shape[-1] is not None else None
    if k is None:  # pragma: no cover - the observed data fix the width
        raise ValueError("the ranking width must be known")
    total = pt.zeros(u.shape[:-1])
    for r in range(k - 1):
        stage = valid[..., r] & valid[..., r + 1]
        lse = pt.logsumexp(um[..., r:], axis=-1)
        total = total + pt.switch(stage, um[..., r] - lse, 0.0)
    return total


def _logp_plain(value: Any, u: Any, lapse: Any, logfact: Any) -> Any:
    return _pl_terms(value, u)


def _logp_lapse(value: Any, u: Any, lapse: Any, logfact: Any) -> Any:
    pl = _pl_terms(value, u)
    return pm.math.logaddexp(pt.log1p(-lapse) + pl, pt.log(lapse) - logfact)


class NoisyPlackettLuce(BayesianPairwiseModel):
    """Plackett–Luce with a listwise judge's errors: a shown-position bonus and a lapse rate,
    per judge (module docstring).

    Parameters
    ----------
    position : {"first", "slot", "none"}
        The position effect: a bonus for the item shown first (parameter ``first``), one per
        shown slot (``position``), or none. Any but ``"none"`` needs the shown order
        (``load_rankings(..., shown=…)``).
    lapse : bool
        Estimate a lapse rate ``lapse`` per judge (a random order with that probability).
    spec, priors, likelihood, draws, tune, chains, target_accept, nuts_sampler,
    sampler_kwargs, map_kwargs
        As for every model (:class:`~bayes_pairwise.pymc_models.base.BayesianPairwiseModel`);
        the default spec is ``models/noisy_plackett_luce.toml``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_pairwise.pymc_models.plackett_luce import simulate_noisy_rankings
    >>> data = simulate_noisy_rankings(np.linspace(-1, 1, 8), 150, 4, first=1.0,
    ...                                random_seed=0)
    >>> m = NoisyPlackettLuce(lapse=False).fit(data, method="map", random_seed=0)
    >>> m.summary(strengths=False).index.tolist()
    ['first']
    >>> 0.5 < float(m.summary(strengths=False).loc["first", "mean"]) < 1.5
    True
    """

    default_spec: ClassVar[str] = "noisy_plackett_luce"
    likelihoods: ClassVar[tuple[str, ...]] = ("plackett_luce",)
    observed_name: ClassVar[str] = "ranking"
    reported: ClassVar[tuple[str, ...]] = ("first", "position", "lapse")

    def __init__(
        self,
        *,
        position: str = "first",
        lapse: bool = True,
        spec: str | None = None,
        priors: Mapping[str, Mapping[str, Any]] | None = None,
        likelihood: str | None = None,
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
        self.position = position
        self.lapse = lapse

    @property
    def prior_kinds(self) -> dict[str, str]:
        """Prior names of this model and the kind of distribution each may take."""
        kinds = {"sigma_s": "positive"}
        if self.position == "first":
            kinds["first"] = "real"
        elif self.position == "slot":
            kinds["position"] = "real"
        if self.lapse:
            kinds["lapse"] = "half_rate"
        return kinds

    def _check_data(self, data: Any) -> None:
        if not isinstance(data, Rankings):
            raise TypeError(
                f"{type(self).__name__}.fit expects a Rankings object "
                f"(bayes_pairwise.load_rankings), got {type(data).__name__}"
            )
        if self.position not in POSITION_EFFECTS:
            raise ValueError(f"position must be one of {POSITION_EFFECTS}, got {self.position!r}")
        if self.position != "none" and not data.has_shown:
            raise DesignError(
                f"position={self.position!r} needs the order the items were shown in: load the "
                "log with load_rankings(..., shown='<column>') (CLI --shown-column), or fit "
                "position='none'"
            )

    def _design_warnings(self, data: Any) -> list[str]:
        out = []
        counts = np.bincount(np.asarray(data.judge), minlength=data.n_judges)
        for name, n in zip(data.judges, counts, strict=True):
            if n < 20:
                out.append(
                    f"judge {name!r} ranked only {int(n)} lists: its position effect and lapse "
                    "rate rest mostly on the prior"
                )
        return out

    def _extra_settings(self) -> dict[str, Any]:
        return {"position": self.position, "lapse": bool(self.lapse)}

    def _build(self, data: Rankings, priors: dict[str, dict[str, Any]], likelihood: str):
        ranked = np.asarray(data.ranked, dtype=np.int64)
        n_lists, width = ranked.shape
        coords: dict[str, Any] = {
            "item": list(data.items),
            "judge": list(data.judges),
            "list": list(data.lists),
            "rank": list(range(1, width + 1)),
        }
        if self.position == "slot":
            coords["slot"] = list(range(1, width + 1))
            coords["slot_free"] = list(range(1, width))
        with pm.Model(coords=coords) as model:
            strength = self._strength_block(data, priors["sigma_s"])
            safe = np.maximum(ranked, 0)
            u = strength[safe]
            list_judge = pm.Data("list_judge", np.asarray(data.judge, np.int64), dims="list")
            length = np.asarray(data.length, dtype=np.int64)
            pm.Data("length", length, dims="list")
            if self.position != "none":
                shown = pm.Data("shown", np.asarray(data.shown, np.int64), dims=("list", "rank"))
            if self.position == "first":
                first = make_prior("first", priors["first"], "real", dims="judge")
                u = u + first[list_judge][:, None] * pt.eq(shown, 0)
            elif self.position == "slot":
                free = make_prior(
                    "position_free", priors["position"], "real", dims=("judge", "slot_free")
                )
                bonus = pt.concatenate([free, pt.zeros((data.n_judges, 1))], axis=1)
                bonus = pm.Deterministic("position", bonus, dims=("judge", "slot"))
                u = u + bonus[list_judge[:, None], pt.maximum(shown, 0)]
            if self.lapse:
                lap = make_prior("lapse", priors["lapse"], "half_rate", dims="judge")
                lap_list = lap[list_judge]
                logp = _logp_lapse
            else:
                lap_list = pt.zeros(n_lists)
                logp = _logp_plain
            logfact = pt.as_tensor_variable(gammaln(length + 1.0))
            pm.CustomDist(
                "ranking",
                u,
                lap_list,
                logfact,
                logp=logp,
                observed=ranked,
                dtype="int64",
                signature="(k),(),()->(k)",
                dims=("list", "rank"),
            )
        return model

    @classmethod
    def data_from_idata(cls, idata: az.InferenceData, settings: Mapping[str, Any]) -> Rankings:
        """The stored design as a :class:`Rankings` (enough to rebuild the PyMC model)."""
        from dataclasses import replace

        from bayes_pairwise.rankings import rankings_from_arrays

        cd, od = idata.constant_data, idata.observed_data
        ranked = np.asarray(od["ranking"], dtype=np.int64)
        width = ranked.shape[1]
        shown = np.asarray(cd["shown"], np.int64) if "shown" in cd else np.full_like(ranked, -1)
        items = [str(v) for v in idata.posterior.coords["item"].values]
        judges = tuple(str(v) for v in idata.posterior.coords["judge"].values)
        base = rankings_from_arrays(np.array([[0, 1]]), items=items)
        layout = settings.get("layout", {})
        ro = {}
        for k, v in {
            "ranked": ranked,
            "shown": shown,
            "length": np.asarray(cd["length"], np.int64),
            "judge": np.asarray(cd["list_judge"], np.int64),
            "row": np.full((ranked.shape[0], width), -1, np.int64),
            "item_context": np.asarray(cd["item_context"], np.int64),
        }.items():
            v = np.ascontiguousarray(v)
            v.setflags(write=False)
            ro[k] = v
        return replace(
            base,
            item_names=tuple(layout.get("item_names", items)),
            contexts=tuple(layout.get("contexts", ("all",))),
            judges=judges,
            lists=tuple(str(v) for v in od.coords["list"].values),
            has_shown="shown" in cd,
            source=f"stored design ({settings.get('data', {}).get('source', 'unknown')})",
            **ro,
        )

    # ------------------------------------------------------------------ predictive checks
    def sample_posterior_predictive(
        self,
        *,
        random_seed: int | np.random.Generator | None = None,
        progress: bool = False,
        point_draws: int = 500,
        max_draws: int = 500,
    ) -> az.InferenceData:
        """Add replicated rankings to ``idata_`` (group ``posterior_predictive``, variable
        ``ranking``, dims ``chain, draw, list, rank``).

        Each replicate re-ranks every list of the data (same items, same shown order, same
        judge) from one posterior draw: a lapse with probability ``lapse``, else Plackett–Luce
        on the utilities (Gumbel-max). A MAP fit gives ``point_draws`` replicates at the mode;
        a longer posterior is thinned to at most ``max_draws`` draws.
        """
        import xarray as xr

        self._check_fitted()
        seed = self._seed(random_seed)
        rng = np.random.default_rng(seed)
        post = self.idata_.posterior
        cd, od = self.idata_.constant_data, self.idata_.observed_data
        ranked = np.asarray(od["ranking"], dtype=np.int64)
        shown = np.asarray(cd["shown"], np.int64) if "shown" in cd else None
        judge = np.asarray(cd["list_judge"], np.int64)
        strength = np.asarray(post["strength"]).reshape(-1, post.sizes["item"])
        n = strength.shape[0]
        draws = (
            np.zeros(point_draws, dtype=int)
            if n == 1
            else np.linspace(0, n - 1, min(n, max_draws)).astype(int)
        )

        def flat(name: str) -> np.ndarray | None:
            if name not in post:
                return None
            v = np.asarray(post[name])
            return v.reshape(n, *v.shape[2:])

        first, position, lapse = flat("first"), flat("position"), flat("lapse")
        valid = ranked >= 0
        safe = np.maximum(ranked, 0)
        out = np.full((draws.size, *ranked.shape), -1, dtype=np.int64)
        k = valid.sum(axis=1)
        for t, d in enumerate(draws):
            u = strength[d][safe]
            if first is not None and shown is not None:
                u = u + first[d][judge][:, None] * (shown == 0)
            if position is not None and shown is not None:
                u = u + position[d][judge[:, None], np.maximum(shown, 0)]
            u = u + rng.gumbel(size=u.shape)
            if lapse is not None:
                lap = rng.random(ranked.shape[0]) < lapse[d][judge]
                u = np.where(lap[:, None], rng.random(u.shape), u)
            u = np.where(valid, u, -np.inf)
            order = np.argsort(-u, axis=1, kind="stable")
            rep = np.take_along_axis(safe, order, axis=1)
            out[t] = np.where(np.arange(ranked.shape[1])[None, :] < k[:, None], rep, -1)
        da = xr.DataArray(
            out[None],
            dims=("chain", "draw", "list", "rank"),
            coords={
                "chain": [0],
                "draw": np.arange(draws.size),
                "list": od.coords["list"].values,
                "rank": od.coords["rank"].values,
            },
        )
        group = xr.Dataset({"ranking": da})
        group.attrs["random_seed"] = seed
        group.attrs["plug_in"] = int(n == 1)
        if "posterior_predictive" in self.idata_.groups():
            del self.idata_.posterior_predictive
        self.idata_.add_groups({"posterior_predictive": group})
        return self.idata_

    def list_ppc(self, *, hdi_prob: float | None = None, random_seed: int = 0) -> pd.DataFrame:
        """Observed list statistics against the model's replicates (:func:`list_ppc_data`).

        Draws the posterior predictive first when ``idata_`` has none.
        """
        self._check_fitted()
        if "posterior_predictive" not in self.idata_.groups():
            self.sample_posterior_predictive(random_seed=random_seed)
        return list_ppc_data(self.idata_, hdi_prob=hdi_prob)


def list_ppc_data(idata: az.InferenceData, *, hdi_prob: float | None = None) -> pd.DataFrame:
    """How often the first-shown item is ranked first, observed against replicated, per judge.

    Parameters
    ----------
    idata : InferenceData
        A :class:`NoisyPlackettLuce` fit with a ``posterior_predictive`` group.
    hdi_prob : float, optional
        Central interval of the replicated shares (default
        :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time).

    Returns
    -------
    DataFrame
        One row per judge and statistic: ``observed``, ``replicated`` (mean), ``lower``,
        ``upper`` and ``p_value`` (share of replicates at least as large as observed);
        statistics ``first_shown_ranked_first`` and ``mean_shown_slot_of_top`` (1 = first).
    """
    cd, od = idata.constant_data, idata.observed_data
    if "shown" not in cd:
        raise DesignError("the fit has no shown order: the list statistics need one")
    ranked = np.asarray(od["ranking"], dtype=np.int64)
    shown = np.asarray(cd["shown"], np.int64)
    judge = np.asarray(cd["list_judge"], np.int64)
    judges = [str(v) for v in idata.posterior.coords["judge"].values]
    rep = np.asarray(idata.posterior_predictive["ranking"], dtype=np.int64)
    rep = rep.reshape(-1, *ranked.shape)
    # the shown slot of each item of each list
    slot = np.full((ranked.shape[0], int(ranked.max()) + 1), -1, dtype=np.int64)
    li = np.repeat(np.arange(ranked.shape[0]), ranked.shape[1]).reshape(ranked.shape)
    ok = ranked >= 0
    slot[li[ok], ranked[ok]] = shown[ok]
    top_obs = slot[np.arange(ranked.shape[0]), ranked[:, 0]]
    top_rep = slot[np.arange(ranked.shape[0])[None, :], rep[:, :, 0]]
    hdi_prob = resolve_hdi_prob(hdi_prob)
    lo_q, hi_q = (1 - hdi_prob) / 2, (1 + hdi_prob) / 2
    rows = []
    for j, name in enumerate(judges):
        m = judge == j
        if not m.any():
            continue
        for stat, obs, repl in (
            ("first_shown_ranked_first", np.mean(top_obs[m] == 0), np.mean(top_rep[:, m] == 0, 1)),
            ("mean_shown_slot_of_top", np.mean(top_obs[m]) + 1, np.mean(top_rep[:, m], 1) + 1),
        ):
            rows.append(
                {
                    "judge": name,
                    "statistic": stat,
                    "observed": float(obs),
                    "replicated": float(np.mean(repl)),
                    "lower": float(np.quantile(repl, lo_q)),
                    "upper": float(np.quantile(repl, hi_q)),
                    "p_value": float(np.mean(repl >= obs)),
                }
            )
    return pd.DataFrame(rows)


def rank_shown_lists(
    items: np.ndarray,
    judge: np.ndarray,
    strengths: np.ndarray,
    *,
    bonus: np.ndarray | None = None,
    lapse: float | np.ndarray = 0.0,
    random_seed: int | np.random.Generator | None = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Rank shown lists by the model's generative process (the module docstring).

    List l shows ``items[l]`` in that order (slot 0 first) to judge ``judge[l]``, whose
    utilities are ``strengths[item] + bonus[judge, slot]`` plus a Gumbel draw each (so the
    order of the utilities is a Plackett–Luce draw); with probability ``lapse[judge]`` the list
    is ranked in a uniformly random order instead.

    Parameters
    ----------
    items : ndarray of int, shape (n_lists, k)
        Item indexes of each list in the order shown.
    judge : ndarray of int, shape (n_lists,)
        Judge index of each list.
    strengths : ndarray, shape (n_items,)
        Log-odds strengths.
    bonus : ndarray, shape (n_judges, k), optional
        Log-odds bonus per judge and shown slot (``position="first"``: the first column only).
    lapse : float or ndarray of shape (n_judges,)
        Lapse rate per judge.
    random_seed : int or Generator

    Returns
    -------
    ranked, order : ndarray of int, shape (n_lists, k)
        The item at each rank (best first) and its shown slot.

    Examples
    --------
    >>> ranked, order = rank_shown_lists(np.array([[0, 1, 2]]), np.array([0]),
    ...                                  np.array([-30.0, 0.0, 30.0]))
    >>> ranked.tolist(), order.tolist()
    ([[2, 1, 0]], [[2, 1, 0]])
    """
    rng = np.random.default_rng(random_seed)
    items = np.asarray(items, dtype=np.int64)
    judge = np.asarray(judge, dtype=np.int64)
    n_lists, k = items.shape
    th = np.asarray(strengths, dtype=float)
    lj = np.asarray(lapse, dtype=float)
    u = th[items] + rng.gumbel(size=(n_lists, k))
    if bonus is not None:
        u = u + np.asarray(bonus, dtype=float)[judge][:, :k]
    lap = rng.random(n_lists) < (lj[judge] if lj.ndim else np.full(n_lists, float(lj)))
    u = np.where(lap[:, None], rng.random((n_lists, k)), u)
    order = np.argsort(-u, axis=1)
    return np.take_along_axis(items, order, axis=1), order


def simulate_noisy_rankings(
    strengths: np.ndarray,
    n_lists: int,
    k: int,
    *,
    first: float | np.ndarray = 0.0,
    lapse: float | np.ndarray = 0.0,
    n_judges: int = 1,
    random_seed: int | np.random.Generator | None = 0,
) -> Rankings:
    """Lists of ``k`` random items ranked by noisy Plackett–Luce judges (known answers).

    Each list shows its items in a random order; judge j adds ``first[j]`` to the log-odds of
    the item shown first and, with probability ``lapse[j]``, returns a random order. Lists are
    dealt to the judges in turn.

    Examples
    --------
    >>> r = simulate_noisy_rankings(np.zeros(6), 10, 3, random_seed=0)
    >>> r.n_lists, r.max_length, r.has_shown
    (10, 3, True)
    """
    from bayes_pairwise.rankings import rankings_from_arrays

    rng = np.random.default_rng(random_seed)
    n = np.asarray(strengths).size
    judge = np.arange(n_lists) % n_judges
    items = np.stack([rng.choice(n, k, replace=False) for _ in range(n_lists)])  # shown order
    fj = np.broadcast_to(np.asarray(first, dtype=float), (n_judges,))
    bonus = np.zeros((n_judges, k))
    bonus[:, 0] = fj
    ranked, order = rank_shown_lists(
        items, judge, strengths, bonus=bonus, lapse=lapse, random_seed=rng
    )
    return rankings_from_arrays(
        ranked,
        shown=order,
        judge=judge if n_judges > 1 else None,
        items=[f"item{i:02d}" for i in range(n)],
    )
