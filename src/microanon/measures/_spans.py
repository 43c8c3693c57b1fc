"""Sums of ``1/(z+i)`` and ``1/(z+i)²`` over ``i = 0 .. k−1``, well conditioned (private).

Pitman's likelihood equations are made of such sums. As differences of digamma or trigamma
values they cancel badly in two places, which ARX works around by re-solving with explicit
loops; here each difference is computed in a form that does not cancel:

- ``z ≤ 0`` (a negative ``α`` in Pitman's model): the reflection formulas turn the span into
  the same span over ``1 − z − k .. −z``, the ``π cot`` and ``π²/sin²`` terms cancelling
  exactly because ``k`` is a whole number;
- ``z ≥ 100``: the asymptotic series of ψ and ψ₁, their leading differences written as
  ``log1p(k/z)`` and ``k / (z (z+k))``; the truncation error is below 1e-18.

A span that crosses a pole (``z ≤ 0 < z + k``) has terms of both signs and stays ill
conditioned however it is written.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []

_ASYMPTOTIC = 100.0


def digamma_span(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``ψ(z + k) − ψ(z) = Σ_{i<k} 1/(z+i)`` for whole ``k ≥ 0``, element-wise."""
    z, k = np.broadcast_arrays(np.asarray(z, dtype=float), np.asarray(k, dtype=float))
    mirrored = (z <= 0) & (z + k < 1)
    w = np.where(mirrored, 1 - z - k, z)
    out = np.where(w >= _ASYMPTOTIC, _digamma_tail(w, k), _digamma_direct(w, k))
    return np.where(mirrored, -out, out)


def trigamma_span(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``ψ₁(z) − ψ₁(z + k) = Σ_{i<k} 1/(z+i)²`` for whole ``k ≥ 0``, element-wise."""
    z, k = np.broadcast_arrays(np.asarray(z, dtype=float), np.asarray(k, dtype=float))
    mirrored = (z <= 0) & (z + k < 1)
    w = np.where(mirrored, 1 - z - k, z)
    return np.where(w >= _ASYMPTOTIC, _trigamma_tail(w, k), _trigamma_direct(w, k))


def _digamma_direct(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    from scipy import special

    return special.digamma(z + k) - special.digamma(z)


def _trigamma_direct(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    return _trigamma(z) - _trigamma(z + k)


def _trigamma(v: np.ndarray) -> np.ndarray:
    """ψ₁, by reflection below 1/2 (scipy's series is slow for large negative arguments)."""
    from scipy import special

    low = v < 0.5
    out = special.zeta(2.0, np.where(low, 1 - v, v))
    return np.where(low, (np.pi / np.sin(np.pi * v)) ** 2 - out, out)


def _digamma_tail(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    """ψ(w) ~ ln w − 1/(2w) − 1/(12w²) + 1/(120w⁴) − 1/(252w⁶), differenced at z + k and z."""
    a, b = 1 / z, 1 / (z + k)
    a2, b2 = a * a, b * b
    return (
        np.log1p(k / z)
        + (a - b) / 2
        + (a2 - b2) / 12
        - (a2 * a2 - b2 * b2) / 120
        + (a2**3 - b2**3) / 252
    )


def _trigamma_tail(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    """ψ₁(w) ~ 1/w + 1/(2w²) + 1/(6w³) − 1/(30w⁵) + 1/(42w⁷) − 1/(30w⁹), differenced."""
    a, b = 1 / z, 1 / (z + k)
    a2, b2 = a * a, b * b
    return (
        k / (z * (z + k))
        + (a2 - b2) / 2
        + (a2 * a - b2 * b) / 6
        - (a2 * a2 * a - b2 * b2 * b) / 30
        + (a2**3 * a - b2**3 * b) / 42
        - (a2**4 * a - b2**4 * b) / 30
    )
