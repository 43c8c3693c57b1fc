"""Progress of a long run on stderr: a bar on a terminal, one line per stage elsewhere.

A :class:`Progress` reports the stages of one command (``microanon demo``, ``reproduce``,
``anonymize``, a Dask run, ...) in one of four modes:

- ``"bar"``: tqdm bars; the stages of a run with a known number of stages are one bar;
- ``"lines"``: one line per finished stage with its elapsed seconds, for logs and pipes, e.g.
  ``microanon demo: [3/12] SDC masking ... done in 2.4 s``;
- ``"off"``: nothing (the command line's ``--quiet``);
- ``"auto"``: ``"bar"`` when stderr is a terminal, else ``"lines"``.

A stage done in steps of a known number of units (records placed by Mondrian, lattice nodes of
the full-domain search) is counted with :meth:`Progress.count`: the methods draw no bars of
their own.

The functions that take ``progress=`` accept a :class:`Progress` (used as it is, so that nested
steps share its numbering), a mode, or a bool: ``True`` bars, ``False`` nothing, ``None`` auto
(see :func:`as_progress`). Everything goes to stderr; stdout stays the command's result.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager, nullcontext
from typing import Any, TextIO, TypeVar, Union

from .errors import InputError

__all__ = ["LINE_INTERVAL", "MODES", "Count", "Progress", "ProgressLike", "Stage", "as_progress"]

#: The modes of a :class:`Progress`.
MODES = ("auto", "bar", "lines", "off")

#: Seconds between two lines of a counted stage (:meth:`Progress.count`) in ``"lines"`` mode.
LINE_INTERVAL = 10.0

T = TypeVar("T")

#: What a ``progress=`` argument accepts.
ProgressLike = Union["Progress", bool, str, None]


class Stage:
    """A running stage of a :class:`Progress`; its ``name`` may change until it ends.

    Attributes
    ----------
    name : str
        What the stage's line says it did.
    started : float
        :func:`time.perf_counter` when it began.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Seconds since the stage began."""
        return time.perf_counter() - self.started

    def took(self, seconds: float) -> None:
        """Count the stage as ``seconds`` long from now on: work made beside another stage and
        reported after it, with its own seconds rather than those spent waiting for it."""
        self.started = time.perf_counter() - seconds


class Count:
    """The units done so far in a counted stage of a :class:`Progress` (:meth:`Progress.count`).

    Parameters
    ----------
    progress : Progress
        Whose stage it is.
    name : str
        The stage's name.
    total : int or None
        Units to do, when known.
    bar : tqdm bar, optional
        The stage's bar (``"bar"`` mode).

    Attributes
    ----------
    n : int
        Units done so far.
    """

    def __init__(self, progress: Progress, name: str, total: int | None, bar: Any = None) -> None:
        self.n = 0
        self._progress = progress
        self._name = name
        self._total = total
        self._bar = bar
        self._started = self._said_at = time.perf_counter()

    def advance(self, units: int = 1) -> None:
        """Count ``units`` more done: the bar moves, or in ``"lines"`` mode a line tells the count
        when :data:`LINE_INTERVAL` seconds have passed since the last."""
        self.n += units
        if self._bar is not None:
            self._bar.update(units)
        elif self._progress.mode == "lines":
            now = time.perf_counter()
            if now - self._said_at >= LINE_INTERVAL:
                of = "" if self._total is None else f"/{self._total:,}"
                seconds = now - self._started
                self._progress.note(f"{self._name}: {self.n:,}{of} after {seconds:.1f} s")
                self._said_at = now


class Progress:
    """The progress reporter of one run.

    Parameters
    ----------
    command : str
        What runs, after ``microanon`` in each line (``"demo"``, ``"reproduce multisa"``); empty
        for a library call (lines then begin ``microanon:``).
    mode : {"auto", "bar", "lines", "off"}
        See the module's description; ``"auto"`` is resolved here, from the stream.
    total : int, optional
        The number of stages, when known: lines are numbered ``[i/total]`` and a terminal shows
        one bar for the run.
    stream : file, optional
        Where lines go (default: ``sys.stderr`` when each line is written).

    Raises
    ------
    InputError
        An unknown mode or a negative total.
    """

    def __init__(
        self,
        command: str = "",
        mode: str = "auto",
        *,
        total: int | None = None,
        stream: TextIO | None = None,
    ) -> None:
        if mode not in MODES:
            raise InputError(f"progress must be one of {', '.join(MODES)}, got {mode!r}")
        if total is not None and total < 0:
            raise InputError(f"progress total must be at least 0, got {total}")
        self.command = command
        self.total = total
        self._stream = stream
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "lines"
        self.mode = mode
        self.done = 0
        #: Seconds of each finished stage, by the name it began with (in order).
        self.seconds: dict[str, float] = {}
        self._bar: Any = None
        self._searched_at = 0.0
        self._said_at = time.perf_counter()  # when the last line was written

    @property
    def stream(self) -> TextIO:
        """Where the lines go."""
        return self._stream if self._stream is not None else sys.stderr

    @property
    def bar(self) -> bool:
        """Whether progress shows as bars (what to pass as ``progress`` to a method)."""
        return self.mode == "bar"

    @property
    def prefix(self) -> str:
        """``microanon COMMAND:``, the beginning of every line."""
        return f"microanon {self.command}:" if self.command else "microanon:"

    def __repr__(self) -> str:
        total = "" if self.total is None else f", {self.done}/{self.total} stages"
        return f"<Progress {self.command or 'microanon'} ({self.mode}{total})>"

    def _counter(self) -> str:
        return "" if self.total is None else f"[{self.done + 1}/{self.total}] "

    def line(self, text: str) -> None:
        """Write ``microanon COMMAND: text`` on its own line (``"lines"`` and ``"bar"`` modes)."""
        if self.mode == "off":
            return
        self._said_at = time.perf_counter()
        if self._bar is not None:
            self._bar.write(f"{self.prefix} {text}", file=self.stream)
            return
        print(f"{self.prefix} {text}", file=self.stream, flush=True)

    @contextmanager
    def stage(self, name: str, *, beat: bool = False) -> Iterator[Stage]:
        """Report one stage of the run: the ``with`` block's work.

        ``"lines"``: one line when the block ends without an error (an error is the command's
        own message); with ``beat``, also a line saying how long it has run whenever
        :data:`LINE_INTERVAL` seconds pass without a line (a search's lines of its progress
        are enough).
        ``"bar"``: with a total, the run's bar shows the stage and advances after it; without
        one, a line names the stage before it starts (a Dask stage shows its own bar). Yields
        the :class:`Stage`, whose ``name`` the block may refine.
        """
        stage = Stage(name)
        if self.mode == "bar":
            if self.total is None:
                self.line(name)
            else:
                self._open_bar().set_postfix_str(name, refresh=True)
        began = stage.name
        try:
            with self._beating(stage) if beat else nullcontext():
                yield stage
        except BaseException:
            self.close()
            raise
        self.seconds[began] = round(stage.seconds, 3)
        if self.mode == "lines":
            self.line(f"{self._counter()}{stage.name} ... done in {stage.seconds:.1f} s")
        self.done += 1
        if self._bar is not None:
            self._bar.update(1)
            if self.done >= (self.total or 0):
                self.close()

    @contextmanager
    def _beating(self, stage: Stage) -> Iterator[None]:
        """In ``"lines"`` mode, a line every :data:`LINE_INTERVAL` seconds until the block
        ends, from a thread of its own."""
        if self.mode != "lines":
            yield
            return
        ended = threading.Event()
        counter = self._counter()

        def beat() -> None:
            # (a little later than a search's own lines, which come every interval too)
            while not ended.wait(1.1 * LINE_INTERVAL):
                if time.perf_counter() - self._said_at >= LINE_INTERVAL:  # (nothing else said)
                    self.line(f"{counter}{stage.name}: running for {stage.seconds:.0f} s")

        thread = threading.Thread(target=beat, name="microanon-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            ended.set()
            thread.join()

    def note(self, text: str) -> None:
        """A step inside the current stage: the bar's label, or a line of its own."""
        if self.mode == "bar" and self._bar is not None:
            self._bar.set_postfix_str(text, refresh=True)
        elif self.mode == "lines":
            self.line(f"{self._counter()}{text}")

    def stop_requested(self) -> bool:
        """Whether a heuristic search should stop now and keep its best node (never, here;
        the workbench's runs have a stop button)."""
        return False

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        """A heuristic search's progress: the bar's label (at most twice a second) or, in
        ``"lines"`` mode, a line every :data:`LINE_INTERVAL` seconds."""
        interval = LINE_INTERVAL if self.mode == "lines" else 0.5
        if seconds - self._searched_at < interval or self.mode == "off":
            return
        self._searched_at = seconds
        found = "none feasible yet" if best is None else f"best value so far {best:.6g}"
        self.note(f"search: {nodes:,} nodes checked in {seconds:.0f} s, {found}")

    def iterate(self, items: Iterable[T], name: str) -> Iterator[T]:
        """``items``, reported as one stage named ``name`` with a count (see :meth:`count`)."""
        with self.count(name, len(items) if isinstance(items, Sized) else None) as done:
            for item in items:
                yield item
                done.advance()

    @contextmanager
    def count(self, name: str, total: int | None = None, unit: str = "it") -> Iterator[Count]:
        """Report one stage named ``name`` whose ``with`` block does ``total`` units in steps.

        The block advances the yielded :class:`Count` by the units each step did. ``"bar"``: a
        bar of its own, counting ``unit``. ``"lines"``: a line every :data:`LINE_INTERVAL`
        seconds with the count so far, and the stage's line at the end. ``"off"``: nothing.

        Examples
        --------
        >>> with Progress(mode="off").count("records", total=10, unit="rec") as done:
        ...     done.advance(4)
        ...     done.advance(6)
        >>> done.n
        10
        """
        if self.mode == "bar":
            from tqdm import tqdm

            with tqdm(total=total, desc=name, unit=unit, file=self.stream) as bar:
                yield Count(self, name, total, bar)
            self.done += 1
            return
        with self.stage(name) as stage:
            done = Count(self, name, total)
            yield done
            stage.name = f"{name}: {done.n:,}"

    def _open_bar(self) -> Any:
        if self._bar is None:
            from tqdm import tqdm

            desc = f"microanon {self.command}".strip()
            self._bar = tqdm(
                total=self.total, desc=desc, initial=self.done, unit="stage", file=self.stream
            )
        return self._bar

    def close(self) -> None:
        """Close the run's bar, if one is open (lines need nothing)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _isatty(stream: Any) -> bool:
    """Whether ``stream`` is a terminal a bar can be drawn on: one that reports no width (a
    pseudo-terminal of 0 columns, as ``script`` makes in CI) shows no bar, so it gets lines."""
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, ValueError, OSError):  # no descriptor: a terminal by its word
        return True


def as_progress(progress: ProgressLike, command: str = "", total: int | None = None) -> Progress:
    """The :class:`Progress` of a ``progress=`` argument.

    Parameters
    ----------
    progress : Progress, bool, str or None
        A :class:`Progress` is returned as it is: its owner named the command and counted the
        stages, and nested steps share its numbering. Otherwise a new one: ``True`` bars,
        ``False`` nothing, ``None`` auto, or a mode of :data:`MODES`.
    command, total
        Of a new :class:`Progress`.

    Raises
    ------
    InputError
        Another value.
    """
    if isinstance(progress, Progress):
        return progress
    if progress is None:
        mode = "auto"
    elif isinstance(progress, bool):
        mode = "bar" if progress else "off"
    elif isinstance(progress, str):
        mode = progress
    else:
        raise InputError(
            f"progress must be a bool, None, one of {', '.join(MODES)} or a Progress, "
            f"got {type(progress).__name__}"
        )
    return Progress(command, mode, total=total)
