"""Real earnings named by the year, ``re74``, ``re75``, ``re78``, are financial data by their
name: LaLonde's job-training data (DAAG's ``cps1``, ``psid1`` and ``nsw74psid1``, Ecdat's
``Treatment``, causaldata's ``nsw_mixtape``) had them proposed insensitive, "no rule fired",
and published unchanged: each man's earnings in 1974, 1975 and 1978."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from name_rules import rule_group
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


@pytest.mark.parametrize("name", ["re74", "re75", "re78", "RE74", "Re78"])
def test_re_and_a_year_is_financial_data(name: str) -> None:
    assert rule_group(name) == "financial data"


@pytest.mark.parametrize(
    "name", ["re", "re7", "re741", "rep74", "pre74", "core78", "area74", "score75", "r74"]
)
def test_other_names_with_re_and_digits_are_not(name: str) -> None:
    """Only ``re`` and two digits, the name as a whole: ``re`` before another number, or two
    digits after other letters, is no year's earnings."""
    assert rule_group(name) != "financial data"


def test_a_made_up_table_s_earnings_are_sensitive_by_their_name() -> None:
    rng = np.random.default_rng(4)
    n = 500

    def earnings() -> np.ndarray:  # (a year without work earns 0)
        return np.where(rng.random(n) < 0.3, 0.0, rng.lognormal(9, 0.8, n).round(2))

    frame = pd.DataFrame({"age": rng.integers(17, 55, n), "re74": earnings(), "re78": earnings()})
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("re74", "re78"):
        p = proposals[column]
        assert (p.role, p.rule) == (Role.SENSITIVE, "name"), p
        assert p.reason.startswith(f"name rule: '{column}' looks like financial data; ")


@pytest.mark.parametrize(
    ("package", "item"),
    [
        ("DAAG", "cps1"),
        ("DAAG", "psid1"),
        ("DAAG", "nsw74psid1"),
        ("Ecdat", "Treatment"),
        ("causaldata", "nsw_mixtape"),
    ],
)
def test_on_the_real_files_they_are_proposed_sensitive(package: str, item: str) -> None:
    frame = rdataset(package, item)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("re74", "re75", "re78"):
        p = proposals[column]
        assert (p.role, p.rule) == (Role.SENSITIVE, "name"), p
        assert "'" + column + "' looks like financial data" in p.reason
