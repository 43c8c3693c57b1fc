"""Schemas: what each column is (its role and kind) and how it may be generalized.

A schema is built from a dict (or the same thing in YAML)::

    age:        {role: quasi, kind: numeric, hierarchy: hierarchies/age.csv}
    zip:        {role: quasi, hierarchy: {builder: masking}}
    disease:    {role: sensitive}
    name:       identifier          # shorthand: only the role

Hierarchies are given as a path to an ARX-style CSV (relative to ``base_dir``), a builder
description (``{builder: intervals, widths: [5, 10, 20], start: 0, end: 120}``, ``quantiles``
with ``bins``, ``balanced`` with ``fanout``, ``masking``, ``nested`` with ``tree``, ``groups``
with ``levels`` (or ``groups`` for one level), ``bundled`` with ``name``), or a
:class:`Hierarchy`. Builders other than ``nested`` are resolved when the schema meets a table
(:meth:`Schema.resolve`); all but ``quantiles`` then cover the column's declared values
(``categories`` or ``order``) as well as the table's. There too the leaves of a hierarchy of a
column of numbers (a file's are text) take the column's type: ``20.0`` of a column written
``20.0``, ``20`` of one written ``20`` (:mod:`~microanon.core.number_text`).
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .data_order import data_order, data_orders
from .errors import HierarchyError, InputError, SchemaError
from .factorize import coded, shared_result, sharing
from .files import read_yaml_file
from .frames import COPY_ON_WRITE, arrow_text, as_objects, as_pandas
from .hierarchy import Hierarchy, value_key
from .keys import shown
from .missing import MISSING_LABEL, MISSING_POLICIES, policy_name
from .number_text import placed_with_marker, typed_numbers, whole_numbers
from .reading import reading_hint

__all__ = [
    "TRACER",
    "Role",
    "Kind",
    "Attribute",
    "Schema",
    "SchemaInferenceWarning",
    "MISSING_POLICIES",
    "MISSING_LABEL",
    "marked_missing",
    "missing_policy",
    "no_values",
    "nothing_left",
    "missing_refused",
    "as_numbers",
    "with_missing_leaf",
    "leaves_in_column_type",
    "check_frame",
    "refuse_repeated",
]


#: The column a pipeline of steps traces every record by (:mod:`microanon.methods.steps`):
#: in its schemas, never published, never named to the user.
TRACER = "__microanon_row__"


def as_numbers(col: pd.Series, column: str, marked: bool, counted: bool = True) -> pd.Series:
    """A column the schema declares numeric, as numbers (a column of numbers: itself).

    Parameters
    ----------
    col : Series
        The column, its missing-value policy applied.
    column : str
        Its name, for the error.
    marked : bool
        Whether its missing values are the value ``?`` (``missing: value``): those stay ``?``
        and the rest become numbers, as objects, each in the type its column gives it
        (:mod:`~microanon.core.number_text`: ``3`` stays whole, ``3.0`` decimal).
    counted : bool, default True
        Whether ``col`` is the whole column, so that the error may say how many values are
        not numbers (a partition of a dataset is not: it names one value only).

    Raises
    ------
    InputError
        A value that is not a number, naming the column and one such value; or a column of
        dates, times or periods, which would otherwise become counts of time units since 1970.
    """
    types = pd.api.types
    if types.is_datetime64_any_dtype(col) or types.is_timedelta64_dtype(col):
        raise InputError(
            f"column '{column}' is numeric in the schema but holds dates or durations "
            f"({col.dtype}), not numbers: declare it categorical, or convert it to numbers first"
        )
    if isinstance(col.dtype, pd.PeriodDtype):
        raise InputError(
            f"column '{column}' is numeric in the schema but holds periods ({col.dtype}), not "
            "numbers: declare it categorical, or convert it to numbers first"
        )
    marker = col.eq(MISSING_LABEL).to_numpy() if marked else None
    if marker is None and types.is_numeric_dtype(col) and not types.is_bool_dtype(col):
        return col
    # (beside ?, the numbers alone: each keeps the type its column gives it, 3 or 3.0)
    given = col if marker is None else col[~marker]
    num = pd.to_numeric(given, errors="coerce") if marker is None else typed_numbers(given)
    bad = num.isna() & given.notna()
    if bad.any():
        many = f"{int(bad.sum()):,} " if counted else ""
        raise InputError(
            f"column '{column}' is numeric in the schema but holds {many}non-numeric "
            f"value(s), e.g. {shown(given[bad].iloc[0])}{reading_hint(given[bad].iloc[0])}"
        )
    if marker is None:
        return num
    # (as objects: equal numbers one object each, as the rows of a text column share theirs)
    return pd.Series(placed_with_marker(num, marker), index=col.index, name=col.name)


def missing_refused(refused: Sequence[tuple[Attribute, int]]) -> InputError:
    """The error for missing values under ``missing: error``: every such column with its
    count and the policies it could take instead (:attr:`Attribute.missing_remedy`)."""
    named = ", ".join(f"'{a.name}' ({n:,}: missing: {a.missing_remedy})" for a, n in refused)
    return InputError(
        f"missing values (missing: error) in column(s) {named}; set one of the policies named "
        "for each in the schema, or impute them"
    )


def missing_policy(name: Any, column: str) -> str:
    """The policy called ``name`` (an older name resolved), or :class:`SchemaError` naming
    ``column`` (see :mod:`microanon.core.missing`)."""
    try:
        return policy_name(name, MISSING_POLICIES, f"column '{column}'")
    except ValueError as exc:
        raise SchemaError(str(exc)) from None


class Role(str, Enum):
    """What a column is to an attacker, or to the design of the survey it comes from.

    ``weight``, ``household`` and ``strata`` are survey design columns: a sampling weight is
    published unchanged and used by the risk measures (sdcMicro's ``weightVar``); a household
    (cluster) id is used for the household risk and never published; a stratum id is published
    unchanged (checked by the schema lint like an insensitive column).
    """

    IDENTIFIER = "identifier"
    QUASI = "quasi"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    WEIGHT = "weight"
    HOUSEHOLD = "household"
    STRATA = "strata"

    @property
    def published(self) -> bool:
        """Whether a release publishes columns of this role (not identifiers, not households)."""
        return self not in (Role.IDENTIFIER, Role.HOUSEHOLD)

    @property
    def unchanged(self) -> bool:
        """Whether a column of this role is published as it is, never masked by a method
        (a sampling weight, a stratum id)."""
        return self in (Role.WEIGHT, Role.STRATA)


class Kind(str, Enum):
    """The measurement scale of a column."""

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"


class SchemaInferenceWarning(UserWarning):
    """Emitted for every role or kind that :meth:`Schema.infer` guessed rather than was told."""


_BUILDERS = {
    "intervals": ("widths", "start", "end"),
    "quantiles": ("bins",),
    "balanced": ("fanout", "order"),
    "masking": ("char", "max_masked"),
    "nested": ("tree",),
    "arx": ("file", "sep"),
    "groups": ("levels", "groups"),
    "bundled": ("name",),
}


@dataclass(frozen=True)
class Attribute:
    """One column of a schema.

    Parameters
    ----------
    name : str
    role : Role
    kind : Kind
    hierarchy : Hierarchy or dict or None
        A built hierarchy, or a builder description still to be resolved against data.
    order : tuple, optional
        Value order of an ordinal column (also used by ordered distances).
    categories : tuple, optional
        The values a categorical column can take, as the data owner states them (a codebook,
        e.g. a questionnaire's answer options). They are public by that statement: a release may
        name a category that no published row holds (a randomized column's domain does). Every
        value of the column must be one of them.
    missing : {"value", "keep", "drop", "error"}, optional
        Treatment of missing values (see :data:`MISSING_POLICIES`); by default ``value`` for a
        quasi-identifier and ``keep`` for any other column (:attr:`missing_policy`).
    kind_stated : bool, default True
        Whether the schema states ``kind``: False for a column :meth:`Schema.from_dict` gave the
        default kind, which an ordered categorical column of the data makes ordinal
        (:meth:`Schema.with_data_orders`). Not compared.
    """

    name: str
    role: Role
    kind: Kind = Kind.CATEGORICAL
    hierarchy: Hierarchy | Mapping[str, Any] | None = None
    order: tuple[Any, ...] | None = None
    categories: tuple[Any, ...] | None = None
    missing: str | None = None
    source: Any = field(default=None, compare=False, repr=False)
    kind_stated: bool = field(default=True, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON/YAML-friendly form, hierarchies included as label paths."""
        d: dict[str, Any] = {"role": self.role.value, "kind": self.kind.value}
        if isinstance(self.hierarchy, Hierarchy):
            d["hierarchy"] = self.hierarchy.to_dict()
        elif self.hierarchy is not None:
            d["hierarchy"] = dict(self.hierarchy)
        if self.order is not None:
            d["order"] = [v.item() if isinstance(v, np.generic) else v for v in self.order]
        if self.categories is not None:
            d["categories"] = [
                v.item() if isinstance(v, np.generic) else v for v in self.categories
            ]
        if self.missing is not None:
            d["missing"] = self.missing
        return d

    @property
    def missing_policy(self) -> str:
        """The missing-value policy in force: the declared one, else ``value`` for a
        quasi-identifier and ``keep`` for any other column."""
        if self.missing is not None:
            return self.missing
        return "value" if self.role is Role.QUASI else "keep"

    @property
    def missing_remedy(self) -> str:
        """The policies that would take this column's missing values, as a message offers them
        (``"value or drop"``): ``keep`` is refused for a quasi-identifier, and ``value`` for a
        numeric column without a hierarchy (``?`` is no number)."""
        numbers_only = self.kind is Kind.NUMERIC and self.hierarchy is None
        policies = [
            p
            for p in ("value", "keep", "drop")
            if not (p == "keep" and self.role is Role.QUASI) and not (p == "value" and numbers_only)
        ]
        return ", ".join(policies[:-1]) + " or " + policies[-1]

    @property
    def declared_values(self) -> tuple[Any, ...] | None:
        """The values the data owner declared for this column (public by that statement).

        An ordinal column's ``order`` or a categorical column's ``categories``; None when the
        column's values are only known from the data.
        """
        if self.kind is Kind.ORDINAL and self.order is not None:
            return self.order
        return self.categories


def with_missing_leaf(h: Hierarchy) -> Hierarchy:
    """``h`` with the missing-value label ``?`` as a leaf of its own (unless it is one already).

    The leaf stays ``?`` at every level below the root, so a missing value generalizes like
    any other value: to itself until the whole column is suppressed.
    """
    if h.contains(MISSING_LABEL):
        return h
    return Hierarchy.from_paths([*h.paths(), [h.root, MISSING_LABEL]], name=h.name)


def _enum(enum: type[Enum], value: Any, what: str, column: str) -> Any:
    if isinstance(value, enum):
        return value
    try:
        return enum(str(value).strip().lower())
    except ValueError:
        allowed = ", ".join(m.value for m in enum)  # type: ignore[attr-defined]
        raise SchemaError(
            f"column '{column}': unknown {what} {value!r} (use one of {allowed})"
        ) from None


def _categories(spec: Any, column: str, kind: Kind) -> tuple[Any, ...] | None:
    """A column's declared ``categories``: a non-empty list of distinct values, not numeric."""
    if spec is None:
        return None
    if kind is not Kind.CATEGORICAL:
        raise SchemaError(
            f"column '{column}': categories are for categorical columns (an ordinal column's "
            "order lists its values)"
        )
    if isinstance(spec, (str, bytes, Mapping)) or not isinstance(spec, Sequence) or not spec:
        raise SchemaError(f"column '{column}': categories must be a non-empty list of values")
    keys = [value_key(v) for v in spec]
    if len(set(keys)) != len(keys):
        raise SchemaError(f"column '{column}': categories list a value twice")
    return tuple(spec)


def _hierarchy_spec(spec: Any, column: str, base_dir: Path | None) -> Hierarchy | dict | None:
    """Normalize a hierarchy entry; files are read now, data-dependent builders later."""
    if spec is None or isinstance(spec, Hierarchy):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        spec = {"builder": "arx", "file": spec}
    if not isinstance(spec, Mapping):
        raise SchemaError(
            f"column '{column}': hierarchy must be a file path, a builder mapping or a Hierarchy, "
            f"got {type(spec).__name__}"
        )
    spec = dict(spec)
    if "paths" in spec:
        return Hierarchy.from_dict({**spec, "name": column})
    if "builder" not in spec and "groups" in spec:
        spec["builder"] = "groups"  # the one-level shorthand: {groups: {group: [values]}}
    builder = spec.get("builder")
    if builder not in _BUILDERS:
        raise SchemaError(
            f"column '{column}': unknown hierarchy builder {builder!r} "
            f"(use one of {', '.join(_BUILDERS)}, or give a file path)"
        )
    unknown = set(spec) - {"builder", *_BUILDERS[builder]}
    if unknown:
        raise SchemaError(
            f"column '{column}': hierarchy builder '{builder}' does not take "
            + ", ".join(sorted(unknown))
        )
    if builder == "arx":
        path = Path(spec["file"])
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        if not path.exists():
            raise HierarchyError(f"column '{column}': hierarchy file {path} does not exist")
        return Hierarchy.from_arx_csv(path, sep=spec.get("sep", ";"), name=column)
    if builder == "nested":
        return Hierarchy.from_nested(spec["tree"], name=column)
    if builder in ("groups", "bundled"):
        _check_domain_builder(spec, column)
    return spec


def _check_domain_builder(spec: dict[str, Any], column: str) -> None:
    """Check a ``groups`` or ``bundled`` builder now (they are built when the data are known,
    so that every value of the data and every declared category is checked to be a leaf)."""
    if spec["builder"] == "bundled":
        if "name" not in spec:
            raise SchemaError(f"column '{column}': the bundled builder needs 'name'")
        Hierarchy.bundled(spec["name"], name=column)
        return
    if ("levels" in spec) == ("groups" in spec):
        raise SchemaError(
            f"column '{column}': the groups builder needs 'levels' (a list of levels, finest "
            "first) or 'groups' (one level), not both"
        )
    Hierarchy.from_groups(spec.get("levels", spec.get("groups")), name=column)


def marked_missing(column: pd.Series) -> np.ndarray:
    """Which cells of a column hold the value ``?``, a missing value under ``missing: value``
    in a table the policies were applied to (:meth:`Schema.validate`): none in a column of
    numbers."""
    if pd.api.types.is_numeric_dtype(column):
        return np.zeros(len(column), dtype=bool)
    arrow = arrow_text(column)
    if arrow is not None:  # pyarrow's comparison, without pandas' wrapping of it
        import pyarrow.compute as pc

        return pc.equal(arrow, MISSING_LABEL).to_numpy(zero_copy_only=False)
    return column.eq(MISSING_LABEL).fillna(False).to_numpy(dtype=bool)


def missing_or_marked(column: pd.Series) -> np.ndarray:
    """Which cells of a column are missing or hold ``?`` (see :func:`marked_missing`): within a
    run (:func:`~microanon.core.factorize.shared_codes`), from the codes it gave the column
    when it read it, without comparing its rows' text."""
    known = coded(column)
    if known is None:
        return np.asarray(column.array.isna()) | marked_missing(column)
    codes, uniques = known
    marked = codes < 0
    if not pd.api.types.is_numeric_dtype(column):
        for at in np.flatnonzero(np.asarray(pd.Index(uniques, dtype=object) == MISSING_LABEL)):
            marked |= codes == at
    return marked


def nothing_left(records: int, columns: Sequence[str]) -> InputError:
    """The error when ``missing: drop`` leaves out every one of the ``records``, naming the
    ``columns`` whose missing values do (those missing everywhere, if any)."""
    return InputError(
        f"every one of the {records:,} records has a missing value in "
        f"{', '.join(map(repr, columns))}, which missing: drop leaves out: no record is left; "
        "give such a column missing: value or keep, or another role"
    )


def no_values(attr: Attribute, records: int) -> InputError:
    """The error of a hierarchy built from the data for a column that holds no value (every one
    of the ``records`` missing), naming the column and its builder; under ``missing: error``,
    the refusal of those missing values (:func:`missing_refused`), which comes first."""
    if attr.missing_policy == "error":
        return missing_refused([(attr, records)])
    builder = attr.hierarchy.get("builder") if isinstance(attr.hierarchy, Mapping) else None
    return SchemaError(
        f"column '{attr.name}': the {builder} hierarchy is built from the column's values, and "
        "it holds none (every value is missing); give it a hierarchy file or its possible "
        "values (categories), or another role"
    )


def _build_from_data(spec: Mapping[str, Any], values: pd.Series, attr: Attribute) -> Hierarchy:
    """Build a builder hierarchy over the column's values and its declared ones.

    Every builder but ``quantiles`` (cut on the records) also covers the values the data owner
    declared (``categories``, an ordinal ``order``), so that a later table holding a declared
    value the data lack is covered.
    """
    b = spec["builder"]
    vals = values.dropna()
    declared = attr.declared_values
    if declared is not None and b != "quantiles":
        seen = {value_key(v) for v in vals.unique()}
        extra = [v for v in declared if value_key(v) not in seen]  # "25" is the data's 25
        if extra:
            vals = pd.concat([vals, pd.Series(extra, dtype=object)], ignore_index=True)
    if not len(vals):
        raise no_values(attr, len(values))
    if b == "intervals":
        if "widths" not in spec:
            raise SchemaError(f"column '{attr.name}': the intervals builder needs 'widths'")
        return Hierarchy.intervals(
            vals.unique(),
            spec["widths"],
            start=spec.get("start"),
            name=attr.name,
            end=spec.get("end"),
        )
    if b == "quantiles":
        if "bins" not in spec:
            raise SchemaError(f"column '{attr.name}': the quantiles builder needs 'bins'")
        return Hierarchy.quantiles(vals, spec["bins"], name=attr.name)
    if b == "balanced":
        order = spec.get("order", attr.order)
        return Hierarchy.balanced(vals.unique(), spec.get("fanout", 2), order=order, name=attr.name)
    if b == "groups":
        levels = spec.get("levels", spec.get("groups"))
        return Hierarchy.from_groups(levels, values=vals.unique(), name=attr.name)
    if b == "bundled":
        return Hierarchy.bundled(spec["name"], values=vals.unique(), name=attr.name)
    return Hierarchy.masking(
        vals.unique(), char=spec.get("char", "*"), max_masked=spec.get("max_masked"), name=attr.name
    )


def leaves_in_column_type(h: Hierarchy, column: pd.Series, attr: Attribute) -> Hierarchy:
    """A column's hierarchy with its leaves in the type of the column's numbers, as a method
    publishes a leaf at level 0 (:mod:`~microanon.core.number_text`): a hierarchy file's leaf
    ``20`` is the number 20.0 of a column read as decimal numbers, its leaf ``20.0`` the number
    20 of one read as whole numbers; the labels above the leaves stay as written.

    Parameters
    ----------
    h : Hierarchy
        The column's hierarchy (given, or built from the data).
    column : Series
        The column's values, or its distinct ones (the value ``?`` and missing cells aside).
    attr : Attribute
        The column's attribute: a column of text is a column of numbers only if declared
        numeric.

    Returns
    -------
    Hierarchy
        ``h`` itself for a column that holds no number, or whose leaves are in its type.

    Raises
    ------
    HierarchyError
        Two leaves that are the same number of the column (``20`` and ``20.0``).
    """
    if not h.leaves_write_numbers:  # (a hierarchy of text: the column is not looked at)
        return h
    whole = _numbers_whole(column, attr)
    return h if whole is None else h.with_leaves_in_type(whole)


def _numbers_whole(column: pd.Series, attr: Attribute) -> bool | None:
    """Whether a column of numbers is read as whole numbers (True) or decimal ones (False), as
    :func:`~microanon.core.number_text.whole_numbers` tells, the value ``?`` and missing cells
    aside; None for a column that holds no number: one of text (unless the schema declares it
    numeric: :func:`as_numbers` converts it), of booleans, or with no value present."""
    types = pd.api.types
    if types.is_bool_dtype(column.dtype):
        return None
    if types.is_numeric_dtype(column.dtype):
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu":
            return True if len(column) else None  # (NumPy's integers: no cell missing)
        return types.is_integer_dtype(column.dtype) if bool(column.notna().any()) else None
    present = column[column.notna().to_numpy() & ~marked_missing(column)]
    if not len(present):
        return None
    if attr.kind is not Kind.NUMERIC and not _all_numbers(present):
        return None  # (a column of text: its leaves stay text, compared as text)
    return whole_numbers(present)


def _all_numbers(values: pd.Series) -> bool:
    """Whether every one of ``values`` (present ones, as objects or text) is a number."""
    if isinstance(values.iloc[0], str):  # (a column of text, at once)
        return False
    numbers = (int, float, np.integer, np.floating)
    return all(
        isinstance(v, numbers) and not isinstance(v, (bool, np.bool_)) for v in values.unique()
    )


def refuse_repeated(names: Sequence[Any], what: str) -> None:
    """Refuse a list of columns that names one twice, in one line naming it and ``what`` (the
    parameter), where pandas would fail on a column taken twice.

    Raises
    ------
    InputError
        ``"<what>: column '<name>' named twice"``.
    """
    seen: set[Any] = set()
    for name in names:
        if name in seen:
            raise InputError(f"{what}: column {name!r} named twice")
        seen.add(name)


def check_frame(df: Any, columns: Sequence[str] | None = None, what: str = "table") -> pd.DataFrame:
    """``df`` as a pandas DataFrame, checked: raise :class:`InputError` for what is not a table
    (a DataFrame or an Arrow-compatible table, see :func:`~microanon.core.frames.as_pandas`),
    empty tables, duplicate or absent columns."""
    df = as_pandas(df, what)
    if df.columns.duplicated().any():
        dup = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
        raise InputError(f"{what}: duplicate column names: {', '.join(dup)}")
    if len(df) == 0:
        raise InputError(f"{what} is empty: there are no rows to work on")
    if columns is not None:
        absent = [c for c in columns if c not in df.columns]
        if absent:
            raise InputError(
                f"{what}: column(s) {', '.join(repr(c) for c in absent)} not found; available: "
                + ", ".join(map(str, df.columns))
                + _untexted_names(df, absent)
            )
    return df


def _untexted_names(df: pd.DataFrame, names: Sequence[Any]) -> str:
    """The hint for ``names`` that ``df`` holds under column names that are not text (a schema
    names every column by its text), or ``""``.

    Parameters
    ----------
    df : DataFrame
        The table.
    names : sequence
        Column names looked for in ``df`` and not found.

    Returns
    -------
    str
        ``" (the table's column names 0, 1 are int, not text: ...)"`` or ``""``.
    """
    wanted = {str(n) for n in names}
    held = [c for c in df.columns if not isinstance(c, str) and str(c) in wanted]
    if not held:
        return ""
    return (
        f" (the table's column name(s) {', '.join(map(str, held))} are "
        f"{type(held[0]).__name__}, not text: name the columns by text, e.g. "
        "df.columns = df.columns.astype(str))"
    )


def _with_data_order(attr: Attribute, order: tuple[Any, ...]) -> Attribute:
    """``attr`` with the order its column of the data declares (see
    :meth:`Schema.with_data_orders`), or ``attr`` itself when the schema states otherwise.

    Raises
    ------
    SchemaError
        A stated order whose values differ from the data's.
    """
    if attr.kind is Kind.CATEGORICAL and not attr.kind_stated and attr.categories is None:
        return replace(attr, kind=Kind.ORDINAL, order=order)
    if attr.kind is not Kind.ORDINAL:
        return attr
    if attr.order is None:
        return replace(attr, order=order)
    stated = {value_key(v) for v in attr.order} - {MISSING_LABEL}
    data = {value_key(v) for v in order}
    listed = ", ".join(value_key(v) for v in order[:10]) + (", ..." if len(order) > 10 else "")
    if data - stated:
        raise SchemaError(
            f"column '{attr.name}': value(s) {', '.join(sorted(data - stated)[:5])} are not in "
            f"its order, and the data's ordered categories hold them ({listed}); add them, or "
            "leave the order out to take the data's"
        )
    if stated - data:
        raise SchemaError(
            f"column '{attr.name}': value(s) {', '.join(sorted(stated - data)[:5])} of its order "
            f"are not among the data's ordered categories ({listed}); remove them, or leave the "
            "order out to take the data's"
        )
    return attr


class Schema:
    """Ordered collection of :class:`Attribute` objects, one per column.

    Parameters
    ----------
    attributes : iterable of Attribute
    """

    def __init__(self, attributes: Sequence[Attribute]) -> None:
        names = [a.name for a in attributes]
        dup = sorted(n for n, times in Counter(names).items() if times > 1)
        if dup:
            raise SchemaError(f"schema names column(s) more than once: {', '.join(dup)}")
        households = [a.name for a in attributes if a.role is Role.HOUSEHOLD]
        if len(households) > 1:
            raise SchemaError(
                f"schema gives role household to {', '.join(households)}: the household risk "
                "takes one household id, give the others role identifier"
            )
        self._attrs: dict[str, Attribute] = {a.name: a for a in attributes}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(
        cls, spec: Mapping[str, Any], base_dir: str | os.PathLike[str] | None = None
    ) -> Schema:
        """Build from ``{column: {role, kind, hierarchy, order, categories, missing}}`` (or
        ``{column: role}``).

        Parameters
        ----------
        spec : mapping
            Column name to attribute description. ``kind`` defaults to ``categorical``.
        base_dir : path, optional
            Directory that relative hierarchy paths are resolved against.
        """
        if not isinstance(spec, Mapping) or not spec:
            raise SchemaError("a schema must be a non-empty mapping of column name to description")
        base = Path(base_dir) if base_dir is not None else None
        attrs = []
        for name, desc in spec.items():
            name = str(name)
            if isinstance(desc, (str, Role)):
                desc = {"role": desc}
            if not isinstance(desc, Mapping):
                raise SchemaError(f"column '{name}': description must be a mapping or a role name")
            unknown = set(desc) - {"role", "kind", "hierarchy", "order", "categories", "missing"}
            if unknown:
                raise SchemaError(
                    f"column '{name}': unknown schema key(s) {', '.join(sorted(unknown))}"
                )
            if "role" not in desc:
                raise SchemaError(
                    f"column '{name}': no role given ({', '.join(r.value for r in Role)})"
                )
            role = _enum(Role, desc["role"], "role", name)
            # A sampling weight is a number: numeric unless the schema says otherwise.
            default_kind = "numeric" if role is Role.WEIGHT else "categorical"
            kind = _enum(Kind, desc.get("kind", default_kind), "kind", name)
            missing = desc.get("missing")
            if missing is not None:
                missing = missing_policy(missing, name)
                if missing != "keep" and not role.published:
                    raise SchemaError(
                        f"column '{name}': missing: {missing} would have no effect: a column of "
                        f"role {role.value} is not published, and the missing-value policies "
                        "leave no row out and change no value for it; remove it, or give the "
                        "column a published role"
                    )
                if missing == "keep" and role is Role.QUASI:
                    raise SchemaError(
                        f"column '{name}': missing: keep is for sensitive and insensitive "
                        "columns; a quasi-identifier's missing value is the value ? (missing: "
                        "value) or its rows are left out (missing: drop)"
                    )
            order = desc.get("order")
            if kind is Kind.ORDINAL and order is None and desc.get("hierarchy") is None:
                raise SchemaError(f"column '{name}': an ordinal column needs an 'order' list")
            attrs.append(
                Attribute(
                    name=name,
                    role=role,
                    kind=kind,
                    hierarchy=_hierarchy_spec(desc.get("hierarchy"), name, base),
                    order=tuple(order) if order is not None else None,
                    categories=_categories(desc.get("categories"), name, kind),
                    missing=missing,
                    kind_stated="kind" in desc,
                )
            )
        return cls(attrs)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> Schema:
        """Read a schema from YAML: the column mapping itself, or a document with a ``schema`` key.

        Relative hierarchy paths are resolved against the YAML file's directory.
        """
        path = Path(path)
        doc = read_yaml_file(path, "schema file", SchemaError)
        if isinstance(doc, Mapping) and "schema" in doc and isinstance(doc["schema"], Mapping):
            doc = doc["schema"]
        return cls.from_dict(doc, base_dir=path.parent)

    @classmethod
    def infer(
        cls,
        df: pd.DataFrame,
        quasi: Sequence[str] = (),
        sensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        categories: Mapping[str, Sequence[Any]] | None = None,
    ) -> Schema:
        """Guess a schema from a DataFrame, warning about every guess.

        Named columns get the given roles; all other columns become ``insensitive``. Kinds are
        ``numeric`` for numeric dtypes, ``ordinal`` for an ordered categorical column (its
        categories are its ``order``: :func:`~microanon.core.data_order.data_order`) and
        ``categorical`` otherwise; a categorical column named
        in ``categories`` declares those (an SPSS or Stata file's value labels:
        :func:`microanon.apps.io.value_label_categories`). Each guess is reported with a
        :class:`SchemaInferenceWarning`; write the schema down to silence them.

        Raises
        ------
        InputError
            A column name that is not text (a schema names every column by its text).
        """
        declared = dict(categories or {})
        df = check_frame(df, [*quasi, *sensitive, *identifiers])
        roles: dict[str, Role] = {}
        for group, role in (
            (identifiers, Role.IDENTIFIER),
            (quasi, Role.QUASI),
            (sensitive, Role.SENSITIVE),
        ):
            for c in group:
                if c in roles:
                    raise SchemaError(f"column '{c}' is given two roles")
                roles[c] = role
        if any(not isinstance(c, str) for c in df.columns):
            raise InputError(
                "Schema.infer: a schema names every column by its text"
                + _untexted_names(df, list(df.columns))
            )
        attrs = []
        for col in df.columns:
            role = roles.get(col)
            if role is None:
                role = Role.INSENSITIVE
                warnings.warn(
                    f"column '{col}': no role given, inferred 'insensitive'",
                    SchemaInferenceWarning,
                    stacklevel=2,
                )
            is_num = pd.api.types.is_numeric_dtype(df[col]) and not pd.api.types.is_bool_dtype(
                df[col]
            )
            order = data_order(df[col])
            kind = Kind.NUMERIC if is_num else Kind.CATEGORICAL
            kind = Kind.ORDINAL if order is not None else kind
            ordered = " (ordered: its categories are the order)" if order is not None else ""
            warnings.warn(
                f"column '{col}': kind inferred as '{kind.value}' from dtype "
                f"{df[col].dtype}{ordered}",
                SchemaInferenceWarning,
                stacklevel=2,
            )
            labels = declared.get(col) if kind is Kind.CATEGORICAL else None
            attrs.append(
                Attribute(col, role, kind, order=order, categories=_categories(labels, col, kind))
            )
        return cls(attrs)

    # ------------------------------------------------------------------ access
    def __getitem__(self, name: str) -> Attribute:
        try:
            return self._attrs[name]
        except KeyError:
            raise SchemaError(
                f"column '{name}' is not in the schema; it has: {', '.join(self._attrs)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._attrs

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self._attrs.values())

    def __len__(self) -> int:
        return len(self._attrs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schema):
            return NotImplemented
        return list(self._attrs.values()) == list(other._attrs.values())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [f"{a.name}:{a.role.value}/{a.kind.value}" for a in self]
        return f"Schema({', '.join(parts)})"

    @property
    def columns(self) -> list[str]:
        """All column names, in order."""
        return list(self._attrs)

    def _with_role(self, role: Role) -> list[str]:
        return [a.name for a in self if a.role is role]

    @property
    def quasi(self) -> list[str]:
        """Quasi-identifier columns."""
        return self._with_role(Role.QUASI)

    @property
    def sensitive(self) -> list[str]:
        """Sensitive columns."""
        return self._with_role(Role.SENSITIVE)

    @property
    def identifiers(self) -> list[str]:
        """Direct identifiers (dropped from every release)."""
        return self._with_role(Role.IDENTIFIER)

    @property
    def insensitive(self) -> list[str]:
        """Columns that are neither identifying nor sensitive."""
        return self._with_role(Role.INSENSITIVE)

    @property
    def weights(self) -> list[str]:
        """Sampling-weight columns (published unchanged; the risk measures use the first)."""
        return self._with_role(Role.WEIGHT)

    @property
    def weight(self) -> str | None:
        """The sampling weight the risk measures use: the first weight column, or None."""
        weights = self.weights
        return weights[0] if weights else None

    @property
    def household(self) -> str | None:
        """The household (cluster) id column, or None (used for the household risk, never
        published)."""
        households = self._with_role(Role.HOUSEHOLD)
        return households[0] if households else None

    @property
    def strata(self) -> list[str]:
        """Stratum-id columns (published unchanged)."""
        return self._with_role(Role.STRATA)

    @property
    def published(self) -> list[str]:
        """Every column a release publishes: all but identifiers and the household id."""
        return [a.name for a in self if a.role.published]

    @property
    def dropping(self) -> list[str]:
        """The published columns whose missing value leaves its record out (``missing: drop``)."""
        return [a.name for a in self if a.role.published and a.missing_policy == "drop"]

    def left_out(self, frame: Any) -> Any:
        """Which rows of ``frame`` (pandas or Dask) a ``missing: drop`` column of it leaves out
        (a boolean series), or None when it holds no such column."""
        drop = [c for c in self.dropping if c in frame.columns]
        return frame[drop].isna().any(axis=1) if drop else None

    def hierarchy(self, name: str) -> Hierarchy:
        """The resolved hierarchy of a column.

        Raises
        ------
        SchemaError
            If the column has none, or it is a builder not yet resolved against data.
        """
        h = self[name].hierarchy
        if h is None:
            raise SchemaError(f"column '{name}' has no hierarchy in the schema")
        if not isinstance(h, Hierarchy):
            raise SchemaError(
                f"column '{name}': hierarchy builder '{h['builder']}' needs the data; "
                "call schema.resolve(df) first"
            )
        return h

    def hierarchies(self) -> dict[str, Hierarchy]:
        """All resolved hierarchies, by column."""
        return {a.name: a.hierarchy for a in self if isinstance(a.hierarchy, Hierarchy)}

    def declared(self) -> dict[str, tuple[Any, ...]]:
        """Column -> the values its data owner declared (``categories`` or an ordinal ``order``).

        Public by that statement: a release may name them even where no published row does.
        """
        return {a.name: a.declared_values for a in self if a.declared_values is not None}

    def with_attribute(self, attr: Attribute) -> Schema:
        """Copy with one attribute added or replaced."""
        attrs = dict(self._attrs)
        attrs[attr.name] = attr
        return Schema(list(attrs.values()))

    def select(self, columns: Sequence[str]) -> Schema:
        """Copy restricted to ``columns`` (in that order)."""
        return Schema([self[c] for c in columns])

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for release metadata and YAML (round-trips with :meth:`from_dict`)."""
        return {a.name: a.to_dict() for a in self}

    # ------------------------------------------------------------------ data checks
    def with_data_orders(self, df: pd.DataFrame) -> Schema:
        """The schema with the orders ``df``'s ordered categorical columns declare
        (:func:`~microanon.core.data_order.data_order`: an ordered pandas ``Categorical``, an
        ordered Arrow dictionary), each stated by the data's owner as a schema's ``order`` is.

        A published column whose kind the schema does not state, and which declares no
        ``categories``, becomes ``ordinal`` with the data's order; an ordinal column without an
        ``order`` takes the data's. What the schema states wins otherwise: a stated kind (even
        ``categorical``), declared ``categories``, or an ``order`` of its own, which must hold
        the data's categories and no other value (the value ``?`` aside), in any order. Columns
        that are not ordered categoricals, and those ``df`` lacks, are left as they are.

        Parameters
        ----------
        df : DataFrame
            The table the schema describes (pandas, or an Arrow-compatible table).

        Returns
        -------
        Schema
            ``self`` when no column changes.

        Raises
        ------
        SchemaError
            An ordinal column whose stated order and the data's hold different values, naming
            the column, the values and the data's order.
        """
        orders = data_orders(as_pandas(df, "table"))
        if not orders:
            return self
        attrs, changed = [], False
        for a in self:
            order = orders.get(a.name)
            if order is not None and a.role.published:
                taken = _with_data_order(a, order)
                changed = changed or taken is not a
                a = taken
            attrs.append(a)
        return Schema(attrs) if changed else self

    def resolve(
        self,
        df: pd.DataFrame,
        more_values: Mapping[str, Sequence[pd.Series]] | None = None,
        leaf_columns: Collection[str] = (),
    ) -> Schema:
        """Build data-dependent hierarchies (intervals, quantiles, ...) from ``df``'s values:
        those of the records that enter, as :meth:`validate` leaves them (not those a
        ``missing: drop`` column leaves out). The leaves of every hierarchy of a column of
        numbers, a file's text among them, are held in the column's type
        (:func:`leaves_in_column_type`): a method publishes a leaf at level 0. The orders of
        ``df``'s ordered categorical columns are taken first (:meth:`with_data_orders`), so
        that a builder (``balanced``) orders their values by them.

        Parameters
        ----------
        df : DataFrame
        more_values : mapping of column to series, optional
            Further values of some columns that the domain builders (``intervals``,
            ``balanced``, ``masking``) must cover as well, e.g. those of a population containing
            ``df``. ``quantiles`` are always cut on ``df``'s values alone.
        leaf_columns : collection of str, optional
            Columns known to hold only leaves of the hierarchy they were given, none missing
            (the caller looked every value up): no missing value is looked for in them.
        """
        df = as_pandas(df, "table")
        schema = self.with_data_orders(df)
        # the records a missing value leaves out (missing: drop) enter nothing: no hierarchy
        # holds a value, or the leaf ?, that only they hold
        left_out = schema.left_out(df)
        if left_out is not None and left_out.any():
            if bool(left_out.all()):
                empty = [c for c in schema.dropping if c in df.columns and df[c].isna().all()]
                raise nothing_left(len(df), empty or schema.dropping)
            df = df.loc[~left_out.to_numpy()]
        attrs = []
        for a in schema:
            h = a.hierarchy
            marked = None  # the missing values of a column whose missing value is the value ?
            needed = h is not None and not (isinstance(h, Hierarchy) and h.contains(MISSING_LABEL))
            needed = needed and a.name not in leaf_columns
            if needed and a.missing_policy == "value" and a.name in df.columns:
                marked = missing_or_marked(df[a.name])
            if h is not None and not isinstance(h, Hierarchy):
                check_frame(df, [a.name])
                values = df[a.name]
                if marked is not None and bool(marked.any()):  # the numbers of a validated table
                    values = values[~marked]
                    if a.kind is Kind.NUMERIC and not pd.api.types.is_numeric_dtype(values):
                        values = pd.to_numeric(values, errors="coerce")  # text: refused later
                extra = (more_values or {}).get(a.name)
                if extra and h.get("builder") != "quantiles":
                    if marked is not None:  # (a population's ? is the leaf ?, as the records')
                        held = [e[~missing_or_marked(e)] for e in extra]
                        if any(len(e) > len(k) for e, k in zip(extra, held, strict=True)):
                            marked = np.ones(1, dtype=bool)
                        extra = held
                    values = pd.concat([values, *extra], ignore_index=True)
                h = _build_from_data(h, values, a)
            if isinstance(h, Hierarchy) and a.name in df.columns:
                h = leaves_in_column_type(h, df[a.name], a)
            if isinstance(h, Hierarchy) and marked is not None and bool(marked.any()):
                h = with_missing_leaf(h)
            attrs.append(replace(a, hierarchy=h))
        return Schema(attrs)

    def validate(
        self, df: pd.DataFrame, check_leaves: bool = True, leaf_columns: Collection[str] = ()
    ) -> pd.DataFrame:
        """Check ``df`` against the schema and return the rows and columns to work on.

        Applies the missing-value policies (:mod:`microanon.core.missing`: ``value`` fills
        ``"?"``, ``keep`` leaves the cell empty, ``drop`` removes the row), coerces numeric
        columns, and checks that every value of a column with a resolved
        hierarchy is one of its leaves (unless ``check_leaves`` is false: the caller looks every
        value up in its hierarchy itself, as :meth:`Table.from_frame` does when it encodes).
        ``leaf_columns``: columns of text, without declared values, known to hold only leaves
        of their resolved hierarchy, none missing: nothing is left to check or apply there.

        Within :func:`~microanon.core.factorize.shared_codes` (one command's run), the same
        columns validated again with the same policies (the reports after the method, with the
        schema as configured or resolved) get the first validation's table back, labelled by
        the index of the table given: the policies are applied once (the leaves, when checked,
        are looked up in it), and the columns keep the codes the run gave them.

        Raises
        ------
        InputError
            Empty table, duplicate or absent columns, missing values under the ``error`` policy
            (naming every such column and its count), missing values a numeric column without
            hierarchy cannot hold as ``?``, non-numeric values in a numeric column.
        HierarchyError
            A value absent from its column's hierarchy (naming value and column).
        """
        df = check_frame(df, self.columns)
        if leaf_columns or not COPY_ON_WRITE or not sharing():
            return self._applied(df, check_leaves, leaf_columns)[0]
        # Within one run (shared_codes) the method and the reports validate the same columns
        # with the same policies: done once, each caller given its own table (copy-on-write),
        # labelled by its own index.
        try:
            out, kept = shared_result(
                [df[c] for c in self.columns],
                ("validated", self._policies()),
                lambda: self._applied(df, False, ()),
            )
        except (InputError, SchemaError):
            if not check_leaves:
                raise
            # (the error of the first column at fault, as when the leaves are checked in turn)
            return self._applied(df, check_leaves, ())[0]
        out = out.set_axis(df.index if kept is None else df.index[kept], axis=0)
        for a in self if check_leaves else ():
            if isinstance(a.hierarchy, Hierarchy):
                a.hierarchy.leaf_index(out[a.name].unique(), column=a.name)
        return out

    def _policies(self) -> tuple[Hashable, ...]:
        """What :meth:`validate` (without its leaf checks) reads of each column: its name,
        role, kind, missing-value policy, declared values and whether it has a hierarchy."""
        return tuple(
            (
                a.name,
                a.role is Role.IDENTIFIER,
                a.kind,
                a.missing_policy,
                isinstance(a.hierarchy, (Hierarchy, Mapping)),
                None if a.declared_values is None else tuple(map(value_key, a.declared_values)),
            )
            for a in self
        )

    def _applied(
        self, df: pd.DataFrame, check_leaves: bool, leaf_columns: Collection[str]
    ) -> tuple[pd.DataFrame, np.ndarray | None]:
        """:meth:`validate` of a checked table, and the positions of the rows it keeps (None:
        every row)."""
        # The policies below replace whole columns, never write into one: under copy-on-write
        # a shallow copy keeps the caller's table as it is, and the columns left unchanged keep
        # their data (and the codes a run gave them).
        deep = not COPY_ON_WRITE
        same = list(df.columns) == self.columns
        out = df.copy(deep=deep) if same else df.loc[:, self.columns].copy(deep=deep)
        drop = np.zeros(len(out), dtype=bool)
        refused: list[tuple[Attribute, int]] = []
        as_value = set()
        numbers = set()  # (numbers of a float column with ? for its missing values)
        for a in self:
            if a.role is Role.IDENTIFIER or a.name in leaf_columns:
                continue
            col = out[a.name]
            policy = a.missing_policy
            if policy == "value" and a.kind is Kind.NUMERIC and marked_missing(col).any():
                as_value.add(a.name)  # a table validated before: its missing values are ?
            na = np.asarray(col.array.isna())
            if not na.any():
                continue
            if policy == "error":
                refused.append((a, int(na.sum())))
            elif policy == "drop":
                drop |= na
            elif policy == "value":
                if a.kind is Kind.NUMERIC and not isinstance(a.hierarchy, (Hierarchy, Mapping)):
                    raise InputError(
                        f"column '{a.name}' has {int(na.sum()):,} missing value(s), which a "
                        "numeric column without a hierarchy cannot hold as the value ?: set "
                        "missing: drop for it, give it a hierarchy, or impute them"
                    )
                if isinstance(col.dtype, pd.StringDtype):  # text stays text (3x faster)
                    out[a.name] = col.fillna(MISSING_LABEL)
                else:
                    out[a.name] = as_objects(col).where(~na, MISSING_LABEL)
                as_value.add(a.name)
                if col.dtype == np.float64:  # numbers and ?: what as_numbers would make of it
                    numbers.add(a.name)
        if refused:
            raise missing_refused(refused)
        kept = None
        if drop.any():
            out = out.loc[~drop]
            if len(out) == 0:
                raise InputError("no rows are left after dropping rows with missing values")
            kept = np.flatnonzero(~drop)
        for a in self:
            if a.kind is Kind.NUMERIC and a.role is not Role.IDENTIFIER and a.name not in numbers:
                col = out[a.name]
                num = as_numbers(col, a.name, a.name in as_value)
                if num is not col:  # (a column of numbers is kept, with its codes)
                    out[a.name] = num
            declared = a.declared_values
            if declared is not None and a.role is not Role.IDENTIFIER:
                # (? is a missing answer's value where the policy is value: in the records
                # made so here, and in a published table read back)
                marked = a.name in as_value or a.missing_policy == "value"
                known = {value_key(v) for v in declared} | ({MISSING_LABEL} if marked else set())
                present = out[a.name].dropna().unique()
                absent = sorted({value_key(v) for v in present} - known)
                if absent:
                    what = "order" if a.kind is Kind.ORDINAL else "categories"
                    raise SchemaError(
                        f"column '{a.name}': value(s) {', '.join(absent[:5])} are not in its {what}"
                    )
            if check_leaves and isinstance(a.hierarchy, Hierarchy):
                a.hierarchy.leaf_index(out[a.name].unique(), column=a.name)
        return out, kept
