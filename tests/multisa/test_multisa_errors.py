"""Bad input and the edge cases (too few distinct values, no strong rule, ...) of the multi-SA
methods."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InfeasibleError, InputError, SchemaError
from microanon.core.release import Release
from microanon.methods.multisa import (
    create_sids,
    dangerous_buckets,
    heuristic_resort,
    mixed_model,
    rating,
    strong_rules,
)

SCHEMA = {"age": "quasi", "disease": "sensitive", "drug": "sensitive", "job": "sensitive"}


@pytest.fixture()
def df() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [23, 31, 45, 52, 38, 29, 61, 47],
            "disease": ["flu", "flu", "ulcer", "ulcer", "cold", "cold", "flu", "ulcer"],
            "drug": ["a", "a", "b", "b", "c", "c", "d", "d"],
            "job": ["x", "y", "x", "y", "x", "y", "x", "y"],
        }
    )


@pytest.mark.parametrize("method", [mixed_model, rating])
@pytest.mark.parametrize("bad", [1, 0, -2, 2.5, True, "2", None, float("nan")])
def test_bad_l(df, method, bad):
    with pytest.raises(InputError, match="l"):
        method(df, SCHEMA, l=bad)


def test_mixed_model_takes_one_l(df):
    with pytest.raises(InputError, match="l"):
        mixed_model(df, SCHEMA, l={"disease": 2, "drug": 2, "job": 2})


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, float("nan"), True, "0.8", None])
def test_bad_min_confidence(df, bad):
    with pytest.raises(InputError, match="min_confidence"):
        mixed_model(df, SCHEMA, l=2, min_confidence=bad)
    with pytest.raises(InputError, match="min_confidence"):
        strong_rules(df, ["disease", "drug"], bad)


@pytest.mark.parametrize("method", [mixed_model, rating])
def test_bad_flags(df, method):
    with pytest.raises(InputError, match="allow_suppression"):
        method(df, SCHEMA, l=2, allow_suppression="yes")
    with pytest.raises(InputError, match="improved"):
        rating(df, SCHEMA, l=2, improved=1)


@pytest.mark.parametrize("method", [mixed_model, rating])
def test_schema_needs_two_sensitive_columns_and_a_quasi_identifier(df, method):
    with pytest.raises(SchemaError, match="two sensitive"):
        method(df, {"age": "quasi", "disease": "sensitive", "drug": "insensitive"}, l=2)
    with pytest.raises(SchemaError, match="quasi"):
        method(df, {"age": "insensitive", "disease": "sensitive", "drug": "sensitive"}, l=2)


@pytest.mark.parametrize("method", [mixed_model, rating])
def test_group_column_clash(df, method):
    clash = df.rename(columns={"age": "group"})
    with pytest.raises(InputError, match="group"):
        method(clash, {"group": "quasi", "disease": "sensitive", "drug": "sensitive"}, l=2)


@pytest.mark.parametrize("method", [mixed_model, rating])
def test_missing_values(df, method):
    df.loc[3, "drug"] = None
    with pytest.raises(InputError, match="drug"):
        method(df, SCHEMA, l=2)
    with pytest.raises(InputError, match="drug"):
        strong_rules(df, ["disease", "drug"])


def test_rating_l_per_attribute(df):
    rel = rating(df, SCHEMA, l={"disease": 2, "drug": 3, "job": 2}, rng=0)
    assert rel.metadata["multisa"]["l"] == {"disease": 2, "drug": 3, "job": 2}
    idt = rel.tables["idt"]
    assert idt[idt["attribute"] == "drug"].groupby("sid").size().min() >= 3
    assert idt[idt["attribute"] == "disease"].groupby("sid").size().min() >= 2
    with pytest.raises(InputError, match="'weight'"):
        rating(df, SCHEMA, l={"disease": 2, "drug": 2, "job": 2, "weight": 2})
    with pytest.raises(InputError, match="job"):
        rating(df, SCHEMA, l={"disease": 2, "drug": 2})
    with pytest.raises(InputError, match="drug"):
        rating(df, SCHEMA, l={"disease": 2, "drug": 1, "job": 2})


@pytest.mark.parametrize("method", [mixed_model, rating])
@pytest.mark.parametrize("allow", [True, False])
def test_l_above_the_domain(df, method, allow):
    """An l above a sensitive column's number of values is refused up front, as Anatomy refuses
    it, whatever allow_suppression says: with suppression allowed, both methods had published
    every job value as '*' (and the mixed model deleted whatever was in SAC)."""
    with pytest.raises(InfeasibleError) as refusal:
        method(df, SCHEMA, l=3, allow_suppression=allow, rng=0)
    assert str(refusal.value).startswith(
        "l = 3 is impossible for sensitive column 'job' (2 distinct values): every "
    )
    assert str(refusal.value).endswith("of it; lower l to 2 or less")
    with pytest.raises(InfeasibleError) as both:  # one l per column: each named with its own
        rating(df, SCHEMA, l={"disease": 4, "drug": 2, "job": 3}, allow_suppression=allow)
    assert str(both.value).startswith(
        "l is impossible for sensitive columns 'disease' (3 distinct values, l = 4) and 'job' "
        "(2 distinct values, l = 3): every SID"
    )


def test_value_above_n_over_l():
    df = pd.DataFrame({"age": range(8), "disease": list("aaaaabbc"), "drug": list("xyzwxyzw")})
    schema = {"age": "quasi", "disease": "sensitive", "drug": "sensitive"}
    with pytest.raises(InfeasibleError, match="'disease'.*'a'"):
        rating(df, schema, l=2, allow_suppression=False)
    # allowed, the two records whose 'a' no SID can take are left out (published as '*', as
    # Rating's algorithm has it, the two would be known to hold 'a'); the SIDs are made again
    # on the six others
    rel = rating(df, schema, l=2, rng=0)
    assert rel.metadata["multisa"]["unplaced"] == {"disease": 2, "drug": 0}
    assert rel.metadata["rows_out"] == len(rel.tables["at"]) == 6
    assert not (rel.tables["at"][["disease", "drug"]] == "*").any().any()


def test_deletion_needs_permission():
    # Every record holds a strong rule (x <-> a, y <-> b), so all are SAC and there is no IR;
    # the last two records are identical and cannot share a group.
    df = pd.DataFrame(
        {
            "age": range(6),
            "disease": ["a", "b", "a", "b", "a", "a"],
            "drug": ["x", "y", "x", "y", "x", "x"],
            "job": ["j", "k", "k", "j", "j", "j"],
        }
    )
    with pytest.raises(InfeasibleError, match="deleted.*'(disease|drug|job)'"):
        mixed_model(df, SCHEMA | {"age": "quasi"}, l=2, allow_suppression=False)
    rel = mixed_model(df, SCHEMA, l=2, rng=0)
    assert rel.metadata["multisa"]["deleted"] == 2
    assert len(rel.tables["sac"]) == 4 and len(rel.tables["at"]) == 0


def test_no_strong_rules_is_improved_rating():
    # Every combination once: each value co-occurs with each other value in half its records.
    combos = list(itertools.product(["flu", "ulcer"], ["a", "b"], ["x", "y"]))
    df = pd.DataFrame(combos, columns=["disease", "drug", "job"])
    df.insert(0, "age", range(len(df)))
    mixed = mixed_model(df, SCHEMA, l=2, min_confidence=0.6, rng=7)
    alone = rating(df, SCHEMA, l=2, rng=7)
    assert mixed.metadata["multisa"]["strong_rules"] == 0
    assert mixed.metadata["multisa"]["clusters"] == [["disease"], ["drug"], ["job"]]
    for name in ("sac", "at", "idt"):
        pd.testing.assert_frame_equal(mixed.tables[name], alone.tables[name])


def test_everything_in_sac_leaves_at_and_idt_empty(tmp_path):
    df = pd.DataFrame({"age": range(4), "disease": list("abab"), "drug": list("xyxy")})
    schema = {"age": "quasi", "disease": "sensitive", "drug": "sensitive"}
    rel = mixed_model(df, schema, l=2, rng=0)
    assert len(rel.tables["sac"]) == 4
    assert list(rel.tables["at"].columns) == ["age", "disease", "drug"]
    assert list(rel.tables["idt"].columns) == ["attribute", "sid", "value"]
    assert len(rel.tables["at"]) == len(rel.tables["idt"]) == 0
    back = Release.load(rel.save(tmp_path / "rel"))
    assert back.kind == "multi-sa"
    assert {k: len(v) for k, v in back.tables.items()} == {"sac": 4, "at": 0, "idt": 0}


def test_release_round_trip(df, tmp_path):
    schema = SCHEMA | {"age": {"role": "quasi", "kind": "numeric"}}
    rel = mixed_model(df, schema, l=2, min_confidence=0.5, rng=0)
    back = Release.load(rel.save(tmp_path / "rel"))
    assert back.equals(rel)


def test_strong_rules_input():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]})
    with pytest.raises(InputError, match="DataFrame"):
        strong_rules(df.to_dict(), ["a", "b"])
    with pytest.raises(InputError, match="at least two"):
        strong_rules(df, ["a"])
    with pytest.raises(InputError, match="more than once"):
        strong_rules(df, ["a", "a"])
    with pytest.raises(InputError, match="'c'"):
        strong_rules(df, ["a", "c"])
    with pytest.raises(InputError, match="empty"):
        strong_rules(df.iloc[:0], ["a", "b"])


def test_building_block_input():
    with pytest.raises(InputError, match="sizes"):
        create_sids([3, -1], 2)
    with pytest.raises(InputError, match="sizes"):
        create_sids([[1, 2]], 2)
    with pytest.raises(InputError, match="l"):
        create_sids([3, 3], 1)
    with pytest.raises(InputError, match="need"):
        heuristic_resort([3, 2], 3)
    with pytest.raises(InputError, match="l"):
        dangerous_buckets([3, 2], 0)
    assert create_sids([], 2).n_sids == 0
    assert create_sids(np.array([0, 0]), 2).suppressed.tolist() == [0, 0]


@pytest.mark.parametrize("allow", [True, False])
def test_l_above_a_real_column_s_values_is_refused_before_anything_is_published(allow):
    """TV16 (CCES 2016): the Trump vote has two values. At l = 3 Rating had published it as '*'
    in all 43,142 records, and the mixed model at min_confidence 0.95 had published 23,184
    records (deleting 19,958) with the vote '*' in every one; both refuse now, naming it."""
    from real_surveys import survey

    sensitive = ["votetrump", "ideo", "religimp", "churchatd"]
    data = survey("tv16")[["state", "age", *sensitive]].dropna()
    assert len(data) == 43_142 and data["votetrump"].nunique() == 2
    schema = {"state": "quasi", "age": {"role": "quasi", "kind": "numeric"}}
    schema |= dict.fromkeys(sensitive, "sensitive")
    head = "l = 3 is impossible for sensitive column 'votetrump' (2 distinct values): every "
    with pytest.raises(InfeasibleError) as refused:
        rating(data, schema, l=3, allow_suppression=allow, rng=1)
    assert str(refused.value) == head + (
        "SID needs l different values of its column, so no SID could take a value of it; "
        "lower l to 2 or less"
    )
    with pytest.raises(InfeasibleError) as refused:
        mixed_model(data, schema, l=3, min_confidence=0.95, allow_suppression=allow, rng=1)
    assert str(refused.value).startswith(head + "SAC group and every SID needs l")
    release = rating(data, schema, l=2, rng=1)  # two values: l = 2 publishes them
    assert len(release.tables["at"]) and (release.tables["at"]["votetrump"] != "*").all()


def test_every_sensitive_column_kept_empty_is_named_in_one_line():
    """GSS 2018's spending questions: 22 of the 26 answer columns init proposes sensitive miss
    some answers (kept empty by default). Rating refused the first alone ('partyid' has 33),
    so a data owner ran it 22 times to learn them; the line names every column and its count,
    and where the value ? can stand (a column with a hierarchy or of text)."""
    from real_surveys import survey

    data = survey("gss_spending").drop(columns=["id", "year"]).dropna(subset=["age", "educ"])
    sensitive = [c for c in data.columns if c not in ("age", "sex", "educ", "race", "rincom16")]
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in ("age", "sex", "educ", "race")}
    schema["rincom16"] = {"role": "identifier"}
    schema |= {c: {"role": "sensitive", "kind": "numeric", "missing": "keep"} for c in sensitive}
    missing = {c: int(n) for c, n in data[sensitive].isna().sum().items() if n}
    assert len(missing) == 22
    listed = ", ".join(f"'{c}' {n:,}" for c, n in missing.items())
    for method in (rating, mixed_model):
        with pytest.raises(InputError) as refused:
            method(data, schema, l=2, rng=1)
        assert str(refused.value) == (
            "22 columns have missing values (missing: keep), which this method cannot treat as "
            f"unknown: {listed}; set missing: drop for each (the rows are left out and counted)"
        )
    # as text, the value ? can stand for a missing answer: the line says so for that column
    text = data.assign(polviews=data["polviews"].map(lambda v: v if pd.isna(v) else f"p{v:g}"))
    schema["polviews"] = {"role": "sensitive", "missing": "keep"}
    with pytest.raises(
        InputError,
        match=r"counted\), or missing: value \(the value \?\) for "
        r"'polviews'$",
    ):
        rating(text, schema, l=2, rng=1)
    # dropped, the rows are left out and counted, and Rating publishes the rest
    schema |= {c: {**schema[c], "missing": "drop"} for c in missing}
    release = rating(data, schema, l=2, rng=1)
    unplaced = sum(release.metadata["multisa"]["unplaced"].values())
    kept = int(data[list(missing)].notna().all(axis=1).sum())
    assert len(release.tables["at"]) == kept - unplaced


@pytest.mark.parametrize("method", [mixed_model, rating])
def test_a_sensitive_column_of_one_value_is_given_another_role(df, method):
    """A sensitive column whose records all hold one value cannot be l-diverse for any l: the
    refusal says to give it another role, not to lower l (2 is the least)."""
    one = df.assign(job="clerk")
    with pytest.raises(InfeasibleError) as refusal:
        method(one, SCHEMA, l=2, rng=0)
    assert str(refusal.value).endswith(
        "; give 'job' another role (one value cannot be l-diverse: insensitive publishes it "
        "with its records)"
    )
    assert "lower l" not in str(refusal.value)
