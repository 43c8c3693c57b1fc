"""A stand-in for :mod:`time` for the searches' tests of work between readings of the clock:
it ticks once per reading and counts the cells (nodes times attributes) bounded in between.
No test times anything with it; the searches read it as they would the real clock."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class CountingClock:
    """A clock that ticks one second per reading (:meth:`perf_counter`), and counts the cells
    bounded since the last reading through :meth:`bounded`: ``most`` is the largest such count,
    ``readings`` the readings so far."""

    def __init__(self) -> None:
        self.now = 0.0
        self.since = 0  # cells bounded since the last reading
        self.most = 0  # the most between two readings
        self.readings = 0

    def perf_counter(self) -> float:
        self.now += 1.0
        self.since = 0
        self.readings += 1
        return self.now

    def bounded(
        self, bound_of: Callable[[np.ndarray], np.ndarray]
    ) -> Callable[[np.ndarray], np.ndarray]:
        """``bound_of``, counting the cells of the levels it is given."""

        def counted(levels: np.ndarray) -> np.ndarray:
            self.since += int(np.asarray(levels).size)
            self.most = max(self.most, self.since)
            return bound_of(levels)

        return counted
