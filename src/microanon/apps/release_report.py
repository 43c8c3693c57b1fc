"""The public report of a release in memory (:meth:`microanon.Release.report`), for notebooks.

:func:`release_report` builds the report that :func:`~microanon.apps.publish.publish` writes to
``public/report.html`` (:func:`~microanon.apps.publish.public_report`) from the release's public
part: the claimed models are re-checked on its tables, the schema is the roles its public
metadata declares. Without the original data there is no schema lint and no leak scan, and
nothing internal (original values, counts on the original, the audit trail) enters the report.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from ..core.lint import LintReport
from ..core.release import Release
from ..core.schema import Schema
from ..models import Verification, check_release
from ..models.release_check import CHECKED_KINDS
from .publish import public_report
from .report import Report

__all__ = ["FRAME_HEIGHT", "ReleaseReport", "release_report"]

#: Height in pixels of the frame that shows a report inside a notebook (it scrolls).
FRAME_HEIGHT = 600

#: Release kinds whose one table (``data``) holds every published column.
_ONE_TABLE = ("generalized", "randomized", "masked")


class ReleaseReport:
    """A release's public report: shown inline by Jupyter, saved with :meth:`save`.

    Parameters
    ----------
    report : Report
        The report (its sections built).

    Attributes
    ----------
    title : str
        The report's title.
    html : str
        The whole report, one self-contained HTML document.
    """

    def __init__(self, report: Report) -> None:
        self._report = report
        self.title = report.title
        self.html = report.render()

    def __repr__(self) -> str:
        titles = ", ".join(s.title for s in self._report.sections)
        return f"<ReleaseReport {self.title!r}: {titles}>"

    def _repr_html_(self) -> str:
        """The report in a frame of its own, so that its styles stay out of the notebook."""
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            f'title="{html.escape(self.title, quote=True)}" '
            f'style="width:100%;height:{FRAME_HEIGHT}px;border:1px solid #ccd"></iframe>'
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the report to ``path`` as HTML, atomically.

        An existing file is replaced only if it is a report microanon wrote.

        Raises
        ------
        InputError
            ``path`` exists and is not a microanon report.
        """
        return self._report.write(path)


def _schema_of(public: Release) -> Schema:
    """The schema a release's public metadata declares: its quasi-identifiers and sensitive
    columns, and for a one-table release every other published column as insensitive."""
    meta = public.metadata
    roles = {str(q): "quasi" for q in meta.get("quasi") or []}
    roles.update({str(s): "sensitive" for s in meta.get("sensitive") or [] if s not in roles})
    if public.kind in _ONE_TABLE:
        for column in public.data.columns:
            roles.setdefault(str(column), "insensitive")
    return Schema.from_dict(roles)


def release_report(release: Release) -> ReleaseReport:
    """The public report of ``release``, from its public part alone.

    Parameters
    ----------
    release : Release
        A release in memory (both parts, or the public part as loaded from ``public/``).

    Returns
    -------
    ReleaseReport

    Raises
    ------
    SchemaError
        The public metadata declares no column role to describe.
    InputError
        A claimed model cannot be checked (δ-presence or k-map of a release loaded without its
        internal part).
    """
    public = release.public_part()
    claims = bool(public.metadata.get("models")) or public.kind in CHECKED_KINDS
    # As publish does: the models checked on the whole release (δ-presence and k-map need the
    # population counts it keeps internally); only the verdicts enter the public report.
    verification = Verification(verdicts=check_release(release) if claims else [], public=public)
    lint = LintReport(rows=len(public.data))
    return ReleaseReport(public_report(verification, _schema_of(public), lint))
