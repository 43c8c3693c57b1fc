"""Equivalence classes of a table and the measures built on their sizes.

An *equivalence class* (QI-group) is a maximal set of rows with identical values on every
quasi-identifier. Generalized values are compared as they are: ``"30-39"`` and ``"*"`` are just
labels here.

- :func:`equivalence_classes` — number and sizes of the classes (:class:`ClassStats`).
- :func:`discernibility` — Bayardo & Agrawal's discernibility metric ``Σ|E|² + |S|·N``.
- :func:`aecs` — normalized average equivalence-class size ``(N / #classes) / k``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from .common import check_count, check_counts, check_quasi, group_rows

__all__ = ["ClassStats", "equivalence_classes", "discernibility", "aecs"]


@dataclass(frozen=True, eq=False)
class ClassStats:
    """Sizes of the equivalence classes of a table.

    Attributes
    ----------
    count : int
        Number of classes.
    sizes : numpy.ndarray
        Read-only int64 array of class sizes, classes ordered by their first row in the table.
    rows : int
        Number of rows (the sum of ``sizes``).
    average_size : float
        ``rows / count``.
    min_size, max_size : int
        Smallest and largest class (the table is ``min_size``-anonymous on the QIs).
    """

    count: int
    sizes: np.ndarray
    rows: int
    average_size: float
    min_size: int
    max_size: int

    def histogram(self) -> pd.Series:
        """Number of classes of each size: a Series indexed by ascending size, named ``classes``."""
        size, n = np.unique(self.sizes, return_counts=True)
        return pd.Series(
            n.astype(np.int64), index=pd.Index(size.astype(np.int64), name="size"), name="classes"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (the histogram as ``{size: number of classes}``, no ``sizes``)."""
        hist = self.histogram()
        return {
            "count": self.count,
            "rows": self.rows,
            "average_size": self.average_size,
            "min_size": self.min_size,
            "max_size": self.max_size,
            "histogram": {int(s): int(n) for s, n in zip(hist.index, hist.to_numpy(), strict=True)},
        }


def _class_sizes(data: Any, quasi: Any, counts: Any = None) -> np.ndarray:
    data = pandas_if_arrow(data, "data")
    cols = check_quasi(data, quasi)
    sizes, _ = group_rows(data, cols, check_counts(counts, len(data)))
    return sizes


def equivalence_classes(
    data: pd.DataFrame,
    quasi: Sequence[str] | str,
    counts: Sequence[int] | np.ndarray | None = None,
) -> ClassStats:
    """Group the rows of ``data`` by their quasi-identifier values.

    Parameters
    ----------
    data : pandas.DataFrame
        Original or generalized table (any index).
    quasi : sequence of str or str
        Quasi-identifier columns.
    counts : sequence of int, optional
        Records per row: ``data`` is then a frequency table of distinct combinations, grouped as
        the table with each row repeated ``counts`` times (default: one record per row).

    Returns
    -------
    ClassStats

    Raises
    ------
    InputError
        If ``data`` is not a non-empty DataFrame with unique column names, a QI column is absent,
        or a QI column has missing values.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": ["2*", "2*", "3*"], "zip": ["130**"] * 3})
    >>> equivalence_classes(df, ["age", "zip"]).sizes.tolist()
    [2, 1]
    """
    sizes = _class_sizes(data, quasi, counts)
    sizes.setflags(write=False)
    rows = int(sizes.sum())
    return ClassStats(
        count=len(sizes),
        sizes=sizes,
        rows=rows,
        average_size=rows / len(sizes),
        min_size=int(sizes.min()),
        max_size=int(sizes.max()),
    )


def discernibility(
    data: pd.DataFrame,
    quasi: Sequence[str] | str,
    suppressed: int = 0,
    counts: Sequence[int] | np.ndarray | None = None,
) -> int:
    """Discernibility metric of Bayardo & Agrawal (2005): ``Σ_E |E|² + suppressed · N``.

    Every row is charged the size of its class; a suppressed row is charged the size ``N`` of the
    whole table, where ``N = len(data) + suppressed``.

    Parameters
    ----------
    data : pandas.DataFrame
        The published rows (suppressed rows already removed).
    quasi : sequence of str or str
        Quasi-identifier columns.
    suppressed : int, default 0
        Number of rows removed from ``data`` by suppression.
    counts : sequence of int, optional
        Records per row of a frequency table (see :func:`equivalence_classes`).

    Returns
    -------
    int
        Between ``N`` (all classes of size 1, nothing suppressed) and ``N²``.

    Raises
    ------
    InputError
        Bad table or QI list (see :func:`equivalence_classes`) or ``suppressed < 0``.
    """
    n_suppressed = check_count(suppressed, "suppressed")
    sizes = _class_sizes(data, quasi, counts)
    n = int(sizes.sum()) + n_suppressed
    return int(np.dot(sizes, sizes)) + n_suppressed * n


def aecs(data: pd.DataFrame, quasi: Sequence[str] | str, k: int) -> float:
    """Normalized average equivalence-class size ``C_AVG = (N / #classes) / k`` (LeFevre et al.).

    1 is ideal for a k-anonymous table: the classes are no larger than needed.

    Parameters
    ----------
    data : pandas.DataFrame
    quasi : sequence of str or str
        Quasi-identifier columns.
    k : int
        The anonymity parameter the table was made for, ``k >= 1``.

    Returns
    -------
    float

    Raises
    ------
    InputError
        Bad table or QI list, or ``k`` not a whole number ``>= 1``.
    """
    if (
        isinstance(k, (bool, np.bool_))
        or not isinstance(k, numbers.Real)
        or not math.isfinite(float(k))
        or float(k) != int(k)
        or k < 1
    ):
        raise InputError(f"'k' must be a whole number >= 1, got {k!r}")
    sizes = _class_sizes(data, quasi)
    return float(sizes.sum()) / len(sizes) / int(k)
