"""Log-linear model risk (Skinner & Shlomo; sdcMicro's modRisk, formerly LLmodGlobalRisk)."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.measures import loglinear_risk
from microanon.measures.loglinear import _design, _poisson_irls

DATA = Path(__file__).resolve().parents[1] / "data"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def test_anchor_agrees_with_sdcmicro() -> None:
    survey = pd.read_csv(DATA / "survey_synthetic.csv")
    meta = json.loads((DATA / "sdcmicro_survey.json").read_text())
    assert "formulaM = ~urbrur + roof" in meta["calls"]["modRisk"]
    r = loglinear_risk(survey, KEYS, "weight", missing="drop")
    assert r.records == 4000 - 143  # the records with a missing key are left out
    assert r.global_risk1 == pytest.approx(meta["modRisk_gr1"], rel=1e-9)
    assert r.global_risk2 == pytest.approx(meta["modRisk_gr2"], rel=1e-9)
    assert r.tau1 == pytest.approx(r.global_risk1 * len(r.cells), rel=1e-14)
    i = loglinear_risk(survey, KEYS, "weight", interactions=[("urbrur", "roof")], missing="drop")
    assert "urbrur:roof" in meta["calls"]["modRisk_interaction"]
    assert i.global_risk1 == pytest.approx(meta["modRisk_interaction_gr1"], rel=1e-9)
    assert i.global_risk2 == pytest.approx(meta["modRisk_interaction_gr2"], rel=1e-9)


def test_worked_example() -> None:
    # keys a (x, x, x, y) and b (1, 2, 2, 2), weights 4, 2, 2, 5. Main effects: λ = n p_a p_b,
    # n = 4: cell (x,1): 4 · 3/4 · 1/4 = 0.75, (x,2): 4 · 3/4 · 3/4 = 2.25, (y,2): 0.75.
    # Sample uniques: (x,1) with π = 1/4, v = 0.75 · 0.75; (y,2) with π = 1/5, v = 0.8 · 0.75.
    d = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": [1, 2, 2, 2], "w": [4, 2, 2, 5.0]})
    r = loglinear_risk(d, ["a", "b"], "w")
    v1, v2 = 0.75 * 0.75, 0.8 * 0.75
    assert r.tau1 == pytest.approx(math.exp(-v1) + math.exp(-v2), rel=1e-14)
    assert r.tau2 == pytest.approx((1 - math.exp(-v1)) / v1 + (1 - math.exp(-v2)) / v2, rel=1e-14)
    assert r.global_risk1 == pytest.approx(r.tau1 / 3, rel=1e-14)
    assert r.cells.to_dict("list") == {
        "a": ["x", "x", "y"],
        "b": [1, 2, 2],
        "count": [1, 2, 1],
        "inclusion": [0.25, 1.0, 0.2],
        "fitted": [0.75, 2.25, 0.75],
    }


def test_a_large_cell_of_small_weights_raises_no_warning() -> None:
    """A cell of many records with weights near 1 has 1 - π far below 0: its exp would
    overflow, and the command would print NumPy's warning. Only the sample uniques' risks are
    computed; the measures are those of the worked example's rule."""
    d = pd.DataFrame({"a": ["x"] * 2000 + ["y"], "w": [1.01] * 2000 + [4.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = loglinear_risk(d, ["a"], "w")
    v = (1 - 0.25) * 1.0  # the unique (y): π = 1/4, λ = n · p_y = 1
    assert r.tau1 == pytest.approx(math.exp(-v), rel=1e-14)
    assert r.tau2 == pytest.approx((1 - math.exp(-v)) / v, rel=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1)), min_size=2))
def test_irls_main_effects_equal_the_closed_form(rows: list[tuple[int, int, int]]) -> None:
    codes = np.array(rows)
    levels = [int(codes[:, j].max()) + 1 for j in range(3)]
    grid = np.array(list(itertools.product(*(range(v) for v in levels))))
    y = np.zeros(len(grid))
    np.add.at(y, np.ravel_multi_index(codes.T, levels), 1)
    mu = _poisson_irls(_design(grid, levels, []), y)
    n = len(rows)
    closed = np.full(len(grid), float(n))
    for j in range(3):
        closed *= np.bincount(codes[:, j], minlength=levels[j])[grid[:, j]] / n
    np.testing.assert_allclose(mu, closed, rtol=1e-7, atol=1e-9)


def test_saturated_interaction_fits_the_counts() -> None:
    # with the a:b interaction the two-key model is saturated: fitted = observed counts
    d = pd.DataFrame({"a": [0, 0, 1, 1, 1, 2], "b": [0, 1, 1, 1, 0, 0], "w": 3.0})
    r = loglinear_risk(d, ["a", "b"], "w", interactions=[("a", "b")])
    np.testing.assert_allclose(r.cells["fitted"], r.cells["count"], rtol=1e-8)


def test_bad_input() -> None:
    d = pd.DataFrame({"a": [1, None, 2], "b": [1, 1, 2], "w": [2.0, 2.0, 2.0]})
    with pytest.raises(InputError, match=r"key column 'a' has 1 missing.*'drop'"):
        loglinear_risk(d, ["a", "b"], "w")
    with pytest.raises(InputError, match="weight column 'v' not found"):
        loglinear_risk(d, ["a", "b"], "v", missing="drop")
    with pytest.raises(InputError, match="two different keys"):
        loglinear_risk(d, ["a", "b"], "w", interactions=[("a", "a")], missing="drop")
    with pytest.raises(InputError, match="pair of key names"):
        loglinear_risk(d, ["a", "b"], "w", interactions=["ab"], missing="drop")
    with pytest.raises(InputError, match="more than once"):
        loglinear_risk(d, ["a", "b"], "w", interactions=[("a", "b"), ("b", "a")], missing="drop")
    e = pd.DataFrame({"a": [1, None], "b": [None, 1], "w": [1.0, 1.0]})
    with pytest.raises(InputError, match="every record has a missing key"):
        loglinear_risk(e, ["a", "b"], "w", missing="drop")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 3), st.sampled_from([1.0, 2.5, 40.0])),
        min_size=2,
        max_size=60,
    ),
    st.booleans(),
)
def test_a_frequency_table_gives_the_risk_of_its_records(
    rows: list[tuple[int, int, float]], interaction: bool
) -> None:
    """Given ``counts``, a frequency table of distinct rows (keys and weight) is modelled as the
    records it summarizes: the same cells, fitted means and τ."""
    d = pd.DataFrame(rows, columns=["a", "b", "w"])
    if d["a"].nunique() < 2 or d["b"].nunique() < 2:
        d.loc[0, "a"], d.loc[1, "a"], d.loc[0, "b"], d.loc[1, "b"] = 0, 1, 0, 1
    grouped = d.groupby(["a", "b", "w"], sort=False).size()
    table, counts = grouped.index.to_frame(index=False), grouped.to_numpy()
    pairs = [("a", "b")] if interaction else []
    by_rows = loglinear_risk(d, ["a", "b"], "w", interactions=pairs)
    by_table = loglinear_risk(table, ["a", "b"], "w", interactions=pairs, counts=counts)
    for name in ("tau1", "tau2", "global_risk1", "global_risk2"):
        assert getattr(by_table, name) == pytest.approx(getattr(by_rows, name), rel=1e-9, abs=1e-12)
    assert by_table.records == by_rows.records
    cells = ["a", "b", "count"]
    got = by_table.cells.sort_values(["a", "b"]).reset_index(drop=True)
    want = by_rows.cells.sort_values(["a", "b"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got[cells], want[cells])
    np.testing.assert_allclose(got["inclusion"], want["inclusion"], rtol=1e-12)
    np.testing.assert_allclose(got["fitted"], want["fitted"], rtol=1e-9)
