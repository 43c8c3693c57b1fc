"""Disclosure risk of perturbative releases: record linkage, interval and rank disclosure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import InputError
from microanon.measures.linkage import (
    distance_linkage,
    interval_disclosure,
    rank_disclosure,
    risk_summary,
)


def brute_force_linkage(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-record linkage probability from the full n × n distance matrix."""
    d = np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(axis=2))
    nearest = d.min(axis=1, keepdims=True)
    tied = d <= nearest * (1 + 1e-9)
    own = tied[np.arange(len(x)), np.arange(len(x))]
    return np.where(own, 1.0 / tied.sum(axis=1), 0.0)


def test_linkage_identity_and_ties():
    x = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0], [6.0, 5.0]])
    assert distance_linkage(x, x).share == 1.0
    # microaggregated pairs: each pair shares one masked record -> 1/2 each
    y = np.array([[0.5, 0.0], [0.5, 0.0], [5.5, 5.0], [5.5, 5.0]])
    result = distance_linkage(x, y)
    assert result.share == 0.5 and result.probability.tolist() == [0.5] * 4


def test_linkage_counts_equidistant_distinct_records_as_ties():
    x = np.array([[0.0], [10.0], [20.0]])
    y = np.array([[1.0], [-1.0], [20.0]])  # record 0 is 1 away from masked 0 and masked 1
    result = distance_linkage(x, y, standardize=False)
    np.testing.assert_allclose(result.probability, [0.5, 0.0, 1.0])


def test_linkage_missed_record():
    x = np.array([[0.0], [1.0]])
    y = np.array([[1.0], [0.0]])  # swapped
    assert distance_linkage(x, y).share == 0.0


def test_linkage_standardizes_with_the_original_statistics():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 2)) * [1.0, 1000.0]
    y = x + rng.normal(size=(300, 2)) * [0.8, 100.0]  # noise large for a, small for b
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    by_hand = distance_linkage((x - mean) / sd, (y - mean) / sd, standardize=False)
    standardized = distance_linkage(x, y)
    np.testing.assert_allclose(standardized.probability, by_hand.probability)
    # raw distances ignore a (dominated by b's scale): a different answer
    assert distance_linkage(x, y, standardize=False).share != standardized.share


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda p: st.integers(1, 25).flatmap(
            lambda n: st.tuples(
                st.lists(
                    st.lists(st.integers(-3, 3), min_size=p, max_size=p), min_size=n, max_size=n
                ),
                st.lists(
                    st.lists(st.integers(-3, 3), min_size=p, max_size=p), min_size=n, max_size=n
                ),
            )
        )
    )
)
def test_linkage_equals_the_brute_force(pair):
    x, y = (np.array(a, dtype=float) for a in pair)
    result = distance_linkage(x, y, standardize=False)
    np.testing.assert_allclose(result.probability, brute_force_linkage(x, y))
    assert result.share == pytest.approx(brute_force_linkage(x, y).mean())


def test_interval_disclosure_and_sdcmicro_drisk():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = x + rng.normal(size=(200, 3)) * 0.05
    result = interval_disclosure(x, y, p=5)
    # sdcMicro's dRiskWORK(x, xm, k = 0.05): sds <- apply(xm, 2, sd, na.rm = TRUE);
    # mi <- xm - k sds; ma <- xm + k sds; w <- which(rowSums(x < mi | x > ma) %in% 0:1)
    sds = y.std(axis=0, ddof=1)
    outside = (x < y - 0.05 * sds) | (x > y + 0.05 * sds)
    assert result.share == pytest.approx((outside.sum(axis=1) == 0).mean())  # all inside
    drisk = interval_disclosure(x, y, p=5, outside=1)
    assert drisk.share == pytest.approx(np.isin(outside.sum(axis=1), [0, 1]).mean())
    assert drisk.share > result.share and drisk.outside == 1
    np.testing.assert_allclose(result.per_column.to_numpy(), (~outside).mean(axis=0))
    assert result.p == 5.0
    assert interval_disclosure(x, x, p=0).share == 1.0
    # with one column, sdcMicro's rule counts every record
    assert interval_disclosure(x[:, :1], x[:, :1] + 10, outside=1).share == 1.0


def test_interval_bounds_are_inclusive():
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    sd = x.std(ddof=1)
    y = x + np.array([[0.1], [0.0], [0.0], [0.0]]) * sd  # exactly 10% of sd away
    assert interval_disclosure(x, y, p=10).per_column.iloc[0] >= 0.75


def _plain_mid_rank(column: np.ndarray, value: float) -> float:
    """1-based mid-rank of ``value`` among ``column``: between those below and those up to it."""
    return ((column < value).sum() + 1 + (column <= value).sum()) / 2.0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(-4, 4), min_size=n, max_size=n),
            st.lists(st.integers(-6, 6), min_size=n, max_size=n),
        )
    ),
    st.sampled_from([0.0, 5.0, 20.0, 50.0]),
)
def test_rank_disclosure_equals_the_plain_count(pair, r):
    """Whole numbers (many ties, values absent from the original): the share of values whose
    mid-rank moved at most r % of the records, counted value by value."""
    x, y = (np.array(a, dtype=float) for a in pair)
    moved = [abs(_plain_mid_rank(x, b) - _plain_mid_rank(x, a)) for a, b in zip(x, y, strict=True)]
    expected = np.mean(np.array(moved) <= r / 100.0 * len(x))
    assert rank_disclosure(x[:, None], y[:, None], r=r).share == pytest.approx(expected)


def test_rank_disclosure_with_ties_and_new_values():
    x = np.array([[1.0], [1.0], [2.0], [3.0], [4.0]])
    # mid-ranks: 1 -> 1.5, 2 -> 3, 3 -> 4, 4 -> 5; 10 is absent -> 5.5
    y = np.array([[1.0], [2.0], [1.0], [10.0], [4.0]])
    # |rank changes| = 0, 1.5, 1.5, 1.5, 0; window r% of 5 records
    assert rank_disclosure(x, y, r=20).share == pytest.approx(2 / 5)  # window 1 rank
    assert rank_disclosure(x, y, r=30).share == 1.0  # window 1.5 ranks
    assert rank_disclosure(x, y, r=0).share == pytest.approx(2 / 5)


def test_rank_disclosure_bounds_rank_swapping():
    # a swap of values at most w ranks apart is always within a window of w ranks
    rng = np.random.default_rng(1)
    x = rng.permutation(100).astype(float)[:, None]
    order = np.argsort(x[:, 0])
    y = x.copy()
    for i in range(0, 100, 2):  # swap rank pairs (i, i+1)
        a, b = order[i], order[i + 1]
        y[a], y[b] = x[b], x[a]
    assert rank_disclosure(x, y, r=1).share == 1.0
    assert rank_disclosure(x, y, r=0).share == 0.0


def test_risk_summary_on_dataframes():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 3.0, 2.0, 5.0], "c": list("wxyz")})
    y = x.copy()
    y["a"] = [1.5, 1.5, 3.5, 3.5]
    summary = risk_summary(x, y, ["a", "b"], p=10, r=25)
    assert summary.columns == ["a", "b"] and summary.rows == 4
    assert summary.linkage.share == pytest.approx(distance_linkage(x, y, ["a", "b"]).share)
    assert summary.interval.share == interval_disclosure(x, y, ["a", "b"], p=10).share
    assert (
        summary.rank.per_column.to_dict()
        == rank_disclosure(x, y, ["a", "b"], r=25).per_column.to_dict()
    )
    assert list(summary.interval.per_column.index) == ["a", "b"]
    assert summary.to_dict()["interval_p"] == 10 and summary.to_dict()["rank_r"] == 25


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda x: interval_disclosure(x, x, p=-1), r"p must be in >= 0"),
        (lambda x: interval_disclosure(x, x, p="5"), "p must be a number"),
        (lambda x: rank_disclosure(x, x, r=101), r"r must be in \[0, 100\]"),
        (lambda x: rank_disclosure(x, x, r=float("nan")), "r must be in"),
        (lambda x: risk_summary(x, x, r=-1), "r must be in"),
        (lambda x: interval_disclosure(x, x, outside=-1), "outside must be an integer"),
        (lambda x: risk_summary(x, x, outside=0.5), "outside must be an integer"),
        (lambda x: distance_linkage(x, x[:2]), "shape"),
        (lambda x: risk_summary(x, x, ["a"]), "DataFrame"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InputError, match=match):
        call(np.arange(6, dtype=float).reshape(3, 2))
