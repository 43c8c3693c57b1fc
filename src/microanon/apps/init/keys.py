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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...core.schema import Schema
from .hierarchies import plan_hierarchy
from .profile import ColumnProfile

__all__ = ["GREEDY_ROUNDS", "KeyRanking", "hierarchy_levels", "rank_keys"]

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


def _codes(col: pd.Series) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    return codes.astype(np.int64), max(len(uniques), 1)


def _measure(key: np.ndarray, k: int) -> tuple[int, int, int]:
    """(sample uniques, records in classes below ``k``, classes) of the combination codes."""
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    sizes = counts[inverse]
    return int((sizes == 1).sum()), int((sizes < k).sum()), len(counts)


def _combine(key: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    """Codes of the combination of ``key`` and ``codes`` (re-numbered so they stay small)."""
    combined = key * n + codes
    return np.unique(combined, return_inverse=True)[1].astype(np.int64)


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
    codes = {c: _codes(data[c]) for c in candidates}
    key = np.zeros(len(data), dtype=np.int64)
    base = _measure(key, k)
    chosen: list[str] = []
    uniques: dict[str, int] = {}
    small: dict[str, int] = {}
    remaining = list(candidates)
    while remaining:
        greedy = len(chosen) < GREEDY_ROUNDS and base[0] < len(data)
        ranked = []
        for position, c in enumerate(remaining):
            combined = _combine(key, *codes[c])
            measured = _measure(combined, k)
            gain = tuple(m - b for m, b in zip(measured, base, strict=True))
            ranked.append(((*gain, -levels[c], -position), c, combined, measured))
        if not greedy:  # the rest by what each adds to the key so far, in one round
            for _, c, _, measured in sorted(ranked, key=lambda r: r[0], reverse=True):
                uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
                chosen.append(c)
            break
        _, c, key, measured = max(ranked, key=lambda r: r[0])
        uniques[c], small[c] = measured[0] - base[0], measured[1] - base[1]
        base = measured
        chosen.append(c)
        remaining.remove(c)
    nodes = math.prod(levels[c] for c in chosen)
    return KeyRanking(chosen, nodes, dict(levels), uniques, small)


def hierarchy_levels(col: pd.Series, profile: ColumnProfile) -> int:
    """Levels of the hierarchy init proposes for ``col`` as a quasi-identifier.

    Built from the data as ``anonymize`` builds it (inline builders resolved on the values);
    missing values of a column that is not numeric are the value ``?``, a leaf.
    """
    plan = plan_hierarchy(
        col, profile, missing_leaf=profile.has_missing and profile.type != "numeric"
    )
    if plan.hierarchy is not None:
        return plan.hierarchy.n_levels
    kind = "numeric" if profile.type == "numeric" else "categorical"
    spec = {profile.name: {"role": "quasi", "kind": kind, "hierarchy": plan.spec}}
    frame = col.to_frame(profile.name)
    return Schema.from_dict(spec).resolve(frame).hierarchy(profile.name).n_levels
