"""What every SDC masking method shares: input, columns, parameter checks and the release.

One input path for all of them: :func:`masking_input` validates the table against its schema
(missing-value policies, numeric coercion, hierarchy leaves, ordinal orders) exactly as
:meth:`~microanon.core.Table.from_frame` does, but does not encode it — masking numeric columns
needs no integer codes, and encoding dominates the run time on large tables (23 s for
10⁷ × 6 values against 1 s for the validation). Methods that need codes (the group modes of
:func:`~.microaggregation.microaggregation`) encode just the columns they need with
:func:`encode_columns`. :func:`masked_release` builds every release, with the metadata of
:func:`~microanon.methods.release.generalized_release`.

Error messages name the parameter or the column: ``"<parameter>: expected <what>, got <value>"``
and ``"<method>: column '<name>' ..."``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InfeasibleError, InputError
from ...core.release import Release
from ...core.schema import TRACER, Kind, Schema, check_frame, marked_missing
from ...core.table import Table
from ...models import PrivacyModel
from ..release import generalized_release

__all__ = [
    "CATEGORICAL",
    "check_flag",
    "check_k",
    "check_matrix",
    "check_vector",
    "check_number",
    "combination_codes",
    "encode_columns",
    "masked_release",
    "masking_input",
    "numeric_matrix",
    "select_columns",
    "with_columns",
]

#: The kinds of key columns that hold categories.
CATEGORICAL = (Kind.CATEGORICAL, Kind.ORDINAL)


# ---------------------------------------------------------------------- parameters
def check_number(
    value: Any,
    name: str,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """A finite real number within optional bounds, as a float.

    Raises
    ------
    InputError
        ``"<name>: expected <what>, got <value>"`` for booleans, non-numbers, NaN, infinities
        and values outside the bounds (``low_open``/``high_open`` exclude the bound itself).

    Examples
    --------
    >>> check_number(0.5, "fraction", 0, 1, low_open=True)
    0.5
    """
    ok = (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(float(value))
    )
    if ok:
        v = float(value)
        ok = (low is None or (v > low if low_open else v >= low)) and (
            high is None or (v < high if high_open else v <= high)
        )
    if not ok:
        if low is not None and high is not None:
            left, right = "(" if low_open else "[", ")" if high_open else "]"
            what = f"a number in {left}{low:g}, {high:g}{right}"
        elif low is not None:
            what = f"a finite number {'>' if low_open else '>='} {low:g}"
        elif high is not None:
            what = f"a finite number {'<' if high_open else '<='} {high:g}"
        else:
            what = "a finite number"
        raise InputError(f"{name}: expected {what}, got {value!r}")
    return float(value)


def check_flag(value: Any, name: str) -> bool:
    """``value`` if it is True or False (numpy booleans included).

    Raises
    ------
    InputError
        For anything else (``"yes"``, 1, None).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name}: expected True or False, got {value!r}")
    return bool(value)


def check_k(k: Any, n: int | None = None) -> int:
    """Validate a minimum group size ``k`` (for ``n`` records when given).

    Raises
    ------
    InputError
        ``k`` is not an integer (booleans included) or is below 1.
    InfeasibleError
        ``k`` exceeds the number of records: no group of at least ``k`` records exists.
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise InputError(f"k: expected an integer >= 1, got {k!r}")
    if n is not None and k > n:
        raise InfeasibleError(
            f"k = {k} exceeds the number of records ({n}): no group of at least k records exists"
        )
    return int(k)


# ---------------------------------------------------------------------- input
def check_matrix(X: Any, name: str = "X") -> np.ndarray:
    """``X`` as a 2-D float64 array of finite values (a 1-D array becomes one column).

    Raises
    ------
    InputError
        Not numeric, more than two dimensions, no row or no column, a NaN or an infinity.
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a numeric array") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name}: expected a 1-d or 2-d array, got {arr.ndim} dimensions")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InputError(f"{name}: expected a non-empty array, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(
            f"{name}: holds {int(bad.sum())} non-finite value(s) (NaN or inf), the first at row "
            f"{row}, column {col}; drop or impute them first"
        )
    return arr


def check_vector(x: Any, name: str = "x") -> np.ndarray:
    """``x`` as a 1-D float64 array of finite values.

    Raises
    ------
    InputError
        As :func:`check_matrix`, or more than one column.
    """
    arr = check_matrix(x, name)
    if arr.shape[1] != 1:
        raise InputError(f"{name}: expected a 1-d array, got shape {np.shape(x)}")
    return arr[:, 0]


def masking_input(
    data: pd.DataFrame, schema: Schema | Mapping[str, Any]
) -> tuple[Schema, pd.DataFrame]:
    """Validate a table against its schema without encoding it.

    The same checks as :meth:`~microanon.core.Table.from_frame` (missing-value policies, numeric
    coercion, hierarchy leaves, ordinal orders; builder hierarchies are resolved), but the values
    stay as they are.

    Returns
    -------
    schema : Schema
        Resolved, restricted to the published columns (identifiers dropped).
    frame : DataFrame
        The rows to work on (after the ``drop`` missing-value policy) and the published columns,
        indexed by their positions in ``data``.
    """
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    data = check_frame(data, schema.columns).reset_index(drop=True)
    schema = schema.resolve(data)
    clean = schema.validate(data)
    schema = schema.select(schema.published)
    return schema, clean.loc[:, schema.published]


def select_columns(
    schema: Schema,
    columns: Sequence[str] | str | None,
    kinds: Sequence[Kind],
    method: str,
) -> list[str]:
    """The columns a masking method works on: the given ones, checked, or the matching quasi-ids.

    Raises
    ------
    InputError
        An empty or duplicated list, a column not in the schema, an identifier, a sampling
        weight or stratum id (published unchanged), a column of another kind; no
        quasi-identifier of the right kind when ``columns`` is None.
    """
    kind_names = " or ".join(k.value for k in kinds)
    if columns is None:
        chosen = [q for q in schema.quasi if schema[q].kind in kinds]
        if not chosen:
            raise InputError(
                f"{method}: the schema has no {kind_names} quasi-identifier; name the columns to "
                "mask with columns="
            )
        return chosen
    chosen = [columns] if isinstance(columns, str) else list(columns)
    if not chosen:
        raise InputError(f"{method}: columns is empty; name at least one column")
    dup = sorted({str(c) for c in chosen if chosen.count(c) > 1})
    if dup:
        raise InputError(f"{method}: column(s) {', '.join(dup)} named twice in columns")
    for c in chosen:
        if c not in schema:
            raise InputError(
                f"{method}: column {c!r} is not a published column of the schema (identifiers "
                f"are dropped); available: {_listed(schema)}"
            )
        if schema[c].role.unchanged:
            raise InputError(
                f"{method}: column '{c}' has role {schema[c].role.value}, which is published "
                "unchanged; give it role insensitive to mask it"
            )
        if schema[c].kind not in kinds:
            raise InputError(
                f"{method}: column '{c}' is {schema[c].kind.value}, this method needs "
                f"{kind_names} columns"
            )
    return chosen


def refuse_marked(method: str, marked: Mapping[str, int]) -> None:
    """Refuse the numeric columns to mask whose missing values are the value ``?`` (``marked``:
    their count per column), all of them in one line, so that the advice followed once is
    enough (AER's STAR: twenty scores, teacher and school items, each missing in 41-50 % of the
    rows).

    Raises
    ------
    InputError
        Naming the method, every column with a count above 0 and its count.
    """
    found = {column: n for column, n in marked.items() if n}
    if len(found) == 1:
        ((column, n),) = found.items()
        raise InputError(
            f"{method}: column '{column}' has {n:,} missing value(s) (the value ?), which "
            "are no numbers to mask: set missing: drop for it (the rows are left out and "
            "counted), or impute them"
        )
    if found:
        counts = ", ".join(f"'{c}' {n:,}" for c, n in found.items())
        raise InputError(
            f"{method}: {len(found)} columns have missing values (the value ?), which are no "
            f"numbers to mask: {counts}; set missing: drop for each (the rows are left out and "
            "counted), or impute them"
        )


def numeric_matrix(
    frame: pd.DataFrame, columns: Sequence[str], method: str, unknown: bool = False
) -> np.ndarray:
    """The chosen columns as an ``n × p`` float array; non-finite values are refused, and so
    is a numeric quasi-identifier's missing value made the value ``?`` (``missing: value``),
    which is no number to compute with. ``unknown``: a missing value kept empty (``missing:
    keep``) is NaN instead of refused, for a method that leaves such cells as they are."""
    refuse_marked(method, {c: int(marked_missing(frame[c]).sum()) for c in columns})
    x = frame.loc[:, list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~(np.isfinite(x) | (np.isnan(x) if unknown else False)).all(axis=0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        refuse_non_finite(
            method, columns[j], int(np.isnan(x[:, j]).sum()), int(np.isinf(x[:, j]).sum())
        )
    return x


def refuse_non_finite(method: str, column: str, missing: int, infinite: int) -> None:
    """Refuse a numeric column to mask that holds ``missing`` missing values (kept empty,
    ``missing: keep``) and ``infinite`` infinite ones, naming the counts and what to do.

    Raises
    ------
    InputError
        When either count is not 0.
    """
    if missing:
        raise InputError(
            f"{method}: column '{column}' has {missing:,} missing value(s), which are no "
            "numbers to mask: set missing: drop for it (the rows are left out and counted), or "
            "impute them"
        )
    if infinite:
        raise InputError(
            f"{method}: column '{column}' holds {infinite:,} infinite value(s), which cannot "
            "be masked: replace them, or leave those rows out"
        )


def encode_columns(
    frame: pd.DataFrame, schema: Schema, columns: Sequence[str]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Integer codes and dictionary of a few validated columns, in the order :class:`Table` uses.

    A column with a hierarchy is coded by leaf index, an ordinal one in its declared order, any
    other in sorted order — so "the first value of the dictionary" means the same everywhere.
    """
    if not columns:
        return {}
    table = Table.from_frame(frame.loc[:, list(columns)], schema.select(list(columns)))
    return {c: (table.codes(c), table.dictionary(c)) for c in columns}


def _named(schema: Schema, names: Sequence[str] | str | None, what: str) -> list[str]:
    """Strata or key columns, checked: published columns of the schema, each named once."""
    if names is None:
        return []
    chosen = [names] if isinstance(names, str) else list(names)
    if not chosen:
        raise InputError(f"{what}: the list is empty; name at least one column or leave it out")
    for c in chosen:
        if c not in schema:
            raise InputError(
                f"{what}: column {c!r} is not a published column of the schema; available: "
                f"{_listed(schema)}"
            )
        if chosen.count(c) > 1:
            raise InputError(f"{what}: column {c!r} named twice")
    return chosen


def combination_codes(
    frame: pd.DataFrame, columns: Sequence[str], *, observed: bool | None = None
) -> np.ndarray:
    """Number of each record's combination of values in ``columns``, in order of first appearance.

    Missing is a value. ``observed`` is passed to :meth:`pandas.DataFrame.groupby` only when
    given (``None`` keeps pandas' default), so every caller keeps the numbering it had.
    """
    cols = list(columns)
    options = {} if observed is None else {"observed": observed}
    grouped = frame.loc[:, cols].groupby(cols, sort=False, dropna=False, **options)
    return grouped.ngroup().to_numpy()


# ---------------------------------------------------------------------- output
def with_columns(frame: pd.DataFrame, values: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with some columns replaced by new values, without copying the other columns."""
    data = {c: (values[c] if c in values else frame[c]) for c in frame.columns}
    return pd.DataFrame(data, index=frame.index, copy=False)


def masked_release(
    method: str,
    published: pd.DataFrame,
    schema: Schema,
    parameters: Mapping[str, Any],
    rows_in: int,
    models: Sequence[PrivacyModel] = (),
    public: Sequence[str] = (),
    **metadata: Any,
) -> Release:
    """The ``masked`` release of an SDC method, with the metadata every method records.

    Metadata: that of :func:`~microanon.methods.release.generalized_release` (``method``,
    ``parameters``, ``models``, ``quasi``, ``sensitive``, ``hierarchies``, ``rows_in``,
    ``rows_out``) plus ``metadata``. Methods that replace numeric values record by record (same
    rows, same order) list those columns in ``masked_numeric``: the report compares them with
    the original ones by position.
    """
    table = Table({}, {}, schema)  # only its schema is read; the row count is given explicitly
    return generalized_release(
        method,
        published,
        table,
        parameters,
        models,
        kind="masked",
        public=("masked_numeric", *public),
        rows_in=rows_in,
        **metadata,
    )


def _listed(schema: Schema) -> str:
    """The schema's columns as a message lists them (a pipeline's record tracer is none)."""
    return ", ".join(c for c in schema.columns if c != TRACER)
