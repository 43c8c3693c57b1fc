"""The UCI Adult (census income) data set and ARX's Adult extract.

Sources (see ``data/README.txt`` in this package for provenance and checksums):

* Becker, B. & Kohavi, R. (1996). *Adult* [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C5XW20 — CC BY 4.0.
* ARX Data Anonymization Tool, ``data/adult.csv`` (Apache License 2.0; the records are derived
  from UCI Adult, so the attribution above applies as well).
"""

from __future__ import annotations

import io
from functools import lru_cache

import pandas as pd

from ..core.errors import InputError
from ._files import DataIntegrityError, read_bytes

__all__ = [
    "ADULT_ARX_COLUMNS",
    "ADULT_COLUMNS",
    "ADULT_INTEGER_COLUMNS",
    "ADULT_SPLITS",
    "load_adult",
    "load_arx_adult",
]

ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
)
"""Columns of :func:`load_adult`, in file order (UCI names in snake_case)."""

ADULT_INTEGER_COLUMNS: tuple[str, ...] = (
    "age",
    "fnlwgt",
    "education_num",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
)
"""Integer-valued columns of :func:`load_adult` (dtype ``int64``); the others are strings."""

ADULT_ARX_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "education",
    "marital_status",
    "occupation",
    "race",
    "sex",
    "native_country",
    "income",
)
"""The nine attributes of ARX's extract (and hierarchies), in :data:`ADULT_COLUMNS` order; ARX
calls ``income`` ``salary-class``.
"""

ADULT_SPLITS: tuple[str, ...] = ("train", "test", "all")
"""Accepted values of ``load_adult(split=...)``."""

_FILES = {"train": "adult/adult.data", "test": "adult/adult.test"}
_INCOME = {"<=50K", ">50K"}
_ARX_FILE = "arx-adult/adult.csv"
#: Columns of ARX's adult.csv as published, in file order.
_ARX_RAW = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
)


def _snake(name: str) -> str:
    return name.strip().lower().replace("-", "_")


@lru_cache(maxsize=2)
def _read_split(split: str) -> pd.DataFrame:
    """Parse one UCI file (all records, ``?`` as missing); cached, never handed out directly."""
    rel = _FILES[split]
    dtypes = {c: ("int64" if c in ADULT_INTEGER_COLUMNS else "str") for c in ADULT_COLUMNS}
    try:
        df = pd.read_csv(
            io.BytesIO(read_bytes(rel)),
            header=None,
            names=list(ADULT_COLUMNS),
            dtype=dtypes,
            sep=",",
            skipinitialspace=True,
            skiprows=1 if split == "test" else 0,  # adult.test starts with "|1x3 Cross validator"
            na_values=["?"],
            keep_default_na=False,
            skip_blank_lines=True,
            encoding="ascii",
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataIntegrityError(f"bundled {rel} cannot be parsed as Adult: {exc}") from exc
    for c in ADULT_COLUMNS:
        if c not in ADULT_INTEGER_COLUMNS:
            df[c] = df[c].str.strip()
    if split == "test":
        df["income"] = df["income"].str.rstrip(".")
    bad = set(df["income"].dropna().unique()) - _INCOME
    if bad or df["income"].isna().any():
        raise DataIntegrityError(f"bundled {rel}: unexpected income labels {sorted(bad)}")
    return df


def load_adult(split: str = "train", dropna: bool = True) -> pd.DataFrame:
    """Load the UCI Adult census-income data.

    Parameters
    ----------
    split : {"train", "test", "all"}
        ``"train"`` is ``adult.data`` (32,561 records), ``"test"`` is ``adult.test`` (16,281),
        ``"all"`` both, training records first (48,842).
    dropna : bool
        Drop records with a missing value (``?`` in workclass, occupation or native_country),
        leaving 30,162 / 15,060 / 45,222 records.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`ADULT_COLUMNS` (``age, workclass, fnlwgt, education, education_num,
        marital_status, occupation, relationship, race, sex, capital_gain, capital_loss,
        hours_per_week, native_country, income``) with a fresh ``RangeIndex``. Integer columns
        are ``int64``; the others are strings without surrounding whitespace, with missing values
        as ``NaN``. ``income`` is ``"<=50K"`` or ``">50K"`` in both splits (the test file's
        trailing period is removed).

    Raises
    ------
    InputError
        If ``split`` is not one of ``"train"``, ``"test"``, ``"all"`` or ``dropna`` is not a bool.
    DataIntegrityError
        If the bundled file is corrupt.

    Examples
    --------
    >>> df = load_adult()
    >>> len(df), int((df["capital_loss"] > 0).sum())
    (30162, 1427)
    """
    if not isinstance(split, str) or split not in ADULT_SPLITS:
        raise InputError(
            f"load_adult: split must be one of {', '.join(repr(s) for s in ADULT_SPLITS)}, "
            f"got {split!r}"
        )
    if not isinstance(dropna, bool):
        raise InputError(f"load_adult: dropna must be True or False, got {dropna!r}")
    if split == "all":
        df = pd.concat([_read_split("train"), _read_split("test")], ignore_index=True)
    else:
        df = _read_split(split).copy()
    if dropna:
        df = df.dropna()
    return df.reset_index(drop=True)


@lru_cache(maxsize=1)
def _read_arx() -> pd.DataFrame:
    dtypes = {c: ("int64" if c == "age" else "str") for c in _ARX_RAW}
    try:
        df = pd.read_csv(
            io.BytesIO(read_bytes(_ARX_FILE)),
            sep=";",
            header=0,
            dtype=dtypes,
            na_filter=False,
            encoding="ascii",
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataIntegrityError(f"bundled {_ARX_FILE} cannot be parsed: {exc}") from exc
    if tuple(df.columns) != _ARX_RAW:
        raise DataIntegrityError(f"bundled {_ARX_FILE} has unexpected columns {list(df.columns)}")
    df.columns = [_snake(c) for c in df.columns]
    for c in df.columns:
        if c != "age":
            df[c] = df[c].str.strip()
    return df


def load_arx_adult() -> pd.DataFrame:
    """Load ARX's Adult extract (``adult.csv`` of the ARX anonymization tool).

    Its 30,162 records are exactly the complete records of ``load_adult("train")``, in the same
    order, restricted to nine attributes.

    Returns
    -------
    pandas.DataFrame
        Columns in ARX's order with snake_case names: ``sex, age, race, marital_status,
        education, native_country, workclass, occupation, salary_class`` (``salary_class`` is
        UCI's ``income``). ``age`` is ``int64``, the rest strings; no missing values.

    Raises
    ------
    DataIntegrityError
        If the bundled file is corrupt.
    """
    return _read_arx().copy()
