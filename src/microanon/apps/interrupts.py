"""Stopping a command: SIGTERM handled as Ctrl-C is, and waits that a signal can end.

A command stopped by SIGTERM (``kill``, ``timeout``, a scheduler ending a job) must leave what
Ctrl-C leaves: nothing. Python's default is to end the process at once, with no clean-up: the
hidden directory of a release being built (whose internal part holds original values) stayed
beside the output, and the second process of :mod:`.aside` ran on. :func:`sigterm_as_interrupt`
makes SIGTERM raise :class:`Terminated`, a :class:`KeyboardInterrupt`, in the main thread, so
that every block unwinds as for Ctrl-C.

Python runs a signal's handler in the main thread, between two of its instructions; a main
thread blocked in a wait without a timeout (``Future.result()``) may not run it until the wait
ends, when the signal reached another thread. :func:`wait_for` waits in short steps instead.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["TERMINATED_EXIT", "Terminated", "sigterm_as_interrupt", "wait_for"]

T = TypeVar("T")

#: The exit status of a command stopped by SIGTERM (128 + the signal's number, as shells use).
TERMINATED_EXIT = 128 + int(signal.SIGTERM)
#: How long a wait of :func:`wait_for` blocks at a time (seconds).
_STEP = 0.2


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread (a :class:`KeyboardInterrupt`: handled as Ctrl-C)."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[list[bool]]:
    """Within the block (in the main thread), SIGTERM raises :class:`Terminated`; yields a
    list that holds True once it did, so that the caller can exit with
    :data:`TERMINATED_EXIT`."""
    seen: list[bool] = []

    def handler(signum: int, frame: Any) -> None:
        seen.append(True)
        raise Terminated(f"stopped by signal {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)


def wait_for(future: Future[T]) -> T:
    """``future.result()``, waited for in steps of :data:`_STEP` seconds, so that a signal's
    handler runs in the waiting (main) thread within a step."""
    while True:
        try:
            return future.result(timeout=_STEP)
        except FutureTimeout:
            if future.done():  # (the work itself raised a timeout)
                return future.result()
