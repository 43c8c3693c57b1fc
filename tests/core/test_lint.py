"""The schema lint: identifiers, dependencies on quasi-identifiers, columns without a role."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import InputError, lint_schema
from microanon.core.lint import dependency_accuracy
from microanon.datasets import adult_schema, load_adult


@pytest.fixture(scope="module")
def adult():
    return load_adult("train")


def test_the_tour_schema_publishes_nothing_linkable(adult):
    report = lint_schema(adult, adult_schema(sensitive="occupation"))
    assert report.ok and report.findings == []


def test_the_old_tour_schema_is_caught(adult):
    """What adult_schema published unchanged before: education_num, fnlwgt, relationship."""
    schema = adult_schema(
        sensitive="occupation", published=["fnlwgt", "education_num", "relationship"]
    )
    report = lint_schema(adult, schema)
    kinds = {(f.column, f.kind) for f in report.findings}
    assert ("education_num", "determines_quasi") in kinds
    assert ("fnlwgt", "near_unique") in kinds
    assert any(c == "relationship" for c, _ in kinds)
    exact = next(f for f in report.findings if f.column == "education_num")
    assert exact.related == ("education",) and exact.strength == 1.0 and "exactly" in exact.evidence
    assert set(report.linkable) == {"education_num", "relationship"}
    with pytest.raises(InputError, match="education_num"):
        report.raise_if_blocking()


def test_accepting_a_finding(adult):
    schema = adult_schema(sensitive="occupation", published=["education_num"])
    report = lint_schema(adult, schema, accept={"education_num": ["determines_quasi"]})
    assert report.ok and report.linkable == ["education_num"]
    with pytest.raises(InputError, match="unknown finding kind"):
        lint_schema(adult, schema, accept={"education_num": ["harmless"]})
    with pytest.raises(InputError, match="not in the data"):
        lint_schema(adult, schema, accept={"zip": ["near_unique"]})


def test_columns_without_a_role_and_identifiers():
    df = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(40)],
            "age": np.arange(40) % 5,
            "note": ["x"] * 40,
            "disease": ["a", "b"] * 20,
        }
    )
    report = lint_schema(df, {"age": "quasi", "disease": "sensitive", "note": "insensitive"})
    (finding,) = report.findings
    assert finding.column == "id" and finding.kind == "no_role"
    assert "likely an identifier" in finding.evidence
    clean = lint_schema(
        df, {"id": "identifier", "age": "quasi", "disease": "sensitive", "note": "insensitive"}
    )
    assert clean.ok


def test_small_groups_are_not_evidence():
    """A near-unique determinant 'predicts' anything in-sample; leave-one-out does not."""
    rng = np.random.default_rng(0)
    target = rng.integers(0, 3, 500)
    unique_det = np.arange(500)
    assert dependency_accuracy(unique_det, target, 3) == 0.0
    assert dependency_accuracy(target.copy(), target, 3) == 1.0


def _loo_reference(det, target):
    """Plain leave-one-out majority prediction, one record at a time."""
    hits = 0
    for i in range(len(target)):
        others = [target[j] for j in range(len(target)) if j != i and det[j] == det[i]]
        if not others:
            continue
        values, counts = np.unique(others, return_counts=True)
        best = counts.max()
        if (counts == best).sum() == 1 and values[counts.argmax()] == target[i]:
            hits += 1
    return hits / len(target)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=30))
def test_dependency_accuracy_matches_the_plain_definition(pairs):
    det = np.array([d for d, _ in pairs])
    target = np.array([t for _, t in pairs])
    assert dependency_accuracy(det, target, 3) == pytest.approx(_loo_reference(det, target))


def _xor_table(n: int = 400) -> pd.DataFrame:
    """``r`` is ``a`` xor ``b``: neither quasi-identifier predicts it, the pair does exactly."""
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    ids = [f"p{i}" for i in range(n)]
    return pd.DataFrame({"a": a, "b": b, "r": a ^ b, "note": ["x"] * n, "id": ids})


def test_the_dependency_scan_is_bounded_and_says_what_it_left_out():
    """Above its budget the scan tests single quasi-identifiers only, then nothing, and the
    report says so in one line; constant columns cost nothing, near-unique ones are still found.
    Two quasi-identifiers and one tested column on 400 rows (each test counted as 2,000 rows):
    10,000 row-tests in full, 8,000 for single quasi-identifiers."""
    df = _xor_table()
    roles = {"a": "quasi", "b": "quasi", "r": "insensitive", "note": "insensitive",
             "id": "insensitive"}  # fmt: skip
    full = lint_schema(df, roles, budget=10_000)
    assert full.limited is None and full.to_dict()["limited"] is None
    (pair,) = [f for f in full.findings if f.column == "r"]
    assert pair.kind == "determined_by_quasi" and pair.related == ("a", "b")
    singles = lint_schema(df, roles, budget=9_999)
    assert [f.column for f in singles.findings] == ["id"]  # near_unique, found without the scan
    assert singles.limited.startswith("dependency scan limited: testing 1 insensitive column(s)")
    assert "budget of 9,999 row-tests" in singles.limited and "\n" not in singles.limited
    assert "only single quasi-identifiers" in singles.to_dict()["limited"]
    skipped = lint_schema(df, roles, budget=7_999)
    assert [f.column for f in skipped.findings] == ["id"]
    assert skipped.limited.startswith("dependency scan skipped:")
    assert "determines_quasi and determined_by_quasi were not checked" in skipped.limited
    with pytest.raises(InputError, match="budget must be at least 1"):
        lint_schema(df, roles, budget=0)
