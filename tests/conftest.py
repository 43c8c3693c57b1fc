"""Shared test fixtures: paths to the reference data in ../shared (tests may read it directly)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The reference data folder; tests that need it are skipped where it is absent."""
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA
