"""Reads that turn a pandas warning into an error change the process's warnings filters, and
:class:`warnings.catch_warnings` puts back on leaving the filters it found on entering. Two
threads doing it at once (Dask's, reading a CSV file's blocks) lost each other's: a column
typed apart in a block's chunks (``12`` beside ``'12'``) went by with a printed warning instead
of being read again whole, and the test suite once showed a ParserWarning meant to be silent.
Such reads now hold one lock (:data:`microanon.core.reading.WARNING_FILTERS`).
"""

from __future__ import annotations

import threading
import time
import warnings

import pandas as pd

from microanon.core.reading import typed_whole


def test_reads_in_threads_each_turn_the_warning_into_a_whole_read():
    """Two reads at once, each warned of a column typed apart: the first warned soon, the second
    after the first has left its filters. Each is read again whole (``low_memory=False``); before
    the lock, the first's leaving took the second's error filter away and the second kept its
    first read."""
    results: dict[int, str] = {}

    def read_in_thread(index: int) -> None:
        def read(low_memory: bool = True) -> str:
            if low_memory:
                time.sleep(0.02 if index == 0 else 0.2)
                warnings.warn("typed apart", pd.errors.DtypeWarning, stacklevel=1)
                return "first read"
            return "whole"

        results[index] = typed_whole(read)

    threads = [threading.Thread(target=read_in_thread, args=(i,)) for i in range(2)]
    with warnings.catch_warnings(record=True):
        for thread in threads:
            thread.start()
            time.sleep(0.005)  # (the first enters first)
        for thread in threads:
            thread.join()
    assert results == {0: "whole", 1: "whole"}


def test_the_filters_are_those_of_before_after_a_read():
    """The read leaves the filters as it found them."""
    before = list(warnings.filters)
    assert typed_whole(lambda low_memory=True: "read") == "read"
    assert warnings.filters == before
