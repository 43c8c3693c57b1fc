"""The frequency table of a dask DataFrame: distinct combinations of codes (or values) and counts.

Each partition is reduced to its distinct combinations with their counts, and the partial tables
are summed pairwise up a tree (:meth:`dask.dataframe.Series.value_counts` over one packed int64
key per row, or ``groupby(...).size()`` when the codes do not fit one key). The result is small:
one row per distinct combination, in memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..core.factorize import factorize_keys
from ..core.progress import ProgressLike
from ..core.reading import unpadded
from .client import run_stage
from .encoding import Encoding

__all__ = [
    "FrequencyTable",
    "code_frequencies",
    "count_combinations",
    "pack_codes",
    "tree_reduce",
    "value_frequencies",
]

#: Partial tables summed at each step of the tree reduction.
SPLIT_EVERY = 8


@dataclass(frozen=True)
class FrequencyTable:
    """Distinct combinations and how many records hold each.

    Attributes
    ----------
    columns : list of str
    codes : dict of str to int64 array
        Code (or, for :func:`value_frequencies`, value) of each combination, per column.
    counts : int64 array
        Records per combination.
    keys : int64 array or None
        The packed key of each combination (:func:`pack_codes`), ascending, when the codes fit
        one int64 key.
    sums : dict of str to float array
        Per combination, sums over its records (a sampling weight counted by class:
        :mod:`microanon.measures.weight_classes`).
    """

    columns: list[str]
    codes: dict[str, np.ndarray]
    counts: np.ndarray
    keys: np.ndarray | None = None
    sums: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def records(self) -> int:
        """Records the table summarizes."""
        return int(self.counts.sum())


def radices(cards: Sequence[int]) -> list[int] | None:
    """Mixed radices of the packed key, or None when their product overflows int64."""
    r = [max(int(c), 1) for c in cards]
    return r if math.prod(r) <= np.iinfo(np.int64).max else None


def pack_codes(codes: Sequence[np.ndarray], cards: Sequence[int]) -> np.ndarray:
    """One int64 key per row: the codes as the digits of a mixed-radix number."""
    r = radices(cards)
    if r is None:
        raise ValueError("the codes do not fit one int64 key")
    key = np.zeros(len(codes[0]) if len(codes) else 0, dtype=np.int64)
    for c, radix in zip(codes, r, strict=True):
        key *= radix
        key += c  # in place: no temporary array per column
    return key


def unpack_keys(keys: np.ndarray, cards: Sequence[int]) -> list[np.ndarray]:
    """The codes behind packed keys (the inverse of :func:`pack_codes`)."""
    r = radices(cards)
    out = []
    rest = np.asarray(keys, dtype=np.int64)
    for radix in reversed(r or []):
        out.append(rest % radix)
        rest = rest // radix
    return out[::-1]


def count_combinations(
    codes: Sequence[np.ndarray],
    cards: Sequence[int],
    weights: np.ndarray | None = None,
    inverse: bool = False,
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray | None]:
    """The distinct combinations of ``codes`` (one array per column), each with its count.

    One hash pass over a packed int64 key per row (a hash over the codes when they do not fit
    one key); combinations in order of first appearance.

    Parameters
    ----------
    codes : sequence of int arrays
        Codes of each column, ``0 <= code < card``.
    cards : sequence of int
    weights : int array, optional
        Count of each row (default 1): partial tables are merged with their counts.
    inverse : bool
        Also return the combination of each row (int32 when it fits).

    Returns
    -------
    combos : list of int64 arrays
        Codes of each combination, per column.
    counts : int64 array
    inverse : int array or None
    """
    if radices(cards) is not None:
        inv, uniq = factorize_keys(pack_codes(codes, cards))
        combos = unpack_keys(np.asarray(uniq, dtype=np.int64), cards)
    else:
        inv, uniq = pd.factorize(pd.MultiIndex.from_arrays(list(codes)))
        combos = [uniq.get_level_values(i).to_numpy(np.int64) for i in range(len(codes))]
    n = len(combos[0]) if combos else 0
    if weights is None:
        counts = np.bincount(inv, minlength=n).astype(np.int64)
    else:
        # float64 sums are exact below 2**53 records
        summed = np.bincount(inv, weights=np.asarray(weights, dtype=np.float64), minlength=n)
        counts = np.rint(summed).astype(np.int64)
    if not inverse:
        return combos, counts, None
    small = np.int32 if n < np.iinfo(np.int32).max else np.int64
    return combos, counts, inv.astype(small, copy=False)


def merge_partial(parts: Sequence[tuple[Any, np.ndarray]], cards: Sequence[int]):
    """Sum partial frequency tables ``(combos, counts)`` over the same global codes.

    ``combos`` is one packed int64 key per combination when the codes fit one key (what
    :func:`global_partial` gives then: one array moves between workers, not one per column),
    else a list of code arrays, one per column.
    """
    parts = [p for p in parts if len(p[1])] or list(parts[:1])
    if len(parts) == 1:
        return parts[0]
    counts = np.concatenate([p[1] for p in parts])
    if isinstance(parts[0][0], np.ndarray):
        inv, keys = factorize_keys(np.concatenate([p[0] for p in parts]))
        summed = np.bincount(inv, weights=counts.astype(np.float64), minlength=len(keys))
        return np.asarray(keys, dtype=np.int64), np.rint(summed).astype(np.int64)
    codes = [np.concatenate([p[0][i] for p in parts]) for i in range(len(cards))]
    combos, total, _ = count_combinations(codes, cards, weights=counts)
    return combos, total


def global_partial(
    part: Any, maps: Mapping[str, np.ndarray], columns: Sequence[str], cards: Sequence[int]
) -> tuple[Any, np.ndarray]:
    """A partition's local frequency table (an :class:`~.encode.Encoded`) in global codes.

    Packed into one int64 key per combination when the codes fit one key.
    """
    codes = [maps[c][part.combos[c]] for c in columns]
    if radices(cards) is not None:
        return pack_codes(codes, cards), part.counts
    return codes, part.counts


def tree_reduce(client: Any, futures: Sequence[Any], cards: Sequence[int], split_every: int):
    """Merge partial tables (futures) pairwise up a tree on the cluster: one future."""
    level = list(futures)
    while len(level) > 1:
        level = [
            client.submit(merge_partial, level[i : i + split_every], list(cards), pure=False)
            for i in range(0, len(level), split_every)
        ]
    return level[0]


def sorted_table(
    columns: Sequence[str], combos: Any, counts: np.ndarray, cards: Sequence[int]
) -> FrequencyTable:
    """A :class:`FrequencyTable` with its combinations in ascending order of their codes.

    ``combos``: packed keys or code arrays, as :func:`merge_partial` gives them.
    """
    columns = list(columns)
    if isinstance(combos, np.ndarray):
        order = np.argsort(combos, kind="stable")
        keys = np.asarray(combos[order], dtype=np.int64)
        codes = dict(zip(columns, unpack_keys(keys, cards), strict=True))
        return FrequencyTable(columns, codes, np.asarray(counts[order], dtype=np.int64), keys)
    order = np.lexsort(combos[::-1])
    codes = {c: np.asarray(combos[i][order], dtype=np.int64) for i, c in enumerate(columns)}
    return FrequencyTable(columns, codes, np.asarray(counts[order], dtype=np.int64))


def _keys(part: pd.DataFrame, encoding: Encoding, columns: list[str], cards: list[int]):
    codes = encoding.codes(part)
    return pd.Series(pack_codes([codes[c] for c in columns], cards), dtype=np.int64, name="key")


def _code_frame(part: pd.DataFrame, encoding: Encoding, columns: list[str]) -> pd.DataFrame:
    codes = encoding.codes(part)
    return pd.DataFrame({c: codes[c].astype(np.int64) for c in columns})


def code_frequencies(
    cleaned: dd.DataFrame,
    encoding: Encoding,
    columns: Sequence[str],
    client: Any,
    progress: ProgressLike = None,
    split_every: int = SPLIT_EVERY,
) -> FrequencyTable:
    """The frequency table of the codes of ``columns``.

    Parameters
    ----------
    cleaned : dask.dataframe.DataFrame
        The cleaned data (see :func:`microanon.scale.encode.encode_dataset`).
    encoding : Encoding
    columns : sequence of str
        Encoded columns, in the order of the combinations.
    client : distributed.Client
    progress : Progress, bool, str or None
    split_every : int
        Partial tables summed at each step of the tree reduction.

    Returns
    -------
    FrequencyTable
        Combinations in ascending order of their codes (lexicographic in ``columns``).
    """
    columns = list(columns)
    cards = [encoding.cardinality(c) for c in columns]
    if radices(cards) is not None:
        keys = cleaned.map_partitions(
            _keys, encoding, columns, cards, meta=pd.Series([], dtype=np.int64, name="key")
        )
        (counted,) = run_stage(
            client,
            "frequency table",
            [keys.value_counts(split_every=split_every, split_out=1)],
            progress,
        )
        counted = counted.sort_index()
        key = counted.index.to_numpy(dtype=np.int64)
        codes = dict(zip(columns, unpack_keys(key, cards), strict=True))
        return FrequencyTable(columns, codes, counted.to_numpy(dtype=np.int64), key)
    meta = pd.DataFrame({c: pd.Series([], dtype=np.int64) for c in columns})
    frame = cleaned.map_partitions(_code_frame, encoding, columns, meta=meta)
    (counted,) = run_stage(
        client,
        "frequency table",
        [frame.groupby(columns).size(split_every=split_every, split_out=1)],
        progress,
    )
    counted = counted.sort_index()
    index = counted.index
    codes = {c: index.get_level_values(c).to_numpy(dtype=np.int64) for c in columns}
    return FrequencyTable(columns, codes, counted.to_numpy(dtype=np.int64))


def value_frequencies(
    frame: dd.DataFrame,
    columns: Sequence[str],
    client: Any,
    progress: ProgressLike = None,
    split_every: int = SPLIT_EVERY,
) -> FrequencyTable:
    """The frequency table of the values of ``columns`` (e.g. of a written release).

    ``codes`` then holds the values of each combination (object arrays); missing values form
    combinations of their own.
    """
    columns = list(columns)
    grouped = frame[columns].groupby(columns, dropna=False, sort=False)
    (counted,) = run_stage(
        client, "frequency table", [grouped.size(split_every=split_every, split_out=1)], progress
    )
    index = counted.index
    if not isinstance(index, pd.MultiIndex):
        index = pd.MultiIndex.from_arrays([index], names=columns)
    values = {c: np.asarray(index.get_level_values(c), dtype=object) for c in columns}
    counts = counted.to_numpy(dtype=np.int64)
    # the spaces around a text value are no part of it, as the in-memory engine reads a file:
    # combinations that differ by them alone are one ('WT      ' and 'WT')
    shown = pd.DataFrame(values, columns=columns)
    plain = unpadded(shown.copy())
    if all(plain[c] is shown[c] or plain[c].equals(shown[c]) for c in columns):
        return FrequencyTable(columns, values, counts)
    keys = [plain[c] for c in columns]
    merged = pd.Series(counts).groupby(keys, dropna=False, sort=False).sum()
    index = merged.index
    if not isinstance(index, pd.MultiIndex):
        index = pd.MultiIndex.from_arrays([index], names=columns)
    values = {c: np.asarray(index.get_level_values(c), dtype=object) for c in columns}
    return FrequencyTable(columns, values, merged.to_numpy(dtype=np.int64))
