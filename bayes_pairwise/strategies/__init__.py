"""Cost-aware annotation (METHODS §9, seed 003): a simulated judge with distance-calibrated noise,
matchmaking, pruning, listwise groups, a Bayesian active strategy, ratings and cost accounting.

Examples
--------
>>> from bayes_pairwise.strategies import run_strategies
>>> df = run_strategies(40, reps=2, strategies=["listwise:k=5,rounds=2"], ratings=["bt"])
>>> float(df.loc[0, "cost"])
40.0
"""

from bayes_pairwise.strategies.cost import ALPHA, alpha_scores, listwise_cost, pairwise_cost
from bayes_pairwise.strategies.policies import (
    ListProposal,
    StrategyRun,
    active,
    implied_pairs,
    listwise,
    make_pairs,
    pair_fisher_information,
    pair_information,
    pairwise,
    propose_lists,
    rank_variance_gain,
    streak_prune,
    streak_update,
    swap_confirm,
    tail_prune,
    tail_prune_select,
)
from bayes_pairwise.strategies.rating import (
    GaussianPosterior,
    TrueSkillEnv,
    bt_scores,
    disjoint_layers,
    elo_update,
    gaussian_posterior,
    pl_gaussian_posterior,
    trueskill_1v1,
    trueskill_ratings,
)
from bayes_pairwise.strategies.run import (
    DEFAULT_RATINGS,
    RATINGS,
    STRATEGIES,
    StrategySpec,
    parse_spec,
    plot_rho_vs_cost,
    rho_vs_cost_data,
    run_strategies,
    run_strategy,
)
from bayes_pairwise.strategies.simulate import (
    LIST_MODELS,
    P_MAX,
    TAU,
    AnnotationWorld,
    latent_scores,
    p_correct,
    simulate_annotation,
    solve_tau,
)

__all__ = [
    "ALPHA",
    "DEFAULT_RATINGS",
    "LIST_MODELS",
    "P_MAX",
    "RATINGS",
    "STRATEGIES",
    "TAU",
    "AnnotationWorld",
    "GaussianPosterior",
    "ListProposal",
    "StrategyRun",
    "StrategySpec",
    "TrueSkillEnv",
    "active",
    "alpha_scores",
    "bt_scores",
    "disjoint_layers",
    "elo_update",
    "gaussian_posterior",
    "implied_pairs",
    "latent_scores",
    "listwise",
    "listwise_cost",
    "make_pairs",
    "p_correct",
    "pair_fisher_information",
    "pair_information",
    "pairwise",
    "pairwise_cost",
    "parse_spec",
    "pl_gaussian_posterior",
    "plot_rho_vs_cost",
    "propose_lists",
    "rank_variance_gain",
    "rho_vs_cost_data",
    "run_strategies",
    "run_strategy",
    "simulate_annotation",
    "solve_tau",
    "streak_prune",
    "streak_update",
    "swap_confirm",
    "tail_prune",
    "tail_prune_select",
    "trueskill_1v1",
    "trueskill_ratings",
]
