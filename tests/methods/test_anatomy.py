"""Anatomy (Xiao & Tao, VLDB 2006): worked examples, eligibility, errors and the Adult run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core import Release
from microanon.core.errors import InfeasibleError, InputError, SchemaError
from microanon.datasets import adult_schema, load_adult
from microanon.measures.estimators import reconstruction_error
from microanon.methods.generalize import anatomy
from microanon.models import l_diversity

SCHEMA = {"zip": "quasi", "age": {"role": "quasi", "kind": "numeric"}, "disease": "sensitive"}


def frame(diseases: list[str]) -> pd.DataFrame:
    n = len(diseases)
    return pd.DataFrame(
        {
            "zip": [f"1300{i}" for i in range(n)],
            "age": [20 + i for i in range(n)],
            "disease": diseases,
        }
    )


def st_groups(release: Release) -> list[list[str]]:
    """Sensitive values of every ST group (group order dropped, values sorted)."""
    st = release.tables["st"]
    return sorted(sorted(g["disease"].tolist()) for _, g in st.groupby("group"))


def expanded_st(release: Release, sensitive: str) -> pd.DataFrame:
    st = release.tables["st"]
    return st.loc[st.index.repeat(st["count"]), ["group", sensitive]].reset_index(drop=True)


# ------------------------------------------------------------------------------ worked examples
def test_l2_two_values_pair_up():
    rel = anatomy(frame(["flu", "cold", "flu", "cold"]), SCHEMA, l=2, rng=1)
    assert rel.kind == "anatomized"
    assert st_groups(rel) == [["cold", "flu"], ["cold", "flu"]]
    st = rel.tables["st"]
    assert list(st.columns) == ["group", "disease", "count"]
    assert st["count"].tolist() == [1, 1, 1, 1]
    assert sorted(st["group"].unique().tolist()) == [1, 2]
    qit = rel.tables["qit"]
    assert list(qit.columns) == ["zip", "age", "group"]
    assert sorted(qit["zip"]) == [f"1300{i}" for i in range(4)]
    assert qit["group"].value_counts().tolist() == [2, 2]


def test_l3_with_residue_two_groups_of_four():
    # n = 8, l = 3: g = 2 groups, residue r = 2. Buckets laid out largest first
    # (a a b b c c d e); position p joins group p mod 2.
    rel = anatomy(frame(list("aabbccde")), {**SCHEMA}, l=3, rng=7)
    assert st_groups(rel) == [list("abcd"), list("abce")]
    assert rel.metadata["groups"] == 2
    assert rel.metadata["l"] == 3


def test_l3_single_residue_goes_to_a_group_without_its_value():
    rel = anatomy(frame(list("aabbccd")), SCHEMA, l=3, rng=3)
    assert st_groups(rel) == [list("abc"), list("abcd")]


@pytest.mark.parametrize("seed", range(5))
def test_groups_of_the_worked_examples_are_frequency_l_diverse(seed):
    for diseases, ell in [(list("aabbccde"), 3), (list("aaabbbcccdd"), 3), (list("abab"), 2)]:
        rel = anatomy(frame(diseases), SCHEMA, l=ell, rng=seed)
        check = l_diversity(
            expanded_st(rel, "disease"), ["group"], "disease", l=ell, form="frequency"
        )
        assert check.holds


def test_qit_and_st_agree_on_group_sizes():
    rel = anatomy(frame(list("aaabbbcccdd")), SCHEMA, l=3, rng=0)
    qit_sizes = rel.tables["qit"]["group"].value_counts().sort_index()
    st_sizes = rel.tables["st"].groupby("group")["count"].sum().sort_index()
    assert qit_sizes.tolist() == st_sizes.tolist()
    assert sorted(qit_sizes.tolist()) == [3, 4, 4]  # n = 11, l = 3: g = 3, residue r = 2


def test_metadata_and_claimed_model():
    rel = anatomy(frame(list("aabbcc")), SCHEMA, l=3, rng=0)
    meta = rel.metadata
    assert meta["method"] == "anatomy"
    assert meta["parameters"] == {"l": 3}
    assert meta["rows_in"] == meta["rows_out"] == 6
    assert meta["groups"] == 2
    assert meta["sensitive"] == ["disease"]
    assert meta["models"] == [{"l_diversity": {"l": 3, "form": "frequency"}}]
    assert not {"seed", "rng"} & set(meta)


def test_insensitive_columns_are_published_in_the_qit():
    df = frame(list("aabb")).assign(weight=[50, 60, 70, 80])
    rel = anatomy(df, {**SCHEMA, "weight": {"role": "insensitive", "kind": "numeric"}}, l=2, rng=0)
    assert list(rel.tables["qit"].columns) == ["zip", "age", "weight", "group"]
    assert sorted(rel.tables["qit"]["weight"]) == [50, 60, 70, 80]


def test_same_generator_same_release_and_round_trip(tmp_path):
    df = frame(list("aaabbbcccdd"))
    a = anatomy(df, SCHEMA, l=2, rng=np.random.default_rng(5))
    b = anatomy(df, SCHEMA, l=2, rng=np.random.default_rng(5))
    assert a.equals(b)
    back = Release.load(a.save(tmp_path / "anatomy"))
    assert back.equals(a)


def test_rce_by_hand():
    # Groups of l distinct values with one record each lose (l - 1)/l per record: RCE = n - g.
    rel = anatomy(frame(list("aabbccde")), SCHEMA, l=3, rng=0)
    assert reconstruction_error(rel) == pytest.approx(8 - 2)


# ------------------------------------------------------------------------------ eligibility
def test_too_frequent_value_is_infeasible_and_named():
    with pytest.raises(InfeasibleError, match=r"'a'.*3 of 5"):
        anatomy(frame(list("aaabc")), SCHEMA, l=2, rng=0)


def test_infeasible_l_says_the_largest_l_that_works():
    # 'a' in 2 of 7 records allows l = 3 (2 * 3 <= 7), not 4; the refusal names 3 and it runs.
    with pytest.raises(InfeasibleError, match=r"2 of 7 .*; lower l to 3 or less$"):
        anatomy(frame(list("aabbccd")), SCHEMA, l=4, rng=0)
    assert anatomy(frame(list("aabbccd")), SCHEMA, l=3, rng=0).metadata["l"] == 3
    with pytest.raises(InfeasibleError, match=r"only 2 distinct .*; lower l to 2 or less$"):
        anatomy(frame(list("abab")), SCHEMA, l=3, rng=0)


def test_no_l_possible_names_no_lower_l():
    """A value in more than half the records (a test result 'negative' in 14,358 of 15,524
    records) leaves no l >= 2, the smallest Anatomy takes: the refusal advised lowering l or
    merging values, and merging only makes a value more frequent."""
    with pytest.raises(InfeasibleError) as refusal:
        anatomy(frame(list("aaabc")), SCHEMA, l=2, rng=0)
    assert "lower l" not in str(refusal.value) and "merge" not in str(refusal.value)
    assert str(refusal.value).endswith(
        "no l of 2 or more is possible for this column (Anatomy needs every sensitive value in "
        "at most 1/l of the records): give another column the sensitive role, or use full_domain "
        "or mondrian with the model l_diversity: {l: 2}"
    )
    with pytest.raises(InfeasibleError, match="; give another column the sensitive role$"):
        anatomy(frame(list("aaaa")), SCHEMA, l=2, rng=0)


def test_l_above_distinct_values_is_infeasible():
    with pytest.raises(InfeasibleError, match="only 2 distinct"):
        anatomy(frame(list("abab")), SCHEMA, l=3, rng=0)


def test_boundary_eligible_table_works():
    # 'a' in exactly n/l records is allowed.
    rel = anatomy(frame(list("aaabbc")), SCHEMA, l=2, rng=0)
    assert st_groups(rel) == [["a", "b"], ["a", "b"], ["a", "c"]]


@pytest.mark.parametrize("bad", [1, 0, 2.5, "2", True, None])
def test_bad_l(bad):
    with pytest.raises(InputError, match="l"):
        anatomy(frame(list("abab")), SCHEMA, l=bad, rng=0)


def test_needs_exactly_one_sensitive_column():
    with pytest.raises(SchemaError, match="exactly one sensitive"):
        anatomy(
            frame(list("abab")), {"zip": "quasi", "age": "quasi", "disease": "insensitive"}, l=2
        )
    df = frame(list("abab")).assign(other=list("xyxy"))
    with pytest.raises(SchemaError, match="found 2"):
        anatomy(df, {**SCHEMA, "other": "sensitive"}, l=2)


def test_needs_a_quasi_identifier():
    with pytest.raises(SchemaError, match="no quasi-identifier"):
        anatomy(frame(list("abab")), {"disease": "sensitive"}, l=2)


def test_group_column_name_clash():
    df = frame(list("abab")).rename(columns={"zip": "group"})
    with pytest.raises(InputError, match="'group'"):
        anatomy(df, {"group": "quasi", "age": "quasi", "disease": "sensitive"}, l=2)


def test_bad_rng():
    with pytest.raises(InputError, match="rng"):
        anatomy(frame(list("abab")), SCHEMA, l=2, rng=1.5)


# ------------------------------------------------------------------------------ Adult
def test_adult_occupation_l3_is_diverse():
    df = load_adult()
    schema = adult_schema(sensitive="occupation")
    rel = anatomy(df, schema, l=3, rng=0)
    n = len(df)
    assert len(rel.tables["qit"]) == n == rel.metadata["rows_out"]
    assert rel.metadata["groups"] == n // 3
    assert l_diversity(
        expanded_st(rel, "occupation"), ["group"], "occupation", l=3, form="frequency"
    ).holds
    counts = rel.tables["st"].groupby("occupation")["count"].sum()
    assert counts.sort_index().tolist() == df["occupation"].value_counts().sort_index().tolist()
    assert reconstruction_error(rel) == pytest.approx(n - n // 3)


@pytest.mark.parametrize("method", ["anatomy", "distribution"])
def test_the_sensitive_columns_are_counted_before_their_missing_answers(method):
    """The GSS 2018 spending items (missing for 22-262 of 2,348): two of them sensitive are
    refused for their number first, with the ways on, not first for their missing answers
    (whose remedy would only lead to this refusal); none sensitive says which role to give."""
    from real_surveys import survey

    from microanon.methods.distribution import distribution_anonymize

    run = {
        "anatomy": lambda df, schema: anatomy(df, schema, l=2, rng=0),
        "distribution": lambda df, schema: distribution_anonymize(df, schema, rng=0),
    }[method]
    df = survey("gss_spending")[["sex", "race", "natheal", "natcity"]]
    two = {"sex": "quasi", "race": "quasi", "natheal": "sensitive", "natcity": "sensitive"}
    with pytest.raises(SchemaError, match=r"found 2 \(natheal, natcity\); give the others role"):
        run(df, two)
    none = {"sex": "quasi", "race": "quasi", "natheal": "insensitive"}
    with pytest.raises(SchemaError, match="found none; give the column"):
        run(df[["sex", "race", "natheal"]], none)
