"""``microanon anonymize``: lint, run the configured method, then publish it verified.

The schema lint runs on the original data beside the method (:mod:`microanon.apps.lint_beside`;
findings the config does not accept refuse the run, and stop the method's search);
:func:`microanon.apps.publish.publish` then writes the release, reads it back, verifies it and
adds the reports, or leaves nothing behind.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..core.factorize import code_columns, shared_codes
from ..core.output import check_output_target
from ..core.progress import ProgressLike, as_progress
from ..core.random import make_rng, state_fingerprints
from ..core.release import Release
from ..methods.release import require_quasi
from ..methods.steps import step_fingerprints
from .audit import audit_trail
from .closest import method_returned, searching_ahead
from .config import DATASET_PREFIX, PipelineConfig, load_config
from .lint_beside import LintBeside
from .publish import PUBLISH_STAGES, publish

__all__ = ["STAGES", "run_anonymize"]

#: The stages of a run, as ``stage_seconds`` names them: read, method, lint (made beside the
#: method, reported after it with its own seconds), then the first word of each of
#: :func:`~microanon.apps.publish.publish`'s (write, verify, reports).
STAGES = ("read", "method", "lint", *(stage.split()[0] for stage in PUBLISH_STAGES))


def _sources(cfg: PipelineConfig, data: Any) -> list[Path]:
    """The user's files that the output must never contain or replace."""
    paths = [cfg.path] if cfg.path is not None else []
    source = data if data is not None else cfg.data
    if source is not None and not str(source).startswith(DATASET_PREFIX):
        paths.append(Path(source))
    return paths


def run_anonymize(
    config: str | os.PathLike[str] | PipelineConfig,
    out: str | os.PathLike[str],
    data: str | os.PathLike[str] | None = None,
    rng: Any = None,
    progress: ProgressLike = False,
    overwrite: bool = False,
    named: tuple[str, str] | None = None,
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
    progress : Progress, bool, str or None
        Progress on stderr, stage by stage (read, lint, the method, then those of
        :func:`~microanon.apps.publish.publish`): bars (True; the method's own bar too),
        nothing (False), one line per stage (``"lines"``), or either by whether stderr is a
        terminal (None or ``"auto"``); see :func:`microanon.core.progress.as_progress`.
    overwrite : bool
        Replace ``out`` if it holds a previous microanon output and nothing else.
    named : (str, str), optional
        How the audit trail and the internal report name the configuration and the data (see
        :func:`~microanon.apps.audit.audit_trail`); by default their paths.

    Returns
    -------
    (path, release, numbers)
        ``numbers``: before/after privacy, utility, ``verified`` (whether every claimed model
        holds on the files as written; ``None`` when nothing is claimed), ``verification``,
        ``lint``, ``columns`` (what was done per column), ``warnings`` (the schema lint's
        alerts too), ``seconds`` (the method's) and ``stage_seconds`` (each stage's: read,
        the method, the lint (its own seconds: it runs beside the method), write, verify,
        reports).

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
    require_quasi(cfg.schema)  # every release is measured against them: refused before the work
    out = Path(out)
    protect = _sources(cfg, data)
    check_output_target(out, overwrite, protect)  # before any work: a bad --out fails fast
    # each column coded once for the lint, the method, the verification and the reports
    with shared_codes(), as_progress(progress, "anonymize", total=len(STAGES)) as reporter:
        with reporter.stage("read the data") as stage:
            # the file's variable labels beside the table, for the SPSS and Stata tables
            original, labels = cfg.read_labelled(data)
            # the published columns, which the lint, the method and the reports group, coded
            # side by side
            code_columns(original[c] for c in cfg.schema.published if c in original.columns)
            stage.name = f"read {len(original):,} records"
        generator = make_rng(rng)
        secrets = state_fingerprints(generator)  # before the method draws from it
        secrets += step_fingerprints(generator, len(cfg.steps))  # each step's own stream
        # the closest configurations searched by the second process meanwhile, when one runs
        with (
            searching_ahead(cfg, original),
            LintBeside(original, cfg.schema, cfg.lint_accept, reporter) as beside,
        ):
            if not cfg.watched:  # a method its watch cannot stop: the lint's refusal first
                beside.report()
            started = time.perf_counter()
            try:
                # most methods say nothing until they end: a line now and then says that it
                # runs, unless a heuristic search said how far it got
                with reporter.stage(f"method {cfg.method}", beat=True):
                    release = cfg.run(original, rng=generator, progress=reporter.bar, watch=beside)
                method_returned()
            except Exception:
                try:  # the lint's refusal first, as when it ran before the method
                    beside.report()
                except Exception as refused:
                    raise refused from None
                raise
            seconds = time.perf_counter() - started
            with reporter.stage("schema lint") as stage:
                lint, linted = beside.report()
                stage.name = "schema lint (beside the method)"
                stage.took(linted)
            audit = audit_trail(cfg, data, rng, seconds, named)
            release.metadata["audit"] = audit
            path, numbers = publish(
                release,
                out,
                original,
                cfg.schema,
                lint=lint,
                format=cfg.output_format or "csv",
                labels=labels,
                overwrite=overwrite,
                protect=protect,
                config=cfg,
                subtitle=f"Configuration {audit['config'] or '(in memory)'}; the method ran in "
                f"{seconds:.2f} s.",
                progress=reporter,
                secrets=secrets,
            )
    release.encoded = None  # the run is over: its encoding is not kept with the release
    numbers["seconds"] = seconds
    numbers["stage_seconds"] = dict(zip(STAGES, reporter.seconds.values(), strict=True))
    return path, release, numbers
