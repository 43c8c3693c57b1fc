"""Constructed GTR cases (ours, not the paper's Example 1), checked exactly."""

from __future__ import annotations

import importlib
from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

from microanon.core import Hierarchy
from microanon.methods.collect import (
    CollectedSet,
    Survey,
    anonymous_group,
    attack,
    can_protect,
    gtr,
    margins,
    phi_bounds,
    phi_qi,
    phi_sa,
    protects,
    pv,
    sa_coefficients,
)
from microanon.methods.collect.attack import RespondentSums, as_collected

#: The module (the package re-exports the function ``gtr`` under the same name).
_gtr_module = importlib.import_module("microanon.methods.collect.gtr")

RESPONDENT = ("25-29", "Flu")
G = [("20-29", "Resp"), ("30-39", "Flu"), ("Any", "Dig")]
G_ABSTAIN = [("20-29", "Flu"), ("25-29", "Flu"), ("Any", "Resp")]


def test_collect_examples_attack(survey: Survey) -> None:
    assert anonymous_group(RESPONDENT, G, survey).tolist() == [True, False, True]
    assert phi_qi(RESPONDENT, ("20-29", "Resp"), survey, exact=True) == F(1, 2)
    assert phi_qi(RESPONDENT, ("Any", "Dig"), survey, exact=True) == F(1, 4)
    assert phi_qi(RESPONDENT, ("30-39", "Flu"), survey, exact=True) == 0
    assert phi_sa("Flu", "Resp", survey, exact=True) == F(1, 2)
    assert phi_sa("Flu", "Dig", survey, exact=True) == 0
    est = attack(RESPONDENT, G, survey, exact=True)
    assert est.size == 2
    assert est.f_qi == F(3, 4)
    assert est.sa_values == ["Flu", "Cold", "Ulcer", "Gastritis"]
    assert list(est.probabilities) == [F(1, 3), F(1, 3), F(1, 6), F(1, 6)]
    assert est.pv == F(2, 3)
    approx = attack(RESPONDENT, G, survey)
    assert approx.pv == pytest.approx(2 / 3)
    np.testing.assert_allclose(approx.probabilities, [1 / 3, 1 / 3, 1 / 6, 1 / 6])
    assert pv(RESPONDENT, [], survey) == 1  # empty anonymous group


def test_collect_examples_tau_half(survey: Survey) -> None:
    tau = F(1, 2)
    m = margins(RESPONDENT, G, survey, tau, exact=True)
    assert list(m) == [F(1, 8), F(1, 8), F(1, 4), F(1, 4)]
    assert phi_bounds(m, sa_coefficients("Flu", survey, tau, exact=True)) == (0, F(1, 4))
    assert phi_bounds(m, sa_coefficients("Resp", survey, tau, exact=True)) == (0, 1)
    assert phi_bounds(m, sa_coefficients("AnyD", survey, tau, exact=True)) == (0, 1)
    # The alternatives: v = Flu needs φ ≤ 1/4 (age Any), v = AnyD keeps the age.
    assert survey.loss(("Any", "Flu")) == F(3, 4)
    assert survey.loss(("25-29", "Resp")) == F(1, 4)
    assert survey.loss(("25-29", "AnyD")) == F(3, 4)
    assert pv(RESPONDENT, [*G, ("Any", "Flu")], survey, exact=True) == F(1, 2)
    assert protects(RESPONDENT, ("Any", "Flu"), G, survey, tau)
    assert not protects(RESPONDENT, ("20-29", "Flu"), G, survey, tau)
    for mode in ("exact", "greedy"):
        t = gtr(RESPONDENT, G, survey, tau, mode=mode)
        assert t is not None
        assert t.labels == ("25-29", "Resp")
        assert t.as_dict() == {"age": "25-29", "disease": "Resp"}
        assert t.loss == F(1, 4)
        assert t.phi == 1.0
        assert t.pv == pytest.approx(4 / 7)
    assert pv(RESPONDENT, [*G, ("25-29", "Resp")], survey, exact=True) == F(4, 7)
    assert gtr(RESPONDENT, G, survey, 0.5).labels == ("25-29", "Resp")  # float τ


def test_collect_examples_tau_seven_tenths(survey: Survey) -> None:
    tau = F(7, 10)
    m = margins(RESPONDENT, G, survey, tau, exact=True)
    assert list(m) == [F(-1, 40), F(-1, 40), F(1, 10), F(1, 10)]
    for v in ("Flu", "Resp"):
        assert not can_protect(*phi_bounds(m, sa_coefficients(v, survey, tau, exact=True)))
    c = sa_coefficients("AnyD", survey, tau, exact=True)
    assert list(c) == [F(-1, 20)] * 4
    m1, m2 = phi_bounds(m, c)
    assert (m1, m2) == (F(1, 2), 1)
    assert can_protect(m1, m2)
    for mode in ("exact", "greedy"):
        t = gtr(RESPONDENT, G, survey, tau, mode=mode)
        assert t is not None and t.labels == ("25-29", "AnyD")
        assert t.loss == F(3, 4)
    assert pv(RESPONDENT, [*G, ("25-29", "AnyD")], survey, exact=True) == F(5, 7)
    # The lower bound at work: ⟨Any, AnyD⟩ has φ = 1/4 < m1 and does not protect.
    assert phi_qi(RESPONDENT, ("Any", "AnyD"), survey, exact=True) == F(1, 4)
    assert pv(RESPONDENT, [*G, ("Any", "AnyD")], survey, exact=True) == F(11, 16)
    assert not protects(RESPONDENT, ("Any", "AnyD"), G, survey, tau)
    assert gtr(RESPONDENT, G, survey, 0.7).labels == ("25-29", "AnyD")


def test_collect_examples_abstain(survey: Survey) -> None:
    tau = F(1, 2)
    m = margins(RESPONDENT, G_ABSTAIN, survey, tau, exact=True)
    for v in ("Flu", "Resp", "AnyD"):
        assert not can_protect(*phi_bounds(m, sa_coefficients(v, survey, tau, exact=True)))
    assert gtr(RESPONDENT, G_ABSTAIN, survey, tau) is None
    assert gtr(RESPONDENT, G_ABSTAIN, survey, tau, mode="greedy") is None


def test_collect_examples_exact_tie_decided_exactly(survey: Survey) -> None:
    """Pv = τ exactly: floating point cannot tell, the exact fallback accepts."""
    g = [("25-29", "Cold")]
    assert pv(RESPONDENT, [*g, RESPONDENT], survey, exact=True) == F(1, 2)
    for tau in (F(1, 2), 0.5):
        t = gtr(RESPONDENT, g, survey, tau)
        assert t is not None and t.labels == RESPONDENT and t.loss == 0
        assert t.pv == 0.5
    above = F(1, 2) + F(1, 10**30)
    assert gtr(RESPONDENT, g, survey, above) is None  # the Cold tuple already pins o's cell
    assert gtr(RESPONDENT, g, survey, above, mode="greedy") is None


def test_collect_examples_normalized_loss(survey: Survey) -> None:
    assert survey.loss(("Any", "Flu"), "normalized") == 1
    assert survey.loss(("25-29", "Resp"), "normalized") == F(1, 3)
    t = gtr(RESPONDENT, G, survey, F(1, 2), loss="normalized")
    assert t is not None and t.labels == ("25-29", "Resp") and t.loss == F(1, 3)


def test_collect_examples_sequential_collection(survey: Survey) -> None:
    """Submissions in order; each protects its respondent against the set at that time."""
    people = [
        ("25-29", "Flu"),
        ("20-24", "Flu"),
        ("25-29", "Cold"),
        ("30-34", "Ulcer"),
        ("25-29", "Flu"),
        ("35-39", "Gastritis"),
        ("20-24", "Cold"),
    ]
    g = CollectedSet(survey)
    for o in people:
        t = gtr(o, g, survey, F(1, 2))
        if t is not None:
            assert protects(o, t.labels, g, survey, F(1, 2))
            g.add_codes(t.codes)
    assert g.version == g.total >= 1


def test_collect_examples_greedy_falls_back_to_complete_search() -> None:
    """A case where the greedy subroutines find nothing although a protecting tuple exists
    (found by hypothesis): greedy mode must not abstain, it returns exact mode's answer."""
    hs = {
        "q0": Hierarchy.from_paths(
            [
                ["q0*", "q00"],
                ["q0*", "q01", "q02"],
                ["q0*", "q01", "q03"],
                ["q0*", "q01", "q04", "q05"],
                ["q0*", "q01", "q04", "q06"],
                ["q0*", "q01", "q04", "q07"],
                ["q0*", "q08"],
            ]  # fmt: skip
        ),
        "q1": Hierarchy.from_paths([["q1*", "q10"]]),
        "q2": Hierarchy.from_paths([["q2*", "q20"], ["q2*", "q21", "q22", "q23"]]),
        "s": Hierarchy.from_paths([["s*", "s0", "s1", "s2"], ["s*", "s0", "s3", "s4"]]),
    }
    survey = Survey(hs, ["q0", "q1", "q2"], "s")
    g = [("q0*", "q10", "q20", "s2"), ("q0*", "q1*", "q2*", "s*"),
         ("q0*", "q1*", "q21", "s*"), ("q08", "q1*", "q2*", "s3")]  # fmt: skip
    o = ("q08", "q10", "q20", "s2")
    p = _problem(o, g, survey, F(2, 5))
    assert all(
        _gtr_module._greedy_generalize(p, j) is None
        or _gtr_module._greedy_specialize(p, j, _gtr_module._greedy_generalize(p, j)) is None
        for j in range(len(p.sa_chain))
    )  # the subroutines alone would abstain
    exact = gtr(o, g, survey, F(2, 5))
    greedy = gtr(o, g, survey, F(2, 5), mode="greedy")
    assert exact is not None and greedy is not None
    assert greedy.labels == exact.labels == ("q08", "q10", "q2*", "s2")
    assert greedy.loss == exact.loss == F(1, 2)
    assert protects(o, greedy.labels, g, survey, F(2, 5))


def _problem(o: tuple, g: list[tuple], survey: Survey, tau: F) -> Any:
    sums = RespondentSums(survey, as_collected(g, survey), survey.encode_base(o))
    return _gtr_module._Problem(survey, sums, tau, "paper")
