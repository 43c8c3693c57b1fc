"""Several methods in one release, built step by step in the workbench (docs/workbench.md).

Per data set the workbench holds a :class:`Pipeline`: the steps the data owner chose
(``{"method", "params"}`` each) and the :class:`~microanon.methods.steps.Steps` they were last
run as, so that adding a step at the end runs that step only and removing or moving one re-runs
from the first step that changed. A change the steps refuse (bad parameters, PRAM on a key an
earlier step suppressed, a step that breaks an earlier step's claim) leaves the list unchanged.

Randomized steps draw from one generator per pipeline, seeded from the operating system's
entropy and held in memory only (never written): the risk and loss shown stay the same while the
steps before them do. A published run draws new randomness, as ``microanon anonymize`` does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import MicroanonError
from ...core.schema import Schema
from ...methods.steps import StepResult, Steps, check_steps
from .errors import RequestError

__all__ = ["Pipeline"]


def _refused(exc: MicroanonError) -> RequestError:
    """A refusal of the steps as a 400 naming the parameter when the message does
    (``steps[2].params: local_suppression: k must ...``), else ``params`` or ``steps``."""
    message = " ".join(str(exc).split())
    named = re.match(r"steps\[\d+\]\.params: \w+: (\w+) ", message) or re.match(
        r"steps\[\d+\]\.(\w+)", message
    )
    return RequestError(message, named.group(1) if named else "steps")


def _record(result: StepResult) -> dict[str, Any]:
    return {**result.record(), "params": dict(result.params)}


class Pipeline:
    """The steps chosen on one data set, and the computation of their risk and loss.

    Attributes
    ----------
    steps : list of dict
        ``{"method", "params"}`` per step, in order (checked by
        :func:`~microanon.methods.steps.check_steps` and run without refusal).
    """

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self._entropy = np.random.SeedSequence().entropy  # in memory only, never written
        self._lock = threading.Lock()
        self._built: Steps | None = None
        self._basis: Any = None

    def _run(
        self, steps: Sequence[Mapping[str, Any]], frame: pd.DataFrame, schema: Schema, basis: Any
    ) -> Steps:
        """``steps`` run on ``frame``: the steps already run that start the list alike are kept,
        the others run again (all of them when the table or its schema changed)."""
        if self._built is None or self._basis != basis:
            generator = np.random.default_rng(np.random.SeedSequence(self._entropy))
            self._built = None  # stays None when the table cannot be traced
            self._built, self._basis = Steps(frame, schema, rng=generator), basis
        built = self._built
        same = 0
        for done, step in zip(built.results[1:], steps, strict=False):
            if done.method != step["method"] or done.params != step["params"]:
                break
            same += 1
        while len(built.results) - 1 > same:
            built.undo()
        for step in steps[same:]:
            built.add(step["method"], **step["params"])
        return built

    def table(self, frame: pd.DataFrame, schema: Schema, basis: Any) -> dict[str, Any]:
        """The ``Steps`` answer: the original's risk and loss, then each step's.

        ``basis``: what the table and its schema are (any value comparable with ``==``); the
        steps run again from the first when it changes. A step that no longer runs on the
        schema as it is now (a column made an identifier, say) stops the steps there: the
        answer has the steps that ran, the others in ``not_run`` and the refusal in ``error``
        (null when every step ran).

        Raises
        ------
        RequestError
            When the table cannot be traced through steps at all (a reserved column name).
        """
        with self._lock:
            refusal: MicroanonError | None = None
            try:
                self._run(self.steps, frame, schema, basis)
            except MicroanonError as exc:
                refusal = exc
            built = self._built
            if built is None:
                assert refusal is not None  # only a table that cannot be traced leaves none
                raise _refused(refusal)
            results = built.results
            return {
                "original": _record(results[0]),
                "steps": [_record(r) for r in results[1:]],
                "not_run": [dict(s) for s in self.steps[len(results) - 1 :]],
                "error": None if refusal is None else str(_refused(refusal)),
            }

    def change(
        self,
        edit: Callable[[list[dict[str, Any]]], list[Any]],
        frame: pd.DataFrame,
        schema: Schema,
        basis: Any,
    ) -> dict[str, Any]:
        """Replace the steps by ``edit(steps)`` if they check and run; otherwise change nothing.

        ``edit`` gets a copy of the steps and may raise a :class:`RequestError`.

        Returns
        -------
        dict
            The ``Steps`` answer (:meth:`table`) of the new steps.

        Raises
        ------
        RequestError
            400 naming the step (and its parameter) that is refused.
        """
        with self._lock:
            steps = edit(list(self.steps))
            try:
                checked = check_steps(steps) if steps else []
                self._run(checked, frame, schema, basis)
            except MicroanonError as exc:
                raise _refused(exc) from None
            self.steps = checked
        return self.table(frame, schema, basis)
