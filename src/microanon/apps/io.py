"""Files of the command line: reading user data (CSV with its delimiter detected or given, its
encoding, decimal mark and quote character; Parquet; Feather; SPSS, Stata and SAS files with
their value labels applied, and their variable labels beside the table; Excel workbooks, one
sheet) and printing plain JSON."""

from __future__ import annotations

import codecs
import csv
import json
import math
import os
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np
import pandas as pd

from ..core.csv_lines import short_line, values_hold_carriage_returns, without_carriage_returns
from ..core.data_order import data_orders
from ..core.errors import InputError
from ..core.reading import (
    WARNING_FILTERS,
    ReadOptions,
    check_marked_columns,
    csv_na_values,
    csv_opener,
    marked_frame,
    markers_at,
    markers_of,
    na_marked,
    typed_whole,
    unpadded,
    whole_floats,
    whole_written,
    zero_led_codes,
)
from ..core.release import not_a_dataset

__all__ = [
    "EXCEL_SUFFIXES",
    "FEATHER_SUFFIXES",
    "STATISTICAL_SUFFIXES",
    "SAME_PACKAGE",
    "LABELLED_SUFFIXES",
    "Labelled",
    "categories_entry",
    "order_entries",
    "value_label_categories",
    "decode_failure",
    "detect_delimiter",
    "json_plain",
    "json_text",
    "read_labelled",
    "read_table",
]

_DELIMITERS = ",;\t|"

#: The suffixes of the statistical packages' files that :func:`read_table` reads with pyreadstat:
#: SPSS (``.sav``, compressed ``.zsav``), Stata (``.dta``), SAS (``.sas7bdat``, XPORT ``.xpt``);
#: each with the kind of file its messages name.
STATISTICAL_SUFFIXES = {
    ".sav": "an SPSS",
    ".zsav": "an SPSS",
    ".por": "an SPSS portable",
    ".dta": "a Stata",
    ".sas7bdat": "a SAS",
    ".xpt": "a SAS XPORT",
}


#: The release format (``output: {format: ...}``) of a table read from an SPSS or Stata file:
#: the package its users would read the release in too.
SAME_PACKAGE = {".sav": "sav", ".zsav": "sav", ".por": "sav", ".dta": "dta"}


#: The suffix of Feather files (Arrow's IPC file format, as ``pandas.DataFrame.to_feather`` and R's
#: arrow write them), which :func:`read_table` reads with pyarrow.
FEATHER_SUFFIXES = (".feather",)


#: The suffixes of the Excel workbooks that :func:`read_table` reads through pandas, each with the
#: package pandas reads it with: ``.xlsx`` and ``.xlsm`` with openpyxl (a dependency of
#: microanon), the older ``.xls`` with xlrd (not a dependency: install it to read them).
EXCEL_SUFFIXES = {".xlsx": "openpyxl", ".xlsm": "openpyxl", ".xls": "xlrd"}


def detect_delimiter(sample: str, exclude: str = "") -> str:
    """Guess a CSV delimiter among ``, ; tab |`` from a text sample (``,`` when unsure).

    ``exclude``: characters that cannot be the delimiter (the decimal mark, the quote character).
    """
    candidates = "".join(d for d in _DELIMITERS if d not in exclude)
    try:
        return csv.Sniffer().sniff(sample, delimiters=candidates).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in candidates}
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] > 0 else candidates[0]


#: Suffixes of files that hold no table :func:`read_table` reads, refused by name (read as CSV,
#: a JSON document had been "a header line but no rows").
NOT_TABLES = frozenset(
    {".json", ".jsonl", ".xml", ".html", ".htm", ".pdf", ".doc", ".docx", ".yaml", ".yml"}
)


def read_table(
    path: str | os.PathLike[str],
    na_values: Sequence[str] = (),
    header: bool = True,
    *,
    options: ReadOptions | None = None,
    some_columns: bool = False,
) -> pd.DataFrame:
    """Read a CSV (delimiter detected unless given), a Parquet, a Feather (``.feather``), an SPSS
    (``.sav``, ``.zsav``, ``.por``), Stata (``.dta``) or SAS (``.sas7bdat``, ``.xpt``) file, or
    one sheet of an Excel workbook (``.xlsx``, ``.xlsm``; ``.xls`` when xlrd is installed). A
    column of whole numbers with missing values (a CSV column whose fields are written as whole
    numbers, a Parquet or Feather integer column, an SPSS or Stata column of whole numbers) is
    read as pandas' nullable integers, not as floats. The spaces around a text value are no
    part of it (:func:`~microanon.core.reading.unpadded`), whatever the format. A categorical
    column of a Parquet or Feather file (an R factor) stays categorical, ordered if it was
    (:mod:`microanon.core.data_order`).

    The statistical packages' files are read with pyreadstat, their value labels applied (a
    labelled column holds the labels as text, an unlabelled code as its text, ``3`` for 3.0)
    and their missing values (SPSS user-defined missing values, Stata's ``.a``-``.z``, SAS's
    special missing values) missing; a SAS file's labels come from a format catalog of the same
    name beside it (``survey.sas7bcat`` for ``survey.sas7bdat``), if there is one. The labels
    as a codebook (declared categories) are :func:`value_label_categories`; the file's variable
    labels (its columns' descriptions) are read with the table by :func:`read_labelled`.

    An Excel workbook is read one sheet at a time: ``options.sheet`` by name, else the first.
    Its first row holds the column names (unless ``header`` is false), empty cells and the
    ``na_values`` markers are missing, and cells keep their types (numbers, text, dates).

    ``options.column_na_values`` marks cells missing in the columns it names alone, as the
    ``na_values`` mark them in every column (:func:`~microanon.core.reading.markers_of`), in
    every format: a CSV column so marked is read as the same file read with those markers
    for every column reads it (its type included: ``99`` marked, whole numbers read as
    pandas' nullable integers); every other column as read without them.

    Parameters
    ----------
    path : path
    na_values : sequence of str
        Extra markers of missing values (for example ``?`` in UCI files), on top of empty fields
        and of those of ``options``.
    header : bool
        Whether the first CSV line (first row of an Excel sheet) holds the column names.
    options : ReadOptions, optional
        Delimiter, encoding, decimal mark, quote character and missing-value markers of a CSV
        file (default: detected delimiter, UTF-8, ``.``, ``"``); an Excel workbook takes its
        missing-value markers and ``sheet``; Parquet, Feather, SPSS, Stata and SAS files take
        the missing-value markers (``na_values``, ``column_na_values``) and ignore the rest.
    some_columns : bool
        The file holds some of the data's columns (a population file): ``column_na_values``
        marks those it has and names none it lacks. Default: the file is the data, and
        ``column_na_values`` may name none of its columns that it lacks.

    Raises
    ------
    InputError
        If the file is missing, not a regular file, unreadable, empty (or a CSV header alone),
        not a table, or not text in the encoding (naming the byte offset and line of the first
        undecodable byte), if its header (CSV, Excel) or schema (Parquet, Feather) repeats a
        column name, if the workbook has no sheet of that name (listing its sheets), or if
        ``column_na_values`` names a column the file lacks (unless ``some_columns``); one line
        naming the file, never its content.
    """
    return read_labelled(path, na_values, header, options=options, some_columns=some_columns).frame


class Labelled(NamedTuple):
    """A table as :func:`read_labelled` reads it, and its file's variable labels."""

    #: The table, as :func:`read_table` reads it.
    frame: pd.DataFrame
    #: Column -> its variable label (its description, ``Respondent's age in years``), as an
    #: SPSS, Stata or SAS file holds them (no entry for a column without one); empty for any
    #: other file.
    labels: dict[str, str]


def read_labelled(
    path: str | os.PathLike[str],
    na_values: Sequence[str] = (),
    header: bool = True,
    *,
    options: ReadOptions | None = None,
    some_columns: bool = False,
) -> Labelled:
    """The table :func:`read_table` reads, and the variable labels of an SPSS, Stata or SAS
    file, read with it (from the same metadata as its value labels).

    The labels are kept beside the table, never in it (a table's attributes travel into what
    is derived from it, and into the Parquet files written of that): what a method derives
    from the table carries none.

    Parameters
    ----------
    path, na_values, header, options, some_columns
        As :func:`read_table` takes them.

    Returns
    -------
    Labelled

    Raises
    ------
    InputError
        As :func:`read_table`.
    """
    path = Path(path)
    options = options or ReadOptions()
    refused = not_a_dataset(path)
    if refused is not None:
        raise refused
    if not path.is_file():
        reason = "not a regular file" if path.exists() else "no such file"
        raise InputError(f"cannot read {path}: {reason}")
    suffix = path.suffix.lower()
    if suffix in NOT_TABLES:
        raise InputError(
            f"cannot read {path}: a {suffix} file is not a table; give a CSV, "
            "Parquet, Feather, SPSS, Stata, SAS or Excel file"
        )
    markers, by_column = [*options.na_values, *na_values], options.by_column
    if suffix in {".parquet", ".pq"}:
        read = Labelled(marked_frame(_read_parquet(path), markers, by_column), {})
    elif suffix in FEATHER_SUFFIXES:
        read = Labelled(marked_frame(_read_feather(path), markers, by_column), {})
    elif suffix in STATISTICAL_SUFFIXES:
        read = _read_statistical(path, markers, by_column)
    elif suffix in EXCEL_SUFFIXES:
        read = Labelled(_read_excel(path, markers, header, options.sheet, by_column), {})
    else:
        read = Labelled(_read_csv(path, na_values, header, options), {})
    if not some_columns:
        check_marked_columns(read.frame.columns, by_column, path)
    # ('WT      ' and 'WT': one offence code, whatever the file's format)
    return Labelled(unpadded(read.frame), read.labels)


def _read_csv(
    path: Path, na_values: Sequence[str], header: bool, options: ReadOptions
) -> pd.DataFrame:
    """A CSV file as :func:`read_table` reads it."""
    try:
        with csv_opener(path)(path, "rt", encoding=options.encoding, newline="") as fh:
            sample = fh.read(65536)
        if not sample.strip():
            raise InputError(f"{path} is empty")
        sep = options.sep or detect_delimiter(sample, exclude=options.decimal + options.quotechar)
        csv_options: dict[str, Any] = {
            "sep": sep,
            "encoding": options.encoding,
            "decimal": options.decimal,
            "quotechar": options.quotechar,
            "skipinitialspace": True,
            "keep_default_na": False,
        }
        missing = ["", *options.na_values, *na_values]
        frame = _parsed_csv(path, sample, header, csv_options, missing, options)
        blanked = None  # (the file's bytes as pyarrow splits them like pandas, where they differ)
        # (a line cut short leaves the last column missing: only then is the file looked at)
        if frame.shape[1] > 1 and frame.iloc[:, -1].isna().any():
            # A carriage return inside a value (pandas' to_csv writes one unquoted) ends a line
            # for pandas too, and one of the record's two parts is short: where the file's
            # lines end with a line feed alone, it is read again with those alone ending them.
            if values_hold_carriage_returns(path, options.encoding):
                csv_options["lineterminator"] = "\n"
                frame = _parsed_csv(path, sample, header, csv_options, missing, options)
                blanked = without_carriage_returns(path)
            short = short_line(
                path, frame.shape[1], sep, options.quotechar, options.encoding, header, blanked
            )
            if short is not None:
                raise InputError(short.message(path))
        whole = _written_whole(
            path, frame, header, missing, csv_options, options.by_column, blanked
        )
        for column in whole:
            frame[column] = frame[column].astype("Int64")
        return frame
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(decode_failure(path, options.encoding)) from None
    except pd.errors.ParserWarning:
        raise InputError(
            f"cannot read {path}: its lines hold more fields than its header names, so a field "
            f"would be lost; check the separator (read as {sep!r})"
        ) from None
    except (OSError, ValueError, LookupError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {path}: {_one_line(exc)}") from None


def _parsed_csv(
    path: Path,
    sample: str,
    header: bool,
    csv_options: dict[str, Any],
    missing: Sequence[str],
    options: ReadOptions,
) -> pd.DataFrame:
    """The CSV file at ``path`` (its first characters ``sample``) parsed by pandas with
    ``csv_options``, the fields ``missing`` missing values; a field beyond the header's
    names raises pandas' ``ParserWarning``, which :func:`_read_csv` turns into its error."""
    if header:  # pandas would silently rename a repeated name: zip, zip.1, ...
        first = pd.read_csv(path, header=None, nrows=1, dtype=str, **csv_options)
        names = [str(v) for v in first.iloc[0]] if len(first) else []
        _refuse_repeated(path, names, "; if the first line is data, read it without a header")
    codes = zero_led_codes(sample, csv_options, header)
    columns: list[Any] = []
    if options.by_column:  # (each column's markers by the name pandas gives it)
        columns = list(
            pd.read_csv(
                path,
                header=0 if header else None,
                nrows=0 if header else 1,
                index_col=False,
                **csv_options,
            ).columns
        )
    read = partial(
        pd.read_csv,
        path,
        header=0 if header else None,
        na_values=csv_na_values(columns, missing, options.by_column),
        # never the first fields as an index: a line ending in the separator (as
        # spreadsheets and SAS export them) would shift every column one place left
        index_col=False,
        dtype=dict.fromkeys(codes, str) or None,
        **csv_options,
    )
    with WARNING_FILTERS, warnings.catch_warnings():
        # A field beyond the header's names would be lost: refused, not warned of.
        warnings.simplefilter("error", pd.errors.ParserWarning)
        frame = typed_whole(read)  # (RAND HIE's educdec: 12.0 and '12.0', one answer)
    if frame.empty:
        raise InputError(f"{path} has a header line but no rows")
    return frame


def _written_whole(
    path: Path,
    frame: pd.DataFrame,
    header: bool,
    na_values: Sequence[str],
    csv_options: dict[str, Any],
    by_column: dict[str, tuple[str, ...]] | None = None,
    blanked: BinaryIO | None = None,
) -> list[Any]:
    """The columns of a CSV file that pandas read as floats only because they miss values, whose
    every field is written as a whole number (``3``, never ``3.0``): answer codes with
    unanswered items. Read as floats, a release would publish ``3.0`` where the file holds ``3``;
    these are read as pandas' nullable integers instead. The fields are read a second time, as
    text, for these columns alone (:func:`~microanon.core.reading.whole_written`; a column's
    own markers, ``by_column``, missing in it), and only when there are any: from ``blanked``,
    the file's bytes with their carriage returns blanked, where its values hold some (read with
    line feeds alone ending lines); a file pyarrow cannot split as pandas did keeps its
    floats."""
    # the columns by position, as pandas numbered them (names it may have changed: 'Unnamed: 5')
    candidates = [
        i
        for i, column in enumerate(frame.columns)
        if frame[column].dtype == np.float64 and _whole_or_missing(frame[column].to_numpy())
    ]
    own = markers_at(frame.columns, candidates, by_column)
    if blanked is not None:
        blanked.seek(0)
    source = path if blanked is None else blanked
    whole = whole_written(source, candidates, csv_options, na_values, header, own)
    return [frame.columns[i] for i in whole]


def _whole_or_missing(values: np.ndarray) -> bool:
    """Whether float64 ``values`` miss some value and hold only whole numbers that int64 keeps."""
    missing = np.isnan(values)
    return bool(missing.any() and not missing.all() and whole_floats(values))


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file, as :func:`_read_arrow_file` reads it."""
    import pyarrow.parquet as pq

    return _read_arrow_file(path, "a Parquet", pq.read_schema, pd.read_parquet)


def _read_feather(path: Path) -> pd.DataFrame:
    """A Feather file (Arrow's IPC file format), as :func:`_read_arrow_file` reads it."""
    import pyarrow as pa

    def schema(where: Path) -> Any:
        with pa.ipc.open_file(where) as reader:
            return reader.schema

    return _read_arrow_file(path, "a Feather", schema, pd.read_feather)


def _read_arrow_file(
    path: Path, kind: str, schema: Callable[[Path], Any], read: Callable[..., pd.DataFrame]
) -> pd.DataFrame:
    """A file of Arrow's types (Parquet, Feather): its column names checked for repeats on its
    ``schema``, ``read`` with pyarrow, integer columns with missing values as pandas' nullable
    integers (not floats); anything pyarrow cannot read is one :class:`InputError` line
    naming the file and the ``kind`` of file expected."""
    import pyarrow as pa

    try:
        fields = schema(path)
        _refuse_repeated(path, [str(n) for n in fields.names])
        frame = read(path)
        # integers with missing values come as floats (3.0): read those again as integers
        ints = [f.name for f in fields if pa.types.is_integer(f.type)]
        ints = [c for c in ints if c in frame.columns and frame[c].dtype.kind == "f"]
        if ints:
            again = read(path, columns=ints, dtype_backend="numpy_nullable")
            for column in ints:
                frame[column] = again[column].array
        return frame
    except InputError:
        raise
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError(f"cannot read {path}: {_one_line(exc)} (is it {kind} file?)") from None


def _read_statistical(
    path: Path, markers: Sequence[str] = (), by_column: dict[str, tuple[str, ...]] | None = None
) -> Labelled:
    """An SPSS, Stata or SAS file through pyreadstat, value labels applied, the cells that
    ``markers`` mark missing in every column and ``by_column`` in the columns it names
    (:func:`~microanon.core.reading.na_marked`), and its variable labels; anything it cannot
    read is one :class:`InputError` line naming the file and the format expected."""
    suffix = path.suffix.lower()
    kind = STATISTICAL_SUFFIXES[suffix]
    try:
        import pyreadstat
    except ImportError:  # a dependency of microanon; only a broken installation lacks it
        raise InputError(
            f"cannot read {path}: reading it needs pyreadstat (pip install pyreadstat)"
        ) from None
    labels: dict[str, Any] = {"apply_value_formats": True, "formats_as_category": False}
    try:
        if suffix in (".sav", ".zsav"):
            # user_missing=False (the default): user-defined missing values become missing
            frame, meta = pyreadstat.read_sav(path, dates_as_pandas_datetime=True, **labels)
        elif suffix == ".por":
            frame, meta = pyreadstat.read_por(path, dates_as_pandas_datetime=True, **labels)
        elif suffix == ".dta":
            frame, meta = pyreadstat.read_dta(path, dates_as_pandas_datetime=True, **labels)
        elif suffix == ".sas7bdat":
            # a SAS file's value labels live in a format catalog (applied when given): one of
            # the same name beside it
            catalogs = [path.with_suffix(s) for s in (".sas7bcat", ".SAS7BCAT")]
            catalog = next((str(c) for c in catalogs if c.is_file()), None)
            frame, meta = pyreadstat.read_sas7bdat(
                path, dates_as_pandas_datetime=True, catalog_file=catalog, formats_as_category=False
            )
        else:
            frame, meta = pyreadstat.read_xport(path, dates_as_pandas_datetime=True)
    except Exception as exc:  # any failure of the binary reader, as one line
        raise InputError(f"cannot read {path}: {_one_line(exc)} (is it {kind} file?)") from None
    _refuse_repeated(path, [str(c) for c in frame.columns])
    labelled = getattr(meta, "variable_to_label", None) or {}
    for column in labelled:
        if column in frame.columns:
            frame[column] = _labels_text(frame[column])
    for column in frame.columns:
        own = markers_of(column, markers, by_column)
        frame[column] = _whole_numbers(na_marked(_blank_missing(frame[column]), own))
    return Labelled(frame, _variable_labels(meta))


def _variable_labels(meta: Any) -> dict[str, str]:
    """The variable labels of the file pyreadstat read the metadata ``meta`` of, without
    spaces at either end; a blank one left out."""
    given = getattr(meta, "column_names_to_labels", None) or {}
    stripped = {str(c): label.strip() for c, label in given.items() if isinstance(label, str)}
    return {column: label for column, label in stripped.items() if label}


def _blank_missing(column: pd.Series) -> pd.Series:
    """A text column with its blank cells missing: Stata's missing string is ``""`` and an
    unanswered SPSS or SAS string is blank (as a CSV file's empty field is missing). Any other
    column as it is."""
    if pd.api.types.infer_dtype(column, skipna=True) not in ("string", "mixed", "mixed-integer"):
        return column  # (numbers, dates, times of day: no text to be blank)
    blank = column.str.strip().eq("").fillna(False).to_numpy(dtype=bool)
    return column.mask(blank) if blank.any() else column


def _whole_numbers(column: pd.Series) -> pd.Series:
    """A column of doubles holding whole numbers only (SPSS stores every number as a double)
    as int64, or as pandas' nullable integers where values are missing: as a CSV file's column
    of the same numbers is read, so that a release writes ``34``, not ``34.0``. Any other column
    as it is."""
    if column.dtype != np.float64 or not len(column):
        return column
    values = column.to_numpy()
    if np.isnan(values).all():
        return column
    if not whole_floats(values):
        return column
    return column.astype("Int64" if np.isnan(values).any() else np.int64)


#: The suffixes of the files whose value labels :func:`value_label_categories` reads.
LABELLED_SUFFIXES = (".sav", ".zsav", ".por", ".dta")


def value_label_categories(
    path: str | os.PathLike[str], frame: pd.DataFrame
) -> dict[str, tuple[str, ...]]:
    """The categories an SPSS or Stata file's value labels declare (a Parquet or Feather
    file's categorical text columns, too): its codebook.

    For each labelled column of ``frame`` (the file as :func:`read_table` read it) every value
    of which is one of its labels: the labels, in the order of their codes, once each, without
    those of SPSS user-defined missing values. Read from the file's metadata alone; kept apart
    from the table, so that nothing carries them into what a method derives from it. For a
    Parquet or Feather file, each column of pandas' unordered categorical type (an R
    factor's) with text categories: those, in their order; an ordered one (an R ordered
    factor's) declares its order, not categories
    (:func:`~microanon.core.data_order.data_orders`).

    Parameters
    ----------
    path : path
        The file ``frame`` was read from; a file of another format than SPSS (``.sav``,
        ``.zsav``, ``.por``), Stata, Parquet or Feather declares nothing.
    frame : DataFrame
        The table :func:`read_table` returned for ``path``.

    Returns
    -------
    dict of str to tuple of str
        Column -> its labels (no entry for a column holding a value without a label).

    Raises
    ------
    InputError
        The file's metadata cannot be read (one line naming the file).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq", *FEATHER_SUFFIXES):
        return _category_labels(frame)
    if suffix not in LABELLED_SUFFIXES:
        return {}
    import pyreadstat

    try:
        if suffix in (".dta", ".por"):
            read = pyreadstat.read_dta if suffix == ".dta" else pyreadstat.read_por
            _, meta = read(str(path), metadataonly=True)
            missing: dict[str, list[tuple[Any, Any]]] = {}
        else:
            _, meta = pyreadstat.read_sav(str(path), metadataonly=True, user_missing=True)
            ranges = getattr(meta, "missing_ranges", None) or {}
            missing = {c: [(r.get("lo"), r.get("hi")) for r in rs] for c, rs in ranges.items()}
    except Exception as exc:  # any failure of the binary reader, as one line
        kind = STATISTICAL_SUFFIXES[suffix]
        raise InputError(f"cannot read {path}: {_one_line(exc)} (is it {kind} file?)") from None
    value_labels = getattr(meta, "variable_value_labels", None) or {}
    found = _label_categories(frame, value_labels, missing)
    return {c: tuple(v) for c, v in found.items()}


def _category_labels(frame: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """The categories a Parquet or Feather file's unordered text columns declare (pandas' and R's
    factors): its codebook, as an SPSS file's value labels are. An ordered one declares an
    order instead (:func:`~microanon.core.data_order.data_order`)."""
    out = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        if isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered:
            categories = list(dtype.categories)
            if categories and all(isinstance(v, str) for v in categories):
                out[str(column)] = tuple(categories)
    return out


def _is_missing_code(code: Any, ranges: Sequence[tuple[Any, Any]]) -> bool:
    for lo, hi in ranges:
        try:
            if lo == code or hi == code or (lo is not None and hi is not None and lo <= code <= hi):
                return True
        except TypeError:  # a text code against numeric bounds
            continue
    return False


def _label_categories(
    frame: pd.DataFrame,
    value_labels: dict[str, dict[Any, Any]],
    missing: dict[str, list[tuple[Any, Any]]],
) -> dict[str, list[str]]:
    """Per labelled column whose every value is one of its labels: the labels, in the order of
    their codes, without those of user-defined missing values (and once each)."""
    out: dict[str, list[str]] = {}
    for column, mapping in value_labels.items():
        if column not in frame.columns or not mapping:
            continue
        codes = sorted(mapping, key=lambda v: (isinstance(v, str), v))
        labels: list[str] = []
        for code in codes:
            if isinstance(code, float) and not math.isfinite(code):
                continue
            if _is_missing_code(code, missing.get(column, ())):
                continue
            text = str(mapping[code])
            if text not in labels:
                labels.append(text)
        values = frame[column].dropna()
        if labels and len(values) and values.map(lambda v: isinstance(v, str)).all():
            if set(values.unique()) <= set(labels):
                out[str(column)] = labels
    return out


def categories_entry(
    declared: dict[str, tuple[str, ...]],
    frame: pd.DataFrame,
    column: str,
    missing: str | None = None,
) -> list[str] | None:
    """A schema entry's ``categories`` for ``column``: its value labels as the file declares
    them (``declared``, from :func:`value_label_categories`), with the missing-value label ``?``
    added when ``missing`` is ``"value"`` and the column has missing values; ``None`` when
    the file declares none for it."""
    from ..core.missing import MISSING_LABEL

    labels = declared.get(column)
    if labels is None:
        return None
    out = list(labels)
    if missing == "value" and frame[column].isna().any() and MISSING_LABEL not in out:
        out.append(MISSING_LABEL)
    return out


def order_entries(frame: pd.DataFrame) -> dict[str, list[Any]]:
    """The ``order`` of a schema entry for each ordered categorical column of ``frame`` (an R
    ordered factor in a Parquet or Feather file, pandas' ``ordered=True``): its categories,
    lowest first, those no row holds included (:func:`~microanon.core.data_order.data_orders`),
    for a column whose every category is text or a number, as a config writes them (a column
    of dates or intervals gets none: its run takes the order from the data).

    Parameters
    ----------
    frame : DataFrame
        The table as :func:`read_table` read it.

    Returns
    -------
    dict of str to list
        Column -> its order, as plain Python values.
    """

    def plain(value: Any) -> bool:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)

    found = data_orders(frame).items()
    return {c: list(order) for c, order in found if all(plain(v) for v in order)}


def _read_excel(
    path: Path,
    na_values: Sequence[str],
    header: bool,
    sheet: str | None,
    by_column: dict[str, tuple[str, ...]] | None = None,
) -> pd.DataFrame:
    """One sheet of an Excel workbook through pandas (``sheet`` by name, else the first), each
    column of the type its cells hold, the cells ``na_values`` mark missing in every column and
    ``by_column`` in the columns it names; anything the engine cannot read is one
    :class:`InputError` line naming the file."""
    import importlib

    engine = EXCEL_SUFFIXES[path.suffix.lower()]
    try:
        importlib.import_module(engine)
    except ImportError:
        raise InputError(
            f"cannot read {path}: reading {path.suffix} files needs {engine} (pip install "
            f"{engine}); or save the sheet as .xlsx or CSV"
        ) from None
    try:
        with pd.ExcelFile(path, engine=engine) as book:
            names = [str(n) for n in book.sheet_names]
            if not names:
                raise InputError(f"cannot read {path}: the workbook has no sheet")
            if sheet is not None and sheet not in names:
                raise InputError(
                    f"cannot read {path}: no sheet {sheet!r}; its sheets: {', '.join(names)}"
                )
            chosen = names[0] if sheet is None else sheet
            if header:  # pandas would silently rename a repeated name: zip, zip.1, ...
                first = pd.read_excel(book, chosen, header=None, nrows=1, dtype=object)
                names_row = [] if first.empty else first.iloc[0].tolist()
                _refuse_repeated(
                    path, ["" if pd.isna(v) else str(v) for v in names_row], f" (sheet {chosen})"
                )
            columns: list[Any] = []
            if by_column:  # (each column's markers by the name pandas gives it)
                at = {"header": 0, "nrows": 0} if header else {"header": None, "nrows": 1}
                columns = list(pd.read_excel(book, chosen, dtype=object, **at).columns)
            missing = csv_na_values(columns, ["", *na_values], by_column)
            options: dict[str, Any] = {"keep_default_na": False, "na_values": missing}
            frame = pd.read_excel(
                book, chosen, header=0 if header else None, dtype=object, **options
            )
    except InputError:
        raise
    except Exception as exc:  # any failure of the workbook reader, as one line
        raise InputError(
            f"cannot read {path}: {_one_line(exc)} (is it an Excel workbook?)"
        ) from None
    if frame.empty and len(frame.columns) == 0:
        raise InputError(f"cannot read {path}: sheet {chosen} is empty")
    frame.columns = [str(c) for c in frame.columns]
    # Each cell as the workbook types it: a text cell stays text (a code written 03264 keeps
    # its zero, where pandas' parsing would make it the number 3264), numbers stay numbers
    # (whole ones whole, missing cells and all), dates dates.
    for column in frame.columns:
        frame[column] = _whole_numbers(frame[column].infer_objects())
    return frame


def _labels_text(column: pd.Series) -> pd.Series:
    """A column with value labels applied as text: labels kept, an unlabelled code as its text
    (``3`` for 3.0), missing values missing (one type, not labels mixed with numbers)."""
    if not column.map(lambda v: isinstance(v, str)).any():
        # No value the file holds is labelled (e.g. only the user-missing codes, -9 "Refused",
        # which are read as missing): its numbers stay numbers, of a numeric type again.
        return column.infer_objects()

    def text(value: Any) -> Any:
        if isinstance(value, str) or pd.isna(value):
            return value if isinstance(value, str) else np.nan
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            return str(int(value))
        return str(value)

    return pd.Series([text(v) for v in column], index=column.index, name=column.name)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def decode_failure(path: Path, encoding: str) -> str:
    """The message for a file that is not text in ``encoding``: where its first bad byte is.

    The file is decoded again incrementally to find the byte's offset and line (pandas reports
    an offset within one of its buffers).
    """
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    offset = lines = 0
    where = ""
    with csv_opener(path)(path, "rb") as fh:
        magic = fh.read(6)
        if magic.startswith(b"PAR1"):
            return f"cannot read {path}: it is a Parquet file; give it the suffix .parquet"
        if magic == b"ARROW1":
            return f"cannot read {path}: it is a Feather file; give it the suffix .feather"
        fh.seek(0)
        while True:
            chunk = fh.read(1 << 20)
            pending = decoder.getstate()[0]
            pending = pending if isinstance(pending, bytes) else b""
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                seen = pending + chunk
                at = offset - len(pending) + exc.start
                line = lines + seen[: exc.start].count(b"\n") + 1
                where = f"byte 0x{seen[exc.start]:02x} at offset {at} (line {line}) "
                break
            if not chunk:
                break
            offset += len(chunk)
            lines += chunk.count(b"\n")
    return (
        f"cannot read {path}: {where or 'it '}is not {encoding.upper()} text; give the file's "
        "encoding, e.g. --encoding latin-1 (in a config: read: {encoding: latin-1})"
    )


def _refuse_repeated(path: Path, names: Sequence[str], hint: str = "") -> None:
    """Refuse a table whose column names repeat (empty CSV header fields aside).

    Raises
    ------
    InputError
        Naming each repeated column and its positions (1-based).
    """
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names, start=1):
        if name != "":
            positions.setdefault(name, []).append(i)
    repeated = {n: p for n, p in positions.items() if len(p) > 1}
    if repeated:
        listed = "; ".join(f"{n!r} (columns {', '.join(map(str, p))})" for n, p in repeated.items())
        raise InputError(
            f"{path}: the column name(s) {listed} appear more than once; give every column a "
            f"distinct name{hint}"
        )


def json_plain(obj: Any) -> Any:
    """JSON types: numpy scalars and arrays to Python, non-finite floats and missing values to
    null."""
    if isinstance(obj, dict):
        return {str(k): json_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_plain(obj.tolist())
    if obj is pd.NA or obj is pd.NaT:
        return None
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def json_text(obj: Any) -> str:
    """``obj`` as one JSON document: made plain by :func:`json_plain`, values JSON cannot hold
    (paths, dates) as their text; NaN refused."""
    return json.dumps(json_plain(obj), indent=2, ensure_ascii=False, allow_nan=False, default=str)
