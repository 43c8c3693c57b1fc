"""Property tests of GTR against brute force in exact arithmetic, and of the compression."""

from __future__ import annotations

import importlib
import itertools
from fractions import Fraction as F
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy
from microanon.methods.collect import CollectedSet, Survey, gtr, protects
from microanon.methods.collect.attack import RespondentSums, as_collected, as_tau

#: The module (the package re-exports the function ``gtr`` under the same name).
_gtr_module = importlib.import_module("microanon.methods.collect.gtr")

TAUS = [F(1, 10), F(1, 4), F(1, 3), F(2, 5), F(1, 2), F(3, 5), F(2, 3), F(7, 10), F(3, 4), 1]
WEIGHTS = [1, 1, 1, 2, 3, 0.5, 0.1, 0.3]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------- strategies
@st.composite
def trees(draw: st.DrawFn, prefix: str) -> Hierarchy:
    """A random taxonomy (depth ≤ 3, fan-out 1–3, uneven depths, random leaf weights)."""
    counter = itertools.count()
    paths: list[list[str]] = []

    def grow(path: list[str], depth: int) -> None:
        n = draw(st.integers(1, 3)) if depth < 3 else 0
        if depth > 0 and n > 0 and draw(st.booleans()) and len(path) > 1:
            n = 0
        if n == 0 or (depth == 0 and n == 1 and draw(st.booleans())):
            if depth == 0:
                n = 2
            else:
                paths.append(path)
                return
        for _ in range(n):
            grow([*path, f"{prefix}{next(counter)}"], depth + 1)

    grow([f"{prefix}*"], 0)
    weights = draw(st.lists(st.sampled_from(WEIGHTS), min_size=len(paths), max_size=len(paths)))
    return Hierarchy.from_paths(paths, weights=weights if draw(st.booleans()) else None)


def nodes(h: Hierarchy) -> list[Any]:
    return [h.label(v) for v in range(h.n_nodes)]


@st.composite
def instances(draw: st.DrawFn) -> tuple[Survey, list[tuple], tuple, Any]:
    m = draw(st.integers(1, 3))
    names = [f"q{j}" for j in range(m)]
    hs = {n: draw(trees(n)) for n in names}
    hs["s"] = draw(trees("s"))
    survey = Survey(hs, names, "s")
    attrs = survey.attributes
    o = draw(st.tuples(*[st.sampled_from(hs[a].leaves) for a in attrs]))
    near = st.tuples(*[st.sampled_from(chain(hs[a], v)) for a, v in zip(attrs, o, strict=True)])
    anywhere = st.tuples(*[st.sampled_from(nodes(hs[a])) for a in attrs])
    size = draw(st.sampled_from([0, 1, 3, 5]))
    g = draw(st.lists(near | anywhere, min_size=size, max_size=size + 4))
    tau = draw(st.sampled_from(TAUS) | st.sampled_from([0.3, 0.45, 0.55, 0.8]))
    return survey, g, o, tau


# ---------------------------------------------------------------------- reference
def _node(h: Hierarchy, label: Any) -> int:
    return int(h.node_of([label])[0])


def _mass(h: Hierarchy, node: int) -> F:
    lo, hi = h.leaf_range(node)
    return sum((F(float(w)) for w in h.weights[int(lo) : int(hi)]), F(0))


def _pair(h: Hierarchy, leaf_label: Any, label: Any) -> F:
    """l(a, v): the leaf's weight if v covers it, else 0."""
    leaf, node = _node(h, leaf_label), _node(h, label)
    lo, hi = h.leaf_range(node)
    i = int(h.leaf_range(leaf)[0])
    return F(float(h.weights[i])) if lo <= i < hi else F(0)


def ref_pv(survey: Survey, g: list[tuple], o: tuple) -> F:
    """Pv(o, G) from eqs. 1–3, tuple by tuple, in Fractions."""
    hs = [tx.hierarchy for tx in survey.taxonomies]
    sa = hs[-1]
    total, joint = F(0), {a: F(0) for a in sa.leaves}
    for t in g:
        phi = F(1)
        for h, ov, tv in zip(hs[:-1], o[:-1], t[:-1], strict=True):
            phi *= _pair(h, ov, tv) / _mass(h, _node(h, tv))
        if phi == 0:
            continue
        total += phi
        for a in sa.leaves:
            joint[a] += phi * _pair(sa, a, t[-1]) / _mass(sa, _node(sa, t[-1]))
    if total == 0:
        return F(1)
    return 1 - max(joint.values()) / total


def chain(h: Hierarchy, leaf_label: Any) -> list[Any]:
    v, out = _node(h, leaf_label), []
    parents = h.parents()
    while v >= 0:
        out.append(h.label(v))
        v = int(parents[v])
    return out


def ref_gtr(survey: Survey, g: list[tuple], o: tuple, tau: Any, loss: str) -> tuple | None:
    """Brute force over every generalization of o, with the documented tie order."""
    tau = F(repr(tau)) if isinstance(tau, float) else F(tau)
    hs = [tx.hierarchy for tx in survey.taxonomies]
    chains = [chain(h, v) for h, v in zip(hs, o, strict=True)]
    best = None
    for steps in itertools.product(*[range(len(c)) for c in chains]):
        t = tuple(c[s] for c, s in zip(chains, steps, strict=True))
        if ref_pv(survey, [*g, t], o) < tau:
            continue
        total_loss = F(0)
        for h, v in zip(hs, t, strict=True):
            i = int(h.leaf_count(_node(h, v)))
            den = h.n_leaves if loss == "paper" else h.n_leaves - 1
            total_loss += F(i - 1, den) if den else 0
        phi = F(1)
        for h, ov, tv in zip(hs[:-1], o[:-1], t[:-1], strict=True):
            phi *= _pair(h, ov, tv) / _mass(h, _node(h, tv))
        key = (total_loss, -phi, steps[:-1], steps[-1])
        if best is None or key < best[0]:
            best = (key, t)
    return None if best is None else best[1]


# ---------------------------------------------------------------------- properties
@SETTINGS
@given(instances(), st.sampled_from(["paper", "normalized"]))
def test_collect_properties_exact_is_brute_force(inst: tuple, loss: str) -> None:
    survey, g, o, tau = inst
    got = gtr(o, g, survey, tau, loss=loss)
    want = ref_gtr(survey, g, o, tau, loss)
    assert (None if got is None else got.labels) == want
    if got is not None:
        assert ref_pv(survey, [*g, got.labels], o) >= (
            F(repr(tau)) if isinstance(tau, float) else tau
        )
        assert protects(o, got.labels, g, survey, tau)


@SETTINGS
@given(instances())
def test_collect_properties_greedy_protects(inst: tuple) -> None:
    survey, g, o, tau = inst
    got = gtr(o, g, survey, tau, mode="greedy")
    if got is not None:
        assert survey.generalizes(got.labels, o)
        assert protects(o, got.labels, g, survey, tau)
        best = gtr(o, g, survey, tau)
        assert best is not None and best.loss <= got.loss


@SETTINGS
@given(instances(), st.sampled_from(["paper", "normalized"]))
def test_collect_properties_greedy_abstains_only_when_exact_does(inst: tuple, loss: str) -> None:
    """Greedy mode abstains exactly when exact mode does (no protecting tuple exists)."""
    survey, g, o, tau = inst
    greedy = gtr(o, g, survey, tau, mode="greedy", loss=loss)
    exact = gtr(o, g, survey, tau, loss=loss)
    assert (greedy is None) == (exact is None)


@SETTINGS
@given(instances(), st.sampled_from(["paper", "normalized"]))
def test_collect_properties_complete_search_is_exact(inst: tuple, loss: str) -> None:
    """The depth-first search greedy mode falls back on returns exact mode's answer, ties
    included, on every instance (not only where the greedy subroutines find nothing)."""
    survey, g, o, tau = inst
    sums = RespondentSums(survey, as_collected(g, survey), survey.encode_base(o))
    p = _gtr_module._Problem(survey, sums, as_tau(tau), loss)
    assert _gtr_module._search(p) == _gtr_module._exact(p)


@SETTINGS
@given(instances(), st.lists(st.integers(0, 10**6), min_size=1, max_size=12))
def test_collect_properties_sequential_acceptance(inst: tuple, seeds: list[int]) -> None:
    """Every accepted submission protects its respondent w.r.t. the set at acceptance time."""
    survey, g, _, tau = inst
    collected = CollectedSet.from_tuples(survey, g)
    leaves = [tx.hierarchy.leaves for tx in survey.taxonomies]
    for seed in seeds:
        rng = np.random.default_rng(seed)
        o = tuple(ls[int(rng.integers(len(ls)))] for ls in leaves)
        mode = "exact" if seed % 2 else "greedy"
        t = gtr(o, collected, survey, tau, mode=mode)
        if t is not None:
            before = [lab for lab, n in collected.pairs() for _ in range(n)]
            assert ref_pv(survey, [*before, t.labels], o) >= (
                F(repr(tau)) if isinstance(tau, float) else tau
            )
            collected.add(t.labels)


@SETTINGS
@given(instances(), st.lists(st.integers(1, 300), max_size=8))
def test_collect_properties_compression(inst: tuple, counts: list[int]) -> None:
    survey, g, o, tau = inst
    g = g[: len(counts)] if counts else g
    cnt = counts[: len(g)] if counts else None
    collected = CollectedSet.from_tuples(survey, g, cnt)
    for encoding in ("index", "bits"):
        data = collected.to_bytes(encoding)
        back = CollectedSet.from_bytes(survey, data)
        assert back == collected
        assert back.version == collected.version
        assert back.pairs() == collected.pairs()
    raw = [lab for lab, n in collected.pairs() for _ in range(n)]
    a = gtr(o, raw, survey, tau)
    b = gtr(o, collected, survey, tau)
    c = gtr(o, CollectedSet.from_bytes(survey, collected.to_bytes()), survey, tau)
    assert a == b == c
