"""The audit trail of a command's release: when and how it was made (internal only)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .config import PipelineConfig

__all__ = ["audit_trail"]


def audit_trail(cfg: PipelineConfig, data: Any, rng: Any, seconds: float) -> dict[str, Any]:
    """The ``audit`` entry of a release's internal metadata.

    Parameters
    ----------
    cfg : PipelineConfig
        The configuration run (its file, when it has one).
    data : path or None
        The data given on the command line (None: the configuration's).
    rng : object
        The randomness the user gave (None: the operating system's entropy); never recorded.
    seconds : float
        The method's seconds.

    Returns
    -------
    dict
        ``created`` (UTC), ``microanon_version``, ``config``, ``data``, ``randomness`` and
        ``method_seconds``.
    """
    from ..core.version import __version__

    source = data if data is not None else cfg.data
    return {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "microanon_version": __version__,
        "config": str(cfg.path) if cfg.path is not None else None,
        "data": str(source),
        "randomness": "operating-system entropy"
        if rng is None
        else "fixed by the user for research (not recorded)",
        "method_seconds": round(seconds, 3),
    }
