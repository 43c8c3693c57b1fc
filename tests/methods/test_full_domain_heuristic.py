"""The heuristic full-domain search (best-first within a budget) against brute force.

Small random lattices are enumerated by the brute-force references of
``test_full_domain_properties`` (k-anonymity, the ℓ-diversity forms, t-closeness) and
``test_full_domain_risk_models`` (β-likeness, δ-disclosure, δ-presence, k-map), which never use
the search's code. Whatever its budget, the heuristic's node must be one of the feasible nodes
brute force finds, with the same suppressed records and metric value; the published table must
satisfy the models (checked on the output); its lower bound must not exceed the optimum; and
when it stops by exhausting the lattice its answer is the exact search's. A survey file with
fifteen quasi-identifiers (a lattice far beyond the exact search's) shows a release whose
claims verify.
"""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np
import pandas as pd
import pytest
import test_full_domain_properties as fdp
import test_full_domain_risk_models as frm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy, InfeasibleError, InputError, Table
from microanon.methods.generalize import _lower_bound, full_domain
from microanon.methods.generalize._budget import Budget
from microanon.methods.generalize._heuristic import heuristic_search
from microanon.methods.generalize._lattice import MAX_NODES
from microanon.methods.generalize._search import _model_set, search
from microanon.models import KAnonymity, check_release, k_anonymity

#: The module (the package exports its function under the same name).
searches_module = importlib.import_module("microanon.methods.generalize.searches")
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RTOL = 1e-9


def _cost(value: float, metric: str) -> float:
    return 1.0 - value if metric == "precision" else value


def _run(p: dict, metric: str, steps: int | None) -> object:
    return full_domain(
        p["df"],
        p["schema"],
        models=p["models"],
        suppression=p["suppression"],
        metric=metric,
        search="heuristic",
        step_limit=steps,
    )


def _against_brute_force(p: dict, nodes: list[dict], metric: str, steps: int) -> object:
    """Run the heuristic and check its node against the brute-force feasible nodes."""
    try:
        release = _run(p, metric, steps)
    except InfeasibleError as exc:
        # Either nothing is feasible, or the budget ran out before a feasible node.
        assert not nodes or "step_limit" in str(exc)
        return None
    meta = release.metadata
    found = [x for x in nodes if x["levels"] == meta["levels"]]
    assert found, "the heuristic returned an infeasible node"
    node = found[0]
    assert meta["suppressed"] == node["suppressed"]
    assert meta["metric"]["value"] == pytest.approx(node[metric], rel=RTOL, abs=1e-12)
    assert meta["rows_out"] == len(p["df"]) - node["suppressed"]
    info = meta["search"]
    assert info["kind"] == "best-first" and info["optimal"] is False
    assert info["nodes_checked"] <= steps
    best = fdp.optimum(nodes, metric)
    # The bound is a bound of the optimum (of 1 - precision: the precision's upper bound).
    if metric == "precision":
        assert info["upper_bound"] >= best[metric] - RTOL
    else:
        assert info["lower_bound"] <= best[metric] * (1 + RTOL) + 1e-12
    if info["stopped"] == "exhausted":  # every node that could win was checked
        assert meta["levels"] == best["levels"]
        assert meta["suppressed"] == best["suppressed"]
    else:
        assert info["stopped"] == "step_limit"
    return release


@SETTINGS
@given(
    fdp.problems(),
    st.sampled_from(fdp.METRICS),
    st.one_of(st.integers(1, 12), st.just(10**6)),
)
def test_heuristic_node_is_feasible_and_its_bound_holds(p: dict, metric: str, steps: int) -> None:
    nodes = fdp.brute_force(p)
    release = _against_brute_force(p, nodes, metric, steps)
    if release is not None:  # the models hold on the published table itself
        data = release.tables["data"]
        fdp._holds(data, p, data)
        assert all(v.holds for v in check_release(release))


@SETTINGS
@given(
    st.one_of(frm.problems(), frm.problems(monotone=False)),
    st.sampled_from(frm.METRICS),
    st.one_of(st.integers(1, 8), st.just(10**6)),
)
def test_heuristic_with_population_and_share_models(p: dict, metric: str, steps: int) -> None:
    nodes = frm.brute_force(p)
    release = _against_brute_force(p, nodes, metric, steps)
    if release is not None:
        assert all(v.holds for v in check_release(release))


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fdp.problems(),
    st.sampled_from(
        [*fdp.METRICS, "loss", {"name": "loss", "aggregate": "arithmetic", "gs_factor": 0.2}]
    ),
    st.sampled_from(["remove", "star"]),
)
def test_heuristic_run_to_exhaustion_is_the_exact_search(
    p: dict, metric: object, mode: str
) -> None:
    table = Table.from_frame(p["df"], p["schema"])
    n = table.n_records
    limit = int(np.floor(p["suppression"] * n + 1e-9))
    models = _model_set(table, p["models"], mode)
    try:
        exact = search(table, p["models"], p["suppression"], metric, suppressed_rows=mode)
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            heuristic_search(table, models, limit, exact_name(metric), p["suppression"], None)
        return
    got = heuristic_search(table, models, limit, exact.metric, p["suppression"], None)
    assert got.stopped == "exhausted"
    assert got.levels == exact.levels
    assert got.suppressed == exact.suppressed
    assert got.metric_value == exact.metric_value
    assert np.array_equal(got.suppressed_mask, exact.suppressed_mask)
    assert got.lower_bound == got.metric_value


def exact_name(metric: object) -> str:
    from microanon.methods.generalize._metrics import canonical_metric

    return canonical_metric(metric)


def _small() -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(7)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 16, 300),
            "b": rng.integers(0, 8, 300),
            "c": rng.integers(0, 6, 300),
            "s": rng.choice(list("xyz"), 300),
        }
    )
    schema = {
        "a": {"role": "quasi", "hierarchy": Hierarchy.intervals(range(16), [2, 4, 8])},
        "b": {"role": "quasi", "hierarchy": Hierarchy.balanced(range(8), fanout=2)},
        "c": {"role": "quasi", "hierarchy": Hierarchy.balanced(range(6), fanout=2)},
        "s": {"role": "sensitive"},
    }
    return df, schema


def test_auto_runs_the_exact_search_on_a_small_lattice() -> None:
    df, schema = _small()
    release = full_domain(df, schema, models=[KAnonymity(5)], suppression=0.02)
    info = release.metadata["search"]
    assert info == {"kind": "exact", "optimal": True, "summary": "optimal"}
    # Which search ran under "auto" depends on the hierarchies' heights: internal; the
    # parameters name only what the user chose.
    assert "search" not in release.public_metadata
    assert "search" not in release.metadata["parameters"]
    chosen = full_domain(df, schema, models=[KAnonymity(5)], search="heuristic", step_limit=9)
    assert chosen.public_metadata["parameters"]["search"] == "heuristic"
    assert chosen.public_metadata["parameters"]["step_limit"] == 9
    assert "time_limit" not in chosen.metadata["parameters"]


def test_auto_runs_the_heuristic_above_the_exact_search_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df, schema = _small()
    exact = full_domain(df, schema, models=[KAnonymity(5)], suppression=0.02)
    monkeypatch.setattr(searches_module, "MAX_NODES", 10)
    release = full_domain(df, schema, models=[KAnonymity(5)], suppression=0.02, step_limit=40)
    info = release.metadata["search"]
    assert info["kind"] == "best-first" and not info["optimal"]
    assert info["nodes_checked"] <= 40
    assert info["lower_bound"] <= exact.metadata["metric"]["value"]
    assert info["summary"].startswith("best found by the best-first search in ")
    assert "lower bound of the optimal lm" in info["summary"]
    for key in ("search", "nodes_checked", "search_seconds", "lattice_size"):
        assert key not in release.public_metadata
    assert all(v.holds for v in check_release(release))


def test_same_step_limit_same_release() -> None:
    df, schema = _small()
    kw = {"models": [KAnonymity(4)], "suppression": 0.05, "search": "heuristic"}
    one = full_domain(df, schema, step_limit=25, **kw)
    two = full_domain(df, schema, step_limit=25, **kw)
    assert one.metadata["levels"] == two.metadata["levels"]
    assert one.tables["data"].equals(two.tables["data"])
    assert one.metadata["search"]["lower_bound"] == two.metadata["search"]["lower_bound"]


class _Clock:
    """A stand-in for :mod:`time` whose clock ticks once per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


@SETTINGS
@given(fdp.problems(), st.sampled_from(fdp.METRICS), st.integers(1, 12), st.integers(0, 40))
def test_a_lower_bound_cut_short_by_its_deadline_still_bounds_the_optimum(
    p: dict, metric: str, steps: int, ticks: int
) -> None:
    """The lower bound stops at its deadline wherever it is (the maximal sunk nodes, the walk
    over the nodes not checked) and returns a looser bound, never one above the optimum: here
    its clock ticks once per reading and the deadline is ``ticks`` readings away."""
    nodes = fdp.brute_force(p)
    clock = _Clock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lower_bound, "time", clock)
        patch.setattr(Budget, "bound_deadline", lambda self: clock.now + ticks)
        _against_brute_force(p, nodes, metric, steps)


@SETTINGS
@given(fdp.problems(), st.sampled_from(fdp.METRICS), st.integers(1, 12), st.integers(0, 30))
def test_a_lower_bound_that_meets_too_many_nodes_still_bounds_the_optimum(
    p: dict, metric: str, steps: int, limit: int
) -> None:
    """The lower bound's walk stops once it has seen more nodes than it may keep, with the
    smallest bound of those it has not looked at: looser, never above the optimum."""
    nodes = fdp.brute_force(p)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lower_bound, "MOST_NODES", limit)
        _against_brute_force(p, nodes, metric, steps)


@SETTINGS
@given(
    st.integers(1, 4).flatmap(
        lambda q: st.lists(st.tuples(*[st.integers(0, 3)] * q), min_size=1, max_size=120)
    ),
    st.integers(0, 200),
)
def test_maximal_nodes_and_those_found_by_a_deadline(nodes: list, ticks: int) -> None:
    """The nodes below no other (each once), as brute force finds them; stopped by a deadline,
    some of them, which only leaves fewer nodes known to be infeasible."""
    unique = list(dict.fromkeys(nodes))
    below = {a for a in unique for b in unique if a != b and all(np.less_equal(a, b).tolist())}
    expected = {a for a in unique if a not in below}
    heights = np.full(len(nodes[0]), 3)
    found = _lower_bound.maximal(np.asarray(nodes), heights)
    assert len(found) == len(expected) and {tuple(r) for r in found.tolist()} == expected
    clock = _Clock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lower_bound, "time", clock)
        cut = _lower_bound.maximal(np.asarray(nodes), heights, float(ticks))
    assert {tuple(r) for r in cut.tolist()} <= expected


def test_time_limit_is_a_budget() -> None:
    # No assertion on the elapsed time: only that the result is a valid release.
    df, schema = _small()
    release = full_domain(
        df, schema, models=[KAnonymity(5)], suppression=0.02, search="heuristic", time_limit=5
    )
    assert release.metadata["parameters"]["time_limit"] == 5.0
    assert release.metadata["search"]["time_limit"] == 5.0
    assert release.metadata["search"]["stopped"] in ("exhausted", "time_limit")
    assert all(v.holds for v in check_release(release))


def test_budget_spent_before_a_feasible_node() -> None:
    df, schema = _small()
    with pytest.raises(InfeasibleError, match="raise step_limit"):
        full_domain(df, schema, models=[KAnonymity(5)], search="heuristic", step_limit=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"search": "fast"}, "search must be one of auto, exact, heuristic"),
        ({"search": "heuristic", "time_limit": "1"}, "time_limit must be a number"),
        ({"search": "exact", "step_limit": 10}, "step_limit bound the heuristic searches"),
        ({"search": "heuristic", "all_minimal": True}, "all_minimal needs the exact search"),
    ],
)
def test_bad_search_parameters(kwargs: dict, message: str) -> None:
    df, schema = _small()
    with pytest.raises(InputError, match=message):
        full_domain(df, schema, models=[KAnonymity(2)], **kwargs)


def test_exact_search_refuses_a_huge_lattice_and_names_the_heuristic() -> None:
    df, schema = _anes()
    with pytest.raises(InputError, match="search='heuristic'"):
        full_domain(df, schema, models=[KAnonymity(5)], search="exact")


# ---------------------------------------------------------------------------- a real survey
def _anes() -> tuple[pd.DataFrame, dict]:
    """ANES 1978-2012, all 33,830 respondents, fifteen quasi-identifiers (a missing answer is
    the value ``?``, the default policy) with balanced and interval builders."""
    sys.path.insert(0, "tests")
    from real_surveys import survey

    widths = {"age": [5, 10, 20, 40], "therm_dem": [10, 20, 40], "therm_gop": [10, 20, 40]}
    widths["therm_bmp"] = widths["therm_dem"]
    balanced = ["year", "stateabb", "educat", "pid7", "race4", "unemployed", "incomeperc"]
    balanced += ["govt_waste", "distrust_govt", "polint", "govt_biginterests"]
    schema = {
        c: {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}} for c in balanced
    }
    for c, w in widths.items():
        schema[c] = {
            "role": "quasi",
            "hierarchy": {"builder": "intervals", "widths": w, "start": 0},
        }
    return survey("anes_partytherms")[list(schema)], schema


def test_anes_many_quasi_identifiers_heuristic_release_verifies() -> None:
    df, schema = _anes()
    assert len(df) == 33_830 and len(schema) == 15
    release = full_domain(
        df,
        schema,
        models=[KAnonymity(5)],
        suppression=0.05,
        metric="lm",
        step_limit=300,
        rng=np.random.default_rng(3),
    )
    meta = release.metadata
    info = meta["search"]
    # Fifteen quasi-identifiers above MAX_NODES: "auto" runs the genetic search.
    assert info["kind"] == "genetic" and not info["optimal"]
    assert meta["lattice_size"] > MAX_NODES
    assert info["nodes_checked"] <= 300
    assert info["lower_bound"] <= meta["metric"]["value"]
    assert meta["suppressed"] <= math.floor(0.05 * len(df))
    data = release.tables["data"]
    assert k_anonymity(data, list(schema), k=5).holds
    assert all(v.holds for v in check_release(release))


def test_a_config_passes_the_search_parameters() -> None:
    from microanon.apps.config import parse_config

    df, _ = _small()
    cfg = parse_config(
        {
            "schema": {
                "a": {"role": "quasi", "hierarchy": {"builder": "intervals", "widths": [2, 4, 8]}},
                "b": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
                "s": {"role": "sensitive"},
            },
            "method": "full_domain",
            "models": [{"k_anonymity": {"k": 3}}],
            "params": {"search": "heuristic", "step_limit": 12, "suppression": 0.05},
        }
    )
    release = cfg.run(df[["a", "b", "s"]])
    assert release.metadata["parameters"]["search"] == "heuristic"
    assert release.metadata["search"]["nodes_checked"] <= 12
    assert all(v.holds for v in check_release(release))


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fdp.problems(), st.integers(1, 15))
def test_heuristic_star_release_satisfies_the_models(p: dict, steps: int) -> None:
    try:
        release = full_domain(
            p["df"],
            p["schema"],
            models=p["models"],
            suppression=p["suppression"],
            suppressed_rows="star",
            search="heuristic",
            step_limit=steps,
        )
    except InfeasibleError:
        return  # nothing feasible found within the budget, or the '*' class fails a model
    meta = release.metadata
    assert meta["rows_out"] == len(p["df"])
    assert meta["suppressed"] <= math.floor(p["suppression"] * len(p["df"]) + 1e-9)
    stars = (release.tables["data"][p["quasi"]] == "*").all(axis=1)
    assert int(stars.sum()) >= meta["suppressed"]
    assert all(v.holds for v in check_release(release))


def test_a_written_heuristic_release_verifies_and_keeps_the_search_internal(tmp_path) -> None:
    from microanon.core import Release
    from microanon.models import verify_written

    df, schema = _small()
    release = full_domain(
        df, schema, models=[KAnonymity(5)], suppression=0.02, search="heuristic", step_limit=30
    )
    release.save(tmp_path / "rel")
    assert Release.load(tmp_path / "rel").metadata["search"] == release.metadata["search"]
    public = Release.load(tmp_path / "rel" / "public").metadata
    assert "search" not in public and "lower_bound" not in str(public)
    verification = verify_written(tmp_path / "rel", df)
    assert verification.ok, verification


class _StopAfter:
    """A watcher that asks the search to stop once it has checked ``n`` nodes."""

    def __init__(self, n: int) -> None:
        self.n, self.calls, self.best = n, 0, []

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        self.calls, self.best = nodes, [*self.best, best]

    def stop_requested(self) -> bool:
        return self.calls >= self.n


def test_a_watcher_stops_the_search_and_the_best_node_is_published() -> None:
    df, schema = _small()
    watch = _StopAfter(12)
    release = full_domain(
        df, schema, models=[KAnonymity(5)], suppression=0.02, search="heuristic", watch=watch
    )
    info = release.metadata["search"]
    assert info["stopped"] == "stopped" and info["nodes_checked"] == 12
    assert "stopped by the user" in info["summary"]
    assert watch.best[0] is None and watch.best[-1] is not None  # the best value so far
    assert all(v.holds for v in check_release(release))
    # The same node as a search limited to the same number of steps.
    same = full_domain(
        df, schema, models=[KAnonymity(5)], suppression=0.02, search="heuristic", step_limit=12
    )
    assert same.metadata["levels"] == release.metadata["levels"]


def test_an_anonymizer_fits_with_the_heuristic_and_applies_the_levels(tmp_path) -> None:
    from microanon.methods.generalize.anonymizer import Anonymizer

    df, schema = _small()
    anonymizer = Anonymizer(
        schema, [KAnonymity(3)], suppression=0.05, search="heuristic", step_limit=20
    )
    first = anonymizer.fit_transform(df.iloc[::2])
    assert first.metadata["search"]["kind"] == "best-first"
    anonymizer.save(tmp_path / "fit.json")
    again = Anonymizer.load(tmp_path / "fit.json")
    assert again.params["step_limit"] == 20 and again.params["search"] == "heuristic"
    second = again.transform(df.iloc[1::2])
    assert second.metadata["levels"] == first.metadata["levels"]
    assert all(v.holds for v in check_release(second))
    with pytest.raises(InputError, match="step_limit must be a positive integer"):
        Anonymizer(schema, [KAnonymity(3)], step_limit=0)


def test_the_command_line_says_the_levels_are_not_proven_optimal(tmp_path) -> None:
    import json

    import yaml
    from click.testing import CliRunner

    from microanon.apps.cli import main

    df, _ = _small()
    df.to_csv(tmp_path / "data.csv", index=False)
    config = {
        "schema": {
            "a": {"role": "quasi", "hierarchy": {"builder": "intervals", "widths": [2, 4, 8]}},
            "b": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "c": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "s": {"role": "sensitive"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 40}}, {"l_diversity": {"l": 3}}],
        "params": {"search": "heuristic", "step_limit": 15, "suppression": 0.02},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), str(tmp_path / "data.csv")]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out"), "--json", "-q"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["search"]["kind"] == "best-first" and summary["search"]["nodes_checked"] == 15
    report = (tmp_path / "out" / "internal" / "report.html").read_text()
    assert "not proven optimal" in report
    public = (tmp_path / "out" / "public" / "report.html").read_text()
    assert "proven optimal" not in public and "lower bound" not in public
    if "Closest configurations" in report:  # shown with a warning (here: high loss)
        budget = "within 15 nodes or 1 s, whichever came first; a longer search may lose less"
        assert budget in report


def test_the_command_line_overrides_the_search(tmp_path) -> None:
    import json

    import yaml
    from click.testing import CliRunner

    from microanon.apps.cli import main

    df, _ = _small()
    df[["a", "b", "s"]].to_csv(tmp_path / "data.csv", index=False)
    config = {
        "schema": {
            "a": {"role": "quasi", "hierarchy": {"builder": "intervals", "widths": [2, 4, 8]}},
            "b": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "s": {"role": "sensitive"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 3}}],
        "params": {"search": "heuristic", "step_limit": 3, "suppression": 0.05},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    base = ["anonymize", "--config", str(tmp_path / "c.yaml"), str(tmp_path / "data.csv"), "-q"]

    def run(*extra: str, out: str = "out") -> object:
        return CliRunner().invoke(main, [*base, "--out", str(tmp_path / out), "--json", *extra])

    exact = run("--search", "exact")  # the config's step limit was for the heuristic
    assert exact.exit_code == 0, exact.output
    assert json.loads(exact.stdout)["search"] == {
        "kind": "exact",
        "optimal": True,
        "summary": "optimal",
    }
    limited = run("--step-limit", "5", out="out2")
    assert limited.exit_code == 0, limited.output
    assert json.loads(limited.stdout)["search"]["nodes_checked"] == 5
    bad = run("--search", "exact", "--time-limit", "3", out="out3")
    assert bad.exit_code == 2 and "bound the heuristic search" in bad.output
    assert not (tmp_path / "out3").exists()
    config["method"], config["params"], config["models"] = "mondrian", {}, config["models"]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    other = run("--time-limit", "3", out="out4")
    assert other.exit_code == 2 and "--time-limit: only full_domain searches" in other.output


def test_an_anonymizer_fitted_on_a_huge_lattice_applies_its_levels() -> None:
    """Applying the levels a heuristic search chose needs no lattice: the recoding fitted on
    ANES's fifteen quasi-identifiers is applied to half of the file (whose rarer combinations
    need more suppression), the node checked exactly as the search checks it."""
    from microanon.methods.generalize.anonymizer import Anonymizer

    df, schema = _anes()
    anonymizer = Anonymizer(schema, [KAnonymity(5)], suppression=0.05, step_limit=40)
    first = anonymizer.fit_transform(df)
    assert first.metadata["lattice_size"] > MAX_NODES
    half = df.iloc[1::2]
    second = anonymizer.transform(half, suppression=0.1)
    assert second.metadata["levels"] == first.metadata["levels"]
    assert len(second.tables["data"]) + second.metadata["suppressed"] == len(half)
    assert k_anonymity(second.tables["data"], list(schema), k=5).holds
    assert all(v.holds for v in check_release(second))
