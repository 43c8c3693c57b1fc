"""The perturbation baselines of the data-collection reproduction: MRR and EPR points.

Both randomize the survey attributes (quasi-identifiers and the sensitive attribute); the class is
handed over in the clear, as for GTR. The distribution attack (eqs. 1–3 of Zhang & Zhang, DaWaK
2008; its use on these baselines is ours) estimates ``Pr[a | q]`` from what the method publishes —
MRR's unbiased estimator of the joint counts, EPR's decoded records — and a respondent is protected
at τ when ``1 − max_a Pr[a | q] ≥ τ`` for its true ``q``. Relative ID3 accuracy uses the runner's
folds: a tree trained on the published records of the other folds (MRR: Du & Zhan's tree from
estimated counts; EPR: ID3 on the decoded records) predicts the held-out original records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from microanon.measures.classification import ID3
from microanon.methods.randomize import MRRData, epr, epr_decode, mrr

if TYPE_CHECKING:
    from microanon.reproductions.collection.setup import Plan, Sample

__all__ = ["EPR_SIGMA", "MRR_Z", "epr_point", "mrr_point"]

#: EPR's noise (standard deviation per coordinate of the subspace).
EPR_SIGMA = 0.25
#: Standard errors a split of MRR's tree must clear (MRRData.id3).
MRR_Z = 3.0
_ROW = "__respondent__"


def _point(s: Sample, pv: np.ndarray, plan: Plan, accuracy: float, base: float) -> dict[str, Any]:
    return {
        "privacy": float(pv.min()),
        "protected": {str(t): float(np.mean(pv >= t - 1e-12)) for t in plan.taus},
        "accuracy": accuracy / base,
        "loss": None,
        "published": s.n,
    }


def mrr_point(
    s: Sample, theta: float, plan: Plan, rng: np.random.Generator, base: float
) -> dict[str, Any]:
    """MRR with retention θ on the sample: privacy, protection, relative accuracy."""
    survey, target = s.ds.survey, s.ds.target
    frame = s.frame[[*survey.attributes, target]].assign(**{_ROW: np.arange(s.n)})
    data = MRRData.from_release(mrr(frame, survey.attributes, theta, clear=[target, _ROW], rng=rng))
    probs, _ = data.conditional(survey.quasi, survey.sensitive, s.frame[survey.quasi])
    respondent = data.clear[_ROW].to_numpy()  # release row -> respondent

    def train(rows: np.ndarray) -> ID3:
        return data.rows(rows[respondent]).id3(target, survey.attributes, z=MRR_Z)

    return _point(s, 1.0 - probs.max(axis=1), plan, s.cv_accuracy(train), base)


def epr_point(
    s: Sample, k: int, plan: Plan, rng: np.random.Generator, base: float
) -> dict[str, Any]:
    """EPR with ``k*`` eigenvectors (at most the number of bits) on the sample."""
    survey, target = s.ds.survey, s.ds.target
    width = int(s.frame[survey.attributes].nunique().sum())  # bits of the one-hot records
    k_used = min(int(k), width)
    decoded = epr_decode(
        epr(s.frame, survey.attributes, k_used, sigma=EPR_SIGMA, clear=[target], rng=rng)
    )
    pv = _decoded_pv(decoded, s.frame, survey.quasi, survey.sensitive)

    def train(rows: np.ndarray) -> ID3:
        return ID3().fit(decoded.loc[rows, survey.attributes], decoded.loc[rows, target])

    point = _point(s, pv, plan, s.cv_accuracy(train), base)
    point["k_used"] = k_used
    return point


def _decoded_pv(
    decoded: pd.DataFrame, original: pd.DataFrame, quasi: list[str], sensitive: str
) -> np.ndarray:
    """``1 − max_a Pr[a | q]`` per respondent, ``Pr`` counted on the decoded records (the
    decoded marginal of the sensitive attribute where no decoded record has ``q``)."""
    joint = decoded.groupby([*quasi, sensitive], sort=False, observed=True).size()
    by_q = joint.groupby(level=list(range(len(quasi))), sort=False, observed=True)
    top = (by_q.max() / by_q.sum()).rename("top")
    marginal = decoded[sensitive].value_counts(normalize=True).max()
    merged = original[quasi].merge(top.reset_index(), on=quasi, how="left")
    return 1.0 - merged["top"].fillna(marginal).to_numpy(dtype=np.float64)
