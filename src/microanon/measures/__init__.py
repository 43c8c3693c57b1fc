"""Measures of what a release costs (utility) and still leaks (risk).

All functions take a pandas DataFrame (original or generalized, any index) and the names of its
quasi-identifier columns; the utility measures also take one
:class:`~microanon.core.hierarchy.Hierarchy` per quasi-identifier.

Equivalence classes (:mod:`.classes`)
    :func:`equivalence_classes`, :func:`discernibility`, :func:`aecs`
Survey risk as sdcMicro (:mod:`.survey_risk`, :mod:`.loglinear`, :mod:`.suda`)
    :func:`key_frequencies`, :func:`individual_risk` (with sampling weights and households),
    :func:`loglinear_risk` (Skinner–Shlomo), :func:`suda2`, :func:`minimal_uniques`
Re-identification risk (:mod:`.risk`, :mod:`.attacker`, :mod:`.population`)
    :func:`reidentification_risk`, :func:`sample_uniques`; :func:`attacker_risks` (prosecutor,
    journalist, marketer); :func:`population_uniqueness` (Pitman, Zayatz, SNB, Dankar et al.'s
    rule), :data:`REGIONS`
Information loss (:mod:`.utility`, :mod:`.entropy`)
    :func:`loss_metric`, :func:`ncp`, :func:`precision`, :func:`non_uniform_entropy`
Estimated distributions (:mod:`.estimators`, :mod:`.distribution`)
    :func:`estimate_joint`, :func:`true_joint`, :func:`kl_divergence`,
    :func:`reconstruction_error`, :func:`cover_intervals`, :func:`estimate_distribution`,
    :func:`chi_square`, :func:`squared_euclidean`, :func:`query_errors`,
    :func:`uncertainty_coefficients`, :func:`utility_report`
Multiple sensitive attributes (:mod:`.multisa`)
    :func:`ail`, :func:`ail_components`, :func:`rce`, :func:`recovered_confidences`,
    :func:`disclosure_probabilities`, :func:`strong_rule_attack`; why the mixed model deletes
    records (:mod:`.multisa_deletions`): :func:`explain_deletions`, :func:`group_capacity`,
    :func:`max_groups`
Classification (:mod:`.classification`)
    :class:`ID3`, :func:`classification_accuracy`, :func:`relative_accuracy`
Perturbative releases (:mod:`.perturbative`, :mod:`.linkage`): original and masked numeric columns
compared record by record
    :func:`sse`, :func:`information_loss`, :func:`il1s`, :func:`mean_changes`,
    :func:`variance_changes`, :func:`covariance_changes`, :func:`correlation_changes`,
    :func:`utility_summary`, :class:`MaskedPairs`; :func:`distance_linkage`,
    :func:`interval_disclosure`, :func:`rank_disclosure`, :func:`risk_summary`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports

if TYPE_CHECKING:  # imported on first use (microanon.core.lazy): see _WHERE
    from .attacker import AttackerRisks, ModelRisk, attacker_risks
    from .classes import ClassStats, aecs, discernibility, equivalence_classes
    from .classification import ID3, classification_accuracy, relative_accuracy
    from .distribution import (
        QueryErrors,
        chi_square,
        estimate_distribution,
        query_errors,
        squared_euclidean,
        uncertainty_coefficients,
        utility_report,
    )
    from .entropy import NonUniformEntropy, non_uniform_entropy
    from .estimators import (
        cover_intervals,
        estimate_joint,
        kl_divergence,
        reconstruction_error,
        true_joint,
    )
    from .linkage import (
        IntervalDisclosure,
        Linkage,
        RankDisclosure,
        RiskSummary,
        distance_linkage,
        interval_disclosure,
        rank_disclosure,
        risk_summary,
    )
    from .loglinear import LoglinearRisk, loglinear_risk
    from .multisa import (
        ail,
        ail_components,
        disclosure_probabilities,
        rce,
        recovered_confidences,
        strong_rule_attack,
    )
    from .multisa_deletions import explain_deletions, group_capacity, max_groups
    from .perturbative import (
        Change,
        InformationLoss,
        MaskedPairs,
        UtilitySummary,
        correlation_changes,
        covariance_changes,
        il1s,
        information_loss,
        mean_changes,
        sse,
        utility_summary,
        variance_changes,
    )
    from .population import REGIONS, PopulationUniqueness, UniquenessEstimate, population_uniqueness
    from .risk import RiskProfile, Uniques, reidentification_risk, sample_uniques
    from .suda import Suda, minimal_uniques, suda2
    from .survey_risk import IndividualRisk, KeyFrequencies, individual_risk, key_frequencies
    from .utility import LossMetric, NCPScore, loss_metric, ncp, precision

#: Exported name -> its submodule.
_WHERE = {
    **dict.fromkeys(["AttackerRisks", "ModelRisk", "attacker_risks"], "attacker"),
    **dict.fromkeys(["ClassStats", "aecs", "discernibility", "equivalence_classes"], "classes"),
    **dict.fromkeys(["ID3", "classification_accuracy", "relative_accuracy"], "classification"),
    **dict.fromkeys(
        [
            "QueryErrors",
            "chi_square",
            "estimate_distribution",
            "query_errors",
            "squared_euclidean",
            "uncertainty_coefficients",
            "utility_report",
        ],
        "distribution",
    ),
    **dict.fromkeys(["NonUniformEntropy", "non_uniform_entropy"], "entropy"),
    **dict.fromkeys(
        [
            "cover_intervals",
            "estimate_joint",
            "kl_divergence",
            "reconstruction_error",
            "true_joint",
        ],
        "estimators",
    ),
    **dict.fromkeys(
        [
            "IntervalDisclosure",
            "Linkage",
            "RankDisclosure",
            "RiskSummary",
            "distance_linkage",
            "interval_disclosure",
            "rank_disclosure",
            "risk_summary",
        ],
        "linkage",
    ),
    **dict.fromkeys(["LoglinearRisk", "loglinear_risk"], "loglinear"),
    **dict.fromkeys(
        [
            "ail",
            "ail_components",
            "disclosure_probabilities",
            "rce",
            "recovered_confidences",
            "strong_rule_attack",
        ],
        "multisa",
    ),
    **dict.fromkeys(["explain_deletions", "group_capacity", "max_groups"], "multisa_deletions"),
    **dict.fromkeys(
        [
            "Change",
            "InformationLoss",
            "MaskedPairs",
            "UtilitySummary",
            "correlation_changes",
            "covariance_changes",
            "il1s",
            "information_loss",
            "mean_changes",
            "sse",
            "utility_summary",
            "variance_changes",
        ],
        "perturbative",
    ),
    **dict.fromkeys(
        ["REGIONS", "PopulationUniqueness", "UniquenessEstimate", "population_uniqueness"],
        "population",
    ),
    **dict.fromkeys(["RiskProfile", "Uniques", "reidentification_risk", "sample_uniques"], "risk"),
    **dict.fromkeys(["Suda", "minimal_uniques", "suda2"], "suda"),
    **dict.fromkeys(
        ["IndividualRisk", "KeyFrequencies", "individual_risk", "key_frequencies"], "survey_risk"
    ),
    **dict.fromkeys(["LossMetric", "NCPScore", "loss_metric", "ncp", "precision"], "utility"),
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = [
    "ail",
    "ail_components",
    "disclosure_probabilities",
    "explain_deletions",
    "group_capacity",
    "max_groups",
    "rce",
    "recovered_confidences",
    "strong_rule_attack",
    "REGIONS",
    "AttackerRisks",
    "Change",
    "ClassStats",
    "ID3",
    "IndividualRisk",
    "InformationLoss",
    "IntervalDisclosure",
    "KeyFrequencies",
    "Linkage",
    "LoglinearRisk",
    "LossMetric",
    "MaskedPairs",
    "ModelRisk",
    "NCPScore",
    "NonUniformEntropy",
    "PopulationUniqueness",
    "QueryErrors",
    "RankDisclosure",
    "RiskProfile",
    "RiskSummary",
    "Suda",
    "UniquenessEstimate",
    "Uniques",
    "UtilitySummary",
    "aecs",
    "attacker_risks",
    "chi_square",
    "classification_accuracy",
    "correlation_changes",
    "covariance_changes",
    "cover_intervals",
    "discernibility",
    "distance_linkage",
    "equivalence_classes",
    "estimate_distribution",
    "estimate_joint",
    "il1s",
    "individual_risk",
    "information_loss",
    "interval_disclosure",
    "key_frequencies",
    "kl_divergence",
    "loglinear_risk",
    "loss_metric",
    "mean_changes",
    "minimal_uniques",
    "ncp",
    "non_uniform_entropy",
    "population_uniqueness",
    "precision",
    "query_errors",
    "rank_disclosure",
    "reconstruction_error",
    "reidentification_risk",
    "relative_accuracy",
    "risk_summary",
    "sample_uniques",
    "squared_euclidean",
    "sse",
    "suda2",
    "true_joint",
    "uncertainty_coefficients",
    "utility_report",
    "utility_summary",
    "variance_changes",
]
