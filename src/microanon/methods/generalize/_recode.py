"""Shared machinery of Mondrian and local recoding (private).

Both methods cut the encoded table into groups and publish, for every group, the smallest
generalization covering its records: the closed range ``"[lo, hi]"`` of a numeric
quasi-identifier's values (the value itself when ``lo == hi``) and the lowest common ancestor of a
categorical quasi-identifier's values in its hierarchy (the root is published as ``"*"``). This
module holds what they share:

- :func:`quasi_dims` — one :class:`NumericDim` or :class:`CategoricalDim` per quasi-identifier;
- :class:`Tree` — a hierarchy's node arrays with vectorized lowest common ancestors;
- :func:`encode` — the frequency table of distinct (quasi-identifier, sensitive) combinations;
- :class:`GroupCheck` — every privacy model on weighted groups of frequency rows;
- :func:`publish` — the published table from each record's group and each group's box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InfeasibleError, InputError, SchemaError
from ...core.factorize import sorted_distinct
from ...core.hierarchy import SUPPRESSED, Hierarchy, value_key
from ...core.release_files import value_text
from ...core.schema import MISSING_LABEL, Kind
from ...core.table import Table
from ...models import Groups, PrivacyModel
from ..registry import range_refusal
from ..release import numbers_of, text_column, unchanged_column

__all__: list[str] = []

#: Largest ``nodes x leaves`` table of lowest common ancestors a :class:`Tree` precomputes.
JOIN_TABLE_LIMIT = 1 << 20


# ---------------------------------------------------------------------------------- hierarchies
@dataclass(frozen=True)
class Tree:
    """Node arrays of a :class:`Hierarchy` for vectorized lowest-common-ancestor queries.

    Attributes
    ----------
    hierarchy : Hierarchy
    lo, hi : (n_nodes,) int64
        Covered leaf interval ``[lo, hi)`` of every node (leaves are numbered depth-first).
    parent : (n_nodes,) int64
        Parent of every node (-1 for the root).
    depth : (n_nodes,) int64
    leaf_nodes : (n_leaves,) int64
        Node id of every leaf index.
    ancestors : (height + 1, n_leaves) int64
        ``ancestors[d, x]``: the ancestor of leaf ``x`` at depth ``d`` (the leaf itself when it is
        shallower than ``d``).
    cost : (n_nodes,) float
        NCP of a node: ``(covered leaves - 1) / (leaves - 1)`` (0 for a one-leaf domain).
    labels : (n_nodes,) object
        Published label of every node (the root is ``"*"``).
    joins : (n_nodes, n_leaves) int64 or None
        Lowest common ancestor of every node and leaf, precomputed for small trees (at most
        :data:`JOIN_TABLE_LIMIT` entries) so that :meth:`join` is one lookup.
    """

    hierarchy: Hierarchy
    lo: np.ndarray
    hi: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    leaf_nodes: np.ndarray
    ancestors: np.ndarray
    cost: np.ndarray
    labels: np.ndarray
    joins: np.ndarray | None = None

    @classmethod
    def of(cls, h: Hierarchy) -> Tree:
        """Build the arrays of a hierarchy."""
        nodes = np.arange(h.n_nodes)
        lo, hi = h.leaf_range(nodes)
        parent = h.parents()
        depth = h.height - h.node_height()
        leaf_nodes = h.level_nodes(0)
        ancestors = np.empty((h.height + 1, h.n_leaves), dtype=np.int64)
        cur = leaf_nodes.copy()
        for d in range(h.height, -1, -1):
            cur = np.where(depth[cur] > d, parent[cur], cur)
            ancestors[d] = cur
        count = hi - lo
        cost = (count - 1) / (h.n_leaves - 1) if h.n_leaves > 1 else np.zeros(h.n_nodes)
        labels = np.array([h.label(v) for v in nodes], dtype=object)
        labels[0] = SUPPRESSED
        tree = cls(h, lo, hi, parent, depth, leaf_nodes, ancestors, cost, labels)
        if h.n_nodes * h.n_leaves <= JOIN_TABLE_LIMIT:
            joins = tree.join(nodes[:, None], np.arange(h.n_leaves)[None, :])
            tree = cls(h, lo, hi, parent, depth, leaf_nodes, ancestors, cost, labels, joins)
        return tree

    @property
    def n_leaves(self) -> int:
        """Size of the domain."""
        return len(self.leaf_nodes)

    def lca(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Lowest common ancestor of leaves ``a`` and ``b`` (elementwise; ``a <= b``).

        It is the deepest ancestor of leaf ``a`` whose leaf interval reaches ``b``: at most
        ``height`` vectorized steps up the tree.
        """
        node = self.leaf_nodes[a]
        b = np.asarray(b)
        for _ in range(self.hierarchy.height):
            up = self.hi[node] <= b
            if not up.any():
                break
            node = np.where(up, self.parent[node], node)
        return node

    def join(self, nodes: np.ndarray, leaves: np.ndarray) -> np.ndarray:
        """Lowest common ancestor of each node and leaf (elementwise, broadcasting)."""
        if self.joins is not None:
            return self.joins[nodes, leaves]
        first = np.minimum(self.lo[nodes], leaves)
        last = np.maximum(self.hi[nodes] - 1, leaves)
        return self.lca(first, last)

    def join_nodes(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Lowest common ancestor of two nodes (elementwise)."""
        return self.lca(np.minimum(self.lo[a], self.lo[b]), np.maximum(self.hi[a], self.hi[b]) - 1)

    def child_towards(self, nodes: np.ndarray, leaves: np.ndarray) -> np.ndarray:
        """The child of each inner node that covers the corresponding leaf below it."""
        return self.ancestors[self.depth[nodes] + 1, leaves]


# ---------------------------------------------------------------------------------- dimensions
@dataclass(frozen=True)
class NumericDim:
    """A numeric quasi-identifier: codes are ranks in ascending value order.

    Attributes
    ----------
    name : str
    rank_of_code : (cardinality,) int64
        Rank of every table code (the table's dictionary sorted by value).
    values : (cardinality,) float
        Value of every rank, ascending.
    labels : (cardinality,) object
        Text of every rank as a bound of a range label ``[lo, hi]`` (whole numbers without
        ``.0``, as the interval builders write their bounds).
    texts : (cardinality,) object
        Published text of every rank when a group holds that value alone: the value as a
        release writes it, in its column's type (:mod:`~microanon.core.number_text`: ``25``
        from whole numbers, ``25.0`` from decimal ones).
    span : float
        ``max - min`` of the values present in the table (0 when they are all equal).
    """

    name: str
    rank_of_code: np.ndarray
    values: np.ndarray
    labels: np.ndarray
    texts: np.ndarray
    span: float


@dataclass(frozen=True)
class CategoricalDim:
    """A categorical (or ordinal) quasi-identifier with a hierarchy: codes are leaf indices."""

    name: str
    tree: Tree


Dim = NumericDim | CategoricalDim


def quasi_dims(table: Table, method: str) -> list[Dim]:
    """One dimension per quasi-identifier, in schema order.

    Raises
    ------
    SchemaError
        A non-numeric quasi-identifier without a hierarchy.
    """
    marked = [
        q
        for q in table.schema.quasi
        if table.schema[q].kind is Kind.NUMERIC and MISSING_LABEL in set(table.dictionary(q))
    ]
    if marked:
        raise InputError(range_refusal(marked, method))
    dims: list[Dim] = []
    for q in table.schema.quasi:
        attr = table.schema[q]
        if attr.kind is Kind.NUMERIC:
            dictionary = table.dictionary(q)
            values = pd.to_numeric(pd.Series(dictionary, dtype=object)).to_numpy(dtype=float)
            order = np.argsort(values, kind="stable")
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order))
            present = rank[sorted_distinct(table.codes(q))]
            span = float(values[order[present.max()]] - values[order[present.min()]])
            labels = np.array([value_key(v) for v in dictionary[order]], dtype=object)
            # (a value published alone as a release writes it: 25 or 25.0 as it was read)
            texts = np.array([value_text(v) for v in dictionary[order]], dtype=object)
            dims.append(NumericDim(q, rank, values[order], labels, texts, span))
        elif attr.hierarchy is None:
            raise SchemaError(
                f"quasi-identifier '{q}' is {attr.kind.value} and {method} needs a hierarchy for "
                "it (a file, or a builder such as {builder: balanced}); numeric quasi-identifiers "
                "are published as ranges and need none"
            )
        else:
            dims.append(CategoricalDim(q, Tree.of(table.schema.hierarchy(q))))
    return dims


# ---------------------------------------------------------------------------------- encoding
@dataclass(frozen=True)
class Encoded:
    """The frequency table a method works on.

    Attributes
    ----------
    codes : (n_dims, m) int64
        Per quasi-identifier, the code of every frequency row (rank or leaf index).
    counts : (m,) int64
        Records per frequency row.
    inverse : (n_rows,) int64
        Frequency row of every record.
    sa : (m,) int64 or None
        Sensitive code of every frequency row (when a model needs it).
    """

    codes: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray
    sa: np.ndarray | None


def encode(table: Table, dims: Sequence[Dim], sensitive: str | None) -> Encoded:
    """Distinct (quasi-identifiers[, sensitive]) combinations, sorted lexicographically."""
    columns = [d.name for d in dims] + ([sensitive] if sensitive is not None else [])
    freq = table.frequencies(columns)
    codes = np.empty((len(dims), len(freq)), dtype=np.int64)
    for j, d in enumerate(dims):
        col = freq.combos[:, j]
        codes[j] = d.rank_of_code[col] if isinstance(d, NumericDim) else col
    sa = freq.combos[:, -1].astype(np.int64) if sensitive is not None else None
    return Encoded(codes, freq.counts, freq.inverse, sa)


# ---------------------------------------------------------------------------------- models
class GroupCheck:
    """Every privacy model, evaluated on weighted groups of frequency rows.

    The models whose verdict is a number of records (:attr:`PrivacyModel.recoding_size`:
    k-anonymity) are a size test, the largest of their sizes ``k``; the other models are
    evaluated with :meth:`PrivacyModel.group_ok` on :meth:`Groups.from_codes`, those that
    compare with the whole table's sensitive distribution against it (``reference``). The
    check asks the models, never their types.

    Every test takes ``group`` (the group of each weighted entry; every id ``0..n-1`` must
    occur), ``weights`` (records per entry), ``n`` (number of groups) and ``sa`` (the sensitive
    code of each entry; required when a model needs the sensitive attribute).
    """

    def __init__(self, models: Sequence[PrivacyModel], table: Table, enc: Encoded) -> None:
        self.models = list(models)
        sizes = [m.recoding_size for m in self.models]
        self.k = max([s for s in sizes if s is not None], default=1)
        self.others = [m for m, s in zip(self.models, sizes, strict=True) if s is None]
        self.sensitive = None
        self.n_values = 0
        if enc.sa is not None:
            self.sensitive = table.schema.sensitive[0]
            dictionary = table.dictionary(self.sensitive)
            self.n_values = len(dictionary)
            self.numeric = numbers_of(table, self.sensitive) is not None
            # The models only see codes unless a distance needs the values themselves; integer
            # stand-ins make every Groups construction much cheaper than text values.
            blind = not any(m.reads_sensitive_values(self.numeric) for m in self.others)
            values = list(range(self.n_values)) if blind and not self.numeric else list(dictionary)
            unknown = np.asarray(pd.isna(pd.Index(dictionary, dtype=object)))
            for code in np.flatnonzero(unknown):  # a kept missing cell stays unknown
                values[code] = None
            # one Index for every Groups built (with an unknown value, a list: its Index would
            # make integer stand-ins floats)
            self.values: list[Any] | pd.Index = values if unknown.any() else pd.Index(values)
            self.reference = np.bincount(enc.sa, weights=enc.counts, minlength=len(dictionary))
            self.reference[unknown] = 0

    def _groups(
        self, group: np.ndarray, weights: np.ndarray, n: int, sa: np.ndarray | None
    ) -> Groups:
        if sa is None:
            return Groups.from_codes(["group"], [group], [n], weights=weights)
        return Groups.from_codes(
            ["group"],
            [group],
            [n],
            sensitive=self.sensitive,
            sa_codes=sa,
            values=self.values,
            numeric=self.numeric,
            weights=weights,
            reference=self.reference,
        )

    def ok(
        self, group: np.ndarray, weights: np.ndarray, n: int, sa: np.ndarray | None = None
    ) -> np.ndarray:
        """Whether each group satisfies every model."""
        ok = np.bincount(group, weights=weights, minlength=n) >= self.k
        if self.others and ok.any():
            groups = self._groups(group, weights, n, sa)
            for m in self.others:
                ok &= m.group_ok(groups)
        return ok

    def shortfall(
        self, group: np.ndarray, weights: np.ndarray, n: int, sa: np.ndarray | None = None
    ) -> np.ndarray:
        """Summed shortfall of every group over the models: 0 exactly when all hold."""
        size = np.bincount(group, weights=weights, minlength=n)
        short = np.maximum(self.k - size, 0) / self.k
        if self.others:
            groups = self._groups(group, weights, n, sa)
            for m in self.others:
                gap = np.maximum(m.shortfall(groups), 1e-12)  # > 0 where the group fails
                short = short + np.where(m.group_ok(groups), 0.0, gap)
        return short

    def require_feasible(self, enc: Encoded) -> None:
        """Raise unless the whole table, as one group, satisfies every model.

        Raises
        ------
        InfeasibleError
            Naming the first model that fails.
        """
        group = np.zeros(len(enc.counts), dtype=np.int64)
        n = int(enc.counts.sum())
        groups = None
        for m in self.models:
            size = m.recoding_size
            if size is not None:
                holds = n >= size
            else:
                if groups is None:
                    groups = self._groups(group, enc.counts, 1, enc.sa)
                holds = bool(m.group_ok(groups)[0])
            if not holds:
                ((_, params),) = m.to_config().items()
                shown = ", ".join(f"{p}={v!r}" for p, v in params.items() if p != "hierarchy")
                raise InfeasibleError(
                    f"{m.name} ({shown}) fails even on the whole table of {n} records as one "
                    "group, so no generalization can satisfy it; relax the model"
                )


# ---------------------------------------------------------------------------------- publishing
def box_labels(dims: Sequence[Dim], lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """Published labels of every group's box, one object array per dimension.

    ``lo`` and ``hi`` (n_dims, n_groups) hold, per dimension, the smallest and largest code in
    the group: ranks for a numeric dimension (published ``"[lo, hi]"``, or when equal the value
    as a release writes it),
    leaf indices for a categorical one (published as their lowest common ancestor).
    """
    out = []
    for j, d in enumerate(dims):
        if isinstance(d, NumericDim):
            first, last = d.labels[lo[j]], d.labels[hi[j]]
            out.append(np.where(lo[j] == hi[j], d.texts[lo[j]], "[" + first + ", " + last + "]"))
        else:
            out.append(d.tree.labels[d.tree.lca(lo[j], hi[j])])
    return out


def publish(
    table: Table, dims: Sequence[Dim], labels: Sequence[np.ndarray], group_of_row: np.ndarray
) -> pd.DataFrame:
    """The published table: quasi-identifiers replaced by their group's labels, rows in order.

    Its columns are text as a release publishes them
    (:func:`~microanon.methods.release.text_column`): release it with
    ``generalized_release(..., text=True)``.
    """
    quasi = {d.name: lab for d, lab in zip(dims, labels, strict=True)}
    rows = np.arange(table.n_rows)
    data = {
        c: text_column(group_of_row, quasi[c], table.index)
        if c in quasi
        else unchanged_column(table, c, rows)
        for c in table.columns
    }
    return pd.DataFrame(data, index=table.index, copy=False)  # fresh columns


def group_bounds(
    codes: np.ndarray, rows: np.ndarray, group: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest code of every group per dimension, (n_dims, n) each."""
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0])
    if len(starts) != n:
        raise AssertionError("every group must hold at least one frequency row")
    sub = codes[:, rows[order]]
    return np.minimum.reduceat(sub, starts, axis=1), np.maximum.reduceat(sub, starts, axis=1)
