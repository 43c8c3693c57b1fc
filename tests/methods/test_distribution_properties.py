"""Property tests: minSORFake equals brute force over fake multisets; every generalization is
P-private (exact rationals) and a generalization of its group (Definition 3.1)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.methods.distribution import (
    AnnotatedHierarchy,
    allocate,
    materialize,
    min_sor_fake,
    min_sum_of_range,
)


def p_private(h: AnnotatedHierarchy, copies: np.ndarray) -> bool:
    """Definition 3.2 in exact arithmetic: Σ_i P(v | 𝒟_i) = n·P(v) for every value v."""
    w = [int(x) for x in h.weights]
    total = sum(w)
    n = int(copies.sum())
    lhs = [Fraction(0)] * len(w)
    for node in np.flatnonzero(copies):
        lo, hi = int(h.lo[node]), int(h.hi[node])
        mass = sum(w[lo:hi])
        if mass == 0:
            return False
        for v in range(lo, hi):
            lhs[v] += Fraction(int(copies[node]) * w[v], mass)
    return all(lhs[v] == Fraction(n * w[v], total) for v in range(len(w)))


@st.composite
def cases(draw, max_values=8, max_group=9):
    size = draw(st.integers(2, max_values))
    arity = draw(st.sampled_from([2, 2, 3]))
    weights = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    if sum(weights) == 0:
        weights[0] = 1
    h = AnnotatedHierarchy(
        *_tree(np.arange(1, size + 1), np.array(weights), arity),
    )
    group = draw(st.lists(st.integers(1, size), min_size=1, max_size=max_group))
    return h, np.array(group)


def _tree(values, weights, arity):
    ref = AnnotatedHierarchy.balanced(values, arity=arity)
    return values, weights, ref.parent, ref.lo, ref.hi


@settings(max_examples=60, deadline=None)
@given(cases(max_values=6, max_group=6), st.integers(0, 3))
def test_min_sor_fake_equals_brute_force(case, t):
    h, group = case
    result = min_sor_fake(group, h, t)
    domain = h.values.tolist()
    for k in range(t + 1):
        brute = min(
            (
                min_sum_of_range(np.concatenate([group, f]).astype(int), h).sum_of_ranges
                for f in itertools.combinations_with_replacement(domain, k)
            ),
            default=np.inf,
        )
        assert result.sor_by_fakes[k] == brute
    assert result.sum_of_ranges == min(result.sor_by_fakes)
    assert len(result.fakes) == int(np.argmin(result.sor_by_fakes))


@settings(max_examples=80, deadline=None)
@given(cases(), st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_every_generalization_is_p_private_and_covers_the_group(case, t, seed):
    h, group = case
    for gen in (min_sum_of_range(group, h), min_sor_fake(group, h, t)):
        assert p_private(h, gen.copies)
        assert gen.n_entries == len(group) + len(gen.fakes)
        node = materialize(group, gen, rng=seed)
        allv = np.concatenate([group, gen.fakes])
        assert np.all((h.low[node] <= allv) & (allv <= h.high[node]))
        assert np.array_equal(np.bincount(node, minlength=h.n_nodes), gen.copies)
        # Reconstructed fakes reproduce the optimum when solved without fakes.
        assert min_sum_of_range(allv, h).sum_of_ranges == gen.sum_of_ranges


@settings(max_examples=40, deadline=None)
@given(cases(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_allocate_many_groups_equals_one_at_a_time(case, n_groups, seed):
    h, _ = case
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(n_groups, len(h.values)))
    together = allocate(h, counts)
    for g in range(n_groups):
        values = np.repeat(h.values, counts[g])
        assert np.array_equal(together[g], min_sum_of_range(values, h).copies)
