"""Runs of the workbench: a configuration run on a data set, as ``microanon anonymize`` runs it.

:func:`prepare` writes the configuration the data owner will download (``config.yaml`` beside
``hierarchies/*.csv`` and a README) into the run's directory and reads it back with
:func:`microanon.apps.config.load_config`, exactly as the command line will; an invalid
parameter or model, or a model the data cannot meet (k above the number of records, ℓ above the
sensitive values), is refused there, before anything runs. :func:`execute` then runs it through
:func:`microanon.apps.anonymize.run_anonymize` into ``release/`` beside it, reporting its stages
on the :class:`Run`. A heuristic full-domain search reports its nodes on the run too, and
stops when the data owner asks (:meth:`Run.request_stop`), publishing its best node.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import MicroanonError
from ...core.lint import LintReport
from ...core.progress import Progress, Stage
from ...core.schema import Kind, missing_or_marked
from ...methods import registry
from ...methods.release import require_quasi
from ...methods.steps import STEPS_METHOD, check_steps
from ...models.config import MODELS, require_one_sensitive
from ...models.kanonymity import KAnonymity
from ...models.ldiversity import LDiversity
from ..anonymize import STAGES as RUN_STAGES
from ..anonymize import run_anonymize
from ..config import PipelineConfig, load_config
from ..init.hierarchies import arx_csv
from ..init.render import render_config, yaml_flow
from ..init.run import read_block
from .datasets import Dataset, config_entries
from .errors import RequestError
from .summaries import run_result

__all__ = ["CONFIG_DIR", "RELEASE_DIR", "Run", "RunProgress", "execute", "prepare"]

#: The run's configuration (what ``config.zip`` holds), under its directory.
CONFIG_DIR = "config"
#: The run's release (``public/`` and ``internal/``), under its directory.
RELEASE_DIR = "release"
#: Stages of a run: read, lint, the method, then publishing's.
STAGES = len(RUN_STAGES)


@dataclass
class Run:
    """One configuration run on a data set.

    Attributes
    ----------
    id, dataset, label : str
    config : dict
        ``method``, ``params`` and ``models`` as the request gave them, or ``steps``.
    directory : Path
        ``config/`` and, once done, ``release/``.
    status : {"queued", "running", "done", "failed", "cancelled"}
        ``"cancelled"``: stopped while queued, before it started (nothing ran).
    stage : str
        The stage running (or the last one).
    done : int
        Stages finished, of :data:`STAGES`.
    error : str or None
        Why it failed, one line.
    result : dict or None
        The summary of a finished run (:func:`~microanon.apps.workbench.summaries.run_result`).
    search : dict or None
        While a heuristic search runs: ``nodes`` checked, ``best`` metric value so far (None
        before a feasible node is found), ``seconds``, ``metric`` (its name).
    stop : threading.Event
        Set when the data owner asked the run to stop (:meth:`request_stop`).
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
    search: dict[str, Any] | None = field(default=None, repr=False)
    metric: str | None = field(default=None, repr=False)
    stop: threading.Event = field(default_factory=threading.Event, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def stoppable(self) -> bool:
        """Whether :meth:`request_stop` would act now: queued, or in a heuristic search, and
        not asked to stop yet."""
        if self.stop.is_set():
            return False
        return self.status == "queued" or (self.status == "running" and self.search is not None)

    def to_json(self) -> dict[str, Any]:
        """The ``RunSummary`` of the JSON API."""
        with self.lock:
            search = None if self.search is None else dict(self.search)
            return {
                "id": self.id,
                "dataset": self.dataset,
                "label": self.label,
                "status": self.status,
                "progress": {
                    "stage": self.stage,
                    "done": self.done,
                    "total": STAGES,
                    "search": search,
                },
                "stop_requested": self.stop.is_set(),
                "stoppable": self.stoppable(),
                "error": self.error,
                "config": self.config,
                "result": self.result,
            }

    def start(self) -> bool:
        """Mark a queued run as running; False when it was cancelled meanwhile."""
        with self.lock:
            if self.status != "queued":
                return False
            self.status = "running"
            return True

    def request_stop(self) -> str:
        """Ask the run to stop: a queued run is cancelled; a heuristic search stops before its
        next node check and its best node is published as a normal, verified release.

        Returns
        -------
        str
            What happens, in one sentence.

        Raises
        ------
        RequestError
            409: the run has ended, or it is running something other than a heuristic search
            (reading, the lint, the exact search, another method, writing and verifying the
            release), which runs to its end.
        """
        with self.lock:
            if self.status == "queued":
                self.stop.set()
                self.status, self.stage = "cancelled", "cancelled before it started"
                return f"run {self.id} is cancelled: it had not started, nothing ran"
            if self.status != "running":
                raise RequestError(
                    f"run {self.id} is {self.status}: it has ended, there is nothing to stop",
                    "id",
                    409,
                )
            if self.search is None:
                raise RequestError(
                    f"run {self.id} is at the stage {self.stage!r}, which cannot be stopped: only "
                    "a heuristic search stops, while it runs (it then publishes the best node "
                    "found so far); the exact search, the other methods and the other stages "
                    "run to their end",
                    "id",
                    409,
                )
            self.stop.set()
            return (
                f"run {self.id}: the search checks no further node; the best node found so far is "
                "then written and verified like any release"
            )


class RunProgress(Progress):
    """Progress that shows nothing and records the stage, and a heuristic search's progress,
    on its :class:`Run`; it stops the search when the run is asked to stop.

    It is the :class:`~microanon.methods.generalize._budget.SearchWatch` of the run's method.
    """

    def __init__(self, run: Run) -> None:
        super().__init__("anonymize", "off", total=STAGES)
        self.run = run

    @contextmanager
    def stage(self, name: str, *, beat: bool = False) -> Iterator[Stage]:
        """Record the stage on the run, then report it as :class:`Progress` does; a search
        that ran in the stage has ended with it."""
        self.run.stage = name
        try:
            with super().stage(name, beat=beat) as stage:
                yield stage
        finally:
            with self.run.lock:
                self.run.search = None
        self.run.done = self.done

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        """Record how far the heuristic search got on the run (the page polls it)."""
        record = {
            "nodes": int(nodes),
            "best": None if best is None else float(best),
            "seconds": float(seconds),
            "metric": self.run.metric,
        }
        with self.run.lock:
            self.run.search = record

    def stop_requested(self) -> bool:
        """Whether the data owner asked the run to stop."""
        return self.run.stop.is_set()


def _body(body: Any) -> tuple[str, dict[str, Any], list[Any], list[Any], str | None]:
    """A run's request: method, params, models, steps and label (steps instead of a method)."""
    if not isinstance(body, Mapping):
        raise RequestError(
            'give {"method", "params", "models", "label"} or {"steps", "label"}', "method"
        )
    unknown = sorted(set(body) - {"method", "params", "models", "steps", "label"})
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(unknown)}", unknown[0])
    label = body.get("label")
    label = None if label is None else str(label)
    if "steps" in body:
        if set(body) & {"method", "params", "models"}:
            raise RequestError(
                "give either method (with params and models) or steps, not both", "steps"
            )
        try:
            steps = check_steps(body["steps"])
        except MicroanonError as exc:
            raise RequestError(str(exc), "steps") from None
        return STEPS_METHOD, {}, [], steps, label
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise RequestError("method: give the name of a method (GET /api/methods)", "method")
    params = body.get("params") or {}
    if not isinstance(params, Mapping):
        raise RequestError("params: give a mapping of parameter name to value", "params")
    models = body.get("models") or []
    if not isinstance(models, list) or not all(isinstance(m, Mapping) for m in models):
        raise RequestError('models: give a list like [{"k_anonymity": {"k": 5}}]', "models")
    for name, given in ((n, g) for m in models for n, g in m.items()):
        if isinstance(given, Mapping) and "population" in given:
            raise RequestError(_population_refusal(str(name)), "models")
    return method, dict(params), [dict(m) for m in models], [], label


def _population_refusal(name: str) -> str:
    """Why the workbench refuses the model ``name`` (its config name) checked against a
    population table: it takes no population file (a config names it beside itself), and what
    the model takes instead, as the model says in its own refusal (k-map: an estimate)."""
    instead = getattr(MODELS.get(name), "instead", "")
    return (
        f"models: {name} is checked against a population table, which the workbench does not "
        f"take: give the model population: FILE in a config run by microanon anonymize{instead}"
    )


def _field(message: str) -> str | None:
    """The config key a message of :func:`~microanon.apps.config.load_config` is about."""
    head = message.split(":", 1)[0].strip()
    return head if head and " " not in head else None


def _possible(cfg: PipelineConfig, ds: Dataset) -> None:
    """Refuse models no release of ``ds`` can meet or the workbench cannot check (against a
    population table), a parameter taken out of core only (the workbench runs in memory), and
    a method that publishes numeric quasi-identifiers as ranges when one of them holds missing
    values as the value ``?`` (its run would stop with the same line)."""
    spec = None if cfg.steps else registry.get(cfg.method)
    out_of_core = [n for n in cfg.params if spec is not None and spec.param(n).dask_only]
    if out_of_core:  # (its run would stop on it: the workbench runs in memory)
        raise RequestError(
            f"params: {', '.join(out_of_core)} of {cfg.method} is taken out of core only (within "
            "blocks, by microanon anonymize --engine dask with this configuration exported); "
            "remove it to run on the whole table here",
            out_of_core[0],
        )
    if spec is not None and spec.ranges:
        marked = [
            q
            for q in cfg.schema.quasi
            if cfg.schema[q].kind is Kind.NUMERIC
            and cfg.schema[q].missing_policy == "value"
            and bool(missing_or_marked(ds.frame[q]).any())
        ]
        if marked:
            refusal = registry.range_refusal(marked, cfg.method, kind="categorical")
            raise RequestError(refusal, marked[0])
    try:  # a model of the sensitive column without one (its run would stop with this line)
        require_one_sensitive(cfg.models, cfg.schema.sensitive)
    except MicroanonError as exc:
        raise RequestError(str(exc), "models") from None
    rows = len(ds.frame)
    for model in cfg.models:
        if model.needs_population:  # (no population file: its run would stop on it)
            raise RequestError(_population_refusal(next(iter(model.to_config()))), "models")
        if isinstance(model, KAnonymity) and model.k > rows:
            raise RequestError(
                f"models: k_anonymity with k={model.k} is impossible: the data set has "
                f"{rows:,} records",
                "k_anonymity",
            )
        sensitive = cfg.schema.sensitive
        if isinstance(model, LDiversity) and len(sensitive) == 1:
            # a missing value kept unknown (or left out) is no value; without a known value ℓ
            # holds vacuously
            known = cfg.schema[sensitive[0]].missing_policy in ("keep", "drop")
            distinct = int(ds.frame[sensitive[0]].nunique(dropna=known))
            if 0 < distinct < model.l:
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
        "public.zip holds it before its quotes for spreadsheets (see README.txt there), "
        "except where the run depended on more than the configuration: randomized methods "
        "draw new randomness on every run, and a heuristic or genetic search stopped in the "
        "workbench or ended by its time_limit may reach another node (a step_limit gives the "
        "same budget on every machine).\n"
    )


def prepare(ds: Dataset, body: Any, uploads: Mapping[str, Path], run: Run) -> PipelineConfig:
    """Write the run's configuration into ``run.directory / CONFIG_DIR`` and load it back.

    Raises
    ------
    RequestError
        A bad body, unaccepted lint findings, a schema the data do not fit, an unknown method,
        parameter or model, a model the data cannot meet (naming it).
    """
    method, params, models, steps, label = _body(body)
    run.config = (
        {"steps": steps} if steps else {"method": method, "params": params, "models": models}
    )
    run.label = label or f"{method} #{len(ds.runs) + 1}"
    report = LintReport(len(ds.frame), list(ds.lint))
    try:
        report.raise_if_blocking()
    except MicroanonError as exc:
        raise RequestError(str(exc), report.blocking[0].column) from None
    entries, files = config_entries(ds, uploads)  # (checked on the data when it was set)
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
        steps=steps,
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
        require_quasi(cfg.schema)
    except MicroanonError as exc:
        raise RequestError(str(exc), _field(str(exc))) from None
    _possible(cfg, ds)
    return cfg


def _metric(cfg: PipelineConfig) -> str | None:
    """The metric a method's search minimizes: the configured one, or its default (none for
    steps)."""
    if cfg.steps:
        return None
    given = cfg.params.get("metric")
    if given is not None:
        return str(given)
    spec = registry.get(cfg.method)
    if "metric" not in spec.taken():
        return None
    default = spec.param("metric").default
    return None if default is None else str(default)


def execute(run: Run, cfg: PipelineConfig, ds: Dataset) -> None:
    """Run a prepared configuration into ``run.directory / RELEASE_DIR``; never raises: a
    failure is the run's status and one-line error. A run cancelled while queued does not
    start."""
    if not run.start():
        return
    try:
        run.metric = _metric(cfg)
        _, release, numbers = run_anonymize(
            cfg,
            run.directory / RELEASE_DIR,
            data=ds.path,
            progress=RunProgress(run),
            named=("config.yaml", ds.name),  # (the download's names: the copies run are gone)
        )
        run.result = run_result(numbers, release, ds.frame, cfg.schema, ds.charts)
    except MicroanonError as exc:
        run.error, run.status = " ".join(str(exc).split()), "failed"
        return
    except Exception as exc:  # noqa: BLE001 - the page must learn that the run ended
        run.error, run.status = f"internal error: {type(exc).__name__}: {exc}", "failed"
        return
    run.stage, run.status = "done", "done"
