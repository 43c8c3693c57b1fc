"""Requests the workbench refuses before any route sees them: other sites' pages.

A page of another site open in the same browser can send requests to a server on 127.0.0.1.
Two checks keep it out: the ``Host`` header must name this machine, or one of the names the
workbench was told it is reached by (a site that made its own name resolve to the workbench's
address, "DNS rebinding", sends its own name), and a request that changes something must come
from the workbench's own pages (its ``Origin``, when the browser sends one, is the address the
request went to). Both checks are always on.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers

__all__ = ["LOOPBACK_HOSTS", "LocalOnly"]

#: The names of this machine a browser sends in ``Host``.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _hostname(netloc: str) -> str:
    return (urlsplit(f"//{netloc}").hostname or "").lower()


class LocalOnly:
    """ASGI middleware: 403 for a foreign ``Host``, or a change requested from another origin.

    Parameters
    ----------
    app : ASGI application
    hosts : collection of str
        The host names allowed in ``Host``.
    """

    def __init__(self, app: Any, hosts: Collection[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Pass the request on, or answer 403."""
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            host = headers.get("host", "")
            problem = None
            if _hostname(host) not in self.hosts:
                problem = (
                    f"host {host!r} is not this machine: open the workbench at its own address"
                )
            origin = headers.get("origin")
            if problem is None and origin and scope["method"] not in _SAFE_METHODS:
                if urlsplit(origin).netloc.lower() != host.lower():
                    problem = f"a page of {origin} may not change the workbench"
            if problem is not None:
                body = json.dumps({"error": problem, "field": None}).encode("utf-8")
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
