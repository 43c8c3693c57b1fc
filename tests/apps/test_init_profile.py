"""``microanon init``'s column profiles (:func:`microanon.apps.init.profile.profile_column`),
which count the values from the column's codes and test each distinct text once, against
their definition on the rows: the values counted by ``value_counts`` and merged by lookup key,
every row's text tested."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.init.profile import (
    _DIGITS,
    CODE_NAMES,
    ColumnProfile,
    _date_format,
    _is_number,
    _whole,
    normalized_name,
    profile_column,
)
from microanon.core.hierarchy import value_key


def _by_rows(col: pd.Series, name: str) -> ColumnProfile:
    """The profile as defined on the rows (the implementation before the codes)."""
    rows = len(col)
    present = col.dropna()
    raw = present.value_counts()
    counts = raw.groupby(raw.index.map(value_key)).sum() if len(raw) else raw
    common = {
        "name": name,
        "rows": rows,
        "distinct": int(len(counts)),
        "unique_share": float(counts[counts == 1].sum() / rows) if rows else 0.0,
        "missing_share": float((rows - len(present)) / rows) if rows else 0.0,
    }
    if pd.api.types.is_datetime64_any_dtype(col):
        return ColumnProfile(type="date", **common)
    if _is_number(col):
        whole = _whole(present)
        if whole and len(present) and CODE_NAMES.search(normalized_name(name)):
            if (present >= 0).all():
                width = int(present.astype("int64").astype(str).str.len().max())
                return ColumnProfile(type="code", width=width, integer=True, **common)
        skew = present.skew() if len(present) > 2 else 0.0
        return ColumnProfile(
            type="numeric",
            integer=whole,
            low=float(present.min()) if len(present) else None,
            high=float(present.max()) if len(present) else None,
            skew=0.0 if pd.isna(skew) else float(skew),
            **common,
        )
    text = present.astype(str).str.strip()
    if len(text) and text.str.fullmatch(_DIGITS).all():
        lengths = text.str.len()
        if lengths.nunique() == 1 and int(lengths.iloc[0]) >= 2:
            return ColumnProfile(type="code", width=int(lengths.iloc[0]), **common)
    fmt = _date_format(text)
    if fmt is not None:
        return ColumnProfile(type="date", date_format=fmt, **common)
    return ColumnProfile(type="categorical", **common)


_TEXTS = [
    "01234",
    "98765",
    "0042",
    " 01234",
    "01234 ",
    "7",
    "2012-01-22",
    "2012-01-22 00:00:00",
    "2012-1-5",
    "2012/01/22",
    "22.01.2012",
    "05/01/2012",
    "22/01/2012",
    "01/22/2012",
    "05-01-2012",
    "2012-13-40",
    "yes",
    " yes",
    "no",
    "",
]
_NUMBERS = [0.0, -0.0, 1.0, 25.0, 25.5, -3.0, 1e20, 2.0**53, float("inf"), -float("inf")]
#: Values equal to one another or keyed alike, written apart (``str``): a column holds some.
_OBJECTS = [
    [1, 1.0, True, "1", " 1", "1 "],
    [25, 25.0, "25", " 25", np.int64(25)],
    [0, False, 0.0, -0.0, "0"],
    [10, 10.0, 12, 12.5, "a", "2012-01-22"],
]
_MISSING = st.sampled_from([None, np.nan, pd.NA])


@st.composite
def _columns(draw: st.DrawFn) -> pd.Series:
    """Columns of numbers, texts (digit codes, dates of each layout, words, with spaces),
    values of mixed types that are equal or keyed alike (1, 1.0, True, "1", " 1"), booleans,
    categories some row lacks and datetimes, with missing values."""
    kind = draw(
        st.sampled_from(["int", "float", "text", "object_text", "mixed", "bool", "category", "dt"])
    )
    n = draw(st.integers(0, 40))
    gaps = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if kind == "int":
        values = draw(st.lists(st.integers(-5, 10**6), min_size=n, max_size=n))
        col = pd.Series(values, dtype="int64")
        return col if not any(gaps) else pd.Series(values, dtype="Int64").mask(np.array(gaps))
    if kind == "float":
        values = draw(st.lists(st.sampled_from(_NUMBERS), min_size=n, max_size=n))
        return pd.Series(values, dtype=float).mask(np.array(gaps, dtype=bool))
    if kind in ("text", "object_text"):
        pool = draw(st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=4))
        values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        dtype = "str" if kind == "text" else object
        return pd.Series(values, dtype=dtype).mask(np.array(gaps, dtype=bool))
    if kind == "mixed":
        pool = draw(st.lists(st.sampled_from(draw(st.sampled_from(_OBJECTS))), min_size=1))
        values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        return pd.Series(
            [draw(_MISSING) if g else v for v, g in zip(values, gaps, strict=True)],
            dtype=object,
        )
    if kind == "bool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind == "category":
        values = draw(st.lists(st.sampled_from(["a", "b", " a"]), min_size=n, max_size=n))
        categories = ["a", "b", " a", "unused"]
        return pd.Series(pd.Categorical(values, categories=categories)).mask(
            np.array(gaps, dtype=bool)
        )
    days = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return pd.Series(pd.to_datetime(np.array(days), unit="D")).mask(np.array(gaps, dtype=bool))


@settings(max_examples=300, deadline=None)
@given(_columns(), st.sampled_from(["value", "zip"]))
def test_a_column_is_profiled_as_on_its_rows(col, name):
    assert profile_column(col, name) == _by_rows(col, name)


def test_real_surveys_are_profiled_as_on_their_rows():
    """Every column of four real surveys (texts, numbers, ids, missing values), and the GSS
    happiness file resampled to 200,000 rows."""
    for name in ("happiness", "cps1988", "gss_abortion", "ess9gb"):
        frame = survey(name)
        for c in frame.columns:
            assert profile_column(frame[c], str(c)) == _by_rows(frame[c], str(c)), (name, c)
    happiness = survey("happiness")
    rows = np.random.default_rng(4).integers(0, len(happiness), 200_000)
    resampled = happiness.iloc[rows].reset_index(drop=True)
    for c in resampled.columns:
        assert profile_column(resampled[c], str(c)) == _by_rows(resampled[c], str(c)), c


def test_a_constant_nullable_integer_column_has_no_skew():
    """pandas gives the skew of a constant Int64 column as NA, which init read as a float."""
    column = pd.Series([0, 0, 0, None], dtype="Int64")
    assert profile_column(column, "value").skew == 0.0
