"""What the real-browser tests share: Debian's chromium driven by Playwright's Python client.

A test skips, saying why, without a chromium binary on PATH (Debian's ``chromium`` package) or
without the ``playwright`` module; Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def chromium() -> str:
    """The chromium binary, or a skip."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no chromium binary on PATH (Debian package 'chromium'): no browser test")
    return exe


def sync_playwright() -> Any:
    """Playwright's synchronous entry point, or a skip."""
    try:
        from playwright.sync_api import sync_playwright as entry
    except ImportError:
        pytest.skip("no playwright module (pip install playwright): no browser test")
    return entry


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
