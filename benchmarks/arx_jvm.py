"""Run microanon's ARX driver (``peers/ArxBench.java``): a warm JVM session or one cold JVM.

The driver reads ARX's Adult and hierarchy CSVs (written by :func:`peer_tools.write_inputs` from
microanon's bundled copies of ARX's files) and runs jobs, one line each (see the Java file):
``<model> <parameter> <suppression> <metric> <quasi,...> <sensitive> <output.csv|->``, and
optionally ``<algorithm> <time limit ms>`` (ARX's heuristic searches, ``arx_heuristic.py``). A warm
:class:`Session` keeps one JVM for every run; :func:`cold_run` starts a fresh JVM for one job and
times it from the outside (wall seconds, JVM start-up and reading the CSVs included).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: ARX's quality models the driver can select: ``loss`` is ARX's default (Loss, gs-factor 0.5,
#: geometric mean of the attributes), ``loss-mean`` Loss with the arithmetic mean (nearest LM).
ARX_METRICS = ("loss", "loss-mean")

#: ARX's searches the driver can select: ``optimal`` (FLASH), ``lightning``
#: (BEST_EFFORT_BOTTOM_UP), ``top-down`` (BEST_EFFORT_TOP_DOWN), ``genetic`` (BEST_EFFORT_GENETIC).
ARX_ALGORITHMS = ("optimal", "lightning", "top-down", "genetic")


class DriverError(RuntimeError):
    """The driver failed (the message is its error)."""


@dataclass(frozen=True)
class ArxRun:
    """One warm run as the driver reports it (times in ms)."""

    cpu_ms: float
    process_cpu_ms: float
    wall_ms: float
    levels: tuple[int, ...] | None
    suppressed: int
    checked: int
    search_ms: float

    @classmethod
    def from_json(cls, line: str) -> ArxRun:
        """Parse the driver's answer."""
        d: dict[str, Any] = json.loads(line)
        if "error" in d:
            raise DriverError(f"ARX driver: {d['error']}")
        return cls(
            float(d["cpu_ms"]),
            float(d["process_cpu_ms"]),
            float(d["wall_ms"]),
            tuple(d["levels"]) if d["found"] else None,
            int(d["suppressed"]),
            int(d["checked"]),
            float(d["search_ms"]),
        )


def job_line(
    models: list[dict[str, dict[str, Any]]],
    suppression: float,
    metric: str,
    quasi: tuple[str, ...],
    sensitive: str,
    output: Path | None = None,
    algorithm: str | None = None,
    time_limit_ms: int | None = None,
) -> str:
    """The driver's job line of a one-model configuration (``models`` as microanon's spec).

    ``algorithm`` (one of :data:`ARX_ALGORITHMS`) and ``time_limit_ms`` choose ARX's search
    and its heuristic time limit; without them ARX runs its optimal search.
    """
    ((name, params),) = models[0].items()
    if name == "k_anonymity":
        model, value = "k", params["k"]
    elif name == "l_diversity":
        model, value = f"l-{params.get('form', 'distinct')}", params["l"]
    elif name == "t_closeness":
        model, value = "t", params["t"]
    else:
        raise ValueError(f"the ARX driver has no model {name!r}")
    if metric not in ARX_METRICS:
        raise ValueError(f"ARX metric {metric!r}: choose among {ARX_METRICS}")
    fields = [model, str(value), repr(float(suppression)), metric, ",".join(quasi), sensitive]
    fields.append(str(output) if output is not None else "-")
    if algorithm is not None:
        if algorithm not in ARX_ALGORITHMS or time_limit_ms is None or time_limit_ms <= 0:
            raise ValueError(
                f"ARX algorithm {algorithm!r} with time limit {time_limit_ms!r}: choose among "
                f"{ARX_ALGORITHMS} and a positive limit in ms"
            )
        fields += [algorithm, str(int(time_limit_ms))]
    return " ".join(fields)


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        raise DriverError("java not found: a JRE (8 or later) runs ARX")
    return java


class Session:
    """One warm JVM running jobs sent on its standard input; close it (or use ``with``)."""

    def __init__(
        self, classpath: str, data: str, hierarchies: str, fresh_strings: bool = False
    ) -> None:
        # fresh_strings: new String objects for the cells in every run (see ArxBench.java)
        fresh = ["-Darxbench.freshStrings=true"] if fresh_strings else []
        self.process = subprocess.Popen(
            [_java(), *fresh, "-cp", classpath, "ArxBench", data, hierarchies],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def run(self, job: str) -> ArxRun:
        """Run one job in the warm JVM."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(job + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise DriverError(f"the ARX JVM exited (code {self.process.wait()})")
        return ArxRun.from_json(line)

    def close(self) -> None:
        """End the JVM (closing its input ends its loop)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def timed_process(command: list[str], what: str) -> tuple[float, str]:
    """Wall seconds of a fresh process running ``command``, and its standard output.

    Raises
    ------
    DriverError
        The process failed (``what`` names it, with the last line of its standard error).
    """
    start = time.perf_counter()
    r = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if r.returncode:
        raise DriverError(f"cold {what} run failed: {r.stderr.strip().splitlines()[-1:]}")
    return wall, r.stdout


def cold_run(classpath: str, data: str, hierarchies: str, job: str) -> float:
    """Wall seconds of a fresh JVM that reads the inputs, runs ``job`` once and exits."""
    wall, out = timed_process(
        [_java(), "-cp", classpath, "ArxBench", data, hierarchies, *job.split(" ")], "ARX"
    )
    ArxRun.from_json(out.strip().splitlines()[-1])  # a run that reports an error fails
    return wall
