"""Every release of Mondrian and local recoding, checked: random tables (hypothesis) and Adult.

The checks below share no code with the methods. They read the published table only:

- no record is lost, duplicated or moved: same rows, same index, same non-quasi-identifier cells;
- every published cell covers the original value, and tightly: a numeric cell is the closed
  range ``[min, max]`` of its class's original values (the value itself when they are equal), a
  categorical cell is the lowest common ancestor of its class's values on their root-to-leaf
  paths (the root published as ``"*"``);
- every claimed model holds, with plain-Python per-class checks (k, distinct ℓ, equal-distance
  t against the whole table) and with :mod:`microanon.models`;
- strict Mondrian is a fixpoint: no class has a cut (median cut of a numeric quasi-identifier,
  children of the current node of a categorical one) whose parts all satisfy the models.

On Adult, one release of each method is also checked with pycanon.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import pycanon_anonymity

from microanon.core import Hierarchy, InfeasibleError
from microanon.datasets import adult_schema, load_adult
from microanon.methods.generalize.local_recoding import local_recoding
from microanon.methods.generalize.mondrian import mondrian
from microanon.models import k_anonymity, l_diversity, t_closeness

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RANGE = re.compile(r"^\[(-?[\d.e+-]+), (-?[\d.e+-]+)\]$")
SA = "disease"


# ---------------------------------------------------------------------------------- reference
def interval(cell) -> tuple[float, float]:
    """Bounds of a published numeric cell: ``"[lo, hi]"`` or a single value."""
    m = RANGE.match(str(cell))
    if m:
        return float(m.group(1)), float(m.group(2))
    return float(cell), float(cell)


def fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def lca_label(paths: list[list]) -> object:
    """Deepest label shared by root-to-leaf paths (compared as text); the root is ``"*"``."""
    depth = 0
    while all(len(p) > depth + 1 for p in paths) and len({str(p[depth + 1]) for p in paths}) == 1:
        depth += 1
    return "*" if depth == 0 else paths[0][depth]


class Spec:
    """The quasi-identifiers of a table: numeric (no hierarchy needed) or with a hierarchy."""

    def __init__(self, schema: dict, hierarchies: dict[str, Hierarchy]) -> None:
        self.quasi = [c for c, d in schema.items() if d["role"] == "quasi"]
        self.numeric = {c for c in self.quasi if schema[c].get("kind") == "numeric"}
        self.paths = {
            c: {str(p[-1]): p for p in h.paths()} for c, h in hierarchies.items() if c in self.quasi
        }

    def path(self, col: str, value) -> list:
        return self.paths[col][str(value)]


def parts_ok(parts: list[list[int]], sa: list, k: int, ell: int | None, t: float | None) -> bool:
    """Every part (a list of row positions) satisfies k, distinct ℓ and equal-distance t."""
    whole = Counter(sa)
    n = len(sa)
    for part in parts:
        if len(part) < k:
            return False
        counts = Counter(sa[i] for i in part)
        if ell is not None and len(counts) < ell:
            return False
        if t is not None:
            emd = 0.5 * sum(abs(counts[v] / len(part) - whole[v] / n) for v in whole)
            if emd > t + 1e-12:
                return False
    return True


def check_release(
    release, df: pd.DataFrame, spec: Spec, k: int, ell=None, t=None, sa_col: str = SA
) -> list:
    """Assert the release is valid; return its classes as lists of row positions."""
    pub = release.data
    assert release.kind == "generalized"
    assert len(pub) == len(df) == release.metadata["rows_in"] == release.metadata["rows_out"]
    assert list(pub.columns) == list(df.columns)
    others = [c for c in df.columns if c not in spec.quasi]  # rows keep their order
    pd.testing.assert_frame_equal(pub[others], df[others].reset_index(drop=True), check_dtype=False)
    classes = defaultdict(list)
    for i, key in enumerate(pub[spec.quasi].astype(str).itertuples(index=False)):
        classes[tuple(key)].append(i)
    columns = {c: df[c].tolist() for c in df.columns}
    for key, rows in classes.items():
        for col, cell in zip(spec.quasi, key, strict=True):
            orig = [columns[col][i] for i in rows]
            if col in spec.numeric:
                lo, hi = min(orig), max(orig)
                assert cell == (fmt(lo) if lo == hi else f"[{fmt(lo)}, {fmt(hi)}]")
                assert all(interval(cell)[0] <= v <= interval(cell)[1] for v in orig)
            else:
                paths = [spec.path(col, v) for v in orig]
                assert cell == str(lca_label(paths))
                assert all(cell == "*" or cell in map(str, p) for p in paths)  # covers
    sa = list(df[sa_col])
    assert parts_ok(list(classes.values()), sa, k, ell, t)
    assert k_anonymity(pub, spec.quasi, k).holds
    if ell is not None:
        assert l_diversity(pub, spec.quasi, sa_col, ell).holds
    if t is not None:
        assert t_closeness(pub, spec.quasi, sa_col, t, distance="equal").holds
    return list(classes.values())


def assert_fixpoint(classes, df, spec: Spec, k: int, ell=None, t=None) -> None:
    """No class of a strict Mondrian release has an allowed cut."""
    sa = list(df[SA])
    columns = {c: df[c].tolist() for c in spec.quasi}
    for rows in classes:
        for col in spec.quasi:
            x = columns[col]
            if col in spec.numeric:
                values = sorted(x[i] for i in rows)
                median = values[math.ceil(len(values) / 2) - 1]
                parts = [[i for i in rows if x[i] <= median], [i for i in rows if x[i] > median]]
            else:
                paths = {i: spec.path(col, x[i]) for i in rows}
                node = lca_label(list(paths.values()))
                depth = 0 if node == "*" else list(map(str, paths[rows[0]])).index(str(node))
                by_child = defaultdict(list)
                for i, p in paths.items():
                    by_child[str(p[depth + 1]) if len(p) > depth + 1 else None].append(i)
                parts = list(by_child.values())
            parts = [p for p in parts if p]
            assert len(parts) < 2 or not parts_ok(parts, sa, k, ell, t), (col, rows)


# ---------------------------------------------------------------------------------- data
@st.composite
def trees(draw: st.DrawFn, leaves: list) -> Hierarchy:
    """A random hierarchy over ``leaves`` in random order, leaves at different depths."""
    leaves = draw(st.permutations(leaves))
    paths: list[list] = []
    labels = iter(range(10**6))

    def build(prefix: list, items: list, depth: int) -> None:
        if len(items) == 1 or depth == 0:
            paths.extend(prefix + [x] for x in items)
            return
        cuts = draw(st.sets(st.integers(1, len(items) - 1), max_size=len(items) - 1))
        bounds = [0, *sorted(cuts), len(items)]
        for a, b in zip(bounds, bounds[1:], strict=False):
            if b - a == 1 and draw(st.booleans()):
                paths.append(prefix + [items[a]])
            else:
                build(prefix + [f"g{next(labels)}"], items[a:b], depth - 1)

    build(["*"], list(leaves), draw(st.integers(1, 3)))
    return Hierarchy(paths)


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, dict, dict]:
    """A table with 1-3 quasi-identifiers (numeric, numeric with a shuffled hierarchy, or
    categorical) and a sensitive column."""
    n = draw(st.integers(1, 40))
    data, schema, hierarchies = {}, {}, {}
    for j in range(draw(st.integers(1, 3))):
        col = f"q{j}"
        kind = draw(st.sampled_from(["numeric", "numeric_tree", "categorical"]))
        if kind == "categorical":
            domain = [f"v{i}" for i in range(draw(st.integers(1, 6)))]
        else:
            domain = list(range(draw(st.integers(1, 9))))
        data[col] = draw(st.lists(st.sampled_from(domain), min_size=n, max_size=n))
        schema[col] = {
            "role": "quasi",
            "kind": "categorical" if kind == "categorical" else "numeric",
        }
        if kind != "numeric":
            hierarchies[col] = draw(trees(domain))
            schema[col]["hierarchy"] = hierarchies[col]
    data[SA] = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))
    schema[SA] = {"role": "sensitive"}
    data["note"] = list(range(n))
    schema["note"] = {"role": "insensitive", "kind": "numeric"}
    df = pd.DataFrame(data, index=pd.RangeIndex(100, 100 + n))
    return df, schema, hierarchies


models_st = st.tuples(
    st.integers(1, 4), st.sampled_from([None, 1, 2, 3]), st.sampled_from([None, 0.2, 0.5, 1.0])
)


def as_config(k: int, ell, t) -> list[dict]:
    out = [{"k_anonymity": {"k": k}}]
    if ell is not None:
        out.append({"l_diversity": {"l": ell}})
    if t is not None:
        out.append({"t_closeness": {"t": t, "distance": "equal"}})
    return out


def feasible(df: pd.DataFrame, k: int, ell) -> bool:
    return len(df) >= k and (ell is None or df[SA].nunique() >= ell)


# ---------------------------------------------------------------------------------- properties
@SETTINGS
@given(tables(), models_st, st.booleans())
def test_mondrian_releases_are_valid_fixpoints(table, models, relaxed):
    df, schema, hierarchies = table
    k, ell, t = models
    if not feasible(df, k, ell):
        with pytest.raises(InfeasibleError):
            mondrian(df, schema, models=as_config(k, ell, t), relaxed=relaxed)
        return
    release = mondrian(df, schema, models=as_config(k, ell, t), relaxed=relaxed)
    spec = Spec(schema, hierarchies)
    classes = check_release(release, df, spec, k, ell, t)
    assert release.metadata["relaxed"] is relaxed and release.metadata["suppressed"] == 0
    if relaxed:
        assert release.metadata["partitions"] >= len(classes)
    else:
        assert release.metadata["partitions"] == len(classes)
        assert_fixpoint(classes, df, spec, k, ell, t)


@SETTINGS
@given(tables(), models_st)
def test_local_recoding_releases_are_valid(table, models):
    df, schema, hierarchies = table
    k, ell, t = models
    extra = as_config(k, ell, t)[1:] or None
    if not feasible(df, k, ell):
        with pytest.raises(InfeasibleError):
            local_recoding(df, schema, k=k, models=extra)
        return
    release = local_recoding(df, schema, k=k, models=extra)
    classes = check_release(release, df, Spec(schema, hierarchies), k, ell, t)
    assert release.metadata["groups"] >= len(classes)
    assert release.metadata["parameters"] == {"k": k}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=60),
    st.integers(1, 6),
)
def test_one_numeric_quasi_identifier(values, k):
    """Strict Mondrian on one attribute is the recursive median split, computed here directly."""
    df = pd.DataFrame({"x": values})
    schema = {"x": {"role": "quasi", "kind": "numeric"}}
    if k > len(values):
        return
    release = mondrian(df, schema, models={"k_anonymity": {"k": k}})

    def split(vals: list[int]) -> list[list[int]]:
        vals = sorted(vals)
        median = vals[math.ceil(len(vals) / 2) - 1]
        low = [v for v in vals if v <= median]
        high = [v for v in vals if v > median]
        if len(low) >= k and len(high) >= k:
            return split(low) + split(high)
        return [vals]

    expected = Counter(
        fmt(p[0]) if p[0] == p[-1] else f"[{fmt(p[0])}, {fmt(p[-1])}]"
        for p in split(values)
        for _ in p
    )
    assert Counter(release.data["x"]) == expected


# ---------------------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult():
    schema = adult_schema(sensitive="occupation")  # leaves fnlwgt, education_num, relationship out
    return load_adult().reset_index(drop=True).loc[:, schema.published], schema.select(
        schema.published
    )


def adult_spec(schema) -> Spec:
    described = {a.name: {"role": a.role.value, "kind": a.kind.value} for a in schema}
    return Spec(described, {q: schema.hierarchy(q) for q in schema.quasi})


def test_adult_mondrian_with_pycanon(adult):
    pycanon = pycanon_anonymity()
    df, schema = adult
    models = [{"k_anonymity": {"k": 5}}, {"t_closeness": {"t": 0.2}}]
    release = mondrian(df, schema, models=models)
    classes = check_release(release, df, adult_spec(schema), 5, t=0.2, sa_col="occupation")
    assert release.metadata["partitions"] == len(classes) == 44
    pub, quasi = release.data, schema.quasi
    assert pycanon.k_anonymity(pub, quasi) == k_anonymity(pub, quasi).value >= 5
    assert (
        pycanon.l_diversity(pub, quasi, ["occupation"])
        == l_diversity(pub, quasi, "occupation").value
    )
    assert pycanon.t_closeness(pub, quasi, ["occupation"]) == pytest.approx(
        t_closeness(pub, quasi, "occupation").value, abs=1e-9
    )
    assert pycanon.t_closeness(pub, quasi, ["occupation"]) <= 0.2 + 1e-12


def test_adult_local_recoding_with_pycanon(adult):
    pycanon = pycanon_anonymity()
    df, schema = adult
    release = local_recoding(df, schema, k=5, models={"l_diversity": {"l": 3}})
    classes = check_release(release, df, adult_spec(schema), 5, ell=3, sa_col="occupation")
    assert release.metadata["groups"] >= len(classes)  # two groups may publish one box
    pub, quasi = release.data, schema.quasi
    assert pycanon.k_anonymity(pub, quasi) == k_anonymity(pub, quasi).value >= 5
    assert pycanon.l_diversity(pub, quasi, ["occupation"]) >= 3
