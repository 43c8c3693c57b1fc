"""``microanon init`` drops a quasi-identifier that recodes an earlier one one for one (the copy
rule, :mod:`microanon.apps.init.copies`): against the plain definition on random tables
(hypothesis), on mosaicData's ``HELPmiss`` (the sex twice) and AER's ``GSOEP9402`` (the birth
year and the year of the interview, 14 apart), and never a key the data owner states."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.init.copies import copies
from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def _plain(a: pd.Series, b: pd.Series) -> bool:
    """Each value of ``a`` (a missing value one of its own) stands for one value of ``b`` on
    every row, and the other way round."""
    x = a.astype(object).where(a.notna(), "<missing>").tolist()
    y = b.astype(object).where(b.notna(), "<missing>").tolist()
    pairs = list(zip(x, y, strict=True))
    return all(len({v for u, v in pairs if u == w}) == 1 for w in set(x)) and all(
        len({u for u, v in pairs if v == w}) == 1 for w in set(y)
    )


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(2, 40))
    columns = {}
    for i in range(draw(st.integers(2, 4))):
        n = draw(st.integers(1, 4))
        values = draw(st.lists(st.integers(0, n - 1), min_size=rows, max_size=rows))
        if i and draw(st.booleans()):  # a recode of the first column, perhaps broken once
            first = columns["k0"]
            values = [None if v is None else str(10 * v + 3) for v in first]
            if draw(st.booleans()):
                values[draw(st.integers(0, rows - 1))] = "x"
        elif draw(st.booleans()):
            values = [None if v == 0 else v for v in values]
        columns[f"k{i}"] = values
    return pd.DataFrame(columns)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_a_copy_is_a_later_key_that_recodes_an_earlier_one(frame):
    keys = list(frame.columns)
    found = copies(frame, keys)
    for i, key in enumerate(keys):
        originals = [k for k in keys[:i] if k not in found and frame[k].nunique(dropna=False) > 1]
        plain = next((k for k in originals if _plain(frame[k], frame[key])), None)
        assert found.get(key) == plain


def test_helpmiss_sex_twice_and_gsoep_s_birth_year_beside_the_year():
    helpmiss = rdataset("mosaicData", "HELPmiss")
    assert _plain(helpmiss["female"], helpmiss["sex"])  # independently
    roles = {p.column: p for p in propose_roles(helpmiss, profile_table(helpmiss))}
    assert roles["female"].role is Role.QUASI
    sex = roles["sex"]
    assert sex.role is Role.IDENTIFIER and sex.rule == "copy"
    assert sex.reason.startswith(
        "copy rule: it recodes quasi-identifier female one for one (each of its values stands "
        "for one of female's on every row, and the other way round); it tells nothing that "
        "female does not, as a second key it would make the lattice larger, and generalized to "
        "another level than female it would give female back: dropped (first proposed quasi: "
    )
    assert "key rank" not in sex.reason
    gsoep = rdataset("AER", "GSOEP9402")
    assert (gsoep["year"] - gsoep["birthyear"] == 14).all()
    roles = {p.column: p for p in propose_roles(gsoep, profile_table(gsoep))}
    assert roles["birthyear"].role is Role.QUASI and roles["year"].rule == "copy"


def test_a_stated_key_is_never_dropped_and_keeps_its_copy_out():
    rng = np.random.default_rng(2)
    sex = rng.choice(["female", "male"], 300)
    frame = pd.DataFrame(
        {"female": (sex == "female").astype(int), "sex": sex, "age": rng.integers(18, 80, 300)}
    )
    stated = {
        p.column: p for p in propose_roles(frame, profile_table(frame), stated={"sex": Role.QUASI})
    }
    assert stated["sex"].role is Role.QUASI and stated["female"].rule == "copy"
    both = {"sex": Role.QUASI, "female": Role.QUASI}
    kept = {p.column: p for p in propose_roles(frame, profile_table(frame), stated=both)}
    assert kept["sex"].role is kept["female"].role is Role.QUASI
