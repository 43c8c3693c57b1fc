"""What the out-of-core tests share: a small threaded Dask cluster per test module."""

from __future__ import annotations

import distributed
import pytest


@pytest.fixture(scope="module")
def client():
    """A two-worker threaded local cluster (one thread each) and a client on it."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c
