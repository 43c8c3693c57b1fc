"""The papers whose experiments microanon reproduces, by the command that runs them.

Each paper's subpackage declares its :class:`~microanon.reproductions.paper.Paper` in its
``__init__`` (nothing heavy is imported here: the command line lists the papers from this
module); ``microanon reproduce COMMAND`` runs it through
:func:`microanon.reproductions.runner.run`.
"""

from __future__ import annotations

from microanon.reproductions.collection import PAPER as COLLECTION
from microanon.reproductions.distribution import PAPER as DISTRIBUTION
from microanon.reproductions.multisa import PAPER as MULTISA
from microanon.reproductions.paper import Paper
from microanon.reproductions.randomization import PAPER as RANDOMIZATION

__all__ = ["PAPERS"]

#: Command -> paper, in the order of ``microanon reproduce --help`` and of the demo's summary.
PAPERS: dict[str, Paper] = {
    p.command: p for p in (RANDOMIZATION, DISTRIBUTION, MULTISA, COLLECTION)
}
