"""EPR (after Zhang, Wang & Zhao, KDD 2005; the outline of docs/randomization.md): projections onto
the collector's subspace, decoding, the release and bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.methods.randomize import epr, epr_decode, epr_vectors
from microanon.methods.randomize.onehot import OneHotLayout


def _table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.choice(list("pqrs"), n),
            "b": rng.choice(list("xyz"), n),
            "c": rng.choice(["lo", "hi"], n),
        }
    )


def test_full_subspace_without_noise_returns_every_record():
    df = _table(300)
    rel = epr(df, ["a", "b", "c"], 9, sigma=0.0, rng=0)
    assert epr_decode(rel)[["a", "b", "c"]].equals(df[["a", "b", "c"]])


def test_submissions_lie_in_the_collectors_subspace():
    df = _table(500, seed=1)
    onehot = OneHotLayout.from_frame(df, ["a", "b", "c"], "t").encode(df)
    warmup, refresh, k = 20, 50, 2
    out = epr_vectors(onehot, k, sigma=0.1, warmup=warmup, refresh=refresh, rng=3)
    assert out.shape == onehot.shape
    # warm-up: the record plus full-dimensional noise
    assert np.linalg.matrix_rank(out[:warmup] - onehot[:warmup], tol=1e-9) == min(warmup, 9)
    # every later batch was projected on k eigenvectors of what came before it
    for lo in range(warmup, 500, refresh):
        batch = out[lo : lo + refresh]
        assert np.linalg.matrix_rank(batch, tol=1e-9) == k
        gram = out[:lo].T @ out[:lo]
        _, vecs = np.linalg.eigh(gram)
        v = vecs[:, ::-1][:, :k]
        assert np.allclose(batch @ v @ v.T, batch)


def test_one_eigenvector_decodes_almost_everyone_alike():
    df = _table(600, seed=2)
    decoded = epr_decode(epr(df, ["a", "b", "c"], 1, sigma=0.0, warmup=30, rng=0))
    later = decoded.iloc[30:]
    assert len(later.drop_duplicates()) <= 2


def test_clear_columns_order_seed_and_round_trip(tmp_path):
    df = _table(120).assign(label=lambda d: np.where(d["c"] == "hi", "yes", "no"))
    rel = epr(df, ["a", "b"], 3, clear=["label"], rng=5)
    assert list(rel.data.columns)[-1] == "label"
    assert rel.data["label"].tolist() == df["label"].tolist()  # arrival order kept
    text = json.dumps(rel.metadata)
    assert "seed" not in text and "rng" not in text
    rel.save(tmp_path / "r")
    back = epr_decode(Release.load(tmp_path / "r"))
    assert back.equals(epr_decode(rel.in_written_order()))
    again = epr(df, ["a", "b"], 3, clear=["label"], rng=5)
    assert np.array_equal(again.data.iloc[:, :7].to_numpy(), rel.data.iloc[:, :7].to_numpy())


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"k": 0}, "k must be >= 1"),
        ({"k": 10}, "larger than the number of bits"),
        ({"k": 2.5}, "whole number"),
        ({"sigma": -1.0}, "sigma"),
        ({"refresh": 0}, "refresh"),
        ({"warmup": 0}, "warmup"),
        ({"columns": ["zz"]}, "zz"),
        ({"clear": ["a"]}, "both"),
    ],
)
def test_bad_input(kwargs, words):
    args = {"columns": ["a", "b", "c"], "k": 2, **kwargs}
    with pytest.raises(InputError, match=words):
        epr(_table(50), args.pop("columns"), args.pop("k"), rng=0, **args)


def test_decode_needs_an_epr_release():
    with pytest.raises(InputError, match="not a release made by epr"):
        epr_decode(Release("masked", {"data": _table(5)}))
