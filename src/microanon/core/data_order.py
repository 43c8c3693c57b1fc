"""The order a column of the data declares for its values: an ordered categorical's categories.

A table can carry an order of its own: a pandas ``Categorical`` with ``ordered=True`` (an R
ordered factor, ``pd.cut``'s bins), and so an Arrow dictionary type with ``ordered=True``, as a
Parquet or Feather file written by pandas or R's arrow keeps it (read back, or given as a
pyarrow or pandas-on-Arrow table). Such a column's categories, in their order, are its ordinal
``order``: stated by the data's owner, as a schema's ``order`` is, so they are public by that
statement (a category no row holds included). :meth:`~microanon.core.schema.Schema.with_data_orders`
applies them to a schema; ``microanon init`` proposes them (``kind: ordinal``).

An unordered categorical declares no order: its categories are no more than values (a Parquet
file's text categories are a codebook to ``microanon init``, as an SPSS file's value labels).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["data_order", "data_orders"]


def data_order(column: pd.Series) -> tuple[Any, ...] | None:
    """The categories of an ordered categorical column, in their order; None for any other.

    Parameters
    ----------
    column : Series
        A pandas ``Categorical`` column, or one backed by an Arrow dictionary array
        (``pd.ArrowDtype(pa.dictionary(...))``); any other column declares no order.

    Returns
    -------
    tuple or None
        Every category, those no row holds included, lowest first; None for a column that is
        not ordered (or declares no category).

    Examples
    --------
    >>> levels = pd.Categorical(["S", "P"], categories=["P", "S", "PS"], ordered=True)
    >>> data_order(pd.Series(levels))
    ('P', 'S', 'PS')
    >>> data_order(pd.Series(["S", "P"], dtype="category")) is None
    True
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        if not dtype.ordered or not len(dtype.categories):
            return None
        return tuple(dtype.categories.tolist())
    if isinstance(dtype, pd.ArrowDtype):
        return _arrow_order(column)
    return None


def data_orders(frame: pd.DataFrame) -> dict[str, tuple[Any, ...]]:
    """:func:`data_order` of every column of ``frame`` that declares one, by column name (as
    text, as a schema names it); the columns of other types are not looked at."""
    out = {}
    for i, dtype in enumerate(frame.dtypes):
        if isinstance(dtype, (pd.CategoricalDtype, pd.ArrowDtype)):
            order = data_order(frame.iloc[:, i])
            if order is not None:
                out[str(frame.columns[i])] = order
    return out


def _arrow_order(column: pd.Series) -> tuple[Any, ...] | None:
    """The dictionary of an ordered Arrow dictionary column, as pyarrow converts it to pandas
    (one dictionary for all its chunks, the first chunk's values first)."""
    import pyarrow as pa

    kind = column.dtype.pyarrow_dtype
    if not pa.types.is_dictionary(kind) or not kind.ordered:
        return None
    arrow = pa.chunked_array(column.array.__arrow_array__())
    if arrow.num_chunks == 0:
        return None
    dictionary = arrow.unify_dictionaries().chunk(0).dictionary
    return tuple(dictionary.to_pylist()) or None
