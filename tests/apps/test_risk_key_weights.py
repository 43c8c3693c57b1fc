"""A table of keys with the mean and harmonic mean weight of their records
(:meth:`Combinations.key_weights`) gives every survey risk figure of the records, on random
surveys with missing keys and weights drawn per record, some of them missing (those records are
left out of the survey measures, and counted, by both)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from json_helpers import assert_close

from microanon.apps.release_frequencies import Combinations
from microanon.apps.risk import RiskOptions, assess_risk

HARMONIC = "harmonic"


def _left_out(keys: Combinations) -> int:
    """The records of a table of keys without a weight."""
    return int(keys.counts[keys.values["w"].isna().to_numpy()].sum())


@st.composite
def surveys(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = rng.choice(np.array(["x", "y", None], dtype=object), n, p=[0.5, 0.4, 0.1])
    b[0] = "x"  # a key missing in every record is refused (sdcMicro's counting needs one)
    w = np.round(rng.uniform(1, draw(st.sampled_from([1.5, 30, 500])), n), 2)
    w[1:][rng.random(n - 1) < draw(st.sampled_from([0, 0.1, 0.5]))] = np.nan  # (one kept)
    return pd.DataFrame({"a": rng.integers(0, draw(st.integers(1, 4)), n), "b": b, "w": w})


@settings(max_examples=60, deadline=None)
@given(surveys(), st.sampled_from(["value", "any", "drop"]))
def test_a_table_of_keys_gives_the_records_survey_risks(data, missing):
    options = RiskOptions(["a", "b"], weights="w", suda=False, missing=missing)
    expected = assess_risk(data, options)
    keys = Combinations.of(data, ["a", "b", "w"]).key_weights(["a", "b"], "w", HARMONIC)
    # a row per combination of keys, and one for its records without a weight
    assert len(keys.values) == len(data[["a", "b"]].assign(w=data["w"].isna()).drop_duplicates())
    assert _left_out(keys) == int(data["w"].isna().sum())
    reduced = RiskOptions(["a", "b"], weights="w", suda=False, missing=missing, harmonic=HARMONIC)
    got = assess_risk(keys.values, reduced, keys.counts)
    assert_close(got.numbers, expected.numbers, rel=1e-9, abs=1e-12, nan_ok=True)
    # The per-record risks, each row of keys standing for its records.
    for name in ("individual", "prosecutor"):
        counts = keys.counts[got.record_risks.index]  # under drop, the complete rows only
        records = np.sort(np.repeat(got.record_risks[name].to_numpy(), counts))
        rows = np.sort(expected.record_risks[name].to_numpy())
        assert records == pytest.approx(rows, nan_ok=True)  # a missing key under any: NaN
