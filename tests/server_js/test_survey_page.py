"""The survey page of ``microanon serve`` and what the server checks of what it is sent.

The page's files (served at ``/`` and ``/static/``), its security headers, the survey file's page
keys (``title``, ``help``), the rate limit, and the page's GTR (``gtr.js`` under node, fed with
the service's own ``/survey`` and ``/collected`` answers) submitting through the real API.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from oracles import require_program
from starlette.testclient import TestClient

from microanon.apps.server import create_app, load_service_config, parse_service_config
from microanon.apps.server.app import RateLimiter
from microanon.core.errors import InputError
from microanon.methods.collect import CollectedSet, Survey, gtr, protects

HERE = Path(__file__).resolve().parent
STATIC = Path(str(resources.files("microanon.apps.server") / "static"))
TOKEN = "test-export-token-0123456789"
AGE = {"*": {"20-29": [20, 21, 22, 23, 24, 25, 26, 27, 28, 29], "30-39": [30, 31, 32, 33, 34]}}
DISEASE = {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}


def _document(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "schema": {
            "age": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": AGE}},
            "sex": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": {"*": ["F", "M"]}}},
            "disease": {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": DISEASE}},
        },
        "tau": "1/2",
        "storage": str(tmp_path / "collected.sqlite"),
        "export_token": TOKEN,
        "title": "Health and work",
        "help": {"age": "Your age in whole years."},
        **extra,
    }


def _client(tmp_path: Path, **extra: Any) -> TestClient:
    path = tmp_path / "survey.yaml"
    path.write_text(yaml.safe_dump(_document(tmp_path, **extra)), encoding="utf-8")
    return TestClient(create_app(load_service_config(path)))


@pytest.fixture
def client(tmp_path: Path):
    with _client(tmp_path) as c:
        yield c


def _node() -> str:
    return require_program(
        "node", "nodejs", package="nodejs", why="the survey page's JavaScript GTR runs under node"
    )


# ------------------------------------------------------------------------------ the page
def test_page_and_its_files_are_served_with_strict_headers(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    for hook in ("survey-form", "compute", "preview", "preview-list", "preview-why", "send",
                 "edit", "abstain", "done", "status", "error"):  # fmt: skip
        assert f'id="{hook}"' in page.text
    files = (("gtr.js", "javascript"), ("survey.js", "javascript"), ("survey.css", "css"))
    for name, kind in files:
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"], name
        assert r.headers["content-security-policy"] == csp
    assert client.get("/static/missing.js").status_code == 404


def test_page_needs_nothing_from_elsewhere() -> None:
    """No CDN, no remote font or script: every URL in the page's files is relative."""
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)\s*=\s*[\"'](https?:)?//", text), path.name
        assert not re.search(r"fetch\(\s*[\"'`]https?:", text), path.name
        assert "localStorage" not in text.replace("no localStorage", ""), path.name
        assert "document.cookie" not in text, path.name


def test_form_fields_have_ids_but_no_names() -> None:
    """Without names, a native form submission (JavaScript off or broken) sends no answer."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    form = page[page.index("<form") : page.index("</form>")]
    assert " name=" not in form
    script = (STATIC / "survey.js").read_text(encoding="utf-8")
    assert ".name = " not in script and 'setAttribute("name"' not in script


def test_page_does_not_say_exact_answers_are_never_sent() -> None:
    """GTR sends an answer unchanged where that already protects the respondent, so the page
    says per answer what is sent and why, and no longer claims that exact answers never leave
    the device (nor does the guide)."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    script = (STATIC / "survey.js").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", page + script)
    for claim in ("never sent", "exact answers are never", "anonymous answers", "only the less"):
        assert claim not in text, claim
    assert "the others are sent exactly as you gave them" in text
    assert "sent as you answered it" in text and "less precise than your answer" in text
    guide = re.sub(r"\s+", " ", (HERE.parents[1] / "docs" / "collection.md").read_text("utf-8"))
    for claim in ("never hand over", "the server never receives them", "What the server never"):
        assert claim not in guide, claim


def test_survey_answer_carries_title_and_help(client: TestClient) -> None:
    doc = client.get("/survey").json()
    assert doc["title"] == "Health and work"
    assert doc["help"] == {"age": "Your age in whole years."}
    Survey.from_dict(doc)  # the Python client still reads it


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"help": {"height": "cm"}}, "not an attribute"),
        ({"help": {"age": 3}}, "attribute -> text"),
        ({"title": ""}, "title"),
        ({"rate_limit": -1}, "rate_limit"),
        ({"rate_limit": "many"}, "rate_limit"),
    ],
)
def test_bad_page_keys(tmp_path: Path, change: dict, words: str) -> None:
    with pytest.raises(InputError, match=words):
        parse_service_config(_document(tmp_path, **change), tmp_path)


# ------------------------------------------------------------------------------ server checks
def test_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    with _client(tmp_path, rate_limit=2) as c:
        values = {"age": "*", "sex": "*", "disease": "AnyD"}
        body = {"id": "abcdefgh-1", "version": 0, "tuple": values}
        assert c.post("/submissions", json=body).status_code in (201, 422)
        assert c.post("/submissions", json=body).status_code in (200, 422)
        r = c.post("/submissions", json=body)
        assert r.status_code == 429 and "too many submissions" in r.json()["error"]
        assert int(r.headers["retry-after"]) >= 1
        assert c.get("/survey").status_code == 200  # only submissions are limited


def test_rate_limiter_window() -> None:
    limiter = RateLimiter(2, window=60)
    assert limiter.hit("a", now=0) == 0 and limiter.hit("a", now=1) == 0
    assert limiter.hit("a", now=2) == pytest.approx(58)
    assert limiter.hit("b", now=2) == 0  # per address
    assert limiter.hit("a", now=60.5) == 0  # the first one left the window
    assert RateLimiter(0).hit("a") == 0
    small = RateLimiter(1, max_keys=2)
    for key in "xyz":
        small.hit(key, now=0)
    assert small.hit("x", now=0) == 0  # forgotten: the table stays bounded


@pytest.mark.parametrize(
    ("values", "status", "words"),
    [
        ({"age": "40-49", "sex": "*", "disease": "AnyD"}, 422, "not in its taxonomy"),
        ({"age": "*", "sex": "*"}, 422, "missing 'disease'"),
        ({"age": "*", "sex": "*", "disease": "AnyD", "name": "Ann"}, 422, "unknown 'name'"),
        ({"age": ["*"], "sex": "*", "disease": "AnyD"}, 422, "string or a number"),
        ({"age": True, "sex": "*", "disease": "AnyD"}, 422, "string or a number"),
    ],
)
def test_malformed_tuples_are_refused_with_a_message(
    client: TestClient, values: dict, status: int, words: str
) -> None:
    r = client.post("/submissions", json={"id": "abcdefgh-2", "version": 0, "tuple": values})
    assert r.status_code == status and words in r.json()["error"]
    assert client.get("/health").json()["version"] == 0


# ------------------------------------------------------------------------------ the page's GTR
def _page_gtr(node: str, c: TestClient, o: dict[str, Any]) -> dict[str, Any] | None:
    """What the page computes: gtr.js on the service's own /survey and /collected answers."""
    payload = {
        "survey": c.get("/survey").json(),
        "collected": base64.b64encode(c.get("/collected").content).decode("ascii"),
        "o": o,
    }
    out = subprocess.run(
        [node, str(HERE / "gtr_once.js"), str(STATIC / "gtr.js")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("mode", ["exact", "greedy"])
def test_page_gtr_submits_through_the_api_like_the_python_client(tmp_path: Path, mode: str) -> None:
    node = _node()
    with _client(tmp_path, mode=mode) as client:
        _respondents_through_the_page(node, client, mode)


def _respondents_through_the_page(node: str, client: TestClient, mode: str) -> None:
    assert client.get("/survey").json()["mode"] == mode
    survey = Survey.from_dict(client.get("/survey").json())
    respondents = [
        {"age": a, "sex": s, "disease": d}
        for a, s, d in [
            (23, "F", "Flu"), (23, "F", "Flu"), (31, "M", "Cold"), (23, "M", "Ulcer"),
            (27, "F", "Flu"), (33, "F", "Gastritis"), (20, "M", "Flu"), (23, "F", "Flu"),
            (29, "M", "Cold"), (34, "M", "Ulcer"), (21, "F", "Flu"), (23, "F", "Flu"),
        ]
    ]  # fmt: skip
    accepted = abstained = 0
    for i, o in enumerate(respondents):
        t = _page_gtr(node, client, o)
        collected = CollectedSet.from_bytes(survey, client.get("/collected").content)
        want = gtr(o, collected, survey, Fraction(1, 2), mode=mode)
        if want is None:
            assert t is None
            abstained += 1
            continue
        assert t is not None and t["codes"] == [int(x) for x in want.codes]
        _check_reasons(t, o, collected, survey, mode)
        tuple_ = dict(zip(t["attributes"], t["labels"], strict=True))
        body = {"id": f"page-respondent-{i:04d}", "version": t["version"], "tuple": tuple_}
        r = client.post("/submissions", json=body)
        assert r.status_code == 201, r.json()
        accepted += 1
    assert accepted >= 3
    assert accepted + abstained == len(respondents)


def _check_reasons(
    t: dict[str, Any], o: dict[str, Any], collected: CollectedSet, survey: Survey, mode: str
) -> None:
    """What the page says per answer (gtr.js's ``exactWouldProtect``): null where the answer is
    sent as given, else whether the respondent's own value there, the rest as sent, would protect
    them, as the Python ``protects`` decides it. In exact mode it never would (GTR's optimum)."""
    base = [int(c) for c in survey.encode_base(o)]
    for k, attribute in enumerate(survey.attributes):
        flag = t["exactWouldProtect"][k]
        if t["codes"][k] == base[k]:
            assert flag is None, (attribute, t)
            continue
        alternative = list(t["labels"])
        alternative[k] = o[attribute]
        assert flag is protects(o, alternative, collected, survey, Fraction(1, 2)), (attribute, t)
        assert not (mode == "exact" and flag), (attribute, t)


def test_page_takes_the_invitation_from_the_fragment_and_sends_it_in_a_header() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    script = (STATIC / "survey.js").read_text(encoding="utf-8")
    assert 'id="invite-box"' in page and 'id="invite"' in page
    assert not re.search(r'id="invite"[^>]*\bname=', page)  # no native submission of it
    assert 'get("invite")' in script and "window.location.hash" in script
    assert '"X-Invitation": state.invite' in script
    assert "invite=" not in re.sub(r"//.*|/\*[\s\S]*?\*/", "", script).split("fetch(")[-1]
