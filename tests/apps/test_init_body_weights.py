"""A body weight is no sampling weight: a weight named by the word alone beside a height or a
body mass index, or ``wt`` with a number beside ``wt`` with another number, is not proposed
role ``weight``.

causaldata's ``nhefs_complete`` (1,566 smokers of the NHEFS, none with a missing body weight)
had ``wt82``, the body weight in kilograms in 1982 converted from pounds (most values with more
than two decimals), proposed a sampling weight beside ``wt71`` (the weight in 1971), ``wt82_71``
and the height ``ht``: published unchanged, and the risk measures weighed each record by its
kilograms. Stat2Data's ``Pulse`` (``Wgt`` in whole pounds beside ``Hgt``), openintro's ``bdims``
(``wgt`` in kilograms beside ``hgt``) and medicaldata's ``smartpill`` (``Weight`` in kilograms
converted from pounds beside ``Height``) had the same proposal.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def _roles(frame: pd.DataFrame) -> dict[str, Role]:
    return {p.column: p.role for p in propose_roles(frame, profile_table(frame))}


def _kilograms(rng: np.random.Generator, n: int) -> np.ndarray:
    """Body weights in kilograms converted from whole pounds: many decimals, as NHEFS's are."""
    return rng.integers(90, 300, n) * 0.45359237


def _sampling(rng: np.random.Generator, n: int) -> np.ndarray:
    """Sampling weights: positive, at least 1, with many decimals."""
    return rng.uniform(50, 900, n)


N = 400


@pytest.mark.parametrize("height", ["ht", "hgt", "height", "Height_cm", "bmi", "BMI", "body_mass"])
@pytest.mark.parametrize("weight", ["weight", "wt", "Wgt", "wght", "wt82", "weights"])
def test_a_weight_named_by_the_word_beside_a_height_is_no_sampling_weight(weight, height):
    rng = np.random.default_rng(1)
    alone = pd.DataFrame({"age": rng.integers(18, 90, N), weight: _kilograms(rng, N)})
    assert _roles(alone)[weight] is Role.WEIGHT  # (its decimals: taken for a sampling weight)
    beside = alone.assign(**{height: rng.normal(170, 9, N).round(1)})
    assert _roles(beside)[weight] is not Role.WEIGHT


def test_wt_with_a_number_beside_another_is_a_measurement_repeated_over_waves():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"age": rng.integers(18, 90, N), "wt71": _kilograms(rng, N), "wt82": _kilograms(rng, N)}
    )
    roles = _roles(frame)
    assert roles["wt71"] is not Role.WEIGHT and roles["wt82"] is not Role.WEIGHT
    # each alone: its decimals make it a sampling weight
    assert _roles(frame.drop(columns=["wt71"]))["wt82"] is Role.WEIGHT
    assert _roles(frame.drop(columns=["wt82"]))["wt71"] is Role.WEIGHT
    # a difference named after one of them (NHEFS's wt82_71) is no second wave
    difference = frame.drop(columns=["wt71"]).assign(wt82_71=rng.normal(2, 8, N))
    assert _roles(difference)["wt82"] is Role.WEIGHT


def test_sampling_weights_named_as_such_are_kept_beside_a_height():
    """A sampling weight whose name says so (a person weight ``pw1``, a ``final_weight``, the
    ACS's replicate weights ``pwgtp1`` to ``pwgtp80``, ``perwt``) stays one beside a height and
    beside other numbered weights; so does ``wt`` alone with decimals beside no height."""
    rng = np.random.default_rng(3)
    columns = {
        "age": rng.integers(18, 90, N),
        "height": rng.normal(170, 9, N).round(1),
        "pw1": _sampling(rng, N),
        "final_weight": _sampling(rng, N),
        "perwt": _sampling(rng, N),
        **{f"pwgtp{i}": _sampling(rng, N) for i in range(1, 81)},
    }
    frame = pd.DataFrame(columns)
    roles = _roles(frame)
    weights = [c for c in frame.columns if c not in ("age", "height")]
    assert [c for c in weights if roles[c] is not Role.WEIGHT] == []
    plain = pd.DataFrame({"age": columns["age"], "wt": _sampling(rng, N)})
    assert _roles(plain)["wt"] is Role.WEIGHT


@pytest.mark.parametrize(
    ("package", "item", "weight", "height"),
    [
        ("causaldata", "nhefs_complete", "wt82", "ht"),
        ("Stat2Data", "Pulse", "Wgt", "Hgt"),
        ("openintro", "bdims", "wgt", "hgt"),
        ("medicaldata", "smartpill", "Weight", "Height"),
    ],
)
def test_body_weights_beside_a_height_in_real_files_are_no_sampling_weights(
    package, item, weight, height
):
    frame = rdataset(package, item)
    assert height in frame.columns
    assert frame[weight].notna().all() and (frame[weight] > 0).all()
    assert _roles(frame[[weight]])[weight] is Role.WEIGHT  # (alone: taken for one by its values)
    roles = _roles(frame)
    assert [c for c, role in roles.items() if role is Role.WEIGHT] == []
    if item == "nhefs_complete":  # its two waves alone, without the height: the same
        assert _roles(frame[["age", "wt71", "wt82"]])["wt82"] is not Role.WEIGHT


def test_a_survey_s_sampling_weight_is_kept():
    """Ecdat's ``HI`` (22,272 wives, ``wght`` in whole numbers 5,182 to 1,136,869) beside no
    height: its sampling weight."""
    assert _roles(rdataset("Ecdat", "HI"))["wght"] is Role.WEIGHT


def test_a_case_weight_of_zero_for_some_records_is_a_sampling_weight():
    """DAAG's ``nassCDS`` (26,217 occupants of crashes of 1997-2002): ``weight``, the case
    weight with many decimals, is 0 for 212 of them. It had been refused as a weight for those
    zeros (then made a key by the lint, cut into two intervals); a weight of 0 for some records
    is a weight, said so, and a column of zeros alone or one below 0 is none."""
    frame = rdataset("DAAG", "nassCDS")
    assert int((frame["weight"] == 0).sum()) == 212  # independently
    (weight,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == "weight"]
    assert weight.role is Role.WEIGHT and weight.rule == "design"
    assert "the values are non-negative numbers (" in weight.reason
    assert "; 212 of them 0)" in weight.reason
    rng = np.random.default_rng(5)
    sampled = _sampling(rng, N)
    for bad in (np.zeros(N), np.where(np.arange(N) == 0, -1.0, sampled)):
        frame = pd.DataFrame({"age": rng.integers(18, 90, N), "pweight": bad})
        assert _roles(frame)["pweight"] is not Role.WEIGHT
    assert (
        _roles(pd.DataFrame({"age": rng.integers(18, 90, N), "pweight": sampled}))["pweight"]
        is Role.WEIGHT
    )
