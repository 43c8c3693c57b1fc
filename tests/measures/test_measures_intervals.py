"""Loss metric and NCP of published value ranges ``"[lo, hi]"`` (as Mondrian publishes).

A range of a numeric quasi-identifier covers the domain values ``x`` with ``lo <= x <= hi``; the
domain is the column's hierarchy leaves or, without a hierarchy, ``domains={column: values}``.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy, HierarchyError, InputError
from microanon.measures import loss_metric, ncp, precision
from microanon.methods.generalize.mondrian import mondrian

# age: 6 leaves 25 28 31 35 45 52 (range 27) under "2*", "3*" (in "<40") and ">=40"
AGE = Hierarchy.from_nested(
    {"*": {"<40": {"2*": [25, 28], "3*": [31, 35]}, ">=40": [45, 52]}}, name="age"
)
SEX = Hierarchy.from_nested({"*": ["M", "F"]}, name="sex")
DOMAIN = [25, 28, 31, 35, 45, 52]


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": ["[25, 31]", "2*", "[45, 52]", 35, "*", "[26, 30]"],
            "sex": ["M", "F", "*", "M", "F", "M"],
        }
    )


# Per cell of `age`:          covered leaves   LM (c-1)/5   NCP count c/6   NCP range
#   "[25, 31]"  a range       25 28 31          2/5          3/6             (31-25)/27 = 6/27
#   "2*"        a label       25 28             1/5          2/6             (28-25)/27 = 3/27
#   "[45, 52]"  a range       45 52             1/5          2/6             (52-45)/27 = 7/27
#   35          a leaf        35                0            0               0
#   "*"         the root      all 6             1            1               1
#   "[26, 30]"  a range       28                0            0 (one leaf)    (30-26)/27 = 4/27
LM_AGE = (2 / 5 + 1 / 5 + 1 / 5 + 0 + 1 + 0) / 6
NCP_AGE = (3 / 6 + 2 / 6 + 2 / 6 + 0 + 1 + 0) / 6
RANGE_AGE = (6 / 27 + 3 / 27 + 7 / 27 + 0 + 1 + 4 / 27) / 6
# sex: one "*" (loss 1 in LM and in NCP) among 6 cells, the others leaves: 1/6


def test_loss_metric_of_ranges(table):
    lm = loss_metric(table, {"age": AGE, "sex": SEX})
    assert lm.per_attribute["age"] == pytest.approx(LM_AGE)
    assert lm.per_attribute["sex"] == pytest.approx(1 / 6)
    assert lm.total == pytest.approx((LM_AGE + 1 / 6) / 2)
    # unit weights: the weighted LM is the same
    assert loss_metric(table, {"age": AGE, "sex": SEX}, weighted=True).total == pytest.approx(
        lm.total
    )


def test_ncp_of_ranges(table):
    hs = {"age": AGE, "sex": SEX}
    assert ncp(table, hs).per_attribute["age"] == pytest.approx(NCP_AGE)
    ranged = ncp(table, hs, numeric_ranges=True)
    assert ranged.per_attribute["age"] == pytest.approx(RANGE_AGE)
    assert ranged.per_attribute["sex"] == pytest.approx(1 / 6)  # the count rule: "*" covers 2/2
    assert ranged.gcp == pytest.approx((RANGE_AGE + 1 / 6) / 2)
    assert ncp(table, hs, numeric_ranges=["age"]).gcp == pytest.approx(ranged.gcp)


def test_domain_instead_of_hierarchy(table):
    # Without a hierarchy, "2*" is no value: use its range. The domain is the distinct values of
    # the original column (repeats do not matter).
    t = table.assign(age=table["age"].replace({"2*": "[25, 28]"}))
    original = pd.Series([25, 28, 31, 35, 45, 52, 25, 52])
    for domain in (original, DOMAIN, tuple(DOMAIN), original.to_numpy()):
        lm = loss_metric(t, {"sex": SEX}, domains={"age": domain})
        assert list(lm.per_attribute) == ["sex", "age"]  # hierarchies first, then domains
        assert lm.per_attribute["age"] == pytest.approx(LM_AGE)
        score = ncp(t, {"sex": SEX}, ["age", "sex"], domains={"age": domain})
        assert score.per_attribute["age"] == pytest.approx(NCP_AGE)
        ranged = ncp(t, {"sex": SEX}, numeric_ranges=True, domains={"age": domain})
        assert ranged.per_attribute["age"] == pytest.approx(RANGE_AGE)
    # only a domain: quasi defaults to its keys
    assert loss_metric(t[["age"]], {}, domains={"age": DOMAIN}).total == pytest.approx(LM_AGE)


def test_suppressed_rows_cost_the_whole_domain(table):
    t = table[["age"]].replace({"2*": "[25, 28]"})
    lm = loss_metric(t, {}, suppressed=2, domains={"age": DOMAIN})
    assert lm.total == pytest.approx((6 * LM_AGE + 2) / 8)
    score = ncp(t, {}, numeric_ranges=True, suppressed=2, domains={"age": DOMAIN})
    assert score.gcp == pytest.approx((6 * RANGE_AGE + 2) / 8)


def test_weighted_ranges():
    # weights 1 2 3 4 5 6 on 25..52: a range loses (sum of its weights - its lightest weight)
    # / (21 - 1). "[25, 31]": (1+2+3 - 1)/20 = 1/4; "[31, 52]": (3+4+5+6 - 3)/20 = 3/4.
    weighted = AGE.with_weights(dict(zip(DOMAIN, [1, 2, 3, 4, 5, 6], strict=True)))
    df = pd.DataFrame({"age": ["[25, 31]", "[31, 52]"]})
    lm = loss_metric(df, {"age": weighted}, weighted=True)
    assert lm.total == pytest.approx((1 / 4 + 3 / 4) / 2)


def test_a_label_wins_over_its_reading_as_a_range():
    # "[0, 9]" is a node of this hierarchy covering 1 and 5 only: measured as that node (LM
    # (2-1)/(4-1) = 1/3), not as the range 0..9 (which would cover all 4 leaves).
    h = Hierarchy.from_nested({"*": {"[0, 9]": [1, 5], "rest": [7, 12]}})
    df = pd.DataFrame({"x": ["[0, 9]", "[1, 7]"]})
    lm = loss_metric(df, {"x": h})
    # "[1, 7]" is no label: a range covering 1, 5, 7 -> (3-1)/3
    assert lm.total == pytest.approx((1 / 3 + 2 / 3) / 2)


@pytest.mark.parametrize("build", ["balanced", "quantiles"])
def test_data_cut_labels_agree_with_ranges(build):
    # Balanced and quantile hierarchies over numbers label nodes with half-open ranges whose
    # bounds lie between the values ([1, 3) over 1 and 2): measured as nodes or (without the
    # hierarchy) as the ranges of the values they hold, LM and NCP agree.
    values = [1, 2, 4, 8, 9, 11, 15]
    if build == "balanced":
        h = Hierarchy.balanced(values, fanout=2)
    else:
        h = Hierarchy.quantiles(values, [4, 2])
    assert h.level_labels(1)[0].endswith(")")
    labels = [lab for lvl in range(1, h.height) for lab in h.level_labels(lvl)]
    df = pd.DataFrame({"x": labels + values})
    assert loss_metric(df, {"x": h}).total == pytest.approx(
        loss_metric(df, {}, domains={"x": values}).total
    )
    for ranges in (False, True):
        assert ncp(df, {"x": h}, numeric_ranges=ranges).gcp == pytest.approx(
            ncp(df, {}, numeric_ranges=ranges, domains={"x": values}).gcp
        )


def test_mondrian_release_is_measurable():
    df = pd.DataFrame({"age": [21, 25, 33, 38, 41, 47, 52, 60]})
    rel = mondrian(
        df, {"age": {"role": "quasi", "kind": "numeric"}}, models={"k_anonymity": {"k": 2}}
    )
    # medians 38, then 25 and 47: 4 partitions of 2 ages each
    assert (
        list(rel.data["age"])
        == ["[21, 25]"] * 2 + ["[33, 38]"] * 2 + ["[41, 47]"] * 2 + ["[52, 60]"] * 2
    )
    lm = loss_metric(rel.data, {}, domains={"age": df["age"]})
    assert lm.total == pytest.approx(1 / 7)  # each cell covers 2 of 8 values: (2-1)/(8-1)
    score = ncp(rel.data, {}, numeric_ranges=True, domains={"age": df["age"]})
    assert score.gcp == pytest.approx((4 + 5 + 6 + 8) / 39 / 4)  # widths over the range 60-21
    # with the hierarchy of fixed-width intervals "[20, 30)", ...: the ranges are no labels
    tens = Hierarchy.intervals(df["age"], [10])
    assert loss_metric(rel.data, {"age": tens}).total == pytest.approx(1 / 7)
    with pytest.raises(HierarchyError, match="precision is defined for hierarchy generalizations"):
        precision(rel.data, {"age": tens})


# ---------------------------------------------------------------------------------- properties
@settings(max_examples=120, deadline=None)
@given(st.data())
def test_ranges_against_the_formulas(data):
    domain = sorted(data.draw(st.sets(st.integers(-20, 40), min_size=1, max_size=12)))
    cells = []
    for _ in range(data.draw(st.integers(1, 15))):
        i = data.draw(st.integers(0, len(domain) - 1))
        j = data.draw(st.integers(i, len(domain) - 1))
        lo = data.draw(st.sampled_from([domain[i], domain[i] - 0.5 if i else domain[i]]))
        cells.append(f"[{lo:g}, {domain[j]}]" if (lo, j) != (domain[i], i) else domain[i])
    df = pd.DataFrame({"x": cells})
    d, span = len(domain), domain[-1] - domain[0]

    def bounds(cell):
        if isinstance(cell, str):
            lo, hi = (float(v) for v in cell.strip("[]").split(","))
            return lo, hi
        return cell, cell

    covered = [sum(bounds(c)[0] <= v <= bounds(c)[1] for v in domain) for c in cells]
    lm = [0.0 if d == 1 else (c - 1) / (d - 1) for c in covered]
    count = [0.0 if c <= 1 else c / d for c in covered]
    width = [0.0 if span == 0 else (bounds(c)[1] - bounds(c)[0]) / span for c in cells]
    doms = {"x": domain}
    assert loss_metric(df, {}, domains=doms).total == pytest.approx(sum(lm) / len(lm))
    assert ncp(df, {}, domains=doms).gcp == pytest.approx(sum(count) / len(count))
    assert ncp(df, {}, numeric_ranges=True, domains=doms).gcp == pytest.approx(
        sum(width) / len(width)
    )
    # the same with the domain as the leaves of a hierarchy
    h = Hierarchy.balanced(domain, fanout=3)
    assert loss_metric(df, {"x": h}).total == pytest.approx(sum(lm) / len(lm))


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "cell, match",
    [
        ("[20, 30]", "not a generalization of its domain"),  # starts below the domain
        ("[40, 60]", "not a generalization of its domain"),  # ends above it
        ("[35, 31]", "not a generalization of its domain"),  # lo > hi
        ("[36, 44]", "not a generalization of its domain"),  # covers no value
    ],
)
def test_bad_ranges(cell, match):
    df = pd.DataFrame({"age": ["[25, 31]", cell]})
    for hs, doms in (({"age": AGE}, None), ({}, {"age": DOMAIN})):
        with pytest.raises(HierarchyError, match=match):
            loss_metric(df, hs, domains=doms)
        with pytest.raises(HierarchyError, match=rf"column 'age': range '\{cell[0]}"):
            ncp(df, hs, domains=doms)


def test_ranges_need_a_numeric_domain():
    df = pd.DataFrame({"sex": ["[1, 2]", "M"]})
    with pytest.raises(HierarchyError, match=r"column 'sex'.*not in its hierarchy.*'\[1, 2\]'"):
        loss_metric(df, {"sex": SEX})
    with pytest.raises(HierarchyError, match=r"'abc' is neither a number, a range"):
        loss_metric(pd.DataFrame({"age": ["abc"]}), {}, domains={"age": DOMAIN})


@pytest.mark.parametrize(
    "domains, match",
    [
        ([25, 28], "'domains' must be a mapping"),
        ({"age": "25,28"}, "must be a list of numbers"),
        ({"age": [25, "x"]}, "must hold finite numbers, got 'x'"),
        ({"age": [25, float("nan")]}, "must hold finite numbers"),
        ({"age": []}, "is empty"),
        ({"age": DOMAIN, "zip": [1]}, "'zip' that are not quasi-identifiers"),
    ],
)
def test_bad_domains(domains, match):
    df = pd.DataFrame({"age": [25, 28], "zip": [1, 1]})
    with pytest.raises(InputError, match=match):
        loss_metric(df, {}, ["age"], domains=domains)


def test_hierarchy_and_domain_for_one_column():
    df = pd.DataFrame({"age": [25, 28]})
    with pytest.raises(InputError, match="both a hierarchy and a domain"):
        ncp(df, {"age": AGE}, domains={"age": DOMAIN})
    with pytest.raises(InputError, match=r"'age' have no hierarchy.*or for a numeric column"):
        ncp(df, {}, ["age"])


def test_precision_refuses_ranges(table):
    with pytest.raises(HierarchyError, match=r"column 'age': '\[25, 31\]' is a value range"):
        precision(table, {"age": AGE, "sex": SEX})
    # labels and leaves only: precision as before
    ok = table.assign(age=["2*", "2*", ">=40", 35, "*", 28])
    assert 0.0 < precision(ok, {"age": AGE, "sex": SEX}) < 1.0
