"""``microanon app``: serve the workbench with uvicorn and open it in the browser."""

from __future__ import annotations

import ipaddress
import sys
import threading
import webbrowser
from pathlib import Path

import uvicorn

from ...core.reading import ReadOptions
from .app import create_app
from .guard import LOOPBACK_HOSTS

__all__ = ["DEFAULT_PORT", "is_loopback", "serve"]

#: The port ``microanon app`` listens on unless told otherwise.
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine (``localhost``, 127.x, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    data: Path | None = None,
    read: ReadOptions | None = None,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    browser: bool = True,
) -> None:
    """Serve the workbench until interrupted.

    Parameters
    ----------
    data : path, optional
        A CSV or Parquet file to load at start (read, never written).
    read : ReadOptions, optional
        How to read it.
    host, port
        Where to listen; a host other than loopback prints a warning (the workbench shows the
        original data and its risk to whoever reaches it).
    browser : bool
        Open the workbench in the default browser.

    Raises
    ------
    InputError
        ``data`` does not parse.
    """
    preload = None if data is None else (Path(data), read or ReadOptions())
    app = create_app(preload=preload, hosts=LOOPBACK_HOSTS if is_loopback(host) else None)
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    if not is_loopback(host):
        print(
            f"WARNING: listening on {host}: anyone who reaches it sees your original data and its "
            "risk; the workbench is meant for 127.0.0.1",
            file=sys.stderr,
            flush=True,
        )
    print(f"microanon workbench on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
    if browser:  # once uvicorn has had time to bind; never keeps the process alive
        opener = threading.Timer(1.0, webbrowser.open, [url])
        opener.daemon = True
        opener.start()
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
