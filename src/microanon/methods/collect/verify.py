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

:func:`check_submission` decides this exactly. It walks the distinct groups depth first, one
cutting attribute at a time, sharing prefixes; it stops at the first protected cell, and skips
a subtree in which some sensitive value stays over-linked however the undecided cuts fall. As in
GTR, a cell is decided in float64 when it clears a rigorous bound on the rounding error and in
rational arithmetic otherwise, so the answer is that of exact arithmetic. Only the relevant pairs
of the set are touched: for a tuple of leaves, those that generalize it. Collected tuples that
cut ``t``'s box into very many distinct groups could make the walk long; past ``limit`` states
the check answers ``None`` (undecided).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...core.errors import InputError
from .attack import UNIT, _check_survey, as_collected, as_tau
from .compress import CollectedSet
from .taxonomy import Survey

__all__ = [
    "CELL_LIMIT",
    "NAME_LIMIT",
    "SubmissionCheck",
    "check_submission",
    "check_submission_codes",
]

CELL_LIMIT = 10_000
"""States (partial cells) :func:`check_submission` visits at most before answering undecided."""
#: States visited at most to name the highest ``Pv`` of a refused tuple when the decision ruled
#: some cells out unseen (past it, :attr:`SubmissionCheck.pv` is None).
NAME_LIMIT = 1_000

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
        ``o ⪯ t`` (below τ), exactly; with leaf quasi-identifiers it is the respondent's own
        ``Pv``. None otherwise (the search stops at the first protected cell), and None for a
        refusal whose cells are too many to evaluate one by one (:data:`NAME_LIMIT`).
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
    >>> check_submission(["25-29", "Resp"], [], s, 0.5).protects       # Pv = 1/2 = τ
    True
    >>> check_submission(["Any", "Flu"], [["25-29", "Resp"]], s, 0.5).pv   # best cell: 25-29
    Fraction(1, 3)
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
    """The cells of ``t``'s quasi-identifier box and their groups, scaled by ``1 / K(o)``.

    Every collected pair comparable with ``t`` in all quasi-identifiers is *relevant*; it is
    *common* (in every cell's group) when it covers ``t[QI]`` and *cutting* otherwise. A cell is
    evaluated in float64 with the error bound of :class:`~.attack.RespondentSums` and, when the
    float cannot decide, in exact rational arithmetic, as GTR does.
    """

    def __init__(self, survey: Survey, g: CollectedSet, t: np.ndarray, tau: Fraction) -> None:
        self.survey, self.tau, self.t = survey, tau, t
        self.omt = 1 - tau
        qtx = survey.quasi_taxonomies
        cols, counts = g.columns, g.counts
        # Relevant pairs, narrowed attribute by attribute (the first test does most of the work).
        idx = np.arange(len(counts))
        ups: list[np.ndarray] = []
        for j, tx in enumerate(qtx):
            c = cols[j] if j == 0 else cols[j, idx]
            lo, hi = tx.lo[c], tx.hi[c]
            t_lo, t_hi = tx.lo[t[j]], tx.hi[t[j]]
            up = (lo <= t_lo) & (t_hi <= hi)
            keep = up | ((t_lo <= lo) & (hi <= t_hi))
            idx = idx[keep]
            ups = [u[keep] for u in ups]
            ups.append(up[keep])
        self.codes = cols[:, idx]
        self.counts = counts[idx]
        self.sa = self.codes[-1]
        covers = np.logical_and.reduce(ups)
        self.common = np.flatnonzero(covers)
        self.part = np.flatnonzero(~covers)
        self.exact_cell = all(bool(tx.is_leaf[t[j]]) for j, tx in enumerate(qtx))
        # Float terms count · Π_A l(r_A) / l(g[A]) (φ_QI with l(r_A) for the respondent's
        # factor: the same for every term, so Pv is unchanged, and every factor is ≥ 1 and at
        # most 1/φ_QI's smallest value, which Survey keeps within float64).
        denom = np.ones(len(idx))
        for j, tx in enumerate(qtx):
            denom *= tx.weight[self.codes[j]] / tx.weight[0]
        self.term = self.counts / denom
        t_term = 1.0 / float(np.prod([tx.weight[t[j]] / tx.weight[0] for j, tx in enumerate(qtx)]))
        n_sa = survey.sa.n_nodes
        self.base = np.bincount(
            self.sa[self.common], weights=self.term[self.common], minlength=n_sa
        ).astype(float)  # (an empty bincount is integer)
        self.base[int(t[-1])] += t_term
        self.fixed = len(self.common) + 1 + 2 * len(qtx) + n_sa + survey.sa.n_leaves + 16
        self._keys: tuple[np.ndarray, list[Fraction], list[int]] | None = None
        # Per splitting attribute, the masks (over the cutting pairs) of its classes of leaves.
        self.splits: list[list[int]] = []
        for j, tx in enumerate(qtx):
            up = ups[j][self.part]
            if up.all():
                continue
            c = self.codes[j, self.part]
            lo, hi = tx.lo[c], tx.hi[c]
            t_lo, t_hi = int(tx.lo[t[j]]), int(tx.hi[t[j]])
            cuts = np.unique(np.concatenate([[t_lo], lo[~up], hi[~up]]))
            leaves = cuts[(cuts >= t_lo) & (cuts < t_hi)]  # one leaf per constant segment
            masks = {_bits(up | ((lo <= i) & (i < hi))) for i in leaves.tolist()}
            self.splits.append((_bits(up), sorted(masks)))
        self.splits.sort(key=lambda split: len(split[1]))
        # always[l]: the cutting pairs that no split from level l on can remove.
        self.always = [(1 << len(self.part)) - 1]
        for up_bits, _ in reversed(self.splits):
            self.always.insert(0, self.always[0] & up_bits)
        # Per sensitive node s and base value a: φ_SA(a, s) − (1 − τ), and its negative part.
        self.coef = survey.sa_share - float(self.omt)
        self.coef_neg = np.minimum(self.coef, 0.0)

    # ------------------------------------------------------------------ one cell
    def _alive(self, state: int) -> np.ndarray:
        """Positions (among the relevant pairs) of the cutting pairs in the cell's group."""
        return self.part[_unbits(state, len(self.part))] if state else self.part[:0]

    def screen(self, state: int) -> tuple[int, float, float]:
        """Float decision for a cell: ``(1 protected | -1 not | 0 undecided, Pv, error of Pv)``."""
        alive = self._alive(state)
        by_node = self.base + np.bincount(
            self.sa[alive], weights=self.term[alive], minlength=len(self.base)
        )
        total = float(by_node.sum())
        joint = by_node @ self.survey.sa_share
        error = 4 * (self.fixed + len(alive)) * UNIT * total
        slack = float(self.omt) * total - float(joint.max())
        status = 1 if slack > 2 * error else -1 if slack < -2 * error else 0
        return status, 1 - float(joint.max()) / total, 4 * error / total

    def hopeless(self, level: int, state: int) -> bool:
        """Whether every cell below this partial state is surely unprotected.

        The pairs in ``state`` that no later split removes are in every such cell; the others
        may or may not be. A base value ``a`` whose excess ``f̂_a − (1 − τ) f̂`` stays positive
        even when only the uncertain pairs that lower it are counted rules the whole subtree out
        (decided in float64 with a margin above the rounding error, else not ruled out).
        """
        sure, maybe = state & self.always[level], state & ~self.always[level]
        n = len(self.base)
        by_sure, by_maybe = self.base.copy(), np.zeros(n)
        for bits, out in ((sure, by_sure), (maybe, by_maybe)):
            if bits:
                rows = self._alive(bits)
                out += np.bincount(self.sa[rows], weights=self.term[rows], minlength=n)
        excess = by_sure @ self.coef + by_maybe @ self.coef_neg
        mass = float(by_sure.sum() + by_maybe.sum())
        error = 4 * (self.fixed + state.bit_count()) * UNIT * mass
        return bool(excess.max() > 2 * error)

    def _exact_keys(self) -> tuple[np.ndarray, list[Fraction], list[int]]:
        """Relevant pairs grouped by (exact weights, sensitive value): key ids, values, nodes."""
        if self._keys is None:
            qtx = self.survey.quasi_taxonomies
            rows = [tx.weight_class[self.codes[j]] for j, tx in enumerate(qtx)] + [self.sa]
            radix = [len(tx.class_weight_exact) for tx in qtx] + [self.survey.sa.n_nodes]
            if math.prod(radix) < 2**62:  # one integer per key: a fast 1-d unique
                flat = np.zeros(len(self.sa), dtype=np.int64)
                for r, row in zip(radix, rows, strict=True):
                    flat = flat * r + row
                _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
            else:
                _, first, inverse = np.unique(
                    np.vstack(rows), axis=1, return_index=True, return_inverse=True
                )
            values = []
            for i in first.tolist():
                num = den = 1
                for j, tx in enumerate(qtx):
                    w = tx.weight_exact[int(self.codes[j, i])]
                    num, den = num * w.numerator, den * w.denominator
                values.append(Fraction(den, num))
            self._keys = (inverse.ravel(), values, [int(s) for s in self.sa[first]])
        return self._keys

    def exact(self, state: int) -> tuple[bool, Fraction]:
        """Exact decision and ``Pv`` for a cell."""
        key_of, values, nodes = self._exact_keys()
        rows = np.concatenate([self.common, self._alive(state)])
        sums = np.zeros(len(values), dtype=np.int64)
        np.add.at(sums, key_of[rows], self.counts[rows])
        by_node: dict[int, Fraction] = {}
        for k in np.flatnonzero(sums).tolist():
            by_node[nodes[k]] = by_node.get(nodes[k], Fraction(0)) + int(sums[k]) * values[k]
        qtx = self.survey.quasi_taxonomies
        t_value = 1 / _prod(tx.weight_exact[int(self.t[j])] for j, tx in enumerate(qtx))
        sa_t = int(self.t[-1])
        by_node[sa_t] = by_node.get(sa_t, Fraction(0)) + t_value
        share = self.survey.sa_share_exact
        total = sum(by_node.values(), Fraction(0))
        joint = [Fraction(0)] * self.survey.sa.n_leaves
        for s, f in by_node.items():
            for a, x in enumerate(share[s]):
                if x:
                    joint[a] += f * x
        worst = max(joint)
        return worst <= self.omt * total, 1 - worst / total

    # ------------------------------------------------------------------ all cells
    def search(self, limit: int) -> SubmissionCheck:
        """Decide (ruling out hopeless subtrees), then name the best ``Pv`` of a refusal."""
        verdict, found, pruned = self._walk(limit, prune=True)
        if verdict is not False:
            cells = len(found) + (verdict is True)  # the protected cell, not in ``found``
            return SubmissionCheck(verdict, None, self.tau, cells, self.exact_cell)
        if pruned:  # some cells were never evaluated: walk them all to name the best Pv
            complete, found, _ = self._walk(min(limit, NAME_LIMIT), prune=False)
            if complete is None:
                return SubmissionCheck(False, None, self.tau, len(found), self.exact_cell)
        top = max(v - e for v, e, _ in found)
        best = max(self.exact(state)[1] for v, e, state in found if v + e >= top)
        return SubmissionCheck(False, best, self.tau, len(found), self.exact_cell)

    def _walk(
        self, limit: int, *, prune: bool
    ) -> tuple[bool | None, list[tuple[float, float, int]], bool]:
        """Depth first over the distinct partial groups, split by split.

        Returns the verdict (True at the first protected cell, None past ``limit`` states,
        else False), the unprotected cells evaluated as ``(float Pv, its error, state)``, and
        whether a subtree was ruled out unseen.
        """
        depth = len(self.splits)
        full = (1 << len(self.part)) - 1
        seen = {(0, full)}
        stack = [(0, full)]
        found: list[tuple[float, float, int]] = []
        pruned = False
        while stack:
            level, state = stack.pop()
            if level == depth:
                status, value, error = self.screen(state)
                if status == 0:
                    status = 1 if self.exact(state)[0] else -1
                if status == 1:
                    return True, found, pruned
                found.append((value, error, state))
                continue
            if prune and self.hopeless(level, state):
                pruned = True
                continue
            for mask in self.splits[level][1]:
                child = state & mask
                node = (depth if child == 0 else level + 1, child)
                if node in seen:
                    continue
                if len(seen) >= limit:
                    return None, found, pruned
                seen.add(node)
                stack.append(node)
        return False, found, pruned


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
