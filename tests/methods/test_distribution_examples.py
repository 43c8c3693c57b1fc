"""Worked examples of Koudas, Srivastava, Yu & Zhang (PVLDB 2009) for MinSumOfRange and minSORFake.

Figure 2, the examples of Sec. 3 and Sec. 4 and Examples 1–5, exactly (every number re-derived
by hand; Example 4 with its erratum).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon import HierarchyError, InputError
from microanon.methods.distribution import (
    AnnotatedHierarchy,
    assign,
    fake_budget,
    materialize,
    min_sor_fake,
    min_sum_of_range,
)

SALARY = AnnotatedHierarchy.balanced([30, 40, 50, 60])  # H_s with uniform U
H8 = AnnotatedHierarchy.balanced(range(1, 9))
H16 = AnnotatedHierarchy.balanced(range(1, 17))


def entries(gen) -> list[tuple[int, int, int]]:
    return sorted(map(tuple, gen.subdomains.to_numpy().tolist()))


def test_salary_hierarchy_structure():
    assert SALARY.parent.tolist() == [-1, 0, 0, 1, 1, 2, 2]
    assert SALARY.node_range.tolist() == [30, 10, 10, 0, 0, 0, 0]
    assert SALARY.reduced_weight.tolist() == [1] * 7
    assert SALARY.unit.tolist() == [2, 2, 2, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("group", "expected", "total"),
    [
        ([30, 40, 50, 60], [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)], 0),
        ([40, 30, 50], [(30, 40, 1), (30, 60, 1), (50, 60, 1)], 50),
        ([40, 60, 60, 60], [(30, 40, 1), (30, 60, 2), (50, 60, 1)], 80),
        # Example 1: root allocation (2, 2) leaves two root copies.
        (
            [30, 30, 40, 40, 50, 60],
            [(30, 30, 1), (30, 60, 2), (40, 40, 1), (50, 50, 1), (60, 60, 1)],
            60,
        ),
    ],
)
def test_figure2_and_example1(group, expected, total):
    gen = min_sum_of_range(group, SALARY)
    assert entries(gen) == expected
    assert gen.sum_of_ranges == total
    assert gen.n_entries == len(group)


def test_both_example_generalizations_are_valid_for_30_30_50_60():
    # {{30,40},{30,40},{50},{60}} generalizes {30,30,50,60}; the optimum finds it (sum 20).
    gen = min_sum_of_range([30, 30, 50, 60], SALARY)
    assert entries(gen) == [(30, 40, 2), (50, 50, 1), (60, 60, 1)]


def test_maximum_m_bound_allocation_example():
    # A node X with children weights (1,2,2,1) and counts (3,8,6,9) receiving m = 15 passes down
    # (2,4,4,2) (the paper's example for Problem 4.1). X sits under a root next to a leaf Y of
    # weight 2, so the root's reduced weights are 3:1 and, with 5 values at Y, X receives c·3 = 15.
    values = np.arange(5)
    parent = [-1, 0, 0, 1, 1, 1, 1]
    lo, hi = [0, 0, 4, 0, 1, 2, 3], [5, 4, 5, 1, 2, 3, 4]
    h = AnnotatedHierarchy(values, np.array([1, 2, 2, 1, 2]), parent, lo, hi)
    group = np.repeat(values, [3, 8, 6, 9, 5])
    gen = min_sum_of_range(group, h)
    assert gen.copies[3:7].tolist() == [2, 4, 4, 2]
    assert gen.copies[1] == 15 - 12 and gen.copies[2] == 5
    assert gen.copies[0] == len(group) - 20


def test_gcd_reduction_matters():
    h = AnnotatedHierarchy(np.array([1, 2]), np.array([2, 2]), [-1, 0, 0], [0, 0, 1], [2, 1, 2])
    assert entries(min_sum_of_range([1, 2], h)) == [(1, 1, 1), (2, 2, 1)]


def test_example2_one_fake_beats_two():
    r = min_sor_fake([1, 3, 5], H8, 2)
    assert r.sor_by_fakes.tolist() == [13, 4, 11]
    assert r.sum_of_ranges == 4 and len(r.fakes) == 1 and r.fakes[0] in (7, 8)


def test_example3_local_optimum_is_not_global():
    r = min_sor_fake([1, 3, 5, 7], H8, 4)
    assert r.sor_by_fakes.tolist() == [4, 11, 10, 17, 0]
    assert r.fakes.tolist() == [2, 4, 6, 8] and r.sum_of_ranges == 0
    assert min_sum_of_range([1, 3, 5, 7, 1, 5], H8).sum_of_ranges == 10
    assert entries(min_sum_of_range([1, 3, 5, 7, 1, 5], H8)) == [
        (1, 2, 1), (1, 4, 1), (3, 4, 1), (5, 6, 1), (5, 8, 1), (7, 8, 1)
    ]  # fmt: skip
    singles = [min_sum_of_range([1, 3, 5, 7, f], H8).sum_of_ranges for f in range(1, 9)]
    assert singles == [11] * 8
    triples = [
        min_sum_of_range([1, 3, 5, 7, a, b, c], H8).sum_of_ranges
        for a in range(1, 9)
        for b in range(a, 9)
        for c in range(b, 9)
    ]
    assert min(triples) == 17 and max(triples) == 25
    assert all(min_sum_of_range([1, 3, 5, 7, 1, 5, x], H8).sum_of_ranges == 17 for x in range(1, 9))


def test_example4_left_fake_is_better():
    g = [1, 1, 1, 2, 3, 4, 5, 6, 7, 9, 9, 11, 11, 13, 13, 15, 15]
    assert min_sum_of_range(g, H16).sum_of_ranges == 47
    with9 = min_sum_of_range(g + [9], H16)
    assert with9.sum_of_ranges == 46
    assert entries(with9) == sorted(
        [(1, 8, 3)]
        + [(a, a + 1, 2) for a in (9, 11, 13, 15)]
        + [(1, 2, 1), (3, 4, 1), (5, 6, 1), (7, 8, 1), (1, 4, 1), (5, 8, 1), (9, 16, 1)]
    )
    with8 = min_sum_of_range(g + [8], H16)
    assert with8.sum_of_ranges == 38
    assert entries(with8) == sorted(
        [(1, 16, 2)] + [(a, a + 1, 2) for a in (9, 11, 13, 15)] + [(v, v, 1) for v in range(1, 9)]
    )
    # Errata: fakes 10, 12, 14, 16 give 44, not 46.
    right = {f: min_sum_of_range(g + [f], H16).sum_of_ranges for f in range(9, 17)}
    assert right == {9: 46, 10: 44, 11: 46, 12: 44, 13: 46, 14: 44, 15: 46, 16: 44}
    r = min_sor_fake(g, H16, 1)
    assert r.sor_by_fakes.tolist() == [47, 38] and r.fakes.tolist() == [8]


def test_example5_vector_and_optimal_fakes():
    g = [1, 2, 3, 5, 6, 7, 7]
    r = min_sor_fake(g, H8, 3)
    assert r.sor_by_fakes.tolist() == [17, 2, 7, 6]
    assert r.fakes.tolist() == [4] and r.sum_of_ranges == 2
    assert min_sum_of_range(g + [4, 8], H8).sum_of_ranges == 7
    assert min_sor_fake(g, H8, 2).sum_of_ranges == 2


def test_fakes_zero_equals_min_sum_of_range():
    g = [1, 2, 2, 5, 8, 8, 8]
    r = min_sor_fake(g, H8, 0)
    assert r.sor_by_fakes.tolist() == [min_sum_of_range(g, H8).sum_of_ranges]
    assert np.array_equal(r.copies, min_sum_of_range(g, H8).copies) and r.fakes.size == 0


def test_materialize_is_a_generalization():
    g = np.array([1, 2, 3, 5, 6, 7, 7])
    r = min_sor_fake(g, H8, 3)
    node = materialize(g, r, rng=1)
    allv = np.concatenate([g, r.fakes])
    assert np.all((H8.low[node] <= allv) & (allv <= H8.high[node]))
    assert np.array_equal(np.bincount(node, minlength=H8.n_nodes), r.copies)


def test_assign_is_a_permutation_of_the_entries():
    gen = min_sum_of_range([40, 60, 60, 60], SALARY)
    got = assign(gen.copies, 4, rng=3)
    assert sorted(got.tolist()) == sorted(np.repeat(np.arange(7), gen.copies).tolist())


def test_fake_budget():
    assert fake_budget(3, 100) == 3
    assert fake_budget(0.1, 1427) == 142
    assert fake_budget(0.2, 1427) == 285
    assert fake_budget(2.0, 10) == 2
    for bad in (-1, 1.5, float("nan"), "2", True):
        with pytest.raises(InputError, match="fakes"):
            fake_budget(bad, 10)


def test_targets_and_scaling():
    dom = np.arange(1, 11)
    z = AnnotatedHierarchy.balanced(dom, target={"zipf": {"s": 1.0}}, scale=1000)
    assert z.scale == 1000 and z.weights[0] > z.weights[-1] and abs(z.weights.sum() - 1000) <= 5
    n = AnnotatedHierarchy.balanced(dom, target={"normal": {"mean": 5, "variance": 2}}, scale=100)
    assert n.weights.argmax() == 4 and n.target["name"] == "normal"
    e = AnnotatedHierarchy.balanced(dom, target="empirical", data=np.array([1, 1, 3]))
    assert e.weights.tolist() == [2, 0, 1] + [0] * 7 and e.scale is None
    p = AnnotatedHierarchy.balanced(dom, target={"pmf": {1: 1, 10: 3}})
    assert p.weights[0] == 1 and p.weights[-1] == 3 and p.scale is None
    t = AnnotatedHierarchy.balanced(dom, arity=3)
    assert t.child_count[0] == 3
    d = AnnotatedHierarchy.from_dict(z.to_dict())
    assert np.array_equal(d.weights, z.weights) and d.target == z.target


def test_bad_inputs():
    with pytest.raises(InputError, match="not in the domain"):
        min_sum_of_range([30, 45], SALARY)
    with pytest.raises(InputError, match="target"):
        AnnotatedHierarchy.balanced([1, 2], target="poisson")
    with pytest.raises(InputError, match="variance"):
        AnnotatedHierarchy.balanced([1, 2], target={"normal": {"variance": -1}})
    with pytest.raises(InputError, match="not in the sensitive domain"):
        AnnotatedHierarchy.balanced([1, 2], target={"pmf": {3: 1.0}})
    with pytest.raises(InputError, match="arity"):
        AnnotatedHierarchy.balanced([1, 2], arity=1)
    with pytest.raises(InputError, match="positive sum"):
        AnnotatedHierarchy.balanced([1, 2], target={"pmf": {1: 0}})
    # probabilities that do not sum to 1 (a value forgotten): refused, not renormalized
    with pytest.raises(InputError, match="sum to 0.6, not 1"):
        AnnotatedHierarchy.balanced([1, 2, 3], target={"pmf": {1: 0.2, 2: 0.4}})
    with pytest.raises(HierarchyError, match="no mass"):
        AnnotatedHierarchy(np.array([1, 2]), np.array([0, 0]), [-1, 0, 0], [0, 0, 1], [2, 1, 2])
    with pytest.raises(HierarchyError, match="breadth-first|root"):
        AnnotatedHierarchy(np.array([1, 2]), np.array([1, 1]), [0, 0, 0], [0, 0, 1], [2, 1, 2])
    with pytest.raises(HierarchyError, match="single value"):
        AnnotatedHierarchy(
            np.array([1, 2, 3]), np.array([1, 1, 1]), [-1, 0, 0], [0, 0, 2], [3, 2, 3]
        )


def test_subdomains_frame():
    gen = min_sum_of_range([40, 30, 50], SALARY)
    assert isinstance(gen.subdomains, pd.DataFrame)
    assert list(gen.subdomains.columns) == ["low", "high", "count"]
    assert "sum_of_ranges=50" in repr(gen)


def test_resolution_rounds_every_split():
    h = AnnotatedHierarchy.balanced(range(1, 9), target={"zipf": {"s": 1.0}}, resolution=16)
    assert h.target == {"name": "zipf", "s": 1.0, "resolution": 16} and h.scale is None
    inner = np.flatnonzero(h.child_count)
    assert np.all(16 % h.unit[inner] == 0)  # reduced splits of sixteenths
    # Root split of 1/i over 1..8: left 2.083 of 2.718 = 12.26/16 -> 12 : 4.
    assert h.node_weight[1] * 4 == h.node_weight[2] * 12
    with pytest.raises(InputError, match="scale or resolution"):
        AnnotatedHierarchy.balanced(range(1, 9), scale=10, resolution=16)
    with pytest.raises(InputError, match="resolution"):
        AnnotatedHierarchy.balanced(range(1, 9), resolution=1)
    with pytest.raises(InputError, match="2\\*\\*53"):
        AnnotatedHierarchy.balanced(range(1, 2**14), resolution=16)
