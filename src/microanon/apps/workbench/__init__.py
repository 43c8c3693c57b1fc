"""``microanon app``: the workbench, a local web application for the whole job on one's own file.

Load a table (:mod:`.datasets`), set roles and hierarchies (:mod:`.hierarchies`), see the
original's risk, run configurations as ``microanon anonymize`` runs them (:mod:`.runs`) and
compare them (:mod:`.summaries`), download the public part, the internal part and the config
that reproduces the release (:mod:`.downloads`). :mod:`.app` holds the HTTP routes,
:mod:`.state` what one process holds, :mod:`.catalog` the methods and models with their
parameters in words, :mod:`.serve` the command.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
