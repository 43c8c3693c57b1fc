"""The UCI Nursery data set.

Rajkovic, V. (1989). *Nursery* [Dataset]. UCI Machine Learning Repository.
https://doi.org/10.24432/C5P88W — CC BY 4.0.
"""

from __future__ import annotations

import io
from functools import lru_cache

import pandas as pd

from ._files import DataIntegrityError, read_bytes

__all__ = ["NURSERY_COLUMNS", "load_nursery"]

NURSERY_COLUMNS: tuple[str, ...] = (
    "parents",
    "has_nurs",
    "form",
    "children",
    "housing",
    "finance",
    "social",
    "health",
    "class",
)
"""Columns of :func:`load_nursery`, in file order: 8 attributes and the class."""

_FILE = "nursery/nursery.data"


@lru_cache(maxsize=1)
def _read() -> pd.DataFrame:
    try:
        df = pd.read_csv(
            io.BytesIO(read_bytes(_FILE)),
            header=None,
            names=list(NURSERY_COLUMNS),
            dtype="str",
            na_filter=False,
            skip_blank_lines=True,
            encoding="ascii",
        )
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataIntegrityError(f"bundled {_FILE} cannot be parsed: {exc}") from exc
    for c in df.columns:
        df[c] = df[c].str.strip()
    return df


def load_nursery() -> pd.DataFrame:
    """Load the UCI Nursery data set (12,960 records, no missing values).

    The records are the Cartesian product of the 8 attribute domains (every combination once);
    the class is the outcome of the original expert model.

    Returns
    -------
    pandas.DataFrame
        String columns :data:`NURSERY_COLUMNS`: ``parents`` (usual, pretentious, great_pret),
        ``has_nurs`` (proper, less_proper, improper, critical, very_crit), ``form`` (complete,
        completed, incomplete, foster), ``children`` (1, 2, 3, more), ``housing`` (convenient,
        less_conv, critical), ``finance`` (convenient, inconv), ``social`` (nonprob,
        slightly_prob, problematic), ``health`` (recommended, priority, not_recom) and ``class``
        (not_recom 4,320; priority 4,266; spec_prior 4,044; very_recom 328; recommend 2), with a
        ``RangeIndex``.

    Raises
    ------
    DataIntegrityError
        If the bundled file is corrupt.
    """
    return _read().copy()
