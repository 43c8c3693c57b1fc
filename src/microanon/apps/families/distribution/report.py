"""Report sections for a distribution-based release: P-privacy re-checked, group and entry
statistics, and how wide the published sensitive ranges are.

The release of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization*, PVLDB
2(1):958–969, 2009.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from microanon.apps.release_figures import range_widths
from microanon.apps.release_frequencies import ReleaseTables
from microanon.apps.release_sections import on_records_only
from microanon.apps.report import Report, describe_parameters
from microanon.core.release import Release
from microanon.core.row_counts import counts_sentence
from microanon.core.schema import Schema
from microanon.methods.distribution.release import category_key
from microanon.models import Verdict, check_release

__all__ = ["distribution_numbers", "add_sections", "describe_column"]


def _categorical(release: Release) -> bool:
    return bool((release.metadata.get("parameters") or {}).get("categorical"))


def _entry_ranges(release: Release) -> tuple[np.ndarray, float]:
    """The range of every entry of the sensitive table and of the whole domain, as the method
    measures them: ``high - low`` of numbers; of categories, how many an entry covers in the
    domain's leaf order (the groups' common order, or their categories sorted as the method
    sorts them), so 1 for an exact one."""
    st = release.tables["st"]
    domains = [list(h["values"]) for h in release.metadata.get("distribution", {}).get(
        "hierarchies", []
    )]  # fmt: skip
    if not _categorical(release):
        span = max((float(v[-1]) - float(v[0]) for v in domains), default=0.0)
        return (st["high"] - st["low"]).to_numpy(dtype=float), span
    if all(v == domains[0] for v in domains):
        order = domains[0] if domains else []
    else:
        order = sorted({x for v in domains for x in v}, key=category_key)
    position = {x: i for i, x in enumerate(order)}
    covered = st["high"].map(position) - st["low"].map(position) + 1
    return covered.to_numpy(dtype=float), float(len(order))


def distribution_numbers(release: Release) -> dict[str, Any]:
    """Groups, entries, fakes and range statistics of a distribution-based release."""
    meta = release.metadata.get("distribution", {})
    st = release.tables["st"]
    qit = release.tables["qit"]
    counts = st["count"].to_numpy(dtype=np.int64)
    width, span = _entry_ranges(release)
    sizes = qit["group"].value_counts()
    entries = int(counts.sum())
    avg = float(width @ counts / entries) if entries else 0.0
    return {
        "groups": int(meta.get("groups", len(sizes))),
        "owner's groups": int(meta.get("owner_groups", 1)),
        "smallest group": int(sizes.min()) if len(sizes) else 0,
        "records": len(qit),
        "entries (real + fake)": entries,
        "fake entries": int(meta.get("fakes", entries - len(qit))),
        "sum of ranges": float(meta.get("sum_of_ranges", width @ counts)),
        "average range per entry": avg,
        "average range / domain range": avg / span if span else 0.0,
        "exact entries (one value)": (
            float(counts[(st["low"] == st["high"]).to_numpy()].sum() / entries) if entries else 0.0
        ),
    }


def add_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy and utility sections of a distribution-based release; return the numbers.

    The arguments and the numbers returned are those of every family's ``add_sections``
    (:func:`microanon.apps.families.add_release_sections`).
    """
    on_records_only(release, tables)
    meta = release.metadata
    numbers = distribution_numbers(release)  # first: the verdicts may still be on their way
    if verdicts is None:
        verdicts = check_release(release)
    sensitive = (meta.get("sensitive") or ["sensitive"])[0]
    sec = report.section(
        f"{title}: privacy",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        + counts_sentence(meta)
        + " The rows are published with their exact quasi-identifiers. "
        f"The {sensitive} values are published per group as ranges whose "
        "mixture is exactly the group's target distribution P (P-privacy, Definition 3.2): an "
        "attacker who finds a person's group learns that their value follows P, nothing more. "
        "It protects against linkage, not membership.",
    )
    sec.table(
        pd.DataFrame(
            {
                "model": [str(v.model) for v in verdicts],
                "holds (re-checked on the release, exact rationals)": [v.holds for v in verdicts],
                "achieved": [v.value for v in verdicts],
            }
        ),
        caption="Every claimed model, checked independently on the published tables.",
    )
    usec = report.section(
        f"{title}: utility",
        "Narrower published ranges mean tighter answers to aggregate queries (see "
        "`microanon query`). MinSumOfRange gives the smallest possible sum of ranges for the "
        "target; fake values, when allowed, can shrink it further.",
    )
    usec.metrics(numbers)
    width, _ = _entry_ranges(release)
    categorical = _categorical(release)
    usec.plot(
        range_widths(
            width - 1 if categorical else width, release.tables["st"]["count"].to_numpy(), sensitive
        ),
        "Categories each published range covers besides one (0 = the exact value)."
        if categorical
        else "Widths of the published ranges (0 = the exact value).",
    )
    return {
        "before": {},
        "after": {},
        "utility": numbers,
        "verified": bool(np.all([v.holds for v in verdicts])) if verdicts else None,
    }


def describe_column(release: Release, column: str) -> str | None:
    """What the method did to ``column``, from the public part (None: published unchanged)."""
    if column in (release.metadata.get("sensitive") or []):
        return "published as P-private ranges in the sensitive table"
    return None
