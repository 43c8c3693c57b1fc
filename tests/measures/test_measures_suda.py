"""SUDA2: minimal sample uniques, SUDA and DIS-SUDA scores, contributions (sdcMicro's suda2).

Anchors: sdcMicro 5.8.1's ``suda2`` on ``tests/data/survey_synthetic.csv`` (see
``test_measures_survey_risk.py``); worked examples from the definitions; a brute-force MSU
search on random small tables.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.measures import minimal_uniques, suda2
from microanon.measures import suda as suda_module
from microanon.measures.suda import AUTO_WORK, auto_size

DATA = Path(__file__).resolve().parents[1] / "data"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]

# The example table of the SDC practice guide (Benschop, Machingauta & Welch), also in
# sdcMicro's tests: four keys, so an MSU of size k scores (4 - k)!: 6, 2, 1, 1.
GUIDE = pd.DataFrame(
    {
        "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
        "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male"]
        + ["Female", "Female"],
        "Education": [
            "Secondary incomplete",
            "Secondary incomplete",
            "Primary incomplete",
            "Secondary complete",
            "Secondary complete",
            "Secondary complete",
            "Primary complete",
            "Post-secondary",
            "Secondary incomplete",
            "Secondary incomplete",
        ],
        "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed"]
        + ["Non-LF", "Unemployed", "Non-LF", "Non-LF"],
    }
)


def test_anchor_agrees_with_sdcmicro() -> None:
    survey = pd.read_csv(DATA / "survey_synthetic.csv")
    meta = json.loads((DATA / "sdcmicro_survey.json").read_text())
    rec = pd.read_csv(DATA / "sdcmicro_survey_records.csv")
    assert meta["calls"]["suda2"].startswith("suda2(df, variables = c(")
    s = suda2(survey, KEYS, missing="ignore")
    np.testing.assert_array_equal(s.score, rec["suda_score"])
    np.testing.assert_allclose(s.dis_score, rec["dis_suda_score"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(
        s.contributions, rec[[f"contribution_{k}" for k in KEYS]], rtol=1e-12, atol=0
    )
    for k in KEYS:
        assert s.attribute_contributions[k] == pytest.approx(
            meta["suda2_attribute_contributions"][k], rel=1e-12
        )
    assert (s.score > 0).sum() == 1262 and s.score.sum() == 11453
    assert s.msu_counts.sum().tolist() == [0, 2, 121, 852, 1283, 569, 62]


def test_practice_guide_example() -> None:
    s = suda2(GUIDE, list(GUIDE.columns))
    # record 3: Primary incomplete is unique -> 6; record 5: Rural -> 6, and {Gender, Labor},
    # {Education, Labor}, {Gender, Education} -> 3 × 2; record 7: Primary complete -> 6;
    # record 8: Post-secondary -> 6, {Gender, Labor} and {Residence, Labor} -> 2 × 2
    np.testing.assert_array_equal(s.score, [0, 0, 6, 0, 12, 0, 6, 10, 0, 0])
    msus = minimal_uniques(GUIDE, list(GUIDE.columns))
    assert list(msus.loc[msus["row"] == 4, "keys"]) == [
        ("Residence",),
        ("Gender", "Education"),
        ("Gender", "Labor"),
        ("Education", "Labor"),
    ]
    np.testing.assert_array_equal(s.msu_counts.loc[4], [1, 3, 0, 0])
    # record 5's contributions: Residence 6/12, Gender 4/12, Education 4/12, Labor 4/12
    np.testing.assert_allclose(s.contributions.loc[4], [0.5, 1 / 3, 1 / 3, 1 / 3])


def test_book_example_and_contributions() -> None:
    # sdcMicro's tests: a book example (scores of the last four records 4, 2, 6, 8) ...
    tab = pd.DataFrame(
        {
            "age": ["20s"] * 7 + ["60s"],
            "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
            "income": ["50k+", "50k+"] + ["50k-"] * 6,
            "education": ["highschool"] * 4
            + ["university", "highschool", "middleschool", "university"],
        }
    )
    np.testing.assert_array_equal(suda2(tab, list(tab.columns)).score[4:], [4, 2, 6, 8])
    # ... and attribute contributions 50, 37.5, 37.5 whatever the column order
    d = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    for cols in (["a", "b", "c"], ["a", "c", "b"], ["c", "a", "b"]):
        contrib = suda2(d, cols).attribute_contributions
        assert contrib.to_dict() == {"a": 50.0, "b": 37.5, "c": 37.5}


def test_dis_suda_formula() -> None:
    s = suda2(GUIDE, list(GUIDE.columns), dis_fraction=0.1)
    # DIS-SUDA = 1 / (1 + D (1 - f) / f / (s^q Σ s_r^-q)), D = records in combinations that occur
    # exactly twice (here 6: records 1 and 2, 4 and 6, 9 and 10), q = 1 + (8 - 4) / 20;
    # single precision as sdcMicro, so to 1e-6
    q = 1.2
    scores = s.score[s.score > 0].to_numpy()
    total = np.sum(scores**-q)
    expected = 1 / (1 + 6 * 0.9 / 0.1 / (scores**q * total))
    np.testing.assert_allclose(s.dis_score[s.score > 0], expected, rtol=1e-6)
    assert (s.dis_score[s.score == 0] == 0).all()


def test_alternative_scores_and_max_size() -> None:
    cols = list(GUIDE.columns)
    s = suda2(GUIDE, cols, original_scores=False)
    # (2^(m-k) - 1) k! (m-k)! / m!, m = 4: k = 1 -> 7·6/24, k = 2 -> 3·4/24
    w1, w2 = 7 * 6 / 24, 3 * 4 / 24
    np.testing.assert_allclose(s.score[[2, 4, 7]], [w1, w1 + 3 * w2, w1 + 2 * w2])
    t = suda2(GUIDE, cols, max_size=1)
    np.testing.assert_array_equal(t.score, [0, 0, 6, 0, 6, 0, 6, 6, 0, 0])
    assert list(t.msu_counts.columns) == [1]


def test_missing_values_are_never_in_an_msu() -> None:
    d = pd.DataFrame({"a": [1, 1, 2, None], "b": [1, 2, 2, 2], "c": [1, 1, 1, 1]})
    msus = minimal_uniques(d, ["a", "b", "c"], missing="ignore")
    # row 3: a is missing; b = 2 is shared with row 2 whose a differs: {b} is not unique and
    # {a, b} cannot be used, so row 3 has no MSU; row 2 is unique on {a} (a = 2)
    assert set(msus["row"]) == {0, 1, 2}
    assert list(msus.loc[msus["row"] == 2, "keys"]) == [("a",)]
    with pytest.raises(InputError, match=r"key column 'a' has 1 missing value.*'ignore'"):
        suda2(d, ["a", "b", "c"])


def test_bad_input() -> None:
    with pytest.raises(InputError, match="'max_size' must be between 1 and the 4 key"):
        suda2(GUIDE, list(GUIDE.columns), max_size=5)
    with pytest.raises(InputError, match=r"'dis_fraction' must be in \(0, 1\)"):
        suda2(GUIDE, list(GUIDE.columns), dis_fraction=1)
    with pytest.raises(InputError, match="'original_scores' must be True or False"):
        suda2(GUIDE, list(GUIDE.columns), original_scores="yes")
    with pytest.raises(InputError, match="not found"):
        minimal_uniques(GUIDE, ["nope"])
    wide = pd.DataFrame(np.zeros((3, 30), dtype=int), columns=[f"k{i}" for i in range(30)])
    assert (suda2(wide, list(wide.columns)).score == 0).all()  # no unique record: no search
    wide.iloc[0, 0] = 1
    with pytest.raises(InputError, match="1,073,741,824 key subsets.*searches here is 7 "):
        suda2(wide, list(wide.columns))
    assert minimal_uniques(wide, list(wide.columns), max_size=2)["keys"].tolist() == [("k0",)]


def _subsets(n_keys: int, size: int) -> int:
    return sum(math.comb(n_keys, k) for k in range(size + 1))


@given(st.integers(1, 40), st.integers(0, 10**6), st.integers(0, 10**6))
def test_auto_size_is_the_largest_within_the_limits(n_keys: int, uniques: int, more: int) -> None:
    """Every size up to it searches at most 2^22 key subsets, one bit per subset and unique
    within 1 GiB, and subsets times distinct combinations within AUTO_WORK; one more does not."""
    distinct = uniques + more

    def fits(size: int) -> bool:
        n = _subsets(n_keys, size)
        return n <= 1 << 22 and n * (uniques // 8 + 1) <= 1 << 30 and n * distinct <= AUTO_WORK

    size = auto_size(n_keys, uniques, distinct)
    assert 0 <= size <= n_keys
    assert size == 0 or fits(size)
    assert size == n_keys or not fits(size + 1)


def test_auto_searches_every_key_when_short_else_the_largest_size_that_is() -> None:
    """``max_size="auto"``: every key on a small table (sdcMicro's default, the same scores);
    on a real survey file with more work than the budget, the largest size within it, which
    the result says, with the scores of that size."""
    cols = list(GUIDE.columns)
    pd.testing.assert_series_equal(
        suda2(GUIDE, cols, max_size="auto").score, suda2(GUIDE, cols).score
    )
    from real_surveys import survey

    data = survey("gss_abortion")
    keys = ["year", "age", "sex", "race", "educ", "partyid", "relactiv"]
    keys = [k for k in keys if k in data.columns]
    counts = data[keys].value_counts(dropna=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suda_module, "AUTO_WORK", _subsets(len(keys), 2) * len(counts))
        got = suda2(data, keys, max_size="auto", missing="ignore")
    assert got.max_size == 2 < len(keys)
    pd.testing.assert_series_equal(got.score, suda2(data, keys, max_size=2, missing="ignore").score)


# ------------------------------------------------------------------ brute force on small tables
def brute_msus(d: pd.DataFrame, keys: list[str], max_size: int) -> set[tuple[int, tuple]]:
    """Every (row, MSU) by checking every subset of every row against every other row."""
    rows = d[keys].to_numpy(dtype=object)

    def unique(i: int, subset: tuple[int, ...]) -> bool:
        if any(pd.isna(rows[i][a]) for a in subset):
            return False
        return not any(
            all(not pd.isna(rows[j][a]) and rows[j][a] == rows[i][a] for a in subset)
            for j in range(len(rows))
            if j != i
        )

    out = set()
    for i in range(len(rows)):
        for size in range(1, max_size + 1):
            for subset in itertools.combinations(range(len(keys)), size):
                proper = (sub for k in range(1, size) for sub in itertools.combinations(subset, k))
                if unique(i, subset) and not any(unique(i, sub) for sub in proper):
                    out.add((i, tuple(keys[a] for a in subset)))
    return out


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, int]:
    n = draw(st.integers(1, 25))
    n_keys = draw(st.integers(1, 5))
    values = st.one_of(st.integers(0, 2), st.none()) if draw(st.booleans()) else st.integers(0, 3)
    d = pd.DataFrame(
        {f"k{j}": draw(st.lists(values, min_size=n, max_size=n)) for j in range(n_keys)}
    )
    for c in d.columns:
        if d[c].isna().all():
            d.loc[0, c] = 0
    return d, draw(st.integers(1, n_keys))


@settings(max_examples=200, deadline=None)
@given(tables())
def test_msus_are_unique_and_minimal(case: tuple[pd.DataFrame, int]) -> None:
    d, max_size = case
    keys = list(d.columns)
    msus = minimal_uniques(d, keys, max_size=max_size, missing="ignore")
    found = {(int(r), k) for r, k in zip(msus["row"], msus["keys"], strict=True)}
    assert found == brute_msus(d, keys, max_size)
    s = suda2(d, keys, max_size=max_size, missing="ignore")
    m = len(keys)
    expected = np.zeros(len(d))
    for r, k in found:
        expected[r] += math.factorial(m - len(k))
    np.testing.assert_array_equal(s.score, expected)
    assert ((s.dis_score >= 0) & (s.dis_score <= 1)).all()
    assert ((s.dis_score > 0) == (s.score > 0)).all()
