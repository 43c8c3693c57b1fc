"""Measures and the strong-rule attack for releases with several sensitive attributes.

A ``multi-sa`` release (the mixed model of Yi & Shi, *Privacy Protection Method for Multiple
Sensitive Attributes Based on Strong Rule*, Mathematical Problems in Engineering 2015, Art.
464731, or Rating of Liu, Luo & Huang, ICDMW 2011) publishes three tables:

* ``sac`` (SAC~): quasi-identifiers exactly, a ``group`` number and every sensitive attribute with
  its original values, permuted within the group independently per *cluster* of attributes;
* ``at`` (AT): quasi-identifiers exactly and, per sensitive attribute, the name of the SID that
  absorbed the record's value (``"*"``: suppressed);
* ``idt`` (IDT): the member values of every SID (``attribute``, ``sid``, ``value``).

Measures (those of Yi & Shi's analysis and experiments; the paper gives them in words and
examples, so the formulas below are our reconstruction, and our own choices are marked per
function):

:func:`ail`, :func:`ail_components`
    Additional information loss: ``(|SID| − l)/|SID|`` per generalized value, 0 for SAC~ values,
    1 for a suppressed value and for every value of a deleted record, averaged over ``n·d``.
:func:`rce`
    Reconstruction error ``Σ_r Σ_x (G̃_r(x) − G_r(x))²`` of the per-record pdfs the release lets
    one reconstruct.
:func:`recovered_confidences`
    The confidence of every strong rule as an analyst recovers it from the release (Lemma 22's
    procedure for the mixed model, expected co-occurrence under independence for Rating).
:func:`strong_rule_attack`
    The adversary who knows the strong rules: candidate records and certainty per candidate.
:func:`disclosure_probabilities`
    The attack's certainty for every record that truly contains a strong rule.

Values of sensitive attributes are compared as text (``str(value)``), the form in which the IDT
publishes them, so an integer column such as ``age`` matches its IDT entries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.factorize import (
    factorize,
    factorize_keys,
    first_rows,
    object_positions,
    packed_key,
    shared_result,
)
from ..core.frames import pandas_if_arrow
from ..core.release import Release

__all__ = [
    "PublishedDiversity",
    "ail",
    "ail_components",
    "disclosure_probabilities",
    "published_diversity",
    "rce",
    "recovered_confidences",
    "strong_rule_attack",
]

#: Marker of a suppressed value in the AT.
SUPPRESSED = "*"
#: Confidences this close below a threshold reach it (floating-point tolerance).
_TOL = 1e-12
_RULE_KEYS = ("antecedent_attribute", "antecedent", "consequent_attribute", "consequent")
#: Most cells (AT rows × values) of :meth:`_Parts.at_holds` kept at once (bytes: one each).
_AT_HOLDS_CELLS = 1 << 26


# ------------------------------------------------------------------------------ the release
def _text(values: Any, what: str) -> np.ndarray:
    """Values as an object array of ``str``; missing values are an error.

    A column of text is taken from its codes (the run's, when it was coded before): its
    distinct values, each already its text, indexed by the codes; other values one by one.
    """
    if isinstance(values, pd.Series):
        codes, uniques = factorize(values)
        if (codes < 0).any():
            raise InputError(f"{what}: {int(np.count_nonzero(codes < 0))} missing value(s)")
        if pd.api.types.infer_dtype(uniques, skipna=False) in ("string", "empty"):
            return np.asarray(uniques, dtype=object)[codes]
    s = pd.Series(values, dtype=object)
    if s.isna().any():
        raise InputError(f"{what}: {int(s.isna().sum())} missing value(s)")
    return np.asarray([str(v) for v in s.tolist()], dtype=object)


def _coded_text(values: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``_text(values, what)`` as codes into its distinct texts (an object array, in order of
    first appearance): each distinct value is read as text once, and two values of one text
    (``1`` and ``"1"``) get one code."""
    codes, uniques = factorize(values if isinstance(values, pd.Series) else pd.Series(values))
    if (codes < 0).any():
        raise InputError(f"{what}: {int(np.count_nonzero(codes < 0))} missing value(s)")
    if set(map(type, uniques)) <= {str}:  # text already, each distinct: its codes are kept
        return codes, np.asarray(uniques, dtype=object)
    texts, distinct = pd.factorize(np.asarray([str(v) for v in uniques], dtype=object))
    return texts[codes], np.asarray(distinct, dtype=object)


def _position(words: np.ndarray, word: str) -> int:
    """Where ``word`` is in ``words`` (-1 when absent: no code is -1)."""
    found = np.flatnonzero(words == word)
    return int(found[0]) if len(found) else -1


def _key_text(values: Any) -> np.ndarray:
    """Values as an object array of ``str``, None where missing: a quasi-identifier's missing
    value is a value of its own (an attacker who knows it is missing knows a key)."""
    s = pd.Series(values, dtype=object)
    text = np.asarray([str(v) for v in s.tolist()], dtype=object)
    text[s.isna().to_numpy()] = None
    return text


@dataclass(frozen=True)
class _Parts:
    """A ``multi-sa`` release, encoded: value codes per sensitive attribute, SIDs and groups."""

    sensitive: list[str]
    quasi: list[str]
    l: dict[str, int]  # noqa: E741 - the paper's name
    cluster: np.ndarray  # cluster number of every sensitive attribute
    mixed: bool  # built by the mixed model (strong rules at ``min_confidence``)
    min_confidence: float | None
    deleted: int
    values: list[pd.Index]  # per attribute: its known values (text), position = code
    sac_codes: np.ndarray  # (n_sac, d) value codes
    group: np.ndarray  # (n_sac,) group number 0..g-1
    group_size: np.ndarray  # (g,)
    at_sid: np.ndarray  # (n_at, d) SID codes per attribute, -1 = suppressed
    sid_size: list[np.ndarray]  # per attribute: member values of every SID
    members: list[np.ndarray]  # per attribute: sorted keys sid * n_values + value
    idt_count: list[np.ndarray]  # per attribute: SIDs holding each value

    @property
    def d(self) -> int:
        return len(self.sensitive)

    @property
    def n_sac(self) -> int:
        return len(self.group)

    @property
    def n_at(self) -> int:
        return len(self.at_sid)

    @property
    def n_clusters(self) -> int:
        return len(np.unique(self.cluster))

    def holds(self, j: int, sids: np.ndarray, values: np.ndarray | int) -> np.ndarray:
        """Whether SID ``sids[k]`` of attribute ``j`` holds ``values[k]`` (``False`` for ``*``)."""
        values = np.broadcast_to(np.asarray(values, dtype=np.int64), sids.shape)
        members = self.members[j]
        if not len(members):
            return np.zeros(len(sids), dtype=bool)
        keys = np.maximum(sids, 0) * len(self.values[j]) + values
        pos = np.minimum(np.searchsorted(members, keys), len(members) - 1)
        return (sids >= 0) & (values >= 0) & (members[pos] == keys)

    def at_holds(self, j: int, value: int) -> np.ndarray:
        """:meth:`holds` of every AT row's SID of attribute ``j`` and one value code, kept for
        the next rule with the same value (rules share their values), within
        :data:`_AT_HOLDS_CELLS` cells."""
        known = self._at_holds.get((j, value))
        if known is None:
            known = self.holds(j, self.at_sid[:, j], value)
            if (len(self._at_holds) + 1) * self.n_at <= _AT_HOLDS_CELLS:
                known.flags.writeable = False
                self._at_holds[(j, value)] = known
        return known

    @cached_property
    def _at_holds(self) -> dict[tuple[int, int], np.ndarray]:
        return {}

    def code(self, j: int, value: Any) -> int:
        """Code of a value of attribute ``j`` (``-1`` when the release never shows it)."""
        return self._codes[j].get(str(value), -1)

    @cached_property
    def _codes(self) -> list[dict[str, int]]:
        """Every attribute's code of each value the release shows (built on first use)."""
        return [{str(v): i for i, v in enumerate(values)} for values in self.values]


def _metadata(release: Any) -> tuple[list[str], dict[str, Any]]:
    """The sensitive attributes and ``metadata["multisa"]`` of a ``multi-sa`` release."""
    if not isinstance(release, Release):
        raise InputError(f"release: expected a microanon Release, got {type(release).__name__}")
    if release.kind != "multi-sa":
        raise InputError(
            f"release: a '{release.kind}' release has no SIDs or SAC groups; these measures need "
            "a 'multi-sa' release (mixed_model or rating)"
        )
    meta = release.metadata
    info = meta.get("multisa")
    sensitive = meta.get("sensitive")
    if not isinstance(info, Mapping) or "l" not in info:
        raise InputError("release: metadata['multisa'] with 'l' is missing")
    if isinstance(sensitive, str):
        sensitive = [sensitive]
    if not isinstance(sensitive, list) or not sensitive:
        raise InputError("release: metadata['sensitive'] must list the sensitive attributes")
    return [str(s) for s in sensitive], dict(info)


def _l_of(info: Mapping[str, Any], sensitive: list[str]) -> dict[str, int]:
    raw = info["l"]
    if isinstance(raw, Mapping):
        missing = [s for s in sensitive if s not in raw]
        if missing:
            raise InputError(f"release: metadata l gives no value for {', '.join(missing)}")
        return {s: int(raw[s]) for s in sensitive}
    return {s: int(raw) for s in sensitive}


def _clusters(info: Mapping[str, Any], sensitive: list[str]) -> np.ndarray:
    """Cluster number per attribute; attributes in no listed cluster are clusters of their own."""
    cluster = np.full(len(sensitive), -1, dtype=np.int64)
    for c, members in enumerate(info.get("clusters") or []):
        for name in members:
            if name not in sensitive:
                raise InputError(f"release: cluster {members} names {name!r}, not sensitive")
            cluster[sensitive.index(name)] = c
    free = np.flatnonzero(cluster < 0)
    cluster[free] = cluster.max(initial=-1) + 1 + np.arange(len(free))
    return cluster


def _parse(release: Any, extra: Sequence[Sequence[Any]] | None = None) -> _Parts:
    """Validate and encode a ``multi-sa`` release; ``extra[j]``: more values of attribute j.

    Within :func:`~microanon.core.factorize.shared_codes` (one command's run), the release is
    encoded once for every measure that reads it without ``extra`` (the report's AIL and RCE).
    """
    sensitive, info = _metadata(release)
    if extra is not None or not all(t in release.tables for t in ("sac", "at", "idt")):
        return _encoded(release, sensitive, info, extra)
    columns = [t[c] for t in (release.tables[n] for n in ("sac", "at", "idt")) for c in t.columns]
    what = ("multi-sa release", repr((sensitive, info)))
    return shared_result(columns, what, lambda: _encoded(release, sensitive, info, None))


def _encoded(
    release: Any,
    sensitive: list[str],
    info: dict[str, Any],
    extra: Sequence[Sequence[Any]] | None,
) -> _Parts:
    """:func:`_parse`, encoded anew."""
    sac, at, idt = (release.tables[t] for t in ("sac", "at", "idt"))
    for name, table, need in (
        ("sac", sac, [*sensitive, "group"]),
        ("at", at, sensitive),
        ("idt", idt, ["attribute", "sid", "value"]),
    ):
        absent = [c for c in need if c not in table.columns]
        if absent:
            raise InputError(f"release table '{name}' lacks column(s) {', '.join(absent)}")
    quasi = [c for c in at.columns if c not in sensitive]
    d = len(sensitive)
    # Each column coded once by value, then only its distinct values read as text.
    attr_codes, attr_words = _coded_text(idt["attribute"], "idt.attribute")
    stray = sorted(set(attr_words) - set(sensitive))
    if stray:
        raise InputError(f"release table 'idt' names attribute(s) {stray} that are not sensitive")
    sid_codes, sid_words = _coded_text(idt["sid"], "idt.sid")
    value_codes, value_words = _coded_text(idt["value"], "idt.value")
    values, sac_codes, at_sid, sid_size, members, idt_count = [], [], [], [], [], []
    for j, s in enumerate(sensitive):
        in_idt = attr_codes == _position(attr_words, s)
        sac_code, sac_words = _coded_text(sac[s], f"sac.{s}")
        listed = value_codes[in_idt]
        more = [] if extra is None else [_coded_text(pd.Series(extra[j]), "extra")[1]]
        # (the values in order of first appearance in the SAC, the IDT, then ``extra``)
        index = pd.Index(
            pd.unique(np.concatenate([sac_words, value_words[pd.unique(listed)], *more]))
        ).astype(object)
        values.append(index)
        sac_codes.append(index.get_indexer(sac_words)[sac_code])
        held = sid_codes[in_idt]
        named = pd.unique(held)  # the SIDs of s, in order of first appearance in the IDT
        names = pd.Index(sid_words[named], dtype=object)
        sid_position = np.full(len(sid_words), -1, dtype=np.int64)
        sid_position[named] = np.arange(len(named), dtype=np.int64)
        sid_code = sid_position[held]
        value_code = index.get_indexer(value_words)[listed]
        keys = np.sort(sid_code * len(index) + value_code)
        if np.any(keys[1:] == keys[:-1]):
            raise InputError(
                f"release table 'idt': a SID of {s!r} lists a value twice; SIDs hold distinct "
                "values"
            )
        members.append(keys)
        sid_size.append(np.bincount(sid_code, minlength=len(names)))
        idt_count.append(np.bincount(value_code, minlength=len(index)))
        at_code, at_words = _coded_text(at[s], f"at.{s}")
        referred = object_positions(names.to_numpy(), at_words)  # (often the same objects)
        unknown = ((referred < 0) & (at_words != SUPPRESSED))[at_code]
        if unknown.any():
            raise InputError(
                f"release table 'at': column {s!r} refers to SID "
                f"{at_words[at_code[np.flatnonzero(unknown)[0]]]!r}, which the IDT does not list"
            )
        at_sid.append(referred[at_code])
    group_codes, _ = pd.factorize(sac["group"]) if len(sac) else (np.zeros(0, np.int64), None)
    group = np.asarray(group_codes, dtype=np.int64)
    min_conf = info.get("min_confidence")
    return _Parts(
        sensitive=sensitive,
        quasi=quasi,
        l=_l_of(info, sensitive),
        cluster=_clusters(info, sensitive),
        mixed=min_conf is not None,
        min_confidence=None if min_conf is None else float(min_conf),
        # (the records the mixed model deleted from SAC, and those Rating left out because no
        # SID could take one of their values)
        deleted=int(info.get("deleted", 0) or 0) + sum((info.get("unplaced") or {}).values()),
        values=values,
        sac_codes=np.column_stack(sac_codes).astype(np.int64).reshape(len(sac), d),
        group=group,
        group_size=np.bincount(group),
        at_sid=np.column_stack(at_sid).astype(np.int64).reshape(len(at), d),
        sid_size=sid_size,
        members=members,
        idt_count=idt_count,
    )


def _records(parts: _Parts, original: pd.DataFrame | None) -> int:
    """Records of the original table (deleted ones included), checked against the release."""
    published = parts.n_sac + parts.n_at
    if original is None:
        return published + parts.deleted
    if not isinstance(original, pd.DataFrame):
        raise InputError(
            "original: expected a pandas DataFrame or an Arrow-compatible table, got "
            f"{type(original).__name__}"
        )
    absent = [s for s in parts.sensitive if s not in original.columns]
    if absent:
        raise InputError(f"original: sensitive column(s) {', '.join(absent)} not found")
    if len(original) != published + parts.deleted:
        raise InputError(
            f"original has {len(original):,} records but the release publishes {published:,} and "
            f"deleted {parts.deleted:,}; pass the table the release was made from"
        )
    return len(original)


# ------------------------------------------------------------------------------ ℓ-diversity
@dataclass(frozen=True)
class PublishedDiversity:
    """ℓ-diversity of a ``multi-sa`` release, re-checked on its tables
    (:func:`published_diversity`).

    Attributes
    ----------
    sids_diverse : bool or None
        Whether every SID of the IDT lists at least ``l_j`` distinct values of its attribute
        ``j`` (None: the IDT lists no SID, as when no record is in the AT).
    smallest_sid : int or None
        Values of the smallest SID (None without one).
    groups_diverse : bool
        Whether every SAC~ group holds at least ``l`` records (the smallest ``l_j``) with
        pairwise distinct values on every sensitive attribute (true without a group).
    """

    sids_diverse: bool | None
    smallest_sid: int | None
    groups_diverse: bool


def published_diversity(release: Release) -> PublishedDiversity:
    """ℓ-diversity re-checked on a ``multi-sa`` release's tables (see
    :class:`PublishedDiversity`), from its encoding: a run encodes the release once for this,
    the AIL and the RCE, and counts the SAC~ groups' distinct values on codes, one hash pass
    per attribute.

    Raises
    ------
    InputError
        A release that is not ``multi-sa``, or whose tables do not read as one (a SID listing a
        value twice, an AT cell naming a SID the IDT lacks, ...).
    """
    parts = _parse(release)
    sids = [(parts.l[a], size) for a, size in zip(parts.sensitive, parts.sid_size, strict=True)]
    listed = [(ell, size) for ell, size in sids if len(size)]
    groups = len(parts.group_size)
    diverse = bool((parts.group_size >= min(parts.l.values())).all())
    for j in range(parts.d if parts.n_sac else 0):
        key, _ = packed_key([parts.group, parts.sac_codes[:, j]], [groups, len(parts.values[j])])
        found, distinct = factorize_keys(key)
        values = np.bincount(parts.group[first_rows(found, len(distinct))], minlength=groups)
        diverse &= bool(np.array_equal(values, parts.group_size))
    return PublishedDiversity(
        sids_diverse=all(int(size.min()) >= ell for ell, size in listed) if listed else None,
        smallest_sid=min(int(size.min()) for _, size in listed) if listed else None,
        groups_diverse=diverse,
    )


# ------------------------------------------------------------------------------ AIL and RCE
def ail_components(release: Release, original: pd.DataFrame | None = None) -> dict[str, float]:
    """The three parts of :func:`ail`, each already divided by ``n·d``.

    Returns
    -------
    dict
        ``enlarged`` (SIDs of more than ``l_j`` values, the paper's notion of additional loss),
        ``suppressed`` (values published as ``"*"``, by a release made as Rating's algorithm
        has it) and ``deleted`` (records the mixed model deleted or Rating left out, ``d``
        values each); their sum is :func:`ail`.

    Raises
    ------
    InputError
        As :func:`ail`.
    """
    original = pandas_if_arrow(original, "original")
    parts = _parse(release)
    scale = float(_records(parts, original) * parts.d)
    if scale == 0:
        raise InputError("release: publishes no record and deleted none")
    enlarged = suppressed = 0.0
    for j, s in enumerate(parts.sensitive):
        sids = parts.at_sid[:, j]
        size = parts.sid_size[j][sids[sids >= 0]].astype(float)
        enlarged += float(np.sum((size - parts.l[s]) / size))
        suppressed += float(np.count_nonzero(sids < 0))
    return {
        "enlarged": enlarged / scale,
        "suppressed": suppressed / scale,
        "deleted": parts.deleted * parts.d / scale,
    }


def ail(release: Release, original: pd.DataFrame | None = None) -> float:
    """Additional information loss of a ``multi-sa`` release (Yi & Shi 2015, Figs. 3–5).

    ``AIL = (1/(n·d)) Σ_r Σ_j AIL(r[S_j])`` with ``AIL = (|SID| − l_j)/|SID|`` for a value
    published as a SID of ``|SID|`` member values (0 for SIDs of exactly ``l_j`` values), 0 for
    a SAC~ value (our reconstruction of the paper's formula), and 1 for a suppressed value
    (``"*"``, our choice). :func:`ail_components` splits it.

    Parameters
    ----------
    release : Release
        Of kind ``multi-sa``.
    original : DataFrame, optional
        The table the release was made from; only its number of records is used (checked
        against the release). Without it, ``n`` is read from the release.

    Returns
    -------
    float
        In ``[0, 1]``. ``n`` counts the original records, deleted ones included: a record the
        mixed model deleted counts 1 for each of its ``d`` values (our choice), so that deleting
        is never cheaper than suppressing.

    Raises
    ------
    InputError
        Not a ``multi-sa`` release, inconsistent tables, or an ``original`` of another size.

    Examples
    --------
    In a constructed example of 12 records and 3 sensitive attributes (the one the tests
    use), two suppressed values give 2/36.
    """
    return float(sum(ail_components(release, original).values()))


def _domain_sizes(parts: _Parts, original: pd.DataFrame) -> np.ndarray:
    return np.asarray([original[s].nunique() for s in parts.sensitive], dtype=float)


def _check_distinct_groups(parts: _Parts) -> None:
    for j, s in enumerate(parts.sensitive):
        key = parts.group * len(parts.values[j]) + parts.sac_codes[:, j]
        if len(np.unique(key)) != len(key):
            raise InputError(
                f"release table 'sac': a group repeats a value of {s!r}; groups of the mixed "
                "model hold pairwise distinct values"
            )


def rce(release: Release, original: pd.DataFrame) -> float:
    """Reconstruction error ``RCE = Σ_r Σ_x (G̃_r(x) − G_r(x))²`` (Yi & Shi 2015, Lemma 23).

    The error measure of Xiao & Tao's Anatomy (VLDB 2006) for several sensitive attributes;
    the per-record pdfs below are our reconstruction.

    ``G_r`` puts mass 1 on record r's vector of sensitive values; ``G̃_r`` is the pdf the release
    lets one reconstruct:

    * AT record: ``Π_j 1[x_j ∈ SID_j(r)] / |SID_j(r)|`` (one SID per attribute, independent);
    * SAC~ record of group G: ``Π_C #{g ∈ G : g[C] = x[C]} / |G|`` over the clusters C;
    * a suppressed value (``"*"``) or a deleted record: uniform over the attribute's values in
      ``original`` (our choice; a deleted record is a record with every value suppressed).

    The SID that absorbed a value holds it and a group's cluster vectors are its records' own,
    so with distinct values per SID and per group (what the methods publish; checked)
    ``G̃_r(x_r) = Σ_x G̃_r(x)²`` and ``Err(r) = 1 − G̃_r(x_r)``: ``1 − Π_j 1/|SID_j(r)|`` in AT and
    ``1 − |G|^(−#clusters)`` in SAC~ (Lemma 23: ``1 − l^(−d)`` vs ``1 − l^(−#clusters)``).
    Computed per AT row and per group with array operations.

    Parameters
    ----------
    release : Release
        Of kind ``multi-sa``.
    original : DataFrame
        The table the release was made from (its size and the domain of every sensitive
        attribute).

    Returns
    -------
    float
        The sum over the original records (``RCE / n`` is the mean error, in ``[0, 1)``).

    Raises
    ------
    InputError
        Not a ``multi-sa`` release, a SID or group repeating a value, or an ``original`` that
        does not match the release.
    """
    original = pandas_if_arrow(original, "original")
    if original is None:
        raise InputError("original: rce needs the original table")
    parts = _parse(release)
    _records(parts, original)
    _check_distinct_groups(parts)
    domain = _domain_sizes(parts, original)
    total = parts.deleted * (1.0 - float(np.prod(1.0 / domain)))
    if parts.n_sac:
        sizes = parts.group_size.astype(float)
        total += float(np.sum(sizes * (1.0 - sizes ** (-parts.n_clusters))))
    if parts.n_at:
        share = np.ones(parts.n_at)
        for j in range(parts.d):
            sids = parts.at_sid[:, j]
            size = np.append(parts.sid_size[j], domain[j])[sids]  # -1 ("*"): the domain
            share /= size
        total += float(np.sum(1.0 - share))
    return total


# ------------------------------------------------------------------------------ rules
def _check_rules(rules: Any, parts: _Parts) -> pd.DataFrame:
    if not isinstance(rules, pd.DataFrame):
        raise InputError(
            f"rules: expected the DataFrame strong_rules returns, got {type(rules).__name__}"
        )
    need = [*_RULE_KEYS, "support_x", "confidence"]
    absent = [c for c in need if c not in rules.columns]
    if absent:
        raise InputError(
            f"rules: column(s) {', '.join(absent)} missing; pass the table strong_rules returns"
        )
    for side in ("antecedent_attribute", "consequent_attribute"):
        bad = sorted({str(a) for a in rules[side]} - set(parts.sensitive))
        if bad:
            raise InputError(
                f"rules: {side} {bad} not among the release's sensitive attributes "
                f"{parts.sensitive}"
            )
    same = rules["antecedent_attribute"].astype(str) == rules["consequent_attribute"].astype(str)
    if same.any():
        raise InputError("rules: a rule links two values of one attribute")
    return rules.reset_index(drop=True)


@dataclass(frozen=True)
class _Evidence:
    """What a release shows about one rule X → Y (attributes i, j)."""

    i: int
    j: int
    same_cluster: bool
    sac_certainty: np.ndarray  # per SAC~ row
    sac_group_certainty: np.ndarray  # per group
    sac_holders: np.ndarray  # per group: records with X∧Y (expected when clusters differ)
    sac_capacity: np.ndarray  # per group: most records with X∧Y it can hold
    at_excluded: bool  # mixed model and strong rule: no AT record contains it (Step A)
    at_candidate: np.ndarray  # per AT row: its SIDs may hold X and Y
    at_holders: float  # records with X∧Y the adversary places among the AT candidates
    at_certainty: float  # per AT candidate
    at_expected_xy: float  # expected co-occurrences in AT under independence of SIDs
    support_x: int  # occurrences of X in SAC~ and in the IDT


def _evidence(parts: _Parts, rule: Mapping[str, Any]) -> _Evidence:
    i = parts.sensitive.index(str(rule["antecedent_attribute"]))
    j = parts.sensitive.index(str(rule["consequent_attribute"]))
    x, y = parts.code(i, rule["antecedent"]), parts.code(j, rule["consequent"])
    conf = float(rule["confidence"])
    known_xy = int(math.ceil(conf * float(rule["support_x"]) - 1e-9))  # holders the adversary knows
    same = bool(parts.cluster[i] == parts.cluster[j])
    # SAC~: intra-cluster links are kept; across clusters the permutations are independent.
    has_x = parts.sac_codes[:, i] == x if x >= 0 else np.zeros(parts.n_sac, bool)
    has_y = parts.sac_codes[:, j] == y if y >= 0 else np.zeros(parts.n_sac, bool)
    g = len(parts.group_size)
    size = parts.group_size.astype(float)
    if same:
        holders = np.bincount(parts.group[has_x & has_y], minlength=g).astype(float)
        capacity = holders
    else:
        nx = np.bincount(parts.group[has_x], minlength=g).astype(float)
        ny = np.bincount(parts.group[has_y], minlength=g).astype(float)
        holders = nx * ny / np.maximum(size, 1)
        capacity = np.minimum(nx, ny)
    per_row = holders / np.maximum(size, 1)
    sac_certainty = per_row[parts.group] if parts.n_sac else np.zeros(0)
    support_x = int(np.count_nonzero(has_x)) + (int(parts.idt_count[i][x]) if x >= 0 else 0)
    # AT: records whose SIDs may hold X and Y. A "*" may hold Y; it may hold X only if the known
    # support of X exceeds the occurrences of X published in SAC~ and the IDT.
    sid_i, sid_j = parts.at_sid[:, i], parts.at_sid[:, j]
    hold_x, hold_y = parts.at_holds(i, x), parts.at_holds(j, y)
    star_x = (sid_i < 0) & (float(rule["support_x"]) > support_x)
    excluded = parts.mixed and conf >= float(parts.min_confidence) - _TOL
    candidate = (hold_x | star_x) & (hold_y | (sid_j < 0))
    if excluded:
        candidate = np.zeros(parts.n_at, dtype=bool)
    at_holders = max(0.0, known_xy - float(holders.sum())) if not excluded else 0.0
    n_cand = int(np.count_nonzero(candidate))
    at_certainty = min(1.0, at_holders / n_cand) if n_cand else 0.0
    expected = 0.0
    if not excluded and parts.n_at:
        px = np.where(hold_x, 1.0 / np.append(parts.sid_size[i], 1)[sid_i], 0.0)
        py = np.where(hold_y, 1.0 / np.append(parts.sid_size[j], 1)[sid_j], 0.0)
        expected = float(np.sum(px * py))
    return _Evidence(
        i=i,
        j=j,
        same_cluster=same,
        sac_certainty=sac_certainty,
        sac_group_certainty=per_row,
        sac_holders=holders,
        sac_capacity=capacity,
        at_excluded=excluded,
        at_candidate=candidate,
        at_holders=at_holders,
        at_certainty=at_certainty,
        at_expected_xy=expected,
        support_x=support_x,
    )


def recovered_confidences(release: Release, rules: pd.DataFrame) -> pd.DataFrame:
    """The confidence of every rule as recovered from a release (Lemma 22's procedure).

    ``support(X)`` = occurrences of X in SAC~ + SIDs of the IDT holding X (each SID instance took
    one occurrence of each member value; suppressed and deleted occurrences are not visible).
    ``support(X∧Y)``:

    * SAC~, X and Y in one cluster: rows holding both (the links inside a cluster are kept);
      in different clusters: ``Σ_G n_G(X)·n_G(Y)/|G|``, the expected co-occurrence under the
      group's independent permutations;
    * AT of a mixed-model release, rule with ``confidence >= min_confidence``: nothing — no IR
      record contains a strong rule (Step A), so Lemma 22 reads ``support(X∧Y)`` from SAC~;
    * AT otherwise (Rating): the best an analyst can do without links between attributes, the
      expected co-occurrence if a record's SIDs were independent,
      ``Σ_r 1[X ∈ SID_i(r)]/|SID_i(r)| · 1[Y ∈ SID_j(r)]/|SID_j(r)|``. Rating publishes each
      attribute on its own, so this estimate is about ``support(X)·P(Y)``: a strong rule's
      confidence falls towards the consequent's share, far from the original.

    Parameters
    ----------
    release : Release
        Of kind ``multi-sa``.
    rules : DataFrame
        As returned by :func:`microanon.methods.multisa.strong_rules` on the original table.

    Returns
    -------
    DataFrame
        ``rules`` (fresh index) with ``recovered_support_x``, ``recovered_support_xy``
        (float: expectations where links are missing), ``recovered_confidence`` (NaN when X is
        not visible) and ``estimate`` (``"exact"`` when ``support(X∧Y)`` is read from kept
        links only, else ``"independence"``).

    Raises
    ------
    InputError
        Not a ``multi-sa`` release or not a rule table over its sensitive attributes.
    """
    parts = _parse(release)
    table = _check_rules(rules, parts)
    sx, sxy, kind = [], [], []
    for rule in table.to_dict("records"):
        ev = _evidence(parts, rule)
        xy = float(ev.sac_holders.sum()) + ev.at_expected_xy
        sx.append(ev.support_x)
        sxy.append(xy)
        exact = ev.same_cluster and (ev.at_excluded or not parts.n_at)
        kind.append("exact" if exact else "independence")
    out = table.copy()
    out["recovered_support_x"] = np.asarray(sx, dtype=np.int64)
    out["recovered_support_xy"] = np.asarray(sxy, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        conf = np.where(out["recovered_support_x"] > 0, out["recovered_support_xy"], np.nan)
        out["recovered_confidence"] = conf / np.maximum(out["recovered_support_x"], 1)
    out["estimate"] = pd.Series(kind, dtype=object)
    return out


# ------------------------------------------------------------------------------ the attack
def _target_mask(release: Release, parts: _Parts, target_qi: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows of SAC~ and AT whose quasi-identifiers equal ``target_qi``."""
    sac, at = release.tables["sac"], release.tables["at"]
    keep_sac, keep_at = np.ones(len(sac), bool), np.ones(len(at), bool)
    if target_qi is None:
        return keep_sac, keep_at
    if not isinstance(target_qi, Mapping) or not target_qi:
        raise InputError("target_qi: give a mapping quasi-identifier -> value, e.g. {'age': 39}")
    for col, value in target_qi.items():
        if col not in parts.quasi:
            raise InputError(
                f"target_qi: {col!r} is not a published quasi-identifier; available: "
                + ", ".join(parts.quasi)
            )
        keep_sac &= _text(sac[col], f"sac.{col}") == str(value)
        keep_at &= _text(at[col], f"at.{col}") == str(value)
    return keep_sac, keep_at


_ATTACK_COLUMNS = [
    "rule",
    *_RULE_KEYS,
    "table",
    "row",
    "group",
    "holders",
    "candidates",
    "certainty",
    "disclosed",
]


def strong_rule_attack(
    release: Release, rules: pd.DataFrame, target_qi: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """The adversary who knows the strong rules, run against a ``multi-sa`` release.

    The attack of Yi & Shi (2015), Sec. 3.3; its certainties as in the paper's Lemma 12.

    For a rule ``X → Y`` the adversary knows that at least ``n_XY = ⌈conf · support(X)⌉``
    records hold X and Y. Per part of the release:

    * SAC~ group G, X and Y in one cluster: its ``k_G`` rows holding X∧Y belong to ``k_G``
      records of G, equally likely any of its ``|G|`` records (Lemma 12): every record of G is
      a candidate with certainty ``k_G/|G|`` (``<= 1/l`` for the mixed model). X and Y in
      different clusters: ``n_G(X)·n_G(Y)/|G|²``.
    * AT, mixed model and ``conf >= min_confidence``: no candidate (no IR record contains a
      strong rule; Lemma 12's probability 0).
    * AT otherwise (Rating): the candidates are the records whose SIDs may hold X and Y
      (a ``"*"`` may hold Y, and X when the known ``support(X)`` exceeds the occurrences of X
      the release shows); the ``n_XY`` holders not accounted for in SAC~ are among them, so each
      candidate holds X∧Y with certainty ``min(1, n_XY / N_cand)`` — 1 when there are no more
      candidates than holders: those records are disclosed.

    Parameters
    ----------
    release : Release
        Of kind ``multi-sa``.
    rules : DataFrame
        The strong rules the adversary knows (:func:`~microanon.methods.multisa.strong_rules`);
        ``support_x`` and ``confidence`` are the adversary's knowledge.
    target_qi : mapping, optional
        Quasi-identifier values of a target (e.g. ``{"age": 39, "country": "US"}``): only the
        candidate rows with these values are returned (the certainties do not change).

    Returns
    -------
    DataFrame
        One row per (rule, candidate row): ``rule`` (position in ``rules``), the rule's
        attributes and values, ``table`` (``"sac"`` or ``"at"``), ``row`` (position in that
        table), ``group`` (SAC~ group number as published, ``<NA>`` in AT), ``holders`` (records
        with X∧Y among the candidates sharing the certainty: ``k_G`` or the AT holders),
        ``candidates`` (``|G|`` or ``N_cand``), ``certainty`` and ``disclosed``
        (certainty 1).

    Raises
    ------
    InputError
        Not a ``multi-sa`` release, a bad rule table or a bad ``target_qi``.
    """
    parts = _parse(release)
    table = _check_rules(rules, parts)
    keep_sac, keep_at = _target_mask(release, parts, target_qi)
    published_group = release.tables["sac"]["group"].to_numpy(dtype=np.int64)
    rules = table.to_dict("records")
    pieces: dict[str, list[np.ndarray]] = {c: [] for c in _ATTACK_PIECES}
    for r, rule in enumerate(rules):
        ev = _evidence(parts, rule)
        sac_rows = np.flatnonzero((ev.sac_certainty > 0) & keep_sac)
        at_rows = np.flatnonzero(ev.at_candidate & keep_at)
        n_cand = int(np.count_nonzero(ev.at_candidate))
        g = parts.group[sac_rows]
        n_at = len(at_rows)
        pieces["rule"].append(np.full(len(sac_rows) + n_at, r, dtype=np.int64))
        pieces["table"].append(np.r_[np.full(len(sac_rows), "sac"), np.full(n_at, "at")])
        pieces["row"].append(np.r_[sac_rows, at_rows].astype(np.int64))
        pieces["group"].append(np.r_[published_group[sac_rows], np.full(n_at, -1, np.int64)])
        pieces["holders"].append(np.r_[ev.sac_holders[g], np.full(n_at, ev.at_holders)])
        pieces["candidates"].append(
            np.r_[parts.group_size[g], np.full(n_at, n_cand)].astype(np.int64)
        )
        pieces["certainty"].append(
            np.concatenate([ev.sac_certainty[sac_rows], np.full(n_at, ev.at_certainty)])
        )
    if not rules:
        return pd.DataFrame({c: [] for c in _ATTACK_COLUMNS})
    got = {c: np.concatenate(v) for c, v in pieces.items()}  # one frame, not one per rule
    return pd.DataFrame(
        {
            "rule": got["rule"],
            **_rule_columns(rules, got["rule"]),
            "table": got["table"],
            "row": got["row"],
            "group": _group_column(got["group"]),
            "holders": got["holders"],
            "candidates": got["candidates"],
            "certainty": got["certainty"],
            "disclosed": got["certainty"] >= 1.0 - 1e-9,
        },
        columns=_ATTACK_COLUMNS,
    )


#: What :func:`strong_rule_attack` gathers per rule before its one frame.
_ATTACK_PIECES = ("rule", "table", "row", "group", "holders", "candidates", "certainty")


def _rule_columns(rules: Sequence[Mapping[str, Any]], which: np.ndarray) -> dict[str, pd.Series]:
    """The attributes and values of rule ``which[i]`` for every output row ``i``."""
    return {
        c: pd.Series(np.array([rule[c] for rule in rules], dtype=object)[which], dtype=object)
        for c in _RULE_KEYS
    }


def _group_column(group: np.ndarray) -> pd.arrays.IntegerArray:
    """Published group numbers, ``-1`` read as none (``<NA>``)."""
    return pd.arrays.IntegerArray(np.maximum(group, 0), group < 0)


# ------------------------------------------------------------------------------ disclosure
def _qi_keys(holders: pd.DataFrame, rows: pd.DataFrame, quasi: list[str]) -> tuple[np.ndarray, ...]:
    """Integer keys equal exactly when the quasi-identifier values (as text) are equal."""
    if not quasi:
        return np.zeros(len(holders), np.int64), np.zeros(len(rows), np.int64)
    codes = []
    for c in quasi:
        both = np.concatenate([_key_text(holders[c]), _key_text(rows[c])])
        codes.append(pd.factorize(both)[0])  # a missing value (-1) equals only a missing value
    _, key = np.unique(np.column_stack(codes), axis=0, return_inverse=True)
    key = key.reshape(-1)
    return key[: len(holders)], key[len(holders) :]


def _pairs(left_key: np.ndarray, right_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (left, right) pairs of positions with equal keys."""
    left = pd.DataFrame({"h": np.arange(len(left_key)), "k": left_key})
    right = pd.DataFrame({"r": np.arange(len(right_key)), "k": right_key})
    pairs = left.merge(right, on="k")
    return pairs["h"].to_numpy(), pairs["r"].to_numpy()


def _kinds(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows alike in every column (integer columns, or 2-d blocks of them): each row's kind
    and the first row of every kind."""
    table = np.column_stack([c.reshape(len(c), -1) for c in columns])
    _, first, kind = np.unique(table, axis=0, return_index=True, return_inverse=True)
    return kind.reshape(-1), first


def _assign(kind: np.ndarray, k: np.ndarray, b: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """A maximum assignment of holders to bins, as a maximum flow between kinds of holders and
    bins: holder ``i`` is of kind ``kind[i]``, ``(k, b)`` are the allowed (kind, bin) pairs and
    ``capacity[b]`` the holders bin ``b`` takes. Returns the bin of every holder, ``-1`` when
    unmatched (the holders of one kind are interchangeable: matched in their order).

    The graph has a node per kind and per bin, not per holder and per place in a bin: its size
    is that of the distinct (kind, bin) pairs (scipy's Dinic maximum flow)."""
    out = np.full(len(kind), -1, dtype=np.int64)
    cap = np.asarray(capacity, dtype=np.int64)
    if not len(k) or not cap.sum():
        return out
    sizes = np.bincount(kind)
    pairs = np.unique(np.column_stack([k, b]), axis=0)
    pairs = pairs[cap[pairs[:, 1]] > 0]
    n_kinds, n_bins = len(sizes), len(cap)
    sink = n_kinds + n_bins + 1
    tails = np.concatenate([np.zeros(n_kinds), 1 + pairs[:, 0], 1 + n_kinds + np.arange(n_bins)])
    heads = np.concatenate(
        [1 + np.arange(n_kinds), 1 + n_kinds + pairs[:, 1], np.full(n_bins, sink)]
    )
    room = np.concatenate([sizes, sizes[pairs[:, 0]], cap])
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    graph = csr_array(
        (room.astype(np.int32), (tails.astype(np.int64), heads.astype(np.int64))),
        shape=(sink + 1, sink + 1),
    )
    flow = maximum_flow(graph, 0, sink).flow.tocoo()
    sent = (flow.data > 0) & (flow.row >= 1) & (flow.row <= n_kinds) & (flow.col > n_kinds)
    sent_kind = flow.row[sent] - 1
    sent_bin = flow.col[sent] - 1 - n_kinds
    amount = flow.data[sent].astype(np.int64)
    by_kind = np.argsort(sent_kind, kind="stable")
    bins = np.repeat(sent_bin[by_kind], amount[by_kind])  # the places, kind after kind
    placed = np.bincount(sent_kind, weights=amount, minlength=n_kinds).astype(np.int64)
    holders = np.argsort(kind, kind="stable")  # the holders, kind after kind
    rank = np.arange(len(kind)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    taken = rank < np.repeat(placed, sizes)
    out[holders[taken]] = bins
    return out


def _holder_codes(parts: _Parts, text: Sequence[np.ndarray]) -> np.ndarray:
    """Value codes of the original records, one column per sensitive attribute (``text``: each
    attribute's values as text; ``-1``: a value the release never shows)."""
    n = len(text[0]) if text else 0
    return np.column_stack([parts.values[j].get_indexer(t) for j, t in enumerate(text)]).reshape(
        n, parts.d
    )


def _holding(
    codes: np.ndarray, text: Sequence[np.ndarray], j: int, value: Any, parts: _Parts
) -> np.ndarray:
    """Which original records hold ``value`` in attribute ``j``: by code when the release shows
    it, else by text (a value the release never shows has no code of its own)."""
    code = parts.code(j, value)
    return codes[:, j] == code if code >= 0 else text[j] == str(value)


def _in_groups(parts: _Parts, group: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Whether group ``group[k]`` shows, for every cluster, the vector of values ``codes[k]``
    has on it (a group's cluster vectors are its records' own, permuted among them)."""
    ok = np.ones(len(group), dtype=bool)
    for c in np.unique(parts.cluster):
        cols = np.flatnonzero(parts.cluster == c)
        # one number per distinct vector of the cluster's values (-1, a value the release never
        # shows, included): packed codes, numbered by a hash pass (no sort of the rows)
        both = [np.concatenate([parts.sac_codes[:, j], codes[:, j]]) for j in cols]
        packed, _ = packed_key(both, [len(parts.values[j]) + 1 for j in cols], offset=1)
        ids, _ = factorize_keys(packed)
        m = int(ids.max()) + 1
        shown = np.unique(parts.group * m + ids[: parts.n_sac])
        key = group * m + ids[parts.n_sac :]
        pos = np.minimum(np.searchsorted(shown, key), len(shown) - 1)
        ok &= shown[pos] == key
    return ok


def _in_sids(parts: _Parts, at_rows: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Whether the SIDs of AT rows ``at_rows[k]`` may hold the values ``codes[k]``."""
    ok = np.ones(len(at_rows), dtype=bool)
    for j in range(parts.d):
        sids = parts.at_sid[at_rows, j]
        ok &= (sids < 0) | parts.holds(j, sids, codes[:, j])
    return ok


_DISCLOSURE_COLUMNS = ["rule", *_RULE_KEYS, "record", "published", "group", "probability"]


def disclosure_probabilities(
    release: Release, original: pd.DataFrame, rules: pd.DataFrame
) -> pd.DataFrame:
    """Disclosure probability of every record that contains a strong rule (Yi & Shi 2015).

    The measure of the paper's Figs. 10–11; its formula here is our reconstruction.

    For each rule ``X → Y`` and each record of ``original`` holding both X and Y: the certainty
    with which the adversary of :func:`strong_rule_attack` places X∧Y on that record.

    * Mixed model, record in SAC~ group G: ``#{records of G whose cluster vector holds X∧Y}/|G|``
      (``1/l`` for groups of ``l`` records with distinct values).
    * Rating (record in AT): ``min(1, n_XY / N_cand)`` with ``n_XY = ⌈conf · support(X)⌉`` as the
      adversary knows and ``N_cand`` the AT records whose SIDs may hold X and Y.
    * Deleted record: 0 (it is not published).

    The release does not say which published row is which original record (SAC~ permutes the
    values inside a group). A holder can be the record of a row of group G when the row's
    quasi-identifiers equal the holder's and, for every cluster, G shows the holder's vector of
    values on it. Holders are matched to such groups, at most ``k_G`` per group (its rows showing
    X∧Y), by a maximum bipartite matching, so every published holder is found and the number of
    deleted holders per rule is exact. The holders left over are deleted (mixed model, rule at
    ``min_confidence``: Step A puts every record containing it in SAC) or in AT; when the release
    deleted records, a holder counts as in AT only if it matches an AT candidate with equal
    quasi-identifiers and SIDs holding its values. Which of several records the release cannot
    tell apart is the deleted one is arbitrary; the probabilities of each rule's holders are
    exact.

    Parameters
    ----------
    release : Release
        Of kind ``multi-sa``.
    original : DataFrame
        The table the release was made from, with its quasi-identifier and sensitive columns.
    rules : DataFrame
        The strong rules (:func:`~microanon.methods.multisa.strong_rules` on ``original``).

    Returns
    -------
    DataFrame
        One row per (rule, record holding it): ``rule`` (position in ``rules``), the rule's
        attributes and values, ``record`` (index label in ``original``), ``published``
        (``"sac"``, ``"at"`` or ``"deleted"``), ``group`` (published group number, ``<NA>``
        outside SAC~) and ``probability``.

    Raises
    ------
    InputError
        Not a ``multi-sa`` release, a bad rule table, or an ``original`` that does not match
        the release (size, columns).
    """
    original = pandas_if_arrow(original, "original")
    if not isinstance(original, pd.DataFrame):
        raise InputError(
            "original: expected a pandas DataFrame or an Arrow-compatible table, got "
            f"{type(original).__name__}"
        )
    sensitive, _ = _metadata(release)
    absent = [s for s in sensitive if s not in original.columns]
    if absent:
        raise InputError(f"original: sensitive column(s) {', '.join(absent)} not found")
    parts = _parse(release, extra=[original[s] for s in sensitive])
    _records(parts, original)
    table = _check_rules(rules, parts)
    sac, at = release.tables["sac"], release.tables["at"]
    if parts.n_sac or parts.deleted:
        missing = [q for q in parts.quasi if q not in original.columns]
        if missing:
            raise InputError(
                f"original: quasi-identifier column(s) {', '.join(missing)} not found; they "
                "link records to the published rows"
            )
    text = [_text(original[s], f"original.{s}") for s in parts.sensitive]
    every = _holder_codes(parts, text)  # each record's codes, once for all the rules
    label = np.zeros(len(parts.group_size), dtype=np.int64)  # published number of every group
    label[parts.group] = sac["group"].to_numpy(dtype=np.int64)
    rules = table.to_dict("records")
    rule_of, holders, wheres, groups, probs = [], [], [], [], []
    for r, rule in enumerate(rules):
        ev = _evidence(parts, rule)
        rows = np.flatnonzero(
            _holding(every, text, ev.i, rule["antecedent"], parts)
            & _holding(every, text, ev.j, rule["consequent"], parts)
        )
        where = np.full(len(rows), "at", dtype=object)
        prob = np.full(len(rows), ev.at_certainty)
        group = np.full(len(rows), -1, dtype=np.int64)  # (-1: outside SAC~)
        codes = every[rows]
        hosting = np.flatnonzero(ev.sac_capacity[parts.group] > 0) if parts.n_sac else rows[:0]
        if len(rows) and len(hosting):
            # holders alike (quasi-identifiers, values) and the groups they may be in
            held_key, row_key = _qi_keys(original.iloc[rows], sac.iloc[hosting], parts.quasi)
            kind, first = _kinds(held_key, codes)
            _, place_row = _kinds(row_key, parts.group[hosting])
            h, k = _pairs(held_key[first], row_key[place_row])
            g = parts.group[hosting[place_row[k]]]
            ok = _in_groups(parts, g, codes[first[h]])
            bins = _assign(kind, h[ok], g[ok], np.rint(ev.sac_capacity))
            linked = bins >= 0
            where[linked] = "sac"
            prob[linked] = ev.sac_group_certainty[bins[linked]]
            group[linked] = label[bins[linked]]
        rest = np.flatnonzero(where != "sac")
        cand = np.flatnonzero(ev.at_candidate)
        if ev.at_excluded or (parts.deleted and len(rest) and not len(cand)):
            where[rest], prob[rest] = "deleted", 0.0
        elif parts.deleted and len(rest):
            # holders alike, and AT rows alike (quasi-identifiers, SIDs): one bin per kind
            held_key, row_key = _qi_keys(original.iloc[rows[rest]], at.iloc[cand], parts.quasi)
            kind, first = _kinds(held_key, codes[rest])
            place, place_row = _kinds(row_key, parts.at_sid[cand])
            h, k = _pairs(held_key[first], row_key[place_row])
            ok = _in_sids(parts, cand[place_row[k]], codes[rest][first[h]])
            bins = _assign(kind, h[ok], k[ok], np.bincount(place))
            gone = rest[bins < 0]
            where[gone], prob[gone] = "deleted", 0.0
        rule_of.append(np.full(len(rows), r, dtype=np.int64))
        holders.append(rows)
        wheres.append(where)
        groups.append(group)
        probs.append(prob)
    if not rules:
        return pd.DataFrame({c: [] for c in _DISCLOSURE_COLUMNS})
    which = np.concatenate(rule_of)  # one frame for all the rules: not one per rule
    group = np.concatenate(groups)
    return pd.DataFrame(
        {
            "rule": which,
            **_rule_columns(rules, which),
            "record": original.index[np.concatenate(holders)],
            "published": np.concatenate(wheres),
            "group": _group_column(group),
            "probability": np.concatenate(probs),
        },
        columns=_DISCLOSURE_COLUMNS,
    )
