"""Publishing a release: lint, write both parts, verify the written files, add the reports.

:func:`publish` is what ``microanon anonymize`` does after the method ran, and what a Python
user calls instead of :meth:`Release.save` to get the same guarantees:

1. the schema lint (:func:`microanon.core.lint.lint_schema`) on the original data: findings not
   accepted refuse the release, and so does a column that links records like a
   quasi-identifier (such a finding is never accepted);
2. the release is written (``public/`` + ``internal/``) into a hidden directory beside ``out``,
   a table of records with its rows sorted by their values
   (:meth:`~microanon.core.release.Release.in_written_order`);
3. the written files are read back and verified (:func:`microanon.models.verify_written`): the
   claimed models on the declared quasi-identifiers (those the method protected: a lint that
   passed has no linkable column, so ``lint.linkable`` adds none), the public
   part's declared keys, no original value absent from the published data in public metadata;
4. the public report (from the public part alone) and the internal report are added, and the
   directory is moved to ``out``. On any failure nothing is left behind.

The reports are made by a second thread from the start of step 2: their measures of the
original and the release are taken while the files are written and verified, and they wait for
the verification (step 3) before they show it or write anything.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from contextvars import copy_context
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, overload

import numpy as np
import pandas as pd

from ..core.errors import InputError, VerificationError
from ..core.frames import pandas_if_arrow
from ..core.lint import LintReport, lint_schema
from ..core.output import atomic_directory
from ..core.progress import ProgressLike, as_progress
from ..core.reading import MarkerColumn, marker_warnings, missing_marker_columns
from ..core.release import INTERNAL_DIR, PUBLIC_DIR, Release
from ..core.repetition import Repetition, repetition
from ..core.row_counts import ROW_COUNTS_KEY, RowCounts, row_counts
from ..core.schema import Schema
from ..core.secret_scan import changed_files, file_states, texts_in_files
from ..core.statistical_files import STATISTICAL, labels_cut
from ..measures.households import household_risks_of
from ..models import Verdict, Verification, verify_written
from .aside import Aside, aside, idle
from .families import add_release_sections
from .init.people import numbers_people, person_ids
from .interrupts import wait_for
from .panel import repeated_id_notes
from .release_figures import RISK_BINS
from .release_frequencies import Combinations, CountedRelease, as_suppressed
from .release_summary import (
    add_public_report,
    add_summary_sections,
    column_actions,
    warnings_of,
)
from .report import Report, figures_drawn_once, template
from .restored_keys import restored_keys
from .risk import (
    HouseholdMeasure,
    RiskOptions,
    add_risk_section,
    assess_risk,
    left_out_note,
    schema_design,
)
from .steps_report import add_steps_sections

__all__ = [
    "OWNER_STATEMENTS",
    "PUBLISH_STAGES",
    "make_reports",
    "publish",
    "public_report",
    "write_reports",
]

T = TypeVar("T")

#: The public metadata key of the data owner's statements made by accepting lint findings
#: (:attr:`microanon.core.lint.LintReport.statements`).
OWNER_STATEMENTS = "owner_statements"

#: What :func:`publish` reports as its stages, in order.
PUBLISH_STAGES = ("write the release", "verify the written files", "reports")


def publish(
    release: Release,
    out: str | os.PathLike[str],
    original: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    lint: LintReport | None = None,
    accept: Mapping[str, Iterable[str]] | None = None,
    format: str = "csv",
    labels: Mapping[str, str] | None = None,
    overwrite: bool = False,
    protect: Iterable[str | os.PathLike[str]] = (),
    config: Any = None,
    subtitle: str | None = None,
    progress: ProgressLike = False,
    secrets: Iterable[str] = (),
) -> tuple[Path, dict[str, Any]]:
    """Write ``release`` to ``out`` with its reports, verified from disk, or write nothing.

    Parameters
    ----------
    release : Release
        What the method returned.
    out : path
        Release directory: ``public/`` (tables, ``release.json``, ``report.html``) and
        ``internal/`` (``internal.json``, ``report.html``).
    original : DataFrame
        The original table the release was made from (every column).
    schema : Schema or mapping
        The schema the release was made with; the orders of ``original``'s ordered categorical
        columns are taken as the method takes them
        (:meth:`~microanon.core.schema.Schema.with_data_orders`): declared values.
    lint : LintReport, optional
        A lint already run on ``original`` (else it is run here, with ``accept``).
    accept : mapping of column to finding kinds, optional
        Lint findings the user accepts.
    format : {"csv", "parquet", "sav", "dta"}
        The tables' file format (see :meth:`~microanon.core.release.Release.save`).
    labels : mapping of str to str, optional
        The variable labels of the file ``original`` was read from (column -> its description,
        :func:`~microanon.apps.io.read_labelled`): an SPSS or Stata table's column published
        under its input name carries its label (cut to the longest the format holds, with a
        warning), verified as read back; no other column's label is written, and no other
        format writes any.
    overwrite : bool
        Replace ``out`` if it holds a previous microanon output and nothing else.
    protect : paths
        The user's files (data, config) that ``out`` must never contain.
    config : PipelineConfig, optional
        The pipeline, to propose the closest configurations when the release warns.
    subtitle : str, optional
        First line of the internal report.
    progress : Progress, bool, str or None, default False
        Progress on stderr: the stages write, verify and reports (see
        :func:`microanon.core.progress.as_progress`); a
        :class:`~microanon.core.progress.Progress` given continues its own numbering.
    secrets : iterable of str
        Texts no public file may hold, whatever the key or file: the fingerprints of the
        generator the method drew from, taken before it ran
        (:func:`~microanon.core.random.state_fingerprints`).

    Returns
    -------
    (path, numbers)
        ``numbers``: before/after privacy, utility, ``verified`` (``None`` when nothing is
        claimed), ``verification``, ``lint``, ``columns``, ``warnings`` and ``rows`` (the
        :class:`~microanon.core.row_counts.RowCounts` of the run, as a dict).

    Raises
    ------
    InputError
        ``release`` is not a :class:`~microanon.Release`, unaccepted lint findings, a bad
        ``out``.
    VerificationError
        The written release fails a claimed model or leaks; nothing is left in ``out``.
    """
    if not isinstance(release, Release):
        raise InputError(f"release: expected a microanon Release, got {type(release).__name__}")
    original = pandas_if_arrow(original, "original")
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    # (an ordered categorical's order is declared, as the method took it: public by that)
    schema = schema.with_data_orders(original)
    if lint is None:
        lint = lint_schema(original, schema, accept=accept)
    lint.raise_if_blocking()
    release.metadata.setdefault("audit", {})["lint"] = lint.to_dict()
    if lint.statements:  # the owner's statements (column names and kinds only): public
        release.metadata[OWNER_STATEMENTS] = list(lint.statements)
        release.public_keys = release.public_keys | {OWNER_STATEMENTS}
    counts = row_counts(original, schema, release)
    _check_entering(release, counts)
    release.metadata[ROW_COUNTS_KEY] = counts.to_dict()  # internal: counts of the original
    secrets = tuple(secrets)
    described = _published_labels(labels or {}, schema, format)
    cut = labels_cut(described, format)
    reporter = as_progress(progress, "publish", total=len(PUBLISH_STAGES))
    checked: Future[Verification] = Future()
    with atomic_directory(out, overwrite, protect) as tmp, reporter, figures_drawn_once():
        # The reports are made by a second thread from here on: every measure of the original
        # and the release is taken while this thread writes and verifies the files, and they
        # wait for the verification where they show it (the reports stage is what is left).
        # This thread writes them: a command stopped meanwhile removes ``tmp`` and leaves the
        # other thread (a daemon: it does not keep the process) nothing to write into.
        reporting = partial(make_reports, notes=[cut] if cut else [])
        reports = _beside(reporting, release, original, schema, lint, checked, config, subtitle)
        scanned: Aside[list[str]] | Future[list[str]] | None = None
        try:
            with reporter.stage(PUBLISH_STAGES[0]):
                release.write_parts(tmp, format, schema.declared(), described)
            # The public files as written are scanned for the generator's state while this
            # thread verifies them: by the second process if it has nothing else to do, else
            # by a thread of this one, rather than queued before the figures the reports wait
            # for. What the reports add or change is scanned at the end.
            public = tmp / PUBLIC_DIR
            written = file_states(public)
            scan = (texts_in_files, public, secrets, list(written))
            scanned = aside(*scan) if idle() else _beside(*scan, name="microanon-scan")
            with reporter.stage(PUBLISH_STAGES[1]):
                hidden = [c for c in schema.columns if not schema[c].role.published]
                verification = verify_written(
                    tmp,
                    original,
                    lint.linkable,
                    schema.declared(),
                    unpublished=hidden,
                    written=release,
                    labels=described,
                )
                if not verification.ok:
                    raise VerificationError(
                        "the written release does not hold what it claims, so nothing was "
                        "written: " + "; ".join(verification.failures())
                    )
        except BaseException as failure:
            # the reports stop where they would wait for the verification: waited for (a
            # release refused leaves no thread working), unless the command is being stopped
            checked.set_exception(VerificationError("the release was not verified"))
            if not isinstance(failure, KeyboardInterrupt):
                _settled(reports)
                if isinstance(scanned, Future):
                    _settled(scanned)
            raise
        checked.set_result(verification)
        with reporter.stage(PUBLISH_STAGES[2]):
            exposed = wait_for(scanned) if isinstance(scanned, Future) else scanned.result()
            numbers, *pages = wait_for(reports)
            write_reports(tmp, *pages)
            exposed += texts_in_files(public, secrets, changed_files(public, written))
            if exposed:
                raise VerificationError(
                    "the written release is not safe to publish, so nothing was written: "
                    + "; ".join(exposed)
                )
    numbers.update(
        rows=counts.to_dict(),
        verification=verification.to_dict(),
        lint=lint.to_dict(),
        columns=numbers.pop("columns").to_dict(orient="records"),
    )
    return Path(out), numbers


def _published_labels(labels: Mapping[str, str], schema: Schema, format: str) -> dict[str, str]:
    """The variable labels a release written in ``format`` carries: in an SPSS or Stata file,
    those of ``labels`` of the columns ``schema`` publishes (under their input names); none of
    a column it does not publish, and none in another format.

    Parameters
    ----------
    labels : mapping of str to str
        Column of the original -> its variable label.
    schema : Schema
    format : {"csv", "parquet", "sav", "dta"}

    Returns
    -------
    dict of str to str
    """
    if format not in STATISTICAL:
        return {}
    return {c: labels[c] for c in schema.published if c in labels}


def _beside(function: Callable[..., T], *args: Any, name: str = "microanon-reports") -> Future[T]:
    """``function(*args)`` in a daemon thread called ``name`` (in this context): its future."""
    future: Future[T] = Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function(*args))
        except BaseException as exc:  # (handed to the thread that waits for it)
            future.set_exception(exc)

    context = copy_context()
    threading.Thread(target=context.run, args=(work,), name=name, daemon=True).start()
    return future


def _settled(future: Future[Any]) -> None:
    """Wait for ``future`` to end, whatever its answer (a signal still ends the wait)."""
    try:
        wait_for(future)
    except Exception:  # (its error is not the one being raised)
        return


def write_reports(tmp: Path, internal: Report, public: Report) -> None:
    """Write the internal and public reports (:func:`make_reports`) into the release at
    ``tmp`` (``public/`` and ``internal/`` written)."""
    internal.write(tmp / INTERNAL_DIR / "report.html")
    public.write(tmp / PUBLIC_DIR / "report.html")


def make_reports(
    release: Release,
    original: pd.DataFrame,
    schema: Schema,
    lint: LintReport,
    verification: Verification | Future[Verification],
    config: Any,
    subtitle: str | None,
    counted: CountedRelease | None = None,
    notes: Sequence[str] = (),
    markers: Mapping[str, MarkerColumn] | None = None,
    repeated: Mapping[str, Repetition] | None = None,
) -> tuple[dict[str, Any], Report, Report]:
    """The internal and public reports of a release, and the numbers shown.

    ``numbers["columns"]`` is the table of what was done to each column. Given the
    verification as a future (another thread verifying the written files), every measure
    of the original and the release is taken before it is waited for.

    Parameters
    ----------
    release : Release
        The release; with ``counted``, its table holds the published table's distinct rows.
    original : DataFrame
        The original table (every column); with ``counted``, its columns only are read.
    schema, lint, verification, config, subtitle
        As :func:`publish` has them (``verification.public``: as ``release`` with ``counted``).
    counted : CountedRelease, optional
        The frequency tables of a release made out of core (generalized or randomized), counted
        from the original's and the written files' partitions: every number is measured on
        them, none on rows; the closest configurations are searched on ``counted.searched``
        (those that would re-run the method on the records are not proposed).
    notes : sequence of str
        Warnings of the writing to add to the release's (a variable label written cut short).
    markers : mapping of str to MarkerColumn, optional
        The original's columns holding a text other software writes for a missing value,
        tallied out of core (:attr:`microanon.scale.ScaleResult.markers`); default: those of
        ``original``'s published columns
        (:func:`~microanon.core.reading.missing_marker_columns`).
    repeated : mapping of str to Repetition, optional
        With ``counted``: the values and rows of the schema's identifiers that may number
        people (:func:`~microanon.apps.init.people.person_ids`: named so, or numbers), counted
        out of core over every row read (:func:`microanon.core.repetition.merged`); default:
        none counted. In memory they are counted on ``original``. Each that numbers people by
        its name or by its values, which look like an id code
        (:func:`~microanon.apps.init.people.numbers_people`), and repeats is warned of
        (:func:`~microanon.apps.panel.repeated_id_notes`).
    """
    checked = _as_future(verification)
    template()  # (compiled while the files are written and verified: the sections wait there)
    published = [c for c in schema.published if c in original.columns]
    # The rows the method received, with the missing-value policies applied (a quasi-identifier's
    # missing value is ?, a kept cell stays empty): what the before/after figures compare. Each
    # row is labelled by its position in the file (a release of steps names its records so).
    entering = original
    if counted is None:
        entering = schema.validate(original.reset_index(drop=True), check_leaves=False)
    # the original's risk, measured first and shown last
    risk = Report("")
    quasi = [q for q in schema.quasi if q in original.columns]
    households = bool(quasi) and _add_original_risk(risk, entering, quasi, schema, counted)
    internal = Report(
        f"{release.metadata.get('method')}: internal report, for the data owner only",
        (subtitle + " " if subtitle else "")
        + "This report shows values and counts of the original data: do not publish it.",
    )
    if counted is None:
        numbers = add_release_sections(
            internal,
            entering.loc[:, published],
            release,
            schema=schema,
            verdicts=_Verdicts(checked),
        )
    else:  # a release made out of core: its family's sections, on the tables
        numbers = add_release_sections(
            internal,
            entering.loc[:, published],
            release,
            schema=schema if counted.resolved is None else counted.resolved,
            verdicts=_Verdicts(checked),
            tables=counted.tables,
        )
    verification = wait_for(checked)
    numbers["verified"] = (
        all(v.holds for v in verification.verdicts) if verification.verdicts else None
    )
    # the columns published with the records that can restore a quasi-identifier: the verdict
    # holds on the declared ones (every output that states it says so)
    numbers["restored_keys"] = restored_keys(lint, release)
    columns = column_actions(release, schema, lint, original, households=households)
    numbers["warnings"] = warnings_of(release, columns, numbers) + list(notes)
    if markers is None:
        markers = missing_marker_columns(original.loc[:, published])
    numbers["warnings"] += marker_warnings(
        {c: markers[c] for c in published if c in markers},
        "the run",
        "set na_values: [{marker}] in the config (or give --na-values {option})",
        coded="set column_na_values: {entries} in the config (or give {options})",
    )
    if counted is None:  # (out of core, counted partition by partition while reading)
        repeated = {c: repetition(original[c]) for c in person_ids(schema, original.dtypes)}
    found = repeated or {}
    numbers["warnings"] += repeated_id_notes(
        {c: r for c, r in found.items() if numbers_people(c, r)}
    )
    numbers["warnings"].extend(f"schema lint: {alert}" for alert in lint.alerts)
    add_summary_sections(
        internal,
        release,
        config,
        original,
        columns,
        verification,
        lint,
        numbers,
        out_of_core=counted is not None,
        searched=None if counted is None else counted.searched,
    )
    add_steps_sections(internal, release)
    internal.sections.extend(risk.sections)
    shown = None if counted is None else counted.published
    # built before the internal report is rendered: its figure is drawn (aside) meanwhile
    public = public_report(verification, schema, lint, shown)
    numbers["columns"] = columns
    return numbers, internal, public


def _as_future(verification: Verification | Future[Verification]) -> Future[Verification]:
    """The verification as a future (one already done when it is given)."""
    if isinstance(verification, Future):
        return verification
    done: Future[Verification] = Future()
    done.set_result(verification)
    return done


class _Verdicts(Sequence[Verdict]):
    """The verdicts of a verification another thread may still be making, waited for when
    they are first read (the family's sections take their measures before they show them)."""

    def __init__(self, verification: Future[Verification]) -> None:
        self._verification = verification

    def __len__(self) -> int:
        return len(self._verification.result().verdicts)

    @overload
    def __getitem__(self, index: int) -> Verdict: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Verdict]: ...

    def __getitem__(self, index: int | slice) -> Verdict | Sequence[Verdict]:
        return self._verification.result().verdicts[index]


def _add_original_risk(
    report: Report,
    entering: pd.DataFrame,
    quasi: list[str],
    schema: Schema,
    counted: CountedRelease | None,
) -> bool:
    """The original's risk profile, measured on the combinations of its keys and the class of
    each record's sampling weight with their sums (:meth:`Combinations.weighted`; out of core,
    counted while encoding), its household risk over the records (in memory
    :func:`~microanon.measures.households.household_risks_of`, out of core
    :attr:`CountedRelease.households`). The records without a weight or household id are left
    out of the survey measures, and counted (:func:`~microanon.measures.survey_design.
    weighted_records`); the attacker models count every record. True when the household risk
    was measured (a household id with a sampling weight the survey measures can use)."""
    title = "Disclosure risk of the original"
    weight = schema.weight if schema.weight in entering.columns else None
    household = schema.household if schema.household in entering.columns else None
    measure = None
    if counted is not None:  # counted while encoding (the weight by class, with its sums)
        if counted.weighted is not None:
            keys = counted.weighted
        else:
            keys = counted.tables.before.project(quasi)
        if household is not None and weight is not None:
            measure = counted.households
            if measure is None:
                raise ValueError("a release made out of core with a household id needs its measure")
    elif weight is not None:  # a record without a household id counts as one without a weight
        unknown = None if household is None else entering[household].isna().to_numpy()
        keys = Combinations.weighted(entering, quasi, weight, unknown)
        if household is not None:  # the household risk over the records
            measure = partial(  # (the records' columns as coded before: not copied)
                household_risks_of, entering, weight=weight, household=household, bins=RISK_BINS
            )
    else:
        keys = Combinations.of(entering, quasi)
    values, counts, inverse = keys.values, keys.counts, keys.inverse
    if weight is not None and schema_design(schema, values, counts)[0] is None:
        # a weight the measures cannot use: every record is measured without it (none is left
        # out for lacking a weight or a household id it would not be used with)
        plain = (
            counted.tables.before.project(quasi)
            if counted is not None
            else Combinations.of(entering, quasi)
        )
        _add_unweighted_risk(report, plain, quasi, title, schema, values, counts)
        return False
    # (a record without a household id is counted as one without a weight)
    return _add_risk(report, values, quasi, title, schema, counts, measure, inverse, household)


def _add_unweighted_risk(
    report: Report,
    table: Combinations,
    quasi: list[str],
    title: str,
    schema: Schema,
    weighted: pd.DataFrame,
    weighted_counts: np.ndarray | None,
) -> None:
    """The attacker models' risk of every record of ``table`` (its keys' combinations), when the
    schema's weight cannot be used (the note says why, from ``weighted``: the combinations of
    the keys and the weight)."""
    note = schema_design(schema, weighted, weighted_counts)[2]
    values, counts, inverse = table.rows(np.ones(len(table.values), dtype=bool))
    options = RiskOptions(quasi, None, None, suda=False)
    add_risk_section(report, assess_risk(values, options, counts, None), title, note=note)


def public_report(
    verification: Verification,
    schema: Schema,
    lint: LintReport,
    published: Combinations | None = None,
) -> Report:
    """The public report of a verified release: built from its public part alone.

    :func:`~microanon.apps.release_summary.add_public_report` (what was done, the guarantees)
    and, when the published table (or the table of quasi-identifiers, ``qit``, of anatomy and
    the distribution method) has the quasi-identifiers, the attacker models' risk of that table
    (suppressed cells counted as a value of their own, ``*``).

    Parameters
    ----------
    verification : Verification
        The claimed models re-checked, with ``public`` the public part as a data user gets it.
    schema : Schema
        The schema the release was made with (its published columns are described).
    lint : LintReport
        The lint of the original: the data owner's statements made by accepting findings are
        recorded.
    published : Combinations, optional
        The frequency table of every column of the published table, when ``verification.public``
        holds its distinct rows rather than its records (a release made out of core).
    """
    public = verification.public
    if public is None:
        raise ValueError("the verification holds no public part to report on")
    quasi = list(schema.quasi)
    data = public.tables.get("data")
    keys = None
    if data is not None:  # grouped once for both the guarantees and the risk
        meta = public.metadata
        named = [*quasi, *(meta.get("quasi") or []), *verification.counted_quasi]
        named += list(meta.get("sensitive") or [])
        columns = [c for c in dict.fromkeys(named) if c in data.columns]
        grouped = verification.grouped
        if published is not None:
            keys = published.project(columns)
        elif grouped is not None and set(columns) <= set(grouped.combinations.columns):
            keys = Combinations(grouped.combinations, grouped.counts).project(columns)
        elif columns:  # the columns as the verification coded them
            keys = Combinations.of(data, columns, codes=verification.codes.get("data"))
    rows = None if published is None else {"data": published.records}
    report = add_public_report(public, verification, schema, lint, keys, rows)
    qit = public.tables.get("qit")  # (anatomy's and the distribution method's table of keys)
    if quasi and data is None and qit is not None and set(quasi) <= set(qit.columns):
        shown = Combinations.of(qit, quasi)
        title = "Disclosure risk of the published table of quasi-identifiers (qit)"
        frame = as_suppressed(shown.values[quasi])
        _add_risk(report, frame, quasi, title, schema, shown.counts, None, shown.inverse)
    if quasi and data is not None and set(quasi) <= set(data.columns):
        # Suppressed cells (missing in local suppression) are a value of their own: '*'.
        title = "Disclosure risk of the published table"
        weight = schema.weight if schema.weight in data.columns else None
        if weight is None:
            shown = keys.project(quasi)
        elif published is not None:  # published unchanged: its records with a weight count
            shown = published.project([*quasi, weight])
        else:
            codes = verification.codes.get("data")
            shown = Combinations.weighted(data, quasi, weight, codes=codes)
        values, counts, inverse = shown.values, shown.counts, shown.inverse
        if weight is not None and schema_design(schema, values, counts)[0] is None:
            plain = keys.project(quasi) if keys is not None else Combinations.of(data, quasi)
            suppressed = Combinations(as_suppressed(plain.values), plain.counts)
            _add_unweighted_risk(report, suppressed, quasi, title, schema, values, counts)
            return report
        frame = as_suppressed(values[quasi])
        if weight is not None:
            frame[weight] = values[weight].to_numpy()
        _add_risk(report, frame, quasi, title, schema, counts, None, inverse)
    return report


#: The column of the harmonic mean weight of a table of keys (a name no data column takes).
_HARMONIC = "__microanon_harmonic_weight__"


def _add_risk(
    report: Report,
    frame: pd.DataFrame,
    quasi: list[str],
    title: str,
    schema: Schema | None = None,
    counts: np.ndarray | None = None,
    households: HouseholdMeasure | None = None,
    inverse: np.ndarray | None = None,
    unidentified: str | None = None,
) -> bool:
    """The attacker models' risk profile of ``frame`` (SUDA2 is left to ``microanon risk``),
    with the survey measures when ``schema`` has a sampling weight (and a household id) that
    ``frame`` holds; ``counts``: records per row of a frequency table of the keys (and the
    weight). ``households``: the household risk of the records such a table stands for,
    measured over them (the schema has a household id). ``inverse``: per row, the sum of its
    records' inverse weights, when the weight column holds their mean
    (:attr:`Combinations.inverse`). The records without a weight are left out of the survey
    measures (:func:`~microanon.measures.survey_design.weighted_records`) and the section's note
    counts them; ``unidentified``: the household column whose records without an id ``frame``
    counts as without a weight (the note names it). True when the household risk was measured
    (``households`` given and the weight used)."""
    weights = household = note = None
    if schema is not None:
        weights, household, note = schema_design(schema, frame, counts)
    harmonic = None
    if counts is not None and weights is not None:  # a row per combination of keys
        keys = Combinations(frame, counts, inverse).key_weights(quasi, weights, _HARMONIC)
        frame, counts, harmonic = keys.values, keys.counts, _HARMONIC
    options = RiskOptions(quasi, weights, household, suda=False, harmonic=harmonic)
    measure = households if weights is not None else None
    assessment = assess_risk(frame, options, counts, measure)
    numbers = assessment.numbers
    lacking = unidentified if numbers["weight"] is not None else None
    without = left_out_note(numbers["rows_without_weight_left_out"], numbers["weight"], lacking)
    if without is not None:
        note = without if note is None else f"{note}; {without}"
    add_risk_section(report, assessment, title, note=note)
    return measure is not None


def _check_entering(release: Release, counts: RowCounts) -> None:
    """Refuse a release whose method received other rows than those the schema lets enter (its
    ``missing: drop`` columns): every output would state counts the published table
    contradicts.

    Raises
    ------
    VerificationError
        The method's ``rows_in`` is not :attr:`RowCounts.entering`; nothing is written.
    """
    rows_in = release.metadata.get("rows_in")
    if isinstance(rows_in, int) and not isinstance(rows_in, bool) and rows_in != counts.entering:
        raise VerificationError(
            f"the method received {rows_in:,} rows, but the schema lets {counts.entering:,} of "
            f"the {counts.in_file:,} rows enter (missing: drop); nothing was written"
        )
