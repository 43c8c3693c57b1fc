"""Fixtures of the apps tests: a real PostgreSQL server for the collection service, a
workbench client and the Adult upload for the workbench."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from oracles import unavailable
from starlette.testclient import TestClient

from microanon.apps.workbench import create_app
from microanon.datasets import load_dataset


def _pg_binaries() -> Path | None:
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL server for this session (trust authentication on loopback).

    Started from Debian's postgresql binaries; without them, or when the server does not start,
    the tests using it fail under CI and skip elsewhere (:func:`oracles.unavailable`).
    """
    from microanon.apps.server.run import free_port

    bindir = _pg_binaries()
    if bindir is None:
        unavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's "
            "'postgresql' package to run the PostgreSQL storage tests"
        )
    # Not under pytest's temporary root: that is private to the current user.
    root = Path(tempfile.mkdtemp(prefix="microanon-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        if shutil.which("runuser") is None:
            unavailable("running as root without 'runuser': cannot start PostgreSQL")
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            unavailable(f"could not start PostgreSQL ({args[0]}): {done.stderr.strip()[:300]}")

    run(str(bindir / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres", "-E", "UTF8")
    run(
        str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "-o",
        f"-p {port} -k {sock} -h 127.0.0.1 -c fsync=on", "start",
    )  # fmt: skip
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    yield url
    subprocess.run(
        [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
        capture_output=True,
        timeout=60,
    )
    time.sleep(0.1)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_db(postgres_url: str) -> str:
    """A fresh database on the session's server."""
    import uuid

    import psycopg

    name = "t" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a threaded local Dask cluster that every test of a module runs on."""
    from microanon.scale.client import local_cluster

    with local_cluster(n_workers=2, threads_per_worker=1, processes=False) as cluster:
        yield cluster.scheduler_address


#: The workbench's own address (``LOCAL`` of the workbench tests): other hosts are refused.
WORKBENCH = "http://127.0.0.1:8765"


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A workbench on its own temporary directory."""
    with TestClient(create_app(tmp_path), base_url=WORKBENCH) as c:
        yield c


@pytest.fixture(scope="module")
def adult_csv() -> bytes:
    """The first 1,500 records of ARX's Adult as an uploaded CSV file."""
    return load_dataset("arx_adult").head(1500).to_csv(index=False).encode("utf-8")
