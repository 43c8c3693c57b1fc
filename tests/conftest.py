"""Shared test fixtures: the reference data, from ../shared/data or from the package's bundle."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The independent reference folder ../shared/data; tests that need it skip where it is absent.

    Only the bundle's own checks (checksums, re-bundling) need it: everything else uses
    :func:`reference_data`, which is always available.
    """
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA


@pytest.fixture(scope="session")
def reference_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference files (adult/, arx-adult/, nursery/) unpacked from the package's bundle.

    The bundle is byte-identical to ../shared/data (checked by tests/datasets against
    ../shared/data/SHA256SUMS), so tests run the same on machines without ../shared/data.
    """
    from microanon.datasets import _files

    root = tmp_path_factory.mktemp("reference-data")
    for rel in _files.expected_checksums():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_files.read_bytes(rel))
    return root
