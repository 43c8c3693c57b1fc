"""The data sets a workbench holds (``GET``/``DELETE /api/datasets``): every upload stays
reachable with its runs, in the order loaded, until it is removed; the number held has a limit
that refuses one more in one line, and removing one takes its runs and files with it, never the
data owner's own file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from real_surveys import survey
from starlette.testclient import TestClient
from test_workbench_api import _wait
from test_workbench_stop import BIG_LATTICE, HEURISTIC, _dataset, _poll

from microanon.apps.workbench import create_app
from microanon.apps.workbench.errors import RequestError
from microanon.apps.workbench.state import Workbench
from microanon.core.reading import ReadOptions

LOCAL = "http://127.0.0.1:8765"
K5 = {
    "method": "full_domain",
    "params": {"suppression": 0.05},
    "models": [{"k_anonymity": {"k": 5}}],
}
#: Two real surveys of carData (Fox and Weisberg): the 2011 Canadian Election Study and the
#: 1988 Chilean plebiscite survey, a few columns each.
SURVEYS = {
    "ces11.csv": ("ces11", ["province", "gender", "education", "urban", "abortion"]),
    "chile.csv": ("chile", ["region", "sex", "education", "vote"]),
}


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return {
        name: survey(key)[columns].to_csv(index=False).encode("utf-8")
        for name, (key, columns) in SURVEYS.items()
    }


def _upload(client: TestClient, name: str, data: bytes) -> dict:
    r = client.post("/api/datasets", files={"file": (name, data, "text/csv")})
    assert r.status_code == 201, r.text
    return r.json()


def _k5(client: TestClient, ds_id: str, label: str) -> dict:
    r = client.post(f"/api/datasets/{ds_id}/runs", json={**K5, "label": label})
    assert r.status_code == 202, r.text
    run = _wait(client, r.json()["id"])
    assert run["status"] == "done", run["error"]
    return run


def _refused(r, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "field"} and "\n" not in body["error"]
    return body["error"]


def test_every_upload_stays_listed_with_its_runs(client, files):
    ces = _upload(client, "ces11.csv", files["ces11.csv"])
    chile = _upload(client, "chile.csv", files["chile.csv"])
    first = _k5(client, ces["id"], "ces k=5")
    second = _k5(client, chile["id"], "chile k=5")
    listed = client.get("/api/datasets").json()
    assert [d["id"] for d in listed] == [ces["id"], chile["id"]]  # oldest first
    assert [(d["name"], d["rows"], d["columns"]) for d in listed] == [
        ("ces11.csv", 2231, 5),
        ("chile.csv", 2700, 4),
    ]
    loaded = [datetime.fromisoformat(d["loaded"]) for d in listed]
    assert all(t.utcoffset() is not None for t in loaded) and loaded[0] <= loaded[1]
    assert listed[0]["loaded"] == ces["loaded"]  # the data set's own answer says it too
    assert listed[0]["runs"] == [{"id": first["id"], "label": "ces k=5", "status": "done"}]
    assert listed[1]["runs"] == [{"id": second["id"], "label": "chile k=5", "status": "done"}]
    assert listed[0]["version"] == ces["version"]
    # The first file, opened again after the second: its roles and its run with its result.
    again = client.get(f"/api/datasets/{ces['id']}").json()
    assert [c["role"] for c in again["columns"]] == [c["role"] for c in ces["columns"]]
    (run,) = again["runs"]
    assert run["id"] == first["id"] and run["result"]["models"][0]["holds"]
    # A schema change counts in the list's version (a page sees another tab's change).
    change = {"columns": {"abortion": {"role": "sensitive"}}}
    changed = client.put(f"/api/datasets/{ces['id']}/schema", json=change).json()
    assert client.get("/api/datasets").json()[0]["version"] == changed["version"] > ces["version"]


def test_the_limit_refuses_one_more_until_one_is_removed(tmp_path, files):
    with TestClient(create_app(tmp_path, max_datasets=2), base_url=LOCAL) as client:
        ces = _upload(client, "ces11.csv", files["ces11.csv"])
        _upload(client, "chile.csv", files["chile.csv"])
        run = _k5(client, ces["id"], "ces k=5")
        r = client.post("/api/datasets", files={"file": ("more.csv", files["chile.csv"])})
        message = _refused(r, 409)
        assert message == (
            "the workbench holds 2 data sets, its limit: remove one, with its runs, before "
            "loading another"
        )
        assert _refused(client.post("/api/datasets", json={"bundled": "arx_adult"}), 409)
        assert len(client.get("/api/datasets").json()) == 2  # nothing kept of the refused ones
        work = next(tmp_path.glob("microanon-workbench-*"))
        assert len(list((work / "data").iterdir())) == 2

        upload = Path(client.app.state.workbench.datasets[ces["id"]].path)
        run_dir = client.app.state.workbench.runs[run["id"]].directory
        assert client.delete(f"/api/datasets/{ces['id']}").status_code == 204
        # Its runs, steps and files go with it.
        assert _refused(client.get(f"/api/datasets/{ces['id']}"), 404)
        assert _refused(client.get(f"/api/runs/{run['id']}"), 404)
        assert not upload.parent.exists() and not run_dir.exists()
        assert ces["id"] not in client.app.state.workbench.pipelines
        assert _refused(client.delete(f"/api/datasets/{ces['id']}"), 404)
        assert [d["name"] for d in client.get("/api/datasets").json()] == ["chile.csv"]
        _upload(client, "ces11.csv", files["ces11.csv"])  # room again


def test_a_data_set_with_a_run_under_way_is_not_removed(client):
    ds = _dataset(client, BIG_LATTICE)
    run_id = client.post(f"/api/datasets/{ds['id']}/runs", json=HEURISTIC).json()["id"]
    _poll(client, run_id, lambda x: x["progress"]["search"], "a search reported")
    message = _refused(client.delete(f"/api/datasets/{ds['id']}"), 409)
    assert message == (
        "data set 'adult.csv' has the run 'heuristic' running: remove it when its runs have ended"
    )
    assert client.get(f"/api/datasets/{ds['id']}").status_code == 200  # nothing removed
    assert client.post(f"/api/runs/{run_id}/stop").status_code == 202
    _poll(client, run_id, lambda x: x["status"] == "done", "the end of the run")
    assert client.delete(f"/api/datasets/{ds['id']}").status_code == 204


def test_removing_the_file_given_at_start_leaves_the_file(tmp_path, files):
    data = tmp_path / "mine" / "chile.csv"
    data.parent.mkdir()
    data.write_bytes(files["chile.csv"])
    work = tmp_path / "work"
    work.mkdir()
    app = create_app(work, preload=(data, ReadOptions()))
    with TestClient(app, base_url=LOCAL) as client:
        (listed,) = client.get("/api/datasets").json()
        assert client.delete(f"/api/datasets/{listed['id']}").status_code == 204
        assert client.get("/api/datasets").json() == []
    assert data.read_bytes() == files["chile.csv"]


def test_a_run_is_not_started_on_a_data_set_removed_meanwhile(tmp_path, files):
    bench = Workbench(tmp_path)
    try:
        path = tmp_path / "chile.csv"
        path.write_bytes(files["chile.csv"])
        ds = bench.add_file(path, path.name, ReadOptions())
        bench.remove_dataset(ds.id)
        with pytest.raises(RequestError) as refused:
            bench.start_run(ds, K5)  # the page had it open: 404, and no run is kept
        assert refused.value.status == 404 and not bench.runs
        assert not list((bench.workdir / "runs").iterdir())
    finally:
        bench.close()
