"""Microaggregation along one axis: individual ranking, projection, optimal univariate.

Methods as described in Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan &
Claypool 2016, Ch. 3; optimal univariate microaggregation after Hansen & Mukherjee, *A Polynomial
Algorithm for Optimal Univariate Microaggregation*, IEEE TKDE 15(4), 2003.

- **Individual ranking**: each column on its own, records sorted by it (stable), consecutive
  groups of ``k`` with the last group absorbing the remainder, values replaced by group means.
- **Projection**: the records projected onto one axis — the sum of the columns' z-scores, or the
  first principal component of the centred columns — then grouped like individual ranking along
  that order; all columns are replaced by their group means (the groups are common).
- **Optimal univariate** (Hansen & Mukherjee 2003): the partition of one column into groups of at
  least ``k`` values with the smallest within-group sum of squares (SSE), exactly.

Why the optimal groups are contiguous runs of the sorted values, of ``k..2k-1`` values each.
Take an optimal partition and two of its groups ``A`` and ``B`` with means ``μ_A <= μ_B``, and
suppose ``a ∈ A`` exceeds ``b ∈ B``. Swapping them leaves the group sizes and ``Σ x²`` unchanged
and, with ``d = a - b > 0``, changes ``SSE = Σ x² - Σ_G S_G² / n_G`` by
``2d (μ_A - μ_B) - d² (1/n_A + 1/n_B) < 0``: a better partition, a contradiction. So every value
of ``A`` is at most every value of ``B`` (equal values can be exchanged at no cost), i.e. groups
are intervals of the sorted order. A group of ``2k`` or more values can be cut into two intervals
of at least ``k`` each, and splitting a group never increases the SSE; so groups of ``k..2k-1``
values suffice. The optimum is therefore a shortest path from node 0 to node ``n`` in the DAG
whose edge ``i -> j`` (``k <= j - i <= 2k - 1``) weighs the SSE of sorted values ``i+1..j``.

Implementation of the optimum. The SSE of every window of ``L`` consecutive sorted values is
computed for ``L = k..2k-1`` in ``O(n k)`` vectorized work, relative to the window's first value
(``Σ y² - (Σ y)² / L`` with ``y = x - x_first``): prefix sums of ``x`` and ``x²`` would cancel
catastrophically on long inputs (``10⁶`` values: window SSEs near ``1e-12`` against prefix sums
near ``1e6``). The shortest path is then found either by Dijkstra's algorithm on the sparse DAG
(:func:`scipy.sparse.csgraph.dijkstra`, compiled; used for ``k <= 8``, the graph holding ``n k``
edges) or, for larger ``k``, by the dynamic program ``D[j] = min_L D[j - L] + SSE(j - L, j)``
computed ``k`` nodes at a time (a node's predecessors are at least ``k`` nodes back, so a block of
``k`` nodes depends only on finished ones): ``n / k`` steps of ``O(k²)`` vectorized work, with the
window costs computed for ``2**16`` nodes at a time (memory ``O(n)``). Both are exact: they return a
partition with the minimum SSE (up to floating-point rounding of the sums); among partitions of
equal SSE, which one is returned is unspecified.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import InputError
from .common import check_k, check_matrix, check_vector
from .microagg_common import fixed_size_groups, group_means

__all__ = [
    "individual_ranking",
    "optimal_univariate_groups",
    "projection_groups",
    "PROJECTIONS",
]

#: Axes records can be projected on: the sum of z-scores, the first principal component.
PROJECTIONS = ("zscore_sum", "pca")
#: Largest k for which the optimum is found with Dijkstra on the explicit graph.
_GRAPH_MAX_K = 8
#: Nodes whose window costs the blocked dynamic program holds at a time.
_CHUNK_NODES = 1 << 16


def individual_ranking(X: Any, k: int) -> np.ndarray:
    """Microaggregate each column on its own by individual ranking (fixed group size ``k``).

    Parameters
    ----------
    X : array of shape (n,) or (n, p)
        Numeric values (finite).
    k : int
        Group size, ``1 <= k <= n``; per column, groups of ``k`` consecutive values in sorted
        order (ties in record order), the last group absorbing the ``n mod k`` remaining values.

    Returns
    -------
    ndarray of the shape of ``X``
        Every value replaced by the mean of its group in its column.

    Raises
    ------
    InputError, InfeasibleError
        As :func:`~microanon.methods.sdc.microagg_mdav.mdav_groups`.

    Examples
    --------
    >>> individual_ranking([5.0, 1.0, 2.0, 9.0, 3.0], 2).tolist()
    [5.666666666666667, 1.5, 1.5, 5.666666666666667, 5.666666666666667]
    """
    one_d = np.ndim(X) == 1
    arr = check_matrix(X)
    k = check_k(k, arr.shape[0])
    out = np.empty_like(arr)
    for j in range(arr.shape[1]):
        labels = fixed_size_groups(np.argsort(arr[:, j], kind="stable"), k)
        out[:, j] = group_means(arr[:, j], labels)
    return out[:, 0] if one_d else out


def projection_groups(X: Any, k: int, how: str = "zscore_sum") -> np.ndarray:
    """Group records by their order along one projection axis (fixed group size ``k``).

    Parameters
    ----------
    X : array of shape (n, p) or (n,)
        Numeric records (finite).
    k : int
        Group size, ``1 <= k <= n``: consecutive groups of ``k`` along the projection (stable
        sort: ties in record order), the last absorbing the ``n mod k`` remaining records.
    how : {"zscore_sum", "pca"}
        ``"zscore_sum"``: the sum of the columns' z-scores (sample standard deviation; a
        constant column contributes nothing). ``"pca"``: the scores on the first principal
        component of the centred columns as given (standardize them first for a correlation
        PCA), its sign fixed so that its largest-magnitude loading (the first of equal ones) is
        positive.

    Returns
    -------
    ndarray of int, shape (n,)
        Group numbers increasing along the projection.

    Raises
    ------
    InputError
        An unknown ``how``; as :func:`~microanon.methods.sdc.microagg_mdav.mdav_groups`.
    InfeasibleError
        ``k > n``.
    """
    if how not in PROJECTIONS:
        raise InputError(f"projection: expected one of {', '.join(PROJECTIONS)}, got {how!r}")
    arr = check_matrix(X)
    k = check_k(k, arr.shape[0])
    centred = arr - arr.mean(axis=0)
    if how == "zscore_sum":
        sd = arr.std(axis=0, ddof=1) if arr.shape[0] > 1 else np.zeros(arr.shape[1])
        scores = (centred / np.where(sd > 0, sd, 1.0)).sum(axis=1)
    else:
        _, vectors = np.linalg.eigh(centred.T @ centred)
        axis = vectors[:, -1]
        axis = axis if axis[np.argmax(np.abs(axis))] > 0 else -axis
        scores = centred @ axis
    return fixed_size_groups(np.argsort(scores, kind="stable"), k)


def _window_sse(xs: np.ndarray, k: int) -> list[np.ndarray]:
    """SSE of every window of ``L = k..2k-1`` (``k >= 2``) sorted values; entry ``L - k``."""
    n = len(xs)
    s1 = np.zeros(n)
    s2 = np.zeros(n)
    out = []
    for length in range(2, 2 * k):
        m = n - length + 1
        if m <= 0:
            break
        y = xs[length - 1 :] - xs[:m]
        s1 = s1[:m] + y
        s2 = s2[:m] + y * y
        if length >= k:
            out.append(np.maximum(s2 - s1 * s1 / length, 0.0))
    return out


def _path_graph(costs: list[np.ndarray], n: int, k: int) -> np.ndarray:
    """Predecessor of every node on the shortest 0 -> n path (Dijkstra on the explicit DAG)."""
    lengths = k + np.arange(len(costs))
    nodes = np.arange(n + 1)
    targets = nodes[:, None] + lengths[None, :]
    valid = targets <= n
    weights = np.zeros(targets.shape)
    for col, cost in enumerate(costs):
        weights[: len(cost), col] = cost
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    graph = sp.csr_matrix(
        (weights[valid], targets[valid], np.concatenate([[0], np.cumsum(valid.sum(axis=1))])),
        shape=(n + 1, n + 1),
    )
    _, pred = dijkstra(graph, directed=True, indices=0, return_predecessors=True)
    return pred


def _path_blocks(xs: np.ndarray, k: int) -> np.ndarray:
    """Predecessor of every node by the dynamic program, ``k`` nodes at a time.

    Window costs are computed for chunks of about ``2**16`` nodes at a time (memory ``O(n)``).
    """
    n = len(xs)
    lengths = np.arange(k, 2 * k)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    pred = np.full(n + 1, -1, dtype=np.intp)
    chunk = max(1, _CHUNK_NODES // k) * k
    for c0 in range(k, n + 1, chunk):
        c1 = min(c0 + chunk, n + 1)
        first = max(0, c0 - 2 * k + 1)
        costs = _window_sse(xs[first : c1 - 1], k)
        starts = np.arange(c0, c1)[:, None] - lengths[None, :] - first
        cost = np.full(starts.shape, np.inf)  # cost[j - c0, c]: group of lengths[c] ending at j
        for col, c in enumerate(costs):
            ok = (starts[:, col] >= 0) & (starts[:, col] < len(c))
            cost[ok, col] = c[starts[ok, col]]
        for b in range(c0, c1, k):
            nodes = np.arange(b, min(b + k, c1))
            back = nodes[:, None] - lengths[None, :]
            total = best[np.maximum(back, 0)] + cost[b - c0 : b - c0 + len(nodes)]
            choice = total.argmin(axis=1)
            rows = np.arange(len(nodes))
            best[nodes] = total[rows, choice]
            pred[nodes] = back[rows, choice]
    return pred


def optimal_univariate_groups(x: Any, k: int) -> np.ndarray:
    """Optimal univariate microaggregation (Hansen & Mukherjee 2003): minimum-SSE groups.

    Parameters
    ----------
    x : array of shape (n,)
        Numeric values (finite).
    k : int
        Minimum group size, ``1 <= k <= n``.

    Returns
    -------
    ndarray of int, shape (n,)
        Group number of every value, increasing with the value; every group has ``k..2k-1``
        values, and the partition has the smallest within-group sum of squares among all
        partitions into groups of at least ``k`` (see the module docstring for why groups are
        contiguous in sorted order and why Dijkstra / the blocked dynamic program find it).

    Raises
    ------
    InputError
        Non-finite values, not one-dimensional, ``k`` not an integer or below 1.
    InfeasibleError
        ``k > n``.

    Examples
    --------
    Constructed examples:

    >>> optimal_univariate_groups([1, 2, 4, 5, 7, 8, 40, 41, 42, 43], 3).tolist()
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    """
    values = check_vector(x)
    n = len(values)
    k = check_k(k, n)
    order = np.argsort(values, kind="stable")
    if k == 1:
        labels = np.empty(n, dtype=np.intp)
        labels[order] = np.arange(n)
        return labels
    xs = values[order]
    if k <= _GRAPH_MAX_K:
        pred = _path_graph(_window_sse(xs, k), n, k)
    else:
        pred = _path_blocks(xs, k)
    bounds = [n]
    chain = pred.tolist()
    while bounds[-1] > 0:
        bounds.append(chain[bounds[-1]])
    cuts = np.array(bounds[::-1])
    sizes = np.diff(cuts)
    labels = np.empty(n, dtype=np.intp)
    labels[order] = np.repeat(np.arange(len(sizes)), sizes)
    return labels
