"""MinSumOfRange: the P-private generalization with the smallest sum of ranges, its
materialization and the random assignment of subdomains to tuples.

Problem 4.1, Algorithm 1 and Theorem 1 of Koudas, Srivastava, Yu & Zhang, *Distribution-based
Microdata Anonymization*, PVLDB 2(1):958–969, 2009.

At every node the algorithm passes the *maximum m-bound allocation* down to the children: with ``m``
values to place under node ``N`` whose children have subtree counts ``n_i`` and reduced weights
``w'_i`` (weights divided by their gcd) and, in our closed form,
``c = min(⌊m / Σw'⌋, min_i ⌊n_i / w'_i⌋)``, child ``i`` receives ``c·w'_i`` values and the remaining
``m − c·Σw'`` values are generalized to ``N`` itself. A leaf keeps all it receives. Theorem 1: this
is optimal and linear.

Here it runs level by level (breadth-first) for many groups sharing one hierarchy at once: every
step is one numpy operation over a ``groups × nodes`` block, so the cost is O(groups × nodes +
tuples) with no Python loop over groups or nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from ...core.random import RandomLike, make_rng
from .hierarchy import AnnotatedHierarchy

__all__ = ["Generalization", "allocate", "kept_counts", "min_sum_of_range", "materialize", "assign"]

#: Cap on ``groups × nodes`` cells per block of :func:`allocate` (bounds its memory).
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True, eq=False)
class Generalization:
    """A P-private generalization of one group: how many entries each hierarchy node gets.

    Attributes
    ----------
    hierarchy : AnnotatedHierarchy
    copies : numpy.ndarray of int64
        Number of entries (subdomains) published at every node.
    fakes : numpy.ndarray
        The fake values added to the group (domain values; empty without fakes).
    """

    hierarchy: AnnotatedHierarchy
    copies: np.ndarray
    fakes: np.ndarray

    @cached_property
    def sum_of_ranges(self) -> float:
        """``Σ range(𝒟')`` over the published subdomains."""
        return float(self.copies @ self.hierarchy.node_range)

    @property
    def n_entries(self) -> int:
        """Number of published subdomains (real values plus fakes)."""
        return int(self.copies.sum())

    @property
    def subdomains(self) -> pd.DataFrame:
        """The published multiset: columns ``low``, ``high``, ``count`` (one row per node used)."""
        used = np.flatnonzero(self.copies)
        h = self.hierarchy
        return pd.DataFrame(
            {"low": h.low[used], "high": h.high[used], "count": self.copies[used]}
        ).reset_index(drop=True)

    def __repr__(self) -> str:
        return (
            f"Generalization(entries={self.n_entries}, fakes={len(self.fakes)}, "
            f"sum_of_ranges={self.sum_of_ranges:g})"
        )


def allocate(hierarchy: AnnotatedHierarchy, leaf_counts: np.ndarray) -> np.ndarray:
    """Run MinSumOfRange for many groups at once.

    Parameters
    ----------
    hierarchy : AnnotatedHierarchy
    leaf_counts : array of shape (groups, values)
        Number of tuples of each group with each domain value.

    Returns
    -------
    numpy.ndarray of int64, shape (groups, nodes)
        Entries published at every node for every group.
    """
    leaf_counts = np.atleast_2d(np.asarray(leaf_counts, dtype=np.int64))
    n_groups = leaf_counts.shape[0]
    step = max(1, _BLOCK_CELLS // max(hierarchy.n_nodes, 1))
    blocks = [
        _allocate_block(hierarchy, leaf_counts[i : i + step]) for i in range(0, n_groups, step)
    ]
    return np.concatenate(blocks) if blocks else np.zeros((0, hierarchy.n_nodes), np.int64)


def _allocate_block(h: AnnotatedHierarchy, leaf_counts: np.ndarray) -> np.ndarray:
    n = h.subtree_counts(leaf_counts)  # groups x nodes
    m = np.zeros_like(n)
    m[:, 0] = n[:, 0]
    copies = np.zeros_like(n)
    depth, start, count = h.depth, h.child_start, h.child_count
    rw, unit = h.reduced_weight, h.unit
    big = np.iinfo(np.int64).max
    for d in range(int(depth.max()) + 1):
        level = np.flatnonzero(depth == d)
        inner = level[count[level] > 0]
        leaves = level[count[level] == 0]
        copies[:, leaves] = m[:, leaves]
        if inner.size == 0:
            continue
        first, last = start[inner[0]], start[inner[-1]] + count[inner[-1]]
        kids = np.arange(first, last)
        ratio = np.where(rw[kids] > 0, n[:, kids] // np.maximum(rw[kids], 1), big)
        c = np.minimum.reduceat(ratio, start[inner] - first, axis=1)
        c = np.minimum(c, np.where(unit[inner] > 0, m[:, inner] // np.maximum(unit[inner], 1), 0))
        m[:, kids] = np.repeat(c, count[inner], axis=1) * rw[kids]
        copies[:, inner] = m[:, inner] - c * unit[inner]
    return copies


def kept_counts(hierarchy: AnnotatedHierarchy, copies: np.ndarray) -> np.ndarray:
    """Entries published inside every node's subtree (``m`` of Algorithm 1), last axis = nodes."""
    copies = np.asarray(copies, dtype=np.int64)
    kept = copies.copy()
    parent, depth = hierarchy.parent, hierarchy.depth
    for d in range(int(depth.max()), 0, -1):
        level = np.flatnonzero(depth == d)
        np.add.at(kept.T, parent[level], kept.T[level])
    return kept


def min_sum_of_range(
    values: np.ndarray | pd.Series, hierarchy: AnnotatedHierarchy
) -> Generalization:
    """The optimal P-private generalization of one group (Algorithm 1).

    Parameters
    ----------
    values : array
        The group's sensitive values (each must be a value of the hierarchy's domain).
    hierarchy : AnnotatedHierarchy
        Encodes the target distribution P.

    Returns
    -------
    Generalization
        Entries per node, ``subdomains`` (low, high, count) and ``sum_of_ranges``.

    Raises
    ------
    InputError
        A value outside the hierarchy's domain.

    Examples
    --------
    Figure 2, group 912** with the uniform salary hierarchy:

    >>> h = AnnotatedHierarchy.balanced([30, 40, 50, 60])
    >>> g = min_sum_of_range([40, 30, 50], h)
    >>> g.subdomains.values.tolist(), g.sum_of_ranges
    ([[30, 60, 1], [30, 40, 1], [50, 60, 1]], 50.0)
    """
    idx = hierarchy.leaf_index(np.asarray(values))
    counts = np.bincount(idx, minlength=len(hierarchy.values))
    return Generalization(hierarchy, allocate(hierarchy, counts)[0], np.empty(0, idx.dtype))


def materialize(
    values: np.ndarray, generalization: Generalization, rng: RandomLike = None
) -> np.ndarray:
    """The bijection of Definition 3.1: the node each value (real, then fake) is generalized to.

    Top-down, each node sends the allocated number of its subtree's values to every child and
    keeps its own entries for the rest; which values of a child's subtree go up is drawn at
    random. Done bottom-up level by level in O(values × depth).

    Parameters
    ----------
    values : array
        The group's real sensitive values.
    generalization : Generalization
        From :func:`min_sum_of_range` or :func:`min_sor_fake` for the same values.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray of int64
        Node of every value of ``values`` followed by every fake of the generalization; every
        node is used exactly ``copies[node]`` times and contains its value.
    """
    h = generalization.hierarchy
    rng = make_rng(rng)
    all_values = np.concatenate([np.asarray(values), generalization.fakes]).astype(h.values.dtype)
    leaf = h.leaf_node[h.leaf_index(all_values)]
    total = len(leaf)
    order = rng.permutation(total)
    order = order[np.argsort(leaf[order], kind="stable")]
    sorted_leaf = leaf[order]
    # Position of every value among the values of its leaf.
    leaf_first = np.searchsorted(sorted_leaf, sorted_leaf, side="left")
    pos = np.empty(total, dtype=np.int64)
    pos[order] = np.arange(total) - leaf_first
    node = leaf.copy()
    copies = generalization.copies
    n_sub = h.subtree_counts(np.bincount(h.leaf_index(all_values), minlength=len(h.values)))
    excess = n_sub - kept_counts(h, copies)
    # Offset of every node's excess among its siblings' (siblings are consecutive nodes).
    offset = np.cumsum(excess) - excess
    offset = offset - offset[np.where(h.parent >= 0, h.child_start[np.maximum(h.parent, 0)], 0)]
    done = pos < copies[node]
    depth = h.depth
    while not done.all():
        moving = np.flatnonzero(~done)
        deepest = depth[node[moving]].max()
        moving = moving[depth[node[moving]] == deepest]
        pos[moving] = offset[node[moving]] + pos[moving] - copies[node[moving]]
        node[moving] = h.parent[node[moving]]
        done[moving] = pos[moving] < copies[node[moving]]
    return node


def assign(copies: np.ndarray, n_tuples: int, rng: RandomLike = None) -> np.ndarray:
    """Give ``n_tuples`` tuples distinct entries by a uniform random permutation.

    Parameters
    ----------
    copies : array of int
        Entries per node (the group's published multiset; ``copies.sum() >= n_tuples``).
    n_tuples : int
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray of int64
        The node of the entry each tuple gets (with fakes, the remaining entries stay unpaired).
    """
    entries = np.repeat(np.arange(len(copies)), copies)
    return make_rng(rng).permutation(entries)[:n_tuples]
