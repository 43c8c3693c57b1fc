"""Files of the command line: reading user data (CSV with its delimiter detected, or Parquet),
writing a result file atomically, and printing plain JSON."""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError

__all__ = ["detect_delimiter", "json_plain", "json_text", "read_table"]

_DELIMITERS = ",;\t|"


def detect_delimiter(sample: str) -> str:
    """Guess a CSV delimiter among ``, ; tab |`` from a text sample (``,`` when unsure)."""
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] > 0 else ","


def read_table(
    path: str | os.PathLike[str], na_values: Sequence[str] = (), header: bool = True
) -> pd.DataFrame:
    """Read a CSV (delimiter detected, spaces after delimiters skipped) or a Parquet file.

    Parameters
    ----------
    path : path
    na_values : sequence of str
        Extra markers of missing values (for example ``?`` in UCI files), on top of empty fields.
    header : bool
        Whether the first CSV line holds the column names.

    Raises
    ------
    InputError
        If the file is missing, unreadable, empty, or not a table, or if its header (CSV) or
        schema (Parquet) repeats a column name.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"cannot read {path}: no such file")
    try:
        if path.suffix.lower() in {".parquet", ".pq"}:
            _refuse_repeated(path, _parquet_names(path))
            return pd.read_parquet(path)
        with open(path, encoding="utf-8", errors="strict", newline="") as fh:
            sample = fh.read(65536)
        if not sample.strip():
            raise InputError(f"{path} is empty")
        sep = detect_delimiter(sample)
        if header:  # pandas would silently rename a repeated name: zip, zip.1, ...
            first = pd.read_csv(
                path,
                sep=sep,
                header=None,
                nrows=1,
                dtype=str,
                skipinitialspace=True,
                keep_default_na=False,
            )
            names = [str(v) for v in first.iloc[0]] if len(first) else []
            _refuse_repeated(path, names, "; if the first line is data, read it without a header")
        return pd.read_csv(
            path,
            sep=sep,
            header=0 if header else None,
            skipinitialspace=True,
            na_values=["", *na_values],
            keep_default_na=False,
        )
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(
            f"cannot read {path}: it is not UTF-8 text (nor a .parquet file)"
        ) from None
    except (OSError, ValueError, pd.errors.ParserError, ImportError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None


def _parquet_names(path: Path) -> list[str]:
    """The column names of a Parquet file's schema, repeats included (none without pyarrow)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pandas then reports the missing engine
        return []
    return [str(n) for n in pq.read_schema(path).names]


def _refuse_repeated(path: Path, names: Sequence[str], hint: str = "") -> None:
    """Refuse a table whose column names repeat (empty CSV header fields aside).

    Raises
    ------
    InputError
        Naming each repeated column and its positions (1-based).
    """
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names, start=1):
        if name != "":
            positions.setdefault(name, []).append(i)
    repeated = {n: p for n, p in positions.items() if len(p) > 1}
    if repeated:
        listed = "; ".join(f"{n!r} (columns {', '.join(map(str, p))})" for n, p in repeated.items())
        raise InputError(
            f"{path}: the column name(s) {listed} appear more than once; give every column a "
            f"distinct name{hint}"
        )


def json_plain(obj: Any) -> Any:
    """JSON types: numpy scalars and arrays to Python, non-finite floats and missing values to
    null."""
    if isinstance(obj, dict):
        return {str(k): json_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_plain(obj.tolist())
    if obj is pd.NA or obj is pd.NaT:
        return None
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def json_text(obj: Any) -> str:
    """``obj`` as one JSON document: made plain by :func:`json_plain`, values JSON cannot hold
    (paths, dates) as their text; NaN refused."""
    return json.dumps(json_plain(obj), indent=2, ensure_ascii=False, allow_nan=False, default=str)
