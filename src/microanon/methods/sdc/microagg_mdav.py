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

- the centroid is kept as a running sum ``S`` of the ``m`` remaining records (re-summed whenever
  the working arrays are compacted), and the farthest record from it maximizes
  ``m |x|² - 2 x·S`` (``m`` times the squared distance, up to a constant) — no division;
- a squared distance is ``|x|² - 2 x·q`` (+ a constant that cannot change a maximum or a
  minimum), so each of the three distance passes of an iteration (from ``c``, ``x_r``, ``x_s``)
  is one matrix-vector product over the remaining records stored column-major
  (``p × m``), plus one addition of the precomputed norms; the nearest and the farthest records
  from ``x_r`` come from the same pass;
- removed records are not deleted at once: their norms become ``+inf`` in the copy used for
  nearest-neighbour searches and ``-inf`` in the copy used for farthest-record searches, and the
  arrays are compacted (order preserved, so ``argmax``/``argmin`` still return the lowest index
  on ties) when an eighth of them is dead;
- the ``k - 1`` nearest are ``k - 1`` successive ``argmin`` passes for small ``k`` and one
  ``argpartition`` plus an exact tie pass otherwise;
- BLAS runs single-threaded during the loop (``threadpoolctl``): multithreaded small
  products gain nothing and stall badly when another process holds a core.

Distances are compared as computed in floating point: records at mathematically equal but
numerically different distances (possible only for non-integer data, e.g. after
standardization) are ordered by the computed values, which can differ from another formula's
rounding. On integer-valued data (with ``n p max|x|²`` well below ``2**53``) every compared
quantity is computed exactly, and the groups equal those of a direct transcription of the
pseudocode. Cost: ``n / (2k)`` iterations of ``O(m p)`` work for ``m`` remaining records, i.e.
``O(n² p / k)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from .common import check_k, check_matrix

__all__ = ["mdav_groups"]

#: Below this k the nearest records are found by repeated argmin rather than argpartition.
_ARGMIN_K = 8
#: Compact the working arrays when more than this share of their records has been grouped.
_COMPACT_SHARE = 8


def _k_smallest(v: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest entries of ``v`` (ties: lowest position); clobbers ``v``."""
    if k <= _ARGMIN_K:
        out = np.empty(k, dtype=np.intp)
        for i in range(k):
            j = int(v.argmin())
            out[i] = j
            v[j] = np.inf
        return out
    part = np.argpartition(v, k - 1)[:k]
    threshold = v[part].max()
    below = np.flatnonzero(v < threshold)
    tied = np.flatnonzero(v == threshold)[: k - len(below)]
    return np.concatenate([below, tied])


class _Remaining:
    """The records not yet grouped: coordinates (``-2x``, column-major), norms, running sum."""

    def __init__(self, X: np.ndarray) -> None:
        self.neg2 = np.ascontiguousarray(-2.0 * X.T)
        norms = np.einsum("ij,ij->i", X, X)
        self.far_norms = norms.copy()  # -inf once grouped: never the farthest
        self.near_norms = norms  # +inf once grouped: never the nearest
        self.index = np.arange(X.shape[0])
        self.total = X.sum(axis=0)
        self.alive = X.shape[0]
        self.dead = 0
        self._buffers()

    def _buffers(self) -> None:
        m = len(self.index)
        self.buf_near = np.empty(m)
        self.buf_far = np.empty(m)

    def point(self, j: int) -> np.ndarray:
        return self.neg2[:, j] * -0.5

    def dots(self, q: np.ndarray) -> np.ndarray:
        """``-2 x·q`` for every stored record."""
        return q @ self.neg2

    def farthest_from_centroid(self) -> int:
        """Position of the remaining record farthest from their mean (lowest index on ties).

        ``m |x - S/m|² = m |x|² - 2 x·S + |S|²/m``: maximizing ``m |x|² - 2 x·S`` avoids the
        division, so on integer data the comparison is exact.
        """
        v = np.multiply(self.far_norms, self.alive, out=self.buf_far)
        return int(np.add(v, self.dots(self.total), out=v).argmax())

    def group_around(self, j: int, k: int, dots: np.ndarray | None = None) -> np.ndarray:
        """Record ``j`` and its ``k - 1`` nearest remaining records (positions)."""
        if dots is None:
            dots = self.dots(self.point(j))
        near = np.add(self.near_norms, dots, out=self.buf_near)
        near[j] = -np.inf
        return _k_smallest(near, k)

    def remove(self, members: np.ndarray) -> None:
        self.far_norms[members] = -np.inf
        self.near_norms[members] = np.inf
        self.total -= self.neg2[:, members].sum(axis=1) * -0.5
        self.alive -= len(members)
        self.dead += len(members)

    def compact(self) -> None:
        """Drop the grouped records from the arrays once they are an eighth of them."""
        if self.dead * _COMPACT_SHARE > len(self.index):
            keep = np.isfinite(self.far_norms)
            self.neg2 = np.ascontiguousarray(self.neg2[:, keep])
            self.far_norms = self.far_norms[keep]
            self.near_norms = self.near_norms[keep]
            self.index = self.index[keep]
            self.total = self.neg2.sum(axis=1) * -0.5
            self.dead = 0
            self._buffers()

    def rest(self) -> np.ndarray:
        return self.index[np.isfinite(self.far_norms)]


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
    n = arr.shape[0]
    labels = np.empty(n, dtype=np.intp)
    rem = _Remaining(arr)
    group = 0

    def close(members: np.ndarray) -> None:
        nonlocal group
        labels[rem.index[members]] = group
        group += 1
        rem.remove(members)

    while rem.alive >= 3 * k:
        rem.compact()
        r = rem.farthest_from_centroid()
        dots_r = rem.dots(rem.point(r))
        first = rem.group_around(r, k, dots_r)
        far = np.add(rem.far_norms, dots_r, out=rem.buf_far)
        far[first] = -np.inf
        s = int(far.argmax())
        close(first)
        close(rem.group_around(s, k))
    if rem.alive >= 2 * k:
        close(rem.group_around(rem.farthest_from_centroid(), k))
    rest = rem.rest()
    if len(rest):
        labels[rest] = group
    return labels
