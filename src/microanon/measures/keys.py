"""Validation shared by the survey risk measures: key columns that may hold missing values,
sampling weights, household ids.

:func:`check_weights` is also how the command line's risk report checks a weight column.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.factorize import factorize_keys, packed_key
from .common import check_quasi
from .weight_classes import REFUSED, remedy, weight_classes

__all__ = [
    "check_fraction",
    "check_household",
    "check_weights",
    "key_codes",
    "pack",
    "refuse_weights",
    "weight_column",
]


def key_codes(
    data: Any, keys: Any, missing: Any, modes: dict[str, str]
) -> tuple[list[str], np.ndarray, list[int]]:
    """Validate the key columns; return their names, codes and numbers of distinct values.

    Parameters
    ----------
    modes : dict
        The accepted values of ``missing`` other than ``"error"``, each with the sentence that
        says how that mode counts a missing value (used in the error message).

    Returns
    -------
    keys : list of str
    codes : (n_rows, n_keys) int64 array
        ``0..d-1`` per column in order of first appearance; ``-1`` for a missing value.
    sizes : list of int
        Distinct (non-missing) values per column.

    Raises
    ------
    InputError
        Bad table or key list; ``missing`` not ``"error"`` or one of ``modes``; with
        ``missing="error"``, a key column with missing values (naming it, the count and the
        modes that count them).
    """
    cols = check_quasi(data, keys)
    if not isinstance(missing, str) or (missing != "error" and missing not in modes):
        raise InputError(
            f"'missing' must be one of {', '.join(map(repr, ['error', *modes]))}, got {missing!r}"
        )
    codes = np.empty((len(data), len(cols)), dtype=np.int64)
    sizes = []
    for j, c in enumerate(cols):
        try:
            col_codes, uniques = pd.factorize(data[c], use_na_sentinel=True)
        except TypeError as exc:
            raise InputError(f"key column {c!r} holds unhashable values: {exc}") from exc
        n_missing = int(np.count_nonzero(col_codes < 0))
        if n_missing and missing == "error":
            how = "; ".join(f"missing={m!r}: {text}" for m, text in modes.items())
            raise InputError(
                f"key column {c!r} has {n_missing} missing value(s); fill them, or count them "
                f"as sdcMicro does ({how})"
            )
        if n_missing == len(data):
            raise InputError(f"key column {c!r} is missing in every row")
        codes[:, j] = col_codes
        sizes.append(len(uniques))
    return cols, codes, sizes


def check_weights(data: pd.DataFrame, weights: Any, counts: np.ndarray | None = None) -> np.ndarray:
    """The sampling weights of column ``weights`` as floats, each at least 1.

    ``counts``: records per row of a frequency table (the bad weights are counted in records).

    Raises
    ------
    InputError
        If the column is absent or not numeric, or has missing, infinite, zero, negative or
        (as an inverse inclusion probability cannot be) below-1 weights: every kind found, with
        its count and what to do (:func:`~microanon.measures.weight_classes.remedy`).
    """
    col = weight_column(data, weights)
    refuse_weights(weights, weight_classes(col)[0], counts)
    return col.to_numpy(dtype=float, na_value=np.nan)


def weight_column(data: pd.DataFrame, weights: Any) -> pd.Series:
    """Column ``weights`` of ``data``, refused unless it names a numeric column.

    Raises
    ------
    InputError
        If ``weights`` is not a column name, names no column of ``data``, or a column that is
        not numeric (truth values are not).
    """
    if not isinstance(weights, str) and not isinstance(weights, numbers.Integral):
        raise InputError(
            f"'weights' must name the sampling-weight column, got {type(weights).__name__}"
        )
    if weights not in data.columns:
        raise InputError(
            f"weight column {weights!r} not found; available: {', '.join(map(str, data.columns))}"
        )
    col = data[weights]
    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        raise InputError(f"weight column {weights!r} is not numeric (dtype {col.dtype})")
    return col


def refuse_weights(weights: Any, classes: np.ndarray, counts: np.ndarray | None = None) -> None:
    """Refuse column ``weights`` when any of its rows' ``classes``
    (:func:`~microanon.measures.weight_classes.weight_classes`) is a kind of value the survey
    measures refuse (:data:`~microanon.measures.weight_classes.REFUSED`).

    ``counts``: records per row of a frequency table (the bad weights are counted in records).

    Raises
    ------
    InputError
        Naming every kind found, with its count and what to do.
    """
    found = {}  # every kind at once, so that the advice followed once is enough
    for kind, what in REFUSED.items():
        bad = classes == kind
        count = int(np.count_nonzero(bad) if counts is None else counts[bad].sum())
        if count:
            found[kind] = f"{count:,} {what} weight(s)"
    if found:
        raise InputError(
            f"weight column {weights!r} has {'; and '.join(found.values())}: {remedy(found)}"
        )


def check_household(data: pd.DataFrame, household: Any) -> np.ndarray:
    """Household codes ``0..h-1`` of column ``household``.

    Raises
    ------
    InputError
        If the column is absent or has missing ids (with their count).
    """
    if not isinstance(household, Hashable) or household not in data.columns:
        raise InputError(
            f"household column {household!r} not found; available: "
            + ", ".join(map(str, data.columns))
        )
    codes, _ = pd.factorize(data[household], use_na_sentinel=True)
    n_missing = int(np.count_nonzero(codes < 0))
    if n_missing:
        raise InputError(f"household column {household!r} has {n_missing} missing id(s)")
    return codes.astype(np.int64, copy=False)


def check_fraction(value: Any, param: str, *, closed_lo: bool = False) -> float:
    """A number in (0, 1) — or in [0, 1] with ``closed_lo``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{param!r} must be a number, got {value!r}")
    v = float(value)
    inside = 0 <= v <= 1 if closed_lo else 0 < v < 1
    if not (math.isfinite(v) and inside):
        raise InputError(
            f"{param!r} must be in {'[0, 1]' if closed_lo else '(0, 1)'}, got {value!r}"
        )
    return v


def pack(codes: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """A dense id ``0..g-1`` per row of ``codes`` (a missing ``-1`` is a value of its own)."""
    if not len(sizes):
        return np.zeros(len(codes), dtype=np.int64)
    key, _ = packed_key(list(codes.T), [s + 1 for s in sizes], offset=1)
    return factorize_keys(key)[0].astype(np.int64, copy=False)
