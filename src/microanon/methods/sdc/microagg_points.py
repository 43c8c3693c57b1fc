"""The records of MDAV and V-MDAV held as their distinct points, each with how many rows hold it.

Equal rows are one point, stored in order of their first row, each with its rows in ascending
order, a count of those not yet grouped (``left``) and of those grouped (``taken``): the passes
of both algorithms are over the points, not the rows, and a survey's ages, counts or codes have
far fewer points than rows. Rows of one point are at one distance from anything, so the
row-by-row rules, which break ties by the lowest row, take a point's lowest rows first; when
points tie at a distance, their rows are merged by row number. ``argmax``/``argmin`` return the
first stored of equal values, which holds the lowest row except where that point has rows
grouped already (its lowest row left is later than its first): only then are the tied points
compared by their lowest row left (:meth:`DistinctPoints.best`).

A point all of whose rows are grouped stays stored (the subclasses give it a distance that is
never chosen, ``+inf`` to nearest-record searches and ``-inf`` to farthest-record searches) until
an eighth of the stored points are such; then the arrays are compacted, order preserved.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.factorize import factorize_keys

__all__ = ["DistinctPoints", "distinct_rows"]

#: Up to this many nearest rows are found by repeated ``argmin``, more by one partition.
_ARGMIN_K = 8
#: Compact the working arrays when more than this share of their points has no row left.
_COMPACT_SHARE = 8


def distinct_rows(arr: np.ndarray) -> np.ndarray:
    """The number of each row's distinct point, in order of first appearance (equal rows, as
    :func:`pandas.factorize` compares numbers, share one)."""
    point: np.ndarray | None = None
    for column in arr.T:
        codes, uniques = pd.factorize(column)
        if point is None:
            point = codes
        else:  # (numbered afresh after each column: the key stays below rows x values)
            point = factorize_keys(point.astype(np.int64) * len(uniques) + codes)[0]
    assert point is not None  # (a validated array has a column)
    return point.astype(np.intp, copy=False)


class DistinctPoints:
    """The rows not yet grouped, as their distinct points with how many rows each has left;
    each point's rows (ascending), of which the lowest ones are grouped first.

    Subclasses hold the points' coordinates and distances; they extend :meth:`take`,
    :meth:`take_whole` and :meth:`compact` to keep them in step.
    """

    def __init__(self, arr: np.ndarray) -> None:
        point = distinct_rows(arr)
        counts = np.bincount(point)
        self.rows = np.argsort(point, kind="stable")  # each point's rows, ascending
        self.start = np.concatenate(([0], np.cumsum(counts)[:-1]))
        self.left = counts.copy()  # rows not yet grouped
        self.taken = np.zeros(len(counts), dtype=np.intp)  # rows grouped, the lowest first
        self.alive = int(counts.sum())  # rows not yet grouped
        self.dead = 0  # points all of whose rows are grouped, still stored

    def first(self, j: np.ndarray | int) -> np.ndarray | int:
        """The first row of each point ``j`` (one holding its values)."""
        return self.rows[self.start[j]]

    def lowest(self, j: np.ndarray | int) -> np.ndarray | int:
        """The lowest row not yet grouped of each point ``j``."""
        return self.rows[self.start[j] + self.taken[j]]

    def best(self, values: np.ndarray, j: int) -> int:
        """Of the points whose value ties with ``values[j]`` (found by ``argmax`` or ``argmin``:
        the first stored), the one with the lowest row not yet grouped. Stored points are in
        order of their first row, so only a point some of whose rows are grouped can have been
        passed over (its lowest row left is later than its first)."""
        if not self.taken[j]:
            return j
        tied = np.flatnonzero(values == values[j])
        if np.isinf(values[j]):  # (distances that overflow tie with the points left empty)
            tied = tied[self.left[tied] > 0]
        return int(tied[np.argmin(self.lowest(tied))])

    def farthest(self, values: np.ndarray) -> int:
        """The point of the largest value (the lowest row left on ties)."""
        return self.best(values, int(values.argmax()))

    def nearest(self, values: np.ndarray) -> int:
        """The point of the smallest value (the lowest row left on ties)."""
        return self.best(values, int(values.argmin()))

    def take_around(self, j: int, k: int, near: np.ndarray) -> list[np.ndarray]:
        """The lowest row left of point ``j`` and the ``k - 1`` rows left nearest to it (ties:
        the lowest rows), taken out of the points; their row numbers.

        ``near`` holds every stored point's distance from ``j`` (up to a constant; ``+inf`` for
        points with no row left) and is overwritten.
        """
        group = [self.take(j, 1)]
        if not self.left[j]:
            near[j] = np.inf
        need = k - 1
        if need > _ARGMIN_K:
            return [*group, *self._nearest(near, need)]
        while need:
            i = int(near.argmin())
            if self.taken[i] or (need > 1 and self.left[i] > 1):
                tied = np.flatnonzero(near == near[i])
                if len(tied) > 1:
                    taken = self._tied(tied, need)
                    group += taken
                    need -= sum(len(t) for t in taken)
                    near[tied] = np.inf
                    continue
            count = min(need, int(self.left[i]))
            group.append(self.take(i, count))
            need -= count
            near[i] = np.inf
        return group

    def _nearest(self, near: np.ndarray, need: int) -> list[np.ndarray]:
        """The ``need`` rows left nearest (``near``: the points' distances, up to a constant;
        ties: the lowest rows), taken out of the points, from the nearest points found by one
        partition (``need`` points hold at least ``need`` rows)."""
        most = min(need, len(self.left) - self.dead)
        bound = np.partition(near, most - 1)[most - 1]
        candidates = np.flatnonzero(near <= bound)
        if np.isinf(bound):  # (as in best)
            candidates = candidates[self.left[candidates] > 0]
        candidates = candidates[np.lexsort((self.lowest(candidates), near[candidates]))]
        values = near[candidates]
        reach = np.cumsum(self.left[candidates])
        last = int(np.searchsorted(reach, need))  # the point that completes the group
        tie = int(np.searchsorted(values, values[last]))  # the first point at its distance
        whole = candidates[:tie]
        group = [self.take_whole(whole)] if tie else []
        more = need - (int(reach[tie - 1]) if tie else 0)
        tied = candidates[tie : int(np.searchsorted(values, values[last], side="right"))]
        return group + self._tied(tied, more)

    def _tied(self, tied: np.ndarray, need: int) -> list[np.ndarray]:
        """Of the rows left of points at one distance, the lowest ``need`` (or all of them),
        taken out of the points."""
        if len(tied) == 1:
            return [self.take(int(tied[0]), min(need, int(self.left[tied[0]])))]
        heads = [self.taken_next(int(t), need) for t in tied]
        chosen = np.sort(np.concatenate(heads))[:need]
        group = []
        for t, head in zip(tied, heads, strict=True):
            count = int(np.count_nonzero(head <= chosen[-1]))
            if count:
                group.append(self.take(int(t), count))
        return group

    def taken_next(self, j: int, most: int) -> np.ndarray:
        """The lowest (at most ``most``) rows left of point ``j``."""
        at = self.start[j] + self.taken[j]
        return self.rows[at : at + min(most, int(self.left[j]))]

    def take(self, j: int, count: int) -> np.ndarray:
        """Take the lowest ``count`` rows left of point ``j`` out; their row numbers."""
        left, at = int(self.left[j]), int(self.start[j] + self.taken[j])
        self.taken[j] += count
        self.left[j] = left - count
        self.alive -= count
        if left == count:
            self.dead += 1
        return self.rows[at : at + count]

    def take_whole(self, points: np.ndarray) -> np.ndarray:
        """Take every row left of ``points`` out; their row numbers."""
        counts = self.left[points]
        at = self.start[points] + self.taken[points]
        ends = np.cumsum(counts)
        if ends[-1] == len(points):  # one row each
            records = self.rows[at]
        else:  # each point's run of rows, one after the other
            records = self.rows[np.arange(ends[-1]) + np.repeat(at - ends + counts, counts)]
        self.taken[points] += counts
        self.left[points] = 0
        self.alive -= int(ends[-1])
        self.dead += len(points)
        return records

    def compact(self) -> np.ndarray | None:
        """Drop the points all of whose rows are grouped once they are an eighth of them; the
        mask of the points kept (``None`` if none was dropped)."""
        if self.dead * _COMPACT_SHARE <= len(self.left):
            return None
        keep = self.left > 0
        self.left = self.left[keep]
        self.taken = self.taken[keep]
        self.start = self.start[keep]
        self.dead = 0
        return keep

    def rest(self) -> np.ndarray:
        """The rows not yet grouped."""
        return np.concatenate(
            [self.taken_next(int(j), int(self.left[j])) for j in np.flatnonzero(self.left)]
        )
