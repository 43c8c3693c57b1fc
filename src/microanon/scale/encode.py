"""Global dictionary encoding of a dask DataFrame, exactly as :meth:`Table.from_frame` encodes.

One pass computes, together, the distinct values of every column to encode (and of the columns
whose hierarchy a builder makes from the data) and the missing values of every column; the
dictionaries are then built on the client as the in-memory path builds them: the hierarchy's
leaves for a column with a hierarchy, the declared order for an ordinal column, the sorted values
otherwise. Codes are then computed partition by partition (:meth:`Encoding.codes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..core.errors import InputError, SchemaError
from ..core.factorize import factorize_keys
from ..core.hierarchy import Hierarchy, value_key
from ..core.number_text import numbers_with_marker
from ..core.progress import ProgressLike
from ..core.reading import MarkerColumn, MarkerTally, marker_columns, marker_tallies, unpadded
from ..core.repetition import Repetition, Tally, merged, tally
from ..core.row_counts import RowCounts
from ..core.schema import (
    MISSING_LABEL,
    Kind,
    Role,
    Schema,
    as_numbers,
    leaves_in_column_type,
    marked_missing,
    no_values,
    nothing_left,
    with_missing_leaf,
)
from ..core.table import sorted_values
from ..measures.weight_classes import weight_classes
from .client import run_stage
from .encoding import Encoding
from .frequencies import FrequencyTable, count_combinations

__all__ = [
    "row_counts_of",
    "run_row_counts",
    "Encoded",
    "Encoding",
    "check_frame",
    "check_ids",
    "clean_partition",
    "combine_encodings",
    "encode_dataset",
    "encode_partition",
    "marked_others",
    "held",
    "local_counts",
    "merge_counted",
    "numbers_as_text",
    "reported_counts",
]


def clean_partition(part: pd.DataFrame, schema: Schema, text: Sequence[str] = ()) -> pd.DataFrame:
    """One partition with the schema's missing-value policies applied and numbers coerced.

    What :meth:`Schema.validate` does row by row: ``missing: drop`` removes the row,
    ``missing: value`` fills ``"?"``, ``missing: keep`` leaves the cell empty, numeric columns
    are coerced to numbers (a non-numeric value raises :class:`InputError`). Missing values
    under the ``error`` policy are left for :func:`encode_dataset` to count over the whole
    dataset. The columns of numbers ``text`` (those whose missing values are ``?`` somewhere in
    the dataset, numeric or not in the schema) are given as text in every partition, numbers as
    memory publishes them (``52`` from whole numbers, ``52.0`` from decimal ones, ``52.5``), so
    that every partition has the same types. The spaces around a text value are dropped, as
    the in-memory engine reads every format (:func:`~microanon.core.reading.unpadded`; a CSV
    file's blocks are read so already).
    """
    out = unpadded(part.loc[:, schema.columns].copy())
    treated = [a for a in schema if a.role is not Role.IDENTIFIER]
    drop = np.zeros(len(out), dtype=bool)
    for a in treated:
        if a.missing_policy == "drop":
            drop |= out[a.name].isna().to_numpy()
    if drop.any():  # (first: a column whose missing values are all in rows left out stays
        out = out.loc[~drop]  # numbers, as the whole dataset's count of its ? says)
    as_value = set()
    for a in treated:
        if a.missing_policy != "value":
            continue
        na = out[a.name].isna().to_numpy()
        if na.any():
            out[a.name] = out[a.name].astype(object).where(~na, MISSING_LABEL)
            as_value.add(a.name)
    for a in schema:
        if a.kind is not Kind.NUMERIC or a.role is Role.IDENTIFIER:
            continue
        col = out[a.name]
        num = as_numbers(col, a.name, a.name in as_value, counted=False)
        if num is not col:
            out[a.name] = num
    for c in text:
        out[c] = numbers_as_text(out[c])
    return out


def numbers_as_text(column: pd.Series) -> pd.Series:
    """Numbers (or their text) and the value ``?`` as text, as memory publishes a numeric
    column whose missing values are ``?`` (:func:`~microanon.core.number_text.numbers_with_marker`:
    each number in its column's type, ``52`` from whole numbers, ``52.0`` from decimal ones)."""
    marker = marked_missing(column)
    text = numbers_with_marker(column, marker).astype(str)
    return pd.Series(text, index=column.index, name=column.name, dtype=object)


def _distinct(series: dd.Series) -> dd.Series:
    return series.dropna().drop_duplicates(split_out=1)


def _entering(frame: Any, schema: Schema) -> Any:
    """The records of a (Dask or pandas) frame that a ``missing: drop`` column does not leave
    out: those :meth:`Schema.resolve` builds hierarchies from."""
    left_out = schema.left_out(frame)
    return frame if left_out is None else frame[~left_out]


def _tally(series: pd.Series) -> pd.Series:
    """Records per distinct value of a column, missing values left out (see :func:`held`)."""
    return held(series.value_counts(dropna=True, sort=False))


def held(counts: pd.Series) -> pd.Series:
    """The values of a ``value_counts`` that some record holds.

    A categorical column (a text column of a Parquet file) counts every category, those of
    no record with 0: of records left out (``missing: drop``), or of none in this partition.
    """
    return counts[counts > 0]


def _resolve(
    schema: Schema,
    raw: Mapping[str, pd.Series],
    records: int,
    more_values: Mapping[str, Sequence[pd.Series]] | None = None,
) -> Schema:
    """Build the data-dependent hierarchies from each column's raw values and their counts.

    ``raw[c]`` counts the records of each distinct raw value (missing values left out): the
    builders over distinct values take its index, ``quantiles`` the counts as well, so its cut
    points are those of every record, as in memory. ``more_values`` holds further values per
    column that the (domain) builders must cover as well, e.g. those of a population containing
    the data, as :meth:`Schema.resolve` takes them (never ``quantiles``, cut on the data alone).
    """
    for a in schema:
        h = a.hierarchy
        if h is None or isinstance(h, Hierarchy):
            continue
        tally = raw[a.name]
        if not len(tally):
            raise no_values(a, records)
        if h.get("builder") == "quantiles":
            if "bins" not in h:
                raise SchemaError(f"column '{a.name}': the quantiles builder needs 'bins'")
            built = Hierarchy.quantiles(tally.index, h["bins"], name=a.name, counts=tally)
            schema = schema.with_attribute(replace(a, hierarchy=built))
            continue
        values = pd.Series(tally.index).reset_index(drop=True)
        extra = [pd.Series(v).dropna() for v in (more_values or {}).get(a.name, [])]
        if extra:
            values = pd.concat([values, *extra], ignore_index=True).drop_duplicates()
        one = Schema([a]).resolve(pd.DataFrame({a.name: values.to_numpy()}))
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
    inv, uniq = sorted_values(uniques, attr.name)
    return uniq, inv


def _counted_missing(schema: Schema, columns: Sequence[str]) -> list[str]:
    """Columns whose missing values are counted over the whole dataset: those under the
    ``error`` policy, and the encoded ones whose missing cells would be kept."""
    return [
        a.name
        for a in schema
        if a.role is not Role.IDENTIFIER
        and (
            a.missing_policy == "error"
            or (a.missing_policy == "keep" and a.name in columns)
            or _numbers_only(a)
        )
    ]


def _missing_of(raw: Any, clean: Any, a: Any) -> Any:
    """The column of ``a`` whose missing values :func:`_counted_missing` counts: as cleaned for a
    column whose missing cells are kept (the records that enter the method, each one unknown),
    as read otherwise (the values the policy refuses)."""
    return clean[a.name] if a.missing_policy == "keep" else raw[a.name]


def marked_others(frame: Any, schema: Schema, others: Sequence[str]) -> list[str]:
    """The columns among ``others`` (published, not encoded) that the files give a numeric type
    and whose missing values are the value ``?``: :func:`encode_partition` keeps them as text
    (:func:`numbers_as_text`) in every partition, whether or not it holds ``?``, and counts
    their ``?`` (:attr:`Encoded.marked`): the release writes such a column as text when some
    record of the dataset holds ``?``, as numbers when none does. ``frame``: a partition, or a
    Dask frame's ``_meta``."""
    return [c for c in others if schema[c].missing_policy == "value" and _held_as_numbers(frame[c])]


def _held_as_numbers(column: pd.Series) -> bool:
    """Whether the files give ``column`` (an empty partition of it) a numeric type: a column of
    numbers declared with another kind, whose partitions holding ``?`` would hold objects."""
    types = pd.api.types
    return types.is_numeric_dtype(column.dtype) and not types.is_bool_dtype(column.dtype)


def _numbers_only(a: Any) -> bool:
    """Whether ``a`` is a numeric column without hierarchy whose missing values would be the
    value ``?`` (which only a hierarchy can hold)."""
    return a.missing_policy == "value" and a.kind is Kind.NUMERIC and a.hierarchy is None


def check_frame(frame: dd.DataFrame, schema: Schema) -> None:
    """Refuse, before any work, data that lacks a schema column or a policy that cannot apply."""
    absent = [c for c in schema.columns if c not in frame.columns]
    if absent:
        raise InputError(
            f"table: column(s) {', '.join(repr(c) for c in absent)} not found; available: "
            + ", ".join(map(str, frame.columns))
        )


def check_ids(schema: Schema, ids: Sequence[str]) -> list[str]:
    """The identifier columns whose values a pass counts (``person_ids``), each checked to be
    an identifier of ``schema`` (the columns the pass reads).

    Raises
    ------
    InputError
        Naming the first column that is not one.
    """
    for c in ids:
        if c not in schema.columns or schema[c].role is not Role.IDENTIFIER:
            raise InputError(
                f"person_ids: column {c!r} is not an identifier of the schema; name the "
                f"schema's identifiers ({', '.join(schema.identifiers) or 'none'})"
            )
    return list(ids)


def encode_dataset(
    frame: dd.DataFrame,
    schema: Schema | Mapping[str, Any],
    columns: Sequence[str],
    client: Any,
    progress: ProgressLike = None,
    counted: Sequence[str] = (),
    reported: Sequence[str] = (),
    ids: Sequence[str] = (),
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
    progress : Progress, bool, str or None
        See :func:`microanon.scale.client.run_stage`.
    counted : sequence of str, optional
        Columns among ``columns`` whose records per code are counted in the same pass
        (:attr:`Encoding.value_counts`).
    reported : sequence of str, optional
        Columns whose combinations of values in the records that enter the method are counted
        in the same pass, partition by partition, for the reports
        (:attr:`Encoding.combinations`, :func:`reported_counts`): the schema's sampling weight
        among them is counted by class with its sums. With them, the published columns'
        missing-value markers of other software are tallied on the partitions as read
        (:attr:`Encoding.markers`).
    ids : sequence of str, optional
        Identifier columns (a panel's person id) whose values are counted in the same pass over
        every row read, each partition's records per value merged on one worker into the
        identifier's distinct values, rows and rows alone with their value
        (:attr:`Encoding.repeated`, :func:`microanon.core.repetition.merged`).

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
    check_frame(frame, schema)
    meta = clean_partition(frame._meta, schema)
    cleaned = frame.map_partitions(clean_partition, schema, meta=meta)
    builders = [
        a.name for a in schema if a.hierarchy is not None and not isinstance(a.hierarchy, Hierarchy)
    ]
    checked = _counted_missing(schema, columns)
    numbers = [  # columns of numbers whose missing values are the value ?
        a.name
        for a in schema
        if (a.kind is Kind.NUMERIC or _held_as_numbers(frame._meta[a.name]))
        and a.missing_policy == "value"
        and a.role is not Role.IDENTIFIER
        and a.name not in checked
    ]
    entering = _entering(frame, schema)  # the data-built hierarchies are theirs alone
    drop = [c for c in schema.dropping if c in frame.columns]
    unknown = [  # sensitive columns whose missing cells are kept: unknown values
        a.name
        for a in schema
        if a.role is Role.SENSITIVE and a.missing_policy == "keep" and a.name in frame.columns
    ]
    wanted = {
        "raw": [entering[c].dropna().value_counts(sort=False, split_out=1) for c in builders],
        "missing": [_missing_of(frame, cleaned, schema[c]).isna().sum() for c in checked],
        "marked": [cleaned[c].eq(MISSING_LABEL).sum() for c in numbers],  # none where numeric
        "uniques": [_distinct(cleaned[c]) for c in columns],
        "left_out": [frame[c].isna().sum() for c in drop],
        "unknown": [cleaned[c].isna().sum() for c in unknown],
        "counted": [cleaned[c].value_counts() for c in counted],
        "reported": _reported(frame, cleaned, schema, list(reported)),
        "repeated": _repeated(frame, check_ids(schema, ids)),
        "rows": [
            frame.map_partitions(len, meta=(None, "int64")).sum(),
            cleaned.map_partitions(len, meta=(None, "int64")).sum(),
        ],
    }
    results = iter(run_stage(client, "distinct values", sum(wanted.values(), []), progress))
    found = {name: [next(results) for _ in tasks] for name, tasks in wanted.items()}
    raw = {c: held(counts) for c, counts in zip(builders, found["raw"], strict=True)}
    missing = dict(zip(checked, found["missing"], strict=True))
    uniques = dict(zip(columns, found["uniques"], strict=True))
    read, entered = (int(n) for n in found["rows"])
    left_out = {c: int(n) for c, n in zip(drop, found["left_out"], strict=True) if int(n)}
    _refuse_none_left(read, entered, left_out)
    encoding = _build(schema, list(columns), raw, missing, uniques, entered)
    marked = {c: int(n) for c, n in zip(numbers, found["marked"], strict=True) if int(n)}
    rows = {  # (as row_counts_of counts them)
        "in_file": read,
        "left_out": left_out,
        "entering": entered,
        "unknown_sensitive": {c: int(n) for c, n in zip(unknown, found["unknown"], strict=True)},
    }
    counts = {}
    for c, per_value in zip(counted, found["counted"], strict=True):
        per_value = held(per_value)  # (a category of no record is no value of the encoding)
        index, code_of = encoding.lookup[c]
        counts[c] = np.zeros(encoding.cardinality(c), dtype=np.int64)
        np.add.at(counts[c], code_of[index.get_indexer(per_value.index)], per_value.to_numpy())
    encoding = replace(encoding, marked=marked, rows=rows, value_counts=counts)
    if reported:
        combinations, markers = found["reported"]
        encoding = replace(encoding, combinations=combinations, markers=markers)
    if ids:
        encoding = replace(encoding, repeated=found["repeated"][0])
    # The same types in every partition: the columns published as they are given as text (an
    # encoded column is published from its codes).
    text = [c for c in marked if c not in columns]
    if text:
        meta = clean_partition(frame._meta, schema, text)
        cleaned = frame.map_partitions(clean_partition, schema, text, meta=meta)
    return encoding, cleaned


def _reported(frame: Any, cleaned: Any, schema: Schema, columns: list[str]) -> list[Any]:
    """The reductions of :func:`encode_dataset`'s ``reported``: the combinations of ``columns``
    in the cleaned partitions (merged in partition order), and the published columns'
    missing-value markers in the partitions as read (none without ``columns``). Reductions of
    the frames the pass reads anyway: each partition is read and cleaned once."""
    if not columns:
        return []
    weight = schema.weight if schema.weight in columns else None
    household = schema.household if weight is not None else None
    published = list(schema.published)
    combinations = cleaned.reduction(
        reported_counts,
        aggregate=_merged_counts,
        chunk_kwargs={"columns": columns, "weight": weight, "household": household},
        aggregate_kwargs={"columns": columns},
        split_every=False,  # (every partition's table, in partition order, merged once)
        meta=object,
    )
    return [combinations, _merged_once(frame, _marker_tallies, _merged_markers, published)]


def _repeated(frame: Any, ids: list[str]) -> list[Any]:
    """The reduction of :func:`encode_dataset`'s ``ids``: each partition as read tallied
    (:func:`~microanon.core.repetition.tally`: every row, its records per value of each
    identifier), the tallies merged in one task (none without ``ids``). A reduction of the frame
    the pass reads anyway: its partitions are read once."""
    return [_merged_once(frame, tally, _merged_tallies, ids)] if ids else []


def _merged_once(frame: Any, chunk: Any, aggregate: Any, columns: list[str]) -> Any:
    """A reduction of the frame: ``chunk`` of each partition, merged in one task, in partition
    order, by ``aggregate``; both given ``columns``."""
    return frame.reduction(
        chunk,
        aggregate=aggregate,
        chunk_kwargs={"columns": columns},
        aggregate_kwargs={"columns": columns},
        split_every=False,
        meta=object,
    )


def _merged_tallies(parts: pd.Series, columns: list[str]) -> dict[str, Repetition]:
    """The partitions' tallies (:func:`~microanon.core.repetition.tally`) merged."""
    return merged(list(parts), columns)


def reported_counts(
    clean: pd.DataFrame,
    columns: Sequence[str],
    weight: str | None = None,
    household: str | None = None,
) -> Encoded:
    """The combinations of ``columns`` in one cleaned partition (:func:`clean_partition`), in
    order of first appearance, with their records: :attr:`Encoded.counted` as
    :func:`encode_partition` counts it, without coding the partition for a method.

    ``weight``, one of ``columns``, is counted by the class of each record's sampling weight
    with the sums of the usable ones (:mod:`microanon.measures.weight_classes`); with
    ``household``, a record without a household id counts as one without a weight.
    """
    columns = list(columns)
    sums: dict[str, np.ndarray] = {}
    if weight is not None:
        unknown = None if household is None else clean[household].isna().to_numpy()
        classes, sums = weight_classes(clean[weight], unknown)
        clean = clean.loc[:, columns].copy()  # (set by name: assign would take a column 'self')
        clean[weight] = classes
    uniques, combos, counts, rows = local_counts(clean, columns, inverse=bool(sums))
    summed = {k: np.bincount(rows, weights=v, minlength=len(counts)) for k, v in sums.items()}
    return Encoded(len(clean), uniques, combos, counts, sums=summed)


def _merged_counts(parts: pd.Series, columns: list[str]) -> FrequencyTable:
    """The partitions' :func:`reported_counts` (in partition order) merged."""
    return merge_counted(list(parts), columns)


def _marker_tallies(part: pd.DataFrame, columns: list[str]) -> dict[str, MarkerTally]:
    """One partition's missing-value markers (:func:`~microanon.core.reading.marker_tallies`)."""
    return marker_tallies(part, columns, every=True)


def _merged_markers(parts: pd.Series, columns: list[str]) -> dict[str, MarkerColumn]:
    """The partitions' marker tallies (in partition order) merged, per column of ``columns``."""
    return marker_columns(list(parts), columns)


def _refuse_none_left(read: int, entered: int, left_out: Mapping[str, int]) -> None:
    """Refuse a dataset whose every record ``missing: drop`` leaves out, as in memory
    (:func:`~microanon.core.schema.nothing_left`), before any hierarchy is built from the no
    record left: naming the columns missing in every record (else those that left some out)."""
    if read and not entered and any(left_out.values()):
        empty = [c for c, n in left_out.items() if n == read]
        raise nothing_left(read, empty or [c for c, n in left_out.items() if n])


def _build(
    schema: Schema,
    columns: list[str],
    raw: Mapping[str, Any],
    missing: Mapping[str, int],
    uniques: Mapping[str, Any],
    rows: int,
    more_values: Mapping[str, Sequence[pd.Series]] | None = None,
) -> Encoding:
    """The encoding from the distinct values of the whole dataset."""
    schema = _resolve(schema, raw, rows, more_values)
    schema = Schema(  # (the leaves of a given hierarchy in the type of the column's numbers)
        [
            replace(a, hierarchy=leaves_in_column_type(a.hierarchy, pd.Series(uniques[a.name]), a))
            if isinstance(a.hierarchy, Hierarchy) and a.name in uniques
            else a
            for a in schema
        ]
    )
    for name, count in missing.items():
        if not int(count):
            continue
        if _numbers_only(schema[name]):
            raise InputError(
                f"column '{name}' has {int(count):,} missing value(s), which a "
                "numeric column without a hierarchy cannot hold as the value ?: set "
                "missing: drop for it, give it a hierarchy, or impute them"
            )
        if schema[name].missing_policy == "keep":
            continue  # unknown: the last code of the column (see below)
        raise InputError(
            f"column '{name}' has {int(count):,} missing value(s) (missing: error); set "
            f"missing: {schema[name].missing_remedy} for it in the schema, or impute them"
        )
    schema = Schema(
        [
            replace(a, hierarchy=with_missing_leaf(a.hierarchy))
            if isinstance(a.hierarchy, Hierarchy)
            and a.name in uniques
            and MISSING_LABEL in set(pd.Series(uniques[a.name]).astype(object))
            else a
            for a in schema
        ]
    )
    if rows == 0:
        raise InputError("no rows are left after dropping rows with missing values")
    published = schema.select(schema.published)
    dictionaries: dict[str, np.ndarray] = {}
    lookup: dict[str, tuple[pd.Index, np.ndarray]] = {}
    unknowns: dict[str, int] = {}
    for c in columns:
        attr = published[c]
        distinct = pd.Series(uniques[c]).reset_index(drop=True)  # in the order of the codes
        unknown = distinct.isna().to_numpy()
        values = distinct[~unknown].reset_index(drop=True)
        if attr.kind is Kind.ORDINAL and attr.order is not None:
            known = {value_key(v) for v in attr.order}
            absent = sorted({value_key(v) for v in values} - known)
            if absent:
                raise SchemaError(
                    f"column '{c}': value(s) {', '.join(absent[:5])} are not in its order"
                )
        d, known = _dictionary(attr, values)
        code_of = np.empty(len(distinct), dtype=np.int64)
        code_of[~unknown] = known
        if int(missing.get(c, 0)):  # kept empty: unknown, the last code (as Table.from_frame)
            unknowns[c] = int(missing[c])
            d = np.append(d, np.array([None], dtype=object))
            code_of[unknown] = len(d) - 1
            if not unknown.any():  # the distinct values were counted without it
                distinct = pd.concat([distinct, pd.Series([np.nan], dtype=distinct.dtype)])
                code_of = np.append(code_of, len(d) - 1)
        dictionaries[c] = d
        lookup[c] = (pd.Index(distinct), code_of)
    return Encoding(published, schema, list(columns), dictionaries, lookup, unknowns)


# ---------------------------------------------------------------- one pass, codes kept


def _values(array: Any) -> np.ndarray:
    """A numpy array of values: numbers as they are, anything else as Python objects."""
    out = np.asarray(array)
    return out if out.dtype.kind in "biuf" else np.asarray(array, dtype=object)


@dataclass(frozen=True)
class Encoded:
    """One partition coded with its own (local) dictionaries, as :func:`encode_partition` makes it.

    Attributes
    ----------
    rows : int
        Records of the partition after the missing-value policies.
    uniques : dict of str to array
        Distinct values of each encoded column in this partition (its local dictionary).
    combos : dict of str to int64 array
        Local codes of each distinct combination of the encoded columns.
    counts : int64 array
        Records per combination.
    raw : dict of str to pandas.Series
        Records per distinct raw value of the columns whose hierarchy a builder makes from the
        data (the ``quantiles`` builder needs the counts).
    missing : dict of str to int
        Missing values of each column under the ``error`` policy.
    inverse : int array or None
        The combination of each record (the records' codes are ``combos[c][inverse]``).
    others : pyarrow.Table or None
        The published columns that are not encoded, as cleaned.
    spilled : str or None
        The Parquet file holding ``inverse`` and ``others`` when they were written to disk.
    read : int
        Records of the partition as read, before the missing-value policies.
    left_out : dict of str to int
        Records with a missing value in each ``missing: drop`` column (left out).
    unknown : dict of str to int
        Records entering the method whose value of each ``missing: keep`` sensitive column is
        unknown.
    marked : dict of str to int
        Of each column among ``others`` that holds numbers and whose missing values are the
        value ``?`` (kept as text: :func:`marked_others`), the records holding ``?``.
    counted : Encoded or None
        The distinct combinations of the ``counted`` columns of :func:`encode_partition` as the
        method receives them (missing values as they are), in order of first appearance, with
        their records (``uniques``, ``combos`` and ``counts`` only; :func:`merge_counted` merges
        the partitions'); None when none were asked for.
    sums : dict of str to float array
        Per combination, sums over its records (a sampling weight counted by class:
        :mod:`microanon.measures.weight_classes`).
    markers : dict of str to MarkerTally
        The missing-value markers of other software (R's ``NA``) that each text column of the
        ``markers`` of :func:`encode_partition` holds in the partition as read, tallied on its
        distinct values (:func:`~microanon.core.reading.marker_tallies`; merged over the
        partitions by :func:`~microanon.core.reading.marker_columns`).
    tally : Tally or None
        The records per value of the identifier columns ``ids`` of :func:`encode_partition` in
        the partition as read (:func:`~microanon.core.repetition.tally`; merged over the
        partitions by :func:`~microanon.core.repetition.merged`); None when none were asked for.
    """

    rows: int
    uniques: dict[str, np.ndarray]
    combos: dict[str, np.ndarray]
    counts: np.ndarray
    raw: dict[str, pd.Series] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)
    inverse: np.ndarray | None = None
    others: Any = None
    spilled: str | None = None
    read: int = 0
    left_out: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    marked: dict[str, int] = field(default_factory=dict)
    counted: Encoded | None = None
    sums: dict[str, np.ndarray] = field(default_factory=dict)
    markers: dict[str, MarkerTally] = field(default_factory=dict)
    tally: Tally | None = None

    def summary(self) -> Encoded:
        """What the client needs to build the dictionaries and to report (nothing per record)."""
        return replace(
            self, combos={}, counts=self.counts[:0], inverse=None, others=None, tally=None
        )

    def untallied(self) -> Encoded:
        """The partition without its identifiers' tally (merged once, then let go)."""
        return replace(self, tally=None)

    def tallied(self) -> Tally:
        """The partition's identifiers' tally (:func:`encode_partition`'s ``ids``)."""
        if self.tally is None:
            raise ValueError("the partition's identifiers were not tallied")
        return self.tally

    def nbytes(self) -> int:
        """Bytes held per record (the inverse and the other columns)."""
        size = 0 if self.inverse is None else self.inverse.nbytes
        return size + (0 if self.others is None else int(self.others.nbytes))

    def load(self) -> Encoded:
        """The partition with its spilled records read back."""
        if self.spilled is None:
            return self
        import pyarrow.parquet as pq

        table = pq.read_table(self.spilled)
        inverse = table.column(_INVERSE).to_numpy()
        others = table.drop_columns([_INVERSE]) if table.num_columns > 1 else None
        return replace(self, inverse=inverse, others=others, spilled=None)


#: Column of the spilled inverse (a name no schema column can take in a partition file).
_INVERSE = "__microanon_combination__"


def _local_codes(column: pd.Series) -> tuple[np.ndarray, Any]:
    """Codes of a column's values and its distinct values (a missing value is one of them).

    A categorical column (what the Parquet reader makes of text) is coded by its categories:
    no value is hashed per record, only the categories that occur are kept. Integers are hashed
    in a table that grows with the distinct values
    (:func:`microanon.core.factorize.factorize_keys`).
    """
    if pd.api.types.is_integer_dtype(column.dtype) and isinstance(column.dtype, np.dtype):
        return factorize_keys(column.to_numpy())
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return pd.factorize(column, use_na_sentinel=False)
    code = column.cat.codes.to_numpy()
    values = np.asarray(column.cat.categories, dtype=object)
    missing = bool((code < 0).any())
    if missing:  # the missing values get the code after the categories
        code = np.where(code < 0, len(values), code.astype(np.int64))
        values = np.append(values, np.nan)
    used = np.bincount(code, minlength=len(values)) > 0
    if used.all():
        return code, values
    return (np.cumsum(used) - 1)[code], values[used]


def local_counts(
    frame: pd.DataFrame, columns: Sequence[str], inverse: bool = False
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray, np.ndarray | None]:
    """Local dictionaries of ``columns`` and the distinct combinations of their codes."""
    codes, uniques, cards = [], {}, []
    for c in columns:
        code, uniq = _local_codes(frame[c])
        codes.append(code)
        uniques[c] = _values(uniq)
        cards.append(len(uniq))
    combos, counts, inv = count_combinations(codes, cards, inverse=inverse)
    return uniques, dict(zip(columns, combos, strict=True)), counts, inv


def encode_partition(
    part: pd.DataFrame,
    schema: Schema,
    columns: Sequence[str],
    others: Sequence[str] = (),
    budget: float | None = None,
    spill: str | None = None,
    counted: Sequence[str] = (),
    weight: str | None = None,
    household: str | None = None,
    markers: Sequence[str] = (),
    ids: Sequence[str] = (),
) -> Encoded:
    """Clean one partition and code it with local dictionaries, in one pass.

    Parameters
    ----------
    part : pandas.DataFrame
        A partition of the original data.
    schema : Schema
        The schema as given (builder hierarchies not yet made).
    columns : sequence of str
        The encoded columns (quasi-identifiers, the sensitive column when a model needs it).
    others : sequence of str
        The other published columns, kept as they are.
    budget : float, optional
        Bytes this partition may keep in memory; more are written to ``spill``.
    spill : str, optional
        Parquet file for the records' data beyond the budget.
    counted : sequence of str
        Columns whose combinations of values the partition also counts (:attr:`Encoded.counted`,
        for the reports): every column of ``columns`` and possibly more, counted from the same
        codes (only the more are coded again).
    weight : str, optional
        The sampling weight, among ``counted``: counted by the class of each record's weight,
        with the sums of the usable ones (:mod:`microanon.measures.weight_classes`), not by value.
    household : str, optional
        With ``weight``, the schema's household id: a record without one has its weight
        counted as missing, so that the survey risk measures leave it out, as in memory they
        leave out the records without a weight or a household id.
    markers : sequence of str
        Columns whose missing-value markers of other software (R's ``NA`` read as text) are
        tallied on the partition as read, every row (:attr:`Encoded.markers`, for the reports:
        the published columns).
    ids : sequence of str
        Identifier columns whose records per value are tallied on the partition as read, every
        row (:attr:`Encoded.tally`, :func:`~microanon.core.repetition.tally`).
    """
    builders = [
        a.name for a in schema if a.hierarchy is not None and not isinstance(a.hierarchy, Hierarchy)
    ]
    entering = _entering(part, schema) if builders else part
    raw = {c: _tally(entering[c]) for c in builders}
    text = marked_others(part, schema, others)  # (text in every partition: one type)
    clean = clean_partition(part, schema, text)
    missing = {
        c: int(_missing_of(part, clean, schema[c]).isna().sum())
        for c in _counted_missing(schema, columns)
    }
    uniques, combos, counts, inverse = local_counts(clean, columns, inverse=True)
    kept = None
    if others:
        import pyarrow as pa

        kept = pa.Table.from_pandas(clean[list(others)], preserve_index=False)
        kept = kept.replace_schema_metadata(None)
    drop = schema.dropping
    out = Encoded(
        len(clean),
        uniques,
        combos,
        counts,
        raw,
        missing,
        inverse,
        kept,
        read=len(part),
        left_out={c: int(part[c].isna().sum()) for c in drop},
        unknown={
            a.name: int(clean[a.name].isna().sum())
            for a in schema
            if a.role is Role.SENSITIVE and a.missing_policy == "keep" and a.name in clean.columns
        },
        marked={c: int(clean[c].eq(MISSING_LABEL).sum()) for c in text},
        counted=_combinations(
            clean, counted, columns, uniques, combos, counts, inverse, weight, household
        ),
        markers=marker_tallies(part, list(markers), every=True) if markers else {},
        tally=tally(part, list(ids)) if ids else None,
    )
    if spill is not None and budget is not None and out.nbytes() > budget:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table({_INVERSE: inverse})
        if kept is not None:
            for name in kept.column_names:
                table = table.append_column(name, kept.column(name))
        pq.write_table(table, spill)
        out = replace(out, inverse=None, others=None, spilled=spill)
    return out


def _combinations(
    clean: pd.DataFrame,
    counted: Sequence[str],
    columns: Sequence[str],
    uniques: dict[str, np.ndarray],
    combos: dict[str, np.ndarray],
    counts: np.ndarray,
    inverse: np.ndarray,
    weight: str | None = None,
    household: str | None = None,
) -> Encoded | None:
    """The combinations of ``counted`` in ``clean``, in order of first appearance: those of the
    encoded ``columns`` when they are the same; when ``counted`` adds columns to them, the
    pairs of each row's encoded combination (``inverse``) and its codes of the added columns,
    so that only those are coded again; ``weight`` (an added column) by class, with its sums
    (see :func:`encode_partition`)."""
    counted = list(counted)
    if not counted:
        return None
    if counted == list(columns):
        return Encoded(len(clean), uniques, combos, counts)
    added = [c for c in counted if c not in columns]
    if len(added) + len(columns) != len(counted):
        raise ValueError("the counted columns must include every encoded column")
    sums: dict[str, np.ndarray] = {}
    if weight is not None:
        unknown = None if household is None else clean[household].isna().to_numpy()
        classes, sums = weight_classes(clean[weight], unknown)
        clean = clean.copy()  # (set by name: DataFrame.assign would take a column 'self')
        clean[weight] = classes
    more, more_combos, more_counts, row_more = local_counts(clean, added, inverse=True)
    (pair_combo, pair_more), pair_counts, pairs = count_combinations(
        [inverse, row_more], [len(counts), len(more_counts)], inverse=bool(sums)
    )
    found = {c: combos[c].take(pair_combo) for c in columns}
    found.update({c: more_combos[c].take(pair_more) for c in added})
    summed = {k: np.bincount(pairs, weights=v, minlength=len(pair_counts)) for k, v in sums.items()}
    return Encoded(len(clean), {**uniques, **more}, found, pair_counts, sums=summed)


def merge_counted(parts: Sequence[Encoded], columns: Sequence[str]) -> FrequencyTable:
    """The combinations of values of ``columns`` over partitions counted each with its own
    dictionaries (:attr:`Encoded.counted`, :func:`~microanon.scale.verify.file_counts`).

    The partitions' combinations, each partition's in order of first appearance, taken one
    partition after the other, give the whole table's in order of first appearance: the
    dictionaries are united (one hash pass over the distinct values), the combinations merged
    on their codes, and only the merged ones turned into values.

    Returns
    -------
    FrequencyTable
        Its ``codes`` the values of each combination (a missing value as a value).
    """
    columns = list(columns)
    if not parts:
        empty = {c: np.zeros(0, dtype=object) for c in columns}
        return FrequencyTable(columns, empty, np.zeros(0, dtype=np.int64))
    values, codes = {}, []
    for c in columns:
        values[c], positions = union_codes([p.uniques[c] for p in parts])
        codes.append(
            np.concatenate([at[p.combos[c]] for p, at in zip(parts, positions, strict=True)])
        )
    counts = np.concatenate([p.counts for p in parts])
    names = list(parts[0].sums)
    combos, merged, at = count_combinations(
        codes, [len(values[c]) for c in columns], counts, inverse=bool(names)
    )
    sums = {
        k: np.bincount(at, np.concatenate([p.sums[k] for p in parts]), minlength=len(merged))
        for k in names
    }
    return FrequencyTable(
        columns, {c: values[c][k] for c, k in zip(columns, combos, strict=True)}, merged, sums=sums
    )


def combine_encodings(
    schema: Schema,
    columns: Sequence[str],
    summaries: Sequence[Encoded],
    more_values: Mapping[str, Sequence[pd.Series]] | None = None,
) -> tuple[Encoding, list[dict[str, np.ndarray]]]:
    """The global encoding from the partitions' summaries, and each partition's code map.

    ``more_values``: further values per column that builder hierarchies must cover as well (a
    population's, see :meth:`Schema.resolve`; never used by ``quantiles``, refused out of core).

    The dictionaries are those :func:`encode_dataset` builds (and :meth:`Table.from_frame`);
    ``maps[i][c][local]`` is the global code of partition ``i``'s local code of column ``c``.

    Raises
    ------
    InputError, SchemaError, HierarchyError
        As :func:`encode_dataset`.
    """
    columns = list(columns)
    first = summaries[0] if summaries else Encoded(0, {}, {}, np.zeros(0, dtype=np.int64))
    raw = {c: _sum_tallies([s.raw[c] for s in summaries]) for c in first.raw}
    missing = {c: sum(s.missing[c] for s in summaries) for c in first.missing}
    uniques, positions = {}, {}
    for c in columns:
        uniques[c], positions[c] = union_codes([s.uniques[c] for s in summaries])
    rows = sum(s.rows for s in summaries)
    left_out: dict[str, int] = {}
    for s in summaries:
        for c, n in s.left_out.items():
            left_out[c] = left_out.get(c, 0) + int(n)
    _refuse_none_left(sum(s.read for s in summaries), rows, left_out)
    encoding = _build(schema, columns, raw, missing, uniques, rows, more_values)
    maps = [
        {c: encoding.lookup[c][1][positions[c][i]] for c in columns} for i in range(len(summaries))
    ]
    return encoding, maps


def _sum_tallies(tallies: Sequence[pd.Series]) -> pd.Series:
    """The records per distinct value over several partitions' tallies."""
    values, positions = union_codes([np.asarray(t.index) for t in tallies])
    counts = np.zeros(len(values), dtype=np.int64)
    for t, at in zip(tallies, positions, strict=True):
        counts[at] += t.to_numpy(dtype=np.int64)  # a partition's values are distinct
    return pd.Series(counts, index=values)


def union_codes(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The distinct values of several arrays, and where each array's values are among them.

    One hash pass over all the arrays together (values in order of first appearance; a missing
    value is one of them): ``values[codes[i]]`` is ``arrays[i]``.
    """
    sizes = [len(a) for a in arrays]
    if not sum(sizes):
        return np.asarray([], dtype=object), [np.zeros(0, dtype=np.int64) for _ in arrays]
    joined = np.concatenate([np.asarray(a) for a in arrays if len(a)])
    codes, values = pd.factorize(joined, use_na_sentinel=False)
    return _values(values), np.split(codes.astype(np.int64), np.cumsum(sizes)[:-1])


def run_row_counts(rows: Mapping[str, Any], suppressed: int, published: int) -> dict[str, Any]:
    """A run's whole row counts (the keys of :meth:`microanon.core.row_counts.RowCounts.to_dict`)
    from those before the method (:func:`row_counts_of`, :attr:`Encoding.rows`) and what it
    suppressed and published (out of core nothing is drawn)."""
    counts = {**rows, "not_drawn": 0, "suppressed": suppressed, "published": published}
    return RowCounts(**counts).to_dict()


def row_counts_of(summaries: Sequence[Encoded]) -> dict[str, Any]:
    """The rows read, left out per ``missing: drop`` column, entering the method and with an
    unknown sensitive value, over the partitions' summaries (the keys of
    :class:`microanon.core.row_counts.RowCounts`)."""
    left_out: dict[str, int] = {}
    unknown: dict[str, int] = {}
    for s in summaries:
        for c, n in s.left_out.items():
            left_out[c] = left_out.get(c, 0) + n
        for c, n in s.unknown.items():
            unknown[c] = unknown.get(c, 0) + n
    return {
        "in_file": sum(s.read for s in summaries),
        "left_out": {c: n for c, n in left_out.items() if n},
        "entering": sum(s.rows for s in summaries),
        "unknown_sensitive": unknown,
    }
