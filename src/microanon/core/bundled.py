"""Hierarchies of common classifications that ship with microanon.

US states by census division and region, countries by UN M49 region, ISCO-08 occupation groups,
ISCED 2011 education levels and age bands. The data are small JSON files in
``hierarchy_data/`` next to this module; its ``README.md`` states the source of each.
:func:`list_hierarchies` lists them, :func:`bundled_definition` gives what one is built from
and :meth:`Hierarchy.bundled <microanon.core.hierarchy.Hierarchy.bundled>` builds it (as does,
in a schema, ``hierarchy: {builder: bundled, name: us-states}``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from .errors import HierarchyError
from .keys import shown

__all__ = [
    "BUNDLED_HIERARCHIES",
    "BundledDefinition",
    "bundled_definition",
    "list_hierarchies",
]


class _Bundled(NamedTuple):
    """Where a bundled hierarchy comes from: a JSON file and the column of its rows that holds
    the leaves (None: the file's first level lists them), or ``file`` None for one built in
    code."""

    file: str | None
    leaves: str | None
    what: str


_AGES = (0, 120)
_AGE_WIDTHS = (5, 10, 20)

#: Name -> (file, leaf column, what the leaves are).
BUNDLED_HIERARCHIES: dict[str, _Bundled] = {
    "us-states": _Bundled("us_states.json", "postal_code", "US state postal codes and DC"),
    "us-state-names": _Bundled("us_states.json", "name", "US state names and DC"),
    "countries": _Bundled("countries.json", "alpha2", "ISO 3166-1 alpha-2 country codes"),
    "countries-alpha3": _Bundled("countries.json", "alpha3", "ISO 3166-1 alpha-3 country codes"),
    "country-names": _Bundled("countries.json", "name", "English short country names"),
    "isco-08": _Bundled("isco08.json", None, "ISCO-08 sub-major group codes"),
    "isced-2011": _Bundled("isced2011.json", None, "ISCED 2011 levels 0-8"),
    "age-bands": _Bundled(None, None, "whole ages 0-120"),
}

_AGE_SOURCE = "Fixed-width bands of whole years, starting at 0 (no external source)."


@cache
def _document(file: str) -> dict[str, Any]:
    """The parsed JSON file (read once per process)."""
    text = resources.files(__package__).joinpath("hierarchy_data", file).read_text("utf-8")
    return json.loads(text)


def _levels(spec: _Bundled) -> list[dict[Any, list[Any]]]:
    """The grouping of a file-based hierarchy, finest level first."""
    assert spec.file is not None
    doc = _document(spec.file)
    if "rows" not in doc:
        return list(doc["levels"])
    at = doc["columns"].index(spec.leaves)
    first: dict[Any, list[Any]] = {}
    for row in doc["rows"]:
        first.setdefault(row[-1], []).append(row[at])
    return [first, *doc["levels"]]


def _check_name(key: Any, name: str | None) -> _Bundled:
    spec = BUNDLED_HIERARCHIES.get(key) if isinstance(key, str) else None
    if spec is None:
        col = f"column '{name}': " if name else ""
        raise HierarchyError(
            f"{col}unknown bundled hierarchy {shown(key)} "
            f"(use one of {', '.join(BUNDLED_HIERARCHIES)})"
        )
    return spec


class BundledDefinition(NamedTuple):
    """What a bundled hierarchy is built from: named groups (``levels``, finest first, for
    :meth:`Hierarchy.from_groups <microanon.core.hierarchy.Hierarchy.from_groups>`) or
    intervals (``widths`` over the declared domain ``domain``, for
    :meth:`Hierarchy.intervals <microanon.core.hierarchy.Hierarchy.intervals>`)."""

    levels: list[dict[Any, list[Any]]] | None
    widths: tuple[int, ...] | None
    domain: tuple[int, int] | None
    what: str


def bundled_definition(key: str, name: str | None = None) -> BundledDefinition:
    """The definition of a bundled hierarchy (see :meth:`Hierarchy.bundled
    <microanon.core.hierarchy.Hierarchy.bundled>`, which builds it).

    Parameters
    ----------
    key : str
        One of :data:`BUNDLED_HIERARCHIES`.
    name : str, optional
        Column name for messages.

    Raises
    ------
    HierarchyError
        An unknown name (naming the column and listing the names).
    """
    spec = _check_name(key, name)
    if spec.file is None:
        return BundledDefinition(None, _AGE_WIDTHS, _AGES, spec.what)
    return BundledDefinition(_levels(spec), None, None, spec.what)


def list_hierarchies() -> list[dict[str, Any]]:
    """The bundled hierarchies: name, title, leaves, levels, what the leaves are, sources.

    Returns
    -------
    list of dict
        One per hierarchy, in :data:`BUNDLED_HIERARCHIES` order: ``name``, ``title``,
        ``leaves`` (their number), ``levels`` (the number of labels per level from the leaves
        up, root included), ``values`` (what the leaves are), ``origin`` (the source in a few
        words) and ``source`` (the source in full).
    """
    out = []
    for key, spec in BUNDLED_HIERARCHIES.items():
        d = bundled_definition(key)
        if d.levels is None:
            lo, hi = _AGES
            sizes = [hi - lo + 1] + [len(range(lo, hi + 1, w)) for w in _AGE_WIDTHS] + [1]
            title = "Ages 0-120 -> 5-, 10- and 20-year bands"
            origin, source = "fixed-width bands", _AGE_SOURCE
        else:
            sizes = [sum(len(m) for m in d.levels[0].values())]
            sizes += [len(level) for level in d.levels] + [1]
            doc = _document(spec.file or "")
            title, origin, source = doc["title"], doc["origin"], doc["source"]
        out.append(
            {
                "name": key,
                "title": title,
                "leaves": sizes[0],
                "levels": sizes,
                "values": spec.what,
                "origin": origin,
                "source": source,
            }
        )
    return out
