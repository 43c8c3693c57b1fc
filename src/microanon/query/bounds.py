"""Per-group auxiliary bound tables of a distribution release, vectorized.

The auxiliary tables of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1):958–969, 2009; the bounds below are our derivation, which reproduces
every number of the paper's examples.

A distribution release publishes, per group, the exact quasi-identifiers of its records (``qit``)
and a multiset of sensitive *entries* ``[low, high]`` (``st``; real and fake entries look alike).
A query that selects ``k`` records of a group selects ``k`` distinct entries, each holding its
record's value, so whatever the hidden matching is:

- ``SUM ∈ [SUM_lo(k), SUM_hi(k)]``: the sum of the ``k`` smallest lows, of the ``k`` largest highs;
- ``MIN ∈ [min low of the group, k-th largest high]`` (among any ``k`` entries the smallest high
  is at most the k-th largest high);
- ``MAX ∈ [k-th smallest low, max high of the group]``.

Over several groups SUM bounds add, MIN and MAX bounds combine with min and max, AVG is SUM over
the exact count. :class:`BoundTables` holds these tables for every group and every
``k = 0..|g|`` in flat arrays (group ``g``'s row ``k`` at ``offsets[g] + k``), built in one sort;
a batch of queries, given as a (queries × groups) matrix of selected counts, is answered with one
gather and one reduction — no Python loop over groups or queries.

Guaranteed intervals: the tables are float64. When every low and high is a whole number and the
sum of their magnitudes is below 2**53 (salaries, capital loss, ...), every partial sum is an
integer that float64 holds exactly, so SUM bounds are exact. Otherwise SUM bounds are widened by
an a-priori bound on the floating-point error of the summation (a few ulps of the total
magnitude). AVG divides with outward rounding (one ulp unless the division is exact). MIN and MAX
bounds are published values, never rounded. Rounding therefore never shrinks an interval.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.release import Release

__all__ = ["AGGREGATES", "BoundArrays", "BoundTables", "column_bounds"]

AGGREGATES = ("count", "sum", "avg", "min", "max")
"""Aggregates with guaranteed bounds."""

#: Column of the group id in both tables of a distribution release.
GROUP = "group"

_EXACT_LIMIT = 2.0**53


@dataclass(frozen=True, eq=False)
class BoundArrays:
    """Bounds of a batch of queries (one entry per query).

    Attributes
    ----------
    aggregate : str
    lower, upper : (n_queries,) float64 arrays
        Guaranteed bounds; NaN where the aggregate is undefined (AVG, MIN, MAX of an empty
        selection).
    count : (n_queries,) int64 array
        Records selected (exact).
    groups : (n_queries,) int64 array
        Groups with at least one selected record.
    """

    aggregate: str
    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    groups: np.ndarray


class BoundTables:
    """The auxiliary bound tables of a distribution release, for fast batches of queries.

    Build with :meth:`from_release` (or :meth:`from_entries`); then turn row selections into
    per-group selected counts (:meth:`counts`, :meth:`range_counts`) and the counts into bounds
    (:meth:`bounds`).

    Parameters
    ----------
    group, low, high, count : array-like
        The entries: group id, smallest and largest domain value of the subdomain, and how many
        entries of the group have it.
    row_group : array-like
        The group id of every published record (the ``qit`` rows, in order).
    qit : DataFrame, optional
        The published record table, for conditions on its columns.
    sensitive : str, optional
        Name of the sensitive column.

    Attributes
    ----------
    groups : (G,) array
        Group ids, sorted.
    sizes : (G,) int64 array
        Records per group: the largest ``k`` of each table.
    entries : (G,) int64 array
        Entries per group (records plus fakes).
    offsets : (G,) int64 array
        Position of each group's ``k = 0`` row in the flat tables.
    sum_lo, sum_hi : float64 arrays
        Flat tables: sum of the ``k`` smallest lows / ``k`` largest highs.
    kth_low, kth_high : float64 arrays
        Flat tables: ``k``-th smallest low / ``k``-th largest high (``-inf`` / ``+inf`` at
        ``k = 0``).
    min_low, max_high : (G,) float64 arrays
        Smallest low and largest high of each group.
    exact : bool
        Whether SUM bounds are exact (whole-number entries, total magnitude below 2**53).
    slack : float
        How much SUM bounds are widened for floating-point error (0 when ``exact``).
    row_index : (n_rows,) int64 array
        Group position (into ``groups``) of every record.

    Raises
    ------
    InputError
        Missing or non-finite values, ``low > high``, counts below 1, records in a group without
        entries, or a group with fewer entries than records.
    """

    def __init__(
        self,
        group: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
        count: np.ndarray,
        row_group: np.ndarray,
        qit: pd.DataFrame | None = None,
        sensitive: Hashable | None = None,
    ) -> None:
        group, low, high, count = _entries(group, low, high, count)
        self.groups, entry_index = np.unique(group, return_inverse=True)
        n_groups = len(self.groups)
        row_group = np.asarray(row_group)
        row_index = np.searchsorted(self.groups, row_group)
        known = row_index < n_groups
        known[known] = self.groups[row_index[known]] == row_group[known]
        if not known.all():
            raise InputError(
                f"record group {_scalar(row_group[~known][0])!r} has no entries in the st table"
            )
        self.row_index = row_index.astype(np.int64)
        self.sizes = np.bincount(self.row_index, minlength=n_groups).astype(np.int64)
        self.entries = np.bincount(entry_index, weights=count, minlength=n_groups).astype(np.int64)
        short = np.flatnonzero(self.entries < self.sizes)
        if len(short):
            g = short[0]
            raise InputError(
                f"group {_scalar(self.groups[g])!r} has {self.sizes[g]} records but only "
                f"{self.entries[g]} entries; every record needs an entry"
            )
        self.qit = qit
        self.sensitive = sensitive
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes + 1)[:-1]]).astype(np.int64)

        # Entries expanded by count and sorted within each group, lows ascending and highs
        # descending: the k smallest lows and the k largest highs are the first k of the block.
        expanded = np.repeat(entry_index, count)
        lows, highs = np.repeat(low, count), np.repeat(high, count)
        starts = np.concatenate([[0], np.cumsum(self.entries)[:-1]])
        by_low = np.lexsort((lows, expanded))
        by_high = np.lexsort((-highs, expanded))
        lows, highs = lows[by_low], highs[by_high]
        # Row k (1..size) of group g takes sorted element starts[g] + k - 1.
        k = np.arange(len(self.row_index) + n_groups) - np.repeat(self.offsets, self.sizes + 1)
        g = np.repeat(np.arange(n_groups), self.sizes + 1)
        pick = starts[g] + k - 1
        first = k == 0
        pick[first] = 0
        self.kth_low = np.where(first, -np.inf, lows[pick])
        self.kth_high = np.where(first, np.inf, highs[pick])
        self.sum_lo = _prefix_sums(lows, pick, first, starts[g])
        self.sum_hi = _prefix_sums(highs, pick, first, starts[g])
        self.min_low, self.max_high = lows[starts], highs[starts]  # every group has an entry

        magnitude = float(np.abs(lows).sum() + np.abs(highs).sum())
        self.exact = _sums_exact(np.concatenate([low, high]), magnitude)
        # Not exact: a prefix sum (one cumsum over all groups, one subtraction) errs by at most
        # (2N + 1) u M, with N entries, u = 2**-53 and M = `magnitude`; adding the tables of up
        # to G groups adds G u M more, so a query sum errs by at most G (2N + 2) u M. The factor
        # 1.1 absorbs the rounding of M and the gamma_m = m u / (1 - m u) terms.
        n = len(lows)
        self.slack = 0.0 if self.exact else 1.1 * n_groups * (2 * n + 3) * 2.0**-53 * magnitude

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_release(cls, release: Release) -> BoundTables:
        """The bound tables of a ``distribution`` release (its ``qit`` and ``st`` tables).

        Raises
        ------
        InputError
            If the release is of another kind or its tables lack the columns of the format.
        """
        if not isinstance(release, Release):
            raise InputError(f"expected a Release, got {type(release).__name__}")
        if release.kind != "distribution":
            raise InputError(
                f"bounded queries need a 'distribution' release (qit + st with low, high, "
                f"count); this one is {release.kind!r}"
            )
        qit, st = release.tables.get("qit"), release.tables.get("st")
        if qit is None or st is None:
            raise InputError("a distribution release needs its qit and st tables")
        missing = [c for c in (GROUP, "low", "high", "count") if c not in st.columns]
        if missing:
            raise InputError(f"the st table lacks column(s) {', '.join(missing)}")
        if GROUP not in qit.columns:
            raise InputError("the qit table lacks its 'group' column")
        sensitive = (release.metadata.get("sensitive") or [None])[0]
        if (release.metadata.get("parameters") or {}).get("categorical"):
            raise InputError(
                f"bounded SQL queries need a numeric sensitive column, and this release's "
                f"{sensitive!r} is categorical (its st entries are categories, not numbers): "
                "bound the count of records whose value is in a set of categories with "
                "microanon.query.sensitive_count on the release as anonymize returns it"
            )
        return cls(
            st[GROUP].to_numpy(),
            st["low"].to_numpy(),
            st["high"].to_numpy(),
            st["count"].to_numpy(),
            qit[GROUP].to_numpy(),
            qit=qit,
            sensitive=sensitive,
        )

    @classmethod
    def from_entries(
        cls,
        entries: pd.DataFrame,
        row_group: np.ndarray,
        qit: pd.DataFrame | None = None,
        sensitive: Hashable | None = None,
    ) -> BoundTables:
        """Bound tables from an ``st``-like frame (``group``, ``low``, ``high``, ``count``)."""
        return cls(
            entries[GROUP].to_numpy(),
            entries["low"].to_numpy(),
            entries["high"].to_numpy(),
            entries["count"].to_numpy(),
            row_group,
            qit=qit,
            sensitive=sensitive,
        )

    # ------------------------------------------------------------------ selections
    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.groups)

    @property
    def n_rows(self) -> int:
        """Number of published records."""
        return len(self.row_index)

    @cached_property
    def _row_order(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.row_index, kind="stable")
        ends = np.cumsum(self.sizes)
        return order, ends

    def counts(self, masks: np.ndarray | pd.Series | pd.DataFrame) -> np.ndarray:
        """Selected records per group for one or several row selections.

        Parameters
        ----------
        masks : (n_rows,) or (n_queries, n_rows) bool array
            Which published records each query selects (``qit`` row order).

        Returns
        -------
        (n_queries, G) int64 array
            A 1-d mask gives one row.
        """
        m = np.asarray(masks)
        if m.ndim == 1:
            m = m[None, :]
        if m.ndim != 2 or m.shape[1] != self.n_rows:
            raise InputError(
                f"a selection needs one boolean per published record ({self.n_rows}), got shape "
                f"{np.shape(masks)}"
            )
        if m.dtype != bool:
            raise InputError(f"a selection must be boolean, got dtype {m.dtype}")
        order, ends = self._row_order
        cum = np.zeros((m.shape[0], self.n_rows + 1), dtype=np.int64)
        np.cumsum(m[:, order], axis=1, out=cum[:, 1:])
        return cum[:, ends] - cum[:, ends - self.sizes]

    def range_counts(
        self, column: Hashable, low: np.ndarray | float, high: np.ndarray | float
    ) -> np.ndarray:
        """Selected records per group for range conditions ``low <= column <= high``.

        Built from per-group histograms of the column, so thousands of ranges cost
        O(queries × groups) and never touch the records again.

        Parameters
        ----------
        column : name
            A numeric column of the ``qit`` table.
        low, high : numbers or (n_queries,) arrays
            Inclusive range ends.

        Returns
        -------
        (n_queries, G) int64 array
        """
        cum, values = self._histogram(column)
        lo = np.searchsorted(values, np.atleast_1d(np.asarray(low, dtype=float)), side="left")
        hi = np.searchsorted(values, np.atleast_1d(np.asarray(high, dtype=float)), side="right")
        hi = np.maximum(hi, lo)
        return (cum[:, hi] - cum[:, lo]).T

    def _histogram(self, column: Hashable) -> tuple[np.ndarray, np.ndarray]:
        cache = self.__dict__.setdefault("_histograms", {})
        if column not in cache:
            if self.qit is None or column not in self.qit.columns:
                raise InputError(f"column {column!r} is not a published record column")
            col = self.qit[column]
            if not pd.api.types.is_numeric_dtype(col) or col.isna().any():
                raise InputError(f"range conditions need a numeric column without gaps: {column!r}")
            values, codes = np.unique(col.to_numpy(dtype=float), return_inverse=True)
            hist = np.zeros((self.n_groups, len(values)), dtype=np.int64)
            np.add.at(hist, (self.row_index, codes.reshape(-1)), 1)
            cum = np.zeros((self.n_groups, len(values) + 1), dtype=np.int64)
            np.cumsum(hist, axis=1, out=cum[:, 1:])
            cache[column] = (cum, values)
        return cache[column]

    # ------------------------------------------------------------------ bounds
    def bounds(self, aggregate: str, counts: np.ndarray) -> BoundArrays:
        """Guaranteed bounds of an aggregate of the sensitive attribute, for a batch of queries.

        Parameters
        ----------
        aggregate : {"count", "sum", "avg", "min", "max"}
        counts : (G,) or (n_queries, G) int array
            Records each query selects in each group (from :meth:`counts` or
            :meth:`range_counts`, or computed by the caller).

        Returns
        -------
        BoundArrays
            SUM of an empty selection is 0; AVG, MIN and MAX of it are NaN (undefined).

        Raises
        ------
        InputError
            Unknown aggregate, or counts of the wrong shape or outside ``0..size``.
        """
        agg = str(aggregate).lower()
        if agg not in AGGREGATES:
            raise InputError(f"aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
        k = np.asarray(counts)
        if k.ndim == 1:
            k = k[None, :]
        if k.ndim != 2 or k.shape[1] != self.n_groups or not np.issubdtype(k.dtype, np.integer):
            raise InputError(
                f"counts must be integers of shape (queries, {self.n_groups}), got "
                f"{np.shape(counts)} of {k.dtype}"
            )
        if (k < 0).any() or (k > self.sizes).any():
            raise InputError("counts must lie between 0 and the number of records of each group")
        n = k.sum(axis=1)
        touched = (k > 0).sum(axis=1)
        empty = n == 0
        if agg == "count":
            lower = upper = n.astype(float)
        elif agg in ("sum", "avg"):
            idx = self.offsets + k
            lower = self.sum_lo[idx].sum(axis=1)
            upper = self.sum_hi[idx].sum(axis=1)
            if not self.exact:  # widen, then one ulp more for the rounding of the widening
                # (a sum of no record is 0 exactly: nothing was added, nothing to widen)
                lower = np.where(empty, 0.0, np.nextafter(lower - self.slack, -np.inf))
                upper = np.where(empty, 0.0, np.nextafter(upper + self.slack, np.inf))
            if agg == "avg":
                lower, upper = _outward_divide(lower, upper, n, self.exact)
        else:
            selected = k > 0
            idx = self.offsets + k
            if agg == "min":
                lower = np.where(selected, self.min_low, np.inf).min(axis=1)
                upper = np.where(selected, self.kth_high[idx], np.inf).min(axis=1)
            else:
                lower = np.where(selected, self.kth_low[idx], -np.inf).max(axis=1)
                upper = np.where(selected, self.max_high, -np.inf).max(axis=1)
            lower = np.where(empty, np.nan, lower)
            upper = np.where(empty, np.nan, upper)
        return BoundArrays(agg, np.asarray(lower, float), np.asarray(upper, float), n, touched)

    def to_frame(self) -> pd.DataFrame:
        """The auxiliary tables as one frame: a row per group and ``k = 0..size``."""
        g = np.repeat(np.arange(self.n_groups), self.sizes + 1)
        return pd.DataFrame(
            {
                GROUP: self.groups[g],
                "k": np.arange(len(g)) - self.offsets[g],
                "sum_lo": self.sum_lo,
                "sum_hi": self.sum_hi,
                "min_upper": self.kth_high,
                "max_lower": self.kth_low,
            }
        )

    def __repr__(self) -> str:
        return (
            f"<BoundTables: {self.n_rows} records, {int(self.entries.sum())} entries, "
            f"{self.n_groups} groups{', exact sums' if self.exact else ''}>"
        )


def _scalar(value: object) -> object:
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _entries(
    group: np.ndarray, low: np.ndarray, high: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validated entry arrays: ids as given, float64 ends, int64 counts."""
    group = np.asarray(group)
    try:
        low = np.asarray(low, dtype=float)
        high = np.asarray(high, dtype=float)
        count_f = np.asarray(count, dtype=float)
    except (TypeError, ValueError):
        raise InputError("st: low, high and count must be numbers") from None
    if not (len(group) == len(low) == len(high) == len(count_f)):
        raise InputError("st: group, low, high and count must have one value per entry")
    if not (np.isfinite(low).all() and np.isfinite(high).all() and np.isfinite(count_f).all()):
        raise InputError("st: low, high and count must be finite numbers without gaps")
    if (low > high).any():
        i = int(np.flatnonzero(low > high)[0])
        raise InputError(f"st: entry {i} has low {low[i]:g} above high {high[i]:g}")
    if (count_f < 1).any() or (count_f != np.round(count_f)).any():
        raise InputError("st: count must be a whole number >= 1 for every entry")
    return group, low, high, count_f.astype(np.int64)


def _sums_exact(values: np.ndarray, magnitude: float) -> bool:
    """Whether float64 adds these values exactly in any order and grouping.

    True when all values are multiples of one power of two ``2**-e`` (whole numbers: ``e = 0``)
    and the sum of their magnitudes is below ``2**(53 - e)``: every partial sum is then a
    multiple of ``2**-e`` below that bound, which float64 represents exactly.
    """
    for e in range(0, 54):
        scaled = np.ldexp(values, e)
        if np.all(scaled == np.round(scaled)):
            return magnitude * 2.0**e < _EXACT_LIMIT
    return False


def _prefix_sums(
    sorted_values: np.ndarray, pick: np.ndarray, first: np.ndarray, start: np.ndarray
) -> np.ndarray:
    """Per-group prefix sums: for each table row, the sum of its group's first k values."""
    cum = np.concatenate([[0.0], np.cumsum(sorted_values)])
    return np.where(first, 0.0, cum[pick + 1] - cum[start])


def _outward_divide(
    lower: np.ndarray, upper: np.ndarray, n: np.ndarray, exact: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``lower / n`` rounded down and ``upper / n`` rounded up; NaN where ``n == 0``.

    A float64 quotient is the exact one rounded to nearest, so one ulp outward contains it; with
    exact integer sums the quotient is kept when ``n`` divides the sum.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = lower / n, upper / n
        lo_exact = np.fmod(lower, n) == 0 if exact else np.zeros(len(lo), bool)
        hi_exact = np.fmod(upper, n) == 0 if exact else np.zeros(len(hi), bool)
    lo = np.where(lo_exact, lo, np.nextafter(lo, -np.inf))
    hi = np.where(hi_exact, hi, np.nextafter(hi, np.inf))
    empty = n == 0
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def column_bounds(
    values: pd.Series,
    key_index: np.ndarray,
    n_keys: int,
    aggregate: str,
    column: Hashable = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Aggregates of a published column per key: exact, as a degenerate interval.

    Missing values are skipped, as in SQL (``COUNT(column)`` counts the others). Sums of
    whole numbers (or of multiples of one power of two) whose magnitude stays below 2**53 are
    exact; other sums are correctly rounded (``math.fsum``) and widened by one ulp each way, so
    the interval still contains the exact answer.

    Parameters
    ----------
    values : Series
        The selected records' values.
    key_index : (len(values),) int array
        The key (GROUP BY combination) of each selected record, ``0..n_keys-1``.
    n_keys : int
    aggregate : {"count", "sum", "avg", "min", "max"}
    column : name, optional
        For error messages.

    Returns
    -------
    lower, upper : (n_keys,) float64 arrays
        NaN where AVG, MIN or MAX has no value to aggregate; SUM of nothing is 0.
    exact : bool
        Whether ``lower == upper`` is the exact answer (no rounding happened).
    """
    key_index = np.asarray(key_index, dtype=np.int64)
    present = values.notna().to_numpy()
    n = np.bincount(key_index[present], minlength=n_keys)
    if aggregate == "count":
        return n.astype(float), n.astype(float), True
    if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        raise InputError(f"{aggregate.upper()}({column}) needs a numeric column")
    v = values.to_numpy(dtype=float, na_value=np.nan)[present]
    k = key_index[present]
    empty = n == 0
    if aggregate in ("min", "max"):
        out = np.full(n_keys, np.inf if aggregate == "min" else -np.inf)
        (np.minimum if aggregate == "min" else np.maximum).at(out, k, v)
        out = np.where(empty, np.nan, out)
        return out, out, True
    exact = _sums_exact(v, float(np.abs(v).sum()))
    if exact:
        lower = upper = np.bincount(k, weights=v, minlength=n_keys)
    else:
        order = np.argsort(k, kind="stable")
        parts = np.split(v[order], np.cumsum(n)[:-1])
        sums = np.array([math.fsum(p) for p in parts], dtype=float)
        lower, upper = np.nextafter(sums, -np.inf), np.nextafter(sums, np.inf)
    if aggregate == "avg":
        lower, upper = _outward_divide(lower, upper, n, exact)
        return lower, upper, exact and bool(np.all((lower == upper) | empty))
    return lower, upper, exact
