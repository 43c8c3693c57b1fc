"""``anonymize --engine dask`` warns of a person identifier that repeats (a panel: several records
per person, which k counts one by one) as the in-memory run does: the same sentence in the
terminal, in ``--json``'s warnings and in the internal report, never in the public part. The
identifier's values are counted in the pass that reads the input, partition by partition
(:mod:`microanon.core.repetition`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.core.errors import InputError
from microanon.core.schema import Schema
from microanon.scale.encode import check_ids

#: What both engines say of COUNT's rwm5yr's ``id``: 19,609 person-years of 6,127 people.
NOTE = (
    "'id', dropped as an identifier, repeats (6,127 values on 19,609 rows): if it numbers "
    "people, a person has several records here (a panel), and k counts records, not people "
    "(a class may be one person's records): keep one record per person for k to count people"
)

#: Each method's part of the configuration (the schema: every column an identifier but these).
METHODS = {
    "full_domain": {"models": [{"k_anonymity": {"k": 5}}]},
    "pram": {"params": {"keep": {"edlevel": 0.8}}},
    "randomized_response": {"params": {"l": 3}},
    "add_noise": {"params": {"method": "additive", "noise": 0.1, "columns": ["year"]}},
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """COUNT's rwm5yr as one CSV file (the in-memory run's), as three Parquet files and as
    three CSV files (a glob), each of consecutive rows: a person's years may lie in two."""
    frame = survey("rwm5yr")
    root = tmp_path_factory.mktemp("panel")
    frame.to_csv(root / "rwm5yr.csv", index=False)
    for kind in ("parquet", "csv"):
        (root / kind).mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(root / "parquet" / f"part-{i}.parquet", index=False)
        frame.iloc[rows].to_csv(root / "csv" / f"part-{i}.csv", index=False)
    return {
        "memory": str(root / "rwm5yr.csv"),
        "parquet": str(root / "parquet"),
        "csv": str(root / "csv" / "part-*.csv"),
    }


def _config(folder: Path, method: str, **params) -> Path:
    """The configuration of ``method`` on rwm5yr: two categorical and a numeric key, the
    sensitive ``edlevel``, every other column an identifier (``id`` among them)."""
    frame = survey("rwm5yr")
    schema = {c: {"role": "identifier"} for c in frame.columns}
    for c in ("female", "married"):
        schema[c] = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    schema["year"] = {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [2, 4]},
    }
    schema["edlevel"] = {"role": "sensitive"}
    doc = {"schema": schema, "method": method, **METHODS[method]}
    doc["params"] = {**doc.get("params", {}), **params}
    path = folder / f"{method}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _anonymize(config: Path, data: str, out: Path, *engine: str):
    run = CliRunner().invoke(
        main,
        ["anonymize", data, "--config", str(config), "--out", str(out), "--seed", "1",
         "--json", *engine],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    return json.loads(run.stdout), run.stderr


@pytest.mark.parametrize(
    ("method", "source"),
    [
        ("full_domain", "parquet"),
        ("full_domain", "csv"),
        ("pram", "parquet"),
        ("randomized_response", "csv"),
        ("add_noise", "parquet"),
    ],
)
def test_a_panel_s_person_id_is_warned_of_by_both_engines(
    scheduler, files, tmp_path, method, source
):
    """The methods that write reports out of core: the same ``--json`` warnings as in memory,
    the panel's among them; the sentence on stderr and in the internal report, not in the
    public report or the public metadata."""
    config = _config(tmp_path, method)
    memory, _ = _anonymize(config, files["memory"], tmp_path / "memory", "--engine", "memory")
    out = tmp_path / "dask"
    dask, stderr = _anonymize(
        config, files[source], out, "--engine", "dask", "--scheduler", scheduler
    )
    assert NOTE in memory["warnings"]
    assert dask["warnings"] == memory["warnings"]
    assert f"WARNING: {NOTE}" in stderr
    assert "repeats (6,127 values on 19,609 rows)" in (out / "internal" / "report.html").read_text(
        "utf-8"
    )
    for public in ("report.html", "release.json"):
        text = (out / "public" / public).read_text("utf-8")
        assert "repeats" not in text and "6,127" not in text


def test_microaggregation_within_blocks_warns_of_it_too(scheduler, files, tmp_path):
    """MDAV within the blocks of ``female`` (a Dask parameter, no in-memory run to compare
    with): the panel's sentence in its ``--json`` warnings, on stderr and in its internal
    report, not in its public part."""
    blocks = _config(tmp_path, "add_noise")
    doc = yaml.safe_load(blocks.read_text("utf-8"))
    doc.update(method="microaggregation", params={"k": 5, "by": "female", "columns": ["year"]})
    blocks.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "blocks"
    got, stderr = _anonymize(
        blocks, files["csv"], out, "--engine", "dask", "--scheduler", scheduler
    )
    assert NOTE in got["warnings"] and f"WARNING: {NOTE}" in stderr
    assert "repeats (6,127 values" in (out / "internal" / "report.html").read_text("utf-8")
    for public in ("report.html", "release.json"):
        assert "repeats" not in (out / "public" / public).read_text("utf-8")


def test_an_identifier_numbering_each_row_once_is_not_warned_of(scheduler, files, tmp_path):
    """One record per person (each person's first year of rwm5yr, in three Parquet files): no
    warning out of core either."""
    frame = survey("rwm5yr").drop_duplicates("id")
    folder = tmp_path / "first"
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(folder / f"part-{i}.parquet", index=False)
    config = _config(tmp_path, "full_domain")
    got, stderr = _anonymize(
        config, str(folder), tmp_path / "out", "--engine", "dask", "--scheduler", scheduler
    )
    assert "repeats" not in " ".join(got["warnings"]) and "repeats" not in stderr


def test_a_person_id_that_is_no_identifier_of_the_schema_is_refused():
    """The engine counts the schema's identifiers only: another column, or one the schema does
    not have, is refused in one line naming it and the identifiers there are."""
    schema = Schema.from_dict({"id": {"role": "identifier"}, "age": {"role": "quasi"}})
    assert check_ids(schema, ("id",)) == ["id"]
    for column in ("age", "person"):
        with pytest.raises(InputError, match=rf"^person_ids: column '{column}' is not an "):
            check_ids(schema, [column])
    with pytest.raises(InputError, match=r"schema's identifiers \(id\)$"):
        check_ids(schema, ["age"])
