"""GTR: the least-loss generalization that still protects its respondent.

Algorithm GTR (Fig. 4) of Zhang & Zhang, *Generalization-Based Privacy-Preserving Data Collection*,
DaWaK 2008.

:func:`gtr` is the pure function a respondent's client runs: from its base tuple ``o``, the
collected set ``G`` sent by the server and the threshold ``τ``, it returns the generalization
``t ⪰ o`` of least loss ``L(t)`` with ``Pv(o, G ∪ {t}) ≥ τ``, or ``None`` (the respondent submits
nothing). For each sensitive value ``v`` on the path from ``o[SA]`` to the root it takes the margins
``M_a`` and coefficients ``c_a`` (Theorem 1), and then:

* ``mode="exact"`` (default): every quasi-identifier generalization of ``o`` (the product of the
  ancestor chains, ``Π_A (height_A + 1)`` of them) is tested at once with numpy against the
  bounds ``m1 ≤ φ_QI ≤ m2``; this solves the respondent's problem exactly;
* ``mode="greedy"``: our versions of the subroutines the paper names but does not spell out —
  findOptimalQIValue (generalize one level at a time, best ratio ``Δ(−ln φ) / ΔL`` first, ties to
  the smaller ``ΔL``, until ``φ ≤ m2``) then specializeQI (specialize toward ``o`` with the largest
  ``φ`` not above ``m2`` until ``φ ≥ m1``), for taxonomies too large to enumerate. Its answer always
  protects ``o`` but may not be optimal. When the subroutines find nothing for any sensitive
  value, a complete depth-first search (branches cut by Theorem 1's bounds and by loss) decides
  instead and returns exact mode's answer, so greedy mode abstains exactly when exact mode does.
  Its steps are decided exactly as well (``φ ≤ m2`` and ``φ ≥ m1`` as Theorem 1's inequalities,
  equal ratios and equal ``φ`` in rational arithmetic), so the page's JavaScript port
  (``apps/server/static/gtr.js``) takes the same steps.

Ties between candidates of equal loss go to the larger ``φ_QI`` (the more specific
quasi-identifier), then to the fewer generalization steps attribute by attribute in survey order
(quasi-identifiers first, the sensitive attribute last).

**Exactness.** Decisions are made in float64 with a rigorous error bound (see
:class:`~.attack.RespondentSums`): a candidate is accepted only if it satisfies every bound with a
margin larger than the worst-case rounding, rejected only if it violates one by more, and the
rare candidates in between (exact ties such as ``Pv = τ`` exactly, which small integer weights
produce often) are decided in exact rational arithmetic. Equal losses and equal ``φ`` are compared
exactly as well. So the answer is that of exact arithmetic, and an accepted tuple protects its
respondent exactly (Definition 1) at the time of the call; a later submission can lower ``Pv``
again (the paper's model checks protection at submission time only).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Any

import numpy as np

from ...core.errors import InputError
from .attack import UNIT, RespondentSums, _check_survey, as_collected, as_tau
from .compress import CollectedSet
from .taxonomy import Survey, check_loss_variant

__all__ = ["EXACT_LIMIT", "GTR_MODES", "Submission", "gtr"]

GTR_MODES: tuple[str, ...] = ("exact", "greedy")
"""Names of the subroutines of :func:`gtr`."""
EXACT_LIMIT = 1 << 22
"""Largest number of quasi-identifier generalizations ``mode="exact"`` enumerates."""
#: Relative slack under which two float ``φ`` values may be equal and are compared exactly.
_PHI_TIE = 1e-9

Tuple = Sequence[Any] | Mapping[str, Any]


@dataclass(frozen=True)
class Submission:
    """What a respondent submits: a generalization ``t`` of their tuple ``o``.

    Attributes
    ----------
    attributes : tuple of str
        The survey's attributes (quasi-identifiers, then the sensitive attribute).
    labels : tuple
        ``t`` as labels, in attribute order.
    codes : tuple of int
        ``t`` as codes (what the server stores; see :class:`~.compress.CollectedSet`).
    loss : Fraction
        ``L(t)``, exactly.
    phi : float
        ``φ_QI(o, t)``.
    pv : float
        ``Pv(o, G ∪ {t})`` (at least τ; the decision itself was exact).
    """

    attributes: tuple[str, ...]
    labels: tuple[Any, ...]
    codes: tuple[int, ...]
    loss: Fraction
    phi: float
    pv: float

    def as_dict(self) -> dict[str, Any]:
        """``t`` as ``{attribute: label}``."""
        return dict(zip(self.attributes, self.labels, strict=True))


class _Problem:
    """One respondent's instance: chains, margins, and the exact fallbacks."""

    def __init__(self, survey: Survey, sums: RespondentSums, tau: Fraction, loss: str) -> None:
        self.survey, self.sums, self.tau = survey, sums, tau
        self.omt = 1 - tau
        o = sums.o
        self.qtx = survey.quasi_taxonomies
        self.chains = [tx.chain(int(o[j])) for j, tx in enumerate(self.qtx)]
        self.sa_chain = survey.sa.chain(int(o[-1]))
        # φ factors along each chain: w(o_A) / l(v); φ_QI is their product.
        self.factors = [
            tx.leaf_weight[tx.leaf_position(int(o[j]))] / tx.weight[ch]
            for j, (tx, ch) in enumerate(zip(self.qtx, self.chains, strict=True))
        ]
        tables, self.scale = survey.loss_table(loss)
        self.qi_loss = [tables[j][ch] for j, ch in enumerate(self.chains)]
        self.sa_loss = tables[-1][self.sa_chain]
        self.margins = float(self.omt) * sums.total - sums.joint
        self.error = sums.error
        self.phi_error = 8 * (len(self.qtx) + 8) * UNIT
        self._exact_margins: list[Fraction] | None = None
        self._coef: dict[int, list[Fraction]] = {}
        self._thresholds: dict[int, tuple[float, float, float, float, bool]] = {}

    # -------------------------------------------------------------- exact pieces
    def exact_margins(self) -> list[Fraction]:
        if self._exact_margins is None:
            total, joint = self.sums.exact()
            self._exact_margins = [self.omt * total - x for x in joint]
        return self._exact_margins

    def coefficients(self, j: int) -> list[Fraction]:
        """Exact ``c_a`` for the j-th sensitive value of the chain."""
        if j not in self._coef:
            row = self.survey.sa_share_exact[int(self.sa_chain[j])]
            self._coef[j] = [x - self.omt for x in row]
        return self._coef[j]

    def exact_phi(self, steps: Sequence[int]) -> Fraction:
        out = Fraction(1)
        o = self.sums.o
        for j, (tx, s) in enumerate(zip(self.qtx, steps, strict=True)):
            node = int(self.chains[j][s])
            out *= tx.leaf_weight_exact[tx.leaf_position(int(o[j]))] / tx.weight_exact[node]
        return out

    def exact_ok(self, j: int, steps: Sequence[int]) -> bool:
        """Theorem 1 in rational arithmetic for the candidate (QI steps, j-th SA value)."""
        phi = self.exact_phi(steps)
        return all(
            phi * c <= m for c, m in zip(self.coefficients(j), self.exact_margins(), strict=True)
        )

    # -------------------------------------------------------------- float screening
    def thresholds(self, j: int) -> tuple[float, float, float, float, bool]:
        """Safe thresholds on φ for the j-th sensitive value.

        Returns ``(hi_ok, hi_bad, lo_ok, lo_bad, flag)``: ``φ`` is surely feasible when
        ``lo_ok ≤ φ ≤ hi_ok``, surely infeasible when ``φ > hi_bad`` or ``φ < lo_bad``, and
        undecided in between. ``flag`` is False when a value with ``c_a = 0`` and ``M_a < 0`` makes
        every φ infeasible (decided exactly if need be).
        """
        if j not in self._thresholds:
            self._thresholds[j] = self._compute_thresholds(j)
        return self._thresholds[j]

    def _compute_thresholds(self, j: int) -> tuple[float, float, float, float, bool]:
        c_exact = self.coefficients(j)
        c = np.array([float(x) for x in c_exact])
        m, e = self.margins, self.error
        zero = np.array([x == 0 for x in c_exact])
        if np.any(zero):
            mz = m[zero]
            if np.any(mz + e < 0):
                return 0.0, 0.0, 1.0, 1.0, False
            if np.any(mz - e < 0):
                exact = self.exact_margins()
                if any(exact[a] < 0 for a in np.flatnonzero(zero)):
                    return 0.0, 0.0, 1.0, 1.0, False
        hi_ok = hi_bad = math.inf
        lo_ok = lo_bad = -math.inf
        up, low = c > 0, c < 0
        if np.any(up):
            b = m[up] / c[up]
            r = 2 * e / c[up] + self.phi_error * np.abs(b)
            hi_ok, hi_bad = float((b - r).min()), float((b + r).min())
        if np.any(low):
            b = m[low] / c[low]
            r = 2 * e / -c[low] + self.phi_error * np.abs(b)
            lo_ok, lo_bad = float((b + r).max()), float((b - r).max())
        return hi_ok, hi_bad, lo_ok, lo_bad, True

    def status(self, j: int, phi: np.ndarray) -> np.ndarray:
        """1 surely feasible, -1 surely infeasible, 0 undecided, for each φ (float)."""
        hi_ok, hi_bad, lo_ok, lo_bad, flag = self.thresholds(j)
        if not flag:
            return np.full(phi.shape, -1, dtype=np.int8)
        out = np.zeros(phi.shape, dtype=np.int8)
        out[(phi <= hi_ok) & (phi >= lo_ok)] = 1
        out[(phi > hi_bad) | (phi < lo_bad)] = -1
        return out

    def bounds(self, j: int) -> tuple[float, float]:
        """Float ``(m1, m2)`` for the j-th sensitive value (the greedy subroutines' targets)."""
        hi_ok, hi_bad, lo_ok, lo_bad, flag = self.thresholds(j)
        if not flag:
            return 0.0, 0.0
        return max(0.0, 0.5 * (lo_ok + lo_bad)), min(1.0, 0.5 * (hi_ok + hi_bad))

    # -------------------------------------------------------------- result
    def phi_of(self, steps: Sequence[int]) -> float:
        return float(np.prod([f[s] for f, s in zip(self.factors, steps, strict=True)]))

    def loss_of(self, j: int, steps: Sequence[int]) -> int:
        return int(self.sa_loss[j]) + sum(
            int(tb[s]) for tb, s in zip(self.qi_loss, steps, strict=True)
        )

    def submission(self, j: int, steps: Sequence[int]) -> Submission:
        survey = self.survey
        codes = [int(ch[s]) for ch, s in zip(self.chains, steps, strict=True)]
        codes.append(int(self.sa_chain[j]))
        phi = self.phi_of(steps)
        share = survey.sa_share[codes[-1]]
        sums = self.sums
        after = 1 - float(((sums.joint + phi * share) / (sums.total + phi)).max())
        return Submission(
            attributes=tuple(survey.attributes),
            labels=survey.decode(codes),
            codes=tuple(codes),
            loss=Fraction(self.loss_of(j, steps), self.scale),
            phi=phi,
            pv=max(after, float(self.tau)),
        )

    def best(self, candidates: list[tuple[int, tuple[int, ...]]]) -> tuple[int, tuple[int, ...]]:
        """The candidate with the least exact key (loss, −φ, QI steps, SA steps)."""
        return min(
            candidates,
            key=lambda c: (self.loss_of(c[0], c[1]), -self.exact_phi(c[1]), c[1], c[0]),
        )


def _exact(p: _Problem) -> tuple[int, tuple[int, ...]] | None:
    shape = tuple(len(ch) for ch in p.chains)
    n_q = math.prod(shape)
    if n_q > EXACT_LIMIT:
        raise InputError(
            f"mode='exact' would enumerate {n_q:,} quasi-identifier generalizations "
            f"(limit {EXACT_LIMIT:,}); use mode='greedy' for taxonomies this large"
        )
    phi = reduce(np.multiply.outer, p.factors).ravel()
    qloss = reduce(np.add.outer, p.qi_loss).ravel()
    status = np.vstack([p.status(j, phi) for j in range(len(p.sa_chain))])
    loss = p.sa_loss[:, None] + qloss[None, :]
    sure = status == 1
    best_loss = loss[sure].min() if sure.any() else None
    undecided = status == 0
    if best_loss is not None:
        undecided &= loss <= best_loss
    js, qs = np.nonzero(undecided)
    if len(js):
        order = np.lexsort((-phi[qs], loss[js, qs]))
        for i in order:
            j, q = int(js[i]), int(qs[i])
            if best_loss is not None and loss[j, q] > best_loss:
                break
            ok = p.exact_ok(j, np.unravel_index(q, shape))
            status[j, q] = 1 if ok else -1
            if ok and (best_loss is None or loss[j, q] < best_loss):
                best_loss = loss[j, q]
    feasible = status == 1
    if not feasible.any():
        return None
    best_loss = loss[feasible].min()
    group = feasible & (loss == best_loss)
    top = phi[np.nonzero(group)[1]].max()
    group &= phi[None, :] >= top * (1 - _PHI_TIE)
    js, qs = np.nonzero(group)
    cands = [
        (int(j), tuple(int(s) for s in np.unravel_index(int(q), shape)))
        for j, q in zip(js, qs, strict=True)
    ]
    return cands[0] if len(cands) == 1 else p.best(cands)


def _upper_ok(p: _Problem, j: int, steps: Sequence[int]) -> bool:
    """Whether ``φ_QI(steps) ≤ m2`` for the j-th sensitive value (``φ · c_a ≤ M_a`` for every
    ``c_a > 0``), decided exactly: float screen, rational arithmetic when undecided."""
    hi_ok, hi_bad = p.thresholds(j)[:2]
    phi = p.phi_of(steps)
    if phi <= hi_ok:
        return True
    if phi > hi_bad:
        return False
    x = p.exact_phi(steps)
    return all(
        x * c <= m for c, m in zip(p.coefficients(j), p.exact_margins(), strict=True) if c > 0
    )


def _lower_ok(p: _Problem, j: int, steps: Sequence[int]) -> bool:
    """Whether ``φ_QI(steps) ≥ m1`` (``φ · c_a ≤ M_a`` for every ``c_a < 0``), decided exactly."""
    lo_ok, lo_bad = p.thresholds(j)[2:4]
    phi = p.phi_of(steps)
    if phi >= lo_ok:
        return True
    if phi < lo_bad:
        return False
    x = p.exact_phi(steps)
    return all(
        x * c <= m for c, m in zip(p.coefficients(j), p.exact_margins(), strict=True) if c < 0
    )


def _compare_phi(p: _Problem, a: Sequence[int], b: Sequence[int]) -> int:
    """The sign of ``φ_QI(a) − φ_QI(b)``, exactly (floats when they differ clearly)."""
    x, y = p.phi_of(a), p.phi_of(b)
    if abs(x - y) > _PHI_TIE * max(x, y):
        return 1 if x > y else -1
    ex, ey = p.exact_phi(a), p.exact_phi(b)
    return (ex > ey) - (ex < ey)


class _Step:
    """One candidate generalization step of findOptimalQIValue: attribute ``a`` one level up.

    Its gain is ``Δ(−ln φ) = ln R`` with ``R = w(parent) / w(node) ≥ 1`` and its cost ``ΔL = dl``;
    steps are ranked by the ratio ``ln R / dl`` (``+∞`` when ``dl = 0 < ln R``, 0 when both are
    0), compared exactly: in floats when they differ by more than a relative 10⁻⁹, else as the
    rational powers ``R_a^(dl_b/g)`` and ``R_b^(dl_a/g)``.
    """

    def __init__(self, p: _Problem, a: int, s: int) -> None:
        tx, chain = p.qtx[a], p.chains[a]
        w0, w1 = tx.weight_exact[int(chain[s])], tx.weight_exact[int(chain[s + 1])]
        self.a = a
        self.r = w1 / w0
        self.dl = int(p.qi_loss[a][s + 1]) - int(p.qi_loss[a][s])
        self.kind = 1 if self.dl > 0 else (2 if self.r > 1 else 0)  # 2: +inf, 0: zero
        self.ratio = math.log1p(float((w1 - w0) / w0)) / self.dl if self.kind == 1 else 0.0

    def cmp_ratio(self, other: _Step) -> int:
        """The sign of ``ratio(self) − ratio(other)``."""
        if self.kind != 1 or other.kind != 1:
            return (self.kind > other.kind) - (self.kind < other.kind)
        x, y = self.ratio, other.ratio
        if abs(x - y) > 1e-9 * max(x, y):
            return 1 if x > y else -1
        g = math.gcd(self.dl, other.dl)
        lhs, rhs = self.r ** (other.dl // g), other.r ** (self.dl // g)
        return (lhs > rhs) - (lhs < rhs)

    def better(self, other: _Step | None) -> bool:
        """Larger ratio first, then the smaller ``ΔL`` (then the earlier attribute)."""
        if other is None:
            return True
        c = self.cmp_ratio(other)
        return c > 0 or (c == 0 and self.dl < other.dl)


def _greedy_generalize(p: _Problem, j: int) -> list[int] | None:
    """findOptimalQIValue: one-level generalizations by best Δ(−ln φ)/ΔL until φ ≤ m2."""
    steps = [0] * len(p.chains)
    while not _upper_ok(p, j, steps):
        best: _Step | None = None
        for a, s in enumerate(steps):
            if s + 1 >= len(p.chains[a]):
                continue
            step = _Step(p, a, s)
            if step.better(best):
                best = step
        if best is None:
            return None
        steps[best.a] += 1
    return steps


def _greedy_specialize(p: _Problem, j: int, steps: list[int]) -> list[int] | None:
    """specializeQI: one-level specializations toward o, largest φ not above m2, until φ ≥ m1."""
    while not _lower_ok(p, j, steps):
        best: list[int] | None = None
        for a, s in enumerate(steps):
            if s == 0:
                continue
            new = list(steps)
            new[a] -= 1
            if _upper_ok(p, j, new) and (best is None or _compare_phi(p, new, best) > 0):
                best = new
        if best is None:
            return None
        steps = best
    return steps


def _greedy(p: _Problem) -> tuple[int, tuple[int, ...]] | None:
    cands = []
    for j in range(len(p.sa_chain)):
        if not p.thresholds(j)[4]:
            continue  # a value with c_a = 0 and M_a < 0: no φ protects o with this v
        steps = _greedy_generalize(p, j)
        if steps is None:
            continue
        steps = _greedy_specialize(p, j, steps)
        if steps is None:
            continue
        state = int(p.status(j, np.array([p.phi_of(steps)]))[0])
        if state == 1 or (state == 0 and p.exact_ok(j, steps)):
            cands.append((j, tuple(steps)))
    return p.best(cands) if cands else _search(p)


def _search(p: _Problem) -> tuple[int, tuple[int, ...]] | None:
    """The optimum by a complete depth-first search, for when the greedy subroutines find nothing.

    Quasi-identifiers are fixed one at a time, each from ``o``'s value up its chain. A branch is
    cut when no completion can satisfy Theorem 1 — its ``φ`` (which only falls as attributes
    generalize) is already below ``m1``, or stays above ``m2`` even with every remaining attribute
    at its root — or when its loss already exceeds the least loss found. Cuts are taken in
    floats only with a margin past the rounding; complete candidates are decided exactly. So
    this returns exact mode's answer, ties included, without enumerating every generalization
    when the bounds cut early; and None exactly when exact mode abstains.
    """
    js = [j for j in range(len(p.sa_chain)) if p.thresholds(j)[4]]
    if not js:
        return None
    m = len(p.chains)
    # rest[a]: the least φ factor the attributes a.. can still contribute (all at their roots).
    rest = [1.0] * (m + 1)
    for a in range(m - 1, -1, -1):
        rest[a] = rest[a + 1] * float(p.factors[a][-1])
    slack = 1e-9
    best_loss: int | None = None
    found: list[tuple[int, tuple[int, ...]]] = []
    steps = [0] * m

    def alive(a: int, phi: float, loss: int, cands: list[int]) -> list[int]:
        out = []
        for j in cands:
            total = loss + int(p.sa_loss[j])
            if best_loss is not None and total > best_loss:
                continue
            lo_bad, hi_bad = p.thresholds(j)[3], p.thresholds(j)[1]
            if phi < lo_bad * (1 - slack) or phi * rest[a] > hi_bad * (1 + slack):
                continue
            out.append(j)
        return out

    def visit(a: int, phi: float, loss: int, cands: list[int]) -> None:
        nonlocal best_loss, found
        cands = alive(a, phi, loss, cands)
        if not cands:
            return
        if a == m:
            for j in cands:
                state = int(p.status(j, np.array([p.phi_of(steps)]))[0])
                if state == -1 or (state == 0 and not p.exact_ok(j, steps)):
                    continue
                total = loss + int(p.sa_loss[j])
                if best_loss is None or total < best_loss:
                    best_loss, found = total, []
                found.append((j, tuple(steps)))
            return
        for s in range(len(p.chains[a])):
            steps[a] = s
            visit(a + 1, phi * float(p.factors[a][s]), loss + int(p.qi_loss[a][s]), cands)
        steps[a] = 0

    visit(0, 1.0, 0, js)
    return p.best(found) if found else None


def gtr(
    o: Tuple,
    collected: CollectedSet | Iterable[Tuple],
    survey: Survey,
    tau: Any,
    *,
    mode: str = "exact",
    loss: str = "paper",
) -> Submission | None:
    """The generalization of ``o`` with the least loss that protects it against ``collected``.

    Parameters
    ----------
    o : sequence or mapping
        The respondent's base tuple (leaves), in survey attribute order or by attribute name.
    collected : CollectedSet or iterable of tuples
        The collected multiset ``G`` (tuple–count pairs, or tuples given by labels).
    survey : Survey
        Attributes, taxonomies and leaf weights.
    tau : number
        Privacy threshold in (0, 1] (a float is read as its decimal: 0.7 is 7/10).
    mode : {"exact", "greedy"}
        Exhaustive optimal search (default) or the greedy subroutines for large taxonomies
        (with a complete search when they find nothing: greedy abstains only when exact does).
    loss : {"paper", "normalized"}
        Value loss ``(I(v) − 1) / I(r)`` or ``(I(v) − 1) / (I(r) − 1)``.

    Returns
    -------
    Submission or None
        The tuple to submit, or None when no generalization of ``o`` protects it (the respondent
        abstains).

    Raises
    ------
    InputError
        For values outside the taxonomies, a generalized value in ``o``, a wrong number of values,
        ``tau`` outside (0, 1], an unknown mode or loss, or too many candidates for exact mode.
    """
    _check_survey(survey)
    if mode not in GTR_MODES:
        raise InputError(f"mode must be one of {', '.join(GTR_MODES)}, got {mode!r}")
    check_loss_variant(loss)
    tau = as_tau(tau)
    o_codes = survey.encode_base(o)
    sums = RespondentSums(survey, as_collected(collected, survey), o_codes)
    p = _Problem(survey, sums, tau, loss)
    found = _exact(p) if mode == "exact" else _greedy(p)
    return None if found is None else p.submission(*found)
