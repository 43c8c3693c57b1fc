"""What the collector can verify about a submission (check_submission): exactly the brute force
over every base tuple the submission generalizes, never refusing GTR's answers."""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from typing import Any
from unittest import mock

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_collect_properties import SETTINGS, chain, instances, nodes, ref_pv

from microanon.core import Hierarchy
from microanon.core.errors import InputError
from microanon.methods.collect import (
    CollectedSet,
    Survey,
    check_submission,
    check_submission_codes,
    gtr,
    protects,
    pv,
)
from microanon.methods.collect.verify import _Cells


def _tau(tau: Any) -> F:
    return F(repr(tau)) if isinstance(tau, float) else F(tau)


def _leaves_under(h: Hierarchy, label: Any) -> list[Any]:
    lo, hi = h.leaf_range(int(h.node_of([label])[0]))
    return list(h.leaves[int(lo) : int(hi)])


def _base_tuples(survey: Survey, t: tuple) -> list[tuple]:
    """Every base tuple's quasi-identifiers under t, with one sensitive leaf under t[SA]."""
    hs = [tx.hierarchy for tx in survey.taxonomies]
    qi = [_leaves_under(h, v) for h, v in zip(hs[:-1], t[:-1], strict=True)]
    sa = _leaves_under(hs[-1], t[-1])[0]
    return [(*q, sa) for q in itertools.product(*qi)]


def test_collect_verify_raw_tuple_is_its_respondents_pv(survey: Survey) -> None:
    """A tuple of leaves fixes its respondent's group: the check is Pv itself, whatever o[SA]."""
    g = [("20-29", "Resp"), ("30-39", "Flu"), ("Any", "Dig")]
    got = check_submission(("25-29", "Flu"), g, survey, F(1, 2))
    assert got.exact_cell and got.cells == 1 and got.protects is False
    assert got.pv == pv(("25-29", "Flu"), [*g, ("25-29", "Flu")], survey, exact=True) == F(2, 7)
    ok = check_submission(("25-29", "Resp"), g, survey, F(1, 2))
    assert ok.protects is True and ok.pv is None and ok.cells == 1  # Pv = 4/7
    assert check_submission(("25-29", "Resp"), g, survey, F(4, 7)).protects is True
    assert check_submission(("25-29", "Resp"), g, survey, F(58, 100)).pv == F(4, 7)
    assert protects(("25-29", "Cold"), ("25-29", "Resp"), g, survey, F(1, 2))
    # Exact boundary: Pv = τ protects (Definition 1 is ≥).
    assert check_submission(("25-29", "Resp"), [], survey, F(1, 2)).protects is True
    assert check_submission(("25-29", "Resp"), [], survey, F(51, 100)).pv == F(1, 2)


def test_collect_verify_generalized_tuple_needs_one_protected_cell(survey: Survey) -> None:
    # ⟨Any, Flu⟩ after ⟨25-29, Resp⟩: Pv 0 in three cells, 2/5 in the 25-29 cell.
    got = check_submission(("Any", "Flu"), [("25-29", "Resp")], survey, F(1, 2))
    assert got.protects is False and got.pv == F(2, 5) and got.cells == 2
    assert not got.exact_cell
    # Three leaves over-linked to Flu, one free: the free cell is protected, so not refused.
    crowded = [("25-29", "Flu"), ("20-24", "Flu"), ("30-34", "Flu")]
    assert check_submission(("Any", "Resp"), crowded, survey, F(1, 2)).protects is True
    everywhere = [*crowded, ("35-39", "Flu")]
    got = check_submission(("Any", "Resp"), everywhere, survey, F(1, 2))
    assert got.protects is False and got.pv == F(1, 10) and got.cells == 4


def test_collect_verify_codes_limit_and_bad_input(survey: Survey) -> None:
    g = CollectedSet.from_tuples(survey, [("25-29", "Flu"), ("20-24", "Flu"), ("30-34", "Flu")])
    codes = survey.encode(("Any", "Resp"))
    assert check_submission_codes(codes, g, survey, F(1, 2)).protects is True
    undecided = check_submission_codes(codes, g, survey, F(1, 2), limit=1)
    assert undecided.protects is None and undecided.pv is None
    # ⟨Any, Flu⟩ after ⟨25-29, Resp⟩: ruled out at once (Flu is over-linked whatever the age
    # cell); too many cells to name the best Pv is reported as None, still a refusal.
    refused = check_submission(("Any", "Flu"), [("25-29", "Resp")], survey, F(1, 2), limit=1)
    assert refused.protects is False and refused.pv is None
    with pytest.raises(InputError, match="limit"):
        check_submission_codes(codes, g, survey, F(1, 2), limit=0)
    with pytest.raises(InputError, match="tau"):
        check_submission(("Any", "Resp"), g, survey, 0)
    with pytest.raises(InputError, match="outside"):
        check_submission_codes([99, 0], g, survey, F(1, 2))


@st.composite
def submissions(draw: st.DrawFn) -> tuple[Survey, list[tuple], tuple, Any]:
    """An instance and a submitted tuple: a generalization of o, or any tuple of nodes."""
    survey, g, o, tau = draw(instances())
    hs = {tx.name: tx.hierarchy for tx in survey.taxonomies}
    attrs = survey.attributes
    near = st.tuples(*[st.sampled_from(chain(hs[a], v)) for a, v in zip(attrs, o, strict=True)])
    anywhere = st.tuples(*[st.sampled_from(nodes(hs[a])) for a in attrs])
    return survey, g, draw(near | anywhere), tau


@SETTINGS
@given(submissions())
def test_collect_verify_is_brute_force(inst: tuple) -> None:
    """Refused exactly when no base tuple under t is protected; the reported Pv is their best."""
    survey, g, t, tau = inst
    base = _base_tuples(survey, t)
    assume(len(base) <= 400)
    values = [ref_pv(survey, [*g, t], o) for o in base]
    got = check_submission(t, g, survey, tau)
    assert got.protects == (max(values) >= _tau(tau))
    if not got.protects:
        assert got.pv == max(values)
    if got.exact_cell:
        assert len(base) == 1
    # The float screening only shortcuts: deciding every cell exactly gives the same answer.
    undecided = (0, 0.0, 1.0)
    with mock.patch.object(_Cells, "screen", lambda self, state: undecided):
        assert check_submission(t, g, survey, tau) == got
    # Ruling subtrees out only saves work.
    with mock.patch.object(_Cells, "hopeless", lambda self, level, state: False):
        again = check_submission(t, g, survey, tau)
        assert (again.protects, again.pv) == (got.protects, got.pv)


@SETTINGS
@given(instances(), st.sampled_from(["exact", "greedy"]))
def test_collect_verify_never_refuses_gtr(inst: tuple, mode: str) -> None:
    survey, g, o, tau = inst
    t = gtr(o, g, survey, tau, mode=mode)
    if t is not None:
        assert check_submission(t.labels, g, survey, tau).protects is True


def test_collect_verify_weighted_box_without_common_tuples() -> None:
    """No collected tuple covers t's whole box and t's own term is fractional (weighted leaves):
    the float screening must keep it whole (regression: an integer accumulator dropped it)."""
    age = Hierarchy.from_nested(
        {"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}}
    ).with_weights({"20-24": 1, "25-29": 1, "30-34": 1, "35-39": 2})
    disease = Hierarchy.from_nested(
        {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
    )
    survey = Survey({"age": age, "disease": disease}, quasi=["age"], sensitive="disease")
    g = [("20-24", "Flu"), ("25-29", "Cold"), ("30-34", "Ulcer")]
    for t in [("Any", "Flu"), ("Any", "Resp"), ("20-29", "Flu"), ("30-39", "Dig")]:
        values = [ref_pv(survey, [*g, t], o) for o in _base_tuples(survey, t)]
        for tau in sorted({*values, F(1, 10), F(1, 3), F(1, 2), F(3, 4)} - {0}):
            got = check_submission(t, g, survey, tau)
            assert got.protects == (max(values) >= tau), (t, tau)
            if not got.protects:
                assert got.pv == max(values), (t, tau)
