"""The genetic full-domain search against brute force, and its determinism given a generator.

Small random lattices are enumerated by the brute-force reference of
``test_full_domain_properties`` (k-anonymity, the ℓ-diversity forms, t-closeness), which never
uses the search's code. Whatever its budget and generator, the genetic search's node must be
one of the feasible nodes brute force finds, with the same suppressed records and metric
value, never better than the optimum; the published table must satisfy the models; its lower
bound must not exceed the optimum; and run without a budget it ends with the exact search's
answer. The same generator state and ``step_limit`` give the same release; nothing about the
generator is written into it.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest
import test_full_domain_properties as fdp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import wide_table
from test_full_domain_heuristic import _small, exact_name

from microanon.core import InfeasibleError, InputError, Table
from microanon.methods.generalize import full_domain
from microanon.methods.generalize._genetic import genetic_search, random_node
from microanon.methods.generalize._heuristic import _Walk
from microanon.methods.generalize._search import _model_set, search
from microanon.models import KAnonymity, check_release

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RTOL = 1e-9
#: The module (the package exports its function under the same name).
searches_module = importlib.import_module("microanon.methods.generalize.searches")


def _cost(value: float, metric: str) -> float:
    return 1.0 - value if metric == "precision" else value


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fdp.problems(),
    st.sampled_from(fdp.METRICS),
    st.one_of(st.integers(1, 12), st.just(10**6)),
    st.integers(0, 2**32 - 1),
)
def test_genetic_node_is_feasible_and_never_better_than_the_optimum(
    p: dict, metric: str, steps: int, seed: int
) -> None:
    nodes = fdp.brute_force(p)
    try:
        release = full_domain(
            p["df"],
            p["schema"],
            models=p["models"],
            suppression=p["suppression"],
            metric=metric,
            search="genetic",
            step_limit=steps,
            rng=np.random.default_rng(seed),
        )
    except InfeasibleError as exc:
        # Either nothing is feasible, or the budget ran out before a feasible node.
        assert not nodes or "step_limit" in str(exc)
        return
    meta = release.metadata
    found = [x for x in nodes if x["levels"] == meta["levels"]]
    assert found, "the genetic search returned an infeasible node"
    node = found[0]
    assert meta["suppressed"] == node["suppressed"]
    assert meta["metric"]["value"] == pytest.approx(node[metric], rel=RTOL, abs=1e-12)
    info = meta["search"]
    assert info["kind"] == "genetic" and info["optimal"] is False
    assert info["nodes_checked"] <= steps
    best = fdp.optimum(nodes, metric)
    value = _cost(meta["metric"]["value"], metric)
    assert value >= _cost(best[metric], metric) * (1 - RTOL) - 1e-12  # never beats the optimum
    if metric == "precision":
        assert info["upper_bound"] >= best[metric] - RTOL
    else:
        assert info["lower_bound"] <= best[metric] * (1 + RTOL) + 1e-12
    if info["stopped"] == "exhausted":  # every node that could win was checked
        assert meta["levels"] == best["levels"]
    data = release.tables["data"]
    fdp._holds(data, p, data)
    assert all(v.holds for v in check_release(release))


@SETTINGS
@given(
    fdp.problems(),
    st.sampled_from([*fdp.METRICS, "loss"]),
    st.integers(1, 20),
    st.integers(0, 2**32 - 1),
)
def test_genetic_value_is_never_better_than_the_exact_optimum(
    p: dict, metric: str, steps: int, seed: int
) -> None:
    # The exact search is itself tested against brute force (test_full_domain_properties):
    # a cheaper reference for more examples than the brute-force test above.
    kw = {"models": p["models"], "suppression": p["suppression"], "metric": metric}
    try:
        exact = full_domain(p["df"], p["schema"], search="exact", **kw).metadata["metric"]
    except InfeasibleError:
        return
    try:
        release = full_domain(
            p["df"],
            p["schema"],
            search="genetic",
            step_limit=steps,
            rng=np.random.default_rng(seed),
            **kw,
        )
    except InfeasibleError as exc:
        assert "step_limit" in str(exc)
        return
    got = release.metadata["metric"]["value"]
    assert _cost(got, metric) >= _cost(exact["value"], metric) * (1 - RTOL) - 1e-12
    assert all(v.holds for v in check_release(release))


@SETTINGS
@given(
    fdp.problems(),
    st.sampled_from(["remove", "star"]),
    st.integers(1, 15),
    st.integers(0, 2**32 - 1),
)
def test_every_genetic_release_satisfies_the_models(
    p: dict, mode: str, steps: int, seed: int
) -> None:
    try:
        release = full_domain(
            p["df"],
            p["schema"],
            models=p["models"],
            suppression=p["suppression"],
            suppressed_rows=mode,
            search="genetic",
            step_limit=steps,
            rng=np.random.default_rng(seed),
        )
    except InfeasibleError:
        return  # nothing feasible found within the budget, or the '*' class fails a model
    meta = release.metadata
    assert meta["suppressed"] <= np.floor(p["suppression"] * len(p["df"]) + 1e-9)
    if mode == "star":
        assert meta["rows_out"] == len(p["df"])
    assert all(v.holds for v in check_release(release))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fdp.problems(),
    st.sampled_from([*fdp.METRICS, "loss"]),
    st.sampled_from(["remove", "star"]),
    st.integers(0, 2**32 - 1),
)
def test_genetic_run_to_exhaustion_is_the_exact_search(
    p: dict, metric: str, mode: str, seed: int
) -> None:
    table = Table.from_frame(p["df"], p["schema"])
    limit = int(np.floor(p["suppression"] * table.n_records + 1e-9))
    models = _model_set(table, p["models"], mode)
    rng = np.random.default_rng(seed)
    try:
        exact = search(table, p["models"], p["suppression"], metric, suppressed_rows=mode)
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            genetic_search(
                table, models, limit, exact_name(metric), p["suppression"], None, rng=rng
            )
        return
    got = genetic_search(table, models, limit, exact.metric, p["suppression"], None, rng=rng)
    assert got.stopped == "exhausted"
    assert got.levels == exact.levels
    assert got.suppressed == exact.suppressed
    assert got.metric_value == exact.metric_value
    assert np.array_equal(got.suppressed_mask, exact.suppressed_mask)
    assert got.lower_bound == got.metric_value


def _levels_drawn(heights: list[int], seed: int, draws: int) -> list[set[int]]:
    rng = np.random.default_rng(seed)
    nodes = np.array([random_node(rng, np.asarray(heights)) for _ in range(draws)])
    return [set(col.tolist()) for col in nodes.T]


def test_random_nodes_reach_every_level_of_every_hierarchy() -> None:
    # The share s in [0, 1) times the height, floored, never reached a hierarchy's top: a random
    # node never raised a quasi-identifier of height 1. Here heights 1, 2 and 5 mixed.
    heights = [1, 2, 5, 1, 5, 2, 1]
    assert _levels_drawn(heights, 0, 3000) == [set(range(h + 1)) for h in heights]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=1, max_size=10), st.integers(0, 2**32 - 1)
)
def test_random_nodes_reach_every_level_whatever_the_generator(heights: list, seed: int) -> None:
    # The rarest level, the top of a height-5 hierarchy, comes once in 36 draws on average.
    assert _levels_drawn(heights, seed, 3000) == [set(range(h + 1)) for h in heights]
    one, two = np.random.default_rng(seed), np.random.default_rng(seed)
    h = np.asarray(heights)
    assert [random_node(one, h) for _ in range(20)] == [random_node(two, h) for _ in range(20)]


def _genetic(seed: int, **kw: object) -> object:
    df, schema = _small()
    return full_domain(
        df,
        schema,
        models=[KAnonymity(4)],
        suppression=0.05,
        search="genetic",
        rng=np.random.default_rng(seed),
        **kw,
    )


def test_same_seed_and_step_limit_same_release() -> None:
    one, two = _genetic(11, step_limit=25), _genetic(11, step_limit=25)
    assert one.metadata["levels"] == two.metadata["levels"]
    assert one.tables["data"].equals(two.tables["data"])
    assert one.metadata["search"]["lower_bound"] == two.metadata["search"]["lower_bound"]
    assert one.metadata["search"]["kind"] == "genetic"


def test_different_generators_walk_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple] = []
    check = _Walk.check

    def recording(self: _Walk, node: tuple, budget: object) -> object:
        seen.append(node)
        return check(self, node, budget)

    monkeypatch.setattr(_Walk, "check", recording)
    walks = []
    for seed in (1, 2, 1):
        seen.clear()
        _genetic(seed, step_limit=20)
        walks.append(list(seen))
    assert walks[0] == walks[2]  # the same generator state, the same checks
    assert walks[0] != walks[1]  # another state, other random nodes


def test_the_generator_is_never_written_into_the_release() -> None:
    rng = np.random.default_rng(123)
    state = json.dumps(rng.bit_generator.state, default=str)
    df, schema = _small()
    release = full_domain(
        df,
        schema,
        models=[KAnonymity(5)],
        suppression=0.02,
        search="genetic",
        step_limit=30,
        rng=rng,
    )
    for meta in (release.metadata, release.public_metadata):
        dumped = json.dumps(meta, default=str).lower()
        assert "rng" not in dumped and "seed" not in dumped and "generator" not in dumped
        assert str(json.loads(state)["state"]["state"]) not in dumped
    assert release.public_metadata["parameters"]["search"] == "genetic"
    assert all(v.holds for v in check_release(release))


class _StopAfter:
    """A watcher that asks the search to stop after ``n`` nodes."""

    def __init__(self, n: int) -> None:
        self.n, self.calls = n, []

    def stop_requested(self) -> bool:
        return bool(self.calls) and self.calls[-1][0] >= self.n

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        self.calls.append((nodes, best))


def test_the_watcher_stops_it_and_the_best_node_is_kept() -> None:
    watch = _StopAfter(20)
    release = _genetic(5, watch=watch)
    info = release.metadata["search"]
    assert info["stopped"] == "stopped" and info["nodes_checked"] == 20
    assert "stopped by the user" in info["summary"]
    assert watch.calls[-1][1] == pytest.approx(release.metadata["metric"]["value"])
    assert all(v.holds for v in check_release(release))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"search": "genetic", "all_minimal": True}, "all_minimal needs the exact search"),
        ({"search": "exact", "step_limit": 5}, "bound the heuristic searches"),
    ],
)
def test_bad_genetic_parameters(kwargs: dict, message: str) -> None:
    df, schema = _small()
    with pytest.raises(InputError, match=message):
        full_domain(df, schema, models=[KAnonymity(2)], **kwargs)


@pytest.mark.parametrize(
    ("search", "min_quasi", "kind"),
    [
        ("auto", 3, "genetic"),
        ("heuristic", 3, "genetic"),
        ("auto", 4, "best-first"),
        ("heuristic", 4, "best-first"),
        ("best-first", 3, "best-first"),
        ("genetic", 4, "genetic"),
    ],
)
def test_which_search_runs_above_the_exact_search_limit(
    monkeypatch: pytest.MonkeyPatch, search: str, min_quasi: int, kind: str
) -> None:
    # _small has three quasi-identifiers and 80 nodes; shrink the limits around it.
    monkeypatch.setattr(searches_module, "MAX_NODES", 10)
    monkeypatch.setattr(searches_module, "GENETIC_MIN_QUASI", min_quasi)
    df, schema = _small()
    release = full_domain(
        df,
        schema,
        models=[KAnonymity(5)],
        search=search,
        step_limit=30,
        rng=np.random.default_rng(0),
    )
    info = release.metadata["search"]
    assert info["kind"] == kind
    assert info["summary"].startswith(
        "best found by the genetic search in "
        if kind == "genetic"
        else "best found by the best-first search in "
    )
    assert all(v.holds for v in check_release(release))


def test_heuristic_on_a_small_lattice_stays_best_first() -> None:
    df, schema = _small()
    release = full_domain(df, schema, models=[KAnonymity(5)], search="heuristic", step_limit=30)
    assert release.metadata["search"]["kind"] == "best-first"


@pytest.mark.parametrize(("kind", "seed"), [("genetic", 3), ("genetic", 11), ("heuristic", None)])
def test_a_budget_cut_at_the_found_check_returns_the_same_node(kind: str, seed: int | None) -> None:
    # The search record says which check found the node returned, and when: the same search
    # stopped right after that check returns the same node (what followed found nothing better).
    df, schema = _small()

    def run(steps: int) -> object:
        rng = None if seed is None else np.random.default_rng(seed)
        return full_domain(
            df, schema, models=[KAnonymity(4)], suppression=0.05, search=kind, rng=rng,
            step_limit=steps,
        )  # fmt: skip

    whole = run(60)
    info = whole.metadata["search"]
    assert 1 <= info["found_check"] <= info["nodes_checked"]
    assert info["found_seconds"] >= 0
    assert f"s in (check {info['found_check']:,});" in info["summary"]
    assert run(info["found_check"]).metadata["levels"] == whole.metadata["levels"]


@pytest.mark.parametrize("kind", ["genetic", "best-first"])
def test_more_quasi_identifiers_than_numpy_has_dimensions(kind: str) -> None:
    # 70 quasi-identifiers: more than numpy's 64 array dimensions, so the keys of few rows are
    # packed and unpacked attribute by attribute, not by numpy's one call (a real file, with
    # 346 proposed by init, failed there).
    rng = np.random.default_rng(5)
    q = 70
    df, schema = wide_table(rng, q, 300)
    release = full_domain(
        df, schema, models=[KAnonymity(3)], suppression=0.05, search=kind, step_limit=40,
        rng=np.random.default_rng(1),
    )  # fmt: skip
    assert release.metadata["search"]["kind"] == kind
    assert all(v.holds for v in check_release(release))
    # 2^70 nodes, with three significant digits rather than 22 of them
    assert " of 1.18e+21 nodes checked; step limit)" in release.metadata["search"]["summary"]


def test_a_whole_number_bound_reads_as_a_number_at_the_sentence_end() -> None:
    # "lower bound of the optimal lm 0." read as a number cut short (a real file's bound was 0).
    from microanon.methods.generalize._search import SearchResult
    from microanon.methods.generalize.searches import search_record

    result = SearchResult(
        {"a": 1}, "lm", 0.5, 0, 10, 100, kind="genetic", lower_bound=0.0, stopped="time_limit",
        found_step=3, found_seconds=0.3,
    )  # fmt: skip
    summary = search_record(result)["summary"]
    assert summary.endswith("(check 3); lower bound of the optimal lm 0.0")
    assert ", that node checked 0.3 s in (check 3);" in summary


@pytest.mark.parametrize(("kind", "seed"), [("genetic", 3), ("heuristic", None)])
def test_a_search_without_its_lower_bound_finds_the_same_node(
    kind: str, seed: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The closest configurations read an alternative's node, not its bound: a search told not
    # to work for the bound (which may take a second or more) finds the same node, and its
    # bound is the bottom node's, at once (the walk over the nodes not checked never starts).
    from microanon.methods.generalize import _heuristic
    from microanon.methods.generalize.searches import check_search, run_search

    df, schema = _small()
    table = Table.from_frame(df, schema)
    choice = check_search(kind, None, 60, False)

    def run(lower_bound: bool) -> object:
        rng = None if seed is None else np.random.default_rng(seed)
        return run_search(
            table, [KAnonymity(4)], 0.05, "lm", "remove", choice, rng=rng, lower_bound=lower_bound
        )[0]

    bounded = run(True)
    walks = []
    monkeypatch.setattr(_heuristic, "unexplored_bound", lambda *a: walks.append(a))
    loose = run(False)
    assert walks == []
    assert loose.levels == bounded.levels
    assert loose.metric_value == bounded.metric_value
    models = _model_set(table, [KAnonymity(4)], "remove")
    bottom = _Walk(table, models, 0, "lm").bounds([(0,) * 3])[0]
    assert loose.lower_bound == pytest.approx(min(bottom, loose.metric_value))
    assert loose.lower_bound <= bounded.lower_bound


def test_the_default_budget_stops_a_genetic_search_that_finds_nothing_better(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without a limit given, the genetic search stops once PATIENCE generations (here 3), and
    # at least as many as it took to find its node, found no better one: the node a search of
    # as many checks finds. With a limit given it runs to the limit.
    import re

    monkeypatch.setattr(searches_module, "PATIENCE", 3)
    df, schema = wide_table(np.random.default_rng(11), 14, 300)

    def run(**budget: int) -> dict:
        release = full_domain(
            df,
            schema,
            models=[KAnonymity(3)],
            suppression=0.05,
            search="genetic",
            rng=np.random.default_rng(2),
            **budget,
        )
        assert all(v.holds for v in check_release(release))
        return {"levels": release.metadata["levels"], **release.metadata["search"]}

    default = run()
    assert default["stopped"] == "converged"
    assert default["time_limit"] == 30.0 and default["step_limit"] is None
    idle = re.search(r"; no better node in its last ([\d,]+) generations\)", default["summary"])
    assert idle is not None and int(idle[1].replace(",", "")) >= 3
    checks = default["nodes_checked"]
    assert checks < 2**14
    same = run(step_limit=checks)
    assert same["levels"] == default["levels"] and same["found_check"] == default["found_check"]
    longer = run(step_limit=checks + 200)
    assert longer["stopped"] == "step_limit" and longer["nodes_checked"] == checks + 200


def test_the_bound_of_a_converged_search_gets_a_ninth_of_its_time() -> None:
    # A search that stopped long before its time limit does not give its lower bound the rest
    # of the limit: a ninth of the time it ran (at least a second), as without a limit.
    from microanon.methods.generalize._budget import bound_deadline

    assert bound_deadline(100.0, 118.0, 30.0) == 100.0 + 0.99 * 30.0
    assert bound_deadline(100.0, 118.0, 30.0, converged=True) == 118.0 + 2.0
    assert bound_deadline(100.0, 104.5, 30.0, converged=True) == 104.5 + 1.0
    assert bound_deadline(100.0, 104.5, None) == 104.5 + 1.0
