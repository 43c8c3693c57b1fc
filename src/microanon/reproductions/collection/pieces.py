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
"""

from __future__ import annotations

from functools import partial
from typing import Any

from microanon.reproductions.collection.baselines import EPR_SIGMA, MRR_Z
from microanon.reproductions.collection.checks import EXPECTED_DEVIATIONS, matched, run_checks
from microanon.reproductions.collection.experiments import Runner
from microanon.reproductions.collection.report import build_report
from microanon.reproductions.collection.setup import FULL, QUICK
from microanon.reproductions.outputs import RNG_POLICY
from microanon.reproductions.paper import Experiments, Note, Pieces, Stage

__all__ = ["PARTS", "PIECES"]

#: Method of :class:`Runner` -> what its stage of the progress says, in run order.
PARTS = {
    "gtr": "GTR through the collection service",
    "local_recoding": "local recoding (LRKA, LD)",
    "perturbation": "perturbation (MRR, EPR)",
}


class _Collection(Experiments):
    """The parts of :data:`PARTS`, then ID3 on the original records; E1.2 and E1.3 matched."""

    _runner: Runner | None = None

    @property
    def runner(self) -> Runner:
        """The :class:`Runner` of the stages (``meta`` and the checks come after them)."""
        if self._runner is None:
            raise RuntimeError("the stages of the collection experiments have not run")
        return self._runner

    def stages(self) -> list[Stage]:
        parts = [Stage(title, partial(self._part, part)) for part, title in PARTS.items()]
        return [*parts, Stage("ID3 on the original records", self._original)]

    def _part(self, part: str, note: Note) -> dict[str, Any]:
        if self._runner is None:  # the first stage draws the respondents
            self._runner = Runner(self.plan, self.rng, note)
        return {part: getattr(self._runner, part)()}

    def _original(self, note: Note) -> dict[str, Any]:
        samples = self.runner.samples
        return {"original_accuracy": {n: self.runner.original_accuracy(n) for n in samples}}

    def derived(self, results: dict[str, Any]) -> dict[str, Any]:
        return {
            "E1.2": matched(results, self.plan, "accuracy"),
            "E1.3": matched(results, self.plan, "loss"),
        }

    def meta(self, seed_given: bool) -> dict[str, Any]:
        plan = self.plan
        data = {}
        for name, s in self.runner.samples.items():
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
                "epr": f"σ = {EPR_SIGMA}, warm-up = number of bits, eigenvectors refreshed every "
                "100 submissions, k* capped at the number of bits; decoded by the highest bit per "
                "attribute; class in the clear",
                "accuracy": f"ID3, {plan.folds}-fold cross-validation with the same folds for "
                "every method, trained on what the method publishes for the other folds "
                f"({plan.draws} base tuples drawn inside each generalized tuple), tested on the "
                "held-out original records, divided by the accuracy of training on originals",
            },
        }

    def checks(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        return run_checks(results, self.plan)


#: What the runner runs for Zhang & Zhang's paper.
PIECES = Pieces(
    full=FULL,
    quick=QUICK,
    experiments=_Collection,
    deviations=EXPECTED_DEVIATIONS,
    report=build_report,
)
