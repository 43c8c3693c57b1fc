"""The user's tables as pandas DataFrames: pandas itself, or any Arrow-compatible table.

microanon works on :class:`pandas.DataFrame`. A pyarrow ``Table`` or ``RecordBatch``, and any
object exporting the Arrow PyCapsule stream interface (``__arrow_c_stream__``: polars ≥ 1,
DuckDB relations, ...) or array interface (``__arrow_c_array__``, one record batch) is read
through pyarrow and converted once, where a public function receives it. The dataframe
interchange protocol (``__dataframe__``) is not used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = [
    "COPY_ON_WRITE",
    "arrow_text",
    "as_objects",
    "as_pandas",
    "is_arrow_table",
    "pandas_if_arrow",
    "rows_of",
]

#: Whether pandas copies on write (always from pandas 3): a table copied shallowly then shares
#: its columns' data with the original until one of them is changed, which copies it first.
COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3


def arrow_text(column: pd.Series) -> Any:
    """The pyarrow array of an Arrow-backed string column without missing values (pandas'
    ``str`` columns), else None: what pyarrow's compute functions take without a copy."""
    if not isinstance(column.array, pd.arrays.ArrowExtensionArray):
        return None
    import pyarrow as pa

    arrow = column.array.__arrow_array__()
    text = pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)
    return arrow if text and arrow.null_count == 0 else None


def as_objects(column: pd.Series) -> pd.Series:
    """``column.astype(object)``, a number column's equal values one object each.

    ``astype(object)`` makes one Python number per row (32 bytes beside the row's 8-byte
    pointer); here the rows of a NumPy integer or float column that hold the same bits (so
    ``0.0`` and ``-0.0`` stay apart) point at one object, made from the same value. A missing
    value (NaN) gets its own object, as ``astype(object)`` gives it; a column of another type,
    or of mostly distinct values, is ``astype(object)`` itself. The values, their types, the
    index and the name are those of ``column.astype(object)``.

    Parameters
    ----------
    column : Series

    Returns
    -------
    Series
        Of dtype object.
    """
    dtype = column.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iuf" or len(column) < 2:
        return column.astype(object)
    values = column.to_numpy()
    codes, bits = pd.factorize(values.view(f"u{dtype.itemsize}"))
    if len(bits) > len(values) // 2:  # mostly distinct: nothing to share
        return column.astype(object)
    out = bits.view(dtype).astype(object)[codes]
    if dtype.kind == "f":
        gaps = np.isnan(values)
        if gaps.any():
            out[gaps] = values[gaps].astype(object)
    return pd.Series(out, index=column.index, name=column.name, dtype=object, copy=False)


def is_arrow_table(obj: Any) -> bool:
    """Whether ``obj`` is a table that pyarrow can read (and not already a pandas DataFrame).

    True for a pyarrow ``Table`` or ``RecordBatch`` and for any object whose type has
    ``__arrow_c_stream__`` or ``__arrow_c_array__`` (the Arrow PyCapsule interface), pandas
    objects aside (a Series exports a stream too).
    """
    if isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        return False
    kind = type(obj)
    return hasattr(kind, "__arrow_c_stream__") or hasattr(kind, "__arrow_c_array__")


def as_pandas(obj: Any, what: str = "table") -> pd.DataFrame:
    """``obj`` as a pandas DataFrame: a DataFrame as it is, an Arrow-compatible table converted.

    Parameters
    ----------
    obj : DataFrame, pyarrow.Table, pyarrow.RecordBatch or Arrow-compatible table
        Anything with the Arrow PyCapsule interface counts (a polars DataFrame, for instance);
        its columns are converted as :meth:`pyarrow.Table.to_pandas` converts them.
    what : str
        How error messages name ``obj`` (the parameter, e.g. ``"original"``).

    Returns
    -------
    pandas.DataFrame
        ``obj`` itself when it is one (never copied).

    Raises
    ------
    InputError
        ``"<what>: expected a pandas DataFrame or an Arrow-compatible table, got <type>"``, or
        an Arrow object that is not a table (a single column, for instance).

    Examples
    --------
    >>> import pyarrow as pa
    >>> as_pandas(pa.table({"age": [34, 51]}), "data")["age"].tolist()
    [34, 51]
    """
    if isinstance(obj, pd.DataFrame):
        return obj
    if not is_arrow_table(obj):
        raise InputError(
            f"{what}: expected a pandas DataFrame or an Arrow-compatible table, "
            f"got {type(obj).__name__}"
        )
    import pyarrow as pa

    try:
        table = pa.table(obj)
    except TypeError as exc:  # pyarrow < 14 reads pyarrow objects only, not capsules
        raise InputError(
            f"{what}: cannot read {type(obj).__name__} as an Arrow table with pyarrow "
            f"{pa.__version__} ({exc}); pyarrow >= 14 reads any Arrow-compatible table"
        ) from None
    except (pa.ArrowException, ValueError) as exc:
        message = " ".join(str(exc).split())
        raise InputError(
            f"{what}: {type(obj).__name__} is not an Arrow table ({message})"
        ) from None
    return table.to_pandas()


def pandas_if_arrow(obj: Any, what: str = "table") -> Any:
    """``obj`` converted by :func:`as_pandas` if it is an Arrow-compatible table, else unchanged.

    For parameters that take other things too (arrays, releases, ``Groups``), which the function
    then checks itself.
    """
    return as_pandas(obj, what) if is_arrow_table(obj) else obj


def rows_of(table: pd.DataFrame, columns: list, rows: np.ndarray) -> pd.DataFrame:
    """Columns ``columns`` (distinct names) of ``table`` at the positions ``rows``, with a fresh
    index: one take per block of columns of one type, not one per column (a table of 1,500
    columns: 0.15 s instead of 1.6 s)."""
    return table.iloc[rows, table.columns.get_indexer(columns)].reset_index(drop=True)
