"""The full-domain generalization lattice: one level per quasi-identifier.

The lattice of LeFevre, DeWitt & Ramakrishnan, *Incognito: Efficient Full-Domain K-Anonymity*,
SIGMOD 2005.

A node is a level vector ``x = (x_1, ..., x_q)`` with ``0 <= x_i <= height_i``; ``x <= y`` when
every level of ``x`` is at most the level of ``y`` (``y`` generalizes ``x``). Nodes are numbered
in mixed radix (the first quasi-identifier most significant), so node ``0`` is the bottom (the
original values) and node ``size - 1`` the top (every attribute at its root).

The search tags whole down-sets and up-sets at once: nodes are numbered in row-major order of
the grid of level vectors, so a down-set or up-set is a box of that grid, set with one slice
assignment (:meth:`Lattice.mark_below`, no Python loop over nodes), or read and updated as a
view of a per-node array (:meth:`Lattice.view_below`), at the cost of its own size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

from ...core.errors import InputError

__all__ = ["Lattice", "MAX_NODES", "node_count"]

#: Largest lattice the exact search enumerates (its per-node arrays stay within a few hundred MB).
MAX_NODES = 1 << 21


def node_count(nodes: int) -> str:
    """A number of lattice nodes as text: ``16,000,000``, and from 10^15 on with three significant
    digits, ``7.03e+300`` (a lattice of hundreds of quasi-identifiers has hundreds of digits)."""
    if nodes < 10**15:
        return f"{nodes:,}"
    return format(Decimal(nodes), ".3g").lower()


class Lattice:
    """All level vectors of a set of hierarchies, with order masks and a tie-break rank.

    Parameters
    ----------
    heights : sequence of int
        Height of each quasi-identifier's hierarchy (the largest level).
    names : sequence of str
        Quasi-identifier names (for messages).

    Attributes
    ----------
    heights : (q,) int64 array
    size : int
        Number of nodes, ``prod(height_i + 1)``.
    levels : (size, q) int16 array
        Level vector of every node.
    total : (size,) int64 array
        Sum of the levels of every node (its height in the lattice).
    rank : (size,) int64 array
        Position of every node when sorted by total level, then lexicographically by levels:
        the tie-break order of the search (lower rank wins).
    """

    def __init__(self, heights: Sequence[int], names: Sequence[str]) -> None:
        self.heights = np.asarray(heights, dtype=np.int64)
        self.names = list(names)
        size = math.prod(int(h) + 1 for h in self.heights)
        if size > MAX_NODES:
            raise InputError(
                f"the generalization lattice of {', '.join(self.names)} has {node_count(size)} "
                "nodes; the "
                f"exact search handles up to {MAX_NODES:,}: use search='heuristic' (or "
                "'auto'), fewer quasi-identifiers or shorter hierarchies"
            )
        self.size = size
        dims = tuple(int(h) + 1 for h in self.heights)
        self.strides = np.array(
            [math.prod(dims[i + 1 :]) for i in range(len(dims))], dtype=np.int64
        )
        #: The grid's shape: node ids are the row-major positions of a ``dims`` array, so a
        #: down-set or up-set is a box of it (see :meth:`box_below`).
        self.dims = dims
        # Each attribute's levels broadcast into the grid (no index grid and transposed copy).
        levels = np.empty((*dims, len(dims)), dtype=np.int16)
        for i, d in enumerate(dims):
            levels[..., i] = np.arange(d, dtype=np.int16).reshape(self._axis(i))
        self.levels = levels.reshape(size, len(dims))
        self.total = self.grid_sum([np.arange(d, dtype=np.int64) for d in dims], np.int64)
        # Node ids are row-major positions, i.e. in lexicographic order of the levels: a stable
        # sort by total level (a radix sort when the totals fit 16 bits) gives total, then levels.
        small = int(self.total[-1]) <= np.iinfo(np.int16).max
        order = np.argsort(self.total.astype(np.int16) if small else self.total, kind="stable")
        self.rank = np.empty(size, dtype=np.int64)
        self.rank[order] = np.arange(size, dtype=np.int64)
        self._strides = self.strides.tolist()
        self._heights = self.heights.tolist()

    def _axis(self, i: int) -> tuple[int, ...]:
        """The shape that broadcasts a vector of attribute ``i``'s levels along the grid."""
        return tuple(d if j == i else 1 for j, d in enumerate(self.dims))

    def grid_sum(self, per_level: Sequence[np.ndarray], dtype: type = np.float64) -> np.ndarray:
        """``Σ_i per_level[i][x_i]`` for every node ``x``, as a ``(size,)`` array of ``dtype``.

        Summed attribute by attribute, from the first, each one's values broadcast along the
        grid: the same sums, in the same order, as gathering them with every node's level
        vector, without reading :attr:`levels`.
        """
        out = np.zeros(self.dims, dtype=dtype)
        for i, values in enumerate(per_level):
            out += np.asarray(values, dtype=dtype).reshape(self._axis(i))
        return out.reshape(self.size)

    @property
    def q(self) -> int:
        """Number of quasi-identifiers."""
        return len(self.heights)

    @property
    def bottom(self) -> int:
        """The node of the original values (every level 0)."""
        return 0

    @property
    def top(self) -> int:
        """The node where every attribute is at its root."""
        return self.size - 1

    def node(self, levels: Sequence[int]) -> int:
        """Node id of a level vector."""
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def box_below(self, node: int) -> tuple[slice, ...]:
        """The down-set of a node as slices of the lattice's grid (shape ``heights + 1``)."""
        return tuple(slice(0, lv + 1) for lv in self.levels[node].tolist())

    def box_above(self, node: int) -> tuple[slice, ...]:
        """The up-set of a node as slices of the lattice's grid."""
        return tuple(slice(lv, None) for lv in self.levels[node].tolist())

    def mark_below(self, mask: np.ndarray, node: int) -> None:
        """Set ``mask`` (a contiguous per-node array) on the down-set of ``node``, in place."""
        mask.reshape(self.dims)[self.box_below(node)] = True

    def mark_above(self, mask: np.ndarray, node: int) -> None:
        """Set ``mask`` on the up-set of ``node``, in place."""
        mask.reshape(self.dims)[self.box_above(node)] = True

    def view_below(self, values: np.ndarray, node: int) -> np.ndarray:
        """The entries of a contiguous per-node array (one row per node) on the down-set of
        ``node``, as a view shaped like its box of the grid (writing to it writes ``values``):
        an update of the down-set costs its size, not the lattice's."""
        return values.reshape(self.dims + values.shape[1:])[self.box_below(node)]

    def view_above(self, values: np.ndarray, node: int) -> np.ndarray:
        """The entries of a per-node array on the up-set of ``node`` (see :meth:`view_below`)."""
        return values.reshape(self.dims + values.shape[1:])[self.box_above(node)]

    def successors(self, node: int) -> list[int]:
        """Nodes one level higher in exactly one attribute."""
        lv = self.levels[node].tolist()
        return [node + s for s, v, h in zip(self._strides, lv, self._heights, strict=True) if v < h]

    def as_dict(self, node: int) -> dict[str, int]:
        """``{quasi-identifier: level}`` of a node."""
        return {n: int(v) for n, v in zip(self.names, self.levels[node], strict=True)}
