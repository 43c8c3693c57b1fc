"""Roles init proposes on ten real files it had not seen, by their columns' names.

- A pulse is health data (Stat2Data's ``ICU`` ``Pulse``, published unchanged beside a sensitive
  blood pressure), and so are bad health (COUNT's ``badhealth`` ``badh``) and a tumour's
  findings (medicaldata's ``blood_storage``: the tumour's stage ``T.Stage``, the biopsy's
  Gleason score ``bGS``, the family history ``FamHx``, the tumour's volume ``TVol`` and
  whether the disease was confined to the organ, ``OrganConfined``), which had been keys for
  their few values: three quarters of the quasi-identifiers ended ``*`` in every row.
- A treatment received is sensitive: Ecdat's ``Treatment`` ``treat`` (the participants of a
  job-training programme, whose earnings before it were far lower) had been a key, published
  unchanged.
- Outcomes: a social studies score beside the other test scores (openintro's ``hsb2``
  ``socst``, the first key, ``*`` in every row), a course's evaluation (openintro's ``evals``
  ``score``, ``*`` in every row) and whether a customer left (modeldata's ``wa_churn``
  ``churn``) are sensitive.
- A time with an employer or a provider is a key: carData's ``Salaries`` ``yrs.service``
  (published unchanged, 86 of 381 professors unique with the published keys) and
  ``wa_churn``'s ``tenure`` (a customer's months, 2,664 records unique with the keys).
"""

from __future__ import annotations

import pytest
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role

#: Per file, the columns proposed quasi-identifiers and those proposed sensitive.
EXPECTED = {
    ("Stat2Data", "ICU"): ("Age Sex", "Pulse SysBP"),
    ("COUNT", "badhealth"): ("age", "badh"),
    ("medicaldata", "blood_storage"): ("Age AA", "T.Stage bGS sGS FamHx TVol OrganConfined"),
    ("Ecdat", "Treatment"): ("age educ ethn married", "treat re74 re75 re78"),
    ("openintro", "hsb2"): ("gender race", "read write math science socst"),
    ("openintro", "evals"): ("gender ethnicity", "score"),
    ("modeldata", "wa_churn"): ("female senior_citizen tenure", "churn"),
    ("carData", "Salaries"): ("rank sex yrs.service", "salary"),
}


@pytest.mark.parametrize(("package", "item"), list(EXPECTED))
def test_the_roles_of_these_columns(package, item):
    frame = rdataset(package, item)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    quasi, sensitive = EXPECTED[(package, item)]
    for role, columns in ((Role.QUASI, quasi), (Role.SENSITIVE, sensitive)):
        for column in columns.split():
            assert proposals[column].role is role, (column, proposals[column].reason)


def test_true_and_false_are_not_said_to_be_numbers_coding_categories(tmp_path):
    """Ecdat's Treatment writes ``married`` as True and False: its flat hierarchy's comment had
    said that its numbers code categories without an order."""
    from click.testing import CliRunner

    from microanon.apps.cli import main

    rdataset("Ecdat", "Treatment").to_csv(tmp_path / "treatment.csv", index=False)
    config = tmp_path / "treatment.yaml"
    run = CliRunner().invoke(
        main, ["init", str(tmp_path / "treatment.csv"), "--out", str(config), "--yes"]
    )
    assert run.exit_code == 0, run.output
    text = " ".join(config.read_text("utf-8").replace("#", " ").split())
    assert "married: {role: quasi" in text
    assert "its numbers code categories" not in text
