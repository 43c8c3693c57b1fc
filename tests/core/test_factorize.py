"""``factorize``: the codes and values of ``pandas.factorize``, whatever objects hold the text."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.factorize import factorize

VALUES = st.sampled_from(["a", "b", "", "a,b", "é", None, float("nan"), 1, 1.0, 2, True])


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUES, max_size=60), st.integers(0, 3), st.booleans())
def test_factorize_is_pandas_factorize(values, repeat, series):
    """Rows drawn from few objects (the fast path) or copied text (equal text, new objects),
    as an array or a Series."""
    rows = np.array(values * (repeat + 1), dtype=object)
    if repeat == 3:  # every text row its own object
        rows = np.array(
            [v.encode().decode() if isinstance(v, str) else v for v in rows], dtype=object
        )
    data = pd.Series(rows, dtype=object) if series else rows
    expected_codes, expected_uniques = pd.factorize(data, use_na_sentinel=True)
    codes, uniques = factorize(data)
    assert codes.tolist() == expected_codes.tolist()
    assert type(uniques) is type(expected_uniques)
    assert [(type(u), u) for u in uniques] == [(type(u), u) for u in expected_uniques]


def test_equal_text_of_two_objects_is_one_value():
    a, b = "".join(["x", "y"]), "".join(["x", "y"])
    assert a is not b
    rows = np.array([a, b] * 2000, dtype=object)
    codes, uniques = factorize(rows)
    assert set(codes.tolist()) == {0} and uniques.tolist() == ["xy"]


def test_typed_columns_are_left_to_pandas():
    for data in (pd.Series([3, 1, 3]), pd.Series(["b", "a", "b"], dtype="str")):
        assert factorize(data)[0].tolist() == [0, 1, 0]
