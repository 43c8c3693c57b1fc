"""Report sections of a masked release (kind ``masked``, the SDC family).

Masked releases that replace numeric values record by record (microaggregation, noise, swapping,
top/bottom coding to numbers: metadata ``masked_numeric``) are measured by comparing those columns
with the original ones by position (:mod:`microanon.measures.perturbative`,
:mod:`microanon.measures.linkage`); out of core, with the pairs the written release's pass
gathered (:attr:`microanon.apps.release_frequencies.ReleaseTables.masked`). The other masked
releases (sampling, recoding, local suppression) take the generalization-style measures, a
suppressed (missing) cell counting as ``"*"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microanon.apps.families.randomize.report import describe_randomized
from microanon.apps.release_figures import column_risks
from microanon.apps.release_frequencies import ReleaseTables
from microanon.apps.release_sections import (
    add_single_table_sections,
    all_hold,
    on_records_only,
    utility_metrics,
    verdict_table,
)
from microanon.apps.report import Report, Section, describe_parameters
from microanon.core.factorize import factorize, remember_taken
from microanon.core.hierarchy import SUPPRESSED
from microanon.core.release import Release
from microanon.core.release_files import value_text
from microanon.core.row_counts import counts_sentence
from microanon.core.schema import Schema
from microanon.measures import (
    MaskedPairs,
    RiskSummary,
    UtilitySummary,
    interval_disclosure,
    risk_summary,
    utility_summary,
)
from microanon.methods.steps import STEPS_METHOD
from microanon.models import Verdict

__all__ = ["add_sections", "describe_column", "negative_alarms", "perturbative_metrics"]

#: Interval disclosure half-width and rank window of the masked-release report, in percent.
_INTERVAL_P = 5.0
_RANK_R = 5.0


def add_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy and utility sections of a masked release.

    The arguments and the numbers returned are those of every family's ``add_sections``
    (:func:`microanon.apps.families.add_release_sections`). A release of several steps
    records which original record each published row is (``source_rows``, internal, as PRAM
    shuffles and sampling drops rows, its position in the file): its columns are compared with
    those records, which ``original`` (the rows that entered) labels by their positions. Out
    of core (``tables``), a release of masked numeric columns is measured on the records'
    pairs gathered while it was written (:attr:`ReleaseTables.masked`); any other masked
    release is refused (:func:`~microanon.apps.release_sections.on_records_only`).
    """
    if release.metadata.get("masked_numeric") and tables is not None and tables.masked is not None:
        # out of core: the masked columns beside the original values, gathered while written
        return _add_perturbative_sections(report, tables.masked, release, title, verdicts)
    on_records_only(release, tables)
    rows = release.metadata.get("source_rows")
    if rows is not None:
        original = original.loc[list(rows)].reset_index(drop=True)
    if release.metadata.get("masked_numeric"):
        pairs = _paired(original, release)
        return _add_perturbative_sections(report, pairs, release, title, verdicts, len(original))
    release = _suppressed_as_star(release)
    meta = release.metadata

    def note(sec: Section) -> None:
        _masking_paragraph(sec, meta)

    def utility(rel: Release, orig: pd.DataFrame) -> dict[str, Any]:
        util = utility_metrics(rel, orig, extended=True)
        if "suppressed_total" in meta:
            util["suppressed cells"] = meta["suppressed_total"]
        return util

    return add_single_table_sections(
        report, original, release, title, note=note, utility=utility, verdicts=verdicts
    )


def _suppressed_as_star(release: Release) -> Release:
    """The release with missing quasi-identifier cells written ``"*"`` (suppressed, the root).

    Local suppression publishes suppressed cells as missing values (sdcMicro's ``NA``); the
    generalization-style measures read them as ``"*"``: a value of its own for the class
    statistics, full loss for LM, GCP and precision.

    A column with a suppressed cell becomes text, as :class:`~microanon.core.release.Release`
    publishes a column of values beside ``"*"``: each distinct value's text
    (:func:`~microanon.core.release_files.value_text`) taken by the column's codes (shared
    within a run), ``"*"`` for the missing ones; its codes are kept for the measures.
    """
    quasi = [q for q in release.metadata.get("quasi") or [] if q in release.data.columns]
    data = release.data.copy(deep=False)
    for q in quasi:
        codes, uniques = factorize(data[q])
        if not len(codes) or int(codes.min()) >= 0:
            continue
        labels = [value_text(v) for v in np.asarray(uniques, dtype=object)]
        text = np.array([*labels, SUPPRESSED], dtype=object)
        codes = np.where(codes < 0, len(labels), codes)
        data[q] = pd.Series(text[codes], index=data.index, dtype=object)
        remember_taken(data[q], codes, text)
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
    pairs: MaskedPairs,
) -> tuple[dict[str, float], dict[str, float], UtilitySummary, RiskSummary]:
    """Utility and risk of a masked release's ``masked_numeric`` columns against the original,
    record by record (``pairs``: :meth:`MaskedPairs.of` a release and the records it was made
    from). Returns the utility and risk numbers (flat, for the command line) and the full
    :class:`~microanon.measures.UtilitySummary` and :class:`~microanon.measures.RiskSummary`.
    """
    original, data = pairs.original, pairs.masked
    cols = list(original.columns)
    util = utility_summary(original, data, cols)
    risk = risk_summary(original, data, cols, p=_INTERVAL_P, r=_RANK_R)
    drisk = interval_disclosure(original, data, cols, p=_INTERVAL_P, outside=1)  # (sdcMicro's)
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
        f"interval disclosure (sdcMicro dRisk, k = {_INTERVAL_P / 100:g})": drisk.share,
        f"rank disclosure (±{_RANK_R:g}% of records)": risk.rank.share,
    }
    return utility, risks, util, risk


def _paired(original: pd.DataFrame, release: Release) -> MaskedPairs | None:
    """The records of a masked release beside the ``original`` ones they were made from, by
    position; None when the two tables do not have the same rows."""
    if len(original) != len(release.data):
        return None
    return MaskedPairs.of(original, release.data, release.metadata["masked_numeric"])


def _add_perturbative_sections(
    report: Report,
    pairs: MaskedPairs | None,
    release: Release,
    title: str,
    verdicts: Sequence[Verdict] | None = None,
    given: int = 0,
) -> dict[str, Any]:
    """Privacy and utility sections of a masked release with numeric columns replaced in place.

    Privacy: the claimed models (``verdicts``, re-checked when not given), record linkage,
    interval and rank disclosure. Utility: SSE/SST, IL1s and the moment changes
    (:func:`perturbative_metrics`), measured on ``pairs``; None: the release has not the rows
    of the original given (``given`` of them), and they are not measured.
    """
    meta = release.metadata
    cols = list(meta["masked_numeric"])
    # every number first, then the sections: the verdicts may still be on their way
    measured = perturbative_metrics(pairs) if pairs is not None else None
    sec = report.section(
        f"{title}: privacy (disclosure risk of the masked values)",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        + counts_sentence(meta)
        + f" Masked numeric columns: {', '.join(cols)}."
        + _unknown_sentence(pairs),
    )
    verified = all_hold(verdict_table(sec, release, verdicts))
    if measured is None:
        sec.paragraph(
            f"The original table given has {given:,} rows and the release "
            f"{len(release.data):,}: the masked columns are compared with the original ones by "
            "position, so utility and risk are not measured."
        )
        report.section(f"{title}: utility", "Not measured (see above).")
        return {"before": {}, "after": {}, "utility": {}, "verified": verified}
    utility, risks, util, risk = measured
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
    drawing = column_risks(
        cols, risk.interval.per_column.to_numpy(), risk.rank.per_column.to_numpy()
    )
    sec.plot(drawing, "Disclosure risk left in each masked column.")
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
        "alarms": negative_alarms(pairs, meta.get("method")),
    }


def negative_alarms(pairs: MaskedPairs, method: Any = None) -> list[str]:
    """A warning per masked column whose original holds no negative value but whose masked
    values do (noise around a small count or amount: carData's Chile, noise 0.5 of the spread
    on the communities' population, gave 291 of 2,581 communities a negative one), each the
    same sentence in the terminal, ``--json`` and the internal report."""
    out = []
    for column in pairs.original.columns:
        below = int((pairs.masked[column] < 0).sum())
        if not below or (pairs.original[column] < 0).any():
            continue
        advice = (
            "; add less noise, or multiplicative noise (method: multiplicative, for values "
            "above 0), which keeps every value above 0"
            if method == "add_noise"
            else ""
        )
        out.append(
            f"{column}: {below:,} of the {len(pairs.masked):,} masked values "
            f"{'is' if below == 1 else 'are'} below 0, where the original holds none: such a "
            "value tells that it was masked, and may be none the column can take (a count, an "
            f"amount, an age){advice}"
        )
    return out


#: How each masking method is described in the column table.
_VERBS: dict[str, Callable[[dict[str, Any]], str]] = {
    "microaggregation": lambda p: (
        f"microaggregated ({p.get('method')}, k = {p.get('k')}"
        + (f", within the blocks of {p['by']})" if p.get("by") is not None else ")")
    ),
    "add_noise": lambda p: (
        f"noise added ({p.get('method')}, {p.get('noise')} of the spread)"
        if p.get("noise") is not None
        else f"noise added ({p.get('method')}, ε = {p.get('epsilon')})"
    ),
    "rank_swap": lambda p: f"rank-swapped within {p.get('p')} % of the ranks",
    "data_swap": lambda p: (
        f"swapped between records (rate {p.get('rate')})"
        + (f", within strata of {', '.join(_strata(p))}" if _strata(p) else "")
    ),
    "local_suppression": lambda p: f"locally suppressed to k = {p.get('k')}",
    "top_bottom_code": lambda p: "top/bottom coded",
    "global_recode": lambda p: "globally recoded",
}


def describe_column(release: Release, column: str) -> str | None:
    """What the method did to ``column``, from the public part (None: published unchanged).

    For a release of several steps, what each step that changed the column did, in order. A
    stratum of a sample or of a swap keeps its values, unprotected: it is said to be published
    unchanged (and counted among the quasi-identifiers published unchanged) unless a step
    changed it, and what the method did within it is said too; a sample's stratum that is not
    published (a column outside the schema, an identifier) is not described here.
    """
    meta = release.metadata
    several = meta.get("method") == STEPS_METHOD
    published = column in release.data.columns
    done, unchanged = [], published
    for step in (meta.get("steps") or []) if several else [meta]:
        if column in (step.get("changed") or []):
            unchanged = False
        if _unprotected_stratum(step, column) and not published:
            continue
        method, params = str(step.get("method")), step.get("parameters") or {}
        described = (
            _describe_step(step, column) if several else _describe_masked(method, params, column)
        )
        if described is not None:
            done.append(described)
            unchanged = unchanged and _unprotected_stratum(step, column)
    if done and unchanged:
        return f"{_UNCHANGED}; " + "; then ".join(done)
    return "; then ".join(done) or None


#: How the column table begins the line of a column published with its values as they were
#: (the summary's warning counts the quasi-identifiers whose line begins so).
_UNCHANGED = "published unchanged"

#: Methods whose strata keep their values and are not protected by what the method does within
#: them: a sample draws records within each stratum, a swap exchanges values within each.
_STRATIFYING = ("sample", "data_swap")


def _strata(params: dict[str, Any]) -> list[str]:
    strata = params.get("strata") or []
    return [strata] if isinstance(strata, str) else list(strata)


def _unprotected_stratum(step: dict[str, Any], column: str) -> bool:
    """Whether ``column`` is a stratum of a sample or a swap (``step``: a release's metadata or
    one step of several), which publishes it with its values as they were."""
    params = step.get("parameters") or {}
    return str(step.get("method")) in _STRATIFYING and column in _strata(params)


def _describe_step(step: dict[str, Any], column: str) -> str | None:
    """What one step of several did to a column: changed it, or left its values but took it
    into account, as a key of local suppression or a stratum (None: neither)."""
    method = str(step.get("method"))
    params = step.get("parameters") or {}
    if column not in (step.get("changed") or []):
        if method == "local_suppression" and column in (params.get("columns") or []):
            return _VERBS[method](params)
        return _describe_stratum(method, params, column)
    if column in (step.get("randomized") or {}):
        return describe_randomized(step["randomized"][column], method) or "not randomized"
    return _describe_masked(method, params, column) or f"changed by {method}"


def _describe_masked(method: str, params: dict[str, Any], column: str) -> str | None:
    """What a masking method with these public parameters did to ``column``."""
    columns = params.get("columns") or params.get("column") or []
    columns = [columns] if isinstance(columns, str) else list(columns)
    if (
        column in columns
        or column in (params.get("maps") or [])
        or column in (params.get("levels") or {})
    ):
        return _VERBS.get(method, lambda p: f"masked by {method}")(params)
    if method == "microaggregation" and column in (params.get("categorical") or []):
        how = f"{params.get('method')}, k = {params.get('k')}"
        return f"replaced by its group's most frequent value ({how})"
    return _describe_stratum(method, params, column)


def _describe_stratum(method: str, params: dict[str, Any], column: str) -> str | None:
    """What a method did within one of its ``strata`` columns (None for another column), whose
    values it kept: a microaggregation formed every group within one stratum (so the column is
    covered), or out of core within one block of its ``by`` column (so is that column: it had
    been said published unchanged, unprotected, where the same release in memory with the
    column as its stratum is not), a sample drew its records within each, a swap exchanged
    values within each."""
    how = f"{params.get('method')}, k = {params.get('k')}"
    if method == "microaggregation" and column == params.get("by"):
        return f"blocks of the microaggregation ({how}): every group within one of its values"
    strata = _strata(params)
    if column not in strata:
        return None
    if method == "microaggregation":
        return f"stratum of the microaggregation ({how}): every group within one of its values"
    one = len(strata) == 1
    if method == "sample":
        each = "of its values" if one else f"combination of values of {', '.join(strata)}"
        return (
            f"stratum of the sample: records drawn within each {each}, a fraction "
            f"{params.get('fraction')} of each"
        )
    if method == "data_swap":
        swapped = ", ".join(params.get("columns") or []) or "the swapped columns"
        shared = "its value" if one else f"their values of {', '.join(strata)}"
        return f"stratum of the swap: {swapped} swapped only between records sharing {shared}"
    return None


def _unknown_sentence(pairs: MaskedPairs | None) -> str:
    """What the measures leave out: the records whose masked values are unknown."""
    if pairs is None or not pairs.unknown:
        return ""
    return (
        f" The measures below compare the {len(pairs.original):,} records whose masked values "
        f"are known; {pairs.unknown:,} unknown values stay unknown, and are left out of them."
    )
