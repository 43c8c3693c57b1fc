"""MDAV: maximum distance to average vector, fixed-size multivariate microaggregation.

As described in Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan & Claypool
2016, Ch. 3 (after Domingo-Ferrer & Mateo-Sanz, *Practical Data-Oriented Microaggregation for
Statistical Disclosure Control*, IEEE TKDE 14(1), 2002; Hundepool et al.). With ``R`` the records
not yet grouped and distances squared Euclidean::

    while |R| >= 3k:
        c <- mean(R); x_r <- farthest record from c; x_s <- farthest record from x_r
        group <- x_r + its k-1 nearest in R; remove it
        group <- x_s + its k-1 nearest in what is left; remove it
    if 2k <= |R| <= 3k-1:
        c <- mean(R); x_r <- farthest from c; group <- x_r + its k-1 nearest; remove it
        group <- the rest of R
    else if |R| > 0: group <- R            (k <= |R| < 2k)

The final step (the standard one for a remainder of fewer than ``3k`` records) gives every group
between ``k`` and ``2k - 1`` records, so all groups have exactly ``k`` records except possibly the
last one. Ties are broken by the lowest original record index, for the farthest records and for
the nearest neighbours alike. ``x_s`` is taken among the records left after the first group is
removed; it is the farthest record of ``R`` itself except when every record of ``R`` is at the
same distance from ``x_r`` (then the lowest-index farthest record may already be in the first
group, and the next one is used).

This is exact MDAV — no approximation — made fast by how each step is computed:

- the records are held as their distinct points (equal rows are one point), each with its
  records in ascending order and a count of those not yet grouped, and every pass below is over
  the points left, not the records: a survey's ages, counts or codes have far fewer points than
  records. Records of one point are at one distance from anything, so a group takes a point's
  lowest records first; when points tie at a distance, their records are merged by index, as the
  record-by-record rule takes them. The points are stored in order of their first record, so
  ``argmax``/``argmin`` (the first stored on ties) find the lowest record except where a point
  has records grouped already (its lowest left is later than its first): only then are the
  tied points compared by their lowest record left;
- the centroid is kept as a running sum ``S`` of the ``m`` remaining records (re-summed whenever
  the working arrays are compacted), and the farthest record from it maximizes
  ``m |x|² - 2 x·S`` (``m`` times the squared distance, up to a constant) — no division;
- a squared distance is ``|x|² - 2 x·q`` (+ a constant that cannot change a maximum or a
  minimum), so each of the three distance passes of an iteration (from ``c``, ``x_r``, ``x_s``)
  is one matrix-vector product over the remaining points stored column-major (``p × d``), plus
  one addition of the precomputed norms; the nearest and the farthest points from ``x_r`` come
  from the same pass;
- grouped points are not deleted at once: their norms become ``+inf`` in the copy used for
  nearest-neighbour searches and ``-inf`` in the copy used for farthest-record searches, and the
  arrays are compacted (order preserved) when an eighth of them is dead;
- the ``k - 1`` nearest are found by successive ``argmin`` passes for small ``k`` and by one
  partition plus an exact tie pass otherwise;
- BLAS runs single-threaded during the loop (``threadpoolctl``): multithreaded small
  products gain nothing and stall badly when another process holds a core.

Distances are compared as computed in floating point: records at mathematically equal but
numerically different distances (possible only for non-integer data, e.g. after
standardization) are ordered by the computed values, which can differ from another formula's
rounding. On integer-valued data (with ``n p max|x|²`` well below ``2**53``) every compared
quantity is computed exactly, and the groups equal those of a direct transcription of the
pseudocode. Cost: ``n / (2k)`` iterations of ``O(d p)`` work for ``d`` distinct points left,
i.e. ``O(n d p / k)``: ``O(n² p / k)`` when every record is distinct.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ...core.factorize import factorize_keys
from .common import check_k, check_matrix

__all__ = ["mdav_groups"]

#: Up to this many nearest records are found by repeated ``argmin``, more by one partition.
_ARGMIN_K = 8
#: Compact the working arrays when more than this share of their records has been grouped.
_COMPACT_SHARE = 8


def _distinct_rows(arr: np.ndarray) -> np.ndarray:
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


class _Points:
    """The records not yet grouped, as their distinct points with how many records each has
    left: coordinates (``-2x``, column-major), norms, the running sum of the records, and each
    point's records (ascending), of which the lowest ones are grouped first."""

    def __init__(self, arr: np.ndarray) -> None:
        point = _distinct_rows(arr)
        counts = np.bincount(point)
        self.rows = np.argsort(point, kind="stable")  # each point's records, ascending
        self.start = np.concatenate(([0], np.cumsum(counts)[:-1]))
        first = self.rows[self.start]  # each point's first record (ascending: appearance)
        X = arr[first]
        self.neg2 = np.ascontiguousarray(-2.0 * X.T)
        norms = np.einsum("ij,ij->i", X, X)
        self.far_norms = norms.copy()  # -inf once grouped: never the farthest
        self.near_norms = norms  # +inf once grouped: never the nearest
        self.left = counts.copy()  # records not yet grouped
        self.taken = np.zeros(len(counts), dtype=np.intp)  # records grouped, the lowest first
        self.neg2_total = self.neg2 @ counts.astype(np.float64)  # -2 x the records' sum
        self.alive = int(counts.sum())  # records not yet grouped
        self.dead = 0  # points all of whose records are grouped, still stored
        self._buffers()

    def _buffers(self) -> None:
        self.buf_near = np.empty(len(self.left))
        self.buf_far = np.empty(len(self.left))

    def point(self, j: int) -> np.ndarray:
        return self.neg2[:, j] * -0.5

    def dots(self, q: np.ndarray) -> np.ndarray:
        """``-2 x·q`` for every stored point."""
        return q @ self.neg2

    def lowest(self, j: np.ndarray | int) -> np.ndarray | int:
        """The lowest record not yet grouped of each point ``j``."""
        return self.rows[self.start[j] + self.taken[j]]

    def best(self, values: np.ndarray, j: int) -> int:
        """Of the points whose value ties with ``values[j]`` (found by ``argmax`` or ``argmin``:
        the first stored), the one with the lowest record not yet grouped. Stored points are in
        order of their first record, so only a point some of whose records are grouped can
        have been passed over (its lowest record left is later than its first)."""
        if not self.taken[j]:
            return j
        tied = np.flatnonzero(values == values[j])
        return int(tied[np.argmin(self.lowest(tied))])

    def farthest(self, values: np.ndarray) -> int:
        return self.best(values, int(values.argmax()))

    def farthest_from_centroid(self) -> int:
        """The point with the record farthest from the records' mean (lowest record on ties).

        ``m |x - S/m|² = m |x|² - 2 x·S + |S|²/m``: maximizing ``m |x|² - 2 x·S`` avoids the
        division, so on integer data the comparison is exact.
        """
        values = np.multiply(self.far_norms, self.alive, out=self.buf_far)
        return self.farthest(np.add(values, self.dots(self.neg2_total * -0.5), out=values))

    def group_around(self, j: int, k: int, dots: np.ndarray | None = None) -> list[np.ndarray]:
        """The lowest record left of point ``j`` and the ``k - 1`` records left nearest to it
        (ties: the lowest records), taken out of the points; their record numbers."""
        if dots is None:
            dots = self.dots(self.point(j))
        near = np.add(self.near_norms, dots, out=self.buf_near)
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
        """The ``need`` records left nearest (``near``: the points' distances, up to a constant;
        ties: the lowest records), taken out of the points, from the nearest points found by
        one partition (``need`` points hold at least ``need`` records)."""
        most = min(need, len(self.left) - self.dead)
        bound = np.partition(near, most - 1)[most - 1]
        candidates = np.flatnonzero(near <= bound)
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
        """Of the records left of points at one distance, the lowest ``need`` (or all of them),
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
        """The lowest (at most ``most``) records left of point ``j``."""
        at = self.start[j] + self.taken[j]
        return self.rows[at : at + min(most, int(self.left[j]))]

    def take(self, j: int, count: int) -> np.ndarray:
        """Take the lowest ``count`` records left of point ``j`` out; their record numbers."""
        left, at = int(self.left[j]), int(self.start[j] + self.taken[j])
        self.taken[j] += count
        self.left[j] = left - count
        column = self.neg2[:, j]
        self.neg2_total -= column if count == 1 else count * column
        self.alive -= count
        if left == count:
            self.far_norms[j] = -np.inf
            self.near_norms[j] = np.inf
            self.dead += 1
        return self.rows[at : at + count]

    def take_whole(self, points: np.ndarray) -> np.ndarray:
        """Take every record left of ``points`` out; their record numbers."""
        counts = self.left[points]
        at = self.start[points] + self.taken[points]
        ends = np.cumsum(counts)
        if ends[-1] == len(points):  # one record each
            records = self.rows[at]
        else:  # each point's run of records, one after the other
            records = self.rows[np.arange(ends[-1]) + np.repeat(at - ends + counts, counts)]
        self.neg2_total -= self.neg2[:, points] @ counts.astype(np.float64)
        self.taken[points] += counts
        self.left[points] = 0
        self.alive -= int(ends[-1])
        self.far_norms[points] = -np.inf
        self.near_norms[points] = np.inf
        self.dead += len(points)
        return records

    def compact(self) -> None:
        """Drop the points all of whose records are grouped once they are an eighth of them."""
        if self.dead * _COMPACT_SHARE > len(self.left):
            keep = self.left > 0
            self.neg2 = np.ascontiguousarray(self.neg2[:, keep])
            self.far_norms = self.far_norms[keep]
            self.near_norms = self.near_norms[keep]
            self.left = self.left[keep]
            self.taken = self.taken[keep]
            self.start = self.start[keep]
            self.neg2_total = self.neg2 @ self.left.astype(np.float64)
            self.dead = 0
            self._buffers()

    def rest(self) -> np.ndarray:
        """The records not yet grouped."""
        return np.concatenate(
            [self.taken_next(int(j), int(self.left[j])) for j in np.flatnonzero(self.left)]
        )


def mdav_groups(X: Any, k: int) -> np.ndarray:
    """Group records with MDAV (fixed group size ``k``).

    Parameters
    ----------
    X : array of shape (n, p) or (n,)
        Numeric records (finite). Standardize the columns first if their scales differ
        (:func:`~microanon.methods.sdc.microaggregation.microaggregation` does so by default).
    k : int
        Minimum group size, ``1 <= k <= n``.

    Returns
    -------
    ndarray of int, shape (n,)
        Group number of every record, ``0..g-1`` in the order the groups are formed. Every group
        has ``k`` records except the last, which has ``k..2k-1``; ``k = 1`` returns each record
        as its own group (``labels[i] = i``).

    Raises
    ------
    InputError
        Non-finite values, an empty array, ``k`` not an integer or below 1.
    InfeasibleError
        ``k > n``.

    Examples
    --------
    A constructed example, three clusters of three points:

    >>> X = [(0, 0), (1, 0), (0, 1), (10, 10), (11, 10), (10, 11), (5, 5), (6, 5), (5, 6)]
    >>> mdav_groups(X, 3).tolist()
    [0, 0, 0, 1, 1, 1, 2, 2, 2]
    """
    arr = check_matrix(X)
    n = arr.shape[0]
    k = check_k(k, n)
    if k == 1:
        return np.arange(n, dtype=np.intp)
    with threadpool_limits(limits=1, user_api="blas"):
        return _mdav(arr, k)


def _mdav(arr: np.ndarray, k: int) -> np.ndarray:
    """The MDAV loop on a validated array with k >= 2."""
    labels = np.empty(arr.shape[0], dtype=np.intp)
    points = _Points(arr)
    group = 0

    def close(members: list[np.ndarray]) -> None:
        nonlocal group
        labels[np.concatenate(members)] = group
        group += 1

    while points.alive >= 3 * k:
        points.compact()
        r = points.farthest_from_centroid()
        dots_r = points.dots(points.point(r))
        close(points.group_around(r, k, dots_r))
        far = np.add(points.far_norms, dots_r, out=points.buf_far)
        close(points.group_around(points.farthest(far), k))
    if points.alive >= 2 * k:
        close(points.group_around(points.farthest_from_centroid(), k))
    if points.alive:
        labels[points.rest()] = group
    return labels
