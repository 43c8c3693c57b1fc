"""What every microaggregation algorithm shares: group means and fixed-size groups."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import InputError
from .common import check_matrix

__all__ = ["group_means", "fixed_size_groups"]


def group_means(X: Any, labels: Any) -> np.ndarray:
    """Each record replaced by the mean of its group (the microaggregated values).

    Parameters
    ----------
    X : array of shape (n,) or (n, p)
        Numeric values.
    labels : array of int, shape (n,)
        Group number of each record, in ``0..g-1`` (unused numbers are allowed).

    Returns
    -------
    ndarray of the shape of ``X``
        Row ``i`` is the mean, per column, of the rows that share ``labels[i]``.

    Raises
    ------
    InputError
        Shapes that do not match, negative or non-integer labels, non-finite values.

    Examples
    --------
    >>> group_means([1.0, 2.0, 6.0, 10.0], [0, 0, 1, 1]).tolist()
    [1.5, 1.5, 8.0, 8.0]
    """
    one_d = np.ndim(X) == 1
    arr = check_matrix(X)
    lab = np.asarray(labels)
    if lab.shape != (arr.shape[0],):
        raise InputError(f"labels: expected shape ({arr.shape[0]},), got {lab.shape}")
    if not np.issubdtype(lab.dtype, np.integer) or (lab.size and lab.min() < 0):
        raise InputError("labels: expected non-negative integer group numbers")
    counts = np.bincount(lab)
    out = np.empty_like(arr)
    base = np.zeros(len(counts))
    for j in range(arr.shape[1]):
        # Summed as differences from a member's value (any one): a group of equal values has
        # that value as its mean exactly (a plain sum of three -0.878 divided by 3 is
        # -0.8779999999999999, a cell that would count as changed and be written so).
        base[lab] = arr[:, j]
        shift = base[lab]
        sums = np.bincount(lab, weights=arr[:, j] - shift, minlength=len(counts))
        out[:, j] = shift + sums[lab] / counts[lab]
    return out[:, 0] if one_d else out


def fixed_size_groups(order: np.ndarray, k: int) -> np.ndarray:
    """Labels of consecutive groups of ``k`` records along ``order``; the last absorbs the rest.

    ``order`` lists record positions (a permutation of ``0..n-1``); with ``n = q k + r``
    (``0 <= r < k``) the first ``q - 1`` groups hold ``k`` records and the last ``k + r``
    (``n`` records in one group when ``n < 2k``). Group numbers increase along ``order``.
    """
    n = len(order)
    rank_group = np.minimum(np.arange(n) // k, max(n // k - 1, 0))
    labels = np.empty(n, dtype=np.intp)
    labels[order] = rank_group
    return labels
