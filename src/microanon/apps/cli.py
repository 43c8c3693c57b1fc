"""The ``microanon`` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ..core.errors import InfeasibleError, MicroanonError, VerificationError
from ..core.missing import CHECK_MISSING, RISK_MISSING
from ..core.version import __version__
from ..reproductions.catalog import PAPERS
from ..reproductions.paper import Paper
from .blas_threads import one_blas_thread
from .collector import importing, own_process
from .interrupts import TERMINATED_EXIT, sigterm_as_interrupt
from .messages import EXIT_CODES, one_line, os_message
from .quiet import progress_mode, quiet_option, table_progress_mode

__all__ = ["main", "run"]


class InputFailure(click.ClickException):
    """A one-line error about the user's input or usage: exit status 2 (see ``EXIT_CODES``)."""

    exit_code = EXIT_CODES["bad input"]


class RequirementFailure(click.ClickException):
    """A privacy requirement that does not (or cannot) hold: exit status 1, one line."""

    exit_code = EXIT_CODES["does not hold"]


def _friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn microanon's own errors and OS errors into one-line messages and exit statuses.

    :class:`~microanon.core.errors.InfeasibleError` (no release satisfies the requested privacy
    models) and :class:`~microanon.core.errors.VerificationError` (a written release fails its
    verification) exit with status 1; every other :class:`~microanon.core.errors.MicroanonError` and
    any :class:`OSError` (a missing, unreadable or unwritable path) with status 2.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (InfeasibleError, VerificationError) as exc:
            raise RequirementFailure(one_line(str(exc))) from None
        except MicroanonError as exc:
            raise InputFailure(one_line(str(exc))) from None
        except OSError as exc:
            raise InputFailure(one_line(os_message(exc))) from None

    return wrapper


def _utility_line(utility: dict[str, Any]) -> str:
    """The summary's utility line: a count whole (``n 61,697``), any other number to 4
    digits, or whole when it has more (``sum of ranges 125,453``, not ``1.255e+05``), a
    sentence as it is (a measure that could not be computed says why); a number that is not one
    (NaN: ``--json`` gives null) is left out."""
    shown = [
        f"{k} {v:,}"
        if isinstance(v, int)
        else f"{k} {_number(v)}"
        if isinstance(v, float)
        else f"{k}: {v}"
        for k, v in utility.items()
        if isinstance(v, (int, float, str))
        and not isinstance(v, bool)
        and not (isinstance(v, float) and v != v)
    ]
    return "utility: " + (", ".join(shown) or "–")


def _number(value: float) -> str:
    """A measure to 4 digits, or whole with thousands separators from 10,000 on (where 4
    digits would be written as a power of ten)."""
    return f"{value:,.0f}" if 1e4 <= abs(value) < float("inf") else f"{value:.4g}"


def _emit(as_json: bool, obj: dict[str, Any], text: str) -> None:
    """Print one JSON object (``--json``) or the human-readable text, on stdout.

    The JSON is plain (:func:`~microanon.apps.io.json_text`): numpy values as numbers, NaN and
    missing values as null, anything else JSON cannot hold as its text.
    """
    from .io import json_text

    click.echo(json_text(obj) if as_json else text)


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def _matched(names: Sequence[str], columns: Sequence[str]) -> list[str]:
    """``names`` as the columns they name: a name that is no column names the one column that
    is it with spaces around it (a header's ``'arrest '``, which a comma-separated option
    cannot carry), if there is exactly one."""
    padded: dict[str, list[str]] = {}
    for c in columns:
        padded.setdefault(c.strip(), []).append(c)
    present = set(columns)
    return [n if n in present or len(padded.get(n, [])) != 1 else padded[n][0] for n in names]


def _engine_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--engine`` and ``--scheduler``, the options of the commands that can run on Dask."""
    func = click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Address of a running Dask scheduler, e.g. tcp://host:8786 (default: "
        "$MICROANON_SCHEDULER, else a local cluster for the run); implies --engine dask.",
    )(func)
    return click.option(
        "--engine",
        type=click.Choice(["auto", "memory", "dask"]),
        default="auto",
        show_default=True,
        help="memory (pandas) or dask (out of core: a Parquet/CSV file, directory or glob of "
        "any size); auto: dask for a directory, a glob or files above 2 GiB.",
    )(func)


def _read_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--sep``, ``--encoding``, ``--decimal``, ``--quotechar``, ``--na-values``,
    ``--column-na-values`` and ``--sheet``: how the command reads CSV files (and which sheet of
    an Excel workbook), passed to it as one mapping ``read`` of the flags given (field of
    :class:`~microanon.core.reading.ReadOptions` -> value; validated by the command)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        names = ("sep", "encoding", "decimal", "quotechar", "sheet")
        given: dict[str, Any] = {name: kwargs.pop(name) for name in names}
        na_values = kwargs.pop("na_values")
        given["na_values"] = None if na_values is None else _split(na_values)
        given["column_na_values"] = _column_markers(kwargs.pop("column_na_values")) or None
        return func(*args, read={k: v for k, v in given.items() if v is not None}, **kwargs)

    wrapper = click.option(
        "--column-na-values",
        multiple=True,
        metavar="COLUMN=LIST",
        help="Missing-value markers of one column, e.g. educatn=98,99 (repeatable; over the "
        "config's column_na_values for that column).",
    )(wrapper)
    for flag, metavar, help_text in (
        ("--sheet", "NAME", "Excel sheet to read (default: the first)."),
        ("--na-values", "LIST", "Comma-separated extra missing-value markers, e.g. '?'."),
        ("--quotechar", "CHAR", 'CSV quote character (default ").'),
        ("--decimal", "CHAR", "CSV decimal mark, e.g. ',' (default .)."),
        ("--encoding", "NAME", "CSV text encoding, e.g. latin-1 or cp1252 (default utf-8)."),
        ("--sep", "CHAR", "CSV delimiter, one character or 'tab' (default: detected)."),
    ):
        wrapper = click.option(flag, default=None, metavar=metavar, help=help_text)(wrapper)
    return wrapper


def _column_markers(given: Sequence[str]) -> dict[str, list[str]]:
    """The ``--column-na-values COLUMN=V1,V2`` flags as column -> markers
    (:func:`~microanon.core.reading.column_na_values_text`).

    Raises
    ------
    InputFailure
        A flag without ``=`` or without a column, naming it (one line, status 2).
    """
    from ..core.errors import InputError
    from ..core.reading import column_na_values_text

    try:
        return column_na_values_text(given, "--column-na-values")
    except InputError as exc:
        raise InputFailure(str(exc)) from None


#: A TCP port (0: one the system chooses), for ``serve`` and ``app``.
_PORT = click.IntRange(0, 65535)

#: The role flags of ``lint`` and ``init``: (flag, role, help).
_ROLE_FLAGS = (
    ("--quasi", "quasi", "Comma-separated quasi-identifiers: the columns an attacker may know."),
    ("--sensitive", "sensitive", "Comma-separated sensitive columns."),
    ("--identifiers", "identifier", "Comma-separated columns never published."),
    ("--insensitive", "insensitive", "Comma-separated columns published unchanged."),
    ("--weights", "weight", "Comma-separated sampling weights (published, not linted)."),
    ("--household", "household", "The household-id column (never published)."),
    ("--strata", "strata", "Comma-separated stratum ids (published, linted)."),
)


def _role_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The role flags (:data:`_ROLE_FLAGS`), passed to the command as one mapping ``roles``
    (column -> role name) of the columns named; a column named twice is refused."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        roles: dict[str, str] = {}
        for flag, role, _ in _ROLE_FLAGS:
            for column in _split(kwargs.pop(flag[2:])):
                if roles.get(column, role) != role:
                    raise click.UsageError(f"column {column!r} is given two roles")
                roles[column] = role
        return func(*args, roles=roles, **kwargs)

    for flag, _, help_text in reversed(_ROLE_FLAGS):
        wrapper = click.option(flag, default=None, help=help_text)(wrapper)
    return wrapper


def _csv(read: dict[str, Any]) -> Any:
    """The :class:`~microanon.core.reading.ReadOptions` of the flags given (see
    :func:`_read_options`)."""
    from ..core.reading import ReadOptions

    return ReadOptions.from_mapping(read, "--")


def _engine(engine: str, scheduler: str | None, source: Any) -> str:
    """The engine a command runs on (see :func:`microanon.apps.engine.choose_engine`)."""
    from ..core.errors import InputError
    from .engine import choose_engine

    if scheduler is not None:
        if engine == "memory":
            raise InputError("--scheduler runs the work on Dask: it needs --engine dask or auto")
        engine = "dask"
    return choose_engine(engine, source)


def _not_with_dask(**flags: Any) -> None:
    """Refuse the options the Dask engine does not offer (those given a value)."""
    from ..core.errors import InputError

    for flag, value in flags.items():
        if value not in (None, False, "", ()):
            raise InputError(f"--{flag.replace('_', '-')} is not available with --engine dask yet")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="microanon")
@quiet_option
def main() -> None:
    """microanon: privacy-preserving microdata publishing with verified guarantees."""


# ---------------------------------------------------------------------------- datasets
@main.group()
def datasets() -> None:
    """The bundled reference data sets."""


@datasets.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@_friendly_errors
def datasets_list(as_json: bool) -> None:
    """List the bundled data sets."""
    from ..datasets import list_datasets

    found = list_datasets()
    text = "\n".join(
        f"{d['name']:<12} {d['rows']:>7,} rows  {d['columns']:>3} columns  {d['description']}"
        for d in found
    )
    _emit(as_json, {"datasets": found}, text)


@datasets.command("hierarchies")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@_friendly_errors
def datasets_hierarchies(as_json: bool) -> None:
    """List the bundled hierarchies (use one with hierarchy: {builder: bundled, name: NAME})."""
    from ..core.bundled import list_hierarchies

    found = list_hierarchies()
    text = "\n".join(
        f"{d['name']:<17} {d['values']:<33} {' -> '.join(map(str, d['levels'])):<26} {d['origin']}"
        for d in found
    )
    _emit(as_json, {"hierarchies": found}, text + "\n(--json gives titles and full sources)")


@datasets.command("describe")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@_friendly_errors
def datasets_describe(name: str, as_json: bool) -> None:
    """Describe the columns of a bundled data set."""
    from ..datasets import describe

    table = describe(name)
    columns = table.reset_index().to_dict("records")
    _emit(as_json, {"name": name, "columns": columns}, table.to_string())


@datasets.command("export")
@click.argument("name")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@_friendly_errors
def datasets_export(name: str, out: Path) -> None:
    """Write a bundled data set to OUT (.csv, or .parquet by extension), atomically."""
    from ..core.output import atomic_file
    from ..datasets import load_dataset

    # OUT is refused before anything is read if it exists or cannot be written; the data go to a
    # temporary file beside it, renamed to OUT only when complete.
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq") and not out.is_dir():  # (a directory: below)
        raise click.BadParameter(
            f"{out}: name a .csv or .parquet file (got {suffix or 'no suffix'})", param_hint="OUT"
        )
    with atomic_file(out) as tmp:
        data = load_dataset(name)
        if suffix in (".parquet", ".pq"):
            data.to_parquet(tmp, index=False)
        else:
            data.to_csv(tmp, index=False)
    click.echo(f"wrote {len(data):,} rows to {out}")


# ---------------------------------------------------------------------------- check
@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--quasi", required=True, help="Comma-separated quasi-identifier columns.")
@click.option(
    "--sensitive",
    default=None,
    help="The sensitive column (without it, the figures of the keys alone: classes, k, uniques, "
    "risk, delta-presence and k-map).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option(
    "--c", "c", default=2.0, show_default=True, type=float, help="c of recursive (c,l)-diversity."
)
@click.option(
    "--distance",
    type=click.Choice(["equal", "ordered"]),
    default=None,
    help="t-closeness ground distance (default: ordered if the sensitive column is numeric).",
)
@click.option(
    "--threshold",
    default=0.2,
    show_default=True,
    type=float,
    help="Risk threshold for 'records at risk'.",
)
@click.option(
    "--no-header", is_flag=True, help="The CSV has no header line: columns are named 0, 1, 2, ..."
)
@click.option(
    "--missing",
    type=click.Choice(list(CHECK_MISSING)),
    default="value",
    show_default=True,
    help="Missing values in the checked columns: a value of its own (a missing sensitive value "
    "is unknown and counts toward no l, t, beta, delta), rows left out (counted), or refuse.",
)
@click.option("--k", "req_k", type=int, default=None, help="Require k-anonymity with this k.")
@click.option("--l", "req_l", type=float, default=None, help="Require l-diversity with this l.")
@click.option(
    "--l-form",
    type=click.Choice(["distinct", "frequency", "entropy", "recursive"]),
    default="distinct",
    show_default=True,
    help="Form of the required l-diversity.",
)
@click.option("--t", "req_t", type=float, default=None, help="Require t-closeness with this t.")
@click.option("--beta", "req_beta", type=float, default=None, help="Require beta-likeness.")
@click.option(
    "--beta-form",
    type=click.Choice(["basic", "enhanced"]),
    default="basic",
    show_default=True,
    help="Form of beta-likeness reported and required.",
)
@click.option(
    "--delta-disclosure",
    "req_delta",
    type=float,
    default=None,
    help="Require delta-disclosure privacy: every |ln(q/p)| below this.",
)
@click.option(
    "--population-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A population containing FILE, generalized like it: adds delta-presence and k-map.",
)
@click.option(
    "--population-count",
    default=None,
    help="Column of the population file with the people per row (default: one per row).",
)
@click.option("--delta-min", type=float, default=None, help="Require delta-presence's lower bound.")
@click.option("--delta-max", type=float, default=None, help="Require delta-presence's upper bound.")
@click.option("--k-map", "req_k_map", type=int, default=None, help="Require k-map with this k.")
@click.option(
    "--k-map-estimator",
    type=click.Choice(["poisson", "zero_truncated_poisson"]),
    default=None,
    help="Estimate k-map's population from --sampling-fraction instead of a population file.",
)
@click.option(
    "--sampling-fraction",
    "fraction",
    type=float,
    default=None,
    help="Records / population size, for --k-map-estimator.",
)
@click.option(
    "--significance",
    type=float,
    default=0.01,
    show_default=True,
    help="Significance level of --k-map-estimator.",
)
@_read_options
@_engine_options
@quiet_option
@_friendly_errors
def check(
    file: Path,
    quasi: str,
    sensitive: str,
    as_json: bool,
    c: float,
    distance: str | None,
    threshold: float,
    read: dict[str, Any],
    no_header: bool,
    missing: str,
    req_k: int | None,
    req_l: float | None,
    l_form: str,
    req_t: float | None,
    req_beta: float | None,
    beta_form: str,
    req_delta: float | None,
    population_file: Path | None,
    population_count: str | None,
    delta_min: float | None,
    delta_max: float | None,
    req_k_map: int | None,
    k_map_estimator: str | None,
    fraction: float | None,
    significance: float,
    engine: str,
    scheduler: str | None,
) -> None:
    """Privacy and re-identification risk profile of a CSV, Parquet, Feather, SPSS, Stata, SAS or
    Excel FILE.

    With --k, --l, --t, --beta, --delta-disclosure, --delta-min/--delta-max or --k-map it also
    checks those requirements and exits 1 when one does not hold. δ-presence and k-map need
    --population-file (k-map also works with --k-map-estimator and --sampling-fraction).
    With --engine dask, FILE may be a Parquet or CSV directory or glob of any size: the profile
    is computed from its frequency table (the population file is read in memory).
    """
    with importing():
        from ..core.progress import as_progress
        from ..core.schema import check_frame
        from .check import (
            format_profile,
            format_requirements,
            marker_notes,
            privacy_profile,
            requirements,
            stray_text_notes,
        )
        from .io import STATISTICAL_SUFFIXES, read_table

    sens = _split(sensitive) if sensitive is not None else [None]
    if len(sens) != 1:
        raise click.BadParameter("give exactly one sensitive column", param_hint="--sensitive")
    csv = _csv(read)
    on_dask = _engine(engine, scheduler, file) == "dask"
    if on_dask:
        _not_with_dask(no_header=no_header)
    population = None
    if population_file is not None:
        population = read_table(population_file, options=csv, some_columns=True)
        population.columns = [str(c) for c in population.columns]
    options = {
        "c": c,
        "threshold": threshold,
        "missing": missing,
        "beta_form": beta_form,
        "population": population,
        "population_count": population_count,
        "estimator": k_map_estimator,
        "fraction": fraction,
        "significance": significance,
    }
    if on_dask:
        from .engine import check_dask

        profile, notes = check_dask(
            file,
            _split(quasi),
            sens[0],
            read=csv,
            distance=distance,
            scheduler=scheduler,
            progress=progress_mode(),
            **options,
        )
    else:
        reporter = as_progress(table_progress_mode(file), "check", total=2)
        with reporter.stage(f"read {file.name}"):
            data = read_table(file, header=not no_header, options=csv)
            data.columns = [str(c) for c in data.columns]
            keys = _matched(_split(quasi), list(data.columns))
            (sensitive_column,) = sens if sensitive is None else _matched(sens, list(data.columns))
            named = [] if sensitive_column is None else [sensitive_column]
            check_frame(data, [*keys, *named])
            # A numeric sensitive column with a stray string would silently become categorical;
            # an explicit --distance settles its type. (An SPSS, Stata or SAS file declares its
            # missing values: its text is answers, not markers.)
            looked_at = keys + (named if distance is None else [])
            notes = []
            if Path(file).suffix.lower() not in STATISTICAL_SUFFIXES:
                notes = stray_text_notes(data, looked_at, sensitive=sensitive_column)
                notes += marker_notes(data, [*keys, *named], looked_at)
        with reporter.stage("privacy profile"):
            profile = privacy_profile(data, keys, sensitive_column, distance=distance, **options)
    reqs = requirements(
        profile,
        req_k,
        req_l,
        l_form,
        req_t,
        beta=req_beta,
        delta=req_delta,
        delta_min=delta_min,
        delta_max=delta_max,
        k_map=req_k_map,
    )
    holds = all(r["holds"] for r in reqs)
    for note in notes:
        click.echo(f"WARNING: {note}", err=True)
    text = format_profile(profile) + ("\n" + format_requirements(reqs) if reqs else "")
    _emit(as_json, {**profile, "requirements": reqs, "holds": holds}, text)
    if not holds:
        sys.exit(EXIT_CODES["does not hold"])


# ---------------------------------------------------------------------------- risk
@main.command("risk")
@click.argument("file", required=False, type=click.Path(path_type=Path))
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Pipeline YAML: its schema gives the keys, the weight and the household id.",
)
@click.option("--quasi", default=None, help="Comma-separated key (quasi-identifier) columns.")
@click.option(
    "--weights",
    default=None,
    help="Sampling-weight column (individual, LL risk); default: the schema's weight.",
)
@click.option(
    "--household",
    default=None,
    help="Household-id column (household risk); default: the schema's household.",
)
@click.option("--population", type=int, default=None, help="Population size.")
@click.option(
    "--sampling-fraction", "fraction", type=float, default=None, help="Sampling fraction in (0, 1]."
)
@click.option("--region", default=None, help="Population preset, e.g. usa (see docs/measures.md).")
@click.option(
    "--population-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The population table (the key columns): the journalist and marketer match against it.",
)
@click.option(
    "--population-count",
    default=None,
    help="Column of the population file with the people per row (default: one per row).",
)
@click.option(
    "--threshold", default=0.2, show_default=True, type=float, help="Risk threshold for counts."
)
@click.option("--no-suda", is_flag=True, help="Skip SUDA2 (the slowest part on many keys).")
@click.option(
    "--suda-max-size",
    type=int,
    default=None,
    help="Largest MSU SUDA2 looks for (default: every key, or on many keys the largest size "
    "that keeps the search to seconds; the profile says which).",
)
@click.option(
    "--missing",
    type=click.Choice([*RISK_MISSING, "sdcmicro"]),
    default="value",
    show_default=True,
    help="Missing key values: a value of its own, sdcMicro's convention (any, formerly sdcmicro: "
    "it matches every value), records left out (drop, counted), or refuse.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the profile as an HTML report to this file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@_read_options
@_engine_options
@quiet_option
@_friendly_errors
def risk(
    file: Path | None,
    config: Path | None,
    quasi: str | None,
    weights: str | None,
    household: str | None,
    population: int | None,
    fraction: float | None,
    region: str | None,
    population_file: Path | None,
    population_count: str | None,
    threshold: float,
    no_suda: bool,
    suda_max_size: int | None,
    missing: str,
    read: dict[str, Any],
    report_path: Path | None,
    as_json: bool,
    engine: str,
    scheduler: str | None,
) -> None:
    """Disclosure-risk profile of a CSV, Parquet, Feather, SPSS, Stata, SAS or Excel FILE (an
    original table or a release).

    Re-identification under the prosecutor, journalist and marketer models, population
    uniqueness (with --population, --sampling-fraction, --region or --population-file: the
    journalist and marketer then match against that table), the individual, household
    and log-linear risk (with --weights) and SUDA2. With --engine dask, FILE may be a Parquet or
    CSV directory or glob of any size: the attacker models and population uniqueness are
    computed from its frequency table (with --weights, that of the keys and the weight; the
    household risk in a second pass over the records); SUDA2 is skipped. With --config, the schema's
    quasi-identifiers are the keys (unless --quasi names them) and its weight and household id
    are used (unless --weights, --household name others); FILE defaults to the config's data.
    """
    with importing():
        from ..core.progress import as_progress
        from .io import read_table
        from .report import Report
        from .risk import (
            RiskOptions,
            add_risk_section,
            assess_risk,
            format_risk,
            left_out_note,
            schema_design,
            schema_rows,
        )

    csv = _csv(read)
    schema = None
    if config is not None:
        from .config import load_config

        cfg = load_config(config, read=read)
        schema = cfg.schema
        csv = cfg.read  # the config's read: block and na_values, with the flags over them
        if file is None:
            file = cfg.data if isinstance(cfg.data, Path) else None
        if file is None:
            raise click.UsageError("give FILE: the config's data is not a file")
        keys = _split(quasi) or list(schema.quasi)  # (the schema's names as they are)
        if not keys:
            raise click.UsageError(
                f"{config} names no quasi-identifier: give the columns an attacker can know "
                "role quasi in its schema, or name them with --quasi"
            )
    else:
        keys = _split(quasi)
    if file is None or not keys:
        raise click.UsageError("give FILE and --quasi (or --config)")
    if report_path is not None:  # refused before the work, not after
        from ..core.output import check_file_target
        from .aside import working_aside
        from .drawing import prepare

        check_file_target(report_path, overwrite=True)
        # the report's figure drawn by a second process while the profile is measured
        click.get_current_context().with_resource(working_aside(prepare))
    population_table = None
    if population_file is not None:
        population_table = read_table(population_file, options=csv, some_columns=True)
        population_table.columns = [str(c) for c in population_table.columns]
    settings = {
        "quasi": keys,
        "population": population,
        "fraction": fraction,
        "region": region,
        "population_table": population_table,
        "population_count": population_count,
        "threshold": threshold,
        "suda": not no_suda,
        "suda_max_size": suda_max_size,
        "missing": missing,
    }
    design_note = None
    # With a config, its missing-value policies say which records enter, unless --missing
    # says how to count every key's missing values.
    policies = schema is not None and (
        click.get_current_context().get_parameter_source("missing")
        is not click.core.ParameterSource.COMMANDLINE
    )
    if _engine(engine, scheduler, file) == "dask":
        from .engine import risk_dask

        _not_with_dask(suda_max_size=suda_max_size)
        if policies and any(a.missing_policy in ("drop", "error") for a in schema):
            raise click.UsageError(
                "--engine dask does not apply the config's missing: drop or error policies: "
                "run risk in memory, or give --missing for every key"
            )
        options = RiskOptions(weights=weights, household=household, **settings)
        assessment, design_note = risk_dask(
            file,
            options,
            read=csv,
            scheduler=scheduler,
            progress=progress_mode(),
            schema=schema if weights is None else None,
        )
        if not no_suda:
            click.echo(
                "note: SUDA2 is skipped with --engine dask (it looks at the records); "
                "--no-suda silences this note",
                err=True,
            )
    else:
        reporter = as_progress(table_progress_mode(file), "risk", total=2)
        with reporter.stage(f"read {file.name}"):
            data = read_table(file, options=csv)
            data.columns = [str(c) for c in data.columns]
        settings["quasi"] = _matched(keys, list(data.columns))
        rows_note = None
        if policies:
            data, rows_note = schema_rows(schema, data)
        if schema is not None and weights is None:
            weights, from_schema, design_note = schema_design(schema, data)
            household = household or from_schema
        options = RiskOptions(weights=weights, household=household, **settings)
        with reporter.stage("risk profile"):
            assessment = assess_risk(data, options)
        if rows_note is not None:
            design_note = rows_note if design_note is None else f"{rows_note}; {design_note}"
    numbers = assessment.numbers  # the records the survey measures left out, counted and named
    unweighted = left_out_note(numbers["rows_without_weight_left_out"], numbers["weight"])
    if unweighted is not None:
        design_note = unweighted if design_note is None else f"{design_note}; {unweighted}"
    if design_note is not None:
        click.echo(f"note: {design_note}", err=True)
    if report_path is not None:
        report = Report(f"Disclosure risk of {file.name}", "microanon risk")
        add_risk_section(report, assessment, "Disclosure risk", note=design_note)
        report.write(report_path)
    _emit(as_json, assessment.numbers, format_risk(assessment.numbers))


# ---------------------------------------------------------------------------- init
@main.command("methods")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option(
    "--markdown", is_flag=True, help="Print the method table of docs/anonymize.md (Markdown)."
)
@_friendly_errors
def methods_command(name: str | None, as_json: bool, markdown: bool) -> None:
    """List the methods a pipeline config can name and the privacy models, or one method in
    full (NAME): its parameters with their values and defaults, its engines, its randomness."""
    from .method_listing import listing, markdown_table, method_text, summary_text

    if markdown:
        if name or as_json:
            raise click.UsageError(
                "--markdown prints the whole method table: give no NAME or --json"
            )
        click.echo(markdown_table())
        return
    obj = listing(name)
    _emit(as_json, obj, method_text(name) if name else summary_text())


@main.command("init")
@click.argument("data", type=click.Path(path_type=Path))
@click.option(
    "--out",
    default="config.yaml",
    show_default=True,
    type=click.Path(path_type=Path),
    help="The config to write; hierarchy files go to hierarchies/ beside it.",
)
@click.option(
    "--yes", is_flag=True, help="Accept the proposed roles without asking (also without a tty)."
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace files an earlier init wrote there and nobody changed since (never others).",
)
@_role_options
@_read_options
@_friendly_errors
def init_command(
    data: Path, out: Path, yes: bool, overwrite: bool, roles: dict[str, str], read: dict[str, Any]
) -> None:
    """Propose a config for DATA (CSV, Parquet, Feather, SPSS, Stata, SAS or Excel): roles,
    hierarchies, models, with reasons.

    Profiles every column, proposes its role (identifier, quasi, sensitive, insensitive) and the
    rule behind it, and hierarchies for the quasi-identifiers; on a terminal asks to confirm or
    change the roles. The role flags state roles (e.g. --quasi with the columns an attacker may
    know); the other columns get the proposed ones. Writes a commented YAML config that
    `microanon anonymize` runs as is. It is a proposal: check it before you publish.
    """
    with importing():
        from ..core.schema import Role
        from .init import dialogue, format_result, run_init

    decide = dialogue.show_roles if yes or not dialogue.stdin_is_terminal() else dialogue.ask_roles
    stated = {c: Role(r) for c, r in roles.items()}
    result = run_init(data, out, overwrite=overwrite, decide=decide, read=_csv(read), roles=stated)
    for w in result.warnings:
        click.echo(f"WARNING: {w}", err=True)
    click.echo(format_result(result))


# ---------------------------------------------------------------------------- lint
@main.command("lint")
@click.argument("data", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Pipeline YAML whose schema (and lint: accept) to check.",
)
@_role_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@_read_options
@_friendly_errors
def lint_command(
    data: Path | None,
    config: Path | None,
    roles: dict[str, str],
    read: dict[str, Any],
    as_json: bool,
) -> None:
    """Find columns whose role lets a release re-identify (exit 1 if any is not accepted)."""
    with importing():
        from ..core.lint import lint_schema
        from ..core.schema import Schema
        from .config import load_config
        from .io import read_table
        from .risk import schema_rows

    if config is not None:
        if roles:
            raise click.UsageError("give either --config or the roles, not both")
        cfg = load_config(config, read=read)
        frame = cfg.read_data(data)
        schema, accept = cfg.schema, cfg.lint_accept
        schema_rows(schema, frame)  # (missing values anonymize would refuse: refused here too)
    else:
        if data is None or "quasi" not in roles.values():
            raise click.UsageError("give DATA and --quasi (or --config)")
        frame = read_table(data, options=_csv(read))
        names = _matched(list(roles), [str(c) for c in frame.columns])
        schema = Schema.from_dict(dict(zip(names, roles.values(), strict=True)))
        accept = None
    report = lint_schema(frame, schema, accept=accept)
    text = "\n".join(str(f) for f in report.findings) or "no findings"
    for alert in report.alerts:
        click.echo(f"WARNING: {alert}", err=True)
    _emit(as_json, report.to_dict(), text)
    if not report.ok:
        sys.exit(EXIT_CODES["does not hold"])


# ---------------------------------------------------------------------------- anonymize
@main.command()
@click.argument("data", required=False, type=click.Path(path_type=Path))
@click.option(
    "--config",
    "config",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Pipeline YAML: schema, method, params, models (see docs/anonymize.md).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the release (release.json + tables) and report.html.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed for randomized methods: reproducible research only, never written to the release.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace --out if it holds a previous microanon output and nothing else.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option(
    "--search",
    default=None,
    help="full_domain's search: auto, exact, heuristic, best-first or genetic (see `microanon "
    "methods full_domain`); overrides the config's params.",
)
@click.option(
    "--time-limit",
    type=float,
    default=None,
    help="Seconds of full_domain's heuristic search, best-first or genetic (default 30); "
    "overrides the config's.",
)
@click.option(
    "--step-limit",
    type=int,
    default=None,
    help="Most nodes full_domain's heuristic search (best-first or genetic) checks; overrides "
    "the config's.",
)
@_read_options
@_engine_options
@quiet_option
@_friendly_errors
def anonymize(
    data: Path | None,
    config: Path,
    out: Path,
    seed: int | None,
    overwrite: bool,
    as_json: bool,
    search: str | None,
    time_limit: float | None,
    step_limit: int | None,
    read: dict[str, Any],
    engine: str,
    scheduler: str | None,
) -> None:
    """Anonymize DATA (or the config's data) as the config says; write the release and reports.

    The release is read back from disk and verified before it is kept; exit 1 when the models
    cannot be met or the verification fails (nothing is written), 2 on bad input. With
    --engine dask (the methods `microanon methods` lists with engine dask), DATA may be a
    Parquet or CSV file, directory or glob of any size; the release is written as Parquet. The
    read flags override the config's.
    """
    from .aside import working_aside
    from .drawing import prepare

    # the reports' work by a second process, started before the imports
    click.get_current_context().with_resource(working_aside(prepare))
    with importing():
        from ..core.row_counts import counts_sentence
        from .anonymize import run_anonymize
        from .config import load_config, with_search
        from .release_summary import search_sentence, step_lines
        from .restored_keys import verified_words

    cfg = load_config(config, read=read)
    given = {"search": search, "time_limit": time_limit, "step_limit": step_limit}
    cfg = with_search(cfg, {k: v for k, v in given.items() if v is not None})
    if _engine(engine, scheduler, data if data is not None else cfg.data) == "dask":
        _anonymize_dask(cfg, out, data, scheduler, overwrite, as_json, seed)
        return
    path, release, numbers = run_anonymize(
        cfg, out, data=data, rng=seed, progress=progress_mode(), overwrite=overwrite
    )
    meta = release.metadata
    for w in numbers["warnings"]:
        click.echo(f"WARNING: {w}", err=True)
    verified = verified_words(numbers["verified"], numbers["restored_keys"])
    lines = [
        f"{meta['method']}: {counts_sentence(meta)}",
        *filter(None, [search_sentence(meta)]),
        *step_lines(meta),
        *_column_lines(numbers["columns"]),
        f"claimed models verified on the files as written: {verified}",
        _utility_line(numbers["utility"]),
        f"wrote {path}/public (publish this) and {path}/internal (keep this)",
    ]
    _emit(
        as_json,
        {
            "method": meta["method"],
            "out": str(path),
            "public": str(path / "public"),
            "internal": str(path / "internal"),
            "rows_in": meta["rows_in"],
            "rows_out": meta["rows_out"],
            "rows": numbers["rows"],
            **({"search": meta["search"]} if "search" in meta else {}),
            **({"steps": meta["step_records"]} if "step_records" in meta else {}),
            "verified": numbers["verified"],
            "restored_keys": numbers["restored_keys"],
            "verification": numbers["verification"],
            "warnings": numbers["warnings"],
            "columns": numbers["columns"],
            "utility": numbers["utility"],
            "lint": numbers["lint"],
            "seconds": numbers["stage_seconds"],
        },
        "\n".join(lines),
    )


def _anonymize_dask(
    cfg: Any,
    out: Path,
    data: Path | None,
    scheduler: str | None,
    overwrite: bool,
    as_json: bool,
    seed: int | None = None,
) -> None:
    """``anonymize --engine dask``: the method out of core, and its summary."""
    from ..core.row_counts import RowCounts
    from ..core.wording import how_many
    from ..scale import WrittenRelease
    from .engine import anonymize_dask
    from .release_summary import search_sentence
    from .restored_keys import verified_words

    result = anonymize_dask(
        cfg,
        out,
        data,
        scheduler=scheduler,
        progress=progress_mode(),
        overwrite=overwrite,
        rng=seed,
    )
    if isinstance(result, WrittenRelease):
        _rowwise_summary(result, as_json)
        return
    verified = all(v.holds for v in result.verdicts) if result.verdicts else None
    levels = ", ".join(f"{q} {level}" for q, level in result.levels.items())
    reported = result.reported
    for w in reported["warnings"]:
        click.echo(f"WARNING: {w}", err=True)
    lines = [
        f"full_domain (dask): {RowCounts.from_dict(result.rows).sentence()} "
        f"{result.combinations:,} distinct combinations.",
        search_sentence({**result.internal, **result.metadata}),
        f"  levels: {levels}",
        f"  suppressed: {how_many(result.suppressed, 'record')}",
        f"  {result.metric}: {result.metric_value:.6g}",
        *(f"  {v}" for v in result.verdicts),
        "claimed models verified on the files as written: "
        + verified_words(verified, reported["restored_keys"]),
        _utility_line(reported["utility"]),
        f"wrote {result.path}/public (publish this, with its report.html) and "
        f"{result.path}/internal (keep this, with its report.html) in "
        f"{result.seconds.get('total', 0.0):.1f} s",
    ]
    _emit(
        as_json,
        {
            "method": "full_domain",
            "engine": "dask",
            "out": str(result.path),
            "rows_in": result.rows_in,
            "rows_out": result.rows_out,
            "rows": RowCounts.from_dict(result.rows).to_dict(),
            "combinations": result.combinations,
            "levels": result.levels,
            "suppressed": result.suppressed,
            "metric": result.metric,
            "metric_value": result.metric_value,
            "search": result.internal["search"],
            "verified": verified,
            "restored_keys": reported["restored_keys"],
            "verification": reported["verification"],
            "warnings": reported["warnings"],
            "columns": reported["columns"].to_dict(orient="records"),
            "utility": reported["utility"],
            "lint": reported["lint"],
            "seconds": result.seconds,
        },
        "\n".join(lines),
    )


def _column_lines(columns: list[dict[str, Any]]) -> list[str]:
    """The summary's line per column: its name, role and what was done to it."""
    # the column names' width, up to 32 characters (a longer name shifts its own line only)
    width = min(max([16, *(len(r["column"]) for r in columns)]), 32)
    return [f"  {r['column']:<{width}} {r['role']:<12} {r['done']}" for r in columns]


def _dask_release(result: Any, method: str) -> dict[str, Any]:
    """The first keys of a row-wise release's ``--json`` answer: the method, the engine, the
    release's kind and where its parts are."""
    return {
        "method": method,
        "engine": "dask",
        "kind": result.kind,
        "out": str(result.path),
        "public": str(result.path / "public"),
        "internal": str(result.path / "internal"),
    }


def _changed_columns(meta: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The columns a row-wise release randomized (those with keep probability 1 are published
    unchanged, as the in-memory summary says) and those it masked."""
    from .families.randomize.report import describe_randomized

    specs = meta.get("randomized", {})
    randomized = [c for c, spec in specs.items() if describe_randomized(spec, meta["method"])]
    return randomized, list(meta.get("masked_numeric", []))


def _rowwise_summary(result: Any, as_json: bool) -> None:
    """The summary of a row-wise (or block) release written with ``--engine dask`` with its
    reports: the shape of the in-memory run's (its warnings on stderr, a line per column, the
    verification, the utility), the same numbers where the data define them."""
    from ..core.row_counts import ROW_COUNTS_KEY, RowCounts
    from .restored_keys import verified_words

    meta, numbers = result.metadata, result.reported
    rows = RowCounts.from_dict(result.internal[ROW_COUNTS_KEY])
    for w in numbers["warnings"]:
        click.echo(f"WARNING: {w}", err=True)
    verified = verified_words(numbers["verified"], numbers["restored_keys"])
    columns = numbers["columns"].to_dict(orient="records")
    randomized, masked = _changed_columns(meta)
    lines = [
        f"{meta['method']} (dask): {rows.sentence()}",
        *_column_lines(columns),
        f"claimed models verified on the files as written: {verified}",
        _utility_line(numbers["utility"]),
        f"wrote {result.path}/public (publish this, with its report.html) and "
        f"{result.path}/internal (keep this, with its report.html) in "
        f"{result.seconds.get('total', 0.0):.1f} s",
    ]
    _emit(
        as_json,
        {
            **_dask_release(result, meta["method"]),
            "rows_in": rows.entering,
            "rows_out": result.rows_out,
            "rows": rows.to_dict(),
            "randomized": randomized,
            "masked": masked,
            "verified": numbers["verified"],
            "restored_keys": numbers["restored_keys"],
            "verification": numbers["verification"],
            "warnings": numbers["warnings"],
            "columns": columns,
            "utility": numbers["utility"],
            "lint": numbers["lint"],
            "seconds": result.seconds,
        },
        "\n".join(lines),
    )


# ---------------------------------------------------------------------------- query
@main.command("query")
@click.argument("release_dir", type=click.Path(file_okay=False, path_type=Path))
@click.argument("sql")
@click.option(
    "--original",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The original table (CSV, Parquet, Feather, SPSS, Stata, SAS or Excel): also print the "
    "true answers (exit status 1 if one lies outside its bounds).",
)
@click.option(
    "--memory-limit",
    default=None,
    metavar="SIZE",
    help="DuckDB's memory limit, e.g. 2GB, 512MiB or 25% (of the memory); a query needing more "
    "stops with an error. Default: half the physical memory, at most 4 GiB.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="Threads DuckDB may use. Default: the cores available to this process.",
)
@click.option(
    "--timeout",
    default=None,
    metavar="SECONDS",
    help="Stop a query that runs longer (with an error). Default: 10.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@_read_options
@_friendly_errors
def query_command(
    release_dir: Path,
    sql: str,
    original: Path | None,
    memory_limit: str | None,
    threads: int | None,
    timeout: str | None,
    as_json: bool,
    read: dict[str, Any],
) -> None:
    """Bounds of an aggregate SQL query over the distribution release in RELEASE_DIR.

    SQL: SELECT COUNT/SUM/AVG/MIN/MAX(column), ... FROM release [WHERE <published columns>]
    [GROUP BY <published columns>] (see docs/queries.md). The query runs in a child process
    that is stopped when it exceeds its memory or its time.
    """
    from .query_process import run_query

    request = {
        "release_dir": str(release_dir),
        "sql": sql,
        "original": None if original is None else str(original),
        "memory_limit": memory_limit,
        "threads": threads,
        "timeout": timeout,
        "as_json": as_json,
        "read": read,
    }
    outcome = run_query(request)
    if outcome.status == EXIT_CODES["bad input"]:
        raise InputFailure(outcome.err)
    click.echo(outcome.out)
    if outcome.status:
        click.echo(f"Error: {outcome.err}", err=True)
        sys.exit(outcome.status)


# ---------------------------------------------------------------------------- demo
@main.command()
@click.option(
    "--out",
    default="demo-output",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for report.html.",
)
@click.option(
    "--reproductions",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory of earlier 'microanon reproduce NAME --out DIR/NAME' runs, summarized in "
    "the section 'The papers, reproduced'.",
)
@quiet_option
@_friendly_errors
def demo(out: Path, reproductions: Path | None) -> None:
    """Run the demonstration on bundled Adult and write OUT/report.html."""
    with importing():
        from .demo import run_demo

    path = run_demo(out, progress=progress_mode(), reproductions=reproductions)
    click.echo(f"wrote {path}")


# ---------------------------------------------------------------------------- examples
@main.command("examples")
@click.option(
    "--out",
    default="examples",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="New directory for the example configurations (it must not exist, or be empty).",
)
@_friendly_errors
def examples_command(out: Path) -> None:
    """Write the example pipelines (adult/) and survey (collect/) of the docs into OUT."""
    from .examples import export_examples

    written = export_examples(out)
    click.echo(f"wrote {len(written)} files to {out}; try:")
    click.echo(f"  microanon anonymize --config {out / 'adult' / 'full_domain.yaml'} --out out/fd")


# ---------------------------------------------------------------------------- collection
@main.command()
@click.option(
    "--config",
    "config",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Survey file: schema with taxonomies, tau, storage (see docs/collection.md).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=_PORT, help="TCP port.")
@_friendly_errors
def serve(config: Path, host: str, port: int) -> None:
    """Run the data-collection service of a survey (respondents submit generalized tuples)."""
    from .server import load_service_config
    from .server import serve as run

    run(load_service_config(config), host=host, port=port)


# ---------------------------------------------------------------------------- workbench
@main.command("app")
@click.argument("data", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8765, show_default=True, type=_PORT, help="TCP port.")
@click.option("--no-browser", is_flag=True, help="Do not open the workbench in the browser.")
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name or address the workbench is reached by besides 127.0.0.1 and localhost "
    "(repeatable; needed with a --host other than loopback). Requests naming any other host "
    "are refused.",
)
@_read_options
@_friendly_errors
def app_command(
    data: Path | None,
    host: str,
    port: int,
    no_browser: bool,
    allow_hosts: tuple[str, ...],
    read: dict[str, Any],
) -> None:
    """Open the workbench: load DATA (optional), set roles, run, compare, download (local web)."""
    from .workbench.serve import serve as run

    run(data, _csv(read), host=host, port=port, browser=not no_browser, allow=allow_hosts)


@main.group()
def collect() -> None:
    """Respondent and data-user commands of a running collection service."""


def _respondent(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write ATTRIBUTE=VALUE", param_hint="VALUES")
        if name.strip() in out:
            raise click.BadParameter(f"{name.strip()!r} is given twice", param_hint="VALUES")
        out[name.strip()] = value.strip()
    return out


def _fitting(respondents: list[dict[str, Any]], survey: Any, where: str | None) -> list[dict]:
    """Every respondent's tuple checked against the survey before anything is sent: the
    attributes it names, a value for each, each value a base value of its taxonomy
    (``where``: the CSV file, whose rows the errors number; None for VALUES).

    Raises
    ------
    InputError
        Naming the row (of a file), the attribute and the value.
    """
    from ..core.errors import InputError
    from ..core.keys import is_missing

    attrs = list(survey.attributes)
    out = []
    for i, o in enumerate(respondents, start=1):
        label = "VALUES" if where is None else f"{where} row {i:,}"
        extra = [str(k) for k in o if k not in attrs]
        if extra:
            raise InputError(
                f"{label}: {', '.join(map(repr, extra))} is no attribute of the survey; its "
                f"attributes: {', '.join(attrs)}"
            )
        empty = [a for a in attrs if a not in o or is_missing(o[a]) or str(o[a]).strip() == ""]
        if empty:
            raise InputError(f"{label}: no value for {', '.join(map(repr, empty))}")
        o = {a: o[a] for a in attrs}
        try:
            survey.encode_base(o)
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from None
        out.append(o)
    return out


@collect.command("submit")
@click.argument("values", nargs=-1)
@click.option("--server", required=True, help="Base URL of the service, e.g. http://host:8000.")
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Submit every row of this CSV (one respondent per row, one column per attribute).",
)
@click.option("--mode", type=click.Choice(["exact", "greedy"]), default=None, help="GTR mode.")
@click.option("--id", "submission_id", default=None, help="Submission id (default: a new UUID).")
@click.option(
    "--invitation",
    default=None,
    help="Your invitation code, for a survey by invitation (one respondent, not --csv).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per respondent.")
@_read_options
@quiet_option
@_friendly_errors
def collect_submit(
    values: tuple[str, ...],
    server: str,
    csv_file: Path | None,
    mode: str | None,
    submission_id: str | None,
    invitation: str | None,
    as_json: bool,
    read: dict[str, Any],
) -> None:
    """Generalize your tuple locally (GTR) and submit it; VALUES are ATTRIBUTE=VALUE pairs.

    Only the generalization is sent; when nothing can protect you, nothing is sent.
    """
    from ..core.progress import as_progress
    from .io import read_table
    from .server import CollectionClient

    if bool(values) == bool(csv_file):
        raise click.UsageError("give either ATTRIBUTE=VALUE pairs or --csv FILE")
    if csv_file is not None:
        if submission_id or invitation:
            raise click.UsageError("--id and --invitation apply to one respondent, not to --csv")
        respondents = read_table(csv_file, options=_csv(read)).to_dict("records")
    else:
        respondents = [_respondent(values)]
    with CollectionClient(server) as client:
        # every tuple checked before the first is sent: a bad row sends nothing
        respondents = _fitting(
            respondents, client.survey, None if csv_file is None else csv_file.name
        )
        reporter = as_progress(progress_mode(), "collect submit")
        rows = reporter.iterate(respondents, "respondents") if len(respondents) > 1 else respondents
        for o in rows:
            r = client.submit(o, mode=mode, submission_id=submission_id, invitation=invitation)
            if as_json:
                click.echo(
                    json.dumps(
                        {
                            "status": r.status,
                            "version": r.version,
                            "tuple": None
                            if r.submission is None
                            else {k: str(v) for k, v in r.submission.as_dict().items()},
                        }
                    )
                )
            elif r.status == "submitted before":
                click.echo(
                    f"submitted before: submission id {r.submission_id!r} was used by an "
                    "earlier submission, which stands; nothing new was stored"
                )
            elif r.submission is None:
                click.echo("abstained: no generalization of this tuple protects it; nothing sent")
            else:
                shown = ", ".join(f"{k}={v}" for k, v in r.submission.as_dict().items())
                click.echo(f"{r.status} (version {r.version}): {shown}")


@collect.command("export")
@click.option("--server", required=True, help="Base URL of the service.")
@click.option(
    "--token-env",
    default="MICROANON_EXPORT_TOKEN",
    show_default=True,
    help="Environment variable holding the export token.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),  # a directory is refused below, in one line
    help="CSV file to write (missing parent directories are created).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace OUT if it exists (atomically: a failure leaves it as it was).",
)
@quiet_option
@_friendly_errors
def collect_export(server: str, token_env: str, out: Path, overwrite: bool) -> None:
    """Download the collected multiset (labels and counts) as CSV, for the data user.

    OUT is written all at once: through a temporary file in its directory, renamed at the end,
    so an interrupted export never leaves a truncated OUT. The same multiset is public at the
    service's GET /collected; the token gates this labelled export only.
    """
    import os

    from ..core.output import atomic_file
    from ..core.progress import as_progress
    from .server import CollectionClient

    token = os.environ.get(token_env)
    if not token:
        raise click.UsageError(f"set the export token in ${token_env}")
    reporter = as_progress(progress_mode(), "collect export", total=2)
    with atomic_file(out, overwrite=overwrite) as tmp:  # checks OUT before the service
        with reporter.stage("download the collected set"), CollectionClient(server) as client:
            frame = client.export(token)
        with reporter.stage(f"write {len(frame):,} distinct tuples"):
            frame.to_csv(tmp, index=False)
    click.echo(
        f"wrote {len(frame):,} distinct tuples ({int(frame['count'].sum()):,} in all) to {out}"
    )


# ---------------------------------------------------------------------------- reproduce
@main.group()
def reproduce() -> None:
    """Reproduce the experiments of the source papers (report.html + results.json)."""


def _reproduction(paper: Paper) -> None:
    """Register ``microanon reproduce COMMAND`` running the paper's reproduction."""
    name = paper.command

    @reproduce.command(name, help=paper.summary + _REPRODUCE_EXIT)
    @click.option(
        "--out",
        required=True,
        type=click.Path(file_okay=False, path_type=Path),
        help="Directory for report.html and results.json (written atomically).",
    )
    @click.option("--quick", is_flag=True, help=paper.quick)
    @click.option(
        "--seed",
        type=int,
        default=None,
        help="Seed for reproducible research (default: OS entropy); never written to the output.",
    )
    @click.option("--overwrite", is_flag=True, help="Replace an existing --out directory.")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
    @quiet_option
    @_friendly_errors
    def command(out: Path, quick: bool, seed: int | None, overwrite: bool, as_json: bool) -> None:
        from ..reproductions import runner
        from ..reproductions.expected import outcome

        path, results = runner.run(
            name, out, quick=quick, rng=seed, progress=progress_mode(), overwrite=overwrite
        )
        summary = outcome(name, path, results)
        _emit(as_json, summary, _reproduction_text(path, results, summary))
        _report_unexpected(name, results["checks"])
        if summary["exit_status"]:
            sys.exit(EXIT_CODES["does not hold"])


_REPRODUCE_EXIT = (
    "\n\nExit status: 0 when every check passes or fails only as one of the reproduction's "
    "expected deviations (listed with their reasons in the report); 1 when another check fails "
    "(named on stderr); 2 on bad input."
)


def _reproduction_text(path: Path, results: dict[str, Any], summary: dict[str, Any]) -> str:
    """The text output of ``reproduce``: the issue's checks, then one summary line."""
    checks = results["checks"]
    lines = [_check_text(c) for c in checks if c["kind"] == "issue"]
    counts = summary["summary"]
    text = f"{counts['passed']} of {counts['checks']} checks pass"
    text += f", {counts['expected_deviations']} fail as expected deviations"
    if counts["unexpected_failures"]:
        text += f", {counts['unexpected_failures']} fail UNEXPECTEDLY"
    findings = [c for c in checks if c["kind"] == "paper" and not c.get("timing")]
    if findings:
        text += (
            f"; the paper's findings hold in {sum(c['passed'] for c in findings)} of "
            f"{len(findings)} tests"
        )
    if counts.get("timings"):
        text += f"; {counts['timings']} timings measured, not checked"
    lines.append(
        f"{text} (see report.html); {results['meta']['runtime_seconds']:.1f} s; "
        f"wrote {path}/ (report.html, results.json)"
    )
    return "\n".join(lines)


def _check_text(c: dict[str, Any]) -> str:
    """One check line: PASS / FAIL / EXPECTED FAIL, where, the claim, the numbers, and the
    reason of a listed deviation."""
    label = "PASS" if c["passed"] else "EXPECTED FAIL" if c["expected"] else "FAIL"
    what = " ".join(str(c[k]) for k in ("experiment", "variant") if c.get(k))
    text = f"{label}  {what}: {c['claim']}: {c['detail']}"
    if c["expected"]:
        text += f" [{'now passes; ' if c['passed'] else ''}expected deviation: {c['reason']}]"
    return text


def _report_unexpected(name: str, checks: list[dict[str, Any]]) -> None:
    """One stderr line per failed check that is not an expected deviation."""
    from ..reproductions.expected import check_name, unexpected_failures

    for c in unexpected_failures(checks):
        click.echo(
            f"Error: reproduce {name}: check {check_name(c)} failed and is not an expected "
            f"deviation: {c['claim']}: {c['detail']}",
            err=True,
        )


for _paper in PAPERS.values():
    _reproduction(_paper)


def run() -> None:
    """The ``microanon`` program (its console script, ``python -m microanon.apps.cli``):
    :func:`main` in a process of its own, where a command's imports pause the garbage
    collector (see :mod:`.collector`), and SIGTERM stops a command as Ctrl-C does (see
    :mod:`.interrupts`), with exit status 143; BLAS runs on one thread (see
    :mod:`.blas_threads`)."""
    one_blas_thread()
    own_process()
    with sigterm_as_interrupt() as stopped:
        try:
            main()
        except SystemExit:
            if stopped:
                raise SystemExit(TERMINATED_EXIT) from None
            raise


if __name__ == "__main__":  # pragma: no cover
    run()
