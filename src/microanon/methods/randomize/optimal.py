"""Optimal distortion parameters under an attribute-disclosure bound.

Problem 1 / Result 2 of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based
Microdata Release*, Journal of Computing Science and Engineering 5(3), 2011: choose the keep
probabilities of the randomized attributes (those of the scenario; the others keep ``p = 1``) to
minimize the expected squared reconstruction error, i.e. ``F(p) = Π_i ‖P_i⁻¹‖_F²`` (Lemma 4),
subject to ``Pr(S_r | QI_r) ≤ τ`` for every record. The risk depends on the record's cell only, so
there is one constraint per non-empty cell; a cell whose unrandomized risk ``π_αu/π_α`` is already
``≤ τ`` never binds (both factors of eq. 6 besides ``π_αu/π_α`` are reconstruction probabilities, at
most 1), so only the other cells are constrained.

Search (ours: the paper only points to a generic nonlinear solver). ``F`` falls and every risk rises
with each ``p_i``, so the optimum lies on the surface ``max risk = τ``. Points on it are found by
root finding (regula falsi safeguarded by bisection) along segments on which every ``p_i`` is
non-decreasing, so that the risk is monotone along them. One randomized attribute: that boundary
point is the optimum. Several: ``Σ_i log ‖P_i⁻¹‖_F²`` is minimized with SLSQP under the per-cell
constraints from several starts — the diagonal one ``p_i(t) = 1 − t(1 − 1/d_i)``, a pseudo-random
one (fixed seed: the result is deterministic) and, for RR-Both, the RR-S and RR-QI optima, which are
feasible for RR-Both, so RR-Both's objective never exceeds theirs. The problem is not convex (starts
can end at different local optima). Every solver result is pushed back onto the surface the same
way, and the best point is kept. The solver gets exact gradients and only the cells near the bound
(an active set, shared between the starts of a problem); the risk of those cells and its gradient
come from :mod:`._opt_risk` (uniform-retention structure, no matrix formed), equal to :mod:`.risk`'s
up to rounding — the answer is checked with the latter.
Postcondition: ``τ − 1e-6 ≤ max risk ≤ τ`` unless ``p = 1`` is already feasible.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InfeasibleError, InputError, SchemaError
from ...core.schema import Schema
from ..release import prepare, require_quasi
from ._constraints import AverageRisk, ScaledRisk
from ._opt_risk import CellRisk
from .matrices import inverse_frobenius_sq, uniform_retention
from .risk import check_proportions, check_scenario, property1_minimum, risk_from_matrices
from .sampling import check_domain_size

__all__ = [
    "MAX_JOINT_CELLS",
    "OptimalParameters",
    "optimal_parameters",
    "optimal_parameters_from_pi",
    "cell_counts",
]

#: Keep probabilities stay at least this far above the singular ``1/d``.
_DELTA = 1e-6
#: Root finding along a segment stops this fraction of τ below it, or after this many steps;
#: a solver's start only needs to be this close along its segment.
_ROOT_TOL = 1e-15
_ROOT_STEPS = 200
_START_TOL = 1e-6
#: A solver's answer is pushed onto the surface along a segment this fraction of the way long.
_NEAR = 1e-6
#: Pseudo-random starting points of the solver, besides the structured ones.
_RANDOM_STARTS = 1
#: Cells with risk above this fraction of τ enter the solver's constraints; at most this many
#: solver runs per start; a run is repeated when the objective's curvature changed more than
#: this many times (see ``_Problem.refine``).
_ACTIVE = 0.8
_ACTIVE_ROUNDS = 10
_RESCALE = 4.0
#: Keep probabilities this close to 1 are set to 1 (when that costs at most this much of the
#: log objective).
_SNAP = 1e-9
#: Tolerance of the check that no randomization is needed (floating-point tolerance).
_TOL = 1e-12
#: Largest joint domain ``D`` the dense computation accepts (here and in the out-of-core engine,
#: which refuses larger domains before counting them).
MAX_JOINT_CELLS = 20_000_000


@dataclass(frozen=True)
class OptimalParameters:
    """Keep probabilities that bound the disclosure risk at least cost (Problem 1).

    Attributes
    ----------
    keep : dict of str to float
        Keep probability ``p`` of every quasi-identifier and of the sensitive column (``1`` for
        those the scenario does not randomize and for single-valued attributes).
    max_risk : float
        Largest ``Pr(S_r | QI_r)`` over the records with these parameters.
    objective : float
        ``F = Π_i ‖P_i⁻¹‖_F²`` over all attributes (``d_i`` for an unrandomized one).
    expected_squared_error : float
        ``E‖π̂ − π‖² = trace(Σ) = (F/D − ‖π‖²)/N`` of the reconstructed cell proportions.
    binding_cell : dict
        The cell attaining ``max_risk``, column → value. Describes the original data: do not
        publish it.
    scenario : {"S", "QI", "Both"}
    tau : float
        The risk bound (``1/ℓ``); with a bound per record or cell, the smallest of them.
    constraint : {"every", "average"}
        ``"every"``: every record's risk is at most its bound (the paper's Problem 1);
        ``"average"`` (ours): the records' mean risk is at most ``τ``.
    average_risk : float
        The records' mean ``Pr(S_r | QI_r)`` with these parameters.
    share_above : float
        Share of the records whose risk exceeds their bound (0 under ``"every"``; under
        ``"average"``, the records the mean lets through).
    cells_above : int
        Number of cells (quasi-identifier group and sensitive value) holding those records.
    """

    keep: dict[str, float]
    max_risk: float
    objective: float
    expected_squared_error: float
    binding_cell: dict[str, Any]
    scenario: str
    tau: float
    constraint: str = "every"
    average_risk: float = math.nan
    share_above: float = 0.0
    cells_above: int = 0


def check_tau(l: object = None, tau: object = None) -> float:  # noqa: E741 - ℓ-diversity's name
    """The risk bound from exactly one of ``l`` (``τ = 1/ℓ``, ``ℓ ≥ 1``) and ``tau`` (``(0, 1]``).

    Raises
    ------
    InputError
        If both or neither is given, or the value is out of range or not a number.
    """
    if (l is None) == (tau is None):
        raise InputError("give exactly one of l and tau (the risk bound is tau = 1/l)")
    name, value = ("l", l) if l is not None else ("tau", tau)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}: expected a number, got {value!r}")
    value = float(value)
    if l is not None:
        if not (math.isfinite(value) and value >= 1):
            raise InputError(f"l: the diversity level must be a finite number >= 1, got {l!r}")
        return 1.0 / value
    if not (0 < value <= 1):
        raise InputError(f"tau: the risk bound must be in (0, 1], got {tau!r}")
    return value


class _Problem:
    """Risk and objective of one scenario as functions of its free keep probabilities ``x``."""

    def __init__(
        self, pi: np.ndarray, bound: float | np.ndarray, scenario: str, constraint: str = "every"
    ) -> None:
        self.pi = pi
        self.bound = bound  # τ, or (constraint "every") an array of pi's shape: τ per cell
        self.constraint = constraint
        self.tau = 1.0  # the constraints are normalized: value / bound <= 1
        self.scenario = scenario
        self.dims = pi.shape
        m = pi.ndim - 1
        axes = {"S": [m], "QI": list(range(m)), "Both": list(range(m + 1))}[scenario]
        self.free = [a for a in axes if self.dims[a] > 1]  # d = 1: a constant, nothing to randomize
        self.sizes = np.array([self.dims[a] for a in self.free], dtype=float)
        self.lower = 1.0 / self.sizes + _DELTA
        self.limit = np.broadcast_to(np.asarray(bound, dtype=float), pi.shape).reshape(-1)
        conditional = pi / np.maximum(pi.sum(axis=-1, keepdims=True), 1e-300)
        self._risks: ScaledRisk | AverageRisk | None = None
        if constraint == "average":
            self.cells = np.flatnonzero(pi.reshape(-1) > 0)
            needed = float(pi.reshape(-1)[self.cells] @ conditional.reshape(-1)[self.cells])
            if needed > float(bound) + _TOL:
                weights = pi.reshape(-1)[self.cells] / float(bound)
                self._risks = AverageRisk(CellRisk(pi, self.cells, self.free), weights)
            self.known = np.zeros(1, dtype=bool)
        else:
            self.cells = np.flatnonzero(conditional.reshape(-1) > self.limit + _TOL)
            if len(self.cells):
                risks = CellRisk(pi, self.cells, self.free)
                self._risks = ScaledRisk(risks, self.limit[self.cells])
            self.known = np.zeros(len(self.cells), dtype=bool)  # cells earlier runs needed

    @property
    def needed(self) -> bool:
        """Whether ``p = 1`` breaks the bound (so some randomization is needed)."""
        return self._risks is not None

    def normalized(self, risk: np.ndarray) -> float:
        """Largest constraint value (``≤ 1`` feasible) of a full array of cell risks."""
        flat = risk.reshape(-1)
        if self.constraint == "average":
            return float(self.pi.reshape(-1) @ flat) / float(self.bound)
        return float((flat / self.limit).max())

    def clip(self, x: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(x, self.lower), 1.0)

    def keep(self, x: np.ndarray) -> np.ndarray:
        """Keep probability of every axis (1 for the fixed ones)."""
        p = np.ones(len(self.dims))
        p[self.free] = self.clip(x)
        return p

    def risk(self, x: np.ndarray) -> np.ndarray:
        """Risk of every cell (the reference computation of :mod:`.risk`)."""
        p = self.keep(x)
        mats = [uniform_retention(d, q) for d, q in zip(self.dims, p, strict=True)]
        return risk_from_matrices(self.pi, mats[:-1], mats[-1])

    def settle(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep probabilities of every axis and the risk of every cell, by :mod:`.risk`.

        That reference computation equals the search's up to rounding; should it put a cell
        above its bound, ``x`` moves toward the lower corner by 1e-15 of the way, then ten times
        more each time, until it does not (keep probabilities of exactly 1 stay, unless all are).
        """
        risk, step = self.risk(x), 1e-15
        x = self.clip(x)
        fixed = (x >= 1.0) if (x < 1.0).any() else np.zeros(len(x), dtype=bool)
        while self.normalized(risk) > 1.0 and step < 1e-6:
            x = np.where(fixed, x, self.lower + (1.0 - step) * (x - self.lower))
            risk, step = self.risk(x), step * 10.0
        return self.keep(x), risk

    def cell_risk(self, x: np.ndarray) -> np.ndarray:
        """Constraint values (``≤ 1`` feasible): the risk of each constrained cell (unrandomized
        risk above its bound) over that bound, or the mean risk over τ."""
        return self._risks.value(self.clip(x))

    def max_risk(self, x: np.ndarray) -> float:
        """Largest constraint value (the search's "risk", bound 1)."""
        return float(self.cell_risk(x).max())

    def feasible(self, x: np.ndarray) -> bool:
        return self.max_risk(x) <= self.tau

    def log_objective(self, x: np.ndarray) -> float:
        """``Σ log ‖P_i⁻¹‖_F²`` over the free attributes."""
        d = self.sizes
        return float(np.log1p((d - 1.0) ** 3 / (d * self.clip(x) - 1.0) ** 2).sum())

    def log_objective_grad(self, x: np.ndarray) -> np.ndarray:
        d = self.sizes
        c, e = (d - 1.0) ** 3, d * self.clip(x) - 1.0
        return -2.0 * d * c / (e * (e * e + c))

    def boundary(
        self,
        low: np.ndarray,
        high: np.ndarray,
        tol: float = _ROOT_TOL,
        g_low: float | None = None,
        g_high: float | None = None,
    ) -> np.ndarray:
        """The point of the segment ``low → high`` where the max risk reaches τ, from below.

        ``low`` must be feasible and ``high ≥ low`` coordinate-wise (the risk then rises along
        the segment); returns ``high`` if it is feasible. Root finding by the Illinois variant of
        regula falsi on the bracket (feasible end, infeasible end), with a bisection step
        whenever an iteration fails to halve the bracket; stops when the feasible end is within
        ``tol · τ`` of τ (``g_low``, ``g_high``: the max risk at the ends, if known).
        """
        tol *= self.tau
        a, b = 0.0, 1.0
        ga = (self.max_risk(low) if g_low is None else g_low) - self.tau
        if ga >= -tol:
            return low
        gb = (self.max_risk(high) if g_high is None else g_high) - self.tau
        if gb <= 0:
            return high
        side = 0
        for _ in range(_ROOT_STEPS):
            if ga >= -tol or b - a <= 1e-15:
                break
            width = b - a
            t = (a * gb - b * ga) / (gb - ga)
            if not a < t < b:
                t = 0.5 * (a + b)
            gt = self.max_risk(low + t * (high - low)) - self.tau
            if gt <= 0:
                a, ga = t, gt
                gb = gb / 2 if side == -1 else gb
                side = -1
            else:
                b, gb = t, gt
                ga = ga / 2 if side == 1 else ga
                side = 1
            if b - a > 0.5 * width:  # slow progress: also halve the bracket
                t = 0.5 * (a + b)
                gt = self.max_risk(low + t * (high - low)) - self.tau
                if gt <= 0:
                    a, ga = t, gt
                else:
                    b, gb = t, gt
                side = 0
        return low + a * (high - low)

    def start(self, low: np.ndarray, high: np.ndarray, g_low: float | None = None) -> np.ndarray:
        """A feasible point of the segment ``low → high`` near the max risk τ (a solver start).

        Like :meth:`boundary`, but only to about ``_START_TOL`` along the segment: Brent's method
        on ``log(max risk / τ)`` (smoother than the risk), then a step back if it ended beyond τ.
        """
        g_low = self.max_risk(low) if g_low is None else g_low
        g_high = self.max_risk(high)
        if g_high <= self.tau:
            return high
        known = {0.0: g_low, 1.0: g_high}

        def log_ratio(t: float) -> float:
            g = known.get(t)
            return math.log((self.max_risk(low + t * (high - low)) if g is None else g) / self.tau)

        from scipy.optimize import brentq

        root = brentq(log_ratio, 0.0, 1.0, xtol=_START_TOL)
        for t in (root, root - 2.0 * _START_TOL):
            x = low + max(t, 0.0) * (high - low)
            if self.feasible(x):
                return x
        return self.boundary(low, x, g_low=g_low)

    def tighten(self, x: np.ndarray) -> np.ndarray:
        """Move a point onto the surface ``max risk = τ`` (from the feasible side).

        A point near the surface (a solver's answer) is first bracketed on a short segment,
        ``_NEAR`` of the way towards ``p = 1`` (feasible point) or the lower corner (infeasible).
        """
        x = self.clip(x)
        g = self.max_risk(x)
        if g <= self.tau:
            high = x + _NEAR * (1.0 - x)
            g_high = self.max_risk(high)
            if g_high > self.tau:
                return self.boundary(x, high, g_low=g, g_high=g_high)
            return self.boundary(high, np.ones_like(x), g_low=g_high)
        low = x - _NEAR * (x - self.lower)
        g_low = self.max_risk(low)
        if g_low <= self.tau:
            return self.boundary(low, x, g_low=g_low, g_high=g)
        return self.boundary(self.lower, low, g_high=g_low)

    def refine(self, start: np.ndarray) -> np.ndarray:
        """SLSQP from a point near the boundary, tightened back onto the boundary.

        Only some cells are passed to the solver (an active set): those within ``_ACTIVE · τ``
        of the bound at ``start`` and those earlier runs on this problem needed; after each run
        the cells its answer violates are added and it restarts from there (an answer that
        violates no other cell answers the full problem). The solver minimizes
        ``Σ log ‖P_i⁻¹‖_F²`` subject to ``log τ − log risk ≥ 0`` with exact gradients, in the
        variables ``s_i p_i``, ``s_i²`` the objective's curvature at the run's start; a run whose
        answer's curvature differs from that by more than ``_RESCALE`` times is repeated from
        there (near the singular ``p = 1/d`` the curvature varies by orders of magnitude).
        """
        from scipy.optimize import minimize

        d = self.sizes
        c = (d - 1.0) ** 3

        def curvature(x: np.ndarray) -> np.ndarray:
            e = d * x - 1.0
            return np.sqrt(2.0 * d * d * c * (3.0 * e * e + c)) / (e * (e * e + c))

        log_tau = math.log(self.tau)
        x = self.clip(start)
        risk = self.cell_risk(x)
        active = (risk >= _ACTIVE * min(self.tau, float(risk.max()))) | self.known
        for _ in range(_ACTIVE_ROUNDS):
            scale = curvature(x)
            margin = _Margin(self._risks.subset(active), self.clip, scale, log_tau)
            res = minimize(
                lambda v, s=scale: self.log_objective(v / s),
                x * scale,
                jac=lambda v, s=scale: self.log_objective_grad(v / s) / s,
                method="SLSQP",
                bounds=list(zip(self.lower * scale, scale, strict=True)),
                constraints=[{"type": "ineq", "fun": margin.value, "jac": margin.jac}],
                options={"maxiter": 200, "ftol": 1e-12},
            )
            if not np.all(np.isfinite(res.x)):
                break
            x = self.clip(res.x / scale)
            violated = (self.cell_risk(x) > self.tau) & ~active
            if violated.any():
                active |= violated
                continue
            ratio = curvature(x) / scale
            if max(ratio.max(), 1.0 / ratio.min()) <= _RESCALE:
                break
        self.known |= active
        return self.tighten(x)


class _Margin:
    """The solver's constraints ``log τ − log risk ≥ 0`` on some cells, with their Jacobian.

    Functions of the scaled variables ``v = s ∘ p``. The solver asks for the Jacobian at the
    point where it last evaluated the constraints, except while a line search rejects points:
    so a constraint evaluation also computes the Jacobian (one pass) unless the previous point's
    Jacobian was never asked for.
    """

    def __init__(self, risks: CellRisk, clip: Callable, scale: np.ndarray, log_tau: float):
        self.risks, self.clip, self.scale, self.log_tau = risks, clip, scale, log_tau
        self._last: tuple[bytes, np.ndarray, np.ndarray | None] = (b"", np.zeros(0), None)
        self._searching = False

    def value(self, v: np.ndarray) -> np.ndarray:
        key = v.tobytes()
        if key != self._last[0]:
            x = self.clip(v / self.scale)
            if self._searching:
                self._last = (key, self.risks.value(x), None)
            else:
                self._last = (key, *self.risks.value_and_jac(x))
        self._searching = True
        return self.log_tau - np.log(self._last[1])

    def jac(self, v: np.ndarray) -> np.ndarray:
        self._searching = False
        key = v.tobytes()
        if key != self._last[0] or self._last[2] is None:
            self._last = (key, *self.risks.value_and_jac(self.clip(v / self.scale)))
        risk, jac = self._last[1], self._last[2]
        return jac / (-risk[:, None] * self.scale)


def _solve(prob: _Problem) -> np.ndarray:
    """The best free keep probabilities of a scenario whose lower corner is feasible.

    One randomized attribute: the boundary point. Several: SLSQP from several starts (the
    problem is not convex; starts can end at different local optima), the best start first: the
    paper's ``p_i(t) = 1 − t(1 − 1/d_i)``, a pseudo-random one (fixed seed: the result is
    deterministic) and, for RR-Both, the RR-S and RR-QI optima (feasible for RR-Both, and kept as
    candidates so that RR-Both never costs more); the best point is kept.
    """
    ones = np.ones(len(prob.free))
    if len(prob.free) == 1:
        return prob.boundary(prob.lower, ones)
    starts = [prob.start(prob.lower, ones)]  # p_i(t) = 1 − t(1 − 1/d_i)
    rng = np.random.default_rng(0)  # solver starts only: the result is deterministic
    for _ in range(_RANDOM_STARTS):
        u = prob.lower + rng.random(len(prob.free)) * (1.0 - prob.lower)
        g = prob.max_risk(u)
        if g <= prob.tau:
            starts.append(prob.start(u, ones, g_low=g))
        else:
            starts.append(prob.start(prob.lower, u))
    if prob.scenario == "Both":
        for sub in ("S", "QI"):
            sub_prob = _Problem(prob.pi, prob.bound, sub, prob.constraint)
            if sub_prob.free and sub_prob.feasible(sub_prob.lower):
                starts.append(sub_prob.keep(_solve(sub_prob))[prob.free])
                prob.known |= sub_prob.known  # the same cells: reuse its active set
    starts.sort(key=prob.log_objective)
    candidates = starts + [prob.refine(start) for start in starts]
    best = min(candidates, key=prob.log_objective)
    if prob.max_risk(best) < prob.tau * (1.0 - _ROOT_TOL):  # a start kept: onto the surface
        best = prob.tighten(best)
    # p within 1e-9 of 1 means "leave the attribute as it is": make it exact, moving the others
    # back onto the surface if needed, unless that costs more than 1e-9 of the objective
    snapped = np.where(best > 1.0 - _SNAP, 1.0, best)
    moved = snapped != best
    if moved.any():
        if not prob.feasible(snapped):
            low = np.where(moved, 1.0, prob.lower)
            snapped = prob.boundary(low, snapped) if prob.feasible(low) else best
        if prob.log_objective(snapped) <= prob.log_objective(best) + _SNAP:
            best = snapped
    return best


def _cell(index: tuple[int, ...], columns: Sequence[str], values: Sequence[Any]) -> dict:
    out = {}
    for c, v, i in zip(columns, values, index, strict=True):
        value = v[i]
        out[c] = value.item() if isinstance(value, np.generic) else value
    return out


def _describe(cell: Mapping[str, Any]) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in cell.items())


def _check_feasible(
    pi: np.ndarray, prob: _Problem, columns: Sequence[str], values: Sequence[Any]
) -> None:
    """Raise InfeasibleError, naming the binding cell, unless some keep probabilities reach τ.

    Infeasible when a cell's Property-1 floor is at or above its bound (within the floating-point
    tolerance: the floor is reached only at the singular ``p = 1/d``), or when even
    ``p = 1/d + δ`` is not enough; under the average constraint, the same for the records' mean
    of the floors.
    """
    scenario = prob.scenario
    floor = property1_minimum(pi, scenario)
    hint = " or randomize more attributes (scenario 'Both')" if scenario != "Both" else ""
    if prob.constraint == "average":
        tau, least = float(prob.bound), float((pi * floor).sum())
        if least >= tau - _TOL:
            raise InfeasibleError(
                f"no keep probabilities give an average risk <= tau = {tau:.6g} in scenario "
                f"{scenario}: the records' mean risk cannot get below {least:.6g} (Property 1, "
                f"reached only at the singular p = 1/d); raise tau (lower l){hint}"
            )
        if prob.max_risk(prob.lower) > 1.0:
            reached = prob.normalized(prob.risk(prob.lower)) * tau
            raise InfeasibleError(
                f"tau = {tau:.6g} is too close to the least average risk scenario {scenario} can "
                f"reach: {reached:.6g} at keep probabilities 1/d + {_DELTA:g}; raise tau (lower "
                f"l){hint}"
            )
        return
    limit = prob.limit.reshape(pi.shape)
    # A risk is a probability: a bound of 1 or more (within the tolerance) holds at every p,
    # whatever the floor.
    bad = (pi > 0) & (floor >= limit - _TOL) & (limit < 1.0 - _TOL)
    if bad.any():
        worst = np.unravel_index(int(np.argmax(np.where(bad, floor / limit, -1.0))), pi.shape)
        raise InfeasibleError(
            f"no keep probabilities give risk <= tau = {float(limit[worst]):.6g} in scenario "
            f"{scenario}: cell {_describe(_cell(worst, columns, values))} cannot get below "
            f"{float(floor[worst]):.6g} (Property 1, reached only at the singular p = 1/d); "
            f"raise tau (lower l){hint}"
        )
    if prob.max_risk(prob.lower) > 1.0:
        risk = prob.risk(prob.lower)
        worst = np.unravel_index(int(np.argmax(risk / limit)), pi.shape)
        raise InfeasibleError(
            f"tau = {float(limit[worst]):.6g} is too close to the least risk scenario {scenario} "
            f"can reach: cell {_describe(_cell(worst, columns, values))} keeps risk "
            f"{float(risk[worst]):.6g} at keep probabilities 1/d + {_DELTA:g}; raise tau "
            f"(lower l){hint}"
        )


def check_bounds(tau: object, pi: np.ndarray) -> float | np.ndarray:
    """The risk bound: one τ in ``(0, 1]`` or an array of ``pi``'s shape with a τ per cell.

    Entries of empty cells (``π = 0``) are ignored (set to 1); the others must lie in ``(0, 1]``.

    Raises
    ------
    InputError
        A bad number, an array of another shape, or a non-empty cell's bound out of range.
    """
    if np.ndim(tau) == 0:
        return check_tau(tau=tau)
    try:
        arr = np.asarray(tau, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"tau: expected a number or an array of bounds per cell ({exc})") from None
    if arr.shape != pi.shape:
        raise InputError(
            f"tau: an array of bounds per cell needs pi's shape {pi.shape}, got {arr.shape}"
        )
    arr = np.where(pi > 0, arr, 1.0)
    bad = ~((arr > 0) & (arr <= 1))  # also catches NaN
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"tau: the bound of cell {where} must be in (0, 1], got {arr[where]!r}")
    return arr


def optimal_parameters_from_pi(
    pi: object,
    n: int,
    scenario: str,
    tau: float | np.ndarray,
    *,
    columns: Sequence[str] | None = None,
    values: Sequence[Sequence[Any]] | None = None,
    constraint: str = "every",
) -> OptimalParameters:
    """Optimal keep probabilities for given cell proportions (Problem 1 of Guo, Ying & Wu).

    Parameters
    ----------
    pi : array_like, shape (d_1, ..., d_m, d_s)
        True cell proportions (counts are normalized), quasi-identifiers first, sensitive last.
    n : int
        Number of records ``N`` (for the expected squared error).
    scenario : {"S", "QI", "Both"}
        Randomize the sensitive attribute, the quasi-identifiers, or both.
    tau : float or array_like
        Risk bound in ``(0, 1]``: every record must have ``Pr(S_r | QI_r) ≤ τ``. An array of
        ``pi``'s shape gives a bound per cell (individuals may have different thresholds, as the
        paper allows: a cell's bound is the least threshold of its records); entries of empty
        cells are ignored.
    columns : sequence of str, optional
        Names of the axes (default ``A1 … Am, S``).
    values : sequence of sequences, optional
        The value behind each code of each axis (default: the codes).
    constraint : {"every", "average"}, default "every"
        ``"every"``: the paper's constraint, on every record. ``"average"`` (our extension, not
        the paper's): only the records' mean risk ``Σ π_αu Pr(S | QI = α, u)`` must be at most
        ``τ`` (one ``τ``), so groups whose risk no randomization of the scenario can bring below
        ``τ`` no longer make the problem infeasible; the records left above ``τ`` are reported
        (``share_above``, ``cells_above``).

    Returns
    -------
    OptimalParameters

    Raises
    ------
    InputError
        Bad ``pi``, ``n``, ``scenario``, ``tau``, ``columns``, ``values`` or ``constraint`` (an
        array ``tau`` with ``"average"``), or a joint domain too large to hold.
    InfeasibleError
        If a bound is at or below the least risk the scenario can reach (Property 1); the
        message names the cell and its floor (under ``"average"``: the least mean risk).

    Examples
    --------
    >>> res = optimal_parameters_from_pi([[10, 30, 20], [12, 16, 12]], 100, "S", 1 / 3)
    >>> round(res.keep["S"], 6), res.binding_cell
    (0.711878, {'A1': 0, 'S': 1})
    """
    scenario = check_scenario(scenario)
    arr = check_proportions(pi)
    if constraint not in ("every", "average"):
        raise InputError(f"constraint: expected 'every' or 'average', got {constraint!r}")
    bound = check_bounds(tau, arr)
    if constraint == "average" and np.ndim(bound):
        raise InputError("tau: the average constraint takes one bound, not one per cell")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise InputError(f"n: the number of records must be a positive integer, got {n!r}")
    m = arr.ndim - 1
    columns = [f"A{i + 1}" for i in range(m)] + ["S"] if columns is None else list(columns)
    if len(columns) != arr.ndim or len(set(columns)) != len(columns):
        raise InputError(f"columns: need {arr.ndim} distinct names for pi's axes, got {columns}")
    values = [np.arange(d) for d in arr.shape] if values is None else list(values)
    if [len(v) for v in values] != list(arr.shape):
        raise InputError(f"values: need one value per code of each axis (shape {arr.shape})")

    prob = _Problem(arr, bound, scenario, constraint)
    x = np.ones(len(prob.free))
    if prob.needed:
        _check_feasible(arr, prob, columns, values)
        x = _solve(prob)
    keep, risk = prob.settle(x)
    limit = prob.limit.reshape(arr.shape)
    above = (arr > 0) & (risk > limit)
    ranking = risk if constraint == "average" else risk / limit
    top = np.unravel_index(int(np.argmax(ranking)), arr.shape)
    objective = math.prod(inverse_frobenius_sq(d, q) for d, q in zip(arr.shape, keep, strict=True))
    error = (objective / arr.size - float((arr * arr).sum())) / int(n)
    return OptimalParameters(
        keep={c: float(q) for c, q in zip(columns, keep, strict=True)},
        max_risk=float(risk.max()),
        objective=float(objective),
        expected_squared_error=float(error),
        binding_cell=_cell(top, columns, values),
        scenario=scenario,
        tau=float(limit[arr > 0].min()),
        constraint=constraint,
        average_risk=float((arr * risk).sum()),
        share_above=float(arr[above].sum()),
        cells_above=int(above.sum()),
    )


def cell_counts(
    data: pd.DataFrame, schema: Schema | Mapping[str, Any], thresholds: str | None = None
) -> tuple[Any, int, list[str], list[np.ndarray]]:
    """Cell counts of a table over the full domains of its quasi-identifiers and sensitive column.

    With ``thresholds`` (a column of ``data`` holding each record's risk threshold in
    ``(0, 1]``), ``counts`` is the pair ``(counts, bounds)``: ``bounds`` holds each cell's least
    threshold over its records (1 for empty cells).

    Returns
    -------
    counts : numpy.ndarray, shape (d_1, ..., d_m, d_s)
        Axes in schema order of the quasi-identifiers, then the sensitive column; each axis spans
        the column's dictionary (a hierarchy's leaves, values absent from the data included).
    n : int
        Number of records.
    columns : list of str
    values : list of arrays, the dictionary of each axis

    Raises
    ------
    SchemaError
        No quasi-identifier, or not exactly one sensitive column.
    InputError
        Bad data, a column of more than :data:`~.sampling.MAX_DOMAIN` values, a joint domain
        above 20 million cells, or a threshold missing or outside ``(0, 1]``.
    """
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    require_quasi(schema)  # the schema's shape first, as out of core, then the data's
    sensitive = schema.sensitive
    if len(sensitive) != 1:
        raise SchemaError(
            "randomized response bounds the disclosure of one sensitive column: the schema has "
            f"{len(sensitive)} ({', '.join(sensitive) or 'none'})"
        )
    table, _ = prepare(data, schema, None, need_hierarchies=False)
    columns = [*table.schema.quasi, sensitive[0]]
    shape = tuple(table.cardinality(c) for c in columns)
    for c, d in zip(columns, shape, strict=True):  # each one's matrix is published
        check_domain_size(c, d)
    if math.prod(shape) > MAX_JOINT_CELLS:
        raise InputError(
            f"the joint domain of {', '.join(columns)} has {math.prod(shape):,} cells "
            f"(sizes {shape}); at most {MAX_JOINT_CELLS:,} are supported: use fewer or coarser "
            "quasi-identifiers"
        )
    key = np.zeros(table.n_rows, dtype=np.int64)  # row-major cell index (mixed radix)
    for c, d in zip(columns, shape, strict=True):
        key = key * d + table.codes(c)
    counts = np.bincount(key, minlength=math.prod(shape)).astype(float).reshape(shape)
    if thresholds is not None:
        bound = np.ones(math.prod(shape))
        np.minimum.at(bound, key, _record_thresholds(data, thresholds, table.n_rows))
        counts = (counts, bound.reshape(shape))
    return counts, table.n_rows, columns, [table.dictionary(c) for c in columns]


def _record_thresholds(data: pd.DataFrame, column: str, n: int) -> np.ndarray:
    """Each record's risk threshold from a column of ``data``, checked to lie in ``(0, 1]``."""
    if not isinstance(column, str) or column not in data.columns:
        raise InputError(f"tau_column: {column!r} is not a column of the data")
    values = pd.to_numeric(data[column], errors="coerce").to_numpy(dtype=float)
    if len(values) != n:
        raise InputError(f"tau_column: {len(values)} thresholds for {n} records")
    bad = np.flatnonzero(~((values > 0) & (values <= 1)))
    if len(bad):
        raise InputError(
            f"tau_column '{column}': row {int(bad[0])} has {data[column].iloc[bad[0]]!r}; each "
            "record's threshold must be a number in (0, 1]"
        )
    return values


def optimal_parameters(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    scenario: str = "Both",
    *,
    l: float | None = None,  # noqa: E741 - ℓ-diversity's name for the parameter
    tau: float | None = None,
    tau_column: str | None = None,
    constraint: str = "every",
) -> OptimalParameters:
    """Keep probabilities that bound every record's disclosure risk by ``τ`` at least cost.

    The schema's quasi-identifiers and its one sensitive column define the cell proportions
    ``π`` over their full domains; the search of :func:`optimal_parameters_from_pi` then
    minimizes the expected squared error of the reconstructed ``π`` subject to
    ``Pr(S_r | QI_r) ≤ τ`` for every record.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
        At least one quasi-identifier and exactly one sensitive column. A quasi-identifier with a
        single value is a constant and keeps ``p = 1``.
    scenario : {"S", "QI", "Both"}
        Randomize the sensitive column (RR-S), the quasi-identifiers (RR-QI) or both (RR-Both).
    l : float, optional
        Diversity level ``ℓ ≥ 1``; the bound is ``τ = 1/ℓ``.
    tau : float, optional
        The bound itself, in ``(0, 1]``.
    tau_column : str, optional
        A column of ``data`` (outside the schema's roles) holding each record's own threshold in
        ``(0, 1]``: individuals may set different thresholds (Guo, Ying & Wu, §4); a cell's
        bound is the least threshold of its records, since the attacker's estimate is the same
        for all of them. Give exactly one of ``l``, ``tau`` and ``tau_column``.
    constraint : {"every", "average"}, default "every"
        ``"average"`` (our extension, not the paper's): bound the records' mean risk by ``τ``
        instead of every record's (see :func:`optimal_parameters_from_pi`); needs ``l`` or
        ``tau``.

    Returns
    -------
    OptimalParameters

    Raises
    ------
    InputError
        Not exactly one of ``l``, ``tau`` and ``tau_column``, ``l < 1``, a bound outside
        ``(0, 1]``, an unknown scenario or constraint, bad data.
    SchemaError
        No quasi-identifier, or not exactly one sensitive column.
    InfeasibleError
        If ``τ`` is at or below the least risk the scenario can reach for some cell; the message
        names the cell (column=value pairs) and that floor.
    """
    if tau_column is not None:
        if l is not None or tau is not None:
            raise InputError("give exactly one of l, tau and tau_column (the risk bound)")
        if constraint == "average":
            raise InputError("tau_column: the average constraint takes one bound (l or tau)")
        scenario = check_scenario(scenario)
        schema = schema if isinstance(schema, Schema) else Schema.from_dict(dict(schema))
        if tau_column in schema.columns:
            raise InputError(f"tau_column: {tau_column!r} has a role in the schema; leave it out")
        (counts, bound), n, columns, values = cell_counts(data, schema, tau_column)
    else:
        bound = check_tau(l, tau)
        scenario = check_scenario(scenario)
        counts, n, columns, values = cell_counts(data, schema)
    return optimal_parameters_from_pi(
        counts, n, scenario, bound, columns=columns, values=values, constraint=constraint
    )
