"""Groups: factorization of any DataFrame into equivalence classes."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InputError
from microanon.models import Groups, k_anonymity, l_diversity, t_closeness


def _partition(groups: Groups) -> set[frozenset[int]]:
    """Rows (by position) of every group."""
    return {
        frozenset(np.flatnonzero(groups.row_group == g).tolist()) for g in range(groups.n_groups)
    }


def _reference_partition(df: pd.DataFrame, cols: list[str]) -> set[frozenset[int]]:
    out: dict[tuple, set[int]] = {}
    for i, row in enumerate(df[cols].itertuples(index=False)):
        out.setdefault(tuple(row), set()).add(i)
    return {frozenset(v) for v in out.values()}


def test_any_dtype_and_index() -> None:
    df = pd.DataFrame(
        {
            "age": ["[20, 30)", "[20, 30)", "*", "*", "[20, 30)"],
            "mixed": [1, "1", 2.5, 2.5, 1],  # object column: 1 and "1" differ
            "flag": [True, True, False, False, True],
            "when": pd.to_datetime(["2020-01-01"] * 2 + ["2021-01-01"] * 2 + ["2020-01-01"]),
            "s": ["x", "y", "x", "x", "z"],
        },
        index=["r", "r", "r", "q", "q"],
    )
    g = Groups.from_frame(df, ["age", "mixed", "flag", "when"], "s")
    assert g.n_rows == 5 and g.n_groups == 3
    assert g.sizes.sum() == 5
    assert _partition(g) == _reference_partition(df, ["age", "mixed", "flag", "when"])
    # keys keep the values and dtypes of the table
    assert g.keys.dtypes.to_dict() == df[["age", "mixed", "flag", "when"]].dtypes.to_dict()
    first = g.keys.iloc[g.row_group[0]].tolist()
    assert first == df.iloc[0][["age", "mixed", "flag", "when"]].tolist()
    # pairs: group of rows 0 and 4 (same QIs) has s = x, z
    g0 = g.row_group[0]
    lo = g.starts[g0]
    assert g.n_distinct[g0] == 2 and g.max_count[g0] == 1
    assert set(g.values[g.pair_value[lo : lo + 2]]) == {"x", "z"}
    assert g.value_counts.tolist() == [3, 1, 1]


def test_index_is_irrelevant() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 3, 50), "b": rng.choice(["u", "v"], 50)})
    shuffled = df.set_axis(rng.integers(0, 5, 50))
    a = Groups.from_frame(df, ["a", "b"])
    b = Groups.from_frame(shuffled, ["a", "b"])
    np.testing.assert_array_equal(a.row_group, b.row_group)
    pd.testing.assert_frame_equal(a.keys, b.keys)


def test_overflowing_radix_falls_back_to_unique_rows() -> None:
    # 20 columns of 12 distinct values each: 12**20 > 2**63, so codes cannot be packed.
    rng = np.random.default_rng(1)
    base = pd.DataFrame({f"c{j}": rng.permutation(12) for j in range(20)})
    df = pd.concat([base, base.iloc[:5], base.iloc[:2]], ignore_index=True)
    cols = list(df.columns)
    g = Groups.from_frame(df, cols)
    assert g.n_groups == 12
    assert sorted(g.sizes.tolist()) == [1] * 7 + [2] * 3 + [3] * 2
    assert _partition(g) == _reference_partition(df, cols)
    assert k_anonymity(df, cols).value == 1
    # the same rows in fewer columns use the packed path and agree
    packed = Groups.from_frame(df, cols[:3])
    assert _partition(packed) == _partition(g)


def test_single_column_and_column_types() -> None:
    df = pd.DataFrame({0: [1, 1, 2], "x": ["a", "b", "a"]})
    g = Groups.from_frame(df, 0, "x")  # non-string column name, one name instead of a list
    assert g.quasi == (0,) and g.n_groups == 2
    assert g.numeric is False
    assert Groups.from_frame(df, "x", 0).numeric is True


def test_missing_quasi_identifier_values_are_rejected() -> None:
    df = pd.DataFrame({"q": ["a", "b", "c", "d"], "s": ["x", "y", "z", "w"]})
    df.loc[[1, 3], "q"] = None
    with pytest.raises(InputError, match=r"column 'q' has 2 missing value\(s\)"):
        Groups.from_frame(df, "q", "s")


def test_missing_sensitive_values_are_unknown() -> None:
    df = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", None, None, None]})
    g = Groups.from_frame(df, "q", "s")
    assert list(g.unknown) == [1, 2] and g.unknown_records == 3
    view, positions = g.known_view()
    assert list(positions) == [0] and list(view.sizes) == [1] and list(view.values) == ["x"]
    df.loc[0, "s"] = None  # no known value at all: no group discloses one
    g = Groups.from_frame(df, "q", "s")
    assert g.n_values == 0 and g.known_view()[0].n_groups == 0
    assert l_diversity(g, None, None, l=2).holds and l_diversity(g, None, None).value == math.inf
    assert t_closeness(g, None, None, t=0.1).holds


def test_missing_values_in_unused_columns_are_fine() -> None:
    df = pd.DataFrame({"q": ["a", "a"], "s": ["x", "y"], "other": [None, 1.0]})
    assert Groups.from_frame(df, "q", "s").n_groups == 1


def test_unhashable_values() -> None:
    df = pd.DataFrame({"q": [[1], [2]], "s": ["x", "y"]})
    with pytest.raises(InputError, match="column 'q' holds unhashable values"):
        Groups.from_frame(df, "q", "s")


def test_column_lists_of_any_kind() -> None:
    df = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "x"], "s": [3, 4, 3]})
    expected = k_anonymity(df, ["a", "b"]).to_dict()
    for quasi in (("a", "b"), pd.Index(["a", "b"]), np.array(["a", "b"]), (c for c in "ab")):
        assert k_anonymity(df, quasi).to_dict() == expected


def test_verdicts_of_datetime_keys_are_json_ready() -> None:
    df = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-01", "2021-06-01"]),
                       "s": ["x", "y", "x"]})  # fmt: skip
    v = t_closeness(df, "d", "s", t=0, order=np.array(["y", "x"]))
    assert json.loads(json.dumps(v.to_dict()))["offending"][0]["d"].startswith("2021-06-01")
