"""Disclosure risk and optimal parameters on random small tables, against a naive reference.

The reference evaluates eqs. 6–8 of Guo, Ying & Wu (2011; eq. 8 in our reconstruction) cell by cell
with plain loops, written independently of the vectorized eq. 9 / Kronecker implementation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from microanon import InfeasibleError
from microanon.methods.randomize import inverse_frobenius_sq
from microanon.methods.randomize.optimal import optimal_parameters_from_pi
from microanon.methods.randomize.risk import disclosure_risk

SETTINGS = settings(max_examples=60, deadline=None)
SCENARIO_AXES = {"S": lambda m: [m], "QI": lambda m: [*range(m)], "Both": lambda m: [*range(m + 1)]}


def naive_risk(counts: np.ndarray, keep: list[float]) -> np.ndarray:
    """Pr(S_r | QI_r) of every cell by eqs. 6–8, one cell at a time."""
    pi = counts / counts.sum()
    dims = pi.shape
    m, d_s = len(dims) - 1, dims[-1]

    def p(axis, published, original):
        d = dims[axis]
        if published == original:
            return keep[axis] if d > 1 else 1.0
        return (1 - keep[axis]) / (d - 1)

    groups = list(itertools.product(*[range(d) for d in dims[:-1]]))
    pi_qi = {a: sum(pi[a + (u,)] for u in range(d_s)) for a in groups}

    def pr(b, a):  # Pr(β | α) = Π_k p^{(k)}_{b_k a_k}
        return math.prod(p(k, b[k], a[k]) for k in range(m))

    lam = {b: sum(pr(b, a) * pi_qi[a] for a in groups) for b in groups}
    risk = np.zeros(dims)
    for a in groups:
        if pi_qi[a] == 0:
            continue
        rho_qi = sum(pr(b, a) ** 2 * pi_qi[a] / lam[b] for b in groups if lam[b] > 0)
        lam_s = [sum(p(m, v, k) * pi[a + (k,)] for k in range(d_s)) for v in range(d_s)]
        for u in range(d_s):
            cell = pi[a + (u,)]
            if cell == 0:
                continue
            rt = sum(p(m, v, u) ** 2 * cell / lam_s[v] for v in range(d_s) if lam_s[v] > 0)
            risk[a + (u,)] = rho_qi * (cell / pi_qi[a]) * rt
    return risk


def naive_floor(counts: np.ndarray, scenario: str) -> float:
    """Largest Property-1 minimum over the non-empty cells."""
    pi = counts / counts.sum()
    pa = pi.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(pi > 0, pi / pa, 0.0)
    return float({"S": cond**2, "QI": pi, "Both": cond * pi}[scenario].max())


@st.composite
def tables(draw, max_qi: int = 3, max_d: int = 3):
    m = draw(st.integers(1, max_qi))
    dims = (*(draw(st.integers(1, max_d)) for _ in range(m)), draw(st.integers(2, 4)))
    cells = st.one_of(st.just(0), st.integers(1, 15))
    counts = draw(st.lists(cells, min_size=math.prod(dims), max_size=math.prod(dims)))
    assume(sum(counts) > 0)
    return np.array(counts, dtype=float).reshape(dims)


@st.composite
def keeps(draw, dims):
    return [draw(st.floats(1 / d, 1.0)) if d > 1 else 1.0 for d in dims]


@SETTINGS
@given(st.data())
def test_matrix_form_equals_the_naive_sum(data):
    counts = data.draw(tables())
    keep = data.draw(keeps(counts.shape))
    got = disclosure_risk(counts, keep[:-1], keep[-1])
    assert np.allclose(got, naive_risk(counts, keep), rtol=1e-10, atol=1e-12)


@SETTINGS
@given(st.data())
def test_risk_increases_with_each_keep_probability(data):
    counts = data.draw(tables())
    keep = data.draw(keeps(counts.shape))
    axis = data.draw(st.integers(0, counts.ndim - 1))
    d = counts.shape[axis]
    assume(d > 1)
    higher = list(keep)
    higher[axis] = data.draw(st.floats(keep[axis], 1.0))
    low = disclosure_risk(counts, keep[:-1], keep[-1])
    high = disclosure_risk(counts, higher[:-1], higher[-1])
    assert np.all(high >= low - 1e-12)
    unrandomized = disclosure_risk(counts, [1.0] * (counts.ndim - 1), 1.0)
    assert np.all(high <= unrandomized + 1e-12)
    pi = counts / counts.sum()
    both_floor = np.where(pi > 0, pi**2 / np.maximum(pi.sum(-1, keepdims=True), 1e-300), 0)
    assert np.all(low >= both_floor - 1e-12)


def _objective(dims, keep):
    return math.prod(inverse_frobenius_sq(d, p) for d, p in zip(dims, keep, strict=True))


@SETTINGS
@given(st.data(), st.sampled_from(["S", "QI", "Both"]))
def test_optimal_parameters_meet_the_bound(data, scenario):
    counts = data.draw(tables())
    floor = naive_floor(counts, scenario)
    frac = data.draw(st.floats(0.02, 1.0))
    tau = floor + frac * (1 - floor)
    assume(tau > 0)
    res = optimal_parameters_from_pi(counts, int(counts.sum()), scenario, tau)
    keep = [res.keep[c] for c in [*(f"A{i + 1}" for i in range(counts.ndim - 1)), "S"]]
    risk = naive_risk(counts, keep)
    assert risk.max() <= tau + 1e-12
    assert risk.max() == pytest.approx(res.max_risk, abs=1e-12)
    free = SCENARIO_AXES[scenario](counts.ndim - 1)
    for axis, (d, p) in enumerate(zip(counts.shape, keep, strict=True)):
        assert p == 1.0 if axis not in free or d == 1 else 1 / d < p <= 1.0
    if all(p == 1.0 for p in keep):
        event("no randomization needed")
        assert risk.max() <= tau + 1e-12
    else:
        assert tau - 1e-6 <= risk.max()
    assert res.objective == pytest.approx(_objective(counts.shape, keep), rel=1e-12)


@SETTINGS
@given(st.data(), st.sampled_from(["S", "QI", "Both"]))
def test_infeasible_at_or_below_the_floor(data, scenario):
    counts = data.draw(tables())
    floor = naive_floor(counts, scenario)
    tau = floor * data.draw(st.floats(0.05, 0.999999))
    assume(tau > 0)
    with pytest.raises(InfeasibleError, match="cannot get below"):
        optimal_parameters_from_pi(counts, int(counts.sum()), scenario, tau)


@SETTINGS
@given(st.data(), st.sampled_from(["S", "QI", "Both"]))
def test_objective_decreases_as_tau_grows(data, scenario):
    counts = data.draw(tables())
    floor = naive_floor(counts, scenario)
    low, high = sorted(data.draw(st.floats(0.05, 1.0)) for _ in range(2))
    n = int(counts.sum())
    f_low = optimal_parameters_from_pi(counts, n, scenario, floor + low * (1 - floor)).objective
    f_high = optimal_parameters_from_pi(counts, n, scenario, floor + high * (1 - floor)).objective
    assert f_high <= f_low * (1 + 1e-9)


@SETTINGS
@given(st.data())
def test_rr_both_never_costs_more(data):
    # Theorem: the RR-S and RR-QI optima are feasible points of RR-Both (same constraints, the
    # other attributes at p = 1), so RR-Both's optimum is at most both.
    counts = data.draw(tables())
    floor = max(naive_floor(counts, "S"), naive_floor(counts, "QI"))
    tau = floor + data.draw(st.floats(0.02, 1.0)) * (1 - floor)
    n = int(counts.sum())
    f = {s: optimal_parameters_from_pi(counts, n, s, tau).objective for s in ("S", "QI", "Both")}
    assert f["Both"] <= min(f["S"], f["QI"]) * (1 + 1e-12)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_no_feasible_grid_point_is_better(data):
    # Two free keep probabilities (one QI and S in RR-Both): scan a grid of the feasible box.
    counts = data.draw(tables(max_qi=1, max_d=4))
    assume(counts.shape[0] > 1)
    floor = naive_floor(counts, "Both")
    tau = floor + data.draw(st.floats(0.05, 0.95)) * (1 - floor)
    res = optimal_parameters_from_pi(counts, int(counts.sum()), "Both", tau)
    d_q, d_s = counts.shape
    best = math.inf
    for p_q in np.linspace(1 / d_q + 1e-3, 1, 25):
        for p_s in np.linspace(1 / d_s + 1e-3, 1, 25):
            if disclosure_risk(counts, [p_q], p_s).max() <= tau:
                best = min(best, _objective(counts.shape, [p_q, p_s]))
    assert res.objective <= best * (1 + 1e-9)
