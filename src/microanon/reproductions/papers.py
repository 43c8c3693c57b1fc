"""The reproductions at a glance: one row per paper, read from runs already written.

Running the four reproductions takes minutes even with ``--quick`` (measured: about 16 s of CPU
for randomization and 70 s for collection), so a summary across papers reads the ``results.json``
of earlier runs instead: ``DIRECTORY/<name>/results.json``, as written by ``microanon reproduce
<name> --out DIRECTORY/<name>``. The counts and reasons come from the check lines of those files
(:func:`~.findings.summarize`); nothing is recomputed or assumed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from microanon.core.errors import InputError
from microanon.reproductions.catalog import PAPERS
from microanon.reproductions.findings import summarize

__all__ = ["PAPERS_COLUMNS", "papers_table", "read_runs"]

#: The columns of :func:`papers_table`, in order.
PAPERS_COLUMNS = (
    "reproduction",
    "paper",
    "run",
    "checks passing",
    "expected deviations",
    "unexpected failures",
    "top reasons",
)


def _load(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable results.json ({exc})") from exc
    checks = results.get("checks") if isinstance(results, dict) else None
    if not isinstance(checks, list) or not all(
        isinstance(c, dict) and {"claim", "passed"} <= set(c) for c in checks
    ):
        raise InputError(f"{path}: no check lines ('checks') of microanon reproduce")
    return results


def read_runs(directory: str | Path) -> dict[str, dict[str, Any] | None]:
    """The results of each reproduction found under ``directory``.

    Parameters
    ----------
    directory : path
        Holds ``<name>/results.json`` for some of the reproductions (``randomization``,
        ``collection``, ``multisa``, ``distribution``).

    Returns
    -------
    dict
        Reproduction name -> its parsed ``results.json``, or None when ``directory`` has none.

    Raises
    ------
    InputError
        ``directory`` is not a directory, or a ``results.json`` is unreadable or has no check
        lines.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"--reproductions: {root} is not a directory")
    runs: dict[str, dict[str, Any] | None] = {}
    for name in PAPERS:
        path = root / name / "results.json"
        runs[name] = _load(path) if path.is_file() else None
    return runs


def _reasons(pairs: list[tuple[str, int]]) -> str:
    return " | ".join(f"{reason} ({n} checks)" if n > 1 else reason for reason, n in pairs)


def papers_table(runs: dict[str, dict[str, Any] | None], top: int = 2) -> pd.DataFrame:
    """One row per reproduction: its paper, the run read and its checks' counts and reasons.

    Parameters
    ----------
    runs : dict
        As returned by :func:`read_runs`.
    top : int, default 2
        How many of the most frequent reasons of expected deviations to show per paper.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`PAPERS_COLUMNS`; a reproduction without a run shows ``not run``
        and ``–``.
    """
    rows = []
    for name, results in runs.items():
        row: dict[str, Any] = {"reproduction": name, "paper": PAPERS[name].summary}
        if results is None:
            row |= dict.fromkeys(PAPERS_COLUMNS[2:], "–") | {"run": "not run"}
        else:
            counts = summarize(results["checks"], top=top)
            meta = results.get("meta", {})
            row |= {
                "run": {True: "quick", False: "full"}.get(meta.get("quick"), "–"),
                "checks passing": f"{counts['passed']} / {counts['checks']}",
                "expected deviations": counts["expected_deviations"],
                "unexpected failures": counts["unexpected_failures"],
                "top reasons": _reasons(counts["reasons"]) or "–",
            }
        rows.append(row)
    return pd.DataFrame(rows, columns=list(PAPERS_COLUMNS))
