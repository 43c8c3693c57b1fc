"""Distortion (transition) matrices of randomized response and PRAM.

Notation and lemmas of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based
Microdata Release*, Journal of Computing Science and Engineering 5(3), 2011 (eq. 1; Lemmas 2 and
4; the closed forms of Lemma 4 below are our derivation, checked numerically).

``P[u, v] = Pr(published = u | original = v)``: columns sum to 1. The uniform-retention form keeps
a value with probability ``p`` and otherwise replaces it by one of the other ``d - 1`` values
uniformly; its inverse and the Frobenius norm of the inverse have closed forms (Lemma 4). Joint
matrices ``P_1 ⊗ … ⊗ P_k`` are never formed: :func:`kron_apply` applies each factor along its own
axis of a ``d_1 × … × d_k`` array (Lemma 2, the Kronecker–vec identity).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...core.errors import InputError

__all__ = [
    "uniform_retention",
    "uniform_inverse",
    "inverse_frobenius_sq",
    "check_distortion",
    "kron_apply",
]

#: Column sums of a distortion matrix must be 1 within this tolerance.
_SUM_TOL = 1e-9
#: Condition numbers above this make a matrix "singular" for reconstruction.
_MAX_CONDITION = 1e12


def _check_p(d: int, p: float, name: str) -> tuple[int, float]:
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise InputError(f"{name}: the domain size must be a positive integer, got {d!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float, np.number)) or not math.isfinite(p):
        raise InputError(f"{name}: the keep probability must be a number, got {p!r}")
    if d > 1 and not (1.0 / d - 1e-12 <= p <= 1.0):
        raise InputError(f"{name}: keep probability {p} is outside [1/{d}, 1]")
    return int(d), float(p)


def uniform_retention(d: int, p: float, name: str = "p") -> np.ndarray:
    """The ``d × d`` uniform-retention matrix: ``p`` on the diagonal, ``(1 - p)/(d - 1)`` off it.

    Raises
    ------
    InputError
        If ``d < 1`` or ``p`` is outside ``[1/d, 1]`` (``p = 1/d`` is allowed here but singular).
    """
    d, p = _check_p(d, p, name)
    if d == 1:
        return np.ones((1, 1))
    q = (1.0 - p) / (d - 1)
    return np.full((d, d), q) + np.eye(d) * (p - q)


def uniform_inverse(d: int, p: float, name: str = "p") -> np.ndarray:
    """Closed-form inverse ``(I - q 1 1ᵀ)/(p - q)`` of a uniform-retention matrix.

    Raises
    ------
    InputError
        At ``p = 1/d``, where the matrix is singular.
    """
    d, p = _check_p(d, p, name)
    if d == 1:
        return np.ones((1, 1))
    q = (1.0 - p) / (d - 1)
    if abs(p - q) < 1e-12:
        raise InputError(f"{name}: keep probability 1/{d} makes the distortion matrix singular")
    return (np.eye(d) - q) / (p - q)


def inverse_frobenius_sq(d: int, p: float) -> float:
    """``‖P⁻¹‖_F²`` of a uniform-retention matrix, ``1 + (d - 1)³/(d p - 1)²`` (Lemma 4).

    ``d`` at ``p = 1``; infinite at the singular ``p = 1/d``.
    """
    d, p = _check_p(d, p, "p")
    if d == 1:
        return 1.0
    denom = (d * p - 1.0) ** 2
    return math.inf if denom == 0 else 1.0 + (d - 1) ** 3 / denom


def check_distortion(matrix: np.ndarray, name: str = "matrix") -> np.ndarray:
    """Validate a general distortion matrix: square, non-negative, column-stochastic, invertible.

    Returns
    -------
    numpy.ndarray
        The matrix as float64.

    Raises
    ------
    InputError
        Naming ``name`` and what is wrong (shape, a negative entry, the column whose sum is not 1,
        or singularity).
    """
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise InputError(f"{name}: a distortion matrix must be square, got shape {m.shape}")
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise InputError(f"{name}: entries must be finite probabilities (non-negative)")
    sums = m.sum(axis=0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
    if len(bad):
        raise InputError(
            f"{name}: column {int(bad[0])} sums to {sums[bad[0]]:.12g}, not 1 (columns are "
            "Pr(published | original) and must each sum to 1)"
        )
    with np.errstate(all="ignore"):
        try:  # the 1-norm condition number costs one inversion, not an SVD
            condition = np.linalg.cond(m, p=1)
        except np.linalg.LinAlgError:
            condition = np.inf
    if not np.isfinite(condition) or condition > _MAX_CONDITION:
        raise InputError(
            f"{name}: the distortion matrix is singular, so the original distribution cannot be "
            "reconstructed; keep probabilities must differ from 1/d"
        )
    return m


def kron_apply(matrices: Sequence[np.ndarray | None], tensor: np.ndarray) -> np.ndarray:
    """``(M_1 ⊗ … ⊗ M_k) vec(tensor)`` as an array of the same layout, without forming the product.

    Parameters
    ----------
    matrices : sequence of 2-d arrays or None
        One per axis of ``tensor`` (row-major cell order, the first axis slowest); ``None`` is the
        identity. ``M_i`` maps axis ``i`` of size ``M_i.shape[1]`` to size ``M_i.shape[0]``.
    tensor : numpy.ndarray
        A ``k``-dimensional array.

    Returns
    -------
    numpy.ndarray
        Cost O((Σ d_i) · Π d_i) time and O(Π d_i) memory.
    """
    if len(matrices) != tensor.ndim:
        raise InputError(f"kron_apply: {len(matrices)} matrices for a {tensor.ndim}-d array")
    out = tensor
    for axis, m in enumerate(matrices):
        if m is None:
            continue
        shape = out.shape
        before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
        # (before, d_in, after) -> (before, d_out, after): one broadcast matmul, no transposes
        out = np.matmul(m, out.reshape(before, shape[axis], after)).reshape(
            *shape[:axis], m.shape[0], *shape[axis + 1 :]
        )
    return out
