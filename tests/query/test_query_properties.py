"""Property tests: for random data, random generalizations that cover the values (laminar
hierarchies or arbitrary intervals), random fakes and random conditions on the quasi-identifiers,
the true answer of COUNT, SUM, AVG, MIN and MAX lies within the bounds — through the batch
tables, bounded_aggregate and SQL."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon import Release
from microanon.models import covers
from microanon.query import AGGREGATES, BoundTables, bounded_aggregate, query

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _laminar(draw, lo: int, hi: int, out: list[tuple[int, int]]) -> None:
    """Random hierarchy nodes over domain positions lo..hi-1 (every node an interval)."""
    out.append((lo, hi))
    if hi - lo > 1:
        cut = draw(st.integers(lo + 1, hi - 1))
        _laminar(draw, lo, cut, out)
        _laminar(draw, cut, hi, out)


@st.composite
def scenarios(draw):
    scale = draw(st.sampled_from([1, 0.1, 0.25]))  # whole, non-dyadic, dyadic domains
    ints = draw(st.lists(st.integers(-20, 60), min_size=1, max_size=8, unique=True))
    domain = np.array(sorted(ints), dtype=float) * scale
    nodes: list[tuple[int, int]] = []
    _laminar(draw, 0, len(domain), nodes)
    n_groups = draw(st.integers(1, 4))
    records, entries = [], []

    def generalize(g: int, i: int) -> None:
        if draw(st.booleans()):  # an ancestor in the hierarchy
            choices = [(a, b) for a, b in nodes if a <= i < b]
            a, b = draw(st.sampled_from(choices))
        else:  # an arbitrary interval around the value
            a = i - draw(st.integers(0, i))
            b = i + 1 + draw(st.integers(0, len(domain) - 1 - i))
        entries.append((g, domain[a], domain[b - 1]))

    for g in range(1, n_groups + 1):
        for _ in range(draw(st.integers(0 if g > 1 else 1, 7))):
            i = draw(st.integers(0, len(domain) - 1))
            records.append((draw(st.integers(17, 30)), draw(st.sampled_from("FM")), g, i))
            generalize(g, i)
        for _ in range(draw(st.integers(0, 3))):  # fakes
            generalize(g, draw(st.integers(0, len(domain) - 1)))
    if not any(e[0] == 1 for e in entries):
        entries.append((1, domain[0], domain[-1]))
    order = draw(st.permutations(range(len(records))))
    rows = [records[j] for j in order]
    qit = pd.DataFrame(
        {"age": [r[0] for r in rows], "sex": [r[1] for r in rows], "group": [r[2] for r in rows]}
    )
    values = [domain[r[3]] for r in rows]
    st_ = pd.DataFrame(entries, columns=["group", "low", "high"])
    if draw(st.booleans()):  # merge identical entries into counts
        st_ = st_.groupby(["group", "low", "high"]).size().rename("count").reset_index()
    else:
        st_["count"] = 1
    meta = {"quasi": ["age", "sex"], "sensitive": ["value"]}
    release = Release("distribution", {"qit": qit, "st": st_}, meta)
    queries = draw(
        st.lists(
            st.tuples(st.integers(15, 32), st.integers(0, 10), st.sampled_from([None, "F", "M"])),
            min_size=1,
            max_size=6,
        )
    )
    return release, np.array(values, dtype=float), queries


def _masks(qit: pd.DataFrame, queries) -> np.ndarray:
    age, sex = qit["age"].to_numpy(), qit["sex"].to_numpy()
    return np.array(
        [(age >= x) & (age <= x + w) & ((sex == s) if s else True) for x, w, s in queries]
    ).reshape(len(queries), len(qit))


def _truth(values: np.ndarray, mask: np.ndarray, agg: str) -> Fraction | None:
    sel = [Fraction(v) for v in values[mask]]
    if agg == "count":
        return Fraction(len(sel))
    if agg == "sum":
        return sum(sel, Fraction(0))
    if not sel:
        return None
    return {"avg": sum(sel, Fraction(0)) / len(sel), "min": min(sel), "max": max(sel)}[agg]


def _inside(lower: float, upper: float, truth: Fraction | None) -> bool:
    if truth is None:
        return bool(np.isnan(lower) and np.isnan(upper))
    return Fraction(float(lower)) <= truth <= Fraction(float(upper))


@SETTINGS
@given(scenarios())
def test_generated_entries_cover_their_groups(case):
    release, values, _ = case
    qit, st_ = release.tables["qit"], release.tables["st"]
    for g, rows in st_.groupby("group"):
        mine = values[qit["group"].to_numpy() == g]
        assert covers(mine, rows["low"], rows["high"], rows["count"])


@SETTINGS
@given(scenarios())
def test_true_answers_lie_within_batch_bounds(case):
    release, values, queries = case
    tables = BoundTables.from_release(release)
    masks = _masks(tables.qit, queries)
    counts = tables.counts(masks)
    for agg in AGGREGATES:
        b = tables.bounds(agg, counts)
        for q, mask in enumerate(masks):
            assert _inside(b.lower[q], b.upper[q], _truth(values, mask, agg)), (agg, q)
            assert b.count[q] == mask.sum()
    plain = [q for q in queries if q[2] is None]  # age ranges only: histogram counts agree
    if plain:
        lo = np.array([x for x, _, _ in plain])
        hi = lo + np.array([w for _, w, _ in plain])
        np.testing.assert_array_equal(
            tables.range_counts("age", lo, hi), tables.counts(_masks(tables.qit, plain))
        )


@SETTINGS
@given(scenarios())
def test_true_answers_lie_within_single_query_bounds(case):
    release, values, queries = case
    mask = _masks(release.tables["qit"], [queries[0]])[0]
    for agg in AGGREGATES:
        b = bounded_aggregate(release, agg, where=mask)
        truth = _truth(values, mask, agg)
        assert b.contains(truth), (agg, b, truth)
        if truth is not None:
            assert Fraction(b.lower) <= truth <= Fraction(b.upper)
            if b.exact is not None:
                assert Fraction(b.lower) <= b.exact[0] and b.exact[1] <= Fraction(b.upper)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_true_answers_lie_within_sql_bounds(case):
    release, values, queries = case
    x, w, s = queries[0]
    original = release.tables["qit"].assign(value=values)
    cond = f"age BETWEEN {x} AND {x + w}" + (f" AND sex = '{s}'" if s else "")
    sql = (
        "SELECT COUNT(*), SUM(value), AVG(value), MIN(value), MAX(value) FROM release WHERE " + cond
    )
    result = query(release, sql, original=original)
    mask = _masks(release.tables["qit"], [queries[0]])[0]
    assert result["within"].all()
    for (_, row), agg in zip(result.iterrows(), AGGREGATES, strict=True):
        assert _inside(row["lower"], row["upper"], _truth(values, mask, agg)), agg
