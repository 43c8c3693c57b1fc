"""V-MDAV: multivariate microaggregation with variable group sizes.

After Solanas & Martínez-Ballesté, *V-MDAV: A Multivariate Microaggregation With Variable Group
Size*, COMPSTAT 2006 (the variable-size heuristic that Domingo-Ferrer, Sánchez & Soria-Comas,
*Database Anonymization*, Morgan & Claypool 2016, Ch. 3, list beside fixed-size MDAV). With ``c``
the centroid of all records (computed once), ``R`` the records not yet grouped, distances
Euclidean and ``γ > 0`` the gain factor::

    while |R| >= 2k:
        e <- the record of R farthest from c
        G <- e + its k-1 nearest records in R
        while |G| < min(2k - 1, |R| - k):
            e_min <- the record of R \\ G nearest to G (to its nearest member); d_in that distance
            d_out <- distance from e_min to its nearest record of R \\ G (other than itself)
            if d_in < γ·d_out: add e_min to G  else: stop
        remove G from R
    if |R| > 0: the last group <- R                       (k <= |R| <= 2k - 1)

A group grows past ``k`` while the next record is much closer to the group than to any other
ungrouped record, so natural clusters are kept whole instead of being cut into pieces of ``k``.
Solanas & Martínez-Ballesté suggest ``γ = 0.2`` for scattered data and values around 1.1 for
clustered data.

One difference from the paper, decided here: the paper repeats the loop while ``|R| >= k`` and
then adds the fewer than ``k`` records left to their closest groups, which can make a group larger
than ``2k - 1``. Here a group is never extended so far that fewer than ``k`` records would remain
(the bound ``|R| - k`` above), and the last ``k..2k-1`` records form one group, as in MDAV's last
step; so every group has ``k..2k-1`` records. Ties (farthest, nearest, next record) go to the
lowest record index.

The records are held as their distinct points (equal rows are one point), each with how many
rows hold it (:mod:`~microanon.methods.sdc.microagg_points`, shared with MDAV), and every distance
pass is over the points left, not the records: a survey's ages, counts or codes have far fewer
points than records.

- Records of one point are at one distance from anything, so a group takes a point's lowest
  records first, and the records of points tied at one distance by record number.
- A record whose point has another record left has that equal record, at 0, as its nearest
  other ungrouped record: when it is ``e_min``, ``d_in < γ·0`` fails and the group stops, with
  no distance pass. Otherwise ``d_out`` is the distance to the nearest other point left.
- The distance to the group is kept per point: the minimum over the group's distinct points
  (0 for a point that has records in the group and others left).
- While the farthest point has ``k + 2`` records left or more, no other point at distance 0 and
  no other point as far from the centroid, each group is ``k`` of its records (the next record is
  of the same point, and an equal one is left), and it stays the farthest: those groups are
  formed at once.

The distances are computed element by element, each the sum of its squared differences in
column order, so every compared value is the one the record-by-record loop computes and the
groups are the same, on any data, integer or not. Points all of whose records are grouped get
``+inf`` as their first value (every distance to them is ``+inf``) and are dropped when they are
an eighth of those stored. Cost: for ``d`` distinct points, one ``O(d p)`` distance pass from a
group's farthest record, one from each further point it takes records of and one per extension
test: ``O(n d p)``, ``O(n² p)`` when every record is distinct; a group's first ``k`` records are
found by successive ``argmin`` for small ``k`` and by partitioning, not sorting, otherwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import check_k, check_matrix, check_number
from .microagg_points import DistinctPoints

__all__ = ["vmdav_groups"]


def _sq_dist(columns: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances from every point to ``q``, the points' values given column
    by column (``columns``: shape ``(p, d)``): a few passes over contiguous arrays, each
    element's sum in one order wherever it stands."""
    out = np.subtract(columns[0], q[0])
    np.square(out, out=out)
    for column, value in zip(columns[1:], q[1:], strict=True):
        part = np.subtract(column, value)
        np.square(part, out=part)
        out += part
    return out


def vmdav_groups(X: Any, k: int, gamma: float = 0.2) -> np.ndarray:
    """Group records with V-MDAV (group sizes ``k..2k-1`` chosen by the data).

    Parameters
    ----------
    X : array of shape (n, p) or (n,)
        Numeric records (finite). Standardize the columns first if their scales differ
        (:func:`~microanon.methods.sdc.microaggregation.microaggregation` does so by default).
    k : int
        Minimum group size, ``1 <= k <= n``.
    gamma : float
        Gain factor ``γ > 0``: a group takes the next record while its distance to the group is
        below ``γ`` times its distance to the nearest other ungrouped record.

    Returns
    -------
    ndarray of int, shape (n,)
        Group number of every record, ``0..g-1`` in the order the groups are formed; every group
        has ``k..2k-1`` records (one group of all ``n`` when ``n < 2k``); ``k = 1`` returns each
        record as its own group.

    Raises
    ------
    InputError
        Non-finite values, an empty array, ``k`` not an integer or below 1, ``gamma`` not a
        positive number.
    InfeasibleError
        ``k > n``.

    Examples
    --------
    Three tight pairs/triples on a line; fixed-size MDAV would split them:

    >>> vmdav_groups([0, 1, 2, 10, 11, 20, 21], 2, gamma=1.1).tolist()
    [1, 1, 1, 2, 2, 0, 0]
    """
    arr = check_matrix(X)
    gamma = check_number(gamma, "gamma", 0, low_open=True)
    n = arr.shape[0]
    k = check_k(k, n)
    if k == 1:
        return np.arange(n, dtype=np.intp)
    return _vmdav(arr, k, gamma)


class _Points(DistinctPoints):
    """The records not yet grouped, as their distinct points with how many records each has
    left, with the points' values column by column (``p × d``) and squared distances to the
    centroid. A point all of whose records are grouped gets ``+inf`` as its first value (every
    distance to it is ``+inf``) and ``-inf`` as its distance to the centroid."""

    def __init__(self, arr: np.ndarray) -> None:
        super().__init__(arr)
        self.arr = arr
        self.columns = np.ascontiguousarray(arr[self.first(np.arange(len(self.left)))].T)
        self.centroid_dist = _sq_dist(self.columns, arr.mean(axis=0))
        self.touched: list[int] = []  # the points the group being formed took records of

    def distances(self, j: int) -> np.ndarray:
        """Squared distances from point ``j`` to every stored point (``+inf`` to those with no
        record left)."""
        return _sq_dist(self.columns, self.arr[self.first(j)])

    def take(self, j: int, count: int) -> np.ndarray:
        records = super().take(j, count)
        self.touched.append(j)
        if not self.left[j]:
            self.columns[0, j] = np.inf
            self.centroid_dist[j] = -np.inf
        return records

    def take_whole(self, points: np.ndarray) -> np.ndarray:
        records = super().take_whole(points)
        self.touched.extend(points.tolist())
        self.columns[0, points] = np.inf
        self.centroid_dist[points] = -np.inf
        return records

    def compact(self) -> np.ndarray | None:
        keep = super().compact()
        if keep is not None:
            self.columns = np.ascontiguousarray(self.columns[:, keep])
            self.centroid_dist = self.centroid_dist[keep]
        return keep


def _vmdav(arr: np.ndarray, k: int, gamma: float) -> np.ndarray:
    """The V-MDAV loop on a validated array with k >= 2."""
    labels = np.empty(arr.shape[0], dtype=np.intp)
    points = _Points(arr)
    group = 0
    while points.alive >= 2 * k:
        points.compact()
        e = points.farthest(points.centroid_dist)
        near = points.distances(e)
        if _alone(points, e, near, k):  # groups of k records of e's point, as many as can be
            count = min(int(points.left[e]) - k - 2, points.alive - 2 * k) // k + 1
            labels[points.take(e, count * k)] = np.repeat(np.arange(group, group + count), k)
            group += count
            continue
        cap = min(2 * k - 1, points.alive - k)
        to_group = near.copy()  # every point's squared distance to its nearest member
        points.touched.clear()
        members = points.take_around(e, k, near)
        touched = np.unique(points.touched)
        for m in touched[touched != e]:
            np.minimum(to_group, points.distances(int(m)), out=to_group)
        to_group[touched[points.left[touched] == 0]] = np.inf
        size = k
        while size < cap:
            e_min = points.nearest(to_group)
            if points.left[e_min] > 1:
                break  # its nearest other record is an equal one, at 0: d_in < γ·0 fails
            from_e = points.distances(e_min)
            from_e[e_min] = np.inf
            d_in, d_out = float(to_group[e_min]), float(from_e.min())
            if not np.sqrt(d_in) < gamma * np.sqrt(d_out):
                break
            members.append(points.take(e_min, 1))
            np.minimum(to_group, from_e, out=to_group)
            to_group[e_min] = np.inf
            size += 1
        labels[np.concatenate(members)] = group
        group += 1
    if points.alive:
        labels[points.rest()] = group
    return labels


def _alone(points: _Points, e: int, near: np.ndarray, k: int) -> bool:
    """Whether the group formed around point ``e`` is ``k`` of its own records and no more, and
    so is every next one while ``e`` keeps ``k + 2`` records or more: ``e`` has that many left
    (``k`` for the group; the next record is then of ``e`` again, and an equal one is left, at
    0 from it: the extension test fails), no other point is at distance 0 from ``e``, and no
    other point left is as far from the centroid (``e`` stays the farthest)."""
    if points.left[e] < k + 2:
        return False
    dist = points.centroid_dist
    return np.count_nonzero(near == 0) == 1 and np.count_nonzero(dist == dist[e]) == 1
