from __future__ import annotations

import doctest
import importlib
import json

import numpy as np
import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.release import randomize
from microanon.methods.randomize.sampling import randomize_codes

SCHEMA = {
    "sex": "quasi",
    "region": {
        "role": "quasi",
        "hierarchy": {"builder": "nested", "tree": {"*": {"N": ["n1", "n2"], "S": ["s1", "s2"]}}},
    },
    "age": {"role": "quasi", "kind": "numeric"},
    "disease": "sensitive",
    "name": "identifier",
    "const": "insensitive",
}


def _frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "region": rng.choice(["n1", "n2", "s1"], n),  # leaf s2 never occurs
            "age": rng.choice([20, 35, 50, 65], n),
            "disease": rng.choice(["cold", "flu", "hiv"], n, p=[0.5, 0.3, 0.2]),
            "name": [f"p{i}" for i in range(n)],
            "const": "x",
        }
    )


def test_release_layout_and_metadata():
    df = _frame()
    rel = randomize(df, SCHEMA, keep={"disease": 0.7, "region": 0.8}, rng=1)
    assert rel.kind == "randomized"
    assert list(rel.data.columns) == ["sex", "region", "age", "disease", "const"]
    assert len(rel.data) == len(df)
    meta = rel.metadata
    assert meta["method"] == "randomized_response"
    assert meta["rows_in"] == meta["rows_out"] == len(df)
    assert meta["quasi"] == ["sex", "region", "age"] and meta["sensitive"] == ["disease"]
    assert list(meta["randomized"]) == ["region", "disease"]  # schema order
    # a column with a hierarchy has its leaves as domain, absent values included
    assert meta["randomized"]["region"]["domain"] == ["n1", "n2", "s1", "s2"]
    assert meta["randomized"]["disease"]["domain"] == ["cold", "flu", "hiv"]
    assert meta["randomized"]["disease"]["keep"] == 0.7
    assert np.allclose(meta["randomized"]["region"]["matrix"], uniform_retention(4, 0.8))
    # published values stay inside the domains; untouched columns keep their multiset
    assert set(rel.data["region"]) <= {"n1", "n2", "s1", "s2"}
    assert sorted(rel.data["sex"]) == sorted(df["sex"])
    assert sorted(rel.data["age"]) == sorted(df["age"])
    assert rel.data["age"].dtype == np.int64


def test_rows_are_shuffled():
    df = _frame(2000)
    rel = randomize(df, SCHEMA, keep={"disease": 1.0}, rng=3)
    # keep = 1 publishes the original values, but not in the original order
    assert sorted(rel.data["disease"]) == sorted(df["disease"])
    assert not (rel.data["sex"].to_numpy() == df["sex"].to_numpy()).all()


def test_general_matrix_and_numeric_column():
    df = _frame()
    m = np.array(
        [[0.7, 0.1, 0.1, 0.0], [0.1, 0.7, 0.1, 0.0], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.9]]
    )
    rel = randomize(df, SCHEMA, matrices={"age": m}, rng=2)
    entry = rel.metadata["randomized"]["age"]
    assert entry["domain"] == [20, 35, 50, 65] and entry["keep"] is None
    assert np.allclose(entry["matrix"], m)
    assert set(rel.data["age"]) <= {20, 35, 50, 65}
    assert rel.metadata["parameters"] == {"keep": {}, "matrices": ["age"]}


def test_single_valued_column_is_left_alone():
    df = _frame()
    rel = randomize(df, SCHEMA, keep={"const": 0.3}, rng=0)
    assert (rel.data["const"] == "x").all()
    assert rel.metadata["randomized"]["const"]["matrix"] == [[1.0]]


def test_same_generator_same_release_and_no_seed_in_release_json(tmp_path):
    df = _frame()
    seed = 918273645
    a = randomize(df, SCHEMA, keep={"disease": 0.7}, rng=seed)
    b = randomize(df, SCHEMA, keep={"disease": 0.7}, rng=np.random.default_rng(seed))
    assert a.equals(b)
    path = a.save(tmp_path / "rel")
    text = (path / "public" / "release.json").read_text("utf-8")
    text += (path / "internal" / "internal.json").read_text("utf-8")
    assert str(seed) not in text
    keys = set()

    def walk(obj):
        if isinstance(obj, dict):
            keys.update(k.lower() for k in obj)
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    walk(json.loads((path / "public" / "release.json").read_text("utf-8")))
    walk(json.loads((path / "internal" / "internal.json").read_text("utf-8")))
    assert not keys & {"seed", "rng", "random_state", "random_seed"}
    assert Release.load(path).equals(a.in_written_order())


# ---------------------------------------------------------------------- the sampling kernels
def test_uniform_kernel_keeps_with_p_and_moves_uniformly_to_other_values():
    rng = np.random.default_rng(5)
    n, d, p = 400_000, 5, 0.6
    codes = rng.integers(0, d, n).astype(np.int8)
    out = randomize_codes(codes, d, rng, keep=p)
    assert out.dtype == codes.dtype
    kept = out == codes
    assert abs(kept.mean() - p) < 4 * np.sqrt(p * (1 - p) / n)
    moved = (out[~kept].astype(int) - codes[~kept]) % d  # offsets 1..d-1, uniform
    freq = np.bincount(moved, minlength=d) / len(moved)
    assert freq[0] == 0
    q = 1 / (d - 1)
    assert np.all(np.abs(freq[1:] - q) < 4 * np.sqrt(q * (1 - q) / len(moved)))


def test_uniform_kernel_wraps_around_at_the_code_dtype_limit():
    rng = np.random.default_rng(0)
    d = 127  # int8 codes: codes + offset would overflow int8
    codes = np.full(10_000, 126, dtype=np.int8)
    out = randomize_codes(codes, d, rng, keep=0.5)
    assert out.min() >= 0 and out.max() <= 126


def test_matrix_kernel_draws_from_the_column_of_each_code():
    rng = np.random.default_rng(6)
    m = np.array([[0.5, 0.0, 0.2], [0.5, 0.1, 0.0], [0.0, 0.9, 0.8]])
    n = 300_000
    codes = rng.integers(0, 3, n).astype(np.int16)
    out = randomize_codes(codes, 3, rng, matrix=m)
    for v in range(3):
        got = np.bincount(out[codes == v], minlength=3) / np.count_nonzero(codes == v)
        se = np.sqrt(m[:, v] * (1 - m[:, v]) / np.count_nonzero(codes == v))
        assert np.all(np.abs(got - m[:, v]) <= 4 * se + 1e-12)
        assert np.all(got[m[:, v] == 0] == 0)  # impossible transitions never happen


def test_kernels_leave_d1_and_empty_columns_alone():
    rng = np.random.default_rng(0)
    assert randomize_codes(np.zeros(5, np.int8), 1, rng, keep=0.5).tolist() == [0] * 5
    assert len(randomize_codes(np.zeros(0, np.int8), 3, rng, keep=0.5)) == 0


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "name the columns"),
        ({"keep": {"disease": 1 / 3}}, "singular"),
        ({"keep": {"disease": 0.2}}, r"outside \[1/3, 1\]"),
        ({"keep": {"disease": 1.2}}, "outside"),
        ({"keep": {"disease": "high"}}, "must be a number"),
        ({"keep": {"disease": True}}, "must be a number"),
        ({"keep": {"nope": 0.8}}, "'nope'"),
        ({"keep": {"name": 0.8}}, "'name'"),  # identifiers are never published
        ({"keep": {"disease": 0.8}, "matrices": {"disease": np.eye(3)}}, "both keep and"),
        ({"matrices": {"disease": np.eye(2)}}, "shape"),
        ({"matrices": {"disease": np.array([[0.5, 0.5, 0], [0.5, 0.4, 0], [0, 0, 1]])}}, "sums"),
        ({"matrices": {"disease": np.full((3, 3), 1 / 3)}}, "singular"),
        ({"keep": [("disease", 0.8)]}, "mapping"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(InputError, match=message):
        randomize(_frame(), SCHEMA, rng=0, **kwargs)


def test_keep_errors_name_the_column():
    with pytest.raises(InputError, match="keep\\['disease'\\]"):
        randomize(_frame(), SCHEMA, keep={"disease": 1 / 3})


def test_empty_table():
    with pytest.raises(InputError, match="empty"):
        randomize(_frame().iloc[:0], SCHEMA, keep={"disease": 0.8})


@pytest.mark.parametrize("module", ["release", "reconstruct", "pram", "warner"])
def test_docstring_examples(module):
    mod = importlib.import_module(f"microanon.methods.randomize.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_adult_rr_both_reconstructs_the_joint_distribution():
    from microanon.datasets import adult_schema, load_adult
    from microanon.methods.randomize.reconstruct import reconstruct

    adult = load_adult()
    schema = adult_schema(sensitive="occupation")
    rel = randomize(adult, schema, keep={"age": 0.9, "education": 0.8, "occupation": 0.7}, rng=4)
    # age is coded by the leaves of ARX's hierarchy (1..100), ages absent from Adult included
    assert rel.metadata["randomized"]["age"]["domain"] == list(range(1, 101))
    rec = reconstruct(rel, ["education", "occupation"])
    truth = (
        (
            adult.groupby(["education", "occupation"])
            .size()
            .reindex(pd.MultiIndex.from_product(rec.domains), fill_value=0)
            / len(adult)
        )
        .to_numpy()
        .reshape(rec.shape)
    )
    assert np.all(np.abs(rec.estimate - truth) <= 5 * rec.standard_errors())
    ages = reconstruct(rel, ["age"])
    assert np.abs(ages.estimate[:16]).max() < 5 * ages.standard_errors()[:16].max()
