"""The command line runs BLAS on one thread, unless the environment names a number."""

from __future__ import annotations

import os
import subprocess
import sys

from microanon.apps.blas_threads import THREAD_VARIABLES, one_blas_thread

#: A program that runs the command line (``microanon --version``), then prints whether numpy
#: had been imported before it asked for one thread, and what the variables then hold.
_PROGRAM = """
import os, sys
import microanon.apps.cli as cli
before = "numpy" in sys.modules
sys.argv = ["microanon", "--version"]
try:
    cli.run()
except SystemExit:
    pass
print(before, [os.environ.get(name) for name in {names!r}])
"""


def _run(env: dict[str, str]) -> str:
    program = _PROGRAM.format(names=THREAD_VARIABLES)
    done = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def test_the_command_line_asks_blas_for_one_thread_before_numpy_is_imported():
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    assert _run(env) == f"False {['1'] * len(THREAD_VARIABLES)}"


def test_a_number_the_environment_names_is_kept(monkeypatch):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    assert _run(env).startswith("False ['2'")
    for name in THREAD_VARIABLES:
        monkeypatch.setenv(name, "3")
    one_blas_thread()
    assert [os.environ[name] for name in THREAD_VARIABLES] == ["3"] * len(THREAD_VARIABLES)
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name)
    one_blas_thread()
    assert [os.environ[name] for name in THREAD_VARIABLES] == ["1"] * len(THREAD_VARIABLES)
