"""The check and risk profiles from a frequency table equal the in-memory profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon.apps.check import privacy_profile
from microanon.apps.risk import RiskOptions, assess_risk
from microanon.core.errors import InputError
from microanon.datasets import load_arx_adult
from microanon.scale.frequencies import FrequencyTable
from microanon.scale.profile import (
    dataset_frequencies,
    privacy_profile_of,
    risk_profile_of,
    stray_text_notes_of,
)

QUASI = ["sex", "age", "race", "marital_status", "education", "native_country", "workclass"]
RISK_KEYS = [*QUASI, "occupation"]
#: The class-size figures of ``microanon risk`` (the rest needs the records).
RISK_FIGURES = (
    "rows",
    "quasi",
    "threshold",
    "missing",
    "rows_with_missing_keys_left_out",
    "attackers",
    "population_uniqueness",
)


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


@pytest.fixture(scope="module")
def adult_parquet(adult, tmp_path_factory):
    """Adult as a Parquet dataset of four files of unequal sizes."""
    root = tmp_path_factory.mktemp("profile") / "adult"
    root.mkdir()
    cuts = [0, 7, 12000, 25000, len(adult)]
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        adult.iloc[a:b].to_parquet(root / f"part-{i}.parquet", index=False)
    return root


#: Profile figures that sum over the sensitive values in the order they were first seen: the
#: same up to the rounding of that order (the frequency table sees them in another order).
SUMMED = ("l_entropy", "t_closeness")


def _same_profile(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if key in SUMMED:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
        else:
            assert got[key] == value, key


def _frequencies(data: pd.DataFrame, columns: list[str]) -> FrequencyTable:
    """A frequency table built with pandas, combinations in another order than the rows."""
    counted = data[columns].groupby(columns, dropna=False, sort=False).size()
    counted = counted.iloc[::-1]
    index = counted.index
    if not isinstance(index, pd.MultiIndex):
        index = pd.MultiIndex.from_arrays([index], names=columns)
    values = {c: np.asarray(index.get_level_values(c), dtype=object) for c in columns}
    return FrequencyTable(columns, values, counted.to_numpy(dtype=np.int64))


# ------------------------------------------------------------------------------- Adult, on Dask
@pytest.mark.parametrize(
    ("quasi", "sensitive", "options"),
    [
        (QUASI, "occupation", {}),
        (["sex", "race", "education"], "occupation", {"c": 3.0, "beta_form": "enhanced"}),
        (["sex", "race", "workclass"], "age", {}),  # numeric: ordered t-closeness distance
        (["sex", "race", "workclass"], "age", {"distance": "equal", "threshold": 0.05}),
        (
            ["sex", "race"],
            "occupation",
            {"estimator": "poisson", "fraction": 0.01, "significance": 0.05},
        ),
    ],
)
def test_check_profile_on_adult_equals_memory(
    client, adult, adult_parquet, quasi, sensitive, options
):
    table, numeric = dataset_frequencies(adult_parquet, [*quasi, sensitive], client, progress=False)
    assert table.records == len(adult)
    expected = privacy_profile(adult, quasi, sensitive, **options)
    _same_profile(
        privacy_profile_of(table, quasi, sensitive, numeric=numeric[sensitive], **options),
        expected,
    )


def test_check_profile_against_a_population_equals_memory(client, adult, adult_parquet):
    quasi = ["sex", "race"]
    population = pd.concat([adult[quasi]] * 3, ignore_index=True)
    table, numeric = dataset_frequencies(adult_parquet, [*quasi, "salary_class"], client)
    expected = privacy_profile(adult, quasi, "salary_class", population=population)
    got = privacy_profile_of(
        table, quasi, "salary_class", numeric=numeric["salary_class"], population=population
    )
    _same_profile(got, expected)
    assert got["k_map"] == 3 * got["k"]


def test_risk_profile_on_adult_matches_arx(client, adult, adult_parquet):
    """ARX 3.9 on its Adult extract, 8 QIs, US population: Pitman 2.966 %, Zayatz 21.62 %."""
    table, _ = dataset_frequencies(adult_parquet, RISK_KEYS, client, progress=False)
    got = risk_profile_of(table, RISK_KEYS, region="usa")
    pu = got.numbers["population_uniqueness"]
    assert f"{100 * pu['pitman']['share']:.4g}" == "2.966"
    assert f"{100 * pu['zayatz']['share']:.4g}" == "21.62"
    assert pu["classes"] == 18_109 and pu["dankar"]["model"] == "pitman"
    expected = assess_risk(adult, RiskOptions(quasi=RISK_KEYS, region="usa", suda=False))
    assert {k: expected.numbers[k] for k in RISK_FIGURES} == got.numbers
    assert int(got.records.sum()) == len(adult) and len(got.class_risks) == 18_109


def test_dask_dataframe_source_and_missing_columns(client, adult):
    import dask.dataframe as dd

    frame = dd.from_pandas(adult, npartitions=3)
    table, numeric = dataset_frequencies(frame, ["sex", "age"], client, progress=False)
    assert table.records == len(adult) and numeric == {"sex": False, "age": True}
    with pytest.raises(InputError, match="'nope'"):
        dataset_frequencies(frame, ["sex", "nope"], client)
    with pytest.raises(InputError, match="more than once"):
        dataset_frequencies(frame, ["sex", "sex"], client)


# -------------------------------------------------------------------- random tables, no Dask
def _table(draw_rows: list[tuple[int, int, int, int]], with_missing: bool) -> pd.DataFrame:
    frame = pd.DataFrame(draw_rows, columns=["a", "b", "c", "s"])
    frame["b"] = frame["b"].map(lambda v: f"v{v}")
    if with_missing:
        frame.loc[frame["c"] == 3, "c"] = np.nan
    return frame


ROWS = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 3), st.integers(0, 4)),
    min_size=1,
    max_size=60,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=ROWS,
    quasi=st.sampled_from([["a"], ["a", "b"], ["b", "c"], ["a", "b", "c"]]),
    sensitive_numeric=st.booleans(),
    c=st.sampled_from([1.5, 2.0, 3.0]),
    beta_form=st.sampled_from(["basic", "enhanced"]),
    threshold=st.sampled_from([0.2, 0.5, 1.0]),
)
def test_check_profile_equals_memory_on_random_tables(
    rows, quasi, sensitive_numeric, c, beta_form, threshold
):
    data = _table(rows, with_missing=False)
    if not sensitive_numeric:
        data["s"] = data["s"].map(lambda v: f"s{v}")
    options = {"c": c, "beta_form": beta_form, "threshold": threshold}
    expected = privacy_profile(data, quasi, "s", **options)
    table = _frequencies(data, [*quasi, "s"])
    got = privacy_profile_of(table, quasi, "s", numeric=sensitive_numeric, **options)
    _same_profile(got, expected)


@settings(max_examples=40, deadline=None)
@given(rows=ROWS, population=st.sampled_from(["none", "size", "fraction", "table"]))
def test_risk_profile_equals_memory_on_random_tables(rows, population):
    data = _table(rows, with_missing=False)
    quasi = ["a", "b", "c"]
    given_population = {
        "none": {},
        "size": {"population": 10 * len(data)},
        "fraction": {"fraction": 0.25},
        "table": {"population_table": pd.concat([data[quasi]] * 2, ignore_index=True)},
    }[population]
    expected = assess_risk(data, RiskOptions(quasi=quasi, suda=False, **given_population))
    size = given_population.get("population")
    if population == "table":
        size = 2 * len(data)
    got = risk_profile_of(
        _frequencies(data, quasi),
        quasi,
        population_size=size,
        fraction=given_population.get("fraction"),
        population_table=given_population.get("population_table"),
    )
    assert {k: expected.numbers[k] for k in RISK_FIGURES} == got.numbers


# ------------------------------------------------------------------------- missing and stray
def test_missing_values_as_in_memory():
    data = _table([(0, 1, 3, 1), (0, 1, 2, 1), (1, 2, 3, 0), (1, 2, 2, 4)], with_missing=True)
    table = _frequencies(data, ["a", "c", "s"])
    with pytest.raises(InputError) as memory:
        privacy_profile(data, ["a", "c"], "s", missing="error")
    with pytest.raises(InputError) as frequencies:
        privacy_profile_of(table, ["a", "c"], "s", numeric=True, missing="error")
    assert str(frequencies.value) == str(memory.value)
    for policy in ("drop", "value"):
        expected = privacy_profile(data, ["a", "c"], "s", missing=policy)
        got = privacy_profile_of(table, ["a", "c"], "s", numeric=True, missing=policy)
        _same_profile(got, expected)
    assert privacy_profile(data, ["a", "c"], "s", missing="drop")["dropped"] == 2
    keys = _frequencies(data, ["a", "c"])
    for policy in ("sdcmicro", "any", "value", "drop"):
        expected = assess_risk(data, RiskOptions(quasi=["a", "c"], suda=False, missing=policy))
        got = risk_profile_of(keys, ["a", "c"], missing=policy)
        assert {k: expected.numbers[k] for k in RISK_FIGURES} == got.numbers, policy
    with pytest.raises(InputError) as memory:
        assess_risk(data, RiskOptions(quasi=["a", "c"], missing="error", suda=False))
    with pytest.raises(InputError, match=r"missing key values in column\(s\) 'c' \(2\)") as got:
        risk_profile_of(keys, ["a", "c"], missing="error")
    assert str(got.value) == str(memory.value)


def test_stray_text_noted_and_refused_as_in_memory():
    from microanon.apps.check import stray_text_notes

    data = pd.DataFrame({"a": [str(v) for v in range(30)] + ["n/a"], "s": ["x"] * 31})
    # in a quasi-identifier a note, the same from both engines
    memory = stray_text_notes(data, ["a"], sensitive="s")
    assert memory == stray_text_notes_of(_frequencies(data, ["a", "s"]), ["a"], sensitive="s")
    assert len(memory) == 1 and "'a' is numeric but for 1 of 31 values" in memory[0]
    # in the sensitive column a refusal, the same from both engines
    swapped = data.rename(columns={"a": "s", "s": "a"})
    with pytest.raises(InputError) as memory:
        stray_text_notes(swapped, ["a", "s"], sensitive="s")
    with pytest.raises(InputError) as frequencies:
        stray_text_notes_of(_frequencies(swapped, ["a", "s"]), ["a", "s"], sensitive="s")
    assert str(frequencies.value) == str(memory.value)
    assert stray_text_notes_of(_frequencies(data.iloc[:5], ["a", "s"]), ["a", "s"], "s") == []
    # "?" (how a release writes a missing value) is no stray string in a quasi-identifier; in
    # the sensitive column it is refused with a word on where it comes from, by both engines
    marked = pd.DataFrame({"a": [str(v) for v in range(30)] + ["?"], "s": ["?"] + ["1"] * 30})
    assert stray_text_notes(marked, ["a"], sensitive="s") == []
    assert stray_text_notes_of(_frequencies(marked, ["a", "s"]), ["a"], sensitive="s") == []
    with pytest.raises(InputError, match="how microanon's releases write a missing") as memory:
        stray_text_notes(marked, ["a", "s"], sensitive="s")
    with pytest.raises(InputError) as frequencies:
        stray_text_notes_of(_frequencies(marked, ["a", "s"]), ["a", "s"], sensitive="s")
    assert str(frequencies.value) == str(memory.value)
