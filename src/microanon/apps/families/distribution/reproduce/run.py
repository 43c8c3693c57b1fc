"""``microanon reproduce distribution``: experiments E4.1–E4.12 of Koudas et al. (2009).

Runs the experiments of *Distribution-based Microdata Anonymization* (PVLDB 2(1), 2009) on Adult's
1,427 capital-loss records and on synthetic tables, and writes ``report.html`` (Figs. 5–13 with
their numbers, each experiment's finding tested on our numbers) and ``results.json`` into one
directory, atomically. See docs/reproduce-distribution.md.

``results.json`` layout (a *line* is one curve: ``error`` per query width, ``used``,
``mean_error``, ``violations``, ``groups``, ``entries``, ``fakes``, ``sum_of_ranges``,
``mean_range``, ``root_share``, ``domain_values``, ``p_private``):

- ``E4.1`` / ``E4.2`` / ``E4.3``: ``data``, ``rows``, ``distinct_values``, ``min``, ``max``, and
  per encoding (``exact``, ``rounded``) → method (``SA-only``, ``QI-SA``) → line;
- ``E4.4``: ``fakes_percent``; data set (``real``, ``uncorrelated``, ``correlated``) →
  encoding → fake percent (``"0"``, ``"5"``, ...) → QI-SA line;
- ``E4.5``: ``removed_share``, ``fakes_percent``; data set → ``rows``, ``source_rows``, encoding →
  fake percent → SA-only line;
- ``E4.6``: ``r``, ``variance`` and method → list of lines (one per r);
- ``E4.7`` / ``E4.8``: ``s``, ``source_s`` and method → list of lines (one per s);
- ``E4.9``: ``binary`` / ``ternary`` → method → line;
- ``E4.10``: ``groups`` and encoding → method → list of lines (one per number of groups);
- ``E4.11``: ``groups`` and method → list of lines;
- ``E4.12``: ``sizes``, ``repeats`` and method → ``seconds`` (one per size);

plus ``checks`` (pass/fail lines) and ``meta`` (runtime, plan, randomness policy, whether a seed
was given — never the seed —, microanon's version).

Every check line also carries ``expected`` and ``reason``: whether the reproduction's list of
expected deviations (``EXPECTED_DEVIATIONS`` of its checks module) covers it, and why.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from microanon.apps.families.distribution.reproduce.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.apps.families.distribution.reproduce.experiments import FULL, QUICK, Plan, Runner
from microanon.apps.families.distribution.reproduce.measure import split_denominator
from microanon.apps.families.distribution.reproduce.report import build_report
from microanon.apps.reproduction.expected import mark_expected
from microanon.apps.reproduction.outputs import RNG_POLICY, json_plain, write_results
from microanon.core.output import atomic_directory
from microanon.core.progress import ProgressLike, as_progress
from microanon.core.random import RandomLike, make_rng

__all__ = ["STEPS", "run_distribution"]

#: Method of :class:`Runner` -> the experiments it produces, in run order.
STEPS = {
    "e41_e44": ("E4.1", "E4.2", "E4.3", "E4.4"),
    "e45": ("E4.5",),
    "e46": ("E4.6",),
    "e47": ("E4.7",),
    "e48": ("E4.8",),
    "literal": ("E4.literal",),
    "e49": ("E4.9",),
    "e410": ("E4.10",),
    "e411": ("E4.11",),
    "e412": ("E4.12",),
}


def run_distribution(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    rng: RandomLike = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run experiments E4.1–E4.12 and write ``out/report.html`` and ``out/results.json``.

    Parameters
    ----------
    out : path
        Output directory, written atomically (nothing is left behind on failure).
    quick : bool, default False
        The reduced grid (:data:`~._dist_experiments.QUICK`: 2,000 synthetic records on 64
        values, five query widths, two fake shares, fewer target parameters, timings up to
        3·10⁵ rows) that runs in seconds; the default is the full grid
        (:data:`~._dist_experiments.FULL`: 10,000 synthetic records on 2,048 values, ten
        widths, timings up to 10⁶ rows).
    rng : numpy.random.Generator, int or None
        Randomness of the synthetic data, the removed records, the queries and the releases'
        permutations (``None``: OS entropy). A seed makes the run reproducible and is never
        written out.
    progress : Progress, bool, str or None, default False
        Progress on stderr, one stage per experiment: a bar (True), nothing (False), one line
        per experiment (``"lines"``), or either by whether stderr is a terminal (None or
        ``"auto"``); see :func:`microanon.core.progress.as_progress`.
    overwrite : bool, default False
        Replace an existing non-empty ``out``.

    Returns
    -------
    (pathlib.Path, dict)
        The output directory and the results as written to ``results.json``.

    Raises
    ------
    InputError
        ``out`` exists and is not empty (without ``overwrite``), or a bad ``rng``.
    """
    plan = QUICK if quick else FULL
    seed_given = rng is not None
    generator = make_rng(rng)
    started = time.perf_counter()
    reporter = as_progress(progress, "reproduce distribution", total=len(STEPS) + 1)
    with atomic_directory(out, overwrite) as tmp, reporter:
        runner = Runner(plan, generator)
        results: dict[str, Any] = {}
        for method, experiments in STEPS.items():
            with reporter.stage("/".join(experiments)):
                produced = getattr(runner, method)()
            results.update(produced if len(experiments) > 1 else {experiments[0]: produced})
        with reporter.stage("checks and report"):
            results = json_plain(results)
            checks = run_checks(results, list(plan.widths), plan.focus_width)
            results["checks"] = mark_expected(checks, EXPECTED_DEVIATIONS, quick)
            seconds = time.perf_counter() - started
            results["meta"] = _meta(plan, runner.sizes(), seed_given, seconds)
            results = json_plain(results)
            build_report(results, plan).write(tmp / "report.html")
            write_results(tmp, results)
    return Path(out), results


def _meta(plan: Plan, rows: dict[str, int], seed_given: bool, seconds: float) -> dict[str, Any]:
    from microanon.core.version import __version__

    return {
        "microanon_version": __version__,
        "runtime_seconds": round(seconds, 2),
        "quick": plan.quick,
        "cpus": os.cpu_count(),
        "rng": RNG_POLICY,
        "seed_given": seed_given,
        "plan": plan.describe(),
        "data_sets": rows,
        "hierarchy": "balanced, over the distinct values (Adult) or the integer domain "
        "(synthetic); binary unless E4.9 says ternary",
        "targets": {
            "exact": "weights = the source counts (target = source distribution exactly)",
            "rounded": f"each node's split rounded to whole numbers summing to "
            f"{split_denominator(2)} (binary) / {split_denominator(3)} (ternary), largest "
            "remainders",
        },
        "workload": "SELECT AVG(sensitive) WHERE age BETWEEN X AND X + R; X uniform; error "
        "(u - l) / r averaged over the non-empty selections",
    }
