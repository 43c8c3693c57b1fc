"""The unchecked nodes just above the checked ones, smallest bound first (genetic search).

When a generation of the genetic search (:mod:`._genetic`) checks no new node (a small lattice
nearly covered), it checks instead the ``count`` unchecked successors of checked nodes with the
smallest metric bounds (:meth:`._metrics.Metric.bound_of`), ties broken by the smaller level
vector. Listing every successor of every checked node at each such generation would cost the
checked nodes times ``q`` level vectors of ``q`` levels each time, and as many held at once.

:class:`Frontier` finds the same nodes by listing less. The bound never decreases from a node
to its successors, so every successor of a checked node has at least that node's bound: the
checked nodes are *expanded* (their unchecked successors listed and bounded) in the order of
their own bounds, each once in the whole search, and only while their bound does not exceed the
``count``-th smallest bound of the nodes listed so far. One priority queue holds both: a checked
node waiting to be expanded, and a listed node, by (bound, expansion first, levels). A listed
node comes out only when every checked node of a smaller or equal bound has been expanded, so
every node that could come before it is listed by then. A listed node checked since is dropped
when it comes out.
"""

from __future__ import annotations

import heapq
import itertools

from ._budget import Budget
from ._heuristic import Levels, _Walk

__all__ = ["Frontier"]

#: Most cells (nodes times attributes) bounded in one piece between two readings of the clock.
_BLOCK_CELLS = 1 << 22
#: The kinds of an entry of the queue; at equal bounds a checked node is expanded first.
_EXPAND, _LISTED = 0, 1


class Frontier:
    """The unchecked successors of the checked nodes of ``walk``, smallest bound first.

    Parameters
    ----------
    walk : _Walk
        The search's state: its ``checked`` nodes (in the order they were checked), their
        ``successors`` and the metric's ``bounds``.
    """

    def __init__(self, walk: _Walk) -> None:
        self.walk = walk
        self.queue: list[tuple[float, int, Levels]] = []
        self.listed: set[Levels] = set()  # the listed nodes in the queue
        self.seen = 0  # the checked nodes queued for expansion (the first ones of walk.checked)

    def smallest(self, count: int, budget: Budget) -> list[Levels]:
        """The ``count`` unchecked successors of checked nodes with the smallest bounds (ties:
        the smaller levels), in that order; fewer when there are fewer.

        Raises
        ------
        BudgetSpent
            The walk's share of the time limit is spent (:meth:`Budget.keep_time`, read between
            pieces of at most ``q`` listed nodes or :data:`_BLOCK_CELLS` bounded cells).
        """
        walk = self.walk
        rows = max(1, _BLOCK_CELLS // max(len(walk.heights), 1))
        unseen = itertools.islice(walk.checked, self.seen, None)  # checked since the last call
        while new := list(itertools.islice(unseen, rows)):
            for bound, node in zip(walk.bounds(new).tolist(), new, strict=True):
                heapq.heappush(self.queue, (bound, _EXPAND, node))
            self.seen += len(new)
            budget.keep_time()
        found: list[tuple[float, int, Levels]] = []
        try:
            while self.queue and len(found) < count:
                entry = heapq.heappop(self.queue)
                node = entry[2]
                if entry[1] == _EXPAND:
                    self._expand(node)
                    budget.keep_time()
                elif node in walk.checked:
                    self.listed.discard(node)
                else:
                    found.append(entry)
        finally:
            for entry in found:  # unchecked until the caller checks them
                heapq.heappush(self.queue, entry)
        return [entry[2] for entry in found]

    def _expand(self, node: Levels) -> None:
        """Queue the unchecked successors of a checked node not queued yet, with their bounds."""
        walk = self.walk
        succ = [s for s in walk.successors(node) if s not in walk.checked and s not in self.listed]
        for bound, s in zip(walk.bounds(succ).tolist(), succ, strict=True):
            heapq.heappush(self.queue, (bound, _LISTED, s))
        self.listed.update(succ)
