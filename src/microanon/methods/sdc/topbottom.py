"""Top and bottom coding of a numeric column (sdcMicro's ``topBotCoding``).

A non-perturbative method of Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan
& Claypool 2016, Ch. 3.

As in sdcMicro, values strictly above the top threshold (strictly below the bottom threshold) are
coded; values equal to a threshold are kept. Thresholds are values, or quantiles of the column
(``numpy.quantile``'s default linear interpolation, which is R's default ``type = 7``).

Replacements: ``"threshold"`` (the threshold itself), ``"mean"`` (the mean of the values coded on
that side: totals are preserved), a number (sdcMicro's ``replacement``), or any other string, a
label. With a label the column becomes *text*: coded cells hold the label and the other cells
keep their values, so the release stores the column as strings (``"42"``, ``"57.5"``) and it is
no longer numeric for later methods or measures. ``{"top": ..., "bottom": ...}`` gives each side
its own replacement (e.g. labels ``"> 90"`` and ``"< 17"``).

An integer column stays integer when every replacement is an integer (e.g. integral thresholds);
otherwise it becomes float.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Anything, Boolean, Param, Real, Text
from ...core.errors import InputError
from ...core.release import Release
from ...core.schema import Kind, Schema
from ..registry import method
from .common import (
    check_flag,
    check_number,
    masked_release,
    masking_input,
    numeric_matrix,
    select_columns,
    with_columns,
)

__all__ = ["top_bottom_code", "REPLACEMENTS"]

#: Named replacements; any other string is a label.
REPLACEMENTS = ("threshold", "mean")


def _threshold(value: Any, name: str, quantiles: bool) -> float | None:
    if value is None:
        return None
    if quantiles:
        return check_number(value, f"{name} (a quantile probability)", 0, 1)
    return check_number(value, name)


def _replacement(value: Any, side: str) -> Any:
    if isinstance(value, str):
        if not value:
            raise InputError(f"replacement ({side}): an empty label; give a non-empty string")
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return check_number(value, f"replacement ({side})")
    raise InputError(
        f"replacement ({side}): expected 'threshold', 'mean', a number or a label, got {value!r}"
    )


def _sides(replacement: Any, top: float | None, bottom: float | None) -> dict[str, Any]:
    # (in this order, not a set's: the metadata is written in it, the same in every run)
    wanted = [s for s, t in (("top", top), ("bottom", bottom)) if t is not None]
    if isinstance(replacement, Mapping):
        keys = set(map(str, replacement))
        if not keys <= {"top", "bottom"} or keys != set(wanted):
            raise InputError(
                "replacement: a mapping needs exactly the keys of the coded sides "
                f"({', '.join(sorted(wanted))}), got {', '.join(sorted(keys)) or 'none'}"
            )
        return {s: _replacement(replacement[s], s) for s in wanted}
    return {s: _replacement(replacement, s) for s in wanted}


@method(
    "top_bottom_code",
    step="any",
    kind="masked",
    publishes="The table with one numeric column coded at its thresholds.",
    help="Replaces the extreme values of a numeric column (e.g. incomes above a threshold) by "
    "the threshold, so outliers no longer stand out.",
    params=(
        Param("column", "The numeric column coded.", (Text(),)),
        Param(
            "top",
            "Values above it are coded (with quantiles: a probability, 0.99 = the top 1 %).",
            (Real(),),
        ),
        Param(
            "bottom",
            "Values below it are coded (with quantiles: a probability).",
            (Real(),),
        ),
        Param(
            "quantiles",
            "Read top and bottom as shares of the records rather than values.",
            (Boolean(),),
        ),
        Param(
            "replacement",
            "What coded values become: the threshold, or a label you give (the column then "
            "becomes text).",
            (Text(), Real(), Anything("a label for each end: {top: ..., bottom: ...}")),
        ),
    ),
    in_memory_because="its quantile thresholds are computed over the whole table, and it has "
    "no out-of-core version yet",
)
def top_bottom_code(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    column: str,
    top: float | None = None,
    bottom: float | None = None,
    quantiles: bool = False,
    replacement: Any = "threshold",
) -> Release:
    """Collapse the values beyond a top and/or bottom threshold of one numeric column.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    column : str
        A numeric column of the schema.
    top, bottom : float, optional
        Thresholds (at least one): values ``> top`` and values ``< bottom`` are coded. With
        ``quantiles=True`` they are probabilities and the thresholds are the column's quantiles.
    quantiles : bool
        Read ``top`` and ``bottom`` as quantile probabilities.
    replacement : "threshold", "mean", number, label, or mapping {"top": ..., "bottom": ...}
        What coded values become (see the module docstring; a label makes the column text).

    Returns
    -------
    Release
        Kind ``"masked"``, the validated rows and columns with ``column`` coded. Metadata:
        ``parameters`` (column, top, bottom, quantiles, replacement), ``thresholds`` (the
        values used per side), ``replaced_by`` (the replacement value per side, e.g. the means),
        ``coded`` (number of coded records per side) and, unless a label made the column
        text, ``masked_numeric`` (``[column]``).

    Raises
    ------
    InputError
        Neither threshold; a threshold that is not a finite number (or not in ``[0, 1]`` with
        ``quantiles``); ``bottom > top``; an unknown or non-numeric column; a bad replacement.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [10, 20, 30, 40, 1000]})
    >>> schema = {"income": {"role": "quasi", "kind": "numeric"}}
    >>> rel = top_bottom_code(df, schema, column="income", top=30, replacement="mean")
    >>> rel.data["income"].tolist(), rel.metadata["coded"]
    ([10, 20, 30, 520, 520], {'top': 2})
    >>> rel = top_bottom_code(df, schema, column="income", top=30, replacement="> 30")
    >>> rel.data["income"].tolist()
    ['10', '20', '30', '> 30', '> 30']
    """
    check_flag(quantiles, "quantiles")
    t = _threshold(top, "top", quantiles)
    b = _threshold(bottom, "bottom", quantiles)
    if t is None and b is None:
        raise InputError("top_bottom_code needs a top or a bottom threshold (or both)")
    if t is not None and b is not None and b > t:
        raise InputError(f"bottom: expected a value not above top ({top}), got {bottom}")
    if not isinstance(column, str):
        raise InputError(f"column: expected one column name, got {column!r}")
    sides = _sides(replacement, t, b)
    schema, frame = masking_input(data, schema)
    (col,) = select_columns(schema, [column], (Kind.NUMERIC,), "top_bottom_code")
    x = numeric_matrix(frame, [col], "top_bottom_code", unknown=True)[:, 0]  # (NaN: stays)
    if np.isnan(x).all():
        raise InputError(f"top_bottom_code: column '{col}' holds no value to code")
    thresholds = {
        s: (float(np.nanquantile(x, v)) if quantiles else v)
        for s, v in (("top", t), ("bottom", b))
        if v is not None
    }
    masks = {s: (x > thr) if s == "top" else (x < thr) for s, thr in thresholds.items()}
    used: dict[str, Any] = {}
    for s, rep in sides.items():
        if rep == "threshold":
            used[s] = thresholds[s]
        elif rep == "mean":
            used[s] = float(x[masks[s]].mean()) if masks[s].any() else thresholds[s]
        else:
            used[s] = rep
    original = frame[col]
    labelled = any(isinstance(v, str) for v in used.values())
    if labelled:
        out = original.to_numpy(dtype=object).copy()
    elif pd.api.types.is_integer_dtype(original) and all(
        float(v).is_integer() for v in used.values()
    ):
        out = original.array.copy()  # (nullable integers keep their missing cells)
        used = {s: int(v) for s, v in used.items()}
    else:
        out = x.copy()
    for s, mask in masks.items():
        out[mask] = used[s]
    published = with_columns(frame, {col: out})
    parameters = {
        "column": col,
        "top": top,
        "bottom": bottom,
        "quantiles": bool(quantiles),
        "replacement": dict(replacement) if isinstance(replacement, Mapping) else replacement,
    }
    return masked_release(
        "top_bottom_code",
        published,
        schema,
        parameters,
        len(frame),
        thresholds=thresholds,
        replaced_by=used,
        coded={s: int(m.sum()) for s, m in masks.items()},
        **({} if labelled else {"masked_numeric": [col]}),
    )
