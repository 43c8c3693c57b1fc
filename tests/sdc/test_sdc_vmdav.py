"""V-MDAV (variable group sizes) and microaggregation within strata."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InfeasibleError, InputError
from microanon.measures.perturbative import sse as sse_of
from microanon.methods.sdc import mdav_groups, microaggregation, vmdav_groups
from microanon.models import check_release


def _sse(x: np.ndarray, labels: np.ndarray) -> float:
    x = np.asarray(x, dtype=float).reshape(len(labels), -1)
    total = 0.0
    for g in np.unique(labels):
        part = x[labels == g]
        total += float(((part - part.mean(axis=0)) ** 2).sum())
    return total


def test_hand_worked_example():
    # Centroid 65/7 ≈ 9.29; farthest record 21 -> {21, 20}; the nearest outside record, 11, is 9
    # from the group but 1 from 10: 9 < 1.1·1 fails, the group stays {20, 21}. Then 0 (farthest
    # left) -> {0, 1}; 2 is 1 from the group and 8 from 10: 1 < 8.8, it joins (size 3 = the cap
    # min(2k-1, |R|-k) = 3). The last two records, {10, 11}, form the last group.
    x = [0, 1, 2, 10, 11, 20, 21]
    labels = vmdav_groups(x, 2, gamma=1.1)
    assert labels.tolist() == [1, 1, 1, 2, 2, 0, 0]
    assert _sse(np.array(x), labels) == pytest.approx(3.0)
    # Fixed-size MDAV cuts the cluster {0, 1, 2}: {21, 20}, {0, 1}, then {2, 10, 11}.
    fixed = mdav_groups(x, 2)
    assert fixed.tolist() == [1, 1, 2, 2, 2, 0, 0]
    assert _sse(np.array(x), fixed) == pytest.approx(0.5 + 0.5 + 146 / 3)


def _plain_vmdav(x: list[list[int]], k: int, gamma: float) -> list[int]:
    """The module's loop transcribed record by record in Python (exact on whole numbers): the
    farthest, the k - 1 nearest and the next record each the first of equals by index."""
    n = len(x)
    if k == 1:
        return list(range(n))

    def dist(a: list[int], b: list[int]) -> int:
        return sum((u - v) ** 2 for u, v in zip(a, b, strict=True))

    centroid = [sum(col) / n for col in zip(*x, strict=True)]
    labels, group = [-1] * n, 0
    while labels.count(-1) >= 2 * k:
        free = [i for i in range(n) if labels[i] < 0]
        e = max(free, key=lambda i: (dist(x[i], centroid), -i))
        members = [e, *sorted((i for i in free if i != e), key=lambda i: (dist(x[i], x[e]), i))]
        members = members[:k]
        for m in members:
            labels[m] = group
        cap = min(2 * k - 1, len(free) - k)
        while len(members) < cap:
            rest = [i for i in range(n) if labels[i] < 0]
            near = {i: min(dist(x[i], x[m]) for m in members) for i in rest}
            e_min = min(rest, key=lambda i: (near[i], i))
            d_out = min(dist(x[e_min], x[i]) for i in rest if i != e_min)
            if not np.sqrt(near[e_min]) < gamma * np.sqrt(d_out):
                break
            labels[e_min] = group
            members.append(e_min)
        group += 1
    return [group if v < 0 else v for v in labels]


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda p: st.lists(
            st.lists(st.integers(-3, 3), min_size=p, max_size=p), min_size=1, max_size=40
        )
    ),
    st.integers(1, 6),
    st.sampled_from([0.2, 1.1, 3.0]),
)
def test_the_groups_equal_the_loop_record_by_record(x, k, gamma):
    """Whole-number records (many equal distances): the vectorized groups are those of the
    loop transcribed in plain Python, ties included."""
    k = min(k, len(x))
    assert vmdav_groups(np.array(x, dtype=float), k, gamma).tolist() == _plain_vmdav(x, k, gamma)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 8),
    st.integers(20, 150),
    st.integers(2, 12),
    st.floats(0.2, 2.0),
    st.integers(0, 2**32 - 1),
)
def test_the_groups_equal_the_loop_on_few_distinct_points(p, points, n, k, gamma, seed):
    """Records of a few distinct points, each repeated in scattered rows (the groups are formed
    on the points): groups that take part of a point's records, a next record whose equal is
    left (at 0 from it), points tied at one distance whose records interleave, groups of one
    point's records formed at once; the same groups as the loop record by record."""
    rng = np.random.default_rng(seed)
    distinct = rng.integers(-3, 4, size=(points, p))
    x = distinct[rng.integers(0, points, size=n)].tolist()
    expected = _plain_vmdav(x, k, gamma)
    assert vmdav_groups(np.array(x, dtype=float), k, gamma).tolist() == expected


def test_small_gamma_does_not_extend():
    # γ → 0: no record is ever close enough; groups of k except the last (k..2k-1), as MDAV's.
    x = np.random.default_rng(0).normal(size=(50, 2))
    sizes = np.bincount(vmdav_groups(x, 4, gamma=1e-9))
    assert (sizes[:-1] == 4).all() and 4 <= sizes[-1] <= 7


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("gamma", [0.2, 1.1, 5.0])
def test_group_sizes_between_k_and_2k_minus_1(seed, gamma):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 120)), int(rng.integers(2, 6))
    k = min(k, n)
    x = rng.normal(size=(n, 3)) * rng.uniform(0.1, 10, 3)
    labels = vmdav_groups(x, k, gamma)
    sizes = np.bincount(labels)
    assert labels.shape == (n,) and sorted(np.unique(labels)) == list(range(len(sizes)))
    if n >= 2 * k:
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    else:
        assert sizes.tolist() == [n]


def test_natural_clusters_beat_fixed_size_mdav():
    # 30 well-separated clusters of 3, 4 or 5 records; k = 3: MDAV's fixed groups of 3 cut the
    # clusters of 4 and 5, V-MDAV (γ = 1.1, the paper's value for clustered data) keeps them.
    rng = np.random.default_rng(7)
    centres = rng.uniform(0, 1000, size=(30, 2))
    sizes = rng.integers(3, 6, 30)
    x = np.vstack(
        [c + rng.normal(scale=1.0, size=(s, 2)) for c, s in zip(centres, sizes, strict=True)]
    )
    v, m = vmdav_groups(x, 3, 1.1), mdav_groups(x, 3)
    assert _sse(x, v) <= _sse(x, m)
    assert _sse(x, v) < 0.5 * _sse(x, m)
    assert sse_of(x, groups=v) == pytest.approx(_sse(x, v))


def test_vmdav_edge_cases():
    assert vmdav_groups([[1.0], [2.0], [3.0]], 1).tolist() == [0, 1, 2]
    assert vmdav_groups([1.0, 2.0, 3.0], 2).tolist() == [0, 0, 0]  # n < 2k: one group
    with pytest.raises(InputError, match="gamma"):
        vmdav_groups([1.0, 2.0, 3.0], 2, gamma=0)
    with pytest.raises(InfeasibleError):
        vmdav_groups([1.0, 2.0], 3)


@pytest.fixture
def table():
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame(
        {
            "income": rng.lognormal(10, 1, n).round(),
            "age": rng.integers(18, 90, n),
            "region": rng.choice(["north", "south", "east"], n),
            "disease": rng.choice(["a", "b"], n),
        }
    )
    schema = {
        "income": {"role": "quasi", "kind": "numeric"},
        "age": {"role": "quasi", "kind": "numeric"},
        "region": "quasi",
        "disease": "sensitive",
    }
    return df, schema


def test_vmdav_release_is_k_anonymous(table):
    df, schema = table
    rel = microaggregation(df, schema, k=4, method="vmdav", gamma=1.1, categorical=["region"])
    sizes = rel.data.groupby(["income", "age", "region"]).size()
    assert sizes.min() >= 4
    assert rel.metadata["min_group_size"] >= 4 and rel.metadata["max_group_size"] <= 7
    verdicts = check_release(rel)
    assert len(verdicts) == 1 and all(v.holds for v in verdicts)


def test_strata_each_stratum_on_its_own(table):
    df, schema = table
    rel = microaggregation(df, schema, k=3, strata=["region"])
    assert rel.metadata["strata"] == 3
    assert rel.metadata["parameters"]["strata"] == ["region"]
    assert rel.data["region"].tolist() == df["region"].tolist()  # published as it is
    # Every stratum is exactly what microaggregating it alone publishes.
    for region, part in df.groupby("region"):
        alone = microaggregation(part.reset_index(drop=True), schema, k=3)
        mask = (df["region"] == region).to_numpy()
        for c in ("income", "age"):
            assert np.allclose(rel.data.loc[mask, c].to_numpy(), alone.data[c].to_numpy())
    # No group mixes strata; the strata column is a quasi-identifier covered by the partition.
    assert rel.data.groupby(["income", "age"])["region"].nunique().max() == 1
    verdicts = check_release(rel)
    assert len(verdicts) == 1 and all(v.holds for v in verdicts)


def test_strata_errors(table):
    df, schema = table
    small = df.copy()
    small.loc[0, "region"] = "west"  # a stratum of one record
    with pytest.raises(InfeasibleError, match="region = 'west'"):
        microaggregation(small, schema, k=3, strata=["region"])
    with pytest.raises(InputError, match="strata: column 'age'"):
        microaggregation(df, schema, k=3, columns=["income", "age"], strata=["age"])
    with pytest.raises(InputError, match="strata: column 'nowhere'"):
        microaggregation(df, schema, k=3, strata=["nowhere"])
    # A numeric strata column is left out of the default columns.
    banded = df.assign(age=df["age"] // 30 * 30)
    rel = microaggregation(banded, schema, k=2, strata=["age"])
    assert rel.metadata["parameters"]["columns"] == ["income"]
    assert rel.data["age"].tolist() == banded["age"].tolist()
