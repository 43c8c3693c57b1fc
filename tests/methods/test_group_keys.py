"""``group_keys``: equal keys grouped, groups numbered in ascending key order, by each of its ways
(dense, hashed, by radix, sorted with the row numbers packed in, argsorted; the sorts stable or
not), against :func:`numpy.unique`; the radix sort's order against numpy's stable argsort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.factorize import KEY_LIMIT, few_distinct, radix_order
from microanon.methods.generalize import _lattice_frequencies as lattice


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 2**40), min_size=1, max_size=12),
    st.lists(st.integers(0, 11), min_size=1, max_size=300),
    st.sampled_from(["dense", "hashed", "radix", "sorted", "argsorted"]),
    st.booleans(),
)
def test_groups_are_numpy_unique_in_every_way(values, picks, way, runs):
    keys = np.array([values[p % len(values)] for p in picks], dtype=np.int64)
    space = 2**41
    saved = lattice._HASH_ROWS, lattice.few_distinct
    try:
        if way == "dense":
            keys = keys % 97
            space = 97
        elif way == "radix":  # two 16-bit digits
            keys = keys % 2**32
            space = 2**32
        elif way == "argsorted":  # keys times rows would overflow: no packing
            space = KEY_LIMIT
        lattice._HASH_ROWS = 1 if way == "hashed" else 2**62
        lattice.few_distinct = lambda key: True
        if runs:  # (ascending runs, as a roll-up's keys have)
            keys = np.concatenate([np.sort(part) for part in np.array_split(keys, 3)])
        ids, n_groups, rep = lattice.group_keys(keys, space, runs)
    finally:
        lattice._HASH_ROWS, lattice.few_distinct = saved
    uniques, inverse = np.unique(keys, return_inverse=True)
    assert n_groups == len(uniques)
    assert ids.tolist() == inverse.reshape(-1).tolist()
    assert keys[rep].tolist() == uniques.tolist()


def test_a_sample_tells_repeated_keys_from_distinct_ones():
    rng = np.random.default_rng(0)
    assert few_distinct(rng.integers(0, 1000, 200_000))
    assert not few_distinct(rng.permutation(200_000))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([0, 1, 7, 1000, 70_000]),
    st.sampled_from([1, 2, 300, 2**16, 2**16 + 1, 2**32, 2**40, 2**48]),
)
def test_the_radix_order_is_the_stable_argsort(seed, n, space):
    keys = np.random.default_rng(seed).integers(0, space, n)
    order = radix_order(keys, space)
    if order is None:  # more than two digits for few keys, or more than three
        assert space > 2**32 and (n < 2**16 or space > 2**48)
        return
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()
