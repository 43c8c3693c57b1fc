"""The group-level API the anonymization methods use: weighted codes and per-group verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.core.table import combine_codes
from microanon.models import Groups, KAnonymity, LDiversity, TCloseness

MODELS = [
    KAnonymity(2),
    LDiversity(2, "distinct"),
    LDiversity(1.5, "entropy"),
    LDiversity(2, "frequency"),
    LDiversity(2, "recursive", c=3),
    TCloseness(0.3, "equal"),
    TCloseness(0.3, "ordered"),
]


@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=40
    )
)
@settings(max_examples=80, deadline=None)
def test_frequency_table_groups_like_the_rows_it_summarizes(rows):
    df = pd.DataFrame(rows, columns=["a", "b", "s"])
    expanded = Groups.from_codes(
        ["a", "b"],
        [df.a.to_numpy(), df.b.to_numpy()],
        [3, 3],
        sensitive="s",
        sa_codes=df.s.to_numpy(),
        values=range(4),
        numeric=True,
    )
    combos, counts, _, _ = combine_codes(
        [df.a.to_numpy(), df.b.to_numpy(), df.s.to_numpy()], [3, 3, 4]
    )
    weighted = Groups.from_codes(
        ["a", "b"],
        [combos[:, 0], combos[:, 1]],
        [3, 3],
        sensitive="s",
        sa_codes=combos[:, 2],
        values=range(4),
        numeric=True,
        weights=counts,
    )
    assert np.array_equal(expanded.sizes, weighted.sizes)
    assert np.array_equal(expanded.pair_count, weighted.pair_count)
    assert weighted.n_rows == len(df)
    for model in MODELS:
        assert np.array_equal(model.group_ok(expanded), model.group_ok(weighted)), model
        # group_ok agrees with the DataFrame check's offending groups
        try:
            verdict = model.check(df, ["a", "b"], "s")
        except InputError:  # k above the row count, l above the number of values
            continue
        assert verdict.holds == bool(model.group_ok(weighted).all())
        assert len(verdict.offending) == int((~model.group_ok(weighted)).sum())


def test_reference_distribution_drives_t_closeness():
    # one group holding only value 0; against its own table it is at distance 0 ...
    g = Groups.from_codes(
        ["q"], [np.zeros(4, int)], [1], sensitive="s", sa_codes=np.zeros(4, int), values=["x", "y"]
    )
    assert TCloseness(0.1, "equal").group_ok(g).tolist() == [True]
    # ... against an original table that was half x, half y it is at distance 0.5
    g = Groups.from_codes(
        ["q"],
        [np.zeros(4, int)],
        [1],
        sensitive="s",
        sa_codes=np.zeros(4, int),
        values=["x", "y"],
        reference=np.array([5, 5]),
    )
    assert TCloseness(0.1, "equal").group_ok(g).tolist() == [False]
    assert g.keys.columns.tolist() == ["q"]


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4)), min_size=1, max_size=60),
    st.lists(st.integers(0, 6), min_size=5, max_size=5),
)
@settings(max_examples=80, deadline=None)
def test_sorted_pairs_are_grouped_as_their_codes(rows, reference):
    # Distinct (class, sensitive code) pairs in order, as a frequency set holds them: taken as
    # they are, they give the Groups that grouping their codes gives (domain, pairs, verdicts).
    df = pd.DataFrame(rows, columns=["c", "s"])
    pairs = df.value_counts().sort_index()
    cls, _ = pd.factorize(pairs.index.get_level_values("c"), sort=True)
    sa = pairs.index.get_level_values("s").to_numpy()
    counts = pairs.to_numpy()
    sizes = np.bincount(cls, weights=counts).astype(np.int64)
    ref = np.array(reference) + np.bincount(df.s, minlength=5)
    ref[np.array(reference) == 0] = 0  # some values absent from the reference ...
    for reference_counts in (ref, np.bincount(df.s, minlength=5)):  # ... or from everything
        common = dict(sensitive="s", values=[10, 20, 30, 40, 50], numeric=True)
        grouped = Groups.from_codes(
            ["class"],
            [cls],
            [len(sizes)],
            sa_codes=sa,
            weights=counts,
            reference=reference_counts,
            **common,
        )
        taken = Groups.from_sorted_pairs(
            cls, sa, counts, sizes, reference=reference_counts, **common
        )
        assert list(taken.values) == list(grouped.values)
        for name in ("sizes", "pair_group", "pair_value", "pair_count", "starts", "value_counts"):
            assert np.array_equal(getattr(taken, name), getattr(grouped, name)), name
        for model in MODELS:
            assert np.array_equal(model.group_ok(taken), model.group_ok(grouped)), model
