"""Time privacy-preserving data collection (issue 6) and print a table of its three targets.

Run: .venv/bin/python benchmarks/collect.py [--quick] [--seed N] [--tau 0.3] [--clients 8]

Survey: Adult (as in our reproduction of Zhang & Zhang, DaWaK 2008) — quasi-identifiers age,
workclass, education, marital_status, race, sex, native_country, sensitive occupation, ARX's Adult
hierarchies as taxonomies (2,160 quasi-identifier generalizations per respondent), uniform leaf
weights, τ = ``--tau``.

Collected sets of 30,000 tuples (``--size``):

- **GTR-built** (the realistic one): Adult's training records (30,162 without missing values) in a
  random order each run GTR (exact) against the tuples collected before them; their outputs are
  appended until 30,000 tuples are collected (an abstaining respondent adds nothing; test records
  follow if needed). This is what the service would hold after 30,000 submissions. It takes
  about 12 s, because GTR itself is fast;
- **random levels**: 30,000 training records, every value (sensitive included) replaced by its
  ancestor at a level drawn uniformly from its chain (leaf .. root). More distinct tuples than the
  GTR-built set, so a harder case for the attack's sums and for compression.

Rows and targets:

- (a) GTR for one respondent against the 30,000 tuples, the whole public call
  ``gtr(o, collected, survey, tau, mode=...)`` from labels: median and 90th percentile over
  ``--respondents`` respondents drawn from Adult's test split (not in the set), exact and greedy
  mode, on both sets. Target: median ≤ 20 ms in exact mode;
- (b) the service (``running_service``: ``microanon serve`` in its own process, SQLite in a
  temporary directory, ``durability: crash`` unless ``--durability power``), its log preloaded
  with the GTR-built set's 30,000 tuples through the store API (what a restart reloads):
  ``--submissions`` submissions already computed by GTR against that set (fresh test-split
  respondents) are posted by ``--clients`` threads, each with its own httpx client; each thread
  sends the version it last heard of and, on 409, resends with the version the answer names
  (a real client would recompute first; the server's work per request is the same). Accepted
  submissions per second over loopback, from the first request to the last answer. Target:
  ≥ 200/s. Then, end to end: ``--e2e`` further respondents through ``CollectionClient.submit``
  (fetch the set, GTR on the client, submit, recompute after 409), ``--clients`` threads, each
  client's first fetch of the whole set included;
- (c) the GTR-built and the random-level sets as CSV (one row per collected tuple, labels, with a
  header: what a naive server would ship) against ``CollectedSet.to_bytes`` in the index and
  bit-packed encodings (header and counts included; decoding is checked to give the same set).
  Target: the compressed set at most 1/5 of the CSV. gzip -9 of the CSV is shown for reference.

Times are wall-clock (``time.perf_counter``); the client threads share one Python process, and the
server's process competes with them for the machine's cores. Randomness: a numpy Generator from
operating-system entropy unless ``--seed`` is given (then every choice is repeatable, the timings
are not).
"""

from __future__ import annotations

import argparse
import gzip
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from microanon.apps.server import (
    CollectionClient,
    ServiceConfig,
    open_store,
    running_service,
    survey_fingerprint,
)
from microanon.datasets import load_adult
from microanon.datasets.hierarchies import adult_hierarchies
from microanon.methods.collect import CollectedSet, Survey, as_tau, encode_frame, gtr

QUASI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SENSITIVE = "occupation"
#: Targets of issue 6.
GTR_TARGET_MS = 20.0
ACCEPT_TARGET = 200.0
COMPRESSION_TARGET = 5.0

Row = tuple[str, str, str, str]  # task, measured, target, met


def adult_survey() -> Survey:
    hs = adult_hierarchies()
    return Survey({a: hs[a] for a in [*QUASI, SENSITIVE]}, QUASI, SENSITIVE)


def respondent_pool(survey: Survey, rng: np.random.Generator) -> tuple[list[list[Any]], int]:
    """Adult's training records in a random order, then its test records in a random order (as
    lists of labels in survey order); and the number of training records."""
    train = load_adult("train")[survey.attributes]
    test = load_adult("test")[survey.attributes]
    train = train.iloc[rng.permutation(len(train))]
    test = test.iloc[rng.permutation(len(test))]
    return train.to_numpy().tolist() + test.to_numpy().tolist(), len(train)


class Pool:
    """Hands out respondents in order, so that no respondent is used twice."""

    def __init__(self, rows: list[list[Any]]) -> None:
        self.rows, self.next = rows, 0

    def take(self) -> list[Any]:
        if self.next >= len(self.rows):
            raise SystemExit("ran out of Adult records: ask for fewer respondents")
        self.next += 1
        return self.rows[self.next - 1]


def gtr_built(
    survey: Survey, pool: Pool, size: int, tau: Any
) -> tuple[np.ndarray, int, int, float]:
    """Respondents run GTR one after another until ``size`` tuples are collected.

    Returns the accepted tuples' codes in acceptance order, the number of respondents, of those
    who abstained, and the seconds it took.
    """
    collected = CollectedSet(survey)
    log = np.empty((size, survey.n_attributes), dtype=np.int64)
    asked = abstained = 0
    start = time.perf_counter()
    while collected.total < size:
        o = pool.take()
        asked += 1
        t = gtr(o, collected, survey, tau)
        if t is None:
            abstained += 1
            continue
        log[collected.total] = t.codes
        collected.add_codes(t.codes)
    return log, asked, abstained, time.perf_counter() - start


def random_levels(survey: Survey, base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every value replaced by its ancestor at a uniformly drawn level (0 = itself .. root)."""
    out = np.empty_like(base)
    for j, tx in enumerate(survey.taxonomies):
        leaf = tx.lo[base[:, j]]  # leaf index of each value
        depth = (tx.ancestors[:, leaf] >= 0).sum(axis=0)  # chain length: leaf .. root
        level = np.minimum((rng.random(len(base)) * depth).astype(np.int64), depth - 1)
        out[:, j] = tx.ancestors[level, leaf]
    return out


def as_set(survey: Survey, codes: np.ndarray) -> CollectedSet:
    out = CollectedSet(survey)
    out.extend_codes(codes)
    return out


# ---------------------------------------------------------------------------------------- (a)
def time_gtr(
    survey: Survey, collected: CollectedSet, respondents: list[list[Any]], tau: Any, mode: str
) -> tuple[np.ndarray, int]:
    """Seconds of each ``gtr`` call, and how many respondents abstained."""
    for o in respondents[:5]:  # warm-up (the survey's lazily built tables)
        gtr(o, collected, survey, tau, mode=mode)
    seconds = np.empty(len(respondents))
    abstained = 0
    for i, o in enumerate(respondents):
        start = time.perf_counter()
        t = gtr(o, collected, survey, tau, mode=mode)
        seconds[i] = time.perf_counter() - start
        abstained += t is None
    return seconds, abstained


def bench_gtr(
    survey: Survey, sets: dict[str, CollectedSet], respondents: list[list[Any]], tau: Any
) -> list[Row]:
    rows: list[Row] = []
    for name, collected in sets.items():
        for mode in ("exact", "greedy"):
            seconds, abstained = time_gtr(survey, collected, respondents, tau, mode)
            ms = seconds * 1e3
            median, p90 = float(np.median(ms)), float(np.percentile(ms, 90))
            exact = mode == "exact"
            rows.append(
                (
                    f"(a) GTR {mode}, {name} set ({len(collected):,} pairs), "
                    f"{len(respondents)} respondents",
                    f"median {median:.2f} ms, p90 {p90:.2f} ms, max {ms.max():.1f} ms"
                    + (f", {abstained} abstained" if abstained else ""),
                    f"median ≤ {GTR_TARGET_MS:g} ms" if exact else "",
                    ("yes" if median <= GTR_TARGET_MS else "NO") if exact else "",
                )
            )
    return rows


# ---------------------------------------------------------------------------------------- (b)
def _plain(labels: tuple[Any, ...]) -> list[Any]:
    return [v.item() if hasattr(v, "item") else v for v in labels]


def preload(config: ServiceConfig, log: np.ndarray) -> float:
    """Write ``log`` into the service's store as accepted submissions; returns seconds."""
    store = open_store(config.storage, survey_fingerprint(config), config.durability)
    start = time.perf_counter()
    try:
        for i, codes in enumerate(log.tolist()):
            result = store.append(f"preload-{i:07d}", codes, i)
            if result.status != "accepted":
                raise RuntimeError(f"preloading tuple {i}: {result}")
    finally:
        store.close()
    return time.perf_counter() - start


def run_threads(n: int, work: Callable[[int], None]) -> float:
    """Run ``work(k)`` in ``n`` threads started together; seconds until the last one ends."""
    barrier = threading.Barrier(n + 1)
    errors: list[BaseException] = []

    def target(k: int) -> None:
        barrier.wait()
        try:
            work(k)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    if errors:
        raise errors[0]
    return seconds


def post_all(url: str, survey: Survey, bodies: list[list[Any]], clients: int, version: int):
    """Post the submissions from ``clients`` threads; returns seconds, 409s, latencies (s)."""
    attrs = survey.attributes
    conflicts = [0] * clients
    latencies: list[list[float]] = [[] for _ in range(clients)]

    def work(k: int) -> None:
        known = version
        with httpx.Client(base_url=url, timeout=30) as http:
            for i in range(k, len(bodies), clients):
                body = {
                    "id": f"bench-{i:07d}",
                    "version": known,
                    "tuple": dict(zip(attrs, bodies[i], strict=True)),
                }
                while True:
                    start = time.perf_counter()
                    r = http.post("/submissions", json=body)
                    latencies[k].append(time.perf_counter() - start)
                    if r.status_code == 201:
                        known = max(known, r.json()["version"])
                        break
                    if r.status_code != 409:
                        raise RuntimeError(f"submission {i}: {r.status_code} {r.text[:200]}")
                    conflicts[k] += 1
                    known = body["version"] = r.json()["version"]

    seconds = run_threads(clients, work)
    return seconds, sum(conflicts), np.concatenate([np.array(x) for x in latencies])


def end_to_end(url: str, respondents: list[list[Any]], clients: int):
    """Respondents through ``CollectionClient.submit``; seconds and the results."""
    results: list[Any] = [None] * len(respondents)

    def work(k: int) -> None:
        with CollectionClient(url, retry_for=120) as client:
            for i in range(k, len(respondents), clients):
                results[i] = client.submit(respondents[i], submission_id=f"e2e-{i:07d}")

    return run_threads(clients, work), results


def bench_service(
    survey: Survey,
    tau: Any,
    log: np.ndarray,
    collected: CollectedSet,
    pool: Pool,
    n_submissions: int,
    n_e2e: int,
    clients: int,
    durability: str,
) -> list[Row]:
    # Submissions already computed by GTR against the preloaded set.
    bodies = []
    while len(bodies) < n_submissions:
        t = gtr(pool.take(), collected, survey, tau)
        if t is not None:
            bodies.append(_plain(t.labels))
    e2e = [pool.take() for _ in range(n_e2e)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="microanon-bench-") as tmp:
        config = ServiceConfig(
            survey=survey,
            tau=as_tau(tau),
            storage=f"sqlite:///{Path(tmp) / 'collected.sqlite'}",
            durability=durability,
            export_token=secrets.token_urlsafe(24),
        )
        preload_s = preload(config, log)
        start = time.perf_counter()
        with running_service(config) as url:
            started_s = time.perf_counter() - start
            version = httpx.get(f"{url}/health").json()["version"]
            assert version == len(log), f"the service reloaded {version} of {len(log)} tuples"
            seconds, conflicts, lat = post_all(url, survey, bodies, clients, version)
            after = httpx.get(f"{url}/health").json()["version"]
            assert after == version + len(bodies), f"version {after}: submissions lost"
            rate = len(bodies) / seconds
            rows.append(
                (
                    f"(b) service accepts {len(bodies):,} GTR submissions, {clients} threads, "
                    f"SQLite ({durability}), {len(log):,} tuples preloaded",
                    f"{rate:,.0f} accepted/s ({seconds:.2f} s; {conflicts} answers 409; "
                    f"request p50 {np.median(lat) * 1e3:.1f} ms, "
                    f"p90 {np.percentile(lat, 90) * 1e3:.1f} ms)",
                    f"≥ {ACCEPT_TARGET:g}/s",
                    "yes" if rate >= ACCEPT_TARGET else "NO",
                )
            )
            seconds, results = end_to_end(url, e2e, clients)
            final = httpx.get(f"{url}/health").json()["version"]
            accepted = sum(r.status == "accepted" for r in results)
            abstained = sum(r.status == "abstained" for r in results)
            assert final == after + accepted, f"version {final}: expected {after + accepted}"
            recomputed = sum(r.attempts - 1 for r in results)
            rows.append(
                (
                    f"(b) end to end: {len(e2e):,} respondents via CollectionClient (GTR exact "
                    f"on the client), {clients} threads",
                    f"{len(e2e) / seconds:,.0f} respondents/s ({seconds:.2f} s; {accepted} "
                    f"accepted, {abstained} abstained, {recomputed} recomputations after 409)",
                    "",
                    "",
                )
            )
        rows.append(
            (
                "    setup: preload the log through the store API / start and reload the service",
                f"{preload_s:.2f} s / {started_s:.2f} s",
                "",
                "",
            )
        )
    return rows


# ---------------------------------------------------------------------------------------- (c)
def bench_compression(survey: Survey, sets: dict[str, CollectedSet]) -> list[Row]:
    rows: list[Row] = []
    for name, collected in sets.items():
        csv = collected.to_frame(expand=True).to_csv(index=False).encode()
        pairs_csv = collected.to_frame().to_csv(index=False).encode()
        rows.append(
            (
                f"(c) {name} set, {collected.total:,} tuples ({len(collected):,} pairs): CSV",
                f"{len(csv):,} bytes (as pairs with counts {len(pairs_csv):,}; "
                f"gzip -9 {len(gzip.compress(csv, 9)):,})",
                "",
                "",
            )
        )
        for encoding in ("index", "bits"):
            start = time.perf_counter()
            data = collected.to_bytes(encoding)
            encode_s = time.perf_counter() - start
            start = time.perf_counter()
            back = CollectedSet.from_bytes(survey, data)
            decode_s = time.perf_counter() - start
            assert back == collected, f"{encoding}: decoding gave another set"
            ratio = len(csv) / len(data)
            rows.append(
                (
                    f"    {encoding} encoding",
                    f"{len(data):,} bytes = 1/{ratio:.1f} of CSV "
                    f"({len(data) / collected.total:.2f} B/tuple; encode {encode_s * 1e3:.0f} ms, "
                    f"decode {decode_s * 1e3:.0f} ms)",
                    f"≤ 1/{COMPRESSION_TARGET:g} of CSV",
                    "yes" if ratio >= COMPRESSION_TARGET else "NO",
                )
            )
    return rows


# ---------------------------------------------------------------------------------------- main
def print_table(rows: list[Row]) -> None:
    heads = ("task", "measured", "target", "met")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    line = "  ".join(f"{h:<{w}}" for h, w in zip(heads, widths, strict=True))
    print(line.rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(f"{c:<{w}}" for c, w in zip(r, widths, strict=True)).rstrip())


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="50 timed respondents, 300 submissions, 100 end-to-end respondents",
    )
    parser.add_argument("--seed", type=int, default=None, help="default: OS entropy")
    parser.add_argument("--tau", type=float, default=0.3, help="privacy threshold (default 0.3)")
    parser.add_argument("--size", type=int, default=30_000, help="collected tuples (30,000)")
    parser.add_argument("--respondents", type=int, default=None, help="timed GTR calls (200)")
    parser.add_argument("--submissions", type=int, default=None, help="posted (2,000)")
    parser.add_argument("--e2e", type=int, default=None, help="end-to-end respondents (400)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent client threads (8)")
    parser.add_argument("--durability", choices=("crash", "power"), default="crash")
    args = parser.parse_args()
    n_resp = args.respondents or (50 if args.quick else 200)
    n_sub = args.submissions or (300 if args.quick else 2_000)
    n_e2e = args.e2e or (100 if args.quick else 400)
    rng = np.random.default_rng(args.seed)
    survey = adult_survey()
    rows_all, n_train = respondent_pool(survey, rng)
    pool = Pool(rows_all)
    print(
        f"Adult survey: quasi-identifiers {', '.join(QUASI)}; sensitive {SENSITIVE}; "
        f"τ = {args.tau:g}; seed {'OS entropy' if args.seed is None else args.seed}; "
        f"{os.cpu_count()} CPUs",
        flush=True,
    )
    log, asked, abstained, build_s = gtr_built(survey, pool, args.size, args.tau)
    built = as_set(survey, log)
    print(
        f"GTR-built set: {asked:,} respondents ran GTR in turn ({build_s:.1f} s, "
        f"{build_s / asked * 1e3:.2f} ms each on a growing set), {abstained:,} abstained; "
        f"{built.total:,} tuples in {len(built):,} pairs",
        flush=True,
    )
    train = load_adult("train")[survey.attributes]
    picks = rng.choice(len(train), size=min(args.size, len(train)), replace=False)
    base = encode_frame(survey, train.iloc[picks], base=True)
    levels = as_set(survey, random_levels(survey, base, rng))
    sets = {"GTR-built": built, "random-level": levels}
    if pool.next < n_train:  # the timed respondents come from the test split
        pool.next = n_train
    respondents = [pool.take() for _ in range(n_resp)]
    note("(a) timing GTR ...")
    rows = bench_gtr(survey, sets, respondents, args.tau)
    note("(b) the service ...")
    rows += bench_service(
        survey, args.tau, log, built, pool, n_sub, n_e2e, args.clients, args.durability
    )
    note("(c) compression ...")
    rows += bench_compression(survey, sets)
    print()
    print_table(rows)


if __name__ == "__main__":
    main()
