"""The collection service's HTTP API, in process (Starlette's TestClient), on SQLite and
PostgreSQL: answers, exactly-once acceptance, bad input, the export token."""

from __future__ import annotations

import base64
import json
from fractions import Fraction
from pathlib import Path

import httpx
import pytest
from collect_helpers import (
    TOKEN,
    load_respondents,
    load_survey_document,
    survey_document,
    write_survey,
)
from starlette.testclient import TestClient

from microanon.apps.server import (
    CollectionService,
    ServiceProcess,
    StoreError,
    create_app,
    load_service_config,
    open_store,
    parse_service_config,
    survey_fingerprint,
)
from microanon.apps.server.app import client_address
from microanon.apps.server.config import invitation_hash
from microanon.core.errors import HierarchyError, InputError
from microanon.methods.collect import CollectedSet, gtr

SID = "respondent-0001"


def _app(tmp_path: Path, storage: str = "collected.sqlite") -> TestClient:
    return TestClient(create_app(load_service_config(write_survey(tmp_path, storage))))


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request: pytest.FixtureRequest, tmp_path: Path):
    storage = "collected.sqlite"
    if request.param == "postgresql":
        storage = request.getfixturevalue("postgres_db")
    with _app(tmp_path, storage) as c:
        yield c


def _post(c: TestClient, body: object, **kw: object):
    return c.post("/submissions", content=json.dumps(body), **kw)


def _version(c: TestClient) -> int:
    return c.get("/health").json()["version"]


def test_survey_definition(client: TestClient) -> None:
    doc = client.get("/survey").json()
    assert doc["quasi"] == ["age"] and doc["sensitive"] == "disease"
    assert Fraction(doc["tau"]) == Fraction(1, 2)
    assert doc["loss"] == "paper" and doc["mode"] == "exact" and doc["version"] == 0
    assert "export_token" not in json.dumps(doc) and TOKEN not in json.dumps(doc)


def test_submit_fetch_and_exactly_once(client: TestClient) -> None:
    r = _post(client, {"id": SID, "version": 0, "tuple": {"age": "25-29", "disease": "Resp"}})
    assert r.status_code == 201 and r.json() == {"status": "accepted", "id": SID, "version": 1}
    # The same submission again (a retry whose answer was lost): recognized, not stored twice.
    r = _post(client, {"id": SID, "version": 0, "tuple": {"age": "25-29", "disease": "Resp"}})
    assert r.status_code == 200 and r.json()["status"] == "duplicate" and r.json()["version"] == 1
    # The same id with another tuple is refused.
    r = _post(client, {"id": SID, "version": 1, "tuple": ["Any", "AnyD"]})
    assert r.status_code == 422 and "already used" in r.json()["error"]
    # Computed against an old version: 409 with the current one, nothing stored.
    r = _post(client, {"id": "respondent-0002", "version": 0, "tuple": ["Any", "Dig"]})
    assert r.status_code == 409 and r.json()["version"] == 1
    r = _post(client, {"id": "respondent-0002", "version": 7, "tuple": ["Any", "Dig"]})
    assert r.status_code == 409 and r.json()["version"] == 1
    r = _post(client, {"id": "respondent-0002", "version": 1, "tuple": ["Any", "Dig"]})
    assert r.status_code == 201 and r.json()["version"] == 2
    # The compressed set and a delta.
    from microanon.methods.collect import Survey

    survey = Survey.from_dict(client.get("/survey").json())
    for enc in ("bits", "index"):
        r = client.get("/collected", params={"encoding": enc})
        assert r.status_code == 200 and r.headers["X-Collected-Version"] == "2"
        got = CollectedSet.from_bytes(survey, r.content)
        assert got.version == 2
        assert sorted(got.pairs()) == [(("25-29", "Resp"), 1), (("Any", "Dig"), 1)]
    delta = CollectedSet.from_bytes(survey, client.get("/collected?since=1").content)
    assert delta.pairs() == [(("Any", "Dig"), 1)] and delta.version == 2
    assert client.get("/collected?since=5").status_code == 409
    assert client.get("/collected?since=-1").status_code == 400
    assert client.get("/collected?encoding=zip").status_code == 400


def test_unprotected_submissions_are_refused(client: TestClient) -> None:
    """The server refuses a tuple that protects no respondent it can come from (422 naming τ and
    the achieved Pv); with leaf quasi-identifiers that is its respondent's own Pv."""
    raw = {"id": SID, "version": 0, "tuple": {"age": "25-29", "disease": "Flu"}}
    r = _post(client, raw)
    assert r.status_code == 422, r.text
    doc = r.json()
    assert doc["reason"] == "unprotected" and doc["respondent_known"] is True
    assert doc["tau"] == "1/2" and doc["pv"] == "0" and doc["version"] == 0
    assert "Pv = 0 < τ = 1/2" in doc["error"]
    assert _version(client) == 0
    # Nothing was stored: the id is still free, and Pv = τ exactly is accepted.
    r = _post(client, {"id": SID, "version": 0, "tuple": {"age": "25-29", "disease": "Resp"}})
    assert r.status_code == 201 and r.json()["version"] == 1
    # Generalized: refused only if no base tuple under it is protected. ⟨Any, Flu⟩ gives Pv 0 in
    # three age cells and 2/5 in the 25-29 cell; the answer names the best of them.
    r = _post(client, {"id": "respondent-0002", "version": 1, "tuple": ["Any", "Flu"]})
    assert r.status_code == 422 and r.json()["pv"] == "2/5"
    assert r.json()["respondent_known"] is False and "highest Pv" in r.json()["error"]
    # Computed against an older version with a change that matters: 409 comes first.
    r = _post(client, {"id": "respondent-0002", "version": 0, "tuple": ["25-29", "Flu"]})
    assert r.status_code == 409 and r.json()["version"] == 1
    # ⟨Any, Dig⟩ protects every age cell: accepted.
    r = _post(client, {"id": "respondent-0002", "version": 1, "tuple": ["Any", "Dig"]})
    assert r.status_code == 201 and r.json()["version"] == 2
    r = client.get("/export?format=json", headers={"Authorization": f"Bearer {TOKEN}"})
    assert [p["tuple"] for p in r.json()["pairs"]] == [
        {"age": "25-29", "disease": "Resp"},
        {"age": "Any", "disease": "Dig"},
    ]


@pytest.mark.parametrize("tau", [0.6, 0.8])
def test_honest_gtr_submissions_are_never_refused(tmp_path: Path, tau: float) -> None:
    """GTR's answers, computed against the current or a slightly stale version (as concurrent
    clients do), are accepted or sent back with 409, never refused as unprotected."""
    cfg = parse_service_config(load_survey_document("c.sqlite", tau=tau), tmp_path)
    survey = cfg.survey
    snapshots = [CollectedSet(survey)]  # the set at every version
    generalized = 0
    with TestClient(create_app(cfg)) as c:
        for i, o in enumerate(load_respondents(250, seed=3)):
            v = max(0, len(snapshots) - 1 - i % 3)
            while True:
                t = gtr(o, snapshots[v], survey, cfg.tau)
                if t is None:
                    break
                body = {"id": f"honest-{i:06d}", "version": v, "tuple": list(t.labels)}
                r = _post(c, body)
                if r.status_code != 409:
                    break
                v = r.json()["version"]
            if t is None:
                continue
            assert r.status_code == 201, r.text
            generalized += not all(
                tx.is_leaf[code] for tx, code in zip(survey.quasi_taxonomies, t.codes, strict=False)
            )
            grown = CollectedSet.from_bytes(survey, snapshots[-1].to_bytes())
            grown.add_codes(t.codes)
            snapshots.append(grown)
        assert _version(c) == len(snapshots) - 1 > 100
    assert generalized > 0


BAD = [
    ({"id": SID, "version": 0, "tuple": {"age": "40-49", "disease": "Flu"}}, 422, "40-49"),
    ({"id": SID, "version": 0, "tuple": {"age": "[20-35]", "disease": "Flu"}}, 422, "age"),
    ({"id": SID, "version": 0, "tuple": ["25-29"]}, 422, "2 attributes"),
    ({"id": SID, "version": 0, "tuple": ["25-29", "Flu", "x"]}, 422, "3 value"),
    ({"id": SID, "version": 0, "tuple": {"age": "25-29", "zip": "1"}}, 422, "zip"),
    ({"id": SID, "version": 0, "tuple": {"age": None, "disease": "Flu"}}, 422, "string"),
    ({"id": SID, "version": 0, "tuple": "25-29,Flu"}, 400, "tuple"),
    ({"id": SID, "version": -1, "tuple": ["Any", "AnyD"]}, 400, "version"),
    ({"id": SID, "version": "0", "tuple": ["Any", "AnyD"]}, 400, "version"),
    ({"id": "x", "version": 0, "tuple": ["Any", "AnyD"]}, 400, "id"),
    ({"version": 0, "tuple": ["Any", "AnyD"]}, 400, "missing id"),
    ({"id": SID, "version": 0, "tuple": ["Any", "AnyD"], "original": ["a"]}, 400, "unknown"),
    ([1, 2], 400, "JSON object"),
]


@pytest.mark.parametrize(("body", "status", "words"), BAD)
def test_bad_submissions_leave_the_set_unchanged(
    client: TestClient, body: object, status: int, words: str
) -> None:
    r = _post(client, body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert _version(client) == 0


def test_malformed_and_oversized_bodies(client: TestClient) -> None:
    r = client.post("/submissions", content=b'{"id": "abc')
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = client.post("/submissions", content=b"\xff\xfe")
    assert r.status_code == 400
    big = {"id": SID, "version": 0, "tuple": ["Any", "AnyD"], "pad": "x" * 20_000}
    r = _post(client, big)
    assert r.status_code == 413
    assert _version(client) == 0
    assert client.get("/submissions").status_code == 405


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"[" * 5000 + b"]" * 5000, "nests"),
        (b'{"id": ' + b"[" * 900 + b"]" * 900 + b', "version": 0, "tuple": []}', "nests"),
        (b'{"id": "respondent-0001", "version": ' + b"9" * 5000 + b', "tuple": []}', "digits"),
        (
            b'{"id": "respondent-0001", "version": 0, "tuple": {"age": ' + b"7" * 30 + b"}}",
            "19 dig",
        ),
        (b'{"id": "' + b"[{" * 3000 + b'", "version": 0, "tuple": []}', "id:"),
        (b"\xff\xfe", "UTF-8"),
        (b'"text"', "JSON object"),
        (b"null", "JSON object"),
    ],
)
def test_odd_bodies_get_a_one_line_400(tmp_path: Path, body: bytes, words: str) -> None:
    """Deep nesting (a RecursionError in the parser), integers past Python's digit limit, bodies
    that are not objects: 400 with one short line, never a traceback; brackets inside strings
    do not count as nesting."""
    with _app(tmp_path) as c:
        r = c.post("/submissions", content=body)
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert words in error and "\n" not in error and len(error) < 120, error
        assert _version(c) == 0


def _limited(tmp_path: Path, peer: str, **extra: object) -> TestClient:
    """The service with ``rate_limit: 2``, every request coming from ``peer``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = load_service_config(write_survey(tmp_path, rate_limit=2, **extra))
    return TestClient(create_app(config), client=(peer, 40000))


def _statuses(c: TestClient, forwarded: list[str]) -> list[int]:
    body = {"id": SID, "version": 0, "tuple": ["Any", "AnyD"]}
    return [_post(c, body, headers={"X-Forwarded-For": f}).status_code for f in forwarded]


def test_forwarded_for_does_not_bypass_the_rate_limit(tmp_path: Path) -> None:
    """Without trusted proxies, X-Forwarded-For is ignored: one client is one address."""
    spoofed = ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
    for peer in ("10.0.0.5", "127.0.0.1"):
        with _limited(tmp_path / peer, peer) as c:
            assert _statuses(c, spoofed) == [201, 200, 429]


def test_forwarded_for_is_believed_from_a_trusted_proxy(tmp_path: Path) -> None:
    with _limited(tmp_path / "a", "10.0.0.5", trusted_proxies=["10.0.0.0/24"]) as c:
        clients = ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
        assert _statuses(c, clients) == [201, 200, 200]  # three clients behind the proxy
        # A client that prepends addresses of its own is still counted under the address the
        # proxy appended.
        forged = [f"203.0.113.{i}, 198.51.100.9" for i in range(3)]
        assert _statuses(c, forged) == [200, 200, 429]
    with _limited(tmp_path / "b", "10.0.1.5", trusted_proxies=["10.0.0.0/24"]) as c:
        assert _statuses(c, clients) == [201, 200, 429]  # not from the proxy: ignored
    config = load_service_config(write_survey(tmp_path / "b", trusted_proxies=["10.0.0.5"]))
    assert config.trusted_proxies == ("10.0.0.5/32",)
    again = parse_service_config(config.to_document(), tmp_path)
    assert again.trusted_proxies == config.trusted_proxies


def test_client_address() -> None:
    import ipaddress

    proxies = (ipaddress.ip_network("10.0.0.0/24"), ipaddress.ip_network("::1"))
    assert client_address("198.51.100.1", ["203.0.113.7"], proxies) == "198.51.100.1"
    assert client_address("testclient", ["203.0.113.7"], proxies) == "testclient"
    assert client_address("10.0.0.5", [], proxies) == "10.0.0.5"
    assert client_address("10.0.0.5", ["203.0.113.7"], proxies) == "203.0.113.7"
    assert client_address("::1", ["a, 203.0.113.7 , 10.0.0.9"], proxies) == "203.0.113.7"
    assert client_address("10.0.0.5", ["1.2.3.4", "10.0.0.9"], proxies) == "1.2.3.4"
    assert client_address("10.0.0.5", ["10.0.0.8, 10.0.0.9"], proxies) == "10.0.0.8"
    assert client_address("10.0.0.5", ["203.0.113.7"], ()) == "10.0.0.5"


def test_served_by_uvicorn_forwarded_for_from_loopback_is_ignored(tmp_path: Path) -> None:
    """uvicorn's default would take X-Forwarded-For from any loopback client as its address."""
    with ServiceProcess(write_survey(tmp_path, rate_limit=2)) as server:
        body = json.dumps({"id": SID, "version": 0, "tuple": ["Any", "AnyD"]})
        codes = [
            httpx.post(
                f"{server.url}/submissions",
                content=body,
                headers={"X-Forwarded-For": f"198.51.100.{i}"},
                timeout=10,
            ).status_code
            for i in range(3)
        ]
    assert codes == [201, 200, 429]


def test_export_needs_the_token(client: TestClient) -> None:
    _post(client, {"id": SID, "version": 0, "tuple": ["25-29", "Resp"]})
    assert client.get("/export").status_code == 401
    r = client.get("/export", headers={"Authorization": "Bearer wrong-token-0000000000"})
    assert r.status_code == 403 and "wrong" in r.json()["error"]
    r = client.get("/export", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and r.text.splitlines() == ["age,disease,count", "25-29,Resp,1"]
    r = client.get("/export?format=json", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.json()["pairs"] == [{"tuple": {"age": "25-29", "disease": "Resp"}, "count": 1}]
    assert _version(client) == 1


def test_export_adds_nothing_to_the_public_set(client: TestClient) -> None:
    """As docs/collection.md says: GET /collected, with no token, gives everything /export gives
    (the same pairs, order, counts and version) and even the order of acceptance; no endpoint
    serves submission ids; and the docs call the collected set public, not protected."""
    tuples = [["25-29", "Resp"], ["Any", "Dig"], ["25-29", "Resp"], ["30-34", "AnyD"]]
    ids = [f"secret-id-{i:04d}" for i in range(len(tuples))]
    for i, (sid, t) in enumerate(zip(ids, tuples, strict=True)):
        assert _post(client, {"id": sid, "version": i, "tuple": t}).status_code == 201
    from microanon.methods.collect import Survey

    public = client.get("/survey").text
    survey = Survey.from_dict(json.loads(public))
    anon = client.get("/collected")
    got = CollectedSet.from_bytes(survey, anon.content)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    doc = client.get("/export?format=json", headers=auth).json()
    assert set(doc) == {"version", "attributes", "pairs"}
    assert doc["version"] == got.version == 4 and doc["attributes"] == survey.attributes
    assert [(tuple(p["tuple"].values()), p["count"]) for p in doc["pairs"]] == got.pairs()
    csv = client.get("/export", headers=auth)
    assert csv.text == got.to_frame().to_csv(index=False)
    # The order of acceptance, without a token: the first tuple after version v is version v+1.
    order = [
        list(
            CollectedSet.from_bytes(survey, client.get(f"/collected?since={v}").content).pairs()[0][
                0
            ]
        )
        for v in range(len(tuples))
    ]
    assert order == tuples
    # Submission ids are served by no endpoint.
    bodies = [public, anon.content.decode("latin-1"), csv.text, json.dumps(doc)]
    bodies += [client.get(f"/collected?since={v}").content.decode("latin-1") for v in range(4)]
    bodies.append(client.get("/health").text)
    assert not any(sid in body for sid in ids for body in bodies)
    # What the documentation says about it.
    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "collection.md").read_text(encoding="utf-8")
    assert "### What is public" in guide and "public by design" in guide
    assert "only way to read" not in guide
    assert "token-protected" not in (root / "README.md").read_text(encoding="utf-8")
    from microanon.apps.server import app as app_module

    assert "public by design" in (app_module.__doc__ or "")


def test_restart_reloads_the_set_and_refuses_another_survey(tmp_path: Path) -> None:
    with _app(tmp_path) as c:
        for i, t in enumerate([["25-29", "Resp"], ["Any", "Dig"], ["25-29", "Resp"]]):
            assert _post(c, {"id": f"resp-{i:06d}", "version": i, "tuple": t}).status_code == 201
    with _app(tmp_path) as c:
        assert _version(c) == 3
        assert (
            _post(c, {"id": "resp-000000", "version": 3, "tuple": ["25-29", "Resp"]}).json()[
                "status"
            ]
            == "duplicate"
        )
    doc = survey_document("collected.sqlite")
    doc["tau"] = 0.7
    with pytest.raises(StoreError, match="another survey"):
        CollectionService(parse_service_config(doc, tmp_path))


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"tau": 0}, InputError, "tau"),
        ({"tau": "2/1"}, InputError, "tau"),
        ({"tau": "x"}, InputError, "tau"),
        ({"loss": "l2"}, InputError, "loss"),
        ({"mode": "fast"}, InputError, "mode"),
        ({"export_token": "short"}, InputError, "16 characters"),
        ({"export_token": "env:MICROANON_TEST_UNSET_VAR"}, InputError, "not set"),
        ({"storage": "mysql://db"}, InputError, "unsupported"),
        ({"max_body_bytes": 10}, InputError, "max_body_bytes"),
        ({"trusted_proxies": "10.0.0.5"}, InputError, "trusted_proxies: a list"),
        ({"trusted_proxies": ["proxy.example"]}, InputError, "trusted_proxies: 'proxy"),
        ({"trusted_proxies": ["10.0.0.5/8"]}, InputError, "trusted_proxies: '10.0.0.5/8'"),
        ({"colour": "red"}, InputError, "unknown key"),
        ({"weights": {"zip": {"a": 1}}}, InputError, "zip"),
        ({"weights": {"disease": {"Plague": 1}}}, HierarchyError, "Plague"),
    ],
)
def test_bad_survey_files(tmp_path: Path, change: dict, error: type, words: str) -> None:
    doc = {**survey_document("collected.sqlite"), **change}
    with pytest.raises(error, match=words):
        parse_service_config(doc, tmp_path)


def test_survey_file_needs_taxonomies_and_one_sensitive(tmp_path: Path) -> None:
    doc = survey_document("collected.sqlite")
    doc["schema"]["age"]["hierarchy"] = {"builder": "intervals", "widths": [5]}
    with pytest.raises(HierarchyError, match="taxonomy in the file"):
        parse_service_config(doc, tmp_path)
    doc = survey_document("collected.sqlite")
    doc["schema"]["age"]["role"] = "sensitive"
    with pytest.raises(InputError, match="exactly one sensitive"):
        parse_service_config(doc, tmp_path)


def test_weights_and_document_round_trip(tmp_path: Path) -> None:
    doc = {
        **survey_document("c.sqlite"),
        "weights": {"disease": {"Flu": 3, "Cold": 1, "Ulcer": 1, "Gastritis": 1}},
    }
    cfg = parse_service_config(doc, tmp_path)
    assert cfg.survey.sa.leaf_weight.tolist() == [3, 1, 1, 1]
    again = parse_service_config(cfg.to_document(), tmp_path)
    assert again.survey == cfg.survey and again.tau == cfg.tau
    assert again.storage == cfg.storage and again.export_token == cfg.export_token


@pytest.mark.parametrize("policy", ["relevant", "any"])
def test_stale_submissions_are_refused_only_when_the_change_can_matter(
    tmp_path: Path, policy: str
) -> None:
    """A tuple accepted since V matters when, in every quasi-identifier, it and the submission lie
    on one ancestor chain: only then can it be in the respondent's anonymous group."""
    cfg = parse_service_config({**survey_document("c.sqlite"), "conflicts": policy}, tmp_path)
    with TestClient(create_app(cfg)) as c:
        assert (
            _post(c, {"id": "resp-000001", "version": 0, "tuple": ["20-24", "Resp"]}).json()[
                "version"
            ]
            == 1
        )
        # 30-34 and 20-24 are on different chains: no respondent of ⟨30-34, ·⟩ is affected.
        r = _post(c, {"id": "resp-000002", "version": 0, "tuple": ["30-34", "Dig"]})
        if policy == "relevant":
            assert r.status_code == 201 and r.json()["version"] == 2
        else:
            assert r.status_code == 409 and r.json()["version"] == 1
            r = _post(c, {"id": "resp-000002", "version": 1, "tuple": ["30-34", "Dig"]})
            assert r.status_code == 201
        # 20-29 generalizes 20-24: the respondent's group may have changed, so 409 with the delta.
        r = _post(c, {"id": "resp-000003", "version": 0, "tuple": ["20-29", "Cold"]})
        assert r.status_code == 409 and r.json()["version"] == 2
        survey = cfg.survey
        delta = CollectedSet.from_bytes(survey, base64.b64decode(r.json()["delta"]))
        assert sorted(delta.pairs()) == [(("20-24", "Resp"), 1), (("30-34", "Dig"), 1)]
        assert delta.version == 2
        assert _version(c) == 2


@pytest.mark.parametrize(("durability", "level"), [("crash", 1), ("power", 2)])
def test_durability_sets_sqlite_synchronous(tmp_path: Path, durability: str, level: int) -> None:
    doc = survey_document("collected.sqlite")
    doc["durability"] = durability
    service = CollectionService(parse_service_config(doc, tmp_path))
    assert service.store._conn.execute("PRAGMA synchronous").fetchone()[0] == level


# ------------------------------------------------------------------------------ invitations
INVITES = ["invite-alpha-0001", "invite-bravo-0002", "invite-charlie-0003"]


@pytest.fixture(params=["sqlite", "postgresql"])
def invited(request: pytest.FixtureRequest, tmp_path: Path):
    storage = "collected.sqlite"
    if request.param == "postgresql":
        storage = request.getfixturevalue("postgres_db")
    (tmp_path / "tokens.txt").write_text(
        "# one invitation a line\n" + "\n".join(INVITES) + "\n\n", encoding="utf-8"
    )
    config = load_service_config(write_survey(tmp_path, storage, invitations="tokens.txt"))
    with TestClient(create_app(config)) as c:
        yield c, config


def _invite(token: str) -> dict[str, str]:
    return {"X-Invitation": token}


def _row(i: int, version: int) -> dict:
    tuples = [{"age": "25-29", "disease": "Resp"}, {"age": "30-34", "disease": "Dig"}]
    return {"id": f"invited-{i:04d}", "version": version, "tuple": tuples[i % 2]}


def test_invitations_one_submission_each(invited) -> None:
    c, _ = invited
    assert c.get("/survey").json()["invitations"] is True
    # Missing and unknown invitations are refused before anything is stored.
    r = _post(c, _row(0, 0))
    assert r.status_code == 401 and r.json()["reason"] == "invitation_missing"
    assert "invitation" in r.json()["error"]
    r = _post(c, _row(0, 0), headers=_invite("not-an-invitation"))
    assert r.status_code == 403 and r.json()["reason"] == "invitation_unknown"
    assert _version(c) == 0
    # A valid one: accepted; a retry of that same submission is still recognized.
    r = _post(c, _row(0, 0), headers=_invite(INVITES[0]))
    assert r.status_code == 201, r.json()
    r = _post(c, _row(0, 0), headers=_invite(INVITES[0]))
    assert r.status_code == 200 and r.json()["status"] == "duplicate"
    # A second submission under the same invitation is refused, with a clear message.
    r = _post(c, _row(1, 1), headers=_invite(INVITES[0]))
    assert r.status_code == 403 and r.json()["reason"] == "invitation_used"
    assert "already used" in r.json()["error"]
    assert _version(c) == 1
    # A submission that is not stored (422: a raw tuple, it protects nobody) leaves its
    # invitation unused, so the respondent can send a protected tuple with it.
    raw = {"id": "invited-0001", "version": 1, "tuple": {"age": "30-34", "disease": "Ulcer"}}
    r = _post(c, raw, headers=_invite(INVITES[1]))
    assert r.status_code == 422 and r.json()["reason"] == "unprotected"
    r = _post(c, _row(1, 1), headers=_invite(INVITES[1]))
    assert r.status_code == 201, r.json()
    assert _version(c) == 2


def test_invitations_are_stored_apart_from_the_tuples(invited) -> None:
    c, config = invited
    for i, token in enumerate(INVITES[:2]):
        r = _post(c, _row(i, i), headers=_invite(token))
        assert r.status_code == 201, r.json()
    store = open_store(config.storage, survey_fingerprint(config))
    try:
        with store._transaction() as cur:
            cur.execute("SELECT * FROM submissions ORDER BY version")
            columns = [d[0] for d in cur.description]
            rows = cur.fetchall()
            cur.execute("SELECT * FROM invitations_used")
            used_columns = [d[0] for d in cur.description]
            used = sorted(h for (h,) in cur.fetchall())
    finally:
        store.close()
    # The submission rows hold the version, the client's id and the tuple: no token, no hash.
    assert columns == ["version", "id", "codes"] and len(rows) == 2
    hashes = {invitation_hash(t) for t in INVITES}
    for row in rows:
        text = " ".join(map(str, row))
        assert not any(t in text for t in INVITES) and not any(h in text for h in hashes)
    # The used invitations: their hashes only, no version, id or time to join on.
    assert used_columns == ["hash"]
    assert used == sorted(invitation_hash(t) for t in INVITES[:2])
    if config.storage.startswith("sqlite:///"):
        raw = Path(config.storage.removeprefix("sqlite:///")).read_bytes()
        assert not any(t.encode() in raw for t in INVITES)


def test_invitation_files_are_checked(tmp_path: Path) -> None:
    doc = survey_document("collected.sqlite", invitations="missing.txt")
    with pytest.raises(InputError, match="cannot read"):
        parse_service_config(doc, base_dir=tmp_path)
    (tmp_path / "tokens.txt").write_text("short\n", encoding="utf-8")
    doc["invitations"] = "tokens.txt"
    with pytest.raises(InputError, match="at least 8"):
        parse_service_config(doc, base_dir=tmp_path)
    (tmp_path / "tokens.txt").write_text("invite-0001\ninvite-0001\n", encoding="utf-8")
    with pytest.raises(InputError, match="twice"):
        parse_service_config(doc, base_dir=tmp_path)
    (tmp_path / "tokens.txt").write_text("# nothing yet\n", encoding="utf-8")
    with pytest.raises(InputError, match="no token"):
        parse_service_config(doc, base_dir=tmp_path)
    (tmp_path / "tokens.txt").write_text("invite-0001\n", encoding="utf-8")
    config = parse_service_config(doc, base_dir=tmp_path)
    assert config.invitations == frozenset({invitation_hash("invite-0001")})
    assert config.definition()["invitations"] is True
    assert (
        parse_service_config(survey_document("x.sqlite"), base_dir=tmp_path).definition()[
            "invitations"
        ]
        is False
    )
