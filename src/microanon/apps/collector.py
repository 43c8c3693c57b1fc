"""Python's cyclic garbage collector while a process of ours imports its modules.

Importing numpy, pandas, pyarrow, matplotlib and our modules allocates a few hundred thousand
objects that live as long as the process. The cyclic garbage collector runs every few hundred
allocations, now and then over every object: in a run of ``microanon anonymize`` on 10⁵
records it took 50–70 ms of the command's process (most of it during the imports, the rest
reading their objects again in later passes), and 40–70 ms of the second process while it
imports matplotlib for the figures. Within :func:`importing` the collector is paused; when
the block ends, the objects then alive are frozen (:func:`gc.freeze`: left out of every later
pass) and the collector resumes. What the process allocates afterwards is collected as
before; 5–7 ms of collection remain in each process.

The data owner's commands (``anonymize``, ``init``, ``check``, ``lint``, ``risk``, ``demo``)
import their modules within :func:`importing`. Only in a process of our own, marked by
:func:`own_process`: the command line's (its entry point, :func:`microanon.apps.cli.run`) and
the worker of :func:`~microanon.apps.aside.working_aside`. A frozen object that later becomes
garbage in a cycle is never collected, so a program calling our functions (a notebook, a test
runner) keeps its collector as it is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["importing", "own_process"]

#: Whether this process is one of ours (see the module docstring).
_OWN = False


def own_process() -> None:
    """Mark this process as one of ours: :func:`importing` pauses and freezes here."""
    global _OWN
    _OWN = True


@contextmanager
def importing() -> Iterator[None]:
    """Within the block (a command's imports), the cyclic garbage collector is paused; after
    it, the objects alive are frozen and the collector resumes. Nothing changes outside a
    process marked by :func:`own_process`, or where the collector is already off."""
    if not _OWN or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
