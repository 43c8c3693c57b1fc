"""Randomization against attribute disclosure: randomized response, PRAM, reconstruction."""

from .matrices import (
    check_distortion,
    inverse_frobenius_sq,
    kron_apply,
    uniform_inverse,
    uniform_retention,
)

__all__ = [
    "check_distortion",
    "inverse_frobenius_sq",
    "kron_apply",
    "uniform_inverse",
    "uniform_retention",
]
