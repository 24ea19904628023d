"""Style features from answer texts and the self-preference covariate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import DataError
from bayes_pairwise.features import (
    STYLE_FEATURES,
    self_preference,
    style_differences,
    style_features,
    with_self_preference,
    with_style_covariates,
)

MARKDOWN = """# Answer

## Details
Some **bold** text and __more bold__ and a * star that is not bold*.

- first item
* second item
+ third item
1. numbered
2) numbered again
-not a list item (no space)

```python
# a comment, not a header
- not a list item either
x = "**not bold**"
```
#NotAHeader (no space)
    ### indented four spaces: code, not a header
"""


def test_counts_on_crafted_markdown():
    f = style_features([MARKDOWN]).iloc[0]
    assert f["length"] == len(MARKDOWN)
    assert f["headers"] == 2
    assert f["bold"] == 2
    assert f["list_items"] == 5


def test_plain_and_empty_texts():
    f = style_features({"plain": "Just one sentence.", "empty": ""})
    assert list(f.columns) == list(STYLE_FEATURES)
    assert f.loc["plain"].tolist() == [18, 0, 0, 0]
    assert f.loc["empty"].tolist() == [0, 0, 0, 0]


def test_index_follows_input():
    s = pd.Series({"x": "a", "y": "**b**"})
    assert list(style_features(s).index) == ["x", "y"]
    assert list(style_features(["a", "b"]).index) == [0, 1]
    with pytest.raises(DataError, match="needs strings"):
        style_features(["ok", None])


@pytest.fixture
def data():
    df = pd.DataFrame(
        {
            "first": ["a", "b", "c", "a"],
            "second": ["b", "c", "a", "c"],
            "outcome": ["first", "second", "first", "second"],
        }
    )
    return load_comparisons(df)


def test_differences_first_minus_second(data):
    feats = pd.DataFrame({"length": [10, 30, 0], "bold": [1, 0, 0]}, index=["a", "b", "c"])
    out = style_differences(data, feats)
    assert out["length"].tolist() == [-20.0, 30.0, -10.0, 10.0]
    assert out["bold"].tolist() == [1.0, 0.0, -1.0, 1.0]
    norm = style_differences(data, feats, columns=["length", "bold"], kind="normalized")
    np.testing.assert_allclose(norm["length"], [-0.5, 1.0, -1.0, 1.0])
    np.testing.assert_allclose(norm["bold"], [1.0, 0.0, -1.0, 1.0])  # 0/0 → 0 for b vs c
    assert list(style_differences(data, feats, prefix="d_")) == ["d_length", "d_bold"]
    with pytest.raises(DataError, match="no style features for item"):
        style_differences(data, feats.drop(index="c"))
    with pytest.raises(ValueError, match="kind"):
        style_differences(data, feats, kind="ratio")


def test_with_style_covariates_attaches_columns(data):
    texts = {"a": "# H\n- x", "b": "plain text", "c": "**b** **c**"}
    out = with_style_covariates(data, texts)
    assert out.covariate_names == STYLE_FEATURES
    assert out.covariates["bold"].tolist() == [0.0, -2.0, 2.0, -2.0]
    assert data.covariate_names == ()  # the original is unchanged


def test_self_preference_values(data):
    fam = {"a": "openai", "b": "anthropic", "c": "openai"}
    x = self_preference(data, fam, "openai")
    assert x.tolist() == [1.0, -1.0, 0.0, 0.0]
    x = self_preference(data, fam, "meta")
    assert x.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert with_self_preference(data, fam, "openai", name="sp").covariate_names == ("sp",)
    with pytest.raises(DataError, match="no item family"):
        self_preference(data, {"a": "x"}, "x")


def test_self_preference_per_judge_and_contexts():
    df = pd.DataFrame(
        {
            "first": ["gpt", "claude", "gpt", "claude"],
            "second": ["claude", "gpt", "claude", "gpt"],
            "outcome": ["first"] * 4,
            "judge": ["J1", "J1", "J2", "J2"],
            "context": ["q1", "q1", "q2", "q2"],
        }
    )
    data = load_comparisons(df, judge="judge", context="context")
    fam = {"gpt": "openai", "claude": "anthropic"}  # looked up by item name within context
    x = self_preference(data, fam, {"J1": "openai", "J2": "anthropic"})
    assert x.tolist() == [1.0, -1.0, -1.0, 1.0]
    with pytest.raises(DataError, match="no family for judge"):
        self_preference(data, fam, {"J1": "openai"})
