"""Disclosure risk of a fixed set of cells and its gradient in the keep probabilities.

The parameter search of :mod:`.optimal` evaluates ``Pr(S_r | QI_r)`` (eqs. 6–9 of Guo, Ying & Wu,
*Limiting Attribute Disclosure in Randomization Based Microdata Release*, JCSE 2011) many times,
only for the cells it constrains and only for uniform-retention matrices. Such a matrix is
``P = a I + q J`` (``q = (1 − p)/(d − 1)``, ``a = p − q``, ``J`` all ones) and its element-wise
square is ``(p² − q²) I + q² J``: products with the Kronecker product of such matrices are taken
axis by axis, in place (``a v + q Σ v`` along the axis; the product matrix is never formed). Each
factor is linear in its own ``p``, so the gradient is computed in forward mode alongside the
value and the solver needs no finite differences.

Same quantities as :func:`.risk.risk_from_matrices` (equal to rounding), restricted to the cells:

- ``ρ_QI(α) = π_α [K₂ᵀ (1/λ)](α)``, ``λ = K π_QI``, ``K = ⊗ P_i``, ``K₂ = ⊗ P_i^{∘2}`` over the
  randomized quasi-identifiers (``1/λ`` is taken as 0 where ``λ = 0``: such a ``β`` cannot be
  published from a non-empty ``α``, so ``K₂[β, α] = 0`` there). ``λ`` is the sum over the
  subsets ``T`` of those axes of ``Π_{i∈T} q_i Π_{i∉T} a_i`` times the marginal of ``π_QI``
  summed over ``T`` (precomputed), i.e. one matrix product;
- ``ρ_S(α, u)/(π_αu/π_α) = π_αu [(p² − q²)/λ_s(u) + q² Σ_v 1/λ_s(v)]`` with
  ``λ_s(v) = a π_αv + q π_α``; an empty ``v`` contributes ``q²/(q π_α) = q/π_α`` exactly, which
  keeps the value and its derivative finite at ``p = 1``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np

__all__ = ["CellRisk"]

#: Gradients with respect to a quasi-identifier are taken at most this close to ``p = 1`` (the
#: one-sided derivative there involves ``q²/λ`` with ``λ → 0`` on empty neighbourhoods).
_EDGE = 1e-12
#: Largest number of entries of the precomputed marginals (2^(randomized QIs) × QI domain);
#: beyond it ``λ`` is computed axis by axis like ``K₂ᵀ(1/λ)``.
_MAX_MARGINALS = 1 << 22


class CellRisk:
    """``Pr(S_r | QI_r)`` of chosen cells as a function of the keep probabilities of some axes.

    Parameters
    ----------
    pi : numpy.ndarray, shape (d_1, ..., d_m, d_s)
        Normalized cell proportions.
    cells : numpy.ndarray of int
        Flat indices of non-empty cells.
    free : sequence of int
        The randomized axes (each of size > 1); the others keep ``p = 1``.
    """

    def __init__(self, pi: np.ndarray, cells: np.ndarray, free: Sequence[int]) -> None:
        m = pi.ndim - 1
        # free axes ascend: the randomized QIs come first, then S (if randomized)
        self.k = sum(a < m for a in free)
        self.s = m in free
        self.d = np.array([pi.shape[a] for a in free], dtype=float)
        self.inv = 1.0 / (self.d - 1.0)
        # QI axes that are not free have size 1: the QI domain is that of the free ones
        self.qi_dims = [pi.shape[a] for a in free[: self.k]]
        self.pi = pi
        self.pi_qi = pi.sum(axis=-1).reshape(-1)
        self.marginals = None
        if self.k and self.pi_qi.size << self.k <= _MAX_MARGINALS:
            self.subsets, self.marginals = _marginals(self.pi_qi.reshape(self.qi_dims))
            # λ's tangent in p_j: factor j of each subset's coefficient is dq_j or da_j
            self.tangent = np.zeros((1 + self.k, 1, self.k), dtype=bool)
            self.tangent[np.arange(1, 1 + self.k), 0, np.arange(self.k)] = True
            inv = self.inv[: self.k]
            self.d_factors = np.where(self.subsets, -inv, 1.0 + inv)
        self._set_cells(cells)

    def subset(self, mask: np.ndarray) -> CellRisk:
        """The same function restricted to ``cells[mask]`` (sharing the precomputed parts)."""
        out = copy.copy(self)
        out._set_cells(self.cells[mask])
        return out

    def _set_cells(self, cells: np.ndarray) -> None:
        d_s = self.pi.shape[-1]
        self.cells = cells
        rows, u = np.divmod(cells, d_s)
        self.cell_pi = self.pi.reshape(-1)[cells]
        if self.k:  # risk = ρ_QI (π_αu/π_α) ρ_S' = [K₂ᵀ(1/λ)](α) π_αu ρ_S'
            self.cell_row = rows
            self.cell_pi_qi = self.cell_pi
        else:  # ρ_QI = 1: risk = (π_αu/π_α) ρ_S'
            self.cell_pi_qi = self.cell_pi / self.pi_qi[rows]
        if self.s:
            urow, pos = np.unique(rows, return_inverse=True)
            block = self.pi.reshape(-1, d_s)[urow]
            pa = self.pi_qi[urow][:, None]
            self.block, self.block_pa, self.pos = block, pa, pos
            self.nonempty = block > 0
            self.cell_index = pos * d_s + u  # into block.reshape(-1)
            self.row_empty = (d_s - self.nonempty.sum(axis=1)) / pa[:, 0]  # n_empty / π_α
            self._h = np.zeros_like(block)

    def value(self, x: np.ndarray) -> np.ndarray:
        """Risk of every cell at free keep probabilities ``x``."""
        risk = self.cell_pi_qi
        if self.k:
            risk = risk * self._rho_qi(x, False)[:, 0]
        if self.s:
            risk = risk * self._rho_s(x[self.k], False)[0]
        return risk

    def value_and_jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Risk of every cell and its derivatives, shape ``(cells, len(x))``."""
        k = self.k
        jac = np.empty((len(x), len(self.cells)))
        risk = self.cell_pi_qi
        r_s, d_s = self._rho_s(x[k], True) if self.s else (None, None)
        if k:
            # derivatives in a QI's p: one-sided at p = 1 (see _EDGE), the value at x itself
            edge = bool((x[:k] > 1.0 - _EDGE).any())
            g = self._rho_qi(np.minimum(x, 1.0 - _EDGE) if edge else x, True).T
            np.multiply(g[1:], risk if r_s is None else risk * r_s, out=jac[:k])
            risk = risk * (self._rho_qi(x, False)[:, 0] if edge else g[0])
        if self.s:
            np.multiply(risk, d_s, out=jac[k])
            risk = risk * r_s
        return risk, jac.T

    def _rho_qi(self, x: np.ndarray, grad: bool) -> np.ndarray:
        """``[K₂ᵀ(1/λ)](α)`` of every cell (column 0) and its derivatives per QI axis."""
        k, inv = self.k, self.inv[: self.k]
        p = x[:k]
        q = (1.0 - p) * inv
        a = p - q
        if self.marginals is not None:
            factors = np.where(self.subsets, q, a)
            if grad:  # row 1 + j: factor j replaced by its derivative (dq = −inv, da = 1 + inv)
                factors = np.where(self.tangent, self.d_factors, factors)
            lam = factors.prod(axis=-1).reshape(-1, len(self.subsets)) @ self.marginals
        else:
            lam = np.zeros((1 + k if grad else 1, len(self.pi_qi)))
            lam[0] = self.pi_qi
            lam = self._passes(lam, a, q, 1.0 + inv, -inv, tangents_empty=True).T
        w = np.zeros_like(lam)
        np.divide(1.0, lam[0], out=w[0], where=lam[0] > 0)
        if grad:
            np.multiply(lam[1:], -(w[0] * w[0]), out=w[1:])
        # P^{∘2} = (p² − q²) I + q² J, derivatives 2(p + q inv) and −2 q inv
        a2, q2 = (p + q) * a, q * q
        return self._passes(w, a2, q2, 2.0 * (p + q * inv), -2.0 * q * inv)[self.cell_row]

    def _passes(
        self,
        x: np.ndarray,
        a: np.ndarray,
        q: np.ndarray,
        da: np.ndarray,
        dq: np.ndarray,
        tangents_empty: bool = False,
    ) -> np.ndarray:
        """``⊗_j (a_j I + q_j J)`` applied to every row of ``x`` (shape ``(batch, D_QI)``; it
        is overwritten).

        Row ``1 + j`` also gets ``∂P_j = da_j I + dq_j J`` applied to row 0 (forward mode).
        Axis by axis, in place: ``(a I + q J) v = a v + q Σ v`` along the axis, so a pass is a
        sum and two element-wise operations, without forming or transposing anything. With
        ``tangents_empty`` (rows ``1..k`` all zero on entry), a pass skips the tangent rows
        that are still zero: axis ``j``'s pass touches rows ``0..j`` only. The result is
        ``x`` transposed, shape ``(D_QI, batch)``.
        """
        dims, batch = self.qi_dims, len(x)
        for j, d in enumerate(dims):
            rows = j + 1 if tangents_empty and batch > 1 else batch
            view = x[:rows].reshape(rows, math.prod(dims[:j]), d, -1)
            # (einsum's reduction is several times faster than sum's over a short middle axis)
            total = np.einsum("rbda->rba", view)[:, :, None, :]
            if batch > 1:
                tangent = view[0] * da[j]
                tangent += total[0] * dq[j]
            view *= a[j]
            total *= q[j]
            view += total
            if batch > 1:
                x[1 + j] += tangent.reshape(-1)
        return x.T

    def _rho_s(self, p: float, grad: bool) -> tuple[np.ndarray, np.ndarray]:
        """``ρ_S' = π_αu Σ_v P[v,u]²/λ_s(v)`` of every cell, and its derivative in ``p_s``."""
        inv = self.inv[self.k]
        p = float(p)
        q = (1.0 - p) * inv
        a = p - q
        a2, q2 = (p + q) * a, q * q
        lam = self.block * a
        lam += self.block_pa * q
        h = np.divide(1.0, lam, where=self.nonempty, out=self._h)  # 0 where π_αv = 0
        h_cell, h_sum = h.take(self.cell_index), h.sum(axis=1)
        row = h_sum * q2 + self.row_empty * q
        value = (h_cell * a2 + row.take(self.pos)) * self.cell_pi
        if not grad:
            return value, value
        da, dq = 1.0 + inv, -inv
        dh = self.block * da
        dh += self.block_pa * dq
        dh *= h * h  # −∂h
        d_row = h_sum * (2.0 * q * dq) - dh.sum(axis=1) * q2 + self.row_empty * dq
        deriv = h_cell * (2.0 * (p - q * dq)) - dh.take(self.cell_index) * a2
        deriv += d_row.take(self.pos)
        return value, deriv * self.cell_pi


def _marginals(pi_qi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every marginal of ``pi_qi`` over a subset of its axes, broadcast back to its shape.

    Returns ``subsets`` (``2^k × k`` booleans: which axes each subset sums over) and the
    marginals as the rows of a ``(2^k, pi_qi.size)`` array, in the same order.
    """
    k = pi_qi.ndim
    out = pi_qi[None]
    for axis in range(k):
        summed = np.broadcast_to(out.sum(axis=axis + 1, keepdims=True), out.shape)
        out = np.concatenate([out, summed])
    subsets = (np.arange(1 << k)[:, None] >> np.arange(k)) & 1
    return subsets.astype(bool), out.reshape(1 << k, -1)
