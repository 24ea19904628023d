"""Save fitted models to NetCDF and load them back.

The file is the model's :class:`arviz.InferenceData` (every group) written with
:meth:`~arviz.InferenceData.to_netcdf`; ``posterior.attrs`` carry the model class, the variant
name, the package version and every setting as JSON (priors, sampler, seed, data description).
Loading rebuilds the estimator with the same settings and its fitted attributes, including the
PyMC model (from the stored design), so ``sample_posterior_predictive`` and ``summary`` work on a
loaded fit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import MappingProxyType
from typing import Any

import arviz as az
import numpy as np
import pandas as pd

from bayes_pairwise._version import __version__
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import BayesPairwiseError, user_stacklevel
from bayes_pairwise.pymc_models.base import (
    ATTR_MODEL,
    ATTR_SETTINGS,
    ATTR_SPEC,
    ATTR_VERSION,
    BayesianPairwiseModel,
)

__all__ = ["ModelFileError", "load_model", "save_model"]


class ModelFileError(BayesPairwiseError, ValueError):
    """A NetCDF file is not a saved bayes_pairwise model, or was made by another model class."""


def save_model(model: BayesianPairwiseModel, path: str | os.PathLike[str]) -> Path:
    """Write a fitted model to NetCDF, atomically.

    The file is written to a temporary in the same folder and renamed onto ``path`` once
    complete (:func:`bayes_pairwise.output.atomic_write`): an interrupted save leaves the previous
    file, never a truncated one.

    Parameters
    ----------
    model : fitted model
    path : str or path-like

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        The file cannot be written (missing folder, full disk, …).

    Examples
    --------
    >>> import tempfile, os
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.pymc_models import UniformError, load_model
    >>> sim = bp.simulate_round_robin(8, eps=0.15, random_seed=0)
    >>> m = UniformError().fit(sim.data, method="map", random_seed=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "fit.nc")
    >>> _ = save_model(m, path)
    >>> loaded = load_model(path)
    >>> type(loaded).__name__, bool((loaded.strengths_ == m.strengths_).all())
    ('UniformError', True)
    """
    return model.save(path)


def _registry() -> dict[str, type[BayesianPairwiseModel]]:
    from bayes_pairwise.pymc_models.registry import MODEL_CLASSES

    return dict(MODEL_CLASSES)


def _read(path: Path) -> az.InferenceData:
    if path.is_dir():
        raise ModelFileError(f"{path} is a folder, not a saved model file")
    if not path.is_file():
        raise ModelFileError(f"no such file: {path}")
    try:
        idata = az.from_netcdf(str(path), engine="h5netcdf")
        for group in idata.groups():
            getattr(idata, group).load()
    except Exception as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise ModelFileError(f"{path} is not a NetCDF InferenceData file: {msg}") from exc
    return idata


def _data_from_idata(idata: az.InferenceData, settings: dict[str, Any]) -> Comparisons:
    """A :class:`Comparisons` with the stored design (enough to rebuild the PyMC model)."""
    layout = settings.get("layout", {})
    cd, od = idata.constant_data, idata.observed_data
    # the hard-truth models have no item parameter: their items are the design's
    item_coords = idata.posterior.coords if "item" in idata.posterior.coords else cd.coords
    items = tuple(str(v) for v in item_coords["item"].values)
    judges = tuple(str(v) for v in idata.posterior.coords["judge"].values)
    weighted = bool(settings.get("data", {}).get("weighted"))
    weight: np.ndarray | None = None
    # error models: the observed pair counts (the hard-truth models keep them as data)
    wins_var = od["wins"] if "wins" in od else cd.get("pair_wins")
    if wins_var is not None:  # expand pair counts back into verdicts
        i, j = np.asarray(cd["pair_i"]), np.asarray(cd["pair_j"])
        jd, k = np.asarray(cd["pair_judge"]), np.asarray(cd["k"], dtype=float)
        wins = np.asarray(wins_var, dtype=float)
        # tie fits: wins = (n1, n2, t1, t2), n1/n2 the non-tie wins of i per order
        ties = wins[:, 2:4] if wins.shape[1] == 4 else np.zeros((i.size, 2))
        code = np.asarray(cd["pair_truth"]) if "pair_truth" in cd else np.full(i.size, -1)
        first, second, outcome, judge, truth, weights = [], [], [], [], [], []
        for r in range(i.size):
            better = i[r] if code[r] == 1 else (j[r] if code[r] == 0 else -1)
            n1, n2, t1, t2 = wins[r, 0], wins[r, 1], ties[r, 0], ties[r, 1]
            # (first, second, outcome, how many): i first, then j first
            cells = [
                (i[r], j[r], 1.0, n1),
                (i[r], j[r], 0.5, t1),
                (i[r], j[r], 0.0, k[r, 0] - n1 - t1),
                (j[r], i[r], 1.0, k[r, 1] - n2 - t2),
                (j[r], i[r], 0.5, t2),
                (j[r], i[r], 0.0, n2),
            ]
            for f, sc, out, n in cells:
                # a weighted log's counts are sums of weights: one verdict per cell, weighing n
                m = (1 if n > 0 else 0) if weighted else int(np.rint(n))
                first += [f] * m
                second += [sc] * m
                outcome += [out] * m
                judge += [jd[r]] * m
                truth += [better] * m
                weights += [n] * m
        weight = np.asarray(weights, dtype=float) if weighted else None
        covariates: dict[str, np.ndarray] = {}
        row = np.arange(len(first))
    else:  # biased BT
        first, second = np.asarray(cd["first"]), np.asarray(cd["second"])
        judge = np.asarray(cd["verdict_judge"])
        outcome = np.asarray(od["first_wins"], dtype=float)
        row = np.asarray(od.coords["verdict"])
        truth = np.full(len(first), -1)
        weight = np.asarray(cd["weight"], dtype=float) if "weight" in cd else None
        covariates = {}
        if "x" in cd:
            names = [str(v) for v in cd["x"].coords["covariate"].values]
            raw = np.asarray(cd["x"]) * np.asarray(cd["covariate_scale"])
            covariates = {n: raw[:, c] for c, n in enumerate(names)}
    ro = [np.asarray(a) for a in (first, second, outcome, judge)]
    for a in ro:
        a.setflags(write=False)
    return Comparisons(
        items=items,
        item_names=tuple(layout.get("item_names", items)),
        item_context=np.asarray(cd["item_context"]),
        contexts=tuple(layout.get("contexts", ("all",))),
        judges=judges,
        first=ro[0].astype(np.int64),
        second=ro[1].astype(np.int64),
        outcome=ro[2].astype(float),
        judge=ro[3].astype(np.int64),
        repeat=np.zeros(ro[0].size, dtype=np.int64),
        covariates=MappingProxyType(covariates),
        row=np.asarray(row, dtype=np.int64),
        truth=np.asarray(truth, dtype=np.int64) if np.any(np.asarray(truth) >= 0) else None,
        weight=weight,
        tie_policy=str(settings.get("data", {}).get("tie_policy", "error")),
        source=f"stored design ({settings.get('data', {}).get('source', 'unknown')})",
    )


def load_model(
    path: str | os.PathLike[str], *, expected: type[BayesianPairwiseModel] | None = None
) -> BayesianPairwiseModel:
    """Read a model written by ``model.save(path)`` or :func:`save_model`.

    Parameters
    ----------
    path : str or path-like
    expected : model class, optional
        Raise :class:`ModelFileError` when the file holds another class's fit (what
        ``load_model(path, expected=UniformError)``).

    Returns
    -------
    fitted model
        Same class and settings, with ``idata_``, ``model_``, ``settings_``, ``method_`` …

    Raises
    ------
    ModelFileError
        Missing file, a folder, not a NetCDF file (truncated, random bytes), not a saved
        bayes_pairwise model, damaged or tampered settings, or made by a different model class.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "missing.nc")
    >>> load_model(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayes_pairwise.pymc_models.io.ModelFileError: no such file: ...missing.nc
    """
    path = Path(path)
    idata = _read(path)
    try:
        return _restore(path, idata, expected)
    except ModelFileError:
        raise
    except Exception as exc:  # tampered attributes: bad JSON, missing keys, wrong shapes, …
        msg = " ".join(str(exc).split()) or "no detail"
        raise ModelFileError(
            f"{path} is a damaged or altered model file ({type(exc).__name__}: {msg})"
        ) from exc


def _restore(
    path: Path, idata: az.InferenceData, expected: type[BayesianPairwiseModel] | None
) -> BayesianPairwiseModel:
    """Rebuild the estimator from a read file (any failure is a damaged file)."""
    attrs = idata.posterior.attrs if "posterior" in idata.groups() else {}
    missing = [k for k in (ATTR_MODEL, ATTR_SPEC, ATTR_SETTINGS) if k not in attrs]
    if missing:
        raise ModelFileError(
            f"{path} is not a saved bayes_pairwise model (posterior attributes {missing} missing)"
        )
    cls_name = str(attrs[ATTR_MODEL])
    registry = _registry()
    if cls_name not in registry:
        raise ModelFileError(f"{path} holds an unknown model class {cls_name!r}")
    cls = registry[cls_name]
    if expected is not None and cls is not expected:
        raise ModelFileError(
            f"{path} holds a {cls_name} fit (model {attrs[ATTR_SPEC]!r}), not a "
            f"{expected.__name__}: load it with load_model(path)"
        )
    settings = json.loads(str(attrs[ATTR_SETTINGS]))
    model = cls(**settings["params"])
    stored = getattr(cls, "data_from_idata", None)  # a model of its own data type (rankings)
    data = stored(idata, settings) if stored is not None else _data_from_idata(idata, settings)
    model.model_ = model._build(data, settings["priors"], settings["likelihood"])
    model.idata_ = idata
    model.method_ = settings["method"]
    model.random_seed_ = settings["random_seed"]
    model.settings_ = settings
    model.design_warnings_ = list(settings.get("design_warnings", []))
    model.items_ = tuple(data.items)
    model.judges_ = tuple(data.judges)
    model.n_comparisons_ = int(settings.get("data", {}).get("n_comparisons", data.n_comparisons))
    model.file_version_ = str(attrs.get(ATTR_VERSION, ""))
    if "covariate_scale" in idata.constant_data:
        names = [str(v) for v in idata.constant_data["covariate_scale"].coords["covariate"].values]
        idx = pd.Index(names, name="covariate")
        model.covariates_ = tuple(names)
        model.covariate_means_ = pd.Series(
            np.asarray(idata.constant_data["covariate_mean"]), index=idx
        )
        model.covariate_scales_ = pd.Series(
            np.asarray(idata.constant_data["covariate_scale"]), index=idx
        )
    elif cls_name == "BiasedBradleyTerry":
        model.covariates_ = ()
        model.covariate_means_ = pd.Series(dtype=float)
        model.covariate_scales_ = pd.Series(dtype=float)
    if model.file_version_ and model.file_version_ != __version__:
        import warnings

        warnings.warn(
            f"{path} was written by bayes_pairwise {model.file_version_}; this is {__version__}",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    return model
