"""What a release did to each column, its warnings, and the public report of a release.

:func:`column_actions` says, per column, its role and what was done to it (generalized to a
level, microaggregated, randomized, published unchanged with the lint's evidence, dropped).
Given the original table it adds counts taken on the original (for the internal report);
without it, only what the published files show (for the public report).
:func:`warnings_of` raises the alarms a data owner must see: a quasi-identifier that became
``*`` everywhere, information loss above one half; the summary then shows the closest
configurations (:mod:`microanon.apps.closest`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.factorize import factorize
from ..core.hierarchy import SUPPRESSED
from ..core.lint import LintReport, Restoring
from ..core.record_order import ascending
from ..core.release import Release
from ..core.row_counts import counts_of, counts_sentence
from ..core.schema import Schema
from ..core.table import Table
from ..core.wording import how_many
from ..methods.registry import methods
from ..models import Verification
from ..models.config import reads_sensitive
from .closest import alternative_budget, closest_configurations, give_up_ahead
from .families import family_of
from .release_frequencies import Combinations, as_suppressed
from .release_sections import all_suppressed, measured_sensitive, one_value, privacy_metrics
from .report import Report, Section, describe_parameters
from .restored_keys import restored_paragraph

__all__ = [
    "add_public_report",
    "add_summary_sections",
    "column_actions",
    "search_sentence",
    "step_lines",
    "warnings_of",
]

#: Information loss above which the report warns.
LOSS_WARNING = 0.5

#: What the release did with the household id, when the household risk was measured with it.
HOUSEHOLD_USED = "left out (household id: used for the household risk, never published)"
#: ... and when it was not: the household risk needs a sampling weight the measures can use.
HOUSEHOLD_UNUSED = (
    "left out (household id: never published; not used: the household risk needs a sampling "
    "weight the survey measures can use)"
)


def step_lines(meta: dict[str, Any]) -> list[str]:
    """One line per step of a release of several steps (none for one method): what it changed
    and the risk and loss after it, the original first.

    ``meta``: the release's metadata with its internal part (``step_records``); the lines are
    for the data owner, never for the public report.
    """
    lines = []
    for r in meta.get("step_records") or []:
        risk, loss = r["risk"], r["loss"]
        what = "original" if r["step"] == 0 else f"step {r['step']} {r['method']}"
        changed = f" (changed {', '.join(r['changed'])})" if r["changed"] else ""
        weighted = (
            f", expected re-identifications {risk['expected_reidentifications']:.3g}"
            if "expected_reidentifications" in risk
            else ""
        )
        if risk.get("without_weight"):  # (left out of the expected re-identifications)
            weighted += f" ({how_many(risk['without_weight'], 'record')} without a weight left out)"
        lines.append(
            f"  {what}{changed}: {how_many(risk['sample_uniques'], 'sample unique')}, smallest key "
            f"frequency {risk['min_fk']}{weighted}; {loss['cells_changed']:.1%} of the cells "
            "changed"
        )
    return lines


def search_sentence(meta: dict[str, Any]) -> str:
    """How a full-domain release's levels were found, in one sentence ("" for other methods).

    ``meta``: the release's metadata with its internal part (``search``, ``metric``,
    ``lattice_size``); the sentence is for the data owner, never for the public report.
    """
    info = meta.get("search")
    if not isinstance(info, dict):
        return ""
    metric = (meta.get("metric") or {}).get("name", "the metric")
    if info.get("optimal"):
        size = meta.get("lattice_size")
        over = f" over all {size:,} combinations of levels" if isinstance(size, int) else ""
        return f"The levels are optimal for {metric}{over} (exact search)."
    return (
        f"The levels are the best the {info['kind']} search found, not proven optimal: "
        f"{info['summary']}."
    )


def _published_columns(release: Release) -> set[str]:
    return {str(c) for df in release.tables.values() for c in df.columns}


def column_actions(
    release: Release,
    schema: Schema,
    lint: LintReport | None = None,
    original: pd.DataFrame | None = None,
    households: bool = False,
) -> pd.DataFrame:
    """Per column: its role and what was done to it.

    Parameters
    ----------
    release : Release
    schema : Schema
        The schema the release was made with.
    lint : LintReport, optional
        Its evidence is shown for columns published unchanged.
    original : DataFrame, optional
        With it, counts taken on the original are added (internal report only).
    households : bool
        Whether the household risk of the original was measured with the schema's household
        id (it needs a sampling weight the survey measures can use); its line says so.

    Returns
    -------
    DataFrame
        Columns ``column``, ``role``, ``done``.
    """
    published = _published_columns(release)
    rows = []
    names = list(schema.columns)
    aligned = None
    if original is not None:
        names += [str(c) for c in original.columns if str(c) not in names]
        aligned = _as_published(original, schema, release)
    family = family_of(release)
    keys = _suppression_keys(release.metadata)
    # (internal: the hierarchy's labels, and counts of the original)
    recut, emptied = (release.metadata.get(k) or {} for k in ("recut", "emptied"))
    for c in names:
        role = schema[c].role.value if c in schema.columns else "none"
        done = family.describe_column(release, c)
        # a column the method changed value by value (a generalization's levels say it); not
        # one whose line says it is published unchanged (a sample's or a swap's stratum), nor
        # the column whose blocks an out-of-core microaggregation kept (no cell of the original
        # is at hand there to say that none changed, as none can)
        treated = (
            done is not None
            and c not in (release.metadata.get("levels") or {})
            and not done.startswith("published unchanged")
            and c != (release.metadata.get("parameters") or {}).get("by")
        )
        if c not in published and done is None:  # (a table may publish it under other names)
            why = {
                "identifier": "dropped (identifier: never published)",
                "household": HOUSEHOLD_USED if households else HOUSEHOLD_UNUSED,
            }.get(role, "left out (no role in the schema)" if role == "none" else "not published")
            rows.append((c, role, why))
            continue
        if done is None:
            done = {
                "weight": "published unchanged (sampling weight)",
                "strata": "published unchanged (stratum id)",
            }.get(role, "published unchanged")
            notes = [str(f) for f in (lint.for_column(c) if lint else [])]
            if notes:
                done += "; lint: " + "; ".join(notes)
        if aligned is not None and c in release.data.columns and c in aligned.columns:
            done += _changed(aligned[c], release.data[c], release, treated, c in keys)
        if original is not None and c in recut:
            done += "; " + _recut_note(recut[c])
        if original is not None and c in emptied:
            done += "; " + _emptied_note(emptied[c])
        rows.append((c, role, done))
    counts = counts_of(release.metadata)
    if original is not None and counts is not None:
        for column, n in counts.left_out.items():
            rows.append(("(records)", "", f"{n:,} left out: missing {column} (missing: drop)"))
        if sum(counts.left_out.values()) > counts.left_out_total:
            rows.append(
                (
                    "(records)",
                    "",
                    f"{counts.left_out_total:,} left out in all (a record missing several is "
                    "counted under each above)",
                )
            )
        if counts.not_drawn:
            rows.append(("(records)", "", f"{how_many(counts.not_drawn, 'record')} not drawn"))
        if counts.suppressed and release.kind == "generalized":
            mode = (release.metadata.get("parameters") or {}).get("suppressed_rows", "remove")
            how = (
                "removed" if mode == "remove" else f"kept with every quasi-identifier {SUPPRESSED}"
            )
            rows.append(
                ("(records)", "", f"{how_many(counts.suppressed, 'record')} suppressed ({how})")
            )
        elif counts.suppressed and release.kind in ("generalized", "masked"):
            rows.append(("(records)", "", f"{how_many(counts.suppressed, 'record')} not published"))
        for column, n in counts.unknown_sensitive.items():
            if n:
                rows.append(
                    (
                        column,
                        "",
                        f"{n:,} unknown values in the records that entered the method "
                        "(missing: keep): counted toward no model",
                    )
                )
    return pd.DataFrame(rows, columns=["column", "role", "done"])


def _first_few(items: Sequence[str], shown: int) -> str:
    """The first ``shown`` of ``items`` joined by commas, and how many more there are."""
    more = len(items) - shown
    return ", ".join(items[:shown]) + (f" and {more:,} more" if more > 0 else "")


#: Labels cut again that :func:`_recut_note` names (the others are counted).
_RECUT_SHOWN = 3


def _recut_note(changed: Mapping[str, str]) -> str:
    """Why a quasi-identifier's published ranges are not its hierarchy's (a release's
    ``recut``, :func:`~microanon.methods.generalize.full_domain.recut_record`): e.g. ``[2, 4)
    published for the hierarchy's [0, 4) (ranges cut again on the values published, so that no
    bound tells a suppressed record's value)``."""
    pairs = [f"{new} published for the hierarchy's {old}" for old, new in changed.items()]
    shown = _first_few(pairs, _RECUT_SHOWN)
    return (
        f"{shown} (ranges cut again on the values published, so that no bound tells a "
        "suppressed record's value)"
    )


#: Values :func:`_emptied_note` names (the others are counted).
_EMPTIED_SHOWN = 5


def _emptied_note(gone: Mapping[str, int], unit: str = "record of") -> str:
    """What the suppression did to a column's values held only by suppressed records (a
    release's ``emptied``, :func:`~microanon.methods.generalize.full_domain.emptied_record`)
    or cells (``unit``: ``"cell holding"``, :func:`_values_suppressed`): e.g. ``every record
    of [5, 6) (19 records) was suppressed: no published record shows it``."""
    held = [f"{label} ({how_many(n, 'record')})" for label, n in gone.items()]
    shown = _first_few(held, _EMPTIED_SHOWN)
    what = "it" if len(held) == 1 else "any of them"
    return f"every {unit} {shown} was suppressed: no published record shows {what}"


def _values_suppressed(before: pd.Series, suppressed: np.ndarray) -> dict[str, int]:
    """The values of ``before`` (the original's records row for row with the published ones)
    whose every cell ``suppressed`` marks, with their records, in ascending order: the release
    shows none of them."""
    codes, uniques = factorize(before)
    known = codes >= 0
    held = np.bincount(codes[known], minlength=len(uniques))
    gone = np.bincount(codes[known & suppressed], minlength=len(uniques))
    emptied = np.flatnonzero((held > 0) & (gone == held))
    if not len(emptied):
        return {}
    values = np.asarray(uniques, dtype=object)[emptied]
    return {str(values[i]): int(held[emptied[i]]) for i in ascending(values)}


def _as_published(original: pd.DataFrame, schema: Schema, release: Release) -> pd.DataFrame | None:
    """The original's records row for row with the published table: by the steps' record of
    where each published row comes from (``source_rows``), else the records that entered the
    method (those no ``missing: drop`` column left out, in their order) when the published
    table has as many rows; None when neither tells (a method that left records out)."""
    data = release.data
    source = release.metadata.get("source_rows")
    if source is not None and len(source) == len(data):
        return original.iloc[np.asarray(source, dtype=np.intp)]
    left_out = schema.left_out(original)
    entering = original if left_out is None else original[~left_out]
    return entering if len(entering) == len(data) else None


def _suppression_keys(meta: dict[str, Any]) -> set[str]:
    """The key columns of the release's local suppression, or of its steps' (none without)."""
    runs = meta.get("steps") or [meta]
    return {
        str(c)
        for run in runs
        if run.get("method") == "local_suppression"
        for c in (run.get("parameters") or {}).get("columns") or []
    }


def _changed(
    before: pd.Series, after: pd.Series, release: Release, treated: bool, key: bool
) -> str:
    """How many cells the release suppressed (missing or ``*``) that the original held, how
    many the original lacked that it publishes as ``*`` and, for a key of local suppression
    (``key``), which counts a value missing in the data as a suppressed one, how many it
    publishes missing; or, for a column the method treated (``treated``), that it changed no
    value (``before``: the original's records row for row with the published ones)."""
    if release.kind == "masked":
        blank_after, stars = _missing_and_starred(after)
        missing, stars_before = _missing_and_starred(before)
        gone = blank_after | stars
        lacking = missing | stars_before
        suppressed = gone & ~lacking
        n = int(np.count_nonzero(suppressed))
        text = f"; suppressed in {how_many(n, 'row')}" if n else ""
        emptied = _values_suppressed(before, suppressed) if n else {}
        if emptied:
            text += "; " + _emptied_note(emptied, "cell holding")
        starred = np.count_nonzero(stars & missing)
        if starred:  # (as a suppressed value: local suppression's strict matching)
            text += f"; {starred:,} missing in the data, published as {SUPPRESSED}"
        blank = np.count_nonzero(blank_after & missing) if key else 0
        if blank:  # (matching any value, as its suppressed cells: local suppression's wildcards)
            text += f"; {blank:,} missing in the data, published missing"
        if text:
            return text
    return "; no value changed" if treated and _same_values(before, after) else ""


def _starred(column: pd.Series) -> np.ndarray:
    """Where ``column`` holds the suppressed value ``*`` (never in a column of numbers, which
    is not compared cell by cell as text)."""
    return _missing_and_starred(column)[1]


def _missing_and_starred(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Where ``column`` is missing, and where it holds the suppressed value ``*`` (never in a
    column of numbers): from its codes (:func:`~microanon.core.factorize.factorize`, which a
    run shares), each distinct value looked at once."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return column.isna().to_numpy(), np.zeros(len(column), dtype=bool)
    codes, uniques = factorize(column)
    star = np.fromiter((isinstance(u, str) and u == SUPPRESSED for u in uniques), bool)
    return codes < 0, np.append(star, False)[codes]


def _same_values(before: pd.Series, after: pd.Series) -> bool:
    """Whether two columns of the same length hold equal values row by row (a missing value
    equal only to a missing one; ``25`` is not ``"25"``)."""
    missing = before.isna().to_numpy()
    if not np.array_equal(missing, after.isna().to_numpy()):
        return False
    held = ~missing
    return bool((before.to_numpy()[held] == after.to_numpy()[held]).all())


def treats_columns(release: Release) -> bool:
    """Whether the release's method treats the columns it is given and publishes the others as
    they are, with no model covering them: every release of kind ``masked`` (the masking
    methods, several steps) and a method declared so (PRAM). The others generalize every
    quasi-identifier or publish them by design (Anatomy's exact keys beside grouped sensitive
    values, randomized response against attribute disclosure)."""
    if release.kind == "masked":
        return True
    declared = methods().get(str(release.metadata.get("method")))
    return declared is not None and declared.treats_columns


def unread_sensitive(release: Release) -> list[str]:
    """The alarm of a generalized release that publishes sensitive columns with their records
    while none of the models it claims reads them (k-anonymity alone, or a population model):
    what a class reveals of them is then bounded by nothing (a class whose records share a value
    gives it away to whoever finds a person's class). None for a method that takes no models
    (SafePub's guarantee is its own). A model is what it asks for, not a configuration that
    loses less: this alarm alone does not call for the closest configurations."""
    meta = release.metadata
    declared = methods().get(str(meta.get("method")))
    if release.kind != "generalized" or declared is None or declared.models == "none":
        return []
    sensitive = [str(s) for s in meta.get("sensitive") or [] if s in release.data.columns]
    if not sensitive or reads_sensitive(meta.get("models")):
        return []
    bound = (
        "k-anonymity bounds re-identification, not what a class reveals of {} (a class whose "
        "records share one value gives it away)"
    )
    if len(sensitive) == 1:
        return [
            f"sensitive column {sensitive[0]!r} is published with its records and no claimed "
            f"model reads it: {bound.format('it')}; add l_diversity or t_closeness to the models"
        ]
    return [
        f"{len(sensitive)} sensitive columns ({', '.join(sensitive)}) are published with their "
        f"records and no claimed model reads them: {bound.format('them')}; the models that "
        "read one (l_diversity, t_closeness) need it alone among the sensitive columns (give "
        "the others another role), or use mixed_model or rating for several"
    ]


def _dropped_for_nothing(release: Release, gone: list[str]) -> list[str]:
    """The alarm of records left out for a missing value (``missing: drop``) of
    quasi-identifiers that ``release`` publishes as ``*`` in every row (``gone``): left out
    for a column the release publishes as ``*`` (its internal row counts, when it holds them).
    """
    counts = counts_of(release.metadata)
    dropped = {q: counts.left_out.get(q, 0) for q in gone} if counts is not None else {}
    dropped = {q: n for q, n in dropped.items() if n}
    if not dropped:
        return []
    named = ", ".join(f"{q} {n:,}" for q, n in dropped.items())
    one = len(dropped) == 1
    return [
        f"records were left out for a missing value of {'a quasi-identifier' if one else ''}"
        f"{'' if one else 'quasi-identifiers'} the release publishes as {SUPPRESSED} in every "
        f"row ({named}; missing: drop): with missing: value in the schema they would enter "
        "the method instead, their missing value a value of its own (the method may then "
        "answer otherwise)"
    ]


def _all_suppressed(gone: list[str], keys: int, restored: Sequence[Mapping[str, Any]]) -> str:
    """The alarm of the quasi-identifiers ``gone``, ``*`` in every published row: their own
    columns say nothing of them, and a column published with the records that can restore
    some of them (``restored``, :func:`~microanon.apps.restored_keys.restored_keys`) is
    named."""
    one = len(gone) == 1
    said = (
        f"{len(gone)} of {keys} quasi-identifiers {'is' if one else 'are'} {SUPPRESSED} in every "
        f"published row ({', '.join(gone)})"
    )
    back = [(Restoring.from_dict(r).who, [q for q in r["restores"] if q in gone]) for r in restored]
    back = [(who, found) for who, found in back if found]
    own = "its own column says" if one else "their own columns say"
    if not back:
        # (not "the release says nothing of it": a column published beside it may tell some
        # of it, as openintro's acs12 employment, missing for the children alone, tells age)
        return (
            f"{said}: {own} nothing (another published column may still tell something of "
            f"{'it' if one else 'them'})"
        )
    named = "; ".join(f"{who} can restore {', '.join(found)}" for who, found in back)
    return f"{said}: {own} nothing, but {named}"


#: Claimed models whose parameter makes them hold on every table: (model, parameter, value).
_VACUOUS = (("k_anonymity", "k", 1), ("l_diversity", "l", 1))


def vacuous_models(models: Sequence[Any]) -> list[str]:
    """The alarm of a claimed model that holds on every table (k-anonymity with k = 1, every
    record a class of at least one; ℓ-diversity with ℓ = 1, every class holding one value at
    least): it protects no one, though the release states it among its guarantees.

    Parameters
    ----------
    models : sequence
        The release's ``models`` (``{name: {parameter: value}}`` each).

    Returns
    -------
    list of str
    """
    out = []
    for spec in models:
        if not isinstance(spec, Mapping):
            continue
        for name, parameter, value in _VACUOUS:
            given = spec.get(name)
            if isinstance(given, Mapping) and given.get(parameter) == value:
                out.append(
                    f"the claimed {name} with {parameter} = {value} holds on every table, so it "
                    f"protects no one; give {parameter} = {value + 1} or more"
                )
    return out


def warnings_of(release: Release, columns: pd.DataFrame, numbers: dict[str, Any]) -> list[str]:
    """The alarms of a release: more than half the records suppressed; quasi-identifiers fully
    suppressed, published unchanged or of one published value; sensitive columns no claimed
    model reads (:func:`unread_sensitive`); a claimed model that holds on every table
    (:func:`vacuous_models`); the family's own, from the public part and from
    what its report sections measured (``numbers["alarms"]``: masked values below 0 where the
    original has none); information loss above 1/2."""
    out = []
    quasi = [q for q in release.metadata.get("quasi") or [] if q in release.data.columns]
    gone = [q for q in quasi if all_suppressed(release, q)]
    if gone:
        out.append(_all_suppressed(gone, len(quasi), numbers.get("restored_keys") or []))
        out += _dropped_for_nothing(release, gone)
    untouched = [
        str(c)
        for c, role, done in columns[["column", "role", "done"]].itertuples(index=False)
        if role == "quasi" and str(done).startswith("published unchanged")
    ]
    if untouched and treats_columns(release):
        out.append(
            f"{len(untouched)} of {len(quasi)} quasi-identifiers "
            f"{'is' if len(untouched) == 1 else 'are'} published unchanged "
            f"({', '.join(untouched)}): the method left "
            f"{'it as it is' if len(untouched) == 1 else 'them as they are'}, so what it "
            f"protects does not include {'it' if len(untouched) == 1 else 'them'}"
        )
    counts = counts_of(release.metadata)
    if counts is not None and counts.entering and 2 * counts.suppressed > counts.entering:
        out.append(
            f"{counts.suppressed:,} of the {counts.entering:,} records that entered the method "
            f"({counts.suppressed / counts.entering:.0%}) were suppressed, more than half"
        )
    single = {q: v for q in quasi if q not in gone and (v := one_value(release, q)) is not None}
    if single:
        shown = "; ".join(f"{q} = {v}" for q, v in single.items())
        ways = [
            way
            for way, n in (
                ("suppressed", counts.suppressed if counts else 0),
                ("not drawn", counts.not_drawn if counts else 0),
                ("left out for a missing value", counts.left_out_total if counts else 0),
            )
            if n
        ]
        none = "there are none" + (" at that level" if release.kind == "generalized" else "")
        why = f"records with other values were {' or '.join(ways)}, or {none}" if ways else none
        out.append(
            f"{len(single)} of {len(quasi)} quasi-identifiers "
            f"{'holds' if len(single) == 1 else 'hold'} one value in every published row "
            f"({shown}): the release shows no record with another value of "
            f"{'it' if len(single) == 1 else 'them'} ({why})"
        )
    out += unread_sensitive(release)
    out += vacuous_models(release.metadata.get("models") or [])
    out += family_of(release).warnings(release)
    out += numbers.get("alarms") or []
    util = numbers.get("utility") or {}
    for name in ("LM", "GCP"):
        value = util.get(name)
        if value is not None and value > LOSS_WARNING:
            out.append(f"information loss {name} = {value:.0%}, above one half")
            break
    return out


def _verification_section(sec: Section, verification: Verification, title: str) -> None:
    if verification.verdicts:
        sec.table(
            pd.DataFrame(
                {
                    "model": [v.model for v in verification.verdicts],
                    "holds on the files as written": [
                        "yes" if v.holds else "NO" for v in verification.verdicts
                    ],
                    "achieved": [v.value for v in verification.verdicts],
                }
            ),
            caption=title,
        )
    else:
        sec.paragraph("The method claims no syntactic privacy model to re-check on the files.")
    if verification.counted_quasi:
        sec.paragraph(
            "Counted as quasi-identifiers in this check because the schema lint found them "
            f"linkable: {', '.join(verification.counted_quasi)}."
        )


def _same_as_release(alt: pd.DataFrame, numbers: dict[str, Any], release: Release) -> pd.DataFrame:
    """The closest configurations, each whose information loss and suppressed records are the
    release's own said so in its change: relaxing the configuration that way would not change
    what is published."""
    loss = (numbers.get("utility") or {}).get("LM")
    counts = counts_of(release.metadata)
    if loss is None or counts is None:
        return alt
    same = [
        lm is not None and abs(float(lm) - float(loss)) < 1e-9 and n == counts.suppressed
        for lm, n in zip(alt["LM"], alt["suppressed"], strict=True)
    ]
    if not any(same):
        return alt
    alt = alt.copy()
    alt["change"] = [
        f"{change} (the same loss and suppression as the release: no better)" if s else change
        for change, s in zip(alt["change"], same, strict=True)
    ]
    return alt


def add_summary_sections(
    report: Report,
    release: Release,
    cfg: Any,
    original: pd.DataFrame,
    columns: pd.DataFrame,
    verification: Verification,
    lint: LintReport,
    numbers: dict[str, Any],
    out_of_core: bool = False,
    searched: Table | None = None,
) -> None:
    """Put the summary (warnings, columns, verification, lint, alternatives) first in ``report``.

    ``out_of_core``: the release was made out of core, ``original`` holds no records; the
    alternatives are searched on ``searched``, the frequency table the release's search ran on
    (see :func:`~microanon.apps.closest.closest_configurations`), and where they would re-run
    the method on the records they are not proposed, and the report says so. Without warnings
    the closest configurations searched ahead are given up.
    """
    meta = release.metadata
    sections = list(report.sections)
    report.sections.clear()
    warnings = numbers.get("warnings") or []
    if warnings:
        sec = report.section("Warnings")
        for w in warnings:
            sec.warning(f"Warning: {w}.")
        # (alarms another configuration may quiet: not a model the release should claim)
        lossy = bool(set(warnings) - set(unread_sensitive(release)))
        if cfg is None and out_of_core and lossy:
            sec.paragraph(
                "The closest configurations are not proposed: the release was made out of core "
                "without its configuration."
            )
        elif cfg is not None and cfg.models and lossy:
            search = meta.get("search")
            alt = closest_configurations(
                cfg,
                None if out_of_core else original,
                search,
                searched,
                release.encoded,
                meta.get("levels"),
            )
            if alt is None:
                sec.paragraph(
                    "The closest configurations are not proposed for this release made out of "
                    "core: with suppressed records published as * or a model checked against a "
                    "population, each re-runs the method on the records. Run a sample with "
                    "--engine memory to see them."
                )
            elif len(alt):
                alt = _same_as_release(alt, numbers, release)
                budget = alternative_budget(search)
                found = (
                    f" Each alternative's levels are the best the {budget['search']} search "
                    f"found within {budget['step_limit']:,} nodes or {budget['time_limit']:g} s, "
                    "whichever came first; a longer search may lose less."
                    if budget
                    else ""
                )
                sec.table(
                    alt,
                    caption="Closest configurations (information loss LM: 0 = "
                    "original values, 1 = everything suppressed)." + found,
                )
    give_up_ahead()  # (what was searched ahead is taken by now, or not needed)
    sec = report.section(
        "What was done",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}. "
        f"Quasi-identifiers: {', '.join(meta.get('quasi') or []) or 'none'}; sensitive: "
        f"{', '.join(meta.get('sensitive') or []) or 'none'}. "
        + " ".join(filter(None, [counts_sentence(meta), search_sentence(meta)])),
    )
    sec.table(columns, caption="Every column of the input and what the release did with it.")
    _verification_section(
        sec, verification, "Every claimed model, re-checked on the files read back from disk."
    )
    if numbers.get("verified") is True and numbers.get("restored_keys"):
        sec.paragraph(restored_paragraph(numbers["restored_keys"]))
    if lint.findings:
        sec.table(
            pd.DataFrame([f.to_dict() for f in lint.findings]).drop(columns=["related"]),
            caption="Schema lint findings on the original data.",
        )
    for statement in lint.statements:
        sec.paragraph(statement)
    report.sections.extend(sections)


def add_public_report(
    public: Release,
    verification: Verification,
    schema: Schema,
    lint: LintReport,
    keys: Combinations | None = None,
    rows: dict[str, int] | None = None,
) -> Report:
    """The report that may be published: built from the public part alone.

    It names the method, its parameters and models, what was done to each published column,
    the guarantees re-checked on the files and what the published data itself shows (rows,
    classes); no original value and no count taken on the original. ``keys``: the frequency
    table of the published table's quasi-identifiers and sensitive attribute, when the caller
    has grouped it (else it is grouped here); ``rows``: the records of each table when
    ``public`` holds their distinct rows (a release made out of core).
    """
    meta = public.metadata
    report = Report(
        f"Release: {meta.get('method')}",
        "What was done to the data and what was verified on the published files.",
        dated=False,
    )
    sec = report.section(
        "What was done",
        f"Method {meta.get('method')} with {describe_parameters(meta.get('parameters') or {})}. "
        f"Quasi-identifiers: {', '.join(meta.get('quasi') or []) or 'none'}; sensitive: "
        f"{', '.join(meta.get('sensitive') or []) or 'none'}. "
        + " ".join(
            f"Table {name}: {(rows or {}).get(name, len(df)):,} rows."
            for name, df in public.tables.items()
        ),
    )
    published, family = _published_columns(public), family_of(public)
    view = Schema(  # the tables' columns, and those a table publishes under other names
        [
            schema[c]
            for c in schema.columns
            if c in published or family.describe_column(public, c) is not None
        ]
    )
    actions = column_actions(public, view, lint=None)
    stated = {f.column for f in lint.findings if f.accepted and f.kind == "near_unique"}
    for c in actions["column"]:
        if c in stated:
            actions.loc[actions["column"] == c, "done"] += (
                "; the data owner states that an attacker does not know it"
            )
    sec.table(actions, caption="Every published column and what was done to it.")
    for statement in lint.statements:
        sec.paragraph(statement)
    vsec = report.section("Guarantees")
    _verification_section(vsec, verification, "Claimed models, re-checked on the published files.")
    if meta.get("risk_bound") is not None:  # (randomized response's claim: public)
        vsec.paragraph(
            f"Randomized response: no record's sensitive value can be predicted from its "
            f"quasi-identifiers, in the published data, with probability above τ = "
            f"{meta['risk_bound']:.4g}: the keep probabilities were chosen for that bound."
        )
    quasi = [q for q in meta.get("quasi") or [] if q in public.data.columns]
    if public.kind in ("generalized", "masked") and quasi and not meta.get("masked_numeric"):
        counted = quasi + [c for c in verification.counted_quasi if c not in quasi]
        sensitive = next((s for s in meta.get("sensitive") or [] if s in public.data.columns), None)
        columns = counted + ([sensitive] if sensitive else [])
        if keys is not None and set(columns) <= set(keys.values.columns):
            keys = keys.project(columns)
        else:
            keys = Combinations.of(public.data, columns)
        # a key's empty cell is the value *; an unknown sensitive value counts toward no model,
        # as the verification and `microanon check` count it
        shown = keys.values.copy()  # (columns set by name: DataFrame.assign takes 'self')
        for column, values in as_suppressed(keys.values[counted]).items():
            shown[column] = values
        risk = privacy_metrics(shown, counted, sensitive, keys.counts)
        vsec.metrics(
            {k: v for k, v in risk.items() if v is not None},
            caption="Measured on the published table alone (a quasi-identifier's empty cells "
            "as *, unknown sensitive values in no class's ℓ or t): classes, k, ℓ, t and the "
            "prosecutor re-identification risk (highest, average, share of records above 0.2)."
            + measured_sensitive(sensitive, meta.get("sensitive") or []),
        )
    return report
