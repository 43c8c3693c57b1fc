"""Microaggregation within the blocks of a blocking variable, for datasets larger than memory.

MDAV forms its groups from distances between all records, so it needs the whole table. The
standard way out (sdcMicro's ``strata``, Hundepool et al.) is to microaggregate within blocks:
the records are split by the value of a blocking variable (a region, a sector), and MDAV runs
on each block separately, in memory. Every group then lies inside one block.

Here one pass counts the records of every block (refusing blocks larger than a row limit or
smaller than ``k``, by name) and the partitions' lengths; every record gets its global position
as index; the records are shuffled so that each block lands in one partition; and the in-memory
:func:`microanon.methods.sdc.microaggregation` runs on each block with its records in their
original order. The result is exactly what that function gives on each block on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import delayed

from ..core.errors import InfeasibleError, InputError
from ..core.progress import ProgressLike
from ..core.schema import Kind, Schema
from ..methods.sdc import microaggregation
from ..methods.sdc.common import check_flag, check_k, refuse_marked, refuse_non_finite
from ..models import KAnonymity
from .client import dask_client, run_stage
from .encode import encode_dataset, held, numbers_as_text
from .rowwise import (
    RowwiseRelease,
    _as_schema,
    _source,
    _text,
    original_names,
    report_columns,
)

__all__ = ["BLOCK_ROWS", "microaggregate_blocks"]

#: Default largest block (records) microaggregated in memory. MDAV's time grows with the
#: square of a block's size (``O(n² p / k)``), its memory linearly.
BLOCK_ROWS = 1_000_000


@dataclass(frozen=True)
class _Blocks:
    """What every partition of the shuffled data needs."""

    schema: Schema
    by: str
    k: int
    columns: list[str]
    categorical: list[str]
    standardize: bool
    published: list[str]
    dtypes: dict[str, Any]
    originals: tuple[str, ...] = ()


def _positions(part: pd.DataFrame, start: int) -> pd.DataFrame:
    """A partition indexed by its records' positions in the whole dataset."""
    return part.set_axis(pd.RangeIndex(start, start + len(part), name=None), axis=0)


def _typed(frame: pd.DataFrame, plan: _Blocks) -> pd.DataFrame:
    """The published columns with one dtype in every partition (text as strings)."""
    out = {}
    for c in plan.published:
        kind = plan.dtypes[c]
        if kind == "numbers as text":  # numbers and ?: a block without ? gives numbers
            out[c] = _text(numbers_as_text(frame[c]))
        elif kind == "text":
            out[c] = _text(frame[c].astype(object))
        else:
            out[c] = frame[c].astype(kind)
    return pd.DataFrame(out, index=frame.index)


def _microaggregate_partition(part: pd.DataFrame, plan: _Blocks) -> pd.DataFrame:
    """MDAV on every block of one shuffled partition, each block's records in original order
    (and, for the reports, the aggregated columns' original values: ``plan.originals``)."""
    if len(part) == 0:
        return _with_originals(_typed(part.loc[:, plan.published], plan), part, plan)
    part = part.sort_index(kind="stable")
    pieces = []
    for rows in part.groupby(plan.by, sort=False).indices.values():
        block = part.iloc[rows]
        release = microaggregation(
            block.reset_index(drop=True),
            plan.schema,
            k=plan.k,
            method="mdav",
            standardize=plan.standardize,
            columns=plan.columns,
            categorical=plan.categorical or None,
        )
        pieces.append(release.data.set_axis(block.index, axis=0))
    out = pd.concat(pieces).sort_index(kind="stable")
    return _with_originals(_typed(out, plan), part, plan)


def _with_originals(out: pd.DataFrame, part: pd.DataFrame, plan: _Blocks) -> pd.DataFrame:
    """``out`` with the aggregated columns' original values of ``part`` (the same records, by
    position in the input) as ``plan.originals`` (none without them)."""
    if not plan.originals:
        return out
    for c, name in zip(plan.columns, plan.originals, strict=True):
        values = part[c].to_numpy(dtype=np.float64, na_value=np.nan)
        out[name] = pd.Series(values, index=part.index).reindex(out.index)
    return out


def _default_schema(frame: dd.DataFrame, columns: list[str], by: str) -> Schema:
    spec: dict[str, Any] = {}
    for c in frame.columns:
        if c in columns:
            spec[c] = {"role": "quasi", "kind": "numeric"}
        elif c == by:
            spec[c] = {"role": "quasi", "kind": "categorical"}
        else:
            spec[c] = {"role": "insensitive", "kind": "categorical"}
    return Schema.from_dict(spec)


def microaggregate_blocks(
    source: Any,
    columns: Sequence[str],
    k: int,
    *,
    by: str,
    schema: Schema | Mapping[str, Any] | None = None,
    categorical: Sequence[str] | None = None,
    standardize: bool = True,
    max_rows: int = BLOCK_ROWS,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    reports: bool = False,
    person_ids: Sequence[str] = (),
) -> RowwiseRelease:
    """MDAV microaggregation within the blocks of a blocking variable, out of core.

    Every block (the records sharing a value of ``by``) is microaggregated on its own by
    :func:`microanon.methods.sdc.microaggregation` with ``method="mdav"``, in memory on one
    worker, its records in their original order: the published block is exactly what that
    function publishes for the block alone. Every group of at least ``k`` records lies inside
    one block.

    Parameters
    ----------
    source : path, glob or dask DataFrame
        Anything :func:`microanon.scale.read_dataset` reads, or a dask DataFrame.
    columns : sequence of str
        Numeric columns to microaggregate.
    k : int
        Minimum group size; every block needs at least ``k`` records.
    by : str
        The blocking column (published as it is); it may have no missing value.
    schema : Schema or mapping, optional
        Roles and kinds. Default: ``columns`` numeric quasi-identifiers, ``by`` a categorical
        quasi-identifier, every other column insensitive.
    categorical : sequence of str, optional
        Categorical columns replaced by their group's mode (as in memory).
    standardize : bool
        Form the groups on each block's z-scores (as in memory, per block).
    max_rows : int
        Largest block microaggregated (default :data:`BLOCK_ROWS`); a block must fit in one
        worker's memory, and MDAV's time grows with the square of its size.
    client, scheduler, progress, read_options, person_ids
        As for :func:`microanon.scale.randomize_dask`.
    reports : bool
        As for :func:`microanon.scale.add_noise_dask`.

    Returns
    -------
    RowwiseRelease
        The published columns in schema order; records in their original order within each
        block, blocks grouped in the output partitions. Metadata: ``method`` =
        ``"microaggregation"``, ``parameters`` (``k``, ``method`` = ``"mdav"``,
        ``standardize``, ``columns``, ``categorical``, ``by``), ``masked_numeric`` (public),
        ``blocks`` (number of blocks, internal). No model is claimed: the release is not
        re-checked out of core.

    Raises
    ------
    InputError
        Bad parameters or columns (as the in-memory method), ``by`` among the aggregated
        columns or with missing values, or blocks larger than ``max_rows`` (naming them).
    InfeasibleError
        Blocks with fewer than ``k`` records (naming them).
    """
    check_k(k)
    check_flag(standardize, "standardize")
    max_rows = check_k(max_rows)
    columns = [columns] if isinstance(columns, str) else list(columns)
    modal = [] if categorical is None else list(categorical)
    if by in columns or by in modal:
        raise InputError(f"by: the blocking column {by!r} cannot also be microaggregated")
    if schema is None:
        frame = _source(source, [*columns, *modal, by], read_options)
        schema = _default_schema(frame, columns, by)
    else:
        schema = _as_schema(schema)
        frame = _source(source, schema.columns, read_options)
    if by not in schema.columns or not schema[by].role.published:
        raise InputError(f"by: {by!r} is not a published column of the schema")
    absent = [c for c in [*columns, *modal] if c not in schema.columns]
    if absent:
        raise InputError(f"microaggregation: column(s) {absent} are not in the schema")
    not_numeric = [c for c in columns if schema[c].kind is not Kind.NUMERIC]
    if not_numeric:
        raise InputError(f"microaggregation: column '{not_numeric[0]}' is not numeric")
    reported = report_columns(schema) if reports else []
    with dask_client(client, scheduler) as run:
        encoding, cleaned = encode_dataset(
            frame, schema, [], run, progress, reported=reported, ids=person_ids
        )
        # (as numeric_matrix refuses them in memory, counted over the dataset)
        refuse_marked("microaggregation", {c: encoding.marked.get(c, 0) for c in columns})
        parts = cleaned.to_delayed(optimize_graph=True)
        numbers = cleaned[columns].astype("float64")
        sizes, missing, lengths, empty, infinite = run_stage(
            run,
            "blocks",
            [  # (all dask collections of one kind: no delayed objects among them)
                cleaned[by].value_counts(dropna=True),
                cleaned[by].isna().sum(),
                cleaned.map_partitions(len, meta=(None, "int64")),  # rows per partition
                numbers.isna().sum(),
                (numbers.abs() == np.inf).sum(),
            ],
            progress,
        )
    for column in columns:  # (as numeric_matrix refuses them in memory, counted over the dataset)
        refuse_non_finite("microaggregation", column, int(empty[column]), int(infinite[column]))
    if int(missing):
        raise InputError(
            f"by: the blocking column {by!r} has {int(missing)} missing value(s); give them a "
            "value (they would form a block of their own) or drop those rows"
        )
    sizes = held(sizes).sort_index()  # (no block of a category no record holds)
    big = sizes[sizes > max_rows]
    if len(big):
        raise InputError(
            f"by: block(s) {_describe(big)} of {by!r} exceed max_rows = {max_rows:,} records, "
            "the most microaggregated in memory on one worker; block on a finer variable "
            "(or several combined into one column), or raise max_rows if the memory and the "
            "time (quadratic in a block's size) allow"
        )
    small = sizes[sizes < k]
    if len(small):
        raise InfeasibleError(
            f"by: block(s) {_describe(small)} of {by!r} have fewer than k = {k} records; merge "
            "them with neighbouring blocks (recode the blocking variable) or lower k"
        )
    starts = np.concatenate([[0], np.cumsum(np.asarray(lengths, dtype=np.int64))[:-1]])
    meta = _positions(cleaned._meta, 0)
    positioned = dd.from_delayed(
        [delayed(_positions)(part, int(start)) for part, start in zip(parts, starts, strict=True)],
        meta=meta,
        verify_meta=False,
    )
    published = list(encoding.schema.columns)
    dtypes: dict[str, Any] = {}
    for c in published:
        kind = cleaned._meta[c].dtype
        if c in columns:
            dtypes[c] = np.float64
        elif c in encoding.marked:
            dtypes[c] = "numbers as text"
        elif pd.api.types.is_object_dtype(kind) or pd.api.types.is_string_dtype(kind) or c in modal:
            dtypes[c] = "text"
        else:
            dtypes[c] = kind
    originals = tuple(original_names(columns, published)) if reports else ()
    plan = _Blocks(
        encoding.source, by, int(k), columns, modal, bool(standardize), published, dtypes, originals
    )
    # by tasks: Dask's default without a default client is a shuffle through files of a local
    # temporary folder, which the workers of a cluster on several machines do not share
    shuffled = positioned.shuffle(on=by, shuffle_method="tasks")
    data = shuffled.map_partitions(
        _microaggregate_partition, plan, meta=_microaggregate_partition(meta, plan)
    )
    quasi = encoding.schema.quasi
    covered = bool(quasi) and set(quasi) <= {*columns, *modal, by}
    metadata = {
        "method": "microaggregation",
        "parameters": {
            "k": int(k),
            "method": "mdav",
            "standardize": bool(standardize),
            "columns": columns,
            "categorical": modal,
            "by": by,
        },
        # as in memory with the blocks as strata: groups covering every quasi-identifier make
        # them k-anonymous (the blocking column is constant within every group); re-checked
        # on the files as written (write_rowwise)
        "models": [KAnonymity(int(k)).to_config()] if covered else [],
        "quasi": list(encoding.schema.quasi),
        "sensitive": list(encoding.schema.sensitive),
        "masked_numeric": columns,
        "blocks": len(sizes),
    }
    return RowwiseRelease.masked(data, metadata, encoding, reported, originals, positioned=True)


def _describe(sizes: pd.Series, limit: int = 5) -> str:
    shown = ", ".join(f"{v!r} ({int(n):,} records)" for v, n in sizes.iloc[:limit].items())
    return shown + (f" and {len(sizes) - limit} more" if len(sizes) > limit else "")
