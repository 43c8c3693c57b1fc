"""Hypothesis strategies shared by the lattice-search tests (in memory and out of core).

``tests/`` is on ``sys.path`` because of its ``conftest.py``, so any test module imports this.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from microanon.core import Hierarchy


@st.composite
def hierarchies(draw: st.DrawFn, name: str) -> tuple[Hierarchy, list]:
    """A small hierarchy and its domain (some values may stay absent from the data)."""
    kind = draw(st.sampled_from(["balanced", "intervals", "nested", "uneven"]))
    if kind == "balanced":
        dom = list(range(draw(st.integers(1, 7))))
        return Hierarchy.balanced(dom, fanout=draw(st.integers(2, 3)), name=name), dom
    if kind == "intervals":
        dom = list(range(draw(st.integers(1, 9))))
        widths = draw(st.sampled_from([[2], [3], [2, 4], [2, 6]]))
        return Hierarchy.intervals(dom, widths, name=name), dom
    values = [f"{name}{i}" for i in range(draw(st.integers(2, 6)))]
    groups = draw(st.lists(st.integers(0, 2), min_size=len(values), max_size=len(values)))
    tree: dict = {}
    for v, g in zip(values, groups, strict=True):
        tree.setdefault(f"G{g}", []).append(v)
    if kind == "uneven":  # one leaf directly under the root: leaves at different depths
        tree[values[0] + "x"] = None
        values = values + [values[0] + "x"]
    if len(tree) == 1:
        tree = {"*": next(iter(tree.values()))}
    return Hierarchy.from_nested(tree, name=name), values


def wide_table(rng: np.random.Generator, q: int, rows: int) -> tuple[pd.DataFrame, dict]:
    """A table of ``q`` quasi-identifiers of two values each (``rows`` records drawn with
    ``rng``) and its schema, each with the one-level hierarchy of its two values: a lattice as
    wide as a file of hundreds of dummy columns."""
    df = pd.DataFrame({f"q{i}": rng.choice(["a", "b"], size=rows) for i in range(q)})
    flat = Hierarchy.balanced(["a", "b"], 2)
    return df, {c: {"role": "quasi", "hierarchy": flat} for c in df.columns}
