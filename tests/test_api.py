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
