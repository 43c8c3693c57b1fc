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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from dask import delayed

from ..core.errors import InfeasibleError, InputError, SchemaError, VerificationError
from ..core.hierarchy import SUPPRESSED
from ..core.output import atomic_directory, check_output_target
from ..core.progress import ProgressLike
from ..core.release import ALWAYS_PUBLIC, PUBLIC_DIR
from ..core.schema import Kind, Schema
from ..core.table import Table
from ..methods.generalize.full_domain import population_records
from ..methods.generalize.searches import (
    check_metric,
    check_search,
    check_suppression,
    run_search,
)
from ..methods.release import SUPPRESSED_ROWS, numbers_of
from ..models import PrivacyModel, Verdict, as_models
from ..models.population import population_from_record
from .apply import Plan, make_plan, make_writer, write_encoded
from .client import dask_client, wait_stage
from .encode import (
    Encoded,
    check_frame,
    clean_partition,
    combine_encodings,
    encode_partition,
    row_counts_of,
)
from .frequencies import SPLIT_EVERY, FrequencyTable, global_partial, sorted_table, tree_reduce
from .read import parquet_files, read_dataset, read_parquet_file
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
        The run's row counts (the keys of :class:`microanon.apps.row_counts.RowCounts`): in the
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
    suppression = check_suppression(suppression)
    metric = check_metric(metric)
    choice = check_search(search, time_limit, step_limit)
    if suppressed_rows not in SUPPRESSED_ROWS:
        raise InputError(
            f"suppressed_rows must be one of {', '.join(SUPPRESSED_ROWS)}, got {suppressed_rows!r}"
        )
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    if not schema.quasi:
        raise SchemaError("the schema has no quasi-identifier: mark the columns an attacker knows")
    resolved = as_models(models)
    with_population = [m for m in resolved if _against_population(m)]
    if with_population and suppressed_rows == "star" and suppression > 0:
        raise InputError(
            f"suppressed_rows: star is not available with {with_population[0].name} against a "
            "population (a '*' record matches every person); use suppressed_rows: remove"
        )
    needs_sa = [m.name for m in resolved if m.needs_sensitive]
    if needs_sa and len(schema.sensitive) != 1:
        raise SchemaError(
            f"{', '.join(needs_sa)} need exactly one sensitive column in the schema, found "
            f"{len(schema.sensitive)}"
        )
    missing = [q for q in schema.quasi if schema[q].hierarchy is None]
    if missing:
        raise SchemaError(
            f"quasi-identifier(s) {', '.join(missing)} need a hierarchy for this method "
            "(a file, or a builder such as {builder: intervals, widths: [5, 10]})"
        )
    if spill not in SPILL:
        raise InputError(f"spill must be one of {', '.join(SPILL)}, got {spill!r}")
    target = Path(out_dir)
    protect = [source] if isinstance(source, (str, os.PathLike)) else []
    check_output_target(target, overwrite, protect)
    sensitive = schema.sensitive[0] if needs_sa else None
    columns = list(schema.quasi) + ([sensitive] if sensitive is not None else [])
    others = [c for c in schema.published if c not in columns]
    with dask_client(client, scheduler) as run, atomic_directory(target, overwrite, protect) as tmp:
        if isinstance(source, (str, os.PathLike)):
            frame = read_dataset(source, columns=schema.columns, **dict(read_options or {}))
        else:
            frame = source
        check_frame(frame, schema)
        work = tmp / _WORK
        work.mkdir()
        pieces = _pieces(source, frame, schema, read_options)
        budget = _budget(run, len(pieces), spill)
        encode = delayed(encode_partition, pure=False)
        tasks = [
            encode(d, schema, columns, others, budget, str(work / f"part.{i}.parquet"))
            for i, d in enumerate(pieces)
        ]
        parts = run.compute(tasks)  # the codes stay on the workers; their summaries come here
        summaries = wait_stage(
            run, "encode", [run.submit(Encoded.summary, f, pure=False) for f in parts], progress
        )
        encoding, maps = combine_encodings(
            schema, columns, summaries, _population_values(schema, resolved)
        )
        rows = row_counts_of(summaries)
        seconds["encode"] = time.perf_counter() - started
        mark = time.perf_counter()
        cards = [encoding.cardinality(c) for c in columns]
        partial = [
            run.submit(global_partial, f, m, columns, cards, pure=False)
            for f, m in zip(parts, maps, strict=True)
        ]
        (merged,) = wait_stage(
            run, "frequency table", [tree_reduce(run, partial, cards, SPLIT_EVERY)], progress
        )
        del partial
        freq = sorted_table(columns, merged[0], merged[1], cards)
        seconds["frequencies"] = time.perf_counter() - mark
        table = Table.from_codes(
            freq.codes,
            {c: encoding.dictionaries[c] for c in columns},
            encoding.schema.select(columns),
            counts=freq.counts,
        )
        result, record = run_search(
            table, resolved, suppression, metric, suppressed_rows, choice, rng=rng
        )
        seconds["search"] = result.search_seconds
        plan = make_plan(encoding, freq, result.levels, result.suppressed_mask, suppressed_rows)
        published = _published_frequencies(freq, plan, list(schema.quasi))
        records = None
        checked = resolved
        if with_population:
            classes = pd.DataFrame({q: published.codes[q] for q in schema.quasi})
            records = population_records(table, result.levels, classes, resolved)
            checked = _with_records(resolved, records)
        numeric = sensitive is not None and numbers_of(table, sensitive) is not None
        _check_before_writing(
            published, schema.quasi, sensitive, numeric, checked, result.suppressed
        )
        public = {
            "method": "full_domain",
            "parameters": {
                "suppression": suppression,
                "metric": metric,
                "suppressed_rows": suppressed_rows,
                "all_minimal": False,
                **choice.public(),
            },
            "models": [m.to_config() for m in resolved],
            "quasi": list(encoding.schema.quasi),
            "sensitive": list(encoding.schema.sensitive),
            "rows_out": published.records,
            "levels": dict(result.levels),
        }
        internal = {
            "heights": {q: encoding.schema.hierarchy(q).height for q in result.levels},
            "hierarchies": {
                q: encoding.schema.hierarchy(q).to_dict() for q in encoding.schema.quasi
            },
            "rows_in": freq.records,
            "row_counts": {
                **rows,
                "suppressed": result.suppressed,
                "published": published.records,
                "unknown_sensitive": {},  # refused out of core (encode: missing: keep)
            },
            "suppressed": result.suppressed,
            "metric": {"name": metric, "value": result.metric_value},
            "nodes_checked": result.nodes_checked,
            "lattice_size": result.lattice_size,
            "search_seconds": result.search_seconds,
            "search": record,
            "combinations": len(freq),
        }
        if records is not None:
            internal["populations"] = records
        mark = time.perf_counter()
        meta = clean_partition(frame._meta, schema)
        types = {c: pa.string() if c in plan.labels else arrow_type(meta[c]) for c in plan.columns}
        # sent to every worker once, not pickled again with each task
        (writer,) = run.scatter([make_writer(plan, types)], broadcast=True, hash=False)
        data = tmp / PUBLIC_DIR / DATA
        data.mkdir(parents=True)
        paths = [str(data / f"part.{i}.parquet") for i in range(len(parts))]
        writes = [
            run.submit(write_encoded, f, m, writer, p, pure=False)
            for f, m, p in zip(parts, maps, paths, strict=True)
        ]
        written = wait_stage(run, "write", writes, progress)
        del parts, writes  # the codes leave the workers' memory
        shutil.rmtree(work)
        seconds["write"] = time.perf_counter() - mark
        mark = time.perf_counter()
        numeric = sensitive is not None and types[sensitive] not in (pa.string(), pa.bool_())
        verdicts, rows_out = verify_files(
            paths, schema.quasi, sensitive, checked, run, progress, numeric=numeric
        )
        failed = [str(v) for v in verdicts if v.holds is False]
        if failed:
            raise VerificationError(
                "the written release fails " + "; ".join(failed) + " (nothing was kept)"
            )
        if rows_out != published.records or sum(written) != rows_out:
            raise VerificationError(
                f"the written release holds {rows_out} records, expected {published.records}"
            )
        info = {
            "file": DATA,
            "rows": rows_out,
            "columns": list(plan.columns),
            "types": {c: logical_type(types[c]) for c in plan.columns},
            "parts": len(paths),
        }
        write_manifests(tmp, "generalized", public, internal, PUBLIC_KEYS, {"data": info})
        seconds["verify"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    return ScaleResult(
        levels=dict(result.levels),
        suppressed=result.suppressed,
        metric=metric,
        metric_value=result.metric_value,
        rows_in=freq.records,
        rows_out=rows_out,
        rows=internal["row_counts"],
        combinations=len(freq),
        verdicts=verdicts,
        path=target,
        data=target / PUBLIC_DIR / DATA,
        metadata=public,
        seconds=seconds,
        internal=internal,
    )


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


def _pieces(
    source: Any, frame: Any, schema: Schema, read_options: Mapping[str, Any] | None
) -> list[Any]:
    """One delayed pandas DataFrame per partition: a Parquet file read directly, else dask's."""
    if isinstance(source, (str, os.PathLike)):
        files = parquet_files(source, dict(read_options or {}).get("format"))
        if files is not None:
            numeric = [a.name for a in schema if a.kind is Kind.NUMERIC]
            read = delayed(read_parquet_file, pure=False)
            return [read(f, schema.columns, numeric) for f in files]
    return list(frame.to_delayed())


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
