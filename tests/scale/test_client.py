"""The local Dask cluster a run starts serves nothing on the network: Dask starts an HTTP
server on its scheduler and on each worker even without a dashboard, by default on every
interface (the scheduler's on port 8787, with a warning on stderr when that port is taken);
microanon's listen on this machine only, on ports the system picks, with no page."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
import warnings

import pytest

from microanon.scale.client import dask_client


def _listening(server) -> list[tuple[str, int]]:
    return [s.getsockname()[:2] for s in server.http_server._sockets.values()]


def test_the_local_cluster_listens_on_this_machine_only_and_serves_no_page():
    taken = socket.socket()
    taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        taken.bind(("127.0.0.1", 8787))  # (another program's dashboard)
    except OSError:
        pass  # held already: all the better
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "Port 8787 is already in use" on stderr
            with dask_client() as client:
                cluster = client.cluster
                servers = [cluster.scheduler, *cluster.workers.values()]
                addresses = [a for server in servers for a in _listening(server)]
                assert addresses and {host for host, _ in addresses} == {"127.0.0.1"}
                assert 8787 not in {port for _, port in addresses}
                for _, port in addresses:
                    for page in ("health", "metrics", "info/main/workers.html"):
                        with pytest.raises(urllib.error.HTTPError) as answer:
                            urllib.request.urlopen(f"http://127.0.0.1:{port}/{page}", timeout=5)
                        assert answer.value.code == 404
    finally:
        taken.close()
