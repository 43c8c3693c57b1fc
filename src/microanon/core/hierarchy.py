"""Generalization hierarchies: rooted trees whose leaves are an attribute's values.

A :class:`Hierarchy` is stored as an array tree. Leaves are numbered in depth-first order, so every
node covers a contiguous interval ``[lo, hi)`` of leaf indices: the cover test, the number of
covered leaves and their total weight are O(1). Levels support full-domain
recoding: level 0 is the leaf itself and level ``height`` is the root. In a tree whose leaves sit
at different depths, level ``h`` maps a leaf at depth ``d`` to its ancestor at depth
``min(d, height - h)``, so every level is a partition of the leaves.

Builders: :meth:`Hierarchy.from_arx_csv` (one row per leaf: value, coarser levels, root),
:meth:`Hierarchy.from_paths`, :meth:`Hierarchy.from_parents` (a parent array),
:meth:`Hierarchy.from_nested`, :meth:`Hierarchy.intervals` (fixed width),
:meth:`Hierarchy.quantiles`, :meth:`Hierarchy.balanced` (k-ary tree over ordered values),
:meth:`Hierarchy.masking` (ZIP-code style suffix masking), :meth:`Hierarchy.from_groups` (named
groups per level) and :meth:`Hierarchy.bundled` (the hierarchies that ship with microanon).

:class:`TreeArrays` is the array view of a hierarchy's tree in a canonical node numbering
(pre-order or breadth-first): parents, leaf ranges, depths, children. The method families that
annotate hierarchies build on it (the collection family's taxonomies, the distribution family's
privacy-annotated hierarchies), so there is one hierarchy type and one tree code.
"""

from __future__ import annotations

import copy
import csv
import io
import math
import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .errors import HierarchyError
from .files import read_text_file
from .keys import SUPPRESSED, is_missing, shown, value_key

__all__ = [
    "Hierarchy",
    "Interval",
    "MAX_DECLARED_LEAVES",
    "NODE_ORDERS",
    "SUPPRESSED",
    "TreeArrays",
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

    Interval labels are what generalization publishes for numeric values (the builders of this
    module, Mondrian and local recoding); any other value gives None.
    """
    if not isinstance(label, str):
        return None
    match = _INTERVAL.match(label)
    if match is None:
        return None
    left, lo, hi, right = match.groups()
    return Interval(float(lo), float(hi), left == "[", right == "]")


def _fmt(x: Any) -> str:
    """Format a numeric bound for an interval label."""
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return str(int(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):g}" if isinstance(x, (float, np.floating)) else str(x)


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


#: Most whole numbers a declared interval domain ``[start, end]`` may hold as leaves.
MAX_DECLARED_LEAVES = 1_000_000


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
        seen = np.unique(Hierarchy._numeric_domain(data, "interval", name))
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


def _tree_problem(rows: list[list[str]], name: str | None) -> str:
    """What :meth:`Hierarchy.from_levels` finds wrong with ``rows``."""
    try:
        Hierarchy.from_levels(rows, name=name)
    except HierarchyError as exc:
        return str(exc)
    return "its rows do not form a tree"


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
        roots = {value_key(p[0]) for p in paths if len(p) > 0}
        if any(len(p) == 0 for p in paths):
            raise HierarchyError(f"hierarchy{where} contains an empty path")
        if len(roots) != 1:
            raise HierarchyError(
                f"hierarchy{where} is not a tree: it has {len(roots)} roots "
                f"({', '.join(sorted(roots)[:5])}); add a common top level such as '*'"
            )
        # Build nodes keyed by their root-to-node key path.
        index: dict[tuple[str, ...], int] = {}
        labels: list[Any] = []
        parent: list[int] = []
        has_child: list[bool] = []
        leaf_of_path: list[int] = []
        for p in paths:
            key: tuple[str, ...] = ()
            prev = -1
            for label in p:
                key = key + (value_key(label),)
                node = index.get(key)
                if node is None:
                    node = len(labels)
                    index[key] = node
                    labels.append(label)
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
        self._build(labels, np.asarray(parent, dtype=np.int64))
        if weights is None:
            self._set_weights(np.ones(self.n_leaves))
            return
        w_in = _leaf_weights(weights, len(paths), where)
        pos = {leaf: i for i, leaf in enumerate(self._leaf_nodes.tolist())}
        w = np.empty(self.n_leaves)
        for leaf, wt in zip(leaf_of_path, w_in, strict=True):
            w[pos[leaf]] = wt
        self._set_weights(w)

    def _build(self, labels: list[Any], parent: np.ndarray) -> None:
        """Set the tree arrays and the label lookups from labels and parents (vectorized).

        Parameters
        ----------
        labels : list
            Label of every node id.
        parent : ndarray of int64
            Parent of every node id: -1 for node 0 (the root), an earlier node id for the others.
            Siblings are ordered by node id.

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

    def _check_level(self, level: int) -> int:
        if not isinstance(level, (int, np.integer)) or not 0 <= level <= self.height:
            col = f" of column '{self.name}'" if self.name else ""
            raise HierarchyError(f"level {shown(level)}{col} is outside 0..{self.height}")
        return int(level)

    # ------------------------------------------------------------------ lookups
    def contains(self, value: Any) -> bool:
        """Whether ``value`` is a leaf of the hierarchy."""
        return value_key(value) in self._leaf_key

    def leaf_index(self, values: Iterable[Any], column: str | None = None) -> np.ndarray:
        """Leaf indices (depth-first order) of original values.

        Raises
        ------
        HierarchyError
            Naming the column and up to five values that are not leaves.
        """
        values = list(values)
        keys = [value_key(v) for v in values]
        idx = np.fromiter(
            (self._leaf_key.get(k, -1) for k in keys), dtype=np.int64, count=len(keys)
        )
        if np.any(idx < 0):
            missing = sorted({values[i] for i in np.flatnonzero(idx < 0)}, key=str)
            col = column or self.name or "?"
            raise HierarchyError(
                f"column '{col}': {len(missing)} value(s) not in its hierarchy: "
                + ", ".join(shown(m) for m in missing[:5])
                + (" ..." if len(missing) > 5 else "")
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

    @cached_property
    def _paths(self) -> tuple[tuple[Any, ...], ...]:
        """Root-to-leaf label paths, built once (the tree never changes after construction)."""
        out = []
        for leaf in self._leaf_nodes:
            p = []
            v = int(leaf)
            while v >= 0:
                p.append(self._labels[v])
                v = int(self._parent[v])
            out.append(tuple(p[::-1]))
        return tuple(out)

    @cached_property
    def _plain_paths(self) -> tuple[tuple[Any, ...], ...]:
        """:attr:`_paths` with numpy scalars as Python ones (what :meth:`to_dict` publishes)."""
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
        """Build from leaf-to-root rows (ARX layout): ``[value, level 1, ..., root]``.

        Every row must have the same number of levels, and a label at one level must always map to
        the same label at the next level.
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
        return cls([r[::-1] for r in unique_rows], name=name)

    @classmethod
    def from_arx_csv(
        cls, source: str | os.PathLike[str] | io.TextIOBase, sep: str = ";", name: str | None = None
    ) -> Hierarchy:
        """Read ARX's hierarchy CSV: no header, one row per leaf, leaf first, root last.

        Parameters
        ----------
        source : path or text stream
            A path is read only if it is a regular file of at most
            :data:`~microanon.core.files.MAX_FILE_BYTES` (never ``/dev/zero``, a FIFO or a
            directory), and its errors name the file and the line, never the file's content.
        sep : str
            Field separator (ARX uses ``;``).
        name : str, optional
            Column name for messages.
        """
        if not isinstance(source, (str, os.PathLike)):
            rows, _ = _arx_rows(source.read(), sep, "hierarchy")
            return cls.from_levels(rows, name=name)
        return cls._from_arx_file(source, sep, name)

    @classmethod
    def _from_arx_file(cls, path: str | os.PathLike[str], sep: str, name: str | None) -> Hierarchy:
        """:meth:`from_arx_csv` of a file: errors name the file and lines, never values."""
        where = f"hierarchy file {path}"
        text = read_text_file(path, "hierarchy file", HierarchyError)
        rows, lines = _arx_rows(text, sep, where)
        for r, line in zip(rows, lines, strict=True):
            if len(r) != len(rows[0]):
                raise HierarchyError(
                    f"{where}, line {line}: {len(r)} levels, line {lines[0]} has {len(rows[0])}"
                )
        try:
            return cls.from_levels(rows, name=name)
        except HierarchyError:
            problem = _tree_problem(_places(rows, lines), name)
        raise HierarchyError(
            f"{where}: {problem} (values named by the line and column where they first appear)"
        )

    @classmethod
    def from_nested(cls, tree: Mapping[Any, Any], name: str | None = None) -> Hierarchy:
        """Build from nested dicts: ``{"*": {"Europe": ["France", "Spain"], "Asia": {...}}}``.

        A node's value is a mapping of children, a list of leaf labels, or ``None`` for a leaf. With
        more than one top-level key a root ``"*"`` is added above them.
        """
        if not isinstance(tree, Mapping) or not tree:
            raise HierarchyError("a nested hierarchy must be a non-empty mapping")
        if len(tree) > 1:
            tree = {SUPPRESSED: dict(tree)}
        paths: list[list[Any]] = []

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
        return cls(paths, name=name)

    @staticmethod
    def _numeric_domain(values: Iterable[Any], what: str, name: str | None) -> np.ndarray:
        arr = pd.Series(list(values) if not isinstance(values, (pd.Series, np.ndarray)) else values)
        arr = arr.dropna()
        num = pd.to_numeric(arr, errors="coerce")
        if num.isna().any():
            bad = arr[num.isna()].iloc[0]
            raise HierarchyError(
                f"{what} hierarchy{' for ' + repr(name) if name else ''} needs numeric values, "
                f"got {shown(bad)}"
            )
        if len(num) == 0:
            raise HierarchyError(f"{what} hierarchy needs at least one value")
        return num.to_numpy(dtype=float)

    @classmethod
    def intervals(
        cls,
        values: Iterable[float],
        widths: Sequence[float],
        start: float | None = None,
        name: str | None = None,
        end: float | None = None,
    ) -> Hierarchy:
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

        Raises
        ------
        HierarchyError
            Widths that are not positive or do not nest, ``end`` without ``start`` or below it,
            a domain of more than :data:`MAX_DECLARED_LEAVES` whole numbers, or a value outside
            ``[start, end]`` (naming the column and the value).
        """
        where = f"column '{name}'" if name else "intervals"
        widths = [float(w) for w in widths]
        if not widths or any(w <= 0 for w in widths):
            raise HierarchyError(f"{where}: interval widths must be positive numbers")
        for a, b in zip(widths, widths[1:], strict=False):
            ratio = b / a
            if b <= a or abs(ratio - round(ratio)) > 1e-9:
                raise HierarchyError(
                    f"{where}: interval width {b:g} is not a multiple of {a:g}; intervals would "
                    "not nest"
                )
        if end is None:
            dom = np.unique(cls._numeric_domain(values, "interval", name))
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
            p.append(int(v) if float(v).is_integer() else float(v))
            paths.append(p)
        return cls(paths, name=name)

    @classmethod
    def from_groups(
        cls,
        levels: Mapping[Any, Iterable[Any]] | Sequence[Mapping[Any, Iterable[Any]]],
        values: Iterable[Any] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Build from named groups per level, finest first; the root ``*`` is added on top.

        Parameters
        ----------
        levels : mapping or sequence of mappings
            Level 1 maps each group name to the values it holds; each further level maps its
            group names to groups of the level below. A single mapping is one level. Every
            value and every group is in exactly one group of the next level.
        values : iterable, optional
            Values that must be leaves, e.g. a column's data (missing values are ignored).
        name : str, optional
            Column name for messages.

        Returns
        -------
        Hierarchy
            Leaves in the order the groups list them.

        Raises
        ------
        HierarchyError
            One line naming the column, the level and the value: a value or group in two
            groups, an unknown member of level 2 or above, a group that no group of the next
            level holds, an empty group, or one of ``values`` in no group.

        Examples
        --------
        >>> h = Hierarchy.from_groups([{"NE": ["CT", "ME"], "MW": ["IL"]}, {"North": ["NE", "MW"]}])
        >>> h.generalize(["ME", "IL"], 1).tolist(), h.generalize(["ME"], 2).tolist()
        (['NE', 'MW'], ['North'])
        """
        from .grouping import group_paths

        return cls(group_paths(levels, values, name), name=name)

    @classmethod
    def bundled(
        cls, key: str, values: Iterable[Any] | None = None, name: str | None = None
    ) -> Hierarchy:
        """A hierarchy that ships with microanon (``us-states``, ``countries``, ``isco-08``, ...).

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
        Hierarchy
            The whole classification: leaves ``values`` lack are leaves too.

        Raises
        ------
        HierarchyError
            An unknown name, or one of ``values`` that is not a leaf (naming the column, the
            value and the hierarchy).

        Examples
        --------
        >>> h = Hierarchy.bundled("us-states")
        >>> h.generalize(["CA", "NY"], 1).tolist(), h.generalize(["CA", "NY"], 2).tolist()
        (['Pacific', 'Middle Atlantic'], ['West', 'Northeast'])
        """
        from .bundled import bundled_definition

        d = bundled_definition(key, name)
        if d.levels is None:
            assert d.widths is not None and d.domain is not None
            seen = [] if values is None else values
            return cls.intervals(seen, d.widths, start=d.domain[0], name=name, end=d.domain[1])
        h = cls.from_groups(d.levels, name=name)
        if values is not None:
            for v in values:
                if not is_missing(v) and not h.contains(v):
                    col = f"column '{name}': " if name else ""
                    raise HierarchyError(
                        f"{col}value {shown(v)} is not in the bundled hierarchy '{key}' ({d.what})"
                    )
        return h

    @classmethod
    def quantiles(
        cls,
        values: Iterable[float],
        bins: Sequence[int],
        name: str | None = None,
        counts: Iterable[int] | None = None,
    ) -> Hierarchy:
        """Intervals holding about equal numbers of records, nested across levels.

        Parameters
        ----------
        values : iterable of numbers
            Observed values with their multiplicity (quantiles are taken over records).
        bins : sequence of int
            Number of intervals per level, finest first, non-increasing. Coarser cut points are
            chosen among the finer ones, so the levels nest. Labels are closed ranges
            ``[min, max]`` of the domain values inside.
        name : str, optional
        counts : iterable of int, optional
            Records holding each of ``values`` (then ``values`` need not repeat): a frequency
            table gives the same hierarchy as the records it counts.

        Notes
        -----
        The cut points of ``b`` intervals are the "higher" quantiles at ``j/b``: with the ``n``
        records sorted, the value at position ``ceil(j (n - 1) / b)`` (0-based), computed in
        integers.
        """
        if counts is None:
            data = cls._numeric_domain(values, "quantile", name)
            dom, tally = np.unique(data, return_counts=True)
        else:
            observed = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
            weight = np.asarray(list(counts), dtype=np.int64)
            if len(weight) != len(observed) or (len(weight) and int(weight.min()) < 1):
                raise HierarchyError(
                    "quantiles: counts must give a positive number of records for each value"
                )
            known = observed.notna().to_numpy()
            data = cls._numeric_domain(observed[known], "quantile", name)
            dom, where = np.unique(data, return_inverse=True)
            # float64 sums are exact below 2**53 records
            summed = np.bincount(where, weights=weight[known].astype(np.float64))
            tally = np.rint(summed).astype(np.int64)
        bins = [int(b) for b in bins]
        if (
            not bins
            or any(b < 1 for b in bins)
            or any(b2 > b1 for b1, b2 in zip(bins, bins[1:], strict=False))
        ):
            raise HierarchyError(
                "quantiles: bins must be positive and non-increasing (finest first)"
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
        codes_per_level = [np.searchsorted(c, dom, side="right") for c in level_cuts]
        label_per_level = []
        for codes in codes_per_level:
            lab = {}
            for code in np.unique(codes):
                members = dom[codes == code]
                lab[code] = f"[{_fmt(members.min())}, {_fmt(members.max())}]"
            label_per_level.append(lab)
        paths = []
        for i, v in enumerate(dom):
            p: list[Any] = [SUPPRESSED]
            for lvl in range(len(bins) - 1, -1, -1):
                p.append(label_per_level[lvl][codes_per_level[lvl][i]])
            p.append(int(v) if float(v).is_integer() else float(v))
            paths.append(p)
        return cls(paths, name=name)

    @classmethod
    def balanced(
        cls,
        values: Iterable[Hashable],
        fanout: int = 2,
        order: Sequence[Hashable] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Balanced ``fanout``-ary tree over sorted distinct values (ordered grouping).

        Consecutive runs of ``fanout`` nodes are merged level by level until one root remains.
        Numeric values are sorted numerically; others follow ``order`` (or sorted order). Inner
        labels are closed ranges ``[first, last]``; the root is ``*``.
        """
        if fanout < 2:
            raise HierarchyError("balanced: fanout must be at least 2")
        distinct = list(dict.fromkeys(values))
        if order is not None:
            keys = [value_key(v) for v in order]
            missing = [v for v in distinct if value_key(v) not in set(keys)]
            if missing:
                raise HierarchyError(f"balanced: values {missing[:5]} are not in the given order")
            present = {value_key(v) for v in distinct}
            dom = [v for v in order if value_key(v) in present]
        else:
            try:
                num = pd.to_numeric(pd.Series(distinct), errors="raise")
                dom = [distinct[i] for i in np.argsort(num.to_numpy(), kind="stable")]
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
        leaf_paths: list[list[Any]] = [[SUPPRESSED] for _ in dom]
        for lvl in reversed(uppers):
            for first, last, members in lvl:
                for i in members:
                    leaf_paths[i].append(f"[{_fmt(first)}, {_fmt(last)}]")
        for i, v in enumerate(dom):
            leaf_paths[i].append(v)
        return cls(leaf_paths, name=name)

    @classmethod
    def masking(
        cls,
        values: Iterable[Any],
        char: str = "*",
        max_masked: int | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Mask trailing characters one at a time, as for ZIP codes: ``13053 → 1305* → 130**``.

        Parameters
        ----------
        values : iterable
            Values (converted to strings).
        char : str
            Masking character.
        max_masked : int, optional
            Largest number of masked characters before the root (default: the longest value's
            length).
        """
        dom = list(dict.fromkeys(value_key(v) for v in values))
        if not dom:
            raise HierarchyError("masking: needs at least one value")
        longest = max(len(v) for v in dom)
        top = longest if max_masked is None else int(max_masked)
        if top < 0:
            raise HierarchyError("masking: max_masked must be non-negative")
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
        return cls(paths, name=name)


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
