"""``microanon reproduce collection``: experiments E1.1–E1.3 of Zhang & Zhang (DaWaK 2008).

Runs the experiments of *Generalization-Based Privacy-Preserving Data Collection* (DaWaK 2008) on
Adult and Nursery — GTR through the real collection service over HTTP on loopback, MRR, EPR,
local-recoding k-anonymity (LRKA) and ℓ-diversity (LD) on the same respondents — and writes
``report.html`` (Figs. 5–6 and the loss figure with their numbers, each finding next to ours) and
``results.json`` into one directory, atomically. See docs/reproduce-collection.md.

``results.json`` layout (a *point*: ``privacy`` = min over respondents of ``Pv``, ``protected``
= τ → share of respondents with ``Pv ≥ τ``, ``accuracy`` = relative ID3 accuracy, ``loss`` =
average ``L(t)`` per tuple or null, ``published`` = tuples released):

- ``gtr``: data set → τ → point, plus ``abstained``, ``seconds``, ``per_second``,
  ``recomputations`` (GTR runs after a 409) and ``checked_at_acceptance`` = {``checked``,
  ``protected``} (Definition 1 re-checked exactly against the set at acceptance), ``greedy``
  = {``audited``, ``optimal``, ``mean_gap``, ``max_gap``, ``greedy_abstained``,
  ``exact_abstained``} (greedy against exact GTR for sampled accepted respondents, against the
  set at their acceptance) and ``final_set`` = {``accepted``, ``protected``, ``share``,
  ``min_pv``} (the accepted respondents' Pv against the final set);
- ``local_recoding``: data set → ``lrka`` (k → point) / ``ld`` (ℓ → point);
- ``perturbation``: data set → ``mrr`` (θ → point) / ``epr`` (k* → point);
- ``original_accuracy``: data set → ID3's cross-validated accuracy on the original records;
- ``E1.2``: data set → τ → method → {``accuracy``, ``parameter``} or null (the method meets no
  parameter with privacy ≥ τ); ``E1.3``: the same with ``loss``;

plus ``checks`` (pass/fail lines) and ``meta`` (runtime, data, plan, randomness policy — never
the seed —, microanon's version).

Every check line also carries ``expected`` and ``reason``: whether the reproduction's list of
expected deviations (``EXPECTED_DEVIATIONS`` of its checks module) covers it, and why.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from microanon.apps.families.collect.reproduce.baselines import EPR_SIGMA, MRR_Z
from microanon.apps.families.collect.reproduce.checks import (
    EXPECTED_DEVIATIONS,
    matched,
    run_checks,
)
from microanon.apps.families.collect.reproduce.experiments import Runner
from microanon.apps.families.collect.reproduce.report import build_report
from microanon.apps.families.collect.reproduce.setup import FULL, QUICK, Plan
from microanon.apps.reproduction.expected import mark_expected
from microanon.apps.reproduction.outputs import RNG_POLICY, json_plain, write_results
from microanon.core.output import atomic_directory
from microanon.core.progress import ProgressLike, as_progress
from microanon.core.random import RandomLike, make_rng

__all__ = ["PARTS", "run_collection"]

#: Method of :class:`Runner` -> what its stage of the progress says, in run order.
PARTS = {
    "gtr": "GTR through the collection service",
    "local_recoding": "local recoding (LRKA, LD)",
    "perturbation": "perturbation (MRR, EPR)",
}


def run_collection(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    rng: RandomLike = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Run experiments E1.1–E1.3 and write ``out/report.html`` and ``out/results.json``.

    Parameters
    ----------
    out : path
        Output directory, written atomically (nothing is left behind on failure).
    quick : bool, default False
        The reduced plan (:data:`~._col_setup.QUICK`: 800 respondents per data set, two τ,
        fewer baseline parameters), about 15 s; the default is :data:`~._col_setup.FULL`.
    rng : numpy.random.Generator, int or None
        Randomness of the respondents' order, the folds, MRR, EPR and the ID3 training draws
        (``None``: OS entropy). A seed makes the run reproducible and is never written out.
    progress : Progress, bool, str or None, default False
        Progress on stderr, one stage per part of the experiments (with a line per data set and
        parameter within it): a bar (True), nothing (False), lines (``"lines"``), or either by
        whether stderr is a terminal (None or ``"auto"``); see
        :func:`microanon.core.progress.as_progress`.
    overwrite : bool, default False
        Replace an existing non-empty ``out``.

    Returns
    -------
    (pathlib.Path, dict)
        The output directory and the results as written to ``results.json``.
    """
    plan = QUICK if quick else FULL
    generator = make_rng(rng)
    started = time.perf_counter()
    reporter = as_progress(progress, "reproduce collection", total=len(PARTS) + 2)
    with atomic_directory(out, overwrite) as tmp, reporter:
        runner = Runner(plan, generator, reporter.note)
        results: dict[str, Any] = {}
        for part, title in PARTS.items():
            with reporter.stage(title):
                results[part] = getattr(runner, part)()
        with reporter.stage("ID3 on the original records"):
            results["original_accuracy"] = {n: runner.original_accuracy(n) for n in runner.samples}
        with reporter.stage("checks and report"):
            results = json_plain(results)
            results["E1.2"] = matched(results, plan, "accuracy")
            results["E1.3"] = matched(results, plan, "loss")
            results["meta"] = _meta(plan, runner, time.perf_counter() - started)
            checks = run_checks(results, plan)
            results["checks"] = mark_expected(checks, EXPECTED_DEVIATIONS, quick)
            build_report(results, plan).write(tmp / "report.html")
            write_results(tmp, results)
    return Path(out), results


def _meta(plan: Plan, runner: Runner, seconds: float) -> dict[str, Any]:
    from microanon.core.version import __version__

    data = {}
    for name, s in runner.samples.items():
        survey = s.ds.survey
        data[name] = {
            "records": len(s.ds.data),
            "respondents": s.n,
            "quasi": list(survey.quasi),
            "sensitive": survey.sensitive,
            "class": s.ds.target,
            "taxonomy_heights": {tx.name: int(tx.height) for tx in survey.taxonomies},
        }
    return {
        "microanon_version": __version__,
        "runtime_seconds": round(seconds, 2),
        "quick": plan.quick,
        "data": data,
        "plan": plan.describe(),
        "rng": RNG_POLICY,
        "protocol": {
            "gtr": "a fresh 'microanon serve' process per data set and τ (SQLite storage), "
            f"{plan.clients} concurrent clients submitting over HTTP on loopback, exact GTR, "
            "paper loss",
            "privacy": "Pv of every respondent against the final published set (eq. 1 on "
            "generalized tables; MRR's estimated joint counts; EPR's decoded records); a "
            "parameter meets τ when the smallest Pv is at least τ",
            "mrr": "one-hot bits, all kept (θ) or all complemented; class in the clear; ID3 "
            f"from estimated counts (z = {MRR_Z}, node budget 1,000)",
            "epr": f"σ = {EPR_SIGMA}, warm-up = number of bits, eigenvectors refreshed every 100 "
            "submissions, k* capped at the number of bits; decoded by the highest bit per "
            "attribute; class in the clear",
            "accuracy": f"ID3, {plan.folds}-fold cross-validation with the same folds for every "
            "method, trained on what the method publishes for the other folds "
            f"({plan.draws} base tuples drawn inside each generalized tuple), tested on the "
            "held-out original records, divided by the accuracy of training on originals",
        },
    }
