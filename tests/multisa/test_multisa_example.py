"""Our constructed twelve-record example exactly, and the Algorithm-13 and dangerous-bucket vectors.

Algorithm and definition numbers are those of Yi & Shi (Mathematical Problems in Engineering 2015);
the example and the vectors are ours, with every number worked out by hand.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from microanon.core.release import Release
from microanon.measures.multisa import ail
from microanon.methods.multisa import (
    cluster_attributes,
    create_sids,
    dangerous_buckets,
    group_records,
    heuristic_resort,
    mixed_model,
    rating,
    rule_codes,
    sac_partition,
    strong_rules,
)

RECORDS = """
cold,aspirin,driver cold,ibuprofen,clerk gastritis,aspirin,clerk ulcer,aspirin,nurse
cold,ibuprofen,nurse gastritis,vitaminC,nurse gastritis,vitaminC,clerk ulcer,antacid,clerk
ulcer,aspirin,clerk ulcer,antacid,driver cold,vitaminC,driver ulcer,aspirin,clerk
""".split()
SA = ["disease", "drug", "job"]
SCHEMA = {"age": "quasi", "country": "quasi"} | {s: "sensitive" for s in SA}


@pytest.fixture()
def example() -> pd.DataFrame:
    df = pd.DataFrame([r.split(",") for r in RECORDS], columns=SA)
    df.insert(0, "age", np.arange(21, 33))  # record i (1-based) has age 20 + i
    df.insert(1, "country", ["x", "y", "z"] * 4)
    return df


@pytest.fixture()
def release(example: pd.DataFrame) -> Release:
    return mixed_model(example, SCHEMA, l=2, min_confidence=0.75, rng=3)


def _codes(df: pd.DataFrame) -> np.ndarray:
    return np.column_stack([pd.factorize(df[s], sort=True)[0] for s in SA])


def _records(ages: pd.Series) -> set[int]:
    return set((ages.astype(int) - 20).tolist())


def test_strong_rules(example):
    rules = strong_rules(example, SA, 0.75)
    assert rules[["antecedent", "consequent"]].values.tolist() == [
        ["antacid", "ulcer"],
        ["ibuprofen", "cold"],
    ]
    assert (rules["antecedent_attribute"] == "drug").all()
    assert (rules["consequent_attribute"] == "disease").all()
    assert rules["support_x"].tolist() == [2, 2]
    assert rules["support_xy"].tolist() == [2, 2]
    assert rules["confidence"].tolist() == [1.0, 1.0]
    # Nothing else reaches 0.75; at 2/3 three more rules appear (driver -> cold, ...).
    assert len(strong_rules(example, SA, 2 / 3)) > 2


def test_partition_and_clusters(example):
    codes = _codes(example)
    cards = (codes.max(axis=0) + 1).tolist()
    rules = rule_codes([codes[:, j] for j in range(3)], cards, 0.75)
    part = sac_partition([codes[:, j] for j in range(3)], rules.strong_values(cards))
    assert part.strong_counts.tolist() == [2, 2, 0]
    assert part.pivot == 0  # tie between disease and drug: the first attribute
    assert (np.flatnonzero(part.sac) + 1).tolist() == [2, 5, 8, 10]
    assert cluster_attributes(3, rules.linked_attributes()) == [[0, 1], [2]]


def test_groups(example):
    codes = _codes(example)
    sac = np.zeros(12, dtype=bool)
    sac[[1, 4, 7, 9]] = True
    grouping = group_records(codes, sac, 2)
    # 5 is rejected for 2 (same disease), 8 too (same job): {2, 10}, then {5, 8}.
    assert (grouping.groups + 1).tolist() == [[2, 10], [5, 8]]
    assert len(grouping.deleted) == 0


def test_sac_table(release):
    sac = release.tables["sac"]
    assert list(sac.columns) == ["age", "country", "group", *SA]
    assert sorted(sac["group"].unique().tolist()) == [1, 2]
    groups = [_records(g["age"]) for _, g in sac.groupby("group")]
    assert sorted(groups, key=min) == [{2, 10}, {5, 8}]
    # Disease and drug travel together (one cluster); job is permuted on its own.
    by_group = {frozenset(_records(g["age"])): g for _, g in sac.groupby("group")}
    first, second = by_group[frozenset({2, 10})], by_group[frozenset({5, 8})]
    assert set(zip(first["disease"], first["drug"], strict=True)) == {
        ("cold", "ibuprofen"),
        ("ulcer", "antacid"),
    }
    assert sorted(first["job"]) == ["clerk", "driver"]
    assert set(zip(second["disease"], second["drug"], strict=True)) == {
        ("cold", "ibuprofen"),
        ("ulcer", "antacid"),
    }
    assert sorted(second["job"]) == ["clerk", "nurse"]


def _sid_sets(release: Release, attribute: str) -> list[frozenset[str]]:
    idt = release.tables["idt"]
    idt = idt[idt["attribute"] == attribute]
    number = idt["sid"].str.split("#").str[-1].astype(int)
    return [frozenset(g["value"]) for _, g in idt.groupby(number, sort=True)]


# The IR records (1, 3, 4, 6, 7, 9, 11, 12) as Rating's SID creation takes them, each attribute's
# values in order of first appearance.
IR = [0, 2, 3, 5, 6, 8, 10, 11]


def _created(example: pd.DataFrame, attribute: str) -> tuple[list[frozenset[str]], dict]:
    """The SIDs Algorithm 19 creates on the IR records' values of ``attribute`` (as value
    sets, in creation order) and the occurrences it leaves without a SID, per value."""
    values = example[attribute].iloc[IR]
    order = list(dict.fromkeys(values))
    sids = create_sids([int((values == v).sum()) for v in order], 2)
    made = [frozenset(order[b] for b in sids.bucket[sids.sid == s]) for s in range(sids.n_sids)]
    return made, {v: int(n) for v, n in zip(order, sids.suppressed, strict=True) if n}


def test_sids_of_the_ir_records(example):
    # disease cold 2, gastritis 3, ulcer 3; drug aspirin 5, vitaminC 3 (aspirin dangerous:
    # three SIDs of both, two aspirin left); job driver 2, clerk 4, nurse 2.
    assert _created(example, "disease") == (
        [
            frozenset({"gastritis", "ulcer"}),
            frozenset({"gastritis", "ulcer"}),
            frozenset({"cold", "gastritis"}),
            frozenset({"cold", "ulcer"}),
        ],
        {},
    )
    assert _created(example, "drug") == ([frozenset({"aspirin", "vitaminC"})] * 3, {"aspirin": 2})
    assert _created(example, "job") == (
        [
            frozenset({"clerk", "driver"}),
            frozenset({"clerk", "nurse"}),
            frozenset({"clerk", "nurse"}),
            frozenset({"clerk", "driver"}),
        ],
        {},
    )


def test_sids(release):
    # Published as Rating's algorithm has it, the two aspirin occurrences no SID can take would
    # be '*', a class of aspirin alone: their records (4 and 12, drawn among aspirin's five)
    # are left out, and the SIDs made again on the six others (1, 3, 6, 7, 9, 11): disease
    # cold 2, gastritis 3 (dangerous), ulcer 1; drug aspirin 3, vitaminC 3; job driver 2,
    # clerk 3 (dangerous), nurse 1.
    assert Counter(_sid_sets(release, "disease")) == {
        frozenset({"cold", "gastritis"}): 2,
        frozenset({"gastritis", "ulcer"}): 1,
    }
    assert _sid_sets(release, "drug") == [frozenset({"aspirin", "vitaminC"})] * 3
    assert Counter(_sid_sets(release, "job")) == {
        frozenset({"clerk", "driver"}): 2,
        frozenset({"clerk", "nurse"}): 1,
    }


def test_attribute_table(release, example):
    at = release.tables["at"]
    assert list(at.columns) == ["age", "country", *SA]
    assert _records(at["age"]) == {1, 3, 6, 7, 9, 11}
    original = example.set_index("age").loc[at["age"].astype(int)]
    idt = release.tables["idt"]
    members = idt.groupby("sid")["value"].apply(set).to_dict()
    for s in SA:
        published = at[s].to_numpy()
        for sid, value in zip(published, original[s], strict=True):
            assert value in members[sid]
        # Every SID absorbs one occurrence of each of its values.
        assert Counter(published) == {k: 2 for k in members if k.startswith(s)}
    assert not (at[SA] == "*").any().any()


def test_metadata_and_measures(release):
    meta = release.metadata
    assert release.kind == "multi-sa"
    assert meta["method"] == "mixed_model"
    assert meta["sensitive"] == SA
    assert (meta["rows_in"], meta["rows_out"]) == (12, 10)
    assert meta["multisa"] == {
        "l": 2,
        "min_confidence": 0.75,
        "min_support": 1,
        "max_items": 2,
        "clusters": [["disease", "drug"], ["job"]],
        "deleted": 0,
        "deleted_by": {},
        "unplaced": {"disease": 0, "drug": 2, "job": 0},
        "strong_rules": 2,
        "pivot": "disease",
        "borrowed": 0,
    }
    sac, idt, at = release.tables["sac"], release.tables["idt"], release.tables["at"]
    # Lemma 22: both rules' confidences are read back from the release (no record of SAC left
    # out, and no IR record holds a rule).
    for x, y in (("ibuprofen", "cold"), ("antacid", "ulcer")):
        both = ((sac["drug"] == x) & (sac["disease"] == y)).sum()
        support = (sac["drug"] == x).sum() + (idt["value"] == x).sum()
        assert both / support == 1.0
    # AIL = 6 / 36: every SID has exactly l values, the two records left out lose their
    # three values each.
    sizes = idt.groupby("sid").size()
    enlarged = sum((sizes[v] - 2) / sizes[v] for s in SA for v in at[s].tolist())
    assert enlarged == 0
    assert ail(release) == pytest.approx((enlarged + 2 * 3) / (12 * 3)) == pytest.approx(6 / 36)
    # Disclosure: in each group one of the two cluster vectors holds the rule.
    for _, g in sac.groupby("group"):
        assert ((g["drug"] == "ibuprofen") & (g["disease"] == "cold")).sum() / len(g) == 0.5


def test_rating_of_the_example(example):
    rel = rating(example, SCHEMA, l=2, rng=0)
    assert len(rel.tables["sac"]) == 0
    assert list(rel.tables["sac"].columns) == ["age", "country", "group", *SA]
    assert len(rel.tables["at"]) == 12
    assert rel.metadata["method"] == "improved_rating"
    assert rel.metadata["multisa"]["clusters"] == [["disease"], ["drug"], ["job"]]
    assert rel.metadata["multisa"]["strong_rules"] is None
    # disease: cold 4, gastritis 3, ulcer 5 over 12 records, no value dangerous.
    assert Counter(_sid_sets(rel, "disease")) == {
        frozenset({"ulcer", "cold"}): 3,
        frozenset({"ulcer", "gastritis"}): 2,
        frozenset({"cold", "gastritis"}): 1,
    }


def test_algorithm_13_vector():
    # sizes before [A5, B4, C4, D4, E3], l = 3: A, B, C lose one -> [A4, B3, C3, D4, E3].
    assert heuristic_resort([4, 3, 3, 4, 3], 3).tolist() == [0, 3, 1, 2, 4]  # A4 D4 B3 C3 E3
    assert (
        heuristic_resort([4, 3, 3, 4, 3], 3).tolist()
        == np.argsort(-np.array([4, 3, 3, 4, 3]), kind="stable").tolist()
    )
    # In order already: nothing moves.
    assert heuristic_resort([4, 4, 3, 3, 3], 3).tolist() == [0, 1, 2, 3, 4]


def test_dangerous_bucket_vector():
    assert dangerous_buckets([2, 2, 2], 2).tolist() == [False, False, False]
    # After one SID from the first two buckets: [1, 1, 2] -> re-sorted [2, 1, 1], n = 4.
    order = heuristic_resort([1, 1, 2], 2)
    assert order.tolist() == [2, 0, 1]
    assert dangerous_buckets(np.array([1, 1, 2])[order], 2).tolist() == [True, False, False]
    # Largest-first still takes the bucket that became dangerous into every remaining SID.
    sids = create_sids([2, 2, 2], 2)
    assert [sids.bucket[sids.sid == s].tolist() for s in range(sids.n_sids)] == [
        [0, 1],
        [0, 2],
        [1, 2],
    ]
    assert sids.suppressed.tolist() == [0, 0, 0]


def test_dangerous_buckets_contribute_to_every_sid():
    # job in IR: driver 2, clerk 4, nurse 2 (n = 8, l = 2): clerk is dangerous from the start.
    assert dangerous_buckets([2, 4, 2], 2).tolist() == [False, True, False]
    sids = create_sids([2, 4, 2], 2)
    assert sids.n_sids == 4
    assert (np.bincount(sids.sid[sids.bucket == 1], minlength=4) == 1).all()
