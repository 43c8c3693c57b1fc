"""Utility and residual risk of a release, before and after, as numbers and report sections."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import MicroanonError
from ..core.hierarchy import Hierarchy
from ..core.release import Release
from ..core.schema import Schema
from ..core.table import Table
from ..measures import (
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    non_uniform_entropy,
    precision,
    reidentification_risk,
    relative_accuracy,
    utility_report,
)
from ..models import check_release, profile, published_groups_frame
from .distribution_report import add_distribution_sections
from .report import Report, new_figure

__all__ = ["privacy_metrics", "utility_metrics", "add_release_sections"]

_RISK_THRESHOLD = 0.2


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
    kept, _, _ = published_groups_frame(release)
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

    Over the joint distribution of the quasi-identifiers and the sensitive attribute
    (papers.md §1.8): KL, χ², squared Euclidean distance, mean relative error of the base and
    CUBE count queries, and the mean uncertainty coefficients.
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
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    sensitive = (meta.get("sensitive") or [None])[0]
    kept, attack_quasi, _ = published_groups_frame(release)
    before = privacy_metrics(original, quasi, sensitive)
    after = privacy_metrics(kept, attack_quasi, sensitive)
    sec = report.section(
        f"{title}: privacy",
        f"Method {meta.get('method')} with parameters {meta.get('parameters')}; "
        f"{meta.get('rows_in'):,} records in, {meta.get('rows_out'):,} rows published.",
    )
    verdicts = check_release(release) if meta.get("models") else []
    if verdicts:
        sec.table(
            pd.DataFrame(
                {
                    "model": [str(v.model) for v in verdicts],
                    "parameters": [
                        ", ".join(f"{k}={v}" for k, v in v.parameters.items() if v is not None)
                        for v in verdicts
                    ],
                    "holds (re-checked on the release)": [v.holds for v in verdicts],
                    "achieved": [v.value for v in verdicts],
                }
            ),
            caption="Every claimed model, checked independently on the published table.",
        )
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


def _attack_caption(release: Release) -> str:
    if release.kind == "anatomized":
        return (
            "Anatomy publishes exact quasi-identifiers (the QIT), so re-identification of a "
            "record's group is certain; what it bounds is attribute disclosure, measured on each "
            "group's sensitive values (the ST)."
        )
    return "Before: the original table. After: the published table without suppressed records."
