"""Hand-computed examples and bad-input tests for microanon.measures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from microanon.core import Hierarchy, HierarchyError, InputError
from microanon.measures import (
    ClassStats,
    LossMetric,
    NCPScore,
    RiskProfile,
    Uniques,
    aecs,
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    precision,
    reidentification_risk,
    sample_uniques,
)

# --------------------------------------------------------------------------------------- fixtures
# zip (height 3, 6 leaves, all at depth 3):
#   * ── 130** ── 1305* ── 13053, 13058
#     │        └─ 1306* ── 13067, 13068
#     └─ 148** ── 1485* ── 14850, 14853
# age (height 3, 6 leaves at depths 3 and 2 — a non-uniform tree):
#   * ── <40 ── 2* ── 25, 28
#     │      └─ 3* ── 31, 35
#     └─ >=40 ── 45, 52
# sex (height 1): * ── M, F
ZIP = Hierarchy.from_nested(
    {
        "*": {
            "130**": {"1305*": [13053, 13058], "1306*": [13067, 13068]},
            "148**": {"1485*": [14850, 14853]},
        }
    },
    name="zip",
)
AGE = Hierarchy.from_nested(
    {"*": {"<40": {"2*": [25, 28], "3*": [31, 35]}, ">=40": [45, 52]}}, name="age"
)
SEX = Hierarchy.from_nested({"*": ["M", "F"]}, name="sex")
H = {"zip": ZIP, "age": AGE, "sex": SEX}
Q = ["zip", "age", "sex"]


@pytest.fixture
def table() -> pd.DataFrame:
    # Classes on (zip, age, sex): {a, b}, {c, d}, {e}, {f} -> sizes 2, 2, 1, 1.
    return pd.DataFrame(
        {
            "zip": ["1305*", "1305*", "130**", "130**", 14850, "*"],
            "age": ["2*", "2*", "<40", "<40", ">=40", ">=40"],
            "sex": ["M", "M", "F", "F", "*", "*"],
            "disease": ["flu", "cold", "flu", "hiv", "flu", "cold"],
        },
        index=list("abcdef"),
    )


# --------------------------------------------------------------------------------------- classes
def test_equivalence_classes_example(table):
    st = equivalence_classes(table, Q)
    assert isinstance(st, ClassStats)
    assert st.count == 4 and st.rows == 6
    assert st.sizes.tolist() == [2, 2, 1, 1]  # classes in order of their first row
    assert st.average_size == pytest.approx(6 / 4)
    assert (st.min_size, st.max_size) == (1, 2)
    assert st.histogram().to_dict() == {1: 2, 2: 2}
    assert st.histogram().index.name == "size"
    d = st.to_dict()
    assert d == {
        "count": 4,
        "rows": 6,
        "average_size": 1.5,
        "min_size": 1,
        "max_size": 2,
        "histogram": {1: 2, 2: 2},
    }
    assert not st.sizes.flags.writeable
    # One column, given as a plain string: sex has classes M (2), F (2), * (2).
    assert equivalence_classes(table, "sex").sizes.tolist() == [2, 2, 2]


def test_discernibility_example(table):
    # 2² + 2² + 1² + 1² = 10
    assert discernibility(table, Q) == 10
    # 2 suppressed rows: N = 6 + 2 = 8, 10 + 2·8 = 26
    assert discernibility(table, Q, suppressed=2) == 26
    # sex alone: classes M, F, * of 2 rows each -> 3 · 2² = 12
    assert discernibility(table, ["sex"]) == 12


def test_aecs_example(table):
    # (6 rows / 4 classes) / k
    assert aecs(table, Q, 2) == pytest.approx(0.75)
    assert aecs(table, Q, 1) == pytest.approx(1.5)
    assert aecs(table, ["sex"], 2.0) == pytest.approx(1.0)  # (6 / 3) / 2


# --------------------------------------------------------------------------------------- risk
def test_reidentification_risk_example(table):
    r = reidentification_risk(table, Q, threshold=0.5)
    assert isinstance(r, RiskProfile)
    # 1/|class| per record: a, b, c, d in classes of 2, e and f alone
    assert r.record_risk.tolist() == [0.5, 0.5, 0.5, 0.5, 1.0, 1.0]
    assert list(r.record_risk.index) == list("abcdef")
    assert r.max == 1.0
    assert r.average == pytest.approx(4 / 6)  # classes / rows = mean of the record risks
    assert r.records_above == 2  # only risk 1 is > 0.5 (0.5 is not strictly above)
    assert r.share_above == pytest.approx(2 / 6)
    assert r.threshold == 0.5
    assert r.to_dict()["records_above"] == 2
    # default threshold 0.2: every record (classes smaller than 5)
    r2 = reidentification_risk(table, Q)
    assert (r2.records_above, r2.share_above, r2.threshold) == (6, 1.0, 0.2)
    # threshold 1: nobody is strictly above
    assert reidentification_risk(table, Q, threshold=1).records_above == 0


def test_risk_threshold_boundary():
    # 5 identical rows: risk exactly 0.2 is not above the default threshold 0.2
    df = pd.DataFrame({"q": ["x"] * 5 + ["y"] * 4})
    r = reidentification_risk(df, ["q"])
    assert r.records_above == 4  # the class of 4 has risk 0.25
    assert r.max == 0.25


def test_sample_uniques_example(table):
    u = sample_uniques(table, Q)
    assert isinstance(u, Uniques)
    assert u == (2, pytest.approx(2 / 6))  # e and f
    count, share = sample_uniques(table, ["sex"])
    assert (count, share) == (0, 0.0)


# --------------------------------------------------------------------------------------- utility
def test_loss_metric_example(table):
    lm = loss_metric(table, H, Q)
    assert isinstance(lm, LossMetric)
    # zip, d = 6: 1305* (2 leaves) -> 1/5 twice; 130** (4) -> 3/5 twice; 14850 -> 0; * -> 1
    #   (0.2 + 0.2 + 0.6 + 0.6 + 0 + 1) / 6 = 2.6 / 6 = 13/30
    # age, d = 6: 2* -> 1/5 twice; <40 -> 3/5 twice; >=40 (2 leaves) -> 1/5 twice: 2.0 / 6 = 1/3
    # sex, d = 2: M, M, F, F -> 0; *, * -> 1: 2 / 6 = 1/3
    assert lm.per_attribute == pytest.approx({"zip": 13 / 30, "age": 1 / 3, "sex": 1 / 3})
    assert lm.total == pytest.approx(11 / 30)  # (13 + 10 + 10) / 90
    assert float(lm) == lm.total and not lm.weighted
    # 2 suppressed rows count 1 in every cell: zip (2.6 + 2)/8, age (2 + 2)/8, sex (2 + 2)/8
    lm2 = loss_metric(table, H, Q, suppressed=2)
    assert lm2.per_attribute == pytest.approx({"zip": 0.575, "age": 0.5, "sex": 0.5})
    assert lm2.total == pytest.approx(1.575 / 3)
    # quasi defaults to the keys of the hierarchies
    assert loss_metric(table, H).total == pytest.approx(lm.total)
    assert lm.to_dict()["per_attribute"]["sex"] == pytest.approx(1 / 3)


def test_weighted_loss_metric_example():
    # * ── A ── a1 (w 1), a2 (w 3)
    #   └─ B ── b1 (w 6)          total weight 10, lightest leaf 1 -> denominator 9
    h = Hierarchy.from_paths(
        [["*", "A", "a1"], ["*", "A", "a2"], ["*", "B", "b1"]], weights=[1, 3, 6], name="c"
    )
    df = pd.DataFrame({"c": ["A", "a1", "B", "*"]})
    # weighted: A -> (4 - 1)/9 = 1/3, a1 -> 0, B -> (6 - 6)/9 = 0, * -> 1: mean (1/3 + 1) / 4 = 1/3
    assert loss_metric(df, {"c": h}, weighted=True).total == pytest.approx(1 / 3)
    # unweighted, d = 3: A -> 1/2, a1 -> 0, B (one leaf) -> 0, * -> 1: mean 1.5 / 4 = 3/8
    assert loss_metric(df, {"c": h}).total == pytest.approx(3 / 8)
    # with unit weights the weighted LM is the plain LM
    h1 = h.with_weights([1, 1, 1])
    assert loss_metric(df, {"c": h1}, weighted=True).total == pytest.approx(3 / 8)


def test_ncp_example(table):
    s = ncp(table, H, Q)
    assert isinstance(s, NCPScore)
    # zip: 1305* -> 2/6 twice, 130** -> 4/6 twice, 14850 -> 0, * -> 6/6: (4/6 + 8/6 + 1)/6 = 1/2
    # age: 2* -> 2/6 twice, <40 -> 4/6 twice, >=40 -> 2/6 twice: (16/6)/6 = 4/9
    # sex: M, F -> 0 (leaves), * -> 2/2 twice: 2/6 = 1/3
    assert s.per_attribute == pytest.approx({"zip": 1 / 2, "age": 4 / 9, "sex": 1 / 3})
    assert s.gcp == pytest.approx((1 / 2 + 4 / 9 + 1 / 3) / 3)  # = 23/54
    assert s.weights == pytest.approx({"zip": 1 / 3, "age": 1 / 3, "sex": 1 / 3})
    # weights 2:1:1 -> (2 · 1/2 + 4/9 + 1/3) / 4 = 4/9
    s2 = ncp(table, H, Q, weights={"zip": 2, "age": 1, "sex": 1})
    assert s2.gcp == pytest.approx(4 / 9)
    assert ncp(table, H, Q, weights=[2, 1, 1]).gcp == pytest.approx(4 / 9)


def test_ncp_numeric_ranges_example(table):
    # age leaves 25, 28, 31, 35, 45, 52: span 27.
    # 2* -> (28-25)/27 twice, <40 -> (35-25)/27 twice, >=40 -> (52-45)/27 twice:
    #   (6 + 20 + 14)/27 / 6 = 40/162 = 20/81
    s = ncp(table, H, Q, numeric_ranges=["age"])
    assert s.per_attribute["age"] == pytest.approx(20 / 81)
    assert s.per_attribute["zip"] == pytest.approx(1 / 2)  # still the leaf-count rule
    # numeric_ranges=True also measures zip by range (its leaves are numbers), not sex:
    # zip span 14853 - 13053 = 1800: 1305* -> 5/1800 twice, 130** -> 15/1800 twice, 14850 -> 0,
    #   * -> 1: (40/1800 + 1)/6 = 23/135
    s_all = ncp(table, H, Q, numeric_ranges=True)
    assert s_all.per_attribute == pytest.approx({"zip": 23 / 135, "age": 20 / 81, "sex": 1 / 3})
    with pytest.raises(HierarchyError, match="sex"):
        ncp(table, H, Q, numeric_ranges=["sex"])


def test_ncp_one_leaf_nodes_cost_nothing():
    # A chain node covering a single leaf reveals the value: NCP 0 (Xu et al.: card(u) = 1)
    h = Hierarchy.from_paths([["*", "X", "x"], ["*", "Y", "y1"], ["*", "Y", "y2"]], name="c")
    df = pd.DataFrame({"c": ["X", "Y", "x", "*"]})
    # X -> 0, Y -> 2/3, x -> 0, * -> 1: (2/3 + 1)/4 = 5/12
    assert ncp(df, {"c": h}).gcp == pytest.approx(5 / 12)


def test_precision_example(table):
    # zip (height 3): 1305* level 1 twice, 130** level 2 twice, 14850 level 0, * level 3:
    #   (2 + 4 + 0 + 3)/3 = 3
    # age (height 3): 2* level 1 twice, <40 level 2 twice, >=40 level 3 - 1 = 2 twice: 10/3
    # sex (height 1): * twice: 2
    # Prec = 1 - (3 + 10/3 + 2) / (6 · 3) = 1 - 25/54
    assert precision(table, H, Q) == pytest.approx(29 / 54)
    # 2 suppressed rows at full height: 1 - (25/3 + 2·3) / (8 · 3) = 1 - 43/72
    assert precision(table, H, Q, suppressed=2) == pytest.approx(29 / 72)


def test_height_zero_and_one_leaf_domains():
    single = Hierarchy.from_paths([["only"]], name="c")  # height 0, the root is the only leaf
    chain = Hierarchy.from_paths([["*", "v"]], name="d")  # one leaf under a root
    df = pd.DataFrame({"c": ["only", "only"], "d": ["v", "*"]})
    hs = {"c": single, "d": chain}
    assert precision(df, hs, ["c"]) == 1.0
    # d: v level 0, * level 1 of height 1 -> Prec over (c, d) = 1 - 1/(2·2)
    assert precision(df, hs) == pytest.approx(0.75)
    # one-leaf domains lose nothing under LM and NCP, even when suppressed
    assert loss_metric(df, hs, suppressed=3).total == 0.0
    assert ncp(df, hs).gcp == 0.0


def test_numeric_and_string_labels_match():
    # int data, float data and string labels share their key: 25 == 25.0 == "25"
    h = Hierarchy.from_nested({"*": {"2*": ["25", "28"]}}, name="age")
    for col in ([25, 28], [25.0, 28.0], ["25", "28"]):
        df = pd.DataFrame({"age": col})
        assert loss_metric(df, {"age": h}).total == 0.0


def test_ungeneralized_and_suppressed_extremes(table):
    orig = pd.DataFrame({"zip": [13053, 13058, 14850], "age": [25, 45, 52], "sex": list("MFM")})
    assert loss_metric(orig, H, Q).total == 0.0
    assert precision(orig, H, Q) == 1.0
    assert ncp(orig, H, Q, numeric_ranges=True).gcp == 0.0
    star = pd.DataFrame({c: ["*"] * 3 for c in Q})
    assert loss_metric(star, H, Q).total == 1.0
    assert loss_metric(star, H, Q, weighted=True).total == 1.0
    assert precision(star, H, Q) == 0.0
    assert ncp(star, H, Q).gcp == pytest.approx(1.0)
    assert ncp(star, H, Q, numeric_ranges=True).gcp == pytest.approx(1.0)
    # the root's own label counts like "*"
    root = pd.DataFrame({"sex": ["*", "*"]})
    assert loss_metric(root, {"sex": SEX}).total == 1.0


# --------------------------------------------------------------------------------------- bad input
ALL_QI = [
    lambda d, q: equivalence_classes(d, q),
    lambda d, q: discernibility(d, q),
    lambda d, q: aecs(d, q, 2),
    lambda d, q: reidentification_risk(d, q),
    lambda d, q: sample_uniques(d, q),
    lambda d, q: loss_metric(d, H, q),
    lambda d, q: ncp(d, H, q),
    lambda d, q: precision(d, H, q),
]


@pytest.mark.parametrize("fn", ALL_QI)
def test_not_a_dataframe(fn, table):
    with pytest.raises(InputError, match="DataFrame"):
        fn(table.to_dict("list"), Q)
    with pytest.raises(InputError, match="DataFrame"):
        fn(table.to_numpy(), Q)


@pytest.mark.parametrize("fn", ALL_QI)
def test_empty_table(fn, table):
    with pytest.raises(InputError, match="empty"):
        fn(table.iloc[:0], Q)


@pytest.mark.parametrize("fn", ALL_QI)
def test_absent_column_lists_available(fn, table):
    with pytest.raises(InputError, match=r"'zip' not found; available: zipcode, age, sex, disease"):
        fn(table.rename(columns={"zip": "zipcode"}), Q)


@pytest.mark.parametrize("fn", ALL_QI)
def test_duplicate_column_names(fn, table):
    dup = pd.concat([table, table[["sex"]]], axis=1)
    with pytest.raises(InputError, match="duplicate column names: sex"):
        fn(dup, Q)


@pytest.mark.parametrize("fn", ALL_QI)
@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_missing_values_in_a_qi(fn, table, missing):
    t = table.astype({"age": object})
    t.loc[["a", "c"], "age"] = missing
    with pytest.raises(InputError, match=r"'age' has 2 missing value"):
        fn(t, Q)


@pytest.mark.parametrize("fn", ALL_QI)
def test_bad_quasi_list(fn, table):
    with pytest.raises(InputError, match="empty"):
        fn(table, [])
    with pytest.raises(InputError, match="more than once: 'sex'"):
        fn(table, ["sex", "zip", "sex"])
    with pytest.raises(InputError, match="list of column names"):
        fn(table, 3)


def test_missing_values_in_a_non_qi_column_are_fine(table):
    t = table.copy()
    t.loc["a", "disease"] = None
    assert equivalence_classes(t, Q).count == 4


@pytest.mark.parametrize("threshold", [0, -0.1, 1.5, math.nan, math.inf, "0.2", True, None])
def test_bad_threshold(table, threshold):
    with pytest.raises(InputError, match="threshold"):
        reidentification_risk(table, Q, threshold=threshold)


@pytest.mark.parametrize("k", [0, -3, 0.5, 2.5, True, "2", None, math.inf])
def test_bad_k(table, k):
    with pytest.raises(InputError, match="'k'"):
        aecs(table, Q, k)


@pytest.mark.parametrize("suppressed", [-1, 1.5, "2", True, None])
@pytest.mark.parametrize(
    "fn",
    [
        lambda d, s: discernibility(d, Q, suppressed=s),
        lambda d, s: loss_metric(d, H, Q, suppressed=s),
        lambda d, s: ncp(d, H, Q, suppressed=s),
        lambda d, s: precision(d, H, Q, suppressed=s),
    ],
)
def test_bad_suppressed(table, fn, suppressed):
    with pytest.raises(InputError, match="suppressed"):
        fn(table, suppressed)


@pytest.mark.parametrize("fn", [loss_metric, ncp, precision])
def test_qi_without_hierarchy(table, fn):
    with pytest.raises(InputError, match=r"'disease' have no hierarchy"):
        fn(table, H, ["zip", "disease"])
    with pytest.raises(InputError, match="mapping"):
        fn(table, [ZIP, AGE], ["zip", "age"])
    with pytest.raises(InputError, match="not a Hierarchy"):
        fn(table, {"zip": {"*": ["a"]}}, ["zip"])
    with pytest.raises(InputError, match="empty"):
        fn(table, {})
    # quasi=None uses every hierarchy, so a hierarchy for a column the table lacks is an error
    with pytest.raises(InputError, match="'income'"):
        fn(table, {**H, "income": SEX})


@pytest.mark.parametrize("fn", [loss_metric, ncp, precision])
def test_label_not_in_hierarchy(table, fn):
    t = table.copy()
    t.loc["b", "age"] = "9*"
    with pytest.raises(HierarchyError, match=r"column 'age'.*'9\*'"):
        fn(t, H, Q)


@pytest.mark.parametrize(
    "weights, match",
    [
        ({"zip": 1, "age": 1}, "missing 'sex'"),
        ({"zip": 1, "age": 1, "sex": 1, "x": 1}, "not quasi-identifiers: 'x'"),
        ([1, 1], "has 2 entries"),
        ({"zip": -1, "age": 1, "sex": 1}, "column 'zip'"),
        ({"zip": math.nan, "age": 1, "sex": 1}, "column 'zip'"),
        ([0, 0, 0], "all zero"),
        ("abc", "mapping"),
    ],
)
def test_bad_ncp_weights(table, weights, match):
    with pytest.raises(InputError, match=match):
        ncp(table, H, Q, weights=weights)


def test_bad_numeric_ranges(table):
    with pytest.raises(InputError, match="'disease'"):
        ncp(table, H, Q, numeric_ranges=["disease"])
