"""``microanon init DATA``: a first anonymization config proposed from the data.

Profiles the columns (:mod:`.profile`), proposes a role per column with the rule that fired
(:mod:`.roles`), hierarchies for the quasi-identifiers (:mod:`.hierarchies`), and writes a
commented YAML config that ``microanon anonymize`` runs as is (:mod:`.render`, :mod:`.files`);
on a terminal the user confirms or changes the roles (:mod:`.dialogue`). :mod:`.run` ties the
steps together.
"""

from __future__ import annotations

from .run import InitResult, format_result, read_data, run_init

__all__ = ["InitResult", "format_result", "read_data", "run_init"]
