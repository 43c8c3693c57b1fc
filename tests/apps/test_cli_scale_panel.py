"""``anonymize --engine dask`` warns of a person identifier that repeats (a panel: several records
per person, which k counts one by one) as the in-memory run does: the same sentence in the
terminal, in ``--json``'s warnings and in the internal report, never in the public part. The
identifier is one by its name or by its values, an id code (init's test, on its distinct values
and their records); its values are counted in the pass that reads the input, partition by
partition (:mod:`microanon.core.repetition`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.init.people import numbers_people, person_ids
from microanon.apps.panel import repeats
from microanon.core.errors import InputError
from microanon.core.repetition import repetition
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


#: What both engines say of lme4's InstEval's students' and lecturers' numbers, under names that
#: say nothing (``rater`` for ``s``, ``lecturer`` for ``d``): id codes by their values.
CODE_NOTES = [
    "'rater', dropped as an identifier, repeats (2,972 values on 73,421 rows): if it numbers "
    "people, a person has several records here (a panel), and k counts records, not people (a "
    "class may be one person's records): keep one record per person for k to count people",
    "'lecturer', dropped as an identifier, repeats (1,128 values on 73,421 rows): if it "
    "numbers people, a person has several records here (a panel), and k counts records, not "
    "people (a class may be one person's records): keep one record per person for k to count "
    "people",
]


def _split(frame, root: Path, name: str) -> dict[str, str]:
    """``frame`` as one CSV file (the in-memory run's), as three Parquet files and as three CSV
    files (a glob) of consecutive rows, under ``root / name``."""
    folder = root / name
    for kind in ("parquet", "csv"):
        (folder / kind).mkdir(parents=True)
    frame.to_csv(folder / f"{name}.csv", index=False)
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(folder / "parquet" / f"part-{i}.parquet", index=False)
        frame.iloc[rows].to_csv(folder / "csv" / f"part-{i}.csv", index=False)
    return {
        "memory": str(folder / f"{name}.csv"),
        "parquet": str(folder / "parquet"),
        "csv": str(folder / "csv" / "part-*.csv"),
    }


def _schema_config(folder: Path, name: str, schema: dict, method: str) -> Path:
    """A configuration of ``method`` (as :data:`METHODS` has it, keeping ``keep`` or
    ``columns`` to the schema's) with ``schema``."""
    doc = {"schema": schema, "method": method, **METHODS[method]}
    if method == "pram":
        doc["params"] = {"keep": {c: 0.8 for c, a in schema.items() if a["role"] == "quasi"}}
    path = folder / f"{name}-{method}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def insteval(tmp_path_factory) -> dict[str, str]:
    """lme4's InstEval, its students' numbers ``s`` renamed ``rater`` and its lecturers' ``d``
    renamed ``lecturer`` (no name of an id), as :func:`_split` writes it."""
    frame = survey("insteval").rename(columns={"s": "rater", "d": "lecturer"})
    return _split(frame, tmp_path_factory.mktemp("insteval"), "insteval")


@pytest.mark.parametrize(("method", "source"), [("full_domain", "parquet"), ("pram", "csv")])
def test_an_id_code_named_like_nothing_is_warned_of_by_both_engines(
    scheduler, insteval, tmp_path, method, source
):
    """The students' and lecturers' numbers of InstEval, identifiers under names that say
    nothing: their values look like codes handed out in order (init's id-code test, on the
    distinct values and their records, counted partition by partition out of core), so both
    engines warn that they repeat, word for word, in the terminal, in ``--json`` and in the
    internal report, not in the public part."""
    schema = {
        "rater": {"role": "identifier"},
        "lecturer": {"role": "identifier"},
        "studage": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "lectage": {"role": "insensitive"},
        "service": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "dept": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "y": {"role": "sensitive"},
    }
    config = _schema_config(tmp_path, "insteval", schema, method)
    memory, _ = _anonymize(config, insteval["memory"], tmp_path / "memory", "--engine", "memory")
    out = tmp_path / "dask"
    dask, stderr = _anonymize(
        config, insteval[source], out, "--engine", "dask", "--scheduler", scheduler
    )
    assert [w for w in memory["warnings"] if " repeats (" in w] == CODE_NOTES
    assert dask["warnings"] == memory["warnings"]
    internal = (out / "internal" / "report.html").read_text("utf-8")
    for note in CODE_NOTES:
        assert f"WARNING: {note}" in stderr
        assert note.split(", ", 1)[1].split(":")[0] in internal  # (the name's quotes escaped)
    for public in ("report.html", "release.json"):
        assert "repeats" not in (out / "public" / public).read_text("utf-8")


def test_names_dropped_as_identifiers_are_not_warned_of(scheduler, tmp_path):
    """medicaldata's covid_testing (15,524 tests of 12,344 patients): the patients' fake first
    names (831 on 15,524 rows, no row alone) repeat as a panel's id would, but they are text,
    not numbers, and their name is no id's: neither engine warns of them, nor of the clinic's
    name, the test's kind or numbers that are no codes (a day, a cycle threshold, a time); both
    warn of ``subject_id``, named as a person id, alone, in the same words."""
    frame = survey("covid_testing")
    first = repetition(frame["fake_first_name"])
    assert repeats(first.distinct, first.rows, first.alone_share)
    files = _split(frame, tmp_path, "covid")
    schema = {c: {"role": "identifier"} for c in frame.columns}
    for c in ("gender", "demo_group"):
        schema[c] = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    schema["result"] = {"role": "sensitive"}
    config = _schema_config(tmp_path, "covid", schema, "full_domain")
    memory, _ = _anonymize(config, files["memory"], tmp_path / "memory", "--engine", "memory")
    dask, stderr = _anonymize(
        config, files["parquet"], tmp_path / "dask", "--engine", "dask", "--scheduler", scheduler
    )
    (note,) = [w for w in memory["warnings"] if " repeats (" in w]
    assert note.startswith("'subject_id', dropped as an identifier, repeats (12,344 values on")
    assert dask["warnings"] == memory["warnings"]
    assert stderr.count(" repeats (") == 1


def test_the_identifiers_counted_are_person_ids_by_name_and_numbers():
    """Which identifiers ``anonymize`` counts (:func:`person_ids`, from the columns' types: no
    row read) and which of them it warns of once counted (:func:`numbers_people`): a person id
    by its name whatever its values; numbers under a name that may be a code's, warned of when
    they look handed out in order (not a 0/1 item, a time's decimals); never text under
    another name (a person's name) nor a day's number (``pan_day``)."""
    frame = survey("covid_testing").rename(columns={"subject_id": "patient"})
    frame["patient_id"] = frame["patient"].astype(str)
    roles = {c: "identifier" for c in frame.columns} | {"result": "sensitive", "gender": "quasi"}
    counted = person_ids(Schema.from_dict(roles), frame.dtypes)
    assert counted == [
        "patient",
        "test_id",
        "age",
        "drive_thru_ind",
        "ct_result",
        "orderset",
        "col_rec_tat",
        "rec_ver_tat",
        "patient_id",
    ]
    assert [c for c in counted if numbers_people(c, repetition(frame[c]))] == [
        "patient",
        "test_id",
        "patient_id",
    ]
    some = frame.dtypes[["gender", "fake_first_name", "pan_day"]]  # (the others: not there)
    assert person_ids(Schema.from_dict(roles), some) == []
