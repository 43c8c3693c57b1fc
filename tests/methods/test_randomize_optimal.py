"""Optimal randomized-response parameters (Guo, Ying & Wu 2011, Problem 1) and the config method.

The Gender x Disease counts complete the paper's Table 1 example (100 tuples, 12 of them female
with cancer) with numbers of our own; the expected values are computed independently.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from microanon import InfeasibleError, InputError, Release, SchemaError
from microanon.methods.randomize import inverse_frobenius_sq, uniform_retention
from microanon.methods.randomize.optimal import (
    OptimalParameters,
    optimal_parameters,
    optimal_parameters_from_pi,
)
from microanon.methods.randomize.response import randomized_response
from microanon.methods.randomize.risk import disclosure_risk

COUNTS = np.array([[10, 30, 20], [12, 16, 12]])  # Gender (Male, Female) x Disease
TAU = 1 / 3


def gender_disease() -> pd.DataFrame:
    sex, disease = [], []
    for g, row in zip(["Male", "Female"], COUNTS, strict=True):
        for d, c in zip(["Cancer", "Flu", "Diabetes"], row, strict=True):
            sex += [g] * int(c)
            disease += [d] * int(c)
    return pd.DataFrame({"sex": sex, "disease": disease, "id": range(100)})


SCHEMA = {"sex": "quasi", "disease": "sensitive", "id": "identifier"}


@pytest.mark.parametrize(
    "scenario, p_gender, p_disease, objective",
    [
        ("S", 1.0, 0.711878, 14.40631),
        ("QI", 0.707614, 1.0, 20.4),
        ("Both", 0.888216, 0.843802, 11.72855),
    ],
)
def test_gender_disease_optimum(scenario, p_gender, p_disease, objective):
    res = optimal_parameters_from_pi(COUNTS, 100, scenario, TAU)
    assert res.keep == pytest.approx({"A1": p_gender, "S": p_disease}, abs=1e-6)
    assert res.objective == pytest.approx(objective, abs=1e-5)
    assert TAU - 1e-6 <= res.max_risk <= TAU
    assert res.binding_cell == {"A1": 0, "S": 1}  # Male ∧ Flu
    assert (res.scenario, res.tau) == (scenario, TAU)
    # the same through a DataFrame and a schema (codes follow the sorted values)
    named = optimal_parameters(gender_disease(), SCHEMA, scenario, l=3)
    assert named.keep == pytest.approx({"sex": p_gender, "disease": p_disease}, abs=1e-6)
    assert named.binding_cell == {"sex": "Male", "disease": "Flu"}
    assert named.objective == pytest.approx(res.objective, rel=1e-9)


def test_rr_both_is_cheapest():
    f = {s: optimal_parameters_from_pi(COUNTS, 100, s, TAU).objective for s in ("S", "QI", "Both")}
    assert f["Both"] < f["S"] < f["QI"]


def test_expected_squared_error_is_the_trace_of_eq2():
    res = optimal_parameters_from_pi(COUNTS, 100, "Both", TAU)
    p = np.kron(uniform_retention(2, res.keep["A1"]), uniform_retention(3, res.keep["S"]))
    pi = COUNTS.reshape(-1) / 100
    lam = p @ pi
    inv = np.linalg.inv(p)
    sigma = inv @ (np.diag(lam) - np.outer(lam, lam)) @ inv.T / 100
    assert res.expected_squared_error == pytest.approx(np.trace(sigma), rel=1e-9)
    expected_f = inverse_frobenius_sq(2, res.keep["A1"]) * inverse_frobenius_sq(3, res.keep["S"])
    assert res.objective == pytest.approx(expected_f, rel=1e-12)


def test_no_randomization_needed():
    res = optimal_parameters_from_pi(COUNTS, 100, "Both", 0.5)  # max π_αu/π_α = 0.5
    assert res.keep == {"A1": 1.0, "S": 1.0}
    assert res.max_risk == pytest.approx(0.5) and res.objective == pytest.approx(6.0)
    assert res.binding_cell == {"A1": 0, "S": 1}
    assert res.expected_squared_error == pytest.approx((1 - (COUNTS**2).sum() / 1e4) / 100)
    assert optimal_parameters_from_pi(COUNTS, 100, "QI", 1.0).keep == {"A1": 1.0, "S": 1.0}


@pytest.mark.parametrize(
    "scenario, tau, floor",
    [("S", 0.25, "0.25"), ("QI", 0.3, "0.3"), ("Both", 0.15, "0.15"), ("Both", 0.1, "0.15")],
)
def test_infeasible_names_the_binding_cell(scenario, tau, floor):
    # Property-1 floors of Male ∧ Flu: RR-S 0.5² = 0.25, RR-QI 0.30, RR-Both 0.3²/0.6 = 0.15
    with pytest.raises(InfeasibleError, match=f"sex='Male', disease='Flu'.* {floor} "):
        optimal_parameters(gender_disease(), SCHEMA, scenario, tau=tau)


def test_single_valued_quasi_identifier_is_skipped():
    df = gender_disease().assign(country="NZ")
    schema = {**SCHEMA, "country": "quasi"}
    res = optimal_parameters(df, schema, "Both", l=3)
    assert res.keep["country"] == 1.0
    assert res.keep["sex"] == pytest.approx(0.888216, abs=1e-6)
    assert res.objective == pytest.approx(11.72855, abs=1e-5)
    # only single-valued quasi-identifiers: RR-QI can do nothing
    with pytest.raises(InfeasibleError, match="country='NZ'"):
        optimal_parameters(df, {"country": "quasi", "disease": "sensitive"}, "QI", l=3)


def test_full_domain_of_a_hierarchy_counts():
    # a sensitive value absent from the data still is a value randomization can publish
    tree = {"builder": "nested", "tree": {"*": ["Cancer", "Flu", "Diabetes", "HIV"]}}
    schema = {**SCHEMA, "disease": {"role": "sensitive", "hierarchy": tree}}
    res = optimal_parameters(gender_disease(), schema, "S", l=3)
    pi = np.concatenate([COUNTS, np.zeros((2, 1))], axis=1)
    assert res.keep["disease"] == pytest.approx(
        optimal_parameters_from_pi(pi, 100, "S", TAU).keep["S"], abs=1e-12
    )
    assert res.keep["disease"] != pytest.approx(0.711878, abs=1e-3)


def test_result_risks_match_disclosure_risk():
    res = optimal_parameters_from_pi(COUNTS, 100, "Both", 0.4)
    risk = disclosure_risk(COUNTS, [res.keep["A1"]], res.keep["S"])
    assert risk.max() == pytest.approx(res.max_risk, abs=1e-15) and risk.max() <= 0.4
    assert isinstance(res, OptimalParameters)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({}, InputError, "exactly one of l and tau"),
        ({"l": 3, "tau": 0.3}, InputError, "exactly one of l and tau"),
        ({"l": 0.5}, InputError, "l: .* >= 1"),
        ({"l": math.inf}, InputError, "l: "),
        ({"l": True}, InputError, "l: expected a number"),
        ({"tau": 0}, InputError, r"tau: .*\(0, 1\]"),
        ({"tau": 1.5}, InputError, r"tau: .*\(0, 1\]"),
        ({"tau": math.nan}, InputError, r"tau: .*\(0, 1\]"),
        ({"tau": "0.3"}, InputError, "tau: expected a number"),
        ({"tau": 0.3, "scenario": "SA"}, InputError, "scenario"),
    ],
)
def test_bad_parameters(kwargs, error, message):
    """The method refuses a value its declaration forbids in its own words (``l must be ...``)."""
    declared = rf"{message}|: {next(iter(kwargs))} must be" if kwargs else message
    kwargs = {"scenario": "Both", **kwargs}
    with pytest.raises(error, match=message):
        optimal_parameters(gender_disease(), SCHEMA, **kwargs)
    with pytest.raises(error, match=declared):
        randomized_response(gender_disease(), SCHEMA, **kwargs, rng=0)


@pytest.mark.parametrize(
    "schema, message",
    [
        ({"sex": "quasi", "disease": "insensitive"}, r"has 0 \(none\)"),
        ({"sex": "quasi", "disease": "sensitive", "id": "sensitive"}, "has 2"),
        ({"sex": "sensitive", "disease": "sensitive"}, "no quasi-identifier"),
    ],
)
def test_bad_schema(schema, message):
    with pytest.raises(SchemaError, match=message):
        optimal_parameters(gender_disease(), schema, "Both", l=2)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: optimal_parameters_from_pi(COUNTS, 0, "S", 0.4), "n: "),
        (lambda: optimal_parameters_from_pi(COUNTS, 100.0, "S", 0.4), "n: "),
        (lambda: optimal_parameters_from_pi(COUNTS, 100, "S", 0.4, columns=["a"]), "columns"),
        (lambda: optimal_parameters_from_pi(COUNTS, 100, "S", 0.4, columns=["a", "a"]), "distinct"),
        (lambda: optimal_parameters_from_pi(COUNTS, 100, "S", 0.4, values=[[0, 1], [0]]), "values"),
        (lambda: optimal_parameters_from_pi(-COUNTS, 100, "S", 0.4), "non-negative"),
    ],
)
def test_bad_from_pi_input(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_randomized_response_release(tmp_path):
    df = gender_disease()
    rel = randomized_response(df, SCHEMA, l=3, rng=7)
    assert rel.kind == "randomized" and len(rel.data) == 100
    assert list(rel.data.columns) == ["sex", "disease"]  # identifiers are dropped
    meta = rel.metadata
    assert meta["method"] == "randomized_response" and meta["models"] == []
    assert meta["scenario"] == "Both" and meta["tau"] == meta["risk_bound"] == pytest.approx(TAU)
    assert meta["parameters"] == {
        "scenario": "Both",
        "l": 3,
        "tau": None,
        "tau_column": None,
        "constraint": "every",
    }
    best = optimal_parameters(df, SCHEMA, "Both", l=3)
    assert meta["optimal"] == {
        "keep": best.keep,
        "max_risk": best.max_risk,
        "objective": best.objective,
        "expected_squared_error": best.expected_squared_error,
        "average_risk": best.average_risk,
        "share_above": best.share_above,
    }
    assert "optimal" not in rel.public_keys  # computed on the original: internal
    assert "binding_cell" not in meta["optimal"]  # it describes the original data
    for column, p in best.keep.items():
        assert meta["randomized"][column]["keep"] == p
    assert meta["randomized"]["disease"]["domain"] == ["Cancer", "Diabetes", "Flu"]
    # the randomness comes from rng only, and no seed is stored
    assert rel.equals(randomized_response(df, SCHEMA, l=3, rng=7))
    assert Release.load(rel.save(tmp_path / "rr")).equals(rel.in_written_order())


def test_randomized_response_rr_s_keeps_the_quasi_identifiers():
    df = gender_disease()
    rel = randomized_response(df, SCHEMA, scenario="RR-S", tau=0.4, rng=np.random.default_rng(3))
    assert rel.metadata["scenario"] == "S" and rel.metadata["optimal"]["keep"]["sex"] == 1.0
    assert rel.data["sex"].value_counts().to_dict() == {"Male": 60, "Female": 40}


def test_randomized_response_infeasible_publishes_nothing():
    with pytest.raises(InfeasibleError, match="disease='Flu'"):
        randomized_response(gender_disease(), SCHEMA, scenario="S", l=4, rng=0)


def test_adult_esgro():
    # ESGRO of Guo, Ying & Wu (2011), Fig. 5: ESGRO has singleton QI groups (RR-S cannot help them)
    # and its largest cell holds 4.29% of the 45,222 rows (RR-QI feasible up to l = 23)
    from microanon.datasets import adult_schema, load_adult

    adult = load_adult("all")
    quasi = ["education", "income", "sex", "race"]
    schema = adult_schema(quasi=quasi, sensitive="occupation", hierarchies=False)
    for scenario in ("QI", "Both"):
        res = optimal_parameters(adult, schema, scenario, l=4)
        keep = [res.keep[c] for c in ["education", "race", "sex", "income"]]
        table = pd.crosstab(
            [adult[c] for c in ["education", "race", "sex", "income"]], adult["occupation"]
        )
        counts = np.zeros((16, 5, 2, 2, 14))
        index = table.stack()
        codes = [pd.factorize(index.index.get_level_values(i), sort=True)[0] for i in range(5)]
        counts[tuple(codes)] = index.to_numpy()
        risk = disclosure_risk(counts, keep, res.keep["occupation"])
        assert 0.25 - 1e-6 <= risk.max() <= 0.25 and res.max_risk == pytest.approx(risk.max())
    assert res.keep["occupation"] == 1.0  # RR-Both does not randomize occupation here
    with pytest.raises(InfeasibleError, match="cannot get below 1 "):
        optimal_parameters(adult, schema, "S", l=2)
    with pytest.raises(InfeasibleError, match="cannot get below 0.0428"):
        optimal_parameters(adult, schema, "QI", l=24)
