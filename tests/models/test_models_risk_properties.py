"""Property tests: β-likeness, δ-disclosure, δ-presence and k-map against per-class brute force.

The references loop over the rows with dicts and compute every share as a ``Fraction``, so the
inclusive bounds (β, δ_min, δ_max, k) are compared exactly; δ-disclosure's bound is drawn as
``δ = ln r`` for a rational ``r`` and compared as ``1/r < q/p < r``. The estimator of k-map is
summed term by term from the Poisson probabilities.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.models import (
    DeltaPresence,
    Groups,
    KMap,
    beta_likeness,
    delta_disclosure,
    delta_presence,
    k_map,
)

SETTINGS = settings(max_examples=100, deadline=None)
QI_VALUES = st.sampled_from([0, 1, 2, "x", "[20, 30)"])


@st.composite
def tables(draw: Any, max_rows: int = 20) -> tuple[pd.DataFrame, list[str]]:
    """A random table: 1-2 quasi-identifiers, a sensitive column ``s``, a non-unique index."""
    n = draw(st.integers(1, max_rows))
    columns = {
        f"q{j}": draw(st.lists(QI_VALUES, min_size=n, max_size=n))
        for j in range(draw(st.integers(1, 2)))
    }
    m = draw(st.integers(1, 4))
    columns["s"] = draw(st.lists(st.sampled_from("abcd"[:m]), min_size=n, max_size=n))
    index = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return pd.DataFrame(columns, index=index), [c for c in columns if c != "s"]


@st.composite
def populations(draw: Any) -> tuple[pd.DataFrame, list[str], pd.DataFrame, str | None]:
    """A table, and a population containing it: its rows plus others, maybe as counts."""
    df, quasi = draw(tables())
    extra = draw(st.integers(0, 25))
    others = pd.DataFrame(
        {q: draw(st.lists(QI_VALUES, min_size=extra, max_size=extra)) for q in quasi}
    )
    population = pd.concat([df[quasi], others], ignore_index=True)
    if draw(st.booleans()):
        population = population.groupby(quasi, sort=False).size().reset_index(name="people")
        return df, quasi, population.sample(frac=1, random_state=0), "people"
    return df, quasi, population, None


def ref_classes(df: pd.DataFrame, quasi: list[str]) -> dict[tuple, Counter]:
    out: dict[tuple, Counter] = {}
    for key, s in zip(zip(*(df[q] for q in quasi), strict=True), df["s"], strict=True):
        out.setdefault(key, Counter())[s] += 1
    return out


def ref_shares(df: pd.DataFrame, quasi: list[str]) -> dict[tuple, dict[str, Fraction]]:
    """Per class and value held, ``q / p``."""
    total = Counter(df["s"])
    out = {}
    for key, counts in ref_classes(df, quasi).items():
        size = sum(counts.values())
        out[key] = {v: Fraction(c, size) / Fraction(total[v], len(df)) for v, c in counts.items()}
    return out


def ref_people(population: pd.DataFrame, quasi: list[str], count: str | None) -> Counter:
    people: Counter = Counter()
    weights = population[count] if count else [1] * len(population)
    for key, w in zip(zip(*(population[q] for q in quasi), strict=True), weights, strict=True):
        people[key] += int(w)
    return people


def offending_keys(verdict: Any, quasi: list[str]) -> set[tuple]:
    return {tuple(row) for row in verdict.offending[quasi].itertuples(index=False)}


# ---------------------------------------------------------------------------- beta-likeness
@SETTINGS
@given(tables(), st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2)]))
def test_basic_beta_likeness_matches_brute_force(table: tuple, beta: Fraction) -> None:
    df, quasi = table
    gains = {k: max(r - 1 for r in v.values()) for k, v in ref_shares(df, quasi).items()}
    v = beta_likeness(df, quasi, "s", beta=float(beta))
    assert math.isclose(v.value, max(gains.values()), rel_tol=1e-12, abs_tol=1e-12)
    assert offending_keys(v, quasi) == {k for k, g in gains.items() if g > beta}
    assert v.holds == all(g <= beta for g in gains.values())


@SETTINGS
@given(tables(), st.sampled_from([0.25, 0.5, 1.0, 3.0]))
def test_enhanced_beta_likeness_matches_brute_force(table: tuple, beta: float) -> None:
    df, quasi = table
    n = len(df)
    total = Counter(df["s"])
    bad = set()
    for key, ratios in ref_shares(df, quasi).items():
        for value, ratio in ratios.items():
            p = total[value] / n
            if float(ratio - 1) > min(beta, -math.log(p)) + 1e-12:
                bad.add(key)
    v = beta_likeness(df, quasi, "s", beta=beta, form="enhanced")
    assert offending_keys(v, quasi) == bad
    assert v.holds == (not bad)


# ---------------------------------------------------------------------------- delta-disclosure
@SETTINGS
@given(tables(), st.sampled_from([Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(3)]))
def test_delta_disclosure_matches_brute_force(table: tuple, r: Fraction) -> None:
    df, quasi = table
    shares = ref_shares(df, quasi)
    bad = {k for k, ratios in shares.items() if any(not 1 / r < x < r for x in ratios.values())}
    v = delta_disclosure(df, quasi, "s", delta=math.log(r))
    assert offending_keys(v, quasi) == bad
    worst = max(abs(math.log(x)) for ratios in shares.values() for x in ratios.values())
    assert math.isclose(v.value, worst, rel_tol=1e-12, abs_tol=1e-12)


# ---------------------------------------------------------------------------- delta-presence
DELTAS = st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(1)])


@SETTINGS
@given(populations(), DELTAS, DELTAS)
def test_delta_presence_matches_brute_force(case: tuple, a: Fraction, b: Fraction) -> None:
    df, quasi, population, count = case
    lo, hi = min(a, b), max(a, b)
    people = ref_people(population, quasi, count)
    ratio = {k: Fraction(sum(c.values()), people[k]) for k, c in ref_classes(df, quasi).items()}
    v = delta_presence(df, quasi, population, float(lo), float(hi), count=count)
    assert offending_keys(v, quasi) == {k for k, x in ratio.items() if not lo <= x <= hi}
    assert v.value == float(max(ratio.values()))
    model = DeltaPresence(float(lo), float(hi), population=population, count=count)
    groups = Groups.from_frame(df, quasi)
    assert model.group_ok(groups).tolist() == [
        lo <= ratio[tuple(row)] <= hi for row in groups.keys.itertuples(index=False)
    ]


# ---------------------------------------------------------------------------- k-map
@SETTINGS
@given(populations(), st.integers(1, 8))
def test_k_map_with_a_population_matches_brute_force(case: tuple, k: int) -> None:
    df, quasi, population, count = case
    people = ref_people(population, quasi, count)
    classes = ref_classes(df, quasi)
    v = k_map(df, quasi, k, population=population, count=count)
    assert offending_keys(v, quasi) == {key for key in classes if people[key] < k}
    assert v.value == min(people[key] for key in classes)
    assert KMap(k, population=population, count=count).check(df, quasi).to_dict() == v.to_dict()


def ref_threshold(k: int, fraction: float, significance: float, truncated: bool) -> int:
    """Smallest c in 1..k with P(X >= c) <= significance (X | X >= 1 when truncated), else k."""
    lam = fraction * k
    pmf = [math.exp(-lam + j * math.log(lam) - math.lgamma(j + 1)) for j in range(k + 1)]
    shown = 1.0 - pmf[0] if truncated else 1.0
    for c in range(1, k + 1):
        tail = 1.0 - sum(pmf[:c])
        if tail <= significance * shown:
            return c
    return k


@SETTINGS
@given(
    tables(max_rows=30),
    st.integers(1, 40),
    st.sampled_from([0.05, 0.1, 0.3, 0.5, 1.0]),
    st.sampled_from([0.01, 0.05, 0.2]),
    st.sampled_from(["poisson", "zero_truncated_poisson"]),
)
def test_estimated_k_map_matches_brute_force(
    table: tuple, k: int, fraction: float, significance: float, estimator: str
) -> None:
    df, quasi = table
    threshold = ref_threshold(k, fraction, significance, estimator == "zero_truncated_poisson")
    v = k_map(df, quasi, k, estimator=estimator, fraction=fraction, significance=significance)
    assert v.parameters["threshold"] == threshold
    sizes = {key: sum(c.values()) for key, c in ref_classes(df, quasi).items()}
    assert offending_keys(v, quasi) == {key for key, n in sizes.items() if n < threshold}
    # The achieved k is the largest whose threshold every class meets.
    smallest = min(sizes.values())
    achieved = v.value
    assert ref_threshold(achieved, fraction, significance, estimator != "poisson") <= smallest
    assert ref_threshold(achieved + 1, fraction, significance, estimator != "poisson") > smallest
