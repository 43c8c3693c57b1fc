"""Data swapping of categorical columns: marginals kept exactly, swap rate, strata, targeting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.apps.config import method_function
from microanon.core.errors import InputError
from microanon.methods.sdc import data_swap, swap_codes


@pytest.fixture
def people():
    rng = np.random.default_rng(11)
    n = 2000
    df = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "size": rng.choice(["1", "2", "3+"], n),
            "age": rng.integers(18, 90, n),
            "job": rng.choice([f"j{i}" for i in range(40)], n),
            "disease": rng.choice(["a", "b"], n),
        }
    )
    schema = {
        "region": "quasi",
        "size": "quasi",
        "age": {"role": "quasi", "kind": "numeric"},
        "job": "quasi",
        "disease": "sensitive",
    }
    return df, schema


@pytest.mark.parametrize("rate", [0.0, 0.05, 0.3, 1.0])
def test_marginals_kept_and_swap_rate(people, rate):
    df, schema = people
    rel = data_swap(df, schema, rate=rate, columns=["region"], rng=1)
    out = rel.data
    assert out["region"].value_counts().to_dict() == df["region"].value_counts().to_dict()
    changed = int((out["region"] != df["region"]).sum())
    assert changed == rel.metadata["swapped"]["region"]
    if rate < 1:
        assert changed == 2 * round(rate * len(df) / 2)  # exact: plenty of partners
    else:
        # Every pair needs two different values: at most n − (count of the commonest) pairs.
        assert changed <= 2 * (len(df) - df["region"].value_counts().max())
    for c in ("size", "age", "job", "disease"):
        assert out[c].tolist() == df[c].tolist()


def test_within_strata_keeps_the_joint_counts(people):
    df, schema = people
    rel = data_swap(df, schema, rate=0.4, columns=["region"], strata=["size"], rng=2)
    joint = rel.data.groupby(["size", "region"]).size()
    assert joint.equals(df.groupby(["size", "region"]).size())
    assert rel.metadata["parameters"]["strata"] == ["size"]


def test_targeted_swapping_prefers_rare_keys(people):
    df, schema = people
    # 100 records have a unique key value (risk 1), the other 1,900 share one (risk 1/1900):
    # with 100 pairs to form, targeted swapping starts every pair at a unique record.
    df = df.assign(key=["common"] * 1900 + [f"u{i}" for i in range(100)])
    schema = {**schema, "key": "quasi"}
    unique = (df["key"] != "common").to_numpy()
    target = data_swap(df, schema, rate=0.1, columns=["region"], keys=["key"], rng=3)
    plain = data_swap(df, schema, rate=0.1, columns=["region"], rng=3)
    assert (target.data["region"] != df["region"]).to_numpy()[unique].mean() > 0.95
    assert (plain.data["region"] != df["region"]).to_numpy()[unique].mean() < 0.25
    assert target.data["key"].tolist() == df["key"].tolist()


def test_swap_codes_is_an_involution_within_strata():
    rng = np.random.default_rng(5)
    codes, strata = rng.integers(0, 3, 500), rng.integers(0, 7, 500)
    p = swap_codes(codes, 0.5, strata, rng=rng)
    moved = p != np.arange(500)
    assert (p[p] == np.arange(500)).all()
    assert (codes[p][moved] != codes[moved]).all() and (strata[p] == strata).all()
    assert moved.sum() == 250
    assert (swap_codes(codes, 0.0, rng=1) == np.arange(500)).all()


def test_same_seed_same_release_and_default_columns(people):
    df, schema = people
    a = data_swap(df, schema, rate=0.1, strata=["size"], rng=9)
    b = data_swap(df, schema, rate=0.1, strata=["size"], rng=9)
    assert a.data.equals(b.data)
    assert a.metadata["parameters"]["columns"] == ["region", "job"]  # not the stratum
    assert a.kind == "masked" and a.metadata["models"] == []
    assert method_function("data_swap") is data_swap


def test_errors(people):
    df, schema = people
    with pytest.raises(InputError, match="rate"):
        data_swap(df, schema, rate=1.5)
    with pytest.raises(InputError, match="data_swap: column 'age' is numeric"):
        data_swap(df, schema, rate=0.1, columns=["age"])
    with pytest.raises(InputError, match="strata: column 'region'"):
        data_swap(df, schema, rate=0.1, columns=["region"], strata=["region"])
    with pytest.raises(InputError, match="keys: column 'nowhere'"):
        data_swap(df, schema, rate=0.1, keys=["nowhere"])
