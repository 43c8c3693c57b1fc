"""The :meth:`microanon.core.release.Release.save` layout for a table written out of core.

Every release :mod:`microanon.scale` writes is laid out as :meth:`Release.save` lays one out:
``public/release.json`` (the manifest, the public keys and the public metadata),
``public/data.parquet/`` (the published table, one ``part.N.parquet`` file per partition; the
suffix lets :meth:`Release.load` read the directory as one table) and
``internal/internal.json`` (what the data owner keeps). :func:`table_info` describes a written
Parquet dataset from its files' footers and :func:`write_manifests` writes the two JSON files,
so that :meth:`Release.load` and :func:`microanon.models.verify_written` read the output of
:func:`microanon.scale.full_domain_dask` and of :func:`microanon.scale.write_rowwise` alike.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..core.release import ALWAYS_PUBLIC
from ..core.release import write_manifests as write_release_manifests

__all__ = ["DATA", "arrow_type", "logical_type", "table_info", "write_manifests", "write_part"]

#: The published Parquet dataset inside ``public/`` (a directory of ``part.N.parquet`` files).
DATA = "data.parquet"


def arrow_type(series: pd.Series) -> pa.DataType:
    """The Arrow type of a published column as it is (text as ``string``)."""
    try:
        kind = pa.Schema.from_pandas(series.to_frame(), preserve_index=False).field(0).type
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return pa.string()
    if pa.types.is_large_string(kind) or pa.types.is_null(kind) or pa.types.is_string(kind):
        return pa.string()
    return kind


def logical_type(kind: pa.DataType) -> str:
    """The column type a release manifest records for an Arrow type (see :meth:`Release.load`)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_boolean(kind):
        return "bool"
    if pa.types.is_integer(kind):
        return "int"
    if pa.types.is_floating(kind):
        return "float"
    return "string"


def write_part(table: pa.Table, path: str | Path, schema: pa.Schema, **options: Any) -> None:
    """Write ``table`` as one Parquet file whose readers see the columns of ``schema``.

    The writers hand pyarrow text as dictionaries (codes and labels, no value built per
    record). Stored with the file, the Arrow schema of the table as written would make readers
    return those columns as categoricals; without a stored schema they lose what Parquet itself
    does not keep, such as a timestamp's time zone (a date published unchanged in Europe/Oslo
    would read back in UTC). So the Arrow schema stored (the ``ARROW:schema`` entry of the
    file's metadata, which Arrow's readers restore the columns' types from) is ``schema``, the
    published types, its own metadata left out. ``options`` go to
    :class:`pyarrow.parquet.ParquetWriter`.
    """
    import pyarrow.parquet as pq

    stored = base64.b64encode(schema.remove_metadata().serialize().to_pybytes()).decode()
    with pq.ParquetWriter(str(path), table.schema, store_schema=False, **options) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata({"ARROW:schema": stored})


def part_files(root: Path) -> list[Path]:
    """The ``part.N.parquet`` files of a written dataset, in partition order."""
    files = [f for f in root.glob("*.parquet") if f.is_file()]
    return sorted(files, key=lambda f: (len(f.name), f.name))


def table_info(root: Path) -> dict[str, Any]:
    """A manifest's description of the Parquet dataset at ``root``, from its files' footers.

    Returns
    -------
    dict
        ``file`` (:data:`DATA`), ``rows``, ``columns`` (the first file's, in order), ``types``
        (:func:`logical_type` of each) and ``parts`` (number of files).
    """
    import pyarrow.parquet as pq

    files = part_files(root)
    if not files:
        return {"file": DATA, "rows": 0, "columns": [], "types": {}, "parts": 0}
    schema = pq.read_schema(files[0])
    index = set(_index_columns(schema))
    fields = [f for f in schema if f.name not in index]
    rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    return {
        "file": DATA,
        "rows": int(rows),
        "columns": [f.name for f in fields],
        "types": {f.name: logical_type(f.type) for f in fields},
        "parts": len(files),
    }


def _index_columns(schema: pa.Schema) -> list[str]:
    """Names of the columns pandas stored as the index (none when written without it)."""
    meta = schema.pandas_metadata or {}
    return [c for c in meta.get("index_columns", []) if isinstance(c, str)]


def write_manifests(
    directory: Path,
    kind: str,
    public: Mapping[str, Any],
    internal: Mapping[str, Any],
    public_keys: Iterable[str],
    tables: Mapping[str, Mapping[str, Any]],
) -> None:
    """Write ``public/release.json`` and ``internal/internal.json``, as :meth:`Release.save` does.

    Parameters
    ----------
    directory : path
        The release being built (its ``public/`` holds the tables already).
    kind : str
        The release kind (``generalized``, ``randomized``, ``masked``).
    public, internal : mapping
        The public and internal metadata (refused if they hold a seed or random state).
    public_keys : iterable of str
        The keys the method declares public (with :data:`ALWAYS_PUBLIC`); ``public`` must hold
        no other.
    tables : mapping of str to dict
        Each table's description (see :func:`table_info`).

    Raises
    ------
    ValueError
        A key of ``public`` that is not declared public.
    """
    keys = frozenset(ALWAYS_PUBLIC) | frozenset(public_keys)
    undeclared = sorted(set(public) - keys)
    if undeclared:
        raise ValueError(f"public metadata holds undeclared keys {', '.join(undeclared)}")
    write_release_manifests(directory, kind, "parquet", tables, keys, public, internal)
