"""Rank swapping of numeric columns with a window of p % of the records.

As described in Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan & Claypool
2016, Ch. 3 (its Algorithm 1, in the standard form of rank swapping).

Each column is swapped on its own. The window is ``w = floor(p·n/100)`` ranks: a value is
exchanged only with a value at most ``w`` ranks away, as in the classic algorithm (Moore 1996;
sdcMicro's ``rankSwap`` with ``P = p``).

Ranks. Records are ordered by value with a stable sort, so the rank of a record is its position
in that order and tied values get consecutive ranks in record order. "Moves at most ``w`` ranks"
means: the value a record publishes is the original value of a record whose rank differs from
its own by at most ``w``. With ties this implies that the published value lies between the
sorted values at ranks ``r − w`` and ``r + w`` (clipped to the ends).

Pairing (vectorized, the exact procedure). The sequential procedure (Algorithm 1) walks the ranks
one by one and pairs the lowest unswapped rank with a uniformly chosen unswapped rank among the next
``w``; that is inherently sequential. Here the pairing is blockwise, with the same guarantees:

1. draw an offset ``s`` uniformly from ``0..w``; cut the ranks into consecutive blocks
   ``[0, s)``, ``[s, s + w + 1)``, ``[s + w + 1, s + 2(w + 1))``, ... (every block has at most
   ``w + 1`` ranks, so any two ranks in a block are at most ``w`` apart; the random offset
   makes the block boundaries unpredictable);
2. shuffle each block uniformly and independently, and pair its 1st and 2nd, 3rd and 4th, ...
   ranks (a uniformly random perfect matching of the block; in a block of odd size one uniformly
   chosen rank stays unswapped);
3. swap the values of every pair and undo the sort.

So every value moves at most ``w`` ranks, swaps are pairwise (the multiset of the column is
unchanged) and ``p = 0`` (``w = 0``) is the identity. As in Algorithm 1, a value is swapped at
most once. Unlike Algorithm 1, pairs never straddle a block boundary, and a rank's partner is
uniform over its block instead of over the next ``w`` unswapped ranks. O(n log n) for the sort,
O(n) for the pairing.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import ColumnNames, Param, Real
from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Kind, Schema
from ..registry import method
from .common import (
    check_number,
    masked_release,
    masking_input,
    numeric_matrix,
    select_columns,
    with_columns,
)

__all__ = ["rank_swap", "rank_swap_values", "swap_window", "swap_partners"]


def _check_p(p: Any) -> float:
    return check_number(p, "p (a percentage)", 0, 100)


def swap_window(n: int, p: float) -> int:
    """The rank window ``w = floor(p·n/100)`` for ``n`` values and a percentage ``p``."""
    # Exact for percentages given with up to 9 decimals: avoids floor(7·100/100) = 6 by rounding.
    return int(math.floor(round(_check_p(p) * n / 100.0, 9)))


def _pair_block(ranks: np.ndarray, gen: np.random.Generator, partner: np.ndarray) -> None:
    """Uniform random matching of a (small) block of ranks, written into ``partner``."""
    shuffled = gen.permutation(ranks)
    m = len(shuffled) // 2 * 2
    partner[shuffled[0:m:2]] = shuffled[1:m:2]
    partner[shuffled[1:m:2]] = shuffled[0:m:2]


def swap_partners(n: int, w: int, rng: RandomLike = None) -> np.ndarray:
    """The rank pairing: ``partner[r]`` is the rank whose value rank ``r`` receives.

    An involution on ``0..n-1`` with ``|partner[r] − r| ≤ w`` (fixed points are unswapped
    ranks); see the module docstring for the procedure.

    Parameters
    ----------
    n : int
        Number of values.
    w : int
        Window in ranks (>= 0).
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        int64 array of length ``n``.
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 0:
        raise InputError(f"n: expected a non-negative integer, got {n!r}")
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, numbers.Integral) or w < 0:
        raise InputError(f"w: expected a non-negative integer, got {w!r}")
    partner = np.arange(n, dtype=np.int64)
    if w == 0 or n < 2:
        return partner
    gen = make_rng(rng)
    size = min(int(w), n - 1) + 1
    start = int(gen.integers(0, size))
    full = (n - start) // size
    end = start + full * size
    _pair_block(partner[:start].copy(), gen, partner)
    _pair_block(partner[end:].copy(), gen, partner)
    if full:
        blocks = gen.permuted(np.arange(start, end, dtype=np.int64).reshape(full, size), axis=1)
        m = size // 2 * 2
        left, right = blocks[:, 0:m:2], blocks[:, 1:m:2]
        partner[left] = right
        partner[right] = left
    return partner


def rank_swap_values(x: Any, p: float, rng: RandomLike = None) -> np.ndarray:
    """Rank-swap one column of values with a window of ``p`` % of its length.

    Parameters
    ----------
    x : 1-d array
        Values that can be sorted (numbers; NaN is refused).
    p : float
        Percentage in ``[0, 100]``; the window is ``floor(p·len(x)/100)`` ranks.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        The swapped values (same dtype and multiset as ``x``).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(10.0)
    >>> y = rank_swap_values(x, 20, rng=0)
    >>> bool(np.array_equal(np.sort(y), x)), bool(np.abs(y - x).max() <= 2)
    (True, True)
    """
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise InputError(f"x: expected a 1-d array, got shape {arr.shape}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InputError("x: holds NaN; rank swapping needs values that can be ordered")
    n = len(arr)
    w = swap_window(n, p)
    if w == 0 or n < 2:
        return arr.copy()
    order = np.argsort(arr, kind="stable")
    partner = swap_partners(n, w, rng)
    out = np.empty_like(arr)
    out[order] = arr[order[partner]]
    return out


@method(
    "rank_swap",
    step="any",
    kind="masked",
    publishes="The table with rank-swapped numeric columns.",
    help="Swaps each numeric value with another one of close rank, so values stay realistic but "
    "may not be the person's own.",
    params=(
        Param(
            "p",
            "How far a value may move, as a percent of the records' ranks (5 = within 5 % of "
            "the ranks), from 0 to 100.",
            (Real(0, 100),),
        ),
        Param(
            "columns",
            "Numeric columns to swap (the numeric quasi-identifiers by default).",
            (ColumnNames(),),
        ),
    ),
    in_memory_because="each value is swapped with one of close rank among all records",
)
def rank_swap(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    p: float,
    columns: Sequence[str] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Rank-swap numeric columns, each independently (sdcMicro's ``rankSwap``).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    p : float
        Window as a percentage of the number of rows, in ``[0, 100]``: values move at most
        ``w = floor(p·n/100)`` ranks. ``p = 0`` publishes the column unchanged.
    columns : sequence of str, optional
        Numeric columns to swap (default: the numeric quasi-identifiers).
    rng : numpy.random.Generator, int or None
        Source of randomness; never recorded.

    Returns
    -------
    Release
        Kind ``"masked"``: the validated rows and columns, the chosen columns swapped (their
        dtype kept). Metadata: ``parameters`` (``p``, ``columns``), ``masked_numeric``
        (= ``columns``), ``window`` (``w``) and ``swapped`` (per column, the number of records
        whose value changed).

    Raises
    ------
    InputError
        ``p`` outside ``[0, 100]``; bad ``columns``; non-finite values.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [5, 1, 4, 2, 3, 9, 7, 8, 6, 10]})
    >>> rel = rank_swap(df, {"income": {"role": "quasi", "kind": "numeric"}}, p=20, rng=3)
    >>> sorted(rel.data["income"]) == list(range(1, 11)), rel.metadata["window"]
    (True, 2)
    """
    pct = _check_p(p)
    schema, frame = masking_input(data, schema)
    cols = select_columns(schema, columns, (Kind.NUMERIC,), "rank_swap")
    numeric_matrix(frame, cols, "rank_swap")  # refuses non-finite values
    gen = make_rng(rng)
    new = {c: rank_swap_values(frame[c].to_numpy(), pct, gen) for c in cols}
    published = with_columns(frame, new)
    swapped = {c: int(np.count_nonzero(new[c] != frame[c].to_numpy())) for c in cols}
    parameters = {"p": p, "columns": cols}
    return masked_release(
        "rank_swap",
        published,
        schema,
        parameters,
        len(frame),
        masked_numeric=cols,
        window=swap_window(len(frame), pct),
        swapped=swapped,
    )
