"""Shared validation and grouping helpers of :mod:`microanon.measures` (private).

Every measure takes a pandas DataFrame and a list of quasi-identifier (QI) column names. Rows are
grouped by their QI values without Python loops: each column is factorized with
:func:`microanon.core.table.factorize_column` and the code columns are combined with
:func:`microanon.core.table.combine_codes`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.hierarchy import Hierarchy
from ..core.schema import check_frame
from ..core.table import combine_codes, factorize_column

__all__: list[str] = []


def check_quasi(data: Any, quasi: Any, what: str = "table") -> list[str]:
    """Validate ``data`` and the QI column list; return the QI names as a list.

    Raises
    ------
    InputError
        If ``data`` is not a DataFrame, is empty or has duplicate column names; if ``quasi`` is
        empty, names a column twice or names a column that is absent.
    """
    check_frame(data, None, what=what)
    cols = normalize_columns(quasi, "quasi")
    check_frame(data, cols, what=what)
    return cols


def normalize_columns(quasi: Any, param: str) -> list[str]:
    """Turn a column name or an iterable of names into a non-empty list without duplicates."""
    if isinstance(quasi, str):
        cols = [quasi]
    elif isinstance(quasi, Iterable) and not isinstance(quasi, (bytes, Mapping)):
        cols = list(quasi)
    else:
        raise InputError(f"'{param}' must be a list of column names, got {type(quasi).__name__}")
    if not cols:
        raise InputError(f"'{param}' is empty: name at least one quasi-identifier column")
    seen: set[Any] = set()
    dup = []
    for c in cols:
        if c in seen:
            dup.append(c)
        seen.add(c)
    if dup:
        raise InputError(
            f"'{param}' names column(s) more than once: {', '.join(map(repr, dict.fromkeys(dup)))}"
        )
    return cols


def check_count(value: Any, param: str) -> int:
    """A non-negative whole number (such as a number of suppressed rows)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"'{param}' must be a non-negative integer, got {value!r}")
    if not math.isfinite(float(value)) or float(value) != int(value) or value < 0:
        raise InputError(f"'{param}' must be a non-negative integer, got {value!r}")
    return int(value)


def group_rows(data: pd.DataFrame, quasi: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows into equivalence classes (identical values on every QI column).

    Returns
    -------
    sizes : (n_classes,) int64 array
        Class sizes, classes ordered by their first row.
    row_class : (n_rows,) int64 array
        Class index of every row.
    """
    factorized = [factorize_column(data[c], c) for c in quasi]
    _, counts, inverse, first = combine_codes(
        [codes for codes, _ in factorized], [len(u) for _, u in factorized]
    )
    # Reorder classes by first appearance so the order does not depend on code values.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return counts[order], rank[inverse]


def check_hierarchies(
    data: Any, hierarchies: Any, quasi: Any
) -> tuple[list[str], dict[str, Hierarchy]]:
    """Validate a table, a mapping column -> Hierarchy and the QI list (default: its keys).

    Raises
    ------
    InputError
        Bad table or QI list (see :func:`check_quasi`), ``hierarchies`` not a mapping of
        :class:`Hierarchy`, or a QI column without a hierarchy.
    """
    if not isinstance(hierarchies, Mapping):
        raise InputError(
            f"'hierarchies' must be a mapping column -> Hierarchy, got {type(hierarchies).__name__}"
        )
    if quasi is None:
        if not hierarchies:
            raise InputError("'hierarchies' is empty and no 'quasi' columns were given")
        quasi = list(hierarchies)
    cols = check_quasi(data, quasi)
    absent = [c for c in cols if c not in hierarchies]
    if absent:
        raise InputError(
            f"quasi-identifier column(s) {', '.join(map(repr, absent))} have no hierarchy; pass "
            "one per column in 'hierarchies' (available: "
            + (", ".join(map(repr, hierarchies)) or "none")
            + ")"
        )
    bad = [c for c in cols if not isinstance(hierarchies[c], Hierarchy)]
    if bad:
        raise InputError(
            f"'hierarchies' entry for column(s) {', '.join(map(repr, bad))} is not a Hierarchy "
            f"(got {type(hierarchies[bad[0]]).__name__}); build one with Hierarchy.from_arx_csv, "
            "Hierarchy.from_nested or a builder"
        )
    return cols, {c: hierarchies[c] for c in cols}


def resolve_nodes(
    column: pd.Series, hierarchy: Hierarchy, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """Hierarchy nodes of the distinct values of a (possibly generalized) column, with counts.

    Each distinct value is resolved once with :meth:`Hierarchy.node_of` (``"*"`` is the root).

    Returns
    -------
    nodes : (m,) int64 array
        Node id of each distinct value.
    counts : (m,) int64 array
        Number of rows holding each distinct value.

    Raises
    ------
    InputError
        Missing values in the column.
    HierarchyError
        A value that is neither a leaf nor an inner label of the hierarchy.
    """
    codes, uniques = factorize_column(column, name)
    nodes = hierarchy.node_of(list(uniques), column=name)
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    return nodes, counts


def range_reduce(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """``ufunc.reduce(values[lo[i]:hi[i]])`` for every non-empty interval, vectorized."""
    values = np.asarray(values)
    if len(lo) == 0:
        return np.empty(0, dtype=values.dtype)
    ext = np.append(values, values[-1:])  # so that hi == len(values) is a valid reduceat index
    idx = np.empty(2 * len(lo), dtype=np.int64)
    idx[0::2] = lo
    idx[1::2] = hi
    return ufunc.reduceat(ext, idx)[0::2]
