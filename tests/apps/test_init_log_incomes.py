"""A log wage or income is financial data by its name, as the wage or the income is: the sweep
of files not seen before found wooldridge's census2000 ``lweekinc`` (the log of weekly income)
and HLMdiag's wages ``lnw`` (the log hourly wage) proposed insensitive and published unchanged
beside no raw income for the lint to tie them to."""

from __future__ import annotations

import pytest
from name_rules import rule_group
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


@pytest.mark.parametrize(
    "name",
    [
        "lnw",
        "lweekinc",
        "lwage",
        "ln_wage",
        "log_income",
        "LnIncome",
        "lhwage",
        "linc",
        "wage76",
        "lwage76",
        "inc2019",
    ],
)
def test_log_wages_and_incomes_are_financial_data(name: str) -> None:
    assert rule_group(name) == "financial data"


@pytest.mark.parametrize(
    "name", ["lw", "lunch", "lnage", "lnhrs", "length", "lincoln", "age76", "incline2"]
)
def test_other_names_beginning_so_are_not(name: str) -> None:
    assert rule_group(name) != "financial data"


@pytest.mark.parametrize(
    ("package", "item", "column"),
    [
        ("wooldridge", "census2000", "lweekinc"),
        ("HLMdiag", "wages", "lnw"),
        # (a year after the name: proposed insensitive, "no rule fired", and published as is)
        ("Ecdat", "Schooling", "wage76"),
        ("Ecdat", "Schooling", "lwage76"),
    ],
)
def test_on_the_real_files_they_are_proposed_sensitive(
    package: str, item: str, column: str
) -> None:
    """Sensitive by name; Schooling's ``lwage76``, the log of ``wage76`` beside it, then
    dropped as computed from it (the copy rule), its reason keeping the name rule's."""
    frame = rdataset(package, item)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert "financial data" in proposals[column].reason
    if column == "lwage76":
        assert proposals[column].role is Role.IDENTIFIER and proposals[column].rule == "copy"
        assert "computed from sensitive column wage76" in proposals[column].reason
    else:
        assert proposals[column].role is Role.SENSITIVE
