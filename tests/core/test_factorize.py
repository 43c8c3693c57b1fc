"""``factorize``: the codes and values of ``pandas.factorize``, whatever objects hold the text."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.factorize import factorize, object_positions, sorted_distinct

VALUES = st.sampled_from(["a", "b", "", "a,b", "é", None, float("nan"), 1, 1.0, 2, True])


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUES, max_size=60), st.integers(0, 3), st.booleans())
def test_factorize_is_pandas_factorize(values, repeat, series):
    """Rows drawn from few objects (the fast path) or copied text (equal text, new objects),
    as an array or a Series."""
    rows = np.array(values * (repeat + 1), dtype=object)
    if repeat == 3:  # every text row its own object
        rows = np.array(
            [v.encode().decode() if isinstance(v, str) else v for v in rows], dtype=object
        )
    data = pd.Series(rows, dtype=object) if series else rows
    expected_codes, expected_uniques = pd.factorize(data, use_na_sentinel=True)
    codes, uniques = factorize(data)
    assert codes.tolist() == expected_codes.tolist()
    assert type(uniques) is type(expected_uniques)
    assert [(type(u), u) for u in uniques] == [(type(u), u) for u in expected_uniques]


def test_equal_text_of_two_objects_is_one_value():
    a, b = "".join(["x", "y"]), "".join(["x", "y"])
    assert a is not b
    rows = np.array([a, b] * 2000, dtype=object)
    codes, uniques = factorize(rows)
    assert set(codes.tolist()) == {0} and uniques.tolist() == ["xy"]


def test_typed_columns_are_left_to_pandas():
    for data in (pd.Series([3, 1, 3]), pd.Series(["b", "a", "b"], dtype="str")):
        assert factorize(data)[0].tolist() == [0, 1, 0]


def test_shared_codes_code_a_column_once_and_follow_its_changes():
    """Within ``shared_codes`` a column selected again (or from a selection of its table) gets
    the codes computed before; a table changed in place afterwards is coded anew."""
    from microanon.core.factorize import shared_codes

    table = pd.DataFrame(
        {
            "text": np.array(["a", "b", None, "a"], dtype=object),
            "arrow": pd.array(["x", "y", "x", None], dtype="str"),
            "number": [1.0, 2.0, 1.0, np.nan],
        }
    )
    with shared_codes():
        for c in table.columns:
            first = factorize(table[c])
            again = factorize(table[["text", "arrow", "number"]][c])
            assert again[0] is first[0] and not first[0].flags.writeable
            assert first[0].tolist() == pd.factorize(table[c])[0].tolist()
        table.loc[0, "text"] = "b"
        table.loc[0, "number"] = 2.0
        table.loc[0, "arrow"] = "y"
        for c in table.columns:
            assert factorize(table[c])[0].tolist() == pd.factorize(table[c])[0].tolist()
    assert factorize(table["text"])[0].flags.writeable  # outside: computed, not kept


def test_columns_coded_side_by_side_are_those_factorize_gives():
    """``code_columns`` codes several columns at once (threads) into the shared codes: the same
    codes as one at a time, found again by ``factorize``; outside ``shared_codes``, nothing."""
    from microanon.core.factorize import code_columns, shared_codes

    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        {
            "arrow": pd.array(rng.choice(["x", "y", "z", None], 5000).tolist(), dtype="str"),
            "text": np.array(rng.choice(["a", "b", None], 5000).tolist(), dtype=object),
            "number": rng.integers(0, 7, 5000),
        }
    )
    with shared_codes():
        code_columns(table[c] for c in table.columns)
        for c in table.columns:
            codes, uniques = factorize(table[c])
            assert not codes.flags.writeable  # kept by code_columns, not computed again
            expected_codes, expected_uniques = pd.factorize(table[c])
            assert codes.tolist() == expected_codes.tolist()
            assert list(uniques) == list(expected_uniques)
    code_columns(table[c] for c in table.columns)  # outside: nothing kept
    assert factorize(table["text"])[0].flags.writeable


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 120), max_size=300),
    st.integers(1, 12_000),
    st.sampled_from([np.int8, np.int16, np.int32, np.intp]),
)
def test_code_counts_are_numpy_bincount(values, repeat, dtype):
    """Counted a chunk at a time (narrow codes of more than a chunk of rows) or at once: what
    np.bincount counts."""
    from microanon.core.factorize import code_counts

    codes = np.resize(np.array(values or [0], dtype=dtype), len(values or [0]) * repeat)
    counted = code_counts(codes, 130)
    assert counted.dtype == np.int64
    assert counted.tolist() == np.bincount(codes, minlength=130).tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-1, 30), max_size=400), st.integers(1, 200_000))
def test_first_rows_are_where_each_code_first_appears(values, repeat):
    """Codes in order of first appearance (-1 anywhere), over one chunk or several."""
    from microanon.core.factorize import first_rows

    rows = np.resize(
        np.array(values or [0], dtype=np.int64), min(len(values or [0]) * repeat, 300_000)
    )
    codes, uniques = pd.factorize(rows, use_na_sentinel=True)
    codes[rows < 0] = -1
    present = np.unique(codes[codes >= 0])
    expected = [int(np.flatnonzero(codes == c)[0]) for c in present]
    assert first_rows(codes, len(present)).tolist() == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "x,y", 'q"', None]), min_size=1, max_size=80))
def test_a_release_read_back_knows_the_codes_of_its_text(tmp_path_factory, values):
    """The codes a text column's dictionary gives when a written release is read back (empty
    text and missing values told apart by the manifest) are those ``factorize`` computes."""
    from microanon.core import Release
    from microanon.core.factorize import _SHARED, shared_codes

    data = pd.DataFrame({"t": pd.Series(values, dtype=object), "n": range(len(values))})
    directory = tmp_path_factory.mktemp("release") / "r"
    release = Release("generalized", {"data": data})
    release.save(directory)
    data = release.in_written_order().data  # (the rows sorted by their values)
    with shared_codes():
        back = Release.load(directory).data["t"]
        remembered = _SHARED.get()  # the codes read from the file
        assert len(remembered) == 1
        codes, uniques = factorize(back)
    expected_codes, expected_uniques = pd.factorize(back, use_na_sentinel=True)
    assert back.tolist() == data["t"].tolist()
    assert codes.tolist() == expected_codes.tolist()
    assert list(uniques) == list(expected_uniques)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(["b", "a", "é", "Z", "", None]), min_size=1, max_size=50),
        st.lists(st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)), min_size=1, max_size=50),
        st.lists(st.integers(-3, 3), min_size=1, max_size=50),
        st.lists(st.sampled_from([1, 2, "a", "b", None]), min_size=1, max_size=50),
    ),
    st.booleans(),
)
def test_sorted_codes_are_pandas_sorted_factorize(values, arrow):
    """The codes a column without a hierarchy is encoded by: pandas' sorted factorize, for
    object, Arrow text and numeric columns."""
    from microanon.core.table import _sorted_codes

    column = pd.Series(values)
    if arrow and column.dtype == object:
        column = column.astype("str")
    expected_codes, expected_values = pd.factorize(column, sort=True)
    codes, sorted_values = _sorted_codes(column, "c")
    assert codes.tolist() == expected_codes.tolist()
    assert sorted_values.tolist() == list(expected_values)


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=30))
def test_a_release_column_type_read_from_its_codes_is_that_of_its_values(values):
    """Text is recognized from the distinct values; any other column is read whole, so 1, 1.0
    and True (one value to a hash table) keep the type their mix has."""
    from microanon.core.release import _INFERRED, _column_type

    column = pd.Series(values, dtype=object)
    inferred = _INFERRED.get(pd.api.types.infer_dtype(column, skipna=True), "string")
    assert _column_type(column) == inferred


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "", "é", "a ", 1, 1.0, True]), min_size=1, max_size=6),
    st.lists(st.integers(0, 5), max_size=300),
    st.integers(0, 40_000),
)
def test_a_column_taken_from_labels_is_coded_as_pandas_codes_it(labels, picks, late):
    """``remember_taken``: a column ``labels.take(codes)`` gets pandas' codes and values from
    its codes renumbered by first appearance (a label first seen after ``late`` rows too);
    labels equal to one another are left to ``factorize``."""
    from microanon.core.factorize import remember_taken, shared_codes

    labels = np.array(labels, dtype=object)
    codes = np.array([p % len(labels) for p in picks] + [0] * late + [len(labels) - 1], np.intp)
    column = pd.Series(labels.take(codes), dtype=object)
    expected_codes, expected_uniques = pd.factorize(column)
    with shared_codes():
        remember_taken(column, codes, labels)
        got_codes, got_uniques = factorize(column)
    assert got_codes.tolist() == expected_codes.tolist()
    assert [(type(u), u) for u in got_uniques] == [(type(u), u) for u in expected_uniques]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62), max_size=200), st.integers(0, 3), st.booleans())
def test_factorize_keys_is_pandas_factorize(values, repeat, unsigned):
    from microanon.core.factorize import HASH_START, factorize_keys

    keys = np.array(values * (repeat + 1), dtype=np.int64)
    if repeat == 3:  # past the hash table's first size
        keys = np.resize(keys, HASH_START + 5) if len(keys) else keys
    if unsigned:
        keys = keys.view(np.uint64)
    expected_codes, expected_uniques = pd.factorize(keys)
    codes, uniques = factorize_keys(keys)
    assert codes.dtype == np.intp and codes.flags.writeable
    assert codes.tolist() == expected_codes.tolist()
    assert uniques.tolist() == expected_uniques.tolist()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=4).flatmap(
        lambda sizes: st.tuples(
            st.just(sizes),
            st.lists(st.tuples(*(st.integers(0, s - 1) for s in sizes)), min_size=1, max_size=300),
        )
    )
)
def test_combined_codes_are_numpy_unique_of_the_code_rows(case):
    """:func:`~microanon.core.table.combine_codes`, counted densely, hashed (few rows in a
    large space of keys) or renumbered on the way (a space beyond one int64 key): the
    combinations in lexicographic order, their counts, each row's combination and each one's
    first row, as ``numpy.unique`` of the rows gives them."""
    import microanon.core.table as table

    sizes, rows = case
    codes = [np.array(column, dtype=np.int64) for column in zip(*rows, strict=True)]
    saved = table.DENSE_SLACK
    try:  # dense, hashed; without the slack, a space a few times the rows: counted or hashed
        beyond = [s * 2**40 for s in sizes]  # (two columns pass one key)
        for radix, slack in (
            (sizes, saved),
            ([s * 10_000 for s in sizes], saved),
            (sizes, 0),
            (beyond, saved),
        ):
            table.DENSE_SLACK = slack
            got = table.combine_codes(codes, radix)
            combos, first, inverse, counts = np.unique(
                np.column_stack(codes), axis=0, return_index=True, return_inverse=True,
                return_counts=True,
            )  # fmt: skip
            np.testing.assert_array_equal(got.combos, combos)
            np.testing.assert_array_equal(got.first, first)
            np.testing.assert_array_equal(got.inverse, inverse.reshape(-1))
            np.testing.assert_array_equal(got.counts, counts)
    finally:
        table.DENSE_SLACK = saved


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(["?", "a", "b", "", None]), min_size=1, max_size=40),
        st.lists(st.sampled_from(["?", 1, 2.5, None, float("nan")]), min_size=1, max_size=40),
        st.lists(st.one_of(st.none(), st.integers(-2, 2)), min_size=1, max_size=40),
    ),
    st.booleans(),
)
def test_missing_or_marked_cells_from_the_run_codes_are_those_compared(values, arrow):
    """Which cells are missing or hold ``?``: from the codes a run gave the column, as by
    comparing its cells (outside a run)."""
    from microanon.core.factorize import code_columns, coded, shared_codes
    from microanon.core.schema import marked_missing, missing_or_marked

    column = pd.Series(values)
    if arrow and column.dtype == object and all(isinstance(v, str) or v is None for v in values):
        column = column.astype("str")
    plain = np.asarray(column.array.isna()) | marked_missing(column)
    assert missing_or_marked(column).tolist() == plain.tolist()
    with shared_codes():
        code_columns([column])
        assert coded(column) is not None  # (the codes' way, not the comparison's)
        assert missing_or_marked(column).tolist() == plain.tolist()


_WORDS = ["a", "b", "", "é", "a,b", "SID#1", "SID#2"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS), unique=True, max_size=len(_WORDS)),
    st.lists(st.tuples(st.sampled_from(_WORDS + ["zz", "*"]), st.booleans()), max_size=40),
)
def test_object_positions_are_pandas_get_indexer(targets, drawn):
    """Each value found among distinct targets as ``get_indexer`` finds it: the very objects of
    the targets (shared) or equal text in other objects (copied), or absent (-1)."""
    objects = np.array(targets, dtype=object)
    values = np.empty(len(drawn), dtype=object)
    for i, (word, shared) in enumerate(drawn):
        at = targets.index(word) if word in targets else -1
        values[i] = objects[at] if shared and at >= 0 else "".join(list(word))  # (a new object)
    want = pd.Index(objects, dtype=object).get_indexer(pd.Index(values, dtype=object))
    got = object_positions(objects, values)
    assert got.tolist() == want.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-(2**40), 2**40), max_size=60).map(
            lambda v: np.asarray(v, dtype=np.int64)
        ),
        st.lists(st.integers(0, 255), max_size=60).map(lambda v: np.asarray(v, dtype=np.uint8)),
        st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=60).map(
            lambda v: np.asarray(v, dtype=float)
        ),
        st.lists(st.booleans(), max_size=20).map(lambda v: np.asarray(v, dtype=bool)),
    )
)
def test_sorted_distinct_is_numpys_unique(values: np.ndarray) -> None:
    """The distinct values by one sort: numpy.unique's answer, dtype and NaN (one, last) too."""
    got, expected = sorted_distinct(values), np.unique(values)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=True)
