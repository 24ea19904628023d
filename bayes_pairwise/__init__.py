"""bayes_pairwise: how often does a pairwise judge err, and what is the ranking once that is known?

Every public name is importable from the top level (``bp.load_comparisons``,
``bp.DeltaSFit``, ``bp.PositionalBias`` …); the modules are imported lazily, so
``import bayes_pairwise`` does not import PyMC until a model is used.

Examples
--------
>>> import bayes_pairwise as bp
>>> sim = bp.simulate_round_robin(30, eps=0.1, random_seed=0)
>>> round(bp.commutativity_score(sim.data), 3)
0.147
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from bayes_pairwise._version import __version__

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # data and matrices
    "Comparisons": "data",
    "DataSummary": "data",
    "load_comparisons": "data",
    "read_columns": "data",
    "Rankings": "rankings",
    "load_rankings": "rankings",
    "PairCounts": "matrices",
    "RoundRobin": "matrices",
    "pair_counts": "matrices",
    "round_robins": "matrices",
    "w_matrix": "matrices",
    "win_matrix": "matrices",
    "y_matrix": "matrices",
    "z_matrix": "matrices",
    # errors
    "BayesPairwiseError": "errors",
    "CacheWarning": "errors",
    "ConvergenceWarning": "errors",
    "DataError": "errors",
    "DesignError": "errors",
    "DesignWarning": "errors",
    "NotFittedError": "errors",
    "PriorError": "errors",
    "TieRescalingWarning": "errors",
    # simulation
    "SyntheticComparisons": "simulate",
    "simulate_biased_bt": "simulate",
    "simulate_round_robin": "simulate",
    "SyntheticHardPairs": "simulate",
    "simulate_hard_pairs": "simulate",
    # caveats (what a fit cannot see) and the within-pair correlation test
    "Caveat": "caveats",
    # what a judge log can show (issue 25): sharp bounds, identification, gold-label planning
    "ErrorBounds": "classical.bounds",
    "error_bounds": "classical.bounds",
    "LabelPlan": "labels",
    "label_informed_rates": "labels",
    "plan_labels": "labels",
    "caveats_for": "caveats",
    "within_pair_correlation": "classical.correlation",
    # classical: descriptive
    "PositionalMoments": "classical.descriptive",
    "ScomEstimate": "classical.descriptive",
    "commutativity_score": "classical.descriptive",
    "copeland_ranking": "classical.descriptive",
    "copeland_scores": "classical.descriptive",
    "descriptive_by_judge": "classical.descriptive",
    "eps_from_scom": "classical.descriptive",
    "estimate_eps_scom": "classical.descriptive",
    "first_position_rate": "classical.descriptive",
    "position_consistency": "classical.descriptive",
    "positional_moments": "classical.descriptive",
    # classical: Δ_S
    "DeltaS2DFit": "classical.deltas",
    "DeltaSFit": "classical.deltas",
    "delta_s": "classical.deltas",
    "observed_curve": "classical.deltas",
    "synthetic_table": "classical.deltas",
    # classical: correct Copeland score
    "p_correct_score": "classical.correct_score",
    "p_correct_score_curves": "classical.correct_score",
    # classical: Bradley–Terry family
    "BiasedBTSpreadSearch": "classical.bradley_terry",
    "BradleyTerry": "classical.bradley_terry",
    "fit_bradley_terry": "classical.bradley_terry",
    "PlackettLuce": "classical.plackett_luce",
    "Elo": "classical.elo",
    "average_win_rate": "classical.elo",
    "win_rate": "classical.elo",
    "kendall_distance": "classical.agreement",
    "kendall_tau": "classical.agreement",
    "pearson_r": "classical.agreement",
    "rank_agreement": "classical.agreement",
    "spearman_rho": "classical.agreement",
    "bootstrap": "classical.bootstrap",
    # Bayesian models
    "BiasedBradleyTerry": "pymc_models",
    "NoisyPlackettLuce": "pymc_models",
    "PositionalBias": "pymc_models",
    "PositionalDifficulty": "pymc_models",
    "UniformDifficulty": "pymc_models",
    "UniformOrder": "pymc_models",
    "PositionalOrder": "pymc_models",
    "UniformError": "pymc_models",
    "available_models": "pymc_models",
    "diagnose": "pymc_models",
    "fit_summary_dict": "pymc_models",
    "BayesianPairwiseModel": "pymc_models",
    "get_model": "pymc_models",
    "load_model": "pymc_models",
    "style_features": "features",
    "style_differences": "features",
    "self_preference": "features",
    "with_style_covariates": "features",
    "with_self_preference": "features",
    # cross-checks, plots, report
    "CrossCheck": "crosscheck",
    "crosscheck": "crosscheck",
    "compare": "crosscheck",
    "seed_streams": "crosscheck",
    # leaderboard
    "Leaderboard": "leaderboard",
    "judge_agreement": "leaderboard",
    "judge_leaderboards": "leaderboard",
    "leaderboard": "leaderboard",
    "plot_rank_probabilities": "plots",
    "rank_probability_data": "leaderboard",
    "rank_statistics": "leaderboard",
    "ranking_leaderboard": "leaderboard",
    # plots (each plot_* has a *_data twin returning its numbers)
    "bt_vs_posterior_data": "plots",
    "correct_score_data": "plots",
    "delta_s_curve_data": "plots",
    "judge_forest_data": "plots",
    "misfit_curve_data": "plots",
    "misfit_heatmap_data": "plots",
    "plot_bt_vs_posterior": "plots",
    "plot_correct_score": "plots",
    "plot_delta_s_curve": "plots",
    "plot_judge_forest": "plots",
    "plot_misfit_curve": "plots",
    "plot_misfit_heatmap": "plots",
    "plot_posterior_vs_grid": "plots",
    "plot_ppc": "plots",
    "plot_rank": "plots",
    "plot_strength_forest": "plots",
    "plot_trace": "plots",
    "posterior_vs_grid_data": "plots",
    "ppc_data": "plots",
    "strength_forest_data": "plots",
    "trace_data": "plots",
    "build_report": "report",
    # cost-aware annotation (issue 11)
    "simulate_annotation": "strategies",
    "run_strategies": "strategies",
    "write_report": "report",
    # model checking: LOO comparison, simulation-based calibration
    "SBCResult": "model_checking",
    "compare_models": "model_checking",
    "compare_models_kfold": "model_checking",
    "plot_sbc_ranks": "plots",
    "sbc": "model_checking",
    "sbc_rank_data": "model_checking",
    "sbc_summary": "model_checking",
}

_SUBMODULES = {
    "datasets",
    "plots",
    "classical",
    "pymc_models",
    "features",
    "report",
    "cli",
    "strategies",
}

__all__ = ["__version__", *sorted(_EXPORTS), *sorted(_SUBMODULES)]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = importlib.import_module(f"bayes_pairwise.{_EXPORTS[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f"bayes_pairwise.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'bayes_pairwise' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)


#: Names that are both a submodule and its main function, exported as the function.
_FUNCTION_OVER_MODULE = frozenset({"crosscheck", "leaderboard"})


class _Package(types.ModuleType):
    """The package module: ``bp.crosscheck`` and ``bp.leaderboard`` stay the functions once
    their submodules are imported.

    Each is both a module and its main function. The import system sets the submodule as an
    attribute of the package when anything imports it (the cross-check imports
    ``bayes_pairwise.leaderboard``, after which ``bp.leaderboard(data)`` raised "'module'
    object is not callable"); this keeps the function there instead, without importing the
    module (and pandas) at ``import bayes_pairwise``, so the command line's ``--help`` and
    usage errors stay fast.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTION_OVER_MODULE and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
