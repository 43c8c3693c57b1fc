"""Earth Mover's Distance of each group's sensitive distribution to the table's.

The closed forms of Li, Li & Venkatasubramanian, *t-Closeness: Privacy Beyond k-Anonymity and
ℓ-Diversity*, ICDE 2007.

With ``r_i = p_i - q_i`` (group minus table proportions):

- equal ground distance: ``½ Σ|r_i|``, computed as ``Σ max(r_i, 0)`` (equal since ``Σ r_i = 0``)
  over the values present in the group only;
- ordered distance over m ordered values: ``(1/(m-1)) Σ_i |Σ_{j<=i} r_j|``;
- hierarchical distance over a tree of height H:
  ``Σ_{internal N} (height(N)/H) · min(pos(N), neg(N))``, where ``extra(N)`` is the sum of ``r``
  over N's leaves and ``pos(N)`` / ``neg(N)`` sum the positive / negated negative ``extra`` of
  N's children.

The ordered distance is summed over each group's values only: between two consecutive values
of a group its cumulative distribution is a constant ``c``, and ``Σ |c - T_i|`` over those
positions follows from the prefix sums of the table's cumulative distribution ``T`` (non-
decreasing) split where it passes ``c``, so the work grows with the (group, value) pairs, not
with the groups times the domain. The hierarchical distance needs dense per-group
distributions; they are built for blocks of groups with at most ``_CELLS`` cells at a time, so
memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from microanon.core.hierarchy import Hierarchy

from .groups import Groups

__all__ = ["emd_equal", "emd_ordered", "emd_hierarchical"]

#: Largest number of cells of a dense block (groups × domain size): 16 MB of float64.
_CELLS = 2_000_000


def _table_distribution(groups: Groups, position: np.ndarray, width: int) -> np.ndarray:
    """Table proportions over a domain of ``width`` positions."""
    return np.bincount(position, weights=groups.table_distribution, minlength=width)


def _blocks(
    groups: Groups, position: np.ndarray, width: int, per_group: int
) -> Iterator[tuple[slice, np.ndarray]]:
    """Dense group distributions over ``width`` positions, in blocks of groups.

    ``position[code]`` is the domain position of each sensitive code. A block has
    ``_CELLS // per_group`` groups, where ``per_group`` is the width of the widest array the
    caller builds per group.
    """
    block = max(1, _CELLS // per_group)
    n_pairs = len(groups.pair_group)
    for lo in range(0, groups.n_groups, block):
        hi = min(lo + block, groups.n_groups)
        a = groups.starts[lo]
        b = groups.starts[hi] if hi < groups.n_groups else n_pairs
        flat = (groups.pair_group[a:b] - lo) * width + position[groups.pair_value[a:b]]
        counts = np.bincount(flat, weights=groups.pair_count[a:b], minlength=(hi - lo) * width)
        yield slice(lo, hi), counts.reshape(hi - lo, width) / groups.sizes[lo:hi, None]


def emd_equal(groups: Groups) -> np.ndarray:
    """EMD under the equal ground distance, per group."""
    q = groups.table_distribution
    p = groups.pair_count / groups.sizes[groups.pair_group]
    return np.add.reduceat(np.maximum(p - q[groups.pair_value], 0.0), groups.starts)


def emd_ordered(groups: Groups, position: np.ndarray, width: int) -> np.ndarray:
    """EMD under the ordered distance ``|i - j| / (width - 1)``, per group.

    Parameters
    ----------
    groups : Groups
        Groups built with a sensitive column.
    position : (n_values,) int array
        Rank of each sensitive code in the ordered domain.
    width : int
        Size of the ordered domain (at least the number of distinct values).
    """
    if width < 2 or groups.n_groups == 0:
        return np.zeros(groups.n_groups)
    table = np.cumsum(_table_distribution(groups, position, width))  # T_i
    below = np.concatenate(([0.0], np.cumsum(table)))  # below[i] = T_0 + ... + T_{i-1}
    # Each group's pairs by position; between two of its values the group's CDF is constant.
    at = position[groups.pair_value]
    order = np.lexsort((at, groups.pair_group))
    group, at, count = groups.pair_group[order], at[order], groups.pair_count[order]
    starts = groups.starts
    records = np.cumsum(count)  # whole counts: the running sums are exact
    before = np.repeat((records - count)[starts], np.diff(np.append(starts, len(count))))
    cdf = (records - before) / groups.sizes[group]  # the group's CDF from the pair's position
    end = np.append(at[1:], width)
    end[np.append(starts[1:], len(count)) - 1] = width  # a group's last value runs to the end
    # Σ_{a <= i < b} |c - T_i|, T non-decreasing: split where T passes c.
    split = np.clip(np.searchsorted(table, cdf, side="right"), at, end)
    segment = (
        cdf * (split - at)
        - (below[split] - below[at])
        + (below[end] - below[split])
        - cdf * (end - split)
    )
    # Before a group's first value its CDF is 0: Σ T_i there. A sum of absolute values is at
    # least 0; the prefix sums' rounding may leave -6e-17 where a group's CDF is the table's.
    emd = (np.add.reduceat(segment, starts) + below[at[starts]]) / (width - 1)
    return np.maximum(emd, 0.0)


def emd_hierarchical(groups: Groups, position: np.ndarray, hierarchy: Hierarchy) -> np.ndarray:
    """EMD under the hierarchical distance of ``hierarchy``, per group.

    Parameters
    ----------
    groups : Groups
        Groups built with a sensitive column.
    position : (n_values,) int array
        Leaf index of each sensitive code.
    hierarchy : Hierarchy
        Tree over the sensitive values; the distance of two leaves is the height of their lowest
        common ancestor divided by the tree's height.
    """
    out = np.zeros(groups.n_groups)
    if hierarchy.height == 0:
        return out
    n_leaves, n_nodes = hierarchy.n_leaves, hierarchy.n_nodes
    lo, hi = hierarchy.leaf_range(np.arange(n_nodes))
    parents = hierarchy.parents()
    # Children grouped by parent: one segment per internal node.
    children = np.flatnonzero(parents >= 0)
    children = children[np.argsort(parents[children], kind="stable")]
    segment = np.flatnonzero(np.r_[True, np.diff(parents[children]) != 0])
    internal = parents[children[segment]]
    weight = hierarchy.node_height()[internal] / hierarchy.height
    table = np.concatenate([[0.0], np.cumsum(_table_distribution(groups, position, n_leaves))])
    for rows, p in _blocks(groups, position, n_leaves, max(n_nodes, n_leaves + 1)):
        prefix = np.concatenate([np.zeros((len(p), 1)), np.cumsum(p, axis=1)], axis=1) - table
        extra = (prefix[:, hi] - prefix[:, lo])[:, children]
        pos = np.add.reduceat(np.maximum(extra, 0.0), segment, axis=1)
        neg = np.add.reduceat(np.maximum(-extra, 0.0), segment, axis=1)
        out[rows] = np.minimum(pos, neg) @ weight
    return out
