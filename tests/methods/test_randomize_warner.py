from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon import InputError
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.reconstruct import reconstruct
from microanon.methods.randomize.warner import warner, warner_estimate, warner_matrix


def warner_closed_form(yes, p, n):
    est = (yes - (1 - p)) / (2 * p - 1)
    return est, est * (1 - est) / n + p * (1 - p) / (n * (2 * p - 1) ** 2)


@pytest.mark.parametrize("p", [0.0, 0.2, 0.45, 0.55, 0.8, 1.0])
@pytest.mark.parametrize("yes", [0.0, 0.1, 0.38, 0.5, 0.93, 1.0])
def test_estimate_and_variance_are_warners_formulas(yes, p):
    est, var = warner_estimate(yes, p, 250)
    ref_est, ref_var = warner_closed_form(yes, p, 250)
    assert est == pytest.approx(ref_est, abs=1e-12)
    # the same number as λ(1 − λ)/(n(2p − 1)²): never negative, even when π̂ leaves [0, 1]
    assert var == pytest.approx(ref_var, abs=1e-12)
    assert var == pytest.approx(yes * (1 - yes) / (250 * (2 * p - 1) ** 2), abs=1e-12)


def test_warner_matrix_is_uniform_retention():
    for p in (0.6, 0.9, 1.0):
        assert np.allclose(warner_matrix(p), uniform_retention(2, p))
    assert np.allclose(warner_matrix(0.3), [[0.3, 0.7], [0.7, 0.3]])


@pytest.mark.parametrize("p", [0.75, 0.3])
def test_randomized_answers_estimate_the_trait_like_reconstruct(p):
    rng = np.random.default_rng(0)
    n = 20_000
    truth = rng.random(n) < 0.27
    yes = warner(truth, p, rng=rng)
    assert yes.dtype == np.bool_ and yes.shape == truth.shape
    assert abs(np.mean(yes == truth) - p) < 4 * np.sqrt(p * (1 - p) / n)
    est, var = warner_estimate(float(yes.mean()), p, n)
    assert abs(est - truth.mean()) < 4 * np.sqrt(var)
    spec = {"domain": [False, True], "matrix": warner_matrix(p)}
    rec = reconstruct(pd.DataFrame({"trait": yes}), matrices={"trait": spec})
    assert rec.estimate[1] == pytest.approx(est, abs=1e-12)
    assert rec.variance()[1] == pytest.approx(var, abs=1e-15)
    assert rec.count({"trait": True})[0] == pytest.approx(n * est)


def test_warner_is_unbiased_with_the_stated_variance():
    rng = np.random.default_rng(1)
    n, p, pi, reps = 400, 0.7, 0.2, 2000
    truth = np.zeros(n, bool)
    truth[: int(pi * n)] = True
    ests = np.array(
        [warner_estimate(float(warner(truth, p, rng).mean()), p, n)[0] for _ in range(reps)]
    )
    # the table is fixed, so only the randomization varies: Var = p(1 − p)/(n(2p − 1)²)
    var = p * (1 - p) / (n * (2 * p - 1) ** 2)
    assert abs(ests.mean() - pi) < 4 * np.sqrt(var / reps)
    assert ests.var(ddof=1) == pytest.approx(var, rel=0.1)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: warner_estimate(0.4, 0.5, 100), "p = 1/2"),
        (lambda: warner(np.array([True, False]), 0.5), "p = 1/2"),
        (lambda: warner_estimate(0.4, 1.2, 100), r"\[0, 1\]"),
        (lambda: warner_estimate(0.4, "x", 100), "p:"),
        (lambda: warner_estimate(1.4, 0.8, 100), "yes_share"),
        (lambda: warner_estimate(0.4, 0.8, 0), "positive integer"),
        (lambda: warner(np.array([1, 0]), 0.8), "booleans"),
        (lambda: warner(np.array([], bool), 0.8), "non-empty"),
        (lambda: warner(np.ones((2, 2), bool), 0.8), "one-dimensional"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()
