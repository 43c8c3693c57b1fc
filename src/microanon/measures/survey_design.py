"""The sampling weight and household id the survey risk measures take, and which records.

One rule for every place that measures a table's survey risk (``microanon risk``, the reports
of a release, in memory and out of core, the workbench, the risk after each of several steps):

- :func:`weighted_records`: a record without a sampling weight (a missing value) is left out
  of the survey measures (individual, household and log-linear risk) and counted
  (:func:`left_out_note` says so); the measures that need no weight count every record. A weight
  that is infinite, zero or negative, or below 1 is refused, with the count of each kind and what
  to do (:func:`~microanon.measures.weight_classes.remedy`): an inverse inclusion probability is
  at least 1, so such a value says the column is not one (a weight scaled to a mean of 1, a code)
  or holds errors, and any risk computed from it would be wrong. Leaving those records out
  instead would hide a column scaled to the sample, most of whose weights are below 1.
- :func:`schema_design`: which columns of a schema the measures take; a weight the rule refuses
  is not used (every record is then measured without it), and the note says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.wording import how_many
from .keys import refuse_weights, weight_column
from .weight_classes import MISSING, weight_classes

if TYPE_CHECKING:
    from ..core.schema import Schema

__all__ = ["WeightedRecords", "left_out_note", "schema_design", "weighted_records"]


@dataclass(frozen=True)
class WeightedRecords:
    """The records the survey risk measures take: those with a sampling weight.

    Attributes
    ----------
    weight : str
        The weight column.
    kept : bool array
        Per row, whether it has a weight (is measured).
    left_out : int
        Records without one (with ``counts``, the records of the rows left out).
    """

    weight: str
    kept: np.ndarray
    left_out: int


def weighted_records(
    data: pd.DataFrame, weight: Any, counts: np.ndarray | None = None
) -> WeightedRecords:
    """Which rows of ``data`` the survey risk measures take, by the rule of this module.

    Parameters
    ----------
    data : pandas.DataFrame
        The table measured, or a frequency table of it (``counts``: records per row).
    weight : str
        Its sampling-weight column.
    counts : int array, optional
        Records per row.

    Returns
    -------
    WeightedRecords

    Raises
    ------
    InputError
        The column is absent or not numeric, missing in every row, or has an infinite, zero,
        negative or below-1 weight (every kind with its count, in records, and the remedy).
    """
    classes, _ = weight_classes(weight_column(data, weight))
    kept = classes != MISSING
    rows = None if counts is None else np.asarray(counts)
    if len(kept) and not kept.any():
        raise InputError(
            f"weight column {weight!r} is missing in every row: no record has a sampling "
            "weight for the survey measures"
        )
    refuse_weights(weight, classes[kept], None if rows is None else rows[kept])
    missing = ~kept
    left = int(np.count_nonzero(missing) if rows is None else rows[missing].sum())
    return WeightedRecords(weight, kept, left)


def left_out_note(left_out: int, weight: str, household: str | None = None) -> str | None:
    """The line that counts and names the records the survey measures left out (None when
    none is): those without a ``weight`` (and, where the survey measures treat them alike,
    without a ``household`` id)."""
    if not left_out:
        return None
    records = how_many(left_out, "record")
    verb = "is" if left_out == 1 else "are"
    lacking = f"sampling weight (column {weight!r})"
    if household is not None:
        lacking = f"sampling weight or household id (columns {weight!r}, {household!r})"
    return (
        f"{records} without a {lacking} {verb} left out of the survey measures (individual, "
        "household and log-linear risk); the other measures count every record"
    )


def schema_design(
    schema: Schema, data: pd.DataFrame, counts: np.ndarray | None = None
) -> tuple[str | None, str | None, str | None]:
    """The sampling weight and household id the survey risk measures take from ``schema``.

    sdcMicro's ``weightVar`` and ``hhId``: the first column with role ``weight`` and the column
    with role ``household``. A weight :func:`weighted_records` refuses (not numeric, missing
    in every row; infinite, zero or negative, or below 1: the individual risk needs inverse
    inclusion probabilities) is left out, and so is the household id then; the note says why,
    naming the column. A weight missing for some records is used: the measures leave those
    records out (:func:`weighted_records`).

    Parameters
    ----------
    schema : Schema
    data : pandas.DataFrame
        The table measured (it must hold the weight column).
    counts : int array, optional
        Records per row of ``data``, a frequency table (the note counts records).

    Returns
    -------
    (weights, household, note)
        Column names or None; ``note`` is one line for the user, or None.
    """
    weight, household = schema.weight, schema.household
    if weight is None or weight not in data.columns:
        note = None
        if weight is not None:  # the schema names one the table does not hold
            note = (
                f"the schema's weight {weight} is not in the data: the survey risk measures "
                "(individual and household risk) are left out"
            )
        elif household is not None:
            note = f"household id {household} not used: the household risk needs a sampling weight"
        return None, None, note
    try:
        weighted_records(data, weight, counts)
    except InputError as exc:
        return (
            None,
            None,
            (f"the schema's weight {weight} is not used by the survey risk measures: {exc}"),
        )
    note = None
    if len(schema.weights) > 1:
        note = (
            f"the schema has {len(schema.weights)} weights ({', '.join(schema.weights)}): the "
            f"survey risk measures use the first, {weight} (`microanon risk --weights` names "
            "another)"
        )
    if household is not None and household not in data.columns:
        household = None
    return weight, household, note
