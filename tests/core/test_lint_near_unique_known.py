"""A column is near-unique by the rows that hold a value: its missing cells single no record out.

The Mayo Clinic's primary biliary cirrhosis trial (survival's ``pbc``, 418 patients): the serum
cholesterol, measured on 284 of them, holds 201 distinct values, seven in ten of its records
single. Counted on all 418 rows (0.48 a row) it was no near-unique column, and ``microanon init``
proposed it insensitive: published unchanged, as the lint let it be.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon import lint_schema
from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.lint import UNIQUE_SHARE
from microanon.core.schema import Role


def _pbc() -> pd.DataFrame:
    return rdataset("survival", "pbc")


def test_pbc_cholesterol_is_near_unique_by_the_patients_measured():
    pbc = _pbc()
    report = lint_schema(pbc, {"age": "quasi", "sex": "quasi", "chol": "insensitive"})
    (finding,) = [f for f in report.findings if f.column == "chol"]
    assert finding.kind == "near_unique"
    assert finding.evidence.startswith("201 distinct values on 284 rows with a value (of 418);")
    assert round(finding.strength, 3) == round(201 / 284, 3)


def test_init_drops_pbc_cholesterol_as_near_unique():
    pbc = _pbc()
    roles = {p.column: p for p in propose_roles(pbc, profile_table(pbc))}
    chol = roles["chol"]
    assert chol.role is Role.IDENTIFIER and chol.rule == "near-unique"
    assert "201 distinct values on 284 rows with a value (of 418)" in chol.reason


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(0, 40)), min_size=1, max_size=60),
    st.integers(0, 2**32 - 1),
)
def test_near_unique_by_the_plain_definition(values, seed):
    """The finding, and init's rule, against the plain definition: at least two distinct
    values, and at least one per two rows with a value."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": pd.array(values, dtype="Int64"),
            "g": rng.choice(["a", "b"], len(values)),
        }
    )
    known = int(frame["x"].notna().sum())
    distinct = int(frame["x"].nunique(dropna=True))
    expected = distinct >= max(2, UNIQUE_SHARE * known)
    report = lint_schema(frame, {"g": "quasi", "x": "insensitive"})
    found = [f for f in report.findings if f.column == "x" and f.kind == "near_unique"]
    assert bool(found) == expected
    (profile,) = [p for p in profile_table(frame) if p.name == "x"]
    assert profile.near_unique == expected
