"""Findings of running init on files not seen before.

- causaldata's NHEFS (the NHANES I follow-up, 1,629 smokers) asks of conditions (asthma,
  high blood pressure, a peptic ulcer, hepatitis, ...) and measures blood pressure and
  cholesterol: health data, which init had proposed as quasi-identifiers (two values, easy to
  know) or published unchanged. DAAG's monica (high blood pressure, high cholesterol, a
  previous heart attack), survival's flchain (creatinine, a gammopathy) and Ecdat's VietNamI
  (an injury, days of illness) named theirs otherwise.
- openintro's labor_market_discrimination (the resumes of Bertrand and Mullainathan's
  experiment) has ``email``, 0 or 1: whether the resume gave an address. init had dropped it as
  contact details; a flag names no one.
"""

from __future__ import annotations

import pytest
from name_rules import rule_group
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def _proposals(package: str, item: str) -> dict:
    frame = rdataset(package, item)
    return {p.column: p for p in propose_roles(frame, profile_table(frame))}


@pytest.mark.parametrize(
    "name",
    ["asthma", "hbp", "sbp", "dbp", "hbpmed", "pepticulcer", "hepatitis", "hayfever", "tumor"]
    + ["otherpain", "weakheart", "heart_disease", "cholesterol", "birthcontrol", "Diabetes"]
    + ["BloodPressure", "mental_health", "iinfct", "dysuria", "lymph", "highbp", "hichol"]
    + ["premi", "myocardial", "creatinine", "mgus", "injury", "illdays", "bmi", "obesity"],
)
def test_conditions_symptoms_and_measurements_are_health_data(name: str) -> None:
    assert rule_group(name) == "health data"


@pytest.mark.parametrize(
    "name",
    ["spain", "hearth", "heartland", "painting", "delivery", "environmental", "mentality"]
    + ["crash", "switch", "kitchen", "stitch", "infantry", "standard", "tbsp", "premium"]
    + ["premise", "submit", "ambient", "chol_year", "hibernate"],
)
def test_other_names_are_not(name: str) -> None:
    assert rule_group(name) != "health data"


def test_birth_control_is_not_a_birth() -> None:
    assert rule_group("birthcontrol") == "health data"
    assert rule_group("birthplace") == "a demographic"


def test_nhefs_conditions_and_measurements_are_proposed_sensitive() -> None:
    proposals = _proposals("causaldata", "nhefs")
    for column in ("asthma", "pepticulcer", "hepatitis", "tumor", "sbp", "dbp", "cholesterol"):
        assert proposals[column].role is Role.SENSITIVE, proposals[column].reason
        assert "looks like health data" in proposals[column].reason
    assert proposals["age"].role is Role.QUASI and proposals["sex"].role is Role.QUASI
    # high blood pressure is first health data, then a key: its code 2 (no answer) is pica's
    # on the same 791 rows, so published unchanged it would restore pica, a key
    hbp = proposals["hbp"]
    assert hbp.role is Role.QUASI and hbp.rule == "lint:determines_quasi"
    assert "gives quasi-identifier pica (strength 0.99) back" in hbp.reason
    assert "first proposed sensitive: name rule: 'hbp' looks like health data" in hbp.reason


def test_a_flag_named_like_contact_details_is_no_identifier() -> None:
    proposals = _proposals("openintro", "labor_market_discrimination")
    email = proposals["email"]
    assert email.role is Role.QUASI and email.rule == "moderate"
    assert email.reason.startswith(
        "name rule not applied: the name 'email' looks like contact details, but its values "
        "(0, 1) are a flag"
    )
    assert proposals["first_name"].role is Role.IDENTIFIER  # (a name: 36 of them)
    assert proposals["ad_id"].role is Role.IDENTIFIER


def test_monica_s_conditions_are_proposed_sensitive() -> None:
    """DAAG's monica (the WHO MONICA study's 6,367 Australians): high blood pressure, high
    cholesterol and a previous heart attack had been proposed quasi-identifiers (three values,
    easy to know) beside diabetes, angina and stroke, proposed sensitive as health data; the
    demographics stay keys."""
    proposals = _proposals("DAAG", "monica")
    for column in ("highbp", "hichol", "premi", "diabetes", "angina", "stroke"):
        assert proposals[column].role is Role.SENSITIVE, proposals[column].reason
        assert "looks like health data" in proposals[column].reason
    assert proposals["age"].role is Role.QUASI and proposals["sex"].role is Role.QUASI


@pytest.mark.parametrize(
    "name",
    ["cash", "brokerage_accts_tax", "retirement_accts_tax", "invst_accts", "mortgage"]
    + ["2020_taxes", "savings", "spec_crypto", "Assets", "net_worth", "Expenses", "tax_liens"],
)
def test_balances_holdings_and_spending_are_financial_data(name: str) -> None:
    assert rule_group(name) == "financial data"


@pytest.mark.parametrize(
    "name", ["cashier", "taxonomy", "syntax", "ttl_exp", "exper", "investigator", "taxi"]
)
def test_other_money_like_names_are_not(name: str) -> None:
    assert rule_group(name) != "financial data"


def test_reddit_finance_s_balances_are_proposed_sensitive() -> None:
    """openintro's reddit_finance (1,998 answers to a personal-finance survey): the balances of
    cash, brokerage and retirement accounts, a mortgage and the year's taxes had been published
    unchanged as insensitive ("no rule fired"); they are financial data, sensitive."""
    proposals = _proposals("openintro", "reddit_finance")
    for column in ("cash", "brokerage_accts_tax", "retirement_accts_tax", "mortgage"):
        assert proposals[column].role is Role.SENSITIVE, proposals[column].reason
        assert "looks like financial data" in proposals[column].reason
    assert proposals["age"].role is Role.QUASI
