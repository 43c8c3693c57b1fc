"""The survey page in a real browser: headless chromium driven by Playwright, against a real server.

``microanon serve`` runs in a child process on a free port with a temporary SQLite store. The
page is opened at ``/``, a respondent's answers are typed in, and the test checks what reached the
server (every request the page sends is recorded: no raw value that GTR generalized is in any of
them, and the stored tuple is what the Python ``gtr`` gives for the same collected set), what the
page shows (acceptance, an abstention built to happen, the server's 429 message) and takes
screenshots at 375 and 1280 pixels (kept under ``$MICROANON_ARTIFACTS/browser`` when that is set,
else in pytest's temporary directory).

Skips, saying why, without a chromium binary on PATH (Debian's ``chromium`` package) or without the
``playwright`` module. The browser is Debian's, never one downloaded by ``playwright install``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml
from browser_helpers import artifacts, chromium, launched_browser, sync_playwright

from microanon.apps.server.run import ServiceProcess
from microanon.methods.collect import CollectedSet, Survey, gtr

TOKEN = "test-export-token-0123456789"
AGE = {
    "*": {
        "20-29": {"20-24": list(range(20, 25)), "25-29": list(range(25, 30))},
        "30-39": {"30-34": list(range(30, 35)), "35-39": list(range(35, 40))},
    }
}
DISEASE = {"any": {"respiratory": ["flu", "cold"], "digestive": ["ulcer", "gastritis"]}}
#: Submissions sent before the page's respondents (see ``test_respondent_in_a_real_browser``).
SEEDS = 8
#: One page submission is accepted; the next send is over the limit.
RATE_LIMIT = SEEDS + 1


def survey_document(storage: Path, **extra: Any) -> dict[str, Any]:
    return {
        "schema": {
            "age": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": AGE}},
            "sex": {
                "role": "quasi",
                "hierarchy": {"builder": "nested", "tree": {"*": ["female", "male"]}},
            },
            "disease": {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": DISEASE}},
        },
        "tau": "1/2",
        "storage": str(storage),
        "export_token": TOKEN,
        "title": "Health survey",
        "help": {"age": "Your age in whole years.", "disease": "Your last diagnosis."},
        **extra,
    }


@pytest.fixture
def browser() -> Iterator[Any]:
    yield from launched_browser()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    chromium()
    sync_playwright()
    path = tmp_path / "survey.yaml"
    doc = survey_document(tmp_path / "collected.sqlite", rate_limit=RATE_LIMIT)
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with ServiceProcess(path) as proc:
        yield proc.url


def _post(url: str, sid: str, version: int, values: tuple[Any, ...]) -> int:
    tuple_ = dict(zip(("age", "sex", "disease"), values, strict=True))
    body = {"id": sid, "version": version, "tuple": tuple_}
    r = httpx.post(f"{url}/submissions", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return int(r.json()["version"])


def _collected(url: str, survey: Survey) -> CollectedSet:
    return CollectedSet.from_bytes(survey, httpx.get(f"{url}/collected", timeout=10).content)


class Recorder:
    """Every request a page sends: method, path with query, body."""

    def __init__(self, page: Any) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        page.on("request", self._seen)

    def _seen(self, request: Any) -> None:
        parts = urlsplit(request.url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        self.requests.append((request.method, path, request.post_data))

    def posts(self) -> list[dict[str, Any]]:
        return [json.loads(body or "null") for m, _, body in self.requests if m == "POST"]


def _answer(page: Any, age: int, sex: str, disease: str) -> None:
    page.fill("#field-age", str(age))
    page.select_option("#field-sex", label=sex)
    page.select_option("#field-disease", label=disease)
    page.click("#compute")


def _check_preview(page: Any, o: dict[str, Any], sent: tuple[Any, ...]) -> None:
    """The preview names, per answer, the value to be sent and why (as gtr.js decided it)."""
    for (name, answer), value in zip(o.items(), sent, strict=True):
        item = page.locator(f"#preview-list li[data-attribute={name}]")
        why = item.locator(".why").inner_text()
        if str(value) == str(answer):
            assert item.get_attribute("data-sent") == "as-answered"
            assert item.locator(".sent").inner_text() == str(answer)
            assert "sent as you answered it" in why and "keeps your disease protected" in why
        else:
            assert item.get_attribute("data-sent") == "less-precise"
            # (the taxonomies' root, "*": what is sent, said to disclose nothing)
            shown = f"{value} (not disclosed)" if str(value) == "*" else str(value)
            assert item.locator(".sent").inner_text() == shown
            assert f"less precise than your answer ({answer})" in why, why
            assert "would not keep your disease protected" in why, why
    changed = sum(str(v) != str(a) for v, a in zip(sent, o.values(), strict=True))
    why = page.inner_text("#preview-why")
    summary = {
        0: "All your answers are sent exactly as you gave them.",
        1: "1 of your 3 answers is sent less precisely than you gave it, the others exactly",
        3: "All your answers are sent less precisely than you gave them.",
    }.get(changed, f"{changed} of your 3 answers are sent less precisely than you gave them,")
    assert why.startswith(summary), why
    assert "cannot estimate any one disease for you with a probability above 50%" in why, why
    assert "answers sent later can change it" in why


def _screenshots(page: Any, out: Path, name: str) -> None:
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)


def test_respondent_in_a_real_browser(server: str, browser: Any, tmp_path: Path) -> None:
    url, out = server, artifacts(tmp_path)
    survey = Survey.from_dict(httpx.get(f"{url}/survey", timeout=10).json())
    tau = Fraction(1, 2)

    # Seeds through the API (each accepted: it protects a respondent aged 22): two digestive
    # answers at 22 and two flu answers generalized to 20-29. After them GTR generalizes the
    # age of a 23-year-old with ulcer to 20-24.
    v = 0
    for i, seed in enumerate([(22, "female", "digestive")] * 2 + [("20-29", "female", "flu")] * 2):
        v = _post(url, f"seed-{i:04d}", v, seed)

    # (a) A respondent whose age GTR generalizes: nothing raw leaves the page.
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    record = Recorder(page)
    page.goto(f"{url}/")
    page.wait_for_selector("#survey-form:not([hidden])")
    assert page.inner_text("#survey-title") == "Health survey"
    o = {"age": 23, "sex": "female", "disease": "ulcer"}
    before = _collected(url, survey)
    want = gtr(o, before, survey, tau)
    assert want is not None and want.labels[0] == "20-24", want  # the age is generalized
    intro = page.inner_text("#survey-intro")
    assert "your disease stays protected" in intro and "exactly as you gave them" in intro
    _answer(page, **o)
    page.wait_for_selector("#preview:not([hidden])")
    # Before anything is sent, each answer says what will be sent and why.
    _check_preview(page, o, want.labels)
    assert record.posts() == []  # computing sends nothing
    assert "never sent" not in page.inner_text("body")
    _screenshots(page, out, "survey-preview")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#send")
    page.wait_for_selector("#done:not([hidden])")
    assert page.inner_text("#done-text") == "Your answers were recorded as shown."

    posts = record.posts()
    assert len(posts) == 1
    body = posts[0]
    assert set(body) == {"id", "version", "tuple"} and body["version"] == before.version
    assert body["tuple"] == dict(zip(survey.attributes, want.labels, strict=True))
    without_id = json.dumps({k: x for k, x in body.items() if k != "id"})
    assert not re.search(r"\b23\b", without_id), without_id  # the exact age was not sent
    for method, path, _ in record.requests:  # nor in any URL the page asked for
        assert not re.search(r"\b23\b", path), (method, path)
    # What the server stored is what the Python gtr gives for the same collected set.
    delta = CollectedSet.from_bytes(
        survey, httpx.get(f"{url}/collected?since={before.version}", timeout=10).content
    )
    assert delta.pairs() == [(want.labels, 1)]
    export = httpx.get(
        f"{url}/export?format=json", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
    ).json()
    assert {"tuple": dict(zip(survey.attributes, want.labels, strict=True)), "count": 1} in export[
        "pairs"
    ]
    _screenshots(page, out, "survey-done")

    # (b) An abstention built to happen: four more flu answers generalized to 20-29 (each
    # accepted: it protects a respondent aged 22) over-link the cell of a 27-year-old woman, so
    # nothing protects her flu or cold answer: the page says so and sends nothing.
    v = before.version + 1
    for i in range(4, SEEDS):
        v = _post(url, f"seed-{i:04d}", v, ("20-29", "female", "flu"))
    o = {"age": 27, "sex": "female", "disease": "cold"}
    assert gtr(o, _collected(url, survey), survey, tau) is None
    page.goto(f"{url}/")
    page.wait_for_selector("#survey-form:not([hidden])")
    sent = len(record.requests)
    _answer(page, **o)
    page.wait_for_selector("#abstain:not([hidden])")
    assert "nothing was sent" in page.inner_text("#abstain-text")
    assert page.is_hidden("#preview")
    assert [m for m, _, _ in record.requests[sent:]] == ["GET"]  # the collected set, nothing else
    _screenshots(page, out, "survey-abstain")

    # (c) A refusal by the server is shown: this address used up its submissions (rate_limit).
    # Her sex is generalized to the taxonomy's root: the preview shows "*", the value sent,
    # said to disclose nothing.
    page.goto(f"{url}/")
    page.wait_for_selector("#survey-form:not([hidden])")
    o = {"age": 21, "sex": "female", "disease": "cold"}
    want = gtr(o, _collected(url, survey), survey, tau)
    assert want is not None and want.labels[1] == "*", want
    _answer(page, **o)
    page.wait_for_selector("#preview:not([hidden])")
    _check_preview(page, o, want.labels)
    page.click("#send")
    page.wait_for_selector("#error:not([hidden])")
    message = page.inner_text("#error")
    assert "refused" in message and "too many submissions" in message, message
    assert page.is_visible("#preview") and page.is_enabled("#send")  # the answers can be resent
    _screenshots(page, out, "survey-rate-limited")
    assert httpx.get(f"{url}/health", timeout=10).json()["version"] == SEEDS + 1
    context.close()


def test_results_page_in_a_real_browser(server: str, browser: Any, tmp_path: Path) -> None:
    """The data user's page: the token goes in a header only; counts, tables and the export."""
    url, out = server, artifacts(tmp_path)
    v = 0
    seeds = [(22, "female", "digestive")] * 2 + [("20-29", "female", "flu")] * 2
    for i, seed in enumerate(seeds):
        v = _post(url, f"seed-{i:04d}", v, seed)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    record = Recorder(page)
    headers: list[dict[str, str]] = []
    page.on("request", lambda r: headers.append(r.headers))
    page.goto(f"{url}/results")

    page.fill("#token", "not-the-token-0123456789")
    page.click("#show")
    page.wait_for_selector("#error:not([hidden])")
    assert "refused the token" in page.inner_text("#error")
    assert page.is_hidden("#results")

    page.fill("#token", TOKEN)
    page.click("#show")
    page.wait_for_selector("#results:not([hidden])")
    assert page.is_hidden("#error")
    assert page.inner_text("#count-tuples") == "4"
    assert page.inner_text("#count-distinct") == "2"
    assert "not known" in page.inner_text("#count-abstentions")
    row = page.locator("section[data-attribute=age] tr[data-value='20-29'] td")
    assert row.all_inner_texts()[2:] == ["2", "50%", "4"]  # exactly, share, this or under
    assert "20 … 29 (10 values)" in row.all_inner_texts()[1]
    row = page.locator("section[data-attribute=disease] tr[data-value=digestive] td")
    assert row.all_inner_texts()[2:] == ["2", "50%", "2"]
    # The reconstructed base values: 22 is 2 exact answers plus 2 × 1/10 of "20-29".
    base = "section[data-attribute={}] table.base tr[data-leaf='{}'] td"
    assert page.locator(base.format("age", 22)).all_inner_texts() == ["22", "2.20", "[2, 4]", "55%"]
    assert page.locator(base.format("disease", "ulcer")).all_inner_texts() == [
        "ulcer", "1", "[0, 2]", "25%",
    ]  # fmt: skip
    assert "certain" in page.inner_text("#reconstruction-intro")
    _screenshots(page, out, "results")
    page.set_viewport_size({"width": 1280, "height": 800})

    with page.expect_download() as info:
        page.click("#export-csv")
    download = info.value
    assert download.suggested_filename == f"collected-v{v}.csv"
    got = Path(download.path()).read_text(encoding="utf-8")
    want = httpx.get(f"{url}/export", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert got == want.text

    # The token went in the Authorization header, never in a URL or a body.
    assert all(TOKEN not in path and TOKEN not in (body or "") for _, path, body in record.requests)
    sent = [h.get("authorization") for h in headers if "authorization" in h]
    assert f"Bearer {TOKEN}" in sent
    context.close()
