"""The deletion measures of the mixed model and Rating's SID creation with an unstable sort."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InputError
from microanon.measures.multisa_deletions import explain_deletions, group_capacity, max_groups
from microanon.methods.multisa import create_sids, mixed_model


def _brute_max_groups(counts: list[int], ell: int) -> int:
    """Most groups by trying every assignment of records to groups (tiny inputs)."""
    records = [v for v, c in enumerate(counts) for _ in range(c)]
    best = 0
    for g in range(1, len(records) // ell + 1):
        for labels in itertools.product(range(g + 1), repeat=len(records)):  # g: unused
            groups = [[records[i] for i, lab in enumerate(labels) if lab == k] for k in range(g)]
            if all(len(m) == ell and len(set(m)) == ell for m in groups):
                best = g
                break
    return best


@pytest.mark.parametrize(
    "counts, ell", [([3, 1, 1], 2), ([2, 2, 1], 2), ([2, 2, 2], 3), ([4, 1, 1, 1], 3), ([1, 1], 3)]
)
def test_max_groups_equals_brute_force(counts, ell):
    assert max_groups(counts, ell) == _brute_max_groups(counts, ell)


def test_max_groups_rejects_bad_input():
    with pytest.raises(InputError, match="counts"):
        max_groups([-1, 2], 2)
    with pytest.raises(InputError, match="l"):
        max_groups([1, 2], 1)


def test_explain_deletions_on_a_scarce_attribute():
    """s0's third value is held once: at l = 3 one group exists, the six other SAC records are
    forced out."""
    df = pd.DataFrame(
        {
            "rid": range(9),
            "s0": ["a", "a", "b", "b", "a", "b", "c", "a", "b"],
            "s1": ["x", "x", "y", "y", "z", "w", "v", "v", "v"],
        }
    )
    schema = {"rid": "quasi", "s0": "sensitive", "s1": "sensitive"}
    rel = mixed_model(df, schema, l=3, rng=0)
    got = explain_deletions(rel, df)
    assert got["capacity"] == {"s0": 3, "s1": 9}
    assert got["limiting"] == "s0"
    assert (got["sac"], got["deleted"], got["forced"], got["forced_share"]) == (9, 6, 6, 1.0)
    assert got["deleted_by"] == {"s0": 6}
    cap = group_capacity(df, ["s0", "s1"], 2)
    assert cap.loc["s0", "groups"] == 4 and cap.loc["s1", "largest_share"] == pytest.approx(1 / 3)


def test_forced_never_exceeds_deleted():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "rid": range(200),
            "s0": rng.choice(list("abc"), 200, p=[0.6, 0.3, 0.1]),
            "s1": rng.choice(list("wxyz"), 200),
            "s2": rng.choice(list("pqr"), 200),
        }
    )
    schema = {"rid": "quasi", **dict.fromkeys(["s0", "s1", "s2"], "sensitive")}
    for ell in (2, 3):
        got = explain_deletions(mixed_model(df, schema, l=ell, min_confidence=0.3, rng=1), df)
        assert 0 <= got["forced"] <= got["deleted"] <= got["sac"]


def _loss(sids, ell):
    """Σ (|SID| − l) + suppressed: the residual occurrences, each costing one value of AIL."""
    return int((np.bincount(sids.sid, minlength=sids.n_sids) - ell).sum() + sids.suppressed.sum())


@pytest.mark.parametrize("seed", range(20))
def test_unstable_sort_loses_the_same(seed):
    """Random tie orders still take the l largest buckets: as many SIDs, as many residuals."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 6, size=int(rng.integers(2, 9)))
    if sizes.sum() == 0:
        sizes[0] = 1
    ell = int(rng.integers(2, 5))
    stable = create_sids(sizes, ell)
    unstable = create_sids(sizes, ell, unstable=np.random.default_rng(seed + 100))
    assert unstable.n_sids == stable.n_sids
    assert _loss(unstable, ell) == _loss(stable, ell)
    members = np.bincount(unstable.bucket, minlength=len(sizes)) + unstable.suppressed
    assert members.tolist() == sizes.tolist()
    for s in range(unstable.n_sids):
        held = unstable.bucket[unstable.sid == s]
        assert len(held) >= ell and len(set(held.tolist())) == len(held)
