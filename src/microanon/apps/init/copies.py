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

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...core.factorize import factorize

__all__ = ["copies"]


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
                if _one_for_one(coded[first][0], codes, n):
                    out[key] = first
                    break
    return out


#: Rows a pair is first compared on: most pairs of keys are no copies, as these rows show.
_FIRST_ROWS = 2_000


def _one_for_one(x: np.ndarray, y: np.ndarray, n: int) -> bool:
    """Whether codes ``x`` and ``y`` (``0 .. n - 1`` each, all ``n`` used) stand for each other
    on every row: as many distinct pairs as values (first on the first rows, where a pair of
    codes more than either has values already tells)."""
    for rows in (slice(0, _FIRST_ROWS), slice(None)):
        a, b = x[rows], y[rows]
        pairs = _distinct(a.astype(np.int64) * n + b, n * n)
        if pairs != max(_distinct(a, n), _distinct(b, n)):
            return False
    return True


def _distinct(codes: np.ndarray, space: int) -> int:
    """The distinct values of ``codes`` (in ``0 .. space - 1``): counted in a table of the space
    where it is small beside the codes, else sorted."""
    if space <= 4 * len(codes) + 1024:
        return int(np.count_nonzero(np.bincount(codes, minlength=space)))
    return len(np.unique(codes))
