"""The collection service under load and under a crash: 20 concurrent clients submit 2,000
respondents over HTTP to a server in its own process; every submission is accepted exactly
once or sent back for recomputation, none is lost or duplicated, the final set equals the log
of accepted submissions, and every accepted tuple protects its respondent against the set at
its acceptance. With SIGKILL in the middle and a restart, the same holds."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml
from collect_helpers import TOKEN, load_respondents, load_survey_document

from microanon.apps.server import (
    CollectionClient,
    ServiceProcess,
    SubmitResult,
    load_service_config,
    open_store,
    survey_fingerprint,
)
from microanon.methods.collect import CollectedSet, protects

CLIENTS = 20
RESPONDENTS = 2_000


def _drive(url: str, respondents: list[dict[str, str]]) -> list[SubmitResult]:
    """Submit every respondent with CLIENTS concurrent clients (one per worker thread)."""
    results: list[SubmitResult | None] = [None] * len(respondents)
    local = threading.local()
    clients: list[CollectionClient] = []

    def one(i: int) -> None:
        if not hasattr(local, "client"):
            local.client = CollectionClient(url, retry_for=120)
            clients.append(local.client)
        results[i] = local.client.submit(respondents[i], submission_id=f"respondent-{i:06d}")

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, range(len(respondents))))
    for c in clients:
        c.close()
    return results  # type: ignore[return-value]


def _verify(config_file: Path, url: str, respondents: list, results: list[SubmitResult]) -> dict:
    config = load_service_config(config_file)
    survey, tau = config.survey, config.tau
    acked = {r.version: (i, r) for i, r in enumerate(results) if r.status != "abstained"}
    n_acked = sum(r.status != "abstained" for r in results)
    assert len(acked) == n_acked, "two respondents were told the same version"
    assert sorted(acked) == list(range(1, n_acked + 1)), "versions are not 1..N"
    store = open_store(config.storage, survey_fingerprint(config))
    try:
        log = store.since(0)
    finally:
        store.close()
    assert [v for v, _, _ in log] == list(range(1, n_acked + 1))
    collected = CollectedSet(survey)
    for v, _, codes in log:
        i, r = acked[v]
        assert codes == r.submission.codes, f"version {v}: the log holds another tuple"
        assert protects(respondents[i], r.submission.labels, collected, survey, tau), (
            f"respondent {i} not protected against the set at acceptance (version {v - 1})"
        )
        collected.add_codes(codes)
    with CollectionClient(url) as c:
        exported = c.export(TOKEN)
    got = Counter({tuple(row[:-1]): row[-1] for row in exported.itertuples(index=False)})
    want = Counter(r.submission.labels for _, r in acked.values())
    assert got == want
    return {"accepted": n_acked, "abstained": len(results) - n_acked}


@pytest.fixture
def survey_file(tmp_path: Path) -> Path:
    path = tmp_path / "survey.yaml"
    path.write_text(yaml.safe_dump(load_survey_document("collected.sqlite")), encoding="utf-8")
    return path


def test_twenty_clients_two_thousand_respondents(survey_file: Path) -> None:
    respondents = load_respondents(RESPONDENTS, seed=6)
    with ServiceProcess(survey_file) as server:
        started = time.perf_counter()
        results = _drive(server.url, respondents)
        seconds = time.perf_counter() - started
        counts = _verify(survey_file, server.url, respondents, results)
    assert counts["accepted"] > RESPONDENTS // 2
    assert {r.status for r in results} <= {"accepted", "abstained"}
    recomputed = sum(r.attempts - 1 for r in results)
    print(f"{counts} in {seconds:.1f} s, {recomputed} recomputations after 409")


def test_sigkill_during_load_loses_and_duplicates_nothing(survey_file: Path) -> None:
    respondents = load_respondents(RESPONDENTS, seed=7)
    with ServiceProcess(survey_file) as server:
        done: list[list[SubmitResult]] = []
        driver = threading.Thread(target=lambda: done.append(_drive(server.url, respondents)))
        driver.start()
        deadline = time.monotonic() + 120
        while httpx.get(f"{server.url}/health").json()["version"] < RESPONDENTS // 4:
            assert time.monotonic() < deadline, "the load did not get going"
            time.sleep(0.02)
        server.kill()  # SIGKILL: no shutdown, whatever was in flight is cut off
        time.sleep(0.5)
        server.restart()
        driver.join(300)
        assert not driver.is_alive() and done, "clients did not finish after the restart"
        results = done[0]
        counts = _verify(survey_file, server.url, respondents, results)
    assert counts["accepted"] > RESPONDENTS // 2


def test_concurrent_clients_on_postgresql(tmp_path: Path, postgres_db: str) -> None:
    """The same guarantees with the log in PostgreSQL (fewer respondents: the protocol is the
    same, only the store differs)."""
    path = tmp_path / "survey.yaml"
    path.write_text(yaml.safe_dump(load_survey_document(postgres_db)), encoding="utf-8")
    respondents = load_respondents(400, seed=8)
    with ServiceProcess(path) as server:
        results = _drive(server.url, respondents)
        counts = _verify(path, server.url, respondents, results)
        server.kill()
        server.restart()
        assert httpx.get(f"{server.url}/health").json()["version"] == counts["accepted"]
