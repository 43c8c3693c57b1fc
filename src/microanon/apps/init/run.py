"""``microanon init DATA``: profile a table, propose roles and hierarchies, write a config.

The steps: read the table (:func:`read_data`, the one place init reads its input), profile its
columns (:mod:`.profile`), propose a role per column (:mod:`.roles`, the schema lint
included), let the user decide (a callback: the terminal dialogue of :mod:`.dialogue`, or
accepting the proposal), propose the hierarchies (:mod:`.hierarchies`), check the resulting
schema against the data as ``microanon anonymize`` will, and write the commented config and the
hierarchy files (:mod:`.render`, :mod:`.files`).
"""

from __future__ import annotations

import io
import math
import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.factorize import shared_codes
from ...core.hierarchy import SUPPRESSED, Hierarchy
from ...core.lint import COPY_KIND, Finding, lint_schema
from ...core.reading import ReadOptions, decimal_comma_columns, missing_marker_warnings
from ...core.repetition import fractional_values, repetition
from ...core.schema import Role, Schema
from ...methods.generalize.searches import DEFAULT_TIME_LIMIT, MAX_NODES, SearchChoice, node_count
from ..io import (
    SAME_PACKAGE,
    categories_entry,
    order_entries,
    read_table,
    value_label_categories,
)
from ..panel import GROUPS, repeated_ids
from .answer_words import missing_answer_warnings
from .blocks import block_code_warnings
from .files import check_targets, sign, write_files
from .hierarchies import HierarchyPlan, arx_csv
from .keys import HierarchyPlans
from .numbers import PANEL_RULE
from .people import numbers_people, thing_id
from .profile import ColumnProfile, profile_table
from .render import ColumnEntry, render_config
from .roles import NAME_RULES, Proposal, propose_roles

__all__ = [
    "HIERARCHY_DIR",
    "K",
    "L_MAX",
    "Decide",
    "InitResult",
    "format_result",
    "hierarchy_file_names",
    "missing_policy",
    "read_block",
    "read_data",
    "run_init",
    "safe_stem",
]

#: The k of the proposed k-anonymity.
K = 5
#: The largest ℓ of the proposed distinct ℓ-diversity (lower when the column has fewer values).
L_MAX = 3
#: Directory of the hierarchy files, beside the config.
HIERARCHY_DIR = "hierarchies"
#: The note on a column whose categories are the data file's value labels.
LABELS_NOTE = (
    "categories: the file's value labels (its codebook), public by your statement: a release "
    "may name a category no published row holds; remove them if the codebook is not public"
)

#: The note on a column whose order is the data file's (an ordered categorical).
ORDER_NOTE = (
    "kind ordinal, order: the file declares the column ordered (an ordered factor), and this is "
    "its order, lowest first, values no row holds included; public by the file's statement, as "
    "a codebook: a release may name them (t-closeness's ordered distance lists them); write "
    "kind: categorical instead to treat the column as unordered"
)

#: Decides the roles from the proposal: ``(proposals, profiles) -> proposals``.
Decide = Callable[[list[Proposal], Sequence[ColumnProfile]], list[Proposal]]


@dataclass(frozen=True)
class InitResult:
    """What ``microanon init`` wrote and what to do next.

    Attributes
    ----------
    config : Path
    hierarchy_files : list of Path
    proposals : list of Proposal
        The roles written, one per column.
    command : str
        The command that runs the config.
    warnings : list of str
        What stands between the config and a release (lint findings on roles the user chose,
        no quasi-identifier, ...).
    """

    config: Path
    hierarchy_files: list[Path]
    proposals: list[Proposal]
    command: str
    warnings: list[str] = field(default_factory=list)


def read_data(path: str | os.PathLike[str], read: ReadOptions | None = None) -> pd.DataFrame:
    """Read the table init profiles (CSV, Parquet, Feather, SPSS, Stata or SAS, as ``anonymize``
    reads ``data:``).

    ``read``: how to read a CSV file (delimiter, encoding, decimal mark, quote, missing-value
    markers); the config init writes repeats it in its ``read:`` block.

    Raises
    ------
    InputError
        A missing or unreadable file, a table without rows or columns, infinite numbers.
    """
    frame = read_table(path, options=read)
    frame.columns = [str(c) for c in frame.columns]
    if frame.shape[1] == 0 or len(frame) == 0:
        raise InputError(f"{path}: the table has no rows; init needs data to profile")
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_float_dtype(col) and np.isinf(col.to_numpy()).any():
            raise InputError(
                f"{path}: column {c!r} holds infinite values; replace them, or leave the cells "
                "empty to make them missing, before init"
            )
    return frame


def safe_stem(text: str, default: str) -> str:
    """``text`` reduced to letters, digits and ``._-`` (others become ``_``), or ``default``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or default


def hierarchy_file_names(columns: Sequence[str]) -> dict[str, str]:
    """A distinct hierarchy file (relative to the config) per column, safe on any file system."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for c in columns:
        stem = safe_stem(c, "column")
        name, i = stem, 2
        while name.lower() in taken:
            name, i = f"{stem}_{i}", i + 1
        taken.add(name.lower())
        out[c] = f"{HIERARCHY_DIR}/{name}.csv"
    return out


def missing_policy(profile: ColumnProfile, role: Role) -> tuple[str | None, str | None]:
    """The missing-value policy of a column and the note saying what it does.

    The schema's defaults, said out loud: a quasi-identifier's missing value is the value ``?``
    (``missing: value``), any other column keeps its empty cells (``missing: keep``; a
    sensitive column's unknown values count toward no model). No row is left out.
    """
    if not profile.has_missing or not role.published:
        return None, None
    n = round(profile.missing_share * profile.rows)
    if role is Role.QUASI:
        return "value", f"the {n:,} missing values are the value ? (missing: value)"
    return "keep", f"the {n:,} missing values stay empty (missing: keep)"


def _entries(
    data: pd.DataFrame,
    profiles: Sequence[ColumnProfile],
    proposals: Sequence[Proposal],
    findings: Sequence[Finding],
    declared: Mapping[str, tuple[str, ...]] | None = None,
    plans: HierarchyPlans | None = None,
    orders: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[list[ColumnEntry], dict[str, Hierarchy]]:
    """The schema entries with their comments (the lint's ``findings`` among the notes), and
    the hierarchies to write by file name; ``declared``: the file's value labels by column
    (:func:`~microanon.apps.io.value_label_categories`), written as ``categories``;
    ``orders``: the orders of its ordered categorical columns
    (:func:`~microanon.apps.io.order_entries`), written as ``kind: ordinal`` and ``order``;
    ``plans``: the quasi-identifiers' hierarchies planned already for the key ranking (with
    the same ``declared`` and ``orders``)."""
    declared = dict(declared or {})
    orders = dict(orders or {})
    plans = plans if plans is not None else HierarchyPlans(data, profiles, declared, orders)
    by_name = {p.name: p for p in profiles}
    names = hierarchy_file_names([p.column for p in proposals if p.role is Role.QUASI])
    entries, files = [], {}
    for p in proposals:
        profile = by_name[p.column]
        entry: dict[str, Any] = {"role": p.role.value}
        order = orders.get(p.column) if p.role is not Role.IDENTIFIER else None
        if order is not None:
            entry.update(kind="ordinal", order=list(order))
        elif p.role is not Role.IDENTIFIER and profile.type == "numeric":
            entry["kind"] = "numeric"
        missing, note = missing_policy(profile, p.role)
        plan: HierarchyPlan | None = None
        if p.role is Role.QUASI:
            plan = plans.plan(p.column, missing_leaf=missing == "value")
            if plan.hierarchy is not None:
                files[names[p.column]] = plan.hierarchy
                entry["hierarchy"] = names[p.column]
            else:
                entry["hierarchy"] = plan.spec
        if missing is not None:
            entry["missing"] = missing
        labels = None
        if p.role is not Role.IDENTIFIER:
            labels = categories_entry(declared, data, p.column, missing)
        if labels is not None and "kind" not in entry:
            entry["categories"] = labels
        entries.append(
            ColumnEntry(
                p.column,
                entry,
                profile.describe(),
                f"role {p.role.value}: {p.reason}",
                None if plan is None else plan.how,
                ([] if note is None else [note])
                + ([UNNAMED_NOTE.format(name=p.column)] if _UNNAMED.fullmatch(p.column) else [])
                + ([LABELS_NOTE] if "categories" in entry else [])
                + ([ORDER_NOTE] if "order" in entry else [])
                + [
                    f"schema lint: {f.kind}: {f.evidence}" for f in findings if f.column == p.column
                ],
            )
        )
    return entries, files


#: How pandas names a column whose header field is empty (``Unnamed: 5``, 0-based).
_UNNAMED = re.compile(r"Unnamed: \d+")
#: The note beside such a column: the name it is published under is pandas', not the file's.
UNNAMED_NOTE = (
    "a column without a name in the file's header is read as {name!r}, the name the release "
    "publishes it under; name it in the file to choose another"
)


def _models(
    proposals: Sequence[Proposal], profiles: Sequence[ColumnProfile]
) -> tuple[list[tuple[dict[str, Any], str]], list[str]]:
    """The ``models:`` entries with their comments, and warnings."""
    rows = max((p.rows for p in profiles), default=0)
    k = min(K, rows) if rows >= 2 else K  # (k = 5 on fewer rows: more than anonymize accepts)
    fewer = f" (the file has {rows} rows: k = {K} would need more)" if k < K else ""
    models = [
        (
            {"k_anonymity": {"k": k}},
            f"every combination of quasi-identifier values published is shared by at least {k} "
            f"records{fewer}",
        )
    ]
    sensitive = [p.column for p in proposals if p.role is Role.SENSITIVE]
    by_name = {p.name: p for p in profiles}
    if len(sensitive) == 1 and by_name[sensitive[0]].distinct >= 2:
        col = sensitive[0]
        ell = min(L_MAX, by_name[col].distinct)
        # (carData's SLID: a class of four wages from 16.25 to 19.19 is 3-diverse)
        close = (
            "; of a number, they may lie close together (t_closeness bounds how far a class's "
            "values are from the whole file's)"
            if by_name[col].type == "numeric"
            else ""
        )
        models.append(
            (
                {"l_diversity": {"l": ell, "form": "distinct"}},
                f"on {col}: every class holds at least {ell} distinct known values of it, or "
                f"none (an unknown value counts toward no model){close}",
            )
        )
        return models, []
    if len(sensitive) > 1:
        return models, [
            f"{len(sensitive)} sensitive columns ({', '.join(sensitive)}): full_domain's "
            "l-diversity protects one, so none is claimed and they are published with their "
            "records under k-anonymity only; to claim it for one, give the others another role, "
            "or use mixed_model or rating for several"
        ]
    return models, []


def _repeated_ids(
    proposals: Sequence[Proposal], profiles: Sequence[ColumnProfile], data: pd.DataFrame
) -> list[str]:
    """A warning per column that may number people who have several records (a panel, a long
    file), where k counts records, not people: an identifier (by its name, by its values as a
    code or a balanced panel's unit id, as ``anonymize`` tells one that may number people,
    :func:`~.people.numbers_people`: not a school's code by its name alone, or dropped for
    holding more than the sensitive column it gives back) whose values repeat, or a
    quasi-identifier the schema lint made one because it tells another (as a person's id
    tells everything constant about them) whose many values each hold about as many rows
    (:func:`_groups_rows`). A column with decimals numbers nobody: a measure of a state in a
    year repeats on the state's and year's records without being anyone's id."""
    by_name = {p.name: p for p in profiles}
    out = []
    for p in proposals:
        profile = by_name[p.column]
        numbered = p.rule == "name" and NAME_RULES[0].group in p.reason
        numbered = numbered and not thing_id(p.column)  # (a film's id numbers no one)
        if p.role is Role.IDENTIFIER and p.rule in ("id-code", PANEL_RULE):
            numbered = numbers_people(p.column, repetition(data[p.column]))
        elif p.role is Role.IDENTIFIER and p.rule == f"lint:{COPY_KIND}":
            numbered = not repetition(data[p.column]).fractional
        if p.role is Role.IDENTIFIER and numbered:
            out += repeated_ids(data, [p.column])  # (anonymize's warning, its numbers)
        elif p.role is Role.QUASI and p.rule.startswith("lint:determines"):
            rows = _groups_rows(data[p.column])
            if rows is None:
                continue
            each = f"{rows[0]:,}" if rows[0] == rows[1] else f"{rows[0]:,} to {rows[1]:,}"
            out.append(
                f"{p.column!r}, a quasi-identifier because it tells another (the schema lint), "
                f"has {profile.distinct:,} values on {each} rows each: if it "
                "numbers people (a panel), a person has several records here, and published "
                "as it is it makes each class one person's records, which k counts one by one; "
                "give it role identifier then, and keep one record per person for k to count "
                "people"
            )
    return out


def _household_without_weight(proposals: Sequence[Proposal]) -> list[str]:
    """The warning on a household id without a sampling weight: the household risk (the
    only use of the id) needs one, so anonymize only leaves the id out of the release."""
    if any(p.role is Role.WEIGHT for p in proposals):
        return []
    return [
        f"{p.column!r} has role household, but no column has role weight: the household risk "
        "needs a sampling weight, so anonymize measures none and only leaves the household id "
        "out of the release (name the weight with --weights)"
        for p in proposals
        if p.role is Role.HOUSEHOLD
    ]


def _groups_rows(column: pd.Series) -> tuple[int, int] | None:
    """The fewest and most rows a value of ``column`` holds, when it looks like the id of
    groups of records, such as a panel's person id: at least :data:`_GROUPS` values, none with
    decimals, each on two rows or more, their rows varying little (a coefficient of variation
    of at most :data:`_EVEN`; a region's or a county's rows vary far more); else None."""
    counts = column.value_counts(dropna=True)
    if len(counts) < _GROUPS or counts.min() < 2 or fractional_values(counts.index):
        return None
    if counts.std(ddof=0) > _EVEN * counts.mean():
        return None
    return int(counts.min()), int(counts.max())


#: Fewest values of a column :func:`_groups_rows` takes for an id of groups of records.
_GROUPS = GROUPS
#: Largest coefficient of variation of the rows per value of such an id.
_EVEN = 0.5


def _check_schema(
    data: pd.DataFrame, entries: Sequence[ColumnEntry], texts: dict[str, str]
) -> list[str]:
    """Check the schema as written against the data, hierarchy files read back from their text.

    Missing values follow the columns' policies (the schema's defaults lose no row); where a
    policy is ``error``, the other checks run on the rows with a value and the warning returned
    says which columns ``anonymize`` will refuse.

    Returns
    -------
    list of str
        Warnings (columns whose missing values their policy refuses).

    Raises
    ------
    InputError
        A value outside its hierarchy, a non-numeric value in a numeric column, ... (what
        ``anonymize`` would refuse).
    """
    spec = {}
    for e in entries:
        desc = dict(e.entry)
        if isinstance(desc.get("hierarchy"), str):
            source = io.StringIO(texts[desc["hierarchy"]])
            desc["hierarchy"] = Hierarchy.from_arx_csv(source, name=e.column)
        spec[e.column] = desc
    schema = Schema.from_dict(spec)
    refused = [
        a.name
        for a in schema
        if a.role.published and a.missing_policy == "error" and data[a.name].isna().any()
    ]
    rows = data.dropna(subset=refused) if refused else data
    if len(rows) == 0:
        raise InputError(
            f"no row has a value in every one of {', '.join(refused)}: set a missing: policy "
            "for them, or drop them, before anonymize"
        )
    resolved = schema.resolve(rows)
    resolved.validate(rows)
    out = []
    nodes = math.prod(resolved.hierarchy(q).n_levels for q in resolved.quasi)
    if nodes > MAX_NODES:
        search = SearchChoice("auto", None, None).kind(nodes, len(resolved.quasi))
        out.append(
            f"the {len(resolved.quasi)} quasi-identifiers make a generalization lattice of "
            f"{node_count(nodes)} nodes, more than full_domain's exact search handles "
            f"({MAX_NODES:,}): anonymize runs the {search} search (a heuristic) for up to "
            f"{DEFAULT_TIME_LIMIT:.0f} s and says the levels are the best found, not proven "
            "optimal (set params: time_limit for a longer search)"
        )
    if refused:
        remedies = "; ".join(f"{c}: missing: {schema[c].missing_remedy}" for c in refused)
        out.append(
            f"{', '.join(refused)} have missing values and missing: error refuses them: "
            f"anonymize will refuse the file until you set another policy ({remedies}), or "
            "fill them"
        )
    return out


def _lint(data: pd.DataFrame, proposals: Sequence[Proposal]) -> tuple[list[Finding], list[str]]:
    """What the lint and full_domain will refuse in the roles as decided: the lint's findings
    (none unless the user changed a role) and the warnings to print (also a dependency scan
    limited by its budget)."""
    schema = Schema.from_dict({p.column: p.role.value for p in proposals})
    report = lint_schema(data, schema)
    findings = report.findings
    out = [f"schema lint: {f}; anonymize refuses it until you {f.remedy}" for f in findings]
    out.extend(f"schema lint: {alert}" for alert in report.alerts)
    if not schema.quasi:
        out.append(
            "no quasi-identifier: anonymize refuses a schema without one, whatever the method; "
            "give the columns an attacker can know role quasi and a hierarchy"
        )
    return findings, out


def _relative(path: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive
        return path.resolve().as_posix()


def _starred(frame: pd.DataFrame) -> list[str]:
    """The text columns holding the value ``*`` itself (a release's suppressed value)."""
    out = []
    for column in frame.columns:
        col = frame[column]
        if not pd.api.types.is_numeric_dtype(col) and bool((col == SUPPRESSED).any()):
            out.append(str(column))
    return out


def read_block(read: ReadOptions | None) -> dict[str, Any]:
    """The options of ``read`` that differ from the defaults, as the config's ``read:`` block
    (with ``na_values`` and ``column_na_values``, which the config writes as top-level keys)."""
    if read is None:
        return {}
    default = ReadOptions()
    out: dict[str, Any] = {}
    for name in ("sep", "encoding", "decimal", "quotechar", "na_values", "sheet"):
        value = getattr(read, name)
        if value != getattr(default, name):
            out[name] = list(value) if name == "na_values" else value
    if read.by_column:
        out["column_na_values"] = {c: list(m) for c, m in read.by_column.items()}
    return out


def run_init(
    data: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    decide: Decide | None = None,
    read: ReadOptions | None = None,
    roles: Mapping[str, Role] | None = None,
) -> InitResult:
    """Profile ``data``, propose roles and hierarchies, and write the config ``out``.

    Parameters
    ----------
    data : path
        A CSV, Parquet, Feather, SPSS, Stata or SAS file.
    out : path
        The config to write; hierarchy files go to ``hierarchies/`` beside it.
    overwrite : bool
        Replace files an earlier ``init`` wrote there and nobody changed since; never others.
    decide : callable, optional
        Gets the proposed roles and the profiles and returns the roles to write (the terminal
        dialogue); default: the proposal.
    read : ReadOptions, optional
        How to read a CSV file; written to the config's ``read:`` block when not the default.
    roles : mapping of str to Role, optional
        Roles the data owner states (``--quasi``, ``--sensitive``, ...): they replace the
        proposed ones (the lint may still change them).

    Returns
    -------
    InitResult

    Raises
    ------
    InputError
        Unreadable or empty data; an existing target that may not be replaced; a schema that
        does not fit the data; a stated role for a column the data does not have.
    """
    data, out = Path(data), Path(out)
    check_targets(out, {}, overwrite)  # a bad --out fails before the data are read
    frame = read_data(data, read)
    starred = _starred(frame)
    if starred:  # the value a release writes for a suppressed one: read as a missing value
        # (na_values applies to every format: a CSV file's fields, a typed file's cells)
        read = replace(
            read or ReadOptions(), na_values=(*(read or ReadOptions()).na_values, SUPPRESSED)
        )
        frame = read_data(data, read)
    unknown = [c for c in roles or {} if c not in frame.columns]
    if unknown:
        raise InputError(
            f"column {unknown[0]!r} is not in {data.name} (its columns: "
            f"{', '.join(map(str, frame.columns))})"
        )
    # Profile, proposal, lint, ranking and schema check code the same columns: each once.
    with shared_codes():
        profiles = profile_table(frame)
        declared = value_label_categories(data, frame)
        orders = order_entries(frame)
        # each quasi-identifier's hierarchy planned once, for the ranking and the config
        plans = HierarchyPlans(frame, profiles, declared, orders)
        proposals = propose_roles(frame, profiles, levels=plans.levels, stated=roles, k=K)
        if decide is not None:
            proposals = decide(proposals, profiles)
        findings, warnings = _lint(frame, proposals)
        warnings += [
            f"column {c!r} holds the value {SUPPRESSED}, which a release writes for a suppressed "
            f"value: init reads it as a missing value (na_values: ['{SUPPRESSED}'] in the "
            "config); recode it in the file if it is an answer"
            for c in starred
        ]
        warnings += [
            f"column {c!r} was read as text, but its values are numbers with a decimal comma "
            f"(e.g. {example!r}): read the file with --decimal , (in the config: read: "
            "{decimal: ','}) and run init again"
            for c, example in decimal_comma_columns(frame).items()
        ]
        warnings += missing_marker_warnings(
            frame,
            "init",
            "run init again with --na-values {option} (in the config: na_values: [{marker}])",
            # (a survey's codes mark its missing answers in these columns, maybe values in
            # others: 98 hours worked beside the 98 of an unknown number of children)
            coded="run init again with {options} (in the config: column_na_values: {entries})",
        )
        warnings += missing_answer_warnings(frame)
        warnings += block_code_warnings(frame)
        entries, hierarchies = _entries(
            frame, profiles, proposals, findings, declared, plans, orders
        )
        texts = {rel: arx_csv(h) for rel, h in hierarchies.items()}
        warnings += _check_schema(frame, entries, texts)
        models, more = _models(proposals, profiles)
        warnings += more + _repeated_ids(proposals, profiles, frame)
        warnings += _household_without_weight(proposals)
    release = out.with_name(f"{out.stem}-release")
    text = render_config(
        data=_relative(data, out.parent),
        read=read_block(read),
        source=data.name,
        rows=len(frame),
        columns=entries,
        models=models,
        command=f"microanon anonymize --config {shlex.quote(out.name)} "
        f"--out {shlex.quote(release.name)}",
        output=SAME_PACKAGE.get(data.suffix.lower()),
    )
    check_targets(out, {rel: body.encode("utf-8") for rel, body in texts.items()}, overwrite)
    files = {out.parent / rel: body for rel, body in texts.items()}
    files[out] = sign(text, out.name, texts)
    write_files(files)
    return InitResult(
        config=out,
        hierarchy_files=[out.parent / rel for rel in texts],
        proposals=list(proposals),
        command=f"microanon anonymize --config {shlex.quote(str(out))} "
        f"--out {shlex.quote(str(release))}",
        warnings=warnings,
    )


def format_result(result: InitResult) -> str:
    """What init wrote and the next command, for the terminal."""
    roles = {r: sum(p.role is r for p in result.proposals) for r in Role}
    n_files = len(result.hierarchy_files)
    where = (
        f" and {n_files} hierarchy file(s) in {result.config.parent / HIERARCHY_DIR}"
        if (n_files)
        else ""
    )
    return "\n".join(
        [
            f"wrote {result.config}{where}",
            f"roles: {roles[Role.QUASI]} quasi-identifier(s), {roles[Role.SENSITIVE]} "
            f"sensitive, {roles[Role.INSENSITIVE]} insensitive, {roles[Role.IDENTIFIER]} "
            "identifier(s) (dropped)"
            + "".join(
                f", {roles[r]} {r.value}"
                for r in (Role.WEIGHT, Role.HOUSEHOLD, Role.STRATA)
                if roles[r]
            ),
            (
                f"next: check the proposal in {result.config} (the comments say why each "
                "column has its role), then run"
                if roles[Role.QUASI]
                else f"next: give the columns an attacker can know role quasi in "
                f"{result.config} (anonymize refuses a schema without one), then run"
            ),
            f"  {result.command}",
        ]
    )
