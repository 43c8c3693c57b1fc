"""The findings table of a reproduction and the demo's summary across papers, on check lines
built here (the quick runs' tables are tested with each reproduction)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from microanon.apps.demo_context import DemoContext
from microanon.apps.demo_papers import PAPERS_SECTIONS
from microanon.apps.report import Report
from microanon.core.errors import InputError
from microanon.reproductions.catalog import PAPERS
from microanon.reproductions.expected import MEASURED_NOTE, Deviation, mark_expected
from microanon.reproductions.findings import (
    FINDINGS_COLUMNS,
    MEASURED,
    NO_REASON,
    add_findings,
    findings_table,
    summarize,
)
from microanon.reproductions.outputs import check_line
from microanon.reproductions.papers import PAPERS_COLUMNS, papers_table, read_runs

LIST = (Deviation("b", "b's reason"), Deviation("d", "d's reason"))


def _checks() -> list[dict]:
    lines = [
        check_line("issue", "a", "E9.1", "a holds", True, "a: 1", paper="1", ours="1"),
        check_line("paper", "b", "E9.2", "b holds", False, "b: 5 vs 3", paper="3", variant="v"),
        check_line("paper", "c", "E9.2", "c holds", False, "c: 7", paper="≤ 2", ours="7"),
        check_line("paper", "d", "E9.3", "d holds", True, "d: ok"),
    ]
    return mark_expected(lines, LIST, quick=True)


def test_findings_table_has_one_row_per_check_and_the_reasons():
    table = findings_table(_checks())
    assert list(table.columns) == list(FINDINGS_COLUMNS)
    assert table["experiment"].tolist() == ["E9.1", "E9.2 (v)", "E9.2", "E9.3"]
    assert table["paper"].tolist() == ["1", "3", "≤ 2", "–"]
    assert table["ours"].tolist() == ["1", "b: 5 vs 3", "7", "d: ok"]  # detail when no ours
    assert table["holds"].tolist() == ["✓", "✗", "✗", "✓"]
    reasons = table["reason"].tolist()
    assert reasons[0] == "" and reasons[1] == "b's reason" and reasons[2] == NO_REASON
    assert reasons[3].startswith("now passes") and "d's reason" in reasons[3]


def test_summary_counts_and_reasons():
    assert summarize(_checks()) == {
        "checks": 4,
        "passed": 2,
        "expected_deviations": 1,
        "unexpected_failures": 1,
        "reasons": [("b's reason", 1)],
        "timings": 0,
    }


def _with_timings() -> list[dict]:
    """The lines of :func:`_checks` and two timings, one that held and one that did not."""
    timings = [
        check_line("paper", "fast", "E9.4", "x is faster", True, "3x", paper="faster", timing=True),
        check_line("paper", "slow", "E9.4", "y is faster", False, "0.9x", timing=True),
    ]
    return _checks() + mark_expected(timings, LIST, quick=True)


def test_timings_are_measured_not_checked():
    checks = _with_timings()
    table = findings_table(checks)
    assert (
        table["holds"].tolist()[4:]
        == [MEASURED[True], MEASURED[False]]
        == [
            "✓ (measured)",
            "✗ (measured)",
        ]
    )
    assert table["reason"].tolist()[4:] == [MEASURED_NOTE, MEASURED_NOTE]
    assert summarize(checks) == {**summarize(_checks()), "timings": 2}
    report = Report("t")
    add_findings(report, checks, "Some & Body (2020)")
    html = report.render()
    assert "2 of 4" in html and "timings (measured, not checked)" in html
    assert html.count("<td>✗</td>") == 2 and html.count("<td>✗ (measured)</td>") == 1


def test_add_findings_writes_one_section():
    report = Report("t")
    add_findings(report, _checks(), "Some & Body (2020)")
    html = report.render()
    assert "Findings: the paper against our run" in html and "2 of 4" in html
    assert html.count("<td>✗</td>") == 2


def _write(root, name: str, checks: list[dict], quick: bool = True) -> None:
    (root / name).mkdir()
    doc = {"checks": checks, "meta": {"quick": quick}}
    (root / name / "results.json").write_text(json.dumps(doc), encoding="utf-8")


def test_papers_table_has_one_row_per_paper(tmp_path):
    _write(tmp_path, "multisa", _checks())
    _write(tmp_path, "collection", _checks()[:1], quick=False)
    table = papers_table(read_runs(tmp_path))
    assert list(table.columns) == list(PAPERS_COLUMNS)
    assert sorted(table["reproduction"]) == sorted(PAPERS)
    rows = table.set_index("reproduction")
    assert rows.loc["multisa", "checks passing"] == "2 / 4"
    assert rows.loc["multisa", "top reasons"] == "b's reason"
    assert rows.loc["multisa", "run"] == "quick" and rows.loc["collection", "run"] == "full"
    assert rows.loc["randomization", "run"] == "not run"


def test_bad_reproductions_directory_is_one_input_error(tmp_path):
    with pytest.raises(InputError, match="not a directory"):
        read_runs(tmp_path / "missing")
    (tmp_path / "distribution").mkdir()
    (tmp_path / "distribution" / "results.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="distribution"):
        read_runs(tmp_path)
    (tmp_path / "distribution" / "results.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="no check lines"):
        read_runs(tmp_path)


@pytest.mark.parametrize("given", [True, False])
def test_demo_section_the_papers_reproduced(tmp_path, given):
    _write(tmp_path, "randomization", _checks())
    ctx = DemoContext(data=pd.DataFrame(), schema=None, quasi=[], sensitive="s")  # type: ignore[arg-type]
    if given:
        ctx.reproductions, ctx.reproduction_runs = tmp_path, read_runs(tmp_path)
    report = Report("demo")
    for build in PAPERS_SECTIONS:
        build(report, ctx)
    (section,) = report.sections
    assert section.title == "The papers, reproduced"
    html = report.render()
    if given:
        assert html.count("<tr><td>") == len(PAPERS) and str(tmp_path) in html
    else:
        assert "<table>" not in html and "--reproductions" in html
