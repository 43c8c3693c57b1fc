"""The bundled hierarchies of common classifications: each loads, covers what it claims, is
usable from a schema (YAML and Python) and listed (function, CLI, package README, docs)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microanon import Hierarchy, HierarchyError, Schema, SchemaError
from microanon.apps.cli import main
from microanon.core.bundled import BUNDLED_HIERARCHIES, list_hierarchies
from microanon.datasets import list_hierarchies as listed_by_datasets

DOCS = Path(__file__).resolve().parents[2] / "docs" / "schemas-and-hierarchies.md"

#: The 50 states and DC by postal code.
STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()


@pytest.mark.parametrize("name", list(BUNDLED_HIERARCHIES))
def test_every_bundled_hierarchy_loads_and_is_listed_as_it_is(name):
    h = Hierarchy.bundled(name, name="col")
    entry = next(d for d in list_hierarchies() if d["name"] == name)
    assert entry["leaves"] == h.n_leaves
    assert entry["levels"] == [len(h.level_labels(i)) for i in range(h.n_levels)]
    assert entry["source"] and entry["origin"] and entry["title"]
    assert h.root == "*" and h.name == "col"


def test_us_states_cover_the_50_states_and_dc_by_census_division_and_region():
    h = Hierarchy.bundled("us-states")
    assert sorted(h.leaves) == sorted(STATES) and len(STATES) == 51
    assert len(h.level_labels(1)) == 9
    assert h.level_labels(2) == ["Northeast", "Midwest", "South", "West"]
    assert h.generalize(["CA", "DC", "TX", "IL", "VT"], 1).tolist() == [
        "Pacific",
        "South Atlantic",
        "West South Central",
        "East North Central",
        "New England",
    ]
    assert h.generalize(["CA", "DC", "TX", "IL", "VT"], 2).tolist() == [
        "West",
        "South",
        "South",
        "Midwest",
        "Northeast",
    ]


def test_us_state_names_group_exactly_as_the_codes():
    codes, names = Hierarchy.bundled("us-states"), Hierarchy.bundled("us-state-names")
    assert names.n_leaves == 51 and "District of Columbia" in names.leaves
    assert names.generalize(["California", "New York"], 1).tolist() == [
        "Pacific",
        "Middle Atlantic",
    ]
    # leaf i of one is leaf i of the other (same file, same order): same groups at every level
    for level in (1, 2):
        assert (
            codes.generalize(codes.leaves, level).tolist()
            == names.generalize(names.leaves, level).tolist()
        )


def test_countries_in_three_codings_share_the_m49_grouping():
    a2, a3 = Hierarchy.bundled("countries"), Hierarchy.bundled("countries-alpha3")
    names = Hierarchy.bundled("country-names")
    assert a2.n_leaves == a3.n_leaves == names.n_leaves == 249
    assert all(len(c) == 2 for c in a2.leaves) and all(len(c) == 3 for c in a3.leaves)
    assert a2.level_labels(2) == ["Africa", "Americas", "Asia", "Europe", "Oceania", "Antarctica"]
    cases = {
        "US": ("USA", "Northern America", "Americas"),
        "BR": ("BRA", "South America", "Americas"),
        "MX": ("MEX", "Central America", "Americas"),
        "FR": ("FRA", "Western Europe", "Europe"),
        "NG": ("NGA", "Western Africa", "Africa"),
        "EG": ("EGY", "Northern Africa", "Africa"),
        "JP": ("JPN", "Eastern Asia", "Asia"),
        "IN": ("IND", "Southern Asia", "Asia"),
        "AU": ("AUS", "Australia and New Zealand", "Oceania"),
    }
    for code, (alpha3, sub, region) in cases.items():
        assert a2.generalize([code], 1)[0] == a3.generalize([alpha3], 1)[0] == sub
        assert a2.generalize([code], 2)[0] == region
    for level in (1, 2):
        assert a2.generalize(a2.leaves, level).tolist() == a3.generalize(a3.leaves, level).tolist()


def test_isco_08_sub_major_groups_fall_in_the_major_group_of_their_first_digit():
    h = Hierarchy.bundled("isco-08")
    assert h.n_leaves == 43 and len(h.level_labels(1)) == 10
    for code, major in zip(h.leaves, h.generalize(h.leaves, 1), strict=True):
        assert major.startswith(code[0] + " ")
    assert h.generalize(["22"], 1).tolist() == ["2 Professionals"]


def test_isced_2011_levels_match_as_numbers_or_text():
    h = Hierarchy.bundled("isced-2011")
    assert h.n_leaves == 9
    assert h.generalize([0, "4", 5.0, 8], 1).tolist() == [
        "Levels 0-2: less than primary, primary and lower secondary",
        "Levels 3-4: upper secondary and post-secondary non-tertiary",
        "Levels 5-8: tertiary",
        "Levels 5-8: tertiary",
    ]


def test_age_bands():
    h = Hierarchy.bundled("age-bands")
    assert h.leaves == list(range(121))
    assert [h.generalize([37], level)[0] for level in (1, 2, 3)] == [
        "[35, 40)",
        "[30, 40)",
        "[20, 40)",
    ]
    with pytest.raises(HierarchyError, match=r"^column 'age': value 130 is outside"):
        Hierarchy.bundled("age-bands", values=[30, 130], name="age")


def test_a_value_outside_a_bundled_hierarchy_is_one_line_naming_column_value_and_hierarchy():
    with pytest.raises(HierarchyError) as info:
        Hierarchy.bundled("us-states", values=["CA", "PR"], name="state")
    assert str(info.value) == (
        "column 'state': value 'PR' is not in the bundled hierarchy 'us-states' "
        "(US state postal codes and DC)"
    )


def test_an_unknown_bundled_name_lists_the_names():
    with pytest.raises(
        HierarchyError, match=r"^column 'state': unknown bundled hierarchy 'states'"
    ):
        Hierarchy.bundled("states", name="state")


def test_bundled_from_yaml(tmp_path):
    (tmp_path / "s.yaml").write_text(
        "schema:\n"
        "  state: {role: quasi, hierarchy: {builder: bundled, name: us-states}}\n"
        "  country: {role: quasi, hierarchy: {builder: bundled, name: countries-alpha3}}\n",
        encoding="utf-8",
    )
    schema = Schema.from_yaml(tmp_path / "s.yaml")
    df = pd.DataFrame({"state": ["NY", "CA"], "country": ["USA", "DEU"]})
    resolved = schema.resolve(df)
    assert resolved.hierarchy("state") == Hierarchy.bundled("us-states", name="state")
    assert resolved.hierarchy("country").generalize(["DEU"], 2).tolist() == ["Europe"]
    with pytest.raises(HierarchyError, match="value 'XX' is not in the bundled hierarchy"):
        schema.resolve(pd.DataFrame({"state": ["NY", "XX"], "country": ["USA", "USA"]}))


@pytest.mark.parametrize(
    ("hierarchy", "error", "message"),
    [
        ({"builder": "bundled"}, SchemaError, "the bundled builder needs 'name'"),
        (
            {"builder": "bundled", "name": "nope"},
            HierarchyError,
            "unknown bundled hierarchy 'nope'",
        ),
        ({"builder": "bundled", "name": "us-states", "x": 1}, SchemaError, "does not take x"),
    ],
)
def test_bundled_builder_descriptions_are_checked_when_the_schema_is_read(
    hierarchy, error, message
):
    with pytest.raises(error, match=message) as info:
        Schema.from_dict({"state": {"role": "quasi", "hierarchy": hierarchy}})
    assert str(info.value).startswith("column 'state': ")


def test_the_datasets_package_lists_the_same():
    assert listed_by_datasets() == list_hierarchies()


def test_cli_lists_the_bundled_hierarchies():
    text = CliRunner().invoke(main, ["datasets", "hierarchies"])
    assert text.exit_code == 0
    for name in BUNDLED_HIERARCHIES:
        assert name in text.output
    as_json = CliRunner().invoke(main, ["datasets", "hierarchies", "--json"])
    assert json.loads(as_json.output) == {"hierarchies": list_hierarchies()}


def test_the_package_readme_and_the_docs_name_every_bundled_hierarchy_and_its_source():
    readme = (
        resources.files("microanon.core").joinpath("hierarchy_data", "README.md").read_text("utf-8")
    )
    docs = DOCS.read_text(encoding="utf-8")
    for name in BUNDLED_HIERARCHIES:
        assert f"`{name}`" in readme and f"`{name}`" in docs
    for source in ("U.S. Census Bureau", "M49", "ISO 3166-1", "ISCO-08", "ISCED 2011"):
        assert source in readme and source in docs
