"""The demo's section "The papers, reproduced": one row per reproduced paper.

The reproductions take minutes even with ``--quick``, so the demo does not run them: it reads the
runs written earlier under the directory given by ``microanon demo --reproductions DIR``, read
by :func:`~microanon.apps.demo.run_demo` before any section
(:func:`~microanon.reproductions.papers.read_runs`), and says so in the section.
"""

from __future__ import annotations

from collections.abc import Callable

from ..reproductions.papers import papers_table
from .demo_context import DemoContext
from .report import Report

__all__ = ["PAPERS_SECTIONS"]

_HOW = (
    "Each reproduction runs its paper's experiments and checks the paper's numbers against ours "
    "(microanon reproduce NAME; its report.html has the full findings table). They take minutes, "
    "so the demo does not run them: it reads the results.json of earlier runs, written by "
    "'microanon reproduce NAME --out DIR/NAME' (NAME: randomization, collection, multisa, "
    "distribution), from the directory given by 'microanon demo --reproductions DIR'."
)


def _papers_section(report: Report, ctx: DemoContext) -> None:
    if ctx.reproductions is None or ctx.reproduction_runs is None:
        sec = report.section("The papers, reproduced", _HOW)
        sec.paragraph("No --reproductions directory was given, so there are no results to show.")
        return
    sec = report.section(
        "The papers, reproduced",
        _HOW + f" Read from {ctx.reproductions}.",
    )
    sec.table(
        papers_table(ctx.reproduction_runs),
        caption="Checks passing per paper, failures on the reviewed list of expected deviations "
        "and their most frequent reasons.",
    )


#: The sections this module adds to ``microanon demo``.
PAPERS_SECTIONS: list[Callable[[Report, DemoContext], None]] = [_papers_section]
