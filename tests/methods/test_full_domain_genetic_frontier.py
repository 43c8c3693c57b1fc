"""The genetic search's frontier: the unchecked nodes just above the checked ones.

When a generation checks nothing new, the genetic search checks the ``count`` unchecked
successors of checked nodes with the smallest metric bounds (ties: the smaller levels).
:class:`Frontier` finds them lazily, expanding each checked node at most once in the search.
Here it is compared with that definition worked out by brute force (every node of the lattice,
its predecessors, its bound), on random lattices for every metric and along whole searches on a
real survey; the work is counted in successor listings and bounded cells, never timed.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
import test_full_domain_properties as fdp
from counting_clock import CountingClock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import wide_table
from test_full_domain_heuristic import exact_name

from microanon.core import Table
from microanon.methods.generalize import _budget, _genetic_frontier
from microanon.methods.generalize._budget import Budget, BudgetSpent
from microanon.methods.generalize._genetic import genetic_search
from microanon.methods.generalize._genetic_frontier import Frontier
from microanon.methods.generalize._heuristic import _Walk
from microanon.methods.generalize._search import _model_set
from microanon.models import KAnonymity, LDiversity


def _reference(walk: _Walk, count: int) -> list[tuple[int, ...]]:
    """The definition by brute force: every unchecked node of the lattice with a checked node
    one level lower in one attribute, by (bound, levels), the bounds computed in one batch."""
    every = list(itertools.product(*(range(h + 1) for h in walk.heights)))

    def above_checked(node: tuple[int, ...]) -> bool:
        return any(
            lv > 0 and node[:i] + (lv - 1,) + node[i + 1 :] in walk.checked
            for i, lv in enumerate(node)
        )

    open_nodes = [x for x in every if x not in walk.checked and above_checked(x)]
    bounds = walk.metric.bound_of(np.asarray(open_nodes, dtype=np.int64).reshape(-1, len(every[0])))
    return [x for _, x in sorted(zip(bounds.tolist(), open_nodes, strict=True))][:count]


def _walk(p: dict, metric: str) -> _Walk:
    table = Table.from_frame(p["df"], p["schema"])
    limit = int(np.floor(p["suppression"] * table.n_records + 1e-9))
    return _Walk(table, _model_set(table, p["models"], "remove"), limit, exact_name(metric))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fdp.problems(), st.sampled_from([*fdp.METRICS, "loss"]), st.data())
def test_the_frontier_is_its_definition_whatever_is_checked_between_calls(
    p: dict, metric: str, data: st.DataObject
) -> None:
    walk = _walk(p, metric)
    budget = Budget(None, None)
    frontier = Frontier(walk)
    node = st.tuples(*(st.integers(0, h) for h in walk.heights))
    for _ in range(data.draw(st.integers(1, 6), label="rounds")):
        for x in data.draw(st.lists(node, max_size=8), label="checked"):
            if x not in walk.checked:
                walk.check(x, budget)
        count = data.draw(st.integers(1, 10), label="count")
        got = frontier.smallest(count, budget)
        assert got == _reference(walk, count)
        # as the search does: check some of them before the next call
        for x in got[: data.draw(st.integers(0, len(got)), label="then checked")]:
            walk.check(x, budget)


class _Counted:
    """Counts the successor listings of each node and the frontier's calls, and compares every
    answer of the frontier with its definition."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.listed: list[tuple[int, ...]] = []
        self.calls = 0
        self.checked_at_calls = 0  # the successor listings the old definition would have made
        successors, smallest = _Walk.successors, Frontier.smallest

        def counted_successors(walk: _Walk, node: tuple[int, ...]) -> list:
            self.listed.append(node)
            return successors(walk, node)

        def compared(frontier: Frontier, count: int, budget: Budget) -> list:
            self.calls += 1
            self.checked_at_calls += len(frontier.walk.checked)
            got = smallest(frontier, count, budget)
            assert got == _reference(frontier.walk, count)
            return got

        patch.setattr(_Walk, "successors", counted_successors)
        patch.setattr(Frontier, "smallest", compared)


def _gss() -> tuple[pd.DataFrame, dict]:
    """GSS 2018's spending survey (2,348 respondents), five quasi-identifiers: a lattice of a
    few hundred nodes that the genetic search covers (missing answers are the value ``?``),
    and the view on health spending as the sensitive attribute."""
    sys.path.insert(0, "tests")
    from real_surveys import survey

    balanced = ["sex", "degree", "race", "polviews"]
    schema = {
        c: {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}} for c in balanced
    }
    schema["age"] = {
        "role": "quasi",
        "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40], "start": 0},
    }
    schema["natheal"] = {"role": "sensitive"}  # spending on health: too little, about right, ...
    return survey("gss_spending")[list(schema)], schema


@pytest.mark.parametrize(
    ("models", "suppression", "metric", "seed"),
    [
        ([KAnonymity(10)], 0.05, "lm", 0),
        ([KAnonymity(10)], 0.02, "discernibility", 0),
        ([KAnonymity(3), LDiversity(2, "distinct")], 0.02, "loss", 0),
    ],
)
def test_on_a_real_survey_each_checked_node_is_expanded_once_in_the_whole_search(
    models: list, suppression: float, metric: str, seed: int
) -> None:
    # Before, every generation that checked nothing new listed the successors of every
    # checked node: here the same answers, and each checked node's successors listed at most
    # once in the search, whatever the number of such generations.
    df, schema = _gss()
    table = Table.from_frame(df, schema)
    limit = int(np.floor(suppression * table.n_records + 1e-9))
    ms = _model_set(table, models, "remove")
    with pytest.MonkeyPatch.context() as patch:
        counted = _Counted(patch)
        rng = np.random.default_rng(seed)
        found = genetic_search(table, ms, limit, exact_name(metric), suppression, None, rng=rng)
    assert found.stopped == "exhausted"
    assert counted.calls >= 10  # the frontier was needed, many times
    assert len(set(counted.listed)) == len(counted.listed)  # once each
    assert len(counted.listed) <= found.nodes_checked
    assert counted.checked_at_calls > 10 * len(counted.listed)


def test_on_a_wide_lattice_the_frontier_reads_its_clock_between_small_pieces_of_work() -> None:
    # 300 attributes (a real file had 1,416 quasi-identifiers): the frontier bounds its newly
    # checked nodes and lists successors in pieces of at most q nodes of q attributes, reading
    # the clock after each, and stops for the time limit like a check would.
    rng = np.random.default_rng(4)
    q = 300
    table = Table.from_frame(*wide_table(rng, q, 200))
    walk = _Walk(table, _model_set(table, [KAnonymity(3)], "remove"), 10, "lm")
    for node in [(0,) * q, *(tuple(rng.integers(0, 2, q).tolist()) for _ in range(30))]:
        walk.check(node, Budget(None, None))
    clock = CountingClock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_budget, "time", clock)
        patch.setattr(_genetic_frontier, "_BLOCK_CELLS", q * q)
        patch.setattr(walk.metric, "bound_of", clock.bounded(walk.metric.bound_of))
        frontier = Frontier(walk)
        assert len(frontier.smallest(5, Budget(1e9, None))) == 5
        assert 0 < clock.most <= q * q
        budget = Budget(20.0, None)  # the walk's share of it: 18 readings of the clock
        with pytest.raises(BudgetSpent, match="time_limit"):
            frontier.smallest(10**6, budget)  # every successor of the 31 checked nodes
        assert clock.now - budget.started <= 19
    assert 0 < clock.most <= q * q
