"""A reconstruction kept as its factors (:class:`~microanon.measures.factored.Factors`): its
marginals at a few cells and the CUBE's query errors equal those of the dense reconstruction, on
random tables (hypothesis) and on a real survey file randomized by PRAM."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.core import Hierarchy, Schema, Table
from microanon.measures import distribution
from microanon.measures.distribution import (
    _reconstruction,
    chi_square,
    estimate_distribution,
    query_errors,
    squared_euclidean,
    uncertainty_coefficients,
    utility_report,
)
from microanon.measures.estimators import kl_divergence, true_joint
from microanon.measures.factored import Factors
from microanon.methods.randomize.matrices import kron_apply
from microanon.methods.randomize.pram import pram


@st.composite
def reconstructions(draw):
    """Published proportions with empty cells, one inverse matrix or identity per axis, a truth."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    size = math.prod(shape)
    counts = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    if not any(counts):
        counts[0] = 1
    lam = np.array(counts, dtype=float).reshape(shape) / sum(counts)
    inverses = []
    for d in shape:
        if draw(st.booleans()) or d == 1:
            inverses.append(None)
            continue
        keep = draw(st.floats(0.3, 0.95))
        matrix = keep * np.eye(d) + (1 - keep) / d  # columns sum to 1
        if draw(st.booleans()):  # an arbitrary column-stochastic matrix, still invertible
            noise = np.array(draw(st.lists(st.floats(0, 0.2), min_size=d * d, max_size=d * d)))
            matrix = matrix + noise.reshape(d, d)
            matrix = matrix / matrix.sum(axis=0)
        inverses.append(np.linalg.inv(matrix))
    truth = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    if not any(truth):
        truth[-1] = 2
    p = np.array(truth, dtype=float).reshape(shape) / sum(truth)
    return lam, inverses, p


@settings(max_examples=150, deadline=None)
@given(reconstructions(), st.data())
def test_marginals_at_cells_equal_the_dense_reconstruction(case, data):
    lam, inverses, _ = case
    q = kron_apply(inverses, lam)
    factors = Factors.of(lam, inverses)
    axes = range(lam.ndim)
    for size in range(lam.ndim + 1):
        for keep in itertools.combinations(axes, size):
            dense = q.sum(axis=tuple(a for a in axes if a not in keep))
            dims = [lam.shape[a] for a in keep]
            cells = [0]  # the grand total: one cell, with no axis to name it
            if keep:
                cells = data.draw(st.lists(st.integers(0, math.prod(dims) - 1), min_size=1))
            at = np.unravel_index(np.array(cells), dims) if keep else ()
            got = factors.marginal_at(keep, at)
            np.testing.assert_allclose(got, np.ravel(dense)[cells], rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(reconstructions(), st.integers(1, 10_000), st.sampled_from(["any", "always"]))
def test_query_errors_from_factors_equal_the_dense_ones(case, n, include):
    lam, inverses, p = case
    q = kron_apply(inverses, lam)
    factors = Factors.of(lam, inverses)
    for cube in (False, True):
        dense = query_errors(p, q, n, cube, include_sensitive=include)
        with pytest.MonkeyPatch.context() as patch:  # every group-by from the factors
            patch.setattr(distribution, "_PAIRING", 0)
            patch.setattr(distribution, "_PAIR_STEP", 0)
            got = query_errors(p, q, n, cube, include_sensitive=include, factors=factors)
        assert got.queries == dense.queries
        assert got.mean == pytest.approx(dense.mean, rel=1e-9, abs=1e-12)
        assert got.mean_absolute == pytest.approx(dense.mean_absolute, rel=1e-9, abs=1e-12)
        for keep, value in dense.per_group_by.items():
            assert got.per_group_by[keep] == pytest.approx(value, rel=1e-9, abs=1e-12)


def test_utility_report_of_a_real_pram_release_equals_the_dense_measures(monkeypatch):
    """The US crash file (DAAG's nassCDS, 26,217 occupants) randomized by PRAM on two of six
    columns: the report's numbers, from the factors and with the truth in the release's codes,
    are those of the dense reconstruction in the Table's codes."""
    columns = ["dvcat", "seatbelt", "frontal", "sex", "ageOFocc", "injSeverity"]
    data = survey("nass_cds")[columns].dropna().reset_index(drop=True)
    data["ageOFocc"] = (data["ageOFocc"] // 10 * 10).astype(int)  # (its decade: numbers)
    # seatbelt's hierarchy lists none first: the Table's codes are not the sorted values the
    # reconstruction gives a column the release did not randomize
    belt = Hierarchy.from_paths([["*", "none"], ["*", "belted"]], name="seatbelt")
    spec = {c: "quasi" for c in columns[:-1]} | {"injSeverity": "sensitive"}
    schema = Schema.from_dict(spec | {"seatbelt": {"role": "quasi", "hierarchy": belt}})
    schema = schema.resolve(data)
    release = pram(data, schema, keep={"sex": 0.8, "injSeverity": 0.7}, rng=np.random.default_rng())
    table = Table.from_frame(data, schema)
    quasi, sensitive = columns[:-1], "injSeverity"
    _, _, orders = _reconstruction(release, table, quasi, sensitive)
    assert any(order is not None for order in orders)  # (the renaming is exercised)
    monkeypatch.setattr(distribution, "_PAIRING", 0)  # every CUBE group-by from the factors
    monkeypatch.setattr(distribution, "_PAIR_STEP", 0)
    report = utility_report(release, table, quasi, sensitive)
    monkeypatch.undo()
    p = true_joint(table, quasi, sensitive)
    q = estimate_distribution(release, table, quasi, sensitive, clip_renorm=False)
    n = table.n_rows
    assert report["query_error_base"] == pytest.approx(query_errors(p, q, n).mean, rel=1e-9)
    cube = query_errors(p, q, n, cube=True).mean
    assert report["query_error_cube"] == pytest.approx(cube, rel=1e-9)
    assert report["kl"] == pytest.approx(kl_divergence(p, q), rel=1e-9)
    assert report["chi_square"] == pytest.approx(chi_square(p, q), rel=1e-9)
    assert report["squared_euclidean"] == pytest.approx(squared_euclidean(p, q), rel=1e-9)
    clipped = estimate_distribution(release, table, quasi, sensitive)
    u = uncertainty_coefficients(clipped, [*quasi, sensitive])
    np.testing.assert_allclose(report["uncertainty"].to_numpy(), u.to_numpy(), rtol=1e-9)
