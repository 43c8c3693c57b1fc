"""One bounded aggregate query over a distribution release: :func:`bounded_aggregate`."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.release import Release

from .bounds import AGGREGATES, BoundTables, column_bounds
from .sql import where_mask

__all__ = ["AggregateBound", "bounded_aggregate"]

#: What ``where`` may be: a boolean mask over the records, a function of the record table
#: returning one, or an SQL condition.
Where = np.ndarray | pd.Series | Callable[[pd.DataFrame], Any] | str | None


@dataclass(frozen=True)
class AggregateBound:
    """Guaranteed bounds of one aggregate.

    Attributes
    ----------
    aggregate : str
        ``count``, ``sum``, ``avg``, ``min`` or ``max``.
    column : str or None
        The aggregated column (the sensitive one unless a published column was asked for).
    lower, upper : float or None
        The true answer lies in ``[lower, upper]`` (floats rounded outward, never inward).
        ``None`` when the aggregate is undefined: AVG, MIN or MAX of an empty selection. COUNT
        and SUM of an empty selection are 0.
    count : int
        Records selected (exact: the quasi-identifiers are published exactly).
    groups : int
        Groups with at least one selected record.
    exact : (Fraction, Fraction) or None
        The bounds as exact rationals, when they are known exactly: always for COUNT, MIN and
        MAX; for SUM and AVG when the sums are exact in float64 (whole-number values, see
        :class:`BoundTables`). ``None`` otherwise and for undefined aggregates.
    """

    aggregate: str
    column: str | None
    lower: float | None
    upper: float | None
    count: int
    groups: int
    exact: tuple[Fraction, Fraction] | None = None

    @property
    def width(self) -> float | None:
        """``upper - lower`` (``None`` when undefined)."""
        return None if self.lower is None or self.upper is None else self.upper - self.lower

    def contains(self, value: float | Fraction | None) -> bool:
        """Whether ``value`` lies in the bounds (exactly, with the rational bounds if known)."""
        if self.lower is None or self.upper is None:
            return value is None
        if value is None:
            return False
        if self.exact is not None:
            v = Fraction(value)
            return self.exact[0] <= v <= self.exact[1]
        return self.lower <= value <= self.upper


def selection_mask(
    where: Any, n_rows: int, qit: pd.DataFrame | None, source: Any, sensitive: str | None
) -> np.ndarray:
    """The boolean selection ``where`` describes, one value per published record.

    ``where`` is ``None`` (every record), an SQL condition (evaluated by
    :func:`~.sql.where_mask` on ``source``), a function of the published record table ``qit``,
    or one boolean per record. Shared by :func:`bounded_aggregate` and
    :func:`~.sensitive_count.sensitive_count`.
    """
    if where is None:
        return np.ones(n_rows, dtype=bool)
    if isinstance(where, str):
        if qit is None:
            raise InputError("an SQL condition needs the published record table")
        return where_mask(source, where, sensitive)
    if callable(where):
        if qit is None:
            raise InputError("a condition function needs the published record table")
        where = where(qit)
    if isinstance(where, pd.Series):
        if where.isna().any():
            raise InputError("where: the selection has missing values; fill them with False")
        where = where.to_numpy()
    mask = np.asarray(where)
    if mask.dtype != bool or mask.shape != (n_rows,):
        raise InputError(
            f"where: expected one boolean per published record ({n_rows}), got "
            f"{mask.dtype} of shape {mask.shape}"
        )
    return mask


def _mask(tables: BoundTables, where: Where) -> np.ndarray:
    """The boolean selection ``where`` describes, one value per published record."""
    sensitive = None if tables.sensitive is None else str(tables.sensitive)
    return selection_mask(where, tables.n_rows, tables.qit, tables, sensitive)


def _fraction(x: float) -> Fraction | None:
    return None if np.isnan(x) else Fraction(float(x))


def bounded_aggregate(
    release: Release | BoundTables,
    agg: str,
    where: Where = None,
    column: Hashable | None = None,
) -> AggregateBound:
    """Guaranteed bounds of ``agg(column) WHERE where`` from a distribution release alone.

    Parameters
    ----------
    release : Release or BoundTables
        A ``distribution`` release, or its bound tables (built once with
        :meth:`BoundTables.from_release`; faster for many queries).
    agg : {"count", "sum", "avg", "min", "max"}
    where : bool array or Series, callable, str or None
        The records selected: a boolean mask over the published record table (``qit`` row
        order), a function of that table returning such a mask, or an SQL condition on its
        columns (``"age BETWEEN 30 AND 40 AND sex = 'F'"``, evaluated by DuckDB). ``None``
        selects every record.
    column : str, optional
        The aggregated column: the sensitive column (default; bounded) or a published numeric
        column (exact).

    Returns
    -------
    AggregateBound

    Raises
    ------
    InputError
        Unknown aggregate or column, a selection of the wrong length, a condition on the
        sensitive column, or a release that is not a distribution release.

    Examples
    --------
    >>> b = bounded_aggregate(release, "avg", where="gender = 'F'")  # doctest: +SKIP
    >>> b.lower, b.upper, b.count
    (35000.0, 55000.0, 6)
    """
    tables = release if isinstance(release, BoundTables) else BoundTables.from_release(release)
    function = str(agg).lower()
    if function not in AGGREGATES:
        raise InputError(f"agg must be one of {', '.join(AGGREGATES)}, got {agg!r}")
    sensitive = tables.sensitive
    name = sensitive if column is None else column
    mask = _mask(tables, where)
    counts = tables.counts(mask)
    n, touched = int(counts.sum()), int((counts > 0).sum())
    if name is not None and name == sensitive:
        b = tables.bounds(function, counts)
        lower, upper = float(b.lower[0]), float(b.upper[0])
        exact = _bounded_exact(tables, function, counts, lower, upper, n)
    else:
        if tables.qit is None or name not in tables.qit.columns:
            raise InputError(
                f"column {name!r} is neither the sensitive column ({sensitive!r}) nor a "
                "published record column"
            )
        values = tables.qit[name][mask]
        keys = np.zeros(len(values), dtype=np.int64)
        lo, hi, is_exact = column_bounds(values, keys, 1, function, name)
        lower, upper = float(lo[0]), float(hi[0])
        exact = (_fraction(lower), _fraction(upper)) if is_exact else None
        if function == "avg" and not np.isnan(lower):  # exact sum / count, when the sum is
            total, _, sum_exact = column_bounds(values, keys, 1, "sum", name)
            present = int(column_bounds(values, keys, 1, "count", name)[0][0])
            exact = (Fraction(float(total[0])) / present,) * 2 if sum_exact else None
    if np.isnan(lower):
        return AggregateBound(function, _name(name), None, None, n, touched, None)
    return AggregateBound(function, _name(name), lower, upper, n, touched, exact)


def _name(name: Hashable | None) -> str | None:
    return None if name is None else str(name)


def _bounded_exact(
    tables: BoundTables, function: str, counts: np.ndarray, lower: float, upper: float, n: int
) -> tuple[Fraction, Fraction] | None:
    """Exact rational bounds of a sensitive aggregate, when they are cheap and exact."""
    if np.isnan(lower):
        return None
    if function in ("count", "min", "max"):
        return Fraction(lower), Fraction(upper)
    if not tables.exact:
        return None
    s = tables.bounds("sum", counts)
    lo, hi = Fraction(float(s.lower[0])), Fraction(float(s.upper[0]))
    return (lo, hi) if function == "sum" else (lo / n, hi / n)
