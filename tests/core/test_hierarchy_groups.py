"""Categorical grouping without files: ``Hierarchy.from_groups`` and the schema's ``groups``
builder (YAML and Python), several levels, and every error as one line naming the column and the
offending value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microanon import Hierarchy, HierarchyError, Schema, SchemaError, Table

REGIONS = [
    {
        "New England": ["CT", "ME", "MA"],
        "Middle Atlantic": ["NJ", "NY", "PA"],
        "Pacific": ["CA", "OR", "WA"],
    },
    {"Northeast": ["New England", "Middle Atlantic"], "West": ["Pacific"]},
]

YAML = """\
state:
  role: quasi
  hierarchy:
    builder: groups
    levels:
      - New England: [CT, ME, MA]
        Middle Atlantic: [NJ, NY, PA]
        Pacific: [CA, OR, WA]
      - Northeast: [New England, Middle Atlantic]
        West: [Pacific]
disease: sensitive
"""


def test_from_groups_builds_every_level_with_the_implicit_root():
    h = Hierarchy.from_groups(REGIONS, name="state")
    assert h.n_leaves == 9 and h.height == 3 and h.root == "*"
    assert h.level_labels(1) == ["New England", "Middle Atlantic", "Pacific"]
    assert h.level_labels(2) == ["Northeast", "West"]
    assert h.generalize(["ME", "NY", "OR"], 1).tolist() == [
        "New England",
        "Middle Atlantic",
        "Pacific",
    ]
    assert h.generalize(["ME", "NY", "OR"], 2).tolist() == ["Northeast", "Northeast", "West"]
    assert h.generalize(["ME"], 3).tolist() == ["*"]


def test_one_mapping_is_one_level():
    h = Hierarchy.from_groups({"young": [18, 19, 20], "old": [70, 71]}, name="age")
    assert h.height == 2 and h.generalize([19, np.int64(70)], 1).tolist() == ["young", "old"]


def test_yaml_groups_with_several_levels(tmp_path):
    (tmp_path / "s.yaml").write_text(YAML, encoding="utf-8")
    schema = Schema.from_yaml(tmp_path / "s.yaml")
    df = pd.DataFrame({"state": ["CT", "NY", "CA", "CA"], "disease": ["a", "b", "a", "c"]})
    h = schema.resolve(df).hierarchy("state")
    assert h == Hierarchy.from_groups(REGIONS, name="state")
    assert h.n_leaves == 9  # the listed values the data lack are leaves too
    table = Table.from_frame(df, schema)
    assert table.recode({"state": 2}).to_frame()["state"].tolist() == [
        "Northeast",
        "Northeast",
        "West",
        "West",
    ]


def test_python_builder_description_and_the_one_level_shorthand():
    df = pd.DataFrame({"state": ["CT", "CA"]})
    levels = Schema.from_dict(
        {"state": {"role": "quasi", "hierarchy": {"builder": "groups", "levels": REGIONS}}}
    ).resolve(df)
    assert levels.hierarchy("state") == Hierarchy.from_groups(REGIONS)
    one = Schema.from_dict(
        {"state": {"role": "quasi", "hierarchy": {"groups": {"East": ["CT"], "West": ["CA"]}}}}
    ).resolve(df)
    assert one.hierarchy("state").level_labels(1) == ["East", "West"]
    same = Schema.from_dict(
        {
            "state": {
                "role": "quasi",
                "hierarchy": {"builder": "groups", "groups": {"East": ["CT"], "West": ["CA"]}},
            }
        }
    ).resolve(df)
    assert same.hierarchy("state") == one.hierarchy("state")


def test_groups_cover_the_declared_categories():
    spec = {
        "state": {
            "role": "quasi",
            "categories": ["CT", "CA", "PR"],
            "hierarchy": {"groups": {"East": ["CT"], "West": ["CA"]}},
        }
    }
    with pytest.raises(
        HierarchyError, match=r"^column 'state': value 'PR' is in no group of level 1$"
    ):
        Schema.from_dict(spec).resolve(pd.DataFrame({"state": ["CT"]}))


def _error(levels, values=None):
    with pytest.raises(HierarchyError) as info:
        Hierarchy.from_groups(levels, values=values, name="state")
    message = str(info.value)
    assert "\n" not in message and message.startswith("column 'state': ")
    return message


def test_a_value_in_two_groups():
    msg = _error({"East": ["CT", "NY"], "West": ["CA", "NY"]})
    assert msg == "column 'state': value 'NY' is in two groups of level 1, 'East' and 'West'"


def test_a_group_in_two_groups_of_the_next_level():
    msg = _error(
        [
            REGIONS[0],
            {
                "North": ["New England"],
                "East": ["New England", "Middle Atlantic"],
                "West": ["Pacific"],
            },
        ]
    )
    assert (
        msg == "column 'state': group 'New England' is in two groups of level 2, 'North' and 'East'"
    )


def test_an_unknown_member_at_level_2():
    msg = _error([REGIONS[0], {"Northeast": ["New England", "Mid Atlantic"], "West": ["Pacific"]}])
    assert msg.startswith(
        "column 'state': unknown member 'Mid Atlantic' of group 'Northeast' at level 2: "
        "not a group of level 1 ('New England', 'Middle Atlantic', 'Pacific')"
    )


def test_a_group_no_group_of_the_next_level_holds():
    msg = _error([REGIONS[0], {"Northeast": ["New England", "Middle Atlantic"]}])
    assert msg == "column 'state': group 'Pacific' of level 1 is in no group of level 2"


def test_a_value_of_the_data_in_no_group():
    assert (
        _error(REGIONS, values=["CT", "TX"])
        == "column 'state': value 'TX' is in no group of level 1"
    )
    # numpy values are shown as the numbers they hold
    msg = _error({"young": [18, 19]}, values=np.array([18, 98]))
    assert msg == "column 'state': value 98 is in no group of level 1"


def test_a_value_of_the_data_in_no_group_from_a_schema():
    spec = {"state": {"role": "quasi", "hierarchy": {"builder": "groups", "levels": REGIONS}}}
    df = pd.DataFrame({"state": ["CT", "TX"]})
    with pytest.raises(
        HierarchyError, match=r"^column 'state': value 'TX' is in no group of level 1$"
    ):
        Table.from_frame(df, Schema.from_dict(spec))


def test_missing_values_are_not_asked_to_be_in_a_group():
    h = Hierarchy.from_groups({"East": ["CT"]}, values=["CT", None, np.nan, pd.NA])
    assert h.leaves == ["CT"]


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ({"East": []}, "group 'East' of level 1 is empty"),
        ({"East": "CT"}, "group 'East' of level 1 must list its members, got str"),
        ({"*": ["CT"]}, "a group of level 1 is named '*', the implicit root's label"),
        ({1: ["a"], "1": ["b"]}, "level 1 names group '1' twice"),
        ([{"East": ["CT"]}, {}], "level 2 of the groups has no group"),
        ([], "groups must be a mapping of group name to members"),
        ("East", "groups must be a mapping of group name to members"),
    ],
)
def test_malformed_groups(levels, message):
    assert message in _error(levels)


def test_yaml_errors_name_the_column_when_the_schema_is_read(tmp_path):
    bad = YAML.replace("West: [Pacific]", "West: [Pacifc]")
    (tmp_path / "s.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(HierarchyError, match=r"^column 'state': unknown member 'Pacifc'"):
        Schema.from_yaml(tmp_path / "s.yaml")


@pytest.mark.parametrize(
    ("hierarchy", "message"),
    [
        ({"builder": "groups"}, "the groups builder needs 'levels'"),
        ({"builder": "groups", "levels": REGIONS, "groups": {}}, "not both"),
        ({"builder": "groups", "levels": REGIONS, "fanout": 2}, "does not take fanout"),
    ],
)
def test_groups_builder_descriptions_are_checked(hierarchy, message):
    with pytest.raises(SchemaError, match=message) as info:
        Schema.from_dict({"state": {"role": "quasi", "hierarchy": hierarchy}})
    assert str(info.value).startswith("column 'state': ")


@st.composite
def groupings(draw):
    """Random values grouped level by level: each level partitions the groups of the one below."""
    n = draw(st.integers(1, 30))
    values = [f"v{i}" for i in range(n)]
    levels = []
    members = values
    for depth in range(draw(st.integers(1, 4))):
        k = draw(st.integers(1, len(members)))
        which = draw(st.lists(st.integers(0, k - 1), min_size=len(members), max_size=len(members)))
        used = sorted(set(which))
        groups = {
            f"g{depth}_{g}": [m for m, w in zip(members, which, strict=True) if w == g]
            for g in used
        }
        levels.append(groups)
        members = list(groups)
    return values, levels


@given(groupings())
def test_random_groupings_build_hierarchies_whose_levels_are_the_groups(case):
    values, levels = case
    h = Hierarchy.from_groups(levels, values=values)
    assert sorted(h.leaves) == sorted(values) and h.height == len(levels) + 1
    # level i maps every value to the group the grouping puts it in, through every level below
    of = {v: v for v in values}
    for i, level in enumerate(levels, start=1):
        up = {m: g for g, ms in level.items() for m in ms}
        of = {v: up[g] for v, g in of.items()}
        assert h.generalize(values, i).tolist() == [of[v] for v in values]
        # each level is a partition coarser than the one below (consistent generalization)
        finer = h.level_codes(i - 1)
        coarser = h.level_codes(i)
        assert all(len(set(coarser[finer == c])) == 1 for c in np.unique(finer))
    assert set(h.generalize(values, h.height).tolist()) == {"*"}
