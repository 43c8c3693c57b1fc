"""A sampling weight in a table of combinations: by class and sums, not by value.

The reports' survey risk measures take of a weight only sums: a combination of keys' total
weight (the individual risk) and the total of the inverse weights (the log-linear model); they
leave the records without a weight out (:func:`microanon.measures.survey_design.weighted_records`)
and refuse a weight with an infinite, zero or negative, below-1 or non-numeric value, naming the
kind and counting its records. A weight with many distinct values would make the
combinations counted with it about a row per record; counted instead by the *class* of each
record's weight (usable, or which kind of bad value) with the sums of the usable ones, they stay
as small as without a weight, and every figure and refusal is the same.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd

from ..core.missing import MISSING_LABEL

__all__ = [
    "CLASSES",
    "INVERSE",
    "REFUSED",
    "TOTAL",
    "USABLE",
    "remedy",
    "stand_ins",
    "weight_classes",
]

#: The classes of a record's weight: usable, then each kind of value the measures refuse.
USABLE, MISSING, INFINITE, NOT_POSITIVE, BELOW_ONE, NOT_NUMERIC = range(6)
#: The number of classes (their codes are ``0 .. CLASSES - 1``).
CLASSES = NOT_NUMERIC + 1
#: The numeric classes the survey measures refuse, in the order they are checked, and their
#: words (:func:`microanon.measures.keys.check_weights`).
REFUSED = {
    MISSING: "missing",
    INFINITE: "infinite",
    NOT_POSITIVE: "zero or negative",
    BELOW_ONE: "below 1",
}
#: What to do about a missing weight where a measure refuses one (those of
#: :mod:`microanon.measures.survey_risk` and :mod:`microanon.measures.loglinear` do; ``microanon
#: risk`` and the reports of a release leave the record out of the survey measures instead).
_MISSING_REMEDY = (
    "give those records a weight, or measure the others (microanon risk and the reports of a "
    "release leave a record without one out of the survey measures, and count it)"
)


def remedy(kinds: Collection[int]) -> str:
    """What to do about the refused ``kinds`` of weight found (codes of :data:`REFUSED`)."""
    said = []
    if any(k in kinds for k in (INFINITE, NOT_POSITIVE, BELOW_ONE)):
        said.append("a sampling weight is an inverse inclusion probability, at least 1")
        if BELOW_ONE in kinds:
            said.append(
                "multiply weights scaled to a mean of 1 (as some surveys publish them) by the "
                "population's size over the sample's"
            )
        said.append(
            "correct wrong values, or blank them: a record without a weight is left out of the "
            "survey measures, and counted"
        )
    if MISSING in kinds:
        said.append(_MISSING_REMEDY)
    return "; ".join(said)


#: The per-combination sums: the usable weights, and their inverses.
TOTAL, INVERSE = "weight_total", "weight_inverse"
#: A value of each refused class: a table holding it is refused for the same kind of value.
_STAND_IN = {
    MISSING: np.nan,
    INFINITE: np.inf,
    NOT_POSITIVE: 0.0,
    BELOW_ONE: 0.5,
    NOT_NUMERIC: MISSING_LABEL,
}


def weight_classes(
    column: pd.Series, missing: np.ndarray | None = None
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The class of each record's weight, and per record the sums :data:`TOTAL` and
    :data:`INVERSE` take (0 for a weight that is not usable).

    A column that is not numeric holds no usable weight (every value is refused as in memory);
    ``missing``: records to count as missing (a record without a household id). The sums
    are to be read, not changed (:data:`TOTAL` may be the column's own numbers).
    """
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        w = column.to_numpy(dtype=float, na_value=np.nan)
        if (missing is None or not missing.any()) and np.isfinite(w).all() and (w >= 1).all():
            # every weight usable (the usual survey): the sums without a class per condition
            return np.zeros(len(w), dtype=np.int64), {TOTAL: w, INVERSE: 1.0 / w}
        classes = np.select(
            [np.isnan(w), np.isinf(w), w <= 0, w < 1],
            [MISSING, INFINITE, NOT_POSITIVE, BELOW_ONE],
            default=USABLE,
        )
    else:
        w = np.zeros(len(column))
        classes = np.where(column.isna().to_numpy(), MISSING, NOT_NUMERIC)
    if missing is not None:
        classes = np.where(missing, MISSING, classes)
    usable = classes == USABLE
    total = np.where(usable, w, 0.0)
    inverse = np.divide(1.0, w, out=np.zeros(len(w)), where=usable)
    return classes.astype(np.int64), {TOTAL: total, INVERSE: inverse}


def stand_ins(classes: np.ndarray, counts: np.ndarray, total: np.ndarray) -> pd.Series:
    """The weight of each combination as the measures read it: the mean of its usable
    weights, or a value of its refused class (a text value makes the column not numeric)."""
    classes = np.asarray(classes, dtype=np.int64)
    usable = classes == USABLE
    mean = np.divide(total, counts, out=np.zeros(len(counts)), where=usable)
    if not (classes == NOT_NUMERIC).any():
        numeric = [np.nan if c in (USABLE, NOT_NUMERIC) else _STAND_IN[c] for c in range(CLASSES)]
        return pd.Series(np.where(usable, mean, np.array(numeric, dtype=float)[classes]))
    out = np.array([_STAND_IN.get(int(c), np.nan) for c in classes], dtype=object)
    out[usable] = mean[usable]
    return pd.Series(out, dtype=object)
