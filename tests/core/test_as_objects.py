"""``as_objects``: a number column as objects, equal values one object each, the values, types,
index and name those of ``astype(object)``; and the schema's validation, which uses it for a
numeric column whose missing values are ``?``, on a real survey file."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.core.frames import as_objects
from microanon.core.schema import MISSING_LABEL, Schema, as_numbers


def _same_cells(got: pd.Series, expected: pd.Series) -> None:
    """Equal as ``astype(object)`` gives them, cell by cell, down to the type and the sign of a
    zero (and a NaN where it is one)."""
    assert got.dtype == object
    assert got.name == expected.name
    assert got.index.equals(expected.index)
    for a, b in zip(got.tolist(), expected.tolist(), strict=True):
        assert type(a) is type(b)
        if b is pd.NA or (isinstance(b, float) and math.isnan(b)):
            assert a is pd.NA if b is pd.NA else math.isnan(a)
        else:
            assert a == b
            if isinstance(b, float):
                assert math.copysign(1.0, a) == math.copysign(1.0, b)


_FLOATS = st.sampled_from([0.0, -0.0, 1.5, -2.0, 1e30, math.inf, -math.inf, math.nan, 52.0])


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(_FLOATS, min_size=0, max_size=60) | st.lists(st.floats(width=32), max_size=60),
    dtype=st.sampled_from(["float64", "float32"]),
    start=st.integers(-5, 5),
)
def test_floats_as_objects_are_astype_object(values, dtype, start):
    column = pd.Series(np.array(values, dtype=np.float64).astype(dtype), name="x")
    column.index = pd.RangeIndex(start, start + len(column))
    _same_cells(as_objects(column), column.astype(object))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(-3, 3) | st.integers(-(2**63), 2**63 - 1), max_size=60),
    dtype=st.sampled_from(["int64", "int32", "uint8"]),
)
def test_integers_as_objects_are_astype_object(values, dtype):
    info = np.iinfo(dtype)
    column = pd.Series([min(max(v, info.min), info.max) for v in values], dtype=dtype, name=3)
    _same_cells(as_objects(column), column.astype(object))


def test_other_columns_are_astype_object():
    for column in (
        pd.Series(["a", None, "b"], dtype="str"),
        pd.Series([1, None, 3], dtype="Int64"),
        pd.Series([True, False, True]),
        pd.Series(["x", 1, 2.5], dtype=object),
    ):
        _same_cells(as_objects(column), column.astype(object))


def test_equal_numbers_share_one_object_a_nan_its_own():
    column = pd.Series([3.0, np.nan, 3.0, 3.0, np.nan, 3.0])
    objects = as_objects(column)
    assert objects[0] is objects[2] is objects[5]
    assert objects[1] is not objects[4]  # (as astype(object) makes them)


def test_validated_gss_columns_as_before():
    """GSS vocabulary file (28,867 respondents; age missing for 94, education for some, the
    score for 1,348): numeric columns under ``missing: value`` are objects, ``?`` where missing,
    each cell the value and type ``astype(object)`` gave before, and ``as_numbers`` of a
    validated column is the same again."""
    data = survey("gss_vocab")
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value"}
    schema = Schema.from_dict(
        {
            "age": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10]}},
            "educ": {**numeric, "hierarchy": {"builder": "intervals", "widths": [4, 8]}},
            "vocab": {**numeric, "hierarchy": {"builder": "intervals", "widths": [2, 5]}},
            "year": {"role": "quasi", "kind": "numeric"},
        }
    )
    validated = schema.validate(data)
    for name in ("age", "educ", "vocab"):
        col = data[name]
        gaps = col.isna().to_numpy()
        assert gaps.any()
        number = pd.to_numeric(col, errors="coerce")
        expected = number.astype(object).where(~gaps, MISSING_LABEL)
        _same_cells(validated[name], expected)
        again = as_numbers(validated[name], name, marked=True)
        _same_cells(again, expected)
