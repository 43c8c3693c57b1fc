"""synthetic_numeric (the synthetic data of Koudas et al., PVLDB 2009)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from microanon.datasets import synthetic_numeric, zipf_probabilities
from microanon.errors import InputError

DISTS = ["uniform", "normal", "zipf"]


@pytest.mark.parametrize("dist", DISTS)
@pytest.mark.parametrize("correlated", [False, True])
def test_shape_range_and_correlation(dist: str, correlated: bool) -> None:
    df = synthetic_numeric(10_000, dist, correlated=correlated, rng=7)
    assert list(df.columns) == ["age", "value"]
    assert df.shape == (10_000, 2)
    assert isinstance(df.index, pd.RangeIndex)
    assert (df.dtypes == "int64").all()
    assert df["age"].between(17, 79).all() and df["value"].between(1024, 3072).all()
    assert df["age"].nunique() == 63
    rho = spearmanr(df["age"], df["value"])[0]
    if correlated:
        assert rho > 0.5
    else:
        assert abs(rho) < 0.1


def test_reproducible_with_seed() -> None:
    a = synthetic_numeric(500, "zipf", correlated=True, rng=3)
    pd.testing.assert_frame_equal(a, synthetic_numeric(500, "zipf", correlated=True, rng=3))
    assert not a.equals(synthetic_numeric(500, "zipf", correlated=True, rng=4))
    gen = np.random.default_rng(3)
    pd.testing.assert_frame_equal(a, synthetic_numeric(500, "zipf", correlated=True, rng=gen))


def test_uniform_marginals() -> None:
    df = synthetic_numeric(20_000, "uniform", low=0, high=9, age_range=(0, 4), rng=1)
    assert set(df["value"]) == set(range(10))
    assert np.allclose(df["value"].value_counts(normalize=True), 0.1, atol=0.01)
    assert np.allclose(df["age"].value_counts(normalize=True), 0.2, atol=0.015)


def test_normal_moments_and_sd() -> None:
    df = synthetic_numeric(20_000, "normal", rng=2)
    assert abs(df["value"].mean() - 2048) < 5
    assert abs(df["value"].std() - 2048 / 6) < 8
    narrow = synthetic_numeric(20_000, "normal", sd=50, rng=2)
    assert abs(narrow["value"].std() - 50) < 2


def test_correlated_normal_follows_the_linear_map() -> None:
    df = synthetic_numeric(20_000, "normal", correlated=True, sd=10, rng=5)
    centre = 1024 + (df["age"] - 17) / 62 * 2048
    assert abs((df["value"] - centre).mean()) < 1
    assert abs((df["value"] - centre).std() - 10) < 1


@pytest.mark.parametrize("s", [0.1, 1.0])
def test_zipf_rank_one_frequency(s: float) -> None:
    n = 50_000
    df = synthetic_numeric(n, "zipf", s=s, rng=11)
    p = zipf_probabilities(2049, s)
    freq = (df["value"] == 1024).mean()
    assert abs(freq - p[0]) < 4 * np.sqrt(p[0] * (1 - p[0]) / n)
    assert df["value"].mean() < 2048  # mass shifted towards small values


def test_zipf_probabilities() -> None:
    p = zipf_probabilities(4, 1.0)
    assert np.allclose(p, np.array([1, 1 / 2, 1 / 3, 1 / 4]) / (25 / 12))
    assert np.isclose(zipf_probabilities(2049, 0.1).sum(), 1.0)
    with pytest.raises(InputError, match="n_values"):
        zipf_probabilities(0, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"n": 0}, "n must"),
        ({"n": 2.5}, "n must"),
        ({"n": True}, "n must"),
        ({"distribution": "poisson"}, "distribution must be one of 'uniform', 'normal', 'zipf'"),
        ({"low": 5, "high": 5}, "low must be smaller than high"),
        ({"low": 1.5}, "low must be an integer"),
        ({"s": 0}, "s must be positive"),
        ({"s": float("nan")}, "s must be a finite number"),
        ({"sd": -1.0}, "sd must be positive"),
        ({"age_range": (30, 20)}, "age_range must have a0 < a1"),
        ({"age_range": (17,)}, "age_range must be two integers"),
        ({"age_range": "17-79"}, "age_range must be two integers"),
        ({"correlated": "yes"}, "correlated"),
        ({"rng": 1.5}, "rng"),
    ],
)
def test_bad_parameters(kwargs: dict, param: str) -> None:
    with pytest.raises(InputError, match=param):
        synthetic_numeric(**kwargs)


def test_single_record_and_small_domain() -> None:
    df = synthetic_numeric(1, "zipf", low=0, high=1, correlated=True, rng=0)
    assert df.shape == (1, 2)
