"""Expected deviations of the reproductions: matching, marking, verdicts, the ``--json`` outcome,
and the lists against their docs (no reproduction is run here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from reproduce_helpers import DEVIATIONS

from microanon.reproductions.catalog import PAPERS
from microanon.reproductions.expected import (
    FULL_ONLY,
    MEASURED_NOTE,
    QUICK_ONLY,
    Deviation,
    check_name,
    checked,
    mark_expected,
    outcome,
    timings,
    unexpected_failures,
    verdict,
)
from microanon.reproductions.outputs import check_line
from microanon.reproductions.paper import Experiments, Pieces

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _line(check: str, passed: bool, variant: str | None = None) -> dict:
    return check_line("paper", check, "E9.1", "a claim", passed, "numbers", variant=variant)


LINES = [
    _line("a", False, "x"),
    _line("a", False, "y"),
    _line("b", True),
    _line("c", False),
]
LIST = (
    Deviation("a", "a's reason", experiment="E9.1", variant="x"),
    Deviation("b", "b's reason"),
    Deviation("c", "c's reason", modes=QUICK_ONLY),
    Deviation("d", "d's reason", modes=FULL_ONLY),
)


def test_a_deviation_covers_its_id_experiment_variant_and_modes():
    quick = mark_expected(LINES, LIST, quick=True)
    assert [c["expected"] for c in quick] == [True, False, True, True]
    assert quick[0]["reason"] == "a's reason" and quick[1]["reason"] is None
    assert [check_name(c) for c in unexpected_failures(quick)] == ["a (E9.1, y)"]
    full = mark_expected(LINES, LIST, quick=False)
    assert [check_name(c) for c in unexpected_failures(full)] == ["a (E9.1, y)", "c (E9.1)"]
    assert not Deviation("a", "r", experiment="E9.2").matches(LINES[0], "quick")
    assert "expected" not in LINES[0]  # the input lines are left alone


def test_verdicts():
    a, unexpected, b, _ = mark_expected(LINES, LIST, quick=True)
    assert verdict(a) == "expected deviation: a's reason"
    assert verdict(unexpected) == "FAIL" and verdict(unexpected, "holds", "does not hold") == (
        "does not hold"
    )
    assert verdict(b, "agrees") == "agrees, now passes (expected deviation: b's reason)"
    assert verdict(mark_expected([_line("e", True)], LIST, quick=True)[0]) == "PASS"


def test_outcome_is_one_plain_object(tmp_path):
    results = {"checks": mark_expected(LINES, LIST, quick=True), "meta": {"quick": True}}
    results["meta"]["runtime_seconds"] = 1.5
    doc = outcome("randomization", tmp_path, results)
    assert doc["reproduction"] == "randomization" and doc["mode"] == "quick"
    assert doc["exit_status"] == 1 and doc["unexpected_failures"] == ["a (E9.1, y)"]
    assert doc["summary"] == {
        "checks": 4,
        "passed": 1,
        "expected_deviations": 2,
        "now_passing": 1,
        "unexpected_failures": 1,
        "timings": 0,
    }
    assert doc["checks"][0]["reason"] == "a's reason" and doc["checks"][0]["detail"] == "numbers"
    assert doc["outputs"]["results"] == str(tmp_path / "results.json")
    ok = {**results, "checks": [c for c in results["checks"] if c["variant"] != "y"]}
    assert outcome("randomization", tmp_path, ok)["exit_status"] == 0


def test_a_timing_never_fails_the_run(tmp_path):
    """A line that compares run times is reported (with whether it held) but never checked."""
    slow = check_line("paper", "speed", "E9.2", "x is faster", False, "0.9x", timing=True)
    fast = check_line("paper", "speed", "E9.3", "x is faster", True, "3x", timing=True)
    lines = mark_expected([_line("b", True), slow, fast], LIST, quick=True)
    assert unexpected_failures(lines) == [] and not lines[1]["expected"]
    assert checked(lines) == lines[:1] and timings(lines) == lines[1:]
    assert verdict(lines[1], "holds", "does not hold") == (
        f"measured: does not hold in this run ({MEASURED_NOTE})"
    )
    assert verdict(lines[2]).startswith("measured: PASS in this run")
    results = {"checks": lines, "meta": {"quick": True, "runtime_seconds": 1.0}}
    doc = outcome("multisa", tmp_path, results)
    assert doc["exit_status"] == 0 and doc["summary"]["checks"] == 1
    assert doc["summary"]["timings"] == 2
    assert [c["timing"] for c in doc["checks"]] == [False, True, True]


@pytest.mark.parametrize("name", sorted(DEVIATIONS))
def test_every_list_is_reviewed_and_documented(name):
    deviations = DEVIATIONS[name]
    keys = [(d.check, d.experiment, d.variant) for d in deviations]
    assert len(set(keys)) == len(keys)  # no check listed twice
    doc = (DOCS / f"reproduce-{name}.md").read_text(encoding="utf-8")
    assert "## Exit status, `--json` and the expected deviations" in doc
    for d in deviations:
        assert len(d.reason) > 40 and d.modes and d.modes <= {"quick", "full"}
        assert f"| `{d.check}` |" in doc and d.reason in doc, d.check


def test_reproduction_commands():
    assert sorted(PAPERS) == ["collection", "distribution", "multisa", "randomization"]
    assert all(name == paper.command for name, paper in PAPERS.items())


@pytest.mark.parametrize("name", sorted(PAPERS))
def test_every_paper_declares_its_pieces(name):
    """Each paper's ``pieces`` gives the runner two plans, its deviations, a report builder and
    experiments whose stages are counted before any of them runs (building them does no work)."""
    pieces = PAPERS[name].pieces()
    assert isinstance(pieces, Pieces) and pieces.quick.quick and not pieces.full.quick
    assert tuple(pieces.deviations) == DEVIATIONS[name] and callable(pieces.report)
    experiments = pieces.experiments(pieces.quick, np.random.default_rng(0))
    assert isinstance(experiments, Experiments)
    titles = [stage.title for stage in experiments.stages()]
    assert titles and len(set(titles)) == len(titles)
