"""Verify a written release out of core: its frequency table, checked by the models' own code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..models import Groups, PrivacyModel, Verdict
from .frequencies import FrequencyTable, value_frequencies
from .read import read_dataset

__all__ = ["groups_of", "verify_written"]


def groups_of(
    table: FrequencyTable, quasi: Sequence[str], sensitive: str | None, numeric: bool = False
) -> Groups:
    """The equivalence classes of a frequency table of values, weighted by its counts."""
    codes, cards, dictionaries = [], [], []
    for q in quasi:
        c, uniques = pd.factorize(pd.Series(table.codes[q], dtype=object))
        if np.any(c < 0):
            raise InputError(f"column {q!r} of the release has missing values")
        codes.append(c)
        cards.append(len(uniques))
        dictionaries.append(list(uniques))
    if sensitive is None:
        return Groups.from_codes(
            tuple(quasi), codes, cards, weights=table.counts, dictionaries=dictionaries
        )
    sa, values = pd.factorize(pd.Series(table.codes[sensitive], dtype=object), sort=True)
    if np.any(sa < 0):
        raise InputError(f"column {sensitive!r} of the release has missing values")
    return Groups.from_codes(
        tuple(quasi),
        codes,
        cards,
        sensitive=sensitive,
        sa_codes=sa,
        values=list(values),
        numeric=numeric,
        weights=table.counts,
        dictionaries=dictionaries,
    )


def verify_written(
    path: str | Path,
    quasi: Sequence[str],
    sensitive: str | None,
    models: Sequence[PrivacyModel],
    client: Any,
    progress: bool | None = None,
) -> tuple[list[Verdict], int]:
    """Check every model on the Parquet dataset at ``path``.

    The dataset is read back, its frequency table over the quasi-identifiers (and the sensitive
    column, when a model needs it) computed with a tree reduction, and every model checked on
    the classes of that table with :meth:`PrivacyModel.check`, as :func:`microanon.models.
    check_release` checks a release in memory (records published with every quasi-identifier
    ``"*"`` form one class like any other).

    Returns
    -------
    verdicts : list of Verdict
        One per model, in order.
    rows : int
        Records in the written dataset.

    Raises
    ------
    InputError
        The dataset holds no record, or missing values in a checked column.
    """
    needs = sensitive if any(m.needs_sensitive for m in models) else None
    columns = list(quasi) + ([needs] if needs is not None else [])
    frame = read_dataset(path, columns=columns)
    numeric = needs is not None and pd.api.types.is_numeric_dtype(frame[needs].dtype)
    table = value_frequencies(frame, columns, client, progress)
    if table.records == 0:
        raise InputError("the release publishes no unsuppressed record")
    groups = groups_of(table, quasi, needs, bool(numeric))
    return [m.check(groups) for m in models], table.records
