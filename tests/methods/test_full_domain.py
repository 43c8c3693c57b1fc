"""Optimal full-domain generalization: worked examples, Adult, pycanon, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import pycanon_anonymity

from microanon.core import (
    Hierarchy,
    InfeasibleError,
    InputError,
    Release,
    Schema,
    SchemaError,
    Table,
)
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.measures import aecs, discernibility, loss_metric, precision
from microanon.methods.generalize.full_domain import SearchResult, full_domain, search
from microanon.models import (
    KAnonymity,
    LDiversity,
    TCloseness,
    check_release,
    k_anonymity,
    l_diversity,
    t_closeness,
)

ARX_K_QI = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "occupation",
]  # fmt: skip
ARX_L_QI = [*ARX_K_QI[:-1], "salary_class"]


def _adult_schema(quasi: list[str], sensitive: str) -> Schema:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    spec = {c: {"role": "quasi", "kind": "categorical", "hierarchy": hs[c]} for c in quasi}
    spec[sensitive] = {"role": "sensitive", "kind": "categorical"}
    return Schema.from_dict(spec)


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


# ---------------------------------------------------------------------------- worked example
@pytest.fixture()
def small() -> tuple[pd.DataFrame, Schema]:
    """Five people; sex {M, F} -> *, age -> decade -> *."""
    df = pd.DataFrame(
        {
            "sex": ["M", "M", "F", "F", "F"],
            "age": [21, 22, 21, 35, 36],
            "disease": ["flu", "cold", "flu", "cancer", "flu"],
        }
    )
    schema = Schema.from_dict(
        {
            "sex": {"role": "quasi", "hierarchy": Hierarchy.from_nested({"*": ["M", "F"]})},
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10]},
            },
            "disease": {"role": "sensitive"},
        }
    )
    return df, schema


NINE = pd.DataFrame(
    {
        "sex": ["M", "M", "M", "M", "F", "F", "F", "F", "M"],
        "age": [21, 22, 21, 22, 35, 36, 35, 21, 36],
        "disease": ["flu", "cold", "flu", "cancer", "flu", "cold", "cancer", "flu", "cold"],
    }
)  # two outliers, (F, 21) and (M, 36): starred together they form a class of 2


def test_worked_example_without_suppression(small: tuple[pd.DataFrame, Schema]) -> None:
    # k = 2: (sex, age) = (1, 1) and (0, 2) are the minimal 2-anonymous nodes; LM of (1, 1) is
    # (5·1 + 5·1/3) / 10 = 2/3 (the decade covers 2 of the 4 ages), of (0, 2) it is 5/10.
    df, schema = small
    release = full_domain(df, schema, models={"k_anonymity": {"k": 2}}, all_minimal=True)
    meta = release.metadata
    assert meta["levels"] == {"sex": 0, "age": 2}
    assert meta["suppressed"] == 0
    assert meta["metric"] == {"name": "lm", "value": pytest.approx(0.5)}
    assert meta["lattice_size"] == 6
    assert meta["minimal_nodes"] == [{"sex": 0, "age": 2}, {"sex": 1, "age": 1}]
    assert release.tables["data"]["age"].tolist() == ["*"] * 5
    assert release.tables["data"]["sex"].tolist() == ["M", "M", "F", "F", "F"]


def test_worked_example_with_suppression(small: tuple[pd.DataFrame, Schema]) -> None:
    # 20 % allows one record: at (0, 1) only F/[20, 30) is alone; LM = (4/3 + 2) / 10 = 1/3.
    df, schema = small
    release = full_domain(df, schema, models={"k_anonymity": {"k": 2}}, suppression=0.2)
    meta = release.metadata
    assert meta["levels"] == {"sex": 0, "age": 1}
    assert meta["suppressed"] == 1
    assert meta["metric"]["value"] == pytest.approx(1 / 3)
    assert meta["rows_out"] == 4
    data = release.tables["data"]
    assert data["age"].tolist() == ["[20, 30)", "[20, 30)", "[30, 40)", "[30, 40)"]
    assert data["disease"].tolist() == ["flu", "cold", "cancer", "flu"]


def test_worked_example_star_rows(small: tuple[pd.DataFrame, Schema]) -> None:
    """The one suppressed record would be a '*' class of size 1 < k: that node is infeasible in
    star mode, and the optimum is the best node that suppresses none."""
    df, schema = small
    models = {"k_anonymity": {"k": 2}}
    release = full_domain(df, schema, models=models, suppression=0.2, suppressed_rows="star")
    unsuppressed = full_domain(df, schema, models=models, suppression=0.0)
    assert release.metadata["levels"] == unsuppressed.metadata["levels"]
    assert release.metadata["suppressed"] == 0 and len(release.data) == len(df)
    assert release.metadata["search"] == {"kind": "exact", "optimal": True, "summary": "optimal"}
    assert all(v.holds for v in check_release(release))
    nine = NINE
    release = full_domain(
        nine, schema, models={"k_anonymity": {"k": 2}}, suppression=0.25, suppressed_rows="star"
    )
    data = release.tables["data"]
    assert len(data) == 9 and release.metadata["rows_out"] == 9
    starred = (data[["sex", "age"]] == "*").all(axis=1)
    assert starred.tolist() == [False] * 7 + [True, True]
    assert release.metadata["suppressed"] == 2
    assert data["disease"].tolist() == nine["disease"].tolist()
    assert all(v.holds for v in check_release(release))


def test_ties_prefer_fewer_suppressed_then_lower_then_lexicographic(
    small: tuple[pd.DataFrame, Schema],
) -> None:
    # Discernibility 13 at (0, 1) with one record suppressed (4 + 4 + 1·5), at (0, 2) (4 + 9)
    # and at (1, 1) (9 + 4): nothing suppressed wins, then (0, 2) before (1, 1).
    df, schema = small
    table = Table.from_frame(df, schema)
    result = search(table, KAnonymity(2), 0.2, "discernibility")
    assert isinstance(result, SearchResult)
    assert result.levels == {"sex": 0, "age": 2}
    assert result.metric_value == 13
    assert result.suppressed == 0


def test_every_metric_matches_its_measure_on_the_example(
    small: tuple[pd.DataFrame, Schema],
) -> None:
    _, schema = small
    for metric in ("lm", "precision", "discernibility", "aecs", "entropy"):
        release = full_domain(
            NINE,
            schema,
            models={"k_anonymity": {"k": 2}},
            suppression=0.25,
            metric=metric,
            suppressed_rows="star",
        )
        _check_metric(NINE, release, metric)


# ---------------------------------------------------------------------------- measures
def _check_metric(original: pd.DataFrame, release: Release, metric: str) -> None:
    """The reported value equals the measure of the published (star) table."""
    meta = release.metadata
    quasi = meta["quasi"]
    hs = {q: Hierarchy.from_dict(meta["hierarchies"][q]) for q in quasi}
    data = release.tables["data"]
    starred = (data[quasi] == "*").all(axis=1).to_numpy() & (meta["suppressed"] > 0)
    s = int(meta["suppressed"])
    kept = data[~starred] if s else data
    value = meta["metric"]["value"]
    if metric == "lm":
        assert value == pytest.approx(loss_metric(kept, hs, quasi, suppressed=s).total, rel=1e-9)
    elif metric == "precision":
        assert value == pytest.approx(precision(kept, hs, quasi, suppressed=s), rel=1e-9)
    elif metric == "discernibility":
        assert value == discernibility(kept, quasi, suppressed=s)
    elif metric == "aecs":
        assert value == pytest.approx(aecs(data, quasi, k=1), rel=1e-12)
    else:
        n = len(original)
        total = 0.0
        for q in quasi:
            leaf = hs[q]
            fv = original[q].map(original[q].value_counts()).to_numpy(float)
            gen = pd.Series([str(x) for x in leaf.generalize(original[q], meta["levels"][q])])
            fg = gen.map(gen.value_counts()).to_numpy(float)
            total += float(-np.log2(np.where(starred, fv / n, fv / fg)).sum())
        assert value == pytest.approx(total, rel=1e-9)


@pytest.mark.parametrize("metric", ["lm", "precision", "discernibility", "aecs", "entropy"])
def test_metric_values_on_adult_equal_the_measures(adult: pd.DataFrame, metric: str) -> None:
    schema = _adult_schema(ARX_L_QI, "occupation")
    release = full_domain(
        adult,
        schema,
        models=[{"k_anonymity": {"k": 10}}, {"l_diversity": {"l": 2}}],
        suppression=0.05,
        metric=metric,
        suppressed_rows="star",
    )
    assert 0 < release.metadata["suppressed"] <= 0.05 * len(adult)
    _check_metric(adult, release, metric)


# ---------------------------------------------------------------------------- Adult
def _brute_force_lm(table: Table, k: int) -> tuple[float, tuple[int, ...]]:
    """Best LM over all nodes of the lattice that are k-anonymous without suppression.

    Written independently of the search: the frequency table of the quasi-identifiers is
    recoded for every level vector and grouped with numpy.
    """
    quasi = table.schema.quasi
    hs = [table.schema.hierarchy(q) for q in quasi]
    freq = table.frequencies(quasi)
    n = table.n_rows
    level_codes = [[h.level_codes(lv) for lv in range(h.n_levels)] for h in hs]
    loss = []
    for h in hs:
        per_level = []
        for lv in range(h.n_levels):
            nodes = h.node_of([str(x) for x in h.level_labels(lv)])
            per_level.append((h.leaf_count(nodes) - 1) / (h.n_leaves - 1))
        loss.append(per_level)
    feasible = []
    for levels in np.ndindex(*[h.n_levels for h in hs]):
        key = np.zeros(len(freq), dtype=np.int64)
        for j, lv in enumerate(levels):
            codes = level_codes[j][lv][freq.combos[:, j]]
            key = key * (hs[j].n_leaves + 1) + codes
        _, inverse = np.unique(key, return_inverse=True)
        sizes = np.bincount(inverse, weights=freq.counts)
        if sizes.min() < k:
            continue
        lm = 0.0
        for j, lv in enumerate(levels):
            codes = level_codes[j][lv][freq.combos[:, j]]
            lm += float(np.dot(freq.counts, loss[j][lv][codes])) / n
        feasible.append((lm / len(hs), sum(levels), levels))
    best = min(x[0] for x in feasible)
    ties = [x for x in feasible if x[0] <= best * (1 + 1e-10)]
    lm, _, levels = min(ties, key=lambda x: (x[1], x[2]))
    return lm, tuple(int(v) for v in levels)


def test_adult_k5_optimum_equals_brute_force_over_6480_nodes(adult: pd.DataFrame) -> None:
    schema = _adult_schema(ARX_K_QI, "salary_class")
    table = Table.from_frame(adult, schema)
    result = search(table, {"k_anonymity": {"k": 5}}, 0.0, "lm")
    assert result.lattice_size == 6480
    assert result.nodes_checked < 6480
    lm, levels = _brute_force_lm(table, 5)
    assert result.metric_value == pytest.approx(lm, rel=1e-12)
    assert tuple(result.levels.values()) == levels
    release = full_domain(adult, schema, models={"k_anonymity": {"k": 5}})
    data = release.tables["data"]
    assert k_anonymity(data, ARX_K_QI, k=5).holds
    hs = {q: schema.hierarchy(q) for q in ARX_K_QI}
    assert loss_metric(data, hs, ARX_K_QI).total == pytest.approx(lm, rel=1e-12)


def test_adult_release_agrees_with_pycanon(adult: pd.DataFrame) -> None:
    anonymity = pycanon_anonymity()
    schema = _adult_schema(ARX_L_QI, "occupation")
    models = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}, {"t_closeness": {"t": 0.3}}]
    release = full_domain(adult, schema, models=models)
    data = release.tables["data"]
    assert release.metadata["suppressed"] == 0
    assert anonymity.k_anonymity(data, ARX_L_QI) >= 5
    assert anonymity.l_diversity(data, ARX_L_QI, ["occupation"]) >= 3
    assert anonymity.t_closeness(data, ARX_L_QI, ["occupation"]) <= 0.3 + 1e-12
    # With suppression, pycanon's k and distinct l on the kept rows.
    release = full_domain(
        adult,
        schema,
        models=[{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}],
        suppression=0.05,
    )
    data = release.tables["data"]
    meta = release.metadata
    assert 0 < meta["suppressed"] <= 0.05 * len(adult)
    assert meta["rows_out"] + meta["suppressed"] == len(adult)
    assert anonymity.k_anonymity(data, ARX_L_QI) >= 5
    assert anonymity.l_diversity(data, ARX_L_QI, ["occupation"]) >= 3


def test_adult_entropy_l_with_suppression_holds(adult: pd.DataFrame) -> None:
    schema = _adult_schema(ARX_L_QI, "occupation")
    release = full_domain(
        adult, schema, models={"l_diversity": {"l": 3, "form": "entropy"}}, suppression=0.05
    )
    data = release.tables["data"]
    assert l_diversity(data, ARX_L_QI, "occupation", l=3, form="entropy").holds
    assert release.metadata["suppressed"] <= 0.05 * len(adult)


def test_adult_all_minimal_nodes_are_minimal(adult: pd.DataFrame) -> None:
    schema = _adult_schema(ARX_K_QI, "salary_class")
    table = Table.from_frame(adult, schema)
    result = search(table, KAnonymity(50), 0.0, all_minimal=True)
    minimal = result.minimal_nodes
    quasi = ARX_K_QI
    # Feasibility is monotone here: the optimum lies above a minimal node.
    assert any(all(result.levels[q] >= m[q] for q in quasi) for m in minimal)
    for node in minimal[:: max(1, len(minimal) // 5)]:
        recoded = table.recode(node).to_frame(quasi)
        assert k_anonymity(recoded, quasi, k=50).holds
        for q in quasi:
            if node[q] > 0:
                lower = dict(node, **{q: node[q] - 1})
                assert not k_anonymity(table.recode(lower).to_frame(quasi), quasi, k=50).holds


# ---------------------------------------------------------------------------- metadata, io
def test_release_metadata_and_round_trip(small: tuple[pd.DataFrame, Schema], tmp_path) -> None:
    df, schema = small
    release = full_domain(
        df,
        schema,
        models=[KAnonymity(2), LDiversity(2)],
        suppression=0.2,
        metric="entropy",
        progress=True,
    )
    meta = release.metadata
    assert meta["method"] == "full_domain"
    assert meta["parameters"] == {
        "suppression": 0.2, "metric": "entropy", "suppressed_rows": "remove",
        "all_minimal": False,
    }  # fmt: skip
    assert meta["models"] == [
        {"k_anonymity": {"k": 2}},
        {"l_diversity": {"l": 2, "form": "distinct"}},
    ]
    keys = ("levels", "suppressed", "metric", "nodes_checked", "lattice_size", "search_seconds")
    assert all(key in meta for key in keys)
    assert "minimal_nodes" not in meta
    assert list(release.tables["data"].columns) == ["sex", "age", "disease"]
    loaded = Release.load(release.save(tmp_path / "out"))
    assert loaded.metadata == meta


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"suppression": -0.1}, "suppression"),
        ({"suppression": 1.0}, "suppression"),
        ({"suppression": "5%"}, "suppression"),
        ({"suppression": True}, "suppression"),
        ({"metric": "ncp"}, "metric"),
        ({"suppressed_rows": "drop"}, "suppressed_rows"),
        ({"models": []}, "models"),
        ({"models": None}, "models"),
        ({"all_minimal": "yes"}, "all_minimal"),
    ],
)
def test_bad_parameters(small: tuple[pd.DataFrame, Schema], kwargs: dict, word: str) -> None:
    df, schema = small
    args = {"models": {"k_anonymity": {"k": 2}}} | kwargs
    with pytest.raises(InputError, match=word):
        full_domain(df, schema, **args)


def test_quasi_identifier_without_hierarchy(small: tuple[pd.DataFrame, Schema]) -> None:
    df, _ = small
    schema = Schema.from_dict({"sex": {"role": "quasi"}, "age": {"role": "quasi"}})
    with pytest.raises(SchemaError, match="hierarchy"):
        full_domain(df[["sex", "age"]], schema, models={"k_anonymity": {"k": 2}})


def test_infeasible_k_names_the_model(small: tuple[pd.DataFrame, Schema]) -> None:
    df, schema = small
    message = r"k-anonymity \(k=6\) fails even when all 5 records form one class"
    with pytest.raises(InfeasibleError, match=message):
        full_domain(df, schema, models={"k_anonymity": {"k": 6}}, suppression=0.5)


def test_infeasible_l_and_t(small: tuple[pd.DataFrame, Schema]) -> None:
    df, schema = small
    with pytest.raises(InfeasibleError, match="distinct l-diversity"):
        full_domain(df, schema, models=[KAnonymity(2), LDiversity(4)], suppression=0.4)
    # The whole table's diseases (3, 1, 1) have exp(entropy) 2.59 < 3 and no class of any node
    # keeps three equally frequent diseases: the non-monotone search rules out every node.
    with pytest.raises(InfeasibleError, match=r"entropy l-diversity .*achieved l = 2\.58\d*\)"):
        full_domain(df, schema, models=LDiversity(3, "entropy"), suppression=0.4)
    table = Table.from_frame(df, schema)
    assert search(table, TCloseness(0.0), 0.0).levels == {"sex": 1, "age": 2}


def test_adult_t_closeness_with_removed_records_holds_on_the_published_table(
    adult: pd.DataFrame,
) -> None:
    # Removing 27 % of Adult moves the occupation distribution: checked against the original's,
    # this optimum's published table is 0.246 from its own distribution. The search suppresses
    # further until the kept classes pass against the kept records' distribution.
    schema = _adult_schema(ARX_L_QI, "occupation")
    release = full_domain(adult, schema, models={"t_closeness": {"t": 0.2}}, suppression=0.3)
    (verdict,) = check_release(release)
    assert verdict.holds
    data = release.tables["data"]
    assert t_closeness(data, ARX_L_QI, "occupation", t=0.2).holds
    assert release.metadata["suppressed"] <= 0.3 * len(adult)


@pytest.mark.parametrize(("t", "levels"), [(0.5, 1), (0.65, 0)])
def test_t_closeness_with_unknown_sensitive_values(t, levels):
    """A missing sensitive value counts toward no class's distribution: class x holds u
    (twice) and one unknown value, class y v, w, v; the known table is u .4, v .4, w .2, so x is
    0.6 from it and y 0.4 (equal distance)."""
    df = pd.DataFrame({"a": list("xyxyxy") * 5, "s": ["u", "v", None, "w", "u", "v"] * 5})
    spec = {
        "a": {"role": "quasi", "hierarchy": {"builder": "groups", "groups": {"G": ["x", "y"]}}},
        "s": {"role": "sensitive"},
    }
    release = full_domain(df, spec, models=[{"t_closeness": {"t": t}}], suppression=0.1)
    assert release.metadata["levels"] == {"a": levels}
    assert all(v.holds for v in check_release(release))
