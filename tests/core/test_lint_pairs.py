"""Which pairs of coded columns may tell one another, all pairs at once
(:func:`microanon.core.lint_pairs.may_tell`), against the definition tested pair by pair."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import lint_pairs
from microanon.core.lint_pairs import may_tell


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
