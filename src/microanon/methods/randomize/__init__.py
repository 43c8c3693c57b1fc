"""Randomization against attribute disclosure: randomized response, PRAM, Warner, reconstruction.

:func:`randomize` publishes a table whose chosen attributes went through distortion matrices
(uniform retention or general PRAM), together with the matrices; :func:`reconstruct` estimates
the original distribution with standard errors, never forming the Kronecker product.
"""

from .matrices import (
    check_distortion,
    inverse_frobenius_sq,
    kron_apply,
    uniform_inverse,
    uniform_retention,
)
from .pram import invariant_matrix, pram
from .reconstruct import Reconstruction, reconstruct
from .release import randomize
from .warner import warner, warner_estimate, warner_matrix

__all__ = [
    "Reconstruction",
    "check_distortion",
    "invariant_matrix",
    "inverse_frobenius_sq",
    "kron_apply",
    "pram",
    "randomize",
    "reconstruct",
    "uniform_inverse",
    "uniform_retention",
    "warner",
    "warner_estimate",
    "warner_matrix",
]
