"""The distribution-based release: Figure 2 as a release, groupings, partitions, fakes, metadata,
bad input, and every release P-private (checker) and covering its groups (Definition 3.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paper_tables import employees

from microanon import InputError, Release, SchemaError
from microanon.datasets import load_adult
from microanon.methods.distribution import distribution_anonymize
from microanon.models import check_release
from microanon.models.p_privacy import covers, p_privacy

EMPLOYEES = employees()
SCHEMA = {"zipcode": "quasi", "gender": "quasi", "salary": "sensitive"}
BY_PREFIX = {"column": "zipcode", "prefix": 3}


def group_entries(release: Release) -> dict[str, list[tuple[int, int, int]]]:
    """Entries of each published group, keyed by the group's zipcode prefix."""
    qit, st_ = release.tables["qit"], release.tables["st"]
    prefix = qit.groupby("group")["zipcode"].first().str[:3]
    return {
        prefix[g]: sorted(map(tuple, rows[["low", "high", "count"]].to_numpy().tolist()))
        for g, rows in st_.groupby("group")
    }


def test_figure2_release():
    rel = distribution_anonymize(EMPLOYEES, SCHEMA, target="uniform", groups=BY_PREFIX, rng=1)
    assert rel.kind == "distribution"
    assert group_entries(rel) == {
        "911": [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)],
        "912": [(30, 40, 1), (30, 60, 1), (50, 60, 1)],
        "913": [(30, 40, 1), (30, 60, 2), (50, 60, 1)],
    }
    meta = rel.metadata["distribution"]
    assert meta["sum_of_ranges"] == 130 and meta["fakes"] == 0 and meta["groups"] == 3
    assert rel.metadata["models"] == [{"p_privacy": {}}]
    assert list(rel.tables["qit"].columns) == ["zipcode", "gender", "group"]
    assert all(v.holds for v in check_release(rel))
    assert p_privacy(rel).holds


def test_one_fake_makes_group_912_exact():
    rel = distribution_anonymize(
        EMPLOYEES, SCHEMA, target="uniform", groups=BY_PREFIX, fakes=1, rng=2
    )
    assert group_entries(rel)["912"] == [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)]
    assert rel.metadata["distribution"]["fakes"] == 2  # one for 912, one for 913
    assert p_privacy(rel).holds


def test_qi_sa_subgroups_do_not_straddle_groups():
    rel = distribution_anonymize(
        EMPLOYEES, SCHEMA, target="uniform", groups=BY_PREFIX, partition="qi_sa",
        subgroup_by=["gender"], rng=3,
    )  # fmt: skip
    qit = rel.tables["qit"]
    keys = qit.assign(prefix=qit["zipcode"].str[:3]).groupby("group")[["prefix", "gender"]]
    assert (keys.nunique() == 1).all().all()
    assert rel.metadata["distribution"]["groups"] == 5
    assert p_privacy(rel).holds


def test_groupings_by_column_labels_and_mondrian():
    rel = distribution_anonymize(EMPLOYEES, SCHEMA, target="uniform", groups="gender", rng=0)
    assert rel.metadata["distribution"]["groups"] == 2
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    rel = distribution_anonymize(EMPLOYEES, SCHEMA, target="uniform", groups=labels, rng=0)
    assert rel.metadata["distribution"]["groups"] == 3
    data = load_adult().loc[:2999, ["age", "hours_per_week"]]
    schema = {
        "age": {"role": "quasi", "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40, 80]}},
        "hours_per_week": "sensitive",
    }  # fmt: skip
    rel = distribution_anonymize(
        data, schema, target="uniform", groups={"mondrian": {"k": 200}}, rng=0
    )
    qit = rel.tables["qit"]
    assert qit.groupby("group").size().min() >= 200
    assert p_privacy(rel).holds


def test_per_group_hierarchies_and_integer_domain():
    rel = distribution_anonymize(
        EMPLOYEES, SCHEMA, target="uniform", groups=BY_PREFIX, per_group=True, rng=0
    )
    meta = rel.metadata["distribution"]
    assert len(meta["hierarchies"]) == 3 and sorted(meta["group_hierarchy"]) == [0, 1, 2]
    assert p_privacy(rel).holds
    rel = distribution_anonymize(
        EMPLOYEES, SCHEMA, target={"normal": {"variance": 100}}, domain=(25, 65), scale=50,
        rng=0,
    )  # fmt: skip
    h = rel.metadata["distribution"]["hierarchies"][0]
    assert h["values"][0] == 25 and h["values"][-1] == 65 and h["scale"] == 50
    assert p_privacy(rel).holds


def test_save_load_round_trip_and_no_seed(tmp_path):
    rel = distribution_anonymize(EMPLOYEES, SCHEMA, target="uniform", groups=BY_PREFIX, rng=5)
    rel.save(tmp_path / "r")
    back = Release.load(tmp_path / "r")
    assert back.equals(rel) and p_privacy(back).holds
    assert "seed" not in (tmp_path / "r" / "public" / "release.json").read_text()


def test_rows_are_shuffled_and_groups_relabelled():
    big = pd.concat([EMPLOYEES] * 30, ignore_index=True)
    a = distribution_anonymize(big, SCHEMA, target="uniform", groups=BY_PREFIX, rng=1)
    b = distribution_anonymize(big, SCHEMA, target="uniform", groups=BY_PREFIX, rng=2)
    assert not a.tables["qit"]["zipcode"].equals(big["zipcode"])
    assert not a.tables["qit"].equals(b.tables["qit"])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"partition": "both"}, InputError, "partition"),
        ({"fakes": -1}, InputError, "fakes"),
        ({"target": "poisson"}, InputError, "target"),
        ({"groups": "salary"}, InputError, "sensitive"),
        ({"groups": "nope"}, InputError, "nope"),
        ({"groups": {"column": "zipcode", "prefix": 0}}, InputError, "prefix"),
        ({"groups": [1, 2]}, InputError, "one label per row"),
        ({"subgroup_by": ["salary"], "partition": "qi_sa"}, InputError, "subgroup_by"),
        ({"domain": (35, 60)}, InputError, "domain"),
        ({"arity": 1}, InputError, "arity"),
        ({"layout": "paired"}, InputError, "layout"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        distribution_anonymize(EMPLOYEES, SCHEMA, **kwargs)


def test_bad_schema_and_data():
    with pytest.raises(SchemaError, match="numbers"):
        distribution_anonymize(
            EMPLOYEES, {"zipcode": "quasi", "gender": "sensitive"}, categorical=False
        )
    with pytest.raises(SchemaError, match="sensitive"):
        distribution_anonymize(EMPLOYEES, {"zipcode": "quasi", "salary": "quasi"})
    with pytest.raises((InputError, SchemaError)):
        distribution_anonymize(EMPLOYEES.iloc[:0], SCHEMA)
    with pytest.raises((InputError, SchemaError), match="salary"):
        distribution_anonymize(EMPLOYEES.assign(salary=[np.nan] + [30] * 10), SCHEMA)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(1, 9)), min_size=1,
             max_size=40),
    st.sampled_from(["uniform", "empirical", {"zipf": {"s": 1.0}}]),
    st.sampled_from(["sa_only", "qi_sa"]),
    st.sampled_from([0, 1, 0.3]),
    st.integers(0, 2**32 - 1),
)  # fmt: skip
def test_every_release_is_p_private_and_covers_its_groups(rows, target, partition, fakes, seed):
    df = pd.DataFrame(rows, columns=["region", "age", "income"])
    schema = {"region": "quasi", "age": "quasi", "income": "sensitive"}
    rel = distribution_anonymize(
        df, schema, target=target, groups="region", partition=partition, fakes=fakes,
        subgroup_by=["age"], scale=12, rng=seed,
    )  # fmt: skip
    assert p_privacy(rel).holds
    # Definition 3.1 per published group: its records' real values fit its entries.
    qit, st_ = rel.tables["qit"], rel.tables["st"]
    key = ["region", "age"] if partition == "qi_sa" else ["region"]
    group_of = qit.groupby(key)["group"].first()
    for k, values in df.groupby(key)["income"]:
        e = st_[st_["group"] == group_of.loc[k]]
        assert covers(values.to_numpy(), e["low"].to_numpy(), e["high"].to_numpy(),
                      e["count"].to_numpy())  # fmt: skip
    assert st_["count"].sum() == len(df) + rel.metadata["distribution"]["fakes"]
