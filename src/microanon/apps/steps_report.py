"""The internal report's part for a release of several steps: the risk and loss after each
step, as a table and a chart of risk against loss, and which guarantee holds on which columns
at the end (:mod:`microanon.methods.steps`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..core.release import Release
from .release_figures import steps_path
from .report import Report

__all__ = ["add_steps_sections"]


def add_steps_sections(report: Report, release: Release) -> None:
    """Add the steps' risk/loss table and chart and the guarantees at the end (no-op for a
    release of one method).

    The risk is on the y axis: the expected re-identifications when the schema has a weight
    the survey measures can use (:func:`~microanon.measures.survey_design.schema_design`; the
    records without a weight are left out of it and counted in a column of the table), else the
    share of sample uniques; the loss on the x axis: the share of the published cells
    that differ from the original record's.
    """
    records = release.metadata.get("step_records")
    if not records:
        return
    rows = []
    for r in records:
        risk, loss = r["risk"], r["loss"]
        rows.append(
            {
                "step": r["step"],
                "method": r["method"],
                "changed": ", ".join(r["changed"]) or "–",
                "sample uniques": risk["sample_uniques"],
                "smallest key frequency": risk["min_fk"],
                "in keys of < 3": risk.get("below_3"),
                "expected re-identifications": risk.get("expected_reidentifications"),
                # (left out of the expected re-identifications, counted when there are any)
                "records without a weight": risk.get("without_weight") or None,
                "cells changed": loss["cells_changed"],
                "IL1s": loss["il1s"],
                "seconds": r["seconds"],
            }
        )
    table = pd.DataFrame(rows).dropna(axis=1, how="all")
    sec = report.section(
        "Risk and loss after every step",
        "The re-identification risk of the table after each step, counted as sdcMicro counts "
        "it (a missing key value, such as a cell wildcard suppression blanked, matches any "
        'value; the "*" of strict suppression is a value of its own, as its k-anonymity claim '
        "counts it), and what the steps so far changed against the original, record by record. "
        "Step 0 is the original.",
    )
    sec.table(table)
    weighted = "expected re-identifications" in table.columns
    rows_out = max(release.metadata.get("rows_out") or 1, 1)
    y = table["expected re-identifications"] if weighted else table["sample uniques"] / rows_out
    label = "expected re-identifications" if weighted else "share of sample uniques"
    sec.plot(
        steps_path(table["cells changed"], y, table["step"], label),
        "Risk against loss along the steps (points labelled by step)",
    )
    _add_guarantees(report, release)


def _add_guarantees(report: Report, release: Release) -> None:
    """Which guarantee holds on which columns at the end."""
    meta = release.metadata
    rows: list[dict[str, Any]] = []
    claims = meta.get("models") or []
    for i, step in enumerate(meta.get("steps") or [], start=1):
        for claim in step.get("models") or []:
            rows.append(
                {
                    "guarantee": _name(claim),
                    "step": f"{i} {step['method']}",
                    "columns": ", ".join(meta.get("quasi") or []),
                    "at the end": "holds: verified on the files as written"
                    if claim in claims
                    else "not claimed",
                }
            )
        for column in step.get("randomized") or {}:
            rows.append(
                {
                    "guarantee": "randomized with a published matrix",
                    "step": f"{i} {step['method']}",
                    "columns": column,
                    "at the end": "the matrix describes the published column"
                    if not _changed_later(meta, i, column)
                    else "a later step changed the column",
                }
            )
    sec = report.section(
        "Guarantees at the end",
        "What each step claims and whether it still holds on the published files; every claim "
        "is re-checked after each later step, and a step that breaks one is refused.",
    )
    if rows:
        sec.table(pd.DataFrame(rows))
    else:
        sec.paragraph("No step claims a privacy model or publishes a randomization matrix.")


def _name(claim: dict[str, Any]) -> str:
    ((name, params),) = claim.items()
    shown = ", ".join(f"{k} = {v}" for k, v in params.items())
    return f"{name.replace('_', '-')} ({shown})" if shown else name.replace("_", "-")


def _changed_later(meta: dict[str, Any], index: int, column: str) -> bool:
    later = (meta.get("steps") or [])[index:]
    return any(column in (s.get("changed") or []) for s in later)
