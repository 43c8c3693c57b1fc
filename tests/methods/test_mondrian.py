"""Mondrian: small examples worked by hand, release contents and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core import Hierarchy, InfeasibleError, InputError, Release, SchemaError
from microanon.methods.generalize.mondrian import mondrian
from microanon.models import KAnonymity, LDiversity, l_diversity

SEX = Hierarchy.from_nested({"*": ["Male", "Female"]}, name="sex")


@pytest.fixture
def patients() -> tuple[pd.DataFrame, dict]:
    """The patient table of LeFevre et al. (ICDE 2006, Fig. 1), zipcode read as a number."""
    df = pd.DataFrame(
        {
            "age": [25, 25, 26, 27, 27, 28],
            "sex": ["Male", "Female", "Male", "Male", "Female", "Male"],
            "zipcode": [53711, 53712, 53711, 53710, 53712, 53711],
            "disease": ["Flu", "Hepatitis", "Bronchitis", "Broken Arm", "AIDS", "Hang Nail"],
        }
    )
    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": {"role": "quasi", "hierarchy": SEX},
        "zipcode": {"role": "quasi", "kind": "numeric"},
        "disease": {"role": "sensitive"},
    }
    return df, schema


def test_patients_k2(patients):
    # Whole table: normalized widths age (28-25)/3 = 1, sex 2 leaves/2 = 1, zipcode 2/2 = 1; the
    # tie goes to the first quasi-identifier, age. Its median is the ⌈6/2⌉ = 3rd smallest of
    # 25 25 26 27 27 28, i.e. 26: sides {25, 25, 26} and {27, 27, 28}, both >= k = 2.
    # Each side has 3 < 2k records, so no further cut can leave k on both sides.
    df, schema = patients
    rel = mondrian(df, schema, models={"k_anonymity": {"k": 2}})
    assert isinstance(rel, Release) and rel.kind == "generalized"
    assert rel.data.to_dict("list") == {
        "age": ["[25, 26]"] * 3 + ["[27, 28]"] * 3,
        "sex": ["*"] * 6,
        "zipcode": ["[53711, 53712]"] * 3 + ["[53710, 53712]"] * 3,
        "disease": list(df["disease"]),
    }
    meta = rel.metadata
    assert meta["method"] == "mondrian" and meta["partitions"] == 2
    assert meta["relaxed"] is False and meta["suppressed"] == 0
    assert meta["parameters"] == {"relaxed": False}
    assert meta["models"] == [{"k_anonymity": {"k": 2}}]
    assert meta["quasi"] == ["age", "sex", "zipcode"] and meta["sensitive"] == ["disease"]
    assert meta["rows_in"] == meta["rows_out"] == 6
    assert list(meta["hierarchies"]) == ["sex"]  # numeric quasi-identifiers need none


def test_patients_k1_cuts_down_to_single_records(patients):
    # Left side {25M, 25F, 26M}: widths age 1/3, sex 1, zipcode (53712-53711)/2 = 1/2. Sex is
    # cut first (Male {25, 26} | Female {25}); then age at its median 25 splits {25M | 26M}.
    # Right side {27M, 27F, 28M}: sex first again (Male {27, 28} | Female {27}), then age.
    df, schema = patients
    rel = mondrian(df, schema, models=[KAnonymity(1)])
    assert rel.metadata["partitions"] == 6
    assert list(rel.data["age"]) == ["25", "25", "26", "27", "27", "28"]
    assert list(rel.data["sex"]) == list(df["sex"])
    assert list(rel.data["zipcode"]) == [str(z) for z in df["zipcode"]]


def test_l_diversity_blocks_cuts(patients):
    # Distinct 2-diversity with k = 1: the age cut at 26 leaves 3 distinct diseases per side.
    # On the left side every cut isolates one record (sex: Female {25}; zipcode median 53711:
    # {53712}; age median 25: {26}), and one record has one disease < 2: no cut is allowed.
    df, schema = patients
    rel = mondrian(df, schema, models=[KAnonymity(1), LDiversity(2)])
    assert rel.metadata["partitions"] == 2
    assert l_diversity(rel.data, ["age", "sex", "zipcode"], "disease", 2).holds


def test_t_closeness_compares_with_the_whole_table():
    # Whole table: a, a, b, b (q = 1/2, 1/2). The age cut at the median 2 gives {a, a} and
    # {b, b}; each part is at EMD ½(|1 - ½| + |0 - ½|) = 0.5 from the WHOLE table (and at 0
    # from itself), so t = 0.4 forbids the cut and t = 0.5 allows it (k = 2 stops there).
    df = pd.DataFrame({"age": [1, 2, 3, 4], "disease": ["a", "a", "b", "b"]})
    schema = {"age": {"role": "quasi", "kind": "numeric"}, "disease": "sensitive"}
    strict = mondrian(df, schema, models=[KAnonymity(2), {"t_closeness": {"t": 0.4}}])
    assert list(strict.data["age"]) == ["[1, 4]"] * 4
    loose = mondrian(df, schema, models=[KAnonymity(2), {"t_closeness": {"t": 0.5}}])
    assert list(loose.data["age"]) == ["[1, 2]", "[1, 2]", "[3, 4]", "[3, 4]"]


def test_relaxed_shares_the_median():
    # k = 3, values 30 30 30 30 31 32. Strict: the median (3rd smallest) is 30, so "<= 30" holds
    # 4 records and "> 30" only 2 < k: no cut. Relaxed: the 3 smallest go left (30 30 30) and
    # the others right (30 31 32): both sides hold 3.
    df = pd.DataFrame({"x": [30, 31, 30, 32, 30, 30]})
    schema = {"x": {"role": "quasi", "kind": "numeric"}}
    strict = mondrian(df, schema, models={"k_anonymity": {"k": 3}})
    assert list(strict.data["x"]) == ["[30, 32]"] * 6
    relaxed = mondrian(df, schema, models={"k_anonymity": {"k": 3}}, relaxed=True)
    assert sorted(relaxed.data["x"]) == ["30"] * 3 + ["[30, 32]"] * 3
    assert relaxed.metadata["relaxed"] is True and relaxed.metadata["partitions"] == 2
    # records with equal values are assigned in row order: the first three 30s go left
    assert list(relaxed.data["x"]) == ["30", "[30, 32]", "30", "[30, 32]", "30", "[30, 32]"]


def test_categorical_multiway_cut():
    # k = 2. Root cut into Europe {FR, FR, ES, IT} and Asia {JP, JP, CN}: allowed. Europe's
    # children FR (2), ES (1), IT (1) and Asia's JP (2), CN (1) each leave a part below k.
    country = Hierarchy.from_nested(
        {"World": {"Europe": ["FR", "ES", "IT", "DE"], "Asia": ["JP", "CN"]}}, name="country"
    )
    df = pd.DataFrame({"country": ["FR", "JP", "FR", "ES", "CN", "IT", "JP"]})
    schema = {"country": {"role": "quasi", "hierarchy": country}}
    rel = mondrian(df, schema, models={"k_anonymity": {"k": 2}})
    assert list(rel.data["country"]) == ["Europe", "Asia", "Europe", "Europe", "Asia"] + [
        "Europe",
        "Asia",
    ]
    # the current node starts at the lowest node covering the values: only European values,
    # k = 4 -> no cut, published as "Europe" rather than the root
    europe = mondrian(df[df["country"].isin(["FR", "ES", "IT"])], schema, models=[KAnonymity(4)])
    assert set(europe.data["country"]) == {"Europe"}
    # and the root is published as "*" whatever its label
    one = mondrian(df, schema, models=[KAnonymity(7)])
    assert set(one.data["country"]) == {"*"}


def test_numeric_with_a_hierarchy_in_another_order():
    # A numeric quasi-identifier is cut by value even when its hierarchy lists its leaves out of
    # order (leaf codes 0..3 are 9, 5, 1, 3 here): median of 1 3 5 9 is 3.
    h = Hierarchy.from_nested({"*": {"high": [9, 5], "low": [1, 3]}}, name="x")
    df = pd.DataFrame({"x": [9, 1, 5, 3]})
    rel = mondrian(
        df, {"x": {"role": "quasi", "kind": "numeric", "hierarchy": h}}, models=[KAnonymity(2)]
    )
    assert list(rel.data["x"]) == ["[5, 9]", "[1, 3]", "[5, 9]", "[1, 3]"]


def test_float_values_and_insensitive_columns_pass_through():
    df = pd.DataFrame(
        {"x": [0.5, 1.25, 2.0, 3.75], "note": ["a", "b", "c", "d"], "id": [1, 2, 3, 4]}
    )
    schema = {"x": {"role": "quasi", "kind": "numeric"}, "note": "insensitive", "id": "identifier"}
    rel = mondrian(df, schema, models=[KAnonymity(2)])
    assert list(rel.data.columns) == ["x", "note"]  # identifiers are dropped
    assert list(rel.data["x"]) == ["[0.5, 1.25]"] * 2 + ["[2, 3.75]"] * 2
    assert list(rel.data["note"]) == ["a", "b", "c", "d"]


def test_index_and_dropped_rows():
    # Rows dropped under a 'missing: drop' policy are not published; the order is kept.
    df = pd.DataFrame({"x": [4.0, np.nan, 1.0, 3.0, 2.0]}, index=[10, 11, 12, 13, 14])
    rel = mondrian(df, {"x": {"role": "quasi", "kind": "numeric", "missing": "drop"}},
                   models=[KAnonymity(2)])  # fmt: skip
    assert list(rel.data["x"]) == ["[3, 4]", "[1, 2]", "[3, 4]", "[1, 2]"]
    assert rel.metadata["rows_in"] == rel.metadata["rows_out"] == 4


def test_saves_and_loads(tmp_path, patients):
    df, schema = patients
    rel = mondrian(df, schema, models={"k_anonymity": {"k": 2}})
    rel.save(tmp_path / "out")
    back = Release.load(tmp_path / "out")
    assert back.equals(rel.in_written_order())


# ---------------------------------------------------------------------------------- bad input
def test_bad_k(patients):
    df, schema = patients
    with pytest.raises(InputError, match="k must be an integer >= 1"):
        mondrian(df, schema, models={"k_anonymity": {"k": 0}})
    with pytest.raises(InfeasibleError, match=r"k-anonymity \(k=7\).*whole table of 6 records"):
        mondrian(df, schema, models={"k_anonymity": {"k": 7}})


def test_l_above_the_distinct_values(patients):
    df, schema = patients
    with pytest.raises(InfeasibleError, match=r"distinct l-diversity \(l=7"):
        mondrian(df, schema, models=[KAnonymity(1), LDiversity(7)])


def test_schema_errors(patients):
    df, schema = patients
    no_quasi = {c: ("sensitive" if c == "disease" else "insensitive") for c in df.columns}
    with pytest.raises(SchemaError, match="no quasi-identifier"):
        mondrian(df, no_quasi, models=[KAnonymity(2)])
    bare = {**schema, "sex": {"role": "quasi"}}
    with pytest.raises(SchemaError, match="'sex' is categorical and Mondrian needs a hierarchy"):
        mondrian(df, bare, models=[KAnonymity(2)])
    no_sa = {**schema, "disease": "insensitive"}
    with pytest.raises(SchemaError, match="exactly one sensitive column"):
        mondrian(df, no_sa, models=[LDiversity(2)])


def test_bad_models_and_flags(patients):
    df, schema = patients
    with pytest.raises(InputError, match="models"):
        mondrian(df, schema, models=[])
    with pytest.raises(InputError, match="unknown privacy model"):
        mondrian(df, schema, models={"k_anon": {"k": 2}})
    with pytest.raises(InputError, match="relaxed must be true or false"):
        mondrian(df, schema, models=[KAnonymity(2)], relaxed="yes")
    with pytest.raises(TypeError):
        mondrian(df, schema)  # models are required


def test_empty_table(patients):
    df, schema = patients
    with pytest.raises(InputError, match="empty"):
        mondrian(df.iloc[:0], schema, models=[KAnonymity(1)])


def test_progress_bar(patients, capsys):
    df, schema = patients
    quiet = mondrian(df, schema, models=[KAnonymity(2)])
    assert capsys.readouterr().err == ""
    shown = mondrian(df, schema, models=[KAnonymity(2)], progress=True)
    assert "mondrian" in capsys.readouterr().err
    assert shown.equals(quiet)
