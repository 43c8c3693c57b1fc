"""The small survey of the collection family's worked examples, shared by its tests."""

from __future__ import annotations

import pytest

from microanon.core.hierarchy import Hierarchy
from microanon.methods.collect import Survey


@pytest.fixture(scope="module")
def survey() -> Survey:
    age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}})
    disease = Hierarchy.from_nested(
        {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
    )
    return Survey({"age": age, "disease": disease}, quasi=["age"], sensitive="disease")
