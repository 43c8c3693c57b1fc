"""Hand-computed examples for every model, form and ground distance."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from microanon.core.hierarchy import Hierarchy
from microanon.models import (
    Groups,
    Verdict,
    emd,
    k_anonymity,
    l_diversity,
    t_closeness,
)

# --------------------------------------------------------------------------- t-closeness
# A 3-anonymous patient table modelled on the salary / disease example of Li, Li &
# Venkatasubramanian (2007): three groups of three records. Salary is in thousands (3..11, each
# value once; the paper gives the ordered EMDs 0.375 and 0.167 of the first two groups). Disease
# uses a disease taxonomy of height H = 3. Every expected value is derived by hand below.
PATIENTS = pd.DataFrame(
    {
        "zip": ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 3,
        "age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 3,
        "salary": [3, 4, 5, 6, 11, 8, 7, 9, 10],
        "disease": [
            "gastric ulcer", "gastritis", "stomach cancer",
            "gastritis", "flu", "bronchitis",
            "bronchitis", "pneumonia", "stomach cancer",
        ],
    },
    index=[10, 10, 11, 3, 3, 3, 7, 8, 9],  # non-unique, non-default
)  # fmt: skip
QI = ["zip", "age"]

DISEASES = Hierarchy.from_nested(
    {
        "respiratory & digestive": {
            "respiratory": {
                "respiratory infection": ["flu", "pneumonia", "bronchitis"],
                "vascular lung": ["pulmonary edema", "pulmonary embolism"],
            },
            "digestive": {
                "stomach": ["gastric ulcer", "gastritis", "stomach cancer"],
                "colon": ["colitis", "colon cancer"],
            },
        }
    },
    name="disease",
)


def test_t_closeness_ordered_salary() -> None:
    # Q is uniform over the m = 9 salaries 3..11, so r = p - 1/9 and EMD = (1/8) Σ_i |Σ_{j<=i} r_j|.
    # Group (476**, 2*) = {3, 4, 5}: r·9 = [2, 2, 2, -1, -1, -1, -1, -1, -1];
    #   prefix sums·9 = 2, 4, 6, 5, 4, 3, 2, 1, 0 -> Σ = 27/9 = 3 -> EMD = 3/8 (the paper's 0.375).
    # Group (4790*, >=40) = {6, 8, 11}: r·9 = [-1, -1, -1, 2, -1, 2, -1, -1, 2];
    #   prefix sums·9 = -1, -2, -3, -1, -2, 0, -1, -2, 0 -> Σ|.| = 12/9 -> EMD = 1/6 (paper: 0.167).
    # Group (476**, 3*) = {7, 9, 10}: r·9 = [-1, -1, -1, -1, 2, -1, 2, 2, -1];
    #   prefix sums·9 = -1, -2, -3, -4, -2, -3, -1, 1, 0 -> Σ|.| = 17/9 -> EMD = 17/72.
    v = t_closeness(PATIENTS, QI, "salary", t=0.2)  # numeric: ordered by default
    assert v.parameters["distance"] == "ordered"
    assert v.value == pytest.approx(3 / 8, abs=1e-12)
    assert v.holds is False
    # worst first: 3/8 then 17/72; the 1/6 group is within t = 0.2
    assert v.offending["value"].tolist() == pytest.approx([3 / 8, 17 / 72], abs=1e-12)
    assert v.offending[["zip", "age"]].values.tolist() == [["476**", "2*"], ["476**", "3*"]]
    assert v.offending["size"].tolist() == [3, 3]
    assert t_closeness(PATIENTS, QI, "salary", t=3 / 8).holds is True
    # An explicit order with values absent from the table enlarges the domain: salaries 1..11
    # (m = 11) add two leading zero-mass positions, whose prefix sums are 0 -> the Σ are
    # unchanged and only the normalization changes from 1/8 to 1/10.
    v = t_closeness(PATIENTS, QI, "salary", order=list(range(1, 12)))
    assert v.value == pytest.approx(3 / 10, abs=1e-12)


def test_t_closeness_equal_distance() -> None:
    # Equal distance: EMD = ½ Σ|r_i| = Σ max(r_i, 0). Each group has 3 distinct salaries of
    # probability 1/3 against 1/9 in the table: 3 · (1/3 - 1/9) = 2/3.
    v = t_closeness(PATIENTS, QI, "salary", distance="equal")
    assert v.value == pytest.approx(2 / 3, abs=1e-12)
    # Diseases: Q = gastric ulcer 1/9, gastritis 2/9, stomach cancer 2/9, flu 1/9,
    # bronchitis 2/9, pneumonia 1/9.
    # (476**, 2*) = {gastric ulcer, gastritis, stomach cancer}: r+ = 2/9 + 1/9 + 1/9 = 4/9;
    # (4790*, >=40) = {gastritis, flu, bronchitis}: r+ = 1/9 + 2/9 + 1/9 = 4/9; likewise the third.
    v = t_closeness(PATIENTS, QI, "disease")  # strings: equal by default
    assert v.parameters["distance"] == "equal"
    assert v.value == pytest.approx(4 / 9, abs=1e-12)
    assert v.holds is None and v.offending.empty


def test_t_closeness_hierarchical_distance() -> None:
    # EMD = Σ_{internal N} (height(N)/3) · min(pos(N), neg(N)).
    # Group (476**, 2*): r = gastric ulcer +2/9, gastritis +1/9, stomach cancer +1/9,
    #   flu -1/9, bronchitis -2/9, pneumonia -1/9.
    #   stomach: children all positive -> min = 0, extra = +4/9;
    #   respiratory infection: all negative -> 0, extra = -4/9; vascular lung, colon: 0.
    #   digestive (+4/9, 0) and respiratory (-4/9, 0): min 0.
    #   root: pos = neg = 4/9, height 3/3 -> EMD = 4/9.
    # Group (4790*, >=40): r = gastric ulcer -1/9, gastritis +1/9, stomach cancer -2/9,
    #   flu +2/9, bronchitis +1/9, pneumonia -1/9.
    #   stomach: pos 1/9, neg 3/9 -> (1/3)·(1/9) = 1/27, extra -2/9;
    #   respiratory infection: pos 3/9, neg 1/9 -> 1/27, extra +2/9;
    #   digestive / respiratory carry -2/9 / +2/9 with one non-zero child -> 0;
    #   root: min(2/9, 2/9) · 1 = 2/9 -> EMD = 1/27 + 1/27 + 2/9 = 8/27.
    # Group (476**, 3*) is symmetric to the second one: 8/27.
    v = t_closeness(PATIENTS, QI, "disease", t=0.3, hierarchy=DISEASES)
    assert v.parameters["distance"] == "hierarchical"
    assert v.value == pytest.approx(4 / 9, abs=1e-12)
    assert v.holds is False
    assert v.offending[["zip", "age"]].values.tolist() == [["476**", "2*"]]
    v0 = t_closeness(PATIENTS, QI, "disease", t=0.0, distance="hierarchical", hierarchy=DISEASES)
    assert sorted(v0.offending["value"]) == pytest.approx([8 / 27, 8 / 27, 4 / 9], abs=1e-12)


def test_t_closeness_hierarchical_equals_equal_distance_on_a_flat_tree() -> None:
    # A root with the leaves as children (H = 1) gives the equal ground distance.
    flat = Hierarchy.from_nested({"*": sorted(set(PATIENTS["disease"]))})
    h = t_closeness(PATIENTS, QI, "disease", hierarchy=flat).value
    assert h == pytest.approx(t_closeness(PATIENTS, QI, "disease").value, abs=1e-12)


def test_t_closeness_single_value_and_single_group() -> None:
    df = pd.DataFrame({"q": ["a", "a", "b"], "s": ["x", "x", "x"]})
    assert t_closeness(df, "q", "s").value == 0.0
    assert t_closeness(df, "q", "s", order=["x"]).value == 0.0
    one = pd.DataFrame({"q": ["a", "a"], "s": [1, 2]})
    assert t_closeness(one, "q", "s", t=0).holds is True


# --------------------------------------------------------------------------- k-anonymity
def test_k_anonymity() -> None:
    v = k_anonymity(PATIENTS, QI, k=3)
    assert (v.model, v.holds, v.value, v.groups) == ("k-anonymity", True, 3, 3)
    assert v.offending.empty
    assert list(v.offending.columns) == ["zip", "age", "size", "value"]
    df = pd.DataFrame({"q": ["a", "b", "b", "c", "c", "c"], "r": [1, 1, 1, 1, 1, 2]})
    v = k_anonymity(df, ["q", "r"], k=2)
    # groups (a,1):1, (b,1):2, (c,1):2, (c,2):1
    assert (v.value, v.holds, v.groups) == (1, False, 4)
    assert v.offending.values.tolist() == [["a", 1, 1, 1], ["c", 2, 1, 1]]
    assert k_anonymity(df, "q").value == 1
    assert k_anonymity(df, "q", k=1).holds is True


# --------------------------------------------------------------------------- ℓ-diversity
# Group A: s = a a a b c (size 5); group B: a a d d (size 4); group C: b b b b a d (size 6).
DIVERSE = pd.DataFrame(
    {
        "g": list("AAAAABBBBCCCCCC"),
        "s": list("aaabcaaddbbbbad"),
    },
    index=np.arange(15)[::-1] * 2,
)


def test_frequency_l_diversity() -> None:
    # size / max count: A 5/3, B 4/2 = 2, C 6/4 = 1.5 -> achieved 1.5.
    v = l_diversity(DIVERSE, "g", "s", l=2, form="frequency")
    assert v.model == "frequency l-diversity"
    assert v.value == pytest.approx(1.5)
    assert isinstance(v.value, float)
    assert v.holds is False
    # B (max count exactly size/2) holds; C then A offend, worst first.
    assert v.offending["g"].tolist() == ["C", "A"]
    assert v.offending["value"].tolist() == pytest.approx([1.5, 5 / 3])
    assert l_diversity(DIVERSE, "g", "s", l=1.5, form="frequency").holds is True


def test_distinct_l_diversity() -> None:
    v = l_diversity(DIVERSE, "g", "s", l=3)
    assert (v.model, v.value, v.holds) == ("distinct l-diversity", 2, False)
    assert v.offending[["g", "size", "value"]].values.tolist() == [["B", 4, 2]]
    assert l_diversity(DIVERSE, "g", "s", l=2).holds is True


def test_entropy_l_diversity() -> None:
    h_a = -(0.6 * math.log(0.6) + 2 * 0.2 * math.log(0.2))  # 0.950
    h_b = math.log(2)  # 0.693
    h_c = -(4 / 6 * math.log(4 / 6) + 2 / 6 * math.log(1 / 6))  # 0.868
    v = l_diversity(DIVERSE, "g", "s", form="entropy")
    assert v.value == pytest.approx(math.exp(min(h_a, h_b, h_c)), rel=1e-12)
    assert v.value == pytest.approx(2.0, rel=1e-12)
    # B's entropy is exactly log 2: it holds for l = 2 (tolerance 1e-12), not above.
    assert l_diversity(DIVERSE, "g", "s", l=2, form="entropy").holds is True
    v = l_diversity(DIVERSE, "g", "s", l=2.2, form="entropy")
    assert v.offending["g"].tolist() == ["B"]
    v = l_diversity(DIVERSE, "g", "s", l=2.5, form="entropy")
    assert v.offending["g"].tolist() == ["B", "C"]
    assert v.offending["value"].tolist() == pytest.approx([math.exp(h_b), math.exp(h_c)])


def test_recursive_l_diversity() -> None:
    # Sorted counts: A [3, 1, 1], B [2, 2], C [4, 1, 1]; condition r1 < c (r_l + ... + r_m).
    # c = 2: A: l=1 3<10, l=2 3<4, l=3 3<2 no -> 2;  B: 2<8, 2<4, l=3 tail 0 -> 2;
    #        C: 4<12, l=2 4<4 no -> 1.  Achieved 1.
    v = l_diversity(DIVERSE, "g", "s", l=2, form="recursive", c=2)
    assert (v.model, v.value, v.holds) == ("recursive (c,l)-diversity", 1, False)
    assert v.parameters == {"l": 2, "form": "recursive", "c": 2.0}
    assert v.offending[["g", "value"]].values.tolist() == [["C", 1]]
    # c = 3: A: l=3 3<3 no -> 2; B -> 2; C: l=2 4<6, l=3 4<3 no -> 2.  Achieved 2.
    assert l_diversity(DIVERSE, "g", "s", form="recursive", c=3).value == 2
    # c = 1: A 3<5, l=2 3<2 no -> 1; B 2<4, 2<2 no -> 1; C 4<6, 4<2 no -> 1.
    assert l_diversity(DIVERSE, "g", "s", form="recursive", c=1).value == 1


def test_recursive_l_diversity_edge_cases() -> None:
    # A one-value group fails even l = 1 when c <= 1 (r1 < c r1): its own value is 0.
    df = pd.DataFrame({"g": ["x", "x", "y", "y"], "s": ["a", "a", "a", "b"]})
    assert l_diversity(df, "g", "s", form="recursive", c=1).value == 0
    assert l_diversity(df, "g", "s", form="recursive", c=1.5).value == 1
    # Decimal c is compared exactly: 10 values 3 times each, r1 / (r1 + ... + rm) = 3/30 = 0.1,
    # so r1 < 0.1 · 30 is false (although 0.1 * 30 == 3.0000000000000004 in floating point).
    df = pd.DataFrame({"g": ["x"] * 30, "s": np.repeat(np.arange(10), 3)})
    assert l_diversity(df, "g", "s", form="recursive", c=0.1).value == 0
    assert l_diversity(df, "g", "s", form="recursive", c=0.11).value == 1


# --------------------------------------------------------------------------- Verdict and Groups
def test_verdict_text_and_json() -> None:
    v = l_diversity(DIVERSE, "g", "s", l=2, form="frequency")
    assert str(v) == (
        "frequency l-diversity (l=2.0): fails; achieved l = 1.5; 2 of 3 groups offend"
    )
    assert str(k_anonymity(PATIENTS, QI)) == "k-anonymity: achieved k = 3 over 3 groups"
    assert str(k_anonymity(PATIENTS, QI, k=2)) == (
        "k-anonymity (k=2): holds; achieved k = 3 over 3 groups"
    )
    d = v.to_dict()
    assert d["model"] == "frequency l-diversity" and d["holds"] is False
    assert d["offending"][0] == {"g": "C", "size": 6, "value": 1.5}
    json.dumps(d)
    h = t_closeness(PATIENTS, QI, "disease", t=0.1, hierarchy=DISEASES)
    assert str(h).startswith("t-closeness (t=0.1, distance=hierarchical): fails;")
    payload = json.loads(json.dumps(h.to_dict()))
    assert Hierarchy.from_dict(payload["parameters"]["hierarchy"]) == DISEASES
    assert isinstance(v, Verdict)
    with pytest.raises(AttributeError):
        v.holds = True  # type: ignore[misc]


def test_offending_columns_do_not_clash_with_quasi_identifiers() -> None:
    df = pd.DataFrame({"size": ["S", "M", "M"], "value": [1, 2, 2]})
    v = k_anonymity(df, ["size", "value"], k=2)
    assert list(v.offending.columns) == ["size", "value", "size_", "value_"]
    assert v.offending.values.tolist() == [["S", 1, 1, 1]]


def test_shared_groups_give_the_same_verdicts() -> None:
    groups = Groups.from_frame(PATIENTS, QI, "disease")
    assert k_anonymity(groups, None, k=3).value == 3
    assert l_diversity(groups, QI, "disease", l=3).holds is True
    assert t_closeness(groups, None, None, hierarchy=DISEASES).value == pytest.approx(4 / 9)
    assert repr(groups) == (
        "<Groups: 9 rows, 3 groups over ['zip', 'age'], sensitive 'disease' (6 values)>"
    )


def test_blocks_do_not_change_dense_distances(monkeypatch: pytest.MonkeyPatch) -> None:
    # The ordered and hierarchical EMDs are computed over blocks of groups; tiny blocks (one or
    # a few groups each) must give the same values as one block.
    rng = np.random.default_rng(7)
    leaves = [f"v{i}" for i in range(8)]
    tree = Hierarchy.from_nested(
        {"*": {"a": {"a1": leaves[:3], "a2": leaves[3:4]}, "b": leaves[4:]}}
    )
    df = pd.DataFrame(
        {"q": rng.integers(0, 60, 500), "r": rng.choice(leaves, 500), "n": rng.integers(0, 9, 500)}
    )

    def per_group() -> list[pd.DataFrame]:
        frames = [
            t_closeness(df, "q", "r", t=0, hierarchy=tree).offending,
            t_closeness(df, "q", "n", t=0).offending,
        ]
        return [f.sort_values("q", ignore_index=True) for f in frames]

    full = per_group()
    assert len(full[0]) > 50 and len(full[1]) > 50
    for cells in (1, 7, 100):
        monkeypatch.setattr(emd, "_CELLS", cells)
        for got, expected in zip(per_group(), full, strict=True):
            pd.testing.assert_frame_equal(got, expected, rtol=1e-12)
