"""The budget of a heuristic search: a time limit, a step limit, and someone who may stop it.

Both heuristic searches (:mod:`._heuristic`, :mod:`._genetic`) check nodes one at a time
through a :class:`Budget`, which counts them, ends the search when a limit is reached or its
watcher asks it to stop, and tells the watcher how far it got. The best node found so far is
kept whatever ends the search.
"""

from __future__ import annotations

import math
import time
from typing import Protocol

import numpy as np

from ...core.errors import InputError, MicroanonError

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Budget",
    "BudgetSpent",
    "SearchStopped",
    "SearchWatch",
    "bound_deadline",
    "check_limits",
    "check_watch",
]

#: Seconds a heuristic search runs when neither limit is given.
DEFAULT_TIME_LIMIT = 30.0

#: Share of the time limit the search's walk takes; its lower bound takes at most the rest.
WALK_SHARE = 0.9
#: Share of the time limit by which the lower bound ends: the last of it is left for the answer
#: (the winner's suppressed rows, the record of the search).
BOUND_SHARE = 0.99


class SearchWatch(Protocol):
    """Who follows a heuristic search: hears how far it got and may ask it to stop."""

    def stop_requested(self) -> bool:
        """Whether the search should stop now and keep its best node."""
        ...

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        """The search has checked ``nodes`` nodes in ``seconds``; ``best`` is the metric value
        of the best feasible node so far (None before one is found)."""
        ...


class SearchStopped(MicroanonError):
    """The exact search was stopped by its watcher: it has no answer (a node it had not proven
    optimal would not be one)."""


class BudgetSpent(Exception):
    """The search's budget is spent; the message says why (``time_limit``, ``step_limit`` or
    ``stopped``)."""


def check_watch(watch: object) -> SearchWatch | None:
    """Validate a search's watcher (None: no one watches).

    Raises
    ------
    InputError
        ``watch`` lacks :meth:`SearchWatch.stop_requested` or :meth:`SearchWatch.searched`.
    """
    if watch is None:
        return None
    if not all(callable(getattr(watch, name, None)) for name in ("stop_requested", "searched")):
        raise InputError(
            "watch must have the methods stop_requested() and searched(nodes, best, seconds), "
            f"got {type(watch).__name__}"
        )
    return watch  # type: ignore[return-value]


def check_limits(time_limit: object, step_limit: object) -> tuple[float | None, int | None]:
    """Validate the heuristic search's budget.

    Raises
    ------
    InputError
        ``time_limit`` not a positive number, ``step_limit`` not a positive integer.
    """
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.integer, np.floating)
        ):
            raise InputError(f"time_limit must be a number of seconds, got {time_limit!r}")
        if not math.isfinite(float(time_limit)) or float(time_limit) <= 0:
            raise InputError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
        time_limit = float(time_limit)
    if step_limit is not None:
        if isinstance(step_limit, bool) or not isinstance(step_limit, (int, np.integer)):
            raise InputError(f"step_limit must be a positive integer, got {step_limit!r}")
        if int(step_limit) < 1:
            raise InputError(f"step_limit must be a positive integer, got {step_limit!r}")
        step_limit = int(step_limit)
    return time_limit, step_limit  # type: ignore[return-value]


class Budget:
    """The limits of one search and the count of the nodes it checked.

    Parameters
    ----------
    time_limit : float or None
        Seconds of the whole search; the walk stops at :data:`WALK_SHARE` of them (None: no
        time limit).
    step_limit : int or None
        Most nodes checked (None: no such limit).
    watch : SearchWatch, optional
        Hears of every check, and may stop the search.
    bound : bool
        Whether the search works for its lower bound (False, for a search whose bound nobody
        reads: the bottom node's, at once; see :meth:`._heuristic._Walk.unexplored_bound`).
    """

    def __init__(
        self,
        time_limit: float | None,
        step_limit: int | None,
        watch: SearchWatch | None = None,
        bound: bool = True,
    ) -> None:
        self.time_limit = time_limit
        self.step_limit = step_limit
        self.watch = watch
        self.bound = bound
        self.started = time.perf_counter()
        self.steps = 0
        #: Whether the search ended before its limits because it found nothing better for long
        #: (:data:`._genetic.PATIENCE`): its lower bound then gets the time an unlimited search's
        #: does, not the rest of the time limit.
        self.converged = False

    @property
    def seconds(self) -> float:
        """Seconds since the search began."""
        return time.perf_counter() - self.started

    def spend(self, best: float | None) -> None:
        """Count one more node, or raise :class:`BudgetSpent` when no more may be checked.

        ``best``: the best feasible value so far (as reported), for the watcher.
        """
        if self.watch is not None:
            self.watch.searched(self.steps, best, self.seconds)
            if self.watch.stop_requested():
                raise BudgetSpent("stopped")
        if self.step_limit is not None and self.steps >= self.step_limit:
            raise BudgetSpent("step_limit")
        self.keep_time()
        self.steps += 1

    def keep_time(self) -> None:
        """Raise :class:`BudgetSpent` (``time_limit``) once the walk's share of the time limit
        is spent: read between the checks, and between pieces of other work of the walk that
        may take long on a wide lattice."""
        if self.time_limit is not None and self.seconds >= WALK_SHARE * self.time_limit:
            raise BudgetSpent("time_limit")

    def checkpoint_deadline(self) -> float:
        """When a lower bound computed during the walk must end: after a twentieth of the time
        spent so far, and by the walk's end under a time limit. Computed at every doubling of
        the checks, such bounds take at most a tenth of the walk."""
        until = time.perf_counter() + self.seconds / 20
        if self.time_limit is not None:
            until = min(until, self.started + WALK_SHARE * self.time_limit)
        return until

    def bound_deadline(self) -> float:
        """When the lower bound, which starts now, must end (:func:`bound_deadline`)."""
        return bound_deadline(self.started, time.perf_counter(), self.time_limit, self.converged)


def bound_deadline(
    started: float, now: float, time_limit: float | None, converged: bool = False
) -> float:
    """When a search's lower bound, starting at ``now``, must end: at :data:`BOUND_SHARE` of
    the time limit, or without one (or when the search converged before it) after a ninth of
    the time spent since ``started`` (at least a second), so that the bound never takes more
    than a tenth of the search."""
    spent = now + max(1.0, (now - started) / 9)
    if time_limit is None:
        return spent
    limit = started + BOUND_SHARE * time_limit
    return min(limit, spent) if converged else limit
