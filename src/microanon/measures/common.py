"""Shared validation and grouping helpers of :mod:`microanon.measures`.

Every measure takes a pandas DataFrame and a list of quasi-identifier (QI) column names. Rows are
grouped by their QI values without Python loops: each column is factorized with
:func:`microanon.core.table.factorize_column` and the code columns are combined with
:func:`microanon.core.table.combine_codes`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import HierarchyError, InputError
from ..core.factorize import sorted_distinct
from ..core.hierarchy import SUPPRESSED, Hierarchy, parse_interval
from ..core.schema import check_frame
from ..core.table import combine_codes, factorize_column

#: Used across the measures; :func:`check_share` also by the out-of-core profiles
#: (:mod:`microanon.scale.profile`), which check their shares as the measures do.
__all__ = [
    "Cells",
    "NumericDomain",
    "check_count",
    "check_counts",
    "check_hierarchies",
    "check_quasi",
    "check_share",
    "group_rows",
    "normalize_columns",
    "numeric_leaves",
    "numeric_values",
    "range_reduce",
    "resolve_cells",
]


def check_quasi(data: Any, quasi: Any, what: str = "table") -> list[str]:
    """Validate ``data`` and the QI column list; return the QI names as a list.

    Raises
    ------
    InputError
        If ``data`` is not a DataFrame, is empty or has duplicate column names; if ``quasi`` is
        empty, names a column twice or names a column that is absent.
    """
    check_frame(data, None, what=what)
    cols = normalize_columns(quasi, "quasi")
    check_frame(data, cols, what=what)
    return cols


def normalize_columns(quasi: Any, param: str) -> list[str]:
    """Turn a column name or an iterable of names into a non-empty list without duplicates."""
    if isinstance(quasi, str):
        cols = [quasi]
    elif isinstance(quasi, Iterable) and not isinstance(quasi, (bytes, Mapping)):
        cols = list(quasi)
    else:
        raise InputError(f"'{param}' must be a list of column names, got {type(quasi).__name__}")
    if not cols:
        raise InputError(f"'{param}' is empty: name at least one quasi-identifier column")
    seen: set[Any] = set()
    dup = []
    for c in cols:
        if c in seen:
            dup.append(c)
        seen.add(c)
    if dup:
        raise InputError(
            f"'{param}' names column(s) more than once: {', '.join(map(repr, dict.fromkeys(dup)))}"
        )
    return cols


def check_count(value: Any, param: str) -> int:
    """A non-negative whole number (such as a number of suppressed rows)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"'{param}' must be a non-negative integer, got {value!r}")
    if not math.isfinite(float(value)) or float(value) != int(value) or value < 0:
        raise InputError(f"'{param}' must be a non-negative integer, got {value!r}")
    return int(value)


def check_share(value: Any, param: str) -> float:
    """A number in ``(0, 1]`` (a risk threshold, a sampling fraction)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"'{param}' must be a number in (0, 1], got {value!r}")
    share = float(value)
    if not (math.isfinite(share) and 0.0 < share <= 1.0):
        raise InputError(f"'{param}' must be in (0, 1], got {value!r}")
    return share


def check_counts(counts: Any, rows: int) -> np.ndarray | None:
    """The records each row of a frequency table stands for, checked (None: one each).

    A measure given ``counts`` reads its table as distinct combinations, row ``i`` holding
    ``counts[i]`` records: it gives the value it gives on the table with each row repeated that
    many times.

    Raises
    ------
    InputError
        Not one whole number, at least 1, per row.
    """
    if counts is None:
        return None
    w = np.asarray(counts)
    if w.shape != (rows,) or not (
        np.issubdtype(w.dtype, np.integer) or np.issubdtype(w.dtype, np.floating)
    ):
        raise InputError(f"'counts' must hold one number of records per row ({rows})")
    if not np.all(np.isfinite(w)) or np.any(w < 1) or np.any(w != np.floor(w)):
        raise InputError("'counts' must be whole numbers, each at least 1 (a row's records)")
    return w.astype(np.int64)


def group_rows(
    data: pd.DataFrame, quasi: Sequence[str], counts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Group rows into equivalence classes (identical values on every QI column).

    ``counts``: records per row (:func:`check_counts`; None: one each).

    Returns
    -------
    sizes : (n_classes,) int64 array
        Class sizes (in records), classes ordered by their first row.
    row_class : (n_rows,) int64 array
        Class index of every row.
    """
    factorized = [factorize_column(data[c], c) for c in quasi]
    _, counts_of_class, inverse, first = combine_codes(
        [codes for codes, _ in factorized], [len(u) for _, u in factorized]
    )
    # Reorder classes by first appearance so the order does not depend on code values.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order), dtype=np.int64)
    row_class = rank[inverse]
    if counts is not None:
        return np.bincount(row_class, weights=counts).astype(np.int64), row_class
    return counts_of_class[order], row_class


def check_hierarchies(
    data: Any, hierarchies: Any, quasi: Any, domains: Any = None
) -> tuple[list[str], dict[str, Hierarchy], dict[str, NumericDomain]]:
    """Validate a table, a mapping column -> Hierarchy, optional numeric domains and the QI list.

    The QI list defaults to the keys of ``hierarchies`` followed by those of ``domains``. Every
    QI column needs a hierarchy or, if it is numeric, a domain (not both).

    Returns
    -------
    cols : list of str
        The QI columns.
    hierarchies : dict of str to Hierarchy
        The QI columns that have a hierarchy.
    domains : dict of str to NumericDomain
        The numeric domain of every QI column that has one: the hierarchy's leaves when they
        are all numbers, else the values given in ``domains``.

    Raises
    ------
    InputError
        Bad table or QI list (see :func:`check_quasi`), ``hierarchies`` not a mapping of
        :class:`Hierarchy`, a QI column with neither a hierarchy nor a domain, a column with
        both, a domain for a column that is not a QI, or a domain that is not a set of numbers.
    """
    if not isinstance(hierarchies, Mapping):
        raise InputError(
            f"'hierarchies' must be a mapping column -> Hierarchy, got {type(hierarchies).__name__}"
        )
    if domains is None:
        domains = {}
    if not isinstance(domains, Mapping):
        raise InputError(
            "'domains' must be a mapping column -> numeric values (e.g. the original column), "
            f"got {type(domains).__name__}"
        )
    if quasi is None:
        if not hierarchies and not domains:
            raise InputError("'hierarchies' is empty and no 'quasi' columns were given")
        quasi = list(hierarchies) + [c for c in domains if c not in hierarchies]
    cols = check_quasi(data, quasi)
    both = [c for c in cols if c in hierarchies and c in domains]
    if both:
        raise InputError(
            f"column(s) {', '.join(map(repr, both))} have both a hierarchy and a domain; the "
            "domain of a column with a hierarchy is its leaves, so give only one of them"
        )
    stray = [c for c in domains if c not in cols]
    if stray:
        raise InputError(
            f"'domains' names column(s) {', '.join(map(repr, stray))} that are not "
            f"quasi-identifiers here ({', '.join(map(repr, cols))})"
        )
    absent = [c for c in cols if c not in hierarchies and c not in domains]
    if absent:
        raise InputError(
            f"quasi-identifier column(s) {', '.join(map(repr, absent))} have no hierarchy; pass "
            "one per column in 'hierarchies' (available: "
            + (", ".join(map(repr, hierarchies)) or "none")
            + "), or for a numeric column its values in 'domains'"
        )
    bad = [c for c in cols if c in hierarchies and not isinstance(hierarchies[c], Hierarchy)]
    if bad:
        raise InputError(
            f"'hierarchies' entry for column(s) {', '.join(map(repr, bad))} is not a Hierarchy "
            f"(got {type(hierarchies[bad[0]]).__name__}); build one with Hierarchy.from_arx_csv, "
            "Hierarchy.from_nested or a builder"
        )
    hs = {c: hierarchies[c] for c in cols if c in hierarchies}
    doms = {c: NumericDomain.from_values(domains[c], c) for c in cols if c in domains}
    for c, h in hs.items():
        leaves = numeric_leaves(h)
        if leaves is not None:
            doms[c] = NumericDomain.from_values(leaves, c, h.weights)
    return cols, hs, doms


def range_reduce(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """``ufunc.reduce(values[lo[i]:hi[i]])`` for every non-empty interval, vectorized."""
    values = np.asarray(values)
    if len(lo) == 0:
        return np.empty(0, dtype=values.dtype)
    ext = np.append(values, values[-1:])  # so that hi == len(values) is a valid reduceat index
    idx = np.empty(2 * len(lo), dtype=np.int64)
    idx[0::2] = lo
    idx[1::2] = hi
    return ufunc.reduceat(ext, idx)[0::2]


# ---------------------------------------------------------------------------------- value ranges
def numeric_values(values: Sequence[Any]) -> np.ndarray | None:
    """Values as floats, or None if some value is not a finite number (booleans included)."""
    values = list(values)
    if any(isinstance(v, (bool, np.bool_)) for v in values):
        return None
    vals = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(vals)):
        return None
    return vals


def numeric_leaves(h: Hierarchy) -> np.ndarray | None:
    """Leaf values as floats in depth-first order, or None if some leaf is not a finite number."""
    return numeric_values(h.leaves)


@dataclass(frozen=True)
class NumericDomain:
    """The ordered domain of a numeric quasi-identifier, with leaf weights.

    Attributes
    ----------
    values : (d,) float array
        Domain values, ascending.
    weights : (d,) float array
        Weight of each value (1 unless the hierarchy has leaf weights).
    """

    values: np.ndarray
    weights: np.ndarray

    @classmethod
    def from_values(
        cls, values: Any, column: str, weights: np.ndarray | None = None
    ) -> NumericDomain:
        """Build from numbers (an original column or its distinct values; repeats are merged).

        Raises
        ------
        InputError
            No values, a missing value, or a value that is not a finite number.
        """
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(
            values, (Iterable, np.ndarray, pd.Series, pd.Index)
        ):
            raise InputError(
                f"'domains' entry for column '{column}' must be a list of numbers (e.g. the "
                f"original column), got {type(values).__name__}"
            )
        series = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
        num = pd.to_numeric(series.astype(object), errors="coerce").astype(float)
        bad = series[num.isna() | ~np.isfinite(num)]
        if len(bad):
            raise InputError(
                f"'domains' entry for column '{column}' must hold finite numbers, got "
                f"{bad.iloc[0]!r}"
            )
        if len(num) == 0:
            raise InputError(f"'domains' entry for column '{column}' is empty")
        vals = num.to_numpy()
        w = np.ones(len(vals)) if weights is None else np.asarray(weights, dtype=float)
        if weights is None:
            vals = sorted_distinct(vals)
            w = np.ones(len(vals))
        order = np.argsort(vals, kind="stable")
        return cls(vals[order], w[order])

    @property
    def size(self) -> int:
        """Number of domain values."""
        return len(self.values)

    def positions(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index interval ``[a, b)`` of the domain values inside each closed range."""
        return (
            np.searchsorted(self.values, lo, side="left"),
            np.searchsorted(self.values, hi, side="right"),
        )


@dataclass(frozen=True)
class Cells:
    """The distinct values of a published quasi-identifier column, resolved.

    Attributes
    ----------
    nodes : (m,) int64
        Hierarchy node of each distinct value; -1 for a value range.
    lo, hi : (m,) float
        Bounds of each value range (NaN for nodes).
    counts : (m,) int64
        Rows holding each distinct value.
    labels : list
        The distinct values.
    """

    nodes: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    labels: list[Any]

    @property
    def ranges(self) -> np.ndarray:
        """Mask of the value ranges."""
        return self.nodes < 0


def resolve_cells(
    column: pd.Series,
    hierarchy: Hierarchy | None,
    domain: NumericDomain | None,
    name: str,
    counts: np.ndarray | None = None,
) -> Cells:
    """Resolve the distinct values of a (possibly generalized) quasi-identifier column.

    With a hierarchy, a value is one of its labels (``"*"`` is the root) or, for a numeric
    column, a range ``"[lo, hi]"`` or ``"[lo, hi)"`` that is not a label. Without a hierarchy
    (a numeric column with a given domain) a value is a number, a range or ``"*"`` (the whole
    domain). A closed range must satisfy ``lo <= hi``, lie inside the domain's ``[min, max]``
    and cover at least one domain value; a half-open one spans the domain values it holds
    (at least one). ``counts``: records per row (None: one each).

    Raises
    ------
    InputError
        Missing values in the column.
    HierarchyError
        A value that is none of the above, naming the column and the value.
    """
    codes, uniques = factorize_column(column, name)
    labels = list(uniques)
    rows = np.bincount(codes, weights=counts, minlength=len(labels)).astype(np.int64)
    nodes = np.full(len(labels), -1, dtype=np.int64)
    lo = np.full(len(labels), np.nan)
    hi = np.full(len(labels), np.nan)
    parsed = [_value_range(v, domain) for v in labels]
    if hierarchy is not None:
        # Labels first; a numeric column's ranges that are not labels are value ranges.
        ranged = [i for i, p in enumerate(parsed) if p is not None and domain is not None]
        plain = [i for i in range(len(labels)) if parsed[i] is None or domain is None]
        nodes[plain] = hierarchy.node_of([labels[i] for i in plain], column=name)
        for i in ranged:
            try:
                nodes[i] = hierarchy.node_of([labels[i]], column=name)[0]
            except HierarchyError:
                lo[i], hi[i] = parsed[i]
    else:
        for i, (label, p) in enumerate(zip(labels, parsed, strict=True)):
            if p is not None:
                lo[i], hi[i] = p
            elif isinstance(label, str) and label.strip() == SUPPRESSED:
                lo[i], hi[i] = domain.values[0], domain.values[-1]
            else:
                number = _number(label)
                if number is None:
                    raise HierarchyError(
                        f"column '{name}': value {label!r} is neither a number, a range "
                        "('[lo, hi]', '[lo, hi)') nor '*'"
                    )
                lo[i] = hi[i] = number
    cells = Cells(nodes, lo, hi, rows, labels)
    if cells.ranges.any() and domain is not None:
        _check_ranges(cells, domain, name)
    return cells


def _value_range(label: Any, domain: NumericDomain | None) -> tuple[float, float] | None:
    """The values a range label spans: a closed range ``"[lo, hi]"`` as written; a half-open
    one (``"[30, 40)"``, whose bounds a builder puts between the data's values) from the
    smallest to the largest domain value it holds, as a hierarchy's node of those leaves
    spans; None for any other value."""
    interval = parse_interval(label)
    if interval is None:
        return None
    if (interval.closed_lo and interval.closed_hi) or domain is None:
        return interval.lo, interval.hi
    values = domain.values
    a = np.searchsorted(values, interval.lo, side="left" if interval.closed_lo else "right")
    b = np.searchsorted(values, interval.hi, side="right" if interval.closed_hi else "left")
    if b <= a:  # holds no value: _check_ranges names it
        return interval.lo, interval.lo - 1
    return float(values[a]), float(values[b - 1])


def _number(value: Any) -> float | None:
    """A finite number, or None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _check_ranges(cells: Cells, domain: NumericDomain, name: str) -> None:
    """Every range is ordered, inside the domain, and covers at least one domain value."""
    idx = np.flatnonzero(cells.ranges)
    lo, hi = cells.lo[idx], cells.hi[idx]
    a, b = domain.positions(lo, hi)
    bad = (lo > hi) | (lo < domain.values[0]) | (hi > domain.values[-1]) | (b <= a)
    if bad.any():
        label = cells.labels[idx[np.argmax(bad)]]
        raise HierarchyError(
            f"column '{name}': range {label!r} is not a generalization of its domain "
            f"[{domain.values[0]:g}, {domain.values[-1]:g}] ({domain.size} values): a range "
            "needs lo <= hi, must lie inside the domain and must contain one of its values"
        )
