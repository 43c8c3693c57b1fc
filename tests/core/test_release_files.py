"""Release tables written and read column by column with Arrow, against the row-based
definitions they replace: pandas' ``to_csv`` for the bytes, ``read_csv(dtype=str)`` and a
per-column conversion for the values, a scan of every cell for the column types."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Release
from microanon.core import release_files
from microanon.core.record_order import inverse_order
from microanon.core.release import _column_type, canonical_column, text_release

#: Text with what CSV must quote (a carriage return apart: see ``texts``).
_LETTERS = st.sampled_from(list("ab ,\"\n'é=") + ["NA", "1", "-0"])


#: Column names, some to be quoted in a CSV header.
_NAMES = ["a", "b c", 'x,"y"', "n\nl", "é", "=1", "NA"]


def texts(carriage_return: bool) -> st.SearchStrategy:
    letters = st.one_of(_LETTERS, st.just("\r")) if carriage_return else _LETTERS
    return st.one_of(st.none(), st.lists(letters, max_size=3).map("".join))


def columns(n: int, carriage_return: bool) -> st.SearchStrategy:
    """One column of ``n`` rows: text, whole numbers (with or without gaps), floats, truth
    values (with or without gaps)."""
    ints = st.lists(st.integers(-(2**53), 2**53), min_size=n, max_size=n)
    gaps = st.lists(st.one_of(st.none(), st.integers(-(2**53), 2**53)), min_size=n, max_size=n)
    floats = st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([0.0, -0.0, 1e-5, 1e-4, 1e15, 1e16, 123456789012345.0, 5e-324, 0.1]),
    )
    return st.one_of(
        st.lists(texts(carriage_return), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype=object)
        ),
        ints.map(lambda v: pd.Series(v, dtype=np.int64)),
        gaps.map(lambda v: pd.Series(v, dtype="Int64")),
        st.lists(floats, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=np.float64)),
        st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=bool)),
        st.lists(st.one_of(st.none(), st.booleans()), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype="boolean")
        ),
    )


@st.composite
def frames(draw, carriage_return: bool = True) -> pd.DataFrame:
    n = draw(st.integers(0, 6))
    width = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(_NAMES), min_size=width, max_size=width, unique=True))
    return pd.DataFrame({c: draw(columns(n, carriage_return)) for c in names})


def old_column_type(s: pd.Series) -> str:
    """The type a release recorded for a column, cell by cell (the definition before the
    vectorized one)."""
    if pd.api.types.is_bool_dtype(s):
        return "bool"
    if pd.api.types.is_integer_dtype(s):
        return "int"
    if pd.api.types.is_float_dtype(s):
        return "float"
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "string"
    vals = s.dropna()
    if len(vals) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals
    ):
        return "int"
    if len(vals) and all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vals
    ):
        return "float"
    return "string"


def old_text(s: pd.Series) -> pd.Series:
    """A column as text (release.py's ``_as_text``): str kept, a missing value None, anything
    else ``str`` of the first equal value."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    text = np.array([v if isinstance(v, str) else str(v) for v in uniques] + [None], dtype=object)
    return pd.Series(text[codes], index=s.index, dtype=object)


def written_as_pandas(df: pd.DataFrame) -> bytes:
    """The bytes pandas writes for ``df``, except that a field of spaces or tabs alone on its
    line (one column) is quoted, which pandas leaves bare and then reads as a blank line,
    losing the row."""
    if len(df.columns) != 1:
        return df.to_csv(index=False).encode("utf-8")

    def line(text: str) -> str:
        return f'"{text}"' if text and not text.strip(" \t") else text

    header = line(df.iloc[:0].to_csv(index=False)[:-1])
    rows = [df.iloc[[i]].to_csv(index=False, header=False)[:-1] for i in range(len(df))]
    return "".join(f"{line(r)}\n" for r in [header, *rows]).encode("utf-8")


def old_load(data: bytes, info: dict) -> pd.DataFrame:
    """A table read as release.py read it: every field as text, then column by column."""
    df = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, na_values=[])
    out = {}
    for c, t in info["types"].items():
        col = df[c]
        if t == "string":
            col = col.astype(object)
            if "empty" in info:  # every empty field missing, but the empty texts listed
                blank = (col == "").to_numpy(copy=True)
                blank[info["empty"].get(c, [])] = False
                col[blank] = None
            else:  # (a manifest of before: its missing values listed)
                col.iloc[info.get("missing", {}).get(c, [])] = None
        else:
            col = col.replace("", None)
        if t == "int":
            num = pd.to_numeric(col)
            col = num.astype("int64") if not num.isna().any() else num.astype("Int64")
        elif t == "float":
            col = pd.to_numeric(col).astype("float64")
        elif t == "bool":
            col = col.map({"True": True, "False": False})
        out[c] = col if old_column_type(col) != "string" else old_text(col)
    return pd.DataFrame(out, index=pd.RangeIndex(len(df)))


@settings(max_examples=40, deadline=None)
@given(frames(carriage_return=False))
def test_csv_bytes_are_those_pandas_wrote(tmp_path_factory, df):
    release = Release("masked", {"data": df}).in_written_order()  # (as save writes it)
    df = release.data
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    data = (out / "public" / "data.csv").read_bytes()
    assert data == written_as_pandas(release.data)


@settings(max_examples=40, deadline=None)
@given(frames(carriage_return=False), st.integers(1, 4))
def test_csv_bytes_written_in_chunks_are_those_pandas_wrote(tmp_path_factory, df, chunk):
    """A table of more rows than a chunk is formatted a chunk at a time: the same bytes."""
    release = Release("masked", {"data": df}).in_written_order()  # (as save writes it)
    df = release.data
    saved, release_files._CHUNK = release_files._CHUNK, chunk
    try:
        out = release.save(tmp_path_factory.mktemp("r") / "r")
    finally:
        release_files._CHUNK = saved
    data = (out / "public" / "data.csv").read_bytes()
    assert data == written_as_pandas(release.data)


@settings(max_examples=40, deadline=None)
@given(frames())
def test_a_saved_release_loads_as_release_py_loaded_it(tmp_path_factory, df):
    release = Release("masked", {"data": df}).in_written_order()  # (as save writes it)
    df = release.data
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    data = (out / "public" / "data.csv").read_bytes()
    assert (
        data
        == release.save(tmp_path_factory.mktemp("again") / "r")
        .joinpath("public", "data.csv")
        .read_bytes()
    )
    info = json.loads((out / "public" / "release.json").read_text())["tables"]["data"]
    back = Release.load(out).data
    pd.testing.assert_frame_equal(back, old_load(data, info))
    for c, s in release.data.items():  # the values come back (truth values with gaps as text)
        if not isinstance(df[c].dtype, pd.BooleanDtype) or not df[c].isna().any():
            pd.testing.assert_series_equal(back[c], s, check_dtype=False)
    parquet = release.save(tmp_path_factory.mktemp("p") / "r", format="parquet")
    pd.testing.assert_frame_equal(Release.load(parquet).data, back)  # the same from Parquet


def test_whole_numbers_beyond_a_double_come_back_exactly(tmp_path):
    df = pd.DataFrame(
        {"n": [2**63 - 1, -(2**63), 2**53 + 1], "g": pd.array([2**62 + 1, None, 3], dtype="Int64")}
    )
    release = Release("masked", {"data": df})
    out = release.save(tmp_path / "r")
    back = Release.load(out).data
    pd.testing.assert_frame_equal(back, release.in_written_order().data)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.just(np.nan),
            st.just(pd.NA),
            st.integers(-5, 5),
            st.floats(),
            st.booleans(),
            texts(True),
            st.integers(-5, 5).map(np.int8),
        ),
        max_size=6,
    )
)
def test_column_types_and_canonical_text_as_cell_by_cell(values):
    s = pd.Series(values, dtype=object)
    assert _column_type(s) == old_column_type(s)
    canonical = canonical_column(s)
    if old_column_type(s) == "string":
        booleans = len(s) and all(isinstance(v, (bool, np.bool_)) for v in values)
        pd.testing.assert_series_equal(canonical, s.astype(bool) if booleans else old_text(s))
    else:
        assert canonical is s


def test_line_breaks_inside_values_read_back_whole(tmp_path):
    """A file whose lines are not one per row is read allowing line breaks inside quoted values
    (one column, where a row split at its line break would still parse, and two), and so is a
    file of one line per row whose values hold a carriage return."""
    for df in (
        pd.DataFrame({"a": ["x\ny", "z", "\r", "w\r\n"]}),
        pd.DataFrame({"a": ["x\ry", "z"]}),
        pd.DataFrame({"a": ["x\ny", "z"], "b": ["1", "p\nq\nr"]}),
    ):
        release = Release("masked", {"data": df}).in_written_order()  # (as save writes it)
        df = release.data
        out = release.save(tmp_path / f"r{len(df.columns)}-{len(df)}")
        pd.testing.assert_frame_equal(Release.load(out).data, df.astype(object))


@settings(max_examples=60, deadline=None)
@given(frames(), st.data())
def test_a_release_loaded_like_the_one_in_memory_holds_what_the_files_hold(
    tmp_path_factory, df, data
):
    """Loaded ``like`` the release written (as the verification loads it, within a run), a
    text column holds the values read from the file: the in-memory column's objects when it
    holds the same values row by row, and otherwise (another value, a missing value as NaN,
    a number for its text) the file's, exactly as loaded without it, its rows in the order in
    which the in-memory release holds the rows it writes; within the run, the codes it is
    known by are those ``pandas.factorize`` gives."""
    from microanon.core.factorize import factorize, shared_codes

    release = Release("masked", {"data": df})  # (in the input's order: written sorted)
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    plain = Release.load(out).data
    other = release.data.copy()
    text = [c for c in other.columns if other[c].dtype == object]
    if text and len(other):  # another column in memory: one cell changed, maybe
        c = data.draw(st.sampled_from(text))
        row = data.draw(st.integers(0, len(other) - 1))
        cell = data.draw(st.sampled_from(["a", "zz", None, float("nan"), 1]))
        other[c] = other[c].astype(object)
        other.iloc[row, list(other.columns).index(c)] = cell
    for like in (release, text_release("masked", {"data": other})):  # (kept as it is)
        # the file's rows, in the order in which ``like`` holds the rows it writes
        order = like._record_orders().get("data")
        expected = plain if order is None else plain.take(inverse_order(order))
        with shared_codes():
            back = Release.load(out, like=like).data
            pd.testing.assert_frame_equal(back, expected.reset_index(drop=True))
            for c in back.columns:
                if back[c].dtype == object:
                    assert all(v is None or type(v) is str for v in back[c])
                codes, uniques = factorize(back[c])
                expected_codes, expected_uniques = pd.factorize(back[c])
                assert codes.tolist() == expected_codes.tolist(), c
                assert list(map(repr, uniques)) == list(map(repr, expected_uniques)), c
    with shared_codes():  # unchanged: the column's objects are shared, not built again
        back = Release.load(out, like=release).data
        for c in text:
            if len(df) and release.data[c].notna().any():
                assert np.shares_memory(back[c].to_numpy(), release.data[c].to_numpy())


@settings(max_examples=80, deadline=None)
@given(frames(), st.data())
def test_numbers_loaded_like_the_columns_written_keep_their_codes(tmp_path_factory, df, data):
    """Loaded ``like`` the release written, within a run whose writer coded its columns, a
    column of numbers read back with the same numbers bit for bit keeps the written column's
    codes; one with another number (or NaN) in a cell is coded anew. Either way its codes and
    values are those ``pandas.factorize`` gives."""
    from microanon.core.factorize import factorize, shared_codes

    release = Release("masked", {"data": df}).in_written_order()  # (as save writes it)
    df = release.data
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    other = df.copy()
    numbers = [c for c in df.columns if df[c].dtype in (np.float64, np.int64)]
    changed = None
    if numbers and len(df) and data.draw(st.booleans()):
        changed = data.draw(st.sampled_from(numbers))
        row = data.draw(st.integers(0, len(df) - 1))
        cell = other[changed].to_numpy().copy()
        cell[row] = cell[row] + 1 if cell.dtype == np.int64 else np.nan
        other[changed] = cell
    like = Release("masked", {"data": other})
    with shared_codes():
        written = {c: factorize(like.data[c]) for c in numbers}  # (as the writer codes them)
        back = Release.load(out, like=like).data
        for c in back.columns:
            codes, uniques = factorize(back[c])
            expected_codes, expected_uniques = pd.factorize(back[c])
            assert codes.tolist() == expected_codes.tolist(), c
            assert list(map(repr, uniques)) == list(map(repr, expected_uniques)), c
            if c in written and c != changed and back[c].dtype == df[c].dtype and len(df):
                same = np.array_equal(
                    back[c].to_numpy().view(np.uint8), df[c].to_numpy().view(np.uint8)
                )
                assert np.shares_memory(codes, written[c][0]) == same, c


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.sampled_from([0.0, -0.0, 1e-5, 1e16, 5e-324, 0.1, 138.61]),
        ),
        max_size=30,
    ),
    st.integers(1, 5),
)
def test_a_float_column_formatted_once_per_value_is_what_pandas_wrote(
    tmp_path_factory, values, repeat
):
    """A float column of repeated values is formatted once per distinct value (0.0 and -0.0,
    equal but written apart, row by row): the bytes pandas writes."""
    column = np.resize(np.array(values or [1.0]), len(values or [1.0]) * repeat)
    release = Release("masked", {"data": pd.DataFrame({"w": column, "t": "a"})})
    release = release.in_written_order()  # (as save writes it)
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    data = (out / "public" / "data.csv").read_bytes()
    assert data == written_as_pandas(release.data)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(texts(carriage_return=True).filter(lambda t: t is not None), st.integers()),
        max_size=20,
    )
)
def test_fields_quoted_by_arrow_are_those_quoted_one_by_one(values):
    """The fields of a text column's distinct values, quoted with Arrow's compute functions,
    are those :func:`release_files._field` quotes one value at a time (``str`` of a value that
    is not text)."""
    words = np.asarray(values, dtype=object)
    want = [release_files._field(v if isinstance(v, str) else str(v)) for v in values]
    texts, _ = release_files._words(pd.Series(words, dtype=object), words)
    assert release_files._fields(texts).to_pylist() == want


def test_fields_of_a_real_survey_s_text():
    """The text columns of GSSvocab and TV16 (CCES 2016), their distinct values, with a
    comma, a quote and a line break added to some."""
    from real_surveys import survey

    for data in (survey("gss_vocab"), survey("tv16")):
        for c in data.columns:
            values = pd.unique(data[c].dropna().astype(str).to_numpy(dtype=object))
            values = np.concatenate([values, [f'{v},"x"\n' for v in values[:3]]])
            want = [release_files._field(v) for v in values]
            texts, exact = release_files._words(pd.Series(values, dtype=object), values)
            assert exact and release_files._fields(texts).to_pylist() == want


def _row_by_row_same(cells: list, missing: list, like: pd.Series) -> bool:
    """Whether a column read from a file (``cells``: its texts, ``missing``: its rows without a
    value) holds ``like``'s values row by row, as the verification compared them before: each
    value a ``str`` of the same text, a missing value only None."""
    if len(cells) != len(like):
        return False
    for cell, gap, value in zip(cells, missing, like.tolist(), strict=True):
        if value is None:
            if not gap:
                return False
        elif gap or type(value) is not str or value != cell:
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_text_read_back_is_compared_with_the_column_written_as_row_by_row(data):
    """A text column as read from a file (dictionary-encoded chunks of random sizes, each with
    its own dictionary, maybe a chunk of plain text or a null; the manifest's missing values or
    its empty texts), is
    found to hold an in-memory column's values exactly when it does row by row (one cell
    changed, maybe: another text, None, NaN, a number), its rows in the order written or
    moved (the records written in another order than the table's)."""
    from microanon.core.factorize import shared_codes
    from microanon.core.record_order import inverse_order

    words = st.sampled_from(["a", "b", "", "x,y"])
    n = data.draw(st.integers(0, 30))
    cells = data.draw(st.lists(words, min_size=n, max_size=n))
    missing = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    cells = ["" if gap else cell for cell, gap in zip(cells, missing, strict=True)]
    like = pd.Series([None if gap else cell for cell, gap in zip(cells, missing, strict=True)])
    like = like.astype(object)
    if n and data.draw(st.booleans()):
        row = data.draw(st.integers(0, n - 1))
        like.iloc[row] = data.draw(st.sampled_from(["a", "b", "zz", "", None, float("nan"), 1]))
    read = list(cells)
    if n and data.draw(st.booleans()):  # a null (a Parquet file's missing value) for a gap
        row = data.draw(st.integers(0, n - 1))
        read[row] = None if missing[row] else read[row]
    cuts = sorted(set(data.draw(st.lists(st.integers(0, n), max_size=4)) + [0, n]))
    parts = [pa.array(read[a:b], pa.string()) for a, b in zip(cuts, cuts[1:], strict=False)]
    if data.draw(st.booleans()):  # as a CSV file is read: a dictionary per chunk
        parts = [part.dictionary_encode() for part in parts]
    column = pa.chunked_array(parts, parts[0].type if parts else pa.string())
    gaps = [i for i, gap in enumerate(missing) if gap]
    want = _row_by_row_same(cells, missing, like)
    expected = [None if gap else cell for cell, gap in zip(cells, missing, strict=True)]
    order = None
    if data.draw(st.booleans()):  # file row i holds the table's row written[i]
        written = np.asarray(data.draw(st.permutations(range(n))), dtype=np.intp)
        order = release_files.RowOrder(written)
        like = like.iloc[inverse_order(written)].reset_index(drop=True)
        expected = [expected[i] for i in inverse_order(written)]
    with shared_codes():
        codes, dictionary = release_files._file_codes(column)
        codes[np.asarray(gaps, dtype=np.intp)] = -1
        assert release_files._same_text(codes, dictionary, like, order) is want
        if data.draw(st.booleans()):  # the manifest lists the missing values (before "empty")
            back = release_files.restore(column, "string", gaps, like, order)
        else:  # it lists the empty texts, every other empty field missing
            empty = [i for i, cell in enumerate(cells) if cell == "" and not missing[i]]
            back = release_files.restore(column, "string", (), like, order, empty)
    assert back.tolist() == expected


@pytest.mark.parametrize(
    ("codes", "theirs", "words", "absent", "want"),
    [
        # words in order of first appearance: each read at its first row, every row compared
        ([0, 1, 0, 2], [5, 3, 5, 4], 3, False, [5, 3, 4]),
        # a word standing for two codes of the column written
        ([0, 1, 0], [1, 2, 3], 2, False, None),
        # words out of order of rows: found by scattering every row's code instead
        ([1, 0, 1], [7, 8, 7], 2, False, [8, 7]),
        # a value missing in the column written and not in the file
        ([0, 0], [-1, 2], 1, True, None),
        # a value missing in both, and a word on no row
        ([0, -1, 0], [4, -1, 4], 2, True, [4, -1]),
    ],
)
def test_each_word_of_a_file_stands_for_one_code_of_the_column_written(
    codes, theirs, words, absent, want
):
    """The code of the column written that each word of a file's column stands for, read at
    each word's first row when the file misses no value, and otherwise by scattering: the same
    answer either way, None when the file does not hold the column row by row."""
    got = release_files._meant_codes(
        np.asarray(codes, dtype=np.int32), np.asarray(theirs, dtype=np.int8), words, absent
    )
    assert (got is None) if want is None else got.tolist() == want


@pytest.mark.parametrize("blank", [" ", "\t", "  \t "])
def test_a_blank_field_alone_on_its_line_is_quoted_so_no_reader_skips_its_row(tmp_path, blank):
    """A one-column table holding a value of spaces (found by the property test above): pandas
    writes it bare, and reads the bare line as a blank one, losing its row; the release quotes
    it, as it quotes an empty field, and every row is read back, by pandas too."""
    df = pd.DataFrame({"a": [None, blank, "", "x"]}, dtype=object)
    out = Release("masked", {"data": df}).save(tmp_path / "r")
    data = (out / "public" / "data.csv").read_bytes()
    assert f'"{blank}"\n'.encode() in data
    read = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    assert sorted(read["a"]) == sorted(["", blank, "", "x"])
    back = Release.load(out).data["a"].fillna("<none>")
    assert sorted(back) == sorted(["<none>", blank, "", "x"])
