"""Builders over a declared domain (``intervals`` with ``start`` and ``end``, a column's
``categories`` or ``order``) and error messages that show values as plain values (``98``, never
``np.int64(98)``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microanon import Hierarchy, HierarchyError, InputError, Schema, Table
from microanon.core.hierarchy import MAX_DECLARED_LEAVES
from microanon.core.keys import number_text_key, shown, value_key


def test_intervals_with_start_and_end_cover_every_whole_number_of_the_domain():
    h = Hierarchy.intervals([20, 35], [5, 10], start=0, end=99, name="age")
    assert h.leaves == list(range(100))
    assert h.generalize([98], 1).tolist() == ["[95, 100)"]
    assert h.generalize([np.int64(98)], 2).tolist() == ["[90, 100)"]


def test_intervals_over_a_declared_domain_keep_values_between_whole_numbers():
    h = Hierarchy.intervals([2.5, 7], [5], start=0, end=9)
    assert h.n_leaves == 11 and h.contains(2.5) and h.generalize([2.5], 1).tolist() == ["[0, 5)"]


def test_intervals_without_end_are_built_on_the_values_alone():
    h = Hierarchy.intervals([20, 35], [5, 10], start=0)
    assert h.leaves == [20, 35]


@pytest.mark.parametrize(
    ("values", "kwargs", "message"),
    [
        (
            [20, 130],
            {"start": 0, "end": 120},
            "column 'age': value 130 is outside the intervals' domain [0, 120]",
        ),
        (
            [-1],
            {"start": 0, "end": 120},
            "column 'age': value -1 is outside the intervals' domain [0, 120]",
        ),
        ([20], {"end": 120}, "column 'age': intervals with an 'end' need a 'start' too"),
        ([20], {"start": 50, "end": 10}, "column 'age': the intervals' end 10 is below start 50"),
        ([], {"start": 0.2, "end": 0.8}, "column 'age': [0.2, 0.8] holds no whole number"),
        (
            [20],
            {"start": 0, "end": 10**7},
            f"holds more than {MAX_DECLARED_LEAVES:,} whole numbers",
        ),
    ],
)
def test_intervals_domain_errors_are_one_line(values, kwargs, message):
    with pytest.raises(HierarchyError) as info:
        Hierarchy.intervals(values, [5, 10], name="age", **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_schema_intervals_builder_takes_end():
    schema = Schema.from_dict(
        {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10], "start": 0, "end": 120},
            }
        }
    )
    h = schema.resolve(pd.DataFrame({"age": [30, 40]})).hierarchy("age")
    assert h.n_leaves == 121 and h.contains(98)


def test_builders_cover_the_declared_categories_not_only_the_data():
    schema = Schema.from_dict(
        {
            "grade": {
                "role": "quasi",
                "categories": ["a", "b", "c", "d"],
                "hierarchy": {"builder": "balanced", "fanout": 2},
            },
            "zip": {
                "role": "quasi",
                "categories": ["13053", "13068", "14850"],
                "hierarchy": {"builder": "masking", "max_masked": 2},
            },
        }
    )
    df = pd.DataFrame({"grade": ["a", "b"], "zip": ["13053", "13053"]})
    resolved = schema.resolve(df)
    assert resolved.hierarchy("grade").leaves == ["a", "b", "c", "d"]
    assert sorted(resolved.hierarchy("zip").leaves) == ["13053", "13068", "14850"]
    # a value of a later table that the categories declare is a leaf
    later = pd.DataFrame({"grade": ["d", "c"], "zip": ["14850", "13068"]})
    assert Table.from_frame(later, resolved).to_frame()["grade"].tolist() == ["d", "c"]


def test_an_ordinal_order_is_the_declared_domain_of_balanced():
    schema = Schema.from_dict(
        {
            "size": {
                "role": "quasi",
                "kind": "ordinal",
                "order": ["S", "M", "L", "XL"],
                "hierarchy": {"builder": "balanced"},
            }
        }
    )
    h = schema.resolve(pd.DataFrame({"size": ["S", "M"]})).hierarchy("size")
    assert h.leaves == ["S", "M", "L", "XL"]


def test_quantiles_stay_cut_on_the_records():
    schema = Schema.from_dict(
        {
            "x": {
                "role": "quasi",
                "categories": [1, 2, 3, 9],
                "hierarchy": {"builder": "quantiles", "bins": [2]},
            }
        }
    )
    assert schema.resolve(pd.DataFrame({"x": [1, 2, 3]})).hierarchy("x").leaves == [1, 2, 3]


# ---------------------------------------------------------------------------- plain values


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (np.int64(98), "98"),
        (np.float64(2.5), "2.5"),
        (np.str_("PR"), "'PR'"),
        ("PR", "'PR'"),
        (98, "98"),
        (np.bool_(True), "True"),
        (pd.Timestamp("2020-01-31"), "'2020-01-31'"),
        (pd.Timestamp("2020-01-31 13:45"), "'2020-01-31 13:45:00'"),
    ],
)
def test_shown_prints_plain_values(value, text):
    assert shown(value) == text


def test_leaf_lookup_error_shows_98_not_np_int64():
    h = Hierarchy.intervals(range(17, 91), [5, 10], start=15, name="age")
    with pytest.raises(HierarchyError) as info:
        h.leaf_index(np.array([30, 98, 97], dtype=np.int64), column="age")
    assert str(info.value) == "column 'age': 2 value(s) not in its hierarchy: 97, 98"
    assert "np." not in str(info.value)


def test_schema_validation_errors_show_plain_values():
    schema = Schema.from_dict(
        {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": Hierarchy.intervals(range(17, 91), [5]),
            }
        }
    )
    with pytest.raises(HierarchyError, match=r"not in its hierarchy: 98$") as info:
        schema.validate(pd.DataFrame({"age": np.array([30, 98], dtype=np.int64)}))
    assert "np." not in str(info.value)
    numeric = Schema.from_dict({"age": {"role": "quasi", "kind": "numeric"}})
    with pytest.raises(InputError, match=r"non-numeric value\(s\), e\.g\. 'x'$"):
        numeric.validate(pd.DataFrame({"age": np.array(["30", "x"], dtype=object)}))


def test_numeric_builder_error_shows_a_plain_value():
    with pytest.raises(HierarchyError, match=r"needs numeric values, got 'x'$"):
        Hierarchy.intervals(np.array(["x"]), [5])


@given(
    st.lists(st.integers(0, 200), min_size=1, max_size=40),
    st.sampled_from([[1], [5], [5, 10], [2, 10, 20]]),
    st.integers(0, 50),
)
def test_declared_intervals_contain_the_builder_over_the_values(values, widths, span):
    """Over ``[start, end]``, each value gets the same intervals as from the values alone, and
    every whole number of the domain is a leaf."""
    start, end = min(values) - span, max(values) + span
    declared = Hierarchy.intervals(values, widths, start=start, end=end)
    plain = Hierarchy.intervals(values, widths, start=start)
    assert declared.n_leaves == end - start + 1
    for level in range(1, len(widths) + 1):
        assert (
            declared.generalize(values, level).tolist() == plain.generalize(values, level).tolist()
        )


def test_declared_categories_written_as_text_match_the_data_numbers():
    schema = Schema.from_dict(
        {
            "grade": {
                "role": "quasi",
                "categories": ["1", "2", "3", "4"],
                "hierarchy": {"builder": "balanced", "fanout": 2},
            }
        }
    )
    h = schema.resolve(pd.DataFrame({"grade": np.array([1, 2], dtype=np.int64)})).hierarchy("grade")
    assert h.n_leaves == 4 and h.contains(3) and h.contains("1")


@given(
    st.lists(st.floats(-1e7, 1e7, allow_nan=False, allow_infinity=False), min_size=2, max_size=60),
    st.lists(st.integers(2, 5), min_size=1, max_size=2),
)
def test_every_quantile_label_holds_the_values_below_it(values, bins):
    """A range label of a quantiles hierarchy holds every leaf under it when its bounds are read
    back as numbers: a bound is written with six significant digits only where they are the
    bound (a value of -0.0737419781 was left out of the label [-1.92828, -0.073742])."""
    distinct = sorted(set(values))
    if len(distinct) < max(bins):
        return
    tree = Hierarchy.quantiles(distinct, sorted(bins, reverse=True))
    frame = tree.to_frame()
    for row in frame.itertuples(index=False):
        leaf = float(row[0])
        for label in row[1:]:
            if isinstance(label, str) and label.startswith("["):
                low, high = (float(x) for x in label.strip("[])").split(","))
                assert low <= leaf <= high, (leaf, label)


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**9), 10**9))
def test_a_number_written_as_text_meets_its_value_key(number):
    """``'1.0'`` (how a float column with ``?`` is published) meets ``1`` (a hierarchy's whole
    number) on one key; text that writes no number has none."""
    assert number_text_key(str(number)) == value_key(number)
    assert number_text_key(str(float(number))) == value_key(float(number))
    assert number_text_key("?") is None and number_text_key(1.0) is None
    assert number_text_key("inf") is None


def test_masking_more_characters_than_a_value_has_is_the_whole_value():
    """max_masked above the longest value's length adds no level (it had added one identical
    fully masked level per character asked for: 98 of them for 99 on two-digit codes)."""
    codes = ["02", "17", "31"]
    assert Hierarchy.masking(codes, max_masked=99).height == Hierarchy.masking(codes).height == 3
    assert Hierarchy.masking(codes, max_masked=0).height == 1
    with pytest.raises(HierarchyError, match=r"^column 'zip': max_masked must be a whole number"):
        Hierarchy.masking(codes, max_masked="two", name="zip")
