"""The whole ``microanon anonymize`` command, stage by stage, beside its floor, its search and ARX.

Run: .venv/bin/python benchmarks/whole_run.py [--sizes 1e5,1e6] [--huge] [--data adult]
     [--engines memory,dask] [--dir DIR] [--repeat 1] [--arx-src DIR] [--arx-sizes 1.5e6]
     [--no-arx] [--no-workbench] [--json FILE]

Data (generated, never committed; into ``--dir`` or a temporary directory removed at the end):
``adult`` is ARX's Adult extract (30,162 rows) resampled with replacement to each size (fixed
seed), ``synthetic`` every column drawn on its own from Adult's marginals (the same domains, far
more distinct combinations), ``survey`` the resampled records with a sampling weight drawn per
record (uniform on 1-500, two decimals: about 50,000 distinct values, so that with the keys
nearly every record's combination is its own, as with a survey's calibrated weights) and a
household id (three consecutive records per household), which the configuration gives the
roles ``weight`` and ``household`` (no ARX run on it). Each size is written as one CSV (pandas,
unquoted: ARX's driver reads it too) and, for ``--engine dask``, as a Parquet directory of
``--rows-per-file`` rows per file. Configuration (a YAML file beside the data): the 6
quasi-identifiers ``sex, age, race, marital_status, education, native_country`` with ARX's
hierarchy files (``age`` numeric), ``workclass`` and ``salary_class`` insensitive,
``occupation`` sensitive; ``full_domain``, k = 5, 5 % suppression, LM.

Per size, each measured in a fresh process (best wall of ``--repeat``; CPU and peak resident
memory of that process and the children it waited for, from ``os.wait4`` in a small launcher
process that never held the data (:data:`LAUNCHER`); Python's bytecode cache on even where the
environment turns it off, as for a package installed by pip):

- ``start``: ``python -c "import numpy, pandas, pyarrow"``, the interpreter's start;
- ``imports``: the same process importing too what the command imports besides matplotlib
  (YAML, Jinja2 and the package's modules of the command, its pipeline and its reports), less
  ``start``: a part of every run that the data's size does not change;
- ``floor``: a process reading the CSV with ``pyarrow.csv.read_csv`` and writing it back with
  ``pyarrow.csv.write_csv``, less ``start``: the read+write floor;
- ``microanon anonymize DATA --config ... --out ...`` (``python -m microanon.apps.cli``), its
  stage seconds (read, lint, method, write, verify, reports) parsed from the progress lines it
  prints on stderr when stderr is not a terminal; with ``--engine dask`` on the Parquet
  directory, the stage seconds of its ``--json`` answer (read = read and encode, method =
  frequency table and search, lint = the schema lint, on a sample of a larger dataset);
- ``search``: the full-domain search alone (``microanon.methods.generalize.full_domain.search``)
  on the encoded table of the same file, in this process (least wall seconds of at least three
  searches, after a first one not counted: that one also pays for what a process sets up once).

- ``workbench``: with the in-memory engine, the workbench (``microanon app``'s application through
  starlette's test client, in a fresh process, the file preloaded, roles and hierarchies given)
  from the run's request to its end; the target: within 30 s on 10^6 rows.

The target of a row: the run less the interpreter's start, ``(total - start) / (floor +
search)``, at most 3. The script says at which sizes three times the floor and the search is
less than the imports and the floor alone (every run imports its modules, reads the data and
writes the release), a bound no run can meet. The Dask run's reports are compared with
the in-memory run's (their text without markup): ``no report`` while the Dask engine writes
none.

ARX (with ``--arx-src``, an ARX source tree built by ``arx_build.py``; see ``arx.py``), on each
of ``--arx-sizes``: a fresh JVM running microanon's driver ``peers/ArxBench.java`` that reads the
CSV and ARX's hierarchy files, anonymizes with the same configuration (k = 5, 5 % suppression,
ARX's Loss) and writes its table as CSV; its wall, its whole CPU (JVM start, reading and writing
included) and the CPU the driver measures from the rows in memory to the output table (all the
JVM's threads). Beside it microanon's CPU of ``full_domain`` from the DataFrame (the file read
as the command reads it; best of ``--repeat``). The target: microanon's CPU at most half of ARX's
anonymization CPU.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import peer_tools
from arx import format_table

from microanon.core import Table
from microanon.datasets import load_arx_adult
from microanon.datasets._files import read_bytes

QUASI = ("sex", "age", "race", "marital_status", "education", "native_country")
OTHERS = {"workclass": "insensitive", "salary_class": "insensitive", "occupation": "sensitive"}
K, SUPPRESSION, METRIC = 5, 0.05, "lm"
HERE = Path(__file__).resolve().parent
STAGES = ("read", "lint", "method", "write", "verify", "reports")
TARGET_FLOOR = 3.0  # (total - start) / (floor + search)
TARGET_ARX = 0.5  # microanon's full_domain CPU / ARX's anonymization CPU
START_CODE = "import numpy, pandas, pyarrow"
IMPORT_CODE = (
    START_CODE + ", yaml, jinja2, microanon.apps.cli, microanon.apps.anonymize, "
    "microanon.apps.engine, microanon.apps.families"
)
FLOOR_CODE = (
    "import sys, numpy, pandas, pyarrow, pyarrow.csv as c\n"
    "c.write_csv(c.read_csv(sys.argv[1]), sys.argv[2])\n"
)
WORKBENCH_CODE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "import whole_run\n"
    "print(whole_run.workbench_seconds(sys.argv[2], sys.argv[3]))\n"
)
TARGET_WORKBENCH = (10**6, 30.0)  # rows, seconds
STAGE_LINE = re.compile(r"\[\d+/\d+\] (.+?) \.\.\. done in ([\d.]+) s$")


#: The survey design columns of the ``survey`` data and their roles.
DESIGN = {"weight": "{role: weight, kind: numeric}", "household": "{role: household}"}


def whole_ratio(total: float, start: float, floor: float, search: float) -> float:
    """``(total - start) / (floor + search)``, the whole-run target's ratio; infinite when the
    floor and the search together measured no time (on a small file the floor, less the
    interpreter's start measured apart, can come out below zero)."""
    denominator = floor + search
    return (total - start) / denominator if denominator > 0 else math.inf


def generate(kind: str, rows: int, seed: int = 0) -> pd.DataFrame:
    """``rows`` rows of ``adult`` (resampled records), ``survey`` (those with a weight drawn
    per record and households of three) or ``synthetic`` (independent columns)."""
    adult = load_arx_adult()
    rng = np.random.default_rng(seed)
    if kind in ("adult", "survey"):
        frame = adult.iloc[rng.integers(0, len(adult), rows)].reset_index(drop=True)
        if kind == "survey":
            frame["weight"] = np.round(rng.uniform(1, 500, rows), 2)
            frame["household"] = np.arange(rows) // 3
        return frame
    return pd.DataFrame(
        {c: adult[c].to_numpy()[rng.integers(0, len(adult), rows)] for c in adult.columns}
    )


def write_config(folder: Path, survey: bool = False) -> Path:
    """ARX's hierarchy files ``hierarchy_<column>.csv`` and ``k5.yaml`` naming them (with
    ``survey``, ``k5-survey.yaml``, the roles of :data:`DESIGN` added)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["schema:"]
    for column in QUASI:
        path = folder / f"hierarchy_{column}.csv"
        path.write_bytes(read_bytes(peer_tools.hierarchy_file(column)))
        kind = ", kind: numeric" if column == "age" else ""
        lines.append(f"  {column}: {{role: quasi{kind}, hierarchy: {path.name}}}")
    lines += [f"  {column}: {{role: {role}}}" for column, role in OTHERS.items()]
    lines += [f"  {column}: {role}" for column, role in DESIGN.items() if survey]
    lines += [
        "method: full_domain",
        f"params: {{suppression: {SUPPRESSION}, metric: {METRIC}}}",
        "models:",
        f"  - k_anonymity: {{k: {K}}}",
    ]
    config = folder / ("k5-survey.yaml" if survey else "k5.yaml")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def write_data(frame: pd.DataFrame, folder: Path, per_file: int, parquet: bool) -> Path:
    """``folder/data.csv`` and, with ``parquet``, ``folder/parquet/part-NNNNN.parquet``."""
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / "data.csv", index=False)
    if parquet:
        (folder / "parquet").mkdir(exist_ok=True)  # a --dir used before: its files rewritten
        for old in (folder / "parquet").glob("part-*.parquet"):
            old.unlink()
        for i, start in enumerate(range(0, len(frame), per_file)):
            part = frame.iloc[start : start + per_file]
            part.to_parquet(folder / "parquet" / f"part-{i:05d}.parquet", index=False)
    return folder / "data.csv"


@dataclass
class Proc:
    """One finished process: wall and CPU seconds, peak resident memory, its outputs."""

    wall: float
    cpu: float
    rss_mb: float
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)


#: The measured processes' environment: this one's, bytecode caching on.
_CACHING = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


#: A small process that runs a measured command and prints its wall seconds and ``os.wait4``
#: usage as JSON. Linux carries a process's peak resident memory over to the children it forks
#: (through ``execve`` too): a command started from this script, which holds the generated
#: table, would report at least this script's peak. Started from the launcher, which never held
#: the data, it reports its own.
LAUNCHER = """
import json, os, subprocess, sys, time
out, err, command = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(out, "w") as fo, open(err, "w") as fe:
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=fo, stderr=fe)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code]))
"""


def run_process(command: list[str], folder: Path, env: Mapping[str, str] | None = None) -> Proc:
    """Run ``command`` in a fresh process; CPU and peak memory of it and its waited children.

    The process is started by :data:`LAUNCHER` (its wall seconds measured there, from its start
    to its end). It may cache the bytecode of the modules it compiles
    (``PYTHONDONTWRITEBYTECODE`` is left out of its environment), as a package installed by pip
    has its bytecode compiled: a run after the first compiles no source. ``env`` adds to (or
    replaces) variables of that environment, e.g. ``PYTHONPATH`` for another version of the code.

    Raises
    ------
    RuntimeError
        The process failed (with the end of its standard error).
    """
    out, err = folder / "proc.out", folder / "proc.err"
    launched = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(out), str(err), *command],
        env={**_CACHING, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    wall, cpu, rss_mb, code = json.loads(launched.stdout)
    stdout, stderr = out.read_text("utf-8"), err.read_text("utf-8")
    out.unlink()
    err.unlink()
    if code:
        raise RuntimeError(f"{command[:4]} failed: {stderr.strip()[-400:]}")
    return Proc(wall, cpu, rss_mb, stdout, stderr)


def best(command: list[str], folder: Path, repeat: int) -> Proc:
    """The run of least wall time among ``repeat`` runs of ``command``."""
    return min((run_process(command, folder) for _ in range(repeat)), key=lambda p: p.wall)


def stage_seconds(stderr: str) -> dict[str, float]:
    """The seconds of each stage of ``microanon anonymize`` from its progress lines."""
    names = {
        "read": "read",
        "schema lint": "lint",
        "method": "method",
        "write the release": "write",
        "verify the written files": "verify",
        "reports": "reports",
    }
    seconds = {}
    for line in stderr.splitlines():
        m = STAGE_LINE.search(line)
        if m is None:
            continue
        for prefix, stage in names.items():
            if m[1].startswith(prefix):
                seconds[stage] = float(m[2])
    return seconds


def dask_stage_seconds(answer: dict[str, Any]) -> dict[str, float]:
    """The stage seconds of ``anonymize --engine dask --json`` in this script's stages."""
    s = answer["seconds"]
    return {
        **({"lint": s["lint"]} if "lint" in s else {}),
        "read": s["encode"],
        "method": s["frequencies"] + s["search"],
        "write": s["write"],
        "verify": s["verify"],
        **({"reports": s["reports"]} if "reports" in s else {}),
    }


def cli(*args: str) -> list[str]:
    """The command line of ``microanon`` with ``args``."""
    return [sys.executable, "-m", "microanon.apps.cli", *args]


def report_text(out: Path) -> str | None:
    """The public report's text without markup (``None`` when there is no report)."""
    path = out / "public" / "report.html"
    if not path.exists():
        return None
    text = re.sub(r"<[^>]+>", " ", path.read_text("utf-8"))
    return " ".join(text.split())


def workbench_seconds(csv: str, folder: str) -> float:
    """Wall seconds of a workbench run of the configuration on ``csv``, from its request to done.

    The workbench (the ``microanon app`` application, driven by starlette's test client) is
    started with the file preloaded; the roles and ARX's hierarchy files of ``folder`` are
    given before the clock starts.
    """
    from starlette.testclient import TestClient

    from microanon.apps.workbench import create_app
    from microanon.core import ReadOptions

    app = create_app(preload=(Path(csv), ReadOptions()))
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        (ds,) = client.get("/api/datasets").json()
        columns: dict[str, Any] = {c: {"role": role} for c, role in OTHERS.items()}
        with Path(csv).open(encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split(",")
        if "weight" in header:  # the survey data: its design columns' roles (see DESIGN)
            columns["weight"] = {"role": "weight", "kind": "numeric"}
            columns["household"] = {"role": "household"}
        for q in QUASI:
            text = (Path(folder) / f"hierarchy_{q}.csv").read_bytes()
            files = {"file": (f"{q}.csv", text, "text/csv")}
            upload = client.post("/api/hierarchies", files=files).json()["upload"]
            kind = "numeric" if q == "age" else "categorical"
            columns[q] = {"role": "quasi", "kind": kind}
            columns[q]["hierarchy"] = {"type": "arx_csv", "upload": upload}
        answer = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": columns})
        if answer.status_code != 200:
            raise RuntimeError(f"workbench schema: {answer.text}")
        body = {
            "method": "full_domain",
            "params": {"suppression": SUPPRESSION, "metric": METRIC},
            "models": [{"k_anonymity": {"k": K}}],
        }
        start = time.perf_counter()
        run = client.post(f"/api/datasets/{ds['id']}/runs", json=body).json()
        while (got := client.get(f"/api/runs/{run['id']}").json())["status"] not in (
            "done", "failed",
        ):  # fmt: skip
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        if got["status"] != "done":
            raise RuntimeError(f"workbench run failed: {got['error']}")
    return seconds


def search_seconds(frame: pd.DataFrame, cfg: Any, repeat: int) -> float:
    """Least wall seconds of the full-domain search alone on the encoded table, among
    ``repeat`` searches after one not counted (the first search of a process also pays for
    what it imports and sets up once, which the command's own run pays outside its search)."""
    from microanon.methods.generalize.full_domain import search

    table = Table.from_frame(frame, cfg.schema)
    search(table, cfg.models, SUPPRESSION, METRIC)
    walls = []
    for _ in range(repeat):
        wall = time.perf_counter()
        search(table, cfg.models, SUPPRESSION, METRIC)
        walls.append(time.perf_counter() - wall)
    return min(walls)


def full_domain_cpu(frame: pd.DataFrame, cfg: Any, repeat: int) -> tuple[float, tuple[int, ...]]:
    """Least CPU seconds of ``full_domain`` from the DataFrame to the Release; its node."""
    from microanon.methods.generalize import full_domain

    def call(data: pd.DataFrame) -> Any:
        return full_domain(
            data, cfg.schema, models=cfg.models, suppression=SUPPRESSION, metric=METRIC
        )

    call(frame.head(2_000))  # lazy imports, untimed
    times, release = [], None
    for _ in range(repeat):
        start = time.process_time()
        release = call(frame)
        times.append(time.process_time() - start)
    assert release is not None
    return min(times), tuple(int(release.metadata["levels"][q]) for q in QUASI)


@dataclass
class Row:
    """One whole run of ``microanon anonymize`` and its references."""

    data: str
    rows: int
    engine: str
    start: float
    imports: float
    floor: float
    search: float
    total: float
    cpu: float
    rss_mb: float
    stages: dict[str, float]
    reports: str = ""
    workbench: float | None = None

    @property
    def ratio(self) -> float:
        """The run less the interpreter's start over the floor plus the search."""
        return whole_ratio(self.total, self.start, self.floor, self.search)


def row_cells(r: Row) -> list[str]:
    """The whole-run table's cells of one row."""
    stages = [f"{r.stages[s]:.1f}" if s in r.stages else "—" for s in STAGES]
    holds = "yes" if r.ratio <= TARGET_FLOOR else "NO"
    return [
        r.data, f"{r.rows:,}", r.engine, f"{r.start:.2f}", f"{r.imports:.2f}", *stages,
        f"{r.total:.1f}", f"{r.cpu:.1f}", f"{r.rss_mb / 1024:.1f}", f"{r.floor:.2f}",
        f"{r.search:.2f}", f"{r.ratio:.1f}", holds, r.reports,
        "—" if r.workbench is None else f"{r.workbench:.1f}",
    ]  # fmt: skip


ROW_HEADER = (
    "data", "rows", "engine", "start s", "imports s", *(f"{s} s" for s in STAGES), "total s",
    "CPU s", "peak GB", "floor s", "search s", "(total-start)/(floor+search)", "≤ 3×", "reports",
    "workbench s",
)  # fmt: skip


@dataclass
class ArxLine:
    """ARX end to end and microanon's full_domain from a DataFrame on one file."""

    data: str
    rows: int
    arx_wall: float
    arx_cpu: float
    arx_anonymize_cpu: float
    arx_rss_mb: float
    arx_node: tuple[int, ...] | None
    ours_cpu: float
    our_node: tuple[int, ...]

    @property
    def ratio(self) -> float:
        """microanon's CPU over ARX's anonymization CPU."""
        return self.ours_cpu / self.arx_anonymize_cpu


def arx_cells(a: ArxLine) -> list[str]:
    """The ARX table's cells of one file."""
    node = "none" if a.arx_node is None else "".join(map(str, a.arx_node))
    return [
        a.data, f"{a.rows:,}", f"{a.arx_wall:.1f}", f"{a.arx_cpu:.1f}",
        f"{a.arx_anonymize_cpu:.1f}", f"{a.arx_rss_mb / 1024:.1f}", node, f"{a.ours_cpu:.1f}",
        "".join(map(str, a.our_node)), f"{a.ratio:.2f}", f"{a.ours_cpu / a.arx_cpu:.2f}",
        "yes" if a.ratio <= TARGET_ARX else "NO",
    ]  # fmt: skip


ARX_HEADER = (
    "data", "rows", "ARX wall s (CSV→CSV)", "ARX JVM CPU s", "ARX anonymize CPU s",
    "ARX peak GB", "ARX node", "full_domain CPU s", "our node", "ours/ARX anonymize",
    "ours/ARX JVM", "≤ ½",
)  # fmt: skip


def arx_line(
    classpath: str, kind: str, csv: Path, folder: Path, frame: pd.DataFrame, cfg: Any, repeat: int
) -> ArxLine:
    """ARX in a fresh JVM, CSV in and CSV out, and microanon's ``full_domain`` on ``frame``."""
    import arx_jvm

    out = folder / "arx-out.csv"
    job = arx_jvm.job_line(
        [{"k_anonymity": {"k": K}}], SUPPRESSION, "loss", QUASI, "occupation", output=out
    )
    java = shutil.which("java") or "java"
    command = [java, "-cp", classpath, "ArxBench", str(csv), str(folder), *job.split(" ")]
    proc = best(command, folder, repeat)
    run = arx_jvm.ArxRun.from_json(proc.stdout.strip().splitlines()[-1])
    out.unlink(missing_ok=True)
    ours, node = full_domain_cpu(frame, cfg, repeat)
    return ArxLine(
        kind, len(frame), proc.wall, proc.cpu, run.process_cpu_ms / 1000, proc.rss_mb,
        run.levels, ours, node,
    )  # fmt: skip


def whole_runs(
    kind: str, rows: int, args: argparse.Namespace, root: Path, config: Path, classpath: str | None
) -> tuple[list[Row], ArxLine | None]:
    """The runs of one data set and size: start, floor, search, each engine; ARX if asked."""
    from microanon.apps.config import load_config

    folder = root / f"{kind}-{rows}"
    engines = args.engines.split(",")
    csv = write_data(generate(kind, rows), folder, args.rows_per_file, "dask" in engines)
    cfg = load_config(config)
    frame = cfg.read_data(csv)
    search = search_seconds(frame, cfg, max(args.repeat, 3))
    start = best([sys.executable, "-c", START_CODE], folder, max(args.repeat, 3)).wall
    imports = best([sys.executable, "-c", IMPORT_CODE], folder, max(args.repeat, 3)).wall - start
    copy = folder / "floor-copy.csv"
    floor = best([sys.executable, "-c", FLOOR_CODE, str(csv), str(copy)], folder, args.repeat)
    copy.unlink()
    out_rows, texts = [], {}
    for engine in engines:
        out = folder / f"out-{engine}"
        if engine == "memory":
            source = csv
            command = cli("anonymize", str(csv), "--config", str(config), "--out", str(out))
        else:
            source = folder / "parquet"
            command = cli(
                "anonymize", str(source), "--config", str(config), "--out", str(out),
                "--engine", "dask", "--json",
            )  # fmt: skip
        procs = []
        for _ in range(args.repeat):
            shutil.rmtree(out, ignore_errors=True)
            procs.append(run_process(command, folder))
        proc = min(procs, key=lambda p: p.wall)
        if engine == "memory":
            stages = stage_seconds(proc.stderr)
        else:
            stages = dask_stage_seconds(json.loads(proc.stdout))
        texts[engine] = report_text(out)
        row = Row(
            kind, rows, engine, start, imports, floor.wall - start, search, proc.wall, proc.cpu,
            proc.rss_mb, stages,
        )  # fmt: skip
        if engine == "memory" and args.workbench:
            command = [sys.executable, "-c", WORKBENCH_CODE, str(HERE), str(csv)]
            row.workbench = float(best([*command, str(config.parent)], folder, 1).stdout)
        if engine != "memory":
            mine, memory = texts[engine], texts.get("memory")
            row.reports = (
                "no report"
                if mine is None
                else "n/a"
                if memory is None
                else "identical"
                if mine == memory
                else "differ"
            )
        out_rows.append(row)
        print("  ".join(row_cells(row)), flush=True)
    for engine in engines:
        shutil.rmtree(folder / f"out-{engine}", ignore_errors=True)
    arx = None
    if classpath is not None and rows in args.arx_rows and kind != "survey":
        arx = arx_line(classpath, kind, csv, config.parent, frame, cfg, args.repeat)
        print("  ".join(arx_cells(arx)), flush=True)
    if not args.dir:
        shutil.rmtree(folder)
    return out_rows, arx


def sizes(text: str) -> list[int]:
    """Row counts from ``1e5,1.5e6``."""
    return [int(float(s)) for s in text.split(",") if s]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6", help="row counts (default 1e5,1e6)")
    parser.add_argument("--huge", action="store_true", help="also 10^7 rows (an 800 MB CSV)")
    parser.add_argument(
        "--data", default="adult", help="adult, synthetic, survey or several (comma)"
    )
    parser.add_argument("--engines", default="memory,dask", help="memory, dask or both (comma)")
    parser.add_argument("--dir", type=Path, help="where to write the data (default: a temp dir)")
    parser.add_argument("--rows-per-file", type=int, default=250_000, help="Parquet rows per file")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each process (least wall)")
    parser.add_argument("--arx-src", type=Path, help="an ARX source tree (see arx.py)")
    parser.add_argument("--arx-cache", type=Path, help="ARX's build cache (default arx_build's)")
    parser.add_argument(
        "--arx-sizes", default="1.5e6", help="sizes ARX runs on (default 1.5e6, added to --sizes)"
    )
    parser.add_argument("--no-arx", action="store_true", help="no ARX lines")
    parser.add_argument(
        "--no-workbench", dest="workbench", action="store_false", help="no workbench runs"
    )
    parser.add_argument("--json", type=Path, help="also write every measurement as JSON here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.arx_rows = set() if args.no_arx or args.arx_src is None else set(sizes(args.arx_sizes))
    args.size_list = sorted(
        set(sizes(args.sizes)) | args.arx_rows | ({10**7} if args.huge else set())
    )
    return args


def main(argv: list[str] | None = None) -> None:
    """Measure, print the tables and the targets."""
    args = parse_args(argv)
    classpath = None
    if args.arx_rows:
        import arx_build

        built = arx_build.build(args.arx_src, args.arx_cache or arx_build.DEFAULT_CACHE)
        classpath = built.classpath
        print(f"ARX {built.version} ({built.directory})")
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="microanon-whole-"))
    root.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    arx: list[ArxLine] = []
    try:
        configs = {
            kind: write_config(root / "config", survey=kind == "survey")
            for kind in args.data.split(",")
        }
        for n in args.size_list:
            for kind, config in configs.items():
                got, line = whole_runs(kind, n, args, root, config, classpath)
                rows += got
                arx += [line] if line is not None else []
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    print()
    print(format_table(ROW_HEADER, [row_cells(r) for r in rows]))
    print(
        "\nstart: python importing numpy, pandas, pyarrow; imports: importing the command's "
        "modules too (matplotlib aside), less start; floor: pyarrow read_csv + write_csv "
        "less start; search: the full-domain search alone on the encoded table (wall); "
        f"target: (total - start) ≤ {TARGET_FLOOR:g} × (floor + search)"
    )
    held = [r for r in rows if r.ratio <= TARGET_FLOOR]
    bound = [r for r in rows if TARGET_FLOOR * (r.floor + r.search) < r.imports + r.floor]
    if bound:
        print(
            f"at {', '.join(f'{n:,}' for n in sorted({r.rows for r in bound}))} rows, "
            f"{TARGET_FLOOR:g} × (floor + search) is less than the imports and the floor alone: "
            "no run of the command can meet the target there"
        )
    print(
        f"whole run within {TARGET_FLOOR:g}× floor + search at every size: "
        + ("met" if len(held) == len(rows) else f"NOT met ({len(rows) - len(held)} rows)")
    )
    if arx:
        print()
        print(format_table(ARX_HEADER, [arx_cells(a) for a in arx]))
        print(
            "\nARX: a fresh JVM reading the CSV, k=5, 5% suppression, ARX's Loss, writing CSV; "
            "anonymize CPU: the driver's, rows in memory to the output table, all JVM threads; "
            "full_domain CPU: microanon from the DataFrame to the Release (best of --repeat)"
        )
        ok = all(a.ratio <= TARGET_ARX for a in arx)
        print("full_domain at or below half of ARX's CPU: " + ("met" if ok else "NOT met"))
    rows_wb, limit = TARGET_WORKBENCH
    timed = [r.workbench for r in rows if r.rows == rows_wb and r.workbench is not None]
    print(
        f"workbench run on {rows_wb:,} rows within {limit:g} s: "
        + ("not measured" if not timed else "met" if max(timed) <= limit else "NOT met")
    )
    if args.json:
        doc = {
            "runs": [{**asdict(r), "ratio": r.ratio} for r in rows],
            "arx": [{**asdict(a), "ratio": a.ratio} for a in arx],
        }
        args.json.write_text(json.dumps(doc, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
