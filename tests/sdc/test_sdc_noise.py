"""Noise addition: the textbook properties on large fixed-seed samples; releases; errors."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from microanon.core.errors import InputError
from microanon.methods.sdc.noise import (
    add_noise,
    additive_noise,
    correlated_noise,
    geometric_noise,
    kim_noise,
    laplace_noise,
)

N = 200_000
COV = np.array([[4.0, 1.8, -0.6], [1.8, 9.0, 2.4], [-0.6, 2.4, 1.0]])
MEAN = np.array([10.0, -5.0, 100.0])


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return np.random.default_rng(2024).multivariate_normal(MEAN, COV, size=N)


def _corr(a: np.ndarray) -> np.ndarray:
    return np.corrcoef(a, rowvar=False)


def _means_within_3_se(x: np.ndarray, y: np.ndarray) -> None:
    se = y.std(axis=0, ddof=1) / np.sqrt(len(y))
    assert np.all(np.abs(y.mean(axis=0) - x.mean(axis=0)) < 3 * se)


def test_additive_keeps_means_and_covariances_and_shrinks_correlations(x):
    alpha = 0.8
    y = additive_noise(x, alpha, rng=1)
    _means_within_3_se(x, y)
    cx, cy = np.cov(x, rowvar=False), np.cov(y, rowvar=False)
    # Variances grow by (1 + α²) (σ_j = α·sd_j), covariances stay.
    np.testing.assert_allclose(np.diag(cy) / np.diag(cx), 1 + alpha**2, rtol=0.02)
    off = ~np.eye(3, dtype=bool)
    scale = np.sqrt(np.outer(np.diag(cx), np.diag(cx)))
    assert np.all(np.abs(cy - cx)[off] / scale[off] < 0.02)
    np.testing.assert_allclose(_corr(y)[off] / _corr(x)[off], 1 / (1 + alpha**2), rtol=0.05)
    # Independent noise: its correlation matrix is the identity.
    np.testing.assert_allclose(_corr(y - x), np.eye(3), atol=0.01)


def test_correlated_keeps_means_and_correlations(x):
    alpha = 0.5
    y = correlated_noise(x, alpha, rng=2)
    _means_within_3_se(x, y)
    np.testing.assert_allclose(
        np.cov(y, rowvar=False), (1 + alpha) * np.cov(x, rowvar=False), rtol=0.03, atol=0.03
    )
    np.testing.assert_allclose(_corr(y), _corr(x), atol=0.01)
    # The noise itself has the data's correlation structure.
    np.testing.assert_allclose(_corr(y - x), _corr(x), atol=0.01)


@pytest.mark.parametrize("alpha", [0.1, 1.0, 3.0])
def test_kim_keeps_means_and_covariance_matrix_exactly(x, alpha):
    y = kim_noise(x, alpha, rng=3)
    np.testing.assert_allclose(y.mean(axis=0), x.mean(axis=0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.cov(y, rowvar=False), np.cov(x, rowvar=False), rtol=1e-9)
    # y = c·(x − x̄ + e) + x̄ with e ⟂ x: corr(x_j, y_j) is exactly c = (1 + α)^(-1/2).
    for j in range(3):
        assert np.corrcoef(x[:, j], y[:, j])[0, 1] == pytest.approx(1 / np.sqrt(1 + alpha))


def test_kim_small_sample_is_still_exact():
    x = np.random.default_rng(5).normal(size=(7, 3))  # n = 2p + 1
    y = kim_noise(x, 0.5, rng=0)
    np.testing.assert_allclose(np.cov(y, rowvar=False), np.cov(x, rowvar=False), atol=1e-9)
    assert not np.allclose(x, y)


def test_laplace_noise_follows_the_laplace_distribution(x):
    y = laplace_noise(x, epsilon=0.5, sensitivity=[1.0, 2.0, 4.0], rng=4)
    for j, scale in enumerate([2.0, 4.0, 8.0]):
        e = y[:, j] - x[:, j]
        assert stats.kstest(e, stats.laplace(scale=scale).cdf).pvalue > 0.001
        assert np.mean(np.abs(e)) == pytest.approx(scale, rel=0.02)


def test_geometric_noise_follows_the_two_sided_geometric_distribution():
    x = np.random.default_rng(6).integers(-50, 50, size=N)
    eps, sens = 0.7, 2.0
    y = geometric_noise(x, eps, sens, rng=7)
    assert y.dtype == np.int64
    e = y - x
    # P(z) = (1 − q)/(1 + q)·q^|z| with q = exp(−ε/Δ) is scipy's dlaplace with a = ε/Δ.
    dist = stats.dlaplace(eps / sens)
    support = np.arange(-15, 16)
    observed = np.array([np.count_nonzero(e == z) for z in support])
    tails = [np.count_nonzero(e < -15), np.count_nonzero(e > 15)]
    expected = np.r_[dist.pmf(support), dist.cdf(-16), dist.sf(15)] * len(e)
    assert stats.chisquare(np.r_[observed, tails], expected).pvalue > 0.001
    assert e.mean() == pytest.approx(0, abs=3 * np.sqrt(dist.var() / len(e)))


def test_one_dimensional_input_and_zero_noise():
    x = np.arange(10.0)
    assert additive_noise(x, 0.0, rng=0).shape == (10,)
    np.testing.assert_array_equal(correlated_noise(x, 0.0, rng=0), x)
    np.testing.assert_allclose(kim_noise(x, 0.0, rng=0), x)


# ---------------------------------------------------------------------- DataFrame level
SCHEMA = {
    "income": {"role": "quasi", "kind": "numeric"},
    "age": {"role": "quasi", "kind": "numeric"},
    "region": "quasi",
    "name": "identifier",
    "visits": {"role": "sensitive", "kind": "numeric"},
}


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 500
    return pd.DataFrame({
        "name": [f"p{i}" for i in range(n)],
        "income": rng.lognormal(10, 1, n),
        "age": rng.integers(18, 90, n),
        "region": rng.choice(["n", "s"], n),
        "visits": rng.integers(0, 20, n),
    })  # fmt: skip


@pytest.mark.parametrize("method", ["additive", "correlated", "kim"])
def test_add_noise_release_gaussian(frame, method):
    rel = add_noise(frame, SCHEMA, method=method, noise=0.5, rng=0)
    data = rel.data
    assert rel.kind == "masked"
    assert list(data.columns) == ["income", "age", "region", "visits"]
    assert data["region"].tolist() == frame["region"].tolist()
    assert data["visits"].tolist() == frame["visits"].tolist()
    assert not np.allclose(data["income"], frame["income"])
    m = rel.metadata
    assert m["parameters"] == {
        "method": method, "noise": 0.5, "epsilon": None, "sensitivity": None,
        "columns": ["income", "age"],
    }  # fmt: skip
    assert m["rows_in"] == m["rows_out"] == 500
    assert ("noise_scale" in m) == (method == "additive")
    again = add_noise(frame, SCHEMA, method=method, noise=0.5, rng=0)
    assert again.equals(rel)


def test_add_noise_laplace_and_geometric(frame):
    rel = add_noise(
        frame, SCHEMA, method="laplace", epsilon=1.0, sensitivity={"income": 1000, "visits": 1},
        columns=["income", "visits"], rng=1,
    )  # fmt: skip
    assert rel.metadata["noise_scale"] == {"income": 1000.0, "visits": 1.0}
    assert rel.data["age"].tolist() == frame["age"].tolist()
    geo = add_noise(
        frame, SCHEMA, method="geometric", epsilon=1.0, sensitivity=1, columns=["visits"], rng=1
    )
    assert pd.api.types.is_integer_dtype(geo.data["visits"])
    assert geo.metadata["noise_scale"] == {"visits": pytest.approx(np.exp(-1.0))}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "gaussian", "noise": 1}, "method"),
        ({"method": "additive"}, "needs noise"),
        ({"method": "additive", "noise": -1}, "noise"),
        ({"method": "additive", "noise": float("nan")}, "noise"),
        ({"method": "additive", "noise": 1, "epsilon": 1}, "not epsilon"),
        ({"method": "laplace", "epsilon": 1}, "^sensitivity: .* and sensitivity is not given$"),
        ({"method": "laplace", "sensitivity": 1}, "^epsilon: .* and epsilon is not given$"),
        ({"method": "geometric"}, "^epsilon, sensitivity: .* epsilon and sensitivity are not"),
        ({"method": "laplace", "epsilon": 0, "sensitivity": 1}, "epsilon"),
        ({"method": "laplace", "epsilon": 1, "sensitivity": -2}, "sensitivity"),
        ({"method": "laplace", "noise": 1, "epsilon": 1, "sensitivity": 1}, "not noise"),
        ({"method": "laplace", "epsilon": 1, "sensitivity": {"income": 1}}, "missing: age"),
        ({"method": "laplace", "epsilon": 1, "sensitivity": [1, 2, 3]}, "one number or 2"),
        ({"method": "geometric", "epsilon": 1, "sensitivity": 1}, "'income' holds non-integer"),
        ({"method": "additive", "noise": 1, "columns": ["region"]}, "'region' is categorical"),
        ({"method": "additive", "noise": 1, "columns": ["name"]}, "'name'"),
        ({"method": "additive", "noise": 1, "columns": ["age", "age"]}, "twice"),
    ],
)
def test_add_noise_errors(frame, kwargs, match):
    with pytest.raises(InputError, match=match):
        add_noise(frame, SCHEMA, rng=0, **kwargs)


def test_add_noise_refuses_missing_and_infinite_values(frame):
    # the counts, and what to do: missing values are left out by missing: drop
    n = len(frame)
    with pytest.raises(InputError, match=rf"'income' has {n:,} missing value\(s\).*missing: drop"):
        add_noise(frame.assign(income=np.nan), SCHEMA, noise=1)
    with pytest.raises(InputError, match=rf"'income' holds {n:,} infinite value\(s\)"):
        add_noise(frame.assign(income=np.inf), SCHEMA, noise=1)
    with pytest.raises(InputError, match="empty"):
        add_noise(frame.iloc[:0], SCHEMA, noise=1)


def test_kim_needs_enough_rows(frame):
    with pytest.raises(InputError, match="at least 5 rows"):
        add_noise(frame.iloc[:4], SCHEMA, method="kim", noise=1)


def test_array_level_errors():
    with pytest.raises(InputError, match="integer"):
        geometric_noise(np.array([0.5, 1.0]), 1.0, 1.0)
    with pytest.raises(InputError, match="non-finite"):
        additive_noise(np.array([1.0, np.nan]), 1.0)
    with pytest.raises(InputError, match="at least 2 rows"):
        additive_noise(np.array([1.0]), 1.0)


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.noise")
    assert doctest.testmod(module).failed == 0
