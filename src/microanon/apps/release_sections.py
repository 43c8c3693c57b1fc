"""What every family's report sections share: the generalization-style measures of a release
(classes, k, ℓ, t, prosecutor risk; LM, GCP, precision, discernibility) and the single-table
privacy and utility sections built on them.

A family's ``report.py`` (:mod:`microanon.apps.families`) builds its sections from these pieces;
this module knows nothing of any family.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import MicroanonError
from ..core.factorize import factorize
from ..core.hierarchy import SUPPRESSED, Hierarchy, label_key, number_line_order
from ..core.record_order import ascending
from ..core.release import Release
from ..core.row_counts import counts_sentence
from ..measures import (
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    non_uniform_entropy,
    precision,
    relative_accuracy,
)
from ..measures.attacker import class_attacker_risks
from ..methods.generalize.full_domain import hierarchy_labels
from ..models import Groups, Verdict, check_release, profile
from .release_figures import class_sizes
from .release_frequencies import PUBLISHED, Combinations, ReleaseTables
from .report import Report, Section, describe_parameters, drawn

__all__ = [
    "add_single_table_sections",
    "all_suppressed",
    "on_records_only",
    "one_value",
    "smallest_values",
    "privacy_metrics",
    "utility_metrics",
    "verdict_table",
]

_RISK_THRESHOLD = 0.2

#: What the utility section of a single-table release shows: its numbers from the release and the
#: original.
UtilityMeasure = Callable[[Release, pd.DataFrame], dict[str, Any]]


def _hierarchies(release: Release) -> dict[str, Hierarchy]:
    return {c: Hierarchy.from_dict(d) for c, d in release.metadata.get("hierarchies", {}).items()}


def privacy_metrics(
    table: pd.DataFrame,
    quasi: list[str],
    sensitive: str | None,
    counts: np.ndarray | None = None,
) -> dict[str, Any]:
    """Classes, k, ℓ (distinct, entropy), t and prosecutor risk of a table (attacker view).

    ``counts``: records per row when ``table`` is a frequency table of distinct combinations
    (:class:`~microanon.apps.release_frequencies.Combinations`); the numbers are those of the
    table it summarizes.
    """
    out: dict[str, Any] = {}
    if sensitive is not None and not table[sensitive].notna().any():
        # no known value (every record that held one suppressed, say): nothing for ℓ and t
        out.update(l_distinct=None, l_entropy=None, t_closeness=None)
        sensitive = None
    groups = Groups.from_frame(table, quasi, sensitive, weights=counts)
    if sensitive is not None:
        prof = profile(groups, None, None)
        out.update(
            classes=prof["classes"],
            k=prof["k"],
            l_distinct=prof["l_distinct"],
            l_entropy=prof["l_entropy"],
            t_closeness=prof["t_closeness"],
        )
    else:
        out = {"classes": groups.n_groups, "k": int(groups.sizes.min()), **out}
    risk = class_attacker_risks(groups.sizes, None, _RISK_THRESHOLD, "sample")["prosecutor"]
    out.update(
        risk_max=risk["highest"], risk_avg=risk["average"], records_at_risk=risk["share_above"]
    )
    return out


def measured_sensitive(sensitive: str | None, columns: Sequence[str]) -> str:
    """A caption's sentence naming the sensitive column that ℓ and t measure, when the release
    has several (only the first is measured): empty otherwise."""
    if sensitive is None or len(columns) < 2:
        return ""
    return (
        f" ℓ and t are those of {sensitive} alone, of the {len(columns)} sensitive columns "
        f"({', '.join(columns)}): the others are not measured here."
    )


def _attempt(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """A measure's value, or None where it does not apply to this release."""
    try:
        return fn(*args, **kwargs)
    except MicroanonError:
        return None


def utility_metrics(
    release: Release,
    original: pd.DataFrame | None = None,
    extended: bool = False,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Information loss of a single-table generalized release (None where a measure does not apply).

    LM, GCP and precision use the hierarchies recorded in the release; a numeric quasi-identifier
    without one is measured against its domain in ``original``. Suppressed records count as fully
    generalized. With ``extended``, and when the release keeps every original row in order (star
    suppression, Mondrian, local recoding), also the normalized non-uniform entropy and the
    relative 5-fold ID3 accuracy of predicting the sensitive attribute from the
    quasi-identifiers (of a sensitive column of at most :data:`ID3_CLASSES` values).

    Every measure is computed from the frequency tables ``tables`` of the release and
    ``original`` (:class:`~microanon.apps.release_frequencies.ReleaseTables`, grouped here when
    not given); the records are counted from them. The ID3 accuracy is measured on the pairs of
    an original combination and its release whose sensitive value is known (each fold's records
    per pair drawn as a random split of the records would place them).
    """
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    suppressed = int(meta.get("suppressed", 0) or 0)
    if release.kind == "anatomized":  # exact quasi-identifiers: nothing generalized
        return {"LM": 0.0, "GCP": 0.0, "precision": 1.0, "suppressed": 0}
    data = release.data
    if tables is None and original is not None:
        tables = ReleaseTables.of(original, release)
    published = tables.after if tables is not None else Combinations.of(data, quasi)
    # (a range published in place of its hierarchy's label is measured as that node)
    table, counts = hierarchy_labels(published.values, meta.get("recut")), published.counts
    rows = published.records
    removed = max(int(meta.get("rows_in", rows)) - rows, 0)
    hs = _hierarchies(release)
    domains = None
    if tables is not None:
        domains = {q: tables.before.values[q] for q in quasi if q not in hs}
    measured = {"suppressed": removed, "counts": counts}
    lm = _attempt(loss_metric, table, hs, quasi, domains=domains or None, **measured)
    gcp = _attempt(ncp, table, hs, quasi, domains=domains or None, **measured)
    prec = _attempt(precision, table, hs, quasi, **measured)
    # Discernibility charges each suppressed record N: leave the '*' rows of star mode out of
    # the classes (an attacker still sees them as one class; see published_groups_frame).
    kept = np.ones(len(table), dtype=bool)
    if suppressed:
        kept = ~(table[quasi].astype(str) == SUPPRESSED).all(axis=1).to_numpy()
    disc = None
    if kept.any():
        disc = discernibility(table.loc[kept], quasi, suppressed=suppressed, counts=counts[kept])
    out = {
        "LM": None if lm is None else lm.total,
        "GCP": None if gcp is None else gcp.gcp,
        "precision": prec,
        "discernibility": disc,
        # records removed by suppression count as one class, as the '*' rows of star mode do
        "AECS": (rows + removed)
        / max(equivalence_classes(table, quasi, counts=counts).count + (removed > 0), 1),
        "suppressed": suppressed,
    }
    entered = None if tables is None else tables.before.records
    if original is not None and entered is None:
        entered = len(original)
    if extended and entered == rows:
        pairs = None if tables is None else tables.pairs
        entropy = None
        if pairs is not None:
            entropy = _attempt(
                non_uniform_entropy,
                pairs.values[quasi],
                pairs.values[[q + PUBLISHED for q in quasi]].set_axis(quasi, axis=1),
                quasi,
                hs or None,
                counts=pairs.counts,
            )
        out["non-uniform entropy (normalized)"] = None if entropy is None else entropy.normalized
        sensitive = (meta.get("sensitive") or [None])[0]
        if sensitive is not None:
            accuracy = None
            classes = None if pairs is None else pairs.values.get(sensitive)
            if classes is not None and classes.nunique() <= ID3_CLASSES:
                known = classes.notna().to_numpy()  # the records it can predict
                accuracy = _attempt(
                    relative_accuracy,
                    pairs.values.loc[known, [*quasi, sensitive]],
                    pairs.values.loc[known, [q + PUBLISHED for q in quasi]].set_axis(quasi, axis=1),
                    quasi,
                    sensitive,
                    counts=pairs.counts[known],
                    spread=True,  # the same answer on every run and engine
                )
            out["relative ID3 accuracy"] = accuracy
    return out


#: Most values of a sensitive column whose prediction by ID3 the utility measures: more are a
#: continuous measure more than classes (a test score's 6,031 values), whose accuracy on the
#: original is near 0 and whose ratio is noise (13 or 28 from one run to the next).
ID3_CLASSES = 50

#: What the generalization-style utility numbers are (the utility section's paragraph).
GENERALIZATION_UTILITY = (
    "Information loss (LM, GCP: 0 = original values, 1 = everything suppressed; precision: "
    "1 = original), the discernibility metric (sum of squared class sizes, suppressed records "
    "charged the table size) and the average class size (AECS, suppressed records as one "
    "class). When the release keeps every record in order, also the normalized non-uniform "
    "entropy (0 = original values, 1 = everything suppressed) and how well ID3 still predicts "
    "the sensitive attribute from the quasi-identifiers (5-fold accuracy on the release over "
    "that on the original, on the records whose sensitive value is known; for a sensitive "
    f"column of at most {ID3_CLASSES} values)."
)


def _comparison_caption(meta: Mapping[str, Any]) -> str:
    """The before/after comparison's caption: what the release's column measures (suppressed
    records published as a class of ``*``, or left out) and what the risk rows are (the share
    of records at risk, beside its count in the disclosure risk section, had read as a
    count)."""
    risk = (
        " risk_max and risk_avg: the prosecutor re-identification risk, highest and average; "
        f"records_at_risk: the share of records whose risk is above {_RISK_THRESHOLD:g} (1 is "
        "all of them)."
    )
    if (meta.get("parameters") or {}).get("suppressed_rows") == "star":
        return (
            "Before: the original table. After: the published table, its suppressed records "
            "one class whose quasi-identifiers are all *." + risk
        )
    return (
        "Before: the original table. After: the published table without suppressed records." + risk
    )


def add_single_table_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str,
    *,
    note: Callable[[Section], None] | None = None,
    utility: UtilityMeasure | None = None,
    caption: str | None = None,
    tables: ReleaseTables | None = None,
    verdicts: Sequence[Verdict] | None = None,
    utility_text: str = GENERALIZATION_UTILITY,
) -> dict[str, Any]:
    """Add the privacy, utility and class-size sections of a single-table release.

    ``report``, ``original``, ``release`` and ``title`` are those of every family's
    ``add_sections`` (:func:`microanon.apps.families.add_release_sections`); the release's
    published table is read as equivalence classes on its quasi-identifiers.

    Parameters
    ----------
    note : callable, optional
        Adds the family's explanation to the privacy section (after the verdicts).
    utility : callable, optional
        The utility numbers; by default the generalization-style ones
        (:func:`utility_metrics`, extended).
    utility_text : str
        What the utility numbers are (the utility section's paragraph): by default
        :data:`GENERALIZATION_UTILITY`, the default numbers'.
    caption : str, optional
        Caption of the before/after comparison (by default what the release column measures:
        the published table without the suppressed records, or with them as a class of ``*``).
    tables : ReleaseTables, optional
        The frequency tables of ``original`` and the release, when counted elsewhere (out of
        core, from the original's and the written files' partitions); grouped here otherwise.
    verdicts : sequence of Verdict, optional
        The claimed models checked elsewhere (on the written files); re-checked on the
        release's table otherwise. Read only once every number is measured (they may be
        waited for, see :func:`~microanon.apps.publish.write_reports`).

    Returns
    -------
    dict
        ``before`` and ``after`` (privacy numbers), ``utility`` and ``verified`` (whether every
        claimed model holds on the release; None when none is claimed).
    """
    meta = release.metadata
    if tables is None:
        tables = ReleaseTables.of(original, release)
    quasi, sensitive, attack_quasi = tables.quasi, tables.sensitive, tables.attack_quasi
    # every number first, then the sections: the verdicts may still be on their way
    before = privacy_metrics(tables.before.values, quasi, sensitive, tables.before.counts)
    after = privacy_metrics(tables.after.values, attack_quasi, sensitive, tables.after.counts)
    if utility is None:
        util = utility_metrics(release, original, extended=True, tables=tables)
    else:
        util = utility(release, original)
    sizes = equivalence_classes(
        tables.after.values, attack_quasi, counts=tables.after.counts
    ).histogram()
    figure = drawn(class_sizes(sizes.index.to_numpy(), sizes.to_numpy()))
    sec = report.section(
        f"{title}: privacy",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}; "
        + counts_sentence(meta),
    )
    verdicts = verdict_table(sec, release, verdicts)
    if note is not None:
        note(sec)
    comparison = pd.DataFrame(
        {
            "measure": list(before),
            "original": list(before.values()),
            "release": [after.get(k) for k in before],
        }
    )
    listed = [str(c) for c in meta.get("sensitive") or []]
    unknown = [
        side
        for side, numbers in (("original", before), ("published table", after))
        if sensitive is not None and numbers.get("l_distinct") is None
    ]
    unmeasured = (
        f" {sensitive} holds no known value in the {' nor the '.join(unknown)}: ℓ and t are not "
        "measured there."
        if unknown
        else ""
    )
    caption = caption if caption is not None else _comparison_caption(meta)
    sec.table(comparison, caption=caption + measured_sensitive(sensitive, listed) + unmeasured)
    usec = report.section(f"{title}: utility", utility_text)
    usec.metrics({k: ("–" if v is None else v) for k, v in util.items()})
    usec.plot(figure, "Class sizes after anonymization.")
    return {"before": before, "after": after, "utility": util, "verified": all_hold(verdicts)}


def on_records_only(release: Release, tables: ReleaseTables | None) -> None:
    """Refuse frequency tables counted out of core for a release that its family measures on
    its records (``tables``: as every family's ``add_sections`` takes them).

    Raises
    ------
    ValueError
        ``tables`` given: no engine makes such a release out of core with them.
    """
    if tables is not None:
        raise ValueError(
            f"a {release.kind} release is measured on its records: its report sections take no "
            "frequency tables counted out of core"
        )


def all_hold(verdicts: Sequence[Verdict]) -> bool | None:
    """Whether every verdict holds (None when no model was claimed)."""
    return bool(np.all([v.holds for v in verdicts])) if verdicts else None


def verdict_table(
    sec: Section, release: Release, verdicts: Sequence[Verdict] | None = None
) -> Sequence[Verdict]:
    """Re-check the release's claimed models (unless their ``verdicts`` are given) and show the
    verdicts; return them."""
    if verdicts is None:
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


def smallest_values(column: pd.Series, count: int, skip: str = SUPPRESSED) -> list[str]:
    """The ``count`` smallest distinct values of ``column`` other than ``skip`` and missing
    values, as text, in ascending order: examples that the published values alone give, not
    the order of the rows (see :mod:`microanon.core.record_order`)."""
    distinct = factorize(column)[1]
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        ordered = np.asarray(distinct)[ascending(distinct)]
        texts = pd.Series(ordered, dtype=column.dtype).astype(str)
        return [str(t) for t in texts if t != skip][:count]
    # labels on the number line (an interval by its lower end: [16, 18] before 40), then text
    labels = (str(v) for v in distinct if str(v) != skip)
    return number_line_order(heapq.nsmallest(count, labels, key=label_key))


def all_suppressed(release: Release, column: str) -> bool:
    """Whether ``column`` is suppressed (``*`` or missing) in every published row."""
    col = release.data[column] if column in release.data.columns else None
    if col is None or len(col) == 0:
        return False
    head = col.iloc[:1]
    if not (head.isna() | (head.astype(str) == SUPPRESSED)).all():
        return False  # the first row answers without reading the others
    values = pd.Series(col.unique(), dtype=col.dtype)
    return bool((values.isna() | (values.astype(str) == SUPPRESSED)).all())


def one_value(release: Release, column: str) -> str | None:
    """The value of ``column`` when every published row holds that same value, neither ``*``
    nor missing (else None): the release shows no record with another value of it."""
    col = release.data[column] if column in release.data.columns else None
    if col is None or len(col) == 0:
        return None
    first = col.iloc[0]
    if pd.isna(first) or str(first) == SUPPRESSED:
        return None
    head = col.iloc[:_HEAD_ROWS]
    if bool((head != first).any()) or bool(head.isna().any()):
        return None  # most columns answer within their first rows
    return str(first) if bool((col == first).all()) else None


#: Rows :func:`one_value` compares before the whole column.
_HEAD_ROWS = 1024
