"""``microanon app``: serve the workbench with uvicorn and open it in the browser."""

from __future__ import annotations

import ipaddress
import re
import sys
import threading
import webbrowser
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from ...core.errors import InputError
from ...core.reading import ReadOptions
from .app import create_app
from .guard import LOOPBACK_HOSTS

__all__ = ["DEFAULT_PORT", "allowed_hosts", "is_loopback", "serve"]

#: The port ``microanon app`` listens on unless told otherwise.
DEFAULT_PORT = 8765
_LABEL = r"[a-z0-9]([a-z0-9-]*[a-z0-9])?"
#: A host name: dot-separated labels of letters, digits and inner hyphens.
_HOST_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine (``localhost``, 127.x, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, allow: Sequence[str] = ()) -> list[str]:
    """The names a request's ``Host`` may give besides this machine's loopback names: the
    ``--allow-host`` names, checked and lower-cased.

    Parameters
    ----------
    host : str
        The address the workbench listens on.
    allow : sequence of str
        The names and addresses it is reached by besides loopback (``--allow-host``).

    Raises
    ------
    InputError
        A name that is neither a host name nor an IP address; a ``host`` other than loopback
        without any ``allow`` (every request would be refused, and a check that lets any name
        through lets other sites' pages in by DNS rebinding).
    """
    names = [_checked(str(name)) for name in allow]
    if not names and not is_loopback(host):
        raise InputError(
            f"--host {host}: not a loopback address; give the names or addresses the workbench "
            "is reached by with --allow-host NAME (repeatable): requests naming any other host "
            "are refused"
        )
    return names


def _checked(name: str) -> str:
    """An ``--allow-host`` name lower-cased (an IP address in its usual form), or raise."""
    name = name.strip().lower()
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    if not _HOST_NAME.fullmatch(name):
        raise InputError(
            f"--allow-host {name!r}: give a host name or an IP address (no scheme, port, "
            "brackets or wildcard)"
        )
    return name


def _url(host: str, port: int) -> str:
    return f"http://{host if ':' not in host else f'[{host}]'}:{port}/"


def serve(
    data: Path | None = None,
    read: ReadOptions | None = None,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    browser: bool = True,
    allow: Sequence[str] = (),
) -> None:
    """Serve the workbench until interrupted.

    Parameters
    ----------
    data : path, optional
        A CSV, Parquet, Feather, SPSS, Stata, SAS or Excel file to load at start (read, never
        written).
    read : ReadOptions, optional
        How to read it.
    host, port
        Where to listen; a host other than loopback prints a warning (the workbench shows the
        original data and its risk to whoever reaches it) and needs ``allow``.
    browser : bool
        Open the workbench in the default browser.
    allow : sequence of str
        Host names (or addresses) requests may give in ``Host`` besides this machine's loopback
        names (see :func:`allowed_hosts`).

    Raises
    ------
    InputError
        A bad ``allow`` name or a non-loopback ``host`` without one (before anything is
        read); ``data`` does not parse.
    """
    names = allowed_hosts(host, allow)
    preload = None if data is None else (Path(data), read or ReadOptions())
    app = create_app(preload=preload, hosts=[*names, *LOOPBACK_HOSTS])
    for gone in app.state.workbench.removed:
        print(
            f"removed {gone}: the work directory of a workbench that was stopped without closing",
            file=sys.stderr,
            flush=True,
        )
    url = _url(host if is_loopback(host) else names[0], port)
    if not is_loopback(host):
        print(
            f"WARNING: listening on {host}: anyone who reaches it sees your original data and its "
            f"risk (requests must name {', '.join(names)}); the workbench is meant "
            "for 127.0.0.1",
            file=sys.stderr,
            flush=True,
        )
    print(f"microanon workbench on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
    if browser:  # once uvicorn has had time to bind; never keeps the process alive
        opener = threading.Timer(1.0, webbrowser.open, [url])
        opener.daemon = True
        opener.start()
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
