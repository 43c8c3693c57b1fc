"""Whether married, the marital status and the years of schooling are demographics by their
name, tried before the answer-scale rule reads their whole numbers as a rating scale.

causaldata's ``close_college`` (3,010 men of Card's NLS Young Men extract) had ``married``,
codes 1 to 6 of the marital status, proposed sensitive as "opinions and attitudes" (so had
wooldridge's ``card``, the same men); Ecdat's ``Kakadu`` (1,827 Australians asked about a
national park) had ``schooling``, the years of schooling coded 0 to 8, proposed so too. Both are
what others know of a person: quasi-identifiers. Marital status codes have no order: a flat
hierarchy, never neighbouring codes grouped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from name_rules import rule_group
from real_surveys import rdataset

from microanon.apps.init.hierarchies import plan_hierarchy
from microanon.apps.init.keys import hierarchy_levels
from microanon.apps.init.profile import (
    NOMINAL_CODES,
    NOMINAL_LARGEST,
    profile_column,
    profile_table,
)
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role

DEMOGRAPHIC = "a demographic"


@pytest.mark.parametrize(
    "name",
    [
        "married",
        "Married",
        "marr",
        "b.marr",
        "nevermarried",
        "never_married",
        "unmarried",
        "years_married",
        "marstat",
        "MAR_STAT",
        "schooling",
        "yrschool",
        "yearsschool",
        "school_years",
        "yschool",
        "yrs_school",
        "years_of_school",
    ],
)
def test_marital_and_schooling_names_are_demographics(name: str) -> None:
    assert rule_group(name) == DEMOGRAPHIC


@pytest.mark.parametrize(
    "name", ["school", "schoolid", "school80", "highschool", "school_req", "marriage", "market"]
)
def test_a_school_and_other_names_are_not(name: str) -> None:
    """A bare ``school`` may number schools (mlmRev's ``Exam``, 65 schools); a ``marriage``
    may be a country's law (openintro's ``hfi``): no demographic by the name."""
    assert rule_group(name) != DEMOGRAPHIC


def _scale_table() -> pd.DataFrame:
    """Whole numbers on a consecutive range, as a rating scale's answers are, under three
    names: a marital status 1 to 6, years of schooling 0 to 8, and an opinion item 1 to 5."""
    rng = np.random.default_rng(5)
    n = 600
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "married": rng.integers(1, 7, n),
            "schooling": rng.integers(0, 9, n),
            "trust_police": rng.integers(1, 6, n),
        }
    )


def test_the_name_is_tried_before_the_answer_scale() -> None:
    frame = _scale_table()
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("married", "schooling"):
        p = proposals[column]
        assert (p.role, p.rule) == (Role.QUASI, "name"), p
        assert p.reason.startswith(f"name rule: '{column}' looks like {DEMOGRAPHIC}; ")
    p = proposals["trust_police"]  # (the scale rule still reads an item without such a name)
    assert p.role is Role.SENSITIVE
    renamed = frame.rename(columns={"married": "q12", "schooling": "q13"})
    by_values = {p.column: p.rule for p in propose_roles(renamed, profile_table(renamed))}
    assert by_values["q12"] == by_values["q13"] == "answer-scale"


def test_marital_status_codes_get_a_flat_hierarchy() -> None:
    """Codes 1 to 6 under ``married``: categories without order, each code or ``*``; years of
    schooling keep their order (intervals or a balanced tree of neighbours)."""
    frame = _scale_table()
    married = profile_column(frame["married"])
    assert married.type == "categorical"
    plan = plan_hierarchy(frame["married"], married, missing_leaf=False)
    assert plan.hierarchy is not None and plan.spec is None
    assert [list(path) for path in plan.hierarchy.paths()] == [["*", str(v)] for v in range(1, 7)]
    assert "its numbers code categories that have no order" in plan.how
    schooling = profile_column(frame["schooling"])
    assert schooling.type == "numeric"
    assert plan_hierarchy(frame["schooling"], schooling, missing_leaf=False).spec is not None


def test_a_married_dummy_is_a_flat_pair() -> None:
    """A 0/1 ``married`` (most files: wooldridge's ``wage1``, LaLonde's ``marr``): each value
    or ``*``, two levels, as the balanced binary tree over two values a dummy of another name
    gets."""
    dummy = pd.Series([0, 1, 1, 0, 1, 1], name="marr")
    plan = plan_hierarchy(dummy, profile_column(dummy), missing_leaf=False)
    assert [list(path) for path in plan.hierarchy.paths()] == [["*", "0"], ["*", "1"]]
    other = dummy.rename("nodeg")
    assert hierarchy_levels(other, profile_column(other)) == 2 == plan.hierarchy.n_levels


@pytest.mark.parametrize(
    ("package", "item", "column", "values"),
    [
        ("causaldata", "close_college", "married", [1, 2, 3, 4, 5, 6]),
        ("wooldridge", "card", "married", [1, 2, 3, 4, 5, 6]),
        ("Ecdat", "Kakadu", "schooling", [0, 1, 2, 3, 4, 5, 6, 8]),
    ],
)
def test_on_the_real_files_they_are_quasi_identifiers(package, item, column, values):
    frame = rdataset(package, item)
    assert sorted(frame[column].dropna().unique()) == values
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    p = proposals[column]
    assert (p.role, p.rule) == (Role.QUASI, "name"), p
    assert p.reason.startswith(f"name rule: '{column}' looks like {DEMOGRAPHIC}; ")
    assert profile_column(frame[column]).type == (
        "categorical" if column == "married" else "numeric"
    )


def test_a_count_named_married_keeps_its_numbers():
    """wooldridge's ``meapsingle`` (229 Michigan schools): ``married`` counts the married
    parents of each school's pupils (82 numbers from 282 to 11,479): a count, read as
    numbers, not as the codes of a marital status; so are more distinct numbers than codes
    number."""
    frame = rdataset("wooldridge", "meapsingle")
    assert frame["married"].max() > NOMINAL_LARGEST
    assert profile_column(frame["married"]).type == "numeric"
    codes = pd.Series([*range(1, NOMINAL_CODES), NOMINAL_LARGEST] * 2, name="married")
    assert profile_column(codes).type == "categorical"
    assert profile_column(codes.replace(1, NOMINAL_LARGEST + 1)).type == "numeric"
    assert profile_column(pd.Series(range(NOMINAL_CODES + 1), name="married")).type == "numeric"
