"""An identifier's repetition (its distinct values, the rows, the rows alone with their value)
counted partition by partition and merged (:func:`~microanon.core.repetition.merged`) is the
whole column's (:func:`~microanon.core.repetition.repetition`): the Dask engine counts it so in
the pass that reads the input, the in-memory run on the whole table, and both warn of a panel's
person id from it (:func:`microanon.apps.panel.repeated_id_notes`)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.panel import repeated_id_notes, repeated_ids
from microanon.core.repetition import Repetition, merged, repetition, tally

SETTINGS = settings(max_examples=300, deadline=None)


def _oracle(values: list) -> Repetition:
    """The definition, on a plain list: missing values are no value but count as rows."""
    counts = Counter(v for v in values if v is not None)
    return Repetition(len(counts), len(values), sum(1 for n in counts.values() if n == 1))


def _pieces(column: pd.Series, cuts: list[int], categories: bool) -> list[pd.DataFrame]:
    """``column`` cut into consecutive pieces at ``cuts`` (some empty), each a one-column frame;
    text as categories of each piece's own (as the Dask engine reads a Parquet file's text),
    with a category no record of the piece holds."""
    bounds = [0, *sorted(c % (len(column) + 1) for c in cuts), len(column)]
    pieces = [column.iloc[a:b].to_frame("id") for a, b in zip(bounds, bounds[1:], strict=False)]
    if categories:
        pieces = [
            p.assign(id=p["id"].astype(pd.CategoricalDtype([*p["id"].dropna().unique(), "unheld"])))
            for p in pieces
        ]
    return pieces


@SETTINGS
@given(
    values=st.lists(st.one_of(st.none(), st.integers(0, 30)), max_size=120),
    cuts=st.lists(st.integers(0, 200), max_size=6),
    as_text=st.booleans(),
    categories=st.booleans(),
)
def test_merged_partitions_are_the_whole_column(values, cuts, as_text, categories):
    """Whatever the cuts, and the pieces' types (integers with missing values as pandas'
    nullable integers or floats, text as objects or as each piece's categories): the same
    distinct values, rows and rows alone as the whole column, and as the definition."""
    if as_text:
        values = [None if v is None else f"p{v}" for v in values]
        column = pd.Series(values, dtype=object)
    else:
        column = pd.Series(values, dtype="Int64" if None in values else "int64")
    pieces = _pieces(column, cuts, as_text and categories)
    got = merged([tally(p, ["id"]) for p in pieces], ["id"])["id"]
    assert got == repetition(column) == _oracle(values)
    assert repeated_id_notes({"id": got}) == repeated_ids(column.to_frame("id"), ["id"])


@SETTINGS
@given(
    values=st.lists(st.one_of(st.none(), st.integers(0, 30)), min_size=1, max_size=120),
    cuts=st.lists(st.integers(0, 200), max_size=6),
)
def test_floats_and_integers_of_pieces_are_one_value(values, cuts):
    """A CSV block read with a missing id holds floats (3.0), another without one integers (3):
    merged, 3.0 and 3 are one value, as the whole column read as floats holds them."""
    column = pd.Series([np.nan if v is None else float(v) for v in values])
    bounds = [0, *sorted(c % (len(column) + 1) for c in cuts), len(column)]
    pieces = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece = column.iloc[a:b]
        whole = piece.notna().all()
        pieces.append((piece.astype("int64") if whole else piece).to_frame("id"))
    assert merged([tally(p, ["id"]) for p in pieces], ["id"])["id"] == _oracle(values)


def test_a_panel_s_person_id_counted_in_parts_is_the_whole_file_s():
    """COUNT's rwm5yr (19,609 person-years of 6,127 people, ``id``) cut into 7 parts, the id
    also as text in parts of their own categories: 6,127 values on 19,609 rows, the people
    with one year (1,150); the warning is the in-memory run's."""
    frame = survey("rwm5yr")
    whole = repetition(frame["id"])
    people = frame["id"].value_counts()
    assert whole == Repetition(6127, 19609, 1150) and int((people == 1).sum()) == 1150
    parts = [frame[["id"]].iloc[rows] for rows in np.array_split(np.arange(len(frame)), 7)]
    assert merged([tally(p, ["id"]) for p in parts], ["id"])["id"] == whole
    text = [p.assign(id=p["id"].astype(str).astype("category")) for p in parts]
    assert merged([tally(p, ["id"]) for p in text], ["id"])["id"] == whole
    assert repeated_id_notes({"id": whole}) == repeated_ids(frame, ["id"])
    assert repeated_id_notes({"id": whole})[0].startswith(
        "'id', dropped as an identifier, repeats (6,127 values on 19,609 rows)"
    )


def test_no_value_and_no_rows():
    """A column of missing values has no value, and a table without rows no row alone."""
    assert merged([tally(pd.DataFrame({"id": [None, None]}), ["id"])], ["id"]) == {
        "id": Repetition(0, 2, 0)
    }
    assert merged([], ["id"]) == {"id": Repetition(0, 0, 0)}
    assert Repetition(0, 0, 0).alone_share == 0.0
