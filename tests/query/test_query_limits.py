"""DuckDB runs SQL queries under a memory limit, a thread count and a time limit: defaults,
per-query and process-wide settings that reach DuckDB, and a clean error for a query that needs
more memory or time."""

from __future__ import annotations

import inspect

import duckdb
import numpy as np
import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.query import BoundTables, limits, query, set_limits, where_mask
from microanon.query.sql import (
    DEFAULT_TIMEOUT,
    MEMORY_CAP,
    default_memory_limit,
    default_threads,
)

#: A condition that costs DuckDB about a minute on 20,000 records: an edit distance between two
#: 700-character strings per record, in batches of rows (so DuckDB notices an interruption).
SLOW = "levenshtein(repeat(zipcode, 100), repeat(reverse(zipcode), 100)) > 0"


def rendered(size: str) -> str:
    """How DuckDB shows a memory limit in current_setting('memory_limit')."""
    con = duckdb.connect(config={"memory_limit": size})
    try:
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    finally:
        con.close()


def big_release(n: int = 20_000) -> tuple[Release, pd.DataFrame]:
    """A distribution release of ``n`` records in two groups, with ``n`` distinct ZIP codes."""
    zipcode = [f"z{i:06d}" for i in range(n)]
    qit = pd.DataFrame({"zipcode": zipcode, "group": [1 + i % 2 for i in range(n)]})
    st = pd.DataFrame({"group": [1, 2], "low": [0, 0], "high": [100, 100], "count": [n // 2] * 2})
    meta = {"quasi": ["zipcode"], "sensitive": ["salary"]}
    original = pd.DataFrame({"zipcode": zipcode, "salary": np.arange(n) % 100})
    return Release("distribution", {"qit": qit, "st": st}, meta), original


@pytest.fixture()
def release() -> Release:
    qit = pd.DataFrame({"zipcode": ["a", "b", "c"], "group": [1, 1, 1]})
    st = pd.DataFrame({"group": [1], "low": [10], "high": [20], "count": [3]})
    return Release("distribution", {"qit": qit, "st": st}, {"sensitive": ["salary"]})


def selected(release: Release, condition: str, **limits_: object) -> int:
    """How many records a condition on DuckDB's settings selects (all 3 or none)."""
    result = query(release, f"SELECT COUNT(*) FROM release WHERE {condition}", **limits_)
    return int(result["count"].iloc[0])


def test_defaults_reach_duckdb(release):
    memory = default_memory_limit()
    assert memory.endswith("MiB") and int(memory[:-3]) * 2**20 <= MEMORY_CAP
    assert default_threads() >= 1
    assert limits() == {"memory_limit": rendered(memory), "threads": default_threads()}
    assert selected(release, f"current_setting('memory_limit') = '{rendered(memory)}'") == 3


def test_per_query_limits_reach_duckdb_and_are_put_back(release):
    before = limits()
    condition = "current_setting('memory_limit') = '{}' AND current_setting('threads') = 1"
    assert selected(release, condition.format(rendered("300MB")), memory_limit="300MB", threads=1)
    assert selected(release, condition.format(rendered("300MB"))) == 0  # not without them
    assert selected(release, "current_setting('threads') = 1", threads=1) == 3
    assert limits() == before


def test_set_limits_is_process_wide(release):
    before = limits()
    try:
        after = set_limits(memory_limit=256 * 2**20, threads=1)
        assert after == {"memory_limit": rendered("256MiB"), "threads": 1}
        assert selected(release, "current_setting('threads') = 1") == 3
        query(release, "SELECT COUNT(*) FROM release", threads=2)  # its own, then back to 1
        assert limits() == after
    finally:
        set_limits(memory_limit=default_memory_limit(), threads=default_threads())
    assert limits() == before


@pytest.mark.parametrize(
    "memory_limit, threads, message",
    [
        ("lots", None, "give a positive size"),
        ("-1GB", None, "give a positive size"),
        ("0MB", None, "give a positive size"),
        (0, None, "positive number of bytes"),
        ("2 parsecs", None, "memory limit '2parsecs'"),
        ("1GB'; SET threads = 1; --", None, "give a positive size"),
        (None, 0, "threads: give a whole number of at least 1"),
        (None, 1.5, "threads: give a whole number"),
    ],
)
def test_bad_limits_are_refused(release, memory_limit, threads, message):
    before = limits()
    with pytest.raises(InputError, match=message):
        query(release, "SELECT COUNT(*) FROM release", memory_limit=memory_limit, threads=threads)
    assert limits() == before


def test_a_query_over_the_memory_limit_is_an_input_error():
    rel, original = big_release()
    sql = "SELECT zipcode, AVG(salary) FROM release GROUP BY zipcode"
    before = limits()
    with pytest.raises(InputError, match="needs more memory than the limit of 1MB") as caught:
        query(rel, sql, original=original, memory_limit="1MB", threads=1)
    assert "\n" not in str(caught.value) and "--memory-limit" in str(caught.value)
    assert limits() == before  # the process's limits are back
    result = query(rel, sql, original=original)  # fits under the default limit
    assert len(result) == len(original) and result["within"].all()


def test_set_limits_refused_by_duckdb_changes_nothing():
    before = limits()
    with pytest.raises(InputError, match="memory limit"):
        set_limits(memory_limit="2 parsecs", threads=1)
    assert limits() == before


def test_a_query_over_the_time_limit_is_an_input_error():
    rel, original = big_release()
    tables = BoundTables.from_release(rel)
    with pytest.raises(InputError, match=r"stopped after 0\.5 s, the time limit") as caught:
        query(tables, f"SELECT COUNT(*) FROM release WHERE {SLOW}", timeout=0.5)
    assert "\n" not in str(caught.value) and "timeout=" in str(caught.value)
    with pytest.raises(InputError, match=r"WHERE: stopped after 0\.5 s"):
        where_mask(tables, SLOW, timeout=0.5)
    # The interrupted DuckDB session answers the next query, under the default limit.
    result = query(tables, "SELECT COUNT(*) FROM release WHERE zipcode < 'z000010'")
    assert int(result["count"].iloc[0]) == 10


def test_the_time_limit_covers_the_true_answers():
    rel, original = big_release()
    longer = original.assign(zipcode=original["zipcode"] * 2)  # only these pass length > 7
    sql = f"SELECT COUNT(*) FROM release WHERE length(zipcode) > 7 AND {SLOW}"
    assert query(rel, sql, original=original, timeout=0.5)["true"].iloc[0] == 0
    with pytest.raises(InputError, match=r"^original: stopped after 0\.5 s"):
        query(rel, sql, original=longer, timeout=0.5)


def test_the_default_time_limit_and_no_limit(release):
    assert DEFAULT_TIMEOUT == 10.0
    assert inspect.signature(query).parameters["timeout"].default == DEFAULT_TIMEOUT
    assert inspect.signature(where_mask).parameters["timeout"].default == DEFAULT_TIMEOUT
    assert selected(release, "zipcode > 'a'", timeout=None) == 2


@pytest.mark.parametrize("timeout", [0, -1, 0.0, float("nan"), float("inf"), "10", True])
def test_bad_timeouts_are_refused(release, timeout):
    with pytest.raises(InputError, match="timeout: give a positive number of seconds"):
        query(release, "SELECT COUNT(*) FROM release", timeout=timeout)
    with pytest.raises(InputError, match="timeout: give a positive number of seconds"):
        where_mask(release.tables["qit"], "zipcode > 'a'", timeout=timeout)
