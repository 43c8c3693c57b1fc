"""An identifier's repetition (its distinct values, the rows, the rows alone with their value,
and whether its values look like numbers handed out in order) counted partition by partition
and merged (:func:`~microanon.core.repetition.merged`) is the whole column's
(:func:`~microanon.core.repetition.repetition`): the Dask engine counts it so in the pass that
reads the input, the in-memory run on the whole table, and both warn of a panel's person id
from it (:func:`microanon.apps.panel.repeated_id_notes`), named so or an id code by its values
(:func:`microanon.apps.init.numbers.coded`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.init.numbers import coded
from microanon.apps.panel import repeated_id_notes, repeated_ids
from microanon.core.numbering import CODE_EVEN, CODE_FILL, Numbering
from microanon.core.repetition import Repetition, merged, repetition, tally

SETTINGS = settings(max_examples=300, deadline=None)


def _oracle(values: list) -> Repetition:
    """The definition, on a plain list: missing values are no value but count as rows; the
    fewest and the most rows of a value (0 without one)."""
    counts = Counter(v for v in values if v is not None)
    alone = sum(1 for n in counts.values() if n == 1)
    held = sum(counts.values())
    fewest, most = min(counts.values(), default=0), max(counts.values(), default=0)
    return Repetition(len(counts), len(values), held, alone, _numbering(values), fewest, most)


def _numbering(values: list) -> Numbering | None:
    """The definition of numbers handed out in order, row by row on a plain list of numbers
    (text is none): whole, none below 0, filling half their range or more, and the share of
    the rows up to each value at most 10 points off an even spread's."""
    rows = sorted(v for v in values if v is not None)
    if not rows or any(isinstance(v, str) or v < 0 or v != int(v) for v in rows):
        return None
    low, high = float(rows[0]), float(rows[-1])
    fill = len(set(rows)) / (high - low + 1)
    off = max(
        abs(sum(1 for r in rows if r <= v) / len(rows) - (v - low + 1) / (high - low + 1))
        for v in set(rows)
    )
    return Numbering(low, high, fill, off) if fill >= CODE_FILL and off <= CODE_EVEN else None


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
    with one year (1,150), numbers 1 to 7,028 handed out in order (as text, no numbers); the
    warning is the in-memory run's."""
    frame = survey("rwm5yr")
    whole = repetition(frame["id"])
    people = frame["id"].value_counts()
    assert whole == Repetition(6127, 19609, 19609, 1150, whole.numbering, 1, 5)
    assert int((people == 1).sum()) == 1150 and (people.min(), people.max()) == (1, 5)
    assert whole.numbering is not None and (whole.numbering.low, whole.numbering.high) == (1, 7028)
    parts = [frame[["id"]].iloc[rows] for rows in np.array_split(np.arange(len(frame)), 7)]
    assert merged([tally(p, ["id"]) for p in parts], ["id"])["id"] == whole
    text = [p.assign(id=p["id"].astype(str).astype("category")) for p in parts]
    assert merged([tally(p, ["id"]) for p in text], ["id"])["id"] == replace(whole, numbering=None)
    assert repeated_id_notes({"id": whole}) == repeated_ids(frame, ["id"])
    assert repeated_id_notes({"id": whole})[0].startswith(
        "'id', dropped as an identifier, repeats (6,127 values on 19,609 rows)"
    )


def test_no_value_and_no_rows():
    """A column of missing values has no value, and a table without rows no row alone."""
    assert merged([tally(pd.DataFrame({"id": [None, None]}), ["id"])], ["id"]) == {
        "id": Repetition(0, 2, 0, 0)
    }
    assert merged([], ["id"]) == {"id": Repetition(0, 0, 0, 0)}
    assert Repetition(0, 0, 0, 0).alone_share == 0.0


@SETTINGS
@given(
    people=st.integers(1, 60),
    records=st.lists(st.integers(1, 4), min_size=60, max_size=60),
    start=st.integers(0, 5),
    gaps=st.sets(st.integers(0, 59), max_size=40),
    missing=st.integers(0, 5),
    cuts=st.lists(st.integers(0, 300), max_size=6),
    floats=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_numbers_handed_out_in_order_are_told_in_parts_as_whole(
    people, records, start, gaps, missing, cuts, floats, seed
):
    """Person numbers ``start`` to ``start + people - 1``, some left out (the gaps), each on
    1 to 4 rows, shuffled, some rows missing the number, cut into pieces (floats where a piece
    misses one, as a CSV block is read): merged, the pieces say what the whole column and the
    definition, row by row, say of their numbering, numbers handed out in order or not."""
    numbers = [start + i for i in range(people) if i not in gaps]
    values: list = [n for n, k in zip(numbers, records, strict=False) for _ in range(k)]
    values += [None] * missing
    values = [values[i] for i in np.random.default_rng(seed).permutation(len(values))]
    column = pd.Series([np.nan if v is None else float(v) for v in values])
    bounds = [0, *sorted(c % (len(column) + 1) for c in cuts), len(column)]
    pieces = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece = column.iloc[a:b]
        whole = piece.notna().all() and not floats
        pieces.append((piece.astype("int64") if whole else piece).to_frame("id"))
    got = merged([tally(p, ["id"]) for p in pieces], ["id"])["id"]
    assert got == repetition(column) == _oracle(values)


def test_no_numbering_of_negative_numbers_decimals_booleans_or_text():
    """Whole numbers from 0 fill their range; shifted below 0, with decimals, as booleans or as
    text they are no numbers handed out in order."""
    ids = np.repeat(np.arange(300), 2)
    assert repetition(pd.Series(ids)).numbering == Numbering(0.0, 299.0, 1.0, 0.0)
    for other in (ids - 5, ids + 0.5, ids % 2 == 0, ids.astype(str)):
        assert repetition(pd.Series(other)).numbering is None


def test_lme4_insteval_s_student_and_lecturer_numbers_in_parts():
    """lme4's InstEval in 5 parts: the students' numbers ``s`` (2,972, 1 to 2,972) and the
    lecturers' ``d`` (1,128, 1 to 2,160) look handed out in order, merged as on the whole
    column, and pass the id-code test under any name that may be a code's (``rater``), not
    under a count's (``children``); the student's age class ``studage`` (4 values) does not
    pass (too few values)."""
    frame = survey("insteval")
    columns = ["s", "d", "studage"]
    parts = [frame[columns].iloc[rows] for rows in np.array_split(np.arange(len(frame)), 5)]
    counted = merged([tally(p, columns) for p in parts], columns)
    assert counted == {c: repetition(frame[c]) for c in columns}
    s, d, age = (counted[c] for c in columns)
    assert s.numbering is not None and (s.numbering.low, s.numbering.high) == (1, 2972)
    assert s.numbering.fill == 1.0
    assert d.numbering is not None and (d.numbering.low, d.numbering.high) == (1, 2160)
    assert round(d.numbering.fill, 3) == round(1128 / 2160, 3)
    assert coded("rater", s) == s.numbering and coded("lecturer", d) == d.numbering
    assert coded("children", s) is None and coded("studage", age) is None


def test_the_warning_counts_the_rows_that_hold_an_id():
    """An id missing on some rows: its values repeat on the rows that hold one, which the
    warning counts apart from the table's rows (the sweep had read "499 values on 1,787
    rows" where 60 rows had no id)."""
    ids = [None] * 60 + [i // 3 for i in range(1500)]
    found = repetition(pd.Series(ids, name="id", dtype="Int64"))
    assert (found.distinct, found.rows, found.held) == (500, 1560, 1500)
    (note,) = repeated_id_notes({"id": found})
    assert note.startswith(
        "'id', dropped as an identifier, repeats (500 values on the 1,500 of 1,560 rows that "
        "hold one): "
    )
