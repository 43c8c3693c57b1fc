"""The split of every node of one level of an ID3 tree, from the records off each attribute's
most common value.

:func:`~microanon.measures.classification._grow_weighted` grows a tree a level at a time: at
each node that may split, the attribute of the smallest ``H(class | A)`` (the largest gain; ties
to the first attribute). An attribute of one value on a node's records cannot split it, and an
attribute takes two values on a node only if some of its records hold a value other than the
attribute's most common one (its *background*). So the counts are made from the records off the
background alone (:class:`Sparse`), and the background's own counts are what is left of each
(node, class): the work is that of those records, not of every attribute times every record
(a table of 1,416 dummies, 99 % of whose cells are 0, is a hundred times less). The sums run in
another order than one attribute's own count matrix would give: the same ``H`` up to rounding
(~1e-16), far inside the tie margin of the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.table import DENSE_FACTOR, DENSE_SLACK

__all__ = ["Sparse", "number"]


def number(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (ints in ``0..space-1``) and each entry's number among them.

    A small key space is counted directly (the values then in increasing order), a large one
    hashed (in the order of their first entries); neither sorts."""
    if space <= DENSE_FACTOR * len(key) + DENSE_SLACK:
        uniq = np.flatnonzero(np.bincount(key, minlength=space))
        rank = np.zeros(space, dtype=np.int64)
        rank[uniq] = np.arange(len(uniq))
        return uniq, rank[key]
    inverse, uniq = pd.factorize(key)
    return np.asarray(uniq, dtype=np.int64), inverse.astype(np.int64, copy=False)


@dataclass(frozen=True)
class Sparse:
    """The cells of a ``features × records`` code matrix off each feature's background (its
    most common value by weight): ``feature``, ``column`` (a record of the matrix) and ``value``
    of each, ordered by feature."""

    feature: np.ndarray
    column: np.ndarray
    value: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, cards: np.ndarray, weight: np.ndarray) -> Sparse:
        """The cells of ``codes`` (codes of feature ``i`` in ``0..cards[i]-1``) off the
        background of their feature, records weighted by ``weight``."""
        background = np.array(
            [int(np.argmax(np.bincount(c, weights=weight, minlength=max(int(n), 1)))) for c, n in
             zip(codes, cards.tolist(), strict=True)],
            dtype=np.int64,
        )  # fmt: skip
        feature, column = np.nonzero(codes != background[:, None])
        return cls(feature, column, codes[feature, column])

    def scores(
        self,
        rows: np.ndarray,
        node: np.ndarray,
        ys: np.ndarray,
        ws: np.ndarray,
        k: int,
        total: np.ndarray,
        open_: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``H(class | feature)`` at the nodes of one level where a feature takes two values or
        more.

        Parameters
        ----------
        rows : int array
            The column of the code matrix of each record of the level.
        node, ys, ws : arrays
            Each record's node, class (``0..k-1``) and weight (positive).
        k : int
            Classes.
        total : float array
            Each node's weight.
        open_ : bool array
            ``(nodes, features)``: whether a node may split on a feature.

        Returns
        -------
        feature, at, values, cond : arrays
            One entry per (feature, node) pair whose node is open to the feature and holds
            a record off its background, grouped by feature in increasing order: the feature,
            the node, the feature's values on the node's records and ``H(class | feature)``
            there (``Σ_v |D_v| H(class | v) / |D|``).
        """
        nn, n_feat = open_.shape
        where = np.full(int(self.column.max(initial=-1)) + 1, -1, dtype=np.int64)
        where[rows[rows < len(where)]] = np.flatnonzero(rows < len(where))
        at = where[self.column]  # each cell's record in the level (-1: none)
        keep = at >= 0
        keep[keep] = open_[node[at[keep]], self.feature[keep]]
        f, at, v = self.feature[keep], at[keep], self.value[keep]
        n = node[at]
        # The (node, class) groups of the level, and their weights.
        groups, of_group = number(node * k + ys, nn * k)
        weights = np.bincount(of_group, weights=ws, minlength=len(groups))
        # Pairs (feature, node) with a cell off the background; grouped by feature in
        # increasing order whether numbered directly or hashed (the cells are by feature).
        pairs, of_pair = number(f * nn + n, n_feat * nn)
        pair_node = pairs % nn
        # Off the background: weight per (pair, value, class); left for the background: the
        # weight of each (pair, class) group less what the pair's other values took of it.
        width = int(v.max(initial=0)) + 2  # value slot width - 1: the background
        group = of_group[at]
        off_cells, of_off = number(
            (of_pair * width + v) * len(groups) + group, len(pairs) * width * len(groups)
        )
        off_weight = np.bincount(of_off, weights=ws[at], minlength=len(off_cells))
        taken_key, of_taken = number(of_pair * len(groups) + group, len(pairs) * len(groups))
        taken = np.bincount(of_taken, weights=ws[at], minlength=len(taken_key))
        # every group of each pair's node
        owner = groups // k
        by_node = np.argsort(owner, kind="stable")
        first = np.searchsorted(owner[by_node], np.arange(nn))
        per_node = np.bincount(owner, minlength=nn)
        reps = per_node[pair_node]
        pair_of = np.repeat(np.arange(len(pairs)), reps)
        step = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        group_of = by_node[np.repeat(first[pair_node], reps) + step]
        left = weights[group_of].copy()
        key = pair_of * len(groups) + group_of
        hit = np.isin(key, taken_key)
        order = np.argsort(taken_key)
        left[hit] -= taken[order[np.searchsorted(taken_key[order], key[hit])]]
        # All cells: (pair, value slot) and weight, the background's where it has records.
        bg = left > 0
        slot = np.concatenate(
            [(off_cells // len(groups)), pair_of[bg] * width + (width - 1)]
        )  # pair * width + value
        cell_weight = np.concatenate([off_weight, left[bg]])
        slots, of_slot = number(slot, len(pairs) * width)
        size = np.bincount(of_slot, weights=cell_weight, minlength=len(slots))
        share = cell_weight / size[of_slot]
        entropy = -np.bincount(of_slot, weights=share * np.log2(share), minlength=len(slots))
        slot_pair = slots // width
        values = np.bincount(slot_pair, minlength=len(pairs))
        cond = np.bincount(slot_pair, weights=size * entropy, minlength=len(pairs))
        return pairs // nn, pair_node, values, cond / total[pair_node]
