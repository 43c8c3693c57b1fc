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
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

import numpy as np

from microanon.reproductions.distribution.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.reproductions.distribution.experiments import FULL, QUICK, Runner
from microanon.reproductions.distribution.measure import split_denominator
from microanon.reproductions.distribution.report import build_report
from microanon.reproductions.outputs import RNG_POLICY
from microanon.reproductions.paper import Experiments, Note, Pieces, Stage

__all__ = ["PIECES", "STEPS"]

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


class _Distribution(Experiments):
    """One stage per method of :data:`STEPS`."""

    def __init__(self, plan: Any, rng: np.random.Generator) -> None:
        super().__init__(plan, rng)
        self.runner = Runner(plan, rng)

    def stages(self) -> list[Stage]:
        return [
            Stage("/".join(experiments), partial(self._step, method, experiments))
            for method, experiments in STEPS.items()
        ]

    def _step(self, method: str, experiments: tuple[str, ...], note: Note) -> dict[str, Any]:
        produced = getattr(self.runner, method)()
        return produced if len(experiments) > 1 else {experiments[0]: produced}

    def meta(self, seed_given: bool) -> dict[str, Any]:
        return {
            "cpus": os.cpu_count(),
            "rng": RNG_POLICY,
            "seed_given": seed_given,
            "plan": self.plan.describe(),
            "data_sets": self.runner.sizes(),
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

    def checks(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        return run_checks(results, list(self.plan.widths), self.plan.focus_width)


#: What the runner runs for Koudas et al.'s paper.
PIECES = Pieces(
    full=FULL,
    quick=QUICK,
    experiments=_Distribution,
    deviations=EXPECTED_DEVIATIONS,
    report=build_report,
)
