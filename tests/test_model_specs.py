"""Model specs in models/*.toml: discovery, content, precedence, validation."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bayes_pairwise import model_specs as specs_mod
from bayes_pairwise.errors import PriorError
from bayes_pairwise.model_specs import PRIOR_FAMILIES, merge_priors, spec_dir
from bayes_pairwise.pymc_models import (
    BiasedBradleyTerry,
    PositionalBias,
    UniformError,
    available_models,
    get_model,
    load_spec,
)

REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
EXPECTED = {
    "uniform": ("UniformError", "marginal"),
    "positional": ("PositionalBias", "marginal"),
    "biased_bt": ("BiasedBradleyTerry", "bernoulli"),
    "uniform_hierarchical": ("HierarchicalUniformError", "marginal"),
    "positional_hierarchical": ("HierarchicalPositionalBias", "marginal"),
    "positional_difficulty": ("PositionalDifficulty", "marginal"),
    "uniform_difficulty": ("UniformDifficulty", "marginal"),
    "noisy_plackett_luce": ("NoisyPlackettLuce", "plackett_luce"),
    "uniform_order": ("UniformOrder", "marginal"),
    "positional_order": ("PositionalOrder", "marginal"),
}


def test_available_models_lists_every_spec_file_but_base():
    names = available_models()
    assert names == sorted(EXPECTED)
    on_disk = {p.stem for p in spec_dir().glob("*.toml")}
    assert on_disk == set(EXPECTED) | {"_base"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_spec_content(name):
    spec = load_spec(name)
    cls_name, lik = EXPECTED[name]
    assert (spec.name, spec.model_class, spec.likelihood) == (name, cls_name, lik)
    # the pair-difficulty models' two-state posterior: longer runs (their spec files measure it)
    long_runs = {"positional_difficulty": (4000, 2000), "uniform_difficulty": (3000, 2000)}
    draws, tune = long_runs.get(name, (1000, 1000))
    assert spec.own_sampler == (
        {"draws": draws, "tune": tune, "target_accept": 0.95}
        if name in long_runs
        else {k: v for k, v in spec.own_sampler.items() if k == "target_accept"}
    )
    assert spec.sampler == {
        "draws": draws,
        "tune": tune,
        "chains": "auto",
        # the spec overrides the package default (precedence: user > spec > _base.toml)
        # (the positional hierarchical and listwise specs: SBC divergences at 0.8,
        # docs/src/model_checking.md)
        "target_accept": 0.95
        if name in ("biased_bt", "positional_hierarchical", "noisy_plackett_luce", *long_runs)
        else 0.8,
        "nuts_sampler": "auto",
        "mass_matrix": "auto",
    }
    assert spec.priors["sigma_s"] == {"dist": "HalfNormal", "sigma": 10.0}
    assert spec.description
    model = get_model(name)
    assert type(model).__name__ == cls_name and model.name == name
    # every spec prior is valid for its class
    assert set(model.resolved_priors()) == set(model.prior_kinds)


def test_method_priors_in_specs():
    assert load_spec("uniform").priors["eps"] == {"dist": "Uniform", "lower": 0.0, "upper": 0.5}
    assert load_spec("positional").priors["eps"] == {"dist": "Dirichlet", "a": [1.0, 1.0, 1.0]}
    bt = load_spec("biased_bt").priors
    assert bt["gamma"] == {"dist": "Normal", "mu": 0.0, "sigma": 1.5}
    assert bt["w"] == {"dist": "Normal", "mu": 0.0, "sigma": 1.0}


def test_spec_files_are_plain_toml():
    for path in REPO_MODELS.glob("*.toml"):
        with open(path, "rb") as fh:
            tomllib.load(fh)


def test_precedence_user_over_spec_over_base(tmp_path):
    # a custom spec overriding a base default
    (tmp_path / "mine.toml").write_text(
        'class = "UniformError"\nlikelihood = "marginal"\n'
        '[priors.sigma_s]\ndist = "HalfNormal"\nsigma = 3.0\n'
        '[priors.eps]\ndist = "Uniform"\nlower = 0.0\nupper = 0.4\n'
        "[sampler]\ndraws = 300\n"
    )
    path = tmp_path / "mine.toml"
    m = UniformError(spec=path)
    assert m.resolved_sampler()["draws"] == 300  # spec over base
    assert m.resolved_sampler()["tune"] == 1000  # base
    assert m.resolved_priors()["sigma_s"]["sigma"] == 3.0
    m = UniformError(spec=path, draws=50, priors={"sigma_s": {"sigma": 1.0}})
    assert m.resolved_sampler()["draws"] == 50  # user over spec
    assert m.resolved_priors()["sigma_s"] == {"dist": "HalfNormal", "sigma": 1.0}
    assert m.name == "mine"


def test_user_prior_with_other_dist_replaces_entry():
    kinds = {"sigma_s": "positive"}
    spec = {"sigma_s": {"dist": "HalfNormal", "sigma": 10.0}}
    out = merge_priors(spec, {"sigma_s": {"dist": "Exponential", "lam": 0.5}}, kinds)
    assert out["sigma_s"] == {"dist": "Exponential", "lam": 0.5}
    out = merge_priors(spec, {"sigma_s": {"dist": "HalfNormal", "sigma": 2.0}}, kinds)
    assert out["sigma_s"] == {"dist": "HalfNormal", "sigma": 2.0}


@pytest.mark.parametrize(
    ("priors", "match"),
    [
        ({"gamma": {"sigma": 1}}, "unknown prior name"),
        ({"sigma_s": 3.0}, "must be a mapping"),
        ({"sigma_s": {"dist": "Normal", "mu": 0, "sigma": 1}}, "cannot take"),
        ({"sigma_s": {"dist": "Gamma", "alpha": 2.0}}, "missing parameter"),
        ({"sigma_s": {"sigma": "wide"}}, "finite number"),
        ({"eps": {"lower": 0.3, "upper": 0.2}}, "lower < upper"),
    ],
)
def test_prior_errors(priors, match):
    with pytest.raises(PriorError, match=match):
        UniformError(priors=priors).resolved_priors()


def test_every_family_builds_in_pymc():
    import pymc as pm

    values = {
        "sigma": 1.0,
        "nu": 4.0,
        "beta": 2.0,
        "lam": 1.0,
        "alpha": 2.0,
        "mu": 0.0,
        "b": 1.0,
        "s": 1.0,
        "lower": 0.0,
        "upper": 0.5,
        "a": [1.0, 1.0, 1.0],
    }
    for kind, fams in PRIOR_FAMILIES.items():
        for dist, (required, _) in fams.items():
            params = {p: values[p] for p in required}
            with pm.Model():
                from bayes_pairwise.pymc_models.base import make_prior

                make_prior("x", {"dist": dist, **params}, kind)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("class = 'UniformError'\n", "missing 'likelihood'"),
        ("class = 'UniformError'\nlikelihood = 'marginal'\nfoo = 1\n", "unknown key"),
        ("class = 'UniformError'\nlikelihood = 'marginal'\n[sampler]\nchains = 'four'\n", "chains"),
        ("class = 'UniformError'\nlikelihood = 'marginal'\n[priors.eps]\nlower = 0\n", "'dist'"),
        ("class = [", "not valid TOML"),
    ],
)
def test_malformed_specs(tmp_path, content, match):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(PriorError, match=match):
        load_spec(path)


def test_unknown_names():
    with pytest.raises(PriorError, match="unknown model"):
        load_spec("_base")
    with pytest.raises(PriorError, match="unknown model"):
        load_spec("gaussian")
    with pytest.raises(PriorError, match="no likelihood 'bernoulli'"):
        UniformError(likelihood="bernoulli").resolved_likelihood()
    with pytest.raises(PriorError, match="is for UniformError"):
        BiasedBradleyTerry(spec="uniform").resolved_priors()


def test_installed_specs_are_looked_up_first(tmp_path, monkeypatch):
    """A wheel ships models/ as bayes_pairwise/_model_specs: that copy wins when present."""
    pkg = tmp_path / "_model_specs"
    pkg.mkdir()
    for p in REPO_MODELS.glob("*.toml"):
        (pkg / p.name).write_text(p.read_text())
    (pkg / "extra.toml").write_text((REPO_MODELS / "uniform.toml").read_text())
    monkeypatch.setattr(specs_mod.resources, "files", lambda name: pkg)
    assert spec_dir() == pkg
    assert "extra" in available_models()
    monkeypatch.setattr(
        specs_mod.resources, "files", lambda name: (_ for _ in ()).throw(ModuleNotFoundError())
    )
    assert spec_dir() == REPO_MODELS


def test_classes_default_specs():
    assert UniformError().get_spec().name == "uniform"
    assert PositionalBias().get_spec().name == "positional"
    assert BiasedBradleyTerry().get_spec().name == "biased_bt"
