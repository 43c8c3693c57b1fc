"""Shared plumbing of the peer runners (runs in benchmarks/.peers-venv, without microanon).

A runner is called as ``python run_<peer>.py JOB.json``. The job names the data (a CSV whose
cells are read as text), one ARX hierarchy CSV per quasi-identifier (``;``-separated, one row per
leaf: the leaf, then its label at every level up to ``*``), the quasi-identifiers, the sensitive
column, the model (``k``, ``l-distinct``, ``l-entropy`` or ``t`` with ``k``, ``l``, ``t``), the
suppression limit (a fraction of the rows) and where to write the anonymized table. The runner
prints one JSON object as the last line of its standard output (what the peer printed goes to
standard error): the peer's wall and CPU seconds for the anonymization call (reading the inputs
and writing the output are not timed), what the peer says it produced, or ``unsupported`` with a
reason when the peer cannot run the configuration.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import sys
import time
from typing import Any

import pandas as pd


def load_job() -> dict[str, Any]:
    """The job file named on the command line."""
    with open(sys.argv[1], encoding="utf-8") as f:
        return json.load(f)


def read_data(job: dict[str, Any]) -> pd.DataFrame:
    """The data, every cell as text."""
    return pd.read_csv(job["data"], dtype=str, keep_default_na=False)


def read_hierarchy(path: str) -> pd.DataFrame:
    """An ARX hierarchy: column ``i`` holds each leaf's label at level ``i``."""
    return pd.read_csv(path, sep=";", header=None, dtype=str, keep_default_na=False)


def timed(fn: Any) -> tuple[Any, float, float]:
    """Run ``fn()`` with its prints sent to stderr; return its result, wall and CPU seconds."""
    with contextlib.redirect_stdout(sys.stderr):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return out, wall, cpu


def version(dist: str) -> str:
    """Installed version of a distribution."""
    return importlib.metadata.version(dist)


def report(**fields: Any) -> None:
    """Print the result object (the last line of stdout)."""
    print(json.dumps(fields), flush=True)


def unsupported(peer: str, reason: str) -> None:
    """Report that the peer cannot run this configuration, and exit."""
    report(peer=peer, version=version(peer), unsupported=reason)
    sys.exit(0)


def write_output(job: dict[str, Any], out: pd.DataFrame, columns: list[str]) -> None:
    """Write the peer's anonymized table (its columns ``columns``; empty when it gave none)."""
    if len(out) == 0:
        out = pd.DataFrame(columns=columns)
    out[columns].to_csv(job["output"], index=False)
