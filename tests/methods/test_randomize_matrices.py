from __future__ import annotations

import numpy as np
import pytest

from microanon import InputError
from microanon.methods.randomize import (
    check_distortion,
    inverse_frobenius_sq,
    kron_apply,
    uniform_inverse,
    uniform_retention,
)


# p = 1/d is singular and p below it is outside the allowed range: only p > 1/d.
@pytest.mark.parametrize(
    ("d", "p"), [(d, p) for d in (2, 3, 7, 16) for p in (0.2, 0.5, 0.9, 1.0) if p > 1 / d]
)
def test_lemma4_closed_forms(d, p):
    # Lemma 4 of Guo, Ying & Wu (2011): numeric ‖inv(P)‖_F² equals both closed forms
    inv = np.linalg.inv(uniform_retention(d, p))
    numeric = float((inv**2).sum())
    second = d * (d * p**2 - 2 * p + d**2 - 3 * d + 3) / (d * p - 1) ** 2
    assert numeric == pytest.approx(inverse_frobenius_sq(d, p), abs=1e-8, rel=1e-10)
    assert numeric == pytest.approx(second, abs=1e-8, rel=1e-10)
    assert np.allclose(uniform_inverse(d, p), inv)


def test_lemma4_example_value():
    assert inverse_frobenius_sq(2, 0.8) == pytest.approx(1 + 1 / 0.36)


def test_kron_apply_equals_the_explicit_product():
    rng = np.random.default_rng(0)
    mats = [uniform_retention(2, 0.8), None, uniform_retention(4, 0.9)]
    x = rng.random((2, 3, 4))
    full = np.kron(np.kron(mats[0], np.eye(3)), mats[2])
    assert np.allclose(kron_apply(mats, x).reshape(-1), full @ x.reshape(-1))


@pytest.mark.parametrize(
    "matrix, message",
    [
        (np.ones((2, 3)) / 2, "square"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), "column 1 sums"),
        (np.array([[1.5, 0.0], [-0.5, 1.0]]), "non-negative"),
        (np.full((3, 3), 1 / 3), "singular"),
    ],
)
def test_bad_matrices(matrix, message):
    with pytest.raises(InputError, match=message):
        check_distortion(matrix, "occupation")


def test_singular_uniform_inverse_and_bad_p():
    with pytest.raises(InputError, match="singular"):
        uniform_inverse(3, 1 / 3)
    with pytest.raises(InputError, match="outside"):
        uniform_retention(3, 0.2)
    assert inverse_frobenius_sq(3, 1 / 3) == float("inf")
