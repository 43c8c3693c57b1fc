"""What a verified release's verdict holds on, when columns published with the records can
restore quasi-identifiers.

The verification re-checks the claimed models on the declared quasi-identifiers as the files
hold them. A sensitive column or a sampling weight published beside them that determines one of
them (the schema lint's cautions, :attr:`~microanon.core.lint.LintReport.restoring`) gives back
what the release generalized or suppressed, so an unqualified "verified: yes" would say more
than was checked. Every output that states the verdict (the terminal's summary, ``--json``'s
``restored_keys``, the internal report) then says that the models hold on the declared
quasi-identifiers and names the columns that can restore which of them. The public report says
nothing of it: the cautions are measured on the original data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.lint import LintReport, Restoring
from ..core.release import Release

__all__ = ["restored_keys", "restored_paragraph", "unchanged_quasi", "verified_words"]

#: The verdict in words, by ``verified`` (None: no model claimed).
VERDICTS = {None: "nothing claimed", True: "yes", False: "NO"}


def restored_keys(lint: LintReport, release: Release) -> list[dict[str, Any]]:
    """The lint's restorings that apply to ``release``: of each, the quasi-identifiers that a
    table of the release publishes together with the restoring columns (a column published in
    another table than the quasi-identifier, as Anatomy's sensitive table, restores nothing
    record by record) and that the release changes in some record (:func:`unchanged_quasi`:
    a key published as it is has nothing to restore).

    Parameters
    ----------
    lint : LintReport
        The schema lint of the original.
    release : Release
        The release (its tables' columns are read, no value).

    Returns
    -------
    list of dict
        :meth:`~microanon.core.lint.Restoring.to_dict` of each, in the lint's order.
    """
    tables = [{str(c) for c in table.columns} for table in release.tables.values()]
    unchanged = unchanged_quasi(release.metadata)
    out = []
    for restoring in lint.restoring:
        together = [t for t in tables if set(restoring.columns) <= t]
        found = restoring.among(
            q for t in together for q in restoring.quasi if q in t and q not in unchanged
        )
        if found is not None:
            out.append(found.to_dict())
    return out


def unchanged_quasi(metadata: Mapping[str, Any]) -> set[str]:
    """The quasi-identifiers a release publishes as the original holds them in every published
    record, by what its metadata says the method did: a full-domain generalization's at level
    0 when its suppressed records are not published (``suppressed_rows: remove``). A column
    published with the records restores nothing of such a key: there is nothing it hides.

    Parameters
    ----------
    metadata : mapping
        The release's metadata (``method``, ``levels``, ``parameters``).

    Returns
    -------
    set of str
        Empty for any other method, which may change a key record by record.
    """
    levels = metadata.get("levels")
    if metadata.get("method") != "full_domain" or not isinstance(levels, Mapping):
        return set()
    if (metadata.get("parameters") or {}).get("suppressed_rows", "remove") != "remove":
        return set()
    return {str(q) for q, level in levels.items() if level == 0}


def verified_words(verified: bool | None, restored: Sequence[Mapping[str, Any]] = ()) -> str:
    """The verdict of the verification in words: ``yes``, ``NO`` or ``nothing claimed``; a
    ``yes`` with ``restored`` (:func:`restored_keys`) says that the models hold on the declared
    quasi-identifiers and which columns can restore which of them.

    Parameters
    ----------
    verified : bool or None
        Whether every claimed model holds (None: none claimed).
    restored : sequence of dict
        :func:`restored_keys`.

    Returns
    -------
    str
    """
    words = VERDICTS[verified]
    if verified is not True or not restored:
        return words
    see = "the warning" if len(restored) == 1 else "the warnings"
    return f"yes, on the declared quasi-identifiers; {_named(restored)} (see {see})"


def restored_paragraph(restored: Sequence[Mapping[str, Any]]) -> str:
    """The internal report's sentence beside the verdicts of a release with ``restored``
    (:func:`restored_keys`, not empty)."""
    return (
        "The claimed models hold on the declared quasi-identifiers as the files publish them; "
        "columns published with the records can restore some of them where the release "
        f"generalizes or suppresses them (the schema lint's warnings above): {_named(restored)}."
    )


def _named(restored: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(Restoring.from_dict(r).sentence for r in restored)
