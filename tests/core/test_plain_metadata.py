"""``plain_metadata``: what a release's metadata becomes, by its plain definition.

The function keeps flat lists of plain scalars (a hierarchy's label paths, thousands of them
for a numeric column) without a call per value; the answers must be those of the definition
applied value by value: JSON types, a non-finite float as its text, NumPy values as Python
ones, and the same refusals (a seed's key, a random generator, an object it cannot store).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core.errors import InputError
from microanon.core.release import plain_metadata


def _definition(obj: Any) -> Any:
    """Value by value, as ``plain_metadata``'s docstring describes it."""
    if isinstance(obj, Mapping):
        return {str(k): _definition(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_definition(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _definition(obj.tolist())
    if isinstance(obj, np.generic):
        return _definition(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj


def _same(a: Any, b: Any) -> bool:
    """Equal, with the types kept (``1`` is not ``1.0`` nor ``True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


scalars = st.one_of(
    st.text(max_size=4),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True).map(np.float64),
    st.integers(-1000, 1000).map(np.int64),
    st.booleans().map(np.bool_),
)
metadata = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "levels", "paths"]), inner, max_size=3),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4).map(np.array),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(metadata)
def test_plain_metadata_is_its_definition_value_by_value(obj: Any) -> None:
    assert _same(plain_metadata({"m": obj}), _definition({"m": obj}))


def test_a_numeric_hierarchy_s_paths_keep_their_values() -> None:
    paths = [[0.5, "[0, 1)", "*"], [float("inf"), "[1, inf)", "*"], [np.float64(2.5), "x", "*"]]
    assert plain_metadata({"paths": paths}) == {
        "paths": [[0.5, "[0, 1)", "*"], ["inf", "[1, inf)", "*"], [2.5, "x", "*"]]
    }


@pytest.mark.parametrize(
    "obj",
    [
        {"levels": [[1.0, "x"], [{"seed": 3}]]},
        {"paths": [[1.0, np.random.default_rng()]]},
        {"paths": [[1.0, object()]]},
        [[0.5, "a"], (object(),)],
    ],
)
def test_what_cannot_be_stored_is_refused_inside_a_list_of_paths(obj: Any) -> None:
    with pytest.raises(InputError):
        plain_metadata({"m": obj})
