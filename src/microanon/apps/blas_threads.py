"""BLAS on one thread in the command line's process and in the second process it starts.

numpy's BLAS (OpenBLAS in numpy's wheels) starts a thread per core and, after each call it
shares among them, keeps those threads spinning for a while before they sleep. A command of
ours already uses the cores with its own threads (reading, the lint beside the method, the
reports beside the writing) and its second process (:mod:`.aside`); its BLAS calls are small
(dot products of a few columns, fits on a thousand sampled rows), so the spinning threads only
take CPU from them: on 10⁶ records of Adult, ``microanon anonymize`` spent 0.18 s of CPU in an
OpenBLAS thread, and one thread took 0.23 s of CPU off the run (2 % of its wall time). The
command line therefore asks BLAS for one thread, unless the environment names a number; it
must do so before numpy is imported (the command's modules import it when a command runs,
not when the program starts), and the second process inherits the setting. A program that
calls our functions keeps its BLAS as it is.
"""

from __future__ import annotations

import os

__all__ = ["THREAD_VARIABLES", "one_blas_thread"]

#: The environment variables that set how many threads the BLAS libraries numpy may be built
#: with start (OpenBLAS, Intel's MKL), read when the library is loaded.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Ask BLAS for one thread in this process and those it starts, where the environment
    names no number of threads; before numpy is imported (see the module docstring)."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
