"""How a release writes a number: in the type its column was read in, whatever the method.

The rule, declared here once. A published number is the text of its value in the type of the
column it comes from (:func:`~microanon.core.release_files.value_text`, ``str`` of the value):

- a column read as whole numbers (``int64``, or pandas' nullable ``Int64`` where cells are
  missing: a CSV column written ``3`` beside empty fields, a Parquet integer column, an SPSS or
  Stata column of whole numbers) publishes ``3``;
- a column read as decimal numbers (``float64``: a CSV column written ``3.0``, a Parquet double
  column) publishes ``3.0``, its whole values included;

whatever the method, the column's role and its missing-value policy. The value ``?`` of
``missing: value`` and a cell kept empty (``missing: keep``) stand beside the numbers and change
none of them; the reader (:func:`microanon.apps.io.read_table`) decides the type from the
file's own text, and nothing after it turns a whole number into a decimal one or back.

A column whose numbers go through Python objects (beside the value ``?``, in a table's
dictionary) keeps that type with :func:`typed_numbers` and :func:`numbers_with_marker`; the
hierarchies built from the data (intervals, quantiles) take their leaves in it
(:func:`whole_numbers`), since a leaf is the text a method publishes at level 0. So does every
other hierarchy of a column of numbers (a hierarchy file, whose leaves are text, groups or a
tree written in YAML, the masking builder's text) once it meets the data
(:meth:`~microanon.core.schema.Schema.resolve`): each leaf that writes a number is that number
in its column's type (:func:`in_column_type`), matched to the data by value, so that a leaf
``20`` of a column written ``20.0`` is published ``20.0`` and a leaf ``20.0`` of a column
written ``20`` is published ``20``. The labels above the leaves (``20-39``, ``*``) are text a
method publishes as written.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .frames import as_objects
from .missing import MISSING_LABEL

__all__ = [
    "in_column_type",
    "numbers_with_marker",
    "placed_with_marker",
    "typed_numbers",
    "whole_numbers",
]


def typed_numbers(values: Any) -> pd.Series:
    """The numbers of ``values`` (numbers or their text, none of them missing) in the type their
    column gives them: ``int64`` when each is a whole number held as an integer (``3``, the
    text ``"3"``), ``float64`` when one is a decimal number (``3.0``, ``"3.0"``, ``2.5``).

    Parameters
    ----------
    values : Series or array-like
        The present values of one column.

    Returns
    -------
    Series
        Of ``int64`` or ``float64`` (another numeric type kept as it is); a value that is no
        number is NaN (the caller names it), and so the column is then ``float64``.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    types = pd.api.types
    if types.is_numeric_dtype(series.dtype) and not types.is_bool_dtype(series.dtype):
        return series
    return pd.to_numeric(series, errors="coerce")


def numbers_with_marker(values: Any, marker: np.ndarray) -> np.ndarray:
    """A numeric column's values with its missing values the value ``?``, as objects: each
    number in the type its column gives it (:func:`typed_numbers`), so that a whole number
    read as an integer is published ``52`` and one read as a decimal ``52.0``.

    Parameters
    ----------
    values : Series or array-like
        The column (numbers, or their text, and ``?``), one value per row.
    marker : bool array
        Where it holds ``?``.

    Returns
    -------
    object array
        The numbers (equal ones one object each) and ``?`` where ``marker`` is set.
    """
    marker = np.asarray(marker, dtype=bool)
    present = np.asarray(values, dtype=object)[~marker]
    return placed_with_marker(typed_numbers(pd.Series(present, dtype=object)), marker)


def placed_with_marker(numbers: pd.Series, marker: np.ndarray) -> np.ndarray:
    """The column :func:`numbers_with_marker` makes, from its present values already
    converted (``numbers``, one per row where ``marker`` is not set, in their column's type)."""
    out = np.full(len(marker), MISSING_LABEL, dtype=object)
    out[~marker] = as_objects(numbers).to_numpy()
    return out


def whole_numbers(values: Any) -> bool:
    """Whether ``values`` (a column's, missing ones ignored) are those of a column read as whole
    numbers: :func:`typed_numbers` gives them an integer type (an integer column, Python
    integers, integer text), not ``float64`` (a decimal column, ``3.0``, ``2.5``)."""
    if not isinstance(values, (pd.Series, pd.Index, np.ndarray, pd.api.extensions.ExtensionArray)):
        values = list(values)
    present = pd.Series(values).dropna()
    return bool(len(present)) and pd.api.types.is_integer_dtype(typed_numbers(present).dtype)


def in_column_type(value: Any, whole: bool) -> Any:
    """A number, or the text of one, in the type of the column it belongs to: an ``int`` in a
    column read as whole numbers (``whole``) where the number is whole, else a ``float``.

    Parameters
    ----------
    value : Any
        A number (``20``, ``20.0``, a numpy scalar) or its text (``"20"``, ``"20.0"``,
        ``" 2e1 "``); anything else (text that writes no finite number, such as ``"?"`` or
        ``"20-39"``, a boolean, a date) is returned as it is.
    whole : bool
        Whether the column is read as whole numbers (:func:`whole_numbers` of its values).

    Returns
    -------
    int, float or the value itself
        ``20`` for ``20.0``, ``"20"`` or ``"20.0"`` in a column of whole numbers, ``20.0`` for
        any of them in a decimal column; ``2.5`` for ``"2.5"`` in either (no whole number).

    Examples
    --------
    >>> in_column_type("20", whole=False), in_column_type("20.0", whole=True)
    (20.0, 20)
    >>> in_column_type("20-39", whole=True)
    '20-39'
    """
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value) if whole else float(value)
    if isinstance(value, str):
        text = value.strip()
        if whole:
            try:
                return int(text)  # (exact beyond 2**53, where the float would not be)
            except ValueError:
                pass
        try:
            number = float(text)
        except ValueError:
            return value
    elif isinstance(value, (float, np.floating)):
        number = float(value)
    else:
        return value
    if not math.isfinite(number):
        return value
    return int(number) if whole and number.is_integer() else number
