"""The lower bound of the optimum reported by the budgeted searches, in array operations.

The best-first and the genetic search (:mod:`._heuristic`, :mod:`._genetic`) check a few nodes
of a lattice too big to enumerate. What they learnt bounds the value of the nodes they did not
check: :func:`unexplored_bound` computes that bound from :class:`Known`, the facts below.

The facts. ``checked``: the nodes checked (a feasible one has a value of at least ``best``, the
incumbent's). ``sunk``: checked nodes below which every node is infeasible (the filter's records
only grow down the lattice; with monotone feasibility every infeasible node is one); their
down-set ``D`` holds no feasible node. ``clear``: checked feasible nodes that suppress nothing,
when "every class passes" is monotone up the lattice; every node above one suppresses nothing
either and, as every metric without suppression is non-decreasing up the lattice (the exact
search's ``dominated`` tag, :mod:`._search`), is no better than it: their up-set ``N`` holds no
node better than ``best``. The metric's bound (:meth:`._metrics.Metric.bound_of`) never
decreases from a node to its successors and is at most the value of every feasible node.

The candidates. An unchecked node in neither ``D`` nor ``N`` (a *candidate*) may be feasible
and better than ``best``; no other node can. :func:`unexplored_bound` returns a value ``v``
with ``v <= bound(x)`` for every candidate ``x`` whose bound is at most ``cap`` (``v`` is
infinite when it showed that there is none). With ``cap = best`` the optimum is at least
``min(best, v)``: a feasible node is checked (value ``>= best``), in ``N`` (no better than a
checked feasible node), of bound above ``best``, or a candidate of value ``>= bound >= v``.

How. A best-first walk keeps a *pool* of nodes and the smallest bound ``U`` of the candidates
met, and starts from the bottom node. It takes the pool's nodes of the smallest bounds, a batch
at a time, and for each node ``b``:

* a candidate: ``U`` becomes ``min(U, bound(b))``;
* in ``N``: dropped (every node above it is in ``N``);
* in ``D``, below the sunk node ``s``: replaced by its *escapes*, ``b`` with attribute ``i``
  raised to ``s_i + 1``, for every ``i`` with ``s_i`` below its height. A node above ``b`` and
  outside ``D`` is not below ``s``, so it exceeds ``s`` in some attribute ``i``: it lies above
  that escape. One escape can jump over many levels and nodes of ``D``, where a walk over
  successors would visit each of them;
* checked, in neither: replaced by its successors (every node above it lies above one).

Nodes already seen, and nodes whose bound exceeds ``cap`` or is not below ``U`` (every node
above them too), are not pooled. Why every candidate ``x`` of bound at most ``cap`` and below
``U`` lies above a node in the pool: take a highest node ``y`` among those seen below ``x`` (the
bottom is seen). Had ``y`` been left out or dropped for its bound, ``x``'s bound would exceed
``cap`` or not be below ``U``; had it been taken from the pool, it was a candidate (then
``U <= bound(y) <= bound(x)``), in ``N`` (then so is ``x``), or it was replaced by nodes, one of
which lies between ``y`` (strictly above it) and ``x`` and was seen, which ``y``'s choice rules
out. So ``y`` is in the pool, and as bounds never decrease up the lattice,
``min(U, smallest bound pooled)`` is a valid ``v`` at any moment: when the pool is empty
(``v = U``, the smallest bound of a candidate, exactly), when the deadline comes, or after
:data:`MOST_NODES` nodes seen (fewer for nodes of many attributes; then looser, never above
the truth). Which sunk node a node escapes does not matter to the validity; the walk takes
the first above it in the order of the smallest bound of an escape from the bottom, largest
first (a sunk node hard to escape prunes the most), which is always a maximal one, and only the
maximal sunk nodes (:func:`maximal`) are kept.

The clock is read between pieces of work whose size does not grow with the lattice's size or
the number of sunk nodes: a block of nodes for the maximal nodes and for the escapes' order,
and a batch of the walk whose children stay within :data:`_CHILD_CELLS` cells (with 1,416
attributes, a node has up to 1,416 children of 1,416 levels each).

The more the search checked, the larger the exact ``min(best, U)``: ``D`` and ``N`` only grow,
the checked nodes too, so every candidate of a longer search was one of a shorter search, and
a node checked since, if feasible, has a value at least its bound (or, in ``N`` then, at least
the shorter search's ``best``). A value cut short by the deadline or the size limit is still a
bound of the optimum, but may be lower than a shorter search's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.factorize import sorted_distinct

__all__ = ["MOST_NODES", "Known", "maximal", "unexplored_bound"]

#: Most nodes :func:`unexplored_bound` keeps (seen and pooled): beyond, it stops with the
#: smallest bound pooled (a few tens of bytes a node); fewer when they have more attributes
#: than :data:`_MOST_CELLS` allows.
MOST_NODES = 1_000_000
#: Most cells (nodes times attributes) of the nodes kept.
_MOST_CELLS = 1 << 26
#: Least nodes of a batch; a batch is also at least an eighth of the pool, and at most what
#: keeps its children within :data:`_CHILD_CELLS` cells (a node has up to ``q`` children).
BATCH = 4096
#: Most cells of the children of one batch.
_CHILD_CELLS = 1 << 25
#: Bytes of one block of bit sets.
_BLOCK_BYTES = 1 << 24
#: Cells (nodes times attributes) of one block of nodes whose bounds are computed at once.
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Known:
    """What a search knows about the lattice (level vectors as rows of ``(m, q)`` arrays).

    Attributes
    ----------
    heights : ndarray
        Each attribute's highest level.
    checked : ndarray
        Every node checked.
    sunk : ndarray
        Checked nodes below which every node is infeasible.
    clear : ndarray
        Checked feasible nodes above which no node is better (none when "every class passes"
        is not monotone).
    """

    heights: np.ndarray
    checked: np.ndarray
    sunk: np.ndarray
    clear: np.ndarray


class _Cover:
    """Which of some nodes lie above each node asked about, as bit sets.

    ``bits[i, l]`` holds bit ``j`` when node ``j`` has at least level ``l`` in attribute ``i``;
    the nodes above a node ``x`` are the AND of ``bits[i, x_i]`` over the attributes.
    """

    def __init__(self, nodes: np.ndarray, heights: np.ndarray) -> None:
        count, q = nodes.shape
        levels = np.arange(int(heights.max(initial=0)) + 1)
        self.words = max(1, -(-count // 64))
        flags = np.zeros((q, len(levels), self.words * 64), dtype=bool)
        for i in range(q):
            flags[i, :, :count] = nodes[:, i][None, :] >= levels[:, None]
        self.bits = np.packbits(flags, axis=2, bitorder="little").view(np.uint64)
        self.rows = max(1, _BLOCK_BYTES // (8 * self.words))  # rows of a block of bit sets

    def sets(self, x: np.ndarray) -> np.ndarray:
        """The ``(len(x), words)`` bit sets of the nodes above each row of ``x``."""
        out = self.bits[0][x[:, 0]]
        for i in range(1, x.shape[1]):
            out &= self.bits[i][x[:, i]]
        return out

    def any(self, x: np.ndarray) -> np.ndarray:
        """Whether some node lies above each row of ``x``."""
        found = [self.sets(x[a : a + self.rows]).any(axis=1) for a in range(0, len(x), self.rows)]
        return np.concatenate([np.zeros(0, dtype=bool), *found])

    @staticmethod
    def first(sets: np.ndarray) -> np.ndarray:
        """The index of the first node of each bit set (-1 for an empty set)."""
        nonzero = sets != 0
        word = nonzero.argmax(axis=1)
        value = sets[np.arange(len(sets)), word]
        low = value & (~value + np.uint64(1))  # the lowest bit set
        bit = np.log2(np.maximum(low, np.uint64(1)).astype(np.float64)).astype(np.int64)
        return np.where(nonzero.any(axis=1), word * 64 + bit, -1)

    def first_above(self, x: np.ndarray) -> np.ndarray:
        """The index of the first node above each row of ``x`` (-1 where none is)."""
        found = [self.first(self.sets(x[a : a + self.rows])) for a in range(0, len(x), self.rows)]
        return np.concatenate([np.zeros(0, dtype=np.int64), *found])

    def escapes(
        self, x: np.ndarray, above: np.ndarray, heights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The escapes of each row of ``x`` from the node ``above`` it (a row of nodes per row
        of ``x``): the row with one attribute ``i`` raised to ``above[:, i] + 1``, for every
        attribute where that is a level; and the index of the first node above each escape
        (-1 where none is), from the row's bit set and the one attribute raised."""
        children, firsts = [np.zeros((0, x.shape[1]), dtype=x.dtype)], [np.zeros(0, np.int64)]
        for a in range(0, len(x), self.rows):
            block, top = x[a : a + self.rows], above[a : a + self.rows]
            sets = self.sets(block)
            for i, h in enumerate(heights.tolist()):
                rows = top[:, i] < h
                child = block[rows]
                child[:, i] = top[rows, i] + 1
                children.append(child)
                firsts.append(self.first(sets[rows] & self.bits[i][child[:, i]]))
        return np.concatenate(children), np.concatenate(firsts)


def maximal(nodes: np.ndarray, heights: np.ndarray, until: float = float("inf")) -> np.ndarray:
    """The distinct nodes below no other of them (same down-sets), as an ``(m, q)`` array.

    Nodes of the same total level never lie below one another: the nodes are taken a total
    level at a time, from the highest, and those below a node kept are dropped, a block of rows
    at a time. At ``until`` (a :func:`time.perf_counter` time) the nodes kept so far are
    returned: fewer nodes are then known to be infeasible, which can only lower the bound they
    serve.
    """
    nodes = np.asarray(nodes).reshape(-1, len(heights))
    nodes = nodes[np.unique(_keys(nodes), return_index=True)[1]]
    totals = nodes.sum(axis=1)
    kept = [nodes[:0]]
    for total in np.unique(totals)[::-1].tolist():
        level = nodes[totals == total]
        cover = _Cover(np.concatenate(kept), heights)
        for a in range(0, len(level), cover.rows):
            if time.perf_counter() >= until:
                return np.concatenate(kept)
            block = level[a : a + cover.rows]
            kept.append(block[~cover.any(block)])
    return np.concatenate(kept)


def _keys(x: np.ndarray) -> np.ndarray:
    """Each row's bytes, as one sortable value."""
    x = np.ascontiguousarray(x)
    return x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()


def _successors(x: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """The nodes one level higher than a row of ``x`` in one attribute."""
    children = [np.zeros((0, x.shape[1]), dtype=x.dtype)]
    for i, h in enumerate(heights.tolist()):
        child = x[x[:, i] < h]
        child[:, i] += 1
        children.append(child)
    return np.concatenate(children)


def _ordered(
    tops: np.ndarray,
    heights: np.ndarray,
    bounds: Callable[[np.ndarray], np.ndarray],
    until: float,
) -> np.ndarray | None:
    """Sunk nodes, those hardest to escape from the bottom first: by the smallest bound of the
    bottom with one attribute ``i`` raised to ``s_i + 1``, largest first (then the higher
    total level first, so that a node comes before those below it); None when ``until`` (a
    :func:`time.perf_counter` time) comes first.

    The bottom raised in attribute ``i`` to level ``l`` is one node whatever the sunk node, so
    each of the ``Σ heights`` such nodes is bounded once, a block of :data:`_BLOCK_CELLS`
    cells at a time, with the deadline read between blocks."""
    q = len(heights)
    attribute = np.repeat(np.arange(q), heights)
    level = np.arange(len(attribute)) - np.repeat(np.cumsum(heights) - heights, heights) + 1
    raised = np.empty(len(attribute))
    rows = max(1, _BLOCK_CELLS // max(q, 1))
    for a in range(0, len(attribute), rows):
        if time.perf_counter() >= until:
            return None
        block = np.zeros((len(attribute[a : a + rows]), q), dtype=tops.dtype)
        block[np.arange(len(block)), attribute[a : a + rows]] = level[a : a + rows]
        raised[a : a + rows] = bounds(block)
    # raised bound per attribute and level (inf past the height: no escape there)
    table = np.full((q, int(heights.max(initial=0)) + 2), np.inf)
    table[attribute, level] = raised
    escape = table[np.arange(q), tops.astype(np.int64) + 1]
    easiest = escape.min(axis=1, initial=np.inf)
    return tops[np.lexsort((-tops.sum(axis=1, dtype=np.int64), -easiest))]


def unexplored_bound(
    known: Known,
    bound_of: Callable[[np.ndarray], np.ndarray],
    cap: float,
    until: float,
) -> float:
    """A value at most the bound of every candidate (an unchecked node not known infeasible
    nor no better) of bound at most ``cap``, infinite when there is none (see the module
    docstring for the walk and why it holds).

    Parameters
    ----------
    known : Known
        What the search knows.
    bound_of : callable
        The metric's lower bound of each row of an ``(m, q)`` array of levels
        (:meth:`._metrics.Metric.bound_of`).
    cap : float
        Nodes of larger bound are not looked at.
    until : float
        A :func:`time.perf_counter` time at which the walk stops, with a looser value.

    Returns
    -------
    float
        The smallest bound of a candidate, or, when the walk was cut short by ``until`` or
        :data:`MOST_NODES`, a smaller value.
    """
    heights = np.asarray(known.heights, dtype=np.int64)
    small = np.min_scalar_type(int(heights.max(initial=0)))
    q = len(heights)

    def bounds(x: np.ndarray) -> np.ndarray:
        return bound_of(x) if len(x) else np.zeros(0)

    pool = np.zeros((1, q), dtype=small)
    tops = maximal(known.sunk.astype(small), heights, until)
    if time.perf_counter() >= until:
        return float(bounds(pool)[0])  # the bottom's: no node's bound is smaller
    tops = _ordered(tops, heights, bounds, until)
    if tops is None:
        return float(bounds(pool)[0])
    sunk = _Cover(tops, heights)
    flipped = heights.astype(small)  # x lies above a clear node z when h - x lies below h - z
    clear = _Cover(maximal(flipped - known.clear.astype(small), heights, until), heights)
    checked = sorted_distinct(_keys(known.checked.astype(small)))
    pooled, pool_tops = bounds(pool), sunk.first_above(pool)
    seen = _keys(pool).copy()
    best = float("inf")  # the smallest bound of a candidate met (U)
    # Memory and time between two readings of the clock grow with the attributes: a node's
    # key has q of them, and it has up to q children of q each.
    most = min(MOST_NODES, _MOST_CELLS // max(q, 1))
    widest = max(1, _CHILD_CELLS // max(q * q, 1))
    while True:
        keep = (pooled <= cap) & (pooled < best)
        pool, pooled, pool_tops = pool[keep], pooled[keep], pool_tops[keep]
        if not len(pool):
            return best
        if time.perf_counter() >= until or len(seen) > most:
            return min(best, float(pooled.min()))
        size = min(max(BATCH, len(pool) // 8), widest)
        take = np.ones(len(pool), dtype=bool)
        if len(pool) > size:
            take = pooled <= np.partition(pooled, size - 1)[size - 1]
            if int(take.sum()) > size:  # ties: any of them will do (see the module docstring)
                take[:] = False
                take[np.argpartition(pooled, size - 1)[:size]] = True
        batch, batch_bounds, batch_tops = pool[take], pooled[take], pool_tops[take]
        pool, pooled, pool_tops = pool[~take], pooled[~take], pool_tops[~take]
        below = batch_tops >= 0
        free = ~below
        free[free] = ~clear.any(flipped - batch[free])
        keys = _keys(batch)
        at = np.searchsorted(checked, keys).clip(0, max(len(checked) - 1, 0))
        was_checked = checked[at] == keys if len(checked) else np.zeros(len(batch), dtype=bool)
        leaf = free & ~was_checked
        if leaf.any():
            best = min(best, float(batch_bounds[leaf].min()))
        escapes, escape_tops = sunk.escapes(batch[below], tops[batch_tops[below]], heights)
        step = batch[free & was_checked]  # not below a sunk node: neither is any above it
        successors = _successors(step, heights)
        children = np.concatenate([escapes, successors])
        children_tops = np.concatenate([escape_tops, np.full(len(successors), -1)])
        keys, first = np.unique(_keys(children), return_index=True)
        at = np.searchsorted(seen, keys)
        new = at >= len(seen)
        new[~new] = seen[at[~new]] != keys[~new]
        seen = np.insert(seen, at[new], keys[new])
        children, children_tops = children[first[new]], children_tops[first[new]]
        pool = np.concatenate([pool, children])
        pooled = np.concatenate([pooled, bounds(children)])
        pool_tops = np.concatenate([pool_tops, children_tops])
