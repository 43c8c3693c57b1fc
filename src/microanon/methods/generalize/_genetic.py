"""Genetic full-domain search with a budget, for lattices of many quasi-identifiers.

A population of lattice nodes (level vectors, one level per quasi-identifier) evolves by
elitism, crossover, mutation and immigration, in the spirit of the genetic algorithm ARX runs
on high-dimensional data, described in T. Meurers, R. Bild, K.-M. Do, F. Prasser, "A scalable
software solution for anonymizing high-dimensional biomedical data", GigaScience 10(10), 2021,
giab068 (doi:10.1093/gigascience/giab068; ARX's implementation in turn follows the genetic
algorithm of Wan et al., Am. J. Hum. Genet. 100(2), 2017, doi:10.1016/j.ajhg.2016.12.002).
This is an independent implementation: its operators, selection and the local descent of new
incumbents are microanon's own.

What it checks, it checks exactly, with the best-first search's :class:`._heuristic._Walk`:
a node's frequency set is rolled up from the table's, the models' filter and
:meth:`ModelSet.failing` decide which classes are suppressed (the re-checks against the kept
records' distribution included), and the node is feasible when at most the limit of records
is suppressed. The published node is the best feasible node checked under the exact search's
rule (:meth:`._heuristic._Walk.winner`), so it satisfies every model whatever the budget; it
is the optimum only when the search could prove that no unchecked node beats or ties it.

How it searches. The first generation is the bottom, the top and random nodes at every
height: for each, a share ``s`` drawn uniformly in [0, 1) and a level drawn uniformly in
``0..floor(s·(height + 1))`` for every attribute (:func:`random_node`), so low nodes (one or
two moves up from the bottom) and high ones are both represented, and every level of every
hierarchy, its top included, can be drawn. Nodes are ranked feasible first, by metric value
(ties: fewer suppressed records, lower total level, smaller levels); infeasible ones by the
records they would suppress, then value. Each generation keeps the best fifth (elitism), and
fills the rest of the population with children: two fifths by uniform crossover of two
parents, a tenth of immigrants (fresh random nodes, as in the first generation) and the rest
by mutation, which changes between one and ``ceil(q/5)`` attributes (of ``q``), each either
one level up or down or to a random level. Parents are chosen by binary tournament on the
rank. A child that repeats a node of the population is mutated again (at most three times).
Every new feasible incumbent is improved by a greedy descent: its unchecked predecessors whose
lower bound could beat or tie it are checked, and the search moves to a better one while
there is one (:meth:`._heuristic._Walk.improve`, without the best-first search's sideways
moves, which cost ``q(q-1)`` checks a step). The population has ``2q`` nodes, at least 16 and
at most 64, and never more than the lattice.

The budget (:class:`._budget.Budget`): a node already checked costs nothing; before every new
check the watcher hears of the progress and may stop the search, and the search stops before
a check beyond ``step_limit`` nodes or after 90 % of ``time_limit`` seconds (the bound below
takes at most the rest, up to 99 % of it). Given ``patience`` (the default budget's
:data:`PATIENCE`, when no limit was given), it also stops (``stopped="converged"``) at the end
of a generation once that many generations, and at least as many as it took to find its best
node, found no better one; its bound then takes a ninth of the time spent (at least a second),
as without a time limit. ARX's genetic algorithm likewise ends on its own, after a number of
generations (50 by default), before its time limit. Measured on eight real survey files of 16
to 30 quasi-identifiers, three generators each, the last better node came at most 325
generations after the one before (and at most 449 generations in): with the patience the
searches found the nodes they found in 30 s. A generation that checks no new node (a small
lattice nearly covered) checks instead the unchecked nodes of the smallest bound just above
the checked ones (:class:`._genetic_frontier.Frontier`, which lists the successors of each
checked node at most once in the search, in the order of the nodes' bounds, and reads the clock
between such listings); when no unchecked node is left, or the bound below shows that none can
beat or tie the incumbent, the search ends with ``stopped="exhausted"`` and its answer is the
exact search's.

What is known about the gap. The bound is the best-first search's (:mod:`._heuristic`,
:func:`._lower_bound.unexplored_bound`): the smallest metric bound of a node not checked, not
known to be infeasible (below a sunk checked node) nor no better (above a checked feasible node
that suppresses nothing, under monotone models), walked up from the bottom; the smaller of it
and the incumbent's value is ``lower_bound``, the largest such bound of the search (computed
at checkpoints, when a generation checks nothing new, and at the end). It does not depend on
the order of the checks, only on which nodes were checked: the random nodes of every height
and the descents teach which low nodes are infeasible, and the bound jumps over their
down-sets.

Determinism. Every draw comes from the ``rng`` given (a :class:`numpy.random.Generator`), in
an order fixed by the checks, so the same table, models, generator state and ``step_limit``
give the same node; a run under ``time_limit`` depends on the machine's speed as well. The
generator is only drawn from: nothing about it is written into the release.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ...core.table import Table
from ._budget import DEFAULT_TIME_LIMIT, Budget, BudgetSpent, SearchWatch
from ._genetic_frontier import Frontier
from ._heuristic import Levels, _Checked, _no_node, _Walk
from ._search import SearchResult
from ._search_models import ModelSet

__all__ = ["genetic_search", "population_size", "random_node"]

#: Shares of a generation: kept unchanged (the best), bred by crossover, fresh immigrants; the
#: rest are mutants.
ELITE, CROSSOVER, IMMIGRANTS = 0.2, 0.4, 0.1
#: Most attributes a mutation changes, as a share of the quasi-identifiers (at least one).
MUTATED = 0.2
#: Bounds of the population size (``2q`` in between, never more than the lattice).
MIN_POPULATION, MAX_POPULATION = 16, 64
#: Times a child that repeats a node of the population is mutated again.
RETRIES = 3
#: Without a limit given, the search stops once this many generations, and at least as many as
#: it took to find its best node, found no better one (see the module docstring).
PATIENCE = 400


def population_size(q: int, lattice_size: int) -> int:
    """Nodes in a generation for ``q`` quasi-identifiers on a lattice of ``lattice_size``."""
    return int(min(lattice_size, max(MIN_POPULATION, min(MAX_POPULATION, 2 * q))))


def random_node(rng: np.random.Generator, heights: np.ndarray) -> Levels:
    """A random node, as the first generation and the immigrants draw them.

    One share ``s`` uniform in [0, 1) sets how high the node may go; each attribute's level is
    then uniform in ``0..floor(s·(height + 1))``. Every level of every hierarchy can be drawn,
    its top included (when ``s ≥ height / (height + 1)``), and low and high nodes are both
    drawn often.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of the draws (one share, then one level per attribute).
    heights : numpy.ndarray
        The height of each quasi-identifier's hierarchy (integers, at least 0).

    Returns
    -------
    tuple of int
        The node's level vector.
    """
    share = rng.random()
    tops = np.minimum(np.floor(share * (heights + 1)).astype(np.int64), heights)
    return tuple(int(x) for x in rng.integers(0, tops + 1))


def genetic_search(
    table: Table,
    models: ModelSet,
    limit: int,
    metric: str,
    suppression: float,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    step_limit: int | None = None,
    watch: SearchWatch | None = None,
    rng: np.random.Generator | None = None,
    lower_bound: bool = True,
    start: Sequence[Levels] = (),
    patience: int | None = None,
) -> SearchResult:
    """The best feasible node a genetic search finds within a budget (see the module docstring).

    Parameters
    ----------
    table, models, limit, metric, suppression, time_limit, step_limit, watch, lower_bound, start
        As for :func:`._heuristic.heuristic_search`: the encoded table, the models, the records
        that may be suppressed (and their share, for messages), the metric, the budget, its
        watcher, whether the lower bound is worked for, and nodes checked first, after the
        bottom (in the first population).
    rng : numpy.random.Generator, optional
        The source of every random choice (None: a generator seeded from the operating
        system's entropy, :func:`numpy.random.default_rng`).
    patience : int, optional
        Stop (``stopped="converged"``) once this many generations, and at least as many as
        the search took to find its best node, found no better one (None: only the budget
        stops it); :func:`~.searches.run_search` gives :data:`PATIENCE` when no limit was
        given.

    Returns
    -------
    SearchResult
        With ``kind="genetic"``, ``lower_bound``, ``stopped`` and ``idle_generations``.

    Raises
    ------
    InfeasibleError
        No feasible node was found: the top node's single class fails the models and nothing
        below it can do better, every node was checked, or the budget ran out first (the
        message says which).
    """
    rng = np.random.default_rng() if rng is None else rng
    budget = Budget(time_limit, step_limit, watch, lower_bound)
    walk = _Walk(table, models, limit, metric)
    heights = np.asarray(walk.heights, dtype=np.int64)
    q = len(heights)
    size = population_size(q, walk.size)
    n_elite = max(1, math.ceil(ELITE * size))
    n_cross = round(CROSSOVER * size)
    n_imm = max(1, round(IMMIGRANTS * size))
    n_mut = max(0, size - n_elite - n_cross - n_imm)
    most_mutated = max(1, math.ceil(MUTATED * q))
    frontier = Frontier(walk)
    stopped = "exhausted"
    # generations bred, the one that found the incumbent (0: the first population) and since
    generations = found = idle = 0
    best = None

    def plain(node: Levels) -> _Checked:
        """The exact check of a node, charged to the budget unless it was checked before."""
        known = walk.checked.get(node)
        if known is not None:
            return known
        return walk.check(node, budget)

    def check(node: Levels) -> _Checked:
        """:func:`plain`, and a greedy descent from a new incumbent."""
        before = walk.incumbent
        res = plain(node)
        if walk.incumbent != before:
            walk.improve(node, plain, sideways=False)
        return res

    def rank(node: Levels) -> tuple:
        r = walk.checked[node]
        if r.feasible:
            return (0, r.value, r.suppressed, r.total, node)
        return (1, r.suppressed, r.value, r.total, node)

    def mutate(node: Levels) -> Levels:
        levels = np.asarray(node, dtype=np.int64)
        count = int(rng.integers(1, most_mutated + 1))
        for i in rng.choice(q, size=count, replace=False).tolist():
            if rng.random() < 0.5:
                levels[i] += 1 if rng.random() < 0.5 else -1
            else:
                levels[i] = rng.integers(0, heights[i] + 1)
        return tuple(int(x) for x in np.clip(levels, 0, heights))

    def covered() -> bool:
        """Whether no unchecked node can beat or tie the incumbent."""
        if len(walk.checked) >= walk.size:
            return True
        if walk.incumbent is None:
            return False
        cap = walk.best + walk.tolerance()
        bound = walk.unexplored_bound(budget, cap, budget.bound_deadline())
        return not bool(walk.within(np.array([bound]))[0])

    def generation(population: list[Levels]) -> list[Levels]:
        """The next generation of a ranked population (empty when the search is done)."""
        kept = population[:n_elite]
        if walk.incumbent is not None and walk.incumbent not in kept:
            kept[-1:] = [walk.incumbent]  # a descent may have found it outside the population
        members = set(kept)
        children: list[Levels] = []
        steps = budget.steps

        def add(child: Levels) -> None:
            for _ in range(RETRIES):
                if child not in members:
                    break
                child = mutate(child)
            if child in members:
                return
            check(child)
            members.add(child)
            children.append(child)

        def parent() -> Levels:
            i, j = rng.integers(0, len(population), size=2).tolist()
            return population[min(i, j)]

        for _ in range(n_cross):
            a, b = np.asarray(parent()), np.asarray(parent())
            add(tuple(int(x) for x in np.where(rng.random(q) < 0.5, a, b)))
        for _ in range(n_mut):
            add(mutate(parent()))
        for _ in range(n_imm):
            add(random_node(rng, heights))
        if budget.steps == steps:  # nothing new: close the gap from below instead
            if covered():
                return []
            for node in frontier.smallest(n_imm, budget):
                check(node)
                if node not in members:
                    members.add(node)
                    children.append(node)
        return sorted(members, key=rank)[:size]

    bottom: Levels = (0,) * q
    top: Levels = tuple(int(h) for h in heights)
    population: list[Levels] = []
    try:
        for node in (bottom, *start, top):  # (a start node before the top's descent)
            check(node)
            if node not in population:
                population.append(node)
        if walk.checked[top].sunk:
            raise BudgetSpent("exhausted")  # every node is infeasible
        for _ in range(50 * size):
            if len(population) >= size:
                break
            node = random_node(rng, heights)
            if node not in population:
                check(node)
                population.append(node)
        while True:
            population = generation(sorted(population, key=rank))
            if not population:
                break
            generations += 1
            if walk.incumbent != best:
                best, found = walk.incumbent, generations
            idle = generations - found
            if patience is not None and walk.incumbent is not None and idle >= max(patience, found):
                budget.converged = True
                raise BudgetSpent("converged")
    except BudgetSpent as exc:
        stopped = str(exc)
    if walk.incumbent is None:
        raise _no_node(walk, stopped, budget.steps, budget.seconds, suppression, "genetic")
    return replace(walk.result("genetic", budget, stopped), idle_generations=idle)
