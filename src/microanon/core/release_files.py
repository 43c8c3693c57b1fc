"""A release's tables as files and back, column by column with Arrow.

:func:`write_csv` writes a table in the CSV form pandas' ``to_csv(index=False)`` gives (the
fields of Python's :mod:`csv` module with minimal quoting, a carriage return quoted as well),
built with Arrow's compute functions from the columns themselves: a text column is formatted
once per distinct value, numbers by Arrow's cast. :func:`read_csv` reads such a file with every
field as text ("" stays ""), and :func:`restore` gives a column back the type the release's
manifest records, vectorized: the columns come back as :class:`~microanon.core.release.Release`
keeps them (text as an object column of str with None for a missing value, ``int64`` or
``Int64``, ``float64``, ``bool``), so that a loaded release needs no second conversion.
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .factorize import (
    KEY_LIMIT,
    both_zero_signs,
    coded,
    factorize,
    factorize_keys,
    first_rows,
    push_digit,
    remember,
    shared_result,
    sharing,
)
from .keys import moment_text
from .record_order import inverse_order

__all__ = [
    "RowOrder",
    "empty_text_rows",
    "read_csv",
    "restore",
    "text_codes",
    "value_text",
    "write_csv",
]

#: Rows formatted at a time. It bounds the memory the text of a table takes, and small chunks
#: reuse it: on 10⁶ rows of ten columns a chunk of 2¹⁸ rows formats 20–25 MB of fresh text per
#: part, whose first touch costs more than its formatting (writing 0.2–0.6 s against 0.2 s in
#: chunks of 2¹⁶ rows, with a column of many distinct numbers).
_CHUNK = 1 << 16
#: What makes a CSV field need quotes.
_NEEDS_QUOTES = re.compile(r'[,"\r\n]')
#: A field a reader takes for a blank line when it is alone on its line (pandas skips one of
#: spaces and tabs too): quoted there.
_BLANK = re.compile(r"[ \t]*")
#: Where Arrow writes a float as NumPy does (without an exponent; ".0" added to a whole number).
_FIXED = (1e-4, 1e10)

_TEXT = pa.large_string()
_EMPTY, _POINT_ZERO, _COMMA, _NEWLINE, _QUOTE = (
    pa.scalar(t, _TEXT) for t in ("", ".0", ",", "\n", '"')
)
_Fields = Callable[[int, int], pa.Array]
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def value_text(value: Any) -> str:
    """The text a release publishes for a value that is not text: ``str(value)``, except that
    a date and time at midnight without a time zone (a date read from a Stata, SPSS, SAS, Excel
    or Parquet file) is its date alone, ``2012-01-22`` rather than ``2012-01-22 00:00:00``
    (:func:`~microanon.core.keys.moment_text`)."""
    if type(value) is str:
        return value
    if isinstance(value, datetime):
        return moment_text(value)
    return str(value)


def text_codes(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a text column of str and None, and the text of each code (-1: missing)."""
    codes, uniques = factorize(s)
    return codes, np.asarray(uniques, dtype=object)


def empty_text_rows(column: pd.Series, codes: np.ndarray, uniques: np.ndarray) -> np.ndarray:
    """The rows of a text column (its :func:`text_codes` ``codes`` and ``uniques``) whose value
    is written as an empty field though it is not missing: the empty text. A file that writes
    a missing value as an empty field too needs them listed (see :func:`restore`)."""
    words = _words(column, uniques)[0]
    blank = np.flatnonzero(pc.equal(words, _EMPTY).to_numpy(zero_copy_only=False))
    if not len(blank):
        return np.empty(0, dtype=np.intp)
    return np.flatnonzero(codes == blank[0] if len(blank) == 1 else np.isin(codes, blank))


def _field(text: str) -> str:
    """``text`` as a CSV field: quoted, its quotes doubled, if it holds a comma, a quote or a
    line break."""
    return '"' + text.replace('"', '""') + '"' if _NEEDS_QUOTES.search(text) else text


#: A column as codes into the fields it writes: (codes, fields), missing values included.
_Coded = tuple[np.ndarray, pa.Array]


def _coded(codes: np.ndarray, fields: Sequence[str] | pa.Array) -> _Coded:
    """Codes -1 (missing) as one more field, empty."""
    words = pa.concat_arrays([pa.array(fields, _TEXT), pa.array([""], _TEXT)])
    if not len(codes) or codes.min() >= 0:
        return codes, words
    return np.where(codes < 0, len(words) - 1, codes), words


def _words(column: pd.Series, uniques: np.ndarray) -> tuple[pa.Array, bool]:
    """The distinct values ``uniques`` of a text column as Arrow text (``str`` of a value that
    is not one), and whether each is a ``str`` exactly: made once per column within a run
    (:func:`~microanon.core.factorize.shared_result`), for the writer and for the verification
    that compares the file read back with them."""

    def made() -> tuple[pa.Array, bool]:
        exact = set(map(type, uniques)) <= {str}
        texts = uniques if exact else [v if isinstance(v, str) else str(v) for v in uniques]
        return pa.array(texts, _TEXT), exact

    return shared_result([column], "release texts", made)


def _fields(words: pa.Array) -> pa.Array:
    """:func:`_field` of each text, with Arrow's compute functions: only the texts holding a
    comma, a quote or a line break are quoted."""
    quoted = pc.match_substring_regex(words, _NEEDS_QUOTES.pattern)
    if not pc.any(quoted).as_py():
        return words
    doubled = pc.replace_substring(words, '"', '""')
    return pc.if_else(quoted, pc.binary_join_element_wise(_QUOTE, doubled, _QUOTE, _EMPTY), words)


def _text_coded(column: pd.Series, codes: np.ndarray, uniques: np.ndarray) -> _Coded:
    return _coded(codes, _fields(_words(column, uniques)[0]))


def _int_coded(s: pd.Series) -> _Coded:
    codes, uniques = factorize(s)  # (kept for the verification and the reports)
    return _coded(codes, pc.cast(pa.array(uniques, from_pandas=True), _TEXT))


def _bool_coded(s: pd.Series) -> _Coded:
    codes, uniques = factorize(s)
    return _coded(codes, ["True" if v else "False" for v in uniques])


def _joined(run: Sequence[_Coded], limit: int) -> _Coded | None:
    """Consecutive coded columns as one, each combination of their fields written once; None
    when there are more than ``limit`` combinations."""
    key, space = run[0][0].astype(np.int64), len(run[0][1])
    for codes, words in run[1:]:
        if space * len(words) > KEY_LIMIT:  # renumber the combinations so far: they fit
            key, uniques = factorize_keys(key)
            if len(uniques) > limit:
                return None
            space = len(uniques)
        push_digit(key, codes, len(words))
        space *= len(words)
    code, uniques = factorize_keys(key)  # numbered in order of first row
    if len(uniques) > limit:
        return None
    first = first_rows(code, len(uniques))
    parts = [words.take(pa.array(codes[first])) for codes, words in run]
    return code, pc.binary_join_element_wise(*parts, _COMMA)


def _taken(coded: _Coded) -> _Fields:
    codes, words = coded
    return lambda a, b: words.take(pa.array(codes[a:b]))


def _float_text(v: np.ndarray) -> pa.Array:
    """Floats as pandas writes them (NumPy's ``str``, a missing value empty): Arrow's shortest
    text where it is the same (with ".0" added to a whole number), NumPy's elsewhere."""
    if v.dtype != np.float64:
        return pa.array(np.where(np.isnan(v), "", v.astype(str)), _TEXT)
    magnitude = np.abs(v)
    same = ((magnitude >= _FIXED[0]) & (magnitude < _FIXED[1])) | (v == 0)
    text = pc.cast(pa.array(v, from_pandas=True), _TEXT)  # NaN: null, written empty
    whole = same & (v == np.trunc(v))
    if whole.any():
        point = pc.binary_join_element_wise(text, _POINT_ZERO, _EMPTY)
        text = pc.if_else(pa.array(whole), point, text)
    other = ~same & np.isfinite(v)  # (Arrow and NumPy both write inf and -inf)
    if other.any():
        text = pc.replace_with_mask(text, pa.array(other), pa.array(v[other].astype(str), _TEXT))
    return text.fill_null(_EMPTY)


def _float_coded(s: pd.Series) -> _Coded | None:
    """A float64 column as codes of its distinct values, each formatted once (a missing value
    written empty); None for another type, or when it holds both 0.0 and -0.0 (equal values
    written apart: formatted row by row then)."""
    if s.dtype != np.float64:
        return None
    if both_zero_signs(s.to_numpy()):
        return None
    codes, uniques = factorize(s)  # (kept for the verification and the reports)
    return _coded(codes, _float_text(np.asarray(uniques, dtype=np.float64)))


def _float_fields(s: pd.Series, order: np.ndarray | None = None) -> _Fields:
    values = s.to_numpy(dtype=np.float64 if s.dtype == object else None, na_value=np.nan)
    if order is not None:
        values = values[order]
    return lambda a, b: _float_text(values[a:b])


def write_csv(
    df: pd.DataFrame,
    types: Mapping[str, str],
    path: Path,
    codes: Mapping[str, tuple[np.ndarray, np.ndarray]],
    order: np.ndarray | None = None,
) -> None:
    """Write ``df`` to ``path`` as pandas' ``to_csv(index=False)`` writes it.

    Parameters
    ----------
    df : DataFrame
        A release table (text columns of str and None).
    types : mapping of str to str
        Each column's type in the manifest (``string``, ``int``, ``float``, ``bool``).
    path : Path
    codes : mapping of str to (ndarray, ndarray)
        Each text column's :func:`text_codes`.
    order : int array, optional
        The rows in the order they are written (default: as they are): ``df.take(order)`` is
        written, from the codes of the columns (joined where they are written together) taken
        in that order.
    """
    coders = {"int": _int_coded, "bool": _bool_coded}
    parts: list[_Coded | _Fields] = []
    run: list[_Coded] = []  # consecutive columns of codes, written together
    for c, s in df.items():
        kind = types[str(c)]
        if kind == "float":
            parts += _run_parts(run, len(df))
            coded = _float_coded(s)
            parts.append(_float_fields(s, order) if coded is None else coded)
            run = []
        else:
            run.append(_text_coded(s, *codes[str(c)]) if kind == "string" else coders[kind](s))
    parts += _run_parts(run, len(df))
    if order is not None:  # (the fields of a float column are taken in order already)
        parts = [part if callable(part) else (part[0][order], part[1]) for part in parts]
    alone = len(df.columns) == 1  # a blank field alone on a line is quoted: "", " "
    header = ",".join(_field(str(c)) for c in df.columns)
    if alone and _BLANK.fullmatch(header):
        header = f'"{header}"'
    if parts:  # the last field ends the line: in its words once, when it has words
        parts[-1] = _line_end(parts[-1], alone)
    fields = [part if callable(part) else _taken(part) for part in parts]
    with open(path, "wb") as out:
        out.write((header + "\n").encode("utf-8"))
        if not fields:
            out.write(b"\n" * len(df))
        for a in range(0, len(df) if fields else 0, _CHUNK):
            b = min(a + _CHUNK, len(df))
            columns = [f(a, b) for f in fields]
            joined = pc.binary_join_element_wise(*columns, _COMMA) if len(columns) > 1 else None
            _write_values(out, columns[0] if joined is None else joined)


def _line_end(part: _Coded | _Fields, alone: bool) -> _Coded | _Fields:
    """The last field of a line with the line's end after it (and, alone on the line, a blank
    field quoted: ``""``, ``" "``, which a reader would skip as a blank line, losing its row):
    in each word of a coded column, else in each formatted field."""

    def ended(words: pa.Array) -> pa.Array:
        if alone:
            blank = pc.match_substring_regex(words, f"^{_BLANK.pattern}$")
            quoted = pc.binary_join_element_wise(_QUOTE, words, _QUOTE, _EMPTY)
            words = pc.if_else(blank, quoted, words)
        return pc.binary_join_element_wise(words, _EMPTY, _NEWLINE)

    if callable(part):
        return lambda a, b: ended(part(a, b))
    codes, words = part
    return codes, ended(words)


def _run_parts(run: Sequence[_Coded], rows: int) -> list[_Coded]:
    """Consecutive coded columns: joined, unless they combine in too many ways."""
    joined = _joined(run, rows // 2) if len(run) > 1 else None
    return [joined] if joined else list(run)


def _write_values(out, strings: pa.Array) -> None:
    """Write the bytes of a string array without nulls, one value after the other."""
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    data = strings.buffers()[2]
    if data is not None:
        out.write(memoryview(data)[offsets[0] : offsets[-1]])


def read_csv(
    path: Path, columns: Sequence[str], rows: int | None = None, text: Sequence[str] = ()
) -> pa.Table:
    """A CSV table with every field as text: an empty field is "", never missing.

    Parameters
    ----------
    path : Path
    columns : sequence of str
        The columns the manifest lists.
    rows : int, optional
        The rows it records: a file of that many lines and no carriage return has no line
        break inside a value, and is read without looking for one.
    text : sequence of str
        The text columns among them: read dictionary-encoded (each distinct field parsed into
        one string, and the column's codes known for :func:`restore`).
    """
    text = set(text)
    # Arrow reads the file itself: parsing the pages of a memory map of a file just written
    # is much slower (about 1 s more on 10^7 rows) than reading it.
    return pacsv.read_csv(
        str(path),
        parse_options=pacsv.ParseOptions(newlines_in_values=_breaks_inside(path, rows)),
        convert_options=pacsv.ConvertOptions(
            column_types={c: _DICTIONARY if c in text else pa.string() for c in columns},
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


#: Bytes looked at a time when counting a file's line breaks (bounds the temporary memory).
_SCAN = 1 << 24


def _breaks_inside(path: Path, rows: int | None) -> bool:
    """Whether a value of the file at ``path`` may hold a line break. None can when the file
    holds no quote (only a quoted value can), or when it has ``rows`` + 1 line feeds and no
    carriage return."""
    if not Path(path).stat().st_size:  # (an empty file cannot be mapped)
        return False
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(b'"') < 0:
            return False
        if rows is None or data.find(b"\r") >= 0:
            return True
        view = np.frombuffer(data, dtype=np.uint8)
        try:
            feeds = sum(
                int(np.count_nonzero(view[start : start + _SCAN] == ord("\n")))
                for start in range(0, len(view), _SCAN)
            )
        finally:
            del view  # (the map closes only when no array holds it)
        return feeds != rows + 1


def _as_text(
    col: pa.ChunkedArray,
    gaps: Sequence[int],
    like: pd.Series | None = None,
    order: RowOrder | None = None,
    empty: Sequence[int] | None = None,
) -> pd.Series:
    """An object column of str (None where a value is missing, listed in ``gaps``, or, with
    ``empty``, an empty field on a row it does not list: see :func:`restore`), its codes
    remembered for :func:`~microanon.core.factorize.factorize` (within
    :func:`~microanon.core.factorize.shared_codes`); ``like``'s objects when it holds the same
    values row by row (:func:`_same_text`). With ``order``, its rows (and ``gaps`` and
    ``empty``) are the file's and the column is given in ``like``'s order."""
    codes, dictionary = _file_codes(col)
    if empty is not None and _is_text(dictionary.type):
        blank = pc.index(dictionary, _EMPTY.cast(dictionary.type)).as_py()
        gaps = np.flatnonzero(codes == blank) if blank >= 0 else ()
        if len(empty) and len(gaps):  # (the empty texts: not missing)
            gaps = np.setdiff1d(gaps, np.asarray(empty, dtype=np.intp), assume_unique=True)
    codes[np.asarray(gaps, dtype=np.intp)] = -1
    if like is not None and _same_text(codes, dictionary, like, order):
        return pd.Series(like.to_numpy(), dtype=object, copy=False)  # (its codes shared)
    if order is not None:
        codes = codes[order.place]
    words = np.array([value_text(v) for v in dictionary.to_pylist()] + [None], dtype=object)
    column = pd.Series(words[codes], dtype=object, copy=False)
    if not len(gaps) and order is None:  # the dictionary's words, in order of first appearance
        remember(column, codes, pd.Index(words[:-1], dtype=object))
        return column
    # a word's first rows may have been gaps, or moved: the words left, by their first row
    first = np.full(len(words) - 1, len(codes))
    rows = np.flatnonzero(codes >= 0)
    np.minimum.at(first, codes[rows], rows)
    kept = np.flatnonzero(first < len(codes))
    kept = kept[np.argsort(first[kept], kind="stable")]
    renumber = np.full(len(words), -1)  # code -1 (the last word, None) stays -1
    renumber[kept] = np.arange(len(kept))
    remember(column, renumber[codes], pd.Index(words[kept], dtype=object))
    return column


def _is_text(kind: pa.DataType) -> bool:
    """Whether an Arrow type is text (``string`` or ``large_string``)."""
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _file_codes(col: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """The codes of a column read from a file over one dictionary, copied once into one
    array of the rows' order (a missing value's code is -1), and that dictionary (each
    distinct value once, in order of first appearance)."""
    if not pa.types.is_dictionary(col.type):
        col = pa.chunked_array([col.combine_chunks().dictionary_encode()])
    elif col.num_chunks:  # one dictionary for the chunks, in order of rows
        col = col.unify_dictionaries()
    else:
        col = pa.chunked_array([col.combine_chunks()])
    indices = [c.indices.fill_null(-1) if c.indices.null_count else c.indices for c in col.chunks]
    dictionary = col.chunk(0).dictionary
    kind = np.int32 if len(dictionary) < np.iinfo(np.int32).max else np.intp
    codes = np.concatenate([i.to_numpy(zero_copy_only=False) for i in indices], dtype=kind)
    return codes, dictionary


def _same_text(
    codes: np.ndarray, dictionary: pa.Array, like: pd.Series, order: RowOrder | None = None
) -> bool:
    """Whether a text column read from a file, as ``codes`` over ``dictionary``
    (:func:`_file_codes`; -1 where a value is missing), holds, row by row, the values of
    ``like``, an object column (with ``order``: file row ``i`` the value of ``like``'s row
    ``order.written[i]``): a value by its text and type (``"1"`` is not ``1``), a missing
    value only as None. Only within a run (:func:`~microanon.core.factorize.shared_codes`),
    where the codes of a column a method built are known without hashing its rows.

    Compared on codes, no string made or hashed: each word of the dictionary must stand for
    one code of ``like`` on every row it is on, and be that code's text (``like``'s distinct
    values as Arrow text, compared in Arrow).
    """
    if not sharing() or len(like) != len(codes):
        return False
    if not _is_text(dictionary.type):
        return False
    theirs, uniques = factorize(like)
    texts, exact = _words(like, np.asarray(uniques, dtype=object))  # (as the writer made them)
    if not exact:
        return False
    absent = bool(theirs.min(initial=0) < 0)
    if absent and not np.equal(like.to_numpy()[theirs < 0], None).all():
        return False  # (not NaN: restored text has None)
    if order is not None:  # like's codes in the file's order (narrow: a gather of 10^6
        # codes as int64 takes 5-9 ms, as int8 1-2 ms)
        theirs = theirs.astype(np.result_type(np.min_scalar_type(-len(uniques)), np.int8))
        theirs = theirs[order.written]
    meant = _meant_codes(codes, theirs, len(dictionary), absent)
    if meant is None:
        return False
    used = np.flatnonzero(meant >= 0)
    if not len(used):
        return True
    written = dictionary.take(pa.array(used)).cast(_TEXT)
    return bool(pc.all(pc.equal(written, texts.take(pa.array(meant[used])))).as_py())


def _meant_codes(
    codes: np.ndarray, theirs: np.ndarray, words: int, absent: bool
) -> np.ndarray | None:
    """The code of ``like`` (:func:`_same_text`) each of the ``words`` of a file's column
    stands for (-1: a word on no row), given the file's ``codes`` and ``like``'s codes
    ``theirs`` row by row (-1: missing, in both); None when a word stands for two codes, or a
    value is missing in one and not in the other.

    Without a missing value in the file, each word's code is read at its first row
    (:func:`~microanon.core.factorize.first_rows`: the words of a file's dictionary are
    numbered in order of first appearance) and every row is compared with it: one gather of
    the rows, where scattering every row's code first took one more.
    """
    if not absent and len(codes) and codes.min() >= 0:
        first = first_rows(codes, words)
        if len(first) == words:  # (each word's code, if the words are in order of rows)
            meant = theirs[first]
            if np.array_equal(meant[codes], theirs):
                return meant.astype(np.intp, copy=False)
    missing = codes < 0
    if not np.array_equal(missing, theirs < 0):
        return None
    mine, wanted = (codes[~missing], theirs[~missing]) if absent else (codes, theirs)
    meant = np.full(words, -1, dtype=np.intp)
    meant[mine] = wanted
    if not np.array_equal(meant[mine], wanted):  # a word standing for two codes
        return None
    return meant


def _same_numbers(column: pd.Series, like: pd.Series | None) -> pd.Series:
    """``column``, with the codes the run gave ``like`` when it holds ``like``'s numbers bit
    for bit, row by row (both of one NumPy type; a NaN read back is equal only to the same
    NaN): :func:`~microanon.core.factorize.factorize` then finds them without hashing its
    rows. Only within a run (:func:`~microanon.core.factorize.shared_codes`), once ``like``
    was coded (as the writer codes the columns it writes)."""
    known = None if like is None else coded(like)
    if known is None or like.dtype != column.dtype or len(like) != len(column):
        return column
    mine, theirs = column.to_numpy(), like.to_numpy()
    if not (mine.flags.c_contiguous and theirs.flags.c_contiguous):
        return column
    if np.array_equal(mine.view(np.uint8), theirs.view(np.uint8)):
        remember(column, *known)
    return column


class RowOrder:
    """The order a table's records were written in: file row ``i`` holds the table's row
    ``written[i]``; :attr:`place` undoes it (the table's row ``j`` is file row ``place[j]``)."""

    def __init__(self, written: np.ndarray) -> None:
        self.written = np.asarray(written, dtype=np.intp)
        self._place: np.ndarray | None = None

    @property
    def place(self) -> np.ndarray:
        """The file row of each of the table's rows (found once)."""
        if self._place is None:
            self._place = inverse_order(self.written)
        return self._place

    def rows(self, values: np.ndarray) -> np.ndarray:
        """``values``, one per file row, in the table's order."""
        return values[self.place]


def restore(
    col: pa.ChunkedArray,
    kind: str,
    gaps: Sequence[int] = (),
    like: pd.Series | None = None,
    order: RowOrder | None = None,
    empty: Sequence[int] | None = None,
) -> pd.Series:
    """A column read from a release file, with the type ``kind`` its manifest records.

    Parameters
    ----------
    col : pyarrow.ChunkedArray
        As read: text from a CSV file, typed from a Parquet, SPSS or Stata file.
    kind : {"string", "int", "float", "bool"}
    gaps : sequence of int
        The rows of a text column whose value is missing, where ``empty`` is None (a
        manifest written before ``empty``): every other empty field is an empty text.
    like : Series, optional
        The column it was written from. A text column that holds an object column's values
        row by row gets ``like``'s objects; a column of numbers without a missing value that
        holds ``like``'s numbers bit for bit gets the codes the run gave ``like``, without
        hashing its rows again (see :meth:`~microanon.core.release.Release.load`).
    order : RowOrder, optional
        The order the file's rows were written in: the column is given in the order of the
        table written (``like``'s), ``gaps`` being rows of the file. Moved as codes or numbers,
        one array per column, never as Arrow tables of text.
    empty : sequence of int, optional
        The rows of a text column whose value is the empty text (the manifest's
        :data:`~microanon.core.release.EMPTY_TEXT`, rows of the file): every other empty
        field is a missing value, as a CSV, SPSS or Stata file writes one.

    Returns
    -------
    Series
        With a fresh index. Text as an object column of str and None; ``int64`` (``Int64``
        with a missing value); ``float64``; ``bool``, or text ("True", "False", None) when a
        truth value is missing (``float64``, all NaN, when every one is).
    """
    if kind == "string":
        text = like if like is not None and like.dtype == object else None
        return _as_text(col, gaps, text, order, empty)
    moved = (lambda values: values) if order is None else order.rows
    if kind == "bool":
        if pa.types.is_boolean(col.type):
            col = pc.if_else(col, "True", "False")
        col = col.cast(pa.string())
        true, false = pc.equal(col, "True"), pc.equal(col, "False")
        either = pc.or_(true, false)
        if pc.all(either, skip_nulls=False).as_py():
            return pd.Series(moved(true.to_numpy()), copy=False)
        if len(col) and not pc.any(either).as_py():  # nothing but gaps: NaN, as pandas maps them
            return pd.Series(np.full(len(col), np.nan), copy=False)
        return _as_text(pc.if_else(either, col, pa.scalar(None, pa.string())), (), None, order)
    if _is_text(col.type):
        col = pc.if_else(pc.equal(col, ""), pa.scalar(None, col.type), col)
    if kind == "float":
        numbers = moved(pc.cast(col, pa.float64()).to_numpy())
        return _same_numbers(pd.Series(numbers, copy=False), like)
    numbers = pc.cast(col, pa.int64())
    if not numbers.null_count:
        return _same_numbers(pd.Series(moved(numbers.to_numpy()), copy=False), like)
    values = moved(numbers.fill_null(0).to_numpy())
    missing = moved(numbers.is_null().to_numpy(zero_copy_only=False))
    return pd.Series(pd.arrays.IntegerArray(values, missing), copy=False)
