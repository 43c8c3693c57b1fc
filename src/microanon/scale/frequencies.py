"""The frequency table of a dask DataFrame: distinct combinations of codes (or values) and counts.

Each partition is reduced to its distinct combinations with their counts, and the partial tables
are summed pairwise up a tree (:meth:`dask.dataframe.Series.value_counts` over one packed int64
key per row, or ``groupby(...).size()`` when the codes do not fit one key). The result is small:
one row per distinct combination, in memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from .client import run_stage
from .encode import Encoding

__all__ = ["FrequencyTable", "code_frequencies", "pack_codes", "value_frequencies"]

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
    """

    columns: list[str]
    codes: dict[str, np.ndarray]
    counts: np.ndarray
    keys: np.ndarray | None = None

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
        key = key * radix + np.asarray(c, dtype=np.int64)
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
    progress: bool | None = None,
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
    progress : bool or None
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
    progress: bool | None = None,
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
    return FrequencyTable(columns, values, counted.to_numpy(dtype=np.int64))
