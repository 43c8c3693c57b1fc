"""Codes of a column by value, in order of first appearance, fast on text built from codes.

:func:`factorize` is :func:`pandas.factorize` (``use_na_sentinel=True``): the same codes and the
same distinct values. A text column of a release, or one read back from its files, holds few
distinct *objects* (each row points at one of the column's distinct strings), so the rows are
first told apart by the address of their object, an integer hash with no string hashed, and
only the distinct objects are then factorized by value (two objects of equal text get one code).
A column of many distinct objects is factorized by value directly.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pandas as pd

__all__ = ["factorize", "first_rows"]


def factorize(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray | pd.Index]:
    """Codes (``-1`` for a missing value) and distinct values of ``values``, as
    ``pandas.factorize(values, use_na_sentinel=True)`` gives them.

    Parameters
    ----------
    values : Series or 1-d array

    Returns
    -------
    codes : int array
    uniques : array or Index
        In order of first appearance, missing values left out.
    """
    held = isinstance(values, (pd.Series, np.ndarray)) and values.dtype == np.dtype(object)
    if not held or len(values) < 2:
        return pd.factorize(values, use_na_sentinel=True)
    array = np.ascontiguousarray(
        values.to_numpy(dtype=object) if isinstance(values, pd.Series) else values
    )
    address = np.frombuffer(
        (ctypes.c_void_p * len(array)).from_address(array.ctypes.data), np.uintp
    )
    by_object, objects = pd.factorize(address)
    del address  # (it points into ``array``)
    if len(objects) > max(len(array) // 4, 1024):
        return pd.factorize(values, use_na_sentinel=True)
    # the distinct objects in order of first appearance, then by value: the rows' first
    # appearances of a value are those of its first object
    by_value, uniques = pd.factorize(
        array[first_rows(by_object, len(objects))], use_na_sentinel=True
    )
    if isinstance(values, pd.Series):
        uniques = pd.Index(uniques, dtype=object)
    return by_value[by_object], uniques


def first_rows(codes: np.ndarray, k: int) -> np.ndarray:
    """The first row of each of the codes ``0 .. k - 1``, numbered in order of first appearance
    (each of which occurs; ``-1`` may too): where the highest code so far goes up."""
    rising = np.diff(np.maximum.accumulate(codes), prepend=-1) > 0
    return np.flatnonzero(rising)[:k]
