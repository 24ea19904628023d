"""Run annotation strategies on simulated worlds and compare ρ against cost (METHODS §9).

A strategy is named by a SPEC string ``name:key=value,key=value``:

==================  ==========================================================================
``pairwise``        ``rounds`` (24), ``match`` (similar | random), ``window`` (0.1)
``listwise``        ``k`` (10), ``rounds`` (3), ``overlap`` (0), ``match`` (similar | random)
``tail-prune``      ``rounds`` (24), ``start`` (8), ``perc`` (0.2), ``match``, ``window``
``streak-prune``    ``rounds`` (24), ``streak`` (3), ``distinct`` (3), ``match``, ``window``
``swap-confirm``    ``rounds`` (12), ``match``, ``window``
``active``          ``budget`` (1200), ``k`` (10), ``batch`` (0.5), ``score`` (rank | bald),
                    ``posterior`` (pl | pairs)
==================  ==========================================================================
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayes_pairwise.classical.agreement import spearman_rho
from bayes_pairwise.strategies import policies
from bayes_pairwise.strategies.cost import alpha_scores
from bayes_pairwise.strategies.rating import (
    bt_scores,
    gaussian_posterior,
    pl_gaussian_posterior,
    trueskill_ratings,
)
from bayes_pairwise.strategies.simulate import simulate_annotation

__all__ = [
    "DEFAULT_RATINGS",
    "RATINGS",
    "STRATEGIES",
    "StrategySpec",
    "parse_spec",
    "plot_rho_vs_cost",
    "rho_vs_cost_data",
    "run_strategies",
    "run_strategy",
]

#: Every rating: ``bayes`` is the Gaussian posterior (Plackett–Luce on ranked lists, Bradley–Terry
#: with the judge's ε on pairwise calls); ``bayes-pairs`` reads lists as independent implied pairs
#: (the earlier ``bayes``, kept for comparison).
RATINGS = ("bt", "elo", "trueskill", "bayes", "bayes-pairs")
#: The ratings computed unless asked otherwise.
DEFAULT_RATINGS = ("bt", "elo", "trueskill", "bayes")

# name -> (policy function, {key: type}, {SPEC key: function argument})
_INT, _FLOAT, _STR = int, float, str
STRATEGIES: dict[str, tuple[Any, dict[str, type]]] = {
    "pairwise": (policies.pairwise, {"rounds": _INT, "match": _STR, "window": _FLOAT}),
    "listwise": (
        policies.listwise,
        {"k": _INT, "rounds": _INT, "overlap": _INT, "match": _STR, "window": _FLOAT},
    ),
    "tail-prune": (
        policies.tail_prune,
        {"rounds": _INT, "start": _INT, "perc": _FLOAT, "match": _STR, "window": _FLOAT},
    ),
    "streak-prune": (
        policies.streak_prune,
        {"rounds": _INT, "streak": _INT, "distinct": _INT, "match": _STR, "window": _FLOAT},
    ),
    "swap-confirm": (policies.swap_confirm, {"rounds": _INT, "match": _STR, "window": _FLOAT}),
    "active": (
        policies.active,
        {"budget": _FLOAT, "k": _INT, "batch": _FLOAT, "score": _STR, "posterior": _STR},
    ),
}


@dataclass(frozen=True)
class StrategySpec:
    """A parsed SPEC: the text as given, the strategy name and its keyword arguments."""

    text: str
    name: str
    params: dict[str, Any]

    def run(self, world: Any, rng: np.random.Generator) -> policies.StrategyRun:
        """Run this strategy on ``world``."""
        fn = STRATEGIES[self.name][0]
        kw = dict(self.params)
        if "match" in kw:
            kw[("grouping" if self.name == "listwise" else "matchmaking")] = kw.pop("match")
        return fn(world, rng, **kw)


def parse_spec(text: str) -> StrategySpec:
    """Parse ``name:key=value,...`` (e.g. ``listwise:k=10,rounds=3``).

    Raises
    ------
    ValueError
        Unknown strategy or key, a value of the wrong type, a repeated key, or malformed text —
        the message lists what is accepted.

    Examples
    --------
    >>> parse_spec("tail-prune:rounds=24,start=8,perc=0.2").params
    {'rounds': 24, 'start': 8, 'perc': 0.2}
    >>> parse_spec("pairwise").params
    {}
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty strategy SPEC; expected e.g. 'pairwise:rounds=24'")
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    if name not in STRATEGIES:
        raise ValueError(
            f"unknown strategy {name!r} in SPEC {text!r}; choose from {sorted(STRATEGIES)}"
        )
    allowed = STRATEGIES[name][1]
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, val = part.partition("=")
        key, val = key.strip(), val.strip()
        if not eq or not key or not val:
            raise ValueError(f"malformed {part!r} in SPEC {text!r}; expected key=value")
        if key not in allowed:
            raise ValueError(
                f"unknown key {key!r} for {name!r} in SPEC {text!r}; accepted: {sorted(allowed)}"
            )
        if key in params:
            raise ValueError(f"key {key!r} given twice in SPEC {text!r}")
        typ = allowed[key]
        try:
            if typ is int:
                fv = float(val)
                if not fv.is_integer():
                    raise ValueError
                params[key] = int(fv)
            elif typ is float:
                params[key] = float(val)
                if not np.isfinite(params[key]):
                    raise ValueError
            else:
                params[key] = val
        except ValueError:
            kind = "an integer" if typ is int else "a number"
            raise ValueError(f"{key}={val!r} in SPEC {text!r} must be {kind}") from None
        if key == "match" and val not in ("similar", "random"):
            raise ValueError(f"match must be 'similar' or 'random' in SPEC {text!r}, got {val!r}")
        if key == "score" and val not in ("rank", "bald"):
            raise ValueError(f"score must be 'rank' or 'bald' in SPEC {text!r}, got {val!r}")
        if key == "posterior" and val not in ("pl", "pairs"):
            raise ValueError(f"posterior must be 'pl' or 'pairs' in SPEC {text!r}, got {val!r}")
    return StrategySpec(text=text, name=name, params=params)


def _ratings(run: policies.StrategyRun, world: Any, which: Sequence[str]) -> dict[str, np.ndarray]:
    n = world.n_items
    out: dict[str, np.ndarray] = {}
    if "bt" in which:
        out["bt"] = bt_scores(run.first, run.second, run.outcome, n)
    if "elo" in which:
        out["elo"] = run.elo
    if "trueskill" in which:
        out["trueskill"] = trueskill_ratings(run.first, run.second, run.outcome, n)[0]
    if "bayes" in which and run.posterior_mean is not None:
        out["bayes"] = run.posterior_mean
    elif "bayes" in which and run.lists:
        # ranked lists: each list one Plackett–Luce observation
        out["bayes"] = pl_gaussian_posterior(run.ranked(), n).mean
    if "bayes-pairs" in which:
        out["bayes-pairs"] = (
            run.posterior_mean
            if run.posterior_mean is not None
            else gaussian_posterior(run.first, run.second, run.outcome, n).mean
        )
    if "bayes" in which and "bayes" not in out:
        # the judge's error rates are known; they hit pairwise calls, not implied pairs
        pos = run.positional
        out["bayes"] = gaussian_posterior(
            run.first,
            run.second,
            run.outcome,
            n,
            eps_plus=world.eps_plus if pos else 0.0,
            eps_minus=world.eps_minus if pos else 0.0,
        ).mean
    return out


def run_strategy(
    spec: str | StrategySpec,
    world: Any,
    rng: np.random.Generator,
    ratings: Sequence[str] = DEFAULT_RATINGS,
) -> tuple[policies.StrategyRun, dict[str, float]]:
    """One strategy on one world: the run and Spearman ρ (against the latent scores) per rating.

    Examples
    --------
    >>> w = simulate_annotation(50, random_seed=0)
    >>> run, rho = run_strategy("listwise:k=5,rounds=2", w, np.random.default_rng(0), ["bt"])
    >>> run.cost, rho["bt"] > 0.8
    (50.0, True)
    """
    sp = parse_spec(spec) if isinstance(spec, str) else spec
    run = sp.run(world, rng)
    scores = _ratings(run, world, ratings)
    return run, {r: spearman_rho(scores[r], world.latent) for r in ratings}


def run_strategies(
    n_items: int = 1000,
    distribution: str = "linear",
    bias_items: int = 0,
    bias_shift: float = 200.0,
    reps: int = 3,
    seed: int = 0,
    strategies: Sequence[str] = ("pairwise:rounds=24", "listwise:k=10,rounds=3"),
    ratings: Sequence[str] = DEFAULT_RATINGS,
    client: Any = None,
    **world_kwargs: Any,
) -> pd.DataFrame:
    """Run strategies over ``reps`` simulated worlds; one record per strategy × rating.

    Rep r uses the world drawn with seed ``(seed, r)`` for every strategy (paired comparison),
    and each strategy its own stream ``(seed, r, i)``, so results are reproducible and do not
    depend on which other strategies are run alongside.

    Parameters
    ----------
    n_items, distribution, bias_items, bias_shift : see :func:`simulate_annotation`
    reps : int
        Number of simulated worlds.
    seed : int
        Master seed.
    strategies : sequence of str
        SPEC strings (:func:`parse_spec`), all parsed before anything runs.
    ratings : sequence of str
        Any of ``bt``, ``elo``, ``trueskill``, ``bayes``, ``bayes-pairs`` (:data:`RATINGS`).
    client : distributed.Client, optional
        Run the strategy × rep tasks on this Dask cluster (:mod:`bayes_pairwise.distributed`).
        Every task's streams are the seeds above, so the numbers are the same as without it
        (``seconds`` aside: wall time where the task ran).
    **world_kwargs
        Passed to :func:`simulate_annotation` (``eps_plus``, ``eps_minus``, ``tie_rate`` …).

    Returns
    -------
    DataFrame
        Columns ``strategy`` (SPEC as given), ``rating``, ``cost`` (mean over reps; the same in
        every rep for all but the pruning strategies), ``cost_sd``, ``pairs`` (direct or implied
        verdicts), ``spearman`` (mean), ``spearman_sd`` (spread over reps), ``spearman_min``,
        ``spearman_max``, ``alpha_score`` (α = 0.4, normalised within this table) and
        ``seconds`` (strategy wall time per rep).

    Examples
    --------
    >>> df = run_strategies(60, reps=2, strategies=["pairwise:rounds=4"], ratings=["bt"])
    >>> df[["strategy", "rating", "cost"]].to_dict("records")
    [{'strategy': 'pairwise:rounds=4', 'rating': 'bt', 'cost': 120.0}]
    """
    specs = [parse_spec(s) for s in strategies]
    bad = [r for r in ratings if r not in RATINGS]
    if bad:
        raise ValueError(f"unknown rating(s) {bad}; choose from {list(RATINGS)}")
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    from bayes_pairwise.distributed import run_tasks

    world = {
        "n_items": n_items,
        "distribution": distribution,
        "bias_items": bias_items,
        "bias_shift": bias_shift,
        **world_kwargs,
    }
    tasks = [
        (sp, world, seed, r, i, tuple(ratings)) for i, sp in enumerate(specs) for r in range(reps)
    ]
    results = iter(run_tasks(_strategy_rep, tasks, client=client))
    rows = []
    for sp in specs:
        rhos: dict[str, list[float]] = {r: [] for r in ratings}
        costs, pairs, secs = [], [], []
        for _ in range(reps):
            cost, n_pairs, sec, rho = next(results)
            secs.append(sec)
            costs.append(cost)
            pairs.append(n_pairs)
            for k, v in rho.items():
                rhos[k].append(v)
        for rating in ratings:
            v = np.asarray(rhos[rating])
            rows.append(
                {
                    "strategy": sp.text,
                    "rating": rating,
                    "cost": float(np.mean(costs)),
                    "cost_sd": float(np.std(costs)),
                    "pairs": float(np.mean(pairs)),
                    "spearman": float(v.mean()),
                    "spearman_sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                    "spearman_min": float(v.min()),
                    "spearman_max": float(v.max()),
                    "seconds": float(np.mean(secs)),
                }
            )
    df = pd.DataFrame(rows)
    df.insert(
        df.columns.get_loc("seconds"), "alpha_score", alpha_scores(df["spearman"], df["cost"])
    )
    return df


def _strategy_rep(
    sp: Any, world: dict[str, Any], seed: int, r: int, i: int, ratings: tuple[str, ...]
) -> tuple[float, int, float, dict[str, float]]:
    """Strategy ``i`` in world ``r`` (a task of :func:`run_strategies`): its seeds fix it."""
    kwargs = dict(world)
    sim = simulate_annotation(
        kwargs.pop("n_items"),
        kwargs.pop("distribution"),
        random_seed=np.random.default_rng([seed, r]),
        **kwargs,
    )
    t0 = time.perf_counter()
    run, rho = run_strategy(sp, sim, np.random.default_rng([seed, r, i]), ratings)
    return float(run.cost), int(run.n_pairs), time.perf_counter() - t0, dict(rho)


def rho_vs_cost_data(results: pd.DataFrame, rating: str | None = None) -> pd.DataFrame:
    """The numbers of Figure 2a: one point per strategy × rating, plus the cost–ρ frontier.

    Parameters
    ----------
    results : DataFrame
        Output of :func:`run_strategies`.
    rating : str, optional
        Keep one rating only.

    Returns
    -------
    DataFrame
        ``strategy``, ``rating``, ``cost``, ``spearman``, ``spearman_sd`` and ``frontier``
        (True when no other point has lower-or-equal cost and higher ρ), sorted by cost.

    Examples
    --------
    >>> res = pd.DataFrame({"strategy": ["a", "b", "c"], "rating": ["bt"] * 3,
    ...                     "cost": [100.0, 50.0, 80.0], "spearman": [0.9, 0.95, 0.8],
    ...                     "spearman_sd": [0.0] * 3})
    >>> rho_vs_cost_data(res)[["strategy", "frontier"]].values.tolist()
    [['b', True], ['c', False], ['a', False]]
    """
    need = {"strategy", "rating", "cost", "spearman"}
    if not need <= set(results.columns):
        raise ValueError(f"results need columns {sorted(need)}")
    df = results if rating is None else results[results["rating"] == rating]
    cols = ["strategy", "rating", "cost", "spearman"]
    cols += ["spearman_sd"] if "spearman_sd" in df.columns else []
    out = df[cols].sort_values(["cost", "spearman"], ascending=[True, False]).reset_index(drop=True)
    best = -np.inf
    front = []
    for v in out["spearman"]:
        front.append(bool(v > best))
        best = max(best, v)
    out["frontier"] = front
    return out


def plot_rho_vs_cost(results: pd.DataFrame, rating: str | None = None, ax: Any = None) -> Any:
    """Spearman ρ against cost for all strategies (the paper's Figure 2a); returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> df = run_strategies(40, reps=2, strategies=["pairwise:rounds=3"], ratings=["bt", "elo"])
    >>> plot_rho_vs_cost(df).get_xlabel()
    'cost (API-call equivalents)'
    """
    import matplotlib.pyplot as plt

    data = rho_vs_cost_data(results, rating)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    markers = {"bt": "o", "elo": "s", "trueskill": "^", "bayes": "D"}
    for rt, grp in data.groupby("rating", sort=False):
        yerr = grp.get("spearman_sd")
        ax.errorbar(
            grp["cost"],
            grp["spearman"],
            yerr=yerr,
            fmt=markers.get(rt, "x"),
            label=rt,
            capsize=3,
            alpha=0.8,
        )
    front = data[data["frontier"]]
    ax.plot(front["cost"], front["spearman"], "k--", lw=1, label="frontier")
    for _, row in data.drop_duplicates("strategy").iterrows():
        ax.annotate(
            row["strategy"],
            (row["cost"], row["spearman"]),
            fontsize=7,
            xytext=(4, -10),
            textcoords="offset points",
        )
    ax.set_xscale("log")
    ax.set_xlabel("cost (API-call equivalents)")
    ax.set_ylabel("Spearman ρ vs latent order")
    ax.legend(fontsize=8)
    return ax
