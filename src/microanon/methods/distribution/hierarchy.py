"""Privacy-annotated hierarchies over a numeric sensitive domain.

The privacy-annotated hierarchies of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1):958–969, 2009.

A privacy-annotated hierarchy is a generalization tree of the sensitive attribute whose edges carry
integer weights in the ratio of the target probabilities of the children. It is stored here by its
*leaf* weights: the weight of an edge ``(N, C)`` is the sum of the leaf weights under ``C``, so
sibling ratios are ``P(x ∈ C1) : P(x ∈ C2)`` and ``P(x = v | x ∈ N) = w_v / Σ_{u ∈ N} w_u``.

Nodes are numbered breadth-first (the root is node 0) and every node covers a contiguous range
``lo .. hi-1`` of the sorted domain values; the children of a node are consecutive node numbers
and partition its range in order. Leaves are single values.

Non-integer targets (normal, Zipf, a float pmf) are scaled to integers by ``scale`` and rounded;
the release is then P-private for the rounded distribution, and the scale is recorded.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...core.errors import HierarchyError, InputError

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
        return np.unique(values)
    if isinstance(domain, str) and domain == "integer":
        low, high = values.min(), values.max()
    elif isinstance(domain, Sequence) and not isinstance(domain, str) and len(domain) == 2:
        low, high = domain
    else:
        raise InputError(f"domain: expected None, 'integer' or (low, high), got {domain!r}")
    if not all(isinstance(x, numbers.Real) and float(x) == int(x) for x in (low, high)):
        raise InputError(f"domain: an integer domain needs whole-number ends, got {domain!r}")
    if np.any(values != np.round(values)):
        raise InputError("domain: an integer domain needs whole-number sensitive values")
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
        0; integer probabilities are used as exact weights).
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
        counts = np.bincount(np.searchsorted(domain, values), minlength=n).astype(np.int64)
        if scale is None or scale == counts.sum():
            return counts, None, {"name": "empirical"}
        return _scaled(counts.astype(float), scale), scale, {"name": "empirical"}
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
    keys = np.asarray(list(params.keys()), dtype=float)
    probs = np.asarray(list(params.values()), dtype=float)
    if np.any(~np.isfinite(probs)) or np.any(probs < 0) or probs.sum() <= 0:
        raise InputError("target pmf: probabilities must be non-negative with a positive sum")
    pos = np.searchsorted(domain, keys)
    bad = (pos >= n) | (domain[np.minimum(pos, n - 1)] != keys)
    if bad.any():
        raise InputError(f"target pmf: value {keys[bad][0]:g} is not in the sensitive domain")
    prob = np.zeros(n)
    prob[pos] = probs
    desc = {"name": "pmf", "pmf": {str(k): float(p) for k, p in params.items()}}
    if np.all(probs == np.round(probs)):
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


def _balanced_nodes(n_leaves: int, arity: int) -> tuple[list[int], list[int], list[int]]:
    """Breadth-first (parent, lo, hi) of a balanced ``arity``-ary tree over ``n_leaves`` leaves."""
    parent, lo, hi = [-1], [0], [n_leaves]
    i = 0
    while i < len(lo):
        a, b = lo[i], hi[i]
        size = b - a
        if size > 1:
            parts = min(arity, size)
            bounds = a + (np.arange(parts + 1) * size) // parts
            for j in range(parts):
                parent.append(i)
                lo.append(int(bounds[j]))
                hi.append(int(bounds[j + 1]))
        i += 1
    return parent, lo, hi


def rounded_weights(h: AnnotatedHierarchy, mass: np.ndarray, q: int) -> np.ndarray:
    """Integer leaf weights whose split at every node is ``mass``'s split rounded to ``1/q``.

    Parameters
    ----------
    h : AnnotatedHierarchy
        The tree (its own weights are ignored).
    mass : array of float
        Non-negative target mass of every domain value, positive sum.
    q : int
        The children's weights of every node with mass sum to ``q`` (largest remainders; a
        child without mass gets 0).

    Returns
    -------
    numpy.ndarray of int64
        Leaf weights; the weight under a node of depth ``d`` is ``q^(D - d)`` times the product
        of the rounded numerators on its path, so sibling ratios are the rounded splits exactly.
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


@dataclass(frozen=True, eq=False)
class AnnotatedHierarchy:
    """A privacy-annotated hierarchy: a tree over sorted numeric values with integer leaf weights.

    Build one with :meth:`balanced` (or :meth:`from_dict`); the constructor validates the tree.

    Attributes
    ----------
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
    """

    values: np.ndarray
    weights: np.ndarray
    parent: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    target: dict[str, Any] = field(default_factory=dict)
    scale: int | None = None

    def __post_init__(self) -> None:
        values = np.asarray(self.values)
        weights = np.asarray(self.weights)
        parent, lo, hi = (np.asarray(a, dtype=np.int64) for a in (self.parent, self.lo, self.hi))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        n = len(values)
        if n == 0 or values.ndim != 1 or not np.issubdtype(values.dtype, np.number):
            raise HierarchyError("an annotated hierarchy needs a non-empty 1-d numeric domain")
        if np.any(np.diff(values) <= 0):
            raise HierarchyError("the domain values of an annotated hierarchy must be increasing")
        if weights.shape != (n,) or np.any(weights < 0) or np.any(weights != np.round(weights)):
            raise HierarchyError("weights: one non-negative whole number per domain value")
        weights = weights.astype(np.int64)
        object.__setattr__(self, "weights", weights)
        if weights.sum() == 0:
            raise HierarchyError("weights: the target distribution has no mass (all weights 0)")
        self._check_tree(n)

    def _check_tree(self, n: int) -> None:
        parent, lo, hi = self.parent, self.lo, self.hi
        m = len(parent)
        if not (len(lo) == len(hi) == m) or m == 0:
            raise HierarchyError("parent, lo and hi must have one entry per node")
        if parent[0] != -1 or lo[0] != 0 or hi[0] != n or np.any(parent[1:] < 0):
            raise HierarchyError("node 0 must be the only root and cover the whole domain")
        if np.any(parent[1:] >= np.arange(1, m)) or np.any(np.diff(parent[1:]) < 0):
            raise HierarchyError("nodes must be numbered breadth-first (children after parents)")
        if np.any(lo >= hi):
            raise HierarchyError("every node must cover at least one value")
        start, count = self._children
        for node in np.flatnonzero(count):
            kids = np.arange(start[node], start[node] + count[node])
            ok = (
                lo[kids[0]] == lo[node]
                and hi[kids[-1]] == hi[node]
                and np.all(lo[kids[1:]] == hi[kids[:-1]])
                and len(kids) > 1
            )
            if not ok:
                raise HierarchyError(
                    f"node {node}: its children must split its values into >= 2 consecutive parts"
                )
        leaves = count == 0
        if np.any(hi[leaves] - lo[leaves] != 1):
            raise HierarchyError("every leaf must be a single value")

    # -- construction -------------------------------------------------------------------------

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
    ) -> AnnotatedHierarchy:
        """A balanced ``arity``-ary hierarchy over sorted domain values with a target.

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

        Returns
        -------
        AnnotatedHierarchy

        Examples
        --------
        >>> h = AnnotatedHierarchy.balanced([30, 40, 50, 60])
        >>> h.lo.tolist(), h.hi.tolist()
        ([0, 0, 2, 0, 1, 2, 3], [4, 2, 4, 1, 2, 3, 4])
        """
        if isinstance(arity, bool) or not isinstance(arity, numbers.Integral) or arity < 2:
            raise InputError(f"arity: expected a whole number >= 2, got {arity!r}")
        domain = np.asarray(values)
        if domain.ndim != 1 or domain.size == 0:
            raise InputError("values: the domain must be a non-empty 1-d array")
        if np.any(np.diff(domain) <= 0):
            domain = np.unique(domain)
        parent, lo, hi = _balanced_nodes(len(domain), int(arity))
        if resolution is None:
            weights, used_scale, desc = target_weights(domain, target, data, scale)
            return cls(domain, weights, parent, lo, hi, desc, used_scale)
        if scale is not None:
            raise InputError("give either scale or resolution, not both")
        if isinstance(resolution, bool) or not isinstance(resolution, numbers.Integral):
            raise InputError(f"resolution: expected a whole number >= 2, got {resolution!r}")
        if resolution < 2:
            raise InputError(f"resolution: expected a whole number >= 2, got {resolution!r}")
        mass, _, desc = target_weights(domain, target, data, _PROBABILITY_SCALE)
        tree = cls(domain, np.ones(len(domain), np.int64), parent, lo, hi)
        weights = rounded_weights(tree, mass, int(resolution))
        return cls(domain, weights, parent, lo, hi, {**desc, "resolution": int(resolution)})

    def to_dict(self) -> dict[str, Any]:
        """JSON form (as stored in release metadata)."""
        return {
            "values": self.values.tolist(),
            "weights": self.weights.tolist(),
            "parent": self.parent.tolist(),
            "lo": self.lo.tolist(),
            "hi": self.hi.tolist(),
            "target": dict(self.target),
            "scale": self.scale,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AnnotatedHierarchy:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(
                np.asarray(d["values"]),
                np.asarray(d["weights"]),
                d["parent"],
                d["lo"],
                d["hi"],
                dict(d.get("target", {})),
                d.get("scale"),
            )
        except KeyError as exc:
            raise HierarchyError(f"annotated hierarchy: missing key {exc}") from None

    # -- derived structure --------------------------------------------------------------------

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.parent)

    @cached_property
    def _children(self) -> tuple[np.ndarray, np.ndarray]:
        """(first child, number of children) per node; children are consecutive."""
        m = len(self.parent)
        count = np.bincount(self.parent[1:], minlength=m).astype(np.int64)
        start = np.zeros(m, dtype=np.int64)
        if m > 1:
            first = np.full(m, m, dtype=np.int64)
            np.minimum.at(first, self.parent[1:], np.arange(1, m))
            start = np.where(count > 0, first, 0)
        return start, count

    @property
    def child_start(self) -> np.ndarray:
        """Index of each node's first child (meaningless for leaves)."""
        return self._children[0]

    @property
    def child_count(self) -> np.ndarray:
        """Number of children of each node (0 for leaves)."""
        return self._children[1]

    @cached_property
    def depth(self) -> np.ndarray:
        """Depth of every node (root 0)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        ancestor = self.parent.copy()
        while np.any(ancestor >= 0):
            above = ancestor >= 0
            depth[above] += 1
            ancestor[above] = self.parent[ancestor[above]]
        return depth

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
        start, count = self._children
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
        start, count = self._children
        unit = np.zeros(self.n_nodes, dtype=np.int64)
        inner = np.flatnonzero(count)
        if inner.size:
            unit[inner] = np.add.reduceat(self.reduced_weight[1:], start[inner] - 1)
        return unit

    @cached_property
    def node_range(self) -> np.ndarray:
        """``max - min`` of the values under every node."""
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

    @cached_property
    def leaf_node(self) -> np.ndarray:
        """Node number of every domain value's leaf."""
        leaves = np.flatnonzero(self.child_count == 0)
        out = np.empty(len(self.values), dtype=np.int64)
        out[self.lo[leaves]] = leaves
        return out

    def leaf_index(self, values: np.ndarray, column: str = "sensitive value") -> np.ndarray:
        """Position of each value in the domain.

        Raises
        ------
        InputError
            A value is not in the domain (naming it).
        """
        values = np.asarray(values)
        idx = np.searchsorted(self.values, values)
        idx_c = np.minimum(idx, len(self.values) - 1)
        bad = (idx >= len(self.values)) | (self.values[idx_c] != values)
        if bad.any():
            raise InputError(
                f"{column} {values[bad][0]!r} is not in the domain of the annotated hierarchy "
                f"({self.values[0]} .. {self.values[-1]}, {len(self.values)} values)"
            )
        return idx_c

    def subtree_counts(self, leaf_counts: np.ndarray) -> np.ndarray:
        """Number of values under every node, from per-leaf counts (last axis = leaves)."""
        leaf_counts = np.asarray(leaf_counts)
        pad = [(0, 0)] * (leaf_counts.ndim - 1) + [(1, 0)]
        cs = np.pad(np.cumsum(leaf_counts, axis=-1), pad)
        return cs[..., self.hi] - cs[..., self.lo]
