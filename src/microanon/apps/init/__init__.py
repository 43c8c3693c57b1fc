"""``microanon init DATA``: a first anonymization config proposed from the data.

Profiles the columns (:mod:`.profile`), proposes a role per column with the rule that fired
(:mod:`.roles`), hierarchies for the quasi-identifiers (:mod:`.hierarchies`), and writes a
commented YAML config that ``microanon anonymize`` runs as is (:mod:`.render`, :mod:`.files`);
on a terminal the user confirms or changes the roles (:mod:`.dialogue`). :mod:`.run` ties the
steps together, imported on first use: a command that needs one of init's rules (``anonymize``
names a repeating person id with :func:`.people.person_ids`) imports that module alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.lazy import lazy_exports

if TYPE_CHECKING:
    from .run import InitResult, format_result, read_data, run_init

__all__ = ["InitResult", "format_result", "read_data", "run_init"]

__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(__all__, "run"))
