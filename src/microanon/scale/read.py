"""Read a dataset of any size lazily: Parquet files, directories or globs, and CSV files or globs.

Nothing is loaded here: the result is a :mod:`dask.dataframe` whose partitions are read when a
later stage computes. What can be checked from file metadata alone is checked at once, so bad
input fails with one clear line before any work starts.
"""

from __future__ import annotations

import codecs
import functools
import glob
import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
from dask.dataframe.io.csv import make_reader

from ..core.csv_lines import short_line
from ..core.errors import InputError
from ..core.reading import (
    check_marked_columns,
    csv_na_values,
    csv_opener,
    marked_frame,
    markers_at,
    typed_whole,
    unpadded,
    whole_floats,
    whole_written,
    zero_led_codes,
)
from ..core.reading import (
    column_na_values as checked_column_markers,
)
from ..core.release import not_a_dataset

__all__ = [
    "dataset_pieces",
    "parquet_files",
    "read_dataset",
    "read_parquet_file",
    "read_text_coded",
]

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".csv.bz2", ".csv.xz")
_GLOB = set("*?[")
#: Bytes of a CSV file from whose rows each column's type is inferred (dask's default is the
#: first 10 rows of 256 kB): a survey file's first rows often lack the text codes ("other") or
#: the missing values that later rows hold.
TYPE_SAMPLE_BYTES = 4 * 2**20


def _hidden(path: Path, root: Path) -> bool:
    """Metadata and temporary files of Parquet writers (``_metadata``, ``.part-0.crc``)."""
    return any(p.startswith((".", "_")) for p in path.relative_to(root).parts)


def _files(path: str) -> tuple[list[Path], bool]:
    """The files behind ``path`` and whether it named a directory (a Parquet dataset)."""
    if any(ch in _GLOB for ch in path):
        found = sorted(Path(p) for p in glob.glob(path, recursive=True) if Path(p).is_file())
        if not found:
            raise InputError(f"no file matches {path}")
        return found, False
    p = Path(path)
    refused = not_a_dataset(p)
    if refused is not None:
        raise refused
    if p.is_dir():
        found = sorted(f for f in p.rglob("*") if f.is_file() and not _hidden(f, p))
        if not found:
            raise InputError(f"{path} is a directory without data files")
        return found, True
    if not p.exists():
        raise InputError(f"{path} does not exist")
    return [p], False


def _format(files: Sequence[Path], directory: bool, format: str | None) -> str:
    if format is not None:
        if format not in ("parquet", "csv"):
            raise InputError(f"format must be 'parquet' or 'csv', got {format!r}")
        return format
    if directory:
        return "parquet"
    kinds = set()
    for f in files:
        name = f.name.lower()
        if name.endswith(_PARQUET):
            kinds.add("parquet")
        elif name.endswith(_CSV):
            kinds.add("csv")
        else:
            raise InputError(
                f"{f}: the Dask engine reads CSV and Parquet files only (named .csv, .tsv, "
                ".txt or .parquet, or given format='csv' or 'parquet'): convert it first, or "
                "run it in memory, which reads SPSS, Stata and SAS files too"
            )
    if len(kinds) > 1:
        raise InputError("the input mixes Parquet and CSV files; read one format at a time")
    return kinds.pop()


def _parquet_columns(
    files: Sequence[Path],
) -> tuple[list[str], dict[str, str], set[str], set[str]]:
    """Column names of a Parquet dataset whose files all share one schema; the columns
    whose files store numbers in different types (an integer column in one file, a double in
    another, as pandas writes a column that misses values in some files only; int32 beside
    int64): each to the type that holds them all (``float64``, or ``int64`` for integers); the
    integer columns that may miss values (a row group's statistics count nulls in them, or
    hold no count), which pandas would read as floats (``3.0``); and the text columns that a
    file stores dictionary-encoded (a factor of R's arrow, a pandas categorical), in some files
    or all, to be read as text as the others are."""
    import pyarrow.parquet as pq

    first = None
    first_file = files[0]
    widened: dict[str, str] = {}
    gaps: set[str] = set()
    coded: set[str] = set()
    for f in files:
        try:
            metadata = pq.read_metadata(f)
            schema = metadata.schema.to_arrow_schema()
        except Exception as exc:  # noqa: BLE001  pyarrow raises several types for bad files
            raise InputError(f"{f}: not a readable Parquet file ({exc})") from None
        fields = {name: schema.field(name).type for name in schema.names}
        gaps |= _integers_with_gaps(metadata, fields)
        coded |= {name for name, kind in fields.items() if _coded_text(kind)}
        if first is None:
            first = fields
            continue
        for name, kind in fields.items():
            if name not in first:
                raise InputError(
                    f"{f}: column {name!r} is not in {first_file}; the partitions disagree "
                    "on the schema"
                )
            if _text(kind) and _text(first[name]):  # (text, dictionary-encoded or not)
                continue
            if kind != first[name] and _numbers(kind) and _numbers(first[name]):
                floats = widened.get(name) == "float64" or not (
                    pa.types.is_integer(kind) and pa.types.is_integer(first[name])
                )
                widened[name] = "float64" if floats else "int64"
                continue
            if kind != first[name] and not (_null(kind) or _null(first[name])):
                raise InputError(
                    f"{f}: column {name!r} is {kind} but {first[name]} in {first_file}; the "
                    "partitions disagree on the schema"
                )
        absent = [name for name in first if name not in fields]
        if absent:
            raise InputError(
                f"{f}: column {absent[0]!r} of {first_file} is missing; the partitions disagree "
                "on the schema"
            )
    gaps = {c for c in gaps if widened.get(c) != "float64"}
    return list(first or {}), widened, gaps, coded


def _integers_with_gaps(metadata: Any, fields: dict[str, Any]) -> set[str]:
    """The integer columns of a Parquet file (``metadata``, its footer) that may miss values."""
    ints = {
        i: name
        for i, name in enumerate(metadata.schema.names)
        if name in fields and pa.types.is_integer(fields[name])
    }
    out = set()
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for i, name in ints.items():
            stats = group.column(i).statistics
            if stats is None or not stats.has_null_count or stats.null_count:
                out.add(name)
    return out


def _nullable(kind: Any) -> Any:
    """pandas' nullable integer type for an Arrow integer type (None for any other type)."""
    if not pa.types.is_integer(kind):
        return None
    name = str(kind)
    return pd.api.types.pandas_dtype(f"UInt{name[4:]}" if name[0] == "u" else f"Int{name[3:]}")


def _numbers(kind: Any) -> bool:
    """An Arrow type of numbers (integers or floating point; not truth values)."""
    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))


def _plain_text(kind: Any) -> bool:
    """An Arrow type of text (not dictionary-encoded)."""
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _text(kind: Any) -> bool:
    """An Arrow type of text, or of text dictionary-encoded."""
    return _plain_text(kind) or _coded_text(kind)


def _coded_text(kind: Any) -> bool:
    """An Arrow type of dictionary-encoded text (a categorical, a factor)."""
    return bool(pa.types.is_dictionary(kind) and _plain_text(kind.value_type))


def _null(kind: Any) -> bool:
    """A column that holds only missing values in one file (type ``null``) fits any type."""
    return bool(pa.types.is_null(kind))


def read_dataset(
    path: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    format: str | None = None,
    sep: str = ",",
    encoding: str = "utf-8",
    decimal: str = ".",
    quotechar: str = '"',
    na_values: Any = None,
    column_na_values: Any = None,
    blocksize: str | int = "64MB",
) -> dd.DataFrame:
    """A lazy dask DataFrame over a Parquet or CSV dataset.

    Parameters
    ----------
    path : path or str
        A Parquet file, a directory of Parquet files (a partitioned dataset; files whose names
        start with ``.`` or ``_`` are skipped), a CSV file (compressed by gzip, bzip2 or xz too:
        one partition per file), or a glob of either (``"data/*.parquet"``,
        ``"exports/2024-*.csv"``). Integer columns that miss values are read as pandas' nullable
        integers, as is a CSV column whose first rows write whole numbers and leave some fields
        empty (:func:`_whole_codes`); Parquet text stored dictionary-encoded (a categorical) in
        some files or all is read as text.
    columns : sequence of str, optional
        Read only these columns; every one must exist.
    format : {"parquet", "csv"}, optional
        Default: from the file names (a directory is Parquet).
    sep, encoding, decimal, quotechar, na_values
        Passed to :func:`pandas.read_csv` for CSV input (the fields of
        :class:`microanon.core.reading.ReadOptions`); ``na_values`` marks Parquet cells
        missing too (:func:`~microanon.core.reading.marked_frame`). The encoding must write a
        line break as the single byte ``\\n`` (UTF-8, Latin-1, cp1252, ...: not UTF-16), as
        the CSV files are split into partitions at line breaks.
    column_na_values : mapping of str to sequence of str, optional
        Markers of missing values of the columns it names alone, on top of ``na_values``
        (:attr:`microanon.core.reading.ReadOptions.column_na_values`): each partition's cells
        marked as the in-memory reader marks the whole table's (a CSV block read with each
        column's markers, a Parquet partition by
        :func:`~microanon.core.reading.marked_frame`).
    blocksize : str or int
        Size of the CSV partitions.

    Returns
    -------
    dask.dataframe.DataFrame

    Raises
    ------
    InputError
        A path that does not exist or a glob that matches nothing; Parquet files that disagree on
        the schema (naming the file and the column); requested columns the data lacks; a
        column of ``column_na_values`` the data lack; an encoding whose line break is not one
        byte.
    """
    by_column = checked_column_markers(column_na_values)
    markers = [na_values] if isinstance(na_values, str) else list(na_values or ())
    files, directory = _files(os.fspath(path))
    kind = _format(files, directory, format)
    wanted = None if columns is None else list(columns)
    if kind == "parquet":
        available, widened, gaps, coded = _parquet_columns(files)
        _check_columns(wanted, available, path)
        check_marked_columns(available, by_column, path)
        # integers that may miss a value read as pandas' nullable integers, as the in-memory
        # engine reads them (3, not 3.0); Arrow maps types, not columns, so the others are
        # NumPy's integers again
        frame = dd.read_parquet(
            [str(f) for f in files],
            columns=wanted,
            arrow_to_pandas={"types_mapper": _nullable} if gaps else None,
        )
        # dictionary-encoded text is read as the text of a plain column: a categorical's
        # dtype differs by file (its categories), and so would the published files' types
        types: dict[str, Any] = {**widened, **dict.fromkeys(coded, pd.StringDtype("pyarrow"))}
        for c, t in frame.dtypes.items():
            if c in gaps:
                types[c] = "Int64" if widened.get(c) == "int64" else t
            elif gaps and isinstance(t, pd.api.extensions.ExtensionDtype) and t.kind in "iu":
                types[c] = widened.get(c, t.numpy_dtype)
        # a widened column is cast even where the first file's type is already the wider one:
        # the meta comes from that file, and another file's partitions keep their own type
        types = {
            c: t
            for c, t in types.items()
            if c in frame.columns and (c in widened or c in coded or frame.dtypes[c] != t)
        }
        frame = frame.astype(types) if types else frame
        # na_values (and a column's own) mark cells missing as the in-memory reader marks
        # them (integers nullable)
        if not markers and not by_column:
            return frame
        meta = marked_frame(frame._meta, markers, by_column)
        return frame.map_partitions(marked_frame, markers, by_column, meta=meta)
    _check_encoding(encoding)
    opened = csv_opener(files[0])(files[0], "rt", encoding=encoding, errors="replace", newline="")
    with opened as fh:
        sample = fh.read(65536)  # (codes written with a leading zero: read as text, as memory)
    options = {"sep": sep, "decimal": decimal, "quotechar": quotechar}
    codes = zero_led_codes(sample, options)
    named = os.fspath(path) if len(files) == 1 else f"a file of {os.fspath(path)}"
    if _quoted_line_break(sample, sep, quotechar):
        raise InputError(f"cannot read {named}: {_QUOTED_BREAK}")
    block = functools.partial(read_csv_block, source=named)
    reader = make_reader(functools.update_wrapper(block, read_csv_block), "read_csv", "CSV")
    missing = ["", *markers]
    names: list[Any] = []
    if by_column:  # (each column's markers by the name pandas gives it, as in memory)
        try:
            names = list(
                pd.read_csv(
                    files[0],
                    nrows=0,
                    encoding=encoding,
                    skipinitialspace=True,
                    index_col=False,
                    **options,
                ).columns
            )
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
            raise InputError(f"{path}: cannot read it as CSV ({exc})") from None
        check_marked_columns(names, by_column, path)
    na = csv_na_values(names, missing, by_column)

    def read(types: dict[str, Any]) -> dd.DataFrame:
        return reader(
            [str(f) for f in files],
            sep=sep,
            encoding=encoding,
            decimal=decimal,
            quotechar=quotechar,
            # missing: an empty field and na_values only, as the in-memory reader reads a file
            # (pandas' default markers would make R's NA missing here and a value there)
            keep_default_na=False,
            na_values=na,
            skipinitialspace=True,
            # a compressed file cannot be split: one partition each (dask would warn)
            blocksize=None if csv_opener(files[0]) is not open else blocksize,
            sample=TYPE_SAMPLE_BYTES,
            sample_rows=TYPE_SAMPLE_BYTES,  # every row of the sample (a row has a byte at least)
            index_col=False,  # (a line ending in the separator: no column shifted, see io)
            dtype=types or None,
        )

    try:
        frame = read(dict.fromkeys(codes, str))
        # the first file's rows typed the columns: a later file whose first rows miss a
        # whole number (R's NA) or hold text would fail dask's check; typed as they say
        retyped = _types_of_later_files(
            files[1:], frame, {**options, "encoding": encoding}, na, codes
        )
        if retyped:
            frame = read({**dict.fromkeys(codes, str), **retyped})
    except InputError:
        raise
    except (ValueError, UnicodeDecodeError, LookupError, OSError) as exc:
        raise InputError(f"{path}: cannot read it as CSV ({exc})") from None
    _check_columns(wanted, list(frame.columns), path)
    for file in files:  # (a line cut short: refused, as in memory)
        short = short_line(file, len(frame.columns), sep, quotechar, encoding)
        if short is not None:
            raise InputError(short.message(file if len(files) > 1 else path))
    csv_options = {**options, "encoding": encoding}
    frame = _whole_codes(frame, files[0], csv_options, missing, by_column, named)
    return frame if wanted is None else frame[wanted]


#: Bytes of each CSV file after the first whose rows also type the columns (a file of a
#: dataset of many files: each wave or region of a survey in its own file).
LATER_SAMPLE_BYTES = 2**20


def _types_of_later_files(
    files: Sequence[Path],
    frame: dd.DataFrame,
    csv_options: dict[str, Any],
    missing: list[str] | dict[Any, list[str]],
    codes: Sequence[Any],
) -> dict[str, Any]:
    """The columns whose type the first rows (:data:`LATER_SAMPLE_BYTES`) of a CSV file after
    the first widen, and the type they take: decimal numbers (``float64``, where the first file
    typed whole numbers and a later file leaves a field empty or ``NA``: read as whole numbers
    with gaps by :func:`_whole_codes`), or text (a number column whose later file holds text,
    as the in-memory engine reads the files joined). ``missing``: the fields that are missing
    values, as :func:`pandas.read_csv` takes them
    (:func:`~microanon.core.reading.csv_na_values`)."""
    numbers = {c: t for c, t in frame.dtypes.items() if t.kind in "iufb" and c not in codes}
    if not numbers:
        return {}
    widened: dict[str, Any] = {}
    for f in files:
        with csv_opener(f)(f, "rb") as fh:
            sample = fh.read(LATER_SAMPLE_BYTES + 1)
        if len(sample) > LATER_SAMPLE_BYTES:  # (a last line cut short left out)
            sample = sample[: sample.rfind(b"\n", 0, LATER_SAMPLE_BYTES) + 1]
        try:
            head = pd.read_csv(
                io.BytesIO(sample),
                **csv_options,
                keep_default_na=False,
                na_values=missing,
                skipinitialspace=True,
                index_col=False,
                usecols=lambda c: c in numbers,
            )
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            continue  # (the file's own read says what is wrong with it)
        for c, t in head.dtypes.items():
            if widened.get(c) is str:
                continue
            if t.kind not in "iufb":
                widened[c] = str
            elif t.kind == "f" and numbers[c].kind in "iub":
                widened[c] = "float64"
    return widened


def _whole_codes(
    frame: dd.DataFrame,
    first: Path,
    csv_options: dict[str, Any],
    missing: Sequence[str],
    by_column: dict[str, tuple[str, ...]],
    source: str,
) -> dd.DataFrame:
    """``frame`` (a CSV dataset as dask read it) with the columns it types as decimals only
    because some values are missing, whose fields in the first
    :data:`TYPE_SAMPLE_BYTES` of the first file are all whole numbers (``3``, never ``3.0``),
    as pandas' nullable integers: what the in-memory engine reads, so that a release publishes
    the ``3`` the file holds. A later row that holds a decimal number is refused, as any later
    row that does not fit its column's type (:func:`_whole_block`). ``missing``: the fields
    missing in every column; ``by_column``: those missing in one column alone."""
    floats = [i for i, t in enumerate(frame.dtypes) if t == np.float64]
    if not floats:
        return frame
    with csv_opener(first)(first, "rb") as fh:
        sample = fh.read(TYPE_SAMPLE_BYTES + 1)
    if len(sample) > TYPE_SAMPLE_BYTES:  # (a last line cut short left out)
        sample = sample[: sample.rfind(b"\n", 0, TYPE_SAMPLE_BYTES) + 1]
    own = markers_at(frame.columns, floats, by_column)
    whole = whole_written(io.BytesIO(sample), floats, csv_options, missing, True, own)
    for name in (frame.columns[i] for i in whole):
        block = functools.partial(_whole_block, column=name, source=source)
        frame[name] = frame[name].map_partitions(block, meta=(name, "Int64"))
    return frame


def _whole_block(values: pd.Series, column: str, source: str) -> pd.Series:
    """One partition of a CSV column read as whole numbers (:func:`_whole_codes`), as pandas'
    nullable integers.

    Raises
    ------
    InputError
        A value that is not a whole number, naming the column.
    """
    if not whole_floats(values.to_numpy(dtype=np.float64, na_value=np.nan)):
        raise InputError(
            f"CSV types: column {column!r} read as whole numbers from the first rows of {source}, "
            "but a later row holds a decimal number (the Dask engine infers a CSV column's type "
            "from the file's first rows); convert the file to Parquet, or read it in memory "
            "(--engine memory)"
        )
    return values.astype("Int64")


def read_csv_block(data: Any, *, source: str, **kwargs: Any) -> pd.DataFrame:
    """:func:`pandas.read_csv` of one block of a CSV file, as Dask reads it (``data``, the
    header line and the block's lines), with a problem of the file in one line naming
    ``source``.

    pandas, told ``index_col=False`` (so that a line ending in the separator shifts no column),
    drops a field beyond the header's names with a mere warning. The block is therefore read
    with the first fields free to become an index: a block read without one has no line of
    more fields than the names; one whose lines end in an empty field only (a separator after
    the last field, as spreadsheets and SAS export them) is read again as ``index_col=False``
    reads it; any other extra field is refused.

    Raises
    ------
    InputError
        A line with more fields than the header names; a line the parser cannot split; bytes
        that are not text in the file's encoding.
    """

    def read(index: Any) -> pd.DataFrame:
        def once(**more: Any) -> pd.DataFrame:
            data.seek(0)
            return pd.read_csv(data, **{**kwargs, "index_col": index, **more})

        # (a column typed apart in the chunks of a large block, '12' and 12.0: read again whole;
        # the spaces around a text value dropped, as in memory)
        return unpadded(typed_whole(once))

    try:
        frame = read(None)
        if isinstance(frame.index, pd.RangeIndex):
            return frame
        last = frame.iloc[:, -1] if frame.shape[1] else None
        if frame.index.nlevels == 1 and last is not None and (last.isna() | last.eq("")).all():
            return read(False)
    except pd.errors.ParserError as exc:
        raise InputError(f"cannot read {source}: {_parser_problem(exc, kwargs)}") from None
    except UnicodeDecodeError as exc:
        encoding = kwargs.get("encoding") or "utf-8"
        raise InputError(
            f"cannot read {source}: it holds bytes that are not {encoding} text ({exc.reason}); "
            "give its encoding"
        ) from None
    raise InputError(
        f"cannot read {source}: its lines hold more fields than its header names, so a field "
        f"would be lost; check the separator (read as {kwargs.get('sep', ',')!r})"
    )


#: Why a CSV file with a line break inside a quoted field is not read with Dask.
_QUOTED_BREAK = (
    "a field holding a line break, which the Dask engine cannot read (it splits CSV files into "
    "blocks at line breaks); convert the file to Parquet, or read it in memory (--engine memory)"
)


def _quoted_line_break(sample: str, sep: str, quotechar: str) -> bool:
    """Whether the first lines of a CSV file (``sample``, a last line cut short left out) hold
    a quoted field with a line break in it."""
    import csv

    whole = sample[: sample.rfind("\n") + 1]
    if quotechar not in whole:
        return False
    rows = csv.reader(io.StringIO(whole, newline=""), delimiter=sep, quotechar=quotechar)
    try:
        return any("\n" in field or "\r" in field for row in rows for field in row)
    except csv.Error:  # (pandas says what is wrong with the file)
        return False


def _parser_problem(exc: Exception, kwargs: dict[str, Any]) -> str:
    """pandas' message for a block it cannot split, without its line number (counted from the
    block's start, not the file's)."""
    if "EOF inside string" in str(exc):
        return f"a quoted field runs past the end of a block: {_QUOTED_BREAK}"
    found = re.search(r"Expected (\d+) fields in line \d+, saw (\d+)", str(exc))
    if found is None:
        return " ".join(str(exc).split())
    expected, saw = found.groups()
    return (
        f"a line holds {saw} fields where {expected} are expected; check the separator (read "
        f"as {kwargs.get('sep', ',')!r}) and the quoting"
    )


def _check_encoding(encoding: str) -> None:
    """Refuse an encoding whose line break is not the byte ``\\n`` (partitions split there)."""
    try:
        encoder = codecs.getincrementalencoder(encoding)()
    except LookupError:
        raise InputError(f"encoding: unknown text encoding {encoding!r}") from None
    encoder.encode("a")  # a byte-order mark comes first
    if encoder.encode("\n") != b"\n":
        raise InputError(
            f"encoding: {encoding} is not available with Dask (a line break is not one byte, so "
            "the files cannot be split at line breaks); convert the files to UTF-8 or read "
            "them in memory"
        )


def _check_columns(wanted: list[str] | None, available: list[str], path: Any) -> None:
    if wanted is None:
        return
    absent = [c for c in wanted if c not in available]
    if absent:
        raise InputError(
            f"{path}: column(s) {', '.join(map(repr, absent))} not found; available: "
            + ", ".join(map(str, available))
        )


def parquet_files(path: str | os.PathLike[str], format: str | None = None) -> list[str] | None:
    """The files of a Parquet dataset as :func:`read_dataset` finds them; None for CSV."""
    files, directory = _files(os.fspath(path))
    if _format(files, directory, format) != "parquet":
        return None
    return [str(f) for f in files]


def read_parquet_file(
    path: str,
    columns: Sequence[str],
    numeric: Sequence[str] = (),
    markers: Sequence[str] = (),
    by_column: Mapping[str, Sequence[str]] | None = None,
) -> Any:
    """One Parquet file as a pandas DataFrame, its text columns as categoricals
    (:func:`read_text_coded`), its integer columns that miss values as pandas' nullable
    integers (not floats: 3, not 3.0), the cells ``markers`` (``na_values``) mark missing, and
    those ``by_column`` (``column_na_values``) marks in its columns
    (:func:`~microanon.core.reading.marked_frame`, as in memory)."""
    table = read_text_coded(path, columns, numeric)
    frame = table.to_pandas()
    for name, column in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_integer(column.type) and column.null_count:
            frame[name] = column.to_pandas(types_mapper=_nullable)
    return marked_frame(frame, markers, by_column)


def read_text_coded(
    path: str | os.PathLike[str], columns: Sequence[str] | None = None, numeric: Sequence[str] = ()
) -> Any:
    """One Parquet file as an Arrow table (``columns``: default every column), its text columns
    read dictionary-encoded (``read_dictionary``): a value is built once per distinct value of
    a row group, not once per record, and coding them costs nothing more. ``numeric`` columns
    (the schema's numeric ones) are read as they are stored."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    names = schema.names if columns is None else list(columns)
    text = [c for c in names if c not in numeric and _plain_text(schema.field(c).type)]
    return pq.read_table(path, columns=names, read_dictionary=text)


def dataset_pieces(
    source: Any,
    frame: dd.DataFrame,
    columns: Sequence[str],
    numeric: Sequence[str] = (),
    read_options: Any = None,
) -> list[Any]:
    """One dask delayed pandas DataFrame per partition of ``columns``: each file of a Parquet
    dataset read directly (:func:`read_parquet_file`, ``numeric`` as stored), else ``frame``'s
    partitions (``source`` a CSV path or a dask DataFrame, ``frame`` it as read)."""
    from dask import delayed

    if isinstance(source, (str, os.PathLike)):
        options = dict(read_options or {})
        files = parquet_files(source, options.get("format"))
        if files is not None:
            read = delayed(read_parquet_file, pure=False)
            given = options.get("na_values")
            markers = [given] if isinstance(given, str) else list(given or ())
            by_column = checked_column_markers(options.get("column_na_values"))
            return [read(f, list(columns), list(numeric), markers, by_column) for f in files]
    return list(frame[list(columns)].to_delayed())
