"""Individual risk with sampling weights and household risk (sdcMicro's freqCalc / measure_risk).

Anchors: ``tests/data/sdcmicro_survey*`` hold sdcMicro 5.8.1's own numbers on the synthetic
survey ``tests/data/survey_synthetic.csv`` (both made by the scripts under
``benchmarks/peers/``; the JSON lists the exact R calls).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.measures import individual_risk, key_frequencies

DATA = Path(__file__).resolve().parents[1] / "data"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return pd.read_csv(DATA / "survey_synthetic.csv")


@pytest.fixture(scope="module")
def sdc() -> tuple[dict, pd.DataFrame]:
    meta = json.loads((DATA / "sdcmicro_survey.json").read_text())
    return meta, pd.read_csv(DATA / "sdcmicro_survey_records.csv")


# ------------------------------------------------------------------------------------- anchors
def test_anchor_provenance(sdc: tuple[dict, pd.DataFrame]) -> None:
    meta, records = sdc
    assert meta["sdcMicro"] == "5.8.1"
    assert meta["keys"] == KEYS and meta["weight"] == "weight" and meta["household"] == "hid"
    assert meta["calls"]["measure_risk"].startswith("measure_risk(df, keyVars = c(")
    assert len(records) == meta["rows"] == 4000


def test_individual_and_household_risk_agree_with_sdcmicro(
    survey: pd.DataFrame, sdc: tuple[dict, pd.DataFrame]
) -> None:
    meta, rec = sdc
    # the anchor table has missing keys in 129 + 14 records, counted as freqCalc does
    assert survey[KEYS].isna().any(axis=1).sum() == 143
    r = individual_risk(survey, KEYS, "weight", household="hid", missing="match")
    np.testing.assert_array_equal(r.frequencies.sample, rec["fk"])
    np.testing.assert_allclose(r.frequencies.weighted, rec["Fk"], rtol=1e-12)
    np.testing.assert_allclose(r.record_risk, rec["risk"], rtol=1e-12)
    np.testing.assert_allclose(r.household_risk, rec["hier_risk"], rtol=1e-10)
    assert r.global_risk == pytest.approx(meta["global_risk"], rel=1e-12)
    assert r.expected_reidentifications == pytest.approx(meta["global_risk_ER"], rel=1e-12)
    assert r.household_global_risk == pytest.approx(meta["hier_risk"], rel=1e-12)
    assert r.household_expected_reidentifications == pytest.approx(meta["hier_risk_ER"], rel=1e-12)
    # sdcMicro's figures, as printed (rounded here)
    assert round(meta["global_risk"], 8) == 0.01688116
    assert round(meta["hier_risk"], 8) == 0.06856597


def test_unweighted_and_alpha_agree_with_sdcmicro(
    survey: pd.DataFrame, sdc: tuple[dict, pd.DataFrame]
) -> None:
    meta, rec = sdc
    r = individual_risk(survey, KEYS, missing="match")
    np.testing.assert_allclose(r.record_risk, rec["risk_unweighted"], rtol=1e-12)
    assert r.global_risk == pytest.approx(meta["global_risk_unweighted"], rel=1e-12)
    f = key_frequencies(survey, KEYS, "weight", alpha=0.5, missing="match")
    np.testing.assert_allclose(f.sample, rec["fk_alpha"], rtol=1e-12)
    np.testing.assert_allclose(f.weighted, rec["Fk_alpha"], rtol=1e-12)
    assert (f.n1, f.n2) == (meta["freqCalc_alpha_n1"], meta["freqCalc_alpha_n2"])


# ----------------------------------------------------------------------------- worked examples
def test_benedetti_franconi_worked_example() -> None:
    data = pd.DataFrame(
        {
            "a": [1, 1, 1, 2, 2, 2],
            "b": [1, 1, 2, 2, 2, 2],
            "w": [10.0, 30.0, 5.0, 4.0, 4.0, 2.0],
            "hh": ["A", "A", "B", "B", "C", "C"],
        }
    )
    r = individual_risk(data, ["a", "b"], "w", household="hh")
    # (1,1): f = 2, F = 40, p = 0.05: p/(1-p) - (p/(1-p))² log(1/p)
    odds = 0.05 / 0.95
    r11 = odds - odds**2 * math.log(20)
    # (1,2): f = 1, F = 5, p = 0.2: p/(1-p) log(1/p) = 0.25 log 5
    r12 = 0.25 * math.log(5)
    # (2,2): f = 3, F = 10, p = 0.3: p / (f - (1 - p)) = 0.3 / 2.3
    r22 = 0.3 / 2.3
    expected = [r11, r11, r12, r22, r22, r22]
    np.testing.assert_allclose(r.record_risk, expected, rtol=1e-14)
    np.testing.assert_array_equal(r.frequencies.sample, [2, 2, 1, 3, 3, 3])
    np.testing.assert_array_equal(r.frequencies.weighted, [40, 40, 5, 10, 10, 10])
    assert r.global_risk == pytest.approx(sum(expected) / 6, rel=1e-14)
    assert r.expected_reidentifications == pytest.approx(sum(expected), rel=1e-14)
    hh_a = 1 - (1 - r11) ** 2
    hh_b = 1 - (1 - r12) * (1 - r22)
    hh_c = 1 - (1 - r22) ** 2
    np.testing.assert_allclose(r.household_risk, [hh_a, hh_a, hh_b, hh_b, hh_c, hh_c], rtol=1e-14)
    assert r.household_expected_reidentifications == pytest.approx(2 * (hh_a + hh_b + hh_c))


def test_unit_weights_and_no_weights_give_one_over_f() -> None:
    data = pd.DataFrame({"a": [1, 1, 2, 3, 3, 3], "w": 1.0})
    for r in (individual_risk(data, ["a"], "w"), individual_risk(data, ["a"])):
        np.testing.assert_allclose(r.record_risk, [1 / 2, 1 / 2, 1, 1 / 3, 1 / 3, 1 / 3])


def test_missing_keys_are_counted_as_freqcalc() -> None:
    # rows (1,1) (1,2) (1,NA) (NA,NA) (2,NA), weights 2 4 5 10 3; sdcMicro 5.8.1's
    # freqCalc(d, c("a","b"), w = "w") gives fk 2 2 4 5 2 and Fk 7 9 21 24 13:
    # (1,1) counts (1,NA); (1,NA) counts (1,1), (1,2) and (NA,NA); (2,NA) counts (NA,NA);
    # (NA,NA) is the whole sample; complete rows do not count (NA,NA)
    d = pd.DataFrame(
        {"a": [1, 1, 1, None, 2], "b": [1, 2, None, None, None], "w": [2, 4, 5, 10, 3.0]}
    )
    f = key_frequencies(d, ["a", "b"], "w", missing="match")
    np.testing.assert_array_equal(f.sample, [2, 2, 4, 5, 2])
    np.testing.assert_array_equal(f.weighted, [7, 9, 21, 24, 13])
    # alpha = 0.5 halves what rows with missing keys add: fk 1.5 1.5 3.5 5 1.5
    f = key_frequencies(d, ["a", "b"], "w", alpha=0.5, missing="match")
    np.testing.assert_array_equal(f.sample, [1.5, 1.5, 3.5, 5, 1.5])
    np.testing.assert_array_equal(f.weighted, [4.5, 6.5, 16, 24, 8])
    # sdcMicro's measure_risk(d, c("a","b"), w = "w")$Res[, "risk"]
    r = individual_risk(d, ["a", "b"], "w", missing="match")
    np.testing.assert_allclose(
        r.record_risk, [0.19955793, 0.16293246, 0.05970149, 0.04950495, 0.11994042], atol=5e-9
    )


def test_one_key_with_missing_values() -> None:
    # sdcMicro: freqCalc(e, "a", w = "w", alpha = 0.5) gives fk 2.5 2.5 1.5 4, Fk 7.5 7.5 6.5 14
    e = pd.DataFrame({"a": [1, 1, 2, None], "w": [2, 3, 4, 5.0]})
    f = key_frequencies(e, ["a"], "w", alpha=0.5, missing="match")
    np.testing.assert_array_equal(f.sample, [2.5, 2.5, 1.5, 4])
    np.testing.assert_array_equal(f.weighted, [7.5, 7.5, 6.5, 14])
    # f = 1.5 is none of indivRisk's cases (1, 2, > 2): risk 0, as in sdcMicro
    assert individual_risk(e, ["a"], "w", alpha=0.5, missing="match").record_risk.iloc[2] == 0


# ----------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ("nope", "weight column 'nope' not found"),
        ("txt", "weight column 'txt' is not numeric"),
        ("nan", r"weight column 'nan' has 1 missing weight\(s\): give those records a weight"),
        ("neg", "weight column 'neg' has 2 zero or negative weight"),
        ("small", "weight column 'small' has 1 below 1"),
    ],
)
def test_bad_weights(weights: str, message: str) -> None:
    d = pd.DataFrame(
        {
            "a": [1, 2, 3],
            "txt": ["1", "2", "3"],
            "nan": [1.0, None, 2.0],
            "neg": [0.0, -1.0, 2.0],
            "small": [0.5, 1.0, 2.0],
        }
    )
    with pytest.raises(InputError, match=message):
        individual_risk(d, ["a"], weights)


def test_bad_household_and_keys() -> None:
    d = pd.DataFrame({"a": [1, None, 3], "h": [1, None, 2], "w": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match="household column 'x' not found"):
        individual_risk(d, ["a"], "w", household="x", missing="match")
    with pytest.raises(InputError, match="household column 'h' has 1 missing id"):
        individual_risk(d, ["a"], "w", household="h", missing="match")
    with pytest.raises(InputError, match=r"key column 'a' has 1 missing value\(s\).*'match'"):
        individual_risk(d, ["a"], "w")
    with pytest.raises(InputError, match="'missing' must be one of"):
        key_frequencies(d, ["a"], missing="drop")
    with pytest.raises(InputError, match=r"'alpha' must be in \[0, 1\]"):
        key_frequencies(d, ["a"], alpha=1.5, missing="match")
    with pytest.raises(InputError, match="column\\(s\\) 'zz' not found"):
        key_frequencies(d, ["zz"])
    with pytest.raises(InputError, match="missing in every row"):
        key_frequencies(pd.DataFrame({"a": [None, None]}), ["a"], missing="match")


# ------------------------------------------------------------------------------------ properties
@st.composite
def surveys(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 40))
    n_keys = draw(st.integers(1, 3))
    cols = {
        f"k{j}": draw(st.lists(st.one_of(st.integers(0, 2), st.none()), min_size=n, max_size=n))
        for j in range(n_keys)
    }
    cols["w"] = draw(st.lists(st.floats(1, 500), min_size=n, max_size=n))
    cols["hh"] = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    d = pd.DataFrame(cols)
    keys = [f"k{j}" for j in range(n_keys)]
    if d[keys].isna().all().any():
        d.loc[0, keys] = 0
    return d


@settings(max_examples=150, deadline=None)
@given(surveys(), st.sampled_from([1.0, 0.5, 0.0]))
def test_risks_are_probabilities_and_households_dominate(d: pd.DataFrame, alpha: float) -> None:
    keys = [c for c in d.columns if c.startswith("k")]
    r = individual_risk(d, keys, "w", household="hh", alpha=alpha, missing="match")
    risk, hrisk = r.record_risk.to_numpy(), r.household_risk.to_numpy()
    assert np.all((risk >= 0) & (risk <= 1 + 1e-12))
    assert np.all((hrisk >= 0) & (hrisk <= 1 + 1e-12))
    assert np.all(hrisk >= risk - 1e-12)
    f = r.frequencies
    assert np.all(f.weighted.to_numpy() >= f.sample.to_numpy() - 1e-9)
    if not d[keys].isna().any().any():
        # without missing keys f_k is the plain class size
        sizes = d.groupby(keys)[keys[0]].transform("size").to_numpy()
        np.testing.assert_array_equal(f.sample, sizes)


def _frequency_table(d: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The distinct rows of ``d[columns]`` (missing values kept) and the records of each."""
    grouped = d[columns].astype(object).groupby(columns, dropna=False, sort=False).size()
    table = grouped.index.to_frame(index=False)
    return table.astype(d[columns].dtypes.to_dict()), grouped.to_numpy()


@settings(max_examples=150, deadline=None)
@given(surveys(), st.sampled_from([1.0, 0.5]), st.booleans())
def test_a_frequency_table_gives_the_risks_of_its_records(
    d: pd.DataFrame, alpha: float, coarse: bool
) -> None:
    """Given ``counts``, a frequency table of distinct rows (keys and weight) gives each row the
    risk its records get, the global figures and n1, n2 counted in records, and the bad weights
    counted in records."""
    keys = [c for c in d.columns if c.startswith("k")]
    if coarse:  # few distinct weights, so that rows repeat
        d = d.assign(w=d["w"].round(-2).clip(lower=1))
    table, counts = _frequency_table(d, [*keys, "w"])
    rows = individual_risk(d, keys, "w", alpha=alpha, missing="match")
    freq = individual_risk(table, keys, "w", alpha=alpha, missing="match", counts=counts)
    expanded = np.repeat(freq.record_risk.to_numpy(), counts)
    order = d[[*keys, "w"]].astype(object).groupby([*keys, "w"], dropna=False, sort=False).ngroup()
    np.testing.assert_allclose(
        freq.record_risk.to_numpy()[order.to_numpy()], rows.record_risk.to_numpy(), rtol=1e-12
    )
    assert np.isclose(freq.global_risk, rows.global_risk, rtol=1e-12)
    assert np.isclose(freq.expected_reidentifications, rows.expected_reidentifications, rtol=1e-12)
    assert np.isclose(expanded.sum(), rows.record_risk.sum(), rtol=1e-12)
    assert (freq.frequencies.n1, freq.frequencies.n2) == (rows.frequencies.n1, rows.frequencies.n2)
    low = d.assign(w=d["w"] / 1000)
    lows, low_counts = _frequency_table(low, [*keys, "w"])
    with pytest.raises(InputError) as by_rows:
        individual_risk(low, keys, "w", missing="match")
    with pytest.raises(InputError) as by_table:
        individual_risk(lows, keys, "w", missing="match", counts=low_counts)
    assert str(by_table.value) == str(by_rows.value)


def test_household_risk_needs_the_records() -> None:
    d = pd.DataFrame({"k": [0, 1], "w": [2.0, 3.0], "hh": [0, 0]})
    with pytest.raises(InputError, match="household risk needs the records"):
        individual_risk(d, ["k"], "w", household="hh", counts=[1, 2])
