"""Non-uniform entropy: hand-computed examples, a plain-Python reference, Adult."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy, Table
from microanon.core.errors import HierarchyError, InputError
from microanon.datasets import adult_hierarchies, adult_schema, load_adult
from microanon.measures.entropy import non_uniform_entropy

SETTINGS = settings(max_examples=120, deadline=None)

LETTERS = Hierarchy.from_paths([["*", "ab", "a"], ["*", "ab", "b"], ["*", "c", "c"]], name="x")


# ------------------------------------------------------------------------------ worked examples
def test_hierarchy_example_by_hand():
    original = pd.DataFrame({"x": ["a", "a", "b", "c"]})
    published = pd.DataFrame({"x": ["ab", "a", "ab", "*"]})
    result = non_uniform_entropy(original, published, ["x"], {"x": LETTERS})
    # a under ab: P = 2/3; a exact: 1; b under ab: 1/3; c under *: 1/4.
    expected = math.log2(3 / 2) + math.log2(3) + 2
    assert result.total == pytest.approx(expected)
    assert result.per_attribute == {"x": pytest.approx(expected)}
    # Full suppression costs N * H = 2*1 + 1*2 + 1*2 = 6 bits.
    assert result.normalized == pytest.approx(expected / 6)
    assert float(result) == result.total
    assert result.to_dict()["normalized"] == result.normalized


def test_removed_rows_count_as_fully_suppressed():
    original = pd.DataFrame({"x": ["a", "a", "b", "c"]})
    published = pd.DataFrame({"x": ["ab", "ab", "*"]})
    kept = np.array([True, False, True, True])
    result = non_uniform_entropy(original, published, ["x"], {"x": LETTERS}, kept=kept)
    # Row 1: a under ab (2/3); row 2 removed: a under * (2/4); b under ab (1/3); c under * (1/4).
    expected = math.log2(3 / 2) + 1 + math.log2(3) + 2
    assert result.total == pytest.approx(expected)
    everything = non_uniform_entropy(
        original, original.iloc[:0], ["x"], kept=np.zeros(4, dtype=bool)
    )
    assert everything.total == pytest.approx(6.0)
    assert everything.normalized == pytest.approx(1.0)


def test_numeric_ranges_without_hierarchy():
    original = pd.DataFrame({"age": [20, 25, 30, 30], "sex": ["M", "F", "M", "M"]})
    published = pd.DataFrame(
        {"age": ["[20, 25]", "[20, 30)", "30", "(20, 30]"], "sex": ["*", "*", "M", "M"]}
    )
    result = non_uniform_entropy(original, published, ["age", "sex"])
    # age: 20 in [20,25] (1 of 2), 25 in [20,30) (1 of 2), 30 exact, 30 in (20,30] (2 of 3).
    assert result.per_attribute["age"] == pytest.approx(1 + 1 + 0 + math.log2(3 / 2))
    # sex: M under * (3/4), F under * (1/4), M exact twice.
    assert result.per_attribute["sex"] == pytest.approx(math.log2(4 / 3) + 2)
    assert result.total == pytest.approx(sum(result.per_attribute.values()))


def test_unmodified_data_loses_nothing():
    df = pd.DataFrame({"x": ["a", "b", "c", "a"], "age": [1, 2, 3, 4]})
    result = non_uniform_entropy(df, df, ["x", "age"], {"x": LETTERS})
    assert result.total == 0.0
    assert result.normalized == 0.0


def test_constant_column_normalizes_to_zero():
    df = pd.DataFrame({"x": ["a", "a"]})
    result = non_uniform_entropy(df, pd.DataFrame({"x": ["*", "*"]}), ["x"])
    assert result.total == 0.0 and result.normalized == 0.0


# ------------------------------------------------------------------------------ errors
def test_errors():
    original = pd.DataFrame({"x": ["a", "b", "c"]})
    with pytest.raises(InputError, match="pass 'kept'"):
        non_uniform_entropy(original, original.iloc[:2], ["x"])
    with pytest.raises(InputError, match="boolean"):
        non_uniform_entropy(original, original.iloc[:2], ["x"], kept=[1, 1, 0])
    with pytest.raises(InputError, match="marks 1 rows"):
        non_uniform_entropy(original, original.iloc[:2], ["x"], kept=np.array([True, False, False]))
    with pytest.raises(InputError, match="does not cover the original value 'b'"):
        non_uniform_entropy(original, pd.DataFrame({"x": ["a", "c", "c"]}), ["x"])
    with pytest.raises(InputError, match="'zz'"):
        non_uniform_entropy(original, pd.DataFrame({"x": ["a", "zz", "c"]}), ["x"])
    with pytest.raises(InputError, match="not a Hierarchy"):
        non_uniform_entropy(original, original, ["x"], {"x": "nope"})
    with pytest.raises(HierarchyError, match="'d'"):
        non_uniform_entropy(
            pd.DataFrame({"x": ["a", "d"]}), pd.DataFrame({"x": ["a", "d"]}), ["x"], {"x": LETTERS}
        )
    with pytest.raises(InputError, match="absent|not in|missing|column"):
        non_uniform_entropy(original, original, ["y"])


# ------------------------------------------------------------------------------ reference
def reference_entropy(original, published, quasi, trees, kept):
    """Row-by-row -log2 P(v | g) with covers from root-to-leaf paths (or exact / '*')."""
    total = 0.0
    pub_rows = iter(published.to_dict("records"))
    for row, keep in zip(original.to_dict("records"), kept, strict=True):
        pub = next(pub_rows) if keep else dict.fromkeys(quasi, "*")
        for c in quasi:
            freq = Counter(original[c])
            g = pub[c]
            if g == "*":
                covered = set(freq)
            elif c in trees:
                covered = {p[-1] for p in trees[c] if g in p}
            else:
                covered = {g}
            total += -math.log2(freq[row[c]] / sum(freq[v] for v in covered))
    return total


TREE = [["*", "young", 20], ["*", "young", 30], ["*", "old", 40], ["*", "old", 50]]


@st.composite
def cases(draw):
    n = draw(st.integers(1, 25))
    original = pd.DataFrame(
        {
            "x": draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n)),
            "age": draw(st.lists(st.sampled_from([20, 30, 40, 50]), min_size=n, max_size=n)),
        }
    )
    kept = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    level = {"x": draw(st.integers(0, 2)), "age": draw(st.integers(0, 2))}
    return original, kept, level


@SETTINGS
@given(cases())
def test_matches_reference_on_recoded_tables(case):
    original, kept, level = case
    age = Hierarchy.from_paths(TREE, name="age")
    schema = {
        "x": {"role": "quasi", "hierarchy": LETTERS},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": age},
    }
    published = Table.from_frame(original, schema).recode(level).to_frame()[kept]
    trees = {"x": LETTERS.paths(), "age": TREE}
    result = non_uniform_entropy(
        original, published, ["x", "age"], {"x": LETTERS, "age": age}, kept=kept
    )
    assert result.total == pytest.approx(
        reference_entropy(original, published, ["x", "age"], trees, kept), abs=1e-9
    )
    assert result.total >= 0
    assert 0 <= result.normalized <= 1
    if kept.all() and level == {"x": 0, "age": 0}:
        assert result.total == 0


def test_adult_monotone_in_the_level():
    df = load_adult()
    schema = adult_schema(sensitive="occupation")
    table = Table.from_frame(df, schema)
    hs = adult_hierarchies()
    quasi = schema.quasi
    values = []
    for lvl in [0, 1, 2]:
        levels = {q: min(lvl, hs[q].height) for q in quasi}
        values.append(non_uniform_entropy(df, table.recode(levels).to_frame(), quasi, hs))
    assert values[0].total == 0
    assert values[0].normalized < values[1].normalized < values[2].normalized <= 1
