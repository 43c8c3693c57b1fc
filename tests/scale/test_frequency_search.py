"""The full-domain search on a frequency table (Table.counts) equals the search on the rows.

The hierarchies come from tests/lattice_strategies.py, shared with the in-memory tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import hierarchies

from microanon.core import Hierarchy, InfeasibleError, InputError, Schema, Table
from microanon.methods.generalize.full_domain import search
from microanon.models import KAnonymity, LDiversity, TCloseness
from microanon.scale.encode import local_counts, union_codes

METRICS = ("lm", "discernibility", "aecs", "precision", "entropy")


@st.composite
def problems(draw: st.DrawFn) -> dict:
    names = [f"q{i}" for i in range(draw(st.integers(2, 4)))]
    hs, doms = {}, {}
    for n in names:
        hs[n], doms[n] = draw(hierarchies(n))
    rows = draw(st.integers(1, 80))
    data = {
        n: draw(st.lists(st.sampled_from(doms[n]), min_size=rows, max_size=rows)) for n in names
    }
    sa_values = draw(st.sampled_from([["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]]))
    data["s"] = draw(st.lists(st.sampled_from(sa_values), min_size=rows, max_size=rows))
    model_pool = st.one_of(
        st.builds(KAnonymity, st.integers(1, 4)),
        st.builds(LDiversity, st.integers(1, 3), st.just("distinct")),
        st.builds(LDiversity, st.sampled_from([1, 1.5, 2, 2.5]), st.just("entropy")),
        st.builds(LDiversity, st.sampled_from([1, 1.5, 2]), st.just("frequency")),
        st.builds(LDiversity, st.integers(1, 3), st.just("recursive"), st.sampled_from([1, 2, 3])),
        st.builds(TCloseness, st.sampled_from([0.05, 0.2, 0.4, 0.7])),
    )
    spec = {n: {"role": "quasi", "kind": "categorical", "hierarchy": hs[n]} for n in names}
    spec["s"] = {"role": "sensitive", "kind": "categorical"}
    return {
        "df": pd.DataFrame(data),
        "schema": Schema.from_dict(spec),
        "models": draw(st.lists(model_pool, min_size=1, max_size=3)),
        "suppression": draw(st.sampled_from([0.0, 0.0, 0.1, 0.25, 0.5])),
        "mode": draw(st.sampled_from(["remove", "star"])),
    }


def frequency_table(table: Table) -> tuple[Table, np.ndarray]:
    """The table of distinct rows with their counts, and the distinct row of every row."""
    fr = table.frequencies()
    codes = {c: fr.combos[:, j] for j, c in enumerate(fr.columns)}
    dicts = {c: table.dictionary(c) for c in fr.columns}
    return Table.from_codes(codes, dicts, table.schema, counts=fr.counts), fr.inverse


def _search(table: Table, p: dict, metric: str):
    try:
        return search(table, p["models"], p["suppression"], metric, suppressed_rows=p["mode"])
    except InfeasibleError:
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_frequency_table_search_equals_row_search(p):
    rows = Table.from_frame(p["df"], p["schema"])
    freq, inverse = frequency_table(rows)
    assert freq.n_records == rows.n_rows and len(freq) <= len(rows)
    for metric in METRICS:
        a, b = _search(rows, p, metric), _search(freq, p, metric)
        assert (a is None) == (b is None), metric
        if a is None:
            continue
        assert b.levels == a.levels, metric
        assert b.metric_value == a.metric_value, metric
        assert b.suppressed == a.suppressed, metric
        # The mask is per distinct combination: the rows' mask is it, spread to the rows.
        np.testing.assert_array_equal(b.suppressed_mask[inverse], a.suppressed_mask)
        assert int(freq.counts[b.suppressed_mask].sum()) == a.suppressed


def test_counts_are_one_positive_integer_per_row():
    h = Hierarchy.from_nested({"*": ["x", "y"]}, name="a")
    schema = Schema.from_dict({"a": {"role": "quasi", "hierarchy": h}})
    table = Table.from_frame(pd.DataFrame({"a": ["x", "x"]}), schema)
    codes, dicts = {"a": np.array([0])}, {"a": table.dictionary("a")}
    assert Table.from_codes(codes, dicts, table.schema, counts=np.array([2])).n_records == 2
    assert Table.from_codes(codes, dicts, table.schema).n_records == 1
    for bad in (np.array([0]), np.array([1, 1]), np.array([1.5])):
        with pytest.raises(InputError, match="counts"):
            Table.from_codes(codes, dicts, table.schema, counts=bad)
    with pytest.raises(InputError, match="codes outside"):
        Table.from_codes({"a": np.array([3])}, dicts, table.schema)


@given(
    st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=40),
    st.lists(st.sampled_from(["a", "b", "c", "d", "unused"]), min_size=0, max_size=5),
)
@settings(deadline=None, max_examples=100)
def test_categorical_partitions_code_as_their_values(values, extra):
    """Parquet text arrives as categoricals: coded by its categories, only those that occur (and a
    missing value) are kept, and each record's code still points at its own value."""
    plain = pd.DataFrame({"x": pd.Series(values, dtype=object)})
    categories = sorted({v for v in values if v is not None} | set(extra))
    coded = pd.DataFrame({"x": pd.Categorical(values, categories=categories)})
    for frame in (plain, coded):
        uniques, combos, counts, inverse = local_counts(frame, ["x"], inverse=True)
        back = pd.Series(uniques["x"][combos["x"][inverse]])
        assert back.isna().tolist() == plain["x"].isna().tolist()
        assert back.dropna().tolist() == plain["x"].dropna().tolist()
        assert int(counts.sum()) == len(values)
        assert len(uniques["x"]) == plain["x"].nunique(dropna=False)
    values_, positions = union_codes(
        [np.asarray(["b", "a"], dtype=object), np.asarray(["a", "c"], dtype=object)]
    )
    assert values_.tolist() == ["b", "a", "c"]
    assert [p.tolist() for p in positions] == [[0, 1], [1, 2]]
