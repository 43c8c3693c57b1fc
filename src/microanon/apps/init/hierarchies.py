"""The hierarchies ``microanon init`` proposes for quasi-identifiers.

A quasi-identifier gets, by its profile (:mod:`microanon.apps.init.profile`):

* an ordered categorical column (an R ordered factor in a Parquet or Feather file), whatever
  its values: a **balanced** binary tree over the order its file declares, neighbours first;
* the **bundled Adult hierarchy** of the same name (``adult_hierarchies()``: ARX's semantic
  groupings of education, countries, marital status, ...; ``salary_class`` is ARX's name of
  ``income``) when every value of the column is one of its leaves, except ``age``, whose ARX
  labels are off by one at the boundaries (age 20 is in ``15-19``): a user's ages get intervals
  with exact labels instead;
* numbers: a **balanced** binary tree over at most :data:`FEW_VALUES` values; **intervals**
  of nested widths (about :data:`FINEST_INTERVALS` at the finest level, each width twice the
  previous) for whole numbers that are not skewed (``|skewness| <=`` :data:`SKEW_LIMIT`);
  **quantiles** (about 16, 4 and 2 intervals of equal record counts) otherwise;
* codes: **masking** of trailing digits (``13053 → 1305* → ... → 1****``, then ``*``); codes
  read as numbers shorter than the code's width are masked as if zero-padded (the file lost
  their leading zeros) while keeping the values as they are;
* dates: the **month**, **year** and **decade**, then ``*``;
* US states or countries (at least :data:`FEW_CLASSIFIED` distinct values that are leaves of
  a bundled classification, tried in :data:`CLASSIFICATIONS` order): the **bundled hierarchy**
  (census divisions and regions; UN M49 sub-regions and regions), inline; a survey's codes
  beside them (``99`` for "not asked", ``Unknown``: at most :data:`FEW_OUTSIDE` of the distinct
  values) are leaves of their own under the root, like ``?``, in a file;
* text whose every value starts with its own number, as a list of answers numbers them
  (``1. < HS Grad`` to ``5. Advanced Degree``), not under a name of unordered categories (a
  race, a marital status): a **balanced** binary tree over the numbers' order;
* other columns: a **flat** hierarchy (each value, or ``*``) to refine by hand.

Builders that the schema knows (intervals, quantiles, balanced, masking, bundled) are written
inline in the config and built when ``microanon anonymize`` runs; the others are written as ARX
CSV files. A column whose missing values are kept as ``?`` gets ``?`` as a leaf under the
root, in a file.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...core.hierarchy import SUPPRESSED, Hierarchy, number_line_order, value_key
from ...core.schema import with_missing_leaf
from ...datasets import ADULT_COLUMNS, adult_hierarchies
from .profile import NOMINAL_NAMES, ColumnProfile, normalized_name

__all__ = [
    "CLASSIFICATIONS",
    "FEW_CLASSIFIED",
    "FEW_VALUES",
    "FINEST_INTERVALS",
    "HierarchyPlan",
    "PLACE_FANOUT",
    "SKEW_LIMIT",
    "arx_csv",
    "date_hierarchy",
    "plan_hierarchy",
]

#: Numbers with at most this many distinct values get a balanced binary tree.
FEW_VALUES = 10
#: Codes grouped at each step of a place code's hierarchy (a balanced tree over the codes).
PLACE_FANOUT = 4
#: About this many intervals at the finest level of an intervals hierarchy.
FINEST_INTERVALS = 15
#: Whole numbers more skewed than this get quantiles rather than fixed-width intervals.
SKEW_LIMIT = 2.0
#: Bins of a quantiles hierarchy, finest first (those not below the distinct values dropped).
QUANTILE_BINS = (16, 4, 2)

#: Bundled classifications a text column is recognized as, in this order (US state codes before
#: country codes: ``CA``, ``IN`` or ``DE`` are both).
CLASSIFICATIONS = ("us-states", "us-state-names", "countries", "countries-alpha3", "country-names")
#: A column is recognized as a classification from this many distinct values on.
FEW_CLASSIFIED = 3
#: Most share of a classified column's distinct values that may lie outside the classification
#: (a survey's codes for no answer): each becomes a leaf of its own under the root.
FEW_OUTSIDE = 0.1

#: Names of data columns -> the bundled Adult column whose hierarchy they take.
_ADULT_ALIASES = {"salary_class": "income"}


@dataclass(frozen=True)
class HierarchyPlan:
    """How one quasi-identifier is generalized.

    Attributes
    ----------
    column : str
    how : str
        What the hierarchy is, for the config's comments.
    spec : dict or None
        An inline builder (``{builder: intervals, widths: [...]}``), or None for a file.
    hierarchy : Hierarchy or None
        The hierarchy to write as an ARX CSV file, or None for an inline builder.
    """

    column: str
    how: str
    spec: dict[str, Any] | None = None
    hierarchy: Hierarchy | None = field(default=None, compare=False)


def arx_csv(hierarchy: Hierarchy) -> str:
    """``hierarchy`` as an ARX CSV file: one row per leaf, leaf first, root last, ``;``."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=";", lineterminator="\n")
    for row in hierarchy.to_frame().itertuples(index=False):
        writer.writerow([value_key(v) for v in row])
    return buf.getvalue()


def _nice(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``x``, and at least 1."""
    if x <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= x)


def _plain(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _numeric(p: ColumnProfile) -> HierarchyPlan:
    if _months(p):
        return HierarchyPlan(
            p.name,
            "quarters, then halves of the year (intervals of 3 and 6 months from month 1: "
            "[1, 4) is January to March), built from the data when anonymize runs",
            spec={"builder": "intervals", "widths": [3, 6], "start": 1},
        )
    if p.distinct <= FEW_VALUES or p.low is None or p.high is None or p.high <= p.low:
        return HierarchyPlan(
            p.name,
            f"balanced binary tree over the {p.distinct} sorted values (pairs, then pairs of "
            "pairs, ...), built from the data when anonymize runs",
            spec={"builder": "balanced", "fanout": 2},
        )
    span = p.high - p.low
    if p.integer and abs(p.skew) <= SKEW_LIMIT:
        widths = [_nice(span / FINEST_INTERVALS)]
        while span / (2 * widths[-1]) >= 2:
            widths.append(2 * widths[-1])
        if widths[0] == 1 and len(widths) > 1:  # intervals of one whole number are the values
            widths = widths[1:]
        plain = [_plain(w) for w in widths]
        return HierarchyPlan(
            p.name,
            f"intervals of width {', '.join(map(str, plain))} (whole numbers, skewness "
            f"{p.skew:.1f}), built from the data when anonymize runs",
            spec={"builder": "intervals", "widths": plain},
        )
    bins = [b for b in QUANTILE_BINS if b < p.distinct] or [2]
    why = "fractional values" if not p.integer else f"skewness {p.skew:.1f}"
    return HierarchyPlan(
        p.name,
        f"quantiles: about {', '.join(map(str, bins))} intervals of equal record counts ({why}), "
        "built from the data when anonymize runs (a level that would repeat the one below, "
        "where most records hold one value, is left out)",
        spec={"builder": "quantiles", "bins": bins},
    )


#: Names (normalized) of a month's number.
_MONTH_NAMES = re.compile(r"_(month|mon|mnth|birth_?month|month_?of_?\w+)_")


def _months(p: ColumnProfile) -> bool:
    """Whether ``p`` is a month's number: whole numbers from 1 to 12 under a month's name
    (intervals from 0 would cut the year at December: [12, 16) alone, [0, 4) three months)."""
    return bool(
        p.integer
        and p.low is not None
        and p.high is not None
        and 1 <= p.low < p.high <= 12
        and _MONTH_NAMES.search(normalized_name(p.name))
    )


def _masked(key: str, width: int) -> list[str]:
    """Root-to-leaf path of a code masked one trailing digit at a time, zero-padded to width."""
    padded = key.zfill(width)
    levels = [padded[: width - m] + "*" * m for m in range(width - 1, 0, -1)]
    return [SUPPRESSED, *levels, key]


def _code(col: pd.Series, p: ColumnProfile, as_file: bool) -> HierarchyPlan:
    width = int(p.width or 1)
    keys = [value_key(v) for v in col.dropna().unique()]
    example = " → ".join([keys[0], *_masked(keys[0], width)[-2:0:-1], SUPPRESSED])
    how = f"masking of trailing digits, one at a time ({example})"
    if all(len(k) == width for k in keys):
        if not as_file:
            return HierarchyPlan(
                p.name,
                how + ", built from the data when anonymize runs",
                spec={"builder": "masking", "max_masked": width - 1},
            )
    else:
        how += (
            f"; values shorter than {width} digits are masked as if zero-padded (reading the "
            "file as numbers probably dropped their leading zeros)"
        )
    return HierarchyPlan(
        p.name, how, hierarchy=Hierarchy.from_paths([_masked(k, width) for k in keys], name=p.name)
    )


def _unordered(col: pd.Series, profile: ColumnProfile) -> str:
    """Why a column of whole numbers named as unordered categories (:data:`NOMINAL_NAMES`)
    has a flat hierarchy; empty for any other."""
    named = NOMINAL_NAMES.search(normalized_name(profile.name))
    numbers = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    if not (named and numbers) or profile.integer:  # (True and False are no codes: Treatment)
        return ""
    return (
        " (its numbers code categories that have no order, as a race's or a marital status's "
        "do: neighbouring codes are not alike)"
    )


#: A text that starts with its number in a list of answers: ``1. < HS Grad``, ``2) Agree``,
#: ``3 - Often``.
NUMBERED = re.compile(r"^\s*(\d+)\s*[.):-]\s*\S")


def _numbered(col: pd.Series, profile: ColumnProfile) -> list[str] | None:
    """The values of a text column whose every value starts with its own number (ISLR's
    ``Wage`` education, ``1. < HS Grad`` to ``5. Advanced Degree``), three or more, in the
    order of their numbers, when that is their order as text too (the order the balanced
    builder takes them in); None for any other column, and for one named as unordered
    categories (:data:`NOMINAL_NAMES`: a race's or a marital status's list numbers its
    categories without ordering them)."""
    if profile.type != "categorical" or profile.integer or profile.distinct < 3:
        return None
    if NOMINAL_NAMES.search(normalized_name(profile.name)):
        return None
    values = [v for v in col.dropna().unique() if isinstance(v, str)]
    if len(values) != profile.distinct:
        return None
    numbers = {}
    for v in values:
        m = NUMBERED.match(v)
        if m is None:
            return None
        numbers[v] = int(m.group(1))
    ordered = sorted(values, key=numbers.__getitem__)
    if len(set(numbers.values())) < len(values) or ordered != sorted(values):
        return None
    return ordered


def _balanced_over(name: str, values: Sequence[Any], how: str) -> HierarchyPlan:
    """The plan of a balanced binary tree over ``values``, in an order (``how`` says which)."""
    return HierarchyPlan(
        name,
        f"balanced binary tree over the {len(values)} values {how} ({value_key(values[0])} "
        f"first, {value_key(values[-1])} last): neighbours, then neighbouring pairs, ..., built "
        "from the data when anonymize runs",
        spec={"builder": "balanced", "fanout": 2},
    )


def date_hierarchy(col: pd.Series, p: ColumnProfile) -> tuple[list[list[Any]], str]:
    """Root-to-leaf paths of a date column's values: the day (for dates with a time of day,
    several on one day), month, year, decade, then ``*`` (levels that change nothing are left
    out; no day or month when its place in the dates is ambiguous), and the sentence saying
    which levels they hold (``"dates: month, year, decade, then *"``, fewer in a column of one
    date)."""
    present = col.dropna().drop_duplicates()  # (each date once: its paths, not its rows)
    if p.date_format is None:
        dates = pd.to_datetime(present)
    else:
        text = present.astype(str).str.strip()
        dates = pd.to_datetime(text, format=p.date_format.split("|")[0])
    month_known = p.date_format is None or "|" not in p.date_format
    leaves = [value_key(v) for v in present]
    levels = []
    if month_known:
        # (the moments of a day: MplsStops' stops, 2017-01-01T06:00:42Z, had gone from the
        # moment to its month)
        days = [f"{d.year:04d}-{d.month:02d}-{d.day:02d}" for d in dates]
        if len(set(days)) < len(set(leaves)):
            levels.append(("day", days))
        levels.append(("month", [f"{d.year:04d}-{d.month:02d}" for d in dates]))
    levels.append(("year", [f"{d.year:04d}" for d in dates]))
    levels.append(("decade", [f"{d.year // 10 * 10}-{d.year // 10 * 10 + 9}" for d in dates]))
    kept: list[tuple[str, list[str]]] = []
    below = leaves
    for name, level in levels:
        if level != below and len(set(level)) > 1:  # a level that changes nothing is left out
            kept.append((name, level))
            below = level
    paths = {}
    for i, leaf in enumerate(leaves):
        paths[leaf] = [SUPPRESSED, *(level[i] for _, level in reversed(kept)), leaf]
    steps = ", ".join(name for name, _ in kept)
    how = f"dates: {steps}, then *" if kept else "dates: each date, or * (no coarser step differs)"
    if not month_known:
        how += " (day or month first is ambiguous in these dates: no month)"
    return list(paths.values()), how


def _bundled(col: pd.Series, p: ColumnProfile) -> Hierarchy | None:
    key = normalized_name(p.name).strip("_")
    key = _ADULT_ALIASES.get(key, key)
    if key not in ADULT_COLUMNS or key == "age":
        return None
    h = adult_hierarchies()[key]
    if not all(h.contains(v) for v in col.dropna().unique()):
        return None
    return Hierarchy.from_paths(h.paths(), name=p.name)


def _classification(col: pd.Series) -> tuple[str, Hierarchy, list[str]] | None:
    """The first of :data:`CLASSIFICATIONS` holding all values of ``col`` but at most
    :data:`FEW_OUTSIDE` of them, its hierarchy, and the values outside it."""
    values = col.dropna().unique()
    if len(values) < FEW_CLASSIFIED or not all(isinstance(v, str) for v in values):
        return None
    for key in CLASSIFICATIONS:
        h = Hierarchy.bundled(key)
        outside = [str(v) for v in values if not h.contains(v)]
        inside = len(values) - len(outside)
        if inside >= FEW_CLASSIFIED and len(outside) <= FEW_OUTSIDE * len(values):
            return key, h, outside
    return None


def _sizes(h: Hierarchy) -> list[int]:
    return [len(h.level_labels(i)) for i in range(h.n_levels)]


def plan_hierarchy(
    col: pd.Series,
    profile: ColumnProfile,
    missing_leaf: bool,
    declared: Sequence[Any] | None = None,
    order: Sequence[Any] | None = None,
) -> HierarchyPlan:
    """Propose the hierarchy of one quasi-identifier (see the module docstring).

    Parameters
    ----------
    col : Series
        The column's values.
    profile : ColumnProfile
    missing_leaf : bool
        Whether missing values are the value ``?`` (``missing: value``), which must then be a
        leaf: such a hierarchy is written to a file. Numbers get a builder, which adds the leaf
        ``?`` itself when the column has missing values (:meth:`Schema.resolve`).
    declared : sequence, optional
        The column's values as its file declares them (value labels, in code order): a flat
        hierarchy lists them first, in that order, then the others in number-line order.
    order : sequence, optional
        The column's order as its file declares it (an ordered categorical: its ``order``):
        a balanced binary tree over it, which groups neighbours only.

    Returns
    -------
    HierarchyPlan
    """
    if order is not None:
        return _balanced_over(profile.name, order, "in the file's order")
    bundled = _bundled(col, profile)
    if bundled is not None:
        key = _ADULT_ALIASES.get(normalized_name(profile.name).strip("_"))
        named = f" ({key})" if key else ""
        plan = HierarchyPlan(
            profile.name,
            f"the bundled Adult hierarchy{named} (ARX's), which covers every value",
            hierarchy=bundled,
        )
    elif profile.type == "numeric":
        return _numeric(profile)
    elif profile.type == "code" and (profile.width or 0) >= 2:
        plan = _code(col, profile, as_file=missing_leaf)
    elif profile.type == "categorical" and profile.integer:  # (places' codes: PLACE_NAMES)
        plan = HierarchyPlan(
            profile.name,
            f"balanced tree over the {profile.distinct:,} codes in number order (groups of "
            f"{PLACE_FANOUT} neighbouring codes, then groups of those, ...): a place's code is "
            "a category, not a quantity; group the codes in a file to follow the places' own "
            "grouping (communes in districts); built from the data when anonymize runs",
            spec={"builder": "balanced", "fanout": PLACE_FANOUT},
        )
    elif profile.type == "date":
        paths, how = date_hierarchy(col, profile)
        plan = HierarchyPlan(
            profile.name, how, hierarchy=Hierarchy.from_paths(paths, name=profile.name)
        )
    elif (found := _classification(col)) is not None:
        key, h, outside = found
        covers = "every value"
        if outside:
            covers = f"every value but {', '.join(outside)} (a leaf of its own under *)"
        as_file = missing_leaf or bool(outside)
        paths = [*h.paths(), *([h.root, v] for v in outside)]
        plan = HierarchyPlan(
            profile.name,
            f"the bundled hierarchy {key} ({' -> '.join(map(str, _sizes(h)))} labels per "
            f"level), which covers {covers}",
            spec=None if as_file else {"builder": "bundled", "name": key},
            hierarchy=Hierarchy.from_paths(paths, name=profile.name) if as_file else None,
        )
    elif (numbered := _numbered(col, profile)) is not None:
        return _balanced_over(profile.name, numbered, "in the order of their numbers")
    else:
        held = {value_key(v) for v in col.dropna().unique()}
        first = [k for k in dict.fromkeys(value_key(v) for v in declared or ()) if k in held]
        keys = first + number_line_order(held - set(first))
        plan = HierarchyPlan(
            profile.name,
            f"flat: each of the {len(keys):,} values, or *; group values in the file to give "
            "anonymize finer steps" + _unordered(col, profile),
            hierarchy=Hierarchy.from_paths([[SUPPRESSED, k] for k in keys], name=profile.name),
        )
    if not missing_leaf or plan.hierarchy is None:
        return plan
    return HierarchyPlan(
        profile.name,
        plan.how + "; missing values are the leaf ?",
        hierarchy=with_missing_leaf(plan.hierarchy),
    )
