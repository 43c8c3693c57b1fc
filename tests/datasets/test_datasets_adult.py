"""load_adult / load_arx_adult against the verified figures of the data README.

They include the row counts the source papers use (30,162, 30,718 and 45,222), counted on the
public UCI files.
"""

from __future__ import annotations

import pandas as pd
import pytest

from microanon.datasets import (
    ADULT_COLUMNS,
    ADULT_INTEGER_COLUMNS,
    load_adult,
    load_arx_adult,
)
from microanon.errors import InputError


@pytest.mark.parametrize(
    ("split", "dropna", "rows"),
    [
        ("train", False, 32_561),
        ("train", True, 30_162),
        ("test", False, 16_281),
        ("test", True, 15_060),
        ("all", False, 48_842),
        ("all", True, 45_222),
    ],
)
def test_row_counts(split: str, dropna: bool, rows: int) -> None:
    df = load_adult(split, dropna=dropna)
    assert len(df) == rows
    assert list(df.columns) == list(ADULT_COLUMNS)
    assert isinstance(df.index, pd.RangeIndex)
    assert df.index.equals(pd.RangeIndex(rows))
    if dropna:
        assert not df.isna().any().any()


def test_default_is_complete_training_split() -> None:
    pd.testing.assert_frame_equal(load_adult(), load_adult("train", dropna=True))


def test_dtypes_and_whitespace() -> None:
    df = load_adult("all", dropna=False)
    for c in ADULT_COLUMNS:
        if c in ADULT_INTEGER_COLUMNS:
            assert df[c].dtype == "int64", c
        else:
            assert pd.api.types.is_string_dtype(df[c]), c
            vals = df[c].dropna()
            assert (vals == vals.str.strip()).all(), c
            assert not vals.isin(["?", ""]).any(), c


def test_missing_values_and_labels() -> None:
    train, test = load_adult("train", dropna=False), load_adult("test", dropna=False)
    for df, wc, occ, nc, low, high in (
        (train, 1_836, 1_843, 583, 24_720, 7_841),
        (test, 963, 966, 274, 12_435, 3_846),
    ):
        assert df["workclass"].isna().sum() == wc
        assert df["occupation"].isna().sum() == occ
        assert df["native_country"].isna().sum() == nc
        other = df.drop(columns=["workclass", "occupation", "native_country"])
        assert not other.isna().any().any()
        assert df["income"].value_counts().to_dict() == {"<=50K": low, ">50K": high}


def test_ranges() -> None:
    df = load_adult("all", dropna=False)
    expected = {
        "age": (17, 90),
        "fnlwgt": (12_285, 1_490_400),
        "education_num": (1, 16),
        "capital_gain": (0, 99_999),
        "capital_loss": (0, 4_356),
        "hours_per_week": (1, 99),
    }
    for c, (lo, hi) in expected.items():
        assert (df[c].min(), df[c].max()) == (lo, hi), c


def test_first_records() -> None:
    train = load_adult("train", dropna=False)
    assert train.iloc[0].tolist() == [
        39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical",
        "Not-in-family", "White", "Male", 2174, 0, 40, "United-States", "<=50K",
    ]  # fmt: skip
    test = load_adult("test", dropna=False)
    assert test.iloc[0]["age"] == 25 and test.iloc[0]["income"] == "<=50K"
    assert test.iloc[-1]["income"] == ">50K"


def test_capital_loss_figures_of_koudas_et_al() -> None:
    df = load_adult()
    loss = df.loc[df["capital_loss"] > 0, "capital_loss"]
    assert len(loss) == 1_427
    assert loss.nunique() == 89
    assert (loss.min(), loss.max()) == (155, 4_356)
    gain = df.loc[df["capital_gain"] > 0, "capital_gain"]
    assert (len(gain), gain.nunique()) == (2_538, 117)


def test_cardinalities_of_the_45222_records() -> None:
    df = load_adult("all")
    expected = {
        "age": 74,
        "workclass": 7,
        "education": 16,
        "marital_status": 7,
        "occupation": 14,
        "relationship": 6,
        "race": 5,
        "sex": 2,
        "native_country": 41,
        "income": 2,
    }
    assert {c: df[c].nunique() for c in expected} == expected
    loss = df.loc[df["capital_loss"] > 0, "capital_loss"]
    assert (len(loss), loss.nunique()) == (2_140, 96)


def test_occupation_known_training_rows() -> None:
    assert load_adult("train", dropna=False)["occupation"].notna().sum() == 30_718


def test_all_is_train_then_test() -> None:
    both = load_adult("all", dropna=False)
    parts = pd.concat(
        [load_adult("train", dropna=False), load_adult("test", dropna=False)], ignore_index=True
    )
    pd.testing.assert_frame_equal(both, parts)


def test_returned_frames_are_independent() -> None:
    df = load_adult()
    df.loc[0, "age"] = -1
    df["income"] = "x"
    again = load_adult()
    assert again.loc[0, "age"] == 39
    assert set(again["income"]) == {"<=50K", ">50K"}


@pytest.mark.parametrize("split", ["training", "TRAIN", "", None, 1])
def test_bad_split(split: object) -> None:
    with pytest.raises(InputError, match=r"split must be one of 'train', 'test', 'all'"):
        load_adult(split)  # type: ignore[arg-type]


def test_bad_dropna() -> None:
    with pytest.raises(InputError, match="dropna"):
        load_adult("train", dropna="yes")  # type: ignore[arg-type]


def test_arx_adult_is_the_complete_training_split() -> None:
    arx = load_arx_adult()
    assert arx.shape == (30_162, 9)
    assert list(arx.columns) == [
        "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
        "occupation", "salary_class",
    ]  # fmt: skip
    assert arx["age"].dtype == "int64"
    assert isinstance(arx.index, pd.RangeIndex)
    uci = load_adult("train").rename(columns={"income": "salary_class"})[list(arx.columns)]
    pd.testing.assert_frame_equal(arx, uci)
    assert arx["age"].nunique() == 72
