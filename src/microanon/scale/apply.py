"""Publish the chosen node partition by partition: level labels, suppression, Parquet output.

Each partition is coded with the global dictionaries, its quasi-identifiers are replaced by
their labels at the chosen levels (as :func:`microanon.methods.generalize.full_domain.
publish_levels` renders them) and the records of suppressed combinations are removed or get
``"*"`` in every quasi-identifier. The other published columns are written as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.hierarchy import SUPPRESSED
from ..methods.generalize.full_domain import _level_labels
from .encode import Encoding
from .frequencies import FrequencyTable, pack_codes

__all__ = ["Plan", "make_plan", "publish_partition"]

#: dtype of the published labels (strings in every partition, empty ones included).
_TEXT = pd.StringDtype()


@dataclass(frozen=True)
class Plan:
    """What every partition needs to be published.

    Attributes
    ----------
    encoding : Encoding
    columns : list of str
        The published columns, in schema order.
    labels : dict of str to object array
        Per quasi-identifier, the published label of every leaf code.
    key_columns : list of str
        The columns of the frequency table (the suppression is per combination of them).
    suppressed : int64 array or pandas.MultiIndex
        The suppressed combinations: sorted packed keys, or their codes when they do not fit
        one key.
    mode : {"remove", "star"}
    """

    encoding: Encoding
    columns: list[str]
    labels: dict[str, np.ndarray]
    key_columns: list[str]
    suppressed: Any
    mode: str


def make_plan(
    encoding: Encoding,
    table: FrequencyTable,
    levels: Mapping[str, int],
    mask: np.ndarray,
    mode: str,
) -> Plan:
    """The plan of a node: ``mask`` marks the suppressed combinations of ``table``."""
    schema = encoding.schema
    labels = {}
    for q, lv in levels.items():
        h = schema.hierarchy(q)
        labels[q] = _level_labels(h, int(lv))[h.level_codes(int(lv))]
    if table.keys is not None:
        suppressed: Any = np.sort(table.keys[mask])
    else:
        suppressed = pd.MultiIndex.from_arrays([table.codes[c][mask] for c in table.columns])
    return Plan(encoding, schema.columns, labels, list(table.columns), suppressed, mode)


def _suppressed_rows(plan: Plan, codes: Mapping[str, np.ndarray], n: int) -> np.ndarray:
    if len(plan.suppressed) == 0:
        return np.zeros(n, dtype=bool)
    arrays = [codes[c] for c in plan.key_columns]
    if isinstance(plan.suppressed, np.ndarray):
        cards = [plan.encoding.cardinality(c) for c in plan.key_columns]
        key = pack_codes(arrays, cards)
        at = np.searchsorted(plan.suppressed, key).clip(max=len(plan.suppressed) - 1)
        return plan.suppressed[at] == key
    return pd.MultiIndex.from_arrays(arrays).isin(plan.suppressed)


def publish_partition(part: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """The published rows of one cleaned partition (columns in schema order, index kept)."""
    codes = plan.encoding.codes(part)
    mask = _suppressed_rows(plan, codes, len(part))
    keep = ~mask if plan.mode == "remove" else np.ones(len(part), dtype=bool)
    index = part.index[keep]
    data = {}
    for c in plan.columns:
        if c in plan.labels:
            col = plan.labels[c][codes[c]]
            if plan.mode == "star":
                col[mask] = SUPPRESSED
            data[c] = pd.Series(col[keep], index=index, dtype=_TEXT)
        else:
            col = part[c][keep]
            if col.dtype == object and pd.api.types.infer_dtype(col) in ("string", "empty"):
                col = col.astype(_TEXT)  # Parquet needs one type per column, empty parts too
            data[c] = col
    return pd.DataFrame(data, index=index)
