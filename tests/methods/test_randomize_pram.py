from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import InputError
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.pram import invariant_matrix, pram
from microanon.methods.randomize.reconstruct import reconstruct
from microanon.methods.randomize.release import randomize


def sdcmicro_rs(p_row: np.ndarray, freq: np.ndarray, alpha: float) -> np.ndarray:
    """sdcMicro's calcTransitionMatrix (row-stochastic), transcribed loop by loop."""
    L = len(freq)  # noqa: N806 - sdcMicro's names
    p = freq / freq.sum()
    q = p_row.copy()
    for k in range(L):
        s = sum(p * p_row[:, k])
        for j in range(L):
            q[k, j] = p_row[j, k] * p[j] / s
    r = p_row @ q
    return alpha * r + (1 - alpha) * np.eye(L)


@settings(max_examples=60, deadline=None)
@given(
    freq=st.lists(st.integers(0, 50), min_size=1, max_size=6).filter(lambda f: sum(f) > 0),
    t=st.floats(0.05, 1.0),
    alpha=st.floats(0.0, 1.0),
)
def test_invariant_matrix_is_stochastic_with_the_original_as_stationary_distribution(
    freq, t, alpha
):
    f = np.array(freq, dtype=float)
    d = len(f)
    keep = 1.0 if d == 1 else 1 / d + t * (1 - 1 / d)
    r = invariant_matrix(f, keep, alpha=alpha)
    pi = f / f.sum()
    assert r.shape == (d, d)
    assert np.all(r >= -1e-15)
    assert np.allclose(r.sum(axis=0), 1.0, atol=1e-12)
    assert np.allclose(r @ pi, pi, atol=1e-12)
    if np.all(f > 0):  # sdcMicro's loop divides by zero for a value no record publishes
        assert np.allclose(r, sdcmicro_rs(uniform_retention(d, keep), f, alpha).T, atol=1e-12)


def test_invariant_matrix_from_a_general_basic_matrix():
    rng = np.random.default_rng(0)
    basic = rng.random((4, 4)) + 2 * np.eye(4)
    basic /= basic.sum(axis=0)
    f = np.array([10.0, 40.0, 5.0, 45.0])
    r = invariant_matrix(f, basic, alpha=0.7)
    pi = f / f.sum()
    assert np.allclose(r @ pi, pi) and np.allclose(r.sum(axis=0), 1)
    assert np.allclose(r, sdcmicro_rs(basic.T, f, 0.7).T)
    # α = 1: R = Q P, and the identity stays the identity
    assert np.allclose(invariant_matrix(f, np.eye(4)), np.eye(4))
    assert np.allclose(invariant_matrix(f, 0.8, alpha=0.0), np.eye(4))


def test_invariant_matrix_example_values():
    # d = 2, π = (0.75, 0.25), p = 0.8: λ = (0.65, 0.35); Q = [[0.6/0.65, 0.15/0.35], ...]
    r = invariant_matrix(np.array([3, 1]), 0.8)
    q = np.array([[0.6 / 0.65, 0.15 / 0.35], [0.05 / 0.65, 0.2 / 0.35]])
    assert np.allclose(r, q @ uniform_retention(2, 0.8))


@pytest.mark.parametrize(
    "freq, keep, kwargs, message",
    [
        ([], 0.8, {}, "non-empty"),
        ([0, 0], 0.8, {}, "positive sum"),
        ([1, -1, 2], 0.8, {}, "non-negative"),
        ([[1, 2]], 0.8, {}, "vector"),
        ([1, 2], 0.2, {}, "outside"),
        ([1, 2], np.eye(3), {}, "2 × 2"),
        ([1, 2], np.array([[0.5, 0.5], [0.4, 0.5]]), {}, "columns summing"),
        ([1, 2], 0.8, {"alpha": 1.5}, "alpha"),
    ],
)
def test_invariant_matrix_bad_input(freq, keep, kwargs, message):
    with pytest.raises(InputError, match=message):
        invariant_matrix(np.array(freq), keep, **kwargs)


# ---------------------------------------------------------------------- pram releases
SCHEMA = {"roof": "quasi", "walls": "quasi", "water": "sensitive"}


def _frame(n: int = 1000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "roof": rng.choice(["tin", "tile", "straw", "concrete"], n, p=[0.5, 0.3, 0.15, 0.05]),
            "walls": rng.choice(["brick", "wood"], n, p=[0.7, 0.3]),
            "water": rng.choice(["tap", "well", "river"], n, p=[0.6, 0.3, 0.1]),
        }
    )


def test_pram_invariant_release():
    df = _frame()
    rel = pram(df, SCHEMA, keep={"roof": 0.8, "water": 0.7}, invariant=True, rng=1)
    assert rel.kind == "randomized" and rel.metadata["method"] == "pram"
    assert rel.metadata["parameters"] == {
        "keep": {"roof": 0.8, "water": 0.7},
        "matrices": [],
        "invariant": True,
        "alpha": 0.5,
    }
    entry = rel.metadata["randomized"]["roof"]
    assert entry["keep"] is None
    assert entry["domain"] == ["concrete", "straw", "tile", "tin"]
    counts = df["roof"].value_counts().reindex(entry["domain"]).to_numpy()
    # the invariant matrix reveals the original's distribution: internal, never public
    assert entry["matrix"] is None
    applied = rel.metadata["applied_matrices"]["roof"]
    assert np.allclose(applied, invariant_matrix(counts, 0.8, alpha=0.5))
    assert "applied_matrices" not in rel.public_metadata
    assert sorted(rel.data["walls"]) == sorted(df["walls"])


def test_pram_without_invariance_is_randomized_response():
    df = _frame()
    a = pram(df, SCHEMA, keep={"roof": 0.8}, rng=7)
    b = randomize(df, SCHEMA, keep={"roof": 0.8}, rng=7)
    assert a.data.equals(b.data)
    assert a.metadata["randomized"] == b.metadata["randomized"]
    assert a.metadata["parameters"]["alpha"] is None


def test_invariant_pram_preserves_expected_frequencies():
    df = _frame(2000, 3)
    reps = 100
    gen = np.random.default_rng(11)
    domain = ["concrete", "straw", "tile", "tin"]
    original = df["roof"].value_counts().reindex(domain).to_numpy()
    published = np.zeros((reps, 4))
    for i in range(reps):
        rel = pram(df, SCHEMA, keep={"roof": 0.6}, invariant=True, alpha=0.9, rng=gen)
        published[i] = rel.data["roof"].value_counts().reindex(domain, fill_value=0).to_numpy()
    r = np.array(rel.metadata["applied_matrices"]["roof"])
    sd = np.sqrt((r * (1 - r)) @ original)  # per published value, a sum of Bernoulli draws
    assert np.all(np.abs(published.mean(axis=0) - original) <= 4 * sd / np.sqrt(reps))
    # whereas plain randomized response pulls the frequencies towards uniform
    plain = uniform_retention(4, 0.6) @ original
    assert np.all(np.abs(plain - original) > 10 * sd / np.sqrt(reps))


def test_pram_release_can_be_reconstructed():
    df = _frame(5000, 4)
    m = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.2], [0.1, 0.1, 0.7]])
    rel = pram(df, SCHEMA, matrices={"water": m}, keep={"walls": 0.9}, invariant=True, rng=2)
    rec = reconstruct(rel)
    assert rec.columns == ["walls", "water"]
    truth = pd.crosstab(df["walls"], df["water"], normalize=True)
    truth = truth.reindex(index=rec.domains[0], columns=rec.domains[1]).to_numpy()
    assert np.all(np.abs(rec.estimate - truth) <= 5 * rec.standard_errors())


def test_pram_with_a_matrix_and_no_invariance_publishes_it():
    df = _frame()
    m = np.array([[0.9, 0.2], [0.1, 0.8]])
    rel = pram(df, SCHEMA, matrices={"walls": m}, rng=0)
    assert np.allclose(rel.metadata["randomized"]["walls"]["matrix"], m)


def test_invariant_alpha_one_needs_every_value_present():
    df = _frame()
    schema = {
        **SCHEMA,
        "walls": {
            "role": "quasi",
            "hierarchy": {"builder": "nested", "tree": {"*": ["brick", "wood", "mud"]}},
        },
    }
    with pytest.raises(InputError, match="'mud' does not occur.*alpha < 1"):
        pram(df, schema, keep={"walls": 0.8}, invariant=True, alpha=1.0)
    # a hierarchy's leaves are not a declaration: its domain would name 'mud', held by nobody
    with pytest.raises(InputError, match="column 'walls': .* chance of up to 1 .*categories"):
        pram(df, schema, keep={"walls": 0.8}, invariant=True, alpha=0.5, rng=0)
    schema["walls"]["categories"] = ["brick", "wood", "mud"]  # the codebook: public
    rel = pram(df, schema, keep={"walls": 0.8}, invariant=True, alpha=0.5, rng=0)
    assert "mud" not in set(rel.data["walls"])  # absent values are never published
    assert rel.public_metadata["randomized"]["walls"]["domain"] == ["brick", "wood", "mud"]
    full = pram(df, SCHEMA, keep={"walls": 0.8}, invariant=True, alpha=1.0, rng=0)
    assert full.metadata["parameters"]["alpha"] == 1.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"keep": {"roof": 0.8}, "alpha": 0.5}, "needs invariant=True"),
        ({"keep": {"roof": 0.8}, "invariant": True, "alpha": -0.1}, "alpha"),
        ({"keep": {"roof": 0.25}, "invariant": True}, "singular"),
        ({"invariant": True}, "name the columns"),
        ({"keep": {"roof": 0.8}, "matrices": {"roof": np.eye(4)}}, "both"),
    ],
)
def test_pram_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message):
        pram(_frame(), SCHEMA, rng=0, **kwargs)


def test_pram_empty_table():
    with pytest.raises(InputError, match="empty"):
        pram(_frame().iloc[:0], SCHEMA, keep={"roof": 0.8}, invariant=True)
