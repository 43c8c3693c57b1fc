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
  tied points compared by their lowest record left (the bookkeeping of
  :mod:`~microanon.methods.sdc.microagg_points`, shared with V-MDAV);
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
from threadpoolctl import threadpool_limits

from .common import check_k, check_matrix
from .microagg_points import DistinctPoints

__all__ = ["mdav_groups"]


class _Points(DistinctPoints):
    """The records not yet grouped, as their distinct points with how many records each has
    left, with the points' coordinates (``-2x``, column-major), norms and the running sum of
    the records."""

    def __init__(self, arr: np.ndarray) -> None:
        super().__init__(arr)
        X = arr[self.first(np.arange(len(self.left)))]
        self.neg2 = np.ascontiguousarray(-2.0 * X.T)
        norms = np.einsum("ij,ij->i", X, X)
        self.far_norms = norms.copy()  # -inf once grouped: never the farthest
        self.near_norms = norms  # +inf once grouped: never the nearest
        self.neg2_total = self.neg2 @ self.left.astype(np.float64)  # -2 x the records' sum
        self._buffers()

    def _buffers(self) -> None:
        self.buf_near = np.empty(len(self.left))
        self.buf_far = np.empty(len(self.left))

    def point(self, j: int) -> np.ndarray:
        return self.neg2[:, j] * -0.5

    def dots(self, q: np.ndarray) -> np.ndarray:
        """``-2 x·q`` for every stored point."""
        return q @ self.neg2

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
        return self.take_around(j, k, np.add(self.near_norms, dots, out=self.buf_near))

    def take(self, j: int, count: int) -> np.ndarray:
        records = super().take(j, count)
        column = self.neg2[:, j]
        self.neg2_total -= column if count == 1 else count * column
        if not self.left[j]:
            self.far_norms[j] = -np.inf
            self.near_norms[j] = np.inf
        return records

    def take_whole(self, points: np.ndarray) -> np.ndarray:
        counts = self.left[points]
        records = super().take_whole(points)
        self.neg2_total -= self.neg2[:, points] @ counts.astype(np.float64)
        self.far_norms[points] = -np.inf
        self.near_norms[points] = np.inf
        return records

    def compact(self) -> np.ndarray | None:
        keep = super().compact()
        if keep is not None:
            self.neg2 = np.ascontiguousarray(self.neg2[:, keep])
            self.far_norms = self.far_norms[keep]
            self.near_norms = self.near_norms[keep]
            self.neg2_total = self.neg2 @ self.left.astype(np.float64)
            self._buffers()
        return keep


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
