"""A household id without a sampling weight, on a real file: asaur's ``ashkenazi`` (3,920
women, two per family, ``famID``) with the family as household. The household risk needs a
weight, so none is measured; the summary had said the id was "used for the household risk"
beside the report's note that it was not. Now ``init`` warns, and ``anonymize`` (in memory and
with ``--engine dask``) says the id is not used; with a weight (each woman standing for 50)
the household risk is measured and the summary says it is used."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.release_summary import HOUSEHOLD_UNUSED, HOUSEHOLD_USED

#: Init's warning on a household id without a weight (its start).
WARNING = "'famID' has role household, but no column has role weight"


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    """The file as a CSV, and with a weight column ``wt`` (50 for every woman) beside it."""
    folder = tmp_path_factory.mktemp("ashkenazi")
    data = survey("ashkenazi")
    data.to_csv(folder / "ashkenazi.csv", index=False)
    data.assign(wt=50.0).to_csv(folder / "weighted.csv", index=False)
    return folder


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _init(folder, name, *roles):
    config = folder / f"{name}.yaml"
    done = _invoke("init", folder / f"{name}.csv", "--out", config, "--yes", *roles)
    assert done.exit_code == 0, done.output
    return config, done.output


def test_init_warns_of_a_household_id_without_a_weight(families):
    _, output = _init(families, "ashkenazi", "--household", "famID")
    assert WARNING in output
    _, output = _init(families, "weighted", "--household", "famID", "--weights", "wt")
    assert WARNING not in output


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_the_summary_says_whether_the_household_risk_used_the_id(
    families, engine, weighted, scheduler
):
    name = "weighted" if weighted else "ashkenazi"
    roles = ["--household", "famID"] + (["--weights", "wt"] if weighted else [])
    config = families / f"{name}.yaml"
    if not config.exists():
        _init(families, name, *roles)
    out = families / f"{name}-{engine}"
    args = ["anonymize", "--config", config, "--out", out, "--json", "--engine", engine]
    if engine == "dask":
        args += ["--scheduler", scheduler]
    done = _invoke(*args)
    assert done.exit_code == 0, done.output
    columns = {c["column"]: c["done"] for c in json.loads(done.stdout)["columns"]}
    assert columns["famID"] == (HOUSEHOLD_USED if weighted else HOUSEHOLD_UNUSED)
    internal = (out / "internal" / "report.html").read_text(encoding="utf-8")
    assert ("household risk: global" in internal) is weighted
    unused = re.search(r"household id famID not used: the household risk needs a", internal)
    assert (unused is not None) is not weighted
    assert "famID" not in (out / "public" / "release.json").read_text(encoding="utf-8")
