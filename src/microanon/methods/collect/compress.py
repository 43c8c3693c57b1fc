"""The collected set as tuple–count pairs, grown incrementally, with two compact encodings.

The server of a data collection keeps the multiset ``G`` of submitted (generalized) tuples and sends
it to every new respondent (the server-side compression of Zhang & Zhang, DaWaK 2008).
:class:`CollectedSet` stores it as tuple–count pairs over the integer codes of a
:class:`~.taxonomy.Survey`: a new submission increments the count of its tuple or appends a pair,
and bumps :attr:`CollectedSet.version` (so a client can say which state its answer was computed
against).

Codes make tuples integer vectors, totally ordered lexicographically (the first attribute most
significant). Two encodings follow:

* **index** — each tuple as its rank in that order, the mixed-radix number
  ``Σ_j code_j · Π_{k>j} n_k`` (``n_k`` = number of nodes of attribute ``k``): a numpy ``uint64``
  when ``Π n_k ≤ 2^64``, a Python ``int`` otherwise; stored in ``⌈log2 Π n_k⌉`` bits rounded up
  to whole bytes;
* **bits** — the codes bit-packed, ``⌈log2 n_k⌉`` bits for attribute ``k``, tuples back to back
  in one bit stream.

:meth:`CollectedSet.to_bytes` writes a small header (format, cardinalities, number of pairs,
version), the tuples in either encoding, then the counts in the smallest of 1, 2, 4 or 8 bytes
that holds the largest; :meth:`CollectedSet.from_bytes` inverts it exactly (same pairs, same
order, same version).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from .taxonomy import Survey

__all__ = [
    "ENCODINGS",
    "CollectedSet",
    "decode_index",
    "encode_index",
    "pack_bits",
    "unpack_bits",
]

ENCODINGS: tuple[str, ...] = ("index", "bits")
"""Names of the tuple encodings of :meth:`CollectedSet.to_bytes`."""

_MAGIC = b"MACS"
_FORMAT = 1
_HEAD = struct.Struct("<4sBBH")  # magic, format, encoding, number of attributes
_TAIL = struct.Struct("<QQB")  # pairs, version, count width


def _strides(cardinalities: Sequence[int]) -> list[int]:
    """Mixed-radix place values, the last attribute least significant (Python ints)."""
    out = [1] * len(cardinalities)
    for j in range(len(cardinalities) - 2, -1, -1):
        out[j] = out[j + 1] * int(cardinalities[j + 1])
    return out


def _fits_uint64(cardinalities: Sequence[int]) -> bool:
    return math.prod(int(c) for c in cardinalities) <= 2**64


def encode_index(survey: Survey, codes: np.ndarray) -> np.ndarray:
    """Rank of each tuple (row of codes) in the lexicographic order of the code space.

    Returns
    -------
    ndarray
        ``uint64`` when the code space has at most 2^64 points, else an object array of Python
        integers.
    """
    codes = survey.check_codes(codes)
    card = survey.cardinalities
    strides = _strides(card)
    if _fits_uint64(card):
        out = np.zeros(len(codes), dtype=np.uint64)
        for j, s in enumerate(strides):
            out += codes[:, j].astype(np.uint64) * np.uint64(s)
        return out
    rows = codes.tolist()
    return np.array(
        [sum(c * s for c, s in zip(r, strides, strict=True)) for r in rows], dtype=object
    )


def decode_index(survey: Survey, keys: np.ndarray) -> np.ndarray:
    """Inverse of :func:`encode_index`: the code matrix of the ranks ``keys``."""
    card = survey.cardinalities
    total = math.prod(card)
    keys = np.asarray(keys)
    out = np.empty((len(keys), len(card)), dtype=np.int64)
    if _fits_uint64(card):
        k = keys.astype(np.uint64)
        if len(k) and int(k.max()) >= total:
            raise InputError(f"index {int(k.max())} is outside the code space (size {total})")
        for j in range(len(card) - 1, -1, -1):
            out[:, j] = (k % np.uint64(card[j])).astype(np.int64)
            k = k // np.uint64(card[j])
        return out
    for i, key in enumerate(keys.tolist()):
        key = int(key)
        if not 0 <= key < total:
            raise InputError(f"index {key} is outside the code space (size {total})")
        for j in range(len(card) - 1, -1, -1):
            key, out[i, j] = divmod(key, card[j])
    return out


def _bits(cardinalities: Sequence[int]) -> list[int]:
    """Bits per attribute: ``⌈log2 n⌉`` (0 for a one-node taxonomy)."""
    return [(int(c) - 1).bit_length() for c in cardinalities]


def pack_bits(survey: Survey, codes: np.ndarray) -> bytes:
    """The codes bit-packed: ``⌈log2 n_k⌉`` bits per attribute, most significant bit first."""
    codes = survey.check_codes(codes)
    cols = []
    for j, b in enumerate(_bits(survey.cardinalities)):
        shifts = np.arange(b - 1, -1, -1, dtype=np.int64)
        cols.append(((codes[:, j : j + 1] >> shifts) & 1).astype(np.uint8))
    matrix = np.hstack(cols) if cols else np.zeros((len(codes), 0), dtype=np.uint8)
    return np.packbits(matrix.ravel()).tobytes()


def unpack_bits(survey: Survey, data: bytes, n: int) -> np.ndarray:
    """Inverse of :func:`pack_bits` for ``n`` tuples."""
    bits = _bits(survey.cardinalities)
    width = sum(bits)
    need = (n * width + 7) // 8
    if len(data) < need:
        raise InputError(f"bit-packed tuples: expected {need} bytes, got {len(data)}")
    flat = np.unpackbits(np.frombuffer(data, dtype=np.uint8, count=need), count=n * width)
    matrix = flat.reshape(n, width).astype(np.int64)
    out = np.empty((n, len(bits)), dtype=np.int64)
    pos = 0
    for j, b in enumerate(bits):
        weights = np.left_shift(1, np.arange(b - 1, -1, -1, dtype=np.int64))
        out[:, j] = matrix[:, pos : pos + b] @ weights if b else 0
        pos += b
    return out


def _count_width(counts: np.ndarray) -> int:
    top = int(counts.max()) if len(counts) else 0
    return next(w for w in (1, 2, 4, 8) if top < 2 ** (8 * w))


class CollectedSet:
    """The multiset of collected tuples of a survey, as tuple–count pairs in arrival order.

    Parameters
    ----------
    survey : Survey
        Fixes the attributes and the code spaces.

    Attributes
    ----------
    survey : Survey
    version : int
        Number of changes so far (each :meth:`add` or non-empty :meth:`extend` adds 1).

    Examples
    --------
    >>> from microanon.core import Hierarchy
    >>> age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"]}})
    >>> dis = Hierarchy.from_nested({"AnyD": {"Resp": ["Flu", "Cold"]}})
    >>> g = CollectedSet(Survey({"age": age, "dis": dis}, ["age"], "dis"))
    >>> g.add(["20-29", "Resp"]); g.add(["20-29", "Resp"]); g.add(["Any", "Flu"])
    0
    0
    1
    >>> len(g), g.total, g.version
    (2, 3, 3)
    >>> CollectedSet.from_bytes(g.survey, g.to_bytes()) == g
    True
    """

    def __init__(self, survey: Survey) -> None:
        if not isinstance(survey, Survey):
            raise InputError(f"a collected set needs a Survey, got {type(survey).__name__}")
        self.survey = survey
        self.version = 0
        m = survey.n_attributes
        self._cols = np.zeros((m, 16), dtype=np.int64)
        self._counts = np.zeros(16, dtype=np.int64)
        self._n = 0
        self._row_of: dict[int, int] = {}
        self._strides = _strides(survey.cardinalities)

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        """Number of distinct tuples (pairs)."""
        return self._n

    @property
    def total(self) -> int:
        """Number of collected tuples, with multiplicity."""
        return int(self._counts[: self._n].sum())

    @property
    def columns(self) -> np.ndarray:
        """Codes as an (attributes, pairs) array, one contiguous row per attribute (read-only)."""
        view = self._cols[:, : self._n]
        view.flags.writeable = False
        return view

    @property
    def codes(self) -> np.ndarray:
        """Codes as a (pairs, attributes) array (read-only view)."""
        return self.columns.T

    @property
    def counts(self) -> np.ndarray:
        """Count of each pair (read-only view)."""
        view = self._counts[: self._n]
        view.flags.writeable = False
        return view

    def pairs(self) -> list[tuple[tuple[Any, ...], int]]:
        """The pairs as ``(labels, count)``, in arrival order."""
        return [
            (self.survey.decode(c), int(n)) for c, n in zip(self.codes, self.counts, strict=True)
        ]

    def to_frame(self, expand: bool = False) -> pd.DataFrame:
        """Labels by attribute and a ``count`` column; ``expand=True`` gives one row per tuple."""
        data = {}
        for j, tx in enumerate(self.survey.taxonomies):
            labels = np.array([tx.label(c) for c in range(tx.n_nodes)], dtype=object)
            col = labels[self.columns[j]]
            data[tx.name] = np.repeat(col, self.counts) if expand else col
        if not expand:
            data["count"] = self.counts.copy()
        return pd.DataFrame(data)

    def index(self) -> np.ndarray:
        """Each pair's tuple as its rank in the code space (see :func:`encode_index`)."""
        return encode_index(self.survey, self.codes)

    # ------------------------------------------------------------------ growth
    def _key(self, codes: Sequence[int]) -> int:
        return sum(int(c) * s for c, s in zip(codes, self._strides, strict=True))

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        cap = self._counts.shape[0]
        if need <= cap:
            return
        cap = max(need, 2 * cap)
        cols = np.zeros((self._cols.shape[0], cap), dtype=np.int64)
        cols[:, : self._n] = self._cols[:, : self._n]
        counts = np.zeros(cap, dtype=np.int64)
        counts[: self._n] = self._counts[: self._n]
        self._cols, self._counts = cols, counts

    def add(self, t: Sequence[Any] | Mapping[str, Any], count: int = 1) -> int:
        """Add a tuple given by labels; returns the row of its pair."""
        return self.add_codes(self.survey.encode(t), count)

    def add_codes(self, codes: Sequence[int] | np.ndarray, count: int = 1) -> int:
        """Add a tuple given by codes; returns the row of its pair."""
        row = self.survey.check_codes(np.asarray(codes))
        if row.shape[0] != 1:
            raise InputError("add_codes takes one tuple; use extend_codes for several")
        count = _check_count(count)
        key = self._key(row[0])
        at = self._row_of.get(key)
        if at is None:
            self._reserve(1)
            at = self._n
            self._cols[:, at] = row[0]
            self._row_of[key] = at
            self._n += 1
        self._counts[at] += count
        self.version += 1
        return at

    def extend(
        self,
        tuples: Iterable[Sequence[Any] | Mapping[str, Any]],
        counts: Sequence[int] | None = None,
    ) -> None:
        """Add several tuples given by labels (optionally with counts)."""
        rows = [self.survey.encode(t) for t in tuples]
        codes = np.vstack(rows) if rows else np.zeros((0, self.survey.n_attributes), np.int64)
        self.extend_codes(codes, counts)

    def extend_codes(self, codes: np.ndarray, counts: Sequence[int] | None = None) -> None:
        """Add several tuples given by a code matrix (optionally with counts), vectorized."""
        codes = self.survey.check_codes(codes)
        n = len(codes)
        if counts is None:
            cnt = np.ones(n, dtype=np.int64)
        else:
            cnt = np.asarray(counts)
            if cnt.shape != (n,) or (n and not np.issubdtype(cnt.dtype, np.integer)):
                raise InputError(f"counts must be {n} integers, one per tuple")
            if n and cnt.min() < 1:
                raise InputError("counts must be positive")
            cnt = cnt.astype(np.int64)
        if n == 0:
            return
        keys = encode_index(self.survey, codes)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        summed = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(summed, inverse.ravel(), cnt)
        order = np.argsort(first, kind="stable")  # first-appearance order
        ukeys = [int(k) for k in uniq[order].tolist()]
        rows = np.array([self._row_of.get(k, -1) for k in ukeys], dtype=np.int64)
        summed = summed[order]
        old = rows >= 0
        np.add.at(self._counts, rows[old], summed[old])
        new = np.flatnonzero(~old)
        self._reserve(len(new))
        at = np.arange(self._n, self._n + len(new))
        self._cols[:, at] = codes[first[order][new]].T
        self._counts[at] = summed[new]
        self._row_of.update(zip([ukeys[i] for i in new.tolist()], at.tolist(), strict=True))
        self._n += len(new)
        self.version += 1

    @classmethod
    def from_tuples(
        cls,
        survey: Survey,
        tuples: Iterable[Sequence[Any] | Mapping[str, Any]],
        counts: Sequence[int] | None = None,
    ) -> CollectedSet:
        """A collected set holding ``tuples`` (labels), in order."""
        out = cls(survey)
        out.extend(tuples, counts)
        return out

    # ------------------------------------------------------------------ bytes
    def to_bytes(self, encoding: str = "bits") -> bytes:
        """Serialize: header, tuples (``"index"`` or ``"bits"``), counts. See the module notes."""
        if encoding not in ENCODINGS:
            raise InputError(f"encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
        card = self.survey.cardinalities
        head = _HEAD.pack(_MAGIC, _FORMAT, ENCODINGS.index(encoding), len(card))
        head += struct.pack(f"<{len(card)}I", *card)
        width = _count_width(self.counts)
        head += _TAIL.pack(self._n, self.version, width)
        if encoding == "bits":
            body = pack_bits(self.survey, self.codes)
        else:
            kb = _index_bytes(card)
            keys = self.index()
            if keys.dtype == np.uint64:
                raw = keys.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :kb]
                body = raw.tobytes()
            else:
                body = b"".join(int(k).to_bytes(kb, "little") for k in keys.tolist())
        counts = self.counts.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :width].tobytes()
        return head + body + counts

    @classmethod
    def from_bytes(cls, survey: Survey, data: bytes) -> CollectedSet:
        """Rebuild a collected set written by :meth:`to_bytes` for the same survey.

        Raises
        ------
        InputError
            If the bytes are not a collected set, are truncated, or belong to a survey with other
            code spaces.
        """
        data = bytes(data)
        if len(data) < _HEAD.size or data[:4] != _MAGIC:
            raise InputError("not a microanon collected set (bad magic bytes)")
        _, fmt, enc, m = _HEAD.unpack_from(data)
        if fmt != _FORMAT or enc >= len(ENCODINGS):
            raise InputError(f"unsupported collected-set format {fmt}/{enc}")
        pos = _HEAD.size
        try:
            card = struct.unpack_from(f"<{m}I", data, pos)
            pos += 4 * m
            n, version, width = _TAIL.unpack_from(data, pos)
        except struct.error:
            raise InputError("collected set: truncated header") from None
        pos += _TAIL.size
        if tuple(card) != survey.cardinalities:
            raise InputError(
                f"collected set has code spaces {tuple(card)}; this survey has "
                f"{survey.cardinalities}"
            )
        if width not in (1, 2, 4, 8):
            raise InputError(f"collected set: bad count width {width}")
        if ENCODINGS[enc] == "bits":
            size = (n * sum(_bits(card)) + 7) // 8
            codes = unpack_bits(survey, data[pos : pos + size], n)
        else:
            kb = _index_bytes(card)
            size = n * kb
            chunk = data[pos : pos + size]
            if len(chunk) != size:
                raise InputError("collected set: truncated tuples")
            if _fits_uint64(card):
                raw = np.zeros((n, 8), dtype=np.uint8)
                raw[:, :kb] = np.frombuffer(chunk, dtype=np.uint8).reshape(n, kb)
                keys: np.ndarray = raw.view("<u8").ravel()
            else:
                keys = np.array(
                    [int.from_bytes(chunk[i * kb : (i + 1) * kb], "little") for i in range(n)],
                    dtype=object,
                )
            codes = decode_index(survey, keys)
        pos += size
        if len(data) != pos + n * width:
            raise InputError(f"collected set: expected {pos + n * width} bytes, got {len(data)}")
        raw = np.zeros((n, 8), dtype=np.uint8)
        raw[:, :width] = np.frombuffer(data, dtype=np.uint8, offset=pos).reshape(n, width)
        counts = raw.view("<u8").ravel().astype(np.int64)
        if n and counts.min() < 1:
            raise InputError("collected set: counts must be positive")
        out = cls(survey)
        out.extend_codes(codes, counts)
        if len(out) != n:
            raise InputError("collected set: a tuple appears in two pairs")
        out.version = int(version)
        return out

    # ------------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CollectedSet):
            return NotImplemented
        return (
            self.survey.cardinalities == other.survey.cardinalities
            and np.array_equal(self.codes, other.codes)
            and np.array_equal(self.counts, other.counts)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<CollectedSet: {self._n} pairs, {self.total} tuples, version {self.version}>"


def _index_bytes(cardinalities: Sequence[int]) -> int:
    """Bytes per tuple of the index encoding."""
    return ((math.prod(int(c) for c in cardinalities) - 1).bit_length() + 7) // 8


def _check_count(count: Any) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise InputError(f"count must be a positive integer, got {count!r}")
    return int(count)
