"""Reconstructions on the simplex: EM (maximum likelihood) and the Euclidean projection."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.methods.randomize import uniform_retention
from microanon.methods.randomize.matrices import kron_apply
from microanon.methods.randomize.reconstruct import Reconstruction
from microanon.methods.randomize.simplex import em_reconstruct, project_simplex


def test_em_recovers_pi_from_exact_observation():
    rng = np.random.default_rng(5)
    pi = rng.dirichlet(np.ones(12)).reshape(3, 4)
    mats = [uniform_retention(3, 0.7), uniform_retention(4, 0.6)]
    est, steps = em_reconstruct(kron_apply(mats, pi), mats, tol=1e-13, max_iter=100_000)
    assert est == pytest.approx(pi, abs=1e-6)
    assert steps > 1


def test_em_matches_the_inverse_when_it_is_a_distribution():
    pi = np.array([0.5, 0.3, 0.2])
    m = uniform_retention(3, 0.8)
    rec = Reconstruction.from_observed(m @ pi, [m], 100)
    assert rec.distribution(method="em") == pytest.approx(rec.estimate, abs=1e-6)
    assert rec.distribution(method="projection") == pytest.approx(rec.estimate, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=6, max_size=6).filter(lambda c: sum(c) > 0),
    st.floats(0.55, 1.0),
    st.floats(0.4, 1.0),
)
def test_every_estimate_is_a_distribution(counts, p1, p2):
    lam = np.array(counts, dtype=float).reshape(2, 3) / sum(counts)
    mats = [uniform_retention(2, p1), uniform_retention(3, p2)]
    rec = Reconstruction.from_observed(lam, mats, sum(counts))
    for method in ("em", "projection"):
        q = rec.distribution(method=method)
        assert q.shape == (2, 3) and q.min() >= 0 and q.sum() == pytest.approx(1.0)
    assert rec.distribution().sum() == pytest.approx(1.0)  # default unchanged: the raw estimate
    assert np.array_equal(rec.distribution(), rec.estimate)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.5, 1.5), min_size=2, max_size=3))
def test_projection_is_the_closest_point_of_a_grid(values):
    v = np.array(values)
    proj = project_simplex(v)
    assert proj.min() >= 0 and proj.sum() == pytest.approx(1.0)
    best = np.inf
    steps = np.linspace(0.0, 1.0, 201)
    for head in itertools.product(steps, repeat=len(v) - 1):
        last = 1.0 - sum(head)
        if last < -1e-12:
            continue
        best = min(best, float(np.sum((np.array([*head, max(last, 0.0)]) - v) ** 2)))
    assert float(np.sum((proj - v) ** 2)) <= best + 1e-12


def test_bad_input():
    with pytest.raises(InputError, match="method"):
        Reconstruction.from_observed(np.array([0.5, 0.5]), [None], 2, method="ml")
    with pytest.raises(InputError, match="finite"):
        project_simplex([np.nan, 1.0])
    with pytest.raises(InputError, match="sum to 1"):
        em_reconstruct([0.5, 0.6], [None])
    with pytest.raises(InputError, match="max_iter"):
        em_reconstruct([0.5, 0.5], [None], max_iter=0)
