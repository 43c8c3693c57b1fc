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
absent there) stops the descent at that node, which predicts its own majority class. Every
quantity of the rule is a count of records per (feature values, class), so the records are first
grouped into their distinct combinations with counts, and the tree grows one level at a time:
work per level is one weighted ``np.bincount`` (or sort) per candidate attribute over the
(node, value, class) cells of all the level's nodes; prediction walks all rows (combinations)
down the tree together, one step per level.

Protocol of :func:`classification_accuracy` and :func:`relative_accuracy`: the rows are split
into ``folds`` random folds of (almost) equal size; for each fold a tree is trained on the other
folds and predicts the held-out rows; the accuracy is the share of all rows predicted correctly.
The rows are read once, into the distinct (features, class) combinations with their records per
fold; each fold's tree is grown on the combinations weighted by their records in the other folds
and predicts the combinations, each correct one counting its records in the fold.
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
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.factorize import sorted_distinct
from ..core.frames import pandas_if_arrow
from ..core.random import RandomLike, make_rng
from ..core.release import Release
from ..core.table import factorize_column
from ._id3_split import Sparse, number
from .common import check_counts, normalize_columns

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


def _label_rank(labels: np.ndarray) -> np.ndarray:
    """Rank of each label among the sorted labels (labels of mixed types: by their text)."""
    try:
        order = np.argsort(np.asarray(labels, dtype=object), kind="stable")
    except TypeError:  # labels of mixed types: order them by their text
        order = np.argsort(np.asarray([str(u) for u in labels]), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _class_codes(y: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Class codes in sorted label order (so ties go to the label that sorts first)."""
    codes, uniques = factorize_column(y, y.name if y.name is not None else "target")
    labels = np.asarray(uniques, dtype=object)
    rank = _label_rank(labels)
    classes = np.empty(len(labels), dtype=object)
    classes[rank] = labels
    return rank[codes], classes


def _distinct(columns: Sequence[np.ndarray], cards: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct combinations of code columns (codes ``0..card-1``) and the combination of each row.

    Returns the combinations as a ``(len(columns), n_distinct)`` code matrix and each row's
    combination number. The codes are packed into one int64 key (renumbered before the packing
    would overflow) and numbered by :func:`_number`.
    """
    key, space = np.zeros(len(columns[0]), dtype=np.int64), 1
    for col, card in zip(columns, cards, strict=True):
        card = max(int(card), 1)
        if space * card > np.iinfo(np.int64).max:
            uniq, key = number(key, space)
            space = len(uniq)
        key *= card
        key += col
        space *= card
    uniq, inverse = number(key, space)
    some_row = np.empty(len(uniq), dtype=np.int64)
    some_row[inverse] = np.arange(len(key))  # the rows of a combination share their codes
    return np.stack([np.asarray(c)[some_row] for c in columns]), inverse


@dataclass(frozen=True)
class _Tree:
    """Array form of a fitted tree. Node 0 is the root."""

    attribute: np.ndarray  # split attribute per node, -1 for a leaf
    majority: np.ndarray  # class code predicted at the node
    first_child: np.ndarray  # offset into `child`, -1 for a leaf
    child: np.ndarray  # per split node, its child per value of its attribute (-1: unseen)

    def descend(self, codes: np.ndarray) -> np.ndarray:
        """The node where each row (of a ``rows × features`` code matrix, -1 for a value
        without a code) stops: a leaf, or a node that never saw the row's value."""
        node = np.zeros(len(codes), dtype=np.int64)
        active = np.flatnonzero(self.attribute[node] >= 0)
        while len(active):
            at = node[active]
            value = codes[active, self.attribute[at]]
            nxt = np.where(value >= 0, self.child[self.first_child[at] + np.maximum(value, 0)], -1)
            moved = nxt >= 0
            node[active[moved]] = nxt[moved]
            active = active[moved]
            active = active[self.attribute[node[active]] >= 0]
        return node


@dataclass
class _TreeBuilder:
    """A tree grown node by node (:meth:`ID3.from_counts`); :meth:`build` gives its array form."""

    attribute: list[int] = field(default_factory=list)
    majority: list[int] = field(default_factory=list)
    first_child: list[int] = field(default_factory=list)
    children: list[np.ndarray] = field(default_factory=list)
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

    def build(self) -> _Tree:
        return _Tree(
            np.asarray(self.attribute, dtype=np.int64),
            np.asarray(self.majority, dtype=np.int64),
            np.asarray(self.first_child, dtype=np.int64),
            np.concatenate(self.children) if self.children else np.empty(0, dtype=np.int64),
        )


def _check_counts(counts: Any, n: int) -> np.ndarray | None:
    """``counts`` of :meth:`ID3.fit` as a float array (``None`` stays ``None``)."""
    if counts is None:
        return None
    try:
        weight = np.asarray(counts, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(f"ID3.fit: counts must be whole numbers >= 0 ({exc})") from None
    if len(weight) != n:
        raise InputError(f"ID3.fit: X has {n} rows but counts has {len(weight)}")
    if not (
        np.isfinite(weight).all() and (weight >= 0).all() and (weight == np.round(weight)).all()
    ):
        raise InputError("ID3.fit: counts must be whole numbers >= 0")
    if not weight.any():
        raise InputError("ID3.fit: counts are all 0; no record to grow the tree on")
    return weight


def _grow_weighted(
    codes: np.ndarray, cards: Sequence[int], target: np.ndarray, k: int, weight: np.ndarray
) -> _Tree:
    """Grow the tree of the module docstring's rule from weighted records, one level at a time.

    ``codes`` is a ``features × records`` code matrix, ``target`` the class codes (``0..k-1`` in
    sorted label order), ``weight`` the number of records each column of ``codes`` stands for.
    All nodes of a level are handled together: one weighted count over the (attribute, node,
    value, class) cells of the records off each attribute's most common value, the rest of
    each (node, class) being that value's (:class:`._id3_split.Sparse`).
    """
    n_feat = len(cards)
    card = np.asarray(cards, dtype=np.int64)
    weight = np.asarray(weight, dtype=np.float64)
    rows = np.arange(codes.shape[1])
    sparse = Sparse.of(codes, card, weight)  # (the cells that can split a node)
    node = np.zeros(len(rows), dtype=np.int64)  # position of each record's node in the level
    used = np.zeros((1, n_feat), dtype=bool)  # attributes split on above each node of the level
    attribute, majority, first_child, child = [], [], [], []
    n_nodes, n_child = 1, 0
    while len(used):
        nn = len(used)
        ys, ws = target[rows], weight[rows]
        # The (node, class) counts present, not an nn × k matrix (k may be large).
        node_class, of_node_class = number(node * k + ys, nn * k)
        count = np.bincount(of_node_class, weights=ws, minlength=len(node_class))
        owner, label = node_class // k, node_class % k
        most = np.zeros(nn)
        np.maximum.at(most, owner, count)
        first_most = np.full(nn, k, dtype=np.int64)  # ties: the class that sorts first
        top = count == most[owner]
        np.minimum.at(first_most, owner[top], label[top])
        majority.append(first_most)
        total = np.bincount(owner, weights=count, minlength=nn)
        splittable = (total >= 2) & (np.bincount(owner, minlength=nn) > 1)
        # H(class) is fixed at a node: the largest gain is the smallest H(class | A). Sums run
        # in another order than a node's own count matrix would give: the same gains up to
        # rounding (~1e-16), far inside the tie margin _GAIN_TIE.
        best = np.full(nn, -1, dtype=np.int64)
        best_cond = np.full(nn, np.inf)
        feature, at, values, cond = sparse.scores(
            rows, node, ys, ws, k, total, splittable[:, None] & ~used
        )
        bounds = [*np.flatnonzero(np.diff(feature, prepend=-1)).tolist(), len(feature)]
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):  # (one run per feature)
            nodes = at[a:b]
            better = (values[a:b] >= 2) & (cond[a:b] < best_cond[nodes] - _GAIN_TIE)
            best[nodes[better]] = feature[a]
            best_cond[nodes[better]] = cond[a:b][better]
        attribute.append(best)
        split = best >= 0
        offset = np.full(nn, -1, dtype=np.int64)
        widths = card[best[split]]
        offset[split] = n_child + np.cumsum(widths) - widths
        first_child.append(offset)
        # The children: one per (node, value) present among the node's records.
        at = np.flatnonzero(split[node])
        parent = node[at]
        value = codes[best[parent], rows[at]]
        pairs, inverse = number(parent * int(card.max()) + value, nn * int(card.max()))
        pair_parent, pair_value = pairs // int(card.max()), pairs % int(card.max())
        segment = np.full(int(widths.sum()), -1, dtype=np.int64)
        segment[offset[pair_parent] - n_child + pair_value] = n_nodes + np.arange(len(pairs))
        child.append(segment)
        n_nodes, n_child = n_nodes + len(pairs), n_child + len(segment)
        used = used[pair_parent]
        used[np.arange(len(pairs)), best[pair_parent]] = True
        rows, node = rows[at], inverse
    return _Tree(
        np.concatenate(attribute),
        np.concatenate(majority),
        np.concatenate(first_child),
        np.concatenate(child),
    )


class NodeCounts(Protocol):
    """What :meth:`ID3.from_counts` asks of the data at each node (``state`` is opaque)."""

    def root(self) -> Any:
        """The state of the root node (all records)."""

    def counts(self, state: Any, attrs: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Class counts at the node (length k) and, per attribute of ``attrs``, its
        value × class count matrix (``card × k``); counts may be estimates (floats)."""

    def children(self, state: Any, attribute: int, values: np.ndarray) -> list[Any]:
        """The states of the children for ``values`` of ``attribute`` (in that order)."""


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
        self._tree = _Tree(*(np.empty(0, dtype=np.int64) for _ in range(4)))

    @property
    def n_nodes(self) -> int:
        """Number of nodes of the fitted tree."""
        return len(self._tree.attribute)

    def fit(
        self,
        X: pd.DataFrame,  # noqa: N803
        y: pd.Series | Sequence[Any],
        counts: Sequence[int] | np.ndarray | None = None,
    ) -> ID3:
        """Grow the tree on categorical features ``X`` and class labels ``y``.

        Parameters
        ----------
        X : DataFrame
            Categorical features (every distinct value is a category).
        y : Series or sequence
            Class labels, one per row of ``X``.
        counts : sequence of whole numbers, optional
            Row ``i`` stands for ``counts[i]`` identical records (a frequency table): the tree
            is the one grown on the rows repeated that often (rows of count 0 are left out).
            ``None``: every row is one record.

        Raises
        ------
        InputError
            ``X`` not a non-empty DataFrame, ``y`` or ``counts`` of another length, ``counts``
            not whole numbers >= 0 or all 0, missing values.
        """
        if not isinstance(X, pd.DataFrame) or len(X) == 0 or X.shape[1] == 0:
            raise InputError("ID3.fit: X must be a DataFrame with at least one row and column")
        y = pd.Series(y) if not isinstance(y, pd.Series) else y
        if len(y) != len(X):
            raise InputError(f"ID3.fit: X has {len(X)} rows but y has {len(y)}")
        weight = _check_counts(counts, len(X))
        if weight is not None:
            X, y = X.iloc[weight > 0], y.iloc[weight > 0]  # noqa: N806
            weight = weight[weight > 0]
        self.features = list(X.columns)
        encoded = [factorize_column(X[c], c) for c in self.features]
        self._categories = [u for _, u in encoded]
        target, self.classes = _class_codes(y.reset_index(drop=True))
        cards = [len(u) for u in self._categories] + [len(self.classes)]
        cells, inverse = _distinct([c for c, _ in encoded] + [target], cards)
        per_cell = np.bincount(inverse, weights=weight, minlength=cells.shape[1])
        self._tree = _grow_weighted(cells[:-1], cards[:-1], cells[-1], len(self.classes), per_cell)
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
        tree = _TreeBuilder()
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
        self._tree = tree.build()

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
        return self.classes[self._tree.majority[self._tree.descend(codes)]]


# ---------------------------------------------------------------------------------- accuracy
def _check_folds(folds: Any, n: int) -> int:
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, numbers.Integral):
        raise InputError(f"folds must be a whole number >= 2, got {folds!r}")
    if not 2 <= int(folds) <= n:
        raise InputError(f"folds must be between 2 and the number of rows ({n:,}), got {folds}")
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


def _drawn_fold_counts(records: np.ndarray, folds: int, rng: RandomLike) -> np.ndarray:
    """Records per cell and fold (``len(records) × folds``) of a random assignment of the
    records to the folds of :func:`_fold_of` (sizes differing by at most one), drawn without
    the records: fold ``f`` takes a uniformly random subset of the records the earlier folds
    left, so its records per cell are multivariate hypergeometric."""
    gen = make_rng(rng)
    n = int(records.sum())
    ends = [-(-f * n // folds) for f in range(folds + 1)]  # fold f: positions ends[f]..ends[f+1]
    left = records.copy()
    per_fold = np.zeros((len(records), folds), dtype=np.int64)
    for f in range(folds - 1):
        taken = gen.multivariate_hypergeometric(left, ends[f + 1] - ends[f], method="marginals")
        per_fold[:, f] = taken
        left -= taken
    per_fold[:, folds - 1] = left
    return per_fold


def _spread_fold_counts(records: np.ndarray, folds: int, order: np.ndarray) -> np.ndarray:
    """Records per cell and fold (``len(records) × folds``) with each cell's records spread over
    the folds as evenly as they go: ``r // folds`` in every fold, and the ``r % folds`` left
    over in the next folds in turn, the cells taken in ``order`` (so that the folds' sizes
    differ by at most one). Nothing is drawn: the same records give the same folds."""
    extra = records % folds
    per_fold = np.repeat((records // folds)[:, None], folds, axis=1)
    ordered = extra[order]
    first = (np.cumsum(ordered) - ordered) % folds  # the fold each cell's first extra goes to
    fold = np.arange(folds)
    per_fold[order] += ((fold[None, :] - first[:, None]) % folds) < ordered[:, None]
    return per_fold


def _value_order(cells: np.ndarray, uniques: Sequence[np.ndarray]) -> np.ndarray:
    """The cells (columns of codes, one row per dimension) in the order of their values: by
    the rank of each dimension's value among its sorted values, the first dimension first."""
    ranked = [_label_rank(u)[c] for c, u in zip(cells, uniques, strict=True)]
    return np.lexsort(ranked[::-1])


def _encode(
    frame: pd.DataFrame, cols: list[Hashable]
) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """Codes (order of first appearance), number of distinct values and those values of each
    column."""
    encoded = [factorize_column(frame[c], c) for c in cols]
    uniques = [np.asarray(u, dtype=object) for _, u in encoded]
    return [c for c, _ in encoded], [len(u) for u in uniques], uniques


def _fold_counts(inverse: np.ndarray, n_cells: int, fold: np.ndarray, folds: int) -> np.ndarray:
    """Records per cell and fold (``n_cells × folds``); ``inverse`` is each record's cell."""
    return np.bincount(inverse * folds + fold, minlength=n_cells * folds).reshape(n_cells, folds)


def _merge(
    codes: list[np.ndarray], cards: list[int], per_fold: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct combinations of cells' ``codes`` and their records per fold (the sums of
    the cells' ``per_fold`` rows): a ``len(codes) × d`` code matrix and a ``d × folds`` table."""
    combos, which = _distinct(codes, cards)
    d = combos.shape[1]
    table = np.column_stack(
        [np.bincount(which, weights=column, minlength=d) for column in per_fold.T]
    )
    return combos, table.astype(np.int64)


def _cv_correct(
    combos: np.ndarray, cards: list[int], classes: np.ndarray, table: np.ndarray
) -> int:
    """Held-out records predicted correctly, summed over the folds (see :func:`_fold_hits`)."""
    return sum(_fold_hits(combos, cards, classes, table))


def _fold_hits(
    combos: np.ndarray, cards: list[int], classes: np.ndarray, table: np.ndarray
) -> Iterator[int]:
    """Held-out records predicted correctly in each fold, one fold after the other.

    ``combos`` are the distinct (features..., class) combinations (class codes index the sorted
    ``classes``) and ``table`` their records per fold. Each fold's tree grows on the
    combinations weighted by their records in the other folds, with the classes those hold
    ranked as :class:`ID3` ranks them, and predicts the fold's combinations.
    """
    features, target = combos[:-1], combos[-1]
    total = table.sum(axis=1)
    for f in range(table.shape[1]):
        train = np.flatnonzero(total > table[:, f])
        present = sorted_distinct(target[train])
        local = np.full(len(classes), -1, dtype=np.int64)  # -1: a class the fold never saw
        local[present] = _label_rank(classes[present])
        tree = _grow_weighted(
            features[:, train],
            cards,
            local[target[train]],
            len(present),
            (total - table[:, f])[train],
        )
        test = np.flatnonzero(table[:, f])
        predicted = tree.majority[tree.descend(features[:, test].T)]
        hit = predicted == local[target[test]]
        yield int(table[test[hit], f].sum())


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
    fold = _fold_of(len(frame), k, rng)
    codes, cards, _ = _encode(frame, cols)
    y, classes = _class_codes(frame[target])
    cells, inverse = _distinct([*codes, y], [*cards, len(classes)])
    per_fold = _fold_counts(inverse, cells.shape[1], fold, k)
    return _cv_correct(cells, cards, classes, per_fold) / len(frame)


def relative_accuracy(
    original: pd.DataFrame,
    released: pd.DataFrame | Release,
    features: Sequence[Hashable],
    target: Hashable,
    folds: int = 5,
    rng: RandomLike = None,
    counts: np.ndarray | None = None,
    spread: bool = False,
) -> float:
    """Cross-validated ID3 accuracy on a release relative to that on the original table.

    Both accuracies use the same folds and predict the original ``target`` labels; the release
    contributes only its feature columns (protocol and scope: module docstring). When each
    released feature is, record by record, a one-to-one relabelling of its original (a release
    that generalized nothing), the release's trees are the original's up to the labels and the
    answer is 1 without growing them; the original's folds are then grown only until one of
    them predicts a held-out record (the answer's condition).

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
    counts : (len(original),) int array, optional
        Records per row, when row ``i`` of ``original`` and of ``released`` is a distinct pair
        of an original record and its release, standing for ``counts[i]`` records (a frequency
        table). The records of each pair in each fold are drawn as a random assignment of the
        records to the folds would place them (one multivariate hypergeometric draw per fold):
        the accuracy has the same distribution as on the records themselves, in time
        proportional to the pairs.
    spread : bool, default False
        The records of each distinct (original features, released features, class) spread
        over the folds as evenly as they go (divided among the folds, what is left over given
        to the next folds in turn, taken in the order of their values) instead of drawn.
        Nothing is drawn (``rng`` is not used): the same records, or the same counted pairs,
        give the same answer in any row order; this is what a release's report shows.

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
    weights = check_counts(counts, len(original))
    n = len(original) if weights is None else int(weights.sum())
    k = _check_folds(folds, n)
    y, classes = _class_codes(original[target].reset_index(drop=True))
    before, before_cards, before_values = _encode(original.reset_index(drop=True), cols)
    after, after_cards, after_values = _encode(released.reset_index(drop=True), cols)
    # One pass over the rows: the distinct (original features, released features, class).
    cells, inverse = _distinct([*before, *after, y], [*before_cards, *after_cards, len(classes)])
    if weights is None and not spread:
        per_fold = _fold_counts(inverse, cells.shape[1], _fold_of(n, k, rng), k)
    else:
        records = np.bincount(inverse, weights=weights, minlength=cells.shape[1]).astype(np.int64)
        if spread:
            values = [*before_values, *after_values, classes]
            per_fold = _spread_fold_counts(records, k, _value_order(cells, values))
        else:
            per_fold = _drawn_fold_counts(records, k, rng)
    p = len(cols)
    combos, table = _merge([*cells[:p], cells[-1]], [*before_cards, len(classes)], per_fold)
    hits = _fold_hits(combos, before_cards, classes, table)
    if _relabelled(cells[:p], cells[p : 2 * p], before_cards, after_cards):
        # The release's trees are the original's up to the labels, so the ratio is 1 once the
        # original predicts a held-out record: its folds are grown until one does.
        if not any(hits):
            raise InputError("ID3 predicts no held-out row of the original correctly")
        return 1.0
    before = sum(hits) / n
    if before == 0:
        raise InputError("ID3 predicts no held-out row of the original correctly")
    combos, table = _merge([*cells[p : 2 * p], cells[-1]], [*after_cards, len(classes)], per_fold)
    return _cv_correct(combos, after_cards, classes, table) / n / before


def _relabelled(
    before: np.ndarray, after: np.ndarray, before_cards: Sequence[int], after_cards: Sequence[int]
) -> bool:
    """Whether each released feature is, row by row of the cells, a one-to-one relabelling of
    its original (``before`` and ``after``: one row of codes per feature): a release that
    generalized nothing. ID3 then grows the same trees on both, up to the values' labels (a
    split chooses an attribute by its gain and a class by its label; neither depends on how an
    attribute's values are named), and predicts the same records."""
    for b, a, nb, na in zip(before, after, before_cards, after_cards, strict=True):
        pairs = _distinct([b, a], [nb, na])[0].shape[1]
        if (
            not pairs
            == np.count_nonzero(np.bincount(b, minlength=nb))
            == np.count_nonzero(np.bincount(a, minlength=na))
        ):
            return False
    return True
