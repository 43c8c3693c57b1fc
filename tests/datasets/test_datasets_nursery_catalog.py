"""load_nursery and the catalog."""

from __future__ import annotations

import pandas as pd
import pytest

from microanon.datasets import (
    NURSERY_COLUMNS,
    describe,
    list_datasets,
    load_dataset,
    load_nursery,
)
from microanon.errors import InputError

NURSERY_VALUES = {
    "parents": ["usual", "pretentious", "great_pret"],
    "has_nurs": ["proper", "less_proper", "improper", "critical", "very_crit"],
    "form": ["complete", "completed", "incomplete", "foster"],
    "children": ["1", "2", "3", "more"],
    "housing": ["convenient", "less_conv", "critical"],
    "finance": ["convenient", "inconv"],
    "social": ["nonprob", "slightly_prob", "problematic"],
    "health": ["recommended", "priority", "not_recom"],
}


def test_nursery() -> None:
    df = load_nursery()
    assert df.shape == (12_960, 9)
    assert list(df.columns) == list(NURSERY_COLUMNS)
    assert isinstance(df.index, pd.RangeIndex)
    assert not df.isna().any().any()
    for c, values in NURSERY_VALUES.items():
        counts = df[c].value_counts()
        assert sorted(counts.index) == sorted(values), c
        assert (counts == 12_960 // len(values)).all(), c
    assert not df.duplicated(subset=list(NURSERY_VALUES)).any()  # the full Cartesian product
    assert df["class"].value_counts().to_dict() == {
        "not_recom": 4_320,
        "priority": 4_266,
        "spec_prior": 4_044,
        "very_recom": 328,
        "recommend": 2,
    }
    df.loc[0, "class"] = "x"
    assert load_nursery().loc[0, "class"] == "recommend"


def test_list_datasets_matches_the_loaders() -> None:
    entries = list_datasets()
    assert [e["name"] for e in entries] == ["adult", "arx_adult", "nursery"]
    for e in entries:
        assert {"name", "rows", "columns", "description", "source", "citation", "license"} <= set(e)
        df = load_dataset(e["name"])
        assert df.shape == (e["rows"], e["columns"])
        assert list(df.columns) == e["column_names"]
        assert "CC BY 4.0" in e["license"]
    entries[0]["rows"] = 0
    assert list_datasets()[0]["rows"] == 30_162


def test_describe() -> None:
    d = describe("nursery")
    assert list(d.index) == list(NURSERY_COLUMNS)
    assert list(d.columns) == ["dtype", "distinct", "missing", "min", "max", "examples"]
    assert d.loc["children", "distinct"] == 4
    adult = describe("adult", split="all", dropna=False)
    assert adult.loc["occupation", "missing"] == 2_809
    assert adult.loc["age", "min"] == 17 and adult.loc["age", "max"] == 90
    assert adult.loc["capital_loss", "examples"].startswith("0, ")


def test_unknown_names_and_arguments() -> None:
    with pytest.raises(InputError, match="unknown data set 'iris'; bundled data sets: adult"):
        describe("iris")
    with pytest.raises(InputError, match="arx_adult, nursery"):
        load_dataset("Adult")
    with pytest.raises(InputError, match="load_dataset"):
        load_dataset("nursery", split="all")
    assert len(load_dataset("adult", split="test")) == 15_060
