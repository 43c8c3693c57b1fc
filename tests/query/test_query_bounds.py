"""Bounded aggregates from the auxiliary tables: every number of the employee-table examples of
Koudas, Srivastava, Yu & Zhang (PVLDB 2009), re-derived by hand, the tables themselves, batches,
empty selections, exact published columns, rounding and bad input."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from paper_tables import employees

from microanon import InputError, Release
from microanon.query import BoundTables, bounded_aggregate

K = 1000
EMPLOYEES = employees(K)
GROUPS = [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
# Figure 2: MinSumOfRange of each zipcode-prefix group under the uniform target.
FIGURE2 = {
    1: [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)],
    2: [(30, 40, 1), (50, 60, 1), (30, 60, 1)],
    3: [(30, 40, 1), (50, 60, 1), (30, 60, 2)],
}


def make_release(entries=FIGURE2) -> Release:
    qit = EMPLOYEES[["zipcode", "gender"]].assign(group=GROUPS)
    st = pd.DataFrame(
        [(g, lo * K, hi * K, c) for g, rows in entries.items() for lo, hi, c in rows],
        columns=["group", "low", "high", "count"],
    )
    hierarchy = {"values": [30 * K, 40 * K, 50 * K, 60 * K], "weights": [1, 1, 1, 1]}
    meta = {
        "method": "distribution",
        "quasi": ["zipcode", "gender"],
        "sensitive": ["salary"],
        "distribution": {"hierarchies": [hierarchy], "group_hierarchy": [0, 0, 0]},
    }
    return Release("distribution", {"qit": qit, "st": st}, meta)


FEMALE = (EMPLOYEES["gender"] == "F").to_numpy()


def frac(a, b=1):
    return Fraction(a * K, b)


def test_avg_salary_of_females():
    b = bounded_aggregate(make_release(), "avg", where=FEMALE)
    assert (b.lower, b.upper) == (35_000.0, 55_000.0)
    assert b.exact == (frac(35), frac(55))
    assert (b.count, b.groups) == (6, 3)
    s = bounded_aggregate(make_release(), "sum", where=FEMALE)
    assert s.exact == (frac(70 + 110 + 30), frac(110 + 160 + 60))


def test_avg_salary_of_zipcode_913():
    b = bounded_aggregate(make_release(), "avg", where=lambda q: q["zipcode"].str[:3] == "913")
    assert b.exact == (frac(140, 4), frac(220, 4)) == (frac(35), frac(55))
    true = Fraction(int(EMPLOYEES["salary"][7:].sum()), 4)
    assert true == frac(55) and b.contains(true)
    # Random salaries drawn from U would need the root for every entry: honest [30K, 60K].
    root = {g: [(30, 60, len(rows) and sum(c for *_, c in rows))] for g, rows in FIGURE2.items()}
    honest = bounded_aggregate(make_release(root), "avg", where="zipcode LIKE '913%'")
    assert honest.exact == (frac(30), frac(60))


def test_group_2_and_one_fake():
    b = bounded_aggregate(make_release(), "avg", where='"group" = 2')
    assert b.exact == (frac(110, 3), frac(160, 3))
    # Floats rounded outward: the exact bounds lie inside.
    assert Fraction(b.lower) <= frac(110, 3) and frac(160, 3) <= Fraction(b.upper)
    assert b.upper - b.lower == pytest.approx(50_000 / 3)
    fake = {**FIGURE2, 2: [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)]}
    b = bounded_aggregate(make_release(fake), "avg", where='"group" = 2')
    assert (b.lower, b.upper) == (40_000.0, 50_000.0)


def test_group_3_with_eight_fakes_is_wider():
    # {40, 60, 60, 60} + fakes {30 x3, 40 x2, 50 x3}: three of each value, no generalization.
    fakes = {**FIGURE2, 3: [(v, v, 3) for v in (30, 40, 50, 60)]}
    b = bounded_aggregate(make_release(fakes), "avg", where=np.array(GROUPS) == 3)
    assert b.exact == (frac(130, 4), frac(230, 4))
    without = bounded_aggregate(make_release(), "avg", where=np.array(GROUPS) == 3)
    assert without.exact == (frac(140, 4), frac(220, 4))
    assert without.width < b.width


def test_auxiliary_table_of_group_3():
    aux = BoundTables.from_release(make_release()).to_frame()
    g3 = aux[aux["group"] == 3].drop(columns="group").to_numpy() / K
    # k, k smallest lows, k largest highs, k-th largest high, k-th smallest low
    expected = [
        [0, 0, 0, np.inf, -np.inf],
        [1 / K, 30, 60, 60, 30],
        [2 / K, 60, 120, 60, 30],
        [3 / K, 90, 180, 60, 30],
        [4 / K, 140, 220, 40, 50],
    ]
    np.testing.assert_array_equal(g3, expected)


def test_min_max_and_count():
    rel = make_release()
    where = np.array(GROUPS) == 2
    assert bounded_aggregate(rel, "min", where=where).exact == (frac(30), frac(40))
    assert bounded_aggregate(rel, "max", where=where).exact == (frac(50), frac(60))
    females = bounded_aggregate(rel, "min", where=FEMALE)
    # groups 1 (2 selected), 2 (3), 3 (1): min of the lows; min of the k-th largest highs
    assert females.exact == (frac(30), frac(40))
    count = bounded_aggregate(rel, "count", where=FEMALE)
    assert (count.lower, count.upper, count.width) == (6, 6, 0)


def test_empty_selection():
    rel = make_release()
    none = np.zeros(11, dtype=bool)
    assert bounded_aggregate(rel, "count", where=none).exact == (0, 0)
    assert bounded_aggregate(rel, "sum", where=none).exact == (0, 0)
    for agg in ("avg", "min", "max"):
        b = bounded_aggregate(rel, agg, where=none)
        assert b.lower is b.upper is b.exact is b.width is None
        assert (b.count, b.groups) == (0, 0) and b.contains(None) and not b.contains(1.0)


def test_whole_release_and_published_column():
    rel = make_release()
    b = bounded_aggregate(rel, "sum")
    assert b.count == 11 and b.groups == 3 and b.contains(int(EMPLOYEES["salary"].sum()))
    qit = rel.tables["qit"].assign(zip_number=EMPLOYEES["zipcode"].astype(int))
    rel2 = Release("distribution", {"qit": qit, "st": rel.tables["st"]}, rel.metadata)
    z = bounded_aggregate(rel2, "avg", where=FEMALE, column="zip_number")
    expected = Fraction(int(qit["zip_number"][FEMALE].sum()), 6)
    assert z.exact == (expected, expected) and z.lower <= float(expected) <= z.upper
    assert bounded_aggregate(rel2, "max", column="zip_number").exact == (91340, 91340)


def test_batches_match_single_queries():
    rel = make_release()
    tables = BoundTables.from_release(rel)
    masks = np.array([FEMALE, ~FEMALE, np.array(GROUPS) == 2, np.ones(11, bool)])
    counts = tables.counts(masks)
    np.testing.assert_array_equal(counts[0], [2, 3, 1])
    for agg in ("count", "sum", "avg", "min", "max"):
        batch = tables.bounds(agg, counts)
        for q, mask in enumerate(masks):
            one = bounded_aggregate(tables, agg, where=mask)
            assert (one.lower, one.upper) == (batch.lower[q], batch.upper[q])
            assert (one.count, one.groups) == (batch.count[q], batch.groups[q])


def test_range_counts_from_histograms():
    rng = np.random.default_rng(5)
    n = 200
    qit = pd.DataFrame({"age": rng.integers(17, 80, n), "group": rng.integers(1, 6, n)})
    sizes = qit["group"].value_counts().sort_index()
    st = pd.DataFrame({"group": sizes.index, "low": 0, "high": 10, "count": sizes.to_numpy()})
    rel = Release("distribution", {"qit": qit, "st": st}, {"sensitive": ["s"]})
    tables = BoundTables.from_release(rel)
    lo = rng.integers(10, 90, 50)
    hi = lo + rng.integers(-5, 30, 50)
    ages = qit["age"].to_numpy()
    masks = (ages >= lo[:, None]) & (ages <= hi[:, None])
    np.testing.assert_array_equal(tables.range_counts("age", lo, hi), tables.counts(masks))


def test_non_dyadic_values_are_widened_outward():
    values = np.array([0.1, 0.2, 0.3, 1e6 + 0.7])
    qit = pd.DataFrame({"group": [1, 1, 1, 1]})
    st = pd.DataFrame({"group": 1, "low": values, "high": values, "count": 1})
    tables = BoundTables.from_release(
        Release("distribution", {"qit": qit, "st": st}, {"sensitive": ["s"]})
    )
    assert not tables.exact and tables.slack > 0
    b = bounded_aggregate(tables, "sum")
    true = sum(Fraction(v) for v in values)
    assert b.exact is None and b.contains(true)
    assert Fraction(b.lower) <= true <= Fraction(b.upper) and b.width < 1e-6
    halves = pd.DataFrame({"group": 1, "low": [0.5, 1.25], "high": [0.5, 1.25], "count": 1})
    t2 = BoundTables.from_entries(halves, np.array([1, 1]))
    assert t2.exact and t2.bounds("sum", np.array([2])).lower[0] == 1.75
    # a sum of no record is 0 exactly, as docs/queries.md says: nothing added, nothing widened
    # (it had been ±0.0036 on AER's CPS wages)
    none = tables.bounds("sum", np.array([0]))
    assert (none.lower[0], none.upper[0]) == (0.0, 0.0)


def test_bad_input():
    rel = make_release()
    with pytest.raises(InputError, match="one of"):
        bounded_aggregate(rel, "median")
    with pytest.raises(InputError, match="11"):
        bounded_aggregate(rel, "avg", where=np.ones(3, bool))
    with pytest.raises(InputError, match="boolean"):
        bounded_aggregate(rel, "avg", where=np.ones(11))
    with pytest.raises(InputError, match="missing"):
        bounded_aggregate(rel, "avg", where=pd.Series([True] * 10 + [None], dtype="boolean"))
    with pytest.raises(InputError, match="neither"):
        bounded_aggregate(rel, "avg", column="age")
    with pytest.raises(InputError, match="numeric"):
        bounded_aggregate(rel, "avg", column="gender")
    with pytest.raises(InputError, match="distribution"):
        BoundTables.from_release(Release("generalized", {"data": EMPLOYEES}))
    tables = BoundTables.from_release(rel)
    with pytest.raises(InputError, match="between 0"):
        tables.bounds("sum", np.array([[5, 0, 0]]))
    with pytest.raises(InputError, match="shape"):
        tables.bounds("sum", np.array([1, 1]))
    short = {**FIGURE2, 3: [(30, 60, 3)]}
    with pytest.raises(InputError, match="group 3 has 4 records but only 3 entries"):
        BoundTables.from_release(make_release(short))
    with pytest.raises(InputError, match="no entries"):
        BoundTables.from_release(make_release({1: FIGURE2[1], 2: FIGURE2[2]}))
    with pytest.raises(InputError, match="above high"):
        BoundTables.from_release(make_release({**FIGURE2, 1: [(40, 30, 4)]}))
    with pytest.raises(InputError, match="count"):
        BoundTables.from_release(make_release({**FIGURE2, 1: [(30, 60, 0), (30, 60, 4)]}))
    with pytest.raises(InputError, match="numeric column"):
        tables.range_counts("gender", 1, 2)
