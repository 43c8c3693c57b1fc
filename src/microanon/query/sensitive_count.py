"""COUNT of the records whose sensitive value satisfies a predicate, with guaranteed bounds.

``SELECT COUNT(*) FROM release WHERE <condition on the published columns> AND sensitive IN S`` on
a distribution release (Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1):958–969, 2009), for a categorical sensitive attribute (``S`` a set of
categories) or a numeric one (``S`` a set of values or a closed range).

The bound is the paper's SUM bound applied to the indicator of ``S``: an entry holds a value of
``S`` surely when it lies inside ``S`` (indicator 1 at its lowest) and possibly when it meets ``S``
(indicator 1 at its highest). A query selecting ``k`` records of a group with ``E`` entries, ``I``
inside ``S`` and ``T`` meeting it, takes ``k`` distinct entries whatever the hidden pairing, so
the group contributes between ``max(0, k − (E − I))`` and ``min(k, T)`` records; groups add up.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.release import Release

from .aggregate import AggregateBound, selection_mask

__all__ = ["sensitive_count"]

GROUP = "group"


def sensitive_count(
    release: Release,
    values: Collection[Any] | None = None,
    *,
    low: float | None = None,
    high: float | None = None,
    where: np.ndarray | pd.Series | Callable[[pd.DataFrame], Any] | str | None = None,
) -> AggregateBound:
    """Guaranteed bounds of the number of selected records whose sensitive value is in ``S``.

    Parameters
    ----------
    release : Release
        A ``distribution`` release (numeric or categorical sensitive attribute).
    values : collection, optional
        ``S`` as a set of sensitive values (categories, or numbers of a numeric attribute).
    low, high : float, optional
        ``S`` as the closed range ``[low, high]`` of a numeric attribute (either end may be
        left open); exclusive with ``values``.
    where : bool array or Series, callable, str or None
        The records selected by their published columns: a mask over ``qit`` rows, a function
        of ``qit`` returning one, or an SQL condition (``"age BETWEEN 30 AND 40"``). ``None``
        selects every record.

    Returns
    -------
    AggregateBound
        ``aggregate`` ``"count"``; ``lower``/``upper`` (and ``exact``) bound the number of
        selected records with a sensitive value in ``S``; ``count`` is the number selected.

    Raises
    ------
    InputError
        Not a distribution release, no predicate or both kinds, a range on a categorical
        attribute, or a selection of the wrong length.

    Examples
    --------
    >>> b = sensitive_count(release, {"divorced", "widowed"}, where="age < 30")  # doctest: +SKIP
    >>> b.lower, b.upper
    (3.0, 11.0)
    """
    qit, st, hierarchies, group_h = _release_parts(release)
    ranged = low is not None or high is not None
    if (values is None) == (not ranged):
        raise InputError("sensitive_count: give either values or low/high (a range), not both")
    n_groups = len(group_h)
    sa = (release.metadata.get("sensitive") or [None])[0]
    mask = selection_mask(where, len(qit), qit, qit, None if sa is None else str(sa))
    rows = qit[GROUP].to_numpy()
    selected = np.bincount(rows[mask] - 1, minlength=n_groups)

    entry_g = st[GROUP].to_numpy().astype(np.int64) - 1
    count = st["count"].to_numpy().astype(np.int64)
    inside = np.zeros(len(st), dtype=bool)
    meets = np.zeros(len(st), dtype=bool)
    for i, h in enumerate(hierarchies):
        sel = np.flatnonzero(group_h[entry_g] == i)
        if not len(sel):
            continue
        member = _membership(h, values, low, high)
        cum = np.concatenate([[0], np.cumsum(member)])
        a = _positions(h, st["low"].to_numpy()[sel])
        b = _positions(h, st["high"].to_numpy()[sel]) + 1
        hits = cum[b] - cum[a]
        inside[sel], meets[sel] = hits == b - a, hits > 0
    entries = np.bincount(entry_g, weights=count, minlength=n_groups).astype(np.int64)
    n_inside = np.bincount(entry_g, weights=count * inside, minlength=n_groups).astype(np.int64)
    n_meets = np.bincount(entry_g, weights=count * meets, minlength=n_groups).astype(np.int64)
    lower = int(np.maximum(0, selected - (entries - n_inside)).sum())
    upper = int(np.minimum(selected, n_meets).sum())
    return AggregateBound(
        "count",
        None if sa is None else str(sa),
        float(lower),
        float(upper),
        int(selected.sum()),
        int((selected > 0).sum()),
        (Fraction(lower), Fraction(upper)),
    )


def _release_parts(
    release: Release,
) -> tuple[pd.DataFrame, pd.DataFrame, list[Mapping[str, Any]], np.ndarray]:
    if not isinstance(release, Release) or release.kind != "distribution":
        what = release.kind if isinstance(release, Release) else type(release).__name__
        raise InputError(f"sensitive_count needs a 'distribution' release, not {what!r}")
    qit, st = release.tables.get("qit"), release.tables.get("st")
    dist = release.metadata.get("distribution") or {}
    if qit is None or st is None or "hierarchies" not in dist or "group_hierarchy" not in dist:
        raise InputError("a distribution release needs qit, st and its hierarchies in metadata")
    group_h = np.asarray(dist["group_hierarchy"], dtype=np.int64)
    for table, name in ((qit, "qit"), (st, "st")):
        ids = table[GROUP].to_numpy()
        if len(ids) and (ids.min() < 1 or ids.max() > len(group_h)):
            raise InputError(f"the {name} table has group ids outside 1..{len(group_h)}")
    return qit, st, list(dist["hierarchies"]), group_h


def _membership(
    h: Mapping[str, Any], values: Collection[Any] | None, low: float | None, high: float | None
) -> np.ndarray:
    """Whether each domain value (leaf order) of hierarchy ``h`` is in ``S``."""
    domain = list(h["values"])
    if values is not None:
        wanted = set(values)
        return np.array([v in wanted for v in domain], dtype=np.int64)
    if h.get("categorical"):
        raise InputError("sensitive_count: a range needs a numeric sensitive attribute")
    v = np.asarray(domain, dtype=float)
    lo = -np.inf if low is None else float(low)
    hi = np.inf if high is None else float(high)
    return ((v >= lo) & (v <= hi)).astype(np.int64)


def _positions(h: Mapping[str, Any], ends: np.ndarray) -> np.ndarray:
    """Leaf positions of entry ends in hierarchy ``h``."""
    domain = list(h["values"])
    if h.get("categorical"):
        index = {v: i for i, v in enumerate(domain)}
        bad = [e for e in ends.tolist() if e not in index]
        if bad:
            raise InputError(f"st: entry end {bad[0]!r} is not a category of its hierarchy")
        return np.array([index[e] for e in ends.tolist()], dtype=np.int64)
    dom = np.asarray(domain, dtype=float)
    pos = np.searchsorted(dom, ends.astype(float))
    ok = (pos < len(dom)) & (dom[np.minimum(pos, len(dom) - 1)] == ends.astype(float))
    if not ok.all():
        raise InputError(f"st: entry end {ends[~ok][0]!r} is not a value of its hierarchy")
    return pos.astype(np.int64)
