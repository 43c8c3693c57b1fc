"""The workbench follows a heuristic full-domain search and stops it (issue 33).

A run's ``progress.search`` gives the nodes checked, the best value so far and the seconds while
a heuristic search runs; ``POST /api/runs/{id}/stop`` cancels a queued run, or stops the search,
whose best node is then published as a normal verified release; a run that has ended, or that is
not in a heuristic search, is refused with one line.
"""

from __future__ import annotations

import io
import time
import zipfile

import pytest
from starlette.testclient import TestClient

from microanon.apps.workbench.errors import RequestError
from microanon.apps.workbench.runs import Run, RunProgress
from microanon.datasets import load_dataset

LOCAL = "http://127.0.0.1:8765"
#: Finer age and hours bands: eleven quasi-identifiers, a lattice of 1,270,080 nodes that the
#: heuristic search does not exhaust before it is stopped.
FINE = {"type": "intervals", "widths": [2, 4, 8, 16, 32]}
BIG_LATTICE = {
    "age": {"role": "quasi", "hierarchy": FINE},
    "hours_per_week": {"role": "quasi", "hierarchy": FINE},
    "capital_loss": {"role": "quasi"},
}
#: A heuristic run that goes on until it is stopped (the time limit is far away).
HEURISTIC = {
    "method": "full_domain",
    "params": {"search": "best-first", "time_limit": 600, "suppression": 0.02},
    "models": [{"k_anonymity": {"k": 5}}],
    "label": "heuristic",
}


def _dataset(client: TestClient, columns: dict) -> dict:
    data = load_dataset("adult").head(1500).to_csv(index=False).encode("utf-8")
    r = client.post("/api/datasets", files={"file": ("adult.csv", data, "text/csv")})
    assert r.status_code == 201, r.text
    r = client.put(f"/api/datasets/{r.json()['id']}/schema", json={"columns": columns})
    assert r.status_code == 200, r.text
    return r.json()


def _poll(client: TestClient, run_id: str, until, what: str) -> dict:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        run = client.get(f"/api/runs/{run_id}").json()
        if until(run):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id}: {what} did not happen: {run}")


def _one_line(r, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "field"} and "\n" not in body["error"]
    return body["error"]


def test_a_heuristic_search_shows_its_progress_and_stops_with_its_best_node(client):
    ds = _dataset(client, BIG_LATTICE)
    r = client.post(f"/api/datasets/{ds['id']}/runs", json=HEURISTIC)
    assert r.status_code == 202, r.text
    run_id = r.json()["id"]
    # A second run waits behind the first: stopping it cancels it, nothing of it runs.
    r = client.post(f"/api/datasets/{ds['id']}/runs", json={**HEURISTIC, "label": "queued"})
    queued = r.json()["id"]

    run = _poll(client, run_id, lambda x: x["progress"]["search"], "a search reported")
    search = run["progress"]["search"]
    assert set(search) == {"nodes", "best", "seconds", "metric"} and search["metric"] == "lm"
    assert search["nodes"] >= 0 and search["seconds"] >= 0
    assert run["status"] == "running" and run["stoppable"] and not run["stop_requested"]

    r = client.post(f"/api/runs/{queued}/stop", headers={"origin": LOCAL})
    assert r.status_code == 202, r.text
    assert "cancelled" in r.json()["message"] and r.json()["run"]["status"] == "cancelled"

    # Another site's page may not stop a run (the workbench's guard); its own page may.
    r = client.post(f"/api/runs/{run_id}/stop", headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post(f"/api/runs/{run_id}/stop", headers={"origin": LOCAL})
    assert r.status_code == 202, r.text
    assert "best node found so far" in r.json()["message"]
    assert r.json()["run"]["stop_requested"] and not r.json()["run"]["stoppable"]

    run = _poll(client, run_id, lambda x: x["status"] not in ("queued", "running"), "the end")
    assert run["status"] == "done", run["error"]
    result = run["result"]
    assert result["verified"] is True and all(m["holds"] for m in result["models"])
    assert result["search"]["kind"] == "best-first" and result["search"]["stopped"] == "stopped"
    assert "stopped by the user" in result["search"]["summary"]
    assert run["progress"]["search"] is None
    assert client.get(f"/api/runs/{run_id}/public.zip").status_code == 200
    internal = client.get(f"/api/runs/{run_id}/internal.zip")
    with zipfile.ZipFile(io.BytesIO(internal.content)) as archive:
        report = archive.read("report.html").decode("utf-8")
    assert "stopped by the user" in report  # the internal report says how the levels were found
    config = client.get(f"/api/runs/{run_id}/config.zip")
    with zipfile.ZipFile(io.BytesIO(config.content)) as archive:
        readme = " ".join(archive.read("README.txt").decode("utf-8").split())
    # it had promised the same public part byte for byte, which a stopped search does not give
    assert "a heuristic or genetic search stopped in the workbench" in readme
    assert "may reach another node" in readme

    assert "nothing to stop" in _one_line(client.post(f"/api/runs/{run_id}/stop"), 409)
    assert _one_line(client.post("/api/runs/rnope/stop"), 404)
    cancelled = client.get(f"/api/runs/{queued}").json()
    assert cancelled["status"] == "cancelled" and cancelled["result"] is None
    assert "cancelled" in _one_line(client.post(f"/api/runs/{queued}/stop"), 409)
    assert client.delete(f"/api/runs/{queued}").status_code == 204


def test_only_a_queued_run_or_a_heuristic_search_can_be_stopped(tmp_path):
    run = Run("r1", "d1", "a run", {}, tmp_path)
    progress = RunProgress(run)
    run.status = "running"
    with progress.stage("method full_domain"):
        # The exact search, another method, or a stage before the search: refused, unchanged.
        with pytest.raises(RequestError) as refused:
            run.request_stop()
        assert refused.value.status == 409 and "cannot be stopped" in str(refused.value)
        assert not run.stop.is_set() and not progress.stop_requested()
        progress.searched(12, None, 0.5)
        assert run.to_json()["progress"]["search"]["best"] is None
        progress.searched(1234, 0.41, 12.3)
        assert run.to_json()["progress"]["search"] == {
            "nodes": 1234,
            "best": 0.41,
            "seconds": 12.3,
            "metric": None,
        }
        assert run.stoppable()
        assert "no further node" in run.request_stop()
        assert progress.stop_requested() and not run.stoppable()
    assert run.to_json()["progress"]["search"] is None  # the search ended with its stage
    run.status = "done"
    with pytest.raises(RequestError) as refused:
        run.request_stop()
    assert refused.value.status == 409


def test_a_cancelled_run_does_not_start(tmp_path):
    from microanon.apps.workbench.runs import execute

    run = Run("r2", "d1", "a run", {}, tmp_path)
    assert "cancelled" in run.request_stop()
    execute(run, None, None)  # type: ignore[arg-type]  # returns before touching either
    assert run.status == "cancelled" and run.error is None and run.stop.is_set()
