"""β-likeness, δ-disclosure, δ-presence and k-map: hand-worked examples, errors, configuration.

The defining papers state their models without a numeric table to reproduce, so every example
here is worked by hand from the definitions; the numbers are given in the comments.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from microanon.core import Release
from microanon.core.errors import InputError
from microanon.models import (
    MODELS,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    Groups,
    KMap,
    PrivacyModel,
    beta_likeness,
    check_release,
    delta_disclosure,
    delta_presence,
    k_map,
    model_from_config,
)
from microanon.models.kmap import estimated_threshold

# Ten patients in two classes. Overall: flu 4/10, hiv 1/10, cold 5/10.
# Class a: flu 1, hiv 1, cold 3 (q = .2, .2, .6); class b: flu 3, cold 2 (q = .6, .4).
DF = pd.DataFrame(
    {
        "zip": ["a"] * 5 + ["b"] * 5,
        "disease": ["flu", "hiv", "cold", "cold", "cold", "flu", "flu", "flu", "cold", "cold"],
    }
)


# ---------------------------------------------------------------------------- beta-likeness
def test_basic_beta_likeness_by_hand() -> None:
    # Gains (q - p) / p: a: flu -.5, hiv (.2 - .1)/.1 = 1, cold .2; b: flu .5, cold -.2.
    v = beta_likeness(DF, "zip", "disease")
    assert v.holds is None and v.value == pytest.approx(1.0)
    assert beta_likeness(DF, "zip", "disease", beta=1.0).holds  # the bound is inclusive
    fails = beta_likeness(DF, "zip", "disease", beta=0.99)
    assert not fails.holds
    assert fails.offending[["zip", "size"]].values.tolist() == [["a", 5]]
    assert fails.offending["value"].tolist() == pytest.approx([1.0])
    half = beta_likeness(DF, "zip", "disease", beta=0.5, form="basic")  # b: flu gain .5 passes
    assert half.offending["zip"].tolist() == ["a"]


def test_enhanced_beta_likeness_caps_frequent_values() -> None:
    # cold and flu half the table each: -ln(.5) = .693. Class a is all cold (gain 1 > .693):
    # basic 1-likeness holds, enhanced fails for every beta. Class b: flu 5/6, gain 2/3 < .693.
    df = pd.DataFrame({"zip": ["a"] * 4 + ["b"] * 6, "disease": ["cold"] * 5 + ["flu"] * 5})
    assert beta_likeness(df, "zip", "disease", beta=1.0).holds
    v = beta_likeness(df, "zip", "disease", beta=100.0, form="enhanced")
    assert not v.holds and v.value == math.inf
    assert v.offending["zip"].tolist() == ["a"]
    # On DF every gain is within -ln p (hiv: 1 <= 2.30; cold: .2 <= .69; flu: .5 <= .92).
    assert beta_likeness(DF, "zip", "disease", beta=1.0, form="enhanced").value == pytest.approx(1)
    assert not beta_likeness(DF, "zip", "disease", beta=0.9, form="enhanced").holds
    assert BetaLikeness(1.0, "enhanced").name == "enhanced beta-likeness"


def test_beta_likeness_of_one_class_is_zero() -> None:
    assert beta_likeness(DF.assign(zip="*"), "zip", "disease", beta=1e-9).value == 0.0


# ---------------------------------------------------------------------------- delta-disclosure
def test_delta_disclosure_by_hand() -> None:
    # |ln(q/p)|: a: flu ln(.4/.2) = ln 2, hiv ln 2, cold ln 1.2; b: flu ln 1.5, cold ln 1.25.
    v = delta_disclosure(DF, "zip", "disease")
    assert v.value == pytest.approx(math.log(2))
    assert delta_disclosure(DF, "zip", "disease", delta=0.7).holds
    strict = delta_disclosure(DF, "zip", "disease", delta=math.log(2))  # the bound is strict
    assert not strict.holds and strict.offending["zip"].tolist() == ["a"]
    b_only = delta_disclosure(DF[DF["zip"] == "b"], "zip", "disease")
    assert b_only.value == 0.0  # one class: q = p
    # hiv is absent from class b: absent values are not constrained (as in ARX).
    assert DeltaDisclosure(0.5).group_ok(Groups.from_frame(DF, "zip", "disease")).tolist() == [
        False,
        True,
    ]


# ---------------------------------------------------------------------------- delta-presence
# A public voter list of 10 people, generalized to two zip areas; a hospital releases 4 of them.
POPULATION = pd.DataFrame({"zip": ["476**"] * 6 + ["479**"] * 4})
RELEASED = pd.DataFrame({"zip": ["476**", "476**", "476**", "479**"], "age": [1, 2, 3, 4]})


def test_delta_presence_by_hand() -> None:
    # P(in release | 476**) = 3/6 = .5; P(in release | 479**) = 1/4 = .25.
    v = delta_presence(RELEASED, "zip", POPULATION)
    assert v.holds is None and v.value == pytest.approx(0.5)
    assert delta_presence(RELEASED, "zip", POPULATION, 0.25, 0.5).holds
    high = delta_presence(RELEASED, "zip", POPULATION, 0.0, 0.4)
    assert not high.holds and high.offending["zip"].tolist() == ["476**"]
    low = delta_presence(RELEASED, "zip", POPULATION, delta_min=0.3)
    assert not low.holds and low.offending["zip"].tolist() == ["479**"]
    assert low.parameters == {"delta_min": 0.3, "delta_max": 1.0}
    # The same population as counts.
    counts = pd.DataFrame({"zip": ["476**", "479**"], "n": [6, 4]})
    same = delta_presence(RELEASED, "zip", counts, 0.25, 0.5, count="n")
    assert same.to_dict() == delta_presence(RELEASED, "zip", POPULATION, 0.25, 0.5).to_dict()
    model = DeltaPresence(0.25, 0.5, population=counts, count="n")
    assert model.check(RELEASED, "zip").to_dict() == same.to_dict()
    assert model.group_ok(Groups.from_frame(RELEASED, "zip")).all()


def test_population_classes_without_records_are_not_constrained() -> None:
    population = pd.concat([POPULATION, pd.DataFrame({"zip": ["480**"] * 50})])
    assert delta_presence(RELEASED, "zip", population, 0.25, 0.5).holds


# ---------------------------------------------------------------------------- k-map
def test_k_map_with_a_population_by_hand() -> None:
    # 476** matches 6 people, 479** 4: k-map holds for k <= 4, whereas k-anonymity only for 1.
    v = k_map(RELEASED, "zip", population=POPULATION)
    assert v.value == 4
    assert k_map(RELEASED, "zip", 4, population=POPULATION).holds
    fails = k_map(RELEASED, "zip", 5, population=POPULATION)
    assert fails.offending[["zip", "size", "value"]].values.tolist() == [["479**", 1, 4]]
    model = KMap(5, population=POPULATION)
    assert model.check(RELEASED, "zip").to_dict() == fails.to_dict()


@pytest.mark.parametrize(
    ("k", "fraction", "significance", "estimator", "threshold"),
    [
        # lambda = .05: P(X >= 1) = 1 - e^-.05 = .0488 <= .05.
        (5, 0.01, 0.05, "poisson", 1),
        # P(X >= 2 | X >= 1) = (1 - e^-.05 (1.05)) / (1 - e^-.05) = .0248 <= .05 < P(X >= 1 | ..).
        (5, 0.01, 0.05, "zero_truncated_poisson", 2),
        # lambda = 10: P(X >= 15) = .0835, P(X >= 16) = .0487.
        (20, 0.5, 0.05, "poisson", 16),
        (20, 0.5, 0.05, "zero_truncated_poisson", 16),
        # lambda = .3: P(X >= 3 | X >= 1) = .0139 > .01, so the cap k = 3 applies.
        (3, 0.1, 0.01, "zero_truncated_poisson", 3),
        (7, 1.0, 0.0, "poisson", 7),  # significance 0: k-anonymity
    ],
)
def test_estimated_thresholds_by_hand(
    k: int, fraction: float, significance: float, estimator: str, threshold: int
) -> None:
    assert estimated_threshold(k, fraction, significance, estimator) == threshold
    model = KMap(k, estimator=estimator, fraction=fraction, significance=significance)
    assert model.threshold == threshold


def test_k_map_with_an_estimator() -> None:
    df = pd.DataFrame({"zip": ["a"] * 16 + ["b"] * 17})
    v = k_map(df, "zip", 20, estimator="poisson", fraction=0.5, significance=0.05)
    assert v.holds and v.parameters["threshold"] == 16
    # The largest k whose threshold is <= 16: k = 21 (lambda 10.5: P(X >= 16) = .0661) fails.
    assert v.value == 20
    assert not k_map(df, "zip", 21, estimator="poisson", fraction=0.5, significance=0.05).holds
    assert KMap(20, "poisson", 0.5, 0.05).group_ok(Groups.from_frame(df, "zip")).all()


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: beta_likeness(DF, "zip", "disease", beta=0), "beta must be positive, got 0"),
        (lambda: BetaLikeness(-1.0), "beta must be positive"),
        (lambda: BetaLikeness(1.0, form="strong"), "unknown form 'strong'"),
        (lambda: DeltaDisclosure(0), "delta must be positive"),
        (lambda: DeltaPresence(0.6, 0.4), r"delta_min \(0.6\) exceeds delta_max \(0.4\)"),
        (lambda: DeltaPresence(-0.1, 0.4), r"delta_min must lie in \[0, 1\]"),
        (lambda: delta_presence(RELEASED, "zip", POPULATION, 0.5, 0.2), "exceeds delta_max"),
        (lambda: KMap(0, population=POPULATION), "k must be at least 1, got 0"),
        (lambda: k_map(RELEASED, "zip", 0, population=POPULATION), "k must be at least 1"),
        (lambda: KMap(3, estimator="poisson"), "fraction: the estimator needs"),
        (lambda: KMap(3, estimator="poisson", fraction=1.5), r"fraction must lie in \(0, 1\]"),
        (lambda: KMap(3, estimator="binomial", fraction=0.5), "unknown estimator 'binomial'"),
        (lambda: KMap(3, fraction=0.5), "fraction is only used with an estimator"),
        (
            lambda: KMap(3, estimator="poisson", fraction=0.5, population=POPULATION),
            "either population or estimator, not both",
        ),
        (lambda: k_map(RELEASED, "zip", 3), "k-map needs either population"),
        (lambda: DeltaPresence(0, 1, population=[1, 2]), "population must be a pandas DataFrame"),
        (lambda: DeltaPresence(0, 1, count="n"), "count: names a column of the population"),
        (
            lambda: DeltaPresence(0, 1, population=POPULATION, count="n"),
            "count: column 'n' is not in the population",
        ),
        (
            lambda: DeltaPresence(0, 1, population=POPULATION.assign(n=-1), count="n"),
            "must hold whole numbers >= 0",
        ),
        (
            lambda: delta_presence(RELEASED, ["zip", "age"], POPULATION, 0, 1),
            r"population: quasi-identifier column\(s\) 'age' missing",
        ),
        (
            lambda: delta_presence(RELEASED, "zip", POPULATION.iloc[:3], 0, 1),
            "population: 3 people, fewer than the 4 records",
        ),
        (
            lambda: k_map(RELEASED, "zip", 1, population=POPULATION.iloc[:6]),
            r"population: the class \(zip='479\*\*'\) has 1 record\(s\) but only 0 people",
        ),
        (
            lambda: DeltaPresence(0, 0.5).check(RELEASED, "zip"),
            r"population: delta-presence needs the population table.*population: FILE among",
        ),
        (  # (a config's k_map: {k: 5} alone: the estimator is the other way)
            lambda: KMap(5).check(RELEASED, "zip"),
            r"population: k-map needs the population table.*; or give estimator and fraction",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(call, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    "model",
    [
        BetaLikeness(0.5),
        BetaLikeness(2.0, "enhanced"),
        DeltaDisclosure(1.2),
        KMap(5, estimator="zero_truncated_poisson", fraction=0.25, significance=0.05),
    ],
)
def test_config_round_trip(model: PrivacyModel) -> None:
    config = json.loads(json.dumps(model.to_config()))
    ((name, params),) = config.items()
    rebuilt = model_from_config(name, params)
    assert type(rebuilt) is type(model) and rebuilt == model
    want = model.check(DF, "zip", "disease").to_dict()
    assert rebuilt.check(DF, "zip", "disease").to_dict() == want


def test_population_models_configure_without_their_population() -> None:
    assert {"beta_likeness", "delta_disclosure", "delta_presence", "k_map"} <= set(MODELS)
    model = DeltaPresence(0.1, 0.5, population=POPULATION)
    assert model.to_config() == {"delta_presence": {"delta_min": 0.1, "delta_max": 0.5}}
    assert KMap(3, population=POPULATION).to_config() == {"k_map": {"k": 3}}
    rebuilt = model_from_config("delta_presence", {"delta_min": 0.1, "delta_max": 0.5})
    assert rebuilt.population is None and rebuilt == model  # the population is not compared
    given = model_from_config(
        "k_map", {"k": 4, "population": POPULATION.groupby("zip").size().reset_index(name="n"),
                  "count": "n"}
    )  # fmt: skip
    assert given.check(RELEASED, "zip").holds


def test_check_release_uses_the_population_record_the_release_keeps(tmp_path) -> None:
    records = [
        {"quasi": ["zip"], "classes": [["476**"], ["479**"]], "people": [6, 4]},
        None,
    ]
    release = Release(
        "generalized",
        {"data": RELEASED},
        {
            "models": [{"delta_presence": {"delta_min": 0.25, "delta_max": 0.5}},
                       {"k_map": {"k": 2, "estimator": "poisson", "fraction": 0.4}}],
            "quasi": ["zip"],
            "sensitive": [],
            "populations": records,
        },
    )  # fmt: skip
    release.save(tmp_path / "out")
    loaded = Release.load(tmp_path / "out")
    assert "populations" not in loaded.public_metadata  # counts on the population: internal
    verdicts = check_release(loaded)
    assert [v.holds for v in verdicts] == [True, False]  # 479** has 1 record < threshold 2
    assert verdicts[0].value == pytest.approx(0.5)
    with pytest.raises(InputError, match="internal part is not loaded"):
        check_release(Release.load(tmp_path / "out" / "public"))
    # An explicit model brings its own population.
    explicit = check_release(loaded, [DeltaPresence(0.0, 0.4, population=POPULATION)])
    assert not explicit[0].holds
    assert np.isclose(explicit[0].value, 0.5)
