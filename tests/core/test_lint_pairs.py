"""Which pairs of coded columns may tell one another, all pairs at once
(:func:`microanon.core.lint_pairs.may_tell`), against the definition tested pair by pair; and
the lint's findings of a column that gives a sensitive column back, found alone, against the
whole lint's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import lint_pairs
from microanon.core.lint import COARSE_KIND, COPY_KIND, lint_schema, sensitive_given
from microanon.core.lint_pairs import may_tell
from microanon.core.schema import Schema


def _stands(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether each value of ``x`` stands for one value of ``y``."""
    return all(len(set(y[x == v].tolist())) <= 1 for v in set(x.tolist()))


def _pair(x: np.ndarray, y: np.ndarray) -> bool:
    both = (x >= 0) & (y >= 0)
    return _stands(x[both], y[both]) or _stands(y[both], x[both])


@st.composite
def columns(draw: st.DrawFn) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rows = draw(st.integers(1, 30))

    def coded() -> st.SearchStrategy[np.ndarray]:
        card = draw(st.integers(1, 5))
        values = st.lists(st.integers(-1, card - 1), min_size=rows, max_size=rows)
        return values.map(lambda v: np.asarray(v, dtype=np.int64))

    xs = [draw(coded()) for _ in range(draw(st.integers(0, 8)))]
    ys = [draw(coded()) for _ in range(draw(st.integers(0, 4)))]
    return xs, ys


@settings(max_examples=300, deadline=None)
@given(columns(), st.integers(1, 12), st.integers(0, 6))
def test_every_pair_as_the_definition_says(cols: tuple, block: int, wide: int) -> None:
    xs, ys = cols
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lint_pairs, "BLOCK_VALUES", block)  # blocks of a few values
        patch.setattr(lint_pairs, "WIDE_VALUES", wide)  # some columns tested pair by pair
        got = may_tell(xs, ys)
    expected = [[_pair(x, y) for y in ys] for x in xs]
    assert got.shape == (len(xs), len(ys))
    assert got.tolist() == expected


def test_a_pair_of_dummies_and_a_level() -> None:
    level = np.array([0, 1, 2, 0, 1, 2, -1])
    dummy = np.array([1, 0, 0, 1, 0, 0, 0])  # level 0 or not: the level coarsened
    noise = np.array([0, 1, 1, 0, 0, 1, 1])
    assert may_tell([dummy, noise, level], [level]).ravel().tolist() == [True, False, True]


def test_columns_of_many_values_pair_by_pair() -> None:
    """A name or an amount (a value per record) beside columns of few values: its pairs are
    tested by counting distinct values, with the same answers as the definition."""
    rng = np.random.default_rng(7)
    rows = 600
    unique = rng.permutation(rows)  # a value per record: it tells every column
    region = rng.integers(0, 5, rows)
    town = region * 40 + rng.integers(0, 40, rows)  # 200 values, each in one region
    town[rng.random(rows) < 0.1] = -1
    noise = rng.integers(0, 300, rows)
    xs, ys = [unique, region, town, noise], [region, town, noise]
    expected = [[_pair(x, y) for y in ys] for x in xs]
    assert may_tell(xs, ys).tolist() == expected
    assert expected[0] == [True, True, True] and expected[2][0] and not expected[3][0]


@st.composite
def linted_tables(draw: st.DrawFn) -> tuple[pd.DataFrame, Schema]:
    """A table of a few coded columns, each given a role at random (quasi-identifiers,
    published columns and sensitive ones, one of them a coarsening or a copy of another, so that
    findings occur), missing cells included."""
    rows = draw(st.integers(2, 40))
    frame: dict[str, list] = {}
    for i in range(draw(st.integers(2, 7))):
        card = draw(st.integers(1, 6))
        values = draw(st.lists(st.integers(-1, card - 1), min_size=rows, max_size=rows))
        frame[f"c{i}"] = [None if v < 0 else v for v in values]
    names = list(frame)
    source, target = draw(st.sampled_from(names)), f"c{len(names)}"
    halve = draw(st.booleans())  # a coarsening (every two values one) or a copy
    frame[target] = [None if v is None else (v // 2 if halve else v + 10) for v in frame[source]]
    roles = st.sampled_from(["quasi", "insensitive", "sensitive", "strata"])
    spec = {c: draw(roles) for c in frame}
    data = pd.DataFrame({c: pd.array(v, dtype="Int64") for c, v in frame.items()})
    return data, Schema.from_dict(spec)


@settings(max_examples=200, deadline=None)
@given(linted_tables())
def test_the_sensitive_findings_alone_are_the_whole_lint_s(table: tuple) -> None:
    """:func:`~microanon.core.lint.sensitive_given` finds what the whole lint finds of the
    kinds determines_sensitive and coarsens_sensitive, without its scan of every pair."""
    data, schema = table
    whole = lint_schema(data, schema).findings
    assert sensitive_given(data, schema) == [f for f in whole if f.kind in (COPY_KIND, COARSE_KIND)]


@settings(max_examples=200, deadline=None)
@given(linted_tables(), st.data())
def test_the_sensitive_findings_of_some_columns_are_theirs_of_all(table: tuple, data) -> None:
    """:func:`~microanon.core.lint.sensitive_given` restricted to some columns (``of``) finds
    what it finds of them on every column: their own pairs, and the sensitive columns they give
    back together with others."""
    frame, schema = table
    of = data.draw(st.lists(st.sampled_from(list(frame.columns)), max_size=3, unique=True))
    every = sensitive_given(frame, schema)
    assert sensitive_given(frame, schema, of=of) == [f for f in every if f.column in of]
