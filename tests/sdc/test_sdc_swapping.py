"""Rank swapping: the invariants of rank swapping (hypothesis), the window, releases, errors."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.methods.sdc.swapping import (
    rank_swap,
    rank_swap_values,
    swap_partners,
    swap_window,
)

percentages = st.floats(0, 100, allow_nan=False)


def _stable_ranks(x: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(x), dtype=np.int64)
    ranks[np.argsort(x, kind="stable")] = np.arange(len(x))
    return ranks


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=200) | st.lists(
        st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=200),
    percentages,
    st.integers(0, 2**32 - 1),
)  # fmt: skip
def test_multiset_kept_and_values_move_at_most_w_ranks(values, p, seed):
    x = np.array(values)
    y = rank_swap_values(x, p, rng=seed)
    n = len(x)
    w = math.floor(p * n / 100)
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(np.sort(y), np.sort(x))
    # The value published at rank r is an original value from ranks r - w .. r + w.
    ranks = _stable_ranks(x)
    s = np.sort(x)
    lo = s[np.maximum(ranks - w, 0)]
    hi = s[np.minimum(ranks + w, n - 1)]
    assert np.all((lo <= y) & (y <= hi))
    if w == 0:
        np.testing.assert_array_equal(y, x)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 300), st.integers(0, 350), st.integers(0, 2**32 - 1))
def test_partners_are_a_pairing_within_the_window(n, w, seed):
    partner = swap_partners(n, w, rng=seed)
    r = np.arange(n)
    np.testing.assert_array_equal(partner[partner], r)  # an involution: pairwise swaps
    assert np.all(np.abs(partner - r) <= w)
    # Blocks of at most w + 1 ranks, at most one unswapped rank per block (two partial blocks).
    if w > 0 and n > 1:
        size = min(w, n - 1) + 1
        assert np.count_nonzero(partner == r) <= math.ceil(n / size) + 2


def test_window_is_floor_of_p_percent_of_n():
    assert swap_window(100, 7) == 7
    assert swap_window(10, 7) == 0
    assert swap_window(10, 15) == 1
    assert swap_window(1000, 0.5) == 5
    assert swap_window(3, 100) == 3
    assert swap_window(29, 100) == 29


def test_swapping_mixes_in_both_directions():
    x = np.arange(10_000.0)
    y = rank_swap_values(x, 1, rng=0)  # w = 100
    moved = y - x
    assert np.count_nonzero(moved) > 0.95 * len(x)
    assert moved.max() <= 100 and moved.min() >= -100
    assert abs(moved.mean()) < 1e-9  # swaps are symmetric
    assert np.abs(moved).mean() == pytest.approx(34, rel=0.1)  # ≈ (w + 2)/3 for block matching


def test_same_seed_same_result_and_p_100_mixes_everything():
    x = np.random.default_rng(1).normal(size=1000)
    np.testing.assert_array_equal(rank_swap_values(x, 5, rng=3), rank_swap_values(x, 5, rng=3))
    assert not np.array_equal(rank_swap_values(x, 5, rng=3), rank_swap_values(x, 5, rng=4))
    y = rank_swap_values(x, 100, rng=0)
    assert np.count_nonzero(y != x) >= 998


# ---------------------------------------------------------------------- DataFrame level
SCHEMA = {
    "income": {"role": "quasi", "kind": "numeric"},
    "age": {"role": "quasi", "kind": "numeric"},
    "region": "quasi",
}


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 400
    return pd.DataFrame({
        "income": rng.lognormal(10, 1, n),
        "age": rng.integers(18, 90, n),
        "region": rng.choice(["n", "s"], n),
    })  # fmt: skip


def test_rank_swap_release(frame):
    rel = rank_swap(frame, SCHEMA, p=5, rng=0)
    data = rel.data
    assert rel.kind == "masked"
    assert list(data.columns) == list(frame.columns)
    assert data["region"].tolist() == frame["region"].tolist()
    assert pd.api.types.is_integer_dtype(data["age"])
    for c in ("income", "age"):
        assert sorted(data[c]) == sorted(frame[c])
    m = rel.metadata
    assert m["parameters"] == {"p": 5, "columns": ["income", "age"]}
    assert m["window"] == 20
    assert m["swapped"]["income"] == int(np.count_nonzero(data["income"] != frame["income"]))
    assert rank_swap(frame, SCHEMA, p=5, rng=0).equals(rel)


def test_columns_are_swapped_independently(frame):
    both = frame.assign(copy=frame["income"])
    schema = {**SCHEMA, "copy": {"role": "quasi", "kind": "numeric"}}
    data = rank_swap(both, schema, p=10, columns=["income", "copy"], rng=0).data
    assert not np.array_equal(data["income"], data["copy"])


def test_p_zero_is_the_identity(frame):
    data = rank_swap(frame, SCHEMA, p=0, rng=0).data
    pd.testing.assert_frame_equal(data, frame, check_dtype=False)


@pytest.mark.parametrize("p", [-1, 100.5, float("nan"), "5", True, None])
def test_bad_p(frame, p):
    with pytest.raises(InputError, match="p"):
        rank_swap(frame, SCHEMA, p=p)


def test_bad_columns_and_values(frame):
    with pytest.raises(InputError, match="'region' is categorical"):
        rank_swap(frame, SCHEMA, p=5, columns=["region"])
    with pytest.raises(InputError, match="infinite value"):
        rank_swap(frame.assign(income=np.inf), SCHEMA, p=5)
    with pytest.raises(InputError, match="NaN"):
        rank_swap_values(np.array([1.0, np.nan]), 50)
    with pytest.raises(InputError, match="1-d"):
        rank_swap_values(np.zeros((2, 2)), 50)
    with pytest.raises(InputError, match="w"):
        swap_partners(5, -1)


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.swapping")
    assert doctest.testmod(module).failed == 0
