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
