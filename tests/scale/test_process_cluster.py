"""Smoke tests of every out-of-core entry point on worker *processes*, not threads.

The other out-of-core tests share one process with their Dask workers (threads), where nothing is
pickled and no worker has a memory limit of its own. Here ``--engine dask`` of ``microanon
anonymize`` (full-domain generalization, a row-wise method, microaggregation within blocks),
``check`` and ``risk`` each run once on two worker processes with a memory limit
(``process_cluster`` in conftest.py), on 3,000 records of Adult, and agree with the same command
in memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

import microanon
from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.datasets import load_arx_adult

EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"
QUASI = "sex,age,race,education"
COLUMNS = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "occupation", "salary_class",
]  # fmt: skip


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def scheduler(process_cluster) -> str:
    return process_cluster.scheduler_address


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """3,000 records of ARX's Adult as a CSV file and as two Parquet files in a directory."""
    data = load_arx_adult().head(3000)
    root = tmp_path_factory.mktemp("process-cluster")
    csv = root / "adult.csv"
    data.to_csv(csv, index=False)
    parts = root / "parts"
    parts.mkdir()
    data.iloc[:1700].to_parquet(parts / "part-0.parquet", index=False)
    data.iloc[1700:].to_parquet(parts / "part-1.parquet", index=False)
    return {"csv": csv, "parquet": parts}


def _config(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / f"{doc['method']}.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    return path


def _rowwise(tmp_path: Path, schema: dict, method: str, params: dict) -> Path:
    """A config over Adult's columns: ``schema``, and every other column an identifier."""
    doc = {"schema": {c: schema.get(c, "identifier") for c in COLUMNS}}
    return _config(tmp_path, {**doc, "method": method, "params": params})


def _anonymize(files: dict, config: Path, out: Path, scheduler: str):
    """``microanon anonymize --engine dask --json`` on the Parquet file, checked to succeed."""
    r = _run(
        "anonymize", files["parquet"], "--config", config, "--out", out,
        "--engine", "dask", "--scheduler", scheduler, "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return r


def test_anonymize_full_domain_on_processes(scheduler, files, tmp_path):
    doc = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text("utf-8"))
    for column, spec in doc["schema"].items():
        if column not in QUASI.split(",") + ["occupation"]:
            doc["schema"][column] = {"role": "insensitive"}
        elif "hierarchy" in spec:
            spec["hierarchy"] = str(EXAMPLES / spec["hierarchy"])
    config = _config(tmp_path, doc)
    out = tmp_path / "release"
    r = _anonymize(files, config, out, scheduler)
    got = json.loads(r.stdout)
    assert got["engine"] == "dask" and got["verified"] is True
    memory = load_config(config).run(pd.read_parquet(files["parquet"]))
    assert got["levels"] == memory.metadata["levels"]
    assert got["rows_out"] == memory.metadata["rows_out"]


def test_anonymize_rowwise_on_processes(scheduler, files, tmp_path):
    from microanon.core.release import Release

    schema = {"sex": {"role": "quasi"}, "race": {"role": "quasi"}}
    schema["marital_status"] = {"role": "sensitive"}
    config = _rowwise(tmp_path, schema, "randomized_response", {"scenario": "Both", "l": 3})
    out = tmp_path / "rr"
    r = _anonymize(files, config, out, scheduler)
    got = json.loads(r.stdout)
    assert got["method"] == "randomized_response" and got["rows_out"] == 3000
    release = Release.load(out)
    assert release.kind == "randomized" and len(release.data) == 3000
    assert sorted(release.data.columns) == ["marital_status", "race", "sex"]


def test_anonymize_microaggregation_blocks_on_processes(scheduler, files, tmp_path):
    from microanon.core.release import Release

    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": {"role": "insensitive"},
        "salary_class": {"role": "sensitive"},
    }
    config = _rowwise(tmp_path, schema, "microaggregation", {"k": 5, "by": "sex"})
    out = tmp_path / "mdav"
    r = _anonymize(files, config, out, scheduler)
    assert json.loads(r.stdout)["masked"] == ["age"]
    release = Release.load(out)
    assert release.metadata["blocks"] == 2 and len(release.data) == 3000
    assert release.data.groupby(["sex", "age"]).size().min() >= 5
    # the pairs of original and masked ages, sent by the worker processes, measured
    internal = (out / "internal" / "report.html").read_text("utf-8")
    assert "record linkage" in internal and "SSE/SST" in internal
    assert "record linkage" not in (out / "public" / "report.html").read_text("utf-8")


def test_check_on_processes(scheduler, files):
    args = ["--quasi", QUASI, "--sensitive", "occupation", "--json", "--k", "2"]
    memory = _run("check", files["csv"], *args)
    r = _run("check", files["parquet"], *args, "--engine", "dask", "--scheduler", scheduler)
    assert r.exit_code == memory.exit_code, r.output
    got, expected = json.loads(r.stdout), json.loads(memory.stdout)
    assert got.keys() == expected.keys()
    for key, value in expected.items():  # sums over values in another order: rounding only
        assert got[key] == (pytest.approx(value, rel=1e-12) if isinstance(value, float) else value)


def test_risk_on_processes(scheduler, files):
    args = ["--quasi", QUASI, "--region", "usa", "--json", "--no-suda"]
    r = _run("risk", files["parquet"], *args, "--engine", "dask", "--scheduler", scheduler)
    assert r.exit_code == 0, r.output
    memory = _run("risk", files["csv"], *args)
    assert memory.exit_code == 0, memory.output
    assert json.loads(r.stdout) == json.loads(memory.stdout)


def test_a_panel_s_person_id_is_counted_on_processes(scheduler, tmp_path):
    """Adult's first 3,000 records as 1,000 people of three records each (``id``), in two
    Parquet files that cut one person's records: each file's tally crosses a process boundary
    and their merge counts 1,000 values on 3,000 rows; full-domain generalization and
    randomized response warn of it."""
    data = load_arx_adult().head(3000)
    data.insert(0, "id", [i // 3 for i in range(len(data))])
    parts = tmp_path / "panel"
    parts.mkdir()
    data.iloc[:1700].to_parquet(parts / "part-0.parquet", index=False)
    data.iloc[1700:].to_parquet(parts / "part-1.parquet", index=False)
    note = "'id', dropped as an identifier, repeats (1,000 values on 3,000 rows): "
    doc = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text("utf-8"))
    for column, spec in doc["schema"].items():
        if column not in QUASI.split(",") + ["occupation"]:
            doc["schema"][column] = {"role": "insensitive"}
        elif "hierarchy" in spec:
            spec["hierarchy"] = str(EXAMPLES / spec["hierarchy"])
    doc["schema"]["id"] = {"role": "identifier"}
    schema = {"sex": {"role": "quasi"}, "race": {"role": "quasi"}}
    schema["marital_status"] = {"role": "sensitive"}
    rowwise = yaml.safe_load(
        _rowwise(tmp_path, schema, "randomized_response", {"l": 3}).read_text("utf-8")
    )
    rowwise["schema"]["id"] = "identifier"
    for config in (_config(tmp_path, doc), _config(tmp_path, rowwise)):
        r = _anonymize({"parquet": parts}, config, tmp_path / config.stem, scheduler)
        assert [w for w in json.loads(r.stdout)["warnings"] if "repeats" in w][0].startswith(note)
