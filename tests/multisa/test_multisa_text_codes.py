"""The multi-SA measures and report read a release's text columns on their codes: each distinct
value read as text once. Against the per-row conversions they replace (``str`` of every value,
``astype(str)``), on random columns (text, numbers, missing values, the mark ``*``) and on a
real Rating release, within a run's shared codes and outside."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.core.factorize import shared_codes
from microanon.measures.multisa import _coded_text, _text
from microanon.methods.multisa import rating

CELLS = st.one_of(
    st.sampled_from(["*", "a", "b", "1", "s#1", "s#2", ""]),
    st.integers(-2, 2),
    st.sampled_from([1.0, 2.5, True, None, np.nan]),
)


def _old_coded_text(values, what):
    """The codes and texts as counted before: ``str`` of every distinct value, factorized."""
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    if (codes < 0).any():
        raise InputError(f"{what}: {int(np.count_nonzero(codes < 0))} missing value(s)")
    texts, distinct = pd.factorize(np.asarray([str(v) for v in uniques], dtype=object))
    return texts[codes], np.asarray(distinct, dtype=object)


def _old_text(values, what):
    """The texts as made before: ``str`` of every row's value."""
    s = pd.Series(values, dtype=object)
    if s.isna().any():
        raise InputError(f"{what}: {int(s.isna().sum())} missing value(s)")
    return np.asarray([str(v) for v in s.tolist()], dtype=object)


@settings(max_examples=200, deadline=None)
@given(st.lists(CELLS, min_size=0, max_size=30), st.booleans(), st.booleans())
def test_coded_text_is_the_text_of_every_value(cells, text_only, shared):
    """The same codes and texts as ``str`` of every distinct value (two values of one text, 1
    and "1", one code), and the same refusal of a missing value."""
    if text_only:
        cells = [c for c in cells if isinstance(c, str)]
    column = pd.Series(cells, dtype=object)
    try:
        want = _old_coded_text(column, "c")
    except InputError as refused:
        with pytest.raises(InputError, match=re.escape(str(refused))):
            _coded_text(column, "c")
        return
    with shared_codes() if shared else _nothing():
        codes, texts = _coded_text(column, "c")
    assert codes.tolist() == want[0].tolist()
    assert texts.tolist() == want[1].tolist()
    assert all(type(t) is str for t in texts)


def test_the_text_codes_of_a_real_rating_release():
    """The GSS vocabulary file (carData's GSSvocab): Rating at l = 5 (some values of the score
    left out); its tables' codes and texts as counted before, within a run's codes."""
    from real_surveys import survey

    gss = survey("gss_vocab").dropna().head(4000).reset_index(drop=True)
    gss["vocab"] = gss["vocab"].astype(int).astype(str)
    schema = {"gender": "quasi", "nativeBorn": "quasi", "vocab": "sensitive"}
    schema |= {"educGroup": "sensitive", "ageGroup": "sensitive"}
    data = gss[list(schema)]
    with shared_codes():
        release = rating(data, schema, l=5, rng=3)
        for name in ("at", "idt"):
            for c in release.tables[name].columns:
                want = _old_coded_text(release.tables[name][c], c)
                codes, texts = _coded_text(release.tables[name][c], c)
                assert (codes.tolist(), texts.tolist()) == (want[0].tolist(), want[1].tolist())
    assert sum(release.metadata["multisa"]["unplaced"].values()) > 0


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@settings(max_examples=200, deadline=None)
@given(st.lists(CELLS, min_size=0, max_size=30), st.booleans(), st.booleans(), st.booleans())
def test_text_is_the_text_of_every_row(cells, text_only, shared, str_dtype):
    """The original's values as text (the disclosure measure's holders): the same texts, row
    by row, and the same refusal of a missing value; from an object column or pandas' str."""
    if text_only:
        cells = [c for c in cells if isinstance(c, str)]
    column = pd.Series(cells, dtype="str" if text_only and str_dtype else object)
    try:
        want = _old_text(column, "c")
    except InputError as refused:
        with pytest.raises(InputError, match=re.escape(str(refused))):
            _text(column, "c")
        return
    with shared_codes() if shared else _nothing():
        got = _text(column, "c")
    assert got.tolist() == want.tolist()
    assert all(type(t) is str for t in got)


def test_text_of_a_real_survey_s_columns():
    """GSSvocab's columns (text, numbers, missing values) as text, as before."""
    from real_surveys import survey

    gss = survey("gss_vocab").head(3000)
    for c in gss.columns:
        for column in (gss[c], gss[c].dropna()):
            try:
                want = _old_text(column, c)
            except InputError as refused:
                with pytest.raises(InputError, match=re.escape(str(refused))):
                    _text(column, c)
                continue
            with shared_codes():
                assert _text(column, c).tolist() == want.tolist()
