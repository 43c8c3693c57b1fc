"""Local suppression: k-anonymity under both matchings (brute force, pycanon), reports, errors.

What is verified with pycanon, exactly:

- ``wildcard=False``: pycanon's ``k_anonymity`` of the output with every missing key written
  ``"*"`` (pycanon, like pandas' groupby, would otherwise drop rows with missing keys) is at
  least ``k``; this is ordinary k-anonymity.
- ``wildcard=True``: each record's wildcard frequency is rebuilt from pycanon's own equivalence
  classes (``get_equiv_class``): for every pair of missingness patterns (A, B), the records of
  both patterns are grouped on the keys present in both, and each A-record is credited with the
  B-records of its class. The sum over B is the number of records it matches; every record must
  reach ``k``. (pycanon's plain ``k_anonymity`` cannot express the wildcard: it treats a missing
  value as a value.)

A plain-Python double loop checks the same on small random tables.
"""

from __future__ import annotations

import doctest
import importlib
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import pycanon_anonymity
from real_surveys import survey

from microanon.core.errors import InfeasibleError, InputError
from microanon.core.release import Release
from microanon.datasets import adult_schema, load_adult
from microanon.methods.sdc.suppression import (
    _pairwise_frequencies,
    local_suppression,
    suppress_codes,
    wildcard_frequencies,
)
from microanon.models import check_release

ADULT_KEYS = ["age", "sex", "race", "marital_status"]


# ---------------------------------------------------------------------- independent checkers
def _rows(df: pd.DataFrame, cols: list[str]) -> list[tuple]:
    """Key tuples, a suppressed cell (missing, or ``"*"`` in a strict release) as None."""
    return [
        tuple(None if pd.isna(v) or v == "*" else v for v in r)
        for r in df[cols].itertuples(index=False)
    ]


def _match(a: tuple, b: tuple) -> bool:
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def brute_wildcard_k(rows: list[tuple]) -> int:
    """Smallest number of records a record matches (missing matches anything), itself included."""
    return min(sum(_match(r, q) for q in rows) for r in rows)


def brute_candidates(original: list[tuple], published: list[tuple]) -> int:
    """Smallest number of published records consistent with a record's original values."""
    return min(
        sum(
            all(y is None or x is None or x == y for x, y in zip(t, q, strict=True))
            for q in published
        )
        for t in original
    )


def pycanon_wildcard_counts(out: pd.DataFrame, cols: list[str]) -> np.ndarray:
    """Each record's wildcard frequency, from pycanon's equivalence classes (see module doc)."""
    from pycanon.anonymity.utils.aux_anonymity import get_equiv_class

    present = out[cols].notna().to_numpy()
    masks = np.unique(present, axis=0)
    counts = np.zeros(len(out), dtype=np.int64)
    for a in masks:
        rows_a = np.flatnonzero((present == a).all(axis=1))
        for b in masks:
            rows_b = np.flatnonzero((present == b).all(axis=1))
            common = [c for c, x, y in zip(cols, a, b, strict=True) if x and y]
            if not common:
                counts[rows_a] += len(rows_b)
                continue
            both = pd.concat(
                [out.iloc[rows_b][common].astype(str), out.iloc[rows_a][common].astype(str)],
                ignore_index=True,
            )
            with warnings.catch_warnings():  # pandas' notice about one-column groupby keys
                warnings.simplefilter("ignore")
                classes = get_equiv_class(both, common)
            for cls in classes:
                cls = np.asarray(cls)
                members_a = cls[cls >= len(rows_b)] - len(rows_b)
                counts[rows_a[members_a]] += int(np.count_nonzero(cls < len(rows_b)))
    return counts


# ---------------------------------------------------------------------- small examples
SCHEMA2 = {"sex": "quasi", "zip": "quasi"}


def test_worked_example_suppresses_the_unique_zip():
    df = pd.DataFrame({"sex": ["f", "f", "m", "m", "m"], "zip": ["1", "1", "2", "2", "3"]})
    rel = local_suppression(df, SCHEMA2, k=2)
    assert rel.kind == "masked"
    assert rel.data["zip"].tolist() == ["1", "1", "2", "2", None]
    assert rel.data["sex"].tolist() == df["sex"].tolist()
    m = rel.metadata
    assert m["suppressed_cells"] == {"zip": [4]}
    assert m["suppressed_by_column"] == {"sex": 0, "zip": 1} and m["suppressed_total"] == 1
    assert m["models"] == []  # the wildcard matching is not k-anonymity
    assert m["achieved_k"] == 2 and m["rounds"] == 1
    assert m["parameters"] == {
        "k": 2,
        "columns": ["sex", "zip"],
        "importance": None,
        "wildcard": True,
    }


def test_importance_moves_the_suppression_to_the_less_important_key():
    # (m, 3) can be fixed by suppressing either key; importance decides which.
    df = pd.DataFrame({"sex": ["f", "f", "m", "m", "f"], "zip": ["1", "1", "2", "2", "2"]})
    keep_zip = local_suppression(df, SCHEMA2, k=2, importance={"sex": 2, "zip": 1})
    keep_sex = local_suppression(df, SCHEMA2, k=2, importance=[1, 2])
    assert keep_zip.metadata["suppressed_cells"] == {"sex": [4]}
    assert keep_sex.metadata["suppressed_cells"] == {"zip": [4]}


def test_k_one_changes_nothing():
    df = pd.DataFrame({"sex": ["f", "m"], "zip": ["1", "2"]})
    rel = local_suppression(df, SCHEMA2, k=1)
    assert rel.metadata["suppressed_total"] == 0
    pd.testing.assert_frame_equal(rel.data, df, check_dtype=False)


def test_input_missing_values_match_anything():
    # The missing zip of row 2 matches both other records: no suppression is needed for k = 2.
    df = pd.DataFrame({"sex": ["f", "f", "f"], "zip": ["1", "2", None]})
    rel = local_suppression(df, SCHEMA2, k=2)
    assert rel.metadata["suppressed_total"] == 0
    assert rel.metadata["missing_before"] == {"sex": 0, "zip": 1}
    assert rel.data["zip"].tolist() == ["1", "2", None]


def test_exact_matching_fills_up_the_blank_group_from_surplus():
    df = pd.DataFrame({"sex": [None] + ["f"] * 5, "zip": [None] + ["1"] * 5})
    rel = local_suppression(df, SCHEMA2, k=3, wildcard=False)
    blank = (rel.data["sex"] == "*") & (rel.data["zip"] == "*")
    assert blank.sum() == 3 and rel.metadata["suppressed_total"] == 4
    assert rel.data.notna().all().all()  # strict releases write suppressed cells as "*"
    assert min(Counter(_rows(rel.data, ["sex", "zip"])).values()) >= 3


def test_exact_matching_fills_up_the_blank_group_with_a_whole_pattern():
    df = pd.DataFrame({"sex": [None, "f", "f", "f", "m", "m", "m"],
                       "zip": [None, "1", "1", "1", "2", "2", "2"]})  # fmt: skip
    rel = local_suppression(df, SCHEMA2, k=3, wildcard=False)
    sizes = Counter(_rows(rel.data, ["sex", "zip"]))
    assert sizes[(None, None)] == 4 and min(sizes.values()) >= 3


def test_numeric_key_stays_numeric_and_round_trips(tmp_path):
    df = pd.DataFrame({"age": [30, 30, 41, 52], "sex": ["f", "f", "m", "m"]})
    schema = {"age": {"role": "quasi", "kind": "numeric"}, "sex": "quasi"}
    rel = local_suppression(df, schema, k=2, columns=["age", "sex"])
    assert str(rel.data["age"].dtype) == "Int64"
    assert rel.data["age"].isna().sum() == 2
    back = Release.load(rel.save(tmp_path / "rel"))
    assert back.data["age"].isna().sum() == 2
    assert back.metadata["suppressed_cells"] == rel.metadata["suppressed_cells"]


def test_default_keys_are_the_categorical_quasi_identifiers():
    df = pd.DataFrame({"age": [30, 31, 41], "sex": ["f", "f", "m"], "x": [1, 2, 3]})
    schema = {"age": {"role": "quasi", "kind": "numeric"}, "sex": "quasi", "x": "insensitive"}
    rel = local_suppression(df, schema, k=2)
    assert rel.metadata["parameters"]["columns"] == ["sex"]
    assert rel.data["age"].tolist() == [30, 31, 41] and rel.data["x"].tolist() == [1, 2, 3]


# ---------------------------------------------------------------------- properties
@st.composite
def tables(draw):
    n = draw(st.integers(1, 24))
    p = draw(st.integers(1, 3))
    data = {}
    for j in range(p):
        d = draw(st.integers(1, 4))
        col = draw(st.lists(st.sampled_from("abcd"[:d]), min_size=n, max_size=n))
        holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if draw(st.booleans()):
            col = [None if h else v for v, h in zip(col, holes, strict=True)]
        if all(v is None for v in col):
            col[0] = "a"
        data[f"q{j}"] = col
    k = draw(st.integers(1, n))
    importance = draw(st.none() | st.permutations(list(range(1, p + 1))))
    return pd.DataFrame(data), k, importance


@settings(max_examples=150, deadline=None)
@given(tables(), st.booleans())
def test_output_is_k_anonymous_and_only_blanks_cells(case, wildcard):
    df, k, importance = case
    cols = list(df.columns)
    rel = local_suppression(
        df, dict.fromkeys(cols, "quasi"), k=k, importance=importance, wildcard=wildcard
    )
    out = _rows(rel.data, cols)
    before = _rows(df, cols)
    if wildcard:
        assert brute_wildcard_k(out) >= k
        assert rel.metadata["achieved_k"] == brute_wildcard_k(out)
    else:
        assert min(Counter(out).values()) >= k
        assert brute_candidates(before, out) >= k
    assert rel.metadata["min_candidates"] == brute_candidates(before, out)
    changed = {(i, cols[j]) for i, (r, s) in enumerate(zip(before, out, strict=True))
               for j in range(len(cols)) if r[j] != s[j]}  # fmt: skip
    assert all(out[i][cols.index(c)] is None for i, c in changed)
    reported = {(i, c) for c, rows in rel.metadata["suppressed_cells"].items() for i in rows}
    assert reported == changed
    assert rel.metadata["suppressed_total"] == len(changed)
    expected = {c: sum(1 for _, x in changed if x == c) for c in cols}
    assert rel.metadata["suppressed_by_column"] == expected


def _two_code_matrices(columns: int, high: int, most: int) -> st.SearchStrategy:
    """Two lists of rows of ``1..columns`` key codes ``-1..high`` (``-1`` missing), of the same
    width, each of ``1..most`` rows."""

    def matrix(p: int) -> st.SearchStrategy:
        row = st.lists(st.integers(-1, high), min_size=p, max_size=p)
        return st.lists(row, min_size=1, max_size=most)

    return st.integers(1, columns).flatmap(lambda p: st.tuples(matrix(p), matrix(p)))


@settings(max_examples=100, deadline=None)
@given(_two_code_matrices(3, 2, 15))
def test_wildcard_frequencies_match_brute_force(case):
    queries, patterns = case
    weights = np.arange(1, len(patterns) + 1)
    got = wildcard_frequencies(np.array(queries), np.array(patterns), weights)
    as_rows = [tuple(None if v < 0 else v for v in r) for r in patterns]
    for q, g in zip(queries, got, strict=True):
        qr = tuple(None if v < 0 else v for v in q)
        assert g == sum(w for r, w in zip(as_rows, weights, strict=True) if _match(qr, r))


@settings(max_examples=60, deadline=None)
@given(_two_code_matrices(8, 4, 60), st.lists(st.integers(1, 1000), min_size=60, max_size=60))
def test_wildcard_frequencies_equal_the_pairwise_grouping(case, weights):
    """The frequencies counted one missingness of the patterns at a time (matrix products of
    mixed-radix keys) equal those counted one pair of missingnesses at a time."""
    queries, patterns = np.array(case[0]), np.array(case[1])
    weights = np.array(weights[: len(patterns)])
    expected = _pairwise_frequencies(queries, patterns, weights)
    assert wildcard_frequencies(queries, patterns, weights).tolist() == expected.tolist()


def test_wildcard_frequencies_with_codes_too_wide_for_one_int64():
    big = np.array([[2**40, 2**40, 2**40], [2**40, 2**40, 0], [-1, 2**40, 2**40]])
    got = wildcard_frequencies(big, big)
    assert got.tolist() == [2, 1, 2]


def test_suppress_codes_on_a_matrix():
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [1, 2]])
    out, rounds = suppress_codes(codes, 2)
    assert out.tolist() == [[0, 0], [0, 0], [1, 1], [1, 1], [1, -1]] and rounds == 1


# ---------------------------------------------------------------------- pycanon
@pytest.mark.parametrize("seed", range(4))
def test_small_random_tables_agree_with_pycanon(seed):
    anonymity = pycanon_anonymity()
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"q{j}": rng.choice(list("abcde")[: 2 + j], size=60) for j in range(3)})
    cols = list(df.columns)
    schema = dict.fromkeys(cols, "quasi")
    for k in (2, 4):
        exact = local_suppression(df, schema, k=k, wildcard=False).data
        assert anonymity.k_anonymity(exact.fillna("*"), cols) >= k
        wild = local_suppression(df, schema, k=k).data
        counts = pycanon_wildcard_counts(wild, cols)
        assert counts.min() >= k
        assert counts.min() == brute_wildcard_k(_rows(wild, cols))


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_adult()


@pytest.mark.parametrize("k", [3, 5])
def test_adult_wildcard_release_checked_with_pycanon(adult, k):
    pycanon_anonymity()
    rel = local_suppression(adult, adult_schema(quasi=ADULT_KEYS), k=k, columns=ADULT_KEYS)
    counts = pycanon_wildcard_counts(rel.data, ADULT_KEYS)
    assert counts.min() >= k
    assert rel.metadata["achieved_k"] == counts.min()
    # docs/sdc.md: 1,045 / 1,824 cells, and a record can still be singled out
    assert rel.metadata["suppressed_total"] == {3: 1045, 5: 1824}[k]
    assert rel.metadata["min_candidates"] == 1 and rel.metadata["models"] == []
    # Independent count on the distinct published patterns, by broadcasting.
    pats = rel.data[ADULT_KEYS].astype(str).where(rel.data[ADULT_KEYS].notna(), None)
    uniq, weight = np.unique(pats.fillna("\0").to_numpy().astype(str), axis=0, return_counts=True)
    miss = uniq == "\0"
    agree = (uniq[:, None, :] == uniq[None, :, :]) | miss[:, None, :] | miss[None, :, :]
    assert (agree.all(axis=2) @ weight).min() >= k
    # A suppressed cell is reported once, where the output is missing and the input is not.
    total = sum(len(v) for v in rel.metadata["suppressed_cells"].values())
    assert total == rel.metadata["suppressed_total"] == int(rel.data[ADULT_KEYS].isna().sum().sum())


@pytest.mark.parametrize("k", [3, 5])
def test_adult_exact_release_is_k_anonymous_for_pycanon(adult, k):
    anonymity = pycanon_anonymity()
    rel = local_suppression(
        adult, adult_schema(quasi=ADULT_KEYS), k=k, columns=ADULT_KEYS, wildcard=False
    )
    published = rel.data[ADULT_KEYS]
    assert published.notna().all().all()  # suppressed cells are published as "*"
    assert anonymity.k_anonymity(published, ADULT_KEYS) >= k
    assert rel.metadata["min_candidates"] >= k
    # docs/sdc.md: 1,077 / 1,886 cells, min_candidates 3 / 12
    assert (rel.metadata["suppressed_total"], rel.metadata["min_candidates"]) == {
        3: (1077, 3),
        5: (1886, 12),
    }[k]
    # the keys are the schema's quasi-identifiers: k-anonymity is claimed and re-checks
    assert rel.metadata["models"] == [{"k_anonymity": {"k": k}}]
    assert all(v.holds for v in check_release(rel))
    assert rel.metadata["suppressed_total"] < 0.1 * len(adult) * len(ADULT_KEYS)


def test_claims_k_anonymity_only_when_strict_keys_cover_the_quasi_identifiers():
    df = pd.DataFrame({"sex": list("ffmmm"), "zip": list("11223"), "age": [1, 2, 3, 4, 5]})
    numeric_age = {**SCHEMA2, "age": {"role": "quasi", "kind": "numeric"}}
    strict = local_suppression(df, SCHEMA2 | {"age": "insensitive"}, k=2, wildcard=False)
    assert strict.metadata["models"] == [{"k_anonymity": {"k": 2}}]
    assert min(Counter(map(tuple, strict.data[["sex", "zip"]].to_numpy())).values()) >= 2
    assert all(v.holds for v in check_release(strict))
    # age is a quasi-identifier the default keys (categorical ones) leave alone: no claim
    assert local_suppression(df, numeric_age, k=2, wildcard=False).metadata["models"] == []


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
def test_bad_k(k):
    with pytest.raises(InputError, match="k"):
        local_suppression(pd.DataFrame({"sex": ["f"], "zip": ["1"]}), SCHEMA2, k=k)


def test_k_above_n_is_infeasible():
    with pytest.raises(InfeasibleError, match="exceeds"):
        local_suppression(pd.DataFrame({"sex": ["f"], "zip": ["1"]}), SCHEMA2, k=2)


@pytest.mark.parametrize(
    ("importance", "match"),
    [
        ([1], "1 value"),
        ([1, 3], "1..2"),
        ({"sex": 1}, "missing: zip"),
        ({"sex": 1, "zip": 2, "age": 1}, "unknown: age"),
    ],
)
def test_bad_importance(importance, match):
    df = pd.DataFrame({"sex": ["f", "m"], "zip": ["1", "2"]})
    with pytest.raises(InputError, match=match):
        local_suppression(df, SCHEMA2, k=1, importance=importance)


def test_bad_columns_and_flags():
    df = pd.DataFrame({"sex": ["f", "m"], "zip": ["1", "2"], "id": [1, 2]})
    schema = {"sex": "quasi", "zip": "quasi", "id": "identifier"}
    with pytest.raises(InputError, match="'nope'"):
        local_suppression(df, schema, k=1, columns=["nope"])
    with pytest.raises(InputError, match="'id'"):
        local_suppression(df, schema, k=1, columns=["id"])
    with pytest.raises(InputError, match="wildcard"):
        local_suppression(df, schema, k=1, wildcard="yes")
    with pytest.raises(InputError, match="only missing"):
        local_suppression(df.assign(zip=[None, None]), schema, k=1)
    with pytest.raises(InputError, match="categorical or ordinal quasi"):
        local_suppression(df[["id"]].assign(x=1.0), {"id": "identifier", "x": {
            "role": "quasi", "kind": "numeric"}}, k=1)  # fmt: skip


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.suppression")
    assert doctest.testmod(module).failed == 0


def test_missing_drop_and_error_on_a_key_apply_before_the_wildcards():
    """ANES 2008 (``stevedata``'s anes_partytherms, 2,322 respondents): a key whose missing
    values the schema leaves out (``missing: drop``, education, 14 missing) loses those rows
    before anything is matched, ``missing: error`` refuses them naming the column, and a key
    with ``missing: value`` (race, 24 missing) keeps sdcMicro's wildcards. Before, every missing
    key was a wildcard: the 14 rows were published although counted as left out."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "educat", "race4", "pid7"]]
    anes = anes.reset_index(drop=True)
    schema = {
        "stateabb": {"role": "quasi"},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
        "race4": {"role": "quasi", "kind": "categorical", "missing": "value"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
    }
    release = local_suppression(anes, schema, k=5)
    kept = anes["educat"].notna()
    assert len(release.data) == int(kept.sum()) == len(anes) - 14
    assert release.metadata["missing_before"]["educat"] == 0
    assert release.metadata["missing_before"]["race4"] == int(anes.loc[kept, "race4"].isna().sum())
    refused = {**schema, "educat": {**schema["educat"], "missing": "error"}}
    with pytest.raises(InputError, match="educat"):
        local_suppression(anes, refused, k=5)
