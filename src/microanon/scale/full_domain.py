"""Optimal full-domain generalization of a dataset larger than memory.

Read → encode → frequency table → search → publish partition by partition → verify the written
files. Only the frequency table of the quasi-identifiers (with the sensitive column when a model
needs it) is held in memory; the search on it gives exactly the levels, metric value and
suppressed records of :func:`microanon.methods.generalize.full_domain` on the whole table.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InfeasibleError, InputError, SchemaError, VerificationError
from ..core.hierarchy import SUPPRESSED
from ..core.output import atomic_directory
from ..core.schema import Schema
from ..core.table import Table
from ..methods._release import SUPPRESSED_ROWS
from ..methods.generalize._search import check_metric, check_suppression, search
from ..models import PopulationModel, Verdict, as_models
from .apply import Plan, make_plan, publish_partition
from .client import dask_client, run_stage
from .encode import encode_dataset
from .frequencies import FrequencyTable, code_frequencies
from .read import read_dataset
from .verify import groups_of, verify_written

__all__ = ["ScaleResult", "full_domain_dask"]

#: Folder of the published Parquet dataset inside the output directory.
DATA = "data"
#: The release's public metadata inside the output directory.
METADATA = "metadata.json"


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
    combinations : int
        Rows of the frequency table the search ran on.
    verdicts : list of Verdict
        Every claimed model, checked on the written files.
    path : pathlib.Path
        The output directory.
    data : pathlib.Path
        The published Parquet dataset (``path / "data"``).
    metadata : dict
        The public metadata written to ``path / "metadata.json"``.
    seconds : dict of str to float
        Wall time of each stage.
    """

    levels: dict[str, int]
    suppressed: int
    metric: str
    metric_value: float
    rows_in: int
    rows_out: int
    combinations: int
    verdicts: list[Verdict]
    path: Path
    data: Path
    metadata: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)


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
    published: FrequencyTable, quasi: list[str], sensitive: str | None, models: list, n_star: int
) -> None:
    """Refuse a release whose classes fail a model (star mode: the ``*`` class can)."""
    groups = groups_of(published, quasi, sensitive)
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
    client: Any = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    read_options: Mapping[str, Any] | None = None,
) -> ScaleResult:
    """Optimal full-domain generalization with suppression, out of core, written as Parquet.

    Parameters
    ----------
    source : path, glob or dask DataFrame
        The original data: anything :func:`microanon.scale.read_dataset` reads, or a dask
        DataFrame.
    schema : Schema or mapping
        As for :func:`microanon.methods.generalize.full_domain`; builder hierarchies are made
        from the data's distinct values (except ``quantiles``, which needs every value).
    models : model specification
        As for ``full_domain``; models checked against a population table are not supported
        out of core yet.
    out_dir : path
        The output directory; it must not exist or be empty. It gets ``data/`` (the published
        table as a partitioned Parquet dataset), ``metadata.json`` (the release's public
        metadata) and a marker listing the files. It is built in a hidden sibling and renamed
        at the end; on failure only that sibling is removed.
    suppression, metric, suppressed_rows
        As for ``full_domain``.
    client : distributed.Client, optional
        Run on this client (left open). Default: ``scheduler``, else the environment variable
        ``MICROANON_SCHEDULER``, else a local cluster started for the run and closed after.
    scheduler : str, optional
        Address of a running Dask scheduler.
    progress : bool or None
        Progress bars (True), one line per stage on stderr (False), or bars only when stderr
        is a terminal (None).
    read_options : mapping, optional
        Passed to :func:`microanon.scale.read_dataset` (``sep``, ``encoding``, ``na_values``,
        ``format``, ``blocksize``).

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
    if suppressed_rows not in SUPPRESSED_ROWS:
        raise InputError(
            f"suppressed_rows must be one of {', '.join(SUPPRESSED_ROWS)}, got {suppressed_rows!r}"
        )
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    if not schema.quasi:
        raise SchemaError("the schema has no quasi-identifier: mark the columns an attacker knows")
    resolved = as_models(models)
    population = [m.name for m in resolved if isinstance(m, PopulationModel) and m.needs_population]
    if population:
        raise InputError(
            f"models: {', '.join(population)} against a population table is not supported out "
            "of core yet; use full_domain in memory"
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
    target = Path(out_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(f"{target} already exists; choose another directory")
    sensitive = schema.sensitive[0] if needs_sa else None
    columns = list(schema.quasi) + ([sensitive] if sensitive is not None else [])
    with dask_client(client, scheduler) as run:
        if isinstance(source, (str, os.PathLike)):
            frame = read_dataset(source, columns=schema.columns, **dict(read_options or {}))
        else:
            frame = source
        encoding, cleaned = encode_dataset(frame, schema, columns, run, progress)
        seconds["encode"] = time.perf_counter() - started
        mark = time.perf_counter()
        freq = code_frequencies(cleaned, encoding, columns, run, progress)
        seconds["frequencies"] = time.perf_counter() - mark
        table = Table.from_codes(
            freq.codes,
            {c: encoding.dictionaries[c] for c in columns},
            encoding.schema.select(columns),
            counts=freq.counts,
        )
        result = search(table, resolved, suppression, metric, False, False, suppressed_rows)
        seconds["search"] = result.search_seconds
        plan = make_plan(encoding, freq, result.levels, result.suppressed_mask, suppressed_rows)
        published = _published_frequencies(freq, plan, list(schema.quasi))
        _check_before_writing(published, schema.quasi, sensitive, resolved, result.suppressed)
        metadata = {
            "method": "full_domain",
            "parameters": {
                "suppression": suppression,
                "metric": metric,
                "suppressed_rows": suppressed_rows,
                "all_minimal": False,
            },
            "models": [m.to_config() for m in resolved],
            "quasi": list(encoding.schema.quasi),
            "sensitive": list(encoding.schema.sensitive),
            "rows_out": published.records,
            "levels": dict(result.levels),
            "heights": {q: encoding.schema.hierarchy(q).height for q in result.levels},
        }
        mark = time.perf_counter()
        with atomic_directory(target) as tmp:
            out = cleaned.map_partitions(
                publish_partition, plan, meta=publish_partition(cleaned._meta, plan)
            )
            write = out.to_parquet(str(tmp / DATA), write_index=False, compute=False)
            run_stage(run, "write", [write], progress)
            seconds["write"] = time.perf_counter() - mark
            mark = time.perf_counter()
            verdicts, rows_out = verify_written(
                tmp / DATA, schema.quasi, sensitive, resolved, run, progress
            )
            failed = [str(v) for v in verdicts if v.holds is False]
            if failed:
                raise VerificationError(
                    "the written release fails " + "; ".join(failed) + " (nothing was kept)"
                )
            if rows_out != published.records:
                raise VerificationError(
                    f"the written release holds {rows_out} records, expected {published.records}"
                )
            (tmp / METADATA).write_text(json.dumps(metadata, indent=1, default=str), "utf-8")
            seconds["verify"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    return ScaleResult(
        levels=dict(result.levels),
        suppressed=result.suppressed,
        metric=metric,
        metric_value=result.metric_value,
        rows_in=freq.records,
        rows_out=rows_out,
        combinations=len(freq),
        verdicts=verdicts,
        path=target,
        data=target / DATA,
        metadata=metadata,
        seconds=seconds,
    )
