"""The closest configurations searched ahead by the worker while the method runs
(:func:`microanon.apps.closest.searching_ahead`): the same answers as the searches run after
the release, a search given up stops, and nothing is searched ahead where it would not help.

The worker is a real process started by ``working_aside`` (``_spare_cores`` set to two so that
it runs on any machine).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from real_surveys import gss_warning_config

from microanon.apps import aside as aside_module
from microanon.apps import closest
from microanon.apps.aside import ahead, aside, give_up, given_up, working_aside
from microanon.apps.closest import closest_configurations, method_returned, searching_ahead
from microanon.apps.config import load_config
from microanon.methods.generalize.reruns import FrequencyRuns
from microanon.methods.generalize.searches import SearchStopped


@pytest.fixture()
def worker(monkeypatch) -> Iterator[None]:
    """A worker of its own for each test (a flag given up stays given up for its worker)."""
    monkeypatch.setattr(aside_module, "_spare_cores", lambda: 2.0)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)
    block = working_aside()
    assert block.__enter__()
    try:
        yield
    finally:
        block.__exit__(None, None, None)


def _gss(tmp_path: Path):
    """The configuration of :func:`gss_warning_config` (three alternatives, all exact
    searches) and its data."""
    cfg = load_config(gss_warning_config(tmp_path))
    return cfg, cfg.read_data()


@pytest.mark.parametrize("nodes", [closest.ALTERNATIVE_NODES, 40])
def test_the_searches_ahead_give_the_answers_searched_after(tmp_path, worker, monkeypatch, nodes):
    """The worker searches the alternatives while this process runs the method; once it has
    answered them, closest_configurations takes its answers: the same table as the searches
    run after the release, without a worker, their exact searches stopped at the same node
    budget (40 nodes: before every optimum is proven, and the rows say so)."""
    monkeypatch.setattr(closest, "ALTERNATIVE_NODES", nodes)
    cfg, data = _gss(tmp_path)
    release = cfg.run(data)
    record = release.metadata["search"]
    with searching_ahead(cfg, data):
        held = closest._AHEAD.get()
        assert held is not None
        held._timer.join()  # the searches start AHEAD_AFTER seconds into the block
        started = held._started
        assert started is not None and started.handing is not None
        started.handing.join()  # the worker has answered every search it was handed
        done = [f for f in started._handed.values() if f.done()]
        assert done, "the worker answered no search ahead"
        got = closest_configurations(cfg, data, record, encoded=release.encoded)
    want = contextvars.Context().run(closest_configurations, cfg, data, record)
    assert len(got) == 3
    pd.testing.assert_frame_equal(got, want)
    stopped = got["change"].str.endswith(f"(best of the first {nodes:,} nodes checked)")
    assert stopped.any() == (nodes == 40)


def test_nothing_is_searched_ahead_where_it_would_not_help(tmp_path, worker, monkeypatch):
    """No alternative searched ahead for a table above AHEAD_ROWS, a configuration with
    suppressed records published as *, or without a worker."""
    cfg, data = _gss(tmp_path)
    monkeypatch.setattr(closest, "AHEAD_ROWS", len(data) - 1)
    with searching_ahead(cfg, data):
        assert closest._AHEAD.get() is None
    monkeypatch.setattr(closest, "AHEAD_ROWS", len(data))
    star = type(cfg)(**{**cfg.__dict__, "params": {**cfg.params, "suppressed_rows": "star"}})
    with searching_ahead(star, data):
        assert closest._AHEAD.get() is None

    def alone() -> None:
        with searching_ahead(cfg, data):
            assert closest._AHEAD.get() is None

    contextvars.Context().run(alone)  # (no worker in a fresh context)


def test_a_short_method_starts_no_search_ahead(tmp_path, worker, monkeypatch):
    """A block (the method) that ends before AHEAD_AFTER seconds: nothing is handed to the
    worker, and the report searches as without searches ahead."""
    cfg, data = _gss(tmp_path)
    monkeypatch.setattr(closest, "AHEAD_AFTER", 60.0)
    with searching_ahead(cfg, data):
        held = closest._AHEAD.get()
        assert held is not None
        got = closest_configurations(cfg, data)
        assert held.take() is None
    want = contextvars.Context().run(closest_configurations, cfg, data)
    pd.testing.assert_frame_equal(got, want)


def test_no_search_ahead_starts_once_the_method_has_returned(tmp_path, worker, monkeypatch):
    """A method that returns before AHEAD_AFTER seconds (method_returned): the timer is
    cancelled, nothing is handed to the worker later in the block (the writing, verification
    and reports), and the report searches as without searches ahead."""
    cfg, data = _gss(tmp_path)
    monkeypatch.setattr(closest, "AHEAD_AFTER", 0.2)
    with searching_ahead(cfg, data):
        held = closest._AHEAD.get()
        assert held is not None
        method_returned()
        held._timer.join()  # (cancelled: the timer ends without starting anything)
        assert held._started is None
        got = closest_configurations(cfg, data)
    want = contextvars.Context().run(closest_configurations, cfg, data)
    pd.testing.assert_frame_equal(got, want)


def test_work_given_up_is_told_to_the_worker(worker):
    """give_up sets the flag the worker reads (given_up), for the work handed ahead and any
    after it."""
    before = ahead(given_up)
    assert before is not None and before.result(60) is False
    give_up()
    assert aside(given_up).result() is True


def _encoded_ahead(key: str) -> bool:
    """In the worker: whether a table was encoded ahead under ``key``."""
    return key in closest._RUNS


def test_nothing_is_encoded_ahead_once_given_up(tmp_path, worker):
    """The encoding handed ahead after the command gave the searches up returns at once: the
    figures queued behind it wait for nothing."""
    cfg, data = _gss(tmp_path)
    give_up()
    encoded = ahead(closest._encode_ahead, "given-up", data, cfg.schema, cfg.models, "auto")
    assert encoded is not None and encoded.result(60) is False
    assert aside(_encoded_ahead, "given-up").result() is False


def test_the_exact_search_stops_when_its_watch_asks(tmp_path):
    """A watch that asks to stop after a few steps stops the exact search (SearchStopped); one
    that never asks changes nothing."""
    cfg, data = _gss(tmp_path)
    runs = FrequencyRuns.of_records(data, cfg.schema, cfg.models)

    class Watch:
        def __init__(self, steps: float) -> None:
            self.left = steps

        def stop_requested(self) -> bool:
            self.left -= 1
            return self.left < 0

        def searched(self, nodes, best, seconds) -> None:
            pass

    plain = runs.search(cfg.models, suppression=0.02)
    watched = runs.search(cfg.models, suppression=0.02, watch=Watch(float("inf")))
    assert watched.levels == plain.levels and watched.suppressed == plain.suppressed
    pd.testing.assert_frame_equal(watched.values, plain.values)
    with pytest.raises(SearchStopped):
        runs.search(cfg.models, suppression=0.02, watch=Watch(2))
