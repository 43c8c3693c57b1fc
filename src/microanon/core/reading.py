"""How to read a user's CSV file: delimiter, text encoding, decimal mark, quote character and
missing-value markers (and which sheet of an Excel workbook), in one validated value that
commands, configs and engines pass along."""

from __future__ import annotations

import codecs
import os
import re
import shlex
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import InputError
from .missing import MISSING_MARKERS
from .wording import how_many

__all__ = [
    "CSV_KEYS",
    "WARNING_FILTERS",
    "MarkerColumn",
    "MarkerTally",
    "ReadOptions",
    "check_marked_columns",
    "column_na_entries",
    "column_na_options",
    "column_na_values",
    "column_na_values_text",
    "csv_na_values",
    "csv_opener",
    "decimal_comma_columns",
    "marker_columns",
    "marker_tallies",
    "marker_warnings",
    "marked_frame",
    "markers_at",
    "markers_of",
    "missing_marker_columns",
    "missing_marker_warnings",
    "na_marked",
    "reading_hint",
    "typed_whole",
    "unpadded",
    "whole_floats",
    "whole_written",
    "zero_led_codes",
]


#: Held while a read changes the warnings filters (a pandas warning made an error, or silenced):
#: they are the process's, and :class:`warnings.catch_warnings` puts back on leaving the filters
#: it found on entering, so two threads doing it at once (Dask's, reading a file's blocks) lost
#: each other's: a warning meant as an error went by unnoticed, or one meant to be silent was
#: shown. Re-entrant: a read that holds it may call another.
WARNING_FILTERS = threading.RLock()


def typed_whole(read: Callable[..., Any]) -> Any:
    """``read()``, a :func:`pandas.read_csv` of a CSV file, or ``read(low_memory=False)`` when
    pandas' read typed a column apart in the chunks it reads a large file in (its
    ``DtypeWarning``, caught): a column whose marker text (R's ``NA``) falls in some chunks only
    holds numbers from the others beside text, ``12`` read as ``12.0`` in one chunk and
    ``'12'`` in another, one answer two values. The second read types each column from all its
    fields at once; it is not the first, as it takes twice the time and more memory.
    ``read`` starts from the file's beginning each time it is called. The warning is turned
    into an error under :data:`WARNING_FILTERS` (pandas' parser holds Python's lock as it reads,
    so reads in threads lose no speed waiting for each other).
    """
    import pandas as pd

    with WARNING_FILTERS, warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.DtypeWarning)
        try:
            return read()
        except pd.errors.DtypeWarning:
            pass
    return read(low_memory=False)


def unpadded(frame: Any) -> Any:
    """``frame`` (a DataFrame read from a CSV file) with the spaces around its text values taken
    away: they are no part of a value (the spaces after a delimiter are skipped as the file is
    read, those before the next one are not), and a code padded to a fixed width (``'WT      '``
    beside ``'WT'``, as the Minneapolis use-of-force records write offence codes) would count as
    a value of its own, in an ℓ-diverse class too. A text that is nothing but spaces is
    missing, as an empty field is. Only the space character is taken away (a tab, say, is
    part of a value). Each text column's distinct values are stripped
    (:func:`~microanon.core.factorize.factorize`, coded once within a run), and a column is
    rebuilt only when one changes. Within a run the text columns are coded side by side first
    (:func:`~microanon.core.factorize.code_columns`, as many at a time as there are cores).
    """
    import numpy as np
    import pandas as pd

    from .factorize import code_columns, factorize

    code_columns(
        column
        for _, column in frame.items()
        if pd.api.types.is_string_dtype(column.dtype)
        and not isinstance(column.dtype, pd.CategoricalDtype)
    )
    for name, column in frame.items():
        if isinstance(column.dtype, pd.CategoricalDtype):  # (text read dictionary-encoded)
            frame[name] = _unpadded_categories(column)
            continue
        if not pd.api.types.is_string_dtype(column.dtype):
            continue
        codes, uniques = factorize(column)
        values = list(uniques)
        stripped = [v.strip(" ") if isinstance(v, str) else v for v in values]
        if stripped == values:
            continue
        table = np.array([None if v == "" else v for v in stripped] + [None], dtype=object)
        rebuilt = pd.Series(table[codes], index=frame.index, name=name, dtype=object)
        frame[name] = rebuilt if column.dtype == object else rebuilt.astype(column.dtype)
    return frame


def _unpadded_categories(column: Any) -> Any:
    """A categorical column of :func:`unpadded`: its text categories without the spaces around
    them, two that become one merged (at the first one's place), ordered if it was (the same
    column when none changes)."""
    import numpy as np
    import pandas as pd

    categories = list(column.cat.categories)
    stripped = [c.strip(" ") if isinstance(c, str) else c for c in categories]
    if stripped == categories:
        return column
    kept = pd.Index(list(dict.fromkeys(c for c in stripped if c != "")))
    remap = np.array([kept.get_loc(c) if c != "" else -1 for c in stripped] + [-1])
    codes = remap[column.cat.codes.to_numpy()]
    values = pd.Categorical.from_codes(codes, categories=kept, ordered=column.cat.ordered)
    return pd.Series(values, index=column.index, name=column.name)


#: The keys of a config's ``read:`` block (``na_values`` and ``column_na_values`` are top-level
#: keys of the config).
CSV_KEYS = ("sep", "encoding", "decimal", "quotechar", "sheet")

#: Spellings of the tab delimiter that survive a shell or YAML without quoting tricks.
_TAB = {"\\t": "\t", "tab": "\t", "TAB": "\t"}

_ROLES = {"sep": "delimiter", "decimal": "decimal mark", "quotechar": "quote character"}


@dataclass(frozen=True)
class ReadOptions:
    """How CSV files are read, and which sheet of an Excel workbook (Parquet and Feather files
    carry their own types and ignore these but ``na_values`` and ``column_na_values``; SPSS,
    Stata and SAS files too).

    Parameters
    ----------
    sep : str, optional
        The delimiter, one character (``\\t`` or ``tab`` for a tab); ``None`` detects it among
        ``, ; tab |``.
    encoding : str
        The text encoding (any name Python knows: ``utf-8``, ``latin-1``, ``cp1252``, ...).
    decimal : str
        The decimal mark of numbers, one character (``,`` in much of Europe).
    quotechar : str
        The character that quotes fields holding the delimiter, one character.
    na_values : tuple of str
        Markers of missing values on top of empty fields (``?`` in UCI files), in every column;
        also in Excel sheets.
    sheet : str, optional
        The name of the Excel sheet to read (``None``: the first); CSV files ignore it.
    column_na_values : tuple of (str, tuple of str)
        Markers of missing values of one column each, on top of ``na_values`` (a survey's
        ``98`` and ``99`` in the columns whose codebook gives them so, and in no other); given
        as a mapping of column to markers (:func:`column_na_values`), kept as pairs in the
        order given (:attr:`by_column`). A column given no marker is left out.

    Raises
    ------
    InputError
        A field that is not one character, an unknown encoding, or two roles given the same
        character; a ``column_na_values`` that is not a mapping of column names to markers; the
        message names the field (and the column).

    Examples
    --------
    >>> ReadOptions(sep=";", encoding="latin-1", decimal=",").decimal
    ','
    """

    sep: str | None = None
    encoding: str = "utf-8"
    decimal: str = "."
    quotechar: str = '"'
    na_values: tuple[str, ...] = ()
    sheet: str | None = None
    column_na_values: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        given = column_na_values(self.column_na_values)
        object.__setattr__(self, "column_na_values", tuple((c, m) for c, m in given.items() if m))
        if isinstance(self.sheet, int) and not isinstance(self.sheet, bool):
            object.__setattr__(self, "sheet", str(self.sheet))  # YAML's sheet: 2024
        if self.sheet is not None and (not isinstance(self.sheet, str) or not self.sheet):
            raise InputError(f"sheet: give the name of a sheet, got {self.sheet!r}")
        if self.sep is not None:
            object.__setattr__(self, "sep", _TAB.get(self.sep, self.sep))
        if isinstance(self.na_values, str):
            object.__setattr__(self, "na_values", (self.na_values,))
        else:
            object.__setattr__(self, "na_values", tuple(str(v) for v in self.na_values))
        for name in ("sep", "decimal", "quotechar"):
            value = getattr(self, name)
            if value is None and name == "sep":
                continue
            if not isinstance(value, str) or len(value) != 1 or value in "\r\n":
                raise InputError(f"{name}: give one character (not a line break), got {value!r}")
        if not isinstance(self.encoding, str):
            raise InputError(f"encoding: give the name of a text encoding, got {self.encoding!r}")
        try:
            codecs.lookup(self.encoding)
        except LookupError:
            raise InputError(
                f"encoding: unknown text encoding {self.encoding!r} (e.g. utf-8, latin-1, cp1252)"
            ) from None
        roles = {"sep": self.sep, "decimal": self.decimal, "quotechar": self.quotechar}
        seen: dict[str, str] = {}
        for name, char in roles.items():
            if char is None:
                continue
            if char in seen:
                raise InputError(
                    f"{name}: {char!r} is already the {_ROLES[seen[char]]}; give another one"
                )
            seen[char] = name

    @property
    def by_column(self) -> dict[str, tuple[str, ...]]:
        """``column_na_values`` as a mapping of column to its own markers."""
        return dict(self.column_na_values)

    @classmethod
    def from_mapping(
        cls, values: Mapping[str, Any], where: str = "read", base: ReadOptions | None = None
    ) -> ReadOptions:
        """Options from a mapping of field names to values (a config's block, given flags).

        Parameters
        ----------
        values : mapping
            Some of the fields; ``None`` values are left out.
        where : str
            How messages name a field: ``"read"`` gives ``read: sep: ...``, ``"--"`` gives
            ``--sep: ...`` (the command-line flag).
        base : ReadOptions, optional
            The options that ``values`` override (default: the defaults); a column of
            ``column_na_values`` given in ``values`` has its markers replaced, the others keep
            theirs.

        Raises
        ------
        InputError
            An unknown key, naming it; a bad value, naming its field as ``where`` spells it.
        """
        known = [f.name for f in fields(cls)]
        given = {str(k): v for k, v in values.items() if v is not None}
        base = base or cls()
        for key in given:
            if key not in known:
                raise InputError(
                    f"{_label(where, key)}: unknown read option; known: {', '.join(known)}"
                )
        try:
            if "column_na_values" in given:  # (per column: the config's other columns kept)
                own = column_na_values(given["column_na_values"])
                given["column_na_values"] = {**base.by_column, **own}
            return replace(base, **given)
        except InputError as exc:
            raise InputError(_labelled(where, str(exc), known)) from None


def _label(where: str, key: str) -> str:
    """``read: key`` or ``--key`` (``where`` then a key; an empty key gives the prefix)."""
    if where == "--":
        return f"--{key.replace('_', '-')}" if key else "--"
    return f"{where}: {key}" if key else f"{where}: "


def _labelled(where: str, message: str, known: Sequence[str]) -> str:
    """A field's ``message`` (``sep: ...``) with the field named as ``where`` spells it
    (``read: sep: ...``, ``--sep: ...``; ``--column-na-values: ...`` for a flag)."""
    key, colon, rest = message.partition(":")
    if where == "--" and colon and key in known:
        return f"{_label(where, key)}:{rest}"
    return f"{_label(where, '')}{message}"


#: A scalar YAML reads or a flag gives as a missing-value marker (written as its text).
_SCALARS = (str, int, float)


def column_na_values(value: Any) -> dict[str, tuple[str, ...]]:
    """The missing-value markers of single columns, checked: column -> its markers as text
    (``{'educatn': ('99', '98')}``), in the order given, each once.

    Parameters
    ----------
    value : mapping, sequence of pairs or None
        Column -> a list of markers (a single marker alone too), as a config's
        ``column_na_values: {educatn: ['99', '98']}`` gives them; a column name may be a
        number (a file read without a header names its columns 0, 1, 2, ...). None: none.

    Returns
    -------
    dict of str to tuple of str
        A column given an empty list is kept, with no marker (it overrides another source's).

    Raises
    ------
    InputError
        Not a mapping; a column that is not named; markers that are not a list of texts or
        numbers; the message names the option (``column_na_values:``) and the column.

    Examples
    --------
    >>> column_na_values({"kids": [98, 99]})
    {'kids': ('98', '99')}
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2 for p in value
    ):
        pairs = [tuple(p) for p in value]
    else:
        raise InputError(
            "column_na_values: give a mapping of column to missing-value markers, e.g. "
            f"{{educatn: ['98', '99']}}; got {value!r}"
        )
    out: dict[str, tuple[str, ...]] = {}
    for column, markers in pairs:
        if isinstance(column, bool) or not isinstance(column, (str, int)) or column == "":
            raise InputError(f"column_na_values: {column!r} is not a column name")
        name = str(column)
        listed = [markers] if isinstance(markers, _SCALARS) else markers
        if not isinstance(listed, (list, tuple)) or not all(
            isinstance(m, _SCALARS) for m in listed
        ):
            raise InputError(
                f"column_na_values: {name}: give a list of missing-value markers, e.g. "
                f"['98', '99']; got {markers!r}"
            )
        out[name] = tuple(dict.fromkeys([*out.get(name, ()), *(str(m) for m in listed)]))
    return out


def column_na_values_text(given: Iterable[str], label: str) -> dict[str, list[str]]:
    """Markers of single columns written as text, ``COLUMN=V1,V2`` each (the flags
    ``--column-na-values``, a form's field): column -> its markers (a column given twice gets
    the markers of both; ``COLUMN=`` alone gives it none, which replaces another source's).

    Parameters
    ----------
    given : iterable of str
        One ``COLUMN=V1,V2`` each; the name ends at the first ``=``, the markers are separated
        by commas (spaces around either are no part of them).
    label : str
        How messages name the option (``--column-na-values``).

    Raises
    ------
    InputError
        A text without ``=`` or without a column, naming it.

    Examples
    --------
    >>> column_na_values_text(["kids=98,99", "educatn= 99"], "--column-na-values")
    {'kids': ['98', '99'], 'educatn': ['99']}
    """
    out: dict[str, list[str]] = {}
    for text in given:
        column, equals, markers = text.partition("=")
        if not equals or not column.strip():
            raise InputError(f"{label}: give COLUMN=V1,V2 (e.g. educatn=98,99), got {text!r}")
        listed = out.setdefault(column.strip(), [])
        listed += [m for m in (v.strip() for v in markers.split(",")) if m and m not in listed]
    return out


def markers_of(
    column: Any, na_values: Sequence[str], by_column: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The missing-value markers of one column: those of every column (``na_values``), then
    its own (``by_column``, found by the column's name as text: ``0`` for a file's first
    column read without a header) that are not among them.

    Examples
    --------
    >>> markers_of("kids", ["NA"], {"kids": ("98", "99")})
    ['NA', '98', '99']
    >>> markers_of("hours", ["NA"], {"kids": ("98", "99")})
    ['NA']
    """
    own = (by_column or {}).get(str(column), ())
    return [*na_values, *(m for m in own if m not in na_values)]


def markers_at(
    columns: Sequence[Any], positions: Iterable[int], by_column: Mapping[str, Sequence[str]] | None
) -> dict[int, Sequence[str]]:
    """The own markers (``by_column``) of the columns at ``positions`` of ``columns`` (a
    column's name compared as text) that have any, by position, as :func:`whole_written` takes
    them.

    Examples
    --------
    >>> markers_at(["kids", "hours"], [0, 1], {"kids": ("98",)})
    {0: ('98',)}
    """
    own = by_column or {}
    return {i: own[str(columns[i])] for i in positions if str(columns[i]) in own}


def check_marked_columns(
    columns: Iterable[Any], by_column: Mapping[str, Sequence[str]] | None, source: Any
) -> None:
    """Refuse markers of a column the data lack (a misspelt name would mark nothing).

    Parameters
    ----------
    columns : iterable
        The data's columns (a column's name compared as text).
    by_column : mapping of str to sequence of str, optional
        The markers of single columns (:attr:`ReadOptions.by_column`).
    source : object
        The data, as the message names them (a path).

    Raises
    ------
    InputError
        One line naming the absent columns and some of the data's.
    """
    present = [str(c) for c in columns]
    absent = [c for c in by_column or {} if c not in set(present)]
    if not absent:
        return
    shown = ", ".join(present[:_SHOWN]) + (", ..." if len(present) > _SHOWN else "")
    raise InputError(
        f"column_na_values (--column-na-values): {source} has no column "
        f"{', '.join(map(repr, absent))} (its columns: {shown})"
    )


#: The data's columns a message names at most.
_SHOWN = 12


def csv_na_values(
    names: Sequence[Any], missing: Sequence[str], by_column: Mapping[str, Sequence[str]] | None
) -> list[str] | dict[Any, list[str]]:
    """The ``na_values`` argument of pandas' readers of text (:func:`pandas.read_csv`, a CSV
    block out of core, :func:`pandas.read_excel`): ``missing`` (the empty field and the
    ``na_values``) as a list when no column has markers of its own; else each column's
    markers (:func:`markers_of`) by its name, every column named (pandas reads a column a
    mapping leaves out without any marker, its empty fields as values). pandas marks a
    column's cells by its list as it marks every column's by one list: a field equal to a
    marker, or a number equal to a marker read as a number.

    Parameters
    ----------
    names : sequence
        The columns as pandas names them (``Unnamed: 3`` for an empty header field; 0, 1,
        2, ... without a header).
    missing : sequence of str
        The markers of every column.
    by_column : mapping of str to sequence of str, optional
        The markers of single columns.
    """
    if not by_column:
        return list(missing)
    return {name: markers_of(name, missing, by_column) for name in names}


#: A number written with a decimal comma (thousands separated by dots or not): ``1186,2``,
#: ``-0,5``, ``1.234,56``.
_DECIMAL_COMMA = re.compile(r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+")
_WHOLE = re.compile(r"[+-]?\d+")
#: Values looked at per column.
_SAMPLE = 1000
#: The share of a column's values that must be such numbers (or whole numbers).
_SHARE = 0.9


def reading_hint(value: Any) -> str:
    """The hint for a value that is a number written with a decimal comma, or a missing-value
    marker of other software (:data:`~microanon.core.missing.MISSING_MARKERS`: R's ``NA``),
    else ``""``."""
    if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value.strip()):
        return (
            f"; {value!r} looks like a number with a decimal comma: read the file with "
            "--decimal , (in a config: read: {decimal: ','})"
        )
    if isinstance(value, str) and value.strip() in MISSING_MARKERS:
        marker = value.strip()
        return (
            f"; {value!r} is how other software writes a missing value (R writes NA): read the "
            f"file with --na-values {shlex.quote(marker)} (in a config: na_values: [{marker!r}])"
        )
    return ""


def decimal_comma_columns(frame: Any) -> dict[str, str]:
    """The text columns of ``frame`` whose values are numbers written with a decimal comma
    (at least :data:`_SHARE` of the first :data:`_SAMPLE` present values such numbers or whole
    numbers, one of them with a comma): column -> one such value."""
    import pandas as pd

    found = {}
    for name in frame.columns:
        column = frame[name]
        if not (pd.api.types.is_object_dtype(column) or isinstance(column.dtype, pd.StringDtype)):
            continue
        values = column.dropna().iloc[:_SAMPLE].astype(str).str.strip()
        if not len(values):
            continue
        comma = values.str.fullmatch(_DECIMAL_COMMA)
        whole = values.str.fullmatch(_WHOLE)
        if comma.any() and (comma | whole).mean() >= _SHARE:
            found[str(name)] = str(values[comma].iloc[0])
    return found


@dataclass(frozen=True)
class MarkerColumn:
    """A column holding a common missing-value marker (:func:`missing_marker_columns`): a text
    column holding a text other software writes for a missing value, or a column of numbers
    holding a survey's negative missing-value codes below its other values.

    Attributes
    ----------
    marker : str
        The marker, as the file writes it (``NA``; ``-9,-8`` for codes, the most frequent
        first).
    rows : int
        The rows holding it.
    numbers : bool
        Whether every other value of the column is a number (it was read as text only because
        of the marker; always true of codes).
    lowest : float or None
        For codes, the smallest of the column's other values, none of them below 0 (None for a
        text marker).
    highest : float or None
        For codes, the largest of the column's other values (None for a text marker).
    """

    marker: str
    rows: int
    numbers: bool
    lowest: float | None = None
    highest: float | None = None

    @property
    def where(self) -> str:
        """Where a column's codes lie beside its other values: ``below``, ``above`` (the
        top codes) or ``below and above`` (empty for a text marker)."""
        if self.lowest is None:
            return ""
        signs = {float(code) < 0 for code in self.marker.split(",")}
        return " and ".join(w for w, sign in (("below", True), ("above", False)) if sign in signs)


@dataclass(frozen=True)
class MarkerTally:
    """What :func:`missing_marker_columns` needs of a column, counted on some of its rows
    (:func:`marker_tallies`): the tallies of a table's parts, merged in the parts' order
    (:meth:`merged`), are the whole table's.

    Attributes
    ----------
    markers : tuple of (str, int)
        Each distinct value whose text, stripped, is one of :data:`MISSING_MARKERS` (as the
        column holds it, ``str(value)``), in order of first appearance, with its rows; of a
        column of numbers, each of :data:`CODES` it holds (as text, ``-9``).
    others : bool
        Whether the column holds another value.
    numbers : bool
        Whether every other value is a number (true when there is none).
    lowest, highest : float or None
        Of a column of numbers, the smallest and largest of its other values (None for text,
        or when there is none).
    coded : bool
        Whether the column is one of numbers (its markers are codes).
    """

    markers: tuple[tuple[str, int], ...] = ()
    others: bool = False
    numbers: bool = True
    lowest: float | None = None
    coded: bool = False
    highest: float | None = None

    @classmethod
    def merged(cls, tallies: Iterable[MarkerTally]) -> MarkerTally:
        """The tally of the rows of several parts (``tallies`` in the parts' order): the rows
        of each marker summed, its first appearance kept; numbers when every part's other
        values are; the smallest other value of a column of numbers over every part."""
        rows: dict[str, int] = {}
        others, numbers, coded = False, True, False
        lows: list[float] = []
        highs: list[float] = []
        for tally in tallies:
            for text, count in tally.markers:
                rows[text] = rows.get(text, 0) + count
            others |= tally.others
            numbers &= tally.numbers
            coded |= tally.coded
            if tally.lowest is not None and tally.highest is not None:
                lows.append(tally.lowest)
                highs.append(tally.highest)
        low, high = (min(lows), max(highs)) if lows else (None, None)
        return cls(tuple(rows.items()), others, numbers, low, coded, high)

    def column(self) -> MarkerColumn | None:
        """The column's most frequent marker (the first to appear of equally frequent ones),
        its rows and whether the column is numbers otherwise; None when it holds none (a
        ``.`` is one only among numbers). For a column of numbers, its codes (:data:`CODES`)
        when its other values are none below 0 and more than one above the highest code."""
        if self.coded:
            return self._codes()
        numbers = self.others and self.numbers
        held = [(t, n) for t, n in self.markers if numbers or t.strip() != "."]
        if not held:
            return None
        text, rows = max(held, key=lambda pair: pair[1])  # (the first of a tie)
        return MarkerColumn(text.strip(), rows, numbers)

    def _codes(self) -> MarkerColumn | None:
        """:meth:`column` of a column of numbers."""
        if not self.markers or self.lowest is None or self.highest is None or self.lowest < 0:
            return None
        below = [(t, n) for t, n in self.markers if float(t) < 0]
        above = [(t, n) for t, n in self.markers if float(t) > 0]
        if below and max(float(t) for t, _ in below) >= self.lowest - 1:
            below = []  # (no gap: -1 beside 0, 1, 2 may be a value)
        if [t for t, _ in below] == ["-1"] and self.lowest == self.highest:
            below = []  # (-1 and one other value: a loss and a win, -1 and 1)
        if above and self.highest > TOP_GAP * min(float(t) for t, _ in above):
            above = []  # (no gap: 99 beside 95 and 96 may be an age)
        if not (below or above):
            return None
        # the most frequent first, of a tie the highest (-1 before -9): whatever the parts
        held = sorted(below + above, key=lambda pair: (-pair[1], -float(pair[0])))
        text = ",".join(t for t, _ in held)
        return MarkerColumn(text, sum(n for _, n in held), True, self.lowest, self.highest)


#: The negative whole numbers surveys write for a missing answer (refused, don't know, not
#: asked: -9, -8, -7, ..., -99, -999), found in a column of numbers none of whose other values
#: is below 0 (:meth:`MarkerTally.column`).
CODES = (-1, -2, -3, -4, -5, -6, -7, -8, -9, -77, -88, -97, -98, -99, -999, -9999)

#: The codes surveys write for a missing answer above the answers (97 refused, 98 don't know,
#: 99 not asked; 997 to 999, 9997 to 9999), found in a column of numbers none of whose other
#: values is below 0 and whose largest is at most :data:`TOP_GAP` of the smallest such code
#: (:meth:`MarkerTally.column`): NESARC's drinks on a usual day, 1 to 48 beside 98 and 99.
TOP_CODES = (97, 98, 99, 997, 998, 999, 9997, 9998, 9999)

#: The largest other value of a column holding :data:`TOP_CODES`, as a share of the smallest
#: of them, for them to be codes: a gap (an age of 99 beside ages of 95 and 96 is an age, and
#: so are the American Community Survey's 99 hours of work a week beside 84: "99 or more").
TOP_GAP = 0.75


def _code_tally(column: Any, every: bool) -> MarkerTally | None:
    """The :class:`MarkerTally` of a column of numbers: its values among :data:`CODES` with
    their rows, and the smallest and largest of its other values (None when it holds no code,
    unless ``every``). Looked at on the column's distinct values (:func:`_distinct`: the codes a
    run made of it, when it made them), its rows counted for the codes alone."""
    import numpy as np

    values, rows = _distinct(column)
    numbers = np.asarray(values, dtype=float)
    at = np.flatnonzero(np.isin(numbers, (*CODES, *TOP_CODES)))
    if not (every or len(at)):
        return None
    at = at[np.argsort(-numbers[at], kind="stable")]  # -1 first, as the values are read
    markers = tuple(zip([f"{numbers[i]:.0f}" for i in at], rows(at.tolist()), strict=True))
    rest = np.delete(numbers, at)
    low, high = (float(rest.min()), float(rest.max())) if len(rest) else (None, None)
    return MarkerTally(markers, bool(len(rest)), True, low, coded=True, highest=high)


#: Distinct values tested as numbers at once before the rest (a column of text stops there).
_NUMBERS_FIRST = 64


def _all_numbers(texts: Sequence[str]) -> bool:
    """Whether every text is a number as :func:`pandas.to_numeric` reads one (true for none)."""
    import pandas as pd

    for chunk in (texts[:_NUMBERS_FIRST], texts[_NUMBERS_FIRST:]):
        if len(chunk) and pd.to_numeric(pd.Series(chunk), errors="coerce").isna().any():
            return False
    return True


def _text_column(column: Any) -> bool:
    """Whether a column holds text: objects, strings, or categories of either."""
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):  # (a text column of a Parquet file, out of core)
        dtype = dtype.categories.dtype
    return pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype)


def marker_tallies(
    frame: Any, columns: Sequence[str] | None = None, every: bool = False
) -> dict[str, MarkerTally]:
    """The :class:`MarkerTally` of each text column of ``frame`` (or of ``columns``) that holds
    one of :data:`MISSING_MARKERS`, and of each column of numbers that holds one of
    :data:`CODES`, or of every text column and column of numbers (``every``: a part of a table,
    whose other parts may hold one). Each distinct text value is looked at once.

    Parameters
    ----------
    frame : DataFrame
    columns : sequence of str, optional
        The columns looked at, in this order (default: every one).
    every : bool
        Tally the text columns without a marker too.
    """
    import pandas as pd

    found = {}
    for name in frame.columns if columns is None else columns:
        column = frame[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            tally = _code_tally(column, every)
            if tally is not None:
                found[str(name)] = tally
            continue
        if not _text_column(column):
            continue
        values, rows = _distinct(column)
        texts = [str(v) for v in values]
        stripped = [t.strip() for t in texts]
        held = [i for i, t in enumerate(stripped) if t in MISSING_MARKERS]
        if not (every or held):
            continue
        others = [t for i, t in enumerate(stripped) if i not in held]
        markers = tuple(zip([texts[i] for i in held], rows(held), strict=True))
        found[str(name)] = MarkerTally(markers, bool(others), _all_numbers(others))
    return found


def _distinct(column: Any) -> tuple[list[Any], Callable[[list[int]], list[int]]]:
    """A column's distinct values in order of first appearance (missing values left out), and
    the rows of those at some positions among them: from the codes a run made of the column
    when it read it (:func:`~microanon.core.factorize.coded`), else from its distinct values
    alone (no code per row), each value's rows counted when asked."""
    import pandas as pd

    from .factorize import code_counts, coded

    known = coded(column)
    if known is not None:
        codes, uniques = known

        def counted(at: list[int]) -> list[int]:
            counts = code_counts(codes[codes >= 0], len(uniques)) if at else []
            return [int(counts[i]) for i in at]

        return list(uniques), counted
    distinct = pd.Series(column.unique())
    values = list(distinct[distinct.notna()])

    def compared(at: list[int]) -> list[int]:
        return [int(column.eq(values[i]).sum()) for i in at]

    return values, compared


def marker_columns(
    parts: Iterable[Mapping[str, MarkerTally]], columns: Sequence[str]
) -> dict[str, MarkerColumn]:
    """The columns holding a missing-value marker over a table's parts: each part's
    :func:`marker_tallies` (``every=True``), in the parts' order, merged per column of
    ``columns`` (in that order), as :func:`missing_marker_columns` finds them in the whole
    table."""
    parts = list(parts)
    found = {}
    for name in columns:
        tallies = [part[name] for part in parts if name in part]
        if tallies:
            column = MarkerTally.merged(tallies).column()
            if column is not None:
                found[name] = column
    return found


def missing_marker_columns(frame: Any) -> dict[str, MarkerColumn]:
    """The text columns of ``frame`` that hold one of :data:`MISSING_MARKERS` as a value:
    column -> the marker, its rows and whether the column is numbers otherwise.

    A file written by R (``NA``) and read without ``na_values`` holds the marker as an answer of
    its own: a column of numbers becomes text, and its missing values are counted as none. Each
    distinct value is looked at once; a column holding several markers is named with the most
    frequent (:meth:`MarkerTally.column`)."""
    found = {}
    for name, tally in marker_tallies(frame).items():
        column = tally.column()
        if column is not None:
            found[name] = column
    return found


def missing_marker_warnings(
    frame: Any,
    reader: str,
    remedy: str,
    columns: Sequence[str] | None = None,
    coded: str | None = None,
) -> list[str]:
    """The warnings on the columns of ``frame`` (or of ``columns``) that hold a text other
    software writes for a missing value (:func:`missing_marker_columns`, worded by
    :func:`marker_warnings`).

    Parameters
    ----------
    frame : DataFrame
    reader, remedy, coded
        As :func:`marker_warnings` takes them.
    columns : sequence of str, optional
        The columns looked at (default: every one).
    """
    table = frame if columns is None else frame.loc[:, list(columns)]
    return marker_warnings(missing_marker_columns(table), reader, remedy, coded)


def marker_warnings(
    found: Mapping[str, MarkerColumn], reader: str, remedy: str, coded: str | None = None
) -> list[str]:
    """The warnings on columns holding a text other software writes for a missing value: read
    as an answer of its own, it is profiled, proposed and published as one, and a column of
    numbers becomes categories. One warning per marker and kind of column, naming each column
    and its rows.

    Parameters
    ----------
    found : mapping of str to MarkerColumn
        The columns, in the order they are named (:func:`missing_marker_columns`,
        :func:`marker_columns`).
    reader : str
        Who read the file so (``"init"``).
    remedy : str
        What to do, with ``{marker}`` (the marker quoted as Python writes it) and ``{option}``
        (quoted for a shell) in it: the markers of every column (``na_values``), for a text
        other software writes for a missing value in any column (R's ``NA``).
    coded : str, optional
        What to do with a survey's codes (:data:`CODES`, :data:`TOP_CODES`), which are
        missing answers in the columns named and may be values in others (``98`` hours
        worked): with ``{options}`` (``--column-na-values COLUMN=CODES`` per column, quoted
        for a shell), ``{entries}`` (the config's ``column_na_values`` mapping, in YAML's
        flow style) or ``{pairs}`` (``COLUMN=CODES`` per column, separated by ``;``) in it.
        Default: ``remedy``, the codes as markers of every column.
    """
    groups: dict[tuple[str, bool, str], list[str]] = {}
    for column, marked in found.items():
        groups.setdefault((marked.marker, marked.numbers, marked.where), []).append(column)
    out = []
    for (marker, numbers, where), columns in groups.items():
        many = len(columns) > 1
        named = [_named(column, found[column]) for column in columns]
        if where:
            listed = marker.split(",")
            one = len(listed) == 1
            quoted = ", ".join(repr(c) for c in listed)
            todo = (
                remedy.format(marker=quoted, option=shlex.quote(marker))
                if coded is None
                else coded.format(
                    options=column_na_options(columns, marker),
                    entries=column_na_entries(columns, listed),
                    pairs="; ".join(f"{c}={marker}" for c in columns),
                )
            )
            kind = "a negative code" if where == "below" else "a code"
            out.append(
                f"column{'s' if many else ''} {', '.join(named)} hold{'' if many else 's'} "
                f"{', '.join(listed)}, {kind if one else kind[2:] + 's'} {where} "
                "every other value, as surveys write a missing answer (refused, don't know, "
                f"not asked): {reader} read {'it as a number' if one else 'them as numbers'}, "
                "which a hierarchy puts in an interval and a release publishes; if "
                f"{'it marks' if one else 'they mark'} missing values, {todo}"
            )
            continue
        held = "numbers and the text" if numbers else "the value"
        read = f"{'them' if many else 'it'} as text and " if numbers else ""
        todo = remedy.format(marker=repr(marker), option=shlex.quote(marker))
        out.append(
            f"column{'s' if many else ''} {', '.join(named)} hold{'' if many else 's'} {held} "
            f"{marker!r}, which other software writes for a missing value (R writes NA): "
            f"{reader} read {read}{marker!r} as an answer of its own, not as a missing value; "
            f"if it marks missing values, {todo}"
        )
    return out


def _named(column: str, marked: MarkerColumn) -> str:
    """A column as a warning names it: its name and its rows (and a coded column's other
    values)."""
    return f"{column!r} ({how_many(marked.rows, 'row')}{_others(marked)})"


def column_na_options(columns: Sequence[str], marker: str) -> str:
    """``--column-na-values COLUMN=CODES`` for each of ``columns``, quoted for a shell.

    Examples
    --------
    >>> column_na_options(["kids", "educatn"], "98,99")
    '--column-na-values kids=98,99 --column-na-values educatn=98,99'
    """
    return " ".join(f"--column-na-values {shlex.quote(f'{c}={marker}')}" for c in columns)


def column_na_entries(columns: Sequence[str], markers: Sequence[str]) -> str:
    """A config's ``column_na_values`` giving each of ``columns`` the ``markers``, in YAML's
    flow style.

    Examples
    --------
    >>> column_na_entries(["educatn"], ["99", "98"])
    "{educatn: ['99', '98']}"
    """
    import yaml

    entries = {c: list(markers) for c in columns}
    text = yaml.safe_dump(entries, default_flow_style=True, width=10**9, sort_keys=False)
    return text.strip()


def _others(marked: MarkerColumn) -> str:
    """What a warning says of a coded column's other values (nothing of a text marker's)."""
    if marked.lowest is None or marked.highest is None:
        return ""
    low, high = f"{marked.lowest:g}", f"{marked.highest:g}"
    return {
        "below": f"; its other values {low} and up",
        "above": f"; its other values up to {high}",
    }.get(marked.where, f"; its other values {low} to {high}")


def na_marked(column: Any, markers: Sequence[str]) -> Any:
    """A column of a file read typed (Parquet, Feather, SPSS, Stata, SAS) with the cells
    ``markers`` (the ``na_values``) mark missing: a text cell (a value label, an unlabelled
    code's text) equal to a marker, and a number equal to a marker read as a number (``99``
    marks 99 and 99.0, ``-9`` marks -9), as the same markers mark a CSV file's fields. Any other
    column as it is."""
    import pandas as pd

    if not markers or not len(column):
        return column
    kind = column.dtype
    if isinstance(kind, pd.CategoricalDtype):  # (text read dictionary-encoded, out of core)
        kind = kind.categories.dtype
    text = pd.api.types.is_object_dtype(kind) or pd.api.types.is_string_dtype(kind)
    if pd.api.types.is_bool_dtype(kind) or not (text or pd.api.types.is_numeric_dtype(kind)):
        return column  # (dates, times of day: no marker is one)
    wanted = list(markers) if text else [n for n in map(_as_number, markers) if n is not None]
    hit = column.isin(wanted).to_numpy(dtype=bool)  # (a text equals text only: "99" is not 99)
    return column.mask(hit) if hit.any() else column


def _as_number(text: str) -> float | None:
    """``text`` as a finite number, or None."""
    import math

    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def marked_frame(
    frame: Any, markers: Sequence[str], by_column: Mapping[str, Sequence[str]] | None = None
) -> Any:
    """A table read from a Parquet or Feather file with the cells its markers mark missing
    (:func:`na_marked`): ``markers`` in every column, ``by_column`` in the columns it names
    (:func:`markers_of`; a column it names that ``frame`` lacks is passed by: a part of a
    table may hold some columns only). Each column given a marker is read as pandas'
    nullable integers if it holds integers (whether or not it holds a marker: so that every
    part of a table read in parts, out of core, has the type the whole has in memory); a
    column given none is left as it is. Without markers, ``frame``."""
    import pandas as pd

    if not markers and not by_column:
        return frame
    out = frame.copy()
    for i in range(out.shape[1]):
        own = markers_of(out.columns[i], markers, by_column)
        if not own:
            continue
        values = out.iloc[:, i]
        if pd.api.types.is_integer_dtype(values) and not pd.api.types.is_bool_dtype(values):
            values = values.astype("Int64")
        out.isetitem(i, na_marked(values, own))
    return out


#: A code written with a leading zero (``02139``, ``007``): digits only, the first a 0.
_ZERO_LED = re.compile(r"0\d+")
_DIGITS = re.compile(r"\d+")


def zero_led_codes(sample: str, csv_options: Mapping[str, Any], header: bool = True) -> list[Any]:
    """The columns of a CSV file to read as text, not numbers: those its first lines
    (``sample``) write as digit codes some of which start with ``0`` (ZIP codes such as
    ``02139``, area or region codes). Read as numbers they would lose that zero, and a release
    would publish ``2139``, a value the data do not hold.

    Parameters
    ----------
    sample : str
        The file's first characters (a last line cut short is left out).
    csv_options : mapping
        How :func:`pandas.read_csv` reads the file (``sep``, ``decimal``, ``quotechar``, ...;
        ``encoding`` is not used: the sample is text already).
    header : bool, default True
        Whether the first line names the columns.

    Returns
    -------
    list
        The columns' names (positions without a header).
    """
    import io

    import pandas as pd

    # (a carriage return ends no line where the file is read with line feeds alone ending them)
    feeds = csv_options.get("lineterminator") == "\n"
    lines = sample.split("\n") if feeds else sample.splitlines()
    lines = lines[:-1] if len(lines) > 2 else lines
    options = {k: v for k, v in csv_options.items() if k not in ("encoding", "keep_default_na")}
    try:
        with WARNING_FILTERS, warnings.catch_warnings():  # (the full read says what is wrong)
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            head = pd.read_csv(
                io.StringIO("\n".join(lines)),
                header=0 if header else None,
                dtype=str,
                keep_default_na=False,
                index_col=False,
                **options,
            )
    except (ValueError, pd.errors.ParserError):
        return []  # (the full read says what is wrong)
    out = []
    for column in head.columns:
        values = [v.strip() for v in head[column] if v.strip()]
        if values and all(_DIGITS.fullmatch(v) for v in values):
            if any(_ZERO_LED.fullmatch(v) for v in values):
                out.append(column)
    return out


def csv_opener(path: Any) -> Any:
    """How to open a CSV file: :func:`open`, or the function that decompresses it when its
    suffix is ``.gz``, ``.bz2`` or ``.xz`` (taking the same arguments)."""
    import bz2
    import gzip
    import lzma
    from pathlib import Path

    return {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        Path(path).suffix.lower(), open
    )


def whole_floats(values: Any) -> bool:
    """Whether the known (not NaN) values of a float array are whole numbers that int64 and
    a double both hold exactly (at most 2**53 in magnitude)."""
    import numpy as np

    held = values[~np.isnan(values)]
    return bool(
        np.isfinite(held).all()
        and (np.abs(held) <= 2.0**53).all()
        and (held == np.trunc(held)).all()
    )


#: A field written as a whole number (``3``, ``-12``; never ``3.0``).
_WHOLE_FIELD = r"^\s*[+-]?\d+\s*$"


def whole_written(
    source: Any,
    positions: Sequence[int],
    csv_options: Mapping[str, Any],
    na_values: Sequence[str],
    header: bool = True,
    own: Mapping[int, Sequence[str]] | None = None,
) -> list[int]:
    """Of the CSV columns at ``positions`` (0-based), those whose every field that is not
    missing is written as a whole number (``3``, never ``3.0``) and that hold one at least:
    answer codes that a reader takes for decimals only because some answers are missing.

    The fields are read as text by pyarrow (a few times faster than pandas for a few columns of
    many lines; about 0.1 s a column of 10⁶ lines).

    Parameters
    ----------
    source : path or binary file-like
        The CSV file (compressed or not: :func:`csv_opener`), or its first lines (a last line
        cut short left out).
    positions : sequence of int
        The columns to look at.
    csv_options : mapping
        ``sep``, ``encoding``, ``quotechar`` as :func:`pandas.read_csv` takes them.
    na_values : sequence of str
        The fields that are missing values.
    header : bool, default True
        Whether the first line names the columns.
    own : mapping of int to sequence of str, optional
        Position -> the fields that are missing values in that column alone (its
        ``column_na_values``).

    Returns
    -------
    list of int
        The positions whose fields are whole numbers; none when pyarrow cannot split the file
        (the columns stay as they were read).
    """
    if not positions:
        return []
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    names = {p: f"f{p}" for p in positions}
    if isinstance(source, (str, os.PathLike)):
        with csv_opener(source)(source, "rb") as fh:
            return whole_written(fh, positions, csv_options, na_values, header, own)
    try:
        text = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(
                encoding=csv_options["encoding"],
                autogenerate_column_names=True,
                skip_rows=1 if header else 0,
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=csv_options["sep"],
                quote_char=csv_options["quotechar"],
                newlines_in_values=True,  # (a quoted line break, as pandas reads one)
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=list(names.values()),
                column_types=dict.fromkeys(names.values(), pa.string()),
                strings_can_be_null=True,
                null_values=[str(v) for v in na_values],
            ),
        )
    except (pa.ArrowException, OSError, ValueError):
        return []
    found = []
    for p, name in names.items():
        held = text.column(name).drop_null()
        marked = [str(v) for v in (own or {}).get(p, ())]
        if marked:  # (the column's own markers: missing in it alone)
            held = held.filter(pc.invert(pc.is_in(held, value_set=pa.array(marked))))
        if len(held) and pc.all(pc.match_substring_regex(held, _WHOLE_FIELD)).as_py():
            found.append(p)
    return found
