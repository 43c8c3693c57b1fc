"""Which pairs of coded columns may tell one another, for many pairs at once.

The schema lint (:mod:`microanon.core.lint`) tests every column published with its records
against every sensitive column: whether each value of one stands for one value of the other, on
the rows where both are known. Most pairs fail on their first rows; :func:`may_tell` says which
do not, on the first rows of every pair at once, so that only those are tested on every row.

How. Two columns' contingency table (records per pair of values, the rows where either is
missing left out) tells both directions: each value of ``x`` stands for one value of ``y`` when
no row of the table has two cells with records, and each value of ``y`` for one of ``x`` when no
column has. The tables of every pair are the blocks of one product of indicator matrices (a row
per value of each column, a column per record; ``X @ Y.T``), computed a block of columns of
``X`` at a time; records counted in float32 are exact below 2**24.

A column of many values (more than :data:`WIDE_VALUES`: a name, an amount) would make those
matrices dense and large (a row per value and a column per record: the product of two such
columns on 4,096 records is 4,096³ multiplications), so a pair with such a column is tested on
its own instead, in one pass over its rows (:func:`stands_for`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["may_tell", "stands_for"]

#: Most indicator columns (values) of one block of ``X``.
BLOCK_VALUES = 4096
#: Columns of more values than this are tested pair by pair (:func:`_pair_tells`), not in the
#: product of indicator matrices.
WIDE_VALUES = 64


def _widths(codes: Sequence[np.ndarray]) -> np.ndarray:
    """Each coded column's indicator columns: its largest code plus one, at least one (so that
    no column's span is empty)."""
    return np.array([max(int(c.max(initial=-1)) + 1, 1) for c in codes], dtype=np.int64)


def _indicators(codes: Sequence[np.ndarray], widths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A ``(values, rows)`` float32 matrix with a 1 where a row holds a value (a row per value
    of each coded column, missing codes ``-1`` nowhere), and where each column's values
    start."""
    starts = np.cumsum(widths) - widths
    out = np.zeros((int(widths.sum()), len(codes[0])), dtype=np.float32)
    for c, start in zip(codes, starts.tolist(), strict=True):
        known = np.flatnonzero(c >= 0)
        out[start + c[known], known] = 1.0
    return out, starts


def may_tell(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray]) -> np.ndarray:
    """For every pair of a coded column of ``xs`` and one of ``ys`` (codes ``0..k-1``, ``-1``
    missing, all of one length), whether each value of the first stands for one value of the
    second or each value of the second for one of the first, on the rows where both are known
    (true when there is none).

    Returns
    -------
    ndarray
        A ``(len(xs), len(ys))`` bool array.
    """
    out = np.ones((len(xs), len(ys)), dtype=bool)
    if not len(xs) or not len(ys):
        return out
    x_widths, y_widths = _widths(xs), _widths(ys)
    x_wide, y_wide = x_widths > WIDE_VALUES, y_widths > WIDE_VALUES
    for i, j in zip(*np.nonzero(x_wide[:, None] | y_wide[None, :]), strict=True):
        out[i, j] = _pair_tells(xs[i], ys[j])
    narrow_x, narrow_y = np.flatnonzero(~x_wide), np.flatnonzero(~y_wide)
    if len(narrow_x) and len(narrow_y):
        out[np.ix_(narrow_x, narrow_y)] = _product_tells(
            [xs[i] for i in narrow_x],
            x_widths[narrow_x],
            [ys[j] for j in narrow_y],
            y_widths[narrow_y],
        )
    return out


def _product_tells(
    xs: Sequence[np.ndarray], widths: np.ndarray, ys: Sequence[np.ndarray], y_widths: np.ndarray
) -> np.ndarray:
    """:func:`may_tell` of columns of few values each, from the product of their indicator
    matrices, a block of ``xs``'s values at a time."""
    out = np.ones((len(xs), len(ys)), dtype=bool)
    y, y_starts = _indicators(ys, y_widths)
    y = np.ascontiguousarray(y.T)
    ends = np.cumsum(widths)
    a = 0
    while a < len(xs):
        # the columns whose values fit in a block (one at least)
        b = max(a + 1, int(np.searchsorted(ends, ends[a] - widths[a] + BLOCK_VALUES, "right")))
        x, x_starts = _indicators(xs[a:b], widths[a:b])
        cells = (x @ y) > 0  # (values of xs[a:b], values of ys): a pair of values is seen
        # per value of x, the values of each y it meets; per value of y, those of each x
        per_x = np.add.reduceat(cells, y_starts, axis=1, dtype=np.int64)
        per_y = np.add.reduceat(cells, x_starts, axis=0, dtype=np.int64)
        x_to_y = np.maximum.reduceat(per_x, x_starts, axis=0) <= 1
        y_to_x = np.maximum.reduceat(per_y, y_starts, axis=1) <= 1
        out[a:b] = x_to_y | y_to_x
        a = b
    return out


def _pair_tells(x: np.ndarray, y: np.ndarray) -> bool:
    """:func:`may_tell` of one pair, on the rows where both are known."""
    both = (x >= 0) & (y >= 0)
    if not both.any():
        return True
    x, y = x[both], y[both]
    return stands_for(x, y) or stands_for(y, x)


def stands_for(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether each code of ``x`` (codes ``0..k-1``) stands for one code of ``y``, rows alike
    (one pass: a value of ``y`` for each value of ``x``, one of its rows', then every row
    compared with it)."""
    stands = np.zeros(int(x.max()) + 1, dtype=np.int64)
    stands[x] = y
    return bool(np.array_equal(stands[x], y))
