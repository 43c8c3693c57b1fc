"""One-hot (binary) encoding of categorical columns, shared by MRR and EPR.

Each column ``c`` with domain ``v_0 .. v_{d-1}`` becomes ``d`` bits named ``"c=v"``; a record has
exactly one bit set per column. The layout remembers the domains so releases can be read back
and decoded. :func:`bit_release` and :func:`read_bit_release` write and read the releases of
the methods built on it (MRR, EPR): the bit columns, then the columns published in the clear.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.release import Release
from ...core.schema import check_frame
from ...core.table import factorize_column

__all__ = ["OneHotLayout", "bit_release", "read_bit_release"]


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

    def domain(self, column: Hashable) -> tuple[Any, ...]:
        """The values of one column, in bit order."""
        return self.domains[self.columns.index(column)]

    def subset(self, columns: Sequence[Hashable]) -> OneHotLayout:
        """The layout of some of the columns, in the given order."""
        return OneHotLayout(tuple(columns), tuple(self.domain(c) for c in columns))

    def bit_indices(self, columns: Sequence[Hashable]) -> np.ndarray:
        """The bits of ``columns``, block after block (the bits of :meth:`subset`)."""
        blocks = [self.block(c) for c in columns]
        return np.concatenate([np.arange(b.start, b.stop) for b in blocks] or [[]]).astype(np.int64)

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


def bit_release(
    method: str,
    values: np.ndarray,
    layout: OneHotLayout,
    clear: pd.DataFrame,
    spec: Mapping[str, Any],
    parameters: Mapping[str, Any],
) -> Release:
    """The ``randomized`` release of a bit-level method.

    Table ``data``: one column per bit (``"column=value"``, row ``i`` of ``values``) then the
    ``clear`` columns, row-aligned. Metadata: ``method``, ``parameters`` (with the columns and
    the clear ones), ``method`` -> ``spec`` plus the domains (what :func:`read_bit_release`
    needs), ``rows_in`` and ``rows_out``.
    """
    table = pd.DataFrame(values, columns=layout.bit_names())
    for c in clear.columns:
        table[c] = clear[c].to_numpy()
    return Release(
        "randomized",
        {"data": table},
        {
            "method": method,
            "parameters": {
                **parameters,
                "columns": list(layout.columns),
                "clear": list(clear.columns),
            },
            method: {**spec, "domains": layout.to_metadata()},
            "rows_in": len(table),
            "rows_out": len(table),
        },
        public=(method,),  # the design and the domains: what decoding needs
    )


def read_bit_release(
    release: Release, method: str, what: str
) -> tuple[OneHotLayout, np.ndarray, pd.DataFrame, Mapping[str, Any]]:
    """Layout, bit values, clear columns and spec of a release made by :func:`bit_release`.

    Raises
    ------
    InputError
        Not a release of ``method``, or its bit columns are missing.
    """
    spec = release.metadata.get(method)
    if release.kind != "randomized" or not isinstance(spec, Mapping):
        raise InputError(f"{what}: not a release made by {method}()")
    layout = OneHotLayout.from_metadata(spec["domains"])
    names = layout.bit_names()
    table = release.tables["data"]
    check_frame(table, names, f"{method.upper()} release")
    clear = table[[c for c in table.columns if c not in set(names)]]
    return layout, table[names].to_numpy(), clear, spec
