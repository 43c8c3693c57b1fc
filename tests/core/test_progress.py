"""The progress reporter: one line per finished stage off a terminal, nothing when off, and the
Dask stages in the same format."""

from __future__ import annotations

import io
import os
import re
import time

import pytest

from microanon.core import progress as progress_module
from microanon.core.errors import InputError
from microanon.core.progress import Progress, as_progress
from microanon.scale.client import wait_stage

LINE = re.compile(r"^microanon demo: \[(\d+)/3\] (.+) \.\.\. done in \d+\.\d s$")


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_lines_number_the_stages_and_name_what_they_did():
    out = io.StringIO()
    reporter = Progress("demo", "lines", total=3, stream=out)
    with reporter.stage("read"):
        pass
    with reporter.stage("first guess") as stage:
        stage.name = "privacy profile"
    reporter.note("halfway")
    with reporter.stage("write"):
        pass
    lines = _lines(out)
    assert [LINE.match(x).groups() for x in (lines[0], lines[1], lines[3])] == [
        ("1", "read"),
        ("2", "privacy profile"),
        ("3", "write"),
    ]
    assert lines[2] == "microanon demo: [3/3] halfway"
    assert reporter.done == 3


def test_a_failed_stage_prints_nothing_and_the_error_passes():
    out = io.StringIO()
    reporter = Progress("demo", "lines", total=3, stream=out)
    with pytest.raises(InputError, match="bad column"):
        with reporter.stage("read"):
            raise InputError("bad column")
    assert out.getvalue() == "" and reporter.done == 0


def test_off_prints_nothing():
    out = io.StringIO()
    reporter = Progress("demo", "off", total=1, stream=out)
    with reporter.stage("read"):
        reporter.note("inside")
    assert list(reporter.iterate([1, 2], "rows")) == [1, 2]
    assert out.getvalue() == ""


def test_auto_is_lines_off_a_terminal_and_bar_on_one():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress("x", stream=io.StringIO()).mode == "lines"
    assert Progress("x", stream=Terminal()).mode == "bar"


def test_auto_is_lines_on_a_terminal_of_no_width(monkeypatch):
    """A pseudo-terminal that reports 0 columns (``script`` in CI) draws no bar: lines."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            return 2

    widths = {"columns": 0}
    monkeypatch.setattr(
        progress_module.os,
        "get_terminal_size",
        lambda fd: os.terminal_size((widths["columns"], 24)),
    )
    assert Progress("x", stream=Terminal()).mode == "lines"
    widths["columns"] = 120
    assert Progress("x", stream=Terminal()).mode == "bar"


def test_bar_mode_writes_a_bar_and_no_stage_lines():
    out = io.StringIO()
    with Progress("demo", "bar", total=2, stream=out) as reporter:
        for name in ("one", "two"):
            with reporter.stage(name):
                pass
    assert "microanon demo" in out.getvalue() and "done in" not in out.getvalue()
    assert "2/2" in out.getvalue()


def test_iterate_reports_the_count(monkeypatch):
    monkeypatch.setattr(progress_module, "LINE_INTERVAL", 0.0)  # a line after every item
    out = io.StringIO()
    reporter = Progress("collect submit", "lines", stream=out)
    assert list(reporter.iterate(["a", "b", "c"], "respondents")) == ["a", "b", "c"]
    lines = _lines(out)
    assert lines[0].startswith("microanon collect submit: respondents: 1/3 after ")
    assert re.match(
        r"microanon collect submit: respondents: 3 \.\.\. done in \d+\.\d s$", lines[-1]
    )


def test_a_beating_stage_says_every_interval_that_it_runs(monkeypatch):
    """A stage that reports nothing of its own (a method no search watch follows): a line every
    interval while it runs, numbered as the stage, then its line; nothing beats when off or
    after the stage, and a failed stage's error passes."""
    monkeypatch.setattr(progress_module, "LINE_INTERVAL", 0.05)
    out = io.StringIO()
    reporter = Progress("anonymize", "lines", total=6, stream=out)
    with reporter.stage("read"):
        pass
    with reporter.stage("method randomized_response", beat=True):
        deadline = time.monotonic() + 30  # (a loaded machine may be slow to run the thread)
        while len(_lines(out)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = _lines(out)
    beats = lines[1:-1]
    assert len(beats) >= 2
    for line in beats:
        assert re.fullmatch(
            r"microanon anonymize: \[2/6\] method randomized_response: running for \d+ s", line
        )
    assert re.fullmatch(r"microanon anonymize: \[2/6\] method randomized_response \.\.\. "
                        r"done in \d+\.\d s", lines[-1])  # fmt: skip
    time.sleep(0.15)
    assert _lines(out) == lines  # (the beat ended with the stage)
    with pytest.raises(InputError, match="bad"):
        with reporter.stage("write", beat=True):
            raise InputError("bad")
    quiet = io.StringIO()
    with Progress("anonymize", "off", stream=quiet).stage("method", beat=True):
        time.sleep(0.12)
    assert quiet.getvalue() == ""


def test_count_reports_units_done_in_steps(monkeypatch):
    monkeypatch.setattr(progress_module, "LINE_INTERVAL", 0.0)  # a line after every step
    out = io.StringIO()
    reporter = Progress("anonymize", "lines", stream=out)
    with reporter.count("mondrian", total=10, unit="rec") as done:
        done.advance(3)
        done.advance(7)
    lines = _lines(out)
    assert lines[0].startswith("microanon anonymize: mondrian: 3/10 after ")
    assert lines[1].startswith("microanon anonymize: mondrian: 10/10 after ")
    assert re.match(r"microanon anonymize: mondrian: 10 \.\.\. done in \d+\.\d s$", lines[2])
    assert done.n == 10 and reporter.done == 1
    bar = io.StringIO()
    with Progress("", "bar", stream=bar).count("search", total=4, unit="node") as done:
        done.advance(4)
    assert "search" in bar.getvalue() and "4/4" in bar.getvalue() and "node" in bar.getvalue()
    quiet = io.StringIO()
    with Progress("", "off", stream=quiet).count("search", total=4) as done:
        done.advance(4)
    assert quiet.getvalue() == "" and done.n == 4


def test_as_progress():
    given = Progress("anonymize", "lines", stream=io.StringIO())
    assert as_progress(given, "ignored", total=9) is given  # nested steps share it
    assert as_progress(False).mode == "off" and as_progress(True).mode == "bar"
    assert as_progress("lines", "demo", total=4).total == 4
    assert as_progress(None).mode in ("bar", "lines")
    assert as_progress("lines").prefix == "microanon:"
    with pytest.raises(InputError, match="progress must be one of"):
        as_progress("loud")
    with pytest.raises(InputError, match="progress must be a bool"):
        as_progress(3)  # type: ignore[arg-type]


class _Client:
    """What wait_stage needs of a distributed.Client."""

    def gather(self, futures):
        return [f * 2 for f in futures]


def test_dask_stages_use_the_same_lines():
    out = io.StringIO()
    reporter = Progress("anonymize", "lines", stream=out)
    assert wait_stage(_Client(), "frequency table", [1, 2], reporter) == [2, 4]
    (line,) = _lines(out)
    assert re.match(r"microanon anonymize: frequency table \.\.\. done in \d+\.\d s$", line)
    quiet = io.StringIO()
    wait_stage(_Client(), "encode", [1], Progress("anonymize", "off", stream=quiet))
    assert quiet.getvalue() == ""


def test_dask_stages_of_a_library_call(capsys):
    wait_stage(_Client(), "encode", [1], "lines")
    assert re.match(r"microanon: encode \.\.\. done in \d+\.\d s\n$", capsys.readouterr().err)
    wait_stage(_Client(), "encode", [1], False)
    assert capsys.readouterr().err == ""
