"""The audit trail of a command's release: when and how it was made (internal only)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .config import PipelineConfig

__all__ = ["audit_trail"]


def audit_trail(
    cfg: PipelineConfig,
    data: Any,
    rng: Any,
    seconds: float | None = None,
    named: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The ``audit`` entry of a release's internal metadata.

    Parameters
    ----------
    cfg : PipelineConfig
        The configuration run (its file, when it has one).
    data : path or None
        The data given on the command line (None: the configuration's).
    rng : object
        The randomness the user gave (None: the operating system's entropy); never recorded.
    seconds : float, optional
        The method's seconds (None: the engine that runs the method adds them).
    named : (str, str), optional
        How to name the configuration and the data when the files run are working copies
        that will be gone (the workbench: its download's ``config.yaml``, the uploaded file's
        name); by default their paths.

    Returns
    -------
    dict
        ``created`` (UTC), ``microanon_version``, ``config``, ``data``, ``randomness`` and
        ``method_seconds`` (when given).
    """
    from ..core.version import __version__

    config = str(cfg.path) if cfg.path is not None else None
    source = str(data if data is not None else cfg.data)
    if named is not None:
        config, source = named
    out = {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "microanon_version": __version__,
        "config": config,
        "data": source,
        "randomness": "operating-system entropy"
        if rng is None
        else "fixed by the user for research (not recorded)",
    }
    if seconds is not None:
        out["method_seconds"] = round(seconds, 3)
    return out
