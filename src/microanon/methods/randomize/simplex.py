"""Reconstructions of a randomized distribution that stay on the probability simplex.

The unbiased estimate ``π̂ = P⁻¹λ̂`` of Guo, Ying & Wu (JCSE 2011, §3) sums to 1 but may hold
negative cells. Two estimates that are distributions, beside clipping and renormalizing:

- :func:`em_reconstruct`: the maximum-likelihood estimate of ``π`` given the published counts
  ``N λ̂ ~ Multinomial(N, P π)``, by the EM iteration of iterative Bayesian reconstruction
  ``π ← π ∘ Pᵀ(λ̂ / (P π))`` (Agrawal & Srikant, *Privacy-Preserving Data Mining*, SIGMOD 2000;
  Agrawal & Aggarwal, *On the Design and Quantification of Privacy Preserving Data Mining
  Algorithms*, PODS 2001, who show it converges to the maximum-likelihood estimate). Each step
  applies ``P`` and ``Pᵀ`` axis by axis (:func:`~.matrices.kron_apply`), never forming them.
  When ``π̂`` has no negative cell it is itself the maximum-likelihood estimate, and the
  iteration converges to it.
- :func:`project_simplex`: the point of the simplex closest to ``π̂`` in Euclidean distance
  (sort and threshold: Held, Wolfe & Crowder, *Validation of subgradient optimization*,
  Math. Programming 1974; Duchi et al., ICML 2008), ``max(π̂ − θ, 0)`` with the one ``θ`` that
  makes it sum to 1.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core.errors import InputError
from .matrices import kron_apply

__all__ = ["EM_MAX_ITER", "EM_TOL", "em_reconstruct", "project_simplex"]

#: Default stopping rule of :func:`em_reconstruct`: the L1 change of one step, and a step cap.
EM_TOL = 1e-9
EM_MAX_ITER = 20_000


def project_simplex(values: object) -> np.ndarray:
    """The Euclidean projection of an array onto the probability simplex.

    Parameters
    ----------
    values : array_like
        Any shape; all cells form one vector.

    Returns
    -------
    numpy.ndarray
        Same shape: non-negative, summing to 1, the closest such array to ``values`` in
        Euclidean distance (unique: the simplex is convex).

    Raises
    ------
    InputError
        An empty array or non-finite values.

    Examples
    --------
    >>> project_simplex([0.7, 0.5, -0.2]).round(6)
    array([0.6, 0.4, 0. ])
    """
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"values: expected an array of numbers ({exc})") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise InputError("values: expected a non-empty array of finite numbers")
    flat = arr.reshape(-1)
    desc = np.sort(flat)[::-1]
    cumulative = np.cumsum(desc) - 1.0
    ranks = np.arange(1, flat.size + 1)
    k = int(np.flatnonzero(desc - cumulative / ranks > 0)[-1])  # never empty: k = 0 qualifies
    theta = cumulative[k] / (k + 1)
    return np.maximum(flat - theta, 0.0).reshape(arr.shape)


def em_reconstruct(
    observed: object,
    matrices: Sequence[np.ndarray | None],
    *,
    tol: float = EM_TOL,
    max_iter: int = EM_MAX_ITER,
) -> tuple[np.ndarray, int]:
    """Maximum-likelihood estimate of the original distribution by EM (iterative Bayes).

    Parameters
    ----------
    observed : array_like, shape (d_1, ..., d_k)
        Published cell proportions ``λ̂`` (non-negative, summing to 1), row-major cell order.
    matrices : sequence of arrays or None
        Distortion matrix ``P_i`` per axis, ``P_i[u, v] = Pr(published u | original v)``
        (``None``: not randomized).
    tol : float, default 1e-9
        Stop when one step changes the estimate by at most this much in L1 distance.
    max_iter : int, default 20000
        Stop after this many steps (each raises the likelihood; the estimate is a distribution
        at every step).

    Returns
    -------
    (numpy.ndarray, int)
        The estimate (shape of ``observed``, non-negative, summing to 1) and the number of steps.

    Raises
    ------
    InputError
        ``observed`` not a distribution, a matrix missing or of the wrong shape, a bad ``tol``
        or ``max_iter``.

    Examples
    --------
    >>> from microanon.methods.randomize import uniform_retention
    >>> P = uniform_retention(2, 0.8)
    >>> est, steps = em_reconstruct(P @ [0.9, 0.1], [P])
    >>> est.round(6)
    array([0.9, 0.1])
    """
    lam = np.asarray(observed, dtype=float)
    if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise InputError("observed: expected non-negative finite cell proportions")
    if abs(lam.sum() - 1.0) > 1e-9:
        raise InputError(f"observed: cell proportions must sum to 1, got {lam.sum():.12g}")
    if len(matrices) != lam.ndim:
        raise InputError(f"matrices: {len(matrices)} matrices for {lam.ndim} axes of observed")
    for i, (m, d) in enumerate(zip(matrices, lam.shape, strict=True)):
        if m is not None and np.shape(m) != (d, d):
            raise InputError(f"matrices[{i}]: shape {np.shape(m)}, axis has {d} cells")
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol > 0:
        raise InputError(f"tol: expected a positive number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise InputError(f"max_iter: expected a positive integer, got {max_iter!r}")
    mats = [None if m is None else np.asarray(m, dtype=float) for m in matrices]
    transposed = [None if m is None else m.T for m in mats]
    pi = np.full(lam.shape, 1.0 / lam.size)
    steps = 0
    while steps < max_iter:
        predicted = kron_apply(mats, pi)
        ratio = np.divide(lam, predicted, out=np.zeros_like(lam), where=predicted > 0)
        new = pi * kron_apply(transposed, ratio)
        new /= new.sum()
        steps += 1
        change = float(np.abs(new - pi).sum())
        pi = new
        if change <= tol:
            break
    return pi, steps
