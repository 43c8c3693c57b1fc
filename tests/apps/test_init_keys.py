"""``microanon init``'s key ranking (:func:`microanon.apps.init.keys.rank_keys`), counted on the
frequency table of the candidates' distinct combinations, against its definition on the records:
every record's combination of the key so far and a candidate, its class sizes found by sorting
(``np.unique``), a missing value a value of its own."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from unittest.mock import patch

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.init import keys
from microanon.apps.init.keys import KeyRanking, rank_keys


def _by_records(
    data: pd.DataFrame, candidates: Sequence[str], levels: Mapping[str, int], k: int
) -> KeyRanking:
    """The ranking as defined on the records (the implementation before the frequency table)."""

    def measure(key: np.ndarray) -> tuple[int, int, int]:
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        sizes = counts[inverse]
        return int((sizes == 1).sum()), int((sizes < k).sum()), len(counts)

    codes = {}
    for c in candidates:
        found, uniques = pd.factorize(data[c], use_na_sentinel=False)
        codes[c] = (found.astype(np.int64), max(len(uniques), 1))
    key = np.zeros(len(data), dtype=np.int64)
    base = measure(key)
    chosen: list[str] = []
    uniques: dict[str, int] = {}
    small: dict[str, int] = {}
    remaining = list(candidates)
    while remaining:
        greedy = len(chosen) < keys.GREEDY_ROUNDS and base[0] < len(data)
        ranked = []
        for position, c in enumerate(remaining):
            column, n = codes[c]
            combined = np.unique(key * n + column, return_inverse=True)[1].astype(np.int64)
            measured = measure(combined)
            gain = tuple(m - b for m, b in zip(measured, base, strict=True))
            ranked.append(((*gain, -levels[c], -position), c, combined, measured))
        if not greedy:
            for _, c, _, measured in sorted(ranked, key=lambda r: r[0], reverse=True):
                uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
                chosen.append(c)
            break
        _, c, key, measured = max(ranked, key=lambda r: r[0])
        uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
        base = measured
        chosen.append(c)
        remaining.remove(c)
    return KeyRanking(chosen, math.prod(levels[c] for c in chosen), dict(levels), uniques, small)


def _same(data: pd.DataFrame, candidates: Sequence[str], levels: Mapping[str, int], k: int):
    got = rank_keys(data, candidates, levels, k=k)
    assert got == _by_records(data, candidates, levels, k)
    return got


_MISSING = st.sampled_from([None, np.nan, pd.NA])


@st.composite
def _tables(draw: st.DrawFn) -> pd.DataFrame:
    """Tables of a few columns of ints, texts or floats with missing values of every kind, some
    of few values (classes of many records), some of many (keys hashed, not counted)."""
    n = draw(st.integers(0, 120))
    columns = {}
    for j in range(draw(st.integers(0, 6))):
        distinct = draw(st.sampled_from([1, 2, 3, 5, 40, 5000]))
        kind = draw(st.sampled_from(["int", "text", "float", "object"]))
        values = draw(st.lists(st.integers(0, distinct - 1), min_size=n, max_size=n))
        gaps = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if kind == "int":
            column = pd.Series(values, dtype="Int64").mask(pd.Series(gaps, dtype=bool))
        elif kind == "text":
            column = pd.Series([f"v{v}" for v in values], dtype="string").mask(
                pd.Series(gaps, dtype=bool)
            )
        elif kind == "float":
            column = pd.Series(values, dtype=float).mask(pd.Series(gaps, dtype=bool))
        else:  # None, NaN and pd.NA side by side, with texts and numbers
            column = pd.Series(
                [
                    draw(_MISSING) if g else (v if v % 2 else f"v{v}")
                    for v, g in zip(values, gaps, strict=True)
                ],
                dtype=object,
            )
        columns[f"c{j}"] = column
    return pd.DataFrame(columns, index=range(n))


@settings(max_examples=200, deadline=None)
@given(
    _tables(),
    st.integers(1, 6),
    st.integers(0, 4),
    st.lists(st.integers(1, 5), min_size=6, max_size=6),
    st.booleans(),
)
def test_the_frequency_table_ranks_as_the_records_do(data, k, rounds, heights, hashed):
    """Same order, sample uniques, small-class records and lattice as the definition on the
    records, with the greedy rounds cut short (the rest ranked in one round) or not, and the
    keys counted over their space or all hashed (no space is then small enough to count)."""
    levels = {c: heights[j] for j, c in enumerate(data.columns)}
    dense = (0, 0) if hashed else (keys.DENSE_FACTOR, keys.DENSE_SLACK)
    with (
        patch.object(keys, "GREEDY_ROUNDS", rounds),
        patch.object(keys, "DENSE_FACTOR", dense[0]),
        patch.object(keys, "DENSE_SLACK", dense[1]),
    ):
        _same(data, list(data.columns), levels, k)


def test_real_surveys_rank_as_their_records_do():
    """The GSS happiness file (17,137 records, twelve columns, missing values) and the CPS 1988
    wages resampled to 100,000 records (each combination many times over): the same ranking
    as on the records."""
    happiness = survey("happiness")
    columns = [c for c in happiness.columns if c != "rownames"]
    levels = {c: 2 + j % 4 for j, c in enumerate(columns)}
    ranking = _same(happiness, columns, levels, 5)
    assert sum(ranking.uniques.values()) > 0
    cps = survey("cps1988")
    rows = np.random.default_rng(3).integers(0, len(cps), 100_000)
    resampled = cps.iloc[rows].reset_index(drop=True)
    columns = [c for c in resampled.columns if c not in ("rownames", "wage")]
    ranking = _same(resampled, columns, {c: 3 for c in columns}, 5)
    assert ranking.chosen and sum(ranking.small.values()) > 0


def test_a_key_of_more_combinations_than_an_int64_holds():
    """Twenty columns of 3,000 to 3,019 values: their combinations overflow one mixed-radix
    key (the frequency table is found by comparing rows); the same ranking."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 3000 + i, 400) for i in range(20)})
    frame = pd.concat([frame, frame.iloc[:50]], ignore_index=True)
    _same(frame, list(frame.columns), {c: 3 for c in frame.columns}, 3)


def _planned_once(frame: pd.DataFrame, declared: Mapping[str, Sequence] | None = None) -> None:
    """Every column of ``frame`` as a quasi-identifier: the levels of the plan the config is
    written with (:class:`~microanon.apps.init.keys.HierarchyPlans`, its missing values the
    value ? and its declared values first) are those :func:`hierarchy_levels` plans on its
    own, and that plan is the one ``plan_hierarchy`` makes, made once."""
    from microanon.apps.init.hierarchies import plan_hierarchy
    from microanon.apps.init.keys import HierarchyPlans, hierarchy_levels
    from microanon.apps.init.profile import profile_table

    profiles = profile_table(frame)
    plans = HierarchyPlans(frame, profiles, declared)
    for p in profiles:
        col = frame[p.name]
        assert plans.levels(col, p) == hierarchy_levels(col, p), p.name
        plan = plans.plan(p.name, p.has_missing)
        assert plans.plan(p.name, p.has_missing) is plan
        want = plan_hierarchy(col, p, p.has_missing, declared=(declared or {}).get(p.name))
        assert plan == want
        assert (plan.hierarchy is None) == (want.hierarchy is None)
        if plan.hierarchy is not None:
            assert plan.hierarchy.paths() == want.hierarchy.paths()


_CELLS = {
    "count": st.integers(0, 40),
    "amount": st.floats(0, 1e4, allow_nan=False).map(lambda x: round(x, 2)),
    "answer": st.sampled_from(["yes", "no", "maybe", "Yes"]),
    "state": st.sampled_from(["CA", "NY", "TX", "WA", "99"]),
    "code": st.sampled_from(["13053", "13055", "21001", "21003"]),
    "education_num": st.integers(1, 16),
    "workclass": st.sampled_from(["Private", "Self-emp-inc", "Federal-gov"]),
    "day": st.dates().map(lambda d: d.isoformat()),
}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(_CELLS)), min_size=1, max_size=4, unique=True),
    st.integers(2, 40),
    st.data(),
)
def test_the_levels_of_a_plan_made_once_are_those_planned_alone(columns, n, data):
    """Numbers, answers, US states beside a survey code, codes, the Adult columns' bundled
    hierarchies (numbers and text), dates, each with or without missing values and declared
    values: the ranking's levels from the config's plan are hierarchy_levels'."""
    frame = pd.DataFrame(
        {
            c: data.draw(
                st.lists(st.one_of(_CELLS[c], st.none()), min_size=n, max_size=n).filter(
                    lambda v: any(x is not None for x in v)
                )
            )
            for c in columns
        }
    )
    declared = {}
    for c in ("answer", "workclass"):
        if c in frame.columns and data.draw(st.booleans()):
            held = list(dict.fromkeys(frame[c].dropna()))
            declared[c] = tuple(data.draw(st.permutations(held)))
    _planned_once(frame, declared)


def test_real_surveys_plan_each_hierarchy_once():
    """The GSS abortion items, ANES thermometers and ESS Norway's design and attitude columns
    (missing values in most): the same levels from the plans init writes the config with."""
    _planned_once(survey("gss_abortion"))
    _planned_once(survey("anes_partytherms"))
    _planned_once(survey("ess10no"))


def test_init_plans_each_hierarchy_once(tmp_path):
    """``microanon init`` on the GSS abortion file: each quasi-identifier's hierarchy is planned
    once, for the key ranking and the config alike."""
    from microanon.apps.init import hierarchies
    from microanon.apps.init.run import run_init

    data = tmp_path / "gss.csv"
    survey("gss_abortion").to_csv(data, index=False)
    planned: list[str] = []
    bundled = hierarchies._bundled  # (what plan_hierarchy asks first, wherever it is called)

    def counted(col, profile):
        planned.append(profile.name)
        return bundled(col, profile)

    with patch.object(hierarchies, "_bundled", counted):
        result = run_init(data, tmp_path / "config.yaml")
    quasi = [p.column for p in result.proposals if p.role.value == "quasi"]
    assert quasi and sorted(planned) == sorted(quasi)
