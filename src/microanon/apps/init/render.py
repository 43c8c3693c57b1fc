"""The text of the commented YAML config that ``microanon init`` writes.

The config has the shape of :mod:`microanon.apps.config`; every column's entry is preceded by
comments with its profile, the reason for its role and what its hierarchy is.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from ...core.statistical_files import STATISTICAL

__all__ = ["ColumnEntry", "render_config", "yaml_flow"]

_WIDTH = 99


@dataclass(frozen=True)
class ColumnEntry:
    """One column of the config: its schema entry and the comments above it.

    Attributes
    ----------
    column : str
    entry : dict
        The schema entry (``role``, ``kind``, ``hierarchy``, ``missing``).
    profile : str
        The profile line.
    reason : str
        Why the column has its role.
    how : str or None
        What its hierarchy is.
    notes : sequence of str
        Further remarks (missing values, lint findings).
    """

    column: str
    entry: dict[str, Any]
    profile: str
    reason: str
    how: str | None = None
    notes: Sequence[str] = field(default_factory=tuple)


def _scalar(value: str) -> str:
    """``value`` as a YAML scalar on one line (quoted when needed)."""
    text = yaml.safe_dump(value, width=10**9, default_flow_style=True)
    text = text.removesuffix("\n").removesuffix("\n...").rstrip("\n")
    return json.dumps(value, ensure_ascii=False) if "\n" in text else text


def yaml_flow(value: Any) -> str:
    """``value`` (plain data) as one line of YAML flow style, keys in their order."""
    if isinstance(value, str):
        return _scalar(value)
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, sort_keys=False)
    return text.removesuffix("\n").removesuffix("\n...").rstrip("\n")


def _comment(text: str, indent: str, first: str = "", then: str = "    ") -> list[str]:
    """``text`` as ``#`` comment lines of at most :data:`_WIDTH` characters."""
    flat = " ".join(str(text).split())
    lines = textwrap.wrap(
        flat,
        width=_WIDTH,
        initial_indent=f"{indent}# {first}",
        subsequent_indent=f"{indent}# {then}",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return lines or [f"{indent}#"]


def render_config(
    *,
    data: str,
    read: Mapping[str, Any],
    source: str,
    rows: int,
    columns: Sequence[ColumnEntry],
    models: Sequence[tuple[dict[str, Any], str]],
    command: str,
    method: str = "full_domain",
    params: Mapping[str, Any] | None = None,
    intro: Sequence[str] | None = None,
    steps: Sequence[Mapping[str, Any]] | None = None,
    output: str | None = None,
) -> str:
    """The config text, without the manifest line (see :func:`~microanon.apps.init.files.sign`).

    Parameters
    ----------
    data : str
        The ``data:`` value (a path relative to the config).
    read : mapping
        How the CSV file was read (:class:`~microanon.core.reading.ReadOptions` fields that are
        not the defaults): the ``read:`` block, and ``na_values`` and ``column_na_values`` as
        top-level keys.
    source : str
        The data file's name, for the header.
    rows : int
    columns : sequence of ColumnEntry
    models : sequence of (model, comment)
        Each ``{name: params}`` entry of ``models:`` and the comment after it.
    command : str
        The command that runs the config.
    method : str, default "full_domain"
    params : mapping, optional
        The method's parameters; default init's proposal for full_domain (at most 5%
        suppressed, the loss metric minimized).
    intro : sequence of str, optional
        The opening comment's paragraphs; default init's (a proposal to check).
    steps : sequence of mappings, optional
        ``{"method", "params"}`` per step: written as ``steps:`` instead of ``method:`` and
        ``params:`` (``models`` must then be empty).
    output : str, optional
        The format of the published tables, ``sav`` or ``dta``: written as ``output:`` (the
        input's package, whose users would read the release too); default none, CSV.
    """
    csv = {k: v for k, v in read.items() if k not in ("na_values", "column_na_values")}
    na_values = read.get("na_values")  # a top-level key of the config, not one of read:
    by_column = read.get("column_na_values")  # (so is this one)
    if intro is None:
        intro = (
            f"microanon init: a proposed anonymization of {source} ({rows:,} rows, "
            f"{len(columns)} columns).",
            "It is a proposal from the column names and values, not a decision: check every "
            "role and hierarchy below before you publish. What an attacker can know about the "
            "people in the data is for you, the data owner, to judge.",
        )
    out = [
        *(line for paragraph in intro for line in _comment(paragraph, "", then="")),
        *_comment(
            "Roles: identifier (dropped), quasi (known to others: generalized), sensitive "
            "(published with its record, protected by the models on sensitive columns), "
            "insensitive (published unchanged; the schema lint checks it), and a survey's "
            "design: weight (published unchanged; the risk measures use it when its values are "
            "at least 1), household (never "
            "published), strata (published unchanged; linted). Hierarchies written {builder: ...} "
            "are built from the data when "
            "anonymize runs; files under hierarchies/ are ARX CSVs (value;level 1;...;*) to "
            "edit.",
            "",
            then="",
        ),
        "# Run it with:",
        f"#   {command}",
        f"data: {_scalar(data)}",
        *(
            [f"na_values: {yaml_flow(list(na_values))}   # missing-value markers"]
            if na_values
            else []
        ),
        *(
            [
                f"column_na_values: {yaml_flow(dict(by_column))}   # missing-value markers of "
                "single columns"
            ]
            if by_column
            else []
        ),
        *([f"read: {yaml_flow(csv)}   # how the CSV file is read"] if csv else []),
        *(
            [
                f"output: {yaml_flow({'format': output})}   # the published tables as "
                f"{STATISTICAL[output]} files, as the input is (formats: csv, parquet, sav, dta)"
            ]
            if output
            else []
        ),
        "schema:",
    ]
    for c in columns:
        out += _comment(f"{c.column}: {c.profile}", "  ")
        out += _comment(c.reason, "  ")
        if c.how is not None:
            out += _comment(c.how, "  ", "hierarchy: ")
        for note in c.notes:
            out += _comment(note, "  ", "note: ")
        out.append(f"  {_scalar(c.column)}: {yaml_flow(c.entry)}")
    if steps:
        out.append("steps:")
        out += [
            f"  - {yaml_flow({'method': s['method'], 'params': dict(s.get('params') or {})})}"
            for s in steps
        ]
    elif method == "full_domain" and params is None:
        out += [
            "method: full_domain   # optimal full-domain generalization: a level per "
            "quasi-identifier",
            "params: {suppression: 0.05, metric: lm}   # suppress at most 5% of the records; "
            "minimize the loss metric",
        ]
    else:
        out += [f"method: {_scalar(method)}", f"params: {yaml_flow(dict(params or {}))}"]
    if models:
        out.append("models:")
    for model, note in models:
        # (an entry may name several models, as a config may: each is written as its own)
        out += [f"  - {_scalar(name)}: {yaml_flow(params)}" for name, params in model.items()]
        if note:
            out += _comment(note, "    ")
    return "\n".join(out) + "\n"
