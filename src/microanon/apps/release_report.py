"""Utility and residual risk of a release, before and after, as numbers and report sections.

Single-table releases (generalized, randomized, masked) are measured as their kind needs:
generalization-style measures (classes, k, ℓ, t, prosecutor risk, LM, GCP, precision) on what an
attacker sees, randomized releases on their reconstructed distribution, and masked releases that
replace numeric values record by record (microaggregation, noise, swapping, top/bottom coding to
numbers: metadata ``masked_numeric``) by comparing those columns with the original ones by
position (:mod:`microanon.measures.perturbative`, :mod:`microanon.measures.linkage`). The other
masked releases (sampling, recoding, local suppression) take the generalization-style measures,
a suppressed (missing) cell counting as ``"*"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import MicroanonError
from ..core.hierarchy import SUPPRESSED, Hierarchy
from ..core.release import Release
from ..core.schema import Schema
from ..core.table import Table
from ..measures import (
    RiskSummary,
    UtilitySummary,
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    non_uniform_entropy,
    precision,
    reidentification_risk,
    relative_accuracy,
    risk_summary,
    utility_report,
    utility_summary,
)
from ..models import Verdict, check_release, profile, published_groups_frame
from .distribution_report import add_distribution_sections
from .multisa_report import add_multisa_sections
from .report import Report, Section, describe_parameters, new_figure

__all__ = [
    "add_release_sections",
    "perturbative_metrics",
    "privacy_metrics",
    "utility_metrics",
]

_RISK_THRESHOLD = 0.2
#: Interval disclosure half-width and rank window of the masked-release report, in percent.
_INTERVAL_P = 5.0
_RANK_R = 5.0


def _hierarchies(release: Release) -> dict[str, Hierarchy]:
    return {c: Hierarchy.from_dict(d) for c, d in release.metadata.get("hierarchies", {}).items()}


def privacy_metrics(table: pd.DataFrame, quasi: list[str], sensitive: str | None) -> dict[str, Any]:
    """Classes, k, ℓ (distinct, entropy), t and prosecutor risk of a table (attacker view)."""
    out: dict[str, Any] = {}
    if sensitive is not None:
        prof = profile(table, quasi, sensitive)
        out.update(
            classes=prof["classes"],
            k=prof["k"],
            l_distinct=prof["l_distinct"],
            l_entropy=prof["l_entropy"],
            t_closeness=prof["t_closeness"],
        )
    else:
        stats = equivalence_classes(table, quasi)
        out.update(classes=stats.count, k=stats.min_size)
    risk = reidentification_risk(table, quasi, threshold=_RISK_THRESHOLD)
    out.update(risk_max=risk.max, risk_avg=risk.average, records_at_risk=risk.share_above)
    return out


def _attempt(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """A measure's value, or None where it does not apply to this release."""
    try:
        return fn(*args, **kwargs)
    except MicroanonError:
        return None


def utility_metrics(
    release: Release, original: pd.DataFrame | None = None, extended: bool = False
) -> dict[str, Any]:
    """Information loss of a single-table generalized release (None where a measure does not apply).

    LM, GCP and precision use the hierarchies recorded in the release; a numeric quasi-identifier
    without one is measured against its domain in ``original``. Suppressed records count as fully
    generalized. With ``extended``, and when the release keeps every original row in order (star
    suppression, Mondrian, local recoding), also the normalized non-uniform entropy and the
    relative 5-fold ID3 accuracy of predicting the sensitive attribute from the
    quasi-identifiers.
    """
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    suppressed = int(meta.get("suppressed", 0) or 0)
    if release.kind == "anatomized":
        return {"LM": 0.0, "GCP": 0.0, "precision": 1.0, "suppressed": 0}
    data = release.data
    removed = max(int(meta.get("rows_in", len(data))) - len(data), 0)
    hs = _hierarchies(release)
    domains = {q: original[q] for q in quasi if q not in hs} if original is not None else None
    lm = _attempt(loss_metric, data, hs, quasi, suppressed=removed, domains=domains or None)
    gcp = _attempt(ncp, data, hs, quasi, suppressed=removed, domains=domains or None)
    prec = _attempt(precision, data, hs, quasi, suppressed=removed)
    # Discernibility charges each suppressed record N: leave the '*' rows of star mode out of
    # the classes (an attacker still sees them as one class; see published_groups_frame).
    kept = data
    if suppressed:
        kept = data.loc[~(data[quasi].astype(str) == SUPPRESSED).all(axis=1).to_numpy()]
    disc = discernibility(kept, quasi, suppressed=suppressed) if len(kept) else None
    out = {
        "LM": None if lm is None else lm.total,
        "GCP": None if gcp is None else gcp.gcp,
        "precision": prec,
        "discernibility": disc,
        "AECS": len(data) / max(equivalence_classes(data, quasi).count, 1),
        "suppressed": suppressed,
    }
    if extended and original is not None and len(original) == len(data):
        entropy = _attempt(non_uniform_entropy, original, data, quasi, hs or None)
        out["non-uniform entropy (normalized)"] = None if entropy is None else entropy.normalized
        sensitive = (meta.get("sensitive") or [None])[0]
        if sensitive is not None:
            out["relative ID3 accuracy"] = _attempt(
                relative_accuracy, original.reset_index(drop=True), data, quasi, sensitive
            )
    return out


def randomized_utility(release: Release, original: pd.DataFrame, schema: Schema) -> dict[str, Any]:
    """Distances and query errors of the reconstructed distribution of a randomized release.

    Over the joint distribution of the quasi-identifiers and the sensitive attribute (the measures
    of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*,
    JCSE 2011): KL, χ², squared Euclidean distance, mean relative error of the base and CUBE count
    queries, and the mean uncertainty coefficients.
    """
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    sensitive = (meta.get("sensitive") or [None])[0]
    if sensitive is None or not quasi:
        return {}
    table = Table.from_frame(original, schema.select([*quasi, sensitive]))
    numbers = utility_report(release, table, quasi, sensitive)
    return {k: v for k, v in numbers.items() if k not in ("uncertainty", "kind")}


def add_release_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
) -> dict[str, Any]:
    """Add the privacy, utility and class-size sections of one release; return the numbers.

    ``schema`` (the one the release was made with) is needed for randomized releases, whose
    utility is measured on the reconstructed distribution.
    """
    if release.kind == "distribution":
        return add_distribution_sections(report, original, release, title)
    if release.kind == "multi-sa":
        return add_multisa_sections(report, original, release, title)
    if release.kind == "masked" and release.metadata.get("masked_numeric"):
        return _add_perturbative_sections(report, original, release, title)
    if release.kind == "masked":
        release = _suppressed_as_star(release)
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    sensitive = (meta.get("sensitive") or [None])[0]
    kept, attack_quasi, _ = published_groups_frame(release)
    before = privacy_metrics(original, quasi, sensitive)
    after = privacy_metrics(kept, attack_quasi, sensitive)
    sec = report.section(
        f"{title}: privacy",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        f"{len(original):,} records in, {meta.get('rows_out'):,} rows published.",
    )
    verdicts = _verdict_table(sec, release)
    if release.kind == "masked":
        _masking_paragraph(sec, meta)
    comparison = pd.DataFrame(
        {
            "measure": list(before),
            "original": list(before.values()),
            "release": [after.get(k) for k in before],
        }
    )
    sec.table(comparison, caption=_attack_caption(release))
    if release.kind == "randomized" and schema is not None:
        bound = meta.get("risk_bound")
        if bound is not None:
            sec.paragraph(
                f"Randomized response bounds every record's attribute-disclosure risk by "
                f"τ = {bound:.4g}; the optimal keep probabilities reach a maximum risk of "
                f"{meta.get('optimal', {}).get('max_risk', float('nan')):.4g}. The class "
                "statistics below are of the randomized values an attacker sees."
            )
        util = randomized_utility(release, original, schema)
    else:
        util = utility_metrics(release, original, extended=True)
        if "suppressed_total" in meta:
            util["suppressed cells"] = meta["suppressed_total"]
    usec = report.section(
        f"{title}: utility",
        "Information loss (LM, GCP, normalized non-uniform entropy: 0 = original values, "
        "1 = everything suppressed; precision: 1 = original), the discernibility metric (sum of "
        "squared class sizes, suppressed records charged the table size), the average class "
        "size (AECS, suppressed records as one class) and how well ID3 still predicts the "
        "sensitive attribute from the quasi-identifiers (5-fold accuracy on the release over "
        "that on the original; shown when the release keeps every record in order).",
    )
    usec.metrics({k: ("–" if v is None else v) for k, v in util.items()})
    sizes = equivalence_classes(kept, attack_quasi).histogram()
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    ax.bar(sizes.index.to_numpy(), sizes.to_numpy(), color="#4a6fa5")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("equivalence-class size in the release")
    ax.set_ylabel("number of classes")
    usec.figure(fig, "Class sizes after anonymization.")
    return {
        "before": before,
        "after": after,
        "utility": util,
        "verified": bool(np.all([v.holds for v in verdicts])) if verdicts else None,
    }


def _verdict_table(sec: Section, release: Release) -> list[Verdict]:
    """Re-check the release's claimed models and show the verdicts; return them."""
    verdicts = check_release(release) if release.metadata.get("models") else []
    if verdicts:
        sec.table(
            pd.DataFrame(
                {
                    "model": [str(v.model) for v in verdicts],
                    "parameters": [
                        ", ".join(f"{k}={v}" for k, v in v.parameters.items() if v is not None)
                        for v in verdicts
                    ],
                    "holds (re-checked on the release)": [
                        "yes" if v.holds else "NO" for v in verdicts
                    ],
                    "achieved": [v.value for v in verdicts],
                }
            ),
            caption="Every claimed model, checked independently on the published table.",
        )
    return verdicts


def _suppressed_as_star(release: Release) -> Release:
    """The release with missing quasi-identifier cells written ``"*"`` (suppressed, the root).

    Local suppression publishes suppressed cells as missing values (sdcMicro's ``NA``); the
    generalization-style measures read them as ``"*"``: a value of its own for the class
    statistics, full loss for LM, GCP and precision.
    """
    quasi = [q for q in release.metadata.get("quasi") or [] if q in release.data.columns]
    data = release.data.copy()
    for q in quasi:
        if data[q].isna().any():
            data[q] = data[q].astype(object).where(data[q].notna(), SUPPRESSED)
    return Release(release.kind, {**release.tables, "data": data}, release.metadata)


def _masking_paragraph(sec: Section, meta: dict[str, Any]) -> None:
    """What a non-perturbative masking method did, from its metadata."""
    method = meta.get("method")
    if method == "local_suppression":
        params = meta.get("parameters", {})
        matching = (
            "a suppressed cell matches any value (sdcMicro's counting)"
            if params.get("wildcard", True)
            else 'a suppressed cell ("*") is a value of its own'
        )
        sec.paragraph(
            f"{meta.get('suppressed_total', 0):,} key cells suppressed "
            f"({', '.join(f'{c} {n:,}' for c, n in meta.get('suppressed_by_column', {}).items())})"
            f"; {matching}. Every record matches at least {meta.get('achieved_k')} records under "
            "that matching; an attacker who knows a person's original key values faces at least "
            f"{meta.get('min_candidates')} consistent published records. Below, suppressed cells "
            'count as "*".'
        )
    elif method == "sample":
        sec.paragraph(
            f"A {meta.get('parameters', {}).get('fraction')} sample: {meta.get('rows_out'):,} of "
            f"{meta.get('rows_in'):,} records published. Records not published count as "
            "suppressed in LM, GCP and precision."
        )
    elif method == "global_recode":
        changes = ", ".join(
            f"{c} {info['before']} → {info['after']} values"
            for c, info in meta.get("recoded", {}).items()
        )
        sec.paragraph(f"Recoded columns: {changes}.")
    elif method == "top_bottom_code":
        sec.paragraph(
            f"Column {meta.get('parameters', {}).get('column')}: thresholds "
            f"{meta.get('thresholds')}, records coded {meta.get('coded')}, published as labels."
        )


def perturbative_metrics(
    original: pd.DataFrame, release: Release
) -> tuple[dict[str, float], dict[str, float], UtilitySummary, RiskSummary]:
    """Utility and risk of a masked release's ``masked_numeric`` columns against the original.

    Rows are compared by position (the method keeps them in order). Returns the utility and risk
    numbers (flat, for the command line) and the full
    :class:`~microanon.measures.UtilitySummary` and :class:`~microanon.measures.RiskSummary`.
    """
    cols = list(release.metadata["masked_numeric"])
    util = utility_summary(original, release.data, cols)
    risk = risk_summary(original, release.data, cols, p=_INTERVAL_P, r=_RANK_R)
    drisk = risk_summary(original, release.data, cols, p=_INTERVAL_P, r=_RANK_R, outside=1)
    sd = np.sqrt(util.variances.original.to_numpy())
    sd = np.where(sd > 0, sd, 1.0)
    utility = {
        "SSE/SST": util.information_loss.ratio,
        "IL1s": util.il1s,
        "mean change (max relative)": util.means.max_relative,
        "variance change (max relative)": util.variances.max_relative,
        "covariance change (max, in sd units)": float(
            np.nanmax(util.covariances.absolute.to_numpy() / np.outer(sd, sd), initial=0.0)
        ),
        "correlation change (max absolute)": util.correlations.max_absolute,
    }
    risks = {
        "record linkage": risk.linkage.share,
        f"interval disclosure (±{_INTERVAL_P:g}% sd, every column)": risk.interval.share,
        f"interval disclosure (sdcMicro dRisk, k = {_INTERVAL_P / 100:g})": drisk.interval.share,
        f"rank disclosure (±{_RANK_R:g}% of records)": risk.rank.share,
    }
    return utility, risks, util, risk


def _add_perturbative_sections(
    report: Report, original: pd.DataFrame, release: Release, title: str
) -> dict[str, Any]:
    """Privacy and utility sections of a masked release with numeric columns replaced in place.

    Privacy: the claimed models re-checked, record linkage, interval and rank disclosure.
    Utility: SSE/SST, IL1s and the moment changes (:func:`perturbative_metrics`).
    """
    meta = release.metadata
    cols = list(meta["masked_numeric"])
    sec = report.section(
        f"{title}: privacy (disclosure risk of the masked values)",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        f"{meta.get('rows_in'):,} records in, {meta.get('rows_out'):,} rows published; masked "
        f"numeric columns: {', '.join(cols)}.",
    )
    verdicts = _verdict_table(sec, release)
    verified = bool(np.all([v.holds for v in verdicts])) if verdicts else None
    if len(original) != len(release.data):
        sec.paragraph(
            f"The original table given has {len(original):,} rows and the release "
            f"{len(release.data):,}: the masked columns are compared with the original ones by "
            "position, so utility and risk are not measured."
        )
        report.section(f"{title}: utility", "Not measured (see above).")
        return {"before": {}, "after": {}, "utility": {}, "verified": verified}
    utility, risks, util, risk = perturbative_metrics(original, release)
    sec.table(
        pd.DataFrame({"measure": list(risks), "share of records": list(risks.values())}),
        caption="An attacker who knows a person's original values of the masked columns. Record "
        "linkage: the masked record nearest to the original one (Euclidean distance on the "
        "original's z-scores) is the person's own (ties shared). Interval disclosure: the "
        f"original values lie within ±{_INTERVAL_P:g}% of a standard deviation of the masked "
        "ones (sdcMicro's dRisk tolerates one column outside). Rank disclosure (share of "
        f"values): the masked value's rank is within {_RANK_R:g}% of the records of the "
        "original rank.",
    )
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    x = np.arange(len(cols))
    ax.bar(x - 0.2, risk.interval.per_column.to_numpy(), width=0.4, label="interval disclosure")
    ax.bar(x + 0.2, risk.rank.per_column.to_numpy(), width=0.4, label="rank disclosure")
    ax.set_xticks(x, [str(c) for c in cols], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of records")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    sec.figure(fig, "Disclosure risk left in each masked column.")
    per_column = pd.DataFrame(
        {
            "column": [str(c) for c in cols],
            "mean change (relative)": util.means.relative.to_numpy(),
            "variance change (relative)": util.variances.relative.to_numpy(),
            "interval disclosure": risk.interval.per_column.to_numpy(),
            "rank disclosure": risk.rank.per_column.to_numpy(),
        }
    )
    usec = report.section(
        f"{title}: utility",
        "SSE/SST: the squared distance of the masked values from the original ones over the "
        "original's total sum of squares, both on the original's z-scores (0 = unchanged). "
        "IL1s: the mean absolute difference per cell in units of √2 standard deviations "
        "(sdcMicro's dUtility IL1 is twice this). Then how far the means and variances moved "
        "(relative to the original), the covariances (in units of the original standard "
        "deviations, sd_j·sd_l) and the correlations.",
    )
    usec.metrics(utility)
    usec.table(per_column, caption="Per masked column: utility and risk.")
    return {
        "before": {},
        "after": risks,
        "utility": utility,
        "verified": verified,
    }


def _attack_caption(release: Release) -> str:
    if release.kind == "anatomized":
        return (
            "Anatomy publishes exact quasi-identifiers (the QIT), so re-identification of a "
            "record's group is certain; what it bounds is attribute disclosure, measured on each "
            "group's sensitive values (the ST)."
        )
    return "Before: the original table. After: the published table without suppressed records."
