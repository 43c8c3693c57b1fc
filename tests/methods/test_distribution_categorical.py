"""Categorical sensitive attributes in distribution-based anonymization: the range of a set of
categories is their number (the paper's footnote). Hand-worked examples, brute force of the
minimum sum of ranges under that range, and end-to-end releases checked by the checker."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.cli import main
from microanon.core import Hierarchy
from microanon.core.errors import InputError
from microanon.methods.distribution import (
    AnnotatedHierarchy,
    distribution_anonymize,
    materialize,
    min_sor_fake,
    min_sum_of_range,
)
from microanon.models.p_privacy import covers, p_privacy
from microanon.models.release_check import check_release
from microanon.query import sensitive_count

MARITAL = Hierarchy.from_nested(
    {"*": {"partnered": ["married", "cohabiting"], "alone": ["single", "divorced", "widowed"]}}
)


def p_private(h: AnnotatedHierarchy, copies) -> bool:
    """Definition 3.2 in exact arithmetic over the leaf positions."""
    w = [int(x) for x in h.weights]
    lhs = [Fraction(0)] * len(w)
    for node, c in enumerate(copies):
        if c:
            lo, hi = int(h.lo[node]), int(h.hi[node])
            mass = sum(w[lo:hi])
            if mass == 0:
                return False
            for v in range(lo, hi):
                lhs[v] += Fraction(int(c) * w[v], mass)
    n = sum(int(c) for c in copies)
    return all(lhs[v] == Fraction(n * w[v], sum(w)) for v in range(len(w)))


def brute_min_sor(h: AnnotatedHierarchy, values) -> float:
    """The least Σ range over all P-private multisets of nodes generalizing the values."""
    pos = h.leaf_index(np.asarray(values, dtype=object))
    best = np.inf
    for combo in itertools.combinations_with_replacement(range(h.n_nodes), len(pos)):
        copies = np.bincount(combo, minlength=h.n_nodes)
        cost = float(copies @ h.node_range)
        if cost >= best or not covers(pos, h.lo, h.hi - 1, copies):
            continue
        if p_private(h, copies):
            best = cost
    return best


# ---------------------------------------------------------------- hand-worked
def test_balanced_uniform_example():
    # {a..d}, uniform, binary: {a,b} | {c,d}. Group {b, a, c}: the root allocation is (1, 1) per
    # child pair, so {a,b}, {c,d} and one root entry: ranges 2 + 2 + 4 = 8 (numeric would be 0
    # for leaves; here a single category has range 1).
    h = AnnotatedHierarchy.balanced(["a", "b", "c", "d"], categorical=True)
    assert h.node_range.tolist() == [4, 2, 2, 1, 1, 1, 1]
    g = min_sum_of_range(["b", "a", "c"], h)
    assert g.subdomains.values.tolist() == [["a", "d", 1], ["a", "b", 1], ["c", "d", 1]]
    assert g.sum_of_ranges == 8.0
    # One fake 'd' makes the group exactly uniform: four single categories, 4.
    f = min_sor_fake(["b", "a", "c"], h, 2)
    assert f.fakes.tolist() == ["d"] and f.sum_of_ranges == 4.0
    assert f.sor_by_fakes.tolist() == [8.0, 4.0, 8.0]
    node = materialize(["b", "a", "c"], g, rng=0)
    assert sorted(np.bincount(node, minlength=h.n_nodes).tolist()) == sorted(g.copies.tolist())


def test_schema_hierarchy_example():
    # Target = the data's own distribution over the 5 categories of MARITAL (any tree: ternary).
    # Data {married ×2, cohabiting ×2, single, divorced, widowed} with weights 2:2:1:1:1 is its
    # own target: every value stays a single category, 7 entries of range 1.
    data = ["married", "married", "cohabiting", "cohabiting", "single", "divorced", "widowed"]
    weights = [2, 2, 1, 1, 1]
    h = AnnotatedHierarchy.from_hierarchy(MARITAL, weights, categorical=True)
    assert h.node_range.tolist() == [5, 2, 3, 1, 1, 1, 1, 1]
    assert min_sum_of_range(data, h).sum_of_ranges == 7.0
    # Without the widowed record: the root's children weigh partnered : alone = 4 : 3 and hold
    # 4 and 2 records, so c = min(6 // 7, 4 // 4, 2 // 3) = 0 and all 6 records are published as
    # the whole domain (range 5 each).
    g = min_sum_of_range(data[:-1], h)
    assert g.subdomains.values.tolist() == [["married", "widowed", 6]]
    assert g.sum_of_ranges == 30.0
    # Doubling the data (14 records, 8 : 6) sends 2 units down: 7 + 7 single categories.
    assert min_sum_of_range(data * 2, h).sum_of_ranges == 14.0


# ---------------------------------------------------------------- brute force
@st.composite
def categorical_cases(draw):
    k = draw(st.integers(2, 5))
    cats = [f"c{i}" for i in range(k)]
    arity = draw(st.integers(2, 3))
    weights = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k).filter(lambda w: sum(w)))
    size = draw(st.integers(1, 4 if k > 3 else 5))
    values = draw(st.lists(st.sampled_from(cats), min_size=size, max_size=size))
    h = AnnotatedHierarchy.balanced(
        cats, arity=arity, target={"pmf": dict(zip(cats, weights, strict=True))}, categorical=True
    )
    return h, values


@settings(max_examples=60, deadline=None)
@given(categorical_cases())
def test_min_sum_of_range_is_optimal_under_categorical_range(case):
    h, values = case
    g = min_sum_of_range(values, h)
    pos = h.leaf_index(np.asarray(values, dtype=object))
    assert covers(pos, h.lo, h.hi - 1, g.copies) and p_private(h, g.copies)
    assert g.sum_of_ranges == brute_min_sor(h, values)


@settings(max_examples=30, deadline=None)
@given(categorical_cases(), st.integers(1, 2))
def test_fakes_equal_brute_force_under_categorical_range(case, t):
    h, values = case
    result = min_sor_fake(values, h, t)
    for k in range(t + 1):
        best = min(
            min_sum_of_range(list(values) + list(f), h).sum_of_ranges
            for f in itertools.combinations_with_replacement(h.values.tolist(), k)
        )
        assert result.sor_by_fakes[k] == best
    assert result.sum_of_ranges == min(result.sor_by_fakes)
    assert p_private(h, result.copies)


# ---------------------------------------------------------------- end to end
def _table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 30, n),
            "region": rng.choice(["n", "s"], n),
            "marital": rng.choice(
                ["married", "cohabiting", "single", "divorced", "widowed"],
                n,
                p=[0.4, 0.1, 0.3, 0.15, 0.05],
            ),
        }
    )


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"partition": "qi_sa", "subgroup_by": ["age"], "resolution": 8},
        {"groups": "age", "target": "uniform", "fakes": 0.1},
        {"groups": "region", "per_group": True},
        {"groups": "age", "target": {"pmf": {"married": 0.5, "single": 0.5}}},
    ],
)
def test_release_is_checked_p_private(options):
    df = _table()
    rel = distribution_anonymize(
        df, {"age": "quasi", "region": "quasi", "marital": "sensitive"}, rng=1, **options
    )
    assert rel.metadata["parameters"]["categorical"] is True
    assert all(h["categorical"] for h in rel.metadata["distribution"]["hierarchies"])
    verdicts = check_release(rel, [{"p_privacy": {}}, {"l_diversity": {"l": 2}}])
    assert verdicts[0].holds, verdicts[0]
    # Every published group's entries generalize its records' categories (Def. 3.1).
    st_ = rel.tables["st"]
    assert int(st_["count"].sum()) >= len(df)


def test_release_with_schema_hierarchy_and_count_bounds():
    df = _table(400, seed=3)
    schema = {
        "age": "quasi",
        "region": "quasi",
        "marital": {"role": "sensitive", "hierarchy": MARITAL},
    }
    rel = distribution_anonymize(df, schema, groups="age", scale=20, rng=2)
    hier = rel.metadata["distribution"]["hierarchies"][0]
    assert hier["values"] == ["married", "cohabiting", "single", "divorced", "widowed"]
    assert p_privacy(rel).holds
    rng = np.random.default_rng(5)
    for _ in range(25):
        cats = set(rng.choice(hier["values"], rng.integers(1, 4), replace=False).tolist())
        a = int(rng.integers(20, 30))
        b = sensitive_count(rel, cats, where=f"age >= {a}")
        true = int(((df["age"] >= a) & df["marital"].isin(cats)).sum())
        assert b.lower <= true <= b.upper
        assert b.count == int((df["age"] >= a).sum())
    everything = sensitive_count(rel, hier["values"])
    assert everything.lower == everything.upper == len(df)


def test_tampered_categorical_release_fails_the_check():
    rel = distribution_anonymize(
        _table(), {"age": "quasi", "marital": "sensitive"}, groups="age", target="uniform", rng=0
    )
    st_ = rel.tables["st"]
    leaf = st_.index[st_["low"] == st_["high"]][0]
    st_.loc[leaf, "low"] = st_.loc[leaf, "high"] = (
        "widowed" if st_.loc[leaf, "low"] != "widowed" else "married"
    )
    assert not p_privacy(rel).holds


def test_count_bounds_hand_worked():
    # Group q = 1 is {b, a, c} over uniform {a..d}: entries {a..d}, {a,b}, {c,d}. COUNT(s = 'a')
    # of its 3 records: no entry lies inside {a} -> lower 0; two entries meet it -> upper 2.
    df = pd.DataFrame({"q": [1, 1, 1, 2], "s": ["b", "a", "c", "d"]})
    rel = distribution_anonymize(
        df, {"q": "quasi", "s": "sensitive"}, target="uniform", groups="q", rng=0
    )
    b = sensitive_count(rel, {"a"}, where="q = 1")
    assert (b.lower, b.upper, b.count) == (0.0, 2.0, 3)
    # S = {a, b}: {a,b} is inside, {a..d} and {a,b} meet it; 3 records take all 3 entries.
    b = sensitive_count(rel, {"a", "b"}, where="q = 1")
    assert (b.lower, b.upper) == (1.0, 2.0)
    # Two of the three records: they may hold {a..d} and {c,d}: lower 0.
    b = sensitive_count(
        rel, {"a", "b"}, where=lambda t: t["q"].eq(1) & t.index.isin(t.index[t["q"].eq(1)][:2])
    )
    assert (b.lower, b.upper, b.count) == (0.0, 2.0, 2)


def test_numeric_count_bounds_paper_salaries():
    # Group 912** of the paper's Figure 2: {30-60}, {30-40}, {50-60}; COUNT(salary <= 40K).
    df = pd.DataFrame({"zip": ["91210", "91220", "91240", "91330"], "salary": [40, 30, 50, 60]})
    rel = distribution_anonymize(
        df,
        {"zip": "quasi", "salary": "sensitive"},
        target="uniform",
        groups={"column": "zip", "prefix": 3},
        rng=0,
    )
    assert rel.metadata["parameters"]["categorical"] is False
    b = sensitive_count(rel, low=None, high=40, where="zip LIKE '912%'")
    assert (b.lower, b.upper) == (1.0, 2.0)


def test_categorical_errors():
    df = _table(50)
    schema = {"age": "quasi", "marital": "sensitive"}
    with pytest.raises(InputError, match="normal"):
        distribution_anonymize(df, schema, target={"normal": {"variance": 1}})
    with pytest.raises(InputError, match="domain"):
        distribution_anonymize(df, schema, domain="integer")
    with pytest.raises(InputError, match="pmf"):
        distribution_anonymize(df, schema, target={"pmf": {"engaged": 1}})
    rel = distribution_anonymize(df, schema, rng=0)
    with pytest.raises(InputError, match="range"):
        sensitive_count(rel, low=1)
    with pytest.raises(InputError, match="either"):
        sensitive_count(rel)
    with pytest.raises(InputError, match="missing"):
        distribution_anonymize(df.assign(marital=[None] + ["single"] * 49), schema, rng=0)
    both = {"age": "sensitive", "marital": "sensitive", "q": "quasi"}
    with pytest.raises(
        InputError,
        match=r"one sensitive column in the schema, found 2 \(age, marital\); give the oth",
    ):
        distribution_anonymize(df.assign(q=1), both, rng=0)


def test_a_sensitive_column_of_numbers_and_the_value_question_mark_verifies(tmp_path):
    """ANES 2008's party id (7 codes read as floats, 40 missing) as the sensitive column with
    ``missing: value``: its categories are published as numbers and ``?`` and its entries as
    text ('1.0'); the release verifies on the files as written (before: "an entry's low or high
    is not a domain value", nothing written)."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "educat", "pid7"]].reset_index(drop=True)
    assert anes["pid7"].isna().any()
    anes.to_csv(tmp_path / "anes.csv", index=False)
    schema = {
        "stateabb": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 4}},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "value"},
    }
    config = {"data": "anes.csv", "schema": schema, "method": "distribution",
              "params": {"categorical": True}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), "utf-8")
    done = CliRunner().invoke(main, ["anonymize", "--config", str(tmp_path / "c.yaml"),
                                     "--out", str(tmp_path / "out"), "-q"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "claimed models verified on the files as written: yes" in done.stdout
