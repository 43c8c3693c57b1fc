"""The schema lint of a run, made by a thread beside the method.

The lint and the method both group the codes the run made when it read the data; NumPy and
pandas let go of the interpreter in most of that work, so on a machine of two cores the lint
costs the run little when it runs beside the method instead of before it. Nothing is published
before the lint's answer is taken: :meth:`LintBeside.report` waits for it and raises its error,
or its findings the configuration does not accept, as the lint before the method did. As the
``watch`` of the method's search (see :func:`~microanon.methods.generalize.full_domain`), it
asks the search to stop as soon as the lint refuses the run, so that a long search does not
delay that answer; a method that takes no watch (one that nothing can stop) starts only once
the lint has answered.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from typing import Any

import pandas as pd

from ..core.lint import LintReport, lint_schema
from ..core.schema import Schema
from .interrupts import wait_for

__all__ = ["LintBeside"]


class LintBeside:
    """``lint_schema(data, schema, accept=accept)`` made by a thread from its creation on (in
    this thread's context: the run's shared codes), and a watch of the method's search that
    passes on to ``watch``.

    Parameters
    ----------
    data : DataFrame
    schema : Schema
    accept : mapping of column to finding kinds
        As :func:`~microanon.core.lint.lint_schema` takes it.
    watch : object
        Who follows the method's search besides (the run's progress): ``stop_requested()`` and
        ``searched(nodes, best, seconds)``.

    Use it as a context manager: leaving the block waits for the thread.
    """

    def __init__(self, data: pd.DataFrame, schema: Schema, accept: Any, watch: Any) -> None:
        self._watch = watch
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="microanon-lint")
        self._future: Future[tuple[LintReport, float]] = self._pool.submit(
            copy_context().run, _timed_lint, data, schema, accept
        )

    def __enter__(self) -> LintBeside:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)

    @property
    def refused(self) -> bool:
        """Whether the lint has answered and refuses the run (an error, or findings not
        accepted), without waiting."""
        if not self._future.done():
            return False
        if self._future.exception() is not None:
            return True
        return bool(self._future.result()[0].blocking)

    def report(self) -> tuple[LintReport, float]:
        """The lint's report and the seconds it took, once it is there.

        Raises
        ------
        InputError
            The lint's own error, or its findings the configuration does not accept.
        """
        lint, seconds = wait_for(self._future)  # (a signal still ends the wait)
        lint.raise_if_blocking()
        return lint, seconds

    def stop_requested(self) -> bool:
        """Whether the search should stop: the lint refuses the run, or ``watch`` asks it."""
        return self.refused or self._watch.stop_requested()

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        """The search's progress, passed on to ``watch``."""
        self._watch.searched(nodes, best, seconds)


def _timed_lint(data: pd.DataFrame, schema: Schema, accept: Any) -> tuple[LintReport, float]:
    started = time.perf_counter()
    lint = lint_schema(data, schema, accept=accept)
    return lint, time.perf_counter() - started
