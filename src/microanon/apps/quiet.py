"""The command line's ``--quiet`` and the progress mode it leaves a command.

``-q`` / ``--quiet`` is an option of the ``microanon`` group (``microanon --quiet demo``) and of
every long command (``microanon demo --quiet``): either silences the progress on stderr; errors
are still printed. Without it a command reports its stages
(:class:`microanon.core.progress.Progress`): a bar on a terminal, one line per stage otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["BIG_TABLE_BYTES", "progress_mode", "quiet_option", "table_progress_mode"]

#: Where ``--quiet`` is remembered: the click context's ``meta``, shared by the group's and the
#: command's contexts.
_QUIET = "microanon.quiet"

#: ``check`` and ``risk`` (in memory) report their stages for inputs of at least this many bytes;
#: on smaller tables they take about a second and a progress line would only add noise.
BIG_TABLE_BYTES = 32 * 2**20


def _remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_QUIET] = True
    return value


def quiet_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``-q`` / ``--quiet`` to a click command or group (the value is not passed on)."""
    return click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_remember,
        help="No progress on stderr (errors are still printed).",
    )(func)


def progress_mode() -> str:
    """``"off"`` under ``--quiet`` (given to the group or the command), else ``"auto"``."""
    ctx = click.get_current_context(silent=True)
    return "off" if ctx is not None and ctx.meta.get(_QUIET) else "auto"


def table_progress_mode(source: str | os.PathLike[str]) -> str:
    """The progress mode of ``check`` or ``risk`` on the file ``source`` in memory.

    As :func:`progress_mode` for a file of at least :data:`BIG_TABLE_BYTES`, else ``"off"``.
    """
    path = Path(source)
    big = path.is_file() and path.stat().st_size >= BIG_TABLE_BYTES
    return progress_mode() if big else "off"
