"""Text columns whose every value is a leaf of its hierarchy are coded in one pass when a table
is encoded (``Table.from_frame`` outside a run): the same table as the general path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Hierarchy, Table
from microanon.core.errors import MicroanonError
from microanon.core.table import text_leaf_codes

LEAVES = ["a", "b", "c", "d"]
#: What a cell may hold: leaves, the missing marker, a value no hierarchy has, nothing.
CELLS = [*LEAVES, "?", "zz", None]


def _hierarchy(with_marker: bool) -> Hierarchy:
    leaves = [*LEAVES, "?"] if with_marker else LEAVES
    return Hierarchy.from_groups({"ab": leaves[:2], "rest": leaves[2:]}, name="q")


def _encoded(data: pd.DataFrame, schema: dict) -> Table | str:
    try:
        return Table.from_frame(data, schema)
    except MicroanonError as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=150, deadline=None)
@given(
    columns=st.lists(
        st.tuples(
            st.sampled_from(["value", "keep", "drop", "error"]),
            st.booleans(),  # whether "?" is a leaf of the hierarchy
        ),
        min_size=1,
        max_size=3,
    ),
    rows=st.lists(st.lists(st.sampled_from(CELLS), min_size=3, max_size=3), min_size=1),
    other=st.lists(st.sampled_from(["x", "y", None]), min_size=1),
)
def test_leaf_columns_give_the_general_table(columns, rows, other) -> None:
    n = len(rows)
    data, spec = {}, {}
    for i, (policy, marker) in enumerate(columns):
        data[f"q{i}"] = [r[i] for r in rows]
        spec[f"q{i}"] = {"role": "quasi", "hierarchy": _hierarchy(marker), "missing": policy}
    data["s"] = (other * n)[:n]  # a sensitive column with missing cells: rows may be dropped
    spec["s"] = {"role": "sensitive", "missing": "drop"}
    objects = pd.DataFrame(data, dtype=object)
    arrow = objects.astype({c: "string[pyarrow]" for c in objects.columns})
    general, fast = _encoded(objects, spec), _encoded(arrow, spec)
    if isinstance(general, str) or isinstance(fast, str):
        assert general == fast
        return
    assert fast.columns == general.columns and list(fast.index) == list(general.index)
    for c in general.columns:
        assert fast.dictionary(c).tolist() == general.dictionary(c).tolist(), c
        np.testing.assert_array_equal(fast.codes(c), general.codes(c))
        assert fast.codes(c).dtype == general.codes(c).dtype
        if c in fast.schema.quasi:
            assert fast.schema.hierarchy(c).leaves == general.schema.hierarchy(c).leaves


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (["a", "d", "a"], [0, 3, 0]),
        (["a", "?"], None),  # not a leaf
        (["a", None], None),  # a missing cell
    ],
)
def test_text_leaf_codes(cells, expected) -> None:
    codes = text_leaf_codes(pd.Series(cells, dtype="string[pyarrow]"), _hierarchy(False))
    assert (codes is None) if expected is None else (codes.tolist() == expected)
    assert text_leaf_codes(pd.Series(["a"], dtype=object), _hierarchy(False)) is None
