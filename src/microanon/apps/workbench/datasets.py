"""The workbench's data sets: a loaded table with its profiles, roles, hierarchies and lint.

Loading reuses ``microanon init``: the table is read as ``init`` and ``anonymize`` read it
(:func:`microanon.apps.init.read_data`), profiled
(:func:`~microanon.apps.init.profile.profile_table`), given the proposed roles
(:func:`~microanon.apps.init.roles.propose_roles`) and, for the
quasi-identifiers, the proposed hierarchies (type ``auto``). A schema change is checked against
the data as ``anonymize`` will check it before it replaces the previous one
(:func:`apply_schema`), so a refused change leaves the data set as it was.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from ...core.errors import MicroanonError
from ...core.hierarchy import Hierarchy, value_key
from ...core.lint import ACCEPTABLE_KINDS, Finding, LintReport, lint_schema
from ...core.reading import ReadOptions, decimal_comma_columns, missing_marker_warnings
from ...core.schema import Role, Schema
from ...core.schema import missing_policy as missing_policy_name
from ..init.hierarchies import arx_csv
from ..init.profile import ColumnProfile, profile_table
from ..init.render import ColumnEntry
from ..init.roles import propose_roles, without_rank
from ..init.run import hierarchy_file_names, missing_policy, read_block, read_data
from ..io import categories_entry, value_label_categories
from .errors import RequestError
from .hierarchies import Built, build, missing_values

__all__ = [
    "KINDS",
    "ColumnState",
    "Dataset",
    "apply_schema",
    "config_entries",
    "config_schema",
    "dataset_json",
    "loaded_at",
    "load_bundled",
    "load_file",
    "schema_files",
]

T = TypeVar("T")

#: The kinds a column may be given.
KINDS = ("categorical", "numeric")
#: Example values shown per column.
_EXAMPLES = 5


@dataclass(frozen=True)
class ColumnState:
    """What the data owner set for one column.

    Attributes
    ----------
    role : Role
    reason : str
        The rule that gave the role (or "chosen by the user").
    proposed : Role
        The role ``init`` proposed, which a reason "chosen by the user" names.
    kind : {"categorical", "numeric"}
    hierarchy : dict or None
        The ``HierarchySpec`` of a quasi-identifier.
    missing : str or None
        The missing-value policy the data owner chose (:mod:`microanon.core.missing`); None
        for the default (``init``'s: :func:`missing_policy`).
    """

    role: Role
    reason: str
    proposed: Role
    kind: str
    hierarchy: dict[str, Any] | None = None
    missing: str | None = None


@dataclass
class Dataset:
    """One loaded table.

    Attributes
    ----------
    id : str
    name : str
        The file's name as uploaded (the ``data:`` of the config), or ``dataset:NAME``.
    frame : DataFrame
    profiles : dict of str to ColumnProfile
    read : ReadOptions
        How the file was read.
    path : Path or None
        The uploaded file in the work directory (None for a bundled data set).
    columns : dict of str to ColumnState
    lint : list of Finding
        The schema lint on the current roles.
    lint_limited : str or None
        How the lint's dependency scan was limited by its budget (None: it was complete).
    lint_cautions : list of str
        The lint's cautions: sampling weights and sensitive columns that give back a
        quasi-identifier, alone or added up.
    levels : dict of str to int
        Generalization levels above the leaves of each quasi-identifier's hierarchy.
    accept : dict of str to list of str
        The lint findings the data owner accepts, by column (the config's ``lint: accept``).
    runs : list of str
        Ids of the runs on this data set, oldest first.
    charts : dict of str to dict
        Each column's chart of the original (:func:`~.summaries.chart`), drawn once and shared
        by every run's before/after comparison.
    version : int
        How many changes of the schema were applied: the page shows the latest it was sent.
    loaded : float
        When it was loaded (seconds since the epoch).
    change_lock : threading.Lock
        Held while the schema changes and while a run reads it: two changes sent at once are
        applied one after the other (neither is lost), each with the lint of its own roles.
    state_lock : threading.Lock
        Held while the changed schema and its lint are stored, and while the answer describing
        them is made, so that it never mixes the roles of one change with the lint of another.
    """

    id: str
    name: str
    frame: pd.DataFrame
    profiles: dict[str, ColumnProfile]
    read: ReadOptions
    path: Path | None
    columns: dict[str, ColumnState]
    lint: list[Finding] = field(default_factory=list)
    lint_limited: str | None = None
    lint_cautions: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    levels: dict[str, int] = field(default_factory=dict)
    accept: dict[str, list[str]] = field(default_factory=dict)
    charts: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    version: int = 0
    loaded: float = field(default_factory=time.time)
    change_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    state_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def quasi(self) -> list[str]:
        """The quasi-identifiers, in column order."""
        return [c for c, s in self.columns.items() if s.role is Role.QUASI]

    def missing(self, column: str) -> str | None:
        """The missing-value policy of a column: the data owner's choice, else ``init``'s
        (:func:`missing_policy`); None for a column without missing values."""
        state = self.columns[column]
        if not self.profiles[column].has_missing or not state.role.published:
            return None
        if state.missing is not None:
            return state.missing
        return missing_policy(self.profiles[column], state.role)[0]

    def dropped(self) -> list[str]:
        """The columns whose missing values leave their rows out of a run (``missing: drop``)."""
        return [c for c in self.columns if self.missing(c) == "drop"]

    def roles_schema(self) -> Schema:
        """The columns' roles and missing-value policies as a schema, without hierarchies: what
        the risk of the original reads (the keys, the rows a run leaves out, the sampling
        weight and the household id)."""
        spec: dict[str, Any] = {}
        for column, state in self.columns.items():
            missing = self.missing(column)
            spec[column] = {"role": state.role.value, **({"missing": missing} if missing else {})}
        return Schema.from_dict(spec)

    def rows_left_out(self) -> dict[str, int]:
        """Rows left out for a missing value (``missing: drop``), by column (a row missing in
        two such columns is counted under each, as a run's ``rows.left_out``)."""
        return {c: int(self.frame[c].isna().sum()) for c in self.dropped()}

    def left_out(self) -> dict[str, Any]:
        """What a run will leave out for a missing value, before it starts.

        Returns
        -------
        dict
            ``columns`` (:meth:`rows_left_out`), ``total`` (rows left out, each counted once)
            and ``entering`` (the rows that enter the method).
        """
        drop = self.dropped()
        total = int(self.frame[drop].isna().any(axis=1).sum()) if drop else 0
        return {
            "columns": self.rows_left_out(),
            "total": total,
            "entering": len(self.frame) - total,
        }

    def value_counts(self, column: str, limit: int) -> dict[str, Any]:
        """A column's distinct values with their counts, most frequent first.

        Parameters
        ----------
        column : str
        limit : int
            Values listed at most.

        Returns
        -------
        dict
            ``column``, ``values`` (``[{"value", "count"}]``, at most ``limit``), ``distinct``
            (every distinct value, listed or not) and ``missing`` (empty cells).

        Raises
        ------
        RequestError
            An unknown column.
        """
        if column not in self.columns:
            raise RequestError(f"no column {column!r} in {self.name}", "column")
        counts = self.frame[column].value_counts(dropna=True)
        return {
            "column": column,
            "values": [
                {"value": _plain(v), "count": int(n)} for v, n in counts.head(limit).items()
            ],
            "distinct": len(counts),
            "missing": int(self.frame[column].isna().sum()),
        }


def _new(
    ds_id: str, name: str, frame: pd.DataFrame, read: ReadOptions, path: Path | None
) -> Dataset:
    profiles = {p.name: p for p in profile_table(frame)}
    columns = {}
    for p in propose_roles(frame, list(profiles.values())):
        kind = "numeric" if profiles[p.column].type == "numeric" else "categorical"
        spec = {"type": "auto"} if p.role is Role.QUASI else None
        columns[p.column] = ColumnState(p.role, p.reason, p.role, kind, spec)
    ds = Dataset(ds_id, name, frame, profiles, read, path, columns)
    report = _lint(frame, columns)
    ds.lint, ds.lint_limited, ds.lint_cautions = report.findings, report.limited, report.cautions
    try:
        ds.levels = schema_files(ds, {})[2]
    except RequestError:  # a proposal the data do not fit: shown when the owner changes it
        ds.levels = {}
    return ds


def load_file(ds_id: str, path: Path, name: str, read: ReadOptions) -> Dataset:
    """A data set from an uploaded CSV, Parquet, Feather, SPSS, Stata, SAS or Excel file (read as
    ``anonymize`` reads ``data:``).

    Raises
    ------
    InputError
        A file that does not parse (the reader's message: encoding, byte, line), or no rows.
    """
    return _new(ds_id, name, read_data(path, read), read, path)


def load_bundled(ds_id: str, name: str) -> Dataset:
    """A bundled data set by name (``microanon datasets list``).

    Raises
    ------
    InputError
        An unknown name (listing the known ones).
    """
    from ...datasets import load_dataset

    frame = load_dataset(name)
    frame.columns = [str(c) for c in frame.columns]
    return _new(ds_id, f"dataset:{name}", frame, ReadOptions(), None)


def _lint(
    frame: pd.DataFrame,
    columns: Mapping[str, ColumnState],
    accept: Mapping[str, list[str]] | None = None,
) -> LintReport:
    """The schema lint on the roles (accepted findings marked).

    Raises
    ------
    RequestError
        ``accept`` names an unknown column or finding kind.
    """
    schema = Schema.from_dict({c: s.role.value for c, s in columns.items()})
    try:
        return lint_schema(frame, schema, accept=accept)
    except MicroanonError as exc:
        raise RequestError(str(exc), "accept") from None


def _keys(columns: Mapping[str, ColumnState]) -> dict[str, tuple[Any, ...]]:
    """What the key ranking of init's reasons measured: the quasi-identifiers with their kind,
    hierarchy and missing-value policy, and the columns whose missing rows are left out."""
    return {
        c: (s.role is Role.QUASI, s.kind, s.hierarchy, s.missing)
        for c, s in columns.items()
        if s.role is Role.QUASI or s.missing == "drop"
    }


def _state(column: str, old: ColumnState, change: Any) -> ColumnState:
    """``old`` with a client's change (role, kind, hierarchy) applied, checked."""
    if not isinstance(change, Mapping):
        raise RequestError(f"column {column!r}: give a mapping of role, kind, hierarchy", column)
    unknown = sorted(set(change) - {"role", "kind", "hierarchy", "missing"})
    if unknown:
        raise RequestError(f"column {column!r}: unknown key(s) {', '.join(unknown)}", column)
    new = old
    if "role" in change:
        try:
            role = Role(str(change["role"]))
        except ValueError:
            raise RequestError(
                f"column {column!r}: unknown role {change['role']!r} (use one of "
                f"{', '.join(r.value for r in Role)})",
                column,
            ) from None
        if role is not old.role:
            reason = f"chosen by the user (proposed {old.proposed.value})"
            new = replace(new, role=role, reason=reason)
    if "kind" in change:
        if change["kind"] not in KINDS:
            raise RequestError(
                f"column {column!r}: unknown kind {change['kind']!r} "
                f"(use one of {', '.join(KINDS)})",
                column,
            )
        new = replace(new, kind=change["kind"])
    if "hierarchy" in change:
        new = replace(new, hierarchy=change["hierarchy"])
    if "missing" in change:
        policy = change["missing"]
        if policy is not None:
            try:
                policy = missing_policy_name(policy, str(column))
            except MicroanonError as exc:
                raise RequestError(str(exc), column) from None
        new = replace(new, missing=policy)
    if new.role is Role.QUASI and new.missing == "keep":
        raise RequestError(
            f"column {column!r}: missing: keep is for sensitive and insensitive columns; a "
            "quasi-identifier's missing value is the value ? (value) or its rows are left out "
            "(drop)",
            column,
        )
    if new.role is Role.QUASI and new.hierarchy is None:
        new = replace(new, hierarchy={"type": "auto"})
    return new


def built_hierarchy(ds: Dataset, column: str, spec: Any, uploads: Mapping[str, Path]) -> Built:
    """A specification built on one of the data set's columns (see :func:`.hierarchies.build`)."""
    if column not in ds.columns:
        raise RequestError(f"no column {column!r} in {ds.name}", "column")
    return build(
        spec,
        ds.frame[column],
        ds.profiles[column],
        ds.missing(column) == "value",
        uploads,
    )


def schema_files(
    ds: Dataset, uploads: Mapping[str, Path]
) -> tuple[list[ColumnEntry], dict[str, Hierarchy], dict[str, int]]:
    """The config's schema entries, its hierarchy files (relative path -> hierarchy) and the
    levels of each quasi-identifier's hierarchy above its leaves.

    Raises
    ------
    RequestError
        As :func:`config_schema`.
    """
    entries, files, schema = _config(ds, uploads)
    return entries, files, {q: schema.hierarchy(q).height for q in schema.quasi}


def config_schema(ds: Dataset, uploads: Mapping[str, Path]) -> Schema:
    """The schema of ``ds`` as its config states it, resolved on its table.

    Raises
    ------
    RequestError
        A hierarchy that does not build or misses a value of its column, a value the schema
        refuses (naming the column).
    """
    return _config(ds, uploads)[2]


def _config(
    ds: Dataset, uploads: Mapping[str, Path]
) -> tuple[list[ColumnEntry], dict[str, Hierarchy], Schema]:
    """The config's schema entries, its hierarchy files and the schema they state.

    Raises
    ------
    RequestError
        A hierarchy that does not build or misses a value of its column, a value the schema
        refuses (naming the column).
    """
    entries, files = config_entries(ds, uploads)
    return entries, files, _check(ds.frame, entries, files)


def config_entries(
    ds: Dataset, uploads: Mapping[str, Path]
) -> tuple[list[ColumnEntry], dict[str, Hierarchy]]:
    """The config's schema entries and its hierarchy files (relative path -> hierarchy),
    without checking the schema they state on the data (:func:`config_schema` does; the
    schema a data set holds was checked when it was set).

    Raises
    ------
    RequestError
        A hierarchy that does not build or misses a value of its column.
    """
    names = hierarchy_file_names(ds.quasi)
    entries, files = [], {}
    # the file's value labels (its codebook), read from its metadata: categories of the config
    declared = {} if ds.path is None else value_label_categories(ds.path, ds.frame)
    for column, state in ds.columns.items():
        entry: dict[str, Any] = {"role": state.role.value}
        if state.role is not Role.IDENTIFIER and state.kind == "numeric":
            entry["kind"] = "numeric"
        how = None
        if state.role is Role.QUASI:
            built = built_hierarchy(ds, column, state.hierarchy, uploads)
            how = built.how
            if built.hierarchy is not None:
                absent = missing_values(
                    built.hierarchy, ds.frame[column], ds.missing(column) == "value"
                )
                if absent:
                    more = f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""
                    raise RequestError(
                        f"hierarchy of {column!r} misses value {absent[0]}{more}", column
                    )
                files[names[column]] = built.hierarchy
                entry["hierarchy"] = names[column]
            else:
                entry["hierarchy"] = built.builder
        missing = ds.missing(column)
        if missing is not None:
            entry["missing"] = missing
        if state.role is not Role.IDENTIFIER and state.kind != "numeric":
            labels = categories_entry(declared, ds.frame, column, missing)
            if labels is not None:
                entry["categories"] = labels
        profile = ds.profiles[column]
        entries.append(
            ColumnEntry(
                column, entry, profile.describe(), f"role {state.role.value}: {state.reason}", how
            )
        )
    return entries, files


def _check(
    frame: pd.DataFrame, entries: list[ColumnEntry], files: Mapping[str, Hierarchy]
) -> Schema:
    """Check the schema as the config will state it (files read back from their text)."""
    spec = {}
    for e in entries:
        desc = dict(e.entry)
        if isinstance(desc.get("hierarchy"), str):
            text = io.StringIO(arx_csv(files[desc["hierarchy"]]))
            desc["hierarchy"] = Hierarchy.from_arx_csv(text, name=e.column)
        spec[e.column] = desc
    try:
        schema = Schema.from_dict(spec).resolve(frame)
        schema.validate(frame)
    except MicroanonError as exc:
        column = next((e.column for e in entries if f"'{e.column}'" in str(exc)), None)
        raise RequestError(str(exc), column) from None
    return schema


def apply_schema(ds: Dataset, body: Any, uploads: Mapping[str, Path], answer: Callable[[], T]) -> T:
    """Apply a ``PUT .../schema`` body to ``ds``, or change nothing and raise; return
    ``answer()``, made before a change sent meanwhile is applied (it describes this change's
    schema, lint and version).

    ``columns`` changes some columns (role, kind, hierarchy); ``accept`` replaces the accepted
    lint findings (``{column: [kind, ...]}``).

    Raises
    ------
    RequestError
        An unknown column, role, kind or finding kind; a hierarchy that does not build or misses
        a value.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("columns", {}), Mapping):
        raise RequestError('give {"columns": {"<name>": {"role", "kind", "hierarchy"}}}', "columns")
    unknown = sorted(set(body) - {"columns", "accept"})
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(unknown)}", unknown[0])
    with ds.change_lock:
        accept = body.get("accept", ds.accept)
        if not isinstance(accept, Mapping) or not all(isinstance(k, list) for k in accept.values()):
            raise RequestError('accept: give {"<column>": ["<finding kind>", ...]}', "accept")
        columns = dict(ds.columns)
        for column, change in body.get("columns", {}).items():
            if column not in columns:
                raise RequestError(f"no column {column!r} in {ds.name}", str(column))
            columns[column] = _state(column, columns[column], change)
        if _keys(columns) != _keys(ds.columns):  # init's key ranking describes its keys only
            columns = {c: replace(s, reason=without_rank(s.reason)) for c, s in columns.items()}
        trial = replace(ds, columns=columns)
        levels = schema_files(trial, uploads)[2]
        lint = _lint(ds.frame, columns, accept)
        with ds.state_lock:
            ds.columns, ds.levels, ds.accept = columns, levels, dict(accept)
            ds.lint, ds.lint_limited, ds.lint_cautions = lint.findings, lint.limited, lint.cautions
            ds.version += 1
        return answer()


def _plain(value: Any) -> Any:
    """A value of the table as JSON (numbers stay numbers, anything else its text)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)) or hasattr(value, "item"):
        item = value.item() if hasattr(value, "item") else value
        return item if isinstance(item, (int, float)) else value_key(item)
    return value_key(value)


def loaded_at(ds: Dataset) -> str:
    """When ``ds`` was loaded, ISO 8601 in UTC to the second (``2024-05-02T14:03:05+00:00``)."""
    return datetime.fromtimestamp(ds.loaded, timezone.utc).isoformat(timespec="seconds")


def dataset_json(ds: Dataset, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``Dataset`` answer of the JSON API (``runs``: the runs' summaries)."""
    with ds.state_lock:
        return _described(ds, runs)


def _described(ds: Dataset, runs: list[dict[str, Any]]) -> dict[str, Any]:
    columns = []
    for column, state in ds.columns.items():
        p = ds.profiles[column]
        examples = [_plain(v) for v in ds.frame[column].dropna().unique()[:_EXAMPLES]]
        columns.append(
            {
                "name": column,
                "type": p.type,
                "distinct": p.distinct,
                "unique_share": p.unique_share,
                "missing_share": p.missing_share,
                "examples": examples,
                "profile": p.describe(),
                "role": state.role.value,
                "reason": state.reason,
                "kind": state.kind,
                "missing": ds.missing(column),
                "hierarchy": state.hierarchy,
                "levels": ds.levels.get(column) if state.role is Role.QUASI else None,
            }
        )
    return {
        "id": ds.id,
        "version": ds.version,
        "name": ds.name,
        "rows": len(ds.frame),
        "loaded": loaded_at(ds),
        "read": read_block(ds.read),
        "read_warnings": [
            f"column {c!r} was read as text, but its values are numbers with a decimal comma "
            f"(e.g. {example!r}): load the file again with the decimal mark ','"
            for c, example in decimal_comma_columns(ds.frame).items()
        ]
        + missing_marker_warnings(
            ds.frame,
            "the workbench",
            "load the file again with {option} among the missing-value markers",
            coded="load the file again with {pairs} among the missing-value markers of single "
            "columns",
        ),
        "columns": columns,
        "lint": [
            {
                "column": f.column,
                "severity": "accepted" if f.accepted else "blocking",
                "kind": f.kind,
                "message": f.evidence,
                "acceptable": f.kind in ACCEPTABLE_KINDS,
                "remedy": f.remedy,
            }
            for f in ds.lint
        ],
        "lint_limited": ds.lint_limited,
        "lint_cautions": ds.lint_cautions,
        "accept": ds.accept,
        "left_out": ds.left_out(),
        "runs": runs,
    }
