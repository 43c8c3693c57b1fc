"""The method families as the applications see them: one folder per family, named as its
methods' folder under :mod:`microanon.methods`.

Each ``families/<name>/`` holds:

``__init__.py``
    ``FAMILY``, a :class:`Family` record: its title, the release kinds it writes and whether it
    has demo sections.
``report.py``
    ``add_sections(report, original, release, title, schema, verdicts, tables)``: the report
    sections of its releases (families that write releases).
``demo.py``
    ``SECTIONS``: what it adds to ``microanon demo``.

The reproductions of the families' papers (``microanon reproduce <command>``) are not here: they
are :mod:`microanon.reproductions`, built on the applications.

Adding a family means adding ``methods/<name>/``, ``apps/families/<name>/`` and its record to
:data:`FAMILIES`; the report, the demo and the command line find it there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.errors import InputError
from .collect import FAMILY as COLLECT
from .distribution import FAMILY as DISTRIBUTION
from .family import Family
from .generalize import FAMILY as GENERALIZE
from .multisa import FAMILY as MULTISA
from .randomize import FAMILY as RANDOMIZE
from .sdc import FAMILY as SDC

if TYPE_CHECKING:
    import pandas as pd

    from ...core.release import Release
    from ...core.schema import Schema
    from ...models import Verdict
    from ..release_frequencies import ReleaseTables
    from ..report import Report

__all__ = [
    "FAMILIES",
    "Family",
    "add_release_sections",
    "family_of",
]

#: Every family, in the order of the demo.
FAMILIES: tuple[Family, ...] = (GENERALIZE, RANDOMIZE, DISTRIBUTION, MULTISA, SDC, COLLECT)

_BY_KIND = {kind: family for family in FAMILIES for kind in family.kinds}


def family_of(release: Release) -> Family:
    """The family whose methods write releases of ``release.kind``."""
    try:
        return _BY_KIND[release.kind]
    except KeyError:
        known = ", ".join(sorted(_BY_KIND))
        raise InputError(f"release kind {release.kind!r} is not one of {known}") from None


def add_release_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy and utility sections of one release, as its family builds them.

    Parameters
    ----------
    report : Report
        The report to add to.
    original : pandas.DataFrame
        The original table.
    release : Release
        The release.
    title : str
        Prefix of the section titles.
    schema : Schema, optional
        The schema the release was made with (randomized releases measure utility on the
        reconstructed distribution, which needs it).
    verdicts : sequence of Verdict, optional
        The claimed models as the verification of the written files found them (:func:`anonymize
        <microanon.apps.publish.publish>` has them); re-checked on ``release`` when not given.
    tables : ReleaseTables, optional
        The frequency tables of the original and the published table of a release made out of
        core (:func:`~microanon.apps.publish.make_reports` with counted tables): ``release``
        holds the published table's distinct rows, ``original`` no records, and every number
        is measured on the tables. The families whose releases are measured on their records
        refuse them (:func:`~microanon.apps.release_sections.on_records_only`).

    Returns
    -------
    dict
        The numbers shown, with ``verified`` (whether every claimed model holds).
    """
    return family_of(release).add_sections(
        report, original, release, title, schema, verdicts, tables
    )
