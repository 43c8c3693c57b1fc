"""The workbench's pages as files: served by the app, self-contained, no markup built from data.

The browser walk is ``test_workbench_browser.py``; these checks need no browser: every URL in
the pages is this server's, no script writes HTML from strings, every module the page loads
exists and every file is loaded, every field has a label, and (with node) every module parses.
"""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from oracles import require_program
from starlette.testclient import TestClient

from microanon.apps.workbench.app import STATIC, create_app

SCRIPTS = sorted(STATIC.glob("*.js"))


def test_pages_are_served(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path), base_url="http://127.0.0.1:8765") as client:
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        for path in STATIC.iterdir():
            r = client.get(f"/static/{path.name}")
            kind = {"js": "javascript", "css": "css", "html": "html"}[path.suffix[1:]]
            assert r.status_code == 200 and kind in r.headers["content-type"], path.name


def test_pages_need_nothing_from_elsewhere() -> None:
    """No CDN, no remote font, script or API: every URL in the pages is relative or /-rooted."""
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)\s*=\s*[\"'](https?:)?//", text), path.name
        assert not re.search(r"(fetch|import)\s*\(?\s*[\"'`](https?:)?//", text), path.name
        assert not re.search(r"from\s+[\"'](https?:)?//", text), path.name
        assert not re.search(r"url\(\s*[\"']?(https?:)?//", text), path.name
        assert "localStorage" not in text and "document.cookie" not in text, path.name


def test_no_markup_from_strings() -> None:
    """Values from files and the server become text nodes and attributes, never parsed HTML."""
    for path in SCRIPTS:
        text = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            code = "\n".join(
                line for line in text.splitlines() if not line.lstrip().startswith(("*", "/"))
            )
            assert sink not in code, (path.name, sink)


def _imports(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r"from\s+\"\./([\w.-]+)\"", text))


def test_every_module_exists_and_every_file_is_used() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    loaded = set(re.findall(r"(?:src|href)=\"/static/([\w.-]+)\"", page))
    todo, seen = [n for n in loaded if n.endswith(".js")], set(loaded)
    while todo:
        name = todo.pop()
        assert (STATIC / name).is_file(), name
        for dep in _imports(STATIC / name) - seen:
            seen.add(dep)
            todo.append(dep)
    assert seen | {"index.html"} == {p.name for p in STATIC.iterdir()}


class _Fields(HTMLParser):
    """The page's form fields and the ids its labels point to."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[dict[str, str | None]] = []
        self.labelled: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("input", "select", "textarea"):
            self.fields.append(a)
        if tag == "label" and a.get("for"):
            self.labelled.add(str(a["for"]))


def test_every_field_has_a_label() -> None:
    parser = _Fields()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert parser.fields
    for field in parser.fields:
        assert field.get("id") in parser.labelled or field.get("aria-label"), field


def test_modules_parse_under_node() -> None:
    node = require_program(
        "node", "nodejs", package="nodejs", why="the workbench's modules are parsed by node"
    )
    for path in SCRIPTS:
        done = subprocess.run(
            [node, "--input-type=module", "--check"],
            input=path.read_text(encoding="utf-8"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, (path.name, done.stderr)
