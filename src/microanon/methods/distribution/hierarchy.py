"""Privacy-annotated hierarchies over a numeric sensitive domain.

The privacy-annotated hierarchies of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1):958–969, 2009.

A privacy-annotated hierarchy is a generalization tree of the sensitive attribute whose edges carry
integer weights in the ratio of the target probabilities of the children. It is stored here by its
*leaf* weights: the weight of an edge ``(N, C)`` is the sum of the leaf weights under ``C``, so
sibling ratios are ``P(x ∈ C1) : P(x ∈ C2)`` and ``P(x = v | x ∈ N) = w_v / Σ_{u ∈ N} w_u``.

The tree is a core :class:`~microanon.core.hierarchy.Hierarchy` whose leaves are the sorted domain
values; :class:`AnnotatedHierarchy` adds the integer weights and takes the tree's arrays from
:class:`~microanon.core.hierarchy.TreeArrays` in breadth-first order, the order MinSumOfRange
works in: the root is node 0, every node covers a contiguous range ``lo .. hi-1`` of the sorted
domain values, the nodes of a level are consecutive and so are the children of a node, which
partition its range in order. Leaves are single values; inner nodes have at least two children.

Non-integer targets (normal, Zipf, a float pmf) are scaled to integers by ``scale`` and rounded;
the release is then P-private for the rounded distribution, and the scale is recorded.

A *categorical* sensitive attribute has no order. Its hierarchy is any tree over the categories
(the leaf order is only a storage order, so every node still covers a run ``lo .. hi-1`` of
leaves), and, following the paper's footnote on categorical attributes, the range of a set of
values is the number of distinct values it holds: ``range(N) = hi - lo``, 1 for a single category.
Normal and Zipf targets need an order and are refused for categorical domains.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ...core.errors import HierarchyError, InputError
from ...core.factorize import sorted_distinct
from ...core.hierarchy import SUPPRESSED, Hierarchy, TreeArrays, value_key

__all__ = [
    "AnnotatedHierarchy",
    "DEFAULT_SCALE",
    "rounded_weights",
    "sensitive_domain",
    "target_weights",
]

#: Leaf weights of a rounded hierarchy must stay exact integers in float64.
_EXACT_FLOAT = 1 << 53
#: Scale of the probabilities fed to the split rounding.
_PROBABILITY_SCALE = 1 << 40

#: Integer scale for non-integer target probabilities.
DEFAULT_SCALE = 1_000_000

_TARGETS = ("empirical", "uniform", "normal", "zipf", "pmf")
#: How far from 1 the probabilities of a target pmf may sum (rounding in a config's decimals).
_PMF_SUM = 1e-6


def sensitive_domain(values: np.ndarray, domain: Any = None) -> np.ndarray:
    """The sorted domain of a numeric sensitive attribute.

    Parameters
    ----------
    values : array of numbers
        The sensitive values of the table (or of one group).
    domain : None, "integer" or (low, high)
        ``None``: the sorted distinct values; ``"integer"``: every integer from the smallest to
        the largest value; ``(low, high)``: every integer of that closed range.

    Returns
    -------
    numpy.ndarray
        Sorted distinct domain values.

    Raises
    ------
    InputError
        Non-finite values, a bad ``domain`` or values outside the given range.
    """
    values = np.asarray(values)
    if values.size == 0:
        raise InputError("the sensitive column has no values")
    if not np.issubdtype(values.dtype, np.number) or not np.all(np.isfinite(values)):
        raise InputError("the sensitive column must hold finite numbers for this method")
    if domain is None:
        return sorted_distinct(values)
    if isinstance(domain, str) and domain == "integer":
        low, high = values.min(), values.max()
    elif isinstance(domain, Sequence) and not isinstance(domain, str) and len(domain) == 2:
        low, high = domain
    else:
        raise InputError(f"domain: expected None, 'integer' or (low, high), got {domain!r}")
    if np.any(values != np.round(values)):  # (first: with 'integer' the ends are the values)
        raise InputError("domain: an integer domain needs whole-number sensitive values")
    if not all(isinstance(x, numbers.Real) and float(x) == int(x) for x in (low, high)):
        raise InputError(f"domain: an integer domain needs whole-number ends, got {domain!r}")
    low, high = int(low), int(high)
    if low > high or values.min() < low or values.max() > high:
        raise InputError(
            f"domain: [{low}, {high}] must contain every sensitive value "
            f"(found {values.min()} .. {values.max()})"
        )
    return np.arange(low, high + 1, dtype=np.int64)


def _scaled(prob: np.ndarray, scale: int | None) -> np.ndarray:
    scale = DEFAULT_SCALE if scale is None else scale
    if not isinstance(scale, numbers.Integral) or scale < 1:
        raise InputError(f"scale: expected a positive integer, got {scale!r}")
    weights = np.rint(prob / prob.sum() * scale).astype(np.int64)
    if weights.sum() == 0:
        raise InputError(f"scale {scale} rounds every target probability to 0; raise it")
    return weights


def target_weights(
    domain: np.ndarray,
    target: Any,
    values: np.ndarray | None = None,
    scale: int | None = None,
    categorical: bool = False,
) -> tuple[np.ndarray, int | None, dict[str, Any]]:
    """Integer leaf weights encoding a target distribution over ``domain``.

    Parameters
    ----------
    domain : array
        Sorted distinct domain values.
    target : str or mapping
        ``"empirical"`` (the counts of ``values``; exact unless ``scale`` is given), ``"uniform"``,
        ``{"normal": {"mean": m, "variance": v}}`` (mean defaults to the centre of the domain;
        the density at each domain value), ``{"zipf": {"s": s}}`` (``P(rank i) ∝ i^-s``, rank 1 =
        smallest value) or ``{"pmf": {value: probability}}`` (values absent from the mapping get
        0; probabilities sum to 1, or are whole numbers, used as exact weights).
    values : array, optional
        The data the empirical target is taken from.
    scale : int, optional
        Integer scale: weights are the probabilities times ``scale``, rounded. Default: exact
        counts for the empirical target, :data:`DEFAULT_SCALE` for non-integer targets. A scale
        near the group size gives the allocation room to follow the data (coprime weights much
        larger than a group force everything to the root).

    Returns
    -------
    weights : numpy.ndarray of int64
    scale : int or None
        The scale applied (``None`` when the weights are exact).
    description : dict
        The target as recorded in release metadata.

    Raises
    ------
    InputError
        Unknown target, bad parameters, or a pmf naming values outside the domain.
    """
    name, params = _target_spec(target)
    n = len(domain)
    if name == "uniform":
        return np.ones(n, dtype=np.int64), None, {"name": "uniform"}
    if name == "empirical":
        if values is None:
            raise InputError("target 'empirical' needs the data values")
        if categorical:
            position = {v: i for i, v in enumerate(domain.tolist())}
            codes = np.asarray([position[v] for v in np.asarray(values).tolist()], np.int64)
        else:
            codes = np.searchsorted(domain, values)
        counts = np.bincount(codes, minlength=n).astype(np.int64)
        if scale is None or scale == counts.sum():
            return counts, None, {"name": "empirical"}
        return _scaled(counts.astype(float), scale), scale, {"name": "empirical"}
    if categorical and name in ("normal", "zipf"):
        raise InputError(
            f"target {name}: needs an ordered numeric sensitive attribute; use empirical, "
            "uniform or pmf for a categorical one"
        )
    if name == "normal":
        mean = float(params.get("mean", (domain[0] + domain[-1]) / 2))
        variance = params.get("variance")
        if not isinstance(variance, numbers.Real) or not variance > 0:
            raise InputError(f"target normal: variance must be a positive number, got {variance!r}")
        z = (domain.astype(float) - mean) ** 2 / (2 * float(variance))
        prob = np.exp(-(z - z.min()))
        desc = {"name": "normal", "mean": mean, "variance": float(variance)}
        return _scaled(prob, scale), scale or DEFAULT_SCALE, desc
    if name == "zipf":
        s = params.get("s")
        if not isinstance(s, numbers.Real) or s < 0:
            raise InputError(f"target zipf: s must be a number >= 0, got {s!r}")
        prob = np.arange(1, n + 1, dtype=float) ** (-float(s))
        return _scaled(prob, scale), scale or DEFAULT_SCALE, {"name": "zipf", "s": float(s)}
    # pmf
    if not isinstance(params, Mapping) or not params:
        raise InputError("target pmf: expected a non-empty mapping value -> probability")
    probs = np.asarray(list(params.values()), dtype=float)
    if np.any(~np.isfinite(probs)) or np.any(probs < 0) or probs.sum() <= 0:
        raise InputError("target pmf: probabilities must be non-negative with a positive sum")
    whole = bool(np.all(probs == np.round(probs)))
    if not whole and abs(probs.sum() - 1.0) > _PMF_SUM:
        raise InputError(
            f"target pmf: the probabilities sum to {probs.sum():.6g}, not 1 (a value left out "
            "has probability 0); give whole numbers to have them taken as weights"
        )
    if categorical:
        position = {v: i for i, v in enumerate(domain.tolist())}
        missing = [k for k in params if k not in position]
        if missing:
            raise InputError(f"target pmf: value {missing[0]!r} is not in the sensitive domain")
        pos = np.array([position[k] for k in params], dtype=np.int64)
    else:
        keys = np.asarray(list(params.keys()), dtype=float)
        pos = np.searchsorted(domain, keys)
        bad = (pos >= n) | (domain[np.minimum(pos, n - 1)] != keys)
        if bad.any():
            raise InputError(f"target pmf: value {keys[bad][0]:g} is not in the sensitive domain")
    prob = np.zeros(n)
    prob[pos] = probs
    desc = {"name": "pmf", "pmf": {str(k): float(p) for k, p in params.items()}}
    if whole:
        return prob.astype(np.int64), None, desc
    return _scaled(prob, scale), scale or DEFAULT_SCALE, desc


def _target_spec(target: Any) -> tuple[str, Any]:
    if isinstance(target, str):
        name, params = target, {}
    elif isinstance(target, Mapping) and len(target) == 1:
        ((name, params),) = target.items()
    else:
        raise InputError(
            f"target: expected one of {', '.join(_TARGETS)} or a one-key mapping such as "
            f"{{'normal': {{'variance': 100}}}}, got {target!r}"
        )
    if name not in _TARGETS:
        raise InputError(f"target: unknown target {name!r}; choose one of {', '.join(_TARGETS)}")
    if name != "pmf" and not isinstance(params, Mapping):
        raise InputError(f"target {name}: parameters must be a mapping, got {params!r}")
    return name, params if params is not None else {}


def _balanced_nodes(n_leaves: int, arity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Breadth-first (parent, lo, hi) of a balanced ``arity``-ary tree over ``n_leaves`` leaves.

    Every node of more than one leaf is split into ``min(arity, size)`` consecutive parts whose
    sizes differ by at most one; the tree is built one level at a time.
    """
    parent, lo, hi = [np.array([-1])], [np.array([0])], [np.array([n_leaves])]
    ids = np.array([0])
    while True:
        size = hi[-1] - lo[-1]
        split = size > 1
        if not split.any():
            break
        start, size, owner = lo[-1][split], size[split], ids[split]
        parts = np.minimum(arity, size)
        which = np.repeat(np.arange(len(parts)), parts)
        j = np.arange(int(parts.sum())) - np.repeat(np.cumsum(parts) - parts, parts)
        lo.append(start[which] + (j * size[which]) // parts[which])
        hi.append(start[which] + ((j + 1) * size[which]) // parts[which])
        parent.append(owner[which])
        ids = int(ids[-1]) + 1 + np.arange(len(j))
    return (
        np.concatenate(parent).astype(np.int64),
        np.concatenate(lo).astype(np.int64),
        np.concatenate(hi).astype(np.int64),
    )


def _check_domain(values: Any, categorical: bool = False) -> np.ndarray:
    """The domain as an array: non-empty, 1-d, numeric and increasing (categorical: distinct)."""
    if categorical:
        labels = list(values)
        out = np.empty(len(labels), dtype=object)
        out[:] = labels
        if not labels or len(set(labels)) != len(labels):
            raise HierarchyError("a categorical annotated hierarchy needs distinct categories")
        return out
    values = np.asarray(values)
    if values.size == 0 or values.ndim != 1 or not np.issubdtype(values.dtype, np.number):
        raise HierarchyError("an annotated hierarchy needs a non-empty 1-d numeric domain")
    if np.any(np.diff(values) <= 0):
        raise HierarchyError("the domain values of an annotated hierarchy must be increasing")
    return values


def _check_weights(weights: Any, n: int) -> np.ndarray:
    """The leaf weights as int64: one non-negative whole number per value, positive sum."""
    weights = np.asarray(weights)
    if weights.shape != (n,) or np.any(weights < 0) or np.any(weights != np.round(weights)):
        raise HierarchyError("weights: one non-negative whole number per domain value")
    weights = weights.astype(np.int64)
    if weights.sum() == 0:
        raise HierarchyError("weights: the target distribution has no mass (all weights 0)")
    return weights


def _check_tree(n: int, parent: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Raise :class:`HierarchyError` unless the arrays are a breadth-first tree over ``n`` values.

    Node 0 is the root and covers every value, parents precede their children and every inner
    node's children are consecutive nodes splitting its values into at least two consecutive
    parts, down to single values.
    """
    m = len(parent)
    if not (len(lo) == len(hi) == m) or m == 0:
        raise HierarchyError("parent, lo and hi must have one entry per node")
    if parent[0] != -1 or lo[0] != 0 or hi[0] != n or np.any(parent[1:] < 0):
        raise HierarchyError("node 0 must be the only root and cover the whole domain")
    if np.any(parent[1:] >= np.arange(1, m)) or np.any(np.diff(parent[1:]) < 0):
        raise HierarchyError("nodes must be numbered breadth-first (children after parents)")
    if np.any(lo >= hi):
        raise HierarchyError("every node must cover at least one value")
    count = np.bincount(parent[1:], minlength=m)
    kids, up = np.arange(1, m), parent[1:]
    first = np.ones(m - 1, dtype=bool)
    first[1:] = up[1:] != up[:-1]
    last = np.ones(m - 1, dtype=bool)
    last[:-1] = first[1:]
    gap = np.where(first, lo[kids] != lo[up], lo[kids] != hi[kids - 1])
    bad = np.zeros(m, dtype=bool)
    bad[up[gap | (last & (hi[kids] != hi[up]))]] = True
    bad |= count == 1
    if bad.any():
        raise HierarchyError(
            f"node {np.flatnonzero(bad)[0]}: its children must split its values into >= 2 "
            "consecutive parts"
        )
    leaves = count == 0
    if np.any(hi[leaves] - lo[leaves] != 1):
        raise HierarchyError("every leaf must be a single value")


def _tree_hierarchy(
    values: np.ndarray,
    parent: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray | None = None,
) -> Hierarchy:
    """The core hierarchy of a checked breadth-first tree over sorted numeric values.

    Leaves are labelled by their values, inner nodes by the closed range ``"[low, high]"`` of
    their values and the root by ``"*"``; the node ids are the breadth-first node numbers and
    the leaf weights ``weights`` (default 1).
    """
    vals = values.tolist()
    keys = [value_key(v) for v in vals]
    inner = np.bincount(parent[1:], minlength=len(parent)) > 0
    labels: list[Any] = [
        f"[{keys[a]}, {keys[b - 1]}]" if branch else vals[a]
        for a, b, branch in zip(lo.tolist(), hi.tolist(), inner.tolist(), strict=True)
    ]
    if inner[0]:
        labels[0] = SUPPRESSED
    return Hierarchy.from_parents(
        labels, parent, None if weights is None else weights.astype(float)
    )


def rounded_weights(h: TreeArrays, mass: np.ndarray, q: int) -> np.ndarray:
    """Integer leaf weights whose split at every node is ``mass``'s split rounded to ``1/q``.

    Parameters
    ----------
    h : TreeArrays
        The tree, in any node numbering (an :class:`AnnotatedHierarchy`'s own weights are
        ignored).
    mass : array of float
        Non-negative target mass of every domain value, positive sum.
    q : int
        The children's weights of every node with mass sum to ``q`` (largest remainders; a
        child without mass gets 0).

    Returns
    -------
    numpy.ndarray of int64
        Leaf weights by leaf position; the weight under a node of depth ``d`` is ``q^(D - d)``
        times the product of the rounded numerators on its path, so sibling ratios are the
        rounded splits exactly.
    """
    cum = np.concatenate([[0.0], np.cumsum(np.asarray(mass, dtype=float))])
    node_mass = cum[h.hi] - cum[h.lo]
    depth = h.depth
    top = int(depth.max())
    if q**top >= _EXACT_FLOAT:
        raise InputError(
            f"resolution: {q}^{top} (resolution to the power of the hierarchy's depth) "
            "exceeds 2**53; use a smaller resolution"
        )
    path = np.zeros(h.n_nodes, dtype=np.int64)
    path[0] = 1
    for d in range(1, top + 1):
        kids = np.flatnonzero(depth == d)
        par = h.parent[kids]
        alive = node_mass[par] > 0
        share = np.where(alive, q * node_mass[kids] / np.where(alive, node_mass[par], 1), 0.0)
        floor = np.floor(share)
        frac = np.where(node_mass[kids] > 0, share - floor, -1.0)
        deficit = np.where(alive, q - np.bincount(par, weights=floor, minlength=h.n_nodes)[par], 0)
        order = np.lexsort((kids, -frac, par))
        rank = np.empty(len(kids), dtype=np.int64)
        sorted_par = par[order]
        rank[order] = np.arange(len(kids)) - np.searchsorted(sorted_par, sorted_par)
        numerator = floor.astype(np.int64) + (rank < np.rint(deficit)).astype(np.int64)
        path[kids] = path[par] * numerator
    leaves = h.leaf_node
    return path[leaves] * q ** (top - depth[leaves])


class AnnotatedHierarchy(TreeArrays):
    """A privacy-annotated hierarchy: a core hierarchy over sorted numbers with integer weights.

    The tree is a core :class:`~microanon.core.hierarchy.Hierarchy` (``hierarchy``) whose leaves
    are the domain values in increasing order and whose inner nodes have at least two children;
    its arrays (``parent``, ``lo``, ``hi``, ``depth``, ``child_start``, ``child_count``,
    ``leaf_node``, ...) are those of :class:`~microanon.core.hierarchy.TreeArrays` in
    breadth-first order, the order MinSumOfRange works in. This class adds the annotation: the
    integer target weights and the derived per-node weights.

    Build one with :meth:`balanced` or :meth:`from_hierarchy`. The constructor takes the arrays of
    :meth:`to_dict` (as stored in release metadata), checks them and builds the core hierarchy.

    Parameters
    ----------
    values : array of numbers
        Sorted distinct domain values (the leaves, in order).
    weights : array of whole numbers
        Target weight of each value.
    parent, lo, hi : array of int
        Per node, breadth-first (root 0): parent (``-1`` for the root) and leaf range
        ``lo..hi-1``.
    target : dict, optional
        Description of the target distribution (for metadata).
    scale : int, optional
        The integer scale applied to non-integer target probabilities.
    categorical : bool
        The values are unordered categories (any distinct labels, in leaf order); the range of
        a node is then its number of values.

    Attributes
    ----------
    hierarchy : Hierarchy
        The tree; its leaf weights are ``weights`` as floats, its labels the values, ``"[low,
        high]"`` ranges and the root ``"*"`` for hierarchies built here.
    values : numpy.ndarray
        Sorted distinct domain values (the leaves, in order).
    weights : numpy.ndarray of int64
        Target weight of each value; ``P(v) = weights[v] / weights.sum()``.
    parent, lo, hi : numpy.ndarray of int64
        Per node (breadth-first, root 0): parent (``-1`` for the root) and leaf range ``lo..hi-1``.
    target : dict
        Description of the target distribution (for metadata).
    scale : int or None
        The integer scale applied to non-integer target probabilities.
    categorical : bool
        Whether the values are unordered categories.

    Raises
    ------
    HierarchyError
        If the domain is not increasing and numeric (or, categorical, not distinct), the
        weights are not whole non-negative numbers with a positive sum, or the arrays are not
        such a tree.
    """

    values: np.ndarray
    weights: np.ndarray
    target: dict[str, Any]
    scale: int | None
    categorical: bool

    def __init__(
        self,
        values: np.ndarray | Sequence[float],
        weights: np.ndarray | Sequence[int],
        parent: np.ndarray | Sequence[int],
        lo: np.ndarray | Sequence[int],
        hi: np.ndarray | Sequence[int],
        target: Mapping[str, Any] | None = None,
        scale: int | None = None,
        categorical: bool = False,
    ) -> None:
        values = _check_domain(values, categorical)
        weights = _check_weights(weights, len(values))
        parent, lo, hi = (np.asarray(a, dtype=np.int64) for a in (parent, lo, hi))
        _check_tree(len(values), parent, lo, hi)
        tree = _tree_hierarchy(values, parent, lo, hi, weights)
        self._annotate(tree, values, weights, target, scale, categorical)

    def _annotate(
        self,
        hierarchy: Hierarchy,
        values: np.ndarray,
        weights: np.ndarray,
        target: Mapping[str, Any] | None,
        scale: int | None,
        categorical: bool = False,
    ) -> None:
        """Set the tree arrays and the annotation (``values``: the leaves; both checked)."""
        if not np.array_equal(hierarchy.weights, weights):
            hierarchy = hierarchy.with_weights(weights.astype(float))
        super().__init__(hierarchy, order="breadth_first")
        chain = np.flatnonzero(self.child_count == 1)
        if chain.size:
            raise HierarchyError(
                f"node {chain[0]}: its children must split its values into >= 2 consecutive parts"
            )
        self.values = values
        self.weights = weights
        self.target = dict(target or {})
        self.scale = scale
        self.categorical = bool(categorical)

    @classmethod
    def _of(
        cls,
        hierarchy: Hierarchy,
        values: np.ndarray,
        weights: np.ndarray,
        target: Mapping[str, Any] | None,
        scale: int | None,
        categorical: bool = False,
    ) -> AnnotatedHierarchy:
        """Annotate ``hierarchy``, whose leaves are ``values`` (both checked)."""
        self = cls.__new__(cls)
        self._annotate(hierarchy, values, weights, target, scale, categorical)
        return self

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_hierarchy(
        cls,
        hierarchy: Hierarchy,
        weights: np.ndarray | Sequence[int] | None = None,
        target: Mapping[str, Any] | None = None,
        scale: int | None = None,
        categorical: bool = False,
    ) -> AnnotatedHierarchy:
        """Annotate a core hierarchy whose leaves are increasing numbers (or categories).

        Parameters
        ----------
        hierarchy : Hierarchy
            The tree: leaves numeric and increasing in leaf order (categorical: any distinct
            labels), every inner node with at least two children.
        weights : array of whole numbers, optional
            Target weight of each leaf (default: the hierarchy's leaf weights, which must then
            be whole numbers). Given weights replace the hierarchy's.
        target : dict, optional
            Description of the target distribution (for metadata).
        scale : int, optional
            The integer scale applied to non-integer target probabilities.
        categorical : bool
            The leaves are unordered categories; a node's range is its number of leaves.

        Returns
        -------
        AnnotatedHierarchy
            Whose ``hierarchy`` is ``hierarchy`` with the weights as its leaf weights.

        Raises
        ------
        HierarchyError
            Non-numeric or non-increasing leaves, bad weights, or an inner node with one child.

        Examples
        --------
        >>> from microanon.core import Hierarchy
        >>> h = Hierarchy.from_nested({"*": {"low": [30, 40], "high": [50, 60]}})
        >>> a = AnnotatedHierarchy.from_hierarchy(h, [1, 2, 2, 1])
        >>> a.parent.tolist(), a.node_weight.tolist()
        ([-1, 0, 0, 1, 1, 2, 2], [6, 3, 3, 1, 2, 2, 1])
        """
        if not isinstance(hierarchy, Hierarchy):
            raise InputError(f"expected a Hierarchy, got {type(hierarchy).__name__}")
        values = _check_domain(hierarchy.leaves, categorical)
        weights = _check_weights(hierarchy.weights if weights is None else weights, len(values))
        return cls._of(hierarchy, values, weights, target, scale, categorical)

    @classmethod
    def balanced(
        cls,
        values: Sequence[float] | np.ndarray,
        *,
        arity: int = 2,
        target: Any = "uniform",
        data: np.ndarray | None = None,
        scale: int | None = None,
        resolution: int | None = None,
        categorical: bool = False,
    ) -> AnnotatedHierarchy:
        """A balanced ``arity``-ary hierarchy over sorted domain values with a target.

        The tree splits the domain top-down into ``arity`` consecutive parts whose sizes differ
        by at most one, down to single values; it is built as a core hierarchy and annotated.

        Parameters
        ----------
        values : array
            The domain (sorted distinct values; see :func:`sensitive_domain`).
        arity : int
            Children per inner node (2 = binary; parts differ in size by at most one).
        target, data, scale
            See :func:`target_weights`; ``data`` feeds the empirical target.
        resolution : int, optional
            Instead of scaling leaf probabilities, round the target's split at every inner node
            to whole numbers summing to ``resolution`` (largest remainders;
            :func:`rounded_weights`). Siblings' reduced weights then sum to at most
            ``resolution``, so small groups can follow the target closely; the release is
            P-private for the rounded target. Exclusive with ``scale``.
        categorical : bool
            The values are unordered categories (given in the leaf order wanted, distinct); a
            node's range is then its number of values.

        Returns
        -------
        AnnotatedHierarchy

        Examples
        --------
        >>> h = AnnotatedHierarchy.balanced([30, 40, 50, 60])
        >>> h.lo.tolist(), h.hi.tolist()
        ([0, 0, 2, 0, 1, 2, 3], [4, 2, 4, 1, 2, 3, 4])
        >>> h.hierarchy.level_labels(1)
        ['[30, 40]', '[50, 60]']
        """
        if isinstance(arity, bool) or not isinstance(arity, numbers.Integral) or arity < 2:
            raise InputError(f"arity: expected a whole number >= 2, got {arity!r}")
        if categorical:
            domain = _check_domain(values, True)
        else:
            domain = np.asarray(values)
            if domain.ndim != 1 or domain.size == 0:
                raise InputError("values: the domain must be a non-empty 1-d array")
            if np.any(np.diff(domain) <= 0):
                domain = np.unique(domain)
        if resolution is None:
            weights, used_scale, desc = target_weights(domain, target, data, scale, categorical)
            domain = _check_domain(domain, categorical)
            weights = _check_weights(weights, len(domain))
            tree = _tree_hierarchy(domain, *_balanced_nodes(len(domain), int(arity)), weights)
            return cls._of(tree, domain, weights, desc, used_scale, categorical)
        if scale is not None:
            raise InputError("give either scale or resolution, not both")
        if isinstance(resolution, bool) or not isinstance(resolution, numbers.Integral):
            raise InputError(f"resolution: expected a whole number >= 2, got {resolution!r}")
        if resolution < 2:
            raise InputError(f"resolution: expected a whole number >= 2, got {resolution!r}")
        mass, _, desc = target_weights(domain, target, data, _PROBABILITY_SCALE, categorical)
        domain = _check_domain(domain, categorical)
        tree = _tree_hierarchy(domain, *_balanced_nodes(len(domain), int(arity)))
        weights = rounded_weights(TreeArrays(tree, "breadth_first"), mass, int(resolution))
        weights = _check_weights(weights, len(domain))
        desc = {**desc, "resolution": int(resolution)}
        return cls._of(tree, domain, weights, desc, None, categorical)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (as stored in release metadata): the arrays, the target, and
        ``categorical: true`` for a categorical domain."""
        out = {
            "values": self.values.tolist(),
            "weights": self.weights.tolist(),
            "parent": self.parent.tolist(),
            "lo": self.lo.tolist(),
            "hi": self.hi.tolist(),
            "target": dict(self.target),
            "scale": self.scale,
        }
        if self.categorical:
            out["categorical"] = True
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AnnotatedHierarchy:
        """Inverse of :meth:`to_dict`."""
        categorical = bool(d.get("categorical", False))
        try:
            return cls(
                list(d["values"]) if categorical else np.asarray(d["values"]),
                np.asarray(d["weights"]),
                d["parent"],
                d["lo"],
                d["hi"],
                dict(d.get("target", {})),
                d.get("scale"),
                categorical,
            )
        except KeyError as exc:
            raise HierarchyError(f"annotated hierarchy: missing key {exc}") from None

    def __repr__(self) -> str:
        name = self.target.get("name", "?")
        return (
            f"<AnnotatedHierarchy: {len(self.values)} values, {self.n_nodes} nodes, target {name}>"
        )

    # -- derived weights ----------------------------------------------------------------------

    @cached_property
    def node_weight(self) -> np.ndarray:
        """Total target weight under every node."""
        cw = np.concatenate([[0], np.cumsum(self.weights)])
        return cw[self.hi] - cw[self.lo]

    @cached_property
    def reduced_weight(self) -> np.ndarray:
        """Edge weight of each node divided by the gcd of its siblings' weights (root: 1)."""
        w = self.node_weight
        out = np.ones(self.n_nodes, dtype=np.int64)
        start, count = self.child_start, self.child_count
        inner = np.flatnonzero(count)
        if inner.size:
            # The children blocks of the inner nodes are consecutive and cover nodes 1..m-1.
            g = np.gcd.reduceat(w[1:], start[inner] - 1)
            g_child = np.repeat(g, count[inner])
            out[1:] = np.where(g_child > 0, w[1:] // np.maximum(g_child, 1), 0)
        return out

    @cached_property
    def unit(self) -> np.ndarray:
        """Sum of the children's reduced weights per node (0 for leaves)."""
        start, count = self.child_start, self.child_count
        unit = np.zeros(self.n_nodes, dtype=np.int64)
        inner = np.flatnonzero(count)
        if inner.size:
            unit[inner] = np.add.reduceat(self.reduced_weight[1:], start[inner] - 1)
        return unit

    @cached_property
    def node_range(self) -> np.ndarray:
        """``max - min`` of the values under every node; categorical: the number of values."""
        if self.categorical:
            return (self.hi - self.lo).astype(float)
        v = self.values.astype(float)
        return v[self.hi - 1] - v[self.lo]

    @cached_property
    def low(self) -> np.ndarray:
        """Smallest value under every node."""
        return self.values[self.lo]

    @cached_property
    def high(self) -> np.ndarray:
        """Largest value under every node."""
        return self.values[self.hi - 1]

    def leaf_index(self, values: np.ndarray, column: str = "sensitive value") -> np.ndarray:
        """Leaf position of each value (as :meth:`Hierarchy.leaf_index`, by binary search).

        Raises
        ------
        InputError
            A value is not in the domain (naming it).
        """
        values = np.asarray(values)
        if self.categorical:
            return self._category_index(values, column)
        idx = np.searchsorted(self.values, values)
        idx_c = np.minimum(idx, len(self.values) - 1)
        bad = (idx >= len(self.values)) | (self.values[idx_c] != values)
        if bad.any():
            raise InputError(
                f"{column} {values[bad][0]!r} is not in the domain of the annotated hierarchy "
                f"({self.values[0]} .. {self.values[-1]}, {len(self.values)} values)"
            )
        return idx_c

    def _category_index(self, values: np.ndarray, column: str) -> np.ndarray:
        position = {v: i for i, v in enumerate(self.values.tolist())}
        flat = values.ravel().tolist()
        missing = [v for v in flat if v not in position]
        if missing:
            raise InputError(
                f"{column} {missing[0]!r} is not in the domain of the annotated hierarchy "
                f"({len(self.values)} categories)"
            )
        return np.asarray([position[v] for v in flat], dtype=np.int64).reshape(values.shape)

    def subtree_counts(self, leaf_counts: np.ndarray) -> np.ndarray:
        """Number of values under every node, from per-leaf counts (last axis = leaves)."""
        leaf_counts = np.asarray(leaf_counts)
        pad = [(0, 0)] * (leaf_counts.ndim - 1) + [(1, 0)]
        cs = np.pad(np.cumsum(leaf_counts, axis=-1), pad)
        return cs[..., self.hi] - cs[..., self.lo]
