"""Optimal full-domain generalization of a dataset larger than memory.

One pass reads and codes the original (each partition with its own dictionaries; the records'
combination indexes stay on the workers, or in a temporary file); the frequency table is merged
from the partitions' combinations; the search runs on it; every partition of the release is
written from its codes; the written files are read back and verified. Only the frequency table
of the quasi-identifiers (with the sensitive column when a model needs it) is held on the
client; the search on it gives exactly the levels, metric value and suppressed records of
:func:`microanon.methods.generalize.full_domain` on the whole table. The output is a release
directory as :meth:`microanon.core.release.Release.save` writes one (``public/``,
``internal/``), its table a partitioned Parquet dataset.
"""

from __future__ import annotations

import os
import shutil
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from dask import delayed

from ..core.errors import InfeasibleError, InputError, SchemaError, VerificationError
from ..core.hierarchy import SUPPRESSED
from ..core.output import atomic_directory, check_output_target
from ..core.progress import ProgressLike, as_progress
from ..core.reading import MarkerColumn, marker_columns
from ..core.release import ALWAYS_PUBLIC, PUBLIC_DIR
from ..core.repetition import Repetition, merged
from ..core.schema import Kind, Schema
from ..core.table import Table
from ..methods.generalize.full_domain import (
    SearchResult,
    emptied_record,
    population_records,
    recut_record,
)
from ..methods.generalize.searches import (
    SearchChoice,
    check_metric,
    check_search,
    check_suppression,
    run_search,
)
from ..methods.registry import twin
from ..methods.release import SUPPRESSED_ROWS, numbers_of, require_quasi
from ..models import PrivacyModel, Verdict, as_models
from ..models.config import declared_orders, require_one_sensitive
from ..models.population import population_from_record
from .apply import Plan, make_plan, make_writer, write_encoded
from .client import dask_client, wait_stage
from .encode import (
    Encoded,
    check_frame,
    check_ids,
    clean_partition,
    combine_encodings,
    encode_partition,
    merge_counted,
    row_counts_of,
    run_row_counts,
)
from .encoding import Encoding
from .frequencies import (
    SPLIT_EVERY,
    FrequencyTable,
    global_partial,
    sorted_table,
    tree_reduce,
)
from .read import dataset_pieces, read_dataset
from .record_order import order_parts
from .release_files import DATA, arrow_type, logical_type, write_manifests
from .verify import groups_of, verify_files

__all__ = ["ScaleResult", "full_domain_dask"]

#: Metadata keys of the public part: those of ``full_domain``'s in-memory release (the
#: hierarchies' heights stay internal: a hierarchy built from the data has a height that depends
#: on the original values).
PUBLIC_KEYS = frozenset(ALWAYS_PUBLIC) | {"levels"}
#: How the records' codes are kept between the passes: ``auto`` keeps them on the workers while
#: they fit a share of the cluster's memory and writes the rest to a temporary Parquet file.
SPILL = ("auto", "never", "always")
#: Share of the workers' memory the kept codes may take (``spill="auto"``).
KEEP_SHARE = 0.3
#: Temporary folder of spilled codes inside the output being built (removed before the end).
_WORK = ".work"


@dataclass(frozen=True)
class ScaleResult:
    """What :func:`full_domain_dask` published, for its caller (not written to the release).

    Attributes
    ----------
    levels : dict of str to int
        Level of each quasi-identifier.
    suppressed : int
        Records suppressed.
    metric, metric_value
        The metric and its value (for ``precision`` the precision).
    rows_in, rows_out : int
        Records read (after the missing-value policies) and written.
    rows : dict
        The run's row counts (the keys of :class:`microanon.core.row_counts.RowCounts`): in the
        file, left out per ``missing: drop`` column, entering, suppressed, published.
    combinations : int
        Rows of the frequency table the search ran on.
    verdicts : list of Verdict
        Every claimed model, checked on the written files.
    path : pathlib.Path
        The output directory.
    data : pathlib.Path
        The published Parquet dataset (``path / "public" / "data.parquet"``).
    metadata : dict
        The public metadata written to ``path / "public" / "release.json"``.
    seconds : dict of str to float
        Wall time of each stage.
    internal : dict
        The internal metadata written to ``path / "internal" / "internal.json"``.
    reported : dict
        The numbers of the release's reports, when its caller wrote them
        (:mod:`microanon.apps.scale_reports`: privacy before and after, utility, warnings);
        empty otherwise.
    searched : Table or None
        The frequency table the search ran on (in memory, never written): the reports search it
        again for the closest configurations.
    original : FrequencyTable or None
        With ``reports``: the original's combinations of values of the quasi-identifiers, the
        first sensitive column and the sampling weight (the schema's first weight column, for
        the survey risk measures; counted as missing for a record without a household id when
        the schema has one), as the method received them (missing-value policies applied),
        in order of first appearance, with their records: counted in the encoding pass (each
        partition on its worker, merged here, :func:`~microanon.scale.encode.merge_counted`).
        In memory, never written.
    published : FrequencyTable or None
        With ``reports``: the written files' combinations of the columns the reports measure
        (the quasi-identifiers, the sensitive columns and the sampling weight, counted by class
        with its sums), in order of first appearance, counted from the read that verifies them.
        In memory, never written.
    columns : list of str
        The written files' columns, in their order.
    markers : dict of str to MarkerColumn or None
        With ``reports``: the published columns of the original that hold a text other
        software writes for a missing value (R's ``NA`` read as text), in the schema's order,
        as :func:`~microanon.core.reading.missing_marker_columns` finds them in the whole
        table: tallied in the encoding pass on each partition's distinct values, merged here.
        In memory, never written.
    repeated : dict of str to Repetition
        With ``person_ids``: each one's distinct values, the rows read and the rows alone with
        their value (:class:`~microanon.core.repetition.Repetition`), counted in the encoding
        pass. In memory, never written.
    """

    levels: dict[str, int]
    suppressed: int
    metric: str
    metric_value: float
    rows_in: int
    rows_out: int
    rows: dict[str, Any]
    combinations: int
    verdicts: list[Verdict]
    path: Path
    data: Path
    metadata: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    internal: dict[str, Any] = field(default_factory=dict)
    reported: dict[str, Any] = field(default_factory=dict)
    searched: Table | None = field(default=None, repr=False, compare=False)
    original: FrequencyTable | None = field(default=None, repr=False, compare=False)
    published: FrequencyTable | None = field(default=None, repr=False, compare=False)
    columns: list[str] = field(default_factory=list)
    markers: dict[str, MarkerColumn] | None = field(default=None, repr=False, compare=False)
    repeated: dict[str, Repetition] = field(default_factory=dict, repr=False, compare=False)


def _published_frequencies(table: FrequencyTable, plan: Plan, quasi: list[str]) -> FrequencyTable:
    """The frequency table of the release, from the original's (star mode: the ``*`` class)."""
    mask = np.zeros(len(table), dtype=bool)
    if len(plan.suppressed):
        if table.keys is not None:
            mask = np.isin(table.keys, plan.suppressed)
        else:
            index = pd.MultiIndex.from_arrays([table.codes[c] for c in table.columns])
            mask = index.isin(plan.suppressed)
    keep = ~mask if plan.mode == "remove" else np.ones(len(table), dtype=bool)
    values = {}
    for c in table.columns:
        if c in plan.labels:
            col = plan.labels[c][table.codes[c]]
            if plan.mode == "star":
                col[mask] = SUPPRESSED
        else:
            col = plan.encoding.dictionaries[c][table.codes[c]]
        values[c] = col[keep]
    return FrequencyTable(list(table.columns), values, table.counts[keep])


def _check_before_writing(
    published: FrequencyTable,
    quasi: list[str],
    sensitive: str | None,
    numeric: bool,
    models: list,
    n_star: int,
) -> None:
    """Refuse a release whose classes fail a model (star mode: the ``*`` class can).

    ``numeric``: whether the sensitive values are numbers, as the search took them.
    """
    groups = groups_of(published, quasi, sensitive, numeric)
    for m in models:
        verdict = m.check(groups)
        if verdict.holds is False:
            offending = verdict.offending
            star = (
                (offending[quasi].astype(str) == SUPPRESSED).all(axis=1) if len(offending) else []
            )
            if np.any(star):
                raise InfeasibleError(
                    f"suppressed_rows: star would publish the {n_star} suppressed record(s) as "
                    f"one '*' class that fails it ({verdict}); publish them with "
                    "suppressed_rows: remove, or allow less suppression"
                )
            raise VerificationError(f"the chosen node fails {verdict}")


@twin("full_domain")
def full_domain_dask(
    source: Any,
    schema: Schema | Mapping[str, Any],
    *,
    models: Any,
    out_dir: str | os.PathLike[str],
    suppression: float = 0.0,
    metric: str = "lm",
    suppressed_rows: str = "remove",
    search: str = "auto",
    time_limit: float | None = None,
    step_limit: int | None = None,
    rng: np.random.Generator | None = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    overwrite: bool = False,
    spill: str = "auto",
    reports: Callable[[ScaleResult, Any], dict[str, Any]] | None = None,
    audit: Mapping[str, Any] | None = None,
    person_ids: Sequence[str] = (),
) -> ScaleResult:
    """Optimal full-domain generalization with suppression, out of core, written as Parquet.

    Parameters
    ----------
    source : path, glob or dask DataFrame
        The original data: anything :func:`microanon.scale.read_dataset` reads, or a dask
        DataFrame.
    schema : Schema or mapping
        As for :func:`microanon.methods.generalize.full_domain`; builder hierarchies are made
        from the data's distinct values (``quantiles`` from their counts summed over the
        partitions, which cut it as every record would).
    models : model specification
        As for ``full_domain``. δ-presence and k-map against a population table hold their
        population in memory (it must fit): builder hierarchies also cover its values, the
        search encodes it with the hierarchies, the internal metadata keeps ``populations``
        (the people of each published class, as ``full_domain`` does) and the written files are
        verified against that record.
    out_dir : path
        The output directory, laid out as :meth:`Release.save` lays out a release:
        ``public/release.json`` (the manifest and public metadata), ``public/data.parquet/``
        (the published table, one ``part.N.parquet`` file per input partition) and
        ``internal/internal.json`` (what the data owner keeps). It is built in a hidden sibling
        and renamed at the end; on failure only that sibling is removed.
    suppression, metric, suppressed_rows
        As for ``full_domain``.
    search, time_limit, step_limit
        As for ``full_domain``: the search runs on the frequency table of the distinct
        combinations, in this process, with the same choice, budget and record.
    rng : numpy.random.Generator, optional
        As for ``full_domain``: drawn from by the genetic search only, never written.
    client : distributed.Client, optional
        Run on this client (left open). Default: ``scheduler``, else the environment variable
        ``MICROANON_SCHEDULER``, else a local cluster started for the run and closed after.
    scheduler : str, optional
        Address of a running Dask scheduler.
    progress : Progress, bool, str or None
        Progress bars (True), nothing (False), one line per stage on stderr (``"lines"``), bars
        when stderr is a terminal and lines otherwise (None), or the
        :class:`~microanon.core.progress.Progress` of a longer run.
    read_options : mapping, optional
        Passed to :func:`microanon.scale.read_dataset` (``sep``, ``encoding``, ``na_values``,
        ``format``, ``blocksize``).
    overwrite : bool
        Replace ``out_dir`` if it holds a previous microanon output and nothing else (as
        :meth:`Release.save`); a directory with any other file is refused, never deleted.
    spill : {"auto", "never", "always"}
        Where the records' codes wait between the passes: on the workers while they fit
        ``KEEP_SHARE`` of the cluster's memory (``auto``), always there (``never``), or in a
        temporary Parquet file inside the output being built (``always``), removed before the
        end.
    reports : callable, optional
        Called with the verified release (its ``path`` the directory being built) and the
        client, before the directory is moved to ``out_dir``: what it writes there is part of
        the output (``microanon anonymize`` writes the reports,
        :func:`microanon.apps.scale_reports.write_scale_reports`); what it returns is
        ``reported``.
    audit : mapping, optional
        The audit trail of the command that runs it (``microanon anonymize``:
        :func:`microanon.apps.audit.audit_trail` and its lint), kept in the internal metadata as
        ``audit`` with ``method_seconds`` the seconds of the encoding, the frequency table and
        the search.
    person_ids : sequence of str, optional
        Identifier columns of the schema that may number people (``microanon anonymize``:
        :func:`microanon.apps.init.people.person_ids`): the encoding pass also counts their
        values over every row read (:attr:`ScaleResult.repeated`), for the reports to warn of
        a panel's person id as in memory.

    Returns
    -------
    ScaleResult

    Raises
    ------
    InputError
        Bad input, schema or parameters (as ``full_domain``); an unreachable scheduler; an
        existing output directory.
    InfeasibleError
        No node satisfies the models within the suppression limit.
    VerificationError
        A claimed model fails on the written files (nothing is left behind).
    """
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    args = _check_arguments(
        schema, models, suppression, metric, suppressed_rows, search, time_limit, step_limit, spill
    )
    target = Path(out_dir)
    protect = [source] if isinstance(source, (str, os.PathLike)) else []
    check_output_target(target, overwrite, protect)
    with dask_client(client, scheduler) as run, atomic_directory(target, overwrite, protect) as tmp:
        counted = []  # the original's combinations counted for the reports
        if reports is not None:
            weight = [args.schema.weight] if args.schema.weight else []  # survey risk measures
            counted = [*args.schema.quasi, *args.schema.sensitive[:1], *weight]
        coded = _encode(
            run, source, args, read_options, tmp / _WORK, spill, progress, counted, person_ids
        )
        seconds["encode"] = time.perf_counter() - started
        mark = time.perf_counter()
        freq = _frequencies(run, coded, args.columns, progress)
        seconds["frequencies"] = time.perf_counter() - mark
        with as_progress(progress).stage("search"):
            chosen = _search(args, coded.encoding, freq, rng)
        seconds["search"] = chosen.result.search_seconds
        public, internal = _metadata(args, coded, freq, chosen)
        if audit is not None:
            method = seconds["encode"] + seconds["frequencies"] + seconds["search"]
            internal["audit"] = {**audit, "method_seconds": round(method, 3)}
        mark = time.perf_counter()
        written = _write(run, coded, args.schema, chosen.plan, tmp, progress)
        coded = replace(coded, parts=[])  # the codes leave the workers' memory
        shutil.rmtree(tmp / _WORK)
        seconds["write"] = time.perf_counter() - mark
        mark = time.perf_counter()
        verdicts, published = _verify(run, written, args, chosen, progress, reports is not None)
        info = {
            "file": DATA,
            "rows": chosen.published.records,
            "columns": list(chosen.plan.columns),
            "types": {c: logical_type(written.types[c]) for c in chosen.plan.columns},
            "parts": len(written.paths),
        }
        write_manifests(tmp, "generalized", public, internal, PUBLIC_KEYS, {"data": info})
        seconds["verify"] = time.perf_counter() - mark
        found = chosen.result
        written_release = ScaleResult(
            levels=dict(found.levels),
            suppressed=found.suppressed,
            metric=args.metric,
            metric_value=found.metric_value,
            rows_in=freq.records,
            rows_out=chosen.published.records,
            rows=internal["row_counts"],
            combinations=len(freq),
            verdicts=verdicts,
            path=tmp,
            data=tmp / PUBLIC_DIR / DATA,
            metadata=public,
            seconds=seconds,
            internal=internal,
            searched=chosen.table,
            original=coded.counted,
            published=published,
            columns=list(chosen.plan.columns),
            markers=coded.markers,
            repeated=coded.repeated,
        )
        if reports is not None:
            mark = time.perf_counter()
            with as_progress(progress).stage("reports"):
                reported = reports(written_release, run)
            written_release = replace(written_release, reported=reported)
            seconds["reports"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    return replace(written_release, path=target, data=target / PUBLIC_DIR / DATA)


@dataclass(frozen=True)
class _Arguments:
    """The validated arguments of a run."""

    schema: Schema
    models: list[PrivacyModel]
    suppression: float
    metric: str
    suppressed_rows: str
    choice: SearchChoice
    #: The sensitive column, when a model needs it.
    sensitive: str | None
    #: Whether a model is checked against a population table.
    with_population: bool

    @property
    def columns(self) -> list[str]:
        """The columns of the frequency table: the quasi-identifiers, then the sensitive one."""
        return list(self.schema.quasi) + ([self.sensitive] if self.sensitive is not None else [])


def _check_arguments(
    schema: Schema | Mapping[str, Any],
    models: Any,
    suppression: float,
    metric: str,
    suppressed_rows: str,
    search: str,
    time_limit: float | None,
    step_limit: int | None,
    spill: str,
) -> _Arguments:
    """Validate the arguments of :func:`full_domain_dask` before any work.

    Raises
    ------
    InputError, SchemaError
        As :func:`full_domain_dask` documents.
    """
    suppression = check_suppression(suppression)
    metric = check_metric(metric)
    choice = check_search(search, time_limit, step_limit)
    if suppressed_rows not in SUPPRESSED_ROWS:
        raise InputError(
            f"suppressed_rows must be one of {', '.join(SUPPRESSED_ROWS)}, got {suppressed_rows!r}"
        )
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    require_quasi(schema)
    resolved = as_models(models)
    with_population = [m for m in resolved if _against_population(m)]
    if with_population and suppressed_rows == "star" and suppression > 0:
        raise InputError(
            f"suppressed_rows: star is not available with {with_population[0].name} against a "
            "population (a '*' record matches every person); use suppressed_rows: remove"
        )
    require_one_sensitive(resolved, schema.sensitive)
    resolved = declared_orders(resolved, schema)
    needs_sa = any(m.needs_sensitive for m in resolved)
    missing = [q for q in schema.quasi if schema[q].hierarchy is None]
    if missing:
        raise SchemaError(
            f"quasi-identifier(s) {', '.join(missing)} need a hierarchy for this method "
            "(a file, or a builder such as {builder: intervals, widths: [5, 10]})"
        )
    if spill not in SPILL:
        raise InputError(f"spill must be one of {', '.join(SPILL)}, got {spill!r}")
    return _Arguments(
        schema,
        resolved,
        suppression,
        metric,
        suppressed_rows,
        choice,
        schema.sensitive[0] if needs_sa else None,
        bool(with_population),
    )


@dataclass(frozen=True)
class _Coded:
    """The original read and coded: the records' codes wait on the workers (or on disk)."""

    #: The dask DataFrame read (its ``_meta`` gives the published columns' types).
    frame: Any
    #: One future per partition: its :class:`Encoded` codes.
    parts: list[Any]
    #: Per partition, the global code of each local code of each column.
    maps: list[dict[str, np.ndarray]]
    encoding: Encoding
    #: The row counts of the read (in the file, left out, entering).
    rows: dict[str, Any]
    #: The partitions' :attr:`Encoded.counted` tables merged (None when not asked for).
    counted: FrequencyTable | None = None
    #: The published columns holding a missing-value marker, from the partitions'
    #: :attr:`Encoded.markers` (None when not asked for).
    markers: dict[str, MarkerColumn] | None = None
    #: Records holding ``?`` in each column of numbers kept as text (:attr:`Encoded.marked`).
    marked: dict[str, int] = field(default_factory=dict)
    #: The person identifiers' repetition over every row read (empty when none were asked for).
    repeated: dict[str, Repetition] = field(default_factory=dict)


def _encode(
    run: Any,
    source: Any,
    args: _Arguments,
    read_options: Mapping[str, Any] | None,
    work: Path,
    spill: str,
    progress: ProgressLike,
    counted: list[str],
    ids: Sequence[str] = (),
) -> _Coded:
    """Stage 1: read the original and code every partition with its own dictionaries, then
    combine the partitions' dictionaries into the global encoding (``work``: where spilled
    codes go; ``counted``: the columns whose combinations of values the partitions count too,
    see :attr:`Encoded.counted`; with them, the partitions tally the published columns'
    missing-value markers of other software, :attr:`Encoded.markers`; ``ids``: identifier
    columns whose values each partition as read also tallies, merged on one worker,
    :mod:`microanon.core.repetition`)."""
    schema, columns = args.schema, args.columns
    ids = check_ids(schema, ids)
    others = [c for c in schema.published if c not in columns]
    if isinstance(source, (str, os.PathLike)):
        frame = read_dataset(source, columns=schema.columns, **dict(read_options or {}))
    else:
        frame = source
    check_frame(frame, schema)
    work.mkdir()
    numeric = [a.name for a in schema if a.kind is Kind.NUMERIC]
    pieces = dataset_pieces(source, frame, schema.columns, numeric, read_options)
    budget = _budget(run, len(pieces), spill)
    encode = delayed(encode_partition, pure=False)
    # A sampling weight is counted by class with its sums, a record without a household id as
    # one without a weight: the survey risk measures leave out both, as in memory.
    weight = schema.weight if counted and counted[-1] == schema.weight else None
    household = schema.household if weight is not None else None
    spills = [str(work / f"part.{i}.parquet") for i in range(len(pieces))]
    marked = list(schema.published) if counted else []  # (for the reports, as in memory)
    tasks = [
        encode(d, schema, columns, others, budget, spill, counted, weight, household, marked, ids)
        for d, spill in zip(pieces, spills, strict=True)
    ]
    with warnings.catch_warnings():
        # A CSV file's partitions carry the rows its column types were inferred from (up to
        # TYPE_SAMPLE_BYTES of the file, by design): Dask's hint about a graph of that size
        # is no news to the user.
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
        parts = run.compute(tasks)  # the codes stay on the workers; their summaries come here
    repeated_at = []  # the identifiers' tallies merged in one task: three numbers each
    if ids:
        tallies = [run.submit(Encoded.tallied, f, pure=False) for f in parts]
        repeated_at = [run.submit(merged, tallies, ids, pure=False)]
        parts = [run.submit(Encoded.untallied, f, pure=False) for f in parts]
    summaries = wait_stage(
        run,
        "encode",
        [*(run.submit(Encoded.summary, f, pure=False) for f in parts), *repeated_at],
        progress,
    )
    repeated = summaries.pop() if ids else {}
    encoding, maps = combine_encodings(
        schema, columns, summaries, _population_values(schema, args.models)
    )
    together = markers = None
    if counted:
        together = merge_counted([s.counted for s in summaries if s.counted is not None], counted)
        markers = marker_columns([s.markers for s in summaries], marked)
    held: dict[str, int] = {}  # records holding ? in each column of numbers kept as text
    for summary in summaries:
        for c, n in summary.marked.items():
            held[c] = held.get(c, 0) + n
    return _Coded(
        frame, parts, maps, encoding, row_counts_of(summaries), together, markers, held, repeated
    )


def _frequencies(
    run: Any, coded: _Coded, columns: list[str], progress: ProgressLike
) -> FrequencyTable:
    """Stage 2: the frequency table of ``columns``, merged from the partitions' combinations."""
    cards = [coded.encoding.cardinality(c) for c in columns]
    partial = [
        run.submit(global_partial, f, m, columns, cards, pure=False)
        for f, m in zip(coded.parts, coded.maps, strict=True)
    ]
    (merged,) = wait_stage(
        run, "frequency table", [tree_reduce(run, partial, cards, SPLIT_EVERY)], progress
    )
    del partial
    return sorted_table(columns, merged[0], merged[1], cards)


@dataclass(frozen=True)
class _Chosen:
    """The node the search chose, and the release it gives."""

    result: SearchResult
    #: What the release says about the search.
    record: dict[str, Any]
    plan: Plan
    #: The release's frequency table.
    published: FrequencyTable
    #: The people of each published class, per model against a population (None otherwise).
    records: list[dict[str, Any] | None] | None
    #: The models as the written files are checked (against the records' people).
    checked: list[PrivacyModel]
    #: The frequency table the search ran on.
    table: Table


def _search(
    args: _Arguments, encoding: Encoding, freq: FrequencyTable, rng: np.random.Generator | None
) -> _Chosen:
    """Stage 3: the search on the frequency table, in this process, and the release it gives,
    checked before anything is written.

    Raises
    ------
    InfeasibleError
        No node satisfies the models (or the star class fails one).
    VerificationError
        The chosen node fails a model.
    """
    columns, sensitive, quasi = args.columns, args.sensitive, list(args.schema.quasi)
    table = Table.from_codes(
        freq.codes,
        {c: encoding.dictionaries[c] for c in columns},
        encoding.schema.select(columns),
        counts=freq.counts,
    )
    result, record = run_search(
        table,
        args.models,
        args.suppression,
        args.metric,
        args.suppressed_rows,
        args.choice,
        rng=rng,
    )
    plan = make_plan(encoding, freq, result.levels, result.suppressed_mask, args.suppressed_rows)
    published = _published_frequencies(freq, plan, quasi)
    records = None
    checked = args.models
    if args.with_population:
        classes = pd.DataFrame({q: published.codes[q] for q in quasi})
        records = population_records(table, result.levels, classes, args.models, plan.shown)
        checked = _with_records(args.models, records)
    numeric = sensitive is not None and numbers_of(table, sensitive) is not None
    _check_before_writing(published, quasi, sensitive, numeric, checked, result.suppressed)
    return _Chosen(result, record, plan, published, records, checked, table)


def _metadata(
    args: _Arguments, coded: _Coded, freq: FrequencyTable, chosen: _Chosen
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The public and internal metadata of the release."""
    encoding, result, published = coded.encoding, chosen.result, chosen.published
    public = {
        "method": "full_domain",
        "parameters": {
            "suppression": args.suppression,
            "metric": args.metric,
            "suppressed_rows": args.suppressed_rows,
            "all_minimal": False,
            **args.choice.public(),
        },
        "models": [m.to_config() for m in args.models],
        "quasi": list(encoding.schema.quasi),
        "sensitive": list(encoding.schema.sensitive),
        "rows_out": published.records,
        "levels": dict(result.levels),
    }
    internal = {
        "heights": {q: encoding.schema.hierarchy(q).height for q in result.levels},
        "hierarchies": {q: encoding.schema.hierarchy(q).to_dict() for q in encoding.schema.quasi},
        "rows_in": freq.records,
        "row_counts": run_row_counts(coded.rows, result.suppressed, published.records),
        "suppressed": result.suppressed,
        "metric": {"name": args.metric, "value": result.metric_value},
        "nodes_checked": result.nodes_checked,
        "lattice_size": result.lattice_size,
        "search_seconds": result.search_seconds,
        "search": chosen.record,
        "combinations": len(freq),
    }
    if chosen.records is not None:
        internal["populations"] = chosen.records
    recut = recut_record(encoding.schema, result.levels, chosen.plan.shown)
    if recut:
        internal["recut"] = recut
    emptied = emptied_record(chosen.table, result.levels, result.suppressed_mask)
    if emptied:
        internal["emptied"] = emptied
    return public, internal


@dataclass(frozen=True)
class _Written:
    """The release's Parquet files."""

    paths: list[str]
    #: The Arrow type of each published column.
    types: dict[str, pa.DataType]
    #: Records written to each file.
    rows: list[int]


def _write(
    run: Any, coded: _Coded, schema: Schema, plan: Plan, tmp: Path, progress: ProgressLike
) -> _Written:
    """Stage 4: every partition of the release written from its codes, one file each."""
    meta = clean_partition(coded.frame._meta, schema)
    # (a column of numbers some record of which holds ?: text, its numbers as memory writes them)
    text = {c for c, n in coded.marked.items() if n}
    types = {
        c: pa.string() if c in plan.labels or c in text else arrow_type(meta[c])
        for c in plan.columns
    }
    # sent to every worker once, not pickled again with each task
    (writer,) = run.scatter([make_writer(plan, types)], broadcast=True, hash=False)
    data = tmp / PUBLIC_DIR / DATA
    data.mkdir(parents=True)
    paths = [str(data / f"part.{i}.parquet") for i in range(len(coded.parts))]
    writes = [
        run.submit(write_encoded, f, m, writer, p, pure=False)
        for f, m, p in zip(coded.parts, coded.maps, paths, strict=True)
    ]
    wait_stage(run, "write", writes, progress)
    # (each file is a stretch of the input: the rows are sent to files at random, then sorted)
    rows = order_parts(run, data, progress)
    return _Written(paths, types, rows)


def _verify(
    run: Any,
    written: _Written,
    args: _Arguments,
    chosen: _Chosen,
    progress: ProgressLike,
    counted: bool,
) -> tuple[list[Verdict], FrequencyTable | None]:
    """Stage 5: the written files read back and every claimed model checked on them; with
    ``counted``, the files' combinations of every column from the same read (for the reports).

    Raises
    ------
    VerificationError
        A model fails on the files, or they hold other than the release's records.
    """
    verdicts, rows_out, table = verify_files(
        written.paths,
        args.schema.quasi,
        args.sensitive,
        chosen.checked,
        run,
        progress,
        counted=_report_columns(args.schema, list(written.types)) if counted else (),
        weight=args.schema.weight if args.schema.weight in written.types else None,
    )
    failed = [str(v) for v in verdicts if v.holds is False]
    if failed:
        raise VerificationError(
            "the written release fails " + "; ".join(failed) + " (nothing was kept)"
        )
    expected = chosen.published.records
    if rows_out != expected or sum(written.rows) != rows_out:
        raise VerificationError(
            f"the written release holds {rows_out} records, expected {expected}"
        )
    return verdicts, table


def _report_columns(schema: Schema, written: list[str]) -> list[str]:
    """The written columns whose combinations the reports measure: the quasi-identifiers, the
    sensitive columns and the sampling weight (the others they only name)."""
    measured = {*schema.quasi, *schema.sensitive, *([schema.weight] if schema.weight else [])}
    return [c for c in written if c in measured]


def _against_population(model: PrivacyModel) -> bool:
    return model.needs_population


def _population_values(schema: Schema, models: list[PrivacyModel]) -> dict[str, list[pd.Series]]:
    """The population values of the quasi-identifiers, for the builder hierarchies to cover.

    As ``full_domain`` in memory (:meth:`Schema.resolve` with ``more_values``).
    """
    more: dict[str, list[pd.Series]] = {}
    for m in models:
        if not _against_population(m) or m.population is None:
            continue
        for column in schema.quasi:
            if column in m.population.columns:
                more.setdefault(column, []).append(m.population[column])
    return more


def _with_records(
    models: list[PrivacyModel], records: list[dict[str, Any] | None]
) -> list[PrivacyModel]:
    """The models, those against a population given its people per published class instead.

    The check of the written files counts the people of each class as
    :func:`microanon.models.check_release` does: from the release's ``populations`` record.
    """
    out = []
    for model, record in zip(models, records, strict=True):
        if record is not None:
            model = model.with_population(*population_from_record(record))
        out.append(model)
    return out


def _budget(client: Any, partitions: int, spill: str) -> float | None:
    """Bytes each partition may keep on the workers before it is written to disk."""
    if spill == "never":
        return None
    if spill == "always":
        return 0.0
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # older distributed
        workers = client.scheduler_info()["workers"]
    limits = [w.get("memory_limit") or 0 for w in workers.values()]
    if not limits or min(limits) <= 0:
        return None
    return KEEP_SHARE * sum(limits) / max(partitions, 1)
