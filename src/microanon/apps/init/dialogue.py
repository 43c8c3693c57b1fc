"""The terminal side of ``microanon init``: the table of proposed roles and the questions."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from ...core.schema import Role
from .items import ITEM_RULES
from .profile import ColumnProfile
from .roles import Proposal, with_role

__all__ = ["ask_roles", "decisions", "roles_table", "show_roles", "stdin_is_terminal"]

_ROLES = [r.value for r in Role]


def stdin_is_terminal() -> bool:
    """Whether someone can answer questions: standard input is a terminal."""
    return sys.stdin.isatty()


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def roles_table(proposals: Sequence[Proposal], profiles: Sequence[ColumnProfile]) -> str:
    """The proposal as a text table: column, type, distinct, unique, missing, role, rule."""
    by_name = {p.name: p for p in profiles}
    width = max([len("column"), *(min(len(p.column), 24) for p in proposals)])
    lines = [
        f"{'column':<{width}}  {'type':<11}  {'distinct':>8}  {'unique':>6}  {'missing':>7}  "
        f"{'role':<11}  rule"
    ]
    for p in proposals:
        f = by_name[p.column]
        lines.append(
            f"{_clip(p.column, 24):<{width}}  {f.type:<11}  {f.distinct:>8,}  "
            f"{f.unique_share:>6.1%}  {f.missing_share:>7.1%}  {p.role.value:<11}  {p.rule}"
        )
    return "\n".join(lines)


def decisions(proposals: Sequence[Proposal]) -> str:
    """What was decided for each column and why: one line per column."""
    return "\n".join(f"{p.column}: {p.role.value}: {p.reason}" for p in proposals)


def show_roles(proposals: list[Proposal], profiles: Sequence[ColumnProfile]) -> list[Proposal]:
    """Print the proposal and accept it as it is (``--yes``, or no terminal)."""
    click.echo(roles_table(proposals, profiles))
    click.echo(decisions(proposals))
    return proposals


def _ask_items(proposals: list[Proposal]) -> list[Proposal]:
    """Ask whether the columns proposed sensitive from their values are; if not, their roles."""
    items = [p for p in proposals if p.role is Role.SENSITIVE and p.rule in ITEM_RULES]
    if not items:
        return proposals
    click.echo(
        f"{len(items)} column(s) look like answers to opinion questions, proposed sensitive: "
        + ", ".join(p.column for p in items)
    )
    if click.confirm("Are they sensitive?", default=True):
        return proposals
    chosen = {}
    for p in items:
        click.echo(f"{p.column}: {p.reason}")
        answer = click.prompt(
            f"  role of {p.column}",
            type=click.Choice(_ROLES),
            default=p.role.value,
            show_choices=True,
        )
        chosen[p.column] = with_role(p, Role(answer))
    return [chosen.get(p.column, p) for p in proposals]


def ask_roles(proposals: list[Proposal], profiles: Sequence[ColumnProfile]) -> list[Proposal]:
    """Print the proposal and ask whether to keep it; if not, ask for each column's role.

    First, when columns were proposed sensitive from their values (rating scales, answer
    labels, yes/no items), whether they are. Each question shows the reason for the proposed
    role and defaults to it.

    Returns
    -------
    list of Proposal
        The roles chosen (rule ``user`` where the answer changed one).
    """
    click.echo(roles_table(proposals, profiles))
    click.echo(decisions(proposals))
    proposals = _ask_items(proposals)
    if click.confirm("Use these roles?", default=True):
        return proposals
    chosen = []
    for p in proposals:
        click.echo(f"{p.column}: {p.reason}")
        answer = click.prompt(
            f"  role of {p.column}",
            type=click.Choice(_ROLES),
            default=p.role.value,
            show_choices=True,
        )
        chosen.append(with_role(p, Role(answer)))
    return chosen
