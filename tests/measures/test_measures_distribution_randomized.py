"""estimate_distribution / utility_report on real randomized-response releases.

The reconstruction is that of Guo, Ying & Wu (2011).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import microanon.methods.randomize.release as release_mod
from microanon.core import Table
from microanon.datasets import adult_schema, load_adult
from microanon.measures.distribution import estimate_distribution, utility_report
from microanon.measures.estimators import true_joint

QUASI = ["race", "sex"]


@pytest.fixture(scope="module")
def small():
    data = load_adult().loc[:1999, QUASI + ["income"]].reset_index(drop=True)
    schema = adult_schema(quasi=QUASI, sensitive="income").select(list(data.columns))
    return data, schema, Table.from_frame(data, schema)


def test_keep_everything_reconstructs_the_truth(small):
    data, schema, table = small
    release = release_mod.randomize(data, schema, keep={c: 1.0 for c in data.columns}, rng=0)
    q = estimate_distribution(release, table, QUASI, "income", clip_renorm=False)
    np.testing.assert_allclose(q, true_joint(table, QUASI, "income"), atol=1e-12)
    report = utility_report(release, table, QUASI, "income")
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "query_error_cube"]:
        assert report[key] == pytest.approx(0.0, abs=1e-9), key


def test_randomized_estimate_is_a_distribution(small):
    data, schema, table = small
    release = release_mod.randomize(data, schema, keep={"race": 0.7, "income": 0.8}, rng=0)
    raw = estimate_distribution(release, table, QUASI, "income", clip_renorm=False)
    assert raw.shape == (5, 2, 2) and raw.sum() == pytest.approx(1.0)  # P⁻¹ keeps the sum
    q = estimate_distribution(release, table, ["sex", "race"], "income")
    assert q.shape == (2, 5, 2) and q.sum() == pytest.approx(1.0) and q.min() >= 0
    report = utility_report(release, table, QUASI, "income")
    assert report["kind"] == "randomized"
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "query_error_cube"]:
        assert math.isfinite(report[key]) and report[key] >= 0, key
    assert 0 <= report["u_sa_qi"] <= 1 and 0 <= report["u_qi_qi"] <= 1
