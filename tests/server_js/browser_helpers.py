"""What the real-browser tests share: Debian's chromium driven by Playwright's Python client.

Without a chromium binary on PATH (Debian's ``chromium`` package) or the ``playwright`` module a
test fails under CI and skips elsewhere, saying why (``tests/oracles.py``); Playwright's own
browser downloads are never used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from oracles import require_module, require_program


def chromium() -> str:
    """The chromium binary (a failure under CI, a skip elsewhere, without one)."""
    return require_program(
        "chromium", "chromium-browser", package="chromium", why="the browser tests drive chromium"
    )


def sync_playwright() -> Any:
    """Playwright's synchronous entry point (a failure under CI, a skip elsewhere, without it)."""
    api = require_module(
        "playwright.sync_api", "the browser tests drive chromium through Playwright's Python client"
    )
    return api.sync_playwright


def artifacts(tmp_path: Path) -> Path:
    """Where a test keeps its screenshots: ``$MICROANON_ARTIFACTS/browser`` or the test's tmp."""
    root = os.environ.get("MICROANON_ARTIFACTS")
    out = Path(root) / "browser" if root else tmp_path / "artifacts"
    out.mkdir(parents=True, exist_ok=True)
    return out


def launched_browser() -> Iterator[Any]:
    """A headless chromium for one test (the body of a ``browser`` fixture)."""
    exe = chromium()
    with sync_playwright()() as p:
        b = p.chromium.launch(executable_path=exe, headless=True)
        try:
            yield b
        finally:
            b.close()
