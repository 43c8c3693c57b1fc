"""The garbage collector while a process of ours imports (:mod:`microanon.apps.collector`).

Each check runs in a fresh interpreter: freezing the test runner's objects would keep its
garbage.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

_CHECK = """
import gc
from microanon.apps import collector
if {own}:
    collector.own_process()
with collector.importing():
    inside = gc.isenabled()
    import json, fractions
print(inside, gc.isenabled(), gc.get_freeze_count() > 0)
"""


@pytest.mark.parametrize(
    ("own", "want"),
    [(True, "False True True"), (False, "True True False")],
    ids=["own process", "someone else's"],
)
def test_imports_pause_the_collector_only_in_a_process_of_ours(own: bool, want: str) -> None:
    """In a process marked as ours the block pauses the collector, then freezes what is alive
    and resumes it; elsewhere it changes nothing."""
    done = subprocess.run(
        [sys.executable, "-c", _CHECK.format(own=own)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == want.split()


def test_the_command_line_runs_in_a_process_of_its_own() -> None:
    """The program's entry point marks its process before the command runs (``microanon`` and
    ``python -m microanon.apps.cli`` both call ``run``)."""
    code = (
        "import sys\n"
        "from microanon.apps import cli, collector\n"
        "sys.argv = ['microanon', '--version']\n"
        "try:\n"
        "    cli.run()\n"
        "except SystemExit:\n"
        "    print(collector._OWN)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "True"
