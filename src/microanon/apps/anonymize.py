"""``microanon anonymize``: run a configured method and write the release with its report."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.release import Release, atomic_directory
from .config import PipelineConfig, load_config
from .release_report import add_release_sections
from .report import Report

__all__ = ["run_anonymize", "write_release_with_report"]


def write_release_with_report(
    release: Release, report: Report, out: Path, fmt: str = "csv", overwrite: bool = False
) -> Path:
    """Write ``release`` and ``report.html`` into ``out`` together, or nothing at all."""
    with atomic_directory(out, overwrite) as tmp:
        release.save(tmp, format=fmt, overwrite=True)
        report.write(tmp / "report.html")
    return out


def run_anonymize(
    config: str | os.PathLike[str] | PipelineConfig,
    out: str | os.PathLike[str],
    data: str | os.PathLike[str] | None = None,
    rng: Any = None,
    progress: bool = False,
    overwrite: bool = False,
) -> tuple[Path, Release, dict[str, Any]]:
    """Read the data, run the configured method, verify it and write release + report.

    Parameters
    ----------
    config : path or PipelineConfig
    out : path
        Directory receiving ``release.json``, the tables and ``report.html``.
    data : path, optional
        Overrides the config's ``data``.
    rng : numpy Generator, int or None
        For randomized methods; a seed is never written into the release.
    progress : bool
        Progress bars on stderr.
    overwrite : bool
        Replace an existing ``out``.

    Returns
    -------
    (path, release, numbers)
        ``numbers`` holds the before/after privacy, the utility and whether every claimed model
        was verified.
    """
    cfg = config if isinstance(config, PipelineConfig) else load_config(config)
    out = Path(out)
    if out.exists() and not overwrite and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} already exists; choose another --out or pass --overwrite")
    original = cfg.read_data(data)
    started = time.perf_counter()
    release = cfg.run(original, rng=rng, progress=progress)
    seconds = time.perf_counter() - started
    report = Report(
        f"microanon anonymize: {cfg.method}",
        f"Configuration {cfg.path or '(in memory)'}; method ran in {seconds:.2f} s.",
    )
    schema = cfg.schema
    published = [c for c in schema.published if c in original.columns]
    numbers = add_release_sections(
        report, original.loc[:, published].dropna(), release, schema=schema
    )
    numbers["seconds"] = seconds
    if numbers["verified"] is False:
        raise InputError(
            "internal check failed: the release does not satisfy its claimed models; nothing "
            "was written (please report this)"
        )
    path = write_release_with_report(release, report, out, cfg.output_format, overwrite)
    return path, release, numbers
