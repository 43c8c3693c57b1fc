"""Every method family has the same shape in the applications (apps/families/<name>/), parallel
to its methods (methods/<name>/), and the report finds a release's family by its kind."""

from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd
import pytest

import microanon
from microanon.apps.families import FAMILIES, family_of
from microanon.core.release import RELEASE_KINDS, Release

SRC = Path(microanon.__file__).parent


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_family_has_the_common_shape(family):
    assert (SRC / "methods" / family.name / "__init__.py").is_file()
    assert (SRC / "apps" / "families" / family.name / "__init__.py").is_file()
    if family.kinds:
        report = family.module("report")
        for name in ("add_sections", "describe_column"):
            params = list(inspect.signature(getattr(report, name)).parameters)
            assert params[:2] == (
                ["report", "original"] if name == "add_sections" else ["release", "column"]
            )
        assert list(inspect.signature(report.add_sections).parameters) == [
            "report",
            "original",
            "release",
            "title",
            "schema",
            "verdicts",
            "tables",
        ]
    if family.demo:
        assert family.demo_sections()


def test_every_family_folder_is_registered():
    folders = {
        p.name for p in (SRC / "apps" / "families").iterdir() if (p / "__init__.py").exists()
    }
    assert folders == {f.name for f in FAMILIES}
    methods = {p.name for p in (SRC / "methods").iterdir() if (p / "__init__.py").exists()}
    assert methods == folders


def test_every_release_kind_has_exactly_one_family():
    kinds = [k for f in FAMILIES for k in f.kinds]
    assert sorted(kinds) == sorted(RELEASE_KINDS)
    assert family_of(Release("masked", {"data": pd.DataFrame()}, {})).name == "sdc"
    assert family_of(Release("anatomized", {"qit": pd.DataFrame(), "st": pd.DataFrame()}, {}))


def test_a_quasi_identifier_left_at_level_0_reads_not_generalized():
    # At level 0 the values are those of the file: "generalized to level 0 of 3" read as if
    # they had been changed (80 column lines of 12 real survey files said so).
    from microanon.apps.families.generalize.report import describe_column
    from microanon.methods.generalize.full_domain import apply_levels

    df = pd.DataFrame({"age": [23, 27, 31, 38, 44, 49] * 5, "sex": ["F", "M"] * 15})
    schema = {
        "age": {"role": "quasi", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
        "sex": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    }
    release = apply_levels(
        df, schema, models=[{"k_anonymity": {"k": 2}}], levels={"age": 1, "sex": 0}
    )
    assert describe_column(release, "sex").startswith("not generalized, level 0 of 1 (e.g. ")
    assert describe_column(release, "age").startswith("generalized to level 1 of 3 (e.g. [")
