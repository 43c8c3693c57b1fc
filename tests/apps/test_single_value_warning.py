"""The warning on quasi-identifiers that hold one value in every published row speaks of one
column as "it" and of several as "them"."""

from __future__ import annotations

import pandas as pd

from microanon.apps.release_summary import warnings_of
from microanon.methods.generalize import full_domain

NO_ACTIONS = pd.DataFrame(columns=["column", "role", "done"])


def _warning(frame: pd.DataFrame) -> str:
    schema = {c: {"role": "quasi", "hierarchy": {"builder": "masking"}} for c in frame.columns}
    release = full_domain(frame, schema, models={"k_anonymity": {"k": 2}})
    (found,) = [w for w in warnings_of(release, NO_ACTIONS, {}) if "one value" in w]
    return found


def test_one_column_is_it_and_several_are_them():
    varied = ["p", "q", "p", "q", "p", "q"]
    one = _warning(pd.DataFrame({"a": ["x"] * 6, "c": varied}))
    assert one == (
        "1 of 2 quasi-identifiers holds one value in every published row (a = x): the release "
        "shows no record with another value of it (there are none at that level)"
    )
    two = _warning(pd.DataFrame({"a": ["x"] * 6, "b": ["y"] * 6, "c": varied}))
    assert two == (
        "2 of 3 quasi-identifiers hold one value in every published row (a = x; b = y): the "
        "release shows no record with another value of them (there are none at that level)"
    )
