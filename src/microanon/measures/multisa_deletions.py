"""Why the mixed model deletes records at high ``l``.

The mixed model of Yi & Shi (*Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015) puts the records holding strong values
(SAC) into groups of ``l`` records with pairwise distinct values on every sensitive attribute, and
deletes the SAC records no group can take. The paper explains its slight deviation at ``l = 6``
by relationship having only six values. Two measures make that explanation quantitative:

:func:`group_capacity`
    Per sensitive attribute, the most groups of ``l`` records with distinct values its value
    counts allow: ``g_j = max {g : Σ_v min(c_v, g) >= l·g}`` (a group takes at most one record
    of each value, so a value contributes to at most ``c_v`` groups; the condition is also
    sufficient for one attribute alone). ``l·min_j g_j`` bounds the records any grouping can
    place, so at least ``|SAC| − l·min_j g_j`` SAC records are deleted whatever the order.
:func:`explain_deletions`
    For a mixed-model release: SAC size, deletions by cause (the release's ``deleted_by``), the
    capacity of every attribute and the forced deletions that capacity implies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.release import Release
from ..methods.multisa.sids import check_l

__all__ = ["explain_deletions", "group_capacity", "max_groups"]


def max_groups(counts: Sequence[int] | np.ndarray, l: int) -> int:  # noqa: E741
    """Most groups of ``l`` records with pairwise distinct values, for value counts ``counts``.

    Parameters
    ----------
    counts : sequence of int
        Records per value (non-negative).
    l : int
        Group size (``>= 2``).

    Returns
    -------
    int
        The largest ``g`` with ``Σ_v min(c_v, g) >= l·g``.

    Examples
    --------
    >>> max_groups([5, 1, 1], 2), max_groups([3, 3, 3], 3), max_groups([9, 1], 3)
    (2, 3, 0)
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 1 or (len(c) and c.min() < 0):
        raise InputError(f"counts: need a 1-d sequence of non-negative integers, got {counts!r}")
    ell = check_l(l)
    lo, hi = 0, int(c.sum()) // ell  # Σ min(c, g) − l·g is concave with value 0 at g = 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if int(np.minimum(c, mid).sum()) >= ell * mid:
            lo = mid
        else:
            hi = mid - 1
    return lo


def group_capacity(data: pd.DataFrame, sensitive: Sequence[str], l: int) -> pd.DataFrame:  # noqa: E741
    """Per sensitive attribute, the most groups of ``l`` distinct values its counts allow.

    Parameters
    ----------
    data : DataFrame
        The records that may be grouped (for the mixed model: the whole original table, since
        groups borrow IR records).
    sensitive : sequence of str
        Columns of ``data``.
    l : int

    Returns
    -------
    DataFrame
        Indexed by attribute: ``values`` (distinct), ``largest_share`` (of the most frequent
        value), ``groups`` (``g_j``) and ``records`` (``l·g_j``).

    Raises
    ------
    InputError
        A column not in ``data`` or a bad ``l``.
    """
    absent = [s for s in sensitive if s not in data.columns]
    if absent:
        raise InputError(f"sensitive: column(s) {', '.join(map(repr, absent))} not in data")
    ell = check_l(l)
    rows = []
    for s in sensitive:
        counts = data[s].value_counts(dropna=False).to_numpy()
        g = max_groups(counts, ell)
        rows.append(
            {
                "attribute": s,
                "values": len(counts),
                "largest_share": float(counts.max() / counts.sum()) if len(counts) else 0.0,
                "groups": g,
                "records": ell * g,
            }
        )
    return pd.DataFrame(rows).set_index("attribute")


def explain_deletions(release: Release, original: pd.DataFrame) -> dict[str, Any]:
    """SAC size, deletions by cause and the deletions the attributes' capacity forces.

    Parameters
    ----------
    release : Release
        Of the mixed model (kind ``multi-sa``, ``metadata["multisa"]["deleted_by"]``).
    original : DataFrame
        The table it was made from.

    Returns
    -------
    dict
        ``l``, ``sac`` (SAC records: published in SAC~ less borrowed IR records, plus deleted),
        ``deleted``, ``deleted_by`` (cause -> records), ``capacity`` (attribute -> ``l·g_j``),
        ``limiting`` (the attribute of smallest capacity), ``forced`` (``max(0, sac −
        min capacity)``, deletions no grouping avoids) and ``forced_share`` (of ``deleted``;
        0 when nothing is deleted).

    Raises
    ------
    InputError
        Not a mixed-model release.
    """
    if not isinstance(release, Release) or "deleted_by" not in release.metadata.get("multisa", {}):
        raise InputError("release: needs a release of mixed_model (metadata 'multisa.deleted_by')")
    info = release.metadata["multisa"]
    sensitive = list(release.metadata["sensitive"])
    ell = int(info["l"])
    cap = group_capacity(original, sensitive, ell)
    deleted = int(info["deleted"])
    sac = len(release.tables["sac"]) - int(info["borrowed"]) + deleted
    limiting = str(cap["records"].idxmin())
    forced = max(0, sac - int(cap["records"].min()))
    return {
        "l": ell,
        "sac": sac,
        "deleted": deleted,
        "deleted_by": dict(info["deleted_by"]),
        "capacity": {s: int(v) for s, v in cap["records"].items()},
        "limiting": limiting,
        "forced": forced,
        "forced_share": forced / deleted if deleted else 0.0,
    }
