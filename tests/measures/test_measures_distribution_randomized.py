"""estimate_distribution / utility_report on real randomized-response releases.

The reconstruction is that of Guo, Ying & Wu (2011).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microanon.methods.randomize.release as release_mod
from microanon.core import Schema, Table
from microanon.core.release import Release
from microanon.datasets import adult_schema, load_adult
from microanon.measures.distribution import estimate_distribution, utility_report
from microanon.measures.estimators import true_joint

QUASI = ["race", "sex"]


@pytest.fixture(scope="module")
def small():
    data = load_adult().loc[:1999, QUASI + ["income"]].reset_index(drop=True)
    schema = adult_schema(quasi=QUASI, sensitive="income").select(list(data.columns))
    return data, schema, Table.from_frame(data, schema)


def test_keep_everything_reconstructs_the_truth(small):
    data, schema, table = small
    release = release_mod.randomize(data, schema, keep={c: 1.0 for c in data.columns}, rng=0)
    q = estimate_distribution(release, table, QUASI, "income", clip_renorm=False)
    np.testing.assert_allclose(q, true_joint(table, QUASI, "income"), atol=1e-12)
    report = utility_report(release, table, QUASI, "income")
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "query_error_cube"]:
        assert report[key] == pytest.approx(0.0, abs=1e-9), key


def test_randomized_estimate_is_a_distribution(small):
    data, schema, table = small
    release = release_mod.randomize(data, schema, keep={"race": 0.7, "income": 0.8}, rng=0)
    raw = estimate_distribution(release, table, QUASI, "income", clip_renorm=False)
    assert raw.shape == (5, 2, 2) and raw.sum() == pytest.approx(1.0)  # P⁻¹ keeps the sum
    q = estimate_distribution(release, table, ["sex", "race"], "income")
    assert q.shape == (2, 5, 2) and q.sum() == pytest.approx(1.0) and q.min() >= 0
    report = utility_report(release, table, QUASI, "income")
    assert report["kind"] == "randomized"
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "query_error_cube"]:
        assert math.isfinite(report[key]) and report[key] >= 0, key
    assert 0 <= report["u_sa_qi"] <= 1 and 0 <= report["u_qi_qi"] <= 1


def _frequency_table(data, schema) -> Table:
    """``data``'s distinct rows encoded with ``schema``, each with its records (a frequency
    table, as the Dask engine counts the original)."""
    combos = data.value_counts(sort=False, dropna=False).reset_index(name="count")
    coded = Table.from_frame(combos.drop(columns="count"), schema)
    return Table.from_codes(
        {c: coded.codes(c) for c in coded.columns},
        {c: coded.dictionary(c) for c in coded.columns},
        coded.schema,
        counts=combos["count"].to_numpy(),
    )


def _same_numbers(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if key == "uncertainty":
            pd.testing.assert_frame_equal(got[key], value)
        elif isinstance(value, float) and math.isnan(value):
            assert math.isnan(got[key]), key
        else:
            assert got[key] == value, key


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 1999), min_size=1, max_size=400),
    st.sampled_from([{"race": 0.7, "income": 0.8}, {"sex": 0.9}, {"income": 0.6}]),
    st.integers(0, 2**16),
)
def test_the_measures_of_frequency_tables_are_those_of_the_records(small, rows, keep, seed):
    """The utility of a randomized release measured on the original's and the published
    table's frequency tables (distinct rows with their records: what the Dask engine counts)
    is the utility measured on the records, number for number."""
    data, _, _ = small
    # each column's values declared (a sample may lack some): coded alike whatever the sample
    roles = {"race": "quasi", "sex": "quasi", "income": "sensitive"}
    schema = Schema.from_dict(
        {c: {"role": roles[c], "categories": sorted(set(data[c]))} for c in data.columns}
    )
    data = data.iloc[rows].reset_index(drop=True)
    release = release_mod.randomize(data, schema, keep=keep, rng=seed)
    expected = utility_report(release, Table.from_frame(data, schema), QUASI, "income")
    published = release.data.value_counts(sort=False, dropna=False).reset_index(name="count")
    counted = Release("randomized", {"data": published.drop(columns="count")}, release.metadata)
    got = utility_report(
        counted,
        _frequency_table(data, schema),
        QUASI,
        "income",
        counts=published["count"].to_numpy(),
    )
    _same_numbers(got, expected)
    original = _frequency_table(data, schema)
    assert original.n_records == len(data)
    np.testing.assert_array_equal(
        true_joint(original, QUASI, "income"),
        true_joint(Table.from_frame(data, schema), QUASI, "income"),
    )


def test_the_cube_is_left_out_above_its_limit_and_the_same_below(small):
    """The CUBE's query error answers ``2^(m+1)`` group-bys over the original's non-empty
    cells: with a limit on their product it is None above it (the work said in
    ``cube_work``), and the very number below it; every other measure is the same."""
    data, schema, table = small
    release = release_mod.randomize(data, schema, keep={"race": 0.7, "income": 0.8}, rng=0)
    full = utility_report(release, table, QUASI, "income")
    held = int(np.count_nonzero(true_joint(table, QUASI, "income")))
    work = 2**3 * held
    below = utility_report(release, table, QUASI, "income", cube_limit=work)
    above = utility_report(release, table, QUASI, "income", cube_limit=work - 1)
    assert below["cube_work"] == above["cube_work"] == (8, held)
    assert below["query_error_cube"] == full["query_error_cube"]
    assert above["query_error_cube"] is None
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "u_sa_qi"]:
        assert above[key] == below[key] == full[key], key
