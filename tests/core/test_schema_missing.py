"""Missing-value policies on columns that are not published."""

from __future__ import annotations

import pytest

from microanon.core.errors import SchemaError
from microanon.core.schema import Schema


@pytest.mark.parametrize("role", ["identifier", "household"])
@pytest.mark.parametrize("policy", ["drop", "error", "value"])
def test_a_policy_on_a_column_that_is_not_published_is_refused(role, policy):
    """``missing: drop`` on an identifier left no row out and ``error`` refused nothing (a run
    counted 1,320 entering rows where the owner expected 808): such a policy is refused, naming
    the column; ``keep``, which does nothing either way, is accepted."""
    with pytest.raises(SchemaError, match=f"column 'id': missing: {policy} would have no effect"):
        Schema.from_dict({"id": {"role": role, "missing": policy}, "age": "quasi"})
    Schema.from_dict({"id": {"role": role, "missing": "keep"}, "age": "quasi"})
