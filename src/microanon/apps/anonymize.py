"""``microanon anonymize``: lint, run the configured method, write, verify from disk, report.

The steps, each of which stops the run with nothing written:

1. the schema lint (:func:`microanon.core.lint.lint_schema`) on the original data: findings the
   config does not accept refuse the run;
2. the method;
3. the release is written (``public/`` + ``internal/``) into a hidden directory beside ``out``;
4. the written files are read back and verified (:func:`microanon.models.verify_written`): the
   claimed models with the lint's linkable columns counted as quasi-identifiers, the public
   part's declared keys, no original value absent from the published data in public metadata;
5. the public report (from the public part alone) and the internal report are added, and the
   directory is moved to ``out``.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.errors import VerificationError
from ..core.lint import LintReport, lint_schema
from ..core.output import atomic_directory, check_output_target
from ..core.release import INTERNAL_DIR, PUBLIC_DIR, Release
from ..models import verify_written
from .config import DATASET_PREFIX, PipelineConfig, load_config
from .release_report import add_release_sections
from .release_summary import (
    add_public_report,
    add_summary_sections,
    column_actions,
    warnings_of,
)
from .report import Report

__all__ = ["run_anonymize"]


def _sources(cfg: PipelineConfig, data: Any) -> list[Path]:
    """The user's files that the output must never contain or replace."""
    paths = [cfg.path] if cfg.path is not None else []
    source = data if data is not None else cfg.data
    if source is not None and not str(source).startswith(DATASET_PREFIX):
        paths.append(Path(source))
    return paths


def _audit(
    cfg: PipelineConfig, data: Any, rng: Any, lint: LintReport, seconds: float
) -> dict[str, Any]:
    from .. import __version__

    source = data if data is not None else cfg.data
    return {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "microanon_version": __version__,
        "config": str(cfg.path) if cfg.path is not None else None,
        "data": str(source),
        "randomness": "operating-system entropy"
        if rng is None
        else "fixed by the user for research (not recorded)",
        "lint": lint.to_dict(),
        "method_seconds": round(seconds, 3),
    }


def run_anonymize(
    config: str | os.PathLike[str] | PipelineConfig,
    out: str | os.PathLike[str],
    data: str | os.PathLike[str] | None = None,
    rng: Any = None,
    progress: bool = False,
    overwrite: bool = False,
) -> tuple[Path, Release, dict[str, Any]]:
    """Lint, run the configured method, write the release, verify it from disk, add reports.

    Parameters
    ----------
    config : path or PipelineConfig
    out : path
        Release directory: ``public/`` (tables, ``release.json``, ``report.html``) and
        ``internal/`` (``internal.json``, ``report.html``).
    data : path, optional
        Overrides the config's ``data``.
    rng : numpy Generator, int or None
        For randomized methods; a seed is never written anywhere.
    progress : bool
        Progress bars on stderr.
    overwrite : bool
        Replace ``out`` if it holds a previous microanon output and nothing else.

    Returns
    -------
    (path, release, numbers)
        ``numbers``: before/after privacy, utility, ``verified`` (whether every claimed model
        holds on the files as written; ``None`` when nothing is claimed), ``verification``,
        ``lint``, ``columns`` (what was done per column) and ``warnings``.

    Raises
    ------
    InputError
        Bad config, data or output directory; unaccepted lint findings.
    InfeasibleError
        The method cannot meet the models.
    VerificationError
        The written release fails a claimed model or leaks; nothing is left in ``out``.
    """
    cfg = config if isinstance(config, PipelineConfig) else load_config(config)
    out = Path(out)
    protect = _sources(cfg, data)
    check_output_target(out, overwrite, protect)  # before any work: a bad --out fails fast
    original = cfg.read_data(data)
    lint = lint_schema(original, cfg.schema, accept=cfg.lint_accept)
    lint.raise_if_blocking()
    started = time.perf_counter()
    release = cfg.run(original, rng=rng, progress=progress)
    seconds = time.perf_counter() - started
    release.metadata["audit"] = _audit(cfg, data, rng, lint, seconds)
    schema = cfg.schema
    with atomic_directory(out, overwrite, protect) as tmp:
        release.write_parts(tmp, cfg.output_format)
        verification = verify_written(tmp, original, lint.linkable)
        if not verification.ok:
            raise VerificationError(
                "the written release does not hold what it claims, so nothing was written: "
                + "; ".join(verification.failures())
            )
        published = [c for c in schema.published if c in original.columns]
        internal = Report(
            f"microanon anonymize: {cfg.method} (internal: for the data owner only)",
            f"Configuration {cfg.path or '(in memory)'}; the method ran in {seconds:.2f} s. "
            "This report shows values and counts of the original data: do not publish it.",
        )
        numbers = add_release_sections(
            internal, original.loc[:, published].dropna(), release, schema=schema
        )
        numbers["verified"] = (
            all(v.holds for v in verification.verdicts) if verification.verdicts else None
        )
        columns = column_actions(release, schema, lint, original)
        numbers["warnings"] = warnings_of(release, columns, numbers)
        add_summary_sections(internal, release, cfg, original, columns, verification, lint, numbers)
        internal.write(tmp / INTERNAL_DIR / "report.html")
        public = Release.load(tmp / PUBLIC_DIR)
        add_public_report(public, verification, schema, lint).write(
            tmp / PUBLIC_DIR / "report.html"
        )
    numbers.update(
        seconds=seconds,
        verification=verification.to_dict(),
        lint=lint.to_dict(),
        columns=columns.to_dict(orient="records"),
    )
    return out, release, numbers
