"""The public part of every configurable method on random tables (hypothesis).

Every registered method (:func:`microanon.methods.registry.methods`) is run as
``microanon anonymize`` runs it;
either it refuses in one line and writes nothing, or no byte of ``public/`` holds an original
value absent from the published data or the generator's seed or state (see
``release_contract.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from release_contract import CASES, check

from microanon.methods.registry import methods
from microanon.methods.steps import STEPS_METHOD


def test_every_configurable_method_has_a_case():
    assert set(CASES) == {*methods(), STEPS_METHOD}


@pytest.mark.parametrize("method", sorted(CASES))
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # a failure is reported as found, not shrunk
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(12, 40),
    cards=st.tuples(st.integers(2, 6), st.integers(2, 4), st.integers(2, 5), st.integers(2, 4)),
    fmt=st.sampled_from(["csv", "parquet"]),
)
def test_public_part_holds_nothing_the_method_did_not_protect(
    tmp_path_factory, method, seed, n, cards, fmt
):
    check(tmp_path_factory.mktemp(method), method, seed, n, cards, fmt)
