"""The builders of :class:`~microanon.core.hierarchy.Hierarchy`: the paths of its trees.

Each builder checks its input and returns the root-to-leaf label paths that the tree is built
from, as :func:`~microanon.core.grouping.group_paths` does for named groups:
:func:`level_paths` (leaf-to-root rows, ARX's layout), :func:`read_arx_csv` (ARX's hierarchy
CSV), :func:`nested_paths` (nested mappings), :func:`interval_paths` (fixed-width intervals),
:func:`quantile_paths` (intervals of about equal numbers of records), :func:`balanced_paths`
(a k-ary tree over ordered values), :func:`masking_paths` (ZIP-code style suffix masking) and
:func:`bundled_paths` (the hierarchies that ship with microanon). The classmethods of
``Hierarchy`` of the same purpose (``Hierarchy.from_levels``, ``Hierarchy.from_arx_csv``,
``Hierarchy.from_nested``, ``Hierarchy.intervals``, ``Hierarchy.quantiles``,
``Hierarchy.balanced``, ``Hierarchy.masking``, ``Hierarchy.bundled``) build the tree of these
paths.

The tree's module imports this one, never the reverse: :func:`read_arx_csv`, which tries the
tree to tell a file's problems by line and column, is given the tree's constructor.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .bundled import bundled_definition
from .errors import HierarchyError
from .factorize import sorted_distinct
from .files import read_text_file
from .grouping import group_paths
from .keys import SUPPRESSED, is_missing, shown, value_key
from .number_text import in_column_type, whole_numbers
from .range_bounds import range_labels
from .reading import reading_hint

__all__ = [
    "MAX_DECLARED_LEAVES",
    "balanced_paths",
    "bundled_paths",
    "interval_paths",
    "level_paths",
    "masking_paths",
    "nested_paths",
    "quantile_paths",
    "read_arx_csv",
]

T = TypeVar("T")

#: A hierarchy's root-to-leaf label paths, one per leaf.
Paths = list[list[Any]]

#: Most whole numbers a declared interval domain ``[start, end]`` may hold as leaves.
MAX_DECLARED_LEAVES = 1_000_000


def _fmt(x: Any) -> str:
    """Format a numeric bound for an interval label (six significant digits)."""
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return str(int(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):g}" if isinstance(x, (float, np.floating)) else str(x)


def _exact(x: Any) -> str:
    """Format a data value that bounds a range label: as :func:`_fmt` where its six digits are
    the value, else the shortest text that is (a label rounded to six digits may leave out a
    value it holds: -0.0737419781 in [-1.92828, -0.073742])."""
    short = _fmt(x)
    if not isinstance(x, (float, np.floating)) or float(short) == float(x):
        return short
    return repr(float(x))


def level_paths(rows: Sequence[Sequence[Any]], name: str | None = None) -> Paths:
    """The paths of leaf-to-root rows (ARX layout): ``[value, level 1, ..., root]``.

    Every row must have the same number of levels, and a label at one level must always map to
    the same label at the next level.

    Parameters
    ----------
    rows : sequence of sequences
        One row per leaf, leaf first, root last; a repeated leaf's rows count once.
    name : str, optional
        Column name for messages.

    Returns
    -------
    list of list
        The rows reversed (root first), one per distinct leaf.

    Raises
    ------
    HierarchyError
        No rows, rows of different lengths, or a label that generalizes to two labels.
    """
    where = f" of column '{name}'" if name else ""
    rows = [list(r) for r in rows]
    if not rows:
        raise HierarchyError(f"hierarchy{where} has no rows")
    width = len(rows[0])
    parent_of: dict[tuple[int, str], str] = {}
    for i, r in enumerate(rows):
        if len(r) != width:
            raise HierarchyError(
                f"hierarchy{where}: row {i + 1} has {len(r)} levels, the first row has {width}"
            )
        for j in range(width - 1):
            key, up = (j, value_key(r[j])), value_key(r[j + 1])
            seen = parent_of.setdefault(key, up)
            if seen != up:
                raise HierarchyError(
                    f"hierarchy{where} is not a tree: '{r[j]}' at level {j} "
                    f"generalizes to both '{seen}' and '{up}'"
                )
    unique_rows = list({value_key(r[0]): r for r in rows}.values())
    return [r[::-1] for r in unique_rows]


def _arx_rows(text: str, sep: str, where: str) -> tuple[list[list[str]], list[int]]:
    """The non-empty rows of ARX CSV text (cells stripped) and the lines they start on."""
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    rows: list[list[str]] = []
    lines: list[int] = []
    start = 1
    try:
        for row in reader:
            cells = [c.strip() for c in row]
            if any(cells):
                rows.append(cells)
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error:
        raise HierarchyError(f"{where}, line {start}: not valid CSV") from None
    return rows, lines


def _places(rows: list[list[str]], lines: list[int]) -> list[list[str]]:
    """``rows`` with every value replaced by where it first appears (``line 3 column 2``): the
    same tree, whose problems can be told without the values."""
    first: dict[str, str] = {}
    return [
        [first.setdefault(value_key(c), f"line {line} column {j + 1}") for j, c in enumerate(r)]
        for r, line in zip(rows, lines, strict=True)
    ]


def _tree_problem(rows: list[list[str]], name: str | None, build: Callable[[Paths], object]) -> str:
    """What :func:`level_paths` and ``build`` find wrong with ``rows``."""
    try:
        build(level_paths(rows, name=name))
    except HierarchyError as exc:
        return str(exc)
    return "its rows do not form a tree"


def read_arx_csv(
    source: str | os.PathLike[str] | io.TextIOBase,
    build: Callable[[Paths], T],
    sep: str = ";",
    name: str | None = None,
) -> T:
    """Read ARX's hierarchy CSV: no header, one row per leaf, leaf first, root last.

    Parameters
    ----------
    source : path or text stream
        A path is read only if it is a regular file of at most
        :data:`~microanon.core.files.MAX_FILE_BYTES` (never ``/dev/zero``, a FIFO or a
        directory), and its errors name the file and the line, never the file's content.
    build : callable
        Builds the tree of the rows' paths (:func:`level_paths`), raising
        :class:`~microanon.core.errors.HierarchyError` when they do not form one: the tree's
        constructor.
    sep : str
        Field separator (ARX uses ``;``).
    name : str, optional
        Column name for messages.

    Returns
    -------
    object
        What ``build`` returns.

    Raises
    ------
    HierarchyError
        Not valid CSV, rows of different lengths, or rows that do not form a tree; for a file,
        naming values by the line and column where they first appear.
    """
    if not isinstance(source, (str, os.PathLike)):
        rows, _ = _arx_rows(source.read(), sep, "hierarchy")
        return build(level_paths(rows, name=name))
    where = f"hierarchy file {source}"
    text = read_text_file(source, "hierarchy file", HierarchyError)
    rows, lines = _arx_rows(text, sep, where)
    if rows and len(rows[0]) < 2:
        raise HierarchyError(
            f"{where}, line {lines[0]}: one level; a hierarchy file holds a line per leaf, the "
            f"leaf first and the root last, fields separated by {sep!r}"
        )
    for r, line in zip(rows, lines, strict=True):
        if len(r) != len(rows[0]):
            raise HierarchyError(
                f"{where}, line {line}: {len(r)} levels, line {lines[0]} has {len(rows[0])}"
            )
    try:
        return build(level_paths(rows, name=name))
    except HierarchyError:
        problem = _tree_problem(_places(rows, lines), name, build)
    raise HierarchyError(
        f"{where}: {problem} (values named by the line and column where they first appear)"
    )


def nested_paths(tree: Mapping[Any, Any]) -> Paths:
    """The paths of nested dicts: ``{"*": {"Europe": ["France", "Spain"], "Asia": {...}}}``.

    Parameters
    ----------
    tree : mapping
        A node's value is a mapping of children, a list of leaf labels, or ``None`` for a leaf.
        With more than one top-level key a root ``"*"`` is added above them.

    Returns
    -------
    list of list
        One root-to-leaf path per leaf, in the mapping's order.

    Raises
    ------
    HierarchyError
        ``tree`` is not a non-empty mapping.
    """
    if not isinstance(tree, Mapping) or not tree:
        raise HierarchyError("a nested hierarchy must be a non-empty mapping")
    if len(tree) > 1:
        tree = {SUPPRESSED: dict(tree)}
    paths: Paths = []

    def walk(label: Any, sub: Any, prefix: list[Any]) -> None:
        here = prefix + [label]
        if sub is None or (isinstance(sub, (list, tuple)) and not sub):
            paths.append(here)
        elif isinstance(sub, Mapping):
            for k, v in sub.items():
                walk(k, v, here)
        elif isinstance(sub, (list, tuple)):
            for leaf in sub:
                if isinstance(leaf, Mapping):
                    for k, v in leaf.items():
                        walk(k, v, here)
                else:
                    paths.append(here + [leaf])
        else:
            paths.append(here + [sub])

    for k, v in tree.items():
        walk(k, v, [])
    return paths


def _numeric_domain(values: Iterable[Any], what: str, name: str | None) -> np.ndarray:
    """The non-missing ``values`` as floats (the domain of a ``what`` hierarchy)."""
    arr = pd.Series(list(values) if not isinstance(values, (pd.Series, np.ndarray)) else values)
    arr = arr.dropna()
    num = pd.to_numeric(arr, errors="coerce")
    if num.isna().any():
        bad = arr[num.isna()].iloc[0]
        raise HierarchyError(
            f"{what} hierarchy{' for ' + repr(name) if name else ''} needs numeric values, "
            f"got {shown(bad)}{reading_hint(bad)}"
        )
    if len(num) == 0:
        raise HierarchyError(f"{what} hierarchy needs at least one value")
    return num.to_numpy(dtype=float)


def _declared_numbers(
    values: Iterable[Any], start: float | None, end: float, where: str, name: str | None
) -> np.ndarray:
    """The leaves of intervals over a declared domain: the whole numbers in ``[start, end]`` and
    the values (each checked to lie in it)."""
    if start is None:
        raise HierarchyError(f"{where}: intervals with an 'end' need a 'start' too")
    lo, hi = float(start), float(end)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
        raise HierarchyError(f"{where}: the intervals' end {_fmt(hi)} is below start {_fmt(lo)}")
    first, last = math.ceil(lo), math.floor(hi)
    if last - first + 1 > MAX_DECLARED_LEAVES:
        raise HierarchyError(
            f"{where}: [{_fmt(lo)}, {_fmt(hi)}] holds more than {MAX_DECLARED_LEAVES:,} whole "
            "numbers; give a narrower domain or let the data give the leaves (no 'end')"
        )
    data = pd.Series(list(values) if not isinstance(values, (pd.Series, np.ndarray)) else values)
    data = data.dropna()
    dom = np.arange(first, last + 1, dtype=float)
    if len(data):
        seen = sorted_distinct(_numeric_domain(data, "interval", name))
        outside = seen[(seen < lo) | (seen > hi)]
        if len(outside):
            raise HierarchyError(
                f"{where}: value {_fmt(outside[0])} is outside the intervals' domain "
                f"[{_fmt(lo)}, {_fmt(hi)}]"
            )
        dom = np.union1d(dom, seen)
    if len(dom) == 0:
        raise HierarchyError(f"{where}: [{_fmt(lo)}, {_fmt(hi)}] holds no whole number")
    return dom


def _given(value: Any) -> str:
    """How a message shows a builder's parameter as given: ``[5, 'a']``, ``'five'``, ``0``."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    return shown(value)


def builder_numbers(given: Any, what: str, where: str, *, whole: bool = False) -> list[float]:
    """A builder's parameter as a list of numbers (one number or a list of them; whole numbers
    with ``whole``), or :class:`HierarchyError` naming ``where`` (the column) and ``what``.

    A text (``"five"``), a truth value or anything else that is not a number is refused here,
    where Python would take a text for its characters or say ``could not convert string to
    float``.
    """
    several = isinstance(given, (list, tuple))
    items = list(given) if several else [given]
    shown_given = _given(given)
    numbers_only = all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        for v in items
    )
    if not items or not numbers_only or any(not math.isfinite(float(v)) for v in items):
        kind = ("whole numbers" if whole else "numbers") if several else "a number"
        kind = "a whole number" if whole and not several else kind
        raise HierarchyError(f"{where}: {what} must be {kind}, got {shown_given}")
    if whole and any(float(v) != int(v) for v in items):
        kind = "whole numbers" if several else "a whole number"
        raise HierarchyError(f"{where}: {what} must be {kind}, got {shown_given}")
    return [int(v) if whole else float(v) for v in items]


def interval_paths(
    values: Iterable[float],
    widths: Sequence[float],
    start: float | None = None,
    name: str | None = None,
    end: float | None = None,
) -> Paths:
    """Fixed-width intervals ``[lo, lo + w)`` at each width, then the root ``*``.

    Parameters
    ----------
    values : iterable of numbers
        The domain (distinct values are taken).
    widths : sequence of positive numbers
        One width per level, finest first; each must be a multiple of the previous one so that
        intervals nest.
    start : float, optional
        Left end of the first interval at every level (default: the minimum rounded down to a
        multiple of the coarsest width).
    name : str, optional
        Column name for messages.
    end : float, optional
        With ``start``, the declared domain ``[start, end]``: every whole number in it is a
        leaf as well as ``values`` (so a later table's value that ``values`` lack is covered),
        and a value outside it is an error.

    Returns
    -------
    list of list
        ``["*", coarsest interval, ..., finest interval, value]`` per distinct value, in
        increasing order.

    Raises
    ------
    HierarchyError
        Widths that are not positive or do not nest, ``end`` without ``start`` or below it,
        a domain of more than :data:`MAX_DECLARED_LEAVES` whole numbers, or a value outside
        ``[start, end]`` (naming the column and the value).
    """
    where = f"column '{name}'" if name else "intervals"
    widths = builder_numbers(widths, "interval widths", where)
    if any(w <= 0 for w in widths):
        raise HierarchyError(f"{where}: interval widths must be positive numbers")
    for a, b in zip(widths, widths[1:], strict=False):
        ratio = b / a
        if b <= a or abs(ratio - round(ratio)) > 1e-9:
            raise HierarchyError(
                f"{where}: interval width {b:g} is not a multiple of {a:g}; intervals would "
                "not nest"
            )
    if not isinstance(values, (pd.Series, np.ndarray)):
        values = list(values)
    whole = whole_numbers(values)
    if end is None:
        dom = sorted_distinct(_numeric_domain(values, "interval", name))
    else:
        dom = _declared_numbers(values, start, end, where, name)
    if start is None:
        start = math.floor(dom.min() / widths[-1]) * widths[-1]
    paths = []
    for v in dom:
        p: list[Any] = [SUPPRESSED]
        for w in reversed(widths):
            lo = start + math.floor((v - start) / w) * w
            p.append(f"[{_fmt(lo)}, {_fmt(lo + w)})")
        p.append(in_column_type(v, whole))  # (52.0 published 52.0 at level 0)
        paths.append(p)
    return paths


def bundled_paths(key: str, values: Iterable[Any] | None = None, name: str | None = None) -> Paths:
    """The paths of a hierarchy that ships with microanon (``us-states``, ``countries``, ...).

    Parameters
    ----------
    key : str
        Its name; :func:`microanon.core.bundled.list_hierarchies` lists them with their
        sources (``us-states``, ``us-state-names``, ``countries``, ``countries-alpha3``,
        ``country-names``, ``isco-08``, ``isced-2011``, ``age-bands``).
    values : iterable, optional
        Values that must be leaves (a column's data); one that is not is an error naming
        the column and the value.
    name : str, optional
        Column name for messages.

    Returns
    -------
    list of list
        The whole classification: leaves ``values`` lack are leaves too.

    Raises
    ------
    HierarchyError
        An unknown name, or one of ``values`` that is not a leaf (naming the column, the
        value and the hierarchy).

    Examples
    --------
    >>> from microanon.core.hierarchy import Hierarchy
    >>> h = Hierarchy.bundled("us-states")
    >>> h.generalize(["CA", "NY"], 1).tolist(), h.generalize(["CA", "NY"], 2).tolist()
    (['Pacific', 'Middle Atlantic'], ['West', 'Northeast'])
    """
    d = bundled_definition(key, name)
    if d.levels is None:
        assert d.widths is not None and d.domain is not None
        seen = [] if values is None else values
        return interval_paths(seen, d.widths, start=d.domain[0], name=name, end=d.domain[1])
    paths = group_paths(d.levels, name=name)
    if values is not None:
        leaves = {value_key(p[-1]) for p in paths}
        for v in values:
            if not is_missing(v) and value_key(v) not in leaves:
                col = f"column '{name}': " if name else ""
                raise HierarchyError(
                    f"{col}value {shown(v)} is not in the bundled hierarchy '{key}' ({d.what})"
                )
    return paths


def quantile_paths(
    values: Iterable[float],
    bins: Sequence[int],
    name: str | None = None,
    counts: Iterable[int] | None = None,
) -> Paths:
    """Intervals holding about equal numbers of records, nested across levels.

    Parameters
    ----------
    values : iterable of numbers
        Observed values with their multiplicity (quantiles are taken over records).
    bins : sequence of int
        Number of intervals per level, finest first, non-increasing. Coarser cut points are
        chosen among the finer ones, so the levels nest. Labels are half-open ranges
        ``[from, to)`` whose bounds lie between the data's values, not on them
        (:mod:`.range_bounds`: the roundest number between two neighbouring values, and
        round outer ends). A level whose intervals group no two
        intervals (or values) of the level below, or that is one interval, is left out: where
        most records hold one value the cuts of several levels fall on it, and such a level
        would publish the level below again, or everything as one range.
    name : str, optional
        Column name for messages.
    counts : iterable of int, optional
        Records holding each of ``values`` (then ``values`` need not repeat): a frequency
        table gives the same hierarchy as the records it counts.

    Returns
    -------
    list of list
        ``["*", coarsest interval, ..., finest interval, value]`` per distinct value, in
        increasing order.

    Raises
    ------
    HierarchyError
        Values that are not numbers, counts that do not give a positive number of records
        per value, or bins that are not positive and non-increasing.

    Notes
    -----
    The cut points of ``b`` intervals are the "higher" quantiles at ``j/b``: with the ``n``
    records sorted, the value at position ``ceil(j (n - 1) / b)`` (0-based), computed in
    integers.
    """
    if not isinstance(values, (pd.Series, np.ndarray)):
        values = list(values)
    whole = whole_numbers(values)
    if counts is None:
        data = _numeric_domain(values, "quantile", name)
        dom, tally = np.unique(data, return_counts=True)
    else:
        observed = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
        weight = np.asarray(list(counts), dtype=np.int64)
        if len(weight) != len(observed) or (len(weight) and int(weight.min()) < 1):
            raise HierarchyError(
                "quantiles: counts must give a positive number of records for each value"
            )
        known = observed.notna().to_numpy()
        data = _numeric_domain(observed[known], "quantile", name)
        dom, where = np.unique(data, return_inverse=True)
        # float64 sums are exact below 2**53 records
        summed = np.bincount(where, weights=weight[known].astype(np.float64))
        tally = np.rint(summed).astype(np.int64)
    where = f"column '{name}'" if name else "quantiles"
    bins = [int(b) for b in builder_numbers(bins, "quantile bins", where, whole=True)]
    if any(b < 1 for b in bins) or any(b2 > b1 for b1, b2 in zip(bins, bins[1:], strict=False)):
        raise HierarchyError(
            f"{where}: quantile bins must be positive and non-increasing (finest first), got "
            f"{_given(bins)}"
        )
    ends = np.cumsum(tally)  # records up to and including each domain value
    n = int(ends[-1])

    def cuts(n_bins: int, allowed: np.ndarray | None) -> np.ndarray:
        j = np.arange(1, n_bins, dtype=np.int64)
        position = -((-j * (n - 1)) // n_bins)  # ceil(j (n - 1) / b)
        c = np.unique(dom[np.searchsorted(ends, position, side="right")])
        if allowed is not None:
            if len(allowed) == 0:
                return allowed
            pos = np.abs(allowed[None, :] - c[:, None]).argmin(axis=1)
            c = np.unique(allowed[pos])
        return c[c > dom[0]]

    level_cuts = [cuts(bins[0], None)]
    for b in bins[1:]:
        level_cuts.append(cuts(b, level_cuts[-1]))
    # A level that groups no two parts of the level below (the leaves first) is that level
    # again, and one of a single interval is *: neither is a level (a value most records hold
    # makes the cuts of several levels fall on it).
    kept, parts = [], len(dom)
    for c in level_cuts:
        if 1 < len(c) + 1 < parts:
            kept.append(c)
            parts = len(c) + 1
    level_cuts = kept
    codes_per_level = [np.searchsorted(c, dom, side="right") for c in level_cuts]
    # every cut is a domain value above the smallest: each range holds a value
    starts = [np.searchsorted(dom, c) for c in level_cuts]
    label_per_level = range_labels(dom.astype(float), starts) if starts else []
    paths = []
    for i, v in enumerate(dom):
        p: list[Any] = [SUPPRESSED]
        for lvl in range(len(level_cuts) - 1, -1, -1):
            p.append(label_per_level[lvl][codes_per_level[lvl][i]])
        p.append(in_column_type(v, whole))  # (52.0 published 52.0 at level 0)
        paths.append(p)
    return paths


def balanced_paths(
    values: Iterable[Hashable],
    fanout: int = 2,
    order: Sequence[Hashable] | None = None,
    name: str | None = None,
) -> Paths:
    """Balanced ``fanout``-ary tree over sorted distinct values (ordered grouping).

    Consecutive runs of ``fanout`` nodes are merged level by level until one root remains.

    Parameters
    ----------
    values : iterable
        The values; distinct ones are taken.
    fanout : int
        Children per inner node (at least 2; the last node of a level may have fewer).
    order : sequence, optional
        The order of the values (every value must be in it). Without it numeric values are
        sorted numerically, others by their text.
    name : str, optional
        Column name for messages.

    Returns
    -------
    list of list
        One path per distinct value in order; the root is ``*``. Inner labels of numbers
        (distinct, no ``order``) are half-open ranges whose bounds lie between the values, as
        :func:`quantile_paths` writes them (``[1, 3)`` over 1 and 2, then ``[3, 5)``); other
        inner labels are closed ranges ``[first, last]`` of the values in ``order``.

    Raises
    ------
    HierarchyError
        A fanout below 2, no value, or a value missing from ``order``.
    """
    where = f"column '{name}'" if name else "balanced"
    given = fanout
    if isinstance(given, (list, tuple)):
        raise HierarchyError(
            f"{where}: balanced fanout must be one whole number, got {shown(given)}"
        )
    (fanout,) = (int(f) for f in builder_numbers(given, "balanced fanout", where, whole=True))
    if fanout < 2:
        raise HierarchyError(f"{where}: balanced fanout must be at least 2, got {shown(given)}")
    distinct = list(dict.fromkeys(values))
    numbers: np.ndarray | None = None
    if order is not None:
        keys = [value_key(v) for v in order]
        missing = [v for v in distinct if value_key(v) not in set(keys)]
        if missing:
            raise HierarchyError(f"balanced: values {missing[:5]} are not in the given order")
        present = {value_key(v) for v in distinct}
        dom = [v for v in order if value_key(v) in present]
    else:
        try:
            num = pd.to_numeric(pd.Series(distinct), errors="raise").to_numpy()
            rank = np.argsort(num, kind="stable")
            dom = [distinct[i] for i in rank]
            numbers = num[rank].astype(float)
        except (ValueError, TypeError):
            dom = sorted(distinct, key=str)
    if not dom:
        raise HierarchyError("balanced: needs at least one value")
    # groups: list of (first, last, [leaf indices]) per level bottom-up
    level = [(v, v, [i]) for i, v in enumerate(dom)]
    uppers: list[list[tuple[Any, Any, list[int]]]] = []
    while len(level) > 1:
        nxt = []
        for s in range(0, len(level), fanout):
            chunk = level[s : s + fanout]
            nxt.append((chunk[0][0], chunk[-1][1], [i for c in chunk for i in c[2]]))
        if len(nxt) == 1:
            break
        uppers.append(nxt)
        level = nxt
    if numbers is not None and uppers and len(np.unique(numbers)) == len(numbers):
        # numbers: half-open ranges whose bounds lie between the values (see quantile_paths)
        starts = [np.array([members[0] for _, _, members in lvl[1:]]) for lvl in uppers]
        labels = range_labels(numbers, starts)
    else:
        labels = [[f"[{_exact(a)}, {_exact(b)}]" for a, b, _ in lvl] for lvl in uppers]
    leaf_paths: Paths = [[SUPPRESSED] for _ in dom]
    for lvl, names in zip(reversed(uppers), reversed(labels), strict=True):
        for (_, _, members), label in zip(lvl, names, strict=True):
            for i in members:
                leaf_paths[i].append(label)
    for i, v in enumerate(dom):
        leaf_paths[i].append(v)
    return leaf_paths


def masking_paths(
    values: Iterable[Any], char: str = "*", max_masked: int | None = None, name: str | None = None
) -> Paths:
    """Mask trailing characters one at a time, as for ZIP codes: ``13053 → 1305* → 130**``.

    Parameters
    ----------
    values : iterable
        Values (converted to strings).
    char : str
        Masking character.
    max_masked : int, optional
        Largest number of masked characters before the root (default, and at most: the
        longest value's length; more would repeat the same fully masked level).
    name : str, optional
        Column name for messages.

    Returns
    -------
    list of list
        One path per distinct value (as a string), most masked label first after the root.

    Raises
    ------
    HierarchyError
        No value, or a negative ``max_masked``.
    """
    dom = list(dict.fromkeys(value_key(v) for v in values))
    if not dom:
        raise HierarchyError("masking: needs at least one value")
    longest = max(len(v) for v in dom)
    where = f"column '{name}'" if name else "masking"
    top = longest
    if max_masked is not None:
        if isinstance(max_masked, (list, tuple)):
            raise HierarchyError(
                f"{where}: max_masked must be a whole number, got {_given(max_masked)}"
            )
        (given,) = builder_numbers(max_masked, "max_masked", where, whole=True)
        if given < 0:
            raise HierarchyError(f"{where}: max_masked must be non-negative, got {int(given)}")
        top = min(int(given), longest)
    paths = []
    for v in dom:
        p: list[Any] = [SUPPRESSED]
        for m in range(top, 0, -1):
            keep = max(len(v) - m, 0)
            label = v[:keep] + char * (len(v) - keep)
            if label != SUPPRESSED:  # a one-character value fully masked is the root itself
                p.append(label)
        p.append(v)
        paths.append(p)
    return paths
