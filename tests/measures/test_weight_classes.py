"""A sampling weight counted by class and sums (:mod:`microanon.measures.weight_classes`) gives the
survey risk measures what the weights of the records give them: the same refusal of a bad
weight (its kind and records) and, for usable ones, the same sums, on random weight columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.apps.release_frequencies import Combinations
from microanon.core.errors import InputError
from microanon.measures.keys import check_weights
from microanon.measures.weight_classes import (
    INVERSE,
    REFUSED,
    TOTAL,
    USABLE,
    stand_ins,
    weight_classes,
)

BAD = [np.nan, np.inf, 0.0, -2.0, 0.25]


@st.composite
def weighted(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    w = np.round(rng.uniform(1, 50, n), 2)
    for value in draw(st.lists(st.sampled_from(BAD), max_size=3)):
        w[rng.integers(0, n)] = value
    return pd.DataFrame({"a": rng.integers(0, 3, n), "w": w})


def _refusal(frame: pd.DataFrame, counts: np.ndarray) -> str | None:
    try:
        check_weights(frame, "w", counts)
    except InputError as exc:
        return str(exc)
    return None


@settings(max_examples=80, deadline=None)
@given(weighted())
def test_classes_and_sums_stand_for_the_records_weights(data):
    records = Combinations.of(data, ["a", "w"])
    known = records.values["w"].notna().to_numpy()
    # Counted by class: the combinations of the key and the class, with the usable sums.
    classes, sums = weight_classes(data["w"])
    frame = data.assign(w=classes, total=sums[TOTAL], inverse=sums[INVERSE])
    table = frame.groupby(["a", "w"], sort=False).agg(
        n=("a", "size"), total=("total", "sum"), inverse=("inverse", "sum")
    )
    table = table.reset_index()
    counts = table["n"].to_numpy()
    table["w"] = stand_ins(table["w"].to_numpy(), counts, table["total"].to_numpy()).to_numpy()
    by_class = Combinations(table[["a", "w"]], counts, table["inverse"].to_numpy())
    kept = by_class.values["w"].notna().to_numpy()
    assert by_class.counts[~kept].sum() == records.counts[~known].sum()  # left out: no weight
    values, kept_counts, inverse = by_class.rows(kept)
    expected = _refusal(records.values.loc[known], records.counts[known])
    assert _refusal(values, kept_counts) == expected
    if expected is None and kept.any():
        got = Combinations(values, kept_counts, inverse).key_weights(["a"], "w", "h")
        want = Combinations(*records.rows(known)[:2]).key_weights(["a"], "w", "h")
        assert list(got.values["a"]) == list(want.values["a"])
        np.testing.assert_array_equal(got.counts, want.counts)
        assert got.values["w"].to_numpy() == pytest.approx(want.values["w"].to_numpy())
        assert got.values["h"].to_numpy() == pytest.approx(want.values["h"].to_numpy())


def test_a_text_weight_is_refused_as_not_numeric():
    classes, sums = weight_classes(pd.Series(["12.5", None, "?"], dtype=object))
    shown = stand_ins(classes, np.ones(3, dtype=np.int64), sums[TOTAL])
    with pytest.raises(InputError, match="is not numeric"):
        check_weights(pd.DataFrame({"w": shown}), "w")
    assert pd.isna(shown[1])


@settings(max_examples=100, deadline=None)
@given(weighted(), st.booleans(), st.booleans())
def test_classes_and_sums_are_those_of_each_condition(data, holes, integers):
    """Each record's class and sums, whether every weight is usable (the usual survey, taken
    at once) or not, are those of the conditions checked one by one."""
    w = data["w"].to_numpy()
    column = pd.Series(np.floor(w) if integers and np.isfinite(w).all() else w)
    missing = np.arange(len(w)) % 3 == 0 if holes else None
    classes, sums = weight_classes(column, missing)
    v = column.to_numpy(dtype=float)
    checked = [np.isnan(v), np.isinf(v), v <= 0, v < 1]  # (REFUSED's order)
    expected = np.select(checked, list(REFUSED), default=USABLE)
    if missing is not None:
        expected = np.where(missing, next(iter(REFUSED)), expected)  # (missing: the first)
    usable = expected == USABLE
    assert classes.tolist() == expected.tolist()
    np.testing.assert_array_equal(sums[TOTAL], np.where(usable, v, 0.0))
    np.testing.assert_array_equal(
        sums[INVERSE], np.divide(1.0, v, out=np.zeros(len(v)), where=usable)
    )
