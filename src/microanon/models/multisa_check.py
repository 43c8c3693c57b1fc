"""ℓ-diversity of a release of several sensitive attributes, checked on its published tables.

The mixed model (after the strong-association-rule model of multiple sensitive attributes,
*Mathematical Problems in Engineering*, 2015) and Rating (Liu, Luo & Huang, ICDMW 2011)
publish, for each sensitive attribute ``S`` with its ``l``:

* ``sac``: records in groups (the column :data:`GROUP_COLUMN`) whose values of ``S`` are
  pairwise distinct, permuted within the group, so that each of a group's values belongs to any
  of its records alike;
* ``at`` and ``idt``: each other record's value of ``S`` replaced by the name of a SID, a set of
  values that ``idt`` lists, one row per value (``at`` holds :data:`SUPPRESSED_SID` for an
  occurrence no SID could take).

A published value is ℓ-diverse when no value of its group or SID holds more than ``1/l`` of
it (Rating's Definition 2): frequency ℓ-diversity of every group and every SID, which for sets
of distinct values means at least ``l`` of them. :func:`multisa_verdicts` checks exactly that,
on the tables as they are, one verdict per sensitive attribute; a SID that ``at`` names and
``idt`` does not list for that attribute is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from microanon.core.errors import InputError
from microanon.core.release import Release

from .groups import Groups
from .ldiversity import LDiversity
from .verdict import Verdict

__all__ = ["GROUP_COLUMN", "IDT_COLUMNS", "SUPPRESSED_SID", "multisa_verdicts"]

GROUP_COLUMN = "group"
"""Group-id column of the ``sac`` table."""
SUPPRESSED_SID = "*"
"""What ``at`` holds for an occurrence no SID could take."""
IDT_COLUMNS = ("attribute", "sid", "value")
"""Columns of the ``idt`` table."""

#: The column of the classes checked (groups and SIDs together).
_CLASS = "group or SID"


def multisa_verdicts(release: Release) -> list[Verdict]:
    """Frequency ℓ-diversity of every ``sac`` group and every SID, per sensitive attribute.

    Parameters
    ----------
    release : Release
        A ``multi-sa`` release: its tables ``sac``, ``at`` and ``idt``, its public metadata
        ``sensitive`` and ``parameters.l`` (one number, or one per sensitive attribute).

    Returns
    -------
    list of Verdict
        One per sensitive attribute, in order: ``frequency l-diversity of S`` with that
        attribute's ``l``, over its groups and SIDs.

    Raises
    ------
    InputError
        A table or parameter missing, or a SID that ``at`` names and ``idt`` does not list.
    """
    meta = release.metadata
    sensitive = [str(s) for s in meta.get("sensitive") or []]
    ells = _ells((meta.get("parameters") or {}).get("l"), sensitive)
    missing = [n for n in ("sac", "at", "idt") if n not in release.tables]
    if missing or not sensitive:
        raise InputError(
            "multi-sa release: it needs the tables sac, at and idt and its sensitive columns"
            + (f"; {', '.join(missing)} missing" if missing else "")
        )
    sac, at, idt = (release.tables[n] for n in ("sac", "at", "idt"))
    verdicts = []
    for s in sensitive:
        listed = idt.loc[idt["attribute"].astype(str) == s]
        sids = listed["sid"].astype(str)
        # (the distinct SIDs first: a value each, not a Python string per record)
        named = {str(v) for v in at[s].dropna().unique()} if s in at.columns else set()
        unlisted = sorted(named - {SUPPRESSED_SID} - set(sids.unique().tolist()))
        if unlisted:
            raise InputError(
                f"multi-sa release: at names SID(s) of {s!r} that idt does not list "
                f"(e.g. {unlisted[0]!r})"
            )
        classes = pd.DataFrame(
            {
                _CLASS: pd.concat(
                    ["group " + sac[GROUP_COLUMN].astype(str), "SID " + sids], ignore_index=True
                ),
                s: pd.concat([sac[s].astype(str), listed["value"].astype(str)], ignore_index=True),
            }
        )
        if not len(classes):  # nothing published of this attribute: no class discloses it
            verdicts.append(_nothing_published(ells[s], s))
            continue
        verdict = LDiversity(ells[s], form="frequency").check(
            Groups.from_frame(classes, [_CLASS], s)
        )
        verdicts.append(dataclasses.replace(verdict, model=f"{verdict.model} of {s}"))
    return verdicts


def _nothing_published(ell: float, sensitive: str) -> Verdict:
    """The verdict of a sensitive attribute every value of which is suppressed: no group and no
    SID holds a value of it, so none discloses one; ℓ holds unbounded, as for a table without
    a known value."""
    return Verdict(
        model=f"frequency l-diversity of {sensitive}",
        parameters={"l": ell, "form": "frequency"},
        holds=True,
        value=float("inf"),
        offending=pd.DataFrame(),
        groups=0,
    )


def _ells(l: Any, sensitive: list[str]) -> dict[str, float]:  # noqa: E741 - the model's name
    """Each sensitive attribute's ``l`` from the public parameter (a number or a mapping)."""
    if isinstance(l, Mapping) and all(s in l for s in sensitive):
        return {s: float(l[s]) for s in sensitive}
    if isinstance(l, (int, float)) and not isinstance(l, bool):
        return {s: float(l) for s in sensitive}
    raise InputError(f"multi-sa release: its parameter l gives no l for each of {sensitive}")
