"""``microanon reproduce multisa``: experiments E2.1–E2.8 of Yi & Shi (2015).

Runs the experiments of *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule* (Mathematical Problems in Engineering 2015) on Adult's 30,718 records and writes
``report.html`` (Figs. 1–11 with their numbers, each finding next to ours) and ``results.json``
into one directory, atomically. See docs/reproduce-multisa.md.

``results.json`` layout (a *point* is one measured release: ``records``, ``seconds``, ``ail``
and its parts ``ail_enlarged`` / ``ail_suppressed`` / ``ail_deleted``, ``rce_mean``,
``sac_published``, ``deleted``, ``left_out``, ``clusters``, ``strong_rules``, ``confidence``
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
"""

from __future__ import annotations

from functools import partial
from typing import Any

from microanon.reproductions.multisa.checks import EXPECTED_DEVIATIONS, run_checks
from microanon.reproductions.multisa.experiments import Runner
from microanon.reproductions.multisa.report import build_report
from microanon.reproductions.multisa.setup import FULL, QUASI, QUICK, SA_SETS, load_data
from microanon.reproductions.outputs import RNG_POLICY
from microanon.reproductions.paper import Experiments, Note, Pieces, Stage

__all__ = ["EXPERIMENTS", "PIECES"]

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


class _Multisa(Experiments):
    """One stage per experiment of :data:`EXPERIMENTS`, on Adult loaded by the first."""

    _runner: Runner | None = None

    @property
    def runner(self) -> Runner:
        """The :class:`Runner` of the stages (``meta`` and the checks come after them)."""
        if self._runner is None:
            raise RuntimeError("the stages of the multisa experiments have not run")
        return self._runner

    def stages(self) -> list[Stage]:
        return [Stage(exp, partial(self._experiment, exp, m)) for exp, m in EXPERIMENTS.items()]

    def _experiment(self, exp: str, method: str, note: Note) -> dict[str, Any]:
        if self._runner is None:  # the first stage loads the data
            self._runner = Runner(load_data(), self.plan, self.rng)
        return {exp: getattr(self._runner, method)()}

    def meta(self, seed_given: bool) -> dict[str, Any]:
        return {
            "records": len(self.runner.data),
            "data": "load_adult('train', dropna=False) without the rows of unknown occupation; "
            "unknown native_country kept as '?'",
            "quasi": list(QUASI),
            "sensitive_sets": {k: list(v) for k, v in SA_SETS.items()},
            "rng": RNG_POLICY,
            "plan": self.plan.describe(),
            "methods": {
                "mixed": "mixed_model(l, min_confidence, allow_suppression=True)",
                "rating": "rating(l, improved=True, allow_suppression=True)",
            },
            "measures": (
                "microanon.measures.multisa: AIL with suppressed values and deleted records "
                "counted 1 per value over n·d (n = 30,718 incl. deleted); RCE per record, "
                "suppressed or deleted values uniform over the attribute's domain; recovered "
                "confidence by Lemma 22 (mixed) or expected co-occurrence under independent SIDs "
                "(Rating); disclosure probability k_G/|G| (mixed) or min(1, n_XY/N_cand) (Rating)"
            ),
        }

    def checks(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        return run_checks(results)


#: What the runner runs for Yi & Shi's paper.
PIECES = Pieces(
    full=FULL,
    quick=QUICK,
    experiments=_Multisa,
    deviations=EXPECTED_DEVIATIONS,
    report=build_report,
)
