"""A column of numbers, mostly of distinct values, that gives a quasi-identifier back in its order
(:func:`microanon.core.lint._neighbour_findings`): a record's key read off the records next to it
when the column is sorted. Against a plain reference on random tables (hypothesis), on tables
whose key is a threshold of the column, and on MASS's ``Aids2`` (2,843 patients), whose date of
death is the end of the follow-up for the patients alive."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.core.lint import DEPENDENCY_STRENGTH, lint_schema


def _plain_order(values: list[float]) -> list[int]:
    """The rows of known values by value, ties by the scrambled position (as the lint)."""
    rows = [i for i, v in enumerate(values) if not np.isnan(v)]
    return sorted(rows, key=lambda i: (values[i], (i * 2654435761) % 2**32))


def _plain_strength(values: list[float], key: list[int]) -> float:
    """A record's key is read right when both records next to it in the column's order hold
    it (the one next to it at either end); strength against always guessing the most frequent
    key of those rows."""
    order = _plain_order(values)
    codes = [key[i] for i in order]
    n = len(codes)
    hits = sum(all(codes[j] == codes[i] for j in (i - 1, i + 1) if 0 <= j < n) for i in range(n))
    base = max(codes.count(c) for c in set(codes)) / n
    return 0.0 if base >= 1 else max(0.0, (hits / n - base) / (1 - base))


def _restored(df: pd.DataFrame, column: str = "x") -> set[str]:
    """The quasi-identifiers the sensitive ``column`` restores, by the lint."""
    roles = {c: "quasi" for c in df.columns if c != column} | {column: "sensitive"}
    report = lint_schema(df, roles)
    return {q for r in report.restoring for q in r.quasi if column in r.columns}


def _plain_group_strength(values: list[float], key: list[int]) -> float:
    """The lint's test by groups of equal values: a record's key is read right when it is the
    strict majority among the other records of its value."""
    hits = 0
    for i, v in enumerate(values):
        others = [key[j] for j, u in enumerate(values) if u == v and j != i]
        tally = {c: others.count(c) for c in set(others)}
        best = max(tally.values(), default=0)
        hits += tally.get(key[i], -1) == best and list(tally.values()).count(best) == 1
    base = max(key.count(c) for c in set(key)) / len(key)
    return 0.0 if base >= 1 else max(0.0, (hits / len(key) - base) / (1 - base))


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    rows = draw(st.integers(30, 150))
    top = draw(st.sampled_from([40, 400, 10_000]))  # (ties or not)
    values = draw(st.lists(st.integers(0, top).map(float), min_size=rows, max_size=rows))
    cut = draw(st.integers(0, top))
    flips = set(draw(st.lists(st.integers(0, rows - 1), max_size=rows // 3)))
    random_key = draw(st.booleans())
    key = [
        draw(st.integers(0, 2)) if random_key else int(v >= cut) ^ int(i in flips)
        for i, v in enumerate(values)
    ]
    return values, key


@settings(max_examples=150, deadline=None)
@given(tables())
def test_the_finding_is_the_plain_definition(table):
    values, key = table
    df = pd.DataFrame({"x": values, "q": key})
    distinct = len(set(values))
    mostly_distinct = distinct > 50 and distinct * 20 >= len(values)
    by_groups = _plain_group_strength(values, key) >= DEPENDENCY_STRENGTH
    in_order = mostly_distinct and _plain_strength(values, key) >= DEPENDENCY_STRENGTH
    assert ("q" in _restored(df)) == (by_groups or in_order)


def test_a_threshold_with_a_few_exceptions_is_found_and_noise_is_not():
    rng = np.random.default_rng(7)
    x = rng.permutation(2_000).astype(float)
    alive = (x >= 1_500).astype(int)
    alive[rng.choice(1_500, 15, replace=False)] = 1  # lost to follow-up early
    df = pd.DataFrame({"x": x, "alive": alive, "coin": rng.integers(0, 2, 2_000)})
    assert _restored(df) == {"alive"}


def test_the_file_order_of_tied_rows_is_no_closeness():
    """Sixty values, each on ten rows of each of two blocks of the file, and a key that numbers
    the blocks: the rows of one value in the file's order would stand in two runs of the key,
    which must not pass for closeness."""
    x = np.tile(np.random.default_rng(3).permutation(60), 20).astype(float)
    df = pd.DataFrame({"x": x, "block": np.repeat([0, 1], 600)})
    assert _restored(df) == set()


def test_aids2_date_of_death_restores_status():
    """MASS's Aids2: ``death`` is the day of death, or the end of the follow-up (day 11,504)
    for 1,064 of the 1,082 patients alive; no value but that one is shared by many records,
    so the tests by groups of equal values find nothing, while the order tells who died."""
    df = rdataset("MASS", "Aids2")
    roles = {
        "state": "quasi",
        "sex": "quasi",
        "T.categ": "quasi",
        "status": "quasi",
        "age": "quasi",
        "diag": "identifier",
        "death": "sensitive",
    }
    report = lint_schema(df, roles)
    (restoring,) = report.restoring
    assert restoring.columns == ("death",) and restoring.quasi == ("status",)
    assert restoring.strengths[0] > 0.95
    assert "death determines quasi-identifier(s) status" in " ".join(report.cautions)
