"""Distribution-based utility measures (Guo, Ying & Wu 2011): worked examples, Adult, dispatcher."""

from __future__ import annotations

import math
import sys
import types

import numpy as np
import pandas as pd
import pytest

from microanon.core import Release, Table
from microanon.core.errors import InputError
from microanon.datasets import adult_schema, load_adult
from microanon.measures.distribution import (
    chi_square,
    estimate_distribution,
    query_errors,
    squared_euclidean,
    uncertainty_coefficients,
    utility_report,
)
from microanon.measures.estimators import kl_divergence, true_joint
from microanon.methods.generalize import anatomy, full_domain
from microanon.methods.randomize.matrices import kron_apply

ESGRO = ["education", "income", "sex", "race"]  # ESGRO of Guo, Ying & Wu (2011), SA occupation
SCALARS = [
    "kl",
    "chi_square",
    "squared_euclidean",
    "query_error_base",
    "query_error_cube",
    "u_sa_qi",
    "u_qi_qi",
]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_adult()


@pytest.fixture(scope="module")
def small(adult):
    """3,000 Adult rows with the ESGRO attributes, their schema and encoded Table."""
    data = adult.loc[:2999, ESGRO + ["occupation"]].reset_index(drop=True)
    schema = adult_schema(quasi=ESGRO, sensitive="occupation")
    schema = schema.select(list(data.columns))
    return data, schema, Table.from_frame(data, schema)


# ------------------------------------------------------------------------------ distances
def test_chi_square_by_hand():
    p = [0.5, 0.25, 0.25, 0.0]
    q = [0.25, 0.25, 0.25, 0.25]
    # original: 0.25²/0.5 + 0 + 0; the empty 4th cell is skipped.
    assert chi_square(p, q) == pytest.approx(0.125)
    # estimate: 0.25²/0.25 + 0 + 0 + 0.25²/0.25.
    assert chi_square(p, q, denominator="estimate") == pytest.approx(0.5)
    # A raw estimate with a negative cell: original in the denominator, 0.7²/0.5 twice ...
    assert chi_square([0.5, 0.5], [1.2, -0.2]) == pytest.approx(1.96)
    # ... with the estimate: Q clipped to (1.2, 0), renormalized to (1, 0), floored at 1e-12:
    # 0.5²/1 + (0.5 - 1e-12)²/1e-12.
    assert chi_square([0.5, 0.5], [1.2, -0.2], denominator="estimate") == pytest.approx(
        0.25 + (0.5 - 1e-12) ** 2 / 1e-12
    )
    assert chi_square([[0.5, 0.5]], [[0.5, 0.5]]) == 0.0


def test_squared_euclidean_by_hand():
    # (1.2 - 0.5)² + (-0.2 - 0.5)² = 0.49 + 0.49: the raw estimate, no clipping.
    assert squared_euclidean([0.5, 0.5], [1.2, -0.2]) == pytest.approx(0.98)
    assert squared_euclidean([[0.25, 0.75]], [[0.5, 0.5]]) == pytest.approx(0.125)


def test_distance_errors():
    with pytest.raises(InputError, match="shape"):
        chi_square([1.0], [0.5, 0.5])
    with pytest.raises(InputError, match="summing to 1"):
        squared_euclidean([1, 3], [0.5, 0.5])  # counts, not a distribution
    with pytest.raises(InputError, match="summing to 1"):
        chi_square([-0.5, 1.5], [0.5, 0.5])
    with pytest.raises(InputError, match="finite"):
        squared_euclidean([0.5, 0.5], [np.nan, 0.5])
    with pytest.raises(InputError, match="denominator"):
        chi_square([0.5, 0.5], [0.5, 0.5], denominator="pearson")
    with pytest.raises(InputError, match="no positive cell"):
        chi_square([0.5, 0.5], [-0.5, 0.0], denominator="estimate")


# ------------------------------------------------------------------------------ count queries
P2 = np.array([[0.5, 0.0], [0.25, 0.25]])  # axis 0: A, axis 1: S
Q2 = np.full((2, 2), 0.25)


def test_query_errors_base_by_hand():
    # n = 4: act = (2, 0, 1, 1), est = (1, 1, 1, 1); act = 0 is skipped:
    # |2-1|/2, |1-1|/1, |1-1|/1 -> mean 1/6; absolute 1, 0, 0 -> 1/3.
    e = query_errors(P2, Q2, 4)
    assert e.mean == pytest.approx(1 / 6)
    assert e.mean_absolute == pytest.approx(1 / 3)
    assert e.per_group_by == {(0, 1): pytest.approx(1 / 6)}
    assert e.queries == {(0, 1): 3}
    assert float(e) == e.mean
    # n cancels in the relative error.
    assert query_errors(P2, Q2, 1000).mean == pytest.approx(1 / 6)


def test_query_errors_cube_by_hand():
    # Group-bys: (A, S) as above: sum 1/2 over 3 cells;
    # (A): act (2, 2), est (2, 2): 0 over 2 cells;
    # (S): act (3, 1), est (2, 2): 1/3 + 1 over 2 cells;
    # (): act 4, est 4: 0 over 1 cell.
    e = query_errors(P2, Q2, 4, cube=True)
    assert e.per_group_by == {
        (0, 1): pytest.approx(1 / 6),
        (0,): pytest.approx(0.0),
        (1,): pytest.approx(2 / 3),
        (): pytest.approx(0.0),
    }
    assert e.queries == {(0, 1): 3, (0,): 2, (1,): 2, (): 1}
    assert e.mean == pytest.approx((1 / 2 + 4 / 3) / 8)  # pooled: 11/48
    assert e.mean_over_group_bys == pytest.approx((1 / 6 + 2 / 3) / 4)
    assert e.mean_absolute == pytest.approx((1 + 2) / 8)  # |2-1| in (A,S); |3-2| + |1-2| in (S)
    # S in every group-by: (A, S) and (S) only: (1/2 + 4/3) / 5.
    always = query_errors(P2, Q2, 4, cube=True, include_sensitive="always")
    assert set(always.per_group_by) == {(0, 1), (1,)}
    assert always.mean == pytest.approx((1 / 2 + 4 / 3) / 5)


def test_query_errors_cube_has_every_subset():
    rng = np.random.default_rng(0)
    p = rng.random((2, 3, 2, 4))
    p /= p.sum()
    e = query_errors(p, np.full(p.shape, 1 / p.size), 100, cube=True)
    assert len(e.per_group_by) == 2**4
    # The (1, 3) marginal by hand.
    q13 = np.full((3, 4), 1 / 12)
    p13 = p.sum(axis=(0, 2))
    assert e.per_group_by[(1, 3)] == pytest.approx(np.mean(np.abs(p13 - q13) / p13))
    always = query_errors(p, p, 100, cube=True, include_sensitive="always")
    assert len(always.per_group_by) == 2**3 and all(3 in k for k in always.per_group_by)


def test_query_errors_raw_estimate():
    # A negative estimate is an answer like any other: act (1, 1), est (1.2, 0.8) for n = 2.
    e = query_errors([0.5, 0.5], [0.6, 0.4], 2)
    assert e.mean == pytest.approx(0.2)
    e = query_errors([0.5, 0.5], [1.2, -0.2], 2)
    assert e.mean == pytest.approx(1.4)  # |1 - 2.4|/1 and |1 + 0.4|/1


def test_query_error_errors():
    with pytest.raises(InputError, match="positive integer"):
        query_errors(P2, Q2, 0)
    with pytest.raises(InputError, match="positive integer"):
        query_errors(P2, Q2, 2.5)
    with pytest.raises(InputError, match="include_sensitive"):
        query_errors(P2, Q2, 4, cube=True, include_sensitive="never")
    with pytest.raises(InputError, match="shape"):
        query_errors(P2, Q2.ravel(), 4)


# ------------------------------------------------------------------------------ uncertainty
def test_uncertainty_by_hand():
    # A (rows) x B (columns) = [[1/2, 1/4], [0, 1/4]]: H(A) = -(3/4 ln 3/4 + 1/4 ln 1/4),
    # H(B) = ln 2, H(A,B) = -(1/2 ln 1/2 + 2 · 1/4 ln 1/4) = 3/2 ln 2, so I = H(A) - ln2 / 2.
    h_a = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    mutual = h_a - math.log(2) / 2
    u = uncertainty_coefficients([[0.5, 0.25], [0.0, 0.25]], ["a", "b"])
    assert u.index.name == "given" and u.columns.name == "response"
    assert u.loc["a", "b"] == pytest.approx(mutual / math.log(2))  # U(B | A) = 0.3113
    assert u.loc["b", "a"] == pytest.approx(mutual / h_a)  # U(A | B) = 0.3837
    assert np.isnan(u.loc["a", "a"]) and np.isnan(u.loc["b", "b"])
    # Perfect dependence and independence.
    assert uncertainty_coefficients([[0.5, 0], [0, 0.5]], ["a", "b"]).loc["a", "b"] == 1.0
    assert uncertainty_coefficients(np.full((2, 3), 1 / 6), ["a", "b"]).loc["a", "b"] == 0.0


def test_uncertainty_constant_response_and_clipping():
    # B has one value: H(B) = 0 gives U(B | A) = 0 (our convention); I = 0 gives U(A | B) = 0.
    u = uncertainty_coefficients([[0.3], [0.7]], ["a", "b"])
    assert u.loc["a", "b"] == 0.0 and u.loc["b", "a"] == 0.0
    # ... also when rounding leaves the constant's entropy at ~1e-16 instead of 0.
    joint = np.outer([1.0], [0.5304065094360787, 0.18317535282240552, 0.01])
    u = uncertainty_coefficients(joint / joint.sum(), ["a", "b"])
    assert u.loc["b", "a"] == 0.0 and u.loc["a", "b"] == 0.0
    # A raw estimate is clip-renormalized: (0.6, 0; 0, 0.5) / 1.1 is perfectly dependent.
    u = uncertainty_coefficients([[0.6, -0.1], [0.0, 0.5]], ["a", "b"])
    assert u.loc["a", "b"] == pytest.approx(1.0)


def test_uncertainty_of_more_attributes_uses_pair_marginals():
    rng = np.random.default_rng(1)
    joint = rng.random((3, 2, 4))
    joint /= joint.sum()
    u = uncertainty_coefficients(joint, ["x", "y", "z"])
    pair = uncertainty_coefficients(joint.sum(axis=1), ["x", "z"])
    assert u.loc["x", "z"] == pytest.approx(pair.loc["x", "z"])
    assert u.loc["z", "x"] == pytest.approx(pair.loc["z", "x"])


def test_uncertainty_errors():
    with pytest.raises(InputError, match="names"):
        uncertainty_coefficients(np.full((2, 2), 0.25), ["a"])
    with pytest.raises(InputError, match="names"):
        uncertainty_coefficients(np.full((2, 2), 0.25), ["a", "a"])
    with pytest.raises(InputError, match="no positive cell"):
        uncertainty_coefficients(np.zeros((2, 2)), ["a", "b"])


def test_uncertainty_occupation_given_salary_on_adult(adult):
    """U(Occupation | Salary) = 0.02744 on the 30,162-row Adult set.

    That is the original-data value 2.74e-2 of Guo, Ying & Wu (2011), Tables 4–5.

    The response B is occupation: I(occupation; income) / H(occupation) = 0.02744; the other
    direction, I / H(income), is 0.1151.
    """
    schema = {"occupation": "sensitive", "income": "quasi"}
    table = Table.from_frame(adult[["income", "occupation"]], schema)
    u = uncertainty_coefficients(true_joint(table, ["income"], "occupation"), ["income", "occ"])
    assert u.loc["income", "occ"] == pytest.approx(0.02744, abs=5e-6)
    assert u.loc["occ", "income"] == pytest.approx(0.1151, abs=5e-5)


# ------------------------------------------------------------------------------ dispatcher
def _check_report(report):
    for key in SCALARS:
        assert math.isfinite(report[key]), key
    assert report["kl"] >= 0 and report["chi_square"] >= 0 and report["squared_euclidean"] >= 0
    assert 0 <= report["u_sa_qi"] <= 1 and 0 <= report["u_qi_qi"] <= 1


def test_dispatcher_on_generalized_release(small):
    data, schema, table = small
    release = full_domain(
        data, schema, models=[{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}]
    )
    q = estimate_distribution(release, table, ESGRO, "occupation")
    assert q.shape == (16, 2, 2, 5, 14)
    assert q.sum() == pytest.approx(1.0) and q.min() >= 0
    report = utility_report(release, table, ESGRO, "occupation")
    assert report["kind"] == "generalized" and report["n"] == 3000
    _check_report(report)
    assert report["kl"] == pytest.approx(kl_divergence(true_joint(table, ESGRO, "occupation"), q))


def test_dispatcher_on_anatomized_release(small):
    data, schema, table = small
    release = anatomy(data, schema, l=3, rng=0)
    q = estimate_distribution(release, table, ESGRO, "occupation")
    p = true_joint(table, ESGRO, "occupation")
    assert q.sum() == pytest.approx(1.0)
    # Anatomy publishes the QIs exactly: the QI marginal (and every U among QIs) is the truth's.
    np.testing.assert_allclose(q.sum(axis=-1), p.sum(axis=-1), atol=1e-12)
    report = utility_report(release, table, ESGRO, "occupation")
    _check_report(report)
    truth = uncertainty_coefficients(p, ESGRO + ["occupation"])
    pd.testing.assert_frame_equal(
        report["uncertainty"].loc[ESGRO, ESGRO], truth.loc[ESGRO, ESGRO], atol=1e-9
    )
    # A release equal to the original has no loss.
    exact = utility_report(data, table, ESGRO, "occupation")
    assert exact["kind"] is None
    for key in ["kl", "chi_square", "squared_euclidean", "query_error_base", "query_error_cube"]:
        assert exact[key] == pytest.approx(0.0, abs=1e-12), key


def test_dispatcher_refuses_unknown_kinds(small):
    data, _, table = small
    with pytest.raises(InputError, match="'masked'.*generalized, anatomized, randomized"):
        estimate_distribution(Release("masked", {"data": data}), table, ESGRO, "occupation")


# ------------------------------------------------------------------------------ randomized branch
def _fake_reconstruct(monkeypatch, observed, domains, inverses=None):
    """Install a stand-in for methods.randomize.reconstruct that returns a fixed reconstruction:
    the published proportions ``observed`` and the inverse matrices (None: the identity)."""
    module = types.ModuleType("microanon.methods.randomize.reconstruct")
    inverses = inverses or [None] * np.ndim(observed)

    def reconstruct(release, columns=None, *, clip_renorm=False, counts=None):
        estimate = kron_apply(inverses, np.asarray(observed, dtype=float))
        return types.SimpleNamespace(
            columns=list(columns),
            estimate=np.ravel(estimate),
            observed=np.ravel(observed),
            inverses=inverses,
            domains=domains,
            n=6,
        )

    module.reconstruct = reconstruct
    monkeypatch.setitem(sys.modules, module.__name__, module)


SEXES = pd.DataFrame({"sex": ["F", "F", "M", "M", "M", "M"], "flu": ["n", "y", "n", "n", "y", "y"]})


def test_randomized_branch_aligns_domains(monkeypatch):
    table = Table.from_frame(SEXES, {"sex": "quasi", "flu": "sensitive"})  # codes F=0, M=1; n, y
    release = Release("randomized", {"data": SEXES})
    # The reconstruction lists sex as (M, F) and has a negative cell: flu randomized, its
    # inverse matrix applied to the published proportions gives
    # [[0.4, 0.3], [0.35, -0.05]] (rows M, F; columns n, y).
    observed = np.array([[0.3875, 0.3125], [0.3, 0.0]])
    inverse = np.array([[7, -1], [-1, 7]]) / 6
    _fake_reconstruct(monkeypatch, observed, [["M", "F"], ["n", "y"]], [None, inverse])
    got = estimate_distribution(release, table, ["sex"], "flu", clip_renorm=False)
    np.testing.assert_allclose(got, [[0.35, -0.05], [0.4, 0.3]])
    clipped = estimate_distribution(release, table, ["sex"], "flu")
    np.testing.assert_allclose(clipped, np.array([[0.35, 0.0], [0.4, 0.3]]) / 1.05)
    report = utility_report(release, table, ["sex"], "flu")
    # Truth: F (n 1/6, y 1/6), M (n 2/6, y 2/6); raw Q: (0.35, -0.05, 0.4, 0.3).
    p = np.array([1, 1, 2, 2]) / 6
    q = np.array([0.35, -0.05, 0.4, 0.3])
    assert report["squared_euclidean"] == pytest.approx(np.sum((q - p) ** 2))
    assert report["chi_square"] == pytest.approx(np.sum((q - p) ** 2 / p))
    assert report["query_error_base"] == pytest.approx(np.mean(np.abs(q - p) / p))


def test_randomized_branch_refuses_other_domains(monkeypatch):
    table = Table.from_frame(SEXES, {"sex": "quasi", "flu": "sensitive"})
    release = Release("randomized", {"data": SEXES})
    _fake_reconstruct(monkeypatch, np.full((2, 2), 0.25), [["F", "X"], ["n", "y"]])
    with pytest.raises(InputError, match="'sex'.*domain"):
        estimate_distribution(release, table, ["sex"], "flu")
