"""The frequency tables a release's reports are measured on: the distinct combinations of the
columns a report needs, and how many records hold each.

Every number of the privacy and utility sections (classes, k, ℓ, t, the prosecutor risk, LM, GCP,
precision, discernibility, AECS, the non-uniform entropy) depends on a table only through these
combinations and their counts, so the reports group the records once and measure the (much
smaller) frequency tables, in time proportional to the combinations rather than the rows. The
tables are plain pandas DataFrames with a count per row, so that they can also be computed out
of core (:func:`microanon.scale.value_frequencies` gives the same combinations and counts).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.factorize import coded, factorize_keys, first_rows, packed_key
from ..core.frames import as_objects
from ..core.hierarchy import SUPPRESSED
from ..core.release import Release
from ..core.schema import Schema
from ..core.table import Table
from ..measures.weight_classes import CLASSES, INVERSE, TOTAL, stand_ins, weight_classes
from ..models import column_codes, published_groups_frame

if TYPE_CHECKING:
    from ..measures.perturbative import MaskedPairs
    from .risk import HouseholdMeasure

__all__ = [
    "PUBLISHED",
    "Combinations",
    "CountedRelease",
    "ReleaseTables",
    "as_suppressed",
    "row_classes",
]


@dataclass(frozen=True)
class Combinations:
    """Distinct combinations of some columns of a table and the records holding each.

    Built from rows (:meth:`of`), the combinations are in order of their first row, so every
    value, and every combination of fewer columns, first appears in the same order as in the
    rows: a measure that numbers values or classes by first appearance numbers them alike.

    Attributes
    ----------
    values : pandas.DataFrame
        One row per combination (missing values kept), default index, the columns' dtypes.
    counts : int64 array
        Records per combination (each at least one).
    inverse : float array or None
        The sum of the inverse sampling weights of each combination's records, when its weight
        column holds the mean of their weights (counted out of core by class and sums:
        :mod:`microanon.measures.weight_classes`); None when the weight column holds each one's.
    """

    values: pd.DataFrame
    counts: np.ndarray
    inverse: np.ndarray | None = None

    @classmethod
    def of(
        cls,
        frame: pd.DataFrame,
        columns: Sequence[str],
        counts: np.ndarray | None = None,
        codes: Mapping[Hashable, tuple[np.ndarray, pd.Index]] | None = None,
        inverse: np.ndarray | None = None,
    ) -> Combinations:
        """The combinations of ``columns`` in ``frame`` (``counts``: records per row, or one;
        ``codes``: :func:`~microanon.models.frequencies.column_codes` of some of its columns,
        already computed; ``inverse``: per row, as :attr:`inverse`, summed)."""
        columns = list(columns)
        row_class, first = row_classes(frame, columns, codes)
        return cls._at(frame[columns], row_class, first, counts, inverse)

    @classmethod
    def weighted(
        cls,
        frame: pd.DataFrame,
        keys: Sequence[str],
        weight: str,
        missing: np.ndarray | None = None,
        codes: Mapping[Hashable, tuple[np.ndarray, pd.Index]] | None = None,
    ) -> Combinations:
        """The combinations of ``keys`` and the class of each record's sampling ``weight``
        (:mod:`microanon.measures.weight_classes`; ``missing``: records counted as without
        one), the weight column the mean of the usable weights (or a value of the refused
        class) and :attr:`inverse` the sums of their inverses: a row per combination of keys
        and class, however many values the weight has (``codes`` as in :meth:`of`)."""
        keys = list(keys)
        classes, sums = weight_classes(frame[weight], missing)
        # the classes are their own codes: the records are grouped without copying a column
        known = {**(codes or {}), weight: (classes, pd.RangeIndex(CLASSES))}
        row_class, first = row_classes(frame, [*keys, weight], known)
        counts = np.bincount(row_class, minlength=len(first)).astype(np.int64)
        total = np.bincount(row_class, weights=sums[TOTAL], minlength=len(first))
        inverse = np.bincount(row_class, weights=sums[INVERSE], minlength=len(first))
        values = _rows_of(frame[keys], first)
        values[weight] = stand_ins(classes[first], counts, total).to_numpy()
        return cls(values, counts, inverse)

    def project(self, columns: Sequence[str]) -> Combinations:
        """The combinations of fewer ``columns``, their counts summed (in order of first
        appearance still). Leaving out only columns that hold no value (those a table counted
        out of core names without counting them) leaves the combinations as they are."""
        columns = list(columns)
        dropped = [c for c in self.values.columns if c not in columns]
        if len(set(columns)) == len(columns) and self.values[dropped].isna().all(axis=None):
            return Combinations(self.values[columns], self.counts, self.inverse)
        return Combinations.of(self.values, columns, self.counts, inverse=self.inverse)

    def key_weights(self, keys: Sequence[str], weight: str, harmonic: str) -> Combinations:
        """The combinations of ``keys`` with the mean sampling weight of their records in
        column ``weight`` and its harmonic mean in column ``harmonic``.

        What the survey risk measures take of the weights: the individual risk the sum of a
        combination's weights (its records times the mean), the log-linear model the sum of
        their inverses (its records over the harmonic mean). A table of keys and a near-unique
        weight has about a row per record; this one a row per combination of keys, and one
        more for its records without a weight (missing in both columns: the survey measures
        leave them out, the others count them). Every other weight must be positive.
        """
        keys = list(keys)
        w = self.values[weight].to_numpy(dtype=float)
        known = ~np.isnan(w)
        flag = {weight: (known.astype(np.int64), pd.RangeIndex(2))}  # (with or without one)
        row_class, first = row_classes(self.values, [*keys, weight], flag)
        records = np.bincount(row_class, weights=self.counts, minlength=len(first))
        total = np.bincount(
            row_class, weights=np.where(known, self.counts * w, 0.0), minlength=len(first)
        )
        each = self.counts / w if self.inverse is None else self.inverse
        inverse = np.bincount(row_class, weights=np.where(known, each, 0.0), minlength=len(first))
        weighted = known[first]
        values = self.values[keys].iloc[first].reset_index(drop=True)
        values[weight] = np.where(weighted, total / records, np.nan)
        values[harmonic] = np.divide(
            records, inverse, out=np.full(len(first), np.nan), where=weighted
        )
        return Combinations(values, records.astype(np.int64))

    @classmethod
    def _at(
        cls,
        frame: pd.DataFrame,
        row_class: np.ndarray,
        first: np.ndarray,
        counts: np.ndarray | None = None,
        inverse: np.ndarray | None = None,
    ) -> Combinations:
        records = np.bincount(row_class, weights=counts, minlength=len(first))
        values = _rows_of(frame, first)
        if inverse is not None:
            inverse = np.bincount(row_class, weights=inverse, minlength=len(first))
        return cls(values, np.asarray(records, dtype=np.int64), inverse)

    def reordered(self, order: np.ndarray) -> Combinations:
        """The same combinations in ``order`` (positions of the rows)."""
        values = self.values.iloc[order].reset_index(drop=True)
        inverse = None if self.inverse is None else self.inverse[order]
        return Combinations(values, self.counts[order], inverse)

    def rows(self, keep: np.ndarray) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
        """The values, counts and :attr:`inverse` of the rows ``keep`` (a boolean mask)."""
        inverse = None if self.inverse is None else self.inverse[keep]
        return self.values.loc[keep].reset_index(drop=True), self.counts[keep], inverse

    @property
    def records(self) -> int:
        """Records the combinations stand for."""
        return int(self.counts.sum())


def _rows_of(frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """``frame.iloc[rows]`` with a fresh index.

    A column of Arrow text, whole numbers or truth values that the run coded
    (:func:`~microanon.core.factorize.coded`) is taken from its distinct values by the rows'
    codes: equal values of those types are written alike, so that is the same column, without
    taking along a column read in many chunks. Other columns are taken as they are.
    """
    if not frame.columns.is_unique:
        return frame.iloc[rows].reset_index(drop=True)
    out = {}
    for c in frame.columns:
        column = frame[c]
        known = coded(column) if _written_alike(column) else None
        if known is None:
            out[c] = column.iloc[rows].reset_index(drop=True)
            continue
        codes, uniques = known
        taken = uniques.array.take(codes[rows], allow_fill=True)
        out[c] = pd.Series(taken, name=column.name, copy=False)
    return pd.DataFrame(out, columns=frame.columns, copy=False)


def _written_alike(column: pd.Series) -> bool:
    """Whether every two equal values of ``column`` are the same value: Arrow text, whole
    numbers, truth values (not floats: 0.0 equals -0.0; not objects: 1 equals 1.0 and True)."""
    if isinstance(column.array, pd.arrays.ArrowExtensionArray):
        kind = column.array._pa_array.type
        return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))
    return isinstance(column.dtype, np.dtype) and column.dtype.kind in "iub"


def as_suppressed(values: pd.DataFrame) -> pd.DataFrame:
    """``values`` as an attacker reads a published table: a missing cell is the value ``*``.

    A column of numbers (NumPy integers or floats) or of Arrow text without a missing cell is
    kept as it is: it groups as its objects would (equal numbers, ``0.0`` and ``-0.0`` too, one
    value), without one Python object per row; any other column is made of objects, ``*``
    where missing.
    """
    if not values.columns.is_unique:
        return values.astype(object).where(values.notna(), SUPPRESSED)
    columns = {}
    for name, column in values.items():
        missing = column.isna()
        if (_numbers(column) or _arrow_text(column)) and not missing.any():
            columns[name] = column
        else:
            columns[name] = as_objects(column).where(~missing, SUPPRESSED)
    return pd.DataFrame(columns, index=values.index, columns=values.columns, copy=False)


def _arrow_text(column: pd.Series) -> bool:
    """Whether ``column`` holds Arrow text."""
    return isinstance(column.array, pd.arrays.ArrowExtensionArray) and _written_alike(column)


def _numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds NumPy integers or floats (not truth values)."""
    return isinstance(column.dtype, np.dtype) and column.dtype.kind in "iuf"


def row_classes(
    frame: pd.DataFrame,
    columns: Sequence[str],
    known: Mapping[Hashable, tuple[np.ndarray, pd.Index]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The combination of every row, numbered by first appearance, and the first row of each
    (a missing value is a value of its own); ``known``: column codes already computed."""
    codes, sizes = [], []
    for c in columns:
        k, uniques = (known or {}).get(c) or column_codes(frame[c])
        codes.append(k)
        sizes.append(len(uniques) + 1)  # a missing value (-1) is the code 0, a value its code + 1
    return _first_order(codes, sizes, len(frame))


def _first_order(
    codes: Sequence[np.ndarray], sizes: Sequence[int], rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`row_classes` of code columns, each of ``size`` codes in a range of that width
    (``-1 .. size - 2`` where a missing value is -1: the digits of a mixed-radix key shifted
    alike group alike, and a pass per column is saved)."""
    if not codes:  # no column: one combination of every row
        return np.zeros(rows, dtype=np.int64), np.zeros(1 if rows else 0, dtype=np.int64)
    key, _ = packed_key(codes, sizes)
    # A hash table numbers the keys by first appearance, in one pass and without a sort.
    row_class, uniques = factorize_keys(key)
    first = first_rows(row_class, len(uniques)).astype(np.int64, copy=False)
    return row_class.astype(np.int64, copy=False), first


def _coded_alike(
    left: pd.DataFrame,
    left_columns: Sequence[str],
    right: pd.DataFrame,
    right_columns: Sequence[str],
) -> bool:
    """Whether each column of ``right_columns`` was given, in this run, the very codes of the
    column of ``left_columns`` at its place (a column published with one label per original
    value keeps the original's, see :attr:`~microanon.core.table.Table.appearance`): the two
    tables' rows then group alike on them. Nothing is coded here."""
    if len(left_columns) != len(right_columns):
        return False
    for a, b in zip(left_columns, right_columns, strict=True):
        mine, theirs = coded(left[a]), coded(right[b])
        if mine is None or theirs is None or mine[0] is not theirs[0]:
            return False
    return True


def _paired(
    left: tuple[np.ndarray, np.ndarray], right: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_first_order` of two groupings of the same rows (each a class per row and the
    first row of each class): the classes of their pairs. When every class of ``left`` lies in
    one class of ``right`` (each original combination published one way), the pairs are the
    classes of ``left`` themselves, found without grouping the rows again."""
    (left_class, left_first), (right_class, right_first) = left, right
    if right is left or np.array_equal(right_class[left_first].take(left_class), right_class):
        return left_class, left_first
    return _first_order(
        [left_class, right_class], [len(left_first), len(right_first)], len(left_class)
    )


#: Suffix of the published columns in :attr:`ReleaseTables.pairs`.
PUBLISHED = " (published)"


@dataclass(frozen=True)
class ReleaseTables:
    """The frequency tables of one single-table release that its report sections measure.

    Attributes
    ----------
    quasi : list of str
        The release's quasi-identifiers.
    sensitive : str or None
        Its (first) sensitive attribute.
    before : Combinations
        The original on the quasi-identifiers and the sensitive attribute (those it holds).
    after : Combinations
        The table an attacker links against (:func:`microanon.models.published_groups_frame`)
        on its quasi-identifiers ``attack_quasi`` and the sensitive attribute.
    attack_quasi : list of str
        The quasi-identifiers of ``after``.
    pairs : Combinations or None
        When the release keeps every original record in order: each record's original
        quasi-identifiers, then its published ones (named with the suffix ``" (published)"``).
    masked : MaskedPairs or None
        Out of core, a release of masked numeric columns: each record's masked values beside
        its original ones, gathered in the pass that wrote the release (the measures of the
        masked values pair every record with its own).
    """

    quasi: list[str]
    sensitive: str | None
    before: Combinations
    after: Combinations
    attack_quasi: list[str]
    pairs: Combinations | None = None
    masked: MaskedPairs | None = None

    @classmethod
    def of(cls, original: pd.DataFrame, release: Release) -> ReleaseTables:
        """Group ``original`` and ``release``'s published table once.

        ``original``: the records the method received (every column the release's metadata
        names that it holds).
        """
        meta = release.metadata
        quasi = [str(q) for q in meta.get("quasi") or []]
        sensitive = (meta.get("sensitive") or [None])[0]
        kept, attack_quasi, _ = published_groups_frame(release)
        held = [c for c in [*quasi, sensitive] if c is not None and c in original.columns]
        data = release.data
        shown = [c for c in [*attack_quasi, sensitive] if c is not None and c in kept.columns]
        aligned = (
            release.kind != "anatomized"
            and len(original) == len(data)
            and set(quasi) <= set(data.columns)
            and set(quasi) <= set(original.columns)
        )
        if not aligned:
            return cls(
                quasi,
                sensitive,
                Combinations.of(original, held),
                Combinations.of(kept, shown),
                list(attack_quasi),
            )
        # Each side is grouped once (or once for both, coded alike); the pairs are the
        # combinations of the two groupings.
        left = row_classes(original, held)
        right = left if _coded_alike(original, held, data, shown) else row_classes(data, shown)
        joint = _paired(left, right)
        names = {c: c + PUBLISHED for c in shown}
        both = pd.concat(
            [
                _rows_of(original[held], joint[1]),
                _rows_of(data[shown], joint[1]).rename(columns=names),
            ],
            axis=1,
        )
        return cls(
            quasi,
            sensitive,
            Combinations._at(original[held], *left),
            Combinations._at(data[shown], *right),
            list(attack_quasi),
            Combinations(both, np.bincount(joint[0], minlength=len(joint[1])).astype(np.int64)),
        )


@dataclass(frozen=True)
class CountedRelease:
    """The frequency tables of a release made out of core, counted from its partitions.

    Attributes
    ----------
    tables : ReleaseTables
        The original's and the published table's, as :meth:`ReleaseTables.of` groups them from
        rows.
    published : Combinations
        Every column of the published table (its distinct rows, with their records).
    searched : Table or None
        The encoded frequency table the release's search ran on, for the closest
        configurations (:class:`~microanon.methods.generalize.reruns.FrequencyRuns`).
    weighted : Combinations or None
        The original's quasi-identifiers and sampling weight, for the survey risk measures
        (None without a weight; a record without a household id, when the schema has one,
        counted as one without a weight).
    households : callable or None
        The household risk of the original's records, measured over them from the individual
        risks of its combinations of keys (:data:`~microanon.apps.risk.HouseholdMeasure`;
        with a weight and a household id).
    resolved : Schema or None
        The schema with the hierarchies the method built from the whole table (from the
        encoding pass), for the measures that code the original as the method coded it (a
        randomized release's reconstructed distribution); None when no measure needs it.
    """

    tables: ReleaseTables
    published: Combinations
    searched: Table | None = None
    weighted: Combinations | None = None
    households: HouseholdMeasure | None = None
    resolved: Schema | None = None

    @classmethod
    def of(
        cls,
        original: Combinations,
        published: Combinations,
        quasi: Sequence[str],
        sensitive: str | None,
        pairs: Combinations | None = None,
        searched: Table | None = None,
        weighted: Combinations | None = None,
        households: HouseholdMeasure | None = None,
        resolved: Schema | None = None,
        masked: MaskedPairs | None = None,
    ) -> CountedRelease:
        """From the original's frequency table (its quasi-identifiers and sensitive column that
        it holds) and the published table's (every column), each in order of first appearance;
        ``pairs`` and ``masked`` as :attr:`ReleaseTables.pairs` and
        :attr:`ReleaseTables.masked`; ``searched``, ``weighted``, ``households`` and
        ``resolved`` as the attributes of those names."""
        quasi = [str(q) for q in quasi]
        shown = [c for c in [*quasi, sensitive] if c is not None and c in published.values]
        after = published.project(shown)
        tables = ReleaseTables(quasi, sensitive, original, after, list(quasi), pairs, masked)
        return cls(tables, published, searched, weighted, households, resolved)
