"""The encoded original table: small integer codes per column plus their dictionaries.

Every group-based algorithm works on :meth:`Table.frequencies` — the distinct combinations of some
columns and their counts — rather than on rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .errors import InputError, SchemaError
from .factorize import (
    code_counts,
    coded,
    factorize,
    factorize_keys,
    few_distinct,
    first_rows,
    packed_key,
    push_digit,
    shared_result,
    sharing,
)
from .frames import arrow_text
from .hierarchy import Hierarchy, value_key
from .number_text import numbers_with_marker
from .schema import MISSING_LABEL, Kind, Role, Schema, check_frame

__all__ = [
    "Table",
    "whole_with_unknown",
    "Frequencies",
    "Combined",
    "combine_codes",
    "refuse_unknown",
    "factorize_column",
    "code_dtype",
    "text_leaf_codes",
    "DENSE_FACTOR",
    "DENSE_SLACK",
]


#: pandas columns backed by a pyarrow array (``str`` columns of pandas 3, ``string[pyarrow]``).
#: Key spaces up to this many times the number of rows (plus a constant) are counted, not sorted
#: (here, in the models' groups and in the lattice's frequency sets, which share the rule).
DENSE_FACTOR = 4
DENSE_SLACK = 4096


#: The narrow code types with the largest number of values each holds.
_NARROW = tuple((np.dtype(dt), int(np.iinfo(dt).max)) for dt in (np.int8, np.int16, np.int32))


def code_dtype(n: int) -> np.dtype:
    """The narrowest signed integer type that holds the codes ``-1 .. n - 1`` (a table's codes,
    positions among ``n`` values)."""
    for dt, most in _NARROW:
        if n <= most:
            return dt
    return np.dtype(np.int64)


def factorize_column(
    series: pd.Series, column: Any, weights: np.ndarray | None = None
) -> tuple[np.ndarray, pd.Index]:
    """Integer codes ``0..d-1`` (order of first appearance) and the distinct values of a column.

    Values are compared as they are (generalized labels such as ``"[20, 30)"`` or ``"*"`` are just
    values). ``weights``: the records each row stands for (a frequency table's counts), by which
    missing values are counted.

    Raises
    ------
    InputError
        If the column has missing values (naming the column and the count) or unhashable values.
    """
    try:
        codes, uniques = factorize(series)
    except TypeError as exc:
        raise InputError(f"column {column!r} holds unhashable values: {exc}") from exc
    gaps = codes < 0
    missing = int(np.count_nonzero(gaps) if weights is None else weights[gaps].sum())
    if missing:
        raise InputError(
            f"column {column!r} has {missing} missing value(s); fill them with an explicit "
            "value (a suppressed cell is '*') or drop those rows first"
        )
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _sorted_codes(col: pd.Series, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a column by the rank of its value among its sorted distinct values, and those
    (``-1`` for a missing value), as ``pandas.factorize(col, sort=True)`` gives them.

    The column's codes in order of first appearance (:func:`~microanon.core.factorize.factorize`,
    shared within a run) are renumbered by the rank of their value: text in code point order.

    Raises
    ------
    SchemaError
        Values that cannot be ordered.
    """
    inv, uniq = factorize(col)
    rank, values = sorted_values(uniq, column)  # the rank of each distinct value
    if not len(rank):
        return np.full(len(inv), -1, dtype=np.int64), values
    codes = rank.astype(code_dtype(len(values)))[inv]  # (narrow: one small array per row)
    if len(inv) and inv.min() < 0:  # missing values: -1, not the last rank
        codes[inv < 0] = -1
    return codes, values


#: At most this many values of text are sorted by Python itself (pandas' call costs more).
_FEW_SORTED = 4096


def sorted_values(values: Any, column: str) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(values, sort=True)``: the rank of each value among the sorted distinct
    values (numbers before text when both occur), and those values.

    Raises
    ------
    SchemaError
        Values that cannot be ordered, naming ``column``.
    """
    items = list(values) if len(values) <= _FEW_SORTED else None
    if items is not None and all(type(v) is str for v in items):  # text: code point order
        distinct = sorted(set(items))
        at = {v: i for i, v in enumerate(distinct)}
        return np.array([at[v] for v in items], dtype=np.int64), np.array(distinct, dtype=object)
    try:
        inv, uniq = pd.factorize(values, sort=True)
    except TypeError as exc:
        raise SchemaError(
            f"column '{column}' mixes values that cannot be ordered ({exc}); convert it to one type"
        ) from None
    return inv.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)


def _leaf_codes(col: pd.Series, hierarchy: Hierarchy, column: str) -> np.ndarray:
    """The leaf index of every value of a column.

    An Arrow-backed string column is looked up in the hierarchy's string leaves by pyarrow in
    one pass (a value equal to a leaf has that leaf's key); when some value is no such leaf
    (it matches only after :func:`value_key`, or is not a leaf at all), or for any other column,
    the distinct values are looked up by key.

    Within a run (:func:`~microanon.core.factorize.shared_codes`) the column is coded once, for
    every later step too, and its distinct values are mapped instead.

    Raises
    ------
    HierarchyError
        Naming the column and the values that are not leaves.
    """
    narrow = code_dtype(len(hierarchy.leaves))  # the table's dtype: no wider copy per row
    if sharing():
        inv, uniq = factorize(col)
        if not (inv < 0).any():
            return hierarchy.leaf_index(uniq, column=column).astype(narrow)[inv]
    codes = text_leaf_codes(col, hierarchy)
    if codes is not None:
        return codes
    inv, uniq = pd.factorize(col, sort=False)
    return hierarchy.leaf_index(uniq, column=column).astype(narrow)[inv]


def text_leaf_codes(col: pd.Series, hierarchy: Hierarchy) -> np.ndarray | None:
    """The leaf index of every value of an Arrow-backed text column, looked up by pyarrow in one
    pass, when every value is equal to a leaf of ``hierarchy``.

    Parameters
    ----------
    col : Series
        A column of the original table.
    hierarchy : Hierarchy
        The column's hierarchy.

    Returns
    -------
    numpy.ndarray or None
        The codes, of the table's type for the hierarchy (:func:`code_dtype`); None for a column
        that is not Arrow-backed text, holds a missing cell, or holds a value that is no leaf
        or matches one only after :func:`~microanon.core.hierarchy.value_key`.
    """
    arrow = arrow_text(col)
    if arrow is None:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    leaves = hierarchy.leaves
    text = [i for i, v in enumerate(leaves) if type(v) is str]
    found = pc.index_in(arrow, value_set=pa.array([leaves[i] for i in text], type=arrow.type))
    if found.null_count:
        return None
    narrow = code_dtype(len(leaves))
    found = found.to_numpy()  # (Arrow's buffer, read only: the codes are a copy)
    if len(text) == len(leaves):
        return found.astype(narrow)
    return np.asarray(text, narrow)[found]


def _leaf_columns(df: pd.DataFrame, schema: Schema) -> dict[str, np.ndarray]:
    """The leaf codes of the published columns whose every value is a leaf of the hierarchy
    they were given (:func:`text_leaf_codes`): no cell is missing or ``?``, so the missing-value
    policies have nothing to do there, and the hierarchy stays as given.

    Numeric columns and those with declared values (which the validation compares with the
    data) are left to the general path, and so is every column within a run, which codes each
    column once for all its steps (:func:`~microanon.core.factorize.shared_codes`).
    """
    if sharing():
        return {}
    out = {}
    for a in schema.select(schema.published):
        h = a.hierarchy
        if isinstance(h, Hierarchy) and a.kind is not Kind.NUMERIC and a.declared_values is None:
            codes = text_leaf_codes(df[a.name], h)
            if codes is not None:
                out[a.name] = codes
    return out


class Combined(NamedTuple):
    """Distinct combinations of code columns (see :func:`combine_codes`)."""

    combos: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray
    first: np.ndarray


def combine_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> Combined:
    """Distinct combinations of several code columns.

    Codes are packed into one int64 key per row (mixed radix), or, when the product of the sizes
    overflows int64, compared as rows of a code matrix.

    Parameters
    ----------
    codes : sequence of int arrays, all of one length
    sizes : sequence of int
        Number of possible codes per column (codes are ``0..size-1``).

    Returns
    -------
    Combined
        ``combos`` (n_distinct, n_columns) distinct combinations in lexicographic order,
        ``counts`` rows per combination, ``inverse`` the combination of each row and ``first``
        the position of each combination's first row.
    """
    n = len(codes[0]) if len(codes) else 0
    if not len(codes):
        return Combined(
            np.zeros((1, 0), np.int64),
            np.array([n], np.int64),
            np.zeros(n, np.int64),
            np.zeros(1 if n else 0, np.int64),
        )
    radices = [max(int(s), 1) for s in sizes]
    if math.prod(radices) <= np.iinfo(np.int64).max:
        key = np.zeros(n, dtype=np.int64)
        for c, s in zip(codes, radices, strict=True):
            push_digit(key, c, s)
        space = math.prod(radices)
        # A key space larger than the rows is counted only when the keys are mostly distinct:
        # of many repeated keys, a hash table of the few distinct ones is several times faster
        # than counting over the whole space (11 ms against 31 at 10^6 rows of 8,000 keys in a
        # space three times the rows).
        if space <= n + DENSE_SLACK or (
            space <= DENSE_FACTOR * n + DENSE_SLACK and not few_distinct(key)
        ):
            # A small key space is counted directly, no sort: the same answer as np.unique.
            per_key = np.bincount(key, minlength=space)
            uniq = np.flatnonzero(per_key)
            counts = per_key[uniq]
            rank = np.zeros(space, dtype=np.int64)
            rank[uniq] = np.arange(len(uniq), dtype=np.int64)
            inverse = rank[key]
            first = np.full(len(uniq), n, dtype=np.int64)
            np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
        else:
            # Hashed, not sorted: only the distinct keys are sorted (the same answer as np.unique).
            # Numbered by first appearance, so each one's first row is found in a prefix.
            found, seen = factorize_keys(key)
            order = np.argsort(seen)
            uniq = seen[order]
            rank = np.empty(len(uniq), dtype=np.int64)
            rank[order] = np.arange(len(uniq), dtype=np.int64)
            inverse = rank[found]
            counts = np.bincount(found, minlength=len(uniq))[order]
            first = first_rows(found, len(uniq))[order]
        combos = np.empty((len(uniq), len(codes)), dtype=np.int64)
        rest = uniq
        for j in range(len(codes) - 1, -1, -1):
            combos[:, j] = rest % radices[j]
            rest = rest // radices[j]
    else:
        # Too many columns for one key: the combinations renumbered on the way (a hash pass per
        # renumbering), then only the distinct ones sorted; the same answer as
        # np.unique(axis=0), which sorts every row (a fifth of the time at 10^6 rows).
        key, _ = packed_key(codes, radices)
        found, seen = factorize_keys(key)
        first = first_rows(found, len(seen))
        combos = np.column_stack([np.asarray(c)[first] for c in codes]).astype(np.int64)
        order = np.lexsort(combos.T[::-1])
        combos, first = combos[order], first[order]
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order), dtype=np.int64)
        inverse = rank[found]
        counts = np.bincount(found, minlength=len(seen))[order]
    inverse = inverse.reshape(-1).astype(np.int64, copy=False)  # (made here: no copy needed)
    return Combined(
        combos, counts.astype(np.int64, copy=False), inverse, first.astype(np.int64, copy=False)
    )


@dataclass(frozen=True)
class Frequencies:
    """Distinct combinations of some columns of a :class:`Table` with their counts.

    Attributes
    ----------
    columns : list of str
    combos : (n_distinct, n_columns) int64 array of codes
    counts : (n_distinct,) int64 array
    inverse : (n_rows,) int64 array, the combination of each row
    dictionaries : list of arrays, the values behind the codes of each column
    """

    columns: list[str]
    combos: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray
    dictionaries: list[np.ndarray]

    def __len__(self) -> int:
        return len(self.counts)

    def to_frame(self) -> pd.DataFrame:
        """Decoded combinations with a ``count`` column."""
        data = {
            c: d[self.combos[:, j]]
            for j, (c, d) in enumerate(zip(self.columns, self.dictionaries, strict=True))
        }
        data["count"] = self.counts
        return pd.DataFrame(data)


def whole_with_unknown(values: np.ndarray, numbers: np.ndarray) -> bool:
    """Whether a numeric column's dictionary ``values`` are integers (the column was read as
    integers, pandas' nullable ones where cells are missing) and one is unknown (``None``, a
    cell kept empty), so that ``numbers``, their conversion, are floats only for the gap."""
    unknown = np.isnan(numbers) if numbers.dtype.kind == "f" else None
    if unknown is None or not unknown.any():
        return False
    known = values[~unknown]
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in known)


def _encode_column(col: pd.Series, attr: Any) -> tuple[np.ndarray, np.ndarray]:
    """Codes and dictionary of a column without missing cells (see :class:`Table`)."""
    h = attr.hierarchy
    if isinstance(h, Hierarchy):
        return _leaf_codes(col, h, attr.name), np.asarray(h.leaves, dtype=object)
    if attr.declared_values is not None:  # an ordinal order or declared categories
        declared = list(attr.declared_values)
        pos = {value_key(v): i for i, v in enumerate(declared)}
        inv, uniq = pd.factorize(col, sort=False)
        if MISSING_LABEL in set(uniq) and value_key(MISSING_LABEL) not in pos:
            pos[value_key(MISSING_LABEL)] = len(declared)  # missing: value, after the declared
            declared.append(MISSING_LABEL)
        c = np.array([pos[value_key(u)] for u in uniq], dtype=np.int64)[inv]
        return c, np.asarray(declared, dtype=object)
    return _sorted_codes(col, attr.name)


class Table:
    """An original table encoded as integer codes, one dictionary per column.

    Build it with :meth:`Table.from_frame`. A column with a hierarchy is coded by the leaf index of
    its values (the dictionary is the hierarchy's full leaf list, values absent from the data
    included), so recoding to a level is one array lookup. Other numeric columns are coded in
    ascending value order, ordinal columns in their declared order, categorical columns in their
    declared ``categories`` (values absent from the data included) or else in sorted order. A
    column whose missing cells are kept (``missing: keep``) has one more code, the last, whose
    dictionary value is ``None``: the cell is unknown.

    Attributes
    ----------
    schema : Schema
        The schema with resolved hierarchies, restricted to the published columns.
    levels : dict of str to int
        Generalization level of each column (0 = original values).
    counts : int64 array or None
        Records each row stands for, when the table is a frequency table (distinct combinations
        with their counts, see :meth:`from_codes`); None when every row is one record.
    appearance : dict of str to (int array, int array)
        Of a column :meth:`from_frame` encoded within
        :func:`~microanon.core.factorize.shared_codes`, every row of it: the run's codes of its
        values (:func:`~microanon.core.factorize.factorize`, by first appearance) and the code
        of each of those values, so that ``codes(column)`` is the second indexed by the first.
        A column published with one label per value has these codes too: its rows need not be
        coded again. Empty for any other table.
    """

    def __init__(
        self,
        codes: Mapping[str, np.ndarray],
        dictionaries: Mapping[str, np.ndarray],
        schema: Schema,
        index: pd.Index | None = None,
        levels: Mapping[str, int] | None = None,
        counts: np.ndarray | None = None,
    ) -> None:
        lengths = {len(c) for c in codes.values()}
        if len(lengths) > 1:
            raise InputError("all code columns of a table must have the same length")
        self._codes = {k: np.asarray(v) for k, v in codes.items()}
        self._dicts = {k: np.asarray(v, dtype=object) for k, v in dictionaries.items()}
        self.schema = schema
        self.n_rows = lengths.pop() if lengths else 0
        self.index = index if index is not None else pd.RangeIndex(self.n_rows)
        self.levels = {c: 0 for c in self._codes} | dict(levels or {})
        self.counts: np.ndarray | None = None
        if counts is not None:
            counts = np.asarray(counts)
            if counts.shape != (self.n_rows,) or not np.issubdtype(counts.dtype, np.integer):
                raise InputError(
                    f"counts must be one integer per row ({self.n_rows}), got shape "
                    f"{counts.shape} of {counts.dtype}"
                )
            if len(counts) and int(counts.min()) < 1:
                raise InputError("counts must be positive: a row stands for at least one record")
            self.counts = counts.astype(np.int64, copy=False)
        self.appearance: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(cls, df: pd.DataFrame, schema: Schema | Mapping[str, Any]) -> Table:
        """Validate and encode a DataFrame.

        Identifier and household columns are dropped (they are never published); missing-value
        policies are applied; builder hierarchies are resolved against the data.

        Parameters
        ----------
        df : pandas.DataFrame or Arrow-compatible table
            A pyarrow Table, a polars DataFrame, ... (see :func:`microanon.core.frames.as_pandas`).
        schema : Schema or mapping accepted by :meth:`Schema.from_dict`

        Within :func:`~microanon.core.factorize.shared_codes` (one command's run), the same
        table and schema objects are encoded once: a report that runs the method again (the
        closest configurations) gets the method's encoding back. Tables are never changed in
        place.

        Raises
        ------
        InputError, SchemaError, HierarchyError
            See :meth:`Schema.validate`.
        """
        if not isinstance(schema, Schema):
            schema = Schema.from_dict(schema)
        df = check_frame(df, schema.columns)
        if not sharing():
            return cls._encoded(df, schema)
        # Kept with the table: the schema and index, so that their ids are not reused meanwhile.
        what = ("table", tuple(schema.columns), id(schema), id(df.index))
        held_schema, held_index, table = shared_result(
            [df[c] for c in schema.columns],
            what,
            lambda: (schema, df.index, cls._encoded(df, schema)),
        )
        if held_schema is schema and held_index is df.index:
            return table
        return cls._encoded(df, schema)

    @classmethod
    def _encoded(cls, df: pd.DataFrame, schema: Schema) -> Table:
        """:meth:`from_frame` of a checked table, encoded anew."""
        leaf_codes = _leaf_columns(df, schema)  # coded already, nothing missing in them
        schema = schema.resolve(df, leaf_columns=leaf_codes)
        # check_leaves=False: the encoding below looks every value up
        clean = schema.validate(df, check_leaves=False, leaf_columns=leaf_codes)
        if len(clean) != len(df):  # rows dropped for missing values elsewhere: coded again
            leaf_codes = {}
        schema = schema.select(schema.published)
        codes: dict[str, np.ndarray] = {}
        dicts: dict[str, np.ndarray] = {}
        appearance: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for attr in schema:
            if attr.name in leaf_codes:
                codes[attr.name] = leaf_codes[attr.name]
                dicts[attr.name] = np.asarray(attr.hierarchy.leaves, dtype=object)
                continue
            col = clean[attr.name]
            unknown = np.asarray(col.array.isna())  # cells kept empty (missing: keep)
            if unknown.any():
                known, d = _encode_column(col[~unknown], attr)
                c = np.full(len(col), len(d), dtype=np.int64)
                c[~unknown] = known
                d = np.append(d, np.array([None], dtype=object))  # the last code: unknown
            else:
                c, d = _encode_column(col, attr)
                run = coded(col)
                if run is not None:  # (no missing value: every run code is a value's)
                    appearance[attr.name] = (run[0], c[first_rows(run[0], len(run[1]))])
            codes[attr.name] = c.astype(code_dtype(len(d)), copy=False)
            dicts[attr.name] = d
        table = cls(codes, dicts, schema, index=clean.index)
        table.appearance = appearance
        return table

    @classmethod
    def from_codes(
        cls,
        codes: Mapping[str, np.ndarray],
        dictionaries: Mapping[str, Sequence[Any] | np.ndarray],
        schema: Schema,
        counts: np.ndarray | None = None,
    ) -> Table:
        """A table of already-encoded columns, e.g. the frequency table of a larger one.

        Parameters
        ----------
        codes : mapping column -> int array
            Codes of every column of ``schema`` (codes index the column's dictionary).
        dictionaries : mapping column -> sequence
            Values behind the codes, built as :meth:`from_frame` builds them (hierarchy leaves,
            declared order, or sorted values).
        schema : Schema
            Resolved (hierarchies built), restricted to the published columns.
        counts : int array, optional
            Records each row stands for (default one). With counts, the table is a frequency
            table and every method that reads :attr:`weights` treats it exactly as the table of
            records it summarizes.

        Raises
        ------
        InputError
            Columns that are not those of ``schema``, codes outside a dictionary, counts that
            are not one positive integer per row.
        """
        if list(codes) != schema.columns or set(dictionaries) != set(codes):
            raise InputError(
                f"from_codes: codes and dictionaries must cover the schema's columns "
                f"{schema.columns} in order, got {list(codes)}"
            )
        out: dict[str, np.ndarray] = {}
        for c, v in codes.items():
            v = np.asarray(v)
            size = len(dictionaries[c])
            if len(v) and (int(v.min()) < 0 or int(v.max()) >= size):
                raise InputError(f"from_codes: column {c!r} has codes outside 0..{size - 1}")
            out[c] = v.astype(code_dtype(size), copy=False)
        dicts = {c: np.asarray(list(d), dtype=object) for c, d in dictionaries.items()}
        return cls(out, dicts, schema, counts=counts)

    # ------------------------------------------------------------------ access
    @property
    def columns(self) -> list[str]:
        """Column names, in schema order."""
        return list(self._codes)

    def __len__(self) -> int:
        return self.n_rows

    @property
    def n_records(self) -> int:
        """Records the table holds: its rows, or the sum of its :attr:`counts`."""
        return self.n_rows if self.counts is None else int(self.counts.sum())

    @property
    def weights(self) -> np.ndarray:
        """Records per row as an int64 array (ones without :attr:`counts`)."""
        if self.counts is None:
            return np.ones(self.n_rows, dtype=np.int64)
        return self.counts

    def __repr__(self) -> str:
        return f"<Table: {self.n_rows} rows, columns {self.columns}>"

    def _check(self, columns: Sequence[str]) -> None:
        absent = [c for c in columns if c not in self._codes]
        if absent:
            raise InputError(
                f"column(s) {', '.join(map(repr, absent))} not in the table; it has "
                + ", ".join(self.columns)
            )

    def codes(self, column: str) -> np.ndarray:
        """Integer codes of a column."""
        self._check([column])
        return self._codes[column]

    def dictionary(self, column: str) -> np.ndarray:
        """Values behind the codes of a column (object array)."""
        self._check([column])
        return self._dicts[column]

    def unknown_count(self, column: str) -> int:
        """Records whose value of ``column`` is unknown (a missing cell kept empty)."""
        d = self.dictionary(column)
        if not len(d) or d[-1] is not None:
            return 0
        codes = self.codes(column)
        unknown = codes == len(d) - 1
        if self.counts is None:
            return int(np.count_nonzero(unknown))
        return int(self.counts[unknown].sum())

    def refuse_unknown(self, columns: Sequence[str], method: str) -> None:
        """Refuse missing cells kept empty in ``columns``, which ``method`` cannot treat.

        Raises
        ------
        InputError
            Naming the first such column, its count and what to do.
        """
        refuse_unknown({c: self.unknown_count(c) for c in columns}, method, self.schema)

    def cardinality(self, column: str) -> int:
        """Number of possible codes of a column (the dictionary's size)."""
        return len(self.dictionary(column))

    def values(self, column: str) -> np.ndarray:
        """Decoded values of a column."""
        return self._dicts[column][self.codes(column)]

    def frequencies(self, columns: Sequence[str] | None = None) -> Frequencies:
        """Distinct combinations of ``columns`` (default: all) and how many records hold each."""
        columns = list(self.columns if columns is None else columns)
        self._check(columns)
        combos, counts, inverse, _ = combine_codes(
            [self._codes[c] for c in columns], [len(self._dicts[c]) for c in columns]
        )
        if self.counts is not None:
            counts = np.bincount(inverse, weights=self.counts, minlength=len(counts))
            counts = counts.astype(np.int64)
        return Frequencies(columns, combos, counts, inverse, [self._dicts[c] for c in columns])

    def to_frame(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """Decode to a DataFrame (numeric columns at level 0 keep a numeric dtype)."""
        columns = list(self.columns if columns is None else columns)
        self._check(columns)
        data = {}
        for c in columns:
            if self.schema[c].kind is Kind.NUMERIC and self.levels.get(c, 0) == 0:
                data[c] = self._numbers(c)
            else:
                data[c] = self.values(c)
        return pd.DataFrame(data, index=self.index)

    def _numbers(self, column: str) -> Any:
        """A numeric column decoded as :meth:`to_frame` gives it: the values its rows hold
        converted once each (``pandas.to_numeric``; the value ``?`` kept among the numbers,
        each in the type its column gives it, when a record holds it: see
        :mod:`~microanon.core.number_text`), then taken by the codes."""
        codes = self._codes[column]
        held = np.flatnonzero(code_counts(codes, len(self._dicts[column])))
        values = self._dicts[column][held]  # the values the rows hold (so the type is theirs)
        marker = values == MISSING_LABEL
        position = np.zeros(len(self._dicts[column]), dtype=np.intp)
        position[held] = np.arange(len(held))
        at = position[codes]  # (narrow codes cast a buffer at a time, not whole)
        if marker.any():  # numbers beside ?: each in its column's type (core.number_text)
            return numbers_with_marker(values, marker).take(at)
        num = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy()
        if whole_with_unknown(values, num):  # integers with cells kept empty: 3, not 3.0
            return pd.array(num, dtype="Int64").take(at)
        return num.take(at)

    # ------------------------------------------------------------------ transformations
    def take(self, rows: np.ndarray) -> Table:
        """Rows selected by a boolean mask or integer positions."""
        rows = np.asarray(rows)
        return Table(
            {c: v[rows] for c, v in self._codes.items()},
            self._dicts,
            self.schema,
            index=self.index[rows],
            levels=self.levels,
            counts=None if self.counts is None else self.counts[rows],
        )

    def recode(self, levels: Mapping[str, int] | Sequence[int]) -> Table:
        """Full-domain recoding: replace each column's values by their ancestors at a level.

        Parameters
        ----------
        levels : mapping column -> level, or a level vector over the quasi-identifiers in schema
            order. Columns not mentioned stay as they are.

        Returns
        -------
        Table
            A new table whose dictionaries are the level labels.
        """
        if not isinstance(levels, Mapping):
            vec = list(levels)
            if len(vec) != len(self.schema.quasi):
                raise InputError(
                    f"level vector has {len(vec)} entries but there are {len(self.schema.quasi)} "
                    f"quasi-identifiers ({', '.join(self.schema.quasi)})"
                )
            levels = dict(zip(self.schema.quasi, vec, strict=True))
        self._check(list(levels))
        codes = dict(self._codes)
        dicts = dict(self._dicts)
        new_levels = dict(self.levels)
        for col, lvl in levels.items():
            if self.levels.get(col, 0) != 0:
                raise InputError(
                    f"column '{col}' is already generalized; recode the original table"
                )
            h = self.schema.hierarchy(col)
            lvl = int(lvl)
            if not 0 <= lvl <= h.height:
                raise InputError(f"column '{col}': level {lvl} is outside 0..{h.height}")
            if lvl == 0:
                continue
            mapping = h.level_codes(lvl)
            labels = np.asarray(h.level_labels(lvl), dtype=object)
            codes[col] = mapping.astype(code_dtype(len(labels)))[self._codes[col]]
            dicts[col] = labels
            new_levels[col] = lvl
        return Table(
            codes, dicts, self.schema, index=self.index, levels=new_levels, counts=self.counts
        )

    def is_quasi(self, column: str) -> bool:
        """Whether a column is a quasi-identifier."""
        return self.schema[column].role is Role.QUASI


def refuse_unknown(unknown: Mapping[str, int], method: str, schema: Schema) -> None:
    """Refuse missing cells kept empty (``unknown``: their count per column of ``schema``),
    which ``method`` cannot treat (:meth:`Table.refuse_unknown`; out of core, the encoding's
    counts).

    Raises
    ------
    InputError
        Naming every column with such cells, its count and what to do (``missing: value``
        only where the value ``?`` can be held: not in a numeric column without a hierarchy),
        in one line.
    """
    found = {column: n for column, n in unknown.items() if n}
    if not found:
        return
    held = [
        c for c in found if schema[c].kind is not Kind.NUMERIC or schema[c].hierarchy is not None
    ]
    if len(found) == 1:
        ((column, n),) = found.items()
        value = " or missing: value (the value ?)" if held else ""
        raise InputError(
            f"column '{column}' has {n:,} missing value(s) (missing: keep), which "
            f"{method} cannot treat as unknown: set missing: drop (the rows are left "
            f"out and counted){value} for it"
        )
    counts = ", ".join(f"'{c}' {n:,}" for c, n in found.items())
    if len(held) == len(found):
        value = " or missing: value (the value ?)"
    elif held:
        value = f", or missing: value (the value ?) for {', '.join(repr(c) for c in held)}"
    else:
        value = ""
    raise InputError(
        f"{len(found)} columns have missing values (missing: keep), which {method} cannot treat "
        f"as unknown: {counts}; set missing: drop for each (the rows are left out and "
        f"counted){value}"
    )
