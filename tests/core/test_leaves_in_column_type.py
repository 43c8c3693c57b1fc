"""A hierarchy's leaves in the type of its column's numbers (``core/number_text.py``).

:func:`~microanon.core.number_text.in_column_type` is the one rule: the builders made their
leaves with it before it was named (``int`` in a column of whole numbers, ``float`` in a decimal
one), and :meth:`Schema.resolve` now applies it to every hierarchy of a column of numbers, a
hierarchy file's text leaves first among them (ARX's Adult age file, ``17;15-19;...``).
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microanon.core.errors import HierarchyError
from microanon.core.hierarchy import Hierarchy, value_key
from microanon.core.number_text import in_column_type
from microanon.core.schema import Schema, leaves_in_column_type
from microanon.core.table import Table
from microanon.datasets import _files, load_adult
from microanon.datasets.hierarchies import ADULT_ARX_HIERARCHY_FILES


def _adult_age_file() -> Hierarchy:
    """ARX's Adult age hierarchy as its file writes it: the leaves are text (``"17"``)."""
    text = _files.read_text(ADULT_ARX_HIERARCHY_FILES["age"])
    return Hierarchy.from_arx_csv(io.StringIO(text), name="age")


@pytest.fixture(scope="module")
def adult_age() -> pd.Series:
    return load_adult("train")["age"]


# --------------------------------------------------------------------------- the rule


def _builders_leaf(v: float, whole: bool) -> int | float:
    """The leaf the interval and quantile builders made of a number before the rule was named
    (``hierarchy_builders._leaf``)."""
    return int(v) if whole and float(v).is_integer() else float(v)


finite = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(-(10**6), 10**6).map(float),
)


@given(value=finite, whole=st.booleans())
def test_a_number_takes_the_type_the_builders_gave_it(value, whole):
    """Property: the rule is the builders' for a number, and a number's text (``str``, as a
    file writes it) is that number: same value, same type, same key."""
    expected = _builders_leaf(value, whole)
    got = in_column_type(value, whole)
    assert got == expected and type(got) is type(expected)
    from_text = in_column_type(f" {value!s} ", whole)
    assert type(from_text) is type(expected)
    assert from_text == expected or math.isclose(from_text, expected)
    assert value_key(got) == value_key(value)


def test_text_that_writes_no_number_stays_as_written():
    for label in ("?", "20-39", "[20, 30)", "*", "nan", "inf", "", "NA"):
        assert in_column_type(label, True) is label and in_column_type(label, False) is label
    assert in_column_type(True, False) is True
    assert in_column_type(float("nan"), True) != in_column_type(float("nan"), True)  # (NaN)


def test_a_whole_number_beyond_a_floats_digits_stays_exact():
    """A leaf ``12345678901234567`` of a column of whole numbers is that number, not the
    nearest float's (…568)."""
    assert in_column_type("12345678901234567", True) == 12345678901234567
    assert in_column_type("20.0", True) == 20 and type(in_column_type("20.0", True)) is int
    assert in_column_type("2.5", True) == 2.5


# --------------------------------------------------------------------------- a file's leaves


def test_adults_age_file_takes_the_columns_type(adult_age):
    """ARX's age file over Adult's ages: whole numbers (Adult's int64 column) make its leaves
    the ints the bundled hierarchy gives them by hand; decimal ones (the column as a file
    writing ``39.0`` is read) floats. The labels above the leaves, the levels and the
    weights are the file's."""
    h = _adult_age_file()
    assert all(type(v) is str for v in h.leaves)
    for column, kind in ((adult_age, int), (adult_age.astype(float), float)):
        attr = Schema.from_dict({"age": {"role": "quasi", "kind": "numeric"}})["age"]
        typed = leaves_in_column_type(h, column, attr)
        assert all(type(v) is kind for v in typed.leaves)
        assert [value_key(v) for v in typed.leaves] == [value_key(v) for v in h.leaves]
        for level in range(1, h.n_levels):
            assert typed.level_labels(level) == h.level_labels(level)
            assert (typed.level_codes(level) == h.level_codes(level)).all()
        assert (typed.weights == h.weights).all()
        assert leaves_in_column_type(typed, column, attr) is typed  # (in its type already)


@pytest.mark.parametrize("written", ["int64", "float64"])
def test_a_table_decodes_level_0_in_the_datas_type(adult_age, written):
    """Table.from_frame with the file's hierarchy: level 0 decodes to the data's numbers in
    their type (``39`` or ``39.0``), where it decoded the file's text to whole numbers."""
    frame = pd.DataFrame({"age": adult_age.astype(written)})
    table = Table.from_frame(
        frame, {"age": {"role": "quasi", "kind": "numeric", "hierarchy": _adult_age_file()}}
    )
    decoded = table.to_frame()["age"]
    assert decoded.dtype == np.dtype(written)
    assert list(map(str, decoded.head(50))) == list(map(str, frame["age"].head(50)))
    generalized = table.recode({"age": 2}).to_frame()["age"]
    assert set(generalized) <= set(_adult_age_file().level_labels(2))


def test_the_value_and_a_leaf_absent_from_the_data(adult_age):
    """Adult's ages as decimals with gaps (``missing: value``): the leaves the data lack (ARX's
    1..16, 91..99) are numbers of the column's type too, and ``?`` a leaf of its own."""
    ages = adult_age.astype(float).copy()
    ages.iloc[:7] = np.nan
    resolved = Schema.from_dict(
        {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": _adult_age_file(),
                "missing": "value",
            }
        }
    ).resolve(pd.DataFrame({"age": ages}))
    leaves = resolved.hierarchy("age").leaves
    assert 1.0 in leaves and 99.0 in leaves and "?" in leaves
    assert all(type(v) is float for v in leaves if v != "?")


def test_a_column_of_text_keeps_the_files_text(adult_age):
    """A quasi-identifier without kind whose values are text (``'39'``): its leaves are
    compared as text and stay the file's."""
    h = _adult_age_file()
    resolved = Schema.from_dict({"age": {"role": "quasi", "hierarchy": h}}).resolve(
        pd.DataFrame({"age": adult_age.astype(str)})
    )
    assert resolved.hierarchy("age") is h


def test_two_leaves_of_one_number_are_refused():
    """A file with the leaves ``20`` and ``20.0`` over a column of numbers: one line naming
    the column and both leaves."""
    h = Hierarchy.from_arx_csv(io.StringIO("20;20-39;*\n20.0;20-39;*\n30;20-39;*\n"), name="age")
    schema = Schema.from_dict({"age": {"role": "quasi", "kind": "numeric", "hierarchy": h}})
    with pytest.raises(HierarchyError) as err:
        schema.resolve(pd.DataFrame({"age": [20, 30]}))
    message = str(err.value)
    assert "\n" not in message and "'age'" in message and "'20'" in message
    assert "'20.0'" in message


# --------------------------------------------------------------------------- property


@given(
    numbers=st.lists(st.integers(0, 500), min_size=1, max_size=40, unique=True),
    decimal_text=st.booleans(),
    whole=st.booleans(),
)
def test_retyping_keeps_the_tree(numbers, decimal_text, whole):
    """Property: a file's tree (leaves written ``n`` or ``n.0``, tens, hundreds, ``*``) retyped
    for either column type has the same nodes, levels, labels above the leaves and keys of
    the numbers, and retyped back it is the same tree."""
    rows = [
        f"{n}{'.0' if decimal_text else ''};{n // 10 * 10}-{n // 10 * 10 + 9};{n // 100}xx;*"
        for n in numbers
    ]
    h = Hierarchy.from_arx_csv(io.StringIO("\n".join(rows)), name="x")
    before = (h.paths(), h.to_dict(), h.label_nodes(0).copy())  # (its cached views made)
    typed = h.with_leaves_in_type(whole)
    assert h.paths() == before[0] and h.to_dict() == before[1]  # (the file's tree unchanged)
    assert [p[-1] for p in typed.paths()] == typed.leaves
    assert [p[-1] for p in typed.to_dict()["paths"]] == typed.leaves
    assert (typed.label_nodes(0) == before[2]).all()
    assert [type(v) for v in typed.leaves] == [int if whole else float] * len(numbers)
    assert [value_key(v) for v in typed.leaves] == [value_key(float(v)) for v in h.leaves]
    assert (typed.parents() == h.parents()).all()
    for level in range(1, h.n_levels):
        assert typed.level_labels(level) == h.level_labels(level)
    assert typed.with_leaves_in_type(whole) is typed
    back = typed.with_leaves_in_type(not whole).with_leaves_in_type(whole)
    assert back.leaves == typed.leaves and [type(v) for v in back.leaves] == [
        type(v) for v in typed.leaves
    ]


def test_a_hierarchy_is_put_in_a_column_s_type_once():
    """The copy of a hierarchy in a column's type is made once and given back on every later
    run (each run resolves its schema anew); a hierarchy of text, whose leaves write no
    number, is itself whatever the column."""
    from microanon.core.hierarchy import Hierarchy

    numbers = Hierarchy.from_paths([["*", "20-39", "20"], ["*", "20-39", "30"]])
    assert numbers.leaves_write_numbers
    decimal = numbers.with_leaves_in_type(False)
    assert decimal.leaves == [20.0, 30.0] and numbers.leaves == ["20", "30"]
    assert numbers.with_leaves_in_type(False) is decimal
    assert decimal.with_leaves_in_type(False) is decimal  # (already in the type)
    text = Hierarchy.from_paths([["*", "M"], ["*", "F"]])
    assert not text.leaves_write_numbers and text.with_leaves_in_type(True) is text
