"""How ``microanon init`` ranks the quasi-identifiers: by what each adds to re-identification.

``full_domain`` searches the lattice of every combination of generalization levels, whose size
is the product of the quasi-identifiers' numbers of levels: up to
:data:`~microanon.methods.generalize._lattice.MAX_NODES` nodes it finds the optimum, above it a
heuristic search finds the best levels it can within a time limit. No quasi-identifier is
dropped for the lattice's size; init ranks them so that the data owner sees which columns make
records unique:

1. each round, every candidate not taken yet is added in turn to the key chosen so far, and
   the one that adds the most **sample uniques** (records whose combination of key values no
   other record has; a missing value is a value of its own) is taken; ties go to the one that
   adds the most records in classes smaller than ``k``, then the most classes, then the
   fewest levels, then the first in the table;
2. after :data:`GREEDY_ROUNDS` rounds, or once the key singles out every record, the
   candidates left are ranked in one round by what each adds to the key chosen so far (so a
   file with hundreds of candidates is ranked in time linear in their number);
3. the rank, the sample uniques each added and the lattice of the whole key go into the
   config's comments.

The measures are counted on the frequency table of the candidates' distinct combinations, not
on the records: each column is coded once, the table's rows (each with its records) are
combined with a candidate as mixed-radix keys, counted by ``np.bincount`` over a small key space
or hashed otherwise, and a class that holds one row of the table is set aside once (no
candidate splits it: its records agree on every candidate). A file resampled to 10^6 records
holds the distinct combinations of its source; a file of many distinct records leaves few
classes to split after the first rounds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...core.factorize import factorize, factorize_keys
from ...core.schema import Schema
from ...core.table import DENSE_FACTOR, DENSE_SLACK, combine_codes
from .hierarchies import HierarchyPlan, plan_hierarchy
from .profile import ColumnProfile

__all__ = ["GREEDY_ROUNDS", "HierarchyPlans", "KeyRanking", "hierarchy_levels", "rank_keys"]

#: Rounds of the greedy ranking; the candidates left after them (or once the key singles out
#: every record) are ranked in one round by what each adds to the key chosen so far.
GREEDY_ROUNDS = 30


@dataclass(frozen=True)
class KeyRanking:
    """The quasi-identifiers in the order of what they add to re-identification.

    Attributes
    ----------
    chosen : list of str
        In the order they were taken.
    nodes : int
        Size of the whole key's generalization lattice.
    levels : dict of str to int
        Per quasi-identifier, its hierarchy's number of levels.
    uniques : dict of str to int
        Per quasi-identifier, the sample uniques it added when taken (after the greedy
        rounds: what it adds to the key they chose).
    small : dict of str to int
        Likewise, the records in classes smaller than ``k`` it added (the first tie-break).
    """

    chosen: list[str]
    nodes: int
    levels: dict[str, int] = field(default_factory=dict)
    uniques: dict[str, int] = field(default_factory=dict)
    small: dict[str, int] = field(default_factory=dict)


class _Table:
    """The classes of the key chosen so far on the frequency table of the candidates' distinct
    combinations: the rows still in a class with other rows (``codes``, ``weights`` and each
    one's ``key``, its class ``0 .. classes - 1``), and the measures of the classes of one row,
    which no candidate splits (``settled``)."""

    def __init__(self, data: pd.DataFrame, candidates: Sequence[str], k: int) -> None:
        coded = [factorize(data[c]) for c in candidates]  # (a missing value: code 0)
        table = combine_codes(
            [np.add(codes, 1, dtype=np.int64) for codes, _ in coded],
            [len(uniques) + 1 for _, uniques in coded],
        )
        self.k = k
        self.codes = {c: table.combos[:, j].copy() for j, c in enumerate(candidates)}
        self.sizes = {
            c: len(uniques) + 1 for c, (_, uniques) in zip(candidates, coded, strict=True)
        }
        self.weights = table.counts if len(data) else np.zeros(0, dtype=np.int64)
        self.settled = (0, 0, 0)
        self.key = np.zeros(len(self.weights), dtype=np.int64)
        self.classes = 1
        self.take(self.key)

    def combined(self, candidate: str) -> tuple[np.ndarray, int]:
        """The rows' keys of the key so far and ``candidate``, and the size of their space."""
        size = self.sizes[candidate]
        return self.key * size + self.codes[candidate], self.classes * size

    def measure(self, key: np.ndarray, space: int) -> tuple[int, int, int]:
        """(sample uniques, records in classes below ``k``, classes) of the table whose rows
        not settled have the keys ``key`` (below ``space``)."""
        if space <= DENSE_FACTOR * len(key) + DENSE_SLACK:
            records = np.bincount(key, weights=self.weights, minlength=space)
            records = records[records > 0]
        else:
            records = np.bincount(factorize_keys(key)[0], weights=self.weights)
        return _add(self.settled, _sizes_measure(records.astype(np.int64), self.k))

    def take(self, key: np.ndarray) -> None:
        """Make ``key`` the rows' key: renumber it, and set aside its classes of one row."""
        ids, distinct = factorize_keys(key)
        rows = np.bincount(ids, minlength=len(distinct))
        alone = rows[ids] == 1
        self.settled = _add(self.settled, _sizes_measure(self.weights[alone], self.k))
        kept = rows > 1
        number = np.cumsum(kept) - 1
        stays = ~alone
        self.key = number[ids[stays]].astype(np.int64, copy=False)
        self.classes = int(kept.sum())
        self.weights = self.weights[stays]
        self.codes = {c: codes[stays] for c, codes in self.codes.items()}


def _sizes_measure(sizes: np.ndarray, k: int) -> tuple[int, int, int]:
    """(sample uniques, records in classes below ``k``, classes) of classes of ``sizes``."""
    return int((sizes == 1).sum()), int(sizes[sizes < k].sum()), len(sizes)


def _add(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def rank_keys(
    data: pd.DataFrame,
    candidates: Sequence[str],
    levels: Mapping[str, int],
    *,
    k: int = 5,
) -> KeyRanking:
    """Rank ``candidates`` greedily by the sample uniques they add (see the module docstring).

    Parameters
    ----------
    data : DataFrame
    candidates : sequence of str
        The proposed quasi-identifiers, in table order.
    levels : mapping of str to int
        Each candidate's number of generalization levels (its hierarchy's height plus one).
    k : int
        The proposed k-anonymity's k (for the tie-break).

    Returns
    -------
    KeyRanking
    """
    table = _Table(data, candidates, k)
    base = table.measure(table.key, table.classes)
    chosen: list[str] = []
    uniques: dict[str, int] = {}
    small: dict[str, int] = {}
    remaining = list(candidates)
    while remaining:
        greedy = len(chosen) < GREEDY_ROUNDS and base[0] < len(data)
        ranked = []
        for position, c in enumerate(remaining):
            combined, space = table.combined(c)
            measured = table.measure(combined, space)
            gain = tuple(m - b for m, b in zip(measured, base, strict=True))
            ranked.append(((*gain, -levels[c], -position), c, combined, measured))
        if not greedy:  # the rest by what each adds to the key so far, in one round
            for _, c, _, measured in sorted(ranked, key=lambda r: r[0], reverse=True):
                uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
                chosen.append(c)
            break
        _, c, key, measured = max(ranked, key=lambda r: r[0])
        uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
        table.take(key)
        base = measured
        chosen.append(c)
        remaining.remove(c)
    nodes = math.prod(levels[c] for c in chosen)
    return KeyRanking(chosen, nodes, dict(levels), uniques, small)


def hierarchy_levels(
    col: pd.Series, profile: ColumnProfile, plan: HierarchyPlan | None = None
) -> int:
    """Levels of the hierarchy init proposes for ``col`` as a quasi-identifier.

    Built from the data as ``anonymize`` builds it (inline builders resolved on the values);
    missing values of a column that is not numeric are the value ``?``, a leaf.

    Parameters
    ----------
    col : Series
    profile : ColumnProfile
    plan : HierarchyPlan, optional
        The column's plan made already (:class:`HierarchyPlans`), else planned here. Whether
        its missing values are a leaf, and the order of its values, change no level count.
    """
    if plan is None:
        plan = plan_hierarchy(
            col, profile, missing_leaf=profile.has_missing and profile.type != "numeric"
        )
    if plan.hierarchy is not None:
        return plan.hierarchy.n_levels
    entry: dict[str, Any] = {"role": "quasi", "hierarchy": plan.spec}
    if profile.type == "numeric":
        entry["kind"] = "numeric"  # (any other kind: the column's, an ordered one's order too)
    spec = {profile.name: entry}
    frame = col.to_frame(profile.name)
    return Schema.from_dict(spec).resolve(frame).hierarchy(profile.name).n_levels


class HierarchyPlans:
    """The hierarchies init proposes for one table's quasi-identifiers, each planned once: the
    plan the config is written with also gives the levels the key ranking counts.

    Parameters
    ----------
    data : DataFrame
        The table.
    profiles : sequence of ColumnProfile
        Those of ``data``'s columns.
    declared : mapping of str to sequence, optional
        The file's declared values by column
        (:func:`~microanon.apps.io.value_label_categories`), listed first in a flat hierarchy.
    orders : mapping of str to sequence, optional
        The orders of the file's ordered categorical columns
        (:func:`~microanon.apps.io.order_entries`): a balanced tree over each.
    """

    def __init__(
        self,
        data: pd.DataFrame,
        profiles: Sequence[ColumnProfile],
        declared: Mapping[str, Sequence[Any]] | None = None,
        orders: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        self._data = data
        self._profiles = {p.name: p for p in profiles}
        self._declared = dict(declared or {})
        self._orders = dict(orders or {})
        self._plans: dict[tuple[str, bool], HierarchyPlan] = {}

    def plan(self, column: str, missing_leaf: bool) -> HierarchyPlan:
        """:func:`~microanon.apps.init.hierarchies.plan_hierarchy` of ``column``, with its
        declared values, planned on the first call.

        Parameters
        ----------
        column : str
        missing_leaf : bool
            Whether the column's missing values are the value ``?`` (``missing: value``, as
            init proposes for a quasi-identifier with missing values).

        Returns
        -------
        HierarchyPlan
        """
        key = (column, missing_leaf)
        if key not in self._plans:
            self._plans[key] = plan_hierarchy(
                self._data[column],
                self._profiles[column],
                missing_leaf,
                declared=self._declared.get(column),
                order=self._orders.get(column),
            )
        return self._plans[key]

    def levels(self, col: pd.Series, profile: ColumnProfile) -> int:
        """:func:`hierarchy_levels` of a column of the table (a
        :data:`~microanon.apps.init.roles.Levels`), from the plan the config is written with:
        its missing values the value ``?`` where it has any.

        Parameters
        ----------
        col : Series
            The table's column ``profile.name``.
        profile : ColumnProfile

        Returns
        -------
        int
        """
        return hierarchy_levels(col, profile, self.plan(profile.name, profile.has_missing))
