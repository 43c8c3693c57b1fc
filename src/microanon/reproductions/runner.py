"""The one runner of every reproduction: ``microanon reproduce COMMAND`` and :func:`run`.

It takes a paper's :class:`~microanon.reproductions.paper.Pieces` and does what every
reproduction does alike: chooses the plan (``quick``), makes the one generator, runs the stages of
the experiments under the progress, derives results, records ``meta`` (microanon's version, the
runtime, the run mode and the paper's own part, never the seed), computes the checks and marks
the expected deviations (:func:`~microanon.reproductions.expected.mark_expected`), and writes
``report.html`` and ``results.json`` into one directory, atomically.

``results.json`` holds the stages' results (the experiments, in run order), the derived results,
``meta`` and ``checks``: each paper's documentation (docs/reproduce-*.md) and its ``pieces``
module describe its keys. Every check line also carries ``expected`` and ``reason``: whether the
paper's list of expected deviations covers it, and why.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from microanon.core.errors import InputError
from microanon.core.output import atomic_directory
from microanon.core.progress import ProgressLike, as_progress
from microanon.core.random import RandomLike, make_rng
from microanon.reproductions.catalog import PAPERS
from microanon.reproductions.expected import mark_expected
from microanon.reproductions.outputs import json_plain, write_results

__all__ = ["run"]


def run(
    command: str,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    rng: RandomLike = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run one paper's experiments and write ``out/report.html`` and ``out/results.json``.

    Parameters
    ----------
    command : str
        The reproduction, as named after ``microanon reproduce``: one of
        :data:`~microanon.reproductions.catalog.PAPERS` (``randomization``, ``distribution``,
        ``multisa``, ``collection``).
    out : path
        Output directory, written atomically (nothing is left behind on failure).
    quick : bool, default False
        The paper's reduced plan (see its ``--quick`` help); the default is its full plan.
    rng : numpy.random.Generator, int or None
        The randomness of the experiments (``None``: OS entropy). A seed makes the run
        reproducible and is never written out.
    progress : Progress, bool, str or None, default False
        Progress on stderr, one stage per part of the experiments and one for the checks and the
        report: a bar (True), nothing (False), lines (``"lines"``), or either by whether stderr
        is a terminal (None or ``"auto"``); see :func:`microanon.core.progress.as_progress`.
    overwrite : bool, default False
        Replace an existing non-empty ``out``.

    Returns
    -------
    (pathlib.Path, dict)
        The output directory and the results as written to ``results.json``.

    Raises
    ------
    InputError
        ``command`` names no reproduction, ``out`` exists and is not empty (without
        ``overwrite``), or a bad ``rng``.
    """
    if command not in PAPERS:
        raise InputError(f"no reproduction {command!r}: one of {', '.join(PAPERS)}")
    pieces = PAPERS[command].pieces()
    plan = pieces.quick if quick else pieces.full
    seed_given = rng is not None
    experiments = pieces.experiments(plan, make_rng(rng))
    stages = experiments.stages()
    started = time.perf_counter()
    reporter = as_progress(progress, f"reproduce {command}", total=len(stages) + 1)
    with atomic_directory(out, overwrite) as tmp, reporter:
        results: dict[str, Any] = {}
        for stage in stages:
            with reporter.stage(stage.title):
                for key, value in stage.produce(reporter.note).items():
                    results[key] = {**results[key], **value} if key in results else value
        with reporter.stage("checks and report"):
            results = json_plain(results)
            results |= experiments.derived(results)
            seconds = time.perf_counter() - started
            results["meta"] = _meta(quick, seconds, experiments.meta(seed_given))
            checks = experiments.checks(results)
            results["checks"] = mark_expected(checks, pieces.deviations, quick)
            results = json_plain(results)
            pieces.report(results, plan).write(tmp / "report.html")
            write_results(tmp, results)
    return Path(out), results


def _meta(quick: bool, seconds: float, paper: dict[str, Any]) -> dict[str, Any]:
    """``meta``: microanon's version, the runtime and the run mode, then the ``paper``'s part."""
    from microanon.core.version import __version__

    meta = {"microanon_version": __version__, "runtime_seconds": round(seconds, 2), "quick": quick}
    return json_plain(meta | paper)
