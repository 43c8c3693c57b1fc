"""Utility of perturbative releases (microaggregation, noise, swapping): how far values moved.

Every function compares an ``original`` and a ``masked`` version of the same numeric records,
row by row (by position): two DataFrames (``columns`` selects the columns, default all of the
original's) or two arrays of the same shape.

- :func:`sse` — ``Σ ||x_i - x'_i||²``, or the within-group sum of squares of ``groups``;
- :func:`information_loss` — SSE, SST and SSE / SST (the microaggregation criteria of
  Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan & Claypool 2016,
  Ch. 3, in their standard form), on z-scores by default;
- :func:`il1s` — the per-cell standardized absolute distance IL1s;
- :func:`mean_changes`, :func:`variance_changes`, :func:`covariance_changes`,
  :func:`correlation_changes` — how well the moments are preserved (absolute and relative
  differences, per column or as matrices);
- :func:`utility_summary` — all of them at once (:class:`UtilitySummary`);
- :class:`MaskedPairs` — the records a report compares: those whose masked columns hold a
  number in both tables.

Variances, covariances and standard deviations are sample ones (``n - 1`` denominator), as in R.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from ..core.schema import check_frame

__all__ = [
    "Change",
    "InformationLoss",
    "MaskedPairs",
    "UtilitySummary",
    "correlation_changes",
    "covariance_changes",
    "il1s",
    "information_loss",
    "mean_changes",
    "numeric_pair",
    "sse",
    "utility_summary",
    "variance_changes",
]


def _numeric_frame(frame: pd.DataFrame, columns: list[Any], what: str) -> np.ndarray:
    check_frame(frame, columns, what=what)
    for c in columns:
        col = frame[c]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise InputError(f"{what}: column {c!r} is not numeric ({col.dtype})")
    arr = frame[columns].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        c = columns[int(np.argwhere(bad)[0][1])]
        raise InputError(
            f"{what}: column {c!r} has {int(bad[:, columns.index(c)].sum())} "
            "missing or infinite value(s)"
        )
    return arr


def numeric_pair(
    original: Any, masked: Any, columns: Sequence[Any] | None = None
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The original and masked values as two ``(n, p)`` float arrays, plus the column names.

    Parameters
    ----------
    original, masked : DataFrame or array of shape (n,) or (n, p)
        Both DataFrames with the same number of rows, or both arrays of the same shape. Rows
        are matched by position (a release keeps its input's row order but publishes a fresh
        index), not by index label.
    columns : sequence, optional
        With DataFrames: the columns to compare (default: all of ``original``'s). Not allowed
        with arrays.

    Raises
    ------
    InputError
        Mixed or mismatched inputs, absent or non-numeric columns, missing or infinite values,
        no rows.
    """
    original = pandas_if_arrow(original, "original")
    masked = pandas_if_arrow(masked, "masked")
    if isinstance(original, pd.DataFrame) != isinstance(masked, pd.DataFrame):
        raise InputError("original and masked must both be DataFrames or both be arrays")
    if isinstance(original, pd.DataFrame):
        names = list(original.columns if columns is None else columns)
        if not names:
            raise InputError("columns is empty: name at least one numeric column")
        x = _numeric_frame(original, names, "original")
        y = _numeric_frame(masked, names, "masked")
        if len(original) != len(masked):
            raise InputError(
                f"original has {len(original)} rows but masked has {len(masked)}: rows are "
                "compared by position, so both must hold the same records in the same order"
            )
        return x, y, names
    if columns is not None:
        raise InputError("columns selects DataFrame columns; pass DataFrames or drop columns")
    x, y = (_array(a, what) for a, what in ((original, "original"), (masked, "masked")))
    if x.shape != y.shape:
        raise InputError(f"original has shape {x.shape} but masked has shape {y.shape}")
    return x, y, list(range(x.shape[1]))


def _array(a: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numeric") from None
    arr = arr[:, None] if arr.ndim == 1 else arr
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InputError(f"{what} must be a non-empty 1-D or 2-D array, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{what} holds missing or infinite values")
    return arr


def _sd(x: np.ndarray) -> np.ndarray:
    return x.std(axis=0, ddof=1) if x.shape[0] > 1 else np.zeros(x.shape[1])


def _standardize(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both as z-scores with the original's means and standard deviations (constant: scale 1)."""
    mean, sd = x.mean(axis=0), _sd(x)
    scale = np.where(sd > 0, sd, 1.0)
    return (x - mean) / scale, (y - mean) / scale


def sse(original: Any, masked: Any = None, groups: Any = None) -> float:
    """Sum of squared errors between original and masked records.

    Parameters
    ----------
    original : DataFrame or array (n, p)
    masked : DataFrame or array (n, p), optional
        The published values: ``SSE = Σ_i ||x_i - x'_i||²``.
    groups : array of int (n,), optional
        Instead of ``masked``: group labels; the masked values are then the group means of
        ``original`` (the microaggregation SSE).

    Raises
    ------
    InputError
        Neither or both of ``masked`` and ``groups``; mismatched shapes (see
        :func:`numeric_pair`).

    Examples
    --------
    >>> sse([[0, 0], [1, 0], [0, 1]], groups=[0, 0, 0])
    1.3333333333333335
    """
    original = pandas_if_arrow(original, "original")
    if (masked is None) == (groups is None):
        raise InputError("give exactly one of masked (published values) or groups (labels)")
    if groups is not None:
        raw = original.to_numpy() if isinstance(original, pd.DataFrame) else original
        x = _array(raw, "original")
        labels = np.asarray(groups)
        if labels.shape != (x.shape[0],) or not np.issubdtype(labels.dtype, np.integer):
            raise InputError(f"groups must be {x.shape[0]} integer labels")
        if labels.min() < 0:
            raise InputError("groups must be non-negative integers")
        counts = np.bincount(labels)
        sums = np.column_stack(
            [np.bincount(labels, weights=col, minlength=len(counts)) for col in x.T]
        )
        return float(((x - sums[labels] / counts[labels][:, None]) ** 2).sum())
    x, y, _ = numeric_pair(original, masked)
    return float(((x - y) ** 2).sum())


@dataclass(frozen=True)
class InformationLoss:
    """SSE, SST and their ratio (the microaggregation criteria; see the module docstring).

    Attributes
    ----------
    sse : float
        ``Σ_i ||x_i - x'_i||²``.
    sst : float
        ``Σ_i ||x_i - x̄||²`` of the original.
    ratio : float
        ``sse / sst`` (0 when ``sst`` is 0 and nothing moved; ``inf`` when only ``sst`` is 0).
    standardized : bool
        Whether both were computed on z-scores (the original's means and standard deviations
        applied to both tables).
    """

    sse: float
    sst: float
    ratio: float
    standardized: bool


def information_loss(
    original: Any,
    masked: Any,
    columns: Sequence[Any] | None = None,
    *,
    standardize: bool = True,
) -> InformationLoss:
    """SSE / SST of a masked release (the information loss ``IL``).

    With ``standardize`` (default) every column is first turned into z-scores with the
    original's mean and sample standard deviation (a constant column is only centred), so that
    each column weighs the same — the convention of sdcMicro's comparisons and of
    :func:`~microanon.methods.sdc.microaggregation.microaggregation`'s ``information_loss``
    metadata. Without it, the raw values are used and large-scale columns dominate.

    Examples
    --------
    MDAV with ``k = 3`` on nine points in three clusters (SSE = 4, SST = 304):

    >>> x = [(0, 0), (1, 0), (0, 1), (10, 10), (11, 10), (10, 11), (5, 5), (6, 5), (5, 6)]
    >>> m = [(1 / 3, 1 / 3)] * 3 + [(31 / 3, 31 / 3)] * 3 + [(16 / 3, 16 / 3)] * 3
    >>> loss = information_loss(x, m, standardize=False)
    >>> round(loss.sse, 9), round(loss.sst, 9), round(loss.ratio, 6)
    (4.0, 304.0, 0.013158)
    """
    x, y, _ = numeric_pair(original, masked, columns)
    if standardize:
        x, y = _standardize(x, y)
    e = float(((x - y) ** 2).sum())
    t = float(((x - x.mean(axis=0)) ** 2).sum())
    ratio = e / t if t > 0 else (0.0 if e == 0 else float("inf"))
    return InformationLoss(e, t, ratio, bool(standardize))


def il1s(original: Any, masked: Any, columns: Sequence[Any] | None = None) -> float:
    """IL1s: the mean standardized absolute distance per cell.

    ``IL1s = 1/(n p) Σ_i Σ_j |x_ij - x'_ij| / (√2 S_j)`` with ``S_j`` the sample standard
    deviation of original column ``j`` (Mateo-Sanz, Sebé & Domingo-Ferrer 2004; divided by
    ``n p``, so that it is per cell).

    sdcMicro's ``dUtility(method = "IL1")`` computes ``|x - x'| / S_j * √2`` — multiplying by
    √2 instead of dividing — so its value is exactly **twice** this one.

    Raises
    ------
    InputError
        A column that is constant in the original (``S_j = 0``), or as :func:`numeric_pair`.

    Examples
    --------
    >>> round(il1s([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]), 6)
    0.235702
    """
    x, y, names = numeric_pair(original, masked, columns)
    flat = np.flatnonzero(_sd(x) == 0)
    if len(flat):
        raise InputError(
            f"column {names[flat[0]]!r} is constant in the original: IL1s divides by its "
            "standard deviation"
        )
    return _il1s(x, y)


def _il1s(x: np.ndarray, y: np.ndarray) -> float:
    """IL1s over the columns that vary in ``x``: a constant one has no standard deviation to
    measure its distances in and takes no part (NaN when no column varies)."""
    sd = _sd(x)
    varying = sd > 0
    if not varying.any():
        return float("nan")
    d = np.abs(x[:, varying] - y[:, varying]) / (np.sqrt(2.0) * sd[varying])
    return float(d.sum() / d.size)


@dataclass(frozen=True, eq=False)
class Change:
    """How a statistic moved from the original to the masked table.

    Attributes
    ----------
    original, masked : Series or DataFrame
        The statistic on each table (per column, or a column × column matrix).
    absolute : Series or DataFrame
        ``|masked - original|``.
    relative : Series or DataFrame
        ``|masked - original| / |original|``; 0 where both are 0, NaN where only the original
        is 0 (and where a correlation is undefined).
    """

    original: pd.Series | pd.DataFrame
    masked: pd.Series | pd.DataFrame
    absolute: pd.Series | pd.DataFrame
    relative: pd.Series | pd.DataFrame

    @property
    def max_absolute(self) -> float:
        """Largest absolute change (NaN entries ignored)."""
        return float(np.nanmax(np.asarray(self.absolute, dtype=float), initial=0.0))

    @property
    def max_relative(self) -> float:
        """Largest relative change (NaN entries ignored)."""
        rel = np.asarray(self.relative, dtype=float)
        return float(np.nanmax(rel, initial=0.0)) if not np.isnan(rel).all() else float("nan")


def _change(a: np.ndarray, b: np.ndarray, names: list[Any]) -> Change:
    diff = np.abs(b - a)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(diff == 0, 0.0, diff / np.abs(a))
    rel = np.where(np.isfinite(rel), rel, np.nan)

    def wrap(v: np.ndarray) -> pd.Series | pd.DataFrame:
        return pd.Series(v, index=names) if v.ndim == 1 else pd.DataFrame(v, names, names)

    return Change(wrap(a), wrap(b), wrap(diff), wrap(rel))


def _cov(x: np.ndarray) -> np.ndarray:
    if x.shape[0] < 2:
        return np.zeros((x.shape[1], x.shape[1]))
    return np.atleast_2d(np.cov(x, rowvar=False))


def _corr(x: np.ndarray) -> np.ndarray:
    c = _cov(x)
    sd = np.sqrt(np.diag(c))
    scale = np.outer(sd, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, c / scale, np.nan)


#: The preserved statistics: per column (means, variances) or column x column matrices.
_STATISTICS = {
    "means": lambda x: x.mean(axis=0),
    "variances": lambda x: _sd(x) ** 2,
    "covariances": _cov,
    "correlations": _corr,
}


def _statistic_change(name: str, x: np.ndarray, y: np.ndarray, names: list[Any]) -> Change:
    stat = _STATISTICS[name]
    return _change(stat(x), stat(y), names)


def mean_changes(original: Any, masked: Any, columns: Sequence[Any] | None = None) -> Change:
    """Change of each column's mean (microaggregation and swapping preserve them exactly)."""
    return _statistic_change("means", *numeric_pair(original, masked, columns))


def variance_changes(original: Any, masked: Any, columns: Sequence[Any] | None = None) -> Change:
    """Change of each column's sample variance."""
    return _statistic_change("variances", *numeric_pair(original, masked, columns))


def covariance_changes(original: Any, masked: Any, columns: Sequence[Any] | None = None) -> Change:
    """Change of the sample covariance matrix, entry by entry."""
    return _statistic_change("covariances", *numeric_pair(original, masked, columns))


def correlation_changes(original: Any, masked: Any, columns: Sequence[Any] | None = None) -> Change:
    """Change of the Pearson correlation matrix (NaN where a column is constant)."""
    return _statistic_change("correlations", *numeric_pair(original, masked, columns))


@dataclass(frozen=True, eq=False)
class UtilitySummary:
    """Every utility measure of a perturbative release (see :func:`utility_summary`).

    Attributes
    ----------
    columns : list
    rows : int
    information_loss : InformationLoss
        SSE, SST, SSE / SST (on z-scores unless ``standardize=False``).
    il1s : float
        Per-cell IL1s (half of sdcMicro's ``dUtility`` IL1) over the columns that vary in the
        original: a column constant there (every record that entered the method in the labor
        force, say, once those without a wage were left out) has no standard deviation to
        measure its distances in and takes no part; NaN when no column varies.
    means, variances, covariances, correlations : Change
    """

    columns: list[Any]
    rows: int
    information_loss: InformationLoss
    il1s: float
    means: Change
    variances: Change
    covariances: Change
    correlations: Change

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly scalars: SSE, SST, ratio, IL1s and the largest changes."""
        out: dict[str, Any] = {
            "columns": [str(c) for c in self.columns],
            "rows": self.rows,
            "sse": self.information_loss.sse,
            "sst": self.information_loss.sst,
            "information_loss": self.information_loss.ratio,
            "standardized": self.information_loss.standardized,
            "il1s": self.il1s,
        }
        for name in ("means", "variances", "covariances", "correlations"):
            change: Change = getattr(self, name)
            out[f"{name}_max_absolute"] = change.max_absolute
            out[f"{name}_max_relative"] = change.max_relative
        return out


def utility_summary(
    original: Any,
    masked: Any,
    columns: Sequence[Any] | None = None,
    *,
    standardize: bool = True,
) -> UtilitySummary:
    """SSE/SST, IL1s and the preservation of means, variances, covariances and correlations.

    Parameters
    ----------
    original, masked : DataFrame or array
        See :func:`numeric_pair`; e.g. the input of a method and ``release.data``.
    columns : sequence, optional
        The masked numeric columns (default: all of ``original``'s).
    standardize : bool
        SSE / SST on z-scores (default) or raw values (:func:`information_loss`).

    Raises
    ------
    InputError
        As :func:`numeric_pair` (a constant column is no error: see :attr:`UtilitySummary.il1s`).
    """
    x, y, names = numeric_pair(original, masked, columns)
    return UtilitySummary(
        columns=names,
        rows=x.shape[0],
        information_loss=information_loss(x, y, standardize=standardize),
        il1s=_il1s(x, y),
        **{name: _statistic_change(name, x, y, names) for name in _STATISTICS},
    )


@dataclass(frozen=True, eq=False)
class MaskedPairs:
    """The masked numeric columns of a release beside their original values, record by record:
    what the measures of a masked release compare.

    Attributes
    ----------
    original, masked : DataFrame
        The same columns, row ``i`` of both the same record: the records whose columns hold a
        number in both tables, in the records' order (a value unknown in the original, kept
        missing by ``missing: keep``, stays unknown when it is masked, and is no number to
        compare).
    unknown : int
        The records left out for an unknown value.
    """

    original: pd.DataFrame
    masked: pd.DataFrame
    unknown: int = 0

    @classmethod
    def of(
        cls, original: pd.DataFrame, masked: pd.DataFrame, columns: Sequence[Any]
    ) -> MaskedPairs:
        """From an original table and its masked release aligned by position (``columns``: the
        masked ones)."""
        columns = list(columns)
        known = (
            original[columns].notna().all(axis=1).to_numpy()
            & masked[columns].notna().all(axis=1).to_numpy()
        )
        if known.all():
            return cls(original[columns], masked[columns])
        return cls(
            original.loc[known, columns].reset_index(drop=True),
            masked.loc[known, columns].reset_index(drop=True),
            int((~known).sum()),
        )
