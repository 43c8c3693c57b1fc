"""Report figures as PNG bytes: a drawing function and its data, drawn here or aside.

A figure of a report is ``draw(fig, *args)`` (a :class:`Drawing`): it puts the picture on a
matplotlib figure made here (:func:`new_figure`), and :func:`png` renders it. Sections take it
through :func:`~microanon.apps.aside.aside`, so that within
:func:`~microanon.apps.aside.working_aside` (the command line) the figures are drawn by the
worker process, which :func:`prepare` readies while the run goes on (importing matplotlib and
rendering a first figure take about a second); the bytes are the same either way (the same
matplotlib, the same settings). The drawing functions are module-level functions of modules
that import little (numpy and matplotlib), such as :mod:`microanon.apps.release_figures`.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported by new_figure, when a report draws one
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["Drawing", "count_axis", "figure_png", "new_figure", "png", "prepare"]

#: Resolution of the PNGs (dots per inch).
DPI = 110


def new_figure(width: float = 6.4, height: float = 3.6, *, fixed: bool = False) -> Figure:
    """A matplotlib figure not tied to any GUI backend (safe on machines without a screen).

    Parameters
    ----------
    width, height : float
        Inches.
    fixed : bool, default False
        Fixed margins for one axes whose tick labels are short (:func:`count_axis`, numbers
        from 0 to 1) instead of matplotlib's constrained layout, which measures every label
        and takes longer than drawing the figure.
    """
    from matplotlib.figure import Figure

    if not fixed:
        return Figure(figsize=(width, height), layout="constrained")
    fig = Figure(figsize=(width, height))
    # Room for five characters of tick labels and an axis label at the default font size.
    fig.subplots_adjust(
        left=0.85 / width, right=1 - 0.15 / width, bottom=0.5 / height, top=1 - 0.12 / height
    )
    return fig


def _compact(value: float) -> str:
    """A count as a short label: 1, 20, 500, 2k, 50k, 1M, 2.5M."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{unit}"
    return f"{value:g}"


def count_axis(ax: Axes, which: str) -> None:
    """Make the ``which`` (``"x"`` or ``"y"``) axis of ``ax`` a logarithmic axis of counts,
    labelled at 1, 2 and 5 of each power of ten with short plain labels (2k, 1M) and without
    minor ticks: matplotlib's default mathtext labels and minor ticks of a log axis cost more
    than the rest of the figure."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    getattr(ax, f"set_{which}scale")("log")
    axis = getattr(ax, f"{which}axis")
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=12))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda v, _: _compact(v)))


def figure_png(fig: Figure) -> bytes:
    """``fig`` rendered as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


@dataclass(frozen=True)
class Drawing:
    """A figure to draw: ``function(fig, *args)`` on a figure of ``width`` × ``height`` inches
    (``fixed``: see :func:`new_figure`)."""

    function: Callable[..., None]
    args: tuple[Any, ...]
    width: float = 6.4
    height: float = 3.6
    fixed: bool = False


def png(drawing: Drawing) -> bytes:
    """Draw ``drawing`` in this process and return its PNG bytes."""
    fig = new_figure(drawing.width, drawing.height, fixed=drawing.fixed)
    drawing.function(fig, *drawing.args)
    return figure_png(fig)


def prepare() -> None:
    """Import what drawing needs and draw one empty figure (the font cache read, the PNG
    writer loaded): a worker's first real figure then takes only its own time."""
    png(Drawing(_nothing, ()))


def _nothing(fig: Figure) -> None:
    fig.add_subplot()
