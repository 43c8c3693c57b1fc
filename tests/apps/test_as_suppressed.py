"""``as_suppressed`` keeps a column of numbers without a missing cell as it is (no Python
number per row): its groups, and so the risk measured on it, are those of the objects it was
made of before, on drawn tables and on the CPS 1988 file."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.release_frequencies import Combinations, as_suppressed
from microanon.apps.risk import RiskOptions, assess_risk
from microanon.core.factorize import factorize
from microanon.core.hierarchy import SUPPRESSED


def _before(values: pd.DataFrame) -> pd.DataFrame:
    """``as_suppressed`` as it was: every column objects, ``*`` where missing."""
    return values.astype(object).where(values.notna(), SUPPRESSED)


def _same_groups(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert list(got.columns) == list(expected.columns)
    assert got.index.equals(expected.index)
    for name in expected.columns:
        new_codes, new_values = factorize(got[name])
        old_codes, old_values = factorize(expected[name])
        np.testing.assert_array_equal(new_codes, old_codes)
        assert list(new_values) == list(old_values)
        if got[name].dtype == object:  # converted: the same cells as before
            assert got[name].tolist() == expected[name].tolist()


_NUMBERS = st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e12, np.nan])


@settings(max_examples=150, deadline=None)
@given(
    floats=st.lists(_NUMBERS, min_size=1, max_size=40),
    data=st.data(),
)
def test_groups_as_before(floats, data):
    n = len(floats)
    ints = data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    text = data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    values = pd.DataFrame(
        {
            "f": floats,
            "whole": np.array(floats, dtype=float),
            "i": np.array(ints, dtype=np.int64),
            "t": pd.Series(text, dtype=object),
            "b": np.array(ints, dtype=np.int64) > 0,
        }
    )
    values["whole"] = values["whole"].fillna(7.0)  # floats without a missing cell
    got = as_suppressed(values)
    _same_groups(got, _before(values))
    assert got["whole"].dtype == np.float64 and got["i"].dtype == np.int64
    assert got["b"].dtype == object  # (truth values are not numbers here)


def test_cps_risk_as_before():
    """CPS 1988 (28,155 workers, 5,970 distinct weekly wages): the risk of its keys, wage,
    education and experience among them (numbers without a missing cell), measured on the
    frequency table as before."""
    data = survey("cps1988")
    quasi = ["wage", "education", "experience", "ethnicity", "region"]
    keys = Combinations.of(data, quasi)
    values, counts, inverse = keys.rows(np.ones(len(keys.values), dtype=bool))
    got = as_suppressed(values[quasi])
    expected = _before(values[quasi])
    _same_groups(got, expected)
    assert got["wage"].dtype == np.float64
    options = RiskOptions(quasi, suda=False)
    new = assess_risk(got, options, counts)
    old = assess_risk(expected, options, counts)
    assert new.numbers == old.numbers
    pd.testing.assert_frame_equal(new.record_risks, old.record_risks)
