"""``microanon init`` proposes a column it guessed sensitive from its values alone (an opinion
item's rule) as a quasi-identifier when a quasi-identifier recodes it one for one: whoever
knows the quasi-identifier knows it, so it is no answer kept from others, and the
quasi-identifier stays one (made sensitive like it, it would be published unchanged beside the
other keys); as a copy of that quasi-identifier it is then dropped (the copy rule). A column
named sensitive (an income) that a key gives back keeps the lint's older
answer, the key proposed sensitive like it, and so does an answer that a score of more values
gives back (the CCES's attitude scales, in ``test_init_surveys``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.init.items import ITEM_RULES
from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def _roles(frame: pd.DataFrame) -> dict:
    return {p.column: p for p in propose_roles(frame, profile_table(frame))}


def _gives_back(frame: pd.DataFrame, key: str, column: str) -> bool:
    """Independently: each value of ``key`` holds one value of ``column``."""
    return bool((frame.groupby(key)[column].nunique() == 1).all())


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.integers(20, 60), st.integers(0, 2**32 - 1))
def test_a_recoded_key_guessed_an_opinion_is_a_quasi_identifier(half, per, seed):
    """A grade of ``2 * half + 1`` values from 6 (a moderate-cardinality key) and the same
    grade centred on 0 (``-half`` to ``half``, which the answer-scale rule takes for a rating
    scale): the grade is a quasi-identifier, and the centred one, proposed one by the lint's
    rule, is dropped as its copy, its reason naming the grade and the rules it first fired."""
    rng = np.random.default_rng(seed)
    grade = np.repeat(np.arange(6, 7 + 2 * half), per)
    rng.shuffle(grade)
    frame = pd.DataFrame(
        {
            "grade": grade,
            "centred": grade - (6 + half),
            "sex": rng.choice(["f", "m"], len(grade)),
        }
    )
    assert _gives_back(frame, "grade", "centred")
    roles = _roles(frame)
    assert roles["grade"].role is Role.QUASI
    centred = roles["centred"]
    assert centred.role is Role.IDENTIFIER and centred.rule == "copy"
    assert centred.reason.startswith("copy rule: it recodes quasi-identifier grade one for one")
    assert "(first proposed quasi: schema lint (determined_by_quasi): quasi-identifier grade " in (
        centred.reason
    )
    assert "first proposed sensitive: answer-scale rule" in centred.reason


def test_a_named_income_that_a_key_gives_back_makes_the_key_sensitive():
    """Not a guess from the values: an income (the financial name rule) that each value of a
    moderate-cardinality key gives back keeps its role, and the key is proposed sensitive
    like it (the lint's rule for a key that tells a sensitive column)."""
    rng = np.random.default_rng(7)
    band = np.repeat(np.arange(6, 13), 40)
    rng.shuffle(band)
    frame = pd.DataFrame(
        {"band": band, "income": band * 1000, "sex": rng.choice(["f", "m"], len(band))}
    )
    assert _gives_back(frame, "band", "income")
    roles = _roles(frame)
    assert roles["income"].role is Role.SENSITIVE and roles["income"].rule not in ITEM_RULES
    assert roles["band"].role is Role.SENSITIVE
    assert roles["band"].rule == "lint:determines_sensitive"


def test_wages_highest_grade_is_a_quasi_identifier_and_its_centred_copy_dropped():
    """HLMdiag's wages (6,402 records of 888 male high-school dropouts): ``hgc``, the highest
    grade completed (6 to 12), and ``hgc.9``, the same less 9 (-3 to 3). The centred copy had
    been taken for a rating scale, and ``hgc``, which gives it back, made sensitive like it:
    published unchanged, the education an attacker knows was no key at all. The copy is
    dropped: generalized to another level than ``hgc``, it would give it back."""
    frame = rdataset("HLMdiag", "wages")
    assert _gives_back(frame, "hgc", "hgc.9")
    roles = _roles(frame)
    assert roles["hgc"].role is Role.QUASI
    assert roles["hgc.9"].role is Role.IDENTIFIER and roles["hgc.9"].rule == "copy"
    assert "schema lint (determined_by_quasi): quasi-identifier hgc recodes it" in (
        roles["hgc.9"].reason
    )


def test_star_s_grade_is_a_quasi_identifier_and_its_number_dropped():
    """mlmRev's star (26,796 records of the Tennessee class-size experiment): ``yrs``, the
    grade as a number, was taken for a rating scale, and ``gr``, the grade, which gives it
    back, made sensitive like it. The number, a copy of the grade, is dropped."""
    frame = rdataset("mlmRev", "star")
    assert _gives_back(frame, "gr", "yrs")
    roles = _roles(frame)
    assert roles["gr"].role is Role.QUASI
    assert roles["yrs"].role is Role.IDENTIFIER and roles["yrs"].rule == "copy"
