"""The randomness policy.

Every randomized routine takes ``rng``: a :class:`numpy.random.Generator`, an integer seed (for
reproducible research only), or ``None`` to draw fresh entropy from the operating system. Seeds are
never written into a release.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InputError

__all__ = ["RandomLike", "make_rng", "state_fingerprints"]

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


#: Numbers below this are too common to be told apart from ordinary data by value (a research
#: seed such as 42): :func:`state_fingerprints` leaves them out, and the key-name guard of
#: releases is what keeps them out of a release.
DISTINCTIVE = 2**32


def state_fingerprints(rng: np.random.Generator) -> tuple[str, ...]:
    """The texts by which a generator's seed or state could be recognised in written files.

    The decimal and hexadecimal forms of its seed sequence's entropy and of the integers of its
    bit generator's state, those of at least :data:`DISTINCTIVE` (operating-system entropy is a
    128-bit number, so a generator made from it is always recognisable). A release's public
    part must hold none of them, whatever the key or file.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    tuple of str
    """
    numbers: list[int] = []
    seed_seq = getattr(rng.bit_generator, "seed_seq", None)
    entropy = getattr(seed_seq, "entropy", None)
    if entropy is not None:
        numbers += [int(v) for v in np.atleast_1d(np.asarray(entropy, dtype=object))]
    numbers += _state_integers(rng.bit_generator.state)
    big = sorted({v for v in numbers if v >= DISTINCTIVE})
    return tuple(f"{v}" for v in big) + tuple(f"{v:x}" for v in big)


def _state_integers(state: object) -> list[int]:
    """Every integer in a bit generator's state (nested dicts, arrays)."""
    if isinstance(state, dict):
        return [v for item in state.values() for v in _state_integers(item)]
    if isinstance(state, np.ndarray):
        return [int(v) for v in state.ravel()] if state.dtype.kind in "iu" else []
    if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
        return [int(state)]
    return []
