"""Classification utility of a release: an ID3 decision tree and cross-validated (relative)
accuracy (ID3: Quinlan, *Induction of Decision Trees*, Machine Learning 1(1), 1986; relative
accuracy as in Zhang & Zhang, *Generalization-Based Privacy-Preserving Data Collection*, DaWaK
2008, Fig. 6).

:class:`ID3` is Quinlan's tree for categorical features: every node splits on the attribute of
largest information gain ``H(class) - Σ_v |D_v|/|D| H(class | A = v)`` (ties: the first attribute
in feature order), one branch per value seen at the node; a node becomes a leaf when it is pure,
holds fewer than 2 records, or has no attribute left that takes two values among its records
(splitting on an attribute constant at a node changes nothing). A leaf predicts the majority
class; ties go to the class that sorts first. A value the node never saw in training (unseen or
absent there) stops the descent at that node, which predicts its own majority class. Work per
node is one ``np.bincount`` per candidate attribute over the node's records; prediction walks all
rows down the tree together, one step per level.

Protocol of :func:`classification_accuracy` and :func:`relative_accuracy`: the rows are split
into ``folds`` random folds of (almost) equal size; for each fold a tree is trained on the other
folds and predicts the held-out rows; the accuracy is the share of all rows predicted correctly.
:func:`relative_accuracy` runs this twice *with the same folds*: on the original features and on
the released features (the release's rows aligned with the original's), always predicting the
*original* class labels — a release that generalizes the target itself cannot score by
predicting its coarser labels. It is ``accuracy(release) / accuracy(original)``. Relative
accuracy applies to single-table releases whose rows correspond to the original rows (a
generalized or masked table; for rows removed by suppression pass ``original`` restricted to the
kept rows). It does not apply to an anatomized release: its QIT holds the exact quasi-identifiers
and no sensitive value per record.
"""

from __future__ import annotations

import heapq
import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from ..core.random import RandomLike, make_rng
from ..core.release import Release
from ..core.table import factorize_column
from .common import normalize_columns

__all__ = ["ID3", "NodeCounts", "classification_accuracy", "relative_accuracy"]

#: Gains closer than this to the best gain count as ties (broken by feature order).
_GAIN_TIE = 1e-12


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of a count matrix (rows with no records: 0)."""
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / totals, 0.0)
        logs = np.where(p > 0, np.log2(p), 0.0)
    return -(p * logs).sum(axis=1)


def _class_codes(y: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Class codes in sorted label order (so ties go to the label that sorts first)."""
    codes, uniques = factorize_column(y, y.name if y.name is not None else "target")
    try:
        order = np.argsort(np.asarray(uniques, dtype=object), kind="stable")
    except TypeError:  # labels of mixed types: order them by their text
        order = np.argsort(np.asarray([str(u) for u in uniques]), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[codes], np.asarray(uniques, dtype=object)[order]


@dataclass
class _Tree:
    """Array form of a fitted tree. Node 0 is the root."""

    attribute: list[int] = field(default_factory=list)  # split attribute, -1 for a leaf
    majority: list[int] = field(default_factory=list)  # class code predicted at the node
    first_child: list[int] = field(default_factory=list)  # offset into `children`, -1 for a leaf
    children: list[np.ndarray] = field(default_factory=list)  # child per value (-1: unseen)
    n_children: int = 0  # total length of `children`

    def add(self, majority: int) -> int:
        self.attribute.append(-1)
        self.majority.append(majority)
        self.first_child.append(-1)
        return len(self.attribute) - 1

    def split(self, node: int, attribute: int, child: np.ndarray) -> None:
        self.attribute[node] = attribute
        self.first_child[node] = self.n_children
        self.children.append(child)
        self.n_children += len(child)


class NodeCounts(Protocol):
    """What :meth:`ID3.from_counts` asks of the data at each node (``state`` is opaque)."""

    def root(self) -> Any:
        """The state of the root node (all records)."""

    def counts(self, state: Any, attrs: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Class counts at the node (length k) and, per attribute of ``attrs``, its
        value × class count matrix (``card × k``); counts may be estimates (floats)."""

    def children(self, state: Any, attribute: int, values: np.ndarray) -> list[Any]:
        """The states of the children for ``values`` of ``attribute`` (in that order)."""


class _RowCounts:
    """:class:`NodeCounts` over records: a node is the array of its row positions."""

    def __init__(self, codes: list[np.ndarray], cards: list[int], target: np.ndarray, k: int):
        self.codes, self.cards, self.target, self.k = codes, cards, target, k

    def root(self) -> np.ndarray:
        return np.arange(len(self.target))

    def counts(self, rows: np.ndarray, attrs: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
        k, ys = self.k, self.target[rows]
        class_counts = np.bincount(ys, minlength=k)
        if len(rows) < 2 or np.count_nonzero(class_counts) <= 1:
            return class_counts, [np.zeros((self.cards[a], k)) for a in attrs]  # a leaf anyway
        joints = [
            np.bincount(self.codes[a][rows] * k + ys, minlength=self.cards[a] * k).reshape(
                self.cards[a], k
            )
            for a in attrs
        ]
        return class_counts, joints

    def children(self, rows: np.ndarray, attribute: int, values: np.ndarray) -> list[np.ndarray]:
        xs = self.codes[attribute][rows]
        order = np.argsort(xs, kind="stable")
        bounds = np.searchsorted(xs[order], np.concatenate([values, values + 1]))
        m = len(values)
        return [rows[order[bounds[i] : bounds[m + i]]] for i in range(m)]


class ID3:
    """ID3 decision tree over categorical features (see the module docstring).

    Attributes
    ----------
    features : list
        Feature columns, in the order used for tie-breaking.
    classes : ndarray
        Class labels in sorted order.
    n_nodes : int
        Number of nodes of the tree.

    All three are set by :meth:`fit`.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"outlook": ["sunny", "sunny", "rain", "overcast"]})
    >>> ID3().fit(X, pd.Series(["no", "no", "yes", "yes"])).predict(X).tolist()
    ['no', 'no', 'yes', 'yes']
    """

    def __init__(self) -> None:
        self.features: list[Hashable] = []
        self.classes: np.ndarray = np.empty(0, dtype=object)
        self._categories: list[pd.Index] = []
        self._tree = _Tree()
        self._child_index = np.empty(0, dtype=np.int64)

    @property
    def n_nodes(self) -> int:
        """Number of nodes of the fitted tree."""
        return len(self._tree.attribute)

    def fit(self, X: pd.DataFrame, y: pd.Series | Sequence[Any]) -> ID3:  # noqa: N803
        """Grow the tree on categorical features ``X`` and class labels ``y``.

        Raises
        ------
        InputError
            ``X`` not a non-empty DataFrame, ``y`` of another length, missing values.
        """
        if not isinstance(X, pd.DataFrame) or len(X) == 0 or X.shape[1] == 0:
            raise InputError("ID3.fit: X must be a DataFrame with at least one row and column")
        y = pd.Series(y) if not isinstance(y, pd.Series) else y
        if len(y) != len(X):
            raise InputError(f"ID3.fit: X has {len(X)} rows but y has {len(y)}")
        self.features = list(X.columns)
        encoded = [factorize_column(X[c], c) for c in self.features]
        self._categories = [u for _, u in encoded]
        target, self.classes = _class_codes(y.reset_index(drop=True))
        self._grow(
            _RowCounts(
                [c for c, _ in encoded],
                [len(u) for u in self._categories],
                target,
                len(self.classes),
            )
        )
        return self

    @classmethod
    def from_counts(
        cls,
        counts: NodeCounts,
        features: Sequence[Hashable],
        categories: Sequence[Sequence[Any]],
        classes: Sequence[Any],
        min_size: float = 2,
        max_nodes: int | None = None,
    ) -> ID3:
        """Grow a tree from (estimated) counts instead of records.

        For data that cannot be read record by record — randomized releases whose counts are
        estimated (e.g. MRR, Du & Zhan, KDD 2003) — the tree is grown by the same rule as
        :meth:`fit`, with every count asked from ``counts``. Negative estimates count as 0; a
        node whose (estimated) size is below ``min_size`` becomes a leaf.

        Parameters
        ----------
        counts : NodeCounts
            Answers, per node, the class counts and the value × class counts of candidate
            attributes, and makes the children of a split.
        features : sequence
            Feature names, in tie-breaking order.
        categories : sequence of sequences
            The values of each feature, in the code order ``counts`` uses.
        classes : sequence
            Class labels in sorted order (class code ``c`` is ``classes[c]``).
        min_size : float, default 2
            Smallest (estimated) node size that may be split. Estimated counts are noisy;
            a larger value stops the tree from splitting noise.
        max_nodes : int, optional
            Node budget. Nodes are split largest (estimated) first; a split that would exceed
            the budget is not made. ``None``: no budget (the tree of the plain rule).

        Returns
        -------
        ID3
            The fitted tree; :meth:`predict` works as after :meth:`fit`.
        """
        tree = cls()
        tree.features = list(features)
        tree._categories = [pd.Index(list(c)) for c in categories]
        tree.classes = np.asarray(list(classes), dtype=object)
        tree._grow(counts, min_size, max_nodes)
        return tree

    def _grow(self, counts: NodeCounts, min_size: float = 2, max_nodes: int | None = None) -> None:
        """Grow the tree top-down (the rule of the module docstring) from ``counts``.

        Nodes are expanded largest first (the order changes nothing without a budget: every
        split depends on its node only)."""
        cards = [len(c) for c in self._categories]
        tree = _Tree()
        budget = np.inf if max_nodes is None else max_nodes
        # Work items: (-size, tie-breaker, node id, node state, candidate attributes).
        heap = [(-np.inf, 0, tree.add(0), counts.root(), list(range(len(cards))))]
        while heap:
            _, _, node, state, attrs = heapq.heappop(heap)
            class_counts, joints = counts.counts(state, attrs)
            class_counts = np.maximum(class_counts, 0)
            tree.majority[node] = int(np.argmax(class_counts))
            total = float(class_counts.sum())
            if total < min_size or np.count_nonzero(class_counts) <= 1:
                continue
            # H(class) is fixed at the node: the largest gain is the smallest H(class | A).
            best, best_cond, best_sizes = -1, np.inf, None
            for a, joint in zip(attrs, joints, strict=True):
                joint = np.maximum(joint, 0)
                sizes = joint.sum(axis=1)
                if np.count_nonzero(sizes) < 2:
                    continue
                cond = float(sizes @ _entropy_rows(joint)) / float(sizes.sum())
                if cond < best_cond - _GAIN_TIE:
                    best, best_cond, best_sizes = a, cond, sizes
            if best < 0 or len(tree.attribute) + np.count_nonzero(best_sizes) > budget:
                continue
            values = np.flatnonzero(best_sizes)
            child = np.full(cards[best], -1, dtype=np.int64)
            rest = [a for a in attrs if a != best]
            for v, sub in zip(values, counts.children(state, best, values), strict=True):
                child[v] = tree.add(0)
                heapq.heappush(
                    heap, (-float(best_sizes[v]), int(child[v]), int(child[v]), sub, rest)
                )
            tree.split(node, best, child)
        self._tree = tree
        self._child_index = (
            np.concatenate(tree.children) if tree.children else np.empty(0, dtype=np.int64)
        )

    def predict(self, X: pd.DataFrame) -> np.ndarray:  # noqa: N803
        """Class labels of the rows of ``X`` (an object array).

        Raises
        ------
        InputError
            Not fitted, or ``X`` lacks a feature column.
        """
        if not self.features:
            raise InputError("ID3.predict: fit the tree first")
        if not isinstance(X, pd.DataFrame):
            raise InputError("ID3.predict: X must be a DataFrame")
        absent = [c for c in self.features if c not in X.columns]
        if absent:
            raise InputError(f"ID3.predict: X lacks feature column(s) {absent}")
        codes = (
            np.column_stack(
                [
                    cat.get_indexer(X[c])
                    for c, cat in zip(self.features, self._categories, strict=True)
                ]
            )
            if len(X)
            else np.empty((0, len(self.features)), dtype=np.int64)
        )
        attribute = np.asarray(self._tree.attribute, dtype=np.int64)
        first = np.asarray(self._tree.first_child, dtype=np.int64)
        node = np.zeros(len(X), dtype=np.int64)
        active = np.flatnonzero(attribute[node] >= 0)
        while len(active):
            at = node[active]
            value = codes[active, attribute[at]]
            nxt = np.where(value >= 0, self._child_index[first[at] + np.maximum(value, 0)], -1)
            moved = nxt >= 0
            node[active[moved]] = nxt[moved]
            active = active[moved]
            active = active[attribute[node[active]] >= 0]
        return self.classes[np.asarray(self._tree.majority, dtype=np.int64)[node]]


# ---------------------------------------------------------------------------------- accuracy
def _check_folds(folds: Any, n: int) -> int:
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, numbers.Integral):
        raise InputError(f"folds must be a whole number >= 2, got {folds!r}")
    if not 2 <= int(folds) <= n:
        raise InputError(f"folds must be between 2 and the number of rows ({n}), got {folds}")
    return int(folds)


def _check_table(data: Any, features: Any, target: Any, what: str) -> list[Hashable]:
    if not isinstance(data, pd.DataFrame) or len(data) == 0:
        raise InputError(f"the {what} must be a non-empty DataFrame")
    cols = normalize_columns(features, "features")
    if target in cols:
        raise InputError(f"target column {target!r} is also listed as a feature")
    absent = [c for c in cols if c not in data.columns]
    if absent:
        raise InputError(f"the {what} has no feature column(s) {', '.join(map(repr, absent))}")
    return cols


def _fold_of(n: int, folds: int, rng: RandomLike) -> np.ndarray:
    """Fold number of every row: a random permutation cut into ``folds`` near-equal parts."""
    fold = np.empty(n, dtype=np.int64)
    fold[make_rng(rng).permutation(n)] = np.arange(n) * folds // n
    return fold


def _cv_accuracy(X: pd.DataFrame, y: pd.Series, fold: np.ndarray, folds: int) -> float:  # noqa: N803
    correct = 0
    truth = y.to_numpy(dtype=object)
    for f in range(folds):
        test = fold == f
        tree = ID3().fit(X.loc[~test], y.loc[~test])
        correct += int(np.count_nonzero(tree.predict(X.loc[test]) == truth[test]))
    return correct / len(y)


def classification_accuracy(
    data: pd.DataFrame,
    features: Sequence[Hashable],
    target: Hashable,
    folds: int = 5,
    rng: RandomLike = None,
) -> float:
    """k-fold cross-validated accuracy of :class:`ID3` on a table (protocol: module docstring).

    Parameters
    ----------
    data : DataFrame
    features : sequence of column names
        Categorical features (every distinct value is a category).
    target : column name
        The class column.
    folds : int, default 5
    rng : numpy.random.Generator, int or None
        Randomness of the fold assignment.

    Returns
    -------
    float
        Share of rows predicted correctly when held out, in ``[0, 1]``.

    Raises
    ------
    InputError
        Bad table or columns, missing values, ``folds`` outside ``2 .. len(data)``.
    """
    data = pandas_if_arrow(data, "data")
    cols = _check_table(data, features, target, "table")
    if target not in data.columns:
        raise InputError(f"the table has no target column {target!r}")
    k = _check_folds(folds, len(data))
    frame = data.reset_index(drop=True)
    return _cv_accuracy(frame[cols], frame[target], _fold_of(len(frame), k, rng), k)


def relative_accuracy(
    original: pd.DataFrame,
    released: pd.DataFrame | Release,
    features: Sequence[Hashable],
    target: Hashable,
    folds: int = 5,
    rng: RandomLike = None,
) -> float:
    """Cross-validated ID3 accuracy on a release relative to that on the original table.

    Both accuracies use the same folds and predict the original ``target`` labels; the release
    contributes only its feature columns (protocol and scope: module docstring).

    Parameters
    ----------
    original : DataFrame
        The original table (features and target).
    released : DataFrame or Release
        The released table (or a single-table release), row ``i`` being the release of original
        row ``i``; it needs the feature columns only.
    features : sequence of column names
    target : column name
        Class column of ``original``.
    folds : int, default 5
    rng : numpy.random.Generator, int or None
        Randomness of the (shared) fold assignment.

    Returns
    -------
    float
        ``accuracy(release) / accuracy(original)``.

    Raises
    ------
    InputError
        Bad tables or columns, tables of different lengths, an anatomized release, a zero
        accuracy on the original, ``folds`` outside ``2 .. len(original)``.
    """
    original = pandas_if_arrow(original, "original")
    released = pandas_if_arrow(released, "released")
    if isinstance(released, Release):
        if "data" not in released.tables:
            raise InputError(
                f"relative accuracy needs a single-table release; a '{released.kind}' release "
                "has tables " + ", ".join(released.tables)
            )
        released = released.tables["data"]
    cols = _check_table(original, features, target, "original table")
    _check_table(released, cols, target, "released table")
    if target not in original.columns:
        raise InputError(f"the original table has no target column {target!r}")
    if len(released) != len(original):
        raise InputError(
            f"released has {len(released)} rows but original has {len(original)}; rows must be "
            "aligned (restrict original to the rows the release kept)"
        )
    k = _check_folds(folds, len(original))
    fold = _fold_of(len(original), k, rng)
    y = original[target].reset_index(drop=True)
    base = _cv_accuracy(original[cols].reset_index(drop=True), y, fold, k)
    if base == 0:
        raise InputError("ID3 predicts no held-out row of the original correctly")
    return _cv_accuracy(released[cols].reset_index(drop=True), y, fold, k) / base
