"""Attribute-disclosure risk of a randomized release.

Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*, Journal
of Computing Science and Engineering 5(3), 2011 (Definition 1, Lemma 1, Result 1, Property 1).

An attacker who knows a target's quasi-identifier values ``α``, the randomized table and every
distortion matrix guesses the target's record probabilistically (Lemma 1) and then its sensitive
value. The probability of predicting ``S_r = u`` from ``QI_r = α`` is (eqs. 6–8)::

    Pr(S_r | QI_r) = ρ_QI(α) · ρ_S(α, u)
    ρ_QI(α)   = Σ_β Pr(β|α)² π_α / λ_QI(β)                       (eq. 7; eq. 9 for all α at once)
    ρ_S(α, u) = (π_αu / π_α) · Σ_v P_s[v,u]² π_αu / Σ_k P_s[v,k] π_αk      (eq. 8)

``π`` is the array of true cell proportions with the quasi-identifiers on the first axes and the
sensitive attribute on the last. The product structure of eq. 6 and the matrix form of eq. 9 are the
paper's; the form of eq. 8 written above (with its factor ``π_αu/π_α``) is our reconstruction: it
reduces to the unrandomized risk at ``p_s = 1`` and has its minimum at ``p_s = 1/d_s``, as the paper
requires. Both factors are computed without a loop over cells: ``ρ_QI`` with
:func:`~.matrices.kron_apply` of the element-wise squared matrices (eq. 9), ``ρ_S`` as one
``(|Ω_QI| × d_s) @ (d_s × d_s)`` product. The risk is scale-free, so counts may be passed instead of
proportions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.errors import InputError
from .matrices import kron_apply, uniform_retention

__all__ = [
    "SCENARIOS",
    "disclosure_risk",
    "property1_minimum",
    "reconstruction_probability",
]

SCENARIOS = ("S", "QI", "Both")
"""Which attributes are randomized: only the sensitive one, only the quasi-identifiers, or both."""

#: Divisions by proportions are guarded with this floor.
_TINY = 1e-300


def check_scenario(scenario: object) -> str:
    """The canonical scenario name (``"S"``, ``"QI"`` or ``"Both"``; ``"RR-S"`` etc. accepted).

    Raises
    ------
    InputError
        For any other value.
    """
    if isinstance(scenario, str):
        name = scenario.strip().lower().removeprefix("rr-")
        for canonical in SCENARIOS:
            if name == canonical.lower():
                return canonical
    raise InputError(
        f"scenario: expected one of {', '.join(SCENARIOS)} (randomize the sensitive attribute, "
        f"the quasi-identifiers, or both), got {scenario!r}"
    )


def check_proportions(pi: object) -> np.ndarray:
    """``pi`` as a float array of proportions (normalized to sum 1), QIs first, S last.

    Raises
    ------
    InputError
        If it is not a non-empty array of finite non-negative numbers with a positive sum.
    """
    try:
        arr = np.asarray(pi, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"pi: expected an array of cell proportions ({exc})") from None
    if arr.ndim < 1 or arr.size == 0:
        raise InputError(
            f"pi: expected an array with one axis per quasi-identifier and a last axis for the "
            f"sensitive attribute, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InputError("pi: cell proportions must be finite and non-negative")
    total = arr.sum()
    if total <= 0:
        raise InputError("pi: the cell proportions sum to 0 (an empty table)")
    return arr / total


def round_trip(pi2: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Lemma 1 row by row: ``Σ_ν P[ν,μ]² π_μ / λ_ν`` with ``λ = P π`` for each row ``π`` of ``pi2``.

    ``pi2`` is ``(rows, d)``, ``matrix`` is ``d × d``; rows need not be normalized (the value is
    scale-free). Zero rows give 0.
    """
    lam = pi2 @ matrix.T
    return pi2 * ((1.0 / np.maximum(lam, _TINY)) @ (matrix * matrix))


def qi_reconstruction(pi_qi: np.ndarray, matrices: Sequence[np.ndarray]) -> np.ndarray:
    """``ρ_QI(α)`` for every QI combination at once (eq. 9).

    ``η = π_QI ∘ [(P_1^{∘2} ⊗ … ⊗ P_m^{∘2})ᵀ (λ_QI)^{∘-1}]`` with ``λ_QI = (P_1 ⊗ … ⊗ P_m) π_QI``,
    evaluated axis by axis; ``pi_qi`` has one axis per quasi-identifier.
    """
    lam = kron_apply(matrices, pi_qi)
    squared_t = [(m * m).T for m in matrices]
    return pi_qi * kron_apply(squared_t, 1.0 / np.maximum(lam, _TINY))


def risk_from_matrices(
    pi: np.ndarray, qi_matrices: Sequence[np.ndarray], s_matrix: np.ndarray
) -> np.ndarray:
    """``Pr(S_r | QI_r)`` per cell for normalized ``pi`` and given distortion matrices (eqs. 6–8).

    Cells with ``π = 0`` get 0.
    """
    d_s = pi.shape[-1]
    pi_qi = pi.sum(axis=-1)
    rho_qi = qi_reconstruction(pi_qi, qi_matrices).reshape(-1, 1)
    pi2 = pi.reshape(-1, d_s)
    conditional = pi2 / np.maximum(pi_qi.reshape(-1, 1), _TINY)
    risk = rho_qi * conditional * round_trip(pi2, s_matrix)
    return np.where(pi2 > 0, risk, 0.0).reshape(pi.shape)


def disclosure_risk(pi: object, keep_qi: Sequence[float], keep_s: float) -> np.ndarray:
    """Attribute-disclosure risk ``Pr(S_r | QI_r)`` of every cell (eqs. 6–9).

    Parameters
    ----------
    pi : array_like, shape (d_1, ..., d_m, d_s)
        True cell proportions, quasi-identifiers on the first ``m`` axes (row-major, the first
        slowest) and the sensitive attribute on the last. Counts are accepted (normalized).
    keep_qi : sequence of float, length m
        Keep probability ``p_i ∈ [1/d_i, 1]`` of each quasi-identifier (1 = not randomized).
    keep_s : float
        Keep probability of the sensitive attribute (1 = not randomized).

    Returns
    -------
    numpy.ndarray
        Same shape as ``pi``: the risk of a record in each cell; 0 for empty cells (no record, no
        constraint). Without randomization it is ``π_αu / π_α``.

    Raises
    ------
    InputError
        Bad ``pi``, a wrong number of keep probabilities, or one outside ``[1/d, 1]``.

    Examples
    --------
    >>> pi = [[10, 30, 20], [12, 16, 12]]  # Gender x Disease: our completion of Table 1
    >>> round(float(disclosure_risk(pi, [0.5], 1 / 3)[1, 0]), 6)
    0.036
    """
    arr = check_proportions(pi)
    keep_qi = list(keep_qi)
    if len(keep_qi) != arr.ndim - 1:
        raise InputError(
            f"keep_qi: {len(keep_qi)} keep probabilities for {arr.ndim - 1} quasi-identifier "
            f"axes of pi (shape {arr.shape})"
        )
    qi_matrices = [
        uniform_retention(d, p, f"keep_qi[{i}]")
        for i, (d, p) in enumerate(zip(arr.shape[:-1], keep_qi, strict=True))
    ]
    return risk_from_matrices(arr, qi_matrices, uniform_retention(arr.shape[-1], keep_s, "keep_s"))


def property1_minimum(pi: object, scenario: str) -> np.ndarray:
    """The least risk each cell can get in a scenario (Property 1).

    Reached at ``p = 1/d`` for the randomized attributes (a singular matrix, so never used):
    RR-S ``(π_αu/π_α)²``, RR-QI ``π_αu``, RR-Both ``π_αu²/π_α``.
    (The RR-S and RR-Both values follow from our form of eq. 8.)

    Parameters
    ----------
    pi : array_like, shape (d_1, ..., d_m, d_s)
        Cell proportions (counts are normalized).
    scenario : {"S", "QI", "Both"}

    Returns
    -------
    numpy.ndarray
        Same shape as ``pi``; 0 for empty cells.
    """
    scenario = check_scenario(scenario)
    arr = check_proportions(pi)
    pi_qi = np.maximum(arr.sum(axis=-1, keepdims=True), _TINY)
    if scenario == "S":
        return (arr / pi_qi) ** 2
    if scenario == "QI":
        return arr
    return arr * arr / pi_qi


def reconstruction_probability(pi: object, matrix: object) -> np.ndarray:
    """Probability that the attacker's guess equals the original value, per value (Lemma 1, eq. 5).

    ``Pr(X̂ = X = μ | X = μ) = Σ_ν P[ν,μ]² π_μ / λ_ν`` with ``λ = P π``: ``π_μ`` at ``p = 1/d``,
    1 at ``p = 1`` (for values with ``π_μ > 0``).

    Parameters
    ----------
    pi : array_like, shape (d,)
        Distribution of one attribute (counts are normalized).
    matrix : array_like, shape (d, d)
        Distortion matrix, ``P[u, v] = Pr(published u | original v)`` (columns sum to 1; a
        singular matrix is allowed).

    Returns
    -------
    numpy.ndarray, shape (d,)

    Raises
    ------
    InputError
        If ``pi`` is not one-dimensional or ``matrix`` is not a ``d × d`` column-stochastic matrix.

    Examples
    --------
    >>> from microanon.methods.randomize import uniform_retention
    >>> reconstruction_probability([0.5, 0.3, 0.2], uniform_retention(3, 0.6)).round(6)
    array([0.583929, 0.410357, 0.302143])
    """
    arr = check_proportions(pi)
    if arr.ndim != 1:
        raise InputError(f"pi: expected the distribution of one attribute, got shape {arr.shape}")
    m = np.asarray(matrix, dtype=float)
    d = len(arr)
    if m.shape != (d, d):
        raise InputError(f"matrix: expected shape ({d}, {d}) for {d} values, got {m.shape}")
    if not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(np.abs(m.sum(axis=0) - 1) > 1e-9):
        raise InputError(
            "matrix: entries must be non-negative probabilities whose columns each sum to 1 "
            "(P[u, v] = Pr(published u | original v))"
        )
    return round_trip(arr[None, :], m)[0]
