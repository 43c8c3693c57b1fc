"""Anatomy on random tables: every group is frequency ℓ-diverse, nothing is lost or invented."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from microanon.core.errors import InfeasibleError
from microanon.methods.generalize import anatomy
from microanon.models import l_diversity

SETTINGS = settings(max_examples=150, deadline=None)
SCHEMA = {
    "sex": "quasi",
    "age": {"role": "quasi", "kind": "numeric"},
    "city": "insensitive",
    "disease": "sensitive",
}


@st.composite
def tables(draw):
    n = draw(st.integers(1, 40))
    n_values = draw(st.integers(1, 8))
    col = st.lists
    values = [f"d{i}" for i in range(n_values)]
    # Half of the tables spread the values evenly (mostly eligible), half draw them freely.
    balanced = draw(st.permutations([values[i % n_values] for i in range(n)]))
    free = draw(col(st.sampled_from(values), min_size=n, max_size=n))
    return pd.DataFrame(
        {
            "sex": draw(col(st.sampled_from(["F", "M"]), min_size=n, max_size=n)),
            "age": draw(col(st.integers(18, 22), min_size=n, max_size=n)),
            "city": draw(col(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n)),
            "disease": balanced if draw(st.booleans()) else free,
        }
    )


@SETTINGS
@given(tables(), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_anatomy_properties(df, ell, seed):
    counts = Counter(df["disease"])
    eligible = max(counts.values()) * ell <= len(df)
    if not eligible:
        with pytest.raises(InfeasibleError):
            anatomy(df, SCHEMA, l=ell, rng=seed)
        return
    event("eligible")
    rel = anatomy(df, SCHEMA, l=ell, rng=seed)
    qit, stt = rel.tables["qit"], rel.tables["st"]
    n = len(df)
    # Every group is frequency l-diverse (the group id as quasi-identifier).
    expanded = stt.loc[stt.index.repeat(stt["count"]), ["group", "disease"]]
    assert l_diversity(expanded, ["group"], "disease", l=ell, form="frequency").holds
    # floor(n / l) groups with ids 1..g, sizes as equal as possible: l or l + 1 whenever the
    # residue n mod l is at most g (always unless n < l * (l - 1)).
    sizes = stt.groupby("group")["count"].sum()
    g = n // ell
    assert rel.metadata["groups"] == g == len(sizes)
    assert sorted(sizes.index) == list(range(1, g + 1))
    expected = Counter({n // g: g - n % g, n // g + 1: n % g})
    assert Counter(sizes.tolist()) == +expected  # unary + drops zero counts
    if n % ell <= g:
        assert set(sizes) <= {ell, ell + 1}
    assert (stt["count"] == 1).all()  # every group holds distinct sensitive values
    assert qit["group"].value_counts().sort_index().tolist() == sizes.tolist()
    # The QIT preserves the multiset of non-sensitive rows, the ST that of sensitive values.
    cols = ["sex", "age", "city"]
    assert Counter(map(tuple, qit[cols].astype(str).to_numpy().tolist())) == Counter(
        map(tuple, df[cols].astype(str).to_numpy().tolist())
    )
    assert Counter(expanded["disease"]) == counts
