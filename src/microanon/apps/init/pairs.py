"""A column that two quasi-identifiers give back together, value for value.

A survey file may carry what its keys already say, combined: Ecdat's ``RetSchool`` holds
``famed``, a family-education class (1 to 9) made of the father's and the mother's years of
schooling, ``daded`` and ``momed``; each of their 269 combinations holds one class. Taken for a
rating scale from its values and published unchanged as a sensitive column, it gave back the
parents' schooling the release generalized (``famed`` 3 is ``daded`` 12 and ``momed`` 12).
Whoever knows the two keys knows it: :func:`determining_pair` finds the pair, and
``microanon init`` proposes such a column a quasi-identifier
(:func:`~.roles.lint_roles`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...core.factorize import factorize
from ...core.lint import DEPENDENCY_STRENGTH, dependency_accuracy

__all__ = ["determining_pair"]

#: Rows a pair is first tested on: most pairs do not give the column back, as these rows show.
_FIRST_ROWS = 2_000


def determining_pair(
    data: pd.DataFrame, column: str, keys: Sequence[str]
) -> tuple[str, str, float] | None:
    """The first pair of ``keys`` whose combination gives ``column`` back on every row where the
    three are known (each combination holds one value of it), with the strength of that
    dependency (the lint's: leave-one-out, a combination one record alone holds tells
    nothing) at :data:`~microanon.core.lint.DEPENDENCY_STRENGTH` or more; None when none does,
    or when one key alone gives it back (one for one or not: the lint's findings then decide).

    Parameters
    ----------
    data : DataFrame
    column : str
        The column that may be given back (two values at least).
    keys : sequence of str
        The quasi-identifiers, in the table's order.
    """
    coded = {c: factorize(data[c])[0] for c in [column, *keys]}
    y = coded[column]
    if len(np.unique(y[y >= 0])) < 2:
        return None
    first, every = slice(0, _FIRST_ROWS), slice(None)
    for a, b in itertools.combinations(keys, 2):
        if not (_gives(coded[a], coded[b], y, first) and _gives(coded[a], coded[b], y, every)):
            continue
        strength = _strength(coded[a], coded[b], y)
        if strength < DEPENDENCY_STRENGTH:
            continue
        alone = (  # (one key alone: the lint's own findings decide)
            _gives(coded[k], None, y, every) and _strength(coded[k], None, y) >= DEPENDENCY_STRENGTH
            for k in keys
        )
        return None if any(alone) else (a, b, strength)
    return None


def _strength(a: np.ndarray, b: np.ndarray | None, y: np.ndarray) -> float:
    """The lint's strength of the dependency of ``y`` on ``a`` (with ``b``, the pair), on the
    rows where all are known: the share of the error of always guessing ``y``'s most frequent
    value that the leave-one-out guess by the group removes."""
    known = (a >= 0) & (y >= 0) & ((b >= 0) if b is not None else True)
    key = a[known].astype(np.int64)
    if b is not None:
        key = key * (int(b.max()) + 1) + b[known]
    det = np.unique(key, return_inverse=True)[1].reshape(-1)
    target = np.unique(y[known], return_inverse=True)[1].reshape(-1)
    n = int(target.max()) + 1
    base = float(np.bincount(target, minlength=n).max() / len(target))
    return 0.0 if base >= 1 else max(0.0, (dependency_accuracy(det, target, n) - base) / (1 - base))


def _gives(a: np.ndarray, b: np.ndarray | None, y: np.ndarray, rows: slice) -> bool:
    """Whether the codes ``a`` (with ``b``: the pair) stand for one code of ``y`` each, on
    ``rows`` where all are known (at least one such row)."""
    a, y = a[rows], y[rows]
    known = (a >= 0) & (y >= 0)
    key = a.astype(np.int64)
    if b is not None:
        b = b[rows]
        known &= b >= 0
        key = key * (int(b.max(initial=0)) + 1) + b
    if not known.any():
        return False
    key, y = key[known], y[known]
    distinct = len(np.unique(key))
    return len(np.unique(key * (int(y.max()) + 1) + y)) == distinct
