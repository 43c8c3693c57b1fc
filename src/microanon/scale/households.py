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
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.progress import ProgressLike
from ..core.schema import Kind, Schema
from ..measures.households import (
    SIZE,
    SURVIVE,
    HouseholdRisks,
    KeyLookup,
    binned_households,
    household_partial,
)
from .client import run_stage
from .encode import clean_partition
from .read import dataset_pieces, read_dataset

__all__ = ["household_measure", "household_risks"]


def _partial(
    piece: pd.DataFrame,
    clean: Callable[[pd.DataFrame], pd.DataFrame] | None,
    weight: str,
    household: str,
    lookup: KeyLookup,
    risk: np.ndarray,
    complete: bool,
) -> pd.DataFrame:
    """One partition's households (:func:`~microanon.measures.households.household_partial`),
    after ``clean``."""
    part = piece if clean is None else clean(piece)
    return household_partial(part, lookup, risk, weight, household, complete)


def _unidentified(households: pd.DataFrame, household: str) -> pd.Series:
    """The records with a weight but no household id of one partition's households."""
    return pd.Series([int(households.loc[households[household].isna(), SIZE].sum())])


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
            SURVIVE: pd.Series([], dtype=float),
            SIZE: pd.Series([], dtype=np.int64),
        }
    )
    frame = dd.from_delayed(parts, meta=meta, verify_meta=False)
    unidentified = frame.map_partitions(
        _unidentified, household, meta=pd.Series([], dtype=np.int64)
    ).sum()
    merged = (
        frame.dropna(subset=[household])
        .groupby(household)
        .agg({SURVIVE: "prod", SIZE: "sum"}, split_out=max(1, len(pieces) // 8))
    )
    bins = np.asarray(bins, dtype=float)
    shape = binned_households(meta.set_index(household), bins).iloc[:0]
    summed = merged.map_partitions(binned_households, bins, meta=shape)
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
        columns += schema.dropping
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
