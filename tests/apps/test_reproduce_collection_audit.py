"""The audits of a GTR collection (greedy against exact, protection against the final set) on
the constructed example survey, checked against gtr and the attack directly."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from microanon.core import Hierarchy
from microanon.methods.collect import CollectedSet, Survey, gtr, pv
from microanon.reproductions.collection.audit import final_protection, greedy_gap


def _survey() -> Survey:
    age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}})
    disease = Hierarchy.from_nested(
        {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
    )
    return Survey({"age": age, "disease": disease}, quasi=["age"], sensitive="disease")


def _collect(survey: Survey, people: list[tuple], tau: F) -> tuple[list, list]:
    """A sequential collection with exact GTR: the accepted respondents and their tuples."""
    g = CollectedSet(survey)
    accepted, codes = [], []
    for o in people:
        t = gtr(o, g, survey, tau)
        if t is not None:
            g.add_codes(t.codes)
            accepted.append(o)
            codes.append(t.codes)
    return accepted, codes


def test_greedy_gap_compares_both_modes_against_each_prefix() -> None:
    survey = _survey()
    rng = np.random.default_rng(7)
    leaves = [tx.hierarchy.leaves for tx in survey.taxonomies]
    people = [tuple(ls[int(rng.integers(len(ls)))] for ls in leaves) for _ in range(40)]
    tau = F(1, 2)
    accepted, codes = _collect(survey, people, tau)
    chosen = set(range(0, len(accepted), 3))
    got = greedy_gap(survey, accepted, codes, chosen, tau)
    gaps = []
    for k in sorted(chosen):
        prefix = CollectedSet(survey)
        for c in codes[:k]:
            prefix.add_codes(c)
        exact = gtr(accepted[k], prefix, survey, tau)
        greedy = gtr(accepted[k], prefix, survey, tau, mode="greedy")
        assert exact is not None and greedy is not None  # accepted: exact answered
        assert tuple(exact.codes) == tuple(codes[k])  # what the collection submitted
        gaps.append(greedy.loss - exact.loss)
    assert got["audited"] == len(chosen)
    assert got["greedy_abstained"] == got["exact_abstained"] == 0
    assert got["optimal"] == sum(g == 0 for g in gaps)
    assert got["max_gap"] == float(max(gaps))
    assert got["mean_gap"] == float(sum(gaps, F(0)) / len(gaps))


def test_final_protection_is_the_attack_against_the_final_set() -> None:
    survey = _survey()
    people = [("25-29", "Flu"), ("25-29", "Cold"), ("20-24", "Flu"), ("25-29", "Flu"),
              ("30-34", "Ulcer"), ("25-29", "Flu"), ("20-24", "Flu")]  # fmt: skip
    tau = F(1, 2)
    accepted, codes = _collect(survey, people, tau)
    final_tuples = [survey.decode(c) for c in codes]
    want = [pv(o, final_tuples, survey, exact=True) for o in accepted]
    base = np.array([survey.encode_base(o) for o in accepted])
    got = final_protection(survey, base, np.array(codes), tau)
    assert got["accepted"] == len(accepted)
    assert got["protected"] == sum(w >= tau for w in want)
    assert abs(got["min_pv"] - float(min(want))) < 1e-12
    assert got["share"] == got["protected"] / got["accepted"]
    empty = final_protection(survey, base[:0], np.zeros((0, 2), dtype=int), tau)
    assert empty == {"accepted": 0, "protected": 0, "share": 1.0, "min_pv": 1.0}
