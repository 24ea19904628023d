"""Bayesian judge-error models in PyMC (METHODS §7).

Model classes: :class:`UniformError`, :class:`PositionalBias`, :class:`BiasedBradleyTerry`,
the pair-difficulty mixtures :class:`PositionalDifficulty` and :class:`UniformDifficulty`.
Named variants (one TOML spec each in ``models/``): :func:`available_models`,
:func:`get_model`. Persistence: ``model.save(path)`` / :func:`load_model`. Diagnostics:
:func:`diagnose`, :func:`fit_summary_dict`.
"""

from __future__ import annotations

import warnings
from typing import Any

from bayes_pairwise.errors import BLAS_NOTICE
from bayes_pairwise.model_specs import ModelSpec, available_models, load_spec
from bayes_pairwise.pymc_models.base import BayesianPairwiseModel, nutpie_available, sample_nuts
from bayes_pairwise.pymc_models.biased_bt import BiasedBradleyTerry
from bayes_pairwise.pymc_models.diagnostics import Diagnostics, diagnose, fit_summary_dict
from bayes_pairwise.pymc_models.difficulty import PositionalDifficulty, UniformDifficulty
from bayes_pairwise.pymc_models.error_models import PositionalBias, UniformError
from bayes_pairwise.pymc_models.hierarchical import (
    HierarchicalPositionalBias,
    HierarchicalUniformError,
)
from bayes_pairwise.pymc_models.io import ModelFileError, load_model, save_model
from bayes_pairwise.pymc_models.order import PositionalOrder, UniformOrder
from bayes_pairwise.pymc_models.plackett_luce import NoisyPlackettLuce
from bayes_pairwise.pymc_models.registry import MODEL_CLASSES


def quiet_blas_notice() -> None:
    """Ignore PyTensor's BLAS notice (by its message only), from now on.

    Not called by the package (it would change the caller's filters for good): the command
    line and the report builder drop the notice inside their own calls
    (:func:`bayes_pairwise.errors.quiet_third_party`); a script may call this.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     quiet_blas_notice()
    ...     warnings.warn("PyTensor could not link to a BLAS installation.", stacklevel=1)
    ...     warnings.warn("another notice", stacklevel=1)
    >>> [str(w.message) for w in seen]
    ['another notice']
    """
    warnings.filterwarnings("ignore", message=BLAS_NOTICE, category=UserWarning)


__all__ = [
    "BLAS_NOTICE",
    "MODEL_CLASSES",
    "BayesianPairwiseModel",
    "BiasedBradleyTerry",
    "Diagnostics",
    "HierarchicalPositionalBias",
    "HierarchicalUniformError",
    "ModelFileError",
    "ModelSpec",
    "NoisyPlackettLuce",
    "PositionalBias",
    "PositionalDifficulty",
    "PositionalOrder",
    "UniformDifficulty",
    "UniformError",
    "UniformOrder",
    "available_models",
    "diagnose",
    "fit_summary_dict",
    "get_model",
    "load_model",
    "load_spec",
    "nutpie_available",
    "quiet_blas_notice",
    "sample_nuts",
    "save_model",
]


def get_model(name: str, **settings: Any) -> BayesianPairwiseModel:
    """An unfitted model for a named variant (as used by ``bayes-pairwise fit --model NAME``).

    Parameters
    ----------
    name : str
        One of :func:`available_models`.
    **settings
        Constructor settings (``draws``, ``tune``, ``chains``, ``priors`` …); they take
        precedence over the spec.

    Examples
    --------
    >>> get_model("positional", draws=500)
    PositionalBias(spec='positional', draws=500)
    >>> get_model("uniform_hierarchical").name
    'uniform_hierarchical'
    """
    spec = load_spec(name)
    cls = MODEL_CLASSES[spec.model_class]
    return cls(spec=name, **settings)
