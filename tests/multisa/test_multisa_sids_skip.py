"""Improved Rating's SID creation skips ahead over repeated states: the same SIDs as the paper's
round-by-round Algorithm 19 (kept here as the reference), on random bucket sizes (hypothesis,
small and large, with dangerous buckets and without) and on the sensitive columns of real
surveys, as they are and scaled up to many rounds."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microanon.methods.multisa.sids as sids_module
from microanon.methods.multisa import create_sids


def _round_by_round(order: np.ndarray, sizes: np.ndarray, ell: int) -> list[list[int]]:
    """Algorithm 19 one SID at a time, as it was implemented before the skipping."""
    n = int(sizes.sum())
    n_sdb = int(np.count_nonzero(sizes[order] * ell >= n))
    sdb = order[:n_sdb].tolist()
    seq = order[n_sdb:].tolist()
    key = (-sizes[seq]).tolist()
    need = ell - n_sdb
    rounds = int(sizes[sdb].min()) if sdb else n
    sids: list[list[int]] = []
    while len(sids) < rounds and (need == 0 or (need <= len(key) and key[need - 1] < 0)):
        sids.append(sdb + seq[:need])
        for i in range(need):
            key[i] += 1
        sids_module._resort(seq, key, need)
    return sids


def _same_sids(sizes, ell: int) -> None:
    new = create_sids(sizes, ell)
    with mock.patch.object(sids_module, "_improved", _round_by_round):
        old = create_sids(sizes, ell)
    assert new.n_sids == old.n_sids
    for field in ("sid", "bucket", "suppressed"):
        assert np.array_equal(getattr(new, field), getattr(old, field)), field


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=0, max_size=12),
    st.integers(2, 6),
    st.sampled_from([1, 7, 1000]),
)
def test_skipping_gives_the_sids_round_by_round(sizes, ell, scale):
    """Random bucket sizes (empty buckets, ties, dangerous buckets), scaled up so that the
    states repeat over many rounds."""
    _same_sids(np.asarray(sizes, dtype=np.int64) * scale, ell)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=10), st.integers(2, 4))
def test_skipping_with_ties_and_near_ties(sizes, ell):
    """Sizes a few apart and many equal, times a large and an odd factor: the band of
    rotating buckets meets the others after some skips."""
    base = np.asarray(sizes, dtype=np.int64)
    _same_sids(base * 997 + np.arange(len(base)) % 2, ell)


@pytest.mark.parametrize("scale", [1, 25])
def test_skipping_on_real_survey_columns(scale):
    """Every sensitive candidate of TV16 (CCES 2016) and GSSvocab, its value counts as Rating's
    buckets (in order of first appearance), at l = 2 to 4, and 25 times as many records."""
    from real_surveys import survey

    tv16 = survey("tv16")
    gss = survey("gss_vocab")
    columns = [tv16[c] for c in ("votetrump", "ideo", "religimp", "churchatd", "state")]
    columns += [gss[c] for c in ("vocab", "educGroup", "ageGroup")]
    for column in columns:
        sizes = column.dropna().value_counts(sort=False).to_numpy().astype(np.int64) * scale
        for ell in (2, 3, 4):
            _same_sids(sizes, ell)
