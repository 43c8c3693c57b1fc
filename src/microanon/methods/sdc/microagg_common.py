"""What every microaggregation algorithm shares: input checks, group means, fixed-size groups."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...core.errors import InfeasibleError, InputError

__all__ = ["check_matrix", "check_vector", "check_k", "group_means", "fixed_size_groups"]


def check_matrix(X: Any, name: str = "X") -> np.ndarray:
    """``X`` as a 2-D float64 array of finite values (a 1-D array becomes one column).

    Raises
    ------
    InputError
        Not numeric, more than two dimensions, no row or no column, a NaN or an infinity.
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a numeric array") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name} must be one- or two-dimensional, got {arr.ndim} dimensions")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InputError(f"{name} is empty (shape {arr.shape})")
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(
            f"{name} holds {int(bad.sum())} NaN or infinite value(s), the first at row {row}, "
            f"column {col}; drop or impute them first"
        )
    return arr


def check_vector(x: Any, name: str = "x") -> np.ndarray:
    """``x`` as a 1-D float64 array of finite values.

    Raises
    ------
    InputError
        As :func:`check_matrix`, or more than one column.
    """
    arr = check_matrix(x, name)
    if arr.shape[1] != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {np.shape(x)}")
    return arr[:, 0]


def check_k(k: Any, n: int) -> int:
    """Validate the minimum group size ``k`` for ``n`` records.

    Raises
    ------
    InputError
        ``k`` is not an integer or is below 1.
    InfeasibleError
        ``k`` exceeds the number of records: no partition into groups of at least ``k`` exists.
    """
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise InputError(f"k must be an integer, got {k!r}")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if k > n:
        raise InfeasibleError(
            f"k = {k} exceeds the number of records ({n}): no group of at least k records exists"
        )
    return int(k)


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
        raise InputError(f"labels must have shape ({arr.shape[0]},), got {lab.shape}")
    if not np.issubdtype(lab.dtype, np.integer) or (lab.size and lab.min() < 0):
        raise InputError("labels must be non-negative integers")
    counts = np.bincount(lab)
    out = np.empty_like(arr)
    for j in range(arr.shape[1]):
        sums = np.bincount(lab, weights=arr[:, j], minlength=len(counts))
        out[:, j] = (sums[lab]) / counts[lab]
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
