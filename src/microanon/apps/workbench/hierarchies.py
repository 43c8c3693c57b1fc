"""Hierarchy specifications of the workbench: built, checked and previewed on a column.

A specification (``HierarchySpec`` in the JSON API) is a mapping with a ``type``:

``auto``
    what ``microanon init`` proposes for the column
    (:func:`microanon.apps.init.hierarchies.plan_hierarchy`);
``bundled``
    a bundled hierarchy by name (``name``): an Adult column's
    (:func:`microanon.datasets.adult_hierarchies`), or a common classification's
    (:func:`microanon.datasets.list_hierarchies`: ``us-states``, ``countries``, ...; inline);
``intervals``, ``quantiles``, ``balanced``, ``masking``
    the schema's builders with their parameters (``widths`` and ``start``; ``bins``; ``fanout``;
    ``max_masked`` and ``char``), built from the data when ``microanon anonymize`` runs;
    ``intervals`` also takes ``width`` and ``levels`` (widths ``width``, twice it, ...) and
    ``masking`` ``levels`` (the digits masked at most);
``groups``
    named groups of the column's values, level by level, finest first (``levels``: a list of
    mappings of group name to members of the level below; the schema's ``groups`` builder,
    written inline into the config);
``dates``
    month, year and decade of a date column, as ``init`` builds them;
``arx_csv``
    an ARX hierarchy file uploaded before (``upload``: its id).

A built specification (:class:`Built`) is either an inline builder, written as it is into the
config, or a :class:`~microanon.core.hierarchy.Hierarchy`, written as an ARX CSV file beside it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ...core.bundled import BUNDLED_HIERARCHIES
from ...core.errors import MicroanonError
from ...core.hierarchy import Hierarchy, value_key
from ...core.schema import MISSING_LABEL, Schema, with_missing_leaf
from ...datasets import adult_hierarchies
from ..init.hierarchies import date_hierarchy, plan_hierarchy
from ..init.profile import ColumnProfile
from .errors import RequestError

__all__ = [
    "PREVIEW_ROWS",
    "SPEC_KEYS",
    "Built",
    "build",
    "missing_values",
    "preview",
    "read_upload",
]

#: Rows of a preview (leaves with their generalizations).
PREVIEW_ROWS = 50

#: The keys each specification type takes besides ``type``.
SPEC_KEYS: dict[str, tuple[str, ...]] = {
    "auto": (),
    "bundled": ("name",),
    "intervals": ("widths", "start", "width", "levels"),
    "quantiles": ("bins",),
    "balanced": ("fanout",),
    "masking": ("max_masked", "char", "levels"),
    "groups": ("levels",),
    "dates": (),
    "arx_csv": ("upload",),
}


@dataclass(frozen=True)
class Built:
    """A specification built for one column.

    Attributes
    ----------
    column : str
    how : str
        What the hierarchy is, in words (the config's comment).
    builder : dict or None
        An inline builder of the schema (``{builder: intervals, widths: [...]}``).
    hierarchy : Hierarchy or None
        A hierarchy to write as an ARX CSV file (when ``builder`` is None).
    """

    column: str
    how: str
    builder: dict[str, Any] | None = None
    hierarchy: Hierarchy | None = field(default=None, compare=False)

    def resolve(self, frame: pd.DataFrame, kind: str) -> Hierarchy:
        """The hierarchy on ``frame``'s values, an inline builder built as ``anonymize`` does."""
        if self.hierarchy is not None:
            return self.hierarchy
        entry = {"role": "quasi", "kind": kind, "hierarchy": self.builder}
        schema = Schema.from_dict({self.column: entry}).resolve(frame)
        return schema.hierarchy(self.column)


def _param(spec: Mapping[str, Any], key: str, column: str) -> Any:
    if key not in spec:
        raise RequestError(
            f"hierarchy of {column!r}: type {spec['type']} needs {key!r}", field=column
        )
    return spec[key]


def _builder(spec: Mapping[str, Any], column: str) -> dict[str, Any]:
    """The schema's inline builder of an ``intervals``, ``quantiles``, ``balanced`` or
    ``masking`` specification."""
    kind = spec["type"]
    if kind == "intervals":
        if "widths" in spec:  # (checked, as every parameter here, by the builder itself)
            out: dict[str, Any] = {"builder": "intervals", "widths": spec["widths"]}
        else:
            width, levels = _param(spec, "width", column), int(spec.get("levels", 3))
            out = {"builder": "intervals", "widths": [width * 2**i for i in range(levels)]}
        if spec.get("start") is not None:
            out["start"] = spec["start"]
        return out
    if kind == "quantiles":
        return {"builder": "quantiles", "bins": _param(spec, "bins", column)}
    if kind == "balanced":
        return {"builder": "balanced", "fanout": spec.get("fanout", 2)}
    out = {"builder": "masking"}
    masked = spec.get("max_masked", spec.get("levels"))
    if masked is not None:
        out["max_masked"] = masked
    if spec.get("char") is not None:
        out["char"] = str(spec["char"])
    return out


def read_upload(data: bytes, name: str = "upload") -> Hierarchy:
    """An ARX hierarchy file's bytes (UTF-8, ``;``-separated, leaf first, root last).

    Raises
    ------
    RequestError
        Not UTF-8 text, or not a hierarchy (the reader's message).
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RequestError(
            f"hierarchy file {name}: not UTF-8 text (byte {exc.start}); save it as UTF-8",
            field="file",
        ) from None
    try:
        return Hierarchy.from_arx_csv(io.StringIO(text), name=name)
    except MicroanonError as exc:
        raise RequestError(f"hierarchy file {name}: {exc}", field="file") from None


def build(
    spec: Any,
    values: pd.Series,
    profile: ColumnProfile,
    missing_leaf: bool,
    uploads: Mapping[str, Path],
) -> Built:
    """Build a specification for one column.

    Parameters
    ----------
    spec : mapping
        The ``HierarchySpec``.
    values : Series
        The column.
    profile : ColumnProfile
    missing_leaf : bool
        Whether the column's missing values are kept as ``?`` (then a leaf of the hierarchy,
        which is written to a file).
    uploads : mapping of str to path
        The uploaded ARX files by id.

    Raises
    ------
    RequestError
        An unknown type or key, a missing parameter, an unknown bundled hierarchy or upload, a
        builder the column's values do not fit (naming the column).
    """
    column = profile.name
    if not isinstance(spec, Mapping) or spec.get("type") not in SPEC_KEYS:
        raise RequestError(
            f"hierarchy of {column!r}: give a mapping with a type, one of {', '.join(SPEC_KEYS)}",
            field=column,
        )
    kind = spec["type"]
    unknown = sorted(set(spec) - {"type", *SPEC_KEYS[kind]})
    if unknown:
        raise RequestError(
            f"hierarchy of {column!r}: type {kind} does not take {', '.join(unknown)}",
            field=column,
        )
    if kind == "groups":
        return _groups(spec, values, column)
    try:
        built = _build(spec, values, profile, missing_leaf, uploads)
        if built.builder is not None and missing_leaf:
            # it stays inline, as init writes it: the schema adds the leaf ? when it resolves
            # the builder on the data, so the command line builds the same tree
            built = replace(built, how=built.how + "; missing values are the leaf ?")
    except RequestError:
        raise
    except (MicroanonError, ValueError, TypeError) as exc:
        raise RequestError(f"hierarchy of {column!r}: {exc}", field=column) from None
    return built


def _groups(spec: Mapping[str, Any], values: pd.Series, column: str) -> Built:
    """A ``groups`` specification checked on the column's values: the schema's inline builder.

    It stays inline even when missing values are the value ``?``: the schema adds that leaf
    when it resolves the builder on the data.
    """
    levels = _param(spec, "levels", column)
    if isinstance(levels, Mapping):
        levels = [levels]
    try:
        tree = Hierarchy.from_groups(levels, values=values.dropna().unique(), name=column)
    except (MicroanonError, ValueError, TypeError) as exc:
        raise RequestError(str(exc), field=column) from None
    if tree.height < 1:
        raise RequestError(f"column {column!r}: the groups give no level", field=column)
    builder = {"builder": "groups", "levels": [dict(level) for level in levels]}
    return Built(column, f"groups named in the workbench, {len(levels)} level(s), then *", builder)


def _build(
    spec: Mapping[str, Any],
    values: pd.Series,
    profile: ColumnProfile,
    missing_leaf: bool,
    uploads: Mapping[str, Path],
) -> Built:
    column, kind = profile.name, spec["type"]
    if kind == "auto":
        plan = plan_hierarchy(values, profile, missing_leaf=missing_leaf)
        return Built(column, plan.how, plan.spec, plan.hierarchy)
    if kind in ("intervals", "quantiles", "balanced", "masking"):
        builder = _builder(spec, column)
        return Built(column, f"{kind} built from the data when anonymize runs", builder)
    if kind == "bundled":
        bundled = adult_hierarchies()
        name = str(_param(spec, "name", column))
        if name in BUNDLED_HIERARCHIES:
            builder = {"builder": "bundled", "name": name}
            return Built(column, f"the bundled hierarchy {name}", builder)
        if name not in bundled:
            raise RequestError(
                f"hierarchy of {column!r}: no bundled hierarchy {name!r}; choose one of "
                + ", ".join([*bundled, *BUNDLED_HIERARCHIES]),
                field=column,
            )
        tree = Hierarchy.from_paths(bundled[name].paths(), name=column)
        how = f"the bundled Adult hierarchy {name} (ARX's)"
    elif kind == "dates":
        if profile.type != "date":
            raise RequestError(
                f"hierarchy of {column!r}: dates needs a date column; {column} is {profile.type}",
                field=column,
            )
        paths, how = date_hierarchy(values, profile)
        tree = Hierarchy.from_paths(paths, name=column)
    else:
        upload = str(_param(spec, "upload", column))
        if upload not in uploads:
            raise RequestError(
                f"hierarchy of {column!r}: no uploaded hierarchy {upload!r}; upload it first",
                field=column,
            )
        tree = read_upload(uploads[upload].read_bytes(), name=column)
        how = "an ARX hierarchy file (uploaded)"
    if missing_leaf and kind != "arx_csv":
        tree = with_missing_leaf(tree)
    return Built(column, how, hierarchy=tree)


def _keys(values: pd.Series, missing_leaf: bool) -> list[Any]:
    """The distinct values a column's hierarchy must cover, as ``anonymize`` checks them
    (``Series.unique``: a date is a ``Timestamp``, never numpy's ``datetime64``)."""
    present = list(values.dropna().unique())
    if missing_leaf and values.isna().any():
        present.append(MISSING_LABEL)
    return present


def missing_values(tree: Hierarchy, values: pd.Series, missing_leaf: bool) -> list[str]:
    """The column's values that are not leaves of ``tree`` (:meth:`Hierarchy.absent`, the
    lookup of ``anonymize``), sorted, each as its key (:func:`value_key`: a date as
    ``2012-01-01``, the text of a date hierarchy's leaf)."""
    return sorted({value_key(v) for v in tree.absent(_keys(values, missing_leaf))})


def preview(built: Built, frame: pd.DataFrame, kind: str, missing_leaf: bool) -> dict[str, Any]:
    """What a built specification does to the column: the first leaves and their labels.

    Returns
    -------
    dict
        ``levels`` (generalization levels above the leaves), ``rows`` (at most
        :data:`PREVIEW_ROWS` leaves with their label at each level, root last), ``missing`` (the
        column's values that are not leaves) and ``count_per_level`` (distinct labels per level,
        the leaves first).
    """
    tree = built.resolve(frame, kind)
    table = tree.to_frame()
    rows = [[value_key(v) for v in row] for row in table.head(PREVIEW_ROWS).itertuples(False)]
    return {
        "levels": int(table.shape[1] - 1),
        "rows": rows,
        "missing": missing_values(tree, frame[built.column], missing_leaf),
        "count_per_level": [int(table[c].nunique()) for c in table.columns],
    }
