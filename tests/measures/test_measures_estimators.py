"""Estimators of generalized and anatomized releases, KL divergence and Anatomy's RCE."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy, Table
from microanon.core.errors import InputError
from microanon.datasets import adult_schema, load_adult
from microanon.measures.estimators import (
    cover_intervals,
    estimate_joint,
    kl_divergence,
    reconstruction_error,
    true_joint,
)
from microanon.methods.generalize import anatomy

SETTINGS = settings(max_examples=80, deadline=None)

SEX = Hierarchy.from_paths([["*", "M"], ["*", "F"]], name="sex")
SCHEMA = {
    "sex": {"role": "quasi", "hierarchy": SEX},
    "age": {"role": "quasi", "kind": "numeric"},
    "disease": "sensitive",
}
ORIGINAL = pd.DataFrame(
    {
        "sex": ["M", "M", "F", "F", "F", "M"],
        "age": [20, 25, 30, 30, 40, 40],
        "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
    }
)
# Codes: sex M=0, F=1 (hierarchy leaves); age 20, 25, 30, 40; disease cold, flu, hiv (sorted).
TABLE = Table.from_frame(ORIGINAL, SCHEMA)


# ------------------------------------------------------------------------------ worked examples
def test_true_joint_by_hand():
    p = true_joint(TABLE, ["sex", "age"], "disease")
    assert p.shape == (2, 4, 3)
    expected = np.zeros((2, 4, 3))
    for sex, age, dis in [(0, 0, 1), (0, 1, 0), (1, 2, 1), (1, 2, 1), (1, 3, 0), (0, 3, 2)]:
        expected[sex, age, dis] += 1 / 6
    np.testing.assert_allclose(p, expected)
    np.testing.assert_allclose(true_joint(TABLE, [], "disease"), [2 / 6, 3 / 6, 1 / 6])


def test_generalized_estimate_by_hand():
    published = pd.DataFrame(
        {
            "sex": ["M", "M", "*", "*", "*", "M"],
            "age": ["[20, 25]", "[20, 25]", "[30, 40]", "[30, 40]", "[30, 40]", 40],
            "disease": ["flu", "cold", "flu", "flu", "cold", "hiv"],
        }
    )
    q = estimate_joint(published, TABLE, ["sex", "age"], "disease")
    expected = np.zeros((2, 4, 3))
    # Rows 1-2: M x {20, 25}, each record 1/6 over 2 cells.
    expected[0, 0:2, 1] += 1 / 12
    expected[0, 0:2, 0] += 1 / 12
    # Rows 3-5: {M, F} x {30, 40}: flu 2/6 and cold 1/6 over 4 cells.
    expected[:, 2:4, 1] += 2 / 6 / 4
    expected[:, 2:4, 0] += 1 / 6 / 4
    # Row 6 is exact.
    expected[0, 3, 2] += 1 / 6
    np.testing.assert_allclose(q, expected, atol=1e-15)
    assert q.sum() == pytest.approx(1.0)


def test_anatomized_estimate_by_hand():
    qit = pd.DataFrame(
        {
            "sex": ["M", "M", "F", "F", "F", "M"],
            "age": [20, 25, 30, 30, 40, 40],
            "group": [1, 1, 2, 2, 3, 3],
        }
    )
    stt = pd.DataFrame(
        {
            "group": [1, 1, 2, 3, 3],
            "disease": ["flu", "cold", "flu", "cold", "hiv"],
            "count": [1, 1, 2, 1, 1],
        }
    )
    q = estimate_joint({"qit": qit, "st": stt}, TABLE, ["sex", "age"], "disease")
    expected = np.zeros((2, 4, 3))
    expected[0, 0, [0, 1]] = 1 / 12  # (M, 20): group 1 = {flu, cold}
    expected[0, 1, [0, 1]] = 1 / 12  # (M, 25)
    expected[1, 2, 1] = 2 / 6  # (F, 30) twice: group 2 = {flu, flu}
    expected[1, 3, [0, 2]] = 1 / 12  # (F, 40): group 3 = {cold, hiv}
    expected[0, 3, [0, 2]] = 1 / 12  # (M, 40)
    np.testing.assert_allclose(q, expected, atol=1e-15)
    # The same through the columns in the other order, and with the sensitive marginal only.
    np.testing.assert_allclose(
        estimate_joint({"qit": qit, "st": stt}, TABLE, ["age", "sex"], "disease"),
        expected.transpose(1, 0, 2),
    )
    np.testing.assert_allclose(
        estimate_joint({"qit": qit, "st": stt}, TABLE, [], "disease"), [2 / 6, 3 / 6, 1 / 6]
    )


def test_hierarchy_labels_and_ranges_cover_runs_of_codes():
    h = Hierarchy.from_paths(
        [["*", "young", 20], ["*", "young", 25], ["*", "old", 30], ["*", "old", 40]], name="age"
    )
    lo, hi = cover_intervals(
        ["young", "old", "*", 30, "[21, 40)", "(20, 30]"], h.leaves, hierarchy=h, column="age"
    )
    assert lo.tolist() == [0, 2, 0, 2, 1, 1]
    assert hi.tolist() == [2, 4, 4, 3, 3, 3]


def test_cover_errors():
    with pytest.raises(InputError, match="'x'.*'nope'"):
        cover_intervals(["nope"], ["a", "b"], column="x")
    with pytest.raises(InputError, match="numeric domain"):
        cover_intervals(["[1, 2]"], ["a", "b"], column="x")
    with pytest.raises(InputError, match="covers no original value"):
        cover_intervals(["[50, 60]"], [20, 30], column="x")
    with pytest.raises(InputError, match="leaves"):
        cover_intervals(["M"], ["F", "M"], hierarchy=SEX, column="sex")


def test_kl_by_hand():
    assert kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(
        0.5 * math.log(2) + 0.5 * math.log(2 / 3)
    )
    assert kl_divergence([0.5, 0.5, 0.0], [0.5, 0.5, 0.0]) == 0.0
    # Q is clipped at 0, renormalized and floored at 1e-12.
    assert kl_divergence([0.5, 0.5], [-0.5, 1.0]) == pytest.approx(
        0.5 * math.log(0.5 / 1e-12) + 0.5 * math.log(0.5)
    )
    assert kl_divergence([1, 3], [1, 1]) == pytest.approx(kl_divergence([0.25, 0.75], [0.5, 0.5]))


def test_kl_errors():
    with pytest.raises(InputError, match="shape"):
        kl_divergence([1.0], [0.5, 0.5])
    with pytest.raises(InputError, match="non-negative"):
        kl_divergence([-0.1, 1.1], [0.5, 0.5])
    with pytest.raises(InputError, match="no positive"):
        kl_divergence([0.5, 0.5], [0.0, -1.0])
    with pytest.raises(InputError, match="finite"):
        kl_divergence([0.5, 0.5], [np.nan, 1.0])


def test_rce_by_definition_on_aligned_records():
    """RCE from the ST alone equals the per-tuple definition evaluated with the true values."""
    df = pd.DataFrame({"id": [f"r{i}" for i in range(11)], "disease": list("aaabbbcccdd")})
    rel = anatomy(df, {"id": "quasi", "disease": "sensitive"}, l=3, rng=4)
    truth = dict(zip(df["id"], df["disease"], strict=True))
    stt = rel.tables["st"]
    dist = {
        g: dict(zip(s["disease"], s["count"] / s["count"].sum(), strict=True))
        for g, s in stt.groupby("group")
    }
    rce = 0.0
    for rid, g in zip(rel.tables["qit"]["id"], rel.tables["qit"]["group"], strict=True):
        rce += sum((p - (v == truth[rid])) ** 2 for v, p in dist[g].items())
    assert reconstruction_error(rel) == pytest.approx(rce)
    # A hand-made ST with repeated values: group {a, a, b}: 3 - (4 + 1)/3 = 4/3.
    hand = pd.DataFrame({"group": [1, 1], "disease": ["a", "b"], "count": [2, 1]})
    assert reconstruction_error({"st": hand}) == pytest.approx(4 / 3)


# ------------------------------------------------------------------------------ errors
def test_estimate_errors():
    published = ORIGINAL.copy()
    with pytest.raises(InputError, match="not in the original"):
        estimate_joint(published, TABLE, ["zip"], "disease")
    with pytest.raises(InputError, match="also listed"):
        estimate_joint(published, TABLE, ["disease"], "disease")
    with pytest.raises(InputError, match="no column"):
        estimate_joint(published.drop(columns="age"), TABLE, ["age"], "disease")
    with pytest.raises(InputError, match="Table"):
        estimate_joint(published, ORIGINAL, ["age"], "disease")
    with pytest.raises(InputError, match="Release"):
        estimate_joint([1, 2], TABLE, ["age"], "disease")
    qit = ORIGINAL[["sex", "age"]].assign(group=[1, 1, 2, 2, 3, 3])
    stt = pd.DataFrame({"group": [1, 2, 3], "disease": ["flu"] * 3, "count": [2, 2, 1]})
    with pytest.raises(InputError, match="group sizes"):
        estimate_joint({"qit": qit, "st": stt}, TABLE, ["age"], "disease")
    with pytest.raises(InputError, match="st"):
        reconstruction_error({"data": ORIGINAL})


def test_dense_size_limit_names_the_size():
    df = load_adult()
    table = Table.from_frame(
        df, adult_schema(quasi=["fnlwgt", "age", "education"], sensitive="occupation")
    )
    with pytest.raises(InputError, match=r"cells \(28523 x 100 x 16 x 14\)"):
        true_joint(table, ["fnlwgt", "age", "education"], "occupation")


# ------------------------------------------------------------------------------ properties
@st.composite
def small_tables(draw):
    n = draw(st.integers(3, 30))
    col = st.lists
    return pd.DataFrame(
        {
            "sex": draw(col(st.sampled_from(["M", "F"]), min_size=n, max_size=n)),
            "age": draw(col(st.sampled_from([20, 25, 30, 40]), min_size=n, max_size=n)),
            "disease": [f"d{i % 4}" for i in range(n)],
        }
    )


@SETTINGS
@given(small_tables(), st.integers(0, 2**32 - 1))
def test_anatomy_estimate_properties(df, seed):
    ell = 2 if len(df) < 8 else 3
    if df["disease"].value_counts().max() * ell > len(df):
        return
    table = Table.from_frame(df, SCHEMA)
    rel = anatomy(df, SCHEMA, l=ell, rng=seed)
    q = estimate_joint(rel, table, ["sex", "age"], "disease")
    p = true_joint(table, ["sex", "age"], "disease")
    assert q.sum() == pytest.approx(1.0)
    assert (q >= 0).all()
    np.testing.assert_allclose(q.sum(axis=-1), p.sum(axis=-1), atol=1e-12)  # QI marginal
    np.testing.assert_allclose(q.sum(axis=(0, 1)), p.sum(axis=(0, 1)), atol=1e-12)  # SA
    assert kl_divergence(p, q) >= 0


AGE = Hierarchy.from_paths(
    [["*", "young", 20], ["*", "young", 25], ["*", "old", 30], ["*", "old", 40]], name="age"
)


@SETTINGS
@given(small_tables(), st.integers(0, 1), st.integers(0, 2))
def test_generalized_estimate_properties(df, sex_level, age_level):
    schema = {**SCHEMA, "age": {"role": "quasi", "kind": "numeric", "hierarchy": AGE}}
    table = Table.from_frame(df, schema)
    published = table.recode({"sex": sex_level, "age": age_level}).to_frame()
    q = estimate_joint(published, table, ["sex", "age"], "disease")
    p = true_joint(table, ["sex", "age"], "disease")
    assert q.sum() == pytest.approx(1.0)
    assert (q >= 0).all()
    np.testing.assert_allclose(q.sum(axis=(0, 1)), p.sum(axis=(0, 1)), atol=1e-12)
    if sex_level == age_level == 0:
        np.testing.assert_allclose(q, p, atol=1e-12)
        assert kl_divergence(p, q) == pytest.approx(0.0, abs=1e-9)
    # Uniform spreading inside each generalized cell: cells of one box share one value.
    if age_level == 2 and sex_level == 1:
        for s in range(q.shape[-1]):
            assert np.allclose(q[..., s], q[0, 0, s])


def test_adult_estimates_against_the_truth():
    df = load_adult()
    schema = adult_schema(sensitive="occupation")
    table = Table.from_frame(df, schema)
    cols = ["age", "sex"]
    p = true_joint(table, cols, "occupation")
    anat = estimate_joint(anatomy(df, schema, l=3, rng=0), table, cols, "occupation")
    coarse = table.recode({"age": 3, "sex": 1}).to_frame()
    gen = estimate_joint(coarse, table, cols, "occupation")
    kl_anat, kl_gen = kl_divergence(p, anat), kl_divergence(p, gen)
    # Anatomy keeps the QIs exact; the coarse recoding blurs them, so it estimates worse.
    assert 0 < kl_anat < kl_gen
    np.testing.assert_allclose(anat.sum(axis=-1), p.sum(axis=-1), atol=1e-12)
