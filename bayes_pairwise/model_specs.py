"""Declarative model specs: the single source of default priors and sampler settings.

Every named model variant is one TOML file in the top-level ``models/`` folder (shipped inside
the wheel as ``bayes_pairwise/_model_specs``). ``models/_base.toml`` holds the package-wide
defaults every spec inherits.

Precedence, for every prior and sampler setting:

1. what the user passes to the model class (``priors=``, ``draws=``, ``likelihood=`` …),
2. the named model spec (``models/<name>.toml``),
3. the package defaults (``models/_base.toml``).

A prior is a table ``{dist = "<PyMC distribution>", <parameter> = <value>, …}``. A user prior
that names the same distribution as the spec (or names none) updates the spec's parameters; one
that names another distribution replaces the spec's entry. Unknown prior names, distributions a
parameter cannot take, and malformed parameters raise :class:`~bayes_pairwise.errors.PriorError`.
"""

from __future__ import annotations

import copy
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from bayes_pairwise.errors import PriorError

__all__ = [
    "PRIOR_FAMILIES",
    "ModelSpec",
    "available_models",
    "load_spec",
    "merge_priors",
    "spec_dir",
]

#: Distributions a parameter of each kind may take, with their parameter names (required first).
PRIOR_FAMILIES: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    # kind: {dist: (required parameters, optional parameters)}
    "positive": {
        "HalfNormal": (("sigma",), ()),
        "HalfStudentT": (("nu", "sigma"), ()),
        "HalfCauchy": (("beta",), ()),
        "Exponential": (("lam",), ()),
        "Gamma": (("alpha", "beta"), ()),
        "LogNormal": (("mu", "sigma"), ()),
        "InverseGamma": (("alpha", "beta"), ()),
    },
    # an error rate on (0, 0.5); Beta is placed on eps / 0.5
    "half_rate": {
        "Uniform": (("lower", "upper"), ()),
        "Beta": (("alpha", "beta"), ()),
    },
    # a share on (0, 1), e.g. the correlation of ties within a context (tie_rho)
    "unit": {
        "Beta": (("alpha", "beta"), ()),
    },
    # (eps_plus, eps_minus, 1 - eps_plus - eps_minus)
    "simplex3": {
        "Dirichlet": (("a",), ()),
    },
    "real": {
        "Normal": (("mu", "sigma"), ()),
        "StudentT": (("nu", "mu", "sigma"), ()),
        "Laplace": (("mu", "b"), ()),
        "Cauchy": (("alpha", "beta"), ()),
        "Logistic": (("mu", "s"), ()),
    },
}

#: Sampler settings a spec (or the user) may set, with their types.
SAMPLER_KEYS: dict[str, type | tuple[type, ...]] = {
    "draws": int,
    "tune": int,
    "chains": (int, str),
    "target_accept": float,
    "nuts_sampler": str,
    "mass_matrix": str,
}
NUTS_SAMPLERS = ("auto", "nutpie", "pymc", "numpyro", "blackjax")
#: PyMC's JAX samplers (the optional extra ``jax``): the model's graph, with the elementwise
#: likelihood, compiled by JAX; for CPUs and GPUs (``docs/src/speed.md``).
JAX_SAMPLERS = ("numpyro", "blackjax")
#: Mass-matrix adaptations: nutpie's diagonal, its low-rank modified one (diagonal plus the few
#: directions where the posterior is correlated, e.g. the scale σ_s against every z), or "auto":
#: low-rank up to ``LOW_RANK_MAX_DIM`` unconstrained parameters, diagonal above. PyMC's NUTS
#: adapts a diagonal mass matrix whatever this says.
MASS_MATRICES = ("auto", "diag", "low_rank")
#: Largest number of unconstrained parameters for which ``mass_matrix = "auto"`` is low-rank.
#: Measured (benchmarks/bench_speed.py, two cores): uniform N = 100 (102 parameters), 4 × (1000
#: + 1000): 32.8 → 16.0 leapfrog steps per draw, min ESS of the strengths 443 → 1,720, wall
#: 30.8 → 26.8 s; positional on 950 contexts × 7 items (6,650 + parameters): the same 31 steps per
#: draw and 67 s instead of 42 s (the low-rank update costs more than it saves).
LOW_RANK_MAX_DIM = 1000
#: ``chains = "auto"``: one chain per CPU core, at least 2 (for R-hat) and at most 4.
AUTO_CHAINS = (2, 4)


def resolve_chains(chains: int | str, cpu_count: int | None = None) -> int:
    """Number of chains for a ``chains`` setting: an integer as is, ``"auto"`` one per core.

    ``"auto"`` gives one chain per CPU core, clipped to 2 … 4: chains run in parallel, so on two
    cores two chains of 1,000 draws take half the time of four, and the reported error rates
    still have an ESS far above 400 (positional model, 950 contexts × 7 items: ESS(ε₊) 710 from
    2 × 300 draws).

    Examples
    --------
    >>> resolve_chains(3), resolve_chains("auto", cpu_count=2), resolve_chains("auto", cpu_count=16)
    (3, 2, 4)
    """
    if chains != "auto":
        return int(chains)
    cores = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    return int(min(max(cores, AUTO_CHAINS[0]), AUTO_CHAINS[1]))


MAP_KEYS: dict[str, type | tuple[type, ...]] = {"method": str, "maxeval": int}

_PACKAGE_SPECS = "bayes_pairwise._model_specs"
_BASE = "_base"


def spec_dir() -> Path:
    """The folder the specs are read from.

    The wheel ships ``models/`` as ``bayes_pairwise/_model_specs`` (looked up with
    :mod:`importlib.resources`); an editable install falls back to the repository's ``models/``.

    Examples
    --------
    >>> (spec_dir() / "uniform.toml").is_file()
    True
    """
    try:
        # a namespace package (no __init__.py): files() may return a MultiplexedPath, whose
        # joinpath gives a real path
        base = resources.files(_PACKAGE_SPECS).joinpath(f"{_BASE}.toml")
        if base.is_file():
            return Path(str(base)).parent
    except (ModuleNotFoundError, TypeError):
        pass
    repo = Path(__file__).resolve().parents[1] / "models"
    if (repo / f"{_BASE}.toml").is_file():
        return repo
    raise FileNotFoundError(
        "no model specs found: neither the installed bayes_pairwise/_model_specs nor the "
        f"repository folder {repo} holds {_BASE}.toml"
    )


def available_models() -> list[str]:
    """Names of the model variants (one spec file each), sorted.

    Examples
    --------
    >>> available_models()  # doctest: +NORMALIZE_WHITESPACE
    ['biased_bt', 'noisy_plackett_luce', 'positional', 'positional_difficulty',
     'positional_hierarchical', 'positional_order', 'uniform', 'uniform_difficulty',
     'uniform_hierarchical', 'uniform_order']
    """
    return sorted(p.stem for p in spec_dir().glob("*.toml") if not p.stem.startswith("_"))


@dataclass(frozen=True)
class ModelSpec:
    """One model variant, merged with the package defaults.

    Attributes
    ----------
    name : str
        The variant's name (the spec file's stem).
    model_class : str
        Name of the class in :mod:`bayes_pairwise.pymc_models` that implements it.
    likelihood : str
        ``"marginal"`` (error models) or ``"bernoulli"`` (biased BT).
    priors : dict
        Parameter name → prior table (``dist`` plus its parameters).
    sampler : dict
        ``draws``, ``tune``, ``chains``, ``target_accept``, ``nuts_sampler``.
    own_sampler : dict
        The part of ``sampler`` the variant's own file sets.
    map : dict
        ``method`` and ``maxeval`` for :func:`pymc.find_MAP`.
    description : str
    path : str
        The file it was read from.
    """

    name: str
    model_class: str
    likelihood: str
    priors: dict[str, dict[str, Any]] = field(default_factory=dict)
    sampler: dict[str, Any] = field(default_factory=dict)
    map: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    path: str = ""
    #: The [sampler] settings the variant's own file sets (not the base file's): a command
    #: with cheaper defaults of its own (the report's) yields to these.
    own_sampler: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready copy."""
        return {
            "name": self.name,
            "class": self.model_class,
            "likelihood": self.likelihood,
            "priors": copy.deepcopy(self.priors),
            "sampler": dict(self.sampler),
            "map": dict(self.map),
            "description": self.description,
        }


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise PriorError(f"model spec {path} is not valid TOML: {exc}") from exc


def _check_section(where: str, table: Mapping[str, Any], keys: Mapping[str, Any]) -> None:
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise PriorError(f"{where}: unknown setting(s) {unknown}; known: {sorted(keys)}")
    for k, v in table.items():
        typ = keys[k]
        ok = isinstance(v, typ) and not isinstance(v, bool)
        if typ is float and isinstance(v, int) and not isinstance(v, bool):
            ok = True
        if not ok:
            raise PriorError(f"{where}: {k} must be {getattr(typ, '__name__', typ)}, got {v!r}")


def check_sampler_settings(where: str, settings: Mapping[str, Any]) -> None:
    """Validate sampler settings (types, positivity, known sampler names)."""
    _check_section(where, settings, SAMPLER_KEYS)
    if isinstance(settings.get("chains"), str) and settings["chains"] != "auto":
        raise PriorError(f"{where}: chains must be a positive integer or 'auto'")
    for k in ("draws", "chains"):
        if k in settings and not isinstance(settings[k], str) and settings[k] < 1:
            raise PriorError(f"{where}: {k} must be at least 1, got {settings[k]}")
    if "tune" in settings and settings["tune"] < 0:
        raise PriorError(f"{where}: tune must be non-negative, got {settings['tune']}")
    if "target_accept" in settings and not 0 < settings["target_accept"] < 1:
        raise PriorError(f"{where}: target_accept must lie in (0, 1)")
    if "nuts_sampler" in settings and settings["nuts_sampler"] not in NUTS_SAMPLERS:
        raise PriorError(f"{where}: nuts_sampler must be one of {NUTS_SAMPLERS}")
    if "mass_matrix" in settings and settings["mass_matrix"] not in MASS_MATRICES:
        raise PriorError(f"{where}: mass_matrix must be one of {MASS_MATRICES}")


def load_spec(name_or_path: str | Path) -> ModelSpec:
    """Read a model spec by name (``"uniform"``) or from a TOML file, merged with the defaults.

    Parameters
    ----------
    name_or_path : str or Path
        A name from :func:`available_models`, or a path to a spec file of the same layout.

    Returns
    -------
    ModelSpec

    Raises
    ------
    PriorError
        Unknown name, unreadable file or malformed content.

    Examples
    --------
    >>> spec = load_spec("positional")
    >>> spec.model_class, spec.likelihood, spec.priors["eps"]
    ('PositionalBias', 'marginal', {'dist': 'Dirichlet', 'a': [1.0, 1.0, 1.0]})
    >>> spec.sampler["chains"], spec.priors["sigma_s"]["dist"]
    ('auto', 'HalfNormal')
    """
    folder = spec_dir()
    path = Path(name_or_path)
    if path.suffix != ".toml":
        if str(name_or_path).startswith("_") or not (folder / f"{name_or_path}.toml").is_file():
            raise PriorError(
                f"unknown model {str(name_or_path)!r}; available: {available_models()}"
            )
        path = folder / f"{name_or_path}.toml"
    elif not path.is_file():
        raise PriorError(f"model spec file {path} does not exist")
    base = _read_toml(folder / f"{_BASE}.toml")
    raw = _read_toml(path)
    known = {"name", "class", "description", "likelihood", "priors", "sampler", "map"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise PriorError(f"model spec {path}: unknown key(s) {unknown}; known: {sorted(known)}")
    for key in ("class", "likelihood"):
        if key not in raw:
            raise PriorError(f"model spec {path}: missing {key!r}")
    priors = copy.deepcopy(base.get("priors", {}))
    priors.update(copy.deepcopy(raw.get("priors", {})))
    for pname, table in priors.items():
        if not isinstance(table, dict) or "dist" not in table:
            raise PriorError(f"model spec {path}: prior {pname!r} needs a table with 'dist'")
    sampler = {**base.get("sampler", {}), **raw.get("sampler", {})}
    check_sampler_settings(f"model spec {path} [sampler]", sampler)
    map_settings = {**base.get("map", {}), **raw.get("map", {})}
    _check_section(f"model spec {path} [map]", map_settings, MAP_KEYS)
    return ModelSpec(
        name=str(raw.get("name", path.stem)),
        model_class=str(raw["class"]),
        likelihood=str(raw["likelihood"]),
        priors=priors,
        sampler=sampler,
        map=map_settings,
        description=" ".join(str(raw.get("description", "")).split()),
        path=str(path),
        own_sampler=dict(raw.get("sampler", {})),
    )


def merge_priors(
    spec_priors: Mapping[str, Mapping[str, Any]],
    user_priors: Mapping[str, Mapping[str, Any]] | None,
    kinds: Mapping[str, str],
) -> dict[str, dict[str, Any]]:
    """Apply the precedence user > spec (> defaults, already in the spec) and validate.

    Parameters
    ----------
    spec_priors : mapping
        Prior tables from the spec.
    user_priors : mapping, optional
        The user's prior tables; a table without ``dist`` (or with the spec's ``dist``) updates
        the spec's parameters, one with another ``dist`` replaces the entry.
    kinds : mapping
        The model's parameter names → kind (a key of :data:`PRIOR_FAMILIES`).

    Returns
    -------
    dict
        Validated prior tables, one per name in ``kinds``.

    Raises
    ------
    PriorError

    Examples
    --------
    >>> spec = load_spec("uniform")
    >>> kinds = {"sigma_s": "positive", "eps": "half_rate"}
    >>> merge_priors(spec.priors, {"sigma_s": {"sigma": 2.0}}, kinds)["sigma_s"]
    {'dist': 'HalfNormal', 'sigma': 2.0}
    >>> merge_priors(spec.priors, {"eps": {"dist": "Beta", "alpha": 2, "beta": 8}}, kinds)["eps"]
    {'dist': 'Beta', 'alpha': 2, 'beta': 8}
    >>> merge_priors(spec.priors, {"epsilon": {"sigma": 1}}, kinds)
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.PriorError: unknown prior name(s) ['epsilon']; this model's priors ...
    """
    user_priors = dict(user_priors or {})
    unknown = sorted(set(user_priors) - set(kinds))
    if unknown:
        raise PriorError(
            f"unknown prior name(s) {unknown}; this model's priors are {sorted(kinds)}"
        )
    out: dict[str, dict[str, Any]] = {}
    for name in kinds:
        base = dict(spec_priors.get(name, {}))
        if name in user_priors:
            user = user_priors[name]
            if not isinstance(user, Mapping):
                raise PriorError(
                    f"prior {name!r} must be a mapping such as {{'dist': 'Normal', 'mu': 0, "
                    f"'sigma': 1}}, got {user!r}"
                )
            user = dict(user)
            if "dist" in user and user["dist"] != base.get("dist"):
                base = user
            else:
                base.update(user)
        if not base:
            raise PriorError(f"no prior for {name!r} in the spec and none given")
        out[name] = validate_prior(name, base, kinds[name])
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def validate_prior(name: str, table: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """Check one prior table against the distributions its parameter may take.

    Examples
    --------
    >>> validate_prior("gamma", {"dist": "Normal", "mu": 0, "sigma": 1.5}, "real")
    {'dist': 'Normal', 'mu': 0, 'sigma': 1.5}
    >>> validate_prior("gamma", {"dist": "Normal", "mu": 0}, "real")
    Traceback (most recent call last):
    ...
    bayes_pairwise.errors.PriorError: prior 'gamma' (Normal) is missing parameter(s) ['sigma']
    """
    table = dict(table)
    families = PRIOR_FAMILIES[kind]
    dist = table.get("dist")
    if dist not in families:
        raise PriorError(
            f"prior {name!r} cannot take distribution {dist!r}; allowed: {sorted(families)}"
        )
    required, optional = families[dist]
    params = {k: v for k, v in table.items() if k != "dist"}
    missing = [p for p in required if p not in params]
    if missing:
        raise PriorError(f"prior {name!r} ({dist}) is missing parameter(s) {missing}")
    extra = sorted(set(params) - set(required) - set(optional))
    if extra:
        raise PriorError(
            f"prior {name!r} ({dist}) has unknown parameter(s) {extra}; "
            f"expected {list(required + optional)}"
        )
    for k, v in params.items():
        if dist == "Dirichlet":
            if not (isinstance(v, list | tuple) and len(v) == 3 and all(_is_number(x) for x in v)):
                raise PriorError(f"prior {name!r}: Dirichlet 'a' must be three numbers, got {v!r}")
            if min(v) <= 0:
                raise PriorError(f"prior {name!r}: Dirichlet concentrations must be positive")
            continue
        if not _is_number(v):
            raise PriorError(f"prior {name!r} ({dist}): {k} must be a finite number, got {v!r}")
        if k not in ("mu", "lower", "upper") and v <= 0:
            raise PriorError(f"prior {name!r} ({dist}): {k} must be positive, got {v!r}")
    if dist == "Uniform" and kind == "half_rate":
        lo, hi = params["lower"], params["upper"]
        if not 0 <= lo < hi <= 0.5:
            raise PriorError(
                f"prior {name!r}: Uniform bounds must satisfy 0 <= lower < upper <= 0.5 (an error "
                f"rate above 0.5 is the same judge with its labels swapped), got ({lo}, {hi})"
            )
    return table
