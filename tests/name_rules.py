"""Which of ``microanon init``'s name rules a column name meets, as the init tests ask it."""

from __future__ import annotations

from microanon.apps.init.profile import normalized_name
from microanon.apps.init.roles import NAME_RULES


def rule_group(name: str) -> str | None:
    """The group of the first name rule that matches ``name`` (None: none)."""
    found = (r for r in NAME_RULES if r.pattern.search(normalized_name(name)))
    return next((r.group for r in found), None)
