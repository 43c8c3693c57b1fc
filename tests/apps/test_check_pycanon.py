"""`microanon check` on Adult agrees with pycanon, the independent checker."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from oracles import pycanon_anonymity

from microanon import Table
from microanon.apps.cli import main
from microanon.datasets import adult_hierarchies

anonymity = pycanon_anonymity()

ARX_QI = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]


def _check_json(path) -> dict:
    result = CliRunner().invoke(
        main,
        ["check", str(path), "--quasi", ",".join(ARX_QI), "--sensitive", "occupation", "--json"],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _pycanon(df: pd.DataFrame) -> tuple[int, int, float]:
    df = df.reset_index(drop=True)
    return (
        anonymity.k_anonymity(df, ARX_QI),
        anonymity.l_diversity(df, ARX_QI, ["occupation"]),
        anonymity.t_closeness(df, ARX_QI, ["occupation"]),
    )


def test_check_on_raw_adult_equals_pycanon(reference_data, tmp_path):
    """k and distinct ℓ on the whole raw file; t on a 1,000-record sample of it, since pycanon's
    t masks the whole table once per class (12,458 classes here: minutes on the full file)."""
    path = reference_data / "arx-adult" / "adult.csv"
    raw = pd.read_csv(path, sep=";")
    ours = _check_json(path)
    assert (ours["k"], ours["l_distinct"]) == (
        anonymity.k_anonymity(raw, ARX_QI),
        anonymity.l_diversity(raw, ARX_QI, ["occupation"]),
    )
    sample = raw.sample(1000, random_state=0)
    sample.to_csv(tmp_path / "sample.csv", sep=";", index=False)
    ours = _check_json(tmp_path / "sample.csv")
    k, l_distinct, t = _pycanon(sample)
    assert (ours["k"], ours["l_distinct"]) == (k, l_distinct)
    assert ours["t_closeness"] == pytest.approx(t, abs=1e-9)


def test_check_on_generalized_adult_equals_pycanon(reference_data, tmp_path):
    raw = pd.read_csv(reference_data / "arx-adult" / "adult.csv", sep=";")
    hier = adult_hierarchies()
    names = {c: c.replace("-", "_").replace("salary_class", "income") for c in raw.columns}
    schema = {c: {"role": "quasi", "hierarchy": hier[names[c]]} for c in ARX_QI}
    schema["occupation"] = {"role": "sensitive"}
    levels = {
        "age": 3,
        "education": 2,
        "marital-status": 1,
        "native-country": 1,
        "workclass": 1,
        "race": 1,
    }
    gen = Table.from_frame(raw, schema).recode(levels).to_frame()
    gen.to_csv(tmp_path / "gen.csv", index=False)
    ours = _check_json(tmp_path / "gen.csv")
    k, l_distinct, t = _pycanon(pd.read_csv(tmp_path / "gen.csv"))
    assert (ours["k"], ours["l_distinct"]) == (k, l_distinct)
    assert ours["t_closeness"] == pytest.approx(t, abs=1e-9)
    assert ours["classes"] < 2000 and 0 < ours["t_closeness"] <= 1
