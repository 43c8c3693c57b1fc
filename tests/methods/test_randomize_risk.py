"""Disclosure risk of randomized response (Guo, Ying & Wu 2011): vectors, Property 1, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from microanon import InputError
from microanon.methods.randomize import uniform_retention
from microanon.methods.randomize.risk import (
    disclosure_risk,
    property1_minimum,
    reconstruction_probability,
)

# Gender (0 = Male, 1 = Female) x Disease (0 = Cancer, 1 = Flu, 2 = Diabetes): our completion of
# the paper's Table 1 example (100 tuples, π_10 = 0.12 female with cancer).
COUNTS = np.array([[10, 30, 20], [12, 16, 12]])
PI = COUNTS / 100


@pytest.mark.parametrize(
    "p, expected",
    [
        (1 / 3, [0.5, 0.3, 0.2]),
        (1.0, [1.0, 1.0, 1.0]),
        (0.6, [0.583929, 0.410357, 0.302143]),
    ],
)
def test_reconstruction_probability_vectors(p, expected):
    # Lemma 1's reconstruction probability: π at p = 1/d (the minimum), 1 at p = 1
    got = reconstruction_probability([0.5, 0.3, 0.2], uniform_retention(3, p))
    assert got == pytest.approx(expected, abs=1e-6)


def test_reconstruction_probability_is_at_least_pi():
    pi = np.array([0.1, 0.6, 0.3])
    for p in np.linspace(1 / 3, 1, 9):
        assert np.all(reconstruction_probability(pi, uniform_retention(3, p)) >= pi - 1e-12)


@pytest.mark.parametrize(
    "keep_g, keep_s, expected",
    [
        (1.0, 1.0, 0.30),  # no randomization: π_10 / π_1
        (0.5, 1.0, 0.12),  # RR-QI minimum = π_10 (the paper's number)
        (1.0, 1 / 3, 0.09),  # RR-S minimum = (π_10 / π_1)²
        (0.5, 1 / 3, 0.036),  # RR-Both minimum = π_10² / π_1
        (0.8, 1.0, 0.183117),
        (1.0, 0.8, 0.191078),
        (0.8, 0.8, 0.116632),
    ],
)
def test_gender_disease_target_risk(keep_g, keep_s, expected):
    risk = disclosure_risk(PI, [keep_g], keep_s)
    assert risk[1, 0] == pytest.approx(expected, abs=1e-6)


def test_gender_disease_risk_matrix_without_randomization():
    expected = [[0.166667, 0.5, 0.333333], [0.3, 0.4, 0.3]]
    assert disclosure_risk(PI, [1.0], 1.0) == pytest.approx(np.array(expected), abs=1e-6)
    # counts give the same risks (the risk is scale-free)
    assert np.allclose(disclosure_risk(COUNTS, [0.7], 0.6), disclosure_risk(PI, [0.7], 0.6))


@pytest.mark.parametrize(
    "scenario, at_minimum, between",
    [
        ("S", (1.0, 1 / 3), (1.0, 0.7)),
        ("QI", (0.5, 1.0), (0.7, 1.0)),
        ("Both", (0.5, 1 / 3), (0.7, 0.7)),
        ("RR-Both", (0.5, 1 / 3), (0.9, 0.5)),
    ],
)
def test_property1_minimum(scenario, at_minimum, between):
    # the floor is the risk at p = 1/d for the randomized attributes, and no p goes below it
    floor = property1_minimum(PI, scenario)
    assert np.allclose(floor, disclosure_risk(PI, [at_minimum[0]], at_minimum[1]), atol=1e-12)
    assert np.all(disclosure_risk(PI, [between[0]], between[1]) >= floor - 1e-12)


def test_empty_cells_have_no_risk():
    pi = np.zeros((2, 2, 2))
    pi[0, 0, 1], pi[0, 1, 0], pi[1, 0, 0], pi[1, 1, 1] = 0.2, 0.1, 0.3, 0.4
    risk = disclosure_risk(pi, [0.7, 0.9], 0.8)
    assert np.all(risk[pi == 0] == 0) and np.all(risk[pi > 0] > 0)
    assert np.all(property1_minimum(pi, "Both")[pi == 0] == 0)


def test_no_quasi_identifier_axis():
    # π of the sensitive attribute alone: the risk is its round trip scaled by π_u
    pi = np.array([0.5, 0.3, 0.2])
    expected = pi * reconstruction_probability(pi, uniform_retention(3, 0.6))
    assert disclosure_risk(pi, [], 0.6) == pytest.approx(expected)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: disclosure_risk(PI, [0.8, 0.8], 0.8), "2 keep probabilities for 1"),
        (lambda: disclosure_risk(PI, [0.4], 0.8), r"keep_qi\[0\].*outside"),
        (lambda: disclosure_risk(PI, [0.8], 1.2), "keep_s.*outside"),
        (lambda: disclosure_risk(-PI, [0.8], 0.8), "non-negative"),
        (lambda: disclosure_risk(np.zeros((2, 3)), [0.8], 0.8), "sum to 0"),
        (lambda: disclosure_risk(np.float64(0.3), [], 0.8), "shape"),
        (lambda: disclosure_risk([[0.1, np.nan]], [1.0], 0.8), "finite"),
        (lambda: property1_minimum(PI, "both ways"), "scenario"),
        (lambda: property1_minimum(PI, None), "scenario"),
        (lambda: reconstruction_probability(PI, np.eye(2)), "one attribute"),
        (lambda: reconstruction_probability([0.5, 0.5], np.eye(3)), "shape"),
        (lambda: reconstruction_probability([0.5, 0.5], [[0.9, 0.1], [0.2, 0.9]]), "columns"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()
