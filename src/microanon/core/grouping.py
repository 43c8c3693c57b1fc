"""Categorical grouping: the root-to-leaf paths of a hierarchy given as named groups per level.

A grouping lists, for every level above the values, which group each member of the level below
belongs to, finest level first::

    [{"Northeast": ["CT", "ME"], "Midwest": ["IL", "OH"]},   # level 1: values -> groups
     {"North": ["Northeast", "Midwest"]}]                     # level 2: groups of level 1

The root ``*`` above the last level is implicit. :func:`group_paths` checks the grouping and
returns the paths :class:`~microanon.core.hierarchy.Hierarchy` is built from
(:meth:`~microanon.core.hierarchy.Hierarchy.from_groups`); every problem is one line naming the
column, the level and the offending value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import HierarchyError
from .keys import SUPPRESSED, is_missing, shown, value_key

__all__ = ["group_levels", "group_paths"]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python scalar it holds (so that messages print ``98``)."""
    return value.item() if isinstance(value, np.generic) else value


def _where(name: str | None) -> str:
    return f"column '{name}'" if name else "groups"


def group_levels(levels: Any, name: str | None = None) -> list[Mapping[Any, Any]]:
    """The levels of a grouping as a list of mappings, finest first.

    A single mapping is the one-level shorthand (values -> groups).

    Raises
    ------
    HierarchyError
        If ``levels`` is neither a non-empty mapping nor a non-empty list of them.
    """
    if isinstance(levels, Mapping):
        levels = [levels]
    if (
        isinstance(levels, (str, bytes))
        or not isinstance(levels, Sequence)
        or not levels
        or not all(isinstance(level, Mapping) for level in levels)
    ):
        raise HierarchyError(
            f"{_where(name)}: groups must be a mapping of group name to members, or a list of "
            "such mappings, finest level first"
        )
    for i, level in enumerate(levels, start=1):
        if not level:
            raise HierarchyError(f"{_where(name)}: level {i} of the groups has no group")
    return list(levels)


def _members(members: Any, group: Any, level: int, where: str) -> list[Any]:
    if isinstance(members, (str, bytes, Mapping)) or not isinstance(members, Iterable):
        raise HierarchyError(
            f"{where}: group {shown(group)} of level {level} must list its members, "
            f"got {type(members).__name__}"
        )
    out = [_plain(m) for m in members]
    if not out:
        raise HierarchyError(f"{where}: group {shown(group)} of level {level} is empty")
    return out


def group_paths(
    levels: Any, values: Iterable[Any] | None = None, name: str | None = None
) -> list[list[Any]]:
    """Root-to-leaf paths of a grouping, one per value, in the order the groups list them.

    Parameters
    ----------
    levels : mapping or sequence of mappings
        Finest level first. Level 1 maps each group name to values; every further level maps
        each of its group names to groups of the level below. A single mapping is one level.
        The root ``*`` is added above the last level.
    values : iterable, optional
        Values that must be leaves (a column's data, its declared categories); missing values
        are ignored. Listed values that ``values`` lacks stay leaves.
    name : str, optional
        Column name for messages.

    Returns
    -------
    list of list
        ``["*", top group, ..., level-1 group, value]`` for every value.

    Raises
    ------
    HierarchyError
        One line naming the column, the level and the value: a value or group in two groups, a
        member of level 2 or above that is not a group of the level below, a group of a level
        that no group of the next level holds, an empty group, a group named ``*``, or one of
        ``values`` in no group.

    Examples
    --------
    >>> group_paths([{"NE": ["CT", "ME"], "MW": ["IL"]}, {"North": ["NE", "MW"]}])
    [['*', 'North', 'NE', 'CT'], ['*', 'North', 'NE', 'ME'], ['*', 'North', 'MW', 'IL']]
    """
    where = _where(name)
    levels = group_levels(levels, name)
    # parent[i][key] = (group label of level i + 1) of the member ``key`` of level i
    parent: list[dict[str, Any]] = []
    leaves: dict[str, Any] = {}
    below: dict[str, Any] = {}  # key -> label of the members the current level groups
    for i, level in enumerate(levels, start=1):
        up: dict[str, Any] = {}
        names: dict[str, Any] = {}
        for group, members in level.items():
            group = _plain(group)
            gk = value_key(group)
            if gk == SUPPRESSED:
                raise HierarchyError(
                    f"{where}: a group of level {i} is named '*', the implicit root's label"
                )
            if gk in names:
                raise HierarchyError(f"{where}: level {i} names group {shown(group)} twice")
            names[gk] = group
            for m in _members(members, group, i, where):
                mk = value_key(m)
                if i > 1 and mk not in below:
                    listed = ", ".join(shown(g) for g in list(below.values())[:5])
                    more = " ..." if len(below) > 5 else ""
                    raise HierarchyError(
                        f"{where}: unknown member {shown(m)} of group {shown(group)} at level {i}: "
                        f"not a group of level {i - 1} ({listed}{more})"
                    )
                if mk in up:
                    what = "value" if i == 1 else "group"
                    raise HierarchyError(
                        f"{where}: {what} {shown(m)} is in two groups of level {i}, "
                        f"{shown(up[mk])} and {shown(group)}"
                    )
                up[mk] = group
                if i == 1:
                    leaves[mk] = m
        if i > 1:
            orphan = [g for k, g in below.items() if k not in up]
            if orphan:
                raise HierarchyError(
                    f"{where}: group {shown(orphan[0])} of level {i - 1} is in no group of "
                    f"level {i}"
                )
        parent.append(up)
        below = names
    if values is not None:
        for v in values:
            if not is_missing(v) and value_key(v) not in leaves:
                raise HierarchyError(f"{where}: value {shown(v)} is in no group of level 1")
    paths = []
    for key, leaf in leaves.items():
        path = [leaf]
        k = key
        for up in parent:
            group = up[k]
            path.append(group)
            k = value_key(group)
        path.append(SUPPRESSED)
        paths.append(path[::-1])
    return paths
