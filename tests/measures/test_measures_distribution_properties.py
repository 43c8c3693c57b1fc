"""Properties of the distribution-based utility measures (Guo, Ying & Wu 2011) on random arrays."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from microanon.measures.distribution import (
    chi_square,
    query_errors,
    squared_euclidean,
    uncertainty_coefficients,
)
from microanon.measures.estimators import kl_divergence

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def distributions(draw, min_dims=1, max_dims=4):
    """A distribution P (with empty cells) and an estimate Q of its shape (negative cells too)."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=min_dims, max_size=max_dims)))
    size = math.prod(shape)
    counts = np.array(draw(st.lists(st.integers(0, 9), min_size=size, max_size=size)), float)
    assume(counts.sum() > 0)
    noise = np.array(
        draw(st.lists(st.floats(-0.3, 1.0), min_size=size, max_size=size)), float
    ).reshape(shape)
    p = (counts / counts.sum()).reshape(shape)
    return p, noise


@SETTINGS
@given(distributions())
def test_distances_vanish_at_the_truth_and_are_non_negative(pq):
    p, q = pq
    assert chi_square(p, p) == 0.0
    assert chi_square(p, p, denominator="estimate") < 1e-9  # empty cells floored at 1e-12
    assert squared_euclidean(p, p) == 0.0
    assert kl_divergence(p, p) < 1e-12
    assert chi_square(p, q) >= 0
    assert squared_euclidean(p, q) >= 0
    if np.any(q > 0):
        assert chi_square(p, q, denominator="estimate") >= 0
        assert kl_divergence(p, q) >= 0


@SETTINGS
@given(distributions(), st.integers(1, 10_000), st.sampled_from(["any", "always"]))
def test_query_errors_vanish_at_the_truth(pq, n, include):
    p, _ = pq
    assert query_errors(p, p, n).mean == 0.0
    cube = query_errors(p, p, n, cube=True, include_sensitive=include)
    # (P's answers are summed from its non-empty cells, Q's marginals from the dense array:
    # the same numbers to rounding)
    assert cube.mean <= 1e-12 and cube.mean_absolute <= 1e-12 * n
    assert max(cube.per_group_by.values()) <= 1e-12


@SETTINGS
@given(distributions(), st.integers(1, 10_000))
def test_query_errors_are_marginally_consistent(pq, n):
    """Each CUBE group-by answers like the base group-by of the marginal arrays."""
    p, q = pq
    cube = query_errors(p, q, n, cube=True)
    assert len(cube.per_group_by) == 2**p.ndim
    pooled = 0.0
    for keep, mean in cube.per_group_by.items():
        drop = tuple(a for a in range(p.ndim) if a not in keep)
        if keep:
            base = query_errors(p.sum(axis=drop), q.sum(axis=drop), n)
            assert math.isclose(mean, base.mean, rel_tol=1e-9, abs_tol=1e-12)
        pooled += mean * cube.queries[keep]
    assert math.isclose(cube.mean, pooled / sum(cube.queries.values()), rel_tol=1e-9, abs_tol=1e-12)
    # The relative error does not depend on n (to rounding: an error of 1e-16 is one of 0).
    assert math.isclose(
        cube.mean, query_errors(p, q, 1, cube=True).mean, rel_tol=1e-9, abs_tol=1e-12
    )


@SETTINGS
@given(distributions(min_dims=2))
def test_uncertainty_in_unit_interval_and_from_pair_marginals(pq):
    p, q = pq
    names = [f"a{i}" for i in range(p.ndim)]
    u = uncertainty_coefficients(p, names)
    off = u.to_numpy()[~np.eye(p.ndim, dtype=bool)]
    assert np.all((off >= 0) & (off <= 1))
    pair = uncertainty_coefficients(p.sum(axis=tuple(range(2, p.ndim))), names[:2])
    assert math.isclose(u.iloc[0, 1], pair.iloc[0, 1], abs_tol=1e-12)
    assert math.isclose(u.iloc[1, 0], pair.iloc[1, 0], abs_tol=1e-12)
    if np.any(q > 0):  # a raw estimate is clip-renormalized first
        uq = uncertainty_coefficients(q, names).to_numpy()[~np.eye(p.ndim, dtype=bool)]
        assert np.all((uq >= 0) & (uq <= 1))


@SETTINGS
@given(
    st.lists(st.floats(0.01, 1.0), min_size=1, max_size=5),
    st.lists(st.floats(0.01, 1.0), min_size=1, max_size=5),
)
def test_uncertainty_of_independent_attributes_is_zero(a, b):
    joint = np.outer(a, b)
    u = uncertainty_coefficients(joint / joint.sum(), ["a", "b"])
    assert abs(u.loc["a", "b"]) < 1e-9 and abs(u.loc["b", "a"]) < 1e-9
