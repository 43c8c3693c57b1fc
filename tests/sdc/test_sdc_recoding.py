"""Global recoding: hierarchy levels, category maps, interval breaks (R's cut rules), errors."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest

from microanon.core import Table
from microanon.core.errors import InputError, SchemaError
from microanon.core.hierarchy import parse_interval
from microanon.datasets import adult_schema, load_adult
from microanon.methods.sdc.recoding import global_recode, recode_breaks

SCHEMA = {
    "age": {"role": "quasi", "kind": "numeric"},
    "marital": "quasi",
    "edu": {"role": "quasi", "kind": "ordinal", "order": ["low", "mid", "high"]},
    "income": {"role": "sensitive", "kind": "numeric"},
}


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "age": [17, 25, 38, 64, 90],
        "marital": ["single", "widowed", "divorced", "married", "widowed"],
        "edu": ["low", "mid", "high", "mid", "low"],
        "income": [1.0, 2.0, 3.0, 4.0, 5.0],
    })  # fmt: skip


def test_adult_levels_equal_table_recode():
    adult = load_adult()
    schema = adult_schema(sensitive="occupation")
    levels = {"age": 2, "education": 1, "native_country": 1}
    rel = global_recode(adult, schema, levels=levels)
    expected = Table.from_frame(adult, schema).recode(levels).to_frame()
    for c in levels:
        assert rel.data[c].tolist() == expected[c].tolist()
    assert rel.data["sex"].tolist() == adult["sex"].tolist()
    assert rel.metadata["recoded"]["age"] == {"how": "level", "level": 2, "before": 72, "after": 8}
    assert rel.metadata["parameters"] == {"levels": levels, "maps": None}


def test_one_level_for_columns():
    adult = load_adult().head(500)
    schema = adult_schema(sensitive="occupation")
    rel = global_recode(adult, schema, levels=1, columns=["race", "sex"])
    assert set(rel.metadata["recoded"]) == {"race", "sex"}
    default = global_recode(adult, schema, levels=1)
    assert "age" not in default.metadata["recoded"]  # numeric: not a default column
    assert "workclass" in default.metadata["recoded"]


def test_category_map_merges_and_keeps_unlisted(frame):
    rel = global_recode(frame, SCHEMA, maps={"marital": {"widowed": "w/d", "divorced": "w/d"}})
    assert rel.data["marital"].tolist() == ["single", "w/d", "w/d", "married", "w/d"]
    assert rel.metadata["recoded"]["marital"] == {"how": "map", "before": 4, "after": 3}
    ordinal = global_recode(frame, SCHEMA, maps={"edu": {"mid": "mid+", "high": "mid+"}})
    assert ordinal.data["edu"].tolist() == ["low", "mid+", "mid+", "mid+", "low"]


def test_map_keys_of_the_domain_absent_from_the_data_are_fine(frame):
    rel = global_recode(frame.assign(edu="low"), SCHEMA, maps={"edu": {"high": "top"}})
    assert rel.data["edu"].tolist() == ["low"] * 5


def test_breaks_right_closed_like_sdcmicro(frame):
    rel = global_recode(frame, SCHEMA, maps={"age": {"breaks": [0, 20, 40, 100]}})
    assert rel.data["age"].tolist() == ["(0, 20]", "(20, 40]", "(20, 40]", "(40, 100]", "(40, 100]"]
    assert rel.metadata["recoded"]["age"] == {"how": "breaks", "before": 5, "after": 3}
    assert rel.data["income"].tolist() == frame["income"].tolist()


def test_break_rules_and_labels_parse_as_intervals():
    x = np.array([0.0, 10.0, 15.5, 20.0])
    right = recode_breaks(x, [0, 10, 20], include_lowest=True)
    assert right.tolist() == ["[0, 10]", "[0, 10]", "(10, 20]", "(10, 20]"]
    left = recode_breaks(x, [0, 10, 20], right=False, include_lowest=True)
    assert left.tolist() == ["[0, 10)", "[10, 20]", "[10, 20]", "[10, 20]"]
    for label, value in zip(right, x, strict=True):
        iv = parse_interval(label)
        assert iv is not None and iv.lo <= value <= iv.hi
    assert parse_interval("(10, 20]") == (10.0, 20.0, False, True)
    half = recode_breaks(np.array([0.25, 0.75]), [0, 0.5, 1.0])
    assert half.tolist() == ["(0, 0.5]", "(0.5, 1]"]


def test_custom_labels_may_merge_intervals(frame):
    spec = {"breaks": [0, 18, 65, 120], "labels": ["minor", "adult", "minor"]}
    rel = global_recode(frame, SCHEMA, maps={"age": spec})
    assert rel.data["age"].tolist() == ["minor", "adult", "adult", "adult", "minor"]


def test_maps_and_levels_together():
    adult = load_adult().head(300)
    rel = global_recode(
        adult, adult_schema(sensitive="occupation"),
        levels={"education": 1}, maps={"age": {"breaks": [0, 50, 100]}},
    )  # fmt: skip
    assert set(rel.data["age"]) <= {"(0, 50]", "(50, 100]"}
    assert rel.metadata["recoded"]["education"]["how"] == "level"


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({}, InputError, "needs maps or levels"),
        ({"maps": {"age": {"breaks": [20, 40, 100]}}}, InputError, r"1 value\(s\) fall outside"),
        ({"maps": {"age": {"breaks": [0, 40]}}}, InputError, "e.g. 64"),
        ({"maps": {"age": {"breaks": [0, 40, 40, 100]}}}, InputError, "strictly increasing"),
        ({"maps": {"age": {"breaks": [0]}}}, InputError, "at least two"),
        ({"maps": {"age": {"breaks": ["a", "b"]}}}, InputError, "numbers"),
        ({"maps": {"age": {"breaks": [0, 100], "labels": ["a", "b"]}}}, InputError, "2 label"),
        ({"maps": {"age": {"breaks": [0, 100], "right": "yes"}}}, InputError, "right"),
        ({"maps": {"age": {"breaks": [0, 100], "width": 5}}}, InputError, "width"),
        ({"maps": {"marital": {"breaks": [0, 1]}}}, InputError, "'marital' is categorical"),
        ({"maps": {"age": {17: "young"}}}, InputError, "'age' is numeric"),
        ({"maps": {"marital": {"widow": "w"}}}, InputError, "'widow'"),
        ({"maps": {"marital": ["a"]}}, InputError, "expected a mapping"),
        ({"maps": {"nope": {"a": "b"}}}, InputError, "'nope'"),
        ({"levels": {"marital": 1}}, SchemaError, "no hierarchy"),
        ({"levels": 1, "columns": ["marital"]}, SchemaError, "no hierarchy"),
        ({"levels": 1}, InputError, "no categorical or ordinal quasi-identifier has a hierarchy"),
        ({"levels": "1"}, InputError, "levels"),
        ({"maps": {"marital": {"a": "b"}}, "columns": ["marital"]}, InputError, "columns"),
        (
            {"levels": {"marital": 1}, "columns": ["marital"]},
            InputError,
            r"got levels=\{'marital': 1\}\): give levels per column as a mapping without columns",
        ),
    ],
)
def test_errors(frame, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        global_recode(frame, SCHEMA, **kwargs)


def test_level_errors():
    adult = load_adult().head(100)
    schema = adult_schema(sensitive="occupation")
    with pytest.raises(InputError, match=r"levels\['age'\]: level 9"):
        global_recode(adult, schema, levels={"age": 9})
    with pytest.raises(InputError, match="levels must be an integer >= 0"):
        global_recode(adult, schema, levels={"age": 1.5})
    with pytest.raises(InputError, match="both a level and a map"):
        global_recode(adult, schema, levels={"age": 1}, maps={"age": {"breaks": [0, 100]}})


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.recoding")
    assert doctest.testmod(module).failed == 0
