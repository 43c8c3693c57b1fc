"""Which Dask cluster runs the work, and how its stages report progress.

A scheduler address comes from the ``scheduler`` argument or the ``MICROANON_SCHEDULER``
environment variable; without one, a :class:`distributed.LocalCluster` of threads of this
process is started for the run and closed after it. Each stage reports through
:class:`microanon.core.progress.Progress`: a bar when stderr is a terminal, otherwise one line
per stage with its elapsed seconds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..core.errors import InputError
from ..core.progress import ProgressLike, as_progress

__all__ = [
    "SCHEDULER_ENV",
    "WORKER_ENVIRON",
    "dask_client",
    "local_cluster",
    "run_stage",
    "wait_stage",
]

#: Environment variable naming the address of the Dask scheduler to use.
SCHEDULER_ENV = "MICROANON_SCHEDULER"

#: Environment of the worker processes of the local cluster, on top of Dask's
#: ``distributed.nanny.pre-spawn-environ``. Dask sets ``MALLOC_TRIM_THRESHOLD_`` there, which
#: turns off glibc's adaptive mmap threshold: every array above 128 KiB is then mapped and
#: unmapped afresh, and coding a partition of 250,000 records costs about twice the CPU. Arrays
#: below 32 MiB come from the heap again, and the heap is still trimmed as Dask wants.
WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": 32 * 2**20}


#: Where the local cluster's scheduler and workers listen for HTTP: this machine only, on a
#: port the system picks. Without a dashboard Dask still starts an HTTP server on each (its
#: health, metrics and information pages), by default on every interface, the scheduler's on
#: port 8787 (and a warning on stderr when another program holds that port).
LOCAL_HTTP = "127.0.0.1:0"


def local_cluster(**kwargs: Any) -> Any:
    """A :class:`distributed.LocalCluster` whose worker processes get :data:`WORKER_ENVIRON`,
    with no dashboard and no HTTP page served (their servers listen on :data:`LOCAL_HTTP`
    with no route).

    ``kwargs`` go to ``LocalCluster``. A cluster of your own (``dask worker`` processes) can
    set the same variable.
    """
    import dask
    from distributed import LocalCluster

    kwargs.setdefault("dashboard_address", None)
    kwargs.setdefault("scheduler_kwargs", {"dashboard_address": LOCAL_HTTP})
    kwargs.setdefault("worker_dashboard_address", LOCAL_HTTP)
    settings: dict[str, Any] = {
        f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()
    }
    settings["distributed.scheduler.http.routes"] = []
    settings["distributed.worker.http.routes"] = []
    with dask.config.set(settings):
        return LocalCluster(**kwargs)


@contextmanager
def dask_client(
    client: Any = None,
    scheduler: str | None = None,
    *,
    timeout: float = 5.0,
    processes: bool = False,
) -> Iterator[Any]:
    """The :class:`distributed.Client` of a run, closed after it if it was made here.

    Parameters
    ----------
    client : distributed.Client, optional
        Use this client (it is left open).
    scheduler : str, optional
        Address of a running scheduler (``"tcp://host:8786"``); default the environment
        variable ``MICROANON_SCHEDULER``; without either, a local cluster is started.
    timeout : float
        Seconds to wait for the scheduler to answer.
    processes : bool, default False
        Whether the local cluster's workers are processes; by default it is one worker of
        this process with a thread per core. The work of a stage is Arrow and NumPy code that
        releases the GIL, and the threads share the client's memory: no process to start, no
        table sent between processes (measured in ``docs/scale.md``). A cluster of
        processes is one ``dask scheduler`` and ``dask worker`` away (``scheduler=``).

    Raises
    ------
    InputError
        The scheduler cannot be reached (naming its address).
    """
    if client is not None:
        yield client
        return
    from distributed import Client

    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address:
        try:
            made = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise InputError(
                f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({exc})"
            ) from None
        try:
            yield made
        finally:
            made.close()
        return
    cluster = local_cluster(processes=processes)
    made = Client(cluster, set_as_default=False)
    try:
        yield made
    finally:
        made.close()
        cluster.close()


def run_stage(client: Any, stage: str, collections: Sequence[Any], progress: ProgressLike) -> list:
    """Compute dask collections together on ``client`` and report the stage.

    ``progress``: a :class:`~microanon.core.progress.Progress` (its command names the lines),
    or bars (True), nothing (False), ``"lines"``, or bars when stderr is a terminal and one
    line per stage with its elapsed seconds otherwise (None); see
    :func:`~microanon.core.progress.as_progress`.
    """
    return wait_stage(client, stage, client.compute(list(collections)), progress)


def wait_stage(client: Any, stage: str, futures: Sequence[Any], progress: ProgressLike) -> list:
    """Gather futures already submitted to ``client``, reporting the stage as :func:`run_stage`."""
    futures = list(futures)
    reporter = as_progress(progress)
    with reporter.stage(stage):
        if reporter.bar:
            from distributed import progress as show

            show(futures)
        return list(client.gather(futures))
