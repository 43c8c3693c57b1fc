"""Report sections for a release with several sensitive attributes: ℓ-diversity of the published
tables re-checked, AIL and RCE, and the strong-rule attack run against it.

The releases and measures of Yi & Shi, *Privacy Protection Method for Multiple Sensitive
Attributes Based on Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from microanon.apps.release_frequencies import ReleaseTables
from microanon.apps.release_sections import on_records_only
from microanon.apps.report import Report, describe_parameters
from microanon.core.release import Release
from microanon.core.schema import Schema
from microanon.measures.multisa import (
    ail_components,
    disclosure_probabilities,
    published_diversity,
    rce,
)
from microanon.methods.multisa import strong_rules
from microanon.models import Verdict

__all__ = ["multisa_diversity", "add_sections", "describe_column", "warnings"]


#: What each part of the AIL counts (:func:`~microanon.measures.multisa.ail_components`): a
#: suppressed value is one cell published as ``*``, a deleted record one the mixed model left out
#: (the rows' counts call those suppressed records).
_AIL_PARTS = {
    "enlarged": "SIDs of more than l values",
    "suppressed": "values suppressed (*)",
    "deleted": "records deleted or left out",
}


def multisa_diversity(release: Release) -> dict[str, Any]:
    """Re-check ℓ-diversity on the published tables
    (:func:`~microanon.measures.multisa.published_diversity`).

    Every SID of the IDT must hold at least ``l`` distinct values of its attribute, and every
    SAC~ group at least ``l`` records with pairwise distinct values on every sensitive attribute.
    """
    checked = published_diversity(release)
    if checked.sids_diverse is None:  # (no AT row: no SID was published, a check says nothing)
        sids: dict[str, Any] = {"SIDs published": "none (no AT row)"}
    else:
        sids = {
            "SIDs with ≥ l distinct values": checked.sids_diverse,
            "smallest SID": checked.smallest_sid,
        }
    return {**sids, "SAC~ groups of ≥ l records, distinct values": checked.groups_diverse}


def _left_out(release: Release) -> dict[str, int]:
    """Per sensitive attribute, the records left out because no SID of it could take their
    value (internal: empty for the public part)."""
    return dict((release.metadata.get("multisa") or {}).get("unplaced") or {})


def warnings(release: Release) -> list[str]:
    """An alarm when more than half of the records entering the method are left out (deleted
    from SAC, or with a value no SID could take)."""
    info = release.metadata.get("multisa") or {}
    rows_in = int(release.metadata.get("rows_in") or 0)
    unplaced = _left_out(release)
    gone = int(info.get("deleted") or 0) + sum(unplaced.values())
    if not rows_in or 2 * gone <= rows_in:
        return []
    by = "; ".join(f"{a} {n:,}" for a, n in unplaced.items() if n)
    return [
        f"{gone:,} of the {rows_in:,} records are left out"
        + (f" (with a value no SID could take: {by})" if by else "")
        + ": a value filling more than 1/l of its column cannot be l-diverse; lower l or give "
        "that column another role"
    ]


def add_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy and utility sections of a multi-SA release; return the numbers.

    The arguments and the numbers returned are those of every family's ``add_sections``
    (:func:`microanon.apps.families.add_release_sections`). A multi-SA release claims no
    privacy model (``verdicts`` is empty): its ℓ-diversity is checked here, on its tables.
    """
    on_records_only(release, tables)
    meta = release.metadata
    info = meta.get("multisa", {})
    sensitive = list(meta.get("sensitive") or [])
    checks = multisa_diversity(release)
    at = release.tables["at"]
    unplaced = _left_out(release)
    sec = report.section(
        f"{title}: privacy",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        f"{meta.get('rows_in'):,} records in: {len(release.tables['sac']):,} published in SAC~ "
        f"groups, {len(at):,} in AT, {info.get('deleted', 0):,} deleted from SAC, "
        f"{sum(unplaced.values()):,} left out because no SID could take one of their values "
        "(a * would give such a value away). Every published "
        "sensitive value is ℓ-diverse: a SID stands for at least ℓ distinct values, a SAC~ group "
        "holds ℓ records with pairwise distinct values on every sensitive attribute.",
    )
    sec.metrics({**checks, **{f"records left out for {a}": n for a, n in unplaced.items()}})
    numbers: dict[str, Any] = {"diversity": checks, "unplaced": unplaced}
    min_conf = info.get("min_confidence") or 0.8
    rules = strong_rules(original, sensitive, min_conf)
    if len(rules):
        probs = disclosure_probabilities(release, original, rules)
        published = probs[probs["published"] != "deleted"]
        attack = {
            "strong rules (known to the attacker)": len(rules),
            "records holding one": int(probs["record"].nunique()),
            "largest disclosure probability": float(published["probability"].max())
            if len(published)
            else 0.0,
            "records disclosed with certainty": int(
                published.loc[published["probability"] >= 1, "record"].nunique()
            ),
        }
        sec.paragraph(
            f"The strong-rule attack (min_confidence {min_conf:g}) run against the release: "
            "for each record holding a strong rule, the attacker's certainty that it does."
        )
        sec.metrics(attack)
        numbers["attack"] = attack
    parts = ail_components(release, original)
    util = {
        "AIL": float(sum(parts.values())),
        **{f"AIL from {_AIL_PARTS[k]}": float(v) for k, v in parts.items()},
        "RCE per record": float(rce(release, original) / max(len(original), 1)),
    }
    usec = report.section(
        f"{title}: utility",
        "Additional information loss (AIL: 0 when every SID holds exactly ℓ values; suppressed "
        "and deleted values count 1) and the reconstruction error of the per-record "
        "distributions an analyst can rebuild (RCE; 0 = exact).",
    )
    usec.metrics(util)
    verified = bool(np.all([v for v in checks.values() if isinstance(v, bool)]))
    return {"before": {}, "after": numbers, "utility": util, "verified": verified}


def describe_column(release: Release, column: str) -> str | None:
    """What the method did to ``column``, from the public part (None: published unchanged)."""
    if column in (release.metadata.get("sensitive") or []):
        left = _left_out(release).get(column, 0)
        done = "published in grouped, permuted sensitive tables"
        if left:
            done += f"; {left:,} records left out: no SID could take their value"
        return done
    return None
