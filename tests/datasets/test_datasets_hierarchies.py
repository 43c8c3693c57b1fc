"""adult_hierarchies and adult_schema."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from microanon.core import Hierarchy, Kind, Role, Table
from microanon.datasets import (
    ADULT_ARX_COLUMNS,
    ADULT_COLUMNS,
    adult_hierarchies,
    adult_schema,
    load_adult,
)
from microanon.datasets.hierarchies import ADULT_ARX_HIERARCHY_FILES
from microanon.errors import InputError, SchemaError


def test_keys_names_and_fresh_dicts() -> None:
    hs = adult_hierarchies()
    assert list(hs) == list(ADULT_COLUMNS)
    assert all(h.name == c for c, h in hs.items())
    hs.pop("age")
    again = adult_hierarchies()
    assert "age" in again and again is not hs


def test_every_value_of_all_records_is_a_leaf() -> None:
    df = load_adult("all", dropna=False)
    hs = adult_hierarchies()
    for c, h in hs.items():
        idx = h.leaf_index(df[c].dropna().unique(), column=c)
        assert (idx >= 0).all()


def test_arx_hierarchies_match_the_files(reference_data: Path) -> None:
    hs = adult_hierarchies()
    for col, rel in ADULT_ARX_HIERARCHY_FILES.items():
        assert hs[col] == Hierarchy.from_arx_csv(reference_data / rel, name=col), col


@pytest.mark.parametrize(
    ("col", "sizes"),
    [
        ("age", [100, 20, 10, 5, 1]),
        ("education", [16, 5, 3, 1]),
        ("marital_status", [7, 2, 1]),
        ("native_country", [41, 5, 1]),
        ("occupation", [14, 3, 1]),
        ("race", [5, 1]),
        ("income", [2, 1]),
        ("sex", [2, 1]),
        ("workclass", [8, 3, 1]),
        ("education_num", [16, 8, 4, 2, 1]),
        ("relationship", [6, 1]),
    ],
)
def test_level_sizes(col: str, sizes: list[int]) -> None:
    h = adult_hierarchies()[col]
    assert [len(h.level_labels(lv)) for lv in range(h.n_levels)] == sizes


def test_age_leaves_are_integers_and_keep_arx_groups() -> None:
    h = adult_hierarchies()["age"]
    assert h.leaves == list(range(1, 101))
    assert h.generalize([20, 40], 1).tolist() == ["15-19", "35-39"]
    assert h.generalize([20], 3).tolist() == ["0-19"]


def test_hours_per_week_intervals() -> None:
    h = adult_hierarchies()["hours_per_week"]
    assert h.leaves == list(range(1, 100))
    assert h.generalize([1, 40, 99], 1).tolist() == ["[0, 5)", "[40, 45)", "[95, 100)"]
    assert h.generalize([1, 40, 99], 4).tolist() == ["[0, 40)", "[40, 80)", "[80, 120)"]
    assert h.generalize([40], h.height).tolist() == ["*"]


@pytest.mark.parametrize(
    ("col", "top"), [("capital_loss", "[100, 5000)"), ("capital_gain", "[100, 100000)")]
)
def test_capital_zero_has_its_own_branch(col: str, top: str) -> None:
    h = adult_hierarchies()[col]
    values = np.unique(load_adult("all", dropna=False)[col])
    assert h.n_leaves == len(values)
    for level in range(h.height):
        assert h.generalize([0], level).tolist() == [0]
    assert h.generalize([0], h.height).tolist() == ["*"]
    assert set(h.generalize(values[values > 0], h.height - 1)) == {top}
    # every non-zero level groups only positive values, ordered and contiguous
    for level in range(1, h.height - 1):
        labels = h.generalize(values[values > 0], level)
        assert len(set(labels)) > 1
        changes = np.flatnonzero(labels[1:] != labels[:-1])
        assert len(changes) == len(set(labels)) - 1


def test_fnlwgt_quantiles_nest() -> None:
    h = adult_hierarchies()["fnlwgt"]
    assert h.n_leaves == 28_523
    sizes = [len(h.level_labels(lv)) for lv in range(h.n_levels)]
    assert sizes[0] == 28_523 and sizes[-1] == 1
    assert sizes == sorted(sizes, reverse=True)


def test_default_schema() -> None:
    s = adult_schema()
    assert s.columns == list(ADULT_COLUMNS)
    assert s.sensitive == ["income"]
    assert s.quasi == [c for c in ADULT_ARX_COLUMNS if c != "income"]
    assert s.identifiers == ["fnlwgt", "education_num", "relationship"]  # left out: see the lint
    assert s.insensitive == ["capital_gain", "capital_loss", "hours_per_week"]
    shown = adult_schema(published=["education_num"])
    assert shown.identifiers == ["fnlwgt", "relationship"] and "education_num" in shown.insensitive
    assert s["age"].kind is Kind.NUMERIC and s["capital_loss"].kind is Kind.NUMERIC
    assert s["education"].kind is Kind.CATEGORICAL
    assert set(s.hierarchies()) == set(ADULT_COLUMNS)


def test_schema_with_occupation_sensitive() -> None:
    s = adult_schema(sensitive="occupation")
    assert s.quasi == [
        "age", "workclass", "education", "marital_status", "race", "sex", "native_country",
        "income",
    ]  # fmt: skip
    assert s.sensitive == ["occupation"]


def test_schema_lists_and_roles() -> None:
    s = adult_schema(
        quasi=["age", "sex"], sensitive=["capital_loss", "income"], identifiers="fnlwgt"
    )
    assert s.quasi == ["age", "sex"]
    assert s.sensitive == ["capital_loss", "income"]
    assert s.identifiers == ["fnlwgt", "education_num", "relationship"]
    assert s["education"].role is Role.INSENSITIVE
    assert adult_schema(sensitive=None).quasi == list(ADULT_ARX_COLUMNS)
    assert adult_schema(hierarchies=False).hierarchies() == {}


def test_schema_errors() -> None:
    with pytest.raises(
        InputError, match=r"unknown column\(s\) in quasi: 'salary'.*valid columns: age"
    ):
        adult_schema(quasi=["age", "salary"])
    with pytest.raises(InputError, match="'marital-status'"):
        adult_schema(sensitive="marital-status")
    with pytest.raises(SchemaError, match="'income' is given two roles"):
        adult_schema(quasi=["age", "income"])
    with pytest.raises(InputError, match="hierarchies"):
        adult_schema(hierarchies="yes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="column names"):
        adult_schema(quasi=[1, 2])  # type: ignore[list-item]


def test_schema_encodes_the_data() -> None:
    df = load_adult()
    table = Table.from_frame(df, adult_schema())
    assert len(table) == 30_162
    assert table.cardinality("age") == 100  # the hierarchy's full leaf list
    coarse = table.recode({c: 1 for c in table.schema.quasi})
    assert len(coarse) == 30_162
