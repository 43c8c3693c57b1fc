"""Property tests: every reported variance equals the dense computation of eq. 2 on small tables."""

from __future__ import annotations

import itertools
from functools import reduce

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.reconstruct import Reconstruction


@st.composite
def reconstructions(draw):
    k = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(k))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mats = []
    for d in shape:
        kind = draw(st.sampled_from(["uniform", "general", "identity"]))
        if kind == "identity" or d == 1:
            mats.append(None)
        elif kind == "uniform":
            mats.append(uniform_retention(d, draw(st.floats(1 / d + 0.05, 1.0))))
        else:
            m = rng.random((d, d)) + np.eye(d) * draw(st.floats(0.5, 5.0))
            mats.append(m / m.sum(axis=0))
    counts = rng.integers(0, 5, size=shape)
    counts.flat[0] += 1
    return Reconstruction.from_observed(counts / counts.sum(), mats, int(counts.sum()))


def _dense(rec):
    a = reduce(
        np.kron,
        [np.eye(d) if m is None else m for m, d in zip(rec.inverses, rec.shape, strict=True)],
    )
    lam = rec.observed.reshape(-1)
    return a, a @ (np.diag(lam) - np.outer(lam, lam)) @ a.T / rec.n


@settings(max_examples=80, deadline=None)
@given(rec=reconstructions(), data=st.data())
def test_variance_marginal_and_count_equal_dense_eq2(rec, data):
    a, sigma = _dense(rec)
    assert np.allclose(rec.estimate.reshape(-1), a @ rec.observed.reshape(-1))
    assert np.allclose(rec.variance().reshape(-1), np.clip(np.diag(sigma), 0, None), atol=1e-12)
    k = len(rec.shape)
    keep = data.draw(st.permutations(range(k)).map(lambda p: p[: max(1, len(p) - 1)]))
    cells = list(itertools.product(*[range(d) for d in rec.shape]))
    sub = [rec.shape[i] for i in keep]
    proj = np.zeros((int(np.prod(sub)), len(cells)))
    for j, cell in enumerate(cells):
        proj[np.ravel_multi_index([cell[i] for i in keep], sub), j] = 1
    marg = rec.marginal([rec.columns[i] for i in keep])
    assert np.allclose(marg.estimate.reshape(-1), proj @ rec.estimate.reshape(-1))
    assert np.allclose(
        marg.variance().reshape(-1), np.clip(np.diag(proj @ sigma @ proj.T), 0, None), atol=1e-12
    )
    query = {}
    w = np.ones(rec.shape)
    for i, col in enumerate(rec.columns):
        chosen = data.draw(st.sets(st.integers(0, rec.shape[i] - 1)))
        if data.draw(st.booleans()):
            query[col] = sorted(chosen)
            mask = np.ones(rec.shape[i], bool)
            mask[sorted(chosen)] = False
            index = [slice(None)] * k
            index[i] = mask
            w[tuple(index)] = 0
    est, se = rec.count(query)
    w = w.reshape(-1)
    assert np.isclose(est, rec.n * w @ rec.estimate.reshape(-1))
    # compare variances, up to the round-off of N[Σ (Aᵀw)² λ − (w·π̂)²] (a difference of sums)
    # and that of the dense reference N² wᵀΣw, a sum of terms as large as |Σ| (of an inverse
    # near singular: a count over every cell has variance 0, the dense sum 1e-9 of terms 1e6)
    tol = 1e-9 * rec.n * (1 + ((a.T @ w) ** 2) @ rec.observed.reshape(-1))
    tol += 1e-13 * rec.n**2 * (np.abs(w) @ np.abs(sigma) @ np.abs(w))
    assert np.isclose(se**2, rec.n**2 * max(w @ sigma @ w, 0), rtol=1e-7, atol=tol)
