"""Measures of what a release costs (utility) and still leaks (risk).

All functions take a pandas DataFrame (original or generalized, any index) and the names of its
quasi-identifier columns; the utility measures also take one
:class:`~microanon.core.hierarchy.Hierarchy` per quasi-identifier.

Equivalence classes (:mod:`.classes`)
    :func:`equivalence_classes`, :func:`discernibility`, :func:`aecs`
Re-identification risk (:mod:`.risk`)
    :func:`reidentification_risk`, :func:`sample_uniques`
Information loss (:mod:`.utility`)
    :func:`loss_metric`, :func:`ncp`, :func:`precision`
"""

from __future__ import annotations

from .classes import ClassStats, aecs, discernibility, equivalence_classes
from .risk import RiskProfile, Uniques, reidentification_risk, sample_uniques
from .utility import LossMetric, NCPScore, loss_metric, ncp, precision

__all__ = [
    "ClassStats",
    "LossMetric",
    "NCPScore",
    "RiskProfile",
    "Uniques",
    "aecs",
    "discernibility",
    "equivalence_classes",
    "loss_metric",
    "ncp",
    "precision",
    "reidentification_risk",
    "sample_uniques",
]
