"""``microanon reproduce randomization``: experiments E0.1–E0.7 of Guo, Ying & Wu (2011).

Runs the experiments of *Limiting Attribute Disclosure in Randomization Based Microdata Release*
(Journal of Computing Science and Engineering 5(3), 2011) on two variants of UCI Adult and writes
``report.html`` (Tables 3–5, Figs. 3–7, pass/fail checks) and ``results.json`` (every number of
those tables and figures) into one directory, atomically. See docs/reproduce-randomization.md.

``results.json`` layout: ``results[experiment][variant]`` with experiment ``"E0.1"`` …
``"E0.7"`` and variant ``"adult_45222"`` / ``"adult_30162"``; below that

- E0.1: setting (``EMGRW``, ``ESGRO``) → scenario (``RR-S``, ``RR-QI``, ``RR-Both``) → ℓ →
  ``{keep, max_risk, objective, expected_squared_error}`` or ``{infeasible, why, ...}``;
- E0.2: scenario → ℓ → ``{kl, chi_square, squared_euclidean, sd, replications,
  expected_squared_error}`` (EMGRW);
- E0.3: scenario → r → the same plus ``n`` and ``keep`` (EMGRW resampled to r·N records);
- E0.4 / E0.5: method (``RR-QI``, ``Anatomy``, ``l-diversity``) → ℓ → distances / query
  errors (ESGRO; E0.5 adds ``base_by_cell_size``, the base group-by's error per band of original
  cell count);
- E0.6: ``original`` → U; method → ℓ → U, where U is ``{sa_qi: {qi: U(SA | qi)}, qi_qi:
  {"B | A": U(B | A)}, u_sa_qi, u_qi_qi}``;
- E0.7: ``original`` and method (``RR-Both``, ``Anatomy``, ``l-diversity``) → ℓ →
  ``{u_sa_qi, u_qi_qi}``;
- E0.8 (ours, not the paper's): setting → ℓ → RR-S under the average-risk constraint:
  distances, parameters, ``average_risk``, ``share_above``, ``cells_above`` (or
  ``{infeasible}``);
- E0.9 (ours): ``ESGRO`` → ``RR-QI`` and ``EMGRW`` → scenario, then ℓ → estimator
  (``inverse``, ``em``, ``projection``) → ``{kl, query_error_base, query_error_cube}``;

plus ``checks`` (list of pass/fail lines) and ``meta`` (runtime, R, the randomness policy, the
plan, the microanon version; never a seed).

Every check line also carries ``expected`` and ``reason``: whether the reproduction's list of
expected deviations (``EXPECTED_DEVIATIONS`` of its checks module) covers it, and why.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from microanon.apps.families.randomize.reproduce.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.apps.families.randomize.reproduce.experiments import VariantRun
from microanon.apps.families.randomize.reproduce.report import build_report
from microanon.apps.families.randomize.reproduce.setup import (
    FULL,
    QUICK,
    SETTINGS,
    VARIANTS,
    load_variant,
)
from microanon.apps.reproduction.expected import mark_expected
from microanon.apps.reproduction.outputs import RNG_POLICY, json_plain, write_results
from microanon.core.output import atomic_directory
from microanon.core.progress import ProgressLike, as_progress
from microanon.core.random import RandomLike, make_rng

__all__ = ["EXPERIMENTS", "run_randomization"]

#: Experiment id -> method of :class:`VariantRun`, in run order.
EXPERIMENTS = {
    "E0.1": "e01",
    "E0.2": "e02",
    "E0.3": "e03",
    "E0.4": "e04",
    "E0.5": "e05",
    "E0.6": "e06",
    "E0.7": "e07",
    "E0.8": "e08",
    "E0.9": "e09",
}


def run_randomization(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    rng: RandomLike = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run experiments E0.1–E0.7 and write ``out/report.html`` and ``out/results.json``.

    Parameters
    ----------
    out : path
        Output directory, written atomically (nothing is left behind on failure).
    quick : bool, default False
        The reduced grid (:data:`~.setup.QUICK`: one replication, three data sizes, fewer
        ℓ in E0.4–E0.7) that runs in well under a minute; the default is the paper's grid with
        10 replications per point (:data:`~.setup.FULL`).
    rng : numpy.random.Generator, int or None
        Randomness of the randomizations, Anatomy partitions and resampling (``None``: OS
        entropy). A seed makes the run reproducible and is never written out.
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
    steps = len(VARIANTS) * len(EXPERIMENTS) + 1
    reporter = as_progress(progress, "reproduce randomization", total=steps)
    with atomic_directory(out, overwrite) as tmp, reporter:
        results: dict[str, Any] = {exp: {} for exp in EXPERIMENTS}
        rows: dict[str, int] = {}
        for variant in VARIANTS:
            data = load_variant(variant)
            rows[variant] = len(data)
            run = VariantRun(variant, data, plan, generator)
            for exp, method in EXPERIMENTS.items():
                with reporter.stage(f"{exp} on {variant}"):
                    results[exp][variant] = getattr(run, method)()
        with reporter.stage("checks and report"):
            results["checks"] = mark_expected(run_checks(results), EXPECTED_DEVIATIONS, quick)
            results["meta"] = _meta(plan, rows, time.perf_counter() - started)
            results = json_plain(results)
            build_report(results, plan).write(tmp / "report.html")
            write_results(tmp, results)
    return Path(out), results


def _meta(plan: Any, rows: dict[str, int], seconds: float) -> dict[str, Any]:
    from microanon.core.version import __version__

    return {
        "microanon_version": __version__,
        "runtime_seconds": round(seconds, 2),
        "quick": plan.quick,
        "replications": plan.replications,
        "rng": RNG_POLICY,
        "plan": plan.describe(),
        "variants": {k: {"split": VARIANTS[k], "rows": n} for k, n in rows.items()},
        "settings": {
            name: {"quasi": list(s.quasi), "sensitive": s.sensitive} for name, s in SETTINGS.items()
        },
        "l_diversity": (
            "entropy l-diversity, full-domain generalization with ARX's Adult hierarchies, no "
            "suppression; among the minimal nodes: least total height, then least "
            "discernibility, then smaller levels in schema order"
        ),
        "estimators": (
            "RR: pi_hat = P^-1 lambda_hat (raw for chi-square, squared Euclidean and query "
            "errors; clip-renormalized for KL and U); generalized: uniform spread; Anatomy: "
            "group counts spread over the group's tuples; KL floor 1e-12; chi-square with the "
            "original in the denominator; CUBE = all subsets of the 5 attributes"
        ),
        "u_l_diversity": (
            "computed on the published generalized values (as the paper's Tables 4-5 imply)"
        ),
    }
