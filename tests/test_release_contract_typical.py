"""The public-part contract on one typical table, on which every configurable method publishes.

Beyond the scans of ``test_release_contract.py``, each run is repeated with another identifier
column (other values, another number of them): nothing public may change, so nothing public is
computed on a column the release does not publish.
"""

from __future__ import annotations

import pytest
from release_contract import CASES, check


@pytest.mark.parametrize("method", sorted(CASES))
def test_each_method_publishes_on_a_typical_table(tmp_path, method):
    """One table of 60 rows on which every method publishes (the contract is not vacuous)."""
    published = check(tmp_path, method, 7, 60, (3, 2, 4, 2), rerun=True)
    assert published, f"{method} refused a typical table"
