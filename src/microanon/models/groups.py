"""Equivalence classes of a table: the shared machinery of every group-based privacy model.

Each quasi-identifier column is factorized, the codes are packed into one int64 key per row
(mixed radix; ``np.unique(axis=0)`` over the code matrix when the radix product overflows int64)
and the keys are factorized again into group ids. With a sensitive column the table is then reduced
to its sorted distinct (group, sensitive value) pairs with their counts; every model's per-group
statistic is a segment reduction over those pairs (``np.add.reduceat``, ``np.maximum.reduceat``).
Build a :class:`Groups` once and pass it to several checks to share this work.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.frames import pandas_if_arrow
from microanon.core.table import DENSE_FACTOR, DENSE_SLACK, combine_codes, factorize_column

__all__ = [
    "on_known",
    "Groups",
    "Columns",
    "as_columns",
    "groups_of",
    "require_sensitive",
    "spread",
]

#: One column name or a sequence of them.
Columns = Hashable | Sequence[Hashable]


def as_columns(columns: Columns, what: str = "quasi") -> tuple[Hashable, ...]:
    """Normalize one column name or an iterable of names (a tuple is a list of names) to a tuple.

    Raises
    ------
    InputError
        If no column is named or a name is repeated.
    """
    if isinstance(columns, Iterable) and not isinstance(columns, (str, bytes)):
        names = tuple(columns)
    else:
        names = (columns,)
    if not names:
        raise InputError(f"{what}: name at least one quasi-identifier column")
    repeated = sorted({str(c) for c in names if names.count(c) > 1})
    if repeated:
        listed = ", ".join(map(repr, repeated))
        raise InputError(f"{what}: column(s) {listed} listed more than once")
    return names


def _check_frame(df: object, columns: Sequence[Hashable]) -> pd.DataFrame:
    """``df`` (an Arrow-compatible table converted) if it is a non-empty DataFrame holding each
    of ``columns`` exactly once."""
    df = pandas_if_arrow(df, "data")
    if not isinstance(df, pd.DataFrame):
        raise InputError(
            "data must be a pandas DataFrame, an Arrow-compatible table or a Groups object, not "
            f"{type(df).__name__}"
        )
    if len(df) == 0:
        raise InputError("the table is empty: privacy models need at least one row")
    available = list(df.columns)
    for c in columns:
        if not isinstance(c, Hashable) or c not in df.columns:  # a list or dict names no column
            raise InputError(f"column {c!r} is not in the table; available columns: {available}")
    duplicated = df.columns[df.columns.duplicated()]
    clashes = [c for c in columns if c in duplicated]
    if clashes:
        raise InputError(
            f"the table has several columns named {clashes[0]!r}; rename them so that every "
            "column name is unique"
        )
    return df


class Groups:
    """The quasi-identifier groups of a table, with sensitive-value counts per group.

    Build with :meth:`from_frame`. Groups are numbered ``0..n_groups-1``; rows are addressed by
    position, so any index (non-unique, non-default) is fine.

    Attributes
    ----------
    quasi : tuple
        Quasi-identifier column names.
    sensitive : hashable or None
        Sensitive column name, if one was given.
    row_group : (n_rows,) int64 array
        Group of each row (a row may stand for several records, see ``weights``).
    sizes : (n_groups,) int64 array
        Number of records per group.
    keys : DataFrame
        Quasi-identifier values of each group (one row per group, default index).
    values : Index or None
        Distinct sensitive values; a sensitive code is a position in this index.
    numeric : bool
        Whether the sensitive column has a numeric dtype.
    value_counts : (n_values,) int64 array or None
        Records per sensitive value in the reference table that t-closeness compares with: the
        whole table unless another ``reference`` was given (e.g. the original table when some
        groups are to be suppressed).
    pair_group, pair_value, pair_count : int64 arrays or None
        Distinct (group, sensitive code) pairs sorted by group then code, and their counts.
    starts : (n_groups,) int64 array or None
        Offset of each group's first pair (every group has at least one pair).
    """

    def __init__(
        self,
        quasi: tuple[Hashable, ...],
        row_group: np.ndarray,
        sizes: np.ndarray,
        key_parts: list[tuple[np.ndarray, pd.Index]],
        sensitive: Hashable | None = None,
        sa_codes: np.ndarray | None = None,
        values: pd.Index | None = None,
        numeric: bool = False,
        weights: np.ndarray | None = None,
        reference: np.ndarray | None = None,
    ) -> None:
        self.quasi = quasi
        self.row_group = row_group
        self.sizes = sizes
        self._key_parts = key_parts  # per QI column: (code of each group, distinct values)
        self.sensitive = sensitive
        self.values = values
        self.numeric = numeric
        self.value_counts = self.pair_group = self.pair_value = self.pair_count = None
        self.starts = None
        self.unknown: np.ndarray | None = None
        if sa_codes is not None and values is not None:
            m = len(values)
            unknown = sa_codes < 0
            self.unknown = np.bincount(
                row_group[unknown],
                weights=None if weights is None else weights[unknown],
                minlength=len(sizes),
            ).astype(np.int64)
            if unknown.any():  # unknown sensitive values count toward no sensitive statistic
                row_group, sa_codes = row_group[~unknown], sa_codes[~unknown]
                weights = None if weights is None else weights[~unknown]
            self.pair_group, self.pair_value, self.pair_count = _pairs(
                row_group, sa_codes, len(sizes), m, weights
            )
            self.starts = _run_starts(self.pair_group)
            if reference is None:
                reference = np.bincount(sa_codes, weights=weights, minlength=m)
            elif len(reference) != m:
                raise InputError(f"reference: expected {m} counts, one per sensitive value")
            self.value_counts = np.asarray(reference).astype(np.int64)

    @classmethod
    def from_frame(
        cls,
        data: pd.DataFrame,
        quasi: Columns,
        sensitive: Hashable | None = None,
        weights: np.ndarray | None = None,
    ) -> Groups:
        """Group a DataFrame by its quasi-identifiers.

        Parameters
        ----------
        data : DataFrame
            Any table; values (generalized labels such as ``"[20, 30)"`` or ``"*"`` included) are
            compared as they are. Columns may have any dtype, mixed object columns included.
        quasi : column name or sequence of column names
            Quasi-identifier columns.
        sensitive : column name, optional
            Sensitive column, needed by ℓ-diversity and t-closeness.
        weights : int array, optional
            Records each row stands for (default 1): a frequency table whose rows are in the
            order of their combinations' first appearance in a table (see
            :func:`microanon.models.frequencies_of`) is grouped exactly as that table, with the
            same group and value numbering.

        Returns
        -------
        Groups

        Raises
        ------
        InputError
            If ``data`` is not a non-empty DataFrame, a column is absent or duplicated, the
            sensitive column is also a quasi-identifier, or a used column has missing values.
        """
        names = as_columns(quasi)
        if isinstance(sensitive, (list, tuple, set, pd.Index, np.ndarray)):
            raise InputError(f"sensitive must be one column name, got {sensitive!r}")
        if sensitive is not None and sensitive in names:
            raise InputError(
                f"sensitive column {sensitive!r} is also listed as a quasi-identifier; "
                "a column is either one or the other"
            )
        used = list(names) + ([sensitive] if sensitive is not None else [])
        df = _check_frame(data, used)
        w = None if weights is None else np.asarray(weights, dtype=np.int64)
        factorized = [factorize_column(df[c], c, w) for c in names]
        _, sizes, row_group, first = combine_codes(
            [codes for codes, _ in factorized], [len(u) for _, u in factorized]
        )
        if w is not None:
            sizes = np.bincount(row_group, weights=w, minlength=len(sizes)).astype(np.int64)
        key_parts = [(codes[first], uniques) for codes, uniques in factorized]
        if sensitive is None:
            return cls(names, row_group, sizes, key_parts, weights=w)
        column = df[sensitive]
        sa_codes, values = _sensitive_codes(column, sensitive)
        numeric = pd.api.types.is_numeric_dtype(column.dtype)
        return cls(
            names, row_group, sizes, key_parts, sensitive, sa_codes, values, numeric, weights=w
        )

    @classmethod
    def from_codes(
        cls,
        quasi: Sequence[Hashable],
        codes: Sequence[np.ndarray],
        cardinalities: Sequence[int],
        *,
        sensitive: Hashable | None = None,
        sa_codes: np.ndarray | None = None,
        values: Sequence[Any] | None = None,
        numeric: bool = False,
        weights: np.ndarray | None = None,
        reference: np.ndarray | None = None,
        dictionaries: Sequence[Sequence[Any]] | None = None,
    ) -> Groups:
        """Groups of already-encoded rows, e.g. the frequency table of a :class:`Table`.

        Parameters
        ----------
        quasi : sequence of names
            Names of the quasi-identifier code columns.
        codes : sequence of int arrays
            One code array per quasi-identifier (codes ``0..cardinality-1``), all of one length.
        cardinalities : sequence of int
            Number of possible codes per quasi-identifier.
        sensitive : name, optional
            Name of the sensitive column (with ``sa_codes`` and ``values``).
        sa_codes : int array, optional
            Sensitive code of each row, a position in ``values``.
        values : sequence, optional
            The sensitive values behind the codes. Values that occur neither in these rows nor in
            ``reference`` are left out of the domain, as for :meth:`from_frame`.
        numeric : bool
            Whether the sensitive values are numbers (the default t-closeness distance).
        weights : int array, optional
            Number of records each row stands for (default 1): a frequency table is grouped
            exactly as the table it summarizes.
        reference : int array, optional
            Records per sensitive value of the distribution t-closeness compares with (default:
            these rows' own distribution).
        dictionaries : sequence of sequences, optional
            Values behind each quasi-identifier's codes, for :attr:`keys` (default: the codes).

        Returns
        -------
        Groups
        """
        names = tuple(quasi)
        if not (len(names) == len(codes) == len(cardinalities)):
            raise InputError("from_codes: quasi, codes and cardinalities must have one entry each")
        codes = [np.asarray(c, dtype=np.int64) for c in codes]
        combined = combine_codes(codes, cardinalities)
        w = None if weights is None else np.asarray(weights, dtype=np.int64)
        sizes = combined.counts if w is None else np.bincount(combined.inverse, weights=w)
        sizes = np.asarray(sizes, dtype=np.int64)
        uniques = (
            [pd.RangeIndex(int(n)) for n in cardinalities]
            if dictionaries is None
            else [pd.Index(list(d)) for d in dictionaries]
        )
        key_parts = [(c[combined.first], u) for c, u in zip(codes, uniques, strict=True)]
        if sa_codes is None:
            return cls(names, combined.inverse, sizes, key_parts, weights=w)
        if values is None:
            raise InputError("from_codes: sa_codes need the sensitive values behind them")
        sa_codes, domain, reference = _domain(sa_codes, values, reference)
        return cls(
            names,
            combined.inverse,
            sizes,
            key_parts,
            sensitive,
            sa_codes,
            domain,
            numeric,
            weights=w,
            reference=reference,
        )

    @classmethod
    def from_sorted_pairs(
        cls,
        group: np.ndarray,
        sa_codes: np.ndarray,
        counts: np.ndarray,
        sizes: np.ndarray,
        *,
        sensitive: Hashable,
        values: Sequence[Any],
        numeric: bool,
        reference: np.ndarray,
    ) -> Groups:
        """Groups of rows that already are distinct (group, sensitive code) pairs, in order.

        What a frequency set of classes and sensitive values is: :meth:`from_codes` would find
        these very pairs, so they are taken as they are, with no grouping.

        Parameters
        ----------
        group : int array
            Group of each row, ``0..n_groups-1``, ascending; every group has a row.
        sa_codes : int array
            Sensitive code of each row (a position in ``values``), ascending within a group.
        counts : int array
            Records of each row.
        sizes : int array
            Records per group (the sums of ``counts``).
        sensitive, values, numeric, reference
            As for :meth:`from_codes` (``reference`` is required).
        """
        n = len(sizes)
        sa_codes, domain, reference = _domain(sa_codes, values, reference)
        unknown_pairs = sa_codes < 0
        unknown = np.bincount(group[unknown_pairs], weights=counts[unknown_pairs], minlength=n)
        row_group = group  # one per row, an unknown sensitive value's rows included
        if unknown_pairs.any():
            group, sa_codes, counts = (a[~unknown_pairs] for a in (group, sa_codes, counts))
        out = cls(
            ("class",),
            row_group,
            sizes,
            [(np.arange(n, dtype=np.int64), pd.RangeIndex(n))],
            sensitive,
            None,
            domain,
            numeric,
        )
        out.pair_group, out.pair_value = group, sa_codes
        out.pair_count = np.asarray(counts, dtype=np.int64)
        out.starts = _run_starts(group)
        out.value_counts = np.asarray(reference).astype(np.int64)
        out.unknown = unknown.astype(np.int64)
        return out

    def known_view(self) -> tuple[Groups, np.ndarray | None]:
        """The groups seen by the sensitive-value models: those with a known sensitive value.

        A missing sensitive value (a cell kept empty, ``missing: keep``) is unknown: it counts
        toward no sensitive statistic, so a group is ℓ-diverse (t-close, ...) on its known
        values, sized by them; a group whose every value is unknown discloses none and is
        left out of the view.

        Returns
        -------
        view : Groups
            ``self`` when every sensitive value is known; else the groups with at least one
            known value, in order, with ``sizes`` counting known values only.
        positions : int array or None
            Position of each group of the view among ``self``'s groups (None for ``self``).
        """
        require_sensitive(self)
        if self.unknown is None or not self.unknown.any():
            return self, None
        known = self.sizes - self.unknown
        positions = np.flatnonzero(known > 0)
        renumber = np.full(len(self.sizes), -1, dtype=np.int64)
        renumber[positions] = np.arange(len(positions))
        view = Groups(
            self.quasi,
            renumber[self.row_group],
            known[positions],
            [(codes[positions], uniques) for codes, uniques in self._key_parts],
        )
        view.sensitive, view.values, view.numeric = self.sensitive, self.values, self.numeric
        view.value_counts, view.pair_value, view.pair_count = (
            self.value_counts,
            self.pair_value,
            self.pair_count,
        )
        view.pair_group = renumber[self.pair_group]
        view.starts = _run_starts(view.pair_group)
        view.unknown = np.zeros(len(positions), dtype=np.int64)
        return view, positions

    @property
    def unknown_records(self) -> int:
        """Records whose sensitive value is unknown (0 without a sensitive column)."""
        return 0 if self.unknown is None else int(self.unknown.sum())

    @property
    def n_rows(self) -> int:
        """Number of records (the sum of the group sizes)."""
        return int(self.sizes.sum())

    @property
    def table_distribution(self) -> np.ndarray:
        """Reference distribution of the sensitive values (what t-closeness compares with); all
        zeros for a reference of no records."""
        total = self.value_counts.sum()
        return self.value_counts / total if total else np.zeros(len(self.value_counts))

    @property
    def n_groups(self) -> int:
        """Number of groups (equivalence classes)."""
        return len(self.sizes)

    @property
    def n_values(self) -> int:
        """Number of distinct sensitive values in the table (0 without a sensitive column)."""
        return 0 if self.values is None else len(self.values)

    @cached_property
    def keys(self) -> pd.DataFrame:
        """Quasi-identifier values of each group (one row per group, default index)."""
        columns = {
            c: uniques.take(codes)
            for c, (codes, uniques) in zip(self.quasi, self._key_parts, strict=True)
        }
        return pd.DataFrame(columns, columns=list(self.quasi))

    @cached_property
    def n_distinct(self) -> np.ndarray:
        """Number of distinct sensitive values per group."""
        return np.diff(self.starts, append=len(self.pair_group))

    @cached_property
    def max_count(self) -> np.ndarray:
        """Count of the most frequent sensitive value per group."""
        return np.maximum.reduceat(self.pair_count, self.starts)

    def __repr__(self) -> str:
        sa = ""
        if self.values is not None:
            sa = f", sensitive {self.sensitive!r} ({self.n_values} values)"
        return f"<Groups: {self.n_rows} rows, {self.n_groups} groups over {list(self.quasi)}{sa}>"


def groups_of(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None = None,
    need_sensitive: bool = False,
) -> Groups:
    """Return the :class:`Groups` of ``data``, building them from a DataFrame when needed.

    A prebuilt ``Groups`` is used as it is; ``quasi`` and ``sensitive`` may then be ``None`` and
    must otherwise match the columns it was built with.
    """
    if isinstance(data, Groups):
        if quasi is not None and as_columns(quasi) != data.quasi:
            raise InputError(
                f"quasi {list(as_columns(quasi))} differs from the columns these Groups were "
                f"built with ({list(data.quasi)}); pass quasi=None or rebuild the Groups"
            )
        if sensitive is not None and sensitive != data.sensitive:
            raise InputError(
                f"sensitive {sensitive!r} differs from the column these Groups were built with "
                f"({data.sensitive!r}); pass sensitive=None or rebuild the Groups"
            )
        if need_sensitive:
            require_sensitive(data)
        return data
    if quasi is None:
        raise InputError("quasi: name the quasi-identifier columns")
    if need_sensitive and sensitive is None:
        raise InputError("sensitive: name the sensitive column")
    return Groups.from_frame(data, quasi, sensitive if need_sensitive else None)


def spread(groups: Groups, positions: np.ndarray | None, values: Any, fill: Any) -> Any:
    """Per-group ``values`` of a :meth:`Groups.known_view` over all of ``groups``' groups, with
    ``fill`` for the groups left out of the view (``values`` itself when nothing was)."""
    if positions is None or values is None:
        return values
    values = np.asarray(values)
    out = np.full(groups.n_groups, fill, dtype=np.result_type(values.dtype, type(fill)))
    out[positions] = values
    return out


def on_known(groups: Groups, per_group: Any) -> np.ndarray:
    """``per_group`` (a function of :class:`Groups` returning one number per group) computed on
    the groups' known sensitive values (:meth:`Groups.known_view`), 0 for the groups without
    one and for groups built without a sensitive column."""
    if groups.values is None:
        return np.zeros(groups.n_groups)
    view, positions = groups.known_view()
    return spread(groups, positions, per_group(view), 0.0)


def require_sensitive(groups: Groups) -> None:
    """Raise unless ``groups`` were built with a sensitive column."""
    if groups.values is None:
        raise InputError(
            "these Groups were built without a sensitive column; ℓ-diversity and t-closeness "
            "need one"
        )


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Offsets where each run of equal ``keys`` begins."""
    change = np.empty(len(keys), dtype=bool)
    change[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=change[1:])
    return change.nonzero()[0]


def _domain(
    sa_codes: np.ndarray, values: Sequence[Any], reference: np.ndarray | None
) -> tuple[np.ndarray, pd.Index, np.ndarray | None]:
    """The sensitive domain: the values that occur in ``sa_codes`` or in ``reference``, as for a
    DataFrame; the codes and reference counts renumbered to it."""
    sa_codes = np.asarray(sa_codes, dtype=np.int64)
    index = values if isinstance(values, pd.Index) else pd.Index(list(values))
    present = np.bincount(sa_codes[sa_codes >= 0], minlength=len(values)) > 0
    if reference is not None:
        reference = np.asarray(reference)
        present |= reference > 0
    if index.hasnans:  # a kept missing cell (an Index caches whether it has one)
        present &= ~np.asarray(index.isna())
    if reference is not None:
        reference = reference[present]
    if present.all():  # every value occurs: the codes and values stand as they are
        return sa_codes, index, reference
    remap = np.where(present, np.cumsum(present) - 1, -1)
    domain = pd.Index([v for v, keep in zip(values, present, strict=True) if keep])
    return np.where(sa_codes < 0, -1, remap[np.maximum(sa_codes, 0)]), domain, reference


def _sensitive_codes(column: pd.Series, name: Hashable) -> tuple[np.ndarray, pd.Index]:
    """Codes of a sensitive column (``-1`` for a missing, i.e. unknown, value) and its values
    (none when every value is unknown: then no group discloses one)."""
    try:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    except TypeError as exc:
        raise InputError(f"column {name!r} holds unhashable values: {exc}") from exc
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _pairs(
    row_group: np.ndarray,
    sa_codes: np.ndarray,
    n_groups: int,
    m: int,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (group, sensitive code) pairs of the rows, sorted, with their records.

    A pair space at most a few times the number of rows is counted directly (one bincount,
    the pairs present in ascending order); a larger one is sorted. Either way the same answer.
    """
    # n_groups * m <= n_rows**2, which fits int64 for any table that fits in memory.
    key = row_group.astype(np.int64, copy=False) * m + sa_codes
    space = n_groups * m
    if space <= DENSE_FACTOR * len(key) + DENSE_SLACK:
        pairs = np.flatnonzero(np.bincount(key, minlength=space))
        per_pair = np.bincount(key, weights=weights, minlength=space)[pairs]
    else:
        pairs, inverse = np.unique(key, return_inverse=True)
        per_pair = np.bincount(inverse.reshape(-1), weights=weights)
    pair_group, pair_value = np.divmod(pairs, m)
    return pair_group, pair_value, per_pair.astype(np.int64)
