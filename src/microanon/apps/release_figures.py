"""The figures of a release's reports, as drawing functions of plain arrays.

Each function draws on a figure it is given (``draw(fig, *args)``, see
:class:`~microanon.apps.drawing.Drawing`) from counts already computed, so that it can run in
the worker process of :func:`~microanon.apps.drawing.drawing_aside`: this module imports only
numpy, and matplotlib through the figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .drawing import Drawing, count_axis

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["class_sizes", "column_risks", "range_widths", "record_risks", "steps_path"]

#: The bins of a risk, from 0 to 1.
RISK_BINS = np.linspace(0.0, 1.0, 21)


def _class_sizes(fig: Figure, sizes: np.ndarray, classes: np.ndarray) -> None:
    ax = fig.add_subplot()
    # One line collection, not a patch per bar: as many class sizes as there are, one artist.
    ax.vlines(sizes, 0.8, classes, color="#4a6fa5", linewidth=2)
    count_axis(ax, "x")
    count_axis(ax, "y")
    ax.set_xlabel("equivalence-class size in the release")
    ax.set_ylabel("number of classes")


def class_sizes(sizes: np.ndarray, classes: np.ndarray) -> Drawing:
    """The number of equivalence classes (``classes``) of each size (``sizes``), both axes
    logarithmic."""
    return Drawing(_class_sizes, (np.asarray(sizes), np.asarray(classes)), 6.4, 3.0, fixed=True)


def _record_risks(fig: Figure, counts: dict[str, np.ndarray], threshold: float) -> None:
    ax = fig.add_subplot()
    for name, per_bin in counts.items():
        ax.stairs(per_bin, RISK_BINS, label=name)
    ax.axvline(threshold, color="#999999", linestyle=":", linewidth=1)
    count_axis(ax, "y")
    ax.set_xlabel("re-identification risk of a record")
    ax.set_ylabel("records")
    ax.legend(fontsize=8)


def record_risks(
    risks: dict[str, np.ndarray],
    weights: np.ndarray | None,
    threshold: float,
    binned: Mapping[str, np.ndarray] | None = None,
) -> Drawing:
    """The records by their re-identification risk under each model (one step line per
    model, in :data:`RISK_BINS`; ``weights``: the records each risk stands for; ``binned``:
    models whose records are already counted per bin, drawn after the others), with the
    threshold dotted."""
    counts = {
        name: np.histogram(np.asarray(values, dtype=float), RISK_BINS, weights=weights)[0]
        for name, values in risks.items()
    }
    counts.update({name: np.asarray(per_bin) for name, per_bin in (binned or {}).items()})
    return Drawing(_record_risks, (counts, float(threshold)), 6.4, 3.0, fixed=True)


def _column_risks(fig: Figure, names: list[str], interval: np.ndarray, rank: np.ndarray) -> None:
    ax = fig.add_subplot()
    x = np.arange(len(names))
    ax.bar(x - 0.2, interval, width=0.4, label="interval disclosure")
    ax.bar(x + 0.2, rank, width=0.4, label="rank disclosure")
    ax.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of records")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)


def column_risks(names: Sequence[object], interval: np.ndarray, rank: np.ndarray) -> Drawing:
    """The share of records disclosed by interval and by rank, one pair of bars per masked
    column."""
    args = ([str(c) for c in names], np.asarray(interval, float), np.asarray(rank, float))
    return Drawing(_column_risks, args, 6.4, 3.0)


def _range_widths(fig: Figure, widths: np.ndarray, entries: np.ndarray, sensitive: str) -> None:
    ax = fig.add_subplot()
    ax.hist(widths, bins=30, weights=entries, color="#4a6fa5")
    ax.set_xlabel(f"width of a published {sensitive} range")
    ax.set_ylabel("entries")


def range_widths(widths: np.ndarray, entries: np.ndarray, sensitive: str) -> Drawing:
    """The widths of the published ranges of ``sensitive``, weighted by their entries."""
    args = (np.asarray(widths, float), np.asarray(entries), str(sensitive))
    return Drawing(_range_widths, args, 6.4, 3.0)


def _steps_path(fig: Figure, x: np.ndarray, y: np.ndarray, steps: list[str], label: str) -> None:
    ax = fig.add_subplot()
    ax.plot(x, y, marker="o")
    for x_, y_, step in zip(x, y, steps, strict=True):
        ax.annotate(step, (x_, y_), textcoords="offset points", xytext=(4, 4))
    ax.set_xlabel("share of the published cells changed")
    ax.set_ylabel(label)


def steps_path(x: np.ndarray, y: np.ndarray, steps: Sequence[object], label: str) -> Drawing:
    """Risk (``y``, named ``label``) against the share of cells changed (``x``) after each
    step, each point labelled by its step."""
    args = (np.asarray(x, float), np.asarray(y, float), [str(s) for s in steps], label)
    return Drawing(_steps_path, args, 6.0, 3.6)
