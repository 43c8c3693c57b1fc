"""Shared test fixtures: the reference data (from ../shared/data or the package's bundle), a
read-only directory for any user, and no Hypothesis deadline."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from faults import deny_writes
from hypothesis import settings
from oracles import outside_repository
from real_surveys import survey

# No timing in the test suite: Hypothesis fails an example that takes longer than its deadline
# (200 ms by default), which a loaded machine reaches by itself. Its "ci" profile (CI set) has
# no deadline; elsewhere the default profile gets none either.
if settings.default.deadline is not None:
    settings.register_profile("microanon-no-deadline", settings.default, deadline=None)
    settings.load_profile("microanon-no-deadline")

# The suite keeps every core busy: no command starts a second process for its reports (the
# load average, which would say so, rises only after the first minute, and the threads running
# as a command begins may by chance leave a core). tests/apps/test_aside.py starts it explicitly.
os.environ.setdefault("MICROANON_ASIDE", "0")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The independent reference folder ../shared/data, beside the repository.

    Only the bundle's own checks (checksums, re-bundling) need it: everything else uses
    :func:`reference_data`, which is always available. It is not part of the repository, so
    without it those checks skip, under CI too (:func:`oracles.outside_repository`).
    """
    if not SHARED_DATA.exists():
        outside_repository(f"the reference folder {SHARED_DATA} is not available")
    return SHARED_DATA


@pytest.fixture
def read_only_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A new directory that this test may not write in, whoever runs it (root too).

    ``chmod 0o500``, which stops an ordinary user, and the refusals of the OS calls that root
    would get through (:func:`faults.deny_writes`); the mode is put back after the test.
    """
    locked = tmp_path_factory.mktemp("read-only")
    locked.chmod(0o500)
    deny_writes(monkeypatch, locked)
    yield locked
    locked.chmod(0o700)


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


@pytest.fixture(scope="session")
def survey_gss() -> pd.DataFrame:
    """The General Social Survey's abortion file (:mod:`real_surveys`)."""
    return survey("gss_abortion")
