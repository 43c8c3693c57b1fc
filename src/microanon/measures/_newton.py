"""Newton–Raphson for two equations in two unknowns, restarted on ARX's schedule (private).

ARX solves the likelihood equations of Pitman's model and the moment equations of the SNB model
with the ``newtonraphson`` library of F. Prasser and F. Kohlmayer, configured by ARX's
``ARXSolverConfiguration``. :func:`solve` runs the same schedule:

- the model's own starting point first, then 16 fixed starting points, every ``(x, y)`` with
  ``x, y`` in ``0, 0.33, 0.66, 0.99`` (x outer; the values summed up in steps of 0.33 as ARX
  does);
- a start ends when it converges (``|F1|`` and ``|F2|`` at most ``1e-6``), when an iterate is NaN
  or fails the model's constraint, or after 1,000 Newton steps; its iterates 0 to 1,000 are
  tested for convergence;
- ARX's loop stops right after loading the last starting point, so that point is only tested,
  never stepped from;
- the answer is the converged point of the first start, in that order, that converges.

ARX also stops a start after 100 ms and the whole search after 1 s of wall time; here only
the step counts limit the search, so the result does not depend on the machine's speed. The
starts are independent, so the 16 fixed ones run side by side as numpy arrays: the first of
them to converge is the one ARX's sequential loop would return.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__: list[str] = []

#: Convergence: both equations within this of zero (ARX's default accuracy).
ACCURACY = 1e-6
#: Newton steps per starting point (ARX's default iterations per try).
MAX_STEPS = 1000

#: ``(x, y) -> (F1, F2, dF1/dx, dF1/dy, dF2/dx, dF2/dy)``, element-wise on arrays.
System = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]
#: ``(x, y) -> mask of the admissible iterates``.
Constraint = Callable[[np.ndarray, np.ndarray], np.ndarray]


class Root(NamedTuple):
    """A converged point and the start it came from (0: the model's own start)."""

    x: float
    y: float
    start: int


def grid_starts() -> np.ndarray:
    """ARX's 16 fixed starting points, shape (16, 2), accumulated in steps of 0.33."""
    values = []
    v = 0.0
    while v < 1.0:
        values.append(v)
        v += 0.33
    return np.array([(a, b) for a in values for b in values])


def solve(system: System, start: tuple[float, float], constraint: Constraint | None) -> Root | None:
    """The first root ARX's restarted Newton–Raphson finds, or None if no start converges."""
    with np.errstate(all="ignore"):
        found = _run(system, np.array([start], dtype=float), np.array([MAX_STEPS]), constraint)
        if found is not None:
            return Root(found[0], found[1], 0)
        grid = grid_starts()
        steps = np.full(len(grid), MAX_STEPS)
        steps[-1] = 0
        found = _run(system, grid, steps, constraint)
    return None if found is None else Root(found[0], found[1], found[2] + 1)


def _run(
    system: System, starts: np.ndarray, steps: np.ndarray, constraint: Constraint | None
) -> tuple[float, float, int] | None:
    """Newton from every start at once; the first start (in order) that converges, if any."""
    x, y = starts[:, 0].copy(), starts[:, 1].copy()
    alive = np.ones(len(x), dtype=bool)
    converged = np.zeros(len(x), dtype=bool)
    for step in range(MAX_STEPS + 1):
        idx = np.flatnonzero(alive & ~converged)
        if len(idx) == 0:
            break
        f1, f2, j11, j12, j21, j22 = system(x[idx], y[idx])
        done = (np.abs(f1) <= ACCURACY) & (np.abs(f2) <= ACCURACY)
        converged[idx[done]] = True
        first = np.flatnonzero(alive)
        if len(first) and converged[first[0]]:
            break  # no earlier start is still running: this is the answer
        det = j11 * j22 - j12 * j21
        nx = x[idx] - (j22 * f1 - j12 * f2) / det
        ny = y[idx] - (j11 * f2 - j21 * f1) / det
        ok = ~done & ~np.isnan(nx) & ~np.isnan(ny) & (step < steps[idx])
        if constraint is not None:
            ok &= constraint(nx, ny)
        x[idx[ok]], y[idx[ok]] = nx[ok], ny[ok]
        alive[idx[~done & ~ok]] = False
    hits = np.flatnonzero(converged & alive)
    if len(hits) == 0:
        return None
    i = int(hits[0])
    return float(x[i]), float(y[i]), i
