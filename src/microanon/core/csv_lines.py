"""A line of a CSV file cut short: fewer fields than the header names.

pandas reads such a line as a record whose last fields are missing, and says nothing: a file
copied or written in part (a download stopped, a disk full) would enter a release with a
record that no respondent gave. :func:`short_line` finds the first one, so that the readers
refuse the file instead (a line with more fields than the header is refused by pandas itself).

A file without a quote character is read as bytes: its lines hold as many separators as
fields less one, and the whole file as many as its lines do together, which one count tells;
the lines are looked at one by one only when that count differs. A file with quotes (where a
separator or a line break may be inside a value) is parsed by pyarrow, one thread, which
numbers the lines it finds short.

A carriage return inside a value (pandas' own ``to_csv`` writes one unquoted: a tweet's text in
dslabs' ``trump_tweets``) ends a line for pandas' and pyarrow's readers alike, cutting its
record in two. In a file whose lines end with a line feed alone
(:func:`values_hold_carriage_returns`) it is a value's character, and the file is read so.
"""

from __future__ import annotations

import codecs
import io
import mmap
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np

from .reading import csv_opener

__all__ = ["ShortLine", "short_line", "values_hold_carriage_returns", "without_carriage_returns"]


class ShortLine(NamedTuple):
    """The first line of a CSV file with fewer fields than it should hold."""

    number: int | None  # (1 for the file's first; None where the parser does not tell)
    fields: int
    expected: int
    #: What ``number`` counts: ``"line"``, the file's lines; ``"row"``, its rows, the header,
    #: when there is one, row 1 (a quoted value may hold a line break; a blank line is none).
    unit: str = "line"

    def message(self, path: str | Path) -> str:
        """The one-line error of a reader that refuses the file."""
        where = "a line" if self.number is None else f"{self.unit} {self.number:,}"
        return (
            f"cannot read {path}: {where} holds {self.fields} field(s) where its lines hold "
            f"{self.expected}, so it would be read as a record with missing values; it may be "
            "a line cut short (a file copied or written in part): complete it or remove it"
        )


def short_line(
    path: str | Path,
    columns: int,
    sep: str,
    quotechar: str = '"',
    encoding: str = "utf-8",
    header: bool = True,
    blanked: BinaryIO | None = None,
) -> ShortLine | None:
    """The first line of the CSV file at ``path`` that holds fewer than ``columns`` fields
    (blank lines, which the readers skip, aside), or None.

    Parameters
    ----------
    path : path
        A CSV file; a compressed one (``.gz``, ``.bz2``, ``.xz``) is parsed by pyarrow.
    columns : int
        The fields each line holds: the header's names (or the first line's fields).
    sep, quotechar : str
        The separator and the quote character the file was read with (one character each;
        another separator, a pattern, is not looked at).
    encoding : str
        The file's encoding; one that does not write the separator, the quote character and
        the line feed as one byte each (UTF-16) is not looked at.
    header : bool
        Whether the first line is the header.
    blanked : binary file-like, optional
        The file's bytes with its carriage returns blanked (:func:`without_carriage_returns`),
        where the caller found that its values hold some
        (:func:`values_hold_carriage_returns`) and read them already; otherwise the file is
        looked at for them here, when pyarrow parses it.
    """
    if columns < 2 or len(sep) != 1 or not _single_bytes(encoding, sep, quotechar):
        return None
    path = Path(path)
    if path.suffix.lower() in (".gz", ".bz2", ".xz") or not path.stat().st_size:
        return _parsed(path, columns, sep, quotechar, encoding, header, blanked)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(quotechar.encode(encoding)) >= 0:
            quoted = True
        else:
            quoted = False
            view = np.frombuffer(data, dtype=np.uint8)
            try:
                found = _unquoted(view, columns, ord(sep.encode(encoding)))
            finally:
                del view  # (the map closes only when no array holds it)
    if quoted:
        return _parsed(path, columns, sep, quotechar, encoding, header, blanked)
    return found


def values_hold_carriage_returns(path: str | Path, encoding: str = "utf-8") -> bool:
    """Whether the CSV file at ``path`` ends its lines with a line feed alone and holds a
    carriage return elsewhere, inside a value: such a file is read with the line feed alone
    ending its lines. Not a file whose lines end with a carriage return and a line feed
    (Windows) or with a carriage return alone (classic Mac OS), a compressed or empty file, or
    one in an encoding that does not write them as one byte each (UTF-16)."""
    path = Path(path)
    if path.suffix.lower() in (".gz", ".bz2", ".xz") or not path.stat().st_size:
        return False
    if not _single_bytes(encoding, "\r"):
        return False
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(b"\r") >= 0 and data.find(b"\r\n") < 0 and data.find(b"\n") >= 0


def without_carriage_returns(path: str | Path) -> io.BytesIO:
    """The bytes of the file at ``path`` with each carriage return a space: what pyarrow's
    parser, which ends a line at a carriage return too, splits into the lines and fields that
    pandas reads from a file of :func:`values_hold_carriage_returns` (the values that held a
    carriage return aside)."""
    return io.BytesIO(Path(path).read_bytes().replace(b"\r", b" "))


def _single_bytes(encoding: str, *texts: str) -> bool:
    try:
        codec = codecs.lookup(encoding)
        return all(len(codec.encode(t)[0]) == 1 for t in (*texts, "\n"))
    except (LookupError, UnicodeError):
        return False


def _unquoted(data: np.ndarray, columns: int, sep: int) -> ShortLine | None:
    """:func:`short_line` of a file without quotes, as bytes."""
    lines = np.count_nonzero(data == ord("\n")) + int(data[-1] != ord("\n"))
    if np.count_nonzero(data == sep) == (columns - 1) * lines:
        return None  # (every line as many as the header: none short, none long, none blank)
    feeds = np.flatnonzero(data == ord("\n"))
    ends = feeds if len(feeds) and feeds[-1] == len(data) - 1 else np.append(feeds, len(data))
    separators = np.flatnonzero(data == sep)
    before = np.searchsorted(separators, ends)  # separators before each line's end
    per_line = np.diff(before, prepend=0)
    starts = np.concatenate(([0], ends[:-1] + 1))
    for line in np.flatnonzero(per_line < columns - 1):
        if bytes(data[starts[line] : ends[line]]).strip():  # (a blank line is skipped)
            return ShortLine(int(line) + 1, int(per_line[line]) + 1, columns)
    return None


def _parsed(
    path: Path,
    columns: int,
    sep: str,
    quotechar: str,
    encoding: str,
    header: bool,
    blanked: BinaryIO | None = None,
) -> ShortLine | None:
    """:func:`short_line` of a file with quotes, or compressed: pyarrow's parser, one thread
    (which numbers the lines), converting one column only."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    found: list[ShortLine] = []

    def invalid(row: pacsv.InvalidRow) -> str:
        blank = not (row.text or "").strip()  # (spaces alone: a line the readers skip)
        if row.actual_columns < row.expected_columns and not blank and not found:
            found.append(ShortLine(row.number, row.actual_columns, row.expected_columns, "row"))
        return "skip"

    names = [f"f{i}" for i in range(columns)]  # (every line held to the header's count)
    try:
        if blanked is None and values_hold_carriage_returns(path, encoding):
            blanked = without_carriage_returns(path)
        if blanked is not None:  # (its lines as pandas read them)
            blanked.seek(0)
            _read(blanked, names, sep, quotechar, encoding, header, invalid)
        else:
            with csv_opener(path)(path, "rb") as raw:  # (xz too, which pyarrow does not open)
                _read(raw, names, sep, quotechar, encoding, header, invalid)
    except (pa.ArrowInvalid, OSError, EOFError, UnicodeError):
        return None  # (what pandas read, pyarrow cannot split: not looked at further)
    return found[0] if found else None


def _read(
    raw: BinaryIO,
    names: list[str],
    sep: str,
    quotechar: str,
    encoding: str,
    header: bool,
    invalid: Callable[[Any], str],
) -> None:
    """pyarrow's parse of a CSV stream, one thread, ``invalid`` told of each row that does not
    hold as many fields as ``names``; the first column converted alone."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    pacsv.read_csv(
        raw,
        read_options=pacsv.ReadOptions(
            use_threads=False, encoding=encoding, column_names=names, skip_rows=int(header)
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=sep, quote_char=quotechar, invalid_row_handler=invalid
        ),
        convert_options=pacsv.ConvertOptions(
            include_columns=names[:1], column_types={names[0]: pa.string()}
        ),
    )
