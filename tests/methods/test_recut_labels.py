"""Ranges cut from the data are cut again on the published values: a release's labels tell
nothing of a suppressed record's value.

carData's BEPS (1,525 voters aged 24 to 93) with a balanced tree over age: the release had
published ``[80, 88)`` as its oldest range, whose bound 88 is the age of the next range, all of
whose voters it suppressed (and a range ``[88, 96)`` of the hierarchy tells the same of 96).
"""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.core import Hierarchy, InfeasibleError, Release, Schema
from microanon.core.hierarchy import SUPPRESSED, parse_interval
from microanon.core.range_bounds import roundest_in
from microanon.methods.generalize import full_domain
from microanon.methods.steps import Steps


def _beps() -> pd.DataFrame:
    return rdataset("carData", "BEPS")[["age", "Europe", "vote"]]


def _schema(builder: dict) -> dict:
    return {
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": builder},
        "Europe": {"role": "quasi", "kind": "numeric", "hierarchy": builder},
        "vote": {"role": "sensitive"},
    }


BALANCED = {"builder": "balanced", "fanout": 2}


def test_beps_oldest_range_reaches_past_the_suppressed_voters():
    release = full_domain(
        _beps(), _schema(BALANCED), models={"k_anonymity": {"k": 5}}, suppression=0.05
    )
    assert release.metadata["levels"] == {"age": 3, "Europe": 0}
    assert release.internal_metadata["recut"] == {"age": {"[80, 88)": "[80, 100)"}}
    ages = set(release.data["age"])
    assert "[80, 100)" in ages and "[80, 88)" not in ages


def _bounds(label: str) -> tuple[float, float]:
    interval = parse_interval(label)
    assert interval is not None and interval.closed_lo and not interval.closed_hi, label
    return interval.lo, interval.hi


def _roundest(low: float, high: float, largest: bool = False) -> float:
    window = Decimal(repr(float(low))), Decimal(repr(float(high)))
    return float(roundest_in(*window, largest=largest))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=12, max_size=120),
    st.lists(st.sampled_from("ab"), min_size=120, max_size=120),
    st.sampled_from([BALANCED, {"builder": "quantiles", "bins": [6, 3]}]),
    st.sampled_from([2, 3, 5]),
)
def test_published_ranges_are_cut_on_the_published_ages(ages, groups, builder, k):
    """On random tables: each published range holds the ages of the records published in it,
    and its bounds are the roundest numbers between the published ages (the outer ends beyond
    them, within their span, the nearest them of the roundest): they depend on no suppressed
    record."""
    data = pd.DataFrame({"age": ages, "group": groups[: len(ages)], "rid": range(len(ages))})
    schema = Schema.from_dict(
        {
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": builder},
            "group": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "rid": {"role": "insensitive"},  # (which record each published row is)
        }
    )
    try:
        release = full_domain(data, schema, models={"k_anonymity": {"k": k}}, suppression=0.3)
    except InfeasibleError:  # no node within the suppression limit: nothing published
        return
    published = release.data
    original = data["age"].to_numpy()[published["rid"].to_numpy(dtype=int)]
    held: dict[str, list[int]] = {}
    for label, age in zip(published["age"].astype(str), original, strict=True):
        if label == SUPPRESSED or not label.startswith("["):
            assert label == SUPPRESSED or float(label) == age
            continue
        low, high = _bounds(label)
        assert low <= age < high, (label, age)
        held.setdefault(label, []).append(int(age))
    if not held:
        return
    ranges = sorted(held, key=lambda x: _bounds(x)[0])
    smallest, largest = min(held[ranges[0]]), max(held[ranges[-1]])
    span = (largest - smallest) or largest or 1
    assert _bounds(ranges[0])[0] == _roundest(
        max(smallest - span, 0) if smallest else -span, smallest, largest=True
    )
    assert _bounds(ranges[-1])[1] == _roundest(largest, largest + span)
    for before, after in zip(ranges, ranges[1:], strict=False):
        assert _bounds(before)[1] == _bounds(after)[0]
        assert _bounds(after)[0] == _roundest(max(held[before]), min(held[after]))


def test_nothing_suppressed_keeps_the_hierarchy_s_labels():
    """With every record published the ranges are the hierarchy's."""
    release = full_domain(_beps(), _schema(BALANCED), models={"k_anonymity": {"k": 1}})
    assert "recut" not in release.internal_metadata
    tree = release.internal_metadata["hierarchies"]["age"]
    labels = {p[-1 - release.metadata["levels"]["age"]] for p in tree["paths"]}
    assert set(release.data["age"].astype(str)) <= {str(x) for x in labels}


def test_an_owner_s_intervals_are_never_cut_again():
    """Fixed-width intervals are the owner's: the same labels whatever is suppressed."""
    builder = {"builder": "intervals", "widths": [8, 16, 32]}
    release = full_domain(
        _beps(), _schema(builder), models={"k_anonymity": {"k": 5}}, suppression=0.05
    )
    assert "recut" not in release.internal_metadata
    labels = {str(x) for x in release.data["age"]}
    assert all(int(_bounds(x)[0]) % 8 == 0 for x in labels if x.startswith("["))


def _two_steps(missing: list[int] | None = None) -> tuple[pd.DataFrame, dict, Release]:
    """BEPS's age recoded to level 3 of its balanced tree, then local suppression (k = 20 on
    age and gender); ``missing``: the rows whose age is made missing (``missing: value``)."""
    data = rdataset("carData", "BEPS")[["age", "gender", "vote"]].copy()
    age = {"role": "quasi", "kind": "numeric", "hierarchy": BALANCED}
    if missing:
        data.loc[missing, "age"] = np.nan
        age["missing"] = "value"
    schema = {"age": age, "gender": {"role": "quasi"}, "vote": {"role": "sensitive"}}
    steps = Steps(data, schema, rng=1)
    steps.add("global_recode", levels={"age": 3})
    steps.add("local_suppression", k=20)
    return data, schema, steps.release()


def test_steps_cut_a_recoded_range_again_on_the_cells_left_published(tmp_path):
    """BEPS in two steps, as sdcMicro's workflow runs them: age recoded to level 3 of its
    balanced tree, then local suppression (k = 20 on age and gender) blanks the 14 ages of
    ``[88, 100)``: the range below it, ``[80, 88)``, ended where those blanked ages began, and is
    published ``[80, 100)``, from the command line too, the written files verified."""
    data, schema, release = _two_steps()
    assert release.internal_metadata["recut"] == {"age": {"[80, 88)": "[80, 100)"}}
    ages = release.data["age"]
    assert int(ages.isna().sum()) == 14 and int((ages == "[80, 100)").sum()) == 64
    assert "[80, 88)" not in set(ages.dropna())
    path = tmp_path / "beps.csv"
    data.to_csv(path, index=False)
    doc = {
        "data": str(path),
        "schema": schema,
        "steps": [
            {"method": "global_recode", "params": {"levels": {"age": 3}}},
            {"method": "local_suppression", "params": {"k": 20}},
        ],
    }
    config = tmp_path / "steps.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "release"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    verification = json.loads(result.stdout)["verification"]
    assert verification["ok"] and verification["leaks"] == []
    written = Release.load(out).tables["data"]["age"]
    assert "[80, 100)" in set(written.dropna()) and "[80, 88)" not in set(written.dropna())


def test_a_key_with_missing_values_is_cut_again_on_its_numbers():
    """A numeric key whose missing values are the leaf ``?`` beside its numbers: its ranges are
    cut again as a key without one is. One record of x = 37 (the only one of z = 2) is
    suppressed; the top range had been published ``[8, 40)``, its bound set by that record
    alone, for records of 8 to 10, where 21 missing cells made the recut give up."""
    # per x: records of z = 0 and of z = 1 (x missing: 21 of z = 0)
    table = {1: (29, 3), 2: (28, 4), 3: (36, 5), 4: (36, 4), 5: (35, 5), 6: (32, 4), 7: (31, 1),
             8: (41, 3), 9: (35, 6), 10: (36, 4), np.nan: (21, 0)}  # fmt: skip
    x = [float(v) for v, (a, b) in table.items() for _ in range(a + b)] + [37.0]
    z = [zz for a, b in table.values() for zz in [0] * a + [1] * b] + [2]
    data = pd.DataFrame({"x": x, "z": z})
    schema = {
        "x": {"role": "quasi", "kind": "numeric",
              "hierarchy": {"builder": "quantiles", "bins": [4, 2]}},
        "z": {"role": "quasi", "kind": "numeric", "hierarchy": BALANCED},
    }  # fmt: skip
    release = full_domain(data, schema, models={"k_anonymity": {"k": 5}}, suppression=0.05)
    assert release.metadata["suppressed"] == 1
    assert release.internal_metadata["recut"]["x"]["[8, 40)"] == "[8, 11)"
    shown = set(release.data["x"].astype(str))
    assert "[8, 11)" in shown and "?" in shown and "[8, 40)" not in shown


def test_steps_cut_again_beside_missing_ages():
    """The same two steps with three ages missing (``missing: value``): the ranges are cut
    again all the same, the missing ages left as they are."""
    _, _, release = _two_steps(missing=[3, 7, 11])
    assert release.internal_metadata["recut"] == {"age": {"[80, 88)": "[80, 100)"}}
    assert int(release.data["age"].isna().sum()) == 17  # 14 blanked, 3 missing


def test_a_declared_domain_s_labels_stay_when_every_record_is_published():
    """A hierarchy over more values than the data hold (an owner's declared domain: a balanced
    tree over 0 to 4, two records of 0 and 2): with every record published its labels are
    the hierarchy's, ``[0, 4)``; the recut serves only the records a release leaves out."""
    data = pd.DataFrame({"q": [0, 2], "rid": [0, 1]})
    tree = Hierarchy.balanced(range(5), fanout=2, name="q")
    schema = Schema.from_dict(
        {"q": {"role": "quasi", "kind": "numeric", "hierarchy": tree}, "rid": "insensitive"}
    )
    release = full_domain(data, schema, models={"k_anonymity": {"k": 2}})
    assert list(release.data["q"]) == ["[0, 4)", "[0, 4)"]
    assert "recut" not in release.internal_metadata


def _beps_with_missing_ages() -> tuple[pd.DataFrame, dict]:
    """BEPS with three ages missing, read as the value ``?``: the age hierarchy then has a leaf
    that is no number, and its labels are measured node by node, not as ranges of numbers."""
    data = _beps().astype({"age": float})
    data.loc[[3, 500, 1000], "age"] = np.nan
    schema = _schema(BALANCED)
    schema["age"] = {**schema["age"], "missing": "value"}
    return data, schema


def test_a_release_with_ranges_cut_again_is_measured_node_by_node():
    """yrbss in openintro had its LM, GCP and precision shown as "-" in the internal report: the
    published range ``[11, 16)`` is no label of the age hierarchy, which holds the missing
    values' leaf ``?``. Each label published in place of its hierarchy's is measured as the
    node it stands for, so the report's LM is the search's."""
    from microanon.apps.release_sections import utility_metrics

    data, schema = _beps_with_missing_ages()
    release = full_domain(data, schema, models={"k_anonymity": {"k": 5}}, suppression=0.05)
    assert release.internal_metadata["recut"] == {"age": {"[80, 88)": "[80, 100)"}}
    measured = utility_metrics(release, data)
    assert measured["LM"] == pytest.approx(release.metadata["metric"]["value"])
    assert measured["GCP"] is not None and measured["precision"] is not None


def test_the_closest_configurations_measure_their_ranges_as_published():
    """The alternatives a release's report proposes are measured the same way."""
    from microanon.apps.closest import _measured_classes
    from microanon.methods.generalize.reruns import FrequencyRuns
    from microanon.models import as_models

    data, schema = _beps_with_missing_ages()
    runs = FrequencyRuns.of_records(data, schema, {"k_anonymity": {"k": 5}})
    classes = runs.search(as_models({"k_anonymity": {"k": 5}}), suppression=0.05)
    assert "[80, 100)" in set(classes.values["age"])
    lm, _, _ = _measured_classes(classes)
    assert lm == pytest.approx(classes.metric_value)


def test_a_range_cut_again_into_another_level_s_label_is_measured_as_its_own_node():
    """carData's SLID (7,425 Ontarians) with ages in fixed widths of 10 and 20: the ages 90 to
    95 suppressed, ``[80, 90)`` is published ``[80, 100)``, which is also the label of the next
    level's node. The command had stopped in its reports ("value '[80, 100)' names two
    different groups"); the release is measured at its own level."""
    from microanon.apps.release_sections import utility_metrics

    data = rdataset("carData", "SLID")
    schema = {
        "wages": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        "education": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "quantiles", "bins": [16, 4, 2]},
            "missing": "value",
        },
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [10, 20]},
        },
        "sex": {"role": "quasi", "hierarchy": BALANCED},
        "language": {"role": "quasi", "hierarchy": BALANCED, "missing": "value"},
    }
    models = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3, "form": "distinct"}}]
    release = full_domain(data, schema, models=models, suppression=0.05)
    recut = release.internal_metadata.get("recut", {})
    assert recut.get("age") == {"[80, 90)": "[80, 100)"}, recut
    measured = utility_metrics(release, data)
    assert measured["LM"] == pytest.approx(release.metadata["metric"]["value"])


def test_the_internal_report_says_which_range_was_cut_again_and_why(tmp_path):
    """BEPS as above, from the command line: the column's line of the summary and of the
    internal report names the range published in the hierarchy's place and why; the public
    report does not (the hierarchy's label is not published)."""
    path = tmp_path / "beps.csv"
    _beps().to_csv(path, index=False)
    doc = {
        "data": str(path),
        "schema": _schema(BALANCED),
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "beps.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "release"
    result = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = (
        "[80, 100) published for the hierarchy's [80, 88) (ranges cut again on the values "
        "published, so that no bound tells a suppressed record's value)"
    )
    assert said in " ".join(result.stdout.split())
    internal = " ".join((out / "internal" / "report.html").read_text("utf-8").split())
    assert str(escape(said)) in internal
    public = (out / "public" / "report.html").read_text("utf-8")
    assert "[80, 88)" not in public and "cut again on the values" not in public


def test_the_ages_whose_every_cell_was_suppressed_are_said():
    """The two steps blank every cell of the ages 88 to 93 (14 voters): the age's line of the
    internal report names them, with their voters, smallest first, as it names the range cut
    again."""
    from microanon.apps.release_summary import column_actions

    data, schema, release = _two_steps()
    lines = column_actions(release, Schema.from_dict(schema), None, data).set_index("column")
    assert lines.loc["age", "done"] == (
        "globally recoded; then locally suppressed to k = 20; suppressed in 14 rows; every cell "
        "holding 88 (4 records), 89 (5 records), 90 (1 record), 91 (1 record), 92 (2 records) "
        "and 1 more was suppressed: no published record shows any of them; [80, 100) published "
        "for the hierarchy's [80, 88) (ranges cut again on the values published, so that no "
        "bound tells a suppressed record's value)"
    )
    assert "every cell" not in lines.loc["gender", "done"]
    public = column_actions(release, Schema.from_dict(schema)).set_index("column")
    assert "every cell" not in public.loc["age", "done"]
