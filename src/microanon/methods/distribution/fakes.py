"""Fake values: add at most ``t`` fake sensitive values to a group so that the optimal sum of
ranges of the group plus fakes is smallest.

Problem 5.1, Algorithm 2 and Theorem 2 of Koudas, Srivastava, Yu & Zhang, *Distribution-based
Microdata Anonymization*, PVLDB 2(1):958–969, 2009.

The paper's recurrence ``minSORFake(g, k, r, H)`` (k fakes added, r values removed to an ancestor;
with three corrections to the printed version, checked against brute force: a minimum, not a sum,
over the split ``x``; ``k − x`` fakes to the right child, as in the pseudocode; and
``|g| + k − u − v − r`` copies at the node, which the paper's own Example 5 needs) is computed here
in an equivalent form that avoids its O(t²) inner loop per cell:

* ``F_N(m)`` — for a node ``N`` and the number ``m`` of values *kept* inside its subtree (the
  others go to ancestors), the Pareto frontier of (fakes used ``k``, least cost) pairs. Extra fakes
  can always be added at a leaf and passed up at no cost, so the cost is non-increasing in ``k``
  and the frontier describes every ``k`` at once.
* ``H_N(c)`` — the frontier when ``c`` allocation units go down (child ``i`` keeps ``c·w'_i``):
  the min-plus convolution of the children's frontiers at those sizes.
* ``F_N(m) = m·range(N) + min_{c ≤ ⌊m/Σw'⌋} (H_N(c) − c·Σw'·range(N))``, a running Pareto union
  over ``c``; keeping ``m`` values needs ``k ≥ m − |g_N|`` fakes.

Only the sizes a parent can ask for are computed (multiples of the child's reduced weight), and
the answer for exactly ``k`` fakes is ``F_root(|g| + k)`` at ``k``. This minimizes over every
multiplier ``c``, not only the largest as the paper does, and so works for any arity (the paper's
recurrence is for binary hierarchies); on binary hierarchies it returns the same optimum, and the
tests check it against brute force over all fake multisets. Back-pointers give the chosen fakes
and entries.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError
from .hierarchy import AnnotatedHierarchy
from .min_sum_of_range import Generalization

__all__ = ["FakeGeneralization", "min_sor_fake", "fake_budget"]


@dataclass(frozen=True, eq=False)
class FakeGeneralization(Generalization):
    """A :class:`Generalization` with fakes, plus the optimum for every number of fakes.

    Attributes
    ----------
    sor_by_fakes : numpy.ndarray of float
        ``minSORFake(g, k, 0, H)`` for ``k = 0 .. t`` (``inf`` where exactly ``k`` fakes cannot
        be placed).
    """

    sor_by_fakes: np.ndarray = None  # type: ignore[assignment]


def fake_budget(t: int | float, group_size: int) -> int:
    """The number of fakes allowed for a group: ``t`` itself, or ``⌊t·|g|⌋`` for a share ``t < 1``.

    Raises
    ------
    InputError
        ``t`` negative, not a number, or a share ``>= 1`` given as a float.
    """
    if isinstance(t, bool) or not isinstance(t, numbers.Real) or not np.isfinite(t) or t < 0:
        raise InputError(f"fakes: expected a count >= 0 or a share in [0, 1), got {t!r}")
    if isinstance(t, numbers.Integral) or float(t) == int(t) and t >= 1:
        return int(t)
    if t >= 1:
        raise InputError(f"fakes: a share must be below 1 (got {t!r}); give a whole count instead")
    return int(np.floor(float(t) * group_size + 1e-9))


class _Frontier:
    """Pareto points (fakes ``k`` ascending, cost strictly descending) with back-pointers."""

    __slots__ = ("k", "cost", "back")

    def __init__(self, k: np.ndarray, cost: np.ndarray, back: np.ndarray) -> None:
        self.k, self.cost, self.back = k, cost, back


_EMPTY = _Frontier(np.empty(0, np.int64), np.empty(0), np.empty((0, 0), np.int64))
_ZERO = _Frontier(np.zeros(1, np.int64), np.zeros(1), np.zeros((1, 0), np.int64))


def _pareto(k: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Indices of the Pareto points, by ascending ``k``."""
    if k.size <= 1:
        return np.arange(k.size)
    order = np.lexsort((cost, k))
    c = cost[order]
    keep = np.empty(order.size, dtype=bool)
    keep[0] = True
    keep[1:] = c[1:] < np.minimum.accumulate(c)[:-1]
    return order[keep]


def _convolve(a: _Frontier, b: _Frontier, t: int) -> _Frontier:
    """Min-plus convolution over the number of fakes; back = (index in a, index in b, ...)."""
    if a.k.size == 0 or b.k.size == 0:
        return _EMPTY
    k = (a.k[:, None] + b.k[None, :]).ravel()
    cost = (a.cost[:, None] + b.cost[None, :]).ravel()
    ok = np.flatnonzero(k <= t)
    sel = ok[_pareto(k[ok], cost[ok])]
    ia, ib = np.divmod(sel, b.k.size)
    back = np.column_stack([a.back[ia] if a.back.size else ia[:, None], ib])
    return _Frontier(k[sel], cost[sel], back)


def _union(a: _Frontier, b: _Frontier) -> _Frontier:
    if b.k.size == 0:
        return a
    if a.k.size == 0:
        return b
    k = np.concatenate([a.k, b.k])
    cost = np.concatenate([a.cost, b.cost])
    back = np.concatenate([a.back, b.back])
    sel = _pareto(k, cost)
    return _Frontier(k[sel], cost[sel], back[sel])


class _Solver:
    def __init__(self, h: AnnotatedHierarchy, leaf_counts: np.ndarray, t: int) -> None:
        self.h, self.t = h, t
        self.n = h.subtree_counts(leaf_counts)
        self.top, self.cmax = self._limits()
        self.frontiers: list[dict[int, _Frontier]] = [{} for _ in range(h.n_nodes)]
        self.prefix: list[list[_Frontier]] = [[] for _ in range(h.n_nodes)]

    def _limits(self) -> tuple[np.ndarray, np.ndarray]:
        """The largest number of values each node may be asked to keep (``top``), and of
        copies each inner node may keep of its reduced weight (``cmax``): from the root down,
        one depth at a time (the breadth-first order puts the children of the nodes of a depth
        one after the other). A node keeps at most its parent's copies of its reduced weight;
        an inner node's copies are bounded by what it may keep over its unit, and by what each
        child with a reduced weight could hold (its values and the fakes, over that weight)."""
        h, t = self.h, self.t
        rw, unit = h.reduced_weight, h.unit
        top = np.zeros(h.n_nodes, dtype=np.int64)
        top[0] = self.n[0] + t
        cmax = np.zeros(h.n_nodes, dtype=np.int64)
        inner = np.flatnonzero(h.child_count > 0)
        if not inner.size:
            return top, cmax
        # what each node, as a child with a reduced weight, could hold; no bound without one
        held = np.full(h.n_nodes, np.iinfo(np.int64).max, dtype=np.int64)
        weighted = rw > 0
        held[weighted] = (self.n[weighted] + t) // rw[weighted]
        # (the children of the inner nodes, in order, are the nodes 1 .. n_nodes - 1)
        least = np.minimum.reduceat(held, h.child_start[inner])
        depth = h.depth
        for d in range(int(depth.max()) + 1):
            at = depth[inner] == d
            nodes = inner[at]
            if not nodes.size:
                continue
            units = unit[nodes]
            c = np.where(units > 0, top[nodes] // np.maximum(units, 1), 0)
            cmax[nodes] = np.minimum(c, least[at])
            kids = np.flatnonzero(depth == d + 1)
            top[kids] = cmax[h.parent[kids]] * rw[kids]
        return top, cmax

    def _kids(self, v: int) -> np.ndarray:
        """The children of node ``v`` (none for a leaf)."""
        start = int(self.h.child_start[v])
        return np.arange(start, start + int(self.h.child_count[v]))

    def _leaf(self, v: int, m: int) -> _Frontier:
        need = max(0, m - int(self.n[v]))
        if need > self.t:
            return _EMPTY
        cost = np.array([m * float(self.h.node_range[v])])  # 0 for a numeric leaf
        return _Frontier(np.array([need]), cost, np.zeros((1, 0), np.int64))

    def solve(self) -> None:
        h = self.h
        rw = h.reduced_weight
        for v in range(h.n_nodes - 1, -1, -1):  # children before parents
            if self.top[v] == 0:  # asked to keep nothing: no values, no fakes, no cost
                self.frontiers[v] = {0: _ZERO}
                continue
            kids = self._kids(v)
            sizes = (
                [int(self.n[0]) + k for k in range(self.t + 1)]
                if v == 0
                else [c * int(rw[v]) for c in range(int(self.cmax[h.parent[v]]) + 1)]
            )
            if kids.size == 0:
                self.frontiers[v] = {m: self._leaf(v, m) for m in sizes}
                continue
            self._inner(v, kids, sizes)

    def _inner(self, v: int, kids: np.ndarray, sizes: list[int]) -> None:
        h, t = self.h, self.t
        rw, unit, rng = h.reduced_weight, int(h.unit[v]), float(h.node_range[v])
        live = [int(i) for i in kids if rw[i] > 0]
        prefix: list[_Frontier] = []
        running = _EMPTY
        for c in range(int(self.cmax[v]) + 1):
            f = None
            for i in live:
                child = self.frontiers[i].get(c * int(rw[i]), _EMPTY)
                f = child_back(child) if f is None else _convolve(f, child, t)
            if f is None:  # no child with weight: nothing goes down
                f = _ZERO
            shifted = _Frontier(
                f.k, f.cost - c * unit * rng, np.column_stack([np.full(f.k.size, c), f.back])
            )
            running = _union(running, shifted)
            prefix.append(running)
        self.prefix[v] = prefix
        out: dict[int, _Frontier] = {}
        n_v = int(self.n[v])
        for m in sizes:
            q = prefix[min(m // unit, len(prefix) - 1)] if unit > 0 else prefix[0]
            if q.k.size == 0:
                out[m] = _EMPTY
                continue
            k = np.maximum(q.k, m - n_v)
            ok = np.flatnonzero(k <= t)
            sel = ok[_pareto(k[ok], q.cost[ok])]
            out[m] = _Frontier(k[sel], q.cost[sel] + m * rng, sel[:, None])
        self.frontiers[v] = out

    def optimum(self) -> np.ndarray:
        """``minSORFake(g, k, 0)`` for ``k = 0..t``."""
        best = np.full(self.t + 1, np.inf)
        for k in range(self.t + 1):
            f = self.frontiers[0][int(self.n[0]) + k]
            hit = np.flatnonzero(f.k == k)
            if hit.size:
                best[k] = f.cost[hit[0]]
        return best

    def reconstruct(self, k_total: int) -> tuple[np.ndarray, np.ndarray]:
        """Entries per node and the fake values of the optimum with exactly ``k_total`` fakes."""
        h = self.h
        rw, unit = h.reduced_weight, h.unit
        copies = np.zeros(h.n_nodes, dtype=np.int64)
        fakes: list[np.ndarray] = []
        m0 = int(self.n[0]) + k_total
        f0 = self.frontiers[0][m0]
        stack = [(0, m0, int(np.flatnonzero(f0.k == k_total)[0]))]
        while stack:
            v, m, idx = stack.pop()
            if m == 0:
                continue
            f = self.frontiers[v][m]
            k_here = int(f.k[idx])
            if self.h.child_count[v] == 0:
                copies[v] = m
                fakes.append(np.full(k_here, h.values[h.lo[v]]))
                continue
            u = int(unit[v])
            q = self.prefix[v][min(m // u, len(self.prefix[v]) - 1)] if u > 0 else self.prefix[v][0]
            qi = int(f.back[idx, 0])
            extra = k_here - int(q.k[qi])
            if extra:  # surplus fakes: any value of the subtree, generalized to v or above
                fakes.append(np.full(extra, h.values[h.lo[v]]))
            c = int(q.back[qi, 0])
            copies[v] = m - c * u
            live = [int(i) for i in self._kids(v) if rw[i] > 0]
            for j, i in enumerate(live):
                stack.append((i, c * int(rw[i]), int(q.back[qi, 1 + j])))
        return copies, np.concatenate(fakes) if fakes else np.empty(0, h.values.dtype)


def child_back(f: _Frontier) -> _Frontier:
    """A child's frontier as the start of a convolution: back-pointer = its own point index."""
    return _Frontier(f.k, f.cost, np.arange(f.k.size)[:, None])


def min_sor_fake(
    values: np.ndarray, hierarchy: AnnotatedHierarchy, t: int | float
) -> FakeGeneralization:
    """Problem 5.1: add at most ``t`` fakes to a group to minimize its optimal sum of ranges.

    Parameters
    ----------
    values : array
        The group's sensitive values (domain values of ``hierarchy``).
    hierarchy : AnnotatedHierarchy
        Encodes the target distribution (any arity).
    t : int or float
        Largest number of fakes, or a share of the group size when below 1 (``0.2`` = 20%).

    Returns
    -------
    FakeGeneralization
        The optimal entries per node and the chosen ``fakes`` (the fewest fakes among optimal
        solutions), ``sum_of_ranges``, and ``sor_by_fakes`` (the optimum for each exact number
        of fakes ``0..t``; ``k = 0`` equals :func:`min_sum_of_range`).

    Raises
    ------
    InputError
        A value outside the domain, or a bad ``t``.

    Examples
    --------
    Example 2 of the paper: domain 1..8, uniform binary hierarchy, ``g = {1, 3, 5}``:

    >>> h = AnnotatedHierarchy.balanced(range(1, 9))
    >>> r = min_sor_fake([1, 3, 5], h, 2)
    >>> r.sor_by_fakes.tolist(), r.sum_of_ranges, len(r.fakes)
    ([13.0, 4.0, 11.0], 4.0, 1)
    """
    idx = hierarchy.leaf_index(np.asarray(values))
    budget = fake_budget(t, len(idx))
    solver = _Solver(hierarchy, np.bincount(idx, minlength=len(hierarchy.values)), budget)
    solver.solve()
    by_fakes = solver.optimum()
    k_best = int(np.argmin(by_fakes))
    copies, fakes = solver.reconstruct(k_best)
    return FakeGeneralization(hierarchy, copies, np.sort(fakes), by_fakes)
