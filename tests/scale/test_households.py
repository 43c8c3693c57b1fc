"""The household risk from the individual risks of the keys' combinations, in memory
(:mod:`microanon.measures.households`) and out of core (:mod:`microanon.scale.households`),
against the measure on the records (:func:`microanon.measures.individual_risk` with
``household=``), on random surveys split into partitions in random order; the key lookup on
values that differ only in type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dask import delayed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.measures import individual_risk
from microanon.measures.households import KeyLookup, household_risks_of
from microanon.scale.households import household_risks

BINS = np.linspace(0.0, 1.0, 21)


@st.composite
def surveys(draw: st.DrawFn) -> tuple[pd.DataFrame, int, int]:
    """A survey of 1-60 records: two keys (one with missing values), a weight of at least 1
    and households of 1-4 records; a shuffle seed and a number of partitions."""
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = rng.choice(np.array(["x", "y", None], dtype=object), n, p=[0.5, 0.4, 0.1])
    b[0] = "x"  # a key missing in every record is refused (sdcMicro's counting needs one)
    data = pd.DataFrame(
        {
            "a": rng.integers(0, 3, n),
            "b": b,
            "w": np.round(rng.uniform(1, 40, n), 1),
            "hh": np.repeat(np.arange(n), rng.integers(1, 5, n))[:n],
        }
    )
    return data, draw(st.integers(0, 1000)), draw(st.integers(1, 4))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(surveys())
def test_household_risk_out_of_core_is_the_in_memory_one(client, survey):
    data, seed, parts = survey
    expected = individual_risk(data, ["a", "b"], "w", household="hh", missing="match")
    # The measure on the frequency table of the keys and the weight, then the records' pass.
    table = data.groupby(["a", "b", "w"], dropna=False).size().reset_index(name="n")
    risk = individual_risk(table, ["a", "b"], "w", missing="match", counts=table["n"].to_numpy())
    keys = table[["a", "b"]].assign(r=risk.record_risk.to_numpy()).drop_duplicates(["a", "b"])
    shuffled = data.sample(frac=1, random_state=seed)
    pieces = [delayed(lambda x: x)(shuffled.iloc[i::parts]) for i in range(parts)]
    found = household_risks(pieces, keys[["a", "b"]], keys["r"].to_numpy(), "w", "hh", BINS, client)
    assert found.records == len(data) and found.missing_ids == 0
    assert found.households == data["hh"].nunique()
    in_memory = household_risks_of(data, keys[["a", "b"]], keys["r"], "w", "hh", BINS)
    assert (in_memory.records, in_memory.households) == (found.records, found.households)
    assert in_memory.expected == pytest.approx(found.expected)
    np.testing.assert_array_equal(in_memory.binned, found.binned)
    assert found.expected == pytest.approx(expected.household_expected_reidentifications)
    assert found.global_risk == pytest.approx(expected.household_global_risk)
    np.testing.assert_array_equal(found.binned, np.histogram(expected.household_risk, BINS)[0])


def test_records_without_a_weight_or_household_id_are_left_out_and_counted(client):
    data = pd.DataFrame(
        {"a": [1, 1, 2, 2, 2], "w": [2.0, np.nan, 3.0, 3.0, 4.0], "hh": [1, 1, None, 2, 2]}
    )
    keys = pd.DataFrame({"a": [1, 2]})
    pieces = [delayed(lambda x: x)(data.iloc[:2]), delayed(lambda x: x)(data.iloc[2:])]
    found = household_risks(pieces, keys, np.array([0.5, 0.25]), "w", "hh", BINS, client)
    # Household 1: its weighted record (risk 0.5); household 2: 1 - 0.75^2 for two records.
    assert (found.records, found.households, found.missing_ids) == (3, 2, 1)
    assert found.expected == pytest.approx(0.5 + 2 * (1 - 0.75**2))


def test_key_lookup_matches_values_by_value_and_missing_values_together():
    keys = pd.DataFrame({"age": [52, 30, np.nan], "sex": ["f", "m", "f"]})
    lookup = KeyLookup(keys)
    # A float partition (a CSV partition with a gap) and pandas' missing value.
    records = pd.DataFrame({"age": [30.0, 52.0, None, 52.0], "sex": ["m", "f", "f", "f"]})
    np.testing.assert_array_equal(lookup.rows(records), [1, 0, 2, 0])
    with pytest.raises(InputError, match="column 'sex' holds a value not counted before"):
        lookup.rows(pd.DataFrame({"age": [30], "sex": ["x"]}))
    with pytest.raises(InputError, match="a combination of keys was not counted before"):
        lookup.rows(pd.DataFrame({"age": [30], "sex": ["f"]}))
