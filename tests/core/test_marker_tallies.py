"""The missing-value markers of other software (R's ``NA`` read as text) tallied on a table's
parts, each part's distinct values looked at once, and merged in the parts' order
(:func:`~microanon.core.reading.marker_columns`): the columns, markers, rows and kinds that
:func:`~microanon.core.reading.missing_marker_columns` finds in the whole table. The Dask engine
tallies them so in the pass that encodes the input; the in-memory run counts the whole table."""

from __future__ import annotations

import contextlib

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.factorize import code_columns, shared_codes
from microanon.core.reading import (
    MarkerColumn,
    MarkerTally,
    marker_columns,
    marker_tallies,
    missing_marker_columns,
)

SETTINGS = settings(max_examples=200, deadline=None)

#: Markers as files write them (with stray spaces too), numbers written as text, answers.
MARKERS = ["NA", " NA", "NA ", "N/A", "#N/A", "NaN", "nan", "NULL", "<NA>", ".", " . "]
NUMBERS = ["1", "2.5", "-3", " 4", "1e3"]
ANSWERS = ["yes", "no", "a.b"]


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    """Two text columns drawn from a few values each (ties between markers are frequent), one
    of them numbers with markers or also answers, missing values among them, and a number
    column."""
    rows = draw(st.integers(0, 40))

    def column(pool: list[str | None]) -> list[str | None]:
        few = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5))
        return draw(st.lists(st.sampled_from(few), min_size=rows, max_size=rows))

    numbers = NUMBERS + MARKERS + [None] + (ANSWERS if draw(st.booleans()) else [])
    return pd.DataFrame(
        {
            "n": pd.Series(column(numbers), dtype=object),
            "t": pd.Series(column(ANSWERS + MARKERS + [None]), dtype=object),
            "x": pd.Series(
                draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)), dtype="int64"
            ),
            # a survey's codes among numbers, below or above (a gap or none, -1 beside 1
            # alone, 99 beside 95)
            "c": pd.Series(
                draw(
                    st.lists(
                        st.sampled_from(
                            [-9.0, -8.0, -1.0, 0.0, 1.0, 2.0, 30.0, 95.0, 98.0, 99.0, float("nan")]
                        ),
                        min_size=rows,
                        max_size=rows,
                    )
                ),
                dtype="float64",
            ),
        }
    )


def _pieces(table: pd.DataFrame, cuts: list[int], categories: bool) -> list[pd.DataFrame]:
    """``table`` cut into consecutive pieces at ``cuts`` (some may be empty), their text as
    categories when ``categories`` (as the Dask engine reads a Parquet file's text)."""
    bounds = [0, *sorted(c % (len(table) + 1) for c in cuts), len(table)]
    pieces = [table.iloc[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    if categories:
        pieces = [p.astype({"n": "category", "t": "category"}) for p in pieces]
    return pieces


@SETTINGS
@given(
    tables(),
    st.lists(st.integers(0, 40), max_size=4),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_parts_tallied_and_merged_give_the_whole_table_s_markers(
    table, cuts, text, categories, shared
):
    """Whatever the cuts (empty parts, a part without a marker or without another value), the
    parts' types (text or categories) and the whole table's (objects or strings), its rows
    counted from the codes a run made when it read it (``shared``, as in memory) or from its
    distinct values: the same columns, the same most frequent marker (the first to appear of a
    tie), its rows and whether the column is numbers otherwise (a ``.`` a marker only then)."""
    whole = table.astype({"n": "str", "t": "str"}) if text else table
    columns = ["n", "t", "x", "c"]
    parts = [marker_tallies(p, columns, every=True) for p in _pieces(table, cuts, categories)]
    with shared_codes() if shared else contextlib.nullcontext():
        code_columns(whole[c] for c in whole.columns)  # (nothing outside shared_codes)
        expected = missing_marker_columns(whole)
    assert marker_columns(parts, columns) == expected
    assert "x" not in expected  # (numbers without a code)


def test_a_tie_is_named_with_the_first_marker_to_appear_and_a_dot_only_among_numbers():
    """Two markers as frequent: the one seen first, its stray spaces stripped; a ``.`` beside
    answers is an answer, beside numbers a marker."""
    parts = [
        {"c": MarkerTally((("NULL ", 2),), others=True, numbers=True)},
        {"c": MarkerTally((("NA", 2), (".", 3)), others=False, numbers=True)},
    ]
    assert marker_columns(parts, ["c"]) == {"c": MarkerColumn(".", 3, True)}
    parts[0]["c"] = MarkerTally((("NULL ", 2),), others=True, numbers=False)
    assert marker_columns(parts, ["c"]) == {"c": MarkerColumn("NULL", 2, False)}
    only_dot = [{"c": MarkerTally(((".", 5),), others=True, numbers=False)}]
    assert marker_columns(only_dot, ["c"]) == {}
