"""Report sections of the generalization family's releases (full-domain, Mondrian, local
recoding: kind ``generalized``; Anatomy: kind ``anatomized``).

Both are measured as an attacker reads them: equivalence classes on the published
quasi-identifiers, the claimed models re-checked, and the information lost by generalization.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from microanon.apps.release_frequencies import ReleaseTables
from microanon.apps.release_sections import (
    add_single_table_sections,
    all_suppressed,
    smallest_values,
)
from microanon.apps.report import Report
from microanon.core.hierarchy import SUPPRESSED
from microanon.core.release import Release
from microanon.core.schema import Schema
from microanon.models import Verdict

__all__ = ["add_sections", "describe_column"]

_ANATOMY_CAPTION = (
    "Anatomy publishes exact quasi-identifiers (the QIT), so re-identification of a record's "
    "group is certain; what it bounds is attribute disclosure, measured on each group's "
    "sensitive values (the ST)."
)


def add_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy, utility and class-size sections of a generalized or anatomized release.

    The arguments and the numbers returned are those of every family's ``add_sections``
    (:func:`microanon.apps.families.add_release_sections`); ``tables``: the frequency tables
    of a generalized release made out of core, every number measured on them.
    """
    if release.kind == "anatomized":
        return add_single_table_sections(
            report, original, release, title, caption=_ANATOMY_CAPTION, verdicts=verdicts
        )
    return add_single_table_sections(
        report, original, release, title, tables=tables, verdicts=verdicts
    )


def describe_column(release: Release, column: str) -> str | None:
    """What the method did to ``column``, from the public part (None: published unchanged)."""
    meta = release.metadata
    quasi = meta.get("quasi") or []
    if release.kind == "generalized" and column in quasi:
        return _generalized(release, column)
    if release.kind == "anatomized":
        if column in quasi:
            return "published exactly in the quasi-identifier table, linked only to a group"
        if column in (meta.get("sensitive") or []):
            l_value = (meta.get("parameters") or {}).get("l")
            return f"published by group in the sensitive table (ℓ = {l_value})"
    return None


def _generalized(release: Release, column: str) -> str:
    meta = release.metadata
    levels, heights = meta.get("levels") or {}, meta.get("heights") or {}

    def example() -> str:  # read only when shown
        labels = smallest_values(release.data[column], 3)
        return f" (e.g. {', '.join(labels)})" if labels else ""

    if column in levels:  # the heights are internal: the public part shows the level alone
        level, height = int(levels[column]), heights.get(column)
        of = f" of {height}" if height is not None else ""
        top = level >= int(height) if height is not None else all_suppressed(release, column)
        if top:
            return f"fully generalized to {SUPPRESSED} (level {level}{of})"
        if not level:  # the values as in the file (a missing one written as the file writes it)
            return f"not generalized, level 0{of}{example()}"
        return f"generalized to level {level}{of}{example()}"
    if all_suppressed(release, column):
        return f"fully generalized to {SUPPRESSED}"
    return f"generalized class by class{example()}"
