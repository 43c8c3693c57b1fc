"""Report sections of the generalization family's releases (full-domain, Mondrian, local
recoding: kind ``generalized``; Anatomy: kind ``anatomized``).

Both are measured as an attacker reads them: equivalence classes on the published
quasi-identifiers, the claimed models re-checked, and the information lost by generalization.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from microanon.apps.release_sections import add_single_table_sections
from microanon.apps.report import Report
from microanon.core.release import Release
from microanon.core.schema import Schema

__all__ = ["add_sections"]

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
) -> dict[str, Any]:
    """Add the privacy, utility and class-size sections of a generalized or anatomized release.

    Parameters
    ----------
    report : Report
        The report to add to.
    original : pandas.DataFrame
        The original table.
    release : Release
        A release of kind ``generalized`` or ``anatomized``.
    title : str
        Prefix of the section titles.
    schema : Schema, optional
        Not needed by this family (part of every family's signature).

    Returns
    -------
    dict
        The numbers shown (see :func:`~microanon.apps.release_sections.add_single_table_sections`).
    """
    if release.kind == "anatomized":
        return add_single_table_sections(report, original, release, title, caption=_ANATOMY_CAPTION)
    return add_single_table_sections(report, original, release, title)
