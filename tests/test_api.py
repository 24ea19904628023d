"""The top level re-exports every public name, lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import bayes_pairwise as bp


@pytest.mark.parametrize("name", sorted(bp._EXPORTS))
def test_every_export_resolves(name):
    obj = getattr(bp, name)
    assert obj is not None
    assert name in dir(bp)


def test_unknown_name_is_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        bp.nope  # noqa: B018


def test_import_does_not_pull_in_pymc():
    code = "import sys, bayes_pairwise as bp; bp.load_comparisons; print('pymc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_functions_named_like_their_module_stay_functions_after_the_module_is_imported():
    """``bp.leaderboard(data)`` raised "'module' object is not callable" once anything had
    imported ``bayes_pairwise.leaderboard`` (the cross-check does): the import system sets a
    submodule as the package's attribute. Every export named like a submodule stays the
    exported object, whatever is imported first."""
    import importlib
    import pkgutil

    submodules = {m.name for m in pkgutil.iter_modules(bp.__path__)}
    shared = sorted(set(bp._EXPORTS) & submodules)
    assert shared == ["crosscheck", "leaderboard"]
    for name in shared:
        module = importlib.import_module(f"bayes_pairwise.{name}")
        assert getattr(bp, name) is getattr(module, name)
        assert callable(getattr(bp, name))
    code = (
        "import bayes_pairwise as bp, bayes_pairwise.crosscheck, bayes_pairwise.leaderboard; "
        "print(bp.leaderboard.__module__, bp.crosscheck.__module__, callable(bp.leaderboard))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["bayes_pairwise.leaderboard", "bayes_pairwise.crosscheck", "True"]


def test_the_leaderboard_functions_the_docs_name_are_exported():
    """``bp.judge_leaderboards`` raised AttributeError though the package docstring says every
    public name is re-exported."""
    names = {"leaderboard", "ranking_leaderboard", "judge_leaderboards", "judge_agreement"}
    assert names <= set(bp._EXPORTS)
    import importlib

    lb_module = importlib.import_module("bayes_pairwise.leaderboard")
    assert bp.judge_leaderboards is lb_module.judge_leaderboards
