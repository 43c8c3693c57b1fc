"""Whether a column's values look like numbers handed out in order, one to each person or unit
(a student's, a lecturer's, a school's number), read from its distinct values and their records.

Such a column's values

* are whole numbers, none below 0, of a numeric type (booleans aside);
* fill at least :data:`CODE_FILL` of the whole numbers from the smallest to the largest, as
  numbers handed out in order do (the gaps are those of the units not in the file); and
* spread their records evenly over that range: the share of records up to any value is within
  :data:`CODE_EVEN` of an even spread's, where a measurement (a birth weight, a cholesterol
  level, a clock time, a price) bunches around its typical values.

The test needs nothing but the distinct values and the records of each, so a column counted
whole (``microanon init``'s id-code rule and ``anonymize`` in memory) and one counted partition
by partition, the partitions' counts merged (:func:`microanon.core.repetition.merged`, the Dask
engine), get the same answer. How many values a code has at least, and the names that are no
code's (a count, a measure, a time), are the id-code rule's
(:func:`microanon.apps.init.numbers.coded`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CODE_EVEN", "CODE_FILL", "Numbering", "numbering"]

#: Smallest share of the whole numbers of its range an id code's values fill.
CODE_FILL = 0.5
#: Largest gap between the share of rows up to a value of an id code and an even spread's.
CODE_EVEN = 0.1


@dataclass(frozen=True)
class Numbering:
    """How the whole numbers of a column that look handed out in order fill their range.

    Attributes
    ----------
    low, high : float
        The smallest and the largest.
    fill : float
        The share of the whole numbers from ``low`` to ``high`` the column holds.
    off : float
        The largest gap between the share of records up to a value and an even spread's.
    """

    low: float
    high: float
    fill: float
    off: float


def numbering(values: pd.Index, counts: np.ndarray) -> Numbering | None:
    """How a column's distinct ``values`` fill their range, when they look like numbers handed
    out in order (see the module docstring); else None.

    Parameters
    ----------
    values : Index
        The column's distinct values, missing values left out, in any order.
    counts : ndarray
        The records of each (whole numbers, as many as ``values``).

    Returns
    -------
    Numbering or None
    """
    kind = values.dtype.kind
    if not len(values) or kind not in "iuf":
        return None
    if kind == "f":
        x = values.to_numpy(dtype=np.float64)
        if not np.isfinite(x).all() or (x % 1 != 0).any():
            return None
    else:
        x = values.to_numpy(dtype=np.uint64 if kind == "u" else np.int64)
    low, high = x.min(), x.max()
    span = float(high) - float(low) + 1
    fill = len(x) / span
    if low < 0 or fill < CODE_FILL:
        return None
    # The values are distinct and fill half their range or more: each one's place in it, the
    # records up to each place summed along the range (no sort), read at the values' places.
    places = (x - low).astype(np.int64, copy=False)
    up_to = np.zeros(int(span), dtype=np.int64)
    up_to[places] = counts
    np.cumsum(up_to, out=up_to)
    share = up_to[places] / up_to[-1]
    del up_to
    even = places + 1.0
    del places
    even /= span
    share -= even
    off = float(np.abs(share, out=share).max())
    return Numbering(float(low), float(high), fill, off) if off <= CODE_EVEN else None
