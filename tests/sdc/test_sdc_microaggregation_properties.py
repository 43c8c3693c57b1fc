"""Microaggregation properties on random inputs (hypothesis).

- every group of every method has at least k records (and MDAV / Hansen–Mukherjee at most 2k-1);
- the fast MDAV (on distinct points) equals a plain transcription of the MDAV pseudocode
  (explicit distances, lowest-index ties) on integer data, where every distance is computed
  exactly, with records repeated in scattered rows too;
- Hansen–Mukherjee reaches the brute-force minimum over all partitions into contiguous groups of
  at least k (and over all set partitions for tiny inputs), with both shortest-path back ends;
- microaggregation preserves every column's mean.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.measures.perturbative import sse
from microanon.methods.sdc import microagg_univariate as univariate
from microanon.methods.sdc.microaggregation import (
    METHODS,
    group_means,
    individual_ranking,
    mdav_groups,
    microaggregation,
    optimal_univariate_groups,
    projection_groups,
)

SETTINGS = settings(max_examples=80, deadline=None)


def reference_mdav(X: np.ndarray, k: int) -> np.ndarray:
    """The MDAV pseudocode line by line: explicit squared distances, ties to the lowest index."""
    X = np.asarray(X, dtype=float)
    labels = np.full(len(X), -1)
    remaining = list(range(len(X)))
    group = 0

    def d2(q):
        return {i: float(((X[i] - q) ** 2).sum()) for i in remaining}

    def farthest(q, among):
        d = d2(q)
        return max(among, key=lambda i: (d[i], -i))

    def farthest_from_mean():
        # |x - S/m|² compared exactly on integer data as |m x - S|²
        m, total = len(remaining), X[remaining].sum(axis=0)
        return max(remaining, key=lambda i: (float(((m * X[i] - total) ** 2).sum()), -i))

    def take(center):
        nonlocal group, remaining
        d = d2(X[center])
        near = sorted((i for i in remaining if i != center), key=lambda i: (d[i], i))[: k - 1]
        members = [center, *near]
        labels[members] = group
        group += 1
        remaining = [i for i in remaining if i not in members]
        return members

    while len(remaining) >= 3 * k:
        r = farthest_from_mean()
        first = take(r)
        s = farthest(X[r], remaining)  # among the records left after the first group
        assert s not in first
        take(s)
    if len(remaining) >= 2 * k:
        take(farthest_from_mean())
    labels[remaining] = group
    return labels


def integer_data(max_rows: int = 40, max_cols: int = 3):
    return st.integers(1, max_cols).flatmap(
        lambda p: st.lists(st.tuples(*[st.integers(-6, 6)] * p), min_size=1, max_size=max_rows).map(
            lambda rows: np.array(rows, dtype=float)
        )
    )


@SETTINGS
@given(integer_data(), st.integers(1, 6))
def test_mdav_equals_the_reference(X, k):
    k = min(k, len(X))
    if k == 1:  # each record alone, numbered by record rather than in creation order
        np.testing.assert_array_equal(mdav_groups(X, k), np.arange(len(X)))
    else:
        np.testing.assert_array_equal(mdav_groups(X, k), reference_mdav(X, k))


@SETTINGS
@given(st.integers(2, 5), st.integers(60, 200), st.integers(0, 2**32 - 1))
def test_mdav_equals_the_reference_beyond_compaction(k, n, seed):
    # enough records for the working arrays to be compacted several times
    X = np.random.default_rng(seed).integers(-20, 20, size=(n, 2)).astype(float)
    np.testing.assert_array_equal(mdav_groups(X, k), reference_mdav(X, k))


@SETTINGS
@given(
    st.integers(1, 3),
    st.integers(1, 6),
    st.integers(2, 20),
    st.integers(30, 150),
    st.integers(0, 2**32 - 1),
)
def test_mdav_equals_the_reference_on_few_distinct_points(p, points, k, n, seed):
    # records of a few distinct points, each repeated in scattered rows: groups that take part
    # of a point's records, and points tied at one distance whose records interleave
    rng = np.random.default_rng(seed)
    distinct = rng.integers(-3, 4, size=(points, p)).astype(float)
    X = distinct[rng.integers(0, points, size=n)]
    k = min(k, n)
    np.testing.assert_array_equal(mdav_groups(X, k), reference_mdav(X, k))


def test_mdav_large_k_uses_argpartition_with_exact_ties():
    X = np.random.default_rng(5).integers(0, 4, size=(150, 2)).astype(float)  # many ties
    for k in (9, 12, 25):
        np.testing.assert_array_equal(mdav_groups(X, k), reference_mdav(X, k))


@SETTINGS
@given(integer_data(60, 4), st.integers(1, 8))
def test_every_group_has_k_records(X, k):
    k = min(k, len(X))
    for labels in (
        mdav_groups(X, k),
        projection_groups(X, k, "zscore_sum"),
        projection_groups(X, k, "pca"),
        optimal_univariate_groups(X[:, 0], k),
    ):
        sizes = np.bincount(labels)
        assert sizes[sizes > 0].min() >= k
        assert set(labels.tolist()) == set(range(labels.max() + 1))
        assert sizes.max() <= max(2 * k - 1, len(X) if len(X) < 2 * k else 0)
    masked = individual_ranking(X, k)
    for j in range(X.shape[1]):
        _, counts = np.unique(masked[:, j], return_counts=True)
        assert counts.min() >= k


@cache
def _compositions(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every way to cut n sorted values into contiguous groups of at least k."""
    if n == 0:
        return ((),)
    return tuple(
        (first, *rest) for first in range(k, n + 1) for rest in _compositions(n - first, k)
    )


def _brute_force(x: np.ndarray, k: int) -> float:
    xs = np.sort(x)
    best = np.inf
    for sizes in _compositions(len(xs), k):
        ends = np.cumsum(sizes)
        cost = sum(
            ((xs[e - s : e] - xs[e - s : e].mean()) ** 2).sum()
            for s, e in zip(sizes, ends, strict=True)
        )
        best = min(best, cost)
    return best


values = st.lists(
    st.one_of(st.integers(-50, 50).map(float), st.floats(-1e3, 1e3, allow_nan=False)),
    min_size=1,
    max_size=14,
).map(np.array)


@settings(max_examples=120, deadline=None)
@given(x=values, k=st.integers(1, 5), graph=st.booleans())
def test_hansen_mukherjee_is_optimal(x, k, graph):
    k = min(k, len(x))
    saved = univariate._GRAPH_MAX_K
    univariate._GRAPH_MAX_K = 8 if graph else 0  # Dijkstra, or the blocked dynamic program
    try:
        labels = optimal_univariate_groups(x, k)
    finally:
        univariate._GRAPH_MAX_K = saved
    sizes = np.bincount(labels)
    assert sizes.min() >= k and (len(x) < 2 * k or sizes.max() <= 2 * k - 1)
    # groups are contiguous in sorted order and numbered by value
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(labels[order]) >= 0)
    assert sse(x, groups=labels) == pytest.approx(_brute_force(x, k), rel=1e-9, abs=1e-9)


def _set_partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


@settings(max_examples=25, deadline=None)
@given(
    x=st.lists(st.integers(0, 30).map(float), min_size=2, max_size=7).map(np.array),
    k=st.integers(1, 3),
)
def test_contiguous_groups_are_optimal_among_all_set_partitions(x, k):
    k = min(k, len(x))
    best = min(
        sum(((x[g] - x[g].mean()) ** 2).sum() for g in part)
        for part in _set_partitions(list(range(len(x))))
        if min(len(g) for g in part) >= k
    )
    assert sse(x, groups=optimal_univariate_groups(x, k)) == pytest.approx(best, abs=1e-9)


@SETTINGS
@given(integer_data(30, 3), st.integers(1, 4), st.sampled_from(METHODS))
def test_microaggregation_preserves_means_and_groups(X, k, method):
    k = min(k, len(X))
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in df.columns}
    rel = microaggregation(df, schema, k=k, method=method)
    np.testing.assert_allclose(rel.data.mean().to_numpy(), df.mean().to_numpy(), atol=1e-9)
    assert rel.metadata["min_group_size"] >= k
    if method in ("mdav", "projection"):
        _, counts = np.unique(rel.data.to_numpy(), axis=0, return_counts=True)
        assert counts.min() >= k
    assert 0 <= rel.metadata["information_loss"] <= 1 + 1e-12


@SETTINGS
@given(integer_data(30, 3), st.integers(1, 4))
def test_group_means_minimize_sse_for_given_groups(X, k):
    k = min(k, len(X))
    labels = mdav_groups(X, k)
    means = group_means(X, labels)
    shifted = means + 0.01
    assert sse(X, means) <= sse(X, shifted)
    assert sse(X, means) == pytest.approx(sse(X, groups=labels))


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.integers(1, 7)), min_size=1, max_size=8
    ),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=6),
)
def test_group_means_of_equal_values_are_those_values_and_others_are_close(groups, other):
    """A group whose records share a value publishes that value exactly (a plain sum divided
    by the size can be off by a rounding: a changed cell); a group of
    different values gets their mean to rounding."""
    values = [v for v, n in groups for _ in range(n)] + other
    labels = [g for g, (_, n) in enumerate(groups) for _ in range(n)] + [len(groups)] * len(other)
    means = group_means(np.array(values), np.array(labels))
    equal = sum(n for _, n in groups)
    assert means[:equal].tolist() == values[:equal]
    assert np.allclose(means[equal:], np.mean(other), rtol=1e-12, atol=1e-6)
