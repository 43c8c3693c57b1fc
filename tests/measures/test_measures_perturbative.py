"""Utility measures of perturbative releases: SSE/SST, IL1s, preserved moments, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import InputError
from microanon.measures.perturbative import (
    Change,
    correlation_changes,
    covariance_changes,
    il1s,
    information_loss,
    mean_changes,
    numeric_pair,
    sse,
    utility_summary,
    variance_changes,
)

NINE = np.array([(0, 0), (1, 0), (0, 1), (10, 10), (11, 10), (10, 11), (5, 5), (6, 5), (5, 6)])
NINE_GROUPS = np.repeat([0, 1, 2], 3)
NINE_MASKED = np.repeat([[1 / 3, 1 / 3], [31 / 3, 31 / 3], [16 / 3, 16 / 3]], 3, axis=0)


def test_sse_sst_of_the_mdav_vector():
    # MDAV, k = 3, on nine points in three clusters: SSE = 4, SST = 304 (SSA = 300)
    assert sse(NINE, NINE_MASKED) == pytest.approx(4)
    assert sse(NINE, groups=NINE_GROUPS) == pytest.approx(4)
    loss = information_loss(NINE, NINE_MASKED, standardize=False)
    assert (loss.sse, loss.sst) == (pytest.approx(4), pytest.approx(304))
    assert loss.ratio == pytest.approx(4 / 304) and loss.standardized is False


def test_standardized_information_loss_is_the_mean_of_column_ratios():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)) * [1, 100, 1e4]
    y = x + rng.normal(size=(50, 3)) * [0.1, 1, 10]
    loss = information_loss(x, y)
    per_column = [
        ((x[:, j] - y[:, j]) ** 2).sum() / ((x[:, j] - x[:, j].mean()) ** 2).sum() for j in range(3)
    ]
    assert loss.ratio == pytest.approx(np.mean(per_column))
    assert loss.sst == pytest.approx(3 * 49)  # z-scores: n - 1 per column
    raw = information_loss(x, y, standardize=False)
    assert raw.ratio == pytest.approx(per_column[2], rel=0.05)  # the large column dominates


def test_information_loss_edge_cases():
    const = np.ones((4, 1))
    assert information_loss(const, const).ratio == 0.0
    assert information_loss(const, const + 1, standardize=False).ratio == float("inf")


def test_il1s_by_hand_and_against_sdcmicro():
    x = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [6.0, 40.0]])
    y = np.array([[1.5, 10.0], [2.0, 25.0], [3.0, 20.0], [5.0, 40.0]])
    s = x.std(axis=0, ddof=1)
    expected = (np.abs(x - y) / (np.sqrt(2) * s)).sum() / x.size
    assert il1s(x, y) == pytest.approx(expected)
    # sdcMicro dUtility(method = "IL1"): |x - x'| / sd * sqrt(2), averaged over cells
    sdcmicro = (np.abs(x - y) / s * np.sqrt(2)).sum() / x.size
    assert sdcmicro == pytest.approx(2 * il1s(x, y))
    assert il1s(x, x) == 0.0


def test_il1s_rejects_a_constant_column():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [5.0, 5.0, 5.0]})
    with pytest.raises(InputError, match="'b' is constant"):
        il1s(x, x)


def test_moment_changes():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0]})
    y = pd.DataFrame({"a": [1.0, 2.0, 3.0, 6.0], "b": [2.0, 1.0, 4.0, 3.0]})
    means = mean_changes(x, y)
    assert isinstance(means, Change)
    assert means.absolute.to_dict() == {"a": 0.5, "b": 0.0}
    assert means.relative.to_dict() == {"a": 0.2, "b": 0.0}
    var = variance_changes(x, y)
    assert var.original["a"] == pytest.approx(5 / 3)
    assert var.masked["a"] == pytest.approx(np.var([1, 2, 3, 6], ddof=1))
    cov = covariance_changes(x, y)
    np.testing.assert_allclose(cov.masked.to_numpy(), np.cov(y.to_numpy(), rowvar=False))
    assert list(cov.absolute.columns) == ["a", "b"] and list(cov.absolute.index) == ["a", "b"]
    corr = correlation_changes(x, y)
    np.testing.assert_allclose(corr.original.to_numpy(), np.corrcoef(x.to_numpy(), rowvar=False))
    assert corr.max_absolute == pytest.approx(abs(np.corrcoef(y.T)[0, 1] - np.corrcoef(x.T)[0, 1]))


def test_relative_change_where_the_original_is_zero():
    x = np.array([[-1.0], [1.0]])
    change = mean_changes(x, x + 1)
    assert change.absolute.tolist() == [1.0]
    assert np.isnan(change.relative.iloc[0])  # 1 / |0|
    assert np.isnan(change.max_relative)
    assert mean_changes(x, x).relative.tolist() == [0.0]


def test_constant_column_correlation_is_nan():
    x = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 2.0]])
    corr = correlation_changes(x, x)
    assert np.isnan(corr.original.iloc[0, 1]) and corr.original.iloc[0, 0] == pytest.approx(1)


def test_utility_summary_on_a_dataframe():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [4.0, 1.0, 3.0, 2.0], "c": list("wxyz")})
    y = x.copy()
    y["a"] = [1.5, 1.5, 3.5, 3.5]
    summary = utility_summary(x, y, ["a", "b"])
    assert summary.columns == ["a", "b"] and summary.rows == 4
    assert summary.information_loss.ratio == pytest.approx(information_loss(x, y, ["a", "b"]).ratio)
    assert summary.il1s == pytest.approx(il1s(x, y, ["a", "b"]))
    assert summary.means.absolute.to_dict() == {"a": 0.0, "b": 0.0}
    assert list(summary.correlations.absolute.index) == ["a", "b"]
    d = summary.to_dict()
    assert d["columns"] == ["a", "b"] and d["means_max_absolute"] == 0.0
    assert set(d) >= {"sse", "sst", "information_loss", "il1s", "correlations_max_absolute"}


def test_utility_summary_s_il1s_leaves_a_constant_column_out():
    """A column constant in the original has no standard deviation to measure distances in:
    the summary's IL1s is that of the other columns (NaN when none varies), where ``il1s``
    itself refuses it."""
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0] * 4})
    y = pd.DataFrame({"a": [1.5, 1.5, 3.5, 3.5], "b": [1.0] * 4})
    assert utility_summary(x, y).il1s == pytest.approx(il1s(x, y, ["a"]))
    assert np.isnan(utility_summary(x, y, ["b"]).il1s)


def test_numeric_pair_inputs():
    x, y, names = numeric_pair([1, 2, 3], [1.0, 2.0, 4.0])
    assert x.shape == (3, 1) and names == [0]
    df = pd.DataFrame({"a": [1, 2]}, index=[5, 6])
    x, y, names = numeric_pair(df, df.reset_index(drop=True))  # rows by position
    assert names == ["a"]


@pytest.mark.parametrize(
    ("original", "masked", "kwargs", "match"),
    [
        (pd.DataFrame({"a": [1.0]}), np.array([1.0]), {}, "both be DataFrames"),
        (pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [1.0]}), {}, "2 rows"),
        (pd.DataFrame({"a": [1.0]}), pd.DataFrame({"b": [1.0]}), {}, "'a'"),
        (pd.DataFrame({"a": ["x"]}), pd.DataFrame({"a": ["x"]}), {}, "not numeric"),
        (pd.DataFrame({"a": [np.nan]}), pd.DataFrame({"a": [1.0]}), {}, "missing"),
        (pd.DataFrame({"a": [1.0]}), pd.DataFrame({"a": [1.0]}), {"columns": []}, "empty"),
        (np.ones((2, 2)), np.ones((2, 3)), {}, "shape"),
        (np.ones((2, 2)), np.ones((2, 2)), {"columns": ["a"]}, "DataFrame"),
        (np.array([1.0, np.inf]), np.ones(2), {}, "infinite"),
        (np.array(["a"]), np.ones(1), {}, "numeric"),
    ],
)
def test_bad_input(original, masked, kwargs, match):
    with pytest.raises(InputError, match=match):
        numeric_pair(original, masked, **kwargs)
    with pytest.raises(InputError, match=match):
        utility_summary(original, masked, **kwargs)


def test_sse_needs_exactly_one_of_masked_and_groups():
    with pytest.raises(InputError, match="exactly one"):
        sse(NINE)
    with pytest.raises(InputError, match="exactly one"):
        sse(NINE, NINE_MASKED, NINE_GROUPS)
    with pytest.raises(InputError, match="integer labels"):
        sse(NINE, groups=[0, 1])
    with pytest.raises(InputError, match="non-negative"):
        sse(NINE, groups=-NINE_GROUPS)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n),
            st.lists(st.integers(0, 4), min_size=n, max_size=n),
        )
    )
)
def test_sse_plus_ssa_is_sst(data):
    values, labels = data
    x = np.array(values)[:, None]
    lab = np.unique(labels, return_inverse=True)[1]
    counts = np.bincount(lab)
    means = (np.bincount(lab, weights=x[:, 0]) / counts)[lab][:, None]
    ssa = ((means - x.mean()) ** 2).sum()
    loss = information_loss(x, means, standardize=False)
    assert loss.sse + ssa == pytest.approx(loss.sst, rel=1e-9, abs=1e-6)
    assert sse(x, groups=lab) == pytest.approx(loss.sse, rel=1e-9, abs=1e-9)
