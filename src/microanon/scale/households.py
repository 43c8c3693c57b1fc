"""The household risk of a dataset larger than memory, in one more pass over its records.

The household (hierarchical) risk of a record is ``1 - Π (1 - r_i)`` over the members ``i`` of
its household, ``r_i`` their individual risks (sdcMicro's ``hier_risk``; see
:func:`microanon.measures.individual_risk`). An individual risk depends only on the record's
combination of keys, and those are measured on the frequency table on the client. This pass
reads the records again, gives each the risk of its combination, multiplies ``1 - r`` over
each household's records within a partition, and merges the households across partitions (a
household may span several) with Dask's grouped product. What reaches the client is the
records per bin of the household risk and the sums: nothing per record or per household.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.progress import ProgressLike
from ..core.schema import Kind, Schema
from .client import run_stage
from .encode import clean_partition
from .frequencies import pack_codes, radices
from .read import dataset_pieces, read_dataset

__all__ = ["HouseholdRisks", "KeyLookup", "household_measure", "household_risks"]

_SURVIVE, _SIZE = "survive", "size"
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
        self._packed = radices(self._cards) is not None
        self._rows = pd.Index(self._key(codes))
        if not self._rows.is_unique:
            raise ValueError("the key combinations must be distinct")

    def _key(self, codes: Sequence[np.ndarray]) -> Any:
        if self._packed:
            return pack_codes(codes, self._cards)
        return pd.MultiIndex.from_arrays(codes)

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
            local, uniques = pd.factorize(records[c], use_na_sentinel=True)
            at = values.get_indexer(np.asarray(uniques, dtype=object))
            found = np.append(at, missing)[local]  # a missing value (-1): the last
            if len(found) and int(found.min()) < 0:
                raise InputError(f"column {c!r} holds a value not counted before: {_CHANGED}")
            codes.append(found.astype(np.int64))
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


def _partial(
    piece: pd.DataFrame,
    clean: Callable[[pd.DataFrame], pd.DataFrame] | None,
    weight: str,
    household: str,
    lookup: KeyLookup,
    risk: np.ndarray,
    complete: bool,
) -> pd.DataFrame:
    """One partition's households: the product of ``1 - r`` over its records of each, and
    how many they are (records without a weight or household id left out, and with
    ``complete`` those with a missing key); a last row without an id counts the records with
    a weight but no household id."""
    part = piece if clean is None else clean(piece)
    weighted = part[weight].notna().to_numpy()
    if complete:
        weighted = weighted & part[lookup.columns].notna().all(axis=1).to_numpy()
    identified = part[household].notna().to_numpy()
    part = part.loc[weighted & identified]
    survive = 1.0 - risk[lookup.rows(part)]
    frame = pd.DataFrame({household: _household_ids(part[household]), _SURVIVE: survive})
    grouped = frame.groupby(household, sort=False)[_SURVIVE]
    out = grouped.prod().to_frame()
    out[_SIZE] = grouped.size().astype(np.int64)
    out = out.reset_index()
    unidentified = int((weighted & ~identified).sum())
    if unidentified:
        extra = pd.DataFrame({household: [None], _SURVIVE: [np.nan], _SIZE: [unidentified]})
        out = pd.concat([out.astype({household: object}), extra], ignore_index=True)
    return out


def _binned(households: pd.DataFrame, bins: np.ndarray) -> pd.DataFrame:
    """Per merged partition of households: records per bin, the sum of their risks, the
    records and the households."""
    risk = 1.0 - households[_SURVIVE].to_numpy(dtype=float)
    size = households[_SIZE].to_numpy(dtype=np.int64)
    counts = np.histogram(risk, bins, weights=size)[0].astype(np.int64)
    row = {f"bin{i}": [int(n)] for i, n in enumerate(counts)}
    row |= {
        "expected": [float((risk * size).sum())],
        "records": [int(size.sum())],
        "households": [len(size)],
    }
    return pd.DataFrame(row)


def _unidentified(households: pd.DataFrame, household: str) -> pd.Series:
    """The records with a weight but no household id of one partition's households."""
    return pd.Series([int(households.loc[households[household].isna(), _SIZE].sum())])


def household_risks(
    pieces: Sequence[Any],
    keys: pd.DataFrame,
    risk: np.ndarray,
    weight: str,
    household: str,
    bins: np.ndarray,
    client: Any,
    *,
    clean: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    progress: ProgressLike = None,
    complete: bool = False,
) -> HouseholdRisks:
    """The household risks of a dataset's records, from its individual risks per combination.

    Parameters
    ----------
    pieces : sequence of dask delayed pandas DataFrames
        The dataset's partitions, holding the key columns, ``weight`` and ``household``.
    keys : pandas.DataFrame
        The distinct combinations of the key columns the individual risks were measured on.
    risk : float array
        The individual risk of each row of ``keys``.
    weight, household : str
        The sampling-weight and household-id columns: a record without either is left out, as
        the in-memory measures leave it out.
    bins : float array
        The edges of the bins the records are counted in (:func:`numpy.histogram`'s).
    client : distributed.Client
    clean : callable, optional
        Applied to each partition first (the missing-value policies of a schema, as the
        pass that counted the combinations applied them).
    progress : Progress, bool, str or None
        See :func:`microanon.scale.client.run_stage`.
    complete : bool
        Leave out the records with a missing key (as :func:`household_measure`).

    Returns
    -------
    HouseholdRisks

    Raises
    ------
    InputError
        A record whose key combination is not in ``keys`` (the data changed since they were
        counted).
    """
    import dask.dataframe as dd
    from dask import delayed

    risk = np.asarray(risk, dtype=float)
    if len(risk) != len(keys):
        raise ValueError("one risk per combination of keys")
    lookup = KeyLookup(keys)
    per_part = delayed(_partial, pure=False)
    parts = [per_part(p, clean, weight, household, lookup, risk, complete) for p in pieces]
    meta = pd.DataFrame(
        {
            household: pd.Series([], dtype=object),
            _SURVIVE: pd.Series([], dtype=float),
            _SIZE: pd.Series([], dtype=np.int64),
        }
    )
    frame = dd.from_delayed(parts, meta=meta, verify_meta=False)
    unidentified = frame.map_partitions(
        _unidentified, household, meta=pd.Series([], dtype=np.int64)
    ).sum()
    merged = (
        frame.dropna(subset=[household])
        .groupby(household)
        .agg({_SURVIVE: "prod", _SIZE: "sum"}, split_out=max(1, len(pieces) // 8))
    )
    bins = np.asarray(bins, dtype=float)
    shape = _binned(meta.set_index(household), bins).iloc[:0]
    summed = merged.map_partitions(_binned, bins, meta=shape)
    table, missing = run_stage(client, "household risk", [summed, unidentified], progress)
    total = table.sum()
    return HouseholdRisks(
        np.array([int(total[f"bin{i}"]) for i in range(len(bins) - 1)], dtype=np.int64),
        float(total["expected"]),
        int(total["records"]),
        int(total["households"]),
        int(missing),
    )


def household_measure(
    source: Any,
    keys: Sequence[str],
    weight: str,
    household: str,
    bins: np.ndarray,
    client: Any,
    *,
    schema: Schema | None = None,
    read_options: Mapping[str, Any] | None = None,
    progress: ProgressLike = None,
    complete: bool = False,
) -> Callable[[pd.DataFrame, np.ndarray], HouseholdRisks]:
    """The household risk of a dataset's records, as a function of the combinations of its
    ``keys`` and their individual risks (what :func:`microanon.apps.risk.assess_risk` calls).

    Parameters
    ----------
    source : path, glob or dask DataFrame
        As the run that counted the combinations read it.
    keys : sequence of str
        The key columns.
    weight, household : str
        The sampling-weight and household-id columns.
    bins : float array
        As :func:`household_risks`.
    client : distributed.Client
    schema : Schema, optional
        The records cleaned as this schema cleans them (missing-value policies), as the
        combinations were counted: the columns whose missing values drop the record
        (``missing: drop``) are read too.
    read_options : mapping, optional
        Passed to :func:`microanon.scale.read_dataset`.
    progress : Progress, bool, str or None
    complete : bool
        Leave out the records with a missing key (``missing: drop``), as the combinations were
        measured without them.

    Raises
    ------
    InputError
        A column the data lacks (before any work).
    """
    columns = [*keys, weight, household]
    clean = None
    if schema is not None:
        columns += [a.name for a in schema if a.role.published and a.missing_policy == "drop"]
    columns = list(dict.fromkeys(columns))
    if isinstance(source, (str, os.PathLike)):
        frame = read_dataset(source, columns=columns, **dict(read_options or {}))
    else:
        frame = source
        absent = [c for c in columns if c not in frame.columns]
        if absent:
            raise InputError(f"column(s) {', '.join(map(repr, absent))} not found")
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c].dtype)]
    if schema is not None:
        numeric = [c for c in columns if schema[c].kind is Kind.NUMERIC]
        clean = partial(clean_partition, schema=schema.select(columns))
    pieces = dataset_pieces(source, frame, columns, numeric, read_options)
    return partial(
        _measure,
        pieces,
        list(keys),
        weight,
        household,
        bins,
        client,
        clean=clean,
        progress=progress,
        complete=complete,
    )


def _measure(
    pieces: Sequence[Any],
    columns: list[str],
    weight: str,
    household: str,
    bins: np.ndarray,
    client: Any,
    keys: pd.DataFrame,
    risk: np.ndarray,
    **kwargs: Any,
) -> HouseholdRisks:
    keys = keys[columns]
    return household_risks(pieces, keys, risk, weight, household, bins, client, **kwargs)
