"""Global recoding: one fixed mapping applied to every record of a column.

A non-perturbative method of Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan
& Claypool 2016, Ch. 3.

Three ways to recode a column (sdcMicro's ``globalRecode`` and ``groupAndRename``):

- **hierarchy level** (``levels``): every value is replaced by its ancestor at a level of the
  column's schema hierarchy (level 0 = unchanged, the top level = the root). Any column with a
  hierarchy, numeric ones included.
- **category map** (``maps={col: {old: new, ...}}``) for categorical and ordinal columns: listed
  values are renamed (several old values may share a new one, which merges them); values not
  listed are kept. Keys must be values of the column's domain (its data, hierarchy leaves or
  ordinal order) so that a typo is an error rather than a silent no-op.
- **interval breaks** (``maps={col: {"breaks": [b0, ..., bm], "labels": [...]}}``) for numeric
  columns, as sdcMicro's ``globalRecode(breaks=...)`` (R's ``cut``): with ``right=True``
  (default) the intervals are ``(b0, b1], (b1, b2], ...``; with ``right=False`` they are
  ``[b0, b1), ...``; ``include_lowest=True`` also closes the outer end (``[b0, b1]`` or
  ``[b_{m-1}, bm]``). Default labels are the intervals written as ``"(20, 30]"`` (readable with
  :func:`microanon.core.hierarchy.parse_interval`); ``labels`` (one per interval, repeats
  allowed to merge intervals) replace them. A value outside the breaks is an error, naming the
  column and the value (R's ``cut`` would silently give NA).

Recoded columns are published as their labels (text).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import ColumnNames, Integer, Param, PerColumn
from ...core.errors import InputError
from ...core.hierarchy import Hierarchy, value_key
from ...core.keys import shown
from ...core.release import Release
from ...core.schema import Kind, Schema
from ..registry import method
from .common import (
    CATEGORICAL,
    check_flag,
    masked_release,
    masking_input,
    numeric_matrix,
    select_columns,
    with_columns,
)

__all__ = ["global_recode", "recode_hierarchy", "recode_categories", "recode_breaks"]


def recode_hierarchy(
    values: pd.Series, hierarchy: Hierarchy, level: int, column: str
) -> np.ndarray:
    """Replace values by their ancestors' labels at ``level`` of ``hierarchy`` (object array)."""
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, numbers.Integral):
        raise InputError(f"levels['{column}']: expected an integer level, got {level!r}")
    codes, uniques = pd.factorize(values)
    leaf = hierarchy.leaf_index(uniques, column=column)
    try:
        mapped = hierarchy.level_codes(int(level))[leaf]
    except InputError:
        raise InputError(
            f"levels['{column}']: level {level} is outside 0..{hierarchy.height}"
        ) from None
    labels = np.asarray(hierarchy.level_labels(int(level)), dtype=object)
    return labels[mapped][codes]


def recode_categories(
    values: pd.Series, mapping: Mapping[Any, Any], domain: Sequence[Any], column: str
) -> np.ndarray:
    """Rename (merge) categories with ``mapping``; unlisted values are kept (object array).

    Raises
    ------
    InputError
        A key that is not in ``domain`` (compared by :func:`~microanon.core.value_key`).
    """
    known = {value_key(v) for v in domain}
    by_key = {value_key(k): v for k, v in mapping.items()}
    unknown = sorted(k for k in by_key if k not in known)
    if unknown:
        raise InputError(
            f"maps['{column}']: {len(unknown)} value(s) not in the column: "
            + ", ".join(repr(u) for u in unknown[:5])
        )
    codes, uniques = pd.factorize(values)
    new = np.array([by_key.get(value_key(u), u) for u in uniques] + [None], dtype=object)
    return new[codes]


def _interval_labels(breaks: np.ndarray, right: bool, include_lowest: bool) -> list[str]:
    m = len(breaks) - 1
    out = []
    for i in range(m):
        lo, hi = value_key(breaks[i]), value_key(breaks[i + 1])
        if right:
            left = "[" if include_lowest and i == 0 else "("
            out.append(f"{left}{lo}, {hi}]")
        else:
            close = "]" if include_lowest and i == m - 1 else ")"
            out.append(f"[{lo}, {hi}{close}")
    return out


def recode_breaks(
    x: np.ndarray,
    breaks: Sequence[float],
    labels: Sequence[Any] | None = None,
    *,
    right: bool = True,
    include_lowest: bool = False,
    column: str = "x",
) -> np.ndarray:
    """Discretize numeric values into the intervals between ``breaks`` (R's ``cut`` rules).

    Parameters
    ----------
    x : 1-d float array
    breaks : sequence of float
        At least two strictly increasing finite numbers.
    labels : sequence, optional
        One label per interval (default: the interval, e.g. ``"(20, 30]"``).
    right : bool
        Intervals closed on the right (``(a, b]``) rather than on the left (``[a, b)``).
    include_lowest : bool
        Close the first interval on the left (``right=True``) or the last on the right.
    column : str
        Named in error messages.

    Returns
    -------
    numpy.ndarray
        Object array of labels.

    Raises
    ------
    InputError
        Bad breaks or labels; a value outside the intervals.
    """
    try:
        b = np.asarray(breaks, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"maps['{column}'].breaks: expected numbers, got {breaks!r}") from None
    if b.ndim != 1 or len(b) < 2 or not np.all(np.isfinite(b)) or np.any(np.diff(b) <= 0):
        raise InputError(
            f"maps['{column}'].breaks: expected at least two strictly increasing finite numbers, "
            f"got [{', '.join(shown(v) for v in np.atleast_1d(breaks))}]"
        )
    m = len(b) - 1
    names = _interval_labels(b, right, include_lowest) if labels is None else list(labels)
    if len(names) != m:
        raise InputError(
            f"maps['{column}']: {len(names)} label(s) for {m} interval(s); give one per interval"
        )
    x = np.asarray(x, dtype=np.float64)
    if right:
        idx = np.searchsorted(b, x, side="left") - 1
        if include_lowest:
            idx[x == b[0]] = 0
    else:
        idx = np.searchsorted(b, x, side="right") - 1
        if include_lowest:
            idx[x == b[-1]] = m - 1
    outside = (idx < 0) | (idx >= m)
    if outside.any():
        bad = x[outside]
        span = _interval_labels(b[[0, -1]], right, include_lowest)[0]
        raise InputError(
            f"maps['{column}']: {len(bad)} value(s) fall outside the breaks {span}, e.g. "
            f"{value_key(bad[0])}; extend the breaks"
            + ("" if include_lowest else " or set include_lowest")
        )
    return np.asarray(names, dtype=object)[idx]


def _flag(spec: Mapping[str, Any], key: str, default: bool, column: str) -> bool:
    return check_flag(spec.get(key, default), f"maps['{column}'].{key}")


def _domain(schema: Schema, frame: pd.DataFrame, column: str) -> list[Any]:
    attr = schema[column]
    dom = list(pd.unique(frame[column]))
    if isinstance(attr.hierarchy, Hierarchy):
        dom += attr.hierarchy.leaves
    if attr.order is not None:
        dom += list(attr.order)
    return dom


@method(
    "global_recode",
    step="any",
    kind="masked",
    publishes="The table with the chosen columns recoded to broader categories or intervals.",
    help="Recodes columns into broader categories or intervals you choose, the same for every "
    "record.",
    params=(
        Param(
            "columns",
            "Only with one level for all: the columns recoded (by default the categorical and "
            "ordinal quasi-identifiers with a hierarchy; a numeric one only when named).",
            (ColumnNames(),),
        ),
        Param(
            "maps",
            "Per column, the new category of each old one, or breaks and labels of intervals.",
            (PerColumn(),),
        ),
        Param(
            "levels",
            "Hierarchy level per column, or one level for all the columns.",
            (Integer(0), PerColumn(Integer(0))),
        ),
    ),
    in_memory_because="it has no out-of-core version yet (each record is recoded on its own, "
    "so it could have one)",
)
def global_recode(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    columns: Sequence[str] | None = None,
    maps: Mapping[str, Mapping[Any, Any]] | None = None,
    levels: Mapping[str, int] | int | None = None,
) -> Release:
    """Recode columns globally through hierarchy levels, category maps or interval breaks.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    columns : sequence of str, optional
        Only with an integer ``levels``: the columns recoded to that level (default: the
        categorical and ordinal quasi-identifiers that have a hierarchy).
    maps : mapping of column to mapping, optional
        Per column, a category map ``{old: new}`` (categorical, ordinal) or
        ``{"breaks": [...], "labels": [...], "right": True, "include_lowest": False}``
        (numeric); see the module docstring.
    levels : mapping of column to int, or int, optional
        Hierarchy level per column, or one level for all of ``columns``.

    Returns
    -------
    Release
        Kind ``"masked"``: the validated rows and columns, the recoded columns as labels.
        Metadata: ``parameters`` (``levels``, the columns with ``maps``), ``recode_maps``
        (internal: the maps, which name original categories), ``recoded`` (per column: ``how``
        (``level``, ``map`` or ``breaks``) and the numbers of distinct values ``before`` and
        ``after``).

    Raises
    ------
    InputError
        No recoding asked for; a column given twice or of the wrong kind; ``columns`` with a
        level mapping; a level outside the hierarchy; a map key not in the column; bad breaks or
        labels; a value outside the breaks.
    SchemaError
        A level for a column without hierarchy.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [17, 25, 38, 64], "marital": ["single", "widowed",
    ...                    "divorced", "married"]})
    >>> schema = {"age": {"role": "quasi", "kind": "numeric"}, "marital": "quasi"}
    >>> rel = global_recode(df, schema, maps={
    ...     "age": {"breaks": [0, 20, 40, 100]},
    ...     "marital": {"widowed": "widowed/divorced", "divorced": "widowed/divorced"}})
    >>> rel.data["age"].tolist()
    ['(0, 20]', '(20, 40]', '(20, 40]', '(40, 100]']
    >>> rel.data["marital"].tolist()
    ['single', 'widowed/divorced', 'widowed/divorced', 'married']
    """
    if maps is not None and not isinstance(maps, Mapping):
        raise InputError(f"maps: expected a mapping of column to map, got {type(maps).__name__}")
    if maps is None and levels is None:
        raise InputError("global_recode needs maps or levels (or both)")
    if columns is not None and not (
        isinstance(levels, numbers.Integral) and not isinstance(levels, bool)
    ):
        raise InputError(
            "columns is only used with one integer level for all of them (such as levels=2; "
            f"got levels={levels!r}): give levels per column as a mapping without columns"
        )
    schema, frame = masking_input(data, schema)
    if levels is None:
        by_level: dict[str, Any] = {}
    elif isinstance(levels, Mapping):
        by_level = dict(levels)
    elif isinstance(levels, numbers.Integral) and not isinstance(levels, bool):
        if columns is None:
            chosen = [
                q for q in schema.quasi if schema[q].kind in CATEGORICAL and schema[q].hierarchy
            ]
            if not chosen:
                raise InputError(
                    "global_recode: no categorical or ordinal quasi-identifier has a hierarchy; "
                    "name the columns with columns= or levels={column: level}"
                )
        else:
            chosen = select_columns(schema, columns, tuple(Kind), "global_recode")
        by_level = dict.fromkeys(chosen, int(levels))
    else:
        raise InputError(f"levels: expected a mapping of column to level or an int, got {levels!r}")
    by_map = dict(maps or {})
    both = sorted(set(by_level) & set(by_map))
    if both:
        raise InputError(f"column '{both[0]}' is given both a level and a map; choose one")
    if not by_level and not by_map:
        raise InputError("global_recode: maps and levels name no column")
    new: dict[str, np.ndarray] = {}
    recoded: dict[str, dict[str, Any]] = {}
    for col, level in by_level.items():
        select_columns(schema, [col], tuple(Kind), "global_recode")
        h = schema.hierarchy(col)
        new[col] = recode_hierarchy(frame[col], h, level, col)
        recoded[col] = {"how": "level", "level": int(level)}
    for col, spec in by_map.items():
        if not isinstance(spec, Mapping):
            raise InputError(f"maps['{col}']: expected a mapping, got {type(spec).__name__}")
        if "breaks" in spec:
            select_columns(schema, [col], (Kind.NUMERIC,), "global_recode (breaks)")
            extra = set(map(str, spec)) - {"breaks", "labels", "right", "include_lowest"}
            if extra:
                raise InputError(f"maps['{col}']: unknown key(s) {', '.join(sorted(extra))}")
            x = numeric_matrix(frame, [col], "global_recode")[:, 0]
            new[col] = recode_breaks(
                x,
                spec["breaks"],
                spec.get("labels"),
                right=_flag(spec, "right", True, col),
                include_lowest=_flag(spec, "include_lowest", False, col),
                column=col,
            )
            recoded[col] = {"how": "breaks"}
        else:
            select_columns(schema, [col], CATEGORICAL, "global_recode (category map)")
            dom = _domain(schema, frame, col)
            new[col] = recode_categories(frame[col], spec, dom, col)
            recoded[col] = {"how": "map"}
    published = with_columns(frame, new)
    for col, info in recoded.items():
        info["before"] = int(frame[col].nunique())
        info["after"] = int(published[col].nunique())
    # The maps name original categories (some absent from the recoded table): internal.
    parameters = {"levels": by_level or None, "maps": sorted(by_map) or None}
    return masked_release(
        "global_recode",
        published,
        schema,
        parameters,
        len(frame),
        recoded=recoded,
        recode_maps=_plain_maps(by_map) or None,
    )


def _plain_maps(maps: Mapping[str, Mapping[Any, Any]]) -> dict[str, Any]:
    """Maps as JSON-friendly metadata (category keys as their canonical text)."""
    out: dict[str, Any] = {}
    for col, spec in maps.items():
        if "breaks" in spec:
            out[col] = {
                k: (list(v) if isinstance(v, Sequence) and not isinstance(v, str) else v)
                for k, v in spec.items()
            }
        else:
            out[col] = {value_key(k): v for k, v in spec.items()}
    return out
