"""Grouping of the SAC records with an index for first fit.

Algorithm 11 of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731.

Algorithm 11: while SAC is not empty, a group starts with the first remaining SAC record (table
order); it is filled up to ``l`` records with the first SAC record *compatible* with it, else the
first compatible IR record (compatible: a value different from every group member's on every
sensitive attribute). A group that cannot be completed is abandoned: its SAC records are deleted,
the IR records it borrowed go back to IR (the paper leaves this case open; deleting is our reading).

Read literally, every pick scans the remaining records from the front: O(n) per pick and O(n²) in
all once the front of SAC is full of records sharing a frequent value. The first-fit answer is the
record of lowest *rank* (SAC records in table order, then IR records in table order) that is
still available and compatible. Records with the same vector of sensitive values are either all
compatible with a group or all incompatible, and are taken in rank order, so the answer is the
first available record of one *combination* of values. SAC and IR each get a trie over their
combinations: level ``t`` holds the distinct prefixes of length ``t`` (attributes ordered by
decreasing collision probability ``Σ p(v)²`` in the pool, so that the values that block most
records are cut off first), and every node keeps the lowest available rank below it. A query
walks down the trie in order of those ranks, skipping every child whose value a group member
already holds or whose lowest rank is not below the best answer found so far, and stopping at a
node whose first available record is itself compatible. Every node also counts, for every deeper
level, how many of its available records hold each value: when all of them hold one of the
group's values on one level (the usual end of SAC: a few frequent values left), the node is
skipped without a descent. Taking a record advances its combination's pointer and updates the
minima and counts on its path; a borrowed record that goes back moves the pointer back (records
return in reverse order of taking). Before the trie, a pick checks the first few available
records directly, where the answer usually is. Within a group the blocked values only grow and
the pools only shrink, so a pool without a compatible record is not asked again for that group;
and once some attribute has fewer than ``l`` values left among the available records, this group
and every later one fail, so the remaining SAC records are deleted at once.

The result is exactly that of the literal algorithm (the tests compare both on random tables).
The cost of a pick depends on the number of trie nodes visited, not on the number of records
skipped, so the whole grouping grows linearly with the number of records for a fixed domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.table import combine_codes

__all__ = ["Grouping", "group_records"]

#: Available ranks checked directly before the trie is asked.
_WINDOW = 8


@dataclass(frozen=True)
class Grouping:
    """Result of Algorithm 11.

    Attributes
    ----------
    groups : (g, l) int64 array
        Record positions (rows of the input) of every group, in the order groups were emitted;
        within a group, in the order records joined it.
    deleted : int64 array
        Positions of the SAC records deleted with abandoned groups, ascending.
    cause : int64 array
        Why each deleted record's group was abandoned, aligned with ``deleted``: the index of
        the first sensitive attribute whose available records (neither grouped nor in the
        group) offered fewer new values than the group still needed records, or ``-1`` when
        every attribute offered enough but no single record avoided all of the group's values
        (a combination conflict).
    """

    groups: np.ndarray
    deleted: np.ndarray
    cause: np.ndarray


class _Trie:
    """Combinations of sensitive values in a trie whose nodes know their lowest available rank
    and, for every deeper level, how many available records below them hold each value."""

    def __init__(self, codes: np.ndarray, cardinalities: list[int]) -> None:
        n, d = codes.shape
        self.d = d
        self.inf = n
        self.cards = [1, *cardinalities]  # per level (level 0: the root)
        comb = combine_codes([codes[:, j] for j in range(d)], cardinalities)
        combos = comb.combos
        self.combo_of = comb.inverse  # rank -> combination
        by_combo = np.argsort(comb.inverse, kind="stable")  # ranks grouped by combination
        self.ranks = by_combo.tolist()
        ends = np.cumsum(comb.counts)
        self.ptr = (ends - comb.counts).tolist()
        self.end = ends.tolist()
        # Levels 0 (root) .. d (combinations): value, child range and lowest available rank.
        node_of = [np.zeros(len(combos), np.int64)]
        for t in range(1, d + 1):
            change = np.ones(len(combos), dtype=bool)
            change[1:] = np.any(combos[1:, :t] != combos[:-1, :t], axis=1)
            node_of.append(np.cumsum(change) - 1)
        self.value: list[np.ndarray] = [np.zeros(1, np.int64)]
        self.parent: list[list[int]] = [[]]
        self.child_lo: list[list[int]] = []
        self.child_hi: list[list[int]] = []
        for t in range(1, d + 1):
            first = np.flatnonzero(np.r_[True, node_of[t][1:] != node_of[t][:-1]])
            self.value.append(combos[first, t - 1].astype(np.int64))
            parents = node_of[t - 1][first]
            self.parent.append(parents.tolist())
            n_parents = len(self.value[t - 1])
            self.child_lo.append(np.searchsorted(parents, np.arange(n_parents)).tolist())
            self.child_hi.append(
                np.searchsorted(parents, np.arange(n_parents), side="right").tolist()
            )
        heads = [np.zeros(0, np.int64)] * (d + 1)
        heads[d] = by_combo[ends - comb.counts].astype(np.int64)
        for t in range(d - 1, -1, -1):  # every node has a child: minimum over each child range
            heads[t] = np.minimum.reduceat(heads[t + 1], self.child_lo[t])
        # Python lists: a take updates a few entries and the minimum of a few children, each
        # far cheaper on a list than on an array (the search takes a level's range as an array)
        self.minhead: list[list[int]] = [h.tolist() for h in heads]
        # Available records below every inner node, and per deeper level and value (sparse).
        self.combo_values = [[0, *row] for row in combos.tolist()]  # value per level
        self.ancestor = [a.tolist() for a in node_of]
        self.available = [
            np.bincount(node_of[t], weights=comb.counts).astype(np.int64).tolist() for t in range(d)
        ]
        self.count: list[list[dict[int, int]]] = []
        for t in range(d):
            per_level: list[dict[int, int]] = [{} for _ in range(t + 1)]
            for u in range(t + 1, d + 1):
                keys, inverse = np.unique(
                    node_of[t] * self.cards[u] + combos[:, u - 1], return_inverse=True
                )
                weights = np.bincount(inverse.reshape(-1), weights=comb.counts).astype(np.int64)
                per_level.append(dict(zip(keys.tolist(), weights.tolist(), strict=True)))
            self.count.append(per_level)

    @property
    def first(self) -> int:
        """Lowest available rank (``n`` when none is left)."""
        return self.minhead[0][0]

    def _recount(self, combo: int, step: int) -> None:
        values = self.combo_values[combo]
        for t in range(self.d):
            node = self.ancestor[t][combo]
            self.available[t][node] += step
            count = self.count[t]
            for u in range(t + 1, self.d + 1):
                count[u][node * self.cards[u] + values[u]] += step

    def take(self, combo: int) -> None:
        """Remove the first available record of a combination."""
        self._recount(combo, -1)
        p = self.ptr[combo] + 1
        self.ptr[combo] = p
        new = self.ranks[p] if p < self.end[combo] else self.inf
        old = self.minhead[self.d][combo]
        self.minhead[self.d][combo] = new
        node = combo
        for t in range(self.d - 1, -1, -1):
            node = self.parent[t + 1][node]
            level = self.minhead[t]
            if level[node] != old:
                return
            level[node] = min(self.minhead[t + 1][self.child_lo[t][node] : self.child_hi[t][node]])

    def give_back(self, combo: int) -> None:
        """Make the last record taken from a combination available again."""
        self._recount(combo, 1)
        p = self.ptr[combo] - 1
        self.ptr[combo] = p
        new = self.ranks[p]
        self.minhead[self.d][combo] = new
        node = combo
        for t in range(self.d - 1, -1, -1):
            node = self.parent[t + 1][node]
            if self.minhead[t][node] <= new:
                return
            self.minhead[t][node] = new

    def dead(self, t: int, node: int, held: list[list[int]]) -> bool:
        """Whether every available record below a node holds a value of ``held`` (per level)
        on one deeper level — then none of them is compatible."""
        total = self.available[t][node]
        count = self.count[t]
        for u in range(t + 1, self.d + 1):
            values = held[u]
            if values:
                base = node * self.cards[u]
                per_value = count[u]
                holding = 0
                for v in values:
                    holding += per_value.get(base + v, 0)
                if holding == total:
                    return True
        return False

    def search(
        self, blocked: list[np.ndarray], held: list[list[int]], fits: Callable[[int], bool]
    ) -> int:
        """Lowest available rank whose values avoid the group's (per trie level: ``blocked``
        as masks, ``held`` as lists).

        ``fits(rank)`` tells whether a record is compatible; a subtree whose first available
        record fits needs no descent. Returns ``n`` when no record is compatible.
        """
        if self.dead(0, 0, held):
            return self.inf
        return self._search(1, 0, len(self.value[1]), self.inf, blocked, held, fits)

    def _search(
        self,
        t: int,
        lo: int,
        hi: int,
        best: int,
        blocked: list[np.ndarray],
        held: list[list[int]],
        fits: Callable[[int], bool],
    ) -> int:
        heads = np.asarray(self.minhead[t][lo:hi], dtype=np.int64)
        ok = (heads < best) & ~blocked[t][self.value[t][lo:hi]]
        if t == self.d:
            return int(heads[ok].min()) if ok.any() else best
        idx = ok.nonzero()[0]
        if len(idx) > 1:
            idx = idx[np.argsort(heads[idx])]  # heads are distinct ranks
        for i in idx.tolist():
            head = int(heads[i])
            if head >= best:
                break
            if fits(head):  # the subtree's first record is the subtree's answer
                return head
            node = lo + i
            if self.dead(t, node, held):
                continue
            best = self._search(
                t + 1, self.child_lo[t][node], self.child_hi[t][node], best, blocked, held, fits
            )
        return best


class _Pool:
    """SAC or IR: its records in rank order and a trie over them.

    The trie's levels are the attributes in decreasing order of their collision probability
    ``Σ p(v)²`` in the pool, so that the values that block most records are cut off first.
    ``blocked`` and ``held`` (per attribute: the values of the group being built, as masks and
    as lists; shared with the caller and updated in place) say what the group holds.
    """

    def __init__(
        self,
        codes: np.ndarray,
        cardinalities: list[int],
        blocked: list[np.ndarray],
        held: list[list[int]],
    ) -> None:
        self.size = len(codes)
        self.alive = bytearray(b"\x01") * self.size
        counts = [np.bincount(codes[:, j], minlength=c) for j, c in enumerate(cardinalities)]
        collision = [float(np.sum(c.astype(float) ** 2)) for c in counts]
        perm = sorted(range(len(cardinalities)), key=lambda j: (-collision[j], j))
        self.trie = _Trie(codes[:, perm], [cardinalities[j] for j in perm]) if self.size else None
        self.level_blocked = [np.zeros(1, dtype=bool)] + [blocked[j] for j in perm]
        self.level_held: list[list[int]] = [[]] + [held[j] for j in perm]

    @property
    def first(self) -> int:
        """Lowest available position (``size`` when none is left)."""
        return self.trie.first if self.size else 0

    def take(self, i: int) -> None:
        self.trie.take(int(self.trie.combo_of[i]))
        self.alive[i] = 0

    def give_back(self, i: int) -> None:
        self.trie.give_back(int(self.trie.combo_of[i]))
        self.alive[i] = 1

    def find(self, fits: Callable[[int], bool]) -> int:
        """First available record compatible with the group (``-1`` if none); ``fits(i)``:
        whether record ``i`` is compatible."""
        start = self.first
        if start >= self.size:
            return -1
        for i in range(start, min(start + _WINDOW, self.size)):
            if self.alive[i] and fits(i):
                return i
        i = self.trie.search(self.level_blocked, self.level_held, fits)
        return i if i < self.size else -1


def group_records(codes: np.ndarray, sac: np.ndarray, l: int) -> Grouping:  # noqa: E741
    """Algorithm 11: groups of ``l`` SAC records (completed from IR when needed), first fit.

    Parameters
    ----------
    codes : (n, d) int array
        Sensitive-value codes of every record (codes ``0..max``).
    sac : (n,) bool array
        Membership of SAC; the other records are IR.
    l : int
        Group size (``>= 2``).

    Returns
    -------
    Grouping
        Exactly the groups and deletions of the literal first-fit algorithm.
    """
    codes = np.asarray(codes, dtype=np.int64)
    sac = np.asarray(sac, dtype=bool)
    n, d = codes.shape
    sac_rows, ir_rows = np.flatnonzero(sac), np.flatnonzero(~sac)
    none = np.zeros((0, l), np.int64)
    if not len(sac_rows):
        return Grouping(none, np.zeros(0, np.int64), np.zeros(0, np.int64))
    cards = (codes.max(axis=0) + 1).tolist()
    # Available records per value (both pools) and values still available per attribute: a group
    # needs l of them on every attribute, and availability only shrinks.
    left = [np.bincount(codes[:, j], minlength=c).tolist() for j, c in enumerate(cards)]
    distinct = [sum(1 for c in counts if c) for counts in left]
    blocked = [np.zeros(c, dtype=bool) for c in cards]
    held: list[list[int]] = [[] for _ in range(d)]
    pools_rows = (sac_rows, ir_rows)
    pools = [_Pool(codes[rows], cards, blocked, held) for rows in pools_rows]
    rows_of = [sac_rows.tolist(), ir_rows.tolist()]
    # Per pool: each record's combination of values, and per combination its values and the
    # set of its (attribute offset + code) ids, for the compatibility test (a Python list per
    # combination, not per record).
    combined = [combine_codes([codes[rows, j] for j in range(d)], cards) for rows in pools_rows]
    combo_of = [c.inverse.tolist() for c in combined]
    pool_values = [c.combos.tolist() for c in combined]
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]]).astype(np.int64)
    ids = [(c.combos + offsets).tolist() for c in combined]
    held_ids: set[int] = set()
    fits = [
        lambda i, ids=ids_, of=of_: held_ids.isdisjoint(ids[of[i]])
        for ids_, of_ in zip(ids, combo_of, strict=True)
    ]

    def join(pool: int, i: int) -> None:
        pools[pool].take(i)
        combo = combo_of[pool][i]
        held_ids.update(ids[pool][combo])
        for j, v in enumerate(pool_values[pool][combo]):
            if not blocked[j][v]:
                blocked[j][v] = True
                held[j].append(v)
            left[j][v] -= 1
            if not left[j][v]:
                distinct[j] -= 1

    def give_back(i: int) -> None:
        pools[1].give_back(i)
        for j, v in enumerate(pool_values[1][combo_of[1][i]]):
            if not left[j][v]:
                distinct[j] += 1
            left[j][v] += 1

    def cause(missing: int) -> int:
        """First attribute offering fewer than ``missing`` values new to the group, else -1."""
        for j in range(d):
            new = distinct[j] - sum(1 for v in held[j] if left[j][v])
            if new < missing:
                return j
        return -1

    groups: list[list[int]] = []
    deleted: list[int] = []
    causes: list[int] = []
    sac_pool = pools[0]
    while sac_pool.first < sac_pool.size:
        if min(distinct) < l:  # this group and every later one fail: the rest is deleted
            rest = [
                rows_of[0][i] for i in range(sac_pool.first, sac_pool.size) if sac_pool.alive[i]
            ]
            deleted += rest
            causes += [cause(l)] * len(rest)
            break
        members = [(0, sac_pool.first)]
        join(0, sac_pool.first)
        # Within a group the blocked values only grow and the pools only shrink: a pool that
        # had no compatible record has none for the rest of the group.
        p = 0
        while len(members) < l and p < 2:
            i = pools[p].find(fits[p])
            if i < 0:
                p += 1
            else:
                members.append((p, i))
                join(p, i)
        why = cause(l - len(members)) if len(members) < l else -1
        for j, values in enumerate(held):
            blocked[j][values] = False
            values.clear()
        held_ids.clear()
        if len(members) == l:
            groups.append([rows_of[p][i] for p, i in members])
            continue
        for p, i in reversed(members):
            if p:
                give_back(i)
            else:
                deleted.append(rows_of[0][i])
                causes.append(why)
    order = np.argsort(np.asarray(deleted, dtype=np.int64), kind="stable")
    return Grouping(
        np.asarray(groups, dtype=np.int64).reshape(-1, l),
        np.asarray(deleted, dtype=np.int64)[order],
        np.asarray(causes, dtype=np.int64)[order],
    )
