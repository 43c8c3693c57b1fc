"""A release's tables as SPSS (``.sav``) and Stata (``.dta``) files, through pyreadstat.

:func:`write_statistical` writes a table as the statistical packages hold survey data: numbers
(and text whose every value is a number, such as a quasi-identifier not generalized) as
numeric variables, ISO dates as date variables, text as codes 1, 2, ... with value labels (a
label for each value the column holds, none for any other), or, where a value is longer than
the format's value labels keep, as a string variable; a missing answer (``?``) is a missing
value; a column's variable label (its description, from the input file) is written when given,
as long as the format holds (:func:`variable_labels`). :func:`read_statistical` reads such a file
back with the labels applied, for :meth:`~microanon.core.release.Release.load` to restore the
types its manifest records; :func:`read_variable_labels` reads its variable labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError
from .hierarchy import number_line_order
from .keys import value_key
from .missing import MISSING_LABEL

__all__ = [
    "STATISTICAL",
    "check_statistical_names",
    "labels_cut",
    "read_statistical",
    "read_variable_labels",
    "variable_labels",
    "write_statistical",
]

#: The formats of the statistical packages, by their ``output: {format: ...}`` name.
STATISTICAL = {"sav": "SPSS", "dta": "Stata"}
#: SPSS's reserved words, which no variable may be named.
_SPSS_RESERVED = frozenset(
    {"ALL", "AND", "BY", "EQ", "GE", "GT", "LE", "LT", "NE", "NOT", "OR", "TO", "WITH"}
)
#: The longest value label each format keeps, in bytes of UTF-8 (SPSS cuts a longer one short).
LABEL_BYTES = {"sav": 120, "dta": 32_000}
#: The longest variable label each format holds: Stata 80 characters, SPSS 256 bytes of UTF-8
#: (pyreadstat refuses a longer one in Stata and cuts it short in SPSS).
VARIABLE_LABEL = {"sav": 256, "dta": 80}
#: The Stata extended missing value (``.a``) that stands for a missing answer (``?``).
STATA_MISSING = "a"
#: The first date written as a date variable: SPSS counts days from the Gregorian calendar's
#: start (14 October 1582), Stata from the year 100; an earlier date stays text.
FIRST_DATE = date(1583, 1, 1)
#: An ISO date, as a release publishes a date without a time of day.
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: The longest value an SPSS string variable holds, in bytes of UTF-8.
SPSS_STRING_BYTES = 32_767


def _kind(format: str) -> tuple[str, str]:
    """The package's name and the article before it (``an SPSS``, ``a Stata``)."""
    kind = STATISTICAL[format]
    return kind, "an" if kind == "SPSS" else "a"


def check_statistical_names(names: Iterable[str], format: str) -> None:
    """Refuse column names an SPSS (``sav``) or Stata (``dta``) file cannot hold as variables
    (any name for another format): a config checks its published columns before the method
    runs, the writer every column it writes.

    Parameters
    ----------
    names : iterable of str
    format : str

    Raises
    ------
    InputError
        One line naming the first such column and the format's rule.
    """
    if format not in STATISTICAL:
        return
    kind, article = _kind(format)
    for name in names:
        problem = _statistical_name_problem(str(name), format)
        if problem:
            raise InputError(
                f"output format {format}: column {str(name)!r} cannot be {article} {kind} "
                f"variable ({problem}); rename it, or write csv or parquet"
            )


def _statistical_name_problem(name: str, format: str) -> str | None:
    """Why ``name`` cannot be a variable of an SPSS or Stata file (None: it can)."""
    if format == "dta":
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,31}", name):
            return "Stata names are 1 to 32 letters, digits or _, not starting with a digit"
        return None
    if (
        not re.fullmatch(r"[A-Za-z@][A-Za-z0-9_.@#$]*", name)
        or len(name.encode("utf-8")) > 64
        or name.endswith(".")
    ):
        return "SPSS names are up to 64 letters, digits or _ . @ # $, starting with a letter"
    if name.upper() in _SPSS_RESERVED:
        return f"{name.upper()} is a reserved word of SPSS"
    return None


def write_statistical(
    df: pd.DataFrame,
    path: Path,
    format: str,
    types: Mapping[str, str],
    declared: Mapping[str, Sequence[Any]] | None = None,
    labels: Mapping[str, str] | None = None,
) -> None:
    """Write a release table as an SPSS (``sav``) or Stata (``dta``) file.

    Numbers are numeric variables, and so is a text column whose every value is a number
    (``24``, ``52.5``: a numeric quasi-identifier at level 0, say), read back as that text; a
    text column whose every value is an ISO date (``2012-01-22``, from :data:`FIRST_DATE` on)
    is a date variable, read back as that text too. Other text and truth values are codes 1,
    2, ... labelled with the values the column holds, no label for any other; the codes follow
    the order the data owner declared for the column (its ``categories`` or ordinal ``order``,
    ``declared``), then, for the values it does not list (a generalized level's labels),
    :func:`~microanon.core.hierarchy.number_line_order` (intervals by their lower ends). A text
    column holding a value longer than the format's value labels keep (:data:`LABEL_BYTES`) is
    a string variable instead, and so is, in a Stata file, one holding a value that ends in a
    space (value labels drop trailing spaces; an SPSS file drops them from strings too, and
    such a column is refused there). Missing values are missing, and so is the value ``?`` (how a
    release publishes a missing answer, ``missing: value``): the last code, declared
    user-missing, in SPSS; the extended missing value ``.a`` in Stata; labelled ``?`` in both.
    A column named in ``labels`` carries that variable label, cut to the longest the format
    holds (:func:`variable_labels`); any other column none.

    Parameters
    ----------
    df : DataFrame
        A release table (text as str and None).
    path : Path
    format : {"sav", "dta"}
    types : mapping of str to str
        Each column's type in the manifest (``string``, ``int``, ``float``, ``bool``).
    declared : mapping of str to values, optional
        The values the data owner declared per column, in their order.
    labels : mapping of str to str, optional
        Column -> its variable label (a description such as ``Respondent's age``).

    Raises
    ------
    InputError
        A column name the format does not allow, whole numbers a double cannot hold, text
        longer than an SPSS string variable holds, text ending in a space in an SPSS file, or
        a table pyreadstat cannot write; one line naming the column or the file.
    """
    import pyreadstat

    check_statistical_names(df.columns, format)
    out = pd.DataFrame(index=range(len(df)))
    coded: dict[str, dict[Any, str]] = {}
    missing: dict[str, list[Any]] = {}
    for c in df.columns:
        name = str(c)
        column = df[c].reset_index(drop=True)
        given = (declared or {}).get(name, ())
        out[name], labelled, codes = _variable(column, name, format, types[name], given)
        if labelled is not None:
            coded[name] = labelled
        if codes:
            missing[name] = codes
    described = variable_labels(
        {c: v for c, v in (labels or {}).items() if c in out.columns}, format
    )
    kind, article = _kind(format)
    try:
        if format == "sav":
            pyreadstat.write_sav(
                out,
                str(path),
                column_labels=described or None,
                variable_value_labels=coded,
                missing_ranges=missing,
            )
        else:
            pyreadstat.write_dta(
                out,
                str(path),
                column_labels=described or None,
                variable_value_labels=coded,
                missing_user_values=missing,
            )
    except Exception as exc:  # any failure of the binary writer, as one line
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"cannot write {path.name} as {article} {kind} file: {message}") from None


def variable_labels(labels: Mapping[str, str], format: str) -> dict[str, str]:
    """Variable labels as an SPSS (``sav``) or Stata (``dta``) file holds them: each cut to
    the longest the format holds (:data:`VARIABLE_LABEL`: a Stata label to its first 80
    characters, an SPSS label to its first 256 bytes of UTF-8, a character never split),
    without spaces at either end (the formats drop those at the end); a blank one left out.

    Parameters
    ----------
    labels : mapping of str to str
        Column -> its variable label.
    format : {"sav", "dta"}

    Returns
    -------
    dict of str to str
    """
    out = {}
    for column, label in labels.items():
        fitted = _cut(label.strip(), format).rstrip()
        if fitted:
            out[column] = fitted
    return out


def labels_cut(labels: Mapping[str, str], format: str) -> str | None:
    """The warning that some of ``labels`` are longer than the format holds and are written
    cut short (:func:`variable_labels`), naming their columns; None when every one fits.

    Parameters
    ----------
    labels : mapping of str to str
        Column -> its variable label.
    format : {"sav", "dta"}

    Returns
    -------
    str or None
    """
    cut = [repr(c) for c, label in labels.items() if _cut(label.strip(), format) != label.strip()]
    if not cut:
        return None
    kind, article = _kind(format)
    unit = "characters" if format == "dta" else "bytes of UTF-8"
    whose = (
        f"label of column {cut[0]} is"
        if len(cut) == 1
        else f"labels of columns {', '.join(cut)} are"
    )
    return (
        f"output format {format}: the variable {whose} longer than {article} {kind} file holds "
        f"({VARIABLE_LABEL[format]} {unit}), written cut short"
    )


def _cut(label: str, format: str) -> str:
    """``label`` cut to the longest the format holds (:data:`VARIABLE_LABEL`)."""
    if format == "dta":
        return label[: VARIABLE_LABEL["dta"]]
    return label.encode("utf-8")[: VARIABLE_LABEL["sav"]].decode("utf-8", errors="ignore")


def _variable(
    col: pd.Series, name: str, format: str, kind: str, declared: Sequence[Any]
) -> tuple[pd.Series, dict[Any, str] | None, list[Any]]:
    """One column as the file holds it: its values, its value labels (None: not coded) and
    its codes declared missing (see :func:`write_statistical`)."""
    if kind in ("int", "float"):
        return _numbers(col, name, format, kind), None, []
    text = _per_value(col, str)
    held = set(text.dropna())
    numbers = _numbers_written(held)
    if numbers is not None:
        return text.map(numbers).astype("float64"), None, []
    dates = _dates_written(held)
    if dates is not None:
        return text.map(dates).astype(object), None, []
    padded = sorted(v for v in held if v.endswith(" "))
    if padded and format == "sav":
        raise InputError(_trailing_spaces(name, padded))
    if padded or max((len(v.encode("utf-8")) for v in held), default=0) > LABEL_BYTES[format]:
        return _string_variable(text, held, name, format), None, []
    return _coded(text, held, declared, format)


def _trailing_spaces(name: str, padded: Sequence[str]) -> str:
    """Why an SPSS file cannot hold a column whose values (``padded``) end in a space: its
    value labels and string variables drop trailing spaces, so ``'WT '`` and ``'WT'`` would
    read back as one value."""
    first = padded[0]
    return (
        f"output format sav: column {name!r} holds {len(padded):,} value(s) ending in a space, "
        f"e.g. {first!r}, which an SPSS file cannot keep (it drops a value's trailing spaces: "
        f"{first!r} would read back as {first.rstrip(' ')!r}); remove the trailing spaces from "
        "the data, or write dta, csv or parquet"
    )


def _numbers(col: pd.Series, name: str, format: str, kind: str) -> pd.Series:
    """A column of numbers as the doubles the file holds; whole numbers above 2**53 refused."""
    number = pd.to_numeric(col)
    if kind == "int" and (number.abs() > 2**53).any():
        package, article = _kind(format)
        raise InputError(
            f"output format {format}: column {name!r} holds whole numbers above 2**53, "
            f"which {article} {package} file (numbers as doubles) cannot hold exactly; "
            "write csv or parquet"
        )
    return number.astype("float64")


def _numbers_written(held: set[str]) -> dict[str, float] | None:
    """The number each text stands for, when every one is a number that reads back as that
    very text (:func:`~microanon.core.keys.value_key`: ``24`` and ``52.5``, not ``024``,
    ``24.0`` or ``1e3``, which stay text); None otherwise, or when there is no value."""
    numbers = {}
    for value in held:
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number) or value_key(number) != value:
            return None
        numbers[value] = number
    return numbers or None


def _dates_written(held: set[str]) -> dict[str, date] | None:
    """The date each text stands for, when every one is an ISO date (``2012-01-22``) from
    :data:`FIRST_DATE` on; None otherwise, or when there is no value."""
    dates = {}
    for value in held:
        if not _ISO_DATE.fullmatch(value):
            return None
        try:
            day = date.fromisoformat(value)
        except ValueError:
            return None
        if day < FIRST_DATE:
            return None
        dates[value] = day
    return dates or None


def _string_variable(text: pd.Series, held: set[str], name: str, format: str) -> pd.Series:
    """Text as a string variable (a missing value written empty; the manifest lists its
    rows), refused in SPSS beyond the longest value a string variable holds."""
    longest = max(len(v.encode("utf-8")) for v in held)
    if format == "sav" and longest > SPSS_STRING_BYTES:
        raise InputError(
            f"output format sav: column {name!r} holds a value of {longest:,} bytes, longer "
            f"than an SPSS string variable holds ({SPSS_STRING_BYTES:,}); write dta, csv or "
            "parquet"
        )
    return text.fillna("")


def _coded(
    text: pd.Series, held: set[str], declared: Sequence[Any], format: str
) -> tuple[pd.Series, dict[Any, str], list[Any]]:
    """Text as codes 1, 2, ... (declared values first, in their order), their labels, and the
    codes declared missing: :data:`~microanon.core.missing.MISSING_LABEL` (``?``, a missing
    answer) is SPSS's user-missing code after the others, or Stata's extended missing ``.a``
    (a plain code after the others, labelled ``?``, where pyreadstat could not write ``.a``:
    :func:`_sniffed_as_text`)."""
    first = [v for v in dict.fromkeys(map(str, declared)) if v in held]
    values = [v for v in first + number_line_order(held - set(first)) if v != MISSING_LABEL]
    codes: dict[str, Any] = {v: float(i) for i, v in enumerate(values, start=1)}
    missing = []
    if MISSING_LABEL in held:
        extended = format == "dta" and not _sniffed_as_text(text)
        codes[MISSING_LABEL] = STATA_MISSING if extended else float(len(values) + 1)
        if format != "dta" or extended:
            missing.append(codes[MISSING_LABEL])
    column = text.map(codes)  # (Stata's .a is the letter a among the numbers)
    column = column.astype(object if STATA_MISSING in missing else "float64")
    return column, {code: value for value, code in codes.items()}, missing


#: How many first values pyreadstat's table layer (narwhals) looks at to type a column.
_SNIFFED = 100


def _sniffed_as_text(text: pd.Series) -> bool:
    """Whether every one of a column's first :data:`_SNIFFED` values is ``?``: Stata's
    ``.a`` there would be all pyreadstat sees of the column, which it then types as text and
    cannot write (a plain code labelled ``?`` is written instead)."""
    head = text.iloc[:_SNIFFED]
    return bool(len(head)) and bool((head == MISSING_LABEL).all())


def read_statistical(path: Path, types: Mapping[str, str]) -> pd.DataFrame:
    """A table :func:`write_statistical` wrote: labels applied (text, the user-missing ``?``
    too), numbers as numbers, and
    the numbers and dates of a text column (``types``: ``string``) as the text the release
    publishes (``24``, ``2012-01-22``).

    Parameters
    ----------
    path : Path
    types : mapping of str to str
        Each column's type in the manifest.

    Returns
    -------
    DataFrame

    Raises
    ------
    InputError
        A file pyreadstat cannot read, in one line naming it.
    """
    df, _ = _read_release_table(
        path, apply_value_formats=True, formats_as_category=False, user_missing=True
    )
    for c in df.columns:
        if types.get(str(c)) != "string":
            continue
        if pd.api.types.is_float_dtype(df[c].dtype):
            df[c] = _per_value(df[c], value_key)
        elif pd.api.types.infer_dtype(df[c], skipna=True) == "date":
            df[c] = _per_value(df[c], lambda v: v.isoformat() if isinstance(v, date) else None)
    return df


def read_variable_labels(path: Path) -> dict[str, str]:
    """The variable labels of an SPSS (``.sav``) or Stata (``.dta``) file, read from its
    metadata alone.

    Parameters
    ----------
    path : Path

    Returns
    -------
    dict of str to str
        Column -> its variable label (no entry for a column without one).

    Raises
    ------
    InputError
        A file pyreadstat cannot read, in one line naming it.
    """
    _, meta = _read_release_table(path, metadataonly=True)
    return {str(c): label for c, label in meta.column_names_to_labels.items() if label}


def _read_release_table(path: Path, **options: Any) -> tuple[pd.DataFrame, Any]:
    """pyreadstat's reading of a release's SPSS or Stata table (``options`` passed on): the
    table and its metadata; a failure is one :class:`InputError` line naming the file."""
    import pyreadstat

    reader = pyreadstat.read_sav if path.suffix == ".sav" else pyreadstat.read_dta
    try:
        return reader(str(path), **options)
    except Exception as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"cannot read release table {path}: {message}") from None


def _per_value(column: pd.Series, convert: Any) -> pd.Series:
    """``convert`` of each distinct value of ``column`` (computed once per value, not once per
    row), a missing value None; an object column."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    converted = np.array([convert(v) for v in uniques] + [None], dtype=object)
    return pd.Series(converted[codes], index=column.index, dtype=object, name=column.name)
