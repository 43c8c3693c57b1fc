"""P-privacy of distribution releases, in exact arithmetic.

Definitions 3.1 and 3.2 of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1):958–969, 2009.

A group of a distribution release publishes a multiset of ``n`` entries (subdomains of the
sensitive domain, real and fake alike) and a target distribution ``P`` (integer weights ``w``
over the domain values). It is *P-private* (Def. 3.2) when a uniformly random entry, with a value
drawn from it by ``P`` restricted to it, is distributed exactly as ``P``:

    (1/n) Σ_e count_e · P(v | e) = P(v)    for every domain value v,

with ``P(v | e) = w_v / W_e`` for ``v ∈ e`` (``W_e``: the weight of the entry's values) and
``P(v) = w_v / W``. For ``w_v = 0`` both sides are 0; for ``w_v > 0`` the condition reads
``f(v) = Σ_{e ∋ v} count_e / W_e = n / W``. ``f`` is constant between entry ends, so each group is
checked on the segments its entries cut the domain into: a handful of rational comparisons per
distinct entry, in :class:`fractions.Fraction` arithmetic (no floats decide anything).

A categorical sensitive attribute (a hierarchy with ``categorical: true``) has no order: its
``values`` are the categories in the hierarchy's leaf order, an entry is every category from its
``low`` to its ``high`` in that order, and the check runs on the leaf positions.

A group also fails when an entry's ends are not domain values, when an entry holds only values
of weight 0 (``P(· | e)`` is undefined), or when it has fewer entries than records.

:func:`covers` checks Def. 3.1 (the entries generalize given original values), which needs the
original values and so is not part of the release check.

On a distribution release, :func:`distribution_verdicts` (used by ``check_release``) always checks
P-privacy and checks the other claimed models on the groups: k-anonymity on the records per group
(an attacker who knows a person's exact quasi-identifiers knows the group); ℓ-diversity and
t-closeness on each group's target distribution ``P_g`` — what a P-private group lets an attacker
believe about a member's sensitive value — with t-closeness comparing ``P_g`` with the
record-weighted mixture of all targets. These verdicts mean that only where P-privacy holds.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.keys import written_positions
from microanon.core.release import Release

from .base import PrivacyModel
from .groups import Columns, Groups
from .verdict import Verdict

__all__ = ["p_privacy", "covers", "PPrivacy", "PPrivacyVerdict", "distribution_verdicts"]

GROUP = "group"
_NAME = "P-privacy"


class PPrivacyVerdict(Verdict):
    """A :class:`Verdict` of P-privacy (no threshold parameter; ``value`` is a deviation).

    ``value`` is the largest relative deviation ``|M(v) / P(v) - 1|`` of a group's published
    mixture ``M`` from its target ``P`` over the values with ``P(v) > 0`` (0 when P-privacy
    holds; NaN for a group whose mixture is undefined). ``offending`` lists the failing groups,
    worst first: ``group``, ``size`` (records), ``entries``, ``value``, ``first_value`` (the
    smallest domain value where the condition fails, if any) and ``reason``.
    """

    def __str__(self) -> str:
        if self.holds:
            return f"{self.model}: holds over {self.groups:,} groups"
        first = self.offending.iloc[0]
        return (
            f"{self.model}: fails; {len(self.offending):,} of {self.groups:,} groups offend "
            f"(group {first[GROUP]}: {first['reason']})"
        )


# ---------------------------------------------------------------------------- Def. 3.1
def covers(
    values: Sequence[float] | np.ndarray,
    low: Sequence[float] | np.ndarray,
    high: Sequence[float] | np.ndarray,
    count: Sequence[int] | np.ndarray | None = None,
) -> bool:
    """Whether entries ``[low, high]`` (with multiplicities) generalize ``values`` (Def. 3.1).

    True when every value can be matched to a distinct entry that contains it (entries left
    over are fakes). Entries may be arbitrary intervals.

    Greedy sweep: take the values in increasing order and give each the unused entry with the
    smallest high end among those containing it. Why this finds a matching whenever one exists
    (exchange argument): let M be a matching that agrees with the greedy choices for the values
    before ``x``, and let greedy give ``x`` the entry ``e`` while M gives it ``e'``
    (``low_e, low_e' <= x <= high_e <= high_e'``). If no value uses ``e`` in M, move ``x`` to
    ``e``. Otherwise a later value ``y >= x`` uses ``e``; then ``low_e' <= x <= y <= high_e <=
    high_e'``, so ``y`` fits in ``e'``: swap ``x`` and ``y``. Either way M still matches every
    value and now agrees with greedy on ``x``; by induction greedy completes a matching. Entries
    whose high end falls below the current value can never be used again and are dropped.

    Parameters
    ----------
    values : array-like
        The original values of the group.
    low, high : array-like
        Entry ends (inclusive).
    count : array-like of int, optional
        Multiplicity of each entry (default 1).

    Returns
    -------
    bool
    """
    vals = np.sort(np.asarray(values, dtype=float))
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    cnt = np.ones(len(lo), dtype=np.int64) if count is None else np.asarray(count, np.int64)
    if not (len(lo) == len(hi) == len(cnt)):
        raise InputError("covers: low, high and count must have one value per entry")
    if len(vals) > int(cnt[cnt > 0].sum()):
        return False
    order = np.argsort(lo, kind="stable")
    heap: list[list[float]] = []  # [high, remaining count]
    j = 0
    for x in vals:
        while j < len(order) and lo[order[j]] <= x:
            e = order[j]
            if cnt[e] > 0 and hi[e] >= lo[e]:
                heapq.heappush(heap, [hi[e], int(cnt[e])])
            j += 1
        while heap and heap[0][0] < x:
            heapq.heappop(heap)
        if not heap:
            return False
        heap[0][1] -= 1
        if heap[0][1] == 0:
            heapq.heappop(heap)
    return True


# ---------------------------------------------------------------------------- Def. 3.2
@dataclass(frozen=True)
class _Domains:
    """The release's hierarchies, flattened: values and weights of hierarchy h at offset[h]."""

    values: list[np.ndarray]
    weights: list[np.ndarray]
    group_hierarchy: np.ndarray  # per group position (groups 1..G), hierarchy index
    categories: list[dict[Any, int] | None]  # categorical: label -> leaf position

    def positions(self, ends: np.ndarray, ent_g: np.ndarray) -> np.ndarray:
        """Entry ends as numbers: categories as leaf positions, found by value or by the text a
        table writes for it (``'1.0'`` for 1.0; unknown ones NaN).

        The hierarchies are all numeric or all categorical (:meth:`from_metadata`).
        """
        if all(c is None for c in self.categories):
            return ends
        out = np.full(len(ends), np.nan)
        hier = self.group_hierarchy[ent_g]
        order = np.argsort(hier, kind="stable")  # entries of each hierarchy, in entry order
        bounds = np.searchsorted(hier[order], np.arange(len(self.categories) + 1))
        for i, cats in enumerate(self.categories):
            sel = order[bounds[i] : bounds[i + 1]]
            if len(sel):
                at = pd.Index(list(cats), dtype=object).get_indexer(ends[sel])
                out[sel] = np.where(at >= 0, at, np.nan)
                if (at < 0).any():  # as a table writes them: '1.0' for 1.0
                    written = written_positions(cats)  # (cats: each label's position, in order)
                    for j in np.flatnonzero(at < 0):
                        out[sel[j]] = written.get(str(ends[sel[j]]), np.nan)
        return out

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> _Domains:
        dist = meta.get("distribution")
        if not isinstance(dist, dict) or "hierarchies" not in dist or "group_hierarchy" not in dist:
            raise InputError(
                "the release metadata lacks distribution.hierarchies / group_hierarchy; "
                "P-privacy needs each group's target distribution"
            )
        values, weights, categories = [], [], []
        for i, h in enumerate(dist["hierarchies"]):
            try:
                cats = None
                if h.get("categorical"):
                    cats = {c: j for j, c in enumerate(h["values"])}
                    if len(cats) != len(h["values"]):
                        raise ValueError
                v = np.arange(len(cats), dtype=float) if cats else np.asarray(h["values"], float)
                w = np.asarray(h["weights"])
            except (KeyError, TypeError, ValueError):
                raise InputError(
                    f"distribution.hierarchies[{i}]: needs values and weights"
                ) from None
            if (
                v.ndim != 1
                or w.shape != v.shape
                or not len(v)
                or not np.issubdtype(w.dtype, np.integer)
                or (w < 0).any()
                or w.sum() <= 0
                or (np.diff(v) <= 0).any()
            ):
                raise InputError(
                    f"distribution.hierarchies[{i}]: values must be sorted and distinct, weights "
                    "non-negative integers (one per value) with a positive sum"
                )
            if int(w.astype(object).sum()) >= 2**62:
                raise InputError(f"distribution.hierarchies[{i}]: weights too large")
            values.append(v)
            weights.append(w.astype(np.int64))
            categories.append(cats)
        if any(c is None for c in categories) and any(c is not None for c in categories):
            raise InputError(
                "distribution.hierarchies: either every hierarchy is categorical or none is; "
                "got a mix"
            )
        gh = np.asarray(dist["group_hierarchy"])
        if (
            gh.ndim != 1
            or not np.issubdtype(gh.dtype, np.integer)
            or (gh < 0).any()
            or (gh >= len(values)).any()
        ):
            raise InputError(
                "distribution.group_hierarchy: expected one hierarchy index per group, each "
                f"below {len(values)}"
            )
        return cls(values, weights, gh.astype(np.int64), categories)


def _group_positions(ids: np.ndarray, n_groups: int, table: str) -> np.ndarray:
    """Group ids 1..G as positions 0..G-1; other ids are an error."""
    ids = np.asarray(ids)
    if len(ids) and (
        not np.issubdtype(ids.dtype, np.integer) or ids.min() < 1 or ids.max() > n_groups
    ):
        raise InputError(
            f"the {table} table has group ids outside 1..{n_groups} "
            "(the groups distribution.group_hierarchy describes)"
        )
    return ids.astype(np.int64) - 1


def p_privacy(release: Release) -> PPrivacyVerdict:
    """Check that every group of a distribution release is P-private (Def. 3.2), exactly.

    Parameters
    ----------
    release : Release
        A ``distribution`` release: ``qit`` (records with their ``group``), ``st`` (``group``,
        ``low``, ``high``, ``count``) and ``metadata["distribution"]`` (``hierarchies`` with
        ``values`` and integer ``weights``, ``categorical: true`` for categories in leaf order;
        ``group_hierarchy``).

    Returns
    -------
    PPrivacyVerdict
        ``holds`` is decided in exact rational arithmetic. ``value``: the largest relative
        deviation of a group's mixture from its target (see :class:`PPrivacyVerdict`).

    Raises
    ------
    InputError
        A release of another kind, or tables and metadata that do not follow the format.
    """
    if not isinstance(release, Release) or release.kind != "distribution":
        what = release.kind if isinstance(release, Release) else type(release).__name__
        raise InputError(f"P-privacy is checked on 'distribution' releases, not {what!r}")
    qit, st = release.tables.get("qit"), release.tables.get("st")
    if qit is None or st is None or GROUP not in qit.columns:
        raise InputError("a distribution release needs qit (with 'group') and st tables")
    missing = [c for c in (GROUP, "low", "high", "count") if c not in st.columns]
    if missing:
        raise InputError(f"the st table lacks column(s) {', '.join(missing)}")
    dom = _Domains.from_metadata(release.metadata)
    n_groups = len(dom.group_hierarchy)
    row_g = _group_positions(qit[GROUP].to_numpy(), n_groups, "qit")
    ent_g = _group_positions(st[GROUP].to_numpy(), n_groups, "st")
    try:
        low = dom.positions(st["low"].to_numpy(), ent_g).astype(float)
        high = dom.positions(st["high"].to_numpy(), ent_g).astype(float)
        count = st["count"].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError("st: low, high and count must be numbers") from None
    if not (np.isfinite(count).all() and (count == np.round(count)).all()):
        raise InputError("st: count must hold whole numbers")
    count = count.astype(np.int64)
    return _check(dom, row_g, ent_g, low, high, count)


def _check(
    dom: _Domains,
    row_g: np.ndarray,
    ent_g: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    count: np.ndarray,
) -> PPrivacyVerdict:
    n_groups = len(dom.group_hierarchy)
    sizes = np.bincount(row_g, minlength=n_groups)
    entries = np.bincount(ent_g, weights=np.maximum(count, 0), minlength=n_groups).astype(np.int64)
    reason = np.full(n_groups, "", dtype=object)
    first = np.full(n_groups, np.nan)
    value = np.zeros(n_groups)

    # Entry ends as positions in their group's domain; weights of the entries.
    h = dom.group_hierarchy[ent_g]
    a = np.zeros(len(low), dtype=np.int64)
    b = np.zeros(len(low), dtype=np.int64)
    ok = np.ones(len(low), dtype=bool)
    weight = np.zeros(len(low), dtype=np.int64)
    for i, (vals, w) in enumerate(zip(dom.values, dom.weights, strict=True)):  # per hierarchy
        sel = np.flatnonzero(h == i)
        lo_i, hi_i = low[sel], high[sel]
        ia = np.minimum(np.searchsorted(vals, lo_i), len(vals) - 1)
        ib = np.minimum(np.searchsorted(vals, hi_i), len(vals) - 1)
        found = (vals[ia] == lo_i) & (vals[ib] == hi_i)
        cw = np.concatenate([[0], np.cumsum(w)])
        a[sel], b[sel], ok[sel] = ia, ib + 1, found
        weight[sel] = np.where(found & (ia <= ib), cw[ib + 1] - cw[ia], 0)
    _flag(reason, ent_g, ~ok, "an entry's low or high is not a domain value")
    _flag(reason, ent_g, ok & (a >= b), "an entry has low above high")
    _flag(reason, ent_g, count < 1, "an entry has a count below 1")
    _flag(reason, ent_g, ok & (a < b) & (weight == 0), "an entry holds only values of weight 0")
    structural = reason != ""
    value[structural] = np.nan

    # Exact sweep over the segments the entries cut each (structurally sound) group into.
    good = ~structural[ent_g]
    dev, first_bad = _sweep(dom, ent_g[good], a[good], b[good], count[good], weight[good], entries)
    checked = ~structural
    value[checked] = dev[checked]
    failing = checked & (dev > 0)
    reason[failing] = "the mixture of its entries differs from the target"
    first[failing] = first_bad[failing]
    short = entries < sizes
    reason[short & (reason == "")] = "fewer entries than records"

    offending = np.flatnonzero(reason != "")
    order = np.lexsort((offending, -np.nan_to_num(value[offending], nan=np.inf)))
    idx = offending[order]
    frame = pd.DataFrame(
        {
            GROUP: idx + 1,
            "size": sizes[idx],
            "entries": entries[idx],
            "value": value[idx],
            "first_value": first[idx],
            "reason": reason[idx].astype(str),
        }
    )
    overall = float(np.max(value)) if n_groups else 0.0  # NaN if some mixture is undefined
    return PPrivacyVerdict(_NAME, {}, len(idx) == 0, overall, frame, n_groups)


def _flag(reason: np.ndarray, ent_g: np.ndarray, bad: np.ndarray, text: str) -> None:
    groups = np.unique(ent_g[bad])
    fresh = groups[reason[groups] == ""]
    reason[fresh] = text


def _sweep(
    dom: _Domains,
    g: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    count: np.ndarray,
    weight: np.ndarray,
    entries: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the largest relative deviation (exact, then as float) and the first bad value.

    Distinct entries ``(g, a, b)`` add ``count / W_e`` to ``f`` on positions ``a..b-1``. Events
    (+ at ``a``, - at ``b``) sorted by position give ``f`` on each segment between consecutive
    event positions; sentinels at 0 and at the domain end make the segments cover the domain.
    """
    n_groups = len(dom.group_hierarchy)
    # Distinct (group, a, b) with summed counts (vectorized).
    key = np.stack([g, a, b], axis=1)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    cnt = np.bincount(inv.reshape(-1), weights=count, minlength=len(uniq)).astype(np.int64)
    wts = np.zeros(len(uniq), dtype=np.int64)
    wts[inv.reshape(-1)] = weight
    size = np.array([len(dom.values[i]) for i in dom.group_hierarchy], dtype=np.int64)
    ug, ua, ub = uniq[:, 0], uniq[:, 1], uniq[:, 2]
    ev_g = np.concatenate([ug, ug, np.arange(n_groups), np.arange(n_groups)])
    ev_pos = np.concatenate([ua, ub, np.zeros(n_groups, np.int64), size])
    delta = [Fraction(int(c), int(w)) for c, w in zip(cnt, wts, strict=True)]
    ev_delta = np.array(delta + [-d for d in delta] + [Fraction(0)] * (2 * n_groups), dtype=object)
    order = np.lexsort((ev_pos, ev_g))
    ev_g, ev_pos, ev_delta = ev_g[order], ev_pos[order], ev_delta[order]
    running = np.cumsum(ev_delta) if len(ev_delta) else ev_delta
    # The last event at a position carries f on [pos, next position of the group).
    last = np.ones(len(ev_g), dtype=bool)
    last[:-1] = (ev_g[1:] != ev_g[:-1]) | (ev_pos[1:] != ev_pos[:-1])
    seg_g, seg_start, f = ev_g[last], ev_pos[last], running[last]
    nxt = np.empty_like(seg_start)
    nxt[:-1] = seg_start[1:]
    end_of_group = np.ones(len(seg_g), dtype=bool)
    end_of_group[:-1] = seg_g[1:] != seg_g[:-1]
    keep = ~end_of_group  # the final event of a group (at its domain end) opens no segment
    seg_g, seg_start, seg_end, f = seg_g[keep], seg_start[keep], nxt[keep], f[keep]

    dev = np.zeros(n_groups)
    first = np.full(n_groups, np.nan)
    if not len(seg_g):
        return dev, first
    # Segments holding a value of positive weight, and the first such value.
    hier = dom.group_hierarchy[seg_g]
    positive = np.zeros(len(seg_g), dtype=bool)
    first_pos = np.zeros(len(seg_g), dtype=np.int64)
    for i, w in enumerate(dom.weights):  # per hierarchy
        sel = hier == i
        cw = np.concatenate([[0], np.cumsum(w > 0)])
        positive[sel] = cw[seg_end[sel]] > cw[seg_start[sel]]
        nonzero = np.flatnonzero(w > 0)
        at = np.minimum(np.searchsorted(nonzero, seg_start[sel]), len(nonzero) - 1)
        first_pos[sel] = nonzero[at]
    seg_g, f, hier, first_pos = seg_g[positive], f[positive], hier[positive], first_pos[positive]
    total = np.array([int(dom.weights[i].sum()) for i in hier], dtype=object)
    n = entries[seg_g].astype(object)
    # Relative deviation |f W / n - 1| (f should equal n / W); n = 0 with f = 0 is no deviation.
    rel = [
        abs(fi * t / ni - 1) if ni else Fraction(int(fi != 0))
        for fi, t, ni in zip(f, total, n, strict=True)
    ]
    bad = np.array([r != 0 for r in rel], dtype=bool)
    as_float = np.array([float(r) for r in rel], dtype=float)
    np.maximum.at(dev, seg_g, as_float)
    bad_idx = np.flatnonzero(bad)
    if len(bad_idx):
        firsts = np.unique(seg_g[bad_idx], return_index=True)  # segments are sorted by position
        grp, at = firsts
        seg = bad_idx[at]
        first[grp] = [dom.values[hh][p] for hh, p in zip(hier[seg], first_pos[seg], strict=True)]
        # A deviation too small for a float still fails exactly.
        dev[grp] = np.maximum(dev[grp], np.finfo(float).tiny)
    return dev, first


# ---------------------------------------------------------------------------- model
@dataclass(frozen=True)
class PPrivacy(PrivacyModel):
    """P-privacy (Def. 3.2) as a configurable model: ``{"p_privacy": {}}``.

    It has no parameter: each group's target distribution is part of the release. It is checked
    on a whole distribution release (:func:`p_privacy`), not on a table's groups.
    """

    PROMISE: ClassVar[str] = (
        "Each published group's sensitive values follow the group's target distribution (the "
        "distribution method's model; no parameter)."
    )

    @property
    def name(self) -> str:
        """``"P-privacy"``."""
        return _NAME

    def check(
        self,
        data: Release | pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check a distribution release (``quasi`` and ``sensitive`` are not used)."""
        if not isinstance(data, Release):
            raise InputError(
                "P-privacy is checked on a whole 'distribution' release (its entries and target "
                "distributions), not on a table: pass the Release"
            )
        return p_privacy(data)

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Not available: P-privacy is a property of published entries, not of table groups."""
        raise InputError(
            "P-privacy cannot be enforced by a generalization method; it is what the "
            "distribution method guarantees (check its release with p_privacy)"
        )

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"p_privacy": {}}``."""
        return {"p_privacy": {}}


def distribution_verdicts(release: Release, models: Sequence[PrivacyModel]) -> list[Verdict]:
    """Check a distribution release: P-privacy always, then the other claimed models.

    Parameters
    ----------
    release : Release
        A ``distribution`` release.
    models : sequence of PrivacyModel
        The claimed models. P-privacy is checked once, in its place if listed, else first.
        k-anonymity is checked on the records per group (the group is the only quasi-identifier:
        the exact quasi-identifiers reveal a record's group); ℓ-diversity and t-closeness on the
        groups' target distributions (t-closeness against their record-weighted mixture).

    Returns
    -------
    list of Verdict
    """
    verdict = p_privacy(release)
    out: list[Verdict] = [] if any(isinstance(m, PPrivacy) for m in models) else [verdict]
    target_groups: Groups | None = None
    for m in models:
        if isinstance(m, PPrivacy):
            out.append(verdict)
        elif not m.needs_sensitive:
            out.append(m.check(release.tables["qit"][[GROUP]], [GROUP]))
        else:
            if target_groups is None:
                target_groups = _target_groups(release)
            out.append(m.check(target_groups))
    return out


def _target_groups(release: Release) -> Groups:
    """Groups whose sensitive-value counts are the groups' target weights (records' groups)."""
    dom = _Domains.from_metadata(release.metadata)
    n_groups = len(dom.group_hierarchy)
    sizes = np.bincount(
        _group_positions(release.tables["qit"][GROUP].to_numpy(), n_groups, "qit"),
        minlength=n_groups,
    )
    used = np.flatnonzero(sizes > 0)
    categorical = any(c is not None for c in dom.categories)
    if categorical:  # labels, in first-seen leaf order across the hierarchies
        labels = [list(c) for c in dom.categories if c is not None]
        domain = list(dict.fromkeys(x for cats in labels for x in cats))
        index = {x: j for j, x in enumerate(domain)}
        leaf_codes = [np.array([index[x] for x in cats], np.int64) for cats in labels]
    else:
        domain = list(np.unique(np.concatenate(dom.values)))
        leaf_codes = [np.searchsorted(domain, v) for v in dom.values]
    hier = dom.group_hierarchy[used]
    lengths = np.array([len(dom.values[i]) for i in hier], dtype=np.int64)
    row_group = np.repeat(np.arange(len(used)), lengths)
    codes = np.concatenate([leaf_codes[i] for i in hier])
    weights = np.concatenate([dom.weights[i] for i in hier])
    keep = weights > 0
    # Reference: sum over groups of size_g * w_g / W_g, scaled by lcm(W_g) to stay integral.
    totals = [int(dom.weights[i].sum()) for i in hier]
    lcm = math.lcm(*totals)
    factor = [int(sizes[g]) * (lcm // t) for g, t in zip(used, totals, strict=True)]
    scaled = weights.astype(object) * np.repeat(np.array(factor, dtype=object), lengths)
    mixture = np.zeros(len(domain), dtype=object)
    np.add.at(mixture, codes, scaled)
    peak = max(int(x) for x in mixture)
    if peak >= 2**62:  # rescale to int64; t-closeness is computed in floats anyway
        reference = np.array([int(x) * 2**52 // peak for x in mixture], dtype=np.int64)
    else:
        reference = mixture.astype(np.int64)
    sa = (release.metadata.get("sensitive") or ["sensitive"])[0]
    return Groups.from_codes(
        [GROUP],
        [row_group[keep]],
        [len(used)],
        sensitive=sa,
        sa_codes=codes[keep],
        values=domain,
        numeric=not categorical,
        weights=weights[keep],
        reference=reference,
        dictionaries=[list(used + 1)],
    )
