"""Per-row weights of a pairwise log (issue 30, evalica / arena style)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayes_pairwise as bp
from bayes_pairwise.errors import DataError, DesignError


def _log() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "first": ["a", "b", "a", "c", "b", "c"],
            "second": ["b", "a", "c", "a", "c", "b"],
            "outcome": ["first", "first", "first", "second", "first", "first"],
            "w": [3.0, 1.0, 2.0, 1.0, 1.0, 2.0],
        }
    )


def test_weighted_bt_equals_bt_on_repeated_rows():
    df = _log()
    weighted = bp.BradleyTerry().fit(bp.load_comparisons(df, weights="w")).strengths_
    repeated = df.loc[df.index.repeat(df["w"].astype(int))].reset_index(drop=True)
    plain = bp.BradleyTerry().fit(bp.load_comparisons(repeated)).strengths_
    pd.testing.assert_series_equal(weighted, plain, atol=1e-9)
    unweighted = bp.BradleyTerry().fit(bp.load_comparisons(df)).strengths_
    assert not np.allclose(weighted, unweighted)


def test_weights_follow_subsets_and_the_frame():
    df = _log().assign(judge=["x", "y", "x", "y", "x", "y"])
    data = bp.load_comparisons(df, judge="judge", weights="w")
    assert data.has_weights and data.for_judge("y").weight.tolist() == [1.0, 1.0, 2.0]
    assert data.to_frame()["weight"].tolist() == df["w"].tolist()
    assert data.settings()["weighted"] is True
    assert not bp.load_comparisons(df).has_weights


def test_bad_weights_name_the_rows():
    df = _log()
    df.loc[2, "w"] = -1.0
    df.loc[4, "w"] = None
    with pytest.raises(DataError, match="weight") as err:
        bp.load_comparisons(df, weights="w")
    assert err.value.rows == [2, 4] and err.value.column == "w"
    with pytest.raises(DataError, match="not found"):
        bp.load_comparisons(_log(), weights="weight")


def test_bayesian_models_refuse_a_weighted_log():
    data = bp.load_comparisons(_log(), weights="w")
    with pytest.raises(DesignError, match="weights"):
        bp.UniformError().fit(data, method="map")
