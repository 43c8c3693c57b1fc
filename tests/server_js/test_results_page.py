"""The data user's page of ``microanon serve``: ``GET /results`` and the ``GET /summary`` it loads.

``/summary`` is behind the export token (the same check as ``/export``) and tabulates the
published values of every attribute, with the reconstructed distribution of the base values
(certain bounds and the weight-proportional spread, checked on hand-worked examples); the server
cannot know abstentions and says so (``null``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from starlette.testclient import TestClient

from microanon.apps.server import create_app, load_service_config
from microanon.apps.server.reconstruct import leaf_distribution
from microanon.core.errors import InputError
from microanon.core.hierarchy import Hierarchy
from microanon.methods.collect import CollectedSet, Survey, Taxonomy, average_loss

STATIC = Path(str(resources.files("microanon.apps.server") / "static"))
TOKEN = "test-export-token-0123456789"
AGE = {"*": {"20-29": {"20-24": [20, 21, 22, 23, 24], "25-29": [25, 26, 27, 28, 29]}}}
DISEASE = {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(tmp_path: Path):
    doc = {
        "schema": {
            "age": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": AGE}},
            "disease": {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": DISEASE}},
        },
        "tau": "1/2",
        "storage": str(tmp_path / "collected.sqlite"),
        "export_token": TOKEN,
    }
    path = tmp_path / "survey.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with TestClient(create_app(load_service_config(path))) as c:
        yield c


def _submit(c: TestClient, rows: list[tuple[Any, str]]) -> None:
    for i, (age, disease) in enumerate(rows):
        version = c.get("/health").json()["version"]
        body = {"id": f"respondent-{i:04d}", "version": version,
                "tuple": {"age": age, "disease": disease}}  # fmt: skip
        r = c.post("/submissions", json=body)
        assert r.status_code == 201, r.text


def _nodes(doc: dict[str, Any], name: str) -> dict[Any, dict[str, Any]]:
    (attr,) = [a for a in doc["attributes"] if a["name"] == name]
    return {n["value"]: n for n in attr["nodes"]}


def test_results_page_is_served_with_the_page_headers(client: TestClient) -> None:
    r = client.get("/results")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert (
        r.headers["content-security-policy"] == client.get("/").headers["content-security-policy"]
    )
    hooks = ("token-form", "token", "show", "results", "count-tuples", "count-distinct",
             "count-abstentions", "distributions", "export-csv", "export-json")  # fmt: skip
    for hook in hooks:
        assert f'id="{hook}"' in r.text
    assert client.get("/static/results.js").status_code == 200
    form = r.text[r.text.index("<form") : r.text.index("</form>")]
    assert " name=" not in form  # a native submission could not send the token anywhere
    assert 'type="password"' in form


def test_results_page_sends_the_token_in_a_header_only() -> None:
    script = (STATIC / "results.js").read_text(encoding="utf-8")
    assert "Authorization: `Bearer ${state.token}`" in script
    assert not re.search(r"[?&]token=", script)
    assert "localStorage" not in script.replace("no localStorage", "")
    assert "document.cookie" not in script


def test_summary_needs_the_export_token(client: TestClient) -> None:
    assert client.get("/summary").status_code == 401
    r = client.get("/summary", headers={"Authorization": "Bearer wrong-token-0123456789"})
    assert r.status_code == 403 and "wrong export token" in r.json()["error"]
    assert client.get(f"/summary?token={TOKEN}").status_code == 401  # never from the URL


def test_summary_of_an_empty_collection(client: TestClient) -> None:
    doc = client.get("/summary", headers=AUTH).json()
    assert doc["tuples"] == 0 and doc["distinct"] == 0 and doc["version"] == 0
    assert doc["abstentions"] is None and doc["average_loss"] is None
    assert [a["nodes"] for a in doc["attributes"]] == [[], []]
    for attr in doc["attributes"]:
        assert attr["spread"] == "uniform"
        assert {(b["low"], b["high"], b["estimate"]) for b in attr["leaves"]} == {(0, 0, 0.0)}


def test_summary_tabulates_the_published_values(client: TestClient) -> None:
    _submit(client, [(23, "Resp"), (23, "Resp"), ("20-24", "Dig"), ("25-29", "Resp")])
    r = client.get("/summary", headers=AUTH)
    assert r.status_code == 200 and r.headers["x-collected-version"] == "4"
    doc = r.json()
    assert doc["tuples"] == 4 and doc["distinct"] == 3 and doc["version"] == 4
    assert doc["abstentions"] is None  # respondents who abstain send nothing
    assert doc["tau"] == "1/2" and doc["loss"] == "paper"
    survey = Survey.from_dict(client.get("/survey").json())
    collected = CollectedSet.from_bytes(survey, client.get("/collected").content)
    assert Fraction(doc["average_loss"]) == average_loss(survey, collected)

    age = _nodes(doc, "age")
    assert list(age) == ["*", "20-29", "20-24", 23, "25-29"]  # taxonomy order, used nodes only
    assert age[23] == {"value": 23, "depth": 3, "leaf": True, "leaves": 1, "first": 23,
                       "last": 23, "count": 2, "under": 2}  # fmt: skip
    assert (age["20-24"]["count"], age["20-24"]["under"]) == (1, 3)
    assert (age["20-24"]["first"], age["20-24"]["last"], age["20-24"]["leaves"]) == (20, 24, 5)
    assert (age["25-29"]["count"], age["25-29"]["under"]) == (1, 1)
    assert (age["*"]["count"], age["*"]["under"], age["*"]["depth"]) == (0, 4, 0)
    disease = _nodes(doc, "disease")
    assert {v: (n["count"], n["under"]) for v, n in disease.items()} == {
        "AnyD": (0, 4), "Resp": (3, 3), "Dig": (1, 1),
    }  # fmt: skip
    assert [a["role"] for a in doc["attributes"]] == ["quasi", "sensitive"]
    # Every collected tuple is counted once per attribute, at the value it was published with.
    for attr in doc["attributes"]:
        assert sum(n["count"] for n in attr["nodes"]) == doc["tuples"]


def _base(doc: dict[str, Any], name: str) -> dict[Any, tuple[int, int, float]]:
    (attr,) = [a for a in doc["attributes"] if a["name"] == name]
    return {b["value"]: (b["low"], b["high"], b["estimate"]) for b in attr["leaves"]}


def test_summary_reconstructs_the_base_values_with_certain_bounds(client: TestClient) -> None:
    # Worked by hand: age 23 twice, "20-24" (5 ages) once, "25-29" (5 ages) once; diseases
    # "Resp" (Flu, Cold) three times, "Dig" (Ulcer, Gastritis) once. Uniform weights.
    _submit(client, [(23, "Resp"), (23, "Resp"), ("20-24", "Dig"), ("25-29", "Resp")])
    doc = client.get("/summary", headers=AUTH).json()
    age = _base(doc, "age")
    assert list(age) == list(range(20, 30))  # every base value, in taxonomy order
    assert age[23] == (2, 3, pytest.approx(2.2))  # 2 exact + 1/5 of "20-24"
    for a in (20, 21, 22, 24, 25, 26, 27, 28, 29):
        assert age[a] == (0, 1, pytest.approx(0.2))
    assert _base(doc, "disease") == {
        "Flu": (0, 3, 1.5), "Cold": (0, 3, 1.5), "Ulcer": (0, 1, 0.5), "Gastritis": (0, 1, 0.5),
    }  # fmt: skip
    for attr in doc["attributes"]:
        assert attr["spread"] == "uniform"
        assert sum(b["estimate"] for b in attr["leaves"]) == pytest.approx(doc["tuples"])
        assert all(b["low"] <= b["estimate"] <= b["high"] for b in attr["leaves"])


def test_leaf_distribution_spreads_by_the_leaf_weights() -> None:
    # Weights Flu 1, Cold 3, Ulcer 2, Gastritis 2. Published: Flu ×2, Resp ×1, AnyD ×2.
    # Flu  = 2 + 1·1/4 + 2·1/8 = 2.5     Cold = 1·3/4 + 2·3/8 = 1.5
    # Ulcer = Gastritis = 2·2/8 = 0.5; low: Flu 2, others 0; high: Flu 5, Cold 3, Dig's 2.
    h = Hierarchy.from_nested(DISEASE).with_weights([1, 3, 2, 2])
    tx = Taxonomy("disease", h)
    counts = np.zeros(tx.n_nodes, dtype=np.int64)
    for label, n in (("Flu", 2), ("Resp", 1), ("AnyD", 2)):
        counts[tx.code(label)] = n
    d = leaf_distribution(tx, counts)
    assert [tx.label(int(v)) for v in tx.leaf_node] == ["Flu", "Cold", "Ulcer", "Gastritis"]
    assert d.low.tolist() == [2, 0, 0, 0]
    assert d.high.tolist() == [5, 3, 2, 2]
    assert d.estimate.tolist() == [2.5, 1.5, 0.5, 0.5]  # exact in binary
    with pytest.raises(InputError, match="non-negative"):
        leaf_distribution(tx, -counts)
    with pytest.raises(InputError, match="non-negative"):
        leaf_distribution(tx, counts[:-1])


def test_summary_says_when_the_spread_follows_weights(tmp_path: Path) -> None:
    doc = {
        "schema": {
            "age": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": AGE}},
            "disease": {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": DISEASE}},
        },
        "weights": {"disease": {"Flu": 1, "Cold": 3, "Ulcer": 2, "Gastritis": 2}},
        "tau": "1/2",
        "storage": str(tmp_path / "collected.sqlite"),
        "export_token": TOKEN,
    }
    path = tmp_path / "survey.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with TestClient(create_app(load_service_config(path))) as c:
        _submit(c, [("20-24", "AnyD"), ("25-29", "Dig")])
        got = c.get("/summary", headers=AUTH).json()
    spreads = {a["name"]: a["spread"] for a in got["attributes"]}
    assert spreads == {"age": "uniform", "disease": "weights"}
    # AnyD: Flu 1/8, Cold 3/8, Ulcer 2/8, Gastritis 2/8; Dig: Ulcer 1/2, Gastritis 1/2.
    assert _base(got, "disease") == {
        "Flu": (0, 1, 0.125), "Cold": (0, 1, 0.375), "Ulcer": (0, 2, 0.75),
        "Gastritis": (0, 2, 0.75),
    }  # fmt: skip
