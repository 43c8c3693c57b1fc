"""Multiplicative (log-normal) noise: noise with a nonlinear transformation for skewed data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InputError
from microanon.methods.sdc import add_noise, additive_noise, multiplicative_noise


def _skew(v: np.ndarray) -> float:
    d = v - v.mean()
    return float((d**3).mean() / (d**2).mean() ** 1.5)


@pytest.fixture(scope="module")
def incomes() -> np.ndarray:
    return np.random.default_rng(0).lognormal(10, 0.5, 100_000)


def test_positivity_and_skewness_kept(incomes):
    x = incomes
    y = multiplicative_noise(x, 0.5, rng=1)
    assert (y > 0).all()
    # Right skew kept: ln Y = ln X + e is normal again, so Y is log-normal with a larger
    # log-variance (skewness 1.75 -> 2.04 in theory); additive noise of the same share of the
    # spread pulls the distribution towards the symmetric normal and yields negative values.
    assert _skew(y) >= 0.95 * _skew(x) > 1.5
    assert abs(_skew(np.log(y))) < 0.05
    z = additive_noise(x, 1.5, rng=1)
    assert (z < 0).any() and _skew(z) < 0.5 * _skew(x)


def test_moments(incomes):
    x, alpha = incomes, 0.5
    y = multiplicative_noise(x, alpha, rng=2)
    # Mean kept in expectation: E[exp(e)] = 1 (within 3 standard errors).
    se = y.std() / np.sqrt(len(y))
    assert abs(y.mean() - x.mean()) < 3 * se
    # Log-scale variance grows to (1 + α²)·Var(ln X).
    assert np.log(y).var(ddof=1) == pytest.approx((1 + alpha**2) * np.log(x).var(ddof=1), rel=0.02)
    # The change is relative: ln(y/x) does not depend on x.
    assert abs(np.corrcoef(np.log(x), np.log(y / x))[0, 1]) < 0.02


def test_zero_noise_and_shape():
    x = np.array([[1.0, 5.0], [2.0, 6.0], [4.0, 9.0]])
    assert np.allclose(multiplicative_noise(x, 0.0, rng=0), x)
    assert multiplicative_noise(x[:, 0], 0.3, rng=0).shape == (3,)


def test_release_and_errors():
    df = pd.DataFrame({"income": [1200.0, 3400.0, 56000.0, 800.0], "age": [30, 40, 50, 0]})
    schema = {
        "income": {"role": "quasi", "kind": "numeric"},
        "age": {"role": "quasi", "kind": "numeric"},
    }
    rel = add_noise(df, schema, method="multiplicative", noise=0.2, columns=["income"], rng=3)
    assert (rel.data["income"] > 0).all() and rel.data["age"].tolist() == [30, 40, 50, 0]
    assert rel.metadata["parameters"]["method"] == "multiplicative"
    sd_log = np.log(df["income"]).std(ddof=1)
    assert rel.metadata["noise_scale"]["income"] == pytest.approx(0.2 * sd_log)
    with pytest.raises(InputError, match="column 'age' holds values <= 0"):
        add_noise(df, schema, method="multiplicative", noise=0.2)
    with pytest.raises(InputError, match="noise"):
        add_noise(df, schema, method="multiplicative", columns=["income"])
    with pytest.raises(InputError, match="positive values; column 0, row 1"):
        multiplicative_noise([1.0, -2.0], 0.1)
