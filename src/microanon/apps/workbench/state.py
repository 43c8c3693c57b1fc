"""The workbench's state: data sets, uploaded hierarchies and runs, in memory, with their files
in a private work directory that is deleted when the workbench closes (and, should the workbench
be killed, by the next one: :mod:`.workdirs`).

Uploaded files are stored under names the workbench makes (never a path the client sent);
runs execute one at a time on a worker thread, so a page can poll their progress.
"""

from __future__ import annotations

import re
import secrets
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ...core.errors import MicroanonError
from ...core.reading import ReadOptions
from ..init.run import safe_stem
from .datasets import Dataset, config_schema, dataset_json, load_bundled, load_file, loaded_at
from .errors import RequestError
from .hierarchies import read_upload
from .pipelines import Pipeline
from .runs import Run, execute, prepare
from .workdirs import make_workdir, remove_stale

__all__ = ["MAX_DATASETS", "Workbench", "safe_name"]

#: Data sets a workbench holds at most (uploads, bundled and the file given at start): their
#: tables stay in memory until removed (:meth:`Workbench.remove_dataset`).
MAX_DATASETS = 10
#: The statuses of a run that has not ended.
_ACTIVE = ("queued", "running")


def safe_name(name: str, default: str = "data.csv") -> str:
    """A client's file name reduced to a safe base name (letters, digits, ``._-``)."""
    return safe_stem(re.split(r"[\\/]", str(name))[-1], default)


class Workbench:
    """What one workbench process holds.

    Parameters
    ----------
    parent : path, optional
        Where the private work directory is made (default: the system's temporary directory);
        the work directories that killed workbenches left there are removed first.
    max_datasets : int
        Data sets held at most; loading one more is refused (:meth:`room`).

    Attributes
    ----------
    workdir : Path
    removed : list of Path
        The work directories of killed workbenches removed at start
        (:func:`~.workdirs.remove_stale`).
    """

    def __init__(self, parent: str | Path | None = None, max_datasets: int = MAX_DATASETS) -> None:
        self.removed = remove_stale(parent)
        self.workdir = make_workdir(parent)
        self.max_datasets = max_datasets
        self.datasets: dict[str, Dataset] = {}
        self.uploads: dict[str, Path] = {}
        self.runs: dict[str, Run] = {}
        self.pipelines: dict[str, Pipeline] = {}
        self.lock = threading.Lock()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="microanon-workbench-run")

    @staticmethod
    def new_id(prefix: str) -> str:
        """A fresh opaque id."""
        return f"{prefix}{secrets.token_hex(6)}"

    def new_file(self, kind: str, name: str) -> Path:
        """A new path under the work directory for an upload (its directory made)."""
        directory = self.workdir / kind / self.new_id("")
        directory.mkdir(parents=True)
        return directory / safe_name(name)

    # ---------------------------------------------------------------- data sets
    def room(self) -> None:
        """Refuse (409) a data set beyond :attr:`max_datasets`, before it is read."""
        if len(self.datasets) >= self.max_datasets:
            raise RequestError(
                f"the workbench holds {len(self.datasets)} data sets, its limit: remove one, "
                "with its runs, before loading another",
                "file",
                409,
            )

    def _keep(self, ds: Dataset) -> Dataset:
        with self.lock:
            self.room()  # two loads at once: the second one read may be one too many
            self.datasets[ds.id] = ds
        return ds

    def add_file(self, path: Path, name: str, read: ReadOptions) -> Dataset:
        """Load a data file (an upload in the work directory, or the user's file, only read).

        Raises
        ------
        RequestError
            A file that does not parse (the message names the file as the client did); 409 when
            the workbench holds :attr:`max_datasets` data sets.
        """
        self.room()
        try:
            ds = load_file(self.new_id("d"), path, name, read)
        except MicroanonError as exc:
            raise RequestError(str(exc).replace(str(path), name), "file") from None
        return self._keep(ds)

    def add_bundled(self, name: str) -> Dataset:
        """Load a bundled data set (409 when the workbench holds :attr:`max_datasets`)."""
        self.room()
        try:
            ds = load_bundled(self.new_id("d"), name)
        except MicroanonError as exc:
            raise RequestError(str(exc), "bundled") from None
        return self._keep(ds)

    def dataset_list(self) -> list[dict[str, Any]]:
        """The ``DatasetList`` answer: every data set, oldest first, with its runs in brief
        (``id``, ``label``, ``status``), for the page's list of data sets and runs."""
        with self.lock:
            held = [
                (ds, [self.runs[r] for r in ds.runs if r in self.runs])
                for ds in self.datasets.values()
            ]
        return [
            {
                "id": ds.id,
                "name": ds.name,
                "rows": len(ds.frame),
                "columns": len(ds.columns),
                "loaded": loaded_at(ds),
                "version": ds.version,
                "runs": [{"id": r.id, "label": r.label, "status": r.status} for r in runs],
            }
            for ds, runs in held
        ]

    def remove_dataset(self, ds_id: str) -> None:
        """Forget a data set with its runs, steps and files (its upload's copy in the work
        directory; a file given at start is never touched).

        Raises
        ------
        RequestError
            404 for an unknown data set; 409 while one of its runs is queued or running.
        """
        ds = self.dataset(ds_id)
        with self.lock:
            busy = [r for r in ds.runs if r in self.runs and self.runs[r].status in _ACTIVE]
            if busy:
                run = self.runs[busy[0]]
                raise RequestError(
                    f"data set {ds.name!r} has the run {run.label or run.id!r} {run.status}: "
                    "remove it when its runs have ended",
                    "id",
                    409,
                )
            del self.datasets[ds_id]
            self.pipelines.pop(ds_id, None)
            runs = [self.runs.pop(r) for r in ds.runs if r in self.runs]
        for run in runs:
            shutil.rmtree(run.directory, ignore_errors=True)
        if ds.path is not None and ds.path.is_relative_to(self.workdir):
            shutil.rmtree(ds.path.parent, ignore_errors=True)

    def dataset(self, ds_id: str) -> Dataset:
        """A data set by id (404 otherwise)."""
        ds = self.datasets.get(ds_id)
        if ds is None:
            raise RequestError(f"no data set {ds_id!r}", "id", status=404)
        return ds

    def dataset_json(self, ds: Dataset) -> dict[str, Any]:
        """The ``Dataset`` answer, with its runs."""
        return dataset_json(ds, [self.runs[r].to_json() for r in ds.runs if r in self.runs])

    def quasi(self, ds: Dataset) -> list[str]:
        """The quasi-identifiers of ``ds`` (400 without any)."""
        quasi = ds.quasi
        if not quasi:
            raise RequestError(
                "no quasi-identifier: give at least one column the role quasi", "role"
            )
        return quasi

    # ---------------------------------------------------------------- hierarchies
    def add_hierarchy(self, data: bytes, name: str) -> dict[str, Any]:
        """Store an uploaded ARX hierarchy file after checking that it reads."""
        tree = read_upload(data, safe_name(name, "hierarchy.csv"))
        path = self.new_file("hierarchies", name)
        path.write_bytes(data)
        upload = self.new_id("h")
        with self.lock:
            self.uploads[upload] = path
        return {"upload": upload, "leaves": tree.n_leaves, "levels": tree.height}

    # ---------------------------------------------------------------- steps
    def pipeline(self, ds: Dataset) -> Pipeline:
        """The steps chosen on ``ds`` (none at first)."""
        with self.lock:
            return self.pipelines.setdefault(ds.id, Pipeline())

    def steps(self, ds: Dataset) -> dict[str, Any]:
        """The ``Steps`` answer of ``ds``: the risk and loss after each step, on its schema as
        it is now (:meth:`~.pipelines.Pipeline.table`)."""
        with ds.change_lock:
            schema, columns = config_schema(ds, self.uploads), dict(ds.columns)
        return self.pipeline(ds).table(ds.frame, schema, columns)

    def change_steps(
        self, ds: Dataset, edit: Callable[[list[dict[str, Any]]], list[Any]]
    ) -> dict[str, Any]:
        """Change the steps of ``ds`` by ``edit``, or refuse and change nothing
        (:meth:`~.pipelines.Pipeline.change`)."""
        with ds.change_lock:
            schema, columns = config_schema(ds, self.uploads), dict(ds.columns)
        return self.pipeline(ds).change(edit, ds.frame, schema, columns)

    # ---------------------------------------------------------------- runs
    def start_run(self, ds: Dataset, body: Any) -> Run:
        """Prepare a run (refusing a bad configuration) and queue it."""
        run_id = self.new_id("r")
        directory = self.workdir / "runs" / run_id
        directory.mkdir(parents=True)
        run = Run(run_id, ds.id, "", {}, directory)
        try:
            with ds.change_lock:  # the schema as the changes sent before left it
                cfg = prepare(ds, body, self.uploads, run)
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        with self.lock:
            if self.datasets.get(ds.id) is not ds:  # removed meanwhile
                shutil.rmtree(directory, ignore_errors=True)
                raise RequestError(f"no data set {ds.id!r}", "id", status=404)
            self.runs[run_id] = run
            ds.runs.append(run_id)
        self._executor.submit(execute, run, cfg, ds)
        return run

    def run(self, run_id: str) -> Run:
        """A run by id (404 otherwise)."""
        run = self.runs.get(run_id)
        if run is None:
            raise RequestError(f"no run {run_id!r}", "id", status=404)
        return run

    def stop_run(self, run_id: str) -> tuple[Run, str]:
        """Ask a run to stop (:meth:`~.runs.Run.request_stop`): the run and what happens.

        Raises
        ------
        RequestError
            404 for an unknown run; 409 for one that has ended or cannot stop now.
        """
        run = self.run(run_id)
        return run, run.request_stop()

    def delete_run(self, run_id: str) -> None:
        """Forget a finished run and remove its files (409 while it is queued or running)."""
        run = self.run(run_id)
        if run.status in _ACTIVE:
            raise RequestError(
                f"run {run_id!r} is {run.status}; delete it when it has ended", "id", 409
            )
        with self.lock:
            del self.runs[run_id]
            ds = self.datasets.get(run.dataset)
            if ds is not None and run_id in ds.runs:
                ds.runs.remove(run_id)
        shutil.rmtree(run.directory, ignore_errors=True)

    def close(self) -> None:
        """Stop the runs not started and delete the work directory."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self.workdir, ignore_errors=True)
