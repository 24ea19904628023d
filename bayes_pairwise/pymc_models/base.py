"""Shared machinery of the PyMC models: settings, priors, strengths, fitting, summaries.

Every model class follows scikit-learn conventions: ``__init__`` stores its settings unchanged
(and does nothing else), ``fit(data)`` returns ``self``, learned attributes end in ``_`` and
using them before ``fit`` raises :class:`~bayes_pairwise.errors.NotFittedError`.

Sampling goes through the module-level function :func:`sample_nuts` (nutpie when installed,
PyMC's NUTS otherwise), so tests can replace it with a fake sampler.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt

if TYPE_CHECKING:
    from bayes_pairwise.pymc_models.direct import DirectSpec
    from bayes_pairwise.pymc_models.order_density import OrderDensity

    #: A log-density written out for nutpie: the strength models' or the hard-truth models'.
    WrittenOut = DirectSpec | OrderDensity

import contextlib

from bayes_pairwise._version import __version__
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import (
    ConvergenceWarning,
    DesignError,
    NotFittedError,
    PriorError,
    user_stacklevel,
)
from bayes_pairwise.model_specs import (
    JAX_SAMPLERS,
    LOW_RANK_MAX_DIM,
    SAMPLER_KEYS,
    ModelSpec,
    check_sampler_settings,
    load_spec,
    merge_priors,
    resolve_chains,
)

__all__ = ["BayesianPairwiseModel", "jax_chain_method", "nutpie_available", "sample_nuts"]

#: Attribute keys written into ``idata.posterior.attrs``.
ATTR_MODEL = "bayes_pairwise_model"
ATTR_SPEC = "bayes_pairwise_spec"
ATTR_VERSION = "bayes_pairwise_version"
ATTR_SETTINGS = "bayes_pairwise_settings"

_METHODS = ("nuts", "map", "laplace")

#: Largest pointwise log-likelihood (posterior draws × observation rows) a fit computes and
#: stores unless asked (``fit(log_likelihood=True)``): 2e8 values, 1.6 GB of float64. A
#: 1,000-item round robin (499,500 pair rows) with 2 × 1000 draws would need 8 GB. Above it the
#: fit says so and skips it; LOO (``compare_models``, the report's model comparison) then
#: names the reason.
LOG_LIKELIHOOD_MAX_VALUES = 200_000_000


def nutpie_available() -> bool:
    """True when :mod:`nutpie` can be imported."""
    try:
        import nutpie  # noqa: F401
    except ImportError:
        return False
    return True


def jax_chain_method(chains: int, backend: str, n_devices: int) -> str:
    """How PyMC's JAX samplers run ``chains`` chains: ``"parallel"`` (one per JAX device; on the
    CPU PyMC makes many host devices) unless an accelerator has fewer devices than chains, where
    ``"vectorized"`` runs them together on it — numpyro would otherwise draw them one after
    another.

    Examples
    --------
    >>> jax_chain_method(4, "gpu", 1), jax_chain_method(4, "cpu", 100)
    ('vectorized', 'parallel')
    """
    return "vectorized" if backend != "cpu" and n_devices < chains else "parallel"


def _resolve_sampler(name: str) -> str:
    if name == "auto":
        return "nutpie" if nutpie_available() else "pymc"
    if name == "nutpie" and not nutpie_available():
        raise ImportError("nuts_sampler='nutpie' but nutpie is not installed (pip install nutpie)")
    if name in JAX_SAMPLERS:
        import importlib.util

        missing = [m for m in ("jax", name) if importlib.util.find_spec(m) is None]
        if missing:
            raise ImportError(
                f"nuts_sampler={name!r} needs {' and '.join(missing)}: "
                f"pip install 'bayes-pairwise[jax]'" + (" blackjax" if name == "blackjax" else "")
            )
    return name


#: Compiled nutpie models by fingerprint (model class, priors, likelihood, data): refitting the
#: same model to the same data (another seed, more draws) skips the numba compilation.
_NUTPIE_CACHE: OrderedDict[str, Any] = OrderedDict()
_NUTPIE_CACHE_SIZE = 4


def _memory_key(cache_key: str, written_out: bool) -> str:
    """Key of a compiled nutpie model in ``_NUTPIE_CACHE``: the written-out and the graph form
    of the same model store different variables, so they are kept apart."""
    return f"{cache_key}|{'written out' if written_out else 'graph'}"


def _nutpie_compiled(
    model: pm.Model,
    cache_key: str | None,
    on_step: Callable[[str], None] | None = None,
    direct: WrittenOut | None = None,
) -> Any:
    from bayes_pairwise.pymc_models.nutpie_compile import (
        compile_direct_model,
        compile_nutpie_model,
    )

    if cache_key is not None:
        cache_key = _memory_key(cache_key, direct is not None)
    if cache_key is not None and cache_key in _NUTPIE_CACHE:
        _NUTPIE_CACHE.move_to_end(cache_key)
        return _NUTPIE_CACHE[cache_key]
    if direct is not None:
        if on_step is not None:
            on_step("log-density written out for nutpie (compiled once per machine: seconds)")
        compiled = compile_direct_model(direct, model)
    else:
        if on_step is not None:
            on_step(
                "compiling the model with numba for nutpie (seconds to a minute; loaded from "
                "the disk cache where a model was compiled on this machine before and its "
                "graph allows)"
            )
        compiled = compile_nutpie_model(model)  # callbacks cached on disk where the graph allows
    if cache_key is not None:
        _NUTPIE_CACHE[cache_key] = compiled
        while len(_NUTPIE_CACHE) > _NUTPIE_CACHE_SIZE:
            _NUTPIE_CACHE.popitem(last=False)
    return compiled


def _sample_nutpie(
    model: pm.Model,
    *,
    draws: int,
    tune: int,
    chains: int,
    target_accept: float,
    random_seed: int,
    progress: bool,
    cache_key: str | None,
    mass_matrix: str = "diag",
    on_step: Callable[[str], None] | None = None,
    direct: WrittenOut | None = None,
    on_progress: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> az.InferenceData:
    import nutpie
    from pymc.backends.arviz import (
        coords_and_dims_for_inferencedata,
        dict_to_dataset,
        find_constants,
        find_observations,
    )

    compiled = _nutpie_compiled(model, cache_key, on_step, direct)
    if on_step is not None:
        on_step(f"sampling: NUTS (nutpie), {chains} chains × ({tune} tune + {draws} draws)")
    kw = {
        "save_warmup": False,
        "low_rank_modified_mass_matrix": mass_matrix == "low_rank",
        **kwargs,
    }
    compiled = compiled.with_transform_adapt() if kw.pop("transform_adapt", False) else compiled
    # no progress bar (piped, or not asked for) but someone listening: a line every few seconds
    lines = on_progress is not None and not progress and "blocking" not in kw
    idata = nutpie.sample(
        compiled,
        draws=draws,
        tune=tune,
        chains=chains,
        seed=random_seed,
        progress_bar=progress,
        target_accept=target_accept,
        **({"blocking": False} if lines else {}),
        **kw,
    )
    if lines:
        from bayes_pairwise.progress import wait_reporting

        idata = wait_reporting(idata, on_progress, draws=draws, tune=tune, chains=chains)
    coords, dims = coords_and_dims_for_inferencedata(model)
    if direct is not None:
        idata.posterior = _direct_posterior(direct, idata.posterior, model, coords, dims)
    groups = {
        "constant_data": find_constants(model),
        "observed_data": find_observations(model),
    }
    idata.add_groups(
        {
            name: dict_to_dataset(values, library=pm, coords=coords, dims=dims, default_dims=[])
            for name, values in groups.items()
        },
        coords=coords,
        dims=dims,
    )
    return idata


def _direct_posterior(
    spec: WrittenOut, posterior: Any, model: pm.Model, coords: Any, dims: Any
) -> Any:
    """The model's variables from the unconstrained draws of the written-out log-density."""
    from pymc.backends.arviz import dict_to_dataset

    values = spec.constrained({n: posterior[n].values for n in spec.names})
    expected = _posterior_names(model)
    if sorted(values) != sorted(expected):  # pragma: no cover - tests/test_direct.py
        raise RuntimeError(
            f"the written-out log-density gives {sorted(values)}, the model has {sorted(expected)}"
        )
    out = dict_to_dataset({n: values[n] for n in expected}, library=pm, coords=coords, dims=dims)
    out.attrs.update(posterior.attrs)
    return out


def _direct_log_likelihood(
    spec: WrittenOut, idata: az.InferenceData, model: pm.Model, observed: str
) -> Any:
    """The pointwise log-likelihood group (one value per pair row and draw), as
    :func:`pymc.compute_log_likelihood` would store it."""
    from pymc.backends.arviz import coords_and_dims_for_inferencedata, dict_to_dataset

    post = idata.posterior
    values = spec.pointwise({n: post[n].values for n in post.data_vars})
    coords, dims = coords_and_dims_for_inferencedata(model)
    coords = {**coords, "chain": post["chain"].values, "draw": post["draw"].values}
    return dict_to_dataset(
        {observed: values},
        library=pm,
        coords=coords,
        dims={observed: list(dims[observed][:1])},
    )


def sample_nuts(
    model: pm.Model,
    *,
    draws: int,
    tune: int,
    chains: int,
    target_accept: float,
    random_seed: int,
    nuts_sampler: str = "auto",
    progress: bool = False,
    cache_key: str | None = None,
    mass_matrix: str = "diag",
    on_step: Callable[[str], None] | None = None,
    direct: WrittenOut | None = None,
    on_progress: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> az.InferenceData:
    """Run NUTS on ``model`` (nutpie when installed and asked for, PyMC's NUTS otherwise).

    This is the single sampling call of the package: tests replace it (``monkeypatch``) with a
    fake sampler that returns a trace of the right shape.

    Parameters
    ----------
    model : pymc.Model
    draws, tune, chains : int
    target_accept : float
    random_seed : int
        The same seed gives the same draws.
    nuts_sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}
    progress : bool
    cache_key : str, optional
        Fingerprint of the model and its data: a nutpie model compiled for the same key in this
        process is reused.
    mass_matrix : {"diag", "low_rank"}
        nutpie's mass-matrix adaptation: diagonal, or diagonal plus a low-rank correction
        (``low_rank_modified_mass_matrix``). PyMC's NUTS adapts a diagonal one either way.
    on_step : callable, optional
        Called with a line naming each phase as it starts (compiling, sampling), so that a
        long compile is not a silent wait.
    direct : DirectSpec or OrderDensity, optional
        The model's log-density written out (:mod:`bayes_pairwise.pymc_models.direct`,
        :mod:`bayes_pairwise.pymc_models.order_density`): nutpie
        samples it instead of a compile of ``model``'s graph (the same density; no per-model
        compile). Ignored by PyMC's NUTS.
    on_progress : callable, optional
        Without a progress bar (``progress=False``), nutpie's run reports a line every few
        seconds to it: draws so far, divergences so far, time left
        (:func:`bayes_pairwise.progress.wait_reporting`). For stderr that is not a terminal.
    **kwargs
        Passed to :func:`nutpie.sample` or :func:`pymc.sample`.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` (constrained free variables and deterministics), ``sample_stats``,
        ``observed_data`` and ``constant_data``.
    """
    sampler = _resolve_sampler(nuts_sampler)
    if sampler == "nutpie":
        return _sample_nutpie(
            model,
            draws=draws,
            tune=tune,
            chains=chains,
            target_accept=target_accept,
            random_seed=random_seed,
            progress=progress,
            cache_key=cache_key,
            mass_matrix=mass_matrix,
            on_step=on_step,
            direct=direct,
            on_progress=on_progress,
            **kwargs,
        )
    if on_step is not None:
        on_step(
            f"compiling and sampling: NUTS (PyMC), {chains} chains × ({tune} tune + {draws} draws)"
        )
    kw: dict[str, Any] = dict(kwargs)
    if sampler in JAX_SAMPLERS:  # PyMC's JAX path: one process, chains on the JAX devices
        import jax
        import pymc.sampling.jax  # noqa: F401  (sets XLA's host device count before JAX starts)

        kw["nuts_sampler"] = sampler
        kw["nuts_sampler_kwargs"] = {
            "chain_method": jax_chain_method(chains, jax.default_backend(), jax.device_count()),
            **dict(kw.get("nuts_sampler_kwargs") or {}),
        }
    else:
        kw.setdefault("cores", min(chains, os.cpu_count() or 1))
    kw.setdefault("idata_kwargs", {"log_likelihood": False})
    kw.setdefault("compute_convergence_checks", False)
    return pm.sample(
        draws=draws,
        tune=tune,
        chains=chains,
        target_accept=target_accept,
        random_seed=random_seed,
        progressbar=progress,
        model=model,
        **kw,
    )


def model_fingerprint(model: pm.Model, settings: Mapping[str, Any]) -> str:
    """SHA-256 of the settings and of the model's observed and constant data."""
    from pymc.backends.arviz import find_constants, find_observations

    h = hashlib.sha256(to_json(settings).encode())
    h.update(str(sorted(model.named_vars)).encode())
    for group in (find_observations(model), find_constants(model)):
        for name in sorted(group):
            arr = np.ascontiguousarray(np.asarray(group[name]))
            h.update(f"{name}:{arr.dtype}:{arr.shape}".encode())
            h.update(arr.tobytes())
    return h.hexdigest()


def make_prior(name: str, table: Mapping[str, Any], kind: str, dims: Any = None) -> Any:
    """Create the random variable ``name`` from a validated prior table (inside a model).

    For ``kind="half_rate"`` a ``Beta(alpha, beta)`` prior is placed on ``name / 0.5`` (a free
    variable ``<name>_unit``), so the rate stays in (0, 0.5).
    """
    dist = table["dist"]
    params = {k: v for k, v in table.items() if k != "dist"}
    if kind == "half_rate" and dist == "Beta":
        unit = pm.Beta(f"{name}_unit", **params, dims=dims)
        return pm.Deterministic(name, 0.5 * unit, dims=dims)
    if dist == "Dirichlet":
        params["a"] = np.asarray(params["a"], dtype=float)
    try:
        return getattr(pm, dist)(name, **params, dims=dims)
    except (TypeError, ValueError) as exc:  # pragma: no cover - validate_prior catches these
        raise PriorError(f"prior {name!r}: cannot build {dist}({params}): {exc}") from exc


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple | set):
        return list(o)
    return str(o)


def to_json(obj: Any) -> str:
    """JSON text of settings (NumPy scalars and tuples allowed)."""
    return json.dumps(obj, default=_json_default, sort_keys=True)


class BayesianPairwiseModel:
    """Base class of :class:`UniformError`, :class:`PositionalBias` and
    :class:`BiasedBradleyTerry`.

    Parameters
    ----------
    spec : str or path, optional
        Model spec name (see :func:`available_models`) or a TOML file of the same layout; the
        class's default spec when omitted.
    priors : dict, optional
        Prior overrides by parameter name, e.g. ``{"sigma_s": {"sigma": 5.0}}`` or
        ``{"eps": {"dist": "Beta", "alpha": 2, "beta": 8}}``. Precedence: these > the spec >
        ``models/_base.toml``. Unknown names raise :class:`~bayes_pairwise.errors.PriorError`.
    likelihood : str, optional
        Overrides the spec's likelihood.
    draws, tune : int, optional
        NUTS settings (default from the spec: 1000, 1000).
    chains : int or "auto", optional
        Default from the spec: ``"auto"``, one chain per CPU core, 2 to 4
        (:func:`~bayes_pairwise.model_specs.resolve_chains`); the fit's ``settings_`` store the
        number that ran.
    target_accept : float, optional
    nuts_sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}, optional
        ``"auto"`` uses nutpie when installed. ``"numpyro"``/``"blackjax"``: PyMC's JAX
        samplers (``pip install 'bayes-pairwise[jax]'``) on the model's graph with the
        elementwise likelihood, the planned path for logs of millions of verdicts and GPUs
        (the uniform and positional models and their hierarchical variants; the
        pair-difficulty mixtures and the biased Bradley–Terry model evaluate kernels JAX
        cannot compile).
    sampler_kwargs : dict, optional
        Extra keyword arguments for :func:`nutpie.sample` (when nutpie samples) or
        :func:`pymc.sample`.
    map_kwargs : dict, optional
        Extra keyword arguments for :func:`pymc.find_MAP` (``method``, ``maxeval`` …).
    """

    #: Default spec name of the class.
    default_spec: ClassVar[str] = ""
    #: Likelihoods the class implements.
    likelihoods: ClassVar[tuple[str, ...]] = ()
    #: Name of the observed variable.
    observed_name: ClassVar[str] = ""
    #: Error parameters reported by :meth:`summary` (besides ``strength``).
    reported: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        *,
        spec: str | os.PathLike[str] | None = None,
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
        self.spec = spec
        self.priors = priors
        self.likelihood = likelihood
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.target_accept = target_accept
        self.nuts_sampler = nuts_sampler
        self.sampler_kwargs = sampler_kwargs
        self.map_kwargs = map_kwargs

    # ------------------------------------------------------------------ settings
    @classmethod
    def _param_names(cls) -> list[str]:
        import inspect

        names: list[str] = []
        for klass in reversed(cls.__mro__):
            init = klass.__dict__.get("__init__")
            if init is None or klass is object:
                continue
            for p in inspect.signature(init).parameters.values():
                if p.name != "self" and p.kind is p.KEYWORD_ONLY and p.name not in names:
                    names.append(p.name)
        return names

    def get_params(self) -> dict[str, Any]:
        """The constructor settings, as given (scikit-learn convention).

        Examples
        --------
        >>> from bayes_pairwise.pymc_models import UniformError
        >>> UniformError(draws=500).get_params()["draws"]
        500
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> BayesianPairwiseModel:
        """Change constructor settings; returns ``self``."""
        valid = self._param_names()
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"unknown setting {k!r} for {type(self).__name__}; {valid}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        import inspect

        defaults: dict[str, Any] = {}
        for klass in type(self).__mro__:  # a mixin's __init__ passes the rest on (**kwargs)
            init = klass.__dict__.get("__init__")
            if init is None or klass is object:
                continue
            for k, p in inspect.signature(init).parameters.items():
                if p.default is not inspect.Parameter.empty:
                    defaults.setdefault(k, p.default)
        given = {
            k: v
            for k, v in self.get_params().items()
            if v is not None and not (k in defaults and _same(v, defaults[k]))
        }
        args = ", ".join(f"{k}={v!r}" for k, v in given.items())
        return f"{type(self).__name__}({args})"

    def get_spec(self) -> ModelSpec:
        """The model spec the settings start from (merged with ``models/_base.toml``)."""
        spec = load_spec(self.spec if self.spec is not None else self.default_spec)
        if spec.model_class != type(self).__name__:
            raise PriorError(
                f"spec {spec.name!r} is for {spec.model_class}, not {type(self).__name__}"
            )
        return spec

    @property
    def prior_kinds(self) -> dict[str, str]:
        """Prior names of this model and the kind of distribution each may take."""
        raise NotImplementedError

    def resolved_likelihood(self) -> str:
        """The likelihood in effect: the user's, else the spec's."""
        lik = self.likelihood if self.likelihood is not None else self.get_spec().likelihood
        if lik not in self.likelihoods:
            raise PriorError(
                f"{type(self).__name__} has no likelihood {lik!r}; choose from {self.likelihoods}"
            )
        return lik

    def resolved_priors(self) -> dict[str, dict[str, Any]]:
        """Priors in effect (user > spec > package defaults), validated.

        Raises
        ------
        PriorError
            Unknown prior name, disallowed distribution or malformed parameters.

        Examples
        --------
        >>> from bayes_pairwise.pymc_models import UniformError
        >>> priors = UniformError(priors={"sigma_s": {"sigma": 3.0}}).resolved_priors()
        >>> priors["sigma_s"], priors["eps"]["dist"]
        ({'dist': 'HalfNormal', 'sigma': 3.0}, 'Uniform')
        """
        return merge_priors(self.get_spec().priors, self.priors, self.prior_kinds)

    def _density_params(self) -> dict[str, Any]:
        """The settings that are not the sampler's (what the compiled model depends on)."""
        skip = {*SAMPLER_KEYS, "sampler_kwargs", "map_kwargs", "spec", "priors", "likelihood"}
        return {k: v for k, v in self.get_params().items() if k not in skip}

    def resolved_sampler(self) -> dict[str, Any]:
        """Sampler settings in effect (user > spec > package defaults)."""
        settings = dict(self.get_spec().sampler)
        for key in ("draws", "tune", "chains", "target_accept", "nuts_sampler"):
            value = getattr(self, key)
            if value is not None:
                settings[key] = value
        check_sampler_settings(f"{type(self).__name__} settings", settings)
        return settings

    def resolved_map(self) -> dict[str, Any]:
        """:func:`pymc.find_MAP` settings in effect (user > spec > package defaults)."""
        return {**self.get_spec().map, **dict(self.map_kwargs or {})}

    @property
    def name(self) -> str:
        """Name of the model variant (``"uniform"``, ``"positional_hierarchical"`` …)."""
        self.resolved_likelihood()  # one likelihood per class: this only checks the setting
        return self.get_spec().name

    # ------------------------------------------------------------------ model building
    def build_model(self, data: Comparisons) -> pm.Model:
        """The :class:`pymc.Model` for ``data`` with the resolved priors (not fitted).

        Use it to inspect or extend the model (add variables inside ``with model:``); the
        fitted model is also available as ``model_`` after :meth:`fit`.
        """
        self._check_data(data)
        return self._build(data, self.resolved_priors(), self.resolved_likelihood())

    def _check_data(self, data: Comparisons) -> None:
        if not isinstance(data, Comparisons):
            raise TypeError(
                f"{type(self).__name__}.fit expects a Comparisons object "
                f"(bayes_pairwise.load_comparisons), got {type(data).__name__}"
            )

    def _build(self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str):
        raise NotImplementedError

    def _design_warnings(self, data: Comparisons) -> list[str]:
        return []

    def _strength_block(self, data: Comparisons, prior: Mapping[str, Any]) -> Any:
        """strength = sigma_s · z, z ~ ZeroSumNormal(1) over items (per context).

        With several contexts the strengths of each context sum to zero: z is a standard normal
        vector centred within each context, which has exactly the ZeroSumNormal(1) distribution
        per context (METHODS §1, §7).
        """
        pm.Data("item_context", np.asarray(data.item_context, dtype=np.int64), dims="item")
        sigma_s = make_prior("sigma_s", prior, "positive")
        if data.n_contexts <= 1:
            z = pm.ZeroSumNormal("z", sigma=1.0, dims="item")
        else:
            ctx = np.asarray(data.item_context, dtype=np.int64)
            counts = np.bincount(ctx, minlength=data.n_contexts).astype(float)
            z_raw = pm.Normal("z", 0.0, 1.0, dims="item")
            sums = pt.zeros(data.n_contexts)
            sums = pt.inc_subtensor(sums[ctx], z_raw)
            z = z_raw - (sums / np.maximum(counts, 1.0))[ctx]
        return pm.Deterministic("strength", sigma_s * z, dims="item")

    # ------------------------------------------------------------------ fitting
    def _step_lines(
        self, on_step: Callable[[str], None] | None, progress: bool
    ) -> Callable[[str], None] | None:
        """Where a fit's phase lines go: ``on_step`` when given, else with ``progress`` a line
        on stderr prefixed with the model's name, else nowhere."""
        if on_step is None and progress:
            from bayes_pairwise.progress import Steps

            return Steps(True, prefix=self.name)
        return on_step

    def fit(
        self,
        data: Comparisons,
        *,
        method: str = "nuts",
        random_seed: int | np.random.Generator | None = None,
        progress: bool = False,
        on_step: Callable[[str], None] | None = None,
        log_likelihood: bool | None = None,
        on_progress: Callable[[str], None] | None = None,
    ) -> BayesianPairwiseModel:
        """Fit the model to a comparison log.

        Parameters
        ----------
        data : Comparisons
            From :func:`bayes_pairwise.load_comparisons` (or a simulation's ``.data``). A log
            with per-row weights (``load_comparisons(weights=…)``) is fitted with a weighted
            likelihood: a verdict of weight w counts w times (integer weights give exactly the
            fit of the log with each row repeated w times), so intervals are as narrow as the
            weights' sum makes them; the ``weighted_log`` caveat says so, and posterior
            predictive checks are refused.
        method : {"nuts", "map", "laplace"}
            Full posterior with NUTS; the posterior mode (:func:`pymc.find_MAP`) stored as a
            one-chain, one-draw posterior with the same dims and coords; or the fast,
            approximate path: a Laplace (Gaussian) approximation in the unconstrained space,
            ``draws`` draws in one chain (:mod:`bayes_pairwise.pymc_models.laplace`), whose
            quality is measured on every fit (PSIS ``k̂``, stored as ``laplace_pareto_k`` in
            ``sample_stats.attrs`` and said in the diagnostics' messages; a
            ``ConvergenceWarning`` when no clean mode is found).
        random_seed : int or Generator, optional
            Same seed, same draws. When omitted a seed is drawn and kept in ``random_seed_``.
        progress : bool
            Show the sampler's progress bar, and a line on stderr as each phase starts
            (compiling, sampling, the pointwise log-likelihood) unless ``on_step`` is given.
        on_step : callable, optional
            Called with a line naming each phase as it starts, e.g. a
            :class:`bayes_pairwise.progress.Steps` (the cross-check's progress lines). The
            first fit of a new log compiles for seconds to a minute before the first draw.
        log_likelihood : bool, optional
            Compute and store the pointwise log-likelihood (``idata_.log_likelihood``, for
            LOO). Default: yes, unless draws × observation rows exceeds
            :data:`LOG_LIKELIHOOD_MAX_VALUES` (a warning says so, and ``settings_`` records
            why); ``True`` computes it whatever its size, ``False`` never.
        on_progress : callable, optional
            NUTS without a progress bar (``progress=False``, e.g. stderr piped to a log):
            called every few seconds with a line of draws so far, divergences so far and the
            time left (nutpie; :func:`bayes_pairwise.progress.wait_reporting`).

        Returns
        -------
        self

        Raises
        ------
        DesignError
            The data cannot support the model (e.g. ties counted half for a binomial model).
        PriorError
            Unknown or malformed prior settings.

        Warns
        -----
        DesignWarning
            Before sampling, when the data cannot inform a parameter.
        """
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
        priors = self.resolved_priors()
        likelihood = self.resolved_likelihood()
        sampler = self.resolved_sampler()
        map_settings = self.resolved_map()
        self._check_data(data)
        seed = self._seed(random_seed)
        design = self._design_warnings(data)
        if method == "nuts" and _resolve_sampler(sampler["nuts_sampler"]) in JAX_SAMPLERS:
            from bayes_pairwise.pymc_models.likelihoods import elementwise_likelihood

            with elementwise_likelihood():  # JAX cannot compile the fused Op's numba kernel
                model = self._build(data, priors, likelihood)
        else:
            model = self._build(data, priors, likelihood)
        frozen = _frozen(model)  # data as constants: faster compiled functions
        log_density = "graph"  # how the sampler evaluated the log-density (settings_)
        direct, why = self._direct(data, priors, likelihood)
        on_step = self._step_lines(on_step, progress)
        if method == "nuts":
            # what ran, not "auto": the settings stored with the fit say which adaptation
            # (nutpie adapts the mass matrix asked for; PyMC's and the JAX samplers a diagonal)
            nutpie = _resolve_sampler(sampler["nuts_sampler"]) == "nutpie"
            sampler = {
                **sampler,
                "chains": resolve_chains(sampler["chains"]),
                "mass_matrix": _mass_matrix(sampler.get("mass_matrix", "diag"), frozen)
                if nutpie
                else "diag",
            }
            key = model_fingerprint(
                frozen,
                {
                    "class": type(self).__name__,
                    "priors": priors,
                    "lik": likelihood,
                    # every setting that shapes the density: two fits whose likelihood differs
                    # only inside a CustomDist's logp (tie_dispersion by context or by pair)
                    # have the same variables and data, and must not share a compiled model
                    "model": self._density_params(),
                },
            )
            if _resolve_sampler(sampler["nuts_sampler"]) == "nutpie":
                log_density = "written out" if direct is not None else f"graph ({why})"
            idata = sample_nuts(
                frozen,
                draws=sampler["draws"],
                tune=sampler["tune"],
                chains=sampler["chains"],
                target_accept=sampler["target_accept"],
                random_seed=seed,
                nuts_sampler=sampler["nuts_sampler"],
                progress=progress,
                cache_key=key,
                mass_matrix=sampler["mass_matrix"],
                on_step=on_step,
                direct=direct,
                **({"on_progress": on_progress} if on_progress is not None else {}),
                **dict(self.sampler_kwargs or {}),
            )
            idata = _tidy_posterior(idata, model)
        elif method == "laplace":
            if on_step is not None:
                on_step("Laplace approximation: the posterior mode and its Hessian")
            idata = _laplace_idata(model, frozen, seed, int(sampler["draws"]), direct)
            log_density = "written out" if direct is not None else f"graph ({why})"
        else:
            if on_step is not None:
                on_step("MAP: the posterior mode")
            idata = _map_idata(model, frozen, seed, map_settings, direct)
            log_density = "written out" if direct is not None else f"graph ({why})"
        self._derived_posterior(idata, data)
        loglik = _log_likelihood_plan(idata, frozen, self.observed_name, log_likelihood)
        if loglik == "stored":
            if on_step is not None:
                on_step("pointwise log-likelihood (for LOO)")
            if direct is not None:  # the same kernel, without compiling the model's graph
                idata.add_groups(
                    log_likelihood=_direct_log_likelihood(direct, idata, model, self.observed_name)
                )
            else:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", category=UserWarning)
                    pm.compute_log_likelihood(
                        idata, model=frozen, extend_inferencedata=True, progressbar=False
                    )
        elif log_likelihood is None:
            if on_step is not None:
                on_step(f"pointwise log-likelihood {loglik}")
            warnings.warn(
                f"{self.name}: pointwise log-likelihood {loglik}",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        settings = {
            "model": self.name,
            "class": type(self).__name__,
            "method": method,
            "random_seed": seed,
            "likelihood": likelihood,
            "priors": priors,
            "sampler": (
                sampler
                if method == "nuts"
                else {"draws": int(sampler["draws"])}
                if method == "laplace"
                else {}
            ),
            "map": map_settings if method == "map" else {},
            "params": self.get_params(),
            "data": data.settings(),
            "layout": {"item_names": list(data.item_names), "contexts": list(data.contexts)},
            "design_warnings": design,
            "log_likelihood": loglik,
            "log_density": log_density,
            **self._extra_settings(),
        }
        _stamp(idata, type(self).__name__, self.name, settings)
        self.model_ = model
        self.idata_ = idata
        self.method_ = method
        self.random_seed_ = seed
        self.settings_ = settings
        self.design_warnings_ = design
        self.items_ = tuple(data.items)
        self.judges_ = tuple(data.judges)
        self.n_comparisons_ = int(data.n_comparisons)
        return self

    def _extra_settings(self) -> dict[str, Any]:
        return {}

    def _derived_posterior(self, idata: az.InferenceData, data: Comparisons) -> None:
        """Add quantities computed from the fitted draws to ``idata.posterior`` (none here;
        the order models add the judge's expected tie share, see there)."""

    def written_out_density(self, data: Comparisons) -> tuple[WrittenOut | None, str]:
        """The model's log-density written out for nutpie (no graph to compile), or None and
        why not (:mod:`bayes_pairwise.pymc_models.direct`).

        NUTS with nutpie samples it when available; ``settings_["log_density"]`` says which
        form a fit used.

        Examples
        --------
        >>> import bayes_pairwise as bp
        >>> from bayes_pairwise.pymc_models import UniformError
        >>> sim = bp.simulate_round_robin(6, eps=0.1, random_seed=0)
        >>> spec, why = UniformError().written_out_density(sim.data)
        >>> spec.n_dim, why
        (7, '')
        >>> UniformError(priors={"sigma_s": {"dist": "Exponential", "lam": 0.1}}
        ...              ).written_out_density(sim.data)[1]
        'sigma_s prior Exponential (written out: HalfNormal)'
        """
        return self._direct(data, self.resolved_priors(), self.resolved_likelihood())

    def _direct(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> tuple[WrittenOut | None, str]:
        return None, f"no written-out log-density for {type(self).__name__}"

    @staticmethod
    def _seed(random_seed: int | np.random.Generator | None) -> int:
        if isinstance(random_seed, np.random.Generator):
            return int(random_seed.integers(2**31 - 1))
        if random_seed is None:
            return int(np.random.default_rng().integers(2**31 - 1))
        return int(random_seed)

    def sample_posterior_predictive(
        self,
        *,
        random_seed: int | np.random.Generator | None = None,
        progress: bool = False,
        point_draws: int = 500,
    ) -> az.InferenceData:
        """Add replicated observations to ``idata_`` (group ``posterior_predictive``).

        For the error models the replicated variable is ``wins`` (dims ``pair``, ``count`` =
        ``n1``, ``n2``); for the biased BT model it is ``first_wins`` (dim ``verdict``). For a
        MAP fit (one draw) ``point_draws`` replicates are drawn at the point estimate (a plug-in
        predictive check).

        Parameters
        ----------
        random_seed : int or Generator, optional
        progress : bool
        point_draws : int
            Replicates for a one-draw (MAP) posterior.

        Returns
        -------
        arviz.InferenceData
            ``idata_``, extended in place.
        """
        self._check_replicable()
        seed = self._seed(random_seed)
        trace = self.idata_
        n = trace.posterior.sizes["chain"] * trace.posterior.sizes["draw"]
        if n == 1:
            post = trace.posterior.isel(draw=np.zeros(int(point_draws), dtype=int))
            post = post.assign_coords(draw=np.arange(int(point_draws)))
            trace = az.InferenceData(posterior=post)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning)
            pp = pm.sample_posterior_predictive(
                trace,
                model=self.model_,
                var_names=[self.observed_name],
                random_seed=seed,
                extend_inferencedata=False,
                progressbar=progress,
            )
        group = pp.posterior_predictive
        group.attrs["random_seed"] = seed
        group.attrs["plug_in"] = int(n == 1)
        if "posterior_predictive" in self.idata_.groups():
            del self.idata_.posterior_predictive
        self.idata_.add_groups({"posterior_predictive": group})
        return self.idata_

    def _check_replicable(self) -> None:
        """Fitted, and to a log without weights: what replicated data need (every model's
        :meth:`sample_posterior_predictive` asks here)."""
        self._check_fitted()
        if self.settings_.get("data", {}).get("weighted"):
            raise DesignError(
                f"{type(self).__name__} was fitted to a log with per-row weights: its likelihood "
                "counts a verdict w times, which replicates cannot do (a draw is one verdict "
                "or none). Fit the log without weights= for posterior predictive checks."
            )

    # ------------------------------------------------------------------ results
    def _check_fitted(self) -> None:
        if not hasattr(self, "idata_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet: call fit(data) first"
            )

    def __getattr__(self, name: str) -> Any:
        # learned attributes (trailing underscore) raise NotFittedError before fit
        if name.endswith("_") and not name.startswith("_"):
            raise NotFittedError(
                f"{type(self).__name__}.{name} is not available: call fit(data) first"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def strengths_(self) -> pd.Series:
        """Posterior mean strength of every item (log-odds scale, centred per context)."""
        self._check_fitted()
        da = self.idata_.posterior["strength"].mean(("chain", "draw"))
        return pd.Series(
            np.asarray(da, dtype=float),
            index=pd.Index([str(v) for v in da.coords["item"].values], name="item"),
            name="strength",
        )

    @property
    def ranking_(self) -> tuple[str, ...]:
        """Item labels by posterior mean strength, strongest first."""
        s = self.strengths_
        order = np.argsort(-s.to_numpy(), kind="stable")
        return tuple(s.index[order])

    def summary(self, *, hdi_prob: float | None = None, strengths: bool = True) -> pd.DataFrame:
        """ArviZ summary of the reported parameters (error parameters, then strengths).

        ``hdi_prob`` defaults to :data:`bayes_pairwise.conventions.HDI_PROB`, read at call time.

        ``sigma_s`` and ``z`` are left out (σ_s is not identified under a hard truth); a MAP fit
        gives the mode in ``mean`` and NaN elsewhere. With one judge the error parameters are
        named ``eps``, ``eps_plus`` … instead of ``eps[judge]``.
        """
        from bayes_pairwise.pymc_models.diagnostics import parameter_summary

        self._check_fitted()
        return parameter_summary(self.idata_, self.reported_names(strengths), hdi_prob=hdi_prob)

    def reported_names(self, strengths: bool = True) -> list[str]:
        """Posterior variables presented as findings."""
        self._check_fitted()
        names = [v for v in self.reported if v in self.idata_.posterior]
        return [*names, "strength"] if strengths else names

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fitted model to NetCDF (idata + settings + package version), atomically.

        The file is written to a temporary in the same folder and renamed onto ``path`` once
        complete (:func:`bayes_pairwise.output.atomic_write`): an interrupted save leaves the
        previous file, never a truncated one. Read it back with
        :func:`bayes_pairwise.pymc_models.load_model`.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        OutputError
            The file cannot be written (missing folder, full disk, …).
        """
        from bayes_pairwise.output import atomic_write

        self._check_fitted()
        idata = self.idata_
        for key in (ATTR_MODEL, ATTR_SPEC, ATTR_VERSION, ATTR_SETTINGS):
            if key not in idata.posterior.attrs:
                raise NotFittedError(f"the model's idata_ lacks the attribute {key!r}")
        path = Path(path)
        atomic_write(path, lambda tmp: idata.to_netcdf(str(tmp), engine="h5netcdf"))
        return path

    def verdict_errors(self, data: Comparisons) -> pd.DataFrame:
        """Posterior probability that each verdict of ``data`` contradicts the latent truth.

        See :func:`bayes_pairwise.pymc_models.verdicts.verdict_error_probabilities`: one row per
        verdict (``row``, ``judge``, ``first``, ``second``, ``outcome``, ``p_error``), aligned
        with ``data``, the data the model was fitted to. Error models only.
        """
        from bayes_pairwise.pymc_models.verdicts import verdict_error_probabilities

        return verdict_error_probabilities(self, data)


def _same(a: Any, b: Any) -> bool:
    """``a == b`` for settings, False where the comparison is not a plain bool."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _n_unconstrained(model: pm.Model) -> int:
    """How many unconstrained parameters ``model`` has (the dimension NUTS samples in).

    Read from the value variables' static shapes on a frozen model, or from the free variables'
    static shapes and their transforms (a zero-sum or simplex transform drops one entry per
    axis it constrains; the elementwise ones keep the size). Only where neither is known is
    it counted on the initial point, whose compiled function costs 0.2 s, 0.6 s on a cold
    start, of a fit that needs nothing else from it.
    """
    from pymc.distributions.transforms import (
        Interval,
        LogOddsTransform,
        LogTransform,
        SimplexTransform,
        ZeroSumTransform,
    )
    from pytensor.tensor import get_underlying_scalar_constant_value
    from pytensor.tensor.exceptions import NotScalarConstantError

    shapes = [v.type.shape for v in model.value_vars]
    if not any(s is None for shape in shapes for s in shape):
        return int(sum(np.prod(shape, dtype=int) for shape in shapes))
    total = 0
    for rv in model.free_RVs:
        shape = list(rv.type.shape)
        dims = model.named_vars_to_dims.get(rv.name) or ()
        for axis, dim in enumerate(dims):  # a dim frozen to a constant length
            if axis < len(shape) and shape[axis] is None and dim in model.dim_lengths:
                with contextlib.suppress(NotScalarConstantError):
                    shape[axis] = int(get_underlying_scalar_constant_value(model.dim_lengths[dim]))
        transform = model.rvs_to_transforms.get(rv)
        if any(s is None for s in shape):
            break
        if isinstance(transform, ZeroSumTransform):
            for axis in transform.zerosum_axes:
                shape[axis] -= 1
        elif isinstance(transform, SimplexTransform):
            shape[-1] -= 1
        elif transform is not None and not isinstance(
            transform, (Interval, LogOddsTransform, LogTransform)
        ):
            break
        total += int(np.prod(shape, dtype=int))
    else:
        return total
    return int(sum(np.size(x) for x in model.initial_point().values()))


def _log_likelihood_plan(
    idata: az.InferenceData, model: pm.Model, observed: str, asked: bool | None
) -> str:
    """``"stored"``, or why the pointwise log-likelihood is skipped (recorded in the settings)."""
    if asked is False:
        return "not computed (fit(log_likelihood=False))"
    sizes = idata.posterior.sizes
    n_draws = int(sizes["chain"]) * int(sizes["draw"])
    obs = model.rvs_to_values[model[observed]]
    n_rows = int(np.shape(obs.data if hasattr(obs, "data") else obs.eval())[0])
    n_values = n_draws * n_rows
    if asked or n_values <= LOG_LIKELIHOOD_MAX_VALUES:
        return "stored"
    return (
        f"skipped: {n_draws:,} draws × {n_rows:,} observation rows = {n_values:,} values "
        f"({n_values * 8 / 1e9:.1f} GB), above LOG_LIKELIHOOD_MAX_VALUES = "
        f"{LOG_LIKELIHOOD_MAX_VALUES:,}; LOO is unavailable for this fit (refit with "
        "fit(log_likelihood=True) to store it anyway)"
    )


def _mass_matrix(setting: str, model: pm.Model) -> str:
    """Resolve ``mass_matrix = "auto"``: low-rank up to ``LOW_RANK_MAX_DIM`` parameters."""
    if setting != "auto":
        return setting
    return "low_rank" if _n_unconstrained(model) <= LOW_RANK_MAX_DIM else "diag"


def _frozen(model: pm.Model) -> pm.Model:
    """The model with data and dims frozen to constants (faster compiled logp)."""
    from pymc.model.transform.optimization import freeze_dims_and_data

    return freeze_dims_and_data(model)


def _model_coords_dims(model: pm.Model) -> tuple[dict[str, Any], dict[str, list[str]]]:
    coords = {k: list(v) if v is not None else None for k, v in model.coords.items()}
    dims = {k: list(v) for k, v in model.named_vars_to_dims.items()}
    return coords, dims


def _posterior_names(model: pm.Model) -> list[str]:
    return [v.name for v in model.free_RVs] + [v.name for v in model.deterministics]


def _tidy_posterior(idata: az.InferenceData, model: pm.Model) -> az.InferenceData:
    """Keep only the model's variables in the posterior and make sure dims/coords match."""
    keep = [n for n in _posterior_names(model) if n in idata.posterior]
    extra = [n for n in idata.posterior.data_vars if n not in keep]
    if extra:
        idata.posterior = idata.posterior.drop_vars(extra)
    for group in ("warmup_posterior", "warmup_sample_stats"):
        if group in idata.groups():
            delattr(idata, group)
    return idata


def find_map(
    model: pm.Model, *, seed: int, method: str = "L-BFGS-B", maxeval: int = 50000, **options: Any
) -> tuple[dict[str, np.ndarray], Any]:
    """Posterior mode of ``model`` (constrained-space density, as :func:`pymc.find_MAP`).

    One compiled function returns the log density, its gradient and every free and
    deterministic variable, so a fit compiles once (``pm.find_MAP`` compiles three times).

    Returns
    -------
    values : dict
        Constrained values of the free variables and deterministics at the mode.
    result : scipy.optimize.OptimizeResult
        ``fun`` is the negative log density at the mode.
    """
    import pytensor
    import pytensor.tensor as ptt

    from bayes_pairwise.pymc_models.laplace import maximise

    value_vars = model.value_vars
    logp = model.logp(jacobian=False)
    grads = pytensor.grad(logp, value_vars)
    names = _posterior_names(model)
    outs = [model[n] for n in names]
    replace = model.replace_rvs_by_values(outs)
    fn = model.compile_fn(
        [logp, ptt.concatenate([g.ravel() for g in grads]), *replace],
        inputs=value_vars,
        point_fn=False,
        on_unused_input="ignore",
    )
    start = model.initial_point(random_seed=seed)
    shapes = [np.shape(start[v.name]) for v in value_vars]
    sizes = [int(np.prod(sh)) for sh in shapes]
    splits = np.cumsum(sizes)[:-1]
    x0 = np.concatenate([np.ravel(start[v.name]) for v in value_vars])

    def unravel(x: np.ndarray) -> list[np.ndarray]:
        return [p.reshape(sh) for p, sh in zip(np.split(x, splits), shapes, strict=True)]

    def logp_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        out = fn(*unravel(x))
        return out[0], out[1]

    result = maximise(logp_grad, x0, method=method, maxeval=maxeval, **options)
    values = fn(*unravel(result.x))[2:]
    return {n: np.asarray(v) for n, v in zip(names, values, strict=True)}, result


def _datasets(
    model: pm.Model, groups: Mapping[str, Mapping[str, np.ndarray]], sample_dims: bool
) -> dict[str, Any]:
    """xarray Datasets with the model's dims and coords (faster than ``az.from_dict``)."""
    import xarray as xr

    coords, dims = _model_coords_dims(model)
    out = {}
    for group, values in groups.items():
        data_vars = {}
        for name, arr in values.items():
            vdims = list(dims.get(name, []))
            arr = np.asarray(arr)
            lead = ["chain", "draw"] if sample_dims else []
            extra = arr.ndim - len(lead) - len(vdims)
            vdims = lead + [f"{name}_dim_{k}" for k in range(extra)] + vdims
            data_vars[name] = (vdims, arr)
        ds = xr.Dataset(data_vars)
        used = {d for v in ds.data_vars.values() for d in v.dims}
        ds = ds.assign_coords(
            {d: np.asarray(c) for d, c in coords.items() if d in used and c is not None}
        )
        if sample_dims:
            ds = ds.assign_coords(
                chain=np.arange(ds.sizes["chain"]), draw=np.arange(ds.sizes["draw"])
            )
        ds.attrs.update(
            {
                "created_at": pd.Timestamp.now(tz="UTC").isoformat(),
                "arviz_version": az.__version__,
                "inference_library": "pymc",
                "inference_library_version": pm.__version__,
            }
        )
        out[group] = ds
    return out


def _idata_from_draws(
    model: pm.Model, posterior: Mapping[str, np.ndarray], sample_stats: Mapping[str, np.ndarray]
) -> az.InferenceData:
    """InferenceData of draws made outside a sampler (MAP, Laplace), with the model's dims,
    coords, observed and constant data, as a NUTS fit has them."""
    from pymc.backends.arviz import find_constants, find_observations

    groups = _datasets(
        model, {"posterior": posterior, "sample_stats": sample_stats}, sample_dims=True
    )
    groups.update(
        _datasets(
            model,
            {
                "observed_data": {k: np.asarray(v) for k, v in find_observations(model).items()},
                "constant_data": {k: np.asarray(v) for k, v in find_constants(model).items()},
            },
            sample_dims=False,
        )
    )
    return az.InferenceData(**groups)


def _map_idata(
    model: pm.Model,
    frozen: pm.Model,
    seed: int,
    settings: Mapping[str, Any],
    direct: WrittenOut | None = None,
) -> az.InferenceData:
    """Posterior mode as a one-chain, one-draw InferenceData (same dims/coords as NUTS); on the
    written-out density when there is one (the same objective and optimiser, nothing compiled).
    """
    kw = dict(settings)
    if direct is not None:
        from bayes_pairwise.pymc_models.direct import find_mode

        point, raw = find_mode(direct, _posterior_names(model), random_seed=seed, **kw)
    else:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning)
            point, raw = find_map(frozen, seed=seed, **kw)
    posterior = {n: v[None, None, ...] for n, v in point.items()}
    idata = _idata_from_draws(model, posterior, {"lp": np.array([[-float(raw.fun)]])})
    idata.sample_stats.attrs["map_method"] = str(kw.get("method", ""))
    idata.sample_stats.attrs["map_success"] = int(bool(getattr(raw, "success", True)))
    idata.sample_stats.attrs["map_message"] = str(getattr(raw, "message", ""))
    idata.sample_stats.attrs["map_n_evaluations"] = int(getattr(raw, "nfev", -1))
    return idata


def _laplace_idata(
    model: pm.Model, frozen: pm.Model, seed: int, draws: int, direct: WrittenOut | None = None
) -> az.InferenceData:
    """Laplace approximation as a one-chain posterior of ``draws`` draws (same dims/coords),
    on the written-out log-density when there is one (nothing to compile)."""
    from bayes_pairwise.pymc_models.direct import laplace
    from bayes_pairwise.pymc_models.laplace import laplace_approximation

    names = _posterior_names(model)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        if direct is not None:
            res = laplace(direct, names, random_seed=seed, draws=draws)
        else:
            res = laplace_approximation(frozen, names, random_seed=seed, draws=draws)
    posterior = {n: v[None, ...] for n, v in res.values.items()}
    stats = {"lp": res.logp[None, :], "laplace_log_weight": res.log_weights[None, :]}
    idata = _idata_from_draws(model, posterior, stats)
    attrs = idata.sample_stats.attrs
    attrs["approximation"] = "laplace"
    attrs["laplace_pareto_k"] = float(res.pareto_k)
    attrs["laplace_n_parameters"] = int(res.n_parameters)
    attrs["laplace_n_gradient_evaluations"] = int(res.n_gradient_evaluations)
    attrs["laplace_optimizer_message"] = res.optimizer_message
    if res.repaired or not res.converged:
        warnings.warn(
            "the Laplace approximation did not find a clean posterior mode ("
            + ("the Hessian there is not negative definite" if res.repaired else "")
            + ("; " if res.repaired and not res.converged else "")
            + ("" if res.converged else f"optimiser: {res.optimizer_message}")
            + "): its draws are not a posterior approximation; fit with method='nuts'",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )
    return idata


def _stamp(idata: az.InferenceData, cls_name: str, name: str, settings: dict[str, Any]) -> None:
    attrs = {
        ATTR_MODEL: cls_name,
        ATTR_SPEC: name,
        ATTR_VERSION: __version__,
        ATTR_SETTINGS: to_json(settings),
    }
    idata.posterior.attrs.update(attrs)
