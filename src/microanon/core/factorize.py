"""Codes of a column by value, in order of first appearance, fast on text built from codes.

:func:`factorize` is :func:`pandas.factorize` (``use_na_sentinel=True``): the same codes and the
same distinct values. A text column of a release, or one read back from its files, holds few
distinct *objects* (each row points at one of the column's distinct strings), so the rows are
first told apart by the address of their object, an integer hash with no string hashed, and
only the distinct objects are then factorized by value (two objects of equal text get one code).
A column of many distinct objects is factorized by value directly.

One run of a command codes the same columns in several places (the lint, the method, the
verification, the reports): within :func:`shared_codes`, a column whose data was coded before
gets the same codes back. A column is recognized by its data (the Arrow array, or the memory,
shape and type of the NumPy array behind it), which a table selected, copied or reindexed from
another shares; the memo keeps the column itself, so its data is neither freed (an address is
never reused) nor changed in place (pandas copies a table's data on write while another object
refers to it), and its codes are read-only.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from pandas.core.algorithms import factorize_array

__all__ = [
    "DISTINCT_SAMPLE",
    "HASH_START",
    "KEY_LIMIT",
    "both_zero_signs",
    "code_columns",
    "code_counts",
    "coded",
    "factorize",
    "factorize_keys",
    "few_distinct",
    "first_rows",
    "object_positions",
    "packed_key",
    "push_digit",
    "radix_order",
    "remember",
    "remember_taken",
    "shared_codes",
    "shared_result",
    "sharing",
    "sorted_distinct",
    "usable_cores",
]

_Codes = tuple[np.ndarray, "np.ndarray | pd.Index"]
#: Within :func:`shared_codes`: each column's data key, the column and its codes.
T = TypeVar("T")

#: Per column data (:func:`_data_key`): the column and its codes; per (name, data keys): the
#: columns and a result computed on them (:func:`shared_result`).
_SHARED: ContextVar[dict[Hashable, tuple[Any, Any]] | None] = ContextVar(
    "microanon_shared_codes", default=None
)


@contextmanager
def shared_codes() -> Iterator[None]:
    """Within the block, :func:`factorize` codes each column's data once (the block's columns
    are kept alive until it ends)."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def sharing() -> bool:
    """Whether :func:`factorize` keeps the codes it computes (within :func:`shared_codes`)."""
    return _SHARED.get() is not None


def both_zero_signs(values: np.ndarray) -> bool:
    """Whether a float array holds both 0.0 and -0.0: one value to :func:`factorize`, written
    apart (``0.0``, ``-0.0``)."""
    signs = np.signbit(values[values == 0])
    return bool(signs.any() and not signs.all())


def shared_result(columns: Sequence[pd.Series], what: str, compute: Callable[[], T]) -> T:
    """Within :func:`shared_codes`, what ``compute()`` gave before for the data of
    ``columns`` (``what`` names the result), computed once; outside, ``compute()``."""
    memo = _SHARED.get()
    keys = None if memo is None else tuple(_data_key(c) for c in columns)
    if keys is None or None in keys:
        return compute()
    key = (what, keys)
    if key not in memo:  # (the columns kept alive: their memory is not reused meanwhile)
        memo[key] = (tuple(columns), compute())
    return memo[key][1]


def _data_key(values: pd.Series) -> Hashable | None:
    """What identifies the data of a column: its Arrow array, or its NumPy array's memory,
    layout and type (None: a column of another kind, not shared)."""
    arrow = getattr(values.array, "_pa_array", None)
    if arrow is not None:
        return ("arrow", id(arrow))
    if not isinstance(values.dtype, np.dtype):
        return None
    array = values.to_numpy(copy=False)
    return ("numpy", array.__array_interface__["data"][0], array.strides, array.shape, array.dtype)


def factorize(values: pd.Series | np.ndarray) -> _Codes:
    """Codes (``-1`` for a missing value) and distinct values of ``values``, as
    ``pandas.factorize(values, use_na_sentinel=True)`` gives them.

    Parameters
    ----------
    values : Series or 1-d array

    Returns
    -------
    codes : int array
        Read-only when shared (:func:`shared_codes`).
    uniques : array or Index
        In order of first appearance, missing values left out.
    """
    memo = _SHARED.get()
    key = _data_key(values) if memo is not None and isinstance(values, pd.Series) else None
    if key is None:
        return _factorize(values)
    known = memo.get(key)
    return known[1] if known is not None else _keep(memo, key, values, *_factorize(values))


def coded(values: pd.Series) -> _Codes | None:
    """Within :func:`shared_codes`, what :func:`factorize` gave for ``values`` before (None:
    not coded yet in this block, or outside one); nothing is computed."""
    memo = _SHARED.get()
    key = None if memo is None else _data_key(values)
    known = None if key is None else memo.get(key)
    return None if known is None else known[1]


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def code_columns(columns: Iterable[pd.Series]) -> None:
    """Within :func:`shared_codes`, code the columns not coded yet, as many at a time as there
    are cores, for the later :func:`factorize` calls (outside it: nothing).

    Hashing an Arrow-backed text column (pyarrow's dictionary encoding) or a numeric one
    (pandas' hash table) runs outside Python's interpreter lock, so the columns a run is sure to
    code (the published ones, which the lint, the method, the writer and the reports group) are
    coded side by side instead of one after the other.
    """
    memo = _SHARED.get()
    if memo is None:
        return
    todo: dict[Hashable, pd.Series] = {}
    for column in columns:
        key = _data_key(column)
        if key is not None and key not in memo:
            todo[key] = column
    workers = min(len(todo), usable_cores())
    if workers > 1:
        with ThreadPoolExecutor(workers, thread_name_prefix="microanon-codes") as pool:
            found = list(pool.map(_factorize, todo.values()))
    else:
        found = [_factorize(column) for column in todo.values()]
    for (key, column), (codes, uniques) in zip(todo.items(), found, strict=True):
        _keep(memo, key, column, codes, uniques)


def remember(column: pd.Series, codes: np.ndarray, uniques: pd.Index) -> None:
    """Within :func:`shared_codes`, let :func:`factorize` give ``codes`` and ``uniques`` for
    ``column`` (known where it was made, e.g. from the dictionary of a file's column) when they
    are what it would compute: codes ``-1`` (missing) or ``0 .. len(uniques) - 1`` numbered in
    order of first appearance, each occurring. Codes of another order are not kept."""
    memo = _SHARED.get()
    key = None if memo is None else _data_key(column)
    if key is None or len(first_rows(codes, len(uniques))) != len(uniques):
        return
    _keep(memo, key, column, codes.astype(np.intp, copy=False), uniques)


def remember_taken(column: pd.Series, codes: np.ndarray, labels: np.ndarray) -> None:
    """Within :func:`shared_codes`, let :func:`factorize` give the codes of ``column``, which
    is ``labels.take(codes)`` (``codes`` from 0, distinct labels of one type), without hashing
    its rows: ``codes`` renumbered in order of first appearance (found in a prefix of the rows
    as a rule). Labels equal to one another (1 and 1.0) are not remembered."""
    if not sharing() or len(set(labels)) != len(labels) or len({type(v) for v in labels}) > 1:
        return
    if len(codes) and codes.min() < 0:  # (not a take of these labels)
        return
    order = _appearance(codes, len(labels))
    renumber = np.empty(len(labels), dtype=np.intp)
    renumber[order] = np.arange(len(order), dtype=np.intp)
    # (indexing casts narrow codes a buffer at a time; take would cast them whole first)
    remember(column, renumber[codes], pd.Index(labels[order], dtype=object))


def _appearance(codes: np.ndarray, k: int) -> np.ndarray:
    """The codes ``0 .. k - 1`` that occur, in order of their first row: read in growing
    chunks until every code that occurs was seen (a hash pass over every row if a code first
    occurs late)."""
    wanted = int(np.count_nonzero(code_counts(codes, k)))
    first = np.full(k, len(codes), dtype=np.intp)
    found, start, chunk = 0, 0, 1 << 12
    while found < wanted:
        if start > len(codes) // 8:  # a code first seen late: one hash pass instead
            return factorize_keys(codes)[1].astype(np.intp, copy=False)
        part = codes[start : start + chunk]
        values, rows = np.unique(part, return_index=True)
        new = first[values] == len(codes)
        first[values[new]] = start + rows[new]
        found += int(np.count_nonzero(new))
        start, chunk = start + len(part), chunk * 2
    seen = np.flatnonzero(first < len(codes))
    return seen[np.argsort(first[seen], kind="stable")]


def _keep(
    memo: dict[Hashable, tuple[pd.Series, _Codes]],
    key: Hashable,
    column: pd.Series,
    codes: np.ndarray,
    uniques: np.ndarray | pd.Index,
) -> _Codes:
    """Keep ``column`` and its codes (made read-only) in ``memo``; the codes."""
    codes.flags.writeable = False
    memo[key] = (column, (codes, uniques))
    return codes, uniques


def _factorize(values: pd.Series | np.ndarray) -> _Codes:
    """:func:`factorize`, computed."""
    held = isinstance(values, (pd.Series, np.ndarray)) and values.dtype == np.dtype(object)
    if not held or len(values) < 2:
        return pd.factorize(values, use_na_sentinel=True)
    array = np.ascontiguousarray(
        values.to_numpy(dtype=object) if isinstance(values, pd.Series) else values
    )
    by_object, objects = factorize_keys(_addresses(array))
    if len(objects) > max(len(array) // 4, 1024):
        return pd.factorize(values, use_na_sentinel=True)
    # the distinct objects in order of first appearance, then by value: the rows' first
    # appearances of a value are those of its first object
    by_value, uniques = pd.factorize(
        array[first_rows(by_object, len(objects))], use_na_sentinel=True
    )
    if isinstance(values, pd.Series):
        uniques = pd.Index(uniques, dtype=object)
    return by_value[by_object], uniques


def _addresses(array: np.ndarray) -> np.ndarray:
    """The address of each object of a contiguous object array, as integers (a copy: it does
    not point into ``array``)."""
    view = (ctypes.c_void_p * len(array)).from_address(array.ctypes.data)
    return np.frombuffer(view, np.uintp).copy()


def object_positions(targets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``pd.Index(targets, dtype=object).get_indexer(values)`` (-1: not found) for targets
    distinct by value: each value found first as one of the very objects of ``targets`` (their
    addresses hashed as integers, no object read), the others by value. A column and the
    distinct values of another built from the same objects (a release's SID names in two
    tables) are matched without hashing a string.

    Parameters
    ----------
    targets : object array
        Distinct by value.
    values : object array

    Returns
    -------
    int array (intp)
    """
    targets = np.ascontiguousarray(targets, dtype=object)
    values = np.ascontiguousarray(values, dtype=object)
    if not (len(targets) and len(values)):
        return np.full(len(values), -1, dtype=np.intp)
    found = pd.Index(_addresses(targets)).get_indexer(_addresses(values)).astype(np.intp)
    rest = np.flatnonzero(found < 0)
    if len(rest):  # (an equal object elsewhere, or a value targets lack)
        found[rest] = pd.Index(targets, dtype=object).get_indexer(
            pd.Index(values[rest], dtype=object)
        )
    return found


#: Initial size of the hash table of :func:`factorize_keys`; it grows as the distinct keys need.
#: ``pd.factorize`` sizes it for every key distinct: on ten million keys of a few thousand
#: combinations a table far larger than the cache, two to four times slower.
HASH_START = 1 << 16


def factorize_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` of a 1-d integer array without missing values: codes (``intp``)
    numbered in order of first appearance, and the distinct keys in that order (pandas' hash
    table, started at :data:`HASH_START` entries)."""
    codes, uniques = factorize_array(keys, size_hint=min(len(keys), HASH_START))
    return codes.astype(np.intp, copy=False), uniques


#: Codes counted at a time by :func:`code_counts` (bounds its temporary array).
_COUNTED = 1 << 20


def code_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """How many times each of the codes ``0 .. k - 1`` occurs, as int64.

    ``np.bincount`` casts codes of a narrower type to a whole array of ``intp`` first; such
    codes are counted a chunk at a time instead (fresh memory is costly: each page is mapped
    and zeroed).
    """
    if codes.dtype == np.intp or len(codes) <= _COUNTED:
        return np.bincount(codes, minlength=k).astype(np.int64, copy=False)
    out = np.zeros(k, dtype=np.int64)
    for start in range(0, len(codes), _COUNTED):
        out += np.bincount(codes[start : start + _COUNTED], minlength=k)
    return out


def first_rows(codes: np.ndarray, k: int) -> np.ndarray:
    """The first row of each of the codes ``0 .. k - 1``, numbered in order of first appearance
    (each of which occurs; ``-1`` may too): where the highest code so far goes up.

    Read in growing chunks until every code was seen: the first rows of few codes are found in
    a short prefix.
    """
    first = np.empty(k, dtype=np.intp)
    found, start, chunk = 0, 0, 1 << 16
    while found < k and start < len(codes):
        part = codes[start : start + chunk]
        highest = np.maximum.accumulate(np.maximum(part, found - 1))
        rising = np.flatnonzero(highest > np.concatenate(([found - 1], highest[:-1])))
        first[found : found + len(rising)] = start + rising
        found += len(rising)
        start, chunk = start + len(part), chunk * 2
    return first[:found]


#: Keys :func:`few_distinct` samples.
DISTINCT_SAMPLE = 4096


def few_distinct(key: np.ndarray) -> bool:
    """Whether an evenly spread sample of ``key`` (:data:`DISTINCT_SAMPLE` keys) is at most
    half distinct: then a hash pass, whose table holds the distinct keys only, beats sorting
    every key or counting over a key space larger than the rows."""
    sample = key[:: max(1, len(key) // DISTINCT_SAMPLE)]
    return len(pd.unique(sample)) * 2 <= len(sample)


def sorted_distinct(values: Any) -> np.ndarray:
    """The distinct values of a one-dimensional array in ascending order, as ``numpy.unique``
    gives them (one NaN, last, for every NaN of a float array).

    Numbers by one sort and a comparison of neighbours: numpy 2.3 and later find the distinct
    numbers of ``numpy.unique`` (without counts, index or inverse) through a hash table, which
    took 50 times as long as a sort on a million distinct integers (0.8 s against 15 ms).
    Other arrays (text, objects, dates) are left to ``numpy.unique``.
    """
    array = np.asarray(values)
    if array.ndim != 1 or array.dtype.kind not in "biuf" or not len(array):
        return np.unique(array)
    ordered = np.sort(array)
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    if array.dtype.kind == "f" and np.isnan(ordered[-1]):  # (sorted last) NaN != NaN: one kept
        keep[int(np.searchsorted(ordered, np.nan)) + 1 :] = False
    return ordered[keep]


#: Bits of the digits :func:`radix_order` sorts by: numpy sorts 16-bit integers stably by radix.
_DIGIT = 16
#: From this many keys, :func:`radix_order` takes a third digit (below it, a comparison sort
#: costs about as much).
_THREE_DIGITS = 1 << 16


def radix_order(key: np.ndarray, space: int) -> np.ndarray | None:
    """The stable ascending order of non-negative int64 keys below ``space`` (an argsort), by
    16-bit digits from the lowest: numpy's stable sort of 16-bit integers is a radix sort, two
    such passes take a third of the time of a comparison sort of 30,000 keys of 30 bits.

    None when the keys need more than two digits, or three for fewer than
    :data:`_THREE_DIGITS` keys: a comparison sort is then as fast.
    """
    digits = -(-max(int(space) - 1, 1).bit_length() // _DIGIT)
    if digits > 3 or (digits == 3 and len(key) < _THREE_DIGITS):
        return None
    order = np.argsort(key.astype(np.uint16), kind="stable")  # (the low 16 bits)
    for shift in range(_DIGIT, digits * _DIGIT, _DIGIT):
        digit = (key >> shift).astype(np.uint16)
        order = order.take(np.argsort(digit.take(order), kind="stable"))
    return order


#: Largest size of a space of mixed-radix keys packed into one int64 (:func:`push_digit`).
KEY_LIMIT = 2**62


def packed_key(
    codes: Sequence[np.ndarray], radices: Sequence[int], offset: int = 0
) -> tuple[np.ndarray, int]:
    """One int64 key per row whose equal keys are the rows of equal codes, and the size of the
    key space: the codes as the digits of a mixed-radix number (each code plus ``offset`` in
    ``0 .. radix - 1``). Where the next digit would pass :data:`KEY_LIMIT`, the combinations so
    far are renumbered first (:func:`factorize_keys`: a hash pass, no sort), so any number of
    columns fits; the keys then keep equality only, not the codes' order.

    Parameters
    ----------
    codes : sequence of int arrays, all of one length (at least one)
    radices : sequence of int
        The number of codes of each column.
    offset : int
        Added to every code (e.g. 1 for codes where a missing value is -1).

    Returns
    -------
    key : int64 array
        A fresh array the caller owns.
    space : int
        The keys lie in ``0 .. space - 1``.
    """
    if not len(codes):
        raise ValueError("packed_key needs at least one column")
    key = np.zeros(len(codes[0]), dtype=np.int64)
    space = 1
    for column, radix in zip(codes, radices, strict=True):
        radix = max(int(radix), 1)
        if space * radix >= KEY_LIMIT:  # renumber the combinations so far: they fit
            found, distinct = factorize_keys(key)
            key, space = found.astype(np.int64, copy=False), len(distinct)
        push_digit(key, column, radix, offset)
        space *= radix
    return key, space


def push_digit(key: np.ndarray, codes: np.ndarray, radix: int, offset: int = 0) -> np.ndarray:
    """``key * radix + codes + offset``, computed in place in ``key`` (an int64 array the
    caller owns): one digit more of a mixed-radix key per row, without a temporary array per
    operation (a 10-million-row key of 7 columns packs in about a third of the time)."""
    np.multiply(key, radix, out=key)
    np.add(key, codes, out=key, casting="unsafe")
    if offset:
        np.add(key, offset, out=key)
    return key
