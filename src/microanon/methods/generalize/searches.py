"""Which full-domain search runs, with what budget, and what the release says about it.

:func:`full_domain` and the Dask engine's :func:`~microanon.scale.full_domain_dask` both take
``search``, ``time_limit`` and ``step_limit``; :func:`check_search` validates them once,
:func:`run_search` runs the chosen search on the encoded table, and :func:`search_record`
writes what is known about the node (optimal, or the best found and a bound of the optimum)
into the release's internal metadata.

It is the module through which the searches are run from outside this package: the checks of
``suppression`` and ``metric`` (:func:`check_suppression`, :func:`check_metric`), the default
budget (:data:`DEFAULT_TIME_LIMIT`) and the largest lattice of the exact search
(:data:`MAX_NODES`), which the Dask engine and ``microanon init`` use, are exported from here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from ...core.table import Table
from ._budget import DEFAULT_TIME_LIMIT, SearchStopped, SearchWatch, check_limits, check_watch
from ._genetic import PATIENCE, genetic_search
from ._heuristic import heuristic_search
from ._lattice import MAX_NODES, node_count
from ._search import SearchResult, _model_set, check_metric, check_suppression
from ._search import search as search_exact

__all__ = [
    "BUDGETED",
    "DEFAULT_TIME_LIMIT",
    "GENETIC_MIN_QUASI",
    "MAX_NODES",
    "node_count",
    "SEARCHES",
    "SearchChoice",
    "SearchStopped",
    "check_metric",
    "check_search",
    "check_suppression",
    "lattice_size",
    "run_search",
    "search_record",
]

#: The values of ``search=``.
SEARCHES = ("auto", "exact", "heuristic", "best-first", "genetic")

#: The searches that run within a budget (what ``search_record`` calls their ``kind``).
BUDGETED = ("best-first", "genetic")

#: Quasi-identifiers from which ``"heuristic"`` and ``"auto"`` run the genetic search on a
#: lattice of more than :data:`MAX_NODES` nodes (fewer: the best-first search); measured in
#: docs/generalization.md ("Which search runs").
GENETIC_MIN_QUASI = 12


@dataclass(frozen=True)
class SearchChoice:
    """A validated ``search`` with its budget.

    Attributes
    ----------
    search : str
        One of :data:`SEARCHES`.
    time_limit, step_limit : float, int or None
        The budget as given (None when not given).
    all_minimal : bool
        Whether every minimal feasible node is asked for (exact search only).
    """

    search: str
    time_limit: float | None
    step_limit: int | None
    all_minimal: bool = False

    def public(self) -> dict[str, Any]:
        """The parameters the user gave, public in the release: they depend on no data.

        Which search ``"auto"`` ran depends on the hierarchies' heights, internal, so it is not
        among them.
        """
        asked: dict[str, Any] = {} if self.search == "auto" else {"search": self.search}
        if self.time_limit is not None:
            asked["time_limit"] = self.time_limit
        if self.step_limit is not None:
            asked["step_limit"] = self.step_limit
        return asked

    def kind(self, lattice_size: int, n_quasi: int) -> str:
        """The search that runs on a lattice of ``lattice_size`` nodes and ``n_quasi``
        quasi-identifiers.

        ``"exact"``, ``"best-first"`` and ``"genetic"`` run as asked. ``"auto"`` runs the exact
        search on a lattice of at most :data:`MAX_NODES` nodes. Above it, ``"auto"`` and
        ``"heuristic"`` run the genetic search with at least :data:`GENETIC_MIN_QUASI`
        quasi-identifiers and the best-first search with fewer; ``"heuristic"`` on a smaller
        lattice runs best-first.
        """
        if self.search in ("exact", *BUDGETED):
            return self.search
        if lattice_size <= MAX_NODES:
            return "exact" if self.search == "auto" else "best-first"
        return "genetic" if n_quasi >= GENETIC_MIN_QUASI else "best-first"


def check_search(
    search: object, time_limit: object, step_limit: object, all_minimal: bool = False
) -> SearchChoice:
    """Validate ``search`` and its budget.

    Raises
    ------
    InputError
        An unknown ``search``, a bad ``time_limit`` or ``step_limit``, a limit with
        ``search="exact"``, ``all_minimal`` with the heuristic or genetic search.
    """
    if not isinstance(search, str) or search not in SEARCHES:
        raise InputError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
    time_limit, step_limit = check_limits(time_limit, step_limit)
    if search == "exact" and (time_limit is not None or step_limit is not None):
        raise InputError(
            "time_limit and step_limit bound the heuristic searches; search='exact' runs to the "
            "optimum (use search='heuristic', 'best-first', 'genetic' or 'auto')"
        )
    if search in ("heuristic", *BUDGETED) and all_minimal:
        raise InputError("all_minimal needs the exact search (search='exact' or 'auto')")
    return SearchChoice(search, time_limit, step_limit, all_minimal)


def lattice_size(table: Table) -> int:
    """Nodes of the lattice of an encoded table's quasi-identifiers (their levels combined)."""
    return math.prod(table.schema.hierarchy(q).height + 1 for q in table.schema.quasi)


def run_search(
    table: Table,
    resolved: list[Any],
    suppression: float,
    metric: str,
    suppressed_rows: str,
    choice: SearchChoice,
    *,
    progress: bool = False,
    watch: SearchWatch | None = None,
    rng: RandomLike = None,
    lower_bound: bool = True,
    start: Mapping[str, int] | None = None,
    node_budget: int | None = None,
) -> tuple[SearchResult, dict[str, Any]]:
    """Run the chosen search on an encoded table (rows or a frequency table).

    ``rng`` is drawn from by the genetic search only (None: fresh entropy from the operating
    system); ``watch`` follows the heuristic and genetic searches, and may stop the exact one
    (which then raises :class:`~._budget.SearchStopped`). Without ``lower_bound`` a heuristic
    or genetic search does not work for its bound (see :func:`._heuristic.heuristic_search`).
    ``start``: a level per quasi-identifier, a node a heuristic or genetic search checks first
    (a release's levels, when the search is for a relaxed configuration that they satisfy: it
    then finds nothing worse); ignored by the exact search and when it is not a node of the
    table's lattice. ``node_budget``: the exact search stops once it has checked this many
    nodes and found a feasible one, with the best it checked (see
    :func:`._search.search`); the other searches keep their own budget.

    In star mode the suppressed records are published as one ``*`` class, which must satisfy
    the models too: every search counts a node whose ``*`` class fails them as infeasible, so
    the exact search's node is the optimum among the nodes whose ``*`` class passes.

    Returns
    -------
    SearchResult, dict
        The node and the internal ``search`` record (:func:`search_record`).

    Raises
    ------
    InputError
        ``all_minimal`` on a lattice too big for the exact search, a ``watch`` that is not a
        :class:`~._budget.SearchWatch` (and what the exact search raises).
    InfeasibleError
        As the search that ran; in star mode, when every node within the suppression limit
        leaves a ``*`` class that fails the models.
    """
    watch = check_watch(watch)
    size = lattice_size(table)
    kind = choice.kind(size, len(table.schema.quasi))
    if kind != "exact" and choice.all_minimal:
        raise InputError(
            f"all_minimal needs the exact search, which handles up to {MAX_NODES:,} lattice "
            f"nodes; this lattice has {node_count(size)}"
        )
    if kind == "exact":
        result = search_exact(
            table,
            resolved,
            suppression,
            metric,
            choice.all_minimal,
            progress,
            suppressed_rows,
            watch,
            node_budget,
        )
        return result, search_record(result)
    time_limit, step_limit = choice.time_limit, choice.step_limit
    patience = None
    if time_limit is None and step_limit is None:  # (the default budget)
        time_limit, patience = DEFAULT_TIME_LIMIT, PATIENCE
    limit = int(np.floor(suppression * table.n_records + 1e-9))
    models = _model_set(table, resolved, suppressed_rows)
    seeds = _start_node(table, start)
    shared = (table, models, limit, metric, suppression, time_limit, step_limit, watch)
    if kind == "genetic":
        result = genetic_search(*shared, make_rng(rng), lower_bound, seeds, patience)
    else:
        result = heuristic_search(*shared, lower_bound, seeds)
    return result, search_record(result, time_limit, step_limit)


def _start_node(table: Table, start: Mapping[str, int] | None) -> tuple[tuple[int, ...], ...]:
    """``start`` as a node of ``table``'s lattice (levels in the order of its quasi-identifiers),
    in a tuple of one; none when it is None or names no level of a quasi-identifier within its
    hierarchy."""
    if start is None:
        return ()
    quasi = table.schema.quasi
    levels = [start.get(q) for q in quasi]
    heights = [table.schema.hierarchy(q).height for q in quasi]
    if any(
        not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 0 <= v <= h
        for v, h in zip(levels, heights, strict=True)
    ):
        return ()
    return (tuple(int(v) for v in levels),)  # type: ignore[arg-type]


def _decimal(value: float) -> str:
    """``value`` to six significant digits, with a decimal point when it is a whole number
    (``0.0``, not ``0``: at the end of a sentence, ``0.`` reads as a number cut short)."""
    text = f"{value:.6g}"
    return text if any(c in text for c in ".ein") else f"{text}.0"


def search_record(
    result: SearchResult, time_limit: float | None = None, step_limit: int | None = None
) -> dict[str, Any]:
    """The internal ``search`` metadata of a release: which search ran and what is known.

    ``kind`` (``"exact"``, ``"best-first"`` or ``"genetic"``), ``optimal`` (True only for the
    exact search, unless stopped at a node budget), ``summary`` (one sentence; the genetic
    search's names it), and for the heuristic and genetic searches ``stopped``
    (``"exhausted"``, ``"time_limit"``, ``"step_limit"``, ``"stopped"`` when its watcher
    stopped it, or
    ``"converged"``: the genetic search without a limit given found nothing better for long),
    ``lower_bound`` (of the optimum's metric value; for precision ``upper_bound`` of the
    optimal precision: a number computed on the original table, so it stays internal),
    ``nodes_checked``, ``seconds``, ``found_check`` and ``found_seconds`` (which check found
    the node returned, and when: checks after it found nothing better, which helps choose a
    budget), ``time_limit`` and ``step_limit`` (the budget it ran with, the default time limit
    included).
    """
    if result.kind == "exact":  # (optimal, unless stopped at a node budget)
        optimal = result.stopped == "exhausted"
        checked = f"best of the first {result.nodes_checked:,} nodes checked, not proven optimal"
        return {"kind": "exact", "optimal": optimal, "summary": "optimal" if optimal else checked}
    side = "upper" if result.metric == "precision" else "lower"
    gap = abs(result.metric_value - float(result.lower_bound))
    tol = 1e-10 * max(abs(result.metric_value), 1e-300)
    closed = "; no node left unchecked can be better" if gap <= tol else ""
    why = {
        "exhausted": "nothing left to check",
        "time_limit": "time limit",
        "step_limit": "step limit",
        "stopped": "stopped by the user",
        "converged": f"no better node in its last {result.idle_generations or 0:,} generations",
    }[result.stopped]
    summary = (
        f"best found by the {result.kind} search in {result.search_seconds:.1f} s "
        f"({result.nodes_checked:,} of {node_count(result.lattice_size)} nodes checked; {why}), "
        f"that node checked {result.found_seconds:.1f} s in (check {result.found_step:,}); "
        f"{side} bound of the optimal {result.metric} {_decimal(result.lower_bound)}{closed}"
    )
    return {
        "kind": result.kind,
        "optimal": False,
        "stopped": result.stopped,
        f"{side}_bound": result.lower_bound,
        "nodes_checked": result.nodes_checked,
        "seconds": result.search_seconds,
        "found_check": result.found_step,
        "found_seconds": result.found_seconds,
        "time_limit": time_limit,
        "step_limit": step_limit,
        "summary": summary,
    }
