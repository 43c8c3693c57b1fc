"""Microaggregation: constructed vectors, the DataFrame method, mixed data and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core import InfeasibleError, InputError, Release
from microanon.measures.perturbative import information_loss, sse
from microanon.methods.sdc.microagg_univariate import _path_blocks, _path_graph, _window_sse
from microanon.methods.sdc.microaggregation import (
    METHODS,
    group_means,
    individual_ranking,
    mdav_groups,
    microaggregation,
    optimal_univariate_groups,
    projection_groups,
)
from microanon.models import check_release

NINE = np.array([(0, 0), (1, 0), (0, 1), (10, 10), (11, 10), (10, 11), (5, 5), (6, 5), (5, 6)])


def _groups_in_order(labels: np.ndarray) -> list[set[int]]:
    return [set(np.flatnonzero(labels == g).tolist()) for g in range(labels.max() + 1)]


def _ssa(X: np.ndarray, labels: np.ndarray) -> float:
    means = group_means(X, labels)
    return float(((means - X.mean(axis=0)) ** 2).sum())


# ------------------------------------------------------------------ constructed vectors
def test_mdav_k3_vector():
    labels = mdav_groups(NINE, 3)
    assert _groups_in_order(labels) == [{0, 1, 2}, {3, 4, 5}, {6, 7, 8}]
    np.testing.assert_allclose(NINE.mean(axis=0), [16 / 3, 16 / 3])
    centroids = group_means(NINE, labels)[[0, 3, 6]]
    np.testing.assert_allclose(centroids, [[1 / 3, 1 / 3], [31 / 3, 31 / 3], [16 / 3, 16 / 3]])
    loss = information_loss(NINE, group_means(NINE, labels), standardize=False)
    assert loss.sse == pytest.approx(4) and loss.sst == pytest.approx(304)
    assert _ssa(NINE, labels) == pytest.approx(300)


def test_mdav_k2_vector_exercises_the_2k_to_3k_branch():
    X = NINE[:8]
    labels = mdav_groups(X, 2)
    # creation order {0,1}, {3,4}, {5,7}, {2,6}; records 4 and 5 tie as farthest from record 0
    assert _groups_in_order(labels) == [{0, 1}, {3, 4}, {5, 7}, {2, 6}]
    assert sse(X, groups=labels) == pytest.approx(47.5)
    loss = information_loss(X, group_means(X, labels), standardize=False)
    assert loss.sst == pytest.approx(303.375)


@pytest.mark.parametrize(
    ("values", "groups", "expected_sse"),
    [
        ([1, 2, 4, 5, 7, 8, 40, 41, 42, 43], [[1, 2, 4], [5, 7, 8], [40, 41, 42, 43]], 43 / 3),
        ([1, 2, 3, 10, 11, 12, 30, 31], [[1, 2, 3, 10, 11], [12, 30, 31]], 317.8666666666667),
    ],
)
@pytest.mark.parametrize("path", ["graph", "blocks"])
def test_hansen_mukherjee_vectors(values, groups, expected_sse, path, monkeypatch):
    if path == "blocks":
        monkeypatch.setattr("microanon.methods.sdc.microagg_univariate._GRAPH_MAX_K", 0)
    x = np.array(values, dtype=float)
    rng = np.random.default_rng(3)
    perm = rng.permutation(len(x))  # shuffled input: labels follow the records
    labels = optimal_univariate_groups(x[perm], 3)
    found = sorted(sorted(x[perm][labels == g].tolist()) for g in range(labels.max() + 1))
    assert found == [sorted(map(float, g)) for g in groups]
    assert sse(x[perm], groups=labels) == pytest.approx(expected_sse)


def test_window_sse_matches_direct_computation():
    xs = np.sort(np.random.default_rng(0).normal(size=40) * 1e6 + 1e9)
    for k in (2, 3, 5):
        costs = _window_sse(xs, k)
        for length, c in zip(range(k, 2 * k), costs, strict=True):
            direct = [
                ((w - w.mean()) ** 2).sum()
                for w in np.lib.stride_tricks.sliding_window_view(xs, length)
            ]
            np.testing.assert_allclose(c, direct, rtol=1e-9, atol=1e-3)


def test_graph_and_blocks_agree():
    xs = np.sort(np.random.default_rng(1).exponential(size=500))
    for k in (2, 3, 4):
        g, b = _path_graph(_window_sse(xs, k), len(xs), k), _path_blocks(xs, k)

        def cuts(pred):
            out = [len(xs)]
            while out[-1] > 0:
                out.append(int(pred[out[-1]]))
            return np.diff(out[::-1])

        def cost(sizes):
            ends = np.cumsum(sizes)
            return sum(
                ((xs[e - s : e] - xs[e - s : e].mean()) ** 2).sum()
                for s, e in zip(sizes, ends, strict=True)
            )

        assert cost(cuts(g)) == pytest.approx(cost(cuts(b)), rel=1e-12)


# ---------------------------------------------------------------------- array-level algorithms
def test_k1_is_identity_for_every_method():
    X = np.random.default_rng(0).normal(size=(20, 3))
    np.testing.assert_array_equal(group_means(X, mdav_groups(X, 1)), X)
    np.testing.assert_array_equal(individual_ranking(X, 1), X)
    np.testing.assert_array_equal(group_means(X, projection_groups(X, 1)), X)
    np.testing.assert_array_equal(
        group_means(X[:, 0], optimal_univariate_groups(X[:, 0], 1)), X[:, 0]
    )


def test_k_equal_n_gives_one_group():
    X = np.random.default_rng(0).normal(size=(7, 2))
    for labels in (
        mdav_groups(X, 7),
        projection_groups(X, 7, "pca"),
        optimal_univariate_groups(X[:, 0], 7),
    ):
        assert set(labels.tolist()) == {0}


def test_individual_ranking_last_group_absorbs_the_remainder():
    x = np.array([5.0, 1.0, 2.0, 9.0, 3.0, 4.0, 8.0])  # sorted: 1 2 3 | 4 5 8 9
    np.testing.assert_allclose(individual_ranking(x, 3), [6.5, 2, 2, 6.5, 2, 6.5, 6.5])
    # each column on its own: -x sorts as -9 -8 -5 | -4 -3 -2 -1
    both = individual_ranking(np.column_stack([x, -x]), 3)
    np.testing.assert_allclose(both[:, 0], [6.5, 2, 2, 6.5, 2, 6.5, 6.5])
    third = -22 / 3
    np.testing.assert_allclose(both[:, 1], [third, -2.5, -2.5, third, -2.5, -2.5, third])


def test_projection_orders():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5], [10.0, 9.0], [11.0, 12.0], [12.0, 11.0]])
    z = projection_groups(X, 3, "zscore_sum")
    p = projection_groups(X, 3, "pca")
    assert _groups_in_order(z) == [{0, 1, 2}, {3, 4, 5}]
    np.testing.assert_array_equal(z, p)
    # sign of the principal axis is fixed: negating the data reverses the group numbers
    assert _groups_in_order(projection_groups(-X, 3, "pca")) == [{3, 4, 5}, {0, 1, 2}]


def test_group_means_one_and_two_dimensional():
    assert group_means([1.0, 2.0, 6.0, 10.0], [0, 0, 1, 1]).tolist() == [1.5, 1.5, 8.0, 8.0]
    out = group_means(np.array([[1.0, 0.0], [3.0, 2.0]]), np.array([4, 4]))
    np.testing.assert_allclose(out, [[2.0, 1.0], [2.0, 1.0]])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: mdav_groups(NINE, 0), InputError),
        (lambda: mdav_groups(NINE, 2.0), InputError),
        (lambda: mdav_groups(NINE, True), InputError),
        (lambda: mdav_groups(NINE, 10), InfeasibleError),
        (lambda: mdav_groups([[0.0, np.nan]], 1), InputError),
        (lambda: mdav_groups(np.zeros((0, 2)), 1), InputError),
        (lambda: mdav_groups(np.zeros((2, 2, 2)), 1), InputError),
        (lambda: mdav_groups([["a", "b"]], 1), InputError),
        (lambda: optimal_univariate_groups(NINE, 2), InputError),
        (lambda: optimal_univariate_groups([1.0, np.inf], 1), InputError),
        (lambda: projection_groups(NINE, 3, "median"), InputError),
        (lambda: individual_ranking(NINE, 20), InfeasibleError),
        (lambda: group_means(NINE, [0, 1]), InputError),
        (lambda: group_means(NINE, -np.ones(9, dtype=int)), InputError),
        (lambda: group_means(NINE, np.zeros(9)), InputError),
    ],
)
def test_array_level_bad_input(call, error):
    with pytest.raises(error):
        call()


def test_infeasible_message_names_k():
    with pytest.raises(InfeasibleError, match=r"k = 10 exceeds the number of records \(9\)"):
        mdav_groups(NINE, 10)


# ---------------------------------------------------------------------- the DataFrame method
@pytest.fixture
def people() -> tuple[pd.DataFrame, dict]:
    df = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(9)],
            "income": [1000, 1100, 1050, 9000, 9100, 9050, 5000, 5100, 5050],
            "age": [20, 21, 22, 60, 61, 62, 40, 41, 42],
            "sex": ["F", "M", "M", "F", "F", "M", "M", "F", "M"],
            "job": ["a", "b", "c", "c", "c", "a", "b", "b", "c"],
            "disease": ["x", "y", "x", "y", "x", "y", "x", "y", "x"],
        },
        index=pd.Index([10, 11, 12, 13, 14, 15, 16, 17, 18], name="id"),
    )
    schema = {
        "name": "identifier",
        "income": {"role": "quasi", "kind": "numeric"},
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": "quasi",
        "job": {"role": "quasi", "kind": "ordinal", "order": ["c", "b", "a"]},
        "disease": "sensitive",
    }
    return df, schema


def test_release_contents(people):
    df, schema = people
    rel = microaggregation(df, schema, k=3)
    assert isinstance(rel, Release) and rel.kind == "masked"
    data = rel.data
    assert list(data.columns) == ["income", "age", "sex", "job", "disease"]  # identifier dropped
    assert data.index.equals(pd.RangeIndex(9))  # a release has a fresh index, rows in order
    assert data["income"].tolist() == [1050.0] * 3 + [9050.0] * 3 + [5050.0] * 3
    assert data["age"].tolist() == [21.0] * 3 + [61.0] * 3 + [41.0] * 3
    for c in ("sex", "job", "disease"):  # untouched
        assert data[c].tolist() == df[c].tolist()
    meta = rel.metadata
    assert meta["method"] == "microaggregation"
    assert meta["parameters"] == {
        "k": 3,
        "method": "mdav",
        "projection": "zscore_sum",
        "standardize": True,
        "columns": ["income", "age"],
        "categorical": [],
        "strata": [],
        "gamma": 0.2,
    }
    assert meta["groups"] == 3 and meta["min_group_size"] == 3
    assert meta["rows_in"] == meta["rows_out"] == 9
    assert meta["models"] == []
    assert meta["information_loss"] == pytest.approx(meta["sse"] / meta["sst"])
    assert "seed" not in str(meta)


def test_information_loss_metadata_matches_the_measure(people):
    df, schema = people
    for standardize in (True, False):
        rel = microaggregation(df, schema, k=2, standardize=standardize)
        loss = information_loss(df, rel.data, ["income", "age"], standardize=standardize)
        assert rel.metadata["information_loss"] == pytest.approx(loss.ratio)
        assert rel.metadata["sse"] == pytest.approx(loss.sse)


def test_standardize_changes_mdav_groups():
    # raw: x dominates (spread 100), standardized: both weigh the same
    df = pd.DataFrame({"x": [0, 100, 0, 100, 50, 50], "y": [0, 0, 10, 10, 1, 9]})
    schema = {"x": {"role": "quasi", "kind": "numeric"}, "y": {"role": "quasi", "kind": "numeric"}}
    a = microaggregation(df, schema, k=2, standardize=False).data
    b = microaggregation(df, schema, k=2, standardize=True).data
    assert not a.equals(b)


def test_categorical_columns_take_the_group_mode(people):
    df, schema = people
    rel = microaggregation(df, schema, k=3, categorical=["sex", "job"])
    # groups {10,11,12}, {13,14,15}, {16,17,18}
    assert rel.data["sex"].tolist() == ["M"] * 3 + ["F"] * 3 + ["M"] * 3
    # job: group 1 = a, b, c (all tied): the first in the ordinal order c < b < a wins
    assert rel.data["job"].tolist() == ["c"] * 3 + ["c"] * 3 + ["b"] * 3
    assert rel.metadata["parameters"]["categorical"] == ["sex", "job"]
    # the release's column table says so (it used to read "published unchanged")
    from microanon.apps.families.sdc.report import describe_column

    assert describe_column(rel, "sex").startswith("replaced by its group's most frequent value")


def test_k_anonymity_is_claimed_only_when_one_partition_covers_every_quasi_identifier(people):
    df, schema = people
    full = microaggregation(df, schema, k=3, categorical=["sex", "job"])
    assert full.metadata["models"] == [{"k_anonymity": {"k": 3}}]
    assert all(v.holds for v in check_release(full))
    # sex and job are quasi-identifiers left as they are: no claim
    assert microaggregation(df, schema, k=3).metadata["models"] == []
    # univariate groups differ from column to column: no claim, even with every column
    numeric_only = {c: v for c, v in schema.items() if c in ("income", "age")}
    for method, claimed in (("individual_ranking", False), ("projection", True)):
        rel = microaggregation(df[["income", "age"]], numeric_only, k=3, method=method)
        assert bool(rel.metadata["models"]) is claimed
    one = microaggregation(df, numeric_only | {"sex": "insensitive", "job": "insensitive"}, k=3,
                           method="optimal_univariate", columns=["age"])  # fmt: skip
    assert one.metadata["models"] == []  # income, a quasi-identifier, is not aggregated


def test_categorical_mode_tie_goes_to_first_sorted_value():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0], "c": ["z", "y", "y", "z"]})
    schema = {"v": {"role": "quasi", "kind": "numeric"}, "c": "quasi"}
    rel = microaggregation(df, schema, k=4, categorical="c")
    assert rel.data["c"].tolist() == ["y"] * 4


@pytest.mark.parametrize("method", METHODS)
def test_every_method_runs_and_keeps_groups_of_k(method, people):
    df, schema = people
    rel = microaggregation(df, schema, k=2, method=method, projection="pca")
    assert rel.metadata["min_group_size"] >= 2
    for c in ("income", "age"):
        counts = rel.data[c].value_counts()
        assert counts.min() >= 2
        assert rel.data[c].mean() == pytest.approx(df[c].mean())  # means preserved


def test_univariate_methods_report_groups_per_column(people):
    df, schema = people
    rel = microaggregation(df, schema, k=4, method="optimal_univariate")
    assert rel.metadata["groups"] == {"income": 2, "age": 2}
    rel = microaggregation(
        df, schema, k=3, method="individual_ranking", columns=["age"], categorical=["sex"]
    )
    assert rel.data["income"].tolist() == df["income"].tolist()
    assert rel.data["sex"].tolist() == ["M"] * 3 + ["F"] * 3 + ["M"] * 3


def test_missing_drop_policy_publishes_the_kept_rows():
    df = pd.DataFrame({"v": [1.0, np.nan, 3.0, 4.0, 5.0], "c": list("abcde")})
    schema = {"v": {"role": "quasi", "kind": "numeric", "missing": "drop"}, "c": "insensitive"}
    rel = microaggregation(df, schema, k=2)
    assert rel.data["c"].tolist() == ["a", "c", "d", "e"]
    assert rel.data["v"].tolist() == [2.0, 2.0, 4.5, 4.5]
    assert rel.metadata["rows_in"] == rel.metadata["rows_out"] == 4


def test_release_round_trip(people, tmp_path):
    df, schema = people
    rel = microaggregation(df, schema, k=3, categorical=["sex"])
    rel.save(tmp_path / "rel")
    back = Release.load(tmp_path / "rel")
    assert back.metadata["parameters"] == rel.metadata["parameters"]
    written = rel.in_written_order().data  # (the rows sorted by their values)
    np.testing.assert_allclose(back.data["income"].to_numpy(), written["income"].to_numpy())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 10}, InfeasibleError, "k = 10"),
        ({"k": 2, "standardize": "yes"}, InputError, "standardize"),
        ({"k": 2, "columns": ["salary"]}, InputError, "'salary'"),
        ({"k": 2, "columns": ["sex"]}, InputError, "'sex' is categorical"),
        ({"k": 2, "columns": ["name"]}, InputError, "'name'"),
        ({"k": 2, "columns": ["age", "age"]}, InputError, "twice"),
        ({"k": 2, "categorical": ["age"]}, InputError, "'age' is numeric"),
        ({"k": 2, "columns": ["age"], "categorical": ["sex", "sex"]}, InputError, "twice"),
        (
            {"k": 2, "method": "optimal_univariate", "categorical": ["sex"]},
            InputError,
            "one partition",
        ),
    ],
)
def test_bad_parameters(people, kwargs, error, match):
    df, schema = people
    with pytest.raises(error, match=match):
        microaggregation(df, schema, **kwargs)


def test_bad_data_and_schemas(people):
    df, schema = people
    bad = df.copy()
    bad.loc[12, "income"] = np.nan
    with pytest.raises(InputError, match="income"):
        microaggregation(bad, schema, k=2)
    with pytest.raises(InputError, match="no numeric quasi-identifier"):
        microaggregation(
            df, {"sex": "quasi", "income": {"role": "sensitive", "kind": "numeric"}}, k=2
        )
    with pytest.raises(InputError, match="no numeric quasi-identifier"):
        microaggregation(df, {"income": {"role": "sensitive", "kind": "numeric"}}, k=2)
    # a sensitive numeric column can be named explicitly
    rel = microaggregation(
        df,
        {"sex": "quasi", "income": {"role": "sensitive", "kind": "numeric"}},
        k=3,
        columns=["income"],
    )
    assert rel.data["income"].nunique() == 3


def test_adult_numeric_columns():
    from microanon.datasets import load_adult
    from microanon.measures.linkage import risk_summary
    from microanon.measures.perturbative import utility_summary

    adult = load_adult()
    cols = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in cols}
    schema.update({"sex": "quasi", "income": "sensitive"})
    rel = microaggregation(adult, schema, k=3, categorical=["sex"])
    meta = rel.metadata
    assert meta["min_group_size"] == 3 and meta["groups"] == len(adult) // 3
    assert meta["information_loss"] < 0.01
    utility = utility_summary(adult, rel.data, cols)
    assert utility.information_loss.ratio == pytest.approx(meta["information_loss"])
    assert utility.means.max_relative < 1e-12
    assert (utility.variances.masked <= utility.variances.original + 1e-6).all()
    # every masked point is shared by >= 3 records, so linkage succeeds with probability <= 1/3
    risk = risk_summary(adult, rel.data, cols)
    assert 0 < risk.linkage.share <= 1 / 3
    assert risk.linkage.probability.max() <= 1 / 3
