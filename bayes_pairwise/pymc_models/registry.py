"""The model classes by name: the one table that maps a spec's ``model_class`` to a class.

Examples
--------
>>> sorted(MODEL_CLASSES)
['BiasedBradleyTerry', 'HierarchicalPositionalBias', 'HierarchicalUniformError',
 'NoisyPlackettLuce', 'PositionalBias', 'PositionalDifficulty', 'PositionalOrder',
 'UniformDifficulty', 'UniformError', 'UniformOrder']
"""

from __future__ import annotations

from bayes_pairwise.pymc_models.base import BayesianPairwiseModel
from bayes_pairwise.pymc_models.biased_bt import BiasedBradleyTerry
from bayes_pairwise.pymc_models.difficulty import PositionalDifficulty, UniformDifficulty
from bayes_pairwise.pymc_models.error_models import PositionalBias, UniformError
from bayes_pairwise.pymc_models.hierarchical import (
    HierarchicalPositionalBias,
    HierarchicalUniformError,
)
from bayes_pairwise.pymc_models.order import PositionalOrder, UniformOrder
from bayes_pairwise.pymc_models.plackett_luce import NoisyPlackettLuce

__all__ = ["MODEL_CLASSES"]

#: Class name (as stored in a spec and in a saved file) → model class.
MODEL_CLASSES: dict[str, type[BayesianPairwiseModel]] = {
    "UniformError": UniformError,
    "PositionalBias": PositionalBias,
    "BiasedBradleyTerry": BiasedBradleyTerry,
    "PositionalDifficulty": PositionalDifficulty,
    "UniformDifficulty": UniformDifficulty,
    "HierarchicalUniformError": HierarchicalUniformError,
    "HierarchicalPositionalBias": HierarchicalPositionalBias,
    "NoisyPlackettLuce": NoisyPlackettLuce,
    "UniformOrder": UniformOrder,
    "PositionalOrder": PositionalOrder,
}
