"""Property tests: every measure given a frequency table (``counts=``) gives what it gives on the
table that frequency table summarizes, its rows repeated (the row-based reference).

Tables are small and random, with repeated rows, suppressed cells and (where a measure accepts
them) missing values; the frequency tables are built both by
:class:`microanon.apps.release_frequencies.Combinations` (combinations in order of first
appearance) and with arbitrary counts in arbitrary order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from letters import LETTERS

from microanon.apps.release_frequencies import Combinations
from microanon.measures import (
    attacker_risks,
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    non_uniform_entropy,
    population_uniqueness,
    precision,
)

SETTINGS = settings(max_examples=40, deadline=None)

#: What a published cell of ``a`` may hold, and the original value each covers.
COVERS = {"a": "a", "b": "b", "c": "c", "d": "d", "e": "e", "ab": "ab", "cd": "cd", "*": "*"}


def expand(values: pd.DataFrame, counts: np.ndarray) -> pd.DataFrame:
    """The rows a frequency table summarizes (the reference every measure is compared on)."""
    return values.loc[np.repeat(np.arange(len(values)), counts)].reset_index(drop=True)


@st.composite
def published(draw: st.DrawFn, missing: bool = False) -> pd.DataFrame:
    """A generalized table: ``a`` (labels of LETTERS), ``n`` (numbers 0-5, ranges or ``*``),
    ``s`` (a sensitive value; missing ones allowed with ``missing``)."""
    rows = draw(st.integers(1, 25))
    labels = st.sampled_from(sorted(COVERS))
    numbers = st.sampled_from([0, 1, 2, 3, 4, 5, "[0, 2]", "[3, 5]", "*"])
    sensitive = st.sampled_from(["x", "y", "z", None] if missing else ["x", "y", "z"])
    return pd.DataFrame(
        {
            "a": draw(st.lists(labels, min_size=rows, max_size=rows)),
            "n": [str(v) for v in draw(st.lists(numbers, min_size=rows, max_size=rows))],
            "s": draw(st.lists(sensitive, min_size=rows, max_size=rows)),
        }
    )


@st.composite
def frequency_table(draw: st.DrawFn, missing: bool = False) -> tuple[pd.DataFrame, np.ndarray]:
    """Any rows (duplicates allowed, any order) with any counts >= 1."""
    values = draw(published(missing))
    size = len(values)
    counts = np.asarray(draw(st.lists(st.integers(1, 4), min_size=size, max_size=size)))
    return values, counts


def both(table: tuple[pd.DataFrame, np.ndarray]) -> list[tuple[pd.DataFrame, np.ndarray]]:
    """The drawn frequency table, and the one :class:`Combinations` builds from its rows."""
    values, counts = table
    rows = expand(values, counts)
    combos = Combinations.of(rows, list(rows.columns))
    assert combos.records == len(rows)
    return [(values, counts), (combos.values, combos.counts)]


DOMAIN = {"n": [0, 1, 2, 3, 4, 5]}


@SETTINGS
@given(frequency_table(), st.integers(0, 3))
def test_information_loss_from_counts_equals_rows(table, suppressed):
    rows = expand(*table)
    hs = {"a": LETTERS}
    lm = loss_metric(rows, hs, ["a", "n"], suppressed=suppressed, domains=DOMAIN)
    gcp = ncp(rows, hs, ["a", "n"], suppressed=suppressed, domains=DOMAIN, numeric_ranges=True)
    prec = precision(rows, hs, ["a"], suppressed=suppressed)
    for values, counts in both(table):
        got = loss_metric(
            values, hs, ["a", "n"], suppressed=suppressed, domains=DOMAIN, counts=counts
        )
        assert got == lm
        assert (
            ncp(
                values,
                hs,
                ["a", "n"],
                suppressed=suppressed,
                domains=DOMAIN,
                numeric_ranges=True,
                counts=counts,
            )
            == gcp
        )
        assert precision(values, hs, ["a"], suppressed=suppressed, counts=counts) == prec


@SETTINGS
@given(frequency_table(missing=True), st.integers(0, 3))
def test_classes_from_counts_equal_rows(table, suppressed):
    rows = expand(*table)
    stats = equivalence_classes(rows, ["a", "n"])
    disc = discernibility(rows, ["a", "n"], suppressed=suppressed)
    for values, counts in both(table):
        got = equivalence_classes(values, ["a", "n"], counts=counts)
        assert sorted(got.sizes) == sorted(stats.sizes)
        assert (got.count, got.rows, got.min_size, got.max_size) == (
            stats.count,
            stats.rows,
            stats.min_size,
            stats.max_size,
        )
        assert got.histogram().equals(stats.histogram())
        assert discernibility(values, ["a", "n"], suppressed=suppressed, counts=counts) == disc


@SETTINGS
@given(frequency_table(), st.sampled_from([None, 0.5, 0.1]))
def test_attacker_and_uniqueness_from_counts_equal_rows(table, fraction):
    rows = expand(*table)
    ref = attacker_risks(rows, ["a", "n"], fraction=fraction).to_dict()
    people = rows.assign(k=3)
    by_people = attacker_risks(rows, ["a"], population=people, count="k").to_dict()
    pu = population_uniqueness(rows, ["a", "n"], population_size=10 * len(rows)).to_dict()
    for values, counts in both(table):
        assert attacker_risks(values, ["a", "n"], fraction=fraction, counts=counts).to_dict() == ref
        got = attacker_risks(values, ["a"], population=people, count="k", counts=counts)
        assert got.to_dict() == by_people
        assert (
            population_uniqueness(
                values, ["a", "n"], population_size=10 * len(rows), counts=counts
            ).to_dict()
            == pu
        )


@st.composite
def aligned(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Original values of ``a`` with a published cell covering each, and counts per row."""
    rows = draw(st.integers(1, 20))
    leaves = draw(st.lists(st.sampled_from("abcde"), min_size=rows, max_size=rows))
    parents = {"a": "ab", "b": "ab", "c": "cd", "d": "cd", "e": "e"}
    cells = [draw(st.sampled_from([v, parents[v], "*"])) for v in leaves]
    counts = np.asarray(draw(st.lists(st.integers(1, 4), min_size=rows, max_size=rows)))
    return pd.DataFrame({"a": leaves}), pd.DataFrame({"a": cells}), counts


@SETTINGS
@given(aligned())
def test_non_uniform_entropy_from_counts_equals_rows(tables):
    original, generalized, counts = tables
    ref = non_uniform_entropy(
        expand(original, counts), expand(generalized, counts), ["a"], {"a": LETTERS}
    )
    got = non_uniform_entropy(original, generalized, ["a"], {"a": LETTERS}, counts=counts)
    assert got.total == ref.total
    assert got.normalized == ref.normalized
    both_sides = pd.concat([original, generalized.rename(columns={"a": "g"})], axis=1)
    combos = Combinations.of(expand(both_sides, counts), ["a", "g"])
    pairs = non_uniform_entropy(
        combos.values[["a"]],
        combos.values[["g"]].set_axis(["a"], axis=1),
        ["a"],
        {"a": LETTERS},
        counts=combos.counts,
    )
    assert pairs.total == ref.total
    assert pairs.normalized == ref.normalized
