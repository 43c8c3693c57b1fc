"""Rolled-up frequency sets: the equivalence classes of a lattice node (Incognito's frequency sets).

The frequency set of a node lists the distinct combinations of the quasi-identifiers' level codes
(and of the sensitive code, when a model needs it) with the number of records holding each. It is
computed from the frequency set of any node below it ("rolled up"): each level code is mapped to
its ancestor's code with one array lookup per attribute and the rows are regrouped, which costs
time proportional to the (usually much smaller) rolled-up set, never to the table.

Grouping packs the code columns into one int64 key (mixed radix; when the radix product would
overflow, the partial key is first replaced by its dense rank). A key space at most a few times
the number of rows is grouped densely (a presence array and a cumulative sum); larger ones by
sorting (see :func:`group_keys`). When a roll-up's key space is that large, the rows are keyed
in one radix fixed by the leaf cardinalities instead: every frequency set keeps its classes' keys
(:attr:`FrequencySet.key`), and a roll-up only adds the shift of the attributes whose level
changes before sorting (see :func:`roll_up`). Both keys order the classes lexicographically by
their codes, so either way gives the same frequency set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.factorize import (
    KEY_LIMIT,
    code_counts,
    factorize_keys,
    few_distinct,
    first_rows,
    packed_key,
    radix_order,
)
from ...core.hierarchy import Hierarchy
from ...core.table import DENSE_FACTOR, DENSE_SLACK

__all__ = ["FrequencySet", "LevelMaps", "frequency_set", "group_keys", "rolled", "roll_up"]

#: Source/target pairs whose concatenated level maps :class:`LevelMaps` keeps.
_BETWEEN_CACHE = 4096
#: Below this many rows, numpy's one-call (un)ravelling of mixed-radix keys beats a loop of
#: array operations per attribute; above it the loop is faster.
_FEW_ROWS = 1024
#: Most attributes numpy's (un)ravelling takes (one dimension each: numpy 2 allows 64 at most,
#: numpy 1 32); more go through the loop, which takes any number.
_FEW_DIMS = 32


#: From this many rows, :func:`group_keys` hashes keys that repeat (see
#: :func:`~microanon.core.factorize.few_distinct`).
_HASH_ROWS = 1 << 17


def _dense_rank(key: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids ``0..n-1`` of the distinct values of ``key`` (any order) and their number."""
    ids, uniques = factorize_keys(key)
    return ids.astype(np.int64, copy=False), len(uniques)


def group_keys(
    key: np.ndarray, space: int, runs: bool = False
) -> tuple[np.ndarray, int, np.ndarray]:
    """Group equal keys; groups are numbered in ascending key order.

    A small key space is grouped densely (presence array and cumulative sum); many rows of
    repeated keys by a hash pass (only the distinct keys sorted: on ten million rows of 30,000
    keys, a tenth of the time of a sort); keys of at most 32 bits (48 for many rows) by a radix
    sort (:func:`~microanon.core.factorize.radix_order`: 0.45 ms where a comparison sort takes
    1.1 ms for 30,000 keys); otherwise the keys are sorted together with their row numbers
    packed into the low digits (one value sort, cheaper than an argsort), or, when that would
    overflow, by an argsort of the keys. With ``runs`` (the keys of a roll-up of a frequency set
    in ascending key order: ascending runs wherever the attributes that change level leave the
    order alone) the sort is numpy's stable one, which merges the runs it finds (timsort): on a
    lattice of ten quasi-identifiers, 0.4 ms where the default sort takes 1.8 ms for the same
    40,000 keys.

    Returns
    -------
    ids : (n,) int64 array
        Group of each row, ``0..n_groups-1``, in ascending key order.
    n_groups : int
    rep : (n_groups,) int64 array
        One row of each group.
    """
    n = len(key)
    if n == 0:
        return np.zeros(0, np.int64), 0, np.zeros(0, np.int64)
    if space <= DENSE_FACTOR * n + DENSE_SLACK:
        present = np.zeros(space, dtype=bool)
        present[key] = True
        rank = present.cumsum(dtype=np.int64) - 1
        ids = rank[key]
        n_groups = int(rank[-1]) + 1
        rep = np.empty(n_groups, dtype=np.int64)
        rep[ids] = np.arange(n, dtype=np.int64)
        return ids, n_groups, rep
    if n >= _HASH_ROWS and few_distinct(key):
        # hashed: only the distinct keys are sorted
        codes, uniques = factorize_keys(key)
        order = np.argsort(uniques, kind="stable")
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[order] = np.arange(len(uniques), dtype=np.int64)
        first = first_rows(codes, len(uniques)).astype(np.int64, copy=False)
        return rank.take(codes), len(uniques), first[order]
    order = None if runs else radix_order(key, space)
    if order is not None:
        return _sorted_groups(key.take(order), order)
    kind = "stable" if runs else None
    if space * n < KEY_LIMIT:
        packed = np.sort(key * n + np.arange(n, dtype=np.int64), kind=kind)
        sorted_key, rows = np.divmod(packed, n)
        return _sorted_groups(sorted_key, rows)
    # Any row of a group may stand for it, so the sort need not be stable: on keys in no
    # order, numpy's default argsort (vectorized where the CPU allows) is faster than the
    # stable one np.unique(return_index=True) needs.
    order = np.argsort(key, kind=kind)
    return _sorted_groups(key.take(order), order)


def _sorted_groups(sorted_key: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """:func:`group_keys`'s answer from the keys in ascending order and the row of each."""
    n = len(sorted_key)
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=start[1:])
    gid = start.cumsum(dtype=np.int64) - 1
    ids = np.empty(n, dtype=np.int64)
    ids[rows] = gid
    return ids, int(gid[-1]) + 1, rows[start]


class LevelMaps:
    """Code maps between the levels of each quasi-identifier's hierarchy.

    The map of attribute ``i`` from level ``a`` to level ``b >= a`` takes a level-``a`` code to
    the level-``b`` code of its ancestor (level codes are those of
    :meth:`Hierarchy.level_codes`); :meth:`between` and :meth:`deltas` give them per pair of
    nodes, as :func:`roll_up` uses them.
    """

    def __init__(self, hierarchies: Sequence[Hierarchy]) -> None:
        self.cards: list[np.ndarray] = []
        self._maps: list[dict[tuple[int, int], np.ndarray]] = []
        for h in hierarchies:
            codes = [h.level_codes(lv) for lv in range(h.n_levels)]
            cards = np.array([len(h.level_labels(lv)) for lv in range(h.n_levels)], np.int64)
            maps = {}
            for a in range(h.n_levels):
                for b in range(a, h.n_levels):
                    m = np.zeros(cards[a], dtype=np.int64)
                    m[codes[a]] = codes[b]
                    maps[(a, b)] = m
            self.cards.append(cards)
            self._maps.append(maps)
        self._cards = [c.tolist() for c in self.cards]
        leaves = [c[0] for c in self._cards]
        #: Weights of the fixed radix (leaf cardinalities: a key of any node's codes fits).
        self.weights = [math.prod(leaves[i + 1 :]) for i in range(len(leaves))]
        #: Size of the fixed radix's key space.
        self.space = math.prod(leaves)
        self._deltas: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}
        self._between: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}

    def card(self, attr: int, level: int) -> int:
        """Number of level-``level`` codes of attribute ``attr``."""
        return self._cards[attr][level]

    def deltas(
        self, source: tuple[int, ...], target: tuple[int, ...]
    ) -> list[tuple[int, np.ndarray]]:
        """What a row's fixed-radix key gains per source code of each attribute whose level
        changes: ``(up[c] - c) · weight``, as ``(attribute, gain by code)`` pairs."""
        key = (source, target)
        out = self._deltas.get(key)
        if out is None:
            out = []
            for i, (a, b) in enumerate(zip(source, target, strict=True)):
                if a != b:
                    m = self._maps[i][(a, b)]
                    out.append((i, (m - np.arange(len(m), dtype=np.int64)) * self.weights[i]))
            if len(self._deltas) < _BETWEEN_CACHE:
                self._deltas[key] = out
        return out

    def between(
        self, source: tuple[int, ...], target: tuple[int, ...]
    ) -> tuple[list[np.ndarray | None], list[int], int]:
        """Every attribute's code map from ``source`` to ``target`` levels, for :func:`roll_up`.

        Returns
        -------
        up : list of int64 arrays or None
            Attribute ``i``'s map from its source to its target codes (None: same level).
        cards : list of int
            Number of codes of each attribute at ``target``.
        space : int
            Size of the mixed-radix key space of the target's codes (product of ``cards``).
        """
        key = (source, target)
        out = self._between.get(key)
        if out is None:
            up = [
                None if a == b else self._maps[i][(a, b)]
                for i, (a, b) in enumerate(zip(source, target, strict=True))
            ]
            cards = [self._cards[i][b] for i, b in enumerate(target)]
            out = (up, cards, math.prod(cards))
            if len(self._between) < _BETWEEN_CACHE:
                self._between[key] = out
        return out


@dataclass
class FrequencySet:
    """The equivalence classes of one node, as distinct (level codes, sensitive code) rows.

    Attributes
    ----------
    levels : (q,) int array
        The node.
    codes : (q, n) int64 array
        Level code of each row: row ``i`` holds those of the ``i``-th quasi-identifier.
    sa : int64 array or None
        Sensitive code of each row (rows are distinct (class, sensitive value) pairs), or None
        when no model needs the sensitive attribute (rows are then the classes).
    counts : int64 array
        Records per row.
    cls : int64 array
        Class of each row, ``0..n_classes-1``.
    sizes : int64 array
        Records per class.
    n_distinct : int64 array or None
        Distinct sensitive values per class (with ``sa``).
    key : int64 array or None
        The class of each row as one key in the fixed radix of :class:`LevelMaps` (each
        attribute weighted by the leaf cardinalities after it, whatever the node's levels);
        None until a roll-up needs it.
    """

    levels: np.ndarray
    codes: np.ndarray
    sa: np.ndarray | None
    counts: np.ndarray
    cls: np.ndarray
    sizes: np.ndarray
    n_distinct: np.ndarray | None
    key: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def n_classes(self) -> int:
        """Number of equivalence classes."""
        return len(self.sizes)


def frequency_set(
    levels: np.ndarray,
    codes: Sequence[np.ndarray],
    cards: Sequence[int],
    counts: np.ndarray | None,
    sa: np.ndarray | None,
    n_sa: int,
    runs: bool = False,
) -> tuple[FrequencySet, np.ndarray]:
    """Group rows of level codes (with weights ``counts``) into the frequency set of a node.

    Parameters
    ----------
    levels : the node
    codes : level codes of each input row, one array per quasi-identifier (of any integer
        type: they are not copied)
    cards : number of level codes of each quasi-identifier at the node
    counts : records per input row, or None for one record each
    sa : sensitive code per input row (of any integer type), or None
    n_sa : number of sensitive codes
    runs : whether the rows come from a frequency set in ascending key order (see
        :func:`group_keys`)

    Returns
    -------
    FrequencySet
    row_of_input : (n_input,) int64 array
        The frequency-set row of every input row.
    """
    qkey, space = packed_key(codes, cards)
    return _grouped(levels, codes, qkey, space, counts, sa, n_sa, runs=runs)


def _grouped(
    levels: np.ndarray,
    codes: Any,
    qkey: np.ndarray,
    space: int,
    counts: np.ndarray | None,
    sa: np.ndarray | None,
    n_sa: int,
    fixed: bool = False,
    runs: bool = False,
) -> tuple[FrequencySet, np.ndarray]:
    """The frequency set of rows whose quasi-identifier key (of a ``space``) is ``qkey``.

    Classes are numbered in ascending key order; with ``fixed`` (``qkey`` in the fixed radix
    of :class:`LevelMaps`) the frequency set keeps its rows' keys; ``runs`` as
    :func:`group_keys` takes it.
    """
    if sa is None:
        ids, n, rep = group_keys(qkey, space, runs)
        new_codes = _take_columns(codes, rep)
        new_counts = records_per(ids, counts, n)
        fs = FrequencySet(
            np.asarray(levels),
            new_codes,
            None,
            new_counts,
            np.arange(n, dtype=np.int64),
            new_counts,
            None,
            qkey[rep] if fixed else None,
        )
        return fs, ids
    if space * max(n_sa, 1) >= KEY_LIMIT:
        qkey, space = _dense_rank(qkey)
        fixed = False
    ids, n, rep = group_keys(qkey * n_sa + sa, space * n_sa, runs)
    new_counts = records_per(ids, counts, n)
    class_key = qkey[rep]
    taken = sa.take(rep).astype(np.int64, copy=False)
    fs = _with_classes(levels, _take_columns(codes, rep), taken, new_counts, class_key)
    fs.key = class_key if fixed else None
    return fs, ids


def _with_classes(
    levels: np.ndarray,
    codes: np.ndarray,
    sa: np.ndarray,
    counts: np.ndarray,
    class_key: np.ndarray,
) -> FrequencySet:
    """The frequency set of distinct (class, sensitive code) rows in ascending key order.

    A class is a run of equal ``class_key``: its number, size and distinct sensitive values
    follow from the runs.
    """
    n = len(class_key)
    change = np.empty(n, dtype=bool)
    change[:1] = True
    np.not_equal(class_key[1:], class_key[:-1], out=change[1:])
    cls = change.cumsum(dtype=np.int64) - 1
    n_cls = int(cls[-1]) + 1 if n else 0
    return FrequencySet(
        np.asarray(levels),
        codes,
        sa,
        counts,
        cls,
        np.bincount(cls, weights=counts, minlength=n_cls).astype(np.int64),
        np.bincount(cls, minlength=n_cls).astype(np.int64, copy=False),
    )


def records_per(codes: np.ndarray, counts: np.ndarray | None, size: int) -> np.ndarray:
    """Records per code ``0 .. size - 1`` as int64 (``counts``: records per row, None for one
    each)."""
    if counts is None:
        return code_counts(codes, size)
    return np.bincount(codes, weights=counts, minlength=size).astype(np.int64)


def _take_columns(codes: Any, rows: np.ndarray) -> np.ndarray:
    """The given rows of code columns, as a (q, len(rows)) int64 array."""
    if isinstance(codes, _Mapped):
        return codes.take(rows)
    if isinstance(codes, np.ndarray) and codes.ndim == 2:
        return codes.take(rows, axis=1).astype(np.int64, copy=False)
    out = np.empty((len(codes), len(rows)), dtype=np.int64)
    for i, c in enumerate(codes):
        out[i] = np.asarray(c).take(rows)
    return out


def roll_up(
    fs: FrequencySet, target: np.ndarray, maps: LevelMaps, n_sa: int
) -> tuple[FrequencySet, np.ndarray]:
    """The frequency set of ``target`` (a node above ``fs.levels``) from ``fs``.

    Each row's key at ``target`` is built in mixed radix (Horner's scheme) from one lookup per
    attribute whose level changes (:meth:`LevelMaps.between`); the rows are regrouped by that
    key and only the representatives' codes are mapped up.
    """
    source = tuple(fs.levels.tolist())
    levels = tuple(np.asarray(target).tolist())
    up, cards, space = maps.between(source, levels)
    n = len(fs.counts)
    sa_radix = max(n_sa, 1) if fs.sa is not None else 1
    if space * sa_radix > DENSE_FACTOR * n + DENSE_SLACK and maps.space * sa_radix < KEY_LIMIT:
        # A large key space is grouped by sorting anyway: sort keys of the fixed radix, which
        # only the attributes whose level changes alter.
        if fs.key is None:
            fs.key = _fixed_key(fs.codes, maps.weights)
        qkey = fs.key
        changes = maps.deltas(source, levels)
        if changes:
            qkey = qkey.copy()
            for i, gain in changes:
                qkey += gain.take(fs.codes[i])
        mapped = _Mapped(up, fs.codes)
        return _grouped(
            target, mapped, qkey, maps.space, fs.counts, fs.sa, n_sa, fixed=True, runs=True
        )
    if space >= KEY_LIMIT:
        codes = [c if m is None else m[c] for m, c in zip(up, fs.codes, strict=True)]
        return frequency_set(target, codes, cards, fs.counts, fs.sa, n_sa, runs=True)
    qkey = _target_key(up, fs.codes, cards)
    return _grouped(target, _Mapped(up, fs.codes), qkey, space, fs.counts, fs.sa, n_sa, runs=True)


def rolled(fs: FrequencySet, target: np.ndarray, maps: LevelMaps, n_sa: int) -> FrequencySet:
    """The frequency set of ``target`` from ``fs``, as :func:`roll_up` without the row map.

    Every row of ``fs`` must hold at least one record (a class is a key with a positive count).
    With a small key space (of the target's classes, times the sensitive codes when ``fs`` has
    them), the rows are counted with one weighted bincount over the target's keys, and the codes
    are decoded from the keys present: no grouping of the rows, no representative rows. The keys
    present come in ascending order, so rows and classes are numbered as :func:`roll_up` numbers
    them. When only the classes' key space is small, the classes present are numbered densely
    first (in ascending key order) and the (class, sensitive code) pairs counted over those
    numbers.
    """
    source = tuple(fs.levels.tolist())
    levels = tuple(np.asarray(target).tolist())
    up, cards, space = maps.between(source, levels)
    sa_radix = max(n_sa, 1) if fs.sa is not None else 1
    dense = DENSE_FACTOR * len(fs.counts) + DENSE_SLACK
    if space * sa_radix > dense:
        if fs.sa is not None and space <= dense:
            key = _target_key(up, fs.codes, cards)
            out = _rolled_by_class(fs, target, key, cards, space, sa_radix, dense)
            if out is not None:
                return out
        return roll_up(fs, target, maps, n_sa)[0]
    key = _target_key(up, fs.codes, cards)
    if fs.sa is not None:
        key *= sa_radix
        key += fs.sa
    per_key = np.bincount(key, weights=fs.counts, minlength=space * sa_radix)
    keys = per_key.nonzero()[0]
    counts = per_key[keys].astype(np.int64)
    if fs.sa is None:
        cls = np.arange(len(keys), dtype=np.int64)
        return FrequencySet(
            np.asarray(target), _decoded(keys, cards), None, counts, cls, counts, None
        )
    class_key, sa = np.divmod(keys, sa_radix)
    return _with_classes(target, _decoded(class_key, cards), sa, counts, class_key)


def _rolled_by_class(
    fs: FrequencySet,
    target: np.ndarray,
    key: np.ndarray,
    cards: Sequence[int],
    space: int,
    sa_radix: int,
    dense: int,
) -> FrequencySet | None:
    """:func:`rolled` of a set with sensitive codes whose target classes' keys (``key``, in a
    ``space`` at most ``dense``) are numbered densely before the pairs are counted; None when
    even the pairs of those numbers span more than ``dense``."""
    present = np.zeros(space, dtype=bool)
    present[key] = True
    class_keys = present.nonzero()[0]  # ascending
    n_classes = len(class_keys)
    if n_classes * sa_radix > dense:
        return None
    number = np.empty(space, dtype=np.int64)  # (read only where a class is present)
    number[class_keys] = np.arange(n_classes, dtype=np.int64)
    pair = number.take(key) * sa_radix + fs.sa
    per_pair = np.bincount(pair, weights=fs.counts, minlength=n_classes * sa_radix)
    pairs = per_pair.nonzero()[0]
    counts = per_pair[pairs].astype(np.int64)
    cls, sa = np.divmod(pairs, sa_radix)
    class_key = class_keys.take(cls)
    return _with_classes(target, _decoded(class_key, cards), sa, counts, class_key)


def _decoded(keys: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """The codes of mixed-radix keys (radices ``cards``), as a (q, len(keys)) int64 array.

    An attribute with one code (at its top level) is 0 without arithmetic.
    """
    if len(keys) < _FEW_ROWS and len(cards) <= _FEW_DIMS:
        return np.array(np.unravel_index(keys, cards), dtype=np.int64).reshape(len(cards), -1)
    codes = np.zeros((len(cards), len(keys)), dtype=np.int64)
    varying = [i for i, card in enumerate(cards) if card > 1]
    if not varying:
        return codes
    rest = keys
    for i in varying[:0:-1]:
        rest, codes[i] = np.divmod(rest, cards[i])
    codes[varying[0]] = rest
    return codes


def _target_key(
    up: Sequence[np.ndarray | None], codes: np.ndarray, cards: Sequence[int]
) -> np.ndarray:
    """Each row's key at the target levels, in mixed radix ``cards`` (Horner's scheme).

    ``up[i]`` maps attribute ``i``'s codes to the target level (``None``: unchanged). An
    attribute with one code at the target (its top level) adds nothing, so it is skipped.
    """
    varying = [i for i, card in enumerate(cards) if card > 1]
    if not varying:
        return np.zeros(codes.shape[1], dtype=np.int64)
    if codes.shape[1] < _FEW_ROWS and len(varying) <= _FEW_DIMS:
        mapped = tuple(codes[i] if up[i] is None else up[i].take(codes[i]) for i in varying)
        radices = [cards[i] for i in varying]
        return np.ravel_multi_index(mapped, radices).astype(np.int64, copy=False)
    first = varying[0]
    qkey = codes[first].copy() if up[first] is None else up[first].take(codes[first])
    for i in varying[1:]:
        qkey *= cards[i]
        qkey += codes[i] if up[i] is None else up[i].take(codes[i])
    return qkey


def _fixed_key(codes: np.ndarray, weights: Sequence[int]) -> np.ndarray:
    """Each row's codes as one key in the fixed radix of :class:`LevelMaps`."""
    key = codes[0] * weights[0]
    for c, w in zip(codes[1:], weights[1:], strict=True):
        key += c * w
    return key


class _Mapped:
    """Source codes and the maps up to the target's (see :func:`roll_up`): only the rows kept
    are mapped."""

    def __init__(self, up: list[np.ndarray | None], codes: np.ndarray) -> None:
        self.up = up
        self.codes = codes

    def take(self, rows: np.ndarray) -> np.ndarray:
        # One take along the rows beats fancy indexing; a map's take into a fresh array beats
        # one in place.
        out = self.codes.take(rows, axis=1)
        for i, m in enumerate(self.up):
            if m is not None:
                out[i] = m.take(out[i])
        return out
