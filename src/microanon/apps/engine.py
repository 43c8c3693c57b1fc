"""``--engine``: where the command line's work runs, in memory (pandas) or out of core (Dask).

:func:`choose_engine` picks the engine (``auto``: Dask for a directory, a glob or files above
:data:`AUTO_BYTES`); :func:`anonymize_dask` (full-domain generalization, the row-wise
methods and block microaggregation), :func:`check_dask` and :func:`risk_dask` wire the commands
to :mod:`microanon.scale`. Nothing here imports Dask until a Dask engine runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import inspect
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.progress import ProgressLike, as_progress
from ..core.random import make_rng, state_fingerprints
from ..core.reading import ReadOptions
from ..core.release import not_a_dataset
from ..methods import registry
from ..methods.release import require_quasi
from .audit import audit_trail
from .config import DATASET_PREFIX, PipelineConfig
from .io import EXCEL_SUFFIXES, FEATHER_SUFFIXES, STATISTICAL_SUFFIXES

__all__ = [
    "AUTO_BYTES",
    "ENGINES",
    "LINT_CELLS",
    "LINT_SAMPLE",
    "anonymize_dask",
    "check_dask",
    "choose_engine",
    "dask_methods",
    "lint_dask",
    "read_options",
    "refuse_out_in_input",
    "risk_dask",
]

#: With ``--engine dask`` the schema lint runs on a sample of at most this many records ...
LINT_SAMPLE = 1_000_000
#: ... and of at most this many cells (records times columns), so that a wide table's sample
#: stays small (0.1–0.2 s of lint on Adult's 15 columns at a million records).
LINT_CELLS = 20_000_000
#: ... drawn from at most this many partitions chosen at random, so that the lint does not read
#: the whole dataset a second time.
LINT_PARTITIONS = 16

#: The values of ``--engine``.
ENGINES = ("auto", "memory", "dask")

#: ``--engine auto`` runs on Dask when the input files total more than this (2 GiB).
AUTO_BYTES = 2 * 1024**3

_GLOB = set("*?[")
_CSV = (".csv", ".tsv", ".txt")


def _files(source: str) -> list[Path]:
    """The data files behind a path, directory or glob (none when it names nothing)."""
    if any(ch in _GLOB for ch in source):
        return sorted(Path(p) for p in glob.glob(source, recursive=True) if Path(p).is_file())
    path = Path(source)
    if path.is_dir():
        return sorted(
            f
            for f in path.rglob("*")
            if f.is_file() and not any(p.startswith((".", "_")) for p in f.relative_to(path).parts)
        )
    return [path] if path.is_file() else []


def _glob_root(pattern: str) -> Path:
    """The directory a glob reads from: its leading components before the first wildcard."""
    fixed = []
    for part in Path(pattern).parts:
        if any(ch in _GLOB for ch in part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def refuse_out_in_input(out: Path, source: Any) -> None:
    """Refuse an output directory that is, or lies inside, a directory the input reads from.

    A directory input reads every data file under it, a glob every match under its leading
    directory (``dir`` for ``dir/*.parquet``): a release written there would mix with the
    originals, and a later run of the same input (or of its directory) would read the release's
    files as data. A single file reads no directory: ``--out`` may be beside it (never hold it,
    which :func:`microanon.core.output.check_output_target` refuses).

    Raises
    ------
    InputError
        Naming ``--out``, the directory and the input.
    """
    if source is None or str(source).startswith(DATASET_PREFIX):
        return
    text = os.fspath(source)
    if any(ch in _GLOB for ch in text):
        root = _glob_root(text)
    elif Path(text).is_dir():
        root = Path(text)
    else:
        return
    target, read = Path(out).resolve(), root.resolve()
    if target == read or read in target.parents:
        raise InputError(
            f"--out {out} is inside {root}, which the input {text} reads data files from; "
            "write the release outside it"
        )


def _many(source: str) -> bool:
    """Whether ``source`` is a directory or a glob (a dataset of several files)."""
    return any(ch in _GLOB for ch in source) or Path(source).is_dir()


def choose_engine(engine: str, source: Any) -> str:
    """The engine to run on ``source``: ``"memory"`` or ``"dask"``.

    Parameters
    ----------
    engine : {"auto", "memory", "dask"}
        ``auto``: Dask when ``source`` is a directory or a glob, or its files total more than
        :data:`AUTO_BYTES`; memory otherwise (and for a bundled ``dataset:NAME`` or an SPSS,
        Stata, SAS or Excel file, which only the in-memory reader reads).
    source : path, str or None
        The data.

    Raises
    ------
    InputError
        An unknown engine, or ``memory`` for a directory or a glob.
    """
    if engine not in ENGINES:
        raise InputError(f"--engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if source is None or str(source).startswith(DATASET_PREFIX):
        return "dask" if engine == "dask" else "memory"
    text = os.fspath(source)
    refused = not_a_dataset(Path(text))  # (a release's part: its data file, whatever engine)
    if refused is not None:
        raise refused
    if engine == "memory":
        if _many(text):
            raise InputError(
                f"{text} is a directory or a glob: the in-memory engine reads one file; read "
                "it with --engine dask (or auto), or combine its files into one"
            )
        return "memory"
    if engine == "dask" or _many(text):
        return "dask"
    if Path(text).suffix.lower() in {*STATISTICAL_SUFFIXES, *EXCEL_SUFFIXES, *FEATHER_SUFFIXES}:
        return "memory"
    total = sum(f.stat().st_size for f in _files(text))
    return "dask" if total > AUTO_BYTES else "memory"


#: What a type dask found in a later partition means.
_KINDS = {
    "str": "text",
    "object": "text",
    "string": "text",
    "float64": "a decimal number or a missing value",
}
#: A row of the table dask prints when a partition's column does not have the inferred type.
_MISMATCH_ROW = re.compile(r"^\|\s*(\S.*?)\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|$", re.MULTILINE)


@contextlib.contextmanager
def _csv_types_hold() -> Iterator[None]:
    """Turn dask's failure on a CSV column whose later rows do not fit the type inferred from
    its first :data:`microanon.scale.read.TYPE_SAMPLE_BYTES` into one line naming the column.

    Raises
    ------
    InputError
        Naming the column, the type inferred and the type found, and the remedies.
    """
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        if "Mismatched dtypes found" not in text:
            raise
        found = [m for m in _MISMATCH_ROW.findall(text) if m[0] != "Column"]
        named = "; ".join(
            f"column {c!r} read as {want} from its first rows, but a later row holds "
            f"{_KINDS.get(got, got)}"
            for c, got, want in found
        )
        # a value that ends a quoted field: a block began inside one (a quoted line break)
        split = '"' in text.partition("raised exceptions on conversion")[2]
        why = (
            "; or a quoted field holds a line break, which splits a line where Dask splits the "
            "file into blocks"
            if split
            else ""
        )
        raise InputError(
            f"CSV types: {named or 'a column changes type'} (the Dask engine infers a CSV "
            f"column's type from the file's first rows{why}); convert the file to Parquet, or "
            "run it with --engine memory"
        ) from None


def read_options(source: Any, read: ReadOptions | None = None) -> dict[str, Any]:
    """Options of :func:`microanon.scale.read_dataset` that read CSV as the in-memory path does.

    ``read``'s encoding, decimal mark and quote character; its delimiter, or else the one
    detected from the first CSV file (as :func:`microanon.apps.io.read_table` detects it);
    empty fields and ``read.na_values`` are missing values, and ``read.column_na_values`` in
    the columns it names.

    Raises
    ------
    InputError
        The first CSV file is not text in the encoding (naming the byte and line).
    """
    from .io import decode_failure, detect_delimiter

    read = read or ReadOptions()
    options: dict[str, Any] = {
        "na_values": ["", *read.na_values],
        "sep": read.sep,
        "encoding": read.encoding,
        "decimal": read.decimal,
        "quotechar": read.quotechar,
    }
    for f in _files(os.fspath(source)):
        if f.name.lower().endswith(_CSV) and read.sep is None:
            try:
                with open(f, encoding=read.encoding, errors="strict", newline="") as fh:
                    sample = fh.read(65536)
            except UnicodeDecodeError:
                raise InputError(decode_failure(f, read.encoding)) from None
            options["sep"] = detect_delimiter(sample, exclude=read.decimal + read.quotechar)
        break
    if options["sep"] is None:
        del options["sep"]
    if read.by_column:
        options["column_na_values"] = read.by_column
    return options


def _source(source: Any, read: ReadOptions) -> tuple[Any, dict[str, Any]]:
    """A path for :func:`read_dataset` (or a dask DataFrame of a bundled data set), and options."""
    if source is None:
        raise InputError("no data: give the data file on the command line or as 'data:'")
    text = os.fspath(source)
    if text.startswith(DATASET_PREFIX):
        import dask.dataframe as dd

        from ..datasets import load_dataset

        frame = load_dataset(text[len(DATASET_PREFIX) :])
        return dd.from_pandas(frame, npartitions=max(1, min(8, len(frame) // 5000))), {}
    return text, read_options(text, read)


def _person_ids(frame: Any, options: dict[str, Any], cfg: PipelineConfig) -> list[str]:
    """The schema's identifiers whose values the pass that reads the data counts
    (:func:`~microanon.apps.init.people.person_ids`: named as person ids, or holding numbers),
    chosen on the dataset's column types: its lazy frame's, which reads no row but those the
    types are inferred from (none without an identifier)."""
    if not cfg.schema.identifiers:
        return []
    from .init.people import person_ids

    return person_ids(cfg.schema, _lazy(frame, options).dtypes)


def _sample_rows(part: Any, rows: int, seed: int) -> tuple[Any, int]:
    """At most ``rows`` records of one partition, drawn without replacement, and its records."""
    return (part if len(part) <= rows else part.sample(n=rows, random_state=seed)), len(part)


def _quotas(sizes: Sequence[int], rows: int) -> list[int]:
    """The records to draw from partitions of ``sizes`` records for a sample of ``rows``: the
    budget shared evenly, a partition smaller than its share taken whole and the rest shared
    among the others (every record when they hold at most ``rows``)."""
    quotas = [0] * len(sizes)
    left = rows
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    for k, i in enumerate(order):
        quotas[i] = min(int(sizes[i]), left // (len(sizes) - k))
        left -= quotas[i]
    return quotas


def _parquet_within(source: str, options: dict[str, Any], rows: int) -> bool:
    """Whether ``source`` is a Parquet dataset of at most ``rows`` records (read from its files'
    footers, stopping at the first file past the count)."""
    import pyarrow.parquet as pq

    from ..scale.read import parquet_files

    files = parquet_files(source, options.get("format"))
    if files is None:
        return False
    total = 0
    for f in files:
        total += pq.read_metadata(f).num_rows
        if total > rows:
            return False
    return True


def _joined(parts: Sequence[Any]) -> Any:
    """The pandas DataFrames ``parts`` one after the other; a column that is categorical in
    every part stays categorical, over the union of the parts' categories (``pandas.concat``
    would make it an object column when the parts' categories differ)."""
    import pandas as pd

    parts = [p.copy(deep=False) for p in parts]
    for name in parts[0].columns:
        if not all(isinstance(p[name].dtype, pd.CategoricalDtype) for p in parts):
            continue
        first, *others = (p[name].cat.categories for p in parts)
        union = first.append(others).unique()
        for p in parts:
            p[name] = p[name].cat.set_categories(union)
    return pd.concat(parts, ignore_index=True)


def lint_dask(frame: Any, options: dict[str, Any], cfg: PipelineConfig) -> Any:
    """The schema lint of a dataset too large for memory, on a sample of its records.

    The lint's measures are shares (distinct values per record, the share of prediction error a
    dependency removes), which a sample of :data:`LINT_SAMPLE` records (fewer for a table of
    more than :data:`LINT_CELLS` / :data:`LINT_SAMPLE` columns) estimates, drawn from at most
    :data:`LINT_PARTITIONS` partitions chosen at random (a generator made from OS entropy;
    nothing of it is kept), an even share from each, or all of a partition smaller than its
    share and the rest from the others (:func:`_quotas`). A dataset that small is linted
    whole, as in memory (a Parquet dataset in any number of files, its size read from their
    footers; a CSV one in at most :data:`LINT_PARTITIONS` partitions; the same
    findings: a dependency near the threshold does not tip one way in memory and the other out
    of core). A column with many distinct values in a large table looks more nearly unique in
    a sample than in the whole: the error is on the side of a finding, which the config can
    accept as usual.

    Returns
    -------
    microanon.core.lint.LintReport

    Raises
    ------
    InputError
        Findings the config does not accept; an accepted dependency (its column would have to
        be verified as a quasi-identifier, which the out-of-core verification does not do yet).
    """
    import dask
    import numpy as np

    from ..core.lint import lint_schema
    from ..core.reading import unpadded
    from ..core.schema import Kind
    from ..scale import read_dataset
    from ..scale.read import dataset_pieces

    ddf = read_dataset(frame, **options) if isinstance(frame, str) else frame
    rng = np.random.default_rng()
    # a Parquet dataset's files read directly, their text dictionary-encoded (one value built
    # per distinct value, and the lint's grouping on codes); else the frame's partitions
    numeric = [a.name for a in cfg.schema if a.kind is Kind.NUMERIC]
    parts = dataset_pieces(frame, ddf, list(ddf.columns), numeric, options)
    rows = min(LINT_SAMPLE, LINT_CELLS // max(len(ddf.columns), 1))
    # a Parquet dataset of at most ``rows`` records (its files' footers say) is read whole,
    # however many files hold it
    whole = isinstance(frame, str) and _parquet_within(frame, options, rows)
    limit = len(parts) if whole else LINT_PARTITIONS
    chosen = rng.choice(len(parts), size=min(len(parts), limit), replace=False)
    parts = [parts[i] for i in np.sort(chosen)]
    per = -(-rows // len(parts))
    seeds = rng.integers(0, 2**32, size=(2, len(parts)))
    drawn = [
        dask.delayed(_sample_rows)(p, per, int(s)) for p, s in zip(parts, seeds[0], strict=True)
    ]
    samples, sizes = map(list, zip(*dask.compute(*drawn, scheduler="threads"), strict=True))
    # a partition cut to its even share while others held less is drawn again for the share
    # they left (so a dataset of at most ``rows`` records is linted whole, whatever its files)
    quotas = _quotas(sizes, rows)
    again = [i for i, q in enumerate(quotas) if q > len(samples[i])]
    redrawn = [dask.delayed(_sample_rows)(parts[i], quotas[i], int(seeds[1][i])) for i in again]
    for i, (part, _) in zip(again, dask.compute(*redrawn, scheduler="threads"), strict=True):
        samples[i] = part
    sample = _joined(samples)
    # (a Parquet file's text as the method reads it: without the spaces around a value)
    report = lint_schema(unpadded(sample), cfg.schema, accept=cfg.lint_accept)
    report.raise_if_blocking()  # also every column that links like a quasi-identifier
    return report


def dask_methods() -> dict[str, str]:
    """Methods ``anonymize --engine dask`` runs, and the function of :mod:`microanon.scale` each
    runs with, as the methods declare (:attr:`~microanon.methods.registry.Method.out_of_core`)."""
    return {
        name: spec.out_of_core.function
        for name, spec in registry.methods().items()
        if spec.out_of_core is not None
    }


def _refuse_method(cfg: PipelineConfig, source: Any = None) -> None:
    """Refuse, in one line, a method ``--engine dask`` cannot run as configured (on ``source``,
    the data: the in-memory engine reads one file, not a directory or a glob)."""
    memory = "use --engine memory"
    if source is not None and _many(os.fspath(source)):
        memory = (
            f"the in-memory engine reads one file, and {os.fspath(source)} is several: combine "
            "them into one (a Parquet file) and use --engine memory"
        )
    if cfg.output_format not in (None, "parquet"):
        raise InputError(
            f"output: format {cfg.output_format}: the Dask engine writes Parquet files only; "
            f"give format: parquet (or no output:), or {memory}"
        )
    if cfg.steps:
        raise InputError(f"steps: several methods in one release run in memory; {memory}")
    spec = registry.get(cfg.method)
    if spec.out_of_core is None:
        runs = ", ".join(dask_methods())
        raise InputError(
            f"method {cfg.method} needs the whole table in memory ({spec.in_memory_because}); "
            f"--engine dask runs {runs}; {memory}"
        )
    missing = [p for p in spec.out_of_core.needs if p not in cfg.params]
    if missing:
        raise InputError(
            f"method {cfg.method} needs the whole table in memory ({spec.in_memory_because}): "
            f"with --engine dask give params: {missing[0]} ({spec.param(missing[0]).help}), "
            "or use --engine memory"
        )


def _twin_params(cfg: PipelineConfig) -> dict[str, Any]:
    """The parameters for the method's out-of-core twin: those it takes
    (:func:`~microanon.methods.registry.twin_parameters`); any other parameter set to a value
    other than its default is refused in one line."""
    import microanon.scale as scale

    spec = registry.get(cfg.method)
    assert spec.out_of_core is not None  # _refuse_method
    if spec.out_of_core.needs:  # microaggregation within blocks takes its own arguments
        return dict(cfg.params)
    taken = registry.twin_parameters(getattr(scale, spec.out_of_core.function))
    other = [n for n, v in cfg.params.items() if n not in taken and v != spec.param(n).default]
    if other:
        raise InputError(
            f"params: {', '.join(other)} of {cfg.method} is not available with --engine dask "
            f"(it takes {', '.join(taken)}); use --engine memory"
        )
    return {n: v for n, v in cfg.params.items() if n in taken}


@_csv_types_hold()
def anonymize_dask(
    cfg: PipelineConfig,
    out: Path,
    data: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    overwrite: bool = False,
    rng: Any = None,
) -> Any:
    """Run a pipeline config out of core with :mod:`microanon.scale`.

    Parameters
    ----------
    cfg : PipelineConfig
        Its method one of :func:`dask_methods`. ``full_domain`` runs with
        :func:`microanon.scale.full_domain_dask` (schema, models and the parameters
        ``suppression``, ``metric`` and ``suppressed_rows``); ``randomized_response``,
        ``pram`` and ``add_noise`` with their row-wise functions and the in-memory method's
        parameters; ``microaggregation`` with ``params: by`` with
        :func:`microanon.scale.microaggregate_blocks` (``method`` ``mdav``; ``columns``
        default: the numeric quasi-identifiers). ``cfg.read`` (the delimiter detected from the
        data unless given) reads the CSV files.
    out : path
        The output directory (it must not exist or be empty).
    data : path, optional
        Overrides the config's ``data`` (a Parquet or CSV file, directory or glob).
    scheduler : str, optional
        Address of a running Dask scheduler (default ``MICROANON_SCHEDULER``, else a local
        cluster for the run).
    progress : Progress, bool, str or None
        Progress bars or one line per stage on stderr (see
        :func:`microanon.core.progress.as_progress`).
    overwrite : bool
        Replace ``out`` if it is a release microanon wrote (see
        :func:`microanon.core.output.check_output_target`).
    rng : numpy.random.Generator, int or None
        Source of the row-wise methods' random streams and of ``full_domain``'s genetic
        search (never written).

    Returns
    -------
    microanon.scale.ScaleResult or microanon.scale.WrittenRelease
        The first for ``full_domain``, with its reports written (``internal/report.html``,
        ``public/report.html``: :func:`microanon.apps.scale_reports.write_scale_reports`) and
        their numbers in ``reported``; the second for the other methods, with ``seconds`` (the
        method's pass over the data, then :func:`~microanon.scale.write_rowwise`'s stages and
        the total) and their reports written
        (:func:`microanon.apps.scale_reports.write_rowwise_reports`) and their numbers in
        ``reported``. The
        internal metadata holds the run's audit trail, as in memory. Either holds, in
        ``repeated``, the values and rows of the schema's identifiers that may number people
        (:func:`~microanon.apps.init.people.person_ids`: named so, or holding numbers), counted
        in the pass that read the data: the reports warn of one that repeats and numbers
        people by its name or its values (an id code), as in memory.

    Raises
    ------
    InputError
        A schema without a quasi-identifier (as in memory); another method (one line naming
        it); ``all_minimal``; an output that would hold the input; bad data or parameters (as
        the function that runs the method); lint findings (see :func:`lint_dask`).
    InfeasibleError, VerificationError
        As ``full_domain_dask`` (nothing is left behind).
    """
    source = data if data is not None else cfg.data
    require_quasi(cfg.schema)  # as in memory: every release is measured against them
    _refuse_method(cfg, source)
    params = _twin_params(cfg)
    from ..core.output import check_output_target

    refuse_out_in_input(Path(out), source)
    protect = [cfg.path] if cfg.path is not None else []
    if source is not None and not str(source).startswith(DATASET_PREFIX):
        protect += [p for p in _files(os.fspath(source))] + (
            [Path(source)] if Path(source).is_dir() else []
        )
    check_output_target(Path(out), overwrite, protect)
    progress = as_progress(progress, "anonymize")
    frame, options = _source(source, cfg.read)
    linted = time.perf_counter()
    with progress.stage("schema lint (on a sample)"):
        lint = lint_dask(frame, options, cfg)
    linted = time.perf_counter() - linted

    subtitle = f"Configuration {cfg.path or '(in memory)'}; the method ran out of core."
    audit = {**audit_trail(cfg, data, rng), "lint": lint.to_dict()}
    # the schema's identifiers that may number people, counted in the pass that reads the
    # data: a panel's is warned of as in memory
    ids = _person_ids(frame, options, cfg)
    if cfg.method == "full_domain":
        from ..scale import full_domain_dask
        from .scale_reports import write_scale_reports

        def reports(written: Any, client: Any) -> dict[str, Any]:
            households = _report_households(frame, cfg.schema, client, options, progress)
            columns = _columns(frame, options)  # (the original's, each described)
            return write_scale_reports(
                written, columns, cfg.schema, lint, subtitle, cfg, households
            )

        result = full_domain_dask(
            frame,
            cfg.schema,
            models=cfg.models,
            out_dir=out,
            **params,
            rng=make_rng(rng),
            scheduler=scheduler,
            progress=progress,
            read_options=options,
            overwrite=overwrite,
            reports=reports,
            audit=audit,
            person_ids=ids,
        )
        return dataclasses.replace(result, seconds=_with_lint(result.seconds, linted))
    from ..scale import write_rowwise
    from ..scale.client import dask_client
    from .scale_reports import write_rowwise_reports

    generator = make_rng(rng)
    secrets = state_fingerprints(generator)  # before the release draws from it
    started = time.perf_counter()
    with dask_client(None, scheduler) as client:
        run = {"client": client, "progress": progress, "read_options": options, "person_ids": ids}
        if cfg.method == "microaggregation":
            release = _blocks(frame, cfg, params, run)
        else:
            import microanon.scale as scale

            func = getattr(scale, dask_methods()[cfg.method])
            # (the functions that count what the reports need take ``reports``)
            reported = {"reports": True} if "reports" in inspect.signature(func).parameters else {}
            release = func(frame, cfg.schema, **params, rng=generator, **run, **reported)
        method = time.perf_counter() - started
        kept = {**audit, "method_seconds": round(method, 3)}  # internal, as in memory
        release = dataclasses.replace(release, metadata={**release.metadata, "audit": kept})

        def rowwise_reports(written: Any, client: Any) -> dict[str, Any]:
            households = _report_households(frame, cfg.schema, client, options, progress)
            columns = _columns(frame, options)
            return write_rowwise_reports(
                written, columns, cfg.schema, lint, subtitle, cfg, households
            )

        written = write_rowwise(
            release,
            out,
            client=client,
            progress=progress,
            overwrite=overwrite,
            protect=protect,
            secrets=secrets,
            reports=rowwise_reports,
        )
    seconds = {"method": method, **written.seconds, "total": time.perf_counter() - started}
    return dataclasses.replace(written, seconds=_with_lint(seconds, linted))


def _with_lint(seconds: dict[str, float], lint: float) -> dict[str, float]:
    """A run's stage ``seconds`` with the schema lint's first, and in the total."""
    return {"lint": lint, **seconds, "total": seconds.get("total", 0.0) + lint}


def _report_households(
    frame: Any, schema: Any, client: Any, options: dict[str, Any], progress: ProgressLike
) -> Any:
    """The household risk measure of the reports of a release made out of core (one pass over
    the original's records), with a sampling weight and a household id; None otherwise."""
    if schema.weight is None or schema.household is None:
        return None
    from ..scale.households import household_measure
    from .release_figures import RISK_BINS

    return household_measure(
        frame,
        schema.quasi,
        schema.weight,
        schema.household,
        RISK_BINS,
        client,
        schema=schema,
        read_options=options,
        progress=progress,
    )


def _blocks(frame: Any, cfg: PipelineConfig, params: dict[str, Any], run: dict[str, Any]) -> Any:
    """``microaggregation`` with ``params: by``: MDAV within blocks, out of core."""
    from ..core.schema import Kind
    from ..scale import microaggregate_blocks

    by = params.pop("by")
    method = params.pop("method", "mdav")
    if method != "mdav":
        raise InputError(
            f"params: microaggregation within blocks runs method mdav, got {method!r}; "
            "use --engine memory for the others"
        )
    params.pop("projection", None)  # used only by the univariate methods
    columns = params.pop("columns", None)
    if columns is None:
        schema = cfg.schema
        columns = [q for q in schema.quasi if schema[q].kind is Kind.NUMERIC and q != by]
        if not columns:
            raise InputError(
                "microaggregation: the schema has no numeric quasi-identifier besides by; name "
                "the columns to microaggregate in params: columns"
            )
    k = params.pop("k", None)
    if k is None:
        raise InputError("params: microaggregation needs k, the smallest group size")
    return microaggregate_blocks(
        frame, columns, k, by=str(by), schema=cfg.schema, **params, **run, reports=True
    )


@_csv_types_hold()
def check_dask(
    file: Any,
    quasi: Sequence[str],
    sensitive: str | None,
    *,
    read: ReadOptions | None = None,
    distance: str | None = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    **options: Any,
) -> tuple[dict[str, Any], list[str]]:
    """``microanon check``'s profile of a dataset of any size, computed with Dask, and its
    notes on quasi-identifiers with stray text
    (:func:`~microanon.scale.profile.stray_text_notes_of`).

    Parameters
    ----------
    file : path or str
        A Parquet or CSV file, directory or glob.
    quasi, sensitive, distance
        As for :func:`microanon.apps.check.privacy_profile`.
    read : ReadOptions, optional
        How CSV files are read (delimiter, encoding, decimal mark, quote character,
        missing-value markers).
    scheduler : str, optional
        Address of a running Dask scheduler.
    progress : Progress, bool, str or None
    **options
        The other keyword arguments of ``privacy_profile`` (the population a DataFrame in
        memory).

    Returns
    -------
    profile : dict
        What :func:`microanon.apps.check.privacy_profile` returns on the same data.
    notes : list of str
        As :func:`microanon.apps.check.stray_text_notes` gives them.
    """
    from ..scale.client import dask_client
    from ..scale.profile import dataset_frequencies, privacy_profile_of, stray_text_notes_of

    quasi = list(quasi)
    if not quasi:
        raise InputError("--quasi: name at least one quasi-identifier column")
    named = [] if sensitive is None else [sensitive]
    source, csv = _source(file, read or ReadOptions())
    with dask_client(None, scheduler) as client:
        table, numeric = dataset_frequencies(
            source,
            [*quasi, *named],
            client,
            read_options=csv,
            progress=as_progress(progress, "check"),
        )
    notes = stray_text_notes_of(table, quasi + (named if distance is None else []), sensitive)
    profile = privacy_profile_of(
        table,
        quasi,
        sensitive,
        numeric=sensitive is not None and numeric[sensitive],
        distance=distance,
        **options,
    )
    return profile, notes


@_csv_types_hold()
def risk_dask(
    file: Any,
    options: Any,
    *,
    read: ReadOptions | None = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    schema: Any = None,
) -> tuple[Any, str | None]:
    """``microanon risk``'s figures of a dataset of any size, computed with Dask.

    Parameters
    ----------
    file : path or str
        A Parquet or CSV file, directory or glob.
    options : RiskOptions
        With ``weights``, the individual and log-linear risks are measured on the frequency
        table of the keys and the weight (each combination stands for its records: the records'
        figures); with a ``household`` column too, the household risk over the records, in a
        second pass that gives each the risk of its combination
        (:func:`microanon.scale.households.household_risks`).
    read : ReadOptions, optional
        How CSV files are read.
    scheduler : str, optional
    progress : Progress, bool, str or None
    schema : Schema, optional
        A config's schema, when ``options`` names no weight: its weight and household id are
        used as in memory (:func:`~microanon.apps.risk.schema_design`: a weight the measures
        cannot use is left out, with the household id, and the note says why).

    Returns
    -------
    (RiskAssessment, note)
        The numbers of :func:`microanon.apps.risk.assess_risk` without SUDA2 (``None``), and
        the per-record risks once per combination, weighted by its records (the household
        risk's counted per bin); the note (or None).

    Raises
    ------
    InputError
        As ``assess_risk``: bad weights, a household column with missing ids, ...
    """
    from dataclasses import replace

    import pandas as pd

    from ..scale.client import dask_client
    from ..scale.profile import dataset_frequencies
    from .risk import assess_risk, schema_design

    weight, household = options.weights, options.household
    source, csv = _source(file, read or ReadOptions())
    if weight is None and schema is not None:  # the schema's, if the file holds them
        weight, household = schema.weight, schema.household
        if household is not None and household not in _columns(source, csv):
            household = None
    columns = [*options.quasi, *([weight] if weight not in (None, *options.quasi) else [])]
    with dask_client(None, scheduler) as client:
        measure = None
        if household is not None:  # its columns checked before the work
            measure = _households(source, options, weight, household, client, csv, progress)
        table, numeric = dataset_frequencies(
            source, columns, client, read_options=csv, progress=as_progress(progress, "risk")
        )
        if weight is None:
            return _risk_profile(table, options), None
        frame = pd.DataFrame({c: pd.Series(table.codes[c], dtype=object) for c in columns})
        if numeric[weight]:
            frame[weight] = pd.to_numeric(frame[weight])
        note = None
        if options.weights is None:  # the schema's
            used, _, note = schema_design(schema, frame, table.counts)
            options = replace(options, weights=used)
            if used is None:  # a weight the measures cannot use: no household risk either
                measure = None
        options = replace(options, household=None, suda=False)
        return assess_risk(frame, options, table.counts, measure), note


def _households(
    source: Any,
    options: Any,
    weight: str,
    household: str,
    client: Any,
    read_options: Any,
    progress: ProgressLike,
) -> Any:
    """The household measure of ``risk --engine dask``: over the records as read, those with
    a missing key left out under ``missing: drop``; missing household ids refused, as in
    memory."""
    from ..scale.households import household_measure
    from .release_figures import RISK_BINS

    measure = household_measure(
        source,
        options.quasi,
        weight,
        household,
        RISK_BINS,
        client,
        read_options=read_options,
        progress=as_progress(progress, "risk"),
        complete=options.missing == "drop",
    )

    def refusing(keys: Any, risk: Any) -> Any:
        found = measure(keys, risk)
        if found.missing_ids:
            missing = found.missing_ids
            raise InputError(f"household column {household!r} has {missing} missing id(s)")
        return found

    return refusing


def _columns(source: Any, read_options: Any) -> list[str]:
    """The columns of a dataset (a path, glob or dask DataFrame)."""
    return list(_lazy(source, read_options).columns)


def _lazy(source: Any, read_options: Any) -> Any:
    """A dataset as a lazy dask DataFrame: read (its types inferred, no row kept) when it is a
    path or glob, else as given."""
    if not isinstance(source, (str, os.PathLike)):
        return source
    from ..scale import read_dataset

    return read_dataset(source, **dict(read_options or {}))


def _risk_profile(table: Any, options: Any) -> Any:
    """The attacker models and population uniqueness of a frequency table of the keys."""
    from ..scale.profile import risk_profile_of
    from .risk import RiskAssessment, _people

    result = risk_profile_of(
        table,
        options.quasi,
        population_size=options.population
        if options.population_table is None
        else _people(options.population_table, options.population_count),
        fraction=options.fraction,
        region=options.region,
        population_table=options.population_table,
        population_count=options.population_count,
        threshold=options.threshold,
        missing=options.missing,
    )
    numbers = {
        **result.numbers,
        "weight": None,
        "rows_without_weight_left_out": 0,
        "individual_risk": None,
        "loglinear": None,
        "suda": None,
    }
    return RiskAssessment(numbers, result.class_risks, record_weights=result.records)
