"""What a paper's reproduction declares: the record the command line lists (:class:`Paper`) and
the pieces the one runner (:func:`microanon.reproductions.runner.run`) takes from it
(:class:`Pieces`, built on :class:`Experiments` and its :class:`Stage` s).

A paper declares only what differs from the other papers: its command, its plans, the stages of
its experiments, the results derived from them, its ``meta``, its checks with their expected
deviations, and its report. Parsing the arguments, the randomness, the progress, the timing and
the atomic writing of ``report.html`` and ``results.json`` are the runner's.

This module loads nothing heavy, so that listing the papers (``microanon --help``) stays cheap;
a paper's pieces are imported when it runs (:meth:`Paper.pieces`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from microanon.apps.report import Report
    from microanon.reproductions.expected import Deviation

__all__ = ["Experiments", "Note", "Paper", "Pieces", "Stage"]

#: Where a paper's experiments say what they are doing within a stage (a line of the progress).
Note = Callable[[str], None]


@dataclass(frozen=True)
class Paper:
    """A paper's reproduction as ``microanon reproduce COMMAND`` lists it.

    Attributes
    ----------
    command : str
        The name after ``microanon reproduce``, and the subpackage of
        :mod:`microanon.reproductions` that holds the paper's experiments and their ``pieces``
        module (whose ``PIECES`` is what the runner runs).
    summary : str
        One line for the command's help: whose experiments, on what.
    quick : str
        What ``--quick`` reduces, and how long it takes.
    """

    command: str
    summary: str
    quick: str

    def pieces(self) -> Pieces:
        """The paper's :class:`Pieces` (imports its experiments)."""
        module = importlib.import_module(f"microanon.reproductions.{self.command}.pieces")
        pieces: Pieces = module.PIECES
        return pieces


@dataclass(frozen=True)
class Stage:
    """One stage of the progress: a part of the experiments and the results it produces.

    Attributes
    ----------
    title : str
        What the progress says while it runs.
    produce : callable
        ``produce(note)`` runs the part, saying through ``note`` what it does within the stage,
        and returns top-level keys of ``results.json`` with their values. A key that an earlier
        stage produced already holds a dict, which the new one extends (e.g. one experiment on a
        second data variant).
    """

    title: str
    produce: Callable[[Note], dict[str, Any]]


class Experiments:
    """One run of a paper's experiments with one plan and one generator, as the runner drives it.

    Each paper subclasses it: :meth:`stages` (run in order, each in a stage of the progress),
    :meth:`meta` and :meth:`checks`, and :meth:`derived` when some results are computed from
    others.

    Parameters
    ----------
    plan : object
        The paper's plan (its full or its quick one).
    rng : numpy.random.Generator
        The run's one generator, used in a fixed order (a seeded one reproduces the run).

    Notes
    -----
    Constructing it does no work: the runner counts the :meth:`stages` before any runs, and
    whatever the experiments load or draw first belongs to the first stage.
    """

    def __init__(self, plan: Any, rng: np.random.Generator) -> None:
        self.plan, self.rng = plan, rng

    def stages(self) -> list[Stage]:
        """The parts of the experiments, in run order (known before any of them runs)."""
        raise NotImplementedError

    def derived(self, results: dict[str, Any]) -> dict[str, Any]:
        """Results computed from those of the stages (already plain JSON types): none here."""
        return {}

    def meta(self, seed_given: bool) -> dict[str, Any]:
        """The paper's part of ``meta`` (after microanon's version, the runtime and ``quick``).

        ``seed_given`` says whether the run was seeded; the seed itself is never recorded.
        """
        raise NotImplementedError

    def checks(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        """Every check line on ``results`` (with ``meta``), issue lines first."""
        raise NotImplementedError


@dataclass(frozen=True)
class Pieces:
    """What the runner takes from a paper: everything in which its reproduction differs.

    Attributes
    ----------
    full, quick : object
        The paper's plans: the default one and the reduced one of ``--quick``.
    experiments : callable
        ``experiments(plan, rng)``: the :class:`Experiments` of one run (usually its class).
    deviations : sequence of Deviation
        The reviewed list of the checks expected to fail, each with its reason.
    report : callable
        ``report(results, plan)``: the :class:`~microanon.apps.report.Report` written as
        ``report.html``, from the results as written to ``results.json``.
    """

    full: Any
    quick: Any
    experiments: Callable[[Any, np.random.Generator], Experiments]
    deviations: Sequence[Deviation]
    report: Callable[[dict[str, Any], Any], Report]
