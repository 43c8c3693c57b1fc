"""A hierarchy is built a level at a time: the same tree as path by path.

``Hierarchy`` builds the nodes of its paths (a numeric column's builder hierarchy has a path
per distinct value) level by level, grouping each level's labels with pandas; paths of labels
of other types, or with a leaf that is an inner node too, are read one at a time. Both must
give the same hierarchy: the same leaves in the same order, the same labels and codes at every
level, the same paths and description, and the same errors, whatever the labels (text,
integers and floats that are equal or share a key, such as ``1``, ``1.0`` and ``"1"``, NaN,
booleans).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import hierarchy as hierarchy_module
from microanon.core.errors import HierarchyError
from microanon.core.hierarchy import Hierarchy

labels = st.one_of(
    st.sampled_from(["a", "b", " a", "1", "x y"]),
    st.integers(-2, 3),
    st.sampled_from([1.0, 2.5, -0.0, math.nan, 1e20]),
    st.booleans(),
)


def _described(build: Any) -> Any:
    """What a hierarchy shows, or the error it raises."""
    try:
        h = build()
    except HierarchyError as exc:
        return ("error", str(exc))
    levels = [(repr(h.level_labels(lv)), h.level_codes(lv).tolist()) for lv in range(h.n_levels)]
    return repr(h.leaves), levels, repr(h.paths()), repr(h.to_dict()), h.height


def _path_by_path(paths: list[list[Any]]) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy_module, "_nodes_by_level", lambda *args: None)
        return _described(lambda: Hierarchy(paths, name="c"))


@settings(max_examples=400, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda depth: st.lists(
            st.lists(labels, min_size=depth, max_size=depth), min_size=1, max_size=12
        )
    ),
    st.booleans(),
)
def test_paths_of_one_length_give_the_tree_they_give_path_by_path(paths, rooted) -> None:
    if rooted:  # (most random paths have several roots: an error, compared too)
        paths = [["*", *p] for p in paths]
    assert _described(lambda: Hierarchy(paths, name="c")) == _path_by_path(paths)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(labels, min_size=0, max_size=3), min_size=1, max_size=12))
def test_paths_of_several_lengths_give_the_tree_they_give_path_by_path(paths) -> None:
    """Leaves at several depths, and leaves that are inner nodes of other paths (an error)."""
    paths = [["*", *p] for p in paths]
    assert _described(lambda: Hierarchy(paths, name="c")) == _path_by_path(paths)


def test_a_numeric_builder_hierarchy_is_built_by_level() -> None:
    """Quantiles over thousands of distinct values: a path each, built a level at a time, and
    the same tree as path by path."""
    values = np.round(np.random.default_rng(0).lognormal(5, 1, 5000), 1)
    built = Hierarchy.quantiles(values, [8, 4, 2], name="income")
    paths = built.paths()
    assert hierarchy_module._nodes_by_level(paths) is not None
    assert _described(lambda: Hierarchy(paths, name="c")) == _path_by_path(paths)


def test_a_missing_value_s_leaf_keeps_the_level_by_level_build() -> None:
    """``?`` beside a numeric column's leaves: a path shorter than the others."""
    values = np.arange(2000) * 1.5
    paths = [*Hierarchy.quantiles(values, [8, 2]).paths(), ["*", "?"]]
    assert hierarchy_module._nodes_by_level(paths) is not None
    assert _described(lambda: Hierarchy(paths, name="c")) == _path_by_path(paths)
