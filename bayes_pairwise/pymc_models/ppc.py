"""Posterior predictive checks with the paper's statistics (S_com, first-position rate, Δ_S).

:func:`ppc_data` draws replicated pair counts from a fitted model (its own posterior predictive
group where present, else the model's generative process at posterior draws) and returns the
observed and replicated statistics as a tidy table; :func:`bayes_pairwise.plots.plot_ppc` draws
it. The computation lives here, with the models, so that the cross-check and the report use one
simulator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayes_pairwise.pymc_models.diagnostics import (
    TIE_STATISTICS,
    as_inference_data,
    complete_round_robins,
    pooled_delta_curves,
    select_judge,
    tie_statistic_values,
    tie_statistics,
)
from bayes_pairwise.pymc_models.likelihoods import (
    bernoulli_logit_random,
    marginal_random,
    tie_marginal_random,
)

if TYPE_CHECKING:
    import arviz as az

    from bayes_pairwise.data import Comparisons

__all__ = [
    "PPC_STATISTICS",
    "PPC_STATISTIC_NAMES",
    "TIE_STATISTICS",
    "ppc_data",
    "strength_draws",
    "tie_statistics",
]

#: The statistics :func:`ppc_data` can check (the tie statistics only where the log has ties).
PPC_STATISTICS = ("s_com", "first_position_rate", "delta_s", "s_com_decided", "ties_both_orders")
#: What each statistic is, for captions, axes and the report.
PPC_STATISTIC_NAMES = {
    "s_com": "S_com (commutativity score, a tie half a win)",
    "first_position_rate": "first-position win rate r₁",
    "delta_s": "Δ_S–n curve",
    "s_com_decided": "S_com of the decided verdicts (pairs decided in both orders)",
    "ties_both_orders": "share of pairs tied in both orders",
}


def strength_draws(idata: az.InferenceData) -> tuple[np.ndarray, list[str]]:
    """Posterior strength draws as a (samples, items) array, with the item labels.

    Parameters
    ----------
    idata : arviz.InferenceData

    Returns
    -------
    draws : ndarray
    labels : list of str

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> idata = az.from_dict(posterior={"strength": np.zeros((2, 3, 4))},
    ...                      coords={"item": list("abcd")}, dims={"strength": ["item"]})
    >>> strength_draws(idata)[0].shape
    (6, 4)
    """
    post = idata.posterior
    if "strength" not in post.data_vars:
        raise ValueError(
            f"the posterior has no 'strength' variable (it has {list(post.data_vars)})"
        )
    da = post["strength"]
    extra = [d for d in da.dims if d not in ("chain", "draw")]
    if len(extra) != 1:
        raise ValueError(f"'strength' should have one item dimension, it has {extra}")
    dim = extra[0]
    vals = da.transpose("chain", "draw", dim).values.reshape(-1, da.sizes[dim])
    return vals, [str(v) for v in da.coords[dim].values]


def _n_samples(idata: az.InferenceData) -> int:
    post = idata.posterior
    return int(post.sizes.get("chain", 1) * post.sizes.get("draw", 1))


def _flat_draws(da: Any, idx: np.ndarray) -> np.ndarray:
    extra = [d for d in da.dims if d not in ("chain", "draw")]
    vals = da.transpose("chain", "draw", *extra).values
    return vals.reshape(-1, *vals.shape[2:])[idx]


def _replicate_pair_counts(
    idata: az.InferenceData,
    block: Comparisons,
    pc: Any,
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replicated (n₁, n₂, t₁, t₂) per pair row of ``pc``: shape (D, P) each (n a tie counted
    half, t the ties), from posterior draws.

    Draws with the models' own generative code (METHODS §7): the error models' (latent truth
    or gold label, ties at the fitted tie rates, the hard state of the pair-difficulty models,
    then the flips; see :func:`_error_model_replicates`), the biased Bradley–Terry model's (one
    Bernoulli per verdict with σ(s_f − s_s + γ + wᵀx),
    :func:`~bayes_pairwise.pymc_models.likelihoods.bernoulli_logit_random`).
    """

    post = idata.posterior
    judge = block.judges[0]
    total = _n_samples(idata)
    # a one-draw (MAP) posterior is replicated n_draws times: a plug-in predictive check
    idx = np.sort(rng.choice(total, size=int(n_draws), replace=total < int(n_draws)))
    D = idx.size
    s, labels = strength_draws(idata)
    pos = {lab: k for k, lab in enumerate(labels)}
    missing = [it for it in block.items if it not in pos]
    if missing:
        raise ValueError(f"the posterior has no strength for items {missing[:5]}")
    col = np.array([pos[it] for it in block.items])
    s = s[idx][:, col]  # (D, n_items) in the data's item order
    if "gamma" in post.data_vars:  # biased Bradley–Terry: one Bernoulli per verdict
        g = _flat_draws(select_judge(post["gamma"], judge), idx).reshape(D)
        eta = s[:, block.first] - s[:, block.second] + g[:, None]
        if "w" in post.data_vars and block.covariates:
            w = post["w"]
            names = [str(v) for v in w.coords[w.dims[-1]].values] if w.ndim > 2 else []
            wv = _flat_draws(select_judge(w, judge), idx).reshape(D, -1)
            # the model divides each covariate by its scale (it does not centre it: a
            # first-minus-second difference keeps its sign); use the fitted scale when stored
            scales: dict[str, float] = {}
            if "constant_data" in idata.groups() and "covariate_scale" in idata.constant_data:
                cs = idata.constant_data["covariate_scale"]
                scales = {
                    str(c): float(v)
                    for c, v in zip(cs.coords[cs.dims[0]].values, np.asarray(cs), strict=True)
                }
            for k, name in enumerate(names):
                if name in block.covariates:
                    x = np.asarray(block.covariates[name], dtype=float)
                    sd = scales.get(name, float(x.std()))
                    eta = eta + wv[:, k : k + 1] * (x / (sd if sd > 0 else 1.0))[None, :]
        first_wins = bernoulli_logit_random(eta, rng=rng).astype(bool)
        lo = np.minimum(block.first, block.second)
        lo_first = block.first == lo
        i_wins = np.where(lo_first[None, :], first_wins, ~first_wins)
        key = lo.astype(np.int64) * block.n_items + np.maximum(block.first, block.second)
        pkey = np.asarray(pc.i, dtype=np.int64) * block.n_items + np.asarray(pc.j)
        row = np.searchsorted(pkey, key)
        n1 = np.zeros((D, pc.n_pairs))
        n2 = np.zeros((D, pc.n_pairs))
        for d in range(D):
            n1[d] = np.bincount(row, weights=i_wins[d] & lo_first, minlength=pc.n_pairs)
            n2[d] = np.bincount(row, weights=i_wins[d] & ~lo_first, minlength=pc.n_pairs)
        return n1, n2, np.zeros_like(n1), np.zeros_like(n1)  # no ties in this model
    return _error_model_replicates(post, judge, s, idx, pc, rng)


def _error_model_replicates(
    post: Any, judge: str, s: np.ndarray, idx: np.ndarray, pc: Any, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replicated (n₁, n₂, t₁, t₂) of an error model's posterior draws ``idx``, strengths ``s``
    (D, n): n a tie counted half, t the ties (zeros where the model draws none).

    The models' ``random`` functions, vectorised over the draws (each draw's rates are looked up
    per row as the per-judge rates are): :func:`~bayes_pairwise.pymc_models.likelihoods.
    marginal_random` (no ties), :func:`~bayes_pairwise.pymc_models.likelihoods.
    tie_marginal_random` (ties at τ± = σ(``tie_logit`` − ``tie_closeness`` |d|)) and
    :func:`~bayes_pairwise.pymc_models.difficulty.difficulty_random` (the pair-difficulty
    mixture); gold labels fix the truth of their rows. A replicated tie counts half a win each,
    as in the observed n₁, n₂.
    """
    from bayes_pairwise.pymc_models.difficulty import difficulty_random

    n_draws = idx.size

    def draws(name: str) -> np.ndarray:
        return _flat_draws(select_judge(post[name], judge), idx).reshape(n_draws, -1)

    names = set(post.data_vars)
    difficulty = "hard_share" in names
    if difficulty:
        easy = ("eps_plus_easy", "eps_minus_easy") if "eps_plus_easy" in names else ("eps_easy",)
        ep, em = draws(easy[0])[:, 0], draws(easy[-1])[:, 0]
    elif {"eps_plus", "eps_minus"} <= names:
        ep, em = draws("eps_plus")[:, 0], draws("eps_minus")[:, 0]
    elif "eps" in names:
        ep = em = draws("eps")[:, 0]
    else:
        raise ValueError(
            "cannot simulate replicated data: the posterior has none of eps, eps_plus/eps_minus, "
            f"gamma (it has {list(post.data_vars)})"
        )
    d = s[:, pc.i] - s[:, pc.j]  # (D, P)
    by_draw = np.broadcast_to(np.arange(n_draws)[:, None], d.shape)  # a row's draw, as "judge"
    k = np.stack([pc.k_plus, pc.k_minus], axis=-1).astype(np.int64)
    ties = "tie_logit" in names
    eta_p = eta_m = np.zeros(d.shape)
    if ties:
        logit = draws("tie_logit")  # (D, 1), or (D, 2) with one rate per position
        shrink = draws("tie_closeness") * np.abs(d) if "tie_closeness" in names else 0.0
        eta_p, eta_m = logit[:, :1] - shrink, logit[:, -1:] - shrink
    if difficulty:
        eh, pi = draws("eps_hard")[:, 0], draws("hard_share")[:, 0]
        rows = difficulty_random(
            d, by_draw, ep, em, eh, pi, eta_p, eta_m, k, pc.truth, rng=rng, ties=ties
        )
    elif ties:
        rows = tie_marginal_random(d, by_draw, ep, em, eta_p, eta_m, k, rng=rng, truth=pc.truth)
    else:
        rows = marginal_random(d, by_draw, ep, em, k, rng=rng, truth=pc.truth)
    rows = rows.astype(float)
    if ties:
        return (
            rows[..., 0] + 0.5 * rows[..., 2],
            rows[..., 1] + 0.5 * rows[..., 3],
            rows[..., 2],
            rows[..., 3],
        )
    return rows[..., 0], rows[..., 1], np.zeros(rows.shape[:-1]), np.zeros(rows.shape[:-1])


def _model_replicates(
    idata: az.InferenceData, block: Comparisons, pc: Any, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Replicated (n₁, n₂, t₁, t₂) of ``block``'s pairs from the model's own
    ``posterior_predictive`` group (:meth:`sample_posterior_predictive` of the model classes),
    or None when absent."""
    if "posterior_predictive" not in idata.groups() or "constant_data" not in idata.groups():
        return None
    try:
        from bayes_pairwise.pymc_models.diagnostics import ppc_pair_counts

        counts = ppc_pair_counts(idata)
    except (ImportError, KeyError, ValueError, AttributeError, IndexError):
        return None
    post = idata.posterior
    judges = [str(v) for v in post.coords["judge"].values] if "judge" in post.coords else []
    label = str(block.judges[0])
    if label in judges:
        jdx = judges.index(label)
    elif len(judges) <= 1:
        jdx = 0
    else:
        return None
    rows = np.flatnonzero(np.asarray(counts["judge"]) == jdx)
    # the block may hold only this judge's items (Comparisons.for_judge): compare by label
    # the item labels of the fit's design (the order models' posterior has no item dim)
    cd = idata.constant_data
    coords = cd.coords if "item" in cd.coords else post.coords
    model_items = [str(v) for v in coords["item"].values] if "item" in coords else []
    if model_items and len(model_items) != block.n_items:
        pos = {lab: k for k, lab in enumerate(model_items)}
        try:
            to_model = np.array([pos[str(lab)] for lab in block.items], dtype=np.int64)
        except KeyError:
            return None
        pc_i, pc_j = to_model[np.asarray(pc.i)], to_model[np.asarray(pc.j)]
    else:
        pc_i, pc_j = np.asarray(pc.i), np.asarray(pc.j)
    same = (
        rows.size == pc.n_pairs
        and np.array_equal(np.asarray(counts["i"])[rows], pc_i)
        and np.array_equal(np.asarray(counts["j"])[rows], pc_j)
        and np.array_equal(np.asarray(counts["k_plus"])[rows], pc.k_plus)
        and np.array_equal(np.asarray(counts["k_minus"])[rows], pc.k_minus)
    )
    if not same:
        return None
    reps = tuple(
        np.asarray(counts[f"{v}_rep"], dtype=float)[:, rows] for v in ("n1", "n2", "t1", "t2")
    )
    if reps[0].shape[0] > int(n_draws):
        keep = np.sort(rng.choice(reps[0].shape[0], size=int(n_draws), replace=False))
        reps = tuple(r[keep] for r in reps)
    return reps


def _context_pairs(block: Comparisons, pc: Any) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(size, pair rows, local (i, j)) for every context whose unordered pairs are all present.

    Contexts of two items count (their Δ_S at n = 2, METHODS §1), here and in
    :func:`~bayes_pairwise.pymc_models.diagnostics.diagnose`.
    """
    return complete_round_robins(pc.i, pc.j, block.item_context)


def ppc_data(
    model_or_idata: Any,
    data: Comparisons,
    *,
    judge: str | int | None = None,
    statistics: Sequence[str] = PPC_STATISTICS,
    n_draws: int = 200,
    n_draws_curve: int = 60,
    n_subsets: int = 50,
    random_seed: int | None = 0,
) -> pd.DataFrame:
    """Posterior predictive checks with the paper's own statistics.

    Replicated data sets come from the model's own ``posterior_predictive`` group when the fit
    has one (:meth:`~bayes_pairwise.pymc_models.BayesianPairwiseModel.sample_posterior_predictive`);
    otherwise they are simulated here from posterior draws with the models' generative story
    (METHODS §7; same design: the same pairs, each shown k₊ / k₋ times). Each statistic is
    computed on every replicate and on the observed data: the commutativity score S_com, the
    first-position win rate r₁, and the Δ_S–n curve (from W, pooled over the contexts that hold
    every pair).

    Parameters
    ----------
    model_or_idata : fitted model or InferenceData
        A posterior with ``strength`` (item labels as in ``data.items``) and ``eps`` or
        ``eps_plus``/``eps_minus`` (error models) or ``gamma`` (+ ``w``) (biased Bradley–Terry),
        optionally with a ``judge`` dimension.
    data : Comparisons
        The data the model was fitted to.
    judge : str or int, optional
        Required when ``data`` holds several judges.
    statistics : sequence of str
        Any of ``"s_com"``, ``"first_position_rate"``, ``"delta_s"``.
    n_draws : int
        Replicates for the scalar statistics.
    n_draws_curve : int
        Replicates for the Δ_S curve (the costlier one).
    n_subsets : int
        Random subsets per size for the Δ_S curve (all of them where fewer exist).
    random_seed : int, optional

    Returns
    -------
    DataFrame
        Columns ``statistic``, ``n`` (subset size for ``delta_s``, else 0), ``draw``,
        ``replicated``, ``observed``. ``attrs["p_value"]`` maps each scalar statistic to the
        posterior predictive p-value P(replicated > observed) + ½ P(replicated = observed);
        ``attrs["replicates"]`` says where the replicates came from.

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(6, eps=0.2, random_seed=0)
    >>> rng = np.random.default_rng(1)
    >>> s = sim.true_strengths.reindex(list(sim.data.items)).to_numpy()
    >>> idata = az.from_dict(
    ...     posterior={"eps": rng.beta(20, 80, (1, 50)),
    ...                "strength": np.broadcast_to(3 * s, (1, 50, 6))},
    ...     coords={"item": list(sim.data.items)}, dims={"strength": ["item"]})
    >>> df = ppc_data(idata, sim.data, n_draws=50, n_draws_curve=5)
    >>> sorted(df["statistic"].unique())
    ['delta_s', 'first_position_rate', 's_com']
    """
    from bayes_pairwise.classical.descriptive import commutativity_score_counts
    from bayes_pairwise.matrices import pair_counts

    unknown = [s for s in statistics if s not in PPC_STATISTICS]
    if unknown:
        raise ValueError(f"unknown statistics {unknown}; choose from {list(PPC_STATISTICS)}")
    if judge is not None:
        block = data.for_judge(judge)
    elif data.n_judges > 1:
        raise ValueError(f"the data hold {data.n_judges} judges; pass judge=… to pick one")
    else:
        block = data
    idata = as_inference_data(model_or_idata)
    rng = np.random.default_rng(random_seed)
    pc = pair_counts(block)
    kp = pc.k_plus.astype(float)
    km = pc.k_minus.astype(float)
    reps = _model_replicates(idata, block, pc, n_draws, rng)
    source = "model posterior_predictive"
    if reps is None:
        reps = _replicate_pair_counts(idata, block, pc, n_draws, rng)
        source = "simulated from posterior draws"
    n1r, n2r, t1r, t2r = reps
    both = (kp > 0) & (km > 0)
    rows: list[pd.DataFrame] = []
    pvals: dict[str, float] = {}

    def scalar(name: str, obs: float, rep: np.ndarray) -> None:
        rows.append(
            pd.DataFrame(
                {
                    "statistic": name,
                    "n": 0,
                    "draw": np.arange(rep.size),
                    "replicated": rep,
                    "observed": obs,
                }
            )
        )
        pvals[name] = float(np.mean(rep > obs) + 0.5 * np.mean(rep == obs))

    if "s_com" in statistics and both.any():
        obs = commutativity_score_counts(kp[both], km[both], pc.n1[both], pc.n2[both])
        rep = np.array(
            [
                commutativity_score_counts(kp[both], km[both], n1r[d, both], n2r[d, both])
                for d in range(n1r.shape[0])
            ]
        )
        scalar("s_com", obs, rep)
    if "first_position_rate" in statistics:
        tot = float((kp + km).sum())
        obs = float((pc.n1 + km - pc.n2).sum() / tot)
        rep = (n1r + km[None, :] - n2r).sum(axis=1) / tot
        scalar("first_position_rate", obs, rep)
    if "delta_s" in statistics:
        ctx = _context_pairs(block, pc)
        if ctx:
            k = kp + km
            # one Generator through all curves (diagnose gives each context its own int seed)
            obs_curve = pooled_delta_curves(ctx, (2 * pc.n1 + 2 * pc.n2 - k) / k, n_subsets, rng)[0]
            sizes = np.arange(2, obs_curve.size + 2)
            n_c = min(int(n_draws_curve), n1r.shape[0])
            w_rep = (2 * n1r[:n_c] + 2 * n2r[:n_c] - k) / k
            rep_curves = pooled_delta_curves(ctx, w_rep, n_subsets, rng)  # (n_c, sizes)
            rows.append(
                pd.DataFrame(
                    {
                        "statistic": "delta_s",
                        "n": np.tile(sizes, n_c),
                        "draw": np.repeat(np.arange(n_c), sizes.size),
                        "replicated": rep_curves.ravel(),
                        "observed": np.tile(obs_curve, n_c),
                    }
                )
            )
    # where the model draws ties: S_com's two parts, the errors and the ties
    if any(name in statistics for name in TIE_STATISTICS):
        observed = tuple(np.asarray(a, dtype=float) for a in (pc.n1, pc.n2, pc.t1, pc.t2))
        parts = tie_statistic_values(kp, km, observed, (n1r, n2r, t1r, t2r))
        for name, (obs, rep) in parts.items():
            if name in statistics:
                scalar(name, obs, rep)
    cols = ["statistic", "n", "draw", "replicated", "observed"]
    df = pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
    df.attrs["p_value"] = pvals
    df.attrs["judge"] = block.judges[0]
    df.attrs["replicates"] = source
    df.attrs["n_contexts_delta_s"] = (
        len(_context_pairs(block, pc)) if "delta_s" in statistics else 0
    )
    return df
