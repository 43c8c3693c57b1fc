"""An answer guessed from its values that two quasi-identifiers give back together is proposed a
quasi-identifier (:func:`microanon.apps.init.pairs.determining_pairs`): against the plain
definition on random tables (hypothesis), and on Ecdat's ``RetSchool`` (5,225 young men of the
National Longitudinal Survey), whose family-education class ``famed`` is made of the father's
and the mother's schooling."""

from __future__ import annotations

import itertools

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.init.pairs import determining_pairs
from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.lint import DEPENDENCY_STRENGTH
from microanon.core.schema import Role


def _strength(frame: pd.DataFrame, keys: list[str], column: str) -> float:
    """Leave-one-out: a record's value guessed by the strict majority of the other records of
    its combination of ``keys``; against always guessing the most frequent value."""
    known = frame.dropna(subset=[*keys, column])
    groups = known.groupby(keys)[column]
    hits = 0
    for _, values in groups:
        for i, v in enumerate(values):
            others = values.drop(values.index[i]).value_counts()
            hits += (
                len(others) > 0 and others.index[0] == v and (others == others.iloc[0]).sum() == 1
            )
    base = known[column].value_counts().iloc[0] / len(known)
    return 0.0 if base >= 1 else max(0.0, (hits / len(known) - base) / (1 - base))


def _gives(frame: pd.DataFrame, keys: list[str], column: str) -> bool:
    known = frame.dropna(subset=[*keys, column])
    return len(known) > 0 and bool((known.groupby(keys)[column].nunique() == 1).all())


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(4, 40))
    value = st.one_of(st.integers(0, 3), st.none())
    frame = pd.DataFrame(
        {f"k{i}": draw(st.lists(value, min_size=rows, max_size=rows)) for i in range(3)}
    )
    if draw(st.booleans()):  # the answer made of two keys
        a, b = draw(st.sampled_from(list(itertools.combinations(range(3), 2))))
        m = draw(st.integers(1, 4))
        frame["y"] = [
            None if pd.isna(u) or pd.isna(v) else int(u) * 4 + int(v) % m
            for u, v in zip(frame[f"k{a}"], frame[f"k{b}"], strict=True)
        ]
    else:
        frame["y"] = draw(st.lists(st.integers(0, 2), min_size=rows, max_size=rows))
    return frame.astype("Float64")


@settings(max_examples=150, deadline=None)
@given(tables())
def test_the_pair_is_the_plain_definition(frame):
    keys = ["k0", "k1", "k2"]
    found = determining_pairs(frame, ["y"], keys).get("y")
    if frame["y"].dropna().nunique() < 2:
        assert found is None
        return
    plain = None
    for a, b in itertools.combinations(keys, 2):
        if _gives(frame, [a, b], "y") and _strength(frame, [a, b], "y") >= DEPENDENCY_STRENGTH:
            plain = (a, b)
            break
    alone = any(
        _gives(frame, [k], "y") and _strength(frame, [k], "y") >= DEPENDENCY_STRENGTH for k in keys
    )
    if plain is None or alone:
        assert found is None
    else:
        assert found is not None and found[:2] == plain
        assert abs(found[2] - _strength(frame, list(plain), "y")) < 1e-9


def test_retschool_s_family_education_is_known_by_the_parents_schooling():
    frame = rdataset("Ecdat", "RetSchool")
    assert (frame.groupby(["daded", "momed"])["famed"].nunique() == 1).all()  # independently
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    famed = proposals["famed"]
    assert famed.role is Role.QUASI and famed.rule == "lint:determined_by_quasi"
    assert famed.reason.startswith(
        "schema lint (determined_by_quasi): quasi-identifiers daded and momed give it back "
        "together (each of their combinations holds one of its values, strength 0.99)"
    )
    assert "(first proposed sensitive: answer-scale rule:" in famed.reason
    assert proposals["daded"].role is proposals["momed"].role is Role.QUASI
