"""Per-record risk thresholds and our average-risk constraint in the optimal-parameter search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InfeasibleError, InputError
from microanon.methods.randomize import (
    disclosure_risk,
    optimal_parameters,
    optimal_parameters_from_pi,
    randomized_response,
)

COUNTS = np.array([[10.0, 30, 20], [12, 16, 12]])  # Gender x Disease (our completion, Table 1)
SCHEMA = {"sex": "quasi", "disease": "sensitive"}


def frame() -> pd.DataFrame:
    disease = ["c"] * 10 + ["f"] * 30 + ["d"] * 20 + ["c"] * 12 + ["f"] * 16 + ["d"] * 12
    return pd.DataFrame({"sex": ["M"] * 60 + ["F"] * 40, "disease": disease})


def test_per_cell_bound_moves_the_binding_cell():
    # τ = 1/3 binds at Male ∧ Flu (p_s = 0.711878); a bound of 1/2 there (its unrandomized risk)
    # leaves Female ∧ Flu (risk 0.4 unrandomized) as the binding cell
    bound = np.full(COUNTS.shape, 1 / 3)
    same = optimal_parameters_from_pi(COUNTS, 100, "S", bound)
    assert same.keep["S"] == pytest.approx(0.711878, abs=1e-6)
    bound[0, 1] = 0.5
    res = optimal_parameters_from_pi(COUNTS, 100, "S", bound)
    assert res.binding_cell == {"A1": 1, "S": 1}
    risk = disclosure_risk(COUNTS, [1.0], res.keep["S"])
    assert risk[1, 1] == pytest.approx(1 / 3, abs=1e-6) and risk[1, 1] <= 1 / 3
    assert res.keep["S"] > same.keep["S"]  # a looser bound costs less distortion


def test_tau_column_takes_the_least_threshold_of_a_cell():
    df = frame()
    df["t"] = 0.5
    df.loc[60, "t"] = 0.2  # one Female ∧ Cancer record asks for 0.2: her cell's bound
    res = optimal_parameters(df, SCHEMA, "S", tau_column="t")
    codes = COUNTS[::-1][:, [0, 2, 1]]  # sorted codes: sex F, M; disease c, d, f
    risk = disclosure_risk(codes, [1.0], res.keep["disease"])
    assert risk[0, 0] == pytest.approx(0.2, abs=1e-6)
    assert res.tau == pytest.approx(0.2) and res.share_above == 0.0
    rel = randomized_response(df, SCHEMA, scenario="S", tau_column="t", rng=0)
    assert "t" not in rel.data.columns
    df.loc[3, "t"] = 1.5
    with pytest.raises(InputError, match="row 3"):
        optimal_parameters(df, SCHEMA, "S", tau_column="t")
    with pytest.raises(InputError, match="exactly one"):
        optimal_parameters(df, SCHEMA, "S", l=2, tau_column="t")


def test_average_constraint_hand_worked():
    # the records' mean risk at p = 1 is Σ π_αu²/π_α = 0.369333 (> 0.3), the least (p = 1/3,
    # Property 1) is Σ π_αu³/π_α² = 0.1472
    pi = COUNTS / 100
    assert float((pi**2 / pi.sum(1, keepdims=True)).sum()) == pytest.approx(0.369333, abs=1e-6)
    res = optimal_parameters_from_pi(COUNTS, 100, "S", 0.3, constraint="average")
    risk = disclosure_risk(COUNTS, [1.0], res.keep["S"])
    assert float((pi * risk).sum()) == pytest.approx(0.3, abs=1e-6)
    assert res.average_risk == pytest.approx(0.3, abs=1e-6)
    above = (risk > 0.3) & (pi > 0)
    assert res.cells_above == int(above.sum()) and res.share_above == pytest.approx(pi[above].sum())
    with pytest.raises(InfeasibleError, match="mean risk cannot get below 0.1472"):
        optimal_parameters_from_pi(COUNTS, 100, "S", 0.14, constraint="average")
    with pytest.raises(InputError, match="one bound"):
        optimal_parameters_from_pi(COUNTS, 100, "S", np.full((2, 3), 0.5), constraint="average")


def test_average_makes_single_valued_groups_feasible():
    # group 0 holds one value: its risk stays 1 under RR-S. Mean risk: 0.608 at p = 1, 0.362 at
    # p = 1/2
    counts = np.array([[5.0, 0.0], [4.0, 6.0], [5.0, 5.0]])
    with pytest.raises(InfeasibleError):
        optimal_parameters_from_pi(counts, 25, "S", 0.55)
    res = optimal_parameters_from_pi(counts, 25, "S", 0.55, constraint="average")
    assert res.keep["S"] < 1 and res.average_risk == pytest.approx(0.55, abs=1e-6)
    assert res.share_above >= 0.2 and res.max_risk == pytest.approx(1.0)


def _grid_best(counts, scenario, check):
    d = counts.shape[0] if scenario == "QI" else counts.shape[1]
    best = None
    for p in np.linspace(1 / d + 1e-3, 1.0, 400):
        keep_qi, keep_s = ([p], 1.0) if scenario == "QI" else ([1.0], p)
        if check(disclosure_risk(counts, keep_qi, keep_s), 0.0):
            best = p
    return best


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 3),
    st.integers(2, 3),
    st.data(),
    st.sampled_from(["S", "QI"]),
    st.sampled_from(["every", "average"]),
)
def test_chosen_parameter_is_the_best_feasible_one_of_a_grid(dq, ds, data, scenario, constraint):
    counts = np.array(data.draw(st.lists(st.integers(0, 6), min_size=dq * ds, max_size=dq * ds)))
    counts = counts.reshape(dq, ds).astype(float)
    if counts.sum() == 0:
        counts[0, 0] = 1.0
    pi = counts / counts.sum()
    if constraint == "every":
        bound = np.array(
            data.draw(st.lists(st.floats(0.3, 1.0), min_size=dq * ds, max_size=dq * ds))
        ).reshape(dq, ds)

        def check(risk, slack=1e-12):
            return bool(np.all(risk <= bound + slack))
    else:
        bound = data.draw(st.floats(0.3, 1.0))

        def check(risk, slack=1e-12):
            return float((pi * risk).sum()) <= bound + slack

    # the grid's best holds the bound exactly; the method's choice holds it within the
    # floating-point tolerance (a bound a rounding below 1 is 1)
    best = _grid_best(counts, scenario, check)
    axis = "A1" if scenario == "QI" else "S"
    try:
        res = optimal_parameters_from_pi(counts, 50, scenario, bound, constraint=constraint)
    except InfeasibleError:
        assert best is None
        return
    p = res.keep[axis]
    keep_qi, keep_s = ([p], 1.0) if scenario == "QI" else ([1.0], p)
    assert check(disclosure_risk(counts, keep_qi, keep_s))
    assert best is None or p >= best - 1e-9  # the objective falls as p rises: largest p wins


def test_public_part_claims_only_what_holds():
    """With tau_column, τ is a value of the unpublished column: internal only. Under the average
    constraint no per-record risk bound is claimed."""
    df = frame()
    df["t"] = 0.5
    df.loc[60, "t"] = 0.2
    rel = randomized_response(df, SCHEMA, scenario="S", tau_column="t", rng=0)
    public = rel.public_metadata
    assert "tau" not in public and "risk_bound" not in public
    assert rel.internal_metadata["tau"] == pytest.approx(0.2)
    every = randomized_response(frame(), SCHEMA, scenario="S", tau=0.3, rng=0)
    assert every.public_metadata["risk_bound"] == pytest.approx(0.3)
    mean = randomized_response(frame(), SCHEMA, scenario="S", tau=0.3, constraint="average", rng=0)
    assert "risk_bound" not in mean.metadata and mean.public_metadata["tau"] == pytest.approx(0.3)
