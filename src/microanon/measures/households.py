"""The household (hierarchical) risk from the individual risks of the keys' combinations.

The household risk of a record is ``1 - Π (1 - r_i)`` over the members ``i`` of its household,
``r_i`` their individual risks (sdcMicro's ``hier_risk``; :func:`microanon.measures.
individual_risk` computes it from the records). An individual risk depends only on the record's
combination of keys: measured once per combination on a frequency table, it is given to each
record by :class:`KeyLookup`, and ``1 - r`` is multiplied over each household's records
(:func:`household_partial`). :func:`household_risks_of` does it for a table in memory;
:func:`microanon.scale.households.household_risks` partition by partition, the households
merged across partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.factorize import KEY_LIMIT, factorize, push_digit
from ..core.table import code_dtype

__all__ = [
    "HouseholdRisks",
    "KeyLookup",
    "binned_households",
    "household_partial",
    "household_risks_of",
]

#: Columns of :func:`household_partial`'s table besides the household id.
SURVIVE, SIZE = "survive", "size"
_CHANGED = "was the data changed while it was read?"


@dataclass(frozen=True)
class HouseholdRisks:
    """The household risks of a dataset's records, counted per bin.

    Attributes
    ----------
    binned : int64 array
        Records whose household risk falls in each bin of the ``bins`` asked for (as
        :func:`numpy.histogram` counts them).
    expected : float
        The sum of the records' household risks (sdcMicro's ``hier_risk_ER``).
    records : int
        Records measured (those with a household id and a sampling weight).
    households : int
        Distinct household ids among them.
    missing_ids : int
        Records with a sampling weight but no household id (left out).
    """

    binned: np.ndarray
    expected: float
    records: int
    households: int
    missing_ids: int = 0

    @property
    def global_risk(self) -> float:
        """The mean household risk over the records (sdcMicro's ``hier_risk``)."""
        return self.expected / self.records if self.records else float("nan")


class KeyLookup:
    """Which row of a table of key combinations each record holds.

    Each key column's distinct values are looked up by value (a missing value is one of
    them), then the combination of their positions among the table's packed keys.

    Parameters
    ----------
    keys : pandas.DataFrame
        Distinct combinations of the key columns, one per row.
    """

    def __init__(self, keys: pd.DataFrame) -> None:
        self.columns = [str(c) for c in keys.columns]
        self._values: list[pd.Index] = []
        self._missing: list[int] = []
        codes = []
        for c in keys.columns:
            code, uniq = pd.factorize(keys[c].to_numpy(dtype=object), use_na_sentinel=False)
            uniq = np.asarray(uniq, dtype=object)
            absent = pd.isna(uniq)
            self._missing.append(int(np.flatnonzero(absent)[0]) if absent.any() else -1)
            self._values.append(pd.Index(np.where(absent, None, uniq), dtype=object))
            codes.append(code.astype(np.int64))
        self._cards = [len(v) for v in self._values]
        self._packed = float(np.prod([max(c, 1) for c in self._cards], dtype=float)) < KEY_LIMIT
        self._rows = pd.Index(self._key(codes))
        if not self._rows.is_unique:
            raise ValueError("the key combinations must be distinct")

    def _key(self, codes: Sequence[np.ndarray]) -> Any:
        if not self._packed:
            return pd.MultiIndex.from_arrays(codes)
        key = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
        for c, card in zip(codes, self._cards, strict=True):
            push_digit(key, c, max(card, 1))
        return key

    def rows(self, records: pd.DataFrame) -> np.ndarray:
        """The row of the table holding each record's combination.

        Raises
        ------
        InputError
            A record whose combination is not in the table (the data changed since it was
            counted).
        """
        codes = []
        for c, values, missing in zip(self.columns, self._values, self._missing, strict=True):
            # Each distinct value looked up once: the records' own codes, then their values'.
            local, uniques = factorize(records[c])  # (known when the run coded it)
            at = values.get_indexer(np.asarray(uniques, dtype=object))
            # (every distinct value is some record's, and a missing one is the code -1)
            if (at < 0).any() or (missing < 0 and len(local) and int(local.min()) < 0):
                raise InputError(f"column {c!r} holds a value not counted before: {_CHANGED}")
            # a missing value (-1): the last; each record's position taken in the narrowest
            # type that holds them (fresh memory per record is what this pass costs)
            found = np.append(at, max(missing, 0)).astype(code_dtype(len(values)))[local]
            codes.append(found if self._packed else found.astype(np.int64))
        at = self._rows.get_indexer(self._key(codes))
        if len(at) and int(at.min()) < 0:
            raise InputError(f"a combination of keys was not counted before: {_CHANGED}")
        return at


def _household_ids(ids: pd.Series) -> np.ndarray:
    """Household ids that compare alike in every partition: whole numbers as int64 (a CSV
    partition with a missing id reads its column as floats), other values as they are."""
    values = ids.to_numpy()
    if values.dtype.kind == "f" and np.all(values == np.floor(values)):
        if np.all(np.abs(values) < 2**53):
            return values.astype(np.int64)
    return values


def household_partial(
    part: pd.DataFrame,
    lookup: KeyLookup,
    risk: np.ndarray,
    weight: str,
    household: str,
    complete: bool = False,
) -> pd.DataFrame:
    """The households of a table: the product of ``1 - r`` over the records of each
    (:data:`SURVIVE`) and how many they are (:data:`SIZE`).

    Records without a weight or household id are left out, and with ``complete`` those with a
    missing key; a last row without an id counts the records with a weight but no household id.
    ``risk``: the individual risk of each row of ``lookup``'s table.
    """
    weighted = part[weight].notna().to_numpy()
    if complete:
        weighted = weighted & part[lookup.columns].notna().all(axis=1).to_numpy()
    identified = part[household].notna().to_numpy()
    kept = weighted & identified
    if not kept.all():  # (else the columns are read as they are: their codes may be known)
        part = part.loc[kept]
    survive = 1.0 - risk[lookup.rows(part)]
    frame = pd.DataFrame({household: _household_ids(part[household]), SURVIVE: survive})
    grouped = frame.groupby(household, sort=False)[SURVIVE]
    out = grouped.prod().to_frame()
    out[SIZE] = grouped.size().astype(np.int64)
    out = out.reset_index()
    unidentified = int((weighted & ~identified).sum())
    if unidentified:
        extra = pd.DataFrame({household: [None], SURVIVE: [np.nan], SIZE: [unidentified]})
        out = pd.concat([out.astype({household: object}), extra], ignore_index=True)
    return out


def binned_households(households: pd.DataFrame, bins: np.ndarray) -> pd.DataFrame:
    """Of a table of households (each once, as :func:`household_partial` gives them): the
    records per bin of ``bins`` (columns ``bin0``, ...), the sum of their household risks, the
    records and the households, in one row."""
    risk = 1.0 - households[SURVIVE].to_numpy(dtype=float)
    size = households[SIZE].to_numpy(dtype=np.int64)
    counts = np.histogram(risk, bins, weights=size)[0].astype(np.int64)
    row = {f"bin{i}": [int(n)] for i, n in enumerate(counts)}
    row |= {
        "expected": [float((risk * size).sum())],
        "records": [int(size.sum())],
        "households": [len(size)],
    }
    return pd.DataFrame(row)


def household_risks_of(
    data: pd.DataFrame,
    keys: pd.DataFrame,
    risk: np.ndarray,
    weight: str,
    household: str,
    bins: np.ndarray,
    complete: bool = False,
) -> HouseholdRisks:
    """The household risks of the records of ``data``, from the individual ``risk`` of each
    row of ``keys`` (distinct combinations of its key columns), counted per bin of ``bins``.

    Records without a weight or household id are left out (and counted in
    :attr:`HouseholdRisks.missing_ids` when only the id is missing), with ``complete`` those
    with a missing key too.

    Raises
    ------
    InputError
        A record whose combination of keys is not a row of ``keys``.
    """
    lookup, risk = KeyLookup(keys), np.asarray(risk, dtype=float)
    partial = household_partial(data, lookup, risk, weight, household, complete)
    unidentified = partial[household].isna().to_numpy()
    row = binned_households(partial.loc[~unidentified], np.asarray(bins, dtype=float)).iloc[0]
    return HouseholdRisks(
        np.array([int(row[f"bin{i}"]) for i in range(len(bins) - 1)], dtype=np.int64),
        float(row["expected"]),
        int(row["records"]),
        int(row["households"]),
        int(partial.loc[unidentified, SIZE].sum()),
    )
