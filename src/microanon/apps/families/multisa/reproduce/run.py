"""``microanon reproduce multisa``: experiments E2.1–E2.8 of Yi & Shi (2015).

Runs the experiments of *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule* (Mathematical Problems in Engineering 2015) on Adult's 30,718 records and writes
``report.html`` (Figs. 1–11 with their numbers, each finding next to ours) and ``results.json``
into one directory, atomically. See docs/reproduce-multisa.md.

``results.json`` layout (a *point* is one measured release: ``records``, ``seconds``, ``ail``
and its parts ``ail_enlarged`` / ``ail_suppressed`` / ``ail_deleted``, ``rce_mean``,
``sac_published``, ``deleted``, ``suppressed``, ``clusters``, ``strong_rules``, ``confidence``
= {``rules``, ``raw``, ``recovered``, ``lost``, ``max_deviation``, ``max_deviation_intact``,
``support_xy_exact``}):

- ``E2.1``: ``sensitive``, ``l``, ``improved`` / ``bubble`` → records → seconds;
- ``E2.2``: ``l``, ``per_attribute`` → attribute → {``improved``, ``bubble``}, and
  ``improved`` / ``bubble`` → set (``"2"``, ``"3"``, ``"4"``) → seconds;
- ``E2.3``: set → method (``mixed``, ``rating``) → l → point;
- ``E2.3u``: ``runs``; set → l → {``stable``, ``unstable`` (one AIL per run with random
  tie order)}: Rating's AIL from the SIDs alone;
- ``E2.4``: set → min_confidence → point (mixed model);
- ``E2.5``: method → set → point;
- ``E2.6`` / ``E2.7``: set → l / records → {``raw``, ``mixed``, ``rating`` (average
  confidences), ``rules``, ``deleted``, ``deletion`` (mixed model:
  :func:`~microanon.measures.multisa_deletions.explain_deletions`), ``mixed_detail``,
  ``rating_detail``};
- ``E2.8``: ``set``; l → {``rules``, method → {``records``, ``probability`` (per record
  holding a strong rule, the largest over its rules), ``holders``, ``deleted_holders``, ``max``,
  ``mean``, ``above_1_over_l``, ``above_0_8``, ``certain``}};

plus ``checks`` (pass/fail lines) and ``meta`` (runtime, records, attributes, plan, randomness
policy — never the seed —, microanon's version).

Every check line also carries ``expected`` and ``reason``: whether the reproduction's list of
expected deviations (``EXPECTED_DEVIATIONS`` of its checks module) covers it, and why.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from microanon.apps.families.multisa.reproduce.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.apps.families.multisa.reproduce.experiments import Runner
from microanon.apps.families.multisa.reproduce.report import build_report
from microanon.apps.families.multisa.reproduce.setup import (
    FULL,
    QUASI,
    QUICK,
    SA_SETS,
    Plan,
    load_data,
)
from microanon.apps.reproduction.expected import mark_expected
from microanon.apps.reproduction.outputs import RNG_POLICY, json_plain, write_results
from microanon.core.output import atomic_directory
from microanon.core.progress import ProgressLike, as_progress
from microanon.core.random import RandomLike, make_rng

__all__ = ["EXPERIMENTS", "run_multisa"]

#: Experiment id -> method of :class:`Runner`, in run order.
EXPERIMENTS = {
    "E2.1": "e21",
    "E2.2": "e22",
    "E2.3": "e23",
    "E2.3u": "e23_unstable",
    "E2.4": "e24",
    "E2.5": "e25",
    "E2.6": "e26",
    "E2.7": "e27",
    "E2.8": "e28",
}


def run_multisa(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    rng: RandomLike = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run experiments E2.1–E2.8 and write ``out/report.html`` and ``out/results.json``.

    Parameters
    ----------
    out : path
        Output directory, written atomically (nothing is left behind on failure).
    quick : bool, default False
        The reduced grid (:data:`~.setup.QUICK`: the four-attribute set, l ∈ {2, 3}, two
        data sizes) that runs in about 15 seconds; the default is :data:`~.setup.FULL`
        (about a minute).
    rng : numpy.random.Generator, int or None
        Randomness of the subsets, the permutations inside groups and the SID assignments
        (``None``: OS entropy). A seed makes the run reproducible and is never written out.
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
    generator = make_rng(rng)
    started = time.perf_counter()
    reporter = as_progress(progress, "reproduce multisa", total=len(EXPERIMENTS) + 1)
    with atomic_directory(out, overwrite) as tmp, reporter:
        data = load_data()
        runner = Runner(data, plan, generator)
        results: dict[str, Any] = {}
        for exp, method in EXPERIMENTS.items():
            with reporter.stage(exp):
                results[exp] = getattr(runner, method)()
        with reporter.stage("checks and report"):
            results["meta"] = _meta(plan, len(data), time.perf_counter() - started)
            results = json_plain(results)
            results["checks"] = mark_expected(run_checks(results), EXPECTED_DEVIATIONS, quick)
            build_report(results, plan).write(tmp / "report.html")
            write_results(tmp, results)
    return Path(out), results


def _meta(plan: Plan, records: int, seconds: float) -> dict[str, Any]:
    from microanon.core.version import __version__

    return {
        "microanon_version": __version__,
        "runtime_seconds": round(seconds, 2),
        "quick": plan.quick,
        "records": records,
        "data": "load_adult('train', dropna=False) without the rows of unknown occupation; "
        "unknown native_country kept as '?'",
        "quasi": list(QUASI),
        "sensitive_sets": {k: list(v) for k, v in SA_SETS.items()},
        "rng": RNG_POLICY,
        "plan": plan.describe(),
        "methods": {
            "mixed": "mixed_model(l, min_confidence, allow_suppression=True)",
            "rating": "rating(l, improved=True, allow_suppression=True)",
        },
        "measures": (
            "microanon.measures.multisa: AIL with suppressed values and deleted records counted "
            "1 per value over n·d (n = 30,718 incl. deleted); RCE per record, suppressed or "
            "deleted values uniform over the attribute's domain; recovered confidence by Lemma "
            "22 (mixed) or expected co-occurrence under independent SIDs (Rating); disclosure "
            "probability k_G/|G| (mixed) or min(1, n_XY/N_cand) (Rating)"
        ),
    }
