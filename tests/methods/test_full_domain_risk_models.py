"""Full-domain search with β-likeness, δ-disclosure, δ-presence and k-map.

The brute-force reference recodes the table *and the population* with
:meth:`Hierarchy.generalize` for every level vector and applies each model by its public check
(:meth:`PrivacyModel.group_ok`; population models given the generalized population), never the
search's code. δ-disclosure and δ-presence with ``δ_min > 0`` are not monotone up the lattice,
so these tests also guard the search against pruning them as if they were.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon.core import Hierarchy, InfeasibleError, InputError, Release, Schema, Table
from microanon.measures import aecs, discernibility, loss_metric, precision
from microanon.methods.generalize import full_domain, mondrian
from microanon.methods.generalize.full_domain import search
from microanon.models import (
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    Groups,
    KAnonymity,
    KMap,
    PopulationModel,
    check_release,
    verify_written,
)

METRICS = ("lm", "precision", "discernibility", "aecs")
RTOL = 1e-10
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---------------------------------------------------------------------------- data
@st.composite
def hierarchies(draw: st.DrawFn, name: str) -> tuple[Hierarchy, list]:
    kind = draw(st.sampled_from(["balanced", "intervals", "nested"]))
    if kind == "balanced":
        dom = list(range(draw(st.integers(1, 6))))
        return Hierarchy.balanced(dom, fanout=draw(st.integers(2, 3)), name=name), dom
    if kind == "intervals":
        dom = list(range(draw(st.integers(1, 8))))
        return Hierarchy.intervals(dom, draw(st.sampled_from([[2], [2, 4]])), name=name), dom
    values = [f"{name}{i}" for i in range(draw(st.integers(2, 5)))]
    tree: dict = {}
    for i, v in enumerate(values):
        tree.setdefault(f"G{draw(st.integers(0, 1)) if i else 0}", []).append(v)
    if len(tree) == 1:
        tree = {"*": next(iter(tree.values()))}
    return Hierarchy.from_nested(tree, name=name), values


def _models(draw: st.DrawFn, population: pd.DataFrame, count: str | None, monotone: bool) -> list:
    if not monotone:  # only the models whose feasibility is not monotone up the lattice
        presence = st.builds(
            lambda lo, hi: DeltaPresence(lo, hi, population=population, count=count),
            st.sampled_from([0.1, 0.25, 0.4, 0.5]),
            st.sampled_from([0.6, 1.0, 1.0]),
        )
        disclosure = st.builds(DeltaDisclosure, st.sampled_from([math.log(1.5), math.log(2), 1.0]))
        kind = draw(st.sampled_from(["presence", "presence", "both", "disclosure"]))
        models = [] if kind == "disclosure" else [draw(presence)]
        return models + ([] if kind == "presence" else [draw(disclosure)])
    pool = st.one_of(
        st.builds(
            BetaLikeness, st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from(["basic", "enhanced"])
        ),
        st.builds(DeltaDisclosure, st.sampled_from([math.log(1.5), math.log(2), 1.0, math.log(3)])),
        st.builds(
            lambda lo, hi: DeltaPresence(lo, hi, population=population, count=count),
            st.sampled_from([0.0, 0.0, 0.1, 0.25]),
            st.sampled_from([0.3, 0.5, 1.0]),
        ),
        st.builds(lambda k: KMap(k, population=population, count=count), st.integers(1, 6)),
        st.builds(
            KMap,
            st.integers(1, 8),
            st.sampled_from(["poisson", "zero_truncated_poisson"]),
            st.sampled_from([0.1, 0.5]),
            st.sampled_from([0.05, 0.2]),
        ),
        st.builds(KAnonymity, st.integers(1, 3)),
    )
    return draw(st.lists(pool, min_size=1, max_size=2))


@st.composite
def problems(draw: st.DrawFn, monotone: bool = True) -> dict:
    """A small table, a population containing it, models and a suppression limit.

    ``monotone=False`` draws only δ-disclosure and δ-presence with ``δ_min > 0``, the table from
    the first half of each domain and the population's other people mostly from the second
    half, so that generalizing merges classes with people outside the table and lowers the
    presence ratios: the cases where pruning as if feasibility were monotone goes wrong.
    """
    names = [f"q{i}" for i in range(draw(st.integers(2, 3)))]
    hs, doms = {}, {}
    for n in names:
        hs[n], doms[n] = draw(hierarchies(n))
    inside, outside = doms, doms
    if not monotone:
        inside = {n: doms[n][: max(1, len(doms[n]) // 2)] for n in names}
        outside = {n: doms[n][len(inside[n]) :] or doms[n] for n in names}
        outside = draw(st.sampled_from([outside, outside, doms]))
    rows = draw(st.integers(1, 40))
    data = {
        n: draw(st.lists(st.sampled_from(inside[n]), min_size=rows, max_size=rows)) for n in names
    }
    data["s"] = draw(
        st.lists(st.sampled_from("abc"[: draw(st.integers(1, 3))]), min_size=rows, max_size=rows)
    )
    df = pd.DataFrame(data)
    extra = draw(st.integers(0, 60) if monotone else st.integers(0, 9).map(lambda x: x * rows))
    others = {
        n: draw(st.lists(st.sampled_from(outside[n]), min_size=extra, max_size=extra))
        for n in names
    }
    population = pd.concat([df[names], pd.DataFrame(others)], ignore_index=True)
    count = None
    if draw(st.booleans()):
        population = population.groupby(names, sort=False).size().reset_index(name="n")
        count = "n"
    spec = {n: {"role": "quasi", "kind": "categorical", "hierarchy": hs[n]} for n in names}
    spec["s"] = {"role": "sensitive", "kind": "categorical"}
    return {
        "df": df,
        "schema": Schema.from_dict(spec),
        "quasi": names,
        "hierarchies": hs,
        "population": population,
        "count": count,
        "models": _models(draw, population, count, monotone),
        "suppression": draw(
            st.sampled_from([0.0, 0.0, 0.1, 0.25, 0.5] if monotone else [0.0, 0.0, 0.1])
        ),
    }


# ---------------------------------------------------------------------------- reference
def _generalize(frame: pd.DataFrame, p: dict, levels: tuple) -> pd.DataFrame:
    out = frame.copy()
    for q, lv in zip(p["quasi"], levels, strict=True):
        out[q] = [str(x) for x in p["hierarchies"][q].generalize(frame[q], lv)]
    return out


def brute_force(p: dict, with_metrics: bool = True) -> list[dict]:
    """Every feasible node, with its suppression (and metric values)."""
    df, quasi, hs = p["df"], p["quasi"], p["hierarchies"]
    n = len(df)
    limit = math.floor(p["suppression"] * n + 1e-9)
    out = []
    for levels in itertools.product(*(range(hs[q].n_levels) for q in quasi)):
        gen = _generalize(df, p, levels)
        population = _generalize(p["population"], p, levels)
        models = [
            m.with_population(population, p["count"])
            if isinstance(m, PopulationModel) and m.needs_population
            else m
            for m in p["models"]
        ]
        # Suppressed records are removed: the models comparing with the table's distribution
        # compare with the kept records', so suppress until every kept class passes.
        mask = np.zeros(n, dtype=bool)
        while not mask.all():
            kept_rows = np.flatnonzero(~mask)
            groups = Groups.from_frame(gen.iloc[kept_rows], quasi, "s")
            ok = np.ones(groups.n_groups, dtype=bool)
            for m in models:
                ok &= m.group_ok(groups)
            if ok.all():
                break
            mask[kept_rows[~ok[groups.row_group]]] = True
        s = int(mask.sum())
        if s > limit:
            continue
        node = {"levels": dict(zip(quasi, levels, strict=True)), "suppressed": s, "mask": mask}
        node["total"] = sum(levels)
        sizes = gen[~mask].groupby(quasi).size().to_numpy()
        node["discernibility"] = int((sizes**2).sum()) + s * n
        out.append(node)
        if with_metrics:
            kept = gen[~mask]
            star = gen.copy()
            star.loc[mask, quasi] = "*"
            node["lm"] = loss_metric(kept, hs, quasi, suppressed=s).total
            node["precision"] = precision(kept, hs, quasi, suppressed=s)
            assert node["discernibility"] == discernibility(kept, quasi, suppressed=s)
            node["aecs"] = aecs(star, quasi, k=1)
    return out


def optimum(nodes: list[dict], metric: str) -> dict:
    def cost(x: dict) -> float:
        return 1.0 - x[metric] if metric == "precision" else x[metric]

    best = min(cost(x) for x in nodes)
    tol = 0.0 if metric == "discernibility" else RTOL * max(abs(best), 1e-300)
    ties = [x for x in nodes if cost(x) <= best + tol]
    return min(ties, key=lambda x: (x["suppressed"], x["total"], list(x["levels"].values())))


# ---------------------------------------------------------------------------- properties
@SETTINGS
@given(st.one_of(problems(), problems(monotone=False)))
def test_optimum_equals_brute_force(p: dict) -> None:
    nodes = brute_force(p)
    table = Table.from_frame(p["df"], p["schema"])
    for metric in METRICS:
        if not nodes:
            with pytest.raises(InfeasibleError):
                search(table, p["models"], p["suppression"], metric)
            continue
        result = search(table, p["models"], p["suppression"], metric)
        want = optimum(nodes, metric)
        assert result.levels == want["levels"], metric
        assert result.suppressed == want["suppressed"]
        assert result.metric_value == pytest.approx(want[metric], rel=1e-9, abs=1e-12), metric
        assert np.array_equal(result.suppressed_mask, want["mask"])


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(problems(monotone=False))
def test_non_monotone_models_are_not_pruned_as_monotone(p: dict) -> None:
    nodes = brute_force(p, with_metrics=False)
    table = Table.from_frame(p["df"], p["schema"])
    if not nodes:
        with pytest.raises(InfeasibleError):
            search(table, p["models"], p["suppression"], "discernibility")
        return
    result = search(table, p["models"], p["suppression"], "discernibility")
    want = optimum(nodes, "discernibility")
    assert result.levels == want["levels"]
    assert result.metric_value == want["discernibility"]


@SETTINGS
@given(st.one_of(problems(), problems(monotone=False)))
def test_all_minimal_nodes_equal_brute_force(p: dict) -> None:
    nodes = brute_force(p, with_metrics=False)
    table = Table.from_frame(p["df"], p["schema"])
    if not nodes:
        with pytest.raises(InfeasibleError):
            search(table, p["models"], p["suppression"], all_minimal=True)
        return
    feasible = [tuple(x["levels"].values()) for x in nodes]
    minimal = [
        x
        for x in feasible
        if not any(y != x and all(a <= b for a, b in zip(y, x, strict=True)) for y in feasible)
    ]
    result = search(table, p["models"], p["suppression"], all_minimal=True)
    assert sorted(tuple(d.values()) for d in result.minimal_nodes) == sorted(minimal)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(p=problems())
def test_written_release_rechecks_true(p: dict, tmp_path_factory: pytest.TempPathFactory) -> None:
    try:
        release = full_domain(
            p["df"], p["schema"], models=p["models"], suppression=p["suppression"]
        )
    except InfeasibleError:
        assert not brute_force(p, with_metrics=False)
        return
    out = tmp_path_factory.mktemp("release") / "out"
    release.save(out)
    loaded = Release.load(out)
    # Only the thresholds are public: no population, no count taken on it.
    public = loaded.public_part().metadata
    assert "populations" not in public
    assert all("population" not in next(iter(m.values())) for m in public["models"])
    # With suppressed records removed, beta-likeness and delta-disclosure are searched against
    # the kept records' distribution: the published table's, which the re-check uses.
    assert all(v.holds for v in check_release(loaded))


# ---------------------------------------------------------------------------- pruning bounds
DISTRIBUTION_MODELS = st.one_of(
    st.builds(
        BetaLikeness, st.sampled_from([0.25, 0.5, 1.0, 2.0]), st.sampled_from(["basic", "enhanced"])
    ),
    st.builds(DeltaDisclosure, st.sampled_from([0.3, math.log(1.5), math.log(2), 1.5])),
    st.builds(DeltaPresence, st.sampled_from([0.0, 0.2, 0.5]), st.sampled_from([0.5, 0.8, 1.0])),
)


def _class_groups(parts: list[list[int]], reference: np.ndarray) -> Groups:
    """One group per part; part ``i`` holds ``parts[i][v]`` records of value ``v``."""
    cls, sa, counts = [], [], []
    for i, part in enumerate(parts):
        for v, c in enumerate(part):
            if c:
                cls.append(i), sa.append(v), counts.append(c)
    return Groups.from_codes(
        ("class",),
        [np.array(cls)],
        [len(parts)],
        sensitive="s",
        sa_codes=np.array(sa),
        values=list(range(len(reference))),
        weights=np.array(counts),
        reference=reference,
    )


@settings(max_examples=300, deadline=None)
@given(
    DISTRIBUTION_MODELS,
    st.lists(
        st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any), min_size=1, max_size=5
    ),
    st.lists(st.integers(0, 6), min_size=3, max_size=3),
    st.lists(st.integers(0, 5), min_size=5, max_size=5),
    st.integers(0, 10),
)
def test_deficits_bound_the_suppression_of_every_refinement(
    model, parts: list, others: list, spare: list, empty: int
) -> None:
    """A class's deficit never exceeds the records its parts that fail the model hold.

    The class is the union of random parts; the reference adds other records of the table, and
    the population (δ-presence) gives each part its records plus a few spare people and adds
    cells without any record.
    """
    merged = [sum(col) for col in zip(*parts, strict=True)]
    reference = np.array(merged) + np.array(others)
    people = np.array([sum(p) + x for p, x in zip(parts, spare, strict=False)])
    whole = _class_groups([merged], reference)
    fine = _class_groups(parts, reference)
    if isinstance(model, DeltaPresence):
        need = model.deficits(whole, np.array([people.sum() + empty]))
        failing = ~model.class_ok(fine.sizes, people)
    else:
        need = model.deficits(whole, None)
        failing = ~model.group_ok(fine)
    assert math.ceil(need[0] - 1e-9) <= int(fine.sizes[failing].sum())


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.builds(
            BetaLikeness, st.sampled_from([0.25, 0.5, 1.0]), st.sampled_from(["basic", "enhanced"])
        ),
        st.builds(DeltaDisclosure, st.sampled_from([0.2, math.log(1.5), 1.0])),
    ),
    st.lists(st.integers(1, 12), min_size=1, max_size=3),
)
def test_implied_size_rejects_only_failing_classes(model, reference: list) -> None:
    """Every class smaller than the implied size fails the model, whatever its values."""
    ref = np.array(reference)
    size = model.class_bounds(ref, numeric=False).min_size
    for n in range(1, size):
        for counts in itertools.product(range(n + 1), repeat=len(ref)):
            if sum(counts) == n:
                assert not model.group_ok(_class_groups([list(counts)], ref))[0]


# ---------------------------------------------------------------------------- worked example
def _presence_case() -> tuple[pd.DataFrame, Schema, pd.DataFrame]:
    """Two released people aged 20 and 21 among 13 residents aged 20-23.

    Ratios: level 0 (exact age) 20: 1/1, 21: 1/2; level 1 ([20, 21]) 2/3; level 2 (*) 2/13.
    """
    h = Hierarchy.from_nested({"*": {"20-21": [20, 21], "22-23": [22, 23]}})
    df = pd.DataFrame({"age": [20, 21], "sex": ["F", "F"]})
    sexes = Hierarchy.from_nested({"*": ["F", "M"]})
    schema = Schema.from_dict(
        {"age": {"role": "quasi", "hierarchy": h}, "sex": {"role": "quasi", "hierarchy": sexes}}
    )
    population = pd.DataFrame(
        {"age": [20, 21, 22, 23], "sex": ["F", "F", "F", "F"], "people": [1, 2, 5, 5]}
    )
    return df, schema, population


def test_delta_presence_is_searched_without_monotone_pruning() -> None:
    df, schema, population = _presence_case()
    model = DeltaPresence(0.5, 1.0, population=population, count="people")
    # The top node fails (2/13 < 0.5) while nodes below it pass: feasibility is not monotone,
    # so the top's failure must not rule out the nodes below.
    release = full_domain(df, schema, models=[model])
    assert release.metadata["levels"] == {"age": 0, "sex": 0}
    assert release.metadata["suppressed"] == 0
    verdict = check_release(release)[0]
    assert verdict.holds and verdict.value == 1.0
    record = release.metadata["populations"][0]
    assert record == {
        "quasi": ["age", "sex"],
        "classes": [["20", "F"], ["21", "F"]],
        "people": [1, 2],
    }
    assert "populations" not in release.public_metadata
    # Every node below the top is feasible; the top is not, and is the only infeasible node.
    result = search(Table.from_frame(df, schema), [model], all_minimal=True)
    assert result.minimal_nodes == [{"age": 0, "sex": 0}]
    # With delta_min = 0 the model is monotone and the top (the least precise) is feasible too.
    top = full_domain(df, schema, models=[DeltaPresence(0.0, 0.2, population=population,
                                                        count="people")])  # fmt: skip
    assert top.metadata["levels"] == {"age": 2, "sex": 0}


def test_linkable_columns_count_for_every_model_but_those_against_a_population(
    tmp_path: Path,
) -> None:
    df, schema, population = _presence_case()
    df["visit"] = ["a", "b"]  # published unchanged; the lint would call it linkable
    schema = Schema.from_dict(
        {**schema.to_dict(), "visit": {"role": "insensitive", "kind": "categorical"}}
    )
    models = [DeltaPresence(0.5, 1.0, population=population, count="people"), KAnonymity(1)]
    release = full_domain(df, schema, models=models)
    release.save(tmp_path / "out")
    # The population has no 'visit': its people are counted by the declared quasi-identifiers,
    # while k-anonymity counts 'visit' as a quasi-identifier.
    verification = verify_written(tmp_path / "out", df, linkable=["visit"])
    assert verification.counted_quasi == ["visit"] and not verification.problems
    presence, k = verification.verdicts
    assert presence.holds and presence.value == 1.0
    assert k.holds and k.value == 1 and k.groups == 2


def test_delta_presence_infeasible_names_the_model() -> None:
    df, schema, population = _presence_case()
    with pytest.raises(InfeasibleError, match="delta-presence .* fails even when all 2 records"):
        full_domain(df, schema, models=[DeltaPresence(0.9, 1.0, population=population,
                                                      count="people")])  # fmt: skip


# ---------------------------------------------------------------------------- errors
def test_population_errors() -> None:
    df, schema, population = _presence_case()
    with pytest.raises(InputError, match="population: delta-presence needs the population"):
        full_domain(df, schema, models=[{"delta_presence": {"delta_min": 0, "delta_max": 1}}])
    outside = population.assign(age=[20, 21, 22, 99])
    with pytest.raises(InputError, match=r"population: column 'age': 1 value\(s\) not in its"):
        full_domain(df, schema, models=[KMap(2, population=outside, count="people")])
    small = population.assign(people=[1, 0, 5, 5])
    with pytest.raises(InputError, match="population must contain every record"):
        full_domain(df, schema, models=[KMap(2, population=small, count="people")])
    with pytest.raises(InputError, match=r"population: quasi-identifier column\(s\) 'sex'"):
        full_domain(df, schema, models=[KMap(2, population=population[["age"]])])
    with pytest.raises(InputError, match="suppressed_rows: star is not available with k-map"):
        full_domain(
            df,
            schema,
            models=[KMap(2, population=population, count="people")],
            suppression=0.5,
            suppressed_rows="star",
        )
    with pytest.raises(InputError, match="supported by full_domain only"):
        mondrian(df, schema, models=[KMap(2, population=population, count="people")])


def test_builder_hierarchies_cover_population_values_outside_the_table() -> None:
    # The population holds people aged 18 and 40-41, whom the table lacks: the interval
    # builder is resolved on both, so they are counted (and not refused as unknown values).
    df = pd.DataFrame({"age": [21, 22, 23, 24, 25, 26], "sex": ["F", "F", "M", "M", "F", "M"]})
    population = pd.DataFrame(
        {
            "age": [18, 21, 22, 23, 24, 25, 26, 40, 41],
            "sex": ["F", "F", "F", "M", "M", "F", "M", "F", "M"],
            "n": [3, 2, 2, 2, 2, 2, 2, 5, 5],
        }
    )
    schema = {
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "intervals",
                                                                  "widths": [5, 10]}},
        "sex": {"role": "quasi", "kind": "categorical", "hierarchy": {"builder": "masking"}},
    }  # fmt: skip
    release = full_domain(df, schema, models=[KMap(4, population=population, count="n")])
    assert release.metadata["levels"] == {"age": 2, "sex": 0}
    assert release.metadata["populations"][0]["people"] == [6, 6]
    assert all(v.holds for v in check_release(release))
    # At the top level the 18-year-old and the over-40s count too: 3 + 12 + 10 = 25 people.
    top = full_domain(df, schema, models=[KMap(25, population=population, count="n")])
    assert top.metadata["populations"][0]["people"] == [25]
