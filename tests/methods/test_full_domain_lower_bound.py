"""The lower bound of the optimum reported by the best-first and the genetic search.

The walk of :func:`_lower_bound.unexplored_bound`, on random small lattices with random facts
(nodes checked, sunk, clear) and a random bound that never decreases up the lattice, returns
the smallest bound of a candidate node as brute force finds it (at most it, when cut short by
its deadline, its size limit, in batches of any size). On random small tables whose optimum
the exact search finds, both searches' ``lower_bound`` never exceeds it, whatever the step
limit and with bounds computed during the search; a larger step limit never gives a smaller
bound, on random tables and on a real survey; a bound computed during the search is kept when
the last one is cut short.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import test_full_domain_properties as fdp
from counting_clock import CountingClock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import wide_table

from microanon.core import InfeasibleError, Table
from microanon.methods.generalize import _budget, _heuristic, _lower_bound, full_domain
from microanon.methods.generalize._budget import Budget
from microanon.methods.generalize._genetic import genetic_search
from microanon.methods.generalize._heuristic import heuristic_search
from microanon.methods.generalize._lower_bound import Known, unexplored_bound
from microanon.methods.generalize._metrics import canonical_metric
from microanon.methods.generalize._search import _model_set, search
from microanon.models import KAnonymity

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RTOL = 1e-9


# ---------------------------------------------------------------------------- the walk alone
@st.composite
def facts(draw: st.DrawFn) -> dict:
    """A lattice of up to 4 attributes, random facts on it and a monotone bound."""
    heights = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    nodes = list(itertools.product(*[range(h + 1) for h in heights]))
    checked = sorted(draw(st.sets(st.sampled_from(nodes))))
    subset = st.lists(st.booleans(), min_size=len(checked), max_size=len(checked))
    sunk = [x for x, keep in zip(checked, draw(subset), strict=True) if keep]
    clear = [x for x, keep in zip(checked, draw(subset), strict=True) if keep]
    steps = st.lists(st.integers(0, 3), min_size=max(heights) + 1, max_size=max(heights) + 1)
    costs = [np.cumsum(draw(steps)).astype(float) for _ in heights]
    form = draw(st.sampled_from(["sum", "max", "product"]))
    cap = draw(st.one_of(st.just(math.inf), st.integers(0, 12).map(float)))
    return {
        "heights": heights,
        "nodes": nodes,
        "checked": checked,
        "sunk": sunk,
        "clear": clear,
        "costs": costs,
        "form": form,
        "cap": cap,
    }


def _bound_of(f: dict):
    def bound_of(levels: np.ndarray) -> np.ndarray:
        levels = np.asarray(levels).reshape(-1, len(f["heights"]))
        per = np.stack([c[levels[:, i]] for i, c in enumerate(f["costs"])], axis=1)
        if f["form"] == "sum":
            return per.sum(axis=1)
        if f["form"] == "max":
            return per.max(axis=1)
        return np.prod(1.0 + per, axis=1)

    return bound_of


def _brute_force(f: dict) -> float:
    """The smallest bound of an unchecked node below no sunk node, above no clear node, of
    bound at most the cap (infinite when there is none)."""
    bound_of = _bound_of(f)

    def le(a: tuple, b: tuple) -> bool:
        return all(x <= y for x, y in zip(a, b, strict=True))

    values = [
        float(bound_of(np.asarray([x]))[0])
        for x in f["nodes"]
        if x not in f["checked"]
        and not any(le(x, s) for s in f["sunk"])
        and not any(le(z, x) for z in f["clear"])
    ]
    values = [v for v in values if v <= f["cap"]]
    return min(values, default=math.inf)


def _known(f: dict) -> Known:
    q = len(f["heights"])
    return Known(
        np.asarray(f["heights"], dtype=np.int64),
        *(np.asarray(f[k], dtype=np.int64).reshape(-1, q) for k in ("checked", "sunk", "clear")),
    )


@SETTINGS
@given(facts(), st.integers(1, 4), st.integers(0, 12))
def test_the_walk_finds_the_smallest_bound_of_a_candidate(f: dict, batch: int, most: int) -> None:
    expected = _brute_force(f)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lower_bound, "BATCH", batch)  # several batches, chosen by a partition
        got = unexplored_bound(_known(f), _bound_of(f), f["cap"], math.inf)
        assert got == (pytest.approx(expected, rel=1e-12) if expected < math.inf else expected)
        patch.setattr(_lower_bound, "MOST_NODES", most)
        cut = unexplored_bound(_known(f), _bound_of(f), f["cap"], math.inf)
    assert cut <= got * (1 + 1e-12)
    early = unexplored_bound(_known(f), _bound_of(f), f["cap"], -math.inf)
    assert early <= got * (1 + 1e-12)


# ---------------------------------------------------------------------------- the searches
def _searched(p: dict, metric: str, mode: str, kind: str, steps: int, seed: int) -> object:
    table = Table.from_frame(p["df"], p["schema"])
    limit = int(np.floor(p["suppression"] * table.n_records + 1e-9))
    models = _model_set(table, p["models"], mode)
    name = canonical_metric(metric)
    if kind == "genetic":
        rng = np.random.default_rng(seed)
        return genetic_search(table, models, limit, name, p["suppression"], None, steps, rng=rng)
    return heuristic_search(table, models, limit, name, p["suppression"], None, steps)


def _cost(value: float, metric: str) -> float:
    """The value the searches minimize (1 - precision for precision)."""
    return 1.0 - value if metric == "precision" else value


@SETTINGS
@given(
    fdp.problems(),
    st.sampled_from([*fdp.METRICS, "loss"]),
    st.sampled_from(["remove", "star"]),
    st.sampled_from(["best-first", "genetic"]),
    st.one_of(st.integers(1, 40), st.just(10**6)),
    st.integers(1, 8),
    st.integers(0, 2**32 - 1),
)
def test_the_lower_bound_never_exceeds_the_exact_optimum(
    p: dict, metric: str, mode: str, kind: str, steps: int, checkpoint: int, seed: int
) -> None:
    """Whatever the step limit, with bounds computed during the search (after ``checkpoint``
    checks, then at every doubling)."""
    table = Table.from_frame(p["df"], p["schema"])
    try:
        exact = search(table, p["models"], p["suppression"], metric, suppressed_rows=mode)
    except InfeasibleError:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_heuristic, "CHECKPOINT", checkpoint)
        try:
            got = _searched(p, metric, mode, kind, steps, seed)
        except InfeasibleError:
            return  # the budget ran out before a feasible node
    optimum = _cost(exact.metric_value, metric)
    assert _cost(got.lower_bound, metric) <= optimum * (1 + RTOL) + 1e-12
    assert _cost(got.lower_bound, metric) <= _cost(got.metric_value, metric) * (1 + RTOL) + 1e-12


@contextmanager
def _no_deadline() -> Iterator[None]:
    """Bounds never cut short by time: what they find depends on the checks alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Budget, "bound_deadline", lambda self: math.inf)
        patch.setattr(Budget, "checkpoint_deadline", lambda self: math.inf)
        yield


@SETTINGS
@given(
    fdp.problems(),
    st.sampled_from([*fdp.METRICS, "loss"]),
    st.sampled_from(["remove", "star"]),
    st.sampled_from(["best-first", "genetic"]),
    st.integers(1, 30),
    st.integers(1, 30),
    st.integers(0, 2**32 - 1),
)
def test_a_larger_step_limit_never_gives_a_smaller_bound(
    p: dict, metric: str, mode: str, kind: str, steps: int, more: int, seed: int
) -> None:
    """The longer search checks every node the shorter one did (the genetic search from the
    same generator state), so it knows more about the nodes it did not check."""
    with _no_deadline():
        try:
            short = _searched(p, metric, mode, kind, steps, seed)
        except InfeasibleError:
            return
        long = _searched(p, metric, mode, kind, steps + more, seed)
    low, high = _cost(short.lower_bound, metric), _cost(long.lower_bound, metric)
    assert high >= low - RTOL * max(abs(low), 1.0)


# ---------------------------------------------------------------------------- a real survey
def _gss() -> tuple:
    """GSS 2018's spending survey, 2,348 respondents, fourteen quasi-identifiers (a lattice of
    149,299,200 nodes; missing answers are the value ``?``)."""
    sys.path.insert(0, "tests")
    from real_surveys import survey

    balanced = ["sex", "degree", "race", "rincom16", "partyid", "polviews", "xnorcsiz", "news"]
    balanced += ["wrkstat", "natspac", "natenvir", "natheal"]
    schema = {
        c: {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}} for c in balanced
    }
    widths = {"age": [5, 10, 20, 40], "educ": [2, 4, 8]}
    for c, w in widths.items():
        schema[c] = {
            "role": "quasi",
            "hierarchy": {"builder": "intervals", "widths": w, "start": 0},
        }
    return survey("gss_spending")[list(schema)], schema


@pytest.mark.parametrize("kind", ["best-first", "genetic"])
def test_a_longer_search_on_a_real_survey_never_lowers_its_bound(kind: str) -> None:
    # 1,100 checks pass the first bound computed during the search (after 1,024).
    df, schema = _gss()
    found = []
    for steps in (100, 300, 1100):
        with _no_deadline():
            release = full_domain(
                df,
                schema,
                models=[{"k_anonymity": {"k": 5}}],
                suppression=0.05,
                search=kind,
                step_limit=steps,
                rng=np.random.default_rng(5),
            )
        info = release.metadata["search"]
        assert info["kind"] == kind and info["nodes_checked"] == steps
        assert info["lower_bound"] <= release.metadata["metric"]["value"]
        found.append(info["lower_bound"])
    assert found == sorted(found)
    assert found[-1] > found[0]  # (0.071, 0.073, 0.147 best-first; 0.076, 0.101, 0.162)


def test_a_bound_computed_during_the_search_is_kept_when_the_last_is_cut_short() -> None:
    df, schema = _gss()
    kw = {"models": [{"k_anonymity": {"k": 5}}], "suppression": 0.05, "search": "best-first"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Budget, "checkpoint_deadline", lambda self: math.inf)
        at_checkpoint = full_domain(df, schema, step_limit=1024, **kw).metadata["search"]
        patch.setattr(Budget, "bound_deadline", lambda self: -math.inf)  # the last: at once
        cut = full_domain(df, schema, step_limit=1100, **kw).metadata["search"]
        bottom = full_domain(df, schema, step_limit=1000, **kw).metadata["search"]
    # Without a bound during the search, the bottom node's; with one, that bound, kept.
    assert bottom["lower_bound"] < at_checkpoint["lower_bound"]
    assert cut["lower_bound"] == pytest.approx(at_checkpoint["lower_bound"], rel=1e-12)


def test_on_a_wide_lattice_the_walk_reads_its_clock_between_small_pieces_of_work() -> None:
    # 300 attributes (a real file had 1,416 quasi-identifiers): ordering the sunk nodes had
    # bounded q nodes of q attributes for each of them, and the walk q children of q
    # attributes for each of 4,096 nodes, before the clock was read again (seconds past the
    # time limit). Here the pieces may be at most q nodes: the walk reads its clock after each.
    rng = np.random.default_rng(2)
    q = 300
    heights = np.full(q, 2)
    sunk = rng.integers(0, 2, size=(40, q))
    checked = np.concatenate([sunk, rng.integers(0, 3, size=(40, q))])
    clear = np.full((1, q), 2)
    costs = rng.random((q, 3)).cumsum(axis=1)

    def bound_of(levels: np.ndarray) -> np.ndarray:
        levels = np.asarray(levels).reshape(-1, q)
        return costs[np.arange(q), levels].sum(axis=1)

    clock = CountingClock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lower_bound, "time", clock)
        patch.setattr(_lower_bound, "_BLOCK_CELLS", q * q)
        patch.setattr(_lower_bound, "_CHILD_CELLS", q * q)
        found = unexplored_bound(
            Known(heights, checked, sunk, clear), clock.bounded(bound_of), math.inf, math.inf
        )
    assert bound_of(np.zeros((1, q), dtype=int))[0] <= found < math.inf
    assert 0 < clock.most <= q * q


@pytest.mark.parametrize("kind", ["genetic", "best-first"])
def test_on_a_wide_lattice_the_searches_stop_for_their_time_limit(kind: str) -> None:
    # The same with the searches and their own clock: they stop for their time limit, having
    # read the clock between pieces of work of at most q nodes.
    rng = np.random.default_rng(4)
    q = 300
    table = Table.from_frame(*wide_table(rng, q, 200))
    models = _model_set(table, [KAnonymity(3)], "remove")
    clock = CountingClock()
    real = _lower_bound.unexplored_bound
    with pytest.MonkeyPatch.context() as patch:
        for module in (_lower_bound, _budget):
            patch.setattr(module, "time", clock)
        patch.setattr(_lower_bound, "_BLOCK_CELLS", q * q)
        patch.setattr(_lower_bound, "_CHILD_CELLS", q * q)
        patch.setattr(
            _heuristic, "unexplored_bound", lambda k, b, *a: real(k, clock.bounded(b), *a)
        )
        if kind == "genetic":
            rng = np.random.default_rng(1)
            found = genetic_search(table, models, 10, "lm", 0.05, 3000.0, rng=rng)
        else:
            found = heuristic_search(table, models, 10, "lm", 0.05, 3000.0)
    assert found.stopped == "time_limit"
    assert 0 < clock.most <= q * q
