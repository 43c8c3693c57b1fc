"""One-hot (binary) encoding of categorical columns, shared by MRR and EPR (papers.md §6.6).

Each column ``c`` with domain ``v_0 .. v_{d-1}`` becomes ``d`` bits named ``"c=v"``; a record has
exactly one bit set per column. The layout remembers the domains so releases can be read back
and decoded.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.schema import check_frame
from ...core.table import factorize_column

__all__ = ["OneHotLayout"]


@dataclass(frozen=True)
class OneHotLayout:
    """Where each column's bits sit in a one-hot row.

    Attributes
    ----------
    columns : tuple
        The encoded columns, in bit order.
    domains : tuple of tuples
        Each column's values, in bit order.
    """

    columns: tuple[Hashable, ...]
    domains: tuple[tuple[Any, ...], ...]

    @classmethod
    def from_frame(cls, data: pd.DataFrame, columns: Sequence[Hashable], what: str) -> OneHotLayout:
        """The layout of ``columns`` of ``data``: each domain is its column's sorted values.

        Raises
        ------
        InputError
            Not a non-empty DataFrame, no or absent or repeated columns, missing values.
        """
        cols = list(columns) if not isinstance(columns, str) else [columns]
        if not cols:
            raise InputError(f"{what}: name at least one column to randomize")
        if len(set(cols)) != len(cols):
            raise InputError(f"{what}: a column is named twice in {cols}")
        check_frame(data, cols, what)
        domains = []
        for c in cols:
            _, uniques = factorize_column(data[c], c)
            try:
                domains.append(tuple(sorted(uniques)))
            except TypeError:  # values of mixed types: order them by their text
                domains.append(tuple(sorted(uniques, key=str)))
        return cls(tuple(cols), tuple(domains))

    @classmethod
    def from_metadata(cls, spec: Mapping[str, Sequence[Any]]) -> OneHotLayout:
        """The layout written into a release's metadata (column -> domain)."""
        return cls(tuple(spec), tuple(tuple(v) for v in spec.values()))

    def to_metadata(self) -> dict[Hashable, list[Any]]:
        """Column -> domain, for a release's metadata."""
        return {c: list(d) for c, d in zip(self.columns, self.domains, strict=True)}

    def clear_columns(
        self, data: pd.DataFrame, clear: Sequence[Hashable] | Hashable, what: str
    ) -> list[Hashable]:
        """The columns published in the clear beside these bits, checked.

        Raises
        ------
        InputError
            A clear column absent from ``data`` or also encoded here.
        """
        cols = [clear] if isinstance(clear, str) else list(clear)
        check_frame(data, cols, what)
        both = [c for c in cols if c in self.columns]
        if both:
            raise InputError(f"{what}: column(s) {both} are both randomized and in the clear")
        return cols

    @property
    def cards(self) -> list[int]:
        """Number of values (bits) of each column."""
        return [len(d) for d in self.domains]

    @property
    def offsets(self) -> np.ndarray:
        """Index of each column's first bit; the last entry is the number of bits."""
        return np.concatenate([[0], np.cumsum(self.cards)]).astype(np.int64)

    @property
    def width(self) -> int:
        """Number of bits of a row."""
        return int(sum(self.cards))

    def bit_names(self) -> list[str]:
        """``"column=value"`` per bit."""
        return [f"{c}={v}" for c, d in zip(self.columns, self.domains, strict=True) for v in d]

    def block(self, column: Hashable) -> slice:
        """The bits of one column."""
        i = self.columns.index(column)
        off = self.offsets
        return slice(int(off[i]), int(off[i + 1]))

    def codes(self, data: pd.DataFrame) -> np.ndarray:
        """Value codes (``n × columns``, int64) of ``data`` in this layout.

        Raises
        ------
        InputError
            A column absent from ``data``, or a value outside its column's domain.
        """
        check_frame(data, list(self.columns), "table")
        out = np.empty((len(data), len(self.columns)), dtype=np.int64)
        for j, (c, dom) in enumerate(zip(self.columns, self.domains, strict=True)):
            idx = pd.Index(dom).get_indexer(data[c])
            if (idx < 0).any():
                bad = data[c].to_numpy(dtype=object)[idx < 0][0]
                raise InputError(f"column {c!r}: value {bad!r} is not in its domain {list(dom)}")
            out[:, j] = idx
        return out

    def encode(self, data: pd.DataFrame) -> np.ndarray:
        """The one-hot rows (``n × width``, bool) of ``data``."""
        codes = self.codes(data)
        bits = np.zeros((len(data), self.width), dtype=bool)
        bits[np.arange(len(data))[:, None], codes + self.offsets[:-1]] = True
        return bits

    def decode(self, scores: np.ndarray) -> pd.DataFrame:
        """Per column, the value whose bit scores highest (ties: the first in domain order)."""
        off = self.offsets
        return pd.DataFrame(
            {
                c: np.asarray(dom, dtype=object)[np.argmax(scores[:, off[j] : off[j + 1]], axis=1)]
                for j, (c, dom) in enumerate(zip(self.columns, self.domains, strict=True))
            }
        )
