"""Best-first full-domain search with a budget, for lattices too big for the exact search.

The exact search (:mod:`._search`) keeps arrays over every node of the lattice, so it stops at
:data:`._lattice.MAX_NODES` nodes; twelve survey variables with five or six levels each already
make billions. This search never enumerates the lattice: a node is its level vector, its
successors are the vectors one level higher in one attribute, and only the nodes it checks are
stored.

What it checks, it checks exactly: a node's frequency set is rolled up from the table's, the
models' filter and :meth:`ModelSet.failing` decide which classes are suppressed (the very check
of the exact search, re-checks against the kept records' distribution included), and the node
is feasible when at most the limit of records is suppressed. The published node is the best
feasible node checked under the exact search's rule (smallest value, ties within a relative
1e-10 broken by fewer suppressed records, the lower total level, the lexicographically smaller
levels), so it satisfies every model whatever the budget; it is the optimum when the exact
search would have found no better node, which a search stopped by its budget cannot promise.

The walk (bottom up, best first). The bottom and the top are checked first. Every checked node
gets a *score*: its metric value with the records of its failing classes suppressed, whether
or not that is within the limit (an infeasible node scores worse the more it would suppress
and the more it generalizes). A priority queue holds the checked nodes not yet expanded, by
score (then total level, then levels). The search pops the best one and *dives*: it expands
the node (checks each unchecked successor whose lower bound (:meth:`Metric.bound_of`) does not
exceed the incumbent's value plus the tie tolerance), moves to the best-scoring infeasible
successor just checked and expands it in turn, until a feasible node is found or no successor
is left. A new incumbent is then improved by local moves: its unchecked predecessors within
the bound are checked, then (if none is better) the nodes one level lower in one attribute
and one level higher in another, and the search moves to a better feasible one while there is
one. Feasible
nodes are expanded too (with suppression a node above may suppress fewer records), except
those that suppress nothing when every model's "every class passes" is monotone: every node
above them suppresses nothing and is no better. The search stops when the queue is empty, or
before a check that would exceed ``step_limit`` checked nodes or start after 90 % of
``time_limit`` seconds (the lower bound below takes at most the rest, up to 99 % of it, and
stops short, with a looser bound, rather than run over; the release is built after that).
Nothing is drawn at random: the same table, models and ``step_limit`` give the same node; a
node found under a time limit depends on the machine's speed.

What is known about the gap (``lower_bound``, computed alike for the genetic search). A node
the search did not check can be the optimum only if it is not known to be infeasible (below a
checked node whose filter alone suppresses more than the limit, or below any infeasible node
when feasibility is monotone), nor known to be no better (above a checked feasible node that
suppresses nothing, when "every class passes" is monotone), and its metric bound (which never
decreases up the lattice and is at most the value of every feasible node) does not exceed the
incumbent's value. :func:`._lower_bound.unexplored_bound` finds the smallest bound of such a
node in array operations, walking up from the bottom and jumping out of the down-sets of the
infeasible nodes; the smaller of it and the incumbent's value is a lower bound of the optimum.
It is computed after 1,024 checks and at every doubling (each within a twentieth of the time
spent so far), and at the end (by the bound's deadline, :meth:`._budget.Budget.bound_deadline`);
one cut short by its deadline is looser, still a bound. Each is a bound of the same optimum, so
the search reports the largest (:meth:`_Walk.unexplored_bound`): never less than a bound it
computed with fewer checks. A bound computed to the end never decreases as the search checks
more nodes (:mod:`._lower_bound`), so a longer search reports at least the bound of a shorter
one unless its last computation was cut short. When the queue empties, every node skipped
had a bound above the incumbent plus the tie tolerance: the search then checked every node that
could beat or tie it, and its answer is the exact search's (``stopped="exhausted"``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...core.errors import InfeasibleError
from ...core.table import Table
from ._budget import DEFAULT_TIME_LIMIT, Budget, BudgetSpent, SearchWatch
from ._lattice import node_count
from ._lattice_frequencies import FrequencySet, LevelMaps, frequency_set, records_per, roll_up
from ._lower_bound import Known, unexplored_bound
from ._metrics import Metric, make_metric
from ._search import (
    FrequencyCache,
    SearchResult,
    infeasible_error,
    least_starred,
    star_refusal,
)
from ._search_models import ModelSet

__all__ = ["heuristic_search"]

Levels = tuple[int, ...]

#: Checks after which the lower bound is computed during the search (then at every doubling):
#: see :meth:`_Walk.unexplored_bound`.
CHECKPOINT = 1024


@dataclass
class _Checked:
    """What the exact check of one node found."""

    feasible: bool
    suppressed: int
    value: float  # the metric with the failing classes' records suppressed (feasible or not)
    total: int
    sunk: bool = False  # infeasible, and so is every node below it
    star_fails: str | None = None  # star mode: the model its '*' class fails (Verdict.head)
    step: int = 0  # which check of the search it was (1 for the first)
    seconds: float = 0.0  # when it was checked, in seconds since the search began


class _Walk:
    """The table's frequency sets, the exact node checks and the incumbent of one search."""

    def __init__(self, table: Table, models: ModelSet, limit: int, metric_name: str) -> None:
        schema = table.schema
        self.quasi = schema.quasi
        self.hierarchies = [schema.hierarchy(c) for c in self.quasi]
        self.heights = [int(h.height) for h in self.hierarchies]
        self.size = math.prod(h + 1 for h in self.heights)
        self.maps = LevelMaps(self.hierarchies)
        self.models = models
        self.limit = limit
        self.n = table.n_records
        self.n_rows = table.n_rows
        self.metric_name = metric_name
        sa = None
        self.n_sa = 0
        if models.needs_sensitive:
            sa = table.codes(models.sensitive)
            self.n_sa = table.cardinality(models.sensitive)
        leaf_codes = [table.codes(c) for c in self.quasi]  # (not copied: see frequency_set)
        self.bottom, self.row_of = frequency_set(
            np.zeros(len(self.quasi), dtype=np.int64),
            leaf_codes,
            [h.n_leaves for h in self.hierarchies],
            table.counts,
            sa,
            self.n_sa,
        )
        models.attach_populations(self.quasi, self.hierarchies, self.maps, self.bottom)
        leaf_counts = [
            records_per(c, table.counts, h.n_leaves)
            for c, h in zip(leaf_codes, self.hierarchies, strict=True)
        ]
        self.metric: Metric = make_metric(
            metric_name,
            None,
            self.hierarchies,
            leaf_counts,
            self.maps,
            self.n,
            self.bottom.n_classes,
            models.min_class_size,
        )
        self.cache = FrequencyCache(self.bottom, self.maps, self.n_sa)
        self.checked: dict[Levels, _Checked] = {}
        self.best = float("inf")
        self.incumbent: Levels | None = None  # a feasible node of the smallest value so far
        self.feasible: list[Levels] = []
        self.monotone = models.feasibility_monotone(limit)
        self.lower = -math.inf  # the largest lower bound of the optimum computed so far

    def reported_best(self) -> float | None:
        """The incumbent's metric value as reported (None before a feasible node is found)."""
        return None if self.incumbent is None else self.metric.report(self.best)

    def tolerance(self) -> float:
        """How far above the incumbent a value still ties (infinite before any incumbent)."""
        return self.metric.tolerance(self.best) if self.incumbent is not None else float("inf")

    def within(self, bounds: np.ndarray) -> np.ndarray:
        """Which bounds leave room to beat or tie the incumbent."""
        return bounds <= self.best + self.tolerance()

    def check(self, node: Levels, budget: Budget) -> _Checked:
        """Charge one node to ``budget`` (:meth:`Budget.spend`), check it exactly, as the exact
        search does, and update the incumbent."""
        budget.spend(self.reported_best())
        fs = self.cache.at(np.asarray(node, dtype=np.int64))
        fail = self.models.filter(fs)
        suppressed = filtered = int(fs.sizes[fail].sum())
        if suppressed <= self.limit:
            fail, _ = self.models.failing(fs, fail, self.limit)
            suppressed = int(fs.sizes[fail].sum())
        starred = self.models.star_refused(fs, fail, self.limit)
        feasible = suppressed <= self.limit and starred is None
        value = self.metric.value(fs, fail, suppressed)
        res = _Checked(
            feasible,
            suppressed,
            value,
            sum(node),
            step=budget.steps,
            seconds=budget.seconds,
            star_fails=starred,
        )
        # The filter's records only grow down the lattice; with monotone feasibility every
        # node below an infeasible one is infeasible.
        res.sunk = not feasible and (filtered > self.limit or self.monotone)
        self.checked[node] = res
        if feasible:
            self.feasible.append(node)
            if res.value < self.best:
                self.best, self.incumbent = res.value, node
        if budget.bound and budget.steps >= CHECKPOINT and (budget.steps & budget.steps - 1) == 0:
            self.unexplored_bound(budget, self.best, budget.checkpoint_deadline())
        return res

    def winner(self) -> Levels:
        """The feasible node checked that the exact search's rule prefers: the smallest value,
        ties (within the tolerance) broken by fewer suppressed records, then the lower total
        level, then the lexicographically smaller levels."""
        tol = self.metric.tolerance(self.best)
        ties = [x for x in self.feasible if self.checked[x].value <= self.best + tol]
        return min(ties, key=lambda x: (self.checked[x].suppressed, self.checked[x].total, x))

    def successors(self, node: Levels) -> list[Levels]:
        """Nodes one level higher in exactly one attribute."""
        out = []
        for i, (lv, h) in enumerate(zip(node, self.heights, strict=True)):
            if lv < h:
                out.append(node[:i] + (lv + 1,) + node[i + 1 :])
        return out

    def predecessors(self, node: Levels) -> list[Levels]:
        """Nodes one level lower in exactly one attribute."""
        return [node[:i] + (lv - 1,) + node[i + 1 :] for i, lv in enumerate(node) if lv > 0]

    def sideways(self, node: Levels) -> list[Levels]:
        """Nodes one level lower in one attribute and one level higher in another."""
        out = []
        for i, lv in enumerate(node):
            if lv == 0:
                continue
            down = node[:i] + (lv - 1,) + node[i + 1 :]
            out += [s for s in self.successors(down) if s != node]
        return out

    def improve(
        self, node: Levels, check: Callable[[Levels], _Checked], sideways: bool = True
    ) -> None:
        """Move from a new incumbent to better feasible neighbours: its predecessors, then (with
        ``sideways``) the nodes one level lower in one attribute and higher in another.

        Only unchecked neighbours whose bound leaves room to beat or tie the incumbent are
        checked, with ``check`` (the caller's budgeted check, which may raise
        :class:`BudgetSpent`), in order of their bounds; the move goes to the last of them that
        became the incumbent, and is repeated from there while there is one.
        """
        moves = (self.predecessors, self.sideways) if sideways else (self.predecessors,)
        while True:
            better = None
            for near in moves:
                cand = [p for p in near(node) if p not in self.checked]
                bounds = self.bounds(cand)
                for j in np.argsort(bounds, kind="stable").tolist():
                    if not self.within(bounds[j : j + 1])[0]:
                        continue
                    check(cand[j])
                    if self.incumbent == cand[j]:
                        better = cand[j]
                if better is not None:
                    break
            if better is None:
                return
            node = better

    def bounds(self, nodes: Sequence[Levels]) -> np.ndarray:
        """The metric's lower bound of each node."""
        if not nodes:
            return np.zeros(0)
        return self.metric.bound_of(np.asarray(nodes, dtype=np.int64))

    def known(self) -> Known:
        """What the checks taught about the nodes not checked (:class:`._lower_bound.Known`):
        the nodes checked, the sunk ones, and, when "every class passes" is monotone, the
        feasible ones that suppress nothing."""
        nodes = np.asarray(list(self.checked), dtype=np.int64).reshape(-1, len(self.heights))
        sunk = np.fromiter((r.sunk for r in self.checked.values()), bool, len(nodes))
        clear = np.fromiter(
            (r.feasible and r.suppressed == 0 for r in self.checked.values()), bool, len(nodes)
        )
        clear &= self.models.monotone
        return Known(np.asarray(self.heights, dtype=np.int64), nodes, nodes[sunk], nodes[clear])

    def unexplored_bound(self, budget: Budget, cap: float, until: float) -> float:
        """A value at most the bound of every node not checked that may be feasible and better
        than the incumbent, among those of bound at most ``cap``; infinite when there is none
        (:func:`._lower_bound.unexplored_bound`, stopped at ``until``, a
        :func:`time.perf_counter` time). It is the bottom node's bound, at once, when the budget
        says that nobody reads the bound (:class:`._budget.Budget`).

        The smaller of it and the incumbent's value is a lower bound of the optimum (see
        :mod:`._lower_bound`); the largest such bound of the search is kept in ``lower``. The
        optimum is one number: a bound of it computed earlier, with less known, stays one, so
        the search never reports a bound below one it computed before.
        """
        if budget.bound:
            value = unexplored_bound(self.known(), self.metric.bound_of, cap, until)
        else:
            value = float(self.bounds([(0,) * len(self.heights)])[0])
        self.lower = max(self.lower, min(self.best, value))
        return value

    def result(self, kind: str, budget: Budget, stopped: str) -> SearchResult:
        """The search's answer: the winner (:meth:`winner`), its suppressed rows, and the
        largest lower bound of the optimum the search computed (:meth:`unexplored_bound`, at
        the end of the search and at its checkpoints)."""
        winner = self.winner()
        inc = self.checked[winner]
        self.unexplored_bound(budget, self.best, budget.bound_deadline())
        lower = min(self.lower, inc.value)
        if lower >= inc.value - self.metric.tolerance(inc.value):
            # It ties with the winner (the tie tolerance absorbs the rounding of a value or a
            # bound computed in another order): the winner is optimal, its value the bound.
            lower = inc.value
        if inc.suppressed:
            mask = self.suppressed_at(winner)[2]
        else:  # no class fails: nothing to map back to the rows
            mask = np.zeros(self.n_rows, dtype=bool)
        return SearchResult(
            levels={q: int(lv) for q, lv in zip(self.quasi, winner, strict=True)},
            metric=self.metric_name,
            metric_value=self.metric.report(inc.value),
            suppressed=inc.suppressed,
            nodes_checked=budget.steps,
            lattice_size=self.size,
            search_seconds=budget.seconds,
            suppressed_mask=mask,
            kind=kind,
            lower_bound=self.metric.report(lower),
            stopped=stopped,
            found_step=inc.step,
            found_seconds=inc.seconds,
        )

    def suppressed_at(self, node: Levels) -> tuple[FrequencySet, np.ndarray, np.ndarray]:
        """A node's frequency set, its classes that the models reject and the table rows they
        hold (a bool array over the rows), as the exact search finds them."""
        fs, row_of = roll_up(self.bottom, np.asarray(node, dtype=np.int64), self.maps, self.n_sa)
        fail, _ = self.models.failing(fs, self.models.filter(fs))
        return fs, fail, fail[fs.cls[row_of[self.row_of]]]


def heuristic_search(
    table: Table,
    models: ModelSet,
    limit: int,
    metric: str,
    suppression: float,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    step_limit: int | None = None,
    watch: SearchWatch | None = None,
    lower_bound: bool = True,
    start: Sequence[Levels] = (),
) -> SearchResult:
    """The best feasible node a best-first walk finds within a budget (see the module docstring).

    Parameters
    ----------
    table : Table
        The encoded original table (quasi-identifiers with hierarchies).
    models : ModelSet
        The models, as the exact search builds them (:func:`._search._model_set`).
    limit : int
        Records that may be suppressed.
    metric : str
        A canonical metric name (:func:`._metrics.canonical_metric`).
    suppression : float
        The share behind ``limit`` (for messages).
    time_limit : float or None
        Seconds after which no further node is checked (None: no time limit).
    step_limit : int or None
        Most nodes checked (None: no such limit).
    watch : SearchWatch, optional
        Hears of every node checked and may stop the search (the best node so far is kept).
    lower_bound : bool
        Whether to work for the result's ``lower_bound`` (False: the bottom node's bound, at
        once, for a search whose bound nobody reads; a search that runs out of nodes to check
        ends all the same).
    start : sequence of levels
        Nodes checked first, after the bottom (a node known to be feasible, such as a release's
        levels under a relaxed configuration: the search then finds none worse).

    Returns
    -------
    SearchResult
        With ``kind="best-first"``, ``lower_bound`` and ``stopped``.

    Raises
    ------
    InfeasibleError
        No feasible node was found: every node was checked (or the models fail on the top node
        and feasibility is monotone), or the budget ran out first (the message says which).
    """
    budget = Budget(time_limit, step_limit, watch, lower_bound)
    walk = _Walk(table, models, limit, metric)
    stopped = "exhausted"

    def check(node: Levels) -> _Checked:
        return walk.check(node, budget)

    queue: list[tuple[float, int, Levels]] = []
    expanded: set[Levels] = set()
    skip_feasible = models.monotone

    def push(node: Levels, res: _Checked) -> None:
        if res.feasible and res.suppressed == 0 and skip_feasible:
            return  # every node above suppresses nothing and is no better
        heapq.heappush(queue, (res.value, res.total, node))

    def visit(node: Levels) -> _Checked:
        before = walk.incumbent
        res = check(node)
        push(node, res)
        if walk.incumbent != before:
            descend(node)
        return res

    def checked_and_queued(node: Levels) -> _Checked:
        res = check(node)
        push(node, res)
        return res

    def descend(node: Levels) -> None:
        walk.improve(node, checked_and_queued)

    def expand(node: Levels) -> Levels | None:
        """Check the node's successors within the bound; the best infeasible one checked."""
        succ = [s for s in walk.successors(node) if s not in walk.checked]
        bounds = walk.bounds(succ)
        order = np.argsort(bounds, kind="stable")
        best: tuple[float, int, Levels] | None = None
        for j in order.tolist():
            if not walk.within(bounds[j : j + 1])[0]:
                continue
            res = visit(succ[j])
            if not res.feasible and (best is None or (res.value, res.total, succ[j]) < best):
                best = (res.value, res.total, succ[j])
        expanded.add(node)
        return None if best is None or best[2] in expanded else best[2]

    top = tuple(walk.heights)
    bottom = (0,) * len(top)
    try:
        visit(bottom)
        for node in (*start, top):  # (a start node before the top, whose descent is long)
            if node not in walk.checked:
                visit(node)
        while queue:
            node = heapq.heappop(queue)[2]
            while node is not None and node not in expanded:
                node = expand(node)
    except BudgetSpent as exc:
        stopped = str(exc)
    if walk.incumbent is None:
        raise _no_node(walk, stopped, budget.steps, budget.seconds, suppression)
    return walk.result("best-first", budget, stopped)


def _no_node(
    walk: _Walk,
    stopped: str,
    steps: int,
    seconds: float,
    suppression: float,
    name: str = "heuristic",
) -> InfeasibleError:
    """The error when the search checked no feasible node."""
    top = tuple(walk.heights)
    monotone = walk.models.feasibility_monotone(walk.limit)
    top_infeasible = top in walk.checked and not walk.checked[top].feasible
    starred = least_starred(walk.checked.values())
    if stopped == "exhausted" and starred is not None:
        return star_refusal(*starred[1:])
    if stopped == "exhausted" or (monotone and top_infeasible):
        needs = min(r.suppressed for r in walk.checked.values())
        fs = walk.cache.at(np.asarray(top, dtype=np.int64))
        return infeasible_error(walk.models, fs, walk.n, walk.limit, needs, suppression)
    remedy = {
        "step_limit": "raise step_limit",
        "time_limit": "raise time_limit",
        "stopped": "let it run longer",
    }[stopped]
    star = ""
    if starred is not None:
        refused, suppressed, fails = starred
        star = (
            f" ({refused:,} node(s) within the limit left a '*' class that fails them, "
            f"e.g. {suppressed:,} record(s) failing {fails}: star mode publishes the "
            "suppressed records so; suppressed_rows: remove leaves them out)"
        )
    return InfeasibleError(
        f"the {name} search checked {steps:,} of the {node_count(walk.size)} lattice nodes in "
        f"{seconds:.1f} s and found none that satisfies the models with at most "
        f"{suppression:.2%} of the records suppressed{star}; {remedy}, allow more suppression "
        "or relax the models"
    )
