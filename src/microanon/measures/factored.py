"""A randomized release's reconstruction kept as its factors, for its marginals at a few cells.

The unbiased reconstruction of a randomized release is ``Q = (M_1 ⊗ … ⊗ M_k) λ``: ``λ`` the
published cell proportions, ``M_i = P_i⁻¹`` the inverse of axis ``i``'s distortion matrix (the
identity for a column that was not randomized). ``Q`` is dense: every cell of the joint domain,
tens of millions for ten columns. ``λ`` is not: it has one non-empty cell per distinct published
combination, at most one per record.

Since the columns of every ``M_i`` sum to 1 (those of ``P_i`` do), summing ``Q`` over an axis is
the same as leaving that axis out of ``λ`` and of the product. So ``Q``'s marginal over the axes
``S`` at a cell ``c`` is

    ``Q_S(c) = Σ_j λ_S(j) · Π_{i ∈ S, randomized} M_i[c_i, j_i]``

over the non-empty cells ``j`` of ``λ_S`` that equal ``c`` on the axes of ``S`` no matrix mixes.
:class:`Factors` answers it for a few cells (those a query error is measured on) in time of
the number of such pairs ``(c, j)``, without the dense ``Q_S``. It is what
:func:`~microanon.measures.distribution.query_errors` reads the estimates of the CUBE from, where
pairs are fewer than the marginal's cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Factors"]


@dataclass(frozen=True, eq=False)
class Factors:
    """``Q = (M_1 ⊗ … ⊗ M_k) λ`` as ``λ``'s non-empty cells and one matrix per axis.

    Attributes
    ----------
    shape : tuple of int
        ``Q``'s shape.
    cells : tuple of numpy.ndarray
        Per axis, the code of each non-empty cell of ``λ``: in ``Q``'s codes on an axis without
        a matrix, in the matrix's column codes on the others.
    mass : numpy.ndarray
        ``λ`` at those cells.
    matrices : tuple of numpy.ndarray or None
        ``M_i[Q's code, λ's code]`` per axis; ``None``: the identity.
    """

    shape: tuple[int, ...]
    cells: tuple[np.ndarray, ...]
    mass: np.ndarray
    matrices: tuple[np.ndarray | None, ...]

    @classmethod
    def of(
        cls,
        observed: np.ndarray,
        matrices: Sequence[np.ndarray | None],
        shape: Sequence[int] | None = None,
    ) -> Factors:
        """The factors of ``(⊗ M_i) observed``.

        Parameters
        ----------
        observed : numpy.ndarray
            ``λ``, dense, one axis per column in the matrices' column codes.
        matrices : sequence of numpy.ndarray or None
            ``M_i`` per axis (None: the identity).
        shape : sequence of int, optional
            ``Q``'s shape when an axis without a matrix has more cells than ``observed``'s
            (empty ones, after its own); default ``observed``'s.
        """
        flat = np.asarray(observed, dtype=float).reshape(-1)
        held = np.flatnonzero(flat)
        cells = tuple(np.unravel_index(held, np.shape(observed)))
        size = tuple(np.shape(observed) if shape is None else shape)
        return cls(size, cells, flat[held], tuple(matrices))

    def pairs(self, keep: Sequence[int], at: Sequence[np.ndarray]) -> _Pairs:
        """The pairs of a marginal's cells ``at`` and ``λ``'s cells that reach them.

        Parameters
        ----------
        keep : sequence of int
            The axes of the marginal, in order.
        at : sequence of numpy.ndarray
            Per axis of ``keep``, the codes of the cells asked for (all of one length).
        """
        dims = [self.shape[a] for a in keep]
        m = len(at[0]) if len(at) else 1
        if not keep:  # the grand total: every cell of λ, summed once
            return _Pairs(np.zeros(1, np.int64), np.zeros(1, np.int64), [], np.array([1.0]), m)
        key = np.ravel_multi_index([self.cells[a] for a in keep], dims)
        combined, which = np.unique(key, return_inverse=True)
        mass = np.bincount(which.reshape(-1), weights=self.mass, minlength=len(combined))
        source = np.unravel_index(combined, dims)
        plain = [i for i, a in enumerate(keep) if self.matrices[a] is None]
        if plain:
            plain_dims = [dims[i] for i in plain]
            theirs = np.ravel_multi_index([source[i] for i in plain], plain_dims)
            mine = np.ravel_multi_index([at[i] for i in plain], plain_dims)
        else:
            theirs, mine = np.zeros(len(combined), np.int64), np.zeros(m, np.int64)
        order = np.argsort(theirs, kind="stable")
        ordered = theirs[order]
        lo = np.searchsorted(ordered, mine, side="left")
        count = np.searchsorted(ordered, mine, side="right") - lo
        mixed = [
            (self.matrices[a], at[i], source[i])
            for i, a in enumerate(keep)
            if self.matrices[a] is not None
        ]
        return _Pairs(lo, count, mixed, mass[order], m, order)

    def marginal_at(self, keep: Sequence[int], at: Sequence[np.ndarray]) -> np.ndarray:
        """``Q`` summed over every axis but ``keep``, at the cells ``at`` (see :meth:`pairs`)."""
        return self.pairs(keep, at).values()


@dataclass(frozen=True, eq=False)
class _Pairs:
    """The pairs of :meth:`Factors.pairs`: for asked cell ``t``, ``λ``'s cells ``order[lo[t] :
    lo[t] + count[t]]`` (sorted by their codes on the axes without a matrix)."""

    lo: np.ndarray
    count: np.ndarray
    mixed: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
    mass: np.ndarray
    asked: int
    order: np.ndarray | None = None

    @property
    def size(self) -> int:
        """The number of pairs."""
        return int(self.count.sum())

    @property
    def work(self) -> int:
        """About the elementary steps :meth:`values` takes: a few per pair and matrix."""
        return self.size * (len(self.mixed) + 3)

    def values(self) -> np.ndarray:
        """The marginal at each asked cell: the sum over its pairs of ``λ``'s mass times the
        matrices' entries."""
        if self.order is None:  # the grand total
            return np.full(self.asked, float(self.mass.sum()))
        total = self.size
        target = np.repeat(np.arange(self.asked), self.count)
        starts = np.cumsum(self.count) - self.count
        position = np.repeat(self.lo - starts, self.count) + np.arange(total)
        weight = self.mass[position]
        source = self.order[position]
        for matrix, mine, theirs in self.mixed:
            weight = weight * matrix[mine[target], theirs[source]]
        return np.bincount(target, weights=weight, minlength=self.asked)
