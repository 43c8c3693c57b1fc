"""Runs of the workbench: a configuration run on a data set, as ``microanon anonymize`` runs it.

:func:`prepare` writes the configuration the data owner will download (``config.yaml`` beside
``hierarchies/*.csv`` and a README) into the run's directory and reads it back with
:func:`microanon.apps.config.load_config`, exactly as the command line will; an invalid
parameter or model, or a model the data cannot meet (k above the number of records, ℓ above the
sensitive values), is refused there, before anything runs. :func:`execute` then runs it through
:func:`microanon.apps.anonymize.run_anonymize` into ``release/`` beside it, reporting its stages
on the :class:`Run`.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import MicroanonError
from ...core.lint import LintReport
from ...core.progress import Progress, Stage
from ...models.kanonymity import KAnonymity
from ...models.ldiversity import LDiversity
from ..anonymize import run_anonymize
from ..config import PipelineConfig, load_config
from ..init.hierarchies import arx_csv
from ..init.render import render_config, yaml_flow
from ..init.run import read_block
from ..publish import PUBLISH_STAGES
from .datasets import Dataset, schema_files
from .errors import RequestError
from .summaries import run_result

__all__ = ["CONFIG_DIR", "RELEASE_DIR", "Run", "execute", "prepare"]

#: The run's configuration (what ``config.zip`` holds), under its directory.
CONFIG_DIR = "config"
#: The run's release (``public/`` and ``internal/``), under its directory.
RELEASE_DIR = "release"
#: Stages of a run: read, lint, the method, then publishing's.
STAGES = 3 + len(PUBLISH_STAGES)


@dataclass
class Run:
    """One configuration run on a data set.

    Attributes
    ----------
    id, dataset, label : str
    config : dict
        ``method``, ``params`` and ``models`` as the request gave them.
    directory : Path
        ``config/`` and, once done, ``release/``.
    status : {"queued", "running", "done", "failed"}
    stage : str
        The stage running (or the last one).
    done : int
        Stages finished, of :data:`STAGES`.
    error : str or None
        Why it failed, one line.
    result : dict or None
        The summary of a finished run (:func:`~microanon.apps.workbench.summaries.run_result`).
    """

    id: str
    dataset: str
    label: str
    config: dict[str, Any]
    directory: Path
    status: str = "queued"
    stage: str = "queued"
    done: int = 0
    error: str | None = None
    result: dict[str, Any] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The ``RunSummary`` of the JSON API."""
        return {
            "id": self.id,
            "dataset": self.dataset,
            "label": self.label,
            "status": self.status,
            "progress": {"stage": self.stage, "done": self.done, "total": STAGES},
            "error": self.error,
            "config": self.config,
            "result": self.result,
        }


class RunProgress(Progress):
    """Progress that shows nothing and records the stage on its :class:`Run`."""

    def __init__(self, run: Run) -> None:
        super().__init__("anonymize", "off", total=STAGES)
        self.run = run

    @contextmanager
    def stage(self, name: str) -> Iterator[Stage]:
        """Record the stage on the run, then report it as :class:`Progress` does."""
        self.run.stage = name
        with super().stage(name) as stage:
            yield stage
        self.run.done = self.done


def _body(body: Any) -> tuple[str, dict[str, Any], list[Any], str | None]:
    if not isinstance(body, Mapping):
        raise RequestError('give {"method", "params", "models", "label"}', "method")
    unknown = sorted(set(body) - {"method", "params", "models", "label"})
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(unknown)}", unknown[0])
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise RequestError("method: give the name of a method (GET /api/methods)", "method")
    params = body.get("params") or {}
    if not isinstance(params, Mapping):
        raise RequestError("params: give a mapping of parameter name to value", "params")
    models = body.get("models") or []
    if not isinstance(models, list) or not all(isinstance(m, Mapping) for m in models):
        raise RequestError('models: give a list like [{"k_anonymity": {"k": 5}}]', "models")
    label = body.get("label")
    return method, dict(params), [dict(m) for m in models], None if label is None else str(label)


def _field(message: str) -> str | None:
    """The config key a message of :func:`~microanon.apps.config.load_config` is about."""
    head = message.split(":", 1)[0].strip()
    return head if head and " " not in head else None


def _possible(cfg: PipelineConfig, ds: Dataset) -> None:
    """Refuse models no release of ``ds`` can meet."""
    rows = len(ds.frame)
    for model in cfg.models:
        if isinstance(model, KAnonymity) and model.k > rows:
            raise RequestError(
                f"models: k_anonymity with k={model.k} is impossible: the data set has "
                f"{rows:,} records",
                "k_anonymity",
            )
        sensitive = cfg.schema.sensitive
        if isinstance(model, LDiversity) and len(sensitive) == 1:
            distinct = int(ds.frame[sensitive[0]].nunique(dropna=False))
            if model.l > distinct:
                raise RequestError(
                    f"models: l_diversity with l={model.l:g} is impossible: {sensitive[0]!r} "
                    f"has {distinct} distinct value(s)",
                    "l_diversity",
                )


def _readme(ds: Dataset) -> str:
    source = f"beside this file as {ds.name}" if ds.path is not None else "(a bundled data set)"
    return (
        "This configuration was made with the microanon workbench (microanon app).\n"
        f"The data: {ds.name} {source}.\n"
        "Run it with:\n"
        "  microanon anonymize --config config.yaml --out release\n"
        "On the same data it writes the same public part, byte for byte, as the workbench's "
        "public.zip holds it before its quotes for spreadsheets (see README.txt there; "
        "randomized methods draw new randomness on every run).\n"
    )


def prepare(ds: Dataset, body: Any, uploads: Mapping[str, Path], run: Run) -> PipelineConfig:
    """Write the run's configuration into ``run.directory / CONFIG_DIR`` and load it back.

    Raises
    ------
    RequestError
        A bad body, unaccepted lint findings, a schema the data do not fit, an unknown method,
        parameter or model, a model the data cannot meet (naming it).
    """
    method, params, models, label = _body(body)
    run.config = {"method": method, "params": params, "models": models}
    run.label = label or f"{method} #{len(ds.runs) + 1}"
    report = LintReport(len(ds.frame), list(ds.lint))
    try:
        report.raise_if_blocking()
    except MicroanonError as exc:
        raise RequestError(str(exc), report.blocking[0].column) from None
    entries, files, _ = schema_files(ds, uploads)
    config_dir = run.directory / CONFIG_DIR
    text = render_config(
        data=ds.name,
        read=read_block(ds.read),
        source=ds.name,
        rows=len(ds.frame),
        columns=entries,
        models=[(m, "") for m in models],
        command=f"microanon anonymize --config config.yaml --out {shlex.quote(RELEASE_DIR)}",
        method=method,
        params=params,
        intro=[f"microanon workbench: {run.label} on {ds.name} ({len(ds.frame):,} rows)."],
    )
    if ds.accept:
        text += f"lint: {yaml_flow({'accept': ds.accept})}   # findings the data owner accepts\n"
    (config_dir / "hierarchies").mkdir(parents=True)
    for rel, tree in files.items():
        (config_dir / rel).write_text(arx_csv(tree), encoding="utf-8")
    (config_dir / "config.yaml").write_text(text, encoding="utf-8")
    (config_dir / "README.txt").write_text(_readme(ds), encoding="utf-8")
    try:
        cfg = load_config(config_dir / "config.yaml")
    except MicroanonError as exc:
        raise RequestError(str(exc), _field(str(exc))) from None
    _possible(cfg, ds)
    return cfg


def execute(run: Run, cfg: PipelineConfig, ds: Dataset) -> None:
    """Run a prepared configuration into ``run.directory / RELEASE_DIR``; never raises: a
    failure is the run's status and one-line error."""
    run.status = "running"
    try:
        _, release, numbers = run_anonymize(
            cfg, run.directory / RELEASE_DIR, data=ds.path, progress=RunProgress(run)
        )
        run.result = run_result(numbers, release, ds.frame, cfg.schema, ds.charts)
    except MicroanonError as exc:
        run.error, run.status = " ".join(str(exc).split()), "failed"
        return
    except Exception as exc:  # noqa: BLE001 - the page must learn that the run ended
        run.error, run.status = f"internal error: {type(exc).__name__}: {exc}", "failed"
        return
    run.stage, run.status = "done", "done"
