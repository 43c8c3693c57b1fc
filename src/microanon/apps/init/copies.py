"""Quasi-identifiers that recode another one value for value.

Survey and econometric files carry the same fact twice: a sex as text and as a 0/1 dummy
(mosaicData's ``HELPmiss``: ``sex`` and ``female``), a birth year beside the year of the
interview of a one-wave file (AER's ``GSOEP9402``: ``year`` less ``birthyear`` is 14 on every
row), a grade and the same grade centred (HLMdiag's ``wages``: ``hgc`` and ``hgc.9``). As a
second quasi-identifier such a column tells nothing the first does not; it makes the lattice
larger (``HELPmiss``'s beyond the exact search's limit), and generalized to another level than
the first it gives that one back. ``microanon init`` drops it (:func:`~.roles.copies_dropped`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...core.factorize import factorize
from ...core.lint_pairs import stands_for
from .profile import normalized_name

__all__ = ["TRANSFORM_NAME", "copies", "transforms"]


def copies(data: pd.DataFrame, keys: Sequence[str]) -> dict[str, str]:
    """Which of ``keys`` recodes an earlier one of them one for one: as many values (a missing
    value one of its own), each standing for one value of the other on every row, and the other
    way round.

    Parameters
    ----------
    data : DataFrame
    keys : sequence of str
        The quasi-identifiers, in the table's order: of two that recode each other, the later
        one is the copy.

    Returns
    -------
    dict of str to str
        Each copy and the key it recodes (one not itself a copy).
    """
    coded = {}
    for key in keys:
        codes, uniques = factorize(data[key])
        gap = codes < 0
        coded[key] = (np.where(gap, len(uniques), codes), len(uniques) + int(gap.any()))
    out: dict[str, str] = {}
    for i, key in enumerate(keys):
        codes, n = coded[key]
        for first in keys[:i]:
            if first not in out and coded[first][1] == n >= 2:
                if _one_for_one(coded[first][0], codes):
                    out[key] = first
                    break
    return out


#: Rows a pair is first compared on: most pairs of keys are no copies, as these rows show.
_FIRST_ROWS = 2_000


def _one_for_one(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether codes ``x`` and ``y`` (none below 0) stand for each other on every row (first
    on the first rows, which tell most pairs apart)."""
    return all(
        stands_for(x[rows], y[rows]) and stands_for(y[rows], x[rows])
        for rows in (slice(0, _FIRST_ROWS), slice(None))
    )


#: The name of a column computed from another by a transform, as econometric files name them
#: (normalized, :func:`~.profile.normalized_name`): the other's name after ``l``, ``ln`` or
#: ``log`` (a logarithm: ``lwage``, ``lnwage``, ``log_wage``, ISLR's ``logwage``) or before
#: ``sq``, ``squared`` or ``2`` (a square: ``incsq``); each reading is tried (:func:`_bases`).
TRANSFORM_NAME = (
    re.compile(r"^_l_?(?P<name>.+)_$"),
    re.compile(r"^_ln_?(?P<name>.+)_$"),
    re.compile(r"^_log_?(?P<name>.+)_$"),
    re.compile(r"^_(?P<name>.+?)_?(?:sq|squared|2)_$"),
)


def _bases(name: str) -> list[str]:
    """The normalized names of the columns a column named ``name`` (normalized) may be
    computed from, by :data:`TRANSFORM_NAME`."""
    found = (pattern.match(name) for pattern in TRANSFORM_NAME)
    return [f"_{m.group('name')}_" for m in found if m is not None]


def transforms(data: pd.DataFrame, columns: Sequence[str]) -> dict[str, str]:
    """Which of ``columns``, columns of numbers, is computed from another one of them: named
    as its logarithm or its square (:data:`TRANSFORM_NAME`), and a strictly monotone function
    of it, missing on the same rows (in the order of the other's values strictly rising, or
    strictly falling, from one distinct value to the next, and equal where it is equal).

    Parameters
    ----------
    data : DataFrame
    columns : sequence of str

    Returns
    -------
    dict of str to str
        Each transform and the column it is computed from.
    """
    named = {normalized_name(c): c for c in columns}
    out: dict[str, str] = {}
    for column in columns:
        for base in (named.get(b) for b in _bases(normalized_name(column))):
            if base and base != column and _monotone(_numbers(data[base]), _numbers(data[column])):
                out[column] = base
                break
    return out


def _numbers(column: pd.Series) -> np.ndarray:
    """A column's values as floats (NaN where missing, or where a value is no number)."""
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _monotone(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether ``y`` is a strictly monotone function of ``x`` (see :func:`transforms`), on at
    least two distinct values."""
    gap = np.isnan(x)
    if not np.array_equal(gap, np.isnan(y)) or int((~gap).sum()) < 2:
        return False
    x, y = x[~gap], y[~gap]
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    step = x[1:] != x[:-1]
    if (y[1:] != y[:-1])[~step].any():  # (one value of x, two of y)
        return False
    rise = np.sign(y[1:] - y[:-1])[step]
    return len(rise) > 0 and (bool((rise > 0).all()) or bool((rise < 0).all()))
