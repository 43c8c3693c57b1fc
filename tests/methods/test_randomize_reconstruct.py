from __future__ import annotations

import importlib
import itertools
from functools import reduce

import numpy as np
import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.methods.generalize import anatomy
from microanon.methods.randomize.matrices import inverse_frobenius_sq, uniform_retention
from microanon.methods.randomize.reconstruct import Reconstruction, reconstruct
from microanon.methods.randomize.release import randomize
from microanon.methods.randomize.sampling import randomize_codes

# the package re-exports the function under the module's name, so fetch the module itself
reconstruct_module = importlib.import_module("microanon.methods.randomize.reconstruct")


def _kron(mats, shape):
    return reduce(
        np.kron, [np.eye(d) if m is None else m for m, d in zip(mats, shape, strict=True)]
    )


def dense_sigma(rec: Reconstruction) -> np.ndarray:
    """Σ of eq. 2 at the observed λ, formed densely (small tables only)."""
    a = _kron(rec.inverses, rec.shape)
    lam = rec.observed.reshape(-1)
    return a @ (np.diag(lam) - np.outer(lam, lam)) @ a.T / rec.n


def _general(d: int, rng: np.random.Generator) -> np.ndarray:
    m = rng.random((d, d)) + np.eye(d) * d
    return m / m.sum(axis=0)


# ------------------------------------------------- trace(Σ) of eq. 2 in closed form (our check)
def test_trace_identity():
    d, p, n = (2, 3, 4), (0.8, 0.6, 0.9), 1000
    rng = np.random.default_rng(0)
    pi = rng.dirichlet(np.ones(24)).reshape(d)
    mats = [uniform_retention(di, pi_) for di, pi_ in zip(d, p, strict=True)]
    lam = _kron(mats, d) @ pi.reshape(-1)
    rec = Reconstruction.from_observed(lam.reshape(d), mats, n)
    assert np.allclose(rec.estimate, pi)
    sigma = dense_sigma(rec)  # evaluated at λ = Pπ: the true covariance
    f = np.prod([inverse_frobenius_sq(di, pi_) for di, pi_ in zip(d, p, strict=True)])
    closed = (f / 24 - (pi**2).sum()) / n
    assert np.trace(sigma) == pytest.approx(closed, rel=1e-10)
    assert rec.variance().sum() == pytest.approx(closed, rel=1e-10)
    assert np.allclose(rec.variance(), np.diag(sigma).reshape(d), rtol=1e-10, atol=1e-15)


# ---------------------------------------------------------------------- variance, marginal, count
@pytest.fixture(scope="module")
def small():
    """A reconstruction mixing uniform, general and identity matrices on a 3 × 2 × 4 table."""
    rng = np.random.default_rng(1)
    shape = (3, 2, 4)
    mats = [uniform_retention(3, 0.7), None, _general(4, rng)]
    counts = rng.integers(0, 30, size=shape)
    counts[0, 1, 2] = 0
    return Reconstruction.from_observed(
        counts / counts.sum(),
        mats,
        int(counts.sum()),
        columns=["a", "b", "c"],
        domains=[["x", "y", "z"], [0, 1], ["p", "q", "r", "s"]],
    )


def test_variance_is_the_diagonal_of_sigma(small):
    assert np.allclose(small.variance(), np.diag(dense_sigma(small)).reshape(small.shape))
    assert np.allclose(small.standard_errors() ** 2, small.variance())
    assert abs(small.estimate.sum() - 1) < 1e-12


def _projection(shape, keep):
    """0/1 matrix summing the full cells into the cells of the columns ``keep`` (in that order)."""
    cells = list(itertools.product(*[range(d) for d in shape]))
    sub_shape = [shape[i] for i in keep]
    m = np.zeros((int(np.prod(sub_shape)), len(cells)))
    for k, cell in enumerate(cells):
        m[np.ravel_multi_index([cell[i] for i in keep], sub_shape), k] = 1
    return m


@pytest.mark.parametrize("names", [["a"], ["c", "a"], ["b", "c"], ["c", "b", "a"]])
def test_marginal_matches_brute_force(small, names):
    keep = [small.columns.index(c) for c in names]
    proj = _projection(small.shape, keep)
    marg = small.marginal(names)
    assert marg.columns == names
    assert marg.shape == tuple(small.shape[i] for i in keep)
    assert marg.domains == [small.domains[i] for i in keep]
    assert np.allclose(marg.estimate.reshape(-1), proj @ small.estimate.reshape(-1))
    var = np.diag(proj @ dense_sigma(small) @ proj.T)
    assert np.allclose(marg.variance().reshape(-1), var, atol=1e-16)


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"a": "y"},
        {"a": ["x", "z"], "c": "q"},
        {"b": 1, "c": ["p", "s"]},
        {"a": "x", "b": 0, "c": "r"},
    ],
)
def test_count_matches_brute_force(small, query):
    w = np.ones(small.shape)
    for i, col in enumerate(small.columns):
        if col in query:
            wanted = query[col] if isinstance(query[col], list) else [query[col]]
            sel = np.zeros(small.shape[i], bool)
            sel[[small.domains[i].index(v) for v in wanted]] = True
            index = [slice(None)] * 3
            index[i] = ~sel
            w[tuple(index)] = 0
    est, se = small.count(query)
    w = w.reshape(-1)
    assert est == pytest.approx(small.n * w @ small.estimate.reshape(-1))
    assert se == pytest.approx(small.n * np.sqrt(max(w @ dense_sigma(small) @ w, 0)), abs=1e-9)


def test_count_of_everything_is_exact(small):
    est, se = small.count({})
    assert est == pytest.approx(small.n) and se == pytest.approx(0, abs=1e-6)


def test_count_values_match_by_key(small):
    # 1.0 and "1" denote the same published value as 1
    assert small.count({"b": 1.0}) == pytest.approx(small.count({"b": 1}))
    assert small.count({"b": "1"}) == pytest.approx(small.count({"b": 1}))
    assert small.count({"b": (0, 1)}) == pytest.approx(small.count({}))


@pytest.mark.parametrize(
    "query, message",
    [
        ({"nope": 1}, "'nope'"),
        ({"a": "w"}, "'w' is not in the domain of column 'a'"),
        ([1], "mapping"),
    ],
)
def test_count_bad_queries(small, query, message):
    with pytest.raises(InputError, match=message):
        small.count(query)


def test_marginal_bad_columns(small):
    with pytest.raises(InputError, match="'d'"):
        small.marginal(["d"])
    with pytest.raises(InputError, match="repeat"):
        small.marginal(["a", "a"])
    with pytest.raises(InputError, match="at least one"):
        small.marginal([])
    assert small.marginal("b").columns == ["b"]


def test_distribution_clip_renorm():
    mats = [uniform_retention(3, 0.5)]
    rec = Reconstruction.from_observed(np.array([0.05, 0.45, 0.5]), mats, 100, clip_renorm=True)
    assert rec.estimate.min() < 0  # the unbiased estimate can be negative
    dist = rec.distribution()
    assert dist.min() == 0 and dist.sum() == pytest.approx(1)
    assert np.all((dist > 0) == (rec.estimate > 0))
    assert np.allclose(rec.distribution(clip_renorm=False), rec.estimate)
    raw = Reconstruction.from_observed(np.array([0.05, 0.45, 0.5]), mats, 100)
    assert np.allclose(raw.distribution(), raw.estimate)
    assert np.allclose(raw.distribution(clip_renorm=True), dist)


# ---------------------------------------------------------------------- statistics
def _table(n: int, seed: int) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "g": rng.choice(["f", "m"], n, p=[0.4, 0.6]),
            "e": rng.choice(["lo", "mid", "hi"], n, p=[0.5, 0.3, 0.2]),
            "s": rng.choice(["a", "b", "c", "d"], n, p=[0.1, 0.2, 0.3, 0.4]),
        }
    )
    return df, {"g": "quasi", "e": "quasi", "s": "sensitive"}


def test_reconstruction_is_unbiased():
    df, schema = _table(1500, 2)
    truth = (
        pd.crosstab([df["g"], df["e"]], df["s"], normalize=True)
        .reindex(index=pd.MultiIndex.from_product([["f", "m"], ["hi", "lo", "mid"]]))
        .to_numpy()
        .reshape(2, 3, 4)
    )
    gen = np.random.default_rng(3)
    mats = {"s": _general(4, np.random.default_rng(9))}
    reps = 150
    estimates = []
    for _ in range(reps):
        rel = randomize(df, schema, keep={"g": 0.8, "e": 0.7}, matrices=mats, rng=gen)
        estimates.append(reconstruct(rel).estimate)
    rec = reconstruct(rel)
    assert rec.columns == ["g", "e", "s"]
    assert rec.domains == [["f", "m"], ["hi", "lo", "mid"], ["a", "b", "c", "d"]]
    # the variance of π̂ for this fixed table is at most eq. 2's (which also counts sampling)
    lam = reduce(np.kron, rec.matrices) @ truth.reshape(-1)
    bound = Reconstruction.from_observed(lam.reshape(rec.shape), rec.matrices, len(df))
    mean = np.mean(estimates, axis=0)
    assert np.all(np.abs(mean - truth) <= 4 * np.sqrt(bound.variance() / reps))


def test_variance_matches_the_empirical_variance():
    """Tables drawn i.i.d. from π, then randomized: Cov(π̂) is exactly eq. 2 at λ = Pπ."""
    shape, n, reps = (2, 3, 4), 2000, 600
    rng = np.random.default_rng(4)
    pi = rng.dirichlet(np.full(24, 2.0))
    mats = [uniform_retention(2, 0.85), _general(3, rng), uniform_retention(4, 0.6)]
    truth = Reconstruction.from_observed(
        (_kron(mats, shape) @ pi).reshape(shape), mats, n
    ).variance()
    estimates, plug_in = [], []
    for _ in range(reps):
        cells = rng.choice(24, size=n, p=pi)
        codes = np.unravel_index(cells, shape)
        frame = pd.DataFrame({f"c{i}": c for i, c in enumerate(codes)})
        rel = {
            f"c{i}": {"domain": list(range(d)), "matrix": m}
            for i, (d, m) in enumerate(zip(shape, mats, strict=True))
        }
        for col, spec in rel.items():
            frame[col] = randomize_codes(
                frame[col].to_numpy(), len(spec["matrix"]), rng, matrix=spec["matrix"]
            )
        rec = reconstruct(frame, matrices=rel)
        estimates.append(rec.estimate)
        plug_in.append(rec.variance())
    empirical = np.var(estimates, axis=0, ddof=1)
    assert empirical.sum() == pytest.approx(truth.sum(), rel=0.08)
    assert np.all(np.abs(empirical / truth - 1) < 0.35)
    assert np.mean(plug_in, axis=0) == pytest.approx(truth, rel=0.02)


# ---------------------------------------------------------------------- releases and frames
def test_release_round_trip_reproduces_the_reconstruction(tmp_path):
    df, schema = _table(800, 5)
    df["n"] = np.random.default_rng(0).choice([1.5, 2.0, 7.25], len(df))
    schema = {**schema, "n": {"role": "quasi", "kind": "numeric"}}
    rel = randomize(
        df,
        schema,
        keep={"s": 0.7, "n": 0.8},
        matrices={"g": _general(2, np.random.default_rng(1))},
        rng=6,
    )
    loaded = Release.load(rel.save(tmp_path / "r"))
    for columns in (None, ["s", "e"], ["n", "g"]):
        a, b = reconstruct(rel, columns), reconstruct(loaded, columns)
        assert a.columns == b.columns and a.domains == b.domains
        assert np.allclose(a.estimate, b.estimate) and np.allclose(a.variance(), b.variance())
    assert reconstruct(rel).columns == ["g", "s", "n"]
    # a non-randomized column gets the identity and its sorted published values as domain
    part = reconstruct(rel, ["e", "s"])
    assert part.matrices[0] is None and part.domains[0] == ["hi", "lo", "mid"]
    assert part.marginal(["e"]).estimate.sum() == pytest.approx(1)


def test_frame_with_plain_matrices_uses_sorted_values():
    df = pd.DataFrame({"x": ["b", "a", "b", "c"] * 50})
    m = uniform_retention(3, 0.8)
    rec = reconstruct(df, matrices={"x": m})
    assert rec.domains == [["a", "b", "c"]]
    lam = np.array([0.25, 0.5, 0.25])
    assert np.allclose(rec.estimate, np.linalg.solve(m, lam))
    with pytest.raises(InputError, match="does not match its domain"):
        reconstruct(df, matrices={"x": uniform_retention(4, 0.8)})


def test_keep_from_metadata_must_match_the_matrix():
    df = pd.DataFrame({"x": ["a", "b"] * 10})
    spec = {"domain": ["a", "b"], "matrix": uniform_retention(2, 0.8), "keep": 0.9}
    with pytest.raises(InputError, match="uniform-retention matrix of keep"):
        reconstruct(df, matrices={"x": spec})


def test_a_million_cells_in_memory_linear_in_cells():
    rng = np.random.default_rng(0)
    shape = (10, 10, 100, 100)
    n = 200_000
    frame = pd.DataFrame({f"c{i}": rng.integers(0, d, n) for i, d in enumerate(shape)})
    specs = {
        f"c{i}": {"domain": list(range(d)), "matrix": uniform_retention(d, 0.9), "keep": 0.9}
        for i, d in enumerate(shape)
    }
    rec = reconstruct(frame, matrices=specs)
    assert rec.shape == shape and rec.estimate.sum() == pytest.approx(1)
    assert rec.variance().shape == shape
    est, se = rec.count({"c2": list(range(50))})
    assert est == pytest.approx(n / 2, rel=0.05) and se > 0


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda df, rel: reconstruct(
                anatomy(df.assign(q=1), {"q": "quasi", "s": "sensitive"}, l=2)
            ),
            "'anatomized'",
        ),
        (lambda df, rel: reconstruct(rel, matrices={"s": np.eye(4)}), "carries its own"),
        (lambda df, rel: reconstruct(df), "needs matrices"),
        (lambda df, rel: reconstruct(df.to_numpy(), matrices={}), "expected a randomized"),
        (lambda df, rel: reconstruct(rel, ["s", "zz"]), "'zz'"),
        (lambda df, rel: reconstruct(rel, ["s", "s"]), "repeat"),
        (lambda df, rel: reconstruct(rel, []), "no columns"),
        (lambda df, rel: reconstruct(df, matrices={"zz": np.eye(2)}), "'zz'"),
        (lambda df, rel: reconstruct(df.iloc[:0], matrices={"s": np.eye(4)}), "empty"),
        (
            lambda df, rel: reconstruct(
                df, matrices={"s": {"domain": ["a", "b", "c", "e"], "matrix": np.eye(4)}}
            ),
            "'d' is not in the domain",
        ),
        (lambda df, rel: reconstruct(df, matrices={"s": {"matrix": np.eye(4)}}), "'domain'"),
        (lambda df, rel: reconstruct(df, matrices={"s": np.full((4, 4), 0.25)}), "singular"),
    ],
)
def test_bad_input(call, message):
    df, schema = _table(200, 7)
    rel = randomize(df, schema, keep={"s": 0.8}, rng=0)
    with pytest.raises(InputError, match=message):
        call(df, rel)


def test_too_many_cells(monkeypatch):
    df, schema = _table(200, 7)
    rel = randomize(df, schema, keep={"s": 0.8}, rng=0)
    monkeypatch.setattr(reconstruct_module, "MAX_CELLS", 10)
    with pytest.raises(InputError, match="24 cells"):
        reconstruct(rel, ["g", "e", "s"])


@pytest.mark.parametrize(
    "args, message",
    [
        ((np.array([0.5, 0.6]), [None], 10), "sum to 1"),
        ((np.array([0.5, 0.5]), [None], 0), "positive integer"),
        ((np.array([0.5, 0.5]), [None, None], 10), "2 matrices for 1 axes"),
        ((np.array([0.5, 0.5]), [np.eye(3)], 10), "shape"),
        ((np.array(1.0), [], 10), "non-empty"),
    ],
)
def test_from_observed_bad_input(args, message):
    with pytest.raises(InputError, match=message):
        Reconstruction.from_observed(*args)
