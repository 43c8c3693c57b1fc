"""The order in which a table of records is written: sorted by the published values.

A method that publishes one row per record (generalization, masking, randomization) computes
its rows in the order of the input file. Written in that order, the file would tell more than
its values: on an input sorted by a column (a person id, an income, the date of an interview)
the i-th published row is the i-th record, so the rows of one equivalence class are told apart
by their place, a rank swap is undone by the ranks, and one person's rows of a panel stay
together. A release therefore writes such a table with its rows sorted by their published
values, column after column: an order that is a function of the published values alone, which
anyone holding the file can compute, so that it says nothing the values do not (rows that are
equal in every column are interchangeable). The same release on the same data writes the same
bytes, which a random order would not.

:func:`value_order` gives that order; :func:`rows_in_order` applies it to the metadata that
names rows of the table (the steps' ``source_rows``, local suppression's ``suppressed_cells``),
which the internal part keeps about the rows as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .factorize import (
    KEY_LIMIT,
    both_zero_signs,
    factorize,
    push_digit,
    radix_order,
    shared_result,
)

__all__ = [
    "ROW_METADATA",
    "ascending",
    "inverse_order",
    "order_of_ranks",
    "rows_in_order",
    "value_order",
    "value_ranks",
]

#: Metadata keys that name rows of a release's record table, and how: ``"per row"``, a list
#: with one entry for each row (what the row is); ``"positions"``, per column a list of row
#: positions (also the ``suppressed_cells`` of each entry of the steps' ``step_metadata``).
ROW_METADATA: dict[str, str] = {"source_rows": "per row", "suppressed_cells": "positions"}


def ascending(values: Any) -> np.ndarray:
    """Positions of ``values`` (distinct, none missing) in ascending order: numbers by number
    (-0.0 before 0.0, NaN last), text by text, values of several types by type name, then
    text."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return np.lexsort((~np.signbit(values), values))
    try:
        return np.argsort(values, kind="stable")
    except TypeError:  # values of several types: ordered by type, then by text
        text = np.array([f"{type(v).__name__}\x00{v}" for v in values], dtype=object)
        return np.argsort(text, kind="stable")


def _value_ranks(uniques: Any) -> np.ndarray:
    """The rank of each distinct value in :func:`ascending` order."""
    order = ascending(uniques)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank


def value_order(df: pd.DataFrame) -> np.ndarray | None:
    """The rows of ``df`` sorted by their values: by the first column, then the second, ...;
    a missing value after every other value of its column.

    Parameters
    ----------
    df : DataFrame
        A release table (text as str and None, numbers, truth values).

    Returns
    -------
    int64 array or None
        Row positions in that order (rows equal in every column in their given order); None
        when the rows are in that order already.

    Notes
    -----
    Each column's codes (:func:`~microanon.core.factorize.factorize`, shared within a run) are
    replaced by their values' ranks (:func:`value_ranks`) and sorted by
    :func:`order_of_ranks`. Cost: O(n) per column and one sort of n integers; within a run
    (:func:`~microanon.core.factorize.shared_result`) once per table's data, which the writer
    and the verification both ask for.
    """
    columns = [df[c] for c in df.columns]
    return shared_result(columns, "value_order", lambda: _value_order(df))


def _signed_zeros(column: pd.Series) -> np.ndarray | None:
    """For a float column holding both -0.0 and 0.0 (equal values, written apart): 1 where a
    row holds 0.0, else 0; None otherwise."""
    if column.dtype != np.float64 or not both_zero_signs(values := column.to_numpy()):
        return None
    return ((values == 0) & ~np.signbit(values)).astype(np.int64)


def value_ranks(codes: np.ndarray, uniques: Any) -> tuple[np.ndarray, int]:
    """Per row, the rank of its value in :func:`ascending` order of ``uniques`` (code ``-1``,
    a missing value, after every value), and the number of ranks: one digit of
    :func:`order_of_ranks` (of the narrowest unsigned type: a gather of 10⁶ ranks writes a
    megabyte, not eight)."""
    d = len(uniques) + 1
    return np.append(_value_ranks(uniques), d - 1).astype(np.min_scalar_type(d - 1))[codes], d


def _value_order(df: pd.DataFrame) -> np.ndarray | None:
    """:func:`value_order`, computed."""

    def digits() -> Iterator[tuple[np.ndarray, int]]:
        for c in df.columns:
            yield value_ranks(*factorize(df[c]))
            signed = _signed_zeros(df[c])
            if signed is not None:  # -0.0 and 0.0, one value written two ways: -0.0 first
                yield signed, 2

    return order_of_ranks(len(df), digits())


def order_of_ranks(n: int, digits: Iterable[tuple[np.ndarray, int]]) -> np.ndarray | None:
    """The ``n`` rows sorted by their ranks: by the first digit's (an array of ``n`` ranks
    below its radix), then the second's, ...; rows of equal ranks in their order. None when
    the rows are in that order already.

    The ranks are packed into one integer key per row, renumbered in order when the next
    digit would overflow it; the key is sorted by a radix sort when it is small. Once the
    renumbered keys are all distinct, the later digits cannot change the order and are not
    read (a table with a column of numbers drawn per record).
    """
    if n < 2:
        return None
    key = np.zeros(n, dtype=np.int64)
    space = 1
    for rank, radix in digits:
        if space * radix > KEY_LIMIT:  # renumber the keys so far in their order: they fit
            distinct, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64, copy=False).reshape(-1)
            space = len(distinct)
            if space == n:  # every row's key is its own: the order is decided
                break
        push_digit(key, rank, radix)
        space *= radix
    if (key[1:] >= key[:-1]).all():
        return None
    order = radix_order(key, space)
    return np.argsort(key, kind="stable") if order is None else order.astype(np.int64)


def inverse_order(order: np.ndarray) -> np.ndarray:
    """The permutation that undoes ``order``: ``inverse_order(order)[order[i]] == i``."""
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.arange(len(order), dtype=np.int64)
    return inverse


def rows_in_order(metadata: Mapping[str, Any], order: np.ndarray) -> dict[str, Any]:
    """``metadata`` with its :data:`ROW_METADATA` about the rows of a table written in
    ``order`` (row ``i`` written is row ``order[i]``) made about the rows as written."""
    out = dict(metadata)
    place = None  # (where each row is written, found once)
    for key, how in ROW_METADATA.items():
        if key not in out:
            continue
        if how == "per row":
            out[key] = np.asarray(out[key], dtype=np.int64)[order].tolist()
            continue
        place = inverse_order(order) if place is None else place
        out[key] = _positions(out[key], place)
    if "step_metadata" in out:  # each step's cells, named by the release's rows (the steps)
        place = inverse_order(order) if place is None else place
        out["step_metadata"] = [
            {**step, "suppressed_cells": _positions(step["suppressed_cells"], place)}
            if "suppressed_cells" in step
            else step
            for step in out["step_metadata"]
        ]
    return out


def _positions(cells: Mapping[str, Any], place: np.ndarray) -> dict[str, list[int]]:
    """Per column, rows (positions in the release) as the positions they are written at."""
    return {
        c: np.sort(place[np.asarray(rows, dtype=np.int64)]).tolist() for c, rows in cells.items()
    }
