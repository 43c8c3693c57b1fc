"""Prosecutor, journalist and marketer risks: hand-worked examples, property tests against a
plain-Python reference (dicts over rows, no code shared with microanon), and the input errors."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.datasets import load_arx_adult
from microanon.measures import attacker_risks, reidentification_risk

SETTINGS = settings(max_examples=100, deadline=None)


@pytest.fixture
def sample() -> pd.DataFrame:
    # classes: (M, 130) ×3, (F, 130) ×1, (F, 148) ×2
    return pd.DataFrame(
        {"sex": ["M", "M", "M", "F", "F", "F"], "zip": ["130", "130", "130", "130", "148", "148"]},
        index=list("abcdef"),
    )


@pytest.fixture
def people() -> pd.DataFrame:
    # population class sizes: (M, 130) 6, (F, 130) 4, (F, 148) 2, (M, 148) 8 (not in the sample)
    return pd.DataFrame(
        {"sex": ["M", "F", "F", "M"], "zip": ["130", "130", "148", "148"], "n": [6, 4, 2, 8]}
    )


# --------------------------------------------------------------------------- hand-worked cases
def test_without_population_journalist_is_prosecutor(sample):
    r = attacker_risks(sample, ["sex", "zip"], threshold=0.4)
    assert r.population == "sample"
    assert r.prosecutor.record_risk.tolist() == [1 / 3] * 3 + [1.0, 0.5, 0.5]
    assert list(r.prosecutor.record_risk.index) == list("abcdef")
    assert r.prosecutor.highest == 1.0
    assert r.prosecutor.average == pytest.approx(3 / 6)  # classes / rows
    assert r.prosecutor.records_above == 3  # risks 1, 0.5, 0.5 > 0.4
    assert r.prosecutor.share_above == 0.5
    assert r.prosecutor.expected_reidentifications == pytest.approx(3)  # = classes
    assert r.journalist.record_risk.equals(r.prosecutor.record_risk)
    assert r.journalist.average == pytest.approx(0.5)  # max(3 / 6, 3 / 6)
    assert r.marketer == pytest.approx(0.5)  # classes / rows


def test_population_table_with_counts(sample, people):
    r = attacker_risks(sample, ["sex", "zip"], population=people, count="n", threshold=0.4)
    assert r.population == "table"
    # F: 6, 6, 6, 4, 2, 2
    assert r.journalist.record_risk.tolist() == [1 / 6] * 3 + [0.25, 0.5, 0.5]
    assert r.journalist.highest == 0.5
    assert r.journalist.records_above == 2  # only the two of risk 0.5
    # Σ f/F = 3/6 + 1/4 + 2/2 = 1.75 re-identifications expected of 6 records.
    assert r.journalist.expected_reidentifications == pytest.approx(1.75)
    assert r.marketer == pytest.approx(1.75 / 6)
    # ARX's journalist success rate: max(classes / Σ F, Σ f/F / n) = max(3 / 12, 1.75 / 6).
    assert r.journalist.average == pytest.approx(max(3 / 12, 1.75 / 6))
    # The prosecutor does not use the population.
    assert r.prosecutor.record_risk.tolist() == [1 / 3] * 3 + [1.0, 0.5, 0.5]


def test_population_table_one_row_per_person_equals_counts(sample, people):
    rows = people.loc[people.index.repeat(people["n"]), ["sex", "zip"]].sample(
        frac=1, random_state=1
    )
    a = attacker_risks(sample, ["sex", "zip"], population=rows)
    b = attacker_risks(sample, ["sex", "zip"], population=people, count="n")
    assert a.journalist.record_risk.equals(b.journalist.record_risk)
    assert a.to_dict() == b.to_dict()


def test_sampling_fraction(sample):
    r = attacker_risks(sample, ["sex", "zip"], fraction=0.25, threshold=0.2)
    assert r.population == "fraction"
    # F = f / 0.25: 12, 4, 8
    assert r.journalist.record_risk.tolist() == [1 / 12] * 3 + [0.25, 0.125, 0.125]
    assert r.journalist.records_above == 1
    # Σ f/F = 3 classes · 0.25; over 6 rows: 0.125, the fraction times classes / rows.
    assert r.marketer == pytest.approx(0.125)
    assert r.journalist.average == pytest.approx(0.125)  # max(3 / 24, 0.125)


def test_matches_the_prosecutor_risk_profile_on_adult():
    adult = load_arx_adult()
    qi = ["sex", "age", "race", "marital_status", "education", "native_country"]
    r = attacker_risks(adult, qi)
    profile = reidentification_risk(adult, qi)
    assert r.prosecutor.record_risk.equals(profile.record_risk)
    assert r.prosecutor.average == pytest.approx(profile.average)
    assert r.prosecutor.highest == profile.max
    assert r.prosecutor.records_above == profile.records_above


def test_to_dict(sample, people):
    d = attacker_risks(sample, ["sex", "zip"], population=people, count="n").to_dict()
    assert set(d) == {"prosecutor", "journalist", "marketer", "population"}
    assert d["journalist"]["expected_reidentifications"] == pytest.approx(1.75)


# ---------------------------------------------------------------------------------- properties
def reference(rows: list[tuple], pop: list[tuple] | None, threshold: float) -> dict:
    """Dict-based risks: per row 1/f and 1/F, and the summaries."""
    f = Counter(rows)
    big_f = f if pop is None else Counter(pop)
    n = len(rows)
    pros = [1 / f[r] for r in rows]
    jour = [1 / big_f[r] for r in rows]
    found = sum(f[k] / big_f[k] for k in f)
    return {
        "prosecutor": pros,
        "journalist": jour,
        "marketer": found / n,
        "journalist_average": max(len(f) / sum(big_f[k] for k in f), found / n),
        "above": sum(1 for x in jour if x > threshold),
    }


rows_strategy = st.lists(st.tuples(st.integers(0, 4), st.sampled_from("xyz")), min_size=1)


@SETTINGS
@given(rows=rows_strategy, extra=rows_strategy, threshold=st.floats(0.01, 1.0))
def test_against_reference_with_population(rows, extra, threshold):
    data = pd.DataFrame(rows, columns=["a", "b"])
    pop_rows = rows + extra  # the population contains the sample
    population = pd.DataFrame(pop_rows, columns=["a", "b"])
    r = attacker_risks(data, ["a", "b"], population=population, threshold=threshold)
    ref = reference(rows, pop_rows, threshold)
    assert r.prosecutor.record_risk.tolist() == pytest.approx(ref["prosecutor"])
    assert r.journalist.record_risk.tolist() == pytest.approx(ref["journalist"])
    assert r.marketer == pytest.approx(ref["marketer"])
    assert r.journalist.average == pytest.approx(ref["journalist_average"])
    assert r.journalist.records_above == ref["above"]
    for model in (r.prosecutor, r.journalist):
        risk = model.record_risk.to_numpy()
        assert np.all((risk > 0) & (risk <= 1))
        assert 0 < model.average <= 1 and 0 <= model.share_above <= 1
        assert model.highest == pytest.approx(risk.max())
        assert model.expected_reidentifications == pytest.approx(risk.sum())
    # The journalist never does better than the prosecutor when the population holds the sample.
    assert np.all(r.journalist.record_risk <= r.prosecutor.record_risk)
    assert r.journalist.highest <= r.prosecutor.highest
    assert r.marketer <= r.prosecutor.average + 1e-12
    assert 0 < r.marketer <= 1


@SETTINGS
@given(rows=rows_strategy)
def test_without_population_marketer_is_classes_over_rows(rows):
    data = pd.DataFrame(rows, columns=["a", "b"])
    r = attacker_risks(data, ["a", "b"])
    assert r.marketer == pytest.approx(len(set(rows)) / len(rows))
    assert r.journalist.record_risk.equals(r.prosecutor.record_risk)
    assert r.prosecutor.expected_reidentifications == pytest.approx(len(set(rows)))


@SETTINGS
@given(rows=rows_strategy, fraction=st.floats(0.001, 1.0))
def test_fraction_scales_the_prosecutor(rows, fraction):
    data = pd.DataFrame(rows, columns=["a", "b"])
    r = attacker_risks(data, ["a", "b"], fraction=fraction)
    assert r.journalist.record_risk.to_numpy() == pytest.approx(
        fraction * r.prosecutor.record_risk.to_numpy()
    )
    assert r.marketer == pytest.approx(fraction * r.prosecutor.average)
    assert r.journalist.average == pytest.approx(fraction * r.prosecutor.average)


# -------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"fraction": 0}, "'fraction' must be in \\(0, 1\\]"),
        ({"fraction": 1.01}, "'fraction' must be in \\(0, 1\\]"),
        ({"fraction": True}, "'fraction' must be a number"),
        ({"threshold": 0}, "'threshold' must be in \\(0, 1\\]"),
        ({"count": "n"}, "'count' names a column of 'population', which is not given"),
    ],
)
def test_bad_parameters(sample, kwargs, match):
    with pytest.raises(InputError, match=match):
        attacker_risks(sample, ["sex", "zip"], **kwargs)


def test_population_and_fraction_together(sample, people):
    with pytest.raises(InputError, match="'population' or 'fraction', not both"):
        attacker_risks(sample, ["sex", "zip"], population=people, fraction=0.5)


def test_population_smaller_than_the_sample(sample, people):
    small = people.assign(n=[6, 4, 1, 8])  # (F, 148): 2 in the sample, 1 in the population
    with pytest.raises(InputError, match=r"class \(sex='F', zip='148'\) has 2 record\(s\) in the"):
        attacker_risks(sample, ["sex", "zip"], population=small, count="n")
    absent = people[people["zip"] == "130"]
    with pytest.raises(InputError, match="must contain the sample"):
        attacker_risks(sample, ["sex", "zip"], population=absent, count="n")


def test_population_column_errors(sample, people):
    with pytest.raises(InputError, match="population: column\\(s\\) 'sex' not found"):
        attacker_risks(sample, ["sex", "zip"], population=people[["zip", "n"]], count="n")
    with pytest.raises(InputError, match="count column 'm' not found"):
        attacker_risks(sample, ["sex", "zip"], population=people, count="m")
    bad = people.assign(n=[6, -1, 2, None])
    with pytest.raises(InputError, match="count column 'n' has 2 value\\(s\\) that are not"):
        attacker_risks(sample, ["sex", "zip"], population=bad, count="n")


def test_missing_values_are_refused(sample, people):
    holey = sample.copy()
    holey.loc[["a", "b"], "zip"] = None
    with pytest.raises(InputError, match="column 'zip' has 2 missing value"):
        attacker_risks(holey, ["sex", "zip"])
    with pytest.raises(InputError, match="data: column 'zip' has 2 missing value"):
        attacker_risks(holey, ["sex", "zip"], population=people, count="n")
    pop = people.copy()
    pop.loc[0, "sex"] = np.nan
    with pytest.raises(InputError, match="population: column 'sex' has 1 missing value"):
        attacker_risks(sample, ["sex", "zip"], population=pop, count="n")
