"""A line per phase of a fit (compiling, sampling, log-likelihood): no silent minute-long wait."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import bayes_pairwise.pymc_models.base as base
from bayes_pairwise.caveats import CAVEATS_STEP
from bayes_pairwise.pymc_models import UniformError
from bayes_pairwise.simulate import simulate_round_robin


class _StopError(Exception):
    pass


def test_nutpie_path_says_compiling_only_when_the_model_is_not_in_memory(monkeypatch):
    nutpie = pytest.importorskip("nutpie")
    import bayes_pairwise.pymc_models.nutpie_compile as nutpie_compile

    monkeypatch.setattr(nutpie_compile, "compile_nutpie_model", lambda model: object())
    monkeypatch.setattr(base, "_NUTPIE_CACHE", OrderedDict())  # this test's own memory

    def stop(*args, **kwargs):
        raise _StopError

    monkeypatch.setattr(nutpie, "sample", stop)
    model = UniformError().build_model(simulate_round_robin(4, eps=0.2, random_seed=1).data)
    kw = dict(draws=7, tune=5, chains=2, target_accept=0.8, random_seed=1, nuts_sampler="nutpie")
    lines: list[str] = []
    with pytest.raises(_StopError):
        base.sample_nuts(model, cache_key="not-compiled-yet", on_step=lines.append, **kw)
    assert [line.split(" ")[0] for line in lines] == ["compiling", "sampling:"]
    assert "2 chains × (5 tune + 7 draws)" in lines[1]
    monkeypatch.setitem(base._NUTPIE_CACHE, base._memory_key("compiled-before", False), object())
    lines.clear()
    with pytest.raises(_StopError):
        base.sample_nuts(model, cache_key="compiled-before", on_step=lines.append, **kw)
    assert [line.split(" ")[0] for line in lines] == ["sampling:"]


def test_fit_passes_its_phases_on(mock_sampler, capsys):
    data = simulate_round_robin(5, eps=0.2, random_seed=2).data
    lines: list[str] = []
    UniformError(draws=20, tune=10, chains=1).fit(data, random_seed=3, on_step=lines.append)
    # the sampler gets the callback; the fit itself announces the log-likelihood
    assert mock_sampler[-1]["on_step"] == lines.append
    assert lines == ["pointwise log-likelihood (for LOO)", CAVEATS_STEP]
    assert capsys.readouterr().err == ""  # nothing printed when a callback is given
    # progress=True without a callback: the same lines on stderr, prefixed with the model
    UniformError(draws=20, tune=10, chains=1).fit(data, random_seed=3, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert any(e.startswith("[uniform 00:") and "pointwise log-likelihood" in e for e in err)
    assert any(e.startswith("[uniform 00:") and CAVEATS_STEP in e for e in err)


def test_map_fit_names_its_phases():
    data = simulate_round_robin(5, eps=0.2, random_seed=2).data
    lines: list[str] = []
    UniformError().fit(data, method="map", random_seed=3, on_step=lines.append)
    assert lines == ["MAP: the posterior mode", "pointwise log-likelihood (for LOO)", CAVEATS_STEP]
