"""The randomness policy.

Every randomized routine takes ``rng``: a :class:`numpy.random.Generator`, an integer seed (for
reproducible research only), or ``None`` to draw fresh entropy from the operating system. Seeds are
never written into a release.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InputError

__all__ = ["RandomLike", "make_rng"]

RandomLike = np.random.Generator | int | None


def make_rng(rng: RandomLike = None) -> np.random.Generator:
    """Turn ``rng`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        An existing generator (returned unchanged), a non-negative integer seed, or ``None`` for a
        generator seeded from operating-system entropy.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InputError
        If ``rng`` is of another type (for example a float, a bool or the legacy
        ``numpy.random.RandomState``) or a negative integer.
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InputError(f"rng: a seed must be a non-negative integer, got {rng}")
        return np.random.default_rng(int(rng))
    raise InputError(
        f"rng: expected a numpy.random.Generator, an integer seed or None, got {type(rng).__name__}"
    )
