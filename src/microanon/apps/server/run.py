"""Running the collection service: in the foreground with uvicorn, or as a child process.

:func:`serve` is what ``microanon serve`` runs. :class:`ServiceProcess` starts ``microanon serve``
in a separate process (so that clients in the calling process do not share its interpreter) and
can kill and restart it; :func:`running_service` wraps it for a ``with`` block.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn
import yaml

from ...core.errors import MicroanonError
from .app import create_app
from .config import ServiceConfig

__all__ = ["ServiceProcess", "free_port", "running_service", "serve"]


def serve(config: ServiceConfig, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the collection until interrupted (the storage is opened before binding).

    uvicorn's own proxy-header handling is off: it would take any loopback client's
    ``X-Forwarded-For`` as its address. The application believes that header only from the
    survey's ``trusted_proxies`` (:func:`~.app.client_address`).
    """
    app = create_app(config)
    if config.token_generated:
        print(
            f"export token (made at start, not stored): {config.export_token}",
            file=sys.stderr,
            flush=True,
        )
    print(f"serving the collection on http://{host}:{port}", file=sys.stderr, flush=True)
    uvicorn.run(
        app, host=host, port=port, log_level="warning", access_log=False, proxy_headers=False
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class ServiceProcess:
    """``microanon serve`` in a child process.

    Parameters
    ----------
    config_file : path
        The survey file.
    host : str, default "127.0.0.1"
    port : int, optional
        A free port is chosen when not given; it stays the same across :meth:`restart`.
    """

    def __init__(
        self, config_file: str | os.PathLike[str], host: str = "127.0.0.1", port: int | None = None
    ) -> None:
        self.config_file = Path(config_file)
        self.host = host
        self.port = port or free_port(host)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL of the service."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 60.0) -> ServiceProcess:
        """Start the process and wait until it answers ``GET /health``."""
        cmd = [
            sys.executable, "-m", "microanon.apps.cli", "serve",
            "--config", str(self.config_file), "--host", self.host, "--port", str(self.port),
        ]  # fmt: skip
        # The server's messages go to a file, not a pipe: a pipe nobody reads would block the
        # server once full.
        log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                log.seek(0)
                err = log.read()[-4000:].decode(errors="replace")
                log.close()
                raise MicroanonError(f"the collection service did not start: {err.strip()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise MicroanonError(f"the collection service did not answer within {timeout} s")
            time.sleep(0.05)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (default SIGKILL: no shutdown at all) and wait for the process to end."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(30)

    def restart(self) -> ServiceProcess:
        """Start again on the same port (after :meth:`kill` or :meth:`stop`)."""
        return self.start()

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), or kill after 10 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


@contextmanager
def running_service(config: ServiceConfig, host: str = "127.0.0.1") -> Iterator[str]:
    """Run ``config``'s service in a child process on a free port; yields its base URL.

    The survey file the child reads is written to a private temporary directory and removed
    afterwards (it holds the export token).
    """
    with tempfile.TemporaryDirectory(prefix="microanon-survey-") as tmp:
        path = Path(tmp) / "survey.yaml"
        path.write_text(yaml.safe_dump(config.to_document(), sort_keys=False), encoding="utf-8")
        os.chmod(path, 0o600)
        with ServiceProcess(path, host) as proc:
            yield proc.url
