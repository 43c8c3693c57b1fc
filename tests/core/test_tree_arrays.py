"""The shared tree arrays of a hierarchy (TreeArrays) and the types layered on them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Hierarchy, HierarchyError
from microanon.core import TreeArrays
from microanon.methods.collect.taxonomy import Taxonomy
from microanon.methods.distribution import AnnotatedHierarchy


@st.composite
def parent_arrays(draw, max_nodes: int = 40) -> np.ndarray:
    """A random tree as a parent array: node 0 is the root, every parent an earlier node."""
    n = draw(st.integers(1, max_nodes))
    return np.array([-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)], dtype=np.int64)


def subtree_sizes(parent: np.ndarray) -> np.ndarray:
    size = np.ones(len(parent), dtype=np.int64)
    for v in range(len(parent) - 1, 0, -1):  # parents precede children
        size[parent[v]] += size[v]
    return size


@settings(max_examples=150, deadline=None)
@given(parent_arrays(), st.sampled_from(["preorder", "breadth_first"]))
def test_arrays_agree_with_the_hierarchy(parent, order):
    labels = [f"n{i}" for i in range(len(parent))]
    h = Hierarchy.from_parents(labels, parent)
    assert h.parents().tolist() == parent.tolist()
    t = TreeArrays(h, order)
    ids = t.node_id
    assert sorted(ids.tolist()) == list(range(h.n_nodes))
    assert np.array_equal(t.code_of_node[ids], np.arange(h.n_nodes))
    lo, hi = h.leaf_range(ids)
    assert np.array_equal(t.lo, lo) and np.array_equal(t.hi, hi)
    assert np.array_equal(t.leaf_count, h.leaf_count(ids))
    par = h.parents()[ids]
    assert np.array_equal(t.parent, np.where(par >= 0, t.code_of_node[np.maximum(par, 0)], -1))
    assert np.array_equal(t.depth, h.height - h.node_height()[ids])
    assert np.array_equal(t.is_leaf, h.is_leaf_node()[ids])
    assert np.array_equal(t.lo[t.leaf_node], np.arange(h.n_leaves))
    assert [t.leaf_position(c) for c in t.leaf_node] == list(range(h.n_leaves))
    assert [t.label(c) for c in t.leaf_node] == h.leaves
    for v in range(t.n_nodes):
        kids = np.flatnonzero(t.parent == v)
        assert t.child_count[v] == len(kids)
        assert t.child_start[v] == (kids[0] if len(kids) else 0)
        assert np.all(np.diff(t.lo[kids]) > 0)  # siblings in leaf order
    # The ancestor table walks the parents.
    for i, leaf in enumerate(t.leaf_node):
        chain, v = [], int(leaf)
        while v >= 0:
            chain.append(v)
            v = int(t.parent[v])
        col = t.ancestors[:, i]
        assert col[col >= 0].tolist() == chain and np.all(col[len(chain) :] == -1)
    assert t.ancestors.shape == (h.height + 1, h.n_leaves)
    # The numbering's own promise.
    if order == "preorder":
        size = subtree_sizes(t.parent)
        for v in range(t.n_nodes):  # a subtree is the run of codes starting at its root
            inside = (t.lo >= t.lo[v]) & (t.hi <= t.hi[v]) & (np.arange(t.n_nodes) >= v)
            assert np.flatnonzero(inside)[: size[v]].tolist() == list(range(v, v + size[v]))
        assert np.all(t.child_start[t.child_count > 0] == np.flatnonzero(t.child_count) + 1)
    else:
        assert np.all(np.diff(t.depth) >= 0) and np.all(np.diff(t.parent[1:]) >= 0)
        inner = np.flatnonzero(t.child_count)
        for v in inner:  # children are consecutive codes
            kids = np.arange(t.child_start[v], t.child_start[v] + t.child_count[v])
            assert np.all(t.parent[kids] == v)
    # Codes depend on the (ordered) tree alone, not on the node ids of the hierarchy: the same
    # tree built from its paths, or from its breadth-first parent array, numbers alike.
    bfs = TreeArrays(h, "breadth_first")
    for same_tree in (
        Hierarchy(h.paths()),
        Hierarchy.from_parents([bfs.label(c) for c in range(bfs.n_nodes)], bfs.parent),
    ):
        u = TreeArrays(same_tree, order)
        for name in ("parent", "lo", "hi", "depth", "leaf_node", "child_start", "child_count"):
            assert np.array_equal(getattr(u, name), getattr(t, name)), name
        assert [u.label(c) for c in range(u.n_nodes)] == [t.label(c) for c in range(t.n_nodes)]


@settings(max_examples=100, deadline=None)
@given(parent_arrays(), st.randoms())
def test_from_parents_equals_the_path_constructor(parent, rnd):
    labels = [f"n{i}" for i in range(len(parent))]
    h = Hierarchy.from_parents(labels, parent)
    weights = [rnd.random() for _ in range(h.n_leaves)]
    w = Hierarchy.from_parents(labels, parent, weights=weights)
    assert w == Hierarchy(h.paths(), weights=weights)
    assert w.weights.tolist() == weights
    again = Hierarchy.from_parents([w.label(i) for i in range(w.n_nodes)], w.parents(), w.weights)
    assert again == w
    for level in range(h.n_levels):
        assert h.level_labels(level) == Hierarchy(h.paths()).level_labels(level)


def test_from_parents_rejects_what_is_not_such_a_tree():
    for parent in ([0, 0], [-1, 1], [-1, 0, 3, 0], [-1, -1], [-1, 0.5], []):
        with pytest.raises(HierarchyError, match="parent array"):
            Hierarchy.from_parents(["*", "a", "b", "c"][: len(parent)], parent)
    with pytest.raises(HierarchyError, match="parent array"):
        Hierarchy.from_parents(["*", "a"], [-1, 0, 0])
    with pytest.raises(HierarchyError, match="appears twice"):
        Hierarchy.from_parents(["*", "x", "y", "a", "a"], [-1, 0, 0, 1, 2])
    with pytest.raises(HierarchyError, match="weights must be 2"):
        Hierarchy.from_parents(["*", "a", "b"], [-1, 0, 0], weights=[1.0])


def test_with_weights_shares_the_tree_and_keeps_the_original():
    h = Hierarchy.from_nested({"*": {"young": [20, 30], "old": [70]}}, name="age")
    w = h.with_weights([1, 2, 3])
    assert w.weights.tolist() == [1, 2, 3] and h.weights.tolist() == [1, 1, 1]
    assert w.weight(0) == 6 and h.weight(0) == 3 and w.name == "age"
    assert w == Hierarchy(h.paths(), weights=[1, 2, 3])
    assert h.with_weights({20: 5}).weights.tolist() == [5, 0, 0]
    with pytest.raises(HierarchyError, match="column 'age': weights must be 3"):
        h.with_weights([1, 2])


def test_unknown_order_is_refused():
    with pytest.raises(HierarchyError, match="order"):
        TreeArrays(Hierarchy.from_nested({"*": ["a", "b"]}), "postorder")


def test_taxonomy_codes_are_preorder_and_stable():
    # The collection codes are part of the wire format: pin them for a small taxonomy.
    h = Hierarchy.from_nested({"Any": {"Resp": ["Flu", "Cold"], "Heart": ["CAD"]}})
    tx = Taxonomy("disease", h)
    assert [tx.label(c) for c in range(tx.n_nodes)] == [
        "Any",
        "Resp",
        "Flu",
        "Cold",
        "Heart",
        "CAD",
    ]
    assert tx.parent.tolist() == [-1, 0, 1, 1, 0, 4]
    assert [tx.leaf_position(tx.code(v)) for v in ("Flu", "Cold", "CAD")] == [0, 1, 2]
    assert tx.chain(tx.code("CAD")).tolist() == [5, 4, 0]
    assert tx.hierarchy is h and isinstance(tx, TreeArrays)


def test_annotated_hierarchy_is_a_breadth_first_view_of_a_core_hierarchy():
    a = AnnotatedHierarchy.balanced([30, 40, 50, 60], target={"pmf": {30: 1, 40: 2, 60: 3}})
    h = a.hierarchy
    assert isinstance(h, Hierarchy) and isinstance(a, TreeArrays) and a.order == "breadth_first"
    assert h.leaves == [30, 40, 50, 60] and h.weights.tolist() == [1, 2, 0, 3]
    assert [a.label(c) for c in range(a.n_nodes)] == ["*", "[30, 40]", "[50, 60]", 30, 40, 50, 60]
    assert np.array_equal(a.leaf_index([60, 30]), h.leaf_index([60, 30]))
    back = AnnotatedHierarchy.from_hierarchy(h, target=a.target, scale=a.scale)
    assert back.to_dict() == a.to_dict()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-50, 50), min_size=1, max_size=40, unique=True),
    st.integers(2, 4),
    st.booleans(),
)
def test_annotated_hierarchy_round_trips(values, arity, halves):
    dom = np.sort(np.array(values)) / (2 if halves else 1)
    weights = np.arange(len(dom)) % 3
    weights[0] = 1
    a = AnnotatedHierarchy.balanced(
        dom, arity=arity, target={"pmf": dict(zip(dom.tolist(), weights.tolist(), strict=True))}
    )
    # AnnotatedHierarchy -> Hierarchy -> AnnotatedHierarchy
    b = AnnotatedHierarchy.from_hierarchy(a.hierarchy, target=a.target, scale=a.scale)
    # ... -> to_dict (the form releases store) -> back, and from the arrays directly
    c = AnnotatedHierarchy.from_dict(a.to_dict())
    d = AnnotatedHierarchy(a.values, a.weights, a.parent, a.lo, a.hi, a.target, a.scale)
    for other in (b, c, d):
        assert other.to_dict() == a.to_dict()
        assert other.hierarchy == a.hierarchy
        for name in ("depth", "child_start", "child_count", "leaf_node", "reduced_weight", "unit"):
            assert np.array_equal(getattr(other, name), getattr(a, name)), name
    # Hierarchy -> AnnotatedHierarchy -> Hierarchy
    h = Hierarchy.from_parents(
        [a.hierarchy.label(i) for i in range(a.n_nodes)], a.hierarchy.parents(), weights * 2.0
    )
    assert AnnotatedHierarchy.from_hierarchy(h).hierarchy == h
    assert AnnotatedHierarchy.from_hierarchy(h).weights.tolist() == (weights * 2).tolist()


def test_a_stored_annotated_hierarchy_still_loads():
    # As written into release metadata before the hierarchy types were unified.
    stored = {
        "values": [30, 40, 50, 60],
        "weights": [1, 1, 1, 1],
        "parent": [-1, 0, 0, 1, 1, 2, 2],
        "lo": [0, 0, 2, 0, 1, 2, 3],
        "hi": [4, 2, 4, 1, 2, 3, 4],
        "target": {"name": "uniform"},
        "scale": None,
    }
    h = AnnotatedHierarchy.from_dict(stored)
    assert h.to_dict() == stored
    assert AnnotatedHierarchy.balanced([30, 40, 50, 60]).to_dict() == stored


def test_from_hierarchy_refuses_what_is_not_an_annotated_tree():
    with pytest.raises(HierarchyError, match="numeric"):
        AnnotatedHierarchy.from_hierarchy(Hierarchy.from_nested({"*": ["a", "b"]}))
    with pytest.raises(HierarchyError, match="increasing"):
        AnnotatedHierarchy.from_hierarchy(Hierarchy.from_nested({"*": [2, 1]}))
    chain = Hierarchy.from_parents(["*", "[1, 2]", 1, 2], [-1, 0, 1, 1])
    with pytest.raises(HierarchyError, match=">= 2 consecutive parts"):
        AnnotatedHierarchy.from_hierarchy(chain)
    with pytest.raises(HierarchyError, match="whole number"):
        AnnotatedHierarchy.from_hierarchy(Hierarchy.from_nested({"*": [1, 2]}), [0.5, 1])
