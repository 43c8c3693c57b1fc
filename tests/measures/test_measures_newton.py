"""The numerics behind population_uniqueness: the restarted Newton-Raphson of ARX's schedule and
the well-conditioned digamma/trigamma spans, against plain loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.measures._newton import grid_starts, solve
from microanon.measures._spans import digamma_span, trigamma_span


def test_grid_is_arx_default_start_values():
    grid = grid_starts()
    assert grid.shape == (16, 2)
    assert grid[0].tolist() == [0.0, 0.0] and grid[1].tolist() == [0.0, 0.33]
    assert grid[4].tolist() == [0.33, 0.0]
    assert grid[-1, 0] == 0.33 + 0.33 + 0.33  # summed, as ARX does: 0.9900000000000001


def _shifted_identity(target: tuple[float, float]):
    """F = (x − a, y − b): Newton reaches the root in one step from anywhere."""

    def system(x, y):
        one, zero = np.ones_like(x), np.zeros_like(x)
        return x - target[0], y - target[1], one, zero, zero, one

    return system


def test_own_start_first():
    root = solve(_shifted_identity((3.0, -2.0)), (10.0, 10.0), None)
    assert root is not None and (root.x, root.y, root.start) == (3.0, -2.0, 0)


def test_restarts_in_order_when_the_own_start_fails():
    # Every iterate is rejected, so only a start that already is a root converges.
    never = lambda x, y: np.zeros(len(x), dtype=bool)  # noqa: E731
    grid = grid_starts()
    root = solve(_shifted_identity(tuple(grid[5])), (10.0, 10.0), never)
    assert root is not None and root.start == 6  # grid point 5, after the own start
    # The last grid point is only tested, never stepped from; it is still found if it is a root.
    root = solve(_shifted_identity(tuple(grid[-1])), (10.0, 10.0), never)
    assert root is not None and root.start == 16
    assert solve(_shifted_identity((5.0, 5.0)), (10.0, 10.0), never) is None


def test_nan_ends_a_start():
    def system(x, y):
        nan = np.full_like(x, np.nan)
        return nan, nan, nan, nan, nan, nan

    assert solve(system, (1.0, 1.0), None) is None


def _digamma_loop(z: float, k: int) -> float:
    return math.fsum(1 / (z + i) for i in range(k))


def _trigamma_loop(z: float, k: int) -> float:
    return math.fsum(1 / (z + i) ** 2 for i in range(k))


positive = st.one_of(st.floats(1e-3, 99), st.floats(100, 1e9))


@settings(max_examples=200, deadline=None)
@given(z=positive, k=st.integers(0, 3000))
def test_spans_of_positive_arguments(z, k):
    assert digamma_span(z, k) == pytest.approx(_digamma_loop(z, k), rel=1e-12, abs=1e-300)
    assert trigamma_span(z, k) == pytest.approx(_trigamma_loop(z, k), rel=1e-12, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(w=positive, k=st.integers(1, 3000))
def test_spans_of_negative_arguments_without_a_pole(w, k):
    z = 1 - w - k  # z + i runs over −(w + k − 1) .. −w: all negative
    # Near a pole the answer is ill-conditioned in z itself: z holds |z|·eps of rounding, which
    # moves ψ(z + i) by about that over w² and ψ'(z + i) by twice that over w³.
    slack = 4 * np.finfo(float).eps * abs(z)
    assert digamma_span(z, k) == pytest.approx(_digamma_loop(z, k), rel=1e-11, abs=slack / w**2)
    assert trigamma_span(z, k) == pytest.approx(
        _trigamma_loop(z, k), rel=1e-11, abs=2 * slack / w**3
    )


def test_large_arguments_do_not_cancel():
    # ψ(z + k) − ψ(z) for z = 1e12: a difference of two numbers near 27.6 that is 3e-10.
    z, k = 1e12, 300
    assert digamma_span(z, k) == pytest.approx(_digamma_loop(z, k), rel=1e-13)
    assert trigamma_span(z, k) == pytest.approx(_trigamma_loop(z, k), rel=1e-13)
