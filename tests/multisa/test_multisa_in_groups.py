"""Whether a SAC~ group shows a record's vector of values (per cluster of attributes), the
vectors numbered by packed codes and a hash pass, against the numbering by a sort of the rows
(``numpy.unique(axis=0)``) it replaces: on random groups and vectors (hypothesis) and through
the disclosure probabilities of mixed-model releases of real surveys."""

from __future__ import annotations

from types import SimpleNamespace
from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import microanon.measures.multisa as measures
from microanon.measures.multisa import disclosure_probabilities
from microanon.methods.multisa import mixed_model, strong_rules


def _old_in_groups(parts, group: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """As it was: the distinct vectors of the SAC and the records numbered by a sort."""
    ok = np.ones(len(group), dtype=bool)
    for c in np.unique(parts.cluster):
        cols = np.flatnonzero(parts.cluster == c)
        both = np.concatenate([parts.sac_codes[:, cols], codes[:, cols]])
        _, ids = np.unique(both, axis=0, return_inverse=True)
        ids = ids.reshape(-1)
        m = int(ids.max()) + 1
        shown = np.unique(parts.group * m + ids[: parts.n_sac])
        key = group * m + ids[parts.n_sac :]
        pos = np.minimum(np.searchsorted(shown, key), len(shown) - 1)
        ok &= shown[pos] == key
    return ok


@st.composite
def groups_and_records(draw):
    d = draw(st.integers(1, 4))
    cards = draw(st.lists(st.integers(1, 4), min_size=d, max_size=d))
    n_sac = draw(st.integers(1, 30))
    n_groups = draw(st.integers(1, max(1, n_sac)))
    sac = np.column_stack(
        [draw(st.lists(st.integers(0, k - 1), min_size=n_sac, max_size=n_sac)) for k in cards]
    )
    group = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n_sac, max_size=n_sac)))
    cluster = np.array(draw(st.lists(st.integers(0, d - 1), min_size=d, max_size=d)))
    n = draw(st.integers(0, 30))
    codes = np.column_stack(  # (-1: a value the release never shows)
        [draw(st.lists(st.integers(-1, k - 1), min_size=n, max_size=n)) for k in cards]
    ).reshape(n, d)
    asked = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    parts = SimpleNamespace(
        cluster=cluster,
        sac_codes=sac.reshape(n_sac, d).astype(np.int64),
        values=[pd.Index(range(k)) for k in cards],
        group=group.astype(np.int64),
        n_sac=n_sac,
    )
    return parts, asked.astype(np.int64), codes.astype(np.int64)


@settings(max_examples=300, deadline=None)
@given(groups_and_records())
def test_in_groups_numbered_by_a_hash_pass_is_as_by_a_sort(case):
    parts, group, codes = case
    assert measures._in_groups(parts, group, codes).tolist() == (
        _old_in_groups(parts, group, codes).tolist()
    )


def test_disclosure_probabilities_of_real_mixed_model_releases():
    """TV16 (CCES 2016) and GSSvocab: the mixed model's release and the probabilities of its
    strong rules' disclosure, as computed before."""
    from real_surveys import survey

    cases = [
        (survey("tv16"), ["state"], ["ideo", "religimp", "churchatd"], 0.6),
        (survey("gss_vocab"), ["gender", "nativeBorn"], ["vocab", "educGroup", "ageGroup"], 0.5),
    ]
    for data, quasi, sensitive, conf in cases:
        data = data[quasi + sensitive].dropna().head(3000).reset_index(drop=True)
        data[sensitive] = data[sensitive].astype(str)
        schema = dict.fromkeys(quasi, "quasi") | dict.fromkeys(sensitive, "sensitive")
        release = mixed_model(data, schema, l=2, min_confidence=conf, rng=4)
        assert len(release.tables["sac"])
        rules = strong_rules(data, sensitive, conf)
        new = disclosure_probabilities(release, data, rules)
        with mock.patch.object(measures, "_in_groups", _old_in_groups):
            old = disclosure_probabilities(release, data, rules)
        pd.testing.assert_frame_equal(new, old)
        assert (new["published"] == "sac").any()
