"""The public-metadata leak check matches the metadata's strings to the text of the values
(:func:`microanon.models.release_verify._texts_of`) without writing every value as text: the
same strings as writing them all (:func:`_text_values`), on random columns of every kind."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.models.release_verify import _text_values, _texts_of

VALUES = {
    "int": st.integers(-(2**62), 2**62),
    "float": st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-1000, 1000).map(float),
        st.sampled_from([1.5, 0.1, 1e16, 2.0**53 + 2]),
    ),
    "bool": st.booleans(),
    "text": st.text(max_size=4),
    "mixed": st.one_of(st.integers(-5, 5), st.text(max_size=2), st.none(), st.just(2.5)),
}


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(VALUES)).flatmap(
        lambda k: st.tuples(st.just(k), st.lists(VALUES[k], max_size=12))
    ),
    st.lists(
        st.sampled_from(["1.50", "1e3", "nan", "inf", "True", "2", "-0", "1.5", "?", ""]),
        max_size=4,
    ),
    st.booleans(),
)
def test_the_texts_found_are_those_of_every_value_written(column, noise, as_index):
    kind, items = column
    array = np.array(items, dtype=object if kind in ("mixed", "text") else None)
    values = pd.Index(array) if as_index else array
    every = _text_values(array)
    texts = set(list(every)[:3]) | set(noise)
    assert _texts_of(values, texts) == every & texts
