"""A column that two quasi-identifiers give back together, value for value.

A survey file may carry what its keys already say, combined: Ecdat's ``RetSchool`` holds
``famed``, a family-education class (1 to 9) made of the father's and the mother's years of
schooling, ``daded`` and ``momed``; each of their 269 combinations holds one class. Taken for a
rating scale from its values and published unchanged as a sensitive column, it gave back the
parents' schooling the release generalized (``famed`` 3 is ``daded`` 12 and ``momed`` 12).
Whoever knows the two keys knows it: :func:`determining_pairs` finds the pair, and
``microanon init`` proposes such a column a quasi-identifier
(:func:`~.roles.lint_roles`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...core.factorize import factorize, factorize_keys
from ...core.lint import DEPENDENCY_STRENGTH, dependency_strength
from ...core.lint_pairs import stands_for

__all__ = ["determining_pairs"]

#: Rows a pair is first tested on: most pairs do not give a column back, as these rows show.
_FIRST_ROWS = 2_000


def determining_pairs(
    data: pd.DataFrame, columns: Sequence[str], keys: Sequence[str]
) -> dict[str, tuple[str, str, float]]:
    """For each of ``columns`` that a pair of ``keys`` gives back, the first such pair and the
    strength of that dependency: the pair's combination holds one value of the column on every
    row where the three are known, at the lint's strength
    (:func:`~microanon.core.lint.dependency_strength`: leave-one-out, a combination one record
    alone holds tells nothing) of :data:`~microanon.core.lint.DEPENDENCY_STRENGTH` or more. Not
    a column that one key alone gives back so (the lint's findings then decide), nor one of
    fewer than two values. The keys are coded once for every column.

    Parameters
    ----------
    data : DataFrame
    columns : sequence of str
        The columns that may be given back.
    keys : sequence of str
        The quasi-identifiers, in the table's order.

    Returns
    -------
    dict of str to (str, str, float)
        Per column given back: the two keys and the strength.
    """
    coded = {c: factorize(data[c]) for c in dict.fromkeys([*columns, *keys])}
    wanted = {c: coded[c] for c in columns if len(np.unique(coded[c][0][coded[c][0] >= 0])) > 1}
    found: dict[str, tuple[str, str, float]] = {}
    settled: set[str] = set()  # (found, or given back by one key alone)
    for a, b in itertools.combinations(keys, 2):
        (x, _), (z, nz) = coded[a], coded[b]
        both = (x >= 0) & (z >= 0)
        pair = x.astype(np.int64) * len(nz) + z
        for column, (y, uniques) in wanted.items():
            if column in settled:
                continue
            rows = np.flatnonzero(both & (y >= 0))
            if not (_gives(pair, y, rows[rows < _FIRST_ROWS]) and _gives(pair, y, rows)):
                continue
            strength = dependency_strength(factorize_keys(pair[rows])[0], y[rows], len(uniques))
            if strength >= DEPENDENCY_STRENGTH:
                settled.add(column)
                if not _alone(coded, keys, y, len(uniques)):
                    found[column] = (a, b, strength)
    return found


def _gives(det: np.ndarray, y: np.ndarray, rows: np.ndarray) -> bool:
    """Whether each value of ``det`` (any integers) stands for one code of ``y`` on ``rows``
    (at least one)."""
    return len(rows) > 0 and stands_for(factorize_keys(det[rows])[0], y[rows])


def _alone(
    coded: dict[str, tuple[np.ndarray, pd.Index]], keys: Sequence[str], y: np.ndarray, n: int
) -> bool:
    """Whether one of ``keys`` alone gives ``y`` back at the lint's strength."""
    for key in keys:
        x = coded[key][0]
        rows = np.flatnonzero((x >= 0) & (y >= 0))
        if len(rows) and stands_for(x[rows], y[rows]):
            if dependency_strength(x[rows], y[rows], n) >= DEPENDENCY_STRENGTH:
                return True
    return False
