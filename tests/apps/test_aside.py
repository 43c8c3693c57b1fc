"""The reports' work handed to a second process (microanon.apps.aside): the same answers, the
same files, and this process takes over when the worker dies.

The worker is a real process started by ``working_aside``; ``_spare_cores`` is set to two so
that the worker runs on any machine, busy or not (and to none for the runs without it).
"""

from __future__ import annotations

import contextvars
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import gss_warning_config

from microanon.apps import aside as aside_module
from microanon.apps import release_figures
from microanon.apps.aside import aside, shared, working_aside
from microanon.apps.cli import main
from microanon.apps.drawing import png, prepare


@pytest.fixture(scope="module")
def worker() -> Iterator[None]:
    """One worker for the module's tests (a process started for each example would be slow)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(aside_module, "_spare_cores", lambda: 2.0)
        patch.delenv(aside_module.ENVIRONMENT, raising=False)
        aside = working_aside(prepare)
        assert aside.__enter__()
    try:  # the worker runs for the module; the spare cores are read again by other tests
        yield
    finally:
        aside.__exit__(None, None, None)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12))
def test_shared_tasks_give_the_answers_in_order(worker, tasks) -> None:
    assert shared(math.comb, tasks) == [math.comb(*t) for t in tasks]


def test_short_tasks_left_to_a_busy_worker_are_done_here(worker) -> None:
    """The worker busy with a long task: this process, whose own tasks are short, does the
    task handed to the worker itself instead of waiting."""
    busy = aside(time.sleep, 5.0)  # the worker asleep for five seconds
    assert shared(math.comb, [(5, 2), (6, 3)]) == [10, 20]
    assert not busy.ready  # answered while the worker still sleeps: its task was done here
    busy.result()


def test_an_error_of_the_work_is_raised_here(worker) -> None:
    handed = aside(math.sqrt, -1.0)
    assert handed.pending
    with pytest.raises(ValueError, match="math domain error"):
        handed.result()
    with pytest.raises(ValueError, match="math domain error"):
        shared(math.sqrt, [(4.0,), (-1.0,), (9.0,)])


def test_without_a_worker_the_work_is_done_at_once() -> None:
    def check() -> None:
        handed = aside(math.comb, 6, 3)
        assert not handed.pending and handed.ready and handed.result() == 20
        assert shared(math.comb, [(5, 2), (4, 4)]) == [10, 1]

    contextvars.Context().run(check)  # a context where no worker runs


def _drawings() -> list[release_figures.Drawing]:
    rng = np.random.default_rng(5)
    return [
        release_figures.class_sizes(np.array([5, 6, 9, 40]), np.array([30, 12, 4, 1])),
        release_figures.record_risks(
            {"prosecutor": rng.random(500), "journalist": rng.random(500) / 2},
            rng.integers(1, 9, 500),
            0.2,
        ),
        release_figures.column_risks(["age", "income"], np.array([0.3, 0.8]), np.array([0.1, 1])),
        release_figures.range_widths(rng.random(40) * 10, rng.integers(1, 5, 40), "income"),
        release_figures.steps_path(
            np.array([0, 0.1, 0.3]),
            np.array([0.5, 0.2, 0.05]),
            [0, 1, 2],
            "share of sample uniques",
        ),
    ]


def test_a_figure_drawn_by_the_worker_has_the_same_bytes(worker) -> None:
    for drawing in _drawings():
        handed = aside(png, drawing)
        assert handed.pending
        assert handed.result() == png(drawing)


def test_the_worker_runs_nicer_than_the_command(worker) -> None:
    """The command's own threads come first: the worker's priority is lowered by NICENESS
    (up to the system's lowest)."""
    own = os.getpriority(os.PRIO_PROCESS, 0)
    pid = aside(os.getpid).result()
    assert pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(own + aside_module.NICENESS, 19)


def _collector_state() -> tuple[bool, int]:
    import gc

    return gc.isenabled(), gc.get_freeze_count()


def test_the_worker_imports_without_the_collector_and_freezes_what_it_imported(worker) -> None:
    """The worker is a process of ours (collector.own_process): its first work (prepare) ran
    with the garbage collector paused, the objects of its imports are frozen, and the
    collector runs again. This process (the test runner) keeps its collector as it was."""
    enabled, frozen = aside(_collector_state).result()
    assert enabled and frozen > 10_000  # (matplotlib's objects among them)
    assert _collector_state()[1] == 0


def test_the_work_of_a_dead_worker_is_done_here(monkeypatch) -> None:
    def check() -> None:
        with working_aside() as started:
            assert started
            aside_module._WORKER.get().submit(os._exit, 1).exception()  # the worker dies
            deadline = time.monotonic() + 30
            while not aside_module._WORKER.get()._broken and time.monotonic() < deadline:
                time.sleep(0.01)
            assert aside(math.comb, 5, 2).result() == 10
            assert shared(math.comb, [(5, 2), (6, 3), (7, 1)]) == [10, 20, 7]

    monkeypatch.setattr(aside_module, "_spare_cores", lambda: 2.0)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)
    contextvars.Context().run(check)  # not the module's worker: a worker of its own


def test_the_worker_is_ended_with_the_block_even_while_it_prepares(monkeypatch) -> None:
    """A command that fails ends its worker at once, in the middle of its imports."""

    def check() -> list:
        with pytest.raises(RuntimeError, match="bad input"):
            with working_aside(prepare) as started:
                assert started
                processes = list(aside_module._WORKER.get()._processes.values())
                raise RuntimeError("bad input")
        return processes

    monkeypatch.setattr(aside_module, "_spare_cores", lambda: 2.0)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)
    processes = contextvars.Context().run(check)
    assert processes
    deadline = time.monotonic() + 30  # (the executor's own thread may reap it first)
    while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert all(p.exitcode is not None for p in processes)


def test_where_no_process_can_be_started_the_work_is_done_here(monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise OSError(38, "Function not implemented")  # e.g. no shared memory for the locks

    def check() -> None:
        with working_aside(prepare) as started:
            assert not started
            handed = aside(math.comb, 7, 2)
            assert not handed.pending and handed.result() == 21

    monkeypatch.setattr(aside_module, "_spare_cores", lambda: 2.0)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)
    monkeypatch.setattr(aside_module, "ProcessPoolExecutor", refused)
    contextvars.Context().run(check)


@pytest.mark.parametrize(
    ("cores", "load", "running", "starts"),
    [
        (2, 0.1, None, True),
        (2, 1.2, None, True),
        (2, 2.4, None, False),
        (4, 3.0, None, True),
        (1, 0.0, None, False),
        (2, 1.9, 0, True),  # one command after another: the load still counts the last one
        (2, 2.4, 2, False),  # a test suite on every core
        (2, 0.2, 2, True),  # work just begun beside the command: the load not risen yet
    ],
)
def test_a_worker_is_started_only_with_a_core_to_spare(
    monkeypatch, cores, load, running, starts
) -> None:
    """An idle machine, or one command after another (the load average still counts the last
    one, but nothing else runs now), starts it; a machine whose every core is busy (a test
    suite on every core), or a single core, does not."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(aside_module, "_running_now", lambda: running)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)

    def check() -> bool:
        with working_aside() as started:
            return started

    assert contextvars.Context().run(check) is starts


def test_the_environment_keeps_the_command_in_one_process(monkeypatch) -> None:
    monkeypatch.setattr(aside_module, "_spare_cores", lambda: 2.0)
    monkeypatch.setenv(aside_module.ENVIRONMENT, "0")

    def check() -> bool:
        with working_aside(prepare) as started:
            return started

    assert contextvars.Context().run(check) is False


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("cores", [1, 2])
def test_anonymize_writes_the_same_release_and_reports_with_the_worker(
    tmp_path, monkeypatch, cores
) -> None:
    """A real survey file, anonymized with the figures and closest configurations handed to the
    worker (two cores) and without it (one): the same public files byte for byte, and the same
    internal report but for the times it states."""
    config = gss_warning_config(tmp_path)
    monkeypatch.delenv(aside_module.ENVIRONMENT, raising=False)
    runs = {}
    for n in (1, cores):
        monkeypatch.setattr(aside_module, "_spare_cores", lambda n=n: n - 1.0)
        out = tmp_path / f"out{n}-{len(runs)}"
        args = ["anonymize", "--config", str(config), "--out", str(out)]
        # a context of its own: the command starts its own worker (or none)
        result = contextvars.Context().run(CliRunner().invoke, main, args)
        assert result.exit_code == 0, result.output
        runs[len(runs)] = out
    first, second = runs[0], runs[1]
    assert _files(first / "public") == _files(second / "public")
    internal = [(p / "internal" / "report.html").read_text("utf-8") for p in (first, second)]
    public = (first / "public" / "report.html").read_text("utf-8")
    assert "closest configurations" in internal[0].lower()
    assert public.count("data:image/png;base64,") + internal[0].count("data:image/png") >= 3

    def timeless(html: str) -> str:
        import re

        html = re.sub(r" on \d{4}-\d\d-\d\d \d\d:\d\d UTC", "", html)
        return re.sub(r"ran in [0-9.]+ s", "ran in", html)

    assert timeless(internal[0]) == timeless(internal[1])
    frame = pd.read_csv(first / "public" / "data.csv")
    assert len(frame) > 0


def test_the_worker_is_idle_once_every_work_handed_to_it_has_ended(worker) -> None:
    """Work handed to a busy worker waits behind what it was handed before (publish then
    scans the written files itself); once that has ended, the worker is idle."""
    busy = aside(time.sleep, 1.0)
    assert not aside_module.idle()
    busy.result()
    assert aside_module.idle()


def test_without_a_worker_none_is_idle() -> None:
    assert not contextvars.Context().run(aside_module.idle)  # a context where no worker runs


@pytest.mark.parametrize("busy", [False, True])
def test_the_generator_state_is_refused_in_a_table_or_a_report_with_the_worker(
    worker, tmp_path, monkeypatch, busy
) -> None:
    """The public files as written are scanned while this process verifies them, by the
    worker (by a thread of this process, when the worker is busy), what the reports write is
    scanned at the end: a state in either is refused, and nothing is left behind."""
    from microanon.apps import publish as publish_module
    from microanon.core.errors import VerificationError
    from microanon.core.random import state_fingerprints
    from microanon.methods.randomize import randomize

    frame = pd.DataFrame({"zip": ["A", "B"] * 10, "disease": ["flu", "flu", "cold", "cold"] * 5})
    schema = {
        "zip": {"role": "quasi", "categories": ["A", "B"]},
        "disease": {"role": "sensitive"},
    }
    gen = np.random.default_rng()
    secrets = state_fingerprints(gen)
    release = randomize(frame, schema, keep={"zip": 0.9}, rng=gen)
    release.metadata["salt"] = str(gen.bit_generator.seed_seq.entropy)  # in release.json
    release.public_keys = release.public_keys | {"salt"}
    sleeping = aside(time.sleep, 3.0) if busy else None
    if not busy:  # what the worker was handed before (its preparation too) has ended
        aside(int).result()
    assert aside_module.idle() is not busy
    with pytest.raises(VerificationError, match="release.json holds the random generator's"):
        publish_module.publish(release, tmp_path / "table", frame, schema, secrets=secrets)
    assert not (tmp_path / "table").exists()
    if sleeping is not None:
        sleeping.result()

    release.metadata["salt"] = "pepper"
    make_reports = publish_module.make_reports

    def leaking(*args, **kwargs):  # a report that shows the state
        numbers, internal, public = make_reports(*args, **kwargs)
        render = public.render
        public.render = lambda: render() + secrets[0]
        return numbers, internal, public

    monkeypatch.setattr(publish_module, "make_reports", leaking)
    with pytest.raises(VerificationError, match="report.html holds the random generator's"):
        publish_module.publish(release, tmp_path / "report", frame, schema, secrets=secrets)
    assert not (tmp_path / "report").exists()
    monkeypatch.setattr(publish_module, "make_reports", make_reports)
    publish_module.publish(release, tmp_path / "ok", frame, schema, secrets=secrets)
    assert (tmp_path / "ok" / "public" / "report.html").is_file()


def test_the_threads_running_now_are_read_on_linux() -> None:
    """This test's own thread is not counted; elsewhere than Linux there is no count."""
    running = aside_module._running_now()
    if Path("/proc/loadavg").is_file():
        assert isinstance(running, int) and running >= 0
    else:
        assert running is None
