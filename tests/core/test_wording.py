"""Counts in sentences: one record, several records (:func:`microanon.core.wording.how_many`),
and the summary line of a release that suppressed one record (Stat2Data's ``Titanic``, where
it said "1 records suppressed")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.release_summary import column_actions
from microanon.core.schema import Schema
from microanon.core.wording import how_many
from microanon.methods.generalize import full_domain


@given(st.integers(min_value=0, max_value=10**9))
def test_one_is_singular_every_other_count_plural(n):
    assert how_many(n, "record") == f"{n:,} record" + ("" if n == 1 else "s")
    assert how_many(n, "person", "people").endswith("person" if n == 1 else "people")


def test_a_release_that_suppressed_one_record_says_one_record():
    data = rdataset("Stat2Data", "Titanic")[["PClass", "Age", "Sex", "Survived"]]
    data = data.replace({"PClass": {"*": None}})  # (one passenger's class, written *)
    schema = {
        "PClass": {"role": "quasi", "hierarchy": {"builder": "masking"}, "missing": "value"},
        "Age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "quantiles", "bins": [16, 4, 2]},
            "missing": "value",
        },
        "Sex": {"role": "quasi", "hierarchy": {"builder": "masking"}},
        "Survived": {"role": "sensitive", "kind": "numeric"},
    }
    release = full_domain(
        data,
        schema,
        models=[{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2, "form": "distinct"}}],
        suppression=0.05,
    )
    lines = column_actions(release, Schema.from_dict(schema), None, data)
    (records,) = lines.loc[lines["column"] == "(records)", "done"]
    suppressed = release.metadata["row_counts"]["suppressed"]
    assert records == how_many(suppressed, "record") + " suppressed (removed)"
    assert suppressed == 1 and records == "1 record suppressed (removed)"
