"""What the out-of-core tests share: a small threaded Dask cluster per test module, and a small
cluster of worker processes for the smoke tests that need real pickling and memory limits."""

from __future__ import annotations

import distributed
import pytest

from microanon.scale.client import local_cluster

#: Each worker process's memory limit: Dask pauses a worker at 80 % of it and restarts it at 95 %.
WORKER_MEMORY = "1GiB"


@pytest.fixture(scope="module")
def client():
    """A two-worker threaded local cluster (one thread each) and a client on it."""
    with (
        local_cluster(n_workers=2, threads_per_worker=1, processes=False) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def process_cluster():
    """Two worker processes (one thread each, :data:`WORKER_MEMORY` each), as ``microanon``
    starts them itself (:func:`microanon.scale.client.local_cluster`): every task, its
    arguments and its results cross a process boundary, so whatever cannot be pickled, or needs
    more memory than a worker has, fails here and not only on a user's cluster."""
    with local_cluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=WORKER_MEMORY,
    ) as cluster:
        yield cluster
