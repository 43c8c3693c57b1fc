"""The sampling weight and household id the survey risk measures take from a schema.

One rule for every place that measures a table's survey risk (``microanon risk``, the reports
of a release, the workbench, the risk after each of several steps): :func:`schema_design`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .keys import check_weights

if TYPE_CHECKING:
    from ..core.schema import Schema

__all__ = ["schema_design"]


def schema_design(
    schema: Schema, data: pd.DataFrame, counts: np.ndarray | None = None
) -> tuple[str | None, str | None, str | None]:
    """The sampling weight and household id the survey risk measures take from ``schema``.

    sdcMicro's ``weightVar`` and ``hhId``: the first column with role ``weight`` and the column
    with role ``household``. A weight the measures cannot use (not numeric; missing, infinite,
    zero or negative, or below 1: the individual risk needs inverse inclusion probabilities,
    :func:`~microanon.measures.keys.check_weights`) is left out, and so is the household id
    then; the note says why, naming the column.

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
        check_weights(data, weight, counts)
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
