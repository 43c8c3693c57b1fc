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
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from microanon.reproductions.outputs import RNG_POLICY
from microanon.reproductions.paper import Experiments, Note, Pieces, Stage
from microanon.reproductions.randomization.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.reproductions.randomization.experiments import VariantRun
from microanon.reproductions.randomization.report import build_report
from microanon.reproductions.randomization.setup import (
    FULL,
    QUICK,
    SETTINGS,
    VARIANTS,
    load_variant,
)

__all__ = ["EXPERIMENTS", "PIECES"]

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


class _Randomization(Experiments):
    """One stage per experiment of :data:`EXPERIMENTS` and variant of :data:`VARIANTS`, every
    experiment on one variant before the next variant is loaded."""

    _run: VariantRun | None = None

    def __init__(self, plan: Any, rng: np.random.Generator) -> None:
        super().__init__(plan, rng)
        self.rows: dict[str, int] = {}

    def stages(self) -> list[Stage]:
        return [
            Stage(f"{exp} on {variant}", partial(self._experiment, variant, exp, method))
            for variant in VARIANTS
            for exp, method in EXPERIMENTS.items()
        ]

    def _experiment(self, variant: str, exp: str, method: str, note: Note) -> dict[str, Any]:
        if self._run is None or self._run.key != variant:  # a variant's first stage loads it
            data = load_variant(variant)
            self.rows[variant] = len(data)
            self._run = VariantRun(variant, data, self.plan, self.rng)
        return {exp: {variant: getattr(self._run, method)()}}

    def meta(self, seed_given: bool) -> dict[str, Any]:
        return {
            "replications": self.plan.replications,
            "rng": RNG_POLICY,
            "plan": self.plan.describe(),
            "variants": {k: {"split": VARIANTS[k], "rows": n} for k, n in self.rows.items()},
            "settings": {
                name: {"quasi": list(s.quasi), "sensitive": s.sensitive}
                for name, s in SETTINGS.items()
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

    def checks(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        return run_checks(results)


#: What the runner runs for Guo, Ying & Wu's paper.
PIECES = Pieces(
    full=FULL,
    quick=QUICK,
    experiments=_Randomization,
    deviations=EXPECTED_DEVIATIONS,
    report=build_report,
)
