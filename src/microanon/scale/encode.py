"""Global dictionary encoding of a dask DataFrame, exactly as :meth:`Table.from_frame` encodes.

One pass computes, together, the distinct values of every column to encode (and of the columns
whose hierarchy a builder makes from the data) and the missing values of every column; the
dictionaries are then built on the client as the in-memory path builds them: the hierarchy's
leaves for a column with a hierarchy, the declared order for an ordinal column, the sorted values
otherwise. Codes are then computed partition by partition (:meth:`Encoding.codes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..core.errors import InputError, SchemaError
from ..core.hierarchy import Hierarchy, value_key
from ..core.schema import MISSING_LABEL, Kind, Role, Schema
from .client import run_stage

__all__ = ["Encoding", "clean_partition", "encode_dataset"]


def clean_partition(part: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """One partition with the schema's missing-value policies applied and numbers coerced.

    What :meth:`Schema.validate` does row by row: ``missing: drop`` removes the row,
    ``missing: category`` fills ``"?"``, numeric columns are coerced to numbers (a non-numeric
    value raises :class:`InputError`). Missing values under the ``error`` policy are left for
    :func:`encode_dataset` to count over the whole dataset.
    """
    out = part.loc[:, schema.columns].copy()
    drop = np.zeros(len(out), dtype=bool)
    for a in schema:
        if a.role is Role.IDENTIFIER or a.missing == "error":
            continue
        na = out[a.name].isna().to_numpy()
        if not na.any():
            continue
        if a.missing == "drop":
            drop |= na
        else:
            out[a.name] = out[a.name].astype(object).where(~na, MISSING_LABEL)
    if drop.any():
        out = out.loc[~drop]
    for a in schema:
        if a.kind is not Kind.NUMERIC or a.role is Role.IDENTIFIER:
            continue
        col = out[a.name]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            num = pd.to_numeric(col, errors="coerce")
            bad = num.isna() & col.notna()
            if bad.any():
                raise InputError(
                    f"column '{a.name}' is numeric in the schema but holds non-numeric "
                    f"value(s), e.g. {col[bad].iloc[0]!r}"
                )
            out[a.name] = num
    return out


@dataclass(frozen=True)
class Encoding:
    """The dictionaries of the encoded columns and how to code a partition with them.

    Attributes
    ----------
    schema : Schema
        The resolved schema (builder hierarchies made from the data), restricted to the
        published columns, as :meth:`Table.from_frame` leaves it.
    source : Schema
        The schema the data is cleaned with (identifiers included).
    columns : list of str
        The encoded columns.
    dictionaries : dict of str to object array
        Values behind the codes of each encoded column.
    lookup : dict of str to (Index, int array)
        The distinct values of each encoded column and their codes.
    """

    schema: Schema
    source: Schema
    columns: list[str]
    dictionaries: dict[str, np.ndarray]
    lookup: dict[str, tuple[pd.Index, np.ndarray]]

    def codes(self, part: pd.DataFrame) -> dict[str, np.ndarray]:
        """Codes of the encoded columns of a cleaned partition (see :func:`clean_partition`)."""
        out = {}
        for c in self.columns:
            index, code_of = self.lookup[c]
            pos = index.get_indexer(part[c])
            if len(pos) and int(pos.min()) < 0:  # the dictionaries come from these same data
                raise InputError(f"column {c!r} holds a value not seen when it was encoded")
            out[c] = code_of[pos]
        return out

    def cardinality(self, column: str) -> int:
        """Number of codes of an encoded column."""
        return len(self.dictionaries[column])


def _distinct(series: dd.Series) -> dd.Series:
    return series.dropna().drop_duplicates(split_out=1)


def _resolve(schema: Schema, raw: Mapping[str, pd.Series]) -> Schema:
    """Build the data-dependent hierarchies from each column's distinct raw values."""
    for a in schema:
        h = a.hierarchy
        if h is None or isinstance(h, Hierarchy):
            continue
        if h.get("builder") == "quantiles":
            raise SchemaError(
                f"column '{a.name}': the quantiles builder needs every value of the column; "
                "out of core, give interval widths or a hierarchy file"
            )
        one = Schema([a]).resolve(pd.DataFrame({a.name: raw[a.name].to_numpy()}))
        schema = schema.with_attribute(replace(a, hierarchy=one[a.name].hierarchy))
    return schema


def _dictionary(attr: Any, uniques: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The dictionary of a column and the code of each distinct value, as from_frame builds them."""
    h = attr.hierarchy
    if isinstance(h, Hierarchy):
        return np.asarray(h.leaves, dtype=object), h.leaf_index(uniques, column=attr.name)
    if attr.kind is Kind.ORDINAL and attr.order is not None:
        pos = {value_key(v): i for i, v in enumerate(attr.order)}
        return np.asarray(attr.order, dtype=object), np.array(
            [pos[value_key(u)] for u in uniques], dtype=np.int64
        )
    try:
        inv, uniq = pd.factorize(uniques, sort=True)
    except TypeError as exc:
        raise SchemaError(
            f"column '{attr.name}' mixes values that cannot be ordered ({exc}); convert it to "
            "one type"
        ) from None
    return np.asarray(uniq, dtype=object), inv.astype(np.int64)


def encode_dataset(
    frame: dd.DataFrame,
    schema: Schema | Mapping[str, Any],
    columns: Sequence[str],
    client: Any,
    progress: bool | None = None,
) -> tuple[Encoding, dd.DataFrame]:
    """Dictionaries for ``columns`` over the whole dataset, and the cleaned lazy frame.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        The original data; it must hold every column of the schema.
    schema : Schema or mapping
    columns : sequence of str
        The published columns to encode (the quasi-identifiers, the sensitive column).
    client : distributed.Client
    progress : bool or None
        See :func:`microanon.scale.client.run_stage`.

    Returns
    -------
    encoding : Encoding
    cleaned : dask.dataframe.DataFrame
        ``frame`` with the missing-value policies applied and numbers coerced
        (:func:`clean_partition`), lazily.

    Raises
    ------
    InputError, SchemaError, HierarchyError
        As :meth:`Table.from_frame` raises them, with the same messages where the message
        names values (missing values, values outside a hierarchy or an order).
    """
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    absent = [c for c in schema.columns if c not in frame.columns]
    if absent:
        raise InputError(
            f"table: column(s) {', '.join(repr(c) for c in absent)} not found; available: "
            + ", ".join(map(str, frame.columns))
        )
    for a in schema:
        if a.missing == "category" and a.kind is Kind.NUMERIC and a.role is not Role.IDENTIFIER:
            raise SchemaError(f"column '{a.name}': 'missing: category' needs a non-numeric column")
    meta = clean_partition(frame._meta, schema)
    cleaned = frame.map_partitions(clean_partition, schema, meta=meta)
    builders = [
        a.name for a in schema if a.hierarchy is not None and not isinstance(a.hierarchy, Hierarchy)
    ]
    checked = [a.name for a in schema if a.role is not Role.IDENTIFIER and a.missing == "error"]
    wanted = (
        [_distinct(frame[c]) for c in builders]
        + [frame[c].isna().sum() for c in checked]
        + [_distinct(cleaned[c]) for c in columns]
        + [cleaned.map_partitions(len, meta=(None, "int64")).sum()]
    )
    results = run_stage(client, "distinct values", wanted, progress)
    raw = dict(zip(builders, results[: len(builders)], strict=True))
    missing = results[len(builders) : len(builders) + len(checked)]
    uniques = dict(zip(columns, results[len(builders) + len(checked) : -1], strict=True))
    rows = int(results[-1])
    schema = _resolve(schema, raw)
    for name, count in zip(checked, missing, strict=True):
        if int(count):
            raise InputError(
                f"column '{name}' has {int(count)} missing value(s); drop or impute them, or set "
                "'missing: drop' or 'missing: category' for it in the schema"
            )
    if rows == 0:
        raise InputError("no rows are left after dropping rows with missing values")
    published = schema.select(schema.published)
    dictionaries: dict[str, np.ndarray] = {}
    lookup: dict[str, tuple[pd.Index, np.ndarray]] = {}
    for c in columns:
        attr = published[c]
        values = pd.Series(uniques[c]).reset_index(drop=True)
        if attr.kind is Kind.ORDINAL and attr.order is not None:
            known = {value_key(v) for v in attr.order}
            absent = sorted({value_key(v) for v in values} - known)
            if absent:
                raise SchemaError(
                    f"column '{c}': value(s) {', '.join(absent[:5])} are not in its order"
                )
        d, code_of = _dictionary(attr, values)
        dictionaries[c] = d
        lookup[c] = (pd.Index(values), code_of)
    return Encoding(published, schema, list(columns), dictionaries, lookup), cleaned
