"""Sampling: sizes and rounding, stratification, uniform inclusion, releases, errors."""

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
from microanon.methods.sdc.sampling import sample, sample_rows, stratum_sizes

SCHEMA = {"region": "quasi", "sex": "quasi", "x": {"role": "sensitive", "kind": "numeric"}}


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 1000
    return pd.DataFrame({
        "region": rng.choice(["n", "s", "e", "w"], n, p=[0.5, 0.3, 0.15, 0.05]),
        "sex": rng.choice(["f", "m"], n),
        "x": np.arange(n),
    })  # fmt: skip


def test_simple_sample_size_order_and_release(frame):
    rel = sample(frame, SCHEMA, fraction=0.1, rng=0)
    data = rel.data
    assert rel.kind == "masked" and len(data) == 100
    assert data["x"].is_monotonic_increasing and data["x"].is_unique  # original order kept
    rows = data["x"].to_numpy()
    pd.testing.assert_frame_equal(data, frame.iloc[rows].reset_index(drop=True), check_dtype=False)
    m = rel.metadata
    assert m["rows_in"] == 1000 and m["rows_out"] == 100
    assert m["parameters"] == {"fraction": 0.1, "strata": None}
    assert "strata_count" not in m
    assert sample(frame, SCHEMA, fraction=0.1, rng=0).equals(rel)


@pytest.mark.parametrize(("n", "f", "m"), [(10, 0.25, 3), (10, 0.35, 4), (7, 0.5, 4), (1, 1.0, 1)])
def test_size_is_rounded_half_up(n, f, m):
    assert len(sample_rows(n, f, rng=0)) == m


def test_fraction_one_keeps_every_row(frame):
    data = sample(frame, SCHEMA, fraction=1.0, rng=0).data
    pd.testing.assert_frame_equal(data, frame, check_dtype=False)


def test_inclusion_is_uniform():
    n, f, reps = 50, 0.2, 4000
    gen = np.random.default_rng(11)
    hits = np.zeros(n)
    for _ in range(reps):
        hits[sample_rows(n, f, rng=gen)] += 1
    # Each row is included with probability f: binomial(reps, f) counts.
    sd = math.sqrt(reps * f * (1 - f))
    assert np.all(np.abs(hits - reps * f) < 4.5 * sd)


def test_stratified_sample_has_the_fraction_in_every_stratum(frame):
    rel = sample(frame, SCHEMA, fraction=0.1, strata=["region", "sex"], rng=1)
    got = rel.data.groupby(["region", "sex"]).size()
    full = frame.groupby(["region", "sex"]).size()
    assert len(rel.data) == 100
    assert np.all(got.reindex(full.index, fill_value=0) >= np.floor(0.1 * full))
    assert np.all(got.reindex(full.index, fill_value=0) <= np.ceil(0.1 * full))
    assert rel.metadata["strata_count"] == len(full)
    assert rel.metadata["parameters"]["strata"] == ["region", "sex"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=12),
    st.floats(0.01, 1.0),
    st.integers(0, 2**32 - 1),
)
def test_stratum_sizes_largest_remainder(counts, f, seed):
    counts = np.array(counts)
    sizes = stratum_sizes(counts, f, rng=seed)
    assert sizes.sum() == math.floor(f * counts.sum() + 0.5)
    assert np.all(sizes >= np.floor(f * counts)) and np.all(sizes <= np.ceil(f * counts))
    assert np.all(sizes <= counts)


def test_stratum_sizes_worked_example():
    # 3 × 0.5 remainders for 2 extra records: two of the three strata get one more.
    sizes = stratum_sizes([5, 5, 5], 0.5, rng=0)
    assert sorted(sizes.tolist()) == [2, 3, 3]
    assert stratum_sizes([10, 3], 0.5, rng=0).tolist() == [5, 2]  # round(6.5) = 7: 5 + 1.5 → 2


def test_missing_stratum_values_form_a_stratum():
    df = pd.DataFrame({"g": ["a"] * 4 + [None] * 4, "x": range(8)})
    rel = sample(df, {"g": {"role": "insensitive", "missing": "category"}, "x": "quasi"},
                 fraction=0.5, strata="g", rng=0)  # fmt: skip
    assert rel.metadata["strata_count"] == 2
    assert (rel.data["x"] < 4).sum() == 2 and (rel.data["x"] >= 4).sum() == 2


def test_strata_after_rows_dropped_by_the_schema():
    df = pd.DataFrame({"g": list("aaaabbbb"), "x": [1, None, 3, 4, 5, 6, 7, 8]})
    schema = {"g": "quasi", "x": {"role": "insensitive", "kind": "numeric", "missing": "drop"}}
    rel = sample(df, schema, fraction=0.5, strata="g", rng=0)
    # 7 rows remain (3 a, 4 b): round(3.5) = 4 = 1.5 → 1 or 2 for a, 2 for b.
    assert rel.metadata["rows_in"] == 7 and len(rel.data) == 4
    assert rel.data["x"].notna().all()
    assert (rel.data["g"] == "b").sum() == 2


def test_sampling_is_fast_enough_on_a_million_rows():
    rows = sample_rows(1_000_000, 0.3, strata=np.arange(1_000_000) % 7, rng=0)
    assert len(rows) == 300_000 and np.all(np.diff(rows) > 0)


@pytest.mark.parametrize("fraction", [0, -0.1, 1.5, float("nan"), "0.5", True, None])
def test_bad_fraction(frame, fraction):
    with pytest.raises(InputError, match="fraction"):
        sample(frame, SCHEMA, fraction=fraction)


def test_empty_sample_and_bad_strata(frame):
    with pytest.raises(InputError, match="empty"):
        sample(frame.iloc[:10], SCHEMA, fraction=0.01)
    with pytest.raises(InputError, match="'zone'"):
        sample(frame, SCHEMA, fraction=0.5, strata="zone")
    with pytest.raises(InputError, match="strata must be a column name"):
        sample(frame, SCHEMA, fraction=0.5, strata=[])
    with pytest.raises(InputError, match="stratum codes"):
        sample_rows(4, 0.5, strata=np.array([0, 1, -1, 0]))
    with pytest.raises(InputError, match="stratum codes"):
        sample_rows(4, 0.5, strata=np.array([0, 1]))


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.sampling")
    assert doctest.testmod(module).failed == 0
