"""ℓ-diversity of a release of several sensitive attributes, checked on its published tables.

The mixed model (after the strong-association-rule model of multiple sensitive attributes,
*Mathematical Problems in Engineering*, 2015) and Rating (Liu, Luo & Huang, ICDMW 2011)
publish, for each sensitive attribute ``S`` with its ``l``:

* ``sac``: records in groups (the column :data:`GROUP_COLUMN`) whose values of ``S`` are
  pairwise distinct, permuted within the group, so that each of a group's values belongs to any
  of its records alike;
* ``at`` and ``idt``: each other record's value of ``S`` replaced by the name of a SID, a set of
  values that ``idt`` lists, one row per value (Rating's algorithm publishes
  :data:`SUPPRESSED_SID` for an occurrence no SID could take; microanon leaves such a record
  out).

A published value is ℓ-diverse when no value of its group or SID holds more than ``1/l`` of
it (Rating's Definition 2): frequency ℓ-diversity of every group and every SID, which for sets
of distinct values means at least ``l`` of them. :func:`multisa_verdicts` checks exactly that,
on the tables as they are, one verdict per sensitive attribute; a SID that ``at`` names and
``idt`` does not list for that attribute is refused. A ``*`` in ``at`` fails the attribute's
verdict: the occurrences no SID can take are those of the few values that every SID already
holds (each more than ``1/l`` of the column), so the class of the ``*`` cells holds fewer than
``l`` values, and the release does not list them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from contextlib import nullcontext
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.factorize import (
    factorize,
    factorize_keys,
    object_positions,
    remember,
    shared_codes,
    sharing,
)
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
    # Every column as codes into the texts of its distinct values (each made once).
    listed = _text_codes(idt["attribute"]), _text_codes(idt["sid"]), _text_codes(idt["value"])
    group, group_words = _text_codes(sac[GROUP_COLUMN])
    classes = np.array(  # the names of the classes: the groups', then the SIDs'
        [f"group {w}" for w in group_words] + [f"SID {w}" for w in listed[1][1]], dtype=object
    )
    with nullcontext() if sharing() else shared_codes():  # (the class names' codes kept)
        return [_verdict(s, ells[s], at, sac, group, classes, listed) for s in sensitive]


_Coded = tuple[np.ndarray, np.ndarray]


def _verdict(
    s: str,
    ell: float,
    at: pd.DataFrame,
    sac: pd.DataFrame,
    group: np.ndarray,
    classes: np.ndarray,
    listed: tuple[_Coded, _Coded, _Coded],
) -> Verdict:
    """The verdict of sensitive attribute ``s`` over the SAC groups (``group``: the codes of
    ``sac``'s group column) and the SIDs ``idt`` lists (``listed``: its attribute, SID and value
    columns as codes and texts); ``classes``: the names of the groups, then of the SIDs."""
    (attribute, attribute_words), (sid, sid_words), (value, value_words) = listed
    n_groups = len(classes) - len(sid_words)
    rows = np.flatnonzero(np.isin(attribute, np.flatnonzero(attribute_words == s)))
    sids = sid[rows]
    held = np.flatnonzero(np.bincount(sids[sids >= 0], minlength=len(sid_words)))
    # (the distinct SIDs: a value each, not a Python string per record; found among those of
    # the IDT as the same objects when both tables hold them)
    named = _texts(factorize(at[s])[1]) if s in at.columns else np.array([], dtype=object)
    found = object_positions(sid_words[held], named)
    unlisted = sorted({str(v) for v in named[found < 0]} - {SUPPRESSED_SID})
    if unlisted:
        raise InputError(
            f"multi-sa release: at names SID(s) of {s!r} that idt does not list "
            f"(e.g. {unlisted[0]!r})"
        )
    class_codes = np.concatenate([group, np.where(sids >= 0, sids + n_groups, -1)])
    values, words = _text_codes(sac[s])
    listed_values = value[rows]
    values = np.concatenate([values, np.where(listed_values >= 0, listed_values + len(words), -1)])
    known = np.append(np.concatenate([words, value_words]), None).astype(object)
    table = pd.DataFrame(
        {
            _CLASS: _classes(class_codes, classes),
            s: pd.Series(known[values], dtype=object, copy=False),  # (the texts may repeat)
        },
        copy=False,
    )
    stars = _stars(at[s]) if s in at.columns else 0
    if not len(table) and not stars:  # nothing published of this attribute: no class discloses it
        return _nothing_published(ell, s)
    verdict = LDiversity(ell, form="frequency").check(Groups.from_frame(table, [_CLASS], s))
    verdict = dataclasses.replace(verdict, model=f"{verdict.model} of {s}")
    if not stars:
        return verdict
    # A value published as * is one no SID could take: an occurrence of one of the few values
    # every SID already holds (more than 1/l of the column). The release lists no values for
    # the class of its * cells, and they are known to come from fewer than l values: it fails.
    offending = pd.DataFrame({_CLASS: [SUPPRESSED_SID], "size": [stars], "value": [1.0]})
    return dataclasses.replace(
        verdict,
        holds=False,
        value=1.0,
        offending=pd.concat([offending, verdict.offending], ignore_index=True),
        groups=verdict.groups + 1,
    )


def _stars(column: pd.Series) -> int:
    """How many cells of an AT column are :data:`SUPPRESSED_SID`."""
    codes, words = factorize(column)
    marked = [i for i, w in enumerate(words) if isinstance(w, str) and w == SUPPRESSED_SID]
    return int(np.count_nonzero(codes == marked[0])) if marked else 0


def _text_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``column.astype(str)`` as codes (``-1``: missing) into the texts of its distinct values
    (str, each made once): from the run's codes of the column when its values are text or
    whole numbers of a NumPy type (whose texts are as distinct as they are), else from the
    texts of its rows."""
    if column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
        codes, uniques = factorize(column)
        if pd.api.types.infer_dtype(uniques, skipna=False) in ("string", "empty"):
            return np.asarray(codes), np.asarray(uniques, dtype=object)
    elif isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu":
        codes, uniques = factorize(column)
        return np.asarray(codes), np.array([str(v) for v in uniques], dtype=object)
    codes, uniques = pd.factorize(column.astype(str), use_na_sentinel=True)
    return codes, np.asarray(uniques, dtype=object)


def _texts(values: Any) -> np.ndarray:
    """The texts of distinct values as an object array, distinct (``str`` of each, the values
    themselves when all are text)."""
    if pd.api.types.infer_dtype(values, skipna=False) in ("string", "empty"):
        return np.asarray(values, dtype=object)
    return pd.unique(np.array([str(v) for v in values], dtype=object))


def _classes(codes: np.ndarray, words: np.ndarray) -> pd.Series:
    """The column of class names ``words[codes]`` (None where a code is -1), its codes kept for
    the run when none is missing (renumbered in order of first appearance; the names of the
    groups and the SIDs are distinct)."""
    column = pd.Series(np.append(words, None).astype(object)[codes], dtype=object, copy=False)
    if not len(codes) or codes.min() < 0:
        return column
    highest = np.maximum.accumulate(codes)
    if codes[0] == 0 and np.all(codes[1:] <= highest[:-1] + 1):  # numbered so already
        first, seen = codes, np.arange(int(highest[-1]) + 1)
    else:
        first, seen = factorize_keys(codes.astype(np.int64, copy=False))
    remember(column, first, pd.Index(words[seen], dtype="str"))  # (as a str column's are)
    return column


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
