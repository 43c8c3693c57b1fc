"""``microanon init``'s name rules for an occupation's code, a person's number, smoking and a
cause of death, on the real files that showed them: openintro's
``labor_market_discrimination`` (the Census occupation codes of its job ads, ``occup_specific``
7 to 903 and ``occup_broad``, had been a quasi-identifier by the lint alone and a rating scale
of opinions), Ecdat's ``PSID`` (the person's number in the family, ``persnum``, had been a
quasi-identifier cut into intervals), AER's ``SmokeBan`` and mstate's ``ebmt2``. An
occupation's code is a job, which others know; the word ``occupation`` stays sensitive, as in
ARX's Adult examples."""

from __future__ import annotations

import pytest
from name_rules import rule_group
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def test_the_word_occupation_is_sensitive():
    assert rule_group("occupation") == "an occupation (sensitive in ARX's Adult examples)"


@pytest.mark.parametrize("name", ["occup", "Occup", "occup_specific", "occupCode", "occup_broad"])
def test_an_occupation_s_code_is_a_job(name):
    assert rule_group(name) == "a job or employment"


@pytest.mark.parametrize("name", ["occupday", "occupied", "occupancy", "preoccupied"])
def test_other_words_are_not(name):
    """Ecdat's MCAS ``occupday`` (a school's share in occupational day programmes), housing's
    occupied units."""
    assert rule_group(name) is None


@pytest.mark.parametrize("name", ["persnum", "pers_num", "personnum", "idnum", "idNum"])
def test_a_person_s_number_is_an_identifier(name):
    assert rule_group(name) == "a record or person identifier"


def test_on_the_real_files():
    labor = rdataset("openintro", "labor_market_discrimination")
    roles = {p.column: p for p in propose_roles(labor, profile_table(labor))}
    for column in ("occup_specific", "occup_broad"):
        assert (roles[column].role, roles[column].rule) == (Role.QUASI, "name")
    psid = rdataset("Ecdat", "PSID")
    roles = {p.column: p for p in propose_roles(psid, profile_table(psid))}
    assert (roles["persnum"].role, roles["persnum"].rule) == (Role.IDENTIFIER, "name")


@pytest.mark.parametrize("name", ["smoker", "smoke", "levelSmoking", "SMOKER", "stobacco"])
def test_smoking_is_health_data(name):
    assert rule_group(name) == "health data"


@pytest.mark.parametrize("name", ["cod", "cause_of_death", "causeOfDeath"])
def test_a_cause_of_death_is_an_outcome(name):
    assert (
        rule_group(name)
        == "an outcome (a test's result, a death, a survival, a relapse, an arrest)"
    )


def test_smokers_and_causes_of_death_are_no_keys():
    """AER's SmokeBan (10,000 workers: whether each smokes beside a workplace smoking ban) and
    mstate's ebmt2 (8,966 transplant patients, ``cod`` the cause of death): both had been
    quasi-identifiers by their few values, leaving the file with no sensitive column."""
    smoke = rdataset("AER", "SmokeBan")
    roles = {p.column: p for p in propose_roles(smoke, profile_table(smoke))}
    assert (roles["smoker"].role, roles["smoker"].rule) == (Role.SENSITIVE, "name")
    ebmt = rdataset("mstate", "ebmt2")
    roles = {p.column: p for p in propose_roles(ebmt, profile_table(ebmt))}
    assert roles["cod"].role is Role.SENSITIVE


def test_a_condominium_is_no_condom_and_dependents_no_rating_scale():
    """Ecdat's Hmda (2,381 mortgage applications): ``condominium`` had been health data by
    the condom it begins with; wooldridge's loanapp (1,989 applications): ``dep``, the number
    of dependents 0 to 8, had been a rating scale of opinions."""
    assert rule_group("condominium") is None and rule_group("condom") == "health data"
    hmda = rdataset("Ecdat", "Hmda")
    roles = {p.column: p for p in propose_roles(hmda, profile_table(hmda))}
    assert "health data" not in roles["condominium"].reason
    loans = rdataset("wooldridge", "loanapp")
    roles = {p.column: p for p in propose_roles(loans, profile_table(loans))}
    assert roles["dep"].rule != "answer-scale" and "opinions" not in roles["dep"].reason


def test_loan_applications_and_an_education_authority():
    """wooldridge's loanapp: the applicant's income ``appinc`` and the loan's amount
    ``loanamt`` had been published unchanged as insensitive (together unique for most
    applications); mlmRev's Chem97: ``lea``, the local education authority of 31,022 pupils,
    a place others know, had been published unchanged too."""
    assert (
        rule_group("appinc")
        == rule_group("loanamt")
        == rule_group("loan_amount")
        == "financial data"
    )
    loans = rdataset("wooldridge", "loanapp")
    roles = {p.column: p for p in propose_roles(loans, profile_table(loans))}
    assert roles["appinc"].role is Role.SENSITIVE and roles["loanamt"].role is Role.SENSITIVE
    chem = rdataset("mlmRev", "Chem97")
    roles = {p.column: p for p in propose_roles(chem, profile_table(chem))}
    assert roles["lea"].role is Role.QUASI


@pytest.mark.parametrize("name", ["recur", "relapse", "arrest", "rearrest", "cens", "censored"])
def test_a_relapse_an_arrest_and_a_censoring_indicator_are_outcomes(name):
    """survival's rotterdam ``recur``, carData's Rossi ``arrest`` and wooldridge's recid
    ``cens`` had each been a key for its two values; not a census or a consensus."""
    assert rule_group(name).startswith("an outcome")


@pytest.mark.parametrize(
    "name",
    [
        "alcohol",
        "drink",
        "cigs",
        "chemo",
        "hormon",
        "amnesia.before",
        "basal.skull.fracture",
        "GCS.15.2hours",
        "vomiting",
        "loss.of.consciousness",
        "visits",
        "numvisit",
        "mdvis",
    ],
)
def test_drinking_treatments_head_injury_signs_and_visits_are_health_data(name):
    """KMsurv's bfeed alcohol (a key beside smoke, sensitive), wooldridge's bwght2 cigs and
    drink, rotterdam's chemo and hormon, DAAG's headInjury signs (all nine had been keys),
    AER's Medicaid1986 visits."""
    assert rule_group(name) == "health data"


@pytest.mark.parametrize("name", ["census", "consensus", "visit", "visit_date", "site_visit"])
def test_a_census_and_a_single_visit_are_neither(name):
    assert rule_group(name) not in ("health data",) and not str(rule_group(name)).startswith(
        "an outcome"
    )
