"""One node of the full-domain lattice checked as the searches check it, without a search.

A recoding chosen on one table (by the exact, best-first or genetic search) is applied to the
next one at its levels (:func:`.full_domain.apply_levels`, the reusable
:class:`~microanon.methods.generalize.Anonymizer`): the node's classes that fail some model are
suppressed by the search's own rule (:class:`._heuristic._Walk`). The lattice is never built,
so a node of a lattice far beyond the exact search's ``MAX_NODES`` is applied as well.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...core.errors import InfeasibleError, InputError
from ...core.keys import shown
from ...core.table import Table
from ...models import as_models
from ._heuristic import _Walk
from ._search import SearchResult, _model_set, check_metric, check_suppression

__all__ = ["evaluate_levels"]


def evaluate_levels(
    table: Table,
    models: Any,
    levels: Mapping[str, int],
    suppression: float = 0.0,
    metric: str = "lm",
    suppressed_rows: str = "remove",
) -> SearchResult:
    """Apply the search's suppression rule at one given node, without searching.

    The node's classes that fail some model are suppressed exactly as the search suppresses
    them at that node (the same filter, model checks and, with ``suppressed_rows="remove"``,
    the same re-checks against the kept records' distribution), so on the table a search chose
    ``levels`` for, the result is the search's own.

    Parameters
    ----------
    table : Table
        An encoded table whose quasi-identifiers have hierarchies.
    models : model specification
    levels : mapping of str to int
        A level for every quasi-identifier.
    suppression : float
        Largest share of the records that may be suppressed, in ``[0, 1)``.
    metric : str
        The metric whose value the result reports.
    suppressed_rows : {"remove", "star"}

    Returns
    -------
    SearchResult
        ``nodes_checked`` 1, ``lattice_size`` that of the table's hierarchies.

    Raises
    ------
    InputError
        Bad suppression, metric, models or levels (a quasi-identifier without a level, a level
        outside its hierarchy, a level for another column).
    InfeasibleError
        The node needs more suppressed records than the limit allows: the message gives the
        share needed and the share allowed.
    """
    started = time.perf_counter()
    suppression = check_suppression(suppression)
    metric = check_metric(metric)
    if suppressed_rows not in ("remove", "star"):
        raise InputError(f"suppressed_rows must be 'remove' or 'star', got {suppressed_rows!r}")
    quasi = table.schema.quasi
    if not quasi:
        raise InputError("the schema has no quasi-identifier: mark the columns an attacker knows")
    if table.n_rows == 0:
        raise InputError("the table is empty: there is nothing to generalize")
    node_levels = _check_levels(table, levels)
    limit = int(np.floor(suppression * table.n_records + 1e-9))
    walk = _Walk(table, _model_set(table, as_models(models), suppressed_rows), limit, metric)
    fs, fail, mask = walk.suppressed_at(tuple(node_levels))
    suppressed = int(fs.sizes[fail].sum())
    if suppressed > limit:
        shown_levels = ", ".join(f"{q}={lv}" for q, lv in zip(quasi, node_levels, strict=True))
        raise InfeasibleError(
            f"the levels {shown_levels} need {suppressed} of the {walk.n} records suppressed "
            f"({suppressed / walk.n:.2%}) to satisfy the models, more than the "
            f"{suppression:.2%} allowed ({limit}); allow more suppression, or choose the levels "
            "anew on this table"
        )
    return SearchResult(
        levels=dict(zip(quasi, node_levels, strict=True)),
        metric=metric,
        metric_value=walk.metric.report(walk.metric.value(fs, fail, suppressed)),
        suppressed=suppressed,
        nodes_checked=1,
        lattice_size=walk.size,
        search_seconds=time.perf_counter() - started,
        suppressed_mask=mask,
    )


def _check_levels(table: Table, levels: Mapping[str, int]) -> list[int]:
    """The level of every quasi-identifier, in schema order, checked against its hierarchy."""
    if not isinstance(levels, Mapping):
        raise InputError(f"levels must map quasi-identifiers to levels, got {levels!r}")
    quasi = table.schema.quasi
    other = [str(c) for c in levels if c not in quasi]
    if other:
        raise InputError(
            f"levels: {', '.join(map(repr, other))} not a quasi-identifier of the schema "
            f"({', '.join(quasi)})"
        )
    out = []
    for q in quasi:
        if q not in levels:
            raise InputError(f"levels: no level for quasi-identifier {q!r}")
        lv, height = levels[q], table.schema.hierarchy(q).height
        if isinstance(lv, (bool, np.bool_)) or not isinstance(lv, (int, np.integer)):
            raise InputError(f"levels[{q!r}]: expected an integer level, got {shown(lv)}")
        if not 0 <= int(lv) <= height:
            raise InputError(f"levels[{q!r}]: level {lv} is outside 0..{height}")
        out.append(int(lv))
    return out
