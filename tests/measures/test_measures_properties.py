"""Property tests: every measure against a plain-Python reference on random small tables.

The references below use dicts and loops over rows and root-to-leaf paths only; they share no code
with :mod:`microanon.measures` and do not use the :class:`Hierarchy` node arrays.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy
from microanon.measures import (
    aecs,
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    precision,
    reidentification_risk,
    sample_uniques,
)

SETTINGS = settings(max_examples=120, deadline=None)


# --------------------------------------------------------------------------------------- reference
class RefTree:
    """A hierarchy seen only through its root-to-leaf paths."""

    def __init__(self, paths: list[list], weights: list[float] | None) -> None:
        self.paths = paths
        self.leaves = [p[-1] for p in paths]
        self.weight = dict(zip(self.leaves, weights or [1.0] * len(paths), strict=True))
        self.height = max(len(p) - 1 for p in paths)
        self.cover: dict = {}
        self.depth: dict = {}
        for p in paths:
            for d, label in enumerate(p):
                self.cover.setdefault(label, []).append(p[-1])
                self.depth[label] = d
        self.cover["*"] = list(self.leaves)
        self.depth["*"] = 0

    def lm(self, label) -> float:
        d = len(self.leaves)
        return 0.0 if d == 1 else (len(self.cover[label]) - 1) / (d - 1)

    def lm_weighted(self, label) -> float:
        all_w = list(self.weight.values())
        den = sum(all_w) - min(all_w)
        if len(self.leaves) == 1 or den <= 0:
            return 0.0
        w = [self.weight[x] for x in self.cover[label]]
        return (sum(w) - min(w)) / den

    def ncp_count(self, label) -> float:
        c = len(self.cover[label])
        return 0.0 if c == 1 else c / len(self.leaves)

    def ncp_range(self, label) -> float:
        span = max(self.leaves) - min(self.leaves)
        if span == 0:
            return 0.0
        vals = self.cover[label]
        return (max(vals) - min(vals)) / span

    def prec_loss(self, label) -> float:
        if self.height == 0:
            return 0.0
        level = 0 if label in self.leaves else self.height - self.depth[label]
        return level / self.height

    def ancestors(self, leaf) -> list:
        path = next(p for p in self.paths if p[-1] == leaf)
        return path  # root first, the leaf itself last


def ref_mean(table: pd.DataFrame, trees: dict[str, RefTree], cell, suppressed: int = 0) -> dict:
    out = {}
    for col, tree in trees.items():
        values = list(table[col]) + ["*"] * suppressed
        out[col] = sum(cell(tree, v) for v in values) / len(values)
    return out


def ref_classes(table: pd.DataFrame, quasi: list[str]) -> list[int]:
    """Class sizes in order of first appearance."""
    counts: dict = {}
    for row in zip(*(table[c] for c in quasi), strict=True):
        counts[row] = counts.get(row, 0) + 1
    return list(counts.values())


# --------------------------------------------------------------------------------------- strategies
@st.composite
def trees(draw, name: str, numeric: bool = False):
    n = draw(st.integers(1, 6))
    if numeric:
        leaves = draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n, unique=True))
    else:
        leaves = [f"{name}{i}" for i in range(n)]
    max_depth = draw(st.integers(1, 3))
    counter = itertools.count()
    paths: list[list] = []

    def split(prefix: list, items: list, depth: int) -> None:
        cuts = draw(st.lists(st.booleans(), min_size=len(items) - 1, max_size=len(items) - 1))
        parts, cur = [], [items[0]]
        for x, cut in zip(items[1:], cuts, strict=True):
            if cut:
                parts.append(cur)
                cur = [x]
            else:
                cur.append(x)
        parts.append(cur)
        for part in parts:
            if depth >= max_depth or (len(part) == 1 and draw(st.booleans())):
                paths.extend(prefix + [x] for x in part)
            else:
                split(prefix + [f"{name}_g{next(counter)}"], part, depth + 1)

    split(["*"], leaves, 1)
    weights = draw(st.none() | st.lists(st.integers(0, 4), min_size=n, max_size=n))
    w_by_leaf = None
    if weights is not None:  # weights are given in the order of `paths` (shuffled by split)
        w_by_leaf = dict(zip(leaves, weights, strict=True))
        weights = [w_by_leaf[p[-1]] for p in paths]
    return Hierarchy.from_paths(paths, weights=weights, name=name), RefTree(paths, weights)


@st.composite
def generalized_tables(draw, max_cols: int = 3, max_rows: int = 14):
    """A random table whose cells are random ancestors (or "*") of random leaves."""
    n_cols = draw(st.integers(1, max_cols))
    cols = [f"q{j}" for j in range(n_cols)]
    hs, refs = {}, {}
    for c in cols:
        h, ref = draw(trees(c, numeric=draw(st.booleans())))
        hs[c], refs[c] = h, ref
    n_rows = draw(st.integers(1, max_rows))
    data = {}
    for c in cols:
        ref = refs[c]
        cells = []
        for _ in range(n_rows):
            leaf = draw(st.sampled_from(ref.leaves))
            anc = ref.ancestors(leaf)
            cells.append(draw(st.sampled_from(anc)))
        data[c] = cells
    index = draw(st.sampled_from([None, "shuffled"]))
    df = pd.DataFrame(data)
    if index == "shuffled":
        df.index = np.random.default_rng(0).permutation(n_rows) * 7 + 3
    return df, cols, hs, refs


THRESHOLDS = st.floats(0, 1, exclude_min=True) | st.sampled_from([0.2, 0.25, 1 / 3, 0.5, 1.0])


# ------------------------------------------------------------------------------ classes / risk
@SETTINGS
@given(generalized_tables(), st.integers(0, 5), st.integers(1, 6))
def test_class_measures_match_reference(tbl, suppressed, k):
    df, cols, _, _ = tbl
    sizes = ref_classes(df, cols)
    stats = equivalence_classes(df, cols)
    assert stats.sizes.tolist() == sizes
    assert stats.count == len(sizes)
    assert stats.rows == len(df)
    assert stats.average_size == pytest.approx(len(df) / len(sizes))
    assert (stats.min_size, stats.max_size) == (min(sizes), max(sizes))
    assert stats.histogram().to_dict() == dict(sorted(Counter(sizes).items()))
    n = len(df) + suppressed
    assert discernibility(df, cols, suppressed) == sum(s * s for s in sizes) + suppressed * n
    assert aecs(df, cols, k) == pytest.approx(len(df) / len(sizes) / k)


@SETTINGS
@given(generalized_tables(), THRESHOLDS)
def test_risk_matches_reference(tbl, threshold):
    df, cols, _, _ = tbl
    rows = list(zip(*(df[c] for c in cols), strict=True))
    size = Counter(rows)
    risk = [1 / size[r] for r in rows]
    prof = reidentification_risk(df, cols, threshold)
    assert prof.record_risk.tolist() == pytest.approx(risk)
    assert prof.record_risk.index.equals(df.index)
    assert prof.max == max(risk)
    assert prof.average == pytest.approx(sum(risk) / len(risk))
    above = sum(1 for r in risk if r > threshold)
    assert prof.records_above == above
    assert prof.share_above == pytest.approx(above / len(rows))
    uniq = sum(1 for r in rows if size[r] == 1)
    assert sample_uniques(df, cols) == (uniq, pytest.approx(uniq / len(rows)))


# --------------------------------------------------------------------------------------- utility
@SETTINGS
@given(generalized_tables(), st.integers(0, 3))
def test_utility_measures_match_reference(tbl, suppressed):
    df, cols, hs, refs = tbl
    lm = ref_mean(df, refs, RefTree.lm, suppressed)
    got = loss_metric(df, hs, cols, suppressed)
    assert got.per_attribute == pytest.approx(lm)
    assert got.total == pytest.approx(sum(lm.values()) / len(lm))
    lmw = ref_mean(df, refs, RefTree.lm_weighted, suppressed)
    got_w = loss_metric(df, hs, cols, suppressed, weighted=True)
    assert got_w.per_attribute == pytest.approx(lmw)

    count = ref_mean(df, refs, RefTree.ncp_count, suppressed)
    score = ncp(df, hs, cols, suppressed=suppressed)
    assert score.per_attribute == pytest.approx(count)
    assert score.gcp == pytest.approx(sum(count.values()) / len(count))
    assert 0.0 <= score.gcp <= 1.0

    numeric = [c for c in cols if all(isinstance(x, int) for x in refs[c].leaves)]
    mixed = {
        c: ref_mean(
            df[[c]],
            {c: refs[c]},
            RefTree.ncp_range if c in numeric else RefTree.ncp_count,
            suppressed,
        )[c]
        for c in cols
    }
    weights = {c: float(i + 1) for i, c in enumerate(cols)}
    ranged = ncp(df, hs, cols, weights, numeric_ranges=True, suppressed=suppressed)
    assert ranged.per_attribute == pytest.approx(mixed)
    total_w = sum(weights.values())
    assert ranged.gcp == pytest.approx(sum(weights[c] * mixed[c] for c in cols) / total_w)

    prec = ref_mean(df, refs, RefTree.prec_loss, suppressed)
    assert precision(df, hs, cols, suppressed) == pytest.approx(1 - sum(prec.values()) / len(prec))


@SETTINGS
@given(generalized_tables())
def test_extremes(tbl):
    df, cols, hs, refs = tbl
    # replace every cell by one of the leaves it covers: the ungeneralized table
    leaves = pd.DataFrame({c: [refs[c].cover[v][0] for v in df[c]] for c in cols})
    assert loss_metric(leaves, hs, cols).total == 0.0
    assert loss_metric(leaves, hs, cols, weighted=True).total == 0.0
    assert ncp(leaves, hs, cols, numeric_ranges=True).gcp == 0.0
    assert precision(leaves, hs, cols) == 1.0
    star = pd.DataFrame({c: ["*"] * len(df) for c in cols})
    expected = {c: 1.0 if len(refs[c].leaves) > 1 else 0.0 for c in cols}
    assert loss_metric(star, hs, cols).per_attribute == pytest.approx(expected)
    assert ncp(star, hs, cols).per_attribute == pytest.approx(expected)
    assert precision(star, hs, cols) == 0.0  # every random tree has height >= 1
    if all(len(refs[c].leaves) > 1 for c in cols):
        assert loss_metric(star, hs, cols).total == 1.0
        assert ncp(star, hs, cols).gcp == pytest.approx(1.0)
    # a table of suppressed rows only is charged like the all-"*" table
    one = star.iloc[:1]
    assert loss_metric(one, hs, cols, suppressed=len(df)).total == pytest.approx(
        loss_metric(star, hs, cols).total
    )


@SETTINGS
@given(st.data())
def test_full_domain_levels_are_monotone(data):
    n_cols = data.draw(st.integers(1, 3))
    cols = [f"q{j}" for j in range(n_cols)]
    pairs = {c: data.draw(trees(c)) for c in cols}
    hs = {c: h for c, (h, _) in pairs.items()}
    n_rows = data.draw(st.integers(1, 12))
    orig = {
        c: data.draw(st.lists(st.sampled_from(hs[c].leaves), min_size=n_rows, max_size=n_rows))
        for c in cols
    }
    low = {c: data.draw(st.integers(0, hs[c].height)) for c in cols}
    high = {c: data.draw(st.integers(low[c], hs[c].height)) for c in cols}

    def recode(levels):
        return pd.DataFrame({c: hs[c].generalize(orig[c], levels[c], c) for c in cols})

    a, b = recode(low), recode(high)
    refs = {c: ref for c, (_, ref) in pairs.items()}
    # the library's values on a level-recoded table still agree with the reference
    assert loss_metric(a, hs).total == pytest.approx(
        np.mean(list(ref_mean(a, refs, RefTree.lm).values()))
    )
    assert loss_metric(a, hs).total <= loss_metric(b, hs).total + 1e-12
    assert ncp(a, hs).gcp <= ncp(b, hs).gcp + 1e-12
    assert precision(a, hs) >= precision(b, hs) - 1e-12
    # coarser classes: never more of them, never more uniques
    assert equivalence_classes(a, cols).count >= equivalence_classes(b, cols).count
    assert sample_uniques(a, cols).count >= sample_uniques(b, cols).count
    assert discernibility(a, cols) <= discernibility(b, cols)
