"""How the values of an identifier column repeat over a table's rows: its distinct values, the
rows, the rows holding a value no other row holds, and the fewest and the most rows a value
holds; and whether its values look like numbers handed out in order
(:mod:`microanon.core.numbering`), read from the same counts.

Counted on the whole column (:func:`repetition`) or partition by partition, each partition's
records per value (:func:`tally`) merged into the same numbers (:func:`merged`): a value found
in several partitions is one value with the records of all of them. The in-memory run and the
out-of-core engine count the same table so, and warn of a panel's person id from these numbers
alone (:mod:`microanon.apps.panel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .numbering import Numbering, numbering

__all__ = ["Repetition", "Tally", "merged", "repetition", "tally"]


@dataclass(frozen=True)
class Repetition:
    """How an identifier's values repeat over a table's rows.

    Attributes
    ----------
    distinct : int
        Its distinct values (a missing value is none).
    rows : int
        The table's rows, those missing the identifier included.
    held : int
        The rows holding a value of it (``rows`` less those missing it).
    alone : int
        The rows holding a value no other row holds.
    numbering : Numbering or None
        How its values fill their range when they look like numbers handed out in order
        (:func:`~microanon.core.numbering.numbering`, on the distinct values and their
        records); else None.
    fewest, most : int
        The records of the value that holds fewest and of the one that holds most (0 without
        a value): equal when every value holds as many, as a balanced panel's person id's do
        (:func:`microanon.apps.panel.balanced`).
    fractional : bool
        Whether a value is a number with a fractional part (0.217), as a measure's are and an
        id's never are.
    """

    distinct: int
    rows: int
    held: int
    alone: int
    numbering: Numbering | None = None
    fewest: int = 0
    most: int = 0
    fractional: bool = False

    @property
    def alone_share(self) -> float:
        """The share of the rows holding a value no other row holds (0 without rows)."""
        return self.alone / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class Tally:
    """One partition's records per value of each identifier column (:func:`tally`).

    Attributes
    ----------
    rows : int
        The partition's rows.
    counts : dict of str to pandas.Series
        Per column, the records of each value the partition holds (missing values left out),
        indexed by the values.
    """

    rows: int
    counts: dict[str, pd.Series] = field(default_factory=dict)


def _held(column: pd.Series) -> pd.Series:
    """Records per value of ``column``, missing values left out (a categorical column's
    categories that no record holds too)."""
    counts = column.value_counts(dropna=True, sort=False)
    return counts[counts > 0]


def tally(frame: pd.DataFrame, columns: Sequence[str]) -> Tally:
    """The records per value of each of ``columns`` in ``frame`` (a partition), and its rows.

    A text column read from Parquet as a categorical is counted on its codes: each distinct
    value is kept once, whatever its records.
    """
    return Tally(len(frame), {c: _held(frame[c]) for c in columns})


def merged(parts: Sequence[Tally], columns: Sequence[str]) -> dict[str, Repetition]:
    """The repetition of each of ``columns`` over the partitions tallied in ``parts``.

    The partitions' values are united in one hash pass (:func:`pandas.factorize`: equal values
    are one, as :meth:`pandas.Series.value_counts` takes them on the whole column) and their
    records summed; the united values and their records say whether they look like numbers
    handed out in order (:func:`~microanon.core.numbering.numbering`: the records summed along
    the values' range when they are at least half of its whole numbers). Memory: the partitions'
    distinct values, at most one per row (for 10^7 distinct integer identifiers, some 0.5 GB
    while they are merged), then a few numbers.

    Parameters
    ----------
    parts : sequence of Tally
        One per partition, each tallying ``columns``.
    columns : sequence of str

    Returns
    -------
    dict of str to Repetition
        Per column, in the order of ``columns``.
    """
    rows = sum(int(p.rows) for p in parts)
    out = {}
    for c in columns:
        found = [p.counts[c] for p in parts if len(p.counts[c])]
        if not found:
            out[c] = Repetition(0, rows, 0, 0)
            continue
        uniques, totals = _united(found)
        alone = int(np.count_nonzero(totals == 1))
        held = int(totals.sum())
        numbered = numbering(uniques, totals)
        fewest, most = int(totals.min()), int(totals.max())
        fractional = fractional_values(uniques)
        out[c] = Repetition(len(totals), rows, held, alone, numbered, fewest, most, fractional)
    return out


def fractional_values(values: pd.Index) -> bool:
    """Whether one of ``values`` (a column's distinct values) is a float with a fractional part,
    as a measure's are and an id's never are."""
    if values.dtype.kind != "f":
        return False
    numbers = values.to_numpy(dtype=np.float64)
    numbers = numbers[np.isfinite(numbers)]
    return bool((numbers != np.trunc(numbers)).any())


def _united(found: Sequence[pd.Series]) -> tuple[pd.Index, np.ndarray]:
    """The distinct values of the partitions' records per value ``found`` (none empty) and
    the records of each."""
    if len(found) == 1:  # (a partition's values are distinct)
        return found[0].index, found[0].to_numpy(dtype=np.int64)
    values = found[0].index.append([f.index for f in found[1:]])
    codes, uniques = pd.factorize(values)
    counts = np.concatenate([f.to_numpy(dtype=np.int64) for f in found])
    # (exact: float64 holds every sum of records below 2**53)
    totals = np.bincount(codes, weights=counts, minlength=len(uniques))
    return pd.Index(uniques), totals.astype(np.int64)


def repetition(column: pd.Series) -> Repetition:
    """The repetition of a whole column: :func:`merged` of one partition."""
    name = column.name if column.name is not None else 0
    return merged([tally(column.to_frame(name), [name])], [name])[name]
