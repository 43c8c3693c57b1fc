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
from ..methods.generalize.full_domain import published_labels
from .encoding import Encoding
from .frequencies import FrequencyTable, pack_codes
from .release_files import write_part

__all__ = ["Plan", "make_plan", "publish_partition"]

#: dtype of the published labels (strings in every partition, empty ones included).
_TEXT = pd.StringDtype("pyarrow")


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
    shown : dict of str to object array
        Per quasi-identifier, the published label of every level code
        (:func:`~microanon.methods.generalize.full_domain.published_labels`).
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
    shown: dict[str, np.ndarray]
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
    shown = published_labels(schema, levels, table.codes, ~mask)
    labels = {}
    for q, lv in levels.items():
        labels[q] = shown[q][schema.hierarchy(q).level_codes(int(lv))]
    if table.keys is not None:
        suppressed: Any = np.sort(table.keys[mask])
    else:
        suppressed = pd.MultiIndex.from_arrays([table.codes[c][mask] for c in table.columns])
    return Plan(encoding, schema.columns, labels, shown, list(table.columns), suppressed, mode)


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


# ---------------------------------------------------------------- from the kept codes


@dataclass(frozen=True)
class Writer:
    """What every task needs to write its partition of the release from its codes.

    Attributes
    ----------
    plan : Plan
    labels : dict of str to pyarrow.Array
        Per quasi-identifier, its distinct published labels, then ``"*"``.
    label_of : dict of str to int32 array
        Per quasi-identifier, the position in ``labels`` of the label of every global code.
    schema : pyarrow.Schema
        The published columns and their types, the same in every file.
    """

    plan: Plan
    labels: dict[str, Any]
    label_of: dict[str, np.ndarray]
    schema: Any


def make_writer(plan: Plan, types: Mapping[str, Any]) -> Writer:
    """The :class:`Writer` of a plan; ``types`` gives the Arrow type of each published column."""
    import pyarrow as pa

    labels, label_of = {}, {}
    for q, lab in plan.labels.items():
        position, distinct = pd.factorize(np.asarray(lab, dtype=object))
        labels[q] = pa.array([*distinct, SUPPRESSED], type=pa.string())
        label_of[q] = position.astype(np.int32)
    schema = pa.schema([pa.field(c, types[c]) for c in plan.columns])
    return Writer(plan, labels, label_of, schema)


def _suppressed_combos(plan: Plan, codes: list[np.ndarray]) -> np.ndarray:
    """Which combinations (given by their global codes) the plan suppresses."""
    n = len(codes[0]) if codes else 0
    if len(plan.suppressed) == 0:
        return np.zeros(n, dtype=bool)
    if isinstance(plan.suppressed, np.ndarray):
        cards = [plan.encoding.cardinality(c) for c in plan.key_columns]
        key = pack_codes(codes, cards)
        at = np.searchsorted(plan.suppressed, key).clip(max=len(plan.suppressed) - 1)
        return plan.suppressed[at] == key
    return pd.MultiIndex.from_arrays(codes).isin(plan.suppressed)


def write_encoded(part: Any, maps: Mapping[str, np.ndarray], writer: Writer, path: str) -> int:
    """Write one partition of the release from its codes (see :class:`~.encode.Encoded`).

    No value is rebuilt per record: the labels of each combination are picked once and every
    column is gathered from them by the records' combination index. The records are written
    in the partition's order; :func:`~microanon.scale.record_order.order_parts` then moves
    them to files drawn at random and sorts each file by its values.

    Returns
    -------
    int
        Records written.
    """
    import pyarrow as pa

    part = part.load()
    plan = writer.plan
    combos = {c: maps[c][part.combos[c]] for c in plan.key_columns}
    suppressed = _suppressed_combos(plan, [combos[c] for c in plan.key_columns])
    codes = {}
    for c in plan.key_columns:
        if c in writer.labels:
            code = writer.label_of[c][combos[c]]
            if plan.mode == "star":
                code[suppressed] = len(writer.labels[c]) - 1
        else:
            code = part.combos[c].astype(np.int32)
        codes[c] = code
    order = np.arange(len(part.inverse))
    if plan.mode == "remove" and suppressed.any():
        order = order[~suppressed[part.inverse]]
    inverse = part.inverse[order]
    arrays = []
    for f in writer.schema:
        c = f.name
        if c in writer.labels:
            col = pa.DictionaryArray.from_arrays(pa.array(codes[c][inverse]), writer.labels[c])
        elif c in part.combos:
            values = pa.array(part.uniques[c], from_pandas=True)
            if values.type != f.type:
                values = values.cast(f.type)
            if values.null_count:  # unknown values (missing: keep): Parquet stores no null
                col = values.take(pa.array(codes[c][inverse]))  # in a dictionary
            else:
                col = pa.DictionaryArray.from_arrays(pa.array(codes[c][inverse]), values)
        else:
            col = part.others.column(c).take(pa.array(order))
            if col.type != f.type:
                col = col.cast(f.type)
        arrays.append(col)
    # Statistics of dictionary columns would be computed over their values for every page: only
    # the plain columns get them (the labels are few and listed in each file's dictionary).
    # Dictionary-encoded columns are written as such (no value built per record) and read back
    # as plain columns of the published type (write_part).
    table = pa.Table.from_arrays(arrays, names=writer.schema.names)
    plain = [a.name for a in table.schema if not pa.types.is_dictionary(a.type)]
    write_part(table, path, writer.schema, write_statistics=plain or False)
    return len(inverse)
