"""MRR (Du & Zhan, KDD 2003): the estimator exactly, unbiasedness and its variance, the tree from
estimated counts, the release and bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import InputError, Release
from microanon.measures.classification import ID3
from microanon.methods.randomize import MRRData, mrr
from microanon.methods.randomize.onehot import OneHotLayout

DF = pd.DataFrame(
    {
        "sex": ["F", "M", "M", "F", "M", "F"],
        "smoker": ["y", "n", "n", "n", "y", "n"],
        "cls": ["a", "b", "a", "a", "b", "b"],
    }
)


def test_estimator_is_du_and_zhans_formula():
    layout = OneHotLayout(("sex", "smoker"), (("F", "M"), ("n", "y")))
    # rows 0-1 sent as they are, rows 2-3 complemented
    bits = np.array(
        [[1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1]],  # F,y  M,n  ¬(F,y)  ¬(M,y)
        dtype=bool,
    )
    data = MRRData(bits, 0.8, layout)
    # E = (sex=F ∧ smoker=y): bits (0, 3). All ones: rows 0 and 3; all zeros: row 1.
    assert data.count({"sex": "F", "smoker": "y"}) == pytest.approx((0.8 * 2 - 0.2 * 1) / 0.6)
    # E = (sex=M): ones rows 1, 2; zeros rows 0, 3.
    assert data.count({"sex": "M"}) == pytest.approx((0.8 * 2 - 0.2 * 2) / 0.6)
    assert data.count({}) == pytest.approx(4.0)


@pytest.mark.parametrize("theta", [0.0, 1.0])
def test_deterministic_theta_estimates_exactly(theta):
    data = MRRData.from_release(mrr(DF, ["sex", "smoker"], theta, clear=["cls"], rng=1))
    for event in ({"sex": "F"}, {"sex": "M", "smoker": "n"}, {"smoker": "y", "cls": "b"}):
        truth = np.logical_and.reduce([DF[c] == v for c, v in event.items()]).sum()
        assert data.count(event) == pytest.approx(truth)


def test_unbiased_with_the_predicted_variance():
    rng = np.random.default_rng(7)
    n, theta = 400, 0.75
    df = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    event = {"a": "x", "b": "p"}
    truth = int(((df.a == "x") & (df.b == "p")).sum())
    both = int(((df.a != "x") & (df.b != "p")).sum())  # rows whose complement pattern is Ē
    est = np.array(
        [MRRData.from_release(mrr(df, ["a", "b"], theta, rng=rng)).count(event) for _ in range(800)]
    )
    var = theta * (1 - theta) * (truth + both) / (2 * theta - 1) ** 2
    assert abs(est.mean() - truth) < 4 * np.sqrt(var / len(est))
    assert est.var() == pytest.approx(var, rel=0.15)


def test_release_rows_bits_and_no_seed(tmp_path):
    rel = mrr(DF, ["sex", "smoker"], 0.7, clear=["cls"], rng=3)
    assert rel.kind == "randomized"
    assert list(rel.data.columns) == ["sex=F", "sex=M", "smoker=n", "smoker=y", "cls"]
    bits = rel.data[["sex=F", "sex=M", "smoker=n", "smoker=y"]].to_numpy()
    per_block = np.stack([bits[:, :2].sum(1), bits[:, 2:].sum(1)], axis=1)
    assert set(map(tuple, per_block)) <= {(1, 1)}  # d = 2: a complement is one-hot too
    assert sorted(rel.data["cls"]) == sorted(DF["cls"])
    text = json.dumps(rel.metadata)
    assert "seed" not in text and "rng" not in text
    rel.save(tmp_path / "r")
    back = MRRData.from_release(Release.load(tmp_path / "r"))
    assert back.theta == 0.7 and back.layout.columns == ("sex", "smoker")
    written = rel.in_written_order().data  # (the rows sorted by their values)
    assert np.array_equal(back.bits, written[rel.data.columns[:4]].to_numpy().astype(bool))


def test_complemented_records_of_wider_domains():
    df = pd.DataFrame({"a": list("xyzxyz")})
    rel = mrr(df, ["a"], 0.0, rng=0)  # all complemented
    assert (rel.data.to_numpy().sum(axis=1) == 2).all()


def test_conditional_matches_counts_and_falls_back_to_the_marginal():
    data = MRRData.from_release(mrr(DF, ["sex", "smoker"], 1.0, clear=["cls"], rng=0))
    probs, dom = data.conditional(["sex"], "smoker", pd.DataFrame({"sex": ["F", "M", "F"]}))
    assert dom == ["n", "y"]
    assert np.allclose(probs, [[2 / 3, 1 / 3], [2 / 3, 1 / 3], [2 / 3, 1 / 3]])
    probs, dom = data.conditional(["sex", "smoker"], "cls", DF[["sex", "smoker"]])
    assert dom == ["a", "b"]
    assert np.allclose(probs[0], [1, 0]) and np.allclose(probs[1], [0.5, 0.5])
    # a combination nobody has: the marginal of cls
    df = pd.DataFrame({"u": ["p", "q"] * 3, "v": ["r", "s"] * 3, "c": list("aabbbb")})
    data = MRRData.from_release(mrr(df, ["u", "v"], 1.0, clear=["c"], rng=0))
    probs, _ = data.conditional(["u", "v"], "c", pd.DataFrame({"u": ["p"], "v": ["s"]}))
    assert np.allclose(probs, [[1 / 3, 2 / 3]])


tables = st.integers(3, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from("abc"), min_size=n, max_size=n),
        st.lists(st.sampled_from("pqrs"), min_size=n, max_size=n),
        st.lists(st.sampled_from("xy"), min_size=n, max_size=n),
        st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n),
    )
)


@settings(max_examples=40, deadline=None)
@given(tables)
def test_theta_one_tree_is_plain_id3(cols):
    df = pd.DataFrame({"f1": cols[0], "f2": cols[1], "f3": cols[2], "y": cols[3]})
    data = MRRData.from_release(
        mrr(df.assign(row=range(len(df))), ["f1", "f2", "f3"], 1.0, clear=["y", "row"], rng=0)
    )
    tree = data.id3("y", max_nodes=None)
    plain = ID3().fit(df[["f1", "f2", "f3"]], df["y"])
    grid = pd.MultiIndex.from_product([list("abc"), list("pqrs"), list("xy")]).to_frame(
        index=False, name=["f1", "f2", "f3"]
    )
    assert tree.n_nodes == plain.n_nodes
    assert list(tree.predict(grid)) == list(plain.predict(grid))


def test_noisy_tree_is_bounded_and_learns_a_strong_signal():
    rng = np.random.default_rng(11)
    n = 3000
    df = pd.DataFrame(
        {
            "a": rng.choice(list("pqrstuvw"), n),
            "b": rng.choice([str(i) for i in range(30)], n),
            "c": rng.choice(list("xy"), n),
        }
    )
    df["y"] = np.where(df["c"] == "x", "yes", "no")
    flip = rng.random(n) < 0.1
    df.loc[flip, "y"] = np.where(df.loc[flip, "y"] == "yes", "no", "yes")
    data = MRRData.from_release(mrr(df, ["a", "b", "c"], 0.85, clear=["y"], rng=rng))
    tree = data.id3("y")
    assert tree.n_nodes <= 1000
    truth = np.where(df["c"] == "x", "yes", "no")
    assert (tree.predict(df[["a", "b", "c"]]) == truth).mean() > 0.95
    capped = data.id3("y", z=0, max_nodes=50)
    assert capped.n_nodes <= 50


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"theta": 0.5}, "1/2"),
        ({"theta": 1.2}, "theta"),
        ({"theta": "0.8"}, "theta"),
        ({"columns": ["nope"]}, "nope"),
        ({"columns": []}, "at least one"),
        ({"clear": ["sex"]}, "both"),
    ],
)
def test_bad_input(kwargs, words):
    args = {"columns": ["sex", "smoker"], "theta": 0.8, **kwargs}
    with pytest.raises(InputError, match=words):
        mrr(DF, args.pop("columns"), args.pop("theta"), rng=0, **args)


def test_bad_tables_and_queries():
    with pytest.raises(InputError, match="empty"):
        mrr(DF.iloc[:0], ["sex"], 0.8)
    with pytest.raises(InputError, match="missing"):
        mrr(DF.assign(sex=[None, "M", "M", "F", "M", "F"]), ["sex"], 0.8)
    data = MRRData.from_release(mrr(DF, ["sex"], 0.8, clear=["cls"], rng=0))
    with pytest.raises(InputError, match="domain"):
        data.count({"sex": "X"})
    with pytest.raises(InputError, match="not randomized"):
        data.count({"smoker": "y"})
    with pytest.raises(InputError, match="not a release made by mrr"):
        MRRData.from_release(Release("masked", {"data": DF}))
