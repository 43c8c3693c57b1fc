"""A second process for the reports' own work, so that a command uses two cores.

The reports of a run draw figures (importing matplotlib and rendering take about a second,
more than the whole method on most survey files) and, when a release warns, search the
closest configurations (one lattice search each). Within :func:`working_aside`, on a machine
with a core to spare, :func:`aside` hands such work to one worker process started when the
block begins: it prepares itself (imports, a first figure) while the command reads, lints,
anonymizes, writes and verifies, and then works beside it. Without the worker, :func:`aside`
does the work at once, in this process; the answers are the same either way, and a worker
that dies leaves its work to this process. :func:`ahead` hands the worker work whose answer
may not be needed (never done in this process), and :func:`give_up` tells it to stop such
work, which asks :func:`given_up` as it goes.

The worker is started as :mod:`multiprocessing` starts a process afresh ("spawn"), which
imports the main module of the program again: ``microanon``'s command line enters
:func:`working_aside`, and a script that does keeps its own work under
``if __name__ == "__main__":``. What is sent is pickled: module-level functions and plain data.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

from .collector import importing, own_process
from .interrupts import wait_for

__all__ = [
    "Aside",
    "ahead",
    "aside",
    "give_up",
    "given_up",
    "idle",
    "shared",
    "working",
    "working_aside",
]

T = TypeVar("T")

_WORKER: ContextVar[ProcessPoolExecutor | None] = ContextVar("aside_worker", default=None)
#: The work handed to the worker (its preparation first), for :func:`idle`.
_HANDED: ContextVar[list[Future[Any]] | None] = ContextVar("aside_handed", default=None)
#: The worker's flag of work given up (:func:`give_up`), set by this process, read by the worker.
_GIVE_UP: ContextVar[Any] = ContextVar("aside_give_up", default=None)
#: In the worker: the same flag (None in the command's process).
_GIVEN_UP: Any = None


class Aside(Generic[T]):
    """The answer of ``function(*args)``, worked out by the worker or already here;
    :meth:`result` waits for it."""

    def __init__(self, function: Callable[..., T], args: tuple[Any, ...]) -> None:
        self._function = function
        self._args = args
        self._future: Future[T] | None = None
        worker = _WORKER.get()
        if worker is not None:
            try:
                self._future = _handed(worker.submit(function, *args))
                return
            except BrokenProcessPool:
                pass
        self._answer = function(*args)

    @property
    def ready(self) -> bool:
        """Whether :meth:`result` would answer without waiting."""
        return self._future is None or self._future.done()

    @property
    def pending(self) -> bool:
        """Whether the worker has the work (its answer is taken by :meth:`result`)."""
        return self._future is not None

    def result(self) -> T:
        """The answer (worked out here if the worker died); the function's error is raised
        here as it would be in this process."""
        if self._future is not None:
            try:
                self._answer = wait_for(self._future)
            except BrokenProcessPool:
                self._answer = self._function(*self._args)
            self._future = None
        return self._answer


def aside(function: Callable[..., T], *args: Any) -> Aside[T]:
    """``function(*args)``: by the worker of :func:`working_aside` if one runs, else now."""
    return Aside(function, args)


def working() -> bool:
    """Whether a worker of :func:`working_aside` runs for this block."""
    return _WORKER.get() is not None


def idle() -> bool:
    """Whether a worker of :func:`working_aside` runs and has ended every work handed to it,
    its preparation included: work handed now starts at once, rather than behind work whose
    answer is awaited sooner."""
    handed = _HANDED.get()
    return _WORKER.get() is not None and handed is not None and all(f.done() for f in list(handed))


def _handed(future: Future[T]) -> Future[T]:
    """``future``, of work just handed to the worker, kept for :func:`idle`."""
    handed = _HANDED.get()
    if handed is not None:  # (one list for the block's threads: appended to, never replaced)
        handed.append(future)
    return future


def ahead(function: Callable[..., T], *args: Any) -> Future[T] | None:
    """``function(*args)`` handed to the worker of :func:`working_aside` before anyone knows
    whether its answer will be needed (None when no worker runs: such work is not done here).

    ``function`` asks :func:`given_up` as it goes and stops soon after :func:`give_up`, so that
    the work queued behind it is not kept waiting.
    """
    worker = _WORKER.get()
    if worker is None:
        return None
    try:
        return _handed(worker.submit(function, *args))
    except BrokenProcessPool:
        return None


def give_up() -> None:
    """Tell the worker that the work handed :func:`ahead` is no longer needed: for the rest of
    the block (the flag is not cleared), so that work handed ahead later stops at once and is
    done here if it is needed."""
    flag = _GIVE_UP.get()
    if flag is not None:
        flag.set()


def given_up() -> bool:
    """In the worker: whether the command gave up the work handed :func:`ahead`."""
    return _GIVEN_UP is not None and bool(_GIVEN_UP.is_set())


def _given_up_by(flag: Any) -> None:
    """How the worker starts: it keeps the command's flag of work given up, in a process of
    ours (see :mod:`.collector`)."""
    global _GIVEN_UP
    _GIVEN_UP = flag
    own_process()


def _prepared(prepare: Callable[[], None]) -> None:
    """The worker's first work: ``prepare``, the garbage collector paused while it imports
    (see :mod:`.collector`)."""
    with importing():
        prepare()


#: Seconds of this process's own tasks, on average, under which :func:`shared` does the
#: worker's last task here rather than wait for it: a worker importing a function's modules
#: for the first time takes longer than a short task.
SHORT = 0.25


def shared(function: Callable[..., T], tasks: Sequence[tuple[Any, ...]]) -> list[T]:
    """``[function(*task) for task in tasks]``, the tasks shared with the worker of
    :func:`working_aside` if one runs.

    This process takes them from the front, one at a time, and the worker from the back while
    two or more are left, the next one each time it has finished, so that neither waits while
    tasks of unknown length remain. When this process is done and the worker is not, and this
    process's tasks took less than :data:`SHORT` seconds each, it does the worker's last task
    itself (the worker's answer, the same, is left).
    """
    answers: dict[int, T] = {}
    front, back = 0, len(tasks) - 1
    handed: tuple[int, Aside[T]] | None = None
    started = time.perf_counter()
    while front <= back:
        if _WORKER.get() is not None and back > front and (handed is None or handed[1].ready):
            if handed is not None:
                answers[handed[0]] = handed[1].result()
            handed = (back, aside(function, *tasks[back]))
            back -= 1
            continue
        answers[front] = function(*tasks[front])
        front += 1
    if handed is not None:
        index, answer = handed
        short = front and (time.perf_counter() - started) / front < SHORT
        answers[index] = function(*tasks[index]) if short and not answer.ready else answer.result()
    return [answers[i] for i in range(len(tasks))]


def _spare_cores() -> float:
    """The cores this process may use, less those other work keeps busy: the load average of
    the last minute, or, when fewer, the other threads running now (:func:`_running_now`);
    none on a single core.

    The load average lags: after one command and then another it still counts the first one's
    cores for a minute, although nothing else runs when the second begins. The threads running
    now tell that apart from work that goes on beside the command (a test suite on every core
    keeps both high)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    if cores < 2:  # the command's own core is the only one
        return 0.0
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here (Windows)
        load = 0.0
    running = _running_now()
    return cores - (load if running is None else min(load, running))


def _running_now() -> int | None:
    """The threads running or ready to run now besides this one, from Linux's
    ``/proc/loadavg`` (its fourth field counts this thread too); None elsewhere."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            running = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(running - 1, 0)


#: Spare cores (:func:`_spare_cores`) from which :func:`working_aside` starts a worker: on two
#: cores, a load average below 1.5 or at most one other thread running (an idle machine, one
#: command after another, one job beside the command), not commands or tests on every core.
SPARE = 0.5


#: The environment variable that, set to ``0``, keeps every command in one process (for
#: commands run side by side on every core, where the load average catches up too late).
ENVIRONMENT = "MICROANON_ASIDE"


@contextmanager
def working_aside(prepare: Callable[[], None] | None = None) -> Iterator[bool]:
    """Within the block, :func:`aside` hands work to one worker process, started here, when the
    machine has a core to spare (:data:`SPARE`), the environment does not say otherwise
    (:data:`ENVIRONMENT`) and a process can be started; yields whether it does.

    Parameters
    ----------
    prepare : callable, optional
        A module-level function the worker runs first (e.g. importing what it will need).

    The worker is stopped when the block ends, its work given up: take every answer needed
    within the block.
    """
    if os.environ.get(ENVIRONMENT) == "0" or _spare_cores() < SPARE or _WORKER.get() is not None:
        yield False
        return
    context = multiprocessing.get_context("spawn")
    try:  # spawn: a fresh interpreter (forking a process that runs threads is not safe)
        flag = context.Event()
        worker = ProcessPoolExecutor(
            1, mp_context=context, initializer=_given_up_by, initargs=(flag,)
        )
        prepared = worker.submit(_prepared, prepare or _nothing)  # (starts the process now)
        _yield_to_command(worker)
    except OSError:  # no process can be started here (e.g. no shared memory for its locks)
        yield False
        return
    token = _WORKER.set(worker)
    flag_token = _GIVE_UP.set(flag)
    handed_token = _HANDED.set([prepared])
    try:
        yield True
    finally:
        _HANDED.reset(handed_token)
        _GIVE_UP.reset(flag_token)
        _WORKER.reset(token)
        _stop(worker)


#: How much nicer than the command the worker runs (added to its scheduling priority, as
#: ``nice`` adds): its work is done ahead of need.
NICENESS = 10


def _yield_to_command(worker: ProcessPoolExecutor) -> None:
    """Lower the worker's scheduling priority by :data:`NICENESS`, where the system allows it.

    Whatever the worker does (its imports, a figure, a search that may not be needed) is
    wanted only later, while the command's own threads (reading with two threads, writing,
    verifying beside the reports) are what the user waits for: on a machine of two cores, the
    worker's start competing with them made a run of 10^6 records about 0.1 s slower. A
    niced worker still gets every core the command leaves idle.
    """
    if not hasattr(os, "setpriority"):  # pragma: no cover - not Unix
        return
    for process in list(worker._processes.values()):
        try:
            os.setpriority(
                os.PRIO_PROCESS, process.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS
            )
        except OSError:  # pragma: no cover - e.g. a sandbox that refuses it: same answers
            pass


def _stop(worker: ProcessPoolExecutor) -> None:
    """Stop the worker now, whatever it is doing: the work the block asked for has been taken
    by then (a report is rendered before the block ends), and a command that fails must not
    wait for the worker's imports. The executor's own thread is then joined, so that nothing
    of it is left for the interpreter's exit (where Python 3.11 may write to its closed pipe).
    (The executor's processes: Python before 3.14 has no public way to end them.)"""
    for process in list(worker._processes.values()):
        process.terminate()
    worker.shutdown(wait=True, cancel_futures=True)


def _nothing() -> None:
    """A first work that does nothing (it starts the process)."""
