"""Which quasi-identifiers ``microanon init`` proposes: the key the exact search can handle.

``full_domain`` searches the lattice of every combination of generalization levels, whose size
is the product of the quasi-identifiers' numbers of levels; it refuses a lattice above
:data:`~microanon.methods.generalize._lattice.MAX_NODES` nodes. Twenty survey items with a
handful of levels each are far above it. So the candidates are ranked by what they add to
re-identification and taken greedily while the lattice stays within the limit:

1. each round, every candidate that still fits is added in turn to the key chosen so far, and
   the one that adds the most **sample uniques** (records whose combination of key values no
   other record has; a missing value is a value of its own) is taken; ties go to the one that
   adds the most records in classes smaller than ``k``, then the most classes, then the
   fewest levels, then the first in the table;
2. candidates that no longer fit are left out, each with the reason: the lattice it would make
   and the sample uniques it would add.

A quasi-identifier left out is dropped from the release by :func:`choose_keys`'s caller: an
attacker who knows it could link on it if it were published unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...core.schema import Schema
from ...methods.generalize._lattice import MAX_NODES
from .hierarchies import plan_hierarchy
from .profile import ColumnProfile

__all__ = ["KeyChoice", "choose_keys", "hierarchy_levels"]


@dataclass(frozen=True)
class KeyChoice:
    """The quasi-identifiers chosen and those left out.

    Attributes
    ----------
    chosen : list of str
        In the order they were taken.
    nodes : int
        Size of the chosen key's generalization lattice.
    levels : dict of str to int
        Per candidate, its hierarchy's number of levels.
    uniques : dict of str to int
        Per candidate, the sample uniques it added when taken (chosen) or would have added to
        the whole chosen key (left out).
    left_out : dict of str to str
        Per candidate left out, the reason.
    """

    chosen: list[str]
    nodes: int
    levels: dict[str, int] = field(default_factory=dict)
    uniques: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)


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


def choose_keys(
    data: pd.DataFrame,
    candidates: Sequence[str],
    levels: Mapping[str, int],
    *,
    k: int = 5,
    limit: int = MAX_NODES,
) -> KeyChoice:
    """Rank ``candidates`` greedily by the sample uniques they add; keep the lattice in ``limit``.

    Parameters
    ----------
    data : DataFrame
    candidates : sequence of str
        The proposed quasi-identifiers, in table order.
    levels : mapping of str to int
        Each candidate's number of generalization levels (its hierarchy's height plus one).
    k : int
        The proposed k-anonymity's k (for the tie-break).
    limit : int
        Most lattice nodes the search handles.

    Returns
    -------
    KeyChoice
    """
    codes = {c: _codes(data[c]) for c in candidates}
    key = np.zeros(len(data), dtype=np.int64)
    base = _measure(key, k)
    nodes = 1
    chosen: list[str] = []
    uniques: dict[str, int] = {}
    remaining = list(candidates)
    while True:
        fits = [c for c in remaining if nodes * levels[c] <= limit]
        if not fits:
            break
        best = None
        for position, c in enumerate(fits):
            combined = _combine(key, *codes[c])
            measured = _measure(combined, k)
            gain = tuple(m - b for m, b in zip(measured, base, strict=True))
            rank = (*gain, -levels[c], -position)
            if best is None or rank > best[0]:
                best = (rank, c, combined, measured)
        assert best is not None
        _, c, key, measured = best
        uniques[c] = measured[0] - base[0]
        base = measured
        nodes *= levels[c]
        chosen.append(c)
        remaining.remove(c)
    left_out = {}
    for c in remaining:
        added = _measure(_combine(key, *codes[c]), k)[0] - base[0]
        uniques[c] = added
        left_out[c] = (
            f"left out of the key: the exact search handles lattices of up to {limit:,} nodes, "
            f"the {len(chosen)} quasi-identifiers chosen ({', '.join(chosen)}) make "
            f"{nodes:,} and its {levels[c]} levels would make {nodes * levels[c]:,}; chosen "
            f"before it: the columns that add the most sample uniques (it would add {added:,}). "
            "Dropped from the release, since an attacker who knows it could link on it; make it "
            "quasi in place of another, or use mondrian (no lattice)"
        )
    return KeyChoice(chosen, nodes, dict(levels), uniques, left_out)


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
