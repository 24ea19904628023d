"""Data layer: loading, validation errors, immutability, property tests."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import BayesPairwiseError, DataError, DesignError
from bayes_pairwise.matrices import pair_counts, w_matrix, win_matrix, y_matrix, z_matrix


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": ["x", "y", "x", "z", "y", "z"],
            "b": ["y", "x", "z", "x", "z", "y"],
            "w": ["first", "second", "z", "TIE", "y", "first"],
            "judge": ["j1"] * 6,
            "len_diff": [0.1, -0.2, 0.3, 0.0, 1.0, 2.0],
        }
    )


def test_outcome_labels_and_winner_ids():
    data = load_comparisons(_frame(), first="a", second="b", outcome="w", ties="half")
    # first, second, winner=second item, tie, winner=first item, first
    assert data.outcome.tolist() == [1.0, 0.0, 0.0, 0.5, 1.0, 1.0]
    assert data.items == ("x", "y", "z")
    assert data.tie_policy == "half" and data.n_ties == 1 and data.n_ties_dropped == 0


def test_ties_are_data_by_default():
    """One tie rule for every door: without ``ties`` the ties are kept and modelled."""
    data = load_comparisons(_frame(), first="a", second="b", outcome="w")
    assert data.tie_policy == "model" and data.n_ties == 1 and data.n_comparisons == 6
    assert data.outcome.tolist() == [1.0, 0.0, 0.0, 0.5, 1.0, 1.0]
    # no tie: nothing to model, the policy recorded is "half" (no tie rate is fitted)
    no_tie = load_comparisons(_frame().drop(index=3), first="a", second="b", outcome="w")
    assert no_tie.tie_policy == "half" and no_tie.n_ties == 0
    # an explicit "model" is kept as asked
    assert (
        load_comparisons(
            _frame().drop(index=3), first="a", second="b", outcome="w", ties="model"
        ).tie_policy
        == "model"
    )


def test_ties_error_names_rows_and_column():
    with pytest.raises(DataError) as exc:
        load_comparisons(_frame(), first="a", second="b", outcome="w", ties="error")
    assert exc.value.rows == [3] and exc.value.column == "w"
    assert "ties='drop'" in str(exc.value)


def test_ties_drop_is_counted_and_rows_kept_traceable():
    data = load_comparisons(_frame(), first="a", second="b", outcome="w", ties="drop")
    assert data.n_comparisons == 5 and data.n_ties_dropped == 1
    assert data.row.tolist() == [0, 1, 2, 4, 5]
    assert data.summary().n_ties_dropped == 1
    assert json.loads(json.dumps(data.settings()))["n_ties_dropped"] == 1


def test_user_frame_not_mutated_and_arrays_read_only():
    df = _frame()
    before = df.copy(deep=True)
    data = load_comparisons(
        df, first="a", second="b", outcome="w", ties="drop", covariates=["len_diff"]
    )
    pd.testing.assert_frame_equal(df, before)
    with pytest.raises(ValueError):
        data.first[0] = 2
    with pytest.raises(ValueError):
        data.covariates["len_diff"][0] = 1.0
    with pytest.raises(AttributeError):
        data.first = np.zeros(3)  # frozen dataclass


@pytest.mark.parametrize(
    ("mutate", "column", "rows", "needle"),
    [
        (
            lambda d: d.assign(w=["first", "second", "banana", "first", "first", "x"]),
            "w",
            [2, 5],
            "unknown outcome",
        ),
        (lambda d: d.assign(b=["y", "x", "x", "x", "z", "y"]), "a", [2], "self-comparison"),
        (lambda d: d.assign(a=["x", None, "x", "z", "y", "z"]), "a", [1], "missing value"),
        (lambda d: d.assign(a=["x", "y", "x", "  ", "y", "z"]), "a", [3], "missing value"),
        (
            lambda d: d.assign(len_diff=[0.1, "big", 0.3, 0.0, 1.0, np.nan]),
            "len_diff",
            [1, 5],
            "finite",
        ),
    ],
)
def test_bad_input_names_rows_and_column(mutate, column, rows, needle):
    with pytest.raises(DataError) as exc:
        load_comparisons(
            mutate(_frame()),
            first="a",
            second="b",
            outcome="w",
            ties="drop",
            covariates=["len_diff"],
        )
    assert exc.value.column == column
    assert exc.value.rows == rows
    assert needle in str(exc.value)


def test_missing_column_and_empty():
    with pytest.raises(DataError, match="column not found") as exc:
        load_comparisons(_frame(), first="a", second="nope", outcome="w")
    assert exc.value.column == "nope"
    with pytest.raises(DataError, match="empty"):
        load_comparisons(_frame().iloc[:0], first="a", second="b", outcome="w")
    with pytest.raises(DataError, match="ties must be"):
        load_comparisons(_frame(), first="a", second="b", outcome="w", ties="ignore")


def test_outcome_map_and_files(tmp_path):
    df = pd.DataFrame({"f": [1, 2, 3], "s": [2, 3, 1], "v": [1, 2, 3], "q": [7, 7, 7]})
    data = load_comparisons(
        df,
        first="f",
        second="s",
        outcome="v",
        context="q",
        outcome_map={1: "first", 2: "second", 3: "tie"},
        ties="half",
    )
    assert data.items == ("7::1", "7::2", "7::3")
    assert data.outcome.tolist() == [1.0, 0.0, 0.5]
    for suffix, writer in [
        (".csv", lambda p: df.to_csv(p, index=False)),
        (".parquet", lambda p: df.to_parquet(p)),
        (".jsonl", lambda p: df.to_json(p, orient="records", lines=True)),
    ]:
        path = tmp_path / f"log{suffix}"
        writer(path)
        loaded = load_comparisons(
            path,
            first="f",
            second="s",
            outcome="v",
            outcome_map={1: "first", 2: "second", 3: "tie"},
            ties="drop",
        )
        assert loaded.n_comparisons == 2 and loaded.source == path.name
    with pytest.raises(DataError, match="unsupported file type"):
        (tmp_path / "x.txt").write_text("a")
        load_comparisons(tmp_path / "x.txt")
    with pytest.raises(DataError, match="no such file"):
        load_comparisons(tmp_path / "missing.csv")


def test_contexts_judges_and_subsets():
    df = pd.DataFrame(
        {
            "first": ["a", "b", "a", "b", "a"],
            "second": ["b", "a", "b", "a", "b"],
            "outcome": ["first", "first", "second", "second", "first"],
            "q": [2, 2, 10, 10, 10],
            "judge": ["g", "g", "g", "g", "h"],
        }
    )
    data = load_comparisons(df, context="q", judge="judge")
    assert data.contexts == ("2", "10")  # numeric order, not string order
    assert data.items == ("2::a", "2::b", "10::a", "10::b")
    assert data.for_judge("h").n_comparisons == 1
    # tie counts follow the subset
    tied = df.assign(outcome=["tie", "first", "tie", "second", "tie"])
    d2 = load_comparisons(tied, context="q", judge="judge", ties="drop")
    assert (d2.n_ties, d2.n_ties_dropped) == (3, 3)
    assert (d2.for_judge("g").n_ties_dropped, d2.for_judge("h").n_ties_dropped) == (2, 1)
    assert d2.for_context("2").n_ties_dropped == 1 and d2.for_context("10").n_ties == 2
    assert d2.for_judge("g").summary().n_ties == 2
    ctx = data.for_context("10")
    assert ctx.items == ("10::a", "10::b") and ctx.first.tolist() == [0, 1, 0]
    pooled = data.pool_contexts()
    assert pooled.items == ("a", "b") and pooled.n_comparisons == 5
    assert win_matrix(pooled).to_numpy().tolist() == [[0.0, 3.0], [2.0, 0.0]]
    tbl = data.summary().table
    assert tbl.loc["g", "share_pairs_both_orders"] == 1.0
    assert tbl.loc["h", "share_pairs_both_orders"] == 0.0
    with pytest.raises(KeyError, match="unknown judge"):
        data.for_judge("zz")


def test_matrices_known_answers():
    # 3 items, every ordered pair once: a beats everything in both orders; b-c disagree.
    rows = [
        ("a", "b", "first"),
        ("b", "a", "second"),
        ("a", "c", "first"),
        ("c", "a", "second"),
        ("b", "c", "first"),
        ("c", "b", "first"),
    ]
    df = pd.DataFrame(rows, columns=["first", "second", "outcome"])
    data = load_comparisons(df)
    z = z_matrix(data).to_numpy()
    assert z.tolist() == [[0, 1, 1], [-1, 0, 0], [-1, 0, 0]]
    np.testing.assert_array_equal(z, -z.T)
    np.testing.assert_allclose(w_matrix(data).to_numpy(), z)  # W = Z when k+ = k- = 1
    y = y_matrix(data).to_numpy()
    np.testing.assert_allclose((y - y.T) / 2, z)
    pc = pair_counts(data)
    assert pc.first_wins.sum() == 4  # verdicts 'first': rows 0, 2, 4, 5
    # Missing order: a clear DesignError naming the pair
    with pytest.raises(DesignError, match=r"\('c', 'b'\)"):
        z_matrix(load_comparisons(df.iloc[:5]))


def test_matrix_needs_judge_when_several():
    df = pd.DataFrame(
        {"first": ["a", "b"], "second": ["b", "a"], "outcome": ["first", "first"], "j": ["u", "v"]}
    )
    with pytest.raises(DesignError, match="pass judge"):
        w_matrix(load_comparisons(df, judge="j"), require_complete=False)


# ------------------------------------------------------------------ property tests
@st.composite
def comparison_logs(draw):
    n_items = draw(st.integers(2, 6))
    n_rows = draw(st.integers(1, 40))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, n_items - 1), st.integers(0, n_items - 1)).filter(
                lambda t: t[0] != t[1]
            ),
            min_size=n_rows,
            max_size=n_rows,
        )
    )
    outcomes = draw(
        st.lists(st.sampled_from(["first", "second"]), min_size=n_rows, max_size=n_rows)
    )
    labels = [f"item{k}" for k in range(n_items)]
    return pd.DataFrame(
        {
            "first": [labels[a] for a, _ in pairs],
            "second": [labels[b] for _, b in pairs],
            "outcome": outcomes,
        }
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(comparison_logs(), st.randoms(use_true_random=False))
def test_relabelling_items_permutes_results(df, rnd):
    labels = sorted(set(df["first"]) | set(df["second"]))
    new = labels[:]
    rnd.shuffle(new)
    mapping = {old: f"z{new_label}" for old, new_label in zip(labels, new, strict=True)}
    df2 = df.assign(first=df["first"].map(mapping), second=df["second"].map(mapping))
    w1 = w_matrix(load_comparisons(df), require_complete=False)
    w2 = w_matrix(load_comparisons(df2), require_complete=False)
    w1 = w1.rename(index=mapping, columns=mapping)
    pd.testing.assert_frame_equal(w1, w2.loc[w1.index, w1.columns])
    x1 = win_matrix(load_comparisons(df)).rename(index=mapping, columns=mapping)
    x2 = win_matrix(load_comparisons(df2))
    pd.testing.assert_frame_equal(x1, x2.loc[x1.index, x1.columns])


@settings(max_examples=60, deadline=None)
@given(comparison_logs())
def test_swapping_positions_with_outcome_leaves_w_and_z_unchanged(df):
    flip = {"first": "second", "second": "first"}
    swapped = df.assign(first=df["second"], second=df["first"], outcome=df["outcome"].map(flip))
    a, b = load_comparisons(df), load_comparisons(swapped)
    np.testing.assert_allclose(
        w_matrix(a, require_complete=False).to_numpy(),
        w_matrix(b, require_complete=False).to_numpy(),
    )
    np.testing.assert_allclose(win_matrix(a).to_numpy(), win_matrix(b).to_numpy())
    try:
        za = z_matrix(a).to_numpy()
    except DesignError:
        return
    # every ordered pair once: swapping both columns and outcome preserves Z exactly
    np.testing.assert_allclose(za, z_matrix(b).to_numpy())


def test_swapping_positions_keeps_z_on_a_full_round_robin():
    rng = np.random.default_rng(3)
    items = [f"t{k}" for k in range(6)]
    rows = [(a, b, rng.choice(["first", "second"])) for a in items for b in items if a != b]
    df = pd.DataFrame(rows, columns=["first", "second", "outcome"])
    swapped = df.assign(
        first=df["second"],
        second=df["first"],
        outcome=df["outcome"].map({"first": "second", "second": "first"}),
    )
    np.testing.assert_array_equal(
        z_matrix(load_comparisons(df)).to_numpy(), z_matrix(load_comparisons(swapped)).to_numpy()
    )


_cell = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.sampled_from(["first", "second", "tie", "a", "b", ""]),
    st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.fixed_dictionaries(
            {"first": _cell, "second": _cell, "outcome": _cell, "judge": _cell, "cov": _cell}
        ),
        min_size=0,
        max_size=8,
    ),
    st.sampled_from(["error", "drop", "half"]),
    st.booleans(),
)
def test_malformed_frames_end_in_package_error(records, ties, drop_col):
    df = pd.DataFrame.from_records(records, columns=["first", "second", "outcome", "judge", "cov"])
    if drop_col:
        df = df.drop(columns=["second"])
    try:
        data = load_comparisons(df, judge="judge", covariates=["cov"], ties=ties)
    except BayesPairwiseError:
        return
    # when it loads, the result is internally consistent
    assert data.n_comparisons + data.n_ties_dropped == len(df)
    assert np.all(data.first != data.second)
    assert set(np.unique(data.outcome)) <= {0.0, 0.5, 1.0}
