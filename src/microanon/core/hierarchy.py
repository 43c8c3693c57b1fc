"""Generalization hierarchies: rooted trees whose leaves are an attribute's values.

A :class:`Hierarchy` is stored as an array tree. Leaves are numbered in depth-first order, so every
node covers a contiguous interval ``[lo, hi)`` of leaf indices: the cover test, the number of
covered leaves and their total weight are O(1). Levels support full-domain
recoding: level 0 is the leaf itself and level ``height`` is the root. In a tree whose leaves sit
at different depths, level ``h`` maps a leaf at depth ``d`` to its ancestor at depth
``min(d, height - h)``, so every level is a partition of the leaves.

The tree is built from root-to-leaf label paths (the constructor, :meth:`Hierarchy.from_paths`)
or a parent array (:meth:`Hierarchy.from_parents`). The builders (:meth:`Hierarchy.from_arx_csv`,
:meth:`Hierarchy.from_levels`, :meth:`Hierarchy.from_nested`, :meth:`Hierarchy.intervals`,
:meth:`Hierarchy.quantiles`, :meth:`Hierarchy.balanced`, :meth:`Hierarchy.masking`,
:meth:`Hierarchy.from_groups`, :meth:`Hierarchy.bundled`) build the tree of the paths that
:mod:`.hierarchy_builders` (and :mod:`.grouping` for named groups) make and document.

:class:`TreeArrays` is the array view of a hierarchy's tree in a canonical node numbering
(pre-order or breadth-first): parents, leaf ranges, depths, children. The method families that
annotate hierarchies build on it (the collection family's taxonomies, the distribution family's
privacy-annotated hierarchies), so there is one hierarchy type and one tree code.
"""

from __future__ import annotations

import copy
import io
import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .errors import HierarchyError
from .factorize import factorize_keys, first_rows
from .grouping import group_paths
from .hierarchy_builders import (
    MAX_DECLARED_LEAVES,
    balanced_paths,
    bundled_paths,
    interval_paths,
    level_paths,
    masking_paths,
    nested_paths,
    quantile_paths,
    read_arx_csv,
)
from .keys import SUPPRESSED, shown, value_key
from .number_text import in_column_type
from .reading import reading_hint

__all__ = [
    "Hierarchy",
    "Interval",
    "MAX_DECLARED_LEAVES",
    "NODE_ORDERS",
    "SUPPRESSED",
    "TreeArrays",
    "label_start",
    "label_key",
    "number_line_order",
    "parse_interval",
    "value_key",
]

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_INTERVAL = re.compile(rf"^\s*([\[(])\s*({_NUMBER})\s*,\s*({_NUMBER})\s*([\])])\s*$")


class Interval(NamedTuple):
    """A numeric interval label such as ``"[20, 30)"`` or ``"[17, 25]"``."""

    lo: float
    hi: float
    closed_lo: bool
    closed_hi: bool


def parse_interval(label: Any) -> Interval | None:
    """The interval a label such as ``"[20, 30)"`` or ``"[17, 25]"`` denotes, or None.

    Interval labels are what generalization publishes for numeric values (the interval and
    quantile builders, Mondrian and local recoding); any other value gives None.
    """
    if not isinstance(label, str):
        return None
    match = _INTERVAL.match(label)
    if match is None:
        return None
    left, lo, hi, right = match.groups()
    return Interval(float(lo), float(hi), left == "[", right == "]")


#: A label that starts at a number: the number itself, or an interval's lower end (``42``,
#: ``[30, 35)``, ``(1.5, 2]``, ``30-34``, ``30 - 34``).
_START = re.compile(r"^\s*[\[(]?\s*(-?\d+(?:\.\d+)?)\s*(?:[,–-]|$)")


def label_start(label: Any) -> float | None:
    """Where a label lies on the number line: the number itself, or an interval's lower end
    (``"[30, 35)"`` and ``"30-34"`` start at 30); None for a label that starts otherwise."""
    match = _START.match(str(label))
    return float(match.group(1)) if match else None


def number_line_order(labels: Iterable[str]) -> list[str]:
    """Labels in the order a reader expects: those that start at a number
    (:func:`label_start`) by that number, then the others; each by its text where that ties
    (``"[20, 30)"`` before ``"[100, 110)"``, where text order puts it after)."""
    return sorted(labels, key=label_key)


def label_key(label: str) -> tuple[int, float, str]:
    """The sort key of :func:`number_line_order`."""
    start = label_start(label)
    return (1, 0.0, label) if start is None else (0, start, label)


def _leaf_weights(weights: Sequence[float] | np.ndarray, n: int, where: str) -> np.ndarray:
    """Checked leaf weights: ``n`` finite non-negative floats.

    Raises
    ------
    HierarchyError
        Naming the hierarchy (``where``) and the expected number of weights.
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise HierarchyError(f"hierarchy{where}: weights must be {n} finite non-negative numbers")
    return w


class _KeyCache:
    """:func:`~microanon.core.keys.value_key` of labels, each distinct label's computed once (a
    label is known by its type and value: ``1`` and ``True`` are equal but keyed apart)."""

    def __init__(self) -> None:
        self._known: dict[tuple[type, Any], str] = {}

    def __call__(self, label: Any) -> str:
        known = (label.__class__, label)
        try:
            return self._known[known]
        except KeyError:
            key = self._known[known] = value_key(label)
            return key
        except TypeError:  # (an unhashable label: its key, as is)
            return value_key(label)


#: A tree's nodes: labels, their keys and parents by node id, and the leaf of each path.
_Nodes = tuple[list[Any], list[str], np.ndarray, list[int]]

#: Types of labels told apart by equality as by their keys (a boolean equals 1, None is
#: missing to pandas: levels holding them are read path by path).
_PLAIN_LABELS = frozenset({str, int, float})


def _distinct_labels(labels: Iterable[Any]) -> list[Any]:
    """The labels, one of each (type, value): each key computed once."""
    try:
        return [label for _, label in dict.fromkeys((v.__class__, v) for v in labels)]
    except TypeError:  # (an unhashable label)
        return list(labels)


def _nodes_by_path(paths: Sequence[Sequence[Any]], key_of: _KeyCache, where: str) -> _Nodes:
    """The nodes, one per root-to-node key path, numbered as the paths reach them."""
    index: dict[tuple[int, str], int] = {}  # (parent node, label key) -> node
    labels: list[Any] = []
    keys: list[str] = []
    parent: list[int] = []
    has_child: list[bool] = []
    leaf_of_path: list[int] = []
    for p in paths:
        prev = -1
        for label in p:
            key = key_of(label)
            node = index.get((prev, key))
            if node is None:
                node = len(labels)
                index[prev, key] = node
                labels.append(label)
                keys.append(key)
                parent.append(prev)
                has_child.append(False)
                if prev >= 0:
                    has_child[prev] = True
            prev = node
        if has_child[prev]:
            raise HierarchyError(
                f"hierarchy{where}: value '{p[-1]}' is both a leaf and an inner node"
            )
        leaf_of_path.append(prev)
    for p, leaf in zip(paths, leaf_of_path, strict=True):
        if has_child[leaf]:
            raise HierarchyError(
                f"hierarchy{where}: value '{p[-1]}' is both a leaf and an inner node"
            )
    return labels, keys, np.asarray(parent, dtype=np.int64), leaf_of_path


def _nodes_by_level(paths: Sequence[Sequence[Any]]) -> _Nodes | None:
    """What :func:`_nodes_by_path` gives, built a level at a time: each level's labels grouped
    by pandas and only its distinct ones keyed (a numeric column's builder hierarchy has a path
    per distinct value; a path at a time, its labels cost about half a microsecond each). None
    for a level of labels other than text and numbers, or a leaf that is an inner node too
    (path by path then names it)."""
    lengths = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
    labels: list[Any] = []
    keys: list[str] = []
    parents: list[np.ndarray] = []
    firsts: list[np.ndarray] = []
    leaf = np.full(len(paths), -1, dtype=np.int64)  # each path's last node
    above = np.full(len(paths), -1, dtype=np.int64)  # each path's node on the level above
    for depth in range(int(lengths.max())):
        rows = np.flatnonzero(lengths > depth)  # the paths that reach this level
        every = len(rows) == len(paths)
        column = [p[depth] for p in paths] if every else [paths[i][depth] for i in rows.tolist()]
        if not set(map(type, column)) <= _PLAIN_LABELS:
            return None
        values = np.empty(len(column), dtype=object)
        values[:] = column
        # equal labels (1 and 1.0) share a key; NaNs are one label, keyed "nan"
        by_value, distinct = pd.factorize(values, use_na_sentinel=False)
        value_keys = np.array([value_key(v) for v in distinct], dtype=object)
        by_key, _ = pd.factorize(value_keys)  # (1 and "1" share a key too)
        parent_of = above[rows]
        node, _ = factorize_keys((parent_of + 1) * len(distinct) + by_key[by_value])
        first = first_rows(node, int(node.max()) + 1)
        if depth and np.isin(parent_of, leaf).any():  # a path's leaf has a child
            return None
        base = len(labels)
        labels.extend(values[first].tolist())
        keys.extend(value_keys[by_value[first]].tolist())
        parents.append(parent_of[first])
        firsts.append(rows[first])
        above[rows] = base + node
        ends = lengths[rows] == depth + 1
        leaf[rows[ends]] = above[rows[ends]]
    # numbered as path by path numbers them: by the first path that reaches a node, then depth
    level = np.repeat(np.arange(len(firsts)), [len(f) for f in firsts])
    order = np.lexsort((level, np.concatenate(firsts)))
    number = np.empty(len(order), dtype=np.int64)
    number[order] = np.arange(len(order))
    parent = np.concatenate(parents)[order]
    parent[parent >= 0] = number[parent[parent >= 0]]
    return (
        [labels[i] for i in order.tolist()],
        [keys[i] for i in order.tolist()],
        parent,
        number[leaf].tolist(),
    )


#: The cached views of a hierarchy that hold its labels (a copy with other labels drops them),
#: and its copies in a column's type (:meth:`Hierarchy.with_leaves_in_type`).
_LABELLED = ("_paths", "_plain_paths", "_label_nodes", "_in_type", "leaf_numbers")


class Hierarchy:
    """A rooted generalization tree over the values of one attribute.

    Build one with a ``from_*`` constructor or a builder; the constructor itself takes root-to-node
    label paths and is used by the builders.

    Parameters
    ----------
    paths : sequence of sequences
        One path per leaf, from the root down to the leaf (labels). Paths sharing a prefix share the
        nodes of that prefix. Every path starts with the same root label.
    weights : sequence of float, optional
        Non-negative leaf weights in the order of ``paths`` (default 1 per leaf).
    name : str, optional
        Attribute the hierarchy belongs to; used in error messages.

    Raises
    ------
    HierarchyError
        If the paths do not form a tree with one root, a leaf appears twice, one label names two
        different groups of leaves, or a path is empty.
    """

    def __init__(
        self,
        paths: Sequence[Sequence[Any]],
        weights: Sequence[float] | None = None,
        name: str | None = None,
    ) -> None:
        self.name = name
        where = f" of column '{name}'" if name else ""
        if len(paths) == 0:
            raise HierarchyError(f"hierarchy{where} has no leaves")
        if any(len(p) == 0 for p in paths):
            raise HierarchyError(f"hierarchy{where} contains an empty path")
        key_of = _KeyCache()
        roots = {key_of(label) for label in _distinct_labels([p[0] for p in paths])}
        if len(roots) != 1:
            raise HierarchyError(
                f"hierarchy{where} is not a tree: it has {len(roots)} roots "
                f"({', '.join(sorted(roots)[:5])}); add a common top level such as '*'"
            )
        nodes = _nodes_by_level(paths) or _nodes_by_path(paths, key_of, where)
        labels, keys, parent, leaf_of_path = nodes
        self._build(labels, parent, keys)
        if weights is None:
            self._set_weights(np.ones(self.n_leaves))
            return
        w_in = _leaf_weights(weights, len(paths), where)
        pos = {leaf: i for i, leaf in enumerate(self._leaf_nodes.tolist())}
        w = np.empty(self.n_leaves)
        for leaf, wt in zip(leaf_of_path, w_in, strict=True):
            w[pos[leaf]] = wt
        self._set_weights(w)

    def _build(self, labels: list[Any], parent: np.ndarray, keys: list[str] | None = None) -> None:
        """Set the tree arrays and the label lookups from labels and parents (vectorized).

        Parameters
        ----------
        labels : list
            Label of every node id.
        parent : ndarray of int64
            Parent of every node id: -1 for node 0 (the root), an earlier node id for the others.
            Siblings are ordered by node id.
        keys : list of str, optional
            :func:`~microanon.core.keys.value_key` of every label, when known.

        Raises
        ------
        HierarchyError
            If a label names two different groups of leaves or appears twice as a leaf.
        """
        where = f" of column '{self.name}'" if self.name else ""
        n = len(labels)
        is_leaf = np.bincount(parent[1:], minlength=n) == 0
        leaves = np.flatnonzero(is_leaf)
        # Leaves under every node: each leaf counts for itself and for each of its ancestors.
        walk = [leaves]
        while walk[-1].size:
            up = parent[walk[-1]]
            walk.append(up[up >= 0])
        count = np.bincount(np.concatenate(walk), minlength=n)
        # Depth-first leaf numbering: a node starts where its parent starts, plus the leaves of
        # its earlier siblings (siblings in node-id order); sum that offset along the path.
        siblings = np.argsort(parent[1:], kind="stable") + 1
        before = np.cumsum(count[siblings]) - count[siblings]
        first = np.ones(len(siblings), dtype=bool)
        first[1:] = parent[siblings[1:]] != parent[siblings[:-1]]
        offset = np.zeros(n + 1, dtype=np.int64)  # offset[-1] = 0 stands above the root
        offset[siblings] = before - np.maximum.accumulate(np.where(first, before, 0))
        above = np.append(parent, -1)  # above[-1] = -1 keeps the walk above the root
        lo = offset[:n].copy()
        depth = np.zeros(n, dtype=np.int64)
        anc = parent
        while True:
            up = anc >= 0
            if not up.any():
                break
            depth += up
            lo += offset[anc]
            anc = above[anc]
        hi = lo + count
        self._labels = labels
        self._parent = parent
        self._lo, self._hi, self._depth = lo, hi, depth
        self._leaf_nodes = leaves[np.argsort(lo[leaves], kind="stable")]
        self._is_leaf = is_leaf
        self.height = int(depth[leaves].max())
        # label -> node (the deepest node carrying it); one label must name one leaf set.
        if keys is None:
            keys = [value_key(label) for label in labels]
        self._by_key: dict[str, int] = {}
        for node, k in enumerate(keys):
            other = self._by_key.get(k)
            if other is None:
                self._by_key[k] = node
                continue
            if (lo[other], hi[other]) != (lo[node], hi[node]):
                what = "appears twice" if is_leaf[node] else "names two different groups"
                raise HierarchyError(
                    f"hierarchy{where} is not a tree: value '{labels[node]}' {what}"
                )
            if depth[node] > depth[other]:
                self._by_key[k] = node
        self._leaf_key = {keys[v]: i for i, v in enumerate(self._leaf_nodes.tolist())}

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle holds: the labels, the parents and the leaf weights (none when all 1);
        the tree arrays and the label lookups are derived from them again when it is loaded.

        A hierarchy of every timestamp of a file (51,873 leaves: the Minneapolis police stops)
        pickled whole, lookups included, was 5 MB, and the out-of-core engine ships the schema
        with its tasks (distributed warned of a graph of 9.5 MiB); its labels and parents are
        1.6 MB.
        """
        same = bool(np.all(self._weights == 1.0))
        return {
            "name": self.name,
            "labels": self._labels,
            "parent": self._parent,
            "weights": None if same else self._weights,
        }

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        """A hierarchy from :meth:`__getstate__`'s parts, its arrays and lookups rebuilt."""
        self.name = state["name"]
        self._build(list(state["labels"]), np.asarray(state["parent"], dtype=np.int64))
        weights = state["weights"]
        self._set_weights(np.ones(self.n_leaves) if weights is None else np.asarray(weights))

    def _set_weights(self, w: np.ndarray) -> None:
        """Set the leaf weights (depth-first leaf order, already checked)."""
        self._weights = w
        self._cum_weights = np.concatenate([[0.0], np.cumsum(w)])

    @classmethod
    def from_parents(
        cls,
        labels: Sequence[Any],
        parent: Sequence[int] | np.ndarray,
        weights: Sequence[float] | np.ndarray | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Build from a parent array: node ``i`` has label ``labels[i]`` and parent ``parent[i]``.

        The node ids of the result are the given ones, so ``parents()`` returns ``parent``.

        Parameters
        ----------
        labels : sequence
            Label of every node.
        parent : sequence of int
            ``-1`` for node 0, the root; every other node's parent is an earlier node. Children
            are ordered by node id (this fixes the depth-first leaf order).
        weights : sequence of float, optional
            Non-negative leaf weights in depth-first leaf order (the order of :attr:`leaves`;
            default 1 per leaf).
        name : str, optional
            Attribute the hierarchy belongs to; used in error messages.

        Returns
        -------
        Hierarchy

        Raises
        ------
        HierarchyError
            If the parent array does not describe such a tree, a label names two different
            groups of leaves or appears twice as a leaf, or the weights are invalid.

        Examples
        --------
        >>> h = Hierarchy.from_parents(["*", "young", "old", 20, 30, 70], [-1, 0, 0, 1, 1, 2])
        >>> h.leaves, h.level_labels(1)
        ([20, 30, 70], ['young', 'old'])
        """
        where = f" of column '{name}'" if name else ""
        labels = list(labels)
        par = np.asarray(parent)
        n = len(labels)
        if (
            n == 0
            or par.shape != (n,)
            or not np.issubdtype(par.dtype, np.integer)
            or par[0] != -1
            or np.any(par[1:] < 0)
            or np.any(par[1:] >= np.arange(1, n))
        ):
            raise HierarchyError(
                f"hierarchy{where}: the parent array must hold one entry per label, -1 for node 0 "
                "(the root) and an earlier node for every other node"
            )
        self = cls.__new__(cls)
        self.name = name
        self._build(labels, par.astype(np.int64))
        if weights is None:
            self._set_weights(np.ones(self.n_leaves))
        else:
            self._set_weights(_leaf_weights(weights, self.n_leaves, where))
        return self

    # ------------------------------------------------------------------ levels
    @cached_property
    def _levels(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each level: (node ids of the level in DFS order, leaf index -> level code)."""
        anc = self._leaf_nodes.copy()
        by_depth: dict[int, np.ndarray] = {}
        for d in range(self.height, -1, -1):
            anc = np.where(self._depth[anc] > d, self._parent[anc], anc)
            by_depth[d] = anc
        out = []
        for h in range(self.height + 1):
            nodes_per_leaf = by_depth[self.height - h]
            _, first, inverse = np.unique(
                self._lo[nodes_per_leaf], return_index=True, return_inverse=True
            )
            out.append((nodes_per_leaf[first], inverse.astype(np.int64)))
        return out

    @property
    def n_levels(self) -> int:
        """Number of levels, ``height + 1`` (level 0 = leaves, last = root)."""
        return self.height + 1

    @property
    def n_leaves(self) -> int:
        """Number of leaves (the size of the attribute's domain)."""
        return len(self._leaf_nodes)

    @property
    def leaves(self) -> list[Any]:
        """Leaf labels in depth-first order."""
        return [self._labels[v] for v in self._leaf_nodes]

    @property
    def weights(self) -> np.ndarray:
        """Leaf weights in depth-first leaf order."""
        return self._weights.copy()

    @property
    def root(self) -> Any:
        """Label of the root."""
        return self._labels[0]

    def level_labels(self, level: int) -> list[Any]:
        """Labels of the nodes of ``level``, in depth-first order."""
        nodes, _ = self._levels[self._check_level(level)]
        return [self._labels[v] for v in nodes]

    def level_codes(self, level: int) -> np.ndarray:
        """Array mapping each leaf index to the code of its ancestor at ``level``."""
        return self._levels[self._check_level(level)][1]

    def level_nodes(self, level: int) -> np.ndarray:
        """Node ids of ``level`` in depth-first order (node ids are used by the methods below)."""
        return self._levels[self._check_level(level)][0]

    def label_nodes(self, level: int) -> np.ndarray:
        """The node each label of ``level`` resolves to (:meth:`node_of` of its key), in
        depth-first order: a label carried by a chain of nodes is its deepest one, as a measure
        reading the published label finds it. Computed once per level (read only)."""
        level = self._check_level(level)
        known = self._label_nodes.get(level)
        if known is None:
            known = self.node_of([value_key(x) for x in self.level_labels(level)])
            known.flags.writeable = False
            self._label_nodes[level] = known
        return known

    @cached_property
    def _label_nodes(self) -> dict[int, np.ndarray]:
        """:meth:`label_nodes` of the levels asked for so far."""
        return {}

    def _check_level(self, level: int) -> int:
        if not isinstance(level, (int, np.integer)) or not 0 <= level <= self.height:
            col = f" of column '{self.name}'" if self.name else ""
            raise HierarchyError(f"level {shown(level)}{col} is outside 0..{self.height}")
        return int(level)

    # ------------------------------------------------------------------ lookups
    def contains(self, value: Any) -> bool:
        """Whether ``value`` is a leaf of the hierarchy."""
        return value_key(value) in self._leaf_key

    def absent(self, values: Iterable[Any]) -> list[Any]:
        """The values that are not leaves of the hierarchy (matched by :func:`value_key`, as
        :meth:`leaf_index` looks them up), each once, in the order given.

        Parameters
        ----------
        values : iterable
            Values of a column, such as its distinct values (``Series.unique()``: a date is a
            ``Timestamp`` there, whose key is the text of a date hierarchy's leaf).

        Returns
        -------
        list
            The values themselves, not their keys.
        """
        return list(dict.fromkeys(v for v in values if value_key(v) not in self._leaf_key))

    def leaf_index(self, values: Iterable[Any], column: str | None = None) -> np.ndarray:
        """Leaf indices (depth-first order) of original values.

        Raises
        ------
        HierarchyError
            Naming the column and up to five values that are not leaves, and the reading
            option to give for a missing-value marker of other software (R's ``NA``) or a
            number written with a decimal comma among them (:func:`reading_hint`).
        """
        values = list(values)
        keys = [value_key(v) for v in values]
        idx = np.fromiter(
            (self._leaf_key.get(k, -1) for k in keys), dtype=np.int64, count=len(keys)
        )
        if np.any(idx < 0):
            missing = sorted(self.absent(values), key=str)
            col = column or self.name or "?"
            hint = next((h for h in map(reading_hint, missing) if h), "")
            raise HierarchyError(
                f"column '{col}': {len(missing)} value(s) not in its hierarchy: "
                + ", ".join(shown(m) for m in missing[:5])
                + (" ..." if len(missing) > 5 else "")
                + hint
            )
        return idx

    def generalize(
        self, values: Iterable[Any], level: int, column: str | None = None
    ) -> np.ndarray:
        """Replace original values by their ancestors' labels at ``level``."""
        labels = np.asarray(self.level_labels(level), dtype=object)
        return labels[self.level_codes(level)[self.leaf_index(values, column)]]

    def node_of(self, labels: Iterable[Any], column: str | None = None) -> np.ndarray:
        """Node ids of generalized labels (a label carried by a chain resolves to its deepest node).

        ``"*"`` always resolves to the root; a number's text (``"1.0"`` as a CSV file holds the
        number 1.0) resolves to the number's node.
        """
        labels = list(labels)
        out = np.empty(len(labels), dtype=np.int64)
        bad = []
        for i, lab in enumerate(labels):
            k = value_key(lab)
            node = self._by_key.get(k)
            if node is None and isinstance(lab, str):  # a number's text as a file holds it
                node = self._by_key.get(_number_key(lab))
            if node is None:
                if k == SUPPRESSED:
                    node = 0
                else:
                    bad.append(lab)
                    node = -1
            out[i] = node
        if bad:
            col = column or self.name or "?"
            raise HierarchyError(
                f"column '{col}': {len(set(map(str, bad)))} generalized value(s) not in its "
                f"hierarchy: " + ", ".join(repr(b) for b in sorted(set(map(str, bad)))[:5])
            )
        return out

    def leaf_count(self, nodes: np.ndarray | int) -> np.ndarray:
        """Number of leaves covered by each node."""
        nodes = np.asarray(nodes)
        return self._hi[nodes] - self._lo[nodes]

    def leaf_range(self, nodes: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """Covered leaf-index interval ``[lo, hi)`` of each node."""
        nodes = np.asarray(nodes)
        return self._lo[nodes], self._hi[nodes]

    def weight(self, nodes: np.ndarray | int) -> np.ndarray:
        """Total leaf weight covered by each node."""
        nodes = np.asarray(nodes)
        return self._cum_weights[self._hi[nodes]] - self._cum_weights[self._lo[nodes]]

    def node_level(self, nodes: np.ndarray | int) -> np.ndarray:
        """Generalization level of each node: 0 for a leaf, ``height - depth`` otherwise."""
        nodes = np.asarray(nodes)
        return np.where(self._is_leaf[nodes], 0, self.height - self._depth[nodes])

    def node_height(self) -> np.ndarray:
        """``height - depth`` of every node (the root has ``height``); used by tree distances."""
        return self.height - self._depth

    def parents(self) -> np.ndarray:
        """Parent node id of every node (-1 for the root)."""
        return self._parent.copy()

    def is_leaf_node(self) -> np.ndarray:
        """Boolean mask over node ids: True for leaves."""
        return self._is_leaf.copy()

    def label(self, node: int) -> Any:
        """Label of a node id."""
        return self._labels[int(node)]

    @property
    def n_nodes(self) -> int:
        """Number of nodes in the tree."""
        return len(self._labels)

    # ------------------------------------------------------------------ copies / io
    def with_weights(self, weights: Mapping[Any, float] | Sequence[float]) -> Hierarchy:
        """Return a copy with leaf weights (mapping value -> weight, or one per leaf in DFS order).

        Values missing from a mapping get weight 0.
        """
        if isinstance(weights, Mapping):
            keyed = {value_key(k): float(v) for k, v in weights.items()}
            unknown = [k for k in keyed if k not in self._leaf_key]
            if unknown:
                raise HierarchyError(
                    f"hierarchy of '{self.name or '?'}': weights given for values not in it: "
                    + ", ".join(unknown[:5])
                )
            w = [keyed.get(value_key(v), 0.0) for v in self.leaves]
        else:
            w = list(weights)
        where = f" of column '{self.name}'" if self.name else ""
        out = copy.copy(self)  # the tree's arrays and lookups are never modified: share them
        out._set_weights(_leaf_weights(w, self.n_leaves, where))
        return out

    def with_leaves_in_type(self, whole: bool) -> Hierarchy:
        """This hierarchy with each leaf that writes a number held in the type of the column of
        numbers it generalizes (:func:`~microanon.core.number_text.in_column_type`): the
        leaves of a hierarchy file are text, and a leaf is what a method publishes at level 0.

        Parameters
        ----------
        whole : bool
            Whether the column is read as whole numbers (``20``) or decimal ones (``20.0``).

        Returns
        -------
        Hierarchy
            ``self`` when every leaf is in that type already (or writes no number), else a copy
            with the same nodes, weights and labels above the leaves, its leaves matched to the
            data by value (``"20.0"`` is the leaf of the whole number 20).

        Raises
        ------
        HierarchyError
            Two leaves that write the same number (``20`` and ``20.0``), naming the column.
        """
        if not self.leaves_write_numbers:
            return self
        memo = self.__dict__.setdefault("_in_type", {})  # (one copy per type: asked each run)
        if whole not in memo:
            memo[whole] = self._in_type_anew(whole)
        return memo[whole]

    @cached_property
    def leaf_numbers(self) -> np.ndarray:
        """The leaves as numbers (float, in depth-first leaf order), NaN where a leaf writes no
        number (``"?"``, ``"20-39"``), read as :func:`pandas.to_numeric` reads them (computed
        once: the ranges a level cuts from the data are cut again from them on every release)."""
        numbers = pd.to_numeric(pd.Series(self.leaves, dtype=object), errors="coerce")
        out = numbers.to_numpy(float, copy=True)
        out.flags.writeable = False  # (shared by every release of the hierarchy)
        return out

    @cached_property
    def leaves_write_numbers(self) -> bool:
        """Whether a leaf is a number or writes one (``20``, ``"20.0"``): only such a hierarchy
        changes in the type of a column of numbers (:meth:`with_leaves_in_type`)."""
        return any(
            (isinstance(label, (int, float, np.number)) and not isinstance(label, bool))
            or in_column_type(label, False) is not label
            for label in (self._labels[v] for v in self._leaf_nodes.tolist())
        )

    def _in_type_anew(self, whole: bool) -> Hierarchy:
        """:meth:`with_leaves_in_type`, computed."""
        labels = self._labels
        target = int if whole else float
        changed: dict[int, Any] = {}  # leaf node -> its label in the column's type
        for v in self._leaf_nodes.tolist():
            label = labels[v]
            if type(label) is target:
                continue
            new = in_column_type(label, whole)
            if new is not label and (type(new) is not type(label) or new != label):
                changed[v] = new
        if not changed:
            return self
        typed = list(labels)
        for v, new in changed.items():
            typed[v] = new
        if all(value_key(new) == value_key(labels[v]) for v, new in changed.items()):
            # the keys stay (the file's "20", the number 20.0): the tree and its lookups too
            out = copy.copy(self)
            for cached in _LABELLED:
                out.__dict__.pop(cached, None)
            out._labels = typed
            return out
        first: dict[str, int] = {}  # a number's key -> the first leaf node that writes it
        for v in self._leaf_nodes.tolist():
            seen = first.setdefault(value_key(typed[v]), v)
            if seen != v:
                col = f"column '{self.name}'" if self.name else "hierarchy"
                raise HierarchyError(
                    f"{col}: the hierarchy's leaves {shown(labels[seen])} and "
                    f"{shown(labels[v])} are the same number {value_key(typed[v])}; keep one"
                )
        return Hierarchy.from_parents(typed, self._parent, weights=self._weights, name=self.name)

    @cached_property
    def _paths(self) -> tuple[tuple[Any, ...], ...]:
        """Root-to-leaf label paths, built once (the tree never changes after construction):
        the leaves of each depth take their labels a level at a time (their ancestors found
        with array lookups)."""
        labels = np.fromiter(self._labels, dtype=object, count=len(self._labels))
        depths = self._depth[self._leaf_nodes]
        out: list[tuple[Any, ...]] = [()] * len(depths)
        for depth in np.unique(depths).tolist():
            at = np.flatnonzero(depths == depth)
            levels = [self._leaf_nodes[at]]
            for _ in range(depth):
                levels.append(self._parent[levels[-1]])
            found = zip(*(labels[nodes].tolist() for nodes in reversed(levels)), strict=True)
            if len(at) == len(depths):
                return tuple(found)
            for i, path in zip(at.tolist(), found, strict=True):
                out[i] = path
        return tuple(out)

    @cached_property
    def _plain_paths(self) -> tuple[tuple[Any, ...], ...]:
        """:attr:`_paths` with numpy scalars as Python ones (what :meth:`to_dict` publishes)."""
        if not any(isinstance(label, np.generic) for label in self._labels):
            return self._paths
        return tuple(
            tuple(x.item() if isinstance(x, np.generic) else x for x in p) for p in self._paths
        )

    def paths(self) -> list[list[Any]]:
        """Root-to-leaf label paths, one per leaf in DFS order (the constructor's input)."""
        return [list(p) for p in self._paths]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description (used in release metadata); inverse of :meth:`from_dict`."""
        d: dict[str, Any] = {"paths": [list(p) for p in self._plain_paths]}
        if self.name:
            d["name"] = self.name
        if not np.all(self._weights == 1.0):
            d["weights"] = self._weights.tolist()
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Hierarchy:
        """Rebuild a hierarchy saved with :meth:`to_dict`."""
        if "paths" not in d:
            raise HierarchyError("hierarchy description needs a 'paths' entry")
        return cls(d["paths"], weights=d.get("weights"), name=d.get("name"))

    def to_frame(self) -> pd.DataFrame:
        """The ARX-style table: one row per leaf, one column per level (0 = leaf)."""
        cols = {}
        for h in range(self.n_levels):
            labels = np.asarray(self.level_labels(h), dtype=object)
            cols[f"level_{h}"] = labels[self.level_codes(h)]
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        name = f" '{self.name}'" if self.name else ""
        return f"<Hierarchy{name}: {self.n_leaves} leaves, height {self.height}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hierarchy):
            return NotImplemented
        return [list(map(value_key, p)) for p in self.paths()] == [
            list(map(value_key, p)) for p in other.paths()
        ] and np.allclose(self._weights, other._weights)

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_paths(
        cls,
        paths: Sequence[Sequence[Any]],
        weights: Sequence[float] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Build from root-to-leaf label paths (see the class docstring)."""
        return cls(paths, weights=weights, name=name)

    @classmethod
    def from_levels(cls, rows: Sequence[Sequence[Any]], name: str | None = None) -> Hierarchy:
        """Leaf-to-root rows (ARX layout): see :func:`.hierarchy_builders.level_paths`."""
        return cls(level_paths(rows, name=name), name=name)

    @classmethod
    def from_arx_csv(
        cls, source: str | os.PathLike[str] | io.TextIOBase, sep: str = ";", name: str | None = None
    ) -> Hierarchy:
        """ARX's hierarchy CSV: see :func:`.hierarchy_builders.read_arx_csv`."""
        return read_arx_csv(source, lambda paths: cls(paths, name=name), sep=sep, name=name)

    @classmethod
    def from_nested(cls, tree: Mapping[Any, Any], name: str | None = None) -> Hierarchy:
        """Nested dicts: see :func:`.hierarchy_builders.nested_paths`."""
        return cls(nested_paths(tree), name=name)

    @classmethod
    def intervals(
        cls,
        values: Iterable[float],
        widths: Sequence[float],
        start: float | None = None,
        name: str | None = None,
        end: float | None = None,
    ) -> Hierarchy:
        """Fixed-width intervals: see :func:`.hierarchy_builders.interval_paths`."""
        return cls(interval_paths(values, widths, start=start, name=name, end=end), name=name)

    @classmethod
    def from_groups(
        cls,
        levels: Mapping[Any, Iterable[Any]] | Sequence[Mapping[Any, Iterable[Any]]],
        values: Iterable[Any] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Named groups per level, finest first: see :func:`.grouping.group_paths`."""
        return cls(group_paths(levels, values, name), name=name)

    @classmethod
    def bundled(
        cls, key: str, values: Iterable[Any] | None = None, name: str | None = None
    ) -> Hierarchy:
        """A hierarchy that ships with microanon: see :func:`.hierarchy_builders.bundled_paths`."""
        return cls(bundled_paths(key, values, name), name=name)

    @classmethod
    def quantiles(
        cls,
        values: Iterable[float],
        bins: Sequence[int],
        name: str | None = None,
        counts: Iterable[int] | None = None,
    ) -> Hierarchy:
        """Equal-count intervals: see :func:`.hierarchy_builders.quantile_paths`."""
        return cls(quantile_paths(values, bins, name=name, counts=counts), name=name)

    @classmethod
    def balanced(
        cls,
        values: Iterable[Hashable],
        fanout: int = 2,
        order: Sequence[Hashable] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """A k-ary tree over ordered values: see :func:`.hierarchy_builders.balanced_paths`."""
        return cls(balanced_paths(values, fanout, order, name), name=name)

    @classmethod
    def masking(
        cls,
        values: Iterable[Any],
        char: str = "*",
        max_masked: int | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Suffix masking, as for ZIP codes: see :func:`.hierarchy_builders.masking_paths`."""
        return cls(masking_paths(values, char, max_masked, name), name=name)


#: Node numberings of :class:`TreeArrays`.
NODE_ORDERS: tuple[str, ...] = ("preorder", "breadth_first")


class TreeArrays:
    """The tree of a :class:`Hierarchy` as arrays over node codes ``0 .. n_nodes - 1``.

    The codes are a canonical numbering of the hierarchy's nodes that depends on the tree alone
    (not on how the hierarchy was built), with the root as code 0 and siblings in leaf order:

    - ``"preorder"``: depth-first, every node before its subtree, so a subtree is a contiguous
      run of codes starting at its root and a node's first child is the next code;
    - ``"breadth_first"``: level by level from the root, so every level is a contiguous run of
      codes and the children of a node are consecutive codes.

    Annotated types derive from this class: the collection family's taxonomies (pre-order codes)
    and the distribution family's privacy-annotated hierarchies (breadth-first codes).

    Parameters
    ----------
    hierarchy : Hierarchy
        The tree.
    order : {"preorder", "breadth_first"}
        The numbering of the nodes.

    Attributes
    ----------
    hierarchy : Hierarchy
        The tree.
    order : str
        The numbering of the nodes.
    n_nodes, n_leaves, height : int
        Number of nodes, of leaves and the depth of the deepest leaf.
    node_id : ndarray of int64
        The hierarchy's node id of every code.
    code_of_node : ndarray of int64
        The code of every node id of the hierarchy (inverse of ``node_id``).
    parent : ndarray of int64
        Parent code of every node (-1 for the root).
    lo, hi : ndarray of int64
        Every node covers the leaf positions ``lo <= i < hi`` (the hierarchy's depth-first leaf
        order, that of :meth:`Hierarchy.leaf_index`).
    leaf_count : ndarray of int64
        Number of leaves under every node.
    depth : ndarray of int64
        Depth of every node (root 0).
    is_leaf : ndarray of bool
        Whether every node is a leaf.
    leaf_node : ndarray of int64
        Code of the leaf at every leaf position.
    child_count : ndarray of int64
        Number of children of every node (0 for leaves).
    child_start : ndarray of int64
        Code of every inner node's first child (0 for leaves).

    Examples
    --------
    >>> h = Hierarchy.from_nested({"*": {"young": [20, 30], "old": [70]}})
    >>> TreeArrays(h, "preorder").parent.tolist()
    [-1, 0, 1, 1, 0, 4]
    >>> TreeArrays(h, "breadth_first").parent.tolist()
    [-1, 0, 0, 1, 1, 2]
    """

    def __init__(self, hierarchy: Hierarchy, order: str = "preorder") -> None:
        if order not in NODE_ORDERS:
            raise HierarchyError(f"order must be one of {', '.join(NODE_ORDERS)}, got {order!r}")
        h = hierarchy
        self.hierarchy = h
        self.order = order
        self.n_nodes = h.n_nodes
        self.n_leaves = h.n_leaves
        self.height = h.height
        # Ancestors before descendants, siblings by their first leaf: pre-order sorts by first
        # leaf then depth (a chain shares its first leaf), breadth-first by depth then first leaf.
        keys = (h._depth, h._lo) if order == "preorder" else (h._lo, h._depth)
        self.node_id = np.lexsort(keys)
        self.code_of_node = np.empty(self.n_nodes, dtype=np.int64)
        self.code_of_node[self.node_id] = np.arange(self.n_nodes)
        par = h._parent[self.node_id]
        self.parent = np.where(par >= 0, self.code_of_node[np.maximum(par, 0)], -1)
        self.lo, self.hi = h._lo[self.node_id], h._hi[self.node_id]
        self.leaf_count = self.hi - self.lo
        self.depth = h._depth[self.node_id]
        self.is_leaf = h._is_leaf[self.node_id]
        self.leaf_node = self.code_of_node[h._leaf_nodes]
        self.child_count = np.bincount(self.parent[1:], minlength=self.n_nodes).astype(np.int64)
        first = np.full(self.n_nodes, self.n_nodes, dtype=np.int64)
        np.minimum.at(first, self.parent[1:], np.arange(1, self.n_nodes))
        self.child_start = np.where(self.child_count > 0, first, 0)

    @cached_property
    def ancestors(self) -> np.ndarray:
        """Ancestor table, shape ``(height + 1, n_leaves)``.

        ``ancestors[k, i]`` is the code of the k-th ancestor of the leaf at position ``i`` (row 0
        the leaf itself), -1 above the root.
        """
        rows = [self.leaf_node]
        for _ in range(self.height):
            prev = rows[-1]
            rows.append(np.where(prev > 0, self.parent[np.maximum(prev, 0)], -1))
        return np.vstack(rows)

    def leaf_position(self, code: int) -> int:
        """Leaf position (depth-first order) of a leaf's code; inverse of ``leaf_node``."""
        return int(self.lo[code])

    def label(self, code: int) -> Any:
        """Label of the node with code ``code``."""
        return self.hierarchy.label(int(self.node_id[code]))


def _number_key(text: str) -> str | None:
    """The key of the number ``text`` spells (``"1.0"`` -> the key of 1.0), or None."""
    try:
        return value_key(float(text))
    except ValueError:
        return None
