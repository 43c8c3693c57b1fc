"""Comparing the JSON figures of two runs (two engines, rows against a frequency table)."""

from __future__ import annotations

import pytest


def assert_close(
    got: object,
    expected: object,
    rel: float = 1e-12,
    abs: float | None = None,
    nan_ok: bool = False,
) -> None:
    """The same keys and values, numbers equal to ``rel`` and ``abs`` (sums taken in another
    order; with ``nan_ok``, NaN equal to NaN), as :func:`pytest.approx` compares them."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys()
        for key in expected:
            assert_close(got[key], expected[key], rel, abs, nan_ok)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=rel, abs=abs, nan_ok=nan_ok)
    else:
        assert got == expected
