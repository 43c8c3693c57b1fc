"""What the collector can verify about a submitted tuple without seeing its respondent.

A respondent submits ``t ⪰ o`` and the server never sees ``o``. Whether ``t`` protects ``o``
(Definition 1: ``Pv(o, G ∪ {t}) ≥ τ``) still depends on ``o`` in a way the server can bound:

* ``o[SA]`` does not enter ``Pv`` at all (the attack estimates it);
* for every ``g ⪰ o`` in the quasi-identifiers, ``φ_QI(o, g) = K(o) · D(g)`` with
  ``K(o) = Π_A l(o[A])`` and ``D(g) = Π_A 1 / l(g[A])``, so every term of ``f̂`` and ``f̂_a``
  carries the same factor ``K(o) > 0``, which cancels in ``Pr[a | o[QI], G ∪ {t}]``.

So ``Pv(o, G ∪ {t})`` depends on ``o`` only through its anonymous group
``{g ∈ G : g[QI] ⪰ o[QI]}``. The base tuples that ``t`` generalizes fall into *cells* with one
group each: every collected tuple comparable with ``t`` in all quasi-identifiers (the only ones
that can be in such a group) either covers ``t``'s whole quasi-identifier box or cuts it; the
cuts are the leaves under ``t[A]`` that a collected value strictly below ``t[A]`` covers.

* When ``t[QI]`` holds leaves only, there is one cell: the respondent's group, hence their
  ``Pv``, is known exactly, whatever ``t[SA]`` is.
* Otherwise the respondent is in one of the cells, and the server cannot tell which. ``t``
  certainly fails its respondent exactly when it protects **no** base tuple it generalizes, i.e.
  when ``Pv < τ`` in every cell. If some cell reaches ``τ``, the respondent may be in it (an
  honest client's respondent always is), so nothing stronger can be refused without refusing
  honest submissions.

:func:`check_submission` decides this exactly (rational arithmetic, as GTR's exact decisions),
enumerating the distinct groups depth first, sharing prefixes, and stopping at the first cell
that is protected. Tuples below ``t`` that cut its box into very many distinct groups could make
the enumeration long; past ``limit`` states the check answers ``None`` (undecided).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...core.errors import InputError
from .attack import _check_survey, as_collected, as_tau
from .compress import CollectedSet
from .taxonomy import Survey

__all__ = ["CELL_LIMIT", "SubmissionCheck", "check_submission", "check_submission_codes"]

#: States (partial cells) :func:`check_submission` visits at most before answering undecided.
CELL_LIMIT = 20_000

Tuple = Sequence[Any] | Mapping[str, Any]


@dataclass(frozen=True)
class SubmissionCheck:
    """What the collector can tell about a submitted tuple ``t`` against the set ``G``.

    Attributes
    ----------
    protects : bool or None
        True: ``t`` protects at least one base tuple it generalizes (its respondent may be one);
        False: it protects none, so it does not protect its respondent; None: undecided (the
        enumeration exceeded its limit).
    pv : Fraction or None
        When ``protects`` is False, the highest ``Pv(o, G ∪ {t})`` over every base tuple
        ``o ⪯ t`` (below τ); when True, ``Pv`` in the first protected cell found (at least τ);
        None when undecided. With leaf quasi-identifiers it is the respondent's ``Pv`` exactly.
    tau : Fraction
        The threshold the check used.
    cells : int
        Number of distinct anonymous groups evaluated.
    exact_cell : bool
        Whether ``t[QI]`` holds leaves only, so that the respondent's group is known exactly.
    """

    protects: bool | None
    pv: Fraction | None
    tau: Fraction
    cells: int
    exact_cell: bool


def check_submission(
    t: Tuple,
    collected: CollectedSet | Iterable[Tuple],
    survey: Survey,
    tau: Any,
    *,
    limit: int = CELL_LIMIT,
) -> SubmissionCheck:
    """Whether the submitted tuple ``t`` (labels) protects some base tuple it generalizes.

    Parameters
    ----------
    t : sequence or mapping
        The submitted (generalized) tuple, as labels.
    collected : CollectedSet or iterable of tuples
        The collected multiset ``G`` before ``t`` is added.
    survey : Survey
    tau : number
        The privacy threshold in (0, 1] (a float is read as its decimal).
    limit : int, default :data:`CELL_LIMIT`
        Most states to visit before answering undecided.

    Returns
    -------
    SubmissionCheck
        ``protects`` is False exactly when ``Pv(o, G ∪ {t}) < τ`` for every base tuple
        ``o ⪯ t``.

    Examples
    --------
    >>> from microanon.core import Hierarchy
    >>> age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"]}})
    >>> dis = Hierarchy.from_nested({"AnyD": {"Resp": ["Flu", "Cold"]}})
    >>> s = Survey({"age": age, "dis": dis}, ["age"], "dis")
    >>> check_submission(["25-29", "Flu"], [], s, 0.5).pv      # a raw tuple: Pv = 0
    Fraction(0, 1)
    >>> check_submission(["25-29", "Resp"], [], s, 0.5).protects
    True
    """
    _check_survey(survey)
    codes = survey.encode(t, "submitted tuple")
    return check_submission_codes(codes, collected, survey, tau, limit=limit)


def check_submission_codes(
    codes: Sequence[int] | np.ndarray,
    collected: CollectedSet | Iterable[Tuple],
    survey: Survey,
    tau: Any,
    *,
    limit: int = CELL_LIMIT,
) -> SubmissionCheck:
    """:func:`check_submission` for a tuple given by codes (what the server holds)."""
    _check_survey(survey)
    tau = as_tau(tau)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InputError(f"limit must be a positive integer, got {limit!r}")
    g = as_collected(collected, survey)
    tc = survey.check_codes(np.asarray(codes), "submitted tuple")
    if tc.shape[0] != 1:
        raise InputError("check_submission takes one tuple")
    return _Cells(survey, g, tc[0], tau).search(limit)


class _Cells:
    """The cells of ``t``'s quasi-identifier box and their groups, scaled by ``1 / K(o)``."""

    def __init__(self, survey: Survey, g: CollectedSet, t: np.ndarray, tau: Fraction) -> None:
        self.survey, self.tau = survey, tau
        qtx = survey.quasi_taxonomies
        cols, counts = g.columns, g.counts
        n = len(counts)
        covers = np.ones(n, dtype=bool)  # g[A] ⪰ t[A] for every A (in every group)
        relevant = np.ones(n, dtype=bool)  # comparable with t in every A (in some group)
        self.up: list[np.ndarray] = []
        for j, tx in enumerate(qtx):
            lo, hi = tx.lo[cols[j]], tx.hi[cols[j]]
            t_lo, t_hi = tx.lo[t[j]], tx.hi[t[j]]
            up = (lo <= t_lo) & (t_hi <= hi)
            down = (t_lo <= lo) & (hi <= t_hi)
            covers &= up
            relevant &= up | down
            self.up.append(up)
        self.exact_cell = all(bool(tx.is_leaf[t[j]]) for j, tx in enumerate(qtx))
        # Exact 1 / Π_A l(g[A]) per (weight classes, SA node) key, as RespondentSums.exact.
        key = np.vstack([tx.weight_class[cols[j]] for j, tx in enumerate(qtx)] + [cols[-1]])
        keys, inverse = np.unique(key[:, relevant], axis=1, return_inverse=True)
        key_of = np.full(n, -1, dtype=np.int64)
        key_of[relevant] = inverse.ravel()
        self.key_node = [int(s) for s in keys[-1]]
        self.key_value = [
            1 / _prod(qtx[j].class_weight_exact[int(keys[j, k])] for j in range(len(qtx)))
            for k in range(keys.shape[1])
        ]
        base: dict[int, Fraction] = {}
        self._add(base, key_of[covers], counts[covers])
        t_value = 1 / _prod(tx.weight_exact[int(t[j])] for j, tx in enumerate(qtx))
        sa_t = int(t[-1])
        base[sa_t] = base.get(sa_t, Fraction(0)) + t_value
        self.base = base
        # Tuples that cut the box: in some group, not in all.
        part = np.flatnonzero(relevant & ~covers)
        self.part_key, self.part_count = key_of[part], counts[part]
        self.n_part = len(part)
        self.splits: list[list[int]] = []  # per splitting attribute, its class masks
        for j, tx in enumerate(qtx):
            below = part[~self.up[j][part]]
            if len(below) == 0:
                continue
            lo, hi = tx.lo[cols[j][part]], tx.hi[cols[j][part]]
            up = self.up[j][part]
            t_lo, t_hi = int(tx.lo[t[j]]), int(tx.hi[t[j]])
            cuts = np.unique(np.concatenate([[t_lo], tx.lo[cols[j][below]], tx.hi[cols[j][below]]]))
            leaves = cuts[(cuts >= t_lo) & (cuts < t_hi)]  # one leaf per constant segment
            masks = {_bits(up | ((lo <= i) & (i < hi))) for i in leaves.tolist()}
            self.splits.append(sorted(masks))
        self.splits.sort(key=len)

    @staticmethod
    def _add_to(out: dict[int, Fraction], node: int, value: Fraction) -> None:
        out[node] = out.get(node, Fraction(0)) + value

    def _add(self, out: dict[int, Fraction], key_of: np.ndarray, counts: np.ndarray) -> None:
        if len(key_of) == 0:
            return
        sums = np.zeros(len(self.key_value), dtype=np.int64)
        np.add.at(sums, key_of, counts)
        for k in np.flatnonzero(sums).tolist():
            self._add_to(out, self.key_node[k], int(sums[k]) * self.key_value[k])

    def pv(self, state: int) -> Fraction:
        """``Pv`` of the cell whose cutting tuples in the group are the bits of ``state``."""
        by_node = dict(self.base)
        if state:
            alive = _unbits(state, self.n_part)
            self._add(by_node, self.part_key[alive], self.part_count[alive])
        share = self.survey.sa_share_exact
        total = sum(by_node.values(), Fraction(0))
        joint = [Fraction(0)] * self.survey.sa.n_leaves
        for s, f in by_node.items():
            for a, x in enumerate(share[s]):
                if x:
                    joint[a] += f * x
        return 1 - max(joint) / total

    def search(self, limit: int) -> SubmissionCheck:
        depth = len(self.splits)
        full = (1 << self.n_part) - 1
        seen = {(0, full)}
        stack = [(0, full)]
        best: Fraction | None = None
        cells = 0
        while stack:
            level, state = stack.pop()
            if level == depth:
                cells += 1
                value = self.pv(state)
                if value >= self.tau:
                    return SubmissionCheck(True, value, self.tau, cells, self.exact_cell)
                best = value if best is None or value > best else best
                continue
            for mask in self.splits[level]:
                child = state & mask
                node = (depth if child == 0 else level + 1, child)
                if node in seen:
                    continue
                if len(seen) >= limit:
                    return SubmissionCheck(None, None, self.tau, cells, self.exact_cell)
                seen.add(node)
                stack.append(node)
        assert best is not None  # the box holds at least one cell
        return SubmissionCheck(False, best, self.tau, cells, self.exact_cell)


def _prod(values: Iterable[Fraction]) -> Fraction:
    out = Fraction(1)
    for v in values:
        out *= v
    return out


def _bits(mask: np.ndarray) -> int:
    """A boolean array as a Python integer (element ``i`` is bit ``i``)."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def _unbits(state: int, n: int) -> np.ndarray:
    """Inverse of :func:`_bits` for ``n`` elements."""
    raw = state.to_bytes((n + 7) // 8, "little")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=n, bitorder="little").astype(
        bool
    )
