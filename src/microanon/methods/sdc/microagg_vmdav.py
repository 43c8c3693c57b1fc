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
lowest record index. Cost: ``O(n² p)`` — one distance pass over the ungrouped records per record
added to a group and one per extension test; a group's first ``k`` records are found by
partitioning the distances, not sorting them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import check_k, check_matrix, check_number

__all__ = ["vmdav_groups"]


def _sq_dist(columns: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances from every record to ``q``, the records' values given column
    by column (``columns``: shape ``(p, n)``): a few passes over contiguous arrays, each
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
    labels = np.full(n, -1, dtype=np.intp)
    # the ungrouped records (ascending, so that the first of equals is the lowest index), their
    # values column by column and squared distances to the centroid; each group formed is
    # removed from them
    free = np.arange(n, dtype=np.intp)
    columns = np.ascontiguousarray(arr.T)
    centroid_dist = _sq_dist(columns, arr.mean(axis=0))
    group = 0
    while len(free) >= 2 * k:
        e = int(centroid_dist.argmax())
        near = _sq_dist(columns, columns[:, e])
        near[e] = -np.inf
        in_group = np.zeros(len(free), dtype=bool)
        in_group[_nearest(near, k)] = True
        # Squared distance of every record to its nearest member of the group.
        members = np.flatnonzero(in_group)
        to_group = np.min([_sq_dist(columns, columns[:, m]) for m in members], axis=0)
        size = k
        cap = min(2 * k - 1, len(free) - k)
        while size < cap:
            outside = np.where(in_group, np.inf, to_group)
            e_min = int(outside.argmin())
            d_in = float(outside[e_min])
            from_e = _sq_dist(columns, columns[:, e_min])
            others = np.where(in_group, np.inf, from_e)
            others[e_min] = np.inf
            d_out = float(others.min())
            if not np.sqrt(d_in) < gamma * np.sqrt(d_out):
                break
            in_group[e_min] = True
            np.minimum(to_group, from_e, out=to_group)
            size += 1
        labels[free[in_group]] = group
        kept = ~in_group
        free, columns, centroid_dist = free[kept], columns[:, kept], centroid_dist[kept]
        group += 1
    labels[free] = group
    return labels


def _nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest of ``dist``, the first of equal ones first (what the
    first ``k`` of a stable argsort hold, in another order), by partitioning, not sorting."""
    kth = np.partition(dist, k - 1)[k - 1]
    below = np.flatnonzero(dist < kth)
    return np.concatenate([below, np.flatnonzero(dist == kth)[: k - len(below)]])
